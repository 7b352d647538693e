"""The loop device's read requests in a raw trace of one throttled run, busy period by busy period
(race669, issue 21; large-folios.md, "The order-6 window's race on v669"). No host access: it reads
raw traces kept by `lab/validation/trace_thrash_timeline.py --raw` (from the scenario reader's first
miss on, ra_cycles.reader_pid()) or segment_cost_buffered JSON files (each loop request's issue,
completion, bytes).

A busy period is a maximal run of loop read requests whose [issue, completion] overlap
(loop_device_table.batches()). Per period it prints the requests, MiB, how long after the previous
period's end it began (the device idle), the issue spread, the span (first issue to last completion),
the completion spread (last - first completion: the backend ending them together or not), and two
rates net of the table's `request_cost` (13 us a request, hostcal.rs `window_read_bw()`'s rule):

- `span`: bytes / (span - n x 13 us), the rate a window alone would give;
- `fifo`: the least rate B at which a work-conserving server (blkdev/mod.rs `HwQueue::dispatch()`'s
  shared line: every request in flight takes its bytes at B in turn) ends the period's last request by
  its completion, given each request's issue: max over k of (bytes issued from k on) / (end - issue_k).

Then, per kind of period (one 8 MiB window alone; a window joined by later requests; the ramps'
smaller ones), the rates' medians, and the rate against the idle gap before the period and against
the requests in flight.

With `--replay`, a raw trace's requests are also replayed through the engine's device model
(replay()) at the shared bandwidth the run's own device window gives (hostcal.rs `window_read_bw()`
of `device_window_ns`, what validate gives the twin) and at the lone 8 MiB windows' rate, and the
modelled end of each period is set against the traced one.

    python3 lab/measurements/loop_busy.py RAW_OR_JSON [...] [--periods] [--replay]"""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
from ra_cycles import LINE, reader_pid  # noqa: E402

REQUEST_COST_NS = 13_000  # the table's (loop-device.md; loop_device_table.py)
TOGETHER_NS = 100_000  # completions within this of each other: ended together (virtblk_done())
WINDOW = 8 << 20
REQUEST_LATENCY_NS = 50_000  # the table's (loop-device.md)
REQUEST_READ_BW = 7.08e9  # loop_table.py LOOP_REQUEST_READ_BW (a request alone, idle v782)


def raw_requests(path):
    """The loop device's read requests of the scenario reader's part of a raw trace:
    [(issue ns, completion ns, bytes)]."""
    reader = reader_pid(path)
    if reader is None:
        sys.exit(f"loop_busy: {path}: no page_cache_sync_ra in the trace\n"
                 "  fix: give a raw trace kept by trace_thrash_timeline.py --raw")
    issued, out, on = {}, [], False
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            _c, pid, _cpu, ts, ev, rest = m.groups()
            if not on:
                on = ev == "page_cache_sync_ra" and pid == reader
                if not on:
                    continue
            if ev not in ("block_rq_issue", "block_rq_complete") or not rest.startswith("7,0 R"):
                continue
            g = re.search(r"(\d+) \+ (\d+)", rest)
            if not g or int(g.group(2)) == 0:
                continue
            sector, n = int(g.group(1)), int(g.group(2))
            t = round(float(ts) * 1e9)
            if ev == "block_rq_issue":
                issued[sector] = (t, n)
            elif sector in issued:
                ti, n = issued.pop(sector)
                out.append((ti, t, n * 512))
    return out


def json_requests(path):
    """segment_cost_buffered JSON: per round and run at read_ahead_kb 8192 on the default ext4,
    the loop requests [(issue, completion, bytes)] (runs apart: a list of lists)."""
    with open(path) as f:
        d = json.load(f)
    out = []
    for rnd in d.get("rounds", []):
        for run in rnd.get("runs", []):
            if run.get("fs") == "default" and run.get("read_ahead_kb") == 8192:
                reqs = run["requests"]["loop"] if "requests" in run else run.get("loop_requests_segments", [])
                out.append([tuple(r[:3]) for r in reqs])
    return out


def periods(reqs):
    """Maximal runs of requests whose [issue, completion] overlap, in issue order, with the idle gap
    before each."""
    out = []
    for r in sorted(reqs):
        if out and r[0] < out[-1]["end"]:
            p = out[-1]
            p["end"] = max(p["end"], r[1])
            p["reqs"].append(r)
        else:
            out.append({"start": r[0], "end": r[1], "reqs": [r],
                        "idle": (r[0] - out[-1]["end"]) if out else None})
    return out


