"""What killed memtwin runs leave behind, and `memtwin lab clean`.

`memtwin real --on host` removes its cgroups, mount, loop device and scratch directory when it
ends, fails, or gets SIGINT/SIGTERM; SIGKILL (or a crash of the machine's OOM killer choice)
leaves them. So does a killed `memtwin real --on qemu` with its run directory under the lab's
work directory. Each run records who made what, so that only memtwin's own leftovers are ever
touched, and only once their owner is gone:

- the run's id is `<pid>-<start>-<hex>`: the PID and start time (field 22 of /proc/PID/stat,
  clock ticks since boot) of the `memtwin` process, so a PID reused by another process is not
  mistaken for the owner; its cgroup and scratch directory are both named `memtwin-<id>`;
- the scratch directory (host) and the run directory (qemu) hold an owner file, OWNER_FILE
  (JSON: pid, start time, boot id, what the run made);
- the loop device is found through its backing file, `/sys/block/loopN/loop/backing_file`, the
  disk image inside a memtwin scratch directory; the mount through /proc/self/mountinfo, a mount
  point inside a memtwin scratch directory.

An owner is alive when a process with its PID runs (not a zombie), with the same start time and
boot id when they were recorded. Scratch directories made before owner files existed are known
by their name alone (`memtwin-<pid>-<hex>`): they count as alive while any process has that PID.
QEMU run directories without an owner file are never touched (their names say nothing).
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

OWNER_FILE = "memtwin-owner.json"
NAME_RE = re.compile(r"^memtwin-(\d+)-(?:(\d+)-)?([0-9a-f]{8})$")
DEFAULT_SCRATCH = "/var/tmp"


# ---------------------------------------------------------------- who owns what


def proc_start(pid: int) -> Optional[int]:
    """Start time (clock ticks after boot) of a live process, or None if there is none (a
    zombie counts as gone: it can clean nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def boot_id() -> Optional[str]:
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return None


def run_id() -> str:
    """A new run id for this process: `<pid>-<start time>-<8 hex digits>`."""
    pid = os.getpid()
    return f"{pid}-{proc_start(pid) or 0}-{os.urandom(4).hex()}"


def write_owner(directory: str, kind: str, **made) -> None:
    """Record in `directory` that this process made it (and `made`: what else it made)."""
    pid = os.getpid()
    rec = {"made_by": "memtwin", "kind": kind, "pid": pid, "start": proc_start(pid), "boot_id": boot_id(),
           "argv": sys.argv[:8], **made}
    tmp = os.path.join(directory, OWNER_FILE + ".tmp")
    with open(tmp, "w") as f:
        json.dump(rec, f)
    os.rename(tmp, os.path.join(directory, OWNER_FILE))


def read_owner(directory: str) -> Optional[dict]:
    try:
        with open(os.path.join(directory, OWNER_FILE)) as f:
            rec = json.load(f)
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) and rec.get("made_by") == "memtwin" and isinstance(rec.get("pid"), int) else None


def owner_alive(pid: int, start: Optional[int] = None, boot: Optional[str] = None) -> bool:
    if boot and boot_id() and boot != boot_id():
        return False
    now = proc_start(pid)
    return now is not None and (not start or now == start)


# ---------------------------------------------------------------- finding leftovers


