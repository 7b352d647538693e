"""memtwin real / validate / lab: the real-kernel lab. Host runs need root and a writable
memory controller; they skip with the reason otherwise (on the project's machines they run)."""

import contextlib
import glob
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

import memtwin
from memtwin import leftovers, real

from conftest import cli_run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VAL = os.path.join(ROOT, "scenarios", "validation")
HOST_OK, HOST_WHY = real.host_ready()
needs_host = pytest.mark.skipif(not HOST_OK, reason=f"host runner unavailable: {HOST_WHY}")

SMALL = """
[scenario]
name = "small"
[machine]
ram = "4G"
[kernel]
cgroup = "v1"
[devices.sda]
read_bw = "500M"
read_ahead_kb = 128
[files."/data/a/f1"]
size = "2M"
[files."/data/a/f2"]
size = "1M"
[cgroups.A]
"memory.limit_in_bytes" = "100M"
[tasks.t]
cgroup = "A"
ops = [
  { op = "grep", path = "/data/a", step = "grep" },
  { op = "cp", src = "/data/a", dst = "/data/b", step = "cp" },
  %s
]
"""


def _scn(tmp_path, extra=""):
    p = tmp_path / "s.toml"
    p.write_text(SMALL % extra)
    return str(p)


def _leftovers(pid=None):
    """memtwin-* cgroups and scratch directories of the runs of process `pid` (this test
    process by default) that exist now, and the root blkio cgroup's throttle rules except
    those of loop devices another process's run holds: other memtwin runs on the host (a
    recording beside the tests) come and go without being taken for ours."""
    prefix = f"memtwin-{pid or os.getpid()}-"
    left = []
    for m in real._mounts():
        if m["fstype"] in ("cgroup", "cgroup2"):
            left += glob.glob(os.path.join(m["mnt"], prefix + "*"))
    left += glob.glob(f"/var/tmp/{prefix}*")
    left += [os.path.basename(t) for t in leftovers.trace_instances() if os.path.basename(t).startswith(prefix)]  # folio events
    theirs = set()
    for dev, backing in leftovers._loops():
        if "/memtwin-" in backing and f"/{prefix}" not in backing:
            with open(f"/sys/block/{os.path.basename(dev)}/dev") as f:
                theirs.add(f.read().strip())
    # the loop device's blkio throttle rules (root blkio cgroup, v1)
    for kind in ("read", "write"):
        path = f"/sys/fs/cgroup/blkio/blkio.throttle.{kind}_bps_device"
        if os.path.exists(path):
            with open(path) as f:
                left += [f"{kind} rule {line.strip()}" for line in f if line.strip() and line.split()[0] not in theirs]
    return set(left)


# The host takes page cache of its own accord while a run goes on: this host (6.18, a Firecracker
# guest) runs DAMON with a paddr `pageout` scheme (/sys/kernel/mm/damon/admin/kdamonds/0: regions
# not accessed for 12 aggregations of 5 s, quota 128 MiB/s; it paged out 52 MB in 20 s at 11:01
# today), and a trace instance on the scratch loop devices saw kdamond.0 remove folios of the
# scenarios' files (mm_filemap_delete_from_page_cache, comm kdamond.0) in the middle of steps.
# The scenario of these tests removes no page itself (no fadvise, no truncation, a 100 MiB limit
# it never meets), so every folio the scratch file system lost during a step (its folio_events
# `deleted`, drained after the step's mincore and folio scan) is one the host took, and every
# file page charged to the memcg that is not the scenario's files' (the step's folio scan,
# kpagecgroup, less mincore's pages) is a read of something else the host had taken (the task's
# interpreter, libc, a bitmap block) or a block of a new directory. The assertions below are
# exact when neither happened and bounded by these two figures of the run when they did.


def _pages(by_order: dict) -> int:
    return sum(n << int(o) for o, n in by_order.items())


def _host_took(step: dict) -> int:
    """Pages of the scratch file system's page cache removed during `step` (the comment above)."""
    return _pages(step["folio_events"]["deleted"])


def _check_reads(step: dict, written_pages: int, new_blocks: int, took: int) -> None:
    """The step's read_bytes (/proc/self/io of its task) is the scratch data it read, the pages
    its folio events added beyond the `written_pages` its writes made: exactly that when the host
    took no page of the scratch file system in the run so far (`took`) and the step's folio scan
    found no file page charged to the memcg beyond the scenario's files and `new_blocks` new
    directory blocks. Else a page the host took and the step added again need not have been read
    (seen: a page of the scratch file system taken during grep came back in cp with nothing
    read), and the rest was read into those other pages (every buffered read lands in a folio
    charged to the reader's memcg; the runner does no direct I/O) or into scratch pages the host
    took before the scan (the step's `deleted`). Not memcg.pgpgin: 6.x flushes a memcg's
    counters only past a threshold of pending updates (memcg_vmstats_needs_flush(), periodic
    flush every 2 s), so a read of memory.stat lags them (seen: grep's pgpgin 101 for the 102
    folios it added)."""
    fe = step["folio_events"]
    assert fe["lost"] == 0, (step["name"], fe)
    data = (_pages(fe["added"]) - written_pages) * 4096
    # without the folio scan (no /proc/kpagecgroup): nothing beyond, exact as before
    beyond = step["folios"]["file_pages"] - step["pagecache"] - new_blocks if "folios" in step else 0
    assert data >= 0 and beyond + _host_took(step) >= 0, (step["name"], fe, step["folios"], step["pagecache"])
    rb = step["metrics"]["read_bytes"]
    if took == 0 and beyond == 0:
        assert rb == data, (step["name"], rb, data)
    else:
        assert 0 <= rb <= data + (beyond + _host_took(step)) * 4096, (step["name"], rb, data, beyond, _host_took(step))


def _check_resident(step: dict, want: dict, took: int) -> None:
    """resident_pages (mincore at the step's end) of the scenario's files `want`: exact unless
    the host took pages of them, then at most `took` fewer."""
    got = step["resident_pages"]
    if took == 0:
        assert got == want, (step["name"], got, want)
    else:
        assert all(got.get(f, 0) <= n for f, n in want.items()), (step["name"], got, want)
        assert sum(got.get(f, 0) for f in want) >= sum(want.values()) - took, (step["name"], got, want, took)


def test_plan_is_the_engines_expanded_op_list(tmp_path):
    plan = memtwin.load(_scn(tmp_path)).doc.plan(None, [])
    ops = plan["tasks"][0]["ops"]
    # grep over 2 files, cp of 2 files = read + write each
    assert [(o["op"], o.get("file")) for o in ops] == [
        ("read", "/data/a/f1"), ("read", "/data/a/f2"),
        ("read", "/data/a/f1"), ("write", "/data/b/f1"), ("read", "/data/a/f2"), ("write", "/data/b/f2")]
    assert ops[0]["scan"] is True and ops[3]["create"] is True and ops[3]["length"] == 2 << 20
    assert plan["cgroups"] == [{"path": "A", "max": 100 << 20, "high": None, "low": 0, "min": 0, "swap_max": None, "memsw_max": None,
                               "swappiness": None, "zswap_max": None, "zswap_writeback": True}]
    # cp's destinations are made by its writes: the runners must not make them beforehand
    assert {f["path"]: f["created"] for f in plan["files"]} == {
        "/data/a/f1": False, "/data/a/f2": False, "/data/b/f1": True, "/data/b/f2": True}


def test_qemu_guest_setup_leaves_created_files_to_their_ops(tmp_path):
    from memtwin import qemu
    plan = memtwin.load(_scn(tmp_path)).doc.plan(None, [])
    script = qemu.op_script(plan)[0]
    made = [line for line in script.splitlines() if line.startswith("FILE ")]
    assert len(made) == 2 and all("/a/" in line for line in made), made
    assert sum(line.startswith("TRACK ") and "/b/f" in line for line in script.splitlines()) == 2


