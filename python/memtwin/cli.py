"""The `memtwin` command."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import signal
import sys
import threading
import time
from typing import Optional, Sequence

from memtwin import _memtwin, hostcache, progress, record
from memtwin._memtwin import ScenarioError
from memtwin.api import Result, load
from memtwin.jsonio import OutputError, check_writable, ensure_dir, remove_empty_created, write_json
from memtwin.progress import Progress
from memtwin.real import Interrupted as RealInterrupted
from memtwin.real import RealError
from memtwin.published import evaluate, seed_table
from memtwin.report import compare_table, metrics_for, run_table, wrap

EPILOG = "Scenario format: schema/scenario.schema.json; results: schema/result.schema.json."


class _HelpFormatter(argparse.HelpFormatter):
    """argparse measures subcommand names without the indent it prints them with, so a long
    one (`reproduce`) would wrap onto its own line; count that indent."""

    def add_argument(self, action):
        super().add_argument(action)
        if action.help is not argparse.SUPPRESS:
            for sub in getattr(action, "_get_subactions", lambda: [])():
                n = len(self._format_action_invocation(sub)) + self._current_indent + self._indent_increment
                self._action_max_length = max(self._action_max_length, n)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="memtwin", description="A digital twin of Linux memory management.", epilog=EPILOG,
                                formatter_class=_HelpFormatter)
    p.add_argument("--version", action="version", version="memtwin 0.1.0")
    p.add_argument("--quiet", action="store_true", help="no progress bars on stderr (also MEMTWIN_QUIET=1)")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")

    def common(sp, variants: bool):
        sp.add_argument("file", metavar="FILE", help="scenario file (TOML)")
        if variants:
            sp.add_argument("--variant", metavar="V", help="run this variant (see the scenario's [variants.V] tables)")
        sp.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                        help="override a setting, e.g. --set kernel.cgroup=v2 or --set 'cgroups.ct.\"memory.max\"=50M' (repeatable)")
        sp.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT (schema/result.schema.json)")
        sp.add_argument("--metrics", metavar="M1,M2", help="metrics to show (default: the scenario's report.metrics)")
        sp.add_argument("--plot", metavar="DIR", help="also write the scenario's plots as PNG files into DIR (created if missing)")

    r = sub.add_parser("run", help="run one variant of a scenario", description="Run one variant of a scenario and print its steps.", epilog=EPILOG)
    common(r, True)
    c = sub.add_parser("compare", help="run every variant and compare them side by side",
                       description="Run every variant of a scenario and print a compare-kernels-style table, with the "
                                   "published figures and targets of the scenario's [published] table.", epilog=EPILOG)
    common(c, False)
    c.add_argument("--variants", metavar="A,B", help="run only these variants, in this order")
    c.add_argument("--check", action="store_true", help="exit 1 when a target in [published.checks] is missed")
    rp = sub.add_parser("reproduce", help="run every seed scenario and write an HTML report",
                        description="Run every scenarios/seed*.toml and, marked as work in progress, every "
                                    "scenarios/wip/seed*.toml, every variant; print each compare table, its targets "
                                    "and wall time, and write DIR/report.html (tables, published figures, targets and "
                                    "plots, self-contained: it works offline).", epilog=EPILOG)
    rp.add_argument("--only", nargs="+", metavar="SEED", help="run only these seeds, e.g. --only 000 003")
    rp.add_argument("--out", metavar="DIR", default=None, help="write report.html here (default build/reproduce; created if missing)")
    rp.add_argument("--check", action="store_true", help="exit 1 when a target in [published.checks] is missed, listing which "
                    "(the work-in-progress scenarios' misses are listed but do not count)")
    rp.add_argument("--scenarios", metavar="DIR", default=None, help="where the seed*.toml scenarios are (default: the repository's scenarios/)")
    rp.add_argument("--no-wip", action="store_true", help="leave out the work-in-progress scenarios of DIR/wip/")
    k = sub.add_parser("check", help="validate a scenario without running it", description="Validate a scenario (and its variants) without running it.")
    k.add_argument("file", metavar="FILE")
    k.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    b = sub.add_parser("bench", help="measure the engine's speed and memory", description="Measure simulated page events per second on the hit path and under memcg-limit reclaim, and bytes per resident page.")
    b.add_argument("--json", action="store_true", help="print the figures as JSON")
    b.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept (default 3)")
    b.add_argument("--scale", action="store_true", help="the scaling tables instead: wall time, CPU time (user, system), minor faults and peak RSS per machine RAM (64G..2T), "
                   "container count (1000..20000), file count (1e3..1e7; the engine holds at most 16 million files) and containers re-reading under global reclaim (1000..10000), each size in its own process, with the fitted growth exponents")
    b.add_argument("--only", metavar="KIND[,KIND]", help="with --scale: only these tables (ram, containers, files, reread)")
    b.add_argument("--quick", action="store_true", help="with --scale: two small sizes per table (a quick look)")
    b.add_argument("--replay", action="store_true", help="the streaming replay instead: synthetic read-heavy traces of 1e6, 1e7 and 1e8 events "
                   "(generated once into ~/.cache/memtwin-bench), each replayed in its own process: wall and CPU time, events/s, peak RSS")
    b.add_argument("--events", metavar="N[,N]", help="with --replay: these trace sizes instead (e.g. 1000000,10000000)")
    b.add_argument("--timeout", type=float, default=900, help="with --scale: seconds one size may run before it is stopped (default 900)")
    sub.add_parser("metrics", help="list every metric a step reports", description="List every metric a step reports.")
    hostcache.add_parsers(sub)
    record.add_parsers(sub)
    __import__("memtwin.replay", fromlist=["x"]).add_parser(sub)
    __import__("memtwin.cachesim", fromlist=["x"]).add_parser(sub)
    __import__("memtwin.measure", fromlist=["x"]).add_parser(sub)
    rl = sub.add_parser("real", help="run a scenario on a real kernel (this host or a QEMU guest) and record the engine's metrics",
                        description="Carry out the scenario's ops (expanded as the engine expands them) on a real kernel and "
                                    "record the same metrics in the same JSON layout as `memtwin run --json`. host: this "
                                    "kernel, in a memcg subtree memtwin-<id> and a scratch directory it removes (root only). "
                                    "qemu: a guest kernel under QEMU/TCG (see `memtwin lab doctor`).", epilog=EPILOG)
    rl.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    rl.add_argument("--on", choices=["host", "qemu"], required=True, help="where to run it")
    rl.add_argument("--variant", metavar="V", help="the variant to run; `all`: every variant a real kernel can run")
    rl.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="override a setting (repeatable)")
    rl.add_argument("--json", metavar="OUT", help="write the results as JSON to OUT (schema/result.schema.json)")
    rl.add_argument("--scratch", metavar="DIR", default="/var/tmp", help="host: where the scratch directory memtwin-<id> goes (default /var/tmp)")
    rl.add_argument("--kernel", metavar="BZIMAGE|NAME", help="qemu: boot this kernel instead of Debian's package (6.12 for the linux-6.12 profiles, 6.1 otherwise): a bzImage, "
                    "or the name of a lab build (memtwin lab kernel list)")
    rl.add_argument("--workdir", metavar="DIR", help="qemu: cache for the kernel package and images (default ~/.cache/memtwin-lab)")
    rl.add_argument("--timeout", metavar="SECONDS", type=int, help="qemu: stop the guest after this long (default: from the scenario's sizes)")
    rl.add_argument("--reclaim-trace", metavar="DIR", help="qemu: also trace who reclaims in the guest (ftrace: kswapd's wake-ups, "
                    "sleeps and runs, the tasks' direct reclaim, free pages at each; off by default) and write it to "
                    "DIR/SCENARIO-VARIANT.trace (see lab/measurements/kswapd-direct)")
    rl.add_argument("--qemu-nice", metavar="N", type=int, help="qemu: run QEMU at nice N (-20..19; off by default), and, where "
                    "the host has sched_autogroup on, its session's autogroup at nice N too (/proc/PID/autogroup: QEMU runs in "
                    "a session of its own, whose autogroup shares the CPUs with the other sessions' by that weight); a negative "
                    "N needs root. Approximates a quieter host on a shared one; recorded as real.qemu_nice")
    rl.add_argument("--vcpu-stall-probe", action="store_true", help="qemu: also measure the vCPUs' stalls (off by default): "
                    "a process pinned to each vCPU spins on CLOCK_MONOTONIC for 2 s before the tasks (all at once, then "
                    "one at a time) and after them, about 8 s a boot with every vCPU busy; recorded as "
                    "real.machine.cpu.vcpu_stall, vcpu_stall_alone and vcpu_stall_post, for [machine] vcpu_stall")
    rl.add_argument("--no-folios", action="store_true", help="do not record the memcg's folios by order at each step's end "
                    "(a scan of /proc/kpagecgroup that takes about a second per step on a large host, between the steps) "
                    "nor, on the host, the folios added and deleted (trace instances)")
    va = sub.add_parser("validate", help="compare the engine with a real kernel, metric by metric",
                        description="Run the engine and a real kernel (this host, QEMU, or the recorded results) for every "
                                    "variant a real kernel can run and print metric | simulated | real | difference | "
                                    "tolerance (tolerances from the scenario's [validation.tolerance]); exit 1 when a "
                                    "metric is out of tolerance.", epilog=EPILOG)
    va.add_argument("files", metavar="FILE", nargs="+", help="scenario files")
    g = va.add_mutually_exclusive_group()
    g.add_argument("--on", choices=["host", "qemu"], help="run the real side now, here")
    g.add_argument("--recorded", action="store_true", help="use the recorded real results named by [validation] recorded")
    va.add_argument("--scratch", metavar="DIR", default="/var/tmp", help="host: scratch directory parent")
    va.add_argument("--kernel", metavar="BZIMAGE|NAME", help="qemu: boot this kernel (a bzImage or a lab build's name)")
    va.add_argument("--workdir", metavar="DIR", help="qemu: the lab's work directory (default ~/.cache/memtwin-lab)")
    va.add_argument("--timeout", metavar="SECONDS", type=int, help="qemu: stop each guest after this long")
    lb = sub.add_parser("lab", help="the real-kernel lab: install what it needs, say what it can run here, clean up killed runs",
                        description="setup: install QEMU, busybox, cpio, e2fsprogs and Debian's 6.1 and 6.12 kernel packages (root, apt; "
                                    "--guest-kernel picks one). "
                                    "doctor: say what the lab can run on this machine, and why not, and list what killed "
                                    "`memtwin real` runs left behind. clean: remove those leftovers (cgroups, mounts, loop "
                                    "devices, scratch and QEMU run directories), only memtwin's own and only once the "
                                    "process that made them is gone.")
    lb.add_argument("lab_cmd", choices=["setup", "doctor", "clean", "kernel"], metavar="setup|doctor|clean|kernel")
    lb.add_argument("kernel_cmd", nargs="?", choices=["build", "list"], metavar="build|list",
                    help="kernel build: build a 6.1 lab kernel from Debian's linux-source-6.1 with the named patches of "
                    "kernel/patches/ (cached; `memtwin real --on qemu --kernel NAME` boots it). kernel list: the built ones")
    lb.add_argument("--patch", action="append", metavar="NAME", help="kernel build: apply kernel/patches/NAME (repeatable)")
    lb.add_argument("--config", metavar="FRAGMENT", help="kernel build: extra CONFIG_X=y lines after kernel/config/lab.config")
    lb.add_argument("--jobs", type=int, metavar="N", help="kernel build: make -jN (default: the number of CPUs)")
    lb.add_argument("--force", action="store_true", help="kernel build: rebuild even if the cache has the kernel")
    lb.add_argument("--scratch", metavar="DIR", default="/var/tmp", help="doctor, clean: where host runs made their scratch "
                    "directories (memtwin real --scratch; default /var/tmp)")
    lb.add_argument("--workdir", metavar="DIR", help="setup, doctor, clean: the QEMU runs' work directory (default ~/.cache/memtwin-lab)")
    lb.add_argument("--guest-kernel", choices=["6.1", "6.12", "all"], default="all", metavar="6.1|6.12|all",
                    help="setup: which of Debian's guest kernels to fetch (default all: 6.1, needed, and 6.12, skipped with a "
                    "message when it cannot be had; the linux-6.12 profiles boot 6.12, every other profile 6.1)")
    sub.add_parser("profiles", help="list the kernel profiles", description="List the kernel profiles.")
    __import__("memtwin.calibrate", fromlist=["x"]).add_parser(sub, EPILOG)
    for mod in ("sweep", "size"):  # their own modules (memtwin.sweep/.size as attributes are the API functions)
        __import__(f"memtwin.{mod}", fromlist=["add_parser"]).add_parser(sub, EPILOG)
    return p


def _header(res: Result) -> str:
    pol = ", ".join(f"{k}={'on' if v else 'off'}" for k, v in res.info["policies"].items())
    title = res.scenario + (f" [{res.variant}]" if res.variant else "")
    desc = res.info["description"]
    return (wrap(f"{title}: {desc}", "  ") if desc else title) + "\n" + wrap(
        f"kernel profile {res.info['profile']}, cgroup {res.info['cgroup']}, policies: {pol}", "  ")


def _run_variant(scn, variant: Optional[str], sets: Sequence[str]) -> Result:
    label = f"{scn.name}" + (f" [{variant}]" if variant else "")
    bar = Progress(label)
    try:
        res = Result(scn.doc.run(variant, list(sets), bar))
    finally:
        bar.close()
    n = res.raw.get("nr_errors", 0)
    if n:
        print(f"{label}: {n} op(s) failed as the syscall would have:", file=sys.stderr)
        for line in res.raw["errors"][:10]:
            print(f"  {line}", file=sys.stderr)
        if n > 10:
            print(f"  ... and {n - 10} more", file=sys.stderr)
    return res


def _metrics_arg(s: Optional[str]) -> list[str]:
    if not s:
        return []
    names = [m.strip() for m in s.split(",") if m.strip()]
    known = (set(_memtwin.metric_names()) | set(_memtwin.lru_gen_metric_names()) | set(_memtwin.vmscan_throttled_metric_names())
             | set(_memtwin.sched_metric_names()) | set(_memtwin.shmem_metric_names()))
    bad = [m for m in names if m not in known]
    if bad:
        raise ScenarioError(f"--metrics: error: unknown metric(s) {', '.join(bad)}\n  fix: see `memtwin metrics` for the names", [])
    return names


def cmd_run(a) -> int:
    metrics = _metrics_arg(a.metrics)
    if a.json:
        check_writable(a.json)
    if a.plot:
        ensure_dir(a.plot)
    scn = load(a.file)
    t0 = time.perf_counter()
    res = _run_variant(scn, a.variant, a.sets)
    wall = time.perf_counter() - t0
    print(_header(res))
    print()
    print(run_table(res, metrics_for(res.info, metrics)))
    print()
    print(f"virtual time {res.engine['virtual_time_s']:.3f} s, simulated in {wall:.2f} s ({res.engine['page_events']} page events)")
    if a.json:
        write_json(a.json, {"scenario": res.scenario, "variants": {res.variant or "default": res.to_json()}})
        print(f"wrote {a.json}")
    if a.plot:
        _write_plots(a.plot, scn, {res.variant or "default": res}, metrics, res.variant or "")
    return 0


def _write_plots(out_dir: str, scn, results: dict, metrics, suffix: str = "") -> None:
    from memtwin.plots import plots_for, write_plots

    first = next(iter(results.values()))
    plots = plots_for(first.scenario, results, scn.published, metrics_for(first.info, metrics))
    for path in write_plots(out_dir, first.scenario, plots, suffix):
        print(f"wrote {path}")


def cmd_compare(a) -> int:
    metrics = _metrics_arg(a.metrics)
    if a.json:
        check_writable(a.json)
    if a.plot:
        ensure_dir(a.plot)
    scn = load(a.file)
    declared = [v for v, _ in scn.variants()]
    wanted = [v.strip() for v in a.variants.split(",") if v.strip()] if a.variants else (declared or [None])
    if a.variants is not None:
        _check_variants_arg(a.file, a.variants, wanted, declared)
    for v in wanted:
        scn.check(v, a.sets)  # every variant is validated before anything runs
    results = {}
    t0 = time.perf_counter()
    for v in wanted:
        results[v or "default"] = _run_variant(scn, v, a.sets)
    wall = time.perf_counter() - t0
    first = next(iter(results.values()))
    desc = first.info["description"]
    print(wrap(f"{first.scenario}: {desc}", "  ") if desc else first.scenario)
    print(f"kernel profile {first.info['profile']}, cgroup {first.info['cgroup']}")
    if scn.published.get("source"):
        print(wrap(f"published figures: {scn.published['source']}", "  "))
    print()
    print(compare_table(results, metrics_for(first.info, metrics), scn.published))
    table = seed_table(scn.published, results)
    if table:
        print()
        print(table)
    outcomes = evaluate(scn.published, results, a.file) if scn.published else []
    if outcomes:
        print()
        print("Targets ([published.checks]):")
        for o in outcomes:
            print(wrap(f"  {o.status}  {o.name}: {o.detail}", " " * 8))
    print()
    print(f"{len(results)} variants simulated in {wall:.2f} s")
    if a.json:
        write_json(a.json, {"scenario": first.scenario, "variants": {k: r.to_json() for k, r in results.items()}})
        print(f"wrote {a.json}")
    if a.plot:
        _write_plots(a.plot, scn, results, metrics)
    if a.check and not all(o.ok or o.skipped for o in outcomes):
        return 1
    return 0


def _check_variants_arg(path: str, arg: str, wanted: list, declared: list) -> None:
    """`--variants A,B`: every name declared, none twice; the error names the flag as typed."""
    if not declared:
        raise ScenarioError(f"--variants {arg}: error: {path} declares no variants\n"
                            "  fix: run without --variants: this scenario declares no [variants.NAME] tables", [])
    if not wanted:
        raise ScenarioError(f"--variants {arg}: error: no variant named\n  fix: e.g. --variants {','.join(declared[:2])}", [])
    unknown = [v for v in wanted if v not in declared]
    if unknown:
        names = ", ".join(f"`{v}`" for v in unknown)
        near = [m for v in unknown for m in difflib.get_close_matches(v, declared, n=1)]
        hint = "did you mean " + ", ".join(f"`{m}`" for m in near) + "? " if near else ""
        raise ScenarioError(f"--variants {arg}: error: {path} has no variant {names}\n  fix: {hint}use some of: {', '.join(declared)}", [])
    twice = sorted({v for v in wanted if wanted.count(v) > 1})
    if twice:
        raise ScenarioError(f"--variants {arg}: error: {', '.join(twice)} named twice\n  fix: name each variant once", [])


def cmd_check(a) -> int:
    scn = load(a.file)
    variants = [v for v, _ in scn.variants()] or [None]
    for v in variants:
        scn.check(v, a.sets)
    print(f"{a.file}: ok ({len(variants)} variant{'s' if len(variants) != 1 else ''}: {', '.join(v or 'default' for v in variants)})")
    return 0


def cmd_reproduce(a) -> int:
    from memtwin.reproduce import DEFAULT_OUT, reproduce

    return reproduce(a.scenarios, a.only or (), a.out or DEFAULT_OUT, a.check, wip=not a.no_wip)


def cmd_bench(a) -> int:
    from memtwin.bench import format_bench, run_bench

    if a.repeat < 1:
        raise ScenarioError("--repeat: error: must be 1 or more\n  fix: e.g. --repeat 3", [])
    if a.replay:
        from memtwin.replaybench import SIZES as RSIZES, format_replay_bench, run_replay_bench

        try:
            sizes = tuple(int(x) for x in a.events.split(",")) if a.events else RSIZES
        except ValueError:
            raise ScenarioError(f"--events: error: {a.events!r} is not a list of whole numbers\n  fix: e.g. --events 1000000,10000000", []) from None
        if any(n < 1 for n in sizes):
            raise ScenarioError("--events: error: sizes must be 1 or more\n  fix: e.g. --events 1000000", [])
        r = run_replay_bench(sizes)
        print(json.dumps(r, indent=1) if a.json else format_replay_bench(r))
        return 0
    if a.scale:
        from memtwin.scalebench import SIZES, format_scale, run_scale

        kinds = a.only.split(",") if a.only else None
        bad = [k for k in kinds or [] if k not in SIZES]
        if bad:
            raise ScenarioError(f"--only: error: unknown table {bad[0]!r}\n  fix: one or more of {','.join(SIZES)}", [])
        r = run_scale(kinds, quick=a.quick, timeout=a.timeout, progress=None if a.json else (lambda m: print(m, file=sys.stderr, flush=True)))
        print(json.dumps(r, indent=1) if a.json else format_scale(r))
        return 0
    r = run_bench(repeat=a.repeat)
    print(json.dumps(r, indent=1) if a.json else format_bench(r))
    return 0


def cmd_real(a) -> int:
    from memtwin import real as realmod

    if a.json:
        check_writable(a.json)
    if a.reclaim_trace:
        if a.on != "qemu":
            raise ScenarioError(f"real: error: --reclaim-trace {a.reclaim_trace}: the reclaim trace is taken in the QEMU guest only\n"
                                "  fix: add --on qemu, or drop --reclaim-trace", [])
        if not os.path.isdir(a.reclaim_trace) or not os.access(a.reclaim_trace, os.W_OK):
            raise ScenarioError(f"real: error: --reclaim-trace {a.reclaim_trace}: not a writable directory\n"
                                "  fix: create it (mkdir -p) or name another", [])
    if a.vcpu_stall_probe and a.on != "qemu":
        raise ScenarioError("real: error: --vcpu-stall-probe: the vCPU stall probe is taken in the QEMU guest only\n"
                            "  fix: add --on qemu, or drop --vcpu-stall-probe", [])
    if a.qemu_nice is not None:
        if a.on != "qemu":
            raise ScenarioError(f"real: error: --qemu-nice {a.qemu_nice}: only the QEMU process's priority can be set\n"
                                "  fix: add --on qemu, or drop --qemu-nice", [])
        if not -20 <= a.qemu_nice <= 19:
            raise ScenarioError(f"real: error: --qemu-nice {a.qemu_nice}: a nice value is -20..19\n"
                                "  fix: pass a value in that range", [])
        if a.qemu_nice < 0 and os.geteuid() != 0:
            raise ScenarioError(f"real: error: --qemu-nice {a.qemu_nice}: a negative nice value needs root (CAP_SYS_NICE)\n"
                                "  fix: run as root, or pass 0..19", [])
    scn = load(a.file)
    declared = [v for v, _ in scn.variants()]
    if a.variant == "all":
        wanted = declared or [None]
    else:
        wanted = [a.variant]
    plans = []
    knobs = {}
    if a.on == "qemu" and a.kernel:
        from memtwin import qemu as qemumod

        if os.path.sep not in a.kernel and not os.path.exists(a.kernel):  # a lab build's name: is it built?
            qemumod._kernel_and_modules(a.kernel, a.workdir or qemumod.DEFAULT_WORKDIR)
        knobs = qemumod.kernel_knobs(a.kernel, a.workdir)
    for v in wanted:
        plan = scn.doc.plan(v, a.sets)
        plan["record_folios"] = not a.no_folios
        plan["vcpu_stall_probe"] = bool(a.vcpu_stall_probe)
        why = realmod.unsupported(plan, knobs)
        if why and a.variant != "all":
            raise realmod.RealError(f"{a.file}: variant {v or 'default'} needs a policy no real kernel has: {why}\n"
                                    "  fix: choose a variant without it (memtwin validate skips such variants)")
        if why:
            print(f"{v}: skipped: {why}")
            continue
        plans.append((v, plan))
    if plans:
        from memtwin import leftovers, qemu as qemumod

        leftovers.warn([a.scratch], [a.workdir or qemumod.DEFAULT_WORKDIR])
    out = {}
    traces = []  # (path, text) of --reclaim-trace, written once every variant has run
    bar = progress.Progress(f"real {a.on}")  # not Progress: the tests count simulations by that one
    try:
        for i, (v, plan) in enumerate(plans):
            bar(i, len(plans), label=f"real --on {a.on}: {v or 'default'} ({i + 1}/{len(plans)})")
            if a.on == "host":
                res = realmod.run_host(plan, a.scratch)
            else:
                from memtwin import qemu

                res = qemu.run_qemu(plan, kernel=a.kernel, workdir=a.workdir, timeout=a.timeout, reclaim_trace=bool(a.reclaim_trace),
                                    nice=a.qemu_nice)
            rtrace = res.pop("reclaim_trace", None)
            if rtrace is not None:
                tpath = os.path.join(a.reclaim_trace, f"{plan['name']}-{v or 'default'}.trace")
                traces.append((tpath, f"# memtwin real --on qemu --reclaim-trace: {plan['name']} variant {v or 'default'}, "
                                      f"{res['real']['date']}\n" + rtrace))
                # The run is marked: validate refuses a traced recording (the tracing changes the guest).
                res["real"]["reclaim_trace"] = {"file": os.path.basename(tpath), "buffer_kb_per_cpu": qemu.RTRACE_BUF_KB}
            out[v or "default"] = res
            with progress.paused():
                _print_real(plan, v, res)
    finally:
        bar.close()
    # Only now, with every variant run: a variant that fails leaves no trace files of the others.
    for tpath, text in traces:
        with open(tpath + ".tmp", "w") as f:
            f.write(text)
        os.replace(tpath + ".tmp", tpath)
        print(f"wrote {tpath}")
    if a.json:
        write_json(a.json, {"scenario": plans[0][1]["name"] if plans else scn.name, "variants": out})
        print(f"wrote {a.json}")
    return 0


def _print_real(plan: dict, v, res: dict) -> None:
    from memtwin.report import Col, fit, fmt_value, label, wrap

    info = res["real"]
    print(f"{plan['name']} {v or 'default'}: real kernel {info['kernel']} ({info['on']}), {info['date']}")
    for n in info.get("notes", []):
        print(wrap(f"note: {n}", "      "))
    if not info["timing_comparable"]:
        print("note: times are wall-clock figures of this run, not comparable with the engine's")
    shown = ["elapsed_s", "read_bytes", "memcg.usage_bytes", "memcg.file_bytes", "meminfo.Cached_kB", "cgroup.nr_dying_descendants"]
    steps = res["steps"]
    cols = [[Col(m, [fmt_value(s["metrics"].get(m)) for s in steps])] for m in shown]
    cols.append([Col("resident_pages", [fmt_value(s["pagecache"] if s.get("pagecache") is not None else sum(s["resident_pages"].values())) for s in steps])])
    print(fit([label("step", [s["name"] for s in steps])], cols))
    print()


def cmd_validate(a) -> int:
    from memtwin.report import wrap
    from memtwin.validate import format_rows, validate_file

    if not a.recorded and not a.on:
        raise ScenarioError("validate: error: say where the real side comes from\n  fix: add --recorded, --on host or --on qemu", [])
    bad, known, no_ev = 0, [], []
    for path in a.files:
        print(f"{path}:")
        rows, outcomes, skipped = validate_file(path, a.on, a.recorded, kernel=a.kernel, scratch=a.scratch, workdir=a.workdir, timeout=a.timeout)
        if rows:
            print(format_rows(rows))
        for o in outcomes:
            print(wrap(f"  {o.status}  {o.name}: {o.detail}", " " * 8))
        bad += sum(r.counts_as_bad for r in rows) + sum(not (o.ok or o.skipped) for o in outcomes)
        known += [r for r in rows if r.known and not r.ok]
        no_ev += [r for r in rows if r.not_evidence and r.ok and not r.known]
        print()
    tail = f" ({len(known)} known disagreement(s), each with its cause in the scenario's [[validation.known_out]])" if known else ""
    if no_ev:
        tail += (f"; {len(no_ev)} within only through a compensating error, not counted as agreement (each with why in "
                 f"[[validation.not_evidence]])")
    print(wrap(("every metric within tolerance" if not bad else f"{bad} metric(s) out of tolerance") + tail, "  "))
    return 1 if bad else 0


def cmd_lab(a) -> int:
    from memtwin import qemu

    if a.lab_cmd == "setup":
        guests = ("6.1", "6.12") if a.guest_kernel == "all" else (a.guest_kernel,)
        return qemu.setup(print, a.workdir or qemu.DEFAULT_WORKDIR, guests)
    if a.lab_cmd == "doctor":
        return qemu.doctor(print, a.workdir or qemu.DEFAULT_WORKDIR, a.scratch)
    if a.lab_cmd == "kernel":
        from memtwin import kernelbuild

        if a.kernel_cmd is None:
            print("usage: memtwin lab kernel build [--patch NAME]... [--config FRAGMENT] [--jobs N] | memtwin lab kernel list", file=sys.stderr)
            return 2
        return kernelbuild.cmd_kernel(a)
    if a.lab_cmd == "clean":
        from memtwin import leftovers

        return leftovers.clean(print, lambda s: print(s, file=sys.stderr), [a.scratch], [a.workdir or qemu.DEFAULT_WORKDIR])
    print("usage: memtwin lab setup|doctor|clean", file=sys.stderr)
    return 2


class Terminated(Exception):
    """SIGTERM (or SIGHUP) arrived: stop as Ctrl-C does, with the shell's exit code for it."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_terminated(signum, _frame):
    raise Terminated(signum)


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = _parser()
    a = p.parse_args(argv)
    if not a.cmd:
        p.print_help()
        return 2
    quiet_before = progress.QUIET
    progress.QUIET = quiet_before or a.quiet
    old = {}
    if threading.current_thread() is threading.main_thread():
        for sg in (signal.SIGTERM, signal.SIGHUP):
            old[sg] = signal.signal(sg, _raise_terminated)
    try:
        code = _dispatch(a)
    finally:
        progress.QUIET = quiet_before
        for sg, h in old.items():
            signal.signal(sg, h)
    if code != 0:
        remove_empty_created()  # a failed or interrupted run leaves no empty --out/--plot directory
    return code


