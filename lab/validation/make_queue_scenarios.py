#!/usr/bin/env python3
"""Write the host queue scenarios of issue 23 (the I/O scheduler's order, max_sectors_kb, blk-wbt)
into scenarios/validation/ (those that pass) or scenarios/validation-pending/ (those that miss,
with the figures in their header): host-queue-*.toml (this host's kernel, 6.18, cgroup v1,
engine profile linux-6.18).

A sync reader beside an async writer on one device: a task writes a file eight times its memcg's
64M limit in 1 MiB buffered writes (no fsync: the v1 memcg's reclaim meets the dirty page cache,
wakes the flusher, `wakeup_flusher_threads(WB_REASON_VMSCAN)`, and waits on the folios under
writeback, so the writer runs at the flusher's pace), while a task in another memcg (no limit)
reads a cold file, sequentially in 128 KiB read() calls (-seq) or 4096 random 4 KiB reads (-rand).
Variants: the loop device's scheduler `none` (the loop driver's default,
BLK_MQ_F_NO_SCHED_BY_DEFAULT) against `mq-deadline`; -msk: the device's max_sectors_kb 1280
(the loop device's) against 128 (a 1 MiB writeback run cut into 8 requests: /sys/block/loopN/stat
counts them, the recordings' `disk.*` metrics).

What the engine predicts (blkdev/elevator.rs header): the host runner's loop device is under
blk-throttle (the stall scenarios' calibrated 200M/150M rules, make_stall_scenarios.py), which
holds bios before the scheduler sees them (`blk_throtl_bio()` in `submit_bio_noacct()`), and the
loop driver takes 128 requests (`hw_queue_depth`): the scheduler has nothing to hold, so none and
mq-deadline give the same figures. A recording that shows no scheduler effect validates that.

Targets: the tasks' elapsed times within 20% (the recordings are taken on a host loaded 5-15 by
other sessions' builds), bytes read and written and the memcgs' levels within 10%.

Run from the repository root: python3 lab/validation/make_queue_scenarios.py
"""
import json
import os

from loop_table import LOOP_READ_BW, LOOP_REQUEST_KEYS, LOOP_WRITE_BW
from scenario_text import MIB, OUT, head

PENDING = os.path.join(os.path.dirname(OUT), "validation-pending")

# the device table: the queue keys are set on the loop device by the runner (real.apply_queue)
# and read back into real.machine.queue. read_ahead_kb is twice max_sectors_kb: 6.18's
# blk_apply_bdi_limits() (6.17's "block: Improve read ahead size for rotational devices") raises
# bdi->ra_pages to 2 * max_sectors on the rotational loop device (no io_opt) when max_sectors_kb is
# written, and the runner wrote it after read_ahead_kb 128 until 8953fa3 (real.set_queue): every
# recording kept here ran with 2560 KiB at max_sectors_kb 1280 and 256 at 128 (the 128 KiB reader's
# windows: 640 and 64 pages in host-queue-read-msk's trace). With 128 KiB (re-recorded 18:54-18:59,
# load 9.5-13.8) the reader's 2048 single 128 KiB windows took 1.5-5.9 s on this loaded host (one
# request in flight): a different experiment, recorded anew as host-queue-read-ra128 (review9 M7),
# where the time is the reader's own wait for a CPU, not the loop worker's (its header).
DEVICE = """# {devwhy}; the queue keys below are
# set on the loop device by the runner (real.apply_queue) and read back into real.machine.queue;
# {rawhy}
[devices.sda]
{device}read_ahead_kb = {ra}
scheduler = "none"
max_sectors_kb = {msk}
"""

RA_WHY = """read_ahead_kb is what 6.18 gives the loop device when max_sectors_kb is written after it
# (blk_apply_bdi_limits(): twice max_sectors_kb), what these recordings ran with"""
RA_SET = """read_ahead_kb is the kernel's default, which the runner writes after max_sectors_kb (real.set_queue,
# since 8953fa3) and read back (real.machine.queue.read_ahead_kb)"""

# the stall scenarios' throttled loop device (make_stall_scenarios.py)
THROTTLED = """read_bw = "200M"
write_bw = "150M"
seek = "60us"
blk_throttle = true
"""

# the loop device unthrottled, its own queue: the host's one loop device table (loop_table.py, as
# make_folio_scenarios.py's; table23, 2026-11-30: was fio's read side of loop-device.md, 3.3 GB/s shared and
# 1.4 GB/s a request alone, at load 1-3; now the idle host's buffered reads' 2.52 / 7.08 GB/s and the 16
# batches drawn; loop21: the write side from the loop device's own write requests traced, 3.50 / 4.12 GB/s at
# load 7.5-16.4, was fio's 3.4 / 3.5; loop23: the idle rounds' 3.76 / 4.63, loop_table.py's rule): the flusher's writes reach the loop device's queue at the host
# disk's pace, so the queue can fill where the scheduler and blk-wbt could act
UNTHROTTLED = (f"read_bw = {LOOP_READ_BW}\nwrite_bw = {LOOP_WRITE_BW}\n" + LOOP_REQUEST_KEYS
               + "complete_together = true\n")

# (metric, rel, abs)
COMPARED = [("elapsed_s", 0.20, 0), ("read_bytes", 0.10, 4 * MIB), ("write_bytes", 0.10, 4 * MIB),
            ("memcg.usage_bytes", 0.10, 4 * MIB), ("memcg.file_bytes", 0.10, 4 * MIB)]

# Recording sets per scenario (real/NAME-runN.json), round-robin, one per hold of the host lock,
# the runner at nice -10 (loadavg at each recording's end in its real.loadavg).
RUNS = {name: [f"real/{name}-run{i}.json" for i in (1, 2, 3)]
        for name in ("host-queue-rw-seq", "host-queue-rw-rand", "host-queue-rw-msk", "host-queue-rw-seq-unthrottled",
                     "host-queue-read-msk", "host-queue-rw-wbt", "host-queue-rw-wbt-unthrottled", "host-queue-read-ra128")}

# The idle sets (made by the lead 2026-11-30 12:18-12:23: /tmp/quiet/hq, round-robin over the seven
# pending scenarios, one recording per hold of the host lock, the runner at nice -10, no helper running:
# loadavg 0.30-1.49 at the recordings' starts, real.loadavg 0.57-1.49 at their ends, the sampler's other
# runnable tasks 0.00-0.71): real/NAME-idle1..3.json.
IDLE_SETS = {name: [f"real/{name}-idle{i}.json" for i in (1, 2, 3)]
             for name in ("host-queue-rw-rand", "host-queue-rw-msk", "host-queue-rw-seq-unthrottled", "host-queue-read-msk",
                          "host-queue-rw-wbt-unthrottled", "host-queue-read-ra128", "host-queue-rw-seq", "host-queue-rw-wbt")}
# Which set a scenario is compared with follows make_folio_scenarios.py QUIET_SETS' rule: the twin models a
# host that runs only the scenario, except where a recording's measured background load is given as input
# (machine.background_runnable and the autogroup keys, from the runner's samples, runq23/autogrp23).
# - A loaded set recorded before the runner sampled the background (rw-msk 2026-11-29 at load 6.7-7.3, the two
#   unthrottled ones at 5.7-6.8) gives the twin no input for that load: where an idle set was recorded, it
#   replaces it (IDLE_COMPARED; the loaded runs stay in real/ as NAME-runN.json, kept and not compared).
#   host-queue-rw-seq and host-queue-rw-wbt (both in PASSING) were recorded before the sampler too; their idle
#   sets were recorded by the lead 2026-11-30 15:18-15:20 on a fresh machine (no helper, no QEMU: loadavg
#   1.01-1.36 at the starts, round-robin rw-seq/rw-wbt, one hold of the host lock each, the runner at
#   nice -10; /tmp/quiet/hq) and replace their loaded sets (review15 L1).
# - A loaded set with the background as input (read-msk, read-ra128, rw-rand: 6-8 root-level entities on the
#   2 CPUs) tests the run-queue wait this issue is about: it stays what NAME is compared with, and the idle
#   set is compared by a twin of the scenario, NAME-idle (IDLE_TWINS), the same tasks with the idle set's
#   samples as input.
IDLE_TWINS = {"host-queue-read-msk", "host-queue-read-ra128", "host-queue-rw-rand"}
IDLE_COMPARED = set(IDLE_SETS) - IDLE_TWINS

# The idle sets of build v669 (idle23d; lab/validation/queue-v669-rule.md, written before any comparison): recorded by
# the lead 2026-12-01 00:10-00:16 UTC on a quiet host before any helper started (6.18.44-fc-v669, the runner at
# nice -10, one run per hold of both locks, round-robin, three rounds; loadavg 0.80-1.35 at every start and end,
# /work/quiet/s49/rec.log; every recording with the runner's host costs). They replace the v782 idle sets of these
# scenarios (IDLE_SETS' real/NAME-idle1..3.json, 2026-11-30 12:18-12:23, 6.18.44-fc-v782, load 0.30-1.49: kept in
# real/, not compared) as the compared set, whatever the outcome (the rule's 1): real/NAME-v669i1..3.json.
V669_SETS = {name: [f"real/{name}-v669i{i}.json" for i in (1, 2, 3)]
             for name in ("host-queue-read-msk", "host-queue-read-ra128", "host-queue-rw-msk", "host-queue-rw-rand",
                          "host-queue-rw-seq-unthrottled", "host-queue-rw-wbt-unthrottled")}


def idle_set(base):
    """The idle set a scenario compares: its v669 set (V669_SETS) where recorded, else IDLE_SETS'."""
    return V669_SETS.get(base) or IDLE_SETS[base]


def recorded_runs(name):
    """The recording set a scenario is compared with: the idle set (idle_set()) of NAME-idle (IDLE_TWINS)
    or of a scenario in IDLE_COMPARED, else RUNS'."""
    if name.endswith("-idle") and name[:-len("-idle")] in IDLE_TWINS:
        return idle_set(name[:-len("-idle")])
    return idle_set(name) if name in IDLE_COMPARED else RUNS.get(name)


def is_idle(name):
    """Whether a scenario is compared with an idle set."""
    return name in IDLE_COMPARED or name.endswith("-idle")


# Why an idle set's sched.run_delay_s (/proc/PID/schedstat) is a known out: the idle scenarios do give the
# engine the background (machine.background_runnable: the sets' samples 0.000-0.607, the medians given
# 0.009-0.494), but the engine's wait is 0 below one background task on the 2 CPUs: sched.rs BusyRq::new
# (and wakeup_runq_wait) takes the share of wake-ups that find no idle CPU as busy = background - (cpus - 1),
# clamped to 0..1, and scales every wait by it. Not the wake-up onto an idle CPU itself (wake23, refuted,
# lab/validation/wakeup-idle-1130/README.md): 6.18 counts it as exactly 0 (kernel/sched/core.c
# ttwu_queue_wakelist() enqueues the wakee on the idle CPU after that CPU left idle, and wakeup_preempt()'s
# rq_clock_skip_update() leaves the clock run_delay was stamped with until the switch-in), measured on this
# host: run_delay per wake-up onto a halted CPU median 0 and p90 0 at 50 us-2 ms sleeps. A switch-in with a
# wait waited behind another entity on its CPU: on the idle host the kworkers of the scenario's own I/O
# (the loop device's worker, blk-throttle's dispatch, the flusher) and the runner's sampler (which of them,
# not traced), none of which the mean-count model placed on the CPUs. kwork23 traced one of them (the loop
# device's kworker taking the reader's CPU, lab/validation/trace-idle-wait-1130, loaded host only) and models
# it (sched.rs loop_worker_wait, machine.loop_worker_run and machine.runner_sampler): a part of the readers' wait.
# kwork23c traced a quiet host (the lead's q1-q3, v669): the loop's kworker at 3.6-7.8% of the reads there (the
# quiet figure LOOP_WORKER_RUN_QUIET for the idle sets), the v782 read sets' pairing of the reader's and the
# kworker's waits not seen on v669, and the writer's waits behind its memcg's vmpressure work (sched.rs
# bound_worker_wait, machine.vmpressure_work_run).
IDLE_WAIT_WHY = ("the idle host's run-queue wait is modelled in part only. Not the wake-up onto an idle CPU, which 6.18 "
                 "counts as 0 (wakeup_preempt()'s rq_clock_skip_update(), ttwu_queue_wakelist(); measured: median and p90 0 "
                 "per wake-up onto a halted CPU, lab/validation/wakeup-idle-1130): waits behind other entities on the task's "
                 "CPU. Traced on a quiet host (kwork23c: the lead's three traced recordings, 2026-11-30 21:11, "
                 "6.18.44-fc-v669, lab/validation/trace-idle-wait-1130 q1-q3 and its README): (1) the sequential reader of "
                 "read-ra128-idle msk-128 waited 5.4 and 6.0 ms over 1098-1184 switch-ins, its wake-ups on its own idle CPU, "
                 "almost all of it behind the loop device's kworker its read woke, which took its CPU at its return to user "
                 "space at 3.6-7.8% of the reads, 24-29 us each (the engine: sched.rs loop_worker_wait, "
                 "machine.loop_worker_run 27 us quiet and 43 us loaded, machine.runner_sampler; with those runs' own inputs "
                 "it gives 6.7 and 7.4 ms); the compared sets are v669's since idle23d (V669_SETS, the lead's quiet recordings of "
                 "2026-12-01 00:10-00:16, queue-v669-rule.md; the v782 sets, where the reader waited 12-15 us at each of "
                 "1541-1577 switch-ins, kept and not compared), where the sequential reader waited 0.7-2.9 ms over 1043-1101 "
                 "switch-ins at read-ra128-idle msk-1280 (the engine 6.1 ms: its loop_worker_wait takes every read's kick as at "
                 "msk-128) and 10.8-13.1 ms over 1183-1247 at msk-128 (engine 5.6 ms), 3.4-5.4 ms and 5.3-18.7 ms at read-msk-idle "
                 "(engine 0.3 and 3.1 ms), 4.1-21.4 ms beside the writer (rw-msk; engine 0.3 ms): what makes msk-1280 and msk-128 "
                 "differ at the same 128 KiB windows was not traced; (2) the v1 memcg writer of rw-seq none (v669, "
                 "as every compared set) was preempted at 253 of its 285 switch-ins by its memcg's vmpressure work "
                 "(mm/vmpressure.c vmpressure() -> schedule_work() on the per-CPU system_wq every 512 pages scanned, the "
                 "kworker bound to its CPU), 11.4 us each: the engine gives that since kwork23c (sched.rs "
                 "bound_worker_wait, kernel.rs vmpressure_tree, machine.vmpressure_work_run 11 us: 4.1-5.1 ms of the idle "
                 "writers' 18-81 ms); (3) the writer's wake-ups from its writeback sleeps (wake23: the lead's quiet "
                 "wakers2.bt traces of rw-msk msk-1280, rw-seq none and rw-wbt wbt-2000, 2026-12-01 03:15-03:16, "
                 "trace-idle-wait-1130/wakers-1201q): 28-41 a run by an unbound kworker (ext4's ext4_end_io_rsv_work "
                 "ending the writeback: folio_end_writeback() waking folio_wait_writeback() and reclaim_throttle()), 25-29 "
                 "of them waiting behind that kworker on its CPU, 9.3-16.5 ms a run (248-473 us median a wait), the "
                 "writer's previous CPU the kworker's at 21-24 and its other CPU never found idle; the engine since wake23 "
                 "(sched.rs end_io_wakee_wait, kernel.rs woken_by_end_io, machine.end_io_work_run 359 us, the work's own "
                 "run in q3) lands the writer there when no other CPU is idle, the mean-count share (0.2-0.3, the "
                 "sampler and the background) where the trace shows about 0.75-0.95: 2.5-3.6 ms of it (why the other CPU "
                 "is busy at those wake-ups, or DELAY_DEQUEUE keeps the writer queued on the kworker's CPU, was not "
                 "traced; sis23: the s51 traces show the other CPU idle at 68 of 165 such landings, 21 of them with the writer's previous "
                 "CPU the idle one, which upstream 6.18's wake_affine_idle() would keep: this host's kernel has a non-upstream "
                 "vcpu_pack_room() placement in fair.c, sched_vcpu_pack=15, not modelled); what s50 took for waits after its "
                 "preemptions (pre23, s51 traces: 17-44 ms of preemption waits by bound kworkers a run, 24-49 ms of run_delay "
                 "in no traced wait) is schedstat's stale clock at a wake-up preemption (PREEMPT_OVER_WHY); not modelled: "
                 "its waits behind the runner's sampler or the reader (1-4 a run, 2-6 ms each), and the reader's beside it (34.5 ms "
                 "behind python3; its wake-ups come from the completion's interrupt onto its own idle CPU: 0 in "
                 "schedstat); the v669 sets' writers waited 40-84 ms over 197-328 switch-ins (158-273 us each; engine "
                 "6.6-7.8 ms with the throttled device). The random reader of rw-rand-idle (2-7 us a switch-in "
                 "over 3961: 8.4-26.9 ms, engine 0) was not traced. The sets' figures: make_queue_scenarios.py V669_SETS, "
                 "IDLE_SETS")