def test_refuses_when_not_root(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    code, out, err = cli_run(capsys, "real", _scn(tmp_path), "--on", "host")
    assert code == 2 and "must run as root" in err


def test_refuses_without_a_memory_controller(monkeypatch):
    monkeypatch.setattr(real, "_mounts", lambda: [{"mnt": "/sys/fs/cgroup/unified", "fstype": "cgroup2", "opts": "rw"}])
    monkeypatch.setattr(real, "_read", lambda p: "cpu io pids")
    with pytest.raises(real.RealError, match="no writable memory controller"):
        real.find_memory_controller()


def test_a_variant_needing_a_policy_no_kernel_has_is_refused(capsys):
    code, out, err = cli_run(capsys, "real", os.path.join(ROOT, "scenarios", "seed000-memcg-reread.toml"), "--on", "host", "--variant", "recharge")
    assert code == 2 and "no real kernel has" in err and "seed 000" in err


def test_anonymous_memory_ops_are_sent_to_qemu_before_anything_is_made(capsys, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("without root the host runner stops earlier (test_refuses_when_not_root)")
    made = []
    monkeypatch.setattr(real.HostRun, "__init__", lambda self, *a, **k: made.append(a))
    path = os.path.join(ROOT, "scenarios", "validation", "qemu61-numa-anon.toml")
    code, out, err = cli_run(capsys, "real", path, "--on", "host", "--variant", "spill-1400")
    # qemu61-numa-anon has two NUMA nodes: anonymous memory on this host would be placed otherwise
    assert code == 2 and "op `mmap` (anonymous memory) on this host" in err and "NUMA node" in err and "--on qemu" in err, err
    assert made == [], "refused before the scratch directory and memcgs are made"


def test_qemu_says_what_is_missing(tmp_path, capsys):
    empty = tmp_path / "lab"
    empty.mkdir()
    code, out, err = cli_run(capsys, "real", _scn(tmp_path), "--on", "qemu", "--workdir", str(empty))
    assert code == 2 and ("memtwin lab setup" in err or "not installed" in err), err
    code, out, err = cli_run(capsys, "real", _scn(tmp_path), "--on", "qemu", "--kernel", str(tmp_path / "nope"))
    assert code == 2 and "--kernel" in err and "no such file" in err, err


def test_qemu_names_the_missing_tool_whatever_the_machine_has(tmp_path, capsys, monkeypatch):
    """The same answer on a machine with QEMU and on one without: which() is made to miss it."""
    from memtwin import qemu

    bz = tmp_path / "bzImage"
    bz.write_bytes(b"\0" * 0x202 + b"HdrS" + b"\0" * 64)  # the boot protocol header's magic
    monkeypatch.setattr(qemu.shutil, "which", lambda tool: None)
    code, out, err = cli_run(capsys, "real", _scn(tmp_path), "--on", "qemu", "--kernel", str(bz))
    assert code == 2 and "qemu-system-x86_64" in err and "not installed" in err and "memtwin lab setup" in err, err


@needs_host
def test_host_run_measures_and_removes_everything(tmp_path, capsys):
    before = _leftovers()
    out_json = tmp_path / "r.json"
    code, out, err = cli_run(capsys, "real", _scn(tmp_path), "--on", "host", "--json", out_json)
    assert code == 0, err
    assert _leftovers() == before
    doc = json.loads(out_json.read_text())
    steps = doc["variants"]["default"]["steps"]
    assert [s["name"] for s in steps] == ["grep", "cp"]
    grep, cp = steps
    # hog23b: when each step ran, from the start line: grep first, cp after it and its folio scan
    assert 0 <= grep["at_s"][0] < grep["at_s"][1] <= cp["at_s"][0] < cp["at_s"][1], (grep["at_s"], cp["at_s"])
    assert grep["at_s"][0] < 5, "the first step begins at the start line, not at some other clock's zero"
    assert grep["at_s"][1] - grep["at_s"][0] <= grep["metrics"]["elapsed_s"] + 0.5, grep["at_s"]
    if "folio_scan_s" in grep:
        assert cp["at_s"][0] - grep["at_s"][1] >= grep["folio_scan_s"], (grep["at_s"], cp["at_s"], grep["folio_scan_s"])
    traced = real.folio_events_supported() is None
    if not traced:
        assert grep["metrics"]["read_bytes"] == 3 << 20  # cold files, read once
        assert grep["resident_pages"] == {"/data/a/f1": 512, "/data/a/f2": 256}
        assert cp["metrics"]["read_bytes"] == 0  # cached by grep, same memcg, loose limit
        assert cp["resident_pages"]["/data/b/f1"] == 512
    else:
        # the same, exact unless the host took pages meanwhile (_host_took's comment)
        took_grep, took = _host_took(grep), _host_took(grep) + _host_took(cp)
        for s in steps:
            assert s["metrics"]["memcg.failcnt" if "memcg.failcnt" in s["metrics"] else "memcg.events.max"] == 0, s["metrics"]
        # cold files, read once: every page grep added was read (3 MiB), more only for pages the
        # host took before grep read them
        assert 768 <= _pages(grep["folio_events"]["added"]) <= 768 + took_grep, grep["folio_events"]
        _check_reads(grep, 0, 0, took_grep)
        _check_resident(grep, {"/data/a/f1": 512, "/data/a/f2": 256}, took_grep)
        # cp: its 3 MiB written (added, not read) and nothing read, cached by grep (same memcg,
        # loose limit), but what the host took since; ext4 gives /data/b one directory block
        assert 768 <= _pages(cp["folio_events"]["added"]) <= 768 + took, cp["folio_events"]
        _check_reads(cp, 768, 1 if doc["variants"]["default"]["real"]["machine"]["fs"] == "ext4" else 0, took)
        _check_resident(cp, {"/data/a/f1": 512, "/data/a/f2": 256, "/data/b/f1": 512, "/data/b/f2": 256}, took)
    # grep's 3 MiB charged, less what the host took of them before the step's end
    assert (3 << 20) - (_host_took(grep) * 4096 if traced else 0) <= grep["metrics"]["memcg.usage_bytes"] < 8 << 20
    assert doc["variants"]["default"]["real"]["on"] == "host"
    disk = doc["variants"]["default"]["real"]["machine"]["disk"]
    if os.path.exists("/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device"):
        # the scenario's device bandwidth, as the QEMU lab's virtio disk has it
        assert "throttled to read" in disk and "blkio.throttle" in disk, disk
    # the scenario's root file system, mkfs.ext4's default features (ext4 large folios on 6.16+)
    assert doc["variants"]["default"]["real"]["machine"]["fs"] == "ext4"
    assert "-O" not in doc["variants"]["default"]["real"]["machine"]["mkfs"].split()
    assert doc["variants"]["default"]["real"]["machine"]["queue"]["max_sectors_kb"] > 0  # bounds readahead too
    # the host's own costs, measured before the run (memtwin.hostcal): the read by folio order, both
    # windows and (cgroup v1 with blkio) a reclaim call, each a positive figure, with the release and load
    hc = doc["variants"]["default"]["real"]["machine"]["host_cost"]
    assert hc["kernel"] == os.uname().release and len(hc["loadavg_before"]) == 3, hc
    assert sorted(hc["read_ns_by_order"]) == ["0", "2", "4", "8"] and all(v > 0 for v in hc["read_ns_by_order"].values()), hc
    # each window timed, or why not (a median that is not positive under a loaded host is refused
    # at record time: hostcal.positive_median()) -- never neither
    for k in ("loop_read_window_ns", "readahead_window_ns"):
        assert (hc[k] > 0) if k in hc else bool(hc["unavailable"][k]), (k, hc)
    assert hc.get("loop_read_window_thp_ns", 0) > 0 or hc["unavailable"]["loop_read_window_thp_ns"], hc
    # the device window over the run (rawin21): this scenario reads 3 MiB, too little for a figure;
    # the runner says why (the trace instance is gone: _leftovers above)
    assert "device_window_ns" not in hc and "too little read on the loop device" in hc["unavailable"]["device_window_ns"], hc
    if os.path.exists("/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device") and real.find_memory_controller()[0] == "v1":
        # the figure, or why this run could not take it (no reclaim that freed nothing was met: a
        # race of the throttled reads, so some runs miss it; the runner says so, validate then
        # keeps the table's figure) -- never neither
        if "reclaim_call_ns" in hc:
            assert hc["reclaim_call_ns"] > 0 and hc["isolate_calls_median"] > 0, hc
        else:
            assert hc["unavailable"]["reclaim_call_ns"], hc
    # folios by order from kpageflags: the memcg's page cache, the pages mincore counts plus the
    # directories' blocks (ext4 keeps them in the block device's page cache, charged to the reader)
    if os.access("/proc/kpagecgroup", os.R_OK):
        assert "kpagecgroup" in doc["variants"]["default"]["real"]["folios_source"]
        for s in steps:
            fol = s["folios"]
            assert fol["file_pages"] == sum(n << int(o) for o, n in fol["file"].items())
            # one task alone: scanned at every step's end, its wall time recorded (hog23b)
            assert "folios_skipped" not in s and s["folio_scan_s"] > 0, s.get("folios_skipped")
            # scanned after mincore: fewer by what the host took in between (its folio events,
            # drained after the scan), more by the directories' blocks
            took = _host_took(s) if traced else 0
            assert -took <= fol["file_pages"] - s["pagecache"] <= 16, (s["name"], fol, s["pagecache"], took)
            # anon_flags breaks down the anonymous part of the other pages
            assert sum(fol["anon_flags"].values()) <= fol["other_pages"], fol
    if not traced:
        assert "folio_events_unavailable" in doc["variants"]["default"]["real"]
    else:
        # every folio the page cache gained, by order (checked above: grep's cold reads, cp's new
        # files), and lost: the host's only (_host_took's comment)
        assert "mm_filemap_add_to_page_cache" in doc["variants"]["default"]["real"]["folio_events_source"]
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(ROOT, "schema", "result.schema.json")) as f:
        jsonschema.validate(doc, json.load(f))


@needs_host
@pytest.mark.skipif(shutil.which("mkfs.xfs") is None, reason="mkfs.xfs not installed (apt-get install xfsprogs)")
def test_host_run_on_xfs(tmp_path, capsys):
    """[machine] fs = "xfs": the scratch image is XFS (large folios since 5.18), everything goes."""
    p = tmp_path / "x.toml"
    p.write_text((SMALL % "").replace('ram = "4G"', 'ram = "4G"\nfs = "xfs"'))
    before = _leftovers()
    out_json = tmp_path / "r.json"
    code, out, err = cli_run(capsys, "real", str(p), "--on", "host", "--json", out_json)
    assert code == 0, err
    assert _leftovers() == before
    res = json.loads(out_json.read_text())["variants"]["default"]
    assert res["real"]["machine"]["fs"] == "xfs" and res["real"]["machine"]["mkfs"].startswith("mkfs.xfs")
    grep, cp = res["steps"]
    if real.folio_events_supported() is not None:
        assert grep["metrics"]["read_bytes"] == 3 << 20 and grep["resident_pages"] == {"/data/a/f1": 512, "/data/a/f2": 256}
        assert grep["folios"]["file_pages"] >= 768
    else:
        # exact unless the host took pages meanwhile (_host_took's comment)
        took = _host_took(grep)
        added = grep["folio_events"]["added"]
        assert 768 <= _pages(added) <= 768 + took and any(int(o) > 0 for o in added), added
        _check_reads(grep, 0, 0, took)
        _check_resident(grep, {"/data/a/f1": 512, "/data/a/f2": 256}, took)
        assert grep["folios"]["file_pages"] >= 768 - took, (grep["folios"], took)


@needs_host
def test_no_folios_records_neither_the_scan_nor_the_events(tmp_path, capsys):
    out_json = tmp_path / "r.json"
    code, out, err = cli_run(capsys, "real", _scn(tmp_path), "--on", "host", "--no-folios", "--json", out_json)
    assert code == 0, err
    res = json.loads(out_json.read_text())["variants"]["default"]
    assert not any("folios" in s or "folio_events" in s for s in res["steps"])
    assert "folios_source" not in res["real"] and res["real"]["folio_events_unavailable"] == "not asked for"


def test_the_scratch_image_gets_the_scenarios_root_file_system():
    """[machine] fs and fs_features (issue 21): ext4 with mkfs.ext4's defaults (6.16+ caches its
    files in large folios), ext4 with the verity feature (order-0 folios on every kernel:
    ext4_should_enable_large_folio()), xfs with mkfs.xfs's defaults; anything else is refused
    before anything is made."""
    def plan(**m):
        return {"machine": m}

    fs, cmd = real.mkfs_command(plan(), "IMG")
    assert fs == "ext4" and cmd[0] == "mkfs.ext4" and "-O" not in cmd and cmd[-1] == "IMG"
    assert cmd[cmd.index("-b") + 1] == "4096"
    fs, cmd = real.mkfs_command(plan(fs="ext4", fs_features=["verity"]), "IMG")
    assert cmd[cmd.index("-O") + 1] == "verity"
    if shutil.which("mkfs.xfs"):
        fs, cmd = real.mkfs_command(plan(fs="xfs"), "IMG")
        assert fs == "xfs" and cmd[0] == "mkfs.xfs" and cmd[-1] == "IMG"
    with pytest.raises(real.RealError, match=r"fs = 'btrfs'(.|\n)*fix: write fs = \"ext4\" or \"xfs\""):
        real.mkfs_command(plan(fs="btrfs"), "IMG")


@needs_host
def test_host_tasks_charge_their_memcg_little_beyond_the_page_cache(tmp_path, capsys):
    """Each task runs in a fresh, lean interpreter: its memcg holds the page cache the ops
    charge, not a forked Python process's page tables and copy-on-write pages (about 2.5 MB
    when tasks were forked from the CLI process), and cp's destinations are created by its
    writes, so they stay dirty after close (made beforehand, O_TRUNC would have ext4 write
    them back on close: auto_da_alloc)."""
    out_json = tmp_path / "r.json"
    code, out, err = cli_run(capsys, "real", _scn(tmp_path), "--on", "host", "--json", out_json)
    assert code == 0, err
    grep, cp = json.loads(out_json.read_text())["variants"]["default"]["steps"]
    for s in (grep, cp):
        m = s["metrics"]
        assert 0 <= m["memcg.usage_bytes"] - m["memcg.file_bytes"] < 1 << 20, m
    # + directory blocks; less what the host took meanwhile (_host_took's comment)
    took = _host_took(grep) + _host_took(cp) if real.folio_events_supported() is None else 0
    assert (6 << 20) - took * 4096 <= cp["metrics"]["memcg.file_bytes"] < (6 << 20) + (64 << 10)
    # b/f1 and b/f2 (3 MiB), written and not flushed on close (flushed, Dirty was near 0)
    assert cp["metrics"]["meminfo.Dirty_kB"] >= 2 << 10


@needs_host
def test_a_failing_step_removes_everything(tmp_path, capsys):
    before = _leftovers()
    # rmdir of the cgroup the task is in fails with EBUSY on a real kernel
    scn = _scn(tmp_path, '{ op = "mkdir", cgroup = "A/x", step = "mk" }, { op = "move", cgroup = "A/x", step = "in" }, '
                         '{ op = "rmdir", cgroup = "A/x", step = "rm" },')
    code, out, err = cli_run(capsys, "real", scn, "--on", "host")
    assert code == 2 and "rmdir failed on the real kernel" in err and "'rm'" in err
    assert _leftovers() == before


@needs_host
def test_sigterm_removes_everything(tmp_path):
    scn = _scn(tmp_path, '{ op = "sleep", duration = "60s", step = "wait" },')
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "real", scn, "--on", "host"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    before = _leftovers(p.pid)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not (_leftovers(p.pid) - before):
            time.sleep(0.05)
        made = _leftovers(p.pid) - before
        assert made, "the run never created its cgroup and scratch directory"
        time.sleep(1.0)  # into the sleep step
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130 and "SIGTERM" in err
    assert _leftovers(p.pid) == before
    assert not [dev for dev, backing in leftovers._loops() if f"/memtwin-{p.pid}-" in backing]


@needs_host
def test_sigterm_swaps_the_runs_swap_file_off_and_removes_everything(tmp_path):
    """[machine] swap on the host (stall23: host-stall-hog-swap): the run's swap file is swapped on for
    the run only; SIGTERM mid-run swaps it off and removes the image it is on, as every other exit path
    does (a SIGKILL's leftovers: test_a_killed_run_with_swap_and_zswap_is_swapped_off_by_lab_clean)."""
    if leftovers.active_swaps():
        pytest.skip("this host swaps already: the host runner refuses swap (test_swap_on_a_host_that_swaps_already_is_refused)")
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "swapterm"\n[machine]\nram = "4G"\nswap = "64M"\n[kernel]\nprofile = "linux-6.18"\ncgroup = "v1"\n'
                 '[devices.sda]\nread_bw = "500M"\n[cgroups.A]\n"memory.limit_in_bytes" = "64M"\n[tasks.t]\ncgroup = "A"\n'
                 'ops = [{ op = "sleep", duration = "60s", step = "wait" }]\n')
    proc = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "real", str(p), "--on", "host"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    before = _leftovers(proc.pid)
    mine = f"/memtwin-{proc.pid}-"
    try:
        deadline = time.time() + 90
        while time.time() < deadline and proc.poll() is None and not [s for s in leftovers.active_swaps() if mine in s]:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended early: " + proc.communicate()[1]
        swap = [s for s in leftovers.active_swaps() if mine in s]
        assert len(swap) == 1 and swap[0].endswith("/mnt/memtwin.swap"), leftovers.active_swaps()
        time.sleep(1.0)  # into the sleep step
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for s in leftovers.active_swaps():
            if mine in s:
                subprocess.run(["swapoff", s])
    assert proc.returncode == 130 and "SIGTERM" in err, err
    assert not [s for s in leftovers.active_swaps() if mine in s]
    assert _leftovers(proc.pid) == before
    assert not [dev for dev, backing in leftovers._loops() if mine in backing]


