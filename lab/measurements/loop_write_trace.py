"""The host runner's loop device's WRITE path, and its 4 KiB random read, traced (loop21, issues 21/23).

segment_cost_buffered.py traced the page cache's own READ requests on the loop device (the read side of
lab/validation/loop_table.py, derived by loop_device_table.py); this traces the page cache's WRITE
requests on the same device, as `memtwin real --on host` makes it (real.HostRun._disk: a sparse image,
mkfs.ext4's defaults, `losetup --direct-io=on`, blk-wbt at the kernel's default, scheduler none,
max_sectors_kb 1280 as the host-queue scenarios set it), and the rw-rand scenarios' reader's 4 KiB random
reads. Per round (one hold of the host lock, ~40 s):

- `memcg-wbt`: host-queue-rw-*'s writer alone: 512 MiB in 1 MiB write() calls in a v1 memcg of 64M (no fsync:
  the memcg's reclaim wakes the flusher, and the writer waits on writeback), blk-wbt at the kernel's default.
- `seq-wbt`, `seq-nowbt`: a new 256 MiB file written in 1 MiB write() calls, then fsync (the writeback
  of the whole file: ext4_writepages()' bios of up to max_sectors_kb, many in flight), with wbt_lat_usec
  at the kernel's default and at 0 (blk-wbt off: more requests in flight).
- `alone`: 4, 16, 64, 256 and 1024 KiB written at random page-aligned offsets of that (allocated, synced)
  file, each followed by sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER): one write request at a time,
  24 a size, 2 ms apart (the request alone: per-request cost, per-byte rate, segments).
- `rand`: the cold file read as host-queue-rw-rand's reader reads it, 4096 random 4 KiB pread()s
  (buffered; each read's time in Python as well: what the reader's step is made of).

Traced with bpftrace 0.17's tracepoints only (block:block_rq_issue / block_rq_complete on the loop device
and vda beneath it, matched by device and sector; filemap:mm_filemap_add_to_page_cache on the loop device's
file system for the written pages' frames, from which each write request's segments, the physically
contiguous runs of its pages, are counted as segment_cost_buffered.py counts them). Phases are marked by
CLOCK_MONOTONIC times (bpftrace's nsecs is ktime_get_ns()).

Usage, as root (one round a hold; the load at start and end goes into the JSON):
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 python3 lab/measurements/loop_write_trace.py OUT.json
Scratch under /var/tmp/memtwin-loop21 (the loop device detached and the image deleted at the end)."""
import ctypes
import json
import mmap
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from segment_cost_buffered import devt, segs_of, sh  # noqa: E402

SCRATCH = "/var/tmp/memtwin-loop21"
FILE_MB = 256
ALONE_KIB = (4, 16, 64, 256, 1024)
ALONE_N = 24
RAND_N = 4096

BT = r"""
tracepoint:block:block_rq_issue /(args->dev == LOOPDEV || args->dev == DISKDEV) && args->bytes > 0/ {
  @s[args->dev, args->sector] = nsecs;
  @b[args->dev, args->sector] = args->bytes;
  if (strncmp(args->rwbs, "W", 1) == 0) { @w[args->dev, args->sector] = 1; } else { @w[args->dev, args->sector] = 0; }
}
tracepoint:block:block_rq_complete /(args->dev == LOOPDEV || args->dev == DISKDEV) && @s[args->dev, args->sector]/ {
  printf("Q %d %llu %llu %d %llu %d\n", args->dev, @s[args->dev, args->sector], nsecs, @b[args->dev, args->sector],
         args->sector, @w[args->dev, args->sector]);
  delete(@s[args->dev, args->sector]); delete(@b[args->dev, args->sector]); delete(@w[args->dev, args->sector]);
}
tracepoint:filemap:mm_filemap_add_to_page_cache /args->s_dev == LOOPDEV/ {
  printf("A %lu %lu %d %llu\n", args->index, args->pfn, args->order, nsecs);
}
END { clear(@s); clear(@b); clear(@w); }
"""


LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.sync_file_range.argtypes = (ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint)
SFR_ALL = 1 | 2 | 4  # SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER


def extents(path):
    """[(logical block, physical block, blocks)] of the file (filefrag -e, 4 KiB blocks). An extent's line has 6
    fields when it has neither `expected` nor flags (segment_cost_buffered.extents() wants 7 and drops it)."""
    ext = []
    for line in sh("filefrag", "-e", "-b4096", path).splitlines():
        p = line.replace(":", " ").replace("..", " ").split()
        if len(p) >= 6 and p[0].isdigit():
            ext.append((int(p[1]), int(p[3]), int(p[5])))
    return ext


