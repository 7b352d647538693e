#!/usr/bin/env python3
"""End-to-end real-kernel measurement for memtwin: dying memcgs (seed-003) and list_lru growth.

Boots Debian's 6.1 kernel under QEMU/TCG with a busybox initramfs (no disk, no network),
runs a shell workload in the guest, prints /proc/meminfo, /proc/slabinfo and cgroup.stat
between markers on the serial console, parses them on the host and writes a JSON file.

Usage (as root on a Debian 12 host):
    python3 memcg_qemu_lab.py [--workdir /tmp/qemu-lab] [--out results.json]
                              [--only A|B|nomerge] [--smp 1,2,4,8,16] [--skip-install]

Every guest is freshly booted. Every QEMU run has a timeout.

Experiments
  A   seed-003 loop, 1 NUMA node, -smp 1,2,4,8,16: 1000 x (mkdir CG/i; move shell in;
      dd 512 B from /dev/urandom to a tmpfs file; move shell out; rmdir CG/i).
  A_nomerge  the same at -smp 4 with slab_nomerge on the kernel command line, so that
      /proc/slabinfo names the caches individually (attribution only).
  B   list_lru / shrinker growth, -smp 2, 2 NUMA nodes (1 GiB each):
      start -> N memcgs (mkdir only) -> M tmpfs mounts (M = 100, 500, 1000 cumulative, nobody
      touching them) -> a task in each of the first K=100 memcgs creates one empty file in each
      of the first T=10 mounts -> (control) the same tasks create a 2nd file in the same mounts.
      One fresh boot per N in 0, 500, 1000, 2000.
"""
import argparse
import datetime
import glob
import gzip
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

KPKG_DEFAULT = None  # resolved from `apt-cache depends linux-image-amd64`

