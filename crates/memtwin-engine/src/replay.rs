//! A trace task: the events of a recorded or imported workload (trace.rs decodes them, chunk by
//! chunk, from the source the caller attaches) run as the syscalls they record, inside the
//! scenario's machine, memcgs and kernel profile. A child module of sched.rs (it runs in the
//! scheduler's quanta). Memory is flat in the trace's length: one chunk, plus per trace file a
//! readahead state and an open count, plus the live anonymous mappings.
//!
//! Events and the kernel paths they take:
//! - `open`: `do_filp_open()` (dentry and inode instantiated and charged, `dget`), a fresh
//!   `file->f_ra` (`file_ra_state_init()`); `close`: `dput`.
//! - `read` (read/pread/readv at the recorded offset): `filemap_read()` with the file's readahead
//!   state; `write`: `generic_perform_write()`.
//! - `fadvise` (flags = the POSIX_FADV_* code): `generic_fadvise()`: NORMAL/RANDOM/SEQUENTIAL set
//!   the readahead state, WILLNEED reads ahead, DONTNEED invalidates.
//! - `fsync`/`fdatasync`: `vfs_fsync()`; `truncate` to 0 and `unlink`: `truncate_inode_pages()`.
//! - `anon_mmap`: `do_mmap()` of private anonymous memory (faulted by `touch` events);
//!   `munmap`: the pid's mapping of that length; `exit`: the pid's mappings go.
//! - `mmap` of a file (format 1's unnumbered event, as strace logs are imported): not replayed
//!   (strace sees the call, not the page faults on the mapping): counted in the result's
//!   `skipped`, as are the other events listed there.
//! - Numbered mappings (what a recorder that sees page faults writes): `map` is `do_mmap()` of
//!   a file (`do_mmap_file()`, the file held open as `get_file()` does) or of anonymous memory;
//!   `fault` is `handle_mm_fault()` on a page of it: `handle_mm_fault_file()` (read, COW or
//!   shared fault, fault-around, mmap readahead) or `do_anonymous_page()` (a read maps the
//!   shared zero page: a minor fault, no page); `unmap` is `zap_page_range()` of a range, or
//!   `do_munmap()` of the whole mapping with its last range; `map_advise` is `do_madvise()`.
//!   A process's numbered mappings end at its `exit`.
//! - `access` (format 2): a touch of a mapped page the recorder sampled (a user instruction
//!   pointer), the CPU's access through the page's PTE: the hardware sets the PTE's accessed bit
//!   (which reclaim's `folio_referenced()` tests), no kernel function runs; a page whose PTE
//!   reclaim has unmapped takes `handle_mm_fault()` again, as the fault the kernel counts.
//! - `lseek`, `rename`, `mkdir`, `fork`, `madvise`: the syscall's CPU cost.

use super::{Cursor, Simulation};
use crate::readahead::FileRaState;
use crate::scenario::model::{OpKind, OpSpec};
use crate::trace::{ChunkSource, TraceCursor, TraceEvent, TraceOp};
use crate::types::{pages_for, InodeId, Nanos, PAGE_SIZE};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Events a trace task runs in one quantum at most before the scheduler looks at the other
/// tasks and the progress callback again (when nothing else is due sooner).
const TRACE_BATCH: u32 = 4096;

/// What a trace replay did, for the result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceStats {
    /// The task.
    pub task: String,
    /// The trace as the scenario names it.
    pub path: String,
    /// Events run (all loops).
    pub events: u64,
    /// Passes over the trace completed.
    pub loops: u64,
    /// Events counted and not replayed, by reason.
    pub skipped: Vec<(&'static str, u64)>,
}

/// Why an event was counted and skipped (the `skipped` keys).
const SKIP_FILE_MMAP: &str = "mmap of a file (page faults on file mappings are not in the trace)";
const SKIP_MUNMAP: &str = "munmap of no anonymous mapping of that length (a file mapping's)";
const SKIP_TOUCH: &str = "touch with no live anonymous mapping";
const SKIP_TRUNCATE: &str = "truncate to a non-zero size (the size is set, cached pages beyond it stay)";
const SKIP_BIG_MMAP: &str = "anon_mmap larger than the machine's RAM and swap (address-space reservations)";
const SKIP_BIG_MAP: &str = "map of anonymous memory larger than the machine's RAM and swap (its faults are skipped too)";
const SKIP_MAP_FAILED: &str = "map whose file could not be opened (no memory for its dentry)";
const SKIP_FAULT_UNBACKED: &str = "fault on a mapping that was skipped";
const SKIP_FAULT_EOF: &str = "fault beyond the mapped file's end (SIGBUS in the kernel)";
const SKIP_MADVISE: &str = "map_advise with an advice not modelled (or not in this kernel profile)";
const SKIP_ACCESS_UNBACKED: &str = "access on a mapping that was skipped";
const SKIP_ACCESS_EOF: &str = "access beyond the mapped file's end";

/// Most live numbered mappings a trace may have (the number is the event's 16-bit file field).
const MAX_MAPS: usize = 0xffff;

/// A numbered mapping of a trace (`map` event): the process that made it, its VMA (`None`
/// when skipped), and the trace file it maps (held open until the mapping ends).
#[derive(Clone, Copy)]
struct MapSlot {
    pid: u32,
    vma: Option<crate::memory::VmaId>,
    file: Option<usize>,
}

/// A running trace task's state.
pub(super) struct TraceRun {
    cursor: TraceCursor<Box<dyn ChunkSource>>,
    /// The event read but not yet run (its think time took the task past another's turn).
    pending: Option<TraceEvent>,
    inodes: Vec<InodeId>,
    ra: Vec<FileRaState>,
    refs: Vec<u32>,
    /// Live anonymous mappings: (pid, bytes, vma).
    maps: Vec<(u32, u64, crate::memory::VmaId)>,
    /// Numbered mappings by number (`None`: free), and the free numbers below `mmaps.len()`:
    /// a `map` takes the lowest free number, as `open()` takes the lowest free descriptor.
    mmaps: Vec<Option<MapSlot>>,
    free_maps: BinaryHeap<Reverse<u16>>,
    loop_no: u64,
    /// The task's clock when this loop started, and the loop's first event's time.
    base: Nanos,
    first_t: Option<u64>,
    skipped: Vec<(&'static str, u64)>,
}

impl TraceRun {
    /// The lowest free mapping number, taken for `slot`; `None` when all are taken.
    fn take_map_number(&mut self, slot: MapSlot) -> Option<u16> {
        if let Some(Reverse(n)) = self.free_maps.pop() {
            self.mmaps[n as usize] = Some(slot);
            return Some(n);
        }
        if self.mmaps.len() >= MAX_MAPS {
            return None;
        }
        self.mmaps.push(Some(slot));
        Some((self.mmaps.len() - 1) as u16)
    }

