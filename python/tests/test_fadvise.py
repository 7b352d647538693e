"""The fadvise op and the seed-004 directory policy, through the Python API."""

import json
import os

import jsonschema
import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

import memtwin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scenario(policy: bool, uid: int = 0) -> dict:
    files = {f"/d/f{i}": {"size": "1M", "uid": 1000 if i % 2 else 0} for i in range(4)}
    files["/keep"] = {"size": "1M"}
    reads = [{"op": "read", "file": f, "step": "read"} for f in files]
    return {
        "scenario": {"name": "fadvise"},
        "machine": {"ram": "1G"},
        "kernel": {"policies": {"fadvise_directory": policy}},
        "devices": {"sda": {"read_bw": "1G"}},
        "files": files,
        "tasks": {"t": {"uid": uid, "ops": reads + [{"op": "fadvise", "path": "/d", "advice": "dontneed", "step": "clean"}]}},
    }


def cached_kb(policy, uid=0):
    r = memtwin.run(scenario(policy, uid))
    return r.steps.loc["read", "meminfo.Cached_kB"], r.steps.loc["clean", "meminfo.Cached_kB"]


def test_directory_fadvise_does_nothing_without_the_policy():
    before, after = cached_kb(False)
    assert before == after == 5 * 1024


def test_the_policy_cleans_the_tree():
    before, after = cached_kb(True)
    assert (before, after) == (5 * 1024, 1024), "only /keep stays"


def test_the_policy_skips_files_the_caller_does_not_own():
    _, after = cached_kb(True, uid=1000)
    # uid 1000 owns /d/f1 and /d/f3; /d/f0, /d/f2 (root's) and /keep stay.
    assert after == 3 * 1024


def test_a_walk_advises_every_file_from_user_space_without_the_policy():
    # uid 1000 may open every file below /d (0644), so its per-file DONTNEED drops all four,
    # where the policy's walk skips root's two.
    for uid in (0, 1000):
        s = scenario(False, uid)
        s["tasks"]["t"]["ops"][-1]["walk"] = True
        r = memtwin.run(s)
        assert r.steps.loc["clean", "meminfo.Cached_kB"] == 1024, f"uid {uid}: only /keep stays"


def test_a_walk_skips_subdirectories_the_task_may_not_list():
    s = {
        "scenario": {"name": "walk-perm"},
        "machine": {"ram": "1G"},
        "devices": {"sda": {"read_bw": "1G"}},
        "dirs": {"/d": {"uid": 0, "mode": "0755"}, "/d/sub": {"uid": 0, "mode": "0711"}},
        "files": {"/d/a": {"size": "1M"}, "/d/sub/b": {"size": "1M"}},
        "tasks": {"t": {"uid": 1000, "ops": [
            {"op": "read", "file": "/d/a", "step": "read"}, {"op": "read", "file": "/d/sub/b", "step": "read"},
            {"op": "fadvise", "path": "/d", "advice": "dontneed", "walk": True, "step": "clean"},
        ]}},
    }
    r = memtwin.run(s)
    # /d/sub may be searched (x) but not listed (no r for others): the walk never sees b.
    assert r.steps.loc["clean", "meminfo.Cached_kB"] == 1024


def test_a_walk_skips_files_the_task_may_not_open():
    s = scenario(False, 1000)
    s["files"]["/d/f0"]["mode"] = 0o600  # root's, not readable by others
    s["tasks"]["t"]["ops"][-1]["walk"] = True
    r = memtwin.run(s)
    assert r.steps.loc["clean", "meminfo.Cached_kB"] == 2 * 1024, "/d/f0 and /keep stay"


def test_a_walk_starts_writeback_of_dirty_files_that_the_policy_leaves_dirty():
    def dirty_after(policy, walk):
        s = scenario(policy)
        s["devices"]["sda"]["write_bw"] = "1G"
        s["tasks"]["t"]["ops"] = [{"op": "write", "file": "/d/f0", "length": "1M", "step": "write"},
                                  {"op": "fadvise", "path": "/d", "advice": "dontneed", "walk": walk, "step": "clean"}]
        r = memtwin.run(s)
        return r.steps.loc["clean", "meminfo.Dirty_kB"], r.steps.loc["clean", "meminfo.Cached_kB"]
    assert dirty_after(False, True) == (0, 1024), "writeback started, the pages stay until it ends"
    assert dirty_after(True, False) == (1024, 1024), "the patch's walk starts no writeback"


