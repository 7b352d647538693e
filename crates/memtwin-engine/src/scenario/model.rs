//! The typed, validated scenario the engine runs: every name resolved, every size in bytes.

use crate::memcontrol::CgroupVersion;
use crate::profile::{KernelProfile, Policies};
use crate::types::Nanos;

/// A scenario after a variant and `--set` overrides were applied and checked.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// `scenario.name`.
    pub name: String,
    /// `scenario.description`.
    pub description: String,
    /// The variant applied, if any.
    pub variant: Option<String>,
    /// `scenario.seed`: drives every random choice.
    pub seed: u64,
    /// `kernel.boot_seed`: the kernel's own random numbers (`get_random_u32_below()`: the memcg
    /// LRU's bins, 6.3+), which a real kernel draws afresh at every boot; another value is
    /// another boot of the same machine and workload (0, the default, is the engine's fixed
    /// stream, [`crate::lru_gen::MEMCG_LRU_RAND_SEED`]).
    pub boot_seed: u64,
    /// The machine.
    pub machine: Machine,
    /// The kernel profile.
    pub profile: KernelProfile,
    /// Seed mechanisms switched on.
    pub policies: Policies,
    /// `/sys/kernel/mm/transparent_hugepage/enabled` = always: anonymous faults in a 2 MiB
    /// aligned range try a huge page first.
    pub thp: bool,
    /// `/sys/kernel/mm/transparent_hugepage/shmem_enabled` (`[kernel] shmem_enabled`): its
    /// `deny` and `force` override every tmpfs mount's `huge=` (`shmem_is_huge()`).
    pub shmem_enabled: Option<crate::shmem::ShmemHuge>,
    /// cgroup interface.
    pub cgroup_version: CgroupVersion,
    /// Block devices.
    pub devices: Vec<DeviceSpec>,
    /// Memory cgroups, parents before children.
    pub cgroups: Vec<CgroupSpec>,
    /// Mounted file systems declared at boot.
    pub mounts: Vec<MountSpec>,
    /// Files (declared, and those that `write { create = true }` ops create).
    pub files: Vec<FileSpec>,
    /// Directories, parents before children (`/` is implicit: root's, mode 0755, unless
    /// declared).
    pub dirs: Vec<DirSpec>,
    /// Tasks.
    pub tasks: Vec<TaskSpec>,
    /// Time-series sampling interval.
    pub sample_interval: Nanos,
    /// Metrics the report shows first (all are computed).
    pub report_metrics: Vec<String>,
    /// Which files each step's `resident_pages` lists (`[report] resident_pages`).
    pub resident_pages: ResidentPagesReport,
    /// `[validation] on` is `"host"` or `"qemu"`: a real-kernel runner (`memtwin real`) records
    /// the scenario, and its setup writes and fsync()s every declared disk file before the
    /// tasks ([`crate::kernel::Kernel::wb_setup_writeout`]). False for every other scenario (users',
    /// scenarios/*.toml, seeds, wip): their declared files were written at some unknown time,
    /// usually long before, and those completions have aged out of the writeback domain.
    pub runner_setup: bool,
    /// `[validation] setup_writes`: the runner's set-up writes as its recording timed them,
    /// (bytes, time from the write's fsync() return to the tasks' start), in the order it made
    /// them (QEMU runner since wbt23: each declared file, then its 16 MiB calibration file).
    /// Empty: the declared disk files, back to back, ending as the tasks start.
    pub setup_writes: Vec<(u64, Nanos)>,
}

/// `[report] resident_pages`: which files a step's `resident_pages` lists. Every step also
/// carries `pagecache`, the machine's page-cache total (`NR_FILE_PAGES`), whatever this says.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ResidentPagesReport {
    /// `"step"` (default): the files the step's own ops name (read, write, stat, fsync, the
    /// files an fadvise names or finds below its directory), files with no page left out. Its
    /// cost follows the step's ops, not the machine's files: 10,000 containers each reading its
    /// own file give 10,000 entries, not 10,000 x 10,000.
    #[default]
    Step,
    /// `"all"`: every file of the machine with resident pages, at the end of every step (a
    /// whole-machine snapshot; costs the number of files per step).
    All,
}

