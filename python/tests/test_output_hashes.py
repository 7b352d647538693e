"""The JSON output of every seed and validation scenario (`memtwin compare FILE --json OUT`,
every variant) is byte-identical to the stored one: an optimisation of the engine must not
change a result. The sha256 of each output is kept in output_hashes.json next to this file.

When a change is meant to change results, regenerate the hashes and say why in the commit:

    PYTHONPATH=python python3 python/tests/test_output_hashes.py --write

The wip scenarios (scenarios/wip) are included: all 55 take about 45 s on the 2-vCPU
reference machine (seed002-stutter about 30 of them). Set MEMTWIN_HASH_NO_WIP=1 to skip them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HASHES = Path(__file__).with_name("output_hashes.json")


def scenarios(wip: bool) -> list:
    out = sorted((ROOT / "scenarios").glob("*.toml")) + sorted((ROOT / "scenarios" / "validation").glob("*.toml"))
    if wip:
        out += sorted((ROOT / "scenarios" / "wip").glob("*.toml"))
    return out


def key(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def output_hash(p: Path) -> str:
    """sha256 of the --json output of `memtwin compare` on scenario `p`."""
    import contextlib
    import io

    import memtwin.cli as cli

    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "out.json"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = cli.main(["compare", str(p), "--json", str(out)])
        assert code in (0, 1), f"{key(p)}: memtwin compare exited {code}"
        return hashlib.sha256(out.read_bytes()).hexdigest()


def _stored() -> dict:
    return json.loads(HASHES.read_text())


_WIP = os.environ.get("MEMTWIN_HASH_NO_WIP") != "1"


@pytest.mark.parametrize("path", scenarios(_WIP), ids=key)
def test_output_is_unchanged(path):
    stored = _stored()
    assert key(path) in stored, f"no stored hash for {key(path)}: run python/tests/test_output_hashes.py --write"
    assert output_hash(path) == stored[key(path)], (
        f"{key(path)}: the JSON output changed. If the change is intended, regenerate with "
        "`PYTHONPATH=python python3 python/tests/test_output_hashes.py --write` and say why in the commit"
    )


def test_every_scenario_has_a_hash():
    stored = _stored()
    assert sorted(stored) == sorted(key(p) for p in scenarios(True))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: test_output_hashes.py --write")
    hashes = {}
    for p in scenarios(True):
        hashes[key(p)] = output_hash(p)
        print(key(p), hashes[key(p)], flush=True)
    HASHES.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
