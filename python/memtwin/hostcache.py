"""Page cache of real files on this host: `memtwin cached` and `memtwin evict`.

No kernel cleans the page cache of a whole directory tree (seed 004's POSIX_FADV_DONTNEED on a
directory was never merged), so these do it from user space, file by file:

- `cached PATH...` reports resident pages per file and totals per tree, using cachestat(2)
  (Linux 6.5+) where the kernel has it and mincore(2) on a read-only mapping otherwise;
- `evict PATH...` drops every regular file's clean page cache with
  posix_fadvise(POSIX_FADV_DONTNEED), optionally writing dirty pages first (`--sync`).

Both follow a symbolic link named as a PATH (as du and `find -H` do, and say so) but no symlink
found below it, stay on one file system unless told otherwise, skip what they cannot open below
a PATH (and count it), stream through huge trees in bounded memory (only the `--top` largest files
are kept), and show a progress bar on a terminal. The command fails (exit 1) when a PATH itself
cannot be read, after doing the others, or when nothing at all could be done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import heapq
import mmap
import os
import stat
import sys
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

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


def _mincore_windows(fd: int, size: int):
    """mincore(2) of the file behind `fd` on a read-only shared mapping, 1 GiB at a time:
    yields (first page of the window, one byte per page whose bit 0 is set when resident)."""
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
            yield off // PAGE, bytes(vec)
        finally:
            _libc.munmap(addr, length)
        off += length


def _mincore(fd: int, size: int) -> int:
    """Resident pages of the file behind `fd` by mincore(2)."""
    return sum(sum(b & 1 for b in vec) for _, vec in _mincore_windows(fd, size))


def resident_ranges(path: str) -> list:
    """The resident pages of regular file `path` as ranges [first page, pages], by mincore(2)
    on a read-only shared mapping, 1 GiB at a time; [] for an empty file. OSError if it cannot
    be opened or mapped."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        out: list = []
        for base, vec in _mincore_windows(fd, os.fstat(fd).st_size):
            for i, b in enumerate(vec):
                if b & 1:
                    if out and out[-1][0] + out[-1][1] == base + i:
                        out[-1][1] += 1
                    else:
                        out.append([base + i, 1])
        return out
    finally:
        os.close(fd)


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
    error: Optional[str] = None  # the PATH itself could not be read: why
    fix: Optional[str] = None  # ... and what to do
    target: Optional[str] = None  # the PATH is a symbolic link to this (followed)
    kind: Optional[str] = None  # the PATH is a special file of this kind (nothing done)

    def note_error(self, where: str, e: OSError) -> None:
        self.skipped += 1
        if len(self.errors) < 20:
            self.errors.append(f"{where}: {e.strerror or e}")


