"""The host runner's loop device's WRITE table (lab/validation/loop_table.py LOOP_WRITE_BW, LOOP_REQUEST_WRITE_BW) and
its 4 KiB random read, derived from loop_write_trace.py's traces (loop21, issues 21/23). No host access: it only
reads the JSON files.

The engine's device (blkdev/mod.rs `HwQueue::dispatch`): a request completes at the later of its own line,
`request_latency` + bytes / `request_write_bw`, and the shared line, where every request in flight takes
`request_cost` + segments x `segment_cost` + bytes / `queue_write_bw` in turn. `request_latency` (50 us) and
`request_cost` (13 us) stay the table's (fio, lab/validation/loop-device.md), as on the read side
(loop_device_table.py). From the traces:

- `queue_write_bw`, the bandwidth write requests in flight share: the writeback of the fsync'd 256 MiB file with
  blk-wbt off (`seq-nowbt`: ext4_writepages()' requests of up to 1280 KiB, the loop device's 128 tags full), a
  busy period (a run of loop write requests whose [issue, completion] overlap) of 64 MiB or more: its bytes /
  (its span - n x `request_cost`), the read side's rule (hostcal.rs `window_read_bw()`'s); the median over every
  round's. Not the batches blk-wbt lets through (`seq-wbt`, REQ_SYNC writes wb_max = 16 at a time, block/blk-wbt.c
  get_limit(), 6.18; and the memcg writer's, the host-queue-rw scenarios' regime): on the loaded host each of
  their requests carries the host's per-request overhead (a request alone: ~200 us at no byte where the table
  has `request_latency` 50 us), which the model puts in `request_latency`/`request_cost`, not in the shared rate;
  with 128 in flight that overhead overlaps. They are printed beside it, with the requests in flight blk-wbt
  allowed (the host's 6.18 blk-wbt scales the writer's depth past wb_max: up to 41-48 in flight).
- the request alone (`alone`: one write request at a time, 4-1024 KiB, no other request of the loop device
  overlapping it): least squares of the median time of each size against its bytes: the byte slope's inverse
  is `request_write_bw`, the intercept what the table's `request_latency` stands for (printed beside it). The
  fit over every request against bytes and segments (its pages' physically contiguous runs) is printed, not
  used: on a loaded host its outliers (milliseconds) set it, and the table gives no `segment_cost` (as on the
  read side).
- the 4 KiB random read (`rand`: host-queue-rw-rand's reader's 4096 random pread()s of the cold file, buffered):
  the loop device's read requests' issue-to-completion, vda's beneath, and each pread()'s time; what the
  throttled device's `seek` (make_queue_scenarios.py THROTTLED, 60 us, `memtwin calibrate --throttle`'s
  4 KiB O_DIRECT p50 at load less 4 KiB at the rule) is set against.

Which rounds the table takes (loop23, review16 M4; lab/validation/loop_table.py says the rule): the idle ones, a round
whose 1-minute loadavg is below IDLE_LOAD at its start, its end and every phase (the host ran only the trace), as the
read side's trace was (loop_device_table.py: load 0.20-0.45) and as the recording sets the host scenarios are
compared with are (make_folio_scenarios.py QUIET_SETS, make_queue_scenarios.py IDLE_COMPARED: load 0.3-1.5). The
loaded rounds are kept and printed (their figures beside), not taken. With no idle round the table would have none.

Usage: python3 lab/measurements/loop_write_table.py [TRACE.json ...] (default: the rounds of table_paths(): the idle
ones of loop-write-*.json beside it and in loop-write-idle/; the loaded ones printed apart)"""
import bisect
import glob
import json
import os
import statistics
import sys

REQUEST_LATENCY_NS = 50_000  # the table's (loop-device.md: fio's 4 KiB reads alone)
REQUEST_COST_NS = 13_000  # the table's (loop-device.md: fio's deep queue, per request)
BATCH_BYTES = 16 << 20  # a batch of blk-wbt's wb_max (16) requests of writeback (printed)
DEEP_BYTES = 64 << 20  # a busy period of the writeback without blk-wbt (used)
HERE = os.path.dirname(os.path.abspath(__file__))
# The rule's bound on the 1-minute loadavg of an idle round (loop23): the idle and quiet recording sets the host
# scenarios are compared with were taken at 0.3-1.5, the read side's trace at 0.20-0.45; the loaded write rounds
# at 7.5-16.4 (other helpers' builds and tests), the idle ones at 0.72-0.96.
IDLE_LOAD = 2.0