def _dispatch(a) -> int:
    try:
        if a.cmd == "run":
            return cmd_run(a)
        if a.cmd == "compare":
            return cmd_compare(a)
        if a.cmd == "check":
            return cmd_check(a)
        if a.cmd == "reproduce":
            return cmd_reproduce(a)
        if a.cmd == "bench":
            return cmd_bench(a)
        if a.cmd == "real":
            return cmd_real(a)
        if a.cmd == "validate":
            return cmd_validate(a)
        if a.cmd == "lab":
            return cmd_lab(a)
        if a.cmd in ("sweep", "size"):
            return __import__(f"memtwin.{a.cmd}", fromlist=["x"]).main(a)
        if a.cmd == "replay":
            return __import__("memtwin.replay", fromlist=["x"]).run_cli(a)
        if a.cmd == "cachesim":
            return __import__("memtwin.cachesim", fromlist=["x"]).run_cli(a)
        if a.cmd == "calibrate":
            return __import__("memtwin.calibrate", fromlist=["x"]).main(a)
        if a.cmd == "measure":
            return __import__("memtwin.measure", fromlist=["x"]).run_cli(a)
        if a.cmd in ("record", "import", "trace-info"):
            return record.run_cli(a)
        if a.cmd in ("cached", "evict"):
            return hostcache.run_cli(a)
        if a.cmd == "metrics":
            print("\n".join(_memtwin.metric_names()))
            print("\n".join(_memtwin.vmscan_throttled_metric_names()))  # only on profiles with reclaim_throttle() (5.16+)
            print("\n".join(_memtwin.lru_gen_metric_names()))  # only under kernel.lru_gen = true
            print("\n".join(_memtwin.sched_metric_names()))  # only with machine.background_runnable
            print("\n".join(_memtwin.shmem_metric_names()))  # only where a tmpfs mount's huge= or kernel.shmem_enabled is named
            return 0
        if a.cmd == "profiles":
            for name, desc in _memtwin.profiles():
                print(f"{name:10}  {desc}")
            return 0
    except ScenarioError as e:
        print(e.args[0] if e.args else str(e), file=sys.stderr)
        return 2
    except OutputError as e:
        print(str(e), file=sys.stderr)
        return 2
    except _memtwin.TraceReplayError as e:
        # A trace task's trace is defective (found while replaying it): the place and the fix.
        print(str(e), file=sys.stderr)
        return 1
    except RealError as e:
        print(f"memtwin {a.cmd}: {e}", file=sys.stderr)
        return 130 if isinstance(e, RealInterrupted) else 2
    except KeyboardInterrupt:
        print(f"\nmemtwin {a.cmd}: interrupted (SIGINT); outputs are written whole or not at all, and none was left half-written", file=sys.stderr)
        return 130
    except Terminated as e:
        print(f"\nmemtwin {a.cmd}: terminated ({e}); outputs are written whole or not at all, and none was left half-written", file=sys.stderr)
        return 128 + e.signum
    except BrokenPipeError:
        # The reader of stdout went away (`memtwin trace-info T | head`): what is left to print goes
        # nowhere, as a C program killed by SIGPIPE; the exit status is the shell's for that, 128 + 13.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 128 + signal.SIGPIPE
    return 2


if __name__ == "__main__":
    sys.exit(main())
