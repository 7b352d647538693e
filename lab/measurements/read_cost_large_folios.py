#!/usr/bin/env python3
"""Measure the system time of cached (hot) buffered reads per 4 KiB page on this host's file
system as the kernel holds the file (6.18 ext4: large folios), for issue 21: how fast the reader
of a large-folio file gets through the folios readahead brought in decides how many of them the
next window's charges evict before they are read (lab/validation/large-folios.md). The engine's
read costs (profile.rs CpuCost `lookup`, `copy_page`; BENCHMARKS.md M1, M7) were measured on
ext4 mounted data=journal, 4 KiB pages only, where filemap_read() looks up and copies one page at
a time; with large folios filemap_get_read_batch() returns folios and copy_folio_to_iter() copies
a read's whole part of a folio at once.

Creates FILE (default /tmp/memtwin-read-cost.dat, removed after each file): 512 MiB written with
1 MiB pwrite() calls (6.18's generic_perform_write() takes a write's length as the folio size,
`fgf_set_order()`: order-8 folios, the orders readahead reaches at read_ahead_kb 8192), not
synced, no memcg limit, so every page stays cached; then the same written with 128 KiB pwrite()
calls (order-5 folios: does the cost per page depend on the order?) and with 4 KiB ones (order-0
folios, on the same file system and host, for the comparison with M1). Then,
five times each, reads the whole file
four times with BS-sized preadv() calls into one buffer (cat's 128 KiB, and 1 MiB): getrusage()
system time around the reads, divided by the pages read. Prints the load average (measure on a quiet host):
  flock /tmp/memtwin-host.lock python3 lab/measurements/read_cost_large_folios.py [FILE]
Result (2026-11-29 01:46-01:47, host kernel 6.18.44, root ext4 on /dev/vda, loadavg 11-13, three
runs): 128 KiB reads of order-8 folios 148, 130, 142 ns a page (M15: 142), order-5 147 and 160,
order-0 255, 255, 579 (scattered; M1 was 391); 1 MiB reads about the same as 128 KiB ones.
Again 2026-11-29 02:50-02:53 (three runs under flock /tmp/memtwin-host.lock, loadavg 9-11):
order-8 153, 137, 148; order-5 155, 163, 148; order-0 541, 609, 446. The engine takes the
same-run ratio large / order-0 (median of the six runs' 0.307) times its order-0 page (M1):
BENCHMARKS.md M15.
On 6.18.44-fc-v782 (the host's boot from 2026-11-29 13:00; ra21, 2026-11-30, under the host lock): 00:29,
load 8.6, order 8 405, order 5 413, order 0 578 (ratio 0.70); 00:48, load 12.6-13.1, with the order-4 and
order-2 files (64 KiB and 16 KiB writes; that run left the order-5 file out): order 8 426, order 4 469, order 2 566, order 0 644.
Since hostcal21 the host runner measures orders 0, 2, 4, 8 with every recording (memtwin.hostcal, smaller files:
64 MiB, 16 reads a sample), kept as real.machine.host_cost.read_ns_by_order.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from memtwin import hostcal  # noqa: E402

SIZE = 512 << 20
WBS = 1 << 20


PASSES = 4  # reads of the whole file per sample: ~70 ms of system time, ~17 ticks at HZ 250


def sys_ns_per_page(fd: int, bs: int, passes: int = PASSES) -> float:
    """getrusage() system time per page over `passes` reads of the file (memtwin.hostcal's, which
    the host runner takes with every recording)."""
    return hostcal.sys_ns_per_page(fd, SIZE, passes, bs)


def measure(path: str, wbs: int) -> dict:
    """{read size: [ns per page]} for the file written with `wbs`-sized writes."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        block = os.urandom(WBS)
        for off in range(0, SIZE, WBS):
            for o in range(0, WBS, wbs):
                os.pwrite(fd, block[o:o + wbs], off + o)
        sys_ns_per_page(fd, 128 << 10, 1)  # one untimed pass: every folio once accessed, as M1's
        res = {}
        for bs in (128 << 10, 1 << 20):
            res[bs] = []
            for _ in range(5):
                res[bs].append(sys_ns_per_page(fd, bs))
                time.sleep(0.2)
        return res
    finally:
        os.close(fd)
        os.unlink(path)


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/memtwin-read-cost.dat"
    if os.path.exists(path):
        sys.exit(f"read_cost_large_folios: {path} exists\n  fix: give a path that does not exist (it is created and removed)")
    print("loadavg before", open("/proc/loadavg").read().strip())
    # 1 MiB writes: order-8 folios; 128 KiB: order 5; 64 KiB: order 4 and 16 KiB: order 2 (the orders of a
    # readahead ramp's first windows); 4 KiB writes: order-0 folios (the same file system, for the comparison
    # with M1's 4 KiB-page figure)
    for wbs, what in ((WBS, "1 MiB-written folios (order 8)"), (128 << 10, "128 KiB-written folios (order 5)"),
                      (64 << 10, "64 KiB-written folios (order 4)"), (16 << 10, "16 KiB-written folios (order 2)"),
                      (4096, "4 KiB-written folios (order 0)")):
        for bs, xs in measure(path, wbs).items():
            print(f"sys ns per 4 KiB page, hot {bs >> 10} KiB preadv() of a 512 MiB file in {what}: "
                  f"{[round(x) for x in xs]}, median {round(statistics.median(xs))}")
    print("loadavg after", open("/proc/loadavg").read().strip())


if __name__ == "__main__":
    main()
