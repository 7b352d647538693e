"""The host runner's calibration (memtwin.hostcal, hostcal21) and validate's use of it: the trace
parsing and the reclaim figure, the [machine] settings a host recording's `host_cost` gives, and
bad values refused with the place and the fix."""
import errno
import mmap
import os
import statistics

import pytest

import memtwin
from memtwin import hostcal
from memtwin.validate import recorded_host_cost, set_run_sets

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

TRACE = """\
          python3-4242    [001] .....  100.000000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-4242    [001] .....  100.000010: mm_vmscan_lru_isolate: classzone=2 order=0 nr_requested=32 nr_scanned=256 nr_skipped=0 nr_taken=256 lru=inactive_file
          python3-4242    [001] .....  100.000020: mm_vmscan_lru_isolate: classzone=2 order=0 nr_requested=32 nr_scanned=256 nr_skipped=0 nr_taken=256 lru=inactive_file
          python3-4242    [001] .....  100.000200: mm_vmscan_memcg_reclaim_end: nr_reclaimed=0
          python3-4242    [001] .....  100.001000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-4242    [001] d....  100.001050: sched_switch: prev_comm=python3 prev_pid=4242 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120
          python3-4242    [001] .....  100.002000: mm_vmscan_memcg_reclaim_end: nr_reclaimed=0
          python3-4242    [001] .....  100.003000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-4242    [001] .....  100.003100: mm_vmscan_memcg_reclaim_end: nr_reclaimed=64
          python3-9999    [000] .....  100.003000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-9999    [000] .....  100.003100: mm_vmscan_memcg_reclaim_end: nr_reclaimed=0
"""


def test_parse_reclaims_keeps_the_tasks_on_cpu_reclaims_with_their_calls():
    """A reclaim the task left the CPU in (sched_switch prev_pid) is dropped; other tasks' lines
    are not its; each keeps its isolate-call count and pages reclaimed."""
    assert hostcal.parse_reclaims(TRACE, 4242) == [(200000, 2, 0), (100000, 0, 64)]


def test_reclaim_call_is_the_median_time_over_the_median_calls():
    """M13's figure: the reclaims that freed nothing, timed in the light trace, over the isolate
    calls counted in the full one; too few of either is an error, not a figure."""
    light = [(170000, 0, 0), (180000, 0, 0), (160000, 0, 0), (90000, 0, 64)]
    full = [(400000, 640, 0), (410000, 644, 0), (420000, 650, 0), (30000, 5, 35)]
    r = hostcal.reclaim_call_from(light, full)
    assert (r["reclaim_call_ns"], r["reclaims_timed"], r["isolate_calls_median"]) == (round(170000 / 644), 3, 644)
    # reclaim21: the traced run's median of the same reclaims and the tracing cost per call it holds
    assert (r["reclaim_median_full_ns"], r["isolate_trace_ns_per_call"]) == (410000, round((410000 - 170000) / 644))
    with pytest.raises(ValueError, match="too few reclaims"):
        hostcal.reclaim_call_from(light[:2], full)
    # the reclaims that freed pages, recorded beside it: the median ns per page freed, from three on
    assert "reclaim_freed_ns_per_page" not in r
    r = hostcal.reclaim_call_from(light + [(20000, 0, 320), (13000, 0, 200)], full)
    assert (r["reclaim_freed_ns_per_page"], r["reclaims_freed_timed"]) == (65, 3) and r["reclaim_call_ns"] == round(170000 / 644)


def rec(hc):
    return {"steps": [], "real": {"on": "host", "machine": {"cpus": 2, **({} if hc is None else {"host_cost": hc})}}}


def test_a_host_recordings_costs_become_machine_settings():
    """validate runs the engine at a host recording's measured costs: its large-folio orders'
    read cost (order 0 is recorded, not given) and the reclaim call; neither window is given (the
    O_DIRECT one is not the scenario's windows: large-folios.md; the re-read readahead window holds
    CPU the engine charges besides the device: review12 M2); a recording without host_cost runs at
    the table."""
    hc = {"read_ns_by_order": {"0": 614, "2": 417, "4": 301, "8": 348}, "loop_read_window_ns": 7121920, "reclaim_call_ns": 331}
    assert recorded_host_cost(rec(hc)) == ["machine.read_large_folio_ns=[[2, 417], [4, 301], [8, 348]]", "machine.reclaim_call_ns=331"]
    assert recorded_host_cost(rec({**hc, "readahead_window_ns": 3490802})) == recorded_host_cost(rec(hc))
    assert recorded_host_cost(rec(None)) == []
    # the device window (rawin21) is given: an 8 MiB window's requests as the loop device timed them
    assert recorded_host_cost(rec({**hc, "device_window_ns": 1523000})) == recorded_host_cost(rec(hc)) + ['machine.loop_read_window="1523000ns"']
    # where the run had lone 8 MiB windows (race669), theirs is the rate given (lone-window-rule.md: the
    # whole-run window also holds latency and segment costs the engine adds itself)
    assert recorded_host_cost(rec({**hc, "device_window_ns": 1523000, "device_lone_window_ns": 1211000, "device_lone_windows": 7})) == \
        recorded_host_cost(rec(hc)) + ['machine.loop_read_window="1211000ns"']
    assert set_run_sets(3, rec(hc)) == ["kernel.boot_seed=3", "machine.read_large_folio_ns=[[2, 417], [4, 301], [8, 348]]",
                                        "machine.reclaim_call_ns=331"]
    scn = memtwin.load(os.path.join(ROOT, "scenarios", "validation-pending", "host-ext4-tight-ra8192.toml"))  # pending since cmp857 (v857a)
    base = memtwin.run(scn, sets=["kernel.boot_seed=0"]).steps["sys_s"].sum()
    assert memtwin.run(scn, sets=set_run_sets(0, rec(hc))).steps["sys_s"].sum() != base  # the engine takes them


