"""Fuzzing the scenario loader (Hypothesis): mutated versions of every scenario in scenarios/
(byte flips, deleted lines, values replaced with huge, negative, zero or garbage ones,
duplicated tables, truncations) and generated small scenarios. Every input either loads (and,
for generated ones, runs within a wall-clock budget) or raises ScenarioError whose message
names `file:line:col` and has a fix; never a Rust panic (pyo3's PanicException), an abort, a
hang or another exception.

Each case runs in a forked child with a timeout, so that an abort or a hang fails the case
instead of the test run. Mutated seeds are only checked (they are full size); generated
scenarios are small and run, stopped by the progress callback after `RUN_BUDGET_S` of wall
time. The examples are derandomized and bounded, so CI sees the same cases every time.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import time
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SEEDS = sorted(
    [p for d in ("scenarios", "scenarios/validation", "scenarios/wip") for p in (ROOT / d).glob("*.toml")],
)
SEED_TEXT = {p.name: p.read_bytes() for p in SEEDS}
RUN_BUDGET_S = 2.0
CASE_TIMEOUT_S = 60.0
# `PLACE: error: WHAT` then `  fix: HOW`; PLACE is file:line:col.
ERROR = re.compile(r"^(?P<file>[^\n]*?):(?P<line>\d+):(?P<col>\d+): error: [^\n]+\n  fix: \S")

SETTINGS = settings(
    max_examples=int(os.environ.get("MEMTWIN_FUZZ_EXAMPLES", "120")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


class _Budget(Exception):
    pass


def _child(path: str, run: bool, conn) -> None:
    try:
        from memtwin.api import load
        from memtwin._memtwin import ScenarioError

        try:
            scn = load(path)
            declared = [v for v, _ in scn.variants()]
            for v in declared or [None]:
                scn.check(v)
            failures = []
            if run:
                start = time.monotonic()

                def budget(done, total):
                    if time.monotonic() - start > RUN_BUDGET_S:
                        raise _Budget()

                for v in (declared or [None])[:2]:
                    try:
                        failures += scn.doc.run(v, [], budget).get("errors", [])
                    except _Budget:
                        break
            conn.send(("ok", "\n".join(failures)))
        except ScenarioError as e:
            conn.send(("error", e.args[0] if e.args else ""))
    except BaseException as e:  # a PanicException is a BaseException
        conn.send(("crash", f"{type(e).__module__}.{type(e).__name__}: {e}\n{traceback.format_exc()}"))
    finally:
        conn.close()
        os._exit(0)


def outcome(text: bytes, run: bool, tmp: Path) -> tuple[str, str, str]:
    """(kind, message, path) of loading (and maybe running) `text` in a forked child: kind is
    ok, error (a ScenarioError), crash (any other exception), abort or hang."""
    path = tmp / "fuzz.toml"
    path.write_bytes(text)
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(str(path), run, send))
    p.start()
    send.close()
    got = recv.recv() if recv.poll(CASE_TIMEOUT_S) else None
    p.join(5)
    if p.is_alive():
        p.kill()
        p.join()
        return "hang", f"no answer in {CASE_TIMEOUT_S} s", str(path)
    if got is None:
        return "abort", f"the child died (exit code {p.exitcode})", str(path)
    return got[0], got[1], str(path)


def assert_clean(text: bytes, run: bool, tmp: Path) -> tuple[str, str]:
    kind, msg, path = outcome(text, run, tmp)
    shown = text[:3000].decode("utf-8", "replace")
    assert kind in ("ok", "error"), f"{kind}: {msg}\n--- input ---\n{shown}"
    if kind == "ok":
        # The failed ops' messages describe them as the scenario does, not as Rust values.
        assert not re.search(r"\b[A-Z]\w* \{ \w+: ", msg), f"a Debug dump in an op's failure:\n{msg}"
    if kind == "error":
        m = ERROR.match(msg)
        assert m, f"no file:line:col and fix in:\n{msg}\n--- input ---\n{shown}"
        assert m.group("file") == path, msg
        for bad in ("PanicException", "panicked", "Traceback", "RUST_BACKTRACE", "Some(", "Read {", "Write {"):
            assert bad not in msg, f"{bad} in:\n{msg}"
    return kind, msg


# --------------------------------------------------------------------------------------------
# Mutated seeds

BAD_VALUES = [
    "0", "-1", "1", "-9223372036854775808", "9223372036854775807", "18446744073709551616",
    '"0"', '"-1"', '"1P"', '"16E"', '"17179869184T"', '"99999999999999999999E"', '"1.5"', '"0.0001K"',
    '"100000000h"', '"1e30s"', '"-5s"', '"0ns"', '"nan"', '""', '"garbage"', '"max"', '"\\u0000"',
    "nan", "inf", "-inf", "1e308", "0.0", "true", "[]", "{}", '[1, "a", {}]', '{ x = 1 }', "1979-05-27",
]


@st.composite
def mutated_seed(draw) -> bytes:
    name = draw(st.sampled_from(sorted(SEED_TEXT)))
    data = bytearray(SEED_TEXT[name])
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "delete_line", "value", "value", "value", "dup_table", "truncate"]))
        lines = bytes(data).split(b"\n")
        if kind == "flip" and data:
            i = draw(st.integers(0, len(data) - 1))
            data[i] = draw(st.integers(0, 255))
        elif kind == "delete_line" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
            data = bytearray(b"\n".join(lines))
        elif kind == "value":
            assigns = [i for i, l in enumerate(lines) if re.match(rb"^\s*[\w\".-]+\s*=\s*\S", l)]
            if assigns:
                i = draw(st.sampled_from(assigns))
                key = lines[i].split(b"=", 1)[0]
                lines[i] = key + b"= " + draw(st.sampled_from(BAD_VALUES)).encode()
                data = bytearray(b"\n".join(lines))
        elif kind == "dup_table":
            heads = [i for i, l in enumerate(lines) if l.startswith(b"[") and not l.startswith(b"[[")]
            if heads:
                i = draw(st.sampled_from(heads))
                j = next((k for k in range(i + 1, len(lines)) if lines[k].startswith(b"[")), len(lines))
                lines += lines[i:j]
                data = bytearray(b"\n".join(lines))
        elif kind == "truncate" and data:
            data = data[: draw(st.integers(0, len(data) - 1))]
    return bytes(data)


@SETTINGS
@given(text=mutated_seed())
def test_mutated_seeds_load_or_say_where(text, tmp_path_factory):
    assert_clean(text, False, tmp_path_factory.mktemp("mut"))


# --------------------------------------------------------------------------------------------
# Generated small scenarios, run

def q(s: str) -> str:
    return json.dumps(s)


SIZES = st.sampled_from(["0", "1", "4K", "100K", "1M", "8M", "64M"])
EDGE_SIZES = st.sampled_from(["0", '"0"', '"1P"', '"9T"', "-1", '"garbage"', "18446744073709551615", '"1.5G"'])
DURATIONS = st.sampled_from(['"0s"', '"1ms"', '"10ms"', '"1s"', "0"])
EDGE_DURATIONS = st.sampled_from(['"100000000h"', '"9000h"', '"8000h"', '"-1s"', '"1e30s"', '"5"', "3"])


def edge(normal, weird):
    """Mostly `normal`, one time in 40 `weird`: a generated scenario has a few dozen values,
    and most cases should run."""
    return st.integers(0, 39).flatmap(lambda i: weird if i == 0 else normal)


@st.composite
def op(draw, files: list, cgroups: list, task: str) -> str:
    f = draw(st.sampled_from(files)) if files else "/nofile"
    kind = draw(edge(st.sampled_from(["read", "read", "read", "write", "write", "stat", "fsync", "sleep", "fadvise", "mkdir",
                                      "rmdir", "move", "mmap", "exec", "post", "cp", "grep", "repeat", "repeat"]),
                     st.sampled_from(["wait", "bogus"])))
    size = lambda: draw(edge(SIZES.map(lambda s: s if s.isdigit() else q(s)), EDGE_SIZES))
    if kind == "read":
        extra = ""
        if draw(st.booleans()):
            count = draw(edge(st.integers(0, 50).map(str), st.sampled_from(["-1", "1000000000000", '"x"'])))
            extra += f', pattern = "random", count = {count}'
        if draw(st.booleans()):
            extra += f", bufsize = {size()}"
        if draw(st.booleans()):
            extra += f", offset = {size()}"
        if draw(st.booleans()):
            advice = draw(edge(st.sampled_from(["normal", "sequential", "random"]), st.just("weird")))
            extra += f", fadvise = {q(advice)}"
        return f"{{ op = \"read\", file = {q(f)}{extra} }}"
    if kind == "write":
        fsync = draw(st.sampled_from(["true", "false"]))
        return f'{{ op = "write", file = {q(f)}, length = {size()}, fsync = {fsync} }}'
    if kind in ("stat", "fsync"):
        return f"{{ op = {q(kind)}, file = {q(f)} }}"
    if kind == "sleep":
        return f"{{ op = \"sleep\", duration = {draw(edge(DURATIONS, EDGE_DURATIONS))} }}"
    if kind == "fadvise":
        advice = draw(edge(st.sampled_from(["dontneed", "willneed"]), st.just("x")))
        return f'{{ op = "fadvise", path = {q(f)}, advice = {q(advice)} }}'
    if kind in ("mkdir", "rmdir", "move"):
        names = (["new"] if kind == "mkdir" else cgroups + ["/", "new"])
        cg = draw(edge(st.sampled_from(names), st.sampled_from(["/", "new/1", "../x", "nope"])))
        return f"{{ op = {q(kind)}, cgroup = {q(cg)} }}"
    if kind == "mmap":
        return f"{{ op = \"mmap\", name = \"m\", size = {size()} }}, {{ op = \"touch\", name = \"m\" }}, {{ op = \"munmap\", name = \"m\" }}"
    if kind == "exec":
        return "{ op = \"exec\", program = \"dd\" }"
    if kind in ("post", "wait"):
        return f"{{ op = {q(kind)}, event = \"e\" }}"
    if kind == "cp":
        return f"{{ op = \"cp\", src = {q(f)}, dst = \"/copy{task}\" }}"
    if kind == "grep":
        return f"{{ op = \"grep\", path = {q(f)} }}"
    if kind == "repeat":
        times = draw(edge(st.integers(0, 5).map(str), st.sampled_from(["-3", "4611686018427387904", '"many"'])))
        return f"{{ op = \"repeat\", times = {times}, ops = [{{ op = \"sleep\", duration = \"1ms\" }}, {{ op = \"stat\", file = {q(f)} }}] }}"
    return "{ op = \"bogus\" }"


@st.composite
def generated(draw) -> bytes:
    ram = draw(edge(st.sampled_from(['"64M"', '"256M"', '"1G"']), st.sampled_from(['"1P"', '"1M"', "0", '"2T"', "-5"])))
    cpus = draw(edge(st.integers(1, 8).map(str), st.sampled_from(["0", "100000000", "-1", '"two"'])))
    profile = draw(edge(st.sampled_from(["linux-6.6", "linux-6.1", "linux-6.1-lab", "linux-5.17", "linux-5.0", "linux-4.4", "linux-4.3", "linux-3.13"]), st.just("linux-9.9")))
    version = draw(st.sampled_from(["v1", "v2"]))
    bw = draw(edge(st.sampled_from(['"100M"', '"1G"']), st.sampled_from(["0", "1", '"1E"', '"x"'])))
    out = [
        "[scenario]", f"name = {q('gen')}", "[machine]", f"ram = {ram}", f"cpus = {cpus}",
        "[kernel]", f"profile = {q(profile)}", f"cgroup = {q(version)}",
        "[devices.sda]", f"read_bw = {bw}",
    ]
    if draw(st.integers(0, 5)) == 0:
        seek = draw(edge(st.sampled_from(['"0s"', '"5ms"']), EDGE_DURATIONS))
        out.append(f"seek = {seek}")
    if draw(st.booleans()):
        ra = draw(st.sampled_from(["0", "128", "4096", "100000000000"]))
        out.append(f"read_ahead_kb = {ra}")
    files = []
    for i in range(draw(st.integers(0, 3).flatmap(lambda n: st.just(1) if n == 0 else st.integers(0, 3)))):
        path = f"/data/f{i}"
        files.append(path)
        out += [f"[files.{q(path)}]", f"size = {draw(edge(SIZES.map(q), EDGE_SIZES))}"]
    if draw(st.integers(0, 3)) == 0:
        # 20000000: more than the engine's limit of files (scenario/limits.rs MAX_FILES, 16
        # million), a located error; a count within it would build millions of files.
        count = draw(st.sampled_from(["0", "3", "3", "20000000", "-2"]))
        dsize = draw(edge(SIZES.map(q), EDGE_SIZES))
        out += ['[dirs."/d"]', f"files = {{ count = {count}, size = {dsize} }}"]
        files.append("/d/f1")
    cgroups = []
    limit_key = "memory.limit_in_bytes" if version == "v1" else "memory.max"
    for i in range(draw(st.integers(0, 2))):
        cgroups.append(f"c{i}")
        limit = draw(edge(st.sampled_from(['"0"', "0", '"max"', '"1M"', '"4M"', '"50M"', '"50M"']), st.sampled_from(['"-1"', '"1P"'])))
        out += [f"[cgroups.c{i}]", f"{q(limit_key)} = {limit}"]
    for t in range(draw(st.integers(1, 3))):
        ops = [draw(op(files, cgroups, str(t))) for _ in range(draw(st.integers(1, 4)))]
        out.append(f"[tasks.t{t}]")
        if cgroups and draw(st.booleans()):
            out.append(f"cgroup = {q(draw(st.sampled_from(cgroups)))}")
        if draw(st.booleans()):
            out.append(f"start = {draw(edge(DURATIONS, EDGE_DURATIONS))}")
        out.append(f"ops = [{', '.join(ops)}]")
    if draw(st.booleans()):
        si = draw(edge(st.sampled_from(['"1ms"', '"10s"']), st.sampled_from(['"0s"', '"100000000h"'])))
        out += ["[report]", f"sample_interval = {si}"]
    return ("\n".join(out) + "\n").encode()


def _scenario(machine: str, files: str, cgroups: str, task: str) -> bytes:
    return (
        '[scenario]\nname = "corpus"\n[machine]\n' + machine + '\n[devices.sda]\nread_bw = "100G"\n' + files + "\n" + cgroups
        + "\n[tasks.cat]\n" + task + "\n"
    ).encode()


CAT = 'ops = [{ op = "read", file = "/big", step = "read" }]'
BIG = '[files."/big"]\nsize = "1G"'
# The inputs of the issue "A newcomer's first hour and every bad input".
CORPUS = {
    "ram 1P": _scenario('ram = "1P"\ncpus = 2', BIG, "", CAT),
    "1 TiB file on 64G": _scenario('ram = "64G"\ncpus = 2', '[files."/big"]\nsize = "1T"', "", CAT),
    "sleep 100000000h": _scenario('ram = "1G"', BIG, "", 'ops = [{ op = "sleep", duration = "100000000h" }]'),
    "cpus 100000000": _scenario('ram = "1G"\ncpus = 100000000', BIG, "", CAT),
    "limit_in_bytes 0": _scenario('ram = "1G"', BIG, '[kernel]\ncgroup = "v1"\n[cgroups.ct]\n"memory.limit_in_bytes" = "0"', 'cgroup = "ct"\n' + CAT),
    "memory.max 0": _scenario('ram = "1G"', BIG, '[cgroups.ct]\n"memory.max" = 0', 'cgroup = "ct"\n' + CAT),
    "binary garbage": bytes(range(256)) * 4,
    "binary after text": b'[scenario]\nname = "x"\n\xff\xfe\x00\x01',
    "duplicate [tasks.cat]": _scenario('ram = "1G"', BIG, "", CAT) + b"[tasks.cat]\n" + CAT.encode() + b"\n",
    # Found by this test: a year of virtual time sampled every 100 ms (300 million rows).
    "year-long seeks": _scenario('ram = "1G"', BIG, "", CAT).replace(b'read_bw = "100G"', b'read_bw = "100G"\nseek = "8760h"'),
    # Found by this test: a million boot superblocks, each mount re-counting every list_lru.
    "boot_superblocks huge": _scenario('ram = "1G"\nboot_superblocks = 9223372036854775807', BIG, "", CAT),
}
OK_IN_CORPUS = ("1 TiB file on 64G", "limit_in_bytes 0", "memory.max 0", "year-long seeks")


@SETTINGS
@given(text=generated())
@example(text=CORPUS["ram 1P"])
@example(text=CORPUS["1 TiB file on 64G"])
@example(text=CORPUS["sleep 100000000h"])
@example(text=CORPUS["cpus 100000000"])
@example(text=CORPUS["limit_in_bytes 0"])
@example(text=CORPUS["memory.max 0"])
@example(text=CORPUS["binary garbage"])
@example(text=CORPUS["binary after text"])
@example(text=CORPUS["duplicate [tasks.cat]"])
@example(text=CORPUS["year-long seeks"])
@example(text=CORPUS["boot_superblocks huge"])
def test_generated_scenarios_run_or_say_where(text, tmp_path_factory):
    assert_clean(text, True, tmp_path_factory.mktemp("gen"))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_issues_inputs(name, tmp_path):
    """The corpus on its own, with what each must give."""
    kind, msg = assert_clean(CORPUS[name], True, tmp_path)
    expected_ok = name in OK_IN_CORPUS
    assert kind == ("ok" if expected_ok else "error"), f"{kind}: {msg}"
    if name.endswith(" 0"):
        assert "ENOMEM: cgroup `ct` has memory." in msg and "(read /big)" in msg, msg
