"""The host runner's loop device's write side in the host scenarios (lab/validation/loop_table.py LOOP_WRITE_BW,
LOOP_REQUEST_WRITE_BW) is what lab/measurements/loop_write_table.py derives from the traced rounds it reads
(lab/measurements/loop-write-idle/ and loop-write-1130-*.json, loop_write_trace.py; loop21, issues 21/23) under
loop23's rule (loop_table.py: only the idle rounds, every loadavg below loop_write_table.py IDLE_LOAD), to 10 MB/s:
a figure changed by hand, a round added or dropped without the table, or the loaded rounds taken, fails here. The rule's inputs are checked too: the
shared rate comes from busy periods with the loop device's queue full (blk-wbt off), not from blk-wbt's batches,
and the request alone from every size's median."""
import importlib.util
import os
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tab_latency():
    return load("lab/measurements/loop_write_table.py", "loop_write_table").REQUEST_LATENCY_NS


def derived():
    tab = load("lab/measurements/loop_write_table.py", "loop_write_table")
    paths, _ = tab.table_paths()
    return paths, tab.derive(tab.load(paths))


def test_the_table_takes_the_idle_rounds_only():
    """loop23's rule (review16 M4): the table's rounds are those on a host that ran only the trace (every loadavg
    below IDLE_LOAD, 2.0); the loaded rounds (7.5-16.4) are kept and not taken, and what they give differs (3.50 /
    4.12 GB/s): the table holding them fails test_the_host_table_s_write_side_is_the_traced_rounds."""
    tab = load("lab/measurements/loop_write_table.py", "loop_write_table")
    idle, loaded = tab.table_paths()
    assert len(idle) >= 3 and len(loaded) == 8 and set(idle) | set(loaded) == set(tab.default_paths())
    assert all(max(tab.loads_of(d)) < tab.IDLE_LOAD == 2.0 for d in tab.load(idle))
    assert all(min(tab.loads_of(d)) > 7 for d in tab.load(loaded))
    dl = tab.derive(tab.load(loaded))
    table = load("lab/validation/loop_table.py", "loop_table")
    assert (round(dl["queue_write_bw"], -7), round(dl["request_write_bw"], -7)) == (3_500_000_000, 4_120_000_000)
    assert table.LOOP_WRITE_BW != round(dl["queue_write_bw"], -7)


def test_the_host_table_s_write_side_is_the_traced_rounds():
    paths, d = derived()
    table = load("lab/validation/loop_table.py", "loop_table")
    assert len(paths) == len(d["rounds"]) >= 3
    assert table.LOOP_WRITE_BW == round(d["queue_write_bw"], -7)
    assert table.LOOP_REQUEST_WRITE_BW == round(d["request_write_bw"], -7)
    # one busy period of the full queue a round at least (the 256 MiB writeback: 198-224 requests), 128 in flight
    assert len(d["nowbt"]) >= len(paths) and all(b["n"] >= 64 and b["bytes"] >= 64 << 20 for b in d["nowbt"])
    assert all(r["inflight"]["seq-nowbt"]["max"] == 128 for r in d["rounds"])
    # the median is of those, not of blk-wbt's batches (3.25 GB/s idle, 2.2 at the loaded rounds' load) nor of
    # the memcg writer's (2.25 idle)
    assert d["queue_write_bw"] == statistics.median(b["bw"] for b in d["nowbt"])
    # blk-wbt's batches are below the shared rate for the mechanism's own reason: wbt_wait() -> rq_qos_wait() holds
    # each writeback write until fewer than get_limit()'s depth are in flight (block/blk-wbt.c, 6.18), so the
    # queue never fills (max 96, every round) where blk-wbt off fills its 128. Review17 M1: this replaced a ratio
    # check (median of the batches < 0.8, then 0.9, x queue_write_bw) that the idle rounds failed at 0.8 (0.866)
    # and that was widened without saying so; the real guard is the == above.
    assert all(r["inflight"]["seq-wbt"]["max"] < r["inflight"]["seq-nowbt"]["max"] == 128 for r in d["rounds"])
    assert all(r["inflight"]["seq-wbt"]["mean"] < r["inflight"]["seq-nowbt"]["mean"] for r in d["rounds"])
    assert statistics.median(b["bw"] for b in d["wbt_batches"]) < d["queue_write_bw"]
    assert statistics.median(b["bw"] for b in d["memcg_batches"]) < 0.8 * d["queue_write_bw"]
    # the request alone: 5 sizes, every round's, the slope over their medians; a positive byte rate, and an
    # intercept above the table's request_latency (50 us), which the table does not take (the load's)
    assert [b >> 10 for b, _, _ in d["alone_medians"]] == [4, 16, 64, 256, 1024]
    assert 1e9 < d["request_write_bw"] < 1e10 and d["fit_medians"][0] > tab_latency()


def test_the_random_read_rounds_are_the_rw_rand_reader_s():
    """The 4 KiB random reads traced beside (task 3): 4096 pread()s a round, ~3970 loop read requests of 4 KiB
    (the rest hit pages already read), each over one vda request (vda's 4 KiB reads also count the host's own:
    at least as many)."""
    _, d = derived()
    for r in d["rand"]:
        assert len(r["pread_ns"]) == 4096 and 3900 < len(r["loop_ns"]) <= 4096 and len(r["vda_ns"]) >= len(r["loop_ns"]) - 20
