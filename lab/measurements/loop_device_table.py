"""The host runner's loop device's read table (lab/validation/loop_table.py, which every host generator takes) derived from
the idle-host buffered-path trace segment_cost_buffered-idle-1130.json (ra21, issue 21; large-folios.md,
"The loop device's table from an idle host"). No host access: it only reads the JSON.

The engine's device (blkdev/mod.rs `HwQueue::dispatch`): a request completes at the later of its own line,
`request_latency` + bytes / `request_read_bw`, and the shared line, where every request in flight takes
`request_cost` + segments x `segment_cost` + bytes / `queue_read_bw` in turn. `request_latency` (50 us) and
`request_cost` (13 us) stay the table's (fio, lab/validation/loop-device.md); from this trace:

- `queue_read_bw`, the bandwidth requests in flight share, by hostcal.rs `window_read_bw()`'s rule (a window's
  time less its requests' `request_cost`; the segments' time stays in it, as the table gives no `segment_cost`,
  and is taken out too for the figure that would go with `segment_cost`): over the batches in which two 8 MiB
  readahead windows are in flight together (a batch: loop read requests whose [issue, completion] overlap; two
  windows: at least 16 MiB issued within TOGETHER_NS, the steady state of read_ahead_kb 8192 on the default ext4,
  13 requests of up to 1280 KiB), bytes / (span - n x request_cost), the median over
  both rounds. The ramp's batches (requests issued over 0.15-3.3 ms as the windows grow) are printed apart and not
  used: most ran at 4.1-5.5 GB/s, which the whole run's busy time per 8 MiB (2.79/2.93 ms) mixes in; the
  last window alone (7 requests, 8 MiB) 2.2-2.4.
- `segment_cost` and the request alone: least squares of the time of the 256 KiB requests no other request
  overlapped against their segments (both rounds, all configurations): the slope is the cost a segment, the
  intercept the request alone at no segment, `request_read_bw` = 256 KiB / (intercept - request_latency).
- `max_segments` is loop.c's (128, BLK_MAX_SEGMENTS; large-folios.md, "The device's cost per segment").

Usage: python3 lab/measurements/loop_device_table.py [segment_cost_buffered-idle-1130.json]"""
import json
import os
import statistics
import sys

REQUEST_LATENCY_NS = 50_000  # the table's (loop-device.md: fio's 4 KiB reads alone)
REQUEST_COST_NS = 13_000  # the table's (loop-device.md: fio's deep queue, per request)
TOGETHER_NS = 100_000  # a batch's requests issued within this: one submission of two windows (11-17 us seen)
TWO_WINDOWS = 16 << 20
ALONE_BYTES = 256 << 10


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


def fit(points):
    """Least squares y = a + s x over (x, y); (a, s)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    s = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - s * mx, s


def derive(data):
    alone = []
    for rd in data["rounds"]:
        for r in rd["runs"]:
            for s, e, b, g, a in r["loop_requests_segments"]:
                if a and g is not None and b == ALONE_BYTES:
                    alone.append((g, e - s))
    at0, seg = fit(alone)
    steady, ramp = [], []
    for i, rd in enumerate(data["rounds"]):
        for r in rd["runs"]:
            if r["fs"] != "default" or r["read_ahead_kb"] != 8192:
                continue
            for b in batches([tuple(x) for x in r["loop_requests_segments"]]):
                n = len(b["reqs"])
                nbytes = sum(x[2] for x in b["reqs"])
                segs = sum(x[3] or 1 for x in b["reqs"])
                spread = b["reqs"][-1][0] - b["reqs"][0][0]
                span = b["end"] - b["start"]
                t = span - n * REQUEST_COST_NS
                row = (i + 1, n, nbytes, segs, spread, span, nbytes * 1e9 / t, r["loadavg"], nbytes * 1e9 / (t - segs * seg))
                (steady if nbytes >= TWO_WINDOWS and spread <= TOGETHER_NS else ramp).append(row)
    bw = statistics.median(x[6] for x in steady)
    return {"alone": alone, "at0_ns": at0, "segment_cost_ns": seg, "steady": steady, "ramp": ramp,
            "queue_read_bw": bw, "queue_read_bw_with_segments": statistics.median(x[8] for x in steady), "request_read_bw": ALONE_BYTES * 1e9 / (at0 - REQUEST_LATENCY_NS)}


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "segment_cost_buffered-idle-1130.json")
    d = derive(json.load(open(path)))
    by = {}
    for g, t in d["alone"]:
        by.setdefault(g, []).append(t)
    print("256 KiB requests alone, by segments (n, median us):",
          ", ".join(f"{g}: {len(v)}, {statistics.median(v) / 1e3:.1f}" for g, v in sorted(by.items())))
    print(f"  least squares over {len(d['alone'])}: {d['segment_cost_ns']:.0f} ns a segment, {d['at0_ns'] / 1e3:.1f} us at no segment")
    print("batches at read_ahead_kb 8192 (round, requests, MiB, segments, issue spread us, span us, GB/s net of costs, load):")
    for name, rows in (("two windows issued together", d["steady"]), ("the ramp (not used)", d["ramp"])):
        print(f"  {name}:")
        for rd, n, nb, sg, sp, span, bw, la, _ in rows:
            print(f"    {rd} {n:3d} {nb / 2**20:5.1f} {sg:3d} {sp / 1e3:7.0f} {span / 1e3:8.0f} {bw / 1e9:5.2f} {la}")
    print("[devices.X] (read side):")
    print(f"  queue_read_bw = {round(d['queue_read_bw'], -7):.0f}  # median of {len(d['steady'])} batches of two windows")
    print(f"  queue_read_bw_batches = [{', '.join(f'{round(x[6], -6):.0f}' for x in d['steady'])}]  # the batches, drawn per batch")
    print(f"  request_read_bw = {round(d['request_read_bw'], -7):.0f}  # 256 KiB alone at no segment less request_latency")
    print(f'  request_latency = "{REQUEST_LATENCY_NS // 1000}us", request_cost = "{REQUEST_COST_NS // 1000}us"  # the table\'s (fio)')
    print(f'  segment_cost = "{d["segment_cost_ns"]:.0f}ns", max_segments = 128  # measured; not given (large-folios.md)')
    print(f"  (with segment_cost given, queue_read_bw would be {round(d['queue_read_bw_with_segments'], -7):.0f})")


if __name__ == "__main__":
    main()