def describe(p):
    reqs = p["reqs"]
    n, byts = len(reqs), sum(r[2] for r in reqs)
    span = p["end"] - p["start"]
    issue_spread = reqs[-1][0] - reqs[0][0]
    dones = [r[1] for r in reqs]
    done_spread = max(dones) - min(dones)
    span_bw = byts / max(1, span - n * REQUEST_COST_NS) * 1e9
    # a work-conserving line must have moved the bytes issued at or after issue_k by the end
    fifo = 0.0
    rest = byts
    for k, r in enumerate(reqs):
        net = p["end"] - r[0] - (n - k) * REQUEST_COST_NS
        fifo = max(fifo, rest / max(1, net) * 1e9)
        rest -= r[2]
    # the bytes that arrived after the first window's requests were issued (a joined window)
    first = [r for r in reqs if r[0] - reqs[0][0] < TOGETHER_NS]
    joined = byts - sum(r[2] for r in first)
    return {"n": n, "mib": byts / 2**20, "span_ms": span / 1e6, "issue_ms": issue_spread / 1e6,
            "done_us": done_spread / 1e3, "span_bw": span_bw / 1e9, "fifo_bw": fifo / 1e9,
            "idle_ms": None if p["idle"] is None else p["idle"] / 1e6,
            "first_mib": sum(r[2] for r in first) / 2**20, "joined_mib": joined / 2**20,
            "max_in_flight": max_in_flight(reqs)}


def max_in_flight(reqs):
    ev = sorted([(r[0], 1) for r in reqs] + [(r[1], -1) for r in reqs])
    cur = best = 0
    for _t, d in ev:
        cur += d
        best = max(best, cur)
    return best


