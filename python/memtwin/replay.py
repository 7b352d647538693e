"""memtwin replay: a recorded or imported trace run in the twin, streamed.

The trace becomes one task of a small scenario (`[tasks.trace] trace = FILE`, in memcg `ct`
with --limit): the engine's scheduler pulls the trace's chunks as it runs (sched/replay.rs), so
memory stays flat whatever the trace's length, and the trace's files are created on the
scenario's machine from its header. Any scenario can do the same with its own machine, memcgs,
kernel profile and variants (see ARCHITECTURE.md, "Recorded workloads").
"""

from __future__ import annotations

import os

from . import api, trace


# The profile of a trace whose header names no kernel (an imported one).
DEFAULT_PROFILE = "linux-6.1"


def profile_for_kernel(release) -> str:
    """The kernel profile for a trace recorded on kernel `release` (the header's `kernel`,
    e.g. "6.18.44-fc-v857"): the newest era profile `linux-X.Y` not newer than that X.Y, so
    that the twin runs the kernel the recording ran (6.18: large folios on ext4, readahead
    orders in ra->order); for a kernel older than every profile, the oldest era (the nearest
    one to it). DEFAULT_PROFILE when the header names no version."""
    import re

    from . import _memtwin

    m = re.match(r"(\d+)\.(\d+)", release) if isinstance(release, str) else None
    if not m:
        return DEFAULT_PROFILE
    want = (int(m.group(1)), int(m.group(2)))
    eras = sorted(((int(v.group(1)), int(v.group(2))), name) for name, _desc in _memtwin.profiles()
                  if (v := re.fullmatch(r"linux-(\d+)\.(\d+)", name)))
    older = [e for e in eras if e[0] <= want]
    return older[-1][1] if older else eras[0][1]


def to_scenario(path: str, limit: str | None = None, ram: str = "4G", time_scale: float = 0.0,
                loops: int = 1, profile: str = DEFAULT_PROFILE, cgroup: str = "v1", cold: bool = False,
                read_ahead_kb: int = 128, start_cache: str | None = None) -> dict:
    """The scenario `memtwin replay` runs: the trace as task `trace` in memcg `ct`. `start_cache`:
    a measurement (memtwin measure --out) whose start cache the task begins with (`initial_cache
    = FILE`), instead of the recording's (or none, `cold`)."""
    cg = {}
    if limit:
        cg = {"memory.limit_in_bytes": limit} if cgroup == "v1" else {"memory.max": limit}
    return {
        "scenario": {"name": "replay", "seed": 0},
        "machine": {"ram": ram, "cpus": 2},
        "kernel": {"profile": profile, "cgroup": cgroup},
        "devices": {"sda": {"read_bw": 500_000_000, "seek": "100us", "read_ahead_kb": read_ahead_kb}},
        "cgroups": {"ct": cg},
        "tasks": {"trace": {"cgroup": "ct", "trace": os.path.abspath(path), "time_scale": time_scale, "loops": loops,
                            "step": "replay", "initial_cache": os.path.abspath(start_cache) if start_cache else not cold}},
    }


def replay(path: str, limit: str | None = None, progress=None, **kw):
    """Replay `path` in the twin (see `to_scenario`); raises trace.TraceError for a bad trace.
    The device's read_ahead_kb is the recording host's when the trace's header has it (memtwin
    record writes it), else 128, unless `read_ahead_kb` is given; the kernel profile is that
    of the recording's kernel (`profile_for_kernel`), unless `profile` is given."""
    with trace.Reader(path) as r:  # the trace's own defects first, named as the trace names them
        r.files()
        r.event_count()
        if kw.get("profile") is None:
            kw["profile"] = profile_for_kernel(r.header.get("kernel"))
        if kw.get("read_ahead_kb") is None:
            ra = r.header.get("read_ahead_kb")
            kw["read_ahead_kb"] = ra if isinstance(ra, int) and 0 <= ra <= 1 << 20 else 128
    return api.run(to_scenario(path, limit, **kw), progress=progress)


KEYS = ("read_bytes", "write_bytes", "memcg.usage_bytes", "memcg.max_usage_bytes", "memcg.file_bytes")


def _ra_kb(s: str) -> int:
    import argparse
    try:
        v = int(s)
    except ValueError:
        v = -1
    if not 0 <= v <= 1 << 20:
        raise argparse.ArgumentTypeError(f"{s!r} is not a size in KiB from 0 to 1048576 (e.g. 128)")
    return v


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="replay a recorded or imported trace in the twin, streamed",
                       description="Replay a trace (.mtt) in the twin: its events run as the syscalls they record, "
                                   "in one memcg with --limit, the trace read chunk by chunk as the engine runs.")
    p.add_argument("file", metavar="TRACE")
    p.add_argument("--limit", metavar="SIZE", help="memcg hard limit, e.g. 64M")
    p.add_argument("--time-scale", type=float, default=0.0, metavar="X",
                   help="think time between events, scaled (0, the default: none; 1: as recorded)")
    p.add_argument("--loops", type=int, default=1, metavar="N", help="passes over the trace (default 1)")
    p.add_argument("--ram", default="4G", metavar="SIZE", help="the twin machine's RAM (default 4G)")
    p.add_argument("--cgroup-version", choices=("v1", "v2"), default="v1", help="cgroup interface (default v1)")
    p.add_argument("--cold", action="store_true", help="start with none of the trace's files cached (default: the cache "
                   "the measured run started with, with --against, else the one the recording started with, when the trace has it)")
    p.add_argument("--read-ahead-kb", type=_ra_kb, default=None, metavar="KB",
                   help="the twin device's read_ahead_kb (default: the recording host's, from the trace's header, else 128)")
    p.add_argument("--profile", default=None, metavar="NAME",
                   help="the twin's kernel profile (memtwin profiles; default: that of the kernel the trace was "
                        f"recorded on, from its header, else {DEFAULT_PROFILE})")
    p.add_argument("--json", action="store_true", help="print the totals and the replay's counts as JSON")
    p.add_argument("--against", metavar="MEASURED.json",
                   help="compare with a measurement (memtwin measure --out, or any result in the engine's layout): "
                        "twin, measured and the difference for each metric both have; the twin starts with the page "
                        "cache the measured run started with (its real.resident_at_start) when the file has it")


