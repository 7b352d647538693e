"""memtwin real --on qemu: the op script, the checks made before booting, the parsing of the
guest's console, and one tiny scenario end to end in a QEMU/TCG guest compared with the engine
(skipped, with the reason, when qemu or the guest kernel is absent; on the project's machines
it runs: `memtwin lab setup` fetches the kernel)."""

import json
import re
import shutil
import subprocess
import os

import pytest

import memtwin
from memtwin import qemu
from memtwin.real import RealError, sched_autogroup_enabled

from conftest import cli_run

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

QEMU_OK, QEMU_WHY = qemu.qemu_ready()
needs_qemu = pytest.mark.skipif(not QEMU_OK, reason=f"qemu runner unavailable: {QEMU_WHY}")

TINY = """
[scenario]
name = "tiny"
[machine]
ram = "512M"
cpus = 1
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.vda]
read_bw = "200M"
write_bw = "200M"
read_ahead_kb = 128
[files."/data/f"]
size = "16M"
[files."/data/g file"]
size = "2M"
[files."/data/h"]
size = "6M"
[cgroups.A]
"memory.max" = "32M"
[cgroups.B]
"memory.max" = "8M"
[tasks.a]
cgroup = "A"
ops = [
  { op = "read", file = "/data/f", bufsize = "128K", step = "read 1" },
  { op = "read", file = "/data/f", bufsize = "128K", step = "read 2" },
  { op = "read", file = "/data/g file", bufsize = "64K", pattern = "random", count = 64, step = "random" },
  { op = "fadvise", path = "/data/f", advice = "dontneed", step = "drop" },
]
[tasks.b]
cgroup = "B"
start = "0s"
ops = [
  { op = "write", file = "/data/out", length = "4M", bufsize = "1M", fsync = true, create = true, step = "write" },
  { op = "read", file = "/data/h", bufsize = "128K", step = "b reads" },
]
%s
"""


def _scn(tmp_path, extra=""):
    p = tmp_path / "tiny.toml"
    p.write_text(TINY % extra)
    return memtwin.load(str(p))


def test_op_script_carries_the_plan(tmp_path):
    scn = _scn(tmp_path)
    plan = scn.doc.plan(None, [])
    script, steps, tracked, cg = qemu.op_script(plan)
    lines = script.splitlines()
    assert lines[0] == "V 2"
    assert "SET /sys/fs/cgroup/memtwin/A/memory.max 33554432" in lines
    assert "SET /sys/fs/cgroup/memtwin/B/memory.max 8388608" in lines
    # a path with a space is %-encoded, so fields stay space-separated
    assert "FILE /s/data/g%20file 2097152 420 0" in lines
    assert steps == ["read 1", "read 2", "random", "drop", "write", "b reads"]
    ops = [l for l in lines if l.startswith("O ")]
    assert len(ops) == sum(len(t["ops"]) for t in plan["tasks"])
    assert ops[0] == "O 0 read /s/data/f 0 -1 131072 seq 0 0 0"
    assert ops[2].startswith("O 2 read /s/data/g%20file 0 -1 65536 rand") and ops[2].endswith(" 64")
    assert ops[3] == "O 3 fadv 4 0 0 1 /s/data/f"
    assert ops[4] == "O 4 write /s/data/out 0 4194304 1048576 1 1 0"
    assert "/data/out" in tracked


def test_a_directory_fadvise_is_the_kernels_call_unless_walked(tmp_path):
    p = tmp_path / "walk.toml"
    p.write_text("""
[scenario]
name = "walk"
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
[files."/d/a"]
size = "64K"
[files."/d/sub/b"]
size = "64K"
[tasks.t]
ops = [
  { op = "fadvise", path = "/d", advice = "dontneed", step = "own" },
  { op = "fadvise", path = "/d", advice = "dontneed", walk = true, step = "walk" },
]
""")
    plan = memtwin.load(str(p)).doc.plan(None, [])
    assert [op["walk"] for op in plan["tasks"][0]["ops"]] == [False, True]
    ops = [l for l in qemu.op_script(plan)[0].splitlines() if l.startswith("O ")]
    assert ops == ["O 0 fadvdir 4 /s/d", "O 1 fadv 4 0 0 2 /s/d/a /s/d/sub/b"]


def test_v1_scenarios_use_the_v1_memory_controller(tmp_path):
    p = tmp_path / "v1.toml"
    p.write_text(TINY.replace('cgroup = "v2"', 'cgroup = "v1"').replace('"memory.max"', '"memory.limit_in_bytes"') % "")
    script, _, _, cg = qemu.op_script(memtwin.load(str(p)).doc.plan(None, []))
    assert script.startswith("V 1\n")
    assert "SET /sys/fs/cgroup/memory/memtwin/A/memory.limit_in_bytes 33554432" in script
    assert "SNAP memory.usage_in_bytes" in script and "SNAP memory.current" not in script


def test_unsupported_op_is_refused_before_booting(tmp_path):
    plan = _scn(tmp_path).doc.plan(None, [])
    plan["tasks"][0]["ops"].append({"step": "x", "op": "mmap_touch"})
    with pytest.raises(RealError, match=r"op `mmap_touch` is not supported on qemu"):
        qemu.check_plan(plan)


def test_too_much_ram_is_refused(tmp_path):
    plan = _scn(tmp_path).doc.plan(None, [])
    plan["machine"]["ram"] = 1 << 50
    with pytest.raises(RealError, match=r"\[machine\] ram"):
        qemu.check_plan(plan)


def test_several_devices_are_refused(tmp_path):
    plan = _scn(tmp_path).doc.plan(None, [])
    plan["devices"] = plan["devices"] * 2
    with pytest.raises(RealError, match="one virtio disk"):
        qemu.check_plan(plan)


def test_swap_gives_the_guest_a_second_disk_sharing_the_throttle(tmp_path):
    # [machine] swap: a second virtio disk (vdb), mkswap + swapon in /init, vm.swappiness
    # written, the swap state recorded; both disks in one QEMU throttle group (the engine's
    # swap area is on the scenario's one device).
    plan = _scn(tmp_path).doc.plan(None, ["machine.swap=256M", "kernel.swappiness=100"])
    assert plan["machine"]["swap"] == 256 << 20 and plan["swappiness"] == 100
    qemu.check_plan(plan)
    cmd = qemu.qemu_command(plan, "/k", "/i", "/d.img", "/s.log", "/swap.img")
    drives = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-drive"]
    assert len(drives) == 2 and drives[1].startswith("file=/swap.img,if=virtio,format=raw")
    assert all("throttling.group=memtwin" in d and "throttling.bps-write=" in d for d in drives)
    init = qemu.guest_init(plan, 128)
    assert "swapon /dev/vdb" in init and "echo 100 > /proc/sys/vm/swappiness" in init
    script, *_ = qemu.op_script(plan)
    assert "SNAP memory.swap.current" in script and "SNAP memory.swap.events" in script
    out = "@@UNAME 6.1.0\n@@SWAP /dev/vdb partition 262140 0 -2 rotational: 1 page-cluster: 3 swappiness: 100\n@@DONE\n"
    _, facts = qemu.parse_output(out, {"tasks": []}, [], [], None)
    assert facts["swap"].startswith("/dev/vdb partition 262140") and "swappiness: 100" in facts["swap"]
    # without swap: no second disk, no swap files read
    plan = _scn(tmp_path).doc.plan(None, [])
    assert sum(a == "-drive" for a in qemu.qemu_command(plan, "/k", "/i", "/d.img", "/s.log")) == 1
    assert "memory.swap" not in qemu.op_script(plan)[0] and "swapon" not in qemu.guest_init(plan, 128)


def test_zswap_and_a_non_rotational_swap_disk_reach_the_guest():
    # [machine] zswap: its parameters written to /sys/module/zswap/parameters before swapon
    # (enabled last), debugfs mounted, /sys/kernel/debug/zswap dumped with every snapshot and
    # memory.zswap.current snapshotted; the mapping's fill reaches the guest program; a
    # non-rotational device has its swap disk's queue say so before swapon.
    plan = memtwin.load(os.path.join(ROOT, "scenarios", "validation", "qemu61-zswap-pool-limit.toml")).doc.plan(None, [])
    assert plan["machine"]["zswap"]["max_pool_percent"] == 1
    qemu.check_plan(plan)
    init = qemu.guest_init(plan, 128)
    d = "/sys/module/zswap/parameters"
    assert init.index(f"echo 1 > {d}/max_pool_percent") < init.index(f"echo Y > {d}/enabled") < init.index("swapon /dev/vdb")
    assert f"echo lzo > {d}/compressor" in init and f"echo zbud > {d}/zpool" in init and "mount -t debugfs" in init
    assert "echo 0 > /sys/block/vdb/queue/rotational" not in init
    script, *_ = qemu.op_script(plan)
    assert "ZSWAP 1" in script.splitlines() and "SNAP memory.zswap.current" in script
    assert f"O 0 mmap heap {160 << 20} 0 1024" in script.splitlines()
    plan = memtwin.load(os.path.join(ROOT, "scenarios", "validation", "qemu61-swap-vma-ra.toml")).doc.plan(None, [])
    init = qemu.guest_init(plan, 128)
    assert init.index("echo 0 > /sys/block/vdb/queue/rotational") < init.index("swapon /dev/vdb")
    assert "zswap" not in qemu.op_script(plan)[0] and "/sys/module/zswap/parameters/enabled" not in init.split("@@SWAP")[0]
    with open(qemu.GUEST_SRC) as f:
        src = f.read()
    assert '"ZSWAP"' in src and "write_page(r, pg)" in src


def test_zswap_writeback_and_6_12_parameters_reach_the_guest():
    # memory.zswap.writeback (6.8+): 0 written after the cgroup is made (1 is the kernel's default:
    # nothing written); the 6.12 guest lacks the same-filled parameters (written only where they
    # exist) and has shrinker_enabled (written N where it exists: the shrinker is not modelled)
    path = os.path.join(ROOT, "scenarios", "validation", "qemu612-zswap-writeback.toml")
    doc = memtwin.load(path).doc
    for variant, want in (("writeback-0", True), ("writeback-1", False)):
        plan = doc.plan(variant, [])
        assert plan["cgroups"][0]["zswap_writeback"] is (not want)
        qemu.check_plan(plan)
        script = qemu.op_script(plan)[0].splitlines()
        sets = [line for line in script if line.startswith("SET ") and "memory.zswap.writeback" in line]
        assert (len(sets) == 1 and sets[0].endswith(" 0")) if want else not sets, sets
        mk = next(i for i, line in enumerate(script) if line.startswith("MKCG "))
        assert all(script.index(line) > mk for line in sets)
    init = qemu.guest_init(doc.plan("writeback-0", []), 128)
    d = "/sys/module/zswap/parameters"
    assert f"if [ -e {d}/same_filled_pages_enabled ]; then echo Y > {d}/same_filled_pages_enabled" in init
    assert f"if [ -e {d}/shrinker_enabled ]; then echo N > {d}/shrinker_enabled" in init
    assert f"echo zsmalloc > {d}/zpool" in init and init.index(f"{d}/shrinker_enabled") < init.index(f"echo Y > {d}/enabled")


def test_zswap_counters_become_metrics():
    # /sys/kernel/debug/zswap as the guest dumps it (#zswap), memory.stat's zswap lines and vmstat
    from memtwin.real import metrics_from
    from types import SimpleNamespace as NS

    def snap(stored, hits, zswpout, mz):
        memcg = {"usage": 1, "max_usage": None, "file": 0, "failcnt": None, "events": {}, "zswap": mz}
        return NS(t=0.0, user=0.0, sys=0.0, iowait=None, io={"read_bytes": 0, "write_bytes": 0}, memcg=memcg,
                  vm={"zswpout": zswpout, "zswpin": 0},
                  zswap={"stored_pages": stored, "pool_limit_hit": hits, "pool_total_size": stored * 2048})
    a = snap(10, 3, 100, {"zswap": 0, "zswapped": 0, "zswpin": 0, "zswpout": 5})
    b = snap(30, 7, 160, {"zswap": 2200, "zswapped": 8192, "zswpin": 1, "zswpout": 25})
    m = metrics_from(a, b, {"Zswap": 60, "Zswapped": 120}, None)
    assert m["zswap.stored_pages"] == 30 and m["zswap.pool_limit_hit"] == 4 and m["zswap.pool_total_size"] == 61440
    assert m["vmstat.zswpout"] == 60 and m["memcg.zswpout"] == 20 and m["memcg.zswpin"] == 1
    assert m["memcg.zswap_bytes"] == 2200 and m["memcg.zswapped_bytes"] == 8192 and m["meminfo.Zswap_kB"] == 60
    a.zswap = b.zswap = None
    assert not any("zsw" in k for k in metrics_from(a, b, {"Zswap": 60}, None))


