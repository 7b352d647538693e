#!/usr/bin/env python3
"""ct57: each loop-device read request's path to the disk beneath and back, from a trace_loop_path.py raw
trace: loop issue (A, block_rq_issue on 7,N: blk_mq_start_request() in loop_queue_rq()) -> the loop
worker's submission (C, the first block_bio_queue on vda of the direct-I/O bios lo_rw_aio() makes for it)
-> vda issue (D, block_rq_issue of its first vda request) -> vda completion (E, block_rq_complete of its
last) -> loop completion (F, block_rq_complete on 7,N). Plus: whether the worker was already running at A
(its loop work's workqueue_execute_start before A and no execute_end between) or started after it (B,
the execute_start), and vda's interrupts (irq_handler_entry virtio*-req*).

Matching: loop_process_work() takes its commands in list order and lo_rw_aio() of each submits its bios
before the next; a loop request's bios on vda are the worker pid's next vda read bios whose bytes sum to
the request's (FIFO per direction; the offset vda sector - loop sector is printed per run to check it).

Groups (ct56/rounds.py): completions less than 60 us apart. A request "missing a round": issued to the loop
device more than 1 ms before the completion of the group before its own, and completing in a later group.

    python3 lab/validation/ct57/analyse.py RAW [--vda 254:0] [--from-reader]
"""
import argparse
import collections
import re
import sys

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$")
RQ = re.compile(r"^(\d+),(\d+) (\S+) (?:(\d+) )?\(\S*\) (\d+) \+ (\d+)")
BIO = re.compile(r"^(\d+),(\d+) (\S+) (\d+) \+ (\d+)")


def pct(v, fs=(.1, .5, .9)):
    v = sorted(v)
    if not v:
        return "none"
    m = len(v)
    return " ".join(f"p{int(f * 100)} {v[min(m - 1, int(f * m))]:.3f}" for f in fs) + f" max {v[-1]:.3f} (n {m})"