def test_validate_recorded_passes_on_a_recorded_scenario(capsys):
    code, out, err = cli_run(capsys, "validate", "--recorded", os.path.join(VAL, "host-first-reader.toml"))
    assert code == 0, out + err
    assert "read_bytes" in out and "resident_pages" in out and "every metric within tolerance" in out


def test_validate_recorded_fails_when_real_differs(tmp_path, capsys):
    scn = tmp_path / "v.toml"
    with open(os.path.join(VAL, "host-first-reader.toml")) as f:
        scn.write_text(f.read())
    (tmp_path / "real").mkdir()
    with open(os.path.join(VAL, "real", "host-first-reader.json")) as f:
        doc = json.load(f)
    doc["variants"]["default"]["steps"][1]["metrics"]["read_bytes"] = 64 << 20  # as if the re-read missed
    (tmp_path / "real" / "host-first-reader.json").write_text(json.dumps(doc))
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 1
    line = [l for l in out.splitlines() if "read 2" in l and "read_bytes" in l][0]
    assert "OUT" in line and "1 metric(s) out of tolerance" in out


def test_validate_needs_a_source(capsys):
    code, out, err = cli_run(capsys, "validate", os.path.join(VAL, "host-first-reader.toml"))
    assert code == 2 and "--recorded" in err


def test_validate_names_a_missing_recorded_file(tmp_path, capsys):
    scn = tmp_path / "v.toml"
    with open(os.path.join(VAL, "host-first-reader.toml")) as f:
        scn.write_text(f.read())
    code, out, err = cli_run(capsys, "validate", "--recorded", scn)
    assert code == 2 and "cannot read the recorded results" in err and "re-record" in err


def test_every_validation_scenario_has_recorded_real_results():
    paths = sorted(glob.glob(os.path.join(VAL, "*.toml")))
    assert len(paths) >= 8
    for p in paths:
        scn = memtwin.load(p)
        spec = scn.doc.table("validation")
        if spec is None:
            assert scn.published.get("figures"), f"{p}: neither [validation] nor recorded [published] figures"
            continue
        from memtwin.validate import recorded_paths

        for rp in recorded_paths(p, spec):  # every recording of a recording set
            with open(rp) as f:
                doc = json.load(f)
            for v, res in doc["variants"].items():
                assert res["real"]["kernel"] and res["real"]["date"], p


def test_fifo_recorded_scenarios_were_recorded_at_sched_fifo():
    """make_folio_scenarios.py FIFO_RECORDED (review6 M4): every recording of such a scenario (its
    `recorded`, a recording set) was taken with the runner at SCHED_FIFO (its `real.sched`, which the
    host runner writes from sched_getscheduler()), and the scenario says so in its header and in its
    re-record command; and no other host-ext4 scenario's recording claims SCHED_FIFO unlisted."""
    from memtwin.validate import recorded_paths
    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    try:
        import make_folio_scenarios as gen
    finally:
        sys.path.pop(0)
    assert gen.FIFO_RECORDED
    valid = os.path.join(ROOT, "scenarios", "validation")
    fifo = set()
    for p in sorted(glob.glob(os.path.join(valid, "host-*.toml"))):
        name = os.path.basename(p)[:-len(".toml")]
        spec = memtwin.load(p).doc.table("validation")
        if spec is None or "recorded" not in spec:
            continue
        policies = set()
        for rec in recorded_paths(p, spec):
            with open(rec) as f:
                res = json.load(f)
            for v, r in res["variants"].items():
                policies.add((r["real"].get("sched") or {}).get("policy"))
        if name in gen.FIFO_RECORDED:
            assert policies == {"SCHED_FIFO"}, f"{name}: a recording not at SCHED_FIFO ({policies}); re-record with chrt -f 50"
            with open(p) as f:
                text = f.read()
            assert gen.FIFO_NOTE in text and "# (re-record: chrt -f 50 memtwin real" in text, p
        if "SCHED_FIFO" in policies:
            fifo.add(name)
    assert fifo == gen.FIFO_RECORDED, f"recorded at SCHED_FIFO but not in FIFO_RECORDED (or missing): {fifo ^ gen.FIFO_RECORDED}"


def test_large_folio_recordings_were_taken_on_the_file_system_they_name():
    """scenarios/validation-pending/ (issue 21: large-folio recordings the engine does not pass
    yet, outside the validate --recorded glob): each has its recording, taken on the scenario's
    root file system at its read_ahead_kb, with the memcg's folios by order at every step, and
    where a file is read sequentially (readahead) some of them larger than a page on these
    large-folio file systems (random 16K reads through 20M on 6.18 ext4 add order-0 folios only)."""
    pend = os.path.join(ROOT, "scenarios", "validation-pending")
    valid = os.path.join(ROOT, "scenarios", "validation")
    # those the engine passes moved to scenarios/validation/ (make_folio_scenarios.py PENDING)
    paths = sorted(glob.glob(os.path.join(pend, "*.toml")) + glob.glob(os.path.join(valid, "host-ext4-*.toml"))
                   + glob.glob(os.path.join(valid, "qemu61-xfs-*.toml")))
    assert len(paths) >= 20
    for p in paths:
        scn = memtwin.load(p)
        plan = scn.doc.plan(None, [])
        spec = scn.doc.table("validation")
        from memtwin.validate import recorded_path

        with open(recorded_path(p, spec)) as f:
            doc = json.load(f)
        for v, res in doc["variants"].items():
            m = res["real"]["machine"]
            fs = plan["machine"]["fs"]
            assert (m.get("fs") == fs) if res["real"]["on"] == "host" else m["disk"].startswith(fs + " "), (p, m)
            # the read_ahead_kb the device had (host-queue-*: raised by the max_sectors_kb written after it)
            vplan = scn.doc.plan(v if v != "default" else None, [])
            assert (real.recorded_read_ahead_kb(m) if res["real"]["on"] == "host" else m["read_ahead_kb"]) == \
                vplan["devices"][0]["read_ahead_kb"], (p, v)
            # every step the scenario names (in the order they ended: tasks run concurrently)
            assert {s["name"] for s in res["steps"]} == set(scn.doc.step_names(v if v != "default" else None)), p
            large = 0
            for st in res["steps"]:
                if "folios" not in st:
                    # hog23b's runner scans a run with several tasks only after every other task ended: the
                    # step says why it has none (real.folio_scan_blocked), and the last step has them
                    assert st.get("folios_skipped") and len({x["task"] for x in res["steps"]}) > 1, (p, st["name"])
                    continue
                fol = st["folios"]
                assert fol["file_pages"] == sum(n << int(o) for o, n in fol["file"].items()), (p, st["name"])
                large += sum(n for o, n in fol["file"].items() if int(o) > 0)
            if "-seq-" in p or "seed000" in p:
                assert large > 0, f"{p}: no large folio in any step"


def test_lab_doctor_says_what_runs(capsys):
    code, out, err = cli_run(capsys, "lab", "doctor")
    assert "host runner" in out and "guest runner" in out and "TCG" in out
    assert code == (0 if HOST_OK else 1)


def test_cgroup_v2_enables_memory_only_in_parents():
    from memtwin.real import v2_parents

    plan = {
        "cgroups": [{"path": "a"}, {"path": "a/b"}, {"path": "c"}],
        "tasks": [{"ops": [{"op": "mkdir", "cgroup": "c/d/"}, {"op": "read"}]}],
    }
    # Leaves (a/b, c/d) and cgroups without children never get +memory: they must take tasks.
    assert v2_parents(plan) == {"a", "c"}
    assert v2_parents({"cgroups": [{"path": "x"}], "tasks": []}) == set()


class _MustNotRun(Exception):
    pass


def _no_host_run(monkeypatch):
    def refuse(self, *a, **k):
        raise _MustNotRun("the host run was started")
    monkeypatch.setattr(real.HostRun, "__init__", refuse)


ANON_AND_PROBE = """
[scenario]
name = "mixed"
[machine]
ram = "1G"
[tasks.hog]
ops = [{ op = "mmap", name = "a", size = "64M" }, { op = "touch", name = "a" }]
[tasks.probe]
ops = [{ op = "mmap_probe", size = "8M", interval = "5ms", while_task = "hog" }]
"""


def test_an_anonymous_hog_beside_the_probe_runs_on_the_host(tmp_path, monkeypatch):
    """The host runner carries out both the mmap probe and anonymous mmap/touch (each task a
    process of its own; the refusal of the two together predates the host's anonymous ops,
    stall23: host-stall-hog-swap); the QEMU runner, whose guest program has no probe, sends
    such a plan to the host."""
    from memtwin import qemu
    monkeypatch.setattr(real, "probe_anon_matches", lambda plan: None)
    p = tmp_path / "s.toml"
    p.write_text(ANON_AND_PROBE)
    plan = memtwin.load(str(p)).doc.plan(None, [])
    real.refuse_before_running(plan)
    assert real.host_carries_out(plan)
    with pytest.raises(real.RealError, match=r"(?s)mmap_probe.*use --on host"):
        qemu.check_plan(plan)


@pytest.mark.parametrize("source", ["seed002", "mount-ext4"])
def test_ops_no_runner_carries_out_are_refused_without_sending_the_user_elsewhere(tmp_path, monkeypatch, source):
    # seed 002's stutter needs post/wait and the mmap probe; an ext4 mount neither runner makes.
    # Neither runner may send the user to the other one, and nothing may start on the host.
    from memtwin import qemu
    _no_host_run(monkeypatch)
    if source == "seed002":
        plan = memtwin.load(os.path.join(ROOT, "scenarios", "wip", "seed002-stutter.toml")).doc.plan("zlc", [])
    else:
        p = tmp_path / "s.toml"
        p.write_text('[scenario]\nname = "m"\n[machine]\nram = "1G"\n[tasks.t]\nops = [{ op = "mount", path = "/mnt/x", fs = "ext4", mkdir = true }]\n')
        plan = memtwin.load(str(p)).doc.plan(None, [])
    with pytest.raises(real.RealError) as host:
        real.run_host(plan)
    assert "neither --on host nor --on qemu" in str(host.value) and "use --on qemu" not in str(host.value)
    if source == "seed002":
        with pytest.raises(real.RealError) as guest:
            qemu.check_plan(plan)
        assert "--on host does not carry it out either" in str(guest.value) and "use --on host" not in str(guest.value)


def test_a_tmpfs_mount_is_sent_to_qemu_before_anything_starts(tmp_path, monkeypatch):
    _no_host_run(monkeypatch)
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "m"\n[machine]\nram = "1G"\n[tasks.t]\nops = [{ op = "mount", path = "/mnt/x", fs = "tmpfs", mkdir = true }]\n')
    with pytest.raises(real.RealError, match=r"(?s)op `mount` \(tmpfs at /mnt/x\).*use --on qemu"):
        real.run_host(memtwin.load(str(p)).doc.plan(None, []))


def _swap_plan(tmp_path, machine_extra=""):
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "m"\n[machine]\nram = "1G"\nswap = "256M"\n' + machine_extra
                 + '[kernel]\nprofile = "linux-6.1"\n[devices.sda]\nread_bw = "100M"\n[tasks.t]\nops = [{ op = "sleep", duration = "1s" }]\n')
    return memtwin.load(str(p)).doc.plan(None, [])


