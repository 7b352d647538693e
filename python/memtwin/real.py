"""`memtwin real`: carry out a scenario's operations on a real kernel and record the engine's
metrics, in the engine's JSON layout.

The op list is the engine's own (`Doc.plan`: `repeat`, `cp` and `grep` already expanded per
file), so the real side does exactly what the simulation does. Two places to run it:

- `host` (this module): this machine's kernel. Everything lives in a cgroup subtree
  `memtwin-<id>` of the host's memory controller (cgroup v2, or the v1 hierarchy) and a scratch
  directory `memtwin-<id>` (default under /var/tmp). The scenario's disk is an image of its root
  file system (`[machine] fs`: ext4 or xfs, see mkfs_command) in the scratch directory on a loop
  device with direct I/O (so the image's own page cache is
  never involved) whose read_ahead_kb is the scenario's; its reads are this kernel's block I/O.
  The loop device is made anew for the run (fresh_loop_device), so that its bdi's writeback
  bandwidth estimates start where a new device's do, as the engine's, not where earlier runs
  left them.
  The runner removes every cgroup, mount, loop device and file it made when a step fails or the
  run is interrupted (SIGINT, SIGTERM, SIGHUP).
- `qemu` (memtwin.qemu): a guest kernel booted under QEMU.

Each scenario task is a child process that moves itself into its cgroup and carries out its ops;
at every step boundary it records /proc/self/io, rusage, the memcg's control files,
/proc/meminfo and the resident pages of every scenario file (cachestat, else mincore), and then
the folios charged to its memcg by order (memcg_folios: /proc/kpagecgroup, /proc/kpageflags), the
last only once every other task of the run is over (folio_scan_blocked(): the scan takes ~1 s of a CPU).
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import json
import os
import platform
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from typing import Optional

from memtwin import hostcache, leftovers

GiB = 1 << 30


class RealError(Exception):
    """A run cannot start or cannot go on; the message says why and what to do."""


class Interrupted(RealError):
    pass


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


# the signals that end a run through its cleanup: run_host() turns SIGINT and SIGTERM into
# Interrupted, cli.main() SIGHUP into Terminated
HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def signals_held():
    """Hold SIGINT, SIGTERM and SIGHUP pending (pthread_sigmask(SIG_BLOCK)) over the making of a process
    and its registration for cleanup (its pid in HostRun.children): run_host()'s handler, which
    raises Interrupted, then runs when the block ends, after the registration, never between
    the fork and it (review52 L5: a child the cleanup does not know keeps its memcg busy, and
    the run's cgroup stays). Yields the mask to put back, which a forked child restores itself
    (a child inherits the blocked mask, across exec too: task_main() unholds them). A signal
    is held for the calling thread only (the kernel gives a process's signal to a thread that
    does not block it): for use where the runner has no other thread (setup, the tasks' start)."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        yield old
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def unhold_signals() -> None:
    """In a child started under signals_held() (the mask inherited across exec): SIGINT, SIGTERM
    and SIGHUP back to their default action and no longer blocked (one held meanwhile acts now)."""
    for s in HELD_SIGNALS:
        signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_SIGNALS)


# <linux/loop.h> /dev/loop-control ioctls.
LOOP_CTL_ADD, LOOP_CTL_REMOVE, LOOP_CTL_GET_FREE = 0x4C80, 0x4C81, 0x4C82


def fresh_loop_device() -> tuple:
    """(path, made anew) of a free loop device for the run. The free device
    `LOOP_CTL_GET_FREE` names is removed and added again (`LOOP_CTL_REMOVE`, `LOOP_CTL_ADD`),
    which gives it a new gendisk and bdi: its root wb starts from `wb_init()` (write bandwidth
    and `dirty_ratelimit` at INIT_BW, no write completions), as the engine's new device does.
    A loop device kept from earlier runs carries their estimates into balance_dirty_pages()
    (a run on 6.18 started at dirty_ratelimit 50684 KB/s where a new device starts at 102400).
    Where the kernel refuses (EBUSY: something opened the device meanwhile), the device is used
    as it is (made anew: False); without a usable /dev/loop-control, or when a step fails or the
    new node does not appear, (None, False): losetup --find picks the device (the caller also
    falls back to it when losetup cannot take the device named here)."""
    try:
        fd = os.open("/dev/loop-control", os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None, False
    try:
        n = fcntl.ioctl(fd, LOOP_CTL_GET_FREE)
        try:
            fcntl.ioctl(fd, LOOP_CTL_REMOVE, n)
        except OSError:
            return f"/dev/loop{n}", False
        n = fcntl.ioctl(fd, LOOP_CTL_ADD, n)
    except OSError:
        return None, False
    finally:
        os.close(fd)
    dev = f"/dev/loop{n}"
    for _ in range(100):  # devtmpfs makes the node as the disk is added; wait for it anyway
        if os.path.exists(dev):
            return dev, True
        time.sleep(0.01)
    return None, False


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _mounts() -> list:
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            lf, rf = left.split(), right.split()
            out.append({"mnt": lf[4], "fstype": rf[0], "opts": rf[2] if len(rf) > 2 else ""})
    return out


def find_memory_controller() -> tuple:
    """(version, mount point) of a writable memory controller, or raise RealError."""
    why = []
    for m in _mounts():
        if m["fstype"] == "cgroup2":
            ctl = os.path.join(m["mnt"], "cgroup.controllers")
            try:
                if "memory" in _read(ctl).split():
                    if os.access(os.path.join(m["mnt"], "cgroup.subtree_control"), os.W_OK):
                        return "v2", m["mnt"]
                    why.append(f"{m['mnt']}: cgroup v2 with memory, but not writable")
                else:
                    why.append(f"{m['mnt']}: cgroup v2 without the memory controller")
            except OSError as e:
                why.append(f"{m['mnt']}: {e.strerror}")
    for m in _mounts():
        if m["fstype"] == "cgroup" and "memory" in m["opts"].split(","):
            if os.access(m["mnt"], os.W_OK) and "ro" not in m["opts"].split(","):
                return "v1", m["mnt"]
            why.append(f"{m['mnt']}: cgroup v1 memory controller, read-only")
    raise RealError("no writable memory controller on this host (" + ("; ".join(why) or "no cgroup mounts") + ")\n"
                    "  fix: mount one (cgroup v2: `mount -t cgroup2 none /sys/fs/cgroup` and `echo +memory > "
                    "/sys/fs/cgroup/cgroup.subtree_control`; v1: `mount -t cgroup -o memory none /sys/fs/cgroup/memory`), or use --on qemu")


def host_ready() -> tuple:
    """(ok, reason) for `memtwin lab doctor` and test skips."""
    if os.geteuid() != 0:
        return False, "not root (the host runner creates cgroups, a loop device and mounts)"
    try:
        v, mnt = find_memory_controller()
    except RealError as e:
        return False, str(e).splitlines()[0]
    for tool in ("losetup", "mkfs.ext4", "mount", "umount"):
        if shutil.which(tool) is None:
            return False, f"`{tool}` not found (apt-get install util-linux e2fsprogs mount)"
    return True, f"memory controller cgroup {v} at {mnt}"


# ---------------------------------------------------------------- metrics read on the kernel


def _kv(text: str) -> dict:
    d = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 2:
            try:
                d[f[0]] = int(f[1])
            except ValueError:
                pass
    return d


def _meminfo() -> dict:
    d = {}
    for line in _read("/proc/meminfo").splitlines():
        k, _, v = line.partition(":")
        d[k] = int(v.split()[0])
    return d


def _self_io() -> dict:
    d = {}
    for line in _read("/proc/self/io").splitlines():
        k, _, v = line.partition(":")
        d[k.strip()] = int(v)
    return d


# memory.stat names of the engine's memcg events, per hierarchy (hierarchical counters).
V1_EVENTS = {"memcg.pgpgin": "total_pgpgin", "memcg.pgpgout": "total_pgpgout",
             "memcg.pgfault": "total_pgfault", "memcg.pgmajfault": "total_pgmajfault"}
V2_EVENTS = {
    "memcg.pgscan": "pgscan", "memcg.pgsteal": "pgsteal", "memcg.pgactivate": "pgactivate",
    "memcg.pgdeactivate": "pgdeactivate", "memcg.pgrefill": "pgrefill",
    "memcg.workingset_refault_file": "workingset_refault_file",
    "memcg.workingset_activate_file": "workingset_activate_file",
    "memcg.workingset_restore_file": "workingset_restore_file",
    "memcg.pgfault": "pgfault", "memcg.pgmajfault": "pgmajfault",
    "memcg.workingset_refault_anon": "workingset_refault_anon",
    "memcg.workingset_activate_anon": "workingset_activate_anon",
    "memcg.workingset_restore_anon": "workingset_restore_anon",
}
VMSTAT = ["pgpgin", "pgpgout", "pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct", "pgactivate",
          "pgdeactivate", "pgrefill", "workingset_refault_file", "workingset_activate_file",
          "workingset_restore_file", "allocstall_normal", "allocstall_movable", "pageoutrun", "pgfree", "oom_kill", "workingset_nodereclaim",
          "numa_hit", "numa_miss", "numa_foreign", "thp_fault_alloc", "thp_fault_fallback", "compact_stall", "compact_fail",
          "compact_success", "pgmigrate_success", "pswpin", "pswpout", "pgfault", "pgmajfault",
          "swap_ra", "swap_ra_hit", "workingset_refault_anon", "workingset_activate_anon", "workingset_restore_anon",
          "pgrotated", "thp_file_alloc", "thp_file_fallback", "thp_file_fallback_charge", "thp_split_page",
          "thp_swpout", "thp_swpout_fallback", "thp_split_pmd", "ksm_swpin_copy"]


def oom_killed_why(cg: "Cg", scn_path: Optional[str], returncode: Optional[int]) -> Optional[str]:
    """Why a task process that ended without reporting was killed, when its memcg's OOM killer
    did it: the process ended by SIGKILL and the memcg counts OOM kills (cgroup v1
    memory.oom_control `oom_kill`, 4.13+; v2 memory.events `oom_kill`), read before the run's
    cgroups are removed. `mem_cgroup_out_of_memory()` picks its victim among the memcg's tasks
    by `oom_badness()`, so the killed task may be another than the one whose charge failed
    (host-stall-cp4x-p16m, 6.18: the copy's buffer-head charge in ext4_da_write_begin(),
    GFP_NOFS|__GFP_NOFAIL, with the memcg's page cache all under writeback, killed the probe:
    lab/validation/stall-oom-v669.txt). None otherwise."""
    if returncode != -signal.SIGKILL:
        return None
    d = cg.path(scn_path)
    name = "memory.oom_control" if cg.version == "v1" else "memory.events"
    try:
        n = _kv(_read(os.path.join(d, name))).get("oom_kill")
    except OSError:
        return None
    if not n:
        return None
    return (f"SIGKILLed by the memcg OOM killer: {name} of {scn_path or '/'} counts oom_kill {n} (the kernel's outcome, "
            "not the runner's: the kernel log names the victim and the charge that failed; record the run again, and count "
            "it among a recording set's runs as a kill)")


class Cg:
    """One hierarchy's view of our subtree."""

    def __init__(self, version: str, mnt: str, top: str):
        self.version, self.mnt, self.top = version, mnt, top

    def path(self, scn_path: Optional[str]) -> str:
        if scn_path in (None, "", "/"):
            return os.path.join(self.top, "_root") if self.version == "v2" else self.top
        return os.path.join(self.top, scn_path.strip("/"))

    def procs(self, d: str) -> str:
        return os.path.join(d, "cgroup.procs")

    def snapshot(self, d: str, _read=_read) -> dict:
        """Counters and levels of one memcg (`_read`: how a control file is read; the QEMU runner
        passes the guest's recorded copies)."""
        s = {}
        if self.version == "v1":
            s["usage"] = int(_read(os.path.join(d, "memory.usage_in_bytes")))
            s["max_usage"] = int(_read(os.path.join(d, "memory.max_usage_in_bytes")))
            s["failcnt"] = int(_read(os.path.join(d, "memory.failcnt")))
            st = _kv(_read(os.path.join(d, "memory.stat")))
            s["file"] = st.get("total_cache", st.get("cache", 0))
            s["anon"] = st.get("total_rss", st.get("rss", 0))
            s["shmem"] = st.get("total_shmem", st.get("shmem"))
            s["mapped"] = st.get("total_mapped_file", st.get("mapped_file"))
            s["unevictable"] = st.get("total_unevictable", st.get("unevictable"))
            s["dirty"] = st.get("total_dirty", st.get("dirty"))
            s["writeback"] = st.get("total_writeback", st.get("writeback"))
            s["psi"] = None
            s["events"] = {k: st.get(v) for k, v in V1_EVENTS.items()}
            try:
                # memory.oom_control: `oom_kill` from 4.13 (the memcg's MEMCG_OOM_KILL); v1
                # shows no MEMCG_OOM count (`under_oom` is a state, 1 only during an OOM)
                s["events"]["memcg.events.oom_kill"] = _kv(_read(os.path.join(d, "memory.oom_control"))).get("oom_kill")
            except OSError:
                pass
            try:
                # memsw counts memory and swap together: its swap part
                s["swap"] = int(_read(os.path.join(d, "memory.memsw.usage_in_bytes"))) - s["usage"]
            except OSError:
                s["swap"] = None
        else:
            s["usage"] = int(_read(os.path.join(d, "memory.current")))
            try:
                s["max_usage"] = int(_read(os.path.join(d, "memory.peak")))
            except OSError:
                s["max_usage"] = None
            st = _kv(_read(os.path.join(d, "memory.stat")))
            ev = _kv(_read(os.path.join(d, "memory.events")))
            s["failcnt"] = ev.get("max")
            s["file"] = st.get("file", 0)
            s["anon"] = st.get("anon", 0)
            # tmpfs pages (NR_SHMEM) and those in PMD-sized folios (NR_SHMEM_THPS), mm/shmem.c
            s["shmem"] = st.get("shmem")
            s["shmem_thp"] = st.get("shmem_thp")
            s["mapped"] = st.get("file_mapped")
            s["unevictable"] = st.get("unevictable")
            s["writeback"] = st.get("file_writeback")
            try:
                s["psi"] = _psi(_read(os.path.join(d, "memory.pressure")))
            except OSError:
                s["psi"] = None
            s["events"] = {k: st.get(v) for k, v in V2_EVENTS.items()}
            # zswap (5.19+): memory.stat zswap (= memory.zswap.current), zswapped (bytes), zswpin/out
            s["zswap"] = {k: st.get(k) for k in ("zswap", "zswapped", "zswpin", "zswpout")}
            s["events"]["memcg.events.max"] = ev.get("max")
            s["events"]["memcg.events.high"] = ev.get("high")
            s["events"]["memcg.events.oom_kill"] = ev.get("oom_kill")
            s["events"]["memcg.events.oom"] = ev.get("oom")
            s["events"]["memcg.events.low"] = ev.get("low")
            try:
                s["swap"] = int(_read(os.path.join(d, "memory.swap.current")))
                sev = _kv(_read(os.path.join(d, "memory.swap.events")))
                s["events"]["memcg.swap_events.max"] = sev.get("max")
                s["events"]["memcg.swap_events.fail"] = sev.get("fail")
            except OSError:
                s["swap"] = None
        return s

    def cgroup_stat(self) -> Optional[dict]:
        if self.version != "v2":
            return None
        return _kv(_read(os.path.join(self.top, "cgroup.stat")))


def _psi(text: str) -> dict:
    """memory.pressure (or /proc/pressure/memory): {"some": total_us, "full": total_us,
    "some_avg10": percent, "some_avg60": ..., "full_avg10": ..., "full_avg60": ...}."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if f and f[0] in ("some", "full"):
            for kv in f[1:]:
                k, _, v = kv.partition("=")
                if k == "total":
                    out[f[0]] = int(v)
                elif k in ("avg10", "avg60"):
                    out[f"{f[0]}_{k}"] = float(v)
    return out


def _vmstat() -> dict:
    return _kv(_read("/proc/vmstat"))


# The run's /sys/kernel/debug/zswap (HostRun._swap), set in a task process by run_task.
_ZSWAP_DEBUG_DIR: Optional[str] = None
# The run's loop device's /sys/block/loopN/stat (HostRun._disk), set in a task process by run_task.
_DISKSTAT: Optional[str] = None
# Whether the run has a tmpfs mount (HostRun._tmpfs): then each snapshot reads the per-size
# shmem counters (mthp_shmem_stats), set in a task process by run_task.
_MTHP_SHMEM = False

THP_DIR = "/sys/kernel/mm/transparent_hugepage"
# /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/stats/ (6.10+, mm/huge_memory.c
# DEFINE_MTHP_STAT_ATTR): shmem_alloc (shmem_get_folio_gfp()'s MTHP_STAT_SHMEM_ALLOC of a folio of
# that size), shmem_fallback (shmem_alloc_and_add_folio(): the allocation or the charge failed),
# shmem_fallback_charge (the charge)
MTHP_SHMEM_STATS = ("shmem_alloc", "shmem_fallback", "shmem_fallback_charge")


def mthp_shmem_stats(thp_dir: str = THP_DIR) -> dict:
    """{size_kB: {stat: count}} of every hugepages-<size>kB directory with the shmem stats (a
    kernel before 6.10 has none: {})."""
    out = {}
    try:
        names = os.listdir(thp_dir)
    except OSError:
        return out
    for n in names:
        m = re.fullmatch(r"hugepages-(\d+)kB", n)
        if not m:
            continue
        st = {}
        for k in MTHP_SHMEM_STATS:
            try:
                st[k] = int(_read(os.path.join(thp_dir, n, "stats", k)))
            except (OSError, ValueError):
                pass
        if st:
            out[int(m.group(1))] = st
    return out


def shmem_enabled_settings(thp_dir: str = THP_DIR) -> dict:
    """The host's shmem huge-page knobs, each the bracketed value: `shmem_enabled` (the top-level
    /sys/kernel/mm/transparent_hugepage/shmem_enabled, mm/shmem.c shmem_enabled_show()) and
    `hugepages-<size>kB` (each size's shmem_enabled, 6.10+ thpsize_shmem_enabled_show()); a
    file that cannot be read is left out."""
    out = {}
    paths = [("shmem_enabled", os.path.join(thp_dir, "shmem_enabled"))]
    try:
        names = sorted(os.listdir(thp_dir), key=lambda n: int(re.sub(r"\D", "", n) or 0))
    except OSError:
        names = []
    paths += [(n, os.path.join(thp_dir, n, "shmem_enabled")) for n in names if re.fullmatch(r"hugepages-\d+kB", n)]
    for key, path in paths:
        try:
            m = re.search(r"\[(\w+)\]", _read(path))
        except OSError:
            continue
        if m:
            out[key] = m.group(1)
    return out

# /sys/block/DEV/stat's fields (Documentation/block/stat.rst), a step's `disk` (the device's
# counters over the step's window: every task's I/O on the device, the flusher's writeback
# included; the ticks are milliseconds). Not metrics: the engine counts no block requests yet.
DISKSTAT_FIELDS = ("read_ios", "read_merges", "read_sectors", "read_ticks_ms", "write_ios", "write_merges",
                   "write_sectors", "write_ticks_ms", "in_flight", "io_ticks_ms", "time_in_queue_ms")


def disk_window(a, b) -> Optional[dict]:
    """The run's device's counters over a step's window from snapshots `a` and `b` (their `disk`:
    diskstat()), in_flight a level (its value at the end); None without both."""
    da, db = getattr(a, "disk", None), getattr(b, "disk", None)
    if not da or not db:
        return None
    return {k: db[k] if k == "in_flight" else db[k] - da[k] for k in DISKSTAT_FIELDS if k in da and k in db}


def diskstat(path: str) -> Optional[dict]:
    """The counters of a block device's stat file (DISKSTAT_FIELDS), or None when unreadable."""
    try:
        vals = [int(x) for x in _read(path).split()]
    except (OSError, ValueError):
        return None
    return dict(zip(DISKSTAT_FIELDS, vals))


def kthread_waits(proc: str = "/proc") -> dict:
    """{pid: (comm, run_delay_ns, pcount)} of the host's kernel threads on the loop device's path
    (issue 23, loopwq23): the workqueue kworkers (`kworker/...`, which run the loop device's work:
    drivers/block/loop.c 6.18 loop_queue_work() queues it on the device's WQ_UNBOUND workqueue
    `loopN`, a kworker of the unbound pool runs loop_workfn()/loop_rootcg_workfn(); such a kworker's
    comm ends in "-loopN" or "+loopN", kernel/workqueue.c wq_worker_comm(), after it ran that work
    last) and the ksoftirqd/N threads (the loop request's completion, lo_rw_aio_complete() ->
    blk_mq_complete_request(), raises BLOCK_SOFTIRQ, which ksoftirqd runs when the softirq is
    deferred). From /proc/PID/schedstat's second and third fields (CONFIG_SCHED_INFO: the time from
    the thread's enqueue to its switch-in, summed, and its switch-ins), as the QEMU guest's
    kthread_waits() reads them. A thread that exits while read is skipped."""
    out = {}
    try:
        names = os.listdir(proc)
    except OSError:
        return out
    for pid in names:
        if not pid.isdigit():
            continue
        try:
            comm = _read(os.path.join(proc, pid, "comm")).strip()
            if not (comm.startswith("kworker/") or comm.startswith("ksoftirqd/")):
                continue
            f = _read(os.path.join(proc, pid, "schedstat")).split()
            out[int(pid)] = (comm, int(f[1]), int(f[2]))
        except (OSError, IndexError, ValueError):
            continue
    return out


def _names_loop_wq(comm: str, loop_name: str) -> bool:
    """Whether a kworker's comm says it ran (or runs) the loop device's work last: "-loopN"/"+loopN"
    at its end (wq_worker_comm(): '+' while running, '-' after)."""
    return comm.startswith("kworker/") and (comm.endswith("-" + loop_name) or comm.endswith("+" + loop_name))


def loop_worker_waits(a: dict, b: dict, loop_name: str) -> dict:
    """The run-queue waits between two kthread_waits() snapshots `a` (before the tasks) and `b`
    (after), per group: `loop_worker` (the kworkers whose comm names the loop device's workqueue
    at either snapshot), `unbound_kworker` (every kworker of an unbound pool, `kworker/uN:M`, which
    the loop device's work shares with the other unbound workqueues: writeback, flush, ...) and
    `ksoftirqd`: {group: {"run_delay_s", "runs", "threads"}}, a group without a thread missing.
    Threads are paired by pid and comm prefix (a kworker's suffix changes with the work it ran);
    one that appeared between the snapshots counts from its start, one that exited is missing."""
    out = {}
    groups = (("loop_worker", lambda ca, cb: _names_loop_wq(ca, loop_name) or _names_loop_wq(cb, loop_name)),
              ("unbound_kworker", lambda ca, cb: cb.startswith("kworker/u")),
              ("ksoftirqd", lambda ca, cb: cb.startswith("ksoftirqd/")))
    for key, member in groups:
        delay = runs = threads = 0
        for pid, (comm, d, n) in b.items():
            prev = a.get(pid)
            same = prev is not None and prev[0].split("-", 1)[0].split("+", 1)[0] == comm.split("-", 1)[0].split("+", 1)[0]
            ca = prev[0] if same else ""
            if not member(ca, comm):
                continue
            d0, n0 = (prev[1], prev[2]) if same else (0, 0)
            delay += max(0, d - d0)
            runs += max(0, n - n0)
            threads += 1
        if threads:
            out[key] = {"run_delay_s": delay / 1e9, "runs": runs, "threads": threads}
    return out


# How long the sampler (sampler_main) sleeps between two samples of the machine's run queue while
# the tasks run (runnable_sample). A sample itself takes 0.6-2.6 ms of CPU on this host (a read of
# every thread's /proc/PID/task/TID/stat, 160-240 threads), so the interval is about 10 ms and
# longer under load (14-24 ms measured at load 9-15 with /proc/stat alone, review11 L2; 19-39 ms
# with the thread scan at load 11-14): each step records its mean (`background_interval_s`) and
# the run the sampler's own CPU time (real.machine.runq_sampler).
RUNQ_SAMPLE_S = 0.01

# kernel/sched/core.c sched_prio_to_weight[]: the CFS weight of nice -20..19 (nice 0: 1024,
# NICE_0_LOAD); an autogroup's weight is the entry of its nice (autogroup.c
# proc_sched_autogroup_set_nice(): sched_group_set_shares(ag->tg, sched_prio_to_weight[nice + 20])).
SCHED_PRIO_TO_WEIGHT = (
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
    9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
    1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
    110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
)
# SCHED_IDLE's weight (kernel/sched/sched.h WEIGHT_IDLEPRIO); the RT and deadline policies (1, 2,
# 6) are not CFS entities: they take a CPU (counted as tasks) but are no entity of the fair tree.
WEIGHT_IDLEPRIO = 3
_NOT_CFS = {1, 2, 6}


def _rdb(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def autogroup_of(pid, proc: str = "/proc") -> Optional[tuple]:
    """(id, nice) of a process's autogroup from /proc/PID/autogroup ("/autogroup-N nice M",
    kernel/sched/autogroup.c proc_sched_autogroup_show_task()); None for a task of the default
    autogroup (init's, whose task group is the root: kthreads and processes of no setsid()
    session print nothing), or when it cannot be read (autogroup off, CONFIG_SCHED_AUTOGROUP
    unset, the process gone)."""
    try:
        f = _read(os.path.join(proc, str(pid), "autogroup")).split()
        return int(f[0].rsplit("-", 1)[1]), int(f[2])
    except (OSError, IndexError, ValueError):
        return None


def runnable_sample(pids: list, proc: str = "/proc", loop_name: str = "", own_group: Optional[tuple] = None,
                    autogroup: bool = True, me: Optional[int] = None, cache: Optional[dict] = None) -> Optional[dict]:
    """The machine's other runnable tasks at this instant, by the entity CFS shares the CPUs
    between at the root (issue 23, review11 H1/L2): every thread in state R
    (/proc/PID/task/TID/stat; a single-threaded process's /proc/PID/stat), less the sampling
    thread `me`, the scenario's task processes `pids` and the loop device's kworkers serving the
    scenario's own I/O (their comm names the device's workqueue `loop_name`, _names_loop_wq():
    the scenario's work, not background). Returns {"tasks": the others' count (what a
    CPU-idle test sees: select_idle_sibling()), "entities": the others' root-level CFS entities,
    each with its weight over NICE_0_LOAD (where `autogroup` is on, kernel/sched/autogroup.c
    task_wants_autogroup(): one entity per autogroup with a runnable task at its autogroup's
    nice weight, and a task of the default autogroup, kthreads among them, an entity of its
    own at its nice weight; off: every task at its own), "groups": how many such entities,
    "own": the others in the runner's own autogroup `own_group` (id, nice), which share its
    entity with the scenario's tasks, "loop": the loop threads left out, "weight": the entities' weights summed}; None when /proc
    cannot be listed. A task whose entity 6.12+'s DELAY_DEQUEUE keeps queued after it slept
    (kernel/sched/fair.c dequeue_entity(): a sleeper with negative lag, `sched_delayed`) shows
    state S and is not counted: ineligible, it takes no CPU until `pick_next_entity()` dequeues
    it (the engine's side: sched.rs BusyRq::delayed_lag). `cache` keeps each process's autogroup for the run (read once, when one
    of its threads is first seen runnable)."""
    try:
        names = os.listdir(proc)
    except OSError:
        return None
    skip = {str(p) for p in pids}
    cache = {} if cache is None else cache
    tasks = loop = own = 0
    ents = {}
    for pid in names:
        if not pid.isdigit() or pid in skip:
            continue
        try:
            s = _rdb(os.path.join(proc, pid, "stat"))
        except OSError:
            continue
        f = s[s.rfind(b")") + 2:].split()
        threads = [(pid, s, f)]
        if len(f) > 17 and f[17] != b"1":
            try:
                tids = os.listdir(os.path.join(proc, pid, "task"))
            except OSError:
                tids = []
            threads = []
            for tid in tids:
                try:
                    ts = _rdb(os.path.join(proc, pid, "task", tid, "stat"))
                except OSError:
                    continue
                threads.append((tid, ts, ts[ts.rfind(b")") + 2:].split()))
        for tid, ts, tf in threads:
            if not tf or tf[0] != b"R" or (me is not None and tid == str(me)):
                continue
            comm = ts[ts.find(b"(") + 1:ts.rfind(b")")].decode(errors="replace")
            if loop_name and _names_loop_wq(comm, loop_name):
                loop += 1
                continue
            tasks += 1
            try:
                nice, policy = int(tf[16]), int(tf[38])
            except (IndexError, ValueError):
                nice, policy = 0, 0
            if policy in _NOT_CFS:
                continue
            ag = None
            if autogroup:
                if pid not in cache:
                    cache[pid] = autogroup_of(pid, proc)
                ag = cache[pid]
            if ag is not None and own_group is not None and ag[0] == own_group[0]:
                own += 1
            elif ag is not None:
                ents[f"ag{ag[0]}"] = SCHED_PRIO_TO_WEIGHT[min(max(ag[1], -20), 19) + 20]
            else:
                ents[f"t{tid}"] = WEIGHT_IDLEPRIO if policy == 5 else SCHED_PRIO_TO_WEIGHT[min(max(nice, -20), 19) + 20]
    # "entities" counts an entity heavier than NICE_0_LOAD as one: a sample finds it runnable for
    # as long as its burst lasts, and at a heavier weight it runs that burst sooner, so its
    # presence already is its share (the highpri kworkers at nice -20, weight 86.7 x NICE_0_LOAD,
    # seen in one sample in ten, would otherwise count as 8.7 CPU-bound entities); a lighter one
    # (an autogroup at nice > 0) runnable throughout takes only its weight's share. "weight" is
    # the plain sum of the weights, for reference.
    return {"tasks": tasks, "entities": round(sum(min(w, 1024) for w in ents.values()) / 1024, 3),
            "weight": round(sum(ents.values()) / 1024, 3), "groups": len(ents), "own": own, "loop": loop}


def background_window(samples: list, start: float, end: float, cpus: int) -> Optional[dict]:
    """The run-queue samples (time.time(), runnable_sample()) taken between `start` and `end`:
    the mean of the other runnable tasks (`background_runnable`, what a scenario's `[machine]
    background_runnable` takes), of their root-level CFS entities, each at its weight over
    NICE_0_LOAD, at most 1 (`background_entities`, what `[machine] background_entities`
    takes), at its full weight (`background_weight`) and counted (`background_groups`), of the others in the runner's own autogroup
    (`background_own_group`) and of the loop threads left out (`background_loop`); how many
    samples (`background_samples`), their mean interval (`background_interval_s`, None with
    one) and the fraction with at least `cpus` others (`background_all_busy`: no CPU left idle
    for a wake-up); with samples that carry the sampler's CPU time (`cpu_s`, sampler_main() since
    hog23b), the sampler's CPU seconds between the first and the last (`background_sampler_cpu_s`:
    the runner's own work beside the step, ~0.2 of a CPU in the quiet traces of
    host-stall-hog-swap); None without samples."""
    xs = [(t, n) for t, n in samples if start <= t <= end]
    if not xs:
        return None
    k = len(xs)

    def mean(key):
        return round(sum(n[key] for _, n in xs) / k, 3)
    return {"background_runnable": mean("tasks"), "background_entities": mean("entities"),
            "background_weight": mean("weight"), "background_groups": mean("groups"), "background_own_group": mean("own"),
            "background_loop": mean("loop"), "background_samples": k,
            "background_interval_s": round((xs[-1][0] - xs[0][0]) / (k - 1), 4) if k > 1 else None,
            "background_all_busy": round(sum(1 for _, n in xs if n["tasks"] >= cpus) / k, 3),
            # the sampler's own CPU time between the step's first and last sample (its samples
            # carry its process_time(), sampler_main()): runner work beside the step (hog23b)
            **({"background_sampler_cpu_s": round(xs[-1][1]["cpu_s"] - xs[0][1]["cpu_s"], 4)}
               if k > 1 and "cpu_s" in xs[0][1] and "cpu_s" in xs[-1][1] else {})}


def _self_schedstat(path: str = "/proc/thread-self/schedstat") -> Optional[tuple]:
    """(on-CPU ns, run-queue wait ns, switch-ins) of the calling thread (CONFIG_SCHED_INFO), or None."""
    try:
        f = [int(x) for x in _read(path).split()[:3]]
    except (OSError, ValueError):
        return None
    return tuple(f) if len(f) == 3 else None


def sched_window(a, b) -> Optional[dict]:
    """The task's own scheduling over a step from snapshots `a` and `b` (their `schedstat`): its CPU
    time, its time runnable but waiting for a CPU (woken from an I/O wait, or preempted) and its
    switch-ins, `{"run_s", "run_delay_s", "runs"}`; None without both."""
    sa, sb = getattr(a, "schedstat", None), getattr(b, "schedstat", None)
    if not sa or not sb:
        return None
    out = {"run_s": (sb[0] - sa[0]) / 1e9, "run_delay_s": (sb[1] - sa[1]) / 1e9, "runs": sb[2] - sa[2]}
    # the task's nice value at the step's end (its own thread's getpriority(2))
    if getattr(b, "nice", None) is not None:
        out["nice"] = b.nice
    return out


class Snap:
    def __init__(self, cg: Cg, cgdir: str):
        self.t = time.monotonic()
        ru, rc = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        self.user, self.sys = ru.ru_utime + rc.ru_utime, ru.ru_stime + rc.ru_stime
        try:
            f = _read("/proc/self/stat").rsplit(")", 1)[1].split()
            self.iowait = int(f[39]) / os.sysconf("SC_CLK_TCK")  # delayacct_blkio_ticks (field 42)
        except (OSError, IndexError, ValueError):
            self.iowait = None
        self.io = _self_io()
        self.schedstat = _self_schedstat()
        self.nice = _nice()
        self.memcg = cg.snapshot(cgdir)
        self.vm = _vmstat()
        if _ZSWAP_DEBUG_DIR:
            # /sys/kernel/debug/zswap (the run's debugfs mount): its counters and levels
            z = {}
            for k in ZSWAP_DEBUG:
                try:
                    z[k] = int(_read(os.path.join(_ZSWAP_DEBUG_DIR, k)))
                except (OSError, ValueError):
                    pass
            self.zswap = z
        self.disk = diskstat(_DISKSTAT) if _DISKSTAT else None
        if _MTHP_SHMEM:
            self.mthp = mthp_shmem_stats()
        try:
            # System-wide memory pressure (the only PSI a cgroup v1 host has).
            self.psi_sys = _psi(_read("/proc/pressure/memory"))
        except OSError:
            self.psi_sys = None


def step_metrics(cg: Cg, a: Snap, b: Snap, files: dict) -> tuple:
    """(metrics, resident_pages) of one step from two snapshots, named as the engine names them."""
    return metrics_from(a, b, _meminfo(), cg.cgroup_stat()), resident(files)


def has_mlock(plan: dict) -> bool:
    """Whether the scenario mlocks: only then do steps report `memcg.unevictable_bytes`, as the
    engine's do (sched.rs `finish_step`), so that other runs keep their metrics."""
    return any(op["op"] == "mlock" for t in plan["tasks"] for op in t["ops"])


def metrics_from(a, b, mi: dict, st: Optional[dict]) -> dict:
    """The engine-named metrics of one step: snapshots `a` (start) and `b` (end) with attributes
    t, user, sys, iowait, io, memcg (Cg.snapshot), vm (/proc/vmstat); `mi` /proc/meminfo in kB
    and `st` the subtree's cgroup.stat (None on cgroup v1) at the end."""
    m = {
        "elapsed_s": b.t - a.t, "user_s": b.user - a.user, "sys_s": b.sys - a.sys,
        "read_bytes": b.io["read_bytes"] - a.io["read_bytes"],
        "write_bytes": b.io["write_bytes"] - a.io["write_bytes"],
    }
    if a.iowait is not None and b.iowait is not None:
        m["iowait_s"] = b.iowait - a.iowait
    m["memcg.usage_bytes"] = b.memcg["usage"]
    if b.memcg["max_usage"] is not None:
        m["memcg.max_usage_bytes"] = b.memcg["max_usage"]
    m["memcg.file_bytes"] = b.memcg["file"]
    if b.memcg.get("anon") is not None:
        m["memcg.anon_bytes"] = b.memcg["anon"]
    if b.memcg.get("mapped") is not None:
        m["memcg.file_mapped_bytes"] = b.memcg["mapped"]
    for k in ("dirty", "writeback", "swap", "unevictable", "shmem", "shmem_thp"):
        if b.memcg.get(k) is not None:
            m[f"memcg.{k}_bytes"] = b.memcg[k]
    pa, pb = a.memcg.get("psi"), b.memcg.get("psi")
    if pa and pb:
        for k in ("some", "full"):
            if k in pa and k in pb:
                m[f"psi.memory.{k}_us"] = pb[k] - pa[k]
            for w in ("avg10", "avg60"):
                if f"{k}_{w}" in pb:
                    m[f"psi.memory.{k}_{w}"] = pb[f"{k}_{w}"]
    sa, sb = getattr(a, "psi_sys", None), getattr(b, "psi_sys", None)
    if sa and sb:
        for k in ("some", "full"):
            if k in sa and k in sb:
                m[f"psi.system.memory.{k}_us"] = sb[k] - sa[k]
    if a.memcg["failcnt"] is not None and b.memcg["failcnt"] is not None:
        m["memcg.failcnt"] = b.memcg["failcnt"] - a.memcg["failcnt"]
    for k, v in b.memcg["events"].items():
        if v is not None and a.memcg["events"].get(k) is not None:
            m[k] = v - a.memcg["events"][k]
    for k in VMSTAT:
        if k in b.vm and k in a.vm:
            m["vmstat." + k] = b.vm[k] - a.vm[k]
    for k in ("MemFree", "Cached", "Dirty", "Writeback", "Percpu", "Slab", "AnonPages", "Mapped", "SwapFree", "Shmem", "ShmemHugePages"):
        if k in mi:
            m[f"meminfo.{k}_kB"] = mi[k]
    za, zb = getattr(a, "zswap", None), getattr(b, "zswap", None)
    if za is not None and zb is not None:
        # /sys/kernel/debug/zswap: counters as deltas, the pool's levels at the end
        for k in ("pool_limit_hit", "written_back_pages", "reject_reclaim_fail", "reject_compress_poor", "reject_alloc_fail"):
            if k in za and k in zb:
                m[f"zswap.{k}"] = zb[k] - za[k]
        for k in ("stored_pages", "same_filled_pages", "pool_total_size"):
            if k in zb:
                m[f"zswap.{k}"] = zb[k]
        for k in ("zswpin", "zswpout"):
            if k in b.vm and k in a.vm:
                m["vmstat." + k] = b.vm[k] - a.vm[k]
        mza, mzb = a.memcg.get("zswap") or {}, b.memcg.get("zswap") or {}
        for k in ("zswpin", "zswpout"):
            if mzb.get(k) is not None and mza.get(k) is not None:
                m["memcg." + k] = mzb[k] - mza[k]
        if mzb.get("zswap") is not None:
            m["memcg.zswap_bytes"] = mzb["zswap"]
        if mzb.get("zswapped") is not None:
            m["memcg.zswapped_bytes"] = mzb["zswapped"]
        for k in ("Zswap", "Zswapped"):
            if k in mi:
                m[f"meminfo.{k}_kB"] = mi[k]
    ma, mb = getattr(a, "mthp", None), getattr(b, "mthp", None)
    if ma and mb:
        # tmpfs folios below the PMD size (6.14+ tmpfs large folios; the PMD size is counted by
        # thp_file_alloc/_fallback): the per-size shmem counters summed over the sizes under 2 MiB
        for k in MTHP_SHMEM_STATS:
            m[f"mthp.{k}"] = sum(mb[z].get(k, 0) - ma[z].get(k, 0) for z in mb if z in ma and z < 2048)
    if st is not None:
        m["cgroup.nr_descendants"] = st.get("nr_descendants", 0)
        m["cgroup.nr_dying_descendants"] = st.get("nr_dying_descendants", 0)
    return m


def step_files(ops: list) -> set:
    """Scenario paths the ops of one step name: a read's, write's, stat's or fsync's file, the
    files an fadvise names or finds below its directory (the engine's
    `Simulation::step_resident_pages`)."""
    out = set()
    for op in ops:
        if op.get("file"):
            out.add(op["file"])
        out.update(op.get("files") or ())
    return out


def step_view(res_all: dict, ops: list, mode: str) -> tuple:
    """(resident_pages, pagecache) of a step as the engine reports them, from the resident pages
    of every scenario file: `pagecache` their sum (the engine's NR_FILE_PAGES: every page-cache
    page of the simulated machine is a scenario file's); `resident_pages` the files the step's
    ops name ([report] resident_pages = "step", the default) or every file ("all")."""
    total = sum(res_all.values())
    if mode == "all":
        return res_all, total
    names = step_files(ops)
    return {p: n for p, n in res_all.items() if p in names}, total


def resident(files: dict) -> dict:
    """Resident pages of each scenario file that exists (scenario path -> pages), zeros left out."""
    out = {}
    for spath, real in files.items():
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            n, _ = hostcache.resident_pages(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)
        if n:
            out[spath] = n
    return out


# ---------------------------------------------------------------- folios by order (kpageflags)

# /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h, the same in 6.1 and 6.18)
KPF_UPTODATE, KPF_LRU, KPF_SLAB, KPF_ANON, KPF_COMPOUND_HEAD, KPF_COMPOUND_TAIL, KPF_PGTABLE = 3, 5, 7, 12, 15, 16, 26
KPF_DIRTY, KPF_ACTIVE, KPF_WRITEBACK, KPF_MMAP, KPF_SWAPCACHE = 4, 6, 8, 11, 13
# the letters of memcg_folios' anon_flags keys, in their order
ANON_FLAG_LETTERS = (("m", KPF_MMAP), ("s", KPF_SWAPCACHE), ("w", KPF_WRITEBACK), ("a", KPF_ACTIVE), ("d", KPF_DIRTY), ("l", KPF_LRU))
FOLIOS_SOURCE = ("/proc/kpagecgroup and /proc/kpageflags at each step's end: every PFN charged to the step's memcg "
                 "(kpagecgroup = the memcg directory's inode), a folio = a compound head and the tail PFNs after it "
                 "(order-0: a page that is neither); file folios are those whose head is not KPF_ANON, KPF_SLAB or "
                 "KPF_PGTABLE and is KPF_LRU or KPF_UPTODATE; anon_flags: the KPF_ANON pages by KPF_MMAP (m), "
                 "KPF_SWAPCACHE (s), KPF_WRITEBACK (w), KPF_ACTIVE (a), KPF_DIRTY (d), KPF_LRU (l); scanned after the "
                 "step's metrics were read")
# the host runner's rule for when (folio_scan_blocked(), hog23b 2026-12-01; recordings before it scanned at every step's end)
HOST_FOLIOS_WHEN = ("; only once every other task of the run is over (else the step's folios_skipped says why); "
                    "folio_scan_s: the scan's wall time, a gap before the task's next step")


def memcg_folios(ino: int, cgbuf: bytearray, flbuf: bytearray) -> dict:
    """The folios charged to the memcg whose cgroup inode is `ino`, by order, from
    /proc/kpagecgroup and /proc/kpageflags (fs/proc/page.c: kpagecgroup_read() gives
    page_cgroup_ino() of each PFN, kpageflags_read() stable_page_flags()). A folio is a PFN the
    memcg is charged for and, when it is a compound head, the KPF_COMPOUND_TAIL PFNs after it:
    6.1's page_cgroup_ino() reads the page's own memcg_data, which only a head has (its tails
    read 0), 6.18's reads the folio's. `cgbuf` and `flbuf`: equal-sized buffers (a multiple of 8
    bytes) allocated before the task joined its memcg, so that the scan charges it nothing.
    {"file": {order: folios}, "file_pages": n, "other_pages": n, "anon_flags": {key: pages}}
    (other: anon, kmem; anon_flags: the KPF_ANON pages by ANON_FLAG_LETTERS of their head, "-"
    for none: "msl" mapped in the swap cache on the inactive list, "sl" an unmapped swap-cache page
    there)."""
    import struct

    pat = struct.pack("<Q", ino)
    tail, head = 1 << KPF_COMPOUND_TAIL, 1 << KPF_COMPOUND_HEAD
    not_file = (1 << KPF_ANON) | (1 << KPF_SLAB) | (1 << KPF_PGTABLE) | tail
    cached = (1 << KPF_LRU) | (1 << KPF_UPTODATE)
    file_orders: dict = {}
    counts = {"file_pages": 0, "other_pages": 0}
    anon: dict = {}
    cur = None  # the folio being assembled: [pages, is_file, head flags], open while its tails may follow

    def close() -> None:
        n, is_file, hf = cur
        if is_file:
            order = max(n - 1, 0).bit_length()
            file_orders[order] = file_orders.get(order, 0) + 1
            counts["file_pages"] += n
        else:
            counts["other_pages"] += n
            if hf & (1 << KPF_ANON):
                key = "".join(c for c, bit in ANON_FLAG_LETTERS if hf & (1 << bit)) or "-"
                anon[key] = anon.get(key, 0) + n

    def flags(i: int) -> int:
        return int.from_bytes(flbuf[i:i + 8], "little")

    fc = os.open("/proc/kpagecgroup", os.O_RDONLY)
    ff = os.open("/proc/kpageflags", os.O_RDONLY)
    try:
        cmv, fmv = memoryview(cgbuf), memoryview(flbuf)
        off = 0
        while True:
            n = os.preadv(fc, [cmv], off)
            n -= n % 8
            if n <= 0:
                break
            have_flags, i = False, 0
            if cur is not None:  # a folio open at the end of the last chunk: its tails first
                os.preadv(ff, [fmv[:n]], off)
                have_flags = True
                while i < n and flags(i) & tail:
                    cur[0] += 1
                    i += 8
                if i < n:
                    close()
                    cur = None
            i = cgbuf.find(pat, i, n)
            while i >= 0:
                if i % 8:
                    i = cgbuf.find(pat, i + 1, n)
                    continue
                if not have_flags:
                    os.preadv(ff, [fmv[:n]], off)
                    have_flags = True
                fl = flags(i)
                cur = [1, not fl & not_file and bool(fl & cached), fl]
                i += 8
                if fl & head:
                    while i < n and flags(i) & tail:
                        cur[0] += 1
                        i += 8
                if i < n:
                    close()
                    cur = None
                    i = cgbuf.find(pat, i, n)
                else:
                    i = -1
            off += n
    finally:
        os.close(fc)
        os.close(ff)
    if cur is not None:
        close()
    return {"file": {str(k): v for k, v in sorted(file_orders.items())}, **counts, "anon_flags": dict(sorted(anon.items()))}


# ---------------------------------------------------------------- folios added and deleted (tracefs)

# tracepoints of mm/filemap.c (include/trace/events/filemap.h) with the folio's order (6.x; 6.1's
# have no order field): every folio the page cache gains (__filemap_add_folio) and loses
# (__filemap_remove_folio: reclaim, truncation, invalidation)
FOLIO_EVENTS = {"added": "mm_filemap_add_to_page_cache", "deleted": "mm_filemap_delete_from_page_cache"}
FOLIO_EVENTS_SOURCE = ("tracefs events filemap/mm_filemap_add_to_page_cache and mm_filemap_delete_from_page_cache "
                       "(their `order` field), one trace instance each, filtered on the scratch file system's device "
                       "(s_dev), drained at each step's end by the task whose step ended and counted by order; `lost`: "
                       "events the instances' ring buffers overran or dropped")
MAX_ORDER_COUNTED = 20


def folio_events_supported(tracefs: Optional[str] = None) -> Optional[str]:
    """None when this kernel's filemap tracepoints carry the folio order (read from the tracefs
    mounted at `tracefs`; without it: whether the kernel has tracefs at all); else why not."""
    if tracefs is None:
        try:
            return None if "tracefs" in _read("/proc/filesystems").split() else "the kernel has no tracefs (CONFIG_TRACING off)"
        except OSError as e:
            return f"/proc/filesystems: {e.strerror}"
    fmt = os.path.join(tracefs, "events", "filemap", FOLIO_EVENTS["added"], "format")
    try:
        if "field:unsigned char order" not in _read(fmt):
            return "the filemap tracepoints of this kernel have no order field"
    except OSError as e:
        return f"no {fmt} ({e.strerror}: the kernel has no filemap tracepoints)"
    return None


def drain_folio_events(pipes: dict, buf: bytearray, seen: dict) -> dict:
    """Read what the trace instances `pipes` ({"added": dir, "deleted": dir}) hold and count
    their events by order: {"added": {order: n}, "deleted": {order: n}, "lost": n}, `lost` the
    events the ring buffers overran or dropped since the last drain (`seen`: the instances'
    cumulative counts then, updated here). trace_pipe
    returns whole lines, so each order is counted by its line ending (`order=N\\n`) in `buf`
    (allocated before the task joined its memcg) without making an object per event."""
    out: dict = {"lost": 0}
    pats = [(o, b"order=%d\n" % o) for o in range(MAX_ORDER_COUNTED + 1)]
    mv = memoryview(buf)
    for kind, d in pipes.items():
        counts: dict = {}
        # trace_pipe has one reader at a time (EBUSY): tasks that end together (a copy and
        # the probe watching it) take turns
        for attempt in range(500):
            try:
                fd = os.open(os.path.join(d, "trace_pipe"), os.O_RDONLY | os.O_NONBLOCK)
                break
            except OSError as e:
                if e.errno != errno.EBUSY or attempt == 499:
                    raise
                time.sleep(0.01)
        try:
            while True:
                try:
                    n = os.readv(fd, [mv])
                except BlockingIOError:
                    break
                if n <= 0:
                    break
                for o, pat in pats:
                    c = buf.count(pat, 0, n)
                    if c:
                        counts[o] = counts.get(o, 0) + c
        finally:
            os.close(fd)
        out[kind] = {str(o): c for o, c in sorted(counts.items())}
        lost = 0
        for cpu in os.listdir(os.path.join(d, "per_cpu")):
            st = _read(os.path.join(d, "per_cpu", cpu, "stats"))
            for line in st.splitlines():
                k, _, v = line.partition(":")
                if k.strip() in ("overrun", "dropped events"):
                    lost += int(v.split()[0])
        out["lost"] += lost - seen.get(d, 0)
        seen[d] = lost
    return out


# ---------------------------------------------------------------- carrying out one task


class OpError(RealError):
    pass


_BUF = bytearray(os.urandom(1 << 20))


def _fill(f, offset: int, length: int, bufsize: int) -> None:
    mv = memoryview(_BUF)
    pos, end = offset, offset + length
    while pos < end:
        n = min(bufsize, end - pos, len(_BUF))
        os.pwrite(f, mv[:n], pos)
        pos += n


# The task process (RealRun.run): `python3 -S -c _TASK_MAIN PKGDIR`, the job as JSON on stdin, its
# steps (or {"error": ...}) as JSON on stdout. The memtwin package is entered without its
# __init__ (which loads the engine and pandas): only this module and hostcache are imported.
_SAMPLER_MAIN = """
import json, sys, types
pkg = types.ModuleType("memtwin")
pkg.__path__ = [sys.argv[1]]
sys.modules["memtwin"] = pkg
from memtwin import real
real.sampler_main(json.loads(sys.stdin.readline()))
"""


def sampler_main(job: dict) -> None:
    """The run-queue sampler (autogrp23), in a process of its own started in a session of its
    own (`start_new_session`: setsid(), so a new autogroup, kernel/sched/autogroup.c
    sched_autogroup_create_attach()) at nice 0: its ~0.6-2.6 ms of CPU a sample (measured on
    this host at load 11-14; 0.38-1.21 s a run in the runner's own process, 9% of a CPU) is then
    no work of the runner's autogroup, which the scenario's tasks share; it competes at the root
    as one more session while it samples (its CPU time is real.machine.runq_sampler.cpu_s). At
    nice 19 in an autogroup at nice 19 (weight 15 at the root) it starved: one sample every
    0.3-0.6 s at load 10-14 (2026-11-30 03:21-03:31, refuted). Samples runnable_sample() every
    RUNQ_SAMPLE_S until its stdin closes; prints {"samples": [[time.time(), sample], ...],
    "cpu_s": its CPU time, "autogroup": [id, nice]}."""
    import select
    unhold_signals()  # started under signals_held() (HostRun.run): SIGINT, SIGTERM, SIGHUP at their defaults
    die_with_parent(job["parent"])
    own, cache, me, out = (tuple(job["own"]) if job.get("own") else None), {}, os.getpid(), []
    while not select.select([sys.stdin], [], [], RUNQ_SAMPLE_S)[0]:
        n = runnable_sample(job["pids"], loop_name=job["loop"], own_group=own, autogroup=bool(job["autogroup"]), me=me, cache=cache)
        if n is not None:
            n["cpu_s"] = round(time.process_time(), 4)  # its own CPU so far (background_window)
            out.append([time.time(), n])
    ag = autogroup_of(me)
    json.dump({"samples": out, "cpu_s": round(time.process_time(), 4), "autogroup": list(ag) if ag else None}, sys.stdout)


_TASK_MAIN = """
import json, sys, types
pkg = types.ModuleType("memtwin")
pkg.__path__ = [sys.argv[1]]
sys.modules["memtwin"] = pkg
from memtwin import real
real.task_main(json.load(sys.stdin))
"""


def task_main(job: dict) -> None:
    """Run one task of a RealRun (in its own process); report on stdout and exit."""
    code = 0
    try:
        unhold_signals()  # started under signals_held() (HostRun.run)
        die_with_parent(job["parent"])
        cg = Cg(*job["cg"])
        delay = job["start_at"] - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        plan = job["plan"]
        try:
            res = {"steps": run_task(job["task"], plan, cg, job["files"], job["scratch"], plan["policies"], job["seed"],
                                     job.get("traces"))}
        finally:
            mark_done(job["scratch"], job["task"]["name"])
    except RealError as e:
        res, code = {"error": str(e)}, 1
    except BaseException as e:  # noqa: BLE001 - reported to the parent, never lost
        res, code = {"error": f"task {job['task']['name']}: {type(e).__name__}: {e}"}, 1
    sys.stdout.write(json.dumps(res))
    sys.stdout.flush()
    os._exit(code)


def done_marker(scratch: str, task: str) -> str:
    """The file whose existence tells an `mmap_probe` watching `task` that the task is over."""
    return os.path.join(scratch, f".done-{task}")


def mark_done(scratch: str, task: str) -> None:
    """Mark `task` over: written by the task when its last op returns (or fails) and by the
    parent when the task's process ends (killed, e.g. by the OOM killer)."""
    try:
        with open(done_marker(scratch, task), "w"):
            pass
    except OSError:
        pass


def mmap_probe(size: int, interval_ns: int, watched: str, scratch: str) -> list:
    """The engine's `mmap_probe` (mmtests' stutter latency probe): until the task `watched` is
    over, map `size` bytes of anonymous memory, write one byte of every page, unmap, and sleep
    `interval_ns`; each round's time (mmap to munmap, ns) in order. The pages are written from
    C (a strided memoryview assignment), so a round is the kernel's faults, charges, reclaim
    and zeroing, not the interpreter's loop."""
    import mmap as mmap_mod

    pages = (size + 4095) // 4096
    ones = b"\x01" * pages
    marker = done_marker(scratch, watched)
    samples = []
    while not os.path.exists(marker):
        t0 = time.monotonic_ns()
        m = mmap_mod.mmap(-1, pages * 4096, flags=mmap_mod.MAP_PRIVATE | mmap_mod.MAP_ANONYMOUS,
                          prot=mmap_mod.PROT_READ | mmap_mod.PROT_WRITE)
        mv = memoryview(m)
        mv[::4096] = ones
        mv.release()
        m.close()
        samples.append(time.monotonic_ns() - t0)
        time.sleep(interval_ns / 1e9)
    return samples


def folio_scan_blocked(others: list, scratch: str, exists=os.path.exists) -> Optional[str]:
    """Why a task must not scan its memcg's folios (memcg_folios()) at this step's end, or None
    (hog23b, issue 23): the scan reads /proc/kpagecgroup of the whole host and /proc/kpageflags
    where the memcg has pages, 1.0-1.6 s of one CPU on this 24 GiB host with three tasks about
    (the lead's quiet traces of host-stall-hog-swap, 2026-12-01 03:17 UTC, sched_switch:
    lab/validation/trace-hog-swap-1130/hog23b/), all kernel time in the task's own process. While
    another task of the run (`others`: their names) is not over (its done_marker() missing: still
    in a timed step, or not started), that CPU is taken from its steps, and a scan between two
    steps of this task puts a gap the scenario does not have before the next one (the hog's second
    touch started 1.04-1.25 s after its first ended, beside a copy 1.3-1.6 s further on than the
    engine's step sequence has it). The scan then waits for nothing: it is skipped and the step
    says why (`folios_skipped`)."""
    busy = [n for n in others if not exists(done_marker(scratch, n))]
    if not busy:
        return None
    return ("not scanned: task(s) " + ", ".join(busy) + " of the run not over (the scan, ~1 s of a CPU, "
            "would compete with their timed steps or delay this task's next step)")


def die_with_parent(parent: int) -> None:
    """Have the kernel SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG): a
    task must not outlive a killed `memtwin real` in its memcg, keeping the cgroup busy."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the prctl
        os._exit(1)


class EngineRng:
    """The engine's random numbers (crates/memtwin-engine/src/types.rs `Rng`: SplitMix64 from
    seed ^ 0x9E3779B97F4A7C15, a number below n as the high word of x * n), as the QEMU guest draws
    them too (memtwin_guest.c rnd()): a task alone in its scenario touches and reads the engine's
    pages in the engine's order. (Recordings before 2026-11-29 11:00 drew them with Python's
    random.Random(task index).)"""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int):
        self.state = (seed ^ 0x9E3779B97F4A7C15) & self.MASK

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def randrange(self, n: int) -> int:
        return (self.next_u64() * n) >> 64


def run_task(task: dict, plan: dict, cg: Cg, files: dict, scratch: str, policies: dict, seed: int,
             traces: Optional[dict] = None) -> list:
    """Carry out one task's ops in this process; a list of step records. `traces`: the trace
    instances that count the folios the page cache gains and loses (HostRun._trace_folios)."""
    import gc

    global _ZSWAP_DEBUG_DIR, _DISKSTAT, _MTHP_SHMEM
    _ZSWAP_DEBUG_DIR = plan.get("_zswap_debug")
    _DISKSTAT = plan.get("_diskstat")
    _MTHP_SHMEM = bool(plan.get("_tmpfs"))
    job_traces, lost_seen = traces or {}, {}
    rng = EngineRng(seed)
    cgdir = cg.path(task["cgroup"])
    # Everything this process needs is allocated and touched before it joins the memcg, and the
    # garbage collector (which writes to every object, breaking copy-on-write pages) is off:
    # the memcg then holds what the ops charge, not this Python process's memory.
    buf = bytearray(1 << 20)
    buf[:] = _BUF
    # the folio scan's second buffer (memcg_folios; `buf` is its first between steps)
    flbuf = bytearray(1 << 20)
    flbuf[:] = _BUF
    scan = plan.get("record_folios", True) and os.access("/proc/kpagecgroup", os.R_OK)
    others = [t["name"] for t in plan["tasks"] if t["name"] != task["name"]]
    gc.collect()
    gc.freeze()
    gc.disable()
    _write(cg.procs(cgdir), str(os.getpid()))
    steps, snap, step_cg = [], None, cgdir
    ops = task["ops"]
    first = 0
    for i, op in enumerate(ops):
        if snap is None:
            snap, step_cg = Snap(cg, cgdir), cgdir
            step_start = time.time()
            first = i
        if i == first:
            samples = []
        try:
            if op["op"] == "mmap_probe":
                samples += mmap_probe(op["size"], op["interval_ns"], op["while_task"], scratch)
            else:
                cgdir = do_op(op, cg, cgdir, files, scratch, policies, rng, buf)
        except OSError as e:
            raise OpError(f"task {task['name']}, step {op['step']!r}: {op['op']} failed on the real kernel: {e.strerror or e}") from None
        if i + 1 < len(ops) and ops[i + 1]["step"] == op["step"]:
            continue
        end = Snap(cg, step_cg)
        metrics, res = step_metrics(cg, snap, end, files)
        disk = disk_window(snap, end)
        if not has_mlock(plan):
            metrics.pop("memcg.unevictable_bytes", None)
        if i + 1 == len(ops):
            # The task's work is over: an mmap_probe watching it stops now, not after this
            # step's folio scan (/proc/kpageflags of the whole host: 0.6-0.8 s on 24 GiB, in
            # which the probe went on with the rounds of an idle memcg).
            mark_done(scratch, task["name"])
        res, total = step_view(res, ops[first:i + 1], plan.get("report_resident_pages", "step"))
        rec = {"name": op["step"], "task": task["name"], "memcg": "/" + (task_cg_name(cg, step_cg)),
               "metrics": metrics, "resident_pages": res, "pagecache": total, "_end": time.time(), "_start": step_start,
               "_samples": samples}
        if disk:
            rec["disk"] = disk
        sw = sched_window(snap, end)
        if sw:
            # the task's own run-queue wait over the step (loopwq23: is a slow reader waiting
            # for a CPU, or for its I/O?)
            rec["sched"] = sw
        if scan:
            # only where it takes no CPU from another task's timed step (folio_scan_blocked());
            # its wall time is the gap before this task's next step (`folio_scan_s`)
            why = folio_scan_blocked(others, scratch)
            if why:
                rec["folios_skipped"] = why
            else:
                t_scan = time.monotonic()
                rec["folios"] = memcg_folios(os.stat(step_cg).st_ino, buf, flbuf)
                rec["folio_scan_s"] = round(time.monotonic() - t_scan, 4)
        if job_traces:
            rec["folio_events"] = drain_folio_events(job_traces, buf, lost_seen)
        steps.append(rec)
        snap = None
    return steps


def task_cg_name(cg: Cg, d: str) -> str:
    rel = os.path.relpath(d, cg.top)
    return "" if rel in (".", "_root") else rel


def do_op(op: dict, cg: Cg, cgdir: str, files: dict, scratch: str, policies: dict, rng, buf) -> str:
    kind = op["op"]
    if kind == "read":
        fd = os.open(files[op["file"]], os.O_RDONLY)
        try:
            adv = {"sequential": os.POSIX_FADV_SEQUENTIAL, "random": os.POSIX_FADV_RANDOM}.get(op["fadvise"])
            if adv is not None:
                os.posix_fadvise(fd, 0, 0, adv)
            size = os.fstat(fd).st_size
            start = op["offset"]
            end = size if op["length"] is None else min(size, start + op["length"])
            bs = op["bufsize"]
            mv = memoryview(buf) if bs <= len(buf) else memoryview(bytearray(bs))
            mv = mv[:bs]
            if op["pattern"] == "random":
                slots = max(1, (end - start) // bs)
                for _ in range(op["count"]):
                    n = os.preadv(fd, [mv], start + rng.randrange(slots) * bs)
                    if op["scan"]:
                        bytes(mv[:n]).find(b"data")
            else:
                pos = start
                while pos < end:
                    n = os.preadv(fd, [mv[: min(bs, end - pos)]], pos)
                    if n <= 0:
                        break
                    if op["scan"]:
                        bytes(mv[:n]).find(b"data")
                    pos += n
        finally:
            os.close(fd)
    elif kind == "write":
        path = files[op["file"]]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | (os.O_CREAT if op["create"] else 0) | (os.O_TRUNC if op.get("truncate") else 0), 0o644)
        try:
            _fill(fd, op["offset"], op["length"], op["bufsize"])
            if op["fsync"]:
                os.fsync(fd)
        finally:
            os.close(fd)
    elif kind == "fsync":
        fd = os.open(files[op["file"]], os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    elif kind == "stat":
        os.stat(files[op["file"]])
    elif kind == "fadvise":
        adv = os.POSIX_FADV_DONTNEED if op["advice"] == "dontneed" else os.POSIX_FADV_WILLNEED
        if op["directory"] and not op.get("walk") and not policies.get("fadvise_directory"):
            # every real kernel: a directory's fadvise touches only the directory's own mapping
            d = os.path.dirname(files[op["files"][0]]) if op["files"] else scratch
            fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.posix_fadvise(fd, 0, 0, adv)
            finally:
                os.close(fd)
        else:
            # a file, a user-space walk (walk = true), or the fadvise_directory policy's tree
            # walk done from user space
            for p in op["files"]:
                try:
                    fd = os.open(files[p], os.O_RDONLY)
                except FileNotFoundError:
                    continue
                try:
                    os.posix_fadvise(fd, op["offset"], op["length"] or 0, adv)
                finally:
                    os.close(fd)
    elif kind == "sleep":
        time.sleep(op["duration_ns"] / 1e9)
    elif kind == "move":
        cgdir = cg.path(op["cgroup"])
        _write(cg.procs(cgdir), str(os.getpid()))
    elif kind == "mkdir":
        d = cg.path(op["cgroup"])
        os.mkdir(d)
        parent = os.path.dirname(d)
        if cg.version == "v2" and parent != cg.top:
            # The new cgroup needs the memory controller from its parent (cgroup v2: only a
            # cgroup without processes may enable controllers for its children).
            _enable_memory(parent)
    elif kind == "rmdir":
        os.rmdir(cg.path(op["cgroup"]))
    elif kind == "exec":
        subprocess.run(["/bin/true"], check=True)
    elif kind in ("mmap", "touch", "munmap", "madvise", "msync", "mlock", "munlock"):
        _map_op(op, files, rng)
    elif kind == "mount":
        raise OpError(f"step {op['step']!r}: op `mount` ({op['fs']} at {op['path']}) is not carried out by the host runner: "
                      "mounting many file systems on the host is outside what it may touch; use --on qemu")
    else:
        raise OpError(f"step {op['step']!r}: op `{kind}` has no real-kernel equivalent here")
    return cgdir


def v2_parents(plan: dict) -> set:
    """Cgroup paths (without slashes at the ends) that are parents of another cgroup the
    scenario declares or creates: on cgroup v2 only they get `+memory` in
    cgroup.subtree_control, since a cgroup that enables controllers for its children cannot
    hold processes ("no internal processes"), and leaves must be able to take tasks."""
    paths = [c["path"] for c in plan.get("cgroups", [])]
    for t in plan.get("tasks", []):
        paths += [op["cgroup"] for op in t.get("ops", []) if op.get("op") == "mkdir"]
    out = set()
    for p in paths:
        parent = p.strip("/").rpartition("/")[0]
        if parent:
            out.add(parent)
    return out


def _enable_memory(d: str) -> None:
    try:
        _write(os.path.join(d, "cgroup.subtree_control"), "+memory")
    except OSError:
        pass


# ---------------------------------------------------------------- the host run


# The block queue's limits that bound readahead besides read_ahead_kb: a read request larger
# than ra_pages may read up to min(request, bdi->io_pages) (mm/readahead.c, 6.1's
# ondemand_readahead(), 6.18's page_cache_sync_ra()/page_cache_async_ra()), and io_pages is
# max_sectors_kb in pages (blk_queue_max_hw_sectors() in 6.1, blk_apply_bdi_limits() later).
# max_segments and max_segment_size bound a request too (a bio of scattered order-0 pages holds
# one page a segment: virtio-blk's seg_max, blk_queue_max_segments()), recorded so that a
# scenario's max_sectors_kb can be checked against what the guest's requests can hold.
QUEUE_LIMITS = ("max_sectors_kb", "max_hw_sectors_kb", "max_segments", "max_segment_size", "logical_block_size",
                "rotational", "nr_requests")


def queue_limits(qdir: str) -> dict:
    """The device's queue limits (QUEUE_LIMITS) read from its sysfs queue directory."""
    out = {}
    for k in QUEUE_LIMITS:
        try:
            out[k] = int(_read(os.path.join(qdir, k)))
        except (OSError, ValueError):
            pass
    return out


