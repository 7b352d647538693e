//! Kernel memory outside the page cache, as /proc/meminfo shows it: `Slab` (mm/slab_common.c,
//! the kmalloc caches) and `Percpu` (mm/percpu.c).

use crate::kernel::Kernel;

/// Sizes of the generic kmalloc caches on x86_64 (`kmalloc_info[]`, mm/slab_common.c).
pub const KMALLOC_SIZES: [u64; 13] = [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192];

/// The bytes a `kmalloc(size)` really takes: the smallest kmalloc cache that fits, or whole
/// pages (`kmalloc_large()`, a power-of-two number of pages) above 8 KiB.
pub fn kmalloc_size(size: u64) -> u64 {
    if size == 0 {
        return 0;
    }
    match KMALLOC_SIZES.iter().find(|&&c| c >= size) {
        Some(&c) => c,
        None => size.next_power_of_two().max(4096),
    }
}

/// `kvmalloc(size)`: `kmalloc()` first (with `__GFP_NORETRY` above a page), `vmalloc()` only
/// if that fails. On a machine with free memory the kmalloc succeeds: a slab object up to
/// 8 KiB, else `kmalloc_large()` — a power-of-two block of pages, up to `KMALLOC_MAX_SIZE`
/// (4 MiB) — which is not in `Slab`. Returns (slab bytes, other kernel bytes).
pub fn kvmalloc_size(size: u64) -> (u64, u64) {
    if size <= 8192 {
        (kmalloc_size(size), 0)
    } else if size <= 4 << 20 {
        (0, size.next_power_of_two())
    } else {
        (0, size.div_ceil(4096) * 4096)
    }
}

/// Kernel memory totals.
#[derive(Clone, Debug, Default)]
pub struct KmemStat {
    /// `Percpu`: bytes of percpu memory (all CPUs' copies).
    pub percpu: u64,
    /// `Slab`: bytes in slab caches.
    pub slab: u64,
    /// Other kernel memory: `kmalloc_large()` pages and vmalloc areas (large list_lru arrays
    /// and shrinker state).
    pub other: u64,
    /// Part of `slab` held by superblocks and mounts.
    pub superblock_slab: u64,
    /// Part of `percpu` held by superblocks and mounts.
    pub superblock_percpu: u64,
    /// Part of `slab` held by memcgs' shrinker state.
    pub shrinker_slab: u64,
    /// Part of `other` held by memcgs' shrinker state.
    pub shrinker_other: u64,
    /// Part of `slab` held by the dentries and inodes of files created during the run.
    pub file_objects_slab: u64,
    /// Part of `slab` held by list_lrus (recomputed by `account_list_lrus()`).
    pub list_lru_slab: u64,
    /// Part of `other` held by list_lrus.
    pub list_lru_other: u64,
    /// Memory in use at the start of the experiment outside the page cache and the
    /// structures above (`free`'s "used" after boot), bytes.
    pub boot_used: u64,
    /// What the machine had at the start of the experiment (boot), included in the totals.
    pub boot_percpu: u64,
    /// See `boot_percpu`.
    pub boot_slab: u64,
    /// Part of `slab` held by the page cache's companion objects: the buffer heads of written
    /// block-device pages and the page cache's tree nodes. Unlike the rest of `slab` (a count
    /// of bytes), their slab pages are frames taken from the page allocator
    /// (`pagecache_slab_frames`), since they grow with the page cache and compete with it.
    pub pagecache_slab: u64,
    /// The frames holding `pagecache_slab`: `ceil(pagecache_slab / PAGE_SIZE)` of them once
    /// `Kernel::pagecache_slab_settle()` has run (slabs packed full: partial slabs left by
    /// frees are not modelled).
    pub pagecache_slab_frames: Vec<crate::types::PageId>,
    /// `pagecache_slab_settle()` is running (its allocations must not settle again).
    pub settling: bool,
    /// Frames taken at boot for `boot_used` (the memory a booted machine holds before the
    /// experiment: kernel slab, page tables, initramfs), never freed.
    pub boot_frames: u64,
    /// `[machine] nonmovable_free`: the free frames the boot leaves in node 0's first zone's
    /// non-movable pageblocks ([`crate::page_alloc::Zone::take_boot_frames_pooled`]); `None`:
    /// the boot's frames fill their pageblocks in turn.
    pub boot_nonmovable_free: Option<crate::page_alloc::NonmovablePool>,
}