def test_swap_limits_reach_the_guest(tmp_path):
    plan = _scn(tmp_path).doc.plan(None, ["machine.swap=256M", 'cgroups.A."memory.swap.max"=8M'])
    assert "SET /sys/fs/cgroup/memtwin/A/memory.swap.max 8388608" in qemu.op_script(plan)[0]
    # a swap limit without swap is refused before booting
    plan["machine"]["swap"] = 0
    with pytest.raises(RealError, match=r"limits swap .* no swap\n  fix: "):
        qemu.check_plan(plan)


def test_a_swap_file_is_refused_on_qemu(tmp_path):
    # the guest swaps to /dev/vdb: a scenario whose area is a swap file is the host runner's
    plan = _scn(tmp_path).doc.plan(None, ["machine.swap=256M", "machine.swap_file=true"])
    assert plan["machine"]["swap_file"] is True
    with pytest.raises(RealError, match=r"swap_file = true: the qemu runner's swap area is the guest's /dev/vdb(.|\n)*  fix: drop swap_file"):
        qemu.check_plan(plan)
    plan = _scn(tmp_path).doc.plan(None, ["machine.swap=256M"])
    assert plan["machine"]["swap_file"] is False
    qemu.check_plan(plan)


def test_v1_memsw_and_swappiness_reach_the_guest(tmp_path):
    p = tmp_path / "v1.toml"
    p.write_text(TINY.replace('cgroup = "v2"', 'cgroup = "v1"').replace('"memory.max"', '"memory.limit_in_bytes"') % "")
    plan = memtwin.load(str(p)).doc.plan(None, ["machine.swap=256M", 'cgroups.A."memory.memsw.limit_in_bytes"=64M',
                                                 'cgroups.A."memory.swappiness"=0'])
    script = qemu.op_script(plan)[0].splitlines()
    limit = script.index("SET /sys/fs/cgroup/memory/memtwin/A/memory.limit_in_bytes 33554432")
    # memsw after the memory limit: the kernel refuses a memsw limit below it
    assert script.index("SET /sys/fs/cgroup/memory/memtwin/A/memory.memsw.limit_in_bytes 67108864") > limit
    assert "SET /sys/fs/cgroup/memory/memtwin/A/memory.swappiness 0" in script
    assert "SNAP memory.memsw.usage_in_bytes" in script


def test_recorded_swap_runs_had_the_swap_device():
    import json
    for name in ("qemu61-swap-retouch", "qemu61-swap-v1-memsw", "qemu61-swap-sw0", "qemu61-swap-sw60", "qemu61-swap-sw100",
                 "qemu61-swap-max", "qemu61-lrugen-swap"):
        with open(os.path.join(ROOT, "scenarios", "validation", "real", name + ".json")) as f:
            info = json.load(f)["variants"]["default"]["real"]
        assert info["machine"]["swap"].startswith("/dev/vdb partition 262140"), name


def test_qemu_command_has_numa_nodes_and_throttling(tmp_path):
    plan = _scn(tmp_path).doc.plan(None, [])
    plan["machine"].update(cpus=2, nodes=2, ram=2 << 30)
    cmd = qemu.qemu_command(plan, "/k", "/i", "/d.img", "/s.log")
    assert cmd[cmd.index("-m") + 1] == "2048M" and cmd[cmd.index("-smp") + 1] == "2"
    assert "node,nodeid=0,memdev=m0,cpus=0-0" in cmd and "node,nodeid=1,memdev=m1,cpus=1-1" in cmd
    assert "memory-backend-ram,id=m1,size=1024M" in cmd
    drive = cmd[cmd.index("-drive") + 1]
    assert "throttling.bps-read=209715200" in drive and "throttling.bps-write=209715200" in drive
    assert "tcg,thread=multi" in cmd


def test_guest_errors_name_the_task_and_step(tmp_path):
    plan = _scn(tmp_path).doc.plan(None, [])
    _, steps, tracked, cg = qemu.op_script(plan)
    out = "@@UNAME 6.1.0\r\n@@ERROR task 1 step 4: op write failed on the guest kernel: No space left on device\r\n"
    with pytest.raises(RealError, match=r"task b step 'write': op write failed.*No space left"):
        qemu.parse_output(out, plan, steps, tracked, cg)
    with pytest.raises(RealError, match="ended before reporting"):
        qemu.parse_output("@@UNAME 6.1.0\nKernel panic - not syncing\n", plan, steps, tracked, cg)


def test_guest_program_turns_thp_off_before_tasks_fork():
    # khugepaged would collapse the program's touched buffers into a 2 MiB page charged to the
    # memcg a task has joined by then (qemu61-tight-ra8192: rss_huge 2097152 in its 20M memcg)
    with open(qemu.GUEST_SRC) as f:
        src = f.read()
    main = src[src.index("int main("):]
    assert "prctl(PR_SET_THP_DISABLE, 1" in main
    assert main.index("PR_SET_THP_DISABLE") < main.index("fork()")


def test_static_busybox_check():
    import sys

    assert qemu._is_static(sys.executable) is False  # CPython is dynamically linked


@needs_qemu
def test_tiny_scenario_in_qemu_agrees_with_the_engine(tmp_path, capsys):
    """Boots Debian's 6.1 kernel (about 15 s under TCG) and compares with the engine's linux-6.1 run."""
    scn = _scn(tmp_path)
    out_json = tmp_path / "real.json"
    code, out, err = cli_run(capsys, "real", str(tmp_path / "tiny.toml"), "--on", "qemu", "--json", str(out_json))
    assert code == 0, err
    real = json.loads(out_json.read_text())["variants"]["default"]
    info = real["real"]
    assert info["on"] == "qemu" and info["kernel"].startswith("6.1") and info["timing_comparable"] is False
    assert info["machine"]["read_ahead_kb"] == 128
    sim = memtwin.run(scn).to_json()
    rs = {(s["task"], s["name"]): s for s in real["steps"]}
    ss = {(s["task"], s["name"]): s for s in sim["steps"]}
    assert set(rs) == set(ss)

    def close(a, b, rel=0.10, ab=0):
        return abs(a - b) <= max(rel * abs(b), ab)

    # the two tasks run concurrently, in their own memcgs on their own files; how far one has got
    # when the other ends a step differs between the engine and TCG, so the resident pages are
    # compared for the step's own task's files
    own = {"a": ("/data/f", "/data/g file"), "b": ("/data/out", "/data/h")}
    for key in ss:
        r, s = rs[key], ss[key]
        assert close(s["metrics"]["read_bytes"], r["metrics"]["read_bytes"], ab=1 << 20), (key, s["metrics"]["read_bytes"], r["metrics"]["read_bytes"])
        assert close(s["metrics"]["memcg.usage_bytes"], r["metrics"]["memcg.usage_bytes"], ab=2 << 20), key
        # (which of a memcg's files reclaim takes pages from depends on timing; their sum does not)
        mine = lambda step: sum(step["resident_pages"].get(f, 0) for f in own[key[0]])  # noqa: E731
        assert close(mine(s), mine(r), ab=64), (key, s["resident_pages"], r["resident_pages"])
    # the first read comes from disk, the second from the page cache, on both
    assert rs[("a", "read 1")]["metrics"]["read_bytes"] == 16 << 20
    assert rs[("a", "read 2")]["metrics"]["read_bytes"] == 0
    # fadvise(DONTNEED) emptied /data/f in the guest
    assert "/data/f" not in rs[("a", "drop")]["resident_pages"]
    # cgroup v2 in the guest: cgroup.stat is recorded
    assert "cgroup.nr_dying_descendants" in rs[("a", "read 1")]["metrics"]


