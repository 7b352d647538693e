//! The life of a memory cgroup (kernel/cgroup/cgroup.c with mm/memcontrol.c's css callbacks):
//! `mkdir` allocates and onlines it, `rmdir` takes it offline, and it stays allocated — a
//! dying memcg — until the last thing charged to it is gone; then it is freed.
//!
//! What a memcg costs in kernel memory is per kernel era (`profile::MemcgKmemCost`): percpu
//! statistics for every possible CPU (and node), the `mem_cgroup` structure and its per-node
//! parts, the cgroup core and kernfs objects. The seed-003 policy
//! `memcg_percpu_release_on_offline` frees the percpu statistics at offline.

use crate::kernel::Kernel;
use crate::memcontrol::{MemcgState, MEM_CGROUP_ID_MAX};
use crate::types::MemcgId;

/// `sizeof(struct kernfs_node)` in its slab cache.
pub const KERNFS_NODE: u64 = 128;

/// Slab of `n` control files: a kernfs node and a name each (freed at rmdir).
pub fn kernfs_files_bytes(n: u64) -> u64 {
    n * (KERNFS_NODE + crate::profile::KERNFS_NAME)
}

/// Why a cgroup operation failed, as the syscall would (`errno`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Errno {
    /// The cgroup exists (mkdir).
    EEXIST,
    /// No such cgroup (or its parent is missing).
    ENOENT,
    /// The cgroup has tasks or live children (rmdir).
    EBUSY,
    /// No memcg id left (more than 65535 memcgs).
    ENOSPC,
    /// A kernel allocation could not be charged to the memcg.
    ENOMEM,
    /// Permission denied (opening a directory without search or read permission).
    EACCES,
    /// A `wait` op whose event no task will post any more (the run ended with it blocked).
    EDEADLK,
    /// An argument this kernel does not accept (madvise COLD/PAGEOUT before 5.4).
    EINVAL,
}

impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Errno::EEXIST => "EEXIST (the cgroup exists)",
            Errno::ENOENT => "ENOENT (no such cgroup)",
            Errno::EBUSY => "EBUSY (the cgroup has tasks or live children)",
            Errno::ENOSPC => "ENOSPC (no memcg id left)",
            Errno::ENOMEM => "ENOMEM (the memcg could not be charged)",
            Errno::EACCES => "EACCES (no search permission on a directory of the path, or no read permission on the directory)",
            Errno::EDEADLK => "still waiting at the end of the run: no task posted the event again",
            Errno::EINVAL => "EINVAL (the kernel profile does not know this advice: MADV_COLD and MADV_PAGEOUT are 5.4+)",
        })
    }
}

/// `/a/b` for a cgroup path written `a/b`, `/a/b` or `a/b/`; `/` for the root.
pub fn normalize(path: &str) -> String {
    let p = path.trim_matches('/');
    if p.is_empty() {
        "/".to_string()
    } else {
        format!("/{p}")
    }
}

impl Kernel {
    /// `cgroup_mkdir()` -> `mem_cgroup_css_alloc()` + `mem_cgroup_css_online()`: create the
    /// memcg at `path`, account its kernel memory, and give it a kmem id
    /// (`memcg_online_kmem()`), growing every list_lru if the id does not fit
    /// (`memcg_update_all_list_lrus()`).
    pub fn cgroup_mkdir(&mut self, path: &str) -> Result<MemcgId, Errno> {
        let path = normalize(path);
        if self.memcgs.by_path(&path).is_some() {
            return Err(Errno::EEXIST);
        }
        let (parent_path, name) = match path.rsplit_once('/') {
            Some(("", n)) => ("/".to_string(), n.to_string()),
            Some((p, n)) => (p.to_string(), n.to_string()),
            None => return Err(Errno::ENOENT),
        };
        let parent = self.memcgs.by_path(&parent_path).ok_or(Errno::ENOENT)?;
        let m = self.memcgs.create(parent, &name).ok_or(Errno::ENOSPC)?;
        for nid in 0..self.nr_nodes {
            let v = self.lruvecs.len();
            self.lruvecs.push(crate::mmzone::Lruvec::new(v, self.profile.lru_gen, self.now));
            self.lru_stats.push(Some(self.lruvec_idx(parent, nid)));
        }
        self.shadow_nodes.push(Default::default());
        self.reclaim_iter.push([MemcgId::NONE; crate::vmscan::DEF_PRIORITY as usize + 1]);
        debug_assert_eq!(self.lruvecs.len(), self.memcgs.len() * self.nr_nodes as usize);
        // mem_cgroup_css_online() -> lru_gen_online_memcg() (6.3+)
        self.lru_gen_online_memcg(m);
        // mem_cgroup_alloc(): percpu statistics, then the structures; cgroup_create(): the
        // cgroup, its other per-controller objects, its kernfs directory and control files.
        let c = self.profile.memcg_kmem.clone();
        let nodes = self.nr_nodes as u64;
        let percpu = self.pcpu_alloc(c.vmstats_percpu + nodes * c.lruvec_stats_percpu + c.other_percpu);
        let mut slab = self.kmalloc(c.memcg_struct + 8 * nodes); // + nodeinfo[] pointers
        if c.memcg_vmstats_struct > 0 {
            slab += self.kmalloc(c.memcg_vmstats_struct);
        }
        for _ in 0..nodes {
            slab += self.kmalloc(c.per_node_struct);
        }
        slab += self.kmalloc(c.cgroup_struct);
        let kernfs = kernfs_files_bytes(c.kernfs_files) + (c.kernfs_files + 1) * crate::profile::KERNFS_IDR_PER_FILE;
        slab += c.cgroup_other_slab + kernfs;
        self.kmem.slab += c.cgroup_other_slab + kernfs;
        let mc = &mut self.memcgs.memcgs[m.idx()];
        mc.percpu_bytes = percpu;
        mc.slab_bytes = slab;
        // memcg_online_kmem()
        self.account_shrinker_info();
        let kid = self.memcgs.kmem_ids.alloc(0, MEM_CGROUP_ID_MAX - 1).ok_or(Errno::ENOSPC)?;
        self.memcgs.memcgs[m.idx()].kmem_id = Some(kid);
        if kid >= self.memcgs.nr_cache_ids {
            let new = (2 * (kid + 1)).clamp(4, MEM_CGROUP_ID_MAX);
            self.memcg_update_all_list_lrus(new);
        }
        Ok(m)
    }

