"""lab/validation/queue-v669-rule.md 1-2 (idle23d): the host-queue idle scenarios compare the lead's v669 idle sets
(make_queue_scenarios.py V669_SETS, real/BASE-v669i1..3.json) and not the v782 ones, which stay in real/ and are
named in the header; being of KWORKER_BUILD, every variant gets the kworker figures (machine.loop_worker_run,
vmpressure_work_run, runner_sampler). Fails with V669_SETS emptied (the v782 sets compared, no kworker keys)."""
import json
import os
import tomllib

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "memtwin", "scenarios"))
SCENARIOS = {
    "validation-pending/host-queue-read-msk-idle": "host-queue-read-msk",
    "validation-pending/host-queue-read-ra128-idle": "host-queue-read-ra128",
    "validation/host-queue-rw-msk": "host-queue-rw-msk",
    "validation-pending/host-queue-rw-rand-idle": "host-queue-rw-rand",
    "validation-pending/host-queue-rw-seq-unthrottled": "host-queue-rw-seq-unthrottled",
    "validation-pending/host-queue-rw-wbt-unthrottled": "host-queue-rw-wbt-unthrottled",
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_idle_scenario_compares_the_v669_set_and_keeps_the_v782_one(name):
    path = os.path.join(ROOT, name + ".toml")
    text = open(path).read()
    scn = tomllib.loads(text)
    base = SCENARIOS[name]
    recorded = scn["validation"]["recorded"]
    assert recorded == [f"real/{base}-v669i{i}.json" for i in (1, 2, 3)], recorded
    for r in recorded:
        rec = json.load(open(os.path.join(os.path.dirname(path), r)))
        for v, x in rec["variants"].items():
            assert x["real"]["kernel"] == "6.18.44-fc-v669", (r, v)
            assert x["real"]["date"].startswith("2026-12-01T00:1"), (r, v, x["real"]["date"])
            assert x["real"]["machine"].get("host_cost"), (r, v, "the rule's sets carry the runner's host costs")
    # the v782 set: kept in real/, named in the header, not compared
    for i in (1, 2, 3):
        old = f"real/{base}-idle{i}.json"
        assert os.path.exists(os.path.join(os.path.dirname(path), old)), old
        assert json.load(open(os.path.join(os.path.dirname(path), old)))["variants"].popitem()[1]["real"]["kernel"] == "6.18.44-fc-v782"
    assert f"real/{base}-idle1..3.json, 2026-11-30 12:18-12:23, 6.18.44-fc-v782" in " ".join(
        ln.lstrip("# ") for ln in text.splitlines() if ln.startswith("#")), "the header names the v782 set"
    for v, keys in scn["variants"].items():
        for k in ("loop_worker_run", "vmpressure_work_run", "runner_sampler"):
            assert k in keys.get("machine", {}), (v, k)
