"""Shared helpers of the CLI tests: running `memtwin` in-process, and knowing whether
anything was simulated."""

import pytest

import memtwin.cli as cli


class _Recorder:
    """Stands in for memtwin.cli.Progress and records every progress call of every run."""

    calls: list = []

    def __init__(self, label, *a, **k):
        self.label = label

    def __call__(self, done, total, label=None):
        _Recorder.calls.append((self.label, done, total))

    def close(self):
        pass


@pytest.fixture
def sim_calls(monkeypatch):
    """The progress calls of the runs made during the test: empty means nothing was simulated."""
    _Recorder.calls = []
    monkeypatch.setattr(cli, "Progress", _Recorder)
    return _Recorder.calls


def cli_run(capsys, *args):
    """(exit code, stdout, stderr) of `memtwin ARGS` run in-process; test modules import it."""
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def unwrapped(text: str) -> list:
    """The lines of `text` with the continuation lines of wrapped targets (`  PASS  ...`,
    `  MISSED  ...`, indented further) joined to the line they continue."""
    out = []
    for ln in text.splitlines():
        if out and ln.startswith("        ") and ln.strip() and out[-1].lstrip().split(" ", 1)[0] in ("PASS", "FAIL", "SKIP", "MISSED"):
            out[-1] += " " + ln.strip()
        else:
            out.append(ln)
    return out
