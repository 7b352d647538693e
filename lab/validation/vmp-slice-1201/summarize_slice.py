#!/usr/bin/env python3
"""slice23 (issue 23): for each vmpressure work the host-queue writer queued, whether its bound kworker's wake-up
preempted the writer at once, the writer's EEVDF slice state at the wake-up, and what ended a pending.

Input: slice.bt's output (RUNDIR/bt.out.xz, run.sh); lines read with bt_lines.parse, the writer and each work's run
(the first vmpressure_work_fn start after the queue, the pages the writer scanned in between) as
vmpressure-1201/summarize_vmp.py takes them. Usage: summarize_slice.py RUNDIR... (prints summary.txt).

Per work:
- wake: the first W line of the work's CPU's normal-priority pool kworker (kworker/C:N) within 100 us after the
  queue (kick_pool() -> wake_up_process() right after trace_workqueue_queue_work()); none: queue_work() woke no one
  (kernel/workqueue.c 6.18 kick_pool(): need_more_worker() is false while the pool has a worker counted running,
  pool->nr_running > 0).
- outcome: 'at once' = the writer's next switch-out on the CPU is to that kworker, preempted (prev_state R+, 256),
  before the writer's next shrink_inactive_list() (PREEMPT_NONE: the switch is at its next cond_resched());
  'slept' = it slept (prev_state S/D) before its next scan; 'pending' = it scanned on while the work was pending.
- slice state at the wake-up (6.18 kernel/sched/fair.c, every entity at the base slice
  SLICE = normalized_sysctl_sched_base_slice 0.7 ms x (1 + ilog2(min(ncpus, 8))), update_sysctl(); 1.4 ms on 2 CPUs):
  `since_in` the W line's time since the writer's switch-in; `run` its sched_stat_runtime (U lines: update_curr()'s
  delta_exec of rq_clock_task) since the pick plus the time since its last U; `prot` what is left of its protected
  slice: set_next_entity() -> set_protect_slice() sets vprot = deadline (cfs_rq_min_slice() == se->slice), and the
  deadline is renewed by update_deadline() when update_curr() finds vruntime past it (deadline = vruntime + slice),
  and set by place_entity() at the enqueue after a sleep (vruntime + slice). Replayed here from the writer's own U
  lines on that CPU: its entity at the root is its autogroup's (the runner's, shared with the reader), whose runtime
  on the CPU is taken as the writer's alone (the reader's runtime on the same CPU is not added) and whose vruntime
  advances as that runtime over its weight as the slice does (calc_delta_fair() of both), so `prot` is in ns of
  run. `tick` the time to the CPU's next tick (T line tick_nohz_handler, TICK_NSEC 4 ms at HZ=250).
  'other' = before its next scan it was first preempted by another task (bpftrace, ksoftirqd, ...).
- end: what let the work run: 'the wake-up' (at once), 'tick' (the writer preempted by the kworker after a tick on the CPU since the queue:
  task_tick_fair() -> update_curr() -> resched_curr_lazy() at the slice's end), 'update_curr' (preempted by the
  kworker with no tick in between: another update_curr() on the CPU, a wake-up's, found the protected slice over),
  'sleep' (the writer slept: the kworker ran in its place), or another task's preemption.

The rule of 6.18 check_preempt_wakeup_fair() (PREEMPT_SHORT off: all slices equal): preempt iff __pick_eevdf(cfs_rq,
protect = true) returns the kworker: the running entity is dropped when not eligible after the kworker's entry
(entity_eligible(): place_entity() with PLACE_LAG puts the kworker at its saved lag, lowering avg_vruntime()), else
kept while protect_slice() holds. Checked here against the observable half (the protected slice replayed from U
lines; lags are not traced): 'rule P' = preempt iff the replayed protected slice is over; 'rule E' (the engine's
sched.rs bound_worker_wait() at lag 0, no background) = every wake-up preempts; both with kick_pool()'s
no-wake-up = no preemption."""
import bisect
import collections
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "trace-idle-wait-1130", "preempt-1201s"))
sys.path.insert(0, os.path.join(here, "..", "vmpressure-1201"))
import bt_lines  # noqa: E402
import summarize_vmp  # noqa: E402

SHAPES = {"R": 3, "I": 8, "A": 6, "E": 5, "S": 7, "W": 8, "U": 5, "T": 4}
TICK_NS = 4_000_000  # 1/HZ, the host's CONFIG_HZ=250 (/proc/config.gz)
BASE_SLICE_NS = 700_000  # 6.18 kernel/sched/fair.c normalized_sysctl_sched_base_slice
WAKE_WINDOW_NS = 100_000
RUNNING = (0, 256)  # sched_switch prev_state of a task switched out runnable (R, R+ preempted)