/// `[machine]`.
#[derive(Clone, Debug)]
pub struct Machine {
    /// RAM in bytes.
    pub ram: u64,
    /// Possible CPUs.
    pub cpus: u32,
    /// Memory the kernel keeps for itself (struct pages, kernel image, slab at boot), bytes.
    pub kernel_reserved: u64,
    /// NUMA nodes (`nr_node_ids`); RAM is split evenly between them.
    pub nodes: u32,
    /// Per node, the memory the kernel and the booted system hold there when the experiment
    /// starts (a node's /sys/devices/system/node/nodeN/meminfo MemTotal less MemFree, plus what
    /// firmware and the kernel took before that), bytes; empty: `kernel_reserved`, split evenly.
    pub node_reserved: Vec<u64>,
    /// Bytes of node 0 in ZONE_DMA32 (the first 4 GiB of physical memory less the PCI hole);
    /// 0 = the machine is modelled with one Normal zone per node.
    pub dma32: u64,
    /// Bytes of swap (`swapon`); 0 = none.
    pub swap: u64,
    /// Index into `devices` of the device holding the swap area.
    pub swap_device: Option<usize>,
    /// `[machine] swap_file`: the swap area is a swap file on that device's file system
    /// (`swapon` of a regular file, as the host runner makes it: `claim_swapfile()` leaves
    /// `SWP_BLKDEV` unset), not the block device itself (the QEMU guest's /dev/vdb). The
    /// difference the engine models: 6.12+ shmem swap-out of a large folio whole
    /// ([`crate::shmem::ShmemSwapOut`]).
    pub swap_file: bool,
    /// zswap in front of the swap area (`[machine] zswap`), `None` when not asked for.
    pub zswap: Option<crate::zswap::ZswapParams>,
    /// /proc/meminfo `Percpu` at the start of the experiment, bytes.
    pub boot_percpu: u64,
    /// /proc/meminfo `Slab` at the start of the experiment, bytes.
    pub boot_slab: u64,
    /// `free`'s "used" at the start of the experiment, bytes.
    pub boot_used: u64,
    /// Superblocks the booted system already has (proc, sysfs, tmpfs, cgroup, pipefs,
    /// sockfs, ...), each with two memcg-aware list_lrus.
    pub boot_superblocks: u32,
    /// The root file system's type, on every device (`[machine] fs`, one of
    /// [`crate::fs::FS_TYPES`] other than tmpfs; default "ext4"): files on a device and not
    /// below a `[mounts]` mount point live on it.
    pub fs: String,
    /// Its superblock features that matter to the page cache (`[machine] fs_features`, ext4
    /// only: [`crate::fs::EXT4_FEATURES`]), sorted, each once.
    pub fs_features: Vec<String>,
    /// How many times slower than the reference machine its CPUs run the kernel's code
    /// (`[machine] cpu_slowdown`, default 1): every CPU cost is that many times longer
    /// ([`crate::profile::CpuCost::scaled`]), the devices' speeds unchanged.
    pub cpu_slowdown: u64,
    /// How many times slower than the reference machine its CPUs copy memory
    /// (`[machine] copy_slowdown`, default: `cpu_slowdown`): `copy_page` and `clear_page`
    /// take that many times longer instead ([`crate::profile::CpuCost::scaled_split`]). QEMU/TCG
    /// emulates a copy's loads and stores at a cost of its own, which the host's load moves
    /// apart from the rest of the kernel's code; `memtwin real --on qemu` measures both
    /// (`real.machine.cpu.code_slowdown`, `copy_slowdown`).
    pub copy_slowdown: Option<u64>,
    /// The machine's cross-CPU wake-up latency (`[machine] wakeup_latency`, default none): how
    /// long a task woken on another, idle CPU waits before it runs, as samples; a sleeping
    /// kswapd that `wakeup_kswapd()` wakes runs after one of them, drawn in turn by the
    /// engine's seeded random numbers ([`crate::page_alloc`]'s `kswapd_wakeup_delay`). None:
    /// at once, as on the reference machine, whose wake-ups take microseconds. For a QEMU/TCG
    /// guest, whose idle vCPU is a host thread asleep that waits for a host CPU: the samples
    /// `memtwin real --on qemu` measures at boot (`real.machine.cpu.wakeup_latency_ns`).
    pub wakeup_latency: Vec<u64>,
    /// How long a CPU-bound kworker that `queue_work()` wakes waits before it runs on its CPU
    /// (`[machine] kworker_wakeup_latency`, default none), as samples: 6.1's zswap shrink worker
    /// (`queue_work(shrink_wq, ...)` of a bound workqueue -> `wake_up_worker()`) starts one of
    /// them after the store that queued it, drawn in turn by the engine's seeded random numbers
    /// (`Kernel::kworker_wakeup_delay`). None: at once. For a QEMU/TCG guest: the mean run-queue
    /// wait of its CPU-bound kworkers that `memtwin real --on qemu` measures per step (a step's
    /// `kworker_run_delay_s` / `kworker_runs`, /proc/PID/schedstat).
    pub kworker_wakeup_latency: Vec<u64>,
    /// The vCPUs' stalls (`[machine] vcpu_stall`, durations, with `vcpu_stall_interval`, the
    /// mean time from one stall's start to the next's on one vCPU; default none): a stalled vCPU
    /// runs nothing for the stall's length (vcpu_stall.rs). For a QEMU/TCG guest on a loaded
    /// host: what `memtwin real --on qemu --vcpu-stall-probe` measures at boot (`real.machine.cpu.vcpu_stall`).
    pub vcpu_stall: Option<(Vec<u64>, u64)>,
    /// The machine's other runnable tasks, outside the scenario (`[machine]
    /// background_runnable`, a mean count, default 0), in units of
    /// [`crate::kernel::SCHED_CAPACITY_SCALE`]: CPU-bound tasks beside which a woken task waits
    /// for a CPU ([`crate::sched::wakeup_runq_wait`]) and shares the CPUs
    /// ([`crate::kernel::cfs_stretch`]). `memtwin real --on host` records the mean per step
    /// (`sched.background_runnable`: the threads in state R, sampled, less the sampler, the
    /// scenario's tasks and the loop device's kworkers serving it; runq23's recordings took
    /// /proc/stat's procs_running less the runner and the scenario's runnable tasks).
    pub background_runnable: u64,
    /// CFS shares the CPUs between sessions' autogroups at the root (`[machine]
    /// sched_autogroup = true`, with `background_entities` and `background_own_group`): see
    /// [`Autogroup`]. None: between tasks (autogroup off, or no CONFIG_SCHED_AUTOGROUP).
    pub autogroup: Option<Autogroup>,
    /// The host's own measured costs (`[machine] read_large_folio_ns`, `reclaim_call_ns`,
    /// `loop_read_window`, `anon_fault_ns`, `clear_page_ns`, `zap_page_ns`; default none: the cost table, measured on host boot v857): what
    /// `memtwin real --on host` measures before each recording (`real.machine.host_cost`) and
    /// validate gives here ([`crate::hostcal`]).
    pub host_cost: crate::hostcal::HostCost,
    /// How many times slower than the reference machine a block request's submission runs
    /// (`[machine] submit_io_slowdown`, default: the code's, `cpu_slowdown`): `submit_io` (the
    /// bio's set-up, blk-mq's submission and the driver's notify of the device, the completion)
    /// takes that many times the reference's. Under QEMU/TCG the virtio driver's notify
    /// (`virtqueue_notify()` -> `vp_notify()`) is an MMIO write that exits to QEMU's device
    /// emulation in the vCPU's own thread: the host's cost, not the guest kernel's code, which
    /// the code's factor does not scale (iso23, lab/measurements/guest-cpu-profile: a quarter
    /// of qemu61-throttle-isolated's readers' CPU). `memtwin real --on qemu` measures it at boot
    /// (`real.machine.cpu.submit_io_slowdown`: the guest's CPU time per 128 KiB O_DIRECT read
    /// against the engine's `syscall` + `submit_io`).
    pub submit_io_slowdown: Option<u64>,
    /// Free frames the boot left in node 0's first zone's non-movable (Unmovable, Reclaimable)
    /// pageblocks outside wholly free ones (`[machine] nonmovable_free`: pages, or the free
    /// buddies of orders 0..8 as an array of 9 counts; default: what `boot_used` leaves free
    /// in the last pageblock it fills): the frames a movable allocation falls back into once
    /// the Movable ones are gone (`__rmqueue_fallback()`, largest buddy first,
    /// [`crate::page_alloc::Zone::rmqueue_fallback`]), as `memtwin real --on qemu` records the
    /// boot's /proc/pagetypeinfo (`real.machine.pagetypeinfo_at_boot`: the non-movable types'
    /// free blocks below `pageblock_order`; a wholly free pageblock of any type is claimed
    /// whole, `change_pageblock_range()`, with no boost).
    /// [`crate::page_alloc::Zone::take_boot_frames_pooled`].
    pub nonmovable_free: Option<crate::page_alloc::NonmovablePool>,
}

