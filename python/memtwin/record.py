"""memtwin record: run a command (or follow a cgroup's tasks) under a tracer and write its file
and memory activity as a memtwin trace; memtwin import: the same from other tools' logs.

Tracers, best first: BPF (bpftrace on the kernel's tracepoints, memtwin.record_bpf: syscalls
with the file and position read in the kernel, and the page faults on mappings) when the host
allows it (root, bpftrace, BTF, the tracepoints), else strace (Debian's package, `-f -ttt -y`,
converted by memtwin.trace_import: syscalls only, no page faults). The output says which tracer
ran, why BPF was not used, what the tracer cannot see, and the wall time of the traced run;
`--overhead` also runs the command once untraced and gives the ratio.
"""

from __future__ import annotations

import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import jsonio, record_bpf, trace, trace_import

# What a strace recording lacks (the header's `missing`).
STRACE_MISSING = ["page faults on file and anonymous mappings (strace sees syscalls only: file mmaps are counted, "
                  "not replayed; anonymous memory is not faulted)",
                  "the file position of descriptors opened before the recording started (taken as 0)"]

# The BPF tracer's accesses through page-table entries set up earlier (no fault shows them):
# what --sample-hz records and what no source records (the header's `missing`, `samples`).
SAMPLE_SOURCE = ("bpftrace profile:hz (perf cpu-clock) on each CPU: the followed thread's user instruction "
                 "pointer, resolved against the trace's own mappings; one `access` per sample")
UNSAMPLED_MISSING = ("accesses through page-table entries set up earlier (the text a program executes, the data it "
                     "reads from its mappings): no fault shows them (memtwin record --refs-ms records the pages they "
                     "made young, --sample-hz samples the text)")
SAMPLED_MISSING = ("the data a program reads or writes through page-table entries set up earlier (the sampled "
                   "instruction pointers give the text it executes, not the addresses it loads; memtwin record "
                   "--refs-ms records the pages those accesses made young)")

# --refs-ms: the pages the program's accesses made young, per window (memtwin.record_bpf).
REFS_SOURCE = ("page-table walk (BPF, through the kernel's direct map) of the followed processes' file mappings at the "
               "end of each window: every present PTE with _PAGE_ACCESSED, then /proc/PID/clear_refs 3 "
               "(ptep_test_and_clear_young() of every file-mapped PTE, no TLB flush); one `access` per run of young pages")
REFS_MISSING = ("when in its window a page was accessed, and how often (a window's young pages are written at its end, "
                "once each), and the accesses after the last window; an access through a translation the CPU's TLB "
                "still holds after the bit was cleared sets no accessed bit (x86 clears it without a flush, as "
                "reclaim's ptep_clear_flush_young() does); the recorded run's kernel is disturbed: clear_refs 3 also "
                "clears PG_referenced (ClearPageReferenced) and the idle-tracking young flag of each file-mapped page "
                "(6.1 fs/proc/task_mmu.c clear_refs_pte_range), so while recording a mapped page read twice "
                "(mark_page_accessed) or found young by two reclaim scans (folio_check_references) is activated only "
                "when both fall in one window, and reclaim sees only the "
                "references since the last window")

SYSCALLS = ("open,openat,creat,close,read,readv,pread64,preadv,preadv2,write,writev,pwrite64,pwritev,"
            "pwritev2,lseek,mmap,munmap,madvise,fadvise64,fsync,fdatasync,truncate,ftruncate,rename,"
            "renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,clone,clone3,fork,vfork,exit_group")


class RecordError(Exception):
    pass