def queue_state(name: str, sysfs: str = "/sys/block") -> dict:
    """What the block device `name`'s queue has: QUEUE_LIMITS, the scheduler in use
    (`queue/scheduler`'s bracketed name) and those it offers, blk-wbt's `wbt_lat_usec` (0: off;
    absent without CONFIG_BLK_WBT), the driver's tags per hardware queue (`mq/0/nr_tags`: the
    loop driver's `hw_queue_depth`) and `read_ahead_kb` (bdi->ra_pages, which a queue limit's
    change can raise: set_queue())."""
    q = os.path.join(sysfs, name, "queue")
    out = queue_limits(q)
    try:
        words = _read(os.path.join(q, "scheduler")).split()
        out["scheduler"] = next((w.strip("[]") for w in words if w.startswith("[")), "none")
        out["schedulers"] = [w.strip("[]") for w in words]
    except OSError:
        pass
    for k, path in (("wbt_lat_usec", os.path.join(q, "wbt_lat_usec")), ("hw_queue_depth", os.path.join(sysfs, name, "mq", "0", "nr_tags")),
                    ("read_ahead_kb", os.path.join(q, "read_ahead_kb"))):
        try:
            out[k] = int(_read(path))
        except (OSError, ValueError):
            pass
    return out


# The [devices.X] keys the host runner sets on its loop device when the scenario gives them
# (plan `queue_keys_given`), in this order: the scheduler
# first (switching elevators re-enables or disables blk-wbt: `wbt_enable_default()`, BFQ turns it
# off), then blk-wbt's target latency, then the request size.
QUEUE_KEYS = ("scheduler", "wbt_lat_usec", "max_sectors_kb", "driver_depth")


