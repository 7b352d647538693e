"""What loop_rw_trace.py's rounds show of the host's loop device serving a reader's reads beside the flusher's writes
(loop23, issue 23; lab/measurements/loop-rw/README.md says what was found). No host access: it only reads the JSON.

Per phase and direction, each loop request is matched to its backing bio and request on vda through the image's
extents (the loop request's sector -> the image's block -> vda's sector; the first vda bio/request of that sector
and direction issued after the loop request's issue) and split into: the loop worker's pickup (the loop request's
issue, `blk_mq_start_request()` in `loop_queue_rq()`, to its backing bio's `submit_bio()` on vda by `lo_rw_aio()` in
`loop_process_work()`), vda's request (issue to completion), and the loop completion after it (vda's completion to
the loop request's, `lo_rw_aio_complete()`: for a write into the sparse image's holes through iomap's deferred
completion and ext4's unwritten-extent conversion, `iomap_dio_complete_work()` -> `ext4_dio_write_end_io()`, 6.18).
And the order of completion on each device: of two requests in flight together, how often the later-issued one
completes first, by the directions of the pair.

Usage: python3 lab/measurements/loop_rw_table.py [TRACE.json ...] (default: loop-rw/loop-rw-*.json)"""
import bisect
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE_KEYS = ("date", "loadavg_start", "loadavg_end", "phases", "loop_requests", "disk_requests", "disk_bios", "image_extents")


def q(xs, f):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(f * len(xs)))]


def pct(xs):
    return "/".join(f"{q(xs, f) / 1e3:.0f}" for f in (.1, .5, .9)) if xs else "-"


def steps(d):
    """{(phase, write): [each matched loop request's dict]}."""
    ext = sorted(d["image_extents"])
    starts = [e[0] for e in ext]

    def phys(sec):
        lb = sec // 8
        i = bisect.bisect_right(starts, lb) - 1
        if i < 0:
            return None
        lgc, p, n = ext[i]
        return (p + lb - lgc) * 8 + sec % 8 if lb < lgc + n else None

    bios, reqs = {}, {}
    for b in d["disk_bios"]:
        bios.setdefault((b[1], b[3]), []).append(b)
    for r in d["disk_requests"]:
        reqs.setdefault((r[3], r[4]), []).append(r)
    out = {}
    for p in d["phases"]:
        lr = [r for r in d["loop_requests"] if p["start"] <= r[0] <= p["end"]]
        for r in lr:
            ps = phys(r[3])
            bb = [b for b in bios.get((ps, r[4]), []) if b[0] >= r[0]]
            dd = [x for x in reqs.get((ps, r[4]), []) if x[0] >= r[0]]
            if not bb or not dd:
                continue
            b, x = min(bb), min(dd)
            out.setdefault((p["phase"], r[4]), []).append({
                "lat": r[1] - r[0], "pickup": b[0] - r[0], "vda": x[1] - x[0], "complete": r[1] - x[1],
                "loop_w_in_flight": sum(1 for o in lr if o[4] and o[0] < r[0] < o[1])})
    return out


def overtaken(d, key):
    """{phase: {"W->R": [pairs, later-issued completing first], ...}} on the loop device or vda."""
    out = {}
    for p in d["phases"]:
        rs = sorted(r for r in d[key] if p["start"] <= r[0] <= p["end"])
        c = out.setdefault(p["phase"], {})
        for i, a in enumerate(rs):
            for b in rs[i + 1:]:
                if b[0] >= a[1]:
                    break
                k = ("W" if a[4] else "R") + "->" + ("W" if b[4] else "R")
                c.setdefault(k, [0, 0])
                c[k][0] += 1
                c[k][1] += b[1] < a[1]
    return out


