//! Files and directories: inodes with a size, an owner, a mode and a place on a block device
//! (fs/inode.c), directories holding files and directories (fs/namei.c, fs/dcache.c), and
//! the permission check of a path walk (`generic_permission()`, fs/namei.c).
//! Each file occupies one contiguous extent of its device, so sequential file offsets are
//! sequential device addresses.

use crate::kernel::Kernel;
use crate::types::{DevId, DirId, InodeId};

/// The file-system types a scenario can name (`[machine] fs`, `[mounts.PATH] fs`, a mount
/// op's `fs`): what decides the folio orders its regular files' page cache takes
/// (`mapping_set_large_folios()`/`mapping_set_folio_order_range()` per file system, see
/// [`crate::profile::KernelProfile::large_folios`]).
pub const FS_TYPES: &[&str] = &["ext4", "xfs", "btrfs", "tmpfs"];

/// The ext4 features (`mkfs.ext4 -O`) a scenario can name in `[machine] fs_features`: the
/// superblock features that keep ext4's regular files at order 0 where its era has large
/// folios (`ext4_should_enable_large_folio()`, fs/ext4/inode.c, 6.16+:
/// `ext4_has_feature_verity(sb)`, `ext4_has_feature_encrypt(sb)`).
pub const EXT4_FEATURES: &[&str] = &["verity", "encrypt"];

/// `MAY_EXEC`: search permission on a directory.
pub const MAY_EXEC: u32 = 1;
/// `MAY_WRITE`.
pub const MAY_WRITE: u32 = 2;
/// `MAY_READ`.
pub const MAY_READ: u32 = 4;

/// `struct inode`, reduced to what the page cache and the block layer need.
#[derive(Clone, Debug)]
pub struct Inode {
    /// Path of the file, for reports (shared with the steps' `resident_pages`).
    pub path: std::sync::Arc<str>,
    /// `i_size` in bytes.
    pub size: u64,
    /// `i_sb->s_bdev`; `None` for a tmpfs (shmem) file, whose pages live only in memory.
    pub dev: Option<DevId>,
    /// First device page of the file's extent.
    pub disk_base: u64,
    /// `i_uid`.
    pub uid: u32,
    /// `i_mode` permission bits.
    pub mode: u32,
    /// Whether the file exists yet: files that a `write { create = true }` makes start absent.
    pub exists: bool,
    /// The superblock the file lives on (index into `Kernel::superblocks`).
    pub sb: usize,
    /// Its dentry and inode in the caches.
    pub dentry: crate::dcache::DentryState,
    /// The directory holding it (`d_parent`).
    pub parent: DirId,
}

impl Inode {
    /// `shmem_mapping()`: a tmpfs file.
    pub fn is_shmem(&self) -> bool {
        self.dev.is_none()
    }
}

/// A directory: its inode's owner and mode, its parent and its entries (`d_subdirs` of its
/// dentry). Directories hold no page cache in the engine.
#[derive(Clone, Debug)]
pub struct Directory {
    /// Absolute path, without a trailing `/` (`/` for the root).
    pub path: String,
    /// `i_uid`.
    pub uid: u32,
    /// `i_mode` permission bits.
    pub mode: u32,
    /// `d_parent`; the root is its own parent.
    pub parent: DirId,
    /// Child directories.
    pub subdirs: Vec<DirId>,
    /// Files directly inside.
    pub files: Vec<InodeId>,
}

impl Directory {
    /// `/`, owned by root, mode 0755.
    pub fn root() -> Directory {
        Directory { path: "/".into(), uid: 0, mode: 0o755, parent: DirId::ROOT, subdirs: vec![], files: vec![] }
    }
}