def plain_disk_note(dev: dict):
    """What a recording says when the host runner throttles its loop device (HostRun._throttle:
    blk-throttle rules at read_bw/write_bw, every bio held at submit_bio_noacct() ->
    blk_throtl_bio(), so blk-wbt never holds the flusher) for a scenario device that does not say
    `blk_throttle = true` (nor has a queue of its own): the engine models that device as a plain
    disk, with blk-wbt's default and the era's scheduler, which the recording's disk is not
    (review8 M3: host-write-paced, 33.0 MiB under writeback in the engine against 134.9 recorded
    until its generator said blk_throttle). None when the device says what the runner does."""
    if not dev or dev.get("blk_throttle") or dev.get("queue_depth") or not (dev.get("read_bw") or dev.get("write_bw")):
        return None
    return (f"[devices.{dev.get('name', 'sda')}] gives read_bw/write_bw without blk_throttle = true: the loop device "
            "ran under blk-throttle at those rates, the engine models a plain disk (blk-wbt's default, the era's "
            "scheduler); add blk_throttle = true to compare the two on the same device")


def apply_queue(dev: dict, name: str, sysfs: str = "/sys/block", write=None) -> list:
    """Give the block device `name` the scenario device `dev`'s queue settings the scenario
    names (QUEUE_KEYS): `scheduler` (one the kernel offers for the device), `wbt_lat_usec`
    (integer microseconds, 0 = off), `max_sectors_kb` (from a page to the device's
    max_hw_sectors_kb); `driver_depth` is checked against the driver's tags (the loop driver's
    hw_queue_depth is fixed when the device is made). The keys set, in order; RealError naming
    the key, the value and the accepted values for one the device cannot have."""
    write = write or _write
    q = os.path.join(sysfs, name, "queue")
    given = set(dev.get("queue_keys_given") or [])
    key = lambda k: f"[devices.{dev['name']}] {k} = {dev[k]!r}"  # noqa: E731
    have = queue_state(name, sysfs)
    done = []
    for k in QUEUE_KEYS:
        if k not in given:
            continue
        v = dev[k]
        if k == "scheduler":
            offered = have.get("schedulers") or []
            if v not in offered:
                raise RealError(f"{key(k)}: this host's loop device {name} offers the schedulers {', '.join(offered) or '(none listed)'} "
                                f"(/sys/block/{name}/queue/scheduler)\n"
                                f"  fix: use one of {', '.join(offered)} for the host run" + (" (cfq went in 5.0), or use --on qemu" if v == "cfq" else ""))
            write(os.path.join(q, "scheduler"), v)
        elif k == "wbt_lat_usec":
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise RealError(f"{key(k)}: blk-wbt's target latency is an integer of microseconds, 0 to switch it off\n"
                                "  fix: write e.g. wbt_lat_usec = 2000 (2 ms), or 0")
            if "wbt_lat_usec" not in have:
                raise RealError(f"{key(k)}: this host's kernel has no /sys/block/{name}/queue/wbt_lat_usec (CONFIG_BLK_WBT off)\n"
                                "  fix: drop wbt_lat_usec for the host run, or use --on qemu")
            write(os.path.join(q, "wbt_lat_usec"), str(v))
        elif k == "max_sectors_kb":
            hw = have.get("max_hw_sectors_kb")
            if hw is not None and not 4 <= v <= hw:
                raise RealError(f"{key(k)}: this host's loop device {name} takes max_sectors_kb from 4 (a page) to its "
                                f"max_hw_sectors_kb {hw}\n  fix: give a value from 4 to {hw} for the host run")
            write(os.path.join(q, "max_sectors_kb"), str(v))
        elif k == "driver_depth":
            tags = have.get("hw_queue_depth")
            if tags is not None and tags != v:
                raise RealError(f"{key(k)}: this host's loop device {name} takes {tags} requests (the loop driver's hw_queue_depth, "
                                f"/sys/block/{name}/mq/0/nr_tags, fixed when the device is made)\n"
                                f"  fix: write driver_depth = {tags} for the host run, or drop it")
            continue
        done.append(k)
    return done