def add_parsers(sub) -> None:
    r = sub.add_parser("record", help="run a command under a tracer and write its file/memory activity as a trace",
                       description="Run CMD (or follow the tasks of --cgroup) under a tracer (BPF when the host allows it, "
                                   "else strace) and write a memtwin trace (.mtt) of its whole process tree: open/close, "
                                   "reads and writes with their offsets, lseek, mmap/munmap/madvise and (BPF) the page "
                                   "faults on the mappings, fadvise, fsync, truncate, fork/exit, with timestamps.")
    r.add_argument("--out", default="trace.mtt", metavar="FILE", help="trace to write (default trace.mtt)")
    r.add_argument("--cgroup", metavar="PATH", help="follow the tasks already in this cgroup directory (BPF: and tasks that join it) instead of running CMD (root)")
    r.add_argument("--duration", type=float, default=10.0, metavar="S", help="with --cgroup: seconds to follow (default 10)")
    r.add_argument("--overhead", action="store_true", help="also run CMD once untraced and report the tracer's overhead")
    r.add_argument("--tracer", choices=["auto", "bpf", "strace"], default="auto",
                   help="auto (default): BPF when the host allows it, else strace; bpf or strace: that one or an error")
    r.add_argument("--resident", action="append", default=[], metavar="PATH",
                   help="snapshot the page cache of the files at or below PATH before the command starts (mincore), "
                        "kept as the trace's initial cache state; every argument of CMD that names an existing "
                        "file or directory is snapshotted too (at most RESIDENT_MAX_FILES files in all)")
    r.add_argument("--cold", action="append", default=[], metavar="PATH",
                   help="drop the page cache of the files at or below PATH first (written back first; repeatable), "
                        "as memtwin measure does: what a page fault maps depends on what is cached")
    r.add_argument("--sample-hz", type=int, default=0, metavar="N",
                   help="BPF tracer: also sample the traced threads' user instruction pointers N times a second "
                        "(perf cpu-clock, bpftrace profile:hz) and write each as an `access` of that page of its "
                        f"mapping: the text a program executes through page-table entries set up earlier, which "
                        f"no fault shows (default 0: off; at most {record_bpf.SAMPLE_HZ_MAX})")
    r.add_argument("--refs-ms", type=int, default=0, metavar="MS",
                   help="BPF tracer, x86-64: every MS milliseconds, write the pages of the file mappings the traced "
                        "processes accessed in that window (their PTEs' accessed bit, read by a page-table walk and "
                        "cleared with /proc/PID/clear_refs) as `access` events: the text a program executes and the "
                        "data it loads through page-table entries set up earlier, which no fault shows "
                        f"(default 0: off; {record_bpf.REFS_MS_RANGE[0]} to {record_bpf.REFS_MS_RANGE[1]})")
    r.add_argument("command", nargs="*", metavar="CMD")
    i = sub.add_parser("import", help="convert another tool's trace into a memtwin trace",
                       description="Convert a trace recorded elsewhere into a memtwin trace (.mtt). Formats: strace "
                                   "(a log of strace -f -ttt -y); oracleGeneral (libCacheSim's binary trace, raw or .zst); "
                                   "lcs-csv (a csv trace as libCacheSim reads it, with --csv-params); ftrace (ftrace or trace-cmd report "
                                   "text of mm_filemap_add_to_page_cache: each page added replayed as a read of it). Object traces' objects "
                                   "become ranges of one file (--objects device) or files of their own (--objects files).")
    i.add_argument("--format", choices=["strace", "oracleGeneral", "lcs-csv", "ftrace"], required=True)
    i.add_argument("--objects", choices=["device", "files"], default="device",
                   help="object traces: each object a page-aligned range of /lcs/device (default), or a file /lcs/obj/ID")
    i.add_argument("--ignore-obj-size", action="store_true", help="object traces: every object one page (libCacheSim's --ignore-obj-size)")
    i.add_argument("--readahead", action="store_true", help="object traces: keep the kernel's readahead (default: POSIX_FADV_RANDOM first)")
    i.add_argument("--csv-params", metavar="PARAMS", default="time-col=1, obj-id-col=2, obj-size-col=3, delimiter=,, has-header=false",
                   help="lcs-csv: libCacheSim's csv parameters (default \"time-col=1, obj-id-col=2, obj-size-col=3, delimiter=,, has-header=false\")")
    i.add_argument("--out", required=True, metavar="FILE")
    i.add_argument("input", metavar="INPUT")
    s = sub.add_parser("trace-info", help="summarize a memtwin trace", description="Print a trace's header and counts per op.")
    s.add_argument("file", metavar="FILE")


def _tracer() -> str:
    st = shutil.which("strace")
    if not st:
        raise RecordError("memtwin record: error: no tracer found (strace is not installed)\n"
                          "  fix: apt-get install strace")
    return st


