//! The page cache's index (lib/xarray.c, include/linux/xarray.h).
//!
//! An [`XArray`] is a radix tree of 64-slot nodes, as the kernel's: a leaf node (`struct
//! xa_node` at shift 0) holds the slots of one 64-page range ("chunk") of the file, and inner
//! nodes (shift 6, 12, ...) hold 64 children each. A node is allocated when the first entry
//! lands in its range (`xas_create()`) and freed when its last entry goes (`xas_store()` →
//! `xas_delete_node()`); the tree grows a level when an index beyond its reach is stored
//! (`xas_expand()`) and drops levels whose only child is child 0 (`xas_shrink()`). Host
//! memory is therefore proportional to the entries held (resident pages and shadow entries),
//! not to the file's size: a 1 TiB file read through a small machine keeps only the nodes of
//! the pages resident.
//!
//! Nodes live in two arenas (leaves and inner nodes) with free lists, so a node freed and one
//! allocated later reuse the same memory, and the hot path — a lookup — allocates nothing. A
//! lookup remembers the last leaf it found (the kernel's `xa_state` keeps its node across a
//! walk in the same way), so a sequential read costs one comparison per page; a walk from the
//! root costs at most [`XA_MAX_LEVELS`] loads.
//!
//! Each leaf carries the occupancy the shadow-node shrinker needs ([`XaNode`]: pages, shadow
//! entries, list membership, the memcg its slab object is charged to), which the kernel keeps
//! in `xa_node` too (`count`, `nr_values`, `private_list`, the object's memcg).

use crate::types::MemcgId;
use std::cell::Cell;

/// Slots per xarray node is 1 << `XA_CHUNK_SHIFT` (`XA_CHUNK_SIZE` = 64, the kernel's
/// default without `CONFIG_BASE_SMALL`).
pub const XA_CHUNK_SHIFT: u32 = 6;
/// Slots per node (`XA_CHUNK_SIZE`).
pub const XA_CHUNK_SIZE: usize = 1 << XA_CHUNK_SHIFT;
const XA_CHUNK_MASK: u32 = XA_CHUNK_SIZE as u32 - 1;
/// Inner levels the tree can have above its leaves: a page index is a `u32`, whose chunk
/// number (`index >> XA_CHUNK_SHIFT`, 26 bits) takes at most 5 levels of 6 bits.
pub const XA_MAX_LEVELS: u32 = (32 - XA_CHUNK_SHIFT).div_ceil(XA_CHUNK_SHIFT);
/// No node (the arenas' null index).
const NIL: u32 = u32::MAX;

/// One xarray slot: 0 = empty, even = a page (`(id + 1) << 1`), odd = a shadow entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Slot(pub u64);

impl Slot {
    /// An empty slot.
    pub const EMPTY: Slot = Slot(0);
    /// A slot holding `page`.
    #[inline(always)]
    pub fn page(page: crate::types::PageId) -> Slot {
        Slot(((page.0 as u64) + 1) << 1)
    }
    /// The page in this slot, if any.
    #[inline(always)]
    pub fn as_page(self) -> Option<crate::types::PageId> {
        (self.0 != 0 && self.0 & 1 == 0).then(|| crate::types::PageId(((self.0 >> 1) - 1) as u32))
    }
    /// The shadow entry in this slot, if any (`xa_is_value()`).
    #[inline(always)]
    pub fn as_shadow(self) -> Option<u64> {
        (self.0 & 1 == 1).then_some(self.0)
    }
}