@dataclass
class Run:
    """Everything found of one run, by its name `memtwin-<id>` (host) or run directory (qemu)."""

    name: str
    kind: str  # "host" or "qemu"
    pid: Optional[int] = None
    start: Optional[int] = None
    boot: Optional[str] = None
    recorded: bool = False  # an owner file was found (else: the name says who)
    scratch: Optional[str] = None
    cgroups: list = field(default_factory=list)  # top cgroup directories (one per hierarchy)
    mounts: list = field(default_factory=list)
    tmpfs: list = field(default_factory=list)  # of `mounts`, the tmpfs ones (a scenario's tmpfs mounts)
    loops: list = field(default_factory=list)  # (device, backing file)
    traces: list = field(default_factory=list)  # tracefs instances (the folio event counts)
    sysctls: dict = field(default_factory=dict)  # /proc/sys path -> the value to put back
    swapfile: Optional[str] = None  # the run's swap file, when it is still swapped on
    zswap: dict = field(default_factory=dict)  # /sys/module/zswap/parameters path -> the value to put back

    @property
    def alive(self) -> bool:
        if self.pid is None:
            return True  # unknown owner: never touched
        return owner_alive(self.pid, self.start, self.boot)

    def owner(self) -> str:
        if self.pid is None:
            return "owner unknown (no owner file)"
        return f"pid {self.pid} " + ("running" if self.alive else "gone")

    def parts(self) -> list:
        out = []
        for c in self.cgroups:
            n = sum(len(dirs) for _, dirs, _ in os.walk(c))
            out.append(f"cgroup {c}" + (f" (and {n} below it)" if n else ""))
        out += [f"mount {m}" + (" (tmpfs)" if m in self.tmpfs else "") for m in self.mounts]
        out += [f"loop device {dev} (backing file {bf})" for dev, bf in self.loops]
        out += [f"trace instance {t}" for t in self.traces]
        if self.swapfile:
            out.append(f"swap file {self.swapfile} (swapped on)")
        if self.scratch:
            what = "scratch directory" if self.kind == "host" else "QEMU run directory"
            out.append(f"{what} {self.scratch} ({_human(_du(self.scratch))} on disk)")
        return out