def _header(extra: dict, tracer: str = "strace") -> dict:
    h = {"host": platform.node(), "kernel": platform.release(), "tracer": tracer,
         "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    h.update(extra)
    return h


RESIDENT_MAX_FILES = 100_000


def device_read_ahead_kb(path: str) -> int | None:
    """read_ahead_kb of the block device holding `path` (/sys/dev/block/MAJ:MIN/queue, or its
    disk's for a partition); None when it is not on a block device."""
    try:
        dev = os.stat(path).st_dev
    except OSError:
        return None
    base = f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"
    for q in (os.path.join(base, "queue", "read_ahead_kb"), os.path.join(base, "..", "queue", "read_ahead_kb")):
        try:
            with open(q) as f:
                return int(f.read())
        except (OSError, ValueError):
            continue
    return None


def add_read_ahead(header: dict) -> None:
    """The recording host's readahead window: each header file's device's read_ahead_kb, and
    the header's `read_ahead_kb`, that of the device holding the most bytes of the trace's files
    (memtwin replay gives it to its device)."""
    per: dict = {}
    for fe in header.get("files", []):
        ra = device_read_ahead_kb(fe.get("path") or "")
        if ra is not None:
            fe["read_ahead_kb"] = ra
            per[ra] = per.get(ra, 0) + int(fe.get("size") or 0) + 1
    if per:
        header["read_ahead_kb"] = max(per, key=per.get)


def snapshot_resident(paths: list) -> tuple[dict, dict]:
    """The page cache of the regular files at or below `paths` now: {real path: [[first page,
    pages], ...]} (files with nothing cached left out), and counts (files looked at, skipped)."""
    from . import hostcache

    out: dict = {}
    seen = skipped = 0
    for root in paths:
        if not os.path.exists(root):
            continue
        t = hostcache.TreeTotals(root)
        for path, _st in hostcache.walk(root, t, False):
            if seen >= RESIDENT_MAX_FILES:
                break
            seen += 1
            try:
                r = hostcache.resident_ranges(path)
            except OSError:
                skipped += 1
                continue
            if r:
                out[os.path.realpath(path)] = r
    return out, {"files": seen, "skipped": skipped, "cached_files": len(out),
                 "cached_pages": sum(n for rs in out.values() for _f, n in rs)}


def mapped_files() -> list:
    """The regular files some process maps now (/proc/PID/maps), real paths, sorted. Their
    mapped pages stay cached whatever a drop does (POSIX_FADV_DONTNEED skips a mapped folio),
    and the shared libraries a command loads are among them."""
    out = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/maps") as f:
                for line in f:
                    parts = line.split(None, 5)
                    if len(parts) == 6 and parts[5].startswith("/") and not parts[5].endswith(" (deleted)\n"):
                        out.add(parts[5].rstrip("\n"))
        except OSError:   # gone, or not ours to read
            continue
    return sorted(p for p in out if os.path.isfile(p))[:RESIDENT_MAX_FILES]


def resident_in_header(header: dict) -> tuple:
    """(pages, files) of the header's files with pages cached at the start."""
    rs = [fe.get("resident") for fe in header.get("files", []) if isinstance(fe, dict) and fe.get("resident")]
    return sum(n for r in rs for _f, n in r), len(rs)


def record(cmd: list, out: str, cgroup: str | None = None, duration: float = 10.0, overhead: bool = False,
           resident_paths: list | None = None, tracer: str = "auto", cold: list | None = None, sample_hz: int = 0,
           refs_ms: int = 0) -> dict:
    jsonio.check_writable(out)
    lo, hi = record_bpf.REFS_MS_RANGE
    if refs_ms and not lo <= refs_ms <= hi:
        raise RecordError(f"--refs-ms {refs_ms}: error: the window must be 0 (off) or {lo} to {hi} milliseconds\n"
                          "  fix: give e.g. --refs-ms 5")
    if refs_ms and tracer == "strace":
        raise RecordError(f"--refs-ms {refs_ms}: error: only the BPF tracer walks page tables (strace cannot)\n"
                          "  fix: use --tracer bpf (root, bpftrace), or leave --refs-ms out")
    if refs_ms and record_bpf.refs_unavailable():
        raise RecordError(f"--refs-ms {refs_ms}: error: {record_bpf.refs_unavailable()}\n"
                          "  fix: leave --refs-ms out (--sample-hz samples the text a program executes)")
    if not 0 <= sample_hz <= record_bpf.SAMPLE_HZ_MAX:
        raise RecordError(f"--sample-hz {sample_hz}: error: the sampling rate must be 0 (off) to {record_bpf.SAMPLE_HZ_MAX} per second\n"
                          "  fix: give e.g. --sample-hz 1000")
    if sample_hz and tracer == "strace":
        raise RecordError(f"--sample-hz {sample_hz}: error: only the BPF tracer samples instruction pointers (strace cannot)\n"
                          "  fix: use --tracer bpf (root, bpftrace), or leave --sample-hz out")
    for p in cold or []:
        if not os.path.exists(p):
            raise RecordError(f"--cold {p}: error: no such file or directory\n  fix: name a file or directory to drop from the page cache")
    why_not_bpf = record_bpf.available() if tracer != "strace" else "--tracer strace"
    if tracer == "bpf" and why_not_bpf:
        raise RecordError(f"memtwin record: error: the BPF tracer cannot run here: {why_not_bpf}\n"
                          "  fix: run as root on a kernel with BTF and bpftrace installed, or use --tracer strace")
    pids = []
    if cgroup:
        procs = os.path.join(cgroup, "cgroup.procs")
        try:
            with open(procs) as f:
                pids = [int(x) for x in f.read().split()]
        except FileNotFoundError:
            raise RecordError(f"{cgroup}: error: not a cgroup directory (no cgroup.procs)\n  fix: name a directory under /sys/fs/cgroup") from None
        except PermissionError:
            raise RecordError(f"{procs}: error: permission denied\n  fix: run memtwin record --cgroup as root") from None
        if not pids:
            raise RecordError(f"{cgroup}: error: the cgroup has no tasks\n  fix: start the workload in it first")
        inside = record_bpf.recorder_cgroup_in(cgroup) if refs_ms else None
        if inside:
            raise RecordError(f"--refs-ms {refs_ms} --cgroup {cgroup}: error: this recorder (pid {os.getpid()}) runs in {inside}, "
                              "in or below the cgroup, whose processes every window stops (SIGSTOP)\n"
                              "  fix: run memtwin record from a shell outside the cgroup, or leave --refs-ms out")
        if os.geteuid() != 0:
            raise RecordError(f"{cgroup}: error: following another process's tasks needs root (ptrace)\n"
                              "  fix: run memtwin record --cgroup as root, or record the command itself: memtwin record -- CMD")
    else:
        if not cmd:
            raise RecordError("memtwin record: error: no command given\n  fix: memtwin record --out FILE -- CMD [ARGS...]")
        if not shutil.which(cmd[0]):
            raise RecordError(f"{cmd[0]}: error: command not found\n  fix: check the name and PATH, or give its full path")
    if cold:
        from . import hostcache
        for p in cold:
            hostcache.evict(p, sync=True)
    # The cache the command starts with: the files it names and those below --resident, and the
    # files other processes map (its shared libraries among them); the trace's files keep theirs.
    snap_paths = list(resident_paths or []) + [x for x in cmd[1:] if x.startswith("/") or os.path.exists(x)]
    resident, snap = snapshot_resident([p for p in snap_paths if os.path.exists(p)])
    mapped = [p for p in mapped_files() if p not in resident]
    more, msnap = snapshot_resident(mapped)
    resident.update(more)
    snap = dict(snap, mapped_files=msnap["files"], cached_files=snap["cached_files"] + msnap["cached_files"],
                cached_pages=snap["cached_pages"] + msnap["cached_pages"], skipped=snap["skipped"] + msnap["skipped"])
    if why_not_bpf is None:
        try:
            return _record_bpf(cmd, out, cgroup, duration, overhead, resident, snap, sample_hz, refs_ms)
        except record_bpf.BpfUnavailable as e:
            if tracer == "bpf":
                raise RecordError(f"memtwin record: error: the BPF tracer failed: {e}\n  fix: use --tracer strace") from None
            why_not_bpf = str(e)
    if refs_ms:
        raise RecordError(f"--refs-ms {refs_ms}: error: the BPF tracer cannot run here ({why_not_bpf}), and only it walks page tables\n"
                          "  fix: run as root on a kernel with BTF and bpftrace installed, or leave --refs-ms out")
    if sample_hz:
        raise RecordError(f"--sample-hz {sample_hz}: error: the BPF tracer cannot run here ({why_not_bpf}), and only it samples\n"
                          "  fix: run as root on a kernel with BTF and bpftrace installed, or leave --sample-hz out")
    st = _tracer()
    fd, log = tempfile.mkstemp(prefix=".memtwin-strace-", suffix=".log", dir=os.path.dirname(os.path.abspath(out)))
    os.close(fd)
    try:
        args = [st, "-f", "-ttt", "-y", "-s", "0", "-qq", "-e", "trace=" + SYSCALLS, "-o", log]
        t = time.monotonic()
        if cgroup:
            for p in pids:
                args += ["-p", str(p)]
            pr = subprocess.Popen(args, stderr=subprocess.PIPE)
            try:   # communicate() drains strace's stderr while it runs (a full pipe would block it)
                pr.communicate(timeout=duration)
            except subprocess.TimeoutExpired:
                pr.send_signal(signal.SIGINT)
                try:
                    pr.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    pr.kill()
                    pr.communicate()
            rc = 0
        else:
            pr = subprocess.run(args + ["--"] + cmd, stderr=subprocess.PIPE)
            rc = pr.returncode
            err = pr.stderr.decode(errors="replace")
            if "ptrace" in err and "Operation not permitted" in err:
                raise RecordError("memtwin record: error: strace may not trace here (ptrace: Operation not permitted)\n"
                                  "  fix: allow ptrace (sysctl kernel.yama.ptrace_scope=0, or a container with CAP_SYS_PTRACE), or run as root")
            sys.stderr.write(err)
        wall = time.monotonic() - t
        info = trace_import.import_strace(log, out, _header({"command": cmd, "cgroup": cgroup, "exit_status": rc,
                                                              "resident_snapshot": dict(snap, method="mincore"),
                                                              "missing": STRACE_MISSING, "bpf_not_used": why_not_bpf}), resident)
        info["resident"] = snap
    finally:
        try:
            os.unlink(log)
        except OSError:
            pass
    info.update(tracer="strace", wall_s=round(wall, 3), exit_status=rc, bpf_not_used=why_not_bpf, missing=STRACE_MISSING)
    if overhead and not cgroup:
        info["untraced_wall_s"] = _untraced(cmd)
    return info


def _untraced(cmd: list) -> float:
    t = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return round(time.monotonic() - t, 3)


def _record_bpf(cmd, out, cgroup, duration, overhead, resident, snap, sample_hz=0, refs_ms=0) -> dict:
    """memtwin record with the BPF tracer (memtwin.record_bpf)."""
    outdir = os.path.dirname(os.path.abspath(out))
    tinfo: dict = {}
    with record_bpf.Tracefs():
        raw, rc, wall = record_bpf.trace_tasks(None if cgroup else cmd, cgroup, duration, outdir, sample_hz, refs_ms, tinfo)
    try:
        missing = list(record_bpf.MISSING)
        missing.append(REFS_MISSING if refs_ms else SAMPLED_MISSING if sample_hz else UNSAMPLED_MISSING)
        hdr = {"source": "bpftrace", "command": cmd, "cgroup": cgroup, "exit_status": rc, "traced_wall_s": round(wall, 3),
               "resident_snapshot": dict(snap, method="mincore"), "missing": missing}
        w = trace.Writer(out, _header(hdr, "bpftrace"))
        try:
            counts = record_bpf.convert(raw, w, trace_import._is_data_file, os.getcwd(),
                                        stopped=tinfo.get("refs_stopped") if refs_ms else None)
            if sample_hz:
                w.header["samples"] = dict(counts["samples"], hz=sample_hz, source=SAMPLE_SOURCE)
            if refs_ms:
                w.header["young"] = dict(counts["young"], ms=refs_ms, windows=tinfo.get("refs_windows", 0), source=REFS_SOURCE)
            files = w.header["files"]
            for fe in files:
                r = resident.get(os.path.realpath(fe["path"]))
                if r:
                    fe["resident"] = r
            add_read_ahead(w.header)
            n = w.close()
        except BaseException:
            w.abort()
            raise
    finally:
        try:
            os.unlink(raw)
        except OSError:
            pass
    info = dict(counts, events=n, files=len(files), resident=snap, tracer="bpftrace", wall_s=round(wall, 3),
                exit_status=rc, missing=missing, sample_hz=sample_hz, refs_ms=refs_ms, refs_windows=tinfo.get("refs_windows", 0))
    if overhead and not cgroup:
        info["untraced_wall_s"] = _untraced(cmd)
    return info


def run_cli(a) -> int:
    try:
        if a.cmd == "record":
            cmd = list(a.command)
            info = record(cmd, a.out, a.cgroup, a.duration, a.overhead, a.resident, a.tracer, a.cold, a.sample_hz, a.refs_ms)
            line = (f"{a.out}: {info['events']} events, {info['files']} files; tracer: {info['tracer']} "
                    f"(traced wall {info['wall_s']} s")
            if "untraced_wall_s" in info and info["untraced_wall_s"] > 0:
                line += f", untraced {info['untraced_wall_s']} s: overhead x{info['wall_s'] / info['untraced_wall_s']:.1f}"
            print(line + ")")
            if info["tracer"] == "bpftrace":
                print(f"  page faults: {info['faults']} ({info['file_faults']} on files, {info['anon_faults']} on anonymous memory), "
                      f"{info['maps']} mappings")
                if info["sample_hz"]:
                    sm = info["samples"]
                    print(f"  instruction-pointer samples at {info['sample_hz']} Hz: {sm['taken']} ({sm['touches']} accesses of "
                          f"file mappings, {sm['anonymous']} in anonymous memory, {sm['outside_mappings']} outside every "
                          f"mapping, {sm['no_user_ip']} without a user instruction pointer)")
                if info["refs_ms"]:
                    y = info["young"]
                    print(f"  young pages every {info['refs_ms']} ms: {info['refs_windows']} windows, {y['pages']} young pages "
                          f"({y['touches']} accesses of file mappings, {y['anonymous']} pages in anonymous memory, "
                          f"{y['outside_mappings']} outside every mapping); stopped {y['stopped_ms']:.1f} ms, left out of the trace's times")
            elif info.get("bpf_not_used"):
                print(f"  BPF not used: {info['bpf_not_used']}")
            for m in info.get("missing", []):
                print(f"  not recorded: {m}")
            with trace.Reader(a.out) as r:
                pages, nfiles = resident_in_header(r.header)
            print(f"  cache at the start (mincore): {pages} pages in {nfiles} of the trace's {info['files']} files "
                  "(looked at: the files the command names, --resident's, and those other processes map)")
            if info["exit_status"]:
                print(f"note: the command exited with status {info['exit_status']}", file=sys.stderr)
            return 0
        if a.cmd == "import":
            if a.format == "strace":
                info = trace_import.import_strace(a.input, a.out)
                print(f"{a.out}: {info['events']} events, {info['files']} files from {info['lines']} strace lines")
                return 0
            if a.format == "ftrace":
                info = trace_import.import_ftrace(a.input, a.out, readahead=a.readahead)
                print(f"{a.out}: {info['events']} events: {info['added']} pages added to the page cache in {info['files']} files "
                      f"({info['evictions']} evictions counted, not replayed)")
                return 0
            kw = {"objects": a.objects, "ignore_obj_size": a.ignore_obj_size, "readahead": a.readahead}
            if a.format == "oracleGeneral":
                info = trace_import.import_oracle_general(a.input, a.out, **kw)
            else:
                info = trace_import.import_lcs_csv(a.input, a.out, a.csv_params, **kw)
            print(f"{a.out}: {info['events']} events: {info['requests']} requests of {info['objects']} objects, "
                  f"{info['files']} file(s) ({a.objects})")
            return 0
        if a.cmd == "trace-info":
            with trace.Reader(a.file) as r:
                h = r.header
            s = trace.summary(a.file)
            print(f"{a.file}: source {h.get('source')}, host {h.get('host')}, kernel {h.get('kernel')}, "
                  f"tracer {h.get('tracer', '-')}")
            print(f"  {s['events']} events over {s['duration_ns'] / 1e9:.3f} s, {s['files']} files (format version {r.version})")
            sm = h.get("samples")
            if isinstance(sm, dict):
                print(f"  instruction-pointer samples at {sm.get('hz')} Hz: {sm.get('taken')} taken, {sm.get('touches')} written as accesses")
            yg = h.get("young")
            if isinstance(yg, dict):
                stop = (f"; stopped {yg['stopped_ms']:.1f} ms, left out of the times" if "stopped_ms" in yg
                        else "; the times include the stopped periods")
                print(f"  young pages every {yg.get('ms')} ms: {yg.get('windows')} windows, {yg.get('pages')} pages, "
                      f"{yg.get('touches')} written as accesses{stop}")
            for k, v in sorted(s["ops"].items()):
                print(f"  {k:10} {v}")
            return 0
    except (RecordError, trace.TraceError, jsonio.OutputError) as e:
        print(str(e), file=sys.stderr)
        return 1
    return 2
