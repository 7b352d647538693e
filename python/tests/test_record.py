"""memtwin record / import --format strace: offsets per descriptor, errors, no partial output."""

import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("zstandard", reason="traces need the zstandard package")

from memtwin import trace, trace_import

LOG = """\
100 1700000000.000000 openat(AT_FDCWD</w>, "/data/a", O_RDONLY) = 3</data/a>
100 1700000000.000100 read(3</data/a>, ""..., 4096) = 4096
100 1700000000.000200 read(3</data/a>, ""..., 4096) = 4096
100 1700000000.000300 lseek(3</data/a>, 65536, SEEK_SET) = 65536
100 1700000000.000400 read(3</data/a>,  <unfinished ...>
101 1700000000.000450 pread64(4</data/b>, ""..., 8192, 12288) = 8192
100 1700000000.000500 <... read resumed>""..., 4096) = 100
100 1700000000.000600 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, 3</data/a>, 0x2000) = 0x7f0000000000
100 1700000000.000700 mmap(NULL, 65536, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000010000
100 1700000000.000800 close(3</data/a>) = 0
100 1700000000.000900 +++ exited with 0 +++
"""


def test_import_strace(tmp_path):
    log = tmp_path / "s.log"
    log.write_text(LOG)
    out = tmp_path / "s.mtt"
    info = trace_import.import_strace(str(log), str(out))
    assert info["files"] == 2
    with trace.Reader(str(out)) as r:
        assert [f["path"] for f in r.header["files"]] == ["/data/a", "/data/b"]
        ev = [(trace.OP_NAMES[e[5]], e[0], e[1], e[2], e[3], e[4]) for e in r.events()]
    assert ev == [
        ("open", 0, 0, 0, 100, 0),
        ("read", 100000, 0, 4096, 100, 0),
        ("read", 200000, 4096, 4096, 100, 0),
        ("lseek", 300000, 65536, 0, 100, 0),
        ("read", 450000, 12288, 8192, 101, 1),
        ("read", 500000, 65536, 100, 100, 0),
        ("mmap", 600000, 0x2000, 8192, 100, 0),
        ("anon_mmap", 700000, 0, 65536, 100, trace.NO_FILE),
        ("close", 800000, 0, 0, 100, 0),
        ("exit", 900000, 0, 0, 100, trace.NO_FILE),
    ]


def test_import_strace_open_truncation(tmp_path):
    # do_open() (fs/namei.c, 6.1) truncates a regular file opened with O_TRUNC via handle_truncate();
    # creat() is do_sys_open(O_CREAT|O_WRONLY|O_TRUNC) (fs/open.c); truncate(2) names a path
    # (do_sys_truncate()). Each becomes a truncate event right after its open; an open without
    # O_TRUNC does not.
    log = tmp_path / "t.log"
    log.write_text(
        '100 1700000000.000000 openat(AT_FDCWD</w>, "/data/a", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</data/a>\n'
        '100 1700000000.000100 open("/data/b", O_RDWR|O_TRUNC) = 4</data/b>\n'
        '100 1700000000.000200 creat("/data/c", 0644) = 5</data/c>\n'
        '100 1700000000.000300 openat(AT_FDCWD</w>, "/data/d", O_RDWR|O_CREAT, 0644) = 6</data/d>\n'
        '100 1700000000.000400 truncate("/data/d", 0) = 0\n'
        '100 1700000000.000500 truncate("/data/a", 8192) = 0\n'
        '100 1700000000.000600 openat(AT_FDCWD</w>, "/data/e", O_RDONLY|O_TRUNC) = -1 ENOENT (No such file or directory)\n')
    out = tmp_path / "t.mtt"
    trace_import.import_strace(str(log), str(out))
    with trace.Reader(str(out)) as r:
        assert [f["path"] for f in r.header["files"]] == ["/data/a", "/data/b", "/data/c", "/data/d"]
        ev = [(trace.OP_NAMES[e[5]], e[0], e[1], e[2], e[3], e[4]) for e in r.events()]
    assert ev == [
        ("open", 0, 0, 0, 100, 0),
        ("truncate", 0, 0, 0, 100, 0),
        ("open", 100000, 0, 0, 100, 1),
        ("truncate", 100000, 0, 0, 100, 1),
        ("open", 200000, 0, 0, 100, 2),
        ("truncate", 200000, 0, 0, 100, 2),
        ("open", 300000, 0, 0, 100, 3),
        ("truncate", 400000, 0, 0, 100, 3),
        ("truncate", 500000, 0, 8192, 100, 0),
    ]


