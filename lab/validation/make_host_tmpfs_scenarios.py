#!/usr/bin/env python3
"""Write the host validation scenarios of tmpfs21c (issue 21: tmpfs on the host runner, 6.18's
tmpfs large folios) into scenarios/validation/: host-tmpfs-{loose,tight}-{never,always,within}.toml,
this host's 6.18 kernel (cgroup v1, engine profile linux-6.18), a tmpfs the host runner mounts
below its scratch directory with huge=never, huge=always or huge=within_size (real.HostRun._tmpfs).

What 6.18 does with a tmpfs write (mm/shmem.c, 6.18; the 6.1 and 6.12 behaviour is shmem.rs's
`TmpfsHuge::Pmd`): shmem_write_begin() asks shmem_get_folio_gfp() for the page with
write_end = pos + len (len: the chunk generic_perform_write() gives it, at most the mapping's
largest folio, 2 MiB, since tmpfs mappings take large folios when the mount has huge=:
mapping_set_large_folios() in __shmem_get_inode()); shmem_allowable_huge_orders() returns, for a
file of a tmpfs mount (no anonymous-shmem VMA), shmem_huge_global_enabled()'s orders alone (the
per-size hugepages-*kB/shmem_enabled knobs are anonymous shmem's): huge=always every order of
THP_ORDERS_ALL_FILE_DEFAULT (PMD first, "mm: shmem: fix the strategy for the tmpfs 'huge='
options"), huge=within_size the orders whose aligned extent ends within max(i_size, write_end)
(shmem_get_orders_within_size()); shmem_alloc_and_add_folio() takes the highest order whose
extent holds no entry (shmem_suitable_orders()) and falls to the next order when the allocation
fails, to order 0 when the charge fails.

Probe (2026-12-01 06:30 UTC, this host, outside the runner): on a huge=always tmpfs an 8 MiB file
written in 1 MiB dd blocks, a 256 KiB file in 64 KiB blocks and one 4 KiB write at 20 KiB each took
PMD folios: thp_file_alloc +6, hugepages-2048kB/stats/shmem_alloc +6, no smaller size counted (the
size-of-the-write orders of 6.14-6.17, acd7ccb284b8, would have given the 64 KiB writes 64 KiB
folios and the 4 KiB write a base page).

The workload, the same on each mount, in memcg A:
- write: a new 128M file written in 1M write() calls; huge=always: 64 PMD folios;
  huge=within_size: write_end is the write's end, i_size the file's size before it, so each 1M
  write takes a 1 MiB folio (order 8: round_up(index + 1, 512) lies beyond the write's end at the
  first write of each 2 MiB, and the order-8 folio then in that extent refuses a PMD one at the
  second);
- read1, read2: the file read twice;
- rewrite: open(O_TRUNC) and 64M written from 0 in 64K write() calls: always PMD folios again,
  within_size 64 KiB folios (order 4: the write's end bounds the extent).
loose: memory.limit_in_bytes 512M, no reclaim. tight: memory.limit_in_bytes 64M and a 256M swap
file on the run's image: the file is swapped out as it is written (6.18's shmem_writeout() of a
large folio on a swap file splits it: no contiguous slots outside a block device).

The metrics: memory.stat total_shmem and total_cache (v1 has no shmem_thp), memory.usage_in_bytes,
/proc/vmstat thp_file_alloc and thp_file_fallback, the per-size shmem counters below 2 MiB
(`mthp.shmem_alloc`, the sum of hugepages-{8..1024}kB/stats/shmem_alloc over the step), pgfault,
and on tight swap-out and swap-in. /proc/meminfo ShmemHugePages is the host's whole (other users'
tmpfs included): not a metric here.

Recorded results go to scenarios/validation/real/ (see README, "Validation against real kernels").
Run from the repository root: python3 lab/validation/make_host_tmpfs_scenarios.py
"""
import os

from scenario_text import MIB, OUT, READER_WINDOW, check_quiet_set, head, tol, with_recording_set

PENDING_OUT = os.path.join(os.path.dirname(OUT), "validation-pending")

# Recording sets (real/NAME.json and real/NAME-runN.json; validate compares the medians).
RECORDING_SETS = {f"host-tmpfs-{lim}-{m}": 3 for lim in ("loose", "tight") for m in ("never", "always", "within")}

