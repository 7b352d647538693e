#!/usr/bin/env python3
"""Where a QEMU guest's CPU time goes during a scenario (issue 23, iso23): a sampled kernel profile.

    flock /tmp/memtwin-qemu.lock python3 lab/measurements/guest_cpu_profile.py record SCENARIO OUTDIR [--no-stacks]
    python3 lab/measurements/guest_cpu_profile.py summary OUTDIR/SCENARIO-default.trace

The guest's 6.1 kernel has no perf and no CONFIG_FUNCTION_PROFILER, but it has hist triggers and
kprobe events. `record` runs `memtwin real SCENARIO --on qemu --reclaim-trace OUTDIR` with the
reclaim trace's guest commands (qemu.guest_reclaim_trace) replaced by these:

- a sampling profile: a histogram keyed by the kernel stack (`keys=stacktrace`, 16 frames, 6.1
  kernel/trace/trace_events_hist.c HIST_STACKTRACE_DEPTH) on `timer:hrtimer_expire_entry` filtered
  to the scheduler tick's timer (`tick_sched_timer`, its address read from /proc/kallsyms): every
  tick (CONFIG_HZ=250, both vCPUs) records the stack it interrupted, unwound through the timer
  interrupt into the running task's; and the same tick counted per task (`common_pid.execname`:
  the interrupted task, `current`);
- the reclaim's own tracepoints, aggregated in histograms of at most two values beside the hit
  count (REDUCE): mm_vmscan_lru_shrink_inactive (calls, nr_scanned, nr_reclaimed by priority;
  nr_activate1, nr_ref_keep, nr_unmap_fail, nr_dirty, nr_writeback, nr_immediate), mm_vmscan_lru_isolate
  by lru, mm_vmscan_direct_reclaim_end per task (calls, nr_reclaimed), mm_shrink_slab_start by
  shrinker, mm_vmscan_lru_shrink_active by priority; block_rq_issue by direction and size and by
  issuing task (the requests' number, for the notify's cost a request);
- no ring buffer use (buffer_size_kb 64): only the histograms are printed, right after the tasks.

The histograms are guest memory the scenario does not count (a map preallocates its entries; the
stack table, 2048 entries, is the largest: `--no-stacks` leaves it out), so a profiled run is a
diagnosis, not a recording: its JSON is not kept in scenarios/. qemu61-throttle-isolated is at the
edge of the OOM killer and two of four profiled boots lost the hog (guest-cpu-profile/README.md).
Not kept: a request latency histogram (block_rq_issue -> block_rq_complete through a synthetic
event keyed by sector): a 6.1 hist map never drops an entry, so it measured only the first few
hundred distinct sectors of a run.

`summary` prints the reclaim histograms, the tick samples per task name, and the stacks by class
(classify(): direct reclaim and its parts, the virtio notify, readahead, the copy, ...) and by the
interrupted function. A tick that arrives while interrupts are off is taken when they are turned
on, so a spin_lock_irq() section's time (its spinning included) is sampled at its unlock.
"""
import os
import re
import sys
from collections import Counter

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
T = "/sys/kernel/tracing"
HIST_SIZE = 2048

# at most 3 values a histogram, its hitcount included (6.1 kernel/trace/tracing_map.h
# TRACING_MAP_VALS_MAX; create_hitcount_val() always adds it), so the counters are spread over
# histograms of other keys; sizes small (a map preallocates its entries: guest memory beside the
# scenario's)
REDUCE = [
    ("vmscan/mm_vmscan_lru_shrink_inactive", "hist:keys=priority:vals=hitcount,nr_scanned,nr_reclaimed:sort=priority:size=128"),
    ("vmscan/mm_vmscan_lru_shrink_inactive", "hist:keys=nid:vals=hitcount,nr_activate1,nr_ref_keep:size=128"),
    ("vmscan/mm_vmscan_lru_shrink_inactive", "hist:keys=reclaim_flags:vals=hitcount,nr_unmap_fail,nr_dirty:size=128"),
    ("vmscan/mm_vmscan_lru_shrink_inactive", "hist:keys=nid,reclaim_flags:vals=hitcount,nr_writeback,nr_immediate:size=128"),
    ("vmscan/mm_vmscan_lru_isolate", "hist:keys=lru:vals=hitcount,nr_requested,nr_scanned:sort=lru:size=128"),
    ("vmscan/mm_vmscan_direct_reclaim_end", "hist:keys=common_pid.execname:vals=hitcount,nr_reclaimed:sort=hitcount.descending:size=128"),
    ("vmscan/mm_shrink_slab_start", "hist:keys=shrink.sym:vals=hitcount:sort=hitcount.descending:size=128"),
    ("vmscan/mm_vmscan_lru_shrink_active", "hist:keys=priority:vals=hitcount,nr_taken,nr_deactivated:sort=priority:size=128"),
    # the block requests issued (iso23, 2026-11-30 03:40): their number and sizes, and who issued them
    # (with no I/O scheduler blk-mq issues in the submitter's context): the virtio notify per request
    ("block/block_rq_issue", "hist:keys=rwbs,bytes:vals=hitcount:sort=bytes:size=256"),
    ("block/block_rq_issue", "hist:keys=common_pid.execname:vals=hitcount,bytes:sort=hitcount.descending:size=128"),
]
SAMPLE_EV = "timer/hrtimer_expire_entry"
SAMPLE = f"hist:keys=stacktrace:vals=hitcount:sort=hitcount.descending:size={HIST_SIZE}"
PERTASK = "hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:size=128"


