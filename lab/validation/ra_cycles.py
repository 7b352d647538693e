#!/usr/bin/env python3
"""Classify the readahead cycles of a raw trace of one file read through a tight memcg
(lab/validation/large-folios.md, "The throttled ra8192 trio's cycles on an idle host").

    python3 lab/validation/ra_cycles.py RAW [RAW ...]

RAW is a raw trace as `trace_thrash_timeline.py SCENARIO --raw RAW` keeps it (a tracefs
instance's text: filemap add/delete/get_pages, readahead sync/async/ra_order/ra_unbounded,
block bio_queue/rq_issue/rq_complete of the loop device, vmscan memcg reclaim begin/end,
sched_switch), from the first `page_cache_sync_ra` on. Per trace it prints:

- the restarts (`page_cache_sync_ra`): how many, how many inside a read (req_count below the
  read's 32 pages: a miss at a page the order-0 fallback did not reach, which 6.6+ takes for a
  jump and answers with context readahead);
- every cycle from a restart to the next, classed by whether blk-throttle let the order-6
  window's bio (8 MiB) and the order-8 window's first bio go at once (within 5 ms) or held
  them, and by where the next restart fell (`o8`: inside the order-6 window, the order-8 window
  having been started; `o9`: inside the order-8 window, after the next async window; `mid`: a
  miss inside a read), with the pages added per page of progress;
- the order-10 windows (the async window at the order-8 window's mark, order-9 folios) and how
  many stopped short on a charge that reclaim could not serve;
- the on-CPU duration of the memcg reclaims that freed nothing right after an order-8 window's
  charges (M13's case: every folio on the list locked);
- the loop device's 8 MiB windows (the order-6 windows' requests): issued while the next
  window's requests were issued before they completed, whether they completed with them or on
  their own;
- where the order-2 folios came from: the ramps' 512-page windows, or other order-2 windows
  (after a context readahead, `page_cache_async_ra()` at a marked folio of an older window
  starts a window of up to `ra_pages` at order 0 + 2);
- the race of each ramp whose order-6 window blk-throttle let go at once (`race()`): from that
  window's requests' issue, when the reader started the order-8 window (it had read the order-4
  window's 1024 pages), when the order-6 window's requests completed, and the reclaims that freed
  nothing before the next readahead decision (the order-8 charge's pair, then the order-0
  fallback's); the completion falls before them (the charges may evict the window unread),
  during them, or after the last (the fallback stops on locked folios), and the next restart
  says which way the cycle went.
"""
import re
import statistics
import sys
from collections import Counter, defaultdict

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$")
HELD_S = 5e-3  # a bio released later than this after its window was added was held by blk-throttle


def reader_pid(path):
    """The scenario's reader: the last task to call page_cache_sync_ra. Since hostcal21 the host
    runner measures its own costs (hostcal.measure(): reads of small files by order, the failing
    reclaim's children) before the scenario runs, inside the same trace; their misses come first."""
    pid = None
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if "page_cache_sync_ra:" in line:
                    m = LINE.match(line)
                    if m:
                        pid = m.group(2)
    except OSError as e:
        sys.exit(f"ra_cycles: {path}: {e.strerror}\n  fix: give a raw trace kept by trace_thrash_timeline.py --raw")
    return pid


def load(path):
    """The trace's events from the scenario reader's first page_cache_sync_ra (reader_pid()):
    (t s, pid, event, rest), the inode."""
    events, t0, ino = [], None, None
    reader = reader_pid(path)
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            _comm, pid, _cpu, ts, ev, rest = m.groups()
            if t0 is None:
                if ev != "page_cache_sync_ra" or pid != reader:
                    continue
                t0 = float(ts)
                ino = re.search(r"ino=(\w+)", rest).group(1)
            events.append((float(ts) - t0, pid, ev, rest))
    if t0 is None:
        sys.exit(f"ra_cycles: {path}: no page_cache_sync_ra in the trace\n"
                 "  fix: record it with trace_thrash_timeline.py (6.14+ has the readahead tracepoints)")
    return events, ino


def bio_kib(rest):
    g = re.search(r"\+ (\d+)", rest)
    return int(g.group(1)) // 2 if g else 0


