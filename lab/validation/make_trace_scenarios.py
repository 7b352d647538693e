#!/usr/bin/env python3
"""Write issue 18's recorded-program scenarios into scenarios/validation/: trace-NAME.toml, one
per real program recorded on this host (its trace, traces/NAME.mtt, as the scenario's task),
with the three memcg limits it was measured at (loose, around its working set, tight) as
variants. Their recorded results, real/trace-NAME.json, are the `memtwin measure` runs of the
program at those limits, written by lab/record_trace_validation.py (as root, under the host
lock), which also records the traces; so `memtwin validate --recorded` compares the twin's replay
of each trace with the real program as it does every other validation scenario.

The twin runs the trace as `memtwin replay` runs it (replay.to_scenario): the kernel profile of
the recording's kernel (the trace header's `kernel`), the recording host's read_ahead_kb (the
header's), one memcg `ct` with the limit, think time dropped (`time_scale = 0`: the measured
figures are bytes, usage and faults, not times); the machine is this host's (24G, 2 CPUs), and
its device the disk the programs read from, /dev/vda, as `memtwin calibrate --dir /var/tmp`
measured it (CALIBRATION; where `memtwin replay` takes a default device), which reports a
reader's readahead windows in flight done together (`complete_together`,
lab/validation/trace-programs.md). The
task starts with the page cache the measured run started with (`initial_cache` naming the
recorded results: measure drops the trace's files, and what stays is what other processes map).

Targets (issue 18): read bytes and the memcg's peak usage within 15%, major faults within 20%.
Major faults are compared for the programs recorded with the BPF tracer only: strace sees mmap
calls, not the faults on the mappings (the replay counts a strace trace's file mmaps as
skipped), so a strace trace has no faults to replay.

Run from the repository root: python3 lab/validation/make_trace_scenarios.py
"""
import json
import os
import sys

from scenario_text import OUT

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

DATA = "/var/tmp/mtval"
# The disk beneath DATA, measured (as root, under the host lock):
#   memtwin calibrate --dir /var/tmp --queue --json lab/validation/vda-calibrate.json
CALIBRATION = os.path.join(HERE, "vda-calibrate.json")

# name: (task, command, limits loose / around the working set / tight, tracer, what it is)
PROGRAMS = {
    "cat": ("cat", ["cat", f"{DATA}/big.bin"], ["256M", "48M", "12M"], "bpf", "cat of a 48 MiB file"),
    "grep-r": ("grep", ["grep", "-r", "-c", "zzqqxx", "/usr/lib/python3.11"], ["256M", "48M", "12M"], "bpf",
               "grep -r over /usr/lib/python3.11 (54M, 1400 files)"),
    # tar skips reading files when the archive is /dev/null: it writes a real archive. Recorded
    # with strace: with the BPF tracer (2026-11-28 20:48) its major faults were 1 / 1 at 512M, 1 /
    # 2 at 128M and 32M (twin / measured), and the kernel's count at 128M varies from run to run
    # (measured again: 10, 3; 32M: 2): the libraries' pages the limit reclaim takes while tar writes
    # its archive (not traced: this kernel has no kprobe on filemap_fault)
    "tar-cf": ("tar", ["tar", "cf", f"{DATA}/doc.tar", "-C", "/usr/share", "doc"], ["512M", "128M", "32M"], "strace",
               "tar cf of /usr/share/doc (130M)"),
    "sqlite3": ("sqlite3", ["sqlite3", f"{DATA}/db.sqlite", "select count(*) from t where v like '%zzq%'"],
                ["256M", "40M", "10M"], "bpf", "sqlite3's full scan of a 40 MiB database"),
    # the same scan through a file mapping (sqlite's mmap I/O): page faults, recorded by the
    # BPF tracer, replayed through the engine's fault path; its major faults are compared
    "sqlite3-mmap": ("sqlite3", ["sqlite3", f"{DATA}/db.sqlite",
                                 "PRAGMA mmap_size=268435456; select count(*) from t where v like '%zzq%'"],
                     ["256M", "40M", "10M"], "bpf", "sqlite3's full scan of a 40 MiB database through a file mapping"),
}