def test_a_task_killed_by_its_memcgs_oom_killer_is_said_so(tmp_path):
    """oom_killed_why() (stall23): a task process that ended by SIGKILL while its memcg counts an
    OOM kill (v1 memory.oom_control, v2 memory.events `oom_kill`) is said to be the memcg OOM
    killer's victim (the quiet host-stall sets lost 2 of 12 runs so, 6.18: the copy's buffer-head
    charge killed the probe); another signal, no count or no file: None (the caller says
    "killed?")."""
    for version, name, text in (("v1", "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill {n}\n"),
                                ("v2", "memory.events", "low 0\nhigh 0\nmax 12\noom 1\noom_kill {n}\noom_group_kill 0\n")):
        top = tmp_path / version
        (top / "A").mkdir(parents=True)
        cg = real.Cg(version, str(tmp_path), str(top))
        (top / "A" / name).write_text(text.format(n=1))
        why = real.oom_killed_why(cg, "A", -signal.SIGKILL)
        assert why and "memcg OOM killer" in why and f"{name} of A counts oom_kill 1" in why, why
        assert real.oom_killed_why(cg, "A", -signal.SIGTERM) is None
        assert real.oom_killed_why(cg, "A", 1) is None
        (top / "A" / name).write_text(text.format(n=0))
        assert real.oom_killed_why(cg, "A", -signal.SIGKILL) is None
        assert real.oom_killed_why(cg, "B", -signal.SIGKILL) is None  # no such memcg (file)


def test_swap_on_a_host_that_swaps_already_is_refused(tmp_path):
    """The run's swap file must be the host's only swap area: with another one the scenario's
    pages could go there, and the host's own swap traffic would be counted."""
    swaps = tmp_path / "swaps"
    swaps.write_text("Filename\tType\tSize\tUsed\tPriority\n/dev/sdb2  partition\t1048572\t0\t-2\n")
    with pytest.raises(real.RealError, match=r"(?s)this host already swaps to /dev/sdb2.*fix: swapoff"):
        real.host_swap_check(_swap_plan(tmp_path), swaps=str(swaps))
    swaps.write_text("Filename\tType\tSize\tUsed\tPriority\n")
    real.host_swap_check(_swap_plan(tmp_path), swaps=str(swaps))  # no swap: the run may set up its own


def test_zswap_on_a_host_kernel_without_it_is_refused(tmp_path):
    swaps = tmp_path / "swaps"
    swaps.write_text("Filename\tType\tSize\tUsed\tPriority\n")
    plan = _swap_plan(tmp_path, "zswap = { enabled = true }\n")
    with pytest.raises(real.RealError, match=r"(?s)\[machine\] zswap: this host's kernel has no .*CONFIG_ZSWAP"):
        real.host_swap_check(plan, swaps=str(swaps), zdir=str(tmp_path / "none"))
    zdir = tmp_path / "params"
    zdir.mkdir()
    real.host_swap_check(plan, swaps=str(swaps), zdir=str(zdir))
    # 6.12+ has no same_filled_pages_enabled: it cannot be switched off there
    plan = _swap_plan(tmp_path, "zswap = { enabled = true, same_filled_pages_enabled = false }\n")
    with pytest.raises(real.RealError, match=r"(?s)zswap.same_filled_pages_enabled = false: this host's kernel has no such parameter.*fix: leave"):
        real.host_swap_check(plan, swaps=str(swaps), zdir=str(zdir))


def test_anonymous_fill_other_than_byte_is_refused_on_the_host(tmp_path, monkeypatch):
    _no_host_run(monkeypatch)
    monkeypatch.setattr(real, "probe_anon_matches", lambda plan: None)
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "m"\n[machine]\nram = "1G"\n[tasks.t]\nops = [{ op = "mmap", name = "h", size = "4M", fill = "same", step = "a" },'
                 ' { op = "touch", name = "h", step = "a" }]\n')
    with pytest.raises(real.RealError, match=r"(?s)mmap fill = 'same': the host runner writes one byte per page.*--on qemu"):
        real.run_host(memtwin.load(str(p)).doc.plan(None, []))


def test_lab_clean_puts_zswap_parameters_back(tmp_path):
    from memtwin import leftovers

    d = tmp_path / "params"
    d.mkdir()
    for k, v in (("enabled", "Y"), ("max_pool_percent", "1")):
        (d / k).write_text(v)
    left = leftovers.restore_zswap({str(d / "enabled"): "N", str(d / "max_pool_percent"): "20", str(d / "gone" / "x"): "1"})
    assert (d / "enabled").read_text() == "N" and (d / "max_pool_percent").read_text() == "20"
    assert len(left) == 1 and "gone/x: could not write back 1" in left[0]


def _made_by_run(parent):
    """What a host run with --scratch PARENT has on the machine now: its scratch directories,
    cgroups (by the scratch directories' names), loop devices backed by an image below PARENT,
    mounts below PARENT."""
    from memtwin import leftovers

    prefix = parent.rstrip("/") + "/"
    scratch = glob.glob(os.path.join(parent, "memtwin-*"))
    names = {os.path.basename(s) for s in scratch}
    cgroups = [os.path.join(m["mnt"], n) for m in real._mounts() if m["fstype"] in ("cgroup", "cgroup2") for n in names
               if os.path.isdir(os.path.join(m["mnt"], n))]
    loops = [dev for dev, bf in leftovers._loops() if bf.startswith(prefix)]
    mounts = [m["mnt"] for m in real._mounts() if m["mnt"].startswith(prefix)]
    traces = sorted({os.path.basename(t) for t in leftovers.trace_instances() if os.path.basename(t).rpartition("-")[0] in names})
    return {"scratch": scratch, "cgroups": cgroups, "loops": loops, "mounts": mounts, "traces": traces}


@needs_host
def test_sigkill_in_the_host_calibration_leaves_what_lab_clean_removes(tmp_path, capsys):
    """A run SIGKILLed while it measures the host's costs (memtwin.hostcal: its reader child in a
    memcg of its own, a tracefs mount and trace instance `memtwin-<id>-hostcal`, a temporary
    blk-throttle rule): the child dies with it (PR_SET_PDEATHSIG), and `memtwin lab clean` removes
    the rest, the calibration's trace instance included."""
    from memtwin import leftovers

    parent = tempfile.mkdtemp(prefix="memtwin-test-kill-", dir="/var/tmp")
    scn = tmp_path / "s.toml"
    scn.write_text(SMALL % "")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(memtwin.__file__)))
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "real", str(scn), "--on", "host", "--scratch", parent],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.time() + 60
        calib = []
        while time.time() < deadline and p.poll() is None and not calib:
            calib = [cg for cg in _made_by_run(parent)["cgroups"] if os.path.isdir(os.path.join(cg, "memtwin-hostcal"))]
            time.sleep(0.02)
        assert calib, "the run never reached its calibration's reclaim measurement: " + (p.communicate()[1] if p.poll() is not None else "")
        name = os.path.basename(calib[0])
        deadline = time.time() + 30
        while time.time() < deadline and p.poll() is None and not [
                t for t in leftovers.trace_instances() if os.path.basename(t) == f"{name}-hostcal"]:
            time.sleep(0.02)
        time.sleep(0.3)  # into the child's reads
        p.kill()
        p.wait()
        deadline = time.time() + 10
        while time.time() < deadline and any(open(os.path.join(dp, "cgroup.procs")).read().split()
                                             for dp, _, _ in os.walk(calib[0])):
            time.sleep(0.05)
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", parent)
        assert code == 0, out + err
        left = _made_by_run(parent)
        assert not any(left.values()), left
        assert not [t for t in leftovers.trace_instances() if os.path.basename(t).startswith(name)], "a trace instance is left"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        cli_run(capsys, "lab", "clean", "--scratch", parent)
        shutil.rmtree(parent, ignore_errors=True)


@needs_host
def test_sigkill_leaves_leftovers_that_lab_doctor_lists_and_lab_clean_removes(tmp_path, capsys):
    """SIGKILL cannot be caught: the run's cgroups, loop device, mount and scratch directory
    stay. `memtwin lab doctor` lists them, `memtwin lab clean` removes them all."""
    from memtwin import leftovers

    parent = tempfile.mkdtemp(prefix="memtwin-test-kill-", dir="/var/tmp")
    scn = tmp_path / "s.toml"
    scn.write_text(SMALL.replace('[tasks.t]\ncgroup = "A"', '[cgroups."A/B"]\n[tasks.t]\ncgroup = "A/B"')
                   % '{ op = "sleep", duration = "120s", step = "wait" },')
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(memtwin.__file__)))
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "real", str(scn), "--on", "host", "--scratch", parent],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not _made_by_run(parent)["mounts"] and p.poll() is None:
            time.sleep(0.05)
        assert p.poll() is None, "the run ended early: " + p.communicate()[1]
        made = _made_by_run(parent)
        assert made["mounts"], "the run never mounted its disk"
        # Into the sleep step: the task joins its memcg A/B (polled, not timed: a loaded machine
        # can take seconds between the mount and the first step; the host calibration's reader,
        # memtwin.hostcal, runs in a memcg of its own before it, with a tracefs mount of its own)
        def tasks_in_memcgs():
            made = _made_by_run(parent)
            return made, [t for cg in made["cgroups"] if os.path.exists(os.path.join(cg, "A", "B", "cgroup.procs"))
                          for t in open(os.path.join(cg, "A", "B", "cgroup.procs")).read().split()]
        deadline = time.time() + 60
        made, tasks = tasks_in_memcgs()
        while not tasks and time.time() < deadline and p.poll() is None:
            time.sleep(0.1)
            made, tasks = tasks_in_memcgs()
        assert tasks, "the task never joined its memcg"
        # while it runs, lab clean leaves it alone
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", parent)
        assert code == 0 and f"left alone: {os.path.basename(made['scratch'][0])}: its owner, pid {p.pid} running" in out, out + err
        assert _made_by_run(parent) == made and p.poll() is None
        p.kill()
        p.wait()
        left = _made_by_run(parent)
        # the disk's mount and, where the kernel has the folio tracepoints, the run's tracefs mount
        # with the two trace instances that count folios, the one that times the loop device's
        # requests over the run (hostcal's device window) and the one that times the tasks' own memcg
        # reclaims (reclaim21, `memtwin-<id>-reclaim`: only where the run's calibration gave an
        # isolate-call count, and made just after the tasks start, so a kill may come before it)
        traced = real.folio_events_supported() is None
        assert len(left["scratch"]) == 1 and len(left["cgroups"]) == 1 and len(left["loops"]) == 1, left
        kinds = sorted(t.rpartition("-")[2] for t in left["traces"])
        assert len(left["mounts"]) == 1 + traced and len(left["traces"]) in (3 * traced, 4 * traced), left
        assert len(left["traces"]) == 3 * traced or "reclaim" in kinds, left
        name = os.path.basename(left["scratch"][0])
        assert os.path.isdir(os.path.join(left["cgroups"][0], "A", "B"))
        # the task processes die with their parent (PR_SET_PDEATHSIG): the memcgs empty out
        deadline = time.time() + 10
        while time.time() < deadline and any(open(os.path.join(dp, "cgroup.procs")).read().split()
                                             for dp, _, _ in os.walk(left["cgroups"][0])):
            time.sleep(0.05)
        code, out, err = cli_run(capsys, "lab", "doctor", "--scratch", parent)
        assert f"{name} (pid {p.pid} gone):" in out, out
        for what in [f"cgroup {left['cgroups'][0]} (and 2 below it)", f"mount {left['mounts'][0]}",
                     f"loop device {left['loops'][0]} (backing file {left['scratch'][0]}/disk.img)",
                     f"scratch directory {left['scratch'][0]}"] + [f"/instances/{t}" for t in left["traces"]]:
            assert what in out, (what, out)
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", parent)
        assert code == 0, out + err
        for what in [f"removed: mount {left['mounts'][0]}", f"removed: loop device {left['loops'][0]}",
                     f"removed: scratch directory {left['scratch'][0]}", f"removed: cgroup {left['cgroups'][0]}"] + [
                         f"/instances/{t}" for t in left["traces"]]:
            assert what in out, (what, out)
        assert _made_by_run(parent) == {"scratch": [], "cgroups": [], "loops": [], "mounts": [], "traces": []}
        assert not any(os.path.exists(os.path.join(m["mnt"], name)) for m in real._mounts() if m["fstype"] in ("cgroup", "cgroup2"))
        code, out, err = cli_run(capsys, "lab", "doctor", "--scratch", parent)
        assert name not in out
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        if any(_made_by_run(parent).values()):
            leftovers.clean(lambda s: None, lambda s: print(s, file=sys.stderr), [parent], [])
        shutil.rmtree(parent, ignore_errors=True)


PROBE = """
[scenario]
name = "probe"
[machine]
ram = "4G"
[kernel]
cgroup = "v1"
[devices.sda]
read_bw = "500M"
[files."/data/src"]
size = "8M"
[cgroups.A]
"memory.limit_in_bytes" = "100M"
[tasks.cp]
cgroup = "A"
ops = [{ op = "cp", src = "/data/src", dst = "/data/dst", step = "copy" }, { op = "sleep", duration = "1s", step = "idle" }]
[tasks.probe]
cgroup = "A"
ops = [{ op = "mmap_probe", size = "1M", interval = "5ms", while_task = "cp", step = "probe" }]
"""