    /// `cgroup_rmdir()` -> `mem_cgroup_css_offline()`: take the memcg at `path` offline. Its
    /// list_lru items go to the parent (`memcg_reparent_list_lrus()`), its kmem id and
    /// memcg id are released, and — with `memcg_percpu_release_on_offline` — its percpu
    /// statistics are flushed and freed. It is freed at once if nothing is charged to it,
    /// else it stays dying.
    pub fn cgroup_rmdir(&mut self, path: &str) -> Result<(), Errno> {
        let path = normalize(path);
        if path == "/" {
            return Err(Errno::EBUSY);
        }
        let m = self.memcgs.by_path(&path).ok_or(Errno::ENOENT)?;
        let mc = self.memcgs.get(m);
        if mc.nr_tasks > 0 || mc.children.iter().any(|c| self.memcgs.get(*c).state == MemcgState::Online) {
            return Err(Errno::EBUSY);
        }
        self.memcgs.online.remove(&path);
        self.memcgs.memcgs[m.idx()].state = MemcgState::Dying;
        self.reclaim_walk_dirty(m);
        // mem_cgroup_css_offline() -> lru_gen_offline_memcg() (6.3+), drain_all_stock():
        // no CPU's stock keeps the memcg cached.
        self.lru_gen_offline_memcg(m);
        self.drain_all_stock(m);
        let parent = self.memcgs.get(m).parent.unwrap_or(MemcgId::ROOT);
        self.dcache_reparent(m, parent);
        self.xa_nodes_reparent(m, parent);
        if self.memcgs.memcgs[m.idx()].kmem_id.is_some() {
            self.memcg_reparent_list_lrus(m);
            let kid = self.memcgs.memcgs[m.idx()].kmem_id.take().expect("checked");
            self.memcgs.kmem_ids.free(kid);
        }
        // mem_cgroup_id_put(): without swap records nothing else holds the id.
        let id = std::mem::replace(&mut self.memcgs.memcgs[m.idx()].id, 0);
        self.memcgs.ids.free(id);
        // kernfs_remove(): the control files go at rmdir; the directory stays with the css.
        let files = kernfs_files_bytes(self.profile.memcg_kmem.kernfs_files);
        self.kfree(files);
        self.memcgs.memcgs[m.idx()].slab_bytes -= files;
        if self.policies.memcg_percpu_release_on_offline {
            // The series: flush the percpu statistics into atomic counters (one kmalloc'ed
            // copy of the same arrays), then free the percpu memory. The copy, as
            // kernel/patches/003-percpu-release does it on 6.1: `memcg_vmstats_atomic` holds
            // the state and event arrays with their flushed copies, not `nr_page_events` and
            // `targets[2]` (24 B), plus the pointer to the released percpu memory (8 B);
            // `lruvec_stats_atomic` the lruvec arrays plus that pointer.
            let c = self.profile.memcg_kmem.clone();
            let nodes = self.nr_nodes as u64;
            let release = (c.vmstats_percpu + nodes * c.lruvec_stats_percpu) * self.nr_cpu_ids as u64;
            self.pcpu_free(release);
            let mut atomics = self.kmalloc(c.vmstats_percpu - 24 + 8);
            for _ in 0..nodes {
                atomics += self.kmalloc(c.lruvec_stats_percpu + 8);
            }
            let mc = &mut self.memcgs.memcgs[m.idx()];
            mc.percpu_bytes -= release;
            mc.slab_bytes += atomics;
        }
        self.mem_cgroup_try_free(m);
        Ok(())
    }