# What each recording set was recorded under: one run per hold of both locks (/tmp/memtwin-qemu.lock,
# /tmp/memtwin-host.lock), `nice -n -10 memtwin real ... --on host`, the six scenarios interleaved;
# /proc/loadavg at each run's start and end in lab/validation/host-tmpfs-load-1201.txt (the 1-minute
# figure's range below). The host was loaded by the session's other helpers: loaded sets, not idle.
RECORDED = {
    "host-tmpfs-loose-never": "2026-12-01 06:32-06:42 UTC, host load 9.3-13.0 (loaded: other helpers' work)",
    "host-tmpfs-loose-always": "2026-12-01 06:33-06:42 UTC, host load 8.3-12.7 (loaded: other helpers' work)",
    "host-tmpfs-loose-within": "2026-12-01 06:34-06:43 UTC, host load 9.5-12.7 (loaded: other helpers' work)",
    # the tight sets re-recorded after the runner's cleanup fix (the first tight-never run's swapoff
    # failed, see the load file), the three interleaved
    "host-tmpfs-tight-never": ("2026-12-02 16:55-17:13 UTC on 6.18.44-fc-v1045, a quiet host (1-minute load 0.74-1.31, the s56q "
                               "set: lab/validation/tmpfs56q); the loaded set of 2026-12-01 06:47-06:53 (load 5.2-10.2) kept "
                               "in real/ as NAME.json and NAME-run2..3.json, not compared"),
    "host-tmpfs-tight-always": ("2026-12-02 16:55-17:13 UTC on 6.18.44-fc-v1045, a quiet host (1-minute load 0.74-1.31, the s56q "
                                "set: lab/validation/tmpfs56q); the loaded set of 2026-12-01 06:48-06:54 (load 5.8-11.9) kept "
                                "in real/ as NAME.json and NAME-run2..3.json, not compared"),
    "host-tmpfs-tight-within": ("2026-12-02 16:55-17:13 UTC on 6.18.44-fc-v1045, a quiet host (1-minute load 0.74-1.31, the s56q "
                                "set: lab/validation/tmpfs56q); the loaded set of 2026-12-01 06:49-06:56 (load 6.6-13.7) kept "
                                "in real/ as NAME.json and NAME-run2..3.json, not compared"),
}

# Not compared: elapsed_s (a loaded host: the runner marks its times not comparable). Seen, for
# the next one who models tmpfs write time: the loose write step took 0.05 s on within_size (order-8
# folios), 0.12-0.24 s on never and 0.50-0.69 s on always (PMD folios; sys 0.20-0.25 s against
# 0.015 s on within_size), the engine 0.010-0.030 s; the cause of always's PMD cost is not measured.

