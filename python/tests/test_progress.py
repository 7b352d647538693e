"""memtwin.progress: rich bars with an ETA on stderr, off when stderr is not a terminal, with
`memtwin --quiet` or MEMTWIN_QUIET=1, forced on by MEMTWIN_PROGRESS=1; stdout is the same
with the bars on or off."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from memtwin import progress
from memtwin.cli import main

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed003-dying-cgroups.toml"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def env(monkeypatch):
    """No inherited MEMTWIN_PROGRESS/MEMTWIN_QUIET, bars drawn at once."""
    monkeypatch.delenv("MEMTWIN_PROGRESS", raising=False)
    monkeypatch.delenv("MEMTWIN_QUIET", raising=False)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "REFRESH", 0.0)
    monkeypatch.setattr(progress, "QUIET", False)
    return monkeypatch


def _drive(bar, n=5):
    for i in range(n + 1):
        bar(i, n)
    bar.close()


def test_drawn_on_a_terminal_with_an_eta(env):
    tty = Tty()
    _drive(progress.Progress("seed000 [recharge]", stream=tty))
    text = ANSI.sub("", tty.getvalue())
    assert "seed000 [recharge]" in text and "ETA" in text and "100%" in text


def test_off_when_not_a_terminal(env):
    s = io.StringIO()
    bar = progress.Progress("x", stream=s)
    assert not bar.enabled
    _drive(bar)
    assert s.getvalue() == ""


def test_forced_on_and_quiet(env):
    env.setenv("MEMTWIN_PROGRESS", "1")
    s = io.StringIO()
    _drive(progress.Progress("forced", stream=s))
    assert "forced" in s.getvalue()
    env.setenv("MEMTWIN_QUIET", "1")  # quiet wins over forced
    s = io.StringIO()
    _drive(progress.Progress("forced", stream=s))
    assert s.getvalue() == ""
    env.delenv("MEMTWIN_QUIET")
    env.setattr(progress, "QUIET", True)  # what --quiet sets
    _drive(progress.Progress("forced", stream=s))
    assert s.getvalue() == ""
    env.setattr(progress, "QUIET", False)
    env.setenv("MEMTWIN_PROGRESS", "0")
    assert not progress.Progress("off", stream=Tty()).enabled


def test_nothing_during_the_first_second(env):
    env.setattr(progress, "DELAY", 1.0)
    tty = Tty()
    _drive(progress.Progress("slow", stream=tty))
    assert tty.getvalue() == ""


def test_nested_bars_share_one_display(env):
    tty = Tty()
    outer = progress.Progress("reproduce", stream=tty, nest=True)
    outer(0, 2, label="[1/2] seed000 baseline")
    inner = progress.Progress("seed000 [baseline]", stream=tty)
    inner(5, 10)
    assert outer._shown() == (0.5, 2), "half of the first of two units"
    inner.close()
    outer(1, 2, label="[2/2] seed000 recharge")
    assert outer._shown() == (1, 2)
    outer.close()
    text = ANSI.sub("", tty.getvalue())
    assert "[1/2] seed000 baseline" in text and "seed000 [baseline]" in text and "[2/2] seed000 recharge" in text
    assert progress._display.rich is None and progress._display.bars == []


def test_note_prints_above_or_plainly_and_not_when_quiet(env):
    s = io.StringIO()
    progress.note("[1/2] x", stream=s)
    assert s.getvalue() == "[1/2] x\n"
    env.setenv("MEMTWIN_QUIET", "1")
    progress.note("[2/2] y", stream=s)
    assert s.getvalue() == "[1/2] x\n"


def _masked(out: str) -> str:
    return re.sub(r"\d+\.\d\d s", "T s", out)


def test_quiet_flag_and_stdout_the_same_with_or_without_bars(env, capsys):
    env.setenv("MEMTWIN_PROGRESS", "1")
    assert main(["compare", str(SEED)]) == 0
    out_on, err_on = capsys.readouterr()
    assert "dying-cgroups" in ANSI.sub("", err_on), "forced bars are drawn on stderr"
    assert main(["--quiet", "compare", str(SEED)]) == 0
    out_quiet, err_quiet = capsys.readouterr()
    assert err_quiet == ""
    assert progress.QUIET is False, "the flag holds for its own command only"
    env.setenv("MEMTWIN_PROGRESS", "0")
    assert main(["compare", str(SEED)]) == 0
    out_off, err_off = capsys.readouterr()
    assert err_off == ""
    assert _masked(out_on) == _masked(out_quiet) == _masked(out_off)


def test_reproduce_shows_progress_per_scenario_and_variant(env, capsys, tmp_path):
    env.setenv("MEMTWIN_PROGRESS", "1")
    assert main(["reproduce", "--only", "000", "003", "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    err = ANSI.sub("", err)
    for label in ("[1/4] seed000-memcg-reread: baseline", "[2/4] seed000-memcg-reread: recharge",
                  "[4/4] seed003-dying-cgroups: release"):
        assert label in err
    assert "ETA" in err
    assert "ETA" not in out and "\x1b" not in out


def test_validate_shows_a_progress_line_per_variant(env, capsys):
    env.setenv("MEMTWIN_PROGRESS", "1")
    path = ROOT / "scenarios" / "validation" / "host-dir-eviction-sync.toml"
    assert main(["validate", "--recorded", str(path)]) == 0
    out, err = capsys.readouterr()
    err = ANSI.sub("", err)
    assert "validate host-dir-eviction-sync.toml: keep-12 (1/6)" in err
    assert "validate host-dir-eviction-sync.toml: clean-24 (6/6)" in err
    assert "\x1b" not in out and "every metric within tolerance" in out


def test_eta_at_the_average_pace():
    assert progress.eta(10.0, 25, 100) == pytest.approx(30.0)
    assert progress.eta(10.0, 100, 100) == 0.0
    assert progress.eta(0.5, 50, 100) is None, "no pace in the first second"
    assert progress.eta(10.0, 0, 100) is None and progress.eta(10.0, 5, 0) is None
    assert progress._clock(3725) == "1:02:05"


def test_a_bar_called_past_its_end_pulses(env):
    tty = Tty()
    bar = progress.Progress("long tail", stream=tty)
    bar(10, 10)
    bar(10, 10)
    assert progress._display.rich.tasks[0].total is None
    bar.close()
