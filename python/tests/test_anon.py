"""Anonymous memory, the NUMA page allocator and the stutter probe, through the Python API and
the CLI: results, the mmtests latency metrics, and located errors for bad input."""

import json

import jsonschema
import pytest

import memtwin

from conftest import cli_run

BASE = """[scenario]
name = "anon"
[kernel]
profile = "linux-4.3"
thp = "{thp}"
[machine]
ram = "1G"
nodes = 2
dma32 = "256M"
[devices.sda]
read_bw = "200M"
write_bw = "200M"
[tasks.hog]
node = 1
ops = [
  {{ op = "mmap", name = "h", size = "400M", step = "hog" }},
  {{ op = "touch", name = "h", step = "hog" }},
  {{ op = "munmap", name = "h", step = "unmap" }},
]
[tasks.probe]
ops = [{{ op = "mmap_probe", size = "16M", interval = "5ms", while_task = "copy", step = "probe" }}]
[tasks.copy]
ops = [{{ op = "write", file = "/big", length = "64M", bufsize = "1M", fsync = true, create = true, step = "copy" }}]
"""


def _write(tmp_path, text, name="a.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_hog_faults_on_its_node_and_munmap_frees_everything(tmp_path):
    r = memtwin.run(_write(tmp_path, BASE.format(thp="never")))
    hog = r.steps.loc["hog"]
    # 400M on a 512M node: it fits, so every page is local (numa_hit) and anonymous.
    assert hog["meminfo.AnonPages_kB"] >= 400 * 1024
    assert hog["vmstat.numa_miss"] == 0
    assert hog["vmstat.thp_fault_alloc"] == 0
    assert r.steps.loc["unmap", "meminfo.AnonPages_kB"] < 17 * 1024  # at most a probe round left


def test_thp_faults_take_huge_pages(tmp_path):
    r = memtwin.run(_write(tmp_path, BASE.format(thp="always")))
    # vmstat is global: the hog's 200 huge pages (400M / 2M) plus 8 per probe round (16M)
    # that ran meanwhile.
    n = r.steps.loc["hog", "vmstat.thp_fault_alloc"]
    assert n >= 200 and (n - 200) % 8 == 0, n
    assert r.steps.loc["hog", "vmstat.thp_fault_fallback"] == 0


def test_probe_records_mmtests_latency_metrics_and_samples(tmp_path):
    p = _write(tmp_path, BASE.format(thp="never"))
    r = memtwin.run(p)
    pr = r.steps.loc["probe"]
    n = pr["latency.samples"]
    assert n >= 2, "the probe ran for as long as the copy"
    assert pr["latency.min_ms"] <= pr["latency.q2_ms"] <= pr["latency.max_ms"]
    assert pr["latency.best50_mean_ms"] <= pr["latency.mean_ms"] + 1e-9
    # 4096 base-page faults per round at >= 1.3 us each (fault + clearing, BENCHMARKS.md M11).
    assert pr["latency.min_ms"] >= 4096 * 1.3e-3
    step = next(s for s in r.raw["steps"] if s["name"] == "probe")
    samples = step["latency_samples_ms"]
    assert len(samples) == n and min(samples) == pytest.approx(pr["latency.min_ms"])


def test_run_json_with_latency_samples_validates(tmp_path, capsys):
    p = _write(tmp_path, BASE.format(thp="always"))
    out = tmp_path / "r.json"
    code, _, err = cli_run(capsys, "run", str(p), "--json", str(out))
    assert code == 0, err
    doc = json.loads(out.read_text())
    schema = json.load(open(memtwin.__file__.rsplit("/python/", 1)[0] + "/schema/result.schema.json"))
    jsonschema.validate(doc, schema)


@pytest.mark.parametrize(
    "edit, where, words",
    [
        (('{ op = "touch", name = "h", step = "hog" }', '{ op = "touch", name = "x", step = "hog" }'), "", "uses mapping `x` before any mmap of it"),
        (('while_task = "copy"', 'while_task = "cpy"'), "", "while_task `cpy` is not another task"),
        (("node = 1", "node = 2"), ":14:8:", "tasks.hog.node is 2 but the machine has 2 node(s)"),
        (('thp = "never"', 'thp = "sometimes"'), ":5:7:", 'kernel.thp is "sometimes"'),
        (('{ op = "mmap", name = "h", size = "400M", step = "hog" }', '{ op = "mmap", name = "h", step = "hog" }'), "", "mmap needs `size`"),
    ],
)
def test_bad_anonymous_memory_input_is_a_located_error(tmp_path, edit, where, words):
    text = BASE.format(thp="never").replace(*edit)
    p = _write(tmp_path, text)
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.run(p)
    msg = e.value.args[0]
    assert f"{p}{where}" in msg and words in msg and "fix:" in msg, msg
