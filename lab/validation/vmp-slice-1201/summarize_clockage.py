#!/usr/bin/env python3
"""clock56: the rq clock's age at the writer's switch-out after a bound kworker's wake-up (clockage.bt's W and S lines).

usage: summarize_clockage.py [--step-writer] DIR [DIR ...]   (each DIR holds bt.out or bt.out.xz from run-clockage.sh)

--step-writer (lag56): only the scenario's writer, the LAST python3 to queue a vmpressure work; without it every
python3 counts, and the runner's host-cost calibration readers (hostcal.reclaim_call_ns(): one child a read, in a
20M memcg, before the scenario's tasks), which reclaim too, are most of the pairs (clockage-quiet-summary.txt).

For each W (the writer woke its CPU's bound kworker) the next S of the same writer pid on the same CPU: run = t_S - t_W
(the writer's run from the wake-up to its switch-out), advance = clock_S - clock_W (what the rq clock moved meanwhile),
age = run - advance (the run since the CPU's last clock update: what schedstat stamps the writer's last_queued with,
pre23's "stale clock"). A W followed by another W before an S (a wake-up that did not preempt) pairs with nothing.
Prints per directory: pairs, and for run, advance and age the mean, median, p10, p90; how many pairs had the clock
unmoved (advance 0: the switch on the wake-up's own clock); and the mean of sched.rs wakeup_preempt_stale_clock()
(g - g^2/(2 tick), tick 4 ms) over the runs, the engine's estimate from the same runs."""
import lzma, os, statistics, sys

TICK = 4_000_000
RESCHED = 0x10  # the W line's thread flags: TIF_NEED_RESCHED, bit 4 of 6.18's asm-generic/thread_info_tif.h (x86 uses it from 6.18)
PREEMPTED = 256  # trace_sched_switch prev_state of a preempted task: TASK_REPORT_MAX (6.18)


def lines(d):
    p = os.path.join(d, "bt.out")
    if os.path.exists(p):
        return open(p).read().splitlines()
    return lzma.open(p + ".xz", "rt").read().splitlines()


def est(g):
    return TICK // 2 if g >= TICK else g - g * g // (2 * TICK)


def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main(dirs):
    if not dirs:
        sys.exit(__doc__)
    for d in dirs:
        pend = {}  # (cpu, pid) -> (t, clock, the work queued last before the wake-up)
        lastq = {}  # (cpu, pid) -> the function of the last work queued
        pairs, unpaired = [], 0
        ls = lines(d)
        only = None
        if STEP_WRITER:
            last = {}
            for ln in ls:
                f = ln.split()
                if f and f[0] == "Q" and f[-1] == "vmpressure_work_fn":
                    last[f[3]] = int(f[1])
            only = int(max(last, key=last.get))
        for ln in ls:
            f = ln.split()
            if not f or f[0] not in ("Q", "W", "S"):
                continue
            t, cpu, pid = int(f[1]), int(f[2]), int(f[3])
            if only is not None and pid != only:
                continue
            if f[0] == "Q":
                lastq[(cpu, pid)] = f[4] if len(f) > 4 else "?"
            elif f[0] == "W":
                if (cpu, pid) in pend:
                    unpaired += 1
                pend[(cpu, pid)] = (t, int(f[5]), lastq.pop((cpu, pid), "-"), int(f[8], 16))
            else:
                w = pend.pop((cpu, pid), None)
                if w is not None:
                    pairs.append((t - w[0], int(f[5]) - w[1], f[4], w[2], w[3]))
        print(f"== {d}{'' if only is None else f' (the scenario writer, pid {only})'}: {len(pairs)} wake-ups followed by the writer's switch-out ({unpaired} wake-ups with no switch before the next)")
        works = {}
        for p in pairs:
            works[p[3]] = works.get(p[3], 0) + 1
        print(f"  the work queued before each wake-up: {works}")
        allp = pairs
        pairs = [p for p in allp if p[3].startswith("vmpressure_work_fn") and p[2] == str(PREEMPTED)]
        print(f"  vmpressure works whose wake-up the writer switched out preempted (R+): {len(pairs)}")
        for label, keep in (("the wake-up set need_resched (preempting)", True), ("the wake-up did not (kept; a later resched)", False)):
            part = [p for p in pairs if bool(p[4] & RESCHED) == keep]
            report(f"{label}: {len(part)}", part)
        report("all of them", pairs)


def report(label, pairs):
        print(f"  -- {label}")
        if not pairs:
            return
        for name, xs in (("run", [p[0] for p in pairs]), ("advance", [p[1] for p in pairs]), ("age", [p[0] - p[1] for p in pairs])):
            print(f"  {name:8s} us: mean {statistics.mean(xs)/1e3:9.1f}  median {statistics.median(xs)/1e3:9.1f}  "
                  f"p10 {q(xs, .1)/1e3:9.1f}  p90 {q(xs, .9)/1e3:9.1f}")
        print(f"  clock unmoved at the switch: {sum(1 for p in pairs if p[1] == 0)} of {len(pairs)}")
        print(f"  engine estimate (mean of g - g^2/(2 tick) over the runs): {statistics.mean(est(p[0]) for p in pairs)/1e3:.1f} us")
        states = {}
        for p in pairs:
            states[p[2]] = states.get(p[2], 0) + 1
        print(f"  prev_state at the switch: {states}")


STEP_WRITER = False

if __name__ == "__main__":
    args = sys.argv[1:]
    if "--step-writer" in args:
        STEP_WRITER = True
        args.remove("--step-writer")
    main(args)
