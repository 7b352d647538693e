"""Issue 18's validation with real programs: each program recorded on the host (a trace in
scenarios/validation/traces) is a validation scenario, trace-NAME.toml, whose task replays the
trace at the limits it was measured at (variants) and whose recorded results are its `memtwin
measure` runs (real/trace-NAME.json, lab/record_trace_validation.py): `memtwin validate
--recorded` and test_validation.py compare them as every other validation scenario (read bytes and
peak usage within 15%, major faults within 20%; known disagreements in [[validation.known_out]]
with their cause). This file checks what validate does not: that every recorded trace has its
scenario, as lab/validation/make_trace_scenarios.py writes it, and the scenario form's bad input."""

import os
import shutil
import sys

import pytest

pytest.importorskip("zstandard", reason="traces need the zstandard package")

from memtwin import api
from memtwin.validate import validate_file

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VAL = os.path.join(ROOT, "scenarios", "validation")
TRACES = sorted(f[:-4] for f in os.listdir(os.path.join(VAL, "traces")) if f.endswith(".mtt"))


def test_every_recorded_program_is_a_validation_scenario_as_generated():
    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    try:
        import make_trace_scenarios as gen
    finally:
        sys.path.pop(0)
    assert len(TRACES) >= 4 and set(TRACES) == set(gen.PROGRAMS)
    for name in TRACES:
        path = os.path.join(VAL, f"trace-{name}.toml")
        with open(path) as f:
            assert f.read() == gen.scenario(name), f"{path} is not what lab/validation/make_trace_scenarios.py writes: run it"
        scn = api.load(path)
        limits = [v for v, _ in scn.variants()]
        assert limits == gen.PROGRAMS[name][2], "a variant per measured limit, loose to tight"
        tol = scn.doc.table("validation")["tolerance"]
        assert tol["read_bytes"] == 0.15 and tol["memcg.max_usage_bytes"] == 0.15
        assert tol.get("memcg.pgmajfault") == (0.20 if gen.PROGRAMS[name][3] == "bpf" else None)


def _copy(tmp_path, name="sqlite3-mmap"):
    """The scenario, its trace and its recorded results (a recording set's every run) in tmp_path
    (same layout)."""
    os.makedirs(tmp_path / "traces")
    os.makedirs(tmp_path / "real")
    shutil.copy(os.path.join(VAL, "traces", f"{name}.mtt"), tmp_path / "traces")
    shutil.copy(os.path.join(VAL, "real", f"trace-{name}.json"), tmp_path / "real")
    for i in range(2, 10):   # a recording set's other runs
        run = os.path.join(VAL, "real", f"trace-{name}-run{i}.json")
        if os.path.exists(run):
            shutil.copy(run, tmp_path / "real")
    with open(os.path.join(VAL, f"trace-{name}.toml")) as f:
        return f.read()


def test_a_variant_without_the_measured_limit(tmp_path):
    """A variant that does not give the trace's memcg the limit its measurement ran with is an
    error at the variant (file:line:col), with the fix, before anything is compared."""
    text = _copy(tmp_path)
    s = tmp_path / "t.toml"
    s.write_text(text.replace('[variants.40M]\ndescription = "memcg limit 40M"\ncgroups.ct."memory.limit_in_bytes" = "40M"\n',
                              '[variants.40M]\ndescription = "memcg limit 40M"\n'))
    line = s.read_text().splitlines().index("[variants.40M]") + 1
    with pytest.raises(api.ScenarioError) as e:
        validate_file(str(s), None, True, out=lambda *_: None)
    msg = str(e.value)
    assert msg.startswith(f"{s}:{line}:1: error: variant 40M: the measured run had limit 40M (41943040 bytes), "
                          "the twin's task sqlite3 runs with limit 256M (268435456 bytes)"), msg
    assert '\n  fix: set cgroups.ct."memory.limit_in_bytes" = "40M" in [variants.40M]' in msg, msg


def test_a_trace_or_start_cache_that_is_missing(tmp_path):
    """The scenario form's trace and start cache, missing: an error at the key's file:line:col."""
    text = _copy(tmp_path)
    s = tmp_path / "t.toml"
    lines = text.splitlines()
    s.write_text(text.replace('trace = "traces/sqlite3-mmap.mtt"', 'trace = "traces/nope.mtt"'))
    n = lines.index('trace = "traces/sqlite3-mmap.mtt"') + 1
    with pytest.raises(api.ScenarioError) as e:
        validate_file(str(s), None, True, out=lambda *_: None)
    assert str(e.value).startswith(f"{s}:{n}:9: error: trace: ") and "no such trace file" in str(e.value) and "fix:" in str(e.value)
    s.write_text(text.replace('initial_cache = "real/trace-sqlite3-mmap.json"', 'initial_cache = "real/nope.json"'))
    n = lines.index('initial_cache = "real/trace-sqlite3-mmap.json"') + 1
    with pytest.raises(api.ScenarioError) as e:
        validate_file(str(s), None, True, out=lambda *_: None)
    assert str(e.value).startswith(f"{s}:{n}:17: error: initial_cache: no such file") and "fix:" in str(e.value), str(e.value)



