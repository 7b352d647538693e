"""The validation set: the engine against recorded real-kernel runs (scenarios/validation/),
and every seed scenario against its published figures. Each scenario declares its targets
in [published.checks]; this holds the engine to all of them."""

import glob
import os

import pytest

import memtwin
from memtwin.published import evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIOS = sorted(glob.glob(os.path.join(ROOT, "scenarios", "seed*.toml")) + glob.glob(os.path.join(ROOT, "scenarios", "validation", "*.toml")))
WITH_TARGETS = [p for p in SCENARIOS if memtwin.load(p).published.get("checks")]
RECORDED = [p for p in SCENARIOS if memtwin.load(p).doc.table("validation") is not None]

# Known disagreements with the recorded real runs, each with what causes it. The test fails
# when a metric leaves tolerance that is not listed here, and when a listed one comes back
# within tolerance (then remove it from this list).
# Known disagreements with the recorded real runs live in each scenario's
# [[validation.known_out]] (step, metric, why): validate marks them "known out"; the test below
# fails when a metric leaves tolerance that is not listed, and when a listed one comes back
# within tolerance (then remove it from the scenario).
# Emptied, 2026-11-25 (issue 16): memory.events high on Debian 6.1 was 34-61% above the
# kernel's once counted per reclaim_high() with the charge stock's batching: the engine's
# shrink_lruvec() stopped when the whole reclaim (all priorities so far) met its target, the
# kernel's when that call alone did (its local nr_reclaimed against sc->nr_to_reclaim), so a
# 64-page reclaim_high() took 94 pages in the engine and 126 in the kernel. With the kernel's
# rule: 205/275 events against 207/276 on reads, 111 against 112 on the writer.
# Emptied again, 2026-11-22: host and qemu61 dir-eviction clean-20 grep read_bytes (engine
# 21.0 MB, kernel 16.9 and 16.1) compared two operations: the kernel ran the seed-004 policy's
# user-space equivalent (posix_fadvise per file, which starts writeback), the engine the patch's
# walk (no writeback). The scenarios now clean with `walk = true`, file by file on both sides,
# and the engine learned that since 5.12 an invalidation passes over pages under writeback
# (find_lock_entries()) where it deactivated them with PG_reclaim before; with that it re-reads
# 17.8 MB against the kernel's 17.9 (6.1) and 18.8 (6.18). Later the same day grep took the
# shell's glob order (f1, f10, f11, ..., f2, ...) instead of f1..f20: the engine predicted 10.4
# MB for X = 20, and the re-recorded kernels read 10.5 MB (6.18) and 10.5 MB (6.1).
# Emptied once, 2026-11-22: the six entries before were runner artifacts, not engine errors:
# the host's 6.18 ext4 cached files in large folios (host-tight-ra8192 read +60%: the runner's
# image now has the verity feature, which keeps ext4 on order-0 folios); both runners made cp's
# destination files before the run, so cp's O_TRUNC truncated an existing file and ext4 wrote it
# back on close (auto_da_alloc), leaving directory 2 clean before "clean 2" (qemu61-dir-eviction
# clean-20/28, usage and resident +31..+48%); host tasks forked from the CLI process charged
# their memcg about 2.5 MB of page tables and copy-on-write pages; and images under 512 MiB got
# 1 KiB blocks, four buffer heads per page (host-dir-eviction keep-20 grep read -14%).


