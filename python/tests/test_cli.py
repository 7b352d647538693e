"""The `memtwin` command, run in-process through memtwin.cli.main (and once as a subprocess).

Error tests assert the exact `file:line:col` the message names, that it has a `fix:` line,
that the exit code is 2 and that nothing was simulated (the progress callback, which the
engine always calls at the end of a run, is never called)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import memtwin
import memtwin.cli as cli
from memtwin.cli import main
from conftest import cli_run, unwrapped

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "seed000-memcg-reread.toml"
GIB = 1 << 30
SUBCOMMANDS = ["run", "compare", "check", "reproduce", "bench", "metrics", "profiles"]




def step_metric(data: dict, variant: str, step: str, metric: str) -> float:
    for s in data["variants"][variant]["steps"]:
        if s["name"] == step:
            return s["metrics"][metric]
    raise KeyError(step)


# --------------------------------------------------------------------------------------------
# --help, --version, no command


@pytest.mark.parametrize("cmd", SUBCOMMANDS)
def test_help_of_every_subcommand(capsys, cmd):
    with pytest.raises(SystemExit) as e:
        main([cmd, "--help"])
    assert e.value.code == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"usage: memtwin {cmd}")
    assert err == ""


def test_top_level_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out, _ = capsys.readouterr()
    for cmd in SUBCOMMANDS:
        assert f"\n    {cmd} " in out
    assert "schema/scenario.schema.json" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"memtwin {memtwin.__version__}"


def test_no_command_prints_help_and_exits_2(capsys):
    code, out, _ = cli_run(capsys)
    assert code == 2
    assert out.startswith("usage: memtwin")


def test_unknown_option_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", str(SEED), "--variantt", "recharge"])
    assert e.value.code == 2
    assert "unrecognized arguments: --variantt" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# run and compare on seed 000


def test_run_seed000(capsys, sim_calls):
    code, out, err = cli_run(capsys, "run", SEED)
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(ln) for ln in lines) <= 100
    # the description and the policies wrapped at 100 characters
    assert lines[:4] == ["seed000-memcg-reread: A 1 GiB file read twice by cat in a memcg limited to 20M: is the second read",
                         "  cached?",
                         "kernel profile linux-5.0, cgroup v1, policies: recharge_on_pagecache_get=off,",
                         "  memcg_percpu_release_on_offline=off, fadvise_directory=off"]
    lines = lines[2:]
    header = lines[3].split()
    assert header == ["step", "elapsed_s", "user_s", "sys_s", "read_bytes", "memcg.usage_bytes"]
    assert set(lines[4]) == {"-", " "}  # the rule under the header
    rows = {ln[:6]: ln[6:].split() for ln in lines[5:7]}
    assert set(rows) == {"read 1", "read 2"}
    # Without --variant the base document runs: the kernel as it is, both reads from disk.
    assert rows["read 1"][3] == rows["read 2"][3] == str(GIB)
    assert lines[-1].startswith("virtual time ")
    assert sim_calls and sim_calls[-1][1] == sim_calls[-1][2]


def test_run_variant_and_metrics(capsys):
    code, out, err = cli_run(capsys, "run", SEED, "--variant", "recharge", "--metrics", "read_bytes,pagecache_miss_pages")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("seed000-memcg-reread [recharge]: ")
    assert lines[2:4] == ["kernel profile linux-5.0, cgroup v1, policies: recharge_on_pagecache_get=on,",
                          "  memcg_percpu_release_on_offline=off, fadvise_directory=off"]
    assert lines[5].split() == ["step", "read_bytes", "pagecache_miss_pages"]
    read2 = next(ln for ln in lines if ln.startswith("read 2"))
    assert read2.split()[2:] == ["0", "0"]


def test_compare_seed000(capsys, sim_calls):
    code, out, err = cli_run(capsys, "compare", SEED)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:2] == ["seed000-memcg-reread: A 1 GiB file read twice by cat in a memcg limited to 20M: is the second read",
                         "  cached?"], "the description wrapped at 100 characters"
    assert lines[3].startswith("published figures: Kirill Tkhai, \"[PATCH RFC 0/3]") and "shared/" not in out
    assert lines[4] == "  pagecache pages eviction\", linux-mm, January 2019"
    assert lines[6].split() == ["baseline", "recharge"]
    assert lines[7].split() == ["simulated", "published", "simulated", "published"]
    assert "Targets ([published.checks]):" in lines
    targets = [ln.strip() for ln in lines if ln.startswith("  PASS") or ln.startswith("  FAIL")]
    assert len(targets) == 3 and all(t.startswith("PASS") for t in targets), targets
    assert lines[-1].startswith("2 variants simulated in ")
    assert sorted({c[0] for c in sim_calls}) == ["seed000-memcg-reread [baseline]", "seed000-memcg-reread [recharge]"]


def test_compare_read_bytes_row_shows_the_gain(capsys):
    code, out, _ = cli_run(capsys, "compare", SEED, "--metrics", "read_bytes")
    assert code == 0
    row = next(ln for ln in out.splitlines() if ln.startswith("read 2  read_bytes"))
    # baseline 1 GiB (0%), recharge 0: a 100% gain in mmtests' convention.
    assert row.split()[3:] == [str(GIB), "(", "0.00%)", "0", "(", "100.00%)"]


def test_compare_only_some_variants(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, _ = cli_run(capsys, "compare", SEED, "--variants", "recharge", "--json", out_json)
    assert code == 0
    assert list(json.loads(out_json.read_text())["variants"]) == ["recharge"]
    # The checks that name the baseline are skipped: it was not run.
    assert "  SKIP  baseline: the second read is as slow as the first (within 5%): skipped: variant baseline was not run" in unwrapped(out)
    targets = [ln.split()[0] for ln in out.splitlines() if ln.startswith("  ") and ln.split()[0] in ("PASS", "FAIL", "SKIP")]
    assert targets == ["SKIP", "PASS", "PASS"]


def test_compare_check_does_not_fail_on_skipped_checks(capsys):
    code, out, _ = cli_run(capsys, "compare", SEED, "--variants", "recharge", "--check")
    assert code == 0
    assert "  SKIP  baseline: the second read is as slow as the first (within 5%): skipped: variant baseline was not run" in unwrapped(out)
    assert "FAIL" not in out


def test_compare_check_still_fails_on_a_missed_target_beside_a_skipped_one(capsys, tmp_path):
    code, out, _ = cli_run(capsys, "compare", _tightened(tmp_path), "--variants", "recharge", "--check")
    assert code == 1
    assert "  SKIP  baseline: " in out
    assert "  FAIL  recharge: sys time of the cached read within 30% of the seed's: " in out


def test_run_header_without_a_description(capsys, tmp_path):
    path = tmp_path / "good.toml"
    path.write_text(GOOD)  # [scenario] has no description
    code, out, err = cli_run(capsys, "run", path)
    assert code == 0, err
    assert out.splitlines()[:3] == ["broken", "kernel profile linux-6.6, cgroup v1, policies: recharge_on_pagecache_get=off,",
                                    "  memcg_percpu_release_on_offline=off, fadvise_directory=off"]
    code, out, err = cli_run(capsys, "run", path, "--variant", "fast")
    assert code == 0, err
    assert out.splitlines()[:3] == ["broken [fast]", "kernel profile linux-6.6, cgroup v1, policies: recharge_on_pagecache_get=off,",
                                    "  memcg_percpu_release_on_offline=off, fadvise_directory=off"]
    code, out, err = cli_run(capsys, "compare", path)
    assert code == 0, err
    assert out.splitlines()[:2] == ["broken", "kernel profile linux-6.6, cgroup v1"]


# --------------------------------------------------------------------------------------------
# --json OUT


def test_run_json_layout(capsys, tmp_path):
    out_json = tmp_path / "run.json"
    code, out, _ = cli_run(capsys, "run", SEED, "--variant", "recharge", "--json", out_json)
    assert code == 0
    assert out.splitlines()[-1] == f"wrote {out_json}"
    data = json.loads(out_json.read_text())
    assert list(data) == ["scenario", "variants"]
    assert data["scenario"] == "seed000-memcg-reread"
    assert list(data["variants"]) == ["recharge"]
    v = data["variants"]["recharge"]
    assert list(v) == ["steps", "totals"]
    assert [s["name"] for s in v["steps"]] == ["read 1", "read 2"]
    for s in v["steps"]:
        assert list(s) == ["name", "task", "memcg", "metrics", "resident_pages", "pagecache"]
        assert (s["task"], s["memcg"]) == ("cat", "/ct")
        assert list(s["metrics"]) == memtwin.metric_names()
    assert list(v["totals"]) == memtwin.metric_names()
    assert v["totals"]["read_bytes"] == GIB
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left


def test_run_json_without_variant_is_default(capsys, tmp_path):
    out_json = tmp_path / "run.json"
    assert cli_run(capsys, "run", SEED, "--json", out_json)[0] == 0
    assert list(json.loads(out_json.read_text())["variants"]) == ["default"]


def test_compare_json_layout(capsys, tmp_path):
    out_json = tmp_path / "compare.json"
    code, out, _ = cli_run(capsys, "compare", SEED, "--json", out_json)
    assert code == 0
    assert out.splitlines()[-1] == f"wrote {out_json}"
    data = json.loads(out_json.read_text())
    assert data["scenario"] == "seed000-memcg-reread"
    assert list(data["variants"]) == ["baseline", "recharge"]
    assert step_metric(data, "baseline", "read 2", "read_bytes") == GIB
    assert step_metric(data, "recharge", "read 2", "read_bytes") == 0
    assert data["variants"]["baseline"]["totals"]["read_bytes"] == 2 * GIB


def test_json_matches_the_python_api(capsys, tmp_path):
    out_json = tmp_path / "run.json"
    assert cli_run(capsys, "run", SEED, "--variant", "baseline", "--json", out_json)[0] == 0
    data = json.loads(out_json.read_text())
    r = memtwin.run(SEED, variant="baseline")
    assert data == {"scenario": r.scenario, "variants": {"baseline": r.to_json()}}


def test_json_into_a_missing_directory_fails_before_running(capsys, tmp_path, sim_calls):
    target = tmp_path / "nodir" / "out.json"
    code, out, err = cli_run(capsys, "run", SEED, "--json", target)
    assert code == 2
    assert out == ""
    assert err.splitlines()[0] == f"{target}: error: the directory {tmp_path / 'nodir'} does not exist"
    assert err.splitlines()[1] == f"  fix: create it first (mkdir -p {tmp_path / 'nodir'})"
    assert sim_calls == []
    assert list(tmp_path.iterdir()) == []


def test_compare_json_into_a_missing_directory_fails_before_running(capsys, tmp_path, sim_calls):
    code, out, err = cli_run(capsys, "compare", SEED, "--json", tmp_path / "nodir" / "out.json")
    assert code == 2 and out == "" and sim_calls == []
    assert "does not exist" in err and "\n  fix: " in err
    assert list(tmp_path.iterdir()) == []


def test_json_onto_a_directory_fails_before_running(capsys, tmp_path, sim_calls):
    code, out, err = cli_run(capsys, "run", SEED, "--json", tmp_path)
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines()[0] == f"{tmp_path}: error: is a directory"
    assert err.splitlines()[1] == f"  fix: give a file name, e.g. {tmp_path / 'result.json'}"


def test_json_over_an_existing_file_is_replaced_on_success(capsys, tmp_path):
    out_json = tmp_path / "out.json"
    out_json.write_text("old\n")
    assert cli_run(capsys, "run", SEED, "--variant", "recharge", "--json", out_json)[0] == 0
    assert json.loads(out_json.read_text())["scenario"] == "seed000-memcg-reread"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_json_over_an_existing_file_is_untouched_when_the_scenario_is_invalid(capsys, tmp_path, sim_calls):
    bad = tmp_path / "bad.toml"
    bad.write_text(SEED.read_text().replace('size = "1G"', 'size = "lots"'))
    out_json = tmp_path / "out.json"
    out_json.write_text("old\n")
    before = out_json.stat()
    for cmd in ("run", "compare"):
        code, out, err = cli_run(capsys, cmd, bad, "--json", out_json)
        assert code == 2, err
        assert out == ""
        assert out_json.read_text() == "old\n"
        assert out_json.stat().st_mtime_ns == before.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "out.json"]
    assert sim_calls == []


def test_json_over_an_existing_file_is_untouched_when_writing_fails(capsys, tmp_path, monkeypatch):
    """A failure while the JSON is being written (after the run) leaves the old file and no
    temporary file behind."""
    out_json = tmp_path / "out.json"
    out_json.write_text("old\n")

    real_fdopen = os.fdopen

    class HalfWritten:
        """The temporary file: takes half of what is written, then the disk is full."""

        def __init__(self, fd, mode):
            self.f = real_fdopen(fd, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            self.f.write(data[: len(data) // 2])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr("memtwin.jsonio.os.fdopen", HalfWritten)
    with pytest.raises(OSError):
        main(["run", str(SEED), "--variant", "recharge", "--json", str(out_json)])
    capsys.readouterr()
    assert out_json.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


# --------------------------------------------------------------------------------------------
# --set


def test_set_policy_makes_the_baseline_second_read_cached(capsys, tmp_path):
    plain, with_set = tmp_path / "plain.json", tmp_path / "set.json"
    assert cli_run(capsys, "run", SEED, "--variant", "baseline", "--json", plain)[0] == 0
    code, out, _ = cli_run(capsys, "run", SEED, "--variant", "baseline", "--set",
                           "kernel.policies.recharge_on_pagecache_get=true", "--json", with_set)
    assert code == 0
    assert "kernel profile linux-5.0, cgroup v1, policies: recharge_on_pagecache_get=on," in out.splitlines()
    a, b = json.loads(plain.read_text()), json.loads(with_set.read_text())
    assert step_metric(a, "baseline", "read 2", "read_bytes") == GIB
    assert step_metric(b, "baseline", "read 2", "read_bytes") == 0
    assert step_metric(b, "baseline", "read 1", "read_bytes") == GIB


def test_set_quoted_key_raises_the_limit(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    code, _, err = cli_run(capsys, "run", SEED, "--variant", "baseline", "--set",
                           'cgroups.ct."memory.limit_in_bytes"=2G', "--json", out_json)
    assert code == 0, err
    data = json.loads(out_json.read_text())
    assert step_metric(data, "baseline", "read 2", "read_bytes") == 0
    # The whole file, plus the page cat's dentry and inode (slab) are charged to.
    assert step_metric(data, "baseline", "read 2", "memcg.usage_bytes") == GIB + 4096
    assert step_metric(data, "baseline", "read 2", "memcg.file_bytes") == GIB


def test_set_applies_to_every_variant_of_compare(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    assert cli_run(capsys, "compare", SEED, "--set", "kernel.policies.recharge_on_pagecache_get=true", "--json", out_json)[0] == 0
    data = json.loads(out_json.read_text())
    for v in ("baseline", "recharge"):
        assert step_metric(data, v, "read 2", "read_bytes") == 0


def test_set_without_equals(capsys, sim_calls):
    code, out, err = cli_run(capsys, "run", SEED, "--set", "novalue")
    assert code == 2 and out == "" and sim_calls == []
    lines = err.splitlines()
    assert lines[0] == "--set 'novalue': error: no `=` in the argument"
    assert lines[1].startswith("  fix: write --set KEY=VALUE")


def test_set_with_empty_key(capsys, sim_calls):
    code, out, err = cli_run(capsys, "compare", SEED, "--set", "=3")
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines()[0] == "--set '=3': error: the key before `=` is empty"


def test_set_unknown_key_suggests(capsys, sim_calls):
    code, out, err = cli_run(capsys, "run", SEED, "--set", "machine.rma=3")
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines()[0] == "--set 'machine.rma=3': error: unknown key `rma` in [machine]"
    assert err.splitlines()[1].startswith("  fix: did you mean `ram`?")


def test_check_with_bad_set(capsys):
    code, out, err = cli_run(capsys, "check", SEED, "--set", "machine.cpus=0")
    assert code == 2 and out == ""
    assert err.splitlines()[0] == "--set 'machine.cpus=0': error: machine.cpus is 0"


# --------------------------------------------------------------------------------------------
# Bad scenarios: exact file:line:col, a fix, exit 2, nothing runs.

GOOD = '''\
[scenario]
name = "broken"

[machine]
ram = "1G"

[kernel]
cgroup = "v1"

[devices.sda]
read_bw = "100M"

[files."/data/f"]
size = "4M"

[cgroups.ct]
"memory.limit_in_bytes" = "20M"

[tasks.cat]
cgroup = "ct"
ops = [{ op = "read", file = "/data/f", step = "read 1" }]

[variants.fast]
description = "a faster disk"
devices.sda.read_bw = "1G"
'''

# name: (old, new, line, col, text found at line:col in the broken file, message, fix)
BAD = {
    "unknown key": ('read_bw = "100M"\n', 'read_bw = "100M"\nread_ahaed_kb = 256\n', 12, 1, "read_ahaed_kb",
                    "unknown key `read_ahaed_kb` in [devices.sda]", "did you mean `read_ahead_kb`?"),
    "wrong type (float size)": ('ram = "1G"', "ram = 1.5", 5, 7, "1.5",
                                "machine.ram must be a size, not a float", "write bytes as a number (4096)"),
    "wrong type (quoted count)": ('ram = "1G"\n', 'ram = "1G"\ncpus = "8"\n', 6, 8, '"8"',
                                  "machine.cpus must be a whole number, not a string", "write machine.cpus = 8 (no quotes)"),
    "negative size": ('size = "4M"', 'size = "-20M"', 14, 8, '"-20M"',
                      'files."/data/f".size: "-20M" is negative', 'binary suffix as the kernel does ("128K", "20M", "1G")'),
    "negative limit": ('"memory.limit_in_bytes" = "20M"', '"memory.limit_in_bytes" = "-20M"', 17, 27, '"-20M"',
                       'memory.limit_in_bytes: "-20M" is negative', "write bytes as a number"),
    "unparseable size": ('size = "4M"', 'size = "lots"', 14, 8, '"lots"',
                         'files."/data/f".size: "lots" is not a size', "write bytes as a number"),
    "unparseable bandwidth": ('read_bw = "100M"\n', 'read_bw = "100M"\nwrite_bw = "fast"\n', 12, 12, '"fast"',
                              'devices.sda.write_bw: "fast" is not a size', "write bytes as a number"),
    "negative duration": ('read_bw = "100M"\n', 'read_bw = "100M"\nseek = "-8ms"\n', 12, 8, '"-8ms"',
                          'devices.sda.seek: "-8ms" is negative', 'write a duration with a unit: "5ms", "100us", "2s"'),
    "negative size in an op": ('step = "read 1" }', 'step = "read 1", bufsize = "-1K" }', 21, 68, '"-1K"',
                               'tasks.cat.ops[0].bufsize: "-1K" is negative', "write bytes as a number"),
    "synonym: size in a read op": ('step = "read 1" }', 'step = "read 1", size = "1M" }', 21, 58, "size",
                                   "unknown key `size` in tasks.cat.ops[0]", "did you mean `length`?"),
    "synonym: cpu": ('ram = "1G"\n', 'ram = "1G"\ncpu = 8\n', 6, 1, "cpu",
                     "unknown key `cpu` in [machine]", "did you mean `cpus`?"),
    "synonym: limit (v1)": ('"memory.limit_in_bytes" = "20M"', 'limit = "20M"', 17, 1, "limit",
                            'unknown key `limit` in [cgroups."ct"]', "did you mean `memory.limit_in_bytes`?"),
    "synonym: limit (v2)": ('"memory.limit_in_bytes" = "20M"', 'limit = "20M"', 17, 1, "limit",
                            'unknown key `limit` in [cgroups."ct"]', "did you mean `memory.max`?"),
    "unknown cgroup": ('cgroup = "ct"', 'cgroup = "cx"', 20, 10, '"cx"',
                       "unknown cgroup `cx`", "did you mean `ct`?"),
    "task in two cgroups": ('"memory.limit_in_bytes" = "20M"\n', '"memory.limit_in_bytes" = "20M"\nprocs = ["cat"]\n', 18, 10, '"cat"',
                            "task `cat` is placed in two cgroups (here and in tasks.cat.cgroup)", "keep one placement"),
    "v2 key in v1": ('"memory.limit_in_bytes" = "20M"', '"memory.max" = "20M"', 17, 1, '"memory.max"',
                     "`memory.max` is a cgroup v2 file but this scenario uses cgroup v1", 'use "memory.limit_in_bytes", or set kernel.cgroup = "v2"'),
    "TOML syntax (unquoted size)": ('size = "4M"', "size = 4M", 14, 8, "4M",
                                    "this is not valid TOML", "correct the TOML syntax here"),
    "TOML syntax (unclosed header)": ("[machine]", "[machine", 4, 9, "",
                                      "this is not valid TOML: unclosed table, expected `]`", "correct the TOML syntax here"),
    "unknown file in an op": ('file = "/data/f"', 'file = "/data/g"', 21, 30, '"/data/g"',
                              "unknown file `/data/g`", "did you mean `/data/f`?"),
    "unknown key in a variant": ('description = "a faster disk"\n', 'description = "a faster disk"\nmachin.cpus = 2\n', 25, 1, "machin",
                                 "unknown key `machin` in [variants.fast]", "did you mean `machine`?"),
}


def _broken(tmp_path: Path, name: str) -> tuple[Path, tuple]:
    old, new, line, col, token, message, fix = BAD[name]
    assert GOOD.count(old) == 1
    text = GOOD.replace(old, new)
    if name.endswith("(v2)"):  # the same file with kernel.cgroup = "v2"
        assert text.count('cgroup = "v1"') == 1
        text = text.replace('cgroup = "v1"', 'cgroup = "v2"')
    # The test's own expectation, checked against the text: `token` starts at line:col.
    assert text.splitlines()[line - 1][col - 1:].startswith(token)
    path = tmp_path / "broken.toml"
    path.write_text(text)
    return path, (line, col, message, fix)


def test_the_good_file_is_good(capsys, tmp_path):
    path = tmp_path / "good.toml"
    path.write_text(GOOD)
    code, out, err = cli_run(capsys, "check", path)
    assert (code, err) == (0, "")
    assert out == f"{path}: ok (1 variant: fast)\n"


@pytest.mark.parametrize("cmd", ["run", "compare", "check"])
@pytest.mark.parametrize("name", list(BAD))
def test_bad_scenario(capsys, tmp_path, sim_calls, cmd, name):
    path, (line, col, message, fix) = _broken(tmp_path, name)
    args = [cmd, path, "--json", tmp_path / "out.json"] if cmd != "check" else [cmd, path]
    if cmd == "run" and name == "unknown key in a variant":
        args += ["--variant", "fast"]  # variants are checked when they are run
    code, out, err = cli_run(capsys, *args)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith(f"{path}:{line}:{col}: error: "), err
    assert message in lines[0]
    assert lines[1].startswith("  fix: ")
    assert fix in lines[1]
    assert sim_calls == []
    assert not (tmp_path / "out.json").exists()


def test_several_errors_are_all_reported(capsys, tmp_path, sim_calls):
    text = GOOD.replace('size = "4M"', 'size = "lots"').replace('cgroup = "ct"', 'cgroup = "cx"')
    path = tmp_path / "two.toml"
    path.write_text(text)
    code, out, err = cli_run(capsys, "check", path)
    assert code == 2 and out == ""
    heads = [ln for ln in err.splitlines() if not ln.startswith("  fix: ")]
    assert heads == [f'{path}:14:8: error: files."/data/f".size: "lots" is not a size',
                     f"{path}:20:10: error: unknown cgroup `cx`"]
    assert err.count("\n  fix: ") == 2


def test_unknown_variant(capsys, tmp_path, sim_calls):
    path = tmp_path / "good.toml"
    path.write_text(GOOD)
    code, out, err = cli_run(capsys, "run", path, "--variant", "fsat")
    assert code == 2 and out == "" and sim_calls == []
    lines = err.splitlines()
    # The bad name comes from the command line: the engine names the option, not a place in the file.
    assert lines[0] == f"--variant fsat: error: {path} has no variant `fsat`"
    assert lines[1] == "  fix: did you mean `fast`? use one of: fast"


def test_unknown_variant_in_a_scenario_without_variants(capsys, tmp_path, sim_calls):
    path = tmp_path / "novariants.toml"
    path.write_text(GOOD[: GOOD.index("[variants.fast]")])
    code, out, err = cli_run(capsys, "run", path, "--variant", "fast")
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines() == [f"--variant fast: error: {path} has no variant `fast`",
                                "  fix: run without --variant: this scenario declares no [variants.NAME] tables"]


def test_unknown_variant_in_compare(capsys, tmp_path, sim_calls):
    # --variants is validated name by name, as --variant is, before anything runs.
    code, out, err = cli_run(capsys, "compare", SEED, "--variants", "baseline,rechrge", "--json", tmp_path / "r.json")
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines() == [f"--variants baseline,rechrge: error: {SEED} has no variant `rechrge`",
                                "  fix: did you mean `recharge`? use some of: baseline, recharge"]
    assert list(tmp_path.iterdir()) == []


def test_unknown_variant_in_compare_is_reported_even_after_good_ones(capsys, sim_calls):
    code, out, err = cli_run(capsys, "compare", SEED, "--variants", "recharge,baseline,nosuch")
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines() == [f"--variants recharge,baseline,nosuch: error: {SEED} has no variant `nosuch`",
                                "  fix: use some of: baseline, recharge"]


def test_unknown_variant_in_compare_of_a_scenario_without_variants(capsys, tmp_path, sim_calls):
    path = tmp_path / "novariants.toml"
    path.write_text(GOOD[: GOOD.index("[variants.fast]")])
    code, out, err = cli_run(capsys, "compare", path, "--variants", "fast")
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines() == [f"--variants fast: error: {path} declares no variants",
                                "  fix: run without --variants: this scenario declares no [variants.NAME] tables"]


def test_unknown_variant_in_seed000(capsys, sim_calls):
    code, out, err = cli_run(capsys, "run", SEED, "--variant", "recharg")
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines() == [f"--variant recharg: error: {SEED} has no variant `recharg`",
                                "  fix: did you mean `recharge`? use one of: baseline, recharge"]


def test_unknown_metric_option(capsys, sim_calls):
    code, out, err = cli_run(capsys, "run", SEED, "--metrics", "elapsed_s,elapsed")
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines() == ["--metrics: error: unknown metric(s) elapsed", "  fix: see `memtwin metrics` for the names"]


@pytest.mark.parametrize("cmd", ["run", "compare", "check"])
def test_missing_file(capsys, tmp_path, sim_calls, cmd):
    path = tmp_path / "missing.toml"
    code, out, err = cli_run(capsys, cmd, path)
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines() == [f"{path}: error: no such file", "  fix: check the path; scenarios live in scenarios/*.toml"]


@pytest.mark.parametrize("cmd", ["run", "compare", "check"])
def test_directory_as_file(capsys, tmp_path, sim_calls, cmd):
    code, out, err = cli_run(capsys, cmd, tmp_path)
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines()[0] == f"{tmp_path}: error: this is a directory, not a scenario file"
    assert err.splitlines()[1].startswith("  fix: name a .toml scenario file")


def test_not_utf8(capsys, tmp_path, sim_calls):
    path = tmp_path / "latin1.toml"
    text = GOOD.replace('"broken"', '"caf\xe9"')
    path.write_bytes(text.encode("latin-1"))
    code, out, err = cli_run(capsys, "run", path)
    assert code == 2 and out == "" and sim_calls == []
    i = text.index("\xe9")
    line, col = text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)
    assert err.splitlines()[0].startswith(f"{path}:{line}:{col}: error: the file is not UTF-8 text: byte 0xe9"), err


def test_multiline_inline_table_in_ops(capsys, tmp_path):
    # An inline table spanning lines (TOML 1.1): only the engine parses the file, so it is accepted,
    # and it means what the one-line table means.
    path = tmp_path / "multiline.toml"
    path.write_text(GOOD.replace('ops = [{ op = "read", file = "/data/f", step = "read 1" }]',
                                 'ops = [\n  { op = "read", file = "/data/f",\n    step = "read 1" },\n]'))
    code, out, err = cli_run(capsys, "check", path)
    assert (code, err) == (0, "")
    assert out == f"{path}: ok (1 variant: fast)\n"
    good = tmp_path / "good.toml"
    good.write_text(GOOD)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert cli_run(capsys, "run", path, "--variant", "fast", "--json", a)[0] == 0
    assert cli_run(capsys, "run", good, "--variant", "fast", "--json", b)[0] == 0
    assert json.loads(a.read_text()) == json.loads(b.read_text())
    assert step_metric(json.loads(a.read_text()), "fast", "read 1", "read_bytes") == 4 << 20


@pytest.mark.parametrize("cmd", ["run", "compare", "check"])
def test_scenario_that_is_not_a_table(capsys, tmp_path, sim_calls, cmd):
    path = tmp_path / "s.toml"
    path.write_text('scenario = "x"\n' + GOOD[GOOD.index("[machine]"):])
    code, out, err = cli_run(capsys, cmd, path)
    assert code == 2 and out == "" and sim_calls == []
    assert err.splitlines() == [f"{path}:1:12: error: [scenario] must be a table, not a string",
                                "  fix: write [scenario] as a [table] of keys"]


# Malformed [published] tables: (old, new in the seed, where after "FILE: ", message, fix).
BAD_PUBLISHED = {
    "unknown check kind": ('kind = "ratio"\na = "baseline', 'kind = "ratio_of"\na = "baseline', "published.checks[0]",
                           "unknown check kind `ratio_of`", 'write kind = "ratio", "published" or "growth"'),
    "unknown key in [published]": ('source = "Kirill', 'sources = "Kirill', "published.sources",
                                   "unknown key `sources` in [published]", "remove it; [published] takes checks, figures, source, table"),
    "unknown key in a check": ("min = 0.95\nmax = 1.05", "min = 0.95\nmx = 1.05", "published.checks[0]",
                               "unknown key `mx` in a ratio check", "remove it; a ratio check takes a, b, kind, max, min, name"),
    "missing ref": ('a = "baseline/read 2/elapsed_s"\n', "", "published.checks[0]",
                    "`a` is missing or not a string", 'add a = "VARIANT/STEP/METRIC"'),
    "malformed ref": ('a = "baseline/read 2/elapsed_s"', 'a = "baseline/elapsed_s"', "published.checks[0]",
                      "`baseline/elapsed_s` is not VARIANT/STEP/METRIC", 'write e.g. "recharge/read 2/sys_s"'),
    "ref to an undeclared variant": ('at = "recharge/read 2/sys_s"', 'at = "rechrage/read 2/sys_s"', "published.checks[2]",
                                     "`rechrage/read 2/sys_s` names no declared variant", "use one of: baseline, recharge"),
    "ratio without min or max": ("min = 0.95\nmax = 1.05\n", "", "published.checks[0]",
                                 "a ratio check needs `min` or `max`", "add min = 30.0 or max = 1.05"),
    "bound that is not a number": ("min = 30.0", 'min = "30x"', "published.checks[1]",
                                   "min and max must be numbers", "write min = 0.95"),
    "published check without rel_tol": ("rel_tol = 0.30\n", "", "published.checks[2]",
                                        "a published check needs a `rel_tol` of 0 or more", "add rel_tol = 0.30 (30%)"),
    "figure that is not a number": ('elapsed_s = 0.28', 'elapsed_s = "0.28s"', 'published.figures.recharge."read 2".elapsed_s',
                                    "a published figure must be a number", "write the figure as a number, e.g. 0.28"),
    "published check without a figure": ('at = "recharge/read 2/sys_s"', 'at = "recharge/read 2/read_bytes"', "published.checks[2]",
                                         'no published figure at figures.recharge."read 2".read_bytes',
                                         "add the figure to [published.figures...]"),
}


@pytest.mark.parametrize("cmd", ["run", "compare", "check"])
@pytest.mark.parametrize("name", list(BAD_PUBLISHED))
def test_malformed_published_table_is_found_before_running(capsys, tmp_path, sim_calls, cmd, name):
    old, new, where, message, fix = BAD_PUBLISHED[name]
    text = SEED.read_text()
    assert text.count(old) == 1, old
    path = tmp_path / "p.toml"
    path.write_text(text.replace(old, new))
    args = [cmd, path] if cmd == "check" else [cmd, path, "--json", tmp_path / "out.json"]
    code, out, err = cli_run(capsys, *args)
    assert code == 2
    assert out == ""
    # Placed at the file:line:col of the key path's deepest key (kept in the message).
    m = re.fullmatch(rf"{re.escape(str(path))}:(\d+):(\d+): error: {re.escape(where)}: {re.escape(message)}", err.splitlines()[0])
    assert m, err
    assert int(m.group(1)) > text.replace(old, new)[: text.replace(old, new).index("[published")].count("\n"), err
    assert err.splitlines()[1:] == [f"  fix: {fix}"]
    assert sim_calls == []
    assert not (tmp_path / "out.json").exists()


def test_check_naming_a_variant_in_a_scenario_without_variants(capsys, tmp_path, sim_calls):
    path = tmp_path / "p.toml"
    path.write_text(GOOD[: GOOD.index("[variants.fast]")] + '\n[[published.checks]]\nkind = "ratio"\n'
                    'a = "fast/read 1/elapsed_s"\nb = "default/read 1/elapsed_s"\nmin = 2\n')
    code, out, err = cli_run(capsys, "compare", path, "--check")
    assert code == 2 and out == "" and sim_calls == []
    line = GOOD[: GOOD.index("[variants.fast]")].count("\n") + 2
    assert err.splitlines()[0] == f"{path}:{line}:1: error: published.checks[0]: `fast/read 1/elapsed_s` names no declared variant"
    assert err.splitlines()[1].startswith("  fix: ")


@pytest.mark.parametrize("old,new", [('a = "recharge/read 1/elapsed_s"', 'a = "recharge/read 1/elapsed"'),
                                     ('a = "recharge/read 1/elapsed_s"', 'a = "recharge/read 3/elapsed_s"')],
                         ids=["unknown metric", "unknown step"])
def test_check_naming_an_unknown_metric_or_step_is_found_before_running(capsys, tmp_path, sim_calls, old, new):
    path = tmp_path / "p.toml"
    path.write_text(SEED.read_text().replace(old, new))
    code, out, err = cli_run(capsys, "compare", path)
    assert code == 2
    assert out == "" and sim_calls == []
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: error: published.checks\[1\]: ", err.splitlines()[0]), err


# --------------------------------------------------------------------------------------------
# check, metrics, profiles


def test_check_seed000(capsys, sim_calls):
    code, out, err = cli_run(capsys, "check", SEED)
    assert (code, err) == (0, "")
    assert out == f"{SEED}: ok (2 variants: baseline, recharge)\n"
    assert sim_calls == []


def test_check_with_set(capsys):
    code, out, _ = cli_run(capsys, "check", SEED, "--set", "kernel.profile=linux-6.6")
    assert code == 0 and out.endswith("ok (2 variants: baseline, recharge)\n")


def test_metrics(capsys):
    code, out, err = cli_run(capsys, "metrics")
    assert (code, err) == (0, "")
    # Every metric, then those a step reports only on profiles with reclaim_throttle() (5.16+),
    # then those only under kernel.lru_gen = true.
    assert out.splitlines() == (memtwin.metric_names() + memtwin.vmscan_throttled_metric_names() + memtwin.lru_gen_metric_names()
                                + memtwin.sched_metric_names() + memtwin._memtwin.shmem_metric_names())
    assert memtwin.vmscan_throttled_metric_names() == [f"vmscan.throttled.{r}" for r in ("writeback", "isolated", "noprogress", "congested")]
    assert out.splitlines()[:5] == ["elapsed_s", "user_s", "sys_s", "iowait_s", "read_bytes"]
    assert "memcg.lru_gen.gen0.file_pages" in out.splitlines()


def test_profiles(capsys):
    code, out, err = cli_run(capsys, "profiles")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines] == ["linux-6.18", "linux-6.12", "linux-6.12-lru_gen", "linux-6.6", "linux-6.6-lru_gen", "linux-6.1", "linux-6.1-lab", "linux-5.17", "linux-5.0", "linux-4.4", "linux-4.3", "linux-3.13"]
    for (name, desc), ln in zip(memtwin.profiles(), lines):
        assert ln == f"{name:10}  {desc}"


# --------------------------------------------------------------------------------------------
# compare --check


def test_compare_check_passes_on_seed000(capsys):
    code, out, _ = cli_run(capsys, "compare", SEED, "--check")
    assert code == 0
    assert "FAIL" not in out


def _tightened(tmp_path: Path) -> Path:
    path = tmp_path / "tight.toml"
    text = SEED.read_text()
    assert text.count("rel_tol = 0.30") == 1
    path.write_text(text.replace("rel_tol = 0.30", "rel_tol = 0.05"))
    return path


def test_compare_check_fails_when_a_target_is_missed(capsys, tmp_path):
    path = _tightened(tmp_path)
    out_json = tmp_path / "r.json"
    code, out, _ = cli_run(capsys, "compare", path, "--check", "--json", out_json)
    assert code == 1
    fails = [ln for ln in unwrapped(out) if ln.startswith("  FAIL")]
    assert len(fails) == 1
    assert fails[0].startswith("  FAIL  recharge: sys time of the cached read within 30% of the seed's: ")
    assert fails[0].endswith("tolerance 5%)")
    assert out_json.exists()  # the results are still written


def test_compare_without_check_exits_0_on_a_missed_target(capsys, tmp_path):
    code, out, _ = cli_run(capsys, "compare", _tightened(tmp_path))
    assert code == 0
    assert "  FAIL  recharge: sys time" in out


def test_compare_check_fails_on_an_unmet_ratio(capsys, tmp_path):
    path = tmp_path / "ratio.toml"
    text = SEED.read_text()
    assert text.count("min = 30.0") == 1
    path.write_text(text.replace("min = 30.0", "min = 1000.0"))
    code, out, _ = cli_run(capsys, "compare", path, "--check")
    assert code == 1
    assert "  FAIL  recharge: the second read is at least 30x faster than the first (seed: 39x): " in out


def test_copied_scenario_still_passes(capsys, tmp_path):
    path = tmp_path / "copy.toml"
    shutil.copy(SEED, path)
    assert cli_run(capsys, "compare", path, "--check")[0] == 0


# --------------------------------------------------------------------------------------------
# As a subprocess


def _subprocess(*args):
    env = dict(os.environ, MEMTWIN_PROGRESS="0")
    return subprocess.run([sys.executable, "-m", "memtwin.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)


def test_subprocess_compare_json(tmp_path):
    out_json = tmp_path / "r.json"
    p = _subprocess("compare", "scenarios/seed000-memcg-reread.toml", "--check", "--json", out_json)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert "PASS  recharge: the second read is at least 30x faster" in p.stdout
    assert list(json.loads(out_json.read_text())["variants"]) == ["baseline", "recharge"]


def test_python_dash_m_memtwin_is_the_command():
    """`python -m memtwin` runs the CLI (python/memtwin/__main__.py): its usage names `memtwin`,
    a bad argument exits 2 with argparse's error and no traceback."""
    env = dict(os.environ, MEMTWIN_PROGRESS="0")
    ok = subprocess.run([sys.executable, "-m", "memtwin", "--help"], capture_output=True, text=True, cwd=ROOT, env=env,
                        timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("usage: memtwin "), ok.stdout[:200]
    bad = subprocess.run([sys.executable, "-m", "memtwin", "no-such-command"], capture_output=True, text=True, cwd=ROOT,
                         env=env, timeout=120)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr and "Traceback" not in bad.stderr, bad.stderr


def test_subprocess_error_exit_code(tmp_path):
    path, (line, col, message, _) = _broken(tmp_path, "negative size")
    p = _subprocess("run", path)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.startswith(f"{path}:{line}:{col}: error: ")
    assert message in p.stderr


def test_stdout_closed_by_its_reader_ends_quietly(monkeypatch, capsys):
    """`memtwin metrics | head -1` once head has gone: writing to a pipe whose reader is closed
    fails with EPIPE (Python ignores SIGPIPE); memtwin stops with 128 + SIGPIPE, prints no
    traceback, and what is left to print goes nowhere."""
    import os

    r, w = os.pipe()
    os.close(r)  # the reader has gone before the first line
    out = os.fdopen(w, "w", buffering=1)  # line-buffered: the first line's write meets EPIPE
    monkeypatch.setattr(sys, "stdout", out)
    try:
        assert cli.main(["metrics"]) == 141
    finally:
        monkeypatch.undo()
        out.close()
    assert "Traceback" not in capsys.readouterr().err