def slice_ns(ncpus):
    return BASE_SLICE_NS * (1 + min(ncpus, 8).bit_length() - 1)


def load(rundir):
    ncpus = json.load(open(os.path.join(rundir, "traced.json")))
    ncpus = next(iter(ncpus["variants"].values()))["real"]["machine"]["cpus"]
    _, _, _, L = bt_lines.parse(os.path.join(rundir, "bt.out.xz"), SHAPES)
    return ncpus, L


def replay(L, w, slice_):
    """The writer's slice state through the trace: {cpu: [(time, kind, rt, vprot, deadline)]} at each of its
    switch-ins ('in'), U lines ('U') and switch-outs ('out'), rt its runtime on that CPU (U lines summed)."""
    ev = [(int(x[0]), 0, x) for x in L["S"] if w in (x[2], x[4])] + \
         [(int(x[0]), 1, x) for x in L["U"] if x[2] == w]
    ev.sort(key=lambda e: (e[0], e[1]))
    st = {}
    rt = collections.Counter()
    dl, vprot = {}, {}
    last_out = None  # (cpu, prev_state) of the writer's last switch-out
    for t, k, x in ev:
        c = int(x[1])
        if k == 0 and x[4] == w:  # switch-in: pick (set_protect_slice), after an enqueue if it slept or moved
            if last_out is None or last_out[0] != c or last_out[1] not in RUNNING or c not in dl:
                dl[c] = rt[c] + slice_  # place_entity(): deadline = vruntime + slice
            vprot[c] = dl[c]
            st.setdefault(c, []).append((t, "in", rt[c], vprot[c], dl[c]))
        elif k == 0:  # switch-out
            last_out = (c, int(x[3]))
            st.setdefault(c, []).append((t, "out", rt[c], vprot.get(c, 0), dl.get(c, 0)))
        else:
            rt[c] += int(x[3])
            if c in dl and rt[c] >= dl[c]:  # update_deadline()
                dl[c] = rt[c] + slice_
            st.setdefault(c, []).append((t, "U", rt[c], vprot.get(c, 0), dl.get(c, 0)))
    return st