/// Occupancy of one 64-slot xarray node: what `workingset_update_node()` looks at to put a
/// node holding only shadow entries on the shadow-node list_lru.
#[derive(Copy, Clone, Debug)]
pub struct XaNode {
    /// Pages in the node (`node->count - node->nr_values`).
    pub pages: u8,
    /// Shadow entries in the node (`node->nr_values`).
    pub shadows: u8,
    /// On a memcg's shadow-node list.
    pub on_lru: bool,
    /// A number unique within the mapping, given each time the node goes on a list, to
    /// recognise stale list entries (a list entry names (inode, chunk, gen); the node it named
    /// may have left the list, or been freed and another allocated for the same range).
    pub gen: u32,
    /// The memcg whose shadow-node list holds the node.
    pub owner: MemcgId,
    /// The memcg the node's slab object is charged to (`NONE`: not charged).
    pub charged: MemcgId,
    /// The node's slab object is allocated (counted in `KmemStat::pagecache_slab`); freed
    /// with the charge.
    pub slab: bool,
}

impl Default for XaNode {
    fn default() -> Self {
        XaNode { pages: 0, shadows: 0, on_lru: false, gen: 0, owner: MemcgId::ROOT, charged: MemcgId::NONE, slab: false }
    }
}

/// A leaf node: the 64 slots of one chunk and their occupancy, as [`XaLeaf`] (its slots an
/// unsized slice): the arena's leaves hold all 64 inline ([`FullLeaf`]); a small file's only
/// leaf holds host slots up to the file's end only (1, 2, 4, ... 32: the missing ones are
/// empty), in a box of its own, until a store beyond them moves it to the arena. An 8 KiB file's
/// leaf so costs 16 bytes of slots, not 512. The simulated kernel's node is the same 64-slot
/// `xa_node` either way (its slab charge, its place on the shadow-node list): host memory only,
/// and the arena's leaves are reached without an extra load.
#[derive(Clone, Debug)]
pub struct XaLeafT<S: ?Sized> {
    /// Occupancy and shadow-list state.
    pub node: XaNode,
    /// The chunk (`index >> XA_CHUNK_SHIFT`) the leaf covers; `NIL` while free.
    pub chunk: u32,
    /// `slots[]`, the first `slots.len()` of them.
    slots: S,
}

/// A leaf, whatever host slots it holds.
pub type XaLeaf = XaLeafT<[Slot]>;
/// A leaf of the arena: all 64 slots inline.
type FullLeaf = XaLeafT<[Slot; XA_CHUNK_SIZE]>;

impl XaLeaf {
    /// The entry in slot `off`.
    #[inline(always)]
    pub fn slot(&self, off: usize) -> Slot {
        match self.slots.get(off) {
            Some(s) => *s,
            None => Slot::EMPTY,
        }
    }

    /// Slot `off`, to change: within the host's slots ([`XArray::create_for`] makes room).
    #[inline(always)]
    pub fn slot_mut(&mut self, off: usize) -> &mut Slot {
        &mut self.slots[off]
    }

    /// Slot `off` and the node's occupancy, to change together ([`XaLeaf::slot_mut`]).
    #[inline(always)]
    pub fn slot_node_mut(&mut self, off: usize) -> (&mut Slot, &mut XaNode) {
        (&mut self.slots[off], &mut self.node)
    }

    /// The slots the host holds (those beyond are empty).
    #[inline]
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The slots the host holds, to change (those beyond are empty).
    #[inline]
    pub fn slots_mut(&mut self) -> &mut [Slot] {
        &mut self.slots
    }
}

/// The leaf id of a mapping's small leaf (`XArray::small`); `NIL` is `u32::MAX`.
const SMALL: u32 = u32::MAX - 1;

/// A small file's leaf, boxed with `cap` (1, 2, 4, ... 32) host slots, empty.
fn small_leaf(cap: usize, chunk: u32) -> Box<XaLeaf> {
    fn mk<const N: usize>(chunk: u32) -> Box<XaLeaf> {
        Box::new(XaLeafT { node: XaNode::default(), chunk, slots: [Slot::EMPTY; N] })
    }
    match cap {
        1 => mk::<1>(chunk),
        2 => mk::<2>(chunk),
        4 => mk::<4>(chunk),
        8 => mk::<8>(chunk),
        16 => mk::<16>(chunk),
        _ => mk::<32>(chunk),
    }
}