# loop23's trace of the loop device beside the unthrottled writers, the same in both scenarios' notes.
LOOP23_RW = [
    "loop23 also traced the host's loop device serving the reader beside this writer (lab/measurements/loop-rw/,",
    "loop_rw_table.py; three rounds on v669, LOADED 5.5-11.4): vda completed every request in issue order (0 of",
    "4,372 write-then-read pairs out of order), as the engine's one line serves a read behind the writes; the loop",
    "worker's pickup and a write's completion tail (124-615 us after vda: ext4's unwritten-extent conversion), not",
    "modelled (loaded figures), would make the engine's writes later, not earlier. Refuted: the reads behind the",
    "flusher's writes as the writer's miss. The set was recorded on 6.18.44-fc-v782, the write table on v669, where",
    "this writer ALONE took 0.31-0.36 s idle (loop-write-idle, memcg-wbt, blk-wbt on): the miss is likely the",
    "machine build's (untested: no v669 idle set); next, an idle set recorded on v669.",
]

# The unthrottled writers' finding (loop21, wbt23), the same in both scenarios' notes.
WBT23_WRITER = [
    "vmscan.throttled.writeback 451), and the host's blk-wbt let the same writer (alone: the memcg-wbt phase of",
    "lab/measurements/loop_write_trace.py) keep up to 35-48 write requests in flight, 12-29 on average, past",
    "RWB_DEF_DEPTH 16 (blk-wbt's scale-up on windows of writes only): what to look at next, not changed here.",
    "wbt23 (2026-11-30 16:00-16:45; lab/measurements/reclaim_throttle_trace.py, two rounds at load 9.3-9.8: loaded,",
    "not idle): on 6.18 v1 the host's writer does sleep in shrink_inactive_list()'s reclaim_throttle(",
    "VMSCAN_THROTTLE_WRITEBACK) (off-CPU stack reclaim_throttle <- shrink_lruvec <- try_to_free_mem_cgroup_pages),",
    "but 12 times alone (writer 0.64 s) and 23 beside the reader (0.72 s), where the engine's does 451; 458 of the",
    "host's 569 reclaim batches were all clean (mm_vmscan_lru_shrink_inactive nr_dirty 0), nr_congested and",
    "nr_immediate 0 (no folio_wait_writeback): the host's flusher stays ahead of reclaim. blk-wbt's rules on this",
    "path (get_limit, close_io, wbt_rqw_done's wake at 0 in flight with a write cache, calc_wb_limits,",
    "latency_exceeded) agree with the source but one: blk_stat_add() counts a read that completes in a window",
    "whatever its issue time, and the engine dropped the reads issued before the first tracked write armed it, so",
    "its first window saw only reads queued behind writes (min 2.33 ms, over the 2 ms target: scale down to step 1)",
    "where the early ones (1.18 ms) make it LAT_OK (step -1). Fixed (blkdev/wbt.rs Wbt::read).",
]


# Why the recorded runs disagree with the engine, per (variant or None, step, metric).
KNOWN = {}

# What the autogrp23 recording sets' headers share (2026-11-30 03:35-03:40).
AUTOGRP23_SET = [
    "with the sampler in a session of its own, about every 15-23 ms; the host at sched_autogroup_enabled=1, the",
    "runner's session alone in its autogroup: background_own_group 0). The variants' inputs are now the",
    "root-level entities (machine.sched_autogroup, background_entities: kernel::autogroup_stretch), which",
    "move these readers by less than 0.1 ms: their CPU a wake-up (30-160 us) fits the slice they woke with,",
    "so their time is the wake-ups' waits. Traced (lab/validation/trace-runq-wait-1130): the reader's",
    "wake-ups land 128-512 us into the running entity's run, the one picked when it went to sleep, and wait",
    "3.01 ms each, 2-4 ms with no other switch in most: the engine now takes the sleep's length",
    "(sched.rs wakeup_runq_wait_after: the fresh protected slice's run ends uniformly in [1.4, 5.4) ms",
    "after the pick at HZ 250, a 0.3 ms read waits 3.1 ms; 1.155 ms before, whatever the sleep).",
]

# queue23's traces of the readers' wake-ups (2026-11-30 06:21-06:58, lab/validation/trace-wake-preempt-1130).
QUEUE23_WAKE = [
    "lab/validation/trace-wake-preempt-1130, 2026-11-30 06:21-06:58, one recording per hold of the host lock,",
    "loadavg 4.4-14.3, the kernel's own sched_entity/cfs_rq at each wake-up through BTF): the running entity",
    "was still in its protected slice at nearly every wake-up; a wake-up took the CPU at once when that",
    "entity was no longer eligible after the wakee's entry (6.18 __pick_eevdf() drops an ineligible curr",
    "before protect_slice()), and waited to the end of the protected slice (2.5-4.6 ms) when it was. The",
    "wakee's entry lowers avg_vruntime() by its lag's share (place_entity(), PLACE_LAG; its vlag is the same",
    "at the sleep and at the wake-up). The random reader carries 1-8 ms of lag into its sleeps (its runs",
    "are 14 us; with the writer on the other CPU, t9, 77 tasks were woken onto its CPU in its 3964 runs;",
    "with the writer on its CPU, t11, its wake-ups were decided inside its autogroup against the writer);",
    "the sequential reader 0.25-1 ms: the",
    "loop worker its own request wakes onto its CPU (1520 of the 1689 tasks woken there during its runs,",
    "t9) enters with its own lag and takes 0.5-2 ms of the reader's each cycle. Not modelled: the engine",
    "keeps no EEVDF lag per task; it needs the lag gained on the run queue and spent running, clamped by",
    "entity_lag() (slice + TICK_NSEC = 5.4 ms), and the lag the loop worker's wake-ups take (the kworker",
    "enters at that bound, 1547 of 1593 entries in t10, taking 5.4 ms / n), without which a lag model makes",
    "the sequential readers preempt too (they do not); the recipe is in that README.",
]

# eevdf23's answer to queue23's open question and the lag model (2026-11-30 09:23-09:29,
# lab/validation/trace-worker-wake-1130).
EEVDF23 = [
    "eevdf23 (2026-11-30 09:23-09:29, lab/validation/trace-worker-wake-1130, eight recordings, one per hold of",
    "the host lock, loadavg 3.8-9.1, the unbound kworkers' wake-ups traced): the loop worker is woken on its",
    "previous CPU (99.9-100% of the readers' wake-ups of it; select_task_rq_fair(): wake_wide() true, or the",
    "waking CPU already prev_cpu, so no wake_affine(), and select_idle_sibling() keeps prev_cpu with no CPU",
    "idle), so whether it lands on the reader's CPU is where it happens to run: 1-100% of a run's wake-ups,",
    "by run (rw-rand 18, 1, 47, 100%; ra128 52, 31, 100, 100%). Modelled (sched.rs BusyRq, Kernel::eevdf_lag):",
    "each task's lag, + wait / (m + 1) queued and - c m / (m + 1) running (m root-level entities on its",
    "CPU), clamped at its sleep (update_entity_lag(), 5.4 ms), placed with PLACE_LAG at its wake-up, the",
    "running entity (lag (m - 1) R / 2m at its pick, R = slice + TICK / 2) dropped by __pick_eevdf() when",
    "the wakee's entry makes it ineligible; each read plug on the loop device takes 5.4 ms / (m + 1) / 2",
    "(the worker's prev_cpu as either CPU alike: the expectation over runs).",
]

# queue23 (2026-11-30 afternoon): DELAY_DEQUEUE and DELAY_ZERO modelled (6.12+, KernelProfile::delay_dequeue,
# sched.rs BusyRq::delayed_lag). What it moved on the loaded sets, and the refuted hypothesis.
DELAY23 = [
    "queue23 (2026-11-30 12:40, engine with DELAY_DEQUEUE/DELAY_ZERO, 6.12's 152e11f6df29 and 54a58a787791:",
    "a sleeper with negative lag stays queued, its lag growing by slept / (m + 1), and wakes with min(0, that),",
    "0 once picked; sched.rs BusyRq::delayed_lag). Refuted as what these readers wait on (do not try it",
    "again): it moves none of the host-queue figures by 0.01% (read-msk msk-128 1.4158 s and read-ra128",
    "msk-1280 2.8336 s as before; rw-rand's reader wait 10.9634 -> 10.9631 s under none, 10.9530 -> 10.9531",
    "s under mq-deadline), as the traces said (queue23's t1-t11: the reader a delayed entity at 0-6% of its",
    "wake-ups). Against the idle set (IDLE_SETS, the twin NAME-idle) the readers' waits vanish (12-71 us a",
    "switch-in for the sequential readers, 0-1 us for the random one): the 2-4 ms a switch-in of the loaded",
    "sets is the other sessions' load, which the engine takes as a mean count (BusyRq), not what it does.",
]

# The comparison with the v669 sets (idle23d, queue-v669-rule.md; `memtwin validate --recorded`, engine at e2dd1cd1; the
# rule's 3 by lab/validation/check_queue_v669.py: boot seed blocks 6, 12, 18 and the host costs' three groups scaled
# 0.97-1.03), prepended to each scenario's notes.
V669_HEAD = ("Compared since idle23d (2026-12-01) with the v669 idle set (V669_SETS: real/NAME-v669i1..3.json, the lead's quiet "
             "recordings of 2026-12-01 00:10-00:16 UTC, 6.18.44-fc-v669, load 0.80-1.35 at every start and end, with the "
             "runner's host costs; lab/validation/queue-v669-rule.md, written before the comparison). Kept in real/, not "
             "compared: the v782 idle set (real/NAME-idle1..3.json, 2026-11-30 12:18-12:23, 6.18.44-fc-v782, load 0.30-1.49).")