def set_queue(dev: dict, name: str, ra_kb: int, sysfs: str = "/sys/block", write=None) -> list:
    """The loop device's queue as the scenario describes it: apply_queue()'s keys, then
    `read_ahead_kb` last. Committing a queue limit (writing max_sectors_kb:
    queue_limits_commit_update() -> blk_apply_bdi_limits(), block/blk-settings.c) sets
    bdi->ra_pages to max3(ra_pages, 2 * io_opt, VM_READAHEAD_PAGES), and since 6.17's "block:
    Improve read ahead size for rotational devices" (Damien Le Moal) a rotational device without
    io_opt, as the loop device is, takes max_sectors as io_opt: read_ahead_kb 128 written before
    max_sectors_kb 1280 became 2560 (checked on this host's 6.18.44 loop device, and in
    host-queue-read-msk's trace: ra_pages 640 at max_sectors_kb 1280, 64 at 128). The keys set."""
    write = write or _write
    done = apply_queue(dev, name, sysfs, write) if dev else []
    write(os.path.join(sysfs, name, "queue", "read_ahead_kb"), str(ra_kb))
    return done


def recorded_read_ahead_kb(machine: dict):
    """The read_ahead_kb a host recording's loop device had (its `real.machine`): read back since
    set_queue() (`queue.read_ahead_kb`); before, the value written (`read_ahead_kb`), raised by
    blk_apply_bdi_limits() to twice max_sectors_kb on the rotational loop device when the runner
    wrote max_sectors_kb after it (`queue_set`, c75faf3 to 8953fa3: max3(ra, 2 * max_sectors,
    VM_READAHEAD_PAGES), 6.17+). None where the recording names none."""
    q = machine.get("queue") or {}
    if isinstance(q.get("read_ahead_kb"), int):
        return q["read_ahead_kb"]
    ra = machine.get("read_ahead_kb")
    if isinstance(ra, int) and "max_sectors_kb" in (machine.get("queue_set") or []) and q.get("rotational") == 1 \
            and isinstance(q.get("max_sectors_kb"), int):
        return max(ra, 2 * q["max_sectors_kb"], 128)
    return ra