def test_import_errors(tmp_path):
    with pytest.raises(trace.TraceError, match="no such strace log"):
        trace_import.import_strace(str(tmp_path / "nope.log"), str(tmp_path / "o.mtt"))
    bad = tmp_path / "bad.log"
    bad.write_text("this is not strace\n")
    with pytest.raises(trace.TraceError, match="no strace lines"):
        trace_import.import_strace(str(bad), str(tmp_path / "o.mtt"))
    assert not (tmp_path / "o.mtt").exists()


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "memtwin.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def test_record_command_not_found(tmp_path):
    out = tmp_path / "x.mtt"
    p = _cli("record", "--out", str(out), "--", "no-such-command-memtwin")
    assert p.returncode == 1 and "error: command not found" in p.stderr and "fix:" in p.stderr
    assert "Traceback" not in p.stderr and not out.exists()


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed")
def test_record_real_program(tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(b"x" * 100000)
    out = tmp_path / "cat.mtt"
    p = _cli("record", "--tracer", "strace", "--out", str(out), "--", "cat", str(data))
    if p.returncode != 0 and "ptrace" in p.stderr:
        pytest.skip("ptrace is not allowed here: " + p.stderr.splitlines()[0])
    assert p.returncode == 0, p.stderr
    with trace.Reader(str(out)) as r:
        files = {f["path"]: f["id"] for f in r.header["files"]}
        assert r.header["tracer"] == "strace"
        fid = files[str(data)]
        read = sum(e[2] for e in r.events() if e[4] == fid and e[5] == trace.OPS["read"])
    assert read == 100000


def test_replay_stopgap(tmp_path):
    """A synthetic trace: 8 MiB read sequentially in 128 KiB reads, replayed at a 4M limit."""
    from memtwin import replay
    out = tmp_path / "r.mtt"
    w = trace.Writer(str(out), {"source": "test", "files": [{"id": 0, "path": "/data/f", "size": 8 << 20}]})
    for i in range(64):
        w.add(i, "read", pid=1, file=0, offset=i << 17, length=1 << 17)
    w.close()
    t = replay.replay(str(out), "4M").totals
    assert t["read_bytes"] >= 8 << 20 and t["memcg.max_usage_bytes"] <= 4 << 20


# The BPF tracer's lines (record_bpf.script prints them) for: exec of /bin/prog (dev 8:1 in the
# kernel's encoding, inode 10), its interpreter's first fault learnt from filemap_fault, an
# mmap of /data/f (inode 20) faulted twice, a heap fault (no file: anonymous), munmap, exit.
KDEV = (8 << 20) | 1
BPF_LINES = f"""\
E 1000 7 10 {KDEV} 40960
P 1001 10 {KDEV} 0 prog
P 1001 10 {KDEV} 1 bin
P 1001 10 {KDEV} 2 /
F 2000 7 7 5000123 20
G 2001 7 7 10 {KDEV} 1
O 3000 7 20 {KDEV} 1048576
P 3001 20 {KDEV} 0 f
P 3001 20 {KDEV} 1 data
P 3001 20 {KDEV} 2 /
M 4000 7 7f0000000000 1048576 1 2 0 20 {KDEV} 1048576
F 5000 7 7 7f0000003010 4
F 5100 7 7 7f0000004000 6
F 5200 7 7 600010010 6
R 5300 7 20 {KDEV} 1048576 8192 4096
N 6000 7 7f0000000000 1048576
X 7000 7
"""


def test_bpf_lines_to_events(tmp_path):
    """record_bpf.Converter: faults resolved to numbered mappings (the mmap'd file's, the
    program's learnt from filemap_fault at the page's file index, anonymous memory for an
    address of no mapping), the last munmap frees the number, exit ends the process."""
    import os
    from memtwin import record_bpf
    raw = tmp_path / "raw.txt"
    raw.write_text("Attaching 8 probes...\nREADY 1\n" + BPF_LINES)
    out = tmp_path / "b.mtt"
    w = trace.Writer(str(out), {"source": "bpftrace"})
    counts = record_bpf.convert(str(raw), w, trace_import._is_data_file, "/")
    w.close()
    assert counts["faults"] == 4 and counts["file_faults"] == 3 and counts["anon_faults"] == 1
    with trace.Reader(str(out)) as r:
        files = [f["path"] for f in r.header["files"]]
        ev = [(trace.OP_NAMES[e[5]], e[4], e[1], e[2], e[6]) for e in r.events()]
    dev = record_bpf.kdev_to_stdev(KDEV)
    assert files[0] == os.path.join(record_bpf._mounts().get(dev, "/"), "bin/prog")
    assert files[1].endswith("data/f")
    assert ev == [
        # the program: page 1 faulted at 0x5000123, so its file page 0 is at 0x4fff000 (a
        # mapping of the whole file, 10 pages), number 0; an instruction fetch (flags 20 & 16).
        ("map", 0, 0, 40960, trace.MAP_EXEC),
        ("fault", 0, 4096, 0, 0),
        ("open", 1, 0, 0, 0),
        ("map", 1, 0, 1048576, 0),                # PROT_READ, MAP_PRIVATE: number 1
        ("fault", 1, 12288, 0, 0),                # a read
        ("fault", 1, 16384, 0, trace.FAULT_WRITE),
        ("map", 0xFFFF, 0, 2 << 20, trace.MAP_WRITE),   # the heap: anonymous, number 2
        ("fault", 2, 0x10000, 0, trace.FAULT_WRITE),
        ("read", 1, 8192, 4096, 0),
        ("unmap", 1, 0, 1048576, trace.UNMAP_LAST),
        ("exit", 0xFFFF, 0, 0, 0),
    ], ev


# Instruction-pointer samples (record_bpf.script's profile:hz probe: an I line, the user address
# on the next, tab-indented): one in the program's text (page 1 of /bin/prog, mapped from
# 0x4fff000 by the fault before it), one in /data/f's mapping (file page 3), one on the heap
# (anonymous), one outside every mapping (the vdso), one with no user address, one in the
# kernel's half of the address space.
SAMPLE_LINES = f"""\
E 1000 7 10 {KDEV} 40960
P 1001 10 {KDEV} 0 prog
P 1001 10 {KDEV} 1 bin
P 1001 10 {KDEV} 2 /
F 2000 7 7 5000123 20
G 2001 7 7 10 {KDEV} 1
I 2500 7 7
\t5000456

O 3000 7 20 {KDEV} 1048576
P 3001 20 {KDEV} 0 f
P 3001 20 {KDEV} 1 data
P 3001 20 {KDEV} 2 /
M 4000 7 7f0000000000 1048576 1 2 0 20 {KDEV} 1048576
F 5200 7 7 600010010 6
I 5300 7 7
\t7f0000003ff0

I 5400 7 7
\t600010020

I 5500 7 7
\t7fff12345000

I 5600 7 7
I 5700 7 7
\tffffffff81000000

X 7000 7
"""


def test_bpf_samples_to_access_events(tmp_path):
    """record_bpf.Converter: a sampled user instruction pointer in a file mapping is an `access`
    of that page of the mapping (flags ACCESS_IP); one in anonymous memory, one outside every
    mapping the trace knows and one without a user address are counted in the samples, not
    written."""
    from memtwin import record_bpf
    raw = tmp_path / "raw.txt"
    raw.write_text("Attaching 9 probes...\nREADY 1\n" + SAMPLE_LINES)
    out = tmp_path / "s.mtt"
    w = trace.Writer(str(out), {"source": "bpftrace"})
    counts = record_bpf.convert(str(raw), w, trace_import._is_data_file, "/")
    w.close()
    assert counts["samples"] == {"taken": 6, "touches": 2, "anonymous": 1, "outside_mappings": 1, "no_user_ip": 2}
    with trace.Reader(str(out)) as r:
        assert r.version == trace.FORMAT_VERSION == 2
        assert r.header["t0_monotonic_ns"] == 1000   # the first line's nsecs: time 0
        ev = [(trace.OP_NAMES[e[5]], e[4], e[1], e[2], e[6]) for e in r.events() if trace.OP_NAMES[e[5]] in ("access", "map")]
    assert ev == [
        ("map", 0, 0, 40960, trace.MAP_EXEC),
        ("access", 0, 4096, 4096, trace.ACCESS_IP),     # the program's page 1, mapping 0
        ("map", 1, 0, 1048576, 0),
        ("map", 0xFFFF, 0, 2 << 20, trace.MAP_WRITE),
        ("access", 1, 12288, 4096, trace.ACCESS_IP),    # /data/f's page 3, mapping 1
    ], ev


def test_bpf_script_samples_only_when_asked():
    from memtwin import record_bpf
    assert "profile:hz" not in record_bpf.script([11])
    s = record_bpf.script([11], sample_hz=997)
    assert "profile:hz:997 /@t[tid]/" in s and "ustack(perf, 1)" in s


def test_record_sample_hz_bad_input(tmp_path):
    """--sample-hz out of range, or with the strace tracer (which cannot sample): a clear error,
    exit 1, no trace written."""
    out = tmp_path / "x.mtt"
    for args, what in ((["--sample-hz", "-5"], "must be 0 (off) to"), (["--sample-hz", "1000000"], "must be 0 (off) to"),
                       (["--sample-hz", "100", "--tracer", "strace"], "only the BPF tracer samples")):
        p = _cli("record", *args, "--out", str(out), "--", "true")
        assert p.returncode == 1 and f"--sample-hz {args[1]}: error: " in p.stderr and what in p.stderr and "fix:" in p.stderr, p.stderr
        assert not out.exists()


@pytest.mark.skipif(__import__("memtwin.record_bpf", fromlist=["x"]).available() is not None,
                    reason="the BPF tracer cannot run here (needs root, bpftrace, BTF)")
def test_record_bpf_samples_a_busy_program(tmp_path):
    """memtwin record --sample-hz: a program that computes (sha256sum of 64 MiB) is sampled, its
    samples resolved to `access` events of its text, and the header says the rate and counts."""
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(64 << 20))
    out = tmp_path / "sha.mtt"
    p = _cli("record", "--tracer", "bpf", "--sample-hz", "1000", "--out", str(out), "--", "sha256sum", str(data))
    assert p.returncode == 0, p.stderr
    assert "instruction-pointer samples at 1000 Hz" in p.stdout
    with trace.Reader(str(out)) as r:
        sm = r.header["samples"]
        n = sum(1 for e in r.events() if e[5] == trace.OPS["access"])
    assert sm["hz"] == 1000 and sm["taken"] > 0 and n == sm["touches"] > 0, (sm, n)