V669_RESULT = {
    "host-queue-read-msk-idle": [
        "Against it: msk-1280 1.2284-1.2287 s (engine 1.2097 s, -1.5% on the medians), msk-128 1.2186-1.2200 s (engine",
        "1.2107 s, -0.7%), every other metric within too, and robust (within at the seed blocks and every scaling);",
        "sched.run_delay_s known out (IDLE_WAIT_WHY): msk-1280 3.4-5.4 ms over 82-91 switch-ins (engine 0.30 ms, -94.4%),",
        "msk-128 5.3-18.7 ms over 602-716 (engine 3.1 ms, -70.9%). In scenarios/validation-pending since review50 M1",
        "(fix50, 2026-12-01), by queue-v669-rule.md 4 as written, whatever the outcome: msk-1280's wait (40-66 us a",
        "switch-in: 5.31/91, 5.43/82, 3.42/86 ms/switch-ins) is an engine UNDER that no trace covers. The only traces of",
        "a reader's wait (trace-idle-wait-1130 q1, q2) are of read-ra128-idle at msk-128 (the loop device's kworker at",
        "the reader's return to user, 24-29 us each, at 3.6-7.8% of its reads, over 1098-1184 switch-ins); this reader",
        "(the default readahead, 82-91 switch-ins for 2048 reads) was not traced at either msk, and the traced cause",
        "does not give 40-66 us a switch-in, so its known out has no measured cause. msk-128's (8-26 us a switch-in)",
        "is not covered by a trace of this scenario either.",
    ],
    "host-queue-read-ra128-idle": [
        "Against it: msk-1280 1.2196-1.2232 s (engine 1.2119 s, -0.9%), msk-128 1.2207-1.2217 s (engine 1.2117 s, -0.8%),",
        "every other metric within too, and robust; sched.run_delay_s known out (IDLE_WAIT_WHY): msk-1280 0.66-2.9 ms",
        "over 1043-1101 switch-ins (engine 6.1 ms, +282%: the engine over), msk-128 10.8-13.1 ms over 1183-1247 (engine",
        "5.6 ms, -56.9%). In scenarios/validation-pending since review50 M1 (fix50, 2026-12-01), by queue-v669-rule.md 4",
        "as written: msk-1280's known out has no measured cause. IDLE_WAIT_WHY's traced cause (q1, q2: the loop",
        "device's kworker taking the reader's CPU at its return to user, 24-29 us each) explains an engine UNDER at",
        "msk-128; at msk-1280 the engine is OVER (6.144 ms against 1.609 ms, the median) and not traced: the msk-1280",
        "reader waits 1-3 us a switch-in (0.66/1048, 2.93/1101, 1.61/1043 ms/switch-ins) where the msk-128 reader waits",
        "9-11 us (13.14/1247, 10.82/1210, 12.89/1183) at the same 2048 single 128 KiB windows, and the engine's",
        "loop_worker_wait takes every read's kick as at msk-128. What takes the msk-1280 reader's CPU less often",
        "at the same windows was not traced.",
    ],
    "host-queue-rw-msk": [
        "Against it: msk-1280 reader 1.2286-1.2312 s (engine 1.2098 s, -1.5%), writer 3.0379-3.0383 s (engine 3.0163 s,",
        "-0.7%); msk-128 reader 1.2187-1.2202 s (engine 1.2114 s, -0.6%), writer 3.0437-3.0683 s (engine 3.0162 s, -1.1%);",
        "every other metric within too, and robust. sched.run_delay_s known out (IDLE_WAIT_WHY): reader 8.8-17.2 and",
        "4.1-21.4 ms (engine 0.32 ms, -97.5% and -98.1%), writer 47.0-59.2 and 40.1-55.0 ms over 253-291 switch-ins",
        "(engine 4.2 ms, -92.7% and -91.7%; since wake23's machine.end_io_work_run 7.1 and 7.3 ms, -87.6% and -85.6%).",
        "Stays in scenarios/validation.",
    ],
    "host-queue-rw-rand-idle": [
        "Against it: the reader within, none 0.2847-0.4909 s (engine 0.3522 s, +9.8%), mq-deadline 0.3450-0.3961 s (engine",
        "0.3417 s, -12.5%): the v782 set's +142/+154% (0.13-0.14 s, 32-34 us a read) is gone; on v669 the idle host's",
        "random reader takes 70-120 us a read, around the engine's 83-86 us (its calibrated 60 us seek; not changed).",
        "The writer within (3.0619-3.0682 s and",
        "3.0386-3.0635 s, engine 3.0162 s, -1.7% and -1.5%); every metric but sched.run_delay_s within and robust.",
        "sched.run_delay_s known out (IDLE_WAIT_WHY): reader 8.4-26.9 and 9.9-14.4 ms over 3961 switch-ins (engine 0),",
        "writer 47.0-75.6 and 56.2-72.1 ms (engine 4.1 ms, -93.7% and -93.6%; since wake23's machine.end_io_work_run 6.6",
        "and 6.8 ms, -89.8% and -89.2%). Stays pending (queue-v669-rule.md 5): the",
        "random reader's wait (2-7 us a switch-in) was never traced, so its known out has no measured cause.",
    ],
    "host-queue-rw-seq-unthrottled": [
        "Against it: the reader within (none 0.4068-0.4613 s, engine 0.3508 s, -16.6%; mq-deadline 0.3378-0.4961 s, engine",
        "0.3225 s, -18.1%, out at -20.0% with the device windows scaled by 0.97: a draw), the writer OUT: none",
        "0.2715-0.3436 s (engine 0.5005 s, +54.9%), mq-deadline 0.3081-0.4167 s (engine 0.4745 s, +29.1%), out at every",
        "seed block and scaling. The v669 host's writer takes 0.27-0.42 s where v782's took 0.16-0.17 s (LOOP23_RW's",
        "'likely the machine build's' holds in part: +111.6/+96.3% against v782, +54.9/+29.1% against v669).",
        "sched.run_delay_s known out (IDLE_WAIT_WHY). Still pending. wake23 (machine.end_io_work_run): the writer's",
        "sched.run_delay_s (validate's engine median) 5.0 -> 94.9 and 5.0 -> 103.1 ms against 57.8 and 55.3 (OUT the other",
        "way, +64.3% and +86.5%): the engine's unthrottled writer sleeps in reclaim_throttle() about 451 times, the",
        "host's 12-23 (host-queue-rw-wbt-unthrottled's note), each woken by the completion's work.",
    ],
    "host-queue-rw-wbt-unthrottled": [
        "Against it: blk-wbt at 2 ms: reader within (0.3508-0.4228 s, engine 0.3222 s, -10.0%), writer OUT (0.3237-0.4140 s,",
        "engine 0.4485 s, +31.4%); off: writer OUT (0.3126-0.3260 s, engine 0.1875 s, -41.8%), reader within",
        "(0.3652-0.4442 s, engine 0.4720 s, +9.1%); both outs at every seed block and scaling. On v669 the host's writer",
        "takes about the same with blk-wbt and without (medians 0.341 and 0.322 s), where the engine's blk-wbt holds it",
        "to 0.45 s and without it writes in 0.19 s. sched.run_delay_s known out (IDLE_WAIT_WHY). Still pending.",
        "wake23 (machine.end_io_work_run, sched.rs end_io_wakee_wait): the writer's sched.run_delay_s (validate's engine",
        "median) 5.0 -> 92.7 ms (wbt-2000, +85.5% against 50.0 ms) and 5.1 -> 35.2 ms (wbt-0, -15.3% against 41.5 ms: WITHIN, "
        "its known out dropped as validate requires, WAIT_WITHIN). Not evidence: the engine's unthrottled writer sleeps in",
        "reclaim_throttle() about 451 times where the host's sleeps 12-23 (the note above), each woken by the completion's",
        "work, and lands behind it at the mean-count share (0.27) where the traced throttled writers land there at about",
        "0.75-0.95 of their wake-ups: two errors of opposite sign.",
    ],
}

# Known outs of IDLE_WAIT_WHY that validate finds within (it refuses a known out that is within), with why the
# agreement is not taken as evidence (written in the scenario's notes).
WAIT_WITHIN = {("host-queue-rw-wbt-unthrottled", "wbt-0", "write", "sched.run_delay_s")}
# The unthrottled writers whose engine run_delay is OVER the recording since wake23 (review51 M1): their known out
# has its own cause, not IDLE_WAIT_WHY's "modelled in part only" (a wait too low).
WAIT_OVER_WHY = ("the engine's writer waits MORE than the host's since wake23 (sched.rs end_io_wakee_wait, "
                 "machine.end_io_work_run): the engine's unthrottled writer sleeps in reclaim_throttle() about 451 times "
                 "where the host's sleeps 12-23 (this scenario's note), and each of those sleeps is woken by the write "
                 "completion's work and may wait behind it; the throttles are the error, the wait per wake-up is the model's "
                 "(the throttled writers of rw-msk, rw-seq and rw-wbt are under it). Not yet found: why the engine's "
                 "unthrottled writer throttles about 20-35 times as often as the host's")
WAIT_OVER = {("host-queue-rw-seq-unthrottled", "none", "write", "sched.run_delay_s"),
             ("host-queue-rw-seq-unthrottled", "mq-deadline", "write", "sched.run_delay_s"),
             ("host-queue-rw-wbt-unthrottled", "wbt-2000", "write", "sched.run_delay_s")}