def _qemu_procs(marker: str) -> list:
    """QEMU processes whose command line names `marker` (this test's own work directory)."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read()
                if cmd.startswith(b"qemu-system") and marker.encode() in cmd:
                    out.append(int(pid))
            except OSError:
                pass
    return out


@needs_qemu
def test_sigterm_stops_qemu_and_removes_its_files(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    _scn(tmp_path, "")
    work = tmp_path / "lab"
    work.mkdir()
    kernel = qemu.find_kernel()
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "real", str(tmp_path / "tiny.toml"), "--on", "qemu",
                          "--kernel", kernel, "--workdir", str(work)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not _qemu_procs(str(work)):
            time.sleep(0.1)
        assert _qemu_procs(str(work)), "QEMU never started"
        assert list(work.glob("run-*")), "the run directory was not made"
        time.sleep(1.0)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130 and "SIGTERM" in err, err
    assert _qemu_procs(str(work)) == []
    assert list(work.glob("run-*")) == []


def test_timeout_is_said_clearly(tmp_path, monkeypatch):
    if not QEMU_OK:
        pytest.skip(f"qemu runner unavailable: {QEMU_WHY}")
    plan = _scn(tmp_path).doc.plan(None, [])
    work = tmp_path / "lab"
    with pytest.raises(RealError, match=r"(?s)did not finish within 3 s.*--timeout"):
        qemu.run_qemu(plan, kernel=qemu.find_kernel(), workdir=str(work), timeout=3)
    assert list(work.glob("run-*")) == []


NUMA_ANON = """
[scenario]
name = "numa"
[machine]
ram = "2G"
cpus = 2
nodes = 2
node_reserved = ["95M", "42M"]
[kernel]
profile = "linux-6.1"
thp = "%s"
[tasks.t]
node = 1
ops = [
  { op = "mmap", name = "a b", size = "64M", step = "map" },
  { op = "touch", name = "a b", step = "touch" },
  { op = "munmap", name = "a b", step = "unmap" },
]
"""


@pytest.mark.parametrize("thp", ["never", "always"])
def test_anonymous_ops_and_thp_reach_the_guest(tmp_path, thp):
    p = tmp_path / "numa.toml"
    p.write_text(NUMA_ANON % thp)
    plan = memtwin.load(str(p)).doc.plan(None, [])
    assert plan["thp"] is (thp == "always")
    qemu.check_plan(plan)  # mmap, touch and munmap are carried out by the guest program
    script, steps, _, _ = qemu.op_script(plan)
    assert steps == ["map", "touch", "unmap"]
    ops = [l for l in script.splitlines() if l.startswith("O ")]
    # the last field: the pages' fill (-1: one byte per page, the default)
    assert ops == [f"O 0 mmap a%20b {64 << 20} {int(thp == 'always')} -1", "O 1 touch a%20b", "O 2 munmap a%20b"]
    task = next(l for l in script.splitlines() if l.startswith("TASK "))
    assert task.split()[4] == "2", "pinned to node 1's CPU (cpu 1)"
    init = qemu.guest_init(plan, 128)
    assert f"echo {thp} > /sys/kernel/mm/transparent_hugepage/enabled" in init
    assert "@THP@" not in init and "@RA@" not in init and "echo 128 > /sys/block/vda/queue/read_ahead_kb" in init
    with open(qemu.GUEST_SRC) as f:
        src = f.read()
    assert '!strcmp(k, "mmap")' in src and '!strcmp(k, "touch")' in src and '!strcmp(k, "munmap")' in src


def test_node_memory_at_start_is_read_from_the_console():
    out = ("@@UNAME 6.1.0\r\n@@COLD 0\n"
           "@@NODEMEM Node 0 MemTotal:         985456 kB\n@@NODEMEM Node 0 MemFree:          950892 kB\n"
           "@@NODEMEM Node 1 MemTotal:        1029560 kB\n@@NODEMEM Node 1 MemFree:         1005704 kB\n"
           "Node 1 MemFree: 1 kB\n")
    assert qemu.node_memory(out.replace("\r", "")) == {"0": {"MemTotal": 985456, "MemFree": 950892},
                                                     "1": {"MemTotal": 1029560, "MemFree": 1005704}}
    assert qemu.node_memory("@@UNAME 6.1.0\n") == {}


@pytest.mark.parametrize("machine, what", [
    ('node_reserved = ["95M"]', "has 1 entries for 2 node(s)"),
    ('node_reserved = ["95M", "42M"]\nkernel_reserved = "100M"', "sets both kernel_reserved and node_reserved"),
    ('node_reserved = ["1G", "42M"]', "leaves node 0 less than 256 KiB of its 1048576 KiB share of RAM"),
    ('node_reserved = ["1048324K", "42M"]', "leaves node 0 less than 256 KiB"),
    ('node_reserved = ["x", "42M"]', "node_reserved[0]"),
    ('node_reserved = "95M"', "must be an array of sizes"),
])
def test_node_reserved_errors_name_the_key_and_the_fix(tmp_path, machine, what):
    p = tmp_path / "bad.toml"
    p.write_text((NUMA_ANON % "never").replace('node_reserved = ["95M", "42M"]', machine))
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.load(str(p)).doc.plan(None, [])
    assert what in str(e.value) and f"{p}:" in str(e.value)


def test_node_reserved_is_checked_in_pages_when_ram_does_not_split_evenly(tmp_path):
    # 16390K on 2 nodes is 2048 pages each; 8194K reserved would leave node 1 no page at all
    # (and its first allocation would find no zone), though in bytes it is below 8195K.
    p = tmp_path / "odd.toml"
    p.write_text('[scenario]\nname = "odd"\n[machine]\nram = "16390K"\nnodes = 2\nnode_reserved = ["0", "8194K"]\n'
                 '[tasks.t]\nnode = 1\nops = [{ op = "mmap", name = "a", size = "4M" }, { op = "touch", name = "a" }]\n')
    with pytest.raises(memtwin.ScenarioError, match=r"node_reserved\[1\] \(8390656 bytes\) leaves node 1 less than 256 KiB"):
        memtwin.load(str(p)).doc.plan(None, [])
    p.write_text(p.read_text().replace('"8194K"', '"7936K"'))  # leaves 64 pages: allowed, and it runs
    touch = memtwin.run(str(p)).steps.iloc[-1]
    assert touch["vmstat.numa_hit"] < 64 and touch["vmstat.numa_miss"] > 900, "node 1's few pages, then node 0"


@pytest.mark.parametrize("ops, what", [
    ('{ op = "mmap", name = "", size = "4M" }', "the mapping's name is empty"),
    ('{ op = "mmap", name = "b", size = "4M" }, { op = "mmap", name = "b", size = "8M" }', "maps `b` again while it is still mapped"),
])
def test_mapping_names_are_checked_before_any_runner_sees_them(tmp_path, ops, what):
    # The guest program splits its op records on spaces (an empty name would shift the
    # fields) and keeps one region per name, as the engine does.
    p = tmp_path / "names.toml"
    p.write_text(f'[scenario]\nname = "names"\n[machine]\nram = "256M"\n[tasks.t]\nops = [{ops}]\n')
    with pytest.raises(memtwin.ScenarioError, match=re.escape(what)):
        memtwin.load(str(p)).doc.plan(None, [])


@pytest.mark.parametrize("lru_gen", [False, True])
def test_lru_gen_reaches_the_guest_and_its_state_is_recorded(lru_gen):
    # Debian's 6.1 builds CONFIG_LRU_GEN=y with CONFIG_LRU_GEN_ENABLED unset: the guest turns it
    # on only when the scenario asks (kernel.lru_gen), and always reports the file's state.
    path = os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-stream-wset.toml")
    sets = [] if lru_gen else ["kernel.lru_gen=false"]
    plan = memtwin.load(path).doc.plan(None, sets)
    assert plan["lru_gen"] is lru_gen and plan["min_ttl_ms"] == 0
    init = qemu.guest_init(plan, 128)
    assert "@LRUGEN@" not in init and "@MINTTL@" not in init
    assert ("if [ y = y ]; then" in init) is lru_gen
    assert "echo y > /sys/kernel/mm/lru_gen/enabled" in init
    assert 'echo "@@LRUGEN $(cat /sys/kernel/mm/lru_gen/enabled)' in init
    out = "@@UNAME 6.1.0\n@@LRUGEN 0x0007 min_ttl_ms: 0\n@@DONE\n@@LRUGENDBG memcg     1 /\n@@LRUGENDBG           1  5076  0  17\n"
    _, facts = qemu.parse_output(out, {"tasks": []}, [], [], None)
    assert facts["lru_gen"] == "0x0007 min_ttl_ms: 0"
    assert facts["lru_gen_debug"] == ["memcg     1 /", "          1  5076  0  17"]


def test_recorded_lru_gen_runs_say_lru_gen_was_on():
    import json
    for name in ("qemu61-lrugen-stream-wset", "qemu61-lrugen-reread-tight", "qemu61-lrugen-reread-loose", "qemu61-lrugen-two-memcgs"):
        with open(os.path.join(ROOT, "scenarios", "validation", "real", name + ".json")) as f:
            rec = json.load(f)
        info = rec["variants"]["default"]["real"]
        assert info["machine"]["lru_gen"].startswith("0x0007"), name
        assert any(line.startswith("memcg") for line in info["lru_gen_debug"]), name
    with open(os.path.join(ROOT, "scenarios", "validation", "real", "qemu61-stream-wset.json")) as f:
        assert json.load(f)["variants"]["default"]["real"]["machine"]["lru_gen"].startswith("0x0000")


def test_a_task_the_oom_killer_kills_ends_its_step_as_oom_killed():
    # issue 22: kswapd's min_ttl_ms OOM kill (lru_gen_age_node() -> out_of_memory()). The guest
    # program's parent ends the step of a task SIGKILLed in it, from the zombie (WNOWAIT, before
    # wait4() reaps it), with the step's start snapshot the task left in memory shared with the
    # parent and touched by it before the tasks fork (charged to no scenario memcg).
    with open(qemu.GUEST_SRC) as f:
        src = f.read()
    main = src[src.index("int main("):]
    assert main.index("memset(m, 0, len)") < main.index("fork()")
    assert "WEXITED | WNOWAIT" in main and main.index("WNOWAIT") < main.index("wait4(")
    assert "si.si_status == SIGKILL" in main and '"#ru\\n%ld %ld\\n#killed\\n1\\n@@ENDSTEP\\n"' in main
    assert qemu._SECTION.match("#killed")
    with open(os.path.join(ROOT, "scenarios", "validation", "real", "qemu61-lrugen-minttl-oom.json")) as f:
        rec = json.load(f)["variants"]["default"]
    assert rec["real"]["oom_killed_tasks"] == ["streamer"]
    by = {(s["task"], s["name"]): s["metrics"] for s in rec["steps"]}
    assert by[("streamer", "stream")]["oom_killed"] == 1 and by[("streamer", "stream")]["vmstat.oom_kill"] == 1
    assert by[("hog", "idle")]["oom_killed"] == 0


# ---------------------------------------------------------------- the root file system and folios (issue 21)

XFS_READ = """
[scenario]
name = "xfs read"
[machine]
ram = "512M"
cpus = 1
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.vda]
read_bw = "200M"
read_ahead_kb = 8192
[files."/data/f"]
size = "24M"
[cgroups.A]
"memory.max" = "64M"
[tasks.a]
cgroup = "A"
ops = [
  { op = "read", file = "/data/f", bufsize = "128K", step = "read" },
]
"""


def _xfs_plan(tmp_path):
    p = tmp_path / "xfs.toml"
    p.write_text(XFS_READ)
    plan = memtwin.load(str(p)).doc.plan(None, [])
    plan["machine"]["fs"] = "xfs"  # [machine] fs (the engine's key, issue 21), set on the plan
    return plan


def test_an_xfs_root_is_formatted_loaded_and_mounted_in_the_guest(tmp_path):
    """6.1 caches XFS files in large folios (5.18+) and ext4 files in order-0 pages: the guest's
    disk gets the scenario's root file system, its module and mount type."""
    plan = _xfs_plan(tmp_path)
    if shutil.which("mkfs.xfs") is None:
        # a machine without xfsprogs (the lab not set up): the plan is refused with the fix, not booted
        with pytest.raises(RealError, match=r"mkfs.xfs is not installed\n  fix: apt-get install xfsprogs"):
            qemu.check_plan(plan)
        pytest.skip("mkfs.xfs not installed (memtwin lab setup / .ci/run install xfsprogs): the refusal checked, the guest's disk not made")
    qemu.check_plan(plan)
    init = qemu.guest_init(plan, 8192)
    assert "mount -t xfs /dev/vda /s" in init and "@FS@" not in init
    script, _, _, _ = qemu.op_script(plan)
    assert "FOLIOS 1" in script.splitlines()
    script, _, _, _ = qemu.op_script({**plan, "record_folios": False})  # memtwin real --no-folios
    assert "FOLIOS 0" in script.splitlines()
    if qemu.find_kernel():
        import glob as _glob

        k = qemu.find_kernel()
        ver = os.path.basename(k)[len("vmlinuz-"):]
        moddir = os.path.join(os.path.dirname(os.path.dirname(k)), "lib", "modules", ver)
        names = [n for n, _, _ in qemu._module_files(moddir, "xfs")]
        assert "xfs" in names and "ext4" not in names and "virtio_blk" in names
        assert names.index("libcrc32c") < names.index("xfs"), names  # dependencies first
        assert "ext4" in [n for n, _, _ in qemu._module_files(moddir, "ext4")]
        assert _glob.glob(moddir)
    if os.path.exists("/usr/sbin/mkfs.xfs") or __import__("shutil").which("mkfs.xfs"):
        img = qemu._disk(str(tmp_path), plan)
        with open(img, "rb") as f:
            assert f.read(4) == b"XFSB"  # the XFS superblock magic


def test_a_root_file_system_the_runners_cannot_format_is_refused_before_booting(tmp_path):
    plan = _xfs_plan(tmp_path)
    plan["machine"]["fs"] = "btrfs"
    with pytest.raises(RealError, match=r"\[machine\] fs = 'btrfs'.*ext4 or xfs(.|\n)*fix:"):
        qemu.check_plan(plan)


def test_folios_by_order_are_read_from_the_console():
    assert qemu.parse_folios("file_pages 4672\nother_pages 11\norder 6 7\norder 9 4\n") == {
        "file": {"6": 7, "9": 4}, "file_pages": 4672, "other_pages": 11}
    with open(qemu.GUEST_SRC) as f:
        src = f.read()
    # 6.1's kpagecgroup gives a tail page 0 (page_cgroup_ino reads the page's own memcg_data):
    # the guest takes a head's tails from kpageflags, as the host runner does
    assert "/proc/kpagecgroup" in src and "KPF_COMPOUND_TAIL" in src


@needs_qemu
def test_xfs_in_the_guest_caches_large_folios(tmp_path):
    """Boots Debian's 6.1 kernel with an XFS disk (about 15 s under TCG): the file is read once
    from disk, and the page cache the memcg holds is in folios of several orders, as many pages
    as mincore counts."""
    plan = _xfs_plan(tmp_path)
    res = qemu.run_qemu(plan)
    (step,) = res["steps"]
    assert res["real"]["machine"]["disk"].startswith("xfs on a raw image")
    assert res["real"]["machine"]["read_ahead_kb"] == 8192 and res["real"]["machine"]["queue"]["max_sectors_kb"] > 0
    assert "kpagecgroup" in res["real"]["folios_source"] and "does not count" in res["real"]["folio_events_unavailable"]
    assert step["metrics"]["read_bytes"] == 24 << 20
    fol = step["folios"]
    assert step["pagecache"] == 6144
    assert 0 <= fol["file_pages"] - step["pagecache"] <= 16, fol  # + the directory's and inode's blocks
    assert fol["file_pages"] == sum(n << int(o) for o, n in fol["file"].items())
    assert any(int(o) >= 2 for o in fol["file"]), fol


def test_dirty_bytes_reach_the_guest_and_the_host_owner_file(tmp_path, monkeypatch):
    # kernel.dirty_bytes / dirty_background_bytes: the guest's /init writes vm.dirty_bytes and
    # vm.dirty_background_bytes; left out, /init writes neither. The host runner saves what it
    # changes in its owner file, where `memtwin lab clean` finds it (leftovers.find) and puts
    # it back (restore_sysctls), a ratio after its bytes twin.
    from memtwin import leftovers
    plan = _scn(tmp_path).doc.plan(None, ["kernel.dirty_bytes=256M", "kernel.dirty_background_bytes=128M"])
    assert (plan["dirty_bytes"], plan["dirty_background_bytes"]) == (256 << 20, 128 << 20)
    init = qemu.guest_init(plan, 128)
    assert f"echo {256 << 20} > /proc/sys/vm/dirty_bytes" in init and f"echo {128 << 20} > /proc/sys/vm/dirty_background_bytes" in init
    assert "dirty_bytes" not in qemu.guest_init(_scn(tmp_path).doc.plan(None, []), 128)
    d = tmp_path / "memtwin-1-2-0123abcd"
    d.mkdir()
    leftovers.write_owner(str(d), "host", sysctl={"/proc/sys/vm/dirty_ratio": 20, "/etc/passwd": 1})
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    run = [r for r in leftovers.find([str(tmp_path)]) if r.scratch == str(d)][0]
    assert run.sysctls == {"/proc/sys/vm/dirty_ratio": "20"}  # only vm sysctls are ever written back
    f = tmp_path / "knob"
    f.write_text("0")
    assert leftovers.restore_sysctls({str(f): 20}) == [] and f.read_text() == "20"
    assert leftovers.restore_sysctls({str(tmp_path / "no" / "such"): 1})


