//! On-demand readahead (mm/readahead.c).
//!
//! A sequential reader's window starts at `get_init_ra_size()` of the request and grows with
//! `get_next_ra_size()` up to the device's `read_ahead_kb`. The page at `start + size -
//! async_size` carries `PG_readahead`; reaching it submits the next window while the reader
//! still consumes the current one. Pages read ahead but reclaimed before they are used are
//! read again, which is the read amplification real kernels show under tight memcg limits.

use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::types::{InodeId, MemcgId, PAGE_SIZE};

/// `struct file_ra_state`, one per open file.
#[derive(Clone, Debug, Default)]
pub struct FileRaState {
    /// `start`: first page of the current window.
    pub start: u32,
    /// `size`: pages in the current window.
    pub size: u32,
    /// `async_size`: pages before the window end at which the next one is started.
    pub async_size: u32,
    /// `ra_pages`: the window limit.
    pub ra_pages: u32,
    /// Last page index read (`prev_pos >> PAGE_SHIFT`).
    pub prev_index: Option<u32>,
    /// `FMODE_RANDOM` (POSIX_FADV_RANDOM): read only what is asked for.
    pub random: bool,
    /// `prev_pos`: the byte after the end of the previous read.
    pub prev_pos: Option<u64>,
    /// `ra->order` (6.16+, [`crate::profile::RaOrder::FileOrder`]): the folio order the
    /// stream's readahead has reached.
    pub order: u32,
}

impl FileRaState {
    /// `file_ra_state_init()`: a new open file with a window limit of `ra_pages`.
    pub fn new(ra_pages: u32) -> Self {
        FileRaState { ra_pages: ra_pages.max(1), ..Default::default() }
    }
}

/// `get_init_ra_size()`.
pub fn get_init_ra_size(size: u32, max: u32) -> u32 {
    let newsize = size.max(1).next_power_of_two();
    if newsize <= max / 32 {
        newsize * 4
    } else if newsize <= max / 4 {
        newsize * 2
    } else {
        max
    }
}

/// `get_next_ra_size()`.
pub fn get_next_ra_size(cur: u32, max: u32) -> u32 {
    if cur < max / 16 {
        4 * cur
    } else if cur <= max / 2 {
        2 * cur
    } else {
        max
    }
}

impl Kernel {
    /// `ractl_max_pages()` (mm/readahead.c, 6.11+; the same test inline in
    /// `ondemand_readahead()` from 4.10, `KernelProfile::ra_io_pages`): the window limit, or,
    /// for a request larger than it, up to the request and the device's optimal I/O size
    /// (`bdi->io_pages`, its `max_sectors_kb` in pages: `disk_update_readahead()`).
    fn ractl_max_pages(&self, ra: &FileRaState, inode: InodeId, req: u32) -> u32 {
        let max = ra.ra_pages;
        if !self.profile.ra_io_pages || req <= max {
            return max;
        }
        let io_pages = match self.inodes[inode.idx()].dev {
            Some(d) => self.devices[d.idx()].io_pages() as u32,
            None => return max,
        };
        if io_pages > max {
            req.min(io_pages)
        } else {
            max
        }
    }