def works(L, ncpus):
    w = summarize_vmp.writer_of(L["R"])
    slice_ = slice_ns(ncpus)
    A = sorted((int(x[0]), int(x[3])) for x in L["A"] if x[1] == w and x[4] == "vmpressure_work_fn")
    runs = sorted(int(x[0]) for x in L["E"] if x[3] == "vmpressure_work_fn")
    run_cpu = {int(x[0]): int(x[1]) for x in L["E"] if x[3] == "vmpressure_work_fn"}
    scans = sorted((int(x[0]), int(x[2])) for x in L["I"] if x[1] == w)
    It = [s[0] for s in scans]
    W = sorted((int(x[0]), x[3], int(x[4]), x[5], int(x[6])) for x in L["W"])
    Wt = [x[0] for x in W]
    S = sorted((int(x[0]), int(x[1]), x[2], int(x[3]), x[4], x[5]) for x in L["S"])
    St = [x[0] for x in S]
    ticks = collections.defaultdict(list)
    for x in L["T"]:
        if x[2] == "tick_nohz_handler":
            ticks[int(x[1])].append(int(x[0]))
    for c in ticks:
        ticks[c].sort()
    st = replay(L, w, slice_)
    stt = {c: [e[0] for e in v] for c, v in st.items()}
    out = []
    for a, run, pages in summarize_vmp.queue_to_run([q for q, _ in A], runs, scans):
        c = dict(A)[a]
        pool = f"kworker/{c}:"
        wk = next((x for x in W[bisect.bisect_left(Wt, a):bisect.bisect_left(Wt, min(run, a + WAKE_WINDOW_NS))]
                   if x[2] == c and x[1].startswith(pool) and not x[1].endswith("H")), None)
        # the writer's switch-outs on c from the queue to the run
        outs = [x for x in S[bisect.bisect_left(St, a):bisect.bisect_right(St, run)] if x[1] == c and x[2] == w]
        nxt_scan = It[bisect.bisect_right(It, a)] if bisect.bisect_right(It, a) < len(It) else None
        first = outs[0] if outs else None
        last = outs[-1] if outs else None
        if pages == 0 and first and first[3] == 256 and first[5].startswith(pool) and first[0] <= run:
            outcome = "at once"
        elif pages == 0:
            outcome = "slept" if first and first[3] not in RUNNING else "other"  # other: first to another task
        else:
            outcome = "pending"
        tk = ticks.get(c, [])
        t_from = wk[0] if wk else a
        k = bisect.bisect_right(tk, t_from)
        next_tick = tk[k] - t_from if k < len(tk) else None
        if last is None:
            end = "no switch-out"
        elif last[3] not in RUNNING:
            end = "sleep"
        elif not last[5].startswith(pool):
            end = "preempted by " + last[5].split("/")[0]
        elif outcome == "at once":
            end = "the wake-up" + (" (a tick between)" if (k < len(tk) and tk[k] <= last[0]) else "")
        else:
            end = "tick" if (k < len(tk) and tk[k] <= last[0]) else "update_curr"
        # slice state at the wake-up (or at the queue with no wake-up)
        sv = st.get(c, [])
        j = bisect.bisect_right(stt.get(c, []), t_from) - 1
        state = None
        if j >= 0 and sv[j][1] in ("in", "U"):
            i = j
            while i >= 0 and sv[i][1] != "in":
                i -= 1
            t_l, _, rt_l, vp, dl = sv[j]
            rt_w = rt_l + (t_from - t_l)  # running since its last update
            state = {"run": rt_w - (sv[i][2] if i >= 0 else 0), "prot": vp - rt_w,
                     "dl": dl - rt_w}
        # the pending's end against the rule: the writer keeps its CPU to the first update_curr() after its protected
        # slice (replayed) ends, the tick's or a wake-up's, and switches at its next cond_resched()
        end_at = None
        if state is not None and last is not None and last[3] in RUNNING:
            prot_end = t_from + max(state["prot"], 0)
            k2 = bisect.bisect_left(tk, prot_end)
            end_at = (last[0] - prot_end, (tk[k2] if k2 < len(tk) else None), last[0])
        # how the writer got the CPU it queued on: its previous switch-out a sleep (an enqueue at the wake-up,
        # place_entity() with its saved lag) or a preemption (it stayed queued)
        kq = bisect.bisect_left(St, a)
        prev_out = next((x for x in reversed(S[max(0, kq - 2000):kq]) if x[2] == w), None)
        got = "after a sleep" if prev_out and prev_out[3] not in RUNNING else "after a preemption"
        # with no wake-up: the pool's last woken worker, how long before, and the works run on the CPU since
        pool_w = None
        if wk is None:
            kw = bisect.bisect_left(Wt, a)
            lw = next((x for x in reversed(W[max(0, kw - 5000):kw]) if x[2] == c and x[1].startswith(pool)
                       and not x[1].endswith("H")), None)
            if lw:
                since = collections.Counter(x[3] for x in L["E"] if int(x[1]) == c and lw[0] <= int(x[0]) < a)
                pool_w = (a - lw[0], lw[1], dict(since))
        out.append({"pool_w": pool_w, "got": got, "end_at": end_at, "queue": a, "cpu": c, "run": run, "wait": run - a, "pages": pages, "wake": wk,
                    "outcome": outcome, "end": end, "next_tick": next_tick, "state": state,
                    "scan_after": (nxt_scan - a) if nxt_scan else None, "ran_on": run_cpu[run]})
    return w, slice_, out


def us(v):
    return "-" if v is None else f"{v / 1e3:.0f}"