    fn skip(&mut self, why: &'static str) {
        match self.skipped.iter_mut().find(|(w, _)| *w == why) {
            Some((_, n)) => *n += 1,
            None => self.skipped.push((why, 1)),
        }
    }
}

/// `fault` flags: a store (`FAULT_FLAG_WRITE`); the kernel counted it major (`VM_FAULT_MAJOR`
/// or a retried fault: `mm_account_fault()`), kept for the reader, the engine decides its own.
const FAULT_WRITE: u8 = 1;
#[allow(dead_code)]
const FAULT_MAJOR: u8 = 2;
/// `unmap` flag: the mapping's last range (the mapping ends, its number is free).
const UNMAP_LAST: u8 = 1;
/// `map` flags: `MAP_SHARED`, `PROT_WRITE`, `PROT_EXEC`.
const MAP_SHARED: u8 = 1;
const MAP_EXEC: u8 = 4;

/// `POSIX_FADV_*` codes (include/uapi/linux/fadvise.h, x86-64).
const FADV_NORMAL: u8 = 0;
const FADV_RANDOM: u8 = 1;
const FADV_SEQUENTIAL: u8 = 2;
const FADV_WILLNEED: u8 = 3;
const FADV_DONTNEED: u8 = 4;

enum Outcome {
    Ok,
    Oom,
}

impl Simulation {
    /// Attach the source of the chunks of task `task`'s trace (a task whose script is
    /// `[tasks.NAME] trace = "FILE"`); the caller reads and decompresses the file.
    pub fn attach_trace(&mut self, task: usize, source: Box<dyn ChunkSource>) {
        self.trace_sources[task] = Some(source);
    }

    /// The index of each task whose script is a trace, with the trace's path as the scenario
    /// names it.
    pub fn trace_tasks(&self) -> Vec<(usize, String)> {
        self.scenario
            .tasks
            .iter()
            .enumerate()
            .filter_map(|(i, t)| match t.ops.first().map(|o| &o.kind) {
                Some(OpKind::Trace { path, .. }) => Some((i, path.clone())),
                _ => None,
            })
            .collect()
    }

    fn trace_failed(&mut self, ti: usize, msg: String) {
        if self.trace_error.is_none() {
            self.trace_error = Some(msg);
        }
        self.tasks[ti].killed = true;
    }

    /// One quantum of a trace task: events in order, each with its think time (scaled) before
    /// it, until the task's clock passes the next task's or the next sample, a batch is done,
    /// or the trace ends.
    pub(super) fn trace_quantum(&mut self, ti: usize, op: &OpSpec) {
        let OpKind::Trace { path, files, time_scale, loops, resident, .. } = &op.kind else { unreachable!("a trace op") };
        if self.trace_runs[ti].is_none() {
            let Some(src) = self.trace_sources[ti].take() else {
                let msg = format!("{path}: error: task `{}` has no source for its trace's chunks\n  fix: run the scenario through memtwin (it reads the trace file), or call Simulation::attach_trace", self.tasks[ti].name);
                self.trace_failed(ti, msg);
                return;
            };
            let bdi = |sim: &Simulation, inode: InodeId| {
                let dev = sim.kernel.inodes[inode.idx()].dev;
                dev.map(|d| sim.kernel.devices[d.idx()].ra_pages() as u32).unwrap_or(1)
            };
            let inodes: Vec<InodeId> = files.iter().map(|&f| self.inodes[f]).collect();
            // The page cache the recording started with: pages someone read before, uptodate,
            // on the LRU, charged to the root memcg (filemap_add_folio() with no read).
            for &(f, first, n) in resident {
                let inode = inodes[f as usize];
                let size_pages = pages_for(self.kernel.inodes[inode.idx()].size);
                for index in first as u64..(first as u64 + n as u64).min(size_pages) {
                    if self.kernel.mappings[inode.idx()].lookup(index as u32).is_none()
                        && self.kernel.filemap_add_folio(inode, index as u32, crate::types::MemcgId::ROOT, true).is_err()
                    {
                        break;
                    }
                }
            }
            let ra = inodes.iter().map(|&i| FileRaState::new(bdi(self, i))).collect();
            self.trace_runs[ti] = Some(Box::new(TraceRun {
                cursor: TraceCursor::new(src),
                pending: None,
                refs: vec![0; inodes.len()],
                inodes,
                ra,
                maps: vec![],
                mmaps: vec![],
                free_maps: BinaryHeap::new(),
                loop_no: 0,
                base: self.tasks[ti].times.clock,
                first_t: None,
                skipped: vec![],
            }));
        }
        let mut run = self.trace_runs[ti].take().expect("set above");
        let horizon = self.runq.peek().map(|Reverse(x)| *x);
        let past = |clock: Nanos, next_sample: Nanos| clock >= next_sample || horizon.is_some_and(|h| (clock, ti) > h);
        let mut n = 0;
        let mut finished = false;
        let mut oom = false;
        loop {
            let ev = match run.pending.take() {
                Some(e) => e,
                None => match run.cursor.next_event() {
                    Ok(Some(e)) => {
                        // Think time: the event starts no earlier than the recorded gap since
                        // the loop's first event allows, scaled.
                        let first = *run.first_t.get_or_insert(e.t_ns);
                        if *time_scale > 0.0 {
                            let at = run.base + (e.t_ns.saturating_sub(first) as f64 * time_scale) as Nanos;
                            let clock = &mut self.tasks[ti].times.clock;
                            if *clock < at {
                                // The think time took the task past another's turn or a sample:
                                // the event waits for the scheduler to come back to it.
                                *clock = at;
                                if past(at, self.next_sample) {
                                    run.pending = Some(e);
                                    break;
                                }
                            }
                        }
                        e
                    }
                    Ok(None) => {
                        run.loop_no += 1;
                        if run.loop_no < *loops {
                            // The loop's processes are gone: their numbered mappings end, so
                            // the next pass numbers its mappings from 0 again.
                            self.end_all_mappings(&mut run);
                            if let Err(e) = run.cursor.rewind() {
                                self.trace_runs[ti] = Some(run);
                                self.trace_failed(ti, e.to_string());
                                return;
                            }
                            run.base = self.tasks[ti].times.clock;
                            run.first_t = None;
                            continue;
                        }
                        finished = true;
                        break;
                    }
                    Err(e) => {
                        let place = format!("{path}: event {}", run.cursor.events);
                        let msg = match e {
                            crate::trace::TraceError::Source(m) => m,
                            other => format!("{place}: error: {other}\n  fix: the trace is damaged or was written by a newer memtwin; re-record or re-import it"),
                        };
                        self.trace_runs[ti] = Some(run);
                        self.trace_failed(ti, msg);
                        return;
                    }
                },
            };
            let index = run.cursor.events - 1;
            match self.trace_event(ti, &mut run, &ev, op) {
                Ok(Outcome::Ok) => {}
                Ok(Outcome::Oom) => {
                    oom = true;
                    finished = true;
                    break;
                }
                Err(what) => {
                    let msg = format!(
                        "{path}: event {index} ({:?} at {:.6} s): error: {what}\n  fix: re-import or re-record the trace so that its header lists every file its events name",
                        ev.op,
                        ev.t_ns as f64 / 1e9
                    );
                    self.trace_runs[ti] = Some(run);
                    self.trace_failed(ti, msg);
                    return;
                }
            }
            self.work_done += 1;
            n += 1;
            if n >= TRACE_BATCH || past(self.tasks[ti].times.clock, self.next_sample) {
                break;
            }
        }
        if finished {
            // The pid's mappings outlive nothing: a trace that ends ends its processes.
            for (_, _, vma) in std::mem::take(&mut run.maps) {
                self.kernel.do_munmap(vma);
            }
            self.end_all_mappings(&mut run);
            for (i, &r) in run.refs.iter().enumerate() {
                for _ in 0..r {
                    self.kernel.dput(run.inodes[i]);
                }
            }
            self.trace_stats.push(TraceStats {
                task: self.tasks[ti].name.clone(),
                path: path.clone(),
                events: run.cursor.events,
                loops: run.loop_no,
                skipped: std::mem::take(&mut run.skipped),
            });
            self.tasks[ti].cursor = Cursor::Idle;
            self.finish_step(ti, op, !oom);
            if oom {
                self.tasks[ti].killed = true;
            }
        } else {
            self.trace_runs[ti] = Some(run);
        }
    }