def load(path, vda):
    ev = []
    with open(path, errors="replace") as f:
        for ln in f:
            m = LINE.match(ln)
            if m:
                comm, pid, cpu, t, name, rest = m.groups()
                ev.append((float(t), name, comm, int(pid), int(cpu), rest))
    ev.sort(key=lambda e: e[0])
    return ev


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("--vda", default="254,0")
    ap.add_argument("--min-kb", type=int, default=0, help="only loop requests of at least this size")
    a = ap.parse_args()
    vda = tuple(int(x) for x in a.vda.replace(":", ",").split(","))
    ev = load(a.raw, vda)
    loop_rq = {}          # (dev, sector) -> record, open ones
    recs = []
    fifo = collections.defaultdict(collections.deque)   # worker pid -> unmatched; filled at vda bio time
    pending = collections.deque()                        # loop read requests issued, not yet submitted below
    vda_rq = {}           # vda sector -> (issue, record)
    vda_bios = []         # (start, end, loop record) of the worker's vda read bios, oldest first
    vda_issue = []        # (time, sector, sectors, holds a loop request's bio)
    vda_done = []         # (issue, completion, sectors, holds a loop request's bio)
    requeued_rq = [0]
    work_running = {}     # pid -> execute_start time of a loop work (None when ended)
    loop_work_fns = set()
    irqs = []
    vda_complete = []
    offsets = collections.Counter()
    for t, name, comm, pid, cpu, rest in ev:
        if name == "workqueue_queue_work" and "workqueue=loop" in rest:
            loop_work_fns.add(re.search(r"function=(\S+)", rest).group(1))
        elif name == "workqueue_execute_start":
            fn = rest.rsplit("function ", 1)[-1].strip()
            if fn in ("loop_workfn", "loop_rootcg_workfn"):
                work_running[pid] = t
        elif name == "workqueue_execute_end":
            fn = rest.rsplit("function ", 1)[-1].strip()
            if fn in ("loop_workfn", "loop_rootcg_workfn"):
                work_running[pid] = None
        elif name == "irq_handler_entry" and "req" in rest:
            irqs.append(t)
        elif name in ("block_rq_issue", "block_rq_complete"):
            m = RQ.match(rest)
            if not m:
                continue
            ma, mi, rwbs, _b, sec, n = m.groups()
            ma, mi, sec, n = int(ma), int(mi), int(sec), int(n)
            if "R" not in rwbs or n == 0:
                continue
            if ma == 7:
                if name == "block_rq_issue":
                    running = [p for p, s in work_running.items() if s is not None]
                    r = {"A": t, "dev": (ma, mi), "sec": sec, "n": n, "left": n, "issuer": comm,
                         "running_at_A": bool(running), "C": None, "D": None, "E": None, "F": None,
                         "vda": [], "wpid": None, "B": None, "Dlast": None, "requeued": False}
                    loop_rq[(ma, mi, sec)] = r
                    pending.append(r)
                    recs.append(r)
                else:
                    r = loop_rq.pop((ma, mi, sec), None)
                    if r:
                        r["F"] = t
            elif (ma, mi) == vda:
                if name == "block_rq_issue":
                    # the loop requests whose bios this request holds: the latest bios overlapping it
                    # (a sector the reader reads again later is a later bio)
                    if sec in vda_rq:
                        # issued again without a completion: virtio_queue_rq() found the ring full
                        # (virtblk_add_req() -ENOSPC -> BLK_STS_DEV_RESOURCE, requeued) and this is
                        # its dispatch after virtblk_done()'s blk_mq_start_stopped_hw_queues()
                        t0, n0, owners = vda_rq[sec]
                        vda_rq[sec] = (t0, n0, owners)
                        requeued_rq[0] += 1
                        for o in owners:
                            o["requeued"] = True
                            o["Dlast"] = max(o["Dlast"], t)
                        continue
                    owners = owners_in(vda_bios, sec, n)
                    vda_rq[sec] = (t, n, owners)
                    vda_issue.append((t, sec, n, bool(owners)))
                    for o in owners:
                        if o["D"] is None:
                            o["D"] = t
                        o["Dlast"] = max(o["Dlast"] or 0, t)
                else:
                    x = vda_rq.pop(sec, None)
                    vda_complete.append((t, sec, n))
                    if x is not None:
                        # a request may hold bios of more than one loop request (merged in a plug)
                        for rr in x[2]:
                            rr["E"] = t if rr["E"] is None else max(rr["E"], t)
                        vda_done.append((x[0], t, n, bool(x[2])))
        elif name == "block_bio_queue":
            m = BIO.match(rest)
            if not m:
                continue
            ma, mi, rwbs, sec, n = m.groups()
            ma, mi, sec, n = int(ma), int(mi), int(sec), int(n)
            if (ma, mi) != vda or "R" not in rwbs or not comm.startswith("kworker"):
                continue
            # the head of the pending loop reads takes this bio's sectors
            while pending and pending[0]["left"] <= 0:
                pending.popleft()
            if not pending:
                continue
            r = pending[0]
            if r["C"] is None:
                r["C"] = t
                r["wpid"] = pid
                s = work_running.get(pid)
                r["B"] = s
                offsets[sec - r["sec"]] += 1
            r["left"] -= n
            r["vda"].append((sec, n))
            vda_bios.append((sec, sec + n, r))
            if len(vda_bios) > 4096:
                del vda_bios[:2048]
            if r["left"] <= 0:
                pending.popleft()
    done = [r for r in recs if r["F"] is not None and r["C"] is not None and r["n"] * 512 >= a.min_kb * 1024]
    print(f"{a.raw}: {len(recs)} loop read requests, {len(done)} matched to vda bios and completed; "
          f"vda offsets (vda sector - loop sector) top: {offsets.most_common(4)}; loop work functions {sorted(loop_work_fns)}")
    gap = lambda k1, k2: [(r[k2] - r[k1]) * 1e3 for r in done if r[k1] is not None and r[k2] is not None]
    print("  A->C loop issue to the worker's vda bio ms:", pct(gap("A", "C")))
    print("  C->D vda bio to vda issue ms:", pct(gap("C", "D")))
    print("  D->E vda issue to completion ms:", pct(gap("D", "E")))
    print("  E->F vda completion to loop completion ms:", pct(gap("E", "F")))
    print("  A->F loop issue to completion ms:", pct(gap("A", "F")))
    ran = [r for r in done if r["running_at_A"]]
    woke = [r for r in done if not r["running_at_A"]]
    print(f"  worker already running at A: {len(ran)}; A->C of those ms: {pct([(r['C'] - r['A']) * 1e3 for r in ran])}")
    print(f"  worker started after A: {len(woke)}; A->B (execute_start) ms: "
          f"{pct([(r['B'] - r['A']) * 1e3 for r in woke if r['B'] is not None and r['B'] >= r['A']])}; "
          f"B->C ms: {pct([(r['C'] - r['B']) * 1e3 for r in woke if r['B'] is not None and r['B'] >= r['A']])}")
    # completion groups of the loop device and of vda
    groups = []
    for r in sorted(done, key=lambda r: r["F"]):
        if groups and r["F"] - groups[-1][-1]["F"] < 60e-6:
            groups[-1].append(r)
        else:
            groups.append([r])
    missed = []
    prev_c = None
    for g in groups:
        c = max(r["F"] for r in g)
        if prev_c is not None:
            for r in g:
                if prev_c - r["A"] > 1e-3:
                    missed.append((r, prev_c))
        prev_c = c
    print(f"  loop completion groups: {len(groups)}; requests missing a round (issued > 1 ms before the previous "
          f"group's completion): {len(missed)}")
    if missed:
        # where were they at the previous group's completion (prev_c)?
        where = collections.Counter()
        for r, pc in missed:
            if r["C"] > pc:
                where["not yet submitted by the loop worker (C after)"] += 1
            elif r["D"] is not None and r["D"] > pc:
                where["bio on vda, not issued (D after)"] += 1
            else:
                where["issued on vda before it (D before)"] += 1
        print("   at the previous group's completion they were:", dict(where))
        print("   their A->C ms:", pct([(r["C"] - r["A"]) * 1e3 for r, _ in missed]))
        print("   their C - previous group's completion ms:", pct([(r["C"] - pc) * 1e3 for r, pc in missed]))
        print("   their D - previous group's completion ms:", pct([(r["D"] - pc) * 1e3 for r, pc in missed if r["D"]]))
        print(f"   worker running at A: {sum(r['running_at_A'] for r, _ in missed)} of {len(missed)}")
        print(f"   requeued on vda (issued again, ring full): {sum(r['requeued'] for r, _ in missed)} of {len(missed)}; "
              f"last vda issue - previous group's completion ms: {pct([(r['Dlast'] - pc) * 1e3 for r, pc in missed])}")
        nm = [r for r, _ in missed if not r['requeued']]
        print(f"   not requeued: their D - previous group's completion ms: {pct([(r['D'] - pc) * 1e3 for r, pc in missed if not r['requeued']])}")
    allr = [r for r in done]
    print(f"  vda requests issued again (requeued): {requeued_rq[0]}; loop requests with a requeued vda request: "
          f"{sum(r['requeued'] for r in allr)} of {len(allr)}; Dlast->E ms {pct([(r['E'] - r['Dlast']) * 1e3 for r in allr if r['E']])}")
    # interrupts vs vda completion times
    if irqs:
        import bisect
        lag = []
        for tc, _s, _n in vda_complete:
            i = bisect.bisect_right(irqs, tc) - 1
            if i >= 0:
                lag.append((tc - irqs[i]) * 1e3)
        print(f"  vda interrupts {len(irqs)}; vda completions {len(vda_complete)}; completion after its latest irq ms: {pct(lag)}")
    return 0


def owners_in(bios, sec, n):
    """The loop requests whose bios (not yet wholly issued) overlap the vda request [sec, sec + n);
    the bios it covers to their end are taken off the list."""
    out = []
    keep = []
    for b in bios:
        s, e, r = b
        if s < sec + n and sec < e:
            if all(r is not x for x in out):
                out.append(r)
            if e > sec + n:
                keep.append(b)
        else:
            keep.append(b)
    bios[:] = keep
    return out


if __name__ == "__main__":
    sys.exit(main())