def next_release(events, i, pred):
    """When the first bio after event i whose size (KiB) satisfies pred left blk-throttle."""
    for t, _p, ev, rest in events[i + 1:]:
        if ev == "block_bio_queue" and pred(bio_kib(rest)):
            return t
    return None


def added_pages(rest, ino):
    g = re.search(r"ino (\w+) pfn=\S+ ofs=(\d+) order=(\d+)", rest)
    if not g or g.group(1) != ino:
        return None
    return int(g.group(2)) >> 12, int(g.group(3))


def cycles(events, ino):
    """Per cycle: (class, outcome, pages added, pages of progress)."""
    restarts = [(int(re.search(r"index=(\d+)", r).group(1)), i) for i, (_t, _p, ev, r) in enumerate(events)
                if ev == "page_cache_sync_ra"]
    out = []
    for k in range(len(restarts) - 1):
        (idx, i), (nidx, ni) = restarts[k], restarts[k + 1]
        added, o6, cls = 0, None, "no order-8 window"
        for j in range(i, ni):
            t, _p, ev, rest = events[j]
            if ev == "mm_filemap_add_to_page_cache":
                a = added_pages(rest, ino)
                if a:
                    added += 1 << a[1]
            elif ev == "page_cache_ra_order" and cls == "no order-8 window":
                g = re.search(r"order=(\d+) size=(\d+)", rest)
                order, size = int(g.group(1)), int(g.group(2))
                if order == 6 and size == 2048:
                    o6 = (t, next_release(events, j, lambda kib: kib == 8192))
                elif order == 8 and o6 and o6[1] is not None:
                    r8 = next_release(events, j, lambda kib: kib >= 4096 and kib != 8192)
                    if r8 is not None:
                        cls = ("o6 held" if o6[1] - o6[0] > HELD_S else "o6 free") + ", " + \
                              ("o8 held" if r8 - t > HELD_S else "o8 free")
        g = re.search(r"req_count=(\d+) order=(\d+)", events[ni][3])
        outcome = "o" + g.group(2) + ("" if g.group(1) == "32" else " mid")
        out.append((cls, outcome, added, nidx - idx))
    return out


def order10_windows(events, ino):
    """Per order-10 window: (size, pages added before the next readahead call, reclaims freeing nothing)."""
    rows, cur = [], None
    for _t, _p, ev, rest in events:
        if ev.startswith("page_cache_"):
            if cur:
                rows.append(cur)
                cur = None
            if ev == "page_cache_ra_order":
                g = re.search(r"order=(\d+) size=(\d+)", rest)
                if int(g.group(1)) >= 10:
                    cur = [int(g.group(2)), 0, 0]
        elif cur and ev == "mm_filemap_add_to_page_cache":
            a = added_pages(rest, ino)
            if a:
                cur[1] += 1 << a[1]
        elif cur and ev == "mm_vmscan_memcg_reclaim_end" and re.search(r"nr_reclaimed=0\b", rest):
            cur[2] += 1
    if cur:
        rows.append(cur)
    return rows


def failing_reclaims_after_order8(events):
    """On-CPU us of the reclaims freeing nothing whose last readahead call was an order-8 window."""
    out, begin, last, off = [], {}, None, {}
    for t, pid, ev, rest in events:
        if ev == "page_cache_ra_order":
            last = int(re.search(r" order=(\d+)", rest).group(1))
        elif ev == "page_cache_ra_unbounded":
            last = None
        elif ev == "mm_vmscan_memcg_reclaim_begin":
            begin[pid] = [t, 0.0]
        elif ev == "sched_switch":
            g = re.search(r"prev_pid=(\d+) .*next_pid=(\d+)", rest)
            if g:
                if g.group(1) in begin:
                    off[g.group(1)] = t
                if g.group(2) in off:
                    t_off = off.pop(g.group(2))
                    if g.group(2) in begin:
                        begin[g.group(2)][1] += t - t_off
        elif ev == "mm_vmscan_memcg_reclaim_end" and pid in begin:
            t_b, t_off = begin.pop(pid)
            if last == 8 and re.search(r"nr_reclaimed=0\b", rest):
                out.append((t - t_b - t_off) * 1e6)
    return sorted(out)


