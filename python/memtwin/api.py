"""The Python API: load a scenario (file or dict), run it, get pandas DataFrames back."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from memtwin import _memtwin
from memtwin._memtwin import ScenarioError

PathOrDict = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def _line_col(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters, as the engine counts them) of byte `offset`
    of `raw`, whose bytes before `offset` are valid UTF-8."""
    start = raw.rfind(b"\n", 0, offset) + 1
    return raw.count(b"\n", 0, offset) + 1, len(raw[start:offset].decode("utf-8")) + 1


def _key_parts(path: str) -> list[str]:
    """`published.figures.v."step one".m` as its keys, unquoted."""
    parts, cur, quoted = [], "", False
    for c in path:
        if c == '"':
            quoted = not quoted
        elif c == "." and not quoted:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    out = []
    for part in parts + [cur]:
        # `checks[1]`: the key, then the array index.
        m = re.fullmatch(r"(.*?)((?:\[\d+\])+)", part)
        if m:
            out.append(m.group(1))
            out += re.findall(r"\d+", m.group(2))
        else:
            out.append(part)
    return [p for p in out if p != ""]


def _located(e: ScenarioError, scn: "Scenario") -> ScenarioError:
    """A [published] error of a file, which names its key path, re-placed at the
    `file:line:col` where that key was written (the key path kept in the message)."""
    try:
        (where, message, fix), = e.args[1]
    except (IndexError, TypeError, ValueError):
        return e
    prefix = f"{scn.source}: "
    if not where.startswith(prefix):
        return e
    keypath = where[len(prefix):]
    loc = scn.doc.locate(_key_parts(keypath))
    if not loc:
        return e
    return _scenario_error(loc, f"{keypath}: {message}", fix)


def _scenario_error(where: str, message: str, fix: str) -> ScenarioError:
    return ScenarioError(f"{where}: error: {message}\n  fix: {fix}", [(where, message, fix)])


@dataclass
class Scenario:
    """A parsed scenario: the engine's document plus the `[published]` table, which only
    reports read (the engine never does)."""

    name: str
    source: str
    doc: Any
    published: dict = field(default_factory=dict)
    # Trace path as the scenario names it -> the file read (relative paths: from the
    # scenario file's directory).
    traces: dict = field(default_factory=dict)
    # The directory relative trace and start-cache paths are read from (None: the working one).
    base: Optional[str] = None

    def variants(self) -> list[tuple[str, str]]:
        """Declared variants as (name, description)."""
        return list(self.doc.variants())

    def check(self, variant: Optional[str] = None, sets: Sequence[str] = ()) -> None:
        """Raise ScenarioError if the scenario (with `variant` and `sets`) has errors."""
        self.doc.check(variant, list(sets))


def _from_doc(doc, source: str, fallback_name: str) -> Scenario:
    head = doc.table("scenario")
    name = head.get("name") if isinstance(head, dict) else None
    published = doc.table("published")
    return Scenario(str(name) if isinstance(name, str) else fallback_name, source, doc, published)


def load(scenario: PathOrDict) -> Scenario:
    """Parse a scenario file (TOML) or a dict with the same structure.

    Every problem, unreadable paths included, raises ScenarioError (a ValueError) whose
    message reads `PLACE: error: WHAT` and `  fix: HOW`; PLACE is `file:line:col` for files
    and the key path for dicts. The `[published]` table is checked too (`published.validate`)."""
    if isinstance(scenario, Mapping):
        name = "<scenario dict>"
        scn = _from_doc(_memtwin.load_dict(dict(scenario), name), name, "unnamed")
    else:
        path = os.fspath(scenario)
        if os.path.isdir(path):
            raise _scenario_error(path, "this is a directory, not a scenario file", "name a .toml scenario file, e.g. scenarios/seed000-memcg-reread.toml")
        if not os.path.exists(path):
            raise _scenario_error(path, "no such file", "check the path; scenarios live in scenarios/*.toml")
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise _scenario_error(path, f"cannot read the file ({e.strerror})", "check the file's permissions") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            line, col = _line_col(raw, e.start)
            raise _scenario_error(
                f"{path}:{line}:{col}",
                f"the file is not UTF-8 text: byte 0x{raw[e.start]:02x} (offset {e.start}) is not part of a UTF-8 character",
                "save the scenario as UTF-8 TOML (a scenario is a text file, like scenarios/seed000-memcg-reread.toml)",
            ) from None
        scn = _from_doc(_memtwin.load_toml(text, path), path, os.path.basename(path))
    _read_traces(scn, None if isinstance(scenario, Mapping) else os.path.dirname(os.fspath(scenario)))
    from memtwin.published import validate

    declared = [v for v, _ in scn.variants()]

    def steps_of(v: str) -> list:
        return list(scn.doc.step_names(None if v == "default" and not declared else v))

    try:
        validate(scn.published, declared, scn.source, steps_of, set(_memtwin.metric_names()))
    except ScenarioError as e:
        if isinstance(scenario, Mapping):
            raise
        raise _located(e, scn) from None
    if scn.published is None:
        scn.published = {}
    return scn


