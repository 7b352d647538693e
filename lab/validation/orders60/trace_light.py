#!/usr/bin/env python3
"""orders60: one host run with a tracefs instance (no bpftrace: its printf cost ~5 us an event on this host, r1)
recording the reader's large-folio charges: kmem:mm_page_alloc of order >= 2 with the readahead gfp (0x152c4a,
r1's reader), filemap add/delete of folios of order >= 2 outside the root disk (vda 254:0: the scratch file
system's loop device, so the drain's own writes are not traced), kmem:mm_page_free of order >= 2 (a failed
charge frees its folio), vmscan memcg reclaim begin/end and lru_isolate / lru_shrink_inactive (memcg reclaim only
runs in the reader during the pass), sched_switch from/to tasks named python3* (prev_comm/next_comm filter:
the drain thread is python3 too, but its switches make no events of their own).

    flock /tmp/memtwin-qemu.lock flock /tmp/memtwin-host.lock unshare -m --propagation private \\
        nice -n -10 python3 lab/validation/orders60/trace_light.py SCENARIO --raw FILE --json FILE"""
import argparse, os, signal, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
import tracefs_instance  # noqa: E402

VDA = (254 << 20) | 0


def events_min() -> dict:
    """--min: the memcg reclaims' begin and end only (M13's light trace), to size the other events' cost."""
    return {"vmscan/mm_vmscan_memcg_reclaim_begin": None, "vmscan/mm_vmscan_memcg_reclaim_end": None}


def events_mid() -> dict:
    """--mid: reclaim begin/end, the deletions (one event a folio) and shrink_inactive_list's end (one a batch)."""
    return {"vmscan/mm_vmscan_memcg_reclaim_begin": None, "vmscan/mm_vmscan_memcg_reclaim_end": None,
            "filemap/mm_filemap_delete_from_page_cache": f"s_dev != {VDA}", "vmscan/mm_vmscan_lru_shrink_inactive": None}


def events() -> dict:
    fs = f"order >= 2 && s_dev != {VDA}"
    return {
        "kmem/mm_page_alloc": "order >= 2 && gfp_flags == 0x152c4a",
        "kmem/mm_page_free": "order >= 2",
        "filemap/mm_filemap_add_to_page_cache": fs,
        "filemap/mm_filemap_delete_from_page_cache": f"s_dev != {VDA}",
        "vmscan/mm_vmscan_memcg_reclaim_begin": None,
        "vmscan/mm_vmscan_memcg_reclaim_end": None,
        "vmscan/mm_vmscan_lru_isolate": None,
        "vmscan/mm_vmscan_lru_shrink_inactive": None,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--raw", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--min", action="store_true", help="trace the memcg reclaims' begin and end only")
    ap.add_argument("--mid", action="store_true", help="reclaim begin/end, deletions, shrink_inactive_list ends")
    a = ap.parse_args()
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, _f: sys.exit(f"trace_light: {signal.Signals(signum).name}; cleaned up"))
    with tempfile.TemporaryDirectory(prefix="memtwin-orders60-") as work:
        with tracefs_instance.recording(work, "memtwin-orders60", events_min() if a.min else events_mid() if a.mid else events(), os.path.abspath(a.raw), 65536,
                                        tool="trace_light") as inst:
            r = subprocess.run([sys.executable, "-m", "memtwin.cli", "real", os.path.abspath(a.scenario), "--on", "host",
                                "--json", os.path.abspath(a.json)], env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
            lost = tracefs_instance.events_lost(inst)
            print(f"trace_light: runner exit {r.returncode}, events lost {lost}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
