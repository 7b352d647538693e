//! Truncation of a file's page cache (mm/truncate.c).

use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::filemap::{Slot, XA_CHUNK_SHIFT};
use crate::types::{InodeId, MemcgId, PageId};

impl Kernel {
    /// `truncate_inode_pages()` (as `open(O_TRUNC)` → `do_truncate()` → `truncate_pagecache()`
    /// does it to size 0): every page of the file leaves the page cache, dirty or not, and its
    /// shadow entries go too. A page under read I/O or writeback is waited for first
    /// (`folio_wait_locked()`, `folio_wait_writeback()`); dirty pages are cancelled, not
    /// written (`folio_cancel_dirty()`). Returns the pages dropped.
    pub fn truncate_inode_pages(&mut self, inode: InodeId) -> u64 {
        let mut dropped = 0;
        let mut from = Some(0u32);
        while let Some(i) = from.and_then(|f| self.mappings[inode.idx()].next_entry(f, u32::MAX)) {
            from = i.checked_add(1);
            let slot = self.mappings[inode.idx()].slot(i);
            if slot.as_shadow().is_some() {
                self.clear_shadow_entry(inode, i);
                continue;
            }
            let Some(p) = slot.as_page() else { continue };
            self.cpu(self.cost.scan_page);
            self.folio_wait_locked(p);
            if self.pages[p].test(pg::WRITEBACK) {
                // folio_wait_writeback(): until the request that carries it completes.
                let done = self.wb_done[p.idx()];
                self.wait_until(done);
                self.writeback_end_io();
            }
            // filemap_remove_folio() accounts a dirty page as cleaned (folio_cancel_dirty()).
            // The whole file goes: a large folio (met at its head) goes whole.
            dropped += self.pages.folio_nr_pages(p);
            self.delete_from_page_cache(p);
        }
        // shmem_undo_range(): a tmpfs file's swap entries go too (shmem_free_swap(), shmem.rs).
        self.shmem_free_swap_all(inode);
        dropped
    }

    /// `delete_from_page_cache()` + `filemap_free_folio()` outside reclaim (invalidation,
    /// truncation): take `p` off its LRU and out of its mapping without a shadow entry,
    /// uncharge and free it; a large folio's head takes the whole folio.
    pub fn delete_from_page_cache(&mut self, p: PageId) {
        let v = self.folio_lruvec(p);
        if self.pages[p].test(pg::LRU) {
            self.lruvecs[v].del(&mut self.pages, &mut self.lru_stats, p);
        } else {
            // still in a CPU's lru_add batch: its slot emptied
            self.folio_unbatch(p);
        }
        self.cpu(self.cost.evict_page);
        if self.pages[p].test(pg::HEAD) {
            let nr = self.pages.folio_nr_pages(p);
            self.filemap_remove_large_folio(p, None);
            self.mem_cgroup_uncharge_folio(p);
            self.free_folio(p, nr);
            return;
        }
        self.filemap_remove_folio(p, None);
        self.mem_cgroup_uncharge(p);
        self.free_page(p);
    }

    /// `clear_shadow_entries()` for one slot: forget the shadow entry at `index` of `inode`.
    pub fn clear_shadow_entry(&mut self, inode: InodeId, index: u32) {
        let m = &mut self.mappings[inode.idx()];
        m.replace_slot(index, Slot::EMPTY);
        m.nrshadows -= 1;
        let node = m.node_mut(index >> XA_CHUNK_SHIFT).expect("a shadow entry's range has its node");
        node.shadows -= 1;
        let memcg = node.owner;
        if node.multi != 0 {
            // A slot of a multi-index shadow (5.17+): the kernel's xas_store(NULL) clears the
            // entry's every slot at once (its siblings with it); the engine's callers clear a
            // range slot by slot, so the shift-6 node's slot goes with the chunk's last one.
            if node.shadows == 0 {
                node.multi = 0;
                let chunk = index >> XA_CHUNK_SHIFT;
                let a = m.xa.shift6_mut(chunk).expect("a multi-index entry has its node");
                a.shadows -= 1;
                if a.pages + a.shadows == 0 {
                    self.xa_shift6_uncharge(inode, chunk);
                }
                self.workingset_update_shift6(inode, chunk, MemcgId::NONE);
            }
        } else {
            self.workingset_update_node(inode, index, memcg);
        }
        self.xa_node_free_if_empty(inode, index);
    }
}
