"""A newcomer's bad inputs through `memtwin check` and `memtwin run` (memtwin.cli.main): each is
refused before anything runs, with `file:line:col`, what is wrong, the limit and a fix; exit
code 2; never a Rust panic, an abort or a Debug dump of the engine's structures."""

from __future__ import annotations

import pytest

from conftest import cli_run

SCENARIO = """[scenario]
name = "bad"
[machine]
ram = "{ram}"
cpus = {cpus}
[kernel]
cgroup = "{cgroup}"
[devices.sda]
read_bw = "100G"
[files."/big"]
size = "{size}"
[cgroups.ct]
{limit}
[tasks.cat]
cgroup = "ct"
ops = [{{ op = "read", file = "/big", bufsize = "128K", step = "read" }}, {{ op = "sleep", duration = "{sleep}", step = "nap" }}]
"""


def scenario(tmp_path, **over) -> str:
    p = dict(ram="64G", cpus=2, cgroup="v2", size="1G", limit="", sleep="1s")
    p.update(over)
    f = tmp_path / "bad.toml"
    f.write_text(SCENARIO.format(**p))
    return str(f)


@pytest.mark.parametrize(
    "over, place, words",
    [
        (dict(ram="1P"), "4:7", ["machine.ram is 1 PiB", "at most 2 TiB"]),
        (dict(cpus=100000000), "5:8", ["machine.cpus is 100000000", "8192"]),
        (dict(size="16T"), "11:8", ["files.\"/big\".size is 16 TiB", "8 TiB"]),
        (dict(sleep="100000000h"), "16:", ["tasks.cat.ops[1].duration is \"100000000h\"", "one year"]),
    ],
)
@pytest.mark.parametrize("cmd", ["check", "run"])
def test_limits_are_checked_before_anything_runs(capsys, tmp_path, over, place, words, cmd):
    f = scenario(tmp_path, **over)
    code, out, err = cli_run(capsys, cmd, f)
    assert code == 2, (out, err)
    assert err.startswith(f"{f}:{place}"), err
    assert ": error: " in err and "\n  fix: " in err, err
    for w in words:
        assert w in err, err
    assert "Traceback" not in err and "panicked" not in err


def test_a_1tib_file_on_a_64g_machine_is_accepted(capsys, tmp_path):
    code, out, err = cli_run(capsys, "check", scenario(tmp_path, size="1T"))
    assert code == 0, err


@pytest.mark.parametrize("cgroup, limit", [("v1", '"memory.limit_in_bytes" = "0"'), ("v2", '"memory.max" = 0')])
def test_a_zero_limit_runs_and_says_why_the_read_failed(capsys, tmp_path, cgroup, limit):
    code, out, err = cli_run(capsys, "run", scenario(tmp_path, cgroup=cgroup, limit=limit))
    assert code == 0, err
    key = limit.split("=")[0].strip().strip('"')
    assert 'step "read", op 0 (read /big): ENOMEM: cgroup `ct` has ' + key + " = 0" in err, err
    assert "Read {" not in err and "bufsize:" not in err, err


def test_binary_garbage_names_the_first_bad_byte(capsys, tmp_path):
    f = tmp_path / "garbage.toml"
    f.write_bytes(b'[scenario]\nname = "\xc3\xa9t\xc3\xa9"\n\x00\xff\xfe\x01binary')
    for cmd in ("check", "run"):
        code, out, err = cli_run(capsys, cmd, f)
        assert code == 2 and out == ""
        # Line 3: the NUL is valid UTF-8 (TOML refuses it later); 0xff at column 2 is not.
        assert err.startswith(f"{f}:3:2: error: the file is not UTF-8 text: byte 0xff (offset 27)"), err
        assert "\n  fix: " in err


def test_a_duplicate_table_is_named_with_both_places(capsys, tmp_path):
    f = tmp_path / "dup.toml"
    f.write_text(SCENARIO.format(ram="1G", cpus=2, cgroup="v2", size="1M", limit="", sleep="1s") + '[tasks.cat]\nops = [{ op = "sleep", duration = "1s" }]\n')
    code, out, err = cli_run(capsys, "check", f)
    assert code == 2
    assert err.startswith(f"{f}:17:8: error: duplicate key `tasks.cat`: the table [tasks.cat] is defined twice (first at {f}:14:1)"), err
    assert "fix: merge the two [tasks.cat] tables" in err
