"""Where the host-queue-rw writer sleeps on 6.18, cgroup v1 (wbt23, issues 21/23).

The engine's writer of host-queue-rw-*-unthrottled (512 MiB in 1 MiB write()s in a v1 memcg of 64M, on the
runner's loop device, blk-wbt at the kernel's default) takes +118% of the host's time, and sleeps ~180 ms of it
in shrink_inactive_list()'s v1 `reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)` (`memtwin run --variant
wbt-2000`: vmscan.throttled.writeback 450-600). This traces the same writer on the host (the loop device as
loop_write_trace.py makes it: a sparse image, mkfs.ext4's defaults, `losetup --direct-io=on`, scheduler none,
max_sectors_kb 1280, wbt_lat_usec at the kernel's default):

- vmscan:mm_vmscan_throttled (reason, usec_delayed, usec_timeout) of the writer: does 6.18's v1 memcg reclaim
  throttle there, how often, how long;
- vmscan:mm_vmscan_lru_shrink_inactive of the writer (nr_scanned, nr_reclaimed, nr_dirty, nr_writeback,
  nr_congested, nr_immediate): what its reclaim batches meet;
- vmscan:mm_vmscan_memcg_reclaim_begin/end: the memcg reclaims and their time;
- sched:sched_switch/sched_wakeup: the writer's off-CPU time by kernel stack (where it sleeps);
- wbt:wbt_step: blk-wbt's depth changes (step, max, normal, bg) on the loop device.

The writer renames itself `mtw-writer` (prctl PR_SET_NAME) so the probes pick it alone.
Usage, as root (one round a hold; the load at start and end goes into the JSON):
  flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock nice -n -10 python3 lab/measurements/reclaim_throttle_trace.py OUT.json
Scratch under /var/tmp/memtwin-wbt23 (the loop device detached and the image deleted at the end)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SCRATCH = "/var/tmp/memtwin-wbt23"
MEMCG = "/sys/fs/cgroup/memory/memtwin-wbt23"
WRITER = """import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"mtw-writer", 0, 0, 0)
blk = os.urandom(1 << 20)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
t0 = time.monotonic_ns()
for _ in range(512):
    os.write(fd, blk)
t1 = time.monotonic_ns()
os.close(fd)
print(t0, t1)
"""

READER = """import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
t0 = time.monotonic_ns()
while os.read(fd, 128 << 10):
    pass