# ---------------------------------------------------------------- the 6.12 guest (issue 22)

def test_the_profile_chooses_the_guest_kernel():
    # linux-6.12 and linux-6.12-lru_gen boot Debian's 6.12; every other profile the 6.1 guest
    assert qemu.guest_kernel_of({"profile": "linux-6.12"}) == "6.12"
    assert qemu.guest_kernel_of({"profile": "linux-6.12-lru_gen"}) == "6.12"
    for p in ("linux-6.1", "linux-6.6", "linux-6.6-lru_gen", "linux-6.18", "linux-5.0"):
        assert qemu.guest_kernel_of({"profile": p}) == "6.1", p
    assert set(qemu.GUEST_OF_PROFILE.values()) <= set(qemu.GUEST_KERNELS)
    assert set(qemu.GUEST_OF_PROFILE) <= {p for p, _ in memtwin.profiles()}


@pytest.mark.parametrize("lru_gen", [False, True])
def test_the_6_1_guest_init_is_unchanged_and_6_12_switches_lru_gen_off_for_two_lists(lru_gen):
    path = os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-stream-wset.toml")
    plan = memtwin.load(path).doc.plan(None, [] if lru_gen else ["kernel.lru_gen=false"])
    init61 = qemu.guest_init(plan, 128)
    assert qemu.guest_init(plan, 128, None, "6.1") == init61  # byte-identical to a run without a guest name
    assert "@LRUGENOFF@" not in init61 and "echo n > /sys/kernel/mm/lru_gen/enabled" not in init61
    init612 = qemu.guest_init(plan, 128, None, "6.12")
    # Debian's 6.12 boots with CONFIG_LRU_GEN_ENABLED=y: a two-list run writes n, a lru_gen run y
    assert ("echo n > /sys/kernel/mm/lru_gen/enabled" in init612) is (not lru_gen)
    assert init612.replace(qemu.LRUGEN_OFF, "") == init61


def test_a_v1_scenario_on_the_6_12_guest_is_refused_before_booting():
    path = os.path.join(ROOT, "scenarios", "validation", "qemu612-lrugen-global-stream.toml")
    plan = memtwin.load(path).doc.plan("two-list", ["kernel.cgroup=v1"])
    assert plan["cgroup"] == "v1" and qemu.guest_kernel_of(plan) == "6.12"
    with pytest.raises(RealError, match=r"no cgroup v1 memory controller \(CONFIG_MEMCG_V1 is not set\)\n  fix: set \[kernel\] cgroup = \"v2\""):
        qemu.check_plan(plan, None, "6.12")
    qemu.check_plan(plan, None, None)  # a --kernel of the user's: not refused for that


def test_no_6_12_guest_says_how_to_get_it(tmp_path):
    with pytest.raises(RealError, match=r"boots Debian's 6.12 guest kernel, and there is none in .*kpkg-6.12\n  fix: run `memtwin lab setup`"):
        qemu._kernel_and_modules(None, str(tmp_path), "6.12")


def test_lab_setup_skips_6_12_it_cannot_get_and_fails_without_6_1(tmp_path, monkeypatch):
    # CI runs `memtwin lab setup`: the optional 6.12 guest is a said skip, the 6.1 guest an error
    monkeypatch.setattr(qemu.os, "geteuid", lambda: 0)
    monkeypatch.setattr(qemu.shutil, "which", lambda tool: "/bin/" + tool)
    monkeypatch.setattr(qemu, "_is_static", lambda p: True)
    monkeypatch.setattr(qemu, "_static_libc", lambda: True)
    monkeypatch.setattr(qemu, "kernel_package", lambda guest="6.1": None)
    said = []
    assert qemu.setup(said.append, str(tmp_path), ("6.12",)) == 0
    assert any(s.startswith("guest kernel 6.12: skipped: apt-cache names no linux-image-6.12.") for s in said), said
    with pytest.raises(RealError, match="apt-cache names no linux-image-6.1"):
        qemu.setup(said.append, str(tmp_path), ("6.1", "6.12"))
    assert os.listdir(tmp_path) == []


def test_a_killed_unpack_leaves_no_kernel_that_looks_unpacked(tmp_path, monkeypatch):
    """_fetch_guest unpacks into KPKG.partial and renames it into place: a dpkg -x that dies
    half way (a timeout: vmlinuz is in the .deb before the modules) leaves nothing that
    find_kernel() takes for an unpacked kernel, and the next setup unpacks again."""
    g = qemu.GUEST_KERNELS["6.12"]
    monkeypatch.setattr(qemu, "kernel_package", lambda guest="6.1": "linux-image-6.12.117+deb12-amd64")
    (tmp_path / g.debdir).mkdir()
    (tmp_path / g.debdir / "linux-image-6.12.117+deb12-amd64_6.12.117-1_amd64.deb").write_bytes(b"")
    calls = []

    def dpkg(cmd, timeout=900):
        calls.append(cmd)
        boot = os.path.join(cmd[-1], "boot")
        os.makedirs(boot, exist_ok=True)
        open(os.path.join(boot, "vmlinuz-6.12.117+deb12-amd64"), "wb").close()
        if len(calls) == 1:
            raise subprocess.TimeoutExpired(cmd, timeout)   # killed before the modules
        os.makedirs(os.path.join(cmd[-1], "lib", "modules"))
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(qemu, "_run", dpkg)
    with pytest.raises(subprocess.TimeoutExpired):
        qemu._fetch_guest(lambda s: None, str(tmp_path), "6.12")
    assert qemu.find_kernel(str(tmp_path), "6.12") is None and sorted(os.listdir(tmp_path)) == [g.debdir]
    qemu._fetch_guest(lambda s: None, str(tmp_path), "6.12")
    assert qemu.find_kernel(str(tmp_path), "6.12") is not None
    assert (tmp_path / g.unpack / "lib" / "modules").is_dir() and len(calls) == 2


@pytest.mark.skipif(qemu.find_kernel(guest="6.12") is None, reason="no 6.12 guest kernel (memtwin lab setup fetches it)")
def test_the_6_12_packages_modules_load_with_their_dependencies():
    k, mods, _ = qemu._kernel_and_modules(None, qemu.DEFAULT_WORKDIR, "6.12")
    assert os.path.basename(k).startswith("vmlinuz-6.12.") and mods is not None
    ext4 = [n for n, _, _ in qemu._module_files(mods, "ext4")]
    xfs = [n for n, _, _ in qemu._module_files(mods, "xfs")]
    # 6.12's modinfo: ext4 depends=jbd2,crc16,mbcache; xfs depends=libcrc32c (virtio_pci is built in)
    assert ext4[-1] == "ext4" and {"jbd2", "crc16", "mbcache", "virtio_blk"} <= set(ext4)
    assert ext4.index("jbd2") < ext4.index("ext4")
    assert xfs[-1] == "xfs" and xfs.index("libcrc32c") < xfs.index("xfs")


def test_lab_doctor_lists_the_6_12_guest(tmp_path):
    said = []
    qemu.doctor(said.append, str(tmp_path), str(tmp_path))
    line = [s for s in said if s.startswith("guest kernel 6.12")]
    assert line == [f"guest kernel 6.12 (profiles linux-6.12, linux-6.12-lru_gen): none in {tmp_path}/kpkg-6.12 "
                    "(memtwin lab setup downloads Debian's bookworm-security 6.12 package)"]
    boot = tmp_path / "kpkg-6.12" / "boot"
    boot.mkdir(parents=True)
    (boot / "vmlinuz-6.12.117+deb12-amd64").write_bytes(b"")
    said.clear()
    qemu.doctor(said.append, str(tmp_path), str(tmp_path))
    assert f"guest kernel 6.12 (profiles linux-6.12, linux-6.12-lru_gen): {boot}/vmlinuz-6.12.117+deb12-amd64" in said


def test_cpu_calibration_reads_the_guests_figure():
    out = "@@UNAME 6.1\n@@CALIB hot_read_ns_per_page 17800.0\n@@COLD 0\n"
    c = qemu.cpu_calibration(out)
    assert c["hot_read_ns_per_page"] == 17800.0
    assert c["cpu_slowdown"] == round(17800.0 / qemu.REF_HOT_READ_NS_PER_PAGE) == 45
    # faster than the reference machine: 1, never 0
    assert qemu.cpu_calibration("@@CALIB hot_read_ns_per_page 100.0\n")["cpu_slowdown"] == 1
    assert qemu.cpu_calibration("@@CALIB none memfd_create: Function not implemented\n") == {"unavailable": "memfd_create: Function not implemented"}
    assert "unavailable" in qemu.cpu_calibration("@@COLD 0\n")
    assert "unavailable" in qemu.cpu_calibration("@@CALIB hot_read_ns_per_page fast\n")


def test_wakeup_calibration_reads_the_guests_latencies():
    """memtwin_guest.c calibrate_wakeup()'s @@WAKE line: the sorted latencies in ns; `none WHY` when
    the guest could not measure them; nothing from a guest program that does not measure them."""
    w = qemu.wakeup_calibration("@@CALIB hot_read_ns_per_page 1.0\n@@WAKE 900 120 3000\n@@COLD 0\n")
    assert w["wakeup_latency_ns"] == [120, 900, 3000]
    assert qemu.wakeup_calibration("@@WAKE none one CPU\n") == {"wakeup_unavailable": "one CPU"}
    assert qemu.wakeup_calibration("@@COLD 0\n") == {}
    assert "wakeup_unavailable" in qemu.wakeup_calibration("@@WAKE 12 fast\n")
    assert "wakeup_unavailable" in qemu.wakeup_calibration("@@WAKE -5 7\n")
    # parse_output() files it with the CPU calibration (real.machine.cpu)
    _, facts = qemu.parse_output("@@CALIB hot_read_ns_per_page 7912.0\n@@WAKE 5 4\n@@DONE\n", {"tasks": []}, [], [], None)
    assert facts["cpu"]["cpu_slowdown"] == 20 and facts["cpu"]["wakeup_latency_ns"] == [4, 5]


def test_stall_calibration_reads_each_cpus_gaps():
    """memtwin_guest.c calibrate_stall_as()'s @@STALL lines (zswap20): per CPU the probe's length, its
    clock reads, the smallest gap counted and the gaps in ns; `none WHY`; nothing from an older guest
    program; a line with a non-number, a negative figure, a CPU twice or missing, or another probe
    length is unreadable (the recording says why instead of giving the engine a wrong rate)."""
    out = "@@WAKE 5 4\n@@STALL 0 2000000000 900000 100000 2700000 31000000\n@@STALL 1 2000000000 800000 100000\n@@COLD 0\n"
    s = qemu.stall_calibration(out)["vcpu_stall"]
    assert (s["probe_ns"], s["min_ns"]) == (2000000000, 100000)
    assert s["cpus"] == [{"reads": 900000, "gaps_ns": [2700000, 31000000]}, {"reads": 800000, "gaps_ns": []}]
    assert qemu.stall_calibration("@@STALL none a probe process failed\n") == {"vcpu_stall_unavailable": "a probe process failed"}
    assert qemu.stall_calibration("@@COLD 0\n") == {}
    for bad in ("@@STALL 0 2000000000 9 100000 12 fast\n", "@@STALL 0 2000000000 9 100000 -5\n",
                "@@STALL 0 2000000000 9 100000\n@@STALL 0 2000000000 9 100000\n", "@@STALL 1 2000000000 9 100000\n",
                "@@STALL 0 2000000000 9 100000\n@@STALL 1 1000000000 9 100000\n", "@@STALL 0 2000000000\n"):
        assert "vcpu_stall_unavailable" in qemu.stall_calibration(bad), bad
    assert qemu.stall_calibration("@@STALLPOST 0 2000000000 9 100000 300000\n", "STALLPOST")["vcpu_stall_post"]["cpus"][0]["gaps_ns"] == [300000]
    assert qemu.stall_calibration("@@STALL1 0 2000000000 9 100000 400000\n@@STALL 0 2000000000 9 100000\n", "STALL1")["vcpu_stall_alone"]["cpus"][0]["gaps_ns"] == [400000]
    # parse_output() files both with the CPU calibration (real.machine.cpu)
    _, facts = qemu.parse_output("@@CALIB hot_read_ns_per_page 7912.0\n" + out + "@@STALLPOST 0 2000000000 9 100000\n@@STALL1 0 2000000000 9 100000 5\n@@DONE\n", {"tasks": []}, [], [], None)
    assert facts["cpu"]["vcpu_stall"]["cpus"][0]["gaps_ns"] == [2700000, 31000000]
    assert facts["cpu"]["vcpu_stall_post"]["cpus"] == [{"reads": 9, "gaps_ns": []}]
    assert facts["cpu"]["vcpu_stall_alone"]["cpus"] == [{"reads": 9, "gaps_ns": [5]}]


