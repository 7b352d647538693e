//! `none` (blk-mq, block/blk-mq.c without an elevator: `blk_mq_insert_requests()` straight to
//! the hardware queue's dispatch list) and the legacy `noop` (block/noop-iosched.c: one FIFO):
//! the device is given its requests in submission order. Every era's device without a
//! scheduler, and the host's loop devices (`BLK_MQ_F_NO_SCHED_BY_DEFAULT`).

/// No state: nothing is held, nothing reordered ([`super::elevator::Elevator::place_sync`]
/// puts a sync request behind every pending async one).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NoneSched;
