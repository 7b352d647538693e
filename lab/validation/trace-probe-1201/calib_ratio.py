#!/usr/bin/env python3
"""Every recording in the repository (and the lead's /work/quiet/s49) with the runner's anonymous-fault calibration
(real.machine.host_cost anon_fault_ns, the p10 of anon_fault_cost's 24 back-to-back rounds, and anon_fault_median_ns):
the median's ratio to the p10, sorted. Back-to-back rounds never let the vCPU halt between them. Run from the
repository root: python3 lab/validation/trace-probe-1201/calib_ratio.py"""
import glob
import json

rat = []
for f in sorted(set(glob.glob("scenarios/**/real/*.json", recursive=True) + glob.glob("/work/quiet/s49/*.json"))):
    try:
        vs = json.load(open(f)).get("variants", {})
    except (OSError, ValueError, AttributeError):
        continue
    for v in (vs.values() if isinstance(vs, dict) else vs):
        if not isinstance(v, dict):
            continue
        hc = (((v.get("real") or {}).get("machine") or {}).get("host_cost") or {})
        if hc.get("anon_fault_ns") and hc.get("anon_fault_median_ns"):
            rat.append((hc["anon_fault_median_ns"] / hc["anon_fault_ns"], hc["anon_fault_ns"], hc.get("kernel"), f.split("/")[-1],
                        (hc.get("loadavg_before") or [0])[0]))
rat.sort()
print(f"{len(rat)} calibrations; median/p10 above 1.12: {sum(r[0] > 1.12 for r in rat)}")
for r in rat:
    print("%.3f %5d %s %-52s load %.2f" % r)