def saved_queue(dev: dict, name: str, sysfs: str = "/sys/block") -> list:
    """[(key, value)] the block device `name`'s queue has now for each key apply_queue() will
    set (the scenario's given QUEUE_KEYS but driver_depth, which is only checked), in
    QUEUE_KEYS order, for restore_queue(): a loop device that `fresh_loop_device()` could not
    remove and make again is used as it is, and the next run must not inherit this one's queue."""
    given = set(dev.get("queue_keys_given") or [])
    have = queue_state(name, sysfs)
    return [(k, have[k]) for k in QUEUE_KEYS if k in given and k != "driver_depth" and k in have]


def restore_queue(name: str, saved: list, sysfs: str = "/sys/block", write=None) -> list:
    """Put back the queue settings saved_queue() read, the scheduler first (switching it resets
    blk-wbt, `wbt_enable_default()`), then wbt_lat_usec and max_sectors_kb; returns what could
    not be put back."""
    write = write or _write
    left = []
    for k, v in saved:
        try:
            write(os.path.join(sysfs, name, "queue", k), str(v))
        except OSError as e:
            left.append(f"queue setting /sys/block/{name}/queue/{k} = {v}: {e}")
    return left


def fs_of(plan: dict) -> tuple:
    """(type, ext4 features) of the scenario's root file system: `[machine] fs` (default ext4)
    and `[machine] fs_features` (ext4 superblock features, e.g. ["verity"])."""
    m = plan.get("machine", {})
    return m.get("fs") or "ext4", sorted(m.get("fs_features") or [])


def _umount(m: str) -> list:
    """Unmount `m` (lazily when it is busy); what could not be undone."""
    r = subprocess.run(["umount", m], capture_output=True, text=True)
    if r.returncode != 0:
        r = subprocess.run(["umount", "-l", m], capture_output=True, text=True)
        if r.returncode != 0:
            return [f"mount {m}: {r.stderr.strip()}"]
    return []


def tmpfs_mounts(plan: dict) -> list:
    """The scenario's tmpfs mounts (`[mounts.PATH] fs = "tmpfs"`), which the host runner mounts
    (HostRun._tmpfs; other mounts' files stay on its one disk, as before); RealError for a
    declared file on a tmpfs mount with a size (the runner writes declared files before the run
    and drops their cache, which tmpfs has not: declare it with size 0 and write it in a step)."""
    out = [m for m in plan.get("mounts") or [] if m["fs"] == "tmpfs"]
    for f in plan.get("files") or []:
        if on_tmpfs(f["path"], out) and f.get("size"):
            raise RealError(f"[files.\"{f['path']}\"] size = {f['size']}: a file on a tmpfs mount starts empty on the host runner\n"
                            "  fix: declare it with size = \"0\" and write it in a step ({ op = \"write\", create = true, ... })")
    return out


def on_tmpfs(path: str, mounts: list) -> bool:
    """Whether scenario path `path` lies on one of the tmpfs `mounts`."""
    return any(path.startswith(m["path"].rstrip("/") + "/") for m in mounts)


def mkfs_command(plan: dict, img: str) -> tuple:
    """(fs type, the mkfs command that formats `img` as the scenario's root file system).

    ext4 gets mkfs.ext4's default features plus the scenario's `fs_features`: ext4 since 6.16
    caches regular files in large folios unless the file system has the verity or encrypt
    feature (fs/ext4/inode.c ext4_should_enable_large_folio()), so `fs_features = ["verity"]`
    keeps the order-0 page cache the host recordings before issue 21 were taken on (no file is
    made a verity file). -b 4096: mke2fs gives a file system under 512 MiB 1 KiB blocks ("small"
    in mke2fs.conf), and ext4 then gives every page-cache page four buffer heads and four times
    the block I/O; page-sized blocks are what ext4 file systems have in use. xfs: mkfs.xfs's
    defaults (4 KiB blocks; XFS has cached files in large folios since 5.18)."""
    fs, features = fs_of(plan)
    if fs == "ext4":
        cmd = ["mkfs.ext4", "-q", "-F", "-b", "4096", "-E", "lazy_itable_init=0,lazy_journal_init=0"]
        if features:
            cmd += ["-O", ",".join(features)]
        return fs, cmd + [img]
    if fs == "xfs":
        if shutil.which("mkfs.xfs") is None:
            raise RealError("[machine] fs = \"xfs\": mkfs.xfs is not installed\n  fix: apt-get install xfsprogs")
        return fs, ["mkfs.xfs", "-q", "-f", img]
    raise RealError(f"[machine] fs = {fs!r}: the real-kernel runners format ext4 or xfs only\n"
                    "  fix: write fs = \"ext4\" or \"xfs\" for the real run")


# Seconds between spawning the task processes and the scenario's time 0 (an interpreter with
# only this module starts in about 50 ms on the lab's host; the lead leaves room for a loaded one).
START_LEAD = 0.5