/// The small leaf of a mapping (`Option<Box<XaLeaf>>`, cloned slot by slot).
#[derive(Debug, Default)]
struct Small(Option<Box<XaLeaf>>);

impl Clone for Small {
    fn clone(&self) -> Self {
        Small(self.0.as_ref().map(|l| {
            let mut c = small_leaf(l.slots.len(), l.chunk);
            c.node = l.node;
            c.slots.copy_from_slice(&l.slots);
            c
        }))
    }
}

/// An inner node: 64 children (inner nodes or leaves, by level).
#[derive(Clone, Debug)]
struct XaInner {
    children: [u32; XA_CHUNK_SIZE],
    count: u8,
}

/// `struct xarray`: see the module documentation.
#[derive(Clone, Debug)]
pub struct XArray {
    /// `xa_head`: the root node (a leaf when `levels` is 0), or `NIL`.
    root: u32,
    /// Inner levels above the leaves; the tree covers chunks below 64^levels.
    levels: u32,
    leaves: Vec<FullLeaf>,
    inner: Vec<XaInner>,
    /// A small file's only leaf (chunk 0, fewer than 64 host slots: [`XaLeafT`]), id `SMALL`.
    small: Small,
    /// The free lists of the two arenas, threaded through the free nodes themselves (a free
    /// leaf's `node.gen`, a free inner node's `children[0]` name the next free one): no list
    /// of its own for each of a million small files' mappings. `NIL`: empty.
    free_leaf: u32,
    free_inner: u32,
    /// Nodes on the free lists (leaves, inner nodes).
    nr_free: (u32, u32),
    /// (chunk, leaf) of the last leaf a walk found.
    cache: Cell<(u32, u32)>,
    /// Pages of the file when it was set up ([`XArray::set_size_hint`]): a leaf made for a
    /// chunk below it holds host slots up to the file's end only ([`XaLeaf`]).
    size_hint: u32,
}

impl Default for XArray {
    fn default() -> Self {
        XArray { root: NIL, levels: 0, leaves: Vec::new(), inner: Vec::new(), small: Small(None), free_leaf: NIL, free_inner: NIL, nr_free: (0, 0), cache: Cell::new((NIL, NIL)), size_hint: 0 }
    }
}

impl XArray {
    /// The file has `pages` pages: leaves made for its chunks hold host slots up to its end
    /// (the last leaf of a small file a few, not 64). Host memory only: nothing the simulated
    /// kernel sees depends on it.
    pub fn set_size_hint(&mut self, pages: u64) {
        self.size_hint = pages.min(u32::MAX as u64) as u32;
    }

    /// Host slots for a new leaf of `chunk`: for a file of fewer than 64 pages, its first
    /// chunk's leaf up to the file's end (a power of two); 64 otherwise (and for a file that
    /// has no size yet: it is being written).
    fn leaf_capacity(&self, chunk: u32) -> usize {
        if chunk == 0 && self.size_hint > 0 && (self.size_hint as usize) < XA_CHUNK_SIZE {
            (self.size_hint as usize).next_power_of_two()
        } else {
            XA_CHUNK_SIZE
        }
    }

    #[inline(always)]
    fn fits(&self, chunk: u32) -> bool {
        let bits = XA_CHUNK_SHIFT * self.levels;
        bits >= 32 || chunk >> bits == 0
    }

    /// The leaf of `chunk`, if allocated (`xas_load()` down to shift 0).
    #[inline(always)]
    pub fn leaf_id(&self, chunk: u32) -> Option<u32> {
        let (c, id) = self.cache.get();
        if c == chunk {
            return Some(id);
        }
        self.walk(chunk)
    }