def test_the_vcpu_stall_probe_is_off_by_default(tmp_path):
    """review15 L3: the guest's vCPU stall probes (~8 s a boot, every vCPU spinning) run only with
    `memtwin real --vcpu-stall-probe`: the flag is off by default, the op script the runner gives
    the guest has no STALLPROBE line then (one with it), every calibrate_stall_as() call in the
    guest program waits for that line, and a guest's output without @@STALL lines files no
    vcpu_stall key (real.machine.cpu)."""
    from memtwin.cli import _parser

    path = os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-global-stream.toml")
    assert _parser().parse_args(["real", path, "--on", "qemu"]).vcpu_stall_probe is False
    assert _parser().parse_args(["real", path, "--on", "qemu", "--vcpu-stall-probe"]).vcpu_stall_probe is True
    plan = memtwin.load(path).doc.plan(None, [])
    assert not any(l.startswith("STALLPROBE") for l in qemu.op_script(plan)[0].splitlines())
    assert not any(l.startswith("STALLPROBE") for l in qemu.op_script({**plan, "vcpu_stall_probe": False})[0].splitlines())
    assert "STALLPROBE 1" in qemu.op_script({**plan, "vcpu_stall_probe": True})[0].splitlines()
    src = open(os.path.join(ROOT, "python", "memtwin", "guest", "memtwin_guest.c")).read()
    main = src[src.index("int main("):]
    assert main.count("calibrate_stall_as(") == 3
    assert re.search(r'if \(stall_probe\) \{\s*calibrate_stall_as\("STALL", 0\);\s*calibrate_stall_as\("STALL1", 1\);\s*\}', main)
    assert 'if (stall_probe) calibrate_stall_as("STALLPOST", 0);' in main
    assert '!strcmp(f[0], "STALLPROBE")' in main
    _, facts = qemu.parse_output("@@CALIB hot_read_ns_per_page 7912.0\n@@WAKE 5 4\n@@DONE\n", {"tasks": []}, [], [], None)
    assert not [k for k in facts["cpu"] if k.startswith("vcpu_stall")], facts["cpu"]


def test_kswapd_cpu_is_the_difference_of_a_steps_snapshots():
    """memtwin_guest.c kswapd_cpu(): `#kswapd` holds how the CPU time was read and the kswapd threads'
    total so far in ns; a step's kswapd_cpu_s is its end's minus its start's."""
    a = {"kswapd": "schedstat 1000000000"}
    assert qemu.kswapd_cpu_s(a, {"kswapd": "schedstat 1250000000"}) == 0.25
    assert qemu.kswapd_cpu_s(a, {}) is None  # an older guest program, or no kswapd found
    assert qemu.kswapd_cpu_s(a, {"kswapd": "stat 1250000000"}) is None  # two clocks: no difference
    assert qemu.kswapd_cpu_s(a, {"kswapd": "schedstat"}) is None


def test_kthread_waits_are_the_schedstat_differences_of_a_steps_snapshots():
    """memtwin_guest.c kthread_waits() (wake11): `#kthwait` lines "COMM PID RUN_DELAY_NS PCOUNT" from
    /proc/PID/schedstat; a step's kswapd_run_delay_s/kswapd_runs are the kswapd threads' end minus
    start, kworker_* the CPU-bound kworkers' (paired by pid: one that appeared within the step counts
    from 0, one whose pid now names another thread too)."""
    a = {"kthwait": "kswapd0 44 1000000 10\nkworker/0:1 7 500 2\nkworker/1:0 9 100 1"}
    b = {"kthwait": "kswapd0 44 4000000 13\nkworker/0:1 7 2500 5\nkworker/1:2 30 700 4"}
    w = qemu.kthread_waits(a, b)
    assert w == {"kswapd_run_delay_s": 0.003, "kswapd_runs": 3, "kworker_run_delay_s": 2.7e-06, "kworker_runs": 7}
    # a reused pid with another name counts from 0
    assert qemu.kthread_waits({"kthwait": "kworker/0:1 44 10 1"}, {"kthwait": "kswapd0 44 30 2"}) == \
        {"kswapd_run_delay_s": 3e-08, "kswapd_runs": 2}
    assert qemu.kthread_waits(a, {}) == {}  # an older guest program
    assert qemu.kthread_waits(a, {"kthwait": "kswapd0 44 x 13"}) == {}  # unreadable: nothing, not a guess
    # the section reaches a step record through parse_output's section split
    sec = qemu._sections("#kswapd\nschedstat 5\n#kthwait\nkswapd0 44 7 1\n#zswap\n")
    assert sec["kthwait"] == "kswapd0 44 7 1" and sec["kswapd"] == "schedstat 5"


def test_split_calibration_references_are_the_engines(tmp_path):
    """REF_COPY_PAGE_NS and REF_SMALL_READ_NS_PER_CALL are the engine's copy_page and syscall +
    lookup, read back from its system time: `[machine] copy_slowdown = 2` adds one copy_page per
    page of a hot read; a 4 KiB read costs a syscall per page where a 128 KiB one costs 1/32 of
    one, the rest (lookup + copy_page) the same."""
    from memtwin import api

    s = tmp_path / "s.toml"
    base = ('[scenario]\nname = "s"\n[machine]\nram = "1G"\n{extra}[kernel]\nprofile = "linux-6.1"\n[devices.sda]\nread_bw = "100M"\n'
            '[files."/f"]\nsize = "16M"\n[tasks.t]\nops = [{{ op = "read", file = "/f", bufsize = "{bs}", step = "cold" }}, '
            '{{ op = "read", file = "/f", bufsize = "{bs}", step = "warm" }}, {{ op = "read", file = "/f", bufsize = "{bs}", step = "hot" }}]\n')

    def sys_per_page(bs, extra=""):
        s.write_text(base.format(extra=extra, bs=bs))
        return api.run(str(s)).steps.loc["hot"]["sys_s"] * 1e9 / 4096

    big, small = sys_per_page("128K"), sys_per_page("4K")
    copy = sys_per_page("128K", "copy_slowdown = 2\n") - big
    syscall = (small - big) * 32 / 31
    lookup = big - copy - syscall / 32
    assert copy == pytest.approx(qemu.REF_COPY_PAGE_NS, rel=0.01)
    assert syscall + lookup == pytest.approx(qemu.REF_SMALL_READ_NS_PER_CALL, rel=0.01)


def test_copy_calibration_reads_the_calib2_line():
    """copy_calibration(): code_slowdown from the 1-byte reads over syscall + lookup; copy_slowdown
    from what the hot read has left once its non-copy share is taken at code_slowdown; nothing
    from an older guest program without the line; an unreadable figure said so."""
    ref_rest = qemu.REF_HOT_READ_NS_PER_PAGE - qemu.REF_COPY_PAGE_NS
    small = 18 * qemu.REF_SMALL_READ_NS_PER_CALL
    hot = 18 * ref_rest + 51 * qemu.REF_COPY_PAGE_NS
    got = qemu.copy_calibration(f"x\n@@CALIB2 small_read_ns_per_call {small}\n", hot)
    assert (got["code_slowdown"], got["copy_slowdown"]) == (18, 51)
    assert qemu.copy_calibration("@@CALIB hot_read_ns_per_page 400\n", 400.0) == {}
    assert "copy_unavailable" in qemu.copy_calibration("@@CALIB2 small_read_ns_per_call x1\n", 400.0)


def test_cpu_calibration_reference_is_the_engines(tmp_path):
    """REF_HOT_READ_NS_PER_PAGE is what the engine charges a page of a hot 128 KiB read (system and
    user time; the third read, its pages already active as the guest's best passes find them), and
    `[machine] cpu_slowdown = K` makes it K times that."""
    from memtwin import api

    s = tmp_path / "s.toml"
    base = ('[scenario]\nname = "s"\n[machine]\nram = "1G"\n{extra}[kernel]\nprofile = "linux-6.1"\n[devices.sda]\nread_bw = "100M"\n'
            '[files."/f"]\nsize = "16M"\n[tasks.t]\nops = [{{ op = "read", file = "/f", bufsize = "128K", step = "cold" }}, '
            '{{ op = "read", file = "/f", bufsize = "128K", step = "warm" }}, {{ op = "read", file = "/f", bufsize = "128K", step = "hot" }}]\n')
    for k in (1, 45):
        s.write_text(base.format(extra=f"cpu_slowdown = {k}\n" if k > 1 else ""))
        m = api.run(str(s)).steps.loc["hot"]
        per_page = (m["sys_s"] + m["user_s"]) * 1e9 / 4096
        assert per_page == pytest.approx(k * qemu.REF_HOT_READ_NS_PER_PAGE, rel=0.01), k


def test_request_calibration_reads_the_calibio_line():
    """request_calibration() (iso23): the guest's CPU time per 128 KiB O_DIRECT read request
    (calibrate_request()) from @@CALIBIO, submit_io_slowdown its ratio to the engine's syscall +
    submit_io; nothing from an older guest program, the reason when it could not measure, refused
    figures when unreadable; cpu_calibration() carries it."""
    line = "@@CALIBIO direct_read_cpu_ns_per_request 2100000.0 direct_read_wall_ns_per_request 2900000.0 request_bytes 131072\n"
    got = qemu.request_calibration("x\n" + line)
    assert got["direct_read_cpu_ns_per_request"] == 2100000.0 and got["direct_read_wall_ns_per_request"] == 2900000.0
    assert got["submit_io_slowdown"] == round(2100000.0 / qemu.REF_DIRECT_READ_NS_PER_REQUEST) == 130
    assert "128 KiB O_DIRECT" in got["request_method"]
    assert qemu.request_calibration("@@CALIBIO direct_read_cpu_ns_per_request 100.0 direct_read_wall_ns_per_request 900.0 request_bytes 131072\n")["submit_io_slowdown"] == 1
    assert qemu.request_calibration("@@CALIBF hot_read_ns_per_page 1 small_read_ns_per_call 1 cold_read_ns_per_page 1\n") == {}
    assert qemu.request_calibration("@@CALIBIO none open O_DIRECT /s/.memtwin-calib: Invalid argument\n") == \
        {"request_unavailable": "open O_DIRECT /s/.memtwin-calib: Invalid argument"}
    for bad in ("direct_read_cpu_ns_per_request fast direct_read_wall_ns_per_request 1 request_bytes 1",
                "direct_read_cpu_ns_per_request 0 direct_read_wall_ns_per_request 1 request_bytes 1",
                "direct_read_cpu_ns_per_request nan direct_read_wall_ns_per_request 1 request_bytes 1",
                "direct_read_cpu_ns_per_request 1 request_bytes 1"):
        assert "request_unavailable" in qemu.request_calibration(f"@@CALIBIO {bad}\n"), bad
    assert qemu.cpu_calibration("@@CALIB hot_read_ns_per_page 7000.0\n" + line)["submit_io_slowdown"] == 130
    busy = qemu.request_calibration(line + "@@CALIBIOBUSY readers 16 direct_read_cpu_ns_per_request 390000.5 wall_s 1.2\n")
    assert (busy["busy_readers"], busy["busy_direct_read_cpu_ns_per_request"], busy["submit_io_slowdown"]) == (16, 390000.5, 130)
    assert "busy_readers" not in qemu.request_calibration(line + "@@CALIBIOBUSY none 3 of 16 readers reported, 0 failed\n")


def test_request_calibration_reference_is_the_engines(tmp_path):
    """REF_DIRECT_READ_NS_PER_REQUEST is the engine's syscall + submit_io, read back from its system
    time: `[machine] submit_io_slowdown = 2` adds one submit_io per request of a cold read, so a
    32 MiB file's cold read adds 128 more than a 16 MiB file's (128 KiB windows); a 4 KiB hot read
    costs a syscall per page where a 128 KiB one costs 1/32 of one."""
    from memtwin import api

    s = tmp_path / "s.toml"
    base = ('[scenario]\nname = "s"\n[machine]\nram = "1G"\n{extra}[kernel]\nprofile = "linux-6.1"\n[devices.sda]\nread_bw = "100M"\n'
            '[files."/f"]\nsize = "{size}"\n[tasks.t]\nops = [{{ op = "read", file = "/f", bufsize = "{bs}", step = "cold" }}, '
            '{{ op = "read", file = "/f", bufsize = "{bs}", step = "hot" }}]\n')

    def sys(step, size="16M", bs="128K", extra=""):
        s.write_text(base.format(extra=extra, size=size, bs=bs))
        return api.run(str(s)).steps.loc[step]["sys_s"] * 1e9

    extra = {sz: sys("cold", sz, extra="submit_io_slowdown = 2\n") - sys("cold", sz) for sz in ("16M", "32M")}
    submit_io = (extra["32M"] - extra["16M"]) / 128
    syscall = (sys("hot", bs="4K") - sys("hot")) / (4096 - 128)
    assert syscall + submit_io == pytest.approx(qemu.REF_DIRECT_READ_NS_PER_REQUEST, rel=0.01)


