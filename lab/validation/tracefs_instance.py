"""A tracefs instance of a lab tool's own, recording while a run goes on (the lab/validation/trace_*.py
tools that read tracepoints through tracefs rather than bpftrace).

    with recording(work, "memtwin-bdp", {"writeback/balance_dirty_pages": None}, raw, 16384) as inst:
        ...  # run the workload
        lost = events_lost(inst)

mounts tracefs at WORK/tracefs, makes the instance `NAME-PID` with a ring buffer of `buffer_kb` per
CPU, writes each event's filter (None: none) and enables it, and copies the instance's trace_pipe
into `raw` from a thread until the block ends. Whatever ends the block (an exception, sys.exit from a
signal handler), the reader stops after draining, the events are disabled, the instance is removed
(leftovers.remove_trace_instance) and tracefs unmounted.
"""
import contextlib
import os
import signal
import subprocess
import sys
import threading

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

from memtwin import leftovers  # noqa: E402


def stop_bpftrace(bp) -> None:
    """Stop a bpftrace a lab tool started (subprocess.Popen) if it still runs: SIGINT (it prints its
    maps and exits), then SIGKILL if it has not exited within 60 s; every wait bounded."""
    if bp is None or bp.poll() is not None:
        return
    bp.send_signal(signal.SIGINT)
    try:
        bp.wait(timeout=60)
    except subprocess.TimeoutExpired:
        bp.kill()
        bp.wait(timeout=30)


def missing_events(tracefs: str, events) -> list:
    """The events (`system/name`) this kernel's tracefs at `tracefs` does not have."""
    return [e for e in events if not os.path.isdir(os.path.join(tracefs, "events", e))]


def ring_stats(inst: str, keys) -> int:
    """The sum over the instance's per-CPU ring buffers of their `stats` lines named in `keys`
    ("entries": events buffered, not yet read; "overrun", "dropped events": events lost)."""
    n = 0
    for cpu in os.listdir(os.path.join(inst, "per_cpu")):
        with open(os.path.join(inst, "per_cpu", cpu, "stats")) as f:
            n += sum(int(line.split(":")[1]) for line in f if line.split(":")[0] in keys)
    return n


def events_lost(inst: str) -> int:
    """Events the instance's per-CPU ring buffers overran or dropped so far."""
    return ring_stats(inst, ("overrun", "dropped events"))


@contextlib.contextmanager
def recording(work: str, name: str, events: dict, raw: str, buffer_kb: int, poll: float = 0.005, tool: str = "trace", hint: str = ""):
    """The instance `NAME-PID` recording `events` ({`system/name`: filter or None}) into `raw`
    for the block's length; yields the instance's directory. A kernel without one of the
    events exits with a message naming them (`tool`: the caller's name; `hint`, e.g. the kernel
    version that has them, follows in brackets)."""
    tracefs = os.path.join(work, "tracefs")
    os.mkdir(tracefs)
    subprocess.run(["mount", "-t", "tracefs", "nodev", tracefs], check=True)
    inst = os.path.join(tracefs, "instances", f"{name}-{os.getpid()}")
    stop = threading.Event()
    reader = None
    try:
        missing = missing_events(tracefs, events)
        if missing:
            sys.exit(f"{tool}: this kernel has no {', '.join(missing)} tracepoint(s)" + (f" ({hint})" if hint else ""))
        os.mkdir(inst)
        with open(os.path.join(inst, "buffer_size_kb"), "w") as f:
            f.write(str(buffer_kb))
        for ev, flt in events.items():
            d = os.path.join(inst, "events", ev)
            if flt:
                with open(os.path.join(d, "filter"), "w") as f:
                    f.write(flt)
            with open(os.path.join(d, "enable"), "w") as f:
                f.write("1")

        def drain() -> None:
            fd = os.open(os.path.join(inst, "trace_pipe"), os.O_RDONLY | os.O_NONBLOCK)
            with open(raw, "wb") as out:
                while True:
                    try:
                        b = os.read(fd, 1 << 20)
                    except BlockingIOError:
                        if stop.is_set():
                            break
                        stop.wait(poll)
                        continue
                    out.write(b)
            os.close(fd)

        reader = threading.Thread(target=drain)
        reader.start()
        yield inst
    finally:
        stop.set()
        if reader is not None:
            reader.join()
        if os.path.isdir(inst):
            for ev in events:
                try:
                    with open(os.path.join(inst, "events", ev, "enable"), "w") as f:
                        f.write("0")
                except OSError:
                    pass
            why = leftovers.remove_trace_instance(inst)
            if why:
                print(f"{tool}: {why}", file=sys.stderr)
        subprocess.run(["umount", tracefs])