/// `[machine] sched_autogroup = true`: kernel/sched/autogroup.c (2.6.38+, 5091faa449ee "sched:
/// Add 'autogroup' scheduling feature: automated per session task groups";
/// `sysctl_sched_autogroup_enabled`, 1 by default with CONFIG_SCHED_AUTOGROUP): every task of
/// the root cpu cgroup runs in its session's task group (`task_wants_autogroup()`,
/// `autogroup_task_group()`), whose entity competes at the root run queue at its autogroup's
/// nice weight (`proc_sched_autogroup_set_nice()`), the tasks within it; kthreads and
/// processes of no `setsid()` session stay root-level tasks (`autogroup_default.tg =
/// &root_task_group`). The scenario's tasks share one autogroup (the runner's session).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Autogroup {
    /// The others' root-level entities, a mean (`[machine] background_entities`, units of
    /// [`crate::kernel::SCHED_CAPACITY_SCALE`], each entity at its weight over NICE_0_LOAD, at
    /// most 1; default `background_runnable`, every other task an autogroup of its own): `memtwin
    /// real --on host` records it per step (`sched.background_entities`).
    pub entities: u64,
    /// Other runnable tasks inside the scenario's own autogroup, a mean (`[machine]
    /// background_own_group`, same units, default 0; `sched.background_own_group`).
    pub own_group: u64,
}

/// `[mounts.PATH]`.
#[derive(Clone, Debug)]
pub struct MountSpec {
    /// Mount point.
    pub path: String,
    /// File-system type.
    pub fs: String,
    /// Backing device index (none for tmpfs).
    pub device: Option<usize>,
    /// A tmpfs mount's `huge=` option (`[mounts.PATH] huge`, mm/shmem.c `shmem_parse_huge()`).
    pub huge: Option<crate::shmem::ShmemHuge>,
}