def test_there_is_a_validation_set():
    names = [os.path.basename(p) for p in SCENARIOS]
    assert "dying-cgroups-6.1-qemu.toml" in names
    assert sum(n.startswith("list-lru-6.1-qemu") for n in names) == 4
    # + issue 21: two on ext4 -O verity, 15 large-folio reads and 21 of the host set on default ext4;
    # + issue 16: the paced writer; + issue 23: host-stall-rw-apart; + issue 20: host-zswap-reread
    # and host-zswap-reread-write (a store to pages loads swapped in takes no fault from 6.11);
    # + issue 20: host-swap-retouch and host-zswap-pool-0 (6.13+'s plug of swap I/O);
    # (host-ext4-seq-tight-512m-ra8192 back in validation-pending: its recording set's medians, review3 M1)
    # + issue 18 (trace11): host-mmap-exec and host-ext4-mmap-exec (6.16+'s readahead of exec mappings)
    # + issue 21 (ra10): the three unthrottled -queue ones at read_ahead_kb 8192 (their quiet recording sets)
    # + issue 23 (rec23h): host-queue-rw-seq (a reader beside the flusher's writes, scheduler none and mq-deadline)
    # and host-queue-rw-wbt (the same, blk-wbt at 2 ms and off)
    # (host-queue-rw-msk back in validation-pending, review9 M1: the reader alone at the same load misses)
    # + issue 23 (queue23): host-queue-rw-msk against an idle set, and the idle twins of the reader alone
    # (host-queue-read-msk-idle, host-queue-read-ra128-idle); the loaded read-msk stays pending
    # + issue 21 (ra21): host-ext4-tight-ra8192, the 256M cat at 8192 on the idle host's device table
    # + issues 21/23 (table23): host-queue-cold-read, on the host's one loop device table (lab/validation/loop_table.py)
    # (- 1, ra21d: host-ext4-tight-ra8192 back in validation-pending: against the quiet calibrated v669 set its pass is a
    # draw, review14 H1; make_folio_scenarios.py V669_NOTES)
    # (- 2, stall23: host-stall-cp4x-p16m and -cp8x-p64m in validation-pending, out against their quiet v669 sets)
    # (- 1, review48 H1: host-stall-alone-p16m in validation-pending, its pass a draw by host-set-rule.md)
    # (+ 1, the lead: host-ext4-tight-ra8192 back, within and robust against the lone-window set, lone-window-rule.md)
    # (- 2, review50 M1: host-queue-read-msk-idle and host-queue-read-ra128-idle in validation-pending, a
    # sched.run_delay_s out at msk-1280 with no measured cause, queue-v669-rule.md 4)
    # (+ 3, tmpfs21c: host-tmpfs-loose-{never,always,within}, 6.18's tmpfs folios on the host runner; the tight sets in validation-pending)
    # (+ 1, cmp21b: host-ext4-seq-tight-1g-ra8192, within and robust against the v669t set with each run's own
    # failing reclaims, reclaim-spans-rule.md 3; make_folio_scenarios.py V669T_NOTES)
    # (- 1, cmp1045: host-ext4-seq-tight-1g-ra8192 back in validation-pending, within at its inputs against the v1045a
    # set but out at 2 of 16 points, trio-v1045/RULE.md 4; make_folio_scenarios.py V1045A_NOTES)
    # (- 1, cmp857: host-ext4-tight-ra8192 in validation-pending, out at its inputs and at all 18 points against the
    # v857a set, trio-v857/RULE.md 4; make_folio_scenarios.py V857A_NOTES)
    # (+ 2, s56q: host-tmpfs-tight-never and -always against a quiet set, within and robust by host-set-rule.md;
    # tight-within pending, out on its write step; make_host_tmpfs_scenarios.py QUIET_SETS)
    # (+ 1, s59: host-tmpfs-tight-within, within and robust against s56q once the host's swap area is a file,
    # `[machine] swap_file = true`: 6.18 splits a large tmpfs folio at swap-out to a swap file)
    assert sum(n.startswith("host-") for n in names) == 9 + 12 + 4 + 2 + 15 + 21 + 4 + 1 + 1 + 1 + 2 + 2 + 3 + 2 + 3 + 1 + 1 - 1 - 2 - 1 + 1 - 2 + 3 + 1 - 1 - 1 + 2 + 1 + 2  # + 2: host-madv-pageout-thp, -part (madthp63)
    assert sum(n.startswith("host-tmpfs-") for n in names) == 3 + 3
    assert "host-ext4-tight-ra8192.toml" not in names and "host-ext4-tight-ra8192-queue.toml" in names
    assert "host-ext4-seq-tight-512m-ra8192.toml" not in names and "host-ext4-seq-tight-1g-ra8192.toml" not in names
    assert {"host-queue-rw-msk.toml", "host-queue-cold-read.toml"} <= set(names)
    assert not {"host-queue-read-msk.toml", "host-queue-read-msk-idle.toml", "host-queue-read-ra128-idle.toml"} & set(names)
    assert {n for n in names if n.startswith("host-zswap-")} == {"host-zswap-reread.toml", "host-zswap-reread-write.toml",
                                                                "host-zswap-pool-0.toml"}  # 6.18's zswap
    assert "host-swap-retouch.toml" in names
    assert sum(n.startswith("host-verity-") for n in names) == 2
    # issue 23 item 4: the throttled disk's two directions (a read beside a write), against its quiet v669 set;
    # the probe alone (the control: within only as a draw, host-set-rule.md, review48 H1), beside a copy, 4x and
    # 8x, and with an anonymous hog and swap are in validation-pending (stall23c: against the quiet hostcal sets,
    # make_stall_scenarios.py HOSTCAL_SETS, cp4x's probe max90 and cp8x's copy file bytes out, the hog's anon/file
    # balance out: RESULT, HOG_RESULT)
    assert {n for n in names if n.startswith("host-stall-")} == {"host-stall-rw-apart.toml"}
    assert sum(n.startswith("host-mmap-") for n in names) == 5  # issue 20 (the exec twin since 6.16+ exec readahead is modelled)
    swap = sum(n.startswith("qemu61-swap-") or n in ("qemu61-lrugen-swap.toml", "qemu61-lrugen-swap-retouch.toml") for n in names)
    # issue 20 items 3-4: swap in the guest (and issue 22: lru_gen with swap); + item 3: VMA-based
    # readahead (swap-vma-ra, swap-interleaved-vma-ra) + item 3: swap-interleaved by cluster
    # (reclaim unmaps before swap-out) + issue 22: lrugen-swap-retouch (anonymous faults add to
    # the youngest generation) + anonymous loads (swap-read-first: the zero page; swap-read-back: a
    # load's swap-in keeps its slot) + anon: swap-mlock (mlocked anonymous memory never swapped)
    assert swap == 7 + 2 + 1 + 1 + 2 + 1  # 7: + sw60, sw100 (per-pass file deactivation) and swap-max (swap-in pages locked until read)
    zswap = {n for n in names if n.startswith("qemu61-zswap-")}
    assert zswap == {"qemu61-zswap-same.toml", "qemu61-zswap-random.toml", "qemu61-zswap-1k-file.toml",
                     "qemu61-zswap-pool-limit.toml", "qemu61-zswap-pool-limit-quiet.toml"}  # issue 20 item 3: zswap
    # (+ zswap20: pool-limit against a quiet host's set, qemu61-zswap-pool-limit-quiet)
    hot = sum(n in ("qemu61-mmap-hot.toml", "qemu61-lrugen-mmap-hot.toml") for n in names)
    assert hot == 2  # issue 22: a hot mapping between streams, on the two lists and under lru_gen
    # + issue 22: four lru_gen recordings and stream-wset on the two lists; + issue 21: 12 on XFS (large folios;
    # the 12th, seq-tight-128m-ra8192, passes with the guest's measured cpu_slowdown)
    # + issue 16: the paced writer (qemu61-write-paced)
    # + issue 22: min_ttl_ms's OOM kill and its control (qemu61-lrugen-minttl-oom, -slow)
    assert sum(n.startswith("qemu61-lrugen-minttl-") for n in names) == 2
    # + issue 22: global reclaim on 6.1, the twin of qemu612-lrugen-global-stream (qemu61-lrugen-global-stream)
    # + issue 21: the 256M seq-tight at 8192 with the guest's disk at 100 MB/s (qemu61-xfs-seq-tight-256m-ra8192-bw100)
    # + issue 23 (rec23q): kswapd giving up without swap, node_unreclaimable (qemu61-throttle-kswapd-fail);
    # global reclaim's WRITEBACK/CONGESTED sleeps beside a writer (qemu61-throttle-writeback) is pending
    # (review8 H1: its tolerance, from an outlier boot, could not fail)
    # + issue 23 (oom13): the reader after the hog's OOM kill (qemu61-throttle-kswapd-fail-after: the
    # allocation-path kill frees the victim's memory)
    assert "qemu61-throttle-kswapd-fail.toml" in names and "qemu61-throttle-writeback.toml" not in names
    # + issue 23 (wbt25): blk-wbt's scale-up beside a reader on the guest's own queue (qemu61-wbt-reader, 5 boots),
    # pending since fixtol (review10 M2: each step held to its own boots' spread, its first reader steps fail; not counted below)
    assert "qemu61-wbt-reader.toml" not in names
    assert "qemu61-throttle-kswapd-fail-after.toml" in names
    # + tmpfs21: tmpfs huge= never, always, within_size (qemu61-tmpfs-huge-*); tmpfs21b: a tmpfs file swapped out
    # under a memcg limit, huge= never and always (qemu61-tmpfs-swap-*)
    assert {n for n in names if n.startswith("qemu61-tmpfs-")} == {"qemu61-tmpfs-huge-never.toml", "qemu61-tmpfs-huge-always.toml",
                                                                  "qemu61-tmpfs-huge-within.toml", "qemu61-tmpfs-swap-never.toml",
                                                                  "qemu61-tmpfs-swap-always.toml"}
    # + mm20 (issue 20 D2): madvise of anonymous memory (qemu61-madv-pageout-anon, -pageout-anon-noswap,
    # -willneed-anon) and -noexec's pgactivate as the run's total (qemu61-mmap-noexec-total)
    # + madthp63 (review61 M3): MADV_PAGEOUT of PMD-mapped THPs, split at reclaim, written whole, and a range
    # covering two THPs in part (qemu61-madv-pageout-thp, -thp-nonrot, -thp-part)
    madv = {n for n in names if n.startswith("qemu61-madv-")}
    assert madv == {"qemu61-madv-pageout-anon.toml", "qemu61-madv-pageout-anon-noswap.toml", "qemu61-madv-willneed-anon.toml",
                    "qemu61-madv-pageout-thp.toml", "qemu61-madv-pageout-thp-nonrot.toml", "qemu61-madv-pageout-thp-part.toml"}
    assert sum(n.startswith("qemu61-") for n in names) == 10 + 16 + 5 + 1 + 5 + 12 + 1 + swap + hot + len(zswap) + 2 + 1 + 1 + 1 + 1 + 3 + len(madv) + 1 + 2 + 1  # + 2: qemu61-tmpfs-swap-never, -always (tmpfs21b); + 1: qemu61-thpswap-retouch (thpswap60)
    # issue 22 on Debian's 6.12 guest (profiles linux-6.12*): the memcg LRU in global reclaim, under a
    # parent's limit, and qemu61-lrugen-stream-wset re-recorded
    # + issue 20 item 3: memory.zswap.writeback 1 and 0 (qemu612-zswap-writeback, 6.8+)
    # + issue 22 (lrugen10): parent-stream against its calibrated set (qemu612-lrugen-parent-stream-cal)
    # + issue 22 (lrugen22, fixps): parent-stream against the quiet set (qemu612-lrugen-parent-stream-quiet)
    # (gap22's qemu612-lrugen-parent-stream-gap is in validation-pending: its median pass was a seed draw, review14 H1;
    # compared as bimodal since bimodal22 it agrees on the share of boots that deactivate A, not on the re-read when they do)
    assert {n for n in names if n.startswith("qemu612-")} == {"qemu612-lrugen-global-stream.toml", "qemu612-lrugen-parent-stream.toml",
                                                              "qemu612-lrugen-parent-stream-cal.toml", "qemu612-lrugen-parent-stream-quiet.toml",
                                                              "qemu612-lrugen-stream-wset.toml", "qemu612-zswap-writeback.toml"}
    assert sum(n.startswith("qemu61-mmap-") for n in names) == 5 + 1 + 1  # issue 20: file mappings (+ mmap-hot, issue 22; + mmap-noexec-total, mm20)
    # issue 21: the large-folio recordings the engine passes (seq-tight at read_ahead_kb 8192 but
    # 6.1 XFS's 128M, 6.18 ext4's 512M and 1G stay in
    # scenarios/validation-pending/), and the host set re-recorded on default ext4 (21 of its 22; its
    # 256M cat at 8192 was here from ra21's idle device table to ra21d's v669 set;
    # lab/validation/make_folio_scenarios.py); + the 256M one at 8192 with the guest's disk at 100 MB/s (--bw100);
    # + host-ext4-mmap-exec (issue 18, trace11: the exec twin on default ext4)
    # + the -queue ones of the 512M, 1G and the 256M cat at 8192 (ra10: the loop device completes together)
    # + the 256M cat at 8192 again (the lead, 2026-11-30: within and robust against the lone-window set)
    # + the 1G at 8192 (cmp21b, 2026-12-01: within and robust against the v669t set, reclaim-spans-rule.md 3)
    # - the 1G at 8192 (cmp1045, 2026-12-01: against the v1045a set out at 2 of 16 points, trio-v1045/RULE.md 4)
    # - the 256M cat at 8192 (cmp857, 2026-12-02: against the v857a set out at all 18 points, trio-v857/RULE.md 4)
    assert sum(n.startswith("host-ext4-") for n in names) == 15 + 21 + 1 + 3 + 1 + 1 - 1 - 1 and sum(n.startswith("qemu61-xfs-") for n in names) == 12 + 1
    assert "host-write-idle.toml" in names and "qemu61-write-idle.toml" in names  # kupdate, wb shares
    assert "host-write-paced.toml" in names and "qemu61-write-paced.toml" in names  # balance_dirty_pages' pauses
    # issue 18: real programs recorded on the host (traces/NAME.mtt), replayed at the three limits they were measured at
    assert {n for n in names if n.startswith("trace-")} == {"trace-cat.toml", "trace-grep-r.toml", "trace-tar-cf.toml",
                                                            "trace-sqlite3.toml", "trace-sqlite3-mmap.toml"}
    # seed 004 at its scale: 6.1 recorded in the lab, 3.13.10's figures as [published] checks
    assert "qemu61-seed004.toml" in names and "linux313-seed004.toml" in names
    assert "qemu61-numa-anon.toml" in names  # the page allocator's NUMA fallback, THP on and off
    assert "host-dir-eviction-warm.toml" in names and "qemu61-dir-eviction-warm.toml" in names
    # the seeds' unmerged mechanisms recorded on the patched lab kernel (memtwin lab kernel build)
    assert {n for n in names if n.startswith("qemu61p-")} >= {"qemu61p-seed000-recharge.toml", "qemu61p-dying-cgroups.toml",
                                                              "qemu61p-dir-eviction-sync.toml"}


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: os.path.relpath(p, ROOT))
def test_recorded_real_runs_agree_within_tolerance(path):
    from memtwin.validate import validate_file

    rows, outcomes, skipped = validate_file(path, None, True, out=lambda *_: None)
    assert rows, "nothing was compared"
    new = sorted((r.variant, r.step, r.metric) for r in rows if not r.ok and not r.known)
    back = sorted((r.variant, r.step, r.metric) for r in rows if r.ok and r.known)
    assert not new, f"new disagreements: {new}"
    assert not back, f"now within tolerance, remove from [[validation.known_out]]: {back}"


