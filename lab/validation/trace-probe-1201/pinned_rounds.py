#!/usr/bin/env python3
"""The runner's probe round (real.py mmap_probe(): mmap 16 MiB anonymous, write a byte a page, munmap, sleep
5 ms) in blocks pinned alternately to CPU 0 and CPU 1 (sched_setaffinity), each round's wall time and the
thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in a v1 memcg of its own with the scenario's 128M limit (as the
probe's memcg A): does a round's own CPU time depend on the vCPU it runs on? Writes one JSON line per round.
After each round, two fixed chunks of work on the same CPU, each timed by the thread's CPU time: `sha_us`, SHA-256 of
a 1 MiB buffer 4 times (compute in L2, no memory traffic beyond it) and `copy_us`, a 16 MiB copy between two
buffers faulted in at the start (memory and L3, no page faults): if a round's CPU time moves with them, the
round's spread is the speed the vCPU runs at, not the kernel's work.
Usage (root): pinned_rounds.py OUT.jsonl [blocks] [rounds_per_block] [sleep_ms[,sleep_ms...]] [chunks 0/1]
Block b runs on CPU b % 2 with the sleep (b // 2) % len(sleeps) of the list (every CPU with every sleep); a negative
sleep spins that long instead (the vCPU does not halt between rounds: on a quiet host, sleep blocks against spin blocks
say whether the rounds' slow level follows the vCPU's halts)."""
import hashlib, json, mmap, os, sys, time

out, blocks = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
per = int(sys.argv[3]) if len(sys.argv) > 3 else 20
sleeps = [float(x) for x in (sys.argv[4] if len(sys.argv) > 4 else "5").split(",")]
chunks = (sys.argv[5] if len(sys.argv) > 5 else "1") == "1"
cg = "/sys/fs/cgroup/memory/probe23-pinned"
os.mkdir(cg)
try:
    with open(cg + "/memory.limit_in_bytes", "w") as f:
        f.write(str(128 << 20))
    with open(cg + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    pages = 4096
    ones = b"\x01" * pages
    rows = []
    shabuf = b"\x5a" * (1 << 20)
    src, dst = bytearray(b"\x01" * (16 << 20)), bytearray(16 << 20)
    dst[:] = src

    def chunk(fn):
        c0 = time.clock_gettime_ns(time.CLOCK_THREAD_CPUTIME_ID)
        fn()
        return (time.clock_gettime_ns(time.CLOCK_THREAD_CPUTIME_ID) - c0) // 1000

    def sha():
        for _ in range(4):
            hashlib.sha256(shabuf).digest()

    def copy():
        dst[:] = src
    for b in range(blocks):
        c = b % 2
        sleep_ms = sleeps[(b // 2) % len(sleeps)]
        os.sched_setaffinity(0, {c})
        time.sleep(0.005)
        for r in range(per):
            t0, c0 = time.monotonic_ns(), time.clock_gettime_ns(time.CLOCK_THREAD_CPUTIME_ID)
            m = mmap.mmap(-1, pages * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ | mmap.PROT_WRITE)
            mv = memoryview(m)
            mv[::4096] = ones
            mv.release()
            m.close()
            t1, c1 = time.monotonic_ns(), time.clock_gettime_ns(time.CLOCK_THREAD_CPUTIME_ID)
            rows.append({"block": b, "cpu": c, "round": r, "wall_us": (t1 - t0) // 1000, "cpu_us": (c1 - c0) // 1000,
                         "t_s": t1 / 1e9, "sleep_ms": sleep_ms, **({"sha_us": chunk(sha), "copy_us": chunk(copy)} if chunks else {})})
            if sleep_ms >= 0:
                time.sleep(sleep_ms / 1000)
            else:
                t_end = time.monotonic_ns() + int(-sleep_ms * 1e6)
                while time.monotonic_ns() < t_end:
                    pass
finally:
    with open("/sys/fs/cgroup/memory/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    os.rmdir(cg)
with open(out, "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