    /// `page_cache_sync_ra()` (`ondemand_readahead()` before 6.11): a read missed at `index`
    /// wanting `req` pages. Before 6.11 a miss at the window's expected marker or at its end
    /// is an asynchronous hit (`KernelProfile::ra_sync_miss_as_hit`). A sequential miss (first
    /// page, or right after the previous read) or an oversize read starts a fresh ramp-up
    /// window there; a random one reads the request, or more when the pages before it are
    /// cached (`try_context_readahead()`).
    pub fn page_cache_sync_ra(&mut self, ra: &mut FileRaState, inode: InodeId, index: u32, req: u32, memcg: MemcgId) {
        let max = self.ractl_max_pages(ra, inode, req);
        if ra.random {
            // force_page_cache_ra() of just the request.
            self.do_page_cache_ra(inode, index, req, 0, memcg);
            return;
        }
        if self.profile.ra_sync_miss_as_hit && index != 0 {
            // ondemand_readahead() before 6.11 (Jan Kara, "readahead: Make sure sync readahead
            // reads needed page"): a miss at the window's expected marker or at its end is
            // taken for an asynchronous hit: the window moves on past the current one and
            // ramps up, so the missed page itself is left to filemap_create_folio() unless it
            // is the new window's start; "readit:" then merges the next window into one the
            // read itself would reach.
            let expected = ra.start.wrapping_add(ra.size).wrapping_sub(ra.async_size);
            if index == expected || index == ra.start.wrapping_add(ra.size) {
                ra.start = ra.start.wrapping_add(ra.size);
                ra.size = ra.size.max(get_next_ra_size(ra.size, max));
                ra.async_size = ra.size;
                self.ra_readit_merge(ra, index, max);
                self.ra_submit(ra, inode, None, memcg);
                return;
            }
        }
        // "sequential cache miss: (index - prev_index) <= 1" (unsigned), prev_index being
        // `ra->prev_pos >> PAGE_SHIFT`: the page of the last byte read before 5.11, the page of
        // the byte after the read from then on (`ra->prev_pos = iocb->ki_pos` in
        // filemap_read()), so that a read right after an aligned one, or one page further,
        // is sequential.
        let prev = if self.profile.ra_prev_pos_after_read { ra.prev_pos.map(|p| (p / PAGE_SIZE) as u32) } else { ra.prev_index };
        let sequential = index == 0 || prev.is_some_and(|p| index.wrapping_sub(p) <= 1);
        // An oversize read (more than the window) starts a window as a sequential one does.
        if !sequential && req <= max {
            // try_context_readahead() (inlined into page_cache_sync_ra() in 6.10): the pages
            // cached just before the miss are the trace a sequential stream leaves; with more
            // of them than the request, read that much again past the miss (twice as much when
            // the file is cached from its start), else read just the request ("standalone,
            // small random read") without touching the window.
            let (contig, from_start) = self.count_history_pages(inode, index, max);
            if contig <= req {
                self.do_page_cache_ra(inode, index, req, 0, memcg);
                return;
            }
            let size = if from_start { contig * 2 } else { contig };
            ra.start = index;
            ra.size = (size + req).min(max);
            ra.async_size = 1;
            self.ra_submit(ra, inode, None, memcg);
            return;
        }
        ra.start = index;
        ra.size = get_init_ra_size(req, max);
        if ra.size > req {
            ra.async_size = ra.size - req;
        } else if self.profile.ra_sync_miss_as_hit {
            // ondemand_readahead() before 6.11: "initial_readahead:" marks the window's
            // first page (async_size = size), and "readit:" merges the next window.
            ra.async_size = ra.size;
            self.ra_readit_merge(ra, index, max);
        } else {
            // page_cache_sync_ra() from 6.11: "ra->size > req_count ? ra->size - req_count :
            // ra->size >> 1".
            ra.async_size = ra.size >> 1;
        }
        self.ra_submit(ra, inode, None, memcg);
    }

    /// "readit:" of `ondemand_readahead()` before 6.11 ("Will this read hit the readahead
    /// marker made by itself?"): a window that starts at the read's own page and is all
    /// asynchronous (`size == async_size`, its `PG_readahead` on the page being read) takes
    /// the next window in at once. From 2.6.31 to 4.19 the next window is added whole
    /// (`ra->async_size = get_next_ra_size(ra, max); ra->size += ra->async_size`; Jens
    /// Axboe's 4.10 io_pages patch kept it); in 6.1's source (and the engine's other
    /// `ra_io_pages` profiles, 5.0 on) within `max_pages`: past it the window is `max_pages`
    /// with its mark half-way (`ra->async_size = max_pages >> 1`). 6.11 dropped the merge
    /// (`page_cache_sync_ra()` sets `ra->size >> 1` itself, the same window for the only
    /// case it met: a read at least as large as its window).
    fn ra_readit_merge(&self, ra: &mut FileRaState, index: u32, max: u32) {
        if index != ra.start || ra.size != ra.async_size {
            return;
        }
        let add = get_next_ra_size(ra.size, max);
        if !self.profile.ra_io_pages {
            ra.async_size = add;
            ra.size += add;
        } else if ra.size + add <= max {
            ra.async_size = add;
            ra.size += add;
        } else {
            ra.size = max;
            ra.async_size = max >> 1;
        }
    }

