//! mq-deadline (block/mq-deadline.c as Debian's 6.1 has it; blk-mq's default for a device with
//! one hardware queue from 5.0, `elevator_get_default()`): reads before writes, in batches.
//!
//! Rules modelled, each from `__dd_dispatch_request()` (6.1):
//! - "batches are currently reads XOR writes": while the current batch has dispatched fewer
//!   than `fifo_batch` ([`DD_FIFO_BATCH`]) requests and has a next one in sort order, it goes
//!   on; a read arriving during a write batch waits for the batch's end (a sequential writer's
//!   requests always have a next one);
//! - out of a batch, reads are chosen when any are queued, unless writes are pending and
//!   `dd->starved++ >= dd->writes_starved` ([`DD_WRITES_STARVED`]): then a write batch goes
//!   first (`dispatch_writes:` resets `starved`); between reads that do not overlap, the
//!   writes were dispatched, so `starved` is 0 again;
//! - the scheduler holds only what the driver has not taken: a read also waits for the
//!   requests already dispatched to the device (its `driver_depth`: 32 on a SATA disk, the
//!   driver tags of a virtio disk); a device whose driver takes every request pending has
//!   them served in submission order.
//!
//! `read_expire` (HZ/2) and `write_expire` (5 * HZ) have nothing to change here, read from
//! `__dd_dispatch_request()` of 6.1 (checked 2026-11-29 for issue 23, so that nobody models
//! them as a direction switch): the direction of a new batch is chosen by the two rules above
//! alone (reads when any are queued, unless `starved++ >= writes_starved` with a write in
//! FIFO); `deadline_check_fifo()` is asked only after that, and decides which request of the
//! chosen direction starts the batch: the FIFO's oldest (`deadline_fifo_request()`) when its
//! deadline has passed, else the next in sector order (`deadline_next_request()`). The engine
//! keeps one order per direction, submission order, so the FIFO's head and the next request
//! are the same request. (`prio_aging_expire`, 10 s, ages requests across I/O priority
//! levels, `dd_dispatch_prio_aged_requests()`: every request modelled has the one default
//! priority.) An expiry would matter with the sort order, which is not modelled: a request's
//! place in a batch is its submission's; nor are I/O priorities.

use super::elevator::{PendingAsync, Placement};
use crate::types::Nanos;

/// `fifo_batch` (block/mq-deadline.c): requests of one direction dispatched as a batch.
pub const DD_FIFO_BATCH: u64 = 16;
/// `writes_starved`: read batches chosen over pending writes before a write batch.
pub const DD_WRITES_STARVED: u64 = 2;

/// mq-deadline's state on one device.
#[derive(Clone, Debug, Default)]
pub struct MqDeadline {
    /// `dd->batching` of the current read batch.
    pub batching: u64,
    /// `dd->starved`.
    pub starved: u64,
    /// Async requests given to the device before the current write batch began.
    pub wbatch_base: u64,
}

impl MqDeadline {
    /// A sync request submitted at `now` (see [`super::elevator::Elevator::place_sync`]).
    pub fn place_sync(&mut self, now: Nanos, sync_until: Nanos, pending: &PendingAsync) -> Placement {
        if sync_until > now {
            // A read batch is under way (its reads placed ahead of the pending writes).
            if self.batching < DD_FIFO_BATCH {
                self.batching += 1;
                return Placement { ahead: 0, refund: 0 };
            }
            self.batching = 1;
            let starved = self.starved;
            self.starved += 1;
            if pending.n > 0 && starved >= DD_WRITES_STARVED {
                // dispatch_writes: a write batch of fifo_batch before the next read batch.
                self.starved = 0;
                let ahead = (pending.done_by(sync_until) + DD_FIFO_BATCH).min(pending.n);
                self.wbatch_base = pending.seq_first + ahead;
                return Placement { ahead, refund: 0 };
            }
            return Placement { ahead: 0, refund: 0 };
        }
        // No read queued before it: the writes were being dispatched, the last batch chosen a
        // write batch (starved = 0). The read waits for the driver's requests and the rest of
        // the write batch the next of them belongs to.
        self.batching = 1;
        let k0 = pending.driver_depth.min(pending.n);
        let seq = pending.seq_first + k0;
        if self.wbatch_base > seq {
            self.wbatch_base = pending.seq_first;
        }
        let into = (seq - self.wbatch_base) % DD_FIFO_BATCH;
        let end = if into == 0 { seq } else { seq + DD_FIFO_BATCH - into };
        let ahead = (end - pending.seq_first).min(pending.n);
        self.wbatch_base = pending.seq_first + ahead;
        self.starved = u64::from(ahead < pending.n);
        Placement { ahead, refund: 0 }
    }

    /// The read runs until `done`: no idling in mq-deadline.
    pub fn sync_placed(&mut self, _done: Nanos) -> Nanos {
        0
    }
}