# What the recordings showed, per scenario: {name: header lines}.
NOTES = {
    "host-queue-rw-seq": [
        "Recorded 2026-11-29 16:08-16:11 (loadavg 13.6-15.2 at the recordings' ends: other sessions'",
        "builds), the queue read back in every run: scheduler none (nr_requests 128) or mq-deadline",
        "(nr_requests 256), wbt_lat_usec 2000 (blk-wbt on, 2 ms: the loop device's default), max_sectors_kb",
        "1280, rotational 1, hw_queue_depth 128. No scheduler effect, as the engine predicts (blkdev/elevator.rs:",
        "blk-throttle holds the bios before the scheduler, the loop driver takes 128): reader 1.231-1.265 s",
        "under none, 1.234-1.264 s under mq-deadline (engine 1.211 s both); writer 3.064-3.116 s and",
        "3.064-3.397 s (engine 3.016 s). Requests: 208 reads of 1.23 MiB on average (the reader's 128 KiB",
        "windows held by blk-throttle and merged up to max_sectors_kb as they are released), ~410 writes of",
        "1.1 MiB in the writer's window, in both variants.",
    ],
    "host-queue-rw-rand": [
        *DELAY23,
        "Re-recorded 2026-11-30 03:37-03:40 (loadavg 13.7-17.9 at the ends; autogrp23: the runner groups the other runnable tasks by autogroup",
        *AUTOGRP23_SET,
        "Recorded (the engine's figures sleep-blind): none's reader 3.947, 5.956 and 2.024 s (engine 5.403 s,",
        "+37%), run-queue wait 2.981, 4.555 and 1.398 s over 3961-3964 switch-ins (0.35-1.15 ms each; engine 4.574",
        "s, 3960 x 1.155 ms, +53%) at 7.1-8.1 entities; mq-deadline 18.664, 16.942 and 6.251 s (engine 5.473 s,",
        "-68%), 17.10, 14.91 and 4.97 s of wait (1.25-4.31 ms each) at 6.6-8.2 entities. The writer within (3.06-",
        "3.14 s; engine 3.046 s), its waits 0.29-0.56 s (engine 0.27-0.28 s, none's median -29%). A set taken",
        "just before with the sampler starved (03:21-03:28, discarded for that) had none's reader at 0.531-0.690 s,",
        "0.05-0.06 ms a switch-in, at 5-6 entities: a woken random reader sometimes waits almost nothing beside",
        "the same count. With the sleep's length (wakeup_runq_wait_after) the engine's reader takes 13.53 s in",
        "both variants, 12.70 and 12.63 s of it waiting: mq-deadline within on the wait (-15.3%), its elapsed",
        "-20.1% (out by 0.1%); none +243% (the kernel's none readers waited 0.35-1.15 ms a wake-up, a third of",
        "mq-deadline's 1.25-4.31 ms at the same count: what differs, not traced). The writer's wait: none",
        "-25.5% (out; by task and a sleep-blind wait it was -11.1%), mq-deadline -3.2%. Traced under none",
        "(lab/validation/trace-runq-wait-1130, third trace, load 9.7): 3572 of 3963 wake-ups came 16-32 us",
        "after the reader slept and 3478 took the CPU within 2 us from the CPU-bound entity picked at the",
        "sleep (never idle): a wake-up tens of microseconds after the sleep is not held by that entity's",
        "protected slice, one hundreds of microseconds after is (the sequential readers). Why (queue23,",
        *QUEUE23_WAKE,
        "The random reader takes the first: at 95-98% of its wake-ups under 64 us",
        "(t7-t9) the running entity was ineligible and it took the CPU in 14-77 us on average; at its 64 us-1 ms",
        "wake-ups 15-60%. The engine gives every wake-up the second (+243% on none). Refuted:",
        "DELAY_DEQUEUE (the reader a delayed entity at 0-6% of its wake-ups). Not the whole cause: the writer",
        "W (the reader's own autogroup sibling) running at the wake-up (find_matching_se() compares inside the",
        "group, where W has lag 0): the way of 95-97% of the short wake-ups in t1, t3, t7 and t11, under 2% in",
        "t2, t4, t5, t8 and t9 (W on the other CPU), the same waits in both. Under mq-deadline traced once (t2, load 5.1-5.5): the",
        "same as none; the recorded mq-deadline waits (1.25-4.31 ms at load 13-18) not explained. Still pending.",
        *EEVDF23,
        "With it the reader's wait is 10.96 s in both variants (was 12.70 and 12.63 s): none +268% (out),",
        "mq-deadline -26.5% (out; within at -15.3% before), elapsed +199% and -30.0%; the writer's wait as",
        "before (none -25.6%, out). The engine's expectation lies between the recorded sets (none 1.40-4.55 s,",
        "mq-deadline 4.97-17.10 s of wait), which fit runs whose worker sat off or on the reader's CPU (traced at",
        "load 4-8: 0.024 s of wait with the worker on its CPU at 1% of its wake-ups, 1.271 s at 18%; but 0.145 s",
        "at 100% in w4, not explained: the writer sharing its CPU, t11's find_matching_se() path, would fit, not",
        "traced there). What the engine lacks: where the worker runs within a run (the load balancer's moves, not",
        "modelled) and the autogroup sibling's path. Still pending.",
        "The set before (2026-11-30 01:07-01:09, replaced):",
        "Re-recorded 2026-11-30 01:07-01:09 (runq23: the run-queue samples; one per hold of the host lock,",
        "the runner at nice -10, loadavg 12.0-13.5): 10.7-14.4 others runnable on the 2 CPUs, none idle",
        "(background_all_busy 1.0). The reader's time is its wait for a CPU: none 1.057, 7.495 and 14.052 s",
        "with 0.61, 6.15 and 12.61 s of run-queue wait (3961-3965 switch-ins, 0.15-3.18 ms each), mq-deadline",
        "2.588, 0.786 and 5.000 s with 1.61, 0.50 and 3.47 s (0.13-0.87 ms each): elapsed minus the wait",
        "0.29-1.53 s. The scheduler order is noise (this set's medians 7.50 s none, 2.59 s mq-deadline, the",
        "reverse of the set before). The engine with the variants' machine.background_runnable: 5.42 and 5.51 s,",
        "4.57 s of it the reader's 3960 wake-ups at 1.155 ms (sched.rs wakeup_runq_wait), against run-queue",
        "medians of 6.15 s (none, -26%) and 1.61 s (mq-deadline, +184%); the writer's 0.32 and 0.29 s against",
        "0.38 and 0.32 s (-15%, -11%, within tolerance). The mechanism is the cause's, but the reader's wait a",
        "wake-up varies 25-fold at the same background count (what the other tasks do sets it: not",
        "recorded). Still pending.",
        "The set before (2026-11-29, replaced):",
        "Pending: the host's random reads take 3.5-56 times the engine's. Recorded 2026-11-29 16:14-16:16",
        "(loadavg 12.5-14.6), the reader started 500 ms after the writer (a first set started together,",
        "16:08-16:11, raced the writeback's start: 0.46 s when its reads ran before it, 64 writes in their",
        "window, 4.6-13 s beside it). The 4096 reads take 1.06, 4.57 and 5.20 s under none and 7.96, 16.26",
        "and 17.06 s under mq-deadline (engine 0.306 s in both: 75 us a read, its throttled device gives",
        "reads their own budget); the writer 3.07-3.28 s (engine 3.016). The loop device's time per read",
        "(disk read_ticks_ms / read_ios) is 0.13-0.97 ms, and the reads stay slow after the writer's step",
        "ends (mq-deadline run 3: 481 reads in the writer's window, the other 3481 in 14 s, 4 ms each,",
        "with no write left). host-ext4-rand-4k-normal's recording (16000 random 4 KiB reads alone, the",
        "same loop device) took 22.5 s, 1.4 ms a read: this loaded host's random reads are slow without",
        "a writer too, and where the time goes between the device's completion and the next read was not",
        "traced (this kernel has no kprobes; the syscall tracepoints need tracefs mounted). The scheduler",
        "difference (medians 4.57 s none, 16.26 s mq-deadline) is inside that spread: not a finding. What",
        "is needed first: the host's random-read latency alone, at a quiet time, and a trace of the",
        "reader's off-CPU time.",
    ],
    "host-queue-rw-msk": [
        "Compared with the idle set (IDLE_SETS; IDLE_COMPARED: the loaded sets below were recorded before the",
        "runner sampled the background, so the twin has no input for their load): every recording within on",
        "every metric but sched.run_delay_s (known out: IDLE_WAIT_WHY). msk-1280: reader 1.2153-1.2218 s",
        "(engine 1.2092 s, -0.7% on the medians), writer 3.0330-3.0617 s (engine 3.0163 s, -0.6%); msk-128:",
        "reader 1.2160-1.2164 s (engine 1.2101 s, -0.5%), writer 3.0424-3.0601 s (engine 3.0162 s, -1.4%).",
        "In scenarios/validation/ (queue23, 2026-11-30). What follows: the loaded sets, kept in",
        "validation-pending/real/ and not compared.",
        "Recorded 2026-11-29 18:35-18:38 on a quieter host (loadavg 6.7-7.3 at the recordings' ends, most of",
        "it this session's own fio runs just before; other helpers' builds at nice 19 and a QEMU guest were",
        "starting). msk-1280: reader 1.229-1.241 s (engine 1.211), 208 read requests of 1.23 MiB, ~409 writes",
        "in the writer's window; msk-128: 2048 read requests of 128 KiB (0.42-0.70 ms each on the loop",
        "device, disk.read_ticks_ms / read_ios), 3680-3711 writes, reader 1.250-1.326 s (engine 1.211 s,",
        "-8.0% on the medians), writer 3.049-3.256 s (engine 3.016). PENDING (review9 M1): the reader alone",
        "(host-queue-read-msk), recorded between these runs at the same load (18:36-18:37, 7.05-7.25), took",
        "1.380-1.964 s at msk-128 (engine 1.21 s, -24.8%), so max_sectors_kb 128 does slow a reader at this",
        "load, through the reader's own wait for a CPU (read-msk's header; the loop worker's, refuted); this set's pass rests on the",
        "load it happened to have. The first set (16:09-16:11, loadavg 13.2-15.4: reader 1.783-1.968 s at",
        "msk-128, -37.4%) showed the same. Refuted (do not model",
        "it): a per-request time of the loop device below blk-throttle, shared by reads and writes, bounding",
        "this reader: fio on the same device (lab/validation/loop-device.md, 'Reads and writes together',",
        "2026-11-29 18:34-18:36) read at 195-196 MB/s under the 200M/150M rules at max_sectors_kb 128 and",
        "1280, both schedulers, with 1 MiB O_DIRECT writes at 151 MB/s beside it.",
        "pend23 (2026-11-30, main 717ad9c): still within on every metric (msk-128 reader 1.2095 s against the",
        "medians' 1.316, -8.1%; writer -2.3%; msk-1280 within too), as it has been since this set was recorded",
        "(ece60e6, 2026-11-29 18:46: -8.0%): no merged change brought it within, its engine figures moved by",
        "0.002 s. The twin's reader waits for no CPU here (these recordings have no procs_running samples, so",
        "no machine.background_runnable), and the reader alone (host-queue-read-msk, re-recorded with them) is",
        "still out at msk-128 (elapsed -39.2%, sched.run_delay_s -33.2% on the medians): M1 stands, pending.",
    ],
    "host-queue-read-msk-idle": [
        "The twin of host-queue-read-msk compared with its idle set (IDLE_TWINS: that scenario keeps its loaded",
        "set, whose background is an input). Every recording within on every metric but sched.run_delay_s (known",
        "out: IDLE_WAIT_WHY): msk-1280 1.2165-1.2173 s (engine 1.2091 s, -0.7% on the medians), msk-128",
        "1.2157-1.2165 s (engine 1.2099 s, -0.5%): on an idle host the reader reads at the 200M rule, and",
        "max_sectors_kb 128 does not slow it (review9 M1's miss is the load). In scenarios/validation/ (queue23).",
        *DELAY23,
    ],
    "host-queue-read-ra128-idle": [
        "The twin of host-queue-read-ra128 compared with its idle set (IDLE_TWINS). Every recording within on every",
        "metric but sched.run_delay_s (known out: IDLE_WAIT_WHY): msk-1280 1.2171-1.2174 s (engine 1.2109 s,",
        "-0.5%), msk-128 1.2164-1.2175 s (engine 1.2110 s, -0.6%): the 2048 single 128 KiB windows at the 200M",
        "rule, 20-24 ms of run-queue wait over 1541-1577 switch-ins. In scenarios/validation/ (queue23).",
        *DELAY23,
    ],
    "host-queue-rw-rand-idle": [
        "The twin of host-queue-rw-rand compared with its idle set (IDLE_TWINS). The writer within (none",
        "3.0286-3.0562 s, engine 3.0162 s, -0.4%; mq-deadline 3.0282-3.0606 s, -1.3%); the random reader OUT:",
        "0.1325-0.1397 s and 0.1300-0.1328 s for its 4096 reads (32-34 us a read, 0-5 ms of run-queue wait over",
        "3960 switch-ins), the engine's 0.3336 and 0.3307 s (+142%, +154%; 81 us a read: the throttled device's",
        "seek of 60 us, make_stall_scenarios.py's calibration at load, above what the idle host's loop device",
        "takes for a 4 KiB read). Not a scheduler figure; the device's constant is the stall scenarios' and is",
        "not changed here for one scenario. sched.run_delay_s known out (IDLE_WAIT_WHY). Pending.",
        "loop21 (2026-11-30 15:30-16:05): the 60 us is `memtwin calibrate --throttle 200M,150M`'s 4 KiB O_DIRECT random",
        "read p50 at load (80 us, 2026-11-28) less 4 KiB at the 200M rule (calibrate.py _figures(): seek_ns = p50 -",
        "4096 / read_bw), and the throttled device pays it alone (blkdev/mod.rs BlockDevice::submit_own: no transfer",
        "under blk-throttle, the loop worker's run + seek). The kernel's path for the reader's miss (6.18",
        "page_cache_sync_ra(): a random read reads its one page) is one 4 KiB loop request: loop_queue_rq() -> the",
        "loop worker -> lo_rw_aio() as direct I/O on the backing file (IOCB_DIRECT: no page cache of the backing",
        "file, no hit there) -> one 4 KiB vda read. Traced with this reader's pattern (lab/measurements/",
        "loop_write_trace.py `rand`, 4096 random pread()s of a cold 256M file, eight rounds at load 7.5-16.4): loop",
        "request p50 54-94 us, vda beneath 34-63 us, pread() p50 79-133 us: the calibration's at-load figure holds",
        "at load. The idle host's was not measured (no idle window this session); this idle set's 32-34 us a",
        "pread() bounds it from above (vda's p50 alone was 34-50 us at load 7.5-10.1), and the engine's read without",
        "the seek takes 23.4 us (seek 0: 0.0960 s for 4096 reads), so the idle loop device's 4 KiB read would have",
        "to be near 10 us in the engine's terms: to be measured idle (loop_write_trace.py alone on the host), not",
        "set from this bound. Still pending.",
        *DELAY23,
    ],
    "host-queue-rw-wbt": [
        "Recorded 2026-11-29 17:15-17:17 (loadavg 11.3-11.5) with the runner and an engine of h-rec23h with",
        "h-wbt24 (fde0aae) merged, the queue read back: wbt_lat_usec 2000 or 0, scheduler none. No blk-wbt",
        "effect on the throttled loop device, and none in the engine's blk-wbt either (why the host's has",
        "none was not traced): reader 1.227-1.596 s with blk-wbt at 2 ms, 1.237-1.382 s off (engine",
        "1.211 s both); writer 3.097-3.119 s and 3.121-3.153 s (engine 3.016 s both).",
        "What this scenario cannot test (review8 L8): the engine turns blk-wbt off under blk_throttle",
        "(blkdev/wbt.rs wbt_on(): the held bios reach blk-wbt from blk-throttle's dispatch, not from the",
        "flusher), so its two variants give the same engine output; it guards that absence only, not",
        "blk-wbt's limits or wake rule.",
    ],
    "host-queue-rw-wbt-unthrottled": [
        "Compared with the idle set (IDLE_COMPARED, 2026-11-30 12:20-12:24, load 1.1-1.5): blk-wbt at 2 ms:",
        "reader within (0.2198-0.2535 s, engine 0.2358 s, -5.4%), writer OUT (0.1585-0.1725 s, engine 0.3733 s,",
        "+123%); off: writer within (0.2197-0.2401 s, engine 0.1827 s, -19.3%), reader OUT (0.2155-0.2492 s,",
        "engine 0.3585 s, +50%). The host's writer is faster with blk-wbt than without; the engine's twice as",
        "slow with it (blkdev/wbt.rs: its limits on this device, not traced). sched.run_delay_s known out",
        "(IDLE_WAIT_WHY). Still pending.",
        "table23 (2026-11-30): on the host's one loop device table (loop_table.py: read side 2.52 GB/s shared in",
        "16 batch draws and 7.08 GB/s a request alone, was fio's 3.3/1.4) every figure of the idle set's",
        "comparison moved by at most 0.1 ms (each recording's own device window sets the shared read bandwidth,",
        "and a request alone at 1.4 or 7.08 GB/s did not set the reader's time): the write side is what it misses on.",
        "loop21 (2026-11-30 15:30-16:05): the table's write side, traced (loop_table.py,",
        "lab/measurements/loop_write_table.py: queue_write_bw 3.4 -> 3.50 GB/s, request_write_bw 3.5 -> 4.12 GB/s,",
        "from eight rounds at load 7.5-16.4, not idle). Against the idle set: blk-wbt at 2 ms writer +123.1 ->",
        "+118.3%, reader -5.4 -> -5.9%; off: writer -19.3 -> -21.1% (OUT: the engine's writer without blk-wbt was",
        "already faster than the host's, 0.7 points inside; the shared write rate +3% takes it out; with 3.31 GB/s,",
        "three rounds, it was -17.6%), reader +50.0 -> +48.1%. The device's write rate moves the writer by a few",
        "points of its 120: in the engine it sleeps in reclaim's writeback throttle (`memtwin run --variant wbt-2000`",
        "of host-queue-rw-wbt-unthrottled: stall.congestion_ms 186.5 of the writer's 0.275 s,",
        *WBT23_WRITER,
        "Against the idle set: blk-wbt at 2 ms writer +118.3 -> +103.6%, reader -5.9 -> +7.5%; off unchanged.",
        "Left: in the engine the reader's reads take 2.3-3.6 ms behind the flusher's 4 writes (wb_background, close_io)",
        "and a flusher cycle (4 MiB, drained to 0 in flight) 3.5 ms against 1.4 ms alone; on the host (loaded) the",
        "smallest read latency of each window was 1.1-1.3 ms with writes in flight and the monitor scaled up three",
        "windows running beside the reader (wbt_step -1, -2, -3): how the loop device serves reads beside writes",
        "(blkdev/, not blk-wbt) is where the rest of the writer's miss is. Not changed here.",
        "loop23 (2026-11-30): the table's write side from the idle rounds only (loop_table.py's rule; 3.50 -> 3.76 GB/s",
        "shared, 4.12 -> 4.63 a request alone). Against the idle set: blk-wbt at 2 ms writer +103.6 -> +97.5%, reader",
        "+7.5 -> +5.3%; off: writer -21.1 -> -25.2% (OUT), reader +48.1 -> +43.7% (OUT). No row changed status.",
        *LOOP23_RW,
        "The loaded set (kept in validation-pending/real/, not compared):",
        "Pending: the host disk's write bandwidth (as host-queue-rw-seq-unthrottled). Re-recorded 2026-11-29",
        "18:37-18:39 (loadavg 5.7-6.8; the first set 17:15-17:17 at 11.2-11.6). blk-wbt at 2 ms: reader",
        "0.348-0.537 s, writer 0.350-0.593 s; off: reader 0.188-0.677 s, writer 0.446-1.170 s (engine, at",
        "the runs' read_ahead_kb 2560: reader 0.137 s, writer 0.230 s at 2 ms; writer 0.168 s, reader 0.253",
        "s off): the runs' spread still hides any blk-wbt effect, and the engine's writer is 2-4 times too",
        "fast (its device's 3.4 GB/s against the ~1 GB/s the host disk gave fio that evening,",
        "loop-device.md).",
    ],
    "host-queue-read-msk": [
        *DELAY23,
        "What this reader waits on instead (queue23, from the figures below and the idle set): per wake-up the",
        "engine's wait is the kernel's (msk-128: 1.343 s over its 513 sleeps, 2.6 ms each, against 2.4-2.8 ms a",
        "switch-in in the set); what differs is how often it sleeps: 658-825 switch-ins in the loaded set and",
        "836-848 in the idle set (82% of its 1024 windows) against the engine's 513 (the set before's count,",
        "0.59 s = 513 x 1.155 ms when every wake-up waited 1.155 ms; not recounted since: the engine reports no",
        "count of its sleeps). Why the engine's reader sleeps at half its windows where the kernel's sleeps at",
        "most (blk-throttle's dispatch of the windows, the loop device's completions: blkdev) is where to look",
        "next; not traced.",
        "Re-recorded 2026-11-30 03:36-03:40 (loadavg 12.6-18.1 at the ends; autogrp23: the runner groups the other runnable tasks by autogroup",
        *AUTOGRP23_SET,
        "Recorded (the engine's figures sleep-blind): msk-1280 1.241, 1.216 and 1.233 s (engine 1.214 s, -1.5%),",
        "run-queue wait 0.234, 0.149 and 0.408 s over 64-71 switch-ins (2.3-6.1 ms each; engine 0.062 s) at",
        "6.3-8.2 entities (10.5-17.4 tasks); msk-128 2.169, 2.327 and 2.332 s (engine 1.241 s, -46.7%), waits",
        "2.009, 2.076 and 1.862 s over 658-825 switch-ins (2.4-2.8 ms each; engine 0.478 s, -76%) at 6.3-8.1",
        "entities. With the sleep's length: msk-1280 1.220 s (-1.1%), wait 0.145 s (-38.1%); msk-128 1.416 s",
        "(-39.2%), wait 1.343 s (-33.2%; 0.478 s before): the engine's reader sleeps 513 times at msk-128 against",
        "658-825 switch-ins (its windows of 64 pages one ahead, host-queue-read-msk's trace of 2026-11-29), and",
        "a third of the kernel's waits were behind more than the running entity (trace: 31% with 1-10 other",
        "switches first), not modelled. Still pending. Why a woken reader does or does not preempt (queue23,",
        *QUEUE23_WAKE,
        *EEVDF23,
        "This reader's figures do not move with it (msk-1280 1.220 s, msk-128 1.416 s as above): its lag never",
        "makes the running entity ineligible at its wake-ups (it waits, as traced at 88-97%). Still pending (the",
        "waits behind more than the running entity).",
        "The set before (2026-11-30 00:53-00:54, replaced):",
        "Re-recorded 2026-11-30 00:53-00:54 (runq23: the runner samples the machine's other runnable tasks,",
        "real.runnable_sample; round-robin with host-queue-read-ra128, loadavg 14.3-15.4): 13.3-15.1 others",
        "runnable on the 2 CPUs in every run, no CPU ever idle (background_all_busy 1.0), the variants'",
        "machine.background_runnable. msk-1280 1.267, 1.261 and 1.229 s (engine 1.215 s, -3.7%), the reader's",
        "run-queue wait 0.67, 0.29 and 0.26 s over 72-85 switch-ins (3.0-9.2 ms each; engine 0.062 s, -78%);",
        "msk-128 2.511, 2.252 and 1.887 s (engine 1.253 s, -44%), waits 1.81, 2.03 and 1.49 s over 771-912",
        "switch-ins (1.6-2.6 ms each; engine 0.59 s, 513 wake-ups of 1.155 ms, -67%). The engine's wake-up wait",
        "(sched.rs wakeup_runq_wait: EEVDF's protected slice to the tick, 1.155 ms) is below what this reader",
        "waits: at read_ahead_kb 256 and 2560 it sleeps less often than once a window, and a switch-in then",
        "waits longer than one protected slice (behind several entities, not first in line: its lag is not",
        "modelled). Still pending.",
        "The set before (2026-11-29, replaced): the control of",
        "host-queue-rw-msk, the reader alone. Recorded anew 2026-11-29 21:27-21:51 with loopwq23's runner (the",
        "kernel threads' and the task's own run-queue waits recorded), loadavg 7.3-7.4 (run 1), 12.0-12.3 (runs",
        "2, 3): msk-1280 1.225-1.232 s (209 read requests; engine 1.209 s), msk-128 1.436, 2.380 and 1.232 s",
        "(2048 requests of 128 KiB; engine 1.213 s, -15.5% on the medians, within tolerance on this set where",
        "the earlier ones were not: 18:35-18:38 at load 7.1-7.3 gave 1.380, 1.608 and 1.964 s, 16:31-16:32 at",
        "11.8-12.3 1.565-1.840 s). Traced 18:50 (lab/validation/trace_queue_read.py, load 8.5-8.9; msk-128",
        "1.621 s): at read_ahead_kb 256 the reader's windows are 64 pages (one order-6 folio, 1024 windows, one",
        "256 KiB bio split in two requests), one window ahead; the loop device's requests take p50 343 us, p90",
        "4.9 ms from issue to completion, the same requests on vda below p50 257 us, p90 341 us. Measured",
        "(loopwq23, real.machine.kthread_waits): the loop device's work runs on the unbound pool's kworkers",
        "(drivers/block/loop.c 6.18 loop_queue_work(), the WQ_UNBOUND workqueue loopN), whose mean run-queue",
        "wait a wake-up was 21, 253 and 258 us at msk-1280 (95-113 wake-ups) and 10, 57 and 306 us at msk-128",
        "(805-965 wake-ups for 2048 requests: a request queued while the work is pending goes with that run),",
        "the variants' devices.sda.worker_wakeup_latency (blkdev.rs LoopWorker): it moves the engine by +0.6",
        "and +3.9 ms. Refuted: the loop worker's wait for a CPU as what slows this reader (at most 306 us x 956",
        "wake-ups, in the run that took 1.232 s). What does: the reader's own wait for a CPU after its",
        "wake-ups (the step's sched.run_delay_s, /proc/thread-self/schedstat; not in run 1, recorded before",
        "it): 2.12 s of run 2's 2.38 s (797 switch-ins, 2.7 ms each), 0.37 s of run 3's 1.23 s (998); at",
        "msk-1280 0.15 s of 1.23 s (91-95). The engine delays no task woken from its I/O (machine.wakeup_latency",
        "delays kswapd's wake-up only). Needed: that wait as a recorded input (the task's run delay per",
        "switch-in), applied where a task blocked on a folio lock or its read resumes. The completion side",
        "(ksoftirqd, which runs the loop request's BLOCK_SOFTIRQ when deferred) waited 0-0.8 ms a run over",
        "4-47 runs a recording: recorded, not modelled.",
    ],
    "host-queue-read-ra128": [
        *DELAY23,
        "Re-recorded 2026-11-30 03:35-03:40 (loadavg 12.5-17.3 at the ends; autogrp23: the runner groups the other runnable tasks by autogroup",
        *AUTOGRP23_SET,
        "Recorded (the engine's figures sleep-blind): msk-1280 2.535, 3.896 and 4.549 s (engine 1.276 s,",
        "-67%), run-queue wait 1.989, 3.380 and 3.953 s over 1157-1709 switch-ins (1.7-3.2 ms each; engine 0.953",
        "s) at 6.1-8.1 entities; msk-128 3.692, 4.296 and 4.470 s (engine 1.285 s, -70%), waits 3.264, 3.860 and",
        "4.016 s over 1279-1504 switch-ins (2.6-2.7 ms each; engine 1.184 s) at 6.1-8.0 entities. With the",
        "sleep's length: msk-128 3.527 s (-17.9%) and 3.449 s of wait (-10.7%), both within; msk-1280 2.834 s",
        "(-27.3%, out) and 2.709 s of wait (-19.9%, within). Still pending (msk-1280's elapsed; the waits behind",
        "more than the running entity, 31% of the traced wake-ups, not modelled). The reader's wake-ups traced",
        "again (queue23, msk-128 seven times at load 8.9-13.8,",
        *QUEUE23_WAKE,
        "This reader's wake-ups after 64 us-1 ms sleeps: the running entity eligible and protected at 88-97%,",
        "waiting 3.6-4.6 ms (the engine's 3.1 ms for a 0.3 ms sleep, wakeup_runq_wait_after), ineligible at 1-10%.",
        *EEVDF23,
        "This reader's figures do not move with it (msk-1280 2.834 s, msk-128 3.527 s as above): its lag never",
        "makes the running entity ineligible at its wake-ups (it waits, as traced). Its waits follow the worker's",
        "CPU (w2, 31% on its CPU: 0.92 s; w3, w4, 100%: 2.74, 3.27 s at load 6-9). Still pending (msk-1280's elapsed).",
        "The set before (2026-11-30 00:52-00:54, replaced):",
        "Re-recorded 2026-11-30 00:52-00:54 (runq23, round-robin with host-queue-read-msk, loadavg",
        "14.2-15.5): 13.4-14.9 others runnable, no CPU ever idle (background_all_busy 1.0), the variants'",
        "machine.background_runnable. msk-1280 2.516, 1.923 and 1.326 s (engine 1.688 s, -12.2%; run 1's loop",
        "device itself was slow, read_ticks 4.06 s), the reader's run-queue wait 0.37, 1.31 and 0.98 s over",
        "1614-1960 switch-ins (0.22-0.81 ms each; engine 1.18 s, 1025 wake-ups of 1.155 ms, +21%); msk-128",
        "1.292, 1.336 and 5.932 s (engine 1.341 s, +0.4%), waits 0.65, 0.62 and 5.41 s over 1370-2004",
        "switch-ins (0.31-3.95 ms each; engine 1.18 s, +81%). The background's count was the same in every",
        "run while the wait a switch-in went from 0.22 to 3.95 ms: the count does not set the wait; what the",
        "other tasks do (CPU-bound or waking often: the running entity's slice left; their autogroups) does,",
        "and the runner does not record it. The engine's reader sleeps half as often as the real one",
        "(1025 wake-ups against 1614-2004 switch-ins; its async readahead window ahead, filemap.rs/readahead.rs)",
        "and its waits overlap the next window's I/O (elapsed +0.13 s for 1.18 s of waits) where the real",
        "reader's add to its time (elapsed about 0.6 s plus the wait in the 2026-11-29 set). Still pending.",
        "The set before (2026-11-29, replaced):",
        "Pending (review9 M7): the reader alone at the kernel's default read_ahead_kb 128, which the runner",
        "writes after max_sectors_kb since 8953fa3 (read back 128 in every run): 2048 windows of 128 KiB,",
        "one request in flight (2040-2048 read requests at both max_sectors_kb). Recorded 2026-11-29",
        "21:50-21:52, round-robin with host-queue-read-msk's third run (loadavg 11.6-12.1): msk-1280 1.390,",
        "1.254 and 2.388 s, msk-128 1.361, 1.270 and 3.240 s (engine 1.218 and 1.215 s with the recorded",
        "worker samples, 1.211 s without: within 20% on the medians, -12.4% and -10.7%, on a spread of",
        "1.25-3.24 s, so the pass is this set's load, not a mechanism). The first set at this read_ahead_kb",
        "(18:54-18:59, load 9.5-13.8, lab/validation/loop-device.md, not kept) read in 1.65-4.06 s. The",
        "unbound kworkers' mean wait 85-225 us over 1749-1998 wake-ups (the variants'",
        "devices.sda.worker_wakeup_latency); the reader's own run-queue wait 0.51, 0.70 and 1.83 s (msk-1280)",
        "and 0.75, 0.60 and 2.68 s (msk-128) over 1702-2002 switch-ins: the slow runs are the reader's wait for",
        "a CPU, which the engine does not model (host-queue-read-msk); the disk's read_ticks were 1.17, 0.63",
        "and 0.69 s (msk-1280) and 0.65, 0.59 and 0.73 s (msk-128), the reads' own time on the loop device",
        "(the run-queue wait overlaps the I/O: elapsed minus it is no split of the time).",
    ],
    "host-queue-rw-seq-unthrottled": [
        "Compared with the idle set (IDLE_COMPARED, 2026-11-30 12:19-12:23, load 1.1-1.4): the reader within",
        "(none 0.2232-0.2393 s, engine 0.2310 s, +2.8%; mq-deadline 0.2284-0.2485 s, engine 0.2362 s, -1.1%), the",
        "writer OUT: 0.1616-0.1657 s and 0.1697-0.1747 s, engine 0.3679 s (+123%) and 0.3811 s (+124%). The",
        "engine's writer is now slower than the host's, where the set below had it faster (0.230 s then): on",
        "this loop device blk-wbt is on (wbt_lat_usec 2000 by default) and host-queue-rw-wbt-unthrottled's idle",
        "set has the host's writer at 0.159-0.173 s with it and 0.220-0.240 s without, the engine's at 0.373 and",
        "0.183 s: the engine's blk-wbt holds this writer back where the host's does not (blkdev/wbt.rs, not",
        "this scenario's mechanism; not traced). sched.run_delay_s known out (IDLE_WAIT_WHY). Still pending.",
        "table23 (2026-11-30): on the host's one loop device table (loop_table.py: read side 2.52 GB/s shared in",
        "16 batch draws and 7.08 GB/s a request alone, was fio's 3.3/1.4) every figure of the idle set's",
        "comparison moved by at most 0.1 ms (each recording's own device window sets the shared read bandwidth,",
        "and a request alone at 1.4 or 7.08 GB/s did not set the reader's time): the write side is what it misses on.",
        "loop21 (2026-11-30 15:30-16:05): the table's write side, traced (loop_table.py,",
        "lab/measurements/loop_write_table.py: queue_write_bw 3.4 -> 3.50 GB/s, request_write_bw 3.5 -> 4.12 GB/s,",
        "from eight rounds at load 7.5-16.4, not idle). Against the idle set: writer +123.0 -> +118.0% (none), +124.3",
        "-> +120.0% (mq-deadline); reader +2.8 -> +7.9%, -1.1 -> -1.5%. The device's write rate moves the writer by a",
        "few points of its 120: in the engine it sleeps in reclaim's writeback throttle (`memtwin run --variant",
        "wbt-2000` of host-queue-rw-wbt-unthrottled: stall.congestion_ms 186.5 of the writer's 0.275 s,",
        *WBT23_WRITER,
        "Against the idle set: writer +118.0 -> +116.5% (none), +120.0 -> +102.4% (mq-deadline); reader +7.9 -> +9.8%,",
        "-1.5 -> +13.0%.",
        "Left: in the engine the reader's reads take 2.3-3.6 ms behind the flusher's 4 writes (wb_background, close_io)",
        "and a flusher cycle (4 MiB, drained to 0 in flight) 3.5 ms against 1.4 ms alone; on the host (loaded) the",
        "smallest read latency of each window was 1.1-1.3 ms with writes in flight and the monitor scaled up three",
        "windows running beside the reader (wbt_step -1, -2, -3): how the loop device serves reads beside writes",
        "(blkdev/, not blk-wbt) is where the rest of the writer's miss is. Not changed here.",
        "loop23 (2026-11-30): the table's write side from the idle rounds only (loop_table.py's rule; 3.50 -> 3.76 GB/s",
        "shared, 4.12 -> 4.63 a request alone). Against the idle set: writer +116.5 -> +111.6% (none), +102.4 -> +96.3%",
        "(mq-deadline); reader +9.8 -> +14.2%, +13.0 -> +11.3%. No row changed status.",
        *LOOP23_RW,
        "The loaded set (kept in validation-pending/real/, not compared):",
        "Pending: the host disk's write bandwidth, not a queue mechanism. Re-recorded 2026-11-29 18:37-18:39",
        "(loadavg 5.7-6.6; the first set, 16:11-16:13 at 13.1-14.0, had the writer at 0.741-0.971 s and the",
        "reader +40% under mq-deadline): writer 0.350-0.393 s under none, 0.324-0.491 s under mq-deadline;",
        "reader 0.374, 0.443 and 0.941 s under none, 0.329-0.423 s under mq-deadline: the scheduler",
        "difference of the first set is gone (not a finding). The engine, with the read_ahead_kb these",
        "runs had (2560: the device table's comment), reads in 0.137 s and writes in 0.230 s (-61..-69%",
        "and -38..-41% on the medians; with 128 it read in 0.346 s and wrote in 0.165 s). The writer",
        "writes back at ~1.4 GB/s; the engine's device has loop-device.md's 3.4 GB/s (fio, 1 MiB writes,",
        "2026-11-28 at load 1-3). The same fio on the same setup gave 0.95-1.5 GB/s on 2026-11-29 18:40",
        "(load 4.3-4.7, p99 34-522 ms): the host disk under the image (a VM's virtio disk shared with the",
        "other sessions' builds) changes its write bandwidth by 3x between days, so no constant of this",
        "device can hold. Refuted: writes into holes of the backing file (a new file's blocks) are not",
        "slower than overwrites (958-1308 against 930-1071 MB/s).",
    ],
}

