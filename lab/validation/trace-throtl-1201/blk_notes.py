#!/usr/bin/env python3
"""Record blk-throttle's own log of a host run (throtl21, 2026-12-01): the blk tracer's notes
(`throtl_log()` in block/blk-throttle.c, 6.18: "[R] bio. bdisp= sz= bps= ...", "schedule timer. delay=
jiffies=", "[R] new slice start= end= jiffies=", "[R] extend slice ...", "[R] trim slice nr= bytes= ...",
"bios disp=") and its queue/issue/complete actions for the run's loop device, into OUT.

    unshare -m --propagation private sh -c 'mount -t tracefs nodev /sys/kernel/tracing; \\
        python3 blk_notes.py --out OUT [--bps 524288000] -- COMMAND...'

This host has no kprobes (CONFIG_KPROBES is not set: bpftrace cannot attach to __blk_throtl_bio or
throtl_trim_slice), but CONFIG_BLK_DEV_IO_TRACE=y: throtl_log() writes its notes when the device's
blktrace has the notify action. The runner makes its loop device anew (LOOP_CTL_REMOVE/ADD) and sets the
scenario's read rule (blkio.throttle.read_bps_device "MAJ:MIN BPS") after writing the files, so the tool
waits for that rule, then enables the device's trace (sysfs /sys/block/loopN/trace: act_mask, enable) with
the top-level tracer `blk` (the blk tracer is not available in instances). The tracer, the top-level
buffer size and the device's trace are put back (nop, 1408 KiB, disabled) whatever happens.
"""
import argparse
import glob
import os
import subprocess
import sys
import threading
import time

T = "/sys/kernel/tracing"
RULE = "/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device"


def put(path, text):
    with open(path, "w") as f:
        f.write(text)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--bps", type=int, default=524288000)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        print("blk_notes.py: no command after --", file=sys.stderr)
        return 2
    if not os.path.exists(os.path.join(T, "current_tracer")):
        print(f"blk_notes.py: no tracefs at {T} (mount it in a private mount namespace first)", file=sys.stderr)
        return 2
    enabled = None
    stop = threading.Event()
    out = open(a.out, "w")

    def pump():
        fd = os.open(os.path.join(T, "trace_pipe"), os.O_RDONLY | os.O_NONBLOCK)
        try:
            while True:
                try:
                    b = os.read(fd, 1 << 16)
                except BlockingIOError:
                    b = b""
                if b:
                    out.write(b.decode(errors="replace"))
                elif stop.is_set():
                    break
                else:
                    time.sleep(0.005)
        finally:
            os.close(fd)

    put(os.path.join(T, "buffer_size_kb"), "65536")
    put(os.path.join(T, "trace"), "")
    put(os.path.join(T, "current_tracer"), "blk")
    th = threading.Thread(target=pump, daemon=True)
    th.start()
    p = subprocess.Popen(cmd)
    try:
        while p.poll() is None:
            if enabled is None:
                try:
                    rules = open(RULE).read().split("\n")
                except OSError:
                    rules = []
                want = [r.split()[0] for r in rules if r.split()[1:] == [str(a.bps)] and r.startswith("7:")]
                if want:
                    for d in glob.glob("/sys/block/loop*/dev"):
                        if open(d).read().strip() == want[0]:
                            tr = os.path.join(os.path.dirname(d), "trace")
                            put(os.path.join(tr, "act_mask"), "queue,issue,complete,notify")
                            put(os.path.join(tr, "enable"), "1")
                            enabled = tr
                            print(f"blk_notes.py: tracing {tr} (rule {want[0]} {a.bps}) at {time.time():.3f}", file=sys.stderr)
                            break
            time.sleep(0.0005)
    finally:
        if p.poll() is None:
            p.terminate()
            p.wait(60)
        if enabled:
            try:
                put(os.path.join(enabled, "enable"), "0")
            except OSError:
                pass
        time.sleep(0.2)
        stop.set()
        th.join(30)
        put(os.path.join(T, "current_tracer"), "nop")
        put(os.path.join(T, "buffer_size_kb"), "1408")
        out.close()
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
