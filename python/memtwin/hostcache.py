"""Page cache of real files on this host: `memtwin cached` and `memtwin evict`.

No kernel cleans the page cache of a whole directory tree (seed 004's POSIX_FADV_DONTNEED on a
directory was never merged), so these do it from user space, file by file:

- `cached PATH...` reports resident pages per file and totals per tree, using cachestat(2)
  (Linux 6.5+) where the kernel has it and mincore(2) on a read-only mapping otherwise;
- `evict PATH...` drops every regular file's clean page cache with
  posix_fadvise(POSIX_FADV_DONTNEED), optionally writing dirty pages first (`--sync`).

Both walk trees without following symlinks, stay on one file system unless told otherwise,
skip what they cannot open (and count it), stream through huge trees in bounded memory (only
the `--top` largest files are kept), and fail only when nothing could be done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import heapq
import mmap
import os
import stat
from dataclasses import dataclass, field
from typing import Iterator, Optional

PAGE = os.sysconf("SC_PAGE_SIZE")
_SYS_CACHESTAT = 451  # x86_64 and the generic syscall table (include/uapi/asm-generic/unistd.h)
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]


class _CachestatRange(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _Cachestat(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("nr_cache", "nr_dirty", "nr_writeback", "nr_evicted", "nr_recently_evicted")]


_cachestat_works: Optional[bool] = None


def _cachestat(fd: int) -> Optional[int]:
    """Resident pages of the file behind `fd` by cachestat(2); None if the kernel lacks it
    (ENOSYS: never tried again) or refuses it for this file (EPERM: newer kernels allow it
    only to the owner, writers and CAP_SYS_ADMIN)."""
    global _cachestat_works
    if _cachestat_works is False:
        return None
    rng, cs = _CachestatRange(0, 0), _Cachestat()
    r = _libc.syscall(_SYS_CACHESTAT, fd, ctypes.byref(rng), ctypes.byref(cs), 0)
    if r != 0:
        e = ctypes.get_errno()
        if e == errno.ENOSYS:
            _cachestat_works = False
            return None
        if e == errno.EPERM:
            return None
        raise OSError(e, os.strerror(e))
    _cachestat_works = True
    return int(cs.nr_cache)


def _mincore(fd: int, size: int) -> int:
    """Resident pages of the file behind `fd` by mincore(2) on a read-only shared mapping,
    1 GiB at a time."""
    resident = 0
    window = 1 << 30
    off = 0
    while off < size:
        length = min(window, size - off)
        addr = _libc.mmap(None, length, mmap.PROT_READ, mmap.MAP_SHARED, fd, off)
        if addr in (None, ctypes.c_void_p(-1).value):
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        try:
            pages = (length + PAGE - 1) // PAGE
            vec = (ctypes.c_ubyte * pages)()
            if _libc.mincore(addr, length, vec) != 0:
                e = ctypes.get_errno()
                raise OSError(e, os.strerror(e))
            resident += sum(b & 1 for b in vec)
        finally:
            _libc.munmap(addr, length)
        off += length
    return resident


def resident_pages(fd: int, size: int) -> tuple[int, str]:
    """(resident pages, method) of an open regular file."""
    n = _cachestat(fd)
    if n is not None:
        return n, "cachestat"
    return (_mincore(fd, size) if size > 0 else 0), "mincore"


@dataclass
class TreeTotals:
    """What one walk found and did."""

    path: str
    files: int = 0
    skipped: int = 0
    special: int = 0
    pages_before: int = 0
    pages_after: int = 0
    errors: list = field(default_factory=list)
    methods: set = field(default_factory=set)
    top: list = field(default_factory=list)  # heap of (pages, path)

    def note_error(self, where: str, e: OSError) -> None:
        self.skipped += 1
        if len(self.errors) < 20:
            self.errors.append(f"{where}: {e.strerror or e}")


def walk(root: str, totals: TreeTotals, cross_mounts: bool) -> Iterator[tuple[str, os.stat_result]]:
    """Regular files below `root` (or `root` itself), without following symlinks; other
    file systems are skipped unless `cross_mounts`. Errors are counted in `totals`."""
    try:
        st = os.lstat(root)
    except OSError as e:
        totals.note_error(root, e)
        return
    if stat.S_ISREG(st.st_mode):
        yield root, st
        return
    if not stat.S_ISDIR(st.st_mode):
        totals.special += 1
        return
    dev = st.st_dev
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            it = os.scandir(d)
        except OSError as e:
            totals.note_error(d, e)
            continue
        with it:
            for ent in it:
                try:
                    st = ent.stat(follow_symlinks=False)
                except OSError as e:
                    totals.note_error(ent.path, e)
                    continue
                if stat.S_ISDIR(st.st_mode):
                    if cross_mounts or st.st_dev == dev:
                        stack.append(ent.path)
                elif stat.S_ISREG(st.st_mode):
                    yield ent.path, st
                elif not stat.S_ISLNK(st.st_mode):
                    totals.special += 1


def _keep_top(totals: TreeTotals, top: int, pages: int, path: str) -> None:
    if top <= 0 or pages <= 0:
        return
    if len(totals.top) < top:
        heapq.heappush(totals.top, (pages, path))
    elif pages > totals.top[0][0]:
        heapq.heapreplace(totals.top, (pages, path))


def cached(root: str, top: int = 20, cross_mounts: bool = False) -> TreeTotals:
    """Resident page-cache pages of every regular file below `root`."""
    t = TreeTotals(root)
    for path, st in walk(root, t, cross_mounts):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            t.note_error(path, e)
            continue
        try:
            n, m = resident_pages(fd, st.st_size)
            t.methods.add(m)
        except OSError as e:
            t.note_error(path, e)
            continue
        finally:
            os.close(fd)
        t.files += 1
        t.pages_before += n
        t.pages_after += n
        _keep_top(t, top, n, path)
    return t


def evict(root: str, sync: bool = False, top: int = 0, cross_mounts: bool = False) -> TreeTotals:
    """posix_fadvise(POSIX_FADV_DONTNEED) every regular file below `root`; with `sync`,
    fdatasync() each first so its dirty pages can go too."""
    t = TreeTotals(root)
    for path, st in walk(root, t, cross_mounts):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            t.note_error(path, e)
            continue
        try:
            before, m = resident_pages(fd, st.st_size)
            t.methods.add(m)
            if sync:
                os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            after, _ = resident_pages(fd, st.st_size)
        except OSError as e:
            t.note_error(path, e)
            continue
        finally:
            os.close(fd)
        t.files += 1
        t.pages_before += before
        t.pages_after += after
        _keep_top(t, top, before - after, path)
    return t


def to_json(t: TreeTotals) -> dict:
    return {
        "path": t.path,
        "files": t.files,
        "skipped": t.skipped,
        "special_files": t.special,
        "pages_before": t.pages_before,
        "pages_after": t.pages_after,
        "bytes_before": t.pages_before * PAGE,
        "bytes_after": t.pages_after * PAGE,
        "bytes_dropped": (t.pages_before - t.pages_after) * PAGE,
        "method": "+".join(sorted(t.methods)) or None,
        "top": [{"path": p, "pages": n} for n, p in sorted(t.top, reverse=True)],
        "errors": t.errors,
    }


def human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


# ---------------------------------------------------------------------------------------------
# Command line: `memtwin cached` and `memtwin evict`


def add_parsers(sub) -> None:
    """Add the `cached` and `evict` subcommands to the CLI's subparsers."""
    c = sub.add_parser(
        "cached",
        help="resident page cache of files and trees on this host",
        description="Report the resident page cache of every regular file below each PATH, with totals per tree, "
        "using cachestat(2) where the kernel allows it and mincore(2) otherwise (like fincore and vmtouch).",
    )
    c.add_argument("paths", nargs="+", metavar="PATH")
    c.add_argument("--top", type=int, default=20, metavar="N", help="list the N files with most resident pages (default 20; 0: none)")
    c.add_argument("--cross-mounts", action="store_true", help="descend into other file systems")
    c.add_argument("--json", action="store_true", help="print JSON")
    e = sub.add_parser(
        "evict",
        help="drop the page cache of whole trees on this host (fadvise DONTNEED per file)",
        description="Drop every regular file's clean page cache below each PATH with posix_fadvise(POSIX_FADV_DONTNEED): "
        "what seed 004's directory fadvise would do, from user space. Symlinks are not followed; files that cannot be "
        "opened are skipped and counted.",
    )
    e.add_argument("paths", nargs="+", metavar="PATH")
    e.add_argument("--sync", action="store_true", help="write dirty pages back first (fdatasync) so they can be dropped too")
    e.add_argument("--top", type=int, default=0, metavar="N", help="list the N files that dropped most")
    e.add_argument("--cross-mounts", action="store_true", help="descend into other file systems")
    e.add_argument("--json", action="store_true", help="print JSON")