/// `[devices.NAME]`.
#[derive(Clone, Debug)]
pub struct DeviceSpec {
    /// Device name.
    pub name: String,
    /// Sequential read bandwidth, bytes/s.
    pub read_bw: u64,
    /// Sequential write bandwidth, bytes/s.
    pub write_bw: u64,
    /// Access latency of a non-sequential request.
    pub seek: Nanos,
    /// `queue/read_ahead_kb`.
    pub read_ahead_kb: u64,
    /// `queue/rotational` (default true, as a virtio or SATA disk reports): a swap area on a
    /// non-rotational device is `SWP_SOLIDSTATE`, and with no rotational swap area swap-in
    /// reads ahead by virtual address (`swap_vma_readahead()`, 4.14+).
    pub rotational: bool,
    /// `read_bw`/`write_bw` are blk-throttle limits over a faster disk (the host runner's
    /// throttled loop device): each direction is served on its own budget (blkdev.rs).
    pub blk_throttle: bool,
    /// `read_bw`/`write_bw` are a QEMU throttle group's `throttling.bps-read`/`-write` (the
    /// lab's guest disk): reads queue apart from writes (blkdev.rs `qemu_throttle`).
    pub qemu_throttle: bool,
    /// The device's own queue (`queue_depth` and the keys with it), when the scenario gives
    /// one: requests in flight are served together (blkdev.rs `HwQueue`).
    pub hw: Option<HwQueueSpec>,
    /// `complete_together`: the device completes the reads in flight together, when the last
    /// is done (blkdev.rs `BlockDevice::read_batch`); default false.
    pub complete_together: bool,
    /// `scheduler`: the I/O scheduler (blkdev/elevator.rs); default the era's
    /// (`SchedKind::era_default()`: CFQ before 5.0, then mq-deadline, none on a loop device).
    pub scheduler: crate::blkdev::SchedKind,
    /// `driver_depth`: the requests the disk's driver takes from the scheduler (blkdev.rs
    /// `BlockDevice::driver_depth`); default `SchedKind::default_driver_depth()` (31 before
    /// 5.0, a SATA disk's; 128 after, the lab's virtio disk's driver tags).
    pub driver_depth: u64,
    /// `queue/max_sectors_kb`: the largest request, KiB (`bio_split_rw()` cuts at it, and
    /// `bdi->io_pages` is it in pages); with or without a queue of its own (`queue_depth`).
    /// Default 512 (`BLK_DEF_MAX_SECTORS` of 4.x, blkdev.rs `MAX_REQUEST_PAGES`).
    pub max_sectors_kb: u64,
    /// The queue keys among `scheduler`, `max_sectors_kb`, `driver_depth` and `wbt_lat_usec` the scenario gives
    /// (the others are the era's defaults): the host runner sets those on its loop device
    /// (`/sys/block/loopN/queue/*`, real.py `_queue`) and leaves the loop driver's own otherwise,
    /// so that a scenario that names no queue setting runs on the device it was recorded on.
    pub queue_keys_given: Vec<&'static str>,
    /// `wbt_lat_usec`: blk-wbt's latency target, µs (`queue/wbt_lat_usec`; 0: off;
    /// blkdev/wbt.rs). Default: off on a profile without blk-wbt (`KernelProfile::wbt`), else
    /// `wbt_default_latency_nsec()`: 75000 on a rotational device, 2000 on a non-rotational one
    /// and on the host runner's loop device (given with `queue_depth` or `blk_throttle`).
    pub wbt_lat_usec: u64,
    /// `worker_wakeup_latency`: the loop driver's worker's wait to run when a request wakes it,
    /// as samples (blkdev.rs `LoopWorker`, drivers/block/loop.c `loop_queue_work()`); empty
    /// (the default): no worker delay. Only on the host runner's loop device.
    pub worker_wakeup_latency: Vec<Nanos>,
    /// `segment_cost`: the device's time for each of a request's segments besides its bytes
    /// (blkdev.rs `HwQueue::segment_cost` on a device with its own queue, shared like
    /// `request_cost`; `BlockDevice::segment_cost` on one serving a request at a time); 0 when
    /// not given.
    pub segment_cost: Nanos,
    /// `max_segments`: `queue/max_segments`, the most segments a request holds; with one page a
    /// bio (swap I/O) the most pages of a request the task's plug builds (blkdev.rs
    /// `BlkPlug`). Given with `queue_depth` (the device's queue, `HwQueue::max_segments`) or on a
    /// `qemu_throttle` device (the guest's virtio disk: `seg_max`, 254 under the lab's QEMU);
    /// `None`: `BLK_MAX_SEGMENTS` (128).
    pub max_segments: Option<u64>,
    /// `write_latency` and `write_service_bw` on a `qemu_throttle` device: a write request that
    /// left QEMU's throttle completes `write_latency + bytes / write_service_bw` later (QEMU's
    /// service of it: its thread pool writing the image, the completion's interrupt; blkdev.rs
    /// `BlockDevice::qemu_write_service`); 0 and 0 (the default): at once.
    pub write_latency: Nanos,
    /// See `write_latency`: bytes a second; 0 with no per-byte part.
    pub write_service_bw: u64,
}

