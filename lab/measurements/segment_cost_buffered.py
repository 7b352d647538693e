"""The loop device's and its backing disk's request time against bytes and segments on the buffered
readahead path (seg21, issue 21). segment_cost.py measured O_DIRECT reads, whose user pages are pinned
one by one (GUP); this measures what the page cache itself sends down: a cold sequential read of a 256
MiB file (cat's pattern: POSIX_FADV_SEQUENTIAL, 128 KiB read()s) on an ext4 image on a loop device with
direct I/O (as `memtwin real --on host` makes it, unthrottled), with mkfs.ext4's defaults (6.18: large
folios) and with -O verity (order-0 folios), at read_ahead_kb 128 and 8192.

Traced with bpftrace (kprobe blk_mq_start_request for the request's bytes and rq->nr_phys_segments at
issue, tracepoint block:block_rq_complete, matched by device and sector) on the loop device and on the
disk beneath it (vda: every read request of the disk, the backing file's and anything else's; the host
lock keeps the lab's own runs off it). Per configuration it prints the requests' count, bytes, segments
and issue-to-completion times, and the device's busy time (the union of its read requests' [issue,
completion]) per 8 MiB read, by the request's kind (segments per request).

Usage, as root: flock /tmp/memtwin-host.lock python3 lab/measurements/segment_cost_buffered.py [OUT.json]
(scratch under /var/tmp/memtwin-seg21, removed at the end: loop device detached, image deleted)."""
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

FILE_MB = 256
SCRATCH = "/var/tmp/memtwin-seg21"

BT = r"""
tracepoint:block:block_rq_issue /(args->dev == LOOPDEV || args->dev == DISKDEV) && strncmp(args->rwbs, "R", 1) == 0/ {
  @s[args->dev, args->sector] = nsecs;
  @b[args->dev, args->sector] = args->bytes;
}
tracepoint:block:block_rq_complete /(args->dev == LOOPDEV || args->dev == DISKDEV) && @s[args->dev, args->sector]/ {
  printf("R %d %llu %llu %d %llu\n", args->dev, @s[args->dev, args->sector], nsecs, @b[args->dev, args->sector], args->sector);
  delete(@s[args->dev, args->sector]); delete(@b[args->dev, args->sector]);
}
tracepoint:filemap:mm_filemap_add_to_page_cache /args->s_dev == LOOPDEV/ {
  printf("A %lu %lu %d\n", args->index, args->pfn, args->order);
}
END { clear(@s); clear(@b); }
"""