MEMCG = "/sys/fs/cgroup/memory/memtwin-loop21"
MEMCG_WRITER = """import os, sys
blk = os.urandom(1 << 20)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for _ in range(512):
    os.write(fd, blk)
os.close(fd)
"""


def memcg_write(path):
    """The host-queue-rw scenarios' writer: 512 MiB in 1 MiB write()s in a v1 memcg of 64M, no fsync (the memcg's
    reclaim wakes the flusher and waits on writeback: the writeback regime of those scenarios)."""
    os.mkdir(MEMCG)
    try:
        open(f"{MEMCG}/memory.limit_in_bytes", "w").write(str(64 << 20))
        t0 = now()
        r = subprocess.run(["sh", "-c", f'echo $$ > {MEMCG}/cgroup.procs && exec {sys.executable} -c "$0" "$1"', MEMCG_WRITER, path],
                           capture_output=True, text=True, timeout=120)
        t1 = now()
        if r.returncode:
            raise SystemExit(f"the memcg writer failed: {r.stderr.strip()[-500:]}")
        fd = os.open(path, os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
        return {"write_ns": t1 - t0, "fsync_ns": now() - t1}
    finally:
        for _ in range(50):
            try:
                os.rmdir(MEMCG)
                break
            except OSError:
                time.sleep(0.1)


def now():
    return time.monotonic_ns()


def write_file(path, mb):
    blk = os.urandom(1 << 20)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    t0 = now()
    for _ in range(mb):
        os.write(fd, blk)
    t1 = now()
    os.fsync(fd)
    t2 = now()
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    return {"write_ns": t1 - t0, "fsync_ns": t2 - t1}


def alone(path, rng):
    """One write request at a time: a page-aligned overwrite of the allocated file, written back alone."""
    fd = os.open(path, os.O_RDWR)
    buf = mmap.mmap(-1, 1 << 20)
    buf.write(os.urandom(1 << 20))
    done = []
    sizes = [k for k in ALONE_KIB for _ in range(ALONE_N)]
    rng.shuffle(sizes)
    for kib in sizes:
        off = rng.randrange(0, (FILE_MB << 20) - (kib << 10), 1 << 20) if kib > 64 else rng.randrange(0, (FILE_MB << 20) - (kib << 10), 4096)
        os.pwritev(fd, [memoryview(buf)[:kib << 10]], off)
        t0 = now()
        if LIBC.sync_file_range(fd, off, kib << 10, SFR_ALL):
            os.close(fd)
            raise OSError(ctypes.get_errno(), "sync_file_range")
        done.append((kib, off, t0, now()))
        time.sleep(0.002)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    return done


def rand_reads(path, rng):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    pages = (FILE_MB << 20) // 4096
    times = []
    t0 = now()
    for _ in range(RAND_N):
        off = rng.randrange(pages) * 4096
        a = now()
        os.pread(fd, 4096, off)
        times.append(now() - a)
    t1 = now()
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    return {"elapsed_ns": t1 - t0, "read_ns": times}


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: loop_write_trace.py OUT.json  (as root, under the host and QEMU locks)")
    outpath = sys.argv[1]
    rng = random.Random(21)
    res = {"loadavg_start": open("/proc/loadavg").read().split()[:3], "kernel": os.uname().release,
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "phases": []}
    os.makedirs(SCRATCH, exist_ok=True)
    img = os.path.join(SCRATCH, "disk.img")
    with open(img, "wb") as f:
        f.truncate(1 << 30)  # sparse, as real.HostRun._disk makes it
    sh("mkfs.ext4", "-q", "-F", "-b", "4096", "-E", "lazy_itable_init=0,lazy_journal_init=0", img)
    loop = sh("losetup", "--show", "--direct-io=on", "--find", img)
    name = os.path.basename(loop)
    q = f"/sys/block/{name}/queue"
    mnt = os.path.join(SCRATCH, "mnt")
    os.makedirs(mnt, exist_ok=True)
    bp = None
    tracefs = not os.path.exists("/sys/kernel/tracing/events")
    if tracefs:
        sh("mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing")
    try:
        open(f"{q}/max_sectors_kb", "w").write("1280")
        wbt_default = open(f"{q}/wbt_lat_usec").read().strip()
        res["queue"] = {k: open(f"{q}/{k}").read().strip() for k in
                        ("scheduler", "max_sectors_kb", "max_segments", "max_segment_size", "rotational", "nr_requests", "read_ahead_kb", "wbt_lat_usec")}
        res["loop_dio"] = open(f"/sys/block/{name}/loop/dio").read().strip()
        sh("mount", "-t", "ext4", loop, mnt)
        path = os.path.join(mnt, "f")
        prog = BT.replace("LOOPDEV", str(devt(name))).replace("DISKDEV", str(devt("vda")))
        with tempfile.NamedTemporaryFile("w", suffix=".bt", delete=False) as f:
            f.write(prog)
        out = tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False)
        bp = subprocess.Popen(["bpftrace", f.name], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        time.sleep(4)  # attach
        if bp.poll() is not None:
            out.seek(0)
            raise SystemExit(f"bpftrace ended (exit {bp.returncode}):\n{out.read()[-2000:]}")
        for phase, wbt in (("memcg-wbt", wbt_default), ("seq-wbt", wbt_default), ("seq-nowbt", "0")):
            open(f"{q}/wbt_lat_usec", "w").write(wbt)
            if os.path.exists(path):
                os.unlink(path)
                os.sync()
            time.sleep(0.3)
            t0 = now()
            r = memcg_write(path) if phase.startswith("memcg") else write_file(path, FILE_MB)
            res["phases"].append({"phase": phase, "start": t0, "end": now(), "wbt_lat_usec": wbt, "loadavg": open("/proc/loadavg").read().split()[0],
                                  "extents": extents(path), **r})
            time.sleep(0.3)
        open(f"{q}/wbt_lat_usec", "w").write(wbt_default)
        os.sync()
        time.sleep(0.3)
        t0 = now()
        done = alone(path, rng)
        res["phases"].append({"phase": "alone", "start": t0, "end": now(), "loadavg": open("/proc/loadavg").read().split()[0], "writes": done})
        os.sync()
        time.sleep(0.3)
        t0 = now()
        r = rand_reads(path, rng)
        res["phases"].append({"phase": "rand", "start": t0, "end": now(), "loadavg": open("/proc/loadavg").read().split()[0], **r})
        time.sleep(0.5)
        os.killpg(bp.pid, signal.SIGINT)
        bp.wait(timeout=60)
        bp = None
        out.seek(0)
        reqs, adds = [], []
        for line in out:
            p = line.split()
            if len(p) == 7 and p[0] == "Q":
                reqs.append([int(p[1]), int(p[2]), int(p[3]), int(p[4]), int(p[5]), int(p[6])])
            elif len(p) == 5 and p[0] == "A":
                adds.append([int(x) for x in p[1:]])
        out.close()
        os.unlink(out.name)
        os.unlink(f.name)
        if not reqs or not adds:
            raise SystemExit("bpftrace traced no request or page-cache addition of the loop device")
        ld, dd = devt(name), devt("vda")
        res["loopdev"], res["diskdev"] = ld, dd
        # each loop write request's segments: the frames its pages had when last added (the write's own)
        # (the file of seq-wbt was unlinked for seq-nowbt's: each request maps through its phase's extents)
        adds.sort(key=lambda a: a[3])
        frame, ai, loop_reqs = {}, 0, []
        for dev, s, e, b, sec, w in sorted(reqs, key=lambda r: r[1]):
            if dev != ld:
                continue
            while ai < len(adds) and adds[ai][3] <= s:
                idx, pfn, order, _ = adds[ai]
                for k in range(1 << order):
                    frame[idx + k] = pfn + k
                ai += 1
            ext = next((p["extents"] for p in res["phases"] if "extents" in p and s <= p["end"]), res["phases"][2]["extents"])
            loop_reqs.append([s, e, b, sec, w, segs_of(sec, b, frame, ext) if w else None])
        res["loop_requests"] = sorted(loop_reqs)
        res["disk_requests"] = sorted([s, e, b, sec, w] for dev, s, e, b, sec, w in reqs if dev == dd)
    finally:
        if bp is not None:
            if bp.poll() is None:
                os.killpg(bp.pid, signal.SIGINT)
            bp.wait(timeout=60)
        subprocess.run(["umount", mnt])
        subprocess.run(["losetup", "-d", loop])
        shutil.rmtree(SCRATCH, ignore_errors=True)
        if tracefs:
            subprocess.run(["umount", "/sys/kernel/tracing"])
    res["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    with open(outpath, "w") as f:
        json.dump(res, f)
    print(f"{outpath}: {len(res['loop_requests'])} loop requests, load {res['loadavg_start']} -> {res['loadavg_end']}")


if __name__ == "__main__":
    main()