def test_walk_on_a_file_or_not_a_bool_is_a_located_error():
    s = scenario(False)
    s["tasks"]["t"]["ops"][-1].update(path="/keep", walk=True)
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.run(s)
    assert "tasks.t.ops[5]" in str(e.value) and "`walk = true` needs a directory" in str(e.value)
    s = scenario(False)
    s["tasks"]["t"]["ops"][-1]["walk"] = "yes"
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.run(s)
    assert "tasks.t.ops[5].walk must be true or false" in str(e.value)


def test_a_path_that_is_neither_file_nor_directory_is_a_located_error():
    s = scenario(True)
    s["tasks"]["t"]["ops"][-1]["path"] = "/nowhere"
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.run(s)
    assert "tasks.t.ops[5].path" in str(e.value)
    assert "is neither a file nor a directory holding files" in str(e.value)


def test_the_schema_knows_the_op():
    schema = json.load(open(os.path.join(ROOT, "schema", "scenario.schema.json")))
    jsonschema.validate(scenario(True), schema)
    walk = scenario(False)
    walk["tasks"]["t"]["ops"][-1]["walk"] = True
    jsonschema.validate(walk, schema)
    bad = scenario(True)
    bad["tasks"]["t"]["ops"][-1]["advice"] = "forget"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def tree_ops_scenario() -> dict:
    return {
        "scenario": {"name": "tree"},
        "machine": {"ram": "1G"},
        "devices": {"sda": {"read_bw": "1G", "write_bw": "1G"}},
        "files": {"/d/a": {"size": "1M"}, "/d/sub/b": {"size": "512K"}, "/e": {"size": "1M"}},
        "tasks": {"t": {"ops": [
            {"op": "cp", "src": "/d", "dst": "/copy", "step": "cp"},
            {"op": "fsync", "file": "/copy/sub/b", "step": "cp"},
            {"op": "grep", "path": "/copy", "step": "grep"},
        ]}},
    }


def test_cp_reads_every_file_below_and_writes_copies():
    r = memtwin.run(tree_ops_scenario())
    cp = r.steps.loc["cp"]
    assert cp["read_bytes"] == (1024 + 512) * 1024, "both files read from disk"
    # 384 pages read in, 384 new pages written (a write into a new page counts as a miss).
    assert cp["pagecache_miss_pages"] == 768
    # /proc/<pid>/io write_bytes counts pages as the task dirties them (folio_account_dirtied()
    # -> task_io_account_write()), whether or not they reached the disk yet.
    assert cp["write_bytes"] == (1024 + 512) * 1024, "both copies dirtied"
    # The copies exist, with the sources' sizes: grep reads them whole (from the cache).
    g = r.steps.loc["grep"]
    assert g["pagecache_hit_pages"] == 384
    assert g["read_bytes"] == 0


def test_grep_pays_its_scan_in_user_time():
    r = memtwin.run(tree_ops_scenario())
    g = r.steps.loc["grep"]
    # 384 pages scanned at 1070 ns (measured GNU grep) plus a user-space share per read().
    assert g["user_s"] >= 384 * 1070e-9
    assert g["user_s"] < 384 * 1070e-9 + 0.001


def test_cp_of_nothing_is_a_located_error():
    s = tree_ops_scenario()
    s["tasks"]["t"]["ops"][0]["src"] = "/missing"
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.run(s)
    assert "nothing to copy below `/missing`" in str(e.value)


# --------------------------------------------------------------------------------------------
# Directories: [dirs."PATH"] with owner, mode and generated files; errors name file:line:col.

DIRS_BASE = ('[scenario]\nname = "d"\n[machine]\nram = "1G"\n[devices.sda]\nread_bw = "1G"\n'
             '[tasks.t]\nuid = 1000\nops = [{ op = "read", file = "/data/1/f1", step = "r" }]\n'
             '[dirs."/data"]\nuid = 1000\n')


def _errors(tmp_path, extra):
    p = tmp_path / "d.toml"
    p.write_text(DIRS_BASE + '[dirs."/data/1"]\nfiles = { count = 2, size = "1M" }\n' + extra)
    with pytest.raises(memtwin.ScenarioError) as e:
        memtwin.run(p)
    return p, e.value.args[0]


