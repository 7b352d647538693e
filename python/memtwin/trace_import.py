"""Importers: workloads recorded by other tools into memtwin's trace format (memtwin.trace).

strace logs, and libCacheSim's oracleGeneral and csv traces (below). strace logs written with `strace -f -ttt -y` (the form memtwin record itself uses).
Each file a syscall names by path (the -y annotation of its descriptor) becomes a trace file;
reads and writes carry the byte offset they touched, tracked per open descriptor as the kernel
keeps f_pos (read/write advance it, lseek sets it, pread/pwrite leave it).
"""

from __future__ import annotations

import os
import re
import struct

from . import trace

_LINE = re.compile(r"^(\d+)\s+(\d+)\.(\d+)\s+(.*)$")
_CALL = re.compile(r"^([a-z_0-9]+)\((.*)\)\s+=\s+(-?\d+|0x[0-9a-f]+|\?)(?:<([^>]*)>)?")
_FD = re.compile(r"^(-?\d+)(?:<(.*)>)?$")




def _split_args(s: str) -> list:
    """Top-level comma split of a syscall's argument text (quotes, brackets, braces nest)."""
    out, depth, cur, q = [], 0, [], False
    i = 0
    while i < len(s):
        c = s[i]
        if q:
            cur.append(c)
            if c == "\\" and i + 1 < len(s):
                cur.append(s[i + 1])
                i += 1
            elif c == '"':
                q = False
        elif c == '"':
            q = True
            cur.append(c)
        elif c in "([{<":
            depth += 1
            cur.append(c)
        elif c in ")]}>":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        out.append("".join(cur).strip())
    return out


# The advice of fadvise64 as the event's flags: include/uapi/linux/fadvise.h (x86-64 values).
_FADV = {"POSIX_FADV_NORMAL": 0, "POSIX_FADV_RANDOM": 1, "POSIX_FADV_SEQUENTIAL": 2, "POSIX_FADV_WILLNEED": 3,
         "POSIX_FADV_DONTNEED": 4, "POSIX_FADV_NOREUSE": 5}


def _int(s: str) -> int:
    s = s.strip()
    return int(s, 16) if s.startswith("0x") else int(s)


class _Files:
    def __init__(self):
        self.ids: dict = {}
        self.list: list = []

    def id(self, path: str) -> int:
        i = self.ids.get(path)
        if i is None:
            if len(self.list) >= trace.NO_FILE:
                return trace.NO_FILE
            i = len(self.list)
            self.ids[path] = i
            try:
                size = os.stat(path).st_size if os.path.isfile(path) else None
            except OSError:
                size = None
            self.list.append({"id": i, "path": path, "size": size})
        return i


def _is_data_file(path) -> bool:
    return bool(path) and path.startswith("/") and not path.startswith(("/dev/", "/proc/", "/sys/", "pipe:", "socket:"))


