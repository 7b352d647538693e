//! Conservation laws the model must keep at every instant, checked by the property tests
//! after every step (and usable from any test): pages and charges are neither created nor
//! lost.

use crate::filemap::XA_CHUNK_SHIFT;
use crate::xarray::XA_CHUNK_SIZE;
use crate::kernel::Kernel;
use crate::mm_types::pg;
use crate::mmzone::LruList;
use crate::types::{MemcgId, PageId, PAGE_SIZE};

impl Kernel {
    /// Check every invariant; the error names the first one broken.
    ///
    /// - free + per-CPU lists + used = managed pages; used = pages on LRU lists + the frames
    ///   of the page cache's companion slab (buffer heads, tree nodes) + the boot frames;
    /// - every resident page is in exactly one page-cache slot and on exactly one LRU list,
    ///   the list of the lruvec of the memcg it is charged to (the root's if uncharged);
    /// - each lruvec's hierarchical list sizes (`lruvec_stats`) are the sums of its memcg's
    ///   subtree's lists on its node;
    /// - no page is charged twice: each memcg's local charged pages equal its `file` stat,
    ///   and the hierarchical sum of those and of its slab pages equals its page counter;
    /// - every memcg is at or under its hard limit;
    /// - mapping counters (pages, shadows, per-node occupancy) match the slots;
    /// - the cgroup life cycle: see [`Kernel::check_lifecycle`];
    /// - the directory tree: see [`Kernel::check_directories`].
    /// - every device's requests: see [`Kernel::check_request_queues`].
    pub fn check_invariants(&self) -> Result<(), String> {
        self.check_memcg_stocks()?;
        let used = self.pages.in_use() as u64;
        let (free, managed, pcp) = (self.nr_free_pages(), self.managed_pages(), self.nr_pcp_pages());
        if free + pcp + used != managed {
            return Err(format!("free {free} + per-CPU lists {pcp} + used {used} != managed {managed}"));
        }
        for (i, z) in self.zones.iter().enumerate() {
            z.check_pageblocks().map_err(|e| format!("zone {i}: {e}"))?;
        }
        let n = self.memcgs.len();
        let mut local = vec![0u64; n];
        let mut local_anon = vec![0u64; n];
        // tmpfs pages (swap-backed page cache) charged to each memcg, and of them those in huge
        // pages, with the machine's huge ones (shmem.rs: memory.stat shmem, shmem_thp,
        // NR_SHMEM_THPS)
        let mut local_shmem = vec![[0u64; 2]; n];
        let mut shmem_thps = 0u64;
        let mut anon_frames = 0u64;
        let mut anon_entries = 0u64;
        let mut local_swapcache = vec![0u64; n];
        let mut swapcache_frames = 0u64;
        let mut seen = vec![false; self.pages.len()];
        let mut on_lru = 0u64;
        let mut file_frames = 0u64;
        // Pages in a CPU's lru_add batch (swap.rs FolioBatch): on no list yet, checked with
        // the list lru_add_fn() will put them on (lruvec, two-list list), after its pages.
        let mut batched: Vec<(usize, usize, PageId)> = vec![];
        for b in &self.lru_add_fbatches {
            for &q in &b.folios[..b.nr as usize] {
                if q == PageId::NIL {
                    continue; // freed while batched
                }
                if !self.folio_in_lru_batch(q) {
                    return Err(format!("an lru_add batch slot holds page {}, which is not batched (freed without folio_unbatch()?)", q.0));
                }
                if batched.iter().any(|x| x.2 == q) {
                    return Err(format!("page {} is in two lru_add batch slots", q.0));
                }
                {
                    let list = match (self.pages[q].test(pg::SWAPBACKED), self.pages[q].test(pg::ACTIVE)) {
                        (true, true) => LruList::ActiveAnon,
                        (true, false) => LruList::InactiveAnon,
                        (false, true) => LruList::ActiveFile,
                        (false, false) => LruList::InactiveFile,
                    };
                    batched.push((self.folio_lruvec(q), list as usize, q));
                }
            }
        }
        let mut batched_seen = 0usize;
        for (v, lv) in self.lruvecs.iter().enumerate() {
            for list in 0..crate::mmzone::NR_ALL_LISTS {
                // The two-list lists, then the multi-generational LRU's generation lists
                // (which must be empty when it is off, and hold no page with PG_active, and
                // only pages of their type, when it is on).
                let gen_list = list >= crate::mmzone::NR_LRU_LISTS;
                let lru = crate::mmzone::LruList::from_u8(list as u8);
                if lv.lrugen.enabled && !gen_list && lru != LruList::Unevictable && lv.lists[list].len > 0 {
                    return Err(format!("lruvec {v} uses the multi-generational LRU but has pages on the two-list {lru:?}"));
                }
                if !lv.lrugen.enabled && gen_list && lv.lists[list].len > 0 {
                    return Err(format!("lruvec {v} has pages on generation list {list} with the multi-generational LRU off"));
                }
                if gen_list && lv.lists[list].len > 0 {
                    let g = &lv.lrugen;
                    let (gen, ty) = (crate::lru_gen::list_gen(list), crate::lru_gen::list_type(list));
                    // Every populated generation lies in [min_seq[type], max_seq].
                    let inside = (g.min_seq[ty]..=g.max_seq).any(|s| crate::lru_gen::lru_gen_from_seq(s) == gen);
                    if !inside {
                        return Err(format!("lruvec {v} has pages in generation {gen} of type {ty} outside min_seq {} .. max_seq {}", g.min_seq[ty], g.max_seq));
                    }
                    let n = g.max_seq + 1 - g.min_seq[ty];
                    if !(crate::lru_gen::MIN_NR_GENS..=crate::lru_gen::MAX_NR_GENS).contains(&n) {
                        return Err(format!("lruvec {v} type {ty} has {n} generations"));
                    }
                }
                let mut cur = lv.lists[list].head;
                let mut prev = PageId::NIL;
                let mut count = 0;
                let mut nr_pages = 0u64;
                // The list's own walk, then its batched pages (`in_batch`).
                let mut extra = batched.iter().filter(|x| x.0 == v && x.1 == list).map(|x| x.2);
                let mut in_batch = false;
                let (mut list_count, mut list_pages, mut list_tail) = (0, 0u64, PageId::NIL);
                loop {
                    if cur == PageId::NIL {
                        if !in_batch {
                            (list_count, list_pages, list_tail) = (count, nr_pages, prev);
                            in_batch = true;
                        }
                        match extra.next() {
                            Some(q) => {
                                cur = q;
                                batched_seen += 1;
                            }
                            None => break,
                        }
                    }
                    let p = &self.pages[cur];
                    nr_pages += self.pages.folio_nr_pages(cur);
                    if seen[cur.idx()] {
                        return Err(format!("page {} is on two LRU lists (or on one and in a CPU's lru_add batch)", cur.0));
                    }
                    seen[cur.idx()] = true;
                    if in_batch {
                        if p.next != PageId::NIL || p.prev != PageId::NIL {
                            return Err(format!("page {} in a CPU's lru_add batch has LRU links", cur.0));
                        }
                    } else {
                        if !p.test(pg::LRU) || p.lru() as usize != list || p.prev != prev {
                            return Err(format!("page {} has broken LRU links or flags", cur.0));
                        }
                        if self.folio_lruvec(cur) != v {
                            return Err(format!("page {} charged to {:?} sits on lruvec {v}", cur.0, p.memcg));
                        }
                        // mm_inline.h 6.1 `folio_lru_list()`: `folio_is_file_lru()` (!PG_swapbacked)
                        // picks the two-list's type; lazyfree pages are !PG_swapbacked on the file
                        // lists (`lru_lazyfree_fn()`), consistent (review50 M3)
                        if !gen_list && lru != LruList::Unevictable && p.test(pg::SWAPBACKED) == lru.is_file() {
                            return Err(format!("page {} is on the two-list {lru:?} of the other type", cur.0));
                        }
                        if gen_list && p.test(pg::SWAPBACKED) != (crate::lru_gen::list_type(list) == crate::lru_gen::LRU_GEN_ANON) {
                            return Err(format!("page {} is on a generation list of the other type", cur.0));
                        }
                        if p.test(pg::ACTIVE) != (!gen_list && lru.is_active()) {
                            return Err(format!("page {} PG_active disagrees with its list", cur.0));
                        }
                    }
                    if p.test(pg::ANON) && p.mapping == crate::swapfile::SWAPPER {
                        // Read by swap readahead, mapped by no page table: the swap cache
                        // holds it at its slot.
                        // A THP written whole and unmapped at its swap-out is there at each of
                        // its 512 slots, its tails naming them.
                        let nr = if p.test(pg::HEAD) { crate::page_alloc::PAGEBLOCK_NR } else { 1 };
                        for i in 0..nr as u32 {
                            if !p.test(pg::SWAPCACHE) || self.swap.as_ref().map(|a| a.cache_get(p.index + i)) != Some(cur) {
                                return Err(format!("unmapped swap-cache page {} is not in the swap cache at slot {}", cur.0, p.index + i));
                            }
                            if i > 0 {
                                let t = &self.pages[PageId(cur.0 + i)];
                                if !t.test(pg::TAIL) || t.test(pg::LRU) || t.mapping != crate::swapfile::SWAPPER || t.index != p.index + i || t.memcg != p.memcg {
                                    return Err(format!("tail {} of unmapped swap-cache THP {} does not name slot {}", cur.0 + i, cur.0, p.index + i));
                                }
                            }
                        }
                        if p.memcg != MemcgId::NONE {
                            local_swapcache[p.memcg.idx()] += nr;
                        }
                        swapcache_frames += nr;
                        prev = cur;
                        cur = p.next;
                        count += 1;
                        continue;
                    }
                    if p.test(pg::ANON) {
                        // An anonymous page (or a huge page's head): its VMA maps it.
                        let nr = if p.test(pg::HEAD) { crate::page_alloc::PAGEBLOCK_NR } else { 1 };
                        let vma = &self.vmas[p.mapping.0 as usize];
                        if !vma.live || vma.pages.get(p.index as usize) != Some(&cur) {
                            return Err(format!("anonymous page {} is not mapped by its VMA", cur.0));
                        }
                        if p.test(pg::SWAPCACHE) && nr == 1 {
                            // Mapped and in the swap cache (a load's swap-in, or a swap-out a
                            // fault caught): its slot is the PTE's, and the cache holds it there.
                            let slot = vma.swap.get(p.index as usize).copied().unwrap_or(crate::swapfile::NO_SLOT);
                            if slot == crate::swapfile::NO_SLOT || self.swap.as_ref().map(|a| a.cache_get(slot)) != Some(cur) {
                                return Err(format!("mapped swap-cache page {} is not in the swap cache at its PTE's slot", cur.0));
                            }
                        }
                        if p.memcg != MemcgId::NONE {
                            local_anon[p.memcg.idx()] += nr;
                        }
                        anon_frames += nr;
                        anon_entries += 1;
                        prev = cur;
                        cur = p.next;
                        count += 1;
                        continue;
                    }
                    // A page-cache folio: one LRU entry for its 2^order frames, each in the
                    // slot of its index, the tails charged as the head, naming it, on no list.
                    let nr = self.pages.folio_nr_pages(cur);
                    if p.memcg != MemcgId::NONE {
                        local[p.memcg.idx()] += nr;
                        if p.test(pg::SWAPBACKED) {
                            local_shmem[p.memcg.idx()][0] += nr;
                            local_shmem[p.memcg.idx()][1] += if nr == crate::shmem::HPAGE_PMD_NR as u64 { nr } else { 0 };
                        }
                    }
                    if p.test(pg::SWAPBACKED) && nr == crate::shmem::HPAGE_PMD_NR as u64 {
                        shmem_thps += nr;
                    }
                    file_frames += nr;
                    let m = &self.mappings[p.mapping.idx()];
                    for i in 0..nr as u32 {
                        let f = PageId(cur.0 + i);
                        if m.lookup(p.index + i) != Some(f) {
                            return Err(format!("page {} (frame {i} of folio {}) is not in its mapping's slot", f.0, cur.0));
                        }
                        if i > 0 {
                            let t = &self.pages[f];
                            if !t.test(pg::TAIL) || t.prev != cur || t.test(pg::LRU) || t.memcg != p.memcg || t.mapping != p.mapping {
                                return Err(format!("tail {} of folio {} is not its tail", f.0, cur.0));
                            }
                            if seen[f.idx()] {
                                return Err(format!("frame {} is in two folios or on an LRU list", f.0));
                            }
                            seen[f.idx()] = true;
                        }
                    }
                    prev = cur;
                    cur = p.next;
                    count += 1;
                }
                if list_count != lv.lists[list].len || list_tail != lv.lists[list].tail {
                    return Err(format!("lruvec {v} list {list} length or tail is wrong"));
                }
                if list_pages != lv.lists[list].pages {
                    return Err(format!("lruvec {v} list {list} counts {} pages, holds {list_pages}", lv.lists[list].pages));
                }
                on_lru += count;
            }
        }
        if batched_seen != batched.len() {
            return Err(format!("{} pages in lru_add batches belong to no lruvec list", batched.len() - batched_seen));
        }
        // lruvec_stats: each lruvec's hierarchical size of every two-list LRU list is the sum
        // of its own and its memcg's descendants' on that node (as a walk over the tree).
        if self.lru_stats.len() != self.lruvecs.len() {
            return Err(format!("{} lruvecs, {} lruvec_stats", self.lruvecs.len(), self.lru_stats.len()));
        }
        for m in 0..self.memcgs.len() {
            let memcg = MemcgId(m as u32);
            for nid in 0..self.nr_nodes {
                let v = self.lruvec_idx(memcg, nid);
                for lru in [LruList::InactiveAnon, LruList::ActiveAnon, LruList::InactiveFile, LruList::ActiveFile] {
                    let raw = |v: usize| if lru.is_file() { self.lruvecs[v].lists[lru as usize].pages } else { self.lruvecs[v].lists[lru as usize].len };
                    let mut sum = 0;
                    let mut stack = vec![memcg];
                    while let Some(x) = stack.pop() {
                        sum += raw(self.lruvec_idx(x, nid));
                        stack.extend(self.memcgs.get(x).children.iter().copied());
                    }
                    if sum != self.lru_stats.subtree_size(v, lru) {
                        return Err(format!("lruvec {v} {lru:?}: subtree holds {sum}, lruvec_stats say {}", self.lru_stats.subtree_size(v, lru)));
                    }
                    if !lru.is_file() {
                        let mut pages = 0;
                        let mut stack = vec![memcg];
                        while let Some(x) = stack.pop() {
                            pages += self.lruvecs[self.lruvec_idx(x, nid)].lists[lru as usize].pages;
                            stack.extend(self.memcgs.get(x).children.iter().copied());
                        }
                        if pages != self.lru_stats.subtree_anon_pages(v, lru) {
                            return Err(format!("lruvec {v} {lru:?}: subtree holds {pages} pages, lruvec_stats say {}", self.lru_stats.subtree_anon_pages(v, lru)));
                        }
                    }
                }
                // under lru_gen: the pages of the inactive generations (all but the two
                // youngest), by type, over the subtree (lru_gen_update_size(), inc_max_seq())
                for ty in 0..2 {
                    let mut sum = 0;
                    let mut stack = vec![memcg];
                    while let Some(x) = stack.pop() {
                        let lv = &self.lruvecs[self.lruvec_idx(x, nid)];
                        for gen in 0..crate::lru_gen::MAX_NR_GENS as usize {
                            if !crate::lru_gen::lru_gen_is_active(&lv.lrugen, gen) {
                                sum += lv.lists[crate::lru_gen::gen_list(gen, ty)].pages;
                            }
                        }
                        stack.extend(self.memcgs.get(x).children.iter().copied());
                    }
                    if sum != self.lru_stats.gen_inactive(v, ty) {
                        return Err(format!("lruvec {v} type {ty}: inactive generations hold {sum}, lruvec_stats say {}", self.lru_stats.gen_inactive(v, ty)));
                    }
                }
            }
        }
        // A huge page is one LRU entry for 512 frames.
        let _ = (on_lru, anon_entries);
        let file_on_lru = file_frames;
        if anon_frames != self.vmstat.nr_anon_pages {
            return Err(format!("NR_ANON_PAGES {} but {anon_frames} anonymous frames are on LRU lists", self.vmstat.nr_anon_pages));
        }
        if swapcache_frames != self.vmstat.nr_swapcache_unmapped {
            return Err(format!("{} unmapped swap-cache pages counted but {swapcache_frames} on LRU lists", self.vmstat.nr_swapcache_unmapped));
        }
        let anon_frames = anon_frames + swapcache_frames;
        // Kernel frames: the page cache's companion slab (its frames cover its bytes exactly
        // once settled, and never exceed them by a whole page) and the boot memory.
        let slab_frames = self.kmem.pagecache_slab_frames.len() as u64;
        if slab_frames * PAGE_SIZE >= self.kmem.pagecache_slab + PAGE_SIZE {
            return Err(format!("{slab_frames} slab frames for {} bytes of buffer heads and tree nodes", self.kmem.pagecache_slab));
        }
        // zswap's pool pages (zbud) are kernel frames too.
        let zswap_frames = self.zswap.as_ref().map_or(0, |z| z.pool_pages());
        let kernel_frames = slab_frames + self.kmem.boot_frames + zswap_frames;
        if file_on_lru + anon_frames + kernel_frames != used {
            return Err(format!("{used} pages in use but {file_on_lru} file and {anon_frames} anonymous on LRU lists and {kernel_frames} kernel frames"));
        }
        if shmem_thps != self.shmem_stat.nr_shmem_thps {
            return Err(format!("NR_SHMEM_THPS {} but tmpfs huge pages on LRU lists hold {shmem_thps} pages", self.shmem_stat.nr_shmem_thps));
        }
        let cached: u64 = self.mappings.iter().map(|m| m.nrpages).sum();
        if cached != self.vmstat.nr_file_pages || cached + anon_frames + kernel_frames != used {
            return Err(format!("NR_FILE_PAGES {} but mappings hold {cached} and {used} frames are used", self.vmstat.nr_file_pages));
        }
        for (i, m) in self.memcgs.memcgs.iter().enumerate() {
            // The subtree counts mem_cgroup_wb_stats() reads agree with the local counters.
            let id = crate::types::MemcgId(i as u32);
            let want = [
                self.memcgs.subtree_sum(id, |c| c.nr_file - c.nr_shmem),
                self.memcgs.subtree_sum(id, |c| c.nr_dirty),
                self.memcgs.subtree_sum(id, |c| c.nr_writeback),
            ];
            let got = [0, 1, 2].map(|item| self.memcgs.wb_subtree(id, item));
            if got != want {
                return Err(format!("memcg {} subtree file/dirty/writeback {got:?} != sums of the local counters {want:?}", m.path));
            }
            if m.nr_file != local[i] {
                return Err(format!("memcg {} file stat {} != charged pages {}", m.path, m.nr_file, local[i]));
            }
            if [m.nr_shmem, m.nr_shmem_thps] != local_shmem[i] {
                return Err(format!("memcg {} shmem/shmem_thp stats {:?} != charged tmpfs pages {:?}", m.path, [m.nr_shmem, m.nr_shmem_thps], local_shmem[i]));
            }
            if m.nr_anon != local_anon[i] {
                return Err(format!("memcg {} anon stat {} != charged anonymous pages {}", m.path, m.nr_anon, local_anon[i]));
            }
            if m.nr_swapcache != local_swapcache[i] {
                return Err(format!("memcg {} unmapped swap-cache stat {} != charged such pages {}", m.path, m.nr_swapcache, local_swapcache[i]));
            }
            local[i] += local_anon[i] + local_swapcache[i];
        }
        // Slab charges (dentries, inodes) take whole pages of the counter too.
        for (i, m) in self.memcgs.memcgs.iter().enumerate() {
            if m.kmem_pages != m.kmem_bytes.div_ceil(crate::types::PAGE_SIZE) {
                return Err(format!("memcg {} kmem pages {} for {} bytes", m.path, m.kmem_pages, m.kmem_bytes));
            }
            local[i] += m.kmem_pages;
        }
        for (i, m) in self.memcgs.memcgs.iter().enumerate() {
            let mut sub = vec![];
            self.memcgs.subtree(MemcgId(i as u32), &mut sub);
            // The root's own pages are on no counter (`try_charge()` skips the root).
            let sum: u64 = sub.iter().filter(|c| **c != MemcgId::ROOT).map(|c| local[c.idx()]).sum();
            if sum != m.counter.usage {
                return Err(format!("memcg {} usage {} != charged pages in its subtree {}", m.path, m.counter.usage, sum));
            }
            if m.counter.usage > m.counter.max {
                return Err(format!("memcg {} usage {} above its limit {}", m.path, m.counter.usage, m.counter.max));
            }
        }
        // Swap slots: every slot in use is named by exactly one page-table entry.
        // A zero-page PTE (wrprotect over no page) holds no swap entry.
        for (n, v) in self.vmas.iter().enumerate().filter(|(_, v)| v.live && !v.wrprotect.is_empty()) {
            for i in 0..v.pages.len() as u32 {
                if v.wp_test(i) && v.pages[i as usize] == PageId::NIL && v.swap.get(i as usize).is_some_and(|&s| s != crate::swapfile::NO_SLOT) {
                    return Err(format!("VMA {n} page {i} maps the zero page and names a swap slot"));
                }
            }
        }
        let named: u64 = self.vmas.iter().filter(|v| v.live).map(|v| v.swap.iter().filter(|&&s| s != crate::swapfile::NO_SLOT).count() as u64).sum();
        // ...or by one tmpfs mapping's swap entry (shmem.rs), each slot once, and each tmpfs
        // swap entry's slot in use, with no page in the mapping at its index.
        let mut shmem_slots: Vec<u32> = self.shmem_stat.swapped.values().copied().collect();
        shmem_slots.sort_unstable();
        shmem_slots.dedup();
        if shmem_slots.len() != self.shmem_stat.swapped.len() {
            return Err("two tmpfs swap entries name one swap slot".to_string());
        }
        for (&(ino, index), &slot) in &self.shmem_stat.swapped {
            if !self.swap.as_ref().is_some_and(|a| a.slot_in_use(slot)) {
                return Err(format!("tmpfs inode {ino} index {index} names swap slot {slot}, which is free"));
            }
            if self.mappings[ino as usize].lookup(index).is_some() {
                return Err(format!("tmpfs inode {ino} index {index} holds a page and a swap entry"));
            }
        }
        let named = named + shmem_slots.len() as u64;
        let (_, inuse) = self.swap_usage();
        // Slots a swap slots cache holds (swap_slots.rs) at SWAP_HAS_CACHE alone are named by
        // no page table: each is in exactly one CPU's batch or slots_ret.
        let held = self.swap.as_ref().map_or(0, |a| a.held_slots());
        if held != self.swap_slots.held() {
            return Err(format!("{held} swap slots marked held but the slots caches hold {}", self.swap_slots.held()));
        }
        // Slots a large swap-cache folio holds after their page tables dropped them (a tail
        // copied at its swap-in, swapfile.rs do_swap_page_copy()): each cached.
        let (cache_only, uncached) = self.swap.as_ref().map_or((0, 0), |a| a.cache_only_slots());
        if uncached != 0 {
            return Err(format!("{uncached} swap slots held by the swap cache alone have no swap-cache page"));
        }
        if named + held + cache_only != inuse {
            return Err(format!("{inuse} swap slots in use but page tables name {named}, the slots caches hold {held} and the swap cache alone {cache_only}"));
        }
        // Swap charges: each memcg's swap counter is the charged slots recorded for its
        // subtree in the swap_cgroup map, and within memory.swap.max (v2).
        let mut local_swap = vec![0u64; self.memcgs.memcgs.len()];
        if let Some(area) = self.swap.as_ref() {
            for (m, n) in area.slots_by_memcg() {
                if m == MemcgId::NONE {
                    return Err(format!("{n} charged swap slots record no memcg"));
                }
                local_swap[m.idx()] += n;
            }
        }
        for (i, m) in self.memcgs.memcgs.iter().enumerate() {
            let mut sub = vec![];
            self.memcgs.subtree(MemcgId(i as u32), &mut sub);
            let sum: u64 = sub.iter().map(|c| local_swap[c.idx()]).sum();
            if sum != m.swap {
                return Err(format!("memcg {} swap charge {} != charged slots in its subtree {}", m.path, m.swap, sum));
            }
            if self.memcgs.version == crate::memcontrol::CgroupVersion::V2 && i != 0 && m.swap > m.swap_max {
                return Err(format!("memcg {} swap {} above memory.swap.max {}", m.path, m.swap, m.swap_max));
            }
            if self.memcgs.version == crate::memcontrol::CgroupVersion::V1 && m.counter.usage + m.swap > m.memsw_max {
                return Err(format!("memcg {} memory + swap {} above memory.memsw.limit_in_bytes {}", m.path, m.counter.usage + m.swap, m.memsw_max));
            }
        }
        self.check_zswap()?;
        self.check_lifecycle()?;
        self.check_memcg_lru()?;
        self.check_directories()?;
        self.check_request_queues()?;
        self.check_rmap()?;
        let (mut total_dirty, mut total_file_writeback) = (0u64, 0u64);
        for (ino, m) in self.mappings.iter().enumerate() {
            let (mut pages, mut shadows) = (0u64, 0u64);
            for id in m.xa.leaf_ids() {
                let (c, node) = (m.xa.chunk(id), m.xa.node(id));
                if m.xa.leaf_id(c) != Some(id) {
                    return Err(format!("inode {ino} node {c}: not reachable from the tree's root"));
                }
                let p = m.xa.slots(id).filter(|s| s.as_page().is_some()).count();
                let s = m.xa.slots(id).filter(|s| s.as_shadow().is_some()).count();
                pages += p as u64;
                shadows += s as u64;
                if p != node.pages as usize || s != node.shadows as usize {
                    return Err(format!("inode {ino} node {c}: counts {}/{} {}/{}", node.pages, p, node.shadows, s));
                }
                if p == 0 && s == 0 {
                    return Err(format!("inode {ino} node {c}: empty but not freed"));
                }
                if (c as u64) << XA_CHUNK_SHIFT >= m.extent {
                    return Err(format!("inode {ino} node {c}: beyond the mapping's extent {}", m.extent));
                }
                if c == 0 && m.head_only() && node.charged != crate::types::MemcgId::NONE {
                    return Err(format!("inode {ino}: a lone entry at index 0 lives in the head, but node 0 is charged"));
                }
            }
            if pages != m.nrpages || shadows != m.nrshadows {
                return Err(format!("inode {ino}: nrpages {}/{} nrshadows {}/{}", m.nrpages, pages, m.nrshadows, shadows));
            }
            // Multi-index entries (KernelProfile::xa_multi_index): a chunk that is a slot of
            // its shift-6 node has no leaf of the kernel's (nothing charged or listed), holds
            // one kind of entry, and the shift-6 node counts its slots by kind.
            let mut groups: Vec<(u32, u8, u8)> = Vec::new();
            for (c, node) in m.xa_nodes() {
                if node.multi == 0 {
                    continue;
                }
                if !self.profile.xa_multi_index || node.charged != crate::types::MemcgId::NONE || node.slab || node.on_lru {
                    return Err(format!("inode {ino} chunk {c}: a multi-index slot charged, allocated or listed as a leaf"));
                }
                if !((node.pages as usize == XA_CHUNK_SIZE && node.shadows == 0) || (node.pages == 0 && node.shadows > 0)) {
                    return Err(format!("inode {ino} chunk {c}: a multi-index slot holds {} pages and {} shadows", node.pages, node.shadows));
                }
                let g = c >> XA_CHUNK_SHIFT;
                match groups.iter_mut().find(|x| x.0 == g) {
                    Some(x) => {
                        x.1 += (node.pages > 0) as u8;
                        x.2 += (node.shadows > 0) as u8;
                    }
                    None => groups.push((g, (node.pages > 0) as u8, (node.shadows > 0) as u8)),
                }
            }
            for &(g, p, s) in &groups {
                let c = g << XA_CHUNK_SHIFT;
                let Some((a, count)) = m.xa.shift6(c) else {
                    return Err(format!("inode {ino} group {g}: multi-index slots without a shift-6 node"));
                };
                if (a.pages, a.shadows) != (p, s) || count < p + s {
                    return Err(format!("inode {ino} group {g}: shift-6 node counts {}/{} (count {count}) for {p}/{s} slots", a.pages, a.shadows));
                }
                if a.on_lru != m.xa.shift6_shadow_only(c) {
                    return Err(format!("inode {ino} group {g}: on the shadow list {} but holding only shadows {}", a.on_lru, m.xa.shift6_shadow_only(c)));
                }
            }
            if m.xa.shift6_nodes().count() > groups.iter().filter(|x| x.1 + x.2 > 0).count() {
                return Err(format!("inode {ino}: a shift-6 node charged without multi-index entries"));
            }
            if m.dirty_hint > 0 {
                if let Some((i, _)) = m.entries(0, m.dirty_hint - 1).find(|(_, s)| s.as_page().is_some_and(|p| self.pages[p].test(crate::mm_types::pg::DIRTY))) {
                    return Err(format!("inode {ino}: page {i} is dirty below the dirty hint {}", m.dirty_hint));
                }
            }
            // PG_dirty and PG_writeback are folio flags (the head's); the counts are in pages.
            let (mut dirty, mut writeback) = (0u64, 0u64);
            for (i, slot) in m.entries(0, u32::MAX) {
                let Some(p) = slot.as_page() else { continue };
                let f = self.pages.page_folio(p);
                if f != p {
                    if self.pages[p].flags & (crate::mm_types::pg::DIRTY | crate::mm_types::pg::WRITEBACK) != 0 {
                        return Err(format!("inode {ino}: tail page {i} carries its folio's dirty or writeback flag"));
                    }
                    continue;
                }
                let nr = self.pages.folio_nr_pages(f);
                dirty += nr * self.pages[f].test(crate::mm_types::pg::DIRTY) as u64;
                writeback += nr * self.pages[f].test(crate::mm_types::pg::WRITEBACK) as u64;
            }
            if dirty != m.nrdirty {
                return Err(format!("inode {ino}: nrdirty {} but its dirty folios hold {dirty} pages", m.nrdirty));
            }
            total_dirty += dirty;
            total_file_writeback += writeback;
        }
        // Each memcg's shadow-node list counts its listed nodes: leaves and shift-6 nodes.
        let mut listed = vec![0u64; self.shadow_nodes.len()];
        for m in &self.mappings {
            for (_, n) in m.xa_nodes() {
                if n.on_lru {
                    listed[n.owner.idx()] += 1;
                }
            }
            for n in m.xa.shift6_listed() {
                listed[n.owner.idx()] += 1;
            }
        }
        for (i, l) in self.shadow_nodes.iter().enumerate() {
            if l.count != listed[i] {
                return Err(format!("memcg {i}: shadow-node list count {} but {} nodes listed under it", l.count, listed[i]));
            }
        }
        if total_dirty != self.vmstat.nr_dirty {
            return Err(format!("NR_FILE_DIRTY {} but the mappings' dirty folios hold {total_dirty} pages", self.vmstat.nr_dirty));
        }
        if total_file_writeback > self.vmstat.nr_writeback {
            return Err(format!("NR_WRITEBACK {} below the {total_file_writeback} page-cache pages under writeback", self.vmstat.nr_writeback));
        }
        Ok(())
    }