# The page-table walk's young pages (record_bpf._refs_probes: Y t pid base mask, H t pid address
# pages): /data/f mapped at 0x7f0000000000 (256 pages, mapping 1), the program's text from
# 0x4fff000 (mapping 0), the heap's guess region around 0x600010010 (anonymous, known once the
# sample after the fault resolved it).
YOUNG_LINES = f"""\
E 1000 7 10 {KDEV} 40960
P 1001 10 {KDEV} 0 prog
P 1001 10 {KDEV} 1 bin
P 1001 10 {KDEV} 2 /
F 2000 7 7 5000123 20
G 2001 7 7 10 {KDEV} 1
O 3000 7 20 {KDEV} 1048576
P 3001 20 {KDEV} 0 f
P 3001 20 {KDEV} 1 data
P 3001 20 {KDEV} 2 /
M 4000 7 7f0000000000 1048576 1 2 0 20 {KDEV} 1048576
F 5200 7 7 600010010 6
I 5210 7 7
\t600010020

B 5250 ffff888000000000
W 5290 7
Y 5300 7 7f0000000000 {(1 << 3) | (1 << 4) | (1 << 5) | (1 << 63):x}
Y 5310 7 7f0000040000 1
Y 5320 7 5000000 1
Y 5330 7 600000000 3
Y 5340 7 7fff12345000 1
H 5350 7 7f00000f0000 2
X 7000 7
"""


