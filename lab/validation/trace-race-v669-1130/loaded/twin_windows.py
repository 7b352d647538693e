"""The twin (memtwin run) at a host recording's host costs as validate gives them, once with its
device_window_ns and once with its device_lone_window_ns as machine.loop_read_window (race669;
an experiment: validate gives device_window_ns).

    python3 lab/validation/trace-race-v669-1130/loaded/twin_windows.py SCENARIO RECORDING.json"""
import json, os, subprocess, sys, tempfile
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from memtwin.validate import recorded_host_cost
scn, rec = sys.argv[1], sys.argv[2]
real = json.load(open(rec))["variants"]["default"]
hc = real["real"]["machine"]["host_cost"]
base = [s for s in recorded_host_cost(real) if not s.startswith("machine.loop_read_window")]
for name, w in (("device_window", hc["device_window_ns"]), ("lone_window", hc["device_lone_window_ns"])):
    cmd = [sys.executable, "-m", "memtwin.cli", "run", scn, "--json", os.path.join(tempfile.gettempdir(), "race669-o.json")]
    for s in base + [f'machine.loop_read_window="{w}ns"']:
        cmd += ["--set", s]
    subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")), capture_output=True, check=True)
    o = json.load(open(os.path.join(tempfile.gettempdir(), "race669-o.json")))
    steps = o["variants"]["default"]["steps"] if "variants" in o else o["steps"]
    print(name, w, [round(s["metrics"]["read_bytes"] / 1e6) if "metrics" in s else s for s in steps][:3])
