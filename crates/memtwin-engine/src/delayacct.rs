//! Where a task's time goes while it waits inside the kernel (kernel/delayacct.c,
//! include/linux/delayacct.h, and the PSI hooks of include/linux/psi.h): one accounting of
//! stalls, per task, from which both the per-task `stall.*_ms` metrics and PSI's memory
//! pressure (psi.rs) are taken.
//!
//! A kernel path that may stall opens a frame (`Kernel::stall_enter`) and closes it
//! (`Kernel::stall_leave`); frames nest, and the time between two frame boundaries goes to the
//! innermost open frame's kind only, so the kinds never count a nanosecond twice: the
//! `congestion_wait()` a direct reclaimer sleeps in is `congestion`, the reclaim around it
//! `reclaim`. A frame of a kind the kernel brackets with `psi_memstall_enter()` is a memory
//! stall: PSI counts the time at least one such frame is open (nested ones once), as
//! `current->in_memstall` does. A wait the kernel does not bracket (a `congestion_wait()` in the
//! allocator's retry loop, outside `__perform_reclaim()`) is a stall of its kind and not a
//! memory stall, unless an enclosing frame is one.
//!
//! kswapd is not a task here (it runs lazily inside the allocating task's quantum with a clock
//! of its own): its frames are not attributed to the task; its memory stalls still reach PSI
//! as before.

use crate::kernel::Kernel;
use crate::types::Nanos;

/// What a task waits for (delayacct's classes, `struct task_delay_info`, and the waits it has
/// none for). Each kind is one per-task metric, `stall.<name>_ms`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum StallKind {
    /// Direct and memcg (limit, memory.high) reclaim: `__perform_reclaim()`,
    /// `try_to_free_mem_cgroup_pages()` from `try_charge_memcg()` and `reclaim_high()`
    /// (delayacct `freepages`: `delayacct_freepages_start()`); a memory stall.
    Reclaim,
    /// Sleeps on a congested or busy queue: `congestion_wait()`, `wait_iff_congested()`,
    /// `reclaim_throttle()` (5.16+), the `too_many_isolated()` and `throttle_vm_writeout()`
    /// loops, and `get_request()`/`blk_mq_get_tag()` sleeping for a free request.
    Congestion,
    /// Waiting for the writeback of a page reclaim met (`folio_wait_writeback()` in
    /// `shrink_folio_list()`).
    Writeback,
    /// Direct compaction (`try_to_compact_pages()`, delayacct `compact`); a memory stall.
    Compaction,
    /// A swap-in fault waiting for its read (`swap_readpage()`, delayacct `swapin`).
    Swapin,
    /// Waiting for the read of a refaulting workingset page (`folio_wait_bit_common()` on a
    /// `PG_workingset` page, delayacct `thrashing`); a memory stall.
    Thrashing,
    /// memory.high's penalty sleep (`mem_cgroup_handle_over_high()`, 5.4+); a memory stall.
    High,
    /// `balance_dirty_pages()` holding a writer: its pauses, `io_schedule_timeout()` (I/O wait,
    /// PSI io, not a memory stall: no `psi_memstall_enter()` around them).
    Dirty,
}

/// Number of [`StallKind`]s.
pub const NR_STALL_KINDS: usize = 8;

impl StallKind {
    /// Every kind with its metric name (`stall.<name>_ms`), in report order.
    pub const ALL: [(StallKind, &'static str); NR_STALL_KINDS] = [
        (StallKind::Reclaim, "reclaim"),
        (StallKind::Congestion, "congestion"),
        (StallKind::Writeback, "writeback"),
        (StallKind::Compaction, "compaction"),
        (StallKind::Swapin, "swapin"),
        (StallKind::Thrashing, "thrashing"),
        (StallKind::High, "high"),
        (StallKind::Dirty, "dirty"),
    ];

    /// Whether the kernel brackets this wait with `psi_memstall_enter()`/`leave()` (4.20+;
    /// the engine's PSI counts them in every era, as it always has).
    pub fn is_memstall(self) -> bool {
        matches!(self, StallKind::Reclaim | StallKind::Compaction | StallKind::Thrashing | StallKind::High)
    }
}

/// Deepest nesting of stall frames the engine's call paths reach (reclaim -> congestion wait
/// -> ... is three deep); a deeper one is a bug.
pub const MAX_STALL_DEPTH: usize = 8;

/// The running context's stall accounting: the open frames and, per kind, the time spent in
/// it during the current quantum (taken and added to the task's totals when the quantum ends).
#[derive(Clone, Copy, Debug, Default)]
pub struct StallAcct {
    /// Per kind, time this quantum (ns).
    pub ns: [Nanos; NR_STALL_KINDS],
    /// Open frames, outermost first.
    stack: [Option<StallKind>; MAX_STALL_DEPTH],
    /// Number of open frames.
    depth: usize,
    /// When the innermost open frame last started being charged.
    since: Nanos,
}

impl StallAcct {
    /// Charge the innermost open frame up to `now`.
    #[inline]
    fn charge(&mut self, now: Nanos) {
        if self.depth > 0 {
            if let Some(k) = self.stack[self.depth - 1] {
                self.ns[k as usize] += now.saturating_sub(self.since);
            }
        }
        self.since = now;
    }

    /// Open frames (0 between syscalls).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Take this quantum's per-kind times, leaving zeros.
    pub fn take(&mut self) -> [Nanos; NR_STALL_KINDS] {
        debug_assert_eq!(self.depth, 0, "a stall frame left open across quanta");
        std::mem::take(&mut self.ns)
    }
}

impl Kernel {
    /// Open a stall frame of `kind` (`delayacct_*_start()`, and `psi_memstall_enter()` for a
    /// memory-stall kind).
    #[inline]
    pub fn stall_enter(&mut self, kind: StallKind) {
        if kind.is_memstall() {
            self.psi_memstall_enter();
        }
        if self.in_kthread() {
            return;
        }
        let s = &mut self.stall;
        s.charge(self.now);
        assert!(s.depth < MAX_STALL_DEPTH, "stall frames nested deeper than MAX_STALL_DEPTH");
        s.stack[s.depth] = Some(kind);
        s.depth += 1;
    }

    /// Close the innermost stall frame, of `kind` (`delayacct_*_end()`,
    /// `psi_memstall_leave()`).
    #[inline]
    pub fn stall_leave(&mut self, kind: StallKind) {
        if kind.is_memstall() {
            self.psi_memstall_leave();
        }
        if self.in_kthread() {
            return;
        }
        let s = &mut self.stall;
        s.charge(self.now);
        debug_assert!(s.depth > 0 && s.stack[s.depth - 1] == Some(kind), "stall frames closed out of order");
        s.depth -= 1;
        s.stack[s.depth] = None;
    }

    /// Run `f` inside a stall frame of `kind`.
    #[inline]
    pub fn stalled<R>(&mut self, kind: StallKind, f: impl FnOnce(&mut Kernel) -> R) -> R {
        self.stall_enter(kind);
        let r = f(self);
        self.stall_leave(kind);
        r
    }
}