    /// The memcg LRU of each node (6.3+, under lru_gen): the lruvecs of every memcg not freed
    /// are listed, each in the bin and generation it records, linked both ways; each
    /// generation's `nr_memcgs` counts its lruvecs, and only the old (`seq`) and young
    /// (`seq + 1`) generations hold any.
    pub fn check_memcg_lru(&self) -> Result<(), String> {
        use crate::lru_gen::{get_memcg_gen, MEMCG_NR_BINS, MEMCG_NR_GENS, NIL_LRUVEC};
        if !(self.profile.lru_gen && self.profile.lru_gen_memcg_lru) {
            return Ok(());
        }
        let mut listed = 0;
        for (nid, ml) in self.memcg_lru.iter().enumerate() {
            for gen in 0..MEMCG_NR_GENS as usize {
                let mut n = 0;
                for bin in 0..MEMCG_NR_BINS {
                    let (mut prev, mut cur) = (NIL_LRUVEC, ml.fifo[gen][bin].0);
                    while cur != NIL_LRUVEC {
                        let g = &self.lruvecs[cur as usize].lrugen;
                        if !g.memcg_listed || g.memcg_gen as usize != gen || g.memcg_bin as usize != bin || g.memcg_prev != prev || cur as usize % self.nr_nodes as usize != nid {
                            return Err(format!("memcg LRU node {nid}: lruvec {cur} misplaced in fifo[{gen}][{bin}]"));
                        }
                        n += 1;
                        prev = cur;
                        cur = g.memcg_next;
                    }
                    if ml.fifo[gen][bin].1 != prev {
                        return Err(format!("memcg LRU node {nid}: fifo[{gen}][{bin}]'s tail is not its last lruvec"));
                    }
                }
                if n != ml.nr_memcgs[gen] {
                    return Err(format!("memcg LRU node {nid}: generation {gen} holds {n} lruvecs, nr_memcgs {}", ml.nr_memcgs[gen]));
                }
                if n > 0 && gen != get_memcg_gen(ml.seq) && gen != get_memcg_gen(ml.seq + 1) {
                    return Err(format!("memcg LRU node {nid}: generation {gen} is neither old nor young (seq {})", ml.seq));
                }
                listed += n;
            }
        }
        for m in 0..self.memcgs.len() {
            let freed = self.memcgs.memcgs[m].state == crate::memcontrol::MemcgState::Freed;
            for nid in 0..self.nr_nodes {
                let v = self.lruvec_idx(MemcgId(m as u32), nid);
                if self.lruvecs[v].lrugen.memcg_listed == freed {
                    return Err(format!("memcg LRU: memcg {m} on node {nid} is {}listed", if freed { "freed and " } else { "not " }));
                }
            }
        }
        if listed as usize != self.lruvecs.iter().filter(|l| l.lrugen.memcg_listed).count() {
            return Err("memcg LRU: a listed lruvec is on no bin".into());
        }
        Ok(())
    }