GUEST_INIT = r'''#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o size=512m tmp /tmp
mount -t cgroup2 none /sys/fs/cgroup
exec 2>&1

arg() { v=$(tr ' ' '\n' < /proc/cmdline | grep "^$1=" | head -1 | cut -d= -f2); echo "${v:-$2}"; }
LAB=$(arg lab A)
ITERS=$(arg labiters 1000)
N=$(arg labn 1000)
MLIST=$(arg labm 100,500,1000 | tr ',' ' ')
K=$(arg labk 100)
T=$(arg labt 10)
R=/sys/fs/cgroup
CG=$R/CG

snap() {
  echo "@@BEGIN $1"
  echo "#uptime"; cat /proc/uptime
  echo "#meminfo"; cat /proc/meminfo
  echo "#slabinfo"; cat /proc/slabinfo
  echo "#cgstat"; cat $CG/cgroup.stat 2>/dev/null
  echo "#pcp"; awk '/^Node/ {z=$2"/"$4} /count:/ {c[z]+=$2} /high:/ {h[z]+=$2} END {for (k in c) print k, c[k], h[k]}' /proc/zoneinfo
  echo "#vmalloc"; awk '{c[$3]+=$2} END {for (k in c) print c[k], k}' /proc/vmallocinfo | sort -rn | head -12
  echo "#nodes"; for n in /sys/devices/system/node/node*; do [ -d $n ] && echo "$n $(grep -E 'MemFree|Slab' $n/meminfo | tr -s ' ' | tr '\n' ' ')"; done
  echo "@@END $1"
}

info() {
  echo "@@BEGIN info"
  echo "uname=$(uname -a)"
  echo "cmdline=$(cat /proc/cmdline)"
  echo "possible=$(cat /sys/devices/system/cpu/possible)"
  echo "present=$(cat /sys/devices/system/cpu/present)"
  echo "online=$(cat /sys/devices/system/cpu/online)"
  echo "kernel_max=$(cat /sys/devices/system/cpu/kernel_max)"
  echo "node_possible=$(cat /sys/devices/system/node/possible 2>/dev/null)"
  echo "node_online=$(cat /sys/devices/system/node/online 2>/dev/null)"
  echo "nproc=$(nproc)"
  echo "cgroup_controllers=$(cat $R/cgroup.controllers)"
  echo "thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
  echo "slab_merge_cmdline=$(grep -c slab_nomerge /proc/cmdline)"
  echo "la57=$(grep -c la57 /proc/cpuinfo)"
  dmesg | grep -E 'nr_cpu_ids|setup_percpu|percpu:|Memory:|NUMA|[Nn]ode [0-9]|SLUB|smpboot|Linux version' | sed 's/^/dmesg: /'
  echo "@@END info"
}

# wait until Slab, Percpu and VmallocUsed have not changed for 4 consecutive 2-s samples
# (kvfree_rcu batches frees for up to ~5 s in 6.1), at most 60 s
settle() {
  prev=""; n=0; eq=0
  while [ $n -lt 30 ] && [ $eq -lt 4 ]; do
    sleep 2
    cur=$(grep -E '^(Slab|Percpu|VmallocUsed):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')
    if [ "$cur" = "$prev" ]; then eq=$((eq+1)); else eq=0; fi
    prev=$cur; n=$((n+1))
  done
  echo "settled_$1=$n"
}

snap boot
info
echo +memory > $R/cgroup.subtree_control
mkdir $CG
echo +memory > $CG/cgroup.subtree_control
echo "subtree_control=$(cat $CG/cgroup.subtree_control)"

if [ "$LAB" = A ]; then
  settle before
  snap before
  i=1
  while [ $i -le $ITERS ]; do
    mkdir $CG/$i
    echo $$ > $CG/$i/cgroup.procs
    dd if=/dev/urandom of=/tmp/t-$i bs=512 count=1 2>/dev/null
    echo $$ > $R/cgroup.procs
    rmdir $CG/$i || echo "RMDIR_FAILED $i"
    i=$((i+1))
  done
  settle after
  snap after
  sleep 15
  snap after_15s
fi

if [ "$LAB" = B ]; then
  mkdir /mnt
  j=1; MMAX=0; for M in $MLIST; do MMAX=$M; done
  while [ $j -le $MMAX ]; do echo /mnt/t$j; j=$((j+1)); done | xargs mkdir
  settle start
  snap start
  if [ $N -gt 0 ]; then (cd $CG && seq 1 $N | xargs mkdir); fi
  echo "memcgs=$(ls -d $CG/*/ 2>/dev/null | wc -l)"
  # warm the kernfs dentries/inodes of the cgroup.procs files used in the touch step,
  # so that the touch step does not count them
  k=1; while [ $k -le $K ] && [ $k -le $N ]; do cat $CG/$k/cgroup.procs > /dev/null; k=$((k+1)); done
  settle memcgs
  snap memcgs
  j=1
  for M in $MLIST; do
    while [ $j -le $M ]; do mount -t tmpfs -o size=16m t$j /mnt/t$j || echo "MOUNT_FAILED $j"; j=$((j+1)); done
    echo "mounts=$(grep -c ' /mnt/t' /proc/mounts)"
    settle mounts_$M
    snap mounts_$M
  done
  if [ $K -gt $N ]; then K=$N; fi
  for pass in 1 2; do
    k=1
    while [ $k -le $K ]; do
      files=""; t=1; while [ $t -le $T ]; do files="$files /mnt/t$t/p$pass-f$k"; t=$((t+1)); done
      sh -c "echo \$\$ > $CG/$k/cgroup.procs && exec touch $files"
      k=$((k+1))
    done
    echo "files_pass$pass=$(ls /mnt/t1 | wc -l)"
    settle touched_$pass
    snap touched_$pass
  done
  echo "K_effective=$K"
  echo "memcg1_slab=$(grep -E '^slab ' $CG/1/memory.stat 2>/dev/null)"
fi

echo "@@DONE"
sync
poweroff -f
'''


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, text=True, capture_output=True, **kw).stdout


def ensure_host_packages(skip):
    if skip:
        return
    need = [b for b in ("qemu-system-x86_64", "busybox", "cpio") if shutil.which(b) is None]
    if not os.path.exists("/bin/busybox") or need:
        # dpkg lock may be held by another process; retry for a while
        for _ in range(60):
            r = subprocess.run("apt-get update -q && apt-get install -y -q --no-install-recommends "
                               "qemu-system-x86 busybox-static cpio e2fsprogs", shell=True)
            if r.returncode == 0:
                return
            time.sleep(5)
        raise SystemExit("apt-get install failed")