/// The directory part of `path` (`/` for a top-level entry).
pub fn parent_path(path: &str) -> &str {
    match path.trim_end_matches('/').rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

impl Kernel {
    /// `vfs_mkdir()`: a directory `path` owned by `uid` with `mode`, inside its parent, which
    /// is created first (owned by `uid`, mode 0755) if missing, as `mkdir -p` does. An
    /// existing directory is returned unchanged.
    pub fn vfs_mkdir(&mut self, path: &str, uid: u32, mode: u32) -> DirId {
        let path = if path == "/" { "/" } else { path.trim_end_matches('/') };
        if let Some(&d) = self.dir_index.get(path) {
            return d;
        }
        let parent = self.vfs_mkdir(parent_path(path), uid, 0o755);
        let id = DirId(self.dirs.len() as u32);
        self.dirs.push(Directory { path: path.to_string(), uid, mode, parent, subdirs: vec![], files: vec![] });
        self.dirs[parent.idx()].subdirs.push(id);
        self.dir_index.insert(path.to_string(), id);
        id
    }

    /// The directory at `path`, if there is one (`kern_path()` of a directory).
    pub fn lookup_dir(&self, path: &str) -> Option<DirId> {
        let path = if path == "/" { "/" } else { path.trim_end_matches('/') };
        self.dir_index.get(path).copied()
    }

    /// `d_add()` of a file into the directory holding its path (created by root, 0755, if
    /// missing).
    pub fn d_add_file(&mut self, inode: InodeId) {
        let parent_path = parent_path(&self.inodes[inode.idx()].path).to_string();
        let d = self.vfs_mkdir(&parent_path, 0, 0o755);
        self.inodes[inode.idx()].parent = d;
        self.dirs[d.idx()].files.push(inode);
    }

    /// `generic_permission()` / `acl_permission_check()` for `mask` (MAY_READ, MAY_WRITE,
    /// MAY_EXEC) by `uid`: the owner bits for the owner, the other bits for anyone else (the
    /// engine models no groups); root passes (`capable_wrt_inode_uidgid(CAP_DAC_OVERRIDE)`:
    /// for a directory read and search are always granted).
    pub fn dir_permission(&self, dir: DirId, uid: u32, mask: u32) -> bool {
        if uid == 0 {
            return true;
        }
        let d = &self.dirs[dir.idx()];
        let bits = if d.uid == uid { (d.mode >> 6) & 7 } else { d.mode & 7 };
        bits & mask == mask
    }

    /// `open(path, O_DIRECTORY | O_RDONLY)` by `uid`: `link_path_walk()` needs search
    /// permission on every directory above it (`may_lookup()`), and the open read permission
    /// on the directory itself (`may_open()`). False is EACCES.
    pub fn may_open_dir(&self, dir: DirId, uid: u32) -> bool {
        let mut d = dir;
        while d != DirId::ROOT {
            d = self.dirs[d.idx()].parent;
            if !self.dir_permission(d, uid, MAY_EXEC) {
                return false;
            }
        }
        self.dir_permission(dir, uid, MAY_READ)
    }

    /// `open(path, O_RDONLY)` of a file by `uid`: search permission on every directory above
    /// it (`may_lookup()`), then read permission on the file (`may_open()`,
    /// `generic_permission()`: owner bits for the owner, other bits for anyone else; root
    /// passes). False is EACCES.
    pub fn may_open_file(&self, inode: InodeId, uid: u32) -> bool {
        let f = &self.inodes[inode.idx()];
        if uid != 0 {
            let bits = if f.uid == uid { (f.mode >> 6) & 7 } else { f.mode & 7 };
            if bits & MAY_READ != MAY_READ {
                return false;
            }
        }
        let mut d = f.parent;
        loop {
            if !self.dir_permission(d, uid, MAY_EXEC) {
                return false;
            }
            if d == DirId::ROOT {
                return true;
            }
            d = self.dirs[d.idx()].parent;
        }
    }

    /// A walk of the tree below `top` (readdir of each directory, as `memtwin evict` or
    /// `vmtouch -e` do) reaches `inode` when `uid` may list every directory from `top` down to
    /// the file's (read and search permission) and open the file for reading.
    pub fn may_walk_to(&self, top: DirId, inode: InodeId, uid: u32) -> bool {
        let mut d = self.inodes[inode.idx()].parent;
        while d != top {
            if !self.dir_permission(d, uid, MAY_READ | MAY_EXEC) {
                return false;
            }
            if d == DirId::ROOT {
                return false; // not below `top`
            }
            d = self.dirs[d.idx()].parent;
        }
        self.may_open_file(inode, uid)
    }
}