def test_dirs_generate_files_owned_by_the_directory_owner(tmp_path):
    p = tmp_path / "d.toml"
    p.write_text(DIRS_BASE + '[dirs."/data/1"]\nfiles = { count = 2, size = "1M" }\n')
    r = memtwin.run(p)
    assert r.metric("r", "read_bytes") == 1 << 20
    # uid 1000 owns the generated files (inherited from /data): the directory policy drops them.
    s = memtwin.load(p)
    d = tomllib.loads(p.read_text())
    d["kernel"] = {"policies": {"fadvise_directory": True}}
    d["tasks"]["t"]["ops"].append({"op": "fadvise", "path": "/data", "advice": "dontneed", "step": "clean"})
    r = memtwin.run(d)
    # All but the last page read: 256 pages = 17 lru_add batches of 15 (linux-6.6) and one page
    # still in the CPU's batch, whose reference fails invalidate_mapping_pages() (the patch's
    # directory branch drains nothing, unlike a file's DONTNEED).
    assert r.steps.loc["clean", "meminfo.Cached_kB"] == 4
    assert s.name == "d"


def test_a_bad_dir_mode_is_a_located_error(tmp_path):
    p, text = _errors(tmp_path, '[dirs."/data/2"]\nmode = "0999"\n')
    assert text.startswith(f"{p}:15:8: error: dirs.\"/data/2\".mode is not a permission mode"), text
    assert "fix: write" in text and "0o755" in text


def test_a_relative_dir_path_is_a_located_error(tmp_path):
    p, text = _errors(tmp_path, '[dirs."data/2"]\nuid = 1\n')
    assert f"{p}:14:7:" in text and "is not an absolute path" in text and '[dirs."/data/2"]' in text


def test_a_path_both_file_and_dir_is_a_located_error(tmp_path):
    p, text = _errors(tmp_path, '[dirs."/data/x"]\nuid = 1\n[files."/data/x"]\nsize = "1M"\n')
    assert f"{p}:14:7:" in text and "declared both as a directory and as a file" in text


def test_generated_files_need_count_and_a_name_with_i(tmp_path):
    p, text = _errors(tmp_path, '[dirs."/data/2"]\nfiles = { size = "1M", name = "x" }\n')
    assert f"{p}:15:9:" in text and "has no `count`" in text
    assert "must hold `{i}`" in text


def test_cp_goes_in_creation_order_and_grep_in_glob_order(tmp_path):
    # GNU cp sorts a directory by inode number (creation order on ext4); the shell sorts
    # `grep PAT 1/*` by name, so f10 comes before f2.
    p = tmp_path / "order.toml"
    p.write_text("""
[scenario]
name = "order"
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
write_bw = "1G"
[dirs."/data/1"]
files = { count = 12, size = "64K", name = "f{i}" }
[tasks.t]
ops = [
  { op = "cp", src = "/data/1", dst = "/data/2", step = "cp" },
  { op = "grep", path = "/data/1", step = "grep" },
]
""")
    plan = memtwin.load(str(p)).doc.plan(None, [])
    ops = plan["tasks"][0]["ops"]
    cp_reads = [o["file"] for o in ops if o["step"] == "cp" and o["op"] == "read"]
    grep_reads = [o["file"] for o in ops if o["step"] == "grep"]
    assert cp_reads == [f"/data/1/f{i}" for i in range(1, 13)]
    assert grep_reads == ["/data/1/f1", "/data/1/f10", "/data/1/f11", "/data/1/f12"] + [f"/data/1/f{i}" for i in range(2, 10)]



def test_grep_reads_a_directory_before_a_sibling_its_name_prefixes(tmp_path):
    # The glob sorts the names of 1's entries: "a" before "a.txt" (a prefix sorts first), and
    # grep reads all of a/ before going on, although '/' sorts after '.' as a byte.
    p = tmp_path / "prefix.toml"
    p.write_text("""
[scenario]
name = "prefix"
[machine]
ram = "1G"
[devices.sda]
read_bw = "1G"
write_bw = "1G"
[files."/data/1/a.txt"]
size = "64K"
[files."/data/1/a/x"]
size = "64K"
[files."/data/1/a/y/z"]
size = "64K"
[files."/data/1/a-b"]
size = "64K"
[files."/data/1/B"]
size = "64K"
[tasks.t]
ops = [{ op = "grep", path = "/data/1", step = "grep" }]
""")
    plan = memtwin.load(str(p)).doc.plan(None, [])
    grep_reads = [o["file"] for o in plan["tasks"][0]["ops"] if o["step"] == "grep"]
    assert grep_reads == ["/data/1/B", "/data/1/a/x", "/data/1/a/y/z", "/data/1/a-b", "/data/1/a.txt"]
