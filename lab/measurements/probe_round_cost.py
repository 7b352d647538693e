#!/usr/bin/env python3
"""The host runner's mmap_probe round alone (real.mmap_probe: an anonymous 16 MiB mmap, one byte
written per page from C by a strided memoryview assignment, munmap), outside any memcg limit, N
rounds 5 ms apart: the wall time and the CPU time (CLOCK_THREAD_CPUTIME_ID: this thread's user +
system time, which a wait for the CPU does not add to) per round, quartiles, and the CPU time per
4 KiB page. It measures the boot the recordings ran on apart from them: what a round costs the
kernel with nothing to reclaim (the host-stall scenarios' ROUND_WHY, make_stall_scenarios.py).

  flock /tmp/memtwin-host.lock nice -n -10 python3 lab/measurements/probe_round_cost.py [SIZE [N]]

Results:
- 2026-11-30 18:23 UTC, 6.18.44-fc-v669 (the quiet host-stall sets' boot), load 3.5 (other helpers),
  16 MiB x 200: wall quartiles 16.5/17.6/19.5 ms, CPU 9.19/9.41/9.64 ms, 2297 ns a page (the cost
  table's round, measured on v857: 6.42 ms, 1568 ns a page; the v857 recording of host-stall-alone-p16m:
  5.9 ms a round). The same minute, anon_fault_cost.py: huge-page first touch 338 ns per 4 KiB at p10
  (v857: 141-152), base pages 3294 (v857: 1288-1315; with the other vCPU busy, as it was here).
"""
import mmap
import os
import statistics
import sys
import time

size = int(sys.argv[1]) if len(sys.argv) > 1 else 16 << 20
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
pages = (size + 4095) // 4096
ones = b"\x01" * pages
wall, cpu = [], []
for _ in range(n):
    t0, c0 = time.monotonic_ns(), time.thread_time_ns()
    m = mmap.mmap(-1, pages * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    mv = memoryview(m)
    mv[::4096] = ones
    mv.release()
    m.close()
    cpu.append(time.thread_time_ns() - c0)
    wall.append(time.monotonic_ns() - t0)
    time.sleep(0.005)


def q(xs):
    return [round(x / 1e6, 3) for x in statistics.quantiles(xs, n=4)]


print(f"{os.uname().release} {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} load {open('/proc/loadavg').read().split()[:3]}")
print(f"size {size} rounds {n}: wall ms quartiles {q(wall)} cpu ms quartiles {q(cpu)}; per page cpu median {statistics.median(cpu) / pages:.0f} ns")