    fn walk(&self, chunk: u32) -> Option<u32> {
        if self.root == NIL || !self.fits(chunk) {
            return None;
        }
        let mut n = self.root;
        for l in (0..self.levels).rev() {
            n = self.inner[n as usize].children[((chunk >> (XA_CHUNK_SHIFT * l)) & XA_CHUNK_MASK) as usize];
            if n == NIL {
                return None;
            }
        }
        self.cache.set((chunk, n));
        Some(n)
    }

    /// The entry at `index` (`xa_load()`).
    #[inline(always)]
    pub fn get(&self, index: u32) -> Slot {
        match self.leaf_id(index >> XA_CHUNK_SHIFT) {
            Some(SMALL) => self.leaf(SMALL).slot((index & XA_CHUNK_MASK) as usize),
            Some(id) => self.leaves[id as usize].slots[(index & XA_CHUNK_MASK) as usize],
            None => Slot::EMPTY,
        }
    }

    /// The leaf with id `id` (from `leaf_id`/`create`).
    #[inline(always)]
    pub fn leaf(&self, id: u32) -> &XaLeaf {
        if id == SMALL {
            return self.small.0.as_deref().expect("the small leaf exists");
        }
        &self.leaves[id as usize]
    }

    /// The leaf with id `id`, to change.
    #[inline(always)]
    pub fn leaf_mut(&mut self, id: u32) -> &mut XaLeaf {
        if id == SMALL {
            return self.small.0.as_deref_mut().expect("the small leaf exists");
        }
        &mut self.leaves[id as usize]
    }

    /// Every allocated leaf (arena order, then the small one).
    pub fn leaves(&self) -> impl Iterator<Item = &XaLeaf> {
        self.leaves.iter().filter(|l| l.chunk != NIL).map(|l| l as &XaLeaf).chain(self.small.0.as_deref())
    }

    /// Every allocated leaf (arena order, then the small one), to change.
    pub fn leaves_mut(&mut self) -> impl Iterator<Item = &mut XaLeaf> {
        self.leaves.iter_mut().filter(|l| l.chunk != NIL).map(|l| l as &mut XaLeaf).chain(self.small.0.as_deref_mut())
    }

    /// The small leaf moves to the arena, with all 64 host slots (a store past its slots, or
    /// a second chunk, needs them); its new id.
    #[cold]
    fn promote_small(&mut self) -> u32 {
        let l = self.small.0.take().expect("the small leaf exists");
        debug_assert!(self.root == SMALL && self.levels == 0, "a small leaf is only ever the root");
        let id = self.alloc_leaf(l.chunk, false);
        let f = &mut self.leaves[id as usize];
        f.node = l.node;
        f.slots[..l.slots.len()].copy_from_slice(&l.slots);
        self.root = id;
        if self.cache.get().1 == SMALL {
            self.cache.set((l.chunk, id));
        }
        id
    }

    /// [`XArray::create`], with room for stores up to slot `last_off` of the leaf.
    #[inline]
    pub fn create_for(&mut self, chunk: u32, last_off: usize) -> u32 {
        let id = self.create(chunk);
        if id == SMALL && last_off >= self.leaf(SMALL).slots.len() {
            self.promote_small()
        } else {
            id
        }
    }

    fn push_free_leaf(&mut self, id: u32) {
        self.leaves[id as usize].node.gen = self.free_leaf;
        self.free_leaf = id;
        self.nr_free.0 += 1;
    }

    fn pop_free_leaf(&mut self) -> Option<u32> {
        let id = self.free_leaf;
        if id == NIL {
            return None;
        }
        self.free_leaf = self.leaves[id as usize].node.gen;
        self.nr_free.0 -= 1;
        Some(id)
    }

    fn push_free_inner(&mut self, id: u32) {
        self.inner[id as usize].children[0] = self.free_inner;
        self.free_inner = id;
        self.nr_free.1 += 1;
    }

    fn pop_free_inner(&mut self) -> Option<u32> {
        let id = self.free_inner;
        if id == NIL {
            return None;
        }
        self.free_inner = self.inner[id as usize].children[0];
        self.nr_free.1 -= 1;
        Some(id)
    }