    /// `do_munmap()` of numbered mapping `n` (and `fput()` of its file); the number is free.
    fn end_mapping(&mut self, run: &mut TraceRun, n: usize) {
        if let Some(slot) = run.mmaps[n].take() {
            if let Some(vma) = slot.vma {
                self.kernel.do_munmap(vma);
            }
            if let Some(f) = slot.file {
                self.kernel.dput(run.inodes[f]);
            }
            run.free_maps.push(Reverse(n as u16));
        }
    }

    fn end_all_mappings(&mut self, run: &mut TraceRun) {
        for n in 0..run.mmaps.len() {
            self.end_mapping(run, n);
        }
        run.mmaps.clear();
        run.free_maps.clear();
    }

    /// The events that name a numbered mapping (in their file field): `fault`, `unmap`,
    /// `map_advise`, `access`.
    fn trace_map_event(&mut self, ti: usize, run: &mut TraceRun, ev: &TraceEvent) -> Result<Outcome, String> {
        let n = ev.file.map_or(usize::MAX, |f| f as usize);
        let Some(slot) = run.mmaps.get(n).copied().flatten() else {
            return Err(match ev.file {
                None => "it names no mapping".to_string(),
                Some(f) => format!("it names mapping {f}, which no live `map` event holds (numbers are taken lowest first and freed by the last `unmap` or the process's `exit`)"),
            });
        };
        let memcg = self.tasks[ti].memcg;
        let user = self.kernel.cost.user_per_syscall;
        let mut out = Outcome::Ok;
        let Some(vma) = slot.vma else {
            if ev.op == TraceOp::Unmap && ev.flags & UNMAP_LAST != 0 {
                self.enter(ti);
                self.kernel.cpu(self.kernel.cost.syscall);
                self.end_mapping(run, n);
                self.leave_event(ti, user);
            } else if ev.op == TraceOp::Fault {
                run.skip(SKIP_FAULT_UNBACKED);
            } else if ev.op == TraceOp::Access {
                run.skip(SKIP_ACCESS_UNBACKED);
            }
            return Ok(out);
        };
        let len = self.kernel.vmas[vma.0 as usize].pages.len() as u64;
        let is_file = self.kernel.vmas[vma.0 as usize].file.is_some();
        let first = ev.offset / PAGE_SIZE;
        match ev.op {
            TraceOp::Fault => {
                if first >= len {
                    if is_file {
                        run.skip(SKIP_FAULT_EOF);
                        return Ok(out);
                    }
                    return Err(format!("it faults at byte {} of mapping {n}, which has {} bytes", ev.offset, len * PAGE_SIZE));
                }
                let i = first as u32;
                let write = ev.flags & FAULT_WRITE != 0;
                // A fault is not a syscall: no syscall cost, the fault's own cost is charged
                // by the fault path; enter/leave for PSI and memory.high.
                self.enter(ti);
                if is_file {
                    if self.kernel.handle_mm_fault_file(vma, i, write).is_err() {
                        out = Outcome::Oom;
                    }
                } else if self.kernel.vmas[vma.0 as usize].pages[i as usize] == crate::types::PageId::NIL {
                    let swapped = self.kernel.vmas[vma.0 as usize].swap.get(i as usize).is_some_and(|&s| s != crate::swapfile::NO_SLOT);
                    if write || swapped {
                        // A store, or a load of a page reclaim swapped out: handle_mm_fault()
                        // (do_swap_page() reads the swapped page back, a major fault).
                        if self.kernel.handle_mm_fault_flags(vma, i, write).is_err() {
                            out = Outcome::Oom;
                        }
                    } else {
                        // do_anonymous_page() of a read: the shared zero page is mapped, no
                        // page is allocated or charged.
                        self.kernel.count_pgfault(memcg, false);
                        self.kernel.cpu(self.kernel.cost.anon_fault);
                    }
                }
                if self.kernel.nr_pages_over_high != 0 {
                    self.kernel.mem_cgroup_handle_over_high(memcg);
                }
                self.leave_event(ti, 0);
            }
            TraceOp::Access => {
                if first >= len {
                    if is_file {
                        run.skip(SKIP_ACCESS_EOF);
                        return Ok(out);
                    }
                    return Err(format!("it accesses byte {} of mapping {n}, which has {} bytes", ev.offset, len * PAGE_SIZE));
                }
                // The pages it covers (one, as the recorder writes it), cut at the mapping's end.
                let end = pages_for(ev.offset + ev.length.max(1)).min(len);
                self.enter(ti);
                for i in first as u32..end as u32 {
                    if is_file {
                        // handle_mm_fault_file(): with the PTE there, the accessed bit only;
                        // without it (reclaim unmapped the page), the fault.
                        if self.kernel.handle_mm_fault_file(vma, i, false).is_err() {
                            out = Outcome::Oom;
                            break;
                        }
                    } else if self.kernel.handle_mm_fault_flags(vma, i, false).is_err() {
                        // A load: the accessed bit of a mapped page; do_swap_page() for a
                        // swapped-out one (review4 F7); the zero page for one never written.
                        out = Outcome::Oom;
                        break;
                    }
                    if self.kernel.nr_pages_over_high != 0 {
                        self.kernel.mem_cgroup_handle_over_high(memcg);
                    }
                }
                self.leave_event(ti, 0);
            }
            TraceOp::Unmap => {
                self.enter(ti);
                if ev.flags & UNMAP_LAST != 0 {
                    self.kernel.cpu(self.kernel.cost.syscall);
                    self.end_mapping(run, n);
                } else {
                    // A part of the mapping: zap_page_range() of it (MADV_DONTNEED's path);
                    // the VMA keeps its other pages.
                    let end = pages_for(ev.offset + ev.length).min(len);
                    let _ = self.kernel.do_madvise(vma, first.min(len) as u32, end.max(first.min(len)) as u32, crate::scenario::model::MAdvice::DontNeed);
                }
                self.leave_event(ti, user);
            }
            TraceOp::MapAdvise => {
                use crate::scenario::model::MAdvice;
                let advice = match ev.flags {
                    0 => Some(MAdvice::Normal),
                    1 => Some(MAdvice::Random),
                    2 => Some(MAdvice::Sequential),
                    3 => Some(MAdvice::WillNeed),
                    4 => Some(MAdvice::DontNeed),
                    20 => Some(MAdvice::Cold),
                    21 => Some(MAdvice::PageOut),
                    _ => None,
                };
                self.enter(ti);
                let end = if ev.length == 0 { len } else { pages_for(ev.offset + ev.length).min(len) };
                let first = first.min(len);
                match advice {
                    Some(a) if self.kernel.do_madvise(vma, first as u32, end.max(first) as u32, a).is_ok() => {}
                    _ => {
                        self.kernel.cpu(self.kernel.cost.syscall);
                        run.skip(SKIP_MADVISE);
                    }
                }
                self.leave_event(ti, user);
            }
            _ => unreachable!("a mapping event"),
        }
        Ok(out)
    }

