"""Importers: workloads recorded by other tools into memtwin's trace format (memtwin.trace).

Now: strace logs written with `strace -f -ttt -y` (the form memtwin record itself uses).
Each file a syscall names by path (the -y annotation of its descriptor) becomes a trace file;
reads and writes carry the byte offset they touched, tracked per open descriptor as the kernel
keeps f_pos (read/write advance it, lseek sets it, pread/pwrite leave it).
"""

from __future__ import annotations

import os
import re

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


def import_strace(log: str, out: str, header: dict | None = None) -> dict:
    """Convert the strace log `log` into the trace `out`; returns the summary of what it kept."""
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
                w.add(dt, "open", pid=pid, file=files.id(retpath))
                pos[(pid, r)] = 0
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
                w.add(dt, "fadvise", pid=pid, file=fid, offset=_int(args[1]), length=_int(args[2]))
            elif name == "ftruncate" and len(args) >= 2:
                w.add(dt, "truncate", pid=pid, file=fid, length=_int(args[1]))
    if seen == 0:
        raise trace.TraceError(f"{log}: error: no strace lines found (expected 'PID SECONDS.USEC call(...) = RET')\n"
                               "  fix: record with strace -f -ttt -y -o FILE CMD")
    w.header["files"] = files.list
    n = w.close()
    return {"events": n, "files": len(files.list), "lines": seen, "skipped": skipped}
