"""The recording scripts of lab/validation (trace-idle-wait-1130/bt_recording.sh and the wrappers
that call it, trio-v1045/quiet-trio.sh), run against stand-ins for the host's tools: `timeout`,
`flock`, `unshare`, `nice` pass their command on, `mount` does nothing, `bpftrace` prints its
"Attaching" line and waits for SIGINT, `python3 -m memtwin.cli` (the runner) writes the --json
file it is given (any other python3 is the real one). No lock is taken, nothing is mounted,
traced or recorded; what is checked is where the script puts its files and what it hands the
runner and bpftrace."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BT_RECORDING = os.path.join(ROOT, "lab/validation/trace-idle-wait-1130/bt_recording.sh")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("realpath") is None,
                                reason="no bash or realpath")

# each stand-in drops the options the script gives the real tool and runs what follows
PASS_ON = {"timeout": 1, "flock": 3, "unshare": 3, "nice": 2}


def _stand_ins(tmp_path):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool, n in PASS_ON.items():
        (bin_ / tool).write_text(f'#!/bin/sh\nshift {n}\nexec "$@"\n')
    (bin_ / "mount").write_text("#!/bin/sh\nexit 0\n")
    # bpftrace: SIGINT is ignored in a non-interactive shell's background job, so the stand-in
    # sets its handler itself, as bpftrace does
    (bin_ / "bpftrace").write_text(
        f"#!{sys.executable}\n"
        "import signal, sys, time\n"
        "print('Attaching 1 probe...', sys.argv[1:], flush=True)\n"
        "signal.signal(signal.SIGINT, lambda *_: sys.exit(0))\n"
        "time.sleep(60)\n"
        "sys.exit(1)\n")
    (bin_ / "python3").write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "a = sys.argv[1:]\n"
        "if a[:2] != ['-m', 'memtwin.cli']:\n"
        f"    os.execv({sys.executable!r}, [{sys.executable!r}] + a)\n"
        "print('runner', os.getcwd(), *a)\n"
        "open(a[a.index('--json') + 1], 'w').write('{\"variants\": {\"default\": {\"real\": {\"machine\": {\"host_cost\": {}}}}}}')\n")
    for f in bin_.iterdir():
        f.chmod(0o755)
    return dict(os.environ, PATH=f"{bin_}:{os.environ['PATH']}")


def _layout(out):
    assert sorted(os.listdir(out)) == ["bt.out", "load.txt", "real.log", "traced.json"]
    load = (out / "load.txt").read_text().split("\n")
    # loadavg and time before, the runner's status, loadavg and time after
    assert len(load) == 6 and load[2] == "rc=0" and len(load[0].split()) == 5 and len(load[3].split()) == 5, load
    return (out / "bt.out").read_text(), (out / "real.log").read_text()


def test_bt_recording_makes_a_relative_out_where_it_is_called(tmp_path):
    """review54 L2: bt_recording.sh cds to the repository's top before it made OUT, so a relative
    OUT (and bt_rounds.sh's relative OUTDIR, whose all.log stays where it is called) landed below
    the repository. Called from outside it with a relative OUT: every file in the caller's OUT,
    nothing in the repository; the runner runs at the repository's top on scenarios/DIR/SCN.toml."""
    env = _stand_ins(tmp_path)
    name = f"tidy54-out-{os.getpid()}"
    stray = os.path.join(ROOT, name)
    bt = os.path.join(ROOT, "lab/validation/trace-idle-wait-1130/preempt-1201s/bound.bt")
    env.update(OUT=name, SCN="host-queue-rw-msk", VARIANT="msk-1280")
    try:
        r = subprocess.run(["bash", BT_RECORDING, bt], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert not os.path.exists(stray), f"OUT={name} made below the repository"
        bt_out, log = _layout(tmp_path / name)
        assert bt in bt_out
        assert log.split()[:7] == ["runner", ROOT, "-m", "memtwin.cli", "real", "scenarios/validation/host-queue-rw-msk.toml", "--on"]
        assert f"--json {tmp_path / name}/traced.json" in log
    finally:
        shutil.rmtree(stray, ignore_errors=True)


def test_vmp_slice_run_is_bt_recording_with_slice_bt(tmp_path):
    """review54 L7: vmp-slice-1201/run.sh, a copy of the recorder, is a call of bt_recording.sh
    with its slice.bt, giving the layout its recordings have (load.txt, real.log, traced.json,
    bt.out) and the scenario from scenarios/validation as before."""
    env = _stand_ins(tmp_path)
    env.update(OUT="s9", SCN="host-queue-rw-msk", VARIANT="msk-1280")
    here = os.path.join(ROOT, "lab/validation/vmp-slice-1201")
    r = subprocess.run(["bash", os.path.join(here, "run.sh")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    bt_out, log = _layout(tmp_path / "s9")
    assert os.path.join(here, "slice.bt") in bt_out
    assert "scenarios/validation/host-queue-rw-msk.toml --on host --variant msk-1280" in log
    # the recordings in the repository have that layout (bt.out compressed there; summaries written beside it later)
    for s in ("s1-rwmsk-msk1280", "s2-rwmsk-msk1280"):
        assert {"bt.out.xz", "load.txt", "real.log", "traced.json"} <= set(os.listdir(os.path.join(here, s)))


def test_quiet_trio_runs_this_repositorys_scenarios_wherever_they_are(tmp_path):
    """review54 L6: quiet-trio.sh did `cd /work/main` and named each scenario's directory
    (validation vs validation-pending) itself. Now, called from anywhere with a relative OUTDIR,
    it runs this repository's runner at its top on each scenario where it is (scenarios/validation*/
    by name), its files in the caller's OUTDIR: NAME-SETr.json, NAME-r.out and rec.log."""
    env = _stand_ins(tmp_path)
    env["ROUNDS"] = "1"
    script = os.path.join(ROOT, "lab/validation/trio-v1045/quiet-trio.sh")
    r = subprocess.run(["bash", script, "out", "t1"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    names = ("host-ext4-seq-tight-512m-ra8192", "host-ext4-seq-tight-1g-ra8192", "host-ext4-tight-ra8192")
    out = tmp_path / "out"
    assert sorted(os.listdir(out)) == sorted(["rec.log"] + [f"{n}-t11.json" for n in names] + [f"{n}-1.out" for n in names])
    for n in names:
        where = [d for d in ("validation", "validation-pending") if os.path.exists(os.path.join(ROOT, "scenarios", d, n + ".toml"))]
        assert len(where) == 1
        assert (out / f"{n}-1.out").read_text().split() == ["runner", ROOT, "-m", "memtwin.cli", "real", f"scenarios/{where[0]}/{n}.toml",
                                                            "--on", "host", "--variant", "all", "--json", str(out / f"{n}-t11.json")]
    log = (out / "rec.log").read_text().split("\n")
    assert [x.split()[1:4] for x in log[0:9:3]] == [[n, "round", "1"] for n in names]
    assert all("rc=0" in x for x in log[1:9:3]) and all(x.startswith("  reclaim: spans 0") for x in log[2:9:3]), log
    assert log[9] == "DONE-TRIO"