def test_the_throttled_trio_is_compared_with_its_quiet_reclaim_spans_set():
    """reclaim-spans-rule.md 3 by trio-v857/RULE.md (cmp857, after cmp1045's v1045a and cmp21b's v669t): the throttled
    ra8192 trio (make_folio_scenarios.py V857A_SETS) is compared with the twelve rounds recorded on a quiet host of this
    machine's build with the runner's host costs, each run's lone 8 MiB windows one by one and each run's own failing
    memcg reclaims, with rec21's calibration (real/NAME-v857a1..12.json, 6.18.44-fc-v857, load below 2); every
    recording carries the reclaim spans, so validate gives engine run i recording i's own reader, its failing
    reclaims' spans (machine.reclaim_call_spans, reclaim-spans-rule.md 2) and their median as machine.reclaim_call_ns
    instead of the calibration's (set_run_sets, validate.one_window_kind); the 512M's and 1G's runs their lone device
    window and every lone window's span (machine.loop_read_window_spans, spans-rule.md 1); the cat's runs, whose
    recording 5 caught no lone window (V857A_NO_LONE), their whole-run windows (device_window_ns) and no spans
    (lone-window-rule.md (b)). The header names the set and says the outcome, and the v1045a, v669t, v669r, v669s,
    v669l and v669q sets are kept after it (v1045a's, v669t's, v669r's and v669s's files still in real/). Fails when
    the scenario is compared with another set, validate gives the recording's median without its spans, gives the
    calibration's reclaim_call_ns, gives no run its reclaim spans, or mixes lone and whole-run windows in one set."""
    import json
    import statistics
    import sys

    from memtwin.validate import one_window_kind, recorded_paths

    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    try:
        import make_folio_scenarios as gen
    finally:
        sys.path.pop(0)
    trio = {"host-ext4-seq-tight-512m-ra8192", "host-ext4-seq-tight-1g-ra8192", "host-ext4-tight-ra8192"}
    assert (set(gen.V857A_SETS) == trio and set(gen.V1045A_SETS) == trio and set(gen.V669T_SETS) == trio
            and set(gen.V669R_SETS) == trio and set(gen.V669S_SETS) == trio and set(gen.V669L_SETS) == trio
            and set(gen.V669_SETS) == trio)
    assert gen.V857A_NO_LONE == {"host-ext4-tight-ra8192": (5,)}  # rec.log: the cat's round 5, "lone windows 0"
    for name, n in gen.V857A_SETS.items():
        assert n == 12, name  # trio-v857/RULE.md 1-2: twelve rounds, none dropped
        p = os.path.join(ROOT, "scenarios", "validation-pending" if name in gen.PENDING else "validation", name + ".toml")
        scn = memtwin.load(p)
        spec = scn.doc.table("validation")
        paths = recorded_paths(p, spec)
        assert [os.path.basename(x) for x in paths] == [f"{name}-v857a{i}.json" for i in range(1, n + 1)], p
        for tag, k in (("v1045a", 12), ("v669t", 6), ("v669r", 6), ("v669s", 6)):  # the earlier sets kept in real/, not compared
            for i in range(1, k + 1):
                assert os.path.exists(os.path.join(os.path.dirname(p), "real", f"{name}-{tag}{i}.json")), (p, tag, i)
        with open(p) as f:
            text = f.read()
        assert text.startswith(gen.V857A_NOTE + gen.V857A_NOTES[name]), p
        assert (gen.V1045A_NOTES[name] in text and gen.V669T_NOTES[name] in text and gen.V669R_NOTES[name] in text
                and gen.V669S_NOTES[name] in text and gen.V669L_NOTES[name] in text and gen.V669_NOTES[name] in text), p
        plan = scn.doc.plan(None, [])
        windows, medians = set(), set()
        recs = []
        for rp in paths:
            with open(rp) as f:
                recs.append(json.load(f)["variants"]["default"])
        given = one_window_kind(recs)
        lone_set = name not in gen.V857A_NO_LONE
        for i, rp in enumerate(paths):
            real = recs[i]["real"]
            assert real["kernel"] == "6.18.44-fc-v857" and real["loadavg"][0] < 2, rp
            hc = real["machine"]["host_cost"]
            sets = set_run_sets(i, given[i], plan, p)
            assert sets[0] == f"kernel.boot_seed={i}"
            if lone_set:
                assert f'machine.loop_read_window="{hc["device_lone_window_ns"]}ns"' in sets, rp
                spans = hc["device_lone_window_spans_ns"]
                assert len(spans) >= 3 and spans == sorted(spans) and hc["device_lone_window_ns"] == spans[len(spans) // 2], rp
                assert "machine.loop_read_window_spans=[" + ", ".join(f'"{x}ns"' for x in spans) + "]" in sets, rp
                windows.add(hc["device_lone_window_ns"])
            else:
                # one recording without the lone window: every run its whole-run window, none a lone one or spans
                assert ("device_lone_window_ns" in hc) == (i + 1 not in gen.V857A_NO_LONE[name]), rp
                assert f'machine.loop_read_window="{hc["device_window_ns"]}ns"' in sets, rp
                assert not any(s.startswith("machine.loop_read_window_spans=") for s in sets), rp
                windows.add(hc["device_window_ns"])
            orders = sorted((int(o), ns) for o, ns in hc["read_ns_by_order"].items() if int(o) >= 1)
            assert "machine.read_large_folio_ns=[" + ", ".join(f"[{o}, {ns}]" for o, ns in orders) + "]" in sets, rp
            rec = hc["scenario_reclaim_call_spans_ns"]
            # >= 1, not 5: a cat's run may catch one or two failing reclaims (v857a's cat: 2-13); a recording with
            # one carries the spans (reclaim-spans-rule.md 3), and validate gives them
            assert len(rec) >= 1 and rec == sorted(rec), rp
            assert "machine.reclaim_call_spans=[" + ", ".join(str(x) for x in rec) + "]" in sets, rp
            assert [s for s in sets if s.startswith("machine.reclaim_call_ns=")] == \
                [f"machine.reclaim_call_ns={round(statistics.median(rec))}"], rp  # the run's own, not the calibration's
            medians.add(round(statistics.median(rec)))
        assert len(windows) > 1 and len(medians) > 1  # each run its own recording's, not one figure for the set
    # trio-v857/RULE.md 4 (cmp857): the 512M (2 of 18 points out) and 1G (3 of 18) within at their inputs but not
    # robust, the cat out at its inputs and at all 18: all three pending
    assert trio <= gen.PENDING


@pytest.mark.parametrize("hc,key", [({"reclaim_call_ns": 0}, "reclaim_call_ns"), ({"reclaim_call_ns": "fast"}, "reclaim_call_ns"),
                                    ({"read_ns_by_order": {"8": -3}}, "read_ns_by_order['8']"),
                                    ({"read_ns_by_order": [1, 2]}, "read_ns_by_order"), ({"readahead_window_ns": 1.5}, "readahead_window_ns"),
                                    ({"device_window_ns": 0}, "device_window_ns"), ({"device_window_ns": "1.5ms"}, "device_window_ns"),
                                    ({"device_window_ns": 1523000, "device_lone_window_ns": -1}, "device_lone_window_ns"),
                                    ({"anon_fault_ns": 0}, "anon_fault_ns"), ({"clear_page_ns": 338.5}, "clear_page_ns"),
                                    ({"zap_page_ns": "250ns"}, "zap_page_ns"), ({"zap_page_ns": True}, "zap_page_ns")])
def test_bad_host_cost_values_are_refused_with_the_place_and_fix(hc, key):
    with pytest.raises(memtwin.ScenarioError) as e:
        recorded_host_cost(rec(hc), "s.toml", "recording 2 of the set")
    msg = str(e.value)
    assert msg.startswith("s.toml: error: recording 2 of the set: real.machine.host_cost." + key) and "fix: re-record it" in msg


def test_a_host_recordings_anonymous_costs_reach_the_engine():
    """hostcal23: a host recording's first-touch fault, clear_page and munmap per 4 KiB
    (real.machine.host_cost.anon_fault_ns / clear_page_ns / zap_page_ns, M11/M12's method) become
    [machine] anon_fault_ns / clear_page_ns / zap_page_ns for its engine run (set_run_sets), and
    the engine's probe round takes them (hostcal.rs: CpuCost anon_fault = the fault less the
    clearing); without them the table. Fails when validate drops a key or the engine ignores it."""
    hc = {"reclaim_call_ns": 331, "anon_fault_ns": 2100, "clear_page_ns": 338, "zap_page_ns": 310, "anon_fault_median_ns": 2600}
    assert recorded_host_cost(rec(hc)) == ["machine.reclaim_call_ns=331", "machine.anon_fault_ns=2100", "machine.clear_page_ns=338",
                                           "machine.zap_page_ns=310"]
    assert recorded_host_cost(rec({"clear_page_ns": 338})) == ["machine.clear_page_ns=338"]
    anon = {k: hc[k] for k in ("anon_fault_ns", "clear_page_ns", "zap_page_ns")}
    assert set_run_sets(1, rec(anon)) == ["kernel.boot_seed=1", "machine.anon_fault_ns=2100", "machine.clear_page_ns=338",
                                          "machine.zap_page_ns=310"]
    toml = """
[scenario]
name = "probe"
[machine]
ram = "1G"
cpus = 2
[kernel]
profile = "linux-6.18"
cgroup = "v1"
[tasks.w]
ops = [{ op = "sleep", duration = "60ms" }]
[tasks.p]
ops = [{ op = "mmap_probe", size = "16M", interval = "5ms", while_task = "w", step = "probe" }]
"""
    import tomllib
    scn = memtwin.load(tomllib.loads(toml))
    t = memtwin.run(scn, sets=set_run_sets(0, rec(None))).metric("probe", "latency.q2_ms")
    h = memtwin.run(scn, sets=set_run_sets(0, rec(anon))).metric("probe", "latency.q2_ms")
    # per 4 KiB: fault + munmap 1305 + 250 ns in the table, 2100 + 310 measured
    assert abs(h / t / ((2100 + 310) / (1305 + 250)) - 1) < 0.03, (t, h)


def test_anonymous_costs_are_the_p10_per_page_of_kernel_time():
    """M11/M12's figures from rounds of (first touch, second touch, munmap) ns of 18 MiB (4608
    pages): the first touch less the user loop's second per page, p10 of rounds (index int(n/10)
    of the sorted); the huge rounds' the same as clear_page_ns only with their 9 THP faults."""
    pages = 4608
    base = [((1400 + i) * pages, (100 + i) * pages, (250 + i) * pages) for i in range(20)]
    huge = [((250 + i) * pages, (100 + i) * pages, 13 * pages) for i in range(20)]
    r = hostcal.anon_costs_from(base, huge, 9.0)
    assert (r["anon_fault_ns"], r["clear_page_ns"], r["zap_page_ns"]) == (1300, 150, 252), r
    assert "unavailable" not in r
    r = hostcal.anon_costs_from(base, huge, 0.0)
    assert "clear_page_ns" not in r and "THP faults" in r["unavailable"]["clear_page_ns"] and r["anon_fault_ns"] == 1300
    flat = [(100 * pages, 100 * pages, 250 * pages)] * 20
    r = hostcal.anon_costs_from(flat, huge, 9.0)
    assert "anon_fault_ns" not in r and "not slower" in r["unavailable"]["anon_fault_ns"]


def test_the_anonymous_measurement_is_short(monkeypatch):
    """Run for real (the runner calls it before each host recording): its rounds are counted
    (ANON_ROUNDS base, ANON_HUGE_ROUNDS huge, one mapping of 18 MiB each) and its own CPU time is
    bounded (process_time, not wall time: a loaded host stretches the wall, review48 M6); each
    figure a positive whole number or said unavailable."""
    import time
    calls = []
    real_rounds = hostcal.anon_rounds

    def counted(huge, n, *a, **kw):
        calls.append((huge, n) + a)
        return real_rounds(huge, n, *a, **kw)

    monkeypatch.setattr(hostcal, "anon_rounds", counted)
    t0 = time.process_time()
    r = hostcal.anon_costs()
    assert calls == [(False, hostcal.ANON_ROUNDS), (True, hostcal.ANON_HUGE_ROUNDS)], calls
    assert (hostcal.ANON_ROUNDS, hostcal.ANON_HUGE_ROUNDS, hostcal.ANON_BYTES) == (24, 24, 18 << 20)
    assert time.process_time() - t0 < 1.5
    for k in ("anon_fault_ns", "clear_page_ns", "zap_page_ns"):
        assert (isinstance(r.get(k), int) and r[k] > 0) or k in r.get("unavailable", {}), r


class _AdvisedMmap(mmap.mmap):
    """A real anonymous mapping that records its madvise() advice."""
    advice = []

    def madvise(self, advice, *a):
        _AdvisedMmap.advice.append(advice)
        return super().madvise(advice, *a)


def test_base_rounds_refuse_huge_pages_and_are_unavailable_when_thp_faults_move(monkeypatch):
    """review48 M4: under THP "always" a base round's 18 MiB mapping would fault huge pages
    (~100 ns a 4 KiB page, less than a base page's clear_page()), and the engine's anon_fault
    (the fault less the clearing) would saturate to 0. The base rounds madvise MADV_NOHUGEPAGE
    (6.18 vma_thp_disabled()), the huge ones MADV_HUGEPAGE; and /proc/vmstat thp_fault_alloc
    must not move over the base rounds, else anon_fault_ns and zap_page_ns are unavailable with
    the reason (the huge rounds' clear_page_ns stands on their own count). vmstat is faked."""
    _AdvisedMmap.advice = []
    monkeypatch.setattr(hostcal.mmap, "mmap", _AdvisedMmap)
    hostcal.anon_rounds(False, 2, size=1 << 20)
    hostcal.anon_rounds(True, 1, size=1 << 20)
    assert _AdvisedMmap.advice == [mmap.MADV_NOHUGEPAGE, mmap.MADV_NOHUGEPAGE, mmap.MADV_HUGEPAGE]
    monkeypatch.undo()

    pages = 4608
    base = [((1400 + i) * pages, (100 + i) * pages, (250 + i) * pages) for i in range(24)]
    thp_base = [((200 + i) * pages, (100 + i) * pages, (13 + i) * pages) for i in range(24)]  # huge faults, ~100 ns
    huge = [((250 + i) * pages, (100 + i) * pages, 13 * pages) for i in range(24)]
    for moved, rounds_of_base, want in ((0, base, 1300), (24 * 9, thp_base, None), (3, base, None)):
        counts = iter([1000, 1000 + moved, 1000 + moved + 24 * 9])
        seq = iter([rounds_of_base, huge])
        monkeypatch.setattr(hostcal, "vmstat", lambda key: next(counts) if key == "thp_fault_alloc" else 0)
        monkeypatch.setattr(hostcal, "anon_rounds", lambda huge_, n, *a, **kw: next(seq))
        r = hostcal.anon_costs()
        assert r.get("anon_fault_ns") == want, (moved, r)
        assert r["clear_page_ns"] == 150 and r["anon_thp_faults_per_round"] == 9.0, r
        if want is None:
            why = r["unavailable"]["anon_fault_ns"]
            assert f"thp_fault_alloc moved by {moved} over the MADV_NOHUGEPAGE base rounds" in why, r
            assert r["unavailable"]["zap_page_ns"] == why and "zap_page_ns" not in r and "anon_fault_median_ns" not in r, r
        else:
            assert "unavailable" not in r and r["zap_page_ns"] == 252, r


def test_a_failed_calibration_write_leaves_no_file_and_no_fd(tmp_path, monkeypatch):
    # review12 L2: ENOSPC (or a signal) in the middle of writing a calibration file
    calls = {"n": 0}
    real_pwrite = os.pwrite

    def failing_pwrite(fd, data, off):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_pwrite(fd, data, off)

    monkeypatch.setattr(hostcal.os, "pwrite", failing_pwrite)
    fds_before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(OSError):
        hostcal._write_file(str(tmp_path / "memtwin-hostcal-read-o0"), 4 << 20, 1 << 20)
    assert list(tmp_path.iterdir()) == []
    assert set(os.listdir("/proc/self/fd")) == fds_before


def _rq(ev, t, sector, n, rwbs="RA"):
    tail = "131072 () " if ev == "block_rq_issue" else "() "
    return f"           cat-4242    [001] .....  {t:.6f}: {ev}: 7,3 {rwbs} {tail}{sector} + {n} none,0,0 [cat]"


def test_the_device_window_is_the_busy_time_per_8_mib_of_the_runs_reads():
    """rawin21: the device window is the loop device's busy time for its reads (the union of each
    read request's [block_rq_issue, block_rq_complete]: from blk_mq_start_request() in
    loop_queue_rq() to blk_mq_end_request(), 6.18) per 8 MiB read. Two periods: a window of 7
    requests of 2560 sectors (8.75 MiB) issued together, in flight 1.5 ms, and a second window's
    7 issued 0.3 ms apart while the first ones are in flight (one period of 2.0 ms); a write and
    a request of another sector that never completes are not counted. 17.5 MiB in 3.5 ms ->
    8 MiB in 1.6 ms. Too little read is refused with why (the runner records it as unavailable)."""
    lines = []
    for k in range(7):
        lines.append(_rq("block_rq_issue", 10.0 + k * 1e-6, k * 2560, 2560))
    for k in range(7):
        lines.append(_rq("block_rq_complete", 10.0015, k * 2560, 2560))
    for k in range(7):
        lines.append(_rq("block_rq_issue", 20.0 + k * 0.0003, 100000 + k * 2560, 2560))
        lines.append(_rq("block_rq_complete", 20.002 - (6 - k) * 1e-6, 100000 + k * 2560, 2560))
    lines.append(_rq("block_rq_issue", 30.0, 500000, 2560, "WS"))
    lines.append(_rq("block_rq_complete", 30.5, 500000, 2560, "WS"))
    lines.append(_rq("block_rq_issue", 40.0, 900000, 2560))
    text = "\n".join(["# tracer: nop", *lines])
    r = hostcal.device_window_from(text, min_bytes=16 << 20)
    assert r == {"device_window_ns": 1_600_000, "device_busy_ms": 3.5, "device_read_mib": 17.5, "device_requests": 14,
                 "device_busy_periods": 2}, r
    with pytest.raises(ValueError, match="too little read on the loop device"):
        hostcal.device_window_from(text)  # 64 MiB wanted by default


def test_the_lone_windows_span_is_recorded_beside_the_device_window():
    """race669: besides the busy union, the runner records the median span of the periods that are one
    8 MiB window (six requests of 2560 sectors and one of 1024) issued at once and nothing else: three
    such (3.0, 3.2 and 3.6 ms) -> 3.2 ms; a window whose requests are issued 0.3 ms apart, one joined by
    a later request and a window of 8.75 MiB are not lone. Fewer than three lone windows: no figure."""
    sizes = [2560] * 6 + [1024]
    lines, base = [], 0

    def window(t, span, step=1e-6, extra=None):
        nonlocal base
        for k, n in enumerate(sizes):
            lines.append(_rq("block_rq_issue", t + k * step, base, n))
            lines.append(_rq("block_rq_complete", t + span, base, n))
            base += n
        if extra is not None:
            lines.append(_rq("block_rq_issue", t + extra, base, 2560))
            lines.append(_rq("block_rq_complete", t + span, base, 2560))
            base += 2560
    window(10.0, 0.0030)
    window(11.0, 0.0036)
    window(12.0, 0.0032)
    window(13.0, 0.0050, step=0.0003)   # issued over 1.8 ms
    window(14.0, 0.0070, extra=0.001)   # joined by a later request
    text = "\n".join(["# tracer: nop", *lines])
    r = hostcal.device_window_from(text, min_bytes=16 << 20)
    assert r["device_lone_window_ns"] == 3_200_000 and r["device_lone_windows"] == 3, r
    # trio21e: every lone window's span is kept, sorted (their spread; recorded, not given)
    assert r["device_lone_window_spans_ns"] == [3_000_000, 3_200_000, 3_600_000], r
    assert r["device_busy_periods"] == 5
    # two lone windows only: no figure, the device window as before
    text2 = "\n".join(["# tracer: nop", *[x for x in lines if " 10.0" not in x.split(":")[0]]])
    r2 = hostcal.device_window_from(text2, min_bytes=16 << 20)
    assert "device_lone_window_ns" not in r2 and "device_lone_window_spans_ns" not in r2 and r2["device_busy_periods"] == 4, r2


def test_a_window_that_is_not_positive_is_refused():
    """review12 L2: a window timing whose median is not positive (the hot read took longer than the
    cold one) is refused at record time with what it was, so the runner records it as unavailable."""
    assert hostcal.positive_median([3, 1, 2], "w") == 2
    with pytest.raises(ValueError, match="the re-read window less the hot read took -5 ns"):
        hostcal.positive_median([-5, -6, 4], "the re-read window less the hot read")
    assert hostcal.SCRATCH_BYTES == 128 << 20  # the reclaim measurement's file, the largest held at once


def test_the_huge_page_buffer_is_huge_or_says_why():
    """rawin21: the O_DIRECT window's second buffer is backed by transparent huge pages (one bio
    segment per 2 MiB; the host's disk times a request by its segments) -- it is 2 MiB aligned and
    the process's AnonHugePages grew by its size -- or, where THP gives none, a ValueError says so
    (the runner records loop_read_window_thp_ns as unavailable)."""
    import ctypes
    try:
        m, view = hostcal.huge_buffer(4 << 20)
    except ValueError as e:
        assert "transparent huge pages" in str(e)
        return
    try:
        assert len(view) == 4 << 20 and ctypes.addressof(ctypes.c_char.from_buffer(view)) % (2 << 20) == 0
        assert hostcal._anon_huge_kb() >= 4096
    finally:
        view.release()
        m.close()


def test_a_set_takes_the_lone_window_only_where_every_recording_has_one():
    """review49 M2 (lone-window-rule.md 1): a set whose recordings do not all have a lone 8 MiB window
    gives every run the whole-run window, so one median never mixes the two; a set where all have it
    gives each its lone window; the recordings themselves are not changed."""
    from memtwin.validate import one_window_kind

    with_lone = rec({"device_window_ns": 4000000, "device_lone_window_ns": 3200000, "device_lone_windows": 5})
    without = rec({"device_window_ns": 3900000})
    mixed = one_window_kind([with_lone, without])
    assert [recorded_host_cost(r)[-1] for r in mixed] == ['machine.loop_read_window="4000000ns"', 'machine.loop_read_window="3900000ns"']
    assert "device_lone_window_ns" in with_lone["real"]["machine"]["host_cost"]
    both = one_window_kind([with_lone, with_lone])
    assert [recorded_host_cost(r)[-1] for r in both] == ['machine.loop_read_window="3200000ns"'] * 2


def test_a_recordings_lone_window_spans_are_given_as_the_devices_batches():
    """spans21 (lab/validation/spans-rule.md 1): a recording with its lone 8 MiB windows one by one
    (hostcal's `device_lone_window_spans_ns`) is given them beside their median, as
    `machine.loop_read_window_spans`, in the recorded order; the engine makes each a read batch of the
    loop device (hostcal.rs `window_read_bw()`, blkdev.rs `HwQueue::shared_bw()`'s draw per busy
    period), so two runs at the same median but other spans read differently; spans without the
    lone median are not given; a malformed list is refused, naming the recording and the fix."""
    base = {"device_window_ns": 4000000, "device_lone_window_ns": 3200000, "device_lone_windows": 3}
    spans = [2900000, 3200000, 3900000]
    assert recorded_host_cost(rec({**base, "device_lone_window_spans_ns": spans})) == [
        'machine.loop_read_window="3200000ns"', 'machine.loop_read_window_spans=["2900000ns", "3200000ns", "3900000ns"]']
    assert recorded_host_cost(rec({"device_window_ns": 4000000, "device_lone_window_spans_ns": spans})) == ['machine.loop_read_window="4000000ns"']
    for badv in ([], [0], "3ms", [3200000, -1], [True]):
        with pytest.raises(memtwin.ScenarioError) as e:
            recorded_host_cost(rec({**base, "device_lone_window_spans_ns": badv}), "s.toml", "recording 2 of the set")
        assert "recording 2 of the set: real.machine.host_cost.device_lone_window_spans_ns" in str(e.value) and "re-record" in str(e.value)
    # the engine takes them: the 256M cat on the host scenario, the one median with two spreads
    scn = memtwin.load(os.path.join(ROOT, "scenarios", "validation-pending", "host-ext4-tight-ra8192.toml"))
    at = lambda hc: memtwin.run(scn, sets=["kernel.boot_seed=0"] + recorded_host_cost(rec(hc))).to_json()["steps"][0]["metrics"]["read_bytes"]
    one = at(base)
    assert at({**base, "device_lone_window_spans_ns": [3200000] * 3}) == one  # every batch at the median's rate: as before
    assert at({**base, "device_lone_window_spans_ns": [1600000, 3200000, 6400000]}) != one


def test_a_set_takes_the_spans_only_where_every_recording_has_them():
    """spans-rule.md 1 (as review49 M2 for the median): a set whose recordings do not all have their
    lone windows one by one gives none of them the spans (each keeps its lone median); where one lacks
    the lone median too, every run gets its whole-run window and no spans; the recordings themselves
    are not changed."""
    from memtwin.validate import one_window_kind

    spans = {"device_window_ns": 4000000, "device_lone_window_ns": 3200000, "device_lone_window_spans_ns": [3100000, 3200000, 3300000]}
    lone = {"device_window_ns": 3900000, "device_lone_window_ns": 3000000}
    whole = {"device_window_ns": 3800000}
    both = one_window_kind([rec(spans), rec(spans)])
    assert [len(recorded_host_cost(r)) for r in both] == [2, 2]
    mixed = one_window_kind([rec(spans), rec(lone)])
    assert [recorded_host_cost(r) for r in mixed] == [['machine.loop_read_window="3200000ns"'], ['machine.loop_read_window="3000000ns"']]
    none = one_window_kind([rec(spans), rec(whole)])
    assert [recorded_host_cost(r) for r in none] == [['machine.loop_read_window="4000000ns"'], ['machine.loop_read_window="3800000ns"']]
    assert "device_lone_window_spans_ns" in spans


RECLAIM_TRACE = TRACE + """\
          python3-4243    [000] .....  100.010000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-4243    [000] .....  100.010010: mm_vmscan_lru_isolate: classzone=2 order=0 nr_requested=32 nr_scanned=1 nr_skipped=0 nr_taken=1 lru=inactive_file
          python3-4243    [000] .....  100.010020: mm_vmscan_lru_isolate: classzone=2 order=0 nr_requested=32 nr_scanned=1 nr_skipped=0 nr_taken=1 lru=inactive_file
          python3-4243    [000] .....  100.010030: mm_vmscan_lru_isolate: classzone=2 order=0 nr_requested=32 nr_scanned=1 nr_skipped=0 nr_taken=1 lru=inactive_file
          python3-4243    [000] .....  100.010030: mm_vmscan_lru_isolate: classzone=2 order=0 nr_requested=32 nr_scanned=1 nr_skipped=0 nr_taken=1 lru=inactive_file
          python3-4243    [000] .....  100.010900: mm_vmscan_memcg_reclaim_end: nr_reclaimed=0
"""


def test_the_scenarios_failing_reclaims_are_recorded_per_isolate_call_sorted():
    """reclaim21 (reclaim-spans-rule.md 1): the run's own memcg reclaims of every task pid, each
    that freed nothing without leaving the CPU as its ns over its isolate calls (the full trace's
    own, or the calibration's count for the light trace), sorted, with their
    median and the counts; one that left the CPU, one that freed pages and other pids' are not
    spans; a failing reclaim without an isolate call is counted apart."""
    r = hostcal.scenario_reclaims_from(RECLAIM_TRACE, [4242, 4243])
    assert r["scenario_reclaim_call_spans_ns"] == [100000, 225000]
    assert r["scenario_reclaim_call_ns"] == 162500
    assert r["scenario_reclaim_failing_ns"] == [200000, 900000]
    assert (r["scenario_reclaims_on_cpu"], r["scenario_reclaims_failing"], r["scenario_reclaims_failing_no_isolate"]) == (3, 2, 0)
    assert hostcal.scenario_reclaims_from(RECLAIM_TRACE, [4243])["scenario_reclaim_call_spans_ns"] == [225000]
    none = hostcal.scenario_reclaims_from(TRACE, [9999])
    assert none["scenario_reclaim_call_spans_ns"] == [] and none["scenario_reclaims_failing_no_isolate"] == 1
    assert "scenario_reclaim_call_ns" not in none
    # the light trace (the default: no isolate event inside the reclaims, M13's method): each failing
    # on-CPU reclaim's duration over the calibration's median isolate-call count
    light = hostcal.scenario_reclaims_from(RECLAIM_TRACE, [4242, 4243, 9999], calls=644)
    assert light["scenario_reclaim_call_spans_ns"] == [round(100000 / 644), round(200000 / 644), round(900000 / 644)]
    assert light["scenario_reclaim_failing_ns"] == [100000, 200000, 900000] and light["scenario_reclaim_isolate_calls"] == 644
    assert light["scenario_reclaim_call_ns"] == round(200000 / 644)


def test_the_runs_reclaim_trace_is_removed_and_loss_is_an_error(tmp_path, monkeypatch):
    """reclaim_trace_finish(): lost events (a full ring buffer) are an error, as the device trace's
    are, a run without failing reclaims too, and on every path the instance is removed (its events
    off) and dropped from run.traces."""
    inst = tmp_path / "memtwin-x-reclaim"
    for ev in hostcal.RECLAIM_EVENTS:
        (inst / "events" / ev).mkdir(parents=True)
    (inst / "per_cpu" / "cpu0").mkdir(parents=True)

    class Run:
        traces = {"reclaim": str(inst)}

    removed = []
    from memtwin import leftovers
    monkeypatch.setattr(leftovers, "remove_trace_instance", lambda d: removed.append(d))
    for stats, pids, err in (("overrun: 3\n", [4242, 4243], "3 trace events of the scenario's reclaims lost"),
                             ("overrun: 0\n", [9999], "no memcg reclaim of the tasks freed nothing"),
                             ("overrun: 0\n", [4242, 4243], None)):
        (inst / "per_cpu" / "cpu0" / "stats").write_text(stats)
        (inst / "trace").write_text(RECLAIM_TRACE)
        Run.traces = {"reclaim": str(inst)}
        removed.clear()
        if err:
            with pytest.raises(ValueError, match=err):
                hostcal.reclaim_trace_finish(Run, str(inst), pids)
        else:
            assert hostcal.reclaim_trace_finish(Run, str(inst), [4242, 4243])["scenario_reclaim_call_spans_ns"] == [100000, 225000]
        assert removed == [str(inst)] and Run.traces == {}
        assert all((inst / "events" / ev / "enable").read_text() == "0" for ev in hostcal.RECLAIM_EVENTS)


def test_a_recordings_own_reclaims_are_given_with_their_median_as_the_scalar():
    """reclaim21 (reclaim-spans-rule.md 2): a recording with its run's failing reclaims gives them as
    `machine.reclaim_call_spans` (one drawn per memcg reclaim, hostcal.rs) and their median as
    `machine.reclaim_call_ns` instead of the calibration's; a malformed list is refused with the
    place and fix; the engine takes them, and spans all at one figure run as that scalar does."""
    hc = {"reclaim_call_ns": 1105}
    assert recorded_host_cost(rec({**hc, "scenario_reclaim_call_spans_ns": [600, 640, 700]})) == [
        "machine.reclaim_call_ns=640", "machine.reclaim_call_spans=[600, 640, 700]"]
    assert recorded_host_cost(rec({"scenario_reclaim_call_spans_ns": [600, 700]})) == [
        "machine.reclaim_call_ns=650", "machine.reclaim_call_spans=[600, 700]"]
    for badv in ([], [0], "640", [640, -1], [True], [1.5]):
        with pytest.raises(memtwin.ScenarioError) as e:
            recorded_host_cost(rec({**hc, "scenario_reclaim_call_spans_ns": badv}), "s.toml", "recording 2 of the set")
        assert "recording 2 of the set: real.machine.host_cost.scenario_reclaim_call_spans_ns" in str(e.value) and "re-record" in str(e.value)
    scn = memtwin.load(os.path.join(ROOT, "scenarios", "validation-pending", "host-ext4-tight-ra8192.toml"))
    at = lambda hc: memtwin.run(scn, sets=["kernel.boot_seed=0"] + recorded_host_cost(rec(hc))).to_json()["steps"][0]["metrics"]
    assert at({"scenario_reclaim_call_spans_ns": [262] * 3}) == at({"reclaim_call_ns": 262})  # one figure: as the scalar


def test_a_set_takes_the_runs_reclaims_only_where_every_recording_has_them():
    """reclaim-spans-rule.md 2: a set whose recordings do not all have their run's reclaims gives none
    of them the spans (each keeps its calibration's reclaim_call_ns); the recordings are unchanged."""
    from memtwin.validate import one_window_kind

    a = {"reclaim_call_ns": 1105, "scenario_reclaim_call_spans_ns": [600, 640, 700]}
    b = {"reclaim_call_ns": 542}
    assert [recorded_host_cost(r) for r in one_window_kind([rec(a), rec(a)])] == [["machine.reclaim_call_ns=640", "machine.reclaim_call_spans=[600, 640, 700]"]] * 2
    assert [recorded_host_cost(r) for r in one_window_kind([rec(a), rec(b)])] == [["machine.reclaim_call_ns=1105"], ["machine.reclaim_call_ns=542"]]
    assert "scenario_reclaim_call_spans_ns" in a


def test_validate_refuses_lone_window_spans_not_in_the_runners_form():
    """review51 L8: recorded_host_cost() gives a recording's lone-window spans only in hostcal.device_window_from()'s
    form (at least LONE_WINDOWS_MIN, sorted, their upper median device_lone_window_ns) and refuses other lists with an
    error naming the field and the fix. Fails when a short, unsorted or off-median list is given to the engine."""
    import pytest
    from memtwin._memtwin import ScenarioError
    base = {"device_window_ns": 3300000, "device_lone_window_ns": 3200000}

    def rec(spans):
        return {"steps": [], "real": {"on": "host", "machine": {"cpus": 2, "host_cost": {**base, "device_lone_window_spans_ns": spans}}}}
    good = recorded_host_cost(rec([3100000, 3200000, 3400000]))
    assert 'machine.loop_read_window_spans=["3100000ns", "3200000ns", "3400000ns"]' in good
    for spans in ([3200000, 3300000], [3400000, 3200000, 3100000], [3100000, 3150000, 3400000]):
        with pytest.raises(ScenarioError, match="device_lone_window_spans_ns .*not what the runner records"):
            recorded_host_cost(rec(spans))


def _reads(counts):
    """A fake calibration read per kind: `counts[kind]` the failing on-CPU reclaims of each read in
    turn (light: (ns, 0, 0); full: (ns, 640, 0)), with one reclaim that freed pages beside them."""
    it = {k: iter(v) for k, v in counts.items()}
    seen = []

    def read_one(kind):
        n = next(it[kind])
        seen.append(kind)
        calls = 0 if kind == "light" else 640
        return [(400000 + 1000 * j, calls, 0) for j in range(n)] + [(90000, calls, 64)], n + 3
    return read_one, seen


def test_the_calibration_reads_until_each_kind_holds_its_failing_reclaims():
    """rec21 (reclaim-spans-rule.md, amendment): the 128 MiB file is read again, light and full
    alternately, until the light reads hold RECLAIM_MIN failing reclaims on the CPU and the full
    reads RECLAIM_MIN with isolate calls; a kind that has them is not read again; every read's
    reclaims count. Fails with one read of each (v669r's 8 of 18) or a kind read past its count."""
    assert hostcal.RECLAIM_MIN == 5 and hostcal.RECLAIM_READS_MAX == 8 and hostcal.RECLAIM_SECONDS_MAX == 90
    read_one, seen = _reads({"light": [4, 2, 9], "full": [1, 0, 3, 2, 7]})
    got = hostcal.reclaim_reads_until(read_one)
    assert seen == ["light", "full", "light", "full", "full", "full"]
    assert got["reads"] == {"light": 2, "full": 4} and got["bound"] is None
    assert got["by_read"] == [["light", 4, 7], ["full", 1, 4], ["light", 2, 5], ["full", 0, 3], ["full", 3, 6], ["full", 2, 5]]
    r = hostcal.reclaim_call_from_reads(got)
    assert (r["reclaims_timed"], r["reclaims_counted"], r["isolate_calls_median"]) == (6, 6, 640)
    assert r["reclaim_reads"] == {"light": 2, "full": 4} and r["reclaims_by_read"][0] == ["light", 4, 7]
    assert r["reclaim_call_ns"] == round(statistics.median([400000 + 1000 * j for j in range(4)] + [400000, 401000]) / 640)
    # enough in the first read of each: one read each, as before rec21
    read_one, seen = _reads({"light": [5], "full": [6]})
    assert hostcal.reclaim_reads_until(read_one)["reads"] == {"light": 1, "full": 1} and seen == ["light", "full"]


def test_the_calibrations_reads_are_bounded_and_too_few_is_an_error_naming_them():
    """At most RECLAIM_READS_MAX reads of a kind and none started after RECLAIM_SECONDS_MAX; then too
    few is reclaim_call_ns's error (unavailable in the recording), naming the counts, the reads and
    the bound, never a figure from fewer than RECLAIM_MIN."""
    read_one, seen = _reads({"light": [5], "full": [0] * 8 + [9]})
    got = hostcal.reclaim_reads_until(read_one)
    assert got["reads"] == {"light": 1, "full": 8} and got["bound"] == "8 reads of each kind" and len(seen) == 9
    with pytest.raises(ValueError, match=r"too few reclaims .*\(5 timed, 0 counted; 5 each wanted\) after 1 light and 8 full "
                                         r"reads of the 128 MiB file \(bound: 8 reads of each kind\)"):
        hostcal.reclaim_call_from_reads(got)
    t = iter([0.0, 10.0, 95.0, 200.0])
    read_one, seen = _reads({"light": [1, 1, 1], "full": [1, 1, 1]})
    got = hostcal.reclaim_reads_until(read_one, clock=lambda: next(t))
    assert seen == ["light"] and got["bound"] == "90 s"
    with pytest.raises(ValueError, match=r"\(1 timed, 0 counted; 5 each wanted\) after 1 light and 0 full"):
        hostcal.reclaim_call_from_reads(got)


def test_reclaims_begun_counts_every_reclaim_of_the_task():
    assert hostcal.reclaims_begun(TRACE, 4242) == 3 and hostcal.reclaims_begun(TRACE, 9999) == 1 and hostcal.reclaims_begun(TRACE, 1) == 0


def test_validate_refuses_reclaim_spans_missing_or_not_in_the_runners_form():
    """rec21: a recording whose runner recorded its run's reclaims has the spans with them
    (scenario_reclaim_call_ns, _failing_ns, _source) sorted, one per failing reclaim timed; spans
    missing beside those fields, unsorted, or not one per timed reclaim are an error naming the
    field and the fix, never given to the engine. Fails when such a recording is given its
    calibration's figure or unsorted spans."""
    hc = {"reclaim_call_ns": 700, "scenario_reclaim_call_spans_ns": [600, 640, 700], "scenario_reclaim_call_ns": 640,
          "scenario_reclaim_failing_ns": [382000, 407000, 445000], "scenario_reclaim_source": "s"}
    assert recorded_host_cost(rec(hc)) == ["machine.reclaim_call_ns=640", "machine.reclaim_call_spans=[600, 640, 700]"]
    missing = {k: v for k, v in hc.items() if k != "scenario_reclaim_call_spans_ns"}
    with pytest.raises(memtwin.ScenarioError) as e:
        recorded_host_cost(rec(missing), "s.toml", "recording 3 of the set")
    msg = str(e.value)
    assert "s.toml" in msg and "recording 3 of the set" in msg and "no scenario_reclaim_call_spans_ns" in msg and "re-record" in msg
    for spans, failing in (([700, 600, 640], hc["scenario_reclaim_failing_ns"]), ([600, 640], hc["scenario_reclaim_failing_ns"]),
                           ([600, 640, 700], "x")):
        with pytest.raises(memtwin.ScenarioError, match="(?s)scenario_reclaim_call_spans_ns .*not what the runner records.*re-record"):
            recorded_host_cost(rec({**hc, "scenario_reclaim_call_spans_ns": spans, "scenario_reclaim_failing_ns": failing}), "s.toml")
    # a set that gives none drops the fields with the spans: its recordings then give their calibration's
    from memtwin.validate import one_window_kind, reclaim_spans_lacking
    other = {"reclaim_call_ns": 542, "unavailable": {"scenario_reclaim_call_spans_ns": "no isolate-call count from the calibration"}}
    assert [recorded_host_cost(r) for r in one_window_kind([rec(hc), rec(other)])] == [["machine.reclaim_call_ns=700"], ["machine.reclaim_call_ns=542"]]
    assert reclaim_spans_lacking([rec(hc), rec(other), rec({"reclaim_call_ns": 1})]) == [
        (2, "no isolate-call count from the calibration"), (3, "no reason recorded")]
    assert reclaim_spans_lacking([rec(hc), rec(hc)]) == [] and reclaim_spans_lacking([rec(other)]) == []


# ---------------------------------------------------------------- review52 L5: a signal right after a making


def _made_then_interrupted(path, size, wbs):
    """_write_file() as a SIGINT leaves it when it arrives right after the file is made and
    written, before the caller's `try:` (its handler raises: KeyboardInterrupt, or run_host's
    Interrupted)."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
    raise KeyboardInterrupt


@pytest.mark.parametrize("measure", ["read_ns_by_order", "loop_read_window_ns", "readahead_window_ns"])
def test_a_signal_right_after_a_calibration_file_is_made_leaves_no_file(tmp_path, monkeypatch, measure):
    d = tmp_path / "fs"
    d.mkdir()
    ra = tmp_path / "read_ahead_kb"
    ra.write_text("128\n")
    monkeypatch.setattr(hostcal, "_write_file", _made_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        if measure == "readahead_window_ns":
            hostcal.readahead_window_ns(str(d), str(ra))
        else:
            getattr(hostcal, measure)(str(d))
    assert list(d.iterdir()) == []
    assert ra.read_text().strip() == "128"


def test_a_signal_right_after_open_makes_the_file_leaves_no_file(tmp_path, monkeypatch):
    """In _write_file() itself: the O_EXCL open returned (the file is there), the signal acts
    before the next line."""
    real_open = os.open
    fds = []

    def open_then_interrupted(path, flags, mode=0o777):
        fds.append(real_open(path, flags, mode))
        raise KeyboardInterrupt

    monkeypatch.setattr(hostcal.os, "open", open_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        hostcal._write_file(str(tmp_path / "memtwin-hostcal-read-o0"), 4 << 20, 1 << 20)
    monkeypatch.undo()
    for fd in fds:
        os.close(fd)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_not_the_calibrations_to_remove(tmp_path):
    """O_EXCL refuses a file that is there: _write_file() leaves it (it is not this call's)."""
    p = tmp_path / "memtwin-hostcal-read-o0"
    p.write_text("someone's")
    with pytest.raises(FileExistsError):
        hostcal._write_file(str(p), 4 << 20, 1 << 20)
    assert p.read_text() == "someone's"


def _fake_reclaim_host(tmp_path):
    """Directories standing for /sys/block (a loop device loop9), the v1 blkio hierarchy, the
    run's cgroup (the memory hierarchy's root stands in a tmp directory, as in test_real),
    tracefs and the scratch file system, and a HostRun with what reclaim_call_ns() reads of it."""
    sysfs, blkio, top, tracefs, fs = (tmp_path / n for n in ("block", "blkio", "memtwin-1-2-0badf00d", "tracefs", "fs"))
    (sysfs / "loop9" / "queue").mkdir(parents=True)
    (sysfs / "loop9" / "dev").write_text("7:9\n")
    (sysfs / "loop9" / "queue" / "read_ahead_kb").write_text("128\n")
    blkio.mkdir()
    (blkio / "blkio.throttle.read_bps_device").write_text("")
    for d in (top, tracefs / "instances", fs):
        d.mkdir(parents=True)

    class Run:
        loop, version, id, throttled = "/dev/loop9", "v1", "1-2-0badf00d", None
        traces = {}

    return Run, sysfs, blkio, top, tracefs, fs


@pytest.mark.parametrize("when", ["file", "memcg", "trace instance"])
def test_a_signal_right_after_the_reclaim_measurement_makes_something_leaves_nothing(tmp_path, monkeypatch, when):
    """review52 L5: reclaim_call_ns() made its 128 MiB file and its memcg before the `try:` whose
    `finally` removes them: a SIGINT right after either making left the file (and the memcg).
    Each making interrupted right after it is done: nothing of the calibration's is left, the
    read_ahead_kb is put back, and no throttle rule or trace instance stays registered."""
    Run, sysfs, blkio, top, tracefs, fs = _fake_reclaim_host(tmp_path)
    memcg = top / "memtwin-hostcal"
    inst = tracefs / "instances" / f"memtwin-{Run.id}-hostcal"
    # a memcg's control files are the cgroup file system's, not files of its directory (rmdir
    # removes the memcg with them): the stand-in directory takes no write
    real_write = hostcal._write
    monkeypatch.setattr(hostcal, "_write", lambda p, v: None if p.startswith(str(memcg) + os.sep) else real_write(p, v))
    if when == "file":
        monkeypatch.setattr(hostcal, "_write_file", _made_then_interrupted)
    else:
        real_mkdir = os.mkdir
        target = str(memcg if when == "memcg" else inst)

        def mkdir_then_interrupted(p, *a, **kw):
            real_mkdir(p, *a, **kw)
            if str(p) == target:
                raise KeyboardInterrupt
        monkeypatch.setattr(hostcal.os, "mkdir", mkdir_then_interrupted)
        # the file, small: the same making as the real one's, 1 MiB
        monkeypatch.setattr(hostcal, "RECLAIM_FILE_BYTES", 1 << 20)
    with pytest.raises(KeyboardInterrupt):
        hostcal.reclaim_call_ns(Run, str(fs), str(memcg), "tasks", str(tracefs), [], sysfs=str(sysfs), blkio=str(blkio))
    monkeypatch.undo()
    assert list(fs.iterdir()) == [] and list(top.iterdir()) == [] and list((tracefs / "instances").iterdir()) == []
    assert (sysfs / "loop9" / "queue" / "read_ahead_kb").read_text().strip() == "128"
    assert Run.throttled is None and Run.traces == {}


# ---------------------------------------------------------------- review54 L1: what was already there is another's


def test_read_ns_by_order_leaves_a_file_that_was_there(tmp_path):
    """fd9dca4a made each calibration file inside the `try:` whose `finally` removes it: when the
    making failed because the file was there (O_EXCL's FileExistsError), that `finally` removed
    another's file."""
    p = tmp_path / "memtwin-hostcal-read-o0"
    p.write_text("someone's")
    with pytest.raises(FileExistsError):
        hostcal.read_ns_by_order(str(tmp_path), orders=(0,))
    assert p.read_text() == "someone's"


def test_loop_read_window_ns_leaves_a_file_that_was_there(tmp_path):
    p = tmp_path / "memtwin-hostcal-window"
    p.write_text("someone's")
    with pytest.raises(FileExistsError):
        hostcal.loop_read_window_ns(str(tmp_path))
    assert p.read_text() == "someone's"


def test_readahead_window_ns_removes_only_the_files_it_made(tmp_path, monkeypatch):
    """One file a window: the ones made before the one that was there are removed, that one and
    the ones after it (never this call's to make) are left; read_ahead_kb is put back."""
    monkeypatch.setattr(hostcal, "WINDOW_BYTES", 1 << 20)
    d = tmp_path / "fs"
    d.mkdir()
    ra = tmp_path / "read_ahead_kb"
    ra.write_text("128\n")
    theirs = [d / "memtwin-hostcal-ra1", d / "memtwin-hostcal-ra3"]
    for p in theirs:
        p.write_text("someone's")
    with pytest.raises(FileExistsError):
        hostcal.readahead_window_ns(str(d), str(ra), windows=5)
    assert sorted(p.name for p in d.iterdir()) == ["memtwin-hostcal-ra1", "memtwin-hostcal-ra3"]
    assert all(p.read_text() == "someone's" for p in theirs)
    assert ra.read_text().strip() == "128"


@pytest.mark.parametrize("there", ["file", "memcg", "trace instance"])
def test_reclaim_call_ns_leaves_what_was_there(tmp_path, monkeypatch, there):
    """The file, the memcg or the trace instance already there: reclaim_call_ns() leaves it (and
    what it made before it is removed, what comes after is never made), no trace instance stays
    registered for the runner's cleanup, read_ahead_kb and the throttle rule are put back."""
    Run, sysfs, blkio, top, tracefs, fs = _fake_reclaim_host(tmp_path)
    Run.traces = {}
    memcg = top / "memtwin-hostcal"
    inst = tracefs / "instances" / f"memtwin-{Run.id}-hostcal"
    f = fs / "memtwin-hostcal-reclaim"
    if there == "file":
        f.write_text("someone's")
    else:
        (memcg if there == "memcg" else inst).mkdir()
    monkeypatch.setattr(hostcal, "RECLAIM_FILE_BYTES", 1 << 20)
    real_write = hostcal._write
    # the stand-in memcg takes no control-file write (as above)
    monkeypatch.setattr(hostcal, "_write", lambda p, v: None if p.startswith(str(memcg) + os.sep) else real_write(p, v))
    with pytest.raises(FileExistsError):
        hostcal.reclaim_call_ns(Run, str(fs), str(memcg), "tasks", str(tracefs), [], sysfs=str(sysfs), blkio=str(blkio))
    left = {"file": [p.name for p in fs.iterdir()], "memcg": [p.name for p in top.iterdir()],
            "trace instance": [p.name for p in (tracefs / "instances").iterdir()]}
    assert left == {k: ([{"file": f, "memcg": memcg, "trace instance": inst}[k].name] if k == there else []) for k in left}
    if there == "file":
        assert f.read_text() == "someone's"
    assert Run.traces == {} and Run.throttled is None
    assert (sysfs / "loop9" / "queue" / "read_ahead_kb").read_text().strip() == "128"
    assert (blkio / "blkio.throttle.read_bps_device").read_text() in ("", "7:9 0")


def test_the_runs_reclaim_trace_leaves_an_instance_that_was_there(tmp_path, monkeypatch):
    """reclaim_trace_start(): an instance of that name already there (EEXIST) is neither removed
    (its except OSError called reclaim_trace_stop(), which removes the instance) nor left in
    run.traces for the runner's cleanup; a failure after its own mkdir still removes its own."""
    tracefs = tmp_path / "tracefs"
    (tracefs / "instances").mkdir(parents=True)

    class Run:
        scratch, id, traces_why = str(tmp_path), "1-2-0badf00d", None
        mounted = [str(tracefs)]
        traces = {}

    inst = tracefs / "instances" / f"memtwin-{Run.id}-reclaim"
    inst.mkdir()
    with pytest.raises(FileExistsError):
        hostcal.reclaim_trace_start(Run, [4242])
    assert inst.is_dir() and Run.traces == {}
    inst.rmdir()

    def refused(p, v):
        raise OSError(errno.EINVAL, "Invalid argument", p)
    # its own instance, whose first control-file write is refused: removed, and unregistered
    monkeypatch.setattr(hostcal, "_write", refused)
    with pytest.raises(OSError, match="Invalid argument"):
        hostcal.reclaim_trace_start(Run, [4242])
    assert not inst.exists() and Run.traces == {}


FREED_TRACE = """\
          python3-4242    [001] .....  200.000000: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-4242    [001] .....  200.000004: mm_filemap_delete_from_page_cache: dev 7:0 ino c pfn=0x1000 ofs=0 order=8
          python3-4242    [001] .....  200.000010: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=1 nr_reclaimed=256 priority=12 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC
          python3-4242    [001] .....  200.000013: mm_vmscan_memcg_reclaim_end: nr_reclaimed=256
          python3-4243    [001] .....  200.000020: mm_filemap_delete_from_page_cache: dev 7:0 ino c pfn=0x2000 ofs=0 order=0
          python3-4242    [001] .....  200.000100: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-4242    [001] .....  200.000102: mm_filemap_delete_from_page_cache: dev 7:0 ino c pfn=0x3000 ofs=0 order=0
          python3-4242    [001] .....  200.000103: mm_filemap_delete_from_page_cache: dev 7:0 ino c pfn=0x3001 ofs=4096 order=2
          python3-4242    [001] .....  200.000105: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=2 nr_reclaimed=5 priority=12 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC
          python3-4242    [001] .....  200.000106: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=0 nr_reclaimed=0 priority=12 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC
          python3-4242    [001] .....  200.000109: mm_vmscan_memcg_reclaim_end: nr_reclaimed=5
          python3-4242    [001] .....  200.000200: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-4242    [001] .....  200.000201: mm_filemap_delete_from_page_cache: dev 7:0 ino c pfn=0x4000 ofs=0 order=6
           <idle>-0       [001] .....  200.000202: sched_switch: prev_comm=python3 prev_pid=4242 prev_prio=110 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120
          python3-4242    [001] .....  200.000300: mm_vmscan_memcg_reclaim_end: nr_reclaimed=64
          python3-4242    [001] .....  200.000400: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_NOFS
          python3-4242    [001] .....  200.000401: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=1 nr_reclaimed=0 priority=12 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC
          python3-4242    [001] .....  200.000402: mm_vmscan_memcg_reclaim_end: nr_reclaimed=0
"""


def test_parse_freed_reclaims_counts_batches_folios_and_pages_of_the_tasks_on_cpu_successful_reclaims():
    """orders61: each successful reclaim the task stayed on the CPU in, with its shrink_inactive
    events (batches), its deletions (folios) and their pages by order; another task's deletion,
    a reclaim it left the CPU in and one that freed nothing are not counted."""
    assert hostcal.parse_freed_reclaims(FREED_TRACE, 4242) == [(13000, 1, 1, 256), (9000, 2, 2, 5)]


def test_reclaim_freed_fit_recovers_the_terms_less_the_event_cost():
    """orders61: reclaims made of known terms (fixed 4000, batch 3000, folio 1800, tail page 25 ns,
    each traced event 300 ns more inside) give back the folio and tail-page terms less the events;
    a reclaim far above the rest (above the 95th percentile) does not move them; too few is an error."""
    rows = []
    for b, f, pg in [(1, 1, 64), (1, 1, 256), (1, 1, 512), (1, 32, 32), (8, 256, 256), (4, 60, 240), (2, 10, 640),
                     (3, 40, 100), (12, 150, 300), (1, 2, 128), (5, 100, 400), (2, 1, 512)] * 3:
        rows.append((4000 + b * 3300 + f * 2100 + round((pg - f) * 25), b, f, pg))
    rows.append((10_000_000, 1, 1, 64))
    r = hostcal.reclaim_freed_from(rows, 300)
    assert (r["reclaim_folio_ns"], r["reclaim_tail_page_ns"], r["reclaim_freed_batch_ns"], r["reclaim_freed_fixed_ns"]) == (1800, 25, 3000, 4000)
    assert r["reclaims_freed_fitted"] == len(rows) - 1
    # without the event cost the terms hold it
    assert hostcal.reclaim_freed_from(rows, None)["reclaim_folio_ns"] == 2100
    with pytest.raises(ValueError, match="too few successful"):
        hostcal.reclaim_freed_from(rows[:5], 300)


def test_freed_event_ns_is_the_like_reclaims_full_less_light_over_their_events():
    """orders61: the most common traced (batches, folios, pages) class's median less the light
    trace's median of reclaims of as many pages, over batches + folios; too few is an error."""
    full = [(54000 + i % 3 * 1000, 5, 35, 35) for i in range(21)] + [(8000, 1, 1, 64)] * 5
    light = [(46000 + i % 3 * 1000, 0, 35) for i in range(21)] + [(7000, 0, 64)] * 30
    r = hostcal.freed_event_ns(full, light)
    assert r["reclaim_freed_event_ns"] == 200 and r["reclaim_freed_event_class"] == [5, 35, 35, 21, 21]
    with pytest.raises(ValueError, match="too few like reclaims"):
        hostcal.freed_event_ns(full, light[:5])
