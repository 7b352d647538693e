"""`memtwin bench`: the engine's speed and memory on its two hot paths.

(a) the page-cache hit path: a fully cached 1 GiB file read again and again;
(b) constant memcg-limit reclaim: a 1 GiB file read through a 20M memcg, so every page is a
    miss that charges, reclaims one page and evicts it;
(c) simulator bytes per resident simulated page (page arena + page-cache slots), with the
    whole 1 GiB file resident;
(d) the page allocator's hot paths: first-touch anonymous faults of base pages and of huge
    pages (THP) with munmap, on a 2-node machine with a DMA32 zone (mmap 1 GiB, touch,
    munmap, 8 times);
(e) a writer under a memcg limit: 1 GiB written (1 MiB writes, then fsync) by a task in a
    32M cgroup-v2 memcg, so every page is a write that charges, dirties, is written back
    (memcg writeback domain) and reclaimed;
(f) faults on a mapped file: a 1 GiB file mapped shared by a task in a 64M memcg, loaded
    front to back (fault-around, read-around, mapped pages reclaimed through rmap), then,
    with MADV_RANDOM, 262144 random loads (a major fault of one page each, its retry,
    refaults).
(a-lru_gen), (b-lru_gen): (a) and (b) with the multi-generational LRU on (`kernel.lru_gen =
    true`): hits count refs (folio_inc_refs()), reclaim evicts from the oldest generation.
(g) large folios: (a), (b) and (c) with the file on XFS under linux-6.18 at read_ahead_kb
    8192, where readahead caches it in folios of up to 512 pages (issue 21): memory per
    resident 4 KiB of file data, hits and reclaim (whole folios evicted) per second.
Throughput is simulated page accesses per wall-clock second, best of `repeat` runs.
"""

from __future__ import annotations

import os
import platform
import time

from memtwin import _memtwin

GIB = 1 << 30
PAGES_PER_GIB = GIB // 4096


def _scenario(reads: int, limit: str, lru_gen: bool = False, large_folios: bool = False) -> dict:
    ops = [{"op": "read", "file": "/f", "bufsize": "128K", "fadvise": "sequential", "step": f"read {i + 1}"} for i in range(reads)]
    kernel = {"profile": "linux-6.18" if large_folios else "linux-6.6", "cgroup": "v2"}
    machine = {"ram": "16G", "cpus": 2}
    if lru_gen:
        kernel["lru_gen"] = True
    if large_folios:
        machine["fs"] = "xfs"
    return {
        "scenario": {"name": "bench"},
        "machine": machine,
        "kernel": kernel,
        "devices": {"sda": {"read_bw": "10G", "read_ahead_kb": 8192 if large_folios else 128}},
        "files": {"/f": {"size": "1G"}},
        "cgroups": {"ct": {"memory.max": limit}},
        "tasks": {"t": {"cgroup": "ct", "ops": ops}},
        "report": {"sample_interval": "10s"},
    }


def _writer_scenario() -> dict:
    return {
        "scenario": {"name": "bench-writer"},
        "machine": {"ram": "16G", "cpus": 2},
        "kernel": {"profile": "linux-6.6", "cgroup": "v2"},
        "devices": {"sda": {"read_bw": "10G", "write_bw": "10G", "read_ahead_kb": 128}},
        "files": {"/out": {"size": 0}},
        "cgroups": {"ct": {"memory.max": "32M"}},
        "tasks": {"t": {"cgroup": "ct", "ops": [{"op": "write", "file": "/out", "length": "1G", "bufsize": "1M", "create": True, "fsync": True}]}},
        "report": {"sample_interval": "10s"},
    }


def _mapped_scenario() -> dict:
    ops = [
        {"op": "mmap", "name": "db", "file": "/f", "shared": True, "step": "map"},
        {"op": "touch", "name": "db", "access": "read", "step": "sequential"},
        {"op": "madvise", "name": "db", "advice": "random", "step": "random"},
        {"op": "touch", "name": "db", "access": "read", "pattern": "random", "count": PAGES_PER_GIB, "step": "random"},
        {"op": "munmap", "name": "db", "step": "unmap"},
    ]
    return {
        "scenario": {"name": "bench-mapped"},
        "machine": {"ram": "16G", "cpus": 2},
        "kernel": {"profile": "linux-6.6", "cgroup": "v2"},
        "devices": {"sda": {"read_bw": "10G", "read_ahead_kb": 128}},
        "files": {"/f": {"size": "1G"}},
        "cgroups": {"ct": {"memory.max": "64M"}},
        "tasks": {"t": {"cgroup": "ct", "ops": ops}},
        "report": {"sample_interval": "10s"},
    }


