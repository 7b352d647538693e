"""The QEMU side of the real-kernel lab: `memtwin lab setup`, `memtwin lab doctor`, and
`memtwin real --on qemu`.

`memtwin lab setup` installs what a guest run needs (qemu-system-x86, busybox-static, cpio,
e2fsprogs, gcc) and fetches Debian's guest kernels (`apt-get download` of the image package
alone, `dpkg -x`): 6.1 (bookworm's own, `kpkg/`) and 6.12 (bookworm-security's,
`kpkg-6.12/`; a failure to get it is a skip, said, not an error). A scenario whose profile is
`linux-6.12` or `linux-6.12-lru_gen` boots the 6.12 guest, every other one the 6.1 guest
(GUEST_KERNELS, guest_kernel_of); `--kernel` overrides both.

`memtwin real --on qemu` (run_qemu): the engine's resolved plan becomes a line-based op script;
a small static C program (guest/memtwin_guest.c, compiled here with `gcc -static -O2` and cached
in the lab's work directory) carries it out inside a busybox initramfs:

- QEMU/TCG (`-accel tcg,thread=multi -cpu max`; KVM does not work on these machines) with the
  scenario's RAM and CPUs, `-numa` nodes when the scenario has several, no network, and one
  virtio disk: a sparse raw image with the scenario's root file system (`[machine] fs`: ext4 or
  xfs, made here by real.mkfs_command), throttled to the scenario's device bandwidth (`throttling.bps-read/-write`); read_ahead_kb is set in the guest.
- The guest's /init loads virtio_blk and ext4 or xfs and their dependencies from the kernel package's
  lib/modules with insmod, mounts the disk and the scenario's cgroup hierarchy (cgroup v2 with
  +memory, or the v1 memory controller when the scenario says cgroup = "v1"), and runs the program:
  it makes the cgroups with their limits, writes every declared file (fsync, then
  fadvise(DONTNEED): the run starts cold), then starts every task as a child process in its memcg
  after its start offset (tasks run concurrently), and records raw snapshots (/proc/self/io,
  rusage, the memcg's control files, /proc/vmstat, /proc/meminfo, cgroup.stat, resident pages of
  every scenario file by mincore, and the memcg's folios by order from /proc/kpagecgroup and
  /proc/kpageflags) at each step boundary.
- The snapshots come back over the serial console; the metrics are computed from them by
  memtwin.real.metrics_from, as for a host run, so the JSON layout is the same. Times are TCG
  wall-clock times: `real.timing_comparable` is false.

Everything a run makes lives in one temporary directory that is removed, and QEMU killed, on
success, failure, timeout, SIGINT and SIGTERM.
"""

from __future__ import annotations

import datetime
import glob
import hashlib
import lzma
import math
import os
import re
import shutil
import signal
import string
import struct
import subprocess
import tempfile
import time
from types import SimpleNamespace
from typing import Callable, Optional

from memtwin import leftovers
from memtwin.real import FOLIOS_SOURCE, QUEUE_LIMITS, Cg, Interrupted, RealError, _kv, _loadavg, fs_of, has_mlock, host_carries_out, host_ready, metrics_from, mkfs_command, refuse_step_gaps, sched_autogroup_enabled, step_view, totals, unsupported

PACKAGES = {"qemu-system-x86_64": "qemu-system-x86", "busybox": "busybox-static", "cpio": "cpio", "mkfs.ext4": "e2fsprogs",
            "gcc": "gcc"}
# what formats a scenario's XFS root file system (`[machine] fs = "xfs"`, both runners); only
# those scenarios need it, so `lab setup` installs it but `lab doctor` does not require it
FS_PACKAGES = {"mkfs.xfs": "xfsprogs"}
DEFAULT_WORKDIR = os.path.join(os.path.expanduser("~"), ".cache", "memtwin-lab")


