"""qlat62: swap write requests in a `memtwin real --on qemu --reclaim-trace` trace: each write
request's issue -> completion time (block_rq_issue -> block_rq_complete, paired by sector on the
swap disk), by size; how many completed before the put-back of the anon reclaim batch they were
issued in (mm_vmscan_lru_shrink_inactive fires after move_folios_to_lru()); and write_latency and
write_service_bw (fit()) over every trace given.

usage: python3 analyse.py TRACE...   (plain or .xz; python3 analyse.py traces/*.trace.xz > analysis.txt)
         (the swap disk is 254,16, the guest's second virtio disk)"""
import lzma
import re
import statistics as st
import sys

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$")
RQ = re.compile(r"^(\d+,\d+) (\S+) (?:\d+ )?\(\) (\d+) \+ (\d+)")


def q(xs, f):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(f * len(xs)))]


def main(path, dev="254,16"):
    issued = {}
    lat = {}  # sectors -> [ns]
    events = []  # (t, kind, data)
    for ln in (lzma.open(path, "rt", errors="replace") if path.endswith(".xz") else open(path, errors="replace")):
        m = LINE.match(ln)
        if not m:
            continue
        comm, pid, cpu, t, ev, rest = m.groups()
        t = float(t)
        if ev in ("block_rq_issue", "block_rq_complete"):
            r = RQ.match(rest)
            if not r or r.group(1) != dev or "W" not in r.group(2):
                continue
            sec, n = int(r.group(3)), int(r.group(4))
            if ev == "block_rq_issue":
                issued[sec] = (t, n, comm)
                events.append((t, "issue", (sec, n)))
            elif sec in issued:
                t0, n0, _ = issued.pop(sec)
                lat.setdefault(n0, []).append((t - t0) * 1e9)
                events.append((t, "done", (sec, n0)))
        elif ev == "mm_vmscan_lru_shrink_inactive":
            kv = dict(x.split("=", 1) for x in rest.split() if "=" in x)
            events.append((t, "batch", kv))
    print(f"# {path}: swap-disk {dev} write requests, issue -> complete (us)")
    print(f"{'sectors':>8} {'n':>5} {'min':>8} {'p10':>8} {'p50':>8} {'p90':>8} {'max':>8} {'mean':>8}")
    for n in sorted(lat):
        xs = [x / 1000 for x in lat[n]]
        print(f"{n:>8} {len(xs):>5} {min(xs):8.1f} {q(xs, .1):8.1f} {q(xs, .5):8.1f} {q(xs, .9):8.1f} {max(xs):8.1f} {st.mean(xs):8.1f}")
    # the race (lab/validation/swaptime61): a request issued while a reclaim batch runs (the plug
    # flushed by the next bio, blk_add_rq_to_plug()) that completes before the batch's put-back
    # (the batch's mm_vmscan_lru_shrink_inactive, after move_folios_to_lru()) leaves the batch's
    # pages in it unrotated
    events.sort(key=lambda e: e[0])
    open_rq = {}
    before = after = 0
    for t, kind, d in events:
        if kind == "issue":
            open_rq[d[0]] = None
        elif kind == "done":
            if d[0] in open_rq and open_rq.pop(d[0]) is None:
                before += 1
        else:
            for k in open_rq:
                if open_rq[k] is None:
                    open_rq[k] = t
                    after += 1
    return lat, (before, after)


def fit(lats):
    """write_latency and write_service_bw from the requests of every trace: the median time of
    the small requests (<= 64 sectors, 32 KiB) and of the full ones (2032 sectors, 254 pages,
    the virtio disk's seg_max), a line through the two medians (medians: TCG's host-side
    hiccups make the tail long)."""
    small = sorted(x for n, xs in lats.items() if n <= 64 for x in xs)
    full = sorted(x for n, xs in lats.items() if n == 2032 for x in xs)
    if not small or not full:
        return None
    ms, mf = q(small, .5), q(full, .5)
    ns = st.median([n for n, xs in lats.items() if n <= 64 for _ in xs])
    per_byte = (mf - ms) / ((2032 - ns) * 512)  # ns a byte
    fixed = ms - per_byte * ns * 512
    print(f"# fit over {len(small)} small and {len(full)} full requests: median {ms / 1000:.0f} us at {ns:.0f} sectors, "
          f"{mf / 1000:.0f} us at 2032 sectors -> write_latency {fixed / 1000:.0f} us, write_service_bw {1e3 / per_byte:.0f} MB/s")
    return fixed, 1e9 / per_byte


if __name__ == "__main__":
    dev = "254,16"
    every = {}
    for path in sys.argv[1:]:
        lat, (before, after) = main(path, dev)
        print(f"# write requests completed before the put-back of the anon reclaim batch they were issued in: {before}, "
              f"after it: {after}")
        for n, xs in lat.items():
            every.setdefault(n, []).extend(xs)
    fit(every)
