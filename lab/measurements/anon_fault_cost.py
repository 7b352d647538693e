#!/usr/bin/env python3
"""Measure the CPU cost of the kernel's anonymous-memory paths per 4 KiB page on this host, for
profile::CpuCost (anon_fault, clear_page, zap_page): the engine's `mmap_probe` round is mmap,
one first-touch fault per base page, munmap.

Per round, 16 MiB (+2 MiB so that huge pages fit aligned):
- base: mmap, write one byte per page (a strided memoryview assignment: one fault each,
  do_anonymous_page() with its clear_page(); MADV_NOHUGEPAGE since review48 M4, so no huge
  page under THP `always` either; M11 ran in `madvise` mode, where it changes nothing), write them
  again (no fault: the user-space cost of the loop, subtracted), munmap (zap_pte_range() + free);
- huge: the same with madvise(MADV_HUGEPAGE): 9 do_huge_pmd_anonymous_page() faults whose
  time is almost all clearing, so their time per 4 KiB bounds clear_page() from above.
200 rounds of each, 5 ms apart; the 10th percentile and the median. Another CPU's work only adds
time (a base-page fault takes the zone and LRU locks and pcp lists the other CPU uses too: with
the other vCPU busy building, the median base-page fault rises from 1.3 to 2.2 us while the huge
page's clearing does not move), so the 10th percentile is the path's own cost. Run it on a quiet
host (its load is printed):
  flock /tmp/memtwin-host.lock nice -n -19 python3 lab/measurements/anon_fault_cost.py
Results (2026-11-28, host kernel 6.18.44, 2 vCPU AMD EPYC KVM guest, THP enabled=madvise) are
in profile.rs at CpuCost.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from memtwin.hostcal import anon_rounds, vmstat  # noqa: E402  (the runner's copy of this method)

SZ = 18 << 20
PAGES = SZ // 4096


def rounds(huge, n=200):
    return anon_rounds(huge, n, SZ, gap_s=0.005)


def pct(xs, q):
    xs = sorted(xs)
    return xs[int(len(xs) * q)]


def main():
    print("load before:", open("/proc/loadavg").read().strip())
    for huge in (False, True):
        a = vmstat("thp_fault_alloc")
        r = rounds(huge)
        thp = (vmstat("thp_fault_alloc") - a) / len(r)
        for q in (0.1, 0.5):
            fault = pct([x[0] for x in r], q) / PAGES
            user = pct([x[1] for x in r], q) / PAGES
            unmap = pct([x[2] for x in r], q) / PAGES
            print(f"{'huge' if huge else 'base'} pages: {thp:.1f} THP faults/round; ns per 4 KiB, p{int(q * 100)} of {len(r)}: "
                  f"first touch {fault:.0f} (user loop {user:.0f}, so kernel {fault - user:.0f}), munmap {unmap:.0f}")
    print("load after:", open("/proc/loadavg").read().strip())


if __name__ == "__main__":
    main()