def _report(trees: list, as_json: bool, verb: str, synced: bool = False) -> int:
    import json
    import sys

    if as_json:
        print(json.dumps({"trees": [to_json(t) for t in trees]}, indent=1))
    else:
        for t in trees:
            methods = "+".join(sorted(t.methods)) or "-"
            if verb == "cached":
                print(f"{t.path}: {t.files} files, {t.pages_before} pages resident ({human(t.pages_before * PAGE)}) [{methods}]")
            else:
                dropped = t.pages_before - t.pages_after
                print(
                    f"{t.path}: {t.files} files, {t.pages_before} -> {t.pages_after} pages resident, "
                    f"{human(dropped * PAGE)} dropped [{methods}]"
                )
            if verb == "evict" and t.pages_after and not synced:
                print(f"  {t.pages_after} pages stayed (dirty, under writeback or mapped): --sync writes dirty pages first")
            if t.skipped or t.special:
                print(f"  skipped {t.skipped} that could not be read, {t.special} special files")
            for err in t.errors[:5]:
                print(f"  {err}", file=sys.stderr)
            for n, p in sorted(t.top, reverse=True):
                print(f"  {n:>10}  {p}")
    # Fail only when nothing at all could be done.
    return 0 if any(t.files for t in trees) or not any(t.skipped for t in trees) else 1


def run_cli(a) -> int:
    """Run `memtwin cached` or `memtwin evict` for parsed arguments `a`."""
    if a.top < 0:
        import sys

        print(f"--top: error: {a.top} is negative\n  fix: give a number of files, e.g. --top 20", file=sys.stderr)
        return 2
    if a.cmd == "cached":
        trees = [cached(p, a.top, a.cross_mounts) for p in a.paths]
    else:
        trees = [evict(p, a.sync, a.top, a.cross_mounts) for p in a.paths]
    return _report(trees, a.json, a.cmd, getattr(a, "sync", False))
