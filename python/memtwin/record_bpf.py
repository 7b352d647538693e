"""memtwin record's BPF tracer: bpftrace on the kernel's tracepoints, used when the host allows
it (root, bpftrace, the tracepoints below); memtwin.record falls back to strace otherwise.

What it records, for the command's whole process tree (or a cgroup's tasks and their
descendants, plus tasks that join the cgroup while it runs):
- syscalls (tracepoints syscalls:sys_enter_*/sys_exit_*): open/openat/creat, close,
  read/readv/pread64/preadv/preadv2, write/writev/pwrite64/pwritev/pwritev2, sendfile64 and
  copy_file_range (as a read and a write), fadvise64, fsync/fdatasync, ftruncate, mmap, munmap,
  mremap, madvise. The file of a descriptor is read in the kernel (`current->files`): inode,
  device, size, and the file position before the call (the offset a read or write touched), so
  nothing depends on following descriptors through dup/fork as a log parser must;
- processes: task:task_newtask (fork; threads are followed, not written), sched_process_exec,
  sched_process_exit (group_dead: the process's exit);
- page faults: exceptions:page_fault_user, and page_fault_kernel at user addresses (a
  copy_to_user() into memory not yet faulted), each `handle_mm_fault()` the kernel ran (a PTE a
  fault-around mapped takes no fault and is not seen); filemap:mm_filemap_fault names the file
  page a fault reached `filemap_fault()` for (6.x);
- with `refs_ms`, the pages whose page-table entry the program's accesses made young (the
  accessed bit a later reclaim's `folio_referenced()` tests), per window of `refs_ms`: at each
  window's end `_RefsWalker` stops the followed processes (SIGSTOP), has the BPF program walk
  their page tables over their file mappings (`_refs_probes`; x86-64, 4-level: the PTEs'
  `_PAGE_ACCESSED`), clears the bits with /proc/PID/clear_refs (`3`: the file-mapped pages;
  `clear_refs_pte_range()` calls `ptep_test_and_clear_young()`, and also
  `test_and_clear_page_young()` and `ClearPageReferenced()` of each page) and lets them go on
  (SIGCONT), so a window's young pages are those touched in it: an `access` (flag
  `ACCESS_YOUNG`) per run of them, at the window's end, but for those the window's own faults
  mapped (x86 installs PTEs young). The trace's times leave the stopped periods out. This host
  has no page_idle, no DAMON vaddr and no kprobes, so the walk reads the PTEs itself;
- with `sample_hz`, the accesses no fault shows (the program executing its text through PTEs
  set up earlier): a perf cpu-clock sample (bpftrace `profile:hz:N`) of each followed thread
  running in user mode gives its instruction pointer, an `access` of that page of its mapping
  (reclaim's `folio_referenced()` sees the PTE young at its next scan; one sample per scan
  interval is enough for that). A sample that finds the thread in the kernel gives the user
  instruction it entered from (a syscall's or a fault's): that page too was just executed.

`convert` turns the tracer's lines into trace events (schema/trace-format.md): a fault's address
is resolved against the process's mappings (from its mmap calls; a mapping the kernel made at
exec, the program and its interpreter, is learnt from the first fault that reaches
filemap_fault() in it); a fault at an address of no known mapping and no file (heap, stack,
bss) is a fault on anonymous memory, in a mapping of the 2 MiB around it that a file mapping
found later replaces. What the tracer cannot see is listed in the header's `missing`.
"""

from __future__ import annotations

import bisect
import heapq
import os
import shutil
import struct
import subprocess

from . import trace

PAGE = 4096
# The tracepoints the tracer needs (under /sys/kernel/tracing/events).
TRACEPOINTS = ("exceptions/page_fault_user", "filemap/mm_filemap_fault", "raw_syscalls/sys_enter",
               "task/task_newtask", "sched/sched_process_exit", "sched/sched_process_exec")
TRACEFS = "/sys/kernel/tracing"
STOP_GRACE_S = 60.0   # seconds bpftrace gets for each of SIGINT, SIGTERM, SIGKILL when stopped
MISSING = [
    "faults a fault-around satisfied (the kernel takes none: no tracer can see them)",
    "whether each fault was major (the engine decides from its own page cache)",
    "io_uring, splice and AIO file I/O (only the syscalls listed in record_bpf.py)",
    "anonymous memory a forked child inherits (the child's faults map memory of its own)",
]

# do_fault_around()'s block: fault_around_bytes (64 KiB, mm/memory.c's default; its debugfs
# knob is not readable here) of PTEs, aligned on the virtual address.
_FAULT_AROUND_MASK = (65536 - 1)
# x86-64 error_code bits (arch/x86/include/asm/trap_pf.h).
_PF_WRITE = 2
_PF_INSTR = 16
# mmap flags and prot (include/uapi/asm-generic/mman*.h).
_MAP_SHARED = 0x01
_MAP_SHARED_VALIDATE = 0x03
_MAP_FIXED = 0x10
_MAP_ANON = 0x20
_PROT_WRITE = 2
_PROT_EXEC = 4
_DEPTH = 10   # path components read from the dentry chain


class BpfUnavailable(Exception):
    """Why BPF cannot trace here (the caller falls back to strace and says this)."""


def _fd(e: str) -> str:
    return f"*(curtask->files->fdt->fd + ({e}))"


def _reg(f: str) -> str:
    """A regular file of a block device's file system (not procfs, sysfs, tmpfs, pipes)."""
    return f"({f} != 0 && ({f}->f_inode->i_mode & 0xf000) == 0x8000 && {f}->f_inode->i_sb->s_bdev != 0)"


def _names(f: str) -> str:
    """The path of file `f`, the first time its inode is seen: one `P` line per component of
    its dentry chain up to its mount's root (one printf each keeps the BPF stack small)."""
    key = f"{f}->f_inode->i_ino, {f}->f_inode->i_sb->s_dev"
    out = [f"if (@seen[{key}] == 0) {{ @seen[{key}] = 1; $d = {f}->f_path.dentry; "
           f'printf("P %llu %lu %u 0 %s\\n", nsecs, {key}, str($d->d_name.name)); ']
    for k in range(1, _DEPTH):
        out.append(f'if ((uint64)$d != (uint64)$d->d_parent) {{ $d = $d->d_parent; printf("P %llu %lu %u {k} %s\\n", nsecs, {key}, str($d->d_name.name)); ')
    return "".join(out) + "}" * (_DEPTH - 1) + " }"


# x86-64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl).
NR = {"read": 0, "write": 1, "open": 2, "close": 3, "mmap": 9, "munmap": 11, "pread64": 17, "pwrite64": 18,
      "readv": 19, "writev": 20, "mremap": 25, "madvise": 28, "sendfile64": 40, "fsync": 74, "fdatasync": 75,
      "ftruncate": 77, "creat": 85, "fadvise64": 221, "openat": 257, "preadv": 295, "pwritev": 296,
      "copy_file_range": 326, "preadv2": 327, "pwritev2": 328}


# O_TRUNC (include/uapi/asm-generic/fcntl.h, x86-64): 00001000 octal.
_O_TRUNC = 0o1000

# User addresses end below this (x86-64's 47-bit user space, TASK_SIZE_MAX's bound).
_USER_END = 0x800000000000
SAMPLE_HZ_MAX = 20000   # the highest rate `memtwin record --sample-hz` takes
REFS_MS_RANGE = (1, 1000)   # the window lengths `memtwin record --refs-ms` takes (milliseconds)
# The page-table walk's request: the recorder's fadvise64(-1, ...) (EBADF at once: nothing
# happens in the kernel but the tracepoint), advice = the process to walk, or _REFS_CALIBRATE.
_REFS_CALIBRATE = 0x7FFF0000
_REFS_MAGIC = 0x5A17C0DE0F0E0D0C
# x86-64 page-table entries (arch/x86/include/asm/pgtable_types.h): _PAGE_PRESENT, _PAGE_ACCESSED,
# _PAGE_PSE (a huge page at the PUD/PMD level), and PTE_PFN_MASK with 52 physical address bits.
_PTE_PRESENT, _PTE_ACCESSED, _PTE_PSE = 0x1, 0x20, 0x80
_PTE_PFN_MASK = 0x000FFFFFFFFFF000


