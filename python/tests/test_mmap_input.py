"""Bad input on file mappings (issue 20): each mistake is reported at the op's file:line:col
with a fix, and `memtwin check` exits non-zero."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HEAD = """[scenario]
name = "bad"
[machine]
ram = "2G"
[kernel]
profile = "linux-6.1"
cgroup = "v2"
[devices.sda]
read_bw = "500M"
[files."/data/db"]
size = "16M"
[cgroups.A]
"memory.max" = "8M"
[tasks.t]
cgroup = "A"
ops = [
"""


def check(tmp_path, ops: str):
    p = tmp_path / "s.toml"
    p.write_text(HEAD + ops + "]\n")
    r = subprocess.run([sys.executable, "-m", "memtwin.cli", "check", str(p)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    return r.returncode, r.stdout + r.stderr, str(p)


def test_mapping_a_missing_file(tmp_path):
    rc, out, p = check(tmp_path, '  { op = "mmap", name = "x", file = "/data/dbb" },\n')
    assert rc != 0
    assert f"{p}:17:37: error: unknown file `/data/dbb`" in out
    assert "did you mean `/data/db`" in out


def test_a_range_past_the_end_of_the_file(tmp_path):
    rc, out, p = check(tmp_path, '  { op = "mmap", name = "db", file = "/data/db", length = "32M" },\n')
    assert rc != 0
    assert f"{p}:17:59: error" in out and "past the end of `/data/db`" in out and "SIGBUS" in out
    assert "fix: map at most 16 MiB" in out


def test_touching_an_unmapped_name(tmp_path):
    rc, out, p = check(tmp_path, '  { op = "mmap", name = "db", file = "/data/db" },\n  { op = "touch", name = "dbb" },\n')
    assert rc != 0
    assert f"{p}:18:3: error: task `t` step `t:1 touch` uses mapping `dbb` before any mmap of it" in out


def test_touching_past_the_mapping(tmp_path):
    rc, out, p = check(tmp_path, '  { op = "mmap", name = "db", file = "/data/db", length = "4M" },\n'
                                 '  { op = "touch", name = "db", offset = "2M", length = "4M", access = "read" },\n')
    assert rc != 0
    assert f"{p}:18:3: error" in out and "past the end of mapping `db`" in out


def test_mlock_over_the_limit(tmp_path):
    rc, out, p = check(tmp_path, '  { op = "mmap", name = "db", file = "/data/db" },\n  { op = "mlock", name = "db" },\n')
    assert rc != 0
    assert f"{p}:18:3: error" in out and "mlocks 16 MiB in all, more than its cgroup's limit of 8 MiB" in out
    assert "fix: mlock less" in out


def test_anonymous_mlock_over_the_limit(tmp_path):
    # mlock of anonymous memory: its pages go to the unevictable list, reclaim cannot take them
    # and mlock's populate would end in the memcg OOM killer (try_charge_memcg() ->
    # mem_cgroup_oom()); the second mlock brings the total to 10 MiB in an 8 MiB memcg
    rc, out, p = check(tmp_path, '  { op = "mmap", name = "a", size = "6M" },\n  { op = "mlock", name = "a" },\n'
                                 '  { op = "mmap", name = "b", size = "4M" },\n  { op = "mlock", name = "b" },\n')
    assert rc != 0
    assert f"{p}:20:3: error" in out and "mlocks 10 MiB in all, more than its cgroup's limit of 8 MiB" in out
    assert "fix: mlock less" in out
    # munlocked or unmapped first, the same mlock fits
    for first in ('  { op = "munlock", name = "a" },\n', '  { op = "munmap", name = "a" },\n'):
        rc, out, _ = check(tmp_path, '  { op = "mmap", name = "a", size = "6M" },\n  { op = "mlock", name = "a" },\n' + first +
                                     '  { op = "mmap", name = "b", size = "4M" },\n  { op = "mlock", name = "b" },\n')
        assert rc == 0, out


def test_a_store_to_an_exec_mapping(tmp_path):
    rc, out, p = check(tmp_path, '  { op = "mmap", name = "t", file = "/data/db", exec = true },\n  { op = "touch", name = "t" },\n')
    assert rc != 0
    assert f"{p}:18:3: error" in out and "PROT_READ | PROT_EXEC" in out


def test_a_good_mapping_passes(tmp_path):
    rc, out, _ = check(tmp_path, '  { op = "mmap", name = "db", file = "/data/db", shared = true, advice = "random" },\n'
                                 '  { op = "touch", name = "db", access = "read", pattern = "random", count = 100 },\n'
                                 '  { op = "madvise", name = "db", advice = "pageout" },\n  { op = "msync", name = "db" },\n'
                                 '  { op = "munmap", name = "db" },\n')
    assert rc == 0, out