def _du(path: str) -> int:
    total = 0
    for dp, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(dp, f)).st_blocks * 512
            except OSError:
                pass
    return total


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _unescape(s: str) -> str:
    """A path as /proc/self/mountinfo writes it (octal escapes for space, tab, newline, \\)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)


def _mountinfo() -> list:
    out = []
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                lf, rf = left.split(), right.split()
                out.append((_unescape(lf[4]), rf[0] if rf else "", rf[2] if len(rf) > 2 else ""))
    except OSError:
        pass
    return out


def _memcg_mounts() -> list:
    """Mount points of the hierarchies the host runner makes its cgroups in."""
    return [mnt for mnt, fs, opts in _mountinfo()
            if fs == "cgroup2" or (fs == "cgroup" and "memory" in opts.split(","))]


def _scratch_of(path: str) -> Optional[str]:
    """The memtwin scratch directory `path` lies in (or is), or None."""
    parts = os.path.normpath(path).split("/")
    for i in range(len(parts), 0, -1):
        if NAME_RE.match(parts[i - 1]):
            return "/".join(parts[:i]) or "/"
    return None


def loop_attached(dev: str, backing: str) -> bool:
    """Whether loop device `dev` (/dev/loopN) is still attached to `backing`."""
    return (dev, backing) in _loops()


def _loops() -> list:
    """(device, backing file) of every attached loop device."""
    out = []
    for d in sorted(os.listdir("/sys/block")) if os.path.isdir("/sys/block") else []:
        if not d.startswith("loop"):
            continue
        try:
            with open(f"/sys/block/{d}/loop/backing_file") as f:
                bf = f.read().strip()
        except OSError:
            continue
        if bf.endswith(" (deleted)"):
            bf = bf[: -len(" (deleted)")]
        out.append((f"/dev/{d}", bf))
    return out


def find(scratch_parents: Iterable[str] = (DEFAULT_SCRATCH,), workdirs: Iterable[str] = ()) -> list:
    """Every memtwin run found on this machine that left something (live runs included: see
    Run.alive). Cgroups, loop devices and mounts only as root."""
    runs: dict = {}

    def host(name: str) -> Run:
        if name not in runs:
            m = NAME_RE.match(name)
            runs[name] = Run(name, "host", pid=int(m.group(1)), start=int(m.group(2)) if m.group(2) else None)
        return runs[name]

    def scratch(d: str) -> None:
        try:
            if not os.path.isdir(d) or os.path.islink(d):
                return
        except OSError:
            return
        r = host(os.path.basename(d))
        r.scratch = d
        rec = read_owner(d)
        if rec and rec.get("kind") == "host":
            r.pid, r.start, r.boot, r.recorded = rec["pid"], rec.get("start"), rec.get("boot_id"), True
            if isinstance(rec.get("sysctl"), dict):
                r.sysctls = {k: str(v) for k, v in rec["sysctl"].items() if isinstance(k, str) and k.startswith("/proc/sys/vm/")}
            sw = rec.get("swapfile")
            if isinstance(sw, str) and sw.startswith(d.rstrip("/") + "/") and sw in active_swaps():
                r.swapfile = sw
            if isinstance(rec.get("zswap"), dict):
                r.zswap = {k: str(v) for k, v in rec["zswap"].items() if isinstance(k, str) and k.startswith(ZSWAP_PARAMS_DIR + "/")}

    root = os.geteuid() == 0
    for parent in scratch_parents if root else ():
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for n in sorted(names):
            if NAME_RE.match(n):
                scratch(os.path.join(parent, n))
    if root:
        for mnt, fstype, _ in _mountinfo():
            s = _scratch_of(mnt)
            if s and s != mnt:
                scratch(s)
                host(os.path.basename(s)).mounts.append(mnt)
                if fstype == "tmpfs":
                    host(os.path.basename(s)).tmpfs.append(mnt)
        for dev, bf in _loops():
            s = _scratch_of(bf)
            if s and os.path.basename(bf) == "disk.img" and os.path.dirname(bf) == s:
                scratch(s)
                host(os.path.basename(s)).loops.append((dev, bf))
        # the host runner's trace instances, memtwin-<id>-added and -deleted (real.py),
        # memtwin-<id>-hostcal (its calibration's, memtwin.hostcal) and memtwin-<id>-device (the
        # loop device's requests over the run, hostcal.device_trace_start), memtwin-<id>-reclaim (the
        # scenario's memcg reclaims over the run, hostcal.reclaim_trace_start), seen through any
        # tracefs mount (the run's own, below its scratch directory, or the usual one)
        seen_traces = set()
        for t in trace_instances():
            n = os.path.basename(t)
            run, _, kind = n.rpartition("-")
            if NAME_RE.match(run) and kind in ("added", "deleted", "hostcal", "device", "reclaim") and n not in seen_traces:
                seen_traces.add(n)
                host(run).traces.append(t)
        for mnt in _memcg_mounts():
            try:
                names = os.listdir(mnt)
            except OSError:
                continue
            for n in sorted(names):
                p = os.path.join(mnt, n)
                if NAME_RE.match(n) and os.path.isdir(p) and not os.path.islink(p):
                    host(n).cgroups.append(p)
    for w in workdirs:
        try:
            names = os.listdir(w)
        except OSError:
            continue
        for n in sorted(names):
            d = os.path.join(w, n)
            if not n.startswith("run-") or not os.path.isdir(d) or os.path.islink(d):
                continue
            r = Run(d, "qemu", scratch=d)
            rec = read_owner(d)
            if rec and rec.get("kind") == "qemu":
                r.pid, r.start, r.boot, r.recorded = rec["pid"], rec.get("start"), rec.get("boot_id"), True
            runs[d] = r
    for r in runs.values():
        r.mounts.sort(key=lambda m: -m.count("/"))
    return list(runs.values())


def leftovers(scratch_parents: Iterable[str] = (DEFAULT_SCRATCH,), workdirs: Iterable[str] = ()) -> list:
    """The runs found whose owner is gone: what `memtwin lab clean` removes."""
    return [r for r in find(scratch_parents, workdirs) if not r.alive]


# ---------------------------------------------------------------- reporting


NOT_ROOT = ("not root: cannot see or remove the host runner's cgroups, loop devices and mounts (a host run is root's)\n"
            "  fix: sudo memtwin lab doctor (or sudo memtwin lab clean)")


def report(out: Callable[[str], None], scratch_parents: Iterable[str], workdirs: Iterable[str]) -> int:
    """`memtwin lab doctor`'s part: list the leftovers; return how many runs left some."""
    runs = find(scratch_parents, workdirs)
    gone = [r for r in runs if not r.alive]
    if os.geteuid() != 0:
        out("leftovers: " + NOT_ROOT)
    if not gone:
        out("leftovers of killed runs: none" + ("" if os.geteuid() == 0 else " (of QEMU runs: the only ones visible)"))
    else:
        out(f"leftovers of killed runs: {len(gone)} run(s) whose process is gone (memtwin lab clean removes them):")
        for r in gone:
            out(f"  {r.name} ({r.owner()}):")
            for p in r.parts():
                out(f"    {p}")
    for r in runs:
        if r.alive and r.pid is not None:
            out(f"run in progress: {r.name} ({r.owner()}): left alone")
        elif r.alive:
            out(f"unknown: {r.scratch}: no owner file (made by a memtwin before owner files, or not by memtwin): left alone\n"
                f"  fix: if no `memtwin real --on qemu` is running, remove it by hand (rm -r {r.scratch})")
    return len(gone)