def _refs_probes(sync_pid: int) -> list:
    """The page-table walk of `refs_ms` (probes on the recorder's own fadvise64 calls).

    The walk needs the kernel's direct map (`page_offset_base`, randomized by KASLR; this
    kernel's kallsyms holds no data symbols): the recorder locks a page of its own holding
    _REFS_MAGIC and asks with its physical address (/proc/self/pagemap); the direct map starts
    at a 1 GiB boundary (kernel_randomize_memory(): PUD-aligned) at most the RAM's size below
    any direct-map address, here the recorder's `mm->pgd`, and is the one where the magic is
    read (a B line). A walk request (start, pages within one 2 MiB PMD, pid) then reads the
    process's PGD (`@mm`, taken at its syscalls and exec), PUD, PMD and PTE page through the
    direct map and prints the accessed entries as Y lines (a 64-page bit mask), a huge PMD's
    as an H line. A request of 0 pages marks the start of a process's walk (a W line): the
    faults before it are the window's."""
    sp = int(sync_pid)
    m = f"0x{_PTE_PFN_MASK:x}"
    cal = (f'tracepoint:raw_syscalls:sys_enter /pid == {sp} && args->id == {NR["fadvise64"]} && '
           f'(args->args[3] & 0xffffffff) == {_REFS_CALIBRATE}/ {{ '
           '$b = (uint64)curtask->mm->pgd & 0xffffffffc0000000; $k = 0; '
           'while ($k < 4096) { $c = $b - ((uint64)$k << 30); '
           'if (*(uint64 *)($c + args->args[1]) == args->args[2]) { @pob = $c; printf("B %llu %lx\\n", nsecs, $c); break; } '
           '$k++; } }')
    walk = (f'tracepoint:raw_syscalls:sys_enter /pid == {sp} && args->id == {NR["fadvise64"]} && '
            f'(args->args[3] & 0xffffffff) < {_REFS_CALIBRATE} && @pob/ {{ '
            '$p = args->args[3] & 0xffffffff; $a = args->args[1]; $n = args->args[2]; '
            'if ($n == 0) { printf("W %llu %d\\n", nsecs, $p); return; } '
            '$mm = @mm[$p]; if ($mm == 0) { return; } '
            '$e = *(uint64 *)((uint64)((struct mm_struct *)$mm)->pgd + (($a >> 39) & 511) * 8); '
            f'if (($e & {_PTE_PRESENT}) == 0) {{ return; }} '
            f'$e = *(uint64 *)(@pob + ($e & {m}) + (($a >> 30) & 511) * 8); '
            f'if (($e & {_PTE_PRESENT}) == 0 || ($e & {_PTE_PSE})) {{ return; }} '
            f'$e = *(uint64 *)(@pob + ($e & {m}) + (($a >> 21) & 511) * 8); '
            f'if (($e & {_PTE_PRESENT}) == 0) {{ return; }} '
            f'if ($e & {_PTE_PSE}) {{ if ($e & {_PTE_ACCESSED}) {{ printf("H %llu %d %lx %lu\\n", nsecs, $p, $a, $n); }} return; }} '
            f'$t = @pob + ($e & {m}); $i = ($a >> 12) & 511; $end = $i + $n; $w = (uint64)0; '
            'while ($i < 512) { if ($i >= $end) { break; } '
            '$x = *(uint64 *)($t + $i * 8); '
            f'if (($x & {_PTE_PRESENT | _PTE_ACCESSED}) == {_PTE_PRESENT | _PTE_ACCESSED}) {{ $w = $w | ((uint64)1 << ($i & 63)); }} '
            '$i++; '
            'if (($i & 63) == 0) { if ($w) { printf("Y %llu %d %lx %lx\\n", nsecs, $p, ($a & ~0x1fffff) + (($i - 64) << 12), $w); } $w = 0; } } '
            'if ($w) { printf("Y %llu %d %lx %lx\\n", nsecs, $p, ($a & ~0x1fffff) + ((($i - 1) & ~63) << 12), $w); } }')
    return ['tracepoint:raw_syscalls:sys_enter /@t[tid]/ { @mm[pid] = (uint64)curtask->mm; }',
            'tracepoint:sched:sched_process_exec /@t[tid]/ { @mm[pid] = (uint64)curtask->mm; }',
            'tracepoint:sched:sched_process_exit /args->group_dead && @mm[pid]/ { delete(@mm[pid]); }',
            cal, walk]