def read_requests(events):
    """The loop device's read requests, issue paired with completion by sector: (issue t, completion t, sectors)."""
    issued, reqs = {}, []
    for t, _p, ev, rest in events:
        if ev not in ("block_rq_issue", "block_rq_complete") or not rest.startswith("7,0 R"):
            continue
        g = re.search(r"(\d+) \+ (\d+)", rest)
        if not g or int(g.group(2)) == 0:
            continue
        sector, n = int(g.group(1)), int(g.group(2))
        if ev == "block_rq_issue":
            issued[sector] = (t, n)
        elif sector in issued:
            ti, n = issued.pop(sector)
            reqs.append((ti, t, n))
    return reqs


def window_completions(events):
    """The 8 MiB request groups followed by a larger group issued before they completed:
    (own completion ms after issue, 'together' or 'alone')."""
    reqs = sorted(read_requests(events))
    groups = []
    for r in reqs:
        if groups and r[0] - groups[-1][-1][0] < 0.2e-3:
            groups[-1].append(r)
        else:
            groups.append([r])
    out = []
    for a, b in zip(groups, groups[1:]):
        kib_a, kib_b = sum(r[2] for r in a) // 2, sum(r[2] for r in b) // 2
        done_a, done_b = max(r[1] for r in a), max(r[1] for r in b)
        if kib_a == 8192 and kib_b > 8192 and b[0][0] < done_a:
            out.append(((done_a - a[0][0]) * 1e3, "together" if abs(done_a - done_b) < 60e-6 else "alone"))
    return out


def order2_sources(events, ino):
    """Order-2 folios added in the ramps' 512-page windows and in other windows."""
    cur, c = None, Counter()
    for _t, _p, ev, rest in events:
        if ev == "page_cache_ra_order":
            g = re.search(r"order=(\d+) size=(\d+)", rest)
            cur = "ramp" if (int(g.group(1)), int(g.group(2))) == (2, 512) else "other"
        elif ev == "page_cache_ra_unbounded":
            cur = "other"
        elif ev == "mm_filemap_add_to_page_cache":
            a = added_pages(rest, ino)
            if a and a[1] == 2:
                c[cur] += 1
            elif a and a[1] == 4:
                c["order 4"] += 1
    return c


def race(events):
    """Per ramp whose order-6 window (8 MiB) left blk-throttle at once: (ms from the window's
    first request's issue to: the order-8 window's start, the window's completion, the first
    reclaim freeing nothing, the end of the last one before the next restart; how many; the
    next restart's class as cycles() names it)."""
    rows = []
    sync_at = [i for i, (_t, _p, ev, _r) in enumerate(events) if ev == "page_cache_sync_ra"]
    for k, i in enumerate(sync_at[:-1]):
        ni = sync_at[k + 1]
        t6 = issue = done = t8 = None
        sector = None
        fails, begin = [], None
        for j in range(i, ni):
            t, _p, ev, rest = events[j]
            if ev == "page_cache_ra_order":
                g = re.search(r"order=(\d+) size=(\d+)", rest)
                order, size = int(g.group(1)), int(g.group(2))
                if order == 6 and size == 2048 and t6 is None:
                    t6 = t
                elif order >= 8 and t6 is not None and t8 is None:
                    t8 = t
            elif ev == "block_bio_queue" and t6 is not None and sector is None and bio_kib(rest) == 8192:
                if t - t6 > HELD_S:
                    break
                sector = int(re.search(r"(\d+) \+", rest).group(1))
            elif ev in ("block_rq_issue", "block_rq_complete") and sector is not None and rest.startswith("7,0 R"):
                g = re.search(r"(\d+) \+ (\d+)", rest)
                if g and sector <= int(g.group(1)) < sector + 16384 and int(g.group(2)):
                    if ev == "block_rq_issue" and issue is None:
                        issue = t
                    elif ev == "block_rq_complete":
                        done = t if done is None else max(done, t)
            elif ev == "mm_vmscan_memcg_reclaim_begin" and t8 is not None:
                begin = t
            elif ev == "mm_vmscan_memcg_reclaim_end" and begin is not None:
                if re.search(r"nr_reclaimed=0\b", rest):
                    fails.append((begin, t))
                begin = None
        if None in (issue, done, t8):
            continue
        g = re.search(r"req_count=(\d+) order=(\d+)", events[ni][3])
        outcome = "o" + g.group(2) + ("" if g.group(1) == "32" else " mid")
        ms = lambda x: (x - issue) * 1e3
        rows.append((ms(t8), ms(done), ms(fails[0][0]) if fails else None, ms(fails[-1][1]) if fails else None, len(fails), outcome))
    return rows