def get_kernel(workdir, pkg):
    if pkg is None:
        out = sh("apt-cache depends linux-image-amd64")
        m = re.search(r"Depends:\s*(linux-image-6\.1\.\S+-amd64)", out)
        pkg = m.group(1)
    debs = glob.glob(os.path.join(workdir, pkg + "_*.deb"))
    if not debs:
        subprocess.run(["apt-get", "download", pkg], cwd=workdir, check=True)
        debs = glob.glob(os.path.join(workdir, pkg + "_*.deb"))
    deb = debs[0]
    version = sh(f"dpkg-deb -f {deb} Version").strip()
    kdir = os.path.join(workdir, "kpkg")
    if not glob.glob(os.path.join(kdir, "boot", "vmlinuz-*")):
        subprocess.run(["dpkg", "-x", deb, kdir], check=True)
    vmlinuz = glob.glob(os.path.join(kdir, "boot", "vmlinuz-*"))[0]
    return {"package": pkg, "version": version, "deb": os.path.basename(deb),
            "sha256": sh(f"sha256sum {deb}").split()[0], "vmlinuz": vmlinuz}


def build_initramfs(workdir):
    root = os.path.join(workdir, "initramfs")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "sbin", "proc", "sys", "dev", "tmp", "etc"):
        os.makedirs(os.path.join(root, d))
    shutil.copy("/bin/busybox", os.path.join(root, "bin", "busybox"))
    os.symlink("busybox", os.path.join(root, "bin", "sh"))
    with open(os.path.join(root, "init"), "w") as f:
        f.write(GUEST_INIT)
    os.chmod(os.path.join(root, "init"), 0o755)
    out = os.path.join(workdir, "initramfs.cpio.gz")
    subprocess.run(f"cd {root} && find . | cpio -o -H newc --quiet | gzip -1 > {out}", shell=True, check=True)
    return out


def qemu_cmd(vmlinuz, initrd, smp, numa2, append):
    cmd = ["qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "max", "-smp", str(smp),
           "-m", "2G", "-nodefaults", "-display", "none", "-serial", "stdio", "-monitor", "none",
           "-no-reboot", "-kernel", vmlinuz, "-initrd", initrd]
    if numa2:
        cmd += ["-object", "memory-backend-ram,id=m0,size=1G", "-numa", "node,nodeid=0,cpus=0,memdev=m0",
                "-object", "memory-backend-ram,id=m1,size=1G", "-numa", "node,nodeid=1,cpus=1,memdev=m1"]
    cmd += ["-append", "console=ttyS0 quiet loglevel=1 panic=-1 " + append]
    return cmd


def run_guest(name, cmd, timeout, logdir):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        out = p.stdout.decode("utf-8", "replace")
        rc = p.returncode
        timed_out = False
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        rc = None
        timed_out = True
    wall = time.time() - t0
    with gzip.open(os.path.join(logdir, name + ".log.gz"), "wt") as f:
        f.write(out)
    return out, rc, timed_out, wall


def parse_sections(out):
    secs = {}
    for m in re.finditer(r"@@BEGIN (\S+)\r?\n(.*?)@@END \1", out, re.S):
        secs[m.group(1)] = m.group(2).replace("\r", "")
    return secs