def warn(scratch_parents: Iterable[str], workdirs: Iterable[str], place: str = "memtwin real") -> None:
    """On stderr, one warning naming `memtwin lab clean` when killed runs left something."""
    try:
        gone = leftovers(scratch_parents, workdirs)
    except OSError:
        return
    if not gone:
        return
    kinds = []
    if any(r.cgroups for r in gone):
        kinds.append(f"{sum(len(r.cgroups) for r in gone)} cgroup subtree(s)")
    if any(r.mounts for r in gone):
        kinds.append(f"{sum(len(r.mounts) for r in gone)} mount(s)")
    if any(r.loops for r in gone):
        kinds.append(f"{sum(len(r.loops) for r in gone)} loop device(s)")
    dirs = [r.scratch for r in gone if r.scratch]
    if dirs:
        kinds.append(f"{len(dirs)} scratch directory(ies) ({_human(sum(_du(d) for d in dirs))} on disk)")
    print(f"{place}: warning: {len(gone)} killed memtwin run(s) left {', '.join(kinds)} behind\n"
          f"  fix: memtwin lab clean (memtwin lab doctor lists them)", file=sys.stderr)


# ---------------------------------------------------------------- cleaning


def _run(cmd: list) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True)


def _tasks(cg: str) -> list:
    pids = []
    for dp, _, _ in os.walk(cg):
        try:
            with open(os.path.join(dp, "cgroup.procs")) as f:
                pids += [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            pass
    return pids


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:80] or "?"
    except OSError:
        return "?"


def _users(path: str) -> list:
    """PIDs of processes whose command line names something under `path` (a QEMU that outlived
    its memtwin, say)."""
    key = path.rstrip("/").encode() + b"/"
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != os.getpid():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if key in f.read():
                        pids.append(int(d))
            except OSError:
                pass
    return pids


def unthrottle_loop(dev: str) -> list:
    """Delete the root blkio cgroup's throttle rules of loop device `dev` (the host runner
    throttles its loop device to the scenario's bandwidth; writing 0 deletes a rule). Returns
    what could not be deleted."""
    base = "/sys/fs/cgroup/blkio"
    try:
        with open(f"/sys/block/{os.path.basename(dev)}/dev") as f:
            majmin = f.read().strip()
    except OSError:
        return []
    left = []
    for kind in ("read", "write"):
        path = os.path.join(base, f"blkio.throttle.{kind}_bps_device")
        try:
            with open(path) as f:
                ruled = any(line.split()[:1] == [majmin] for line in f)
            if ruled:
                with open(path, "w") as f:
                    f.write(f"{majmin} 0")
        except FileNotFoundError:
            pass
        except OSError as e:
            left.append(f"blkio throttle rule of {majmin} ({kind}): {e}")
    return left


ZSWAP_PARAMS_DIR = "/sys/module/zswap/parameters"


def active_swaps(swaps: str = "/proc/swaps") -> list:
    """The swap areas in use (/proc/swaps' file names)."""
    try:
        with open(swaps) as f:
            return [ln.split()[0] for ln in f.read().splitlines()[1:] if ln.strip()]
    except OSError:
        return []