def import_strace(log: str, out: str, header: dict | None = None, resident: dict | None = None) -> dict:
    """Convert the strace log `log` into the trace `out`; returns the summary of what it kept.
    `resident` maps a file's real path to its page ranges cached at the recording's start
    (memtwin record's snapshot), written as the header file's `resident`."""
    try:
        f = open(log, errors="replace")
    except FileNotFoundError:
        raise trace.TraceError(f"{log}: error: no such strace log\n  fix: check the path; record one with strace -f -ttt -y -o FILE CMD") from None
    except PermissionError:
        raise trace.TraceError(f"{log}: error: permission denied\n  fix: make it readable") from None
    files = _Files()
    hdr = {"source": "strace", "source_file": os.path.basename(log)}
    hdr.update(header or {})
    w = trace.Writer(out, hdr)
    pos: dict = {}       # (pid, fd) -> file offset
    pending: dict = {}   # pid -> text of an unfinished call
    t0 = None
    skipped = 0
    seen = 0
    with f:
        for lineno, line in enumerate(f, 1):
            m = _LINE.match(line.rstrip("\n"))
            if not m:
                if line.strip():
                    skipped += 1
                continue
            seen += 1
            pid = int(m.group(1))
            t = int(m.group(2)) * 1_000_000_000 + int(m.group(3).ljust(9, "0")[:9])
            if t0 is None:
                t0 = t
            body = m.group(4)
            if body.endswith("<unfinished ...>"):
                pending[pid] = body[: -len("<unfinished ...>")].rstrip()
                continue
            if body.startswith("<... "):
                head = pending.pop(pid, None)
                k = body.find(" resumed>")
                if head is None or k < 0:
                    continue
                body = head + body[k + len(" resumed>"):]
            if body.startswith("+++ exited") or body.startswith("+++ killed"):
                w.add(t - t0, "exit", pid=pid)
                continue
            c = _CALL.match(body)
            if not c:
                continue
            name, args, ret, retpath = c.group(1), _split_args(c.group(2)), c.group(3), c.group(4)
            if ret == "?":
                continue
            r = _int(ret)
            dt = t - t0
            if name in ("clone", "clone3", "fork", "vfork") and r > 0:
                w.add(dt, "fork", pid=pid, length=r)
                continue
            if r < 0:
                continue
            if name in ("open", "openat", "creat") and _is_data_file(retpath):
                fid = files.id(retpath)
                w.add(dt, "open", pid=pid, file=fid)
                pos[(pid, r)] = 0
                # do_sys_open() -> do_open() (fs/namei.c, 6.1): O_TRUNC (creat() is open with
                # O_CREAT|O_WRONLY|O_TRUNC) truncates the file to 0 through handle_truncate()
                # -> do_truncate(), as ftruncate(fd, 0) would.
                flags = args[2] if name == "openat" and len(args) >= 3 else args[1] if name == "open" and len(args) >= 2 else ""
                if name == "creat" or "O_TRUNC" in flags.split("|"):
                    w.add(dt, "truncate", pid=pid, file=fid, length=0)
                continue
            if name == "truncate" and len(args) >= 2:
                # truncate(2) names the file by path (strace -y annotates descriptors only):
                # do_sys_truncate() -> vfs_truncate() (fs/open.c, 6.1).
                tpath = args[0].strip()
                if len(tpath) >= 2 and tpath[0] == '"' and tpath[-1] == '"':
                    tpath = tpath[1:-1]
                if _is_data_file(tpath):
                    w.add(dt, "truncate", pid=pid, file=files.id(tpath), length=_int(args[1]))
                continue
            if name == "mkdir" or name == "mkdirat":
                continue
            fdm = _FD.match(args[0]) if args else None
            fd = int(fdm.group(1)) if fdm else None
            path = fdm.group(2) if fdm else None
            if name == "mmap" and len(args) >= 6:
                length = _int(args[1])
                if "MAP_ANONYMOUS" in args[3]:
                    w.add(dt, "anon_mmap", pid=pid, length=length)
                else:
                    fm = _FD.match(args[4])
                    if fm and _is_data_file(fm.group(2)):
                        w.add(dt, "mmap", pid=pid, file=files.id(fm.group(2)), offset=_int(args[5]), length=length)
                continue
            if name == "munmap" and len(args) >= 2:
                w.add(dt, "munmap", pid=pid, length=_int(args[1]))
                continue
            if not _is_data_file(path):
                continue
            fid = files.id(path)
            key = (pid, fd)
            if name in ("read", "readv", "write", "writev"):
                off = pos.get(key, 0)
                w.add(dt, "read" if name.startswith("read") else "write", pid=pid, file=fid, offset=off, length=r)
                pos[key] = off + r
            elif name in ("pread64", "preadv", "preadv2", "pwrite64", "pwritev", "pwritev2"):
                w.add(dt, "read" if name.startswith("pread") else "write", pid=pid, file=fid,
                      offset=_int(args[-1]) if name.endswith("64") else _int(args[3]), length=r)
            elif name == "lseek":
                pos[key] = r
                w.add(dt, "lseek", pid=pid, file=fid, offset=r)
            elif name == "close":
                pos.pop(key, None)
                w.add(dt, "close", pid=pid, file=fid)
            elif name in ("fsync", "fdatasync"):
                w.add(dt, name, pid=pid, file=fid)
            elif name == "fadvise64" and len(args) >= 4:
                w.add(dt, "fadvise", pid=pid, file=fid, offset=_int(args[1]), length=_int(args[2]),
                      flags=_FADV.get(args[3].strip(), 0))
            elif name == "ftruncate" and len(args) >= 2:
                w.add(dt, "truncate", pid=pid, file=fid, length=_int(args[1]))
    if seen == 0:
        raise trace.TraceError(f"{log}: error: no strace lines found (expected 'PID SECONDS.USEC call(...) = RET')\n"
                               "  fix: record with strace -f -ttt -y -o FILE CMD")
    if resident:
        for fe in files.list:
            r = resident.get(os.path.realpath(fe["path"]))
            if r:
                fe["resident"] = r
    w.header["files"] = files.list
    if header is not None and "tracer" in header:
        # memtwin record's own run: the host's readahead windows (the header of an imported
        # log from elsewhere does not say them).
        from .record import add_read_ahead
        add_read_ahead(w.header)
    n = w.close()
    return {"events": n, "files": len(files.list), "lines": seen, "skipped": skipped}


