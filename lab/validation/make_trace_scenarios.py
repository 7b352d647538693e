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
_UNSEEN = ("accesses the recording could not see. The program keeps touching pages of its mappings through "
           "page-table entries the recording run had set up (a fault happens once per page, or once per 16-page "
           "fault-around block, when nothing is reclaimed), so the trace has no event for them; in the tight memcg "
           "the kernel's reclaim unmaps and evicts those pages and the program faults on them again. {detail}")
_TEXT = ("Traced on the host at 10M (filemap:mm_filemap_add_to_page_cache by inode for comm sqlite3): "
         "libsqlite3.so's text (352 pages) was added 1,727 times (one read of the file at 40M: 352), the sqlite3 binary "
         "146 times (71 at 40M): the LIKE loop runs that code all along")
# What the sampled instruction pointers (memtwin record --sample-hz, SAMPLE_HZ) give the twin of
# sqlite3@10M, measured 2026-11-29 04:19-04:23 (three recordings at load 13.9-14.5, each replayed
# whole, with its `access` events removed, and with one in 10 or 100 kept).
_SAMPLED = ("The recording samples the program's user instruction pointers at 1 kHz (memtwin record --sample-hz "
            "1000): 84 samples over the 0.72 s run, 82 `access` events of text pages (64 of them libc's pread64 page, "
            "where the 1 ms sample found the thread in its read; 8 in libsqlite3), which the replay runs as touches "
            "through the PTEs (young) or, for a page reclaim unmapped, as faults. They move the twin from 72.8M and 11 "
            "major faults (the same trace without them) to 83.6M and 12: one more major fault, so at most one more "
            "read-around of a library's text (1.9M), the rest the database's pages read again; the kernel's 16 more "
            "faults and 1,727 libsqlite3 pages added are not reproduced. The result depends on how many touches the "
            "rate gives: a 10 kHz recording (374 accesses) replays to 67.7M with 16 major faults, one in 10 of its "
            "accesses to 86.8M with 12, one in 100 and none to 69.1M with 11; a 100 Hz recording (11 accesses) and "
            "one in 10 of the 1 kHz recording's give 72.8M with 11. So sampled text touches do not explain the "
            "kernel's faults: a sample shows one page of the code the loop runs in that millisecond, where the kernel "
            "sees every page of it referenced at each scan. Of the 82, 75 are libc's and ld.so's pages, which "
            "other processes map: charged to the root memcg, they are outside this memcg's reclaim in the kernel "
            "and the twin. The kernel's reclaim at 10M (traced 04:42, one measure: 102.3M, 37 faults) ran "
            "shrink_active_list 47 times on the file LRU (2,776 taken, 2,717 deactivated, 59 referenced); the "
            "twin's deactivates 3,461, but no touched page had its accessed bit cleared between two touches, so a "
            "trial of x86's ptep_clear_flush_young() (no TLB flush: an access whose translation the TLB holds sets "
            "no bit) changed nothing (lab/validation/trace-programs.md)")