def test_bpf_young_pages_to_access_events(tmp_path):
    """record_bpf.Converter: the walk's young pages of a file mapping are `access` events
    (flags ACCESS_YOUNG), one per run of consecutive pages (pages 3-5 of /data/f in one, page
    63 and page 64, in two lines, in two); pages in anonymous memory and outside every mapping
    are counted, not written, and so is the program's page 1, in the fault-around block of the
    window's fault at 0x5000123 (before the walk's W line: its PTE was installed young); the
    calibration's B line is not the trace's time 0."""
    from memtwin import record_bpf
    raw = tmp_path / "raw.txt"
    raw.write_text("Attaching 9 probes...\nREADY 1\n" + YOUNG_LINES)
    out = tmp_path / "y.mtt"
    w = trace.Writer(str(out), {"source": "bpftrace"})
    counts = record_bpf.convert(str(raw), w, trace_import._is_data_file, "/")
    w.close()
    assert counts["young"] == {"pages": 11, "touches": 4, "anonymous": 2, "outside_mappings": 1, "mapped_in_window": 1}, counts["young"]
    with trace.Reader(str(out)) as r:
        assert r.header["t0_monotonic_ns"] == 1000
        ev = [(e[0], e[4], e[1], e[2], e[6]) for e in r.events() if trace.OP_NAMES[e[5]] == "access"]
    Y = trace.ACCESS_YOUNG
    assert ev == [
        (4300, 1, 3 * 4096, 3 * 4096, Y),     # pages 3, 4, 5 of /data/f
        (4300, 1, 63 * 4096, 4096, Y),        # page 63 (bit 63 of the first word)
        (4310, 1, 64 * 4096, 4096, Y),        # page 64 (the next line: another run)
        (4350, 1, 240 * 4096, 2 * 4096, Y),   # a huge PMD's pages 240-241
    ], ev


def test_bpf_young_pages_after_a_write_fault_have_no_fault_around(tmp_path):
    """record_bpf.Converter: a write fault maps no fault-around block (6.1 mm/memory.c do_fault:
    do_fault_around() only in do_read_fault()): of the young pages 32 and 33 of /data/f after a
    write fault on page 32 in the window, only page 32 (its PTE installed young by the fault) is
    left out; page 33 is an access. After a read fault on page 48, pages 48-63 (its block) are
    left out and page 64 (the next block) is an access."""
    from memtwin import record_bpf
    head = YOUNG_LINES[:YOUNG_LINES.index("F 5200")]
    lines = head + ("F 5000 7 7 7f0000020123 6\n"
                    "F 5010 7 7 7f0000030456 4\n"
                    "W 5290 7\n"
                    f"Y 5300 7 7f0000000000 {(1 << 32) | (1 << 33) | (1 << 48) | (1 << 49) | (1 << 63):x}\n"
                    "Y 5310 7 7f0000040000 1\n"
                    "X 7000 7\n")
    raw = tmp_path / "raw.txt"
    raw.write_text("Attaching 9 probes...\nREADY 1\n" + lines)
    out = tmp_path / "y.mtt"
    w = trace.Writer(str(out), {"source": "bpftrace"})
    counts = record_bpf.convert(str(raw), w, trace_import._is_data_file, "/")
    w.close()
    with trace.Reader(str(out)) as r:
        ev = [(e[4], e[1], e[2]) for e in r.events() if trace.OP_NAMES[e[5]] == "access"]
    assert ev == [(1, 33 * 4096, 4096), (1, 64 * 4096, 4096)], ev
    assert counts["young"]["mapped_in_window"] == 4, counts["young"]


def test_bpf_times_leave_out_the_stopped_periods(tmp_path):
    """record_bpf.convert with --refs-ms's stopped periods: an event after a period is earlier by
    its length, the walk's lines inside it fall on its start, a period before time 0 moves
    nothing; young.stopped_ms is the stopped time after time 0."""
    from memtwin import record_bpf
    raw = tmp_path / "raw.txt"
    raw.write_text("Attaching 9 probes...\nREADY 1\n" + YOUNG_LINES)
    out = tmp_path / "y.mtt"
    w = trace.Writer(str(out), {"source": "bpftrace"})
    counts = record_bpf.convert(str(raw), w, trace_import._is_data_file, "/", stopped=[(500, 900), (5250, 5400), (6000, 6100)])
    w.close()
    assert counts["young"]["stopped_ms"] == 0.00025, counts["young"]
    with trace.Reader(str(out)) as r:
        ev = [(e[0], trace.OP_NAMES[e[5]]) for e in r.events()]
    assert [t for t, op in ev if op == "access"] == [4250] * 4, ev   # Y/H at 5300-5350: the start of (5250, 5400)
    assert ev[-1] == (7000 - 1000 - 250, "exit"), ev
    assert (3000 - 1000, "open") in ev, ev   # before the periods after time 0: unmoved


def test_refs_window_records_its_stopped_period_and_resumes(tmp_path):
    """_RefsWalker.window over a child process: the child is stopped during the window and running
    after it (SIGCONT), and the window's stopped period is recorded (SIGSTOP to SIGCONT, ns)."""
    import time
    from memtwin import record_bpf
    p = subprocess.Popen(["sleep", "60"])
    try:
        w = record_bpf._RefsWalker(0.01, lambda: [p.pid])
        t0 = time.monotonic_ns()
        w.window()
        assert w.windows == 1 and len(w.stopped) == 1
        a, b = w.stopped[0]
        assert t0 <= a <= b <= time.monotonic_ns()
        with open(f"/proc/{p.pid}/stat") as f:
            st = f.read()
        assert st[st.rindex(")") + 2] in "SR", st
        gone = record_bpf._RefsWalker(0.01, lambda: [])
        gone.window()
        assert gone.windows == 1 and gone.stopped == []
    finally:
        p.kill()
        p.wait(timeout=60)


def test_bpf_script_walks_page_tables_only_when_asked():
    """The page-table walk's probes (record_bpf._refs_probes) are in the script only with refs:
    the recorder's fadvise64 requests (its own pid), the direct map's calibration, the PTE bits."""
    from memtwin import record_bpf
    s = record_bpf.script([11], sync_pid=4242)
    assert "@pob" not in s and "@mm[pid]" not in s
    s = record_bpf.script([11], sync_pid=4242, refs=True)
    assert s.count("/pid == 4242 && args->id == 221") == 2 and "@mm[pid] = (uint64)curtask->mm" in s
    assert "& 33) == 33" in s and "0xffffffffc0000000" in s and 'printf("Y %llu' in s