/// The mapping value of a frame held by a slab cache (not in any page cache; never on an LRU
/// list, so reclaim and compaction leave it alone).
pub const SLAB_FRAME: crate::types::InodeId = crate::types::InodeId(u32::MAX - 1);

impl Kernel {
    /// `kmem_cache_alloc()` of a page-cache companion object of `bytes` (a buffer head in
    /// `alloc_buffer_head()`, a tree node in `radix_tree_node_alloc()`): counted in `Slab`;
    /// the slab page it may need is taken from the page allocator by the next
    /// `pagecache_slab_settle()` (at the latest, the next page allocation's).
    pub fn pagecache_slab_alloc(&mut self, bytes: u64) {
        self.kmem.slab += bytes;
        self.kmem.pagecache_slab += bytes;
        if self.pagecache_slab_owed() {
            // The next allocation settles them (Kernel::alloc_due).
            self.alloc_due = 0;
        }
    }

    /// `kmem_cache_free()` of a page-cache companion object: a slab page left empty goes back
    /// to the page allocator (`discard_slab()`) at once.
    pub fn pagecache_slab_free(&mut self, bytes: u64) {
        self.kmem.slab -= bytes;
        self.kmem.pagecache_slab -= bytes;
        let need = self.kmem.pagecache_slab.div_ceil(crate::types::PAGE_SIZE) as usize;
        while self.kmem.pagecache_slab_frames.len() > need {
            let p = self.kmem.pagecache_slab_frames.pop().expect("more frames than needed");
            self.free_page(p);
        }
    }

    /// `allocate_slab()` for the page-cache companion caches: take the frames their objects
    /// need from the page allocator (`GFP_NOFS`: kswapd and direct reclaim as for a page-cache
    /// page), or give back those they no longer need. A frame the allocator cannot give
    /// (the OOM path) is left owed; the next call tries again.
    pub fn pagecache_slab_settle(&mut self) {
        if self.kmem.settling {
            return;
        }
        self.kmem.settling = true;
        loop {
            let need = self.kmem.pagecache_slab.div_ceil(crate::types::PAGE_SIZE) as usize;
            let have = self.kmem.pagecache_slab_frames.len();
            if have < need {
                let gfp = crate::page_alloc::Gfp::kernel(self.cur_nid);
                match self.alloc_pages(0, gfp) {
                    Some(pfn) => {
                        // post_alloc_hook(): a slab's pages are zeroed under init_on_alloc.
                        self.post_alloc_init(1);
                        let p = self.pages.init(pfn, SLAB_FRAME, 0);
                        self.kmem.pagecache_slab_frames.push(p);
                    }
                    None => break,
                }
            } else if have > need {
                let p = self.kmem.pagecache_slab_frames.pop().expect("more frames than needed");
                self.free_page(p);
            } else {
                break;
            }
        }
        self.kmem.settling = false;
    }

    /// Whether the page-cache companion caches owe frames (`pagecache_slab_settle()` has
    /// work).
    #[inline(always)]
    pub fn pagecache_slab_owed(&self) -> bool {
        self.kmem.pagecache_slab > self.kmem.pagecache_slab_frames.len() as u64 * crate::types::PAGE_SIZE
    }

