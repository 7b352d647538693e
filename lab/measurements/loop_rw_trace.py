"""The host runner's loop device serving a reader's reads while the flusher's writes are queued (loop23, issue 23:
host-queue-rw-wbt-unthrottled's reader beside its memcg writer), traced.

The loop driver of 6.18 (drivers/block/loop.c): `loop_queue_rq()` starts the request (block_rq_issue fires in
`blk_mq_start_request()`) and hands it to `loop_queue_work()`, which appends it to ONE worker's command list: the
per-blkcg worker of the request's first bio's blkio cgroup, or the root worker (`lo->rootcg_work`) when that is
the root (`queue_on_root_worker()`). On this cgroup v1 host the runner's tasks and the flusher are in the blkio
root (/proc/self/cgroup: `blkio:/`; v1 has no cgroup writeback), so the reader's reads and the flusher's writes
go to the same list, which `loop_process_work()` takes in order: `loop_handle_cmd()` -> `do_req_filebacked()` ->
`lo_rw_aio()`, the backing file's `->write_iter()`/`->read_iter()` with IOCB_DIRECT (ext4 on vda:
`ext4_dio_write_iter()`, into the sparse image's holes under the exclusive inode lock with block allocation;
`ext4_dio_read_iter()`), which submit the backing bios to vda and return -EIOCBQUEUED; the loop request completes
when they do (`lo_rw_aio_complete()`). What a read queued behind writes meets is then (a) the worker's submission
of the writes before it and (b) vda serving it beside the writes in flight there.

Traced with bpftrace 0.17's tracepoints only (this host allows no kprobe): block:block_rq_issue/block_rq_complete
on the loop device and on vda, and block:block_bio_queue on vda (when the worker, or another task, submitted each
backing bio: its comm and time). vda's requests are kept when they fall in the image's extents (filefrag of the
image at the end), so the other helpers' I/O on vda is left out.

Phases (one round a hold of the locks, ~10 s):
- `read-alone`: the scenario's reader alone: a cold 256 MiB file read sequentially in 128 KiB read() calls.
- `rw-wbt`, `rw-nowbt`: that reader and, started together, the scenario's writer (512 MiB in 1 MiB write() calls in
  a v1 memcg of 64M, no fsync): host-queue-rw-wbt-unthrottled's two variants (wbt_lat_usec the kernel's default
  and 0).

Usage, as root (the load at start and end goes into the JSON):
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 python3 lab/measurements/loop_rw_trace.py OUT.json
Scratch under /var/tmp/memtwin-loop23 (the loop device detached, the memcg removed and the image deleted at the end)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from segment_cost_buffered import devt, sh  # noqa: E402

SCRATCH = "/var/tmp/memtwin-loop23"
MEMCG = "/sys/fs/cgroup/memory/memtwin-loop23"
READ_MB = 256

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
tracepoint:block:block_bio_queue /args->dev == DISKDEV/ {
  printf("B %llu %llu %d %d %s\n", nsecs, args->sector, args->nr_sector, strncmp(args->rwbs, "W", 1) == 0 ? 1 : 0, comm);
}
END { clear(@s); clear(@b); clear(@w); }
"""

WRITER = """import os, sys
blk = os.urandom(1 << 20)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for _ in range(512):
    os.write(fd, blk)
os.close(fd)
"""

READER = """import os, sys, time, json
fd = os.open(sys.argv[1], os.O_RDONLY)
t = []
t0 = time.monotonic_ns()
while True:
    a = time.monotonic_ns()
    if not os.read(fd, 128 << 10):
        break
    t.append(time.monotonic_ns() - a)
print(json.dumps({"start": t0, "end": time.monotonic_ns(), "read_ns": t}))
"""


def now():
    return time.monotonic_ns()


def load1():
    return open("/proc/loadavg").read().split()[0]


def drop(path):
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def image_extents(img):
    """[(logical block, physical block, blocks)] of the image on vda (4 KiB blocks)."""
    ext = []
    for line in sh("filefrag", "-e", "-b4096", img).splitlines():
        p = line.replace(":", " ").replace("..", " ").split()
        if len(p) >= 6 and p[0].isdigit():
            ext.append((int(p[1]), int(p[3]), int(p[5])))
    return ext