print(t0, time.monotonic_ns())
"""

BT = r"""
tracepoint:vmscan:mm_vmscan_throttled /comm == "mtw-writer"/ {
  printf("T %llu %d %d %d\n", nsecs, args->usec_timeout, args->usec_delayed, args->reason);
}
tracepoint:vmscan:mm_vmscan_lru_shrink_inactive /comm == "mtw-writer"/ {
  printf("S %llu %lu %lu %lu %lu %lu %lu %d %d\n", nsecs, args->nr_scanned, args->nr_reclaimed, args->nr_dirty,
         args->nr_writeback, args->nr_congested, args->nr_immediate, args->priority, args->reclaim_flags);
}
tracepoint:vmscan:mm_vmscan_memcg_reclaim_begin /comm == "mtw-writer"/ { @rb[tid] = nsecs; }
tracepoint:vmscan:mm_vmscan_memcg_reclaim_end /comm == "mtw-writer" && @rb[tid]/ {
  printf("R %llu %llu %lu\n", @rb[tid], nsecs, args->nr_reclaimed); delete(@rb[tid]);
}
tracepoint:sched:sched_switch /args->prev_comm == "mtw-writer"/ {
  @off[args->prev_pid] = nsecs; @st[args->prev_pid] = kstack(12); @state[args->prev_pid] = args->prev_state;
}
tracepoint:sched:sched_switch /@off[args->next_pid]/ {
  @offns[@state[args->next_pid], @st[args->next_pid]] = sum(nsecs - @off[args->next_pid]);
  @offn[@state[args->next_pid], @st[args->next_pid]] = count();
  delete(@off[args->next_pid]);
}
tracepoint:wbt:wbt_step /strncmp(args->name, "LOOPNAME", LOOPLEN) == 0/ {
  printf("W %llu %d %lu %u %u %u\n", nsecs, args->step, args->window, args->bg, args->normal, args->max);
}
tracepoint:block:block_rq_issue /args->dev == LOOPDEVT && args->bytes > 0/ {
  @s[args->sector] = nsecs; @b[args->sector] = args->bytes;
  if (strncmp(args->rwbs, "W", 1) == 0) { @w[args->sector] = 1; } else { @w[args->sector] = 0; }
}
tracepoint:block:block_rq_complete /args->dev == LOOPDEVT && @s[args->sector]/ {
  printf("Q %llu %llu %d %d\n", @s[args->sector], nsecs, @b[args->sector], @w[args->sector]);
  delete(@s[args->sector]); delete(@b[args->sector]); delete(@w[args->sector]);
}
tracepoint:wbt:wbt_timer /1/ { printf("M %llu %u %d %u\n", nsecs, args->status, args->step, args->inflight); }
END { clear(@s); clear(@b); clear(@w); clear(@off); clear(@st); clear(@state); clear(@rb); }
"""


def sh(*a):
    return subprocess.run(a, check=True, capture_output=True, text=True).stdout.strip()


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--reader"):
        raise SystemExit("usage: reclaim_throttle_trace.py OUT.json [--reader]  (as root, under the host and QEMU locks)")
    outpath = sys.argv[1]
    reader = len(sys.argv) == 3
    res = {"loadavg_start": open("/proc/loadavg").read().split()[:3], "kernel": os.uname().release,
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    os.makedirs(SCRATCH, exist_ok=True)
    img = os.path.join(SCRATCH, "disk.img")
    with open(img, "wb") as f:
        f.truncate(1 << 30)
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
    mounted = memcg = False
    try:
        open(f"{q}/max_sectors_kb", "w").write("1280")
        res["queue"] = {k: open(f"{q}/{k}").read().strip() for k in
                        ("scheduler", "max_sectors_kb", "rotational", "nr_requests", "read_ahead_kb", "wbt_lat_usec")}
        sh("mount", "-t", "ext4", loop, mnt)
        mounted = True
        path = os.path.join(mnt, "f")
        bdi = open(f"/sys/block/{name}/dev").read().strip()  # wbt_step's name: the bdi's, "MAJ:MIN"
        st = os.stat(loop)
        devt = (os.major(st.st_rdev) << 20) | os.minor(st.st_rdev)
        inpath = os.path.join(mnt, "in")
        if reader:
            # the reader's cold 256M file (host-queue-rw-*: memcg R, no limit), written, synced, dropped
            blk = os.urandom(1 << 20)
            fd = os.open(inpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            for _ in range(256):
                os.write(fd, blk)
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        prog = BT.replace("LOOPDEVT", str(devt)).replace("LOOPNAME", bdi).replace("LOOPLEN", str(len(bdi) + 1))
        with tempfile.NamedTemporaryFile("w", suffix=".bt", delete=False) as f:
            f.write(prog)
        out = tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False)
        bp = subprocess.Popen(["bpftrace", f.name], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        time.sleep(5)
        if bp.poll() is not None:
            out.seek(0)
            raise SystemExit(f"bpftrace ended (exit {bp.returncode}):\n{out.read()[-2000:]}")
        os.mkdir(MEMCG)
        memcg = True
        open(f"{MEMCG}/memory.limit_in_bytes", "w").write(str(64 << 20))
        res["load_writer_start"] = open("/proc/loadavg").read().split()[0]
        rd = None
        if reader:
            rd = subprocess.Popen([sys.executable, "-c", READER, inpath], stdout=subprocess.PIPE, text=True)
        r = subprocess.run(["sh", "-c", f'echo $$ > {MEMCG}/cgroup.procs && exec {sys.executable} -c "$0" "$1"', WRITER, path],
                           capture_output=True, text=True, timeout=120)
        if rd is not None:
            res["read_start"], res["read_end"] = map(int, rd.communicate(timeout=120)[0].split())
        if r.returncode:
            raise SystemExit(f"the memcg writer failed: {r.stderr.strip()[-500:]}")
        t0, t1 = map(int, r.stdout.split())
        res["write_start"], res["write_end"] = t0, t1
        res["load_writer_end"] = open("/proc/loadavg").read().split()[0]
        res["memcg"] = {k: open(f"{MEMCG}/memory.{k}").read().strip() for k in ("failcnt", "max_usage_in_bytes")}
        time.sleep(0.5)
        os.killpg(bp.pid, signal.SIGINT)
        bp.wait(timeout=60)
        bp = None
        out.seek(0)
        text = out.read()
        out.close()
        os.unlink(out.name)
        os.unlink(f.name)
        res["requests"], res["wbt_timer"], res["throttled"], res["shrink_inactive"], res["memcg_reclaim"], res["wbt_step"] = [], [], [], [], [], []
        keys = {"Q": "requests", "M": "wbt_timer", "T": "throttled", "S": "shrink_inactive", "R": "memcg_reclaim", "W": "wbt_step"}
        for line in text.splitlines():
            p = line.split()
            if p and p[0] in keys and all(x.lstrip("-").isdigit() for x in p[1:]):
                res[keys[p[0]]].append([int(x) for x in p[1:]])
        # the off-CPU maps as bpftrace prints them at exit (state, stack): kept as text
        res["offcpu_text"] = text[text.find("@off"):] if "@off" in text else ""
    finally:
        if bp is not None:
            if bp.poll() is None:
                os.killpg(bp.pid, signal.SIGINT)
            bp.wait(timeout=60)
        if memcg:
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
    w = (res["write_end"] - res["write_start"]) / 1e9
    th = res["throttled"]
    print(f"{outpath}: writer {w:.3f} s; throttled {len(th)} (reasons {sorted(set(t[3] for t in th))}), "
          f"delayed {sum(t[2] for t in th) / 1e3:.1f} ms; shrink_inactive {len(res['shrink_inactive'])}; "
          f"memcg reclaims {len(res['memcg_reclaim'])}, {sum(e - b for b, e, _ in res['memcg_reclaim']) / 1e6:.1f} ms; "
          f"wbt steps {len(res['wbt_step'])}; load {res['loadavg_start']} -> {res['loadavg_end']}")


if __name__ == "__main__":
    main()