def parse_snap(text):
    parts = {}
    cur = None
    for line in text.splitlines():
        if line.startswith("#") and line[1:] in ("uptime", "meminfo", "slabinfo", "cgstat", "nodes", "vmalloc", "pcp"):
            cur = line[1:]
            parts[cur] = []
            continue
        if cur:
            parts[cur].append(line)
    mem = {}
    for line in parts.get("meminfo", []):
        m = re.match(r"(\S+):\s+(\d+)", line)
        if m:
            mem[m.group(1)] = int(m.group(2))
    slab = {}
    for line in parts.get("slabinfo", []):
        if line.startswith("slabinfo") or line.startswith("#"):
            continue
        f = line.split()
        if len(f) < 16:
            continue
        name, active, num, objsize, objper, pagesper = f[0], int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5])
        num_slabs = int(f[14])
        slab[name] = {"active_objs": active, "num_objs": num, "objsize": objsize,
                      "bytes": num_slabs * pagesper * 4096}
    cg = {}
    for line in parts.get("cgstat", []):
        f = line.split()
        if len(f) == 2:
            cg[f[0]] = int(f[1])
    up = float(parts["uptime"][0].split()[0]) if parts.get("uptime") else None
    vm = {}
    for line in parts.get("vmalloc", []):
        f = line.split()
        if len(f) == 2:
            vm[f[1]] = int(f[0])
    slab_sum_kB = sum(v["bytes"] for v in slab.values()) // 1024
    pcp = {}
    for line in parts.get("pcp", []):
        f = line.split()
        if len(f) == 3:
            pcp[f[0]] = {"count_pages": int(f[1]), "high_pages": int(f[2])}
    mem["PcpListsTotal"] = 4 * sum(v["count_pages"] for v in pcp.values())
    if "MemFree" in mem:
        mem["MemFreePlusPcp"] = mem["MemFree"] + mem["PcpListsTotal"]
    return {"uptime_s": up, "meminfo_kB": mem, "slab": slab, "cgroup_stat": cg,
            "nodes": parts.get("nodes", []), "pcp": pcp, "vmalloc_by_caller_bytes": vm, "slabinfo_sum_kB": slab_sum_kB,
            "slab_not_in_slabinfo_kB": (mem.get("Slab", 0) - slab_sum_kB) if slab else None}


KEYS = ("MemTotal", "MemFree", "Slab", "SReclaimable", "SUnreclaim", "Percpu", "Shmem",
        "KernelStack", "PageTables", "VmallocUsed", "PcpListsTotal", "MemFreePlusPcp")


def mem_summary(s):
    d = {k: s["meminfo_kB"].get(k) for k in KEYS}
    d["slabinfo_sum_kB"] = s["slabinfo_sum_kB"]
    d["slab_not_in_slabinfo_kB"] = s["slab_not_in_slabinfo_kB"]
    return d


def vmalloc_growth(a, b, top=6):
    va, vb = a["vmalloc_by_caller_bytes"], b["vmalloc_by_caller_bytes"]
    rows = [(k, vb.get(k, 0) - va.get(k, 0)) for k in set(va) | set(vb)]
    rows = [r for r in rows if r[1] != 0]
    rows.sort(key=lambda r: -abs(r[1]))
    return [{"caller": k, "delta_bytes": d} for k, d in rows[:top]]


def slab_growth(a, b, top=15, shrink=False):
    rows = []
    for name in set(a["slab"]) | set(b["slab"]):
        x = a["slab"].get(name, {"bytes": 0, "active_objs": 0, "objsize": 0})
        y = b["slab"].get(name, {"bytes": 0, "active_objs": 0, "objsize": 0})
        rows.append({"cache": name, "objsize": y["objsize"] or x["objsize"],
                     "bytes_before": x["bytes"], "bytes_after": y["bytes"],
                     "delta_bytes": y["bytes"] - x["bytes"],
                     "active_objs_before": x["active_objs"], "active_objs_after": y["active_objs"],
                     "delta_active_objs": y["active_objs"] - x["active_objs"],
                     "delta_obj_bytes": (y["active_objs"] - x["active_objs"]) * (y["objsize"] or x["objsize"])})
    rows.sort(key=lambda r: r["delta_bytes"] if shrink else -r["delta_bytes"])
    if shrink:
        return [r for r in rows[:top] if r["delta_bytes"] < 0]
    return rows[:top]


def delta(a, b, key):
    x, y = a["meminfo_kB"].get(key), b["meminfo_kB"].get(key)
    return None if x is None or y is None else (y - x) * 1024


def parse_info(text):
    info = {"dmesg": []}
    for line in text.splitlines():
        if line.startswith("dmesg: "):
            info["dmesg"].append(line[7:])
        elif "=" in line:
            k, v = line.split("=", 1)
            info[k] = v
    for l in info["dmesg"]:
        m = re.search(r"nr_cpu_ids:(\d+) nr_node_ids:(\d+)", l)
        if m:
            info["nr_cpu_ids"] = int(m.group(1))
            info["nr_node_ids"] = int(m.group(2))
    return info