def test_refs_walk_ranges_cover_the_file_mappings_in_2m_pieces():
    """record_bpf._file_ranges: this process's file mappings (/proc/PID/maps lines with an inode
    and a path), cut so that no piece crosses a 2 MiB boundary (one PTE page a walk request),
    together exactly the mappings' pages; anonymous memory and [vdso] are not in them."""
    from memtwin import record_bpf
    want = set()
    with open(f"/proc/{os.getpid()}/maps") as fh:
        for ln in fh:
            f = ln.split(None, 5)
            if len(f) == 6 and f[4] != "0" and f[5].startswith("/"):
                a, e = (int(x, 16) for x in f[0].split("-"))
                want.update(range(a, e, 4096))
    got = set()
    for a, n in record_bpf._file_ranges(os.getpid()):
        assert a % 4096 == 0 and 1 <= n <= 512 and a >> 21 == (a + n * 4096 - 1) >> 21, (hex(a), n)
        got.update(range(a, a + n * 4096, 4096))
    assert want and got == want
    assert record_bpf._file_ranges(2 ** 22 + 12345) == []   # no such process: nothing, no error


def test_record_refs_ms_bad_input(tmp_path):
    """--refs-ms out of range, or with the strace tracer (which cannot walk page tables): a clear
    error, exit 1, no trace written."""
    out = tmp_path / "x.mtt"
    for args, what in ((["--refs-ms", "-1"], "must be 0 (off) or 1 to 1000"), (["--refs-ms", "5000"], "must be 0 (off) or 1 to 1000"),
                       (["--refs-ms", "5", "--tracer", "strace"], "only the BPF tracer walks page tables")):
        p = _cli("record", *args, "--out", str(out), "--", "true")
        assert p.returncode == 1 and f"--refs-ms {args[1]}: error: " in p.stderr and what in p.stderr and "fix:" in p.stderr, p.stderr
        assert not out.exists()


# Maps argv[1] and loads its pages 3 and 100 until argv[2] windows (SIGCONTs of the recorder)
# have ended with a load before them; after each, mprotect(PROT_NONE) and back flush this mm's
# TLB (clear_refs cleared the accessed bits without a flush: a cached translation would set no
# bit again). The deadline bounds the run; it measures nothing (exit 3: too few windows).
_TOUCHER = """
import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
a = libc.mmap(None, size, 1, 2, fd, 0)   # PROT_READ, MAP_PRIVATE
conts = 0
def on_cont(_s, _f):
    global conts
    conts += 1
signal.signal(signal.SIGCONT, on_cont)
want, seen, last, s, pending = int(sys.argv[2]), 0, 0, 0, False
end = time.monotonic() + 300
while seen < want and time.monotonic() < end:
    s += ctypes.string_at(a + 3 * 4096, 1)[0] + ctypes.string_at(a + 100 * 4096, 1)[0]
    # A window counts once a load followed the window's SIGCONT and the TLB flush below: on a
    # loaded machine the next SIGSTOP can come between the flush and the next load.
    if pending:
        seen, pending = seen + 1, False
    if conts != last:
        last, pending = conts, True
        libc.mprotect(a, size, 0)
        libc.mprotect(a, size, 1)
# The window of the last counted load is walked at its end (SIGSTOP, walk, SIGCONT): keep loading
# until that SIGCONT comes, so the program has not exited before its window was walked.
final = conts
while seen >= want and conts == final and time.monotonic() < end:
    s += ctypes.string_at(a + 3 * 4096, 1)[0] + ctypes.string_at(a + 100 * 4096, 1)[0]
sys.exit(0 if seen >= want else 3)
"""


@pytest.mark.skipif(__import__("memtwin.record_bpf", fromlist=["x"]).available() is not None
                    or __import__("memtwin.record_bpf", fromlist=["x"]).refs_unavailable() is not None,
                    reason="the BPF tracer or its x86-64 page-table walk cannot run here")
def test_record_bpf_refs_sees_the_pages_a_program_keeps_loading(tmp_path):
    """memtwin record --refs-ms: a program that maps a 1 MiB file and loads pages 3 and 100 of it
    (faults: once each, fault-around mapping 0-15 and 96-111) until 6 windows ended with a load
    before them has those pages young in 5 windows or more (all but the one of its faults, whose
    young PTEs are left out); page 50, never touched nor mapped, in none; the header counts."""
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(1 << 20))
    prog = tmp_path / "toucher.py"
    prog.write_text(_TOUCHER)
    out = tmp_path / "t.mtt"
    p = _cli("record", "--tracer", "bpf", "--refs-ms", "10", "--out", str(out), "--", sys.executable, str(prog), str(data), "6")
    assert p.returncode == 0, p.stderr
    assert "young pages every 10 ms:" in p.stdout and "exited with status" not in p.stderr, (p.stdout, p.stderr)
    with trace.Reader(str(out)) as r:
        y = r.header["young"]
        fid = {f["path"]: f["id"] for f in r.header["files"]}[os.path.realpath(str(data))]
        evs = list(r.events())
    # the data file's mapping number: the `map` of file `fid` (numbers: lowest free, none freed before it here)
    live, num = set(), None
    for e in evs:
        op = trace.OP_NAMES[e[5]]
        if op == "map":
            n = min(set(range(len(live) + 1)) - live)
            live.add(n)
            if e[4] == fid:
                num = n
        elif op == "unmap" and e[6] & trace.UNMAP_LAST:
            live.discard(e[4])
    assert num is not None
    windows = {3: set(), 100: set(), 50: set()}
    for e in evs:
        if trace.OP_NAMES[e[5]] == "access" and e[6] == trace.ACCESS_YOUNG and e[4] == num:
            for pg in windows:
                if e[1] <= pg * 4096 < e[1] + e[2]:
                    windows[pg].add(e[0])
    assert y["ms"] == 10 and y["windows"] >= 6 and y["touches"] > 0 and y["stopped_ms"] > 0, y
    assert len(windows[3]) >= 5 and len(windows[100]) >= 5 and not windows[50], {k: len(v) for k, v in windows.items()}


