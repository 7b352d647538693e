//! The page allocator of one zone: free pages, watermarks, kswapd wake-up and direct reclaim
//! (mm/page_alloc.c). Zones, nodes and the buddy free lists come with the allocator issue.

use crate::kernel::Kernel;
use crate::profile::KernelProfile;
use crate::types::{int_sqrt, InodeId, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

/// `struct zone`, reduced to counters.
#[derive(Clone, Debug)]
pub struct Zone {
    /// `managed_pages`: RAM the allocator hands out.
    pub managed: u64,
    /// `NR_FREE_PAGES`.
    pub free: u64,
    /// `WMARK_MIN`.
    pub wmark_min: u64,
    /// `WMARK_LOW`.
    pub wmark_low: u64,
    /// `WMARK_HIGH`.
    pub wmark_high: u64,
    /// `min_free_kbytes` the watermarks were derived from.
    pub min_free_kbytes: u64,
}

impl Zone {
    /// A zone of `managed` pages with watermarks set as `setup_per_zone_wmarks()` does.
    pub fn new(managed: u64, profile: &KernelProfile) -> Zone {
        let mut z = Zone { managed, free: managed, wmark_min: 0, wmark_low: 0, wmark_high: 0, min_free_kbytes: 0 };
        z.setup_per_zone_wmarks(profile);
        z
    }

    /// `init_per_zone_wmark_min()` + `setup_per_zone_wmarks()`: min_free_kbytes =
    /// int_sqrt(lowmem_kbytes * 16) clamped to [128, 65536]; low and high are min plus one or
    /// two steps of max(min/4, managed * watermark_scale_factor / 10000) since v4.6, and
    /// 5/4 and 3/2 of min before.
    pub fn setup_per_zone_wmarks(&mut self, profile: &KernelProfile) {
        let lowmem_kb = self.managed * PAGE_SIZE / 1024;
        let min_free_kbytes = int_sqrt(lowmem_kb * 16).clamp(128, 65536);
        self.min_free_kbytes = min_free_kbytes;
        let min = min_free_kbytes * 1024 / PAGE_SIZE;
        self.wmark_min = min;
        match profile.watermark_scale_factor {
            Some(wsf) => {
                let step = (min / 4).max(self.managed * wsf as u64 / 10_000);
                self.wmark_low = min + step;
                self.wmark_high = min + 2 * step;
            }
            None => {
                self.wmark_low = min + min / 4;
                self.wmark_high = min + min / 2;
            }
        }
    }
}

impl Kernel {
    /// `__alloc_pages()` of one order-0 page for the page cache of `mapping` at `index`.
    /// Wakes kswapd when the zone falls below the low watermark and enters direct reclaim
    /// below min; returns `None` when reclaim cannot free anything (the global OOM path).
    pub fn alloc_page(&mut self, mapping: InodeId, index: u32) -> Option<PageId> {
        if self.zone.free <= self.zone.wmark_low {
            self.wakeup_kswapd();
        }
        let mut tries = 0;
        while self.zone.free <= self.zone.wmark_min {
            if tries > self.profile.max_reclaim_retries {
                self.vmstat.count(VmEvent::OomKill, 1);
                return None;
            }
            self.vmstat.count(VmEvent::Allocstall, 1);
            let reclaimed = self.try_to_free_pages(32);
            if reclaimed == 0 {
                tries += 1;
            }
        }
        self.zone.free -= 1;
        self.vmstat.count(VmEvent::Pgalloc, 1);
        Some(self.pages.alloc(mapping, index))
    }

    /// `free_unref_folios()`: give a page frame back to the zone.
    pub fn free_page(&mut self, page: PageId) {
        self.pages.free(page);
        self.zone.free += 1;
        self.vmstat.count(VmEvent::Pgfree, 1);
    }

    /// `wakeup_kswapd()` + `balance_pgdat()`: kswapd reclaims until the zone is above its high
    /// watermark. The engine runs kswapd at once, on its own CPU time: the allocating task is
    /// not charged for it.
    pub fn wakeup_kswapd(&mut self) {
        if self.in_kswapd {
            return;
        }
        self.in_kswapd = true;
        self.vmstat.count(VmEvent::KswapdWakeup, 1);
        let (now, sys) = (self.now, self.sys_ns);
        let mut stalls = 0;
        while self.zone.free < self.zone.wmark_high && stalls < 2 {
            let want = self.zone.wmark_high - self.zone.free;
            if self.shrink_node_global(want.max(32), true) == 0 {
                stalls += 1;
            }
        }
        self.kswapd_ns += self.sys_ns - sys;
        self.now = now;
        self.sys_ns = sys;
        self.in_kswapd = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::profile;

    #[test]
    fn watermarks_follow_the_kernel_formula() {
        // 16 GiB: lowmem_kb = 16777216; int_sqrt(16777216*16) = 16384 kB -> 4096 pages.
        let z = Zone::new(16 << 18, &profile("linux-6.6").unwrap());
        assert_eq!(z.min_free_kbytes, 16384);
        assert_eq!(z.wmark_min, 4096);
        let step = (4096u64 / 4).max((16u64 << 18) * 10 / 10_000);
        assert_eq!(z.wmark_low, 4096 + step);
        assert_eq!(z.wmark_high, 4096 + 2 * step);
        let old = Zone::new(16 << 18, &profile("linux-4.4").unwrap());
        assert_eq!(old.wmark_low, 4096 + 1024);
        assert_eq!(old.wmark_high, 4096 + 2048);
        // Tiny machines clamp at 128 kB, huge ones at 65536 kB.
        assert_eq!(Zone::new(100, &profile("linux-6.6").unwrap()).min_free_kbytes, 128);
        assert_eq!(Zone::new(1000, &profile("linux-6.6").unwrap()).min_free_kbytes, 252);
        assert_eq!(Zone::new(1 << 30, &profile("linux-6.6").unwrap()).min_free_kbytes, 65536);
    }
}
