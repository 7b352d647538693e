"""The host runner's loop device's table: the one device every host scenario that gives the device's
own queue (queue_depth and the keys with it) runs on. make_folio_scenarios.py (HOST_DEVICE, QUEUE_DEVICE:
the host-ext4-*/host-verity-* scenarios) and make_queue_scenarios.py (UNTHROTTLED: the unthrottled
host-queue-* scenarios) take it from here, and the hand-written host-queue-cold-read.toml gives the same
keys (python/tests/test_loop_device_table.py holds every host scenario with a queue to this table, and
these figures to their derivation, to 10 MB/s).

The read side (queue_read_bw, request_read_bw, queue_read_bw_batches) is derived from the loop device's own
read requests on the buffered path on an idle host (ra21: lab/measurements/loop_device_table.py over
segment_cost_buffered-idle-1130.json, the lead's two rounds of 2026-11-30 12:16-12:20 at load 0.20-0.45;
large-folios.md, "The loop device's table from an idle host"): queue_read_bw the median of the 16 batches in
which two 8 MiB windows were issued together (13 requests, 16 MiB: 2.32-2.69 GB/s less request_cost each,
hostcal.rs window_read_bw()'s rule), request_read_bw a 256 KiB request alone at no segment (87.0 us less
request_latency). They replace fio's O_DIRECT figures (3.3 and 1.4 GB/s, page-segment buffers at load 1-3,
lab/validation/loop-device.md), which request_latency and request_cost still are (the same as `memtwin calibrate
--queue` writes). Not given: segment_cost (922 ns measured, large-folios.md says why) and
max_segments.
queue_read_bw_batches: the 16 batches themselves, to 1 MB/s, in the trace's order (blkdev.rs
HwQueue::read_bw_batches: each batch of requests the device serves draws one, seeded per boot): the device's
batch-to-batch spread, which the kernel's readers meet; with queue_read_bw alone every engine boot runs one
trajectory (make_folio_scenarios.py THROTTLED_NOTES).

The rule for both sides (loop23, review16 M4): the device's figures come from traces of the loop device on an IDLE
host, rounds in which the host ran only the trace (lab/measurements/loop_write_table.py IDLE_LOAD: every 1-minute
loadavg the round recorded below 2.0), because the twin models a host that runs only the scenario: the recording
sets the host scenarios are compared with follow that rule (make_folio_scenarios.py QUIET_SETS,
make_queue_scenarios.py IDLE_COMPARED: load 0.3-1.5), the read side's trace was taken so (load 0.20-0.45), and on a
loaded host every request of the loop device carries the load's own per-request overhead (the loaded write rounds'
request alone 204 us at no byte, the idle rounds' 171), which is not the device's. Loaded rounds are kept and
printed beside (loop_write_table.py prints their figures), never taken while an idle round exists.

The write side (queue_write_bw/write_bw, request_write_bw) is derived from the loop device's own write requests
(lab/measurements/loop_write_table.py over the idle rounds of lab/measurements/loop_write_trace.py: the lead's
three of 2026-11-30 17:03-17:04, lab/measurements/loop-write-idle/, load 0.72-0.96, kernel 6.18.44-fc-v669;
large-folios.md, "The loop device's write side, traced"): queue_write_bw the median of the busy periods of an
fsync'd writeback with blk-wbt off (the 128 tags full, 64 MiB or more, less request_cost a request: the read
side's rule; 3.09-4.32 GB/s, 3.76 the median; fio's 3.4 was), request_write_bw the byte slope over the medians of
write requests alone of 4-1024 KiB (4.63 GB/s; fio's 3.5 was; its intercept, 171 us against request_latency's 50,
is not given: request_latency and request_cost stay fio's, as on the read side). blk-wbt's batches (3.25 GB/s
median idle) and the memcg writer's (2.25) are not taken as the shared rate: each of their requests carries the
per-request overhead a full queue overlaps. Not taken (loaded: loop21's eight rounds of 2026-11-30 15:30-15:58,
lab/measurements/loop-write-1130-*.json, load 7.5-16.4): 3.50 / 4.12 GB/s, what this table held until loop23.
Machine builds: the read side's trace and the host-queue idle sets were taken on 6.18.44-fc-v782, the write side's
rounds (idle and loaded) on v669, this session's machine: no write round exists on v782. On v669 the host-queue
writer alone took 0.31-0.36 s idle (loop-write-idle, memcg-wbt) where v782's idle set has it at 0.16-0.17 s beside
the reader: the write side and the sets it is compared with are not one machine's (lab/measurements/loop-rw/README.md).
"""

LOOP_READ_BW = 2520000000
LOOP_REQUEST_READ_BW = 7080000000
LOOP_READ_BW_BATCHES = [2507000000, 2573000000, 2540000000, 2692000000, 2607000000, 2622000000, 2375000000, 2432000000,
                        2522000000, 2552000000, 2562000000, 2516000000, 2468000000, 2317000000, 2398000000, 2352000000]
# the write side (loop_write_table.py, the idle rounds): the shared line and a request alone
LOOP_WRITE_BW = 3760000000
LOOP_REQUEST_WRITE_BW = 4630000000
# the device's keys besides the bandwidths shared (queue_read_bw/read_bw, queue_write_bw/write_bw), which a
# throttled device gives as queue_* and an unthrottled one as read_bw/write_bw (build.rs
# device_hw_queue); max_sectors_kb and complete_together are the generators' (make_folio_scenarios.py LOOP_QUEUE)
LOOP_REQUEST_KEYS = (f'queue_depth = 128\nrequest_latency = "50us"\nrequest_read_bw = {LOOP_REQUEST_READ_BW}\n'
                     f'queue_read_bw_batches = [{", ".join(str(b) for b in LOOP_READ_BW_BATCHES)}]\n'
                     f'request_write_bw = {LOOP_REQUEST_WRITE_BW}\nrequest_cost = "13us"\n')