@pytest.mark.parametrize("path", WITH_TARGETS, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_declared_target_is_met(path):
    scn = memtwin.load(path)
    variants = [v for v, _ in scn.variants()] or [None]
    results = {v or "default": memtwin.run(scn, variant=v) for v in variants}
    outcomes = evaluate(scn.published, results, path)
    assert outcomes, "the scenario declares no targets"
    missed = [f"{o.name}: {o.detail}" for o in outcomes if not o.ok]
    assert not missed, "\n".join(missed)


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: os.path.relpath(p, ROOT))
def test_no_oom_kill_where_the_recorded_kernel_has_none(path):
    """Issue 16: the engine OOM-kills a task only where the recorded kernel did. A recorded run
    whose task the kernel killed fails (the runners report it), so every recorded step ran to
    its end; where memory.events is recorded (cgroup v2), its oom_kill is compared too."""
    import json

    from memtwin.validate import recorded_paths, set_run_sets

    scn = memtwin.load(path)
    spec = scn.doc.table("validation")
    if not spec.get("recorded"):
        pytest.skip("no recorded run")
    many = isinstance(spec.get("recorded"), list)
    # a recording set: the engine at kernel.boot_seed i (and boot i's measured CPU factor)
    # against recording i, as validate runs it
    for i, rp in enumerate(recorded_paths(path, spec)):
        real = json.load(open(rp))
        for variant, rv in real["variants"].items():
            sets = set_run_sets(i, rv) if many else []
            res = memtwin.run(scn, variant=None if variant == "default" else variant, sets=sets)
            for step in res.steps.reset_index().to_dict("records"):
                real_kills = [s["metrics"].get("memcg.events.oom_kill", 0) for s in rv["steps"] if s["name"] == step["step"]]
                if not any(real_kills):
                    assert step["oom_killed"] == 0, f"{variant} {step['step']}: the engine OOM-killed the task, the kernel did not"