def script(roots: list, cgroup_id: int | None = None, sync_pid: int = 0, sample_hz: int = 0, refs: bool = False) -> str:
    """The bpftrace program: `roots` are the thread ids followed from the start; with
    `cgroup_id`, threads attached to that cgroup later are followed too. The syscalls go
    through raw_syscalls:sys_enter/sys_exit (two probes: attaching one tracepoint per syscall
    takes a minute on a loaded host), switched on the syscall number. With `sample_hz`, a
    `profile:hz` probe samples the followed threads' user instruction pointers (an I line, the
    address on the next line). With `refs`, the page-table walk `_refs_probes` gives."""
    ino = "$f->f_inode->i_ino, $f->f_inode->i_sb->s_dev, $f->f_inode->i_size"
    a = [f"args->args[{k}]" for k in range(6)]
    p = []
    p.append("BEGIN { " + " ".join(f"@t[{int(r)}] = 1;" for r in roots) + ' printf("READY %llu\\n", nsecs); }')
    p.append('tracepoint:task:task_newtask /@t[tid]/ { @t[args->pid] = 1; printf("K %llu %d %d %llu\\n", nsecs, pid, args->pid, args->clone_flags); }')
    if cgroup_id is not None:
        p.append(f'tracepoint:cgroup:cgroup_attach_task /args->dst_id == {int(cgroup_id)}/ {{ @t[args->pid] = 1; printf("J %llu %d\\n", nsecs, args->pid); }}')
    p.append('tracepoint:sched:sched_process_exit /@t[tid]/ { delete(@t[tid]); if (args->group_dead) { printf("X %llu %d\\n", nsecs, pid); } }')
    p.append('tracepoint:sched:sched_process_exec /@t[tid]/ { $f = curtask->mm->exe_file; '
             f'printf("E %llu %d %lu %u %lld\\n", nsecs, pid, {ino}); {_names("$f")} }}')
    enter = []
    # Reads and writes: the file and its position before the call (printed at the exit with
    # the bytes done); sendfile and copy_file_range read their input (and write the output).
    rw = {"read": ("R", None), "readv": ("R", None), "pread64": ("R", a[3]), "preadv": ("R", a[3]), "preadv2": ("R", a[3]),
          "write": ("W", None), "writev": ("W", None), "pwrite64": ("W", a[3]), "pwritev": ("W", a[3]), "pwritev2": ("W", a[3])}
    for kind in ("R", "W"):
        plain = " || ".join(f"$n == {NR[c]}" for c, (k, pos) in rw.items() if k == kind and pos is None)
        posd = " || ".join(f"$n == {NR[c]}" for c, (k, pos) in rw.items() if k == kind and pos is not None)
        code = 1 if kind == "R" else 2
        enter.append(f"if ({plain} || {posd}) {{ $f = {_fd(a[0])}; if {_reg('$f')} {{ @fd[tid] = {a[0]} + 1; @kind[tid] = {code}; "
                     f"@pos[tid] = $f->f_pos; if ({posd}) {{ @pos[tid] = {a[3]}; }} {_names('$f')} }} }}")
    enter.append(f"if ($n == {NR['sendfile64']}) {{ $f = {_fd(a[1])}; if {_reg('$f')} {{ @fd[tid] = {a[1]} + 1; @kind[tid] = 1; @pos[tid] = $f->f_pos; "
                 f"if ({a[2]} != 0) {{ @pos[tid] = *(int64 *)uptr({a[2]}); }} {_names('$f')} }} }}")
    enter.append(f"if ($n == {NR['copy_file_range']}) {{ $f = {_fd(a[0])}; if {_reg('$f')} {{ @fd[tid] = {a[0]} + 1; @kind[tid] = 1; @pos[tid] = $f->f_pos; "
                 f"if ({a[1]} != 0) {{ @pos[tid] = *(int64 *)uptr({a[1]}); }} {_names('$f')} }} "
                 f"$g = {_fd(a[2])}; if {_reg('$g')} {{ @fd2[tid] = {a[2]} + 1; @pos2[tid] = $g->f_pos; if ({a[3]} != 0) {{ @pos2[tid] = *(int64 *)uptr({a[3]}); }} }} }}")
    # An open that truncates (do_open() -> handle_truncate(), fs/namei.c 6.1): O_TRUNC in the
    # flags of open/openat, or creat() (do_sys_open(O_CREAT|O_WRONLY|O_TRUNC), fs/open.c):
    # @o = 2, and the exit prints a truncate to 0 after the open.
    enter.append(f"if ($n == {NR['openat']} || $n == {NR['open']} || $n == {NR['creat']}) {{ @o[tid] = 1; "
                 f"if ($n == {NR['creat']} || ($n == {NR['open']} && ({a[1]} & {_O_TRUNC})) || ($n == {NR['openat']} && ({a[2]} & {_O_TRUNC}))) {{ @o[tid] = 2; }} }}")
    enter.append(f"if ($n == {NR['close']}) {{ $f = {_fd(a[0])}; if {_reg('$f')} {{ printf(\"C %llu %d %lu %u %lld\\n\", nsecs, pid, {ino}); }} }}")
    enter.append(f"if ($n == {NR['fadvise64']}) {{ $f = {_fd(a[0])}; if {_reg('$f')} {{ "
                 f"printf(\"A %llu %d %lu %u %lld %lld %lld %d\\n\", nsecs, pid, {ino}, {a[1]}, {a[2]}, {a[3]}); }} }}")
    enter.append(f"if ($n == {NR['fsync']} || $n == {NR['fdatasync']}) {{ $f = {_fd(a[0])}; if {_reg('$f')} {{ printf(\"S %llu %d %lu %u %lld\\n\", nsecs, pid, {ino}); }} }}")
    enter.append(f"if ($n == {NR['ftruncate']}) {{ $f = {_fd(a[0])}; if {_reg('$f')} {{ printf(\"T %llu %d %lu %u %lld %lld\\n\", nsecs, pid, {ino}, {a[1]}); }} }}")
    enter.append(f"if ($n == {NR['mmap']}) {{ @ml[tid] = {a[1]}; @mp[tid] = {a[2]}; @mf[tid] = {a[3]}; @mo[tid] = {a[5]}; @mi[tid] = 0; @md[tid] = 0; @ms[tid] = 0; "
                 f"if (({a[3]} & {_MAP_ANON}) == 0) {{ $f = {_fd(a[4])}; if {_reg('$f')} {{ "
                 f"@mi[tid] = $f->f_inode->i_ino; @md[tid] = $f->f_inode->i_sb->s_dev; @ms[tid] = $f->f_inode->i_size; {_names('$f')} }} }} @m[tid] = 1; }}")
    enter.append(f"if ($n == {NR['munmap']}) {{ @ua[tid] = {a[0]}; @ul[tid] = {a[1]}; }}")
    enter.append(f"if ($n == {NR['mremap']}) {{ @ra[tid] = {a[0]}; @rl[tid] = {a[1]}; @rn[tid] = {a[2]}; }}")
    enter.append(f"if ($n == {NR['madvise']}) {{ @va[tid] = {a[0]}; @vl[tid] = {a[1]}; @vb[tid] = {a[2]} + 1; }}")
    p.append("tracepoint:raw_syscalls:sys_enter /@t[tid]/ { $n = args->id; " + " ".join(enter) + " }")
    ex = []
    ex.append(f"if (@fd[tid]) {{ if (args->ret > 0) {{ $f = {_fd('@fd[tid] - 1')}; "
              f"if (@kind[tid] == 1) {{ printf(\"R %llu %d %lu %u %lld %lld %ld\\n\", nsecs, pid, {ino}, @pos[tid], args->ret); }} "
              f"else {{ printf(\"W %llu %d %lu %u %lld %lld %ld\\n\", nsecs, pid, {ino}, @pos[tid], args->ret); }} "
              f"if (@fd2[tid]) {{ $f = {_fd('@fd2[tid] - 1')}; printf(\"W %llu %d %lu %u %lld %lld %ld\\n\", nsecs, pid, {ino}, @pos2[tid], args->ret); }} }} "
              "delete(@fd[tid]); delete(@kind[tid]); delete(@pos[tid]); delete(@fd2[tid]); delete(@pos2[tid]); }")
    ex.append(f"if (@o[tid]) {{ $ot = @o[tid]; delete(@o[tid]); if (args->ret >= 0) {{ $f = {_fd('args->ret')}; "
              f"if {_reg('$f')} {{ printf(\"O %llu %d %lu %u %lld\\n\", nsecs, pid, {ino}); "
              f"if ($ot == 2) {{ printf(\"T %llu %d %lu %u %lld %lld\\n\", nsecs, pid, {ino}, 0); }} {_names('$f')} }} }} }}")
    ex.append('if (@m[tid]) { if ((uint64)args->ret < 0xfffffffffffff000) { '
              'printf("M %llu %d %lx %lu %lu %lu %lu %lu %u %lld\\n", nsecs, pid, args->ret, @ml[tid], @mp[tid], @mf[tid], @mo[tid], @mi[tid], @md[tid], @ms[tid]); } '
              'delete(@m[tid]); delete(@ml[tid]); delete(@mp[tid]); delete(@mf[tid]); delete(@mo[tid]); delete(@mi[tid]); delete(@md[tid]); delete(@ms[tid]); }')
    ex.append('if (@ul[tid]) { if (args->ret == 0) { printf("N %llu %d %lx %lu\\n", nsecs, pid, @ua[tid], @ul[tid]); } delete(@ua[tid]); delete(@ul[tid]); }')
    ex.append('if (@rl[tid]) { if ((uint64)args->ret < 0xfffffffffffff000) { printf("Q %llu %d %lx %lu %lu %lx\\n", nsecs, pid, @ra[tid], @rl[tid], @rn[tid], args->ret); } '
              "delete(@ra[tid]); delete(@rl[tid]); delete(@rn[tid]); }")
    ex.append('if (@vb[tid]) { if (args->ret == 0) { printf("V %llu %d %lx %lu %d\\n", nsecs, pid, @va[tid], @vl[tid], @vb[tid] - 1); } '
              "delete(@va[tid]); delete(@vl[tid]); delete(@vb[tid]); }")
    p.append("tracepoint:raw_syscalls:sys_exit /@t[tid]/ { " + " ".join(ex) + " }")
    # Faults.
    p.append('tracepoint:exceptions:page_fault_user /@t[tid]/ { printf("F %llu %d %d %lx %lu\\n", nsecs, pid, tid, args->address, args->error_code); }')
    p.append('tracepoint:exceptions:page_fault_kernel /@t[tid] && args->address < 0x800000000000/ { printf("F %llu %d %d %lx %lu\\n", nsecs, pid, tid, args->address, args->error_code); }')
    p.append('tracepoint:filemap:mm_filemap_fault /@t[tid]/ { printf("G %llu %d %d %lu %u %lu\\n", nsecs, pid, tid, args->i_ino, args->s_dev, args->index); }')
    if sample_hz:
        # perf's cpu-clock on each CPU; ustack's first entry is the thread's user instruction
        # pointer, from the interrupted registers or, when the sample finds it in the kernel,
        # from the registers it entered with (bpf_get_stack() of task_pt_regs()): the
        # instruction that made the syscall or faulted. Printed as a line of its own, "\t<hex>"
        # (BPFTRACE_NO_USER_SYMBOLS: no symbols looked up).
        p.append(f'profile:hz:{int(sample_hz)} /@t[tid]/ {{ printf("I %llu %d %d%s", nsecs, pid, tid, ustack(perf, 1)); }}')
    if refs:
        p.extend(_refs_probes(sync_pid))
    # Attached last: BEGIN may run before the other probes are attached, so the recorder
    # waits until this one sees its own getppid() calls.
    p.append(f'tracepoint:raw_syscalls:sys_exit /pid == {int(sync_pid)} && args->id == 110/ {{ printf("SYNC\\n"); }}')
    return "\n".join(p) + "\n"


def available() -> str | None:
    """None when the BPF tracer can run here, else why not (for the output)."""
    if not shutil.which("bpftrace"):
        return "bpftrace is not installed (apt-get install bpftrace)"
    if os.geteuid() != 0:
        return "BPF tracing needs root"
    if not os.path.isdir("/sys/kernel/btf") or not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
    return None