def _anon_scenario(thp: bool) -> dict:
    ops = []
    for i in range(8):
        ops += [
            {"op": "mmap", "name": "m", "size": "1G", "step": "fault"},
            {"op": "touch", "name": "m", "step": "fault"},
            {"op": "munmap", "name": "m", "step": "fault"},
        ]
    return {
        "scenario": {"name": "bench-anon"},
        "machine": {"ram": "8G", "cpus": 2, "nodes": 2, "dma32": "1G"},
        "kernel": {"profile": "linux-4.3", "thp": "always" if thp else "never"},
        "tasks": {"t": {"ops": ops}},
        "report": {"sample_interval": "10s"},
    }


def _time(doc, repeat: int) -> tuple[float, dict]:
    best, out = float("inf"), {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = doc.run(None, [], None)
        best = min(best, time.perf_counter() - t0)
    return best, out


def _hits_and_reclaim(repeat: int, rereads: int, lru_gen: bool, large_folios: bool = False) -> tuple:
    """(hit-path row, limit-reclaim row, the warm run's output) of (a) and (b)."""
    tag = ("-lru_gen" if lru_gen else "") + ("-large-folios" if large_folios else "")
    cold = _memtwin.load_dict(_scenario(1, "max", lru_gen, large_folios), "bench-hit-cold" + tag)
    warm = _memtwin.load_dict(_scenario(1 + rereads, "max", lru_gen, large_folios), "bench-hit" + tag)
    t_cold, _ = _time(cold, repeat)
    t_warm, warm_out = _time(warm, repeat)
    hit_events = rereads * PAGES_PER_GIB
    hit_rate = hit_events / max(t_warm - t_cold, 1e-9)
    reclaim = _memtwin.load_dict(_scenario(3, "20M", lru_gen, large_folios), "bench-reclaim" + tag)
    t_rec, rec_out = _time(reclaim, repeat)
    steal = sum(s["metrics"]["memcg.pgsteal"] for s in rec_out["steps"])
    hit = {"page_events": hit_events, "seconds": t_warm - t_cold, "events_per_second": hit_rate, "target": 20e6}
    rec = {"page_events": rec_out["engine"]["page_events"], "pages_reclaimed": steal, "seconds": t_rec,
           "events_per_second": rec_out["engine"]["page_events"] / t_rec, "target": 5e6}
    return hit, rec, warm_out


def _parts(e: dict) -> dict:
    """Where the host bytes go, per resident page (`Kernel::host_bytes_parts`), the parts that hold any."""
    n = max(e["resident_pages"], 1)
    return {k: v / n for k, v in e["host_bytes_parts"].items() if v}


def _parts_text(m: dict) -> str:
    return ", ".join(f"{k} {v:.1f}" for k, v in m["parts_per_resident_page"].items())


def run_bench(repeat: int = 3, rereads: int = 8) -> dict:
    hit, rec, warm_out = _hits_and_reclaim(repeat, rereads, False)
    hit_gen, rec_gen, _ = _hits_and_reclaim(repeat, rereads, True)
    hit_lf, rec_lf, warm_lf = _hits_and_reclaim(repeat, rereads, False, large_folios=True)
    e_lf = warm_lf["engine"]

    anon = {}
    for name, thp in (("base_pages", False), ("thp", True)):
        doc = _memtwin.load_dict(_anon_scenario(thp), f"bench-anon-{name}")
        t, out = _time(doc, repeat)
        anon[name] = {"page_events": out["engine"]["page_events"], "seconds": t, "events_per_second": out["engine"]["page_events"] / t}

    wdoc = _memtwin.load_dict(_writer_scenario(), "bench-writer")
    t_w, w_out = _time(wdoc, repeat)
    writer = {"page_events": w_out["engine"]["page_events"], "seconds": t_w, "events_per_second": w_out["engine"]["page_events"] / t_w}

    mdoc = _memtwin.load_dict(_mapped_scenario(), "bench-mapped")
    t_m, m_out = _time(mdoc, repeat)
    majfaults = sum(s["metrics"]["vmstat.pgmajfault"] for s in m_out["steps"])
    mapped = {"page_events": m_out["engine"]["page_events"], "seconds": t_m, "events_per_second": m_out["engine"]["page_events"] / t_m,
              "major_faults": majfaults}

    e = warm_out["engine"]
    return {
        "writer": writer,
        "mapped_faults": mapped,
        "anon_faults": anon,
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count()},
        "date": time.strftime("%Y-%m-%d"),
        "hit_path": hit,
        "limit_reclaim": rec,
        "hit_path_lru_gen": hit_gen,
        "limit_reclaim_lru_gen": rec_gen,
        "memory": {"resident_pages": e["resident_pages"], "host_bytes": e["host_bytes"], "bytes_per_resident_page": e["host_bytes"] / max(e["resident_pages"], 1), "target": 48,
                   "parts_per_resident_page": _parts(e)},
        "large_folios": {
            "hit_path": hit_lf,
            "limit_reclaim": rec_lf,
            "memory": {"resident_pages": e_lf["resident_pages"], "host_bytes": e_lf["host_bytes"],
                       "bytes_per_resident_page": e_lf["host_bytes"] / max(e_lf["resident_pages"], 1), "parts_per_resident_page": _parts(e_lf)},
        },
    }


