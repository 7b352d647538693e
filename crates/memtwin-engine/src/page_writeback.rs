//! Dirty pages and writeback (mm/page-writeback.c, fs/fs-writeback.c).
//!
//! Dirty pages are written back by the flusher when the machine's dirty pages pass
//! `dirty_background_ratio` of dirtyable memory, when reclaim meets them, and on fsync. A
//! writer is throttled in `balance_dirty_pages()` above `dirty_ratio` until the device has
//! caught up. A page being written is clean and `PG_writeback` until its request completes
//! on the device (`folio_end_writeback()`, run by [`Kernel::writeback_end_io`] whenever the
//! clock has passed the completion); reclaim cannot free it until then.

use crate::blkdev::Dir;
use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::types::{InodeId, PageId, PAGE_SIZE};
use crate::vmstat::VmEvent;

impl Kernel {
    /// `folio_mark_dirty()`: set `PG_dirty`, account it, and queue the inode for writeback.
    pub fn folio_mark_dirty(&mut self, page: PageId) {
        if self.pages[page].test(pg::DIRTY) {
            return;
        }
        self.cpu(self.cost.dirty_page);
        self.pages[page].flags |= pg::DIRTY;
        let inode = self.pages[page].mapping;
        let index = self.pages[page].index;
        let m = &mut self.mappings[inode.idx()];
        m.dirty_hint = m.dirty_hint.min(index);
        if m.nrdirty == 0 && !self.dirty_inodes.contains(&inode) {
            self.dirty_inodes.push(inode);
        }
        m.nrdirty += 1;
        self.vmstat.nr_dirty += 1;
        let memcg = self.pages[page].memcg;
        if memcg != crate::types::MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_dirty += 1;
        }
    }

    /// `global_dirtyable_memory()`: free pages plus page-cache pages.
    pub fn global_dirtyable_memory(&self) -> u64 {
        self.nr_free_pages() + self.nr_file_pages()
    }

    /// `balance_dirty_pages()`: start background writeback above the background threshold;
    /// above the hard threshold, write back and wait for the device.
    /// Throttled while dirty plus writeback pages are above the hard threshold, the writer
    /// waits for writeback to complete.
    pub fn balance_dirty_pages(&mut self) {
        let dirtyable = self.global_dirtyable_memory();
        let bg = dirtyable * self.profile.dirty_background_ratio as u64 / 100;
        let thresh = dirtyable * self.profile.dirty_ratio as u64 / 100;
        let dirty = self.vmstat.nr_dirty;
        if dirty > bg {
            self.writeback_dirty(dirty - bg / 2);
        }
        while self.vmstat.nr_dirty + self.vmstat.nr_writeback > thresh {
            let Some(&std::cmp::Reverse((t, _, _, _))) = self.wb_queue.peek() else { break };
            self.wait_until(t);
            self.writeback_end_io();
        }
    }

    /// `folio_end_writeback()` for every write request that has completed by now: the pages
    /// leave `PG_writeback`, and those reclaim or a DONTNEED met while they were dirty or
    /// under writeback (`PG_reclaim`) go to the tail of the inactive list, to be reclaimed next
    /// (`folio_rotate_reclaimable()`, mm/swap.c; v4.12+ also takes them off the active list,
    /// where v4.12+ reclaim puts dirty pages).
    pub fn writeback_end_io(&mut self) {
        while let Some(&std::cmp::Reverse((done, inode, start, n))) = self.wb_queue.peek() {
            if done > self.now {
                break;
            }
            self.wb_queue.pop();
            for i in start..start + n {
                let Some(p) = self.mappings[inode as usize].lookup(i) else { continue };
                if !self.pages[p].test(pg::WRITEBACK) || self.wb_done[p.idx()] != done {
                    continue; // rewritten since, by a later request
                }
                self.pages[p].flags &= !pg::WRITEBACK;
                self.vmstat.nr_writeback -= 1;
                if self.pages[p].test(pg::RECLAIM) && self.pages[p].test(pg::LRU) && !self.pages[p].test(pg::SWAPBACKED) && !self.pages[p].test(pg::DIRTY) {
                    self.folio_rotate_reclaimable(p, crate::mmzone::LruList::InactiveFile);
                }
                self.pages[p].flags &= !pg::RECLAIM;
            }
        }
    }

    /// `wakeup_flusher_threads()`: reclaim met dirty pages; write back the oldest dirty
    /// inodes (one reclaim batch worth) without waiting.
    pub fn wakeup_flusher_threads(&mut self) {
        self.writeback_dirty(crate::vmscan::SWAP_CLUSTER_MAX * 32);
    }

    /// `wb_writeback()`: write back up to `nr` dirty pages, oldest inode first. Returns the
    /// completion time of the last request (0 if nothing was written).
    pub fn writeback_dirty(&mut self, nr: u64) -> u64 {
        let mut left = nr;
        let mut last_done = 0;
        while left > 0 && !self.dirty_inodes.is_empty() {
            let inode = self.dirty_inodes[0];
            let (written, done) = self.writeback_inode(inode, left);
            last_done = last_done.max(done);
            left = left.saturating_sub(written);
            if self.mappings[inode.idx()].nrdirty == 0 {
                self.dirty_inodes.retain(|&i| i != inode);
            } else if written == 0 {
                break;
            }
        }
        last_done
    }

    /// `do_writepages()` for one inode: write back up to `nr` dirty pages in index order, each
    /// contiguous run as one request. Returns (pages written, completion time).
    pub fn writeback_inode(&mut self, inode: InodeId, nr: u64) -> (u64, u64) {
        self.writeback_range(inode, 0, u32::MAX, nr)
    }

    /// `__filemap_fdatawrite_range()` (`do_writepages()` with `wbc->range_start/range_end`):
    /// write back up to `nr` dirty pages of `first..=last` in index order, each contiguous run
    /// as one request. Returns (pages written, completion time).
    pub fn writeback_range(&mut self, inode: InodeId, first: u32, last: u32, nr: u64) -> (u64, u64) {
        let mut written = 0;
        let mut done = 0;
        let extent = self.mappings[inode.idx()].extent.min(u32::MAX as u64) as u32;
        let len = extent.min(last.saturating_add(1));
        let mut run: Option<(u32, u32)> = None;
        // Pages below the dirty hint are clean: the tagged lookup skips them.
        let hint = self.mappings[inode.idx()].dirty_hint;
        let mut i = first.max(hint);
        while i <= len && written < nr {
            let dirty_page = if i < len {
                self.mappings[inode.idx()].lookup(i).filter(|&p| self.pages[p].test(pg::DIRTY))
            } else {
                None
            };
            match (dirty_page, run) {
                (Some(p), _) => {
                    self.clear_dirty_for_io(p);
                    self.folio_start_writeback(p);
                    written += 1;
                    run = Some(match run {
                        Some((s, n)) => (s, n + 1),
                        None => (i, 1),
                    });
                }
                (None, Some((s, n))) => {
                    done = done.max(self.submit_write(inode, s, n));
                    run = None;
                }
                (None, None) if i < len => {
                    // Skip the empty ranges: only an entry can be a dirty page.
                    i = self.mappings[inode.idx()].next_entry(i + 1, len - 1).unwrap_or(len);
                    continue;
                }
                (None, None) => {}
            }
            i += 1;
        }
        if let Some((s, n)) = run {
            done = done.max(self.submit_write(inode, s, n));
        }
        if first <= hint {
            // Everything from the hint up to where the scan stopped is clean now.
            let m = &mut self.mappings[inode.idx()];
            m.dirty_hint = m.dirty_hint.max(i.min(len));
        }
        (written, done)
    }

    /// `folio_start_writeback()`: the page is under writeback until its request completes.
    fn folio_start_writeback(&mut self, p: PageId) {
        if !self.pages[p].test(pg::WRITEBACK) {
            self.pages[p].flags |= pg::WRITEBACK;
            self.vmstat.nr_writeback += 1;
        }
    }

    /// `folio_clear_dirty_for_io()`: the page is clean from the moment its write is issued.
    fn clear_dirty_for_io(&mut self, p: PageId) {
        self.pages[p].flags &= !pg::DIRTY;
        let inode = self.pages[p].mapping;
        self.mappings[inode.idx()].nrdirty -= 1;
        self.vmstat.nr_dirty -= 1;
        let memcg = self.pages[p].memcg;
        if memcg != crate::types::MemcgId::NONE {
            self.memcgs.memcgs[memcg.idx()].nr_dirty -= 1;
        }
    }

    fn submit_write(&mut self, inode: InodeId, start: u32, n: u32) -> u64 {
        self.cpu(self.cost.submit_io);
        let (dev, base) = (self.inodes[inode.idx()].dev, self.inodes[inode.idx()].disk_base);
        let dev = dev.expect("shmem pages are never dirty-tracked");
        let done = self.devices[dev.idx()].submit(Dir::Write, base + start as u64, n as u64, self.now);
        for i in start..start + n {
            if let Some(p) = self.mappings[inode.idx()].lookup(i) {
                if p.idx() >= self.wb_done.len() {
                    self.wb_done.resize(self.pages.len().max(p.idx() + 1), 0);
                }
                self.wb_done[p.idx()] = done;
            }
        }
        self.wb_queue.push(std::cmp::Reverse((done, inode.0, start, n)));
        self.vmstat.count(VmEvent::Pgpgout, n as u64 * PAGE_SIZE / 1024);
        self.io.write_bytes += n as u64 * PAGE_SIZE;
        done
    }

    /// `vfs_fsync()`: write back every dirty page of `inode` and wait for the device.
    pub fn vfs_fsync(&mut self, inode: InodeId) {
        self.cpu(self.cost.syscall);
        let (_, done) = self.writeback_inode(inode, u64::MAX);
        self.dirty_inodes.retain(|&i| self.mappings[i.idx()].nrdirty > 0);
        self.wait_until(done);
        self.writeback_end_io();
    }
}