# ---------------------------------------------------------------------------------------------
# libCacheSim traces (https://github.com/1a1a11a/libCacheSim): object caches' request logs.
#
# oracleGeneral (binary, usually zstd-compressed as .oracleGeneral.zst): 24-byte little-endian
# records `struct { uint32_t real_time; uint64_t obj_id; uint32_t obj_size; int64_t
# next_access_vtime; }` (libCacheSim/traceReader/customizedReader/oracleGeneralBin.h); records of
# size 0 are skipped, as libCacheSim's reader skips them. csv: the columns libCacheSim's csv
# reader takes from its trace-type parameters, e.g. "time-col=1, obj-id-col=2, obj-size-col=3,
# delimiter=,, has-header=true" (1-based columns, as `cachesim -t` takes them).
#
# Objects become page-cache data one of two ways (`objects`):
# - "device" (default): one file, /lcs/device, each object a page-aligned range of it, placed in
#   the order objects first appear (a block device or a cache file holding the objects);
# - "files": each object its own file /lcs/obj/<id> (at most 65535 objects: trace file ids are
#   16-bit).
# Each request is a read of the whole object. Readahead is turned off with a POSIX_FADV_RANDOM
# event on each file first (an object cache reads what it is asked for), unless `readahead`.
# `ignore_obj_size` makes every object one page (libCacheSim's --ignore-obj-size), so that byte
# and object hit ratios are the same thing.
# ---------------------------------------------------------------------------------------------

def _lcs_writer(out: str, source: str, src_path: str, objects: str):
    hdr = {"source": f"libCacheSim {source}", "source_file": os.path.basename(src_path), "objects": objects,
           "files": []}
    return trace.Writer(out, hdr)


class _Objects:
    """Object ids to (file id, offset, length) in the trace."""

    def __init__(self, w, objects: str, ignore_size: bool, readahead: bool, src: str):
        if objects not in ("device", "files"):
            raise trace.TraceError(f"{src}: error: unknown object mapping {objects!r}\n  fix: use device or files")
        self.w, self.mode, self.ignore, self.ra, self.src = w, objects, ignore_size, readahead, src
        self.where: dict = {}
        self.files: list = []
        self.end = 0
        if objects == "device":
            self.files.append({"id": 0, "path": "/lcs/device", "size": 0})
            if not readahead:
                w.add(0, "fadvise", file=0, flags=1)

    def read(self, t_ns: int, oid, size: int) -> None:
        size = 4096 if self.ignore else size
        loc = self.where.get(oid)
        if loc is None:
            pages = (size + 4095) // 4096
            if self.mode == "device":
                loc = (0, self.end, pages * 4096)
                self.end += pages * 4096
                self.files[0]["size"] = self.end
            else:
                fid = len(self.files)
                if fid >= trace.NO_FILE:
                    raise trace.TraceError(f"{self.src}: error: more than {trace.NO_FILE - 1} distinct objects, each a file\n"
                                           "  fix: import with --objects device (each object a range of one file)")
                self.files.append({"id": fid, "path": f"/lcs/obj/{oid}", "size": pages * 4096})
                loc = (fid, 0, pages * 4096)
                if not self.ra:
                    self.w.add(t_ns, "fadvise", file=fid, flags=1)
            self.where[oid] = loc
        self.w.add(t_ns, "read", file=loc[0], offset=loc[1], length=min(size, loc[2]) if size else loc[2])


def _open_maybe_zstd(path: str):
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        raise trace.TraceError(f"{path}: error: no such file\n  fix: check the path") from None
    except PermissionError:
        raise trace.TraceError(f"{path}: error: permission denied\n  fix: make it readable") from None
    magic = f.read(4)
    f.seek(0)
    if magic == b"\x28\xb5\x2f\xfd":
        return trace._zstd().ZstdDecompressor().stream_reader(f, closefd=True)
    return f