    /// `leave()` for a trace event: progress counts events for a trace task, not the pages
    /// leave() counts.
    fn leave_event(&mut self, ti: usize, user: Nanos) {
        let pages = self.kernel.io.hits + self.kernel.io.misses;
        self.leave(ti, user);
        self.work_done -= pages;
    }

    /// Run one event as its syscall. `Err` names a defect of the event.
    fn trace_event(&mut self, ti: usize, run: &mut TraceRun, ev: &TraceEvent, op: &OpSpec) -> Result<Outcome, String> {
        if matches!(ev.op, TraceOp::Fault | TraceOp::Unmap | TraceOp::MapAdvise | TraceOp::Access) {
            return self.trace_map_event(ti, run, ev);
        }
        let file = match ev.file {
            Some(f) if (f as usize) < run.inodes.len() => Some(f as usize),
            Some(f) => return Err(format!("it names file id {f}, but the trace's header lists {} file(s)", run.inodes.len())),
            None => None,
        };
        let needs_file = matches!(
            ev.op,
            TraceOp::Open | TraceOp::Close | TraceOp::Read | TraceOp::Write | TraceOp::Fadvise | TraceOp::Fsync | TraceOp::Fdatasync | TraceOp::Truncate | TraceOp::Unlink | TraceOp::Mmap
        );
        let f = match (needs_file, file) {
            (true, None) => return Err("it names no file".to_string()),
            (_, f) => f.unwrap_or(0),
        };
        let user = self.kernel.cost.user_per_syscall;
        let memcg = self.tasks[ti].memcg;
        let mut out = Outcome::Ok;
        self.enter(ti);
        match ev.op {
            TraceOp::Open => {
                let inode = run.inodes[f];
                self.kernel.inodes[inode.idx()].exists = true;
                if self.kernel.d_instantiate(inode, memcg) {
                    self.kernel.cpu(self.kernel.cost.syscall);
                    self.kernel.dget(inode);
                    run.refs[f] += 1;
                    // file_ra_state_init(): a new struct file's window is the device's.
                    let dev = self.kernel.inodes[inode.idx()].dev;
                    run.ra[f] = FileRaState::new(dev.map(|d| self.kernel.devices[d.idx()].ra_pages() as u32).unwrap_or(1));
                } else {
                    self.op_failed(ti, op, crate::cgroup::Errno::ENOMEM);
                }
            }
            TraceOp::Close => {
                self.kernel.cpu(self.kernel.cost.syscall);
                if run.refs[f] > 0 {
                    run.refs[f] -= 1;
                    self.kernel.dput(run.inodes[f]);
                }
            }
            TraceOp::Read => {
                if self.kernel.filemap_read(run.inodes[f], ev.offset, ev.length, &mut run.ra[f], memcg).is_err() {
                    out = Outcome::Oom;
                }
            }
            TraceOp::Write => {
                if self.kernel.generic_perform_write(run.inodes[f], ev.offset, ev.length, memcg).is_err() {
                    out = Outcome::Oom;
                }
            }
            TraceOp::Fadvise => {
                let first = (ev.offset / PAGE_SIZE) as u32;
                let last = if ev.length == 0 { u32::MAX } else { ((ev.offset + ev.length - 1) / PAGE_SIZE).min(u32::MAX as u64) as u32 };
                let inode = run.inodes[f];
                let dev = self.kernel.inodes[inode.idx()].dev;
                let bdi = dev.map(|d| self.kernel.devices[d.idx()].ra_pages() as u32).unwrap_or(1);
                match ev.flags {
                    FADV_DONTNEED => {
                        self.kernel.generic_fadvise(inode, first, last, crate::fadvise::Advice::DontNeed, memcg);
                    }
                    FADV_WILLNEED => {
                        self.kernel.generic_fadvise(inode, first, last, crate::fadvise::Advice::WillNeed, memcg);
                    }
                    // generic_fadvise(): NORMAL the device's window, RANDOM no readahead
                    // (FMODE_RANDOM), SEQUENTIAL twice the window; NOREUSE nothing.
                    FADV_NORMAL | FADV_RANDOM | FADV_SEQUENTIAL => {
                        self.kernel.cpu(self.kernel.cost.syscall);
                        let ra = &mut run.ra[f];
                        ra.ra_pages = if ev.flags == FADV_SEQUENTIAL { bdi * 2 } else { bdi };
                        ra.random = ev.flags == FADV_RANDOM;
                    }
                    _ => self.kernel.cpu(self.kernel.cost.syscall),
                }
            }
            TraceOp::Fsync | TraceOp::Fdatasync => self.kernel.vfs_fsync(run.inodes[f]),
            TraceOp::Truncate | TraceOp::Unlink => {
                self.kernel.cpu(self.kernel.cost.syscall);
                let inode = run.inodes[f];
                if ev.op == TraceOp::Unlink || ev.length == 0 {
                    self.kernel.truncate_inode_pages(inode);
                    self.kernel.inodes[inode.idx()].size = 0;
                } else {
                    self.kernel.inodes[inode.idx()].size = ev.length;
                    run.skip(SKIP_TRUNCATE);
                }
            }
            TraceOp::Mmap => {
                self.kernel.cpu(self.kernel.cost.syscall);
                run.skip(SKIP_FILE_MMAP);
            }
            TraceOp::Map => {
                self.kernel.cpu(self.kernel.cost.syscall);
                let pages = pages_for(ev.length);
                let mut slot = MapSlot { pid: ev.pid, vma: None, file: None };
                match ev.file {
                    None => {
                        if pages > self.kernel.managed_pages() + self.scenario.machine.swap / PAGE_SIZE {
                            run.skip(SKIP_BIG_MAP);
                        } else if pages > 0 {
                            slot.vma = Some(self.kernel.do_mmap_anon(pages, memcg));
                        }
                    }
                    Some(_) => {
                        let inode = run.inodes[f];
                        self.kernel.inodes[inode.idx()].exists = true;
                        if self.kernel.d_instantiate(inode, memcg) {
                            // get_file(): the mapping holds the file open until it ends.
                            self.kernel.dget(inode);
                            slot.file = Some(f);
                            // The VMA covers no page past the file's end (a fault there is
                            // SIGBUS), so a mapping's size is bounded by its file's.
                            let pgoff = ev.offset / PAGE_SIZE;
                            let n = pages.min(pages_for(self.kernel.inodes[inode.idx()].size).saturating_sub(pgoff)).max(1);
                            let (shared, exec) = (ev.flags & MAP_SHARED != 0, ev.flags & MAP_EXEC != 0);
                            slot.vma = Some(self.kernel.do_mmap_file(inode, pgoff.min(u32::MAX as u64) as u32, n, memcg, shared, exec));
                        } else {
                            run.skip(SKIP_MAP_FAILED);
                        }
                    }
                }
                if run.take_map_number(slot).is_none() {
                    if let Some(v) = slot.vma {
                        self.kernel.do_munmap(v);
                    }
                    if let Some(f) = slot.file {
                        self.kernel.dput(run.inodes[f]);
                    }
                    self.leave_event(ti, user);
                    return Err(format!("it makes a {}th live mapping (at most {MAX_MAPS})", MAX_MAPS + 1));
                }
            }
            TraceOp::Fault | TraceOp::Unmap | TraceOp::MapAdvise | TraceOp::Access => unreachable!("trace_map_event"),
            TraceOp::AnonMmap => {
                self.kernel.cpu(self.kernel.cost.syscall);
                let pages = pages_for(ev.length);
                if pages > self.kernel.managed_pages() + self.scenario.machine.swap / PAGE_SIZE {
                    run.skip(SKIP_BIG_MMAP);
                } else if pages > 0 {
                    let vma = self.kernel.do_mmap_anon(pages, memcg);
                    run.maps.push((ev.pid, ev.length, vma));
                }
            }
            TraceOp::Munmap => {
                self.kernel.cpu(self.kernel.cost.syscall);
                match run.maps.iter().rposition(|&(p, l, _)| p == ev.pid && l == ev.length) {
                    Some(i) => {
                        let (_, _, vma) = run.maps.remove(i);
                        self.kernel.do_munmap(vma);
                    }
                    None => run.skip(SKIP_MUNMAP),
                }
            }
            TraceOp::Touch => match run.maps.iter().rev().find(|m| m.0 == ev.pid) {
                Some(&(_, _, vma)) => {
                    let len = self.kernel.vmas[vma.0 as usize].pages.len() as u64;
                    let first = (ev.offset / PAGE_SIZE).min(len);
                    let end = (ev.offset + ev.length).div_ceil(PAGE_SIZE).min(len);
                    for i in first..end {
                        if self.kernel.vmas[vma.0 as usize].pages[i as usize] != crate::types::PageId::NIL {
                            continue;
                        }
                        if self.kernel.handle_mm_fault(vma, i as u32).is_err() {
                            out = Outcome::Oom;
                            break;
                        }
                        if self.kernel.nr_pages_over_high != 0 {
                            self.kernel.mem_cgroup_handle_over_high(memcg);
                        }
                    }
                }
                None => run.skip(SKIP_TOUCH),
            },
            TraceOp::Exit => {
                self.kernel.cpu(self.kernel.cost.syscall);
                while let Some(i) = run.maps.iter().rposition(|m| m.0 == ev.pid) {
                    let (_, _, vma) = run.maps.remove(i);
                    self.kernel.do_munmap(vma);
                }
                // exit_mmap(): the process's numbered mappings end.
                for n in 0..run.mmaps.len() {
                    if run.mmaps[n].is_some_and(|m| m.pid == ev.pid) {
                        self.end_mapping(run, n);
                    }
                }
            }
            TraceOp::Lseek | TraceOp::Rename | TraceOp::Mkdir | TraceOp::Fork | TraceOp::Madvise => self.kernel.cpu(self.kernel.cost.syscall),
        }
        self.leave_event(ti, user);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::model::TraceHeader;
    use crate::trace::{VecChunks, EVENT_SIZE, NO_FILE};
    use crate::{Document, RunError, SimResult, Simulation};

    fn ev(t: u64, op: u8, file: u16, off: u64, len: u64, flags: u8) -> Vec<u8> {
        let mut v = Vec::with_capacity(EVENT_SIZE);
        v.extend_from_slice(&t.to_le_bytes());
        v.extend_from_slice(&off.to_le_bytes());
        v.extend_from_slice(&len.to_le_bytes());
        v.extend_from_slice(&7u32.to_le_bytes());
        v.extend_from_slice(&file.to_le_bytes());
        v.push(op);
        v.push(flags);
        v
    }

    fn run(events: &[Vec<u8>], extra: &str) -> Result<SimResult, RunError> {
        run_on(events, "", "", extra)
    }

    /// `run` with `machine` added to the `[machine]` table (e.g. swap) and `cgroup` to memcg
    /// `ct`'s (e.g. its limit).
    fn run_on(events: &[Vec<u8>], machine: &str, cgroup: &str, extra: &str) -> Result<SimResult, RunError> {
        let text = format!(
            "[scenario]\nname = \"t\"\n[machine]\nram = \"1G\"\ncpus = 2\n{machine}\n[kernel]\nprofile = \"linux-6.1\"\ncgroup = \"v1\"\n[devices.sda]\nread_bw = \"100M\"\n[cgroups.ct]\n{cgroup}\n[tasks.t]\ncgroup = \"ct\"\ntrace = \"x.mtt\"\n{extra}\n"
        );
        let doc = Document::from_toml("t.toml", &text).unwrap();
        let h = TraceHeader { files: vec![("/data/a".into(), 1 << 20), ("/data/b".into(), 1 << 20)], events: events.len() as u64, resident: vec![(1, 0, 128)], start_caches: vec![] };
        let scn = doc.resolve_with_traces(None, &[], &[("x.mtt".into(), h)]).unwrap();
        let mut sim = Simulation::new(&scn);
        // Two chunks, so that events cross a chunk boundary.
        let all = events.concat();
        let cut = (events.len() / 2) * EVENT_SIZE;
        sim.attach_trace(0, Box::new(VecChunks::new(vec![all[..cut].to_vec(), all[cut..].to_vec()])));
        sim.run_traced(&mut |_, _| true)
    }

    fn total(r: &SimResult, k: &str) -> f64 {
        r.totals.iter().find(|(n, _)| n == k).map(|(_, v)| *v).unwrap_or_else(|| panic!("no total {k}"))
    }

    const OPEN: u8 = 1;
    const CLOSE: u8 = 2;
    const READ: u8 = 3;
    const MMAP: u8 = 6;
    const FADVISE: u8 = 9;
    const EXIT: u8 = 17;
    const ANON: u8 = 18;
    const TOUCH: u8 = 19;

    /// filemap_read() (mm/filemap.c): a cold read of a whole file reads it from disk; the same
    /// read again (second loop) hits the page cache.
    #[test]
    fn reads_then_rereads_in_a_second_loop() {
        let evs: Vec<Vec<u8>> = std::iter::once(ev(0, OPEN, 0, 0, 0, 0))
            .chain((0..8).map(|i| ev(i + 1, READ, 0, i * 131072, 131072, 0)))
            .chain(std::iter::once(ev(10, CLOSE, 0, 0, 0, 0)))
            .collect();
        let r = run(&evs, "").unwrap();
        assert_eq!(total(&r, "read_bytes"), (1 << 20) as f64);
        assert_eq!(r.traces[0].events, 10);
        let r2 = run(&evs, "loops = 2").unwrap();
        assert_eq!(r2.traces[0].events, 20);
        assert_eq!(r2.traces[0].loops, 2);
        assert_eq!(total(&r2, "read_bytes"), (1 << 20) as f64, "the second pass hits");
    }

    /// Think time: time_scale = 1 keeps the recorded gap (10 s here), 0 drops it.
    #[test]
    fn time_scale_keeps_or_drops_think_time() {
        let evs = vec![ev(0, OPEN, 0, 0, 0, 0), ev(10_000_000_000, READ, 0, 0, 4096, 0)];
        let kept = run(&evs, "time_scale = 1.0").unwrap();
        let dropped = run(&evs, "time_scale = 0").unwrap();
        assert!(kept.engine.virtual_time_s >= 10.0, "{}", kept.engine.virtual_time_s);
        assert!(dropped.engine.virtual_time_s < 1.0, "{}", dropped.engine.virtual_time_s);
    }

    /// Events keep their virtual-time order with other tasks: a trace's read at 10 s comes
    /// after another task's fadvise(DONTNEED) at 5 s, so it misses again (with the think time
    /// dropped it runs before, and hits).
    #[test]
    fn think_time_interleaves_with_other_tasks() {
        let evs = vec![ev(0, OPEN, 0, 0, 0, 0), ev(1, READ, 0, 0, 1 << 20, 0), ev(10_000_000_000, READ, 0, 0, 1 << 20, 0)];
        let other = "[tasks.b]\nops = [{ op = \"sleep\", duration = \"5s\" }, { op = \"fadvise\", path = \"/data/a\", advice = \"dontneed\" }]";
        let r = run(&evs, &format!("time_scale = 1\n{other}")).unwrap();
        assert_eq!(total(&r, "read_bytes"), (2 << 20) as f64);
        let r = run(&evs, &format!("time_scale = 0\n{other}")).unwrap();
        assert_eq!(total(&r, "read_bytes"), (1 << 20) as f64);
    }

    /// generic_fadvise() (mm/fadvise.c): POSIX_FADV_DONTNEED drops the clean pages, so the
    /// next read of them misses again.
    #[test]
    fn fadvise_dontneed_drops_clean_pages() {
        let evs = vec![ev(0, OPEN, 0, 0, 0, 0), ev(1, READ, 0, 0, 1 << 20, 0), ev(2, FADVISE, 0, 0, 0, 4), ev(3, READ, 0, 0, 1 << 20, 0)];
        let r = run(&evs, "").unwrap();
        assert_eq!(total(&r, "read_bytes"), (2 << 20) as f64);
    }

    /// The cache the recording started with (the header's resident ranges: the first 512K of
    /// /data/b here) is in the page cache before the first event, charged to the root memcg;
    /// `initial_cache = false` starts cold.
    #[test]
    fn initial_cache_from_the_header() {
        let evs = vec![ev(0, OPEN, 1, 0, 0, 0), ev(1, READ, 1, 0, 1 << 20, 0)];
        let warm = run(&evs, "").unwrap();
        assert_eq!(total(&warm, "read_bytes"), (512 << 10) as f64);
        assert!(total(&warm, "memcg.usage_bytes") < (600 << 10) as f64, "the resident half is not the task memcg's");
        let cold = run(&evs, "initial_cache = false").unwrap();
        assert_eq!(total(&cold, "read_bytes"), (1 << 20) as f64);
    }

    /// A file mmap is counted and skipped, never dropped silently; anonymous memory is mapped,
    /// faulted by `touch` (charged to the memcg) and unmapped when its process exits.
    #[test]
    fn mmaps_counted_and_anon_faulted() {
        let evs = vec![ev(0, MMAP, 0, 0, 1 << 20, 0), ev(1, ANON, NO_FILE, 0, 4 << 20, 0), ev(2, TOUCH, NO_FILE, 0, 4 << 20, 0), ev(3, EXIT, NO_FILE, 0, 0, 0)];
        let r = run(&evs, "").unwrap();
        assert_eq!(r.traces[0].skipped, vec![(super::SKIP_FILE_MMAP, 1)]);
        assert!(total(&r, "memcg.max_usage_bytes") >= (4 << 20) as f64);
        assert!(total(&r, "memcg.usage_bytes") < (1 << 20) as f64, "exit unmapped it");
    }

    const MAP: u8 = 20;
    const UNMAP: u8 = 21;
    const FAULT: u8 = 22;
    const MAP_ADVISE: u8 = 23;

    /// filemap_fault() (mm/filemap.c, 6.1): a read fault on a numbered file mapping of a cold
    /// file is a major fault that reads the page and its read-around window
    /// (do_sync_mmap_readahead(): ra_pages centred on the fault); a second fault on a page of
    /// that window is minor (the page is cached).
    #[test]
    fn file_faults_read_through_the_mapping() {
        let evs = vec![ev(0, MAP, 0, 0, 1 << 20, 0), ev(1, FAULT, 0, 128 << 10, 0, 0), ev(2, FAULT, 0, 132 << 10, 0, 0), ev(3, UNMAP, 0, 0, 1 << 20, 1)];
        let r = run(&evs, "initial_cache = false").unwrap();
        assert_eq!(total(&r, "memcg.pgmajfault"), 1.0);
        let read = total(&r, "read_bytes");
        assert!(read > 4096.0 && read <= (1 << 20) as f64, "read-around reads a window: {read}");
        assert!(r.traces[0].skipped.is_empty(), "{:?}", r.traces[0].skipped);
        // MADV_RANDOM first (VM_RAND_READ): no read-around, the faulted page alone.
        let evs = vec![ev(0, MAP, 0, 0, 1 << 20, 0), ev(1, MAP_ADVISE, 0, 0, 0, 1), ev(2, FAULT, 0, 128 << 10, 0, 0), ev(3, FAULT, 0, 132 << 10, 0, 0)];
        let r = run(&evs, "initial_cache = false").unwrap();
        assert_eq!(total(&r, "memcg.pgmajfault"), 2.0);
        assert_eq!(total(&r, "read_bytes"), 8192.0);
    }

    /// do_anonymous_page() (mm/memory.c): a read fault maps the zero page (no memory charged),
    /// a write fault allocates a page charged to the memcg; munmap (the last range) frees them.
    #[test]
    fn anon_faults_read_zero_page_write_charges() {
        let reads: Vec<Vec<u8>> = std::iter::once(ev(0, MAP, NO_FILE, 0, 8 << 20, 0)).chain((0..512).map(|i| ev(1, FAULT, 0, i * 4096, 0, 0))).collect();
        let r = run(&reads, "").unwrap();
        assert!(total(&r, "memcg.max_usage_bytes") < (1 << 20) as f64, "reads map the zero page");
        assert!(total(&r, "memcg.pgfault") >= 512.0);
        let writes: Vec<Vec<u8>> = std::iter::once(ev(0, MAP, NO_FILE, 0, 8 << 20, 0)).chain((0..512).map(|i| ev(1, FAULT, 0, i * 4096, 0, 1))).collect();
        let r = run(&writes, "").unwrap();
        assert!(total(&r, "memcg.max_usage_bytes") >= (2 << 20) as f64);
        let mut freed = writes.clone();
        freed.push(ev(2, UNMAP, 0, 0, 8 << 20, 1));
        freed.push(ev(3, MAP, NO_FILE, 0, 4096, 0));
        let r = run(&freed, "").unwrap();
        assert!(total(&r, "memcg.usage_bytes") < (1 << 20) as f64, "the last unmap freed them");
    }

    /// Mapping numbers: a map takes the lowest free number (0 again after mapping 0 ended),
    /// exit ends the process's mappings, and an event naming a number no live map holds is a
    /// defect of the trace.
    #[test]
    fn mapping_numbers_are_reused_and_checked() {
        let evs = vec![ev(0, MAP, NO_FILE, 0, 1 << 20, 0), ev(1, MAP, 0, 0, 1 << 20, 0), ev(2, UNMAP, 0, 0, 1 << 20, 1), ev(3, MAP, NO_FILE, 0, 4096, 0), ev(4, FAULT, 0, 8192, 0, 1)];
        let Err(RunError::Trace(m)) = run(&evs, "") else { panic!("mapping 0 now has one page: a fault at byte 8192 must fail") };
        assert!(m.contains("event 4") && m.contains("byte 8192 of mapping 0"), "{m}");
        let evs = vec![ev(0, MAP, NO_FILE, 0, 1 << 20, 0), ev(1, EXIT, NO_FILE, 0, 0, 0), ev(2, FAULT, 0, 0, 0, 1)];
        let Err(RunError::Trace(m)) = run(&evs, "") else { panic!("exit ended mapping 0") };
        assert!(m.contains("event 2") && m.contains("mapping 0") && m.contains("fix:"), "{m}");
        // A partial unmap zaps its range and keeps the mapping.
        let evs = vec![ev(0, MAP, NO_FILE, 0, 1 << 20, 0), ev(1, FAULT, 0, 0, 0, 1), ev(2, UNMAP, 0, 0, 4096, 0), ev(3, FAULT, 0, 4096, 0, 1)];
        run(&evs, "").unwrap();
    }

    const ACCESS: u8 = 24;

    /// An `access` (format 2, a sampled touch) is the CPU's access through the page's PTE: on a
    /// mapped page no fault (the hardware sets the accessed bit: no handle_mm_fault(), so
    /// pgfault does not move, 6.1 mm/memory.c); once a zap_page_range() (a partial unmap here)
    /// took the PTE it is handle_mm_fault() again (a minor fault, the page still cached); once
    /// the page also left the page cache (fadvise(DONTNEED): mapping_evict_folio()) a major
    /// fault that reads it (filemap_fault()).
    #[test]
    fn access_marks_mapped_pages_and_faults_unmapped_ones() {
        let base = vec![ev(0, MAP, 0, 0, 1 << 20, 0), ev(1, MAP_ADVISE, 0, 0, 0, 1), ev(2, FAULT, 0, 128 << 10, 0, 0)];
        let r0 = run(&base, "initial_cache = false").unwrap();
        let mut touched = base.clone();
        touched.extend((0..3).map(|k| ev(3 + k, ACCESS, 0, 128 << 10, 4096, 1)));
        let r = run(&touched, "initial_cache = false").unwrap();
        assert_eq!(total(&r, "memcg.pgfault"), total(&r0, "memcg.pgfault"), "a mapped page takes no fault");
        assert_eq!(total(&r, "memcg.pgmajfault"), 1.0);
        assert!(r.traces[0].skipped.is_empty(), "{:?}", r.traces[0].skipped);
        let mut zapped = base.clone();
        zapped.extend([ev(3, UNMAP, 0, 128 << 10, 4096, 0), ev(4, ACCESS, 0, 128 << 10, 4096, 1)]);
        let r = run(&zapped, "initial_cache = false").unwrap();
        assert_eq!(total(&r, "memcg.pgfault"), total(&r0, "memcg.pgfault") + 1.0, "the access faults the PTE back in");
        assert_eq!(total(&r, "memcg.pgmajfault"), 1.0, "the page was still cached");
        let mut dropped = base.clone();
        dropped.extend([ev(3, UNMAP, 0, 128 << 10, 4096, 0), ev(4, FADVISE, 0, 0, 0, 4), ev(5, ACCESS, 0, 128 << 10, 4096, 1)]);
        let r = run(&dropped, "initial_cache = false").unwrap();
        assert_eq!(total(&r, "memcg.pgmajfault"), 2.0, "the refault the kernel counts");
        assert_eq!(total(&r, "read_bytes"), 8192.0);
    }

    /// Bad `access` events: one past a file mapping's end (the file shrank) and one on a
    /// mapping that was skipped are counted, never dropped silently; one naming a mapping no
    /// live `map` holds (a sample outside every mapping the trace made) or past an anonymous
    /// mapping's end stops the run naming the event.
    #[test]
    fn access_defects_are_counted_or_named() {
        let evs = vec![ev(0, MAP, 0, 0, 1 << 20, 0), ev(1, ACCESS, 0, 2 << 20, 4096, 1), ev(2, MAP, NO_FILE, 0, 1 << 50, 0), ev(3, ACCESS, 1, 0, 4096, 1)];
        let r = run(&evs, "").unwrap();
        let sk = &r.traces[0].skipped;
        assert!(sk.contains(&(super::SKIP_ACCESS_EOF, 1)) && sk.contains(&(super::SKIP_ACCESS_UNBACKED, 1)), "{sk:?}");
        let evs = vec![ev(0, MAP, 0, 0, 1 << 20, 0), ev(1, ACCESS, 3, 0, 4096, 1)];
        let Err(RunError::Trace(m)) = run(&evs, "") else { panic!("mapping 3 was never made") };
        assert!(m.contains("event 1") && m.contains("Access") && m.contains("mapping 3") && m.contains("fix:"), "{m}");
        let evs = vec![ev(0, MAP, NO_FILE, 0, 4096, 0), ev(1, ACCESS, 0, 8192, 4096, 1)];
        let Err(RunError::Trace(m)) = run(&evs, "") else { panic!("past the anonymous mapping's end") };
        assert!(m.contains("event 1") && m.contains("accesses byte 8192 of mapping 0"), "{m}");
    }

    /// 2048 stores into an 8 MiB anonymous mapping through a 4M memcg limit with swap (so the
    /// first pages are swapped out), run alone and then with `last` appended: both results.
    fn swapped_then(last: Vec<u8>) -> (SimResult, SimResult) {
        let writes: Vec<Vec<u8>> = std::iter::once(ev(0, MAP, NO_FILE, 0, 8 << 20, 0)).chain((0..2048).map(|i| ev(1, FAULT, 0, i * 4096, 0, 1))).collect();
        let (swap, limit) = ("swap = \"64M\"", "\"memory.limit_in_bytes\" = \"4M\"");
        let r0 = run_on(&writes, swap, limit, "").unwrap();
        assert!(total(&r0, "vmstat.pswpout") > 0.0, "the limit swapped pages out");
        let mut back = writes;
        back.push(last);
        let r = run_on(&back, swap, limit, "").unwrap();
        (r0, r)
    }

    /// review4 F7: an `access` to an anonymous page the memcg's limit reclaim swapped out is the
    /// load's handle_mm_fault(): do_swap_page() (6.1 mm/memory.c) reads it back, a major fault
    /// (it was swapped without an access to it: not the skip it was).
    #[test]
    fn access_swaps_an_anonymous_page_back_in() {
        let (r0, r) = swapped_then(ev(2, ACCESS, 0, 0, 4096, 1));
        assert_eq!(total(&r, "memcg.pgmajfault"), total(&r0, "memcg.pgmajfault") + 1.0, "the swap-in is a major fault");
        assert!(r.traces[0].skipped.is_empty(), "{:?}", r.traces[0].skipped);
    }

    /// A read `fault` of an anonymous page the memcg's limit reclaim swapped out is
    /// do_swap_page() (6.1 mm/memory.c handle_pte_fault(): a swap entry in the PTE), a major
    /// fault, not do_anonymous_page()'s zero page.
    #[test]
    fn a_read_fault_swaps_an_anonymous_page_back_in() {
        let (r0, r) = swapped_then(ev(2, FAULT, 0, 0, 0, 0));
        assert_eq!(total(&r, "memcg.pgmajfault"), total(&r0, "memcg.pgmajfault") + 1.0, "the swap-in is a major fault");
    }

    /// A defect stops the run with the trace, the event's index and a fix.
    #[test]
    fn defects_name_the_event() {
        let evs = vec![ev(0, OPEN, 0, 0, 0, 0), ev(1, READ, 5, 0, 4096, 0)];
        let Err(RunError::Trace(m)) = run(&evs, "") else { panic!("a file id outside the header must fail") };
        assert!(m.starts_with("x.mtt: event 1 ") && m.contains("file id 5") && m.contains("fix:"), "{m}");
        let evs = vec![ev(0, OPEN, 0, 0, 0, 0), ev(1, 99, 0, 0, 4096, 0)];
        let Err(RunError::Trace(m)) = run(&evs, "") else { panic!("an unknown op must fail") };
        assert!(m.contains("event 1") && m.contains("op code 99"), "{m}");
        let evs = vec![ev(0, READ, NO_FILE, 0, 4096, 0)];
        let Err(RunError::Trace(m)) = run(&evs, "") else { panic!("a read of no file must fail") };
        assert!(m.contains("event 0") && m.contains("names no file"), "{m}");
    }

    /// The scenario builder checks a trace task's keys and never expands the trace.
    #[test]
    fn trace_tasks_are_checked() {
        let doc = Document::from_toml("t.toml", "[scenario]\nname = \"t\"\n[machine]\nram = \"1G\"\n[devices.sda]\nread_bw = \"100M\"\n[tasks.t]\ntrace = \"x.mtt\"\nloops = 0\nops = []\n").unwrap();
        let h = TraceHeader { files: vec![("/data/a".into(), 4096)], events: 1, resident: vec![], start_caches: vec![] };
        let e = doc.resolve_with_traces(None, &[], &[("x.mtt".into(), h)]).unwrap_err().to_string();
        assert!(e.contains("both `trace` and `ops`") && e.contains("loops is 0"), "{e}");
        let e = doc.resolve(None, &[]).unwrap_err().to_string();
        assert!(e.contains("t.toml:8:") && e.contains("was not read"), "{e}");
    }
}
