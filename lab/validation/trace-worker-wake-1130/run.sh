#!/bin/bash
# one recording of a host-queue scenario's variant (SCN, VARIANT, OUT) with the unbound kworkers'
# wake-ups traced (lab/validation/trace_worker_wake.bt: where select_task_rq_fair() puts them,
# who woke them): trace-wake-preempt-1130/run.sh with that script, the host lock held for this
# one recording only
BT=lab/validation/trace_worker_wake.bt exec "$(dirname "$0")/../trace-wake-preempt-1130/run.sh"