    /// Life-cycle and kernel-memory conservation:
    /// - a freed memcg holds nothing (no charges, no kernel memory, not a child of anyone);
    ///   a dying one is still referenced (charges, pins or children) — else it would have
    ///   been freed; only online memcgs have tasks, ids and kmem ids, all unique;
    /// - `Percpu` = boot + every memcg's percpu; `Slab` = boot + every memcg's structures +
    ///   superblocks + shrinker state + files' dentries and inodes + the list_lrus' slab;
    ///   `memcg_nr_cache_ids` covers every kmem id handed out; each list_lru's count of
    ///   xarray nodes is the number of 64-id ranges its entries span.
    pub fn check_lifecycle(&self) -> Result<(), String> {
        use crate::memcontrol::MemcgState;
        let mut percpu = self.kmem.boot_percpu + self.kmem.superblock_percpu;
        let mut slab = self.kmem.boot_slab + self.kmem.list_lru_slab + self.kmem.file_objects_slab + self.kmem.superblock_slab + self.kmem.shrinker_slab + self.kmem.pagecache_slab;
        let mut ids = std::collections::BTreeSet::new();
        let mut kids = std::collections::BTreeSet::new();
        self.memcgs.subtree_cache_check()?;
        if self.memcgs.descendants(MemcgId::ROOT) != self.memcgs.descendants_walk(MemcgId::ROOT) {
            return Err(format!("root descendants counted {:?}, walked {:?}", self.memcgs.descendants(MemcgId::ROOT), self.memcgs.descendants_walk(MemcgId::ROOT)));
        }
        for (i, m) in self.memcgs.memcgs.iter().enumerate() {
            let me = MemcgId(i as u32);
            if m.state != MemcgState::Freed && m.nr_tasks_subtree as u64 != self.memcgs.subtree_sum(me, |m| m.nr_tasks as u64) {
                return Err(format!("memcg {}: subtree task count {} is not its subtree's", m.path, m.nr_tasks_subtree));
            }
            for (slot, ev) in [crate::memcontrol::MemcgEvent::WorkingsetActivateFile, crate::memcontrol::MemcgEvent::WorkingsetActivateAnon].into_iter().enumerate() {
                let walked = self.memcgs.subtree_sum_dyn(me, &|m| m.events[ev as usize]);
                if m.state != MemcgState::Freed && m.activate_subtree[slot] != walked {
                    return Err(format!("memcg {}: hierarchical {ev:?} {} but its subtree's events sum to {walked}", m.path, m.activate_subtree[slot]));
                }
            }
            percpu += m.percpu_bytes;
            slab += m.slab_bytes;
            let live_children = m.children.iter().filter(|c| self.memcgs.get(**c).state != MemcgState::Freed).count();
            match m.state {
                MemcgState::Freed => {
                    if m.counter.usage != 0 || m.percpu_bytes != 0 || m.slab_bytes != 0 || m.nr_tasks != 0 {
                        return Err(format!("freed memcg {} still holds something", m.path));
                    }
                    if let Some(p) = m.parent {
                        if self.memcgs.get(p).children.contains(&me) {
                            return Err(format!("freed memcg {} is still a child of its parent", m.path));
                        }
                    }
                }
                MemcgState::Dying => {
                    if m.counter.usage == 0 && m.kmem_pins == 0 && live_children == 0 {
                        return Err(format!("dying memcg {} holds nothing but was not freed", m.path));
                    }
                    if m.nr_tasks != 0 || m.kmem_id.is_some() || m.id != 0 {
                        return Err(format!("dying memcg {} has tasks or ids", m.path));
                    }
                }
                MemcgState::Online => {
                    if !ids.insert(m.id) {
                        return Err(format!("memcg id {} used twice", m.id));
                    }
                    if let Some(k) = m.kmem_id {
                        if !kids.insert(k) {
                            return Err(format!("kmem id {k} used twice"));
                        }
                        if self.memcgs.nr_cache_ids <= k && i != 0 {
                            return Err(format!("kmem id {k} beyond memcg_nr_cache_ids {}", self.memcgs.nr_cache_ids));
                        }
                    }
                    if self.memcgs.by_path(&m.path) != Some(me) {
                        return Err(format!("online memcg {} is not found by its path", m.path));
                    }
                }
            }
        }
        let allocated = self.memcgs.memcgs.iter().filter(|m| m.state != MemcgState::Freed).count() as u64;
        if allocated != self.memcgs.nr_allocated {
            return Err(format!("{allocated} memcgs allocated, counter says {}", self.memcgs.nr_allocated));
        }
        for sb in &self.superblocks {
            for lru in [&sb.dentry_lru, &sb.inode_lru] {
                let mut nodes: Vec<u32> = lru.entries.keys().map(|k| k / 64).collect();
                nodes.dedup();
                if nodes.len() as u64 != lru.entry_nodes {
                    return Err(format!("{}: list_lru entries span {} xarray nodes, counter says {}", sb.path, nodes.len(), lru.entry_nodes));
                }
            }
        }
        if self.kmem.other != self.kmem.list_lru_other + self.kmem.shrinker_other {
            return Err("other kernel memory is not list_lrus + shrinker state".into());
        }
        if percpu != self.kmem.percpu {
            return Err(format!("Percpu {} != boot + memcgs {}", self.kmem.percpu, percpu));
        }
        if slab != self.kmem.slab {
            return Err(format!("Slab {} != boot + memcgs + list_lrus {}", self.kmem.slab, slab));
        }
        Ok(())
    }

