//! A virtual machine's vCPU stalls (issue 20, zswap20): the time a vCPU does not run because its
//! host does not run the thread behind it (a loaded host's scheduler, "steal time"; the guest
//! kernel's `steal_account_process_time()` reads it where the hypervisor reports it, QEMU/TCG
//! does not). Nothing on a stalled vCPU runs: not the task, not a kworker, while the guest's one
//! clock (which follows the host's) goes on, so the contexts of the other vCPUs get ahead of it.
//!
//! `[machine] vcpu_stall` (durations) and `vcpu_stall_interval` (the mean time from one stall's
//! start to the next's on one vCPU) describe them; `memtwin real --on qemu --vcpu-stall-probe` measures both at
//! boot (`real.machine.cpu.vcpu_stall`: every vCPU spinning on CLOCK_MONOTONIC, its gaps);
//! `validate` does not give them to the engine (lab/measurements/vcpu-stall). Each vCPU draws its stalls in turn from its own stream
//! (xorshift64 seeded by `kernel.boot_seed` and the vCPU's index): the idle gap before a stall
//! is exponential (stalls taken as arriving independently), its length one
//! of the measured samples (the gap's mean the interval less the samples' mean). A context meets a stall only while it runs CPU time
//! ([`Kernel::cpu`]): a stall that starts while its vCPU is idle delays the context only if it
//! is still on when the context next runs. Not modelled: the stalls of a timer's handler or an
//! I/O completion (they run in the catch-up of the clock, [`Kernel::advance_clock`]).

use crate::kernel::Kernel;
use crate::types::Nanos;

/// One vCPU's next stall: when it starts and how long it lasts, and the stream's random state.
#[derive(Clone, Copy, Debug)]
struct StallStream {
    start: Nanos,
    dur: Nanos,
    rand: u64,
}

/// The machine's vCPU stalls: the measured samples and one stream per vCPU, plus one for 6.1's
/// zswap shrink worker (see [`Kernel::vcpu_stall_stream`]).
#[derive(Clone, Debug)]
pub struct VcpuStalls {
    durations: Vec<Nanos>,
    /// The mean idle time from a stall's end to the next one's start.
    gap: Nanos,
    streams: Vec<StallStream>,
    /// Stall time the running contexts met, in all (for the tests and the bench's sanity).
    pub met_ns: Nanos,
}

/// Salt of the streams' seeds, apart from the other boot-seeded draws.
const VCPU_STALL_RAND_SALT: u64 = 0x7643_5055_5374_616C;

impl VcpuStalls {
    /// Stalls of `durations` (not empty) a mean `interval` apart on each of `cpus` vCPUs, drawn
    /// from `boot_seed`; the interval is longer than the durations' mean (build.rs refuses
    /// others: the vCPUs would never run).
    pub fn new(durations: Vec<Nanos>, interval: Nanos, cpus: u32, boot_seed: u64) -> VcpuStalls {
        assert!(!durations.is_empty() && interval > 0, "vcpu stalls need samples and an interval");
        debug_assert!(interval > durations.iter().sum::<Nanos>() / durations.len() as Nanos, "vcpu_stall_interval not longer than the stalls' mean (build.rs refuses it)");
        // The idle time between two stalls: the interval (start to start) less a stall's mean
        // length (at least 1 ns: build.rs refuses an interval not longer than the mean).
        let mean = durations.iter().sum::<Nanos>() / durations.len() as Nanos;
        let mut v = VcpuStalls { durations, gap: interval.saturating_sub(mean).max(1), streams: vec![], met_ns: 0 };
        for i in 0..=cpus.max(1) as u64 {
            let rand = crate::lru_gen::memcg_lru_rand_seed(boot_seed ^ VCPU_STALL_RAND_SALT ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut s = StallStream { start: 0, dur: 0, rand };
            v.draw(&mut s);
            v.streams.push(s);
        }
        v
    }

    /// Set stream `i`'s next stall (for the tests).
    #[cfg(test)]
    pub(crate) fn set_next(&mut self, i: usize, start: Nanos, dur: Nanos) {
        self.streams[i].start = start;
        self.streams[i].dur = dur;
    }

    /// The stream's next stall after the one it holds: an exponential gap of mean `gap` from
    /// its end (so a mean `interval` from start to start), a length drawn from the samples.
    fn draw(&self, s: &mut StallStream) {
        let x = crate::lru_gen::get_random_u32_below(&mut s.rand, u64::MAX);
        let u = ((x >> 11) + 1) as f64 / (1u64 << 53) as f64; // (0, 1]
        // At least 1 ns: each stall a context meets then leaves it 1 ns or more of its work done,
        // so vcpu_stall_pass's loop ends (a gap of 0 repeated would hold it forever).
        let gap = ((-(u.ln()) * self.gap as f64) as Nanos).max(1);
        let i = crate::lru_gen::get_random_u32_below(&mut s.rand, self.durations.len() as u64) as usize;
        s.start = s.start.saturating_add(s.dur).saturating_add(gap);
        s.dur = self.durations[i];
    }
}

impl Kernel {
    /// The stall stream of the running context: its CPU's (`pcp_ctx`: a task's
    /// [`Kernel::task_cpu`], kswapd's [`Kernel::kswapd_cpu`]), or for 6.1's zswap shrink worker
    /// the extra stream after the CPUs'. The kernel runs the worker on the storing task's CPU
    /// and the idle balance pulls the task to the other (zswap.rs `zswap_queue_shrink_work`);
    /// the engine runs the worker beside the task, so they must not share a stream, and the
    /// streams being drawn from the same samples, which one is called the task's CPU does not
    /// matter.
    pub(crate) fn vcpu_stall_stream(&self, n: usize) -> usize {
        if self.in_zswap_worker {
            n - 1
        } else {
            (if self.pcp_ctx == u32::MAX { 0 } else { self.pcp_ctx as usize }).min(n - 2)
        }
    }

    /// The running context ran CPU time from `from` to `self.now` on its vCPU: each stall of
    /// that vCPU that began in it holds the rest of the work back by its length, and a stall
    /// that began while the vCPU was idle and is still on at `from` holds it back until its end.
    /// Called by [`Kernel::cpu`] on a machine with `[machine] vcpu_stall`.
    #[cold]
    pub(crate) fn vcpu_stall_pass(&mut self, from: Nanos) {
        self.with_vcpu_stalls(|k, v| k.vcpu_stall_meet(v, from));
    }

    /// [`Kernel::vcpu_stall_pass`] with the stalls `v` taken out of the kernel.
    #[inline(always)]
    fn vcpu_stall_meet(&mut self, v: &mut crate::vcpu_stall::VcpuStalls, mut from: Nanos) {
        let si = self.vcpu_stall_stream(v.streams.len());
        let mut s = v.streams[si];
        while s.start < self.now {
            let end = s.start.saturating_add(s.dur);
            if s.start >= from {
                // Began while the context ran: what was left runs after it.
                self.now = self.now.saturating_add(s.dur);
                v.met_ns += s.dur;
                from = end;
            } else if end > from {
                // On when the context came to run: it starts at the stall's end.
                let held = end - from;
                self.now = self.now.saturating_add(held);
                v.met_ns += held;
                from = end;
            }
            v.draw(&mut s);
        }
        v.streams[si] = s;
    }
}