def test_known_out_marks_a_documented_disagreement_and_fails_when_it_is_back_in_tolerance():
    from memtwin.validate import Row, known_out

    out = Row("default", "s", "read_bytes", 200.0, 100.0, 0.10, 0.0)
    assert out.counts_as_bad
    out.known = "a cause"
    assert not out.counts_as_bad
    back = Row("default", "s", "read_bytes", 100.0, 100.0, 0.10, 0.0, "a cause")
    assert back.counts_as_bad, "a listed disagreement back within tolerance must be removed from the list"
    spec = {"known_out": [{"step": "s", "metric": "read_bytes", "why": "readahead", "variant": "v"}]}
    assert known_out(spec, "f.toml: validation") == {("v", "s", "read_bytes"): "readahead"}
    for bad in ([{"step": "s", "metric": "m"}], [{"step": "s", "metric": "m", "why": " "}], {"step": "s"},
                [{"step": "s", "metric": "m", "why": "x", "extra": 1}]):
        with pytest.raises(memtwin.ScenarioError) as e:
            known_out({"known_out": bad}, "f.toml: validation")
        assert "known_out" in str(e.value) and "fix" in str(e.value)


def test_a_recording_set_passes_when_the_medians_agree_within_the_tolerance():
    """`_set_ok`, the rule for a recording set (several boots of one scenario): the engine runs'
    median and the recordings' median agree within the tolerance (max(rel * |x|, abs)) at the
    recordings' median; one recording and one run is the single rule."""
    from memtwin.validate import Row, _set_ok

    tol = lambda x: max(0.10 * abs(x), 64)  # noqa: E731
    kernel = [15.2, 16.0, 23.8, 34.9, 35.9, 41.2]  # MiB re-read: boots of qemu612-lrugen-global-stream
    assert _set_ok([20.0, 30.0, 40.0], [x * 1000 for x in kernel], lambda x: max(0.10 * abs(x), 0.0)) is False  # units differ
    assert _set_ok([x * 1000 for x in (20.0, 30.0, 40.0)], [x * 1000 for x in kernel], tol)
    # the engine's median beyond the kernel's highest value plus 10% of it
    assert not _set_ok([64000.0] * 5 + [35000.0, 40000.0], [x * 1000 for x in kernel], tol)
    # the engine always at one value the kernel reached once: the kernel's median (29350) is
    # 40% below it
    assert not _set_ok([41200.0] * 6, [x * 1000 for x in kernel], tol)
    # a systematic miss that one extreme boot on each side would hide: the engine's median
    # (447.1) is above every boot, the kernel's (396.1) below every engine run, though each
    # median lies within the other side's range widened by 10% (the review of 2026-11-29)
    assert not _set_ok([413.8, 430.0, 447.1, 447.1, 447.1], [380.6, 390.0, 396.1, 400.0, 423.1], lambda x: 0.10 * abs(x))
    # one and one: |sim - real| <= allowed(real), as a single recording is compared
    assert _set_ok([109.0], [100.0], lambda x: 0.10 * abs(x)) and not _set_ok([111.0], [100.0], lambda x: 0.10 * abs(x))
    assert _set_ok([91.0], [100.0], lambda x: 0.10 * abs(x)) and not _set_ok([89.0], [100.0], lambda x: 0.10 * abs(x))
    # a missing value on either side fails
    assert not _set_ok([1.0, None], [1.0, 1.0], tol) and not _set_ok([], [1.0], tol)
    row = Row("lru_gen", "wset 3", "read_bytes", 30000.0, 29350.0, 0.10, 64.0,
              sims=[20000.0, 30000.0, 40000.0], reals=[x * 1000 for x in kernel])
    assert row.ok and not row.counts_as_bad
    row.known = "listed"
    assert row.counts_as_bad, "a listed disagreement back within the rule must be removed"


def test_validate_recorded_compares_a_recording_set(tmp_path, capsys):
    """`recorded = [...]`: the engine runs once per recording (kernel.boot_seed 0, 1, ...) and
    each row shows the median and the range of both sides; a set the engine is outside of fails,
    an empty one is refused with the fix."""
    import json

    from conftest import cli_run

    val = os.path.join(ROOT, "scenarios", "validation")
    with open(os.path.join(val, "host-first-reader.toml")) as f:
        text = f.read()
    with open(os.path.join(val, "real", "host-first-reader.json")) as f:
        doc = json.load(f)
    (tmp_path / "real").mkdir()
    names = []
    for i, rb in enumerate((0, 4 << 20, 1 << 20)):  # read 2 re-read 0, 4 and 1 MiB in three boots
        d = json.loads(json.dumps(doc))
        d["variants"]["default"]["steps"][1]["metrics"]["read_bytes"] = rb
        (tmp_path / "real" / f"b{i}.json").write_text(json.dumps(d))
        names.append(f'"real/b{i}.json"')
    scn = tmp_path / "v.toml"
    scn.write_text(text.replace('recorded = "real/host-first-reader.json"', f"recorded = [{', '.join(names)}]"))
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 0, out + err
    assert "a recording set of 3 boots" in out and "kernel.boot_seed 0-2" in out
    assert "read 2 read_bytes: engine 0, real 0 to 4194304" in out, out
    # every boot re-read 48-64 MiB: the engine (0) is outside the set's range
    for i, rb in enumerate((48 << 20, 64 << 20, 56 << 20)):
        d = json.loads(json.dumps(doc))
        d["variants"]["default"]["steps"][1]["metrics"]["read_bytes"] = rb
        (tmp_path / "real" / f"b{i}.json").write_text(json.dumps(d))
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 1
    assert "1 metric(s) out of tolerance" in out and "read 2 read_bytes: engine 0, real 50331648 to 67108864" in out
    scn.write_text(text.replace('recorded = "real/host-first-reader.json"', "recorded = []"))
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 2 and "recorded must be a file name or a non-empty array" in err and "fix" in err