    /// The directory tree is a tree: every file is in exactly one directory, its parent;
    /// every directory but `/` is in exactly its parent's children, below it by path; the
    /// path index names each directory once.
    pub fn check_directories(&self) -> Result<(), String> {
        let mut file_seen = vec![0u32; self.inodes.len()];
        let mut dir_seen = vec![0u32; self.dirs.len()];
        for (i, d) in self.dirs.iter().enumerate() {
            for &f in &d.files {
                file_seen[f.idx()] += 1;
                if self.inodes[f.idx()].parent.idx() != i {
                    return Err(format!("{} is listed in {} but its parent is another directory", self.inodes[f.idx()].path, d.path));
                }
                if crate::fs::parent_path(&self.inodes[f.idx()].path) != d.path {
                    return Err(format!("{} is listed in {}", self.inodes[f.idx()].path, d.path));
                }
            }
            for &c in &d.subdirs {
                dir_seen[c.idx()] += 1;
                let child = &self.dirs[c.idx()];
                if child.parent.idx() != i || crate::fs::parent_path(&child.path) != d.path {
                    return Err(format!("{} is a child of {} but not below it", child.path, d.path));
                }
            }
            if self.dir_index.get(&d.path).map(|x| x.idx()) != Some(i) {
                return Err(format!("the path index does not name {}", d.path));
            }
        }
        if let Some(f) = file_seen.iter().position(|&n| n != 1) {
            return Err(format!("{} is in {} directories", self.inodes[f].path, file_seen[f]));
        }
        if let Some(d) = dir_seen.iter().skip(1).position(|&n| n != 1) {
            return Err(format!("{} is a child of {} directories", self.dirs[d + 1].path, dir_seen[d + 1]));
        }
        if dir_seen[0] != 0 || self.dir_index.len() != self.dirs.len() {
            return Err("the root is someone's child, or the path index has stray entries".into());
        }
        Ok(())
    }
}

