"""The QEMU side of the real-kernel lab: `memtwin lab setup`, `memtwin lab doctor`, and
`memtwin real --on qemu`.

What is here: finding and installing what a guest run needs (qemu-system-x86, busybox-static,
cpio, e2fsprogs, Debian's 6.1 kernel package fetched with `apt-get download` and unpacked with
`dpkg -x`), and saying what the lab can run on this machine. The guest executor of scenario
ops is NOT written yet: `memtwin real --on qemu` says so and stops (lab/measurements/
memcg_qemu_lab.py still boots the 6.1 guest for the recorded dying-cgroup and list_lru runs).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from typing import Callable, Optional

from memtwin.real import RealError, host_ready

PACKAGES = {"qemu-system-x86_64": "qemu-system-x86", "busybox": "busybox-static", "cpio": "cpio", "mkfs.ext4": "e2fsprogs"}
DEFAULT_WORKDIR = os.path.join(os.path.expanduser("~"), ".cache", "memtwin-lab")


def _run(cmd: list, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def kernel_package() -> Optional[str]:
    """The Debian 6.1 kernel package name `linux-image-amd64` depends on, or None."""
    if shutil.which("apt-cache") is None:
        return None
    try:
        out = _run(["apt-cache", "depends", "linux-image-amd64"], 120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"Depends:\s*(linux-image-6\.1\.\S+-amd64)", out)
    return m.group(1) if m else None


def find_kernel(workdir: str = DEFAULT_WORKDIR) -> Optional[str]:
    """An unpacked Debian 6.1 vmlinuz in the lab's work directory, or None."""
    found = sorted(glob.glob(os.path.join(workdir, "kpkg", "boot", "vmlinuz-6.1*")))
    return found[-1] if found else None


def kvm_usable() -> tuple:
    if not os.path.exists("/dev/kvm"):
        return False, "/dev/kvm is missing"
    return False, "/dev/kvm exists, but KVM guests hang or assert on these machines (see shared/reference/real-kernels-here.md); TCG is used"


def doctor(out: Callable[[str], None] = print, workdir: str = DEFAULT_WORKDIR) -> int:
    """Say what the lab can run here, and why not. Exit code 0 when the host runner works."""
    ok, why = host_ready()
    out(f"host runner (memtwin real --on host): {'yes' if ok else 'no'}: {why}")
    missing = [f"{tool} ({pkg})" for tool, pkg in PACKAGES.items() if shutil.which(tool) is None]
    out("qemu tools: " + ("all present" if not missing else "missing " + ", ".join(missing) + " (memtwin lab setup installs them)"))
    k = find_kernel(workdir)
    out(f"guest kernel: {k}" if k else f"guest kernel: none in {workdir}/kpkg (memtwin lab setup downloads Debian's 6.1 package)")
    _, kvm = kvm_usable()
    out(f"accelerator: TCG ({kvm})")
    out("guest runner (memtwin real --on qemu): no: the guest executor of scenario ops is not written yet; "
        "recorded QEMU figures come from lab/measurements/memcg_qemu_lab.py")
    out("recorded validation (memtwin validate --recorded): yes, anywhere")
    return 0 if ok else 1


def setup(out: Callable[[str], None] = print, workdir: str = DEFAULT_WORKDIR) -> int:
    """Install what is missing and fetch the kernel package; say what was done."""
    if os.geteuid() != 0:
        raise RealError("memtwin lab setup installs packages with apt-get: run it as root")
    if shutil.which("apt-get") is None:
        raise RealError("memtwin lab setup needs apt-get (Debian or Ubuntu); install qemu-system-x86, busybox-static, cpio and e2fsprogs by hand")
    need = sorted({pkg for tool, pkg in PACKAGES.items() if shutil.which(tool) is None})
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
        out("qemu-system-x86, busybox-static, cpio, e2fsprogs: already installed")
    if find_kernel(workdir):
        out(f"kernel: already unpacked ({find_kernel(workdir)})")
        return 0
    pkg = kernel_package()
    if pkg is None:
        raise RealError("apt-cache names no linux-image-6.1.*-amd64 package (not a Debian 12 apt source?); pass --kernel BZIMAGE to memtwin real instead")
    os.makedirs(workdir, exist_ok=True)
    debs = glob.glob(os.path.join(workdir, pkg + "_*.deb"))
    if not debs:
        out(f"downloading {pkg} ...")
        r = subprocess.run(["apt-get", "download", pkg], cwd=workdir, capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            raise RealError(f"apt-get download {pkg} failed: {r.stderr.strip()[-400:]}")
        debs = glob.glob(os.path.join(workdir, pkg + "_*.deb"))
    r = _run(["dpkg", "-x", debs[0], os.path.join(workdir, "kpkg")])
    if r.returncode != 0:
        raise RealError(f"dpkg -x {debs[0]} failed: {r.stderr.strip()}")
    out(f"kernel: {find_kernel(workdir)} (from {os.path.basename(debs[0])})")
    return 0


def run_qemu(plan: dict, kernel: Optional[str] = None, workdir: Optional[str] = None) -> dict:
    raise RealError("--on qemu: the guest executor of scenario ops is not written yet (see `memtwin lab doctor`)\n"
                    "  fix: use --on host, or --recorded for the recorded runs")