def test_bpf_script_is_generated_for_a_cgroup():
    from memtwin import record_bpf
    s = record_bpf.script([11, 12], cgroup_id=77)
    assert "@t[11] = 1; @t[12] = 1;" in s and "args->dst_id == 77" in s
    assert s.count("printf(\"READY") == 1 and "raw_syscalls:sys_enter" in s and "page_fault_user" in s


@pytest.mark.skipif(__import__("memtwin.record_bpf", fromlist=["x"]).available() is not None,
                    reason="the BPF tracer cannot run here (needs root, bpftrace, BTF)")
def test_record_bpf_real_program(tmp_path):
    """memtwin record with the BPF tracer: cat's reads of a file, in bytes, and its page
    faults on its own program and libraries (numbered mappings)."""
    data = tmp_path / "data.bin"
    data.write_bytes(b"x" * 100000)
    out = tmp_path / "cat.mtt"
    p = _cli("record", "--tracer", "bpf", "--out", str(out), "--", "cat", str(data))
    assert p.returncode == 0, p.stderr
    assert "tracer: bpftrace" in p.stdout and "page faults:" in p.stdout
    with trace.Reader(str(out)) as r:
        assert r.header["tracer"] == "bpftrace"
        files = {f["path"]: f["id"] for f in r.header["files"]}
        assert os.path.realpath(str(data)) in files, (files, p.stdout, p.stderr)
        fid = files[os.path.realpath(str(data))]
        evs = list(r.events())
    assert sum(e[2] for e in evs if e[4] == fid and e[5] == trace.OPS["read"]) == 100000
    assert sum(1 for e in evs if e[5] == trace.OPS["fault"]) > 10


@pytest.mark.skipif(__import__("memtwin.record_bpf", fromlist=["x"]).available() is not None,
                    reason="the BPF tracer cannot run here (needs root, bpftrace, BTF)")
def test_record_bpf_open_with_o_trunc_truncates(tmp_path):
    """review49 M3: a shell's `>` redirection opens with O_WRONLY|O_CREAT|O_TRUNC (do_open() ->
    handle_truncate(), fs/namei.c 6.1): the BPF recording has a truncate to 0 right after that
    open; cat's O_RDONLY open of the file before it has none."""
    data = tmp_path / "data.bin"
    data.write_bytes(b"x" * 100000)
    out = tmp_path / "t.mtt"
    p = _cli("record", "--tracer", "bpf", "--out", str(out), "--", "sh", "-c", f"cat {data} >/dev/null; echo y >{data}")
    assert p.returncode == 0, p.stderr
    with trace.Reader(str(out)) as r:
        files = {f["path"]: f["id"] for f in r.header["files"]}
        fid = files[os.path.realpath(str(data))]
        ops = [(trace.OP_NAMES[e[5]], e[2]) for e in r.events() if e[4] == fid and trace.OP_NAMES[e[5]] in ("open", "truncate", "read", "write")]
    assert ops[0] == ("open", 0) and ops[1][0] == "read", ops
    k = ops.index(("truncate", 0))
    assert ops[k - 1] == ("open", 0), ops
    assert sum(1 for o in ops if o[0] == "truncate") == 1, ops


def _children_named(ppid: int, comm: str) -> list:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    st = f.read()
            except OSError:
                continue
            name = st[st.index("(") + 1:st.rindex(")")]
            if name == comm and int(st[st.rindex(")") + 2:].split()[1]) == ppid:
                out.append(int(d))
    return out


@pytest.mark.skipif(__import__("memtwin.record_bpf", fromlist=["x"]).available() is not None,
                    reason="the BPF tracer cannot run here (needs root, bpftrace, BTF)")
def test_record_bpf_interrupted_leaves_nothing(tmp_path):
    """Ctrl-C while the traced command runs: exit 130, no trace file, no tracer output or
    script left in the output's directory, no bpftrace process, tracefs as it was."""
    import signal
    import time
    mounted = os.path.isdir("/sys/kernel/tracing/events")
    out = tmp_path / "x.mtt"
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "record", "--tracer", "bpf", "--out", str(out), "--", "sleep", "60"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not _children_named(p.pid, "sleep"):   # the command runs once the tracer is attached
        assert p.poll() is None, p.communicate(timeout=60)[1]
        assert time.monotonic() < deadline, "the traced command did not start"
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "Traceback" not in err and not out.exists()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".memtwin-")]
    assert not _children_named(p.pid, "sleep")
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    assert str(tmp_path).encode() not in f.read(), "a bpftrace of this test is still running"
            except OSError:
                pass
    assert os.path.isdir("/sys/kernel/tracing/events") == mounted


def _pids_with_cmdline(needle: bytes) -> list:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if needle in f.read():
                        out.append(int(d))
            except OSError:
                pass
    return out


@pytest.mark.skipif(__import__("memtwin.record_bpf", fromlist=["x"]).available() is not None
                    or __import__("memtwin.record_bpf", fromlist=["x"]).refs_unavailable() is not None,
                    reason="the BPF tracer or its x86-64 page-table walk cannot run here")