/// `[devices.NAME]`'s `queue_depth`, `request_latency`, `request_read_bw`,
/// `request_write_bw`, `request_cost`, `queue_read_bw`, `queue_write_bw` (blkdev.rs
/// `HwQueue`; its largest request is the device's `max_sectors_kb`, [`DeviceSpec`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HwQueueSpec {
    /// `tag_set.queue_depth`: requests the device serves at once.
    pub queue_depth: u32,
    /// What a request alone takes besides its transfer.
    pub request_latency: Nanos,
    /// The rate one request alone transfers at (read, write), bytes/s.
    pub request_bw: [u64; 2],
    /// The bandwidth requests in flight share (read, write), bytes/s; `[machine]
    /// loop_read_window` (a host recording's measured 8 MiB window) sets the read side
    /// ([`crate::hostcal::window_read_bw`]).
    pub bw: [u64; 2],
    /// Shared-bandwidth time each request costs besides its bytes.
    pub request_cost: Nanos,
    /// `max_segments` (`queue/max_segments`): 0 when not given (no limit of its own).
    pub max_segments: u64,
    /// `ring_descriptors`: the descriptors of the virtio ring beneath the device when it has no
    /// indirect descriptors (blkdev.rs `HwQueue::ring`); 0 when not given (no ring).
    pub ring_descriptors: u64,
    /// `queue_read_bw_batches`: samples of the read bandwidth the requests of one batch share
    /// (blkdev.rs `HwQueue::read_bw_batches`), bytes/s; empty: `bw[0]` for every batch.
    pub read_bw_batches: Vec<u64>,
}

/// `[cgroups.PATH]`; limits in bytes, `None` = "max".
#[derive(Clone, Debug)]
pub struct CgroupSpec {
    /// Path without leading slash: `ct`, `a/b`.
    pub path: String,
    /// memory.max / memory.limit_in_bytes.
    pub max: Option<u64>,
    /// memory.high (v2).
    pub high: Option<u64>,
    /// memory.low (v2).
    pub low: u64,
    /// memory.min (v2).
    pub min: u64,
    /// memory.swap.max (v2), bytes; `None` = "max".
    pub swap_max: Option<u64>,
    /// memory.memsw.limit_in_bytes (v1: memory and swap together), bytes; `None` = unlimited.
    pub memsw_max: Option<u64>,
    /// memory.swappiness (v1); `None`: inherited from the parent at creation
    /// (`mem_cgroup_css_alloc()`), vm.swappiness at the top.
    pub swappiness: Option<u64>,
    /// memory.zswap.max (v2, 5.19+), bytes; `None` = "max".
    pub zswap_max: Option<u64>,
    /// memory.zswap.writeback (v2, 6.8+): false keeps the memcg's pages off the swap device.
    pub zswap_writeback: bool,
}

/// `[files.PATH]`.
#[derive(Clone, Debug)]
pub struct FileSpec {
    /// Absolute path.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Index into `devices`; `None` for a tmpfs file (memory-backed, shmem pages).
    pub device: Option<usize>,
    /// Owner uid.
    pub uid: u32,
    /// Permission bits.
    pub mode: u32,
    /// Made by a write op (`create = true`, or a `cp` destination) rather than declared: the
    /// engine gives it an inode of size 0 from the start, but on a real kernel it does not exist
    /// until that op creates it (opening an existing file with O_TRUNC is not the same: ext4
    /// then flushes it on close, `ext4_alloc_da_blocks()`), so the real-kernel runners leave it
    /// to the op.
    pub created: bool,
}

/// A directory: `[dirs.PATH]`, or implied by the files below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirSpec {
    /// Absolute path, without a trailing `/`.
    pub path: String,
    /// Owner uid.
    pub uid: u32,
    /// Permission bits.
    pub mode: u32,
}

/// Access pattern of a read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Front to back.
    Sequential,
    /// `count` reads of `bufsize` at random aligned offsets within the range.
    Random {
        /// Number of reads.
        count: u64,
    },
}

/// `posix_fadvise()` advice given on the file before a read, as `cat` gives
/// `POSIX_FADV_SEQUENTIAL`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Advice {
    /// `POSIX_FADV_NORMAL`: the device's readahead window.
    Normal,
    /// `POSIX_FADV_SEQUENTIAL`: twice the device's window (`file->f_ra.ra_pages * 2`).
    Sequential,
    /// `POSIX_FADV_RANDOM`: no readahead (`FMODE_RANDOM`).
    Random,
}