def window_read_bw(window_ns, max_sectors_kb=1280, request_cost=REQUEST_COST_NS):
    """hostcal.rs `window_read_bw()`: the shared bandwidth an 8 MiB window of `window_ns` gives."""
    nreq = -(-WINDOW // (max_sectors_kb * 1024))
    return WINDOW * 1e9 / (window_ns - nreq * request_cost)


def replay(reqs, bw, latency=REQUEST_LATENCY_NS, own_bw=REQUEST_READ_BW):
    """The kernel's requests (issued as traced) through blkdev/mod.rs `HwQueue::dispatch()` at shared
    bandwidth `bw` (one line, `request_cost` each, FIFO on the shared line; a request alone at
    `latency` + bytes / `own_bw`) and `BlockDevice::complete_together` (a read dispatched before the
    batch's end joins it and completes with its last): each request's modelled completion, in
    issue order."""
    bw_until = last_done = 0
    out, batch, batch_end = [], [], 0
    for t, _done, n in sorted(reqs):
        bw_until = max(bw_until, t) + REQUEST_COST_NS + n * 1e9 / bw
        own = t + latency + n * 1e9 / own_bw
        done = max(own, bw_until, last_done)
        last_done = done
        if t >= batch_end:
            for k in batch:
                out[k] = batch_end
            batch, batch_end = [], 0
        batch.append(len(out))
        out.append(done)
        batch_end = max(batch_end, done)
    for k in batch:
        out[k] = batch_end
    return out


def replay_report(reqs, window_ns):
    """Per kind of period, the modelled completion of the period's last request less the traced one
    (ms), at the shared bandwidth the run's own device window gives (what validate gives the twin)
    and at the bandwidth that makes the 8 MiB windows issued alone end on time (their median)."""
    reqs = sorted(reqs)
    ps = periods(reqs)
    idx = {r: i for i, r in enumerate(reqs)}

    def errs(bw):
        model = replay(reqs, bw)
        by = {}
        for p in ps:
            d = describe(p)
            end_m = max(model[idx[r]] for r in p["reqs"])
            by.setdefault(kind(d), []).append((end_m - p["end"]) / 1e6)
        return by
    bw0 = window_read_bw(window_ns)
    alone = [describe(p) for p in ps]
    alone_bw = med([d["fifo_bw"] for d in alone if kind(d) == "8 MiB window alone"]) * 1e9
    for name, bw in (("the run's device window", bw0), ("the lone 8 MiB windows' rate", alone_bw)):
        if bw != bw:
            continue
        by = errs(bw)
        print(f"  HwQueue replay of the traced requests at {bw / 1e9:.2f} GB/s ({name}): modelled - traced end of a period, ms, median [p10-p90]:")
        for k in sorted(by):
            v = sorted(by[k])
            print(f"    {k:32s} {len(v):4d}  {med(v):+6.2f} [{v[len(v) // 10]:+.2f} .. {v[9 * len(v) // 10]:+.2f}]")


def kind(d):
    if d["first_mib"] == 8 and d["joined_mib"] == 0:
        return "8 MiB window alone"
    if d["first_mib"] == 8 and d["joined_mib"] > 0:
        return "8 MiB window, then more issued"
    if d["mib"] >= 16 and d["issue_ms"] < 0.1:
        return "two windows issued together"
    if d["mib"] < 8:
        return "under 8 MiB (ramp, fallback)"
    return "other"


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def report(name, groups, show):
    ds = []
    for reqs in groups:
        for p in periods(reqs):
            ds.append(describe(p))
    busy = sum(d["span_ms"] for d in ds)
    print(f"== {name}: {len(ds)} busy periods, {sum(d['mib'] for d in ds):.0f} MiB, "
          f"{8 * busy / max(1e-9, sum(d['mib'] for d in ds)):.3f} ms busy per 8 MiB (hostcal's device_window_ns), "
          f"ended together (completion spread < {TOGETHER_NS // 1000} us): "
          f"{sum(1 for d in ds if d['n'] > 1 and d['done_us'] < TOGETHER_NS / 1000)} of {sum(1 for d in ds if d['n'] > 1)} with 2+ requests")
    if show:
        print("  n    MiB  first joined  idle_ms issue_ms span_ms done_us span_GB/s fifo_GB/s in-flight")
        for d in ds:
            idle = "-" if d["idle_ms"] is None else f"{d['idle_ms']:.2f}"
            print(f"  {d['n']:3d} {d['mib']:6.2f} {d['first_mib']:6.2f} {d['joined_mib']:6.2f} {idle:>8s} "
                  f"{d['issue_ms']:8.2f} {d['span_ms']:7.2f} {d['done_us']:7.0f} {d['span_bw']:9.2f} {d['fifo_bw']:9.2f} {d['max_in_flight']:9d}")
    by = {}
    for d in ds:
        by.setdefault(kind(d), []).append(d)
    print("  kind                             periods   MiB med  span ms med  span GB/s med [p10-p90]  fifo GB/s med [p10-p90]")
    for k in sorted(by):
        v = by[k]
        sb, fb = sorted(d["span_bw"] for d in v), sorted(d["fifo_bw"] for d in v)
        print(f"  {k:32s} {len(v):7d} {med([d['mib'] for d in v]):9.2f} {med([d['span_ms'] for d in v]):12.2f} "
              f"{med(sb):9.2f} [{sb[len(sb) // 10]:.2f}-{sb[9 * len(sb) // 10]:.2f}] {med(fb):9.2f} [{fb[len(fb) // 10]:.2f}-{fb[9 * len(fb) // 10]:.2f}]")
    # rate against the idle time before the period, for periods of 8 MiB or more
    big = [d for d in ds if d["mib"] >= 8 and d["idle_ms"] is not None]
    if big:
        print("  periods of 8 MiB or more, fifo GB/s by the device's idle time before them (ms):")
        for lo, hi in ((0, 1), (1, 5), (5, 20), (20, 80), (80, 1e9)):
            v = [d["fifo_bw"] for d in big if lo <= d["idle_ms"] < hi]
            if v:
                print(f"    [{lo:g}, {hi:g}): {len(v):4d} periods, median {med(v):.2f} GB/s [{min(v):.2f}-{max(v):.2f}]")
        print("  by the most requests in flight at once:")
        for lo, hi in ((1, 8), (8, 14), (14, 20), (20, 1000)):
            v = [d["fifo_bw"] for d in big if lo <= d["max_in_flight"] < hi]
            if v:
                print(f"    [{lo}, {hi}): {len(v):4d} periods, median {med(v):.2f} GB/s [{min(v):.2f}-{max(v):.2f}], "
                      f"{med([d['mib'] for d in big if lo <= d['max_in_flight'] < hi]):.1f} MiB")
    if "--replay" in sys.argv and len(groups) == 1:
        replay_report(groups[0], 8 * busy / max(1e-9, sum(d['mib'] for d in ds)) * 1e6)
    return ds


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args or "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        return 0 if args else 2
    for path in args:
        if not os.path.exists(path):
            sys.exit(f"loop_busy: {path}: no such file\n  fix: give raw traces or segment_cost_buffered JSON files")
        groups = json_requests(path) if path.endswith(".json") else [raw_requests(path)]
        report(path, groups, "--periods" in sys.argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