# Scenarios whose recording sets pass `memtwin validate --recorded`: in scenarios/validation/.
# (host-queue-read-msk-idle and host-queue-read-ra128-idle pending since review50 M1: a run_delay_s out with no
# measured cause, queue-v669-rule.md 4)
PASSING = {"host-queue-rw-seq", "host-queue-rw-wbt", "host-queue-rw-msk"}


def wrap(lines, width=116):
    """Header lines: each of V669_HEAD's long strings cut at spaces to the notes' width."""
    out = []
    for ln in lines:
        while len(ln) > width:
            cut = ln.rfind(" ", 0, width)
            out.append(ln[:cut])
            ln = ln[cut + 1:]
        out.append(ln)
    return out


def reader_ops(kind):
    if kind == "seq":
        return '  { op = "read", file = "/data/in", bufsize = "128K", step = "read" },', "a cold 256M file read sequentially in 128 KiB calls"
    return ('  { op = "read", file = "/data/in", bufsize = "4K", pattern = "random", count = 4096, step = "read" },',
            "4096 random 4 KiB reads of a cold 256M file")


def recorded_variants(name, variant):
    """Each recording of a scenario's set (validation-pending's real/ first, then validation's), as
    its variant's dict, in the set's order; None for one that cannot be read or lacks the variant
    (each caller decides: skip it, or give up on the set)."""
    for r in recorded_runs(name) or []:
        path = os.path.join(PENDING, r) if os.path.exists(os.path.join(PENDING, r)) else os.path.join(OUT, r)
        try:
            with open(path) as f:
                yield json.load(f)["variants"][variant]
        except (OSError, KeyError, ValueError):
            yield None


