"""memtwin replay (stopgap): a recorded trace's file reads and writes as a scenario's ops.

This is NOT the streaming replay issue 18 asks for: it expands the trace into a list of ops in
Python, so it is for small traces only. mmap'd reads (page faults) are not replayed: strace sees
the mmap, not the faults. The engine's streaming decoder is crates/memtwin-engine/src/trace.rs.
"""

from __future__ import annotations

from . import api, trace


def to_scenario(path: str, limit: str | None = None, ram: str = "4G") -> dict:
    with trace.Reader(path) as r:
        files = {f["id"]: f for f in r.header.get("files", [])}
        ops = []
        for _t, off, length, _pid, fid, op, _fl in r.events():
            f = files.get(fid)
            if f is None or not f.get("size") or length == 0:
                continue
            if op == trace.OPS["read"]:
                ops.append({"op": "read", "file": f["path"], "offset": off, "length": length, "bufsize": length})
            elif op == trace.OPS["write"]:
                ops.append({"op": "write", "file": f["path"], "offset": off, "length": length, "bufsize": length})
    used = {o["file"] for o in ops}
    scn = {
        "scenario": {"name": "replay", "seed": 0},
        "machine": {"ram": ram, "cpus": 2},
        "kernel": {"profile": "linux-6.1", "cgroup": "v1"},
        "devices": {"sda": {"read_bw": 500_000_000, "seek": "100us", "read_ahead_kb": 128}},
        "files": {f["path"]: {"size": f["size"], "device": "sda"} for f in files.values() if f["path"] in used},
        "cgroups": {"ct": {"memory.limit_in_bytes": limit} if limit else {}},
        "tasks": {"trace": {"cgroup": "ct", "ops": ops or [{"op": "sleep", "time": "0s"}]}},
    }
    return scn


def replay(path: str, limit: str | None = None):
    return api.run(to_scenario(path, limit))


KEYS = ("read_bytes", "write_bytes", "memcg.usage_bytes", "memcg.max_usage_bytes", "memcg.file_bytes")


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="replay a recorded trace's reads and writes in the twin (small traces)",
                       description="Replay a trace's file reads and writes in the twin in one memcg with --limit "
                                   "(stopgap: the trace is expanded in memory; mmap faults are not replayed).")
    p.add_argument("file", metavar="TRACE")
    p.add_argument("--limit", metavar="SIZE", help="memcg hard limit, e.g. 64M")


def run_cli(a) -> int:
    import sys
    try:
        t = replay(a.file, a.limit).totals
    except (trace.TraceError, api.ScenarioError) as e:
        print(str(e.args[0] if e.args else e), file=sys.stderr)
        return 1
    print(f"{a.file}: replayed in the twin, limit {a.limit or 'none'}")
    for k in KEYS:
        if k in t.index:
            print(f"  {k:24} {int(t[k])}")
    return 0