def import_oracle_general(src: str, out: str, objects: str = "device", ignore_obj_size: bool = False,
                          readahead: bool = False) -> dict:
    """libCacheSim oracleGeneral (raw or zstd) into the trace `out`."""
    rec = struct.Struct("<IQIq")
    f = _open_maybe_zstd(src)
    w = _lcs_writer(out, "oracleGeneral", src, objects)
    try:
        m = _Objects(w, objects, ignore_obj_size, readahead, src)
        t0 = None
        n = skipped = 0
        pos = 0
        tail = b""
        with f:
            while True:
                try:
                    block = f.read(24 * 65536)
                except Exception as e:  # zstd errors
                    raise trace.TraceError(f"{src}: error: cannot decompress ({e})\n  fix: the file is damaged; fetch it again") from None
                if not block:
                    break
                block = tail + block
                k = len(block) - len(block) % 24
                for real_time, oid, size, _nxt in rec.iter_unpack(block[:k]):
                    if size == 0:
                        skipped += 1
                        continue
                    if t0 is None:
                        t0 = real_time
                    m.read(max(real_time - t0, 0) * 1_000_000_000, oid, size)
                    n += 1
                tail = block[k:]
                pos += k
        if tail:
            raise trace.TraceError(f"{src}:{pos}: error: truncated: {len(tail)} bytes after the last whole 24-byte record\n"
                                   "  fix: the file was cut short; fetch it again")
        if n == 0:
            raise trace.TraceError(f"{src}: error: no requests (an empty oracleGeneral trace)\n  fix: give a non-empty trace")
        w.header["files"] = m.files
        w.header["requests"] = n
        total = w.close()
    except BaseException:
        w.abort()
        raise
    return {"events": total, "requests": n, "objects": len(m.where), "files": len(m.files), "skipped_size0": skipped}


def parse_lcs_params(s: str) -> dict:
    """libCacheSim's csv trace-type parameters ("time-col=1, obj-id-col=2, obj-size-col=3,
    delimiter=,, has-header=true") as a dict."""
    out = {}
    i = 0
    parts = []
    cur = ""
    while i < len(s):
        c = s[i]
        if c == "," and not cur.rstrip().endswith("="):
            parts.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    parts.append(cur)
    for p in parts:
        if not p.strip():
            continue
        if "=" not in p:
            raise trace.TraceError(f"csv params: error: {p.strip()!r} is not KEY=VALUE\n"
                                   "  fix: e.g. \"time-col=1, obj-id-col=2, obj-size-col=3, delimiter=,, has-header=true\"")
        k, v = p.split("=", 1)
        k = k.strip()
        v = v if k == "delimiter" else v.strip()
        if k not in ("time-col", "obj-id-col", "obj-size-col", "delimiter", "has-header", "obj-id-is-num"):
            raise trace.TraceError(f"csv params: error: unknown key {k!r}\n"
                                   "  fix: use time-col, obj-id-col, obj-size-col, delimiter, has-header, obj-id-is-num")
        out[k] = v
    if "obj-id-col" not in out:
        raise trace.TraceError("csv params: error: no obj-id-col\n  fix: name the object id's column, e.g. obj-id-col=2")
    return out


def import_lcs_csv(src: str, out: str, params: str, objects: str = "device", ignore_obj_size: bool = False,
                   readahead: bool = False) -> dict:
    """A csv trace as libCacheSim's csv reader takes it (`params`: its trace-type parameters)."""
    import csv

    p = parse_lcs_params(params)
    delim = p.get("delimiter", ",") or ","
    header = p.get("has-header", "false").lower() in ("true", "1", "yes")
    cols = {}
    for k in ("time-col", "obj-id-col", "obj-size-col"):
        if k in p:
            try:
                cols[k] = int(p[k]) - 1
                assert cols[k] >= 0
            except (ValueError, AssertionError):
                raise trace.TraceError(f"csv params: error: {k}={p[k]} is not a column number (1 is the first)\n  fix: e.g. {k}=2") from None
    try:
        f = open(src, newline="")
    except FileNotFoundError:
        raise trace.TraceError(f"{src}: error: no such file\n  fix: check the path") from None
    w = _lcs_writer(out, "csv", src, objects)
    try:
        m = _Objects(w, objects, ignore_obj_size, readahead, src)
        t0 = None
        n = 0
        with f:
            for lineno, row in enumerate(csv.reader(f, delimiter=delim[0]), 1):
                if header and lineno == 1 or not row:
                    continue
                try:
                    oid = row[cols["obj-id-col"]].strip()
                    size = int(float(row[cols["obj-size-col"]])) if "obj-size-col" in cols else 4096
                    t = float(row[cols["time-col"]]) if "time-col" in cols else 0.0
                except (IndexError, ValueError):
                    raise trace.TraceError(f"{src}:{lineno}: error: cannot read the row's columns {row!r}\n"
                                           "  fix: check the column numbers (1 is the first), the delimiter and has-header") from None
                if size <= 0:
                    continue
                if t0 is None:
                    t0 = t
                m.read(int(max(t - t0, 0) * 1e9), oid, size)
                n += 1
        if n == 0:
            raise trace.TraceError(f"{src}: error: no requests found\n  fix: check the delimiter and has-header")
        w.header["files"] = m.files
        w.header["requests"] = n
        total = w.close()
    except BaseException:
        w.abort()
        raise
    return {"events": total, "requests": n, "objects": len(m.where), "files": len(m.files)}