# The points still out, with their cause measured on the host (6.18.44, 2026-11-29 01:38-01:49,
# load 9-13: lab/validation/trace-programs.md, "2026-11-29"). cat@12M's read bytes (and sqlite3@10M's,
# until the merges of eda60e0 and the recording set below), out until then, are within since the scenarios' device is the calibrated /dev/vda completing a
# reader's windows in flight together (complete_together): the limit reclaim then finds the
# window before the current one read and unlocked, and evicts its pages ahead of the reader, as
# the kernel does.
# sqlite3@10M's major faults were out until 2026-11-29 10:20 (16, 14-17 over five runs, against the
# recording set's 21-23): the twin read an executable mapping's faults around the fault (ra_pages
# centred on it), which brought libsqlite3's whole text back at each fault, where 6.16+'s
# do_sync_mmap_readahead() reads from the fault to the VMA's end (KernelProfile::exec_ra_forward,
# 3b61a3f08949), so the text below a fault faults on its own. Traced on the host at 10M
# (trace_program_inodes.py --runs, 10:13, load 9.6: 100.9M read, 36 major faults): libsqlite3's
# additions come in runs that end at its text VMA's end, file page 282 ([240, 282), [252, 282),
# [255, 282)), and in whole-file read-arounds ([0, 38) ... [255, 352) less the pages still cached,
# six times) from faults on its read-only, non-exec VMAs; the sqlite3 binary's text [8, 54) in
# [32, 54) then [8, 32). With the branch the twin takes 17 (15-19) and reads 89.2M (set: 90.8M,
# 21-23). What the twin still lacks there (the kernel re-reads the text the loop keeps running,
# which x86's ptep_clear_flush_young() without a TLB flush allows, and its count varies with the
# host's load: 21-23 at load 13, 25-40 at load 10, 36 at load 9.6): lab/validation/trace-programs.md.
# Points that pass within their tolerance without the twin's runs meeting the kernel's, with the cause of the
# gap, in the scenario's header (a known_out cannot be written for a metric in tolerance: validate fails on it).
HEADER_NOTES = {
    "sqlite3": (
        "# Within tolerance, not agreement: at 10M memcg.pgmajfault is the twin's median 17 against the recording set's\n"
        "# 21 (-19.0% at 20%; its known_out removed 2026-11-29 10:20 with 6.16+'s readahead of exec mappings), but the\n"
        "# twin's five runs (15-19) never overlap the kernel's (21-23). What the twin lacks: the kernel re-reads the text\n"
        "# the scan keeps running, which x86's ptep_clear_flush_young() allows (arch/x86/mm/pgtable.c clears the accessed\n"
        "# bit without a TLB flush, so a translation the TLB keeps sets no bit again until a flush), and how often\n"
        "# depends on the host's load (21-23 major faults at load 13, 25-40 at load 10, 36 at load 9.6). A trial of that\n"
        "# in the twin changed nothing (no touched page had its bit cleared between two touches): why the kernel's reclaim\n"
        "# reaches the running text that often is open (lab/validation/trace-programs.md; make_trace_scenarios.py above\n"
        "# KNOWN_OUT).\n"),
}

KNOWN_OUT = {
    # h-obs20 (2026-11-30): sqlite3-mmap@10M memcg.pgmajfault and @40M read_bytes came within tolerance when
    # the readahead batch stopped counting the window's cached pages as locked (54 vs 45 at 20%, 51.5M vs
    # 55.0M): their known_outs (the device-pace analysis, lab/validation/trace-sqlite-mmap-10m-1130) removed.
}

# Recording sets (`recorded = [...]`, README "Validation against real kernels"): the programs
# measured several times in one session (lab/record_trace_validation.py --measure-only --runs N, under
# the host lock), real/trace-NAME.json and real/trace-NAME-run2..N.json; validate compares the
# medians, the twin's run i starting from the cache measured run i started with. The tight points'
# outcome varies from run to run with the host's timing (README, "Your own workload").
# The instruction-pointer sampling rate of a program's BPF recording (memtwin record --sample-hz): 1 ms
# samples, perf's order of magnitude, set before any replay (the result's sensitivity to it: README,
# "Your own workload"; lab/validation/trace-programs.md).
SAMPLE_HZ = {"sqlite3": 1000, "sqlite3-mmap": 1000}
# The window of a program's young-page recording (memtwin record --refs-ms): the finest the recorder
# takes (1 ms), set before any replay; each window's accesses are written at its end, so the finer the
# window the nearer the trace is to when the pages were touched (lab/validation/trace-programs.md,
# "2026-11-29 07:00": 2 and 5 ms windows, for the result's sensitivity).
REFS_MS = {"sqlite3": 1, "sqlite3-mmap": 1}
RUNS = {"sqlite3": 5, "sqlite3-mmap": 5}
RUNS_WHEN = {"sqlite3": "2026-11-29 07:27, load 12.7-13.1", "sqlite3-mmap": "2026-11-29 07:27, load 13.3-13.5"}

TOLERANCE = {"read_bytes": 0.15, "memcg.max_usage_bytes": 0.15}
FAULTS = {"memcg.pgmajfault": 0.20}

