"""lab/measurements/loop_busy.py and lab/validation/ra_cycles.py on raw traces (race669, issue 21;
large-folios.md, "The order-6 window's race on v669").

- Since hostcal21 a host run's trace opens with the runner's calibration reads (hostcal.measure()), so the
  scenario's reader is the last task to miss (ra_cycles.reader_pid()); a tool that followed the first
  (trace_thrash_timeline.py's timelines of the v669 traces) reads the calibration instead.
- loop_busy.replay() is blkdev/mod.rs `HwQueue::dispatch()` (one shared line, FIFO, `request_cost` a
  request) with `BlockDevice::complete_together` (a read dispatched before the batch's end completes with
  the batch's last): a window issued alone ends at its bytes over the shared rate, and one joined by a later
  window ends with it.
- The quiet v669 traces: every kind of period goes at one rate per run (what the section's table quotes)."""
import importlib.util
import lzma
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(path, name):
    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    try:
        spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.pop(0)
    return mod


def line(t, pid, ev, rest, comm="python3"):
    return f"         {comm}-{pid}    [001] ..... {t:.6f}: {ev}: {rest}\n"


def trace(tmp_path, cal_reqs=7):
    """A calibration reader (pid 10, ino c; `cal_reqs` requests) before the scenario's reader (pid 20,
    ino d), each with one window issued alone on the loop device 7:0 (the reader's: 8 MiB in 7)."""
    out = []
    for pid, ino, t0, sector, nreq in ((10, "c", 1.0, 1000, cal_reqs), (20, "d", 2.0, 500000, 7)):
        out.append(line(t0, pid, "page_cache_sync_ra", f"dev=7:0 ino={ino} index=0 req_count=32 order=0 size=0"))
        for k in range(nreq):
            n = 2560 if k < 6 else 1024
            s = sector + 2560 * k
            out.append(line(t0 + 1e-5, pid, "block_rq_issue", f"7,0 RA {n * 512} () {s} + {n} be,0,2 [python3]"))
        for k in range(nreq):
            n = 2560 if k < 6 else 1024
            out.append(line(t0 + 3.2e-3, 0, "block_rq_complete", f"7,0 RA () {sector + 2560 * k} + {n} be,0,2 [0]", comm="<idle>"))
    p = tmp_path / "raw.txt"
    p.write_text("".join(out))
    return str(p)


def test_the_scenario_reader_is_the_last_task_to_miss(tmp_path):
    rc = load("lab/validation/ra_cycles.py", "ra_cycles")
    lb = load("lab/measurements/loop_busy.py", "loop_busy")
    raw = trace(tmp_path)
    assert rc.reader_pid(raw) == "20"
    events, ino = rc.load(raw)
    assert ino == "d" and events[0][1] == "20" and events[0][0] == 0.0
    reqs = lb.raw_requests(raw)
    # only the scenario reader's window: 7 requests, 8 MiB, from its first miss on
    assert len(reqs) == 7 and sum(r[2] for r in reqs) == 8 << 20 and min(r[0] for r in reqs) >= 2e9


def test_the_timeline_follows_the_scenario_reader(tmp_path):
    """trace_thrash_timeline.timeline() starts at the scenario reader's first miss: its 7 requests, not
    the calibration's 3 (the v669 timelines before race669 followed the calibration)."""
    tt = load("lab/validation/trace_thrash_timeline.py", "trace_thrash_timeline")
    lines = tt.timeline(trace(tmp_path, cal_reqs=3), 200.0)
    assert lines[0].split()[:2] == ["0.000", "page_cache_sync_ra:"] and "ino" not in lines[0]
    assert any("device issued 7 requests, 8192 KiB" in x for x in lines), lines
    assert not any("device issued 3 requests" in x for x in lines), lines


def test_replay_is_hwqueue_with_completions_together():
    lb = load("lab/measurements/loop_busy.py", "loop_busy")
    bw = 2.7e9
    sizes = [1280 << 10] * 6 + [512 << 10]
    # one 8 MiB window alone, issued at 0: its last byte at 7 x 13 us + 8 MiB / bw, every request with it
    alone = [(0, 0, n) for n in sizes]
    end = 7 * lb.REQUEST_COST_NS + (8 << 20) * 1e9 / bw
    got = lb.replay(alone, bw)
    assert all(abs(x - end) < 1 for x in got), got
    # the same window joined 1 ms later by a second one: every request ends with the second's last byte
    joined = alone + [(1_000_000, 0, n) for n in sizes]
    got = lb.replay(joined, bw)
    end2 = 14 * lb.REQUEST_COST_NS + (16 << 20) * 1e9 / bw
    assert all(abs(x - end2) < 1 for x in got), got
    # a window issued after the first's end opens a batch of its own
    later = alone + [(int(end) + 5_000_000, 0, n) for n in sizes]
    got = lb.replay(later, bw)
    assert abs(got[0] - end) < 1 and abs(got[-1] - (end + 5_000_000 + end)) < 2, got
    # the bandwidth an 8 MiB window gives (hostcal.rs window_read_bw(): less 7 x 13 us)
    assert abs(lb.window_read_bw(end) - bw) < 1e3


def test_the_v669_traces_go_at_one_rate_whatever_is_in_flight():
    """1G run 2 (trace-race-v669-1130/raw-1g-2.txt.xz): the lone 8 MiB windows, the windows joined by the
    order-8 window's requests and the pairs issued together all go at 2.6-2.8 GB/s (median), and the
    HwQueue replay at the lone rate ends the lone windows on time where the run's own device window
    (busy union per 8 MiB) ends them late."""
    lb = load("lab/measurements/loop_busy.py", "loop_busy")
    src = os.path.join(ROOT, "lab", "validation", "trace-race-v669-1130", "raw-1g-2.txt.xz")
    import tempfile
    with tempfile.NamedTemporaryFile("wb", suffix=".txt") as f:
        f.write(lzma.open(src).read())
        f.flush()
        reqs = lb.raw_requests(f.name)
    ds = [lb.describe(p) for p in lb.periods(reqs)]
    rate = {}
    for d in ds:
        rate.setdefault(lb.kind(d), []).append(d["fifo_bw"])
    meds = {k: lb.med(v) for k, v in rate.items()}
    for k in ("8 MiB window alone", "8 MiB window, then more issued", "two windows issued together"):
        assert 2.55 < meds[k] < 2.85, meds
    busy = sum(d["span_ms"] for d in ds) * 1e6
    window = (8 << 20) * busy / sum(d["mib"] * 2**20 for d in ds)
    assert 3.5e6 < window < 3.65e6  # the run's device_window_ns: 3.575 ms
    idx = {r: i for i, r in enumerate(sorted(reqs))}
    lone = [p for p in lb.periods(reqs) if lb.kind(lb.describe(p)) == "8 MiB window alone"]

    def late(bw):
        model = lb.replay(reqs, bw)
        return lb.med([max(model[idx[r]] for r in p["reqs"]) - p["end"] for p in lone]) / 1e6
    assert abs(late(meds["8 MiB window alone"] * 1e9)) < 0.05
    assert late(lb.window_read_bw(window)) > 0.3
