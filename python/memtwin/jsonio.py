"""Writing result files safely: all or nothing."""

from __future__ import annotations

import json
import math
import os
import tempfile


class OutputError(Exception):
    """An output path cannot be written; the message says why and how to fix it."""


def _clean(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def check_writable(path: str) -> None:
    """Fail early, before a long run, if `path` cannot be written."""
    if os.path.isdir(path):
        raise OutputError(f"{path}: error: is a directory\n  fix: give a file name, e.g. {os.path.join(path, 'result.json')}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise OutputError(f"{path}: error: the directory {parent} does not exist\n  fix: create it first (mkdir -p {parent})")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"{path}: error: cannot write in {parent}\n  fix: choose a directory you can write to")


def write_json(path: str, data: dict) -> None:
    """Write `data` as JSON to `path` atomically (a temporary file renamed into place), so a
    failure never leaves a partial file or destroys an older one."""
    write_text(path, json.dumps(_clean(data), indent=1, sort_keys=False) + "\n")


# Directories this process created for its outputs, outermost first: a run that fails or is
# interrupted removes those it left empty (remove_empty_created), so nothing is left behind.
_created: list = []


def ensure_dir(path: str) -> None:
    """Create the output directory `path` (and its parents) if needed; a path that exists and
    is not a directory, or cannot be created, raises OutputError."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError(f"{path}: error: exists and is not a directory\n  fix: remove it or choose another directory")
    missing = []
    p = os.path.abspath(path)
    while not os.path.exists(p):
        missing.append(p)
        p = os.path.dirname(p)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise OutputError(f"{path}: error: cannot create the directory ({e.strerror})\n  fix: choose a directory you can write to") from None
    _created.extend(reversed(missing))
    if not os.access(path, os.W_OK):
        raise OutputError(f"{path}: error: cannot write in this directory\n  fix: choose a directory you can write to")


def remove_empty_created() -> None:
    """Remove the output directories this process created and left empty, deepest first."""
    while _created:
        try:
            os.rmdir(_created.pop())
        except OSError:
            pass  # not empty (an output was written), or already gone


def write_text(path: str, text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically, with the mode the umask gives a new file."""
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: str, data: bytes) -> None:
    """Write `data` to `path` atomically: a temporary file in the same directory renamed into
    place, so a failure or a signal never leaves a partial file or destroys an older one."""
    check_writable(path)
    parent = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".memtwin-", suffix=".tmp", dir=parent)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)  # mkstemp makes it 0600; an output is for reading
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