class Tracefs:
    """tracefs mounted for the tracer's run when it is not (bpftrace attaches tracepoints by the
    ids under /sys/kernel/tracing/events), unmounted after: nothing is left behind."""

    def __init__(self):
        self.mounted = False

    def __enter__(self):
        if not os.path.isdir(os.path.join(TRACEFS, "events")):
            r = subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], capture_output=True, text=True)
            if r.returncode != 0:
                raise BpfUnavailable(f"tracefs is not mounted and could not be ({r.stderr.strip()})")
            self.mounted = True
        missing = [t for t in TRACEPOINTS if not os.path.isdir(os.path.join(TRACEFS, "events", t))]
        if missing:
            self.__exit__()
            raise BpfUnavailable(f"the kernel lacks the tracepoints {', '.join(missing)}")
        return self

    def __exit__(self, *a):
        if self.mounted:
            subprocess.run(["umount", TRACEFS], capture_output=True)
            self.mounted = False


def kdev_to_stdev(kdev: int) -> int:
    """The kernel's dev_t (MKDEV: major << 20 | minor) as stat() reports st_dev."""
    return os.makedev(kdev >> 20, kdev & 0xFFFFF)


def elf_interp(path: str) -> str | None:
    """The PT_INTERP path of an ELF executable (the interpreter the kernel maps at exec)."""
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if len(h) < 64 or h[:4] != b"\x7fELF" or h[4] != 2:
                return None
            phoff, = struct.unpack_from("<Q", h, 32)
            phentsize, phnum = struct.unpack_from("<HH", h, 54)
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
            for k in range(phnum):
                typ, = struct.unpack_from("<I", ph, k * phentsize)
                if typ == 3:
                    off, = struct.unpack_from("<Q", ph, k * phentsize + 8)
                    size, = struct.unpack_from("<Q", ph, k * phentsize + 32)
                    f.seek(off)
                    return f.read(size).rstrip(b"\0").decode(errors="replace")
    except OSError:
        return None
    return None


def _mounts() -> dict:
    """st_dev -> mount point of each mount whose root is its file system's root
    (/proc/self/mountinfo): a dentry chain ends at its mount's root."""
    out: dict = {}
    try:
        with open("/proc/self/mountinfo") as fh:
            for line in fh:
                f = line.split()
                if len(f) > 4 and f[3] == "/":
                    ma, mi = f[2].split(":")
                    out.setdefault(os.makedev(int(ma), int(mi)), f[4].replace("\\040", " "))
    except OSError:
        pass
    return out


class _Region:
    __slots__ = ("start", "end", "num", "base", "kind")

    def __init__(self, start, end, num, base, kind):
        self.start, self.end, self.num, self.base, self.kind = start, end, num, base, kind


