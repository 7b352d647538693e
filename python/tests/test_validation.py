"""The validation set: the engine against recorded real-kernel runs (scenarios/validation/),
and every seed scenario against its published figures. Each scenario declares its targets
in [published.checks]; this holds the engine to all of them."""

import glob
import os

import pytest

import memtwin
from memtwin.published import evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIOS = sorted(glob.glob(os.path.join(ROOT, "scenarios", "seed*.toml")) + glob.glob(os.path.join(ROOT, "scenarios", "validation", "*.toml")))


def test_there_is_a_validation_set():
    names = [os.path.basename(p) for p in SCENARIOS]
    assert "dying-cgroups-6.1-qemu.toml" in names
    assert sum(n.startswith("list-lru-6.1-qemu") for n in names) == 4


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_declared_target_is_met(path):
    scn = memtwin.load(path)
    variants = [v for v, _ in scn.variants()] or [None]
    results = {v or "default": memtwin.run(scn, variant=v) for v in variants}
    outcomes = evaluate(scn.published, results, path)
    assert outcomes, "the scenario declares no targets"
    missed = [f"{o.name}: {o.detail}" for o in outcomes if not o.ok]
    assert not missed, "\n".join(missed)