COMPARE_KEYS = ("read_bytes", "write_bytes", "memcg.max_usage_bytes", "memcg.usage_bytes", "memcg.file_bytes", "memcg.pgmajfault")


def load_measured(path: str) -> dict:
    """The totals of a result in the engine's layout (variant "default", or the only one)."""
    import json
    try:
        with open(path) as f:
            doc = json.load(f)
        vs = doc["variants"]
        v = vs.get("default") or next(iter(vs.values()))
        return {k: x for k, x in v["totals"].items() if isinstance(x, (int, float))}
    except FileNotFoundError:
        raise trace.TraceError(f"{path}: error: no such file\n  fix: write one with memtwin measure --out {path} -- CMD") from None
    except (ValueError, KeyError, TypeError, AttributeError, StopIteration):
        raise trace.TraceError(f"{path}: error: not a result in the engine's layout (variants -> totals)\n"
                               "  fix: give the file memtwin measure --out (or memtwin run/real --json) wrote") from None


def has_start_cache(path: str) -> bool:
    """Whether the measurement at `path` (already read by load_measured) has the cache its run
    started with (`real.resident_at_start`, written by memtwin measure since 2026-11-28)."""
    import json
    with open(path) as f:
        vs = json.load(f)["variants"]
    v = vs.get("default") or next(iter(vs.values()))
    return isinstance((v.get("real") or {}).get("resident_at_start"), dict)


def run_cli(a) -> int:
    import json
    import sys
    import time

    from .progress import Progress

    if a.loops < 1:
        print(f"memtwin replay: error: --loops {a.loops}\n  fix: give 1 or more", file=sys.stderr)
        return 2
    if a.time_scale < 0:
        print(f"memtwin replay: error: --time-scale {a.time_scale}\n  fix: give 0 or more", file=sys.stderr)
        return 2
    if a.profile is not None:
        from . import _memtwin

        names = [n for n, _d in _memtwin.profiles()]
        if a.profile not in names:
            print(f"memtwin replay: error: --profile {a.profile}: no such kernel profile\n"
                  f"  fix: give one of {', '.join(names)} (memtwin profiles), or leave it out for the recording's kernel",
                  file=sys.stderr)
            return 2
    measured = start_cache = None
    if a.against:
        try:
            measured = load_measured(a.against)
        except trace.TraceError as e:
            print(str(e), file=sys.stderr)
            return 1
        # the twin starts with the cache the measured run started with (what measure's drop left:
        # pages other processes map), unless --cold; a measurement without it: the recording's
        if not a.cold and has_start_cache(a.against):
            start_cache = a.against
    bar = Progress(f"replay {os.path.basename(a.file)}")
    t0 = time.monotonic()
    try:
        r = replay(a.file, a.limit, progress=bar, time_scale=a.time_scale, loops=a.loops, ram=a.ram, cgroup=a.cgroup_version, cold=a.cold,
                   read_ahead_kb=a.read_ahead_kb, profile=a.profile, start_cache=start_cache)
    except (trace.TraceError, api.ScenarioError) as e:
        bar.close()
        print(str(e.args[0] if e.args else e), file=sys.stderr)
        return 1
    bar.close()
    wall = time.monotonic() - t0
    t = r.totals
    info = r.raw.get("traces", [{}])[0]
    if a.json:
        print(json.dumps({"trace": a.file, "limit": a.limit, "profile": r.info.get("profile"), "events": info.get("events"), "wall_s": round(wall, 3),
                          "skipped": info.get("skipped", {}),
                          "totals": {k: (int(v) if float(v).is_integer() else float(v)) for k, v in t.items()}},
                         indent=1, sort_keys=True))
        return 0
    ev = info.get("events", 0)
    print(f"{a.file}: replayed in the twin ({r.info.get('profile')}), limit {a.limit or 'none'}: {ev} events in {wall:.2f} s"
          f" ({ev / wall / 1e6:.1f} M events/s)" if wall > 0 else "")
    for k in KEYS:
        if k in t.index:
            print(f"  {k:24} {int(t[k])}")
    for why, n in sorted(info.get("skipped", {}).items()):
        print(f"  skipped {n} event(s): {why}")
    if measured is not None:
        print(f"  {'':24} {'twin':>14} {'measured':>14} {'twin - measured':>16}")
        for k in COMPARE_KEYS:
            if k in t.index and k in measured:
                tw, me = float(t[k]), float(measured[k])
                d = f"{(tw - me) / me:+.1%}" if me else ("0" if tw == me else "n/a")
                print(f"  {k:24} {int(tw):>14} {int(me):>14} {d:>16}")
    return 0
