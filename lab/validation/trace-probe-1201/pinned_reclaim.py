#!/usr/bin/env python3
"""What the probe's round costs the kernel when its charges must reclaim clean page cache (cp4x's read phase, the
memcg at its limit) against when they need not: the runner's round (mmap 16 MiB anonymous, a byte a page, munmap)
in a v1 memcg of its own with the scenario's 128M limit, pinned to one CPU, timed by the thread's CPU time
(CLOCK_THREAD_CPUTIME_ID, so another task's use of the CPU is not counted). Blocks alternate:
  limit: before each round (untimed) read the next 24 MiB of a 1 GiB file (128 KiB reads, wrapping, the file's pages
         charged to the memcg), so the memcg is at its limit and the round's charges reclaim that clean cache;
  free:  no read: after the block's first round the 16 MiB the munmap freed is there for the next, no reclaim;
  shared (with a 6th argument 1, every third block): no read before the round, but a child process in the same
         memcg pinned to the other CPU reads the file on and on through the block (cp4x's read phase: the copy
         charging and reclaiming the same memcg from the other CPU while the probe's charges reclaim).
Each round's memcg failcnt and pgpgout deltas say whether it reclaimed. One JSON line a round.
Usage (root): pinned_reclaim.py OUT.jsonl FILE [blocks] [rounds_per_block] [cpu]"""
import json, mmap, os, sys, time

out, path = sys.argv[1], sys.argv[2]
blocks = int(sys.argv[3]) if len(sys.argv) > 3 else 20
per = int(sys.argv[4]) if len(sys.argv) > 4 else 15
cpu = int(sys.argv[5]) if len(sys.argv) > 5 else 1
shared = len(sys.argv) > 6 and sys.argv[6] == "1"
FILE_BYTES, CHUNK, BUF = 1 << 30, 24 << 20, 128 << 10
if not os.path.exists(path) or os.path.getsize(path) != FILE_BYTES:
    with open(path, "wb") as f:
        block = os.urandom(1 << 20)
        for _ in range(FILE_BYTES >> 20):
            f.write(block)
        f.flush()
        os.fsync(f.fileno())
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
cg = "/sys/fs/cgroup/memory/probe23-reclaim"
os.mkdir(cg)


def stat(name):
    with open(f"{cg}/{name}") as f:
        return int(f.read())


def pgpgout():
    with open(f"{cg}/memory.stat") as f:
        for line in f:
            if line.startswith("pgpgout "):
                return int(line.split()[1])


rows = []
try:
    with open(cg + "/memory.limit_in_bytes", "w") as f:
        f.write(str(128 << 20))
    with open(cg + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    os.sched_setaffinity(0, {cpu})
    buf = bytearray(BUF)
    pages = 4096
    ones = b"\x01" * pages
    pos = 0

    def read_chunk():
        global pos
        n = 0
        while n < CHUNK:
            got = os.preadv(fd, [buf], pos)
            n += got
            pos = (pos + got) % FILE_BYTES

    for _ in range(6):  # fill the memcg with the file's clean pages (144 MiB read)
        read_chunk()
    for b in range(blocks):
        kind = ("limit", "free", "shared")[b % 3] if shared else ("limit", "free")[b % 2]
        child = None
        if kind == "shared":
            child = os.fork()
            if child == 0:
                os.sched_setaffinity(0, {1 - cpu})
                cpos = FILE_BYTES // 2
                while True:
                    got = os.preadv(fd, [buf], cpos)
                    cpos = (cpos + got) % FILE_BYTES
            time.sleep(0.05)
        for r in range(per):
            if kind == "limit":
                read_chunk()
            fc, po = stat("memory.failcnt"), pgpgout()
            c0 = time.clock_gettime_ns(time.CLOCK_THREAD_CPUTIME_ID)
            m = mmap.mmap(-1, pages * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ | mmap.PROT_WRITE)
            mv = memoryview(m)
            mv[::4096] = ones
            mv.release()
            m.close()
            c1 = time.clock_gettime_ns(time.CLOCK_THREAD_CPUTIME_ID)
            rows.append({"block": b, "kind": kind, "round": r, "cpu_us": (c1 - c0) // 1000,
                         "failcnt": stat("memory.failcnt") - fc, "pgpgout": pgpgout() - po, "usage_mib": stat("memory.usage_in_bytes") >> 20})
            time.sleep(0.005)
        if child:
            os.kill(child, 9)
            os.waitpid(child, 0)
finally:
    with open("/sys/fs/cgroup/memory/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    for _ in range(50):
        try:
            os.rmdir(cg)
            break
        except OSError:
            with open(cg + "/memory.force_empty", "w") as f:
                f.write("0")
            time.sleep(0.1)
with open(out, "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
import statistics as st
for kind in ("limit", "free", "shared"):
    rs = [r for r in rows if r["kind"] == kind and r["round"] > 0]
    if not rs:
        continue
    v = sorted(r["cpu_us"] for r in rs)
    print(f"{kind}: {len(rs)} rounds, thread CPU us p10 {v[len(v)//10]} p50 {st.median(v)} p90 {v[9*len(v)//10]}; "
          f"failcnt/round {st.median(r['failcnt'] for r in rs)}, pgpgout/round {st.median(r['pgpgout'] for r in rs)}, usage MiB {st.median(r['usage_mib'] for r in rs)}")