def test_a_recording_set_runs_each_boot_at_its_measured_cpu_slowdown(tmp_path, capsys):
    """A QEMU boot of a recording set that measured its guest's CPU speed (real.machine.cpu.
    cpu_slowdown, qemu.cpu_calibration()) is matched by an engine run on that machine: run i
    gets `machine.cpu_slowdown` as boot i measured it; a boot without the measurement runs at the
    scenario's factor, and validate says which factor each run had."""
    import json

    from conftest import cli_run
    from memtwin.validate import recorded_cpu_slowdown, set_run_sets

    def rec(cpu):
        return {"steps": [], "real": {"machine": {"cpus": 2, **({} if cpu is None else {"cpu": cpu})}}}

    assert recorded_cpu_slowdown(rec(None)) is None
    assert recorded_cpu_slowdown(rec({"unavailable": "the guest program printed no @@CALIB line"})) is None
    assert recorded_cpu_slowdown(rec({"hot_read_ns_per_page": 7044.9, "cpu_slowdown": 18})) == 18
    assert recorded_cpu_slowdown(rec({"cpu_slowdown": 0})) is None and recorded_cpu_slowdown(rec({"cpu_slowdown": True})) is None
    assert recorded_cpu_slowdown({"steps": []}) is None
    assert set_run_sets(0, rec(None)) == ["kernel.boot_seed=0"]
    assert set_run_sets(2, rec({"cpu_slowdown": 18})) == ["kernel.boot_seed=2", "machine.cpu_slowdown=18"]
    # a boot that split its factor (lrugen6's calibration) runs at both, and at its wake-up samples
    split = {"cpu_slowdown": 44, "code_slowdown": 18, "copy_slowdown": 51, "wakeup_latency_ns": [73000, 117000]}
    assert set_run_sets(1, rec(split)) == ["kernel.boot_seed=1", "machine.cpu_slowdown=18", "machine.copy_slowdown=51",
                                           'machine.wakeup_latency=["73000ns", "117000ns"]']
    assert set_run_sets(1, rec({**split, "copy_slowdown": 0, "wakeup_latency_ns": [-1]})) == ["kernel.boot_seed=1", "machine.cpu_slowdown=44"]
    lat = memtwin.load(os.path.join(ROOT, "scenarios", "validation", "host-first-reader.toml"))
    assert memtwin.run(lat, sets=set_run_sets(1, rec(split))).steps["sys_s"].sum() > 0  # the engine takes the settings
    # wake11: a boot that recorded its kworkers' run-queue waits (steps' kworker_run_delay_s / kworker_runs)
    # runs at their mean over its steps as machine.kworker_wakeup_latency; none recorded or none ran: not set
    from memtwin.validate import recorded_kworker_wait
    kw = {**rec(None), "steps": [{"kworker_run_delay_s": 0.001, "kworker_runs": 3}, {"name": "x"},
                                 {"kworker_run_delay_s": 0.003, "kworker_runs": 5}]}
    assert recorded_kworker_wait(kw) == 500000
    assert set_run_sets(0, kw) == ["kernel.boot_seed=0", 'machine.kworker_wakeup_latency=["500000ns"]']
    assert recorded_kworker_wait({"steps": [{"kworker_run_delay_s": 0.0, "kworker_runs": 0}]}) is None
    assert recorded_kworker_wait({"steps": [{"kworker_run_delay_s": "1", "kworker_runs": 2}]}) is None
    assert memtwin.run(lat, sets=set_run_sets(0, kw)).steps["sys_s"].sum() > 0  # the engine takes the setting
    # iso23: a boot that measured its read requests' CPU (qemu.request_calibration()) runs at it
    from memtwin.validate import recorded_submit_io_slowdown
    io = rec({"direct_read_cpu_ns_per_request": 2.1e6, "submit_io_slowdown": 130})
    assert recorded_submit_io_slowdown(io) == 130
    assert set_run_sets(0, io) == ["kernel.boot_seed=0", "machine.submit_io_slowdown=130"]
    for bad in ({"submit_io_slowdown": 0}, {"submit_io_slowdown": True}, {"submit_io_slowdown": 2.5}, {"request_unavailable": "x"}):
        assert recorded_submit_io_slowdown(rec(bad)) is None and set_run_sets(0, rec(bad)) == ["kernel.boot_seed=0"], bad
    assert memtwin.run(lat, sets=set_run_sets(0, io)).steps["sys_s"].sum() > memtwin.run(lat).steps["sys_s"].sum()
    # gap22: a boot's /proc/pagetypeinfo (pagetypeinfo_at_boot) gives its non-movable pool: the DMA32 zone's (Normal's
    # where it has one) Unmovable + Reclaimable free blocks below pageblock order, by order (buddy22: the engine's
    # __rmqueue_fallback() takes the largest buddy first and claims its block at order 4+, so the orders are given)
    from memtwin.validate import recorded_nonmovable_free

    def pt(zones):
        return {"real": {"machine": {"pagetypeinfo_at_boot": zones}}}
    dma32 = {"free": {"Unmovable": [1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0], "Movable": [0] * 10 + [101],
                      "Reclaimable": [0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0]}, "blocks": {"Unmovable": 17}}
    dma = {"free": {"Unmovable": [0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0], "Reclaimable": [0] * 11}}
    assert recorded_nonmovable_free(pt({"0/DMA": dma, "0/DMA32": dma32})) == [1, 0, 1, 1, 1, 1, 0, 1, 0]
    assert set_run_sets(0, pt({"0/DMA32": dma32})) == ["kernel.boot_seed=0", "machine.nonmovable_free=[1, 0, 1, 1, 1, 1, 0, 1, 0]"]
    assert recorded_nonmovable_free(pt({"0/DMA": dma, "0/Normal": {"free": {"Unmovable": [3], "Reclaimable": [2]}}, "0/DMA32": dma32})) == [5] + [0] * 8
    for bad in ({}, {"0/DMA": dma}, {"0/DMA32": {"free": {"Unmovable": [1, -1]}}}, {"0/DMA32": {"free": {"Unmovable": "x"}}}):
        assert recorded_nonmovable_free(pt(bad)) is None and set_run_sets(0, pt(bad)) == ["kernel.boot_seed=0"], bad
    gs = memtwin.load(os.path.join(ROOT, "scenarios", "validation", "qemu612-lrugen-global-stream.toml"))
    run_at = lambda extra: memtwin.run(gs, variant="lru_gen", sets=["kernel.boot_seed=0"] + extra).steps  # noqa: E731
    assert not run_at(["machine.nonmovable_free=947"]).equals(run_at([])), "the engine takes the pool"
    assert not run_at(["machine.nonmovable_free=[1, 0, 1, 1, 1, 1, 0, 1, 0]"]).equals(run_at([])), "and its buddies"

    val = os.path.join(ROOT, "scenarios", "validation")
    with open(os.path.join(val, "host-first-reader.toml")) as f:
        text = f.read()
    with open(os.path.join(val, "real", "host-first-reader.json")) as f:
        doc = json.load(f)
    (tmp_path / "real").mkdir()
    names = []
    for i in range(3):
        d = json.loads(json.dumps(doc))
        if i == 1:
            d["variants"]["default"]["real"].setdefault("machine", {})["cpu"] = {"hot_read_ns_per_page": 1978.0, "cpu_slowdown": 5}
        (tmp_path / "real" / f"b{i}.json").write_text(json.dumps(d))
        names.append(f'"real/b{i}.json"')
    scn = tmp_path / "v.toml"
    scn.write_text(text.replace('recorded = "real/host-first-reader.json"', f"recorded = [{', '.join(names)}]"))
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code in (0, 1), out + err
    flat = " ".join(out.split())  # validate wraps its lines
    assert "kernel.boot_seed 0-2, each at its boot's measured machine.cpu_slowdown (-, 5, -; -: not measured, the scenario's)" in flat, out
    # the factor reaches the engine: every CPU cost of run 1 is 5 times the reference machine's
    s = memtwin.load(str(scn))
    fast = memtwin.run(s, sets=["kernel.boot_seed=1"]).steps["sys_s"].sum()
    slow = memtwin.run(s, sets=set_run_sets(1, json.loads((tmp_path / "real" / "b1.json").read_text())["variants"]["default"])).steps["sys_s"].sum()
    assert fast > 0 and abs(slow / fast - 5) < 0.01, (fast, slow)