def test_the_reclaim_trace_is_off_by_default_and_set_up_around_the_guest_program():
    """--reclaim-trace (qemu.guest_reclaim_trace()): without it the guest's /init and op script have
    no trace; with it tracefs is set up (clock mono, the vmscan/sched/block events, the kswapd
    filters, the two kprobes) before the guest program and dumped after it, and the guest program
    measures the wake-up latency again after the tasks (WAKEPOST)."""
    path = os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-global-stream.toml")
    plan = memtwin.load(path).doc.plan("two-list", [])
    init = qemu.guest_init(plan, 128)
    # (the reclaim waits' histogram, guest_throttle(), is set up in every run: the ring buffer is not)
    assert "trace_clock" not in init and "tracing_on" not in init and "@RTRACE" not in init
    assert "WAKEPOST" not in qemu.op_script(plan)[0]
    traced = {**plan, "reclaim_trace": True}
    tinit = qemu.guest_init(traced, 128)
    on, off = qemu.guest_reclaim_trace()
    assert tinit == init.replace("/memtwin-guest /ops", on + "/memtwin-guest /ops").replace('echo "@@EXIT $?"\n', 'echo "@@EXIT $?"\n' + off)
    assert tinit.index("echo mono > /sys/kernel/tracing/trace_clock") < tinit.index("/memtwin-guest /ops") < tinit.index('echo "@@RTRACE_BEGIN"')
    for e in qemu.RTRACE_EVENTS:
        assert f"/sys/kernel/tracing/events/{e}/enable" in on
    assert "p:memtwin/direct try_to_free_pages free=@vm_zone_stat:s64" in on
    assert "prev_comm ~ \"kswapd*\"" in on
    # each fallback to another migratetype's pageblock (the watermark boost's cause, lrugen22), and
    # /proc/pagetypeinfo before and after the tasks
    assert "/sys/kernel/tracing/events/kmem/mm_page_alloc_extfrag/enable" in on
    assert "/proc/pagetypeinfo" in on and "/proc/pagetypeinfo" in off
    # the per-CPU lists' flushes into non-movable pageblocks only (free_pcppages_bulk(), 6.12;
    # pool22b): filtered, or the stream's movable frees would overrun the ring buffer
    assert "/sys/kernel/tracing/events/kmem/mm_page_pcpu_drain/enable" in on
    assert "echo 'migratetype != 1' > /sys/kernel/tracing/events/kmem/mm_page_pcpu_drain/filter" in on
    # pgdat_balanced()'s per-zone test and its answer (a return probe, "%return", 5.11+)
    assert "p:memtwin/wmok zone_watermark_ok_safe zone=%di:x64 mark=%dx:u64" in on
    assert "p:memtwin/wmok_ret zone_watermark_ok_safe%return ret=$retval:u8" in on
    # the per-CPU sets' flushes and decays with their count and high (pool22d): only in a 6.12
    # guest (the offsets are 6.12.117+deb12's), after the other probes, before tracing starts
    case = on.index('case "$(uname -r)" in 6.12.*)')
    assert on.index("p:memtwin/wmok_ret") < case < on.index("echo 1 > /sys/kernel/tracing/tracing_on")
    assert on.index("p:memtwin/flush free_pcppages_bulk count=%si:s32 pidx=%cx:s32 pcnt=+4(%dx):s32 high=+8(%dx):s32") > case
    assert on.index("p:memtwin/decay decay_pcp_high pcnt=+4(%si):s32 high=+8(%si):s32") > case
    assert on.index("\n;;\nesac\n", case) > on.index("p:memtwin/decay")
    # shrink_active_list()'s deactivations only, and the periodic memcg stats flush only (the
    # event switched off where the kernel refuses the filter: unfiltered it would fill the buffer)
    assert "echo 'nr_deactivated > 0' > /sys/kernel/tracing/events/vmscan/mm_vmscan_lru_shrink_active/filter" in on
    wq = "/sys/kernel/tracing/events/workqueue/workqueue_execute_start"
    assert (f"echo 'function.function == flush_memcg_stats_dwork' > {wq}/filter 2>/dev/null || "
            f'{{ echo 0 > {wq}/enable; echo "@@RTRACE_NOFILTER workqueue/workqueue_execute_start"; }}') in on
    assert on.index(f"{wq}/enable") < on.index(f"{wq}/filter") < on.index("echo 1 > /sys/kernel/tracing/tracing_on")
    # the flush's own delay (gap22): its work queued (from its timer) and every delayed work's
    # timer started and expired (a deferrable timer on an idle CPU expires late), each filtered
    for e, fn in (("workqueue/workqueue_queue_work", "flush_memcg_stats_dwork"), ("timer/timer_start", "delayed_work_timer_fn"),
                  ("timer/timer_expire_entry", "delayed_work_timer_fn")):
        ev = f"/sys/kernel/tracing/events/{e}"
        assert f"echo 'function.function == {fn}' > {ev}/filter 2>/dev/null || " in on
        assert on.index(f"{ev}/enable") < on.index(f"{ev}/filter") < on.index("echo 1 > /sys/kernel/tracing/tracing_on")
    assert "WAKEPOST 1" in qemu.op_script(traced)[0].splitlines()


CONSOLE = """@@WAKE 300 100 200
@@RTRACE_ZONEINFO_BEGIN
Node 0, zone    DMA32
  pages free     103473
        min      656
        low      820
        high     984
@@RTRACE_ZONEINFO_END
@@RTRACE_PAGETYPEINFO_BEGIN
Node    0, zone    DMA32, type    Unmovable      1      1      1      0      0      1      0      1      1      1      0
Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate
Node 0, zone    DMA32           19          227            2            0            0
@@RTRACE_PAGETYPEINFO_END
@@STEP 0 0
@@A
#cgdir
/sys/fs/cgroup/memtwin/A
#t
10.5
#vmstat
pageoutrun 3
pgscan_direct 10
nr_dirty 4
@@B
#cgdir
/sys/fs/cgroup/memtwin/A
#t
12.25
#vmstat
pageoutrun 5
pgscan_direct 10
nr_dirty 9
@@ENDSTEP
@@WAKEPOST 50 40
@@RTRACE_STATS cpu0 entries: 12 overrun: 0 dropped events: 0
@@RTRACE_NOPROBE balance_pgdat
@@RTRACE_KSYM t free_pcppages_bulk
@@RTRACE_BEGIN
   memtwin-guest-132     [001] .....    11.000001: mm_vmscan_wakeup_kswapd: nid=0 order=0 gfp_flags=none
@@RTRACE_END
@@DONE
"""


def test_the_reclaim_trace_text_has_step_windows_counters_and_the_raw_lines():
    """qemu.reclaim_trace_text(): each step's window on the trace's clock with the reclaim counters
    it moved (only those, end minus start), the zones, the wake-up samples, what was lost, a kprobe
    the kernel could not place, then the raw ftrace lines; a console without the trace is an error
    that says so."""
    plan = {"tasks": [{"name": "t"}], "name": "s"}
    text = qemu.reclaim_trace_text(CONSOLE, ["stream"], plan)
    lines = text.splitlines()
    assert "# step 'stream' task t t 10.500000 .. 12.250000: pageoutrun=2" in lines  # pgscan_direct did not move, nr_dirty is no reclaim counter
    assert any(x.startswith("# zoneinfo before the tasks: Node 0, zone DMA32 | pages free 103473 | min 656") for x in lines)
    assert ("# pagetypeinfo before the tasks: Node 0, zone DMA32, type Unmovable 1 1 1 0 0 1 0 1 1 1 0 | Number of blocks type "
            "Unmovable Movable Reclaimable HighAtomic Isolate | Node 0, zone DMA32 19 227 2 0 0") in lines
    assert any(x.startswith("# wake WAKE ns (before the tasks") and x.endswith(": 300 100 200") for x in lines)
    assert any(x.startswith("# wake WAKEPOST ns") and x.endswith(": 50 40") for x in lines)
    assert "# lost: cpu0 entries: 12 overrun: 0 dropped events: 0" in lines
    assert "# no kprobe at balance_pgdat (inlined in this kernel)" in lines
    assert "# kallsyms: t free_pcppages_bulk" in lines
    assert lines[-1].endswith("mm_vmscan_wakeup_kswapd: nid=0 order=0 gfp_flags=none")
    with pytest.raises(RealError, match="no trace"):
        qemu.reclaim_trace_text(CONSOLE.replace("@@RTRACE_BEGIN", "@@X"), ["stream"], plan)


@pytest.mark.parametrize("args,what", [(["--on", "host", "--reclaim-trace", "{d}"], "QEMU guest only"),
                                       (["--on", "host", "--vcpu-stall-probe"], "QEMU guest only"),
                                       (["--on", "qemu", "--reclaim-trace", "{d}/nodir"], "not a writable directory")])
def test_reclaim_trace_bad_arguments_are_refused_before_running(tmp_path, capsys, args, what):
    path = os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-global-stream.toml")
    code, _, err = cli_run(capsys, "real", path, *[a.format(d=tmp_path) for a in args])
    assert code != 0 and what in err and "fix:" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args,what", [(["--on", "host", "--qemu-nice", "-15"], "only the QEMU process"),
                                       (["--on", "qemu", "--qemu-nice", "-21"], "-20..19"),
                                       (["--on", "qemu", "--qemu-nice", "20"], "-20..19")])
def test_qemu_nice_bad_arguments_are_refused_before_running(tmp_path, capsys, args, what):
    """memtwin real --qemu-nice (lrugen22): refused on the host and out of range, before anything runs."""
    path = os.path.join(ROOT, "scenarios", "validation", "qemu612-lrugen-parent-stream.toml")
    out = tmp_path / "out.json"
    code, _, err = cli_run(capsys, "real", path, *args, "--json", str(out))
    assert code != 0 and what in err and "fix:" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_qemu_nice_sets_the_process_and_its_own_autogroup():
    """qemu._qemu_priority() (memtwin real --qemu-nice), run as QEMU's preexec_fn in a new session:
    the child's nice value, inherited by what it execs, and, with sched_autogroup on, its session's
    autogroup's nice value; the parent's are untouched. 5: no privilege needed."""
    before = os.getpriority(os.PRIO_PROCESS, 0)
    r = subprocess.run(["sh", "-c", "cut -d' ' -f19 /proc/self/stat; cat /proc/self/autogroup 2>/dev/null || true"],
                       capture_output=True, text=True, timeout=30, start_new_session=True, preexec_fn=lambda: qemu._qemu_priority(5))
    lines = r.stdout.split("\n")
    assert r.returncode == 0 and int(lines[0]) == 5, r
    if sched_autogroup_enabled() == 1:
        assert lines[1].endswith(" nice 5"), lines
    assert os.getpriority(os.PRIO_PROCESS, 0) == before


def test_step_windows_are_on_the_guests_clock_from_the_first_step():
    """qemu.step_windows(): each step's [start, end] in s from the first step's start (the runner's
    time between steps shows as the gap between one window's end and the next one's start)."""
    recs = [{"name": "a", "_start": 40.25, "_end": 40.5}, {"name": "b", "_start": 41.0, "_end": 41.125},
            {"name": "c", "_start": 40.0, "_end": 41.5}]
    qemu.step_windows(recs)
    assert [r["window_s"] for r in recs] == [[0.25, 0.5], [1.0, 1.125], [0.0, 1.5]]
    assert not any(k.startswith("_") for r in recs for k in r)
    qemu.step_windows([])  # no step: nothing to do


