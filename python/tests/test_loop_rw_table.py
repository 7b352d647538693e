"""What lab/measurements/loop-rw/README.md and the engine's unit test
`a_read_behind_the_flusher_s_writes_is_served_after_them_loop_process_work_6_18` take from the traced rounds
(lab/measurements/loop_rw_trace.py, loop_rw_table.py; loop23, issue 23): on the host's vda every request completes
in issue order (a read issued behind the flusher's writes is served after them), while at the loop device a read
issued after a write mostly completes first (the write's completion tail). A trace replaced, or the analysis
changed, so that either no longer holds fails here."""
import glob
import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "lab", "measurements", "loop_rw_table.py")


def tab():
    spec = importlib.util.spec_from_file_location("loop_rw_table", TABLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def totals(t, traces, key):
    out = {}
    for d in traces:
        for c in t.overtaken(d, key).values():
            for k, (n, o) in c.items():
                x = out.setdefault(k, [0, 0])
                x[0] += n
                x[1] += o
    return out


def test_vda_serves_in_issue_order_and_the_loop_device_completes_reads_before_earlier_writes():
    t = tab()
    paths = sorted(glob.glob(os.path.join(ROOT, "lab", "measurements", "loop-rw", "loop-rw-*.json")))
    traces = t.load(paths)
    assert len(traces) == 3 and all(d["blkio_cgroup"].endswith(":blkio:/") for d in traces)
    vda = totals(t, traces, "disk_requests")
    assert vda["W->R"][0] == 4372 and all(o == 0 for _, o in vda.values()), vda
    loop = totals(t, traces, "loop_requests")
    assert loop["W->R"][1] > 0.9 * loop["W->R"][0] and all(o == 0 for k, (_, o) in loop.items() if k != "W->R"), loop
    # the split: every loop request of a phase matched to its vda bio and request but a few
    for d in traces:
        st = t.steps(d)
        for p in d["phases"]:
            n = sum(1 for r in d["loop_requests"] if p["start"] <= r[0] <= p["end"])
            got = sum(len(v) for (ph, _), v in st.items() if ph == p["phase"])
            assert got >= 0.98 * n, (p["phase"], got, n)


def test_bad_input_names_the_file_and_the_fix(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{\n  nope")
    r = subprocess.run([sys.executable, TABLE, str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and f"{bad}:2:3" in r.stderr and "fix:" in r.stderr and "Traceback" not in r.stderr