    /// `readit:` of `ondemand_readahead()` / `page_cache_sync_ra()` / `page_cache_async_ra()`:
    /// read the window `ra` describes. A mapping without large folios takes
    /// `do_page_cache_ra()`, as every order-0 kernel does; one with them goes through
    /// `page_cache_ra_order()`, with the order of the `PG_readahead` folio that triggered
    /// an asynchronous window (`marked`; `None` for a synchronous miss).
    fn ra_submit(&mut self, ra: &mut FileRaState, inode: InodeId, marked: Option<u32>, memcg: MemcgId) {
        if self.mappings[inode.idx()].max_order == 0 {
            if self.profile.large_folios.ra == crate::profile::RaOrder::FileOrder {
                ra.order = 0; // "if (!mapping_large_folio_support(mapping)) { ra->order = 0; goto fallback; }"
            }
            self.do_page_cache_ra(inode, ra.start, ra.size, ra.async_size, memcg);
            return;
        }
        if marked.is_none() && self.profile.large_folios.ra == crate::profile::RaOrder::FileOrder {
            ra.order = 0; // page_cache_sync_ra(): "readit: ra->order = 0;"
        }
        self.page_cache_ra_order(ra, inode, marked, memcg);
    }

    /// `page_cache_ra_order()` (mm/readahead.c) for a mapping with large folios: the window
    /// `ra.start..ra.start + ra.size` in folios of the chosen order, each aligned (a
    /// misaligned index takes the order of its lowest set bit) and within the window and the
    /// file; the folio holding the mark (rounded down to its order, `ra_alloc_folio()`) gets
    /// `PG_readahead`. The order per era ([`crate::profile::RaOrder`]): 5.18-6.15 the marked
    /// folio's order + 2 (0 + 2 on a synchronous miss), nothing below a 4-page window, orders
    /// 1 lowered to 0, the window grown to the last folio's end; 6.16+ `ra->order`, reset to 0
    /// by a synchronous miss and raised by 2 per asynchronous window, no mark in a window
    /// reaching the end of the file. A folio that cannot be added (a page already cached in
    /// its range, no frames, the charge failed) ends the loop; what was added is submitted,
    /// and `do_page_cache_ra()` reads on from there in order-0 pages: a whole window
    /// (5.18-6.15) or what is left of this one (6.16+).
    pub fn page_cache_ra_order(&mut self, ra: &mut FileRaState, inode: InodeId, marked: Option<u32>, memcg: MemcgId) {
        let file_order = self.profile.large_folios.ra == crate::profile::RaOrder::FileOrder;
        let max_order = self.mappings[inode.idx()].max_order as u32;
        let isize = self.inodes[inode.idx()].size;
        if isize == 0 {
            return;
        }
        let start = ra.start;
        let last_page = ((isize - 1) / PAGE_SIZE) as u32;
        if start > last_page {
            return;
        }
        let mut index = start;
        let window_end = start.saturating_add(ra.size.max(1) - 1);
        let (limit, mark, new_order) = if file_order {
            let (limit, mark) = if last_page > window_end { (window_end, Some(start + ra.size - ra.async_size)) } else { (last_page, None) };
            let order = ra.order.min(max_order).min(31 - ra.size.max(1).leading_zeros());
            ra.order = order;
            (limit, mark, order)
        } else {
            if ra.size < 4 {
                self.do_page_cache_ra(inode, ra.start, ra.size, ra.async_size, memcg);
                return;
            }
            let mut order = marked.unwrap_or(0);
            if order < max_order {
                order = (order + 2).min(max_order);
                while (1u32 << order) > ra.size {
                    order -= 1;
                }
            }
            (last_page.min(window_end), Some(start + ra.size - ra.async_size), order)
        };
        // The batch (`ractl->_index`, `_nr_pages`): the folios added so far, [start, index).
        let saved = self.ra_pending.replace((inode, start, start));
        // memalloc_nofs_save() (5.8+) around the allocation loop and read_pages().
        let nofs = self.memalloc_nofs;
        self.memalloc_nofs |= self.profile.readahead_memalloc_nofs;
        let mut failed = false;
        while index <= limit {
            let mut order = new_order;
            if index & ((1u32 << order) - 1) != 0 {
                order = index.trailing_zeros();
                if !file_order && order == 1 {
                    order = 0;
                }
            }
            while order > 0 && index + (1u32 << order) - 1 > limit {
                order -= 1;
                if !file_order && order == 1 {
                    order = 0;
                }
            }
            if !self.ra_alloc_folio(inode, index, mark, order, memcg) {
                failed = true;
                break;
            }
            index += 1 << order;
            self.ra_pending = Some((inode, start, index));
        }
        if !file_order && index > limit {
            ra.size += index - limit - 1;
            ra.async_size += index - limit - 1;
        }
        self.read_pages(inode, start, index - start);
        self.memalloc_nofs = nofs; // memalloc_nofs_restore()
        self.ra_pending = saved;
        if !failed {
            return;
        }
        if file_order {
            // "->readahead() may have updated readahead window size so we have to check
            // there's still something to read."
            if ra.size > index - start {
                self.do_page_cache_ra(inode, index, ra.size - (index - start), ra.async_size, memcg);
            }
        } else {
            // read_pages() moved the control's index to where the loop stopped.
            self.do_page_cache_ra(inode, index, ra.size, ra.async_size, memcg);
        }
    }