def restore_zswap(saved: dict) -> list:
    """Put back zswap's parameters a host run changed (`saved`: parameter path -> value;
    `enabled` last, as it was written last); what could not be written."""
    left = []
    for path in sorted(saved, key=lambda p: p.endswith("/enabled")):
        try:
            with open(path, "w") as f:
                f.write(str(saved[path]))
        except OSError as e:
            left.append(f"{path}: could not write back {saved[path]}: {e.strerror}")
    return left


def restore_sysctls(saved: dict) -> list:
    """Put back the vm sysctls a host run changed (`saved`: /proc/sys path -> value, in the order
    to write them: a ratio after its bytes twin, since writing one zeroes the other); what
    could not be written."""
    left = []
    for path, value in saved.items():
        try:
            with open(path, "w") as f:
                f.write(str(value))
        except OSError as e:
            left.append(f"{path}: could not write back {value}: {e.strerror}")
    return left


def trace_instances() -> list:
    """Every tracefs instance directory, through each tracefs mount (mountinfo)."""
    out = []
    for mnt, fstype, _ in _mountinfo():
        if fstype == "tracefs":
            try:
                out += [os.path.join(mnt, "instances", n) for n in sorted(os.listdir(os.path.join(mnt, "instances")))]
            except OSError:
                pass
    return out


def remove_trace_instance(d: str) -> Optional[str]:
    """Switch off the events of tracefs instance `d` and remove it; None, or what went wrong."""
    try:
        with open(os.path.join(d, "events", "enable"), "w") as f:  # every event of the instance
            f.write("0")
    except OSError:
        pass
    for dp, _, fns in os.walk(os.path.join(d, "events")):
        if "enable" in fns and os.path.basename(os.path.dirname(dp)) == "filemap":
            try:
                with open(os.path.join(dp, "enable"), "w") as f:
                    f.write("0")
            except OSError:
                pass
    try:
        os.rmdir(d)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"trace instance {d}: {e.strerror}"
    return None


def rmdir_cgroup_tree(top: str) -> Optional[str]:
    """rmdir a cgroup subtree, deepest first (a cgroup whose tasks just died may stay busy a
    moment); None, or why not."""
    dirs = sorted((dp for dp, _, _ in os.walk(top)), key=lambda p: -p.count("/"))
    for d in dirs:
        for _ in range(50):
            try:
                os.rmdir(d)
                break
            except FileNotFoundError:
                break
            except OSError as e:
                if e.errno != errno.EBUSY:
                    return f"{d}: {e.strerror}"
                time.sleep(0.1)
        else:
            return f"{d}: still busy"
    return None


