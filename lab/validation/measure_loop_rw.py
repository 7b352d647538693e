#!/usr/bin/env python3
"""The host runner's loop device with reads and writes together (issue 23, host-queue-*).

Sets up the disk `memtwin real --on host` gives a scenario (real.HostRun._disk: an ext4 image in
/var/tmp on a new loop device with direct I/O), writes a read file and a write file on it with
O_DIRECT (so their blocks exist in the backing file), then for each scheduler (none,
mq-deadline), max_sectors_kb (1280, 128) and throttle (unthrottled; blk-throttle rules of the
root blkio cgroup, read 200 MB/s and write 150 MB/s, as the host-queue scenarios' runner sets
them) runs with fio 3.33 (Debian's package; this lab script only):
  - `read`:  a buffered sequential reader, 128 KiB read() calls (psync; the kernel's readahead,
             its file's page cache and the image's dropped first, drop_files(): POSIX_FADV_DONTNEED,
             not the host's whole cache), the host-queue scenarios' reader,
  - `write`: a writer of 1 MiB O_DIRECT writes, 4 in flight (libaio; the flusher's stand-in),
  - `rw`:    both together,
  - `fresh`: the writer once over a new file (`--modes fresh`): writes into holes of the backing
             file (a scenario's new file), where `write` overwrites blocks the backing file has,
and records each job's bandwidth and the loop device's /sys/block/loopN/stat deltas: requests,
sectors and ticks (ms) per direction, so a request's device time (ticks / ios) with and without
the other direction. One JSON line per point, with the 1-minute load average; removes what it
made on every exit path (HostRun.cleanup).

    flock /tmp/memtwin-host.lock nice -n -10 python3 lab/validation/measure_loop_rw.py --out FILE.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from memtwin import leftovers, real  # noqa: E402
from measure_loop_qd import loop_disk  # noqa: E402

MIB = 1 << 20


def stat(name: str) -> list:
    with open(f"/sys/block/{name}/stat") as f:
        return [int(x) for x in f.read().split()]


def delta(a: list, b: list) -> dict:
    d = [y - x for x, y in zip(a, b)]
    return {"read_ios": d[0], "read_merges": d[1], "read_sectors": d[2], "read_ticks_ms": d[3],
            "write_ios": d[4], "write_merges": d[5], "write_sectors": d[6], "write_ticks_ms": d[7],
            "io_ticks_ms": d[9], "time_in_queue_ms": d[10]}


def job_args(kind: str, rpath: str, wpath: str, size: int, runtime: float, rbs: str) -> list:
    if kind == "fresh":
        # a new file, written once: its blocks are holes of the image (the backing file in
        # /var/tmp), as a scenario's new file's are, so the loop device's writes allocate
        # (fio fallocates the file in the image's ext4, which writes no data)
        return ["--name=write", f"--filename={wpath}.new", "--rw=write", "--bs=1m", "--ioengine=libaio", "--iodepth=4",
                "--direct=1", f"--size={size}"]
    if kind == "read":
        return ["--name=read", f"--filename={rpath}", "--rw=read", f"--bs={rbs}", "--ioengine=psync",
                "--direct=0", "--invalidate=1", f"--size={size}", "--time_based", f"--runtime={runtime}"]
    return ["--name=write", f"--filename={wpath}", "--rw=write", "--bs=1m", "--ioengine=libaio", "--iodepth=4",
            "--direct=1", f"--size={size}", "--time_based", f"--runtime={runtime}"]


def drop_files(paths) -> None:
    """Drop the page cache of these files only (review L5: not the whole host's, which every other
    session's builds then re-read): fdatasync() (a clean page only goes) and
    posix_fadvise(POSIX_FADV_DONTNEED), mm/fadvise.c generic_fadvise() -> invalidate_mapping_pages()
    (6.18: mapping_try_invalidate()). The files a point touches: the reader's file on the loop
    device's ext4 (read buffered; the writer's is O_DIRECT and has none) and the image behind the
    loop device (read and written by the loop driver with direct I/O, so only what mkfs and the
    mount left in it)."""
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def point(a, name: str, rpath: str, wpath: str, size: int, mode: str, img: str) -> dict:
    cmd = ["fio", "--output-format=json"]
    if mode == "fresh" and os.path.exists(wpath + ".new"):
        os.unlink(wpath + ".new")
        subprocess.run(["fstrim", os.path.dirname(wpath)], timeout=60)  # discard: the image's blocks holes again
    for kind in (("read", "write") if mode == "rw" else (mode,)):
        cmd += job_args(kind, rpath, wpath, size, a.runtime, a.rbs)
    drop_files([rpath, img])
    s0 = stat(name)
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    t1 = time.monotonic()
    s1 = stat(name)
    if r.returncode != 0:
        raise RuntimeError(f"fio failed: {r.stderr.strip()[-400:]}")
    out = {"mode": mode, "wall_s": round(t1 - t0, 3), "disk": delta(s0, s1)}
    for j in json.loads(r.stdout[r.stdout.index("{"):])["jobs"]:
        side = j["read"] if j["jobname"] == "read" else j["write"]
        out[j["jobname"] + "_MBps"] = round(side["bw_bytes"] / 1e6, 1)
        out[j["jobname"] + "_clat_mean_us"] = round(side["clat_ns"]["mean"] / 1e3, 1)
    d = out["disk"]
    for k in ("read", "write"):
        if d[k + "_ios"]:
            out[k + "_ms_per_req"] = round(d[k + "_ticks_ms"] / d[k + "_ios"], 3)
            out[k + "_KiB_per_req"] = round(d[k + "_sectors"] / 2 / d[k + "_ios"], 1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", type=int, default=1024, help="each file's MiB (default 1024)")
    ap.add_argument("--runtime", type=float, default=2.0)
    ap.add_argument("--rbs", default="128k", help="the reader's read() size")
    ap.add_argument("--schedulers", default="none,mq-deadline")
    ap.add_argument("--msk", default="1280,128")
    ap.add_argument("--throttle", default="off,200M/150M", help="off or READ/WRITE bytes a second (M = 10^6)")
    ap.add_argument("--modes", default="read,write,rw")
    ap.add_argument("--ra", type=int, help="read_ahead_kb written after each max_sectors_kb (default: none, the kernel's: "
                    "6.18 raises read_ahead_kb 128 to twice max_sectors_kb there, blk_apply_bdi_limits())")
    a = ap.parse_args()
    size = a.size * MIB
    with loop_disk(2 * size) as run:
        name = os.path.basename(run.loop)
        rpath = os.path.join(run.scratch, "mnt", "r.dat")
        wpath = os.path.join(run.scratch, "mnt", "w.dat")
        for p in (rpath, wpath):
            subprocess.run(["fio", "--name=fill", f"--filename={p}", "--rw=write", "--bs=1m", "--direct=1",
                            f"--size={size}", "--ioengine=libaio", "--iodepth=8", "--end_fsync=1"],
                           capture_output=True, text=True, timeout=600, check=True)
        q = f"/sys/block/{name}/queue"
        with open(f"/sys/block/{name}/dev") as f:
            majmin = f.read().strip()
        with open(a.out, "w") as out:
            head = {"loop": run.loop, "kernel": os.uname().release, "file_MiB": a.size, "reader_bs": a.rbs,
                    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "loadavg": open("/proc/loadavg").read().split()[:3]}
            for k in ("nr_requests", "rotational", "wbt_lat_usec", "max_hw_sectors_kb"):
                head[k] = open(os.path.join(q, k)).read().strip()
            out.write(json.dumps({"setup": head}) + "\n")
            for thr in a.throttle.split(","):
                if thr == "off":
                    leftovers.unthrottle_loop(run.loop)
                    run.throttled = None
                else:
                    rb, wb = (int(float(x.rstrip("M")) * 1e6) for x in thr.split("/"))
                    run.throttled = majmin
                    real._write("/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device", f"{majmin} {rb}")
                    real._write("/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device", f"{majmin} {wb}")
                for sched in a.schedulers.split(","):
                    real._write(os.path.join(q, "scheduler"), sched)
                    for msk in a.msk.split(","):
                        real._write(os.path.join(q, "max_sectors_kb"), msk)
                        if a.ra is not None:
                            real._write(os.path.join(q, "read_ahead_kb"), str(a.ra))
                        for mode in a.modes.split(","):
                            p = point(a, name, rpath, wpath, size, mode, os.path.join(run.scratch, "disk.img"))
                            p.update({"throttle": thr, "scheduler": sched, "max_sectors_kb": int(msk),
                                      "read_ahead_kb": int(open(os.path.join(q, "read_ahead_kb")).read()),
                                      "wbt_lat_usec": open(os.path.join(q, "wbt_lat_usec")).read().strip(),
                                      "loadavg": open("/proc/loadavg").read().split()[0]})
                            out.write(json.dumps(p) + "\n")
                            out.flush()
                            print(f"{thr:10s} {sched:11s} msk{msk:>5s} {mode:5s}: read {p.get('read_MBps', 0):7.1f} MB/s "
                                  f"{p.get('read_ms_per_req', 0):6.3f} ms/req {p.get('read_KiB_per_req', 0):6.0f} KiB | write "
                                  f"{p.get('write_MBps', 0):7.1f} MB/s {p.get('write_ms_per_req', 0):6.3f} ms/req "
                                  f"{p.get('write_KiB_per_req', 0):6.0f} KiB | load {p['loadavg']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