def test_a_recording_set_of_measured_runs_starts_each_twin_run_from_its_runs_cache(tmp_path, capsys):
    """A recorded program kept as a recording set of `memtwin measure` runs (lab/
    record_trace_validation.py --runs N): each measurement is checked as a single one is (its
    limit, its command), and the twin's run i starts from the cache measured run i started with
    (`api.start_from`): a run that started with cat's whole 48 MiB file cached makes that twin run
    read almost nothing. A set mixing measurements with memtwin real runs is refused."""
    import json

    from conftest import cli_run

    val = os.path.join(ROOT, "scenarios", "validation")
    with open(os.path.join(val, "trace-cat.toml")) as f:
        text = f.read()
    with open(os.path.join(val, "real", "trace-cat.json")) as f:
        doc = json.load(f)
    os.symlink(os.path.join(val, "traces"), tmp_path / "traces")
    (tmp_path / "real").mkdir()
    warm = json.loads(json.dumps(doc))
    for v in warm["variants"].values():
        v["real"]["resident_at_start"]["/var/tmp/mtval/big.bin"] = [[0, 12288]]
    for i, d in enumerate((doc, doc, warm)):
        (tmp_path / "real" / f"r{i}.json").write_text(json.dumps(d))
    scn = tmp_path / "trace-cat.toml"
    one = 'recorded = "real/trace-cat.json"'
    assert one in text
    scn.write_text(text.replace(one, 'recorded = ["real/r0.json", "real/r1.json", "real/r2.json"]')
                   .replace('initial_cache = "real/trace-cat.json"', 'initial_cache = "real/r0.json"'))
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert "a recording set of 3 measured runs" in out, out + err
    block = out.split("variant 256M:")[1].split("variant 48M:")[0]
    rows = [ln for ln in block.splitlines() if "run read_bytes: engine" in ln]
    assert rows, out
    lo, hi = rows[0].split("read_bytes: engine ")[1].split(",")[0].split(" to ")
    assert int(hi) == 50380800 and int(lo) < 4 << 20, rows[0]
    # a set with a memtwin real run in it
    real_run = json.loads(json.dumps(doc))
    for v in real_run["variants"].values():
        del v["real"]["limit_bytes"]
    (tmp_path / "real" / "r1.json").write_text(json.dumps(real_run))
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 2 and "mixes measurements (memtwin measure) and runs of memtwin real (recording 2" in err and "fix" in err


def test_validate_replays_a_recordings_step_gaps_and_prefers_the_file_calibration():
    """recorded_step_gaps(): where every step of a task carries its window on the guest's clock
    (qemu.step_windows()), the engine's run against that recording sleeps the time from each step's
    end to the task's next step's start (tasks.NAME.step_gaps, in whole microseconds), for every
    task so recorded; none without windows. recorded_split_slowdown() takes the split factors from
    the guest's reads of a file on the scenario's disk (qemu.file_calibration()) over the memfd's."""
    from memtwin.qemu import split_factors
    from memtwin.validate import recorded_split_slowdown, recorded_step_gaps, set_run_sets

    steps = [{"task": "t", "name": "a", "window_s": [0.0, 0.344174]}, {"task": "u v", "name": "x", "window_s": [0.1, 0.2]},
             {"task": "t", "name": "b", "window_s": [0.449313, 0.661267]}, {"task": "u v", "name": "y", "window_s": [0.25, 0.3]},
             {"task": "t", "name": "c", "window_s": [1.065525, 1.095816]}]
    assert recorded_step_gaps({"steps": steps}) == ['tasks.t.step_gaps=["105139us", "404258us"]', 'tasks."u v".step_gaps=["50000us"]']
    assert recorded_step_gaps({"steps": [dict(s, window_s=None) for s in steps]}) == []
    assert recorded_step_gaps({"steps": []}) == []
    cpu = {"cpu_slowdown": 48, "code_slowdown": 10, "copy_slowdown": 58,
           "file_hot_read_ns_per_page": 9579.7, "file_small_read_ns_per_call": 2669.6, "cold_read_ns_per_page": 20355.0}
    rec = {"steps": steps, "real": {"machine": {"cpu": cpu}}}
    assert recorded_split_slowdown(rec) == split_factors(2669.6, 9579.7) == (11, 28)
    assert set_run_sets(0, rec) == ["kernel.boot_seed=0", "machine.cpu_slowdown=11", "machine.copy_slowdown=28",
                                    'tasks.t.step_gaps=["105139us", "404258us"]', 'tasks."u v".step_gaps=["50000us"]']
    older = {"real": {"machine": {"cpu": {k: v for k, v in cpu.items() if not k.startswith("file_")}}}}
    assert recorded_split_slowdown(older) == (10, 58)


def test_validate_replays_a_recordings_setup_writes():
    """wbt23: the QEMU runner's set-up writes and when each ended before the tasks (the guest
    program's @@SETUPW and @@START lines, qemu.setup_writes()) go to the engine's run against that
    recording as `validation.setup_writes` (recorded_setup_writes(), in set_run_sets()); the engine
    ages their completions over the time to the tasks (Kernel::wb_setup_writeout), so the run moves;
    none for a recording without them (host runs, QEMU runs before wbt23)."""
    from memtwin.api import load, run
    from memtwin.qemu import setup_writes
    from memtwin.validate import recorded_setup_writes, set_run_sets

    out = "@@SETUPW 67108864 4.6012\nnoise\n@@SETUPW 16777216 10.3\n@@COLD 0\n@@START 11.66\n"
    ws = setup_writes(out)
    assert ws == [{"bytes": 67108864, "ended_s": 7.0588}, {"bytes": 16777216, "ended_s": 1.36}]
    assert setup_writes(out.replace("@@START 11.66\n", "")) == [], "no start line: an older guest program"
    rec = {"real": {"setup_writes": ws}}
    sets = recorded_setup_writes(rec)
    assert sets == ['validation.setup_writes=[{ size = 67108864, ended = "7058800us" }, { size = 16777216, ended = "1360000us" }]']
    assert set_run_sets(0, rec) == ["kernel.boot_seed=0"] + sets
    assert recorded_setup_writes({"real": {}}) == []
    # tmpfs21: a declared file of size 0 writes nothing back: the runner records no entry for it
    # now, and an older recording's 0-byte entry is dropped
    assert setup_writes("@@SETUPW 0 4.0\n" + out) == ws
    assert recorded_setup_writes({"real": {"setup_writes": [{"bytes": 0, "ended_s": 7.5}] + ws}}) == sets
    for bad in ([{"bytes": "x"}], [], [{"bytes": 4096, "ended_s": -1}], {"bytes": 4096}, [{"bytes": 0, "ended_s": 1.0}]):
        # review12 L4: refused with the recording, the place and the fix, not dropped silently
        with pytest.raises(memtwin.ScenarioError, match=r"(?s)x.toml: error: recording 2 of the set: real.setup_writes is .*fix: re-record it"):
            recorded_setup_writes({"real": {"setup_writes": bad}}, "x.toml", "recording 2 of the set")
    scn = load(os.path.join(os.path.dirname(memtwin.__file__), "scenarios", "validation-pending", "qemu61-wbt-reader.toml"))
    untimed = run(scn).to_json()
    timed = run(scn, sets=sets).to_json()
    assert [s["metrics"] for s in untimed["steps"]] != [s["metrics"] for s in timed["steps"]]