def run_A(name, smp, extra, ctx, numa2=False):
    cmd = qemu_cmd(ctx["vmlinuz"], ctx["initrd"], smp, numa2, f"lab=A labiters={ctx['iters']} {extra}".strip())
    out, rc, to, wall = run_guest(name, cmd, ctx["timeout"], ctx["logdir"])
    secs = parse_sections(out)
    res = {"name": name, "smp": smp, "numa_nodes": 2 if numa2 else 1, "qemu_cmdline": cmd, "qemu_rc": rc, "timed_out": to,
           "wall_s": round(wall, 1), "completed": "@@DONE" in out,
           "rmdir_failures": out.count("RMDIR_FAILED"),
           "settle_rounds": re.findall(r"^(settled_\S+=\d+)", out.replace("\r", ""), re.M)}
    if "info" in secs:
        res["guest"] = parse_info(secs["info"])
    snaps = {k: parse_snap(v) for k, v in secs.items() if k != "info"}
    if "boot" in snaps:
        res["boot"] = mem_summary(snaps["boot"])
    if "before" in snaps and "after" in snaps:
        a, b = snaps["before"], snaps["after"]
        it = ctx["iters"]
        res["before"] = mem_summary(a) | {"nr_dying_descendants": a["cgroup_stat"].get("nr_dying_descendants")}
        res["after"] = mem_summary(b) | {"nr_dying_descendants": b["cgroup_stat"].get("nr_dying_descendants")}
        res["uptime_before_after_s"] = [a["uptime_s"], b["uptime_s"]]
        res["per_dying_memcg_bytes"] = {k: round(delta(a, b, k) / it, 1)
                                        for k in ("Percpu", "Slab", "SUnreclaim", "SReclaimable", "MemFree",
                                                  "Shmem", "KernelStack", "PageTables", "VmallocUsed", "PcpListsTotal", "MemFreePlusPcp")}
        res["slab_top15"] = slab_growth(a, b)
        res["slab_top_shrink"] = slab_growth(a, b, 5, shrink=True)
        res["vmalloc_growth"] = vmalloc_growth(a, b)
        res["slab_not_in_slabinfo_delta_per_memcg_bytes"] = round(
            (b["slab_not_in_slabinfo_kB"] - a["slab_not_in_slabinfo_kB"]) * 1024 / it, 1)
        if "after_15s" in snaps:
            c = snaps["after_15s"]
            res["after_15s"] = mem_summary(c) | {"nr_dying_descendants": c["cgroup_stat"].get("nr_dying_descendants")}
    return res


