#!/usr/bin/env python3
"""The probe's rounds in the kept host-stall recordings (no trace: their `latency_samples_ms`): the median, the
rounds above 1.12x it (the twin's rounds are flat, so these make the kernel's max90/max99), the lengths of the runs
of consecutive such rounds, their median level, and the rounds by band (ms). Run from the repository root:
python3 lab/validation/trace-probe-1201/quiet_levels.py"""
import glob
import json
import os
import statistics as st

BANDS = (8, 10, 11, 13.5, 20, 100)


def main():
    base = "scenarios/validation-pending/real"
    names = sorted(glob.glob(f"{base}/host-stall-alone-p16m*.json")) + sorted(glob.glob(f"{base}/host-stall-cp4x-p16m-v669h*.json"))
    for path in names:
        d = json.load(open(path))["variants"]["default"]
        s = [x for x in d["steps"] if x["name"] == "probe"][0]
        L = s["latency_samples_ms"]
        m = st.median(L)
        slow = [x for x in L if x > 1.12 * m]
        runs, cur = [], 0
        for x in L:
            if x > 1.12 * m:
                cur += 1
            elif cur:
                runs.append(cur)
                cur = 0
        if cur:
            runs.append(cur)
        bands = [0] * (len(BANDS) + 1)
        for x in L:
            bands[sum(x >= b for b in BANDS)] += 1
        print(f"{os.path.basename(path)[:-5]:34s} {d['real']['kernel']:18s} {d['real']['date'][:16]} rounds {len(L):3d} median {m:5.2f}"
              f" slow {len(slow):3d} at {st.median(slow) if slow else 0:5.2f} runs {runs}")
        print(f"{'':34s} bands <8 8-10 10-11 11-13.5 13.5-20 20-100 >=100: {bands}")


if __name__ == "__main__":
    main()