class Converter:
    """Tracer lines -> trace events, in time order. Mapping numbers are given as the engine
    takes them (lowest free; freed by the last unmap or the owner's exit)."""

    def __init__(self, w: trace.Writer, is_data_file, cwd: str):
        self.w = w
        self.is_data = is_data_file
        self.cwd = cwd
        self.files: dict = {}        # (st_dev, ino) -> id
        self.flist: list = []        # {"id", "path", "size"}
        self.exec_keys: list = []    # (st_dev, ino) of the programs executed
        self.known_size: dict = {}   # (st_dev, ino) -> size seen at exec
        self.regions: dict = {}      # tgid -> sorted list of _Region
        self.free: list = []         # heap of free numbers
        self.nums: list = []         # number -> [owner tgid, live regions] or None
        self.pending_fault: dict = {}  # tid -> (t, tgid, address, error_code)
        self.t0 = None
        # --refs-ms's stopped periods (CLOCK_MONOTONIC ns): their starts, and the stopped time
        # before each (set_stopped); an event's time leaves out the stopped time before it.
        self.stop_starts: list = []
        self.stop_ends: list = []
        self.stop_cum: list = []
        self.counts = {"faults": 0, "file_faults": 0, "anon_faults": 0, "maps": 0, "events": 0}
        # Instruction-pointer samples: a touch of a file mapping's page, or in anonymous memory,
        # or outside every mapping the trace knows (vdso, a JIT), or with no user IP.
        self.samples = {"taken": 0, "touches": 0, "anonymous": 0, "outside_mappings": 0, "no_user_ip": 0}
        # Young pages of the page-table walk (refs_ms): written as `access` events (runs of
        # pages of one mapping), in anonymous memory, or outside every mapping the trace knows.
        self.young = {"pages": 0, "touches": 0, "anonymous": 0, "outside_mappings": 0, "mapped_in_window": 0}
        # The fault-around blocks of read faults and the pages of write faults since a process's
        # last walk ([(time, (number, address, "around" | "page"))])
        # and, from its W line, those of the window its walk ends (a young page there is not written).
        self.win_faults: dict = {}
        self.walk_blocks: dict = {}
        self.interp_of: dict = {}    # exe path -> interpreter path
        self.chains: dict = {}       # (st_dev, ino) -> {component index: name}
        self.fkeys: list = []        # file id -> (st_dev, ino)
        self.mounts = _mounts()      # st_dev -> mount point

    # -- files --------------------------------------------------------------------------------
    def _path(self, key) -> str | None:
        """The path of (st_dev, ino): its dentry chain (P lines) under its mount's mount point,
        else a program's interpreter found by stat."""
        return self._path_of_chain(key) or self._lookup(key)

    def _file(self, kdev: int, ino: int, size: int) -> int | None:
        key = (kdev_to_stdev(kdev), ino)
        fid = self.files.get(key)
        if fid is None:
            if len(self.flist) >= trace.NO_FILE:
                return None
            fid = len(self.flist)
            self.files[key] = fid
            path = self._path(key)
            size = max(int(size), self.known_size.get(key, 0))
            if not size and path:
                try:
                    size = os.stat(path).st_size
                except OSError:
                    pass
            self.flist.append({"id": fid, "path": path, "size": max(int(size), 0)})
            self.fkeys.append(key)
        fe = self.flist[fid]
        fe["size"] = max(fe["size"], int(size))
        return fid

    def finish_files(self) -> None:
        """Paths learnt after a file's first event, and a name for any still unknown."""
        for fe, key in zip(self.flist, self.fkeys):
            if fe["path"] is None:
                fe["path"] = self._path(key) or f"/memtwin-unresolved/dev{key[0]}-ino{key[1]}"
            if not fe["size"] and not fe["path"].startswith("/memtwin-unresolved/"):
                try:
                    fe["size"] = os.stat(fe["path"]).st_size
                except OSError:
                    pass

    def _lookup(self, key) -> str | None:
        """A file seen only by inode (a program's interpreter, which the kernel maps at exec):
        the PT_INTERP of each program executed, checked by stat."""
        for ek in self.exec_keys:
            exe = self._path_of_chain(ek)
            if exe is None:
                continue
            if exe not in self.interp_of:
                self.interp_of[exe] = elf_interp(exe)
            for cand in (exe, self.interp_of[exe]):
                try:
                    st = os.stat(cand)
                except (OSError, TypeError):
                    continue
                if (st.st_dev, st.st_ino) == key:
                    return os.path.realpath(cand)
        return None

    def _path_of_chain(self, key) -> str | None:
        ch = self.chains.get(key)
        if not ch:
            return None
        names = [ch.get(k) for k in range(len(ch))]
        if names[-1] != "/" or None in names:
            return None
        rel = "/".join(reversed(names[:-1]))
        mp = self.mounts.get(key[0], "/")
        return os.path.join(mp, rel) if rel else mp

    # -- numbers and regions ------------------------------------------------------------------
    def set_stopped(self, intervals) -> None:
        """The windows' stopped periods [(SIGSTOP sent, SIGCONT sent)] in CLOCK_MONOTONIC ns,
        in time order: the trace's times leave them out (the program did not run)."""
        self.stop_starts, self.stop_ends, self.stop_cum = [], [], []
        cum = 0
        for a, b in intervals:
            self.stop_starts.append(a)
            self.stop_ends.append(max(a, b))
            self.stop_cum.append(cum)
            cum += max(b - a, 0)

    def stopped_before(self, t: int) -> int:
        """The stopped time (ns) before monotonic time `t` (a time in a stopped period counts
        that period up to it: the period's lines fall on its start)."""
        if not self.stop_starts:
            return 0
        i = bisect.bisect_right(self.stop_starts, t) - 1
        if i < 0:
            return 0
        return self.stop_cum[i] + min(t, self.stop_ends[i]) - self.stop_starts[i]

    def _emit(self, t, op, **kw):
        if self.stop_starts:
            t = t - self.stopped_before(t) + self.stopped_before(self.t0)
        self.w.add(max(t - self.t0, 0), op, **kw)
        self.counts["events"] += 1

    def _map(self, t, tgid, start, end, fid, foff, flags, kind, base=0):
        if self.free:
            num = heapq.heappop(self.free)
            self.nums[num] = [tgid, 0]
        else:
            num = len(self.nums)
            if num >= 0xFFFF:
                return None
            self.nums.append([tgid, 0])
        self._emit(t, "map", pid=tgid, file=trace.NO_FILE if fid is None else fid, offset=foff,
                   length=end - start, flags=flags)
        self.counts["maps"] += 1
        self._add_region(tgid, _Region(start, end, num, base, kind))
        return num

    def _add_region(self, tgid, r):
        rs = self.regions.setdefault(tgid, [])
        rs.append(r)
        rs.sort(key=lambda x: x.start)
        self.nums[r.num][1] += 1

    def _find(self, tgid, addr):
        for r in self.regions.get(tgid, ()):
            if r.start <= addr < r.end:
                return r
            if r.start > addr:
                break
        return None

    def _unmap(self, t, tgid, a, b, kinds=None):
        """munmap() of [a, b): each overlapped region's part zapped, regions split; a number
        whose last region goes gets the `last` flag (its mapping ends)."""
        rs = self.regions.get(tgid)
        if not rs:
            return
        keep = []
        hits = []
        for r in rs:
            if r.end <= a or r.start >= b or (kinds and r.kind not in kinds):
                keep.append(r)
                continue
            s, e = max(r.start, a), min(r.end, b)
            hits.append((r, s, e))
            if r.start < s:
                keep.append(_Region(r.start, s, r.num, r.base, r.kind))
                self.nums[r.num][1] += 1
            if e < r.end:
                keep.append(_Region(e, r.end, r.num, r.base + (e - r.start), r.kind))
                self.nums[r.num][1] += 1
        keep.sort(key=lambda x: x.start)
        self.regions[tgid] = keep
        for r, s, e in hits:
            self.nums[r.num][1] -= 1
            last = self.nums[r.num][1] == 0
            self._emit(t, "unmap", pid=tgid, file=r.num, offset=r.base + (s - r.start), length=e - s,
                       flags=trace.UNMAP_LAST if last else 0)
            if last:
                self.nums[r.num] = None
                heapq.heappush(self.free, r.num)

    def _exit(self, t, tgid):
        """exit_mmap(): the process's mappings end with its `exit` event (the engine ends the
        numbers the process made)."""
        self._emit(t, "exit", pid=tgid)
        for n in sorted({r.num for r in self.regions.pop(tgid, [])}):
            self.nums[n] = None
            heapq.heappush(self.free, n)

    # -- faults -------------------------------------------------------------------------------
    def _fault_known(self, t, tgid, r, addr, code):
        page = addr & ~(PAGE - 1)
        # do_fault() maps a fault-around block only in do_read_fault(); a write fault
        # (do_cow_fault(), do_shared_fault(), or do_wp_page() on a present PTE) makes the
        # faulting page's PTE young, no other (6.1 mm/memory.c).
        key = (r.num, page, "page") if code & _PF_WRITE else (r.num, page & ~_FAULT_AROUND_MASK, "around")
        self.win_faults.setdefault(tgid, []).append((t, key))
        self._emit(t, "fault", pid=tgid, file=r.num, offset=r.base + (page - r.start),
                   flags=trace.FAULT_WRITE if code & _PF_WRITE else 0)
        self.counts["faults"] += 1
        self.counts["file_faults" if r.kind == "file" else "anon_faults"] += 1

    def _sample(self, t, tid, tgid, ip):
        """A sample of thread `tid` (process `tgid`) at user instruction pointer `ip` (None:
        bpftrace gave none). The thread runs, so a fault it had pending ended without
        filemap_fault()."""
        self._resolve_pending(tid)
        self.samples["taken"] += 1
        page = (ip or 0) & ~(PAGE - 1)
        r = self._find(tgid, page) if ip is not None and ip < _USER_END else None
        if ip is None or ip >= _USER_END:
            self.samples["no_user_ip"] += 1
        elif r is None:
            self.samples["outside_mappings"] += 1
        elif r.kind != "file":
            self.samples["anonymous"] += 1
        else:
            self._emit(t, "access", pid=tgid, file=r.num, offset=r.base + (page - r.start), length=PAGE, flags=trace.ACCESS_IP)
            self.samples["touches"] += 1

    def _window(self, t, tgid):
        """A W line: the walk of `tgid` at `t` starts; the faults before it are its window's."""
        fs = self.win_faults.get(tgid, [])
        self.walk_blocks[tgid] = {k for ft, k in fs if ft <= t}
        self.win_faults[tgid] = [(ft, k) for ft, k in fs if ft > t]

    def _young(self, t, tgid, pages):
        """Pages of process `tgid` the walk found young at time `t` (ascending addresses): one
        `access` (ACCESS_YOUNG) per run of consecutive pages of one file mapping. A page in the
        fault-around block of a read fault of the same window, or the page of a write fault
        (no fault-around), is left out: the PTE a fault or a fault-around installs is young
        from the start (x86's protections carry _PAGE_ACCESSED), so its bit says no more than
        the fault the trace holds."""
        blocks = self.walk_blocks.get(tgid, ())
        run = None   # [region, first address, pages]
        for page in pages:
            self.young["pages"] += 1
            r0 = run[0] if run is not None and run[0].start <= page < run[0].end else self._find(tgid, page)
            if r0 is not None and ((r0.num, page & ~_FAULT_AROUND_MASK, "around") in blocks or (r0.num, page, "page") in blocks):
                self.young["mapped_in_window"] += 1
                if run is not None:
                    self._young_run(t, tgid, *run)
                    run = None
                continue
            if run is not None and run[0].start <= page < run[0].end and page == run[1] + run[2] * PAGE:
                run[2] += 1
                continue
            if run is not None:
                self._young_run(t, tgid, *run)
                run = None
            r = self._find(tgid, page)
            if r is None:
                self.young["outside_mappings"] += 1
            elif r.kind != "file":
                self.young["anonymous"] += 1
            else:
                run = [r, page, 1]
        if run is not None:
            self._young_run(t, tgid, *run)

    def _young_run(self, t, tgid, r, page, n):
        self._emit(t, "access", pid=tgid, file=r.num, offset=r.base + (page - r.start), length=n * PAGE, flags=trace.ACCESS_YOUNG)
        self.young["touches"] += 1

    def _resolve_pending(self, tid, g=None):
        pf = self.pending_fault.pop(tid, None)
        if pf is None:
            return
        t, tgid, addr, code = pf
        page = addr & ~(PAGE - 1)
        if g is not None:
            kdev, ino, index = g
            fid = self._file(kdev, ino, 0)
            if fid is not None:
                size = self.flist[fid]["size"] or (index + 1) * PAGE
                npages = max((size + PAGE - 1) // PAGE, index + 1)
                base = page - index * PAGE
                start, end = self._free_span(tgid, base, base + npages * PAGE, page, skip_guess=True)
                # A file mapping found here replaces the anonymous guesses over it.
                self._unmap(t, tgid, start, end, kinds=("guess",))
                flags = _PROT_EXEC if code & _PF_INSTR else 0
                if self._map(t, tgid, start, end, fid, start - base, flags, "file") is not None:
                    self._fault_known(t, tgid, self._find(tgid, page), addr, code)
                return
        r = self._find(tgid, page)
        if r is None:
            # No file: anonymous memory (heap, stack, bss), a 2 MiB guess around it.
            lo = page & ~((1 << 21) - 1)
            start, end = self._free_span(tgid, lo, lo + (1 << 21), page)
            if self._map(t, tgid, start, end, None, 0, trace.MAP_WRITE, "guess") is None:
                return
            r = self._find(tgid, page)
        self._fault_known(t, tgid, r, addr, code)

    def _free_span(self, tgid, lo, hi, at, skip_guess=False):
        """[lo, hi) cut to the part around `at` that no region of the process covers (no
        region but the guesses with `skip_guess`)."""
        for r in self.regions.get(tgid, ()):
            if skip_guess and r.kind == "guess":
                continue
            if r.end <= at:
                lo = max(lo, r.end)
            elif r.start > at:
                hi = min(hi, r.start)
        return lo, max(hi, at + PAGE)

    # -- lines --------------------------------------------------------------------------------
    def line(self, f: list) -> None:
        kind, t = f[0], int(f[1])
        if kind == "B":
            return   # the page-table walk's calibration (before the command starts)
        if self.t0 is None:
            self.t0 = t
        if kind == "P":
            # P t ino dev k name: a component of a file's path (its name may hold spaces).
            key = (kdev_to_stdev(int(f[3])), int(f[2]))
            self.chains.setdefault(key, {})[int(f[4])] = " ".join(f[5:]) if len(f) > 5 else ""
            return
        if kind == "W":
            self._window(t, int(f[2]))
            return
        if kind == "Y":
            # Y t pid base mask: pages base + 4096 * bit, young at the window's end.
            base, mask = int(f[3], 16), int(f[4], 16)
            self._young(t, int(f[2]), [base + b * PAGE for b in range(64) if mask >> b & 1])
            return
        if kind == "H":
            # H t pid address pages: a huge PMD found young (every page of the range).
            a = int(f[3], 16)
            self._young(t, int(f[2]), [a + k * PAGE for k in range(int(f[4]))])
            return
        tid = int(f[3]) if kind in ("F", "G", "I") else None
        if kind == "I":
            self._sample(t, tid, int(f[2]), int(f[4], 16) if len(f) > 4 else None)
            return
        if kind == "G":
            self._resolve_pending(tid, (int(f[5]), int(f[4]), int(f[6])))
            return
        if kind == "F":
            self._resolve_pending(tid)
            tgid, addr, code = int(f[2]), int(f[4], 16), int(f[5])
            r = self._find(tgid, addr & ~(PAGE - 1))
            if r is not None and r.kind != "guess":
                self._fault_known(t, tgid, r, addr, code)
            else:
                # Held until the thread's next event: a filemap_fault() right after names
                # its file.
                self.pending_fault[tid] = (t, tgid, addr, code)
            return
        # Any other event of a process ends its threads' pending faults (no filemap_fault
        # followed them).
        pid = int(f[2])
        for k in [k for k, v in self.pending_fault.items() if v[1] == pid]:
            self._resolve_pending(k)
        if kind == "K":
            child, flags = int(f[3]), int(f[4])
            if not flags & 0x10000:    # CLONE_THREAD: a thread, not a process
                self._emit(t, "fork", pid=pid, length=child)
        elif kind == "X":
            self._exit(t, pid)
        elif kind == "E":
            # exec: the old address space goes (exec_mmap()); the program's interpreter is
            # mapped by the kernel, found by its PT_INTERP when its faults name its inode.
            self._unmap(t, pid, 0, 1 << 64)
            key = (kdev_to_stdev(int(f[4])), int(f[3]))
            self.exec_keys.append(key)
            self.known_size[key] = max(self.known_size.get(key, 0), int(f[5]))
        elif kind == "O":
            fid = self._file(int(f[4]), int(f[3]), int(f[5]))
            if fid is not None:
                self._emit(t, "open", pid=pid, file=fid)
        elif kind in ("C", "S"):
            fid = self._file(int(f[4]), int(f[3]), int(f[5]))
            if fid is not None:
                self._emit(t, "close" if kind == "C" else "fsync", pid=pid, file=fid)
        elif kind in ("R", "W"):
            fid = self._file(int(f[4]), int(f[3]), int(f[5]))
            if fid is not None:
                off, n = int(f[6]), int(f[7])
                if kind == "W":
                    self.flist[fid]["size"] = max(self.flist[fid]["size"], off + n)
                self._emit(t, "read" if kind == "R" else "write", pid=pid, file=fid, offset=max(off, 0), length=n)
        elif kind == "A":
            fid = self._file(int(f[4]), int(f[3]), int(f[5]))
            if fid is not None:
                self._emit(t, "fadvise", pid=pid, file=fid, offset=max(int(f[6]), 0), length=max(int(f[7]), 0), flags=int(f[8]) & 0xFF)
        elif kind == "T":
            fid = self._file(int(f[4]), int(f[3]), int(f[5]))
            if fid is not None:
                self._emit(t, "truncate", pid=pid, file=fid, length=max(int(f[6]), 0))
        elif kind == "M":
            addr, length, prot, flags, off = int(f[3], 16), int(f[4]), int(f[5]), int(f[6]), int(f[7])
            ino, kdev, size = int(f[8]), int(f[9]), int(f[10])
            end = addr + ((length + PAGE - 1) & ~(PAGE - 1))
            # A new mapping replaces whatever the process had there (MAP_FIXED, or a guess).
            self._unmap(t, pid, addr, end)
            fid = self._file(kdev, ino, size) if ino and not flags & _MAP_ANON else None
            mflags = trace.MAP_SHARED if flags & 3 in (_MAP_SHARED, _MAP_SHARED_VALIDATE) else 0
            mflags |= (trace.MAP_WRITE if prot & _PROT_WRITE else 0) | (trace.MAP_EXEC if prot & _PROT_EXEC else 0)
            self._map(t, pid, addr, end, fid, off if fid is not None else 0, mflags, "file" if fid is not None else "anon")
        elif kind == "N":
            addr, length = int(f[3], 16), int(f[4])
            self._unmap(t, pid, addr, addr + ((length + PAGE - 1) & ~(PAGE - 1)))
        elif kind == "Q":
            old, olen, nlen, new = int(f[3], 16), int(f[4]), int(f[5]), int(f[6], 16)
            olen = (olen + PAGE - 1) & ~(PAGE - 1)
            nlen = (nlen + PAGE - 1) & ~(PAGE - 1)
            if nlen < olen:
                self._unmap(t, pid, old + nlen, old + olen)
                olen = nlen
            if new != old:
                # The pages move with their mapping (move_vma()): same numbers, new addresses.
                rs = self.regions.get(pid, [])
                for r in rs:
                    if old <= r.start and r.end <= old + olen:
                        r.start += new - old
                        r.end += new - old
                rs.sort(key=lambda x: x.start)
        elif kind == "V":
            addr, length, adv = int(f[3], 16), int(f[4]), int(f[5])
            a, b = addr, addr + ((length + PAGE - 1) & ~(PAGE - 1))
            for r in list(self.regions.get(pid, ())):
                if r.end <= a or r.start >= b:
                    continue
                s, e = max(r.start, a), min(r.end, b)
                self._emit(t, "map_advise", pid=pid, file=r.num, offset=r.base + (s - r.start), length=e - s, flags=adv & 0xFF)

    def finish(self):
        for k in list(self.pending_fault):
            self._resolve_pending(k)


def parse_lines(path: str, window_ns: int = 2_000_000_000):
    """The tracer's lines as field lists in time order: bpftrace prints each CPU's buffer in
    turn, so lines arrive out of order by up to its polling period; a heap holds a window of
    `window_ns` (memory bounded by the event rate, not the recording's length)."""
    heap: list = []
    seq = 0
    newest = 0
    sample = None   # the last I line: its user instruction pointer follows on a line of its own
    with open(path, errors="replace") as fh:
        for line in fh:
            if line[:1] == "\t":
                if sample is not None and len(sample) == 4 and line.split():
                    sample.append(line.split()[0])
                continue
            sample = None
            f = line.rstrip("\n").split(" ") if line[:1] == "P" else line.split()
            if len(f) < 3 or len(f[0]) != 1 or not f[1].isdigit():
                continue
            t = int(f[1])
            newest = max(newest, t)
            # Lines older than the window leave before this one goes in (a sample's own line
            # stays until its address line has been read).
            while heap and heap[0][0] < newest - window_ns:
                yield heapq.heappop(heap)[2]
            if f[0] == "I":
                sample = f
            heapq.heappush(heap, (t, seq, f))
            seq += 1
    while heap:
        yield heapq.heappop(heap)[2]


_REFS_MAPS = ("@mm", "@pob")   # the page-table walk's (refs_ms)
_MAPS = ("@t", "@o", "@seen", "@kind", "@fd", "@pos", "@fd2", "@pos2", "@ml", "@mp", "@mf", "@mo", "@mi", "@md", "@ms", "@m",
         "@ua", "@ul", "@ra", "@rl", "@rn", "@va", "@vl", "@vb")


def refs_unavailable() -> str | None:
    """None when `refs_ms`'s page-table walk can run here, else why not."""
    import platform

    if platform.machine() != "x86_64":
        return f"the page-table walk reads x86-64 page tables (this machine: {platform.machine()})"
    try:
        with open("/proc/cpuinfo") as fh:
            flags = next((ln.split(":", 1)[1].split() for ln in fh if ln.startswith("flags")), [])
    except OSError:
        flags = []
    if "la57" in flags:
        return "the page-table walk reads 4-level page tables; this CPU has 5-level paging (la57)"
    return None


def proc_children() -> bool:
    """Whether /proc/PID/task/TID/children exists (CONFIG_PROC_CHILDREN)."""
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _children(pid: int, by_children_file: bool | None = None) -> list:
    """`pid` and its descendants: from /proc/PID/task/TID/children, or, without it
    (`by_children_file` False; None: as `proc_children()` finds), from the ppid field of every
    /proc/PID/stat (the parent's tgid, as children lists it)."""
    if by_children_file is None:
        by_children_file = proc_children()
    kids: dict = {}
    if not by_children_file:
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as fh:
                        st = fh.read()
                    kids.setdefault(int(st[st.rindex(")") + 2:].split()[1]), []).append(int(d))
                except (OSError, ValueError, IndexError):
                    continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        if not by_children_file:
            todo.extend(kids.get(p, ()))
            continue
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/children") as fh:
                    todo.extend(int(x) for x in fh.read().split())
        except (OSError, ValueError):
            continue
    return out


def _ancestors(pid: int) -> set:
    """`pid` and its ancestors (the ppid field of /proc/PID/stat, up to pid 1)."""
    out = set()
    while pid > 0 and pid not in out:
        out.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as fh:
                st = fh.read()
            pid = int(st[st.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return out


def _cgroup_procs(cgroup: str) -> list:
    """The processes of `cgroup` (its cgroup.procs; [] when it is gone)."""
    try:
        with open(os.path.join(cgroup, "cgroup.procs")) as fh:
            return [int(x) for x in fh.read().split()]
    except (OSError, ValueError):
        return []


def recorder_cgroup_in(cgroup: str) -> str | None:
    """The directory of `cgroup` or of a cgroup below it whose cgroup.procs holds this process
    (None: the recorder is outside it). With --refs-ms the windows stop every process of the
    cgroup: a recorder inside it would stop itself."""
    me = os.getpid()
    for d, _dirs, _files in os.walk(cgroup):
        if me in _cgroup_procs(d):
            return d
    return None


def _file_ranges(pid: int) -> list:
    """The page ranges of `pid`'s file mappings (/proc/PID/maps), cut at 2 MiB (one PTE page
    each): [(start address, pages)]."""
    out = []
    try:
        with open(f"/proc/{pid}/maps") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return out
    for ln in lines:
        f = ln.split(None, 5)
        if len(f) < 6 or f[4] == "0" or not f[5].startswith("/"):
            continue
        a, e = (int(x, 16) for x in f[0].split("-"))
        while a < e:
            nxt = min(e, (a | 0x1FFFFF) + 1)
            out.append((a, (nxt - a) // PAGE))
            a = nxt
    return out


STOP_WAIT_S = 0.05   # how long a window waits for a process to stop before walking it anyway


def _wait_stopped(pid: int) -> None:
    """Until /proc/PID/stat shows `pid` stopped (T) or gone, at most STOP_WAIT_S."""
    import time

    deadline = time.monotonic() + STOP_WAIT_S
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                st = fh.read()
        except OSError:
            return
        if st[st.rindex(")") + 2:][:1] in ("T", "t", "Z", "X"):
            return
        time.sleep(0.0001)


class _RefsWalker:
    """`memtwin record --refs-ms`: every `period_s`, the followed processes' young file-mapped
    pages (a walk per 2 MiB of their file mappings, `_refs_probes`), then their accessed bits
    cleared (/proc/PID/clear_refs `3`, CLEAR_REFS_MAPPED). Runs in a thread of the recorder
    while the command runs; `windows` counts the windows walked."""

    def __init__(self, period_s: float, pids):
        import threading

        self.period_s = period_s
        self.pids = pids
        self.windows = 0
        self.stopped: list = []   # [(SIGSTOP sent, SIGCONT sent)] per window, CLOCK_MONOTONIC ns
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _ask(a: int, b: int, advice: int) -> None:
        try:
            os.posix_fadvise(-1, a, b, advice)
        except OSError:
            pass   # EBADF: the request is the tracepoint's

    def calibrate(self, outp: str, timeout: float = 10.0) -> None:
        """Find the kernel's direct map (a B line from the tracer), or BpfUnavailable."""
        import ctypes
        import mmap
        import time

        buf = mmap.mmap(-1, PAGE)
        try:
            buf[:8] = struct.pack("<Q", _REFS_MAGIC)
            cb = ctypes.c_char.from_buffer(buf)
            addr = ctypes.addressof(cb)
            del cb   # no export left: the mapping can be closed
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mlock(ctypes.c_void_p(addr), ctypes.c_size_t(PAGE))
            with open("/proc/self/pagemap", "rb") as fh:
                fh.seek(addr // PAGE * 8)
                ent = struct.unpack("<Q", fh.read(8))[0]
            if not ent >> 63 or not ent & ((1 << 55) - 1):
                raise BpfUnavailable("--refs-ms: /proc/self/pagemap gave no frame for the recorder's page (needs root)")
            self._ask((ent & ((1 << 55) - 1)) * PAGE, _REFS_MAGIC, _REFS_CALIBRATE)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                with open(outp, errors="replace") as fh:
                    if any(ln.startswith("B ") for ln in fh):
                        return
                time.sleep(0.02)
            raise BpfUnavailable("--refs-ms: the page-table walk did not find the kernel's direct map "
                                 "(the magic page was not read at any 1 GiB boundary below mm->pgd)")
        finally:
            buf.close()

    def window(self) -> None:
        """One window's end: the processes stopped (SIGSTOP, until /proc shows them stopped, at
        most STOP_WAIT_S), their file mappings walked, their accessed bits cleared, then
        SIGCONT: no access falls between the walk and the clear (a page touched there would be
        in neither window; under load the recorder's thread can wait tens of milliseconds
        between the two)."""
        import signal
        import time

        pids = self.pids()
        stopped = []
        t_stop = time.monotonic_ns()
        try:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
                except OSError:
                    pass   # it exited
            for pid in stopped:
                _wait_stopped(pid)
            for pid in stopped:
                self._ask(0, 0, pid)
                for a, n in _file_ranges(pid):
                    self._ask(a, n, pid)
                try:
                    with open(f"/proc/{pid}/clear_refs", "w") as fh:
                        fh.write("3")
                except OSError:
                    pass   # it exited
        finally:
            for pid in stopped:
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass
            if stopped:
                self.stopped.append((t_stop, time.monotonic_ns()))
        self.windows += 1

    def _run(self) -> None:
        import time

        nxt = time.monotonic() + self.period_s
        while not self.stop.wait(max(0.0, nxt - time.monotonic())):
            self.window()
            nxt = max(nxt + self.period_s, time.monotonic())

    def start(self) -> None:
        self.thread.start()

    def finish(self) -> None:
        """Stop the windows (the one under way ends with its SIGCONT). A walker whose thread
        never started (its calibration failed or was interrupted) has nothing to join."""
        self.stop.set()
        if self.thread.ident is not None:
            self.thread.join(timeout=60)


def trace_tasks(cmd: list | None, cgroup: str | None, duration: float, outdir: str, sample_hz: int = 0,
                refs_ms: float = 0, info: dict | None = None):
    """Run the tracer over CMD (started once the tracer is attached) or over the tasks of
    `cgroup` for `duration` seconds. Returns (path of the tracer's output, exit status of CMD,
    wall seconds of the traced run). The caller removes the output file. With `refs_ms`, a
    `_RefsWalker` walks the followed processes' page tables every `refs_ms` milliseconds
    (`info["refs_windows"]`: how many windows)."""
    import tempfile
    import time

    fd, outp = tempfile.mkstemp(prefix=".memtwin-bpf-", suffix=".txt", dir=outdir)
    os.close(fd)
    sfd, sp = tempfile.mkstemp(prefix=".memtwin-bpf-", suffix=".bt", dir=outdir)
    os.close(sfd)
    # bpftrace's stderr goes to a file, not a pipe: a pipe nobody reads while the command runs
    # fills (64 KiB of warnings) and blocks bpftrace in write(), which no signal then ends.
    efd, ep = tempfile.mkstemp(prefix=".memtwin-bpf-", suffix=".err", dir=outdir)
    os.close(efd)
    child = None
    bt = None
    walker = None
    rpipe = wpipe = None
    try:
        cgid = None
        if cgroup:
            roots = []
            for name in ("tasks", "cgroup.threads"):
                fn = os.path.join(cgroup, name)
                if os.path.exists(fn):
                    with open(fn) as fh:
                        roots = [int(x) for x in fh.read().split()]
                    break
            cgid = os.stat(cgroup).st_ino
        else:
            rpipe, wpipe = os.pipe()   # rpipe stays open here until the command has ended
            child = subprocess.Popen(_hold_argv(f"/proc/{os.getpid()}/fd/{rpipe}", cmd), stderr=subprocess.PIPE)
            roots = [child.pid]
        with open(sp, "w") as fh:
            fh.write(script(roots, cgid, os.getpid(), sample_hz, bool(refs_ms)))
            fh.write("END { " + " ".join(f"clear({m});" for m in _MAPS + (_REFS_MAPS if refs_ms else ())) + " }\n")
        env = dict(os.environ, BPFTRACE_STRLEN="64", BPFTRACE_NO_USER_SYMBOLS="1")
        # stdout to the file, line-buffered (-o FILE is block-buffered: READY would wait).
        with open(outp, "w") as ofh, open(ep, "w") as efh:
            bt = subprocess.Popen(["bpftrace", "-B", "line", sp], stdout=ofh, stderr=efh, env=env,
                                  start_new_session=True)
        # Attached once the last probe sees this process's getppid() calls.
        deadline = time.monotonic() + 600
        while True:
            os.getppid()
            with open(outp, errors="replace") as fh:
                if "SYNC" in fh.read(8192):
                    break
            if bt.poll() is not None:
                with open(ep, errors="replace") as fh:
                    err = fh.read()
                err = "\n".join(x for x in err.splitlines() if "RLIMIT_MEMLOCK" not in x)
                raise BpfUnavailable(f"bpftrace failed: {err.strip()[:400]}")
            if time.monotonic() > deadline:
                raise BpfUnavailable("bpftrace did not attach within 600 s")
            time.sleep(0.05)
        if refs_ms:
            if child is not None:
                by_file = proc_children()
                if not by_file:
                    import sys
                    sys.stderr.write("memtwin record: note: --refs-ms: this kernel has no /proc/PID/task/TID/children "
                                     "(CONFIG_PROC_CHILDREN): each window finds the command's descendants by reading "
                                     "every /proc/PID/stat (slower windows)\n")
                pids = lambda: _children(child.pid, by_file)   # noqa: E731
            else:
                # Never stopped: the recorder, its ancestors (the shell waiting for it) and
                # bpftrace - the cgroup may hold them (record refuses a recorder in or below it).
                keep = _ancestors(os.getpid()) | {bt.pid}

                def pids():
                    return [p for p in _cgroup_procs(cgroup) if p not in keep]
            w_ = _RefsWalker(refs_ms / 1000.0, pids)
            w_.calibrate(outp)   # BpfUnavailable, or Ctrl-C: no thread to stop yet
            w_.start()
            walker = w_
        t = time.monotonic()
        if child is not None:
            os.write(wpipe, b"\n")
            os.close(wpipe)
            wpipe = None
            _, err = child.communicate()
            rc = child.returncode
            import sys
            sys.stderr.write(err.decode(errors="replace"))
        else:
            time.sleep(duration)
            rc = 0
        wall = time.monotonic() - t
        if walker is not None:
            walker.finish()
            if info is not None:
                info["refs_windows"] = walker.windows
                info["refs_stopped"] = walker.stopped
        # bpftrace drops what is still in its per-CPU perf buffers when SIGINT stops it: wait
        # until it has printed the command's exit (X line of its pid), then one more SYNC
        # round trip (a later poll of every buffer), at most 10 s.
        _drain(bt, outp, child.pid if child is not None else None)
        _stop(bt)
        bt = None
        return outp, rc, wall
    except BaseException:
        try:
            os.unlink(outp)
        except OSError:
            pass
        raise
    finally:
        # Each step runs whatever an earlier one raised: the walker's windows end (the processes
        # it stopped get SIGCONT), the held command and its descendants are killed before its
        # pipe closes (and a shell that reads EOF exits 125 without running it), bpftrace is
        # stopped, the temp files go.
        try:
            try:
                if walker is not None:
                    walker.finish()
            finally:
                try:
                    if child is not None and child.poll() is None:
                        # The command and what it started (a SIGTERM or an error reaches the
                        # recorder alone): none goes on untraced.
                        for pid in reversed(_children(child.pid)):
                            try:
                                os.kill(pid, 9)
                            except OSError:
                                pass
                        child.communicate(timeout=60)
                finally:
                    for p_ in (rpipe, wpipe):
                        if p_ is not None:
                            os.close(p_)
                    if bt is not None and bt.poll() is None:
                        _stop(bt, grace=10.0)
        finally:
            for f in (sp, ep):
                try:
                    os.unlink(f)
                except OSError:
                    pass


def _hold_argv(rpath: str, cmd) -> list:
    """The command held in a shell until the tracer is attached: the shell execs it (the same
    process: its exec is the first thing traced) once a line comes on the pipe it opens at
    `rpath` (the recorder's /proc/PID/fd/N of the pipe's read end: the command inherits no
    descriptor of it, and dash's `<&N` takes no N above 9); at EOF (the recorder failed or was
    stopped before releasing it) the shell exits 125 and the command never runs untraced."""
    hold = 'read _ < "$0" || exit 125; exec "$@"'
    return ["/bin/sh", "-c", hold, rpath] + list(cmd)


def _stop(bt, grace: float = STOP_GRACE_S) -> None:
    """Stop bpftrace: SIGINT (it runs END and flushes), then SIGTERM, then SIGKILL, each after
    `grace` seconds; never waits without a bound (a tracer that does not exit must not hang
    the recording)."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        if bt.poll() is not None:
            return
        try:
            bt.send_signal(sig)
        except ProcessLookupError:
            return
        try:
            bt.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue
    raise BpfUnavailable(f"bpftrace (pid {bt.pid}) did not exit after SIGINT, SIGTERM and SIGKILL "
                         f"({3 * grace:.0f} s); it is stuck in the kernel")


def _drain(bt, outp: str, pid: int | None, timeout: float = 10.0) -> None:
    """Wait until bpftrace (`bt`, writing `outp`) has printed the exit of `pid` (when given)
    and answered one more SYNC (this process's getppid()), so that every event before them
    has left the perf buffers."""
    import time

    deadline = time.monotonic() + timeout
    exit_tail = f" {pid}\n" if pid is not None else None

    def text() -> str:
        with open(outp, errors="replace") as fh:
            return fh.read()

    def exited(t: str) -> bool:
        return exit_tail is None or any(line.startswith("X ") and line.endswith(exit_tail)
                                        for line in t.splitlines(keepends=True))

    while not exited(text()) and bt.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    syncs = text().count("SYNC")
    while bt.poll() is None and time.monotonic() < deadline:
        os.getppid()
        if text().count("SYNC") > syncs:
            return
        time.sleep(0.02)


def convert(outp: str, w: trace.Writer, is_data_file, cwd: str, stopped=None) -> dict:
    """The tracer's output into `w` (the caller closes it); returns the counts. `stopped`:
    --refs-ms's stopped periods (`_RefsWalker.stopped`), left out of the trace's times; the
    young counts then give `stopped_ms`, the stopped time after the trace's time 0."""
    c = Converter(w, is_data_file, cwd)
    if stopped is not None:
        c.set_stopped(stopped)
    for f in parse_lines(outp):
        try:
            c.line(f)
        except (ValueError, IndexError):
            continue
    c.finish()
    c.finish_files()
    w.header["files"] = c.flist
    # The trace's time 0 on the clock bpftrace's nsecs reads (CLOCK_MONOTONIC): other tools'
    # samples of the same run (perf record -k mono) line up with its events.
    w.header["t0_monotonic_ns"] = c.t0
    if stopped is not None:
        t0 = c.t0 if c.t0 is not None else 0
        c.young["stopped_ms"] = round(sum(max(b - max(a, t0), 0) for a, b in stopped) / 1e6, 6)
    return dict(c.counts, files=len(c.flist), samples=c.samples, young=c.young)