/// One operation of a task script.
#[derive(Clone, Debug)]
pub enum OpKind {
    /// `read()` a file range in `bufsize` chunks.
    Read {
        /// Index into `files`.
        file: usize,
        /// Start offset.
        offset: u64,
        /// Bytes; `None` = to the end of the file.
        length: Option<u64>,
        /// Bytes per `read()`.
        bufsize: u64,
        /// Access pattern.
        pattern: Pattern,
        /// Advice given before reading.
        fadvise: Advice,
        /// Scan every page in user space, as grep does (`CpuCost::grep_scan_page`).
        scan: bool,
    },
    /// `write()` a file range in `bufsize` chunks, optionally `fsync()` at the end.
    Write {
        /// Index into `files`.
        file: usize,
        /// Start offset.
        offset: u64,
        /// Bytes.
        length: u64,
        /// Bytes per `write()`.
        bufsize: u64,
        /// fsync at the end.
        fsync: bool,
        /// The file is created by this write (`O_CREAT`): its dentry and inode are allocated
        /// and charged to the writer.
        create: bool,
        /// The file is opened with `O_TRUNC` (as `cp` opens its destination): its page cache
        /// is dropped before the write (`truncate_inode_pages()`).
        truncate: bool,
    },
    /// fork + exec + exit of a short program (like `dd`) from the task's cgroup.
    Exec {
        /// Program name, for reports.
        program: String,
    },
    /// `posix_fadvise()` on a file range, or on a directory (`files` below it).
    Fadvise {
        /// The path advised (a file or a directory).
        path: String,
        /// The file, or the files below the directory (indices into `files`).
        files: Vec<usize>,
        /// Whether `path` named a directory.
        directory: bool,
        /// The user-space walk (`walk = true`, as `memtwin evict` or `vmtouch -e` do): open
        /// every file below the directory, in declaration order, and advise it, instead of one
        /// call on the directory.
        walk: bool,
        /// The advice.
        advice: crate::fadvise::Advice,
        /// Start offset.
        offset: u64,
        /// Bytes; `None` = to the end.
        length: Option<u64>,
    },
    /// `stat()` a file: its dentry and inode are looked up (and cached, charged to the task).
    Stat {
        /// Index into `files`.
        file: usize,
    },
    /// `fsync()` a file.
    Fsync {
        /// Index into `files`.
        file: usize,
    },
    /// Sleep.
    Sleep {
        /// Duration.
        duration: Nanos,
    },
    /// Move the task to another cgroup (its charges stay where they are).
    Move {
        /// Cgroup path (`/` for the root).
        cgroup: String,
    },
    /// `mkdir` a cgroup.
    Mkdir {
        /// Cgroup path.
        cgroup: String,
    },
    /// `rmdir` a cgroup.
    Rmdir {
        /// Cgroup path.
        cgroup: String,
    },
    /// `mmap()` a private anonymous region of `size` bytes, or (`file`) a file range of
    /// `size` bytes, named for later ops.
    Mmap {
        /// Name, unique among the task's live mappings.
        name: String,
        /// Bytes.
        size: u64,
        /// The file mapped, `None` for anonymous memory.
        file: Option<MapFile>,
        /// What anonymous pages of it hold once written (`fill`): what zswap makes of them.
        fill: crate::zswap::AnonFill,
    },
    /// Access the pages of a mapping (or a range of it): one byte read or written per page
    /// touched, the first access of a page faulting it in.
    Touch {
        /// The mapping's name.
        name: String,
        /// What is touched and how.
        access: MapAccess,
    },
    /// `madvise()` a mapping's range.
    Madvise {
        /// The mapping's name.
        name: String,
        /// The advice.
        advice: MAdvice,
        /// Start offset within the mapping.
        offset: u64,
        /// Bytes; `None` = to the end of the mapping.
        length: Option<u64>,
    },
    /// `msync(MS_SYNC)` of a whole mapping.
    Msync {
        /// The mapping's name.
        name: String,
    },
    /// `mlock()` (`lock = true`) or `munlock()` a whole mapping.
    Mlock {
        /// The mapping's name.
        name: String,
        /// mlock or munlock.
        lock: bool,
    },
    /// `munmap()` a mapping.
    Munmap {
        /// The mapping's name.
        name: String,
    },
    /// mmtests' stutter latency probe: every `interval`, mmap `size` bytes of anonymous
    /// memory, write every page, munmap, and record how long that took; for as long as
    /// `while_task` runs.
    MmapProbe {
        /// Bytes mapped per round.
        size: u64,
        /// Sleep between rounds.
        interval: crate::types::Nanos,
        /// The task whose run the probe lasts for.
        while_task: String,
    },
    /// Post `event`: a counting semaphore shared by the scenario's tasks (a shell script's
    /// `cmd &` and `kill` ordering). Wakes the first task waiting for it, else is kept for
    /// the next `wait`.
    Post {
        /// Event name.
        event: String,
    },
    /// Wait until `event` has been posted (taking one post).
    Wait {
        /// Event name.
        event: String,
    },
    /// A recorded or imported workload (`[tasks.NAME] trace = "FILE"`): the trace's events,
    /// streamed chunk by chunk from a [`crate::trace::ChunkSource`] the caller attaches
    /// ([`crate::Simulation::attach_trace`]), run as the syscalls they record
    /// (sched/replay.rs). Never expanded into ops.
    Trace {
        /// The trace file as the scenario names it.
        path: String,
        /// Index into `files` of each of the trace header's files, by trace file id.
        files: Vec<usize>,
        /// Events in one pass of the trace (its end record), for progress.
        events: u64,
        /// Think time between events, scaled: 1 keeps the recorded gaps, 0 drops them.
        time_scale: f64,
        /// Passes over the trace.
        loops: u64,
        /// Pages of the trace's files resident when it was recorded, as (trace file id, first
        /// page, pages): put in the page cache before the first event (`initial_cache`, the
        /// default), charged to the root memcg, as pages someone else read before.
        resident: Vec<(u16, u32, u32)>,
    },
    /// Mount a file system (a new superblock with its list_lrus).
    Mount {
        /// Mount point.
        path: String,
        /// File-system type.
        fs: String,
        /// `mkdir` the mount point first (false: it exists already).
        mkdir: bool,
    },
}