KNOWN_OUT = {
    ("sqlite3", "10M", "memcg.pgmajfault"): _UNSEEN.format(detail=_TEXT + ". Recording set (5 measures, 2026-11-29 "
        "02:52, load 10.7): 27-28 major faults, median 27; the twin 12 (11 at 40M as recorded 7-12). " + _SAMPLED + ". "
        "read_bytes at this limit is within since the sampled touches (83.6M against the set's median 91.1M, -8.3%; "
        "69.1M, -24.1%, with the trace recorded unsampled at 02:52), not by the kernel's path (its text refaults), "
        "and not at every sampling rate (above)."),
    ("sqlite3-mmap", "10M", "read_bytes"): _UNSEEN.format(detail=(
        "Here also the database's mapping: the recording's 304 faults on it are one every 16 pages (fault-around maps "
        "the 15 others), so the twin touches one page in 16 of the scan. On the host at 10M the readahead windows "
        "evict the pages of the current read-around the scan has not reached, and the scan faults on each of them "
        "(54 faults reached filemap_fault(), each a 2048-page read-around; 62,066 pages added for 10,026); in the twin "
        "a page evicted ahead of the scan is touched again only if it is one of the 304. A trial replay that also "
        "touched every page between two faults of the mapping 256 pages or less apart (not kept: it assumes what the "
        "trace does not say) read 187.6M with 36 major faults (127.4M and 29 without). libsqlite3.so's text: 1,367 "
        "pages added at 10M against 474 at 40M (traced 01:48). The kernel's spread: 257.8-348.8M read. The trace "
        "recorded 2026-11-29 04:21 with instruction-pointer samples at 1 kHz (26 `access` events of text pages) "
        "replays to 125.1M with 30 major faults, with or without them (10 kHz, 396 accesses: 127.8M and 33, 124.8M "
        "and 29 without): samples give the text a program runs, not the data it loads through its mapping, and "
        "nothing on this host's kernel shows those loads per page without disturbing reclaim (page_idle is not "
        "built; clear_refs and smaps give the accessed bit per VMA and clear it).")),
    ("sqlite3-mmap", "10M", "memcg.pgmajfault"): _UNSEEN.format(detail=(
        "The major faults of read_bytes' known_out at this limit (the scan's faults on evicted pages of the database "
        "and on libsqlite3's text): 52 recorded, 39-56 in measures; the twin 30 with the 1 kHz trace (29 before it; "
        "36 with the trial's touches).")),
    ("sqlite3-mmap", "40M", "read_bytes"): (
        "the race between the scan and its readahead windows, which the twin's device loses. On the host (traced "
        "2026-11-28 20:37: 12,906 pages added for 10,026, 3,345 of the 3,346 deleted never touched) the window "
        "[6144, 8192) is read when the scan's fault in its marked folio (at 6218, as in the twin) charges the last "
        "window [8192, 10026), and those charges reclaim [6080, 8192), read and not yet scanned, ahead of the scan, "
        "which then faults there and reads around again. In the twin (engine log) that window is still on the device "
        "(submitted 2.4 ms before, 6.5 ms for 8 MiB at the calibrated 1.29 GB/s; with complete_together it then "
        "completes with the last window), so the charges take pages behind the scan instead (young page-table "
        "references keep them one pass) and the scan never meets an evicted page. The twin's outcome depends on that "
        "pace and not on the touches the trace lacks (a trial touching every page between faults: 43.8M): with the "
        "recorded think time (time_scale 1) and a device of 2.0 or 3.2 GB/s it reads 47.9M, with time_scale 0 44.0M at "
        "every rate tried. The host's disk read the kernel's 4 MiB readahead requests in 1.3 ms alone (cat@12M's trace) "
        "where O_DIRECT reads of 4 MiB take 2.6-2.8 ms (calibration's 1 MiB reads: 1.29 GB/s): why its readahead "
        "requests are faster was not found, so the scenario keeps the calibrated rate and the measured think time is "
        "not replayed (time_scale 0, as for every trace scenario). The kernel's spread: 54.5-64.2M read in five "
        "measures, 55.6M at 01:48 (the twin 44.0M; 44.0M too with the 1 kHz trace of 04:21, 43.7M with a 10 kHz one)."),
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
RUNS = {"sqlite3": 5}
RUNS_WHEN = {"sqlite3": "2026-11-29 02:52, load 10.7"}

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
    sampled = (f"; --sample-hz {sm['hz']}: {sm['touches']} `access` events from {sm['taken']} instruction-pointer\n# samples, "
               f"recorded {h.get('created')}" if sm else "")
    s = HEAD.format(kernel=h.get("kernel"), what=what, tracer=tracer + (f" --sample-hz {sm['hz']}" if sm else ""), sampled=sampled,
                    name=name, name_json="trace-" + name,
                    profile=replay.profile_for_kernel(h.get("kernel")), ra=ra, limit0=limits[0], task=task,
                    cal_date=cal["date"], cal_read=f"{cal['read_bw'] / 1e6:.0f} MB/s", cal_p50=f"{cal['rand4k_p50_us']:.0f} us",
                    read_bw=cal["read_bw"], write_bw=cal["write_bw"], seek=f"{cal['seek_ns'] // 1000}us")
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