    /// The memory a booted machine holds (`boot_used`): its frames are taken from node 0's
    /// zones (then the others') before the experiment starts, as the boot allocated them, so
    /// that `MemFree` starts at MemTotal minus it as on the machine measured. Never freed.
    pub fn take_boot_frames(&mut self) {
        let want = self.kmem.boot_used / crate::types::PAGE_SIZE;
        let list = self.nodes.first().map(|n| n.zonelist.clone()).unwrap_or_default();
        if let (Some(pool), Some(&z)) = (self.kmem.boot_nonmovable_free.clone(), list.first()) {
            for pfn in self.zones[z].take_boot_frames_pooled(want, &pool) {
                self.pages.init(crate::types::PageId(pfn as u32), SLAB_FRAME, 0);
                self.kmem.boot_frames += 1;
            }
        }
        for z in list {
            while self.kmem.boot_frames < want {
                match self.zones[z].rmqueue_order0_unmovable() {
                    Some(pfn) => {
                        self.pages.init(crate::types::PageId(pfn as u32), SLAB_FRAME, 0);
                        self.kmem.boot_frames += 1;
                    }
                    None => break,
                }
            }
        }
    }

    /// `pcpu_alloc()`: `bytes` per possible CPU.
    pub fn pcpu_alloc(&mut self, bytes: u64) -> u64 {
        let total = bytes * self.nr_cpu_ids as u64;
        self.kmem.percpu += total;
        total
    }

    /// `free_percpu()` of an allocation that took `total` bytes over all CPUs.
    pub fn pcpu_free(&mut self, total: u64) {
        self.kmem.percpu -= total;
    }

    /// `kmalloc()`; returns the bytes taken.
    pub fn kmalloc(&mut self, size: u64) -> u64 {
        let b = kmalloc_size(size);
        self.kmem.slab += b;
        b
    }

    /// `kfree()` of an object that took `bytes`.
    pub fn kfree(&mut self, bytes: u64) {
        self.kmem.slab -= bytes;
    }

    /// Memory in use as `free` reports it ("used": total - free - buffers/cache): the boot
    /// baseline plus the kernel memory the run added, plus anonymous memory (none yet).
    pub fn used_bytes(&self) -> u64 {
        let k = &self.kmem;
        k.boot_used + (k.percpu - k.boot_percpu) + (k.slab - k.boot_slab) + k.other + self.vmstat.nr_anon_pages * crate::types::PAGE_SIZE
    }
}

/// `sizeof(struct radix_tree_node)` with `RADIX_TREE_MAP_SHIFT` 6 on x86_64 (4.x: 576 bytes;
/// `struct xa_node` keeps the size), the page cache's tree node.
pub const RADIX_TREE_NODE_SIZE: u64 = 576;

/// SLUB's `calculate_order()` for objects of `size` bytes on a machine with `cpus` CPUs
/// (mm/slub.c, 3.x-6.x): the smallest order whose slab holds `slub_min_objects` = 4 x
/// (fls(nr_cpu_ids) + 1) objects, at most `slub_max_order` 3 (`PAGE_ALLOC_COSTLY_ORDER`).
/// Returns (order, objects per slab).
pub fn slub_order(size: u64, cpus: u32) -> (u32, u64) {
    let fls = 32 - cpus.max(1).leading_zeros() as u64;
    let min_objects = 4 * (fls + 1);
    let mut order = 0;
    while order < 3 && (crate::types::PAGE_SIZE << order) / size < min_objects {
        order += 1;
    }
    (order, (crate::types::PAGE_SIZE << order) / size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kmalloc_rounds_to_its_caches() {
        assert_eq!(kmalloc_size(1), 8);
        assert_eq!(kmalloc_size(24), 32);
        assert_eq!(kmalloc_size(64), 64);
        assert_eq!(kmalloc_size(65), 96);
        assert_eq!(kmalloc_size(100), 128);
        assert_eq!(kmalloc_size(200), 256);
        assert_eq!(kmalloc_size(8192), 8192);
        assert_eq!(kmalloc_size(8193), 16384);
        assert_eq!(kvmalloc_size(98_320), (0, 128 << 10));
        assert_eq!(kvmalloc_size(5 << 20), (0, 5 << 20));
    }
}