impl Kernel {
    /// The reverse map of file pages (rmap.rs): every live file VMA is on its file's
    /// `i_mmap` and maps only resident pages of its file at their offsets; each page's
    /// `mapcount` is the number of VMAs mapping it; `NR_FILE_MAPPED` and each memcg's
    /// `file_mapped` count the mapped pages; a page, page cache or anonymous, is on the
    /// unevictable list exactly while a `VM_LOCKED` VMA maps it.
    pub fn check_rmap(&self) -> Result<(), String> {
        let mut counts: std::collections::HashMap<PageId, u32> = std::collections::HashMap::new();
        let mut locked: std::collections::HashSet<PageId> = std::collections::HashSet::new();
        for (vi, v) in self.vmas.iter().enumerate() {
            let Some(f) = v.file.as_ref().filter(|_| v.live) else { continue };
            if !self.mappings[f.inode.idx()].i_mmap.contains(&crate::memory::VmaId(vi as u32)) {
                return Err(format!("file VMA {vi} is not on its file's i_mmap"));
            }
            for (i, &p) in v.pages.iter().enumerate() {
                if p == PageId::NIL || self.pages[p].test(pg::ANON) {
                    continue;
                }
                let pgc = &self.pages[p];
                if pgc.mapping != f.inode || pgc.index != f.pgoff + i as u32 || self.mappings[f.inode.idx()].lookup(pgc.index) != Some(p) {
                    return Err(format!("file VMA {vi} maps page {} at {i}, which is not its file's page there", p.0));
                }
                *counts.entry(p).or_default() += 1;
                if v.locked {
                    locked.insert(p);
                }
            }
        }
        let mut mapped = 0u64;
        let mut per_memcg = vec![0u64; self.memcgs.len()];
        for lv in &self.lruvecs {
            // Every list: the two-list ones and, under lru_gen, the generation lists.
            for (list, l) in lv.lists.iter().enumerate() {
                let unevictable = list == LruList::Unevictable as usize;
                let mut cur = l.head;
                while cur != PageId::NIL {
                    let p = &self.pages[cur];
                    if !p.test(pg::ANON) {
                        let n = counts.get(&cur).copied().unwrap_or(0);
                        if p.mapcount as u32 != n {
                            return Err(format!("page {} has mapcount {} but {n} VMAs map it", cur.0, p.mapcount));
                        }
                        if n > 0 {
                            mapped += 1;
                            if p.memcg != MemcgId::NONE {
                                per_memcg[p.memcg.idx()] += 1;
                            }
                        }
                        if unevictable != locked.contains(&cur) {
                            return Err(format!("page {} is {}on the unevictable list but {}mapped by a locked VMA", cur.0, if unevictable { "" } else { "not " }, if locked.contains(&cur) { "" } else { "not " }));
                        }
                    } else {
                        // An anonymous page is mapped by the VMA its `mapping` names (an
                        // unmapped swap-cache page by none): on the unevictable list exactly
                        // while that VMA is VM_LOCKED.
                        let vm = self.vmas.get(p.mapping.0 as usize).filter(|v| v.live && v.pages.get(p.index as usize) == Some(&cur));
                        let in_locked = vm.is_some_and(|v| v.locked);
                        if p.mapping != crate::swapfile::SWAPPER && !p.test(pg::TAIL) && unevictable != in_locked {
                            return Err(format!("anonymous page {} is {}on the unevictable list but {}mapped by a locked VMA", cur.0, if unevictable { "" } else { "not " }, if in_locked { "" } else { "not " }));
                        }
                    }
                    cur = p.next;
                }
            }
        }
        // Pages in a CPU's lru_add batch are on no list: their mapcounts and mapped counts
        // are checked here; the unevictable list is not theirs yet (lru_add_fn() puts a page a
        // locked VMA maps there when the batch moves).
        for b in &self.lru_add_fbatches {
            for &q in &b.folios[..b.nr as usize] {
                if q == PageId::NIL || self.pages[q].test(pg::ANON) {
                    continue;
                }
                let p = &self.pages[q];
                let n = counts.get(&q).copied().unwrap_or(0);
                if p.mapcount as u32 != n {
                    return Err(format!("batched page {} has mapcount {} but {n} VMAs map it", q.0, p.mapcount));
                }
                if n > 0 {
                    mapped += 1;
                    if p.memcg != MemcgId::NONE {
                        per_memcg[p.memcg.idx()] += 1;
                    }
                }
            }
        }
        if mapped != self.vmstat.nr_mapped {
            return Err(format!("NR_FILE_MAPPED {} but {mapped} pages are mapped", self.vmstat.nr_mapped));
        }
        for (i, m) in self.memcgs.memcgs.iter().enumerate() {
            if m.nr_file_mapped != per_memcg[i] {
                return Err(format!("memcg {} file_mapped {} != its mapped pages {}", m.path, m.nr_file_mapped, per_memcg[i]));
            }
        }
        Ok(())
    }
}

