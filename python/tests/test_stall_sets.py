"""The host-stall scenarios' compared recording sets (issue 23; stall23c, lab/validation/stall23c-rule.md):
every scenario of make_stall_scenarios.py HOSTCAL_SETS compares the quiet set recorded with the runner's
anonymous-fault costs (hostcal23: real.machine.host_cost anon_fault_ns, clear_page_ns, zap_page_ns), every
round of it that reported and only those; the older sets are kept beside it, not compared; and no
ROUND_WHY known_out (whose stated cause is a set without those costs) is carried to a scenario compared
with such a set. Each twin run of the set is given its own recording's costs (validate.set_run_sets)."""
import importlib.util
import json
import os
import sys
import tomllib

from memtwin import validate

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCN = os.path.join(ROOT, "python", "memtwin", "scenarios")


def generator():
    spec = importlib.util.spec_from_file_location("make_stall_scenarios", os.path.join(ROOT, "lab", "validation", "make_stall_scenarios.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.pop(0)
    return mod


def scenario_path(name):
    for d in ("validation", "validation-pending"):
        p = os.path.join(SCN, d, name + ".toml")
        if os.path.exists(p):
            return p
    raise AssertionError(f"{name}.toml is in neither scenarios/validation nor validation-pending")


def test_each_hostcal_scenario_compares_its_quiet_calibrated_set():
    g = generator()
    assert {"host-stall-alone-p16m", "host-stall-cp4x-p16m", "host-stall-cp8x-p64m", "host-stall-hog-swap"} <= set(g.HOSTCAL_SETS)
    for name, rounds in g.HOSTCAL_SETS.items():
        path = scenario_path(name)
        with open(path, "rb") as f:
            doc = tomllib.load(f)
        # hogk23: hog-swap's compared set is the one recorded with hog23b's runner (RUNNER_SETS), v669h kept
        want = [f"real/{name}-{g.suffix(name)}{r}.json" for r in g.set_rounds(name)]
        assert g.suffix(name) == ("v669k" if name == "host-stall-hog-swap" else "v669h"), name
        assert doc["validation"]["recorded"] == want, (name, doc["validation"]["recorded"])
        # rule 2: no ROUND_WHY known_out against a set with the anonymous-fault costs
        for k in doc["validation"].get("known_out", []):
            assert "the probe's rounds cost more CPU" not in k["why"], (name, k["step"], k["metric"])
        scn = validate.load(path)
        steps = {op["step"] for t in doc["tasks"].values() for op in t["ops"]}
        for i, rel in enumerate(validate.recorded_paths(path, doc["validation"])):
            with open(rel) as f:
                rec = json.load(f)["variants"]["default"]
            hc = rec["real"]["machine"]["host_cost"]
            assert hc["kernel"] == "6.18.44-fc-v669", (rel, hc["kernel"])
            assert all(isinstance(hc.get(k), int) and hc[k] > 0 for k in ("anon_fault_ns", "clear_page_ns", "zap_page_ns")), rel
            # a compared round reported every step (a run whose probe the memcg OOM killer ended is left out)
            assert {s["name"] for s in rec["steps"]} == steps, (rel, [s["name"] for s in rec["steps"]])
            assert rec["totals"].get("memcg.events.oom_kill", 0) == 0, rel
            # the twin's run i at kernel.boot_seed i with recording i's measured anonymous-fault costs
            sets = validate.set_run_sets(i, rec, scn.doc.plan(None, []), path)
            assert sets[0] == f"kernel.boot_seed={i}"
            for k in ("anon_fault_ns", "clear_page_ns", "zap_page_ns"):
                assert f"machine.{k}={hc[k]}" in sets, (rel, k, sets)


def test_the_older_sets_are_kept_beside_the_compared_one():
    g = generator()
    for name, rounds in g.QUIET_SETS.items():
        if name not in g.HOSTCAL_SETS:
            continue
        d = os.path.dirname(scenario_path(name))
        for r in rounds:
            assert os.path.exists(os.path.join(d, "real", f"{name}-v669q{r}.json")), (name, r)
    d = os.path.dirname(scenario_path("host-stall-hog-swap"))
    for i in range(1, g.HOG_RUNS + 1):
        assert os.path.exists(os.path.join(d, "real", f"host-stall-hog-swap-run{i}.json")), i


def test_hog_swap_compares_the_quiet_set_of_hog23b_runner_rounds_below_load_2():
    """hogk23 (lab/validation/trace-hog-swap-1130/hogk23/README.md): host-stall-hog-swap compares the lead's quiet set
    recorded with hog23b's runner (real.folio_scan_blocked(): the memcg folio scan only once every other task of the run
    is over), rounds 1-5: host-set-rule.md 1 as written, /proc/loadavg below 2 at every compared run's start
    (host_cost.loadavg_before) and end (real.loadavg); round 6 (2.12 at its end) and v669h1..6 (the old runner) kept."""
    g = generator()
    name = "host-stall-hog-swap"
    path = scenario_path(name)
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    assert doc["validation"]["recorded"] == [f"real/{name}-v669k{r}.json" for r in (1, 2, 3, 4, 5)]
    for rel in validate.recorded_paths(path, doc["validation"]):
        with open(rel) as f:
            rec = json.load(f)["variants"]["default"]
        real = rec["real"]
        assert "only once every other task of the run is over" in real["folios_source"], rel
        assert real["machine"]["host_cost"]["loadavg_before"][0] < 2 and real["loadavg"][0] < 2, rel
        scanned = [s["name"] for s in rec["steps"] if "folio_scan_s" in s]
        assert len(scanned) == 1, (rel, scanned)  # only the last task's last step
        for s in rec["steps"]:
            assert "at_s" in s and ("folios_skipped" in s or "folio_scan_s" in s), (rel, s["name"])
    d = os.path.dirname(path)
    for f in [f"{name}-v669k6.json"] + [f"{name}-v669h{r}.json" for r in g.HOSTCAL_SETS[name]]:
        assert os.path.exists(os.path.join(d, "real", f)), f
    with open(os.path.join(d, "real", f"{name}-v669k6.json")) as f:
        assert json.load(f)["variants"]["default"]["real"]["loadavg"][0] >= 2  # why round 6 is not compared
