#!/usr/bin/env python3
"""Measure the system time of buffered writes per 4 KiB page on this host's file system as the
kernel holds them (6.18 ext4: large folios, generic_perform_write() taking a write a
mapping_max_folio_size() chunk at a time), for issue 23: the copy's CPU time a page decides how
much of each blk-throttle burst it takes before the probe beside it (host-stall known_outs).
The engine's write costs (profile.rs CpuCost, M9/M10) were measured on ext4 mounted data=journal,
4 KiB pages only.

Three runs of: create FILE (default /tmp/memtwin-write-cost.dat, removed after each run), write
512 MiB of it with 128 KiB pwrite() calls (as the host runner's cp), getrusage() system time
around the writes, divided by the pages written. Nothing is synced: the writes land in the page
cache, no memcg limit. Run it on a quiet host (its load is printed):
  flock /tmp/memtwin-host.lock python3 lab/measurements/write_cost_large_folios.py [FILE]
Result (2026-11-29 00:08, host kernel 6.18.44, root ext4 on /dev/vda, loadavg 8): 1023, 657,
658 ns a page (the first run on a cold allocator); the engine's M10 is 1592.
"""
import os
import resource
import sys
import time

SIZE = 512 << 20
BS = 128 << 10


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/memtwin-write-cost.dat"
    if os.path.exists(path):
        sys.exit(f"write_cost_large_folios: {path} exists\n  fix: give a path that does not exist (it is created and removed)")
    print("loadavg", open("/proc/loadavg").read().strip())
    buf = b"\x01" * BS
    res = []
    for _ in range(3):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            for off in range(0, SIZE, BS):
                os.pwrite(fd, buf, off)
            r1 = resource.getrusage(resource.RUSAGE_SELF)
        finally:
            os.close(fd)
            os.unlink(path)
        res.append((r1.ru_stime - r0.ru_stime) * 1e9 / (SIZE // 4096))
        time.sleep(1)
    print("sys ns per 4 KiB page written (128 KiB pwrite, 512 MiB new file):", [round(x) for x in res])


if __name__ == "__main__":
    main()
