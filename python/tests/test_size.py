"""`memtwin size`: the SLO grammar, bad input, the bisection on the engine, and the answer from the
recorded real-kernel sweep (scenarios/validation/real/host-reread-tight-sweep.json, this host's
6.18 kernel) against the engine's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import memtwin
from memtwin._memtwin import ScenarioError, metric_names
from memtwin.size import bisect, parse_between, parse_slo
from conftest import cli_run

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed000-memcg-reread.toml"
TIGHT = ROOT / "scenarios" / "validation" / "host-reread-tight.toml"
RECORDED = ROOT / "scenarios" / "validation" / "real" / "host-reread-tight-sweep.json"
KNOWN = set(metric_names()) | {"miss_ratio"}
M = 1 << 20


def test_slo_grammar():
    s = parse_slo("elapsed<=1.10x", KNOWN)
    assert (s.metric, s.op, s.kind) == ("elapsed_s", "<=", "rel") and s.bound(10.0) == pytest.approx(11.0)
    assert parse_slo("read_bytes<=1.5x", KNOWN).bound(100) == 150
    assert parse_slo("read_bytes <= 100M", KNOWN).bound(1) == 100 * M
    assert parse_slo("miss_ratio<=5%", KNOWN).bound(1) == pytest.approx(0.05)
    assert parse_slo("read_bytes<=+50%", KNOWN).bound(100) == pytest.approx(150)
    assert parse_slo("pagecache_hit_pages>=0.9x", KNOWN).meets(95, 90)
    assert parse_slo("refaults<=2000", KNOWN).metric == "memcg.workingset_refault_file"
    # major faults are memory.stat pgmajfault (the engine counts them: filemap_fault(), swap-in)
    assert "memcg.pgmajfault" in KNOWN and parse_slo("major_faults<=10", KNOWN).metric == "memcg.pgmajfault"


@pytest.mark.parametrize("slo,what", [
    ("psi.memory.some<=5%", "unknown metric `psi.memory.some` (no such metric: PSI is psi.memory.some_us"),
    ("read_byte<=1.5x", "unknown metric `read_byte`"),
    ("read_bytes=1.5x", "not an objective"),
    ("read_bytes<=+50", "needs a percent sign"),
])
def test_bad_slo(slo, what):
    with pytest.raises(ScenarioError) as e:
        parse_slo(slo, KNOWN)
    assert what in str(e.value) and "\n  fix: " in str(e.value)


def test_between():
    assert parse_between("16M..8G") == (16 * M, 8 << 30)
    for bad, what in [("8G..16M", "reversed"), ("16..8G", "has no unit"), ("16M", "not a range"), ("16M..16M", "fewer than two")]:
        with pytest.raises(ScenarioError, match=what):
            parse_between(bad)


def test_bisection_on_a_step_function():
    slo = parse_slo("read_bytes<=1.5x", KNOWN)
    need = 66 * M + 12345
    r = bisect(lambda lim: 1.0 if lim is None or lim >= need else 2.0, slo, 16 * M, 256 * M)
    assert r.resolution == M
    assert need <= r.answer < need + M and r.answer % 4096 == 0
    assert len(r.points) < 14


def test_size_on_the_engine(capsys):
    code, out, err = cli_run(capsys, "size", TIGHT, "--slo", "read_bytes<=1.5x", "--between", "16M..256M")
    assert code == 0, err
    assert "SLO: read_bytes <= 100663296 (1.5x the unlimited run's 67108864)" in out
    assert "smallest memory.limit_in_bytes meeting the SLO: 64.75M (67895296 bytes), within 1M" in out
    assert "  max             67108864        1.000x  (unlimited)" in out


def test_size_never_met_and_errors(capsys):
    code, out, _ = cli_run(capsys, "size", SEED, "--variant", "baseline", "--slo", "read_bytes<=1.5x", "--between", "16M..512M")
    assert code == 1 and "no memory.limit_in_bytes in 16M..512M meets the SLO: at 512M read_bytes is 2147483648" in out
    code, _, err = cli_run(capsys, "size", SEED, "--knob", "high")
    assert code == 2 and "cgroup v1 has no memory.high" in err
    code, _, err = cli_run(capsys, "size", SEED, "--task", "dog")
    assert code == 2 and "has no task 'dog'" in err
    code, _, err = cli_run(capsys, "size", SEED, "--slo", "major_fault<=0")
    assert code == 2 and "fix:" in err


def test_size_high_on_v2(capsys, tmp_path):
    v2 = tmp_path / "v2.toml"
    v2.write_text(TIGHT.read_text().replace('cgroup = "v1"', 'cgroup = "v2"').replace('"memory.limit_in_bytes" = "32M"', '"memory.high" = "32M"'))
    code, out, err = cli_run(capsys, "size", v2, "--knob", "high", "--slo", "read_bytes<=1.5x", "--between", "16M..256M")
    assert code == 0, err
    assert "smallest memory.high meeting the SLO" in out


# --- the recorded real-kernel sweep -------------------------------------------------------------------

def _recorded_limits() -> list:
    data = json.loads(RECORDED.read_text())
    assert data["on"] == "host" and data["points"][0]["real"]["info"]["kernel"].startswith("6.")
    return data["grid"][0][0]["values"]


def test_size_from_the_recorded_kernel_figures():
    """The recordings (real kernel) give an answer, and the engine's own answer is within one
    recorded grid step of it."""
    vals = _recorded_limits()
    assert vals == ["48M", "56M", "64M", "72M", "80M", "88M", "max"]
    real = memtwin.size(TIGHT, slo="read_bytes<=1.5x", between="16M..256M", recorded=str(RECORDED))
    assert real.source == "recorded" and real.answer == 72 * M  # 64M still re-reads the whole file on 6.18
    step = 8 * M  # the recorded grid's step
    engine = memtwin.size(TIGHT, slo="read_bytes<=1.5x", between="16M..256M")
    assert engine.answer is not None and abs(engine.answer - real.answer) <= step
    # the engine's figures at the recorded limits give the same answer as the kernel's
    twin = memtwin.size(TIGHT, slo="read_bytes<=1.5x", between="16M..256M", recorded=str(RECORDED), source="engine")
    assert twin.answer == real.answer


def test_size_recorded_on_the_command_line(capsys):
    code, out, err = cli_run(capsys, "size", TIGHT, "--slo", "read_bytes<=1.5x", "--recorded", RECORDED)
    assert code == 0, err
    assert "note: from the recorded real figures of" in out
    assert "smallest memory.limit_in_bytes meeting the SLO: 72M (75497472 bytes) among the recorded limits" in out


def test_size_of_one_step(capsys):
    code, out, err = cli_run(capsys, "size", TIGHT, "--slo", "read_bytes<=32M", "--step", "read 2", "--between", "16M..256M")
    assert code == 0, err
    assert ", step read 2" in out
    r = memtwin.size(TIGHT, slo="read_bytes<=32M", step="read 2", between="16M..256M")
    assert r.unlimited == 0 and 60 * M < r.answer < 70 * M  # the second read re-reads at most 32M
    code, _, err = cli_run(capsys, "size", TIGHT, "--step", "read 3")
    assert code == 2 and "has no step 'read 3'" in err


# The engine against the recorded kernel, point by point (read_bytes within the scenario's
# tolerance: 10% or 1M). Every point within since 2026-11-30's merges: at 64M (the file's size:
# it does not quite fit beside the memcg's other charges) the engine used to activate 13,736 of
# the second read's 14,110 refaults and keep 9.3M of the file (57.8M read, -13.9%); it now
# re-reads all 64M and activates none, as 6.18 (1 of 16,363). Bisected (2026-11-30 s45): the point
# is out at da93a71 and within at 470070a, the merge of h-obs20 whose one engine change is 678dd99
# (readahead: a cached page of a readahead window is no longer kept from reclaim as if the window
# had locked it).
KNOWN_OUT: set = set()


def test_engine_against_the_recorded_sweep_point_by_point():
    data = json.loads(RECORDED.read_text())
    scn = memtwin.load(TIGHT)
    out = set()
    for p in data["points"]:
        key, limit = p["point"][0]
        engine = memtwin.run(scn, sets=[f"{key}={limit}"]).raw["steps"]  # the engine now, not the recorded copy
        for e, r in zip(engine, p["real"]["steps"]):
            sim, real = e["metrics"]["read_bytes"], r["metrics"]["read_bytes"]
            if abs(sim - real) > max(0.10 * real, M):
                out.add((limit, e["name"]))
    assert out == KNOWN_OUT