def _run(cmd: list, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


# The Debian guest kernels the lab boots, by name: the meta package whose dependency names the
# image package (apt-get download fetches that one package, no initramfs-tools and no
# dependencies), the subdirectory of the work directory its .deb goes to, the one it is unpacked
# into (boot/vmlinuz-*, lib/modules/*), and what the kernel boots with that the runner has to know.
# Both are Debian's amd64 flavour: virtio_blk, ext4, xfs, crc32c as modules (.ko.xz), CONFIG_LRU_GEN=y.
# 6.1 (bookworm): CONFIG_LRU_GEN_ENABLED unset (boots with the two lists), cgroup v1 and v2.
# 6.12 (bookworm-security, config-6.12.117+deb12-amd64): CONFIG_LRU_GEN_ENABLED=y (boots with
# lru_gen on: the runner writes n to /sys/kernel/mm/lru_gen/enabled for a two-list scenario) and
# CONFIG_MEMCG_V1 unset (no cgroup v1 memory controller: v1 scenarios are refused).
GUEST_KERNELS = {
    "6.1": SimpleNamespace(meta="linux-image-amd64", pattern=r"linux-image-6\.1\.\S+-amd64", debdir="", unpack="kpkg",
                           vmlinuz="vmlinuz-6.1*", lru_gen_default=False, cgroup_v1=True),
    "6.12": SimpleNamespace(meta="linux-image-6.12-amd64", pattern=r"linux-image-6\.12\.\S+-amd64", debdir="guest-6.12",
                            unpack="kpkg-6.12", vmlinuz="vmlinuz-6.12*", lru_gen_default=True, cgroup_v1=False),
}
# the profiles that boot a guest other than 6.1 (the profile names the kernel it models)
GUEST_OF_PROFILE = {"linux-6.12": "6.12", "linux-6.12-lru_gen": "6.12"}


def guest_kernel_of(plan: dict) -> str:
    """The Debian guest kernel a scenario boots when no --kernel is given: 6.12 for the
    linux-6.12 profiles, 6.1 for every other one."""
    return GUEST_OF_PROFILE.get(plan.get("profile") or "", "6.1")


def kernel_package(guest: str = "6.1") -> Optional[str]:
    """The Debian kernel image package the guest's meta package depends on
    (`linux-image-amd64` -> linux-image-6.1.*-amd64, `linux-image-6.12-amd64` ->
    linux-image-6.12.*+deb12-amd64), or None."""
    g = GUEST_KERNELS[guest]
    if shutil.which("apt-cache") is None:
        return None
    try:
        out = _run(["apt-cache", "depends", g.meta], 120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"Depends:\s*(" + g.pattern + ")", out)
    return m.group(1) if m else None


def find_kernel(workdir: str = DEFAULT_WORKDIR, guest: str = "6.1") -> Optional[str]:
    """An unpacked Debian vmlinuz of guest kernel `guest` in the lab's work directory, or None."""
    g = GUEST_KERNELS[guest]
    found = sorted(glob.glob(os.path.join(workdir, g.unpack, "boot", g.vmlinuz)))
    return found[-1] if found else None


def kvm_usable() -> tuple:
    if not os.path.exists("/dev/kvm"):
        return False, "/dev/kvm is missing"
    return False, "/dev/kvm exists, but KVM guests hang or assert on these machines (seen on this project's lab machines); TCG is used"


def doctor(out: Callable[[str], None] = print, workdir: str = DEFAULT_WORKDIR, scratch: str = leftovers.DEFAULT_SCRATCH) -> int:
    """Say what the lab can run here, and why not, and what killed runs left behind. Exit code
    0 when the host runner works."""
    ok, why = host_ready()
    out(f"host runner (memtwin real --on host): {'yes' if ok else 'no'}: {why}")
    missing = [f"{tool} ({pkg})" for tool, pkg in PACKAGES.items() if shutil.which(tool) is None]
    out("qemu tools: " + ("all present" if not missing else "missing " + ", ".join(missing) + " (memtwin lab setup installs them)"))
    nofs = [f"{tool} ({pkg})" for tool, pkg in FS_PACKAGES.items() if shutil.which(tool) is None]
    out("xfs root file systems ([machine] fs = \"xfs\"): " + ("yes" if not nofs else "no: missing " + ", ".join(nofs)
                                                              + " (memtwin lab setup installs it)"))
    if shutil.which("busybox") and not _is_static(shutil.which("busybox")):
        out(f"busybox: {shutil.which('busybox')} is dynamically linked; the initramfs needs busybox-static (memtwin lab setup)")
    k = find_kernel(workdir)
    out(f"guest kernel: {k}" if k else f"guest kernel: none in {workdir}/kpkg (memtwin lab setup downloads Debian's 6.1 package)")
    k12 = find_kernel(workdir, "6.12")
    out(f"guest kernel 6.12 (profiles linux-6.12, linux-6.12-lru_gen): {k12}" if k12 else
        f"guest kernel 6.12 (profiles linux-6.12, linux-6.12-lru_gen): none in {workdir}/kpkg-6.12 "
        "(memtwin lab setup downloads Debian's bookworm-security 6.12 package)")
    _, kvm = kvm_usable()
    out(f"accelerator: TCG ({kvm})")
    ready, why = qemu_ready(workdir)
    out(f"guest runner (memtwin real --on qemu): {'yes' if ready else 'no'}: {why}")
    out("recorded validation (memtwin validate --recorded): yes, anywhere")
    leftovers.report(out, [scratch], [workdir])
    return 0 if ok else 1


def setup(out: Callable[[str], None] = print, workdir: str = DEFAULT_WORKDIR, guests: tuple = ("6.1", "6.12")) -> int:
    """Install what is missing and fetch the guest kernel packages `guests`; say what was done.
    6.1 is required (an error when it cannot be had); 6.12 is optional: a failure to get it is
    said and skipped (the linux-6.12 scenarios then say at run time what is missing)."""
    if os.geteuid() != 0:
        raise RealError("memtwin lab setup installs packages with apt-get: run it as root")
    if shutil.which("apt-get") is None:
        raise RealError("memtwin lab setup needs apt-get (Debian or Ubuntu); install qemu-system-x86, busybox-static, cpio and e2fsprogs by hand")
    need = sorted({pkg for tool, pkg in {**PACKAGES, **FS_PACKAGES}.items() if shutil.which(tool) is None})
    if shutil.which("busybox") and not _is_static(shutil.which("busybox")):
        need.append("busybox-static")
    if shutil.which("gcc") and not _static_libc():
        need.append("libc6-dev")
    if need:
        out(f"installing {' '.join(need)} ...")
        r = _run(["apt-get", "install", "-y", "-q", "--no-install-recommends"] + need)
        if r.returncode != 0:
            _run(["apt-get", "update", "-q"])
            r = _run(["apt-get", "install", "-y", "-q", "--no-install-recommends"] + need)
        if r.returncode != 0:
            raise RealError(f"apt-get install {' '.join(need)} failed: {r.stderr.strip()[-400:]}")
        out(f"installed {' '.join(need)}")
    else:
        out("qemu-system-x86, busybox-static, cpio, e2fsprogs, xfsprogs: already installed")
    for guest in guests:
        if guest == "6.1":
            _fetch_guest(out, workdir, "6.1")
            continue
        try:
            _fetch_guest(out, workdir, guest)
        except (RealError, OSError, subprocess.TimeoutExpired) as e:
            out(f"guest kernel {guest}: skipped: {e}\n  (scenarios with a linux-{guest} profile cannot run --on qemu here; "
                f"run memtwin lab setup again, or pass --kernel BZIMAGE)")
    return 0


def _fetch_guest(out: Callable[[str], None], workdir: str, guest: str) -> None:
    """apt-get download the image package of guest kernel `guest` (GUEST_KERNELS) into its
    directory and unpack it; nothing when it is unpacked already."""
    g = GUEST_KERNELS[guest]
    label = "kernel" if guest == "6.1" else f"guest kernel {guest}"
    if find_kernel(workdir, guest):
        out(f"{label}: already unpacked ({find_kernel(workdir, guest)})")
        return
    pkg = kernel_package(guest)
    if pkg is None:
        if guest == "6.1":
            raise RealError("apt-cache names no linux-image-6.1.*-amd64 package (not a Debian 12 apt source?); pass --kernel BZIMAGE to memtwin real instead")
        raise RealError(f"apt-cache names no {g.pattern.replace(chr(92), '')} package behind {g.meta} "
                        "(Debian 12 with bookworm-security in the apt sources has it; apt-get update?)")
    debdir = os.path.join(workdir, g.debdir)
    os.makedirs(debdir, exist_ok=True)
    debs = glob.glob(os.path.join(debdir, pkg + "_*.deb"))
    if not debs:
        out(f"downloading {pkg} ...")
        # 6.1 first, then 6.12 in at most 600 s, so that `memtwin lab setup` ends within CI's 900 s
        r = subprocess.run(["apt-get", "download", pkg], cwd=debdir, capture_output=True, text=True,
                           timeout=900 if guest == "6.1" else 600)
        if r.returncode != 0:
            raise RealError(f"apt-get download {pkg} failed: {r.stderr.strip()[-400:]}")
        debs = glob.glob(os.path.join(debdir, pkg + "_*.deb"))
    # Unpacked beside its place and renamed into it: an unpack that is killed (a timeout, ^C)
    # leaves no kernel without its modules that find_kernel() would take as unpacked.
    dest = os.path.join(workdir, g.unpack)
    tmp = dest + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        r = _run(["dpkg", "-x", debs[0], tmp])
        if r.returncode != 0:
            raise RealError(f"dpkg -x {debs[0]} failed: {r.stderr.strip()}")
        shutil.rmtree(dest, ignore_errors=True)
        os.replace(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out(f"{label}: {find_kernel(workdir, guest)} (from {os.path.basename(debs[0])})")



# ---------------------------------------------------------------- memtwin real --on qemu

GUEST_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest", "memtwin_guest.c")
SUPPORTED_OPS = ("read", "write", "fsync", "stat", "fadvise", "sleep", "move", "mkdir", "rmdir", "exec", "mount", "mmap", "touch", "munmap",
                 "madvise", "msync", "mlock", "munlock")
# madvise() advice, as the guest's op script codes it (guest/memtwin_guest.c madv_of())
MADVICE = {"normal": 0, "sequential": 1, "random": 2, "willneed": 3, "dontneed": 4, "cold": 5, "pageout": 6}
TOUCH_PATTERN = {"sequential": 0, "random": 1, "strided": 2}
# the modules a guest needs for its disk, loaded with their dependencies (when the kernel has them as modules):
# virtio and the scenario's root file system ([machine] fs)
ROOT_MODULES = ("virtio_pci", "virtio_blk", "crc32c_generic", "crc32c_intel")
FS_MODULES = {"ext4": ("ext4",), "xfs": ("xfs",)}
DISK_ROOT = "/s"  # where the guest mounts the scenario's disk: scenario path P is guest path /s/P
ADVICE = {"dontneed": 4, "willneed": 3}  # POSIX_FADV_* on Linux
READ_ADVICE = {"normal": 0, "sequential": 1, "random": 2}


def _is_static(path: str) -> bool:
    """True when the ELF file at `path` has no program interpreter (a static executable)."""
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if h[:4] != b"\x7fELF" or h[4] != 2:
                return False
            phoff, = struct.unpack_from("<Q", h, 32)
            phentsize, phnum = struct.unpack_from("<HH", h, 54)
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
        return all(struct.unpack_from("<I", ph, i * phentsize)[0] != 3 for i in range(phnum))
    except (OSError, struct.error):
        return False


def _static_libc() -> bool:
    return bool(glob.glob("/usr/lib/*/libc.a") or glob.glob("/usr/lib*/libc.a"))


def qemu_ready(workdir: str = DEFAULT_WORKDIR) -> tuple:
    """(ok, reason): can `memtwin real --on qemu` run here? For `memtwin lab doctor` and test skips."""
    for tool, pkg in PACKAGES.items():
        if shutil.which(tool) is None:
            return False, f"`{tool}` not found (memtwin lab setup, or apt-get install {pkg})"
    if not _is_static(shutil.which("busybox")):
        return False, f"{shutil.which('busybox')} is not a static busybox (apt-get install busybox-static)"
    if not _static_libc():
        return False, "no static C library to build the guest program (apt-get install libc6-dev)"
    k = find_kernel(workdir)
    if k is None:
        return False, f"no guest kernel in {workdir}/kpkg (memtwin lab setup, or pass --kernel BZIMAGE)"
    return True, f"QEMU/TCG with {os.path.basename(k)}"


def guest_program(workdir: str) -> str:
    """The static guest program, compiled from guest/memtwin_guest.c once per source version."""
    with open(GUEST_SRC, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    out = os.path.join(workdir, f"memtwin-guest-{digest}")
    if os.path.exists(out):
        return out
    if shutil.which("gcc") is None:
        raise RealError("--on qemu builds its guest program with gcc, which is not installed\n  fix: memtwin lab setup (or apt-get install gcc libc6-dev)")
    os.makedirs(workdir, exist_ok=True)
    tmp = out + f".tmp{os.getpid()}"
    r = subprocess.run(["gcc", "-static", "-O2", "-o", tmp, GUEST_SRC], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RealError(f"gcc -static could not build the guest program {GUEST_SRC}:\n{r.stderr.strip()[-800:]}\n"
                        "  fix: apt-get install gcc libc6-dev (the static C library)")
    os.replace(tmp, out)
    return out


def lab_kernel(kernel: Optional[str], workdir: Optional[str] = None) -> Optional[dict]:
    """The meta.json of the lab build `--kernel NAME` names (memtwin lab kernel build), or None."""
    if kernel is None:
        return None
    from memtwin import kernelbuild

    return kernelbuild.resolve(kernel, workdir or DEFAULT_WORKDIR)


def kernel_knobs(kernel: Optional[str], workdir: Optional[str] = None) -> dict:
    """policy -> sysctl of the patched lab kernel `kernel` names ({} for any other kernel)."""
    meta = lab_kernel(kernel, workdir)
    return dict(meta.get("knobs") or {}) if meta else {}


def _kernel_and_modules(kernel: Optional[str], workdir: str, guest: str = "6.1") -> tuple:
    """(kernel image, its modules directory or None, where it came from). Without `kernel`:
    Debian's guest kernel `guest` (GUEST_KERNELS) from the lab's work directory."""
    meta = lab_kernel(kernel, workdir)
    if meta is not None:
        return meta["image"], None, f"lab build {meta['name']} ({meta['source']}, {meta['key']})"
    if kernel is not None and os.path.sep not in kernel and not os.path.exists(kernel):
        from memtwin import kernelbuild

        names = sorted({m["name"] for m in kernelbuild.list_built(workdir)})
        raise RealError(f"--kernel {kernel}: neither a file nor a lab kernel built here (built: {', '.join(names) or 'none'})\n"
                        f"  fix: memtwin lab kernel build" + "".join(f" --patch {p}" for p in kernel.split("+") if p != "lab")
                        + ", or give the path of a bzImage")
    if kernel is None and guest != "6.1":
        g = GUEST_KERNELS[guest]
        k = find_kernel(workdir, guest)
        if k is None:
            raise RealError(f"the scenario's profile boots Debian's {guest} guest kernel, and there is none in {workdir}/{g.unpack}\n"
                            f"  fix: run `memtwin lab setup` (downloads Debian's {guest} linux-image package from bookworm-security), "
                            "or pass --kernel BZIMAGE")
        origin = "Debian package " + os.path.basename((sorted(glob.glob(os.path.join(workdir, g.debdir, "linux-image-*.deb"))) or ["?"])[-1])
    elif kernel is None:
        k = find_kernel(workdir)
        if k is None:
            raise RealError(f"no guest kernel in {workdir}/kpkg\n  fix: run `memtwin lab setup` (downloads Debian's 6.1 "
                            "linux-image package), or pass --kernel BZIMAGE")
        origin = "Debian package " + os.path.basename((glob.glob(os.path.join(workdir, "linux-image-*.deb")) or ["?"])[0])
    else:
        k = os.path.abspath(kernel)
        if not os.path.isfile(k):
            raise RealError(f"--kernel {kernel}: no such file\n  fix: give the path of a bzImage (e.g. arch/x86/boot/bzImage)")
        with open(k, "rb") as f:
            f.seek(0x202)
            if f.read(4) != b"HdrS":
                raise RealError(f"--kernel {kernel}: not an x86 bzImage (no boot protocol header)\n  fix: give a bzImage or vmlinuz")
        origin = k
    ver = re.sub(r"^vmlinuz-", "", os.path.basename(k))
    mods = os.path.join(os.path.dirname(os.path.dirname(k)), "lib", "modules", ver)
    return k, (mods if os.path.isdir(mods) else None), origin


def _module_files(moddir: str, fs: str = "ext4") -> list:
    """The .ko files the guest loads for its virtio disk and file system `fs`, dependencies first
    (read from each module's .modinfo)."""
    by_name = {}
    for dp, _, fns in os.walk(os.path.join(moddir, "kernel")):
        for fn in fns:
            m = re.match(r"(.+)\.ko(\.xz)?$", fn)
            if m:
                by_name[m.group(1).replace("-", "_")] = os.path.join(dp, fn)

    def data(path: str) -> bytes:
        with open(path, "rb") as f:
            b = f.read()
        return lzma.decompress(b) if path.endswith(".xz") else b

    order, seen = [], set()

    def visit(name: str) -> None:
        if name in seen or name not in by_name:
            return
        seen.add(name)
        m = re.search(rb"depends=([^\x00]*)\x00", data(by_name[name]))
        for dep in (m.group(1).decode().split(",") if m and m.group(1) else []):
            visit(dep.replace("-", "_"))
        order.append(name)

    for n in ROOT_MODULES + FS_MODULES[fs]:
        visit(n)
    return [(n, by_name[n], data) for n in order]


_SAFE = frozenset(string.ascii_letters + string.digits + "/._-+,=:@")


def _q(s: str) -> str:
    """%-encode a field of the op script (fields are separated by single spaces)."""
    return "".join(chr(b) if chr(b) in _SAFE else "%%%02X" % b for b in s.encode())


def _gpath(spath: str) -> str:
    return DISK_ROOT + "/" + spath.lstrip("/")


def check_plan(plan: dict, knobs: Optional[dict] = None, guest: Optional[str] = None) -> None:
    """Everything the guest cannot do, said before booting. `knobs`: the run-time switches of a
    patched lab kernel (policy -> sysctl), which make the policies they switch runnable;
    `guest`: the Debian guest kernel it boots (None: a --kernel of the user's)."""
    why = unsupported(plan, knobs)
    if why:
        raise RealError(f"variant {plan['variant'] or 'default'!r} needs a policy no real kernel has: {why}")
    refuse_step_gaps(plan)
    for t in plan["tasks"]:
        for op in t["ops"]:
            k = op["op"]
            if k == "mmap_probe" and host_carries_out(plan):
                raise RealError(f"[tasks.{t['name']}] step {op['step']!r}: op `mmap_probe` is not carried out by the guest program yet\n"
                                "  fix: use --on host (the host runner carries out the probe and reports its rounds' latencies)")
            if k not in SUPPORTED_OPS:
                # Every other op the host runner carries out, the guest does too.
                raise RealError(f"[tasks.{t['name']}] step {op['step']!r}: op `{k}` is not supported on qemu "
                                f"(the guest program carries out {', '.join(SUPPORTED_OPS)})\n"
                                "  fix: drop the op for the real run (--on host does not carry it out either)")
            if k == "mount" and op["fs"] != "tmpfs":
                raise RealError(f"[tasks.{t['name']}] step {op['step']!r}: mount of fs {op['fs']!r} is not supported on qemu (only tmpfs)")
    mkfs_command(plan, "check")  # a root file system the runner cannot format, said before booting
    if guest is not None and plan["cgroup"] == "v1" and not GUEST_KERNELS[guest].cgroup_v1:
        raise RealError(f"profile {plan.get('profile')!r} boots Debian's {guest} guest kernel, which has no cgroup v1 memory "
                        "controller (CONFIG_MEMCG_V1 is not set)\n  fix: set [kernel] cgroup = \"v2\", or use profile \"linux-6.1\" for a v1 run")
    for m in plan["mounts"]:
        if m["fs"] != "tmpfs":
            raise RealError(f"[mounts.\"{m['path']}\"] fs = {m['fs']!r}: on qemu the scenario's files live on one virtio disk "
                            f"with the root file system ([machine] fs = {fs_of(plan)[0]!r}); "
                            "only tmpfs mounts are made besides it\n  fix: drop the mount, or make it tmpfs")
    if len(plan["devices"]) > 1:
        raise RealError(f"the scenario declares {len(plan['devices'])} devices; the qemu runner gives a scenario one virtio disk\n"
                        "  fix: use one [devices.NAME]")
    mach = plan["machine"]
    if mach.get("swap") and mach["swap"] < (40 << 10):
        raise RealError(f"[machine] swap = {mach['swap']} bytes: mkswap needs at least 10 pages (40 KiB)\n"
                        "  fix: give the machine swap = \"64M\" or more, or no swap")
    if not mach.get("swap") and any(c.get("swap_max") is not None or c.get("memsw_max") is not None for c in plan["cgroups"]):
        raise RealError("a cgroup limits swap (memory.swap.max / memory.memsw.limit_in_bytes) but the machine has no swap\n"
                        "  fix: give the machine [machine] swap = SIZE, or drop the swap limit")
    if mach.get("swap") and mach.get("swap_file"):
        raise RealError("[machine] swap_file = true: the qemu runner's swap area is the guest's /dev/vdb, a block device, "
                        "not a swap file (the twin would model another kind of area than the guest swaps to)\n"
                        "  fix: drop swap_file for --on qemu, or run the scenario --on host")
    if mach["ram"] < (256 << 20):
        raise RealError(f"[machine] ram = {mach['ram'] >> 20} MiB: a guest needs at least 256 MiB\n  fix: ram = \"512M\" or more")
    try:
        with open("/proc/meminfo") as f:
            avail = int(re.search(r"MemAvailable:\s+(\d+)", f.read()).group(1)) << 10
    except (OSError, AttributeError):
        avail = None
    if avail is not None and mach["ram"] > avail * 0.7:
        raise RealError(f"[machine] ram = {mach['ram'] >> 20} MiB is more than 70% of this host's available memory "
                        f"({avail >> 20} MiB): QEMU would push the host into reclaim\n"
                        "  fix: run a variant of the scenario with a smaller [machine] ram (the memcg limits decide "
                        "what these scenarios measure), e.g. scenarios/validation/qemu61-*.toml")


def op_script(plan: dict, knobs: Optional[dict] = None) -> tuple:
    """(op script text, step names by index, tracked scenario paths by index, Cg view)."""
    v = "1" if plan["cgroup"] == "v1" else "2"
    mnt = "/sys/fs/cgroup/memory" if v == "1" else "/sys/fs/cgroup"
    cg = Cg("v1" if v == "1" else "v2", mnt, mnt + "/memtwin")
    L = [f"V {v}", f"TOP {_q(cg.top)}"]
    snapfiles = (["memory.usage_in_bytes", "memory.max_usage_in_bytes", "memory.failcnt", "memory.stat", "memory.oom_control"] if v == "1"
                 else ["memory.current", "memory.peak", "memory.stat", "memory.events", "memory.pressure"])
    if plan["machine"].get("swap"):
        # the memcg's swap: memory.swap.current and memory.swap.events (v2), memsw (v1)
        snapfiles += ["memory.memsw.usage_in_bytes"] if v == "1" else ["memory.swap.current", "memory.swap.events"]
    zswap = (plan["machine"].get("zswap") or {}).get("enabled")
    if zswap and v == "2":
        snapfiles.append("memory.zswap.current")
    L += [f"SNAP {n}" for n in snapfiles]
    if zswap:
        # /sys/kernel/debug/zswap's counters with every snapshot
        L.append("ZSWAP 1")
    if v == "2":
        L.append(f"SET {_q(mnt + '/cgroup.subtree_control')} +memory")
        L.append(f"MKCG {_q(cg.top)} 1")
        L.append(f"MKCG {_q(cg.path('/'))} 0")
    else:
        L.append(f"MKCG {_q(cg.top)} 0")
    made = [c["path"] for c in plan["cgroups"]] + [op["cgroup"] for t in plan["tasks"] for op in t["ops"] if op["op"] == "mkdir"]
    parents = {p.strip("/").rsplit("/", 1)[0] for p in made if "/" in p.strip("/")}

    def is_parent(p: str) -> int:
        return int(v == "2" and p.strip("/") in parents)

    for c in sorted(plan["cgroups"], key=lambda c: c["path"].count("/")):
        d = cg.path(c["path"])
        L.append(f"MKCG {_q(d)} {is_parent(c['path'])}")
        if v == "1":
            for k in ("high", "low", "min"):
                if c[k]:
                    raise RealError(f"[cgroups.{c['path']}] sets memory.{k}, which cgroup v1 (the scenario's cgroup) does not have\n"
                                    "  fix: drop it, or set [kernel] cgroup = \"v2\"")
            if c["max"] is not None:
                L.append(f"SET {_q(d + '/memory.limit_in_bytes')} {c['max']}")
            if c.get("memsw_max") is not None:  # after memory.limit_in_bytes: memsw may not be below it
                L.append(f"SET {_q(d + '/memory.memsw.limit_in_bytes')} {c['memsw_max']}")
            if c.get("swappiness") is not None:
                L.append(f"SET {_q(d + '/memory.swappiness')} {c['swappiness']}")
        else:
            for k, fn in (("max", "memory.max"), ("high", "memory.high"), ("swap_max", "memory.swap.max"), ("zswap_max", "memory.zswap.max")):
                if c.get(k) is not None:
                    L.append(f"SET {_q(d + '/' + fn)} {c[k]}")
            if c.get("zswap_writeback") is False:  # memory.zswap.writeback (6.8+): 1 at creation
                L.append(f"SET {_q(d + '/memory.zswap.writeback')} 0")
            for k, fn in (("low", "memory.low"), ("min", "memory.min")):
                if c[k]:
                    L.append(f"SET {_q(d + '/' + fn)} {c[k]}")
    if plan.get("shmem_enabled", "never") != "never":
        # /sys/kernel/mm/transparent_hugepage/shmem_enabled: deny/force override every tmpfs
        # mount's huge= (mm/shmem.c shmem_is_huge())
        L.append(f"SET {_q('/sys/kernel/mm/transparent_hugepage/shmem_enabled')} {plan['shmem_enabled']}")
    for m in plan["mounts"]:
        # a tmpfs mount's huge= (mm/shmem.c shmem_parse_huge()), given only when set: the
        # mounts of scenarios without it stay as they were
        huge = m.get("huge", "never")
        L.append(f"TMPFS {_q(_gpath(m['path']))}" + (f" {_q('huge=' + huge)}" if huge != "never" else ""))
    tracked = [f["path"] for f in plan["files"]]
    for t in plan["tasks"]:
        for op in t["ops"]:
            for p in [op.get("file")] + list(op.get("files") or []):
                if p and p not in tracked:
                    tracked.append(p)
    for f in plan["files"]:
        if f.get("created"):  # a write op (or cp) creates it, as on the host (real.py)
            continue
        L.append(f"FILE {_q(_gpath(f['path']))} {f['size']} {f['mode'] or 0o644} {f['uid'] or 0}")
    L += [f"TRACK {_q(_gpath(p))}" for p in tracked]
    L.append(f"FOLIOS {int(bool(plan.get('record_folios', True)))}")
    # the reclaim waits' histogram (guest_throttle()) with every snapshot, zoneinfo's
    # node_unreclaimable with every end snapshot
    L.append(f"THROTTLE {_q(THROTTLE_EVENT + '/hist')}")
    if plan.get("reclaim_trace"):
        L.append("WAKEPOST 1")
    if plan.get("vcpu_stall_probe"):  # memtwin real --vcpu-stall-probe: off by default (review15 L3)
        L.append("STALLPROBE 1")
    if readpath_probe_asked():  # xfs21b: calibrate_readpath(), opt-in
        L.append("READPATH 1")
    steps = []
    nodes, cpus = plan["machine"]["nodes"], plan["machine"]["cpus"]
    for n, t in enumerate(plan["tasks"]):
        mask = 0
        if nodes > 1:
            for c in _node_cpus(cpus, nodes)[t["node"]]:
                mask |= 1 << c
        # the task's random numbers: the engine's generator from the scenario's seed (+ n: the
        # engine's tasks share one generator, which no runner's separate processes can follow)
        L.append(f"TASK {n} {_q(cg.path(t['cgroup']))} {t['start_ns']} {mask:x} {plan.get('seed', 0) + n}")
        prev = None
        for op in t["ops"]:
            if op["step"] != prev:
                steps.append(op["step"])
                prev = op["step"]
            # fadvise on a directory: the policy is emulated by fadvising every file below it, unless
            # the kernel has the directory DONTNEED itself (patch 004, switched on in /init)
            walk = bool(plan["policies"].get("fadvise_directory")) and "fadvise_directory" not in (knobs or {})
            f = _op_fields(op, cg, walk, bool(plan.get("thp")))
            if op["op"] == "mkdir":
                f += f" {is_parent(op['cgroup'])}"
            L.append(f"O {len(steps) - 1} " + f)
    return "\n".join(L) + "\n", steps, tracked, cg


def _op_fields(op: dict, cg: Cg, walk: bool, thp: bool = False) -> str:
    k = op["op"]
    if k == "mmap" and op.get("file"):
        return (f"fmmap {_q(op['name'])} {_q(_gpath(op['file']))} {op['offset']} {op['size']} {int(bool(op['shared']))} "
                f"{int(bool(op['exec']))} {int(bool(op['populate']))} {MADVICE[op['advice']]}")
    if k == "mmap":
        # the pages' data (scenario `fill`): -1 one byte, 0 same-filled, N the first N bytes random
        fill = op.get("fill") or "byte"
        code = {"byte": -1, "same": 0, "random": 4096}.get(fill)
        if code is None:
            code = int(fill.split("-", 1)[1]) if fill.startswith("random-") and fill.split("-", 1)[1].isdigit() else None
        if code is None:
            raise RealError(f"step {op['step']!r}: mmap fill {fill!r} is not one the guest program writes")
        return f"mmap {_q(op['name'])} {op['size']} {int(thp)} {code}"
    if k == "touch" and (op.get("access", "write") != "write" or op.get("offset") or op.get("length") is not None
                         or op.get("pattern", "sequential") != "sequential"):
        length = -1 if op.get("length") is None else op["length"]
        return (f"mtouch {_q(op['name'])} {int(op['access'] == 'write')} {op['offset']} {length} "
                f"{TOUCH_PATTERN[op['pattern']]} {op.get('count') or 0} {op.get('stride_pages') or 1}")
    if k in ("touch", "munmap", "msync", "mlock", "munlock"):
        return f"{k} {_q(op['name'])}"
    if k == "madvise":
        length = -1 if op.get("length") is None else op["length"]
        return f"madv {_q(op['name'])} {MADVICE[op['advice']]} {op['offset']} {length}"
    if k == "read":
        length = -1 if op["length"] is None else op["length"]
        pat = "rand" if op["pattern"] == "random" else "seq"
        return (f"read {_q(_gpath(op['file']))} {op['offset']} {length} {op['bufsize']} {pat} "
                f"{READ_ADVICE.get(op['fadvise'], 0)} {int(bool(op['scan']))} {op.get('count') or 0}")
    if k == "write":
        return (f"write {_q(_gpath(op['file']))} {op['offset']} {op['length']} {op['bufsize']} "
                f"{int(bool(op['fsync']))} {int(bool(op['create']))} {int(bool(op.get('truncate')))}")
    if k in ("fsync", "stat"):
        return f"{k} {_q(_gpath(op['file']))}"
    if k == "fadvise":
        adv = ADVICE[op["advice"]]
        if op["directory"] and not walk and not op.get("walk"):
            return f"fadvdir {adv} {_q(_gpath(op['path']))}"
        return f"fadv {adv} {op['offset']} {op['length'] or 0} {len(op['files'])} " + " ".join(_q(_gpath(p)) for p in op["files"])
    if k == "sleep":
        return f"sleep {op['duration_ns']}"
    if k in ("move", "mkdir", "rmdir"):
        return f"{k} {_q(cg.path(op['cgroup']))}"
    if k == "exec":
        return "exec"
    if k == "mount":
        return f"mount {_q(_gpath(op['path']))} {int(bool(op.get('mkdir')))}"
    raise RealError(f"step {op['step']!r}: op `{k}` is not supported on qemu")


def _node_cpus(cpus: int, nodes: int) -> list:
    return [list(range(i * cpus // nodes, (i + 1) * cpus // nodes)) for i in range(nodes)]


# [machine] swap: the second virtio disk (vdb) made swap, vm.swappiness written, the state recorded
GUEST_SWAP = r"""i=0
while [ ! -b /dev/vdb ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
[ -b /dev/vdb ] || fail "no /dev/vdb: the guest sees no second virtio disk for swap"
@ROTSETUP@@ZSWAPSETUP@mkswap /dev/vdb >/dev/null || fail "mkswap /dev/vdb failed"
swapon /dev/vdb || fail "swapon /dev/vdb failed (the guest kernel lacks CONFIG_SWAP?)"
echo @SWAPPINESS@ > /proc/sys/vm/swappiness || fail "cannot write /proc/sys/vm/swappiness"
echo "@@SWAP $(tail -n +2 /proc/swaps | tr -s ' ' | tr '\t' ' ') rotational: $(cat /sys/block/vdb/queue/rotational) page-cluster: $(cat /proc/sys/vm/page-cluster) swappiness: $(cat /proc/sys/vm/swappiness) vma_ra: $(cat /sys/kernel/mm/swap/vma_ra_enabled 2>/dev/null) zswap: $(cat /sys/module/zswap/parameters/enabled 2>/dev/null)"
"""


GUEST_INIT = r"""#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o size=64m tmp /tmp
exec 2>&1
echo "@@UNAME $(uname -r)"
echo "@@MEMTOTAL $(grep MemTotal /proc/meminfo | tr -s ' ' | cut -d' ' -f2)"
echo "@@NODES $(cat /sys/devices/system/node/online 2>/dev/null)"
for m in $(cat /modules.order); do
  insmod /lib/modules/$m.ko || echo "@@MODFAIL $m"
done
fail() { echo "@@ERROR $*"; sync; poweroff -f; }
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
[ -b /dev/vda ] || fail "no /dev/vda: the guest kernel has no virtio_blk (neither built in nor in its modules)"
echo @RA@ > /sys/block/vda/queue/read_ahead_kb || fail "cannot set read_ahead_kb"
if [ -e /sys/kernel/mm/transparent_hugepage/enabled ]; then
  echo @THP@ > /sys/kernel/mm/transparent_hugepage/enabled || fail "cannot set transparent_hugepage/enabled"
  echo "@@THP $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
elif [ @THP@ = always ]; then
  fail "the scenario asks for THP (kernel.thp = always) and the guest kernel has no transparent huge pages"
fi
echo "@@RA $(cat /sys/block/vda/queue/read_ahead_kb)"
@SWAPSETUP@for q in @QUEUE@; do echo "@@QUEUE $q $(cat /sys/block/vda/queue/$q 2>/dev/null)"; done
echo "@@SCHED $(cat /sys/block/vda/queue/scheduler 2>/dev/null)"
echo "@@WBT $(cat /sys/block/vda/queue/wbt_lat_usec 2>/dev/null)"
echo "@@VIRTIO queue_depth $(cat /sys/module/virtio_blk/parameters/queue_depth 2>/dev/null) num_request_queues $(cat /sys/module/virtio_blk/parameters/num_request_queues 2>/dev/null) hw_queues $(ls /sys/block/vda/mq 2>/dev/null | wc -l) nr_tags $(cat /sys/block/vda/mq/0/nr_tags 2>/dev/null)"
if [ @LRUGEN@ = y ]; then
  [ -e /sys/kernel/mm/lru_gen/enabled ] || fail "the scenario asks for the multi-generational LRU (kernel.lru_gen = true) and the guest kernel has no /sys/kernel/mm/lru_gen (CONFIG_LRU_GEN)"
  echo y > /sys/kernel/mm/lru_gen/enabled || fail "cannot write /sys/kernel/mm/lru_gen/enabled"
  echo @MINTTL@ > /sys/kernel/mm/lru_gen/min_ttl_ms || fail "cannot write /sys/kernel/mm/lru_gen/min_ttl_ms"
fi
@LRUGENOFF@[ -e /sys/kernel/mm/lru_gen/enabled ] && echo "@@LRUGEN $(cat /sys/kernel/mm/lru_gen/enabled) min_ttl_ms: $(cat /sys/kernel/mm/lru_gen/min_ttl_ms)"
echo "@@PAGETYPEINFO_BEGIN"; grep -E "^Node|^Number of blocks" /proc/pagetypeinfo 2>/dev/null; echo "@@PAGETYPEINFO_END"
mkdir -p /s
mount -t @FS@ /dev/vda /s || fail "cannot mount the @FS@ disk (@FS@ neither built in nor in the kernel's modules?)"
if [ @V@ = 2 ]; then
  mount -t cgroup2 none /sys/fs/cgroup || fail "cannot mount cgroup2"
else
  mount -t tmpfs cg /sys/fs/cgroup && mkdir /sys/fs/cgroup/memory && mount -t cgroup -o memory none /sys/fs/cgroup/memory || fail "cannot mount the cgroup v1 memory controller"
fi
@SYSCTL@@THROTTLEON@@RTRACEON@/memtwin-guest /ops
echo "@@EXIT $?"
@RTRACEOFF@@THROTTLEOFF@if [ @LRUGEN@ = y ] && { [ -e /sys/kernel/debug/lru_gen ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null; }; then
  sed 's/^/@@LRUGENDBG /' /sys/kernel/debug/lru_gen
fi
umount /s
sync
poweroff -f
"""


# [machine] zswap: /sys/module/zswap/parameters/* written before swapon (Debian's 6.1 builds zswap in,
# off by default, lzo + zbud), debugfs mounted for /sys/kernel/debug/zswap, the state recorded
ZSWAP_PARAMS = ("compressor", "zpool", "max_pool_percent", "accept_threshold_percent",
                "same_filled_pages_enabled", "non_same_filled_pages_enabled", "shrinker_enabled", "enabled")
# parameters a newer guest kernel no longer has (6.12: same-filled pages left zswap; the engine
# refuses a scenario that sets them on such a profile, so only their defaults are skipped here)
ZSWAP_PARAMS_GONE = ("same_filled_pages_enabled", "non_same_filled_pages_enabled", "zpool")


def guest_zswap(z: Optional[dict]) -> str:
    if not z:
        return ""
    d = "/sys/module/zswap/parameters"
    out = [f'[ -d {d} ] || fail "the scenario asks for zswap and the guest kernel has no {d} (CONFIG_ZSWAP)"',
           '[ -e /sys/kernel/debug/zswap ] || mount -t debugfs none /sys/kernel/debug || fail "cannot mount debugfs (zswap\'s counters)"']
    for k in ZSWAP_PARAMS:
        # shrinker_enabled (6.8+): the zswap shrinker is not modelled; off (Debian's 6.12 default,
        # CONFIG_ZSWAP_SHRINKER_DEFAULT_ON unset) where the kernel has it
        v = z.get(k, False) if k == "shrinker_enabled" else z[k]
        v = ("Y" if v else "N") if isinstance(v, bool) else str(v)
        w = f'echo {v} > {d}/{k} || fail "cannot write {v} to {d}/{k}"'
        out.append(f'if [ -e {d}/{k} ]; then {w}; fi' if k in ZSWAP_PARAMS_GONE or k == "shrinker_enabled" else w)
    out.append('echo "@@ZSWAP ' + " ".join(f"{k}=$(cat {d}/{k} 2>/dev/null || echo -)" for k in ZSWAP_PARAMS) + '"')
    return "\n".join(out) + "\n"


# --reclaim-trace (off by default): ftrace of who reclaims in the guest, for comparing kswapd's
# wake-ups and runs and the tasks' direct reclaim with the engine's (lab/measurements/kswapd-direct).
# vmscan's kswapd and direct-reclaim tracepoints (6.1 mm/vmscan.c), shrink_active_list()'s
# deactivations (mm_vmscan_lru_shrink_active with nr_deactivated > 0), the periodic memcg
# statistics flush (workqueue_execute_start of flush_memcg_stats_dwork), sched_waking/wakeup/switch of
# the kswapd threads only (filters), the block requests issued (a reader's progress: its
# readahead's pages, allocated just before, while kswapd waits to run), each allocation's fallback to
# another migratetype's pageblock (kmem mm_page_alloc_extfrag, __rmqueue_fallback(): the steal that
# boosts the zone's watermarks, boost_watermark(), 5.0+; with /proc/pagetypeinfo's free pages by
# migratetype before and after the tasks), and two kprobe events
# reading the node's free pages (global
# vm_zone_stat[NR_FREE_PAGES], the counter zone_page_state() sums) when a task enters
# try_to_free_pages() and when kswapd enters balance_pgdat() (static: a kernel that inlined it has
# no such probe, said by @@RTRACE_NOPROBE). Clock "mono": the guest program's CLOCK_MONOTONIC step
# times. The ring buffer (RTRACE_BUF_KB a CPU) is guest memory the scenario does not count; 8 MiB
# since qlat62 (with the swap requests' completions and the anon batches, 1 MiB overran in a
# swap scenario's first touch: 10930 entries lost).
RTRACE_BUF_KB = 8192
# Seconds --reclaim-trace adds to a guest run's default timeout: its calibrations after the tasks
# (WAKEGAP ~2.1 s, WAKEPROG up to 5 x 2 s + 210 x 10 ms, review6 M6) and the trace's dump, up to
# RTRACE_BUF_KB a CPU of text through the serial console (about 1 MiB in 10-30 s under TCG here; a
# MiB of ring holds about 2.5 MiB of text: 40 s a MiB of ring and CPU, for the lab's 2 vCPUs).
RTRACE_TIMEOUT_MARGIN_S = 120 + 2 * 40 * RTRACE_BUF_KB // 1024
RTRACE_EVENTS = ("vmscan/mm_vmscan_wakeup_kswapd", "vmscan/mm_vmscan_kswapd_wake", "vmscan/mm_vmscan_kswapd_sleep",
                 "vmscan/mm_vmscan_direct_reclaim_begin", "vmscan/mm_vmscan_direct_reclaim_end",
                 "sched/sched_waking", "sched/sched_wakeup", "sched/sched_switch", "block/block_rq_issue",
                 "workqueue/workqueue_execute_start", "vmscan/mm_vmscan_lru_shrink_active", "kmem/mm_page_alloc_extfrag",
                 "kmem/mm_page_pcpu_drain", "workqueue/workqueue_queue_work", "timer/timer_start", "timer/timer_expire_entry",
                 "block/block_rq_complete", "vmscan/mm_vmscan_lru_shrink_inactive")
RTRACE_FILTERS = (("sched/sched_waking", 'comm ~ "kswapd*"'), ("sched/sched_wakeup", 'comm ~ "kswapd*"'),
                  ("sched/sched_switch", 'prev_comm ~ "kswapd*" || next_comm ~ "kswapd*"'),
                  ("vmscan/mm_vmscan_lru_shrink_active", "nr_deactivated > 0"),
                  # the anon batches only (RECLAIM_WB_ANON, include/trace/events/vmscan.h): with the
                  # swap requests' issue and completion, which pages of a batch had their write end
                  # before move_folios_to_lru() put the batch back (the event fires after it) - qlat62
                  ("vmscan/mm_vmscan_lru_shrink_inactive", "reclaim_flags & 1"),
                  # free_pcppages_bulk()'s frees into a non-movable pageblock only (migratetype is the
                  # block's, get_pfnblock_migratetype(), 6.1 and 6.12; MIGRATE_MOVABLE is 1): the per-CPU
                  # lists' flushes of frames a fallback took, without the stream's own movable frees
                  # (tens of thousands, which would overrun the ring buffer) -- pool22b
                  ("kmem/mm_page_pcpu_drain", "migratetype != 1"))
# events kept only where the guest kernel takes their filter (the .function modifier of event
# filters), switched off with @@RTRACE_NOFILTER where it does not (unfiltered, every work item of
# every kworker would fill the ring buffer): the periodic memcg statistics flush,
# mm/memcontrol.c flush_memcg_stats_dwork(), the rstat copy 6.12's reclaim reads
# (lab/measurements/memcg-stats-flush)
# The flush's own delay (gap22): when its work is queued (workqueue_queue_work, from the timer's
# delayed_work_timer_fn()) against when it runs (workqueue_execute_start: the worker's wake-up and
# run-queue wait), and its timer, a deferrable one (DECLARE_DEFERRABLE_WORK(stats_flush_dwork), 6.12
# mm/memcontrol.c): timer_start's expires and CPU against timer_expire_entry's now (jiffies), which is
# later when the timer's CPU was idle at expiry (kernel/time/timer.c: an idle CPU's deferrable timers
# wait for its next wake-up). Every delayed work's timer (delayed_work_timer_fn: vmstat_update and a
# few others, some per second); the flush's is told by the queue_work that follows on its CPU.
RTRACE_SOFT_FILTERS = (("workqueue/workqueue_execute_start", "function.function == flush_memcg_stats_dwork"),
                       ("workqueue/workqueue_queue_work", "function.function == flush_memcg_stats_dwork"),
                       ("timer/timer_start", "function.function == delayed_work_timer_fn"),
                       ("timer/timer_expire_entry", "function.function == delayed_work_timer_fn"))
RTRACE_PROBES = (("direct", "try_to_free_pages", "free=@vm_zone_stat:s64 order=%si:u32"),
                 ("balance", "balance_pgdat", "free=@vm_zone_stat:s64"),
                 # pgdat_balanced()'s per-zone test (6.12 mm/vmscan.c; also prepare_kswapd_sleep()'s and
                 # wakeup_kswapd()'s): which zone (struct zone address), its mark (high + boost) and the
                 # answer, to see which zone ends kswapd's balance_pgdat() (pool22b)
                 ("wmok", "zone_watermark_ok_safe", "zone=%di:x64 mark=%dx:u64 idx=%cx:u32"),
                 ("wmok_ret", "zone_watermark_ok_safe%return", "ret=$retval:u8"))
# The per-CPU lists' flushes (pool22d), set only in a 6.12 guest: the offsets are those of
# Debian's 6.12.117+deb12-amd64 (its vmlinux's BTF, read 2026-11-30: struct per_cpu_pages count
# +4, high +8, free_count +28 (short); struct zone flags +1240 (bit 0 ZONE_BOOSTED_WATERMARK,
# 1 ZONE_RECLAIM_ACTIVE, 2 ZONE_BELOW_HIGH), vm_stat[NR_FREE_PAGES] +1344: the zone's own free
# pages). free_pcppages_bulk(zone, count, pcp, pindex) of 6.12 mm/page_alloc.c, every flush of a
# per-CPU set with its count, high and free_count before it (a reader's set at its direct
# reclaim holds what its last refill left); decay_pcp_high(zone, pcp) (vmstat_update(), once a
# second a CPU) with the high it decays. The refill itself is not probed: rmqueue_bulk() is
# inlined in that kernel and kprobe_events refused a probe at __rmqueue_pcplist() (boot 2026-11-30 21:22).
# The guest's symbols for them are listed (a static function inlined or cloned: .constprop/.isra).
RTRACE_PCP_PROBES = (("flush", "free_pcppages_bulk", "count=%si:s32 pidx=%cx:s32 pcnt=+4(%dx):s32 high=+8(%dx):s32 "
                      "fc=+28(%dx):s16 zflags=+1240(%di):x64 zfree=+1344(%di):s64"),
                     ("decay", "decay_pcp_high", "pcnt=+4(%si):s32 high=+8(%si):s32"))


def guest_reclaim_trace() -> tuple:
    """(shell run before the guest program, shell run after it) for --reclaim-trace."""
    t = "/sys/kernel/tracing"
    on = [f'[ -e {t}/trace ] || mount -t tracefs none {t} || fail "cannot mount tracefs at {t} (--reclaim-trace; CONFIG_TRACING)"',
          f'echo 0 > {t}/tracing_on',
          f'echo mono > {t}/trace_clock || fail "cannot set the trace clock to mono (--reclaim-trace)"',
          f'echo {RTRACE_BUF_KB} > {t}/buffer_size_kb || fail "cannot set {t}/buffer_size_kb (--reclaim-trace)"',
          f': > {t}/trace']
    for e in RTRACE_EVENTS:
        on.append(f'echo 1 > {t}/events/{e}/enable || fail "the guest kernel has no trace event {e} (--reclaim-trace)"')
    for e, flt in RTRACE_FILTERS:
        on.append(f"echo '{flt}' > {t}/events/{e}/filter || fail \"cannot set the filter of {e} (--reclaim-trace)\"")
    for e, flt in RTRACE_SOFT_FILTERS:
        on.append(f"echo '{flt}' > {t}/events/{e}/filter 2>/dev/null || "
                  f"{{ echo 0 > {t}/events/{e}/enable; echo \"@@RTRACE_NOFILTER {e}\"; }}")
    for name, fn, args in RTRACE_PROBES:
        on.append(f"if echo 'p:memtwin/{name} {fn} {args}' >> {t}/kprobe_events 2>/dev/null; then "
                  f"echo 1 > {t}/events/memtwin/{name}/enable; else echo \"@@RTRACE_NOPROBE {fn}\"; fi")
    pcp = [f"if echo 'p:memtwin/{name} {fn} {args}' >> {t}/kprobe_events 2>/dev/null; then "
           f"echo 1 > {t}/events/memtwin/{name}/enable; else echo \"@@RTRACE_NOPROBE {fn}\"; fi" for name, fn, args in RTRACE_PCP_PROBES]
    pcp.append("grep -E ' (rmqueue_bulk|free_pcppages_bulk|decay_pcp_high|__rmqueue_pcplist|rmqueue_pcplist|nr_pcp_alloc|nr_pcp_high|"
               "free_unref_page_commit)([.][a-z0-9_.]+)?$' /proc/kallsyms | sed 's/^[0-9a-f]* /@@RTRACE_KSYM /'")
    on.append('case "$(uname -r)" in 6.12.*)\n' + "\n".join(pcp) + "\n;;\nesac")
    on.append('echo "@@RTRACE_ZONEINFO_BEGIN"; grep -E "^Node|^ +pages free|^ +(min|low|high|managed) |^ +protection" /proc/zoneinfo; echo "@@RTRACE_ZONEINFO_END"')
    on.append('echo "@@RTRACE_PAGETYPEINFO_BEGIN"; grep -E "^Node|^Number of blocks" /proc/pagetypeinfo; echo "@@RTRACE_PAGETYPEINFO_END"')
    on.append(f'echo 1 > {t}/tracing_on')
    off = [f'echo 0 > {t}/tracing_on',
           'echo "@@RTRACE_ZONEINFO_BEGIN"; grep -E "^Node|^ +pages free|^ +(min|low|high|managed) |^ +protection" /proc/zoneinfo; echo "@@RTRACE_ZONEINFO_END"',
           'echo "@@RTRACE_PAGETYPEINFO_BEGIN"; grep -E "^Node|^Number of blocks" /proc/pagetypeinfo; echo "@@RTRACE_PAGETYPEINFO_END"',
           f'for c in {t}/per_cpu/cpu*; do echo "@@RTRACE_STATS ${{c##*/}} $(grep -E "^(entries|overrun|dropped events):" $c/stats | tr -s " " | tr "\\n" " ")"; done',
           'echo "@@RTRACE_BEGIN"', f'grep -v "^#" {t}/trace', 'echo "@@RTRACE_END"']
    return "\n".join(on) + "\n", "\n".join(off) + "\n"


# The reclaim waits (issue 23): each `vmscan:mm_vmscan_throttled` event (5.16+ mm/vmscan.c
# reclaim_throttle(), emitted after the sleep) counted by reason in a histogram trigger set before
# the tasks and removed after them; the guest program dumps the histogram (its counts so far) with
# every snapshot, and a step's `vmscan.throttled.<reason>` is its end's count less its start's (the
# whole machine's, as /proc/vmstat's counters are). The event's `reason` field is `1U << reason`
# (include/trace/events/vmscan.h TP_fast_assign, 6.1 and 6.12) of `enum vmscan_throttle_state`
# (include/linux/mmzone.h: WRITEBACK, ISOLATED, NOPROGRESS, CONGESTED); the engine reports the same
# names (`vmscan.throttled.*`). usec_delayed (the sleep's length, µs) is summed per reason into the
# step's `throttled_us`. A kernel without the event (before 5.16) or without hist triggers
# (CONFIG_HIST_TRIGGERS) runs without them, said by @@THROTTLE off (the metrics then unavailable).
THROTTLE_EVENT = "/sys/kernel/tracing/events/vmscan/mm_vmscan_throttled"
THROTTLE_TRIGGER = "hist:keys=reason:vals=hitcount,usec_delayed"
THROTTLE_REASONS = {1: "writeback", 2: "isolated", 4: "noprogress", 8: "congested"}
THROTTLE_METRICS = tuple(f"vmscan.throttled.{r}" for r in THROTTLE_REASONS.values())


def guest_throttle() -> tuple:
    """(shell run before the guest program, shell run after it): the mm_vmscan_throttled
    histogram trigger set, said (@@THROTTLE on, or off with why), and removed."""
    t, ev, trig = "/sys/kernel/tracing", THROTTLE_EVENT, THROTTLE_TRIGGER
    on = (f'if ! {{ [ -e {t}/trace ] || mount -t tracefs none {t} 2>/dev/null; }}; then echo "@@THROTTLE off cannot mount tracefs at {t}"\n'
          f'elif [ ! -e {ev}/trigger ]; then echo "@@THROTTLE off the guest kernel has no {ev} (5.16+)"\n'
          f"elif echo '{trig}' > {ev}/trigger; then echo \"@@THROTTLE on $(cat {ev}/trigger | head -n 1)\"\n"
          f'else echo "@@THROTTLE off cannot set {trig} in {ev}/trigger (CONFIG_HIST_TRIGGERS)"; fi\n')
    off = f"[ -e {ev}/trigger ] && echo '!{trig}' > {ev}/trigger 2>/dev/null\n"
    return on, off


def throttle_counts(text: Optional[str]) -> Optional[dict]:
    """{reason name: (events, usec_delayed summed)} from a dump of the mm_vmscan_throttled
    histogram (lines "{ reason: 1 } hitcount: 5 usec_delayed: 100000"), every reason of
    THROTTLE_REASONS present (0 when the histogram has no entry for it); None when there is no
    histogram (no section, or the guest's `!missing`)."""
    if text is None or text.startswith("!missing"):
        return None
    out = {r: (0, 0) for r in THROTTLE_REASONS.values()}
    for key, hits, us in re.findall(r"\{\s*reason:\s*(\d+)\s*\}\s*hitcount:\s*(\d+)(?:\s+usec_delayed:\s*(\d+))?", text):
        name = THROTTLE_REASONS.get(int(key))
        if name is None:
            raise RealError(f"the guest's mm_vmscan_throttled histogram has reason {key}, not one bit of "
                            f"{sorted(THROTTLE_REASONS)} (a kernel with another enum vmscan_throttle_state?)")
        out[name] = (int(hits), int(us or 0))
    return out


def zoneinfo_unreclaimable(text: Optional[str]) -> Optional[dict]:
    """{node: 0 or 1} from the guest's #zoneinfo section (memtwin_guest.c
    zoneinfo_unreclaimable(): "NODE VALUE" for each zone's node_unreclaimable line); None when
    there is none. The kernel prints the node's flag under each of its zones: they agree."""
    if text is None or text.startswith("!missing"):
        return None
    out: dict = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 2 and f[0].isdigit() and f[1].isdigit():
            out[int(f[0])] = max(out.get(int(f[0]), 0), int(f[1]))
    return out


def wait_metrics(a_sec: dict, b_sec: dict) -> tuple:
    """(metrics, throttled_us) of a step from its start and end snapshots' sections: its
    `vmscan.throttled.<reason>` (end count less start count) and the sleeps' µs per reason, None
    without a histogram in both; `node.N.unreclaimable` of every node at its end."""
    m: dict = {}
    ta, tb = throttle_counts(a_sec.get("throttled")), throttle_counts(b_sec.get("throttled"))
    us = None
    if ta is not None and tb is not None:
        for r in THROTTLE_REASONS.values():
            m[f"vmscan.throttled.{r}"] = tb[r][0] - ta[r][0]
        us = {r: tb[r][1] - ta[r][1] for r in THROTTLE_REASONS.values()}
    for nid, v in sorted((zoneinfo_unreclaimable(b_sec.get("zoneinfo")) or {}).items()):
        m[f"node.{nid}.unreclaimable"] = v
    return m, us


# a guest kernel that boots with lru_gen on (Debian's 6.12) runs a two-list scenario with it off
LRUGEN_OFF = ('if [ -e /sys/kernel/mm/lru_gen/enabled ]; then\n'
              '  echo n > /sys/kernel/mm/lru_gen/enabled || fail "cannot write n to /sys/kernel/mm/lru_gen/enabled (the scenario uses the two lists)"\n'
              'fi\n')


def guest_init(plan: dict, ra_kb: int, knobs: Optional[dict] = None, guest: Optional[str] = None) -> str:
    """The guest's /init for this plan: read_ahead_kb, the cgroup version, the THP setting, and on a
    patched lab kernel its run-time switches (sysctls) set from the variant's policies. `guest`:
    the Debian guest kernel (GUEST_KERNELS) it boots; one that boots with lru_gen on gets it
    switched off for a two-list scenario."""
    v = "1" if plan["cgroup"] == "v1" else "2"
    sysctl = ""
    for pol, path in sorted((knobs or {}).items()):
        val = int(bool(plan["policies"].get(pol)))
        sysctl += (f'echo {val} > /proc/sys/{path} || fail "cannot write /proc/sys/{path} (the kernel lacks the patch for {pol})"\n'
                   f'echo "@@KNOB {path} $(cat /proc/sys/{path})"\n')
    # kernel.dirty_bytes / dirty_background_bytes: vm.dirty_bytes / vm.dirty_background_bytes
    for key in ("dirty_bytes", "dirty_background_bytes"):
        if plan.get(key):
            sysctl += f'echo {int(plan[key])} > /proc/sys/vm/{key} || fail "cannot write /proc/sys/vm/{key}"\n'
    init = (GUEST_INIT.replace("@RA@", str(int(ra_kb))).replace("@V@", v).replace("@THP@", "always" if plan.get("thp") else "never")
            .replace("@FS@", fs_of(plan)[0]).replace("@QUEUE@", " ".join(QUEUE_LIMITS)))
    # kernel.lru_gen: /sys/kernel/mm/lru_gen/enabled (Debian's 6.1 builds CONFIG_LRU_GEN=y with
    # CONFIG_LRU_GEN_ENABLED unset, so it boots with the two lists and 0x0000 there).
    # [machine] swap: a second virtio disk (vdb) made swap in the guest; kernel.swappiness.
    swap = GUEST_SWAP.replace("@SWAPPINESS@", str(int(plan.get("swappiness", 60)))) if plan["machine"].get("swap") else ""
    swap = swap.replace("@ZSWAPSETUP@", guest_zswap(plan["machine"].get("zswap")))
    # a non-rotational device ([devices.X] rotational = false): the swap disk's queue says so before
    # swapon, which then makes the area SWP_SOLIDSTATE (VMA-based swap readahead, the SSD allocator)
    rot = not plan["devices"] or plan["devices"][0].get("rotational", True)
    swap = swap.replace("@ROTSETUP@", "" if rot else
                        'echo 0 > /sys/block/vdb/queue/rotational || fail "cannot write /sys/block/vdb/queue/rotational"\n')
    init = init.replace("@SWAPSETUP@", swap)
    off = guest is not None and GUEST_KERNELS[guest].lru_gen_default and not plan.get("lru_gen")
    init = init.replace("@LRUGENOFF@", LRUGEN_OFF if off else "")
    rt_on, rt_off = guest_reclaim_trace() if plan.get("reclaim_trace") else ("", "")
    th_on, th_off = guest_throttle()
    init = init.replace("@THROTTLEON@", th_on).replace("@THROTTLEOFF@", th_off)
    return (init.replace("@LRUGEN@", "y" if plan.get("lru_gen") else "n").replace("@MINTTL@", str(int(plan.get("min_ttl_ms") or 0)))
            .replace("@SYSCTL@", sysctl).replace("@RTRACEON@", rt_on).replace("@RTRACEOFF@", rt_off))


def _initramfs(tmp: str, plan: dict, script: str, modules: list, prog: str, ra_kb: int, knobs: Optional[dict] = None,
               guest: Optional[str] = None) -> str:
    root = os.path.join(tmp, "initramfs")
    for d in ("bin", "proc", "sys", "dev", "tmp", "lib/modules"):
        os.makedirs(os.path.join(root, d))
    bb = shutil.which("busybox")
    if bb is None or not _is_static(bb):
        raise RealError("the guest needs a static busybox\n  fix: apt-get install busybox-static (or memtwin lab setup)")
    shutil.copy(bb, os.path.join(root, "bin", "busybox"))
    os.symlink("busybox", os.path.join(root, "bin", "sh"))
    with open(os.path.join(root, "init"), "w") as f:
        f.write(guest_init(plan, ra_kb, knobs, guest))
    os.chmod(os.path.join(root, "init"), 0o755)
    with open(os.path.join(root, "ops"), "w") as f:
        f.write(script)
    shutil.copy(prog, os.path.join(root, "memtwin-guest"))
    os.chmod(os.path.join(root, "memtwin-guest"), 0o755)
    for name, path, data in modules:
        with open(os.path.join(root, "lib", "modules", name + ".ko"), "wb") as f:
            f.write(data(path))
    with open(os.path.join(root, "modules.order"), "w") as f:
        f.write("\n".join(n for n, _, _ in modules) + "\n")
    out = os.path.join(tmp, "initramfs.cpio.gz")
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, check=True).stdout
    with open(out, "wb") as fo:
        cp = subprocess.Popen(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        gz = subprocess.Popen(["gzip", "-1"], stdin=cp.stdout, stdout=fo)
        cp.stdout.close()
        cp.stdin.write(files)
        cp.stdin.close()
        if cp.wait() != 0 or gz.wait() != 0:
            raise RealError("cpio/gzip could not build the initramfs (apt-get install cpio gzip)")
    return out


def _disk(tmp: str, plan: dict) -> str:
    total = sum(f["size"] for f in plan["files"] if not any(f["path"].startswith(m["path"].rstrip("/") + "/") for m in plan["mounts"]))
    written = sum(op["length"] for t in plan["tasks"] for op in t["ops"] if op["op"] == "write")
    size = int((total + written) * 1.3) + (128 << 20)
    img = os.path.join(tmp, "disk.img")
    free = shutil.disk_usage(tmp).free
    if size * 0.8 > free:
        raise RealError(f"the guest disk needs about {size >> 20} MiB in {tmp}, which has {free >> 20} MiB free\n"
                        "  fix: free space, or pass --workdir DIR on a larger file system")
    with open(img, "wb") as f:
        f.truncate(size)
    # the host runner's mkfs (real.mkfs_command): ext4 with page-sized blocks and the scenario's
    # features, or xfs with mkfs.xfs's defaults
    fs, cmd = mkfs_command(plan, img)
    if fs == "xfs" and size < (512 << 20):
        with open(img, "wb") as f:
            f.truncate(512 << 20)  # mkfs.xfs (xfsprogs 5.19+) refuses a file system under 300 MiB
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RealError(f"{cmd[0]} failed on {img}: {r.stderr.strip()}")
    return img


def qemu_command(plan: dict, kernel: str, initrd: str, img: str, serial: str, swap_img: Optional[str] = None) -> list:
    mach = plan["machine"]
    mb = mach["ram"] >> 20
    cpus, nodes = mach["cpus"], mach["nodes"]
    cmd = ["qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "max", "-smp", str(cpus), "-m", f"{mb}M",
           "-nodefaults", "-display", "none", "-monitor", "none", "-no-reboot", "-serial", f"file:{serial}",
           "-kernel", kernel, "-initrd", initrd, "-append", "console=ttyS0 panic=-1 quiet loglevel=1"]
    if nodes > 1:
        per = [mb // nodes + (1 if i < mb % nodes else 0) for i in range(nodes)]
        for i, (cs, m) in enumerate(zip(_node_cpus(cpus, nodes), per)):
            cmd += ["-object", f"memory-backend-ram,id=m{i},size={m}M"]
            node = f"node,nodeid={i},memdev=m{i}"
            if cs:
                node += f",cpus={cs[0]}-{cs[-1]}"
            cmd += ["-numa", node]
    dev = plan["devices"][0] if plan["devices"] else None
    throttle = ""
    if dev and dev["read_bw"]:
        throttle += f",throttling.bps-read={int(dev['read_bw'])}"
    if dev and dev["write_bw"]:
        throttle += f",throttling.bps-write={int(dev['write_bw'])}"
    if swap_img and throttle:
        # the engine's swap area lives on the scenario's one device: the swap disk shares the
        # data disk's bandwidth (one QEMU throttle group)
        throttle += ",throttling.group=memtwin"
    cmd += ["-drive", f"file={img},if=virtio,format=raw" + throttle]
    if swap_img:
        cmd += ["-drive", f"file={swap_img},if=virtio,format=raw" + throttle]
    return cmd


def default_timeout(plan: dict) -> int:
    """Seconds a guest run may take: boot, writing the files, and the ops at a slow TCG rate."""
    sizes = {f["path"]: f["size"] for f in plan["files"]}
    work, sleep = sum(sizes.values()), 0
    for t in plan["tasks"]:
        for op in t["ops"]:
            if op["op"] == "read":
                if op["pattern"] == "random":
                    work += (op.get("count") or 0) * op["bufsize"]
                else:
                    work += op["length"] if op["length"] is not None else sizes.get(op["file"], 0)
            elif op["op"] == "write":
                work += op["length"]
                sizes[op["file"]] = max(sizes.get(op["file"], 0), op["offset"] + op["length"])
            elif op["op"] == "sleep":
                sleep += op["duration_ns"] / 1e9
    return int(120 + work / (8 << 20) + sleep * 3)


# ---------------------------------------------------------------- parsing what the guest printed

_SECTION = re.compile(r"^#(cgdir|t|ru|io|stat|cg \S+|vmstat|kswapd|throttled|zoneinfo|kthwait|zswap|meminfo|cgstat|res|folios|killed)$")


def _sections(text: str) -> dict:
    out, cur = {}, None
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def _snap(sec: dict, cg: Cg, d: str) -> SimpleNamespace:
    def read(path: str) -> str:
        v = sec.get("cg " + os.path.basename(path))
        if v is None or v.startswith("!missing"):
            raise FileNotFoundError(path)
        return v

    user_us, sys_us = (int(x) for x in sec["ru"].split())
    try:
        f = sec["stat"].rsplit(")", 1)[1].split()
        iowait = int(f[39]) / 100.0  # USER_HZ
    except (IndexError, ValueError):
        iowait = None
    io = {}
    for line in sec["io"].splitlines():
        k, _, val = line.partition(":")
        io[k.strip()] = int(val)
    return SimpleNamespace(t=float(sec["t"]), user=user_us / 1e6, sys=sys_us / 1e6, iowait=iowait, io=io,
                           memcg=cg.snapshot(d, _read=read), vm=_kv(sec["vmstat"]),
                           zswap=_kv(sec["zswap"]) if "zswap" in sec else None)


def runner_memory(out: str) -> Optional[dict]:
    """What the guest program's task processes held of their own (guest/memtwin_guest.c: size_obuf()'s
    @@OBUF line and each task's @@TASKMEM line at its end), touched before a task joins its memcg and
    none of the engine's memory: the output buffer each task has (bytes) and the full snapshot it was
    sized from, the most a task's step used of it, what the buffers grew by in steps (charged to the
    tasks' memcgs), and the read buffers' sum. None for a recording made before the runner reported
    it (guest9: until 2026-11-29 every task had an 8 MiB output and a 1 MiB read buffer, 9.4 MiB)."""
    ob = re.search(r"^@@OBUF snapshot (\d+) buffer (\d+)$", out, re.M)
    tm = re.findall(r"^@@TASKMEM \d+ obuf (\d+) peak (\d+) grown (\d+) rbuf (\d+)$", out, re.M)
    if not ob:
        return None
    return {"obuf_bytes": int(ob.group(2)), "snapshot_bytes": int(ob.group(1)), "tasks_reporting": len(tm),
            "peak_bytes": max((int(t[1]) for t in tm), default=0), "grown_bytes": sum(int(t[2]) for t in tm),
            "rbuf_bytes": sum(int(t[3]) for t in tm)}


def node_memory(out: str, tag: str = "NODEMEM") -> dict:
    """MemTotal and MemFree of each NUMA node just before the tasks fork (the guest prints its
    /sys/devices/system/node/nodeN/meminfo lines as @@NODEMEM), in kB, by node id; with tag
    SETUPMEM, once the task processes are set up (forked, their own buffers touched) and before
    any of them starts its ops (guest9, f1c819a: recordings without it have no such figure)."""
    nodes: dict = {}
    for nid, key, kb in re.findall(rf"^@@{tag} Node (\d+) (MemTotal|MemFree):\s+(\d+) kB", out, re.M):
        nodes.setdefault(nid, {})[key] = int(kb)
    return nodes


def setup_writes(out: str) -> list:
    """The runner's set-up writes through the bdi's root wb, in the order the guest program made
    them (@@SETUPW BYTES T: each declared file, then calibrate_file()'s 16 MiB file, written and
    fsync()ed, T its fsync()'s return on CLOCK_MONOTONIC) as [{"bytes": N, "ended_s": S}], S the
    time from that return to the tasks' start (@@START T0): their completions are in the global
    writeback domain the tasks start against (Kernel::wb_setup_writeout, fed back by
    memtwin.validate as `validation.setup_writes`). [] for a guest program before the lines."""
    m = re.search(r"^@@START (\d+\.\d+)$", out, re.M)
    if not m:
        return []
    t0 = float(m.group(1))
    # a declared file of size 0 (one a task's write creates) writes nothing back: no entry (tmpfs21)
    return [{"bytes": int(n), "ended_s": round(max(0.0, t0 - float(t)), 6)}
            for n, t in re.findall(r"^@@SETUPW (\d+) (\d+\.\d+)$", out, re.M) if int(n) > 0]


def setup_complete(out: str) -> bool:
    """Whether every task process reported itself set up before the parent took SETUPMEM
    (@@SETUPREADY READY NTASKS; the parent stops waiting when a task dies or after 60 s). True for
    recordings made before the line existed."""
    m = re.search(r"^@@SETUPREADY (\d+) (\d+)$", out, re.M)
    return m is None or int(m.group(1)) >= int(m.group(2))


# The engine's CPU time for a 4 KiB page of a hot 128 KiB read(): crates/memtwin-engine/src/profile.rs
# CpuCost::reference() lookup + copy_page + (syscall + user_per_syscall) / 32 (held to the engine by
# python/tests/test_qemu.py's test_cpu_calibration_reference_is_the_engines).
REF_HOT_READ_NS_PER_PAGE = 78 + 308 + (169 + 137) / 32
# A 1-byte read of a cached page (calibrate_cpu()'s second loop): CpuCost syscall + lookup; and the
# copy_page share of the hot read. Held to the engine by test_qemu.py's
# test_split_calibration_references_are_the_engines. The guest's loops are bare pread() loops: their
# user time per call is a loop's few instructions, not the engine's user_per_syscall (cat's copy
# loop), so the 1-byte read's reference has none; the hot read's carries user_per_syscall / 32
# (4.3 ns of its 391.6 a page, within the rounding of its factor).
REF_SMALL_READ_NS_PER_CALL = 169 + 78
REF_COPY_PAGE_NS = 308


def cpu_calibration(out: str) -> dict:
    """The guest's CPU speed from its @@CALIB line (guest/memtwin_guest.c calibrate_cpu(): the wall
    time per page of hot 128 KiB reads of a 16 MiB memfd, best of 5): {"hot_read_ns_per_page": X,
    "cpu_slowdown": X / the engine's figure, rounded, at least 1} for a scenario's `[machine]
    cpu_slowdown`; {"unavailable": why} when the guest could not measure it."""
    m = re.search(r"^@@CALIB (\S+) (.*)$", out, re.M)
    if not m:
        return {"unavailable": "the guest program printed no @@CALIB line"}
    if m.group(1) != "hot_read_ns_per_page":
        return {"unavailable": m.group(2).strip()}
    try:
        ns = float(m.group(2))
    except ValueError:
        return {"unavailable": f"unreadable @@CALIB figure {m.group(2).strip()!r}"}
    res = {"hot_read_ns_per_page": ns, "cpu_slowdown": max(1, round(ns / REF_HOT_READ_NS_PER_PAGE)),
           "method": "wall time per 4 KiB page of 128 KiB reads of a 16 MiB memfd in memory, best of 5 passes, "
                     f"over the engine's {REF_HOT_READ_NS_PER_PAGE:.1f} ns (CpuCost lookup + copy_page + syscall and user time / 32)"}
    res.update(copy_calibration(out, ns))
    res.update(file_calibration(out))
    res.update(request_calibration(out))
    res.update(readpath_calibration(out))
    return res


# The engine's CPU time for one read request of the direct path: CpuCost syscall + submit_io (the bio's
# set-up, blk-mq's submission and the driver's notify, the completion). Held to the engine by
# test_qemu.py's test_request_calibration_reference_is_the_engines. On the reference machine (this
# host, 6.18.44-fc-v782, 2026-11-30, load 4) the guest program's calibrate_request() took 8.1-13.5 us of
# CPU a 128 KiB O_DIRECT read (six runs on the root ext4): the table's 16.2 us covers that path within 2x.
REF_DIRECT_READ_NS_PER_REQUEST = 169 + 16_000


def request_calibration(out: str) -> dict:
    """The guest's CPU time per read request from its @@CALIBIO line (guest/memtwin_guest.c
    calibrate_request(): 128 KiB O_DIRECT reads of the calibration file on the scenario's disk, the
    reading thread's CPU time per request, best of 3 passes): {"direct_read_cpu_ns_per_request": C,
    "direct_read_wall_ns_per_request": W, "submit_io_slowdown": C over the engine's syscall +
    submit_io, rounded, at least 1} for a scenario's `[machine] submit_io_slowdown` (under QEMU/TCG
    the virtio notify of each request is an MMIO exit to QEMU, the host's cost, which the code's
    slowdown does not scale); {"request_unavailable": why} when the guest could not measure it; {}
    from an older guest program."""
    kv, why = _calib_line(out, "CALIBIO", ("direct_read_cpu_ns_per_request", "direct_read_wall_ns_per_request", "request_bytes"),
                          "request_unavailable")
    if kv is None:
        return why
    cpu = kv["direct_read_cpu_ns_per_request"]
    busy = {}
    b = re.search(r"^@@CALIBIOBUSY readers (\d+) direct_read_cpu_ns_per_request (\S+) wall_s (\S+)$", out, re.M)
    try:
        if b and float(b.group(2)) > 0 and math.isfinite(float(b.group(2))):
            # the same requests from that many processes at once: documents how QEMU's device emulation
            # serves many (its global lock); not an engine input
            busy = {"busy_readers": int(b.group(1)), "busy_direct_read_cpu_ns_per_request": float(b.group(2))}
    except ValueError:
        pass
    return {**busy, "direct_read_cpu_ns_per_request": cpu, "direct_read_wall_ns_per_request": kv["direct_read_wall_ns_per_request"],
            "submit_io_slowdown": max(1, round(cpu / REF_DIRECT_READ_NS_PER_REQUEST)),
            "request_method": f"{int(kv['request_bytes']) >> 10} KiB O_DIRECT reads of the calibration file on the scenario's disk, "
                              "the reader's CPU time (CLOCK_THREAD_CPUTIME_ID) per request, best of 3 passes after one, over the "
                              f"engine's {REF_DIRECT_READ_NS_PER_REQUEST} ns (CpuCost syscall + submit_io): submit_io_slowdown"}


def _calib_line(out: str, tag: str, want: tuple, unavailable: str) -> tuple:
    """(figures, None) of the guest's `@@TAG key value ...` line when it holds exactly the keys
    `want`, each a finite number above 0; (None, {}) without the line (an older guest program);
    (None, {unavailable: why}) when the guest said it could not measure (`@@TAG none WHY`) or the
    line is unreadable."""
    m = re.search(rf"^@@{tag} (.*)$", out, re.M)
    if not m:
        return None, {}
    f = m.group(1).split()
    if f[:1] == ["none"]:
        return None, {unavailable: " ".join(f[1:])}
    try:
        kv = dict(zip(f[::2], (float(x) for x in f[1::2])))
    except ValueError:
        kv = {}
    if len(f) != 2 * len(want) or set(kv) != set(want) or any(not (x > 0 and math.isfinite(x)) for x in kv.values()):
        return None, {unavailable: f"unreadable @@{tag} figures {m.group(1)[:120]!r}"}
    return kv, None


def file_calibration(out: str) -> dict:
    """The guest's reads of a regular file on the scenario's disk from its @@CALIBF line
    (guest/memtwin_guest.c calibrate_file(): hot 128 KiB reads, 1-byte reads and cold 128 KiB reads
    after POSIX_FADV_DONTNEED of a 16 MiB file, each the best of its passes): {"file_hot_read_ns_per_page",
    "file_small_read_ns_per_call", "cold_read_ns_per_page"}; {"file_unavailable": why} when the guest
    could not measure them; {} from an older guest program. The memfd of calibrate_cpu() is shmem,
    whose read path is not filemap_read()'s, and it has no cold read."""
    kv, why = _calib_line(out, "CALIBF", ("hot_read_ns_per_page", "small_read_ns_per_call", "cold_read_ns_per_page"), "file_unavailable")
    if kv is None:
        return why
    if kv["small_read_ns_per_call"] > kv["hot_read_ns_per_page"]:
        # a 1-byte read slower than a page of a 128 KiB read: the host stalled the vCPU in one of them
        return {"file_unavailable": f"the 1-byte read ({kv['small_read_ns_per_call']} ns) took longer than a page of the hot "
                                    f"read ({kv['hot_read_ns_per_page']} ns): a host stall in the calibration"}
    return {"file_hot_read_ns_per_page": kv["hot_read_ns_per_page"], "file_small_read_ns_per_call": kv["small_read_ns_per_call"],
            "cold_read_ns_per_page": kv["cold_read_ns_per_page"],
            "file_method": "a 16 MiB file on the scenario's disk, written and fsync()ed: hot 128 KiB reads (best of 5 passes), "
                           "1-byte reads of each page (best of 5), 128 KiB reads after POSIX_FADV_DONTNEED (best of 3)"}


def readpath_probe_asked() -> bool:
    """xfs21b: whether the guest program runs calibrate_readpath() before the tasks: only when the runner's
    environment has MEMTWIN_READPATH_PROBE=1 (a diagnostic; a validation recording's guest does nothing more)."""
    return os.environ.get("MEMTWIN_READPATH_PROBE") == "1"


def readpath_calibration(out: str) -> dict:
    """xfs21b: the guest's buffered read path by component from its @@CALIBRP line (guest/memtwin_guest.c
    calibrate_readpath(): a 32 MiB file on the scenario's disk, the reading thread's CPU time per page of a
    cold pass in the program's unlimited memcg, of hot passes over the folios readahead gave it, of the
    POSIX_FADV_DONTNEED that removes them, of anonymous first-touch faults and of huge-page ones; numa_hit's count of the cold
    pass's allocations). Keys prefixed "rp_"; {"rp_unavailable": why} when the guest could not measure
    them; {} from an older guest program. Diagnostic: nothing validate gives the engine is read from it."""
    want = ("cold_read_cpu_ns_per_page", "cold_read_wall_ns_per_page", "hot_read_cpu_ns_per_page", "drop_cpu_ns_per_page",
            "cold_allocs", "pages", "anon_fault_cpu_ns_per_page", "thp_fault_cpu_ns_per_page", "thp_faults")
    m = re.search(r"^@@CALIBRP (.*)$", out, re.M)
    if not m:
        return {}
    f = m.group(1).split()
    if f[:1] == ["none"]:
        return {"rp_unavailable": " ".join(f[1:])}
    try:
        kv = dict(zip(f[::2], (float(x) for x in f[1::2])))
    except ValueError:
        kv = {}
    # thp_faults may be 0 (no huge page given: THP off in the guest); every other figure above 0
    if len(f) != 2 * len(want) or set(kv) != set(want) or any(not (math.isfinite(x) and (x > 0 or (k == "thp_faults" and x == 0))) for k, x in kv.items()):
        return {"rp_unavailable": f"unreadable @@CALIBRP figures {m.group(1)[:400]!r}"}
    res = {"rp_" + k: (int(v) if k in ("cold_allocs", "pages", "thp_faults") else v) for k, v in kv.items()}
    res["rp_method"] = ("a 32 MiB file on the scenario's disk, written, fsync()ed, dropped; 3 rounds of a cold pass of 128 KiB reads "
                        "(unlimited memcg), 3 hot passes, POSIX_FADV_DONTNEED; CLOCK_THREAD_CPUTIME_ID, best round of each; "
                        "numa_hit across the cold pass; anonymous first-touch faults of 32 MiB (MADV_NOHUGEPAGE), best of 3; "
                        "huge-page first-touch faults of 32 MiB (MADV_HUGEPAGE), best of 3, thp_fault_alloc's count")
    return res


def split_factors(small_ns: float, hot_ns: float) -> tuple:
    """(code_slowdown, copy_slowdown) of a guest's 1-byte read of a cached page (`small_ns` a call)
    and its hot 128 KiB read (`hot_ns` a page): the 1-byte read over the engine's syscall + lookup,
    rounded, at least 1; what is left of the hot read once its syscall, user and lookup share are
    taken at that factor, over the engine's copy_page, rounded, at least 1."""
    if not (math.isfinite(small_ns) and math.isfinite(hot_ns) and 0 < small_ns <= hot_ns):
        raise ValueError(f"split_factors needs 0 < small <= hot, both finite: {small_ns!r}, {hot_ns!r}")
    code = max(1, round(small_ns / REF_SMALL_READ_NS_PER_CALL))
    copy = max(1, round((hot_ns - code * (REF_HOT_READ_NS_PER_PAGE - REF_COPY_PAGE_NS)) / REF_COPY_PAGE_NS))
    return code, copy


def copy_calibration(out: str, hot_ns: float) -> dict:
    """The guest's CPU speed split in two from its @@CALIB2 line (calibrate_cpu()'s 1-byte reads of
    the same pages: a syscall and a page lookup, no copy) and its hot read (`hot_ns` per page):
    {"small_read_ns_per_call": S, "code_slowdown": S over the engine's syscall + lookup, rounded, at
    least 1, "copy_slowdown": what is left of the hot read once its syscall, user and lookup share
    are taken at code_slowdown, over the engine's copy_page, rounded, at least 1} for a scenario's
    `[machine] cpu_slowdown` and `copy_slowdown`: QEMU/TCG emulates a copy's loads and stores at a
    cost of its own, so one factor from the copy-bound hot read does not hold for the kernel's other
    code. {} when the guest printed no @@CALIB2 line (an older guest program)."""
    m = re.search(r"^@@CALIB2 small_read_ns_per_call (\S+)$", out, re.M)
    if not m:
        return {}
    try:
        small = float(m.group(1))
    except ValueError:
        return {"copy_unavailable": f"unreadable @@CALIB2 figure {m.group(1)!r}"}
    if not (math.isfinite(small) and math.isfinite(hot_ns) and 0 < small <= hot_ns):
        return {"copy_unavailable": f"@@CALIB2 figure {small!r} against the hot read's {hot_ns!r}: not 0 < small <= hot"}
    code, copy = split_factors(small, hot_ns)
    return {"small_read_ns_per_call": small, "code_slowdown": code, "copy_slowdown": copy,
            "copy_method": "1-byte reads of each page of the same memfd, best of 5 passes, over the engine's "
                           f"{REF_SMALL_READ_NS_PER_CALL} ns (CpuCost syscall + lookup): code_slowdown; the hot read less "
                           f"code_slowdown times its {REF_HOT_READ_NS_PER_PAGE - REF_COPY_PAGE_NS:.1f} ns of syscall, user and lookup, "
                           f"over copy_page's {REF_COPY_PAGE_NS} ns: copy_slowdown"}


def wakeup_calibration(out: str) -> dict:
    """The guest's cross-CPU wake-up latency from its @@WAKE line (guest/memtwin_guest.c
    calibrate_wakeup(): how long a task asleep on an idle CPU took to run after another CPU woke it,
    200 rounds, sorted, in ns): {"wakeup_latency_ns": [...]} for a scenario's `[machine]
    wakeup_latency`; {"wakeup_unavailable": why} when the guest could not measure it; {} from a guest
    program that does not measure it."""
    m = re.search(r"^@@WAKE ?(.*)$", out, re.M)
    if not m:
        return {}
    f = m.group(1).split()
    if f[:1] == ["none"]:
        return {"wakeup_unavailable": " ".join(f[1:])}
    try:
        ns = sorted(int(x) for x in f)
    except ValueError:
        return {"wakeup_unavailable": f"unreadable @@WAKE figures {m.group(1)[:80]!r}"}
    if not ns or ns[0] < 0:
        return {"wakeup_unavailable": f"unreadable @@WAKE figures {m.group(1)[:80]!r}"}
    return {"wakeup_latency_ns": ns,
            "wakeup_method": "a task asleep in read() on the last CPU woken by a pipe write from CPU 0, 1 ms apart: "
                             "the time from the write until it ran, 200 rounds after 10 not counted, sorted"}


def stall_calibration(out: str, tag: str = "STALL") -> dict:
    """The guest's vCPU stalls from its @@STALL lines (guest/memtwin_guest.c calibrate_stall_as(): a
    process pinned to each CPU spinning on CLOCK_MONOTONIC for the probe's time, every gap of at
    least min_ns between two reads; zswap20): {"vcpu_stall": {"probe_ns", "min_ns", "cpus": [{"reads",
    "gaps_ns"}, ...]}} for a scenario's `[machine] vcpu_stall` (the key is "vcpu_stall_post" for
    @@STALLPOST, the same probe after the tasks, "vcpu_stall_alone" for @@STALL1, each CPU's probe alone: not
    given to the engine); {"vcpu_stall_unavailable":
    why} when the guest could not measure it; {} from a guest program that does not measure it, or
    one not asked to (the probe is opt-in: `memtwin real --vcpu-stall-probe`, a STALLPROBE line)."""
    key = {"STALL": "vcpu_stall", "STALL1": "vcpu_stall_alone"}.get(tag, "vcpu_stall_post")
    lines = re.findall(rf"^@@{tag} (.*)$", out, re.M)
    if not lines:
        return {}
    if lines[0].split()[:1] == ["none"]:
        return {key + "_unavailable": " ".join(lines[0].split()[1:])}
    cpus = {}
    probe = min_ns = None
    for line in lines:
        try:
            f = [int(x) for x in line.split()]
        except ValueError:
            return {key + "_unavailable": f"unreadable @@{tag} figures {line[:80]!r}"}
        if len(f) < 4 or f[0] in cpus or min(f) < 0 or (probe is not None and (f[1], f[3]) != (probe, min_ns)):
            return {key + "_unavailable": f"unreadable @@{tag} figures {line[:80]!r}"}
        probe, min_ns = f[1], f[3]
        cpus[f[0]] = {"reads": f[2], "gaps_ns": f[4:]}
    if sorted(cpus) != list(range(len(cpus))):
        return {key + "_unavailable": f"@@{tag} lines for CPUs {sorted(cpus)}, not 0..{len(cpus) - 1}"}
    return {key: {"probe_ns": probe, "min_ns": min_ns, "cpus": [cpus[c] for c in range(len(cpus))],
                  "method": "one process pinned to each CPU, all at once, spinning on clock_gettime(CLOCK_MONOTONIC) "
                            "for probe_ns; every gap of at least min_ns between two consecutive reads, in the order seen"
                            + {"STALL": " (before the tasks)", "STALL1": " (before the tasks, one CPU's probe at a time, the others idle)"}.get(tag, " (after the tasks)")}}


# Migratetypes whose pageblocks a movable allocation falls back into (mm/page_alloc.c fallbacks[MIGRATE_MOVABLE]).
NON_MOVABLE_TYPES = ("Unmovable", "Reclaimable")


def pagetypeinfo(out: str) -> dict:
    """The boot's /proc/pagetypeinfo (the init script's, before the disk is mounted and the tasks
    are set up; @@PAGETYPEINFO_BEGIN..END), by "node/zone": `free` the free blocks per migratetype
    and order (0..MAX_ORDER), `blocks` the pageblocks per migratetype, `nonmovable_free_pages`
    the free pages in Unmovable and Reclaimable pageblocks (what a movable allocation falls back
    into, `__rmqueue_fallback()`, each steal a `boost_watermark()` 5.0+; issue 22,
    lab/measurements/kswapd-direct). {} where the guest printed none."""
    m = re.search(r"^@@PAGETYPEINFO_BEGIN\n(.*?)^@@PAGETYPEINFO_END$", out, re.M | re.S)
    if not m:
        return {}
    res: dict = {}
    names: list = []
    for line in m.group(1).splitlines():
        f = re.match(r"^Node\s+(\d+), zone\s+(\S+), type\s+(\S+)\s+([\d\s]+)$", line)
        if f:
            z = res.setdefault(f"{f.group(1)}/{f.group(2)}", {"free": {}, "blocks": {}})
            z["free"][f.group(3)] = [int(x) for x in f.group(4).split()]
            continue
        h = re.match(r"^Number of blocks type\s+(.*)$", line)
        if h:
            names = h.group(1).split()
            continue
        b = re.match(r"^Node\s+(\d+), zone\s+(\S+)\s+([\d\s]+)$", line)
        if b and names:
            z = res.setdefault(f"{b.group(1)}/{b.group(2)}", {"free": {}, "blocks": {}})
            z["blocks"] = dict(zip(names, (int(x) for x in b.group(3).split())))
    for z in res.values():
        z["nonmovable_free_pages"] = sum(n << o for t in NON_MOVABLE_TYPES for o, n in enumerate(z["free"].get(t, [])))
    return res


def parse_output(out: str, plan: dict, steps: list, tracked: list, cg: Cg) -> tuple:
    """(step records sorted by end time, facts about the guest) from the serial console text."""
    out = out.replace("\r", "")
    facts = {}
    for key in ("UNAME", "MEMTOTAL", "NODES", "RA", "COLD", "EXIT"):
        m = re.search(rf"^@@{key} ?(.*)$", out, re.M)
        facts[key.lower()] = m.group(1).strip() if m else None
    facts["knobs"] = dict(re.findall(r"^@@KNOB (\S+) (\S+)$", out, re.M))
    facts["queue"] = {k: int(v) for k, v in re.findall(r"^@@QUEUE (\S+) (\d+)$", out, re.M)}
    facts["modfail"] = re.findall(r"^@@MODFAIL (\S+)", out, re.M)
    facts["thp"] = (re.search(r"^@@THP (.*)$", out, re.M) or [None, None])[1]
    facts["lru_gen"] = (re.search(r"^@@LRUGEN (.*)$", out, re.M) or [None, None])[1]
    facts["lru_gen_debug"] = re.findall(r"^@@LRUGENDBG (.*)$", out, re.M)
    facts["swap"] = (re.search(r"^@@SWAP (.*)$", out, re.M) or [None, None])[1]
    facts["zswap"] = (re.search(r"^@@ZSWAP (.*)$", out, re.M) or [None, None])[1]
    facts["throttle"] = (re.search(r"^@@THROTTLE (.*)$", out, re.M) or [None, None])[1]
    facts["scheduler"] = (re.search(r"^@@SCHED (.*)$", out, re.M) or [None, None])[1]
    wbt = re.search(r"^@@WBT (\d+)$", out, re.M)
    facts["wbt_lat_usec"] = int(wbt.group(1)) if wbt else None
    facts["virtio"] = {}
    vm = re.search(r"^@@VIRTIO (.*)$", out, re.M)
    if vm:
        f = vm.group(1).split()
        facts["virtio"] = {k: (int(v) if v.isdigit() else v) for k, v in zip(f[0::2], f[1::2])}
    facts["node_mem_kB"] = node_memory(out)
    facts["pagetypeinfo"] = pagetypeinfo(out)
    facts["runner_memory"] = runner_memory(out)
    facts["node_mem_kB_setup"] = node_memory(out, "SETUPMEM")
    facts["setup_writes"] = setup_writes(out)
    if not setup_complete(out):
        # a task died or hung before it was set up: the figure is not the set-up guest's (review9 L1)
        facts["node_mem_kB_setup"] = {}
    facts["cpu"] = cpu_calibration(out)
    facts["cpu"].update(wakeup_calibration(out))
    facts["cpu"].update(stall_calibration(out))
    facts["cpu"].update(stall_calibration(out, "STALLPOST"))
    facts["cpu"].update(stall_calibration(out, "STALL1"))
    errors = re.findall(r"^@@ERROR (.*)$", out, re.M)
    names = [t["name"] for t in plan["tasks"]]
    facts["oom_killed_tasks"] = [names[int(i)] for i in re.findall(r"^@@KILLED (\d+)$", out, re.M) if int(i) < len(names)]
    for i, e in enumerate(errors):
        m = re.match(r"task (\d+)(.*)$", e)
        if m and int(m.group(1)) < len(names):
            rest = m.group(2)
            sm = re.match(r" step (\d+):(.*)$", rest)
            if sm and int(sm.group(1)) < len(steps):
                rest = f" step {steps[int(sm.group(1))]!r}:{sm.group(2)}"
            errors[i] = f"task {names[int(m.group(1))]}{rest}"
    if errors:
        raise RealError("the guest run failed: " + "; ".join(errors))
    if "@@DONE" not in out:
        tail = "\n".join(out.strip().splitlines()[-15:])
        raise RealError(f"the guest ended before reporting every task (kernel panic or early poweroff); its console ended with:\n{tail}")
    recs = []
    # the ops of each step, by the step index op_script() gave them
    step_ops = {}
    for t in plan["tasks"]:
        prev = None
        for op in t["ops"]:
            if op["step"] != prev:
                prev = op["step"]
                step_ops[len(step_ops)] = []
            step_ops[len(step_ops) - 1].append(op)
    recs = []
    for m in re.finditer(r"^@@STEP (\d+) (\d+)\n(.*?)^@@ENDSTEP$", out, re.M | re.S):
        ti, si, body = int(m.group(1)), int(m.group(2)), m.group(3)
        a_txt, _, b_txt = body.partition("\n@@B\n")
        a_sec = _sections(a_txt.split("@@A\n", 1)[-1])
        b_sec = _sections(b_txt)
        d = _cg_dir(a_sec)
        a, b = _snap(a_sec, cg, d), _snap(b_sec, cg, d)
        mi = {}
        for line in b_sec["meminfo"].splitlines():
            k, _, val = line.partition(":")
            if val.split():
                mi[k] = int(val.split()[0])
        st = _kv(b_sec["cgstat"]) if "cgstat" in b_sec else None
        res = {}
        for line in b_sec.get("res", "").splitlines():
            idx, n = line.split()
            res[tracked[int(idx)]] = int(n)
        res, total = step_view(res, step_ops.get(si, []), plan.get("report_resident_pages", "step"))
        metrics = metrics_from(a, b, mi, st)
        if not has_mlock(plan):
            metrics.pop("memcg.unevictable_bytes", None)
        # a task SIGKILLed in this step (the OOM killer): the guest program's parent ended the
        # step for it from the zombie (`#killed`), as the engine ends a victim's step
        metrics["oom_killed"] = 1 if "killed" in b_sec else 0
        rec = {"name": steps[si], "task": names[ti], "memcg": "/" + _cg_name(cg, d),
               "metrics": metrics, "resident_pages": res, "pagecache": total, "_start": a.t, "_end": b.t}
        if "folios" in b_sec:
            rec["folios"] = parse_folios(b_sec["folios"])
        ks = kswapd_cpu_s(a_sec, b_sec)
        if ks is not None:
            rec["kswapd_cpu_s"] = ks
        rec.update(kthread_waits(a_sec, b_sec))
        wm, wus = wait_metrics(a_sec, b_sec)
        metrics.update(wm)
        if wus is not None:
            rec["throttled_us"] = wus
        recs.append(rec)
    recs.sort(key=lambda s: s["_end"])
    step_windows(recs)
    return recs, facts


def step_windows(recs: list) -> None:
    """Give each step record its window on the guest's CLOCK_MONOTONIC (`window_s`: [start, end] of
    its two snapshots, in seconds from the first step's start), taking its `_start`/`_end`. The
    guest runner's own time between a task's steps (the end snapshot with its /proc/kpageflags scan,
    the next step's start snapshot) passes on the kernel's clock too, and time-driven mechanisms see
    it (6.12's periodic memcg stats flush: lab/measurements/memcg-stats-flush)."""
    t0 = min((s["_start"] for s in recs), default=0.0)
    for s in recs:
        s["window_s"] = [round(s.pop("_start") - t0, 6), round(s.pop("_end") - t0, 6)]


def kswapd_cpu_s(a_sec: dict, b_sec: dict) -> Optional[float]:
    """The CPU time the guest's kswapd threads ran between a step's two snapshots (memtwin_guest.c
    kswapd_cpu(): `#kswapd` "schedstat NS" or "stat NS", their CPU time so far), in seconds; None
    when the guest printed none (no kswapd found, or an older guest program)."""
    try:
        (how_a, ns_a), (how_b, ns_b) = (sec["kswapd"].split() for sec in (a_sec, b_sec))
    except (KeyError, ValueError):
        return None
    if how_a != how_b:
        return None
    return max(0, int(ns_b) - int(ns_a)) / 1e9


def _kthwait(sec: dict) -> Optional[dict]:
    """{pid: (comm, run_delay_ns, pcount)} of a snapshot's `#kthwait` section (memtwin_guest.c
    kthread_waits()), or None when the guest printed none (an older guest program) or a line is
    unreadable."""
    if "kthwait" not in sec:
        return None
    out = {}
    for line in sec["kthwait"].splitlines():
        f = line.split()
        if len(f) != 4 or not all(x.isdigit() for x in f[1:]):
            return None
        out[int(f[1])] = (f[0], int(f[2]), int(f[3]))
    return out


def kthread_waits(a_sec: dict, b_sec: dict) -> dict:
    """The guest scheduler's run-queue waits, between a step's two snapshots, of the kernel threads
    its tasks wake (wake11, no tracing: /proc/PID/schedstat's run_delay and pcount, kthread_waits() in
    memtwin_guest.c): `kswapd_run_delay_s` and `kswapd_runs` (the kswapdN threads' time from wake-up
    to switch-in, summed, and their switch-ins), `kworker_run_delay_s` and `kworker_runs` (the same of
    the CPU-bound kworker/N:M threads, which run 6.1's zswap shrink worker; a kworker that exited
    within the step is missing, one that appeared in it counts from its start). A vCPU the host does
    not run after the switch-in is run time, not wait, to the guest (lab/measurements/kswapd-direct).
    {} when the guest printed none."""
    a, b = _kthwait(a_sec), _kthwait(b_sec)
    if a is None or b is None:
        return {}
    out = {}
    for key, pre in (("kswapd", "kswapd"), ("kworker", "kworker/")):
        delay = runs = 0
        seen = False
        for pid, (comm, d, n) in b.items():
            if not comm.startswith(pre):
                continue
            seen = True
            d0, n0 = (a[pid][1], a[pid][2]) if pid in a and a[pid][0] == comm else (0, 0)
            delay += max(0, d - d0)
            runs += max(0, n - n0)
        if seen:
            out[f"{key}_run_delay_s"] = delay / 1e9
            out[f"{key}_runs"] = runs
    return out


def parse_folios(text: str) -> dict:
    """The guest's #folios section (memtwin_guest.c folios()) in the host runner's layout
    (memtwin.real.memcg_folios): {"file": {order: folios}, "file_pages": n, "other_pages": n}."""
    out = {"file": {}, "file_pages": 0, "other_pages": 0}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == "order":
            out["file"][f[1]] = int(f[2])
        elif len(f) == 2 and f[0] in ("file_pages", "other_pages"):
            out[f[0]] = int(f[1])
    return out


def _cg_dir(sec: dict) -> str:
    return sec["cgdir"].strip()


def _cg_name(cg: Cg, d: str) -> str:
    rel = os.path.relpath(d, cg.top)
    return "" if rel in (".", "_root") else rel


# ---------------------------------------------------------------- the run


def _qemu_version() -> str:
    try:
        return subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True, text=True, timeout=30).stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "?"


def _qemu_priority(nice: int) -> None:
    """In the QEMU child before exec (after setsid(): its own session, so its own autogroup):
    _die_with_parent(), then the nice value `nice` for the process (every QEMU thread inherits it)
    and, with sched_autogroup on, for its autogroup (sched(7): writing a nice value to
    /proc/self/autogroup sets the group's CPU weight against the other sessions'; without it a
    task's nice value ranks it only within its own session)."""
    _die_with_parent()
    os.setpriority(os.PRIO_PROCESS, 0, nice)
    if sched_autogroup_enabled() == 1:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(nice))


def _autogroup_nice(pid: int) -> Optional[int]:
    """The nice value of process `pid`'s autogroup as /proc/PID/autogroup shows it ("/autogroup-N nice V",
    sched(7)); None when sched_autogroup is off or the file cannot be read or parsed."""
    if sched_autogroup_enabled() != 1:
        return None
    try:
        with open(f"/proc/{pid}/autogroup") as f:
            m = re.search(r"\bnice\s+(-?\d+)", f.read())
    except OSError:
        return None
    return int(m.group(1)) if m else None


def _die_with_parent() -> None:
    """In the QEMU child before exec: SIGKILL it when this process dies (a killed `memtwin real`
    must not leave a guest running)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


RTRACE_VMSTAT = re.compile(r"^(pageoutrun|allocstall_\w+|kswapd_\w+|pgscan_\w+|pgsteal_\w+|pgalloc_\w+|nr_free_pages|drop_\w+) ")


def reclaim_trace_text(out: str, steps: list, plan: dict) -> str:
    """The text `memtwin real --reclaim-trace` writes for one boot: each step's window on the
    guest's CLOCK_MONOTONIC (the trace's clock) with its reclaim counters from /proc/vmstat
    (pageoutrun, allocstall_*, kswapd_*_hit_quickly, pgscan/pgsteal_*, pgalloc_*: end minus
    start), the zones' free pages and watermarks before and after the tasks, the ring buffers'
    losses, then the raw ftrace lines (guest_reclaim_trace())."""
    out = out.replace("\r", "")
    names = [t["name"] for t in plan["tasks"]]
    L = [f"# events: {' '.join(RTRACE_EVENTS)}; kprobes: " + "; ".join(f"memtwin/{n} at {fn} ({a})" for n, fn, a in RTRACE_PROBES + RTRACE_PCP_PROBES),
         "# free= is vm_zone_stat[NR_FREE_PAGES] (every zone of the guest's node), in pages; clock: mono (seconds, CLOCK_MONOTONIC)",
         f"# ring buffer {RTRACE_BUF_KB} KiB a CPU (guest memory outside the scenario)"]
    for m in re.finditer(r"^@@STEP (\d+) (\d+)\n(.*?)^@@ENDSTEP$", out, re.M | re.S):
        ti, si, body = int(m.group(1)), int(m.group(2)), m.group(3)
        a_txt, _, b_txt = body.partition("\n@@B\n")
        a_sec, b_sec = _sections(a_txt.split("@@A\n", 1)[-1]), _sections(b_txt)
        try:
            ta, tb = float(a_sec["t"]), float(b_sec["t"])
        except (KeyError, ValueError):
            continue
        va, vb = _kv(a_sec.get("vmstat", "")), _kv(b_sec.get("vmstat", ""))
        d = " ".join(f"{k}={vb[k] - va.get(k, 0)}" for k in sorted(vb) if RTRACE_VMSTAT.match(k + " ") and vb[k] - va.get(k, 0))
        L.append(f"# step {steps[si] if si < len(steps) else si!r} task {names[ti] if ti < len(names) else ti} "
                 f"t {ta:.6f} .. {tb:.6f}: {d}")
    for i, zi in enumerate(re.findall(r"^@@RTRACE_ZONEINFO_BEGIN\n(.*?)^@@RTRACE_ZONEINFO_END$", out, re.M | re.S)):
        L.append(f"# zoneinfo {'before' if i == 0 else 'after'} the tasks: " + " | ".join(" ".join(x.split()) for x in zi.strip().splitlines()))
    for i, pt in enumerate(re.findall(r"^@@RTRACE_PAGETYPEINFO_BEGIN\n(.*?)^@@RTRACE_PAGETYPEINFO_END$", out, re.M | re.S)):
        # /proc/pagetypeinfo's free blocks by zone, migratetype and order (orders 0..10)
        L.append(f"# pagetypeinfo {'before' if i == 0 else 'after'} the tasks: " + " | ".join(" ".join(x.split()) for x in pt.strip().splitlines()))
    for tag, how in (("WAKE", "before the tasks (the boot's machine.wakeup_latency), 1 ms apart, the writer asleep"),
                     ("WAKEPOST", "after the tasks, the same"), ("WAKEBUSY", "after the tasks, 1 ms apart, the writer spinning"),
                     ("WAKEGAP", "after the tasks, 10 ms apart, the writer asleep"),
                     ("WAKEPROG", "after the tasks, 10 ms apart, the writer spinning"),
                     ("WAKEPROG_PROG", "the same rounds: the writer's progress until the sleeper ran, at its best pace")):
        m = re.search(rf"^@@{tag} (.*)$", out, re.M)
        if m:
            L.append(f"# wake {tag} ns ({how}): {m.group(1)}")
    L += [f"# lost: {x}" for x in re.findall(r"^@@RTRACE_STATS (.*)$", out, re.M)]
    L += [f"# no kprobe at {x} (inlined in this kernel)" for x in re.findall(r"^@@RTRACE_NOPROBE (\S+)", out, re.M)]
    L += [f"# kallsyms: {x}" for x in re.findall(r"^@@RTRACE_KSYM (.*)$", out, re.M)]
    m = re.search(r"^@@RTRACE_BEGIN\n(.*?)^@@RTRACE_END$", out, re.M | re.S)
    if not m:
        raise RealError("--reclaim-trace: the guest printed no trace (its console has no @@RTRACE_BEGIN..@@RTRACE_END)")
    return "\n".join(L) + "\n" + m.group(1)


def run_qemu(plan: dict, kernel: Optional[str] = None, workdir: Optional[str] = None, timeout: Optional[int] = None,
             log=None, reclaim_trace: bool = False, nice: Optional[int] = None) -> dict:
    """Run a plan in a QEMU guest; the variant entry of the JSON layout, with `real` info.
    `reclaim_trace`: also trace kswapd and direct reclaim in the guest (guest_reclaim_trace()),
    the text under the result's "reclaim_trace" key (not part of the JSON layout). `nice`: QEMU's
    nice value and, with sched_autogroup on, its session's autogroup's (`memtwin real --qemu-nice`,
    _qemu_priority()); None leaves both as inherited."""
    workdir = workdir or DEFAULT_WORKDIR
    if reclaim_trace:
        plan = {**plan, "reclaim_trace": True}
    knobs = kernel_knobs(kernel, workdir)
    guest = None if kernel is not None else guest_kernel_of(plan)
    check_plan(plan, knobs, guest)
    # The user's own arguments first: a wrong --kernel path is wrong on every machine.
    kimg, moddir, origin = _kernel_and_modules(kernel, workdir, guest or "6.1")
    for tool, pkg in PACKAGES.items():
        if shutil.which(tool) is None:
            raise RealError(f"--on qemu needs `{tool}`, which is not installed\n  fix: memtwin lab setup (or apt-get install {pkg})")
    prog = guest_program(workdir)
    script, steps, tracked, cg = op_script(plan, knobs)
    modules = _module_files(moddir, fs_of(plan)[0]) if moddir else []
    timeout = timeout or default_timeout(plan) + (RTRACE_TIMEOUT_MARGIN_S if reclaim_trace else 0)
    ra = plan["devices"][0]["read_ahead_kb"] if plan["devices"] else 128
    os.makedirs(workdir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="run-", dir=workdir)
    leftovers.write_owner(tmp, "qemu")  # for `memtwin lab clean`, should this process be killed (SIGKILL)
    proc = None
    old = {}

    def on_signal(signum, _frame):
        raise Interrupted(f"interrupted by {signal.Signals(signum).name}; QEMU was stopped and its files removed")

    for sg in (signal.SIGINT, signal.SIGTERM):
        old[sg] = signal.signal(sg, on_signal)
    try:
        initrd = _initramfs(tmp, plan, script, modules, prog, ra, knobs, guest)
        img = _disk(tmp, plan)
        swap_img = None
        if plan["machine"].get("swap"):
            swap_img = os.path.join(tmp, "swap.img")
            with open(swap_img, "wb") as f:  # sparse; mkswap in the guest writes its header
                f.truncate(int(plan["machine"]["swap"]))
        serial = os.path.join(tmp, "serial.log")
        cmd = qemu_command(plan, kimg, initrd, img, serial, swap_img)
        errf = open(os.path.join(tmp, "qemu.err"), "w+")
        t0 = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=errf, stderr=errf, start_new_session=True,
                                    preexec_fn=_die_with_parent if nice is None else lambda: _qemu_priority(nice))
        except subprocess.SubprocessError as e:  # the preexec_fn failed in the child (QEMU never ran)
            errf.close()
            raise RealError(f"--qemu-nice {nice}: could not set QEMU's priority before starting it ({e}; a negative nice "
                            f"value, for the process or its autogroup, needs root or CAP_SYS_NICE)\n"
                            f"  fix: run memtwin real as root, or leave out --qemu-nice (or give it a value >= 0)")
        # what the kernel shows for QEMU's autogroup (/proc/PID/autogroup: "/autogroup-N nice V"), not what was asked
        autogroup_nice = _autogroup_nice(proc.pid) if nice is not None else None
        while proc.poll() is None:
            if time.monotonic() - t0 > timeout:
                raise RealError(f"the guest did not finish within {timeout} s (QEMU was killed)\n"
                                f"  fix: pass --timeout SECONDS if the scenario is large; the console ended with:\n"
                                + _tail(serial))
            time.sleep(0.2)
        wall = time.monotonic() - t0
        errf.seek(0)
        qerr = errf.read().strip()
        errf.close()
        try:
            with open(serial, encoding="utf-8", errors="replace") as f:
                out = f.read()
        except OSError:
            out = ""
        if proc.returncode != 0 and "@@DONE" not in out:
            raise RealError(f"qemu-system-x86_64 exited with status {proc.returncode}: {qerr[-600:] or 'no message'}")
        recs, facts = parse_output(out, plan, steps, tracked, cg)
        rtrace = reclaim_trace_text(out, steps, plan) if reclaim_trace else None
        proc = None
    finally:
        for sg in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sg, signal.SIG_IGN)
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
        for sg, h in old.items():
            signal.signal(sg, h)
    facts["knobs_set"] = {pol: facts["knobs"].get(path) for pol, path in knobs.items()}
    notes = _qemu_notes(plan, facts)
    dev = plan["devices"][0] if plan["devices"] else None
    info = {
        "on": "qemu", "kernel": facts["uname"] or "?", "kernel_image": origin,
        "machine": {"cpus": plan["machine"]["cpus"], "nodes": plan["machine"]["nodes"], "guest_nodes_online": facts["nodes"],
                    "ram_kB": int(facts["memtotal"] or 0),
                    "cgroup": f"{'v1' if plan['cgroup'] == 'v1' else 'v2'} in the guest",
                    "disk": f"{fs_of(plan)[0]} on a raw image, virtio-blk" + (f", throttled to read {dev['read_bw']} B/s, write {dev['write_bw']} B/s" if dev else ""),
                    "read_ahead_kb": int(facts["ra"] or 0), "queue": facts["queue"],
                    "scheduler": facts["scheduler"], "wbt_lat_usec": facts["wbt_lat_usec"], "virtio_blk": facts["virtio"], "throttle_hist": facts["throttle"], "accel": "tcg", "qemu": _qemu_version(), "guest_wall_s": round(wall, 1),
                    "transparent_hugepage": facts["thp"], "node_mem_kB_at_start": facts["node_mem_kB"],
                    **({"runner_memory": facts["runner_memory"]} if facts.get("runner_memory") else {}),
                    **({"pagetypeinfo_at_boot": facts["pagetypeinfo"]} if facts.get("pagetypeinfo") else {}),
                    **({"node_mem_kB_after_task_setup": facts["node_mem_kB_setup"]} if facts.get("node_mem_kB_setup") else {}),
                    "lru_gen": facts["lru_gen"], "cpu": facts["cpu"],
                    **({"swap": facts["swap"]} if facts.get("swap") else {}),
                    **({"zswap": facts["zswap"]} if facts.get("zswap") else {})},
        **({"lru_gen_debug": facts["lru_gen_debug"]} if facts["lru_gen_debug"] else {}),
        **({"oom_killed_tasks": facts["oom_killed_tasks"]} if facts.get("oom_killed_tasks") else {}),
        # the set-up writes' completions and when they ended before the tasks (setup_writes())
        **({"setup_writes": facts["setup_writes"]} if facts.get("setup_writes") else {}),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timing_comparable": False,
        # the host's load when the guest run ended (/proc/loadavg: 1, 5, 15 min): the vCPUs are host
        # threads, so the guest's speed moves with it
        "loadavg": _loadavg(),
        # memtwin real --qemu-nice: QEMU's nice value and its autogroup's (None: not set, inherited)
        # (autogroup_nice: as /proc/PID/autogroup showed it once QEMU started; None without sched_autogroup)
        **({"qemu_nice": {"nice": nice, "autogroup_nice": autogroup_nice}} if nice is not None else {}),
        "read_bytes_source": "/proc/self/io read_bytes of each task process in the guest (summed per step over the ops it ran)",
        **({"folios_source": FOLIOS_SOURCE.replace("/proc/kpageflags", "/proc/kpageflags in the guest", 1)}
           if any("folios" in r for r in recs) else {}),
        "folio_events_unavailable": "the guest runner does not count the folios added and deleted (not implemented in "
                                    "the guest program; Debian 6.1's filemap tracepoints do carry the folio order)",
        "notes": notes,
        "kernel_knobs": {pol: {"sysctl": path, "value": facts["knobs"].get(path)} for pol, path in sorted(knobs.items())},
        "unavailable": ["pagecache_hit_pages", "pagecache_miss_pages"]
        + ([] if (facts.get("throttle") or "").startswith("on") else list(THROTTLE_METRICS)) + (["cgroup.nr_descendants", "cgroup.nr_dying_descendants"] if plan["cgroup"] == "v1" else []),
    }
    res = {"steps": recs, "totals": totals(recs), "real": info}
    if rtrace is not None:
        res["reclaim_trace"] = rtrace
    return res


def _tail(path: str, n: int = 15) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "\n".join(f.read().replace("\r", "").strip().splitlines()[-n:]) or "(nothing)"
    except OSError:
        return "(nothing)"


def _qemu_notes(plan: dict, facts: dict) -> list:
    from memtwin.real import _notes

    notes = ["the guest runs under QEMU/TCG (emulated CPUs): times are not comparable with the engine's or real hardware's",
             "tasks run concurrently in the guest, each starting at its start offset"]
    if "fadvise_directory" in facts.get("knobs_set", {}):
        # a lab kernel with 004: the directory fadvise is the kernel's own, as the sysctl says
        on = facts["knobs_set"]["fadvise_directory"] == "1"
        notes += [n for n in _notes(plan) if "host's cgroup" not in n and "on a directory" not in n]
        if any(op["op"] == "fadvise" and op["directory"] for t in plan["tasks"] for op in t["ops"]):
            notes.append("fadvise on a directory: the patched kernel's own call on the directory fd, with "
                         f"vm.fadvise_dontneed_dir = {int(on)} (kernel/patches/004-fadvise-dir: "
                         + ("it drops the clean page cache of every file below it)" if on else "it drops nothing below it)"))
    else:
        notes += [n for n in _notes(plan) if "host's cgroup" not in n]
    for pol, val in sorted(facts.get("knobs_set", {}).items()):
        if pol != "fadvise_directory":
            notes.append(f"the lab kernel's switch for {pol} was {val}")
    if facts.get("cold") not in (None, "0"):
        notes.append(f"{facts['cold']} pages of the scenario's files stayed resident after fadvise(DONTNEED) before the tasks started")
    rm = facts.get("runner_memory")
    if rm and rm["grown_bytes"]:
        notes.append(f"the guest program's output buffers grew by {rm['grown_bytes']} bytes in steps (a step's record "
                     f"outgrew the {rm['obuf_bytes']} bytes sized before the tasks): those pages were charged to the tasks' memcgs")
    if facts.get("modfail"):
        notes.append("modules that did not load (built in, or missing): " + ", ".join(facts["modfail"]))
    return notes