impl OpKind {
    /// The op as the scenario wrote it, for messages: its kind, then the file, cgroup,
    /// mapping or event it names (`read /data/f`, `sleep 1s`, `mkdir t/1`); never the
    /// engine's internal form.
    pub fn describe(&self, files: &[FileSpec]) -> String {
        use super::limits::human_size;
        let path = |f: &usize| files.get(*f).map_or("?", |x| x.path.as_str()).to_string();
        let range = |offset: u64, length: Option<u64>| {
            let mut r = String::new();
            if offset > 0 {
                r += &format!(" from offset {}", human_size(offset));
            }
            if let Some(l) = length {
                r += &format!(", {}", human_size(l));
            }
            r
        };
        match self {
            OpKind::Read { file, offset, length, pattern, .. } => {
                let random = match pattern {
                    Pattern::Random { count } => format!(" ({count} random reads)"),
                    Pattern::Sequential => String::new(),
                };
                format!("read {}{}{random}", path(file), range(*offset, *length))
            }
            OpKind::Write { file, offset, length, .. } => format!("write {}{}", path(file), range(*offset, Some(*length))),
            OpKind::Exec { program } => format!("exec {program}"),
            OpKind::Fadvise { path, advice, offset, length, walk, .. } => {
                let a = match advice {
                    crate::fadvise::Advice::DontNeed => "dontneed",
                    crate::fadvise::Advice::WillNeed => "willneed",
                };
                format!("fadvise {a} {path}{}{}", range(*offset, *length), if *walk { " (walk)" } else { "" })
            }
            OpKind::Stat { file } => format!("stat {}", path(file)),
            OpKind::Fsync { file } => format!("fsync {}", path(file)),
            OpKind::Sleep { duration } => format!("sleep {}", crate::types::secs(*duration)) + " s",
            OpKind::Move { cgroup } => format!("move to {}", if cgroup.is_empty() { "/" } else { cgroup }),
            OpKind::Mkdir { cgroup } => format!("mkdir {cgroup}"),
            OpKind::Rmdir { cgroup } => format!("rmdir {cgroup}"),
            OpKind::Mmap { name, size, file: None, .. } => format!("mmap {name} ({})", human_size(*size)),
            OpKind::Mmap { name, size, file: Some(f), .. } => format!("mmap {name} of {}{}", path(&f.file), range(f.offset, Some(*size))),
            OpKind::Touch { name, access } => {
                let p = match access.pattern {
                    TouchPattern::Sequential => String::new(),
                    TouchPattern::Random { count } => format!(" ({count} random pages)"),
                    TouchPattern::Strided { stride } => format!(" (every {stride}th page)"),
                };
                format!("touch {name}{}{p}", range(access.offset, access.length))
            }
            OpKind::Madvise { name, advice, offset, length } => format!("madvise {} {name}{}", advice.name(), range(*offset, *length)),
            OpKind::Msync { name } => format!("msync {name}"),
            OpKind::Mlock { name, lock } => format!("{} {name}", if *lock { "mlock" } else { "munlock" }),
            OpKind::Munmap { name } => format!("munmap {name}"),
            OpKind::MmapProbe { size, while_task, .. } => format!("mmap_probe of {} while {while_task} runs", human_size(*size)),
            OpKind::Post { event } => format!("post {event}"),
            OpKind::Wait { event } => format!("wait {event}"),
            OpKind::Mount { path, fs, .. } => format!("mount {fs} on {path}"),
            OpKind::Trace { path, loops, .. } => format!("trace {path}{}", if *loops > 1 { format!(" ({loops} loops)") } else { String::new() }),
        }
    }
}

/// The file side of a file mapping (`mmap(fd, offset)`).
#[derive(Clone, Debug, PartialEq)]
pub struct MapFile {
    /// Index into `files`.
    pub file: usize,
    /// Byte offset in the file (page aligned).
    pub offset: u64,
    /// `MAP_SHARED` (writes go to the file) or `MAP_PRIVATE` (writes copy the page: COW).
    pub shared: bool,
    /// `PROT_EXEC`: the VMA has `VM_EXEC` (program text, shared libraries).
    pub exec: bool,
    /// `MAP_POPULATE`: fault every page in at mmap time (`mm_populate()`).
    pub populate: bool,
    /// `madvise()` given right after mapping.
    pub advice: MAdvice,
}

