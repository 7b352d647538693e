#!/usr/bin/env python3
"""Completion time of the host runner's loop device by requests in flight and request size.

Sets up the disk `memtwin real --on host` gives a scenario (real.HostRun._disk: an ext4 image in
a scratch directory under /var/tmp on a new loop device with direct I/O, unthrottled), writes a
file on it with O_DIRECT (so the image's blocks are allocated in the backing file, as a
scenario's files are), and runs fio (Debian's package, `apt-get install fio`; used by this lab
script only) on that file with O_DIRECT and libaio: for each direction (sequential read, random
read, sequential write), request size (4K..1M) and number of requests in flight (iodepth 1..64),
the completion latency (issue to completion: mean, p50, p99) and the throughput. Writes one JSON
line per point and removes everything it made on every exit path (HostRun.cleanup).

Run as root under the host lock, on an idle host:
    flock /tmp/memtwin-host.lock python3 lab/validation/measure_loop_qd.py --out FILE.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from memtwin import leftovers, real  # noqa: E402

MIB = 1 << 20


def fio(path: str, rw: str, bs: str, depth: int, size: int, runtime: float, batch: bool = False) -> dict:
    """One fio run. With `batch`, the `depth` requests are submitted together and the next
    batch only when all have completed (iodepth_batch_submit = iodepth_batch_complete_min =
    depth): the completion latencies' spread (min..max) says whether requests in flight together
    complete one after the other or together."""
    cmd = ["fio", "--name=qd", f"--filename={path}", f"--rw={rw}", f"--bs={bs}", f"--iodepth={depth}",
           "--ioengine=libaio", "--direct=1", f"--size={size}", "--time_based", f"--runtime={runtime}",
           "--ramp_time=0.3", "--randrepeat=1", "--norandommap", "--group_reporting", "--output-format=json"]
    if batch:
        cmd += [f"--iodepth_batch_submit={depth}", f"--iodepth_batch_complete_min={depth}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"fio failed: {r.stderr.strip()[-400:]}")
    j = json.loads(r.stdout[r.stdout.index("{"):])["jobs"][0]
    side = j["write"] if "write" in rw else j["read"]
    clat = side["clat_ns"]
    pct = clat.get("percentile", {})
    return {"rw": rw, "bs": bs, "iodepth": depth, "iops": side["iops"], "bw_MBps": side["bw_bytes"] / 1e6,
            "clat_mean_us": clat["mean"] / 1e3, "clat_p50_us": pct.get("50.000000", 0) / 1e3,
            "clat_p99_us": pct.get("99.000000", 0) / 1e3, "ios": side["total_ios"],
            "clat_min_us": clat["min"] / 1e3, "clat_p10_us": pct.get("10.000000", 0) / 1e3,
            "clat_p90_us": pct.get("90.000000", 0) / 1e3, "batch": batch}


def sweep(a, path: str, size: int, head: dict) -> None:
    with open(a.out, "w") as out:
        head.update({"kernel": os.uname().release, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "file_MiB": a.size, "loadavg": open("/proc/loadavg").read().split()[:3]})
        out.write(json.dumps({"setup": head}) + "\n")
        for rw in a.rw.split(","):
            for bs in a.bs.split(","):
                for d in (int(x) for x in a.depths.split(",")):
                    p = fio(path, rw, bs, d, size, a.runtime, a.batch)
                    p["loadavg"] = open("/proc/loadavg").read().split()[0]
                    out.write(json.dumps(p) + "\n")
                    out.flush()
                    print(f"{rw:9s} {bs:5s} qd{d:3d}: {p['bw_MBps']:8.0f} MB/s  clat mean {p['clat_mean_us']:9.1f} us  p10 {p['clat_p10_us']:9.1f}  p50 {p['clat_p50_us']:9.1f}  p90 {p['clat_p90_us']:9.1f}  p99 {p['clat_p99_us']:9.1f}  load {p['loadavg']}", flush=True)


def fill(path: str, size: int) -> None:
    subprocess.run(["fio", "--name=fill", f"--filename={path}", "--rw=write", "--bs=1m", "--direct=1",
                    f"--size={size}", "--ioengine=libaio", "--iodepth=8", "--end_fsync=1"],
                   capture_output=True, text=True, timeout=600, check=True)


def plain(a) -> int:
    import tempfile
    d = tempfile.mkdtemp(prefix="memtwin-qd-", dir=a.plain)
    path = os.path.join(d, "qd.dat")
    try:
        fill(path, a.size * MIB)
        dev = os.stat(path).st_dev
        sweep(a, path, a.size * MIB, {"plain": a.plain, "st_dev": f"{os.major(dev)}:{os.minor(dev)}"})
    finally:
        if os.path.exists(path):
            os.unlink(path)
        os.rmdir(d)
    return 0


@contextlib.contextmanager
def loop_disk(total: int):
    """The host runner's disk for `total` bytes of files (real.HostRun._disk: an ext4 image in a
    scratch directory under /var/tmp on a new loop device, direct I/O, read_ahead_kb 128, no
    rule), its HostRun yielded; SIGINT and SIGTERM end it, and everything it made is removed on
    every exit path (HostRun.cleanup)."""
    plan = {"mounts": [], "devices": [], "files": [], "tasks": [], "cgroups": []}
    run = real.HostRun(plan, "/var/tmp")

    def on_signal(signum, _frame):
        raise KeyboardInterrupt

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, on_signal)
    try:
        os.mkdir(run.scratch, 0o700)
        run.made_scratch = True
        leftovers.write_owner(run.scratch, "host", image=os.path.join(run.scratch, "disk.img"),
                              mount=os.path.join(run.scratch, "mnt"))
        run._disk(total, 128)
        yield run
    finally:
        left = run.cleanup()
        if left:
            print("could not remove: " + "; ".join(left), file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", type=int, default=1024, help="test file MiB (default 1024)")
    ap.add_argument("--runtime", type=float, default=1.5)
    ap.add_argument("--rw", default="read,randread,write")
    ap.add_argument("--bs", default="4k,16k,64k,256k,1m")
    ap.add_argument("--depths", default="1,2,4,8,16,32,64")
    ap.add_argument("--batch", action="store_true", help="submit each iodepth's requests together, wait for all (fio())")
    ap.add_argument("--plain", metavar="DIR", help="measure a file in DIR instead (no loop device: the disk under "
                    "DIR as a program on this host uses it, e.g. /var/tmp on /dev/vda, where the traces were recorded)")
    a = ap.parse_args()
    if a.plain:
        return plain(a)
    with loop_disk(a.size * MIB) as run:
        path = os.path.join(run.scratch, "mnt", "qd.dat")
        size = a.size * MIB
        fill(path, size)
        head = {"loop": run.loop, "queue": run.queue}
        for q in ("nr_requests", "scheduler", "rotational"):
            head[q] = open(f"/sys/block/{os.path.basename(run.loop)}/queue/{q}").read().strip()
        sweep(a, path, size, head)
    return 0


if __name__ == "__main__":
    sys.exit(main())