# The tight sets are in scenarios/validation-pending. Under the 64M limit the kernel's large charges
# fail: tight-always's write step counts thp_file_fallback_charge 33 of 64 PMD attempts (each of the
# three runs), and 1,218-1,270 failed charges of the smaller sizes (mthp.shmem_fallback_charge),
# tight-within 1,266-1,270. Measured cause of the PMD part (6.12 and 6.18 source): since 6.7
# shmem_alloc_and_add_folio() charges the folio with the huge gfp it allocated by,
# limit_gfp_mask(vma_thp_gfp_mask(NULL), gfp), which under THP defrag madvise (this host's) is
# GFP_TRANSHUGE_LIGHT without __GFP_DIRECT_RECLAIM: a charge over the limit fails at once, no memcg
# reclaim (shmem.rs shmem_huge_charge_gfp(); 6.1 charged with the mapping's gfp). With it the engine
# gives the kernel's 31 PMD folios and 33 fallbacks in write (before: 64 and 0) and rewrite's 31/1
# and 27 small folios against 29. The small charges after a failed large one (engine 2026-12-01: 27
# (always) and 82 (within) succeeded against the kernel's 2,281-2,390; 8,179 failed against 1,218-1,279),
# measured (tmpfs21, 2026-12-02, lab/validation/trace-tmpfs21-1202/README.md): not the per-CPU charge stock
# (6.15+ try_charge_memcg() gives a gfp without __GFP_RECLAIM `batch = nr_pages`: no refill), but the
# reclaim's margin: the kernel's memcg reclaims free 33-87 pages a call (mostly 39-41) and the NoBlock small
# charges fill exactly that (a trace: 41 freed, then folios of 1+1+2+16+1+1+2+4+8+1+1+2+1 = 41 pages
# before the next reclaim); a few reclaims isolate whole large folios from the inactive list and write out
# 512-5,632 pages. The engine's reclaims freed 1-2 pages a call: its write marked a tmpfs folio accessed at
# each page, so every large folio went active at its second page (16,336 of 16,347 pages active) and the
# inactive list held 3-11 pages. 6.14+ generic_perform_write() gives a tmpfs mapping with large folios one
# shmem_write_begin() a folio (Kernel::shmem_write_begin_per_folio): after it the engine gives always
# 2,389 / 1,380 and within 2,390 / 1,414 (alloc / fallback_charge), tight-within's read1 pswpin 32,774
# (kernel 32,784-32,792), and tight-within validates (every metric within tolerance). tight-always's read2
# pswpin/pswpout (engine 16,900 / 16,698, kernel 32,803-32,809 / 32,027-33,910: the kernel swaps the whole
# file in again, the engine kept half resident), measured (tmpfs56, 2026-12-02,
# lab/validation/trace-tmpfs56-1202/README.md): the kernel deactivates, splits and swaps out the 31 PMD
# folios in read1 (pgdeactivate 15,872, thp_split_page 31; run3 in write) because the runner's memory.stat
# read at the write step's end flushed the memcg's stats (mem_cgroup_flush_stats(), traced: 129-195
# updates pending at each step end) and 6.12+ limit reclaim reads inactive_is_low() from that copy until
# the next periodic flush; the engine's copy was the boot's (no periodic flush in its 1 s run). With the
# runner's read modelled (Kernel::mem_cgroup_flush_stats at a runner scenario's step snapshots): read1
# pgdeactivate 15,872, read2 pswpin 32,782 / pswpout 31,938 (in tolerance); read1's pswpout 20,845 and
# shmem 50.7 MB and read2's shmem 54.1 MB now out against the medians (18,260; 62.6 and 60.2 MB) though
# the traced run gave 20,267, 51.3 and 54.4 MB. Still out there: rewrite pswpout (123 against 156-1,692).
# Found, not fixed: the engine swaps a large tmpfs folio out whole (SwapArea::blkdev is always true) where
# the host runner's swap file makes 6.18 split it (thp_split_page 31, thp_swpout 0); making the host's
# area a file fixes always's read1 but puts tight-within's write out (the README: completions before the
# split folio's putback). tight-never is out on read2's shmem (-10.2%; pswpout +7.1% in tolerance now),
# unexplained (no large folios there; the flush changes nothing in it).
#
# s56q (the lead, 2026-12-02 16:55-17:13 UTC, session s56): the three tight scenarios recorded anew on a quiet host
# by host-set-rule.md 1 (lab/validation/tmpfs56q: rec.sh, rec.log; six rounds, the three in turn, one run per hold of
# both locks, the runner at nice -10, nothing else running: 1-minute load 0.74-1.31 at every start and end, every rc
# 0), on 6.18.44-fc-v1045, after tmpfs56's flush. That set is each tight scenario's compared set (QUIET_SETS below;
# the loaded 2026-12-01 set of three stays in real/, not compared). Against it (tmpfs56q/robust.txt, host-set-rule.md
# 2-3: validate's inputs, the seed blocks from 6, 12 and 18, and the reader's cost, the device window and the
# anonymous costs each scaled 0.97-1.03): tight-never and tight-always are within on every metric at all 22 points
# (the engine's figures do not move at any of them: no timing in what these scenarios compare), so both move to
# scenarios/validation (host-set-rule.md 4). The loaded set's outs above (always's read1 pswpout and shmem, read2
# shmem; never's read2 shmem) were the loaded kernel's: the quiet kernel's medians are the engine's within 0.8-2.8% on
# pswpout. tight-within is out on its write step at all 22 (memcg file/shmem 66,846,720 against the quiet kernel's
# 54,362,112, +23.0%; pswpout 16,448 against 19,496, -15.6%), where the loaded set had it within: the quiet kernel
# swaps more of the file out while writing it. tmpfs56's found-not-fixed mechanism points the same way (the host's
# swap file makes 6.18 split a large folio at swap-out where the engine writes it whole: with the area a file the
# engine gave 50.6 MB and 20,416 against the loaded set), not tried against this set: within stays pending.
QUIET_SETS = {f"host-tmpfs-tight-{m}": 6 for m in ("never", "always", "within")}
QUIET_TAG = "s56q"
QUIET_KERNEL = "6.18.44-fc-v1045"
# s59 (the lead, 2026-12-02, session s59): the host runner's swap area is a file (real._swap: fallocate + mkswap +
# swapon on the run's image), so the scenarios now say `[machine] swap_file = true` and the engine's area has no
# SWP_BLKDEV: 6.18's shrink_shmem_folio()/shmem_writepage() splits a large tmpfs folio at swap-out instead of writing
# it whole (tmpfs56's found-not-fixed mechanism above). Against the s56q quiet set, tight-within is then within at
# validate's inputs and at all 22 points of tmpfs56q/robust.py (in, seed6/12/18, reader/device/anon x0.97-1.03:
# "OUT: none" at each), and tight-never and tight-always stay within at all of theirs: tight-within moves to
# scenarios/validation (host-set-rule.md 4).
# s60 (review of the s59 change): tight-within's write step rotates fewer of its swapped pages than the kernel
# (vmstat.pgrotated, NOT compared: 12,348 with swap_file, 16,448 without, the s56q set's median 17,628, 16,672-21,244;
# tight-always read1 17,781 against 19,817): the split pages whose swap write completes while reclaim still holds
# them isolated (shmem.rs shmem_putback_written()) go back unrotated, as the kernel's would, so what differs is when
# the loop device completes the swap writes (trace-tmpfs56-1202/README.md "Found and left": not measured yet).
# thp_split_page and thp_swpout are compared from s60: the recordings split every large folio they swap (31 in
# tight-always's read1, thp_swpout 0 everywhere), which only the swap_file rule gives.
PENDING = set()
PENDING_NOTE = ("# In validation-pending (make_host_tmpfs_scenarios.py PENDING): against its quiet set (s56q) the write step is\n"
                "# out (memcg file/shmem +23.0%, pswpout -15.6%: the quiet kernel swaps more of the file out while writing it);\n"
                "# what is known of why: see the generator.\n")

