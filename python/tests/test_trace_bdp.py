"""lab/validation/trace_bdp.py --calls: the per-call comparison of balance_dirty_pages traces
(no run, no root)."""
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "lab", "validation", "trace_bdp.py")

KERNEL = """\
 python3-6097 [000] ..... 20473.097062: balance_dirty_pages: bdi 7:0: limit=65536 setpoint=57344 dirty=49466 wb_setpoint=47664 wb_dirty=49472 dirty_ratelimit=50684 task_ratelimit=93596 dirtied=98 dirtied_pause=98 paused=0 pause=0 period=4 think=4 cgroup_ino=1
 python3-6097 [000] ..... 20473.097355: balance_dirty_pages: bdi 254:0: limit=65536 setpoint=57344 dirty=1 wb_setpoint=1 wb_dirty=1 dirty_ratelimit=1 task_ratelimit=1 dirtied=1 dirtied_pause=1 paused=0 pause=40 period=40 think=0 cgroup_ino=1
 python3-6097 [001] ..... 20473.097642: balance_dirty_pages: bdi 7:0: limit=65536 setpoint=57344 dirty=49651 wb_setpoint=47664 wb_dirty=49664 dirty_ratelimit=50684 task_ratelimit=90328 dirtied=98 dirtied_pause=98 paused=0 pause=8 period=4 think=-4 cgroup_ino=1
 python3-6097 [001] ..... 20473.109042: balance_dirty_pages: bdi 7:0: limit=65536 setpoint=57344 dirty=49760 wb_setpoint=47664 wb_dirty=49760 dirty_ratelimit=50684 task_ratelimit=88496 dirtied=98 dirtied_pause=98 paused=0 pause=12 period=8 think=-4 cgroup_ino=1
"""
ENGINE = """\
engine 8.760477: balance_dirty_pages: bdi engine: limit=65536 setpoint=57344 dirty=63041 wb_setpoint=57343 wb_dirty=63041 dirty_ratelimit=71912 task_ratelimit=45436 dirtied=140 dirtied_pause=140 paused=0 pause=16 period=12 think=-4
engine 8.780238: balance_dirty_pages: bdi engine: limit=65536 setpoint=57344 dirty=62925 wb_setpoint=57343 wb_dirty=62925 dirty_ratelimit=71912 task_ratelimit=46908 dirtied=140 dirtied_pause=140 paused=0 pause=0 period=8 think=4
"""


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, "--calls", *args], capture_output=True, text=True)


def test_calls_puts_the_kernels_loop_device_calls_beside_the_engines(tmp_path):
    k, e = tmp_path / "kernel.txt", tmp_path / "engine.txt"
    k.write_text(KERNEL)
    e.write_text(ENGINE)
    r = run(str(k), str(e))
    assert r.returncode == 0, r.stderr
    rows = {line[:34].strip(): line[34:].split() for line in r.stdout.splitlines()[1:]}
    # The kernel's 3 calls of loop device 7:0 (not 254:0's), 2 of them slept: 8 + 12 ms of
    # pauses for 4 + 8 ms of periods; the engine's 2 calls, 1 slept.
    assert rows["calls"] == ["3", "2"]
    assert rows["pauses (pause > 0)"] == ["2", "1"]
    assert rows["pause_ms sum"] == ["20", "16"]
    assert rows["period_ms sum (pauses)"] == ["12", "12"]
    assert rows["think: commonest (count)"] == ["-4(2)", "4(1)", "-4(1)", "4(1)"]
    assert rows["dirty_ratelimit: first/mean/last"] == ["50684/50684/50684", "71912/71912/71912"]


def test_calls_refuses_a_missing_file_or_one_without_events(tmp_path):
    r = run(str(tmp_path / "nope.txt"))
    assert r.returncode != 0 and "nope.txt: no such file" in r.stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("nothing here\n")
    r = run(str(empty))
    assert r.returncode != 0 and "no balance_dirty_pages events" in r.stderr
    assert r.stdout == ""


def test_limits_problem_refuses_a_run_throttled_against_other_sysctls(tmp_path):
    """trace_bdp.limits_problem(): with the runner's vm.dirty_bytes 256M and
    vm.dirty_background_bytes 128M (thresh 65536, background 32768 pages: free-run ceiling
    49152), the tracepoint's `2 * setpoint - limit` is 49152 at every event and the first
    limit 65536; a run whose events show another ceiling (the sysctls written by someone else:
    limit=116565 setpoint=90823 seen on the host) or start at another limit is refused."""
    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    import trace_bdp
    notes = ["vm sysctls for the run: vm.dirty_bytes = 268435456, vm.dirty_background_bytes = 134217728 (put back after it)"]
    good = tmp_path / "good.txt"
    good.write_text(KERNEL)
    assert trace_bdp.limits_problem(trace_bdp.calls(str(good)), notes) == ""
    assert trace_bdp.limits_problem(trace_bdp.calls(str(good)), []) == "", "no bytes set: nothing to check"
    bad = tmp_path / "bad.txt"
    bad.write_text(KERNEL.replace("limit=65536 setpoint=57344", "limit=116565 setpoint=90823", 1))
    why = trace_bdp.limits_problem(trace_bdp.calls(str(bad)), notes)
    assert why.startswith("1 of 3 events throttled against another free-run ceiling") and "(freerun 65081)" in why
    late = tmp_path / "late.txt"
    late.write_text(KERNEL.replace("limit=65536 setpoint=57344", "limit=65538 setpoint=57345", 1))
    assert "first event's limit is 65538 pages, not the 65536" in trace_bdp.limits_problem(trace_bdp.calls(str(late)), notes)