def test_the_probe_runs_rounds_until_the_watched_task_is_marked_done(tmp_path):
    # real.mmap_probe (the engine's mmap_probe on the host): rounds until the marker appears
    import threading

    t = threading.Timer(0.3, real.mark_done, args=(str(tmp_path), "w"))
    t.start()
    samples = real.mmap_probe(1 << 20, 5_000_000, "w", str(tmp_path))
    t.join()
    # 0.3 s of rounds of (a 1 MiB round + 5 ms sleep): some, not unbounded
    assert 5 <= len(samples) <= 60 and all(s > 0 for s in samples)
    assert os.path.exists(real.done_marker(str(tmp_path), "w"))


def test_probe_latency_metrics_are_the_engines_arithmetic():
    # the host runner's latency.* come from metrics::mmtests_latency (the engine's unit test
    # mmtests_latency_table_arithmetic holds the same 1..20 ms series)
    from memtwin._memtwin import latency_metrics
    m = dict(latency_metrics([i * 1_000_000 for i in range(20, 0, -1)]))
    assert m["latency.samples"] == 20 and m["latency.q2_ms"] == 11.0 and m["latency.max90_ms"] == 18.0
    assert m["latency.max99_ms"] == 20.0 and m["latency.max_ms"] == 20.0 and m["latency.mean_ms"] == 10.5
    assert dict(latency_metrics([]))["latency.q2_ms"] == 0.0


@pytest.mark.parametrize("mode, thp, ok", [("always [madvise] never", False, True), ("[always] madvise never", False, False),
                                          ("[always] madvise never", True, True), ("always madvise [never]", True, False)])
def test_the_probe_runs_on_the_host_only_where_its_anonymous_pages_are_the_engines(tmp_path, mode, thp, ok):
    f = tmp_path / "enabled"
    f.write_text(mode + "\n")
    nodes = tmp_path / "node"
    (nodes / "node0").mkdir(parents=True)
    plan = {"thp": thp, "machine": {"nodes": 1}}
    if ok:
        real.probe_anon_matches(plan, str(f), str(nodes))
    else:
        with pytest.raises(real.RealError, match=r"(?s)\[kernel\] thp = .*fix: set \[kernel\] thp"):
            real.probe_anon_matches(plan, str(f), str(nodes))
    (nodes / "node1").mkdir()
    with pytest.raises(real.RealError, match=r"(?s)this host has 2 NUMA node\(s\).*fix: set \[machine\] nodes = 2"):
        real.probe_anon_matches({"thp": mode.startswith("["), "machine": {"nodes": 1}}, str(f), str(nodes))


def test_the_guest_sends_a_probe_to_the_host(tmp_path, monkeypatch):
    from memtwin import qemu
    monkeypatch.setattr(real, "probe_anon_matches", lambda plan: None)
    p = tmp_path / "s.toml"
    p.write_text(PROBE)
    with pytest.raises(real.RealError, match=r"(?s)op `mmap_probe` is not carried out by the guest program yet.*use --on host"):
        qemu.check_plan(memtwin.load(str(p)).doc.plan(None, []))


@needs_host
def test_host_run_carries_out_the_probe_and_reports_its_rounds(tmp_path, capsys):
    if open("/sys/kernel/mm/transparent_hugepage/enabled").read().startswith("[always]"):
        pytest.skip("this host gives plain anonymous mappings huge pages; the scenario's thp is false")
    before = _leftovers()
    p = tmp_path / "s.toml"
    p.write_text(PROBE)
    out_json = tmp_path / "r.json"
    code, out, err = cli_run(capsys, "real", str(p), "--on", "host", "--json", out_json)
    assert code == 0, err
    assert _leftovers() == before
    steps = {s["name"]: s for s in json.loads(out_json.read_text())["variants"]["default"]["steps"]}
    probe = steps["probe"]
    n = probe["metrics"]["latency.samples"]
    # the probe started with the copy (a common start line) and ran while it and its 1 s
    # sleep did; each round is in latency_samples_ms
    assert n >= 1 and len(probe["latency_samples_ms"]) == n
    assert 0 < probe["metrics"]["latency.q2_ms"] <= probe["metrics"]["latency.max_ms"]
    assert steps["copy"]["metrics"]["latency.samples"] == 0


def test_fresh_loop_device_makes_the_free_device_anew_or_falls_back(monkeypatch):
    """fresh_loop_device(): LOOP_CTL_GET_FREE, then LOOP_CTL_REMOVE and LOOP_CTL_ADD of that
    index (a new bdi, as the engine's new device); EBUSY on REMOVE uses the device as it is; no
    /dev/loop-control leaves the choice to losetup --find. The ioctls are recorded, not run."""
    calls = []

    def ioctl(fd, req, arg=0):
        calls.append((req, arg))
        if req == real.LOOP_CTL_GET_FREE:
            return 3
        if req == real.LOOP_CTL_REMOVE and busy:
            raise OSError(16, "Device or resource busy")
        return arg

    monkeypatch.setattr(real.os, "open", lambda path, flags: 99)
    monkeypatch.setattr(real.os, "close", lambda fd: None)
    monkeypatch.setattr(real.os.path, "exists", lambda p: True)
    monkeypatch.setattr(real.fcntl, "ioctl", ioctl)
    busy = False
    assert real.fresh_loop_device() == ("/dev/loop3", True)
    assert calls == [(real.LOOP_CTL_GET_FREE, 0), (real.LOOP_CTL_REMOVE, 3), (real.LOOP_CTL_ADD, 3)]
    calls.clear()
    busy = True
    assert real.fresh_loop_device() == ("/dev/loop3", False)
    assert calls == [(real.LOOP_CTL_GET_FREE, 0), (real.LOOP_CTL_REMOVE, 3)]

    def no_control(path, flags):
        raise FileNotFoundError(2, "No such file or directory", path)

    busy = False
    monkeypatch.setattr(real.os.path, "exists", lambda p: False)  # the new node never appears
    monkeypatch.setattr(real.time, "sleep", lambda s: None)
    assert real.fresh_loop_device() == (None, False)

    def add_fails(fd, req, arg=0):  # LOOP_CTL_ADD refused (EEXIST: the index was taken meanwhile)
        if req == real.LOOP_CTL_ADD:
            raise OSError(17, "File exists")
        return ioctl(fd, req, arg)

    monkeypatch.setattr(real.fcntl, "ioctl", add_fails)
    assert real.fresh_loop_device() == (None, False)

    monkeypatch.setattr(real.os, "open", no_control)
    assert real.fresh_loop_device() == (None, False)


@needs_host
def test_a_killed_run_with_swap_and_zswap_is_swapped_off_by_lab_clean(tmp_path, capsys):
    """A host run with [machine] swap and zswap swaps on a file on its image and writes zswap's
    parameters; SIGKILL leaves them so. `memtwin lab doctor` lists the swap file, `memtwin lab
    clean` swaps it off, puts zswap's parameters back and removes the rest."""
    if leftovers.active_swaps():
        pytest.skip("this host swaps already: the host runner refuses swap (test_swap_on_a_host_that_swaps_already_is_refused)")
    if not os.path.isdir(real.ZSWAP_DIR):
        pytest.skip("no zswap in this kernel")
    before = {k: open(os.path.join(real.ZSWAP_DIR, k)).read().strip() for k in real.HOST_ZSWAP_PARAMS
              if os.path.exists(os.path.join(real.ZSWAP_DIR, k))}
    parent = tempfile.mkdtemp(prefix="memtwin-test-swapkill-", dir="/var/tmp")
    scn = tmp_path / "s.toml"
    scn.write_text('[scenario]\nname = "swapkill"\n[machine]\nram = "4G"\nswap = "64M"\nzswap = { enabled = true, max_pool_percent = 7 }\n'
                   '[kernel]\nprofile = "linux-6.18"\ncgroup = "v1"\n[devices.sda]\nread_bw = "500M"\n[cgroups.A]\n'
                   '"memory.limit_in_bytes" = "64M"\n[tasks.t]\ncgroup = "A"\nops = [{ op = "sleep", duration = "120s", step = "wait" }]\n')
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(memtwin.__file__)))
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "real", str(scn), "--on", "host", "--scratch", parent],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        prefix = parent.rstrip("/") + "/"
        deadline = time.time() + 90
        while time.time() < deadline and p.poll() is None and not any(s.startswith(prefix) for s in leftovers.active_swaps()):
            time.sleep(0.1)
        assert p.poll() is None, "the run ended early: " + p.communicate()[1]
        swap = [s for s in leftovers.active_swaps() if s.startswith(prefix)]
        assert len(swap) == 1 and swap[0].endswith("/mnt/memtwin.swap"), leftovers.active_swaps()
        assert open(os.path.join(real.ZSWAP_DIR, "enabled")).read().strip() == "Y"
        assert open(os.path.join(real.ZSWAP_DIR, "max_pool_percent")).read().strip() == "7"
        p.kill()
        p.wait()
        code, out, err = cli_run(capsys, "lab", "doctor", "--scratch", parent)
        assert f"swap file {swap[0]} (swapped on)" in out, out
        deadline = time.time() + 10  # the task processes die with their parent
        while time.time() < deadline and any(open(os.path.join(dp, "cgroup.procs")).read().split()
                                             for cg in _made_by_run(parent)["cgroups"] for dp, _, _ in os.walk(cg)):
            time.sleep(0.05)
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", parent)
        assert code == 0, out + err
        assert f"removed: swap file {swap[0]} (swapped off)" in out and "restored: " in out, out
        assert not [s for s in leftovers.active_swaps() if s.startswith(prefix)]
        after = {k: open(os.path.join(real.ZSWAP_DIR, k)).read().strip() for k in before}
        assert after == before
        assert _made_by_run(parent) == {"scratch": [], "cgroups": [], "loops": [], "mounts": [], "traces": []}
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for s in leftovers.active_swaps():
            if s.startswith(parent.rstrip("/") + "/"):
                subprocess.run(["swapoff", s])
        if any(_made_by_run(parent).values()):
            cli_run(capsys, "lab", "clean", "--scratch", parent)
        leftovers.restore_zswap({os.path.join(real.ZSWAP_DIR, k): v for k, v in before.items()})
        shutil.rmtree(parent, ignore_errors=True)


def test_a_qemu_throttled_disk_is_refused_by_the_host_runner(tmp_path, monkeypatch):
    """[devices.X] qemu_throttle describes the QEMU guest's disk (throttling.bps-read/-write, reads
    queued apart from writes): the host runner, whose disk is a loop device, refuses it before
    anything starts, naming the device and the fix; the QEMU runner's plan check takes it."""
    from memtwin import qemu
    _no_host_run(monkeypatch)
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "q"\n[machine]\nram = "1G"\n[devices.sda]\nread_bw = "500M"\nwrite_bw = "400M"\n'
                 'qemu_throttle = true\n[files."/data/f"]\nsize = "4M"\n[tasks.t]\nops = [{ op = "read", file = "/data/f" }]\n')
    plan = memtwin.load(str(p)).doc.plan(None, [])
    assert plan["devices"][0]["qemu_throttle"] is True
    with pytest.raises(real.RealError, match=r"\[devices\.sda\]: qemu_throttle = true(.|\n)*fix: use --on qemu"):
        real.run_host(plan)
    qemu.check_plan(plan)


def test_a_plain_disk_on_the_throttled_loop_device_is_noted(tmp_path):
    """review8 M3: the host runner holds its loop device under blk-throttle at the scenario's
    read_bw/write_bw (HostRun._throttle; block/blk-throttle.c blk_throtl_bio() at
    submit_bio_noacct(), 6.18), so a device that does not say blk_throttle = true is a plain disk
    in the engine (blk-wbt's default) and another disk in the recording: the recording notes it
    (plain_disk_note); a device that says it, or has its own queue (unthrottled), is not noted."""
    def plan_dev(dev):
        p = tmp_path / "s.toml"
        p.write_text('[scenario]\nname = "q"\n[machine]\nram = "1G"\n[devices.sda]\nread_bw = "500M"\nwrite_bw = "400M"\n'
                     + dev + '[files."/data/f"]\nsize = "4M"\n[tasks.t]\nops = [{ op = "read", file = "/data/f" }]\n')
        return memtwin.load(str(p)).doc.plan(None, [])["devices"][0]
    note = real.plain_disk_note(plan_dev(""))
    assert note and note.startswith("[devices.sda] gives read_bw/write_bw without blk_throttle = true"), note
    assert "add blk_throttle = true" in note
    assert real.plain_disk_note(plan_dev("blk_throttle = true\n")) is None
    assert real.plain_disk_note(plan_dev('queue_depth = 128\nrequest_latency = "50us"\n')) is None
    assert real.plain_disk_note(None) is None