# Known disagreements, each with its measured cause ([[validation.known_out]]).
KNOWN_OUT = {}

MOUNTS = (("never", "never"), ("always", "always"), ("within", "within_size"))
LIMITS = (("loose", "512M", None), ("tight", "64M", "256M"))

METRICS = [("memcg.usage_bytes", 2 * MIB), ("memcg.file_bytes", 2 * MIB), ("memcg.shmem_bytes", 2 * MIB),
           ("vmstat.thp_file_alloc", 1), ("vmstat.thp_file_fallback", 1), ("mthp.shmem_alloc", 2),
           ("memcg.pgfault", 256)]
SWAP_METRICS = [("memcg.swap_bytes", 2 * MIB), ("vmstat.pswpout", 512), ("vmstat.pswpin", 512),
                # how a large tmpfs folio goes to swap (the swap file splits it: [machine] swap_file, s60 review)
                ("vmstat.thp_split_page", 1), ("vmstat.thp_swpout", 1)]


def known(name):
    out = ""
    for step, metric, why in KNOWN_OUT.get(name, []):
        out += f'\n[[validation.known_out]]\nstep = "{step}"\nmetric = "{metric}"\nwhy = "{why}"\n'
    return out


def main():
    for lim, limit, swap in LIMITS:
        for suffix, huge in MOUNTS:
            name = f"host-tmpfs-{lim}-{suffix}"
            what = (f"a 128M tmpfs file (huge={huge}) written in 1M writes, read twice, truncated and rewritten in 64K "
                    f"writes, memory.limit_in_bytes {limit}" + (f", a {swap} swap file" if swap else ""))
            text = head("make_host_tmpfs_scenarios.py", "host", name, what,
                        f"tmpfs huge={huge}: 128M written (1M writes), read twice, O_TRUNC and 64M rewritten (64K writes), limit {limit}")
            if swap:
                text = text.replace("cpus = 2\n", f'cpus = 2\nswap = "{swap}"\nswap_file = true\n', 1)
            if name in RECORDED:
                text = text.replace("\n\n[scenario]", f"\n# Recorded {RECORDED[name]}\n\n[scenario]", 1)
            text = text.replace("\n\n[scenario]", ("\n# elapsed_s not compared (see make_host_tmpfs_scenarios.py)\n" if name in QUIET_SETS
                                                 else "\n# elapsed_s not compared (a loaded host; see make_host_tmpfs_scenarios.py)\n")
                                + (PENDING_NOTE if name in PENDING else "") + "\n[scenario]", 1)
            body = f"""
[mounts."/mnt/t"]
fs = "tmpfs"
huge = "{huge}"

[files."/mnt/t/f"]
size = "0"

[cgroups.A]
"memory.limit_in_bytes" = "{limit}"

[tasks.t]
cgroup = "A"
ops = [
  {{ op = "write", file = "/mnt/t/f", length = "128M", bufsize = "1M", create = true, step = "write" }},
  {{ op = "read", file = "/mnt/t/f", step = "read1" }},
  {{ op = "read", file = "/mnt/t/f", step = "read2" }},
  {{ op = "write", file = "/mnt/t/f", length = "64M", bufsize = "64K", truncate = true, step = "rewrite" }},
]
"""
            metrics = METRICS + (SWAP_METRICS if swap else [])
            with open(os.path.join(PENDING_OUT if name in PENDING else OUT, name + ".toml"), "w") as f:
                if name in QUIET_SETS:
                    f.write(with_recording_set(text + body + tol(name, "host", metrics) + known(name), name,
                                               QUIET_SETS[name], QUIET_TAG, "a quiet recording set of host runs", numbered=True))
                else:
                    f.write(with_recording_set(text + body + tol(name, "host", metrics) + known(name), name,
                                               RECORDING_SETS.get(name), "run", "a recording set of host runs"))
    for name in QUIET_SETS:
        check_quiet_set(QUIET_TAG, {name: QUIET_SETS[name]}, lambda n: PENDING_OUT if n in PENDING else OUT,
                        READER_WINDOW, kernel=QUIET_KERNEL)


if __name__ == "__main__":
    main()