    fn alloc_inner(&mut self) -> u32 {
        let n = XaInner { children: [NIL; XA_CHUNK_SIZE], count: 0 };
        match self.pop_free_inner() {
            Some(id) => {
                self.inner[id as usize] = n;
                id
            }
            None => {
                // A first node takes room for one (a Vec's first allocation would hold four
                // of these 260-byte nodes).
                if self.inner.capacity() == 0 {
                    self.inner.reserve_exact(1);
                }
                self.inner.push(n);
                self.inner.len() as u32 - 1
            }
        }
    }

    /// A new leaf for `chunk`: the small one (`may_be_small`: the tree is empty and the file
    /// has fewer than 64 pages), else one of the arena's, from its free list first.
    fn alloc_leaf(&mut self, chunk: u32, may_be_small: bool) -> u32 {
        let cap = self.leaf_capacity(chunk);
        if may_be_small && cap < XA_CHUNK_SIZE {
            self.small.0 = Some(small_leaf(cap, chunk));
            return SMALL;
        }
        match self.pop_free_leaf() {
            Some(id) => {
                // A freed leaf's slots are empty.
                let l = &mut self.leaves[id as usize];
                l.node = XaNode::default();
                l.chunk = chunk;
                id
            }
            None => {
                let l = FullLeaf { slots: [Slot::EMPTY; XA_CHUNK_SIZE], node: XaNode::default(), chunk };
                // A file's first leaf takes room for one leaf only: a Vec's first allocation
                // holds four of these 540-byte leaves.
                if self.leaves.capacity() == 0 {
                    self.leaves.reserve_exact(1);
                }
                self.leaves.push(l);
                self.leaves.len() as u32 - 1
            }
        }
    }

    /// The leaf of `chunk`, allocated (with the inner nodes above it, the tree grown as
    /// needed: `xas_expand()` + `xas_create()`) if missing.
    pub fn create(&mut self, chunk: u32) -> u32 {
        if let Some(id) = self.leaf_id(chunk) {
            return id;
        }
        if self.root == SMALL {
            // A second chunk: the tree grows above a leaf of the arena.
            self.promote_small();
        }
        while !self.fits(chunk) {
            if self.root != NIL {
                let r = self.alloc_inner();
                self.inner[r as usize].children[0] = self.root;
                self.inner[r as usize].count = 1;
                self.root = r;
            }
            self.levels += 1;
        }
        let id = if self.levels == 0 {
            debug_assert_eq!(self.root, NIL);
            let id = self.alloc_leaf(chunk, true);
            self.root = id;
            id
        } else {
            if self.root == NIL {
                self.root = self.alloc_inner();
            }
            let mut n = self.root;
            for l in (1..self.levels).rev() {
                let off = ((chunk >> (XA_CHUNK_SHIFT * l)) & XA_CHUNK_MASK) as usize;
                let mut c = self.inner[n as usize].children[off];
                if c == NIL {
                    c = self.alloc_inner();
                    self.inner[n as usize].children[off] = c;
                    self.inner[n as usize].count += 1;
                }
                n = c;
            }
            let off = (chunk & XA_CHUNK_MASK) as usize;
            debug_assert_eq!(self.inner[n as usize].children[off], NIL);
            let id = self.alloc_leaf(chunk, false);
            self.inner[n as usize].children[off] = id;
            self.inner[n as usize].count += 1;
            id
        };
        self.cache.set((chunk, id));
        id
    }