def _cat_trace(tmp_path, mib: int):
    """A random file of `mib` MiB and the trace of `cat` reading it in 128 KiB read()s, the
    command named in its header: (data path, trace path)."""
    from memtwin import trace

    data = tmp_path / "d.bin"
    data.write_bytes(os.urandom(mib << 20))
    t = tmp_path / "cat.mtt"
    w = trace.Writer(str(t), {"source": "test", "command": ["cat", str(data)], "kernel": os.uname().release,
                              "files": [{"id": 0, "path": str(data), "size": mib << 20}]})
    w.add(0, "open", pid=1, file=0)
    for i in range(mib * 8):
        w.add(1 + i, "read", pid=1, file=0, offset=i << 17, length=1 << 17)
    w.close()
    return data, t

def test_validate_on_host_measures_the_recorded_program(tmp_path):
    """`memtwin validate FILE --on host` of a trace scenario runs the command the trace's header
    names with memtwin measure at each variant's limit (its files dropped first) and compares."""
    from memtwin import real

    ok, why = real.host_ready()
    if not ok:
        pytest.skip("needs root and a memory controller: " + why)
    data, t = _cat_trace(tmp_path, 8)
    s = tmp_path / "s.toml"
    v, _mnt = real.find_memory_controller()   # the scenario's cgroup version is the host's
    s.write_text(f'[scenario]\nname = "s"\n[machine]\nram = "4G"\n[kernel]\ncgroup = "{v}"\n[devices.sda]\nread_bw = "500M"\n'
                 f'[cgroups.ct]\n"{"memory.limit_in_bytes" if v == "v1" else "memory.max"}" = "64M"\n'
                 '[tasks.cat]\ncgroup = "ct"\ntrace = "cat.mtt"\ntime_scale = 0\nstep = "run"\n'
                 '[validation]\n[validation.tolerance]\nread_bytes = 0.15\n')
    rows, _, _ = validate_file(str(s), "host", False, out=lambda *_: None)
    r = {x.metric: x for x in rows}["read_bytes"]
    assert r.sim == 8 << 20 and r.real >= 8 << 20, (r.sim, r.real)   # cat read the dropped file from disk


def test_recorded_results_of_another_command(tmp_path):
    """Recorded results that measured another command than the trace recorded are refused, at the
    trace's key (file:line:col), with the fix."""
    import json

    text = _copy(tmp_path)
    rj = tmp_path / "real" / "trace-sqlite3-mmap.json"
    doc = json.loads(rj.read_text())
    doc["variants"]["10M"]["real"]["command"] = ["sqlite3", "/var/tmp/other.db", "select 1"]
    rj.write_text(json.dumps(doc))
    s = tmp_path / "t.toml"
    s.write_text(text)
    n = text.splitlines().index('trace = "traces/sqlite3-mmap.mtt"') + 1
    with pytest.raises(api.ScenarioError) as e:
        validate_file(str(s), None, True, out=lambda *_: None)
    msg = str(e.value)
    assert msg.startswith(f"{s}:{n}:9: error: variant 10M: the recorded results measured ['sqlite3', '/var/tmp/other.db'") and \
        "\n  fix: measure the command the trace recorded" in msg, msg


def test_validate_on_host_starts_the_twin_from_that_runs_cache(tmp_path):
    """On the host, a trace task with `initial_cache = "FILE"` starts from the cache the run just
    measured started with, not FILE's: a file this process maps stays cached through measure's
    drop, so cat reads nothing from disk, and neither does the twin, though FILE says cold."""
    import json
    import mmap

    from memtwin import real

    ok, why = real.host_ready()
    if not ok:
        pytest.skip("needs root and a memory controller: " + why)
    data, t = _cat_trace(tmp_path, 4)
    (tmp_path / "m.json").write_text(json.dumps({"variants": {"default": {"real": {"resident_at_start": {}}}}}))
    v, _mnt = real.find_memory_controller()
    s = tmp_path / "s.toml"
    s.write_text(f'[scenario]\nname = "s"\n[machine]\nram = "4G"\n[kernel]\ncgroup = "{v}"\n[devices.sda]\nread_bw = "500M"\n'
                 '[cgroups.ct]\n[tasks.cat]\ncgroup = "ct"\ntrace = "cat.mtt"\ntime_scale = 0\nstep = "run"\n'
                 'initial_cache = "m.json"\n[validation]\n[validation.tolerance]\nread_bytes = 0.15\n')
    with open(data, "rb") as fh:
        m = mmap.mmap(fh.fileno(), 4 << 20, prot=mmap.PROT_READ)
        try:
            sum(m[i * 4096] for i in range(1024))   # all of it mapped: no drop evicts it
            rows, _, _ = validate_file(str(s), "host", False, out=lambda *_: None)
        finally:
            m.close()
    r = {x.metric: x for x in rows}["read_bytes"]
    if r.real:
        pytest.skip("this file system dropped mapped pages")
    assert r.sim == 0, r.sim
