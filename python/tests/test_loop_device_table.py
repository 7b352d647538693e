"""The host runner's loop device's read table in the host scenarios (lab/validation/loop_table.py
LOOP_READ_BW, LOOP_REQUEST_READ_BW, which make_folio_scenarios.py and make_queue_scenarios.py import) is what lab/measurements/loop_device_table.py derives from the idle-host
trace it names (ra21, issue 21), to 10 MB/s: a figure changed by hand, or a trace replaced without the table,
fails here. And every host scenario that gives the loop device's own queue gives that one table (table23): a
generator or a hand-written scenario with a copy of another fails here."""
import importlib.util
import json
import os
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_host_table_is_the_idle_trace_s():
    table = load("lab/measurements/loop_device_table.py", "loop_device_table")
    with open(os.path.join(ROOT, "lab", "measurements", "segment_cost_buffered-idle-1130.json")) as f:
        d = table.derive(json.load(f))
    sys.path.insert(0, os.path.join(ROOT, "lab", "validation"))
    try:
        gen = load("lab/validation/make_folio_scenarios.py", "make_folio_scenarios")
    finally:
        sys.path.pop(0)
    table = load("lab/validation/loop_table.py", "loop_table")
    assert table.LOOP_READ_BW == round(d["queue_read_bw"], -7) == 2_520_000_000
    assert table.LOOP_REQUEST_READ_BW == round(d["request_read_bw"], -7)
    assert table.LOOP_READ_BW_BATCHES == [round(x[6], -6) for x in d["steady"]]
    assert "queue_read_bw_batches = [2507000000, " in gen.LOOP_QUEUE
    # the steady batches the rule takes: 16 of two windows issued together (13 requests, 16 MiB), none of the ramp's
    assert len(d["steady"]) == 16 and all(n == 13 and nb == 16 << 20 for _, n, nb, *_ in d["steady"])
    assert 2.3e9 < min(x[6] for x in d["steady"]) and max(x[6] for x in d["steady"]) < 2.7e9
    # the segment fit over every round's 256 KiB requests alone (922 ns), not one round's narrow range
    assert 900 < d["segment_cost_ns"] < 950 and len(d["alone"]) == 876
    assert f'queue_read_bw = {gen.LOOP_READ_BW}\n' in gen.HOST_DEVICE and f'read_bw = {gen.LOOP_READ_BW}\n' in gen.QUEUE_DEVICE
    assert (gen.LOOP_READ_BW, gen.LOOP_REQUEST_KEYS) == (table.LOOP_READ_BW, table.LOOP_REQUEST_KEYS)


def test_every_host_scenario_with_the_loop_queue_gives_the_one_table():
    """The host has one loop device (table23, issues 21/23): each host scenario (validation and pending) whose
    device has a queue of its own (queue_depth) gives loop_table.py's read side (the idle host's shared
    bandwidth, its 16 batches, a request alone), its write side (loop21: test_loop_write_table.py), and the requests in flight completing
    together; the shared bandwidths as queue_* under blk-throttle (whose read_bw/write_bw are the runner's
    rules), as read_bw/write_bw without it (build.rs device_hw_queue)."""
    table = load("lab/validation/loop_table.py", "loop_table")
    seen = []
    for d in ("validation", "validation-pending"):
        folder = os.path.join(ROOT, "python", "memtwin", "scenarios", d)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".toml"):
                continue
            with open(os.path.join(folder, name), "rb") as f:
                sc = tomllib.load(f)
            if (sc.get("validation") or {}).get("on") != "host":
                continue
            for dev in (sc.get("devices") or {}).values():
                if "queue_depth" not in dev:
                    continue
                seen.append(name)
                shared = "queue_" if dev.get("blk_throttle") else ""
                got = (dev[shared + "read_bw"], dev[shared + "write_bw"], dev.get("request_read_bw"),
                       dev.get("queue_read_bw_batches"), dev.get("request_write_bw"), dev.get("queue_depth"),
                       dev.get("request_latency"), dev.get("request_cost"), dev.get("complete_together"))
                assert got == (table.LOOP_READ_BW, table.LOOP_WRITE_BW, table.LOOP_REQUEST_READ_BW,
                               table.LOOP_READ_BW_BATCHES, table.LOOP_REQUEST_WRITE_BW, 128, "50us", "13us", True), (d, name)
    # the host-ext4/-verity ones of make_folio_scenarios.py, its -queue twins, the unthrottled host-queue ones
    # and host-queue-cold-read
    assert "host-queue-cold-read.toml" in seen and "host-queue-rw-seq-unthrottled.toml" in seen
    assert "host-ext4-seq-tight-1g-ra8192-queue.toml" in seen and len(seen) >= 45, seen