def worker_samples(name, variant):
    """The loop device's worker wake-up samples of a scenario's variant from its recording set
    (loopwq23): each recording's mean run-queue wait of the unbound pool's kworkers over the tasks'
    run (real.machine.kthread_waits.unbound_kworker, run_delay_s / runs; the loop device's work
    runs on that pool, drivers/block/loop.c alloc_workqueue("loop%d", WQ_UNBOUND ...), and the
    kworkers named after it at the runner's two reads, `loop_worker`, miss those that ran other
    work after it), in ns, in the set's order; [] when no recording of the set has them (recorded
    before loopwq23)."""
    out = []
    for v in recorded_variants(name, variant):
        if v is None:
            continue
        kw = ((v.get("real") or {}).get("machine") or {}).get("kthread_waits", {}).get("unbound_kworker")
        if kw and kw.get("runs"):
            out.append(round(kw["run_delay_s"] * 1e9 / kw["runs"]))
    return out


# The loop device's work as the reader waits behind it (kwork23): the mean of the sequential
# reader's waits that began with the loop's kworker on its CPU and had only kernel threads run
# before it ran again (it switched out runnable, prev_state R, at its return to user space),
# 433 waits of 56.5 us and 420 of 29.6 us in two traced recordings of host-queue-read-ra128-idle
# msk-128 (2026-11-30 18:23-18:27, loadavg 4.7-5.7: other helpers running), 36.88 ms over 853:
# 43 us (lab/validation/trace-idle-wait-1130, trace_idle_wait.bt; the kworker's own
# loop_rootcg_workfn runs: 2264, mean 59.9 us, bimodal 0-8 us and 16-64 us). A trace, not the
# validation recordings.
LOOP_WORKER_RUN = "43us"

# The same on a quiet host (kwork23c), what the idle sets are given (is_idle()): the lead's two traced
# recordings of host-queue-read-ra128-idle msk-128 (2026-11-30 21:11, 6.18.44-fc-v669, loadavg 1.6-2.1
# from the lead's own recordings just before, the runner's samples 0.03-0.04 other runnable tasks),
# the same waits 162 of 25.1 us and 77 of 30.8 us, 6.43 ms over 239: 27 us (trace-idle-wait-1130
# q1, q2; the loop work's runs 1718 and 1643, 51 and 54 us mean). The loaded sets keep the loaded
# figure: each set's own conditions. A trace, not the validation recordings.
LOOP_WORKER_RUN_QUIET = "27us"

# A memcg's vmpressure work on the reclaiming task's CPU (kwork23c, sched.rs bound_worker_wait,
# kernel.rs vmpressure_tree: mm/vmpressure.c vmpressure() -> schedule_work() on the per-CPU
# system_wq every 512 pages scanned): the writer's waits that began with a bound kworker on its CPU
# and had only kernel threads run before it ran again, in the lead's traced recording of
# host-queue-rw-seq none (2026-11-30 21:11, v669, quiet as above): 245 waits, 2.79 ms, 11.4 us each
# (prev_state R+ at 253 of its 285 switch-ins, vmpressure_work_fn starting in 247 of those waits;
# the work itself 1.5 us: the rest is the two switches, with bpftrace's probes on them). One trace,
# on a quiet host; given to every host-queue scenario (the writers' reclaims: the others never
# reclaim). A trace, not the validation recordings.
VMPRESSURE_WORK_RUN = "11us"


# The write completion's work that wakes a reclaiming writer (wake23, sched.rs end_io_wakee_wait, kernel.rs
# woken_by_end_io): fs/ext4/page-io.c ext4_end_io_rsv_work() on the unbound ext4-rsv-conversion workqueue ends the
# writeback of the writer's folios (written as unwritten extents: delayed allocation with dioread_nolock) and wakes
# its folio_wait_writeback() and reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK) sleeps. Its runs from
# workqueue_execute_start to _end in the lead's traced recording of host-queue-rw-seq none (q3, 2026-11-30 21:11,
# v669, quiet as above; lab/validation/trace-idle-wait-1130/q3-rwseq-none/bt.out @wq_run_ns[ext4_end_io_rsv_work]):
# 128 runs, 358,617 ns mean. The work's own run, not the writer's waits behind it (wakers-1201q has those: 248-473 us
# median a wait, not used here); given to the idle sets with a writer on KWORKER_BUILD. A trace, not the validation
# recordings.
END_IO_WORK_RUN = "359us"


# pre23 (issue 23; sched.rs wakeup_preempt_stale_clock, kernel.rs vmpressure_tree): the writer's run from the wake-up
# of the vmpressure kworker that preempts it to its switch-out, which schedstat counts as run_delay too (6.18
# wakeup_preempt() -> rq_clock_skip_update(): __schedule() switches on the wake-up's rq clock, and the host's
# preempt=none kernel switches only at the writer's next cond_resched(), R+). Traced by pre23's one recording
# with lab/validation/trace-idle-wait-1130/preempt-1201s/bound.bt (host-queue-rw-msk msk-1280, 2026-12-01 06:22 UTC,
# 6.18.44-fc-v669, /proc/loadavg 1.37 at the start and 1.30 at the end, helpers starting: not the lead's quiet slot;
# b1-rwmsk-msk1280/summary.txt): 160 of the writer's preemptions by the vmpressure_work_fn kworker, its sched_wakeup
# to the writer's sched_switch a median 179.5 us (mean 235.2, p90 237.4). The median; given to the idle sets with a
# writer on KWORKER_BUILD, as END_IO_WORK_RUN. A trace, not the validation recordings.
PREEMPT_RESCHED_RUN = "180us"
# review52 M1: the engine charges the MEAN stale interval of those 160 runs (194.8 us at HZ=250), the mechanism's
# expectation, not the interval of their median (175.95 us): the runs themselves are given
# (machine.preempt_resched_runs, sched.rs wakeup_preempt_stale_mean), read from b1-runs.json, which
# `summarize_bound.py b1-rwmsk-msk1280 --runs-json b1-runs.json` (in preempt-1201s/) writes from the trace.
PREEMPT_RUNS_JSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trace-idle-wait-1130", "preempt-1201s", "b1-runs.json")


# lag56 (issue 23, lab/validation/vmp-slice-1201/README.md "lag56"): only a PREEMPTING wake-up leaves the switch on a
# stale clock; a wake-up that did not preempt (the writer eligible and protected) is followed by a switch at a tick's
# reschedule, on a clock that tick updated (clock56: age 0-17 us). bound.bt does not read the resched bit, so b1's
# runs are told apart by their length: clockage.bt's two quiet v1045 traces (c1045-1/2), the scenario's writer's
# R+ switches to its bound kworker after a vmpressure wake-up, split by the wake-up's resched bit: runs of 1 ms or
# more 39 kept, 4 preempting; below 1 ms 476 preempting, 1 kept (712 us). A kept wake-up's run lasts to the first
# tick after the writer's protected slice (fair.c 6.18 update_curr(): resched_curr_lazy() once !protect_slice()):
# ms. b1's runs of PREEMPT_KEPT_RUN or more (8 of 160, 1.0-3.7 ms) are those wake-ups, left out of the input.
PREEMPT_KEPT_RUN = 1_000_000  # ns