def report(rundir):
    ncpus, L = load(rundir)
    w, slice_, ws = works(L, ncpus)
    print(f"== {os.path.basename(os.path.normpath(rundir))}: writer pid {w}, {len(ws)} vmpressure works queued, "
          f"{ncpus} CPUs: slice {slice_ / 1e6:.1f} ms, tick {TICK_NS / 1e6:.0f} ms")
    c = collections.Counter((x["outcome"], "woken" if x["wake"] else "no wake-up") for x in ws)
    for k, v in sorted(c.items(), key=lambda kv: -kv[1]):
        print(f"  {v:4d}  {k[0]:8s} {k[1]}")
    print(f"  pages scanned while pending: {sum(x['pages'] for x in ws)} "
          f"({sum(x['pages'] for x in ws) / 512:.0f} windows of 512); ran on the queuing CPU: "
          f"{sum(1 for x in ws if x['ran_on'] == x['cpu'])} of {len(ws)}")
    pend = [x for x in ws if x["outcome"] == "pending"]
    print("  what ended the pendings:", dict(collections.Counter(
        ("woken, " if x["wake"] else "no wake-up, ") + x["end"] for x in pend).most_common()))
    print("  their waits, queue -> run (us):", sorted(round(x["wait"] / 1e3) for x in pend))
    ended = [x for x in pend if x["end"] in ("tick", "update_curr") and x["end_at"]]
    after = sum(1 for x in ended if x["end_at"][0] >= -50_000)
    at_tick = sum(1 for x in ended if x["end_at"][1] is not None and 0 <= x["end_at"][2] - x["end_at"][1] <= 600_000)
    print(f"  the {len(ended)} pendings ended by a preemption by the kworker (tick or update_curr): the writer's switch-out "
          f"came after its replayed protected slice's end (within 50 us) in {after}; within 600 us after the first "
          f"tick after that end in {at_tick}; the switch-out after that end (us):",
          sorted(round(x["end_at"][0] / 1e3) for x in ended))
    nw = [x for x in pend if not x["wake"] and x["pool_w"]]
    print(f"  pendings with no wake-up: {len(nw)}, CPUs {dict(collections.Counter(x['cpu'] for x in nw))}; the pool's "
          f"last woken worker woken {min(x['pool_w'][0] for x in nw) / 1e3:.0f}-{max(x['pool_w'][0] for x in nw) / 1e3:.0f}"
          f" us before the queue (no W line of a pool worker since), the works run on the CPU since (count of "
          f"pendings):", dict(collections.Counter(", ".join(sorted(x["pool_w"][2])) or "none" for x in nw)))
    # the slice state at the wake-ups
    woken = [x for x in ws if x["wake"] and x["state"]]
    bk = collections.Counter()
    for x in woken:
        s = x["state"]
        p = "protected" if s["prot"] > 0 else "slice over"
        b = min(int(s["run"] // 350_000), 4)
        bk[(x["outcome"], p, b)] += 1
    print("  woken works by outcome, replayed protected slice at the wake-up, the writer's run since its pick "
          "(350 us buckets, 4 = 1.4 ms or more):")
    for k in sorted(bk):
        print(f"    {bk[k]:4d}  {k[0]:8s} {k[1]:10s} run {k[2] * 350}-{k[2] * 350 + 350 if k[2] < 4 else ''} us")
    gc = collections.Counter((x["outcome"], x["got"]) for x in ws if x["wake"] and x["outcome"] in ("at once", "pending"))
    print("  woken works at once or pending by how the writer had got its CPU:", dict(sorted(gc.items())))
    sl = collections.Counter()
    for x in woken:
        sl[(x["outcome"], "since_in < slice" if x["wake"][4] < slice_ else "since_in >= slice")] += 1
    print("  woken works by outcome and the W line's time since switch-in against the slice:", dict(sl))
    # the rules, on the woken and unwoken works whose outcome is a preemption decision (at once / pending)
    dec = [x for x in ws if x["outcome"] in ("at once", "pending")]
    okP = sum(1 for x in dec if (x["outcome"] == "at once") == bool(x["wake"] and x["state"] and x["state"]["prot"] <= 0))
    okE = sum(1 for x in dec if (x["outcome"] == "at once") == bool(x["wake"]))
    okW = sum(1 for x in dec if not x["wake"] and x["outcome"] == "pending")
    nW = sum(1 for x in dec if not x["wake"])
    print(f"  rule check over the {len(dec)} works at once or pending: rule P (preempt iff the protected slice is over) "
          f"right {okP}; rule E (every wake-up preempts, none without one) right {okE}; "
          f"no wake-up -> pending right {okW} of {nW}")
    print("  per work: queue(ns) cpu outcome wake(us after queue, kworker) | since_in run prot dl next_tick (us) | "
          "scanned while pending, wait(us), end")
    for x in ws:
        s = x["state"] or {}
        wk = f"+{(x['wake'][0] - x['queue']) / 1e3:.0f} {x['wake'][1]}" if x["wake"] else "none"
        si = us(x["wake"][4]) if x["wake"] else "-"
        print(f"    {x['queue']} c{x['cpu']} {x['outcome']:8s} {wk:18s} | {si:>5s} {us(s.get('run')):>5s} "
              f"{us(s.get('prot')):>6s} {us(s.get('dl')):>6s} {us(x['next_tick']):>5s} | {x['pages']:5d} "
              f"{x['wait'] / 1e3:7.0f} {x['end']}")
    return ws


if __name__ == "__main__":
    for d in sys.argv[1:]:
        report(d)
