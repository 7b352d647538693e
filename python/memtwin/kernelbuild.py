"""`memtwin lab kernel build`: the lab's own 6.1 kernels, with the seeds' unmerged mechanisms.

    memtwin lab kernel build --patch 000-recharge --patch 003-percpu-release --patch 004-fadvise-dir
    memtwin real scenarios/seed000-memcg-reread-qemu.toml --on qemu --kernel 000-recharge+003-percpu-release+004-fadvise-dir

The source is Debian's `linux-source-6.1` package (apt-get install linux-source-6.1, a tarball in
/usr/src), the same 6.1 as the lab's default kernel package. The build:

- unpacks the tarball once into the lab's work directory (`kbuild/linux-source-6.1`) and keeps that
  tree: later builds are incremental (make recompiles what a patch or a config change touched);
- makes a small config for the lab guest: `make tinyconfig`, then the fragment
  kernel/config/lab.config (virtio-pci/blk, serial console, ext4/xfs, tmpfs, devtmpfs, cgroups with
  memcg v1 and v2, cgroup writeback, swap, PSI, NUMA, THP, LRU_GEN, /proc/PID/io), then the user's
  `--config FRAGMENT`, then `make olddefconfig`. Everything is built in: the guest's /init finds no
  modules to load and needs none;
- reverts the patches the tree had, checks every requested patch with `patch --dry-run` (a patch
  that does not apply is named with its file and hunk), applies them in order;
- runs `nice -n 10 make -jN bzImage`, with a progress line (objects compiled against the previous
  build's count) and the whole log kept beside the image;
- caches the bzImage under `kernels/<hash>/` with meta.json, the hash over (source package version,
  config text, patch names and contents): a second build of the same kernel is instant. The name
  is the patches joined by `+` (or `lab` for none); `memtwin real --on qemu --kernel NAME` boots it.

Every patch series of kernel/patches/ adds a run-time switch (a sysctl under /proc/sys/vm, off by
default), so one kernel runs a scenario's baseline and its policy variant: KNOBS maps the engine's
policy to the patch and the sysctl, and the QEMU runner writes 0 or 1 in the guest's /init from the
variant's policies.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from typing import Callable, Optional

from memtwin.real import RealError

SOURCE_PACKAGE = "linux-source-6.1"
SOURCE_TARBALL = "/usr/src/linux-source-6.1.tar.xz"
REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PATCH_DIR = os.path.join(REPO, "kernel", "patches")
LAB_CONFIG = os.path.join(REPO, "kernel", "config", "lab.config")

# policy of the engine -> (patch series that implements it, the sysctl that switches it on)
KNOBS = {
    "recharge_on_pagecache_get": ("000-recharge", "vm/memcg_recharge_pagecache"),
    "memcg_percpu_release_on_offline": ("003-percpu-release", "vm/memcg_release_percpu_on_offline"),
    "fadvise_directory": ("004-fadvise-dir", "vm/fadvise_dontneed_dir"),
}


def default_workdir() -> str:
    from memtwin.qemu import DEFAULT_WORKDIR

    return DEFAULT_WORKDIR


def source_version() -> str:
    """The installed linux-source-6.1 package's version (or the tarball's size and mtime)."""
    if not os.path.isfile(SOURCE_TARBALL):
        raise RealError(f"no kernel source tarball {SOURCE_TARBALL}\n  fix: apt-get install {SOURCE_PACKAGE} "
                        "(and build-essential bc bison flex libelf-dev libssl-dev to build it)")
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", SOURCE_PACKAGE], capture_output=True, text=True, timeout=60)
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    st = os.stat(SOURCE_TARBALL)
    return f"tarball-{st.st_size}-{int(st.st_mtime)}"


def available_patches() -> list:
    try:
        return sorted(d for d in os.listdir(PATCH_DIR) if os.path.isdir(os.path.join(PATCH_DIR, d)))
    except OSError:
        return []


def patch_files(name: str) -> list:
    """The .patch files of series `name` (kernel/patches/NAME/*.patch, in order)."""
    d = os.path.join(PATCH_DIR, name)
    if not os.path.isdir(d):
        have = ", ".join(available_patches()) or "none"
        raise RealError(f"--patch {name}: no patch series {d}\n  fix: one of {have}")
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".patch"))
    if not files:
        raise RealError(f"--patch {name}: {d} holds no *.patch file")
    return files


def kernel_name(patches: list) -> str:
    return "+".join(patches) if patches else "lab"


def build_key(version: str, config: str, patches: list) -> str:
    h = hashlib.sha256()
    h.update(f"source {version}\n".encode())
    h.update(b"config\n" + config.encode())
    for name in patches:
        h.update(f"patch {name}\n".encode())
        for f in patch_files(name):
            with open(f, "rb") as fh:
                h.update(os.path.basename(f).encode() + b"\n" + fh.read())
    return h.hexdigest()[:16]


def config_text(fragment: Optional[str]) -> str:
    with open(LAB_CONFIG) as f:
        text = f.read()
    if fragment:
        try:
            with open(fragment) as f:
                extra = f.read()
        except OSError as e:
            raise RealError(f"--config {fragment}: {e.strerror}\n  fix: give a file of CONFIG_X=y lines") from None
        for n, line in enumerate(extra.splitlines(), 1):
            s = line.strip()
            if s and not s.startswith("#") and not re.match(r"^CONFIG_[A-Za-z0-9_]+=.*$", s) and not re.match(r"^# CONFIG_\w+ is not set$", s):
                raise RealError(f"{fragment}:{n}:1: not a config line: {s!r}\n  fix: write CONFIG_NAME=y (or =n, =value)")
        text += f"\n# --config {fragment}\n" + extra
    return text


def find_built(name: str, workdir: Optional[str] = None) -> Optional[dict]:
    """The newest built kernel called `name` (meta.json plus its image path), or None."""
    root = os.path.join(workdir or default_workdir(), "kernels")
    best = None
    try:
        entries = os.listdir(root)
    except OSError:
        return None
    for key in entries:
        try:
            with open(os.path.join(root, key, "meta.json")) as f:
                meta = json.load(f)
        except (OSError, ValueError):
            continue
        img = os.path.join(root, key, "bzImage")
        if meta.get("name") == name and os.path.isfile(img) and (best is None or meta.get("built", "") > best.get("built", "")):
            best = dict(meta, image=img)
    return best


def list_built(workdir: Optional[str] = None) -> list:
    root = os.path.join(workdir or default_workdir(), "kernels")
    out = []
    for key in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        try:
            with open(os.path.join(root, key, "meta.json")) as f:
                out.append(dict(json.load(f), image=os.path.join(root, key, "bzImage")))
        except (OSError, ValueError):
            continue
    return out


def _sh(cmd: list, cwd: str, log, timeout: int = 3600) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if log is not None:
        log.write(f"$ {' '.join(cmd)}\n{r.stdout}{r.stderr}")
        log.flush()
    return r


def _check_patch(path: str, tree: str, log) -> None:
    """patch --dry-run; on failure a RealError naming the patch, the file and the hunk."""
    r = _sh(["patch", "-p1", "--dry-run", "--forward", "-i", path], tree, log)
    if r.returncode == 0:
        return
    cur, fails = None, []
    for line in (r.stdout + r.stderr).splitlines():
        m = re.match(r"(?:checking|patching) file (\S+)", line)
        if m:
            cur = m.group(1)
        m = re.match(r"Hunk #(\d+) FAILED at (\d+)", line)
        if m:
            fails.append(f"{cur}: hunk #{m.group(1)} (at line {m.group(2)})")
        if "can't find file to patch" in line:
            fails.append(f"{cur or '?'}: no such file in the tree")
        if "Reversed (or previously applied) patch detected" in line:
            fails.append(f"{cur}: already applied")
    raise RealError(f"patch {os.path.relpath(path, REPO)} does not apply to {SOURCE_PACKAGE}: "
                    + ("; ".join(fails) or (r.stdout + r.stderr).strip()[-300:])
                    + "\n  fix: rebase the patch on the installed source (patch -p1 --dry-run shows the rejects)")


def dry_run(patches: list, tree: str) -> list:
    """Check that series `patches` apply, in order, to a pristine tree (CI and tests): applies them
    to a scratch copy of the files they touch. Returns the patch files checked."""
    import tempfile

    files = [f for n in patches for f in patch_files(n)]
    touched = set()
    for f in files:
        with open(f) as fh:
            for line in fh:
                m = re.match(r"^\+\+\+ b/(\S+)", line)
                if m:
                    touched.add(m.group(1))
    with tempfile.TemporaryDirectory(prefix="memtwin-patch-") as tmp:
        for t in touched:
            src = os.path.join(tree, t)
            if os.path.exists(src):
                os.makedirs(os.path.dirname(os.path.join(tmp, t)), exist_ok=True)
                shutil.copy(src, os.path.join(tmp, t))
        for f in files:
            _check_patch(f, tmp, None)
            r = subprocess.run(["patch", "-p1", "-s", "--forward", "-i", f], cwd=tmp, capture_output=True, text=True)
            if r.returncode != 0:
                raise RealError(f"patch {f}: {r.stdout.strip()[-300:]}")
    return files


def _unpack(kbuild: str, out: Callable[[str], None]) -> str:
    tree = os.path.join(kbuild, "linux-source-6.1")
    if os.path.isfile(os.path.join(tree, "Makefile")):
        return tree
    out(f"unpacking {SOURCE_TARBALL} ...")
    tmp = os.path.join(kbuild, f".unpack{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    r = subprocess.run(["tar", "xf", SOURCE_TARBALL, "-C", tmp], capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RealError(f"tar xf {SOURCE_TARBALL} failed: {r.stderr.strip()[-300:]}")
    os.replace(os.path.join(tmp, "linux-source-6.1"), tree)
    shutil.rmtree(tmp, ignore_errors=True)
    return tree


def _set_patches(tree: str, patches: list, log) -> None:
    """Revert what the tree has applied (recorded in .memtwin-patches), then apply `patches`."""
    state = os.path.join(tree, ".memtwin-patches")
    applied = []
    if os.path.exists(state):
        with open(state) as f:
            applied = [line.strip() for line in f if line.strip()]
    for f in reversed(applied):
        saved = os.path.join(tree, ".memtwin-applied", hashlib.sha256(f.encode()).hexdigest()[:16] + ".patch")
        r = _sh(["patch", "-p1", "-R", "-s", "-i", saved], tree, log)
        if r.returncode != 0:
            raise RealError(f"could not revert {f} in {tree}: {(r.stdout + r.stderr).strip()[-300:]}\n"
                            f"  fix: remove {tree} (the next build unpacks the source again)")
        applied.pop()
        with open(state, "w") as fh:
            fh.write("\n".join(applied) + ("\n" if applied else ""))
    os.makedirs(os.path.join(tree, ".memtwin-applied"), exist_ok=True)
    for n in patches:
        for f in patch_files(n):
            _check_patch(f, tree, log)
            r = _sh(["patch", "-p1", "-s", "--forward", "-i", f], tree, log)
            if r.returncode != 0:
                raise RealError(f"patch {f} failed after its dry run: {(r.stdout + r.stderr).strip()[-300:]}")
            # keep the applied text: the revert must use it even if the file in the repo changes
            shutil.copy(f, os.path.join(tree, ".memtwin-applied", hashlib.sha256(f.encode()).hexdigest()[:16] + ".patch"))
            applied.append(f)
            with open(state, "w") as fh:
                fh.write("\n".join(applied) + "\n")


def _configure(tree: str, config: str, log) -> None:
    frag = os.path.join(tree, ".memtwin-fragment.config")
    with open(frag, "w") as f:
        f.write(config)
    for cmd in (["make", "tinyconfig"], ["scripts/kconfig/merge_config.sh", "-m", ".config", frag], ["make", "olddefconfig"]):
        r = _sh(cmd, tree, log)
        if r.returncode != 0:
            raise RealError(f"{' '.join(cmd)} failed in {tree}: {(r.stdout + r.stderr).strip()[-500:]}")
    with open(os.path.join(tree, ".config")) as f:
        have = f.read()
    missing = []
    for line in config.splitlines():
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line.strip())
        if not m:
            continue
        k, v = m.groups()
        if v == "n":
            if re.search(rf"^{k}=", have, re.M):
                missing.append(f"{k}=n")
        elif not re.search(rf"^{k}={re.escape(v)}$", have, re.M):
            missing.append(line.strip())
    if missing:
        raise RealError("the kernel config does not have " + ", ".join(missing) + " after make olddefconfig "
                        "(a dependency is missing)\n  fix: add the option it depends on to the fragment")


def build(patches: list, fragment: Optional[str] = None, jobs: Optional[int] = None, workdir: Optional[str] = None,
          out: Callable[[str], None] = print, force: bool = False) -> dict:
    """Build (or find in the cache) the lab kernel with `patches`; its meta.json dict plus `image`."""
    from memtwin.progress import Progress

    workdir = workdir or default_workdir()
    for n in patches:
        patch_files(n)
    if len(set(patches)) != len(patches):
        raise RealError(f"--patch names a series twice: {' '.join(patches)}")
    for tool, pkg in (("make", "build-essential"), ("gcc", "build-essential"), ("bc", "bc"), ("bison", "bison"),
                      ("flex", "flex"), ("patch", "patch")):
        if shutil.which(tool) is None:
            raise RealError(f"building a kernel needs `{tool}`\n  fix: apt-get install {pkg} (with build-essential bc bison flex libelf-dev libssl-dev)")
    version = source_version()
    config = config_text(fragment)
    key = build_key(version, config, patches)
    name = kernel_name(patches)
    dest = os.path.join(workdir, "kernels", key)
    img = os.path.join(dest, "bzImage")
    if os.path.isfile(img) and not force:
        with open(os.path.join(dest, "meta.json")) as f:
            meta = json.load(f)
        out(f"kernel {name}: cached {img} (built {meta['built']} in {meta['build_s']:.0f} s)")
        return dict(meta, image=img, cached=True)
    kbuild = os.path.join(workdir, "kbuild")
    os.makedirs(kbuild, exist_ok=True)
    lockf = open(os.path.join(kbuild, ".lock"), "w")
    try:
        try:
            fcntl.flock(lockf, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            out(f"another kernel build holds {kbuild}/.lock; waiting ...")
            fcntl.flock(lockf, fcntl.LOCK_EX)
        tree = _unpack(kbuild, out)
        os.makedirs(dest, exist_ok=True)
        logpath = os.path.join(dest, "build.log")
        t0 = time.monotonic()
        with open(logpath, "w", buffering=1) as log:
            out(f"kernel {name}: source {SOURCE_PACKAGE} {version}, patches: {', '.join(patches) or 'none'}; log {logpath}")
            _set_patches(tree, patches, log)
            _configure(tree, config, log)
            jobs = jobs or os.cpu_count() or 1
            cmd = ["nice", "-n", "10", "make", f"-j{jobs}", "bzImage"]
            log.write(f"$ {' '.join(cmd)}\n")
            log.flush()
            total = _last_count(workdir)
            bar = Progress(f"kernel {name}")
            done = 0
            proc = subprocess.Popen(cmd, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                for line in proc.stdout:
                    log.write(line)
                    if re.match(r"^\s+(CC|AS|LD|AR)\s", line):
                        done += 1
                        bar(min(done, total - 1), total, label=f"kernel {name}: {line.split()[-1][-40:]}")
                rc = proc.wait()
            except BaseException:
                proc.kill()
                proc.wait()
                raise
            finally:
                bar.close()
        wall = time.monotonic() - t0
        if rc != 0:
            tail = "".join(open(logpath).readlines()[-20:])
            raise RealError(f"make bzImage failed (exit {rc}); the end of {logpath}:\n{tail}")
        shutil.copy(os.path.join(tree, "arch", "x86", "boot", "bzImage"), img + ".tmp")
        os.replace(img + ".tmp", img)
        meta = {"name": name, "patches": patches, "source": f"{SOURCE_PACKAGE} {version}", "key": key,
                "config_fragment": fragment, "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "build_s": round(wall, 1), "objects_built": done, "jobs": jobs,
                "knobs": {pol: sysctl for pol, (p, sysctl) in KNOBS.items() if p in patches}}
        shutil.copy(os.path.join(tree, ".config"), os.path.join(dest, "config"))
        with open(os.path.join(dest, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        _save_count(workdir, done)
        out(f"kernel {name}: built {img} in {wall:.0f} s ({done} objects, -j{jobs})")
        return dict(meta, image=img, cached=False)
    finally:
        lockf.close()


def _last_count(workdir: str) -> int:
    try:
        with open(os.path.join(workdir, "kbuild", ".objects")) as f:
            return max(int(f.read().strip()), 2)
    except (OSError, ValueError):
        return 2200  # objects of a full build of the lab config (measured)


def _save_count(workdir: str, n: int) -> None:
    if n > 200:  # a full build: the next one from scratch counts against it
        with open(os.path.join(workdir, "kbuild", ".objects"), "w") as f:
            f.write(str(n))


def resolve(kernel: str, workdir: Optional[str] = None) -> Optional[dict]:
    """`--kernel NAME` of a lab build (lab, 000-recharge, 000-recharge+004-fadvise-dir, ...), or None
    when `kernel` is not such a name."""
    if os.path.sep in kernel or os.path.isfile(kernel):
        return None
    return find_built(kernel, workdir)


def cmd_kernel(a, out: Callable[[str], None] = print) -> int:
    if a.kernel_cmd == "list":
        rows = list_built(a.workdir)
        if not rows:
            out("no lab kernels built (memtwin lab kernel build [--patch NAME]...)")
        for m in rows:
            out(f"{m['name']:<50} {m['source']}  built {m['built']} in {m['build_s']:.0f} s  {m['image']}")
        out("patch series: " + (", ".join(available_patches()) or "none"))
        return 0
    build(a.patch or [], a.config, a.jobs, a.workdir, out, force=a.force)
    return 0