def preempt_resched_runs():
    """The writer's traced runs from a PREEMPTING vmpressure kworker wake-up to its switch-out (b1's runs below
    PREEMPT_KEPT_RUN, lag56), as TOML durations."""
    with open(PREEMPT_RUNS_JSON) as f:
        runs = [g for g in json.load(f)["b1-rwmsk-msk1280"]["writer"]["vmpressure_work_fn"] if g < PREEMPT_KEPT_RUN]
    cells = [f'"{g}ns"' for g in runs]
    return "[" + ",\n  ".join(", ".join(cells[i:i + 10]) for i in range(0, len(cells), 10)) + "]"


# pre23 (issue 23, lab/validation/trace-idle-wait-1130/preempt-1201s): the writers' sched.run_delay_s since
# machine.preempt_resched_run (PREEMPT_RESCHED_RUN; sched.rs wakeup_preempt_stale_clock). The engine OVER the host's
# where the stale clock is counted at each of the engine's vmpressure preemptions, about twice the host's.
PREEMPT_OVER_WHY = ("the engine's writer is preempted by its vmpressure work about 382 times a run where the host's scenario "
                    "writer is preempted 214-280 times (s51 on v669: 214-243 bound-kworker preemptions; lag.bt on v857/v1045, "
                    "the scenario's writer (lag56): 214-280 of 243-302 works, 20-27 kept): the engine's vmpressure work count "
                    "is the error, and at each of those preemptions schedstat counts the stale clock (sched.rs "
                    "wakeup_preempt_stale_clock: 6.18 wakeup_preempt() -> rq_clock_skip_update(), the switch at the writer's next "
                    "cond_resched() on the wake-up's rq clock), machine.preempt_resched_runs: b1's runs of PREEMPTING wake-ups "
                    "(lag56: the 152 below 1 ms; the 8 of 1-3.7 ms are kept wake-ups, switched at a tick on a fresh clock), "
                    "mean stale interval 122.4 us (with the kept ones 194.8, review52 M1); the scenario's writer on v1045 "
                    "quiet (clockage.bt, c1045-1/2): 262 and 222 preempting wake-ups, rq-clock age 246.5 and 287.4 us mean, the "
                    "formula's 255.6 and 288.9 over their runs, kept ones 5-25 us; vmp23/slice23 (lab/validation/vmpressure-1201, "
                    "vmp-slice-1201): the host's writer scans as many pages as the engine's (243,968 against 235,264) but its "
                    "works stay pending while it scans on (33 and 36 of 305 and 252 works, 104 and 176 windows swallowed; 25 with "
                    "no wake-up at all: kick_pool() with the pool's worker still runnable), where the engine preempts at every "
                    "window; the kept wake-ups follow the kworker's own saved lag (6.18 __pick_eevdf(), DELAY_ZERO: "
                    "fair.rs BoundRq, profile.bound_kworker_lag), off: switched on with this input (lag56) the twin's writer "
                    "queues 109 works a run (83 preempting, 26 kept) and swallows 498 windows, run_delay 14.0-14.7 ms "
                    "(-72% to -81%), further from the host than the rule it replaces; not modelled either: the writer's waits "
                    "behind the runner's sampler and the reader (1-4 a run, 2-6 ms each)")
PREEMPT_OVER = {("host-queue-rw-wbt-unthrottled", "wbt-0", "write", "sched.run_delay_s")}
# lag56 (machine.preempt_resched_runs of preempting wake-ups only): the engine's writer UNDER the recordings' median by
# more than the tolerance where those recordings waited most (75.1 and 69.0 ms against 57.0-64.8 in the others).
PREEMPT_UNDER_WHY = ("the engine's writer waits LESS than the host's since lag56 (machine.preempt_resched_runs: b1's 152 runs "
                     "of preempting wake-ups, mean stale interval 122.4 us, where the 8 kept ones took it to 194.8 us): the "
                     "engine counts it at about 382 vmpressure preemptions a run, the host's writer 214-280 (PREEMPT_OVER_WHY), "
                     "and these recordings' writers waited the most of the v669 sets (the medians 75.1 and 69.0 ms; 50.6-64.8 "
                     "in the other throttled sets, whose engine figures are within); b1 is one LOADED v669 trace, and the "
                     "scenario's writer on a quiet v1045 had a stale clock of 246.5-287.4 us a preemption (clockage.bt): "
                     "the stale interval of the recordings' own build and load is not known; not modelled: the writer's "
                     "waits behind the runner's sampler and the reader (1-4 a run, 2-6 ms each)")
PREEMPT_UNDER = {("host-queue-rw-seq", "mq-deadline", "write", "sched.run_delay_s"),
                 ("host-queue-rw-wbt", "wbt-2000", "write", "sched.run_delay_s")}
# Within: their known out dropped as validate requires, marked not evidence (PREEMPT23_WITHIN_WHY). pre23: rw-seq
# mq-deadline and rw-wbt wbt-2000; review52 M1 put rw-wbt wbt-0 and rw-rand-idle over again; lag56 (the input of
# preempting wake-ups only) brings rw-msk both, rw-seq none, rw-wbt wbt-0 and rw-rand-idle both within and takes
# rw-seq mq-deadline and rw-wbt wbt-2000 under (PREEMPT_UNDER).
PREEMPT_WITHIN = {("host-queue-rw-msk", "msk-1280", "write", "sched.run_delay_s"),
                  ("host-queue-rw-msk", "msk-128", "write", "sched.run_delay_s"),
                  ("host-queue-rw-seq", "none", "write", "sched.run_delay_s"),
                  ("host-queue-rw-wbt", "wbt-0", "write", "sched.run_delay_s"),
                  ("host-queue-rw-rand-idle", "none", "write", "sched.run_delay_s"),
                  ("host-queue-rw-rand-idle", "mq-deadline", "write", "sched.run_delay_s")}
# pre23's words, kept in its notes below as they were
PRE23_WITHIN_WHY = ("Not evidence: the engine counts the stale clock at about twice the host's vmpressure preemptions "
                    "(PREEMPT_OVER_WHY), which makes up for what it does not model (the waits behind the sampler and "
                    "the reader, the completion kworker's placement).")
PREEMPT23_WITHIN_WHY = ("Not evidence: the engine counts the stale clock at about 382 vmpressure preemptions a run, 1.4-1.8 "
                        "times the host's writer's 214-280 (PREEMPT_OVER_WHY), at b1's 122.4 us each (one loaded v669 trace; "
                        "the scenario's writer on a quiet v1045: 246.5-287.4 us): the count's excess makes up for a stale "
                        "interval that may be too short and for what is not modelled (the waits behind the sampler and the "
                        "reader, the completion kworker's placement).")
# The writers' sched.run_delay_s (validate's engine median against the recordings' median), before -> after pre23
# (`memtwin validate --recorded`, 2026-12-01 06:35-06:50).
PREEMPT23_NOTE = {
    "host-queue-rw-msk": ["pre23 (machine.preempt_resched_run, PREEMPT_OVER_WHY): the writer's sched.run_delay_s 7.1 -> 73.9 ms "
                          "(msk-1280, +29.6% against 57.0) and 7.4 -> 74.2 ms (msk-128, +46.6% against 50.6): known outs, the "
                          "engine now over."],
    "host-queue-rw-seq": ["pre23 (machine.preempt_resched_run, PREEMPT_OVER_WHY): the writer's sched.run_delay_s 7.5 -> 74.4 ms "
                          "(none, +30.1% against 57.2: known out, the engine now over) and 7.6 -> 74.6 ms (mq-deadline, -0.7% "
                          "against 75.1: within, its known out dropped). " + PRE23_WITHIN_WHY],
    "host-queue-rw-wbt": ["pre23 (machine.preempt_resched_run, PREEMPT_OVER_WHY): the writer's sched.run_delay_s 7.8 -> 74.7 ms "
                          "(wbt-2000, +8.2% against 69.0) and 7.2 -> 74.0 ms (wbt-0, +16.0% against 63.8): within, their known "
                          "outs dropped. " + PRE23_WITHIN_WHY],
    "host-queue-rw-rand-idle": ["pre23 (machine.preempt_resched_run, PREEMPT_OVER_WHY): the writer's sched.run_delay_s 6.6 -> "
                                "72.0 ms (none, +11.1% against 64.8) and 6.8 -> 72.3 ms (mq-deadline, +13.9% against 63.5): "
                                "within, their known outs dropped. " + PRE23_WITHIN_WHY],
    "host-queue-rw-seq-unthrottled": ["pre23 (machine.preempt_resched_run): the writer's sched.run_delay_s 94.9 -> 174.3 ms "
                                      "(none, +201.5% against 57.8) and 103.0 -> 182.4 ms (mq-deadline, +229.9% against "
                                      "55.3): further over (WAIT_OVER_WHY, PREEMPT_OVER_WHY)."],
    "host-queue-rw-wbt-unthrottled": ["pre23 (machine.preempt_resched_run): the writer's sched.run_delay_s 92.7 -> 172.0 ms "
                                      "(wbt-2000, +244.4% against 50.0) and 35.2 -> 115.4 ms (wbt-0, +177.8% against 41.5: "
                                      "out again, the engine over: PREEMPT_OVER_WHY)."],
}
# review52 M1 (the lead, `memtwin validate --recorded`, 2026-12-01 08:15): the mean stale interval of b1's 160 runs
# (machine.preempt_resched_runs, 194.8 us) in place of that of their median (176.0 us).
M1 = "review52 M1 (machine.preempt_resched_runs: the mean stale interval of b1's 160 traced runs, 194.8 us, not that of their median, 176.0 us): the writer's sched.run_delay_s "
for _name, _txt in {
    "host-queue-rw-msk": "73.9 -> 81.1 ms (msk-1280, +42.1%) and 74.2 -> 81.4 ms (msk-128, +60.7%): known outs.",
    "host-queue-rw-seq": "74.4 -> 81.5 ms (none, +42.6%: known out) and 74.6 -> 81.7 ms (mq-deadline, +8.8%: within, no evidence).",
    "host-queue-rw-wbt": "74.7 -> 81.8 ms (wbt-2000, +18.5%: within, no evidence) and 74.0 -> 81.2 ms (wbt-0, +27.2%: out, a known out again: PREEMPT_OVER_WHY).",
    "host-queue-rw-rand-idle": "72.0 -> 79.3 ms (none, +22.3%) and 72.3 -> 79.6 ms (mq-deadline, +25.4%): out, known outs again (PREEMPT_OVER_WHY).",
    "host-queue-rw-seq-unthrottled": "174.3 -> 183.0 ms (none, +216.6%) and 182.4 -> 191.0 ms (mq-deadline, +245.5%).",
    "host-queue-rw-wbt-unthrottled": "172.0 -> 180.9 ms (wbt-2000, +262.2%) and 115.4 -> 124.0 ms (wbt-0, +198.5%).",
}.items():
    PREEMPT23_NOTE[_name].append(M1 + _txt)
# lag56 (`memtwin validate --recorded`, 2026-12-02 15:50): machine.preempt_resched_runs of preempting wake-ups only (b1's
# 152 runs below PREEMPT_KEPT_RUN, mean stale interval 122.4 us, where the 8 kept ones took it to 194.8 us).
LAG56 = ("lag56 (machine.preempt_resched_runs: b1's 152 runs of PREEMPTING wake-ups, mean stale interval 122.4 us; the 8 "
         "kept ones of 1-3.7 ms, switched at a tick on a fresh clock, left out): the writer's sched.run_delay_s ")
for _name, _txt in {
    "host-queue-rw-msk": "81.1 -> 53.6 ms (msk-1280, -6.1%) and 81.4 -> 53.9 ms (msk-128, +6.4%): within, not evidence (the engine's count of preemptions, PREEMPT_OVER_WHY).",
    "host-queue-rw-seq": "81.5 -> 54.0 ms (none, -5.5%: within, not evidence) and 81.7 -> 54.2 ms (mq-deadline, -27.8%: out, the engine under: PREEMPT_UNDER_WHY).",
    "host-queue-rw-wbt": "81.8 -> 54.3 ms (wbt-2000, -21.3%: out, the engine under: PREEMPT_UNDER_WHY) and 81.2 -> 53.7 ms (wbt-0, -15.9%: within, not evidence).",
    "host-queue-rw-rand-idle": "79.3 -> 52.4 ms (none, -19.2%) and 79.6 -> 52.7 ms (mq-deadline, -17.0%): within, not evidence.",
    "host-queue-rw-seq-unthrottled": "183.0 -> 150.3 ms (none, +160.1%) and 191.0 -> 158.4 ms (mq-deadline, +186.5%).",
    "host-queue-rw-wbt-unthrottled": "180.9 -> 148.3 ms (wbt-2000, +196.9%) and 124.0 -> 91.0 ms (wbt-0, +119.1%).",
}.items():
    PREEMPT23_NOTE[_name].append(LAG56 + _txt)


# The build the kworker figures above were traced on (review49 M1): LOOP_WORKER_RUN (loaded), LOOP_WORKER_RUN_QUIET
# and VMPRESSURE_WORK_RUN are 6.18.44-fc-v669's, given only to sets recorded on that build (the read-msk-idle,
# read-ra128-idle and rw-msk idle sets are v782's: no kworker figure, the engine's wait before kwork23 there).
KWORKER_BUILD = "6.18.44-fc-v669"


def set_builds(name, variant):
    """The kernel builds (real.kernel) of a scenario variant's recordings; an unreadable one gives None."""
    return {(v or {}).get("real", {}).get("kernel") for v in recorded_variants(name, variant)}


