"""Progress bars on stderr for runs longer than a second (rich), with an ETA.

    bar = Progress("seed000 [recharge]")
    bar(done, total)           # as often as you like; redrawn at most 10 times a second, and
                               # 4 times a second in between (a QEMU run calls seldom)
    bar.close()

Bars open at the same time share one display, a line each (`memtwin reproduce`: the whole run,
then the variant being simulated); a bar made with `nest=True` counts the progress of the bars
opened after it as a fraction of its own next unit, so its ETA moves while a long variant runs.

Nothing is drawn during a bar's first second, and nothing at all unless stderr is a terminal
(MEMTWIN_PROGRESS=1 forces the bars on, MEMTWIN_PROGRESS=0 off), nor when quiet: `memtwin
--quiet`, which sets QUIET, or MEMTWIN_QUIET=1. stdout is never written to."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Optional

QUIET = False  # `memtwin --quiet` sets it
DELAY = 1.0  # seconds before a bar is first drawn
REFRESH = 0.1  # seconds between redraws


def quiet() -> bool:
    return QUIET or os.environ.get("MEMTWIN_QUIET", "") not in ("", "0")


def enabled(stream=None) -> bool:
    """Whether progress is drawn on `stream` (default: stderr)."""
    if quiet():
        return False
    forced = os.environ.get("MEMTWIN_PROGRESS")
    if forced in ("0", "1"):
        return forced == "1"
    stream = stream or sys.stderr
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _Display:
    """The one rich live display that the open bars share (rich allows one at a time)."""

    def __init__(self):
        self.rich = None
        self.stream = None
        self.bars: list = []
        self.last = 0.0

    def start(self, stream) -> None:
        if self.rich is not None:
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress as RichProgress, TaskProgressColumn, TextColumn

        forced = os.environ.get("MEMTWIN_PROGRESS") == "1"
        console = Console(file=stream, force_terminal=True if forced else None, highlight=False, emoji=False)
        self.rich = RichProgress(TextColumn("{task.description}", markup=False), BarColumn(bar_width=30),
                                 TaskProgressColumn(), _times_column(), console=console, transient=True,
                                 refresh_per_second=4, redirect_stdout=False, redirect_stderr=False)
        self.stream = stream
        self.rich.start()

    def refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.rich is not None and (force or now - self.last >= REFRESH):
            self.last = now
            self.rich.refresh()

    def stop(self) -> None:
        if self.rich is not None:
            self.rich.stop()
            self.rich = None
            self.stream = None

    def print(self, text: str, stream) -> bool:
        """Print a line above the bars when they are drawn on `stream`; False when not drawn."""
        if self.rich is None or stream is not self.stream:
            return False
        from rich.text import Text

        self.rich.console.print(Text(text), soft_wrap=True)
        return True


_display = _Display()


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def eta(elapsed: float, done: float, total: Optional[float]) -> Optional[float]:
    """Seconds left at the average pace since the start; None before there is a pace (the
    first second, the first percent) or without a total."""
    if not total or done <= 0 or elapsed < 1.0 or done / total < 0.01:
        return None
    return max(0.0, elapsed * (total - done) / done)


def _times_column():
    """`0:00:23 ETA 0:00:49`: the time since the bar was made and the time left at the average
    pace since then (rich's own estimate looks at the last 30 s only, which a unit of a long
    variant can outlast), computed at each redraw."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class Times(ProgressColumn):
        def render(self, task):
            elapsed = time.monotonic() - task.fields.get("t0", time.monotonic())
            left = None if task.total is None else (0.0 if task.completed >= task.total else eta(elapsed, task.completed, task.total))
            return Text(f"{_clock(elapsed)} ETA {'-:--:--' if left is None else _clock(left)}")

    return Times()


class Progress:
    """Callable as `progress(done, total)`; see the module's docstring."""

    def __init__(self, label: str, stream=None, delay: Optional[float] = None, width: int = 30, nest: bool = False):
        self.label = label
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.delay = DELAY if delay is None else delay
        self.width = width
        self.nest = nest
        self.done, self.total = 0.0, 0.0
        self.sub = 0.0  # nest: the fraction of the next unit that the bars opened after this one report
        self.task = None
        self.ends = 0  # calls in a row at done >= total
        self.drawn = False
        self.closed = False
        self.enabled = enabled(self.stream)
        if self.enabled:
            _display.bars.append(self)

    def __call__(self, done: float, total: float, label: Optional[str] = None) -> None:
        if not self.enabled or self.closed:
            return
        if label is not None:
            self.label = label
        if (done, total) != (self.done, self.total):
            self.sub = 0.0
        self.done, self.total = done, total
        self.ends = self.ends + 1 if total > 0 and done >= total else 0
        frac = 0.0 if total <= 0 else min(1.0, done / total)
        for parent in _display.bars:
            if parent is self:
                break
            if parent.nest and parent.total > 0:
                parent.sub = frac
        self._draw()

    def _shown(self) -> tuple[float, float]:
        total = max(self.total, 1e-9)
        return min(total, self.done + (self.sub if self.nest else 0.0)), total

    def _draw(self) -> None:
        now = time.monotonic()
        if _display.rich is None:
            if not (self.drawn or now - self.start >= self.delay):
                return
            _display.start(self.stream)
        elif self.stream is not _display.stream:
            return  # another stream holds the display
        for bar in _display.bars:  # every open bar in opening order; a bar still in its delay waits
            if not bar.drawn and now - bar.start >= bar.delay:
                bar.drawn = True
            if bar.task is None and bar.drawn:
                bar.task = _display.rich.add_task(bar.label, total=bar._shown()[1], t0=bar.start)
            if bar.task is not None:
                done, total = bar._shown()
                # still called at its end: the work goes on past what its total counted (a pulse)
                _display.rich.update(bar.task, completed=done, total=total, description=bar.label)
                if bar.ends > 1 and not bar.nest:
                    for t in _display.rich.tasks:
                        if t.id == bar.task:
                            t.total = None  # rich's update() cannot unset it
        _display.refresh()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if not self.enabled:
            return
        if self in _display.bars:
            _display.bars.remove(self)
        if self.task is not None and _display.rich is not None:
            _display.rich.remove_task(self.task)
            _display.refresh(force=True)
        self.task = None
        if not any(b.task is not None for b in _display.bars):
            _display.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def note(text: str, stream=None) -> None:
    """A line of progress news on stderr (`[2/5] seed002: running 2 variants`), printed above
    the bars when they are drawn; nothing when quiet."""
    stream = stream or sys.stderr
    if quiet():
        return
    if not _display.print(text, stream):
        print(text, file=stream, flush=True)


@contextlib.contextmanager
def paused():
    """Take the bars off the terminal while something is printed to stdout (the same terminal,
    usually); they come back at the next update."""
    if _display.rich is None:
        yield
        return
    bars = [b for b in _display.bars if b.task is not None]
    _display.stop()
    for b in bars:
        b.task = None
    try:
        yield
    finally:
        for b in bars:
            b.drawn = True  # drawn again at its next update, with the others
