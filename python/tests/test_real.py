"""memtwin real / validate / lab: the real-kernel lab. Host runs need root and a writable
memory controller; they skip with the reason otherwise (on the project's machines they run)."""

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
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


def test_plan_is_the_engines_expanded_op_list(tmp_path):
    plan = memtwin.load(_scn(tmp_path)).doc.plan(None, [])
    ops = plan["tasks"][0]["ops"]
    # grep over 2 files, cp of 2 files = read + write each
    assert [(o["op"], o.get("file")) for o in ops] == [
        ("read", "/data/a/f1"), ("read", "/data/a/f2"),
        ("read", "/data/a/f1"), ("write", "/data/b/f1"), ("read", "/data/a/f2"), ("write", "/data/b/f2")]
    assert ops[0]["scan"] is True and ops[3]["create"] is True and ops[3]["length"] == 2 << 20
    assert plan["cgroups"] == [{"path": "A", "max": 100 << 20, "high": None, "low": 0, "min": 0, "swap_max": None, "memsw_max": None,
                               "swappiness": None}]
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
    assert code == 2 and "op `mmap` (anonymous memory) is not carried out by the host runner" in err and "--on qemu" in err
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
    assert grep["metrics"]["read_bytes"] == 3 << 20  # cold files, read once
    assert grep["resident_pages"] == {"/data/a/f1": 512, "/data/a/f2": 256}
    assert cp["metrics"]["read_bytes"] == 0  # cached by grep, same memcg, loose limit
    assert cp["resident_pages"]["/data/b/f1"] == 512
    assert 3 << 20 <= grep["metrics"]["memcg.usage_bytes"] < 8 << 20
    assert doc["variants"]["default"]["real"]["on"] == "host"
    disk = doc["variants"]["default"]["real"]["machine"]["disk"]
    if os.path.exists("/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device"):
        # the scenario's device bandwidth, as the QEMU lab's virtio disk has it
        assert "throttled to read" in disk and "blkio.throttle" in disk, disk
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(ROOT, "schema", "result.schema.json")) as f:
        jsonschema.validate(doc, json.load(f))


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
    assert 6 << 20 <= cp["metrics"]["memcg.file_bytes"] < (6 << 20) + (64 << 10)  # + directory blocks
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
        with open(os.path.join(VAL, spec["recorded"])) as f:
            doc = json.load(f)
        for v, res in doc["variants"].items():
            assert res["real"]["kernel"] and res["real"]["date"], p


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


@pytest.mark.parametrize("source", ["seed002", "mixed", "mount-ext4"])
def test_ops_no_runner_carries_out_are_refused_without_sending_the_user_elsewhere(tmp_path, monkeypatch, source):
    # seed 002's stutter needs post/wait and the mmap probe; "mixed" has anonymous ops (the
    # guest has them) before the probe (no runner has it); an ext4 mount neither runner makes.
    # Neither runner may send the user to the other one, and nothing may start on the host.
    from memtwin import qemu
    _no_host_run(monkeypatch)
    if source == "seed002":
        plan = memtwin.load(os.path.join(ROOT, "scenarios", "wip", "seed002-stutter.toml")).doc.plan("zlc", [])
    else:
        p = tmp_path / "s.toml"
        text = ANON_AND_PROBE if source == "mixed" else (
            '[scenario]\nname = "m"\n[machine]\nram = "1G"\n[tasks.t]\nops = [{ op = "mount", path = "/mnt/x", fs = "ext4", mkdir = true }]\n')
        p.write_text(text)
        plan = memtwin.load(str(p)).doc.plan(None, [])
    with pytest.raises(real.RealError) as host:
        real.run_host(plan)
    assert "neither --on host nor --on qemu" in str(host.value) and "use --on qemu" not in str(host.value)
    if source != "mount-ext4":
        with pytest.raises(real.RealError) as guest:
            qemu.check_plan(plan)
        assert "--on host does not carry it out either" in str(guest.value) and "use --on host" not in str(guest.value)


def test_a_tmpfs_mount_is_sent_to_qemu_before_anything_starts(tmp_path, monkeypatch):
    _no_host_run(monkeypatch)
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "m"\n[machine]\nram = "1G"\n[tasks.t]\nops = [{ op = "mount", path = "/mnt/x", fs = "tmpfs", mkdir = true }]\n')
    with pytest.raises(real.RealError, match=r"(?s)op `mount` \(tmpfs at /mnt/x\).*use --on qemu"):
        real.run_host(memtwin.load(str(p)).doc.plan(None, []))


def test_swap_is_refused_before_anything_starts(tmp_path, monkeypatch):
    _no_host_run(monkeypatch)
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\nname = "m"\n[machine]\nram = "1G"\nswap = "256M"\n[devices.sda]\nread_bw = "100M"\n[tasks.t]\nops = [{ op = "sleep", duration = "1s" }]\n')
    with pytest.raises(real.RealError, match=r"\[machine\] swap = 268435456 bytes: the host runner does not set up swap"):
        real.run_host(memtwin.load(str(p)).doc.plan(None, []))


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
    return {"scratch": scratch, "cgroups": cgroups, "loops": loops, "mounts": mounts}


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
        time.sleep(1.5)  # into the sleep step: the task is in its memcg
        tasks = [t for cg in made["cgroups"] for dp, _, _ in os.walk(cg) for t in open(os.path.join(dp, "cgroup.procs")).read().split()]
        assert tasks, "the task never joined its memcg"
        # while it runs, lab clean leaves it alone
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", parent)
        assert code == 0 and f"left alone: {os.path.basename(made['scratch'][0])}: its owner, pid {p.pid} running" in out, out + err
        assert _made_by_run(parent) == made and p.poll() is None
        p.kill()
        p.wait()
        left = _made_by_run(parent)
        assert len(left["scratch"]) == 1 and len(left["cgroups"]) == 1 and len(left["loops"]) == 1 and len(left["mounts"]) == 1, left
        name = os.path.basename(left["scratch"][0])
        assert os.path.isdir(os.path.join(left["cgroups"][0], "A", "B"))
        # the task processes die with their parent (PR_SET_PDEATHSIG): the memcgs empty out
        deadline = time.time() + 10
        while time.time() < deadline and any(open(os.path.join(dp, "cgroup.procs")).read().split()
                                             for dp, _, _ in os.walk(left["cgroups"][0])):
            time.sleep(0.05)
        code, out, err = cli_run(capsys, "lab", "doctor", "--scratch", parent)
        assert f"{name} (pid {p.pid} gone):" in out, out
        for what in (f"cgroup {left['cgroups'][0]} (and 2 below it)", f"mount {left['mounts'][0]}",
                     f"loop device {left['loops'][0]} (backing file {left['scratch'][0]}/disk.img)",
                     f"scratch directory {left['scratch'][0]}"):
            assert what in out, (what, out)
        code, out, err = cli_run(capsys, "lab", "clean", "--scratch", parent)
        assert code == 0, out + err
        for what in (f"removed: mount {left['mounts'][0]}", f"removed: loop device {left['loops'][0]}",
                     f"removed: scratch directory {left['scratch'][0]}", f"removed: cgroup {left['cgroups'][0]}"):
            assert what in out, (what, out)
        assert _made_by_run(parent) == {"scratch": [], "cgroups": [], "loops": [], "mounts": []}
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
