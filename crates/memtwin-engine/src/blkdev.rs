//! Block devices: a single request queue with a latency and bandwidth model
//! (block/blk-core.c, block/blk-mq.c, and the device's `queue/` attributes).
//!
//! Requests are served one after the other in submission order. A request costs its transfer
//! time (`bytes / bandwidth`) plus an access latency when it does not start where the previous
//! request ended (a seek on a disk, a random-read penalty on flash). A request submitted while
//! the device is busy waits for it.

use crate::types::{Nanos, NSEC_PER_SEC, PAGE_SIZE};

/// `queue_congestion_on_threshold()` of a 128-request queue (block/blk-core.c, 2.6-4.x):
/// `nr_requests - nr_requests/8 + 1` = 113 requests in flight, each of at most
/// `BLK_DEF_MAX_SECTORS` (1024 sectors, 512 KiB, in 4.x): the write backlog in bytes above
/// which a queue is congested. The engine's queue holds a time line, not requests, so the
/// backlog is measured in bytes the device still has to write.
pub const CONGESTION_ON_BYTES: u64 = 113 * 512 * 1024;
/// `queue_congestion_off_threshold()`: `nr_requests - nr_requests/8 - nr_requests/16 - 1` =
/// 103 requests: the backlog below which the queue is no longer congested.
pub const CONGESTION_OFF_BYTES: u64 = 103 * 512 * 1024;

/// Direction of a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `REQ_OP_READ`.
    Read,
    /// `REQ_OP_WRITE`.
    Write,
}

/// A block device with its queue state and statistics (`/sys/block/<dev>/stat`).
#[derive(Clone, Debug)]
pub struct BlockDevice {
    /// Device name (`sda`, `vda`).
    pub name: String,
    /// Sequential read bandwidth, bytes per second.
    pub read_bw: u64,
    /// Sequential write bandwidth, bytes per second.
    pub write_bw: u64,
    /// Access latency paid by a request that does not continue the previous one.
    pub seek_ns: Nanos,
    /// `queue/read_ahead_kb`: the readahead window limit (`bdi->ra_pages`).
    pub read_ahead_kb: u64,
    /// When the queue is next idle.
    pub busy_until: Nanos,
    /// Device page after the end of the last request.
    pub last_end: u64,
    /// Bytes read (sectors read * 512 in /sys/block/<dev>/stat).
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Requests served.
    pub ios: u64,
    /// Time the device was busy (`io_ticks`).
    pub busy_ns: Nanos,
    /// Next free device page for new files.
    pub next_free_page: u64,
}

impl BlockDevice {
    /// A device with the given performance.
    pub fn new(name: &str, read_bw: u64, write_bw: u64, seek_ns: Nanos, read_ahead_kb: u64) -> Self {
        BlockDevice {
            name: name.to_string(),
            read_bw: read_bw.max(1),
            write_bw: write_bw.max(1),
            seek_ns,
            read_ahead_kb,
            busy_until: 0,
            last_end: u64::MAX,
            read_bytes: 0,
            write_bytes: 0,
            ios: 0,
            busy_ns: 0,
            next_free_page: 0,
        }
    }

    /// `bdi_write_congested()`: whether the backlog at `now` is above the congestion
    /// threshold; if so, when it will have drained below the off threshold.
    pub fn write_congested(&self, now: Nanos) -> Option<Nanos> {
        let backlog = self.busy_until.saturating_sub(now);
        if backlog <= CONGESTION_ON_BYTES * NSEC_PER_SEC / self.write_bw {
            return None;
        }
        Some(self.busy_until - CONGESTION_OFF_BYTES * NSEC_PER_SEC / self.write_bw)
    }

    /// `bdi->ra_pages`.
    pub fn ra_pages(&self) -> u64 {
        (self.read_ahead_kb * 1024 / PAGE_SIZE).max(1)
    }

    /// Reserve a contiguous extent of `pages` for a new file; returns its first device page.
    pub fn alloc_extent(&mut self, pages: u64) -> u64 {
        let base = self.next_free_page;
        // Leave a gap so that two files are never contiguous on the device.
        self.next_free_page += pages + 256;
        base
    }

    /// `submit_bio()` of `pages` pages at device page `start`, at time `now`: returns the
    /// completion time.
    pub fn submit(&mut self, dir: Dir, start: u64, pages: u64, now: Nanos) -> Nanos {
        let bytes = pages * PAGE_SIZE;
        let bw = match dir {
            Dir::Read => self.read_bw,
            Dir::Write => self.write_bw,
        };
        let seek = if start == self.last_end { 0 } else { self.seek_ns };
        let xfer = (bytes as u128 * NSEC_PER_SEC as u128 / bw as u128) as Nanos;
        let begin = now.max(self.busy_until);
        let done = begin + seek + xfer;
        self.busy_until = done;
        self.busy_ns += seek + xfer;
        self.last_end = start + pages;
        self.ios += 1;
        match dir {
            Dir::Read => self.read_bytes += bytes,
            Dir::Write => self.write_bytes += bytes,
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_requests_pay_no_seek_and_queue_behind_each_other() {
        let mut d = BlockDevice::new("sda", 100 * 1024 * 1024, 50 * 1024 * 1024, 5_000_000, 128);
        assert_eq!(d.ra_pages(), 32);
        // 100 MiB/s: 256 pages (1 MiB) take 10 ms.
        let t1 = d.submit(Dir::Read, 0, 256, 0);
        assert_eq!(t1, 5_000_000 + 10_000_000, "first request seeks");
        let t2 = d.submit(Dir::Read, 256, 256, 0);
        assert_eq!(t2, t1 + 10_000_000, "queued behind the first, no seek");
        let t3 = d.submit(Dir::Read, 10_000, 256, t2 + 1);
        assert_eq!(t3, t2 + 1 + 5_000_000 + 10_000_000, "random request seeks");
        let t4 = d.submit(Dir::Write, 10_256, 256, t3);
        assert_eq!(t4, t3 + 20_000_000, "writes at their own bandwidth");
        assert_eq!(d.read_bytes, 3 * 1024 * 1024);
        assert_eq!(d.write_bytes, 1024 * 1024);
        assert_eq!(d.ios, 4);
    }

    #[test]
    fn extents_never_touch() {
        let mut d = BlockDevice::new("sda", 1, 1, 0, 128);
        let a = d.alloc_extent(10);
        let b = d.alloc_extent(10);
        assert!(b > a + 10);
    }

    /// A queue is congested above 113 requests' worth of backlog (56.5 MiB) and stays so
    /// until it has drained to 103 requests' worth.
    #[test]
    fn congestion_follows_the_request_thresholds() {
        let mut d = BlockDevice::new("sda", 100 << 20, 100 << 20, 0, 128);
        let now = 1_000_000_000;
        d.busy_until = now + 500_000_000; // 50 MiB of backlog
        assert_eq!(d.write_congested(now), None);
        d.busy_until = now + 1_000_000_000; // 100 MiB
        let off = d.write_congested(now).expect("congested");
        let left = (d.busy_until - off) as f64 / 1e9 * 100.0; // MiB still queued when it clears
        assert!((left - 103.0 * 0.5).abs() < 0.01, "{left}");
    }
}