def test_record_refs_ms_terminated_leaves_nothing(tmp_path):
    """SIGTERM to memtwin record --refs-ms while the command (a shell running a sleep) runs:
    exit 143, no trace, no temp file, neither the shell nor its sleep left (stopped or
    running), no bpftrace of this test."""
    import signal
    import time
    out = tmp_path / "x.mtt"
    dur = f"600.{os.getpid()}"
    p = subprocess.Popen([sys.executable, "-m", "memtwin.cli", "record", "--tracer", "bpf", "--refs-ms", "5", "--out", str(out),
                          "--", "sh", "-c", f"sleep {dur}; true"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    needle = b"sleep\0" + dur.encode()
    deadline = time.monotonic() + 300
    while not _pids_with_cmdline(needle):
        assert p.poll() is None, p.communicate(timeout=60)[1]
        assert time.monotonic() < deadline, "the traced command did not start"
        time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 143, err
    assert "Traceback" not in err and not out.exists()
    assert os.listdir(tmp_path) == []
    assert not _pids_with_cmdline(needle) and not _pids_with_cmdline(f"sleep {dur}; true".encode())
    assert not _pids_with_cmdline(str(tmp_path).encode()), "a bpftrace of this test is still running"


def test_a_held_command_never_runs_when_the_recorder_does_not_release_it(tmp_path):
    """record_bpf._hold_argv: the shell that holds the command until the tracer is attached
    exits 125 at EOF on its pipe (the recorder failed or was stopped) without running it."""
    from memtwin import record_bpf
    mark = tmp_path / "ran"
    for release in (False, True):
        r, w = os.pipe()
        try:
            p = subprocess.Popen(record_bpf._hold_argv(f"/proc/{os.getpid()}/fd/{r}", ["touch", str(mark)]))
            if release:
                os.write(w, b"\n")
            os.close(w)
            assert p.wait(timeout=60) == (0 if release else 125)
        finally:
            os.close(r)
        assert mark.exists() == release


@pytest.mark.parametrize("exc", ["BpfUnavailable", "KeyboardInterrupt"])
def test_refs_calibration_failure_cleans_up(tmp_path, monkeypatch, exc):
    """trace_tasks with --refs-ms whose calibration fails (BpfUnavailable) or is interrupted
    (Ctrl-C): that error comes out (not the walker's unstarted thread's), the held command never
    runs, the tracer (a stand-in bpftrace that prints SYNC and waits) is stopped, no temp file
    is left."""
    from memtwin import record_bpf
    err = record_bpf.BpfUnavailable("calibration failed") if exc == "BpfUnavailable" else KeyboardInterrupt()
    bindir, outdir = tmp_path / "bin", tmp_path / "out"
    bindir.mkdir()
    outdir.mkdir()
    pidfile = tmp_path / "bt.pid"
    fake = bindir / "bpftrace"
    fake.write_text(f"#!/bin/sh\necho $$ > {pidfile}\necho SYNC\nexec sleep 600\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")

    def calibrate(self, outp, timeout=10.0):
        raise err
    monkeypatch.setattr(record_bpf._RefsWalker, "calibrate", calibrate)
    mark = tmp_path / "ran"
    with pytest.raises(type(err)):
        record_bpf.trace_tasks(["touch", str(mark)], None, 0, str(outdir), refs_ms=5)
    assert not mark.exists()
    assert os.listdir(outdir) == []
    bt = int(pidfile.read_text())
    assert not os.path.exists(f"/proc/{bt}"), "the tracer was not stopped"


def test_refs_windows_never_stop_the_recorder_its_ancestors_or_the_tracer(tmp_path, monkeypatch):
    """trace_tasks --cgroup with --refs-ms: the processes a window stops are the cgroup's less
    the recorder, its ancestors (its shell, pytest's parent, init) and bpftrace (here a
    stand-in that adds itself to the fake cgroup and prints SYNC until stopped)."""
    from memtwin import record_bpf
    cg, bindir = tmp_path / "cg", tmp_path / "bin"
    cg.mkdir()
    bindir.mkdir()
    other = 4194305   # above any pid_max: no ancestor of this test
    (cg / "cgroup.procs").write_text(f"{os.getpid()}\n{os.getppid()}\n1\n{other}\n")
    fake = bindir / "bpftrace"
    fake.write_text(f"#!/bin/sh\necho $$ >> {cg / 'cgroup.procs'}\nwhile :; do echo SYNC; sleep 0.05; done\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    seen = []
    monkeypatch.setattr(record_bpf._RefsWalker, "calibrate", lambda self, outp, timeout=10.0: None)
    monkeypatch.setattr(record_bpf._RefsWalker, "start", lambda self: seen.append((self.pids(), len(_cgroup_lines(cg)))))
    outp, rc, _ = record_bpf.trace_tasks(None, str(cg), 0.01, str(tmp_path), refs_ms=5)
    os.unlink(outp)
    assert seen == [([other], 5)], seen


def _cgroup_lines(cg):
    return (cg / "cgroup.procs").read_text().split()


@pytest.mark.skipif(__import__("memtwin.record_bpf", fromlist=["x"]).refs_unavailable() is not None or os.geteuid() != 0,
                    reason="--refs-ms cannot walk page tables here, or --cgroup needs root")
def test_record_refs_ms_refuses_a_cgroup_holding_the_recorder(tmp_path):
    """record --refs-ms --cgroup X with the recorder in a cgroup below X: a clear error (the
    windows would stop the recorder itself), no output."""
    from memtwin import record
    cg = tmp_path / "cg"
    (cg / "below").mkdir(parents=True)
    (cg / "cgroup.procs").write_text("4194305\n")
    (cg / "below" / "cgroup.procs").write_text(f"{os.getpid()}\n")
    out = tmp_path / "t.mtt"
    with pytest.raises(record.RecordError) as e:
        record.record([], str(out), str(cg), 1, refs_ms=5)
    msg = str(e.value)
    assert f"--refs-ms 5 --cgroup {cg}: error: this recorder (pid {os.getpid()}) runs in {cg / 'below'}" in msg and "fix:" in msg, msg
    assert not out.exists() and os.listdir(tmp_path) == ["cg"]


def test_children_without_the_children_file_scan_every_ppid():
    """record_bpf._children: a shell with two background sleeps has the same descendants found
    from /proc/PID/task/TID/children and from every /proc/PID/stat's ppid (the fallback for a
    kernel without CONFIG_PROC_CHILDREN)."""
    import time
    from memtwin import record_bpf
    p = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60 & wait"])
    try:
        deadline = time.monotonic() + 60
        while len(_children_named(p.pid, "sleep")) < 2:
            assert time.monotonic() < deadline, "the sleeps did not start"
            time.sleep(0.05)
        scanned = record_bpf._children(p.pid, by_children_file=False)
        assert sorted(scanned) == sorted([p.pid] + _children_named(p.pid, "sleep")), scanned
        if record_bpf.proc_children():
            assert sorted(record_bpf._children(p.pid, by_children_file=True)) == sorted(scanned)
    finally:
        for c in _children_named(p.pid, "sleep"):
            os.kill(c, 9)
        p.kill()
        p.wait(timeout=60)


def test_a_tracer_that_ignores_sigint_is_stopped_without_hanging():
    """record_bpf._stop: a bpftrace that does not exit on SIGINT gets SIGTERM, then SIGKILL, each
    after the grace period; the recording never waits without a bound."""
    from memtwin import record_bpf
    code = ("import signal, sys, time\n"
            "signal.signal(signal.SIGINT, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "print('ready', flush=True); time.sleep(120)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == "ready\n"
        record_bpf._stop(p, grace=0.5)
        assert p.returncode == -9
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_mapped_files_are_snapshotted_as_the_command_starts(tmp_path):
    """record's start snapshot looks at the files other processes map (/proc/PID/maps) besides
    the command's arguments: a file this process maps is among them, and its cached pages are
    the trace's header's `resident` when the trace names it (import with record's snapshot)."""
    import mmap

    from memtwin import record, trace, trace_import

    lib = tmp_path / "libmapped.so"
    lib.write_bytes(os.urandom(16 * 4096))
    with open(lib, "rb") as fh:
        m = mmap.mmap(fh.fileno(), 16 * 4096, prot=mmap.PROT_READ)
        try:
            sum(m[i * 4096] for i in range(16))
            assert os.path.realpath(lib) in record.mapped_files()
            resident, snap = record.snapshot_resident([p for p in record.mapped_files() if p == os.path.realpath(lib)])
        finally:
            m.close()
    assert resident == {os.path.realpath(lib): [[0, 16]]} and snap["cached_pages"] == 16
    log = tmp_path / "s.log"
    log.write_text(f'1 1700000000.000000 openat(AT_FDCWD, "{lib}", O_RDONLY) = 3<{lib}>\n'
                   f'1 1700000000.000100 read(3<{lib}>, ""..., 4096) = 4096\n')
    out = tmp_path / "t.mtt"
    trace_import.import_strace(str(log), str(out), {"source": "strace"}, resident)
    with trace.Reader(str(out)) as r:
        assert record.resident_in_header(r.header) == (16, 1)


def test_trace_info_names_the_version_and_the_samples():
    """trace-info: the committed sqlite3 trace (format 2, recorded with --sample-hz 1000 --refs-ms 1)
    shows its rate, samples, young-page windows and access events; cat's (format 1, unsampled)
    shows none of them."""
    base = os.path.join(os.path.dirname(trace.__file__), "scenarios", "validation", "traces")
    p = _cli("trace-info", os.path.join(base, "sqlite3.mtt"))
    assert p.returncode == 0 and "(format version 2)" in p.stdout, p.stderr
    assert "instruction-pointer samples at 1000 Hz: 86 taken, 86 written as accesses" in p.stdout, p.stdout
    assert "young pages every 1 ms: 274 windows, 8731 pages, 4029 written as accesses" in p.stdout, p.stdout
    assert "access     4115" in p.stdout, p.stdout
    p = _cli("trace-info", os.path.join(base, "cat.mtt"))
    assert p.returncode == 0 and "(format version 1)" in p.stdout and "samples" not in p.stdout and "access" not in p.stdout
    assert "young" not in p.stdout


def test_replay_refuses_an_access_in_a_version_1_trace(tmp_path):
    """review4 F2: the binding's reader (tracefile.rs, which the replay runs on) checks the
    format version itself: an `access` event in a file that says version 1 stops the replay
    with the place and a fix, exit 1, nothing on stdout; the same file as version 2 replays."""
    import struct
    p = tmp_path / "a.mtt"
    w = trace.Writer(str(p), {"source": "test", "files": [{"id": 0, "path": "/data/f", "size": 1 << 20}]})
    w.add(0, "map", pid=1, file=0, length=1 << 20)
    w.add(1, "fault", pid=1, file=0, offset=8192)
    w.add(2, "access", pid=1, file=0, offset=8192, length=4096, flags=trace.ACCESS_IP)
    w.close()
    ok = _cli("replay", str(p), "--limit", "64M")
    assert ok.returncode == 0, ok.stderr
    data = bytearray(p.read_bytes())
    data[8:10] = struct.pack("<H", 1)
    p.write_bytes(bytes(data))
    bad = _cli("replay", str(p), "--limit", "64M")
    assert bad.returncode == 1 and bad.stdout == "", (bad.stdout, bad.stderr)
    assert f"{p}:" in bad.stderr and "event 2 is an `access`, which a version-1 trace cannot hold" in bad.stderr and "fix:" in bad.stderr, bad.stderr