def batches(reqs):
    """Maximal runs of requests whose [issue, completion] overlap, in issue order."""
    out = []
    for r in sorted(reqs):
        if out and r[0] < out[-1]["end"]:
            b = out[-1]
            b["end"] = max(b["end"], r[1])
            b["reqs"].append(r)
        else:
            out.append({"start": r[0], "end": r[1], "reqs": [r]})
    return out


def alone_of(reqs):
    """The requests no other request overlapped."""
    rs = sorted(reqs)
    return [r for j, r in enumerate(rs) if (j == 0 or max(x[1] for x in rs[:j]) <= r[0]) and (j + 1 == len(rs) or rs[j + 1][0] >= r[1])]


def solve(a, b):
    """Gaussian elimination: a x = b (a square, small)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def lstsq(rows, ys):
    """Least squares ys = rows . x (rows with a leading 1 for the intercept)."""
    k = len(rows[0])
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(k)] for i in range(k)]
    aty = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(k)]
    return solve(ata, aty)


def phase_reqs(d, phase, dev="loop"):
    p = next((x for x in d["phases"] if x["phase"] == phase), None)
    if p is None:
        return p, []
    rs = d["loop_requests"] if dev == "loop" else d["disk_requests"]
    return p, [r for r in rs if p["start"] <= r[0] <= p["end"]]


def q(xs, f):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(f * len(xs)))]


def rand_steps(rs, ds):
    """The 4 KiB random reads' steps (loop23): each loop read request's worker pickup (its issue to the first vda
    read issued after it, which the loop worker's `lo_rw_aio()` submits: on an idle host nothing else reads vda)
    and completion (that vda read's completion to the loop request's, `lo_rw_aio_complete()`), when the vda read
    lies within the loop request; and the reader's step between two reads (a loop read's completion to the
    next one's issue: the reader's wake-up, its return to user space and its next pread(), no I/O)."""
    lo = sorted(r for r in rs if not r[4] and r[2] == 4096)
    dv = sorted(r for r in ds if not r[4] and r[2] == 4096)
    starts = [r[0] for r in dv]
    pickup, after = [], []
    for r in lo:
        j = bisect.bisect_left(starts, r[0])
        if j < len(dv) and dv[j][1] <= r[1]:
            pickup.append(dv[j][0] - r[0])
            after.append(r[1] - dv[j][1])
    return {"pickup_ns": pickup, "complete_ns": after, "step_ns": [b[0] - a[1] for a, b in zip(lo, lo[1:]) if b[0] >= a[1]]}


def derive(traces):
    out = {"rounds": [], "wbt_batches": [], "memcg_batches": [], "nowbt": [], "alone": [], "rand": []}
    for i, d in enumerate(traces):
        out["rounds"].append({"date": d["date"], "loadavg_start": d["loadavg_start"], "loadavg_end": d["loadavg_end"],
                              "phases": {p["phase"]: p["loadavg"] for p in d["phases"]},
                              "writer_ns": {p["phase"]: p["write_ns"] for p in d["phases"] if "write_ns" in p}})
        for phase, key in (("seq-wbt", "wbt_batches"), ("memcg-wbt", "memcg_batches"), ("seq-nowbt", "nowbt")):
            _, rs = phase_reqs(d, phase)
            w = [r for r in rs if r[4]]
            ev = sorted([(r[0], 1) for r in w] + [(r[1], -1) for r in w])
            cur, last, tm = 0, None, {}
            for t, x in ev:
                if last is not None and cur > 0:
                    tm[cur] = tm.get(cur, 0) + t - last
                cur, last = cur + x, t
            out["rounds"][-1].setdefault("inflight", {})[phase] = {"max": max(tm), "mean": sum(k * v for k, v in tm.items()) / sum(tm.values()),
                                                                 "busy_ns": sum(tm.values()), "bytes": sum(r[2] for r in w)}
            for b in batches([r for r in rs if r[4]]):
                n = len(b["reqs"])
                nbytes = sum(r[2] for r in b["reqs"])
                span = b["end"] - b["start"]
                if nbytes < (DEEP_BYTES if key == "nowbt" else BATCH_BYTES):
                    continue
                out[key].append({"round": i + 1, "n": n, "bytes": nbytes, "span_ns": span,
                                 "spread_ns": b["reqs"][-1][0] - b["reqs"][0][0], "bw": nbytes * 1e9 / (span - n * REQUEST_COST_NS)})
        _, rs = phase_reqs(d, "alone")
        for r in alone_of(rs):
            if r[4] and r[5] is not None:
                out["alone"].append((r[2], r[5], r[1] - r[0], i + 1))
        p, rs = phase_reqs(d, "rand")
        _, ds = phase_reqs(d, "rand", "disk")
        if p:
            out["rand"].append({"round": i + 1, "loadavg": p["loadavg"], "elapsed_ns": p["elapsed_ns"],
                                "loop_ns": [r[1] - r[0] for r in rs if not r[4] and r[2] == 4096],
                                "vda_ns": [r[1] - r[0] for r in ds if not r[4] and r[2] == 4096],
                                "pread_ns": p["read_ns"], **rand_steps(rs, ds)})
    al = out["alone"]
    out["fit"] = lstsq([(1.0, b, g) for b, g, _, _ in al], [t for _, _, t, _ in al])
    by = {}
    for b, _, t, _ in al:
        by.setdefault(b, []).append(t)
    out["alone_medians"] = [(b, statistics.median(v), len(v)) for b, v in sorted(by.items())]
    out["fit_medians"] = lstsq([(1.0, b) for b, _, _ in out["alone_medians"]], [t for _, t, _ in out["alone_medians"]])
    out["queue_write_bw"] = statistics.median(b["bw"] for b in out["nowbt"])
    out["request_write_bw"] = 1e9 / out["fit_medians"][1]
    return out


# The top-level keys derive() reads of a loop_write_trace.py trace.
TRACE_KEYS = ("date", "loadavg_start", "loadavg_end", "phases", "loop_requests", "disk_requests")


def load(paths):
    """The traces at `paths`; a path that cannot be read, is not JSON or not a loop_write_trace.py trace
    ends the program with its name, the fix and exit status 2 (review16 L4), no traceback."""
    out = []
    for p in paths:
        fix = "  fix: give loop_write_trace.py's JSON output (lab/measurements/loop-write-*.json), or no argument for those"
        try:
            with open(p) as fh:
                d = json.load(fh)
        except OSError as e:
            print(f"loop_write_table.py: {p}: error: {e.strerror}\n{fix}", file=sys.stderr)
            sys.exit(2)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            where = f"{p}:{e.lineno}:{e.colno}" if isinstance(e, json.JSONDecodeError) else p
            print(f"loop_write_table.py: {where}: error: not JSON ({e.msg if isinstance(e, json.JSONDecodeError) else e})\n{fix}",
                  file=sys.stderr)
            sys.exit(2)
        missing = [k for k in TRACE_KEYS if not isinstance(d, dict) or k not in d]
        if missing:
            print(f"loop_write_table.py: {p}: error: not a loop_write_trace.py trace (no {', '.join(missing)})\n{fix}",
                  file=sys.stderr)
            sys.exit(2)
        out.append(d)
    return out


def default_paths():
    """Every traced round kept: the loop-write-*.json beside this file and in loop-write-idle/."""
    return sorted(glob.glob(os.path.join(HERE, "loop-write-*.json"))) + sorted(glob.glob(os.path.join(HERE, "loop-write-idle", "loop-write-*.json")))


def loads_of(d):
    """The 1-minute loadavgs a trace recorded: at its start, its end and each phase's."""
    return [float(d["loadavg_start"][0]), float(d["loadavg_end"][0])] + [float(p["loadavg"]) for p in d["phases"]]