def start_from(scn: Scenario, variant: Optional[str], resident_at_start: dict) -> None:
    """Make the trace tasks with `initial_cache = "FILE"` start variant `variant` (None: the
    scenario without one) from `resident_at_start` ({path: [[first page, pages], ...]}: a run of
    the program just measured, memtwin measure's) instead of FILE's: validate --on host compares
    the twin with a run it has just made, from the cache that run started with."""
    _read_traces(scn, scn.base, (variant, resident_at_start))


def _read_traces(scn: Scenario, base: Optional[str], live: Optional[tuple] = None) -> None:
    """Read the header (files, event count) of every trace the tasks name and give it to the
    engine, which does no I/O; a trace that cannot be read is an error at its `trace` key."""
    for task, written in scn.doc.trace_paths():
        path = written if base is None or os.path.isabs(written) else os.path.join(base, written)
        from memtwin import trace

        try:
            with trace.Reader(path) as r:
                files = r.files()
                events = r.event_count()
                resident = r.resident()
        except trace.TraceError as e:
            where = scn.doc.locate(["tasks", task, "trace"]) or f"{scn.source}: tasks.{task}.trace"
            what, _, fix = str(e).partition("\n  fix: ")
            raise _scenario_error(where, f"trace: {what}", fix or "check the trace file") from None
        # every start cache a task names, against this trace's files (tasks may share a trace)
        caches = [(src, variant, res) for t, src in scn.doc.trace_start_caches()
                  for variant, res in _start_cache(scn, t, src, base, files, live)]
        scn.doc.set_trace_header(written, files, events, resident, os.path.abspath(path), caches)
        scn.traces[written] = path
    scn.base = base