def sampler_samples(name, variant):
    """The runner's run-queue sampler's CPU share in each recording of a scenario's variant
    (kwork23): its CPU time (real.machine.runq_sampler.cpu_s, its interpreter's start included)
    over its life, its samples times the steps' mean interval between them
    (sched.background_interval_s); in the set's order; [] unless every recording has them."""
    out = []
    for v in recorded_variants(name, variant):
        if v is None:
            return []
        smp = ((v.get("real") or {}).get("machine") or {}).get("runq_sampler") or {}
        iv = [s["sched"]["background_interval_s"] for s in v.get("steps", []) if (s.get("sched") or {}).get("background_interval_s")]
        if not smp.get("cpu_s") or not smp.get("samples") or not iv:
            return []
        out.append(smp["cpu_s"] / (smp["samples"] * sum(iv) / len(iv)))
    return out


def background_samples(name, variant, key="background_runnable"):
    """The machine's other runnable tasks in each recording of a scenario's variant (runq23): the
    mean of its steps' sched.<key> (the host runner's samples, real.runnable_sample:
    background_runnable the tasks, background_entities their root-level CFS entities by
    autogroup, background_own_group the others in the runner's own autogroup; autogrp23), in
    the set's order; [] unless every recording of the set has them (recorded before runq23, or
    before autogrp23 for the autogroup keys)."""
    out = []
    for v in recorded_variants(name, variant):
        if v is None or "steps" not in v:
            return []
        steps = v["steps"]
        xs = [s["sched"][key] for s in steps if key in (s.get("sched") or {})]
        if not xs:
            return []
        out.append(sum(xs) / len(xs))
    return out


def autogroup_on(name, variant):
    """Whether every recording of a scenario's variant ran with sched_autogroup_enabled=1
    (real.machine.runq_sampler, autogrp23): CFS then shares the CPUs between autogroups."""
    on = []
    for v in recorded_variants(name, variant):
        try:
            rs = v["real"]["machine"].get("runq_sampler") or {}
        except (TypeError, KeyError):
            return False
        on.append(rs.get("sched_autogroup_enabled") == 1)
    return bool(on) and all(on)


def scenario(name, kind, variants, msk=1280, throttled=True, writer=True, ra=None):
    rops, rdesc = reader_ops(kind)
    # the random reader starts once the flusher's writeback runs (the writer has filled its 64M
    # by then): started together, its 4096 reads raced the writeback's start, and took 0.46 s when
    # they ran before it (64 writes in their window) and 4.6-13 s beside it (400-450 writes)
    rstart = 'start = "500ms"\n' if kind == "rand" else ""
    if writer:
        what = f"{rdesc} (memcg R, no limit) beside a 512M buffered write in a 64M memcg (W): " + ", ".join(v for v, _ in variants)
        desc = f"{rdesc} beside 512M written through a 64M memcg; variants {', '.join(v for v, _ in variants)}"
    else:
        # the control: the reader alone on the device
        what = f"{rdesc} (memcg R, no limit) alone on the device: " + ", ".join(v for v, _ in variants)
        desc = f"{rdesc} alone; variants {', '.join(v for v, _ in variants)}"
    pending = name not in PASSING
    d = "scenarios/validation-pending" if pending else "scenarios/validation"
    base = name[:-len("-idle")] if name.endswith("-idle") else name
    lines = ([V669_HEAD.replace("NAME", base)] + V669_RESULT[name] + ["Before idle23d, against the v782 set:"] if name in V669_RESULT and recorded_runs(name) == V669_SETS.get(base)
             else [])
    # pre23's lines after the v669 comparison's, before its "Before idle23d" line
    lines = lines[:-1] + PREEMPT23_NOTE.get(name, []) + lines[-1:] if lines else PREEMPT23_NOTE.get(name, [])
    notes = "".join(f"# {ln}\n" for ln in wrap(lines) + NOTES.get(name, []))
    wtask = """
[files."/data/out"]
size = "0"

[cgroups.W]
"memory.limit_in_bytes" = "64M"

[tasks.w]
cgroup = "W"
ops = [
  { op = "write", file = "/data/out", length = "512M", bufsize = "1M", create = true, fsync = false, step = "write" },
]
""" if writer else ""
    body = f"""
[files."/data/in"]
size = "256M"

[cgroups.R]

[tasks.r]
cgroup = "R"
{rstart}ops = [
{rops}
]

{wtask}"""
    bgs = []
    for v, sets in variants:
        body += f"\n[variants.{v}]\n"
        for k, val in sets:
            body += f"{k} = {val}\n"
        w = worker_samples(name, v)
        if w:
            # the loop worker's wake-up as this variant's recordings measured it (worker_samples())
            body += "devices.sda.worker_wakeup_latency = [" + ", ".join(f'"{x}ns"' for x in w) + "]\n"
        b = background_samples(name, v)
        if b:
            # the machine's other runnable tasks as this variant's recordings sampled them
            # (background_samples()): the median of the set, as validate compares medians
            bgs.append(b)
            body += f"machine.background_runnable = {sorted(b)[len(b) // 2]:.3f}  # the set's: " + ", ".join(f"{x:.3f}" for x in b) + "\n"
            if autogroup_on(name, v):
                # the host shares the CPUs by autogroup (sched_autogroup_enabled=1 in every
                # recording): the background's root-level entities and the runner's session's
                # other runnable tasks, the set's medians (kernel::autogroup_stretch)
                body += "machine.sched_autogroup = true\n"
                for key in ("background_entities", "background_own_group"):
                    e = background_samples(name, v, key)
                    if e:
                        body += f"machine.{key} = {sorted(e)[len(e) // 2]:.3f}  # the set's: " + ", ".join(f"{x:.3f}" for x in e) + "\n"
            sm = sampler_samples(name, v)
            if sm and set_builds(name, v) == {KWORKER_BUILD}:
                # the loop worker woken onto the reader's CPU (kwork23, sched.rs loop_worker_wait):
                # its run, traced apart from the recordings (LOOP_WORKER_RUN), and the runner's own
                # sampler, which keeps the other CPU busy for its share (sampler_samples())
                body += f"machine.loop_worker_run = \"{LOOP_WORKER_RUN_QUIET if is_idle(name) else LOOP_WORKER_RUN}\"\n"
                # the memcg's vmpressure work on a reclaiming writer's CPU (kwork23c, VMPRESSURE_WORK_RUN)
                body += f"machine.vmpressure_work_run = \"{VMPRESSURE_WORK_RUN}\"\n"
                if writer and is_idle(name):
                    # the write completion's work that wakes the writer (wake23, END_IO_WORK_RUN): a quiet figure
                    body += f"machine.end_io_work_run = \"{END_IO_WORK_RUN}\"\n"
                    # schedstat's stale clock at the vmpressure work's preemptions (pre23, PREEMPT_RESCHED_RUN)
                    body += f"machine.preempt_resched_runs = {preempt_resched_runs()}\n"
                body += f"machine.runner_sampler = {sorted(sm)[len(sm) // 2]:.3f}  # the set's: " + ", ".join(f"{x:.3f}" for x in sm) + "\n"
    runs = recorded_runs(name) or [f"real/{name}.json"]
    body += "\n[validation]\nrecorded = [" + ", ".join(f'"{r}"' for r in runs) + ']\non = "host"\n\n[validation.tolerance]\n'
    # the tasks' run-queue waits (the engine's `sched.run_delay_s`, the recordings' sched.run_delay_s)
    # where every variant's recordings sampled the background, at elapsed_s's tolerance
    compared = COMPARED + ([("sched.run_delay_s", 0.20, 0)] if bgs and len(bgs) == len(variants) else [])
    for m, rel, ab in compared:
        key = f'"{m}"' if "." in m else m
        body += f"{key} = {{ rel = {rel:.2f}, abs = {ab} }}\n"
    known = dict(KNOWN.get(name, {}))
    if is_idle(name) and bgs and len(bgs) == len(variants):
        # the idle host's run-queue wait (IDLE_WAIT_WHY), for each task of each variant
        for v, _ in variants:
            for st in (("read", "write") if writer else ("read",)):
                if (name, v, st, "sched.run_delay_s") in WAIT_OVER:
                    known[(v, st, "sched.run_delay_s")] = WAIT_OVER_WHY
                elif (name, v, st, "sched.run_delay_s") in PREEMPT_OVER:
                    known[(v, st, "sched.run_delay_s")] = PREEMPT_OVER_WHY
                elif (name, v, st, "sched.run_delay_s") in PREEMPT_UNDER:
                    known[(v, st, "sched.run_delay_s")] = PREEMPT_UNDER_WHY
                elif (name, v, st, "sched.run_delay_s") not in WAIT_WITHIN | PREEMPT_WITHIN:
                    known[(v, st, "sched.run_delay_s")] = IDLE_WAIT_WHY
    for (var, st, m), why in known.items():
        why = why.replace('"', "'")
        body += "\n[[validation.known_out]]\n" + (f'variant = "{var}"\n' if var else "") + f'step = "{st}"\nmetric = "{m}"\nwhy = "{why}"\n'
    # the rows within only through the engine's doubled preemption count (review52 M2): marked, not counted as agreement
    for (n, var, st, m) in sorted(PREEMPT_WITHIN):
        if n == name and (var, st, m) not in known and is_idle(name) and bgs and len(bgs) == len(variants):
            why = PREEMPT23_WITHIN_WHY.replace('"', "'")
            body += "\n[[validation.not_evidence]]\n" + f'variant = "{var}"\nstep = "{st}"\nmetric = "{m}"\nwhy = "{why}"\n'
    devwhy = ("the runner's loop device under its blk-throttle rules, as make_stall_scenarios.py calibrated\n# them (memtwin calibrate --on host --throttle 200M,150M, 2026-11-28)" if throttled else
              "the runner's loop device unthrottled (queue_depth, no blk_throttle), its queue the host's one\n# loop device table (lab/validation/loop_table.py)")
    # scenario_text's head (this host's machine and kernel, ext4 with mkfs.ext4's default features),
    # the recording set and what it showed in the header, this device instead of its default one
    text = head("make_queue_scenarios.py", "host", name, what, desc, fs='fs = "ext4"\n', dir=d).split("[devices.sda]")[0]
    text = text.replace(f"recorded results in real/{name}.json", f"recorded results in {runs[0][:-len('1.json')]}1..{len(runs)}.json, a set of\n# recordings (one per hold of the host lock, round-robin, the runner at nice -10)")
    text = text.replace("\n[scenario]", notes + "\n[scenario]", 1)
    text = text.rstrip("\n") + "\n\n" + DEVICE.format(devwhy=devwhy, device=THROTTLED if throttled else UNTHROTTLED, msk=msk, ra=ra or 2 * msk, rawhy=RA_WHY if ra is None else RA_SET) + body
    return name, (PENDING if pending else OUT), text


SCHED = [("none", []), ("mq-deadline", [("devices.sda.scheduler", '"mq-deadline"')])]
# blk-wbt as the loop device has it (2000 us: wbt_init_enable_default() at the device's
# registration, while the loop driver's queue is still non-rotational; loop_reconfigure_limits()
# marks it rotational when it is bound to the image) against off
WBT = [("wbt-2000", [("devices.sda.wbt_lat_usec", "2000")]), ("wbt-0", [("devices.sda.wbt_lat_usec", "0")])]


def engine_has_wbt():
    """Whether this engine takes [devices.X] wbt_lat_usec (blk-wbt, blkdev/wbt.rs)."""
    import memtwin
    try:
        memtwin.load({"scenario": {"name": "w"}, "machine": {"ram": "1G"}, "devices": {"sda": {"read_bw": "1M", "wbt_lat_usec": 0}},
                      "files": {"/f": {"size": "4K"}}, "tasks": {"t": {"ops": [{"op": "read", "file": "/f"}]}}}).doc.plan(None, [])
    except memtwin.ScenarioError:
        return False
    return True
MSK = [("msk-1280", []), ("msk-128", [("devices.sda.max_sectors_kb", "128"), ("devices.sda.read_ahead_kb", "256")])]
# review9 M7: the reader alone at the kernel's default read_ahead_kb 128 (the runner writes it after
# max_sectors_kb since 8953fa3): 2048 windows of 128 KiB, one request in flight
MSK_RA128 = [("msk-1280", []), ("msk-128", [("devices.sda.max_sectors_kb", "128")])]

SCENARIOS = [
    scenario("host-queue-rw-seq", "seq", SCHED),
    scenario("host-queue-rw-rand", "rand", SCHED),
    scenario("host-queue-rw-msk", "seq", MSK),
    scenario("host-queue-rw-seq-unthrottled", "seq", SCHED, throttled=False),
    scenario("host-queue-read-msk", "seq", MSK, writer=False),
    scenario("host-queue-read-ra128", "seq", MSK_RA128, writer=False, ra=128),
    # the idle sets of the scenarios whose loaded sets give the background as input (IDLE_TWINS)
    scenario("host-queue-rw-rand-idle", "rand", SCHED),
    scenario("host-queue-read-msk-idle", "seq", MSK, writer=False),
    scenario("host-queue-read-ra128-idle", "seq", MSK_RA128, writer=False, ra=128),
]
# the blk-wbt scenarios, once the engine has the key (until then their recordings wait in
# validation-pending/real/)
WBT_SCENARIOS = [("host-queue-rw-wbt", "seq", WBT, {}), ("host-queue-rw-wbt-unthrottled", "seq", WBT, {"throttled": False})]


if __name__ == "__main__":
    if engine_has_wbt():
        SCENARIOS += [scenario(n, k, v, **kw) for n, k, v, kw in WBT_SCENARIOS]
    for name, out, text in SCENARIOS:
        for d in (OUT, PENDING):
            # a scenario lives in one of the two directories
            p = os.path.join(d, f"{name}.toml")
            if d != out and os.path.exists(p):
                os.remove(p)
        with open(os.path.join(out, f"{name}.toml"), "w") as f:
            f.write(text)
        print("wrote", os.path.relpath(os.path.join(out, f"{name}.toml")))