def test_engine_rng_draws_the_engines_pages():
    """The host runner's random pages and read offsets are the engine's (types.rs Rng, SplitMix64;
    crates/memtwin-engine/src/unit_tests/sched.rs the_random_pages_the_runners_draw_alike holds the
    engine to the same figures): seed 0's first pages of a 96M mapping, and task 1's (seed + 1) differ."""
    from memtwin.real import EngineRng
    r = EngineRng(0)
    assert [r.randrange(24576) for _ in range(5)] == [10605, 649, 23860, 2613, 8044]
    r1 = EngineRng(1)
    assert [r1.randrange(24576) for _ in range(5)] != [10605, 649, 23860, 2613, 8044]


def _fake_queue(tmp_path, scheduler="[none] mq-deadline kyber bfq", wbt="2000", hw=1280):
    """A /sys/block/loop9 with the files apply_queue reads and writes."""
    q = tmp_path / "loop9" / "queue"
    q.mkdir(parents=True)
    (q / "scheduler").write_text(scheduler + "\n")
    if wbt is not None:
        (q / "wbt_lat_usec").write_text(wbt + "\n")
    (q / "max_sectors_kb").write_text(f"{hw}\n")
    (q / "max_hw_sectors_kb").write_text(f"{hw}\n")
    (tmp_path / "loop9" / "mq" / "0").mkdir(parents=True)
    (tmp_path / "loop9" / "mq" / "0" / "nr_tags").write_text("128\n")
    return str(tmp_path)


def _dev(**k):
    d = {"name": "sda", "scheduler": "none", "max_sectors_kb": 512, "driver_depth": 128, "queue_keys_given": []}
    d.update(k)
    return d


def test_the_host_runner_sets_only_the_queue_keys_the_scenario_gives(tmp_path):
    """[devices.X] scheduler, wbt_lat_usec and max_sectors_kb go to the loop device's queue when
    the scenario gives them, the scheduler first (switching it re-enables or disables blk-wbt);
    a scenario that gives none leaves the loop driver's own (the engine's era defaults, e.g.
    max_sectors_kb 512, are not the loop device's 1280: the recordings were taken on the latter)."""
    sysfs = _fake_queue(tmp_path)
    wrote = []
    assert real.apply_queue(_dev(), "loop9", sysfs, write=lambda p, v: wrote.append((p, v))) == []
    assert wrote == []
    # the engine's resolved wbt_lat_usec (75000 on a rotational device) is not set unless given
    assert real.apply_queue(_dev(wbt_lat_usec=75000), "loop9", sysfs, write=lambda p, v: wrote.append((p, v))) == []
    assert wrote == []
    dev = _dev(scheduler="mq-deadline", max_sectors_kb=128, wbt_lat_usec=0, queue_keys_given=["scheduler", "max_sectors_kb", "driver_depth", "wbt_lat_usec"])
    assert real.apply_queue(dev, "loop9", sysfs, write=lambda p, v: wrote.append((os.path.relpath(p, sysfs), v))) == \
        ["scheduler", "wbt_lat_usec", "max_sectors_kb"]
    assert wrote == [("loop9/queue/scheduler", "mq-deadline"), ("loop9/queue/wbt_lat_usec", "0"), ("loop9/queue/max_sectors_kb", "128")]
    st = real.queue_state("loop9", sysfs)
    assert st["scheduler"] == "none" and st["schedulers"] == ["none", "mq-deadline", "kyber", "bfq"]
    assert st["wbt_lat_usec"] == 2000 and st["hw_queue_depth"] == 128 and st["max_hw_sectors_kb"] == 1280


def test_read_ahead_kb_is_set_after_the_queue_limits_that_raise_it(tmp_path):
    """6.18's blk_apply_bdi_limits() (block/blk-settings.c, with 6.17's "block: Improve read ahead
    size for rotational devices") raises bdi->ra_pages to twice max_sectors on a rotational
    device without io_opt whenever a queue limit is committed, e.g. by writing max_sectors_kb: the
    host runner's read_ahead_kb 128 written first became 2560 (host-queue-read-msk's trace). So
    set_queue() writes read_ahead_kb after apply_queue()'s keys, and queue_state() reads it back."""
    sysfs = _fake_queue(tmp_path)
    q = tmp_path / "loop9" / "queue"
    (q / "read_ahead_kb").write_text("2560\n")  # losetup's: 2 * max_sectors_kb

    def kernel(p, v):  # the sysfs stores, with blk_apply_bdi_limits()'s rule on a limit's commit
        open(p, "w").write(v + "\n")
        if os.path.basename(p) == "max_sectors_kb":
            ra = int((q / "read_ahead_kb").read_text())
            (q / "read_ahead_kb").write_text(f"{max(ra, 2 * int(v), 128)}\n")
    dev = _dev(max_sectors_kb=1280, queue_keys_given=["max_sectors_kb"])
    assert real.set_queue(dev, "loop9", 128, sysfs, write=kernel) == ["max_sectors_kb"]
    assert real.queue_state("loop9", sysfs)["read_ahead_kb"] == 128
    # the order the runner had (read_ahead_kb, then the keys) ends with the raised window
    kernel(str(q / "read_ahead_kb"), "128")
    real.apply_queue(dev, "loop9", sysfs, write=kernel)
    assert real.queue_state("loop9", sysfs)["read_ahead_kb"] == 2560
    # no device table: read_ahead_kb alone
    assert real.set_queue(None, "loop9", 8192, sysfs, write=kernel) == []
    assert real.queue_state("loop9", sysfs)["read_ahead_kb"] == 8192


def test_a_recordings_read_ahead_kb_is_what_its_device_had():
    """recorded_read_ahead_kb(): read back since set_queue(); before it, the runner's written value,
    raised to twice max_sectors_kb (blk_apply_bdi_limits(), 6.17+) where it wrote max_sectors_kb
    after it on the rotational loop device; a recording that set no queue key had what it wrote."""
    q = {"max_sectors_kb": 1280, "rotational": 1}
    assert real.recorded_read_ahead_kb({"read_ahead_kb": 128, "queue": q, "queue_set": ["scheduler", "max_sectors_kb"]}) == 2560
    assert real.recorded_read_ahead_kb({"read_ahead_kb": 128, "queue": dict(q, max_sectors_kb=128), "queue_set": ["max_sectors_kb"]}) == 256
    assert real.recorded_read_ahead_kb({"read_ahead_kb": 8192, "queue": q, "queue_set": ["max_sectors_kb"]}) == 8192
    assert real.recorded_read_ahead_kb({"read_ahead_kb": 128, "queue": q, "queue_set": ["scheduler"]}) == 128
    assert real.recorded_read_ahead_kb({"read_ahead_kb": 128, "queue": dict(q, rotational=0), "queue_set": ["max_sectors_kb"]}) == 128
    assert real.recorded_read_ahead_kb({"read_ahead_kb": 128, "queue": dict(q, read_ahead_kb=128), "queue_set": ["max_sectors_kb"]}) == 128


def test_the_queue_settings_a_run_set_are_put_back_at_its_cleanup(tmp_path):
    """review8 M5: a loop device used as it is (not made afresh) must not carry this run's
    scheduler, wbt_lat_usec and max_sectors_kb into the next run: saved_queue() reads the keys
    apply_queue() will set and restore_queue() writes them back, the scheduler first."""
    sysfs = _fake_queue(tmp_path)
    dev = _dev(scheduler="mq-deadline", max_sectors_kb=128, wbt_lat_usec=0, queue_keys_given=["scheduler", "max_sectors_kb", "driver_depth", "wbt_lat_usec"])
    saved = real.saved_queue(dev, "loop9", sysfs)
    assert saved == [("scheduler", "none"), ("wbt_lat_usec", 2000), ("max_sectors_kb", 1280)]
    def put(p, v):
        open(p, "w").write(v + "\n")
    real.apply_queue(dev, "loop9", sysfs, write=put)
    assert real.queue_state("loop9", sysfs)["max_sectors_kb"] == 128
    assert real.restore_queue("loop9", saved, sysfs, write=put) == []
    q = tmp_path / "loop9" / "queue"
    assert (q / "scheduler").read_text() == "none\n" and (q / "wbt_lat_usec").read_text() == "2000\n"
    assert (q / "max_sectors_kb").read_text() == "1280\n"
    assert real.saved_queue(_dev(), "loop9", sysfs) == []  # a scenario that gives no key changes nothing
    def fail(p, v):
        raise OSError(22, "Invalid argument")
    assert real.restore_queue("loop9", saved[:1], sysfs, write=fail) == ["queue setting /sys/block/loop9/queue/scheduler = none: [Errno 22] Invalid argument"]


@pytest.mark.parametrize("dev, wbt, match", [
    (_dev(scheduler="cfq", queue_keys_given=["scheduler"]), "2000",
     r"\[devices\.sda\] scheduler = 'cfq': this host's loop device loop9 offers the schedulers none, mq-deadline, kyber, bfq(.|\n)*fix: use one of"),
    (_dev(max_sectors_kb=4096, queue_keys_given=["max_sectors_kb"]), "2000",
     r"\[devices\.sda\] max_sectors_kb = 4096(.|\n)*from 4 \(a page\) to its max_hw_sectors_kb 1280(.|\n)*fix: give a value from 4 to 1280"),
    (_dev(wbt_lat_usec=-1, queue_keys_given=["wbt_lat_usec"]), "2000", r"\[devices\.sda\] wbt_lat_usec = -1: blk-wbt's target latency is an integer of microseconds, 0 to switch it off"),
    (_dev(wbt_lat_usec=2000, queue_keys_given=["wbt_lat_usec"]), None, r"\[devices\.sda\] wbt_lat_usec = 2000: this host's kernel has no .*wbt_lat_usec \(CONFIG_BLK_WBT off\)"),
    (_dev(driver_depth=32, queue_keys_given=["driver_depth"]), "2000", r"\[devices\.sda\] driver_depth = 32: .* takes 128 requests(.|\n)*fix: write driver_depth = 128"),
])
def test_a_queue_setting_the_loop_device_cannot_have_is_refused_by_name(tmp_path, dev, wbt, match):
    sysfs = _fake_queue(tmp_path, wbt=wbt)
    wrote = []
    with pytest.raises(real.RealError, match=match):
        real.apply_queue(dev, "loop9", sysfs, write=lambda p, v: wrote.append(p))
    assert wrote == []


def test_the_plan_names_the_queue_keys_the_scenario_gives(tmp_path):
    plan = memtwin.load(_scn(tmp_path)).doc.plan(None, [])
    d = plan["devices"][0]
    assert d["queue_keys_given"] == [] and d["max_sectors_kb"] == 512 and d["scheduler"] == "mq-deadline"
    plan = memtwin.load(_scn(tmp_path)).doc.plan(None, ["devices.sda.scheduler=none", "devices.sda.max_sectors_kb=128"])
    d = plan["devices"][0]
    assert sorted(d["queue_keys_given"]) == ["max_sectors_kb", "scheduler"] and d["max_sectors_kb"] == 128 and d["scheduler"] == "none"
    plan = memtwin.load(_scn(tmp_path)).doc.plan(None, ["devices.sda.wbt_lat_usec=0"])
    assert plan["devices"][0]["queue_keys_given"] == ["wbt_lat_usec"] and plan["devices"][0]["wbt_lat_usec"] == 0


@needs_host
def test_host_run_gives_the_loop_device_the_scenarios_queue_and_counts_its_requests(tmp_path, capsys):
    """The loop device gets the scenario's scheduler and max_sectors_kb; the JSON reads back what
    the queue had (real.machine.queue) and each step's /sys/block/loopN/stat counters (`disk`): 3 MiB
    read cold in requests of at most 128 KiB take at least 24 of them."""
    before = _leftovers()
    p = tmp_path / "s.toml"
    p.write_text((SMALL % "").replace('read_ahead_kb = 128', 'read_ahead_kb = 128\nscheduler = "mq-deadline"\nmax_sectors_kb = 128\nwbt_lat_usec = 0'))
    out_json = tmp_path / "r.json"
    code, out, err = cli_run(capsys, "real", str(p), "--on", "host", "--json", out_json)
    assert code == 0, err
    assert _leftovers() == before
    v = json.loads(out_json.read_text())["variants"]["default"]
    q = v["real"]["machine"]["queue"]
    assert q["scheduler"] == "mq-deadline" and q["max_sectors_kb"] == 128 and q["hw_queue_depth"] > 0
    assert q.get("wbt_lat_usec", 0) == 0  # blk-wbt off (absent on a kernel without CONFIG_BLK_WBT: refused before)
    assert v["real"]["machine"]["queue_set"] == ["scheduler", "wbt_lat_usec", "max_sectors_kb"]
    grep = v["steps"][0]["disk"]
    assert grep["read_sectors"] >= (3 << 20) >> 9 and grep["read_ios"] >= 24, grep
    assert not [k for k in v["steps"][0]["metrics"] if k.startswith("disk.")]  # the engine's names only
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(ROOT, "schema", "result.schema.json")) as f:
        jsonschema.validate(json.loads(out_json.read_text()), json.load(f))