def test_step_gaps_of_a_recording_that_does_not_fit_the_plan_are_refused_and_bad_file_figures_not_used():
    """recorded_step_gaps(real, plan): a task whose recorded steps (with windows) are not as many as the
    scenario's plan has is refused with the recording, both counts and re-recording as the fix, not an
    error about a step_gaps setting the user never wrote; recorded_split_slowdown() leaves a file
    calibration whose 1-byte read is slower than a page of its hot read (a host stall), or that is not
    finite, and takes the memfd's split."""
    from memtwin._memtwin import ScenarioError
    from memtwin.validate import recorded_split_slowdown, recorded_step_gaps, set_run_sets

    plan = {"tasks": [{"name": "t", "ops": [{"step": "a"}, {"step": "a"}, {"step": "b"}, {"step": "c"}]}]}
    steps = [{"task": "t", "name": n, "window_s": [k, k + 0.5]} for k, n in enumerate("abc")]
    assert recorded_step_gaps({"steps": steps}, plan, "x.toml: validation") == ['tasks.t.step_gaps=["500000us", "500000us"]']
    with pytest.raises(ScenarioError) as e:
        set_run_sets(3, {"steps": steps[:2]}, plan, "x.toml: validation")
    msg = str(e.value)
    assert "x.toml: validation: error: recording 4 of the set: task t has 2 recorded steps with windows, the scenario's plan has 3 step(s)" in msg, msg
    assert "fix: re-record it" in msg, msg
    with pytest.raises(ScenarioError, match="task u has 3 recorded steps with windows, the scenario's plan has no such task"):
        recorded_step_gaps({"steps": [dict(s, task="u") for s in steps]}, plan, "x.toml: validation")
    cpu = {"code_slowdown": 10, "copy_slowdown": 58, "file_hot_read_ns_per_page": 7700.0, "file_small_read_ns_per_call": 10429.0}
    assert recorded_split_slowdown({"real": {"machine": {"cpu": cpu}}}) == (10, 58)
    assert recorded_split_slowdown({"real": {"machine": {"cpu": dict(cpu, file_hot_read_ns_per_page=float("inf"))}}}) == (10, 58)


def test_a_tolerance_may_give_steps_their_own_abs(tmp_path, capsys):
    """review10 M2: `{ rel, abs, steps = { "STEP" = ABS } }` holds a listed step to its own abs and
    every other step to `abs`: a quiet step of a boot set is not held to the noisiest step's band
    (qemu61-wbt-reader's Dirty_kB read 1 was median 16000 +- 18980, a band that took in 0). Bad
    forms are refused with the place and the fix."""
    from memtwin.validate import compare_steps, tolerances

    spec = {"tolerance": {"meminfo.Dirty_kB": {"rel": 0.1, "abs": 18980, "steps": {"read 1": 1736}}, "read_bytes": 0.1}}
    tol = tolerances(spec, "f.toml: validation")
    assert tol == {"meminfo.Dirty_kB": (0.1, 18980.0, {"read 1": 1736.0}), "read_bytes": (0.1, 0.0, {})}
    step = lambda name, dirty: {"task": "t", "name": name, "metrics": {"meminfo.Dirty_kB": dirty, "read_bytes": 0}}  # noqa: E731
    real = [step("read 1", 16000), step("read 2", 16000)]
    # a twin with no dirty memory: read 1 (own abs 1736) fails, read 2 (the default 18980) passes
    rows = {(r.step, r.metric): r for r in compare_steps("default", [step("read 1", 0), step("read 2", 0)], real, tol, None, "f")}
    assert rows[("read 1", "meminfo.Dirty_kB")].abs == 1736.0 and not rows[("read 1", "meminfo.Dirty_kB")].ok
    assert rows[("read 2", "meminfo.Dirty_kB")].abs == 18980.0 and rows[("read 2", "meminfo.Dirty_kB")].ok
    assert rows[("read 1", "meminfo.Dirty_kB")].allowed == 1736.0
    near = {(r.step, r.metric): r for r in compare_steps("default", [step("read 1", 17600), step("read 2", 0)], real, tol, None, "f")}
    assert near[("read 1", "meminfo.Dirty_kB")].ok  # 1600 <= max(1600, 1736)
    # a listed step the scenario does not have
    bad_tol = tolerances({"tolerance": {"m": {"rel": 0.1, "steps": {"read 9": 5}}}}, "f.toml: validation")
    with pytest.raises(memtwin.ScenarioError) as e:
        compare_steps("default", real, real, bad_tol, None, "f.toml: validation")
    assert "f.toml: validation.tolerance.m.steps" in str(e.value) and "'read 9'" in str(e.value) and "fix" in str(e.value)
    for bad, place in (({"rel": 0.1, "steps": {"read 1": -1}}, "tolerance.m.steps.read 1"),
                       ({"rel": 0.1, "steps": {"read 1": "5"}}, "tolerance.m.steps.read 1"),
                       ({"rel": 0.1, "steps": [1736]}, "tolerance.m.steps"),
                       ({"rel": 0.1, "steps": {}}, "tolerance.m.steps"),
                       ({"rel": 0.1, "abs": -4}, "tolerance.m"),
                       ({"rel": 0.1, "step": {"read 1": 5}}, "tolerance.m")):
        with pytest.raises(memtwin.ScenarioError) as e:
            tolerances({"tolerance": {"m": bad}}, "f.toml: validation")
        assert f"f.toml: validation.{place}" in str(e.value) and "fix" in str(e.value) and "steps = {" in str(e.value), (bad, str(e.value))
    # through the CLI: exit 2, the place and the fix, no traceback
    from conftest import cli_run

    val = os.path.join(ROOT, "scenarios", "validation")
    with open(os.path.join(val, "host-first-reader.toml")) as f:
        text = f.read()
    (tmp_path / "real").mkdir()
    with open(os.path.join(val, "real", "host-first-reader.json")) as f:
        (tmp_path / "real" / "host-first-reader.json").write_text(f.read())
    assert "[validation.tolerance]\n" in text
    scn = tmp_path / "v.toml"
    scn.write_text(text.replace("[validation.tolerance]\n", '[validation.tolerance]\nelapsed_s = { rel = 0.1, steps = { "no such step" = 1 } }\n'))
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 2 and "tolerance.elapsed_s.steps" in err and "'no such step'" in err and "fix" in err, (code, out, err)
    assert "Traceback" not in err


