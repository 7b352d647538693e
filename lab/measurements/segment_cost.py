"""The host disk's time per segment, not per byte (rawin21, 2026-11-30 06:40, 6.18.44-fc-v782, load 12.9-13.7,
under the host lock): O_DIRECT reads of a 128 MiB file on /var/tmp (/dev/vda, virtio-blk, max_segments
254) into a buffer of 4 KiB pages (one bio segment a page) and into the same buffer backed by
transparent huge pages (MADV_HUGEPAGE on a private mapping, 2 MiB aligned: one segment per 2 MiB), 8 MiB
and 1 MiB a read, median of 16, alternated twice. Seen: 4 KiB pages 3336-3568 us for 8 MiB (2.35-2.51
GB/s), 406-427 us for 1 MiB; huge pages 1161-1186 us (7.08-7.23 GB/s), 148-149 us. So a request's time
on this disk grows with its segments (physically contiguous runs of memory), which is why the kernel's
readahead of large folios reads faster than `memtwin calibrate`'s O_DIRECT reads of 4 KiB buffers
(trace-sqlite3-mmap's 40M known_out) and why the host runner's loop device completes a large-folio
window in 1.6-2.1 ms and an order-0 window (~16 requests of 128 single-page segments) in 3.6-4.9 ms
(lab/validation/large-folios.md, "The loop device's window measured by the device"). Usage, as root:
flock /tmp/memtwin-host.lock python3 lab/measurements/segment_cost.py (its scratch file
/var/tmp/memtwin-segment-cost.bin is removed at the end)."""
import mmap, os, statistics, time, ctypes, sys
path = "/var/tmp/memtwin-segment-cost.bin"
size = 128 << 20
if not os.path.exists(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    blk = os.urandom(1 << 20)
    for i in range(size >> 20):
        os.write(fd, blk)
    os.fsync(fd); os.close(fd)
libc = ctypes.CDLL("libc.so.6", use_errno=True)
MADV_HUGEPAGE = 14
def buf(huge):
    m = mmap.mmap(-1, 16 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    base = (addr + (2 << 20) - 1) & ~((2 << 20) - 1)
    if huge:
        assert libc.madvise(ctypes.c_void_p(base), ctypes.c_size_t(8 << 20), MADV_HUGEPAGE) == 0
    mv = memoryview(m)[base - addr: base - addr + (8 << 20)]
    mv[::4096] = b"x" * (len(mv[::4096]))  # fault it in
    return m, mv
fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
out = {}
for huge in (False, True, False, True):
    m, mv = buf(huge)
    with open("/proc/self/smaps_rollup") as f:
        ah = [l for l in f if l.startswith("AnonHugePages")][0].split()[1]
    for bs in (8 << 20, 1 << 20):
        ts = []
        for i in range(16):
            off = ((i * 7) % 16) * (8 << 20)
            t0 = time.perf_counter_ns(); n = os.preadv(fd, [mv[:bs]], off); ts.append(time.perf_counter_ns() - t0)
            assert n == bs
        print(f"huge={huge} AnonHugePages={ah}kB bs={bs>>20}MiB median {statistics.median(ts)/1e3:.0f} us  ({bs/statistics.median(ts):.2f} GB/s)")
    mv.release(); m.close()
os.close(fd)
os.unlink(path)