/// `madvise()` advice (include/uapi/asm-generic/mman-common.h).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MAdvice {
    /// `MADV_NORMAL`.
    Normal,
    /// `MADV_SEQUENTIAL`: `VM_SEQ_READ`.
    Sequential,
    /// `MADV_RANDOM`: `VM_RAND_READ`.
    Random,
    /// `MADV_WILLNEED`: read the range ahead.
    WillNeed,
    /// `MADV_DONTNEED`: unmap the range (file pages stay cached; private copies go).
    DontNeed,
    /// `MADV_COLD` (5.4+): deactivate the range's pages.
    Cold,
    /// `MADV_PAGEOUT` (5.4+): reclaim the range's pages.
    PageOut,
}

impl MAdvice {
    /// The scenario's spelling.
    pub fn name(self) -> &'static str {
        match self {
            MAdvice::Normal => "normal",
            MAdvice::Sequential => "sequential",
            MAdvice::Random => "random",
            MAdvice::WillNeed => "willneed",
            MAdvice::DontNeed => "dontneed",
            MAdvice::Cold => "cold",
            MAdvice::PageOut => "pageout",
        }
    }
}

/// How a `touch` op goes over a mapping.
#[derive(Clone, Debug, PartialEq)]
pub struct MapAccess {
    /// Stores (`true`) or loads.
    pub write: bool,
    /// Byte offset of the range within the mapping.
    pub offset: u64,
    /// Bytes; `None` = to the end of the mapping.
    pub length: Option<u64>,
    /// Page order.
    pub pattern: TouchPattern,
}

impl MapAccess {
    /// The whole mapping written front to back (the anonymous `touch`).
    pub fn write_all() -> Self {
        MapAccess { write: true, offset: 0, length: None, pattern: TouchPattern::Sequential }
    }
}

/// Page order of a `touch`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TouchPattern {
    /// Every page, front to back.
    Sequential,
    /// `count` pages picked uniformly at random (the scenario's seed).
    Random {
        /// Pages touched.
        count: u64,
    },
    /// Every `stride`-th page, front to back.
    Strided {
        /// Pages between two touched pages.
        stride: u64,
    },
}

/// An operation with its step name.
#[derive(Clone, Debug)]
pub struct OpSpec {
    /// Step name shown in reports (shared by the ops a `cp` or `grep` stands for).
    pub step: std::sync::Arc<str>,
    /// What it does.
    pub kind: OpKind,
}

/// `[tasks.NAME]`.
#[derive(Clone, Debug)]
pub struct TaskSpec {
    /// Task name.
    pub name: String,
    /// Index into `cgroups`, or `None` for the root.
    pub cgroup: Option<usize>,
    /// Virtual time at which the task starts.
    pub start: Nanos,
    /// The task's uid (file permission checks).
    pub uid: u32,
    /// The NUMA node the task runs on (`numa_node_id()`): where its allocations go first.
    pub node: u32,
    /// Its script.
    pub ops: Vec<OpSpec>,
    /// `step_gaps`: a real runner's time between this task's steps, replayed (memtwin validate
    /// gives a recording's, the guest runner's snapshots and /proc/kpageflags scan between one
    /// step's end and the next one's start: qemu.step_windows()). Entry k is slept before the
    /// task's step k + 2 begins, outside every step (its start snapshot is taken after it), as
    /// the kernel's clock runs on between a real runner's snapshots; steps past the list follow
    /// at once. Empty: none (a scenario as written).
    pub step_gaps: Vec<Nanos>,
}

/// What the caller read from a trace file's header and end record (the engine does no I/O):
/// the trace's files (path, size in bytes, by trace file id) and its number of events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceHeader {
    /// (path, size) of each file, in trace file id order.
    pub files: Vec<(String, u64)>,
    /// Events in the trace.
    pub events: u64,
    /// Page ranges resident at the recording's start: (file id, first page, pages).
    pub resident: Vec<(u16, u32, u32)>,
    /// The page caches a trace task's `initial_cache = "FILE"` can start from, read by the
    /// caller from FILE (a measured run's `resident_at_start`, by variant).
    pub start_caches: Vec<StartCache>,
}

/// The page cache a measured run of a trace's program started with (`memtwin measure`: the
/// trace's files after the drop, mincore), as `initial_cache = "FILE"` names it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StartCache {
    /// The `initial_cache` string that names it, as written.
    pub source: String,
    /// The variant of the scenario it is for; None: every variant FILE has no entry of its own for.
    pub variant: Option<String>,
    /// Page ranges resident then: (trace file id, first page, pages).
    pub resident: Vec<(u16, u32, u32)>,
}

/// Trace headers by the path a scenario names the trace with.
pub type TraceHeaders = Vec<(String, TraceHeader)>;