def run_B(name, n, ctx):
    ms = ctx["mlist"]
    cmd = qemu_cmd(ctx["vmlinuz"], ctx["initrd"], 2, True,
                   f"lab=B labn={n} labm={','.join(map(str, ms))} labk={ctx['k']} labt={ctx['t']}")
    out, rc, to, wall = run_guest(name, cmd, ctx["timeout"], ctx["logdir"])
    secs = parse_sections(out)
    res = {"name": name, "smp": 2, "numa_nodes": 2, "N_memcgs": n, "M_mounts": ms, "K": min(ctx["k"], n),
           "T": ctx["t"], "qemu_cmdline": cmd, "qemu_rc": rc, "timed_out": to, "wall_s": round(wall, 1),
           "completed": "@@DONE" in out, "mount_failures": out.count("MOUNT_FAILED")}
    for key in ("settled_start", "settled_memcgs", "settled_mounts_100", "settled_mounts_500",
                "settled_mounts_1000", "settled_touched_1", "settled_touched_2", "memcgs", "mounts", "files_pass1", "files_pass2", "K_effective", "memcg1_slab"):
        m = re.findall(rf"^{key}=(.*)$", out.replace("\r", ""), re.M)
        if m:
            res.setdefault("guest_echo", {})[key] = m
    if "info" in secs:
        res["guest"] = parse_info(secs["info"])
    snaps = {k: parse_snap(v) for k, v in secs.items() if k != "info"}
    if "boot" in snaps:
        res["boot"] = mem_summary(snaps["boot"])
    order = ["start", "memcgs"] + [f"mounts_{m}" for m in ms] + ["touched_1", "touched_2"]
    res["snapshots"] = {k: mem_summary(snaps[k]) for k in order if k in snaps}
    res["uptime_s"] = {k: snaps[k]["uptime_s"] for k in order if k in snaps}
    steps = []
    prev = "start"
    prev_m = 0
    for k in order[1:]:
        if k not in snaps or prev not in snaps:
            continue
        a, b = snaps[prev], snaps[k]
        d = {f: delta(a, b, f) for f in ("Slab", "SUnreclaim", "SReclaimable", "Percpu", "MemFree",
                                          "MemFreePlusPcp", "VmallocUsed", "Shmem")}
        if k == "memcgs":
            units, unit_name = n, "memcg"
        elif k.startswith("mounts_"):
            m = int(k.split("_")[1])
            units, unit_name = m - prev_m, "mount"
            prev_m = m
        else:
            units, unit_name = min(ctx["k"], n) * ctx["t"], "(memcg,mount) pair (1 new file each)"
        step = {"from": prev, "to": k, "units": units, "unit": unit_name, "delta_bytes": d,
                "per_unit_bytes": {f: (round(v / units, 1) if units and v is not None else None) for f, v in d.items()},
                "slab_not_in_slabinfo_delta_bytes": (b["slab_not_in_slabinfo_kB"] - a["slab_not_in_slabinfo_kB"]) * 1024,
                "slab_top15": slab_growth(a, b), "slab_top_shrink": slab_growth(a, b, 5, shrink=True),
                "vmalloc_growth": vmalloc_growth(a, b)}
        steps.append(step)
        prev = k
    res["steps"] = steps
    return res


def _fit(xs, ys):
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    a = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return {"per_cpu_bytes": round(a, 1), "intercept_bytes": round(my - a * mx, 1)}