def guest_profile(stacks: bool = True) -> tuple:
    """(shell before the guest program, shell after it), in place of qemu.guest_reclaim_trace();
    `stacks`: with the sampling profile (its 2048-entry map is the largest guest memory taken)."""
    on = [f'[ -e {T}/trace ] || mount -t tracefs none {T} || fail "cannot mount tracefs at {T}"',
          f"echo 0 > {T}/tracing_on", f"echo 64 > {T}/buffer_size_kb", f": > {T}/trace",
          f"A=$(grep ' tick_sched_timer$' /proc/kallsyms | cut -d' ' -f1)",
          'echo "@@PROFILE tick_sched_timer=$A"']
    for ev, trig in REDUCE:
        on.append(f"echo '{trig}' >> {T}/events/{ev}/trigger || echo \"@@PROFILE no {ev}\"")
    if stacks:
        on.append(f"echo \"{SAMPLE} if function == 0x$A\" >> {T}/events/{SAMPLE_EV}/trigger || "
                  f"{{ echo '{SAMPLE}' >> {T}/events/{SAMPLE_EV}/trigger && echo '@@PROFILE unfiltered'; }} || echo '@@PROFILE no sampling'")
    on.append(f"echo \"{PERTASK} if function == 0x$A\" >> {T}/events/{SAMPLE_EV}/trigger || "
              f"echo '{PERTASK}' >> {T}/events/{SAMPLE_EV}/trigger || echo '@@PROFILE no per-task'")
    on.append('echo "@@RTRACE_ZONEINFO_BEGIN"; grep -E "^Node|^ +pages free|^ +(min|low|high|managed) " /proc/zoneinfo; echo "@@RTRACE_ZONEINFO_END"')
    on.append(f"echo 1 > {T}/tracing_on")
    off = ['echo "@@RTRACE_BEGIN"']
    for ev in dict.fromkeys([e for e, _ in REDUCE] + [SAMPLE_EV]):
        off.append(f'echo "@@HIST {ev}"; cat {T}/events/{ev}/hist')
    off.append(f'echo "@@HIST error_log"; cat {T}/error_log')
    off.append('echo "@@RTRACE_END"')
    # the triggers stay until the guest powers off (the sampling one keeps counting the calibrations
    # after the tasks, but the histograms were printed before them)
    return "\n".join(on) + "\n", "\n".join(off) + "\n"


def record(scenario: str, outdir: str, stacks: bool = True) -> int:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from memtwin import qemu, cli

    qemu.guest_reclaim_trace = lambda: guest_profile(stacks)
    os.makedirs(outdir, exist_ok=True)
    with open("/proc/loadavg") as f:
        print("loadavg before:", f.read().strip())
    rc = cli.main(["real", scenario, "--on", "qemu", "--reclaim-trace", outdir, "--json", os.path.join(outdir, "run.json")])
    with open("/proc/loadavg") as f:
        print("loadavg after:", f.read().strip())
    return rc


def _stacks(body: str):
    """(frames of the interrupted context, hits) of each stack in a stacktrace histogram: the
    frames after the timer interrupt's entry (asm_sysvec_apic_timer_interrupt), innermost first."""
    for m in re.finditer(r"\{ stacktrace:\n(.*?)\} hitcount:\s*(\d+)", body, re.S):
        frames = [re.sub(r"\+0x.*", "", f.strip()) for f in m.group(1).strip().splitlines()]
        k = next((i for i, f in enumerate(frames) if f.startswith("asm_sysvec_apic_timer_interrupt")), None)
        yield (frames[k + 1:] if k is not None else frames), int(m.group(2))


RECLAIM = {"try_to_free_pages", "do_try_to_free_pages", "shrink_node", "shrink_lruvec", "shrink_slab", "shrink_folio_list", "reclaim_throttle"}


def reclaim_part(t: list, s: set) -> str:
    """The part of reclaim, direct or kswapd's, that one sample's frames `t` (innermost first;
    `s`: their set) are in: the same parts for both, so kswapd's CPU reads beside direct
    reclaim's (kswapd23)."""
    if "reclaim_throttle" in s:
        return "reclaim_throttle(): the ISOLATED sleep and its wake-up"
    if "__wake_up_common_lock" in s and t[t.index("__wake_up_common_lock") + 1:][:1] == ["shrink_lruvec"]:
        return "wake_throttle_isolated(): wake_up() of the sleepers"
    if s & {"shrink_slab", "do_shrink_slab"}:
        return "shrink_slab()"
    if "shrink_folio_list" in s:
        return "shrink_folio_list()"
    if len(t) > 1 and t[0] in ("_raw_spin_unlock_irq", "native_queued_spin_lock_slowpath") and t[1] == "shrink_lruvec":
        return "lru_lock sections of shrink_inactive_list() (isolate_lru_folios(), move_folios_to_lru(), the spinning)"
    if "lru_add_drain" in s:
        return "lru_add_drain()"
    if "mem_cgroup_iter" in s:
        return "mem_cgroup_iter()"
    return "other: " + " < ".join(t[:3])