def _start_cache(scn: Scenario, task: str, written: str, base: Optional[str], files: list, live: Optional[tuple] = None) -> list:
    """`[tasks.TASK] initial_cache = "FILE"`: the page cache a measured run of the trace's
    program started with, from FILE (relative to the scenario), a result in the engine's layout
    whose variants' `real.resident_at_start` ({path: [[first page, pages], ...]}, written by
    memtwin measure) give it: [(variant or None for "default", [(trace file id, first, pages)])].
    Pages of files the trace does not name are left out; a file's pages past its size in the
    trace's header too. `live`: (variant, resident_at_start) to use for that variant instead."""
    import json

    path = written if base is None or os.path.isabs(written) else os.path.join(base, written)
    where = scn.doc.locate(["tasks", task, "initial_cache"]) or f"{scn.source}: tasks.{task}.initial_cache"
    fix = "name a result memtwin measure --out wrote (its real.resident_at_start), or give true or false"
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise _scenario_error(where, f"initial_cache: no such file {path}", fix) from None
    except OSError as e:
        raise _scenario_error(where, f"initial_cache: cannot read {path} ({e.strerror})", "check the file's permissions") from None
    except ValueError as e:
        raise _scenario_error(where, f"initial_cache: {path} is not JSON ({e})", fix) from None
    variants = doc.get("variants") if isinstance(doc, dict) else None
    if not isinstance(variants, dict) or not variants:
        raise _scenario_error(where, f"initial_cache: {path} is not a result in the engine's layout (no variants)", fix)
    ids = {p: (i, (size + 4095) // 4096) for i, (p, size) in enumerate(files)}
    out = []
    variants = dict(variants)
    if live is not None:
        variants[live[0] or "default"] = {"real": {"resident_at_start": live[1]}}
    for name, v in variants.items():
        rc = (v.get("real") or {}).get("resident_at_start") if isinstance(v, dict) else None
        if not isinstance(rc, dict):
            raise _scenario_error(where, f"initial_cache: variant {name!r} of {path} has no real.resident_at_start",
                                  "measure again with this memtwin (memtwin measure --out writes it), or give true or false")
        res = []
        for p, ranges in sorted(rc.items()):
            if p not in ids:
                continue
            i, pages = ids[p]
            for r in ranges:
                if not (isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in r)
                        and 0 <= r[0] < 2**32 and 0 < r[1] < 2**32):
                    raise _scenario_error(where, f"initial_cache: {path}: variant {name!r}: {p} has a malformed range {r!r}",
                                          "ranges are [first page, pages]; measure again")
                first, n = r[0], min(r[1], max(pages - r[0], 0))
                if n > 0:
                    res.append((i, first, n))
        out.append((None if name == "default" else name, res))
    return out


class Result:
    """One variant's run.

    - `steps`: DataFrame, one row per step (index: step name), a column per metric, plus
      `task` and `memcg`.
    - `totals`: Series of totals (counters summed, levels from the last step).
    - `series`: DataFrame of time series sampled over virtual time (index: `time_s`).
    - `raw`: the plain dict the engine returned.
    """

    def __init__(self, raw: dict):
        self.raw = raw
        self.scenario: str = raw["scenario"]
        self.variant: Optional[str] = raw["variant"]
        self.info: dict = raw["info"]
        self.engine: dict = raw["engine"]

    @property
    def steps(self):
        import pandas as pd

        rows = []
        for s in self.raw["steps"]:
            row = {"step": s["name"], "task": s["task"], "memcg": s["memcg"]}
            row.update(s["metrics"])
            rows.append(row)
        return pd.DataFrame(rows).set_index("step") if rows else pd.DataFrame()

    @property
    def totals(self):
        import pandas as pd

        return pd.Series(self.raw["totals"], dtype="float64")

    @property
    def series(self):
        import pandas as pd

        s = self.raw["series"]
        return pd.DataFrame(s["rows"], columns=s["columns"]).set_index("time_s")

    def metric(self, step: str, name: str) -> float:
        """One metric of one step."""
        for s in self.raw["steps"]:
            if s["name"] == step:
                if name not in s["metrics"]:
                    raise KeyError(f"no metric {name!r}; see memtwin metrics")
                return s["metrics"][name]
        raise KeyError(f"no step {step!r} in {self.scenario}; steps: {[s['name'] for s in self.raw['steps']]}")

    def to_json(self) -> dict:
        """This run in the `variants` entry layout of the --json output."""
        return {
            "steps": [
                {"name": s["name"], "task": s["task"], "memcg": s["memcg"], "metrics": s["metrics"], "resident_pages": s.get("resident_pages", {}), "pagecache": s.get("pagecache", sum(s.get("resident_pages", {}).values()))}
                for s in self.raw["steps"]
            ],
            "totals": self.raw["totals"],
        }


def run(
    scenario: Union[PathOrDict, Scenario],
    variant: Optional[str] = None,
    sets: Sequence[str] = (),
    progress: Optional[Callable[[int, int], None]] = None,
) -> Result:
    """Run one variant of a scenario (a path, a dict or a loaded Scenario).

    `sets` are `KEY=VALUE` overrides as on the command line (`kernel.cgroup=v2`)."""
    scn = scenario if isinstance(scenario, Scenario) else load(scenario)
    if not scn.traces:
        return Result(scn.doc.run(variant, list(sets), progress))
    from memtwin import trace

    try:
        return Result(scn.doc.run(variant, list(sets), progress))  # the doc reads its traces' files
    except _memtwin.TraceReplayError as e:
        raise trace.TraceError(str(e)) from None
