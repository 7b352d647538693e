"""A progress bar on stderr for runs longer than a second."""

from __future__ import annotations

import os
import sys
import time


class Progress:
    """Callable as `progress(done, total)`; draws nothing during the first second, and
    nothing at all unless stderr is a terminal (or MEMTWIN_PROGRESS=1)."""

    def __init__(self, label: str, stream=None, delay: float = 1.0, width: int = 30):
        self.label = label
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.delay = delay
        self.width = width
        self.drawn = False
        self.enabled = os.environ.get("MEMTWIN_PROGRESS") == "1" or (hasattr(self.stream, "isatty") and self.stream.isatty())

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or time.monotonic() - self.start < self.delay:
            return
        frac = 0.0 if total <= 0 else min(1.0, done / total)
        n = int(frac * self.width)
        self.stream.write(f"\r{self.label} [{'#' * n}{'.' * (self.width - n)}] {frac * 100:5.1f}%")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * (len(self.label) + self.width + 12) + "\r")
            self.stream.flush()