    /// `ra_alloc_folio()`: a folio of `order` at `index` with readahead's gfp
    /// (`readahead_gfp_mask()`: the allocation `__GFP_NORETRY`, never an OOM kill; the charge
    /// `__GFP_NORETRY` from 4.8, `KernelProfile::readahead_charge_noretry`),
    /// `PG_readahead` when it starts at `mark` rounded down to its order; false when it
    /// cannot be added.
    fn ra_alloc_folio(&mut self, inode: InodeId, index: u32, mark: Option<u32>, order: u32, memcg: MemcgId) -> bool {
        let page = if order == 0 {
            if self.mappings[inode.idx()].lookup(index).is_some() {
                return false; // -EEXIST
            }
            match self.filemap_add_folio_readahead(inode, index, memcg) {
                Ok(p) => p,
                Err(_) => return false,
            }
        } else {
            match self.filemap_add_large_folio(inode, index, order, memcg, !self.profile.readahead_charge_noretry) {
                Ok(p) => p,
                Err(_) => return false,
            }
        };
        if mark.is_some_and(|m| m & !((1u32 << order) - 1) == index) {
            self.pages[page].flags |= pg::READAHEAD;
        }
        true
    }

    /// `count_history_pages()` (`page_cache_prev_miss()` from `index - 1`, at most `max`
    /// entries back): (pages cached contiguously just before `index`, whether they reach the
    /// start of the file). A shadow entry is a miss.
    pub fn count_history_pages(&self, inode: InodeId, index: u32, max: u32) -> (u32, bool) {
        let m = &self.mappings[inode.idx()];
        let mut n = 0;
        while n < max && n < index {
            if m.lookup(index - 1 - n).is_none() {
                return (n, false);
            }
            n += 1;
        }
        (n, n == index)
    }