def test_recorded_vcpu_stall_is_read_and_checked():
    """validate.recorded_vcpu_stall() (zswap20): a boot's probe as `[machine] vcpu_stall` (every
    CPU's gaps) and `vcpu_stall_interval` (probe time on all CPUs over the gaps); none without a
    probe or without gaps; a malformed probe refused with the recording, the place and the fix; the
    settings run (the engine's keys take them)."""
    from memtwin import validate
    from memtwin._memtwin import ScenarioError

    def rec(st):
        return {"real": {"machine": {"cpu": {"vcpu_stall": st}}}}
    good = {"probe_ns": 2000000000, "min_ns": 100000, "cpus": [{"reads": 9, "gaps_ns": [2700000, 31000000]}, {"reads": 9, "gaps_ns": [500000]}]}
    assert validate.recorded_vcpu_stall(rec(good)) == ['machine.vcpu_stall=["2700000ns", "31000000ns", "500000ns"]',
                                                       'machine.vcpu_stall_interval="1333333333ns"']
    assert validate.recorded_vcpu_stall({"real": {"machine": {"cpu": {}}}}) == []
    assert validate.recorded_vcpu_stall(rec({"probe_ns": 5, "cpus": [{"gaps_ns": []}]})) == []
    for bad in ({"probe_ns": 0, "cpus": [{"gaps_ns": [5]}]}, {"probe_ns": 5, "cpus": []}, {"probe_ns": 5, "cpus": [{"gaps_ns": [-5]}]},
                {"probe_ns": 5, "cpus": [{"gaps_ns": ["5ms"]}]}, {"probe_ns": 5, "cpus": {"0": [5]}}, [5, 6]):
        with pytest.raises(ScenarioError) as e:
            validate.recorded_vcpu_stall(rec(bad), "s.toml", "recording 3 of the set")
        assert "s.toml" in str(e.value) and "recording 3 of the set" in str(e.value) and "re-record" in str(e.value), str(e.value)
    scn = memtwin.load(os.path.join(os.path.dirname(memtwin.__file__), "scenarios", "validation", "qemu61-zswap-pool-limit.toml"))
    sets = validate.recorded_vcpu_stall(rec({"probe_ns": 2000000000, "cpus": [{"gaps_ns": [3000000] * 50}, {"gaps_ns": [3000000] * 50}]}))
    from memtwin.api import run
    plain = run(scn, sets=["kernel.boot_seed=1"]).to_json()["steps"][0]["metrics"]["elapsed_s"]
    stalled = run(scn, sets=["kernel.boot_seed=1"] + sets).to_json()["steps"][0]["metrics"]["elapsed_s"]
    assert stalled > plain * 1.05, (plain, stalled)


def test_a_set_mixing_the_runners_before_and_after_hog23b_is_named():
    """review52 M3: a set of host recordings of a run with several tasks that mixes the runner before hog23b (its
    folio scan between a task's steps) and after it (the scan after every other task ended, named by
    real.folios_source's HOST_FOLIOS_WHEN) is found, each recording named with its runner; one runner, one-task
    runs and recordings without folio scans are not. Fails if the kind is read from anything else."""
    from memtwin.real import FOLIOS_SOURCE, HOST_FOLIOS_WHEN
    from memtwin.validate import folio_scan_runner_mix

    def rec(src, tasks=("cp", "hog")):
        return {"steps": [{"task": t} for t in tasks], "real": {} if src is None else {"folios_source": src}}

    old, new = rec(FOLIOS_SOURCE), rec(FOLIOS_SOURCE + HOST_FOLIOS_WHEN)
    assert folio_scan_runner_mix([new, old, new]) == [(1, "hog23b's runner"), (2, "before hog23b"), (3, "hog23b's runner")]
    assert folio_scan_runner_mix([new, new]) == [] and folio_scan_runner_mix([old, old]) == []
    assert folio_scan_runner_mix([rec(FOLIOS_SOURCE, ("t",)), rec(FOLIOS_SOURCE + HOST_FOLIOS_WHEN, ("t",))]) == []
    assert folio_scan_runner_mix([rec(None), new]) == []


def test_not_evidence_rows_are_marked_and_refused_beside_known_out():
    """review52 M2: [[validation.not_evidence]] is read as known_out is (variant, step, metric, why; errors name the
    entry and the fix), a row listed in both is refused by validate_file, and format_rows marks a within row
    listed there "ok, not evidence" (an out row stays OUT). Fails if the mark or the refusal goes."""
    import pytest
    from memtwin.validate import Row, format_rows, known_out

    spec = {"not_evidence": [{"variant": "v", "step": "write", "metric": "sched.run_delay_s", "why": "compensates"}]}
    assert known_out(spec, "s.toml: validation", "not_evidence") == {("v", "write", "sched.run_delay_s"): "compensates"}
    with pytest.raises(Exception) as e:
        known_out({"not_evidence": [{"step": "write", "metric": "m", "why": " "}]}, "s.toml: validation", "not_evidence")
    assert "not_evidence[0]" in str(e.value) and "why is empty" in str(e.value)
    ok = Row("v", "write", "sched.run_delay_s", 1.05, 1.0, 0.2, 0, not_evidence="compensates")
    out = Row("v", "write", "elapsed_s", 2.0, 1.0, 0.2, 0, not_evidence="compensates")
    text = format_rows([ok, out])
    assert "ok, not evidence" in text and "OUT" in text


def test_a_row_in_known_out_and_not_evidence_is_refused(tmp_path):
    import shutil
    import pytest
    from memtwin.validate import validate_file

    src = os.path.join(ROOT, "scenarios", "validation", "host-queue-rw-wbt.toml")
    d = tmp_path / "validation"
    shutil.copytree(os.path.dirname(src), d, ignore=lambda p, names: [n for n in names if n.endswith(".toml") and n != "host-queue-rw-wbt.toml"])
    p = d / "host-queue-rw-wbt.toml"
    text = p.read_text()
    i = text.index("[[validation.not_evidence]]")
    entry = text[i:].split("\n\n")[0]
    p.write_text(text + "\n" + entry.replace("not_evidence", "known_out") + "\n")
    with pytest.raises(Exception) as e:
        validate_file(str(p), None, True)
    assert "is listed in known_out too" in str(e.value) and "list a row in one of them" in str(e.value)
