"""The host runner's loop device's read table in the generated host scenarios (make_folio_scenarios.py
LOOP_READ_BW, LOOP_REQUEST_READ_BW) is what lab/measurements/loop_device_table.py derives from the idle-host
trace it names (ra21, issue 21), to 10 MB/s: a figure changed by hand, or a trace replaced without the table,
fails here."""
import importlib.util
import json
import os
import sys

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
    assert gen.LOOP_READ_BW == round(d["queue_read_bw"], -7) == 2_520_000_000
    assert gen.LOOP_REQUEST_READ_BW == round(d["request_read_bw"], -7)
    assert gen.LOOP_READ_BW_BATCHES == [round(x[6], -6) for x in d["steady"]]
    assert "queue_read_bw_batches = [2507000000, " in gen.LOOP_QUEUE
    # the steady batches the rule takes: 16 of two windows issued together (13 requests, 16 MiB), none of the ramp's
    assert len(d["steady"]) == 16 and all(n == 13 and nb == 16 << 20 for _, n, nb, *_ in d["steady"])
    assert 2.3e9 < min(x[6] for x in d["steady"]) and max(x[6] for x in d["steady"]) < 2.7e9
    # the segment fit over every round's 256 KiB requests alone (922 ns), not one round's narrow range
    assert 900 < d["segment_cost_ns"] < 950 and len(d["alone"]) == 876
    assert f'queue_read_bw = {gen.LOOP_READ_BW}\n' in gen.HOST_DEVICE and f'read_bw = {gen.LOOP_READ_BW}\n' in gen.QUEUE_DEVICE