    /// `page_cache_async_ra()`: the reader reached the `PG_readahead` page at `index`; push
    /// the window forward and grow it.
    pub fn page_cache_async_ra(&mut self, ra: &mut FileRaState, inode: InodeId, index: u32, req: u32, memcg: MemcgId) {
        self.page_cache_async_ra_folio(ra, inode, index, 0, req, memcg)
    }

    /// `page_cache_async_ra()` for a `PG_readahead` folio of `order` at `index` (its first
    /// page): the expected index is the mark rounded down to the folio's order; 6.16+ also
    /// raises `ra->order` by 2 and rounds the window's end down to that order's alignment
    /// (at most `ffs(ra_pages) - 1`).
    pub fn page_cache_async_ra_folio(&mut self, ra: &mut FileRaState, inode: InodeId, index: u32, order: u32, req: u32, memcg: MemcgId) {
        let max = self.ractl_max_pages(ra, inode, req);
        let large = self.mappings[inode.idx()].max_order > 0;
        let file_order = large && self.profile.large_folios.ra == crate::profile::RaOrder::FileOrder;
        let expected = ra.start.wrapping_add(ra.size).wrapping_sub(ra.async_size) & !((1u32 << order) - 1);
        if index == expected || (!file_order && index == ra.start + ra.size) {
            ra.start += ra.size;
            // "In the case of MADV_HUGEPAGE, the actual size might exceed the readahead
            // window": from 5.18 the window keeps its size when the ramp-up would shrink it
            // (a window larger than this read's limit, e.g. a large read's `io_pages` window
            // followed by a hit with a smaller request; `KernelProfile::ra_keep_larger_window`).
            let next = get_next_ra_size(ra.size, max);
            ra.size = if self.profile.ra_keep_larger_window { ra.size.max(next) } else { next };
        } else {
            // "Hit a marked folio without valid readahead state" (interleaved or random
            // reads): the window starts at the first page missing after the marker
            // (`page_cache_next_miss()`, at most `max` on), and its old size is taken to be
            // the distance to it, plus the request; none if the cached run is longer.
            let m = &self.mappings[inode.idx()];
            let mut start = index + 1;
            while start - index <= max && m.lookup(start).is_some() {
                start += 1;
            }
            if start - index > max {
                return;
            }
            ra.start = start;
            ra.size = get_next_ra_size(start - index + req, max);
        }
        if file_order {
            ra.order += 2;
            let align = 1u32 << ra.order.min(max.trailing_zeros());
            let end = ra.start + ra.size;
            let aligned_end = end & !(align - 1);
            if aligned_end > ra.start {
                ra.size -= end - aligned_end;
            }
        }
        ra.async_size = ra.size;
        if self.profile.ra_sync_miss_as_hit {
            // ondemand_readahead() before 6.11: a hit at the window's end starts the next
            // window at the marked page itself, which "readit:" merges.
            self.ra_readit_merge(ra, index, max);
        }
        if large {
            self.ra_submit(ra, inode, Some(order), memcg);
        } else {
            self.do_page_cache_ra(inode, ra.start, ra.size, ra.async_size, memcg);
        }
    }