    /// `css_release()` -> `mem_cgroup_css_free()` once nothing refers to a dying memcg: no
    /// pages charged, no pinning kernel objects, no children left. Frees its kernel memory,
    /// then tries the parent.
    pub fn mem_cgroup_try_free(&mut self, m: MemcgId) {
        let mc = self.memcgs.get(m);
        if mc.state != MemcgState::Dying
            || mc.counter.usage > 0
            || mc.swap > 0
            || mc.kmem_pins > 0
            || mc.children.iter().any(|c| self.memcgs.get(*c).state != MemcgState::Freed)
        {
            return;
        }
        let (percpu, slab, parent, events) = (mc.percpu_bytes, mc.slab_bytes, mc.parent, mc.events);
        // Since 5.3 the counters of a freed memcg are folded into its parent, so that the
        // hierarchical memory.stat of the ancestors keeps them.
        if let Some(p) = parent {
            for (i, e) in events.iter().enumerate() {
                self.memcgs.memcgs[p.idx()].events[i] += e;
            }
            self.memcgs.memcgs[m.idx()].events = [0; crate::memcontrol::NR_MEMCG_EVENTS];
        }
        // mem_cgroup_css_release() -> lru_gen_release_memcg() (6.3+)
        self.lru_gen_release_memcg(m);
        // A CPU's stock that cached the memcg after it went offline (a charge to the dying
        // memcg) holds a css reference the kernel drops when that slot is drained; the engine
        // frees the memcg now and drains those slots with it.
        let slots = self.profile.memcg_stock_slots;
        for cpu in 0..self.memcg_stock.len() {
            let before = self.memcg_stock[cpu];
            self.memcg_stock[cpu].forget(m, slots);
            self.stock_changed(cpu, &before);
        }
        self.pcpu_free(percpu);
        self.kmem.slab -= slab;
        let mc = &mut self.memcgs.memcgs[m.idx()];
        mc.percpu_bytes = 0;
        mc.slab_bytes = 0;
        mc.state = MemcgState::Freed;
        self.memcgs.nr_allocated -= 1;
        self.account_shrinker_info();
        if let Some(p) = parent {
            self.memcgs.unlink_child(p, m);
            self.mem_cgroup_try_free(p);
        }
    }

    /// `memcg_kmem_get_cache()` -> `memcg_create_kmem_cache()` (kernels before 5.9): the
    /// first allocation by `memcg` from each of `caches` accounted slab caches creates the
    /// memcg's own copy of the cache, which lives until the memcg is freed. `cache_set`
    /// names the group of caches (fork+exec, file creation) so each is counted once.
    pub fn memcg_kmem_touch_caches(&mut self, memcg: MemcgId, cache_set: u8, caches: u64) {
        let c = self.profile.memcg_kmem.clone();
        if !c.per_memcg_kmem_caches || memcg == MemcgId::ROOT || memcg == MemcgId::NONE {
            return;
        }
        let mc = &self.memcgs.memcgs[memcg.idx()];
        if mc.kmem_cache_sets & (1 << cache_set) != 0 {
            return;
        }
        self.memcgs.memcgs[memcg.idx()].kmem_cache_sets |= 1 << cache_set;
        let percpu = self.pcpu_alloc(caches * c.kmem_cache_clone_percpu);
        let slab = caches * c.kmem_cache_clone_slab;
        self.kmem.slab += slab;
        let mc = &mut self.memcgs.memcgs[memcg.idx()];
        mc.percpu_bytes += percpu;
        mc.slab_bytes += slab;
    }

    /// A short program forked and exec'ed by a task in `memcg` runs and exits: its objects
    /// are freed, but in kernels before 5.9 the memcg keeps its copies of the caches.
    pub fn process_spawned(&mut self, memcg: MemcgId) {
        self.memcg_kmem_touch_caches(memcg, 0, crate::profile::FORK_EXEC_CACHES);
    }

    /// `cgroup_attach_task()`: move a task from memcg `from` to the memcg at `path`. Its
    /// charges stay where they are (no `move_charge_at_immigrate`).
    pub fn cgroup_attach_task(&mut self, from: MemcgId, path: &str) -> Result<MemcgId, Errno> {
        let to = self.memcgs.by_path(&normalize(path)).ok_or(Errno::ENOENT)?;
        self.memcgs.add_tasks(from, -1);
        self.memcgs.add_tasks(to, 1);
        Ok(to)
    }
}