@needs_host
def test_a_queue_setting_the_host_refuses_leaves_no_loop_device(tmp_path, capsys):
    before = _leftovers()
    p = tmp_path / "s.toml"
    p.write_text((SMALL % "").replace('read_ahead_kb = 128', 'read_ahead_kb = 128\nmax_sectors_kb = 4096'))
    code, out, err = cli_run(capsys, "real", str(p), "--on", "host")
    assert code == 2 and "[devices.sda] max_sectors_kb = 4096" in err and "fix: give a value from 4 to" in err, err
    assert "Traceback" not in err
    # no loop device backed by this process's runs' images is left (others' runs come and go)
    assert _leftovers() == before and not [d for d, b in leftovers._loops() if f"/memtwin-{os.getpid()}-" in b]


def test_loop_worker_waits_from_a_fake_proc(tmp_path):
    """The host runner's run-queue waits of the loop device's kworkers (loopwq23): /proc/PID/schedstat's
    run_delay and pcount before and after, paired by pid, grouped by comm."""
    def proc(threads):
        d = tmp_path / f"proc{len(list(tmp_path.iterdir()))}"
        d.mkdir()
        (d / "self").mkdir()  # not a pid: skipped
        for pid, (comm, delay, n) in threads.items():
            (d / str(pid)).mkdir()
            (d / str(pid) / "comm").write_text(comm + "\n")
            (d / str(pid) / "schedstat").write_text(f"999 {delay} {n}\n")
        (d / "77").mkdir()  # a process that exited while read: no files
        return str(d)

    a = real.kthread_waits(proc({10: ("kworker/u8:1-loop3", 1000, 10), 11: ("kworker/u8:2-writeback", 500, 5),
                                 12: ("ksoftirqd/0", 100, 1), 13: ("python3", 7, 7), 14: ("kworker/u8:4-loop31", 0, 0)}))
    assert sorted(a) == [10, 11, 12, 14] and a[10] == ("kworker/u8:1-loop3", 1000, 10)
    b = real.kthread_waits(proc({10: ("kworker/u8:1-events_unbound", 4000, 14),  # ran loop3's work, then other work
                                 11: ("kworker/u8:2+loop3", 2500, 9),  # running loop3's work now
                                 12: ("ksoftirqd/0", 300, 3), 15: ("kworker/u8:5-loop3", 600, 2),  # new since a
                                 14: ("kworker/u8:4-loop31", 9000, 9),  # another loop device
                                 16: ("kworker/1:0-events", 50, 1)}))
    w = real.loop_worker_waits(a, b, "loop3")
    assert w["loop_worker"] == {"run_delay_s": (3000 + 2000 + 600) / 1e9, "runs": 4 + 4 + 2, "threads": 3}
    assert w["unbound_kworker"] == {"run_delay_s": (3000 + 2000 + 600 + 9000) / 1e9, "runs": 19, "threads": 4}
    assert w["ksoftirqd"] == {"run_delay_s": 200 / 1e9, "runs": 2, "threads": 1}
    # a pid reused by another thread counts from its start; a group with no thread is missing
    c = real.kthread_waits(proc({10: ("ksoftirqd/1", 40, 4)}))
    assert real.loop_worker_waits(a, c, "loop3") == {"ksoftirqd": {"run_delay_s": 40 / 1e9, "runs": 4, "threads": 1}}
    assert real.kthread_waits(str(tmp_path / "none")) == {}


def test_a_steps_own_run_queue_wait_from_schedstat(tmp_path):
    """A step's `sched` (loopwq23): the task thread's /proc/thread-self/schedstat over the step."""
    f = tmp_path / "schedstat"
    f.write_text("1000000000 250000000 40\n")
    a = type("S", (), {"schedstat": real._self_schedstat(str(f))})()
    f.write_text("1500000000 400000000 55\n")
    b = type("S", (), {"schedstat": real._self_schedstat(str(f))})()
    assert real.sched_window(a, b) == {"run_s": 0.5, "run_delay_s": 0.15, "runs": 15}
    assert real._self_schedstat(str(tmp_path / "none")) is None
    assert real.sched_window(a, type("S", (), {"schedstat": None})()) is None
    # the task's nice value at the step's end, when read
    c = type("S", (), {"schedstat": real._self_schedstat(str(f)), "nice": -10})()
    assert real.sched_window(a, c) == {"run_s": 0.5, "run_delay_s": 0.15, "runs": 15, "nice": -10}
    mine = real._self_schedstat()
    assert mine is None or (len(mine) == 3 and mine[0] > 0)


def test_the_runner_records_its_nice_value():
    """`real.sched.nice` (review10 M4): getpriority(2) of the runner, as `nice -n N` sets it, and
    a task's snapshot carries its own thread's nice value."""
    code = "import os, json; os.nice(3); from memtwin import real; print(json.dumps(real._sched())); print(real._nice())"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(real.__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env, check=True).stdout.splitlines()
    base = os.getpriority(os.PRIO_PROCESS, 0)
    got = json.loads(out[0])
    assert got["nice"] == min(base + 3, 19), got
    assert int(out[1]) == got["nice"]
    assert real._sched()["nice"] == base


def _stat(pid, comm, state, nice=0, threads=1, policy=0):
    """A /proc/PID/stat line: fields 3.. after the comm, nice (19), num_threads (20), policy (41)."""
    f = [state] + ["0"] * 38
    f[16], f[17], f[38] = str(nice), str(threads), str(policy)
    return f"{pid} ({comm}) " + " ".join(f) + "\n"


def test_runnable_sample_groups_the_runnable_threads_by_autogroup(tmp_path):
    """real.runnable_sample (autogrp23, review11 H1/L2): every thread in state R less the sampler,
    the scenario's tasks and the loop device's kworkers, grouped into root-level CFS entities as
    kernel/sched/autogroup.c task_wants_autogroup() puts them (one per autogroup at its nice's
    sched_prio_to_weight[], a default-autogroup task or kthread at its own nice, RT not an
    entity); background_window: a step's means."""
    def proc(pid, comm, state, ag=None, **kw):
        d = tmp_path / str(pid)
        (d / "task" / str(pid)).mkdir(parents=True)
        (d / "stat").write_text(_stat(pid, comm, state, **kw))
        (d / "task" / str(pid) / "stat").write_text(_stat(pid, comm, state, **kw))
        (d / "autogroup").write_text(f"/autogroup-{ag[0]} nice {ag[1]}\n" if ag else "")
        return d
    proc(10, "python3", "R", ag=(7, 0))            # the sampler itself (me)
    proc(11, "python3 (x)", "R", ag=(7, 0))        # a scenario task
    proc(12, "make", "R", ag=(7, 0))               # another runnable task of the runner's session
    proc(20, "cc1", "R", ag=(8, 0))
    proc(21, "cc1", "R", ag=(8, 0))                # same autogroup: one entity
    proc(22, "ld", "D", ag=(8, 0))                 # not runnable
    proc(30, "nice", "R", ag=(9, 5))               # an autogroup at nice 5: weight 335
    proc(40, "kworker/u8:3+loop0", "R")            # serves the scenario's device: left out
    proc(41, "kworker/1:1", "R", nice=-20)         # a root-level kthread at nice -20
    proc(42, "migration/0", "R", policy=1)         # SCHED_FIFO: a task, not a CFS entity
    q = proc(50, "qemu", "S", ag=(9, 5), threads=3)
    for tid, st in ((51, "R"), (52, "S")):
        (q / "task" / str(tid)).mkdir()
        (q / "task" / str(tid) / "stat").write_text(_stat(tid, "qemu", st))
    n = real.runnable_sample([11], proc=str(tmp_path), loop_name="loop0", own_group=(7, 0), me=10)
    assert n == {"tasks": 7, "entities": round((1024 + 335 + 1024) / 1024, 3), "weight": round((1024 + 335 + 88761) / 1024, 3),
                 "groups": 3, "own": 1, "loop": 1}, n
    off = real.runnable_sample([11], proc=str(tmp_path), loop_name="loop0", own_group=None, autogroup=False, me=10)
    assert off["tasks"] == 7 and off["groups"] == 6 and off["own"] == 0, "autogroup off: every CFS task is an entity"
    assert real.runnable_sample([], proc=str(tmp_path / "none")) is None, "unreadable: no sample, not a guess"
    assert real.autogroup_of(20, proc=str(tmp_path)) == (8, 0) and real.autogroup_of(41, proc=str(tmp_path)) is None
    s = {"tasks": 0, "entities": 0.0, "weight": 0.0, "groups": 0, "own": 0, "loop": 0}
    samples = [(1.0, dict(s, tasks=1, entities=1.0, groups=1)), (2.0, dict(s, tasks=3, entities=2.0, groups=2, own=1)),
               (3.0, dict(s, tasks=2, entities=0.5, groups=1, loop=2)), (9.0, dict(s, tasks=50))]
    assert real.background_window(samples, 1.0, 3.0, 2) == {
        "background_runnable": 2.0, "background_entities": 1.167, "background_weight": 0.0, "background_groups": 1.333, "background_own_group": 0.333,
        "background_loop": 0.667, "background_samples": 3, "background_interval_s": 1.0, "background_all_busy": 0.667}
    assert real.background_window(samples, 4.0, 5.0, 2) is None
    assert real.background_window(samples, 9.0, 9.0, 2)["background_interval_s"] is None
    # hog23b: samples carrying the sampler's own CPU time give its CPU over the step's samples
    timed = [(t, dict(n, cpu_s=c)) for (t, n), c in zip(samples, (0.5, 0.7, 0.95, 2.0))]
    bw = real.background_window(timed, 1.0, 3.0, 2)
    assert bw["background_sampler_cpu_s"] == 0.45 and bw["background_runnable"] == 2.0, bw
    assert "background_sampler_cpu_s" not in real.background_window(timed, 9.0, 9.0, 2), "one sample: no span"


def _run_task_without_a_kernel(tmp_path, monkeypatch, others_done):
    """real.run_task() for a two-step task `hog` beside a task `cp`, with the kernel's parts
    replaced (no memcg, no snapshot, ops that do nothing), `cp` over or not; returns the steps and
    how many folio scans ran."""
    cgdir = tmp_path / "A"
    cgdir.mkdir()
    scans = []
    monkeypatch.setattr(real, "_write", lambda p, v: None)
    monkeypatch.setattr(real, "Snap", lambda cg, d: object())
    monkeypatch.setattr(real, "step_metrics", lambda cg, a, b, files: ({"elapsed_s": 0.0}, {}))
    monkeypatch.setattr(real, "step_view", lambda res, ops, mode: ({}, 0))
    monkeypatch.setattr(real, "do_op", lambda op, cg, d, *a: d)
    monkeypatch.setattr(real, "memcg_folios", lambda ino, a, b: scans.append(ino) or {"file": {}, "file_pages": 0})
    monkeypatch.setattr(real.os, "access", lambda p, m: True)
    hog = {"name": "hog", "cgroup": "A", "ops": [{"op": "touch", "step": "hog 1"}, {"op": "touch", "step": "hog 2"}]}
    cp = {"name": "cp", "cgroup": "A", "ops": [{"op": "cp", "step": "copy"}]}
    plan = {"tasks": [cp, hog], "record_folios": True}
    if others_done:
        real.mark_done(str(tmp_path), "cp")
    steps = real.run_task(hog, plan, real.Cg("v1", str(tmp_path), str(tmp_path)), {}, str(tmp_path), {}, 0)
    return steps, scans