    /// `do_page_cache_ra()` + `page_cache_ra_unbounded()`: add the missing pages of
    /// `index..index+nr` (clamped to the file), mark the page `lookahead` before the end with
    /// `PG_readahead`, and submit each contiguous run of new pages (`read_pages()`).
    /// The charge is `__GFP_NORETRY` from 4.8 (`readahead_gfp_mask()`,
    /// `KernelProfile::readahead_charge_noretry`; before, `read_pages()` charges with
    /// `GFP_KERNEL`, which reclaims and retries): a charge that fails ends the batch from 6.10
    /// (`KernelProfile::ra_enomem_stops`); before, the loop goes on with the next page. The
    /// page allocation is `__GFP_NORETRY` in every era ([`crate::page_alloc::Gfp::readahead`]):
    /// one direct reclaim round, no OOM kill; its failure ends the batch (`if (!folio)
    /// break;`), and the read or fault that wanted the page allocates it itself
    /// (`filemap_create_folio()`, `__filemap_get_folio(FGP_CREAT)`) with the mapping's gfp.
    /// The loop runs inside `memalloc_nofs_save()` from 5.8
    /// (`KernelProfile::readahead_memalloc_nofs`, [`Kernel::memalloc_nofs`]).
    pub fn do_page_cache_ra(&mut self, inode: InodeId, index: u32, nr: u32, lookahead: u32, memcg: MemcgId) {
        let size = self.inodes[inode.idx()].size;
        if size == 0 {
            return;
        }
        let last_page = ((size - 1) / PAGE_SIZE) as u32;
        if index > last_page {
            return;
        }
        let end = index.saturating_add(nr).min(last_page + 1);
        let mark = (index + nr).saturating_sub(lookahead);
        // The batch's pages are locked from when they are added until their read completes:
        // the batch is `ractl->_index` .. `+ _nr_pages` (the run added and not yet submitted,
        // `run_start..run_start + run_len`), never a folio the window found in the cache
        // (page_cache_ra_unbounded() submits the batch and steps over it, unlocked).
        let saved = self.ra_pending.replace((inode, index, index));
        // page_cache_ra_unbounded()'s memalloc_nofs_save() (5.8+): the reclaim its
        // allocations and charges enter has no __GFP_FS.
        let nofs = self.memalloc_nofs;
        self.memalloc_nofs |= self.profile.readahead_memalloc_nofs;
        let mut run_start = index;
        let mut run_len = 0u32;
        for i in index..end {
            if self.mappings[inode.idx()].lookup(i).is_some() {
                self.read_pages(inode, run_start, run_len);
                run_start = i + 1;
                run_len = 0;
                continue;
            }
            match self.filemap_add_folio_readahead_inline(inode, i, memcg) {
                Ok(p) => {
                    if i == mark && lookahead > 0 {
                        self.pages[p].flags |= pg::READAHEAD;
                    }
                    run_len += 1;
                    self.ra_pending = Some((inode, run_start, run_start + run_len));
                }
                Err(crate::filemap::IoError::Oom) if self.nr_free_pages() > 0 && !self.profile.ra_enomem_stops => {
                    // The memcg charge failed: before 6.10 submit what is
                    // batched and go on with the next page, as page_cache_ra_unbounded() did
                    // when filemap_add_folio() failed; 6.10+ stops there (the `break` below,
                    // `KernelProfile::ra_enomem_stops`).
                    self.read_pages(inode, run_start, run_len);
                    run_start = i + 1;
                    run_len = 0;
                }
                Err(_) => break,
            }
        }
        self.read_pages(inode, run_start, run_len);
        self.memalloc_nofs = nofs; // memalloc_nofs_restore()
        self.ra_pending = saved;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_sizes_follow_mm_readahead() {
        // read_ahead_kb = 128 (32 pages), cat's 128 KiB requests (32 pages).
        assert_eq!(get_init_ra_size(32, 32), 32);
        assert_eq!(get_next_ra_size(32, 32), 32);
        // read_ahead_kb = 8192 (2048 pages): 32 -> 128 -> 256 -> ... -> 2048.
        assert_eq!(get_init_ra_size(32, 2048), 128);
        assert_eq!(get_next_ra_size(128, 2048), 256);
        assert_eq!(get_next_ra_size(1024, 2048), 2048);
        assert_eq!(get_next_ra_size(2048, 2048), 2048);
        // Small requests get 4x, medium 2x.
        assert_eq!(get_init_ra_size(1, 2048), 4);
        assert_eq!(get_init_ra_size(300, 2048), 1024);
        assert_eq!(get_next_ra_size(4, 2048), 16);
    }
}