def sh(*cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout.strip()


def devt(name):
    maj, mi = open(f"/sys/block/{name}/dev").read().split(":")
    return (int(maj) << 20) | int(mi)


def busy_union(reqs):
    """Busy time (ns) of the union of [issue, complete] and the bytes in it."""
    t, end, nb = 0, 0, 0
    for s, e, b, g in sorted(reqs):
        if s >= end:
            t += e - s
            end = e
        elif e > end:
            t += e - end
            end = e
        nb += b
    return t, nb


def extents(path):
    """[(logical block, physical block, blocks)] of the file (filefrag -e, 4 KiB blocks)."""
    out = sh("filefrag", "-e", "-b4096", path)
    ext = []
    for line in out.splitlines():
        p = line.replace(":", " ").replace("..", " ").split()
        if len(p) >= 7 and p[0].isdigit():
            ext.append((int(p[1]), int(p[3]), int(p[5])))
    return ext


def segs_of(sector, nbytes, frame, ext):
    blk = sector // 8
    for lg, ph, n in ext:
        if ph <= blk < ph + n:
            first = lg + blk - ph
            break
    else:
        return None
    runs, last = 0, None
    for i in range(first, first + nbytes // 4096):
        f = frame.get(i)
        if f is None:
            return None
        if last is None or f != last + 1:
            runs += 1
        last = f
    return runs


def cold_read(path):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
    t0 = time.perf_counter_ns()
    n = 0
    while True:
        b = os.read(fd, 128 << 10)
        if not b:
            break
        n += len(b)
    t = time.perf_counter_ns() - t0
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    return n, t


def summarize(reqs, kind_of):
    out = {}
    kinds = {}
    for r in reqs:
        kinds.setdefault(kind_of(r), []).append(r)
    for k, rs in sorted(kinds.items()):
        busy, nb = busy_union(rs)
        lat = [e - s for s, e, b, g in rs]
        out[k] = {"requests": len(rs), "mib": round(nb / 2**20, 1),
                  "kib_mean": round(statistics.mean(b for s, e, b, g in rs) / 1024, 1),
                  "us_median": round(statistics.median(lat) / 1e3, 1),
                  "busy_ms_per_8mib": round(busy / 1e6 * (8 << 20) / max(nb, 1), 3)}
    return out


def main():
    outpath = sys.argv[1] if len(sys.argv) > 1 else None
    os.makedirs(SCRATCH, exist_ok=True)
    disk = "vda"
    results = {"loadavg_start": open("/proc/loadavg").read().split()[:3], "kernel": os.uname().release, "runs": []}
    blk = os.urandom(1 << 20)
    for feat in ([], ["verity"]):
        img = os.path.join(SCRATCH, "disk.img")
        with open(img, "wb") as f:
            f.truncate((FILE_MB + 128) << 20)
        sh("mkfs.ext4", "-q", "-F", "-b", "4096", "-E", "lazy_itable_init=0,lazy_journal_init=0",
           *(["-O", ",".join(feat)] if feat else []), img)
        loop = sh("losetup", "--show", "--direct-io=on", "--find", img)
        name = os.path.basename(loop)
        mnt = os.path.join(SCRATCH, "mnt")
        os.makedirs(mnt, exist_ok=True)
        try:
            sh("mount", "-t", "ext4", loop, mnt)
            path = os.path.join(mnt, "f")
            with open(path, "wb") as f:
                for _ in range(FILE_MB):
                    f.write(blk)
                f.flush()
                os.fsync(f.fileno())
            try:
                for ra in (128, 8192, 128):
                    open(f"/sys/block/{name}/queue/read_ahead_kb", "w").write(str(ra))
                    cold_read(path)  # warm the metadata; drops the data
                    prog = BT.replace("LOOPDEV", str(devt(name))).replace("DISKDEV", str(devt(disk)))
                    with tempfile.NamedTemporaryFile("w", suffix=".bt", delete=False) as f:
                        f.write(prog)
                    out = tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False)
                    bp = subprocess.Popen(["bpftrace", f.name], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
                    time.sleep(3)  # attach
                    la = open("/proc/loadavg").read().split()[0]
                    n, t = cold_read(path)
                    time.sleep(0.5)
                    os.killpg(bp.pid, signal.SIGINT)
                    bp.wait(timeout=60)
                    out.seek(0)
                    reqs = {}
                    adds = []
                    for line in out:
                        p = line.split()
                        if len(p) == 4 and p[0] == "A":
                            adds.append((int(p[1]), int(p[2]), int(p[3])))
                        if len(p) == 6 and p[0] == "R":
                            reqs.setdefault(int(p[1]), []).append((int(p[2]), int(p[3]), int(p[4]), int(p[5])))
                    out.close(); os.unlink(f.name)
                    lr = reqs.get(devt(name), [])
                    if not lr or not adds:
                        raise SystemExit("bpftrace traced no read request or page-cache addition of the loop device:\n" + open(out.name).read()[-2000:] if os.path.exists(out.name) else "")
                    dr = reqs.get(devt(disk), [])
                    lb, lnb = busy_union(lr)
                    db, dnb = busy_union(dr)
                    # the page cache's physically contiguous runs (what a bio's bvecs merge into and the
                    # disk's request counts as segments), from the folios added in file order
                    adds.sort()
                    runs, orders, end = 0, {}, None
                    for idx, pfn, order in adds:
                        orders[order] = orders.get(order, 0) + 1
                        if pfn != end:
                            runs += 1
                        end = pfn + (1 << order)
                    pages = sum(1 << o for _, _, o in adds)
                    frame = {}
                    for idx, pfn, order in adds:
                        for k in range(1 << order):
                            frame[idx + k] = pfn + k
                    ext = extents(path)
                    lr0 = sorted(reqs.get(devt(name), []))
                    per_req = []
                    for j, (s0, e0, b0, sec) in enumerate(lr0):
                        alone = (j == 0 or lr0[j - 1][1] <= s0) and (j + 1 == len(lr0) or lr0[j + 1][0] >= e0)
                        per_req.append((s0, e0, b0, segs_of(sec, b0, frame, ext), alone))
                    run = {"fs": "verity" if feat else "default", "read_ahead_kb": ra, "loadavg": la,
                           "folios_by_order": orders, "pages_added": pages, "contiguous_runs": runs,
                           "kib_per_run": round(pages * 4 / max(runs, 1), 1),
                           "read_mib": n >> 20, "read_ms": round(t / 1e6, 1),
                           "loop": {"requests": len(lr), "mib": round(lnb / 2**20, 1),
                                    "busy_ms_per_8mib": round(lb / 1e6 * (8 << 20) / max(lnb, 1), 3),
                                    "by_size": summarize(lr, lambda r: r[2] >> 10)},
                           "disk": {"requests": len(dr), "mib": round(dnb / 2**20, 1),
                                    "busy_ms_per_8mib": round(db / 1e6 * (8 << 20) / max(dnb, 1), 3),
                                    "by_size": summarize(dr, lambda r: r[2] >> 10)},
                           "requests": {"loop": sorted(lr), "disk": sorted(dr)}, "loop_requests_segments": per_req}
                    al = [(e0 - s0, g) for s0, e0, b0, g, a in per_req if a and g is not None and b0 == 256 << 10]
                    if len(al) > 10:
                        xs = [g for _, g in al]; ys = [t for t, _ in al]
                        mx, my = statistics.mean(xs), statistics.mean(ys)
                        sxx = sum((x - mx) ** 2 for x in xs)
                        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
                        run["alone_256k"] = {"n": len(al), "segments_median": statistics.median(xs), "segments_range": [min(xs), max(xs)],
                                             "us_median": round(statistics.median(ys) / 1e3, 1), "ns_per_segment_fit": round(slope),
                                             "us_at_0_segments": round((my - slope * mx) / 1e3, 1)}
                    os.unlink(out.name)
                    print(json.dumps({k: (v if k not in ("loop", "disk") else {a: b for a, b in v.items() if a != "by_size"}) for k, v in run.items() if k not in ("requests", "loop_requests_segments")}), flush=True)
                    results["runs"].append(run)
            finally:
                sh("umount", mnt)
        finally:
            sh("losetup", "-d", loop)
            os.unlink(img)
    shutil.rmtree(SCRATCH, ignore_errors=True)
    results["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    if outpath:
        with open(outpath, "w") as f:
            json.dump(results, f)


if __name__ == "__main__":
    main()