def classify(t: list) -> tuple:
    """(class, reclaim's part or None) of one sample's frames (the part for direct reclaim and
    kswapd: reclaim_part()). A timer tick that arrives
    while interrupts are off is taken when they are turned on again: the time in a
    spin_lock_irq() section (the spinning for the lock included) is sampled at its
    _raw_spin_unlock_irq()/_irqrestore(), so the part is named by the unlock's caller."""
    s = set(t)
    if not t:
        return "(no frames)", None
    if "balance_pgdat" in s or "kswapd" in s:
        return "kswapd", reclaim_part(t, s)
    if s & RECLAIM:
        return "direct reclaim", reclaim_part(t, s)
    if s & {"__drain_all_pages", "drain_all_pages"}:
        return "drain_all_pages()", None
    if s & {"vp_notify", "virtqueue_notify"}:
        return "virtio notify (the request's MMIO exit to QEMU)", None
    if s & {"page_cache_ra_unbounded", "page_cache_sync_ra", "page_cache_async_ra"}:
        return "readahead, besides reclaim and the notify (allocation, page cache insertion, LRU add, bio set-up)", None
    if "filemap_read" in s and s & {"copy_user_enhanced_fast_string", "copy_page_to_iter", "_copy_to_iter"}:
        return "copy to user", None
    if "filemap_read" in s:
        return "filemap_read() other", None
    if s & {"pipe_read", "pipe_write"}:
        return "pipes (the runner's wake-up calibration)", None
    if s & {"vfs_write", "generic_perform_write", "ext4_buffered_write_iter"}:
        return "writes (the runner's file set-up)", None
    if s & {"do_idle", "native_safe_halt"}:
        return "idle", None
    if s & {"clear_page_erms", "handle_mm_fault", "__handle_mm_fault"}:
        return "page faults (the hog's fill)", None
    return "other", None


def summary(path: str, top: int = 30) -> None:
    import gzip

    try:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            text = f.read()
    except (OSError, EOFError, UnicodeDecodeError) as e:
        sys.exit(f"guest_cpu_profile.py summary: cannot read {path}: {e}: give a trace this script's `record` wrote (.gz or text)")
    sec = {}
    for m in re.finditer(r"^@@HIST (\S+)\n(.*?)(?=^@@HIST |\Z)", text, re.M | re.S):
        sec[m.group(1)] = m.group(2)
    for ev, body in sec.items():
        if ev == SAMPLE_EV or (ev.startswith("block/") and "keys=sector" in body):  # an earlier version's latency maps
            continue
        print(f"== {ev}")
        print("\n".join(x for x in body.splitlines() if x.startswith("{") or x.startswith("# trigger info")))
    body = sec.get(SAMPLE_EV, "")
    tasks = Counter()
    for name, hits in re.findall(r"\{ common_pid:\s*(\S+)\s*\[\s*\d+\]\s*\} hitcount:\s*(\d+)", body):
        tasks[re.sub(r"\d+$", "N", name)] += int(hits)
    print("== tick samples per task name (digits folded)")
    for n, c in tasks.most_common():
        print(f"{c:8d} {n}")
    cls, part, kpart, self_, total = Counter(), Counter(), Counter(), Counter(), 0
    for t, hits in _stacks(body):
        total += hits
        c, d = classify(t)
        cls[c] += hits
        if d:
            (kpart if c == "kswapd" else part)[d] += hits
        self_[t[0] if t else "(none)"] += hits
    print(f"== stacks: {total} samples, by class")
    for c, n in cls.most_common():
        print(f"{n:8d} {100 * n / max(total, 1):5.1f}% {c}")
    d = sum(part.values())
    print(f"-- direct reclaim's {d} samples, by part")
    for c, n in part.most_common(top):
        print(f"{n:8d} {100 * n / max(d, 1):5.1f}% {c}")
    k = sum(kpart.values())
    print(f"-- kswapd's {k} samples, by part")
    for c, n in kpart.most_common(top):
        print(f"{n:8d} {100 * n / max(k, 1):5.1f}% {c}")
    print("-- the interrupted function (self)")
    for f, c in self_.most_common(top):
        print(f"{c:8d} {100 * c / max(total, 1):5.1f}% {f}")


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "record" and sys.argv[4:] in ([], ["--no-stacks"]):
        sys.exit(record(sys.argv[2], sys.argv[3], stacks=not sys.argv[4:]))
    if len(sys.argv) in (3, 4) and sys.argv[1] == "summary":
        if len(sys.argv) == 4 and not sys.argv[3].isdigit():
            sys.exit(f"guest_cpu_profile.py summary: TOP {sys.argv[3]!r} is not a whole number of rows: give e.g. 30")
        summary(sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else 40)
        sys.exit(0)
    sys.stderr.write(__doc__)
    sys.exit(2)