impl Kernel {
    /// Every request a device allocated is either held (in flight, or completed and not yet
    /// freed) or was freed once: `queued = completed + held`, and each class's requests
    /// complete in order (the device serves a class's requests in submission order, whatever
    /// its scheduler places between them), and the per-class counts add up.
    pub fn check_request_queues(&self) -> Result<(), String> {
        for d in &self.devices {
            let q = &d.queue;
            if q.queued != q.completed + q.held() {
                return Err(format!("device {}: {} requests queued != {} completed + {} held", d.name, q.queued, q.completed, q.held()));
            }
            if q.pushed[0] + q.pushed[1] != q.queued {
                return Err(format!("device {}: {} + {} requests allocated per class != {} queued", d.name, q.pushed[0], q.pushed[1], q.queued));
            }
            if !q.ordered() {
                return Err(format!("device {}: requests complete out of submission order", d.name));
            }
        }
        Ok(())
    }

    /// zswap: every entry is at a slot in use whose page is not resident in memory as well
    /// unless the swap cache holds it (a page is in zswap, on disk or in memory); the
    /// counters (`stored_pages`, `same_filled_pages`) count the entries; the pool's frames
    /// are distinct kernel frames; each memcg's `zswap_bytes`/`zswapped` are the entries
    /// charged to its subtree (cgroup v2, 5.19+).
    pub fn check_zswap(&self) -> Result<(), String> {
        let Some(z) = self.zswap.as_ref() else { return Ok(()) };
        let (entries, same) = z.count_entries();
        if entries != z.stats.stored_pages || same != z.stats.same_filled_pages {
            return Err(format!("zswap holds {entries} entries ({same} same-filled) but stored_pages {} same_filled_pages {}", z.stats.stored_pages, z.stats.same_filled_pages));
        }
        let mut frames = 0u64;
        for f in z.frames() {
            if self.pages[f].mapping != crate::slab::SLAB_FRAME || self.pages[f].test(pg::LRU) {
                return Err(format!("zswap pool frame {} is not a kernel frame", f.0));
            }
            frames += 1;
        }
        if frames != z.pool_pages() {
            return Err(format!("zswap pool counts {} pages but its LRU holds {frames}", z.pool_pages()));
        }
        let n = self.memcgs.memcgs.len();
        let (mut bytes, mut count) = (vec![0u64; n], vec![0u64; n]);
        let charged = self.memcgs.version == crate::memcontrol::CgroupVersion::V2 && self.profile.zswap_memcg;
        if let Some(area) = self.swap.as_ref() {
            for (s, len) in z.entries() {
                if s == 0 || !area.slot_allocated(s) {
                    return Err(format!("zswap entry at free slot {s}"));
                }
                let m = area.slot_memcg(s);
                if charged && m != MemcgId::NONE {
                    let mut cur = Some(m);
                    while let Some(c) = cur {
                        bytes[c.idx()] += len;
                        count[c.idx()] += 1;
                        cur = self.memcgs.get(c).parent;
                    }
                }
            }
        } else if entries > 0 {
            return Err(format!("{entries} zswap entries without a swap area"));
        }
        for (i, m) in self.memcgs.memcgs.iter().enumerate() {
            if m.zswap_bytes != bytes[i] || m.zswapped != count[i] {
                return Err(format!("memcg {} zswap {} bytes / {} pages but its entries hold {} / {}", m.path, m.zswap_bytes, m.zswapped, bytes[i], count[i]));
            }
        }
        Ok(())
    }
}