# ---------------------------------------------------------------------------------------------
# ftrace / trace-cmd text of the page-cache tracepoints (include/trace/events/filemap.h):
#   mm_filemap_add_to_page_cache: dev MAJ:MIN ino INO [page=PTR] pfn=0xPFN ofs=BYTES [order=N]
#   mm_filemap_delete_from_page_cache: (same fields)
# (`page=` before 5.16's folio conversion, `order=` since). Each page added is a page the kernel
# read in (a miss, readahead included): replayed as a read of that page, with readahead off
# (POSIX_FADV_RANDOM first on each file, since the trace already holds the readahead's pages).
# Deletions are the kernel's evictions, an outcome rather than an input: counted in the header
# (`evictions`), not replayed. Each inode becomes a file /ftrace/MAJ:MIN/INO sized by the
# furthest page seen.
# ---------------------------------------------------------------------------------------------

_FTRACE = re.compile(
    r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[\d+\]\s+(?:\S+\s+)?(?P<ts>\d+\.\d+):\s+"
    r"mm_filemap_(?P<ev>add_to|delete_from)_page_cache:\s+dev (?P<maj>\d+):(?P<min>\d+) ino (?P<ino>[0-9a-fA-F]+)"
    r"(?: page=\S+)? pfn=(?:0x)?[0-9a-fA-F]+ ofs=(?P<ofs>\d+)(?: order=(?P<order>\d+))?")


def import_ftrace(src: str, out: str, readahead: bool = False) -> dict:
    """ftrace (`/sys/kernel/tracing/trace`) or `trace-cmd report` text into the trace `out`."""
    try:
        f = open(src, errors="replace")
    except FileNotFoundError:
        raise trace.TraceError(f"{src}: error: no such file\n  fix: check the path; record with trace-cmd record -e filemap") from None
    w = trace.Writer(out, {"source": "ftrace", "source_file": os.path.basename(src), "files": []})
    try:
        ids: dict = {}
        files: list = []
        t0 = None
        adds = dels = 0
        with f:
            for line in f:
                m = _FTRACE.match(line)
                if not m:
                    continue
                t = int(round(float(m.group("ts")) * 1e9))
                if t0 is None:
                    t0 = t
                key = (int(m.group("maj")), int(m.group("min")), m.group("ino").lower())
                length = 4096 << int(m.group("order") or 0)
                ofs = int(m.group("ofs"))
                if m.group("ev") == "delete_from":
                    dels += 1
                    continue
                fid = ids.get(key)
                if fid is None:
                    if len(files) >= trace.NO_FILE:
                        raise trace.TraceError(f"{src}: error: more than {trace.NO_FILE - 1} files (inodes)\n"
                                               "  fix: split the trace, or filter it to the inodes of interest")
                    fid = ids[key] = len(files)
                    files.append({"id": fid, "path": f"/ftrace/{key[0]}:{key[1]}/{key[2]}", "size": 0})
                    if not readahead:
                        w.add(max(t - t0, 0), "fadvise", pid=int(m.group("pid")), file=fid, flags=1)
                files[fid]["size"] = max(files[fid]["size"], ofs + length)
                w.add(max(t - t0, 0), "read", pid=int(m.group("pid")), file=fid, offset=ofs, length=length)
                adds += 1
        if adds == 0:
            raise trace.TraceError(f"{src}: error: no mm_filemap_add_to_page_cache events found\n"
                                   "  fix: record them: trace-cmd record -e filemap:mm_filemap_add_to_page_cache "
                                   "-e filemap:mm_filemap_delete_from_page_cache CMD, then trace-cmd report > FILE")
        w.header["files"] = files
        w.header["evictions"] = dels
        total = w.close()
    except BaseException:
        w.abort()
        raise
    return {"events": total, "added": adds, "evictions": dels, "files": len(files)}