def phase(name, src, dst, with_writer):
    """The reader (and the memcg writer) started together; (the phase's record)."""
    drop(src)
    if os.path.exists(dst):
        os.unlink(dst)
    os.sync()
    time.sleep(0.3)
    t0 = now()
    w = None
    if with_writer:
        w = subprocess.Popen(["sh", "-c", f'echo $$ > {MEMCG}/cgroup.procs && exec {sys.executable} -c "$0" "$1"', WRITER, dst],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    r = subprocess.run([sys.executable, "-c", READER, src], capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise SystemExit(f"the reader failed: {r.stderr.strip()[-500:]}")
    rec = {"phase": name, "start": t0, "loadavg": load1(), "reader": json.loads(r.stdout)}
    if w is not None:
        _, err = w.communicate(timeout=120)
        if w.returncode:
            raise SystemExit(f"the writer failed: {err.strip()[-500:]}")
        rec["writer_end"] = now()
    rec["end"] = now()
    time.sleep(0.3)
    return rec


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: loop_rw_trace.py OUT.json  (as root, under the host and QEMU locks)")
    outpath = sys.argv[1]
    res = {"loadavg_start": open("/proc/loadavg").read().split()[:3], "kernel": os.uname().release,
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "phases": [],
           "blkio_cgroup": next((ln.strip() for ln in open("/proc/self/cgroup") if ":blkio:" in ln), None)}
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
    mounted = made_cg = False
    tracefs = not os.path.exists("/sys/kernel/tracing/events")
    if tracefs:
        sh("mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing")
    try:
        open(f"{q}/max_sectors_kb", "w").write("1280")
        wbt_default = open(f"{q}/wbt_lat_usec").read().strip()
        res["queue"] = {k: open(f"{q}/{k}").read().strip() for k in
                        ("scheduler", "max_sectors_kb", "nr_requests", "read_ahead_kb", "wbt_lat_usec")}
        res["loop_dio"] = open(f"/sys/block/{name}/loop/dio").read().strip()
        sh("mount", "-t", "ext4", loop, mnt)
        mounted = True
        os.mkdir(MEMCG)
        made_cg = True
        open(f"{MEMCG}/memory.limit_in_bytes", "w").write(str(64 << 20))
        src, dst = os.path.join(mnt, "in"), os.path.join(mnt, "out")
        blk = os.urandom(1 << 20)
        fd = os.open(src, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        for _ in range(READ_MB):
            os.write(fd, blk)
        os.fsync(fd)
        os.close(fd)
        prog = BT.replace("LOOPDEV", str(devt(name))).replace("DISKDEV", str(devt("vda")))
        with tempfile.NamedTemporaryFile("w", suffix=".bt", delete=False) as f:
            f.write(prog)
        out = tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False)
        bp = subprocess.Popen(["bpftrace", f.name], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        time.sleep(4)  # attach
        if bp.poll() is not None:
            out.seek(0)
            raise SystemExit(f"bpftrace ended (exit {bp.returncode}):\n{out.read()[-2000:]}")
        for ph, wbt, w in (("read-alone", wbt_default, False), ("rw-wbt", wbt_default, True), ("rw-nowbt", "0", True)):
            open(f"{q}/wbt_lat_usec", "w").write(wbt)
            rec = phase(ph, src, dst, w)
            rec["wbt_lat_usec"] = wbt
            res["phases"].append(rec)
        open(f"{q}/wbt_lat_usec", "w").write(wbt_default)
        time.sleep(0.5)
        os.killpg(bp.pid, signal.SIGINT)
        bp.wait(timeout=60)
        bp = None
        out.seek(0)
        reqs, bios = [], []
        for line in out:
            p = line.split()
            if len(p) == 7 and p[0] == "Q":
                reqs.append([int(x) for x in p[1:]])
            elif len(p) >= 6 and p[0] == "B":
                bios.append([int(p[1]), int(p[2]), int(p[3]), int(p[4]), " ".join(p[5:])])
        out.close()
        os.unlink(out.name)
        os.unlink(f.name)
        if not reqs:
            raise SystemExit("bpftrace traced no request of the loop device")
        os.sync()
        res["image_extents"] = image_extents(img)
        ld, dd = devt(name), devt("vda")
        res["loopdev"], res["diskdev"] = ld, dd
        # vda's sectors of the image (the partition-less disk: the file system's block x 8)
        spans = sorted((p * 8, (p + n) * 8) for _, p, n in res["image_extents"])

        def in_image(sec):
            lo, hi = 0, len(spans)
            while lo < hi:
                m = (lo + hi) // 2
                if spans[m][1] <= sec:
                    lo = m + 1
                else:
                    hi = m
            return lo < len(spans) and spans[lo][0] <= sec

        res["loop_requests"] = sorted([s, e, b, sec, w] for dev, s, e, b, sec, w in reqs if dev == ld)
        res["disk_requests"] = sorted([s, e, b, sec, w] for dev, s, e, b, sec, w in reqs if dev == dd and in_image(sec))
        res["disk_bios"] = sorted(b for b in bios if in_image(b[1]))
    finally:
        if bp is not None:
            if bp.poll() is None:
                os.killpg(bp.pid, signal.SIGINT)
            bp.wait(timeout=60)
        if made_cg:
            for _ in range(50):
                try:
                    os.rmdir(MEMCG)
                    break
                except OSError:
                    time.sleep(0.1)
        if mounted:
            subprocess.run(["umount", mnt])
        subprocess.run(["losetup", "-d", loop])
        shutil.rmtree(SCRATCH, ignore_errors=True)
        if tracefs:
            subprocess.run(["umount", "/sys/kernel/tracing"])
    res["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    with open(outpath, "w") as f:
        json.dump(res, f)
    print(f"{outpath}: {len(res['loop_requests'])} loop requests, {len(res['disk_requests'])} vda requests of the image, "
          f"load {res['loadavg_start']} -> {res['loadavg_end']}")


if __name__ == "__main__":
    main()