HEAD = """# Validation on this host's kernel ({kernel}, cgroup v1) of a real program (issue 18): {what},
# recorded with `memtwin record --tracer {tracer}` (traces/{name}.mtt{sampled}) and measured with `memtwin measure`
# at three memcg limits; the twin replays the trace.
# Generated by lab/validation/make_trace_scenarios.py (its docstring: the targets); recorded results
# in real/{name_json}.json (re-record, as root: flock /tmp/memtwin-host.lock python3 lab/record_trace_validation.py {name}).

[scenario]
name = "trace-{name}"
description = "{what}, replayed from its trace at three memcg limits"
seed = 0

[machine]
ram = "24G"
cpus = 2

[kernel]
profile = "{profile}"
cgroup = "v1"

# the disk the programs read from (/dev/vda beneath /var/tmp) as `memtwin calibrate --dir /var/tmp`
# measured it (lab/validation/vda-calibrate.json, {cal_date}): sequential 1 MiB O_DIRECT reads
# {cal_read}, 4 KiB random reads p50 {cal_p50}; it reports a reader's readahead windows in flight
# done together (complete_together; lab/validation/trace-programs.md); the trace header's read_ahead_kb
[devices.sda]
read_bw = {read_bw}
write_bw = {write_bw}
seek = "{seek}"
complete_together = true
read_ahead_kb = {ra}

[cgroups.ct]
"memory.limit_in_bytes" = "{limit0}"

[tasks.{task}]
cgroup = "ct"
trace = "traces/{name}.mtt"
time_scale = 0
step = "run"
# the page cache the measured run started with (its files dropped; pages other processes map stay)
initial_cache = "real/{name_json}.json"
"""


def scenario(name: str) -> str:
    from memtwin import replay, trace

    task, _cmd, limits, tracer, what = PROGRAMS[name]
    with trace.Reader(os.path.join(OUT, "traces", name + ".mtt")) as r:
        h = r.header
    ra = h.get("read_ahead_kb", 128)
    with open(CALIBRATION) as f:
        cal = json.load(f)
    sm = h.get("samples")
    yg = h.get("young")
    sampled = (f"; --sample-hz {sm['hz']}: {sm['touches']} `access` events from {sm['taken']} instruction-pointer\n# samples"
               if sm else "")
    if yg:
        sampled += (f"{';' if sm else ''} --refs-ms {yg['ms']}: {yg['touches']} `access` events of the {yg['pages']} pages found young "
                    f"in {yg['windows']}\n# windows")
    if sm or yg:
        sampled += f", recorded {h.get('created')}"
    flags = (f" --sample-hz {sm['hz']}" if sm else "") + (f" --refs-ms {yg['ms']}" if yg else "")
    s = HEAD.format(kernel=h.get("kernel"), what=what, tracer=tracer + flags, sampled=sampled,
                    name=name, name_json="trace-" + name,
                    profile=replay.profile_for_kernel(h.get("kernel")), ra=ra, limit0=limits[0], task=task,
                    cal_date=cal["date"], cal_read=f"{cal['read_bw'] / 1e6:.0f} MB/s", cal_p50=f"{cal['rand4k_p50_us']:.0f} us",
                    read_bw=cal["read_bw"], write_bw=cal["write_bw"], seek=f"{cal['seek_ns'] // 1000}us")
    s = s.replace("\n\n[scenario]\n", "\n" + HEADER_NOTES.get(name, "") + "\n[scenario]\n", 1)
    for lim in limits:
        s += f'\n[variants.{lim}]\ndescription = "memcg limit {lim}"\ncgroups.ct."memory.limit_in_bytes" = "{lim}"\n'
    tol = dict(TOLERANCE, **(FAULTS if tracer == "bpf" else {}))
    n = RUNS.get(name)
    if n:
        s = s.replace(f"in real/trace-{name}.json (re-record, as root: flock /tmp/memtwin-host.lock python3 "
                      f"lab/record_trace_validation.py {name})",
                      f"in real/trace-{name}.json and real/trace-{name}-run2..{n}.json (a recording set; re-measure, as root:\n"
                      f"# flock /tmp/memtwin-host.lock python3 lab/record_trace_validation.py --measure-only --runs {n} {name})")
        files = ", ".join([f'"real/trace-{name}.json"'] + [f'"real/trace-{name}-run{i}.json"' for i in range(2, n + 1)])
        s += (f"\n[validation]\n# a recording set: {n} measures of each limit in one session ({RUNS_WHEN[name]}),\n"
              f"# their medians compared\nrecorded = [{files}]\non = \"host\"\n")
    else:
        s += '\n[validation]\nrecorded = "real/trace-{}.json"\non = "host"\n'.format(name)
    if tracer != "bpf":
        s += ("# major faults not compared: strace sees mmap calls, not the faults on the mappings (the replay\n"
              "# counts the trace's file mmaps as skipped)\n")
    s += "\n[validation.tolerance]\n" + "".join(f'"{k}" = {v}\n' for k, v in tol.items())
    for (n, lim, metric), why in KNOWN_OUT.items():
        if n == name:
            s += f'\n[[validation.known_out]]\nvariant = "{lim}"\nstep = "run"\nmetric = "{metric}"\nwhy = {json.dumps(why)}\n'
    return s


def main() -> None:
    for name in (sys.argv[1:] or PROGRAMS):
        path = os.path.join(OUT, f"trace-{name}.toml")
        with open(path, "w") as f:
            f.write(scenario(name))
        print(path)


if __name__ == "__main__":
    main()