def load(paths):
    out = []
    for p in paths:
        fix = "  fix: give loop_rw_trace.py's JSON output (lab/measurements/loop-rw/loop-rw-*.json), or no argument for those"
        try:
            with open(p) as fh:
                d = json.load(fh)
        except OSError as e:
            print(f"loop_rw_table.py: {p}: error: {e.strerror}\n{fix}", file=sys.stderr)
            sys.exit(2)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            where = f"{p}:{e.lineno}:{e.colno}" if isinstance(e, json.JSONDecodeError) else p
            print(f"loop_rw_table.py: {where}: error: not JSON\n{fix}", file=sys.stderr)
            sys.exit(2)
        missing = [k for k in TRACE_KEYS if not isinstance(d, dict) or k not in d]
        if missing:
            print(f"loop_rw_table.py: {p}: error: not a loop_rw_trace.py trace (no {', '.join(missing)})\n{fix}", file=sys.stderr)
            sys.exit(2)
        bad = type_errors(d)
        if bad:
            print(f"loop_rw_table.py: {p}: error: wrong-typed field {bad}\n{fix}", file=sys.stderr)
            sys.exit(2)
        out.append(d)
    return out


def type_errors(d):
    """The first field of a trace whose type main(), steps() and overtaken() cannot use (review17 L1), or None."""
    num = (int, float)

    def nums(x, n):
        return isinstance(x, list) and len(x) >= n and all(isinstance(v, num) and not isinstance(v, bool) for v in x[:n])

    if not isinstance(d["date"], str):
        return "date (want a string)"
    for k in ("loadavg_start", "loadavg_end"):
        if not isinstance(d[k], list) or not d[k] or not all(isinstance(v, (str, int, float)) for v in d[k]):
            return f"{k} (want /proc/loadavg's fields, a list of strings or numbers)"
    for k, n in (("loop_requests", 5), ("disk_requests", 5), ("disk_bios", 4), ("image_extents", 3)):
        if not isinstance(d[k], list):
            return f"{k} (want a list)"
        for i, r in enumerate(d[k]):
            if not nums(r, n):
                return f"{k}[{i}] (want a list whose first {n} fields are numbers)"
    if not isinstance(d["phases"], list):
        return "phases (want a list)"
    for i, ph in enumerate(d["phases"]):
        if not isinstance(ph, dict):
            return f"phases[{i}] (want an object)"
        for k in ("start", "end"):
            if not isinstance(ph.get(k), num):
                return f"phases[{i}].{k} (want a number)"
        if not isinstance(ph.get("phase"), str):
            return f"phases[{i}].phase (want a string)"
        r = ph.get("reader")
        if not isinstance(r, dict) or not all(isinstance(r.get(k), num) for k in ("start", "end")):
            return f"phases[{i}].reader (want an object with numbers start and end)"
        if "writer_end" in ph and not isinstance(ph["writer_end"], num):
            return f"phases[{i}].writer_end (want a number)"
    return None


def main():
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "loop-rw", "loop-rw-*.json")))
    if not paths:
        raise SystemExit("loop_rw_table.py: no trace given and no lab/measurements/loop-rw/loop-rw-*.json\n"
                         "  fix: record one with loop_rw_trace.py (as root, under the host lock)")
    for path, d in zip(paths, load(paths)):
        print(f"{os.path.relpath(path)}: {d['date']} {d.get('kernel')} load {d['loadavg_start'][0]} -> {d['loadavg_end'][0]}, "
              f"{d.get('blkio_cgroup')}, queue {d.get('queue')}")
        for p in d["phases"]:
            r = p["reader"]
            w = f", the writer {(p['writer_end'] - p['start']) / 1e9:.3f} s" if "writer_end" in p else ""
            print(f"  {p['phase']} (load {p['loadavg']}): the reader {(r['end'] - r['start']) / 1e9:.3f} s{w}")
        st = steps(d)
        for (ph, w), rows in sorted(st.items()):
            for name, sel in (("all", rows), ("a loop write in flight at issue", [x for x in rows if x["loop_w_in_flight"]])):
                if not sel:
                    continue
                print(f"  {ph:10s} {'writes' if w else 'reads ':6s} {name:31s} n={len(sel):4d} p10/p50/p90 us: loop {pct([x['lat'] for x in sel])}"
                      f" = worker pickup {pct([x['pickup'] for x in sel])} + vda {pct([x['vda'] for x in sel])} + completion {pct([x['complete'] for x in sel])}"
                      f" (loop writes in flight p50 {statistics.median(x['loop_w_in_flight'] for x in sel):.0f})")
        for dev, key in (("loop", "loop_requests"), ("vda", "disk_requests")):
            for ph, c in overtaken(d, key).items():
                print(f"  {dev:4s} {ph:10s} later-issued completing first: " +
                      ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in sorted(c.items())))


if __name__ == "__main__":
    main()
