"""`post`/`wait` events between tasks and `O_TRUNC` writes (cp over an existing file), through
the Python API: the run, the plan the real-kernel runners carry out, the scenario schema, and
located errors for bad input."""

import json
import os

import jsonschema
import pytest

import memtwin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = """[scenario]
name = "script"
[machine]
ram = "512M"
[devices.sda]
read_bw = "100M"
write_bw = "100M"
[files."/src"]
size = "16M"
[tasks.hog]
ops = [
  { op = "repeat", times = 2, step = "hog", ops = [
    { op = "post", event = "started" },
    { op = "mmap", name = "h", size = "64M" },
    { op = "touch", name = "h" },
    { op = "wait", event = "copied" },
    { op = "munmap", name = "h" },
  ] },
]
[tasks.copy]
ops = [
  { op = "repeat", times = 2, step = "copy", ops = [
    { op = "wait", event = "started" },
    { op = "sleep", duration = "1s" },
    { op = "cp", src = "/src", dst = "/dst" },
    { op = "fsync", file = "/dst" },
    { op = "post", event = "copied" },
  ] },
]
"""


def _write(tmp_path, text):
    p = tmp_path / "s.toml"
    p.write_text(text)
    return str(p)


def test_a_script_of_two_tasks_runs_in_order(tmp_path):
    steps = memtwin.run(_write(tmp_path, SCRIPT)).steps
    copy, hog = steps.loc["copy"], steps.loc["hog"]
    # Each round the copy waits for the hog's start, sleeps 1 s, then copies 16 MiB at 100 MB/s.
    assert 2.0 + 2 * 0.16 < copy.elapsed_s < 3.0
    # The hog ends after the last copy posts (its munmap is the last thing that happens).
    assert hog.elapsed_s >= copy.elapsed_s
    assert copy.write_bytes == 2 * (16 << 20)
    # The second cp truncated the first copy: the cache holds the source and one copy.
    assert copy["meminfo.Cached_kB"] == 2 * 16 * 1024


def test_the_plan_carries_truncate_and_events(tmp_path):
    plan = memtwin.load(_write(tmp_path, SCRIPT)).doc.plan(None, [])
    ops = [op for t in plan["tasks"] for op in t["ops"]]
    writes = [op for op in ops if op["op"] == "write"]
    assert writes and all(op["truncate"] for op in writes), "cp opens its destination with O_TRUNC"
    assert {op["event"] for op in ops if op["op"] in ("post", "wait")} == {"started", "copied"}


def test_the_schema_accepts_events_and_truncate():
    import tomllib

    schema = json.load(open(os.path.join(ROOT, "schema", "scenario.schema.json")))
    doc = tomllib.loads(SCRIPT + '[tasks.w]\nops = [{ op = "write", file = "/dst", length = "1M", truncate = true }]\n')
    jsonschema.validate(doc, schema)


@pytest.mark.parametrize(
    "edit, words",
    [
        (('{ op = "wait", event = "copied" }', '{ op = "wait", event = "copid" }'), "waits for event `copid`, which no task posts"),
        (('{ op = "post", event = "started" }', '{ op = "post" }'), "post needs `event`"),
        (('{ op = "post", event = "started" }', '{ op = "post", event = "started", when = 1 }'), "unknown key `when`"),
    ],
)
def test_bad_event_input_is_a_located_error(tmp_path, edit, words):
    p = _write(tmp_path, SCRIPT.replace(*edit))
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.run(p)
    msg = e.value.args[0]
    assert p in msg and words in msg and "fix:" in msg, msg


TRUNC = """[scenario]
name = "trunc"
[machine]
ram = "512M"
fs = "{fs}"
[devices.sda]
read_bw = "100M"
write_bw = "100M"
[tasks.w]
ops = [
  {{ op = "write", file = "/f", length = "8M", create = true, step = "long" }},
  {{ op = "write", file = "/f", length = "1M", truncate = true, step = "short" }},
  {{ op = "fsync", file = "/f", step = "drop" }},
  {{ op = "fadvise", path = "/f", advice = "dontneed", step = "drop" }},
  {{ op = "read", file = "/f", step = "read" }},
]
"""


@pytest.mark.parametrize("fs", ["ext4", "xfs"])
def test_o_trunc_sets_i_size_to_zero_on_every_file_system(tmp_path, fs):
    # do_truncate() -> the file system's setattr -> truncate_setsize(inode, 0) (6.1 fs/open.c,
    # mm/truncate.c): after open(O_TRUNC) and a 1 MiB write the file is 1 MiB long, so a
    # read to its end reads 1 MiB from the disk (written back and dropped first), not the 8 MiB
    # it had before.
    steps = memtwin.run(_write(tmp_path, TRUNC.format(fs=fs))).steps
    assert steps.loc["short"].write_bytes == 1 << 20
    assert steps.loc["read"].read_bytes == 1 << 20, steps.loc["read"].read_bytes
