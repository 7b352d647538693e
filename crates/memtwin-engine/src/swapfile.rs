//! Swap: the swap area (mm/swapfile.c), swap-out of anonymous pages by reclaim
//! (mm/vmscan.c `shrink_folio_list()` -> `add_to_swap()` -> `pageout()`, mm/page_io.c
//! `swap_writepage()`), and swap-in at fault (mm/memory.c `do_swap_page()`).
//!
//! A swap area is a range of slots on a block device. Reclaim gives an inactive anonymous page
//! (or a whole huge page: THP swap-out, 4.13+) slots, writes it out and marks it
//! `PG_writeback` + `PG_reclaim`; when the write completes the page is rotated to the inactive
//! tail (`folio_end_writeback()`), and the next reclaim pass finds it clean in the swap cache
//! and frees it, leaving the slot in its VMA's page table. A later touch reads it back (one
//! page per fault; swap readahead, `page-cluster`, is not modelled) and frees the slot.

use crate::blkdev::Dir;
use crate::kernel::Kernel;
use crate::memory::VmaId;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::page_alloc::PAGEBLOCK_NR;
use crate::types::{DevId, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

/// No swap slot (`swp_entry_t` of 0 in a page table).
pub const NO_SLOT: u32 = u32::MAX;

/// `struct swap_info_struct`.
#[derive(Clone, Debug)]
pub struct SwapArea {
    /// The device holding the area.
    pub dev: DevId,
    /// First device page of the area.
    pub base: u64,
    /// Slots (pages) in the area.
    pub pages: u64,
    /// Slots in use (`inuse_pages`).
    pub inuse: u64,
    /// Free slots, reused last-freed first; slots never used yet start at `next`.
    free: Vec<u32>,
    next: u32,
}

impl SwapArea {
    /// An area of `pages` slots at device page `base` of `dev` (`swapon`).
    pub fn new(dev: DevId, base: u64, pages: u64) -> SwapArea {
        SwapArea { dev, base, pages, inuse: 0, free: vec![], next: 0 }
    }

    /// `get_swap_pages()`: `n` contiguous slots for a huge page, or one; `None` when full.
    fn alloc(&mut self, n: u64) -> Option<u32> {
        if self.inuse + n > self.pages {
            return None;
        }
        if n == 1 {
            if let Some(s) = self.free.pop() {
                self.inuse += 1;
                return Some(s);
            }
        }
        if self.next as u64 + n > self.pages {
            return None; // a cluster of n contiguous free slots is not looked for in holes
        }
        let s = self.next;
        self.next += n as u32;
        self.inuse += n;
        Some(s)
    }

    /// `swap_free()`.
    fn free(&mut self, slot: u32) {
        self.inuse -= 1;
        self.free.push(slot);
    }
}

impl Kernel {
    /// Whether reclaim may swap: a swap area with free slots (`get_nr_swap_pages() > 0`).
    #[inline]
    pub fn can_swap(&self) -> bool {
        self.swap.as_ref().is_some_and(|s| s.inuse < s.pages)
    }

    /// `add_to_swap()` + `pageout()` of the anonymous page (or huge page) `p`: give it swap
    /// slots and write it out. Returns false when the swap area is full (the page stays).
    pub fn swap_writepage(&mut self, p: PageId) -> bool {
        let nr = if self.pages[p].test(pg::HEAD) { PAGEBLOCK_NR } else { 1 };
        let Some(area) = self.swap.as_mut() else { return false };
        let Some(slot) = area.alloc(nr) else { return false };
        let (dev, base) = (area.dev, area.base);
        let (vma, index) = (self.pages[p].mapping.0 as usize, self.pages[p].index as usize);
        let v = &mut self.vmas[vma];
        if v.swap.len() < v.pages.len() {
            v.swap.resize(v.pages.len(), NO_SLOT);
        }
        for i in 0..nr as usize {
            v.swap[index + i] = slot + i as u32;
        }
        self.cpu(self.cost.submit_io);
        // pageout() -> swap_writepage(): a WB_SYNC_NONE write, an async request.
        self.blk_get_request(dev.idx(), crate::blkdev::RqClass::Async, base + slot as u64, nr);
        let done = self.devices[dev.idx()].submit(Dir::Write, base + slot as u64, nr, self.now);
        self.io.write_bytes += nr * PAGE_SIZE;
        self.vmstat.count(VmEvent::Pswpout, nr);
        self.vmstat.count(VmEvent::Pgpgout, nr * PAGE_SIZE / 1024);
        let pg_ = &mut self.pages[p];
        pg_.flags |= pg::SWAPCACHE | pg::WRITEBACK | pg::RECLAIM;
        self.vmstat.nr_writeback += 1;
        if p.idx() >= self.wb_done.len() {
            self.wb_done.resize(self.pages.len().max(p.idx() + 1), 0);
        }
        self.wb_done[p.idx()] = done;
        self.swap_wb_queue.push(std::cmp::Reverse((done, p.0)));
        true
    }

    /// `folio_end_writeback()` of swap writes completed by now: the page leaves
    /// `PG_writeback` and, marked for immediate reclaim, goes to the inactive anon tail.
    pub fn swap_end_io(&mut self) {
        while let Some(&std::cmp::Reverse((done, p))) = self.swap_wb_queue.peek() {
            if done > self.now {
                break;
            }
            self.swap_wb_queue.pop();
            let p = PageId(p);
            let page = self.pages[p];
            if !page.test(pg::ANON) || !page.test(pg::WRITEBACK) || !page.test(pg::SWAPCACHE) || self.wb_done[p.idx()] != done {
                continue; // unmapped and freed meanwhile
            }
            self.pages[p].flags &= !pg::WRITEBACK;
            self.vmstat.nr_writeback -= 1;
            if page.test(pg::RECLAIM) && page.test(pg::LRU) {
                self.folio_rotate_reclaimable(p, LruList::InactiveAnon);
            }
        }
    }

    /// `__remove_mapping()` of a clean swap-cache page: unmap it (the page table keeps the
    /// slot), uncharge and free it. Returns the pages freed.
    pub fn free_swapped_page(&mut self, p: PageId) -> u64 {
        let (vma, index) = (self.pages[p].mapping.0 as usize, self.pages[p].index as usize);
        let memcg = self.pages[p].memcg;
        let huge = self.pages[p].test(pg::HEAD);
        let nr = if huge { PAGEBLOCK_NR } else { 1 };
        self.cpu(self.cost.evict_page);
        for i in 0..nr as usize {
            self.vmas[vma].pages[index + i] = PageId::NIL;
        }
        self.vmas[vma].nr_resident -= nr;
        if huge {
            self.free_pageblock(p);
        } else {
            self.free_page(p);
        }
        self.uncharge_anon(memcg, nr, 1);
        nr
    }

    /// `do_swap_page()`: page `index` of `vma` was swapped out; read it back from its slot,
    /// waiting for the device, map a fresh page and free the slot. Returns the frame, or
    /// `None` when no memory could be had.
    pub fn do_swap_page(&mut self, vma: VmaId, index: u32, nid: u32) -> Option<PageId> {
        let slot = self.vmas[vma.0 as usize].swap[index as usize];
        let area = self.swap.as_ref().expect("a slot implies a swap area");
        let (dev, base) = (area.dev, area.base);
        self.cpu(self.cost.anon_fault);
        let pfn = self.alloc_pages(0, crate::page_alloc::Gfp::node(nid))?;
        let memcg = self.vmas[vma.0 as usize].memcg;
        if self.try_charge_memcg(memcg, 1, true).is_err() {
            let z = self.zone_of(pfn);
            self.zones[z].free_order0(pfn.0 as u64);
            return None;
        }
        self.cpu(self.cost.submit_io);
        self.blk_get_request(dev.idx(), crate::blkdev::RqClass::Sync, base + slot as u64, 1);
        let done = self.devices[dev.idx()].submit(Dir::Read, base + slot as u64, 1, self.now);
        // swap_readpage(): the fault waits for the read (delayacct_swapin_start()).
        self.stalled(crate::delayacct::StallKind::Swapin, |k| k.wait_until(done));
        self.io.read_bytes += PAGE_SIZE;
        self.vmstat.count(VmEvent::Pswpin, 1);
        self.vmstat.count(VmEvent::Pgpgin, PAGE_SIZE / 1024);
        self.pages.init(pfn, crate::types::InodeId(vma.0), index);
        let p = &mut self.pages[pfn];
        p.memcg = memcg;
        p.flags |= pg::ANON | pg::SWAPBACKED | pg::ACTIVE;
        let v = &mut self.vmas[vma.0 as usize];
        v.pages[index as usize] = pfn;
        v.swap[index as usize] = NO_SLOT;
        v.nr_resident += 1;
        self.swap.as_mut().expect("swap area").free(slot);
        self.memcgs.memcgs[memcg.idx()].nr_anon += 1;
        self.vmstat.nr_anon_pages += 1;
        let lv = self.folio_lruvec(pfn);
        self.lruvecs[lv].add(&mut self.pages, pfn, LruList::ActiveAnon);
        Some(pfn)
    }

    /// `free_swap_and_cache()` of every slot a VMA still holds (munmap).
    pub fn free_vma_swap(&mut self, vma: VmaId) {
        let slots = std::mem::take(&mut self.vmas[vma.0 as usize].swap);
        if let Some(area) = self.swap.as_mut() {
            for &s in &slots {
                if s != NO_SLOT {
                    area.free(s);
                }
            }
        }
        let mut slots = slots;
        slots.clear();
        self.vmas[vma.0 as usize].swap = slots;
    }

    /// The swap area's size and use, in pages: (total, in use).
    pub fn swap_usage(&self) -> (u64, u64) {
        self.swap.as_ref().map(|s| (s.pages, s.inuse)).unwrap_or((0, 0))
    }
}