def report(path):
    events, ino = load(path)
    syncs = [re.search(r"req_count=(\d+)", r).group(1) for _t, _p, ev, r in events if ev == "page_cache_sync_ra"]
    print(f"== {path}")
    print(f"reader: pid {events[0][1]}, ino {ino} (the last task to miss; from its first miss on)")
    print(f"restarts: {len(syncs)}, of them inside a read: {sum(1 for s in syncs if s != '32')}")
    agg = defaultdict(lambda: [0, 0, 0])
    for cls, outcome, added, progress in cycles(events, ino):
        a = agg[(cls, outcome)]
        a[0] += 1
        a[1] += added
        a[2] += progress
    print("cycles by class -> next restart: count, pages added per page of progress")
    for (cls, outcome), (n, added, progress) in sorted(agg.items()):
        print(f"  {cls:18s} -> {outcome:6s} {n:3d}  {added / max(progress, 1):5.2f}")
    w = order10_windows(events, ino)
    short = [r for r in w if r[1] < r[0]]
    print(f"order-10 windows: {len(w)}, {sum(r[1] for r in w)} pages added in them; stopped short: {len(short)} "
          f"({sum(1 for r in short if r[2])} on a reclaim that freed nothing)")
    z = failing_reclaims_after_order8(events)
    if z:
        print(f"reclaims freeing nothing after an order-8 window's charges: {len(z)}, on-CPU median {statistics.median(z):.0f} us "
              f"(p10 {z[len(z) // 10]:.0f}, p90 {z[9 * len(z) // 10]:.0f})")
    wc = window_completions(events)
    if wc:
        alone = [ms for ms, k in wc if k == "alone"]
        print(f"8 MiB windows with the next window issued before they completed: {len(wc)}, completed with it "
              f"{len(wc) - len(alone)}, on their own {len(alone)}"
              + (f" ({min(alone):.2f}-{max(alone):.2f} ms after issue)" if alone else ""))
    r = race(events)
    if r:
        print("the order-6 window's race (ramps whose 8 MiB window left blk-throttle at once), ms from its issue:")
        print(f"  reader at the order-8 window: median {statistics.median(x[0] for x in r):.2f}; window complete: median "
              f"{statistics.median(x[1] for x in r):.2f} (p10 {sorted(x[1] for x in r)[len(r) // 10]:.2f}, "
              f"p90 {sorted(x[1] for x in r)[9 * len(r) // 10]:.2f})")
        by = defaultdict(Counter)
        for t8, done, f0, f1, n, outcome in r:
            when = "no reclaim freeing nothing" if f0 is None else ("complete before them" if done < f0 else
                                                                   "complete during them" if done <= f1 else "complete after them")
            by[when if f0 is None else f"{when}, {min(n, 4)}{'+' if n > 4 else ''}"][outcome] += 1
        print("  (the reclaims freeing nothing after the order-8 window's start, by how many: 2 the order-8 charge's")
        print("  pair, 4 the fallback's pair too; then the next restart: o8 inside the order-6 window, o9 past it)")
        for when in sorted(by):
            print(f"  {when:30s} -> " + ", ".join(f"{o} {n}" for o, n in sorted(by[when].items())))
        fs = [x[3] - x[2] for x in r if x[2] is not None]
        if fs:
            print(f"  reclaims freeing nothing: {sum(x[4] for x in r)} in {len(fs)} ramps, first begin to last end median {statistics.median(fs):.2f} ms")
    c = order2_sources(events, ino)
    print(f"order-2 folios: {c['ramp']} in the ramps' 512-page windows, {c['other']} in other windows; "
          f"order-4 / order-2 {c['order 4'] / max(1, c['ramp'] + c['other']):.2f} "
          f"(ramps only {c['order 4'] / max(1, c['ramp']):.2f})")


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    for path in sys.argv[1:]:
        report(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