_KINDS = [(stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device")]


def _root_error(root: str, e: OSError, totals: TreeTotals) -> None:
    """Record why the PATH named on the command line cannot be read, and the fix."""
    totals.note_error(root, e)
    if e.errno == errno.ENOENT:
        totals.error, totals.fix = "no such file or directory", "check the path (a typo, or a tree removed meanwhile?)"
    elif e.errno in (errno.EACCES, errno.EPERM):
        totals.error, totals.fix = "permission denied", "run as a user who may read it (e.g. with sudo)"
    elif e.errno == errno.ELOOP:
        totals.error, totals.fix = "a loop of symbolic links", "name the file or directory itself"
    elif e.errno == errno.ENOTDIR:
        totals.error, totals.fix = "a component of the path is not a directory", "check the path"
    else:
        totals.error, totals.fix = (e.strerror or str(e)).lower(), "check the path"


def _root(root: str, totals: TreeTotals) -> Optional[tuple[str, os.stat_result]]:
    """(path to open, stat) of a PATH named on the command line, following it if it is a
    symbolic link (as du and `find -H` do); None, with the reason in `totals`, if it cannot be
    read."""
    try:
        st = os.lstat(root)
    except OSError as e:
        _root_error(root, e, totals)
        return None
    if not stat.S_ISLNK(st.st_mode):
        return root, st
    target = os.path.realpath(root)
    try:
        st = os.stat(root)
    except OSError as e:
        if e.errno == errno.ENOENT:
            totals.note_error(root, e)
            totals.error = f"a symbolic link to {os.readlink(root)}, which does not exist"
            totals.fix = "name an existing file or directory (or mend the link)"
        else:
            _root_error(root, e, totals)
        return None
    totals.target = target
    return target, st


def walk(root: str, totals: TreeTotals, cross_mounts: bool) -> Iterator[tuple[str, os.stat_result]]:
    """Regular files below `root` (or `root` itself), following `root` if it is a symlink but
    no symlink below it; other file systems are skipped unless `cross_mounts`. Errors are
    counted in `totals`; an unreadable `root` is also recorded in `totals.error`."""
    found = _root(root, totals)
    if found is None:
        return
    real, st = found
    if stat.S_ISREG(st.st_mode):
        yield real, st
        return
    if not stat.S_ISDIR(st.st_mode):
        totals.special += 1
        totals.kind = next((k for test, k in _KINDS if test(st.st_mode)), "a special file")
        return
    root = real if totals.target else root
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


def count_files(root: str, cross_mounts: bool = False) -> int:
    """How many regular files `walk` would yield (a cheaper pass: for the progress bar's total)."""
    t = TreeTotals(root)
    found = _root(root, t)
    if found is None:
        return 0
    real, st = found
    if not stat.S_ISDIR(st.st_mode):
        return 1 if stat.S_ISREG(st.st_mode) else 0
    n, dev, stack = 0, st.st_dev, [real]
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for ent in it:
                try:
                    if ent.is_dir(follow_symlinks=False):
                        if cross_mounts or ent.stat(follow_symlinks=False).st_dev == dev:
                            stack.append(ent.path)
                    elif ent.is_file(follow_symlinks=False):
                        n += 1
                except OSError:
                    continue
    return n


PROGRESS_EVERY = 64  # files between two progress calls


def _keep_top(totals: TreeTotals, top: int, pages: int, path: str) -> None:
    if top <= 0 or pages <= 0:
        return
    if len(totals.top) < top:
        heapq.heappush(totals.top, (pages, path))
    elif pages > totals.top[0][0]:
        heapq.heapreplace(totals.top, (pages, path))


def cached(root: str, top: int = 20, cross_mounts: bool = False, progress: Optional[Callable[[int], None]] = None) -> TreeTotals:
    """Resident page-cache pages of every regular file below `root`; `progress(n)` is called
    with the number of files walked so far, now and then and at the end."""
    t = TreeTotals(root)
    n = 0
    for path, st in walk(root, t, cross_mounts):
        n += 1
        if progress is not None and n % PROGRESS_EVERY == 0:
            progress(n)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            t.note_error(path, e)
            continue
        try:
            pages, m = resident_pages(fd, st.st_size)
            t.methods.add(m)
        except OSError as e:
            t.note_error(path, e)
            continue
        finally:
            os.close(fd)
        t.files += 1
        t.pages_before += pages
        t.pages_after += pages
        _keep_top(t, top, pages, path)
    if progress is not None:
        progress(n)
    return t


def evict(root: str, sync: bool = False, top: int = 0, cross_mounts: bool = False,
          progress: Optional[Callable[[int], None]] = None) -> TreeTotals:
    """posix_fadvise(POSIX_FADV_DONTNEED) every regular file below `root`; with `sync`,
    fdatasync() each first so its dirty pages can go too. `progress` as for cached()."""
    t = TreeTotals(root)
    n = 0
    for path, st in walk(root, t, cross_mounts):
        n += 1
        if progress is not None and n % PROGRESS_EVERY == 0:
            progress(n)
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
    if progress is not None:
        progress(n)
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
        "error": t.error,
        "target": t.target,
    }


def human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


# ---------------------------------------------------------------------------------------------
# Command line: `memtwin cached` and `memtwin evict`


PATHS_HELP = ("A PATH that is a symbolic link is followed, and said so (as du and find -H do); symlinks found below a "
              "PATH are not. A PATH that cannot be read is reported with the fix, the others are still done, and the "
              "command then exits 1. On a terminal, a progress bar on stderr follows big trees.")


def add_parsers(sub) -> None:
    """Add the `cached` and `evict` subcommands to the CLI's subparsers."""
    c = sub.add_parser(
        "cached",
        help="resident page cache of files and trees on this host",
        description="Report the resident page cache of every regular file below each PATH, with totals per tree, "
        "using cachestat(2) where the kernel allows it and mincore(2) otherwise (like fincore and vmtouch). " + PATHS_HELP,
    )
    c.add_argument("paths", nargs="+", metavar="PATH")
    c.add_argument("--top", type=int, default=20, metavar="N", help="list the N files with most resident pages (default 20; 0: none)")
    c.add_argument("--cross-mounts", action="store_true", help="descend into other file systems")
    c.add_argument("--json", action="store_true", help="print JSON")
    e = sub.add_parser(
        "evict",
        help="drop the page cache of whole trees on this host (fadvise DONTNEED per file)",
        description="Drop every regular file's clean page cache below each PATH with posix_fadvise(POSIX_FADV_DONTNEED): "
        "what seed 004's directory fadvise would do, from user space. Files below a PATH that cannot be opened are "
        "skipped and counted. " + PATHS_HELP,
    )
    e.add_argument("paths", nargs="+", metavar="PATH")
    e.add_argument("--sync", action="store_true", help="write dirty pages back first (fdatasync) so they can be dropped too")
    e.add_argument("--top", type=int, default=0, metavar="N", help="list the N files that dropped most")
    e.add_argument("--cross-mounts", action="store_true", help="descend into other file systems")
    e.add_argument("--json", action="store_true", help="print JSON")


def _report(trees: list, as_json: bool, verb: str, synced: bool = False) -> int:
    import json

    def error(t: TreeTotals) -> None:
        sys.stdout.flush()
        print(f"{t.path}: error: {t.error}\n  fix: {t.fix}", file=sys.stderr)

    if as_json:
        for t in trees:
            if t.error:
                error(t)
        print(json.dumps({"trees": [to_json(t) for t in trees]}, indent=1))
    else:
        for t in trees:
            if t.error:
                error(t)
                continue
            if t.kind:
                print(f"{t.path}: {t.kind}, not a regular file or directory: no page cache to report")
                continue
            methods = "+".join(sorted(t.methods)) or "-"
            name = f"{t.path} -> {t.target}" if t.target else t.path
            if verb == "cached":
                print(f"{name}: {t.files} files, {t.pages_before} pages resident ({human(t.pages_before * PAGE)}) [{methods}]")
            else:
                dropped = t.pages_before - t.pages_after
                print(
                    f"{name}: {t.files} files, {t.pages_before} -> {t.pages_after} pages resident, "
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
    bad = [t for t in trees if t.error]
    if bad:
        done = "read" if verb == "cached" else "evicted"
        if len(bad) == len(trees):
            what = f"{trees[0].path} could not" if len(trees) == 1 else f"none of the {len(trees)} paths could"
            print(f"memtwin {verb}: error: {what} be {done}", file=sys.stderr)
        else:
            print(f"memtwin {verb}: error: {len(bad)} of {len(trees)} paths could not be {done} (named above); "
                  f"the other {len(trees) - len(bad)} were done", file=sys.stderr)
        return 1
    # Below the PATHs, fail only when nothing at all could be done.
    return 0 if any(t.files for t in trees) or not any(t.skipped for t in trees) else 1


def _progress_wanted() -> bool:
    """A progress bar only on a terminal (or when MEMTWIN_PROGRESS=1 asks for one)."""
    return os.environ.get("MEMTWIN_PROGRESS") == "1" or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


def _with_progress(label: str, path: str, cross_mounts: bool, work: Callable) -> TreeTotals:
    """`work(progress)` under a progress bar on stderr (on a terminal; the total is counted
    first, a walk without opening any file)."""
    if not _progress_wanted():
        return work(None)
    from memtwin.progress import Progress  # here: the host runner's lean task processes import this module

    total = count_files(path, cross_mounts)
    bar = Progress(label)
    try:
        return work(lambda n: bar(n, max(total, n)))
    finally:
        bar.close()


def run_cli(a) -> int:
    """Run `memtwin cached` or `memtwin evict` for parsed arguments `a`."""
    if a.top < 0:
        print(f"--top: error: {a.top} is negative\n  fix: give a number of files, e.g. --top 20", file=sys.stderr)
        return 2
    trees = []
    for p in a.paths:
        if a.cmd == "cached":
            work = lambda progress, p=p: cached(p, a.top, a.cross_mounts, progress)  # noqa: E731
        else:
            work = lambda progress, p=p: evict(p, a.sync, a.top, a.cross_mounts, progress)  # noqa: E731
        trees.append(_with_progress(f"{a.cmd} {p}", p, a.cross_mounts, work))
    return _report(trees, a.json, a.cmd, getattr(a, "sync", False))