def clean(out: Callable[[str], None], err: Callable[[str], None], scratch_parents: Iterable[str] = (DEFAULT_SCRATCH,),
          workdirs: Iterable[str] = ()) -> int:
    """Remove what killed memtwin runs left, only theirs and only once their owner is gone; say
    what was removed and what was left alone. Exit code: 1 when something could not go."""
    runs = find(scratch_parents, workdirs)
    if os.geteuid() != 0:
        err("memtwin lab clean: " + NOT_ROOT.replace("sudo memtwin lab doctor (or sudo memtwin lab clean)", "sudo memtwin lab clean"))
    failed = 0
    removed = 0
    for r in runs:
        if r.alive:
            if r.pid is not None:
                out(f"left alone: {r.name}: its owner, {r.owner()}, is a run in progress")
            else:
                out(f"left alone: {r.scratch}: no owner file, so not known to be memtwin's leftover")
            continue
        problems = []
        for t in r.traces:
            why = remove_trace_instance(t)
            if why:
                problems.append((why, f"see what holds it (fuser -v {t}/trace_pipe), then rmdir {t}"))
            else:
                out(f"removed: trace instance {t}")
        def umount(m):
            res = _run(["umount", m])
            if res.returncode == 0:
                out(f"removed: mount {m}" + (" (tmpfs)" if m in r.tmpfs else ""))
                return
            lazy = _run(["umount", "-l", m])
            if lazy.returncode == 0:
                out(f"removed: mount {m} (detached lazily: still in use: {res.stderr.strip()})")
            else:
                problems.append((f"mount {m}: {lazy.stderr.strip() or res.stderr.strip()}", f"see who uses it (fuser -vm {m})"))

        # a scenario's tmpfs mounts before swapoff: their swapped-out pages go with them, where
        # swapoff would read them back in (and fail with ENOMEM in a memcg smaller than the file)
        for m in r.mounts:
            if m in r.tmpfs:
                umount(m)
        if r.swapfile:
            # before the mount holding it
            res = _run(["swapoff", r.swapfile])
            if res.returncode == 0:
                out(f"removed: swap file {r.swapfile} (swapped off)")
            else:
                problems.append((f"swap file {r.swapfile}: swapoff failed: {res.stderr.strip()}", f"swapoff {r.swapfile} by hand"))
        for why in restore_zswap(r.zswap):
            problems.append((why, "write the value back by hand (/sys/module/zswap/parameters)"))
        if r.zswap and not problems:
            out("restored: " + ", ".join(f"{k.rsplit('/', 1)[1]} = {v}" for k, v in r.zswap.items()))
        for m in r.mounts:
            if m not in r.tmpfs:
                umount(m)
        for why in restore_sysctls(r.sysctls):
            problems.append((why, "write the value back by hand (sysctl -w)"))
        if r.sysctls and not problems:
            out("restored: " + ", ".join(f"{k} = {v}" for k, v in r.sysctls.items()))
        for dev, bf in r.loops:
            for why in unthrottle_loop(dev):
                problems.append((why, "see /sys/fs/cgroup/blkio/blkio.throttle.*_bps_device (writing 'MAJ:MIN 0' deletes a rule)"))
            res = _run(["losetup", "-d", dev])
            if res.returncode == 0:
                out(f"removed: loop device {dev} (backing file {bf})")
            elif not loop_attached(dev, bf):
                # detached meanwhile: autoclear when the mount above went (LO_FLAGS_AUTOCLEAR), or
                # another `memtwin lab clean`; losetup then fails with ENXIO
                out(f"removed: loop device {dev} (backing file {bf}; it had detached itself)")
            else:
                problems.append((f"loop device {dev}: {res.stderr.strip()}", f"see losetup -l {dev}"))
        if r.scratch:
            under = [m for m, _, _ in _mountinfo() if m == r.scratch or m.startswith(r.scratch.rstrip("/") + "/")]
            users = _users(r.scratch)
            if users:
                problems.append((f"{r.scratch}: still used by " + ", ".join(f"{p} ({_comm(p)})" for p in users[:5]) + "; not removed",
                                 "stop them (they outlived the run that made it)"))
            elif under:
                problems.append((f"{r.scratch}: still has a mount below it ({', '.join(under)}); not removed",
                                 "unmount it (umount -l MOUNT)"))
            else:
                size = _du(r.scratch)
                shutil.rmtree(r.scratch, ignore_errors=True)
                if os.path.exists(r.scratch):
                    problems.append((f"{r.scratch}: could not be removed entirely", f"see what stays (ls -la {r.scratch})"))
                else:
                    what = "scratch directory" if r.kind == "host" else "QEMU run directory"
                    out(f"removed: {what} {r.scratch} ({_human(size)} on disk)")
        for cg in r.cgroups:
            tasks = _tasks(cg)
            if tasks:
                problems.append((f"cgroup {cg}: still has tasks: " + ", ".join(f"{p} ({_comm(p)})" for p in tasks[:5]) + "; not removed",
                                 "stop them, or move them out (echo PID > the cgroup.procs of another cgroup)"))
                continue
            why = rmdir_cgroup_tree(cg)
            if why:
                problems.append((f"cgroup {why}", "see whether something still uses it"))
            else:
                out(f"removed: cgroup {cg} (with everything below it)")
        if problems:
            failed += 1
            for what, fix in problems:
                err(f"memtwin lab clean: error: {what}\n  fix: {fix}, then run memtwin lab clean again")
        else:
            removed += 1
    if not any(not r.alive for r in runs):
        out("nothing to clean: no leftovers of killed memtwin runs")
    elif not failed:
        out(f"cleaned {removed} killed run(s)")
    return 1 if failed else 0