    /// `xas_delete_node()`: free the leaf of `chunk` (which holds no entry any more) and every
    /// inner node left childless, then `xas_shrink()`.
    pub fn free_leaf(&mut self, chunk: u32) {
        let Some(id) = self.leaf_id(chunk) else { return };
        debug_assert!(self.leaf(id).slots().iter().all(|s| *s == Slot::EMPTY));
        self.cache.set((NIL, NIL));
        if id == SMALL {
            self.small.0 = None;
            self.root = NIL;
            return;
        }
        self.leaves[id as usize].chunk = NIL;
        self.push_free_leaf(id);
        if self.levels == 0 {
            self.root = NIL;
            return;
        }
        let mut path = [(NIL, 0usize); XA_MAX_LEVELS as usize + 1];
        let mut n = self.root;
        for (d, l) in (0..self.levels).rev().enumerate() {
            let off = ((chunk >> (XA_CHUNK_SHIFT * l)) & XA_CHUNK_MASK) as usize;
            path[d] = (n, off);
            n = self.inner[n as usize].children[off];
        }
        for d in (0..self.levels as usize).rev() {
            let (p, off) = path[d];
            let node = &mut self.inner[p as usize];
            node.children[off] = NIL;
            node.count -= 1;
            if node.count > 0 {
                break;
            }
            self.push_free_inner(p);
            if d == 0 {
                self.root = NIL;
                self.levels = 0;
                return;
            }
        }
        // xas_shrink(): a root whose only child is child 0 gives way to it.
        while self.levels > 0 {
            let r = &self.inner[self.root as usize];
            if r.count != 1 || r.children[0] == NIL {
                break;
            }
            let child = r.children[0];
            self.push_free_inner(self.root);
            self.root = child;
            self.levels -= 1;
        }
    }

    fn next_in(&self, n: u32, l: u32, base: u64, from: u64) -> Option<u32> {
        if l == 0 {
            return Some(base as u32);
        }
        let s = XA_CHUNK_SHIFT * (l - 1);
        let start = if from > base { ((from - base) >> s) as usize } else { 0 };
        let node = &self.inner[n as usize];
        for off in start..XA_CHUNK_SIZE {
            let c = node.children[off];
            if c != NIL {
                if let Some(r) = self.next_in(c, l - 1, base + ((off as u64) << s), from) {
                    return Some(r);
                }
            }
        }
        None
    }

    /// The first chunk at or after `from` that has a leaf (`xas_find()` at shift 0).
    pub fn next_chunk(&self, from: u32) -> Option<u32> {
        if self.root == NIL || !self.fits(from) {
            return None;
        }
        self.next_in(self.root, self.levels, 0, from as u64)
    }

    /// The first index in `from..=last` holding an entry (page or shadow), `xa_find()`.
    pub fn next_entry(&self, from: u32, last: u32) -> Option<u32> {
        if from > last {
            return None;
        }
        let mut chunk = from >> XA_CHUNK_SHIFT;
        let mut off = (from & XA_CHUNK_MASK) as usize;
        loop {
            let c = self.next_chunk(chunk)?;
            if c != chunk {
                off = 0;
            }
            let leaf = self.leaf(self.leaf_id(c)?);
            if let Some(o) = (off..leaf.slots().len()).find(|&o| leaf.slots()[o] != Slot::EMPTY) {
                let index = (c << XA_CHUNK_SHIFT) | o as u32;
                return (index <= last).then_some(index);
            }
            if (c as u64 + 1) << XA_CHUNK_SHIFT > last as u64 {
                return None;
            }
            chunk = c + 1;
            off = 0;
        }
    }

    /// Host bytes of the tree.
    pub fn host_bytes(&self) -> usize {
        self.leaves.capacity() * std::mem::size_of::<FullLeaf>()
            + self.small.0.as_deref().map_or(0, std::mem::size_of_val)
            + self.inner.capacity() * std::mem::size_of::<XaInner>()
    }

    /// Allocated (leaf, inner) nodes.
    pub fn nr_nodes(&self) -> (usize, usize) {
        (self.leaves.len() - self.nr_free.0 as usize + self.small.0.is_some() as usize, self.inner.len() - self.nr_free.1 as usize)
    }
}