def test_a_traced_run_is_marked_and_its_traces_are_written_only_when_every_variant_ran(tmp_path, capsys, monkeypatch):
    """review6 M5/M6: memtwin real --reclaim-trace marks each traced variant's result
    (real.reclaim_trace) and writes the trace files after every variant has run, so a variant that
    fails leaves neither a JSON nor the trace of an earlier variant; the traced run's default
    timeout has RTRACE_TIMEOUT_MARGIN_S more."""
    path = os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-global-stream.toml")
    calls, timeouts = [], []

    def fake_run(plan, kernel=None, workdir=None, timeout=None, reclaim_trace=False, nice=None):
        calls.append(plan["name"])
        assert reclaim_trace
        if len(calls) == 2:
            raise RealError("the second variant's guest failed (test)")
        return {"real": {"on": "qemu", "kernel": "6.1.0-test", "date": "2026-11-29T12:00:00Z", "timing_comparable": False, "notes": []},
                "steps": [{"name": "stream", "metrics": {"read_bytes": 1.0}, "pagecache": 0}], "reclaim_trace": "@@RTRACE lines\n"}

    monkeypatch.setattr(qemu, "run_qemu", fake_run)
    out = tmp_path / "out.json"
    code, _, err = cli_run(capsys, "real", path, "--on", "qemu", "--variant", "all", "--reclaim-trace", str(tmp_path), "--json", str(out))
    assert code != 0 and "second variant" in err and "Traceback" not in err
    assert len(calls) == 2 and list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())

    res = []

    def fake_ok(plan, kernel=None, workdir=None, timeout=None, reclaim_trace=False, nice=None):
        r = {"real": {"on": "qemu", "kernel": "6.1.0-test", "date": "2026-11-29T12:00:00Z", "timing_comparable": False, "notes": []},
             "steps": [{"name": "stream", "metrics": {"read_bytes": 1.0}, "pagecache": 0}], "reclaim_trace": "@@RTRACE lines\n"}
        res.append(r)
        return r

    monkeypatch.setattr(qemu, "run_qemu", fake_ok)
    code, _, err = cli_run(capsys, "real", path, "--on", "qemu", "--variant", "all", "--reclaim-trace", str(tmp_path), "--json", str(out))
    assert code == 0, err
    doc = json.loads(out.read_text())
    marks = [v["real"]["reclaim_trace"] for v in doc["variants"].values()]
    assert len(marks) == 2 and all(m["buffer_kb_per_cpu"] == qemu.RTRACE_BUF_KB for m in marks)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([m["file"] for m in marks] + ["out.json"])
    plan = {"files": [], "tasks": []}
    assert qemu.RTRACE_TIMEOUT_MARGIN_S > 0 and qemu.default_timeout(plan) == 120


def test_validate_refuses_a_recording_taken_with_the_reclaim_trace(tmp_path):
    """review6 M5: a recording marked real.reclaim_trace is a measurement (the tracing changes the
    guest), not a validation recording: validate --recorded says so and how to fix it."""
    from memtwin import validate
    from memtwin._memtwin import ScenarioError

    src = os.path.join(ROOT, "scenarios", "validation")
    (tmp_path / "real").mkdir()
    text = open(os.path.join(src, "host-reread-tight.toml")).read()
    (tmp_path / "s.toml").write_text(text)
    doc = json.load(open(os.path.join(src, "real", "host-reread-tight.json")))
    v = next(iter(doc["variants"]))
    doc["variants"][v]["real"]["reclaim_trace"] = {"file": "x.trace", "buffer_kb_per_cpu": 1024}
    (tmp_path / "real" / "host-reread-tight.json").write_text(json.dumps(doc))
    with pytest.raises(ScenarioError) as e:
        validate.validate_file(str(tmp_path / "s.toml"), None, True, out=lambda *_: None)
    assert "--reclaim-trace" in str(e.value) and "re-record them without" in str(e.value)


def test_file_calibration_reads_the_calibf_line():
    """file_calibration(): the guest's hot, 1-byte and cold reads of a regular file on the
    scenario's disk (calibrate_file()), parsed from @@CALIBF; nothing from an older guest program
    without the line; the guest's reason when it could not measure; unreadable figures said so."""
    got = qemu.file_calibration("x\n@@CALIBF hot_read_ns_per_page 9579.7 small_read_ns_per_call 2669.6 cold_read_ns_per_page 20355.0\n")
    assert (got["file_hot_read_ns_per_page"], got["file_small_read_ns_per_call"], got["cold_read_ns_per_page"]) == (9579.7, 2669.6, 20355.0)
    assert qemu.file_calibration("@@CALIB hot_read_ns_per_page 400\n") == {}
    assert qemu.file_calibration("@@CALIBF none create /s/.memtwin-calib: No space left on device\n") == \
        {"file_unavailable": "create /s/.memtwin-calib: No space left on device"}
    for bad in ("hot_read_ns_per_page x small_read_ns_per_call 1 cold_read_ns_per_page 1",
                "hot_read_ns_per_page 1 small_read_ns_per_call 1", "hot_read_ns_per_page 0 small_read_ns_per_call 1 cold_read_ns_per_page 1"):
        assert "file_unavailable" in qemu.file_calibration(f"@@CALIBF {bad}\n"), bad
    # the whole facts: cpu_calibration() carries them beside the memfd's
    out = ("@@CALIB hot_read_ns_per_page 18790.5\n@@CALIB2 small_read_ns_per_call 2593.4\n"
           "@@CALIBF hot_read_ns_per_page 9579.7 small_read_ns_per_call 2669.6 cold_read_ns_per_page 20355.0\n")
    cpu = qemu.cpu_calibration(out)
    assert (cpu["code_slowdown"], cpu["copy_slowdown"], cpu["file_hot_read_ns_per_page"]) == (10, 58, 9579.7)


def test_a_real_run_refuses_step_gaps(tmp_path):
    """step_gaps is the engine's replay of a recorded runner's time between steps: the host and
    QEMU runners refuse a plan that has it (a real run has its own), before anything is made."""
    from memtwin import api
    from memtwin.real import RealError, refuse_before_running

    s = tmp_path / "g.toml"
    s.write_text('[scenario]\nname = "g"\n[machine]\nram = "512M"\n[devices.sda]\nread_bw = "100M"\n[files."/f"]\nsize = "1M"\n'
                 '[tasks.t]\nstep_gaps = ["500ms"]\nops = [{ op = "read", file = "/f", step = "a" }, { op = "read", file = "/f", step = "b" }]\n')
    plan = api.load(str(s)).doc.plan(None, [])
    assert plan["tasks"][0]["step_gaps_ns"] == [500_000_000]
    for check in (refuse_before_running, qemu.check_plan):
        with pytest.raises(RealError, match=r"\[tasks.t\]: step_gaps replays a real runner's time between steps"):
            check(plan)


def test_file_calibration_refuses_a_stalled_or_infinite_figure():
    """A @@CALIBF line whose 1-byte read took longer than a page of its hot read (the host stalled the
    vCPU in one of them), or with a figure that is not finite, is file_unavailable, not factors;
    split_factors() refuses such figures instead of an OverflowError."""
    got = qemu.file_calibration("@@CALIBF hot_read_ns_per_page 7700.0 small_read_ns_per_call 10429.0 cold_read_ns_per_page 20000.0\n")
    assert "host stall" in got["file_unavailable"], got
    got = qemu.file_calibration("@@CALIBF hot_read_ns_per_page inf small_read_ns_per_call 1.0 cold_read_ns_per_page 2.0\n")
    assert "unreadable" in got["file_unavailable"], got
    for small, hot in ((10429.0, 7700.0), (float("inf"), float("inf")), (1.0, float("nan")), (0.0, 5.0)):
        with pytest.raises(ValueError):
            qemu.split_factors(small, hot)
    assert "copy_unavailable" in qemu.copy_calibration("@@CALIB2 small_read_ns_per_call inf\n", 400.0)


# ---------------------------------------------------------------- the reclaim waits (issue 23)

# The mm_vmscan_throttled histogram as 6.1's hist trigger prints it (kernel/trace/trace_events_hist.c
# hist_trigger_entry_print(): "{ KEY: %10llu } hitcount: %10llu  VAL: %10llu")
HIST = """# event histogram
#
# trigger info: hist:keys=reason:vals=hitcount,usec_delayed:sort=hitcount:size=2048 [active]
#

{ reason:          8 } hitcount:          3  usec_delayed:      11000
{ reason:          1 } hitcount:         17  usec_delayed:    1650000

Totals:
    Hits: 20
    Entries: 2
    Dropped: 0
"""


def test_the_reclaim_waits_histogram_is_set_before_the_tasks_and_removed_after():
    """guest_throttle(): every guest run counts vmscan:mm_vmscan_throttled by reason in a hist
    trigger set before the guest program and removed after it; the op script names the histogram
    (THROTTLE), which the guest program dumps with every snapshot (#throttled) and, with every end
    snapshot, each zone's node_unreclaimable (#zoneinfo)."""
    path = os.path.join(ROOT, "scenarios", "validation", "qemu61-lrugen-global-stream.toml")
    plan = memtwin.load(path).doc.plan("two-list", [])
    init = qemu.guest_init(plan, 128)
    on, off = qemu.guest_throttle()
    ev = "/sys/kernel/tracing/events/vmscan/mm_vmscan_throttled"
    assert f"echo 'hist:keys=reason:vals=hitcount,usec_delayed' > {ev}/trigger" in on
    assert f"echo '!hist:keys=reason:vals=hitcount,usec_delayed' > {ev}/trigger" in off
    assert init.index(on) < init.index("/memtwin-guest /ops") < init.index('echo "@@EXIT $?"') < init.index(off)
    # a kernel without the event (before 5.16) or hist triggers says so and runs on
    assert '"@@THROTTLE off the guest kernel has no' in on and "(CONFIG_HIST_TRIGGERS)" in on and "fail" not in on
    assert f"THROTTLE {ev}/hist" in qemu.op_script(plan)[0].splitlines()
    with open(qemu.GUEST_SRC) as f:
        src = f.read()
    snap = src[src.index("static void snap_of("):src.index("static void snap(")]
    assert 'if (throttle_hist) dump("throttled", throttle_hist);' in snap
    full = snap[snap.index("if (full) {"):]
    assert "if (throttle_hist) zoneinfo_unreclaimable();" in full
    assert '" node_unreclaimable: %d"' in src
    assert qemu._SECTION.match("#throttled") and qemu._SECTION.match("#zoneinfo")
    # the guest disk's scheduler, blk-wbt latency target and virtio_blk queues, recorded as facts
    for fact in ("@@SCHED $(cat /sys/block/vda/queue/scheduler", "@@WBT $(cat /sys/block/vda/queue/wbt_lat_usec",
                 "@@VIRTIO queue_depth $(cat /sys/module/virtio_blk/parameters/queue_depth"):
        assert fact in init, fact


def test_reclaim_waits_and_node_unreclaimable_become_metrics():
    """A step's vmscan.throttled.<reason> is its end's histogram count less its start's, every
    reason present (0 without an entry); `reason` is 1U << enum vmscan_throttle_state (6.1
    include/trace/events/vmscan.h); node.N.unreclaimable is zoneinfo's flag at the step's end."""
    a = {"throttled": HIST.replace("17  usec_delayed:    1650000", " 5  usec_delayed:     500000")}
    b = {"throttled": HIST + "{ reason:          4 } hitcount:          2  usec_delayed:       8000\n",
         "zoneinfo": "0 0\n0 0\n1 1\n1 1\n"}
    m, us = qemu.wait_metrics(a, b)
    assert m == {"vmscan.throttled.writeback": 12, "vmscan.throttled.isolated": 0, "vmscan.throttled.noprogress": 2,
                 "vmscan.throttled.congested": 0, "node.0.unreclaimable": 0, "node.1.unreclaimable": 1}
    assert us == {"writeback": 1150000, "isolated": 0, "noprogress": 8000, "congested": 0}
    assert set(qemu.THROTTLE_METRICS) == {k for k in m if k.startswith("vmscan.")}
    # no histogram (a kernel before 5.16, or the guest's "!missing"): no wait metrics, no µs
    assert qemu.wait_metrics({"throttled": "!missing No such file or directory"}, {"throttled": HIST}) == ({}, None)
    assert qemu.wait_metrics({}, {"zoneinfo": "0 1\n"}) == ({"node.0.unreclaimable": 1}, None)
    with pytest.raises(RealError, match="reason 3"):
        qemu.throttle_counts("{ reason:          3 } hitcount:          1  usec_delayed:  1\n")



def test_recorded_reclaim_wait_runs_have_the_histogram_and_the_guests_queue():
    """The qemu61-throttle-* recordings: the histogram was on, every step has the four wait
    counts and node 0's flag, and the guest's disk facts (its scheduler: none, two hardware
    queues) that the scenarios' `scheduler = "none"` follows."""
    import glob
    files = sorted(glob.glob(os.path.join(ROOT, "scenarios", "validation*", "real", "qemu61-throttle-*.json")))
    assert files, "no qemu61-throttle-* recording"
    for p in files:
        with open(p) as f:
            v = json.load(f)["variants"]["default"]
        real = v["real"]["machine"]
        assert real["throttle_hist"].startswith("on hist:keys=reason:vals=hitcount,usec_delayed"), p
        assert real["scheduler"].startswith("[none]") and real["virtio_blk"]["hw_queues"] == 2, p
        for s in v["steps"]:
            assert set(qemu.THROTTLE_METRICS) | {"node.0.unreclaimable"} <= set(s["metrics"]), (p, s["name"])
            assert set(s["throttled_us"]) == set(qemu.THROTTLE_REASONS.values()), (p, s["name"])