def format_bench(r: dict) -> str:
    h, c, m = r["hit_path"], r["limit_reclaim"], r["memory"]
    ok = lambda good: "ok" if good else "BELOW TARGET"  # noqa: E731
    return "\n".join(
        [
            f"memtwin bench on {r['machine']['processor']} ({r['machine']['cpus']} CPUs), {r['date']}",
            f"(a) page-cache hits:           {h['events_per_second'] / 1e6:8.1f} M page events/s  (target >= 20)  {ok(h['events_per_second'] >= h['target'])}",
            f"(b) under memcg-limit reclaim: {c['events_per_second'] / 1e6:8.1f} M page events/s  (target >= 5)   {ok(c['events_per_second'] >= c['target'])}"
            f"  [{int(c['pages_reclaimed'])} pages reclaimed]",
            f"(c) memory:                    {m['bytes_per_resident_page']:8.1f} bytes per resident page (target <= 48)  {ok(m['bytes_per_resident_page'] <= m['target'])}"
            f"  [{_parts_text(m)}]",
            f"(d) anonymous faults + munmap: {r['anon_faults']['base_pages']['events_per_second'] / 1e6:8.1f} M base pages/s, "
            f"{r['anon_faults']['thp']['events_per_second'] / 1e6:.1f} M pages/s in huge pages",
            f"(e) writer under a memcg limit: {r['writer']['events_per_second'] / 1e6:7.1f} M page events/s",
            f"(f) faults on a mapped file:   {r['mapped_faults']['events_per_second'] / 1e6:8.1f} M page events/s"
            f"  [{int(r['mapped_faults']['major_faults'])} major faults]",
            f"(a) with lru_gen:              {r['hit_path_lru_gen']['events_per_second'] / 1e6:8.1f} M page events/s  (target >= 20)  "
            f"{ok(r['hit_path_lru_gen']['events_per_second'] >= r['hit_path_lru_gen']['target'])}",
            f"(b) with lru_gen:              {r['limit_reclaim_lru_gen']['events_per_second'] / 1e6:8.1f} M page events/s  (target >= 5)   "
            f"{ok(r['limit_reclaim_lru_gen']['events_per_second'] >= r['limit_reclaim_lru_gen']['target'])}"
            f"  [{int(r['limit_reclaim_lru_gen']['pages_reclaimed'])} pages reclaimed]",
            f"(g) large folios (XFS, 6.18):  {r['large_folios']['memory']['bytes_per_resident_page']:8.1f} bytes per resident 4 KiB, "
            f"hits {r['large_folios']['hit_path']['events_per_second'] / 1e6:.1f} M page events/s, "
            f"reclaim {r['large_folios']['limit_reclaim']['events_per_second'] / 1e6:.1f} M page events/s"
            f"  [{int(r['large_folios']['limit_reclaim']['pages_reclaimed'])} pages reclaimed; {_parts_text(r['large_folios']['memory'])}]",
        ]
    )
