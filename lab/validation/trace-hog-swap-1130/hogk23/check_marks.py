"""hogk23: the marks of hog23b's runner and the host costs in each recording of a set (no engine figure).
python3 check_marks.py scenarios/validation-pending/real/host-stall-hog-swap-v669k{1..6}.json"""
import json
import sys

NEED = ("anon_fault_ns", "clear_page_ns", "zap_page_ns", "reclaim_call_ns", "device_window_ns", "read_ns_by_order",
        "loop_read_window_ns")
bad = 0
for path in sys.argv[1:]:
    v = json.load(open(path))["variants"]["default"]
    real = v["real"]
    hc = real["machine"]["host_cost"]
    miss = [k for k in NEED if k not in hc]
    new_rule = "only once every other task of the run is over" in real.get("folios_source", "")
    steps = []
    for s in v["steps"]:
        mark = "skipped" if "folios_skipped" in s else (f"scan {s['folio_scan_s']}" if "folio_scan_s" in s else "NONE")
        ok = mark != "NONE" and "at_s" in s and "background_sampler_cpu_s" in s.get("sched", {}) \
            and s["metrics"].get("memcg.events.oom_kill") == 0
        bad += not ok
        steps.append(f"{s['name']}: {mark}, at_s {s.get('at_s')}, sampler {s['sched'].get('background_sampler_cpu_s')}"
                     f"{'' if ok else ' MISSING'}")
    bad += bool(miss) + (not new_rule)
    print(f"{path}: {real['kernel']} {real['date']} new rule {new_rule}, host_cost missing {miss or 'none'}, "
          f"unavailable {sorted(hc.get('unavailable', {}))}, loadavg before {hc['loadavg_before'][0]} after {hc['loadavg_after'][0]}")
    for line in steps:
        print("   ", line)
sys.exit(1 if bad else 0)