# ---------------------------------------------------------------- the runner's own memory (guest9)

def _native_guest(tmp_path, extra: str = ""):
    """The guest program run on this machine (not in a guest) on a hand-written op script over
    plain directories: a task reading a 1M file with 128K reads, then sleeping, and two tasks that
    only sleep. Returns the console text and, per task, its B snapshot sections of each step."""
    if shutil.which("gcc") is None or not qemu._static_libc():
        pytest.skip("gcc -static is unavailable")
    prog = qemu.guest_program(str(tmp_path / "work"))
    top = tmp_path / "cg"
    (top / "t").mkdir(parents=True)
    for f in ("cgroup.procs", "memory.current"):
        (top / "t" / f).write_text("0\n")
    data = tmp_path / "f"
    lines = ["V 2", f"TOP {qemu._q(str(top))}", "SNAP memory.current", f"MKCG {qemu._q(str(top / 't'))} 0",
             f"FILE {qemu._q(str(data))} 1048576 420 0", f"TRACK {qemu._q(str(data))}", "FOLIOS 0"] + extra.split("\n")
    lines += [f"TASK 0 {qemu._q(str(top / 't'))} 0 0 0", f"O 0 read {qemu._q(str(data))} 0 -1 131072 seq 0 0 0",
              "O 1 sleep 300000000"]
    for t in (1, 2):
        lines += [f"TASK {t} {qemu._q(str(top / 't'))} 0 0 {t}", f"O {t + 1} sleep 300000000"]
    (tmp_path / "ops").write_text("\n".join(x for x in lines if x) + "\n")
    r = subprocess.run([prog, str(tmp_path / "ops")], capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    steps = {}
    for m in re.finditer(r"^@@STEP (\d+) (\d+)\n(.*?)^@@ENDSTEP$", r.stdout, re.M | re.S):
        a_txt, _, b_txt = m.group(3).partition("\n@@B\n")
        assert "@@A\n" in a_txt and "#meminfo" in b_txt, m.group(0)[:400]  # the record is whole
        steps[(int(m.group(1)), int(m.group(2)))] = qemu._sections(b_txt)
    return r.stdout, steps


def test_guest_tasks_touch_little_memory_of_their_own(tmp_path):
    """memtwin_guest.c run_task(): a task touches its buffers before it joins its memcg, so they are
    memory the guest has and the engine's does not (boot_used is MemFree before the tasks fork).
    They were an 8 MiB output and a 1 MiB read buffer, 9.4 MiB of AnonPages a task (84 MiB for
    qemu61-throttle-isolated's 9 tasks); now the output buffer is sized from a snapshot (size_obuf())
    and the read buffer is the task's largest read op's bufsize. A task's resident set at its
    step's end (/proc/self/stat rss, which also counts the parent's pages it shares) was over 9 MiB."""
    out, steps = _native_guest(tmp_path)
    assert set(steps) == {(0, 0), (0, 1), (1, 2), (2, 3)}
    for key, sec in steps.items():
        rss_pages = int(sec["stat"].rsplit(")", 1)[1].split()[21])
        assert rss_pages * 4096 < 4 << 20, (key, rss_pages)
    rm = qemu.runner_memory(out)
    assert rm["tasks_reporting"] == 3 and rm["grown_bytes"] == 0
    # the guest's free memory before the tasks fork and once all three are set up, before any op
    # (so before any step's record), node by node
    before, setup = qemu.node_memory(out), qemu.node_memory(out, "SETUPMEM")
    assert set(before) == set(setup) and "MemFree" in setup["0"] and "@@SETUPREADY 3 3\n" in out
    assert out.index("@@NODEMEM") < out.index("@@SETUPMEM") < out.index("@@STEP")
    assert rm["snapshot_bytes"] < rm["obuf_bytes"] <= 1 << 20 and rm["peak_bytes"] <= rm["obuf_bytes"]
    assert rm["rbuf_bytes"] == 131072 + 4096 + 4096  # the reader's 128K, a page for the others


def test_a_step_that_outgrows_the_output_buffer_stays_whole_and_is_reported(tmp_path):
    """The output buffer grows (mremap) when a step's record outgrows it: the step is still written
    with one write() (whole, not cut by another task's), and the growth, charged to the task's
    memcg, is reported (@@TASKMEM grown, a note in the recording)."""
    out, steps = _native_guest(tmp_path, "OBUF 4096")
    assert set(steps) == {(0, 0), (0, 1), (1, 2), (2, 3)}
    rm = qemu.runner_memory(out)
    assert rm["obuf_bytes"] == 4096 and rm["grown_bytes"] > 0 and rm["peak_bytes"] > 4096
    notes = qemu._qemu_notes({"tasks": [], "policies": {}, "cgroup": "v2"}, {"runner_memory": rm, "knobs_set": {}})
    assert any("output buffers grew" in n for n in notes)


def test_runner_memory_is_none_for_a_recording_before_the_runner_reported_it():
    assert qemu.runner_memory("@@UNAME 6.1.0\n@@DONE\n") is None
    out = "@@OBUF snapshot 30000 buffer 94208\n@@TASKMEM 0 obuf 94208 peak 61000 grown 0 rbuf 131072\n"
    assert qemu.runner_memory(out) == {"obuf_bytes": 94208, "snapshot_bytes": 30000, "tasks_reporting": 1,
                                       "peak_bytes": 61000, "grown_bytes": 0, "rbuf_bytes": 131072}


def test_a_set_up_that_did_not_complete_drops_the_after_setup_memory():
    """review9 L1: the parent takes SETUPMEM when every task is ready, or when a task died in its
    set-up (it stops waiting then), or after 60 s; only the first is the set-up guest's memory.
    setup_complete() reads @@SETUPREADY READY NTASKS; recordings from before the line count as
    complete."""
    assert qemu.setup_complete("@@SETUPREADY 3 3\n")
    assert not qemu.setup_complete("x\n@@SETUPREADY 1 2\ny\n")
    assert qemu.setup_complete("no such line\n")


def test_autogroup_nice_reads_what_the_kernel_shows():
    """review12 L3: qemu_nice.autogroup_nice is what /proc/PID/autogroup shows for the started
    process (sched(7)), not the value asked for: a child in its own session whose autogroup was set
    to nice 7 (raising a nice value needs no privilege) reads back 7; without sched_autogroup, None."""
    import subprocess as sp
    from memtwin import qemu as q
    if sched_autogroup_enabled() != 1:
        assert q._autogroup_nice(os.getpid()) is None
        return

    def pre():
        with open("/proc/self/autogroup", "w") as f:
            f.write("7")
    p = sp.Popen(["sleep", "5"], start_new_session=True, preexec_fn=pre)
    try:
        with open(f"/proc/{p.pid}/autogroup") as f:
            shown = f.read()
        assert shown.split()[-1] == "7", shown
        assert q._autogroup_nice(p.pid) == 7
    finally:
        p.kill()
        p.wait(timeout=10)
    assert q._autogroup_nice(p.pid) is None  # gone: unreadable, not a guess


def test_the_boots_pagetypeinfo_is_a_machine_fact(tmp_path):
    # issue 22 (boost22): the boot's /proc/pagetypeinfo, printed by the init script before the disk
    # is mounted and the tasks set up, in every run (not only under --reclaim-trace): the free pages
    # of the Unmovable and Reclaimable pageblocks a movable allocation falls back into
    # (__rmqueue_fallback(), boost_watermark()); the figures of traced boot x612 (1,653 in DMA32)
    init = qemu.guest_init(_scn(tmp_path).doc.plan(None, []), 128)
    assert 'echo "@@PAGETYPEINFO_BEGIN"; grep -E "^Node|^Number of blocks" /proc/pagetypeinfo' in init
    assert init.index("@@PAGETYPEINFO_BEGIN") < init.index("/memtwin-guest /ops")
    out = ("@@UNAME 6.12.0\n@@PAGETYPEINFO_BEGIN\n"
           "Node    0, zone      DMA, type    Unmovable      0      0      0      0      0      1      1      1      0      0      0 \n"
           "Node    0, zone    DMA32, type    Unmovable      1      1      1      0      0      1      0      1      1      1      0 \n"
           "Node    0, zone    DMA32, type      Movable      1      0      1      1      0      1      0      1      0      0    100 \n"
           "Node    0, zone    DMA32, type  Reclaimable      0      1      1      1      0      0      1      1      0      1      0 \n"
           "Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate \n"
           "Node 0, zone      DMA            1            7            0            0            0 \n"
           "Node 0, zone    DMA32           19          227            2            0            0 \n"
           "@@PAGETYPEINFO_END\n@@DONE\n")
    _, facts = qemu.parse_output(out, {"tasks": []}, [], [], None)
    pt = facts["pagetypeinfo"]
    assert pt["0/DMA32"]["nonmovable_free_pages"] == 1653 and pt["0/DMA"]["nonmovable_free_pages"] == 224
    assert pt["0/DMA32"]["blocks"] == {"Unmovable": 19, "Movable": 227, "Reclaimable": 2, "HighAtomic": 0, "Isolate": 0}
    assert pt["0/DMA32"]["free"]["Movable"][10] == 100
    # a guest that printed none (an older runner's output): no fact
    _, facts = qemu.parse_output("@@UNAME 6.1.0\n@@DONE\n", {"tasks": []}, [], [], None)
    assert facts["pagetypeinfo"] == {}



# ---------------------------------------------------------------- the read path by component (xfs21b)
def test_readpath_calibration_reads_the_calibrp_line():
    """readpath_calibration() (xfs21b): calibrate_readpath()'s @@CALIBRP line as rp_* facts, thp_faults 0
    allowed (no huge page given), every other figure above 0; nothing from an older guest program; the guest's
    reason when it could not measure; cpu_calibration() carries it."""
    line = ("@@CALIBRP cold_read_cpu_ns_per_page 18769.2 cold_read_wall_ns_per_page 19216.5 hot_read_cpu_ns_per_page 9748.9 "
            "drop_cpu_ns_per_page 21.9 cold_allocs 80 pages 8192 anon_fault_cpu_ns_per_page 12978.4 "
            "thp_fault_cpu_ns_per_page 47.3 thp_faults 0\n")
    got = qemu.readpath_calibration("x\n" + line)
    assert (got["rp_cold_read_cpu_ns_per_page"], got["rp_hot_read_cpu_ns_per_page"], got["rp_cold_allocs"], got["rp_thp_faults"]) == \
        (18769.2, 9748.9, 80, 0)
    assert isinstance(got["rp_pages"], int) and "rp_unavailable" not in got
    assert qemu.readpath_calibration("@@CALIBF hot_read_ns_per_page 1 small_read_ns_per_call 1 cold_read_ns_per_page 1\n") == {}
    assert qemu.readpath_calibration("@@CALIBRP none pread /s/.memtwin-calib-rp: EIO\n") == {"rp_unavailable": "pread /s/.memtwin-calib-rp: EIO"}
    for bad in (line.replace("cold_allocs 80", "cold_allocs 0"), line.replace("thp_faults 0", "thp_faults -1"),
                line.replace(" thp_faults 0", ""), line.replace("9748.9", "inf")):
        assert "rp_unavailable" in qemu.readpath_calibration(bad), bad
    cpu = qemu.cpu_calibration("@@CALIB hot_read_ns_per_page 18790.5\n" + line)
    assert cpu["rp_drop_cpu_ns_per_page"] == 21.9


def test_readpath_probe_is_opt_in(monkeypatch):
    """xfs21b: the guest program runs calibrate_readpath() only when the op script has a READPATH line, and
    op_script() writes it only under MEMTWIN_READPATH_PROBE=1, so a validation recording's guest does nothing
    more before its tasks; the guest program parses the line."""
    plan = memtwin.load(os.path.join(os.path.dirname(memtwin.__file__), "scenarios", "validation-pending",
                                     "qemu61-xfs-seq-tight-256m-ra8192.toml")).doc.plan(None, [])
    monkeypatch.delenv("MEMTWIN_READPATH_PROBE", raising=False)
    assert "READPATH" not in qemu.op_script(plan)[0].split()
    monkeypatch.setenv("MEMTWIN_READPATH_PROBE", "1")
    assert "READPATH 1" in qemu.op_script(plan)[0].splitlines()
    with open(qemu.GUEST_SRC) as f:
        src = f.read()
    assert 'if (readpath_probe) calibrate_readpath();' in src and '!strcmp(f[0], "READPATH")' in src