def summarize(results):
    """Compact tables derived from the raw runs (all figures in bytes unless the key says kB)."""
    summ = {"notes": [
        "per_* figures are (after - before) / count, from /proc/meminfo (kB * 1024).",
        "Slab in 6.1 includes kmalloc_large (>8 KiB) pages, which /proc/slabinfo does not list; "
        "see slab_not_in_slabinfo.",
        "MemFree is distorted by per-cpu page lists (pcp high is ~80 MB here); MemFreePlusPcp = MemFree + "
        "sum of pcp counts from /proc/zoneinfo is the better free-memory figure."]}
    rows = []
    for r in results.get("runs_A", []) + results.get("runs_A_nomerge", []) + results.get("runs_A_2nodes", []):
        if "per_dying_memcg_bytes" not in r:
            rows.append({"run": r["name"], "smp": r["smp"], "completed": r.get("completed")})
            continue
        p = r["per_dying_memcg_bytes"]
        rows.append({"run": r["name"], "smp": r["smp"], "numa_nodes": r.get("numa_nodes", 1),
                     "nr_cpu_ids": r["guest"].get("nr_cpu_ids"),
                     "cpu_possible": r["guest"].get("possible"),
                     "boot_kB": {k: r["boot"][k] for k in ("MemTotal", "MemFree", "MemFreePlusPcp", "Slab", "Percpu")},
                     "before_kB": {k: r["before"][k] for k in ("Percpu", "Slab", "nr_dying_descendants")},
                     "after_kB": {k: r["after"][k] for k in ("Percpu", "Slab", "nr_dying_descendants")},
                     "per_dying_memcg": {k: p[k] for k in ("Percpu", "Slab", "SUnreclaim", "SReclaimable",
                                                           "MemFreePlusPcp", "Shmem", "VmallocUsed")},
                     "percpu_per_dying_memcg_per_cpu": round(p["Percpu"] / r["smp"], 1),
                     "slab_top_caches_per_dying_memcg": [
                         {"cache": x["cache"], "objsize": x["objsize"],
                          "objs_per_memcg": round(x["delta_active_objs"] / 1000, 2),
                          "slab_bytes_per_memcg": round(x["delta_bytes"] / 1000, 1)}
                         for x in r["slab_top15"][:10]]})
    summ["A_dying_memcgs"] = rows
    ok = [r for r in rows if r.get("per_dying_memcg") and r["run"] == f"A_smp{r['smp']}"]
    if len(ok) >= 2:
        summ["A_fit_vs_cpus"] = {
            "Percpu": _fit([r["smp"] for r in ok], [r["per_dying_memcg"]["Percpu"] for r in ok]),
            "Slab": _fit([r["smp"] for r in ok], [r["per_dying_memcg"]["Slab"] for r in ok])}
    brows = []
    for r in results.get("runs_B", []):
        row = {"N_memcgs": r["N_memcgs"], "completed": r.get("completed"), "boot_kB": r.get("boot"),
               "start_kB": r.get("snapshots", {}).get("start"), "steps": []}
        steps = {s["to"]: s for s in r.get("steps", [])}
        for s in r.get("steps", []):
            row["steps"].append({
                "step": s["to"], "units": s["units"], "unit": s["unit"],
                "per_unit": {k: s["per_unit_bytes"][k] for k in ("Slab", "Percpu", "MemFreePlusPcp", "VmallocUsed")},
                "slab_not_in_slabinfo_per_unit": (round(s["slab_not_in_slabinfo_delta_bytes"] / s["units"], 1)
                                                  if s["units"] else None),
                "top_caches": [(x["cache"], x["delta_bytes"], x["delta_active_objs"]) for x in s["slab_top15"][:6]
                               if x["delta_bytes"] > 0],
                "shrunk_caches": [(x["cache"], x["delta_bytes"], x["delta_active_objs"]) for x in s["slab_top_shrink"]]})
        if "touched_1" in steps and "touched_2" in steps and steps["touched_1"]["units"]:
            a, b = steps["touched_1"], steps["touched_2"]
            objs1 = {x["cache"]: x for x in a["slab_top15"]}
            objs2 = {x["cache"]: x for x in b["slab_top15"]}
            extra = {}
            for c in set(objs1) | set(objs2):
                d = (objs1.get(c, {}).get("delta_obj_bytes", 0) - objs2.get(c, {}).get("delta_obj_bytes", 0))
                if abs(d) >= 4096:
                    extra[c] = round(d / a["units"], 1)
            row["first_touch_minus_second_touch_per_pair"] = {
                "Slab": round((a["delta_bytes"]["Slab"] - b["delta_bytes"]["Slab"]) / a["units"], 1),
                "by_cache_obj_bytes": extra}
        brows.append(row)
    summ["B_list_lru"] = brows
    # shrinker_info growth: extra Slab per mount attributable to each memcg (N memcgs + root + CG)
    base = {s["step"]: s["per_unit"]["Slab"] for b in brows if b["N_memcgs"] == 0 for s in b["steps"]}
    cross = []
    for b in brows:
        if b["N_memcgs"] == 0:
            continue
        for s in b["steps"]:
            if s["step"].startswith("mounts_") and base.get(s["step"]) is not None and s["per_unit"]["Slab"] is not None:
                cross.append({"N_memcgs": b["N_memcgs"], "step": s["step"],
                              "slab_per_memcg_per_mount_bytes": round(
                                  (s["per_unit"]["Slab"] - base[s["step"]]) / (b["N_memcgs"] + 2), 1)})
    summ["B_slab_per_memcg_per_mount"] = cross
    return summ


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", default="/tmp/qemu-lab")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "memcg_qemu_results.json"))
    ap.add_argument("--logdir", default=None)
    ap.add_argument("--only", default="A,nomerge,A2node,B")
    ap.add_argument("--smp", default="1,2,4,8,16")
    ap.add_argument("--bn", default="0,500,1000,2000")
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--kernel-package", default=None)
    ap.add_argument("--skip-install", action="store_true")
    ap.add_argument("--summarize-only", action="store_true", help="recompute the summary of an existing --out")
    args = ap.parse_args()
    if args.summarize_only:
        with open(args.out) as f:
            results = json.load(f)
        results["summary"] = summarize(results)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
        print(json.dumps(results["summary"], indent=1))
        return
    os.makedirs(args.workdir, exist_ok=True)
    logdir = args.logdir or os.path.join(os.path.dirname(os.path.abspath(args.out)), "raw_logs")
    os.makedirs(logdir, exist_ok=True)
    ensure_host_packages(args.skip_install)
    kern = get_kernel(args.workdir, args.kernel_package)
    initrd = build_initramfs(args.workdir)
    ctx = {"vmlinuz": kern["vmlinuz"], "initrd": initrd, "iters": args.iters, "timeout": args.timeout,
           "logdir": logdir, "mlist": [100, 500, 1000], "k": 100, "t": 10}
    host = {"uname": platform.uname()._asdict(), "nproc": os.cpu_count(),
            "cpu_model": sh("grep -m1 'model name' /proc/cpuinfo").split(":", 1)[1].strip(),
            "mem_total_kB": int(sh("grep MemTotal /proc/meminfo").split()[1]),
            "qemu_version": sh("qemu-system-x86_64 --version").splitlines()[0],
            "qemu_package": sh("dpkg-query -W -f '${Version}' qemu-system-x86").strip(),
            "busybox_package": sh("dpkg-query -W -f '${Version}' busybox-static").strip()}
    results = {"date_utc": datetime.datetime.utcnow().isoformat() + "Z", "host": host, "kernel": kern,
               "initramfs_init_script": GUEST_INIT, "runs_A": [], "runs_A_nomerge": [], "runs_A_2nodes": [],
               "runs_B": []}
    if os.path.exists(args.out):
        with open(args.out) as f:
            old = json.load(f)
        for k in ("runs_A", "runs_A_nomerge", "runs_A_2nodes", "runs_B"):
            results[k] = old.get(k, [])
        results["invocations"] = old.get("invocations", [{"date_utc": old.get("date_utc"), "only": "A,nomerge,B"}])
    results.setdefault("invocations", []).append({"date_utc": results["date_utc"], "only": args.only,
                                                  "smp": args.smp, "bn": args.bn})

    def save():
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)

    only = args.only.split(",")
    if "A" in only:
        results["runs_A"] = [r for r in results["runs_A"] if str(r["smp"]) not in args.smp.split(",")]
        for smp in map(int, args.smp.split(",")):
            print(f"[A] smp={smp} ...", flush=True)
            r = run_A(f"A_smp{smp}", smp, "", ctx)
            print(f"    done wall={r['wall_s']}s completed={r['completed']} per={r.get('per_dying_memcg_bytes')}", flush=True)
            results["runs_A"].append(r)
            results["runs_A"].sort(key=lambda r: r["smp"])
            save()
    if "nomerge" in only:
        print("[A nomerge] smp=4 ...", flush=True)
        r = run_A("A_smp4_slab_nomerge", 4, "slab_nomerge", ctx)
        print(f"    done wall={r['wall_s']}s completed={r['completed']} per={r.get('per_dying_memcg_bytes')}", flush=True)
        results["runs_A_nomerge"] = [r]
        save()
    if "A2node" in only:
        print("[A 2 nodes] smp=2 ...", flush=True)
        r = run_A("A_smp2_2nodes", 2, "", ctx, numa2=True)
        print(f"    done wall={r['wall_s']}s completed={r['completed']} per={r.get('per_dying_memcg_bytes')}", flush=True)
        results["runs_A_2nodes"] = [r]
        save()
    if "B" in only:
        ns = list(map(int, args.bn.split(",")))
        results["runs_B"] = [r for r in results["runs_B"] if r["N_memcgs"] not in ns]
        for n in ns:
            print(f"[B] N={n} ...", flush=True)
            r = run_B(f"B_n{n}", n, ctx)
            print(f"    done wall={r['wall_s']}s completed={r['completed']}", flush=True)
            for s in r["steps"]:
                print(f"      {s['to']}: per {s['unit']}: {s['per_unit_bytes']}", flush=True)
            results["runs_B"].append(r)
            results["runs_B"].sort(key=lambda r: r["N_memcgs"])
            save()
    results["date_utc_end"] = datetime.datetime.utcnow().isoformat() + "Z"
    results["summary"] = summarize(results)
    save()
    print("wrote", args.out)


if __name__ == "__main__":
    main()