impl Kernel {
    /// The per-CPU charge stocks (memcontrol.rs `MemcgStock`, `struct memcg_stock_pcp`): one
    /// per CPU; only the era's slots used (1 before 6.16, `NR_MEMCG_STOCK` from 6.16); a slot
    /// holds at most a charge batch (`refill_stock()` drains it above), pages only with a
    /// memcg cached, a memcg in one slot at most, and no memcg already freed.
    pub fn check_memcg_stocks(&self) -> Result<(), String> {
        let (slots, batch) = (self.profile.memcg_stock_slots, self.profile.memcg_charge_batch);
        if self.memcg_stock.len() != (self.nr_cpu_ids.max(1) as usize) && self.memcg_stock.len() != 1 {
            return Err(format!("{} charge stocks for {} CPUs", self.memcg_stock.len(), self.nr_cpu_ids));
        }
        for (cpu, st) in self.memcg_stock.iter().enumerate() {
            for i in 0..crate::memcontrol::NR_MEMCG_STOCK {
                let (m, n) = (st.cached[i], st.nr_pages[i]);
                if i >= slots && (m != MemcgId::NONE || n > 0) {
                    return Err(format!("CPU {cpu}'s stock uses slot {i} of {slots}"));
                }
                if n > batch {
                    return Err(format!("CPU {cpu}'s stock slot {i} holds {n} pages, above a batch of {batch}"));
                }
                if m == MemcgId::NONE {
                    if n > 0 {
                        return Err(format!("CPU {cpu}'s stock slot {i} holds {n} pages of no memcg"));
                    }
                    continue;
                }
                if m.idx() >= self.memcgs.len() || self.memcgs.get(m).state == crate::memcontrol::MemcgState::Freed {
                    return Err(format!("CPU {cpu}'s stock caches memcg {}, freed", m.0));
                }
                if st.cached[..i].contains(&m) {
                    return Err(format!("CPU {cpu}'s stock caches memcg {} in two slots", m.0));
                }
            }
        }
        // Each page counter's stocked pages are what every CPU's stock holds for its subtree.
        for (j, mc) in self.memcgs.memcgs.iter().enumerate() {
            let memcg = MemcgId(j as u32);
            let held: u64 = self.memcg_stock.iter().flat_map(|st| (0..slots).map(move |i| (st.cached[i], st.nr_pages[i])))
                .filter(|&(m, n)| m != MemcgId::NONE && n > 0 && self.memcgs.is_descendant(m, memcg)).map(|(_, n)| n).sum();
            if mc.counter.stocked != held {
                return Err(format!("memcg {} counts {} stocked pages, the CPUs' stocks hold {held} for it", mc.path, mc.counter.stocked));
            }
        }
        Ok(())
    }
}