def test_no_folio_scan_while_another_task_of_the_run_is_not_over(tmp_path, monkeypatch):
    # hog23b (issue 23): memcg_folios() takes ~1 s of a CPU (the quiet traces of host-stall-hog-swap,
    # lab/validation/trace-hog-swap-1130/hog23b/); between hog 1 and hog 2 it put a 1.04-1.25 s gap
    # before the second touch and competed with the copy's and the probe's timed steps. With the
    # copy not over, neither of the hog's steps scans, and each says why.
    steps, scans = _run_task_without_a_kernel(tmp_path, monkeypatch, others_done=False)
    assert [s["name"] for s in steps] == ["hog 1", "hog 2"]
    assert scans == []
    for s in steps:
        assert "folios" not in s and "folio_scan_s" not in s
        assert "cp" in s["folios_skipped"] and "not over" in s["folios_skipped"]


def test_the_folio_scan_runs_once_the_other_tasks_are_over_and_records_its_time(tmp_path, monkeypatch):
    steps, scans = _run_task_without_a_kernel(tmp_path, monkeypatch, others_done=True)
    assert len(scans) == 2
    for s in steps:
        assert "folios_skipped" not in s and s["folios"]["file_pages"] == 0
        assert s["folio_scan_s"] >= 0


def test_folio_scan_blocked_names_the_tasks_not_over(tmp_path):
    real.mark_done(str(tmp_path), "probe")
    why = real.folio_scan_blocked(["cp", "probe"], str(tmp_path))
    assert why is not None and "cp" in why and "probe" not in why
    assert real.folio_scan_blocked([], str(tmp_path)) is None
    assert real.folio_scan_blocked(["probe"], str(tmp_path)) is None


# ---------------------------------------------------------------- review52 L5: a signal right after a making


def _host_run(tmp_path, monkeypatch):
    """A HostRun whose memory hierarchy's root is a tmp directory (v1) and whose scratch parent is
    another, made without root (nothing of the host's is touched)."""
    cg, parent = tmp_path / "cgroup", tmp_path / "var"
    cg.mkdir()
    parent.mkdir()
    monkeypatch.setattr(real.os, "geteuid", lambda: 0)
    monkeypatch.setattr(real, "find_memory_controller", lambda: ("v1", str(cg)))
    plan = {"devices": [], "cgroups": [{"path": "/A", "max": None, "high": None, "low": None, "min": None}],
            "files": [], "tasks": [], "machine": {}}
    run = real.HostRun(plan, str(parent))
    monkeypatch.undo()
    return run, cg, parent


@pytest.mark.parametrize("which", ["scratch", "top", "cgroup A"])
def test_a_signal_right_after_setup_makes_a_directory_leaves_nothing(tmp_path, monkeypatch, which):
    """review52 L5: setup() set made_scratch / made_top on the line after each mkdir, so a SIGINT
    between them left the scratch directory or the run's cgroup (cleanup() took it for never
    made). Each mkdir interrupted right after it is done: cleanup(), as run_host() calls it,
    leaves nothing."""
    run, cg, parent = _host_run(tmp_path, monkeypatch)
    target = {"scratch": run.scratch, "top": run.top, "cgroup A": os.path.join(run.top, "A")}[which]
    real_mkdir = os.mkdir

    def mkdir_then_interrupted(p, *a, **kw):
        real_mkdir(p, *a, **kw)
        if str(p) == target:
            raise KeyboardInterrupt

    monkeypatch.setattr(real.os, "mkdir", mkdir_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        run.setup()
    monkeypatch.undo()
    assert os.path.isdir(target)
    assert run.cleanup() == []
    assert os.listdir(cg) == [] and os.listdir(parent) == []


def _ran(ran, mounts, cmd):
    """subprocess.run() standing in for the host's: the command noted, an unmounted mount gone
    from the mount table (`mounts`, what leftovers._mountinfo() returns)."""
    ran.append(cmd)
    if cmd[0] == "umount":
        mounts[:] = [m for m in mounts if m[0] != cmd[-1]]
    return subprocess.CompletedProcess(cmd, 0, "", "")


def test_cleanup_removes_a_mount_and_a_loop_device_made_before_their_registration(tmp_path, monkeypatch):
    """review52 L5: a mount(8) or losetup that a signal interrupts (subprocess.run() kills it and
    raises; the mount or the attach may stand), or that the signal follows before
    `self.mounted` / `self.loop` hold it: cleanup() finds them below the scratch directory
    (/proc/self/mountinfo) and by their backing file, as `memtwin lab clean` does, deepest mount
    first, and nothing of another's."""
    run, cg, parent = _host_run(tmp_path, monkeypatch)
    os.mkdir(run.scratch)
    run.made_scratch = True
    mnt, tmpfs, dbg = (os.path.join(run.scratch, p) for p in ("mnt", "mnt/tmp", "debugfs"))
    run.mounted = [dbg]  # registered: unmounted as before
    mounts = [("/", "ext4", "rw"), (mnt, "ext4", "rw"), (tmpfs, "tmpfs", "rw"), (dbg, "debugfs", "rw"), (run.scratch + "-other/mnt", "ext4", "rw")]
    monkeypatch.setattr(leftovers, "_mountinfo", lambda: list(mounts))
    monkeypatch.setattr(leftovers, "_loops", lambda: [("/dev/loop3", "/var/tmp/other/disk.img"),
                                                      ("/dev/loop9", os.path.join(run.scratch, "disk.img"))])
    ran = []
    monkeypatch.setattr(real.subprocess, "run", lambda cmd, **kw: _ran(ran, mounts, cmd))
    assert run.cleanup() == []
    monkeypatch.undo()
    # the unregistered tmpfs first (before swapoff, review54 L5), then the others deepest first
    assert ran == [["umount", tmpfs], ["umount", mnt], ["umount", dbg], ["losetup", "-d", "/dev/loop9"]], ran
    assert not os.path.exists(run.scratch)


def test_a_signal_held_over_a_making_acts_after_its_registration():
    """real.signals_held(): SIGINT arriving between a fork (or Popen) and the line that puts the
    child's pid in HostRun.children acts at the block's end, after that line (review52 L5);
    unheld, it acts before it."""
    def on_signal(signum, _frame):
        raise real.Interrupted(signal.Signals(signum).name)

    old = signal.signal(signal.SIGINT, on_signal)
    try:
        for held in (False, True):
            registered = []
            with pytest.raises(real.Interrupted):
                with (real.signals_held() if held else contextlib.nullcontext()):
                    # to this thread (a signal to the process goes to any thread that does not block it:
                    # the runner has none where it holds them, a test process may have)
                    signal.pthread_kill(threading.get_ident(), signal.SIGINT)
                    for _ in range(100):  # the interpreter checks for signals on a loop's jump back
                        pass
                    registered.append("child")
            assert registered == (["child"] if held else []), held
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.signal(signal.SIGINT, old)


def test_no_signal_interrupts_the_host_runs_cleanup(monkeypatch):
    """run_host() ignores SIGINT and SIGTERM while cleanup() runs; SIGHUP too (cli.main() turns it
    into Terminated, which would stop the cleanup half-way: review52 L5's rule, whatever signal
    arrives); each handler is put back after."""
    seen = {}

    class FakeRun:
        def __init__(self, plan, parent):
            pass

        def setup(self):
            raise real.RealError("setup failed")

        def cleanup(self):
            seen.update({s: signal.getsignal(s) for s in real.HELD_SIGNALS})
            return []

    monkeypatch.setattr(real, "unsupported", lambda plan: None)
    monkeypatch.setattr(real, "refuse_before_running", lambda plan: None)
    monkeypatch.setattr(real, "HostRun", FakeRun)
    before = {s: signal.getsignal(s) for s in real.HELD_SIGNALS}
    with pytest.raises(real.RealError, match="setup failed"):
        real.run_host({})
    assert seen == {s: signal.SIG_IGN for s in real.HELD_SIGNALS}
    assert {s: signal.getsignal(s) for s in real.HELD_SIGNALS} == before


def test_trace_folios_leaves_a_trace_instance_that_was_there(tmp_path, monkeypatch):
    """review54 L1: _trace_folios() registered each instance in self.traces before its mkdir and
    kept it there when the mkdir failed, so a `memtwin-<id>-<kind>` instance already there
    (EEXIST: another's) was removed by cleanup's _untrace(). Now the failed mkdir unregisters it:
    _untrace() removes the run's own ("added") and leaves the other ("deleted")."""
    run, cg, parent = _host_run(tmp_path, monkeypatch)
    os.mkdir(run.scratch)
    run.loop = "/dev/loop9"
    tracefs = os.path.join(run.scratch, "tracefs")
    theirs = os.path.join(tracefs, "instances", f"memtwin-{run.id}-deleted")

    def mount(cmd, **kw):  # the tracefs "mounted": its instances directory, another's instance in it
        os.makedirs(theirs)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    real_open = open
    monkeypatch.setattr(real, "folio_events_supported", lambda tracefs=None: None)
    monkeypatch.setattr(real.subprocess, "run", mount)
    monkeypatch.setattr(real, "open", lambda p, *a, **kw: io.StringIO("7:9\n") if p == "/sys/block/loop9/dev" else real_open(p, *a, **kw),
                        raising=False)
    # the run's own instance takes no control-file write (a plain directory stands for it)
    monkeypatch.setattr(real, "_write", lambda p, v: None)
    with pytest.raises(FileExistsError):
        run._trace_folios()
    monkeypatch.undo()
    assert list(run.traces) == ["added"]
    assert run._untrace() == []
    assert os.listdir(os.path.join(tracefs, "instances")) == [f"memtwin-{run.id}-deleted"]


def test_cleanup_unmounts_an_unregistered_tmpfs_before_swapoff(tmp_path, monkeypatch):
    """review54 L5: cleanup() unmounts the scenario's tmpfs mounts before swapoff (their files'
    swapped-out pages are freed with them, where swapoff would read them back into the memcg),
    but one made before its registration was left to the depth-sorted loop after _swapoff().
    Now every tmpfs below the scratch directory goes first, registered or not, then swapoff,
    then the other mounts deepest first."""
    run, cg, parent = _host_run(tmp_path, monkeypatch)
    os.mkdir(run.scratch)
    run.made_scratch = True
    mnt, tmp1, tmp2, tracefs = (os.path.join(run.scratch, p) for p in ("mnt", "mnt/a", "mnt/b/c", "tracefs"))
    run.mounted = [mnt, tmp1, tracefs]
    run.tmpfs_dirs = [tmp1]  # registered; tmp2 mounted, not registered
    run.swapfile = os.path.join(mnt, "swapfile")
    mounts = [("/", "ext4", "rw"), (mnt, "ext4", "rw"), (tmp1, "tmpfs", "rw"), (tmp2, "tmpfs", "rw"), (tracefs, "tracefs", "rw"),
              (run.scratch + "-other/mnt/x", "tmpfs", "rw")]
    monkeypatch.setattr(leftovers, "_mountinfo", lambda: list(mounts))
    monkeypatch.setattr(leftovers, "_loops", lambda: [])
    ran = []
    monkeypatch.setattr(real.subprocess, "run", lambda cmd, **kw: _ran(ran, mounts, cmd))
    monkeypatch.setattr(run, "_swapoff", lambda: ran.append(["swapoff"]) or [])
    assert run.cleanup() == []
    monkeypatch.undo()
    assert ran == [["umount", tmp1], ["umount", tmp2], ["swapoff"], ["umount", tracefs], ["umount", mnt]], ran


def test_the_run_queue_sampler_started_under_held_signals_unholds_them():
    """review54 L5: HostRun.run() starts the sampler under signals_held() (its pid registered for
    cleanup() before a signal acts); the mask is inherited across exec, so sampler_main() puts
    SIGINT, SIGTERM and SIGHUP back (unhold_signals(), as task_main() does), and it samples and
    reports as before."""
    held = {int(s) for s in real.HELD_SIGNALS}
    with real.signals_held():
        p = subprocess.Popen([sys.executable, "-S", "-c", real._SAMPLER_MAIN, os.path.dirname(os.path.abspath(real.__file__))],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        p.stdin.write((json.dumps({"pids": [], "loop": "", "own": None, "autogroup": False, "parent": os.getpid()}) + "\n").encode())
        p.stdin.flush()
        blocked = None
        for _ in range(400):  # until its first sample is taken (sampler_main has unheld them by then, or never will)
            with open(f"/proc/{p.pid}/status") as f:
                blk = int(next(x for x in f if x.startswith("SigBlk:")).split()[1], 16)
            blocked = {s for s in held if blk >> (s - 1) & 1}
            if not blocked:
                break
            time.sleep(0.05)
        assert blocked == set(), f"the sampler still blocks {sorted(signal.Signals(s).name for s in blocked)}"
        time.sleep(20 * real.RUNQ_SAMPLE_S)  # a few samples
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    got = json.loads(out)
    assert p.returncode == 0 and got["samples"] and got["cpu_s"] is not None, err