class HostRun:
    """Owns the subtree, scratch directory, image, loop device and mounts of one run."""

    def __init__(self, plan: dict, scratch_parent: str = "/var/tmp"):
        if os.geteuid() != 0:
            raise RealError("memtwin real --on host must run as root: it creates memory cgroups, a loop device and a mount\n"
                            "  fix: run it with sudo, or use --recorded / --on qemu")
        self.version, self.mnt = find_memory_controller()
        # <pid>-<start time>-<hex>: `memtwin lab clean` knows from the name alone whether the
        # process that made the cgroup still runs (memtwin.leftovers)
        self.id = leftovers.run_id()
        self.plan = plan
        self.scratch_parent = scratch_parent
        self.top = os.path.join(self.mnt, f"memtwin-{self.id}")
        self.scratch = os.path.join(scratch_parent, f"memtwin-{self.id}")
        self.cg = Cg(self.version, self.mnt, self.top)
        self.loop = None
        self.mounted = []
        self.children = []
        self.made_top = False
        self.made_scratch = False
        self.notes = []
        self.traces = {}  # kind -> trace instance directory (_trace_folios)
        self.traces_why = None
        self.swapfile = None  # the swap file swapped on for the run (_swap)
        self.zswap_saved = None  # zswap parameter path -> the value to put back
        self.sysctls_saved = None
        self.tmpfs = []  # the scenario's tmpfs mounts (tmpfs_mounts, HostRun._tmpfs)
        self.tmpfs_dirs = []  # where they are mounted

    # -- setup
    def setup(self) -> dict:
        self.tmpfs = tmpfs_mounts(self.plan)
        devs = self.plan["devices"]
        if len(devs) > 1:
            raise RealError(f"the scenario declares {len(devs)} devices; the host runner gives a scenario one disk\n  fix: use one [devices.NAME]")
        # each flag before its mkdir (review52 L5): a signal right after the mkdir finds what it made
        # registered for cleanup(), which takes a missing directory for one never made
        self.made_scratch = True
        try:
            os.mkdir(self.scratch, 0o700)
        except FileExistsError:
            self.made_scratch = False  # not this run's
            raise
        # who made this run's cgroup, image, loop device and mount, should it be killed (SIGKILL)
        # before its cleanup: `memtwin lab clean` removes them once this process is gone
        leftovers.write_owner(self.scratch, "host", cgroup=self.top, image=os.path.join(self.scratch, "disk.img"),
                              mount=os.path.join(self.scratch, "mnt"))
        self.made_top = True
        try:
            os.mkdir(self.top)
        except FileExistsError:
            self.made_top = False
            raise
        if self.version == "v2":
            _enable_memory(self.top)
            os.mkdir(self.cg.path("/"))
        parents = v2_parents(self.plan)
        for c in self.plan["cgroups"]:
            d = self.cg.path(c["path"])
            os.mkdir(d)
            if self.version == "v2" and c["path"].strip("/") in parents:
                _enable_memory(d)
            self._limits(c, d)
        files = {}
        total = 0
        for f in self.plan["files"]:
            files[f["path"]] = os.path.join(self.scratch, "mnt", f["path"].lstrip("/"))
            total += f["size"]
        for t in self.plan["tasks"]:
            for op in t["ops"]:
                for p in [op.get("file")] + list(op.get("files") or []):
                    if p and p not in files:
                        files[p] = os.path.join(self.scratch, "mnt", p.lstrip("/"))
        # Room for what the write ops add, as the QEMU runner's disk has (qemu._disk).
        total += sum(op.get("length") or 0 for t in self.plan["tasks"] for op in t["ops"] if op["op"] == "write")
        ra = devs[0]["read_ahead_kb"] if devs else 128
        swap = self.plan["machine"].get("swap") or 0
        self._disk(total + swap, ra)
        self._tmpfs()
        self.files = files
        self._calibrate()
        self._populate()
        self._throttle(devs[0] if devs else None)
        self._dirty_sysctls()
        self._swap(swap)
        self._trace_folios()
        return files

    def _tmpfs(self) -> None:
        """Mount the scenario's tmpfs mounts (tmpfs21c): each at its path below the scratch
        disk's mount point (scenario path P is scratch/mnt/P, as the disk's files are), so below
        the run's own scratch directory, with the scenario's `huge=` always given (mm/shmem.c
        shmem_parse_one(): `huge=never` is the default of a mount without it) and the kernel's
        default size (half of RAM: the scenario format has no size, and the engine models no
        tmpfs block limit). Each is unmounted by cleanup() before the disk below it (and after
        a SIGKILL by `memtwin lab clean`: leftovers.find sees a mount below a memtwin scratch
        directory). The host's shmem_enabled knobs are recorded (shmem_enabled_settings())."""
        self.shmem_enabled = shmem_enabled_settings()
        if not self.tmpfs:
            return
        want = self.plan.get("shmem_enabled") or "never"
        have = self.shmem_enabled.get("shmem_enabled")
        if want in ("deny", "force") and want != have:
            # deny and force override every tmpfs mount's huge= (shmem_huge_global_enabled()):
            # the runner does not change a host-wide knob other users' tmpfs mounts obey
            raise RealError(f"[kernel] shmem_enabled = {want!r}: this host's /sys/kernel/mm/transparent_hugepage/shmem_enabled "
                            f"is {have!r}, and the host runner does not change it\n"
                            f"  fix: set it for the run yourself (echo {want} > {THP_DIR}/shmem_enabled), or use --on qemu")
        self.tmpfs_info = []
        for m in self.tmpfs:
            d = os.path.join(self.scratch, "mnt", m["path"].lstrip("/"))
            os.makedirs(d, exist_ok=True)
            opts = f"huge={m.get('huge') or 'never'}"
            r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "memtwin-tmpfs", d], capture_output=True, text=True)
            if r.returncode != 0:
                raise RealError(f"[mounts.\"{m['path']}\"] mount -t tmpfs -o {opts} failed: {r.stderr.strip()}\n"
                                "  fix: a kernel with CONFIG_TRANSPARENT_HUGEPAGE takes huge=; without it drop huge, or use --on qemu")
            self.mounted.append(d)
            self.tmpfs_dirs.append(d)
            # the options the kernel shows for it (shmem_show_options()), read back
            got = next((mo for mo in _mounts() if mo["mnt"] == d), None)
            self.tmpfs_info.append({"path": m["path"], "options": opts, "shown": got["opts"] if got else None})
        self.plan["_tmpfs"] = [m["path"] for m in self.tmpfs]
        leftovers.write_owner(self.scratch, "host", cgroup=self.top, image=os.path.join(self.scratch, "disk.img"),
                              mount=os.path.join(self.scratch, "mnt"), tmpfs=[t["path"] for t in self.tmpfs_info])

    def _calibrate(self) -> None:
        """The host's costs that time a throttled large-folio read (memtwin.hostcal: the hot read's
        ns per page by folio order, the idle loop device's 8 MiB window, a memcg reclaim call that
        frees nothing; hostcal23: the first-touch anonymous fault, clear_page and munmap per 4 KiB,
        in the runner's own process), measured on the run's scratch file system and loop device before the
        scenario's files are written and the device throttled; kept as `real.machine.host_cost`,
        which validate gives the engine as [machine] inputs (set_run_sets). Everything it makes
        is removed before it returns (or by cleanup() should it be interrupted)."""
        from memtwin import hostcal

        def tracefs() -> Optional[str]:
            d = os.path.join(self.scratch, "tracefs-hostcal")
            os.mkdir(d)
            r = subprocess.run(["mount", "-t", "tracefs", "nodev", d], capture_output=True, text=True, timeout=30)
            if r.returncode != 0:
                return None
            self.mounted.append(d)
            return d

        try:
            self.host_cost = hostcal.measure(self, os.path.join(self.scratch, "mnt"), tracefs)
        finally:
            d = os.path.join(self.scratch, "tracefs-hostcal")
            if d in self.mounted:
                r = subprocess.run(["umount", d], capture_output=True, text=True, timeout=30)
                if r.returncode == 0:
                    self.mounted.remove(d)

    def _owner(self) -> None:
        """(Re)write the owner file with everything the run has made or changed so far, for
        `memtwin lab clean` after a SIGKILL (leftovers.find)."""
        leftovers.write_owner(self.scratch, "host", cgroup=self.top, image=os.path.join(self.scratch, "disk.img"),
                              mount=os.path.join(self.scratch, "mnt"), sysctl=self.sysctls_saved or {},
                              swapfile=self.swapfile, zswap=self.zswap_saved or {})

    def _swap(self, size: int) -> None:
        """[machine] swap: a swap file of that size on the run's image (allocated, mkswap'd,
        swapped on for the run only; swapoff in cleanup(), or by `memtwin lab clean` after a
        SIGKILL, through the owner file); its memcgs' memory.swappiness (cgroup v1: the memcg's
        own, inherited at creation) set to the scenario's; [machine] zswap's parameters written
        before swapon (the old values put back after), and debugfs mounted below the scratch
        directory for /sys/kernel/debug/zswap's counters."""
        if not size:
            return
        path = os.path.join(self.scratch, "mnt", "memtwin.swap")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.posix_fallocate(fd, 0, size)  # a swap file may have no holes
            os.fsync(fd)
        finally:
            os.close(fd)
        r = subprocess.run(["mkswap", path], capture_output=True, text=True)
        if r.returncode != 0:
            raise RealError(f"mkswap of the run's swap file failed: {r.stderr.strip()[-300:]}\n  fix: install util-linux (mkswap)")
        z = self.plan["machine"].get("zswap")
        if z and z.get("enabled"):
            want = {"compressor": z.get("compressor", "lzo"), "max_pool_percent": z["max_pool_percent"],
                    "accept_threshold_percent": z["accept_threshold_percent"], "shrinker_enabled": False, "enabled": True}
            saved = {}
            for k in HOST_ZSWAP_PARAMS:
                f = os.path.join(ZSWAP_DIR, k)
                if os.path.exists(f):
                    saved[f] = _read(f).strip()
            self.zswap_saved = saved
            self._owner()
            for k in HOST_ZSWAP_PARAMS:
                f = os.path.join(ZSWAP_DIR, k)
                if not os.path.exists(f):
                    continue
                v = want[k]
                _write(f, ("Y" if v else "N") if isinstance(v, bool) else str(v))
            self.notes.append("zswap for the run: " + ", ".join(f"{k}={_read(os.path.join(ZSWAP_DIR, k)).strip()}"
                                                                for k in HOST_ZSWAP_PARAMS if os.path.exists(os.path.join(ZSWAP_DIR, k)))
                              + " (put back after it)")
            dbg = os.path.join(self.scratch, "debugfs")
            os.mkdir(dbg)
            r = subprocess.run(["mount", "-t", "debugfs", "none", dbg], capture_output=True, text=True)
            if r.returncode != 0:
                raise RealError(f"mount -t debugfs failed: {r.stderr.strip()}\n  fix: drop [machine] zswap for the host run")
            self.mounted.append(dbg)
            self.plan["_zswap_debug"] = os.path.join(dbg, "zswap")
        if not self.plan["machine"].get("swap_file"):
            self.notes.append("the host's swap area is a swap file on the run's image, where the scenario models a block device "
                              "([machine] swap_file = false): 6.12+ kernels swap a large tmpfs folio whole only to a block device "
                              "(set swap_file = true in [machine] to model this run's area)")
        self.swapfile = path
        self._owner()
        r = subprocess.run(["swapon", path], capture_output=True, text=True)
        if r.returncode != 0:
            self.swapfile = None
            raise RealError(f"swapon of the run's swap file failed: {r.stderr.strip()[-300:]}\n"
                            "  fix: check that the kernel has CONFIG_SWAP and the scratch file system takes swap files, or use --on qemu")
        if self.version == "v1":
            for c in [{"path": "/"}] + list(self.plan["cgroups"]):
                v = c.get("swappiness")
                _write(os.path.join(self.cg.path(c["path"]), "memory.swappiness"), str(int(self.plan.get("swappiness", 60) if v is None else v)))
        try:
            rot = _read(f"/sys/block/{os.path.basename(self.loop)}/queue/rotational").strip()
        except OSError:
            rot = "?"
        self.swap_info = (" ".join(_read("/proc/swaps").splitlines()[1].split()) + f" rotational: {rot} page-cluster: "
                          + _read("/proc/sys/vm/page-cluster").strip() + " vma_ra: "
                          + (_read("/sys/kernel/mm/swap/vma_ra_enabled").strip() if os.path.exists("/sys/kernel/mm/swap/vma_ra_enabled") else "?")
                          + " zswap: " + (_read(os.path.join(ZSWAP_DIR, "enabled")).strip() if os.path.isdir(ZSWAP_DIR) else "none"))

    def _swapoff(self) -> list:
        """swapoff the run's swap file and put zswap's parameters back; what could not be undone."""
        left = []
        if self.swapfile:
            r = subprocess.run(["swapoff", self.swapfile], capture_output=True, text=True)
            if r.returncode != 0:
                left.append(f"swap file {self.swapfile}: swapoff failed: {r.stderr.strip()}")
            self.swapfile = None
        if self.zswap_saved:
            left += leftovers.restore_zswap(self.zswap_saved)
            self.zswap_saved = None
        return left

    def _dirty_sysctls(self) -> None:
        """Set vm.dirty_bytes / vm.dirty_background_bytes to the scenario's kernel.dirty_bytes /
        dirty_background_bytes for the run (cleanup, or `memtwin lab clean` after a SIGKILL,
        through the owner file, puts the old settings back). Writing a bytes setting zeroes its
        ratio twin and the reverse, so the old state is put back by writing the one in use."""
        want = {"dirty_bytes": self.plan.get("dirty_bytes") or 0, "dirty_background_bytes": self.plan.get("dirty_background_bytes") or 0}
        if not any(want.values()):
            return
        saved = {}
        for key, ratio in (("dirty_bytes", "dirty_ratio"), ("dirty_background_bytes", "dirty_background_ratio")):
            if want[key]:
                old_bytes = int(_read(f"/proc/sys/vm/{key}").strip())
                old_ratio = int(_read(f"/proc/sys/vm/{ratio}").strip())
                if old_bytes:
                    saved[f"/proc/sys/vm/{key}"] = old_bytes
                else:
                    saved[f"/proc/sys/vm/{ratio}"] = old_ratio
        self.sysctls_saved = saved
        self._owner()
        for key, v in want.items():
            if v:
                _write(f"/proc/sys/vm/{key}", str(int(v)))
        self.notes.append("vm sysctls for the run: " + ", ".join(f"vm.{k} = {int(v)}" for k, v in want.items() if v) + " (put back after it)")

    def _throttle(self, dev) -> None:
        """Throttle the loop device to the scenario's device bandwidth, as the QEMU lab's
        virtio disk is (a disk image on an unthrottled loop device runs at the host disk's
        speed, so wall-clock figures such as PSI stall time could not be compared). On a v1
        host, the root blkio cgroup's blkio.throttle.{read,write}_bps_device applies to every
        bio for the device, the flusher's writeback included (blk-throttle at submit_bio()).
        Set after the files are written, so setting up stays fast; removed in cleanup()."""
        self.throttled = None
        rules = {"read": dev and dev.get("read_bw"), "write": dev and dev.get("write_bw")}
        base = "/sys/fs/cgroup/blkio"
        if dev and dev.get("queue_depth") and not dev.get("blk_throttle"):
            # [devices] queue_depth without blk_throttle: read_bw/write_bw are the disk's own
            # bandwidth (what `memtwin calibrate --queue` measured on this unthrottled loop
            # device), not rules to impose on it.
            self.disk_throttle = "unthrottled (the scenario's device has its own queue, queue_depth, and no blk_throttle: its bandwidths are the disk's)"
            return
        if not any(rules.values()):
            self.disk_throttle = "unthrottled (the scenario gives no bandwidth)"
            return
        if not os.path.exists(os.path.join(base, "blkio.throttle.read_bps_device")):
            self.disk_throttle = "unthrottled (no cgroup v1 blkio controller at /sys/fs/cgroup/blkio)"
            self.notes.append("the loop device is not throttled to the scenario's bandwidth: wall-clock figures (elapsed, PSI) are the host disk's")
            return
        with open(f"/sys/block/{os.path.basename(self.loop)}/dev") as f:
            majmin = f.read().strip()
        self.throttled = majmin
        for kind, bps in rules.items():
            if bps:
                _write(os.path.join(base, f"blkio.throttle.{kind}_bps_device"), f"{majmin} {int(bps)}")
        self.disk_throttle = "throttled to " + ", ".join(f"{k} {int(v)} B/s" for k, v in rules.items() if v) + \
            " (blkio.throttle of the root blkio cgroup)"
        note = plain_disk_note(dev)
        if note:
            self.notes.append(note)

    def _trace_folios(self) -> None:
        """Count the folios the page cache of the scratch file system gains and loses, by order
        (FOLIO_EVENTS): one trace instance `memtwin-<id>-<kind>` per event, filtered on the loop
        device, drained by the tasks at each step's end (drain_folio_events); removed in
        cleanup() (and by `memtwin lab clean` after a SIGKILL: leftovers.find). The run mounts
        tracefs in its scratch directory (the one tracefs of the kernel, seen there too), so that
        whoever mounts or unmounts /sys/kernel/tracing meanwhile does not take it away."""
        self.traces_why = folio_events_supported() if self.plan.get("record_folios", True) else "not asked for"
        if self.traces_why:
            return
        tracefs = os.path.join(self.scratch, "tracefs")
        os.mkdir(tracefs)
        r = subprocess.run(["mount", "-t", "tracefs", "nodev", tracefs], capture_output=True, text=True)
        if r.returncode != 0:
            self.traces_why = f"mount -t tracefs failed: {r.stderr.strip()}"
            return
        self.mounted.append(tracefs)
        self.traces_why = folio_events_supported(tracefs)
        if self.traces_why:
            return
        with open(f"/sys/block/{os.path.basename(self.loop)}/dev") as f:
            major, minor = (int(x) for x in f.read().split(":"))
        s_dev = (major << 20) | minor  # the kernel's dev_t (MKDEV), as the tracepoint records it
        for kind, event in FOLIO_EVENTS.items():
            d = os.path.join(tracefs, "instances", f"memtwin-{self.id}-{kind}")
            self.traces[kind] = d  # before the mkdir (review52 L5); _untrace() takes a missing one for gone
            try:
                os.mkdir(d)
            except OSError:
                # not made, or already there (EEXIST: another's, review54 L1): not _untrace()'s to remove
                self.traces.pop(kind, None)
                raise
            _write(os.path.join(d, "buffer_size_kb"), "8192")
            ev = os.path.join(d, "events", "filemap", event)
            _write(os.path.join(ev, "filter"), f"s_dev == {s_dev}")
            _write(os.path.join(ev, "enable"), "1")

    def _untrace(self) -> list:
        left = []
        for kind, d in list(self.traces.items()):
            why = leftovers.remove_trace_instance(d)
            if why:
                left.append(why)
            del self.traces[kind]
        return left

    def _unthrottle(self) -> list:
        """Remove the loop device's blkio throttle rules (leftovers.unthrottle_loop, which
        `memtwin lab clean` uses too); what could not be removed."""
        left = []
        if getattr(self, "throttled", None):
            left = leftovers.unthrottle_loop(self.loop)
            self.throttled = None
        return left

    def _limits(self, c: dict, d: str) -> None:
        if self.version == "v1":
            for k in ("high", "low", "min"):
                if c[k]:
                    raise RealError(f"[cgroups.{c['path']}] sets memory.{k}, which cgroup v1 (this host's memory controller) does not have\n"
                                    "  fix: drop it for the host run, or use --on qemu (cgroup v2)")
            if c["max"] is not None:
                _write(os.path.join(d, "memory.limit_in_bytes"), str(c["max"]))
        else:
            for k, fname in (("max", "memory.max"), ("high", "memory.high")):
                if c[k] is not None:
                    _write(os.path.join(d, fname), str(c[k]))
            for k, fname in (("low", "memory.low"), ("min", "memory.min")):
                if c[k]:
                    _write(os.path.join(d, fname), str(c[k]))

    def _disk(self, total: int, ra_kb: int) -> None:
        img = os.path.join(self.scratch, "disk.img")
        size = int(total * 2.2) + (256 << 20)
        if fs_of(self.plan)[0] == "xfs":
            size = max(size, 512 << 20)  # mkfs.xfs (xfsprogs 5.19+) refuses a file system under 300 MiB
        from memtwin import hostcal
        # the image is sparse: the files, and the calibration's at most SCRATCH_BYTES at once (review12 L2)
        need = int(total * 1.2) + (64 << 20) + hostcal.SCRATCH_BYTES
        free = shutil.disk_usage(self.scratch_parent).free
        if need > free:
            raise RealError(f"the scenario's files need about {need >> 20} MiB in {self.scratch_parent}, which has {free >> 20} MiB free\n"
                            "  fix: free space or pass --scratch DIR on a larger file system")
        with open(img, "wb") as f:
            f.truncate(size)
        fs, mkfs = mkfs_command(self.plan, img)
        r = subprocess.run(mkfs, capture_output=True, text=True)
        if r.returncode != 0:
            raise RealError(f"{' '.join(mkfs[:-1])} failed on the scratch image: {r.stderr.strip()[-400:]}\n"
                            "  fix: " + ("install xfsprogs (apt-get install xfsprogs)" if fs == "xfs"
                                         else "install a newer e2fsprogs (1.45+ knows -O verity)"))
        self.fs = fs
        self.mkfs = " ".join(mkfs[:-1])
        dev, self.loop_new = fresh_loop_device()
        out = subprocess.run(["losetup", "--show", "--direct-io=on", dev or "--find", img], capture_output=True, text=True)
        if out.returncode != 0 and dev is not None:
            # Another process took the device between its making and losetup (EBUSY), or its
            # node never appeared: let losetup find a free one, as without /dev/loop-control.
            dev, self.loop_new = None, False
            out = subprocess.run(["losetup", "--show", "--direct-io=on", "--find", img], capture_output=True, text=True)
        if out.returncode != 0:
            raise RealError(f"losetup of the scratch image failed: {out.stderr.strip()}\n"
                            "  fix: free a loop device (losetup -D detaches unused ones; `memtwin lab clean` removes a run's), or modprobe loop")
        self.loop = out.stdout.strip()
        name = os.path.basename(self.loop)
        devs = self.plan["devices"]
        self.queue_saved = (name, saved_queue(devs[0], name)) if devs else None
        # the queue keys, then read_ahead_kb (which a queue limit's change raises: set_queue)
        self.queue_set = set_queue(devs[0] if devs else None, name, ra_kb)
        # what the queue really has, read back after setting it (queue_state)
        self.queue = queue_state(name)
        self.plan["_diskstat"] = f"/sys/block/{name}/stat"
        mnt = os.path.join(self.scratch, "mnt")
        os.mkdir(mnt)
        r = subprocess.run(["mount", "-t", fs, self.loop, mnt], capture_output=True, text=True)
        if r.returncode != 0:
            raise RealError(f"mount -t {fs} of the scratch image failed: {r.stderr.strip()}\n"
                            f"  fix: load the {fs} module (modprobe {fs}), or use --on qemu")
        self.mounted.append(mnt)
        self.read_ahead_kb = ra_kb

    def _populate(self) -> None:
        """Write every declared file (outside the scenario's memcgs), then drop its page cache."""
        for f in self.plan["files"]:
            if f.get("created") or on_tmpfs(f["path"], self.tmpfs):
                # a write op (or cp) creates it: made here, the op's O_TRUNC would truncate an
                # existing file, after which ext4 writes it back on close (auto_da_alloc); a
                # file on a tmpfs mount is declared empty (tmpfs_mounts) and written by the tasks
                continue
            p = self.files[f["path"]]
            os.makedirs(os.path.dirname(p), exist_ok=True)
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, f["mode"] or 0o644)
            try:
                _fill(fd, 0, f["size"], 1 << 20)
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
            if f["uid"]:
                os.chown(p, f["uid"], -1)
        os.sync()
        disk_files = {k: v for k, v in self.files.items() if not on_tmpfs(k, self.tmpfs)}
        left = resident(disk_files)
        for spath in left:
            fd = os.open(self.files[spath], os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        left = resident(disk_files)
        if left:
            raise RealError(f"could not start cold: {sum(left.values())} pages of the scenario's files stay resident after fadvise(DONTNEED)")

    # -- run
    def run(self) -> list:
        # the tasks' random numbers: the engine's generator from the scenario's seed, + n for
        # task n (the engine's tasks share one generator, which separate processes cannot follow)
        seed = self.plan.get("seed", 0)
        pipes = []
        # A common start line: every task's interpreter is up before the scenario's time 0
        # (START_LEAD), so tasks that start together in the scenario start together here; a
        # probe watching a writer (mmap_probe) then sees all of it.
        t0 = time.monotonic() + START_LEAD
        t0_wall = time.time() + (t0 - time.monotonic())  # the start line on the steps' clock (their `at_s`)
        for n, t in enumerate(self.plan["tasks"]):
            # Each task runs in a fresh interpreter that loads only this module and the standard
            # library, and allocates and touches what it needs before it joins its memcg. A
            # child forked from this process instead charged the memcg for the page tables and
            # copy-on-write pages of everything it touched of its parent (about 1.7 MB of kmem
            # and 0.8 MB of anon in a 64 MB memcg, measured 2026-11-22): room a real `cp` or
            # `grep` does not take, and the page cache then lost to it changed what was re-read.
            job = json.dumps({"task": t, "plan": self.plan, "parent": os.getpid(), "cg": [self.cg.version, self.cg.mnt, self.cg.top],
                              "files": self.files, "scratch": self.scratch, "seed": seed + n, "traces": self.traces,
                              "start_at": t0 + t["start_ns"] / 1e9})
            # registered for cleanup() before a signal can act (the task unholds them: task_main)
            with signals_held():
                child = subprocess.Popen([sys.executable, "-S", "-c", _TASK_MAIN, os.path.dirname(os.path.abspath(__file__))],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                self.children.append(child.pid)
            child.stdin.write(job.encode())
            child.stdin.close()
            child.stdin = None  # sent whole; communicate() below only reads
            pipes.append((t["name"], child))
        # the loop device's read requests over the tasks' run (hostcal's device window), traced
        # from here (the tasks start at t0, START_LEAD on) to their end; not in the tasks' `traces`
        from memtwin import hostcal
        try:
            dev_trace, dev_why = hostcal.device_trace_start(self), None
        except (OSError, ValueError) as e:
            dev_trace, dev_why = None, str(e)
        # the tasks' own memcg reclaims over the run (reclaim21: their failing reclaims' per-call
        # costs beside the calibration's), M13's light trace by default; MEMTWIN_RECLAIM_TRACE=off
        # (or MEMTWIN_NO_RECLAIM_TRACE=1) none, =full with the isolate events (their cost inside)
        rc_pids = [child.pid for _, child in pipes]
        rc_trace, rc_why = None, None
        rc_mode = os.environ.get("MEMTWIN_RECLAIM_TRACE", "light")
        if os.environ.get("MEMTWIN_NO_RECLAIM_TRACE") == "1":
            rc_mode = "off"
        rc_calls = (getattr(self, "host_cost", None) or {}).get("isolate_calls_median")
        if rc_mode not in ("light", "full", "off"):
            rc_why = f"MEMTWIN_RECLAIM_TRACE={rc_mode!r} is none of light, full, off"
        elif rc_mode == "off":
            rc_why = "not traced (MEMTWIN_RECLAIM_TRACE=off)"
        elif rc_mode == "light" and not rc_calls:
            rc_why = ("no isolate-call count from the calibration (reclaim_call_ns unavailable: "
                      + str(((getattr(self, "host_cost", None) or {}).get("unavailable") or {}).get("reclaim_call_ns", "not measured"))[:160]
                      + "): the light trace has no span")
        else:
            try:
                rc_trace = hostcal.reclaim_trace_start(self, rc_pids, isolate=rc_mode == "full")
            except (OSError, ValueError) as e:
                rc_why = str(e)
        # Every task's output is read on a thread of its own, so that the moment a task's
        # process ends, whatever ended it, an `mmap_probe` watching it is told (mark_done).
        import threading

        outs = {}

        def collect(name, child):
            outs[name] = child.communicate()
            mark_done(self.scratch, name)

        loop_name = os.path.basename(self.loop or "")
        waits_a = kthread_waits()
        # the machine's other runnable tasks, sampled while the tasks run (runnable_sample):
        # the background a woken task waits beside for a CPU
        # (sampler_main(): a process in a session, so an autogroup, of its own, so that its CPU
        # is not taken from the runner's autogroup, which the tasks share). Started, and its pid
        # registered for cleanup(), under signals_held() (review54 L5), so before the collecting
        # threads start: the hold is the calling thread's, and the kernel gives a signal to a
        # thread that does not hold it. Safe to start first: its samples are sorted into the steps'
        # windows by time (background_window()), and the tasks, started for the start line
        # START_LEAD on, write their output at their end into a pipe the thread then reads.
        pids = [child.pid for _, child in pipes]
        ag_on = sched_autogroup_enabled()
        own = autogroup_of(os.getpid()) if ag_on else None
        with signals_held():
            sampler = subprocess.Popen([sys.executable, "-S", "-c", _SAMPLER_MAIN, os.path.dirname(os.path.abspath(__file__))],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            self.children.append(sampler.pid)
        sampler.stdin.write((json.dumps({"pids": pids, "loop": loop_name, "own": own, "autogroup": ag_on, "parent": os.getpid()}) + "\n").encode())
        sampler.stdin.flush()
        threads = [threading.Thread(target=collect, args=p, daemon=True) for p in pipes]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if dev_trace is not None:
            try:
                dev = hostcal.device_trace_finish(self, dev_trace)
            except (OSError, ValueError) as e:
                dev, dev_why = None, str(e)
        if rc_trace is not None:
            try:
                rc = hostcal.reclaim_trace_finish(self, rc_trace, rc_pids, rc_calls if rc_mode == "light" else None)
            except (OSError, ValueError) as e:
                rc, rc_why = None, str(e)
        if getattr(self, "host_cost", None) is not None:
            if rc_why is None:
                self.host_cost.update(rc)
                self.host_cost["scenario_reclaim_source"] = hostcal.SCENARIO_RECLAIM_SOURCE if rc_mode == "light" else hostcal.SCENARIO_RECLAIM_SOURCE_FULL
            else:
                self.host_cost.setdefault("unavailable", {})["scenario_reclaim_call_spans_ns"] = rc_why
            if dev_why is None:
                self.host_cost.update(dev)
                self.host_cost["device_window_source"] = hostcal.DEVICE_WINDOW_SOURCE
            else:
                self.host_cost.setdefault("unavailable", {})["device_window_ns"] = dev_why
        try:
            sout, serr = sampler.communicate(timeout=60)  # closes its stdin: it stops
            got = json.loads(sout)
        except (subprocess.TimeoutExpired, ValueError) as e:
            sampler.kill()
            sampler.wait()
            got = {"samples": [], "cpu_s": None, "autogroup": None, "error": str(e)[:200]}
        self.children.remove(sampler.pid)
        runq_samples = [(t, n) for t, n in got["samples"]]
        self.runq_sampler = {"samples": len(runq_samples), "cpu_s": got["cpu_s"], "interval_s": RUNQ_SAMPLE_S,
                             "sched_autogroup_enabled": ag_on, "autogroup": list(own) if own else None,
                             "sampler_autogroup": got["autogroup"], **({"error": got["error"]} if "error" in got else {})}
        # the loop device's worker and completion threads' run-queue waits over the tasks' run
        self.kthread_waits = loop_worker_waits(waits_a, kthread_waits(), loop_name)
        steps, errors = [], []
        for name, child in pipes:
            data, err = outs[name]
            self.children.remove(child.pid)
            try:
                res = json.loads(data)
            except ValueError:
                why = err.decode(errors="replace").strip().splitlines()
                task = next(t for t in self.plan["tasks"] if t["name"] == name)
                oom = oom_killed_why(self.cg, task.get("cgroup"), child.returncode)
                errors.append(f"task {name} ended without reporting (exit status {child.returncode}"
                              + (f": {why[-1]}" if why else f", {oom}" if oom else ", killed?") + ")")
                continue
            if "error" in res:
                errors.append(res["error"])
            else:
                steps.extend(res["steps"])
        if errors:
            raise RealError("; ".join(errors))
        steps.sort(key=lambda s: s["_end"])
        from memtwin._memtwin import latency_metrics

        for s in steps:
            samples = s.pop("_samples")
            # the probe's rounds as the engine reports them (metrics::mmtests_latency); a
            # step without rounds reports zeros, as the engine's do
            s["metrics"].update(latency_metrics(samples))
            if samples:
                s["latency_samples_ms"] = [n / 1e6 for n in samples]
            bg = background_window(runq_samples, s["_start"], s["_end"], os.cpu_count() or 1)
            if bg and "sched" in s:
                s["sched"].update(bg)
            # when the step ran, from the run's start line (hog23b: the gaps between a task's steps, the
            # other tasks' steps beside it, and the runner's work between them can be read off)
            s["at_s"] = [round(s["_start"] - t0_wall, 4), round(s["_end"] - t0_wall, 4)]
            del s["_end"], s["_start"]
        return steps

    # -- cleanup
    def cleanup(self) -> list:
        """Remove everything this run made; return what could not be removed."""
        left = []
        for pid in list(self.children):
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
            self.children.remove(pid)
        left += self._untrace()  # the trace instances, while their tracefs is still mounted
        # the tmpfs mounts before swapoff: their files' swapped-out pages are freed with them,
        # where swapoff would read them back in and charge them to the run's memcg (a tmpfs file
        # larger than its memcg's limit: swapoff fails with ENOMEM, tmpfs21c 2026-12-01); an
        # unregistered one too (its mount(8) interrupted, or a signal before its registration:
        # found below the scratch directory as the loop below finds the others, review54 L5)
        for m in reversed(self.tmpfs_dirs):
            left += _umount(m)
            self.mounted.remove(m)
        self.tmpfs_dirs = []
        for m in sorted(self._unregistered_mounts("tmpfs"), key=lambda m: -m.count("/")):
            left += _umount(m)
        left += self._swapoff()  # before the image holding the swap file is unmounted
        for m in sorted(reversed(self.mounted + self._unregistered_mounts()), key=lambda m: -m.count("/")):
            r = subprocess.run(["umount", m], capture_output=True, text=True)
            if r.returncode != 0:
                r = subprocess.run(["umount", "-l", m], capture_output=True, text=True)
                if r.returncode != 0:
                    left.append(f"mount {m}: {r.stderr.strip()}")
        self.mounted = []
        left += self._unthrottle()
        if getattr(self, "sysctls_saved", None):
            left += leftovers.restore_sysctls(self.sysctls_saved)
            self.sysctls_saved = None
        if getattr(self, "queue_saved", None):
            left += restore_queue(*self.queue_saved)
            self.queue_saved = None
        for loop in ([self.loop] if self.loop else self._unregistered_loops()):
            r = subprocess.run(["losetup", "-d", loop], capture_output=True, text=True)
            if r.returncode != 0:
                left.append(f"loop device {loop}: {r.stderr.strip()}")
            self.loop = None
        if self.made_scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
            if os.path.exists(self.scratch):
                left.append(f"scratch directory {self.scratch}")
            self.made_scratch = False
        if self.made_top:
            # deepest first; a cgroup with tasks cannot go, so wait a moment for killed children
            why = leftovers.rmdir_cgroup_tree(self.top)
            if why:
                left.append(f"cgroup {why}")
            self.made_top = False
        return left

    def _unregistered_mounts(self, fstype: Optional[str] = None) -> list:
        """Mounts below the run's scratch directory that are not in `self.mounted` (of file
        system `fstype` only, when given): made by a mount(8) a signal interrupted
        (subprocess.run() kills it, and the mount may stand), or before the line that registers
        it (review52 L5). Read from /proc/self/mountinfo as `memtwin lab clean` reads it
        (leftovers._mountinfo)."""
        if not self.made_scratch:
            return []
        prefixes = tuple({d.rstrip("/") + "/" for d in (self.scratch, os.path.realpath(self.scratch))})
        return [m for m, fs, _ in leftovers._mountinfo()
                if m.startswith(prefixes) and m not in self.mounted and (fstype is None or fs == fstype)]

    def _unregistered_loops(self) -> list:
        """Loop devices backed by the run's image while `self.loop` is unset: attached by a losetup
        a signal interrupted, or before `self.loop` was set (review52 L5); found by their backing
        file, as `memtwin lab clean` finds them (leftovers._loops)."""
        if not self.made_scratch:
            return []
        img = os.path.join(self.scratch, "disk.img")
        return [dev for dev, bf in leftovers._loops() if bf in (img, os.path.realpath(img))]

    def info(self) -> dict:
        u = platform.uname()
        return {
            "on": "host", "kernel": u.release,
            "machine": {"cpus": os.cpu_count(), "ram_kB": _meminfo().get("MemTotal"), "cgroup": f"{self.version} at {self.mnt}",
                        "disk": f"{self.fs} image on {self.loop} ({'a new ' if getattr(self, 'loop_new', False) else ''}loop, direct I/O) in {self.scratch_parent}, {getattr(self, 'disk_throttle', 'unthrottled')}",
                        "fs": self.fs, "mkfs": self.mkfs,
                        # the host's shmem huge-page knobs (top-level and per size) and the run's
                        # tmpfs mounts with their options as the kernel shows them (HostRun._tmpfs)
                        **({"shmem_enabled": self.shmem_enabled} if getattr(self, "shmem_enabled", None) else {}),
                        **({"tmpfs": self.tmpfs_info} if getattr(self, "tmpfs_info", None) else {}),
                        "read_ahead_kb": self.read_ahead_kb, "queue": getattr(self, "queue", {}),
                        # the queue keys the runner set from the scenario (the rest are the loop driver's)
                        "queue_set": getattr(self, "queue_set", []), "arch": u.machine,
                        # the run-queue waits of the loop device's kworkers, the unbound pool's and
                        # ksoftirqd over the tasks' run (loop_worker_waits()): what the engine's
                        # [devices.X] worker_wakeup_latency is taken from (make_queue_scenarios.py)
                        **({"kthread_waits": self.kthread_waits} if getattr(self, "kthread_waits", None) else {}),
                        # the run-queue sampler (runnable_sample): its samples, CPU time, sleep
                        # between samples, /proc/sys/kernel/sched_autogroup_enabled and the
                        # runner's own autogroup [id, nice] (None: the default, root-level)
                        **({"runq_sampler": self.runq_sampler} if getattr(self, "runq_sampler", None) else {}),
                        # the host's costs measured before the run (memtwin.hostcal, HostRun._calibrate)
                        **({"host_cost": self.host_cost} if getattr(self, "host_cost", None) else {})},
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "timing_comparable": False,
            # the machine's load when the run ended (/proc/loadavg: 1, 5, 15 min): the tasks
            # share the CPUs with whatever else runs, which wall-clock figures carry
            "loadavg": _loadavg(),
            # the scheduling policy the runner ran under, which its task processes inherit: under
            # `chrt -f 50` a task does not wait for a CPU behind the host's other processes (the
            # loop device's worker and the kernel's other workers still do)
            "sched": _sched(),
            "read_bytes_source": "/proc/self/io read_bytes of each task process (summed per step over the ops it ran)",
            **({"folios_source": FOLIOS_SOURCE + HOST_FOLIOS_WHEN} if self.plan.get("record_folios", True) and os.access("/proc/kpagecgroup", os.R_OK) else {}),
            **({"folio_events_source": FOLIO_EVENTS_SOURCE} if not self.traces_why else {"folio_events_unavailable": self.traces_why}),
            **({"swap": self.swap_info} if getattr(self, "swap_info", None) else {}),
            "notes": self.notes,
            "unavailable": ["pagecache_hit_pages", "pagecache_miss_pages"] + (["cgroup.nr_descendants", "cgroup.nr_dying_descendants"] if self.version == "v1" else []),
        }


def _nice() -> Optional[int]:
    """The calling thread's nice value (getpriority(2) PRIO_PROCESS of 0: on Linux the calling
    thread), or None where it cannot be read."""
    try:
        return os.getpriority(os.PRIO_PROCESS, 0)
    except (OSError, AttributeError):
        return None


def _sched() -> dict:
    """This process's scheduling policy, priority and nice value (sched_getscheduler(2),
    sched_getparam(2), getpriority(2)): the host headers' "the runner at nice -10" is read here."""
    names = {getattr(os, n): n for n in ("SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE", "SCHED_FIFO", "SCHED_RR") if hasattr(os, n)}
    pol = os.sched_getscheduler(0)
    out = {"policy": names.get(pol, str(pol)), "priority": os.sched_getparam(0).sched_priority}
    nice = _nice()
    if nice is not None:
        out["nice"] = nice
    return out


def sched_autogroup_enabled(path: str = "/proc/sys/kernel/sched_autogroup_enabled") -> Optional[int]:
    """/proc/sys/kernel/sched_autogroup_enabled (kernel/sched/autogroup.c, 1 by default with
    CONFIG_SCHED_AUTOGROUP): 1 when CFS shares the CPUs between sessions' autogroups at the
    root, 0 when between tasks; None without the file (no CONFIG_SCHED_AUTOGROUP: tasks)."""
    try:
        return int(_read(path).strip())
    except (OSError, ValueError):
        return None


def _loadavg() -> Optional[list]:
    try:
        return [float(x) for x in _read("/proc/loadavg").split()[:3]]
    except (OSError, ValueError):
        return None


def _notes(plan: dict, host_v: Optional[str] = None) -> list:
    notes = []
    dir_fadvise = any(op["op"] == "fadvise" and op["directory"] and not op.get("walk") for t in plan["tasks"] for op in t["ops"])
    if dir_fadvise and plan["policies"].get("fadvise_directory"):
        notes.append("fadvise(DONTNEED) on a directory under the fadvise_directory policy (seed 004, in no kernel) was carried out "
                     "by its user-space equivalent: posix_fadvise(DONTNEED) on every file below it (the `memtwin evict` walk); "
                     "the two drop the same clean pages, but the per-file call also starts writeback of dirty ones, which the "
                     "patch's walk did not")
    elif dir_fadvise:
        notes.append("fadvise on a directory: the real kernel's own call on the directory fd (it drops nothing below it)")
    if host_v and host_v != plan["cgroup"]:
        notes.append(f"the scenario's cgroup {plan['cgroup']} limits were applied through this host's cgroup {host_v} files")
    if any(op["op"] == "exec" for t in plan["tasks"] for op in t["ops"]):
        notes.append("exec ops run /bin/true")
    return notes


UNSUPPORTED_POLICIES = {
    "recharge_on_pagecache_get": "recharging page cache on lookup (seed 000) is in no kernel",
    "memcg_percpu_release_on_offline": "releasing a dying memcg's percpu stats at offline (seed 003) is in no kernel",
}


# Ops only the host runner carries out (the guest program does not have them yet).
HOST_ONLY_OPS = ("mmap_probe",)


# zswap's parameters (/sys/module/zswap/parameters) a host run sets for [machine] zswap, in
# this order ("enabled" last: the others first, as the QEMU guest writes them before swapon).
ZSWAP_DIR = "/sys/module/zswap/parameters"
HOST_ZSWAP_PARAMS = ("compressor", "max_pool_percent", "accept_threshold_percent", "shrinker_enabled", "enabled")
ZSWAP_DEBUG = ("pool_limit_hit", "written_back_pages", "reject_reclaim_fail", "reject_compress_poor", "reject_compress_fail",
               "reject_alloc_fail", "reject_kmemcache_fail", "stored_pages", "same_filled_pages", "pool_total_size")


def host_swap_check(plan: dict, swaps: str = "/proc/swaps", zdir: str = ZSWAP_DIR) -> None:
    """Refuse, before anything is made, a [machine] swap the host cannot give the run alone: a
    host that swaps already (its pages and the run's would share the counters), too small a
    size for mkswap, zswap asked of a kernel without it, or a zswap parameter this kernel does
    not have set to anything but what the kernel does anyway."""
    mach = plan["machine"]
    if not mach.get("swap"):
        if any(c.get("memsw_max") is not None or c.get("swap_max") is not None for c in plan["cgroups"]):
            raise RealError("a cgroup limits swap (memory.memsw.limit_in_bytes / memory.swap.max) but the machine has no swap\n"
                            "  fix: give the machine [machine] swap = SIZE, or drop the swap limit")
        return
    if mach["swap"] < (40 << 10):
        raise RealError(f"[machine] swap = {mach['swap']} bytes: mkswap needs at least 10 pages (40 KiB)\n"
                        "  fix: give the machine swap = \"64M\" or more, or no swap")
    try:
        active = [ln.split()[0] for ln in _read(swaps).splitlines()[1:] if ln.strip()]
    except OSError:
        raise RealError(f"[machine] swap: cannot read {swaps} (a kernel without CONFIG_SWAP?)\n"
                        "  fix: drop [machine] swap for the host run, or use --on qemu") from None
    if active:
        raise RealError(f"[machine] swap: this host already swaps to {', '.join(active)}: the scenario's pages would go there "
                        "too and the host's own swap traffic would be counted with the run's\n"
                        "  fix: swapoff it for the run (swapoff -a), or use --on qemu")
    z = mach.get("zswap")
    if z and z.get("enabled"):
        if not os.path.isdir(zdir):
            raise RealError(f"[machine] zswap: this host's kernel has no {zdir} (CONFIG_ZSWAP)\n"
                            "  fix: drop [machine] zswap for the host run, or use --on qemu")
        for key in ("same_filled_pages_enabled", "non_same_filled_pages_enabled"):
            if key in z and not z[key] and not os.path.exists(os.path.join(zdir, key)):
                raise RealError(f"[machine] zswap.{key} = false: this host's kernel has no such parameter "
                                f"({zdir}/{key}), so it cannot be switched off\n  fix: leave {key} out for the host run")


def refuse_step_gaps(plan: dict) -> None:
    """Refuse a plan whose tasks have `step_gaps` (the engine's replay of a real runner's time
    between steps, which memtwin validate takes from a recording): a real run has its own."""
    for t in plan["tasks"]:
        if t.get("step_gaps_ns"):
            raise RealError(f"[tasks.{t['name']}]: step_gaps replays a real runner's time between steps in the engine; "
                            "a real kernel's run has its own\n  fix: drop step_gaps (and its --set) for the real run")


def refuse_before_running(plan: dict) -> None:
    """Refuse, before anything is made, a plan with an op the host runner does not carry out,
    and say where it can run: first the ops no runner has, then the ones only the QEMU guest has."""
    from . import qemu
    refuse_step_gaps(plan)
    ops = [(t["name"], op) for t in plan["tasks"] for op in t["ops"]]
    for tname, op in ops:
        k = op["op"]
        if k == "trace":
            raise RealError(f"[tasks.{tname}]: a trace ({op['trace']}) has no real-kernel runner: a trace records a program, "
                            "and the real side of a recorded program is the program itself\n"
                            "  fix: run it with memtwin measure --limit SIZE -- CMD (the command the trace's header names)")
        if (k not in qemu.SUPPORTED_OPS and k not in HOST_ONLY_OPS) or (k == "mount" and op.get("fs") != "tmpfs"):
            what = f"op `{k}`" + (f" of a {op['fs']} file system" if k == "mount" else "")
            raise RealError(f"[tasks.{tname}] step {op['step']!r}: {what} has no real-kernel runner yet "
                            "(neither --on host nor --on qemu carries it out)\n  fix: drop the op for the real run")
    for d in plan["devices"]:
        if d.get("qemu_throttle"):
            raise RealError(f"[devices.{d['name']}]: qemu_throttle = true describes a QEMU guest's throttled disk "
                            "(throttling.bps-read/-write); the host runner's disk is a loop device under blk-throttle\n"
                            "  fix: use --on qemu, or drop qemu_throttle (and set blk_throttle = true for the host's rules)")
    mkfs_command(plan, "check")  # a file system the runner cannot format, said before anything is made
    host_swap_check(plan)
    if any(op["op"] == "mmap_probe" for _, op in ops):
        probe_anon_matches(plan)
    for tname, op in ops:
        k = op["op"]
        if k in ("mmap", "touch", "munmap") and not _file_mapping_op(op, ops, tname):
            # Anonymous memory: carried out where the host's THP mode and NUMA nodes give it
            # what the engine's has (probe_anon_matches), with the data a touch writes.
            try:
                probe_anon_matches(plan)
            except RealError as e:
                raise RealError(f"[tasks.{tname}] step {op['step']!r}: op `{k}` (anonymous memory) on this host: {e}\n"
                                "  or use --on qemu (the guest gets the scenario's nodes and THP setting)") from None
            if k == "mmap" and (op.get("fill") or "byte") != "byte":
                raise RealError(f"[tasks.{tname}] step {op['step']!r}: mmap fill = {op['fill']!r}: the host runner writes one "
                                "byte per page (fill = \"byte\") only\n  fix: drop fill for the host run, or use --on qemu")
        if k == "mount":
            raise RealError(f"[tasks.{tname}] step {op['step']!r}: op `mount` ({op['fs']} at {op['path']}) is not carried out "
                            "by the host runner: mounting file systems on the host is outside what it may touch\n"
                            "  fix: use --on qemu (the guest mounts tmpfs)")


def host_carries_out(plan: dict) -> bool:
    """Whether the host runner would take this plan (refuse_before_running says nothing)."""
    try:
        refuse_before_running(plan)
    except RealError:
        return False
    return True


def probe_anon_matches(plan: dict, thp_path: str = "/sys/kernel/mm/transparent_hugepage/enabled",
                       node_dir: str = "/sys/devices/system/node") -> None:
    """An `mmap_probe` maps anonymous memory without madvise: the host runner carries it out
    where that memory is what the engine's is, i.e. the host's THP mode gives such a mapping
    huge pages exactly when the scenario's `kernel.thp` does ("always"; "madvise" and "never"
    give base pages) and the host has the scenario's number of NUMA nodes."""
    try:
        with open(thp_path) as f:
            mode = f.read().split("[", 1)[1].split("]", 1)[0]
    except (OSError, IndexError):
        mode = "never"  # a kernel without THP
    if (mode == "always") != bool(plan.get("thp")):
        raise RealError(f"[kernel] thp = {str(bool(plan.get('thp'))).lower()}, but this host's transparent hugepages are "
                        f"\"{mode}\": the mmap_probe's anonymous rounds would fault {'base' if plan.get('thp') else 'huge'} pages "
                        f"where the engine's fault {'huge' if plan.get('thp') else 'base'} ones\n"
                        f"  fix: set [kernel] thp = {'true' if mode == 'always' else 'false'} to match the host, or use a host whose "
                        f"{thp_path} matches")
    try:
        nodes = len([d for d in os.listdir(node_dir) if d.startswith("node") and d[4:].isdigit()]) or 1
    except OSError:
        nodes = 1
    if nodes != plan["machine"].get("nodes", 1):
        raise RealError(f"[machine] nodes = {plan['machine'].get('nodes', 1)}, but this host has {nodes} NUMA node(s): "
                        "the mmap_probe's anonymous memory would be placed differently\n"
                        f"  fix: set [machine] nodes = {nodes} for the host run")


def _file_mapping_op(op: dict, ops: list, tname: str) -> bool:
    """Whether `op` works on a file mapping (the host runner carries those out; anonymous
    mappings need the scenario's NUMA layout and THP setting, which only the guest has)."""
    if op["op"] == "mmap":
        return bool(op.get("file"))
    last = None
    for t, o in ops:
        if t == tname and o["op"] == "mmap" and o["name"] == op["name"]:
            last = o
        if o is op:
            break
    return bool(last and last.get("file"))


# The task process's live mappings by name (each task runs in a process of its own):
# (mmap object, length).
_MAPS: dict = {}
_MADV = {"normal": "MADV_NORMAL", "sequential": "MADV_SEQUENTIAL", "random": "MADV_RANDOM", "willneed": "MADV_WILLNEED",
         "dontneed": "MADV_DONTNEED", "cold": "MADV_COLD", "pageout": "MADV_PAGEOUT"}
_MADV_NUM = {"MADV_COLD": 20, "MADV_PAGEOUT": 21}


def _madvise(m, advice: str, start: int = 0, length: Optional[int] = None) -> None:
    import mmap as mmap_mod
    name = _MADV[advice]
    flag = getattr(mmap_mod, name, _MADV_NUM.get(name))
    if length is None:
        length = len(m) - start
    m.madvise(flag, start, length)


def _mlock(m, lock: bool) -> None:
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    buf = (ctypes.c_char * len(m)).from_buffer(m)
    addr = ctypes.addressof(buf)
    r = (libc.mlock if lock else libc.munlock)(ctypes.c_void_p(addr), ctypes.c_size_t(len(m)))
    del buf
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def _map_op(op: dict, files: dict, rng) -> None:
    """The file-mapping ops: mmap of a file, touch, madvise, msync, mlock/munlock, munmap."""
    import mmap as mmap_mod
    kind, name = op["op"], op["name"]
    if kind == "mmap" and not op.get("file"):
        # anonymous memory (refuse_before_running checked that the host's THP mode and NUMA
        # nodes give it what the engine's has); a touch writes one byte per page (fill "byte")
        _MAPS[name] = mmap_mod.mmap(-1, op["size"], flags=mmap_mod.MAP_PRIVATE | mmap_mod.MAP_ANONYMOUS,
                                    prot=mmap_mod.PROT_READ | mmap_mod.PROT_WRITE)
        return
    if kind == "mmap":
        shared, ex = bool(op["shared"]), bool(op["exec"])
        fd = os.open(files[op["file"]], os.O_RDWR if shared and not ex else os.O_RDONLY)
        try:
            prot = mmap_mod.PROT_READ | (mmap_mod.PROT_EXEC if ex else mmap_mod.PROT_WRITE)
            flags = (mmap_mod.MAP_SHARED if shared else mmap_mod.MAP_PRIVATE) | (mmap_mod.MAP_POPULATE if op["populate"] else 0)
            m = mmap_mod.mmap(fd, op["size"], flags=flags, prot=prot, offset=op["offset"])
        finally:
            os.close(fd)
        _MAPS[name] = m
        if op["advice"] != "normal":
            _madvise(m, op["advice"])
        return
    m = _MAPS[name]
    if kind == "munmap":
        m.close()
        del _MAPS[name]
    elif kind == "msync":
        m.flush()
    elif kind in ("mlock", "munlock"):
        _mlock(m, kind == "mlock")
    elif kind == "madvise":
        _madvise(m, op["advice"], op["offset"], op["length"])
    elif kind == "touch":
        pages = len(m) // 4096
        first = min(op.get("offset", 0) // 4096, pages)
        end = pages if op.get("length") is None else min(pages, (op["offset"] + op["length"] + 4095) // 4096)
        n = max(0, end - first)
        write = op.get("access", "write") == "write"
        pat = op.get("pattern", "sequential")
        if pat == "random":
            idx = (first + rng.randrange(n) for _ in range(op["count"] if n else 0))
        else:
            idx = range(first, end, op.get("stride_pages") or 1 if pat == "strided" else 1)
        sink = 0
        for i in idx:
            if write:
                m[i * 4096] = 1
            else:
                sink += m[i * 4096]


def unsupported(plan: dict, knobs: Optional[dict] = None) -> Optional[str]:
    """Why no real kernel can run this variant (a policy no kernel has), or None. `knobs`: the
    policies a patched lab kernel switches at run time (memtwin.kernelbuild.KNOBS), which it can run."""
    for k, why in UNSUPPORTED_POLICIES.items():
        if plan["policies"].get(k) and k not in (knobs or {}):
            return why + " (a lab kernel built with its patch runs it: memtwin lab kernel build --patch " \
                + __import__("memtwin.kernelbuild", fromlist=["KNOBS"]).KNOBS[k][0] + ")"
    return None


def run_host(plan: dict, scratch_parent: str = "/var/tmp", log=None) -> dict:
    """Run a plan on this host; the variant entry of the JSON layout, with `real` info."""
    why = unsupported(plan)
    if why:
        raise RealError(f"variant {plan['variant']!r} needs a policy no real kernel has: {why}")
    refuse_before_running(plan)
    run = HostRun(plan, scratch_parent)
    old = {}

    def on_signal(signum, _frame):
        raise Interrupted(f"interrupted by {signal.Signals(signum).name}; everything the run made was removed")

    for s in (signal.SIGINT, signal.SIGTERM):
        old[s] = signal.signal(s, on_signal)
    try:
        run.setup()
        run.notes.extend(_notes(plan, run.version))
        steps = run.run()
        info = run.info()
    finally:
        # no signal may interrupt the cleanup itself (SIGHUP neither: cli.main() raises on it)
        during = {s: signal.signal(s, signal.SIG_IGN) for s in HELD_SIGNALS}
        left = run.cleanup()
        for s, h in {**during, **old}.items():
            signal.signal(s, h)
        if left:
            print("memtwin real: could not remove: " + "; ".join(left), file=sys.stderr)
    return {"steps": steps, "totals": totals(steps), "real": info}


def totals(steps: list) -> dict:
    from memtwin._memtwin import metric_names  # noqa: F401  (the same kinds as the engine)

    t = {}
    for s in steps:
        for k, v in s["metrics"].items():
            if _is_level(k):
                t[k] = v
            else:
                t[k] = t.get(k, 0) + v
    return t


def _is_level(name: str) -> bool:
    return name.startswith(("meminfo.", "cgroup.", "list_lru.", "kmem.", "free.", "shrinker_info.")) or "_avg" in name or name in (
        "memcg.usage_bytes", "memcg.max_usage_bytes", "memcg.file_bytes", "memcg.dirty_bytes", "memcg.writeback_bytes",
        "memcg.anon_bytes", "memcg.file_mapped_bytes", "memcg.unevictable_bytes", "memcg.shmem_bytes", "memcg.shmem_thp_bytes")