def idle(d):
    """The rule (loop23): a round on a host that ran only the trace, every loadavg it recorded below IDLE_LOAD."""
    return max(loads_of(d)) < IDLE_LOAD


def table_paths():
    """(the idle rounds the table takes, the loaded rounds kept and not taken), of default_paths()."""
    paths = default_paths()
    traces = load(paths)
    return [p for p, d in zip(paths, traces) if idle(d)], [p for p, d in zip(paths, traces) if not idle(d)]


def main():
    loaded = []
    if sys.argv[1:]:
        paths = sys.argv[1:]
    else:
        paths, loaded = table_paths()
    if not paths:
        raise SystemExit(f"loop_write_table.py: no trace given and no idle round (loadavg below {IDLE_LOAD}) in lab/measurements/loop-write-*.json "
                         "or loop-write-idle/\n  fix: record one with loop_write_trace.py on a host running nothing else (as root, under the host lock)")
    if loaded:
        ld = load(loaded)
        dl = derive(ld)
        print(f"not taken (loaded: a loadavg at or above {IDLE_LOAD}): {len(loaded)} rounds, load "
              f"{min(min(loads_of(d)) for d in ld):.1f}-{max(max(loads_of(d)) for d in ld):.1f}: queue_write_bw "
              f"{dl['queue_write_bw'] / 1e9:.2f} GB/s, request_write_bw {dl['request_write_bw'] / 1e9:.2f} GB/s")
    traces = load(paths)
    d = derive(traces)
    for i, r in enumerate(d["rounds"]):
        print(f"round {i + 1}: {os.path.relpath(paths[i])} {r['date']} load {r['loadavg_start'][0]} -> {r['loadavg_end'][0]} (phases: {r['phases']})"
              f", loadavg max {max(loads_of(traces[i])):.2f}")
    if sys.argv[1:]:
        # traces given by name are taken as given (review17 L2): say which of them break the idle rule rather than
        # drop them, so a loaded round is never read as an idle one.
        for p, t in zip(paths, traces):
            if not idle(t):
                print(f"loop_write_table.py: warning: {os.path.relpath(p)}: not idle (a loadavg {max(loads_of(t)):.2f} at or above "
                      f"{IDLE_LOAD}): its figures are a loaded round's", file=sys.stderr)
    a, k, c = d["fit"]
    a1, k1 = d["fit_medians"]
    print(f"write requests alone ({len(d['alone'])}), by KiB (n, median us):",
          ", ".join(f"{b >> 10}: {n}, {t / 1e3:.1f}" for b, t, n in d["alone_medians"]))
    print(f"  least squares over the sizes' medians (used): {a1 / 1e3:.1f} us + bytes at {1e9 / k1 / 1e9:.2f} GB/s "
          f"(the table's request_latency is {REQUEST_LATENCY_NS / 1e3:.0f} us)")
    print(f"  least squares over every request, bytes and segments (not used: the load's outliers): {a / 1e3:.1f} us + bytes at "
          f"{1e9 / k / 1e9:.2f} GB/s + {c:.0f} ns a segment")
    for i, r in enumerate(d["rounds"]):
        print(f"round {i + 1}, the writers' write() time (ms):", ", ".join(f"{ph} {t / 1e6:.0f}" for ph, t in r["writer_ns"].items()))
        print(f"round {i + 1}, write requests in flight (max, time-weighted mean) and bytes over the busy time:",
              "; ".join(f"{ph} {x['max']}, {x['mean']:.1f}, {x['bytes'] / x['busy_ns']:.2f} GB/s" for ph, x in r["inflight"].items()))
    for name, key in (("the writeback without blk-wbt, busy periods of 64 MiB or more (used)", "nowbt"),
                      ("blk-wbt's batches of the fsync'd writeback (not used)", "wbt_batches"),
                      ("the memcg writer's batches (not used)", "memcg_batches")):
        rows = d[key]
        print(f"{name}: {len(rows)}" + (f", median {statistics.median(x['bw'] for x in rows) / 1e9:.2f} GB/s net of request_cost" if rows else ""))
        for x in rows:
            print(f"    round {x['round']} {x['n']:4d} req {x['bytes'] / 2**20:6.1f} MiB issued over {x['spread_ns'] / 1e3:7.0f} us, span {x['span_ns'] / 1e3:7.0f} us: {x['bw'] / 1e9:.2f} GB/s")
    for r in d["rand"]:
        lo, vd, pr = r["loop_ns"], r["vda_ns"], r["pread_ns"]
        print(f"4 KiB random reads, round {r['round']} (load {r['loadavg']}): {len(pr)} pread()s in {r['elapsed_ns'] / 1e9:.4f} s "
              f"(median {statistics.median(pr) / 1e3:.1f} us); loop requests {len(lo)}: p10/p50/p90 "
              f"{q(lo, .1) / 1e3:.1f}/{statistics.median(lo) / 1e3:.1f}/{q(lo, .9) / 1e3:.1f} us; vda beneath {len(vd)}: "
              f"{q(vd, .1) / 1e3:.1f}/{statistics.median(vd) / 1e3:.1f}/{q(vd, .9) / 1e3:.1f} us")
        print(f"    p50 steps: worker pickup {statistics.median(r['pickup_ns']) / 1e3:.1f} us, vda {statistics.median(vd) / 1e3:.1f}, "
              f"completion {statistics.median(r['complete_ns']) / 1e3:.1f}, the reader between reads {statistics.median(r['step_ns']) / 1e3:.1f} us")
    print("[devices.X] (write side):")
    print(f"  queue_write_bw = {round(d['queue_write_bw'], -7):.0f}  # median of {len(d['nowbt'])} busy periods without blk-wbt")
    print(f"  request_write_bw = {round(d['request_write_bw'], -7):.0f}  # a request alone: the byte slope over the sizes' medians")


if __name__ == "__main__":
    main()
