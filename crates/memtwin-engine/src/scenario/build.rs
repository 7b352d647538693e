//! From a located value tree to a typed [`Scenario`]: apply the variant and `--set`
//! overrides, check every key and value, resolve every name, and collect every problem with
//! its place and a fix.

use super::limits::*;
use super::model::*;
use super::units::{parse_duration, parse_size};
use super::value::{merge, Loc, Node, ScenarioError, ScenarioErrors, Sources, Val};
use crate::memcontrol::CgroupVersion;
use crate::profile::{profile, profiles, Policies};
use crate::types::PAGE_SIZE;

const TOP_KEYS: &[&str] = &["scenario", "machine", "kernel", "devices", "mounts", "cgroups", "dirs", "files", "tasks", "report", "variants", "published", "validation"];

pub(crate) struct Cx<'a> {
    pub sources: &'a Sources,
    pub errors: Vec<ScenarioError>,
    /// Files named by the fadvise ops so far (a directory's count all of those below it).
    pub fadvise_files: u64,
    /// The headers of the traces tasks name, read by the caller.
    pub traces: &'a [(String, super::model::TraceHeader)],
    /// The variant being built (None: the base document).
    pub variant: Option<&'a str>,
}

impl Cx<'_> {
    fn err(&mut self, loc: &Loc, message: impl Into<String>, fix: impl Into<String>) {
        if self.errors.len() >= MAX_ERRORS {
            return;
        }
        self.errors.push(ScenarioError { location: self.sources.describe(loc), message: message.into(), fix: fix.into() });
    }
}

/// Edit distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + (ca != *cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Words people write for a key the scenario spells differently.
const SYNONYMS: &[(&str, &str)] = &[
    ("size", "length"),
    ("len", "length"),
    ("cpu", "cpus"),
    ("memory", "ram"),
    ("mem", "ram"),
    ("limit", "memory.max"),
    ("limit", "memory.limit_in_bytes"),
    ("memory.limit", "memory.max"),
    ("memory.limit", "memory.limit_in_bytes"),
    ("bandwidth", "read_bw"),
    ("bw", "read_bw"),
    ("readahead", "read_ahead_kb"),
    ("ra", "read_ahead_kb"),
    ("latency", "seek"),
    ("buffer", "bufsize"),
    ("tasks", "procs"),
];

fn suggest(word: &str, known: &[&str]) -> String {
    if let Some((_, k)) = SYNONYMS.iter().find(|(w, k)| *w == word && known.contains(k)) {
        return format!("did you mean `{k}`? ");
    }
    let best = known.iter().map(|k| (distance(word, k), *k)).min();
    match best {
        Some((d, k)) if d <= 2 || (d == 3 && word.len() > 5) || (word.len() > 2 && (k.contains(word) || word.contains(k))) => {
            format!("did you mean `{k}`? ")
        }
        _ => String::new(),
    }
}

struct Tab<'n> {
    name: String,
    entries: &'n [(String, Loc, Node)],
    used: Vec<bool>,
}

impl<'n> Tab<'n> {
    fn new(cx: &mut Cx, node: &'n Node, name: &str) -> Option<Tab<'n>> {
        match &node.v {
            Val::Table(entries) => Some(Tab { name: name.to_string(), entries, used: vec![false; entries.len()] }),
            other => {
                cx.err(&node.loc, format!("{name} must be a table, not {}", other.type_name()), format!("write {name} as a [table] of keys"));
                None
            }
        }
    }

    fn get(&mut self, key: &str) -> Option<&'n Node> {
        let i = self.entries.iter().position(|(k, _, _)| k == key)?;
        self.used[i] = true;
        Some(&self.entries[i].2)
    }

    fn finish(&self, cx: &mut Cx, known: &[&str]) {
        for (i, (k, kloc, _)) in self.entries.iter().enumerate() {
            if !self.used[i] {
                cx.err(
                    kloc,
                    format!("unknown key `{k}` in {}", self.name),
                    format!("{}remove it; the keys {} takes are: {}", suggest(k, known), self.name, known.join(", ")),
                );
            }
        }
    }
}

fn get_str<'n>(cx: &mut Cx, n: &'n Node, what: &str) -> Option<&'n str> {
    match &n.v {
        Val::Str(s) => Some(s),
        other => {
            cx.err(&n.loc, format!("{what} must be a string, not {}", other.type_name()), format!("quote it: {what} = \"...\""));
            None
        }
    }
}

/// A file-system type ([`crate::fs::FS_TYPES`]).
fn get_fs(cx: &mut Cx, n: &Node, what: &str) -> Option<String> {
    let fs = get_str(cx, n, what)?;
    if crate::fs::FS_TYPES.contains(&fs) {
        return Some(fs.to_string());
    }
    cx.err(&n.loc, format!("{what} is `{fs}`, a file system the engine does not model"), format!("{}write one of: {}", suggest(fs, crate::fs::FS_TYPES), crate::fs::FS_TYPES.join(", ")));
    None
}

fn get_bool(cx: &mut Cx, n: &Node, what: &str) -> Option<bool> {
    match &n.v {
        Val::Bool(b) => Some(*b),
        other => {
            cx.err(&n.loc, format!("{what} must be true or false, not {}", other.type_name()), format!("write {what} = true or {what} = false"));
            None
        }
    }
}

/// `[machine] zswap = { enabled, compressor, zpool, max_pool_percent,
/// accept_threshold_percent, same_filled_pages_enabled, non_same_filled_pages_enabled }`:
/// /sys/module/zswap/parameters/*. The engine models the `lzo` compressor, and the `zbud` pool
/// (Debian 6.1's default) or, on 6.18, `zsmalloc` (`zpool` is handed back in `zpool` to be
/// checked against the profile, and the keys 6.18 lacks in `gone`); other values are refused.
fn get_zswap(cx: &mut Cx, n: &Node, zpool: &mut Option<(String, Loc)>, gone: &mut Vec<(&'static str, Loc)>) -> Option<crate::zswap::ZswapParams> {
    let mut t = Tab::new(cx, n, "machine.zswap")?;
    let mut p = crate::zswap::ZswapParams::default();
    let mut ok = true;
    if let Some(v) = t.get("enabled") {
        p.enabled = get_bool(cx, v, "machine.zswap.enabled").unwrap_or(true);
    }
    if let Some(v) = t.get("zpool") {
        match get_str(cx, v, "machine.zswap.zpool") {
            Some(s) if s == "zbud" || s == "zsmalloc" => *zpool = Some((s.to_string(), v.loc.clone())),
            Some(s) => {
                ok = false;
                cx.err(&v.loc, format!("machine.zswap.zpool is `{s}`: the engine models `zbud` (Debian's 6.1) and `zsmalloc` (6.18) only"), "write zpool = \"zbud\" on a 6.1 profile, \"zsmalloc\" on linux-6.18, or leave it out");
            }
            None => ok = false,
        }
    }
    for (key, want, why) in [("compressor", "lzo", "LZO1X-1, CONFIG_ZSWAP_COMPRESSOR_DEFAULT of Debian's 6.1")] {
        if let Some(v) = t.get(key) {
            match get_str(cx, v, &format!("machine.zswap.{key}")) {
                Some(s) if s == want => {}
                Some(s) => {
                    ok = false;
                    cx.err(&v.loc, format!("machine.zswap.{key} is `{s}`: the engine models `{want}` only ({why})"), format!("write {key} = \"{want}\", or leave it out"));
                }
                None => ok = false,
            }
        }
    }
    for (key, field) in [("max_pool_percent", 0usize), ("accept_threshold_percent", 1)] {
        if let Some(v) = t.get(key) {
            match get_uint(cx, v, &format!("machine.zswap.{key}")) {
                Some(x) if x <= 100 => {
                    if field == 0 {
                        p.max_pool_percent = x;
                    } else {
                        p.accept_threshold_percent = x;
                    }
                }
                Some(x) => {
                    ok = false;
                    cx.err(&v.loc, format!("machine.zswap.{key} is {x}: a percentage"), format!("write {key} = a value from 0 to 100"));
                }
                None => ok = false,
            }
        }
    }
    for key in ["same_filled_pages_enabled", "non_same_filled_pages_enabled"] {
        if let Some(v) = t.get(key) {
            gone.push((key, v.loc.clone()));
            let b = get_bool(cx, v, &format!("machine.zswap.{key}"));
            ok &= b.is_some();
            if key == "same_filled_pages_enabled" {
                p.same_filled_pages_enabled = b.unwrap_or(true);
            } else {
                p.non_same_filled_pages_enabled = b.unwrap_or(true);
            }
        }
    }
    t.finish(cx, &["enabled", "compressor", "zpool", "max_pool_percent", "accept_threshold_percent", "same_filled_pages_enabled", "non_same_filled_pages_enabled"]);
    ok.then_some(p)
}

/// An anonymous mapping's `fill`: "byte" (one byte set per page, what `touch` writes; the
/// default), "same" (every byte the same: a same-filled page), "random" (the whole page
/// random) or "random-SIZE" (the first SIZE bytes random, the rest zero, e.g. "random-1K").
fn get_fill(cx: &mut Cx, n: &Node, what: &str) -> Option<crate::zswap::AnonFill> {
    use crate::zswap::AnonFill;
    let s = get_str(cx, n, what)?;
    let fix = "write fill = \"byte\" (one byte per page), \"same\" (same-filled pages), \"random\" (incompressible) or \"random-1K\" (the first 1 KiB of each page random, the rest zero)";
    match s {
        "byte" => Some(AnonFill::Byte),
        "same" => Some(AnonFill::Same),
        "random" => Some(AnonFill::Random(PAGE_SIZE as u16)),
        _ => match s.strip_prefix("random-").and_then(|x| crate::scenario::units::parse_size(x).ok()) {
            Some(b) if b > 0 && b <= PAGE_SIZE => Some(AnonFill::Random(b as u16)),
            Some(b) => {
                cx.err(&n.loc, format!("{what} is `{s}`: {b} random bytes in a {PAGE_SIZE}-byte page"), fix);
                None
            }
            None => {
                cx.err(&n.loc, format!("{what} is `{s}`, not a fill the engine knows"), fix);
                None
            }
        },
    }
}

fn get_uint(cx: &mut Cx, n: &Node, what: &str) -> Option<u64> {
    match &n.v {
        Val::Int(i) if *i >= 0 => Some(*i as u64),
        Val::Int(i) => {
            cx.err(&n.loc, format!("{what} is negative ({i})"), format!("write a whole number of 0 or more for {what}"));
            None
        }
        other => {
            cx.err(&n.loc, format!("{what} must be a whole number, not {}", other.type_name()), format!("write {what} = 8 (no quotes)"));
            None
        }
    }
}

const SIZE_FIX: &str = "write bytes as a number (4096) or with a binary suffix as the kernel does (\"128K\", \"20M\", \"1G\")";

fn get_size(cx: &mut Cx, n: &Node, what: &str) -> Option<u64> {
    match &n.v {
        Val::Int(i) if *i >= 0 => Some(*i as u64),
        Val::Int(i) => {
            cx.err(&n.loc, format!("{what} is negative ({i})"), SIZE_FIX);
            None
        }
        Val::Str(s) => match parse_size(s) {
            Ok(v) => Some(v),
            Err(e) => {
                cx.err(&n.loc, format!("{what}: {e}"), SIZE_FIX);
                None
            }
        },
        other => {
            cx.err(&n.loc, format!("{what} must be a size, not {}", other.type_name()), SIZE_FIX);
            None
        }
    }
}

/// A limit: a size or "max".
fn get_limit(cx: &mut Cx, n: &Node, what: &str) -> Option<Option<u64>> {
    if let Val::Str(s) = &n.v {
        if s.trim() == "max" {
            return Some(None);
        }
    }
    get_size(cx, n, what).map(Some)
}

const DURATION_FIX: &str = "write a duration with a unit: \"5ms\", \"100us\", \"2s\"";

/// `[TABLE] KEY` as wake-up latency samples (`[machine] wakeup_latency`,
/// `kworker_wakeup_latency`, `[devices.X] worker_wakeup_latency`): 1 to 10,000 durations of at
/// most 10 s each; `rec` names where the runner (`memtwin real --on qemu`, `--on host`) records
/// them, for the fix.
fn latency_samples(cx: &mut Cx, v: &Node, table: &str, key: &str, rec: &str) -> Vec<u64> {
    let fix = format!("write the samples as durations, {key} = [\"120us\", \"3ms\"] ({rec})");
    let what = format!("{table}.{key}");
    sample_array(cx, v, &what, "durations", &fix, |cx, it| match get_duration(cx, it, &format!("a {what} sample")) {
        Some(d) if d > 10_000_000_000 => {
            cx.err(&it.loc, format!("a {what} sample is longer than 10 s"), fix.clone());
            None
        }
        d => d,
    })
}

/// `what` (a TOML array of `kind`) as 1 to 10,000 samples, each read by `one` (None: its error
/// said); `fix` for the array's own errors.
fn sample_array(cx: &mut Cx, v: &Node, what: &str, kind: &str, fix: &str, mut one: impl FnMut(&mut Cx, &Node) -> Option<u64>) -> Vec<u64> {
    let mut out = vec![];
    match &v.v {
        Val::Arr(items) if items.is_empty() => cx.err(&v.loc, format!("{what} is empty"), fix),
        Val::Arr(items) if items.len() > 10_000 => cx.err(&v.loc, format!("{what} has {} samples, more than 10000", items.len()), fix),
        Val::Arr(items) => out.extend(items.iter().filter_map(|it| one(cx, it))),
        other => cx.err(&v.loc, format!("{what} must be an array of {kind}, not {}", other.type_name()), fix),
    }
    out
}

fn get_duration(cx: &mut Cx, n: &Node, what: &str) -> Option<u64> {
    match &n.v {
        Val::Str(s) => match parse_duration(s) {
            Ok(v) if v > MAX_DURATION => {
                cx.err(
                    &n.loc,
                    format!("{what} is \"{s}\", longer than the engine's limit of one year of virtual time"),
                    "write a duration of at most \"8760h\" (the virtual clock counts nanoseconds in 64 bits)",
                );
                None
            }
            Ok(v) => Some(v),
            Err(e) => {
                cx.err(&n.loc, format!("{what}: {e}"), DURATION_FIX);
                None
            }
        },
        Val::Int(0) => Some(0),
        other => {
            cx.err(&n.loc, format!("{what} must be a duration string, not {}", other.type_name()), DURATION_FIX);
            None
        }
    }
}

/// `BLK_MQ_MAX_DEPTH` (include/linux/blk-mq.h): the largest `tag_set.queue_depth`.
const BLK_MQ_MAX_DEPTH: u64 = 10240;

/// `[devices.NAME]`'s own queue (blkdev.rs `HwQueue`): `queue_depth` turns it on; the other
/// keys need it. `bw` is (read_bw, write_bw): without blk-throttle the queue shares them
/// (`queue_read_bw`/`queue_write_bw` may not be given then), with it they are the throttle's
/// rules and the queue's own bandwidths must be given.
fn device_hw_queue(cx: &mut Cx, t: &mut Tab, dname: &str, kloc: &Loc, blk_throttle: bool, bw: [u64; 2], max_segs: Option<u64>) -> Option<HwQueueSpec> {
    let key = |k: &str| format!("devices.{dname}.{k}");
    let depth = t.get("queue_depth").and_then(|v| match get_uint(cx, v, &key("queue_depth")) {
        Some(d) if d == 0 || d > BLK_MQ_MAX_DEPTH => {
            cx.err(&v.loc, format!("{} is {d}: a device queue holds 1 to {BLK_MQ_MAX_DEPTH} requests (BLK_MQ_MAX_DEPTH)", key("queue_depth")), "give the device's tag_set.queue_depth, e.g. 128 (loop's hw_queue_depth)");
            None
        }
        d => d,
    });
    let latency = t.get("request_latency").and_then(|v| get_duration(cx, v, &key("request_latency")));
    let rr = t.get("request_read_bw").and_then(|v| get_bandwidth(cx, v, &key("request_read_bw")));
    let rw = t.get("request_write_bw").and_then(|v| get_bandwidth(cx, v, &key("request_write_bw")));
    let cost = t.get("request_cost").and_then(|v| get_duration(cx, v, &key("request_cost")));
    // ct57: the virtio ring's descriptors beneath the device (HwQueue::ring)
    let ring = t.get("ring_descriptors").and_then(|v| match get_uint(cx, v, &key("ring_descriptors")) {
        Some(n) if n < 3 => {
            cx.err(&v.loc, format!("{} is {n}: a virtio-blk request takes at least 3 descriptors (header, data, status)", key("ring_descriptors")), "give the virtqueue's size, e.g. 256 (this lab's vda), or drop the key");
            None
        }
        n => n,
    });
    let qr_node = t.get("queue_read_bw").map(|v| v.loc.clone());
    let qr = t.get("queue_read_bw").and_then(|v| get_bandwidth(cx, v, &key("queue_read_bw")));
    let qw_node = t.get("queue_write_bw").map(|v| v.loc.clone());
    let qw = t.get("queue_write_bw").and_then(|v| get_bandwidth(cx, v, &key("queue_write_bw")));
    // ra21: the shared read bandwidth batch by batch (HwQueue::read_bw_batches)
    let batches = t.get("queue_read_bw_batches").map(|v| bandwidth_samples(cx, v, &key("queue_read_bw_batches"))).unwrap_or_default();
    // max_segments on a QEMU guest's disk has no queue of its own (DeviceSpec::max_segments)
    let qemu = t.get("qemu_throttle").is_some_and(|v| v.v == Val::Bool(true));
    let given = ["queue_depth", "request_latency", "request_read_bw", "request_write_bw", "request_cost", "queue_read_bw", "queue_write_bw", "max_segments", "queue_read_bw_batches", "ring_descriptors"]
        .into_iter()
        .filter(|k| t.get(k).is_some() && (*k != "max_segments" || !qemu))
        .collect::<Vec<_>>();
    if t.get("queue_depth").is_none() {
        if let Some(k) = given.first() {
            let loc = t.get(k).map(|v| v.loc.clone()).unwrap_or_else(|| kloc.clone());
            cx.err(&loc, format!("{} is given without {}: the device's own queue is described by queue_depth and the keys with it", key(k), key("queue_depth")), "add queue_depth = 128 (the device's tag_set.queue_depth), or drop the request_*/queue_* keys");
        }
        return None;
    }
    let depth = depth? as u32;
    let bw = if blk_throttle {
        match (qr, qw) {
            (Some(r), Some(w)) => [r, w],
            _ => {
                if qr_node.is_none() || qw_node.is_none() {
                    cx.err(kloc, format!("[devices.{dname}] has blk_throttle = true and queue_depth but not both queue_read_bw and queue_write_bw: read_bw/write_bw are the throttle's rules, the device's own bandwidths are needed"), "add queue_read_bw and queue_write_bw (what `memtwin calibrate` measures unthrottled)");
                }
                return None;
            }
        }
    } else {
        for (node, k) in [(&qr_node, "queue_read_bw"), (&qw_node, "queue_write_bw")] {
            if let Some(loc) = node {
                cx.err(loc, format!("{} is given on a device without blk_throttle: its queue shares read_bw/write_bw", key(k)), format!("drop {k} and give the bandwidth as read_bw/write_bw, or set blk_throttle = true"));
            }
        }
        bw
    };
    let request_bw = [rr.unwrap_or(bw[0]), rw.unwrap_or(bw[1])];
    Some(HwQueueSpec { queue_depth: depth, request_latency: latency.unwrap_or(0), request_bw, bw, request_cost: cost.unwrap_or(0), max_segments: max_segs.unwrap_or(0), read_bw_batches: batches, ring_descriptors: ring.unwrap_or(0) })
}

/// `[devices.X] queue_read_bw_batches`: 1 to 10,000 bandwidths (each above 0: `get_bandwidth`).
fn bandwidth_samples(cx: &mut Cx, v: &Node, what: &str) -> Vec<u64> {
    let fix = format!("write the batches' measured bandwidths, {what} = [2520000000, \"2.4G\"] (lab/measurements/loop_device_table.py prints them)");
    sample_array(cx, v, what, "bandwidths", &fix, |cx, it| get_bandwidth(cx, it, &format!("a {what} sample")))
}

/// A bandwidth: a size per second, with an optional `/s`.
fn get_bandwidth(cx: &mut Cx, n: &Node, what: &str) -> Option<u64> {
    let stripped;
    let n2 = match &n.v {
        Val::Str(s) => {
            stripped = Node { v: Val::Str(s.trim().trim_end_matches("/s").to_string()), loc: n.loc.clone() };
            &stripped
        }
        _ => n,
    };
    let v = get_size(cx, n2, what)?;
    if v == 0 {
        cx.err(&n.loc, format!("{what} is zero"), "give the device a bandwidth above zero, e.g. \"100M\" (bytes per second)");
        return None;
    }
    if v < MIN_BANDWIDTH {
        cx.err(
            &n.loc,
            format!("{what} is {v} bytes per second, below the engine's smallest bandwidth of {MIN_BANDWIDTH} (one page a second)"),
            "give the device at least \"4K\" per second, e.g. \"100M\"",
        );
        return None;
    }
    Some(v)
}

fn table_entries<'n>(cx: &mut Cx, n: &'n Node, name: &str) -> &'n [(String, Loc, Node)] {
    match &n.v {
        Val::Table(e) => e,
        other => {
            cx.err(&n.loc, format!("{name} must be a table, not {}", other.type_name()), format!("write [{name}.NAME] tables"));
            &[]
        }
    }
}

/// The variants a document declares: (name, description).
pub fn variants(doc: &Node) -> Vec<(String, String)> {
    let Val::Table(top) = &doc.v else { return vec![] };
    let Some((_, _, vars)) = top.iter().find(|(k, _, _)| k == "variants") else { return vec![] };
    let Val::Table(vs) = &vars.v else { return vec![] };
    vs.iter()
        .map(|(name, _, v)| {
            let desc = match &v.v {
                Val::Table(e) => e
                    .iter()
                    .find(|(k, _, _)| k == "description")
                    .and_then(|(_, _, d)| if let Val::Str(s) = &d.v { Some(s.clone()) } else { None })
                    .unwrap_or_default(),
                _ => String::new(),
            };
            (name.clone(), desc)
        })
        .collect()
}

/// Apply `variant` and `sets` to `doc` and build the scenario.
pub fn build(sources: &Sources, doc: &Node, variant: Option<&str>, sets: &[Node], traces: &[(String, super::model::TraceHeader)]) -> Result<Scenario, ScenarioErrors> {
    let mut cx = Cx { sources, errors: vec![], fadvise_files: 0, traces, variant };
    let Val::Table(top) = &doc.v else {
        cx.err(&doc.loc, "a scenario must be a table", "start the file with a [scenario] table");
        return Err(ScenarioErrors(cx.errors));
    };
    // The base document without `variants`; `published` is for reports and is never read here.
    let mut base = Node { v: Val::Table(top.iter().filter(|(k, _, _)| k != "variants").cloned().collect()), loc: doc.loc.clone() };
    let declared = variants(doc);
    if let Some(name) = variant {
        let Val::Table(top) = &doc.v else { unreachable!() };
        let node = top
            .iter()
            .find(|(k, _, _)| k == "variants")
            .and_then(|(_, _, vs)| if let Val::Table(e) = &vs.v { e.iter().find(|(k, _, _)| k == name) } else { None });
        match node {
            None => {
                let names: Vec<_> = declared.iter().map(|(n, _)| n.as_str()).collect();
                let file = sources.describe(&Loc::Path { src: 0, path: String::new() });
                cx.errors.push(ScenarioError {
                    location: format!("--variant {name}"),
                    message: format!("{file} has no variant `{name}`"),
                    fix: if names.is_empty() {
                        "run without --variant: this scenario declares no [variants.NAME] tables".to_string()
                    } else {
                        format!("{}use one of: {}", suggest(name, &names), names.join(", "))
                    },
                });
                return Err(ScenarioErrors(cx.errors));
            }
            Some((_, _, vnode)) => {
                if let Some(mut t) = Tab::new(&mut cx, vnode, &format!("[variants.{name}]")) {
                    let mut over = vec![];
                    for (k, kloc, v) in t.entries {
                        if k == "description" {
                            get_str(&mut cx, v, &format!("variants.{name}.description"));
                        } else if k == "variants" || !TOP_KEYS.contains(&k.as_str()) {
                            // Reported by finish() below.
                            continue;
                        } else {
                            over.push((k.clone(), kloc.clone(), v.clone()));
                        }
                    }
                    t.get("description");
                    for (k, _, _) in &over {
                        t.get(k);
                    }
                    let known: Vec<&str> = std::iter::once("description").chain(TOP_KEYS.iter().copied().filter(|k| *k != "variants")).collect();
                    t.finish(&mut cx, &known);
                    merge(&mut base, &Node { v: Val::Table(over), loc: vnode.loc.clone() });
                }
            }
        }
    }
    for s in sets {
        merge(&mut base, s);
    }
    let scn = extract(&mut cx, &base, variant, &declared);
    // Ops inside a repeat are checked once per iteration: report each problem once.
    // (The first iteration's message is kept; later ones differ only in the iteration.)
    let strip = |m: &str| match (m.find(" (iteration "), m.find("):")) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &m[..a], &m[b + 1..]),
        _ => m.to_string(),
    };
    let mut seen = std::collections::HashSet::new();
    cx.errors.retain(|e| seen.insert((e.location.clone(), strip(&e.message))));
    if cx.errors.is_empty() {
        Ok(scn.expect("no errors means a scenario"))
    } else {
        Err(ScenarioErrors(cx.errors))
    }
}

fn extract(cx: &mut Cx, doc: &Node, variant: Option<&str>, declared: &[(String, String)]) -> Option<Scenario> {
    let mut top = Tab::new(cx, doc, "the scenario")?;
    let _ = declared;

    // [scenario]
    let mut name = String::from("unnamed");
    let mut description = String::new();
    let mut seed = 0u64;
    match top.get("scenario") {
        Some(n) => {
            if let Some(mut t) = Tab::new(cx, n, "[scenario]") {
                match t.get("name") {
                    Some(v) => name = get_str(cx, v, "scenario.name").unwrap_or("unnamed").to_string(),
                    None => cx.err(&n.loc, "[scenario] has no `name`", "add name = \"my-experiment\" to [scenario]"),
                }
                if let Some(v) = t.get("description") {
                    description = get_str(cx, v, "scenario.description").unwrap_or("").to_string();
                }
                if let Some(v) = t.get("seed") {
                    seed = get_uint(cx, v, "scenario.seed").unwrap_or(0);
                }
                t.finish(cx, &["name", "description", "seed"]);
            }
        }
        None => cx.err(&doc.loc, "the scenario has no [scenario] table", "add [scenario] with name = \"...\" at the top"),
    }

    // [kernel]
    let mut prof = profile("linux-6.6").expect("built-in profile");
    let mut policies = Policies::default();
    let mut version = CgroupVersion::V2;
    let mut version_known = true;
    let mut thp = false;
    let mut shmem_enabled = None;
    let mut boot_seed = 0u64;
    if let Some(n) = top.get("kernel") {
        if let Some(mut t) = Tab::new(cx, n, "[kernel]") {
            if let Some(v) = t.get("profile") {
                if let Some(s) = get_str(cx, v, "kernel.profile") {
                    match profile(s) {
                        Some(p) => prof = p,
                        None => {
                            let names: Vec<&str> = profiles().iter().map(|p| p.name).collect();
                            cx.err(&v.loc, format!("unknown kernel profile `{s}`"), format!("{}use one of: {}", suggest(s, &names), names.join(", ")));
                        }
                    }
                }
            }
            policies = prof.policies.clone();
            if let Some(v) = t.get("cgroup") {
                match get_str(cx, v, "kernel.cgroup") {
                    Some("v1") => version = CgroupVersion::V1,
                    Some("v2") => version = CgroupVersion::V2,
                    Some(other) => {
                        version_known = false;
                        cx.err(&v.loc, format!("kernel.cgroup is \"{other}\""), "write kernel.cgroup = \"v1\" or \"v2\"")
                    }
                    None => version_known = false,
                }
            }
            if let Some(v) = t.get("list_lru_layout") {
                match get_str(cx, v, "kernel.list_lru_layout") {
                    Some("eager") => prof.list_lru_layout = crate::list_lru::ListLruLayout::Eager,
                    Some("transposed") => prof.list_lru_layout = crate::list_lru::ListLruLayout::Transposed,
                    Some("lazy-array") => prof.list_lru_layout = crate::list_lru::ListLruLayout::LazyArray,
                    Some("lazy") => prof.list_lru_layout = crate::list_lru::ListLruLayout::Lazy,
                    Some(other) => cx.err(
                        &v.loc,
                        format!("unknown list_lru layout `{other}`"),
                        "write \"eager\" (before the 5.18 series), \"transposed\" (after its patch 1), \"lazy-array\" (after patch 10) or \"lazy\" (5.18 on)",
                    ),
                    None => {}
                }
            }
            if let Some(pn) = t.get("policies") {
                if let Some(mut pt) = Tab::new(cx, pn, "[kernel.policies]") {
                    if let Some(v) = pt.get("recharge_on_pagecache_get") {
                        if let Some(b) = get_bool(cx, v, "kernel.policies.recharge_on_pagecache_get") {
                            policies.recharge_on_pagecache_get = b;
                        }
                    }
                    if let Some(v) = pt.get("memcg_percpu_release_on_offline") {
                        if let Some(b) = get_bool(cx, v, "kernel.policies.memcg_percpu_release_on_offline") {
                            policies.memcg_percpu_release_on_offline = b;
                        }
                    }
                    if let Some(v) = pt.get("fadvise_directory") {
                        if let Some(b) = get_bool(cx, v, "kernel.policies.fadvise_directory") {
                            policies.fadvise_directory = b;
                        }
                    }
                    if let Some(v) = pt.get("zonelist_cache") {
                        if let Some(b) = get_bool(cx, v, "kernel.policies.zonelist_cache") {
                            policies.zonelist_cache = b;
                        }
                    }
                    pt.finish(cx, &["recharge_on_pagecache_get", "memcg_percpu_release_on_offline", "fadvise_directory", "zonelist_cache"]);
                }
            }
            if let Some(v) = t.get("thp") {
                match get_str(cx, v, "kernel.thp") {
                    Some("always") => thp = true,
                    Some("never") => thp = false,
                    Some(other) => cx.err(
                        &v.loc,
                        format!("kernel.thp is \"{other}\""),
                        "write kernel.thp = \"always\" (anonymous faults try a 2 MiB page first) or \"never\"",
                    ),
                    None => {}
                }
            }
            if let Some(v) = t.get("shmem_enabled") {
                match get_str(cx, v, "kernel.shmem_enabled") {
                    Some(h) if crate::shmem::SHMEM_ENABLED.contains(&h) => {
                        if prof.large_folios.tmpfs == crate::shmem::TmpfsHuge::None {
                            cx.err(&v.loc, format!("kernel.shmem_enabled on profile `{}`: tmpfs huge pages came in Linux 4.8", prof.name), "use a profile of 4.8 or newer (linux-5.0), or drop kernel.shmem_enabled");
                        }
                        shmem_enabled = crate::shmem::ShmemHuge::parse(h);
                    }
                    Some(h) => cx.err(
                        &v.loc,
                        format!("kernel.shmem_enabled is \"{h}\""),
                        format!("{}write one of: {} (/sys/kernel/mm/transparent_hugepage/shmem_enabled)", suggest(h, crate::shmem::SHMEM_ENABLED), crate::shmem::SHMEM_ENABLED.join(", ")),
                    ),
                    None => {}
                }
            }
            if let Some(v) = t.get("lru_gen") {
                if let Some(b) = get_bool(cx, v, "kernel.lru_gen") {
                    if b && !prof.lru_gen_available {
                        cx.err(
                            &v.loc,
                            format!("kernel.lru_gen = true on profile `{}`: the multi-generational LRU came in Linux 6.1", prof.name),
                            "use profile \"linux-6.1\" or newer, or drop kernel.lru_gen",
                        );
                    } else {
                        prof.lru_gen = b;
                    }
                }
            }
            if let Some(v) = t.get("boot_seed") {
                boot_seed = get_uint(cx, v, "kernel.boot_seed").unwrap_or(0);
            }
            if let Some(v) = t.get("reclaim_walk") {
                match get_str(cx, v, "kernel.reclaim_walk") {
                    Some("full") => prof.reclaim_walk = crate::profile::ReclaimWalk::Full,
                    Some("shared") => prof.reclaim_walk = crate::profile::ReclaimWalk::Shared,
                    Some("per-priority") => prof.reclaim_walk = crate::profile::ReclaimWalk::SharedPerPriority,
                    Some(other) => cx.err(
                        &v.loc,
                        format!("unknown reclaim walk `{other}`"),
                        "write \"full\" (shrink_node_memcgs() visits every memcg of the subtree: mem_cgroup_iter(target, NULL, NULL), \
                         5.5-6.10), \"shared\" (6.11+: direct reclaimers resume a walk shared per target and stop at their goal) \
                         or \"per-priority\" (up to 5.4: limit reclaim resumes a walk shared per target and priority)",
                    ),
                    None => {}
                }
            }
            if let Some(v) = t.get("min_ttl_ms") {
                if let Some(ms) = get_uint(cx, v, "kernel.min_ttl_ms") {
                    if !prof.lru_gen {
                        cx.err(
                            &v.loc,
                            "kernel.min_ttl_ms is a setting of the multi-generational LRU, which this scenario does not switch on",
                            "add kernel.lru_gen = true (on a 6.1 or newer profile), or drop kernel.min_ttl_ms",
                        );
                    } else if ms > 3_600_000 {
                        cx.err(&v.loc, format!("kernel.min_ttl_ms is {ms}: more than an hour"), "write a number of milliseconds from 0 (off) to 3600000, e.g. kernel.min_ttl_ms = 1000");
                    } else {
                        prof.lru_gen_min_ttl_ms = ms;
                    }
                }
            }
            if let Some(v) = t.get("swappiness") {
                if let Some(sw) = get_uint(cx, v, "kernel.swappiness") {
                    // vm.swappiness: 0..100 before 5.8, 0..200 since (c843966c556d, with the
                    // cost model: "allow swappiness that prefers reclaiming anon").
                    let top = if prof.scan_balance == crate::profile::ScanBalance::Cost { 200 } else { 100 };
                    if sw > top {
                        cx.err(
                            &v.loc,
                            format!("kernel.swappiness is {sw}: vm.swappiness on profile `{}` takes 0 to {top}", prof.name),
                            format!("write a value from 0 to {top} (default 60){}", if top == 100 { "; 101-200 came with Linux 5.8" } else { "" }),
                        );
                    } else {
                        prof.swappiness = sw;
                    }
                }
            }
            // vm.dirty_bytes (at least 2 pages: dirty_bytes_min) and vm.dirty_background_bytes
            // (at least 1), mm/page-writeback.c's sysctl table; 0 (the default) leaves the ratio.
            for (key, min) in [("dirty_bytes", 2 * crate::types::PAGE_SIZE), ("dirty_background_bytes", 1)] {
                if let Some(v) = t.get(key) {
                    if let Some(n) = get_size(cx, v, &format!("kernel.{key}")) {
                        if n < min {
                            cx.err(&v.loc, format!("kernel.{key} is {n} bytes: vm.{key} takes at least {min}"), format!("write a size of at least {min} bytes, e.g. kernel.{key} = \"256M\", or leave it out for the ratio"));
                        } else if key == "dirty_bytes" {
                            prof.dirty_bytes = n;
                        } else {
                            prof.dirty_background_bytes = n;
                        }
                    }
                }
            }
            t.finish(cx, &["profile", "cgroup", "list_lru_layout", "policies", "thp", "shmem_enabled", "lru_gen", "min_ttl_ms", "boot_seed", "reclaim_walk", "swappiness", "dirty_bytes", "dirty_background_bytes"]);
        }
    }

    // [machine]
    let mut machine = Machine { ram: 0, cpus: 1, kernel_reserved: 0, nodes: 1, node_reserved: vec![], dma32: 0, swap: 0, swap_device: None, swap_file: false, zswap: None, boot_percpu: 0, boot_slab: 0, boot_used: 0, boot_superblocks: 0, fs: "ext4".into(), fs_features: vec![], cpu_slowdown: 1, copy_slowdown: None, wakeup_latency: vec![], kworker_wakeup_latency: vec![], vcpu_stall: None, background_runnable: 0, autogroup: None, host_cost: Default::default(), submit_io_slowdown: None, nonmovable_free: None };
    let mut reserved = None;
    let mut node_reserved_loc: Option<Loc> = None;
    let mut swap_loc: Option<Loc> = None;
    let mut swap_dev_name: Option<(String, Loc)> = None;
    let mut host_window_loc: Option<Loc> = None;
    let mut zswap_loc: Option<Loc> = None;
    let mut swap_file_loc: Option<Loc> = None;
    // machine.zswap.zpool as given (checked against the profile's era below), and the keys
    // 6.18 no longer has
    let mut zswap_zpool: Option<(String, Loc)> = None;
    let mut zswap_gone_keys: Vec<(&'static str, Loc)> = vec![];
    match top.get("machine") {
        Some(n) => {
            if let Some(mut t) = Tab::new(cx, n, "[machine]") {
                match t.get("ram") {
                    Some(v) => {
                        if let Some(r) = get_size(cx, v, "machine.ram") {
                            if r < 16 << 20 {
                                cx.err(&v.loc, format!("machine.ram is {r} bytes, too small to boot"), "give the machine at least \"16M\" of RAM");
                            }
                            if r > MAX_RAM {
                                cx.err(
                                    &v.loc,
                                    format!("machine.ram is {}, more than the engine can hold: at most {} (its page arena takes 24 bytes of host memory per simulated 4 KiB page, 12 GiB for 2 TiB, and a full page cache about 9 more)", human_size(r), human_size(MAX_RAM)),
                                    "give the machine at most ram = \"1T\"; scale the scenario down (files, limits) with it",
                                );
                            } else {
                                machine.ram = r;
                            }
                        }
                    }
                    None => cx.err(&n.loc, "[machine] has no `ram`", "add ram = \"16G\" to [machine]"),
                }
                if let Some(v) = t.get("cpus") {
                    match get_uint(cx, v, "machine.cpus") {
                        Some(0) => cx.err(&v.loc, "machine.cpus is 0", "give the machine at least one CPU"),
                        Some(c) if c > MAX_CPUS => cx.err(
                            &v.loc,
                            format!("machine.cpus is {c}, more than the kernel's largest NR_CPUS ({MAX_CPUS}, x86_64 with CONFIG_MAXSMP)"),
                            format!("give the machine at most cpus = {MAX_CPUS}"),
                        ),
                        Some(c) => machine.cpus = c as u32,
                        None => {}
                    }
                }
                if let Some(v) = t.get("kernel_reserved") {
                    reserved = get_size(cx, v, "machine.kernel_reserved");
                }
                if let Some(v) = t.get("nodes") {
                    match get_uint(cx, v, "machine.nodes") {
                        Some(0) => cx.err(&v.loc, "machine.nodes is 0", "give the machine at least one NUMA node"),
                        Some(n) if n > 64 => cx.err(&v.loc, format!("machine.nodes is {n}"), "model at most 64 NUMA nodes"),
                        Some(n) => machine.nodes = n as u32,
                        None => {}
                    }
                }
                if let Some(v) = t.get("node_reserved") {
                    match &v.v {
                        Val::Arr(items) => {
                            let mut ok = true;
                            for (i, it) in items.iter().enumerate() {
                                match get_size(cx, it, &format!("machine.node_reserved[{i}]")) {
                                    Some(b) => machine.node_reserved.push(b),
                                    None => ok = false,
                                }
                            }
                            // With an entry in error, the per-node checks below would only
                            // repeat it under another name.
                            if ok {
                                node_reserved_loc = Some(v.loc.clone());
                            } else {
                                machine.node_reserved.clear();
                            }
                        }
                        other => cx.err(&v.loc, format!("machine.node_reserved must be an array of sizes, one per node, not {}", other.type_name()), "write node_reserved = [\"95M\", \"42M\"]"),
                    }
                }
                if let Some(v) = t.get("dma32") {
                    machine.dma32 = get_size(cx, v, "machine.dma32").unwrap_or(0);
                }
                if let Some(v) = t.get("swap") {
                    machine.swap = get_size(cx, v, "machine.swap").unwrap_or(0);
                    if machine.swap > MAX_FILE_SIZE {
                        cx.err(
                            &v.loc,
                            format!("machine.swap is {}, more than the engine's largest swap area of {} (swap slots are numbered in 32 bits, as page indices)", human_size(machine.swap), human_size(MAX_FILE_SIZE)),
                            "give the machine at most swap = \"8T\"",
                        );
                        machine.swap = 0;
                    }
                    swap_loc = Some(v.loc.clone());
                }
                if let Some(v) = t.get("zswap") {
                    machine.zswap = get_zswap(cx, v, &mut zswap_zpool, &mut zswap_gone_keys);
                    zswap_loc = Some(v.loc.clone());
                }
                if let Some(v) = t.get("swap_device") {
                    swap_dev_name = get_str(cx, v, "machine.swap_device").map(|s| (s.to_string(), v.loc.clone()));
                }
                if let Some(v) = t.get("swap_file") {
                    machine.swap_file = get_bool(cx, v, "machine.swap_file").unwrap_or(false);
                    swap_file_loc = Some(v.loc.clone());
                }
                if let Some(v) = t.get("boot_percpu") {
                    machine.boot_percpu = get_size(cx, v, "machine.boot_percpu").unwrap_or(0);
                }
                if let Some(v) = t.get("boot_slab") {
                    machine.boot_slab = get_size(cx, v, "machine.boot_slab").unwrap_or(0);
                }
                if let Some(v) = t.get("boot_used") {
                    machine.boot_used = get_size(cx, v, "machine.boot_used").unwrap_or(0);
                }
                if let Some(v) = t.get("boot_superblocks") {
                    match get_uint(cx, v, "machine.boot_superblocks") {
                        Some(n) if n > MAX_MOUNTS => cx.err(
                            &v.loc,
                            format!("machine.boot_superblocks is {n}, more than the kernel mounts: fs.mount-max is {MAX_MOUNTS}"),
                            format!("give at most boot_superblocks = {MAX_MOUNTS} (a booted system has a few dozen)"),
                        ),
                        Some(n) => machine.boot_superblocks = n as u32,
                        None => {}
                    }
                }
                if let Some(v) = t.get("fs") {
                    if let Some(fs) = get_str(cx, v, "machine.fs") {
                        if fs == "tmpfs" {
                            cx.err(&v.loc, "machine.fs is tmpfs: the root file system is the one on the devices", "write fs = \"ext4\", \"xfs\" or \"btrfs\"; put tmpfs files under a [mounts.\"/tmp\"] fs = \"tmpfs\"");
                        } else if crate::fs::FS_TYPES.contains(&fs) {
                            machine.fs = fs.to_string();
                        } else {
                            let known: Vec<&str> = crate::fs::FS_TYPES.iter().copied().filter(|f| *f != "tmpfs").collect();
                            cx.err(&v.loc, format!("machine.fs is `{fs}`, a file system the engine does not model"), format!("{}write one of: {}", suggest(fs, &known), known.join(", ")));
                        }
                    }
                }
                if let Some(v) = t.get("fs_features") {
                    match &v.v {
                        Val::Arr(items) => {
                            for (i, it) in items.iter().enumerate() {
                                let Some(f) = get_str(cx, it, &format!("machine.fs_features[{i}]")) else { continue };
                                if !crate::fs::EXT4_FEATURES.contains(&f) {
                                    cx.err(&it.loc, format!("machine.fs_features[{i}] is `{f}`, not an ext4 feature the page cache depends on"), format!("{}write features from: {} (or leave fs_features out for mkfs.ext4's defaults)", suggest(f, crate::fs::EXT4_FEATURES), crate::fs::EXT4_FEATURES.join(", ")));
                                } else if !machine.fs_features.iter().any(|x| x == f) {
                                    machine.fs_features.push(f.to_string());
                                }
                            }
                            machine.fs_features.sort();
                            if !machine.fs_features.is_empty() && machine.fs != "ext4" {
                                cx.err(&v.loc, format!("machine.fs_features names ext4 features, but machine.fs is {}", machine.fs), "drop fs_features, or write fs = \"ext4\"");
                            }
                        }
                        other => cx.err(&v.loc, format!("machine.fs_features must be an array of strings, not {}", other.type_name()), "write fs_features = [\"verity\"]"),
                    }
                }
                if let Some(v) = t.get("cpu_slowdown") {
                    match get_uint(cx, v, "machine.cpu_slowdown") {
                        Some(0) => cx.err(&v.loc, "machine.cpu_slowdown is 0", "write how many times slower than the reference machine the CPUs are, 1 or more (1: as fast)"),
                        Some(k) if k > 10_000 => cx.err(&v.loc, format!("machine.cpu_slowdown is {k}, more than 10000 times slower than the reference machine"), "write the measured factor (memtwin real --on qemu records it as real.machine.cpu.cpu_slowdown), at most 10000"),
                        Some(k) => machine.cpu_slowdown = k,
                        None => {}
                    }
                }
                if let Some(v) = t.get("copy_slowdown") {
                    match get_uint(cx, v, "machine.copy_slowdown") {
                        Some(0) => cx.err(&v.loc, "machine.copy_slowdown is 0", "write how many times slower than the reference machine the CPUs copy memory, 1 or more (1: as fast)"),
                        Some(k) if k > 10_000 => cx.err(&v.loc, format!("machine.copy_slowdown is {k}, more than 10000 times slower than the reference machine"), "write the measured factor (memtwin real --on qemu records it as real.machine.cpu.copy_slowdown), at most 10000"),
                        Some(k) => machine.copy_slowdown = Some(k),
                        None => {}
                    }
                }
                for (key, rec) in [("wakeup_latency", "real.machine.cpu.wakeup_latency_ns"),
                                   ("kworker_wakeup_latency", "a step's kworker_run_delay_s / kworker_runs")] {
                    if let Some(v) = t.get(key) {
                        let samples = latency_samples(cx, v, "machine", key, &format!("memtwin real --on qemu records them as {rec}"));
                        if key == "wakeup_latency" { machine.wakeup_latency = samples } else { machine.kworker_wakeup_latency = samples }
                    }
                }
                // The vCPUs' stalls (zswap20): samples and their mean interval, both or neither.
                match (t.get("vcpu_stall"), t.get("vcpu_stall_interval")) {
                    (None, None) => {}
                    (Some(v), None) | (None, Some(v)) => cx.err(&v.loc, "machine.vcpu_stall and machine.vcpu_stall_interval go together",
                        "write both: vcpu_stall = [\"2.7ms\", \"31ms\"] (the stalls' lengths) and vcpu_stall_interval = \"40ms\" (the mean time from one stall's start to the next's on one vCPU, longer than the stalls' mean; memtwin real --on qemu --vcpu-stall-probe measures them as real.machine.cpu.vcpu_stall), or neither"),
                    (Some(v), Some(iv)) => {
                        let samples = latency_samples(cx, v, "machine", "vcpu_stall", "memtwin real --on qemu --vcpu-stall-probe records them as real.machine.cpu.vcpu_stall");
                        match get_duration(cx, iv, "machine.vcpu_stall_interval") {
                            Some(0) => cx.err(&iv.loc, "machine.vcpu_stall_interval is 0", "write the mean time from one stall's start to the next's on one vCPU, more than 0 (\"40ms\")"),
                            // The idle gap between two stalls (vcpu_stall.rs) is the interval less
                            // the stalls' mean: an interval not longer than that leaves no time
                            // for the vCPU to run, and a context on it would never end.
                            Some(i) if !samples.is_empty() && i <= samples.iter().sum::<u64>() / samples.len() as u64 => {
                                let mean = samples.iter().sum::<u64>() / samples.len() as u64;
                                cx.err(&iv.loc, format!("machine.vcpu_stall_interval ({i} ns) is not longer than the mean of machine.vcpu_stall ({mean} ns): the vCPUs would never run"),
                                    format!("write the mean time from one stall's start to the next's on one vCPU, longer than the stalls' mean {mean} ns (memtwin real --on qemu --vcpu-stall-probe measures both as real.machine.cpu.vcpu_stall), or drop both keys"))
                            }
                            Some(i) if !samples.is_empty() => machine.vcpu_stall = Some((samples, i)),
                            _ => {}
                        }
                    }
                }
                // The machine's other runnable tasks (`background_runnable`) and, where CFS shares
                // the CPUs by autogroup (`sched_autogroup`), their root-level entities and the
                // others in the scenario's own autogroup: mean counts, 0 to 1000.
                let mut bg_count = |cx: &mut Cx, key: &str, what: &str, unit: &str| -> Option<u64> {
                    let v = t.get(key)?;
                    let fix = format!("write the mean number of {what}, a number from 0 to 1000 such as 3.5 (memtwin real --on host records it per step as sched.{key})");
                    let n = match v.v {
                        Val::Int(i) => Some(i as f64),
                        Val::Float(f) => Some(f),
                        ref other => {
                            cx.err(&v.loc, format!("machine.{key} must be a number, not {}", other.type_name()), &fix);
                            None
                        }
                    };
                    match n {
                        Some(f) if !(0.0..=1000.0).contains(&f) => {
                            cx.err(&v.loc, format!("machine.{key} is {}, outside 0 to 1000 {unit}", if f.abs() < 1e6 { format!("{f}") } else { format!("{f:e}") }), &fix);
                            None
                        }
                        Some(f) => Some((f * crate::kernel::SCHED_CAPACITY_SCALE as f64).round() as u64),
                        None => None,
                    }
                };
                if let Some(n) = bg_count(cx, "background_runnable", "the machine's other runnable tasks", "tasks") {
                    machine.background_runnable = n;
                }
                let entities = bg_count(cx, "background_entities", "the other runnable tasks' root-level CFS entities (autogroups, root-level tasks)", "entities");
                let own_group = bg_count(cx, "background_own_group", "other runnable tasks in the scenario's own autogroup", "tasks");
                let on = t.get("sched_autogroup").and_then(|n| get_bool(cx, n, "machine.sched_autogroup")).unwrap_or(false);
                if on {
                    machine.autogroup = Some(Autogroup { entities: entities.unwrap_or(machine.background_runnable), own_group: own_group.unwrap_or(0) });
                } else {
                    for key in ["background_entities", "background_own_group"] {
                        if let Some(v) = t.get(key) {
                            cx.err(&v.loc, format!("machine.{key} counts autogroups, but the machine shares the CPUs between tasks"), "add sched_autogroup = true to [machine] (the host's /proc/sys/kernel/sched_autogroup_enabled is 1; memtwin real --on host records it as real.machine.runq_sampler.sched_autogroup_enabled), or remove the key");
                        }
                    }
                }
                // The host's own measured costs (hostcal.rs; `memtwin real --on host` records them
                // as real.machine.host_cost, validate sets them).
                if let Some(v) = t.get("read_large_folio_ns") {
                    let fix = "write (folio order, ns per 4 KiB page) pairs, orders 1 to 20 ascending, such as read_large_folio_ns = [[2, 566], [4, 469], [8, 426]] (memtwin real --on host records them as real.machine.host_cost.read_ns_by_order)";
                    match &v.v {
                        Val::Arr(items) if !items.is_empty() => {
                            for (i, it) in items.iter().enumerate() {
                                let pair = match &it.v {
                                    Val::Arr(p) if p.len() == 2 => (get_uint(cx, &p[0], &format!("machine.read_large_folio_ns[{i}][0]")), get_uint(cx, &p[1], &format!("machine.read_large_folio_ns[{i}][1]"))),
                                    _ => {
                                        cx.err(&it.loc, format!("machine.read_large_folio_ns[{i}] is not an (order, ns) pair"), fix);
                                        continue;
                                    }
                                };
                                match pair {
                                    (Some(o), _) if !(1..=20).contains(&o) => cx.err(&it.loc, format!("machine.read_large_folio_ns[{i}]: order {o} is not a large folio's (1 to 20)"), fix),
                                    (Some(o), _) if machine.host_cost.read_large_folio.last().is_some_and(|&(p, _)| p as u64 >= o) => cx.err(&it.loc, format!("machine.read_large_folio_ns[{i}]: order {o} does not follow the order before it"), fix),
                                    (Some(_), Some(ns)) if !(1..=1_000_000).contains(&ns) => cx.err(&it.loc, format!("machine.read_large_folio_ns[{i}]: {ns} ns a page is outside 1 ns to 1 ms"), fix),
                                    (Some(o), Some(ns)) => machine.host_cost.read_large_folio.push((o as u32, ns)),
                                    _ => {}
                                }
                            }
                        }
                        other => cx.err(&v.loc, format!("machine.read_large_folio_ns must be a non-empty array of (order, ns) pairs, not {}", if matches!(other, Val::Arr(_)) { "an empty array" } else { other.type_name() }), fix),
                    }
                }
                if let Some(v) = t.get("reclaim_call_ns") {
                    match get_uint(cx, v, "machine.reclaim_call_ns") {
                        Some(ns) if !(1..=1_000_000).contains(&ns) => cx.err(&v.loc, format!("machine.reclaim_call_ns is {ns}, outside 1 ns to 1 ms a call"), "write the measured ns per isolate_lru_folios() call of a memcg reclaim that frees nothing (memtwin real --on host records it as real.machine.host_cost.reclaim_call_ns)"),
                        Some(ns) => machine.host_cost.reclaim_call = Some(ns),
                        None => {}
                    }
                }
                // reclaim21 (lab/validation/reclaim-spans-rule.md): the run's own failing memcg
                // reclaims' per-call costs, one drawn per reclaim (hostcal.rs).
                if let Some(v) = t.get("reclaim_call_spans") {
                    let fix = "write the ns per isolate call of each of the run's memcg reclaims that freed nothing, such as [262, 270, 301] (memtwin real --on host records them as real.machine.host_cost.scenario_reclaim_call_spans_ns)";
                    let spans = sample_array(cx, v, "machine.reclaim_call_spans", "whole numbers of ns", fix, |cx, it| match get_uint(cx, it, "a machine.reclaim_call_spans sample") {
                        Some(ns) if !(1..=1_000_000).contains(&ns) => {
                            cx.err(&it.loc, format!("a machine.reclaim_call_spans sample is {ns}, outside 1 ns to 1 ms a call"), fix);
                            None
                        }
                        ns => ns,
                    });
                    machine.host_cost.reclaim_call_spans = spans;
                    if t.get("reclaim_call_ns").is_none() {
                        cx.err(&v.loc, "machine.reclaim_call_spans without machine.reclaim_call_ns", "give the spans' median as machine.reclaim_call_ns beside them (validate gives both from a recording)");
                    }
                }
                // hostcal23: the anonymous-memory paths' costs (hostcal.rs module doc).
                for (key, what) in [
                    ("anon_fault_ns", "ns of a first-touch anonymous fault of a base page, its clearing included (memtwin real --on host records it as real.machine.host_cost.anon_fault_ns)"),
                    ("clear_page_ns", "ns per 4 KiB of a huge page's first-touch fault, its clear_page() (memtwin real --on host records it as real.machine.host_cost.clear_page_ns)"),
                    ("zap_page_ns", "ns per base page of munmap() of faulted pages (memtwin real --on host records it as real.machine.host_cost.zap_page_ns)"),
                    // orders61: a successful memcg reclaim's per-folio and per-tail-page terms.
                    ("reclaim_folio_ns", "ns per folio a successful memcg reclaim evicts (memtwin real --on host records it as real.machine.host_cost.reclaim_folio_ns)"),
                    ("reclaim_tail_page_ns", "ns per tail page of a large folio a memcg reclaim evicts (memtwin real --on host records it as real.machine.host_cost.reclaim_tail_page_ns)"),
                    ("reclaim_fixed_ns", "ns of a memcg reclaim's fixed work (memtwin real --on host records it as real.machine.host_cost.reclaim_fixed_ns)"),
                    ("reclaim_batch_ns", "ns per shrink_inactive_list() call that frees (memtwin real --on host records it as real.machine.host_cost.reclaim_batch_ns)"),
                ] {
                    if let Some(v) = t.get(key) {
                        match get_uint(cx, v, &format!("machine.{key}")) {
                            Some(ns) if !(1..=1_000_000).contains(&ns) => cx.err(&v.loc, format!("machine.{key} is {ns}, outside 1 ns to 1 ms a page"), &format!("write the measured {what}")),
                            Some(ns) => {
                                let h = &mut machine.host_cost;
                                *match key {
                                    "anon_fault_ns" => &mut h.anon_fault,
                                    "clear_page_ns" => &mut h.clear_page,
                                    "reclaim_folio_ns" => &mut h.reclaim_folio,
                                    "reclaim_tail_page_ns" => &mut h.reclaim_tail_page,
                                    "reclaim_fixed_ns" => &mut h.reclaim_fixed,
                                    "reclaim_batch_ns" => &mut h.reclaim_batch,
                                    _ => &mut h.zap_page,
                                } = Some(ns);
                            }
                            None => {}
                        }
                    }
                }
                // The fault includes its clearing (hostcal.rs `host_calibrated`): not more than the
                // clear_page cost in effect (the measured one, else the table's at the slowdown,
                // sched.rs) is a wrong measurement, such as THP "always" rounds' huge faults (review48 M4).
                if let (Some(f), Some(v)) = (machine.host_cost.anon_fault, t.get("anon_fault_ns")) {
                    match machine.host_cost.clear_page {
                        Some(c) if f <= c => cx.err(&v.loc, format!("machine.anon_fault_ns is {f}, not more than clear_page_ns {c}"), "a base page's first-touch fault clears the page and does more: check the two measurements (anon_fault_ns is the whole fault, clearing included)"),
                        Some(_) => {}
                        None => {
                            let c = crate::profile::CpuCost::reference().clear_page * machine.copy_slowdown.unwrap_or(machine.cpu_slowdown);
                            if f <= c {
                                cx.err(&v.loc, format!("machine.anon_fault_ns is {f}, not more than the clear_page cost in effect, the table's {c} ns (no machine.clear_page_ns)"), "anon_fault_ns is a base page's whole first-touch fault, its clear_page() included: check the measurement (rounds that faulted huge pages give ~100 ns a 4 KiB page), or give the measured clear_page_ns beside it");
                            }
                        }
                    }
                }
                if let Some(v) = t.get("loop_read_window") {
                    match get_duration(cx, v, "machine.loop_read_window") {
                        Some(d) if !(10_000..=10_000_000_000).contains(&d) => cx.err(&v.loc, format!("machine.loop_read_window is {d} ns, outside 10us to 10s for an 8 MiB read"), "write the loop device's measured time for an 8 MiB read, such as \"1600us\" (memtwin real --on host records it as real.machine.host_cost.device_window_ns)"),
                        Some(d) => machine.host_cost.loop_read_window = Some(d),
                        None => {}
                    }
                    host_window_loc = Some(v.loc.clone());
                }
                // spans21 (lab/validation/spans-rule.md): the run's lone 8 MiB windows one by one,
                // the device's read batches (applied with loop_read_window below).
                if let Some(v) = t.get("loop_read_window_spans") {
                    let fix = "write the loop device's measured lone 8 MiB windows, such as [\"3133us\", \"3440us\"] (memtwin real --on host records them as real.machine.host_cost.device_lone_window_spans_ns)";
                    let spans = sample_array(cx, v, "machine.loop_read_window_spans", "durations", fix, |cx, it| match get_duration(cx, it, "a machine.loop_read_window_spans span") {
                        Some(d) if !(10_000..=10_000_000_000).contains(&d) => {
                            cx.err(&it.loc, format!("a machine.loop_read_window_spans span is {d} ns, outside 10us to 10s for an 8 MiB read"), fix);
                            None
                        }
                        d => d,
                    });
                    machine.host_cost.loop_read_window_spans = spans;
                    if host_window_loc.is_none() {
                        cx.err(&v.loc, "machine.loop_read_window_spans without machine.loop_read_window", "give the spans' median as machine.loop_read_window beside them (validate gives both from a recording: device_lone_window_ns and device_lone_window_spans_ns)");
                    }
                }
                // The loop device's work item's run and the runner's sampler (kwork23,
                // crate::sched::loop_worker_wait): what a reader waits when the loop worker its
                // read woke takes its CPU.
                if let Some(v) = t.get("loop_worker_run") {
                    match get_duration(cx, v, "machine.loop_worker_run") {
                        Some(d) if !(100..=100_000_000).contains(&d) => cx.err(&v.loc, format!("machine.loop_worker_run is {d} ns, outside 100ns to 100ms for a task's wait behind the loop device's kworker"), "write the task's measured wait behind the loop device's kworker, such as \"27us\" (lab/validation/trace-idle-wait-1130: the reader's waits behind kernel threads only, summarize.py)"),
                        Some(d) => machine.host_cost.loop_worker_run = Some(d),
                        None => {}
                    }
                }
                // The memcg's vmpressure work on the reclaiming task's CPU (kwork23c,
                // crate::sched::bound_worker_wait).
                if let Some(v) = t.get("vmpressure_work_run") {
                    match get_duration(cx, v, "machine.vmpressure_work_run") {
                        Some(d) if !(100..=100_000_000).contains(&d) => cx.err(&v.loc, format!("machine.vmpressure_work_run is {d} ns, outside 100ns to 100ms for a task's wait behind the vmpressure work"), "write the measured wait, such as \"11us\" (lab/validation/trace_idle_wait.bt: a reclaiming task's waits behind kernel threads only, with vmpressure_work_fn in @wq_fn)"),
                        Some(d) => machine.host_cost.vmpressure_work_run = Some(d),
                        None => {}
                    }
                }
                // The write completion's work that wakes a writer sleeping on writeback (wake23,
                // crate::sched::end_io_wakee_wait).
                if let Some(v) = t.get("end_io_work_run") {
                    match get_duration(cx, v, "machine.end_io_work_run") {
                        Some(d) if !(100..=100_000_000).contains(&d) => cx.err(&v.loc, format!("machine.end_io_work_run is {d} ns, outside 100ns to 100ms for the write completion work's run"), "write the completion work's measured run, such as \"359us\" (lab/validation/trace_idle_wait.bt: @wq_run_ns[ext4_end_io_rsv_work] beside a writer)"),
                        Some(d) => machine.host_cost.end_io_work_run = Some(d),
                        None => {}
                    }
                }
                // The preempted task's run from a kworker's wake-up to its switch-out (pre23,
                // crate::sched::wakeup_preempt_stale_clock): schedstat counts it as run_delay.
                if let Some(v) = t.get("preempt_resched_run") {
                    match get_duration(cx, v, "machine.preempt_resched_run") {
                        Some(d) if !(100..=100_000_000).contains(&d) => cx.err(&v.loc, format!("machine.preempt_resched_run is {d} ns, outside 100ns to 100ms for a preempted task's run from the kworker's wake-up to its switch-out"), "write the measured run, such as \"180us\" (lab/validation/trace-idle-wait-1130/preempt-1201s: the bound kworker's sched_wakeup to the preempted task's sched_switch, summarize_bound.py)"),
                        Some(d) => machine.host_cost.preempt_resched_run = Some(d),
                        None => {}
                    }
                }
                // The same runs one per traced preemption (review52 M1): the engine takes the mean of
                // each run's stale interval, the mechanism's expectation, not the interval of one run.
                if let Some(v) = t.get("preempt_resched_runs") {
                    let fix = "write each traced run from the kworker's wake-up to the preempted task's switch-out, such as [\"179us\", \"240us\"] (summarize_bound.py --runs-json)";
                    let runs = sample_array(cx, v, "machine.preempt_resched_runs", "durations", fix, |cx, it| match get_duration(cx, it, "a machine.preempt_resched_runs run") {
                        Some(d) if !(100..=100_000_000).contains(&d) => {
                            cx.err(&it.loc, format!("a machine.preempt_resched_runs run is {d} ns, outside 100ns to 100ms"), fix);
                            None
                        }
                        other => other,
                    });
                    if t.get("preempt_resched_run").is_some() {
                        cx.err(&v.loc, "machine.preempt_resched_runs beside machine.preempt_resched_run", "give one of them: the traced runs, or one run");
                    }
                    machine.host_cost.preempt_resched_runs = runs;
                }
                if let Some(v) = t.get("runner_sampler") {
                    let fix = "write the CPUs the runner's run-queue sampler kept busy, a number from 0 to 1000 such as 0.2 (its CPU time over the tasks' run: memtwin real --on host records it as real.machine.runq_sampler.cpu_s)";
                    match v.v {
                        Val::Int(i) if (0..=1000).contains(&i) => machine.host_cost.runner_sampler = i as u64 * crate::kernel::SCHED_CAPACITY_SCALE,
                        Val::Float(f) if (0.0..=1000.0).contains(&f) => machine.host_cost.runner_sampler = (f * crate::kernel::SCHED_CAPACITY_SCALE as f64).round() as u64,
                        Val::Int(_) | Val::Float(_) => cx.err(&v.loc, "machine.runner_sampler is outside 0 to 1000 CPUs", fix),
                        ref other => cx.err(&v.loc, format!("machine.runner_sampler must be a number, not {}", other.type_name()), fix),
                    }
                }
                if let Some(v) = t.get("submit_io_slowdown") {
                    match get_uint(cx, v, "machine.submit_io_slowdown") {
                        Some(0) => cx.err(&v.loc, "machine.submit_io_slowdown is 0", "write how many times slower than the reference machine a block request's submission runs, 1 or more (1: as fast)"),
                        Some(k) if k > 100_000 => cx.err(&v.loc, format!("machine.submit_io_slowdown is {k}, more than 100000 times slower than the reference machine"), "write the measured factor (memtwin real --on qemu records it as real.machine.cpu.submit_io_slowdown), at most 100000"),
                        Some(k) => machine.submit_io_slowdown = Some(k),
                        None => {}
                    }
                }
                if let Some(v) = t.get("nonmovable_free") {
                    const FIX: &str = "write the free pages of the boot's Unmovable and Reclaimable pageblocks below pageblock order, or their free buddies of orders 0..8 as [c0, c1, ..., c8] (memtwin real --on qemu records /proc/pagetypeinfo as real.machine.pagetypeinfo_at_boot)";
                    let pool = match &v.v {
                        Val::Arr(a) if a.len() == crate::page_alloc::PAGEBLOCK_ORDER as usize => {
                            let mut c = [0u64; crate::page_alloc::PAGEBLOCK_ORDER as usize];
                            let mut ok = true;
                            for (o, x) in a.iter().enumerate() {
                                match get_uint(cx, x, &format!("machine.nonmovable_free[{o}]")) {
                                    Some(n) => c[o] = n,
                                    None => ok = false,
                                }
                            }
                            ok.then_some(crate::page_alloc::NonmovablePool::Buddies(c))
                        }
                        Val::Arr(a) => {
                            cx.err(&v.loc, format!("machine.nonmovable_free has {} counts, not 9 (orders 0..8)", a.len()), FIX);
                            None
                        }
                        _ => get_uint(cx, v, "machine.nonmovable_free").map(crate::page_alloc::NonmovablePool::Pages),
                    };
                    match pool {
                        Some(p) if p.pages() > 1 << 30 || matches!(&p, crate::page_alloc::NonmovablePool::Buddies(c) if c.iter().any(|&n| n > 1 << 30)) => cx.err(&v.loc, format!("machine.nonmovable_free is {} pages, more than 4 TiB", p.pages()), FIX),
                        Some(p) => machine.nonmovable_free = Some(p),
                        None => {}
                    }
                }
                t.finish(cx, &["ram", "cpus", "nodes", "node_reserved", "dma32", "swap", "swap_device", "swap_file", "zswap", "kernel_reserved", "boot_percpu", "boot_slab", "boot_used", "boot_superblocks", "fs", "fs_features", "cpu_slowdown", "copy_slowdown", "wakeup_latency", "kworker_wakeup_latency", "vcpu_stall", "vcpu_stall_interval", "background_runnable", "sched_autogroup", "background_entities", "background_own_group", "read_large_folio_ns", "reclaim_call_ns", "reclaim_call_spans", "loop_read_window", "loop_read_window_spans", "loop_worker_run", "vmpressure_work_run", "end_io_work_run", "preempt_resched_run", "preempt_resched_runs", "runner_sampler", "anon_fault_ns", "clear_page_ns", "zap_page_ns", "reclaim_folio_ns", "reclaim_tail_page_ns", "reclaim_fixed_ns", "reclaim_batch_ns", "submit_io_slowdown", "nonmovable_free"]);
            }
        }
        None => cx.err(&doc.loc, "the scenario has no [machine] table", "add [machine] with ram = \"16G\" and cpus = 8"),
    }
    // struct page is 64 bytes per 4 KiB page (include/linux/mm_types.h): 1/64 of RAM.
    machine.kernel_reserved = reserved.unwrap_or(machine.ram / 64);
    if let Some(loc) = &node_reserved_loc {
        let n = machine.nodes as usize;
        if reserved.is_some() {
            cx.err(loc, "[machine] sets both kernel_reserved and node_reserved", "keep node_reserved (per node) or kernel_reserved (split evenly), not both");
        } else if machine.node_reserved.len() != n {
            cx.err(loc, format!("machine.node_reserved has {} entries for {n} node(s)", machine.node_reserved.len()), "give one size per node, node 0 first");
        } else {
            // Checked in pages, as sched.rs splits them: every node keeps at least
            // MIN_NODE_PAGES for the allocator.
            let per_node = machine.ram / crate::types::PAGE_SIZE / n as u64;
            let mut fits = true;
            for (i, &r) in machine.node_reserved.iter().enumerate() {
                if r / crate::types::PAGE_SIZE + MIN_NODE_PAGES > per_node {
                    fits = false;
                    cx.err(
                        loc,
                        format!("machine.node_reserved[{i}] ({r} bytes) leaves node {i} less than {} KiB of its {} KiB share of RAM", MIN_NODE_PAGES * 4, per_node * 4),
                        "lower it, or raise machine.ram",
                    );
                }
            }
            if fits {
                machine.kernel_reserved = machine.node_reserved.iter().sum();
            } else {
                machine.node_reserved.clear();
            }
        }
    }
    if machine.kernel_reserved >= machine.ram && machine.ram > 0 {
        let loc = match top.entries.iter().find(|(k, _, _)| k == "machine").map(|(_, _, m)| &m.v) {
            Some(Val::Table(m)) => m.iter().find(|(k, _, _)| k == "kernel_reserved" || k == "node_reserved").map(|(_, _, v)| v.loc.clone()),
            _ => None,
        };
        cx.err(loc.as_ref().unwrap_or(&doc.loc), "machine.kernel_reserved is not below machine.ram", "lower machine.kernel_reserved or raise machine.ram");
    }

    // [devices.NAME]
    let mut devices = vec![];
    if let Some(n) = top.get("devices") {
        for (dname, kloc, dn) in table_entries(cx, n, "devices") {
            let Some(mut t) = Tab::new(cx, dn, &format!("[devices.{dname}]")) else { continue };
            let key = |k: &str| format!("devices.{dname}.{k}");
            let read_bw = match t.get("read_bw") {
                Some(v) => get_bandwidth(cx, v, &key("read_bw")),
                None => {
                    cx.err(kloc, format!("[devices.{dname}] has no `read_bw`"), "add read_bw = \"100M\" (bytes per second)");
                    None
                }
            };
            let write_bw = t.get("write_bw").and_then(|v| get_bandwidth(cx, v, &key("write_bw")));
            let seek = t.get("seek").and_then(|v| get_duration(cx, v, &key("seek"))).unwrap_or(0);
            let read_ahead_kb = match t.get("read_ahead_kb") {
                Some(v) => match get_uint(cx, v, &key("read_ahead_kb")) {
                    Some(kb) if kb > MAX_READ_AHEAD_KB => {
                        cx.err(&v.loc, format!("{} is {kb}, more than the engine's largest readahead window of {MAX_READ_AHEAD_KB} KiB (1 GiB)", key("read_ahead_kb")), "set read_ahead_kb to at most 1048576 (the kernel's default is 128)");
                        128
                    }
                    Some(kb) => kb,
                    None => 128,
                },
                None => 128,
            };
            let blk_throttle = t.get("blk_throttle").and_then(|v| get_bool(cx, v, &key("blk_throttle"))).unwrap_or(false);
            let rotational = t.get("rotational").and_then(|v| get_bool(cx, v, &key("rotational"))).unwrap_or(true);
            let complete_together = t.get("complete_together").and_then(|v| get_bool(cx, v, &key("complete_together"))).unwrap_or(false);
            let qemu_throttle = t.get("qemu_throttle").and_then(|v| get_bool(cx, v, &key("qemu_throttle"))).unwrap_or(false);
            if qemu_throttle && (blk_throttle || t.get("queue_depth").is_some()) {
                let loc = t.get("qemu_throttle").map(|v| v.loc.clone()).unwrap_or_else(|| kloc.clone());
                cx.err(&loc, format!("[devices.{dname}] has qemu_throttle = true with {}: a QEMU guest's throttled disk is modelled without blk-throttle and without a queue of its own", if blk_throttle { "blk_throttle = true" } else { "queue_depth" }), "drop qemu_throttle (a host device), or drop blk_throttle and the queue_* keys (the QEMU guest's disk)");
            }
            let max_sectors_kb = t.get("max_sectors_kb").and_then(|v| match get_uint(cx, v, &key("max_sectors_kb")) {
                // BLK_MIN_SEGMENT_SIZE-sized requests at least (a page), and at most what a request's
                // 32-bit sector count holds (`max_hw_sectors`: UINT_MAX sectors).
                Some(kb) if kb < PAGE_SIZE / 1024 || kb > (u32::MAX as u64) / 2 => {
                    cx.err(&v.loc, format!("{} is {kb}: a request holds from one page (4 KiB) to 2 TiB", key("max_sectors_kb")), "give the device's queue/max_sectors_kb, e.g. 1280 (the loop device's in 6.x)");
                    None
                }
                kb => kb,
            })
            .unwrap_or(crate::blkdev::MAX_REQUEST_PAGES * PAGE_SIZE / 1024);
            let rb = read_bw.unwrap_or(1);
            let legacy = prof.blk_queue == crate::blkdev::BlkQueue::Legacy;
            let scheduler = t.get("scheduler").and_then(|v| {
                let name = get_str(cx, v, &key("scheduler"))?;
                match crate::blkdev::SchedKind::parse(&name) {
                    Some(crate::blkdev::SchedKind::Cfq) if !legacy => {
                        cx.err(&v.loc, format!("{} is \"cfq\" on profile `{}`: CFQ went with the legacy request path in 5.0 (f382fb0bcef4 \"block: remove legacy IO schedulers\")", key("scheduler"), prof.name), "use \"mq-deadline\" or \"none\", or a profile before 5.0 (linux-3.13, linux-4.3, linux-4.4)");
                        None
                    }
                    Some(k) => Some(k),
                    None => {
                        cx.err(&v.loc, format!("{} is \"{name}\": not a scheduler the engine models", key("scheduler")), "use \"cfq\" (before 5.0), \"mq-deadline\" or \"none\"");
                        None
                    }
                }
            });
            // The era's default (block/elevator.c): the host runner's loop device (given with
            // its queue or blk-throttle) has none.
            let scheduler = scheduler.unwrap_or_else(|| crate::blkdev::SchedKind::era_default(legacy, blk_throttle || t.get("queue_depth").is_some()));
            let driver_depth = t.get("driver_depth").and_then(|v| match get_uint(cx, v, &key("driver_depth")) {
                Some(0) => {
                    cx.err(&v.loc, format!("{} is 0: the driver takes at least one request", key("driver_depth")), "give the disk's queue depth, e.g. 32 (a SATA disk's NCQ) or 128 (the lab's virtio disk's driver tags)");
                    None
                }
                d => d,
            });
            let driver_depth = driver_depth.unwrap_or_else(|| crate::blkdev::SchedKind::default_driver_depth(legacy));
            let queue_keys_given: Vec<&'static str> = ["scheduler", "max_sectors_kb", "driver_depth", "wbt_lat_usec"].into_iter().filter(|k| t.entries.iter().any(|(e, _, _)| e == k)).collect();
            let loop_device = blk_throttle || t.get("queue_depth").is_some();
            let wbt_lat_usec = t.get("wbt_lat_usec").and_then(|v| match get_uint(cx, v, &key("wbt_lat_usec")) {
                Some(us) if us > 0 && !prof.wbt => {
                    cx.err(&v.loc, format!("{} is {us} on profile `{}`: blk-wbt came in 4.10 (e34cbd307477), after this profile's kernel", key("wbt_lat_usec"), prof.name), "drop wbt_lat_usec (or give 0), or use a profile from 5.0 (linux-5.0, linux-6.1, ...)");
                    None
                }
                Some(us) if us > u32::MAX as u64 => {
                    cx.err(&v.loc, format!("{} is {us}: more than an hour", key("wbt_lat_usec")), "give the latency target in microseconds, e.g. 2000 (non-rotational) or 75000 (rotational), or 0 to turn blk-wbt off");
                    None
                }
                us => us,
            });
            let wbt_lat_usec = wbt_lat_usec.unwrap_or(if !prof.wbt {
                0
            } else if rotational && !loop_device {
                crate::blkdev::wbt::WBT_LAT_USEC_ROTATIONAL
            } else {
                crate::blkdev::wbt::WBT_LAT_USEC_NONROT
            });
            // The loop driver's worker (blkdev.rs `LoopWorker`): on the host runner's loop device only.
            let worker_wakeup_latency = match t.get("worker_wakeup_latency") {
                Some(v) if !loop_device => {
                    cx.err(&v.loc, format!("{} on a device that is not the host runner's loop device: the loop driver's worker (drivers/block/loop.c loop_queue_work()) is modelled on a device with blk_throttle = true or queue_depth", key("worker_wakeup_latency")), "drop worker_wakeup_latency, or give the loop device's blk_throttle or queue_depth");
                    vec![]
                }
                Some(v) => latency_samples(cx, v, &format!("devices.{dname}"), "worker_wakeup_latency", "memtwin real --on host records the loop worker's mean wait as real.machine.kthread_waits.unbound_kworker run_delay_s / runs"),
                None => vec![],
            };
            let max_segments = t.get("max_segments").and_then(|v| match get_uint(cx, v, &key("max_segments")) {
                Some(0) => {
                    cx.err(&v.loc, format!("{} is 0: a request holds at least one segment", key("max_segments")), "give the device's queue/max_segments, e.g. 128 (the loop device's) or 254 (the lab's QEMU virtio disk's)");
                    None
                }
                n => n,
            });
            // qlat62: QEMU's service of a write request (DeviceSpec::write_latency)
            let write_latency = t.get("write_latency").and_then(|v| get_duration(cx, v, &key("write_latency")));
            let write_service_bw = t.get("write_service_bw").and_then(|v| get_bandwidth(cx, v, &key("write_service_bw")));
            if !qemu_throttle {
                for k in ["write_latency", "write_service_bw"] {
                    if let Some(v) = t.get(k) {
                        cx.err(&v.loc, format!("{} on a device without qemu_throttle: QEMU's service of a write request is modelled on the lab's guest disk only", key(k)), format!("drop {k}, or set qemu_throttle = true (a QEMU guest's disk); a device with its own queue takes request_latency and request_write_bw"));
                    }
                }
            }
            let hw = device_hw_queue(cx, &mut t, dname, kloc, blk_throttle, [rb, write_bw.unwrap_or(rb)], max_segments);
            let segment_cost = t.get("segment_cost").and_then(|v| match get_duration(cx, v, &key("segment_cost")) {
                Some(d) if d > 1_000_000 => {
                    cx.err(&v.loc, format!("{} is {d} ns: more than 1 ms for one segment of a request", key("segment_cost")), "give the device's time per segment (a physically contiguous run of a request's memory), such as \"1100ns\"");
                    None
                }
                d => d,
            });
            t.finish(cx, &["read_bw", "write_bw", "seek", "read_ahead_kb", "rotational", "blk_throttle", "qemu_throttle", "queue_depth", "request_latency", "request_read_bw", "request_write_bw", "request_cost", "queue_read_bw", "queue_write_bw", "queue_read_bw_batches", "segment_cost", "max_segments", "ring_descriptors", "max_sectors_kb", "complete_together", "scheduler", "driver_depth", "wbt_lat_usec", "worker_wakeup_latency", "write_latency", "write_service_bw"]);
            devices.push(DeviceSpec { name: dname.clone(), read_bw: rb, write_bw: write_bw.unwrap_or(rb), seek, read_ahead_kb, rotational, blk_throttle, qemu_throttle, hw, complete_together, scheduler, driver_depth, max_sectors_kb, wbt_lat_usec, queue_keys_given, worker_wakeup_latency, segment_cost: segment_cost.unwrap_or(0), max_segments, write_latency: write_latency.unwrap_or(0), write_service_bw: write_service_bw.unwrap_or(0) });
        }
    }
    if let (Some(z), Some(loc)) = (machine.zswap, &zswap_loc) {
        if machine.swap == 0 && z.enabled {
            cx.err(loc, "machine.zswap is enabled but the machine has no swap: zswap caches pages on their way to a swap device (frontswap_store() in swap_writepage())", "add swap = \"256M\" to [machine], or drop zswap");
        } else if !prof.zswap_modelled {
            cx.err(
                loc,
                format!("machine.zswap on profile `{}`: the engine models zswap as Linux 5.15-6.4 have it (frontswap hooks, non-exclusive loads, zbud written back from its LRU) and as 6.12-6.18 have it; this era's differs", prof.name),
                "use profile \"linux-6.1\", \"linux-5.17\", \"linux-6.12\" or \"linux-6.18\", or drop machine.zswap",
            );
        } else if let Some((zpool, zloc)) = &zswap_zpool {
            let want = if prof.zswap_direct { "zsmalloc" } else { "zbud" };
            if zpool != want {
                cx.err(zloc, format!("machine.zswap.zpool is `{zpool}` on profile `{}`: the engine models `{want}` there ({})", prof.name,
                    if prof.zswap_direct { "zsmalloc, Debian's 6.12 CONFIG_ZSWAP_ZPOOL_DEFAULT; zbud was removed in 6.15" } else { "two compressed pages per pool page, CONFIG_ZSWAP_ZPOOL_DEFAULT of Debian's 6.1" }),
                    format!("write zpool = \"{want}\", or leave it out"));
            }
        }
        if prof.zswap_direct {
            for (key, kloc) in &zswap_gone_keys {
                cx.err(kloc, format!("machine.zswap.{key} on profile `{}`: 6.12's and 6.18's zswap have no such parameter (same-filled pages are no longer zswap's, 6.12)", prof.name), format!("drop {key}"));
            }
        }
    }
    // [machine] loop_read_window (hostcal.rs): the read bandwidth shared by the requests of each
    // device with a queue of its own (the host runner's loop device).
    if let (Some(w), Some(loc)) = (machine.host_cost.loop_read_window, &host_window_loc) {
        for d in devices.iter_mut() {
            let (msk, name) = (d.max_sectors_kb, d.name.clone());
            if let Some(h) = d.hw.as_mut() {
                match crate::hostcal::window_read_bw(w, msk, h.request_cost) {
                    // the recording's own window stands for every batch of its run, or, where the
                    // run's lone windows are given one by one (spans-rule.md), its batches draw
                    // from their rates
                    Some(bw) => {
                        h.bw[0] = bw;
                        h.read_bw_batches.clear();
                        for &span in &machine.host_cost.loop_read_window_spans {
                            match crate::hostcal::window_read_bw(span, msk, h.request_cost) {
                                Some(b) => h.read_bw_batches.push(b),
                                None => cx.err(loc, format!("a machine.loop_read_window_spans span is {span} ns, no longer than the request_cost of [devices.{name}]'s requests for 8 MiB"), "check the measurement (the loop device's time for an 8 MiB read) and the device's request_cost"),
                            }
                        }
                    }
                    None => cx.err(loc, format!("machine.loop_read_window is {w} ns, no longer than the request_cost of [devices.{name}]'s requests for 8 MiB"), "check the measurement (the loop device's time for an 8 MiB read) and the device's request_cost"),
                }
            }
        }
    }
    if let (true, 0, Some(loc)) = (machine.swap_file, machine.swap, &swap_file_loc) {
        cx.err(loc, "machine.swap_file = true but the machine has no swap: it says what kind of swap area machine.swap is", "add swap = \"256M\" to [machine], or drop swap_file");
    }
    // The swap area's device: named, or the only one.
    if machine.swap > 0 {
        let names: Vec<&str> = devices.iter().map(|d| d.name.as_str()).collect();
        match &swap_dev_name {
            Some((name, loc)) => match devices.iter().position(|d| &d.name == name) {
                Some(i) => machine.swap_device = Some(i),
                None => cx.err(loc, format!("unknown swap device `{name}`"), format!("{}declare [devices.{name}] or use one of: {}", suggest(name, &names), names.join(", "))),
            },
            None if devices.len() == 1 => machine.swap_device = Some(0),
            None => cx.err(
                swap_loc.as_ref().unwrap_or(&doc.loc),
                if devices.is_empty() { "machine.swap needs a device but the scenario declares none".to_string() } else { "machine.swap: several devices, none named for swap".to_string() },
                "add a [devices.NAME] table and machine.swap_device = \"NAME\"",
            ),
        }
    }

    // [mounts.PATH]
    let mut mounts: Vec<MountSpec> = vec![];
    if let Some(n) = top.get("mounts") {
        for (mpath, kloc, mn) in table_entries(cx, n, "mounts") {
            let what = format!("[mounts.\"{mpath}\"]");
            let Some(mut t) = Tab::new(cx, mn, &what) else { continue };
            if !mpath.starts_with('/') {
                cx.err(kloc, format!("mount point `{mpath}` is not an absolute path"), "write mount points as absolute paths, e.g. [mounts.\"/tmp\"]");
            }
            let fs = t.get("fs").and_then(|v| get_fs(cx, v, &format!("mounts.\"{mpath}\".fs"))).unwrap_or_else(|| "tmpfs".into());
            let device = match t.get("device") {
                Some(v) => get_str(cx, v, &format!("mounts.\"{mpath}\".device")).and_then(|d| match devices.iter().position(|x| x.name == d) {
                    Some(i) => Some(i),
                    None => {
                        let names: Vec<&str> = devices.iter().map(|x| x.name.as_str()).collect();
                        cx.err(&v.loc, format!("unknown device `{d}`"), format!("{}declare [devices.{d}] or use one of: {}", suggest(d, &names), names.join(", ")));
                        None
                    }
                }),
                None => None,
            };
            if fs != "tmpfs" && device.is_none() && !cx.errors.iter().any(|e| e.location == cx.sources.describe(kloc)) {
                cx.err(kloc, format!("{what} is {} {fs} file system without a device", if fs.starts_with(|c| c == 'e' || c == 'x') { "an" } else { "a" }), "add device = \"NAME\", or use fs = \"tmpfs\"");
            }
            if fs == "tmpfs" && device.is_some() {
                cx.err(kloc, format!("{what} is a tmpfs with a device"), "remove device: a tmpfs lives in memory");
            }
            let huge = match t.get("huge") {
                Some(v) => match get_str(cx, v, &format!("mounts.\"{mpath}\".huge")) {
                    Some(h) if crate::shmem::MOUNT_HUGE.contains(&h) => {
                        if fs != "tmpfs" {
                            cx.err(&v.loc, format!("{what} huge = \"{h}\" on a {fs} file system: `huge=` is a tmpfs mount option"), "drop huge, or make the mount fs = \"tmpfs\"");
                        } else if prof.large_folios.tmpfs == crate::shmem::TmpfsHuge::None {
                            cx.err(&v.loc, format!("{what} huge = \"{h}\" on profile `{}`: tmpfs huge pages came in Linux 4.8", prof.name), "use a profile of 4.8 or newer (linux-5.0), or drop huge");
                        }
                        crate::shmem::ShmemHuge::parse(h)
                    }
                    Some(h) => {
                        cx.err(&v.loc, format!("mounts.\"{mpath}\".huge is \"{h}\", not a tmpfs huge= value"), format!("{}write one of: {} (deny and force are shmem_enabled's, [kernel] shmem_enabled)", suggest(h, crate::shmem::MOUNT_HUGE), crate::shmem::MOUNT_HUGE.join(", ")));
                        None
                    }
                    None => None,
                },
                None => None,
            };
            t.finish(cx, &["fs", "device", "huge"]);
            mounts.push(MountSpec { path: mpath.trim_end_matches('/').to_string(), fs, device, huge });
        }
    }

    // [cgroups.PATH]
    let profile_cost_model = prof.scan_balance == crate::profile::ScanBalance::Cost;
    let mut cgroups: Vec<CgroupSpec> = vec![];
    let mut procs: Vec<(String, Loc, usize)> = vec![];
    let mut cgroup_locs: Vec<Loc> = vec![];
    if let Some(n) = top.get("cgroups") {
        let entries = table_entries(cx, n, "cgroups");
        if entries.len() > MAX_CGROUPS {
            cx.err(&n.loc, format!("[cgroups] declares {} cgroups, more than memcg ids allow: {MAX_CGROUPS} (MEM_CGROUP_ID_MAX, 65535, less the root)", entries.len()), "declare fewer cgroups");
        }
        for (cpath, kloc, cn) in entries {
            let path = cpath.trim_matches('/').to_string();
            let what = format!("[cgroups.\"{cpath}\"]");
            if path.is_empty() || path.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
                cx.err(kloc, format!("`{cpath}` is not a cgroup path"), "name cgroups by their path below the root, e.g. \"ct\" or \"jobs/a\"");
                continue;
            }
            let Some(mut t) = Tab::new(cx, cn, &what) else { continue };
            let mut spec = CgroupSpec { path: path.clone(), max: None, high: None, low: 0, min: 0, swap_max: None, memsw_max: None, swappiness: None, zswap_max: None, zswap_writeback: true };
            let (known, v2keys): (&[&str], bool) = match version {
                CgroupVersion::V1 => (&["memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.swappiness", "procs"], false),
                CgroupVersion::V2 => (&["memory.max", "memory.high", "memory.low", "memory.min", "memory.swap.max", "memory.zswap.max", "memory.zswap.writeback", "procs"], true),
            };
            let mut memsw_loc = None;
            for (k, kl, v) in t.entries.iter() {
                let key = k.as_str();
                match (key, v2keys) {
                    ("memory.limit_in_bytes", false) | ("memory.max", true) => spec.max = get_limit(cx, v, key).unwrap_or(None),
                    ("memory.high", true) => spec.high = get_limit(cx, v, key).unwrap_or(None),
                    ("memory.low", true) => spec.low = get_limit(cx, v, key).unwrap_or(None).unwrap_or(u64::MAX / 2),
                    ("memory.min", true) => spec.min = get_limit(cx, v, key).unwrap_or(None).unwrap_or(u64::MAX / 2),
                    ("memory.swap.max", true) => spec.swap_max = get_limit(cx, v, key).unwrap_or(None),
                    ("memory.zswap.max", true) => {
                        if !prof.zswap_memcg {
                            cx.err(&v.loc, format!("memory.zswap.max on profile `{}`: the file came in Linux 5.19 (zswap memcg accounting)", prof.name), "use profile \"linux-6.1\", or drop memory.zswap.max");
                        } else {
                            spec.zswap_max = get_limit(cx, v, key).unwrap_or(None);
                        }
                    }
                    ("memory.zswap.writeback", true) => {
                        if !prof.zswap_writeback_knob {
                            cx.err(&v.loc, format!("memory.zswap.writeback on profile `{}`: the file came in Linux 6.8 (zswap writeback disabling)", prof.name), "use profile \"linux-6.12\" or \"linux-6.18\", or drop memory.zswap.writeback");
                        } else {
                            // zswap_writeback_write(): "if (zswap_writeback != 0 && zswap_writeback != 1) return -EINVAL".
                            match &v.v {
                                Val::Bool(b) => spec.zswap_writeback = *b,
                                Val::Int(i) if *i == 0 || *i == 1 => spec.zswap_writeback = *i == 1,
                                _ => cx.err(&v.loc, "memory.zswap.writeback takes 0 or 1 (the kernel refuses other values with -EINVAL)", "write \"memory.zswap.writeback\" = 0 (pages stay in memory or zswap) or 1 (the default)"),
                            }
                        }
                    }
                    ("memory.zswap.writeback", false) if version_known => cx.err(
                        kl,
                        "`memory.zswap.writeback` is a cgroup v2 file (6.8+) but this scenario uses cgroup v1",
                        "set kernel.cgroup = \"v2\", or drop memory.zswap.writeback",
                    ),
                    ("memory.memsw.limit_in_bytes", false) => {
                        spec.memsw_max = get_limit(cx, v, key).unwrap_or(None);
                        memsw_loc = Some(v.loc.clone());
                    }
                    ("memory.swappiness", false) => {
                        if let Some(sw) = get_uint(cx, v, key) {
                            // mem_cgroup_swappiness_write(): "if (val > 200) return -EINVAL" (5.8+;
                            // 100 before).
                            let top = if profile_cost_model { 200 } else { 100 };
                            if sw > top {
                                cx.err(&v.loc, format!("memory.swappiness is {sw}: the kernel takes 0 to {top}"), format!("write a value from 0 to {top}"));
                            } else {
                                spec.swappiness = Some(sw);
                            }
                        }
                    }
                    ("memory.swap.max", false) if version_known => cx.err(
                        kl,
                        "`memory.swap.max` is a cgroup v2 file but this scenario uses cgroup v1",
                        "limit memory + swap with \"memory.memsw.limit_in_bytes\" (v1), or set kernel.cgroup = \"v2\"",
                    ),
                    ("memory.memsw.limit_in_bytes", true) if version_known => cx.err(
                        kl,
                        "`memory.memsw.limit_in_bytes` is a cgroup v1 file but this scenario uses cgroup v2",
                        "limit swap alone with \"memory.swap.max\" (v2), or set kernel.cgroup = \"v1\"",
                    ),
                    ("memory.swappiness", true) if version_known => cx.err(
                        kl,
                        "`memory.swappiness` is a cgroup v1 file: cgroup v2 has no per-cgroup swappiness (mem_cgroup_swappiness() returns vm.swappiness)",
                        "set kernel.swappiness for the machine, or set kernel.cgroup = \"v1\"",
                    ),
                    ("memory.max" | "memory.high" | "memory.low" | "memory.min" | "memory.limit_in_bytes" | "memory.swap.max" | "memory.memsw.limit_in_bytes" | "memory.swappiness", _) if !version_known => {}
                    ("memory.max" | "memory.high" | "memory.low" | "memory.min", false) => cx.err(
                        kl,
                        format!("`{key}` is a cgroup v2 file but this scenario uses cgroup v1"),
                        "use \"memory.limit_in_bytes\", or set kernel.cgroup = \"v2\"",
                    ),
                    ("memory.limit_in_bytes", true) => cx.err(
                        kl,
                        "`memory.limit_in_bytes` is a cgroup v1 file but this scenario uses cgroup v2",
                        "use \"memory.max\", or set kernel.cgroup = \"v1\"",
                    ),
                    ("procs", _) => match &v.v {
                        Val::Arr(items) => {
                            for it in items {
                                if let Some(s) = get_str(cx, it, "procs entry") {
                                    procs.push((s.to_string(), it.loc.clone(), cgroups.len()));
                                }
                            }
                        }
                        other => cx.err(&v.loc, format!("procs must be an array of task names, not {}", other.type_name()), "write procs = [\"task1\", \"task2\"]"),
                    },
                    _ => continue,
                }
                let i = t.entries.iter().position(|(kk, _, _)| kk == k).unwrap();
                t.used[i] = true;
            }
            t.finish(cx, known);
            if let (Some(ms), Some(loc)) = (spec.memsw_max, &memsw_loc) {
                // mem_cgroup_resize_max(): "memsw limit can't be lower than mem limit" (-EINVAL).
                if spec.max.is_none_or(|m| ms < m) {
                    cx.err(
                        loc,
                        format!("memory.memsw.limit_in_bytes ({}) is below memory.limit_in_bytes ({}): memsw counts memory and swap together, and the kernel refuses a memsw limit lower than the memory limit", human_size(ms), spec.max.map(human_size).unwrap_or_else(|| "max".into())),
                        "set memory.memsw.limit_in_bytes to at least memory.limit_in_bytes (memory + the swap allowed)",
                    );
                }
            }
            cgroups.push(spec);
            cgroup_locs.push(kloc.clone());
        }
        // Parents first, each parent declared.
        let mut order: Vec<usize> = (0..cgroups.len()).collect();
        order.sort_by_key(|&i| cgroups[i].path.matches('/').count());
        for &i in &order {
            if let Some((parent, _)) = cgroups[i].path.rsplit_once('/') {
                if !cgroups.iter().any(|c| c.path == parent) {
                    cx.err(
                        &cgroup_locs[i],
                        format!("cgroup `{}` has no parent `{parent}` in [cgroups]", cgroups[i].path),
                        format!("declare [cgroups.\"{parent}\"] too (it may be empty)"),
                    );
                }
            }
        }
        let remap: Vec<usize> = {
            let mut r = vec![0; order.len()];
            for (new, &old) in order.iter().enumerate() {
                r[old] = new;
            }
            r
        };
        cgroups = order.iter().map(|&i| cgroups[i].clone()).collect();
        for p in procs.iter_mut() {
            p.2 = remap[p.2];
        }
    }
    let find_cgroup = |cx: &mut Cx, n: &Node, what: &str, cgroups: &[CgroupSpec]| -> Option<Option<usize>> {
        let s = get_str(cx, n, what)?;
        let path = s.trim_matches('/');
        if path.is_empty() {
            return Some(None);
        }
        match cgroups.iter().position(|c| c.path == path) {
            Some(i) => Some(Some(i)),
            None => {
                let names: Vec<&str> = cgroups.iter().map(|c| c.path.as_str()).collect();
                cx.err(
                    &n.loc,
                    format!("unknown cgroup `{s}`"),
                    format!("{}declare it as [cgroups.\"{path}\"], or use one of: {} (\"/\" is the root)", suggest(path, &names), if names.is_empty() { "none declared".to_string() } else { names.join(", ") }),
                );
                None
            }
        }
    };

    // [files.PATH]
    let mount_index = MountIndex::new(&mounts);
    // [dirs.PATH]: owner and mode of a directory, and optionally the files it holds.
    let mut dir_specs: Vec<DirSpec> = vec![];
    // Generated files: (path, index into `dir_decls`); a declaration's (place, size, directory,
    // uid, mode) is kept once, not per file.
    let mut dir_files: Vec<(String, u32)> = vec![];
    let mut dir_decls: Vec<(Loc, u64, String, Option<u32>, u32)> = vec![];
    if let Some(n) = top.get("dirs") {
        for (dpath, kloc, dnode) in table_entries(cx, n, "dirs") {
            let what = format!("[dirs.\"{dpath}\"]");
            let Some(mut t) = Tab::new(cx, dnode, &what) else { continue };
            let key = |k: &str| format!("dirs.\"{dpath}\".{k}");
            if !dpath.starts_with('/') {
                cx.err(kloc, format!("{what}: `{dpath}` is not an absolute path"), format!("write the directory's full path, e.g. [dirs.\"/{}\"]", dpath.trim_start_matches('/')));
                continue;
            }
            let path = if dpath == "/" { "/".to_string() } else { dpath.trim_end_matches('/').to_string() };
            // No uid: that of the nearest declared directory above (resolved below), else root.
            let uid = t.get("uid").and_then(|v| get_uint(cx, v, &key("uid"))).map(|u| u.min(u32::MAX as u64 - 1) as u32).unwrap_or(u32::MAX);
            let mode = t.get("mode").and_then(|v| get_mode(cx, v, &key("mode"))).unwrap_or(0o755);
            if let Some(fnode) = t.get("files") {
                let fwhat = format!("{what} files");
                if let Some(mut ft) = Tab::new(cx, fnode, &fwhat) {
                    let mut too_many = false;
                    let count = match ft.get("count") {
                        Some(v) => {
                            let c = get_uint(cx, v, &key("files.count")).unwrap_or(0);
                            if dir_files.len() as u64 + c > MAX_FILES as u64 {
                                too_many = true;
                                cx.err(
                                    &v.loc,
                                    format!("{} is {c}: the scenario's directories would hold more than the engine's limit of {MAX_FILES} files", key("files.count")),
                                    format!("generate at most {MAX_FILES} files in all (each is an inode, a dentry and a mapping)"),
                                );
                            }
                            c
                        }
                        None => {
                            cx.err(&fnode.loc, format!("{fwhat} has no `count`"), "add count = 360 (files f1 ... f360)");
                            0
                        }
                    };
                    let size = match ft.get("size") {
                        Some(v) => match get_size(cx, v, &key("files.size")) {
                            Some(sz) if sz > MAX_FILE_SIZE => {
                                cx.err(
                                    &v.loc,
                                    format!("{} is {}, larger than the engine's largest file of {} (page indices are 32-bit)", key("files.size"), human_size(sz), human_size(MAX_FILE_SIZE)),
                                    "make the files at most size = \"8T\"",
                                );
                                0
                            }
                            Some(sz) => sz,
                            None => 0,
                        },
                        None => {
                            cx.err(&fnode.loc, format!("{fwhat} has no `size`"), "add size = \"2M\"");
                            0
                        }
                    };
                    let name = match ft.get("name") {
                        Some(v) => get_str(cx, v, &key("files.name")).map(str::to_string).unwrap_or_default(),
                        None => "f{i}".to_string(),
                    };
                    if !name.contains("{i}") || name.contains('/') {
                        cx.err(&fnode.loc, format!("{fwhat}: name `{name}` must hold `{{i}}` and no `/`"), "write name = \"f{i}\" (files f1, f2, ...)");
                    }
                    let fuid = ft.get("uid").and_then(|v| get_uint(cx, v, &key("files.uid"))).map(|u| u.min(u32::MAX as u64) as u32);
                    let fmode = ft.get("mode").and_then(|v| get_mode(cx, v, &key("files.mode"))).unwrap_or(0o644);
                    ft.finish(cx, &["count", "size", "name", "uid", "mode"]);
                    if !too_many && name.contains("{i}") && !name.contains('/') {
                        let decl = dir_decls.len() as u32;
                        dir_decls.push((fnode.loc.clone(), size, path.clone(), fuid, fmode));
                        let base = if path == "/" { "" } else { path.as_str() };
                        let (head, tail) = name.split_once("{i}").expect("checked above");
                        dir_files.reserve(count as usize);
                        for i in 1..=count {
                            let fpath = if tail.contains("{i}") { format!("{base}/{}", name.replace("{i}", &i.to_string())) } else { format!("{base}/{head}{i}{tail}") };
                            dir_files.push((fpath, decl));
                        }
                    }
                }
            }
            t.finish(cx, &["uid", "mode", "files"]);
            dir_specs.push(DirSpec { path, uid, mode });
        }
    }
    dir_specs.sort_by_key(|d| d.path.matches('/').count());
    // The nearest declared directory above a path, found by walking up its parents in a map of
    // the declared directories (the last declaration of a path wins): the path's depth in
    // lookups, whatever the number of directories.
    fn nearest_uid(uids: &std::collections::HashMap<String, u32>, path: &str) -> Option<u32> {
        let mut d = crate::fs::parent_path(path);
        loop {
            if let Some(&u) = uids.get(d) {
                return Some(u);
            }
            if d == "/" {
                return None;
            }
            d = crate::fs::parent_path(d);
        }
    }
    let mut dir_uids: std::collections::HashMap<String, u32> = std::collections::HashMap::with_capacity(dir_specs.len());
    for d in dir_specs.iter_mut() {
        if d.uid == u32::MAX {
            d.uid = nearest_uid(&dir_uids, &d.path).unwrap_or(0);
        }
        dir_uids.insert(d.path.clone(), d.uid);
    }
    // The owner of a file nobody named one for: that of its nearest declared directory.
    let inherited_uid = |path: &str, _dirs: &[DirSpec]| -> u32 { nearest_uid(&dir_uids, path).unwrap_or(0) };
    let mut files: Vec<FileSpec> = vec![];
    if let Some(n) = top.get("files") {
        for (fpath, kloc, fnode) in table_entries(cx, n, "files") {
            let what = format!("[files.\"{fpath}\"]");
            let Some(mut t) = Tab::new(cx, fnode, &what) else { continue };
            let key = |k: &str| format!("files.\"{fpath}\".{k}");
            let size = match t.get("size") {
                Some(v) => get_size(cx, v, &key("size")).unwrap_or(0),
                None => {
                    cx.err(kloc, format!("{what} has no `size`"), "add size = \"1G\" (use 0 for a file that writes will fill)");
                    0
                }
            };
            let on_mount = mount_index.mount_of(fpath);
            let device = match t.get("device") {
                Some(v) => get_str(cx, v, &key("device")).and_then(|d| match devices.iter().position(|x| x.name == d) {
                    Some(i) => Some(i),
                    None => {
                        let names: Vec<&str> = devices.iter().map(|x| x.name.as_str()).collect();
                        cx.err(&v.loc, format!("unknown device `{d}`"), format!("{}declare [devices.{d}] or use one of: {}", suggest(d, &names), names.join(", ")));
                        None
                    }
                }),
                None if on_mount.is_some() => on_mount.and_then(|m| mounts[m].device),
                None if devices.len() == 1 => Some(0),
                None if devices.is_empty() => {
                    cx.err(kloc, format!("{what} needs a device but the scenario declares none"), "add a [devices.sda] table with read_bw = \"100M\", or a [mounts.\"/tmp\"] tmpfs that holds the file");
                    None
                }
                None => {
                    cx.err(kloc, format!("{what} has no `device` and there are several"), "add device = \"NAME\" to the file");
                    None
                }
            };
            let uid = t.get("uid").and_then(|v| get_uint(cx, v, &key("uid"))).map(|u| u.min(u32::MAX as u64) as u32).unwrap_or_else(|| inherited_uid(fpath, &dir_specs));
            let mode = t.get("mode").and_then(|v| get_mode(cx, v, &key("mode"))).unwrap_or(0o644);
            t.finish(cx, &["size", "device", "uid", "mode"]);
            if size > MAX_FILE_SIZE {
                let loc = t.entries.iter().find(|(k, _, _)| k == "size").map(|(_, _, v)| v.loc.clone()).unwrap_or_else(|| kloc.clone());
                cx.err(
                    &loc,
                    format!("{} is {}, larger than the engine's largest file of {} (page indices are 32-bit)", key("size"), human_size(size), human_size(MAX_FILE_SIZE)),
                    "make the file at most size = \"8T\"",
                );
            }
            files.push(FileSpec { path: fpath.clone(), size, device, uid, mode, created: false });
        }
    }
    let mut file_paths = PathSet::default();
    for i in 0..files.len() {
        file_paths.insert(&files, i);
    }
    files.reserve_exact(dir_files.len());
    for (fpath, decl) in dir_files {
        let (loc, size, dpath, fuid, fmode) = &dir_decls[decl as usize];
        let (size, fuid, fmode) = (*size, *fuid, *fmode);
        if file_paths.contains(&files, &fpath) {
            continue; // a [files] entry of the same path overrides the generated one
        }
        let device = match mount_index.mount_of(&fpath) {
            Some(m) => mounts[m].device,
            None if devices.len() == 1 => Some(0),
            None => {
                cx.err(loc, format!("the files of [dirs.\"{dpath}\"] need a device"), "declare exactly one [devices.NAME], or a mount holding the directory");
                break;
            }
        };
        let uid = fuid.unwrap_or_else(|| inherited_uid(&fpath, &dir_specs));
        files.push(FileSpec { path: fpath, size, device, uid, mode: fmode, created: false });
        file_paths.insert(&files, files.len() - 1);
    }

    // [tasks.NAME]: expand `repeat` ops first, then learn which cgroups, files and mounts the
    // scripts create, then check every op against what exists or will.
    let mut expanded: Vec<ExpandedTask> = vec![];
    // Each task's `step_gaps` (and where they were written), in `expanded`'s order.
    let mut step_gaps: Vec<(Vec<u64>, Option<Loc>)> = vec![];
    let mut total_ops = 0usize;
    let mut tree_index = None;
    let mut trace_files: Vec<FileSpec> = vec![];
    if let Some(n) = top.get("tasks") {
        for (tname, kloc, tn) in table_entries(cx, n, "tasks") {
            let what = format!("[tasks.{tname}]");
            let Some(mut t) = Tab::new(cx, tn, &what) else { continue };
            let mut cg_from_task = None;
            if let Some(v) = t.get("cgroup") {
                cg_from_task = Some((find_cgroup(cx, v, "cgroup", &cgroups).unwrap_or(None), v.loc.clone()));
            }
            let start = t.get("start").and_then(|v| get_duration(cx, v, &format!("tasks.{tname}.start"))).unwrap_or(0);
            let uid = t.get("uid").and_then(|v| get_uint(cx, v, &format!("tasks.{tname}.uid"))).unwrap_or(0).min(u32::MAX as u64) as u32;
            let node = match t.get("node") {
                Some(v) => match get_uint(cx, v, &format!("tasks.{tname}.node")) {
                    Some(nid) if nid >= machine.nodes as u64 => {
                        cx.err(&v.loc, format!("tasks.{tname}.node is {nid} but the machine has {} node(s)", machine.nodes), format!("use a node from 0 to {}", machine.nodes - 1));
                        0
                    }
                    Some(nid) => nid as u32,
                    None => 0,
                },
                None => 0,
            };
            let mut ops = vec![];
            let trace_node = t.get("trace").cloned();
            if let Some(tn) = &trace_node {
                    if let Some(l) = t.get("ops").map(|o| o.loc.clone()) {
                        cx.err(&l, format!("{what} has both `trace` and `ops`"), "a task runs either a trace or a script: move the ops to another task");
                    }
                    let path = get_str(cx, tn, &format!("tasks.{tname}.trace")).map(str::to_string);
                    let scale = t.get("time_scale").cloned();
                    let loops = t.get("loops").cloned();
                    let initial_cache = t.get("initial_cache").cloned();
                    let step = t.get("step").and_then(|v| get_str(cx, v, &format!("tasks.{tname}.step")).map(str::to_string));
                    if let Some(path) = path {
                        match cx.traces.iter().find(|(p, _)| *p == path).map(|(_, h)| h.clone()) {
                            None => cx.err(
                                &tn.loc,
                                format!("the trace `{path}` was not read (the engine reads no files)"),
                                "run the scenario with memtwin (memtwin run, or memtwin.api.run), which reads the trace's header",
                            ),
                            Some(h) => {
                                // The trace's files exist on the scenario's machine: those the
                                // scenario declares as declared, the others as the header sizes
                                // them, on the mount that holds them (or the only device).
                                for (fpath, size) in &h.files {
                                    if file_paths.contains(&files, fpath) {
                                        continue;
                                    }
                                    let device = match mount_index.mount_of(fpath) {
                                        Some(m) => mounts[m].device,
                                        None if devices.len() == 1 => Some(0),
                                        None => {
                                            cx.err(&tn.loc, format!("the trace's file `{fpath}` needs a device"), "declare exactly one [devices.NAME], declare the file with its device in [files], or a mount holding it");
                                            break;
                                        }
                                    };
                                    file_paths.insert_path(fpath.clone(), files.len() + trace_files.len());
                                    trace_files.push(FileSpec { path: fpath.clone(), size: *size, device, uid: 0, mode: 0o644, created: false });
                                }
                                let mut e = vec![
                                    ("op".to_string(), tn.loc.clone(), Node { v: Val::Str("trace".into()), loc: tn.loc.clone() }),
                                    ("trace".to_string(), tn.loc.clone(), tn.clone()),
                                ];
                                if let Some(v) = scale {
                                    e.push(("time_scale".into(), v.loc.clone(), v));
                                }
                                if let Some(v) = loops {
                                    e.push(("loops".into(), v.loc.clone(), v));
                                }
                                if let Some(v) = initial_cache {
                                    e.push(("initial_cache".into(), v.loc.clone(), v));
                                }
                                let node = Node { v: Val::Table(e), loc: tn.loc.clone() };
                                ops.push((node, step.unwrap_or_else(|| tname.clone()), format!("tasks.{tname}.trace")));
                            }
                        }
                    }
            } else {
            match t.get("ops") {
                Some(Node { v: Val::Arr(items), .. }) => {
                    for (i, it) in items.iter().enumerate() {
                        expand_op(cx, it, tname, i, &mut ops);
                    }
                }
                Some(other) => cx.err(&other.loc, format!("ops must be an array, not {}", other.v.type_name()), "write ops = [ { op = \"read\", file = \"/data/f\" } ]"),
                None => cx.err(kloc, format!("{what} has no `ops`"), "add ops = [ { op = \"read\", file = \"/data/f\" } ] (or trace = \"FILE.mtt\" to replay a recorded workload)"),
            }
            }
            let gaps = match t.get("step_gaps") {
                None => (vec![], None),
                Some(v) => {
                    const FIX: &str = "write the times between the task's steps as durations, step_gaps = [\"870ms\", \"12ms\"] (memtwin validate replays a recording's)";
                    let mut g = vec![];
                    match &v.v {
                        Val::Arr(items) => {
                            for it in items {
                                match get_duration(cx, it, &format!("a tasks.{tname}.step_gaps entry")) {
                                    Some(d) if d > 3_600_000_000_000 => cx.err(&it.loc, format!("a tasks.{tname}.step_gaps entry is longer than an hour"), FIX),
                                    Some(d) => g.push(d),
                                    None => {}
                                }
                            }
                        }
                        other => cx.err(&v.loc, format!("tasks.{tname}.step_gaps must be an array of durations, not {}", other.type_name()), FIX),
                    }
                    (g, Some(v.loc.clone()))
                }
            };
            step_gaps.push(gaps);
            t.finish(cx, &["cgroup", "ops", "start", "uid", "node", "trace", "time_scale", "loops", "step", "initial_cache", "step_gaps"]);
            let (mut ops, origins) = expand_tree_ops(cx, ops, &files, &mut tree_index);
            total_ops += ops.len();
            if total_ops > MAX_OPS {
                cx.err(kloc, format!("{what}: the tasks' ops, expanded, number more than the engine's limit of {MAX_OPS}"), "repeat fewer times, or run fewer tasks");
                ops.clear();
            }
            expanded.push((tname.clone(), kloc.clone(), cg_from_task, (start, uid, node), ops, origins));
        }
    }
    drop(tree_index);
    files.extend(trace_files);
    let op_str = |n: &Node, key: &str| -> Option<String> {
        let Val::Table(e) = &n.v else { return None };
        e.iter().find(|(k, _, _)| k == key).and_then(|(_, _, v)| if let Val::Str(s) = &v.v { Some(s.clone()) } else { None })
    };
    let op_bool = |n: &Node, key: &str| -> bool {
        let Val::Table(e) = &n.v else { return false };
        e.iter().any(|(k, _, v)| k == key && v.v == Val::Bool(true))
    };
    // Mounted file systems stay below fs.mount-max.
    let mut nr_mounts = machine.boot_superblocks as u64 + devices.len() as u64 + mounts.len() as u64;
    'mounts: for (tname, _, _, _, ops, _) in &expanded {
        for (n, label) in ops.iter().filter_map(|o| if let ExpOp::Tree(t) = o { Some((&t.0, &t.2)) } else { None }) {
            if op_str(n, "op").as_deref() == Some("mount") {
                nr_mounts += 1;
                if nr_mounts > MAX_MOUNTS {
                    cx.err(
                        &n.loc,
                        format!("{label}: task `{tname}` mounts the scenario's file system number {nr_mounts}, more than fs.mount-max ({MAX_MOUNTS}) allows"),
                        format!("mount fewer file systems: at most {MAX_MOUNTS} with the booted system's and the devices'"),
                    );
                    break 'mounts;
                }
            }
        }
    }
    let mut dyn_cgroups: Vec<String> = vec![];
    let mut dyn_mounts: Vec<MountSpec> = vec![];
    for (_, _, _, _, ops, _) in &expanded {
        for n in ops.iter().filter_map(|o| if let ExpOp::Tree(t) = o { Some(&t.0) } else { None }) {
            match op_str(n, "op").as_deref() {
                Some("mkdir") => {
                    if let Some(c) = op_str(n, "cgroup") {
                        dyn_cgroups.push(c.trim_matches('/').to_string());
                    }
                }
                Some("mount") => {
                    if let Some(p) = op_str(n, "path") {
                        dyn_mounts.push(MountSpec { path: p.trim_end_matches('/').to_string(), fs: op_str(n, "fs").unwrap_or_else(|| "tmpfs".into()), device: None, huge: None });
                    }
                }
                _ => {}
            }
        }
    }
    dyn_cgroups.sort();
    dyn_cgroups.dedup();
    // Directories a task's file creation implies are the task's, as `mkdir -p` makes them.
    let mut created_dirs: Vec<DirSpec> = vec![];
    let mut created_dir_paths: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (_, _, _, (_, task_uid, _), ops, _) in &expanded {
        for op in ops {
            if let Some(f) = op.created_file(&op_str, &op_bool) {
                {
                    if !file_paths.contains(&files, &f) {
                        let mut d = crate::fs::parent_path(&f).to_string();
                        while d != "/" && !created_dir_paths.contains(&d) {
                            created_dir_paths.insert(d.clone());
                            created_dirs.push(DirSpec { path: d.clone(), uid: *task_uid, mode: 0o755 });
                            d = crate::fs::parent_path(&d).to_string();
                        }
                    }
                }
            }
        }
    }
    let all_mounts: Vec<MountSpec> = mounts.iter().chain(dyn_mounts.iter()).cloned().collect();
    let all_mount_index = MountIndex::new(&all_mounts);
    for (_, _, _, (_, task_uid, _), ops, origins) in &expanded {
        for op in ops {
            if let Some(f) = op.created_file(&op_str, &op_bool) {
                {
                    if file_paths.contains(&files, &f) {
                        continue;
                    }
                    let n_loc = match op {
                        ExpOp::Tree(t) => &t.0.loc,
                        ExpOp::Gen { origin, .. } => &origins[*origin as usize].0,
                    };
                    match all_mount_index.mount_of(&f) {
                        // inode_init_owner(): the creating task's fsuid; mode 0666 & ~umask 022.
                        Some(m) => {
                            files.push(FileSpec { path: f, size: 0, device: all_mounts[m].device, uid: *task_uid, mode: 0o644, created: true });
                            file_paths.insert(&files, files.len() - 1);
                        }
                        // With a single disk, files outside any mount live on it.
                        None if devices.len() == 1 => {
                            files.push(FileSpec { path: f, size: 0, device: Some(0), uid: *task_uid, mode: 0o644, created: true });
                            file_paths.insert(&files, files.len() - 1);
                        }
                        None => cx.err(
                            n_loc,
                            format!("`{f}` is created here, but no mount holds it"),
                            "declare the file system it lives on, e.g. [mounts.\"/tmp\"] fs = \"tmpfs\"",
                        ),
                    }
                }
            }
        }
    }
    if files.len() > MAX_FILES {
        let loc = top.entries.iter().find(|(k, _, _)| k == "files").map(|(_, l, _)| l.clone()).unwrap_or_else(|| doc.loc.clone());
        cx.err(&loc, format!("the scenario has {} files, more than the engine's limit of {MAX_FILES}", files.len()), "declare, generate and create fewer files");
    }
    let dirs = all_dirs(cx, top.get("dirs"), dir_specs, created_dirs, &files);
    let dir_paths = dirs.iter().map(|d| d.path.as_str()).collect();
    let known = Known {
        files: &files,
        cgroups: &cgroups,
        dyn_cgroups: &dyn_cgroups,
        commit_limit: machine.ram.saturating_add(machine.swap),
        zswap_direct: prof.zswap_direct && machine.zswap.is_some_and(|z| z.enabled),
        zswap_as_is: prof.zswap_incompressible_as_is,
        file_index: file_paths,
        sorted_files: std::cell::OnceCell::new(),
        dir_paths,
    };
    let mut tasks: Vec<TaskSpec> = vec![];
    let mut task_locs: Vec<(Loc, bool)> = vec![];
    // Where each kept op was written, for the checks across a task's ops below.
    // (Each task's places, and the place of each op as an index into them: the ops a `cp` or
    // `grep` stands for share its place.)
    let mut op_locs: Vec<(Vec<Loc>, Vec<u32>)> = vec![];
    for ((tname, kloc, cg_from_task, start, ops, origins), (gaps, gaps_loc)) in expanded.into_iter().zip(step_gaps) {
        let mut out = Vec::with_capacity(ops.len());
        let mut locs = vec![];
        let mut loc_of_op = Vec::with_capacity(ops.len());
        // Each origin's step name (shared by the ops it stands for) and place index.
        let mut origin_step: Vec<Option<(std::sync::Arc<str>, u32)>> = vec![None; origins.len()];
        // The task's start and sleeps, added up, stay below MAX_TASK_SLEEP.
        let mut slept = start.0;
        for eop in ops {
            let (n, step, label) = match eop {
                ExpOp::Tree(t) => *t,
                ExpOp::Gen { origin, op } => {
                    let (oloc, ostep, _) = &origins[origin as usize];
                    let (step, li) = origin_step[origin as usize].get_or_insert_with(|| {
                        locs.push(oloc.clone());
                        (ostep.as_str().into(), locs.len() as u32 - 1)
                    });
                    if let Some(kind) = op.extract(&known) {
                        out.push(OpSpec { step: step.clone(), kind });
                        loc_of_op.push(*li);
                    }
                    continue;
                }
            };
            if let Some(op) = extract_op(cx, &n, &label, &step, &known) {
                if let OpKind::Sleep { duration } = op.kind {
                    slept = slept.saturating_add(duration);
                    if slept > MAX_TASK_SLEEP && slept - duration <= MAX_TASK_SLEEP {
                        cx.err(
                            &n.loc,
                            format!("{label}: task `{tname}` has slept more than the engine's limit of 100 years of virtual time by here"),
                            "sleep less: the virtual clock counts nanoseconds in 64 bits (584 years), and the ops' I/O needs room too",
                        );
                    }
                }
                out.push(op);
                locs.push(n.loc);
                loc_of_op.push(locs.len() as u32 - 1);
            }
        }
        op_locs.push((locs, loc_of_op));
        task_locs.push((kloc, cg_from_task.is_some()));
        let (start, uid, node) = start;
        // A step is a run of consecutive ops with one step name: a gap goes between two of them.
        let steps = out.iter().enumerate().filter(|(i, o)| *i == 0 || out[i - 1].step != o.step).count();
        if let Some(l) = gaps_loc.as_ref().filter(|_| gaps.len() >= steps.max(1)) {
            cx.err(
                l,
                format!("tasks.{tname}.step_gaps has {} entries, but the task has {steps} step(s), so {} gap(s) between them", gaps.len(), steps.saturating_sub(1)),
                "give one duration per pair of consecutive steps (entry k before step k + 2), or fewer",
            );
        }
        tasks.push(TaskSpec { name: tname, cgroup: cg_from_task.as_ref().and_then(|c| c.0), start, uid, node, ops: out, step_gaps: gaps });
    }
    // Anonymous mappings are named per task: `touch` and `munmap` need an earlier `mmap` of
    // the name; `mmap_probe` watches a task that exists.
    let task_names: Vec<String> = tasks.iter().map(|t| t.name.clone()).collect();
    for (ti, t) in tasks.iter().enumerate() {
        let mut mapped: std::collections::HashSet<&str> = std::collections::HashSet::new();
        // Live mappings' sizes, and the bytes mlocked, for the range and mlock checks.
        let mut sizes: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
        let mut locked: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
        let mut exec_maps: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let limit = t.cgroup.and_then(|c| cgroups.get(c)).and_then(|c| c.max);
        for (oi, op) in t.ops.iter().enumerate() {
            let oloc = op_locs[ti].1.get(oi).map(|&li| &op_locs[ti].0[li as usize]).unwrap_or(&task_locs[ti].0);
            match &op.kind {
                OpKind::Touch { name, access: MapAccess { write: true, .. } } if exec_maps.contains(name.as_str()) => {
                    cx.err(
                        oloc,
                        format!("task `{}` step `{}` writes to mapping `{name}`, which is mapped with exec = true (PROT_READ | PROT_EXEC): the store would fault (SIGSEGV)", t.name, op.step),
                        "touch it with access = \"read\", or map it without exec",
                    );
                }
                _ => {}
            }
            match &op.kind {
                OpKind::Touch { name, access: MapAccess { offset, length, .. } } | OpKind::Madvise { name, offset, length, .. } => {
                    if let Some(&size) = sizes.get(name.as_str()) {
                        let end = offset.saturating_add(length.unwrap_or(0));
                        if *offset >= size || end > size {
                            cx.err(
                                oloc,
                                format!("task `{}` step `{}`: {} reaches byte {}, past the end of mapping `{name}` ({}): the access would fault outside the VMA (SIGSEGV)", t.name, op.step, op.kind.describe(&files), end.max(*offset), human_size(size)),
                                format!("keep offset + length within {}", human_size(size)),
                            );
                        }
                    }
                }
                OpKind::Mlock { name, lock } => {
                    if *lock {
                        if let Some(&size) = sizes.get(name.as_str()) {
                            locked.insert(name.as_str(), size);
                        }
                        let total: u64 = locked.values().sum();
                        if let Some(max) = limit.filter(|&m| total > m) {
                            cx.err(
                                oloc,
                                format!("task `{}` step `{}` mlocks {} in all, more than its cgroup's limit of {}: mlocked pages cannot be reclaimed, so the task would be OOM-killed while faulting them in", t.name, op.step, human_size(total), human_size(max)),
                                "mlock less (munlock or munmap other mappings first), or raise the cgroup's memory limit",
                            );
                        }
                    } else {
                        locked.remove(name.as_str());
                    }
                }
                _ => {}
            }
            match &op.kind {
                OpKind::Mmap { name, size, file, .. } => {
                    sizes.insert(name.as_str(), *size);
                    if file.as_ref().is_some_and(|f| f.exec) {
                        exec_maps.insert(name.as_str());
                    } else {
                        exec_maps.remove(name.as_str());
                    }
                    if !mapped.insert(name.as_str()) {
                        cx.err(
                            oloc,
                            format!("task `{}` step `{}` maps `{name}` again while it is still mapped", t.name, op.step),
                            format!("munmap `{name}` first, or give this mapping another name"),
                        );
                    }
                }
                OpKind::Touch { name, .. } | OpKind::Munmap { name } | OpKind::Madvise { name, .. } | OpKind::Msync { name } | OpKind::Mlock { name, .. } => {
                    if !mapped.contains(&name.as_str()) {
                        cx.err(
                            oloc,
                            format!("task `{}` step `{}` uses mapping `{name}` before any mmap of it", t.name, op.step),
                            format!("add {{ op = \"mmap\", name = \"{name}\", size = \"1G\" }} earlier in the task's ops"),
                        );
                    }
                    if matches!(op.kind, OpKind::Munmap { .. }) {
                        mapped.remove(name.as_str());
                        sizes.remove(name.as_str());
                        locked.remove(name.as_str());
                    }
                }
                OpKind::MmapProbe { while_task, .. } if !task_names.contains(while_task) || *while_task == t.name => {
                    {
                        cx.err(
                            oloc,
                            format!("task `{}` step `{}`: while_task `{while_task}` is not another task", t.name, op.step),
                            format!("{}name the task whose run the probe lasts for: {}", suggest(while_task, &task_names.iter().map(String::as_str).collect::<Vec<_>>()), task_names.join(", ")),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    // Every event a task waits for is posted by some task.
    let posted: Vec<&str> =
        tasks.iter().flat_map(|t| t.ops.iter()).filter_map(|op| if let OpKind::Post { event } = &op.kind { Some(event.as_str()) } else { None }).collect();
    for (ti, t) in tasks.iter().enumerate() {
        for op in &t.ops {
            if let OpKind::Wait { event } = &op.kind {
                if !posted.contains(&event.as_str()) {
                    cx.err(
                        &task_locs[ti].0,
                        format!("task `{}` step `{}` waits for event `{event}`, which no task posts", t.name, op.step),
                        format!("{}add {{ op = \"post\", event = \"{event}\" }} to the task that should wake it", suggest(event, &posted)),
                    );
                }
            }
        }
    }
    // A task is in exactly one place: its own `cgroup` key or one cgroup's `procs`.
    let mut placed: Vec<Option<String>> = tasks.iter().enumerate().map(|(i, t)| task_locs[i].1.then(|| format!("tasks.{}.cgroup", t.name))).collect();
    for (tname, loc, cg) in &procs {
        match tasks.iter().position(|t| &t.name == tname) {
            None => {
                let names: Vec<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
                cx.err(loc, format!("procs names unknown task `{tname}`"), format!("{}declare [tasks.{tname}] or use one of: {}", suggest(tname, &names), names.join(", ")));
            }
            Some(i) => {
                if let Some(prev) = &placed[i] {
                    cx.err(
                        loc,
                        format!("task `{tname}` is placed in two cgroups (here and in {prev})"),
                        "a task runs in one cgroup: keep one placement (use an op { op = \"move\" } to move it later)",
                    );
                } else {
                    placed[i] = Some(format!("cgroups.{}.procs", cgroups[*cg].path));
                    tasks[i].cgroup = Some(*cg);
                }
            }
        }
    }

    // [report]
    let mut sample_interval = 100_000_000;
    let mut report_metrics = vec![];
    let mut resident_pages = crate::scenario::model::ResidentPagesReport::Step;
    if let Some(n) = top.get("report") {
        if let Some(mut t) = Tab::new(cx, n, "[report]") {
            if let Some(v) = t.get("sample_interval") {
                if let Some(d) = get_duration(cx, v, "report.sample_interval") {
                    if d < 1_000_000 {
                        cx.err(&v.loc, "report.sample_interval is below 1ms", "sample at \"1ms\" or more");
                    } else {
                        sample_interval = d;
                    }
                }
            }
            if let Some(v) = t.get("metrics") {
                let mut known = crate::metrics::metric_names();
                known.extend(crate::metrics::vmscan_throttled_metric_names());
                known.extend(crate::metrics::lru_gen_metric_names());
                known.extend(crate::metrics::sched_metric_names());
                known.extend(crate::metrics::shmem_metric_names());
                match &v.v {
                    Val::Arr(items) => {
                        for it in items {
                            if let Some(s) = get_str(cx, it, "report.metrics entry") {
                                if known.iter().any(|k| k == s) {
                                    report_metrics.push(s.to_string());
                                } else {
                                    let ks: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
                                    cx.err(&it.loc, format!("unknown metric `{s}`"), format!("{}see `memtwin metrics` for the list", suggest(s, &ks)));
                                }
                            }
                        }
                    }
                    other => cx.err(&v.loc, format!("report.metrics must be an array, not {}", other.type_name()), "write metrics = [\"elapsed_s\", \"read_bytes\"]"),
                }
            }
            if let Some(v) = t.get("resident_pages") {
                if let Some(s) = get_str(cx, v, "report.resident_pages") {
                    match s {
                        "step" => resident_pages = crate::scenario::model::ResidentPagesReport::Step,
                        "all" => resident_pages = crate::scenario::model::ResidentPagesReport::All,
                        _ => cx.err(&v.loc, format!("report.resident_pages must be \"step\" or \"all\", not {s:?}"), "write resident_pages = \"step\" (the files each step's ops name) or \"all\" (every file, every step)"),
                    }
                }
            }
            t.finish(cx, &["sample_interval", "metrics", "resident_pages"]);
        }
    }
    top.get("variants");
    top.get("published");
    // `[validation] on`: the runner that recorded the scenario (`memtwin real --on host|qemu`);
    // the rest of `[validation]` is the Python side's (validate.py).
    let mut runner_setup = false;
    let mut setup_writes = vec![];
    if let Some(v) = top.get("validation") {
        if let Val::Table(entries) = &v.v {
            if let Some((_, _, n)) = entries.iter().find(|(k, _, _)| k == "on") {
                match get_str(cx, n, "validation.on") {
                    Some("host" | "qemu") => runner_setup = true,
                    Some(s) => cx.err(
                        &n.loc,
                        format!("validation.on must be \"host\" or \"qemu\", not {s:?}"),
                        "write on = \"host\" (recorded by memtwin real --on host) or on = \"qemu\" (--on qemu), or remove it",
                    ),
                    None => {}
                }
            }
            // `setup_writes`: the runner's set-up writes as a recording timed them
            // (real.setup_writes, memtwin validate passes them), for wb_setup_writeout().
            if let Some((_, _, n)) = entries.iter().find(|(k, _, _)| k == "setup_writes") {
                setup_writes = setup_writes_of(cx, n, runner_setup);
            }
        }
    }
    top.finish(cx, TOP_KEYS);
    if tasks.is_empty() && cx.errors.is_empty() {
        cx.err(&doc.loc, "the scenario has no tasks", "add a [tasks.NAME] table with ops = [...]");
    }
    Some(Scenario {
        name,
        description,
        variant: variant.map(str::to_string),
        seed,
        boot_seed,
        machine,
        profile: prof,
        policies,
        thp,
        shmem_enabled,
        cgroup_version: version,
        devices,
        mounts,
        cgroups,
        files,
        dirs,
        tasks,
        sample_interval,
        report_metrics,
        resident_pages,
        runner_setup,
        setup_writes,
    })
}

/// `[validation] setup_writes = [{ size = 67108864, ended = "7100ms" }, ...]`: the real-kernel
/// runner's set-up writes in the order it made them, each written and fsync()ed through the
/// root wb, `ended` the time from its fsync()'s return to the tasks' start (a recording's
/// `real.setup_writes`, which memtwin validate passes). Only with `on = "host"` or `"qemu"`.
fn setup_writes_of(cx: &mut Cx, n: &Node, runner: bool) -> Vec<(u64, u64)> {
    const FIX: &str = "write the runner's set-up writes as setup_writes = [{ size = \"64M\", ended = \"7100ms\" }] \
                       (memtwin validate passes a recording's real.setup_writes), with on = \"qemu\" or \"host\"";
    let mut out = vec![];
    if !runner {
        cx.err(&n.loc, "validation.setup_writes needs validation.on (\"host\" or \"qemu\"): only a runner's recording has set-up writes", FIX);
        return out;
    }
    let Val::Arr(items) = &n.v else {
        cx.err(&n.loc, format!("validation.setup_writes must be an array of tables, not {}", n.v.type_name()), FIX);
        return out;
    };
    for it in items {
        let Val::Table(kv) = &it.v else {
            cx.err(&it.loc, format!("a validation.setup_writes entry must be a table, not {}", it.v.type_name()), FIX);
            continue;
        };
        let (mut size, mut ended, mut missing) = (None, None, vec!["size", "ended"]);
        for (k, kloc, v) in kv {
            missing.retain(|m| m != k);
            match k.as_str() {
                "size" => size = get_size(cx, v, "a validation.setup_writes size"),
                "ended" => match get_duration(cx, v, "a validation.setup_writes ended") {
                    Some(d) if d > 3_600_000_000_000 => cx.err(&v.loc, "a validation.setup_writes ended is more than an hour before the tasks", FIX),
                    d => ended = d,
                },
                other => cx.err(kloc, format!("unknown key {other:?} in a validation.setup_writes entry"), FIX),
            }
        }
        if !missing.is_empty() {
            cx.err(&it.loc, format!("a validation.setup_writes entry has no {}", missing.join(" and no ")), FIX);
        }
        if let (Some(s), Some(e)) = (size, ended) {
            out.push((s, e));
        }
    }
    out
}

/// `cp -r SRC DST` and `grep PATTERN PATH/*` as the per-file ops they perform: cp reads
/// every file below SRC (or SRC itself) and writes its copy below DST (created, same size),
/// in creation order (GNU cp reads a directory with `savedir(SAVEDIR_SORT_FASTREAD)`, sorted
/// by inode number, which ext4 hands out in creation order); grep reads every file below PATH
/// in the order the shell's glob gives them (sorted by name, byte order as in the C locale:
/// f1, f10, f100, f11, ...; see `glob_order`), scanning each page in user space. Files a cp created earlier in
/// the same script count as existing for later cp and grep ops.
/// The files a task's `cp` and `grep` ops can name: the scenario's (`files`), sorted by path
/// once for all tasks, and those the task's own earlier copies created (`created`), so that
/// the files below a path are a range found by binary search, not a scan of every file.
struct TreeIndex<'a> {
    /// (path, size, declaration index), by path (stable: a path given twice keeps its order).
    sorted: Vec<(&'a str, u64, usize)>,
}

impl<'a> TreeIndex<'a> {
    fn new(files: &'a [FileSpec]) -> Self {
        let mut sorted: Vec<(&str, u64, usize)> = files.iter().enumerate().map(|(i, f)| (f.path.as_str(), f.size, i)).collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        TreeIndex { sorted }
    }

    fn contains(&self, p: &str) -> bool {
        self.sorted.binary_search_by(|e| e.0.cmp(p)).is_ok()
    }

    /// The files at `root` or below it, in the order a scan of the declared files followed by
    /// the task's created ones (`created`: path -> (creation number, size)) meets them: (path,
    /// size, declaration index or `None` for a created file).
    fn below<'b>(&self, root: &str, created: &'b std::collections::BTreeMap<String, (usize, u64)>) -> Vec<(&'b str, u64, Option<usize>)>
    where
        'a: 'b,
    {
        let r = root.trim_end_matches('/');
        let mut hits: Vec<(usize, &str, u64, Option<usize>)> = vec![];
        // `r` itself, then `r/...`: a contiguous run from "r/" up to, not including, "r0"
        // ('0' is the byte after '/').
        let lo = self.sorted.partition_point(|e| e.0 < r);
        hits.extend(self.sorted[lo..].iter().take_while(|e| e.0 == r).map(|e| (e.2, e.0, e.1, Some(e.2))));
        let (from, to) = (format!("{r}/"), format!("{r}0"));
        let lo = self.sorted.partition_point(|e| e.0 < from.as_str());
        hits.extend(self.sorted[lo..].iter().take_while(|e| e.0 < to.as_str()).map(|e| (e.2, e.0, e.1, Some(e.2))));
        let n = self.sorted.len();
        if let Some((p, &(seq, size))) = created.get_key_value(r) {
            hits.push((n + seq, p.as_str(), size, None));
        }
        for (p, &(seq, size)) in created.range::<str, _>((std::ops::Bound::Included(from.as_str()), std::ops::Bound::Excluded(to.as_str()))) {
            hits.push((n + seq, p.as_str(), size, None));
        }
        hits.sort_unstable_by_key(|h| h.0);
        hits.into_iter().map(|(_, p, size, decl)| (p, size, decl)).collect()
    }
}

/// Expand each `cp` and `grep` op into the reads and writes it stands for ([`ExpOp::Gen`]);
/// other ops pass through as written. Also returns the (place, step, label) of each cp and
/// grep op, which its generated ops name.
fn expand_tree_ops<'a>(cx: &mut Cx, ops: Vec<(Node, String, String)>, files: &'a [FileSpec], index: &mut Option<TreeIndex<'a>>) -> (Vec<ExpOp>, Vec<(Loc, String, String)>) {
    let is_tree_op = |n: &Node| matches!(&n.v, Val::Table(e) if e.iter().any(|(k, _, v)| k == "op" && matches!(&v.v, Val::Str(x) if x == "cp" || x == "grep")));
    let mut origins: Vec<(Loc, String, String)> = vec![];
    if !ops.iter().any(|(n, _, _)| is_tree_op(n)) {
        return (ops.into_iter().map(|t| ExpOp::Tree(Box::new(t))).collect(), origins);
    }
    let index: &TreeIndex = index.get_or_insert_with(|| TreeIndex::new(files));
    let mut created: std::collections::BTreeMap<String, (usize, u64)> = std::collections::BTreeMap::new();
    let mut out: Vec<ExpOp> = Vec::with_capacity(ops.len());
    for (n, step, label) in ops {
        let Val::Table(entries) = &n.v else {
            out.push(ExpOp::Tree(Box::new((n, step, label))));
            continue;
        };
        let get = |k: &str| entries.iter().find(|(kk, _, _)| kk == k).and_then(|(_, _, v)| if let Val::Str(x) = &v.v { Some(x.clone()) } else { None });
        let kind = get("op");
        if out.len() > MAX_OPS_PER_TASK {
            cx.err(&n.loc, format!("{label}: the task's copies and greps expand to more than the engine's limit of {MAX_OPS_PER_TASK} ops"), "copy or grep fewer files per task, or split the work over several tasks");
            return (out, origins);
        }
        match kind.as_deref() {
            Some("cp") => {
                let (Some(src), Some(dst)) = (get("src"), get("dst")) else {
                    cx.err(&n.loc, format!("{label}: cp needs `src` and `dst` strings"), "write { op = \"cp\", src = \"/data/1\", dst = \"/data/2\" }");
                    continue;
                };
                if let Some((k, kl, _)) = entries.iter().find(|(k, _, _)| !["op", "step", "src", "dst"].contains(&k.as_str())) {
                    cx.err(kl, format!("unknown key `{k}` in {label}"), "a cp op takes op, step, src, dst");
                }
                // Owned: the copies join `created` as they are made.
                let srcs: Vec<(String, u64, Option<usize>)> = index.below(&src, &created).into_iter().map(|(p, size, decl)| (p.to_string(), size, decl)).collect();
                if srcs.is_empty() {
                    cx.err(&n.loc, format!("{label}: nothing to copy below `{src}`"), "name a declared file or a directory holding files");
                    continue;
                }
                let origin = origins.len() as u32;
                origins.push((n.loc.clone(), step, label));
                let (src_root, dst_root) = (src.trim_end_matches('/').to_string(), dst.trim_end_matches('/').to_string());
                for (p, size, decl) in srcs {
                    let q = format!("{dst_root}{}", &p[src_root.len()..]);
                    let file = match decl {
                        Some(i) => GenFile::Declared(i as u32),
                        None => GenFile::Path(p.into()),
                    };
                    out.push(ExpOp::Gen { origin, op: GenOp::Read { file, bufsize: CP_BUFSIZE, scan: false } });
                    out.push(ExpOp::Gen { origin, op: GenOp::Write { file: q.clone(), length: size } });
                    if !index.contains(&q) && !created.contains_key(&q) {
                        let seq = created.len();
                        created.insert(q, (seq, size));
                    }
                }
            }
            Some("grep") => {
                let Some(path) = get("path") else {
                    cx.err(&n.loc, format!("{label}: grep needs `path`"), "write { op = \"grep\", path = \"/data/1\" }");
                    continue;
                };
                if let Some((k, kl, _)) = entries.iter().find(|(k, _, _)| !["op", "step", "path"].contains(&k.as_str())) {
                    cx.err(kl, format!("unknown key `{k}` in {label}"), "a grep op takes op, step, path");
                }
                let mut targets = index.below(&path, &created);
                targets.sort_by(|a, b| glob_order(a.0, b.0));
                if targets.is_empty() {
                    cx.err(&n.loc, format!("{label}: no file below `{path}`"), "name a declared file or a directory holding files");
                    continue;
                }
                let origin = origins.len() as u32;
                for (p, _, decl) in targets {
                    let file = match decl {
                        Some(i) => GenFile::Declared(i as u32),
                        None => GenFile::Path(p.into()),
                    };
                    out.push(ExpOp::Gen { origin, op: GenOp::Read { file, bufsize: GREP_BUFSIZE, scan: true } });
                }
                origins.push((n.loc.clone(), step, label));
            }
            _ => out.push(ExpOp::Tree(Box::new((n, step, label)))),
        }
    }
    (out, origins)
}

/// The order in which `grep PATTERN PATH/*` meets two files below PATH: the shell sorts the
/// names of each directory's entries byte-wise (C locale, `strcmp()`), and a directory is read
/// whole before its next sibling, so paths compare component by component: `a/x` comes before
/// `a.txt` because `a` sorts before `a.txt`, though `/` sorts after `.` as a byte. (Below the
/// first level real `grep -r` walks in readdir order, which on ext4 follows name hashes; the
/// engine keeps name order there too, so that runs stay reproducible.)
fn glob_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/').map(str::as_bytes).cmp(b.split('/').map(str::as_bytes))
}

/// A task's name and place, its own cgroup (with where it was written), its start time and
/// uid, and its ops expanded to (node, step name, label).
type ExpandedTask = (String, Loc, Option<(Option<usize>, Loc)>, (u64, u32, u32), Vec<ExpOp>, Vec<(Loc, String, String)>);

/// One op of a task once `repeat`, `cp` and `grep` are expanded: as written (its value tree,
/// step name and label, to be checked by `extract_op`), or one of the reads and writes a `cp`
/// or `grep` stands for, made directly and naming the op it comes from (`origin`: an index
/// into the task's (place, step, label) of its cp and grep ops). A grep over ten million files
/// holds ten million of these small values, not ten million value trees.
enum ExpOp {
    Tree(Box<(Node, String, String)>),
    Gen { origin: u32, op: GenOp },
}

/// A read or write a `cp` or `grep` stands for.
enum GenOp {
    /// Read the whole file, `bufsize` bytes per `read()` (cp: 128K, grep: 96K), scanning
    /// each page in user space (grep).
    Read { file: GenFile, bufsize: u64, scan: bool },
    /// cp's write of its copy: created and truncated, `length` bytes, 128K per `write()`.
    Write { file: String, length: u64 },
}

/// A file a generated op names: a declared one by its index in `files`, or one a `cp` of the
/// task creates, by path.
enum GenFile {
    Declared(u32),
    Path(Box<str>),
}

/// A `cp`'s `read()` and `write()` size: 128 KiB (coreutils' `IO_BUFSIZE`, src/ioblksize.h), as
/// the op's expansion has always written it (`bufsize = "128K"`).
const CP_BUFSIZE: u64 = 128 << 10;
/// A `grep`'s `read()` size: 96 KiB, what `strace` shows GNU grep 3.8 reading a regular file
/// with on this host (`read(3, ..., 98304)`), as the op's expansion has always written it.
const GREP_BUFSIZE: u64 = 96 << 10;

impl ExpOp {
    /// The file the op creates, if it is a write with `create = true`.
    fn created_file(&self, op_str: &dyn Fn(&Node, &str) -> Option<String>, op_bool: &dyn Fn(&Node, &str) -> bool) -> Option<String> {
        match self {
            ExpOp::Tree(t) => (op_str(&t.0, "op").as_deref() == Some("write") && op_bool(&t.0, "create")).then(|| op_str(&t.0, "file")).flatten(),
            ExpOp::Gen { op: GenOp::Write { file, .. }, .. } => Some(file.clone()),
            ExpOp::Gen { .. } => None,
        }
    }
}

impl GenOp {
    /// The op, as `extract_op` would make it of the value tree that `cp`/`grep` expanded to
    /// before (`{ op = "read", file, bufsize = "96K", scan = true }` and so on). Its files
    /// exist by construction (declared, or created by the task's earlier writes).
    fn extract(self, known: &Known) -> Option<OpKind> {
        let index = |f: &str| known.file_index.get(known.files, f);
        Some(match self {
            GenOp::Read { file, bufsize, scan } => {
                let file = match file {
                    GenFile::Declared(i) => i as usize,
                    GenFile::Path(p) => index(&p)?,
                };
                OpKind::Read { file, offset: 0, length: None, bufsize, pattern: Pattern::Sequential, fadvise: Advice::Normal, scan }
            }
            GenOp::Write { file, length } => OpKind::Write { file: index(&file)?, offset: 0, length, bufsize: CP_BUFSIZE, fsync: false, create: true, truncate: true },
        })
    }
}

/// The scenario's file paths while it is built, for membership and index lookups: each path's
/// 64-bit hash mapped to the first file holding it (the path itself is read from `files`, not
/// copied), and by name the few paths whose hash an other path took first, or that are not in
/// `files` yet. About 20 bytes a file instead of a copy of every path in a set.
#[derive(Default)]
struct PathSet {
    first: std::collections::HashMap<u64, u32>,
    more: std::collections::HashMap<String, usize>,
}

impl PathSet {
    fn hash(p: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        p.hash(&mut h);
        h.finish()
    }

    /// The index of the first file of path `p`.
    fn get(&self, files: &[FileSpec], p: &str) -> Option<usize> {
        if let Some(&i) = self.first.get(&Self::hash(p)) {
            if files.get(i as usize).is_some_and(|f| f.path == p) {
                return Some(i as usize);
            }
        }
        self.more.get(p).copied()
    }

    fn contains(&self, files: &[FileSpec], p: &str) -> bool {
        self.get(files, p).is_some()
    }

    /// `files[i]` joins the set (a path already in it keeps its first index).
    fn insert(&mut self, files: &[FileSpec], i: usize) {
        let p = files[i].path.as_str();
        match self.first.entry(Self::hash(p)) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i as u32);
            }
            std::collections::hash_map::Entry::Occupied(e) => {
                if files[*e.get() as usize].path != p {
                    self.more.entry(p.to_string()).or_insert(i);
                }
            }
        }
    }

    /// Path `p` joins the set as file `i`, which `files` does not hold yet.
    fn insert_path(&mut self, p: String, i: usize) {
        self.more.entry(p).or_insert(i);
    }
}

/// What op references are checked against.
struct Known<'a> {
    files: &'a [FileSpec],
    cgroups: &'a [CgroupSpec],
    dyn_cgroups: &'a [String],
    /// RAM + swap, bytes: the largest anonymous mapping the overcommit heuristic allows.
    commit_limit: u64,
    /// zswap is on under 6.18's (`KernelProfile::zswap_direct`): fills it has no model for
    /// are refused.
    zswap_direct: bool,
    /// `KernelProfile::zswap_incompressible_as_is`: with `zswap_direct`, incompressible fills
    /// are refused too.
    zswap_as_is: bool,
    /// Each file's index in `files` by path (the first, for a path given twice).
    file_index: PathSet,
    /// (path, index) of every file, by path: the files below a directory are a range. Made
    /// when a first fadvise of a directory needs it.
    sorted_files: std::cell::OnceCell<Vec<(&'a str, usize)>>,
    /// Every directory's path.
    dir_paths: std::collections::HashSet<&'a str>,
}

/// The mounts by path: the mount a path lies on is its longest mount-point prefix (the last
/// declared of equal ones), found by walking up the path, whatever the number of mounts.
struct MountIndex(std::collections::HashMap<String, usize>);

impl MountIndex {
    fn new(mounts: &[MountSpec]) -> MountIndex {
        MountIndex(mounts.iter().enumerate().map(|(i, m)| (m.path.clone(), i)).collect())
    }

    /// The mount holding `path`: itself a mount point, or below one (`""` is the root's).
    fn mount_of(&self, path: &str) -> Option<usize> {
        let mut p = path;
        loop {
            if let Some(&i) = self.0.get(p) {
                return Some(i);
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.0.get("").copied(),
            }
        }
    }
}

/// The fewest pages `node_reserved` may leave a node (256 KiB, what 16M of RAM gives each of
/// 64 nodes).
const MIN_NODE_PAGES: u64 = 64;


/// Replace `{i}` in every string of `n` with `i`.
fn subst(n: &Node, i: &str) -> Node {
    let v = match &n.v {
        Val::Str(s) => Val::Str(s.replace("{i}", i)),
        Val::Arr(a) => Val::Arr(a.iter().map(|x| subst(x, i)).collect()),
        Val::Table(e) => Val::Table(e.iter().map(|(k, l, v)| (k.clone(), l.clone(), subst(v, i))).collect()),
        other => other.clone(),
    };
    Node { v, loc: n.loc.clone() }
}

/// Append op `n` (item `i` of task `task`) to `out` with its default step name, expanding a
/// `repeat` op into its iterations with `{i}` replaced by 1, 2, ... in every string.
fn expand_op(cx: &mut Cx, n: &Node, task: &str, i: usize, out: &mut Vec<(Node, String, String)>) {
    let what = format!("tasks.{task}.ops[{i}]");
    let Val::Table(entries) = &n.v else {
        cx.err(&n.loc, format!("{what} must be a table, not {}", n.v.type_name()), "write each op as { op = \"read\", ... }");
        return;
    };
    let get = |k: &str| entries.iter().find(|(kk, _, _)| kk == k).map(|(_, _, v)| v);
    let kind = get("op").and_then(|v| if let Val::Str(s) = &v.v { Some(s.as_str()) } else { None });
    let step = get("step").and_then(|v| if let Val::Str(s) = &v.v { Some(s.clone()) } else { None });
    if kind != Some("repeat") {
        out.push((n.clone(), step.unwrap_or_else(|| format!("{task}:{i} {}", kind.unwrap_or("op"))), what));
        return;
    }
    let mut t = match Tab::new(cx, n, &what) {
        Some(t) => t,
        None => return,
    };
    t.get("op");
    if let Some(v) = t.get("step") {
        get_str(cx, v, &format!("{what}.step"));
    }
    let times = match t.get("times") {
        Some(v) => get_uint(cx, v, &format!("{what}.times")).unwrap_or(0),
        None => {
            cx.err(&n.loc, format!("{what}: repeat needs `times`"), "add times = 1000");
            0
        }
    };
    let inner: Vec<&Node> = match t.get("ops") {
        Some(Node { v: Val::Arr(items), .. }) => items.iter().collect(),
        Some(other) => {
            cx.err(&other.loc, format!("{what}.ops must be an array, not {}", other.v.type_name()), "write ops = [ { op = \"mkdir\", cgroup = \"t/{i}\" } ]");
            vec![]
        }
        None => {
            cx.err(&n.loc, format!("{what}: repeat needs `ops`"), "add ops = [ ... ] (use {i} in strings for the iteration number)");
            vec![]
        }
    };
    t.finish(cx, &["op", "step", "times", "ops"]);
    if (out.len() as u64).saturating_add(times.saturating_mul(inner.len() as u64)) > MAX_OPS_PER_TASK as u64 {
        let loc = entries.iter().find(|(k, _, _)| k == "times").map(|(_, _, v)| v.loc.clone()).unwrap_or_else(|| n.loc.clone());
        cx.err(
            &loc,
            format!("{what}.times is {times}: the task would have more than the engine's limit of {MAX_OPS_PER_TASK} ops"),
            "repeat fewer times, or split the work over several tasks",
        );
        return;
    }
    for it in &inner {
        if let Val::Table(e) = &it.v {
            if e.iter().any(|(k, _, v)| k == "op" && v.v == Val::Str("repeat".into())) {
                cx.err(&it.loc, format!("{what}: a repeat inside a repeat"), "flatten the loops: one repeat per op list");
                return;
            }
        }
    }
    let step = step.unwrap_or_else(|| format!("{task}:{i} repeat"));
    for k in 1..=times {
        let ks = k.to_string();
        for (j, it) in inner.iter().enumerate() {
            let node = subst(it, &ks);
            let inner_step = match &node.v {
                Val::Table(e) => e.iter().find(|(kk, _, _)| kk == "step").and_then(|(_, _, v)| if let Val::Str(s) = &v.v { Some(s.clone()) } else { None }),
                _ => None,
            };
            out.push((node, inner_step.unwrap_or_else(|| step.clone()), format!("{what}.ops[{j}] (iteration {k})")));
        }
    }
}

fn extract_op(cx: &mut Cx, n: &Node, what: &str, default_step: &str, known: &Known) -> Option<OpSpec> {
    let what = what.to_string();
    let mut t = Tab::new(cx, n, &what)?;
    let kind = match t.get("op") {
        Some(v) => get_str(cx, v, "op").map(|s| (s.to_string(), v.loc.clone())),
        None => {
            cx.err(&n.loc, format!("{what} has no `op`"), "add op = \"read\" (or write, stat, fadvise, fsync, sleep, move, mkdir, rmdir, mount, exec, repeat)");
            None
        }
    };
    let files = known.files;
    let file_of = |cx: &mut Cx, t: &mut Tab| -> Option<usize> {
        let Some(v) = t.get("file") else {
            cx.err(&n.loc, format!("{what} has no `file`"), "add file = \"/path\" naming a [files] entry");
            return None;
        };
        let s = get_str(cx, v, "file")?;
        match known.file_index.get(files, s) {
            Some(i) => Some(i),
            None => {
                let names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
                let list = if names.len() > 20 { format!("{}, ... ({} files)", names[..20].join(", "), names.len()) } else { names.join(", ") };
                let hint = if names.len() > 10_000 { String::new() } else { suggest(s, &names) };
                cx.err(&v.loc, format!("unknown file `{s}`"), format!("{hint}declare [files.\"{s}\"], create it with a write op (create = true), or use one of: {list}"));
                None
            }
        }
    };
    let cgroup_of = |cx: &mut Cx, t: &mut Tab, op: &str| -> Option<String> {
        let Some(v) = t.get("cgroup") else {
            cx.err(&n.loc, format!("{what}: {op} needs `cgroup`"), "add cgroup = \"NAME\" (\"/\" for the root)");
            return None;
        };
        let s = get_str(cx, v, "cgroup")?;
        let path = s.trim_matches('/').to_string();
        if op != "mkdir" && !path.is_empty() && !known.cgroups.iter().any(|c| c.path == path) && !known.dyn_cgroups.contains(&path) {
            let names: Vec<&str> = known.cgroups.iter().map(|c| c.path.as_str()).collect();
            cx.err(
                &v.loc,
                format!("unknown cgroup `{s}`"),
                format!("{}declare it as [cgroups.\"{path}\"] or create it with an op {{ op = \"mkdir\" }}; declared: {} (\"/\" is the root)", suggest(&path, &names), if names.is_empty() { "none".to_string() } else { names.join(", ") }),
            );
            return None;
        }
        if path.split('/').any(|c| c.is_empty() || c == "." || c == "..") && !path.is_empty() {
            cx.err(&v.loc, format!("`{s}` is not a cgroup path"), "name cgroups by their path below the root, e.g. \"test/1\"");
            return None;
        }
        if op == "mkdir" && path.is_empty() {
            cx.err(&v.loc, "mkdir of the root cgroup", "name a cgroup below the root, e.g. cgroup = \"test/1\"");
            return None;
        }
        Some(path)
    };
    let (kind, kloc) = kind?;
    let k = |name: &str| format!("{what}.{name}");
    let step = t.get("step").and_then(|v| get_str(cx, v, "step").map(str::to_string)).unwrap_or_else(|| default_step.to_string());
    let op = match kind.as_str() {
        "read" => {
            let file = file_of(cx, &mut t);
            let offset = t.get("offset").and_then(|v| get_size(cx, v, &k("offset"))).unwrap_or(0);
            let length = t.get("length").and_then(|v| get_size(cx, v, &k("length")));
            let bufsize = get_bufsize(cx, &mut t, &k("bufsize"));
            if bufsize == 0 {
                cx.err(&n.loc, format!("{what}: bufsize is 0"), "read with a buffer of at least 1 byte, e.g. bufsize = \"128K\" (cat's)");
            }
            check_file_range(cx, &mut t, &k("offset"), offset, "offset");
            if let Some(l) = length {
                check_file_range(cx, &mut t, &k("length"), l, "length");
            }
            let pattern = match t.get("pattern") {
                None => Pattern::Sequential,
                Some(v) => match get_str(cx, v, "pattern") {
                    Some("sequential") => Pattern::Sequential,
                    Some("random") => {
                        let count = match t.get("count") {
                            Some(c) => match get_uint(cx, c, &k("count")) {
                                Some(x) if x > MAX_RANDOM_READS => {
                                    cx.err(
                                        &c.loc,
                                        format!("{} is {x}, more than the engine's limit of {MAX_RANDOM_READS} reads in one op", k("count")),
                                        "read fewer times (each read is one read() syscall), or use several ops",
                                    );
                                    1
                                }
                                Some(x) => x,
                                None => 1,
                            },
                            None => {
                                cx.err(&v.loc, "a random read needs `count`", "add count = 1000 (number of reads)");
                                1
                            }
                        };
                        Pattern::Random { count }
                    }
                    Some(other) => {
                        cx.err(&v.loc, format!("unknown pattern `{other}`"), "write pattern = \"sequential\" or \"random\"");
                        Pattern::Sequential
                    }
                    None => Pattern::Sequential,
                },
            };
            let fadvise = match t.get("fadvise") {
                None => Advice::Normal,
                Some(v) => match get_str(cx, v, "fadvise") {
                    Some("normal") => Advice::Normal,
                    Some("sequential") => Advice::Sequential,
                    Some("random") => Advice::Random,
                    Some(other) => {
                        cx.err(&v.loc, format!("unknown fadvise `{other}`"), "write fadvise = \"normal\", \"sequential\" (as cat does) or \"random\"");
                        Advice::Normal
                    }
                    None => Advice::Normal,
                },
            };
            let scan = t.get("scan").and_then(|v| get_bool(cx, v, &k("scan"))).unwrap_or(false);
            t.finish(cx, &["op", "step", "file", "offset", "length", "bufsize", "pattern", "count", "fadvise", "scan"]);
            OpKind::Read { file: file?, offset, length, bufsize: bufsize.max(1), pattern, fadvise, scan }
        }
        "write" => {
            let file = file_of(cx, &mut t);
            let offset = t.get("offset").and_then(|v| get_size(cx, v, &k("offset"))).unwrap_or(0);
            let length = match t.get("length") {
                Some(v) => get_size(cx, v, &k("length")).unwrap_or(0),
                None => {
                    cx.err(&n.loc, format!("{what}: a write needs `length`"), "add length = \"100M\"");
                    0
                }
            };
            let bufsize = get_bufsize(cx, &mut t, &k("bufsize")).max(1);
            check_file_range(cx, &mut t, &k("offset"), offset, "offset");
            check_file_range(cx, &mut t, &k("length"), length, "length");
            if offset.saturating_add(length) > MAX_FILE_SIZE && offset <= MAX_FILE_SIZE && length <= MAX_FILE_SIZE {
                let loc = t.entries.iter().find(|(kk, _, _)| kk == "length").map(|(_, _, v)| v.loc.clone()).unwrap_or_else(|| n.loc.clone());
                cx.err(
                    &loc,
                    format!("{what}: the write ends at byte {}, beyond the engine's largest file of {} (page indices are 32-bit)", offset.saturating_add(length), human_size(MAX_FILE_SIZE)),
                    "write less, or at a lower offset, so that offset + length is at most \"8T\"",
                );
            }
            let fsync = t.get("fsync").and_then(|v| get_bool(cx, v, &k("fsync"))).unwrap_or(false);
            let create = t.get("create").and_then(|v| get_bool(cx, v, &k("create"))).unwrap_or(false);
            let truncate = t.get("truncate").and_then(|v| get_bool(cx, v, &k("truncate"))).unwrap_or(false);
            t.finish(cx, &["op", "step", "file", "offset", "length", "bufsize", "fsync", "create", "truncate"]);
            OpKind::Write { file: file?, offset, length, bufsize, fsync, create, truncate }
        }
        "fsync" | "stat" => {
            let file = file_of(cx, &mut t);
            t.finish(cx, &["op", "step", "file"]);
            if kind == "stat" {
                OpKind::Stat { file: file? }
            } else {
                OpKind::Fsync { file: file? }
            }
        }
        "sleep" => {
            let duration = match t.get("duration") {
                Some(v) => get_duration(cx, v, &k("duration")).unwrap_or(0),
                None => {
                    cx.err(&n.loc, format!("{what}: sleep needs `duration`"), "add duration = \"1s\"");
                    0
                }
            };
            t.finish(cx, &["op", "step", "duration"]);
            OpKind::Sleep { duration }
        }
        "move" | "mkdir" | "rmdir" => {
            let cg = cgroup_of(cx, &mut t, &kind);
            t.finish(cx, &["op", "step", "cgroup"]);
            let cgroup = cg?;
            match kind.as_str() {
                "move" => OpKind::Move { cgroup },
                "mkdir" => OpKind::Mkdir { cgroup },
                _ => OpKind::Rmdir { cgroup },
            }
        }
        "fadvise" => {
            let mut fadvise_path = String::new();
            let (files_idx, directory) = match t.get("path") {
                Some(v) => match get_str(cx, v, &k("path")) {
                    Some(p) => {
                        let p = if p == "/" { "/" } else { p.trim_end_matches('/') };
                        fadvise_path = p.to_string();
                        if let Some(i) = known.file_index.get(known.files, p) {
                            (Some(vec![i]), false)
                        } else {
                            let prefix = if p == "/" { "/".to_string() } else { format!("{p}/") };
                            // The files below, in declaration order: a range of the files by path.
                            let sf = known.sorted_files.get_or_init(|| {
                                let mut v: Vec<(&str, usize)> = known.files.iter().enumerate().map(|(i, f)| (f.path.as_str(), i)).collect();
                                v.sort_unstable();
                                v
                            });
                            let start = sf.partition_point(|(q, _)| *q < prefix.as_str());
                            // Past the limit, later ops are refused without counting their files.
                            let left = MAX_FADVISE_FILES.saturating_sub(cx.fadvise_files) as usize;
                            let n = sf[start..].iter().take(left + 1).take_while(|(q, _)| q.starts_with(&prefix)).count();
                            cx.fadvise_files = cx.fadvise_files.saturating_add(n as u64).max(if n > left { MAX_FADVISE_FILES + 1 } else { 0 });
                            let below: Vec<usize> = if cx.fadvise_files > MAX_FADVISE_FILES {
                                cx.err(
                                    &v.loc,
                                    format!("{what}: the scenario's fadvise ops name more than the engine's limit of {MAX_FADVISE_FILES} files in all (a directory counts every file below it)"),
                                    "advise fewer directories, or smaller ones",
                                );
                                vec![]
                            } else {
                                let mut b: Vec<usize> = sf[start..start + n].iter().map(|(_, i)| *i).collect();
                                b.sort_unstable();
                                b
                            };
                            if below.is_empty() && cx.fadvise_files > MAX_FADVISE_FILES {
                                (None, true)
                            } else if below.is_empty() && known.dir_paths.contains(p) {
                                (Some(below), true)
                            } else if below.is_empty() {
                                cx.err(&v.loc, format!("`{p}` is neither a file nor a directory holding files"), "name a declared file, or a directory that [files] entries lie below");
                                (None, false)
                            } else {
                                (Some(below), true)
                            }
                        }
                    }
                    None => (None, false),
                },
                None => {
                    cx.err(&n.loc, format!("{what}: fadvise needs `path`"), "add path = \"/data/f\" (a file or a directory)");
                    (None, false)
                }
            };
            let advice = match t.get("advice") {
                Some(v) => match get_str(cx, v, &k("advice")) {
                    Some("dontneed") => Some(crate::fadvise::Advice::DontNeed),
                    Some("willneed") => Some(crate::fadvise::Advice::WillNeed),
                    Some(other) => {
                        cx.err(&v.loc, format!("unknown advice `{other}`"), "write advice = \"dontneed\" or \"willneed\"");
                        None
                    }
                    None => None,
                },
                None => {
                    cx.err(&n.loc, format!("{what}: fadvise needs `advice`"), "add advice = \"dontneed\"");
                    None
                }
            };
            let offset = t.get("offset").and_then(|v| get_size(cx, v, &k("offset"))).unwrap_or(0);
            let length = t.get("length").and_then(|v| get_size(cx, v, &k("length")));
            check_file_range(cx, &mut t, &k("offset"), offset, "offset");
            if let Some(l) = length {
                check_file_range(cx, &mut t, &k("length"), l, "length");
            }
            let walk = t.get("walk").and_then(|v| get_bool(cx, v, &k("walk"))).unwrap_or(false);
            if walk && !directory && files_idx.is_some() {
                cx.err(&n.loc, format!("{what}: `walk = true` needs a directory, and `{fadvise_path}` is a file"), "drop `walk`, or give the directory's path");
            }
            t.finish(cx, &["op", "step", "path", "advice", "offset", "length", "walk"]);
            OpKind::Fadvise { path: fadvise_path, files: files_idx?, directory, walk, advice: advice?, offset, length }
        }
        "exec" => {
            let program = t.get("program").and_then(|v| get_str(cx, v, &k("program")).map(str::to_string)).unwrap_or_else(|| "a.out".into());
            t.finish(cx, &["op", "step", "program"]);
            OpKind::Exec { program }
        }
        "mount" => {
            let path = match t.get("path") {
                Some(v) => get_str(cx, v, &k("path")).map(str::to_string),
                None => {
                    cx.err(&n.loc, format!("{what}: mount needs `path`"), "add path = \"/mnt/{i}\"");
                    None
                }
            };
            let fs = t.get("fs").and_then(|v| get_fs(cx, v, &k("fs"))).unwrap_or_else(|| "tmpfs".into());
            let mkdir = t.get("mkdir").and_then(|v| get_bool(cx, v, &k("mkdir"))).unwrap_or(true);
            t.finish(cx, &["op", "step", "path", "fs", "mkdir"]);
            if let Some(p) = &path {
                if !p.starts_with('/') {
                    cx.err(&n.loc, format!("{what}: mount point `{p}` is not an absolute path"), "write path = \"/mnt/{i}\"");
                }
            }
            OpKind::Mount { path: path?, fs, mkdir }
        }
        "mmap" => {
            let name = t.get("name").and_then(|v| get_str(cx, v, &k("name")).map(str::to_string));
            if name.is_none() && t.get("name").is_none() {
                cx.err(&n.loc, format!("{what}: mmap needs `name`"), "add name = \"hog\" (touch and munmap refer to it)");
            }
            if name.as_deref().is_some_and(|x| x.trim().is_empty()) {
                cx.err(&n.loc, format!("{what}: the mapping's name is empty"), "give it a name, e.g. name = \"hog\" (touch and munmap refer to it)");
            }
            if t.get("file").is_some() {
                // A file mapping: `length` (default: the file from `offset` to its end).
                let file = file_of(cx, &mut t);
                let offset = t.get("offset").and_then(|v| get_size(cx, v, &k("offset"))).unwrap_or(0);
                check_file_range(cx, &mut t, &k("offset"), offset, "offset");
                if offset % PAGE_SIZE != 0 {
                    let loc = t.get("offset").map(|v| v.loc.clone()).unwrap_or_else(|| n.loc.clone());
                    cx.err(&loc, format!("{what}: offset {offset} is not a multiple of the page size (mmap() returns EINVAL)"), format!("give a multiple of 4096, e.g. offset = {}", offset / PAGE_SIZE * PAGE_SIZE));
                }
                if t.get("size").is_some() {
                    let loc = t.get("size").map(|v| v.loc.clone()).unwrap_or_else(|| n.loc.clone());
                    cx.err(&loc, format!("{what}: a file mapping takes `length`, not `size`"), "write length = \"64M\" (or leave it out to map the file to its end)");
                }
                let fsize = file.map(|f| known.files[f].size).unwrap_or(0);
                if let Some(f) = file.filter(|&f| known.files[f].device.is_none()) {
                    let loc = t.get("file").map(|v| v.loc.clone()).unwrap_or_else(|| n.loc.clone());
                    cx.err(&loc, format!("{what}: `{}` lives on tmpfs, and the engine does not model faults on shmem mappings (shmem_fault())", known.files[f].path), "map a file on a block device (one not under a tmpfs mount)");
                }
                let length = t.get("length").and_then(|v| get_size(cx, v, &k("length")));
                let size = match length {
                    Some(l) => {
                        check_file_range(cx, &mut t, &k("length"), l, "length");
                        if file.is_some() && offset.saturating_add(l) > fsize.div_ceil(PAGE_SIZE) * PAGE_SIZE {
                            let loc = t.get("length").map(|v| v.loc.clone()).unwrap_or_else(|| n.loc.clone());
                            cx.err(
                                &loc,
                                format!("{what}: the mapping ends at byte {}, past the end of `{}` ({}): touching a page beyond it raises SIGBUS", offset.saturating_add(l), known.files[file.unwrap_or(0)].path, human_size(fsize)),
                                format!("map at most {} from offset {}, or make the file larger", human_size(fsize.div_ceil(PAGE_SIZE) * PAGE_SIZE - offset.min(fsize)), offset),
                            );
                        }
                        l
                    }
                    None => fsize.saturating_sub(offset),
                };
                if file.is_some() && size == 0 {
                    cx.err(&n.loc, format!("{what}: nothing to map (the file is {} and the offset {offset})", human_size(fsize)), "map a file with data, or a lower offset");
                }
                let flag = |cx: &mut Cx, t: &mut Tab, key: &str| t.get(key).and_then(|v| get_bool(cx, v, &k(key))).unwrap_or(false);
                let shared = match (t.get("shared"), t.get("private")) {
                    (Some(_), Some(v)) => {
                        cx.err(&v.loc, format!("{what}: give `shared` or `private`, not both"), "drop one of them");
                        false
                    }
                    (Some(_), None) => flag(cx, &mut t, "shared"),
                    (None, Some(_)) => !flag(cx, &mut t, "private"),
                    (None, None) => false,
                };
                let exec = flag(cx, &mut t, "exec");
                let populate = flag(cx, &mut t, "populate");
                let advice = match t.get("advice") {
                    Some(v) => get_madvice(cx, v, &k("advice")).unwrap_or(MAdvice::Normal),
                    None => MAdvice::Normal,
                };
                t.finish(cx, &["op", "step", "name", "file", "offset", "length", "size", "shared", "private", "exec", "populate", "advice"]);
                OpKind::Mmap { name: name?, size, file: Some(MapFile { file: file?, offset, shared, exec, populate, advice }), fill: crate::zswap::AnonFill::Byte }
            } else {
                let size = t.get("size").and_then(|v| get_size(cx, v, &k("size")));
                if size.is_none() && t.get("size").is_none() {
                    cx.err(&n.loc, format!("{what}: mmap needs `size` (anonymous memory) or `file`"), "add size = \"1G\", or file = \"/data/f\" to map a file");
                }
                if let Some(sz) = size {
                    if sz == 0 {
                        cx.err(&n.loc, format!("{what}: mmap size is 0"), "give a size of at least 4K");
                    } else if sz > known.commit_limit {
                        cx.err(
                            &n.loc,
                            format!("{what}: mmap size {} is more than the machine's RAM and swap ({}): the kernel's overcommit heuristic (vm.overcommit_memory = 0, __vm_enough_memory()) refuses it", human_size(sz), human_size(known.commit_limit)),
                            "map at most machine.ram + machine.swap",
                        );
                    }
                }
                let fill = match t.get("fill") {
                    Some(v) => {
                        let f = get_fill(cx, v, &k("fill")).unwrap_or_default();
                        let incompressible = crate::zswap::lzo1x_1_compressed_len(f) >= PAGE_SIZE;
                        if known.zswap_direct && (f == crate::zswap::AnonFill::Same || (known.zswap_as_is && incompressible)) {
                            cx.err(
                                &v.loc,
                                format!("{what}: fill = \"{}\" with zswap on a 6.12+ profile: the engine does not model what the kernel does with such pages ({})", f.name(),
                                    if f == crate::zswap::AnonFill::Same { "zero-filled pages go to the swap area's zeromap, 6.12" } else { "6.18 stores pages that do not compress as they are" }),
                                if known.zswap_as_is { "use fill = \"byte\" or \"random-1K\" (pages LZO compresses), or profile \"linux-6.1\"" } else { "use fill = \"byte\", \"random\" or \"random-1K\", or profile \"linux-6.1\"" },
                            );
                        }
                        f
                    }
                    None => crate::zswap::AnonFill::Byte,
                };
                t.finish(cx, &["op", "step", "name", "size", "fill"]);
                OpKind::Mmap { name: name?, size: size?, file: None, fill }
            }
        }
        "touch" | "munmap" | "msync" | "mlock" | "munlock" | "madvise" => {
            let name = t.get("name").and_then(|v| get_str(cx, v, &k("name")).map(str::to_string));
            if t.get("name").is_none() {
                cx.err(&n.loc, format!("{what}: {kind} needs `name`"), "add name = \"hog\" (the name an earlier mmap gave)");
            }
            let range = |cx: &mut Cx, t: &mut Tab| {
                let offset = t.get("offset").and_then(|v| get_size(cx, v, &k("offset"))).unwrap_or(0);
                let length = t.get("length").and_then(|v| get_size(cx, v, &k("length")));
                check_file_range(cx, t, &k("offset"), offset, "offset");
                if let Some(l) = length {
                    check_file_range(cx, t, &k("length"), l, "length");
                }
                (offset, length)
            };
            match kind.as_str() {
                "touch" => {
                    let (offset, length) = range(cx, &mut t);
                    let write = match t.get("access") {
                        None => true,
                        Some(v) => match get_str(cx, v, &k("access")) {
                            Some("write") => true,
                            Some("read") => false,
                            Some(other) => {
                                cx.err(&v.loc, format!("unknown access `{other}`"), "write access = \"read\" (loads) or \"write\" (stores)");
                                true
                            }
                            None => true,
                        },
                    };
                    let pattern = match t.get("pattern") {
                        None => TouchPattern::Sequential,
                        Some(v) => match get_str(cx, v, &k("pattern")) {
                            Some("sequential") => TouchPattern::Sequential,
                            Some("random") => {
                                let count = match t.get("count") {
                                    Some(c) => match get_uint(cx, c, &k("count")) {
                                        Some(x) if x > MAX_RANDOM_READS => {
                                            cx.err(&c.loc, format!("{} is {x}, more than the engine's limit of {MAX_RANDOM_READS} pages in one op", k("count")), "touch fewer pages, or use several ops");
                                            1
                                        }
                                        Some(x) => x,
                                        None => 1,
                                    },
                                    None => {
                                        cx.err(&v.loc, "a random touch needs `count`", "add count = 10000 (pages touched)");
                                        1
                                    }
                                };
                                TouchPattern::Random { count }
                            }
                            Some("strided") => {
                                let stride = match t.get("stride") {
                                    Some(c) => match get_size(cx, c, &k("stride")) {
                                        Some(x) if x < PAGE_SIZE || x % PAGE_SIZE != 0 => {
                                            cx.err(&c.loc, format!("{} is {x}: the stride is in bytes, a multiple of the page size", k("stride")), "write stride = \"64K\" (every 16th page)");
                                            1
                                        }
                                        Some(x) => x / PAGE_SIZE,
                                        None => 1,
                                    },
                                    None => {
                                        cx.err(&v.loc, "a strided touch needs `stride`", "add stride = \"64K\" (bytes between two touched pages)");
                                        1
                                    }
                                };
                                TouchPattern::Strided { stride }
                            }
                            Some(other) => {
                                cx.err(&v.loc, format!("unknown pattern `{other}`"), "write pattern = \"sequential\", \"random\" (with count) or \"strided\" (with stride)");
                                TouchPattern::Sequential
                            }
                            None => TouchPattern::Sequential,
                        },
                    };
                    t.finish(cx, &["op", "step", "name", "offset", "length", "access", "pattern", "count", "stride"]);
                    OpKind::Touch { name: name?, access: MapAccess { write, offset, length, pattern } }
                }
                "madvise" => {
                    let (offset, length) = range(cx, &mut t);
                    let advice = match t.get("advice") {
                        Some(v) => get_madvice(cx, v, &k("advice")),
                        None => {
                            cx.err(&n.loc, format!("{what}: madvise needs `advice`"), "add advice = \"random\" (or sequential, willneed, dontneed, cold, pageout, normal)");
                            None
                        }
                    };
                    t.finish(cx, &["op", "step", "name", "offset", "length", "advice"]);
                    OpKind::Madvise { name: name?, advice: advice?, offset, length }
                }
                _ => {
                    t.finish(cx, &["op", "step", "name"]);
                    let name = name?;
                    match kind.as_str() {
                        "munmap" => OpKind::Munmap { name },
                        "msync" => OpKind::Msync { name },
                        "mlock" => OpKind::Mlock { name, lock: true },
                        _ => OpKind::Mlock { name, lock: false },
                    }
                }
            }
        }
        "mmap_probe" => {
            let size = t.get("size").and_then(|v| get_size(cx, v, &k("size"))).unwrap_or(128 << 20);
            if size == 0 || size > 1 << 40 || size > known.commit_limit {
                cx.err(&n.loc, format!("{what}: probe size {size} is out of range"), "give a size from 4K to 1T and at most machine.ram + machine.swap, e.g. \"128M\"");
            }
            let interval = t.get("interval").and_then(|v| get_duration(cx, v, &k("interval"))).unwrap_or(5_000_000);
            let while_task = t.get("while_task").and_then(|v| get_str(cx, v, &k("while_task")).map(str::to_string));
            if t.get("while_task").is_none() {
                cx.err(&n.loc, format!("{what}: mmap_probe needs `while_task`"), "add while_task = \"NAME\": the probe runs until that task has finished");
            }
            t.finish(cx, &["op", "step", "size", "interval", "while_task"]);
            OpKind::MmapProbe { size, interval, while_task: while_task? }
        }
        "post" | "wait" => {
            let event = t.get("event").and_then(|v| get_str(cx, v, &k("event")).map(str::to_string));
            if t.get("event").is_none() {
                cx.err(&n.loc, format!("{what}: {kind} needs `event`"), format!("add event = \"NAME\" (a `{}` op in another task names the same event)", if kind == "post" { "wait" } else { "post" }));
            }
            t.finish(cx, &["op", "step", "event"]);
            if kind == "post" {
                OpKind::Post { event: event? }
            } else {
                OpKind::Wait { event: event? }
            }
        }
        "trace" => {
            let path = t.get("trace").and_then(|v| get_str(cx, v, "trace").map(str::to_string))?;
            let h = cx.traces.iter().find(|(p, _)| *p == path).map(|(_, h)| h.clone())?;
            let time_scale = match t.get("time_scale") {
                None => 1.0,
                Some(v) => match v.v {
                    Val::Float(f) if f >= 0.0 && f.is_finite() => f,
                    Val::Int(i) if i >= 0 => i as f64,
                    _ => {
                        cx.err(&v.loc, "time_scale must be a number of 0 or more", "write time_scale = 1.0 to keep the recorded think time, 0 to drop it, 0.5 to halve it");
                        1.0
                    }
                },
            };
            let loops = match t.get("loops") {
                None => 1,
                Some(v) => match get_uint(cx, v, "loops") {
                    Some(0) => {
                        cx.err(&v.loc, "loops is 0", "write loops = 1 (or more) passes over the trace");
                        1
                    }
                    Some(n) => n,
                    None => 1,
                },
            };
            // true: the cache the recording started with (the header's snapshot); false: none;
            // "FILE": the cache a measured run started with (the caller read FILE's variants).
            let start: Option<Vec<(u16, u32, u32)>> = match t.get("initial_cache") {
                None => Some(h.resident.clone()),
                Some(Node { v: Val::Str(src), loc }) => {
                    let of = |v: Option<&str>| h.start_caches.iter().find(|c| c.source == *src && c.variant.as_deref() == v);
                    match cx.variant.and_then(|v| of(Some(v))).or_else(|| of(None)) {
                        Some(c) => Some(c.resident.clone()),
                        None => {
                            let has: Vec<&str> = h.start_caches.iter().filter(|c| c.source == *src).map(|c| c.variant.as_deref().unwrap_or("default")).collect();
                            if has.is_empty() {
                                cx.err(loc, format!("initial_cache: the start cache `{src}` was not read (the engine reads no files)"), "run the scenario with memtwin (memtwin run, or memtwin.api.run), which reads it");
                            } else if cx.variant.is_none() {
                                cx.err(
                                    loc,
                                    format!("initial_cache: `{src}` has start caches for variants {}, none for the scenario without a variant", has.join(", ")),
                                    format!("run one of its variants (memtwin run FILE --variant {}), or name a file with a `default` variant", has[0]),
                                );
                            } else {
                                cx.err(
                                    loc,
                                    format!("initial_cache: `{src}` has no start cache for variant `{}` (it has {})", cx.variant.unwrap_or("default"), has.join(", ")),
                                    "name a file measured for this variant (memtwin measure --out), or one with a `default` variant, or give true or false",
                                );
                            }
                            None
                        }
                    }
                }
                Some(v) => get_bool(cx, v, "initial_cache").map(|b| if b { h.resident.clone() } else { vec![] }),
            };
            t.finish(cx, &["op", "trace", "time_scale", "loops", "initial_cache"]);
            let files = h.files.iter().map(|(p, _)| known.file_index.get(known.files, p.as_str())).collect::<Option<Vec<usize>>>()?;
            let resident: Vec<(u16, u32, u32)> = start?.into_iter().filter(|r| (r.0 as usize) < files.len()).collect();
            OpKind::Trace { path, files, events: h.events, time_scale, loops, resident }
        }
        other => {
            let ops = ["read", "write", "stat", "fadvise", "fsync", "cp", "grep", "sleep", "move", "mkdir", "rmdir", "mount", "exec", "repeat", "mmap", "touch", "munmap", "madvise", "msync", "mlock", "munlock", "mmap_probe", "post", "wait"];
            cx.err(&kloc, format!("unknown op `{other}`"), format!("{}use one of: {}", suggest(other, &ops), ops.join(", ")));
            return None;
        }
    };
    Some(OpSpec { step: step.into(), kind: op })
}

/// The `bufsize` of a read or write (default 128 KiB, cat's), at most [`MAX_RW_COUNT`].
fn get_bufsize(cx: &mut Cx, t: &mut Tab, what: &str) -> u64 {
    let Some(v) = t.get("bufsize") else { return 128 << 10 };
    match get_size(cx, v, what) {
        Some(b) if b > MAX_RW_COUNT => {
            cx.err(
                &v.loc,
                format!("{what} is {}, more than one read() or write() moves: MAX_RW_COUNT, {MAX_RW_COUNT} bytes (2 GiB less a page)", human_size(b)),
                "use a buffer of at most \"1G\", e.g. bufsize = \"128K\" (cat's)",
            );
            128 << 10
        }
        Some(b) => b,
        None => 128 << 10,
    }
}

/// An offset or length in a file: at most [`MAX_FILE_SIZE`].
/// A `madvise()` advice.
fn get_madvice(cx: &mut Cx, v: &Node, what: &str) -> Option<MAdvice> {
    match get_str(cx, v, what)? {
        "normal" => Some(MAdvice::Normal),
        "sequential" => Some(MAdvice::Sequential),
        "random" => Some(MAdvice::Random),
        "willneed" => Some(MAdvice::WillNeed),
        "dontneed" => Some(MAdvice::DontNeed),
        "cold" => Some(MAdvice::Cold),
        "pageout" => Some(MAdvice::PageOut),
        other => {
            let all = ["normal", "sequential", "random", "willneed", "dontneed", "cold", "pageout"];
            cx.err(&v.loc, format!("unknown madvise advice `{other}`"), format!("{}use one of: {}", suggest(other, &all), all.join(", ")));
            None
        }
    }
}

fn check_file_range(cx: &mut Cx, t: &mut Tab, what: &str, v: u64, key: &str) {
    if v > MAX_FILE_SIZE {
        let loc = t.entries.iter().find(|(k, _, _)| k == key).map(|(_, _, n)| n.loc.clone());
        if let Some(loc) = loc {
            cx.err(&loc, format!("{what} is {}, beyond the engine's largest file of {}", human_size(v), human_size(MAX_FILE_SIZE)), "give at most \"8T\" (page indices are 32-bit)");
        }
    }
}

/// A file or directory mode: an integer (`0o755`) or an octal string (`"0755"`, `"755"`).
fn get_mode(cx: &mut Cx, n: &Node, what: &str) -> Option<u32> {
    let v = match &n.v {
        Val::Int(i) if (0..=0o7777).contains(i) => Some(*i as u32),
        Val::Str(s) => u32::from_str_radix(s.trim_start_matches("0o"), 8).ok().filter(|m| *m <= 0o7777),
        _ => None,
    };
    if v.is_none() {
        cx.err(&n.loc, format!("{what} is not a permission mode"), format!("write {what} = 0o755 or {what} = \"0755\" (octal, at most 7777)"));
    }
    v
}

/// Every directory of the scenario, parents first: `/`, those declared in [dirs] (owner and
/// mode as written), those above declared files (root's, 0755) and those a task's file
/// creation makes (the task's, 0755). A path both a file and a directory is an error.
fn all_dirs(cx: &mut Cx, dirs_node: Option<&Node>, declared: Vec<DirSpec>, created: Vec<DirSpec>, files: &[FileSpec]) -> Vec<DirSpec> {
    let mut out: Vec<DirSpec> = declared;
    let mut seen: std::collections::HashSet<String> = out.iter().map(|d| d.path.clone()).collect();
    let created_by_path: std::collections::HashMap<&str, &DirSpec> = created.iter().rev().map(|c| (c.path.as_str(), c)).collect();
    for f in files {
        // (Most files' directory is known already: no copy of its path then.)
        if seen.contains(crate::fs::parent_path(&f.path)) {
            continue;
        }
        let mut d = crate::fs::parent_path(&f.path).to_string();
        while d != "/" && !seen.contains(&d) {
            let c = created_by_path.get(d.as_str()).map(|c| (*c).clone());
            seen.insert(d.clone());
            out.push(c.unwrap_or(DirSpec { path: d.clone(), uid: 0, mode: 0o755 }));
            d = crate::fs::parent_path(&d).to_string();
        }
    }
    for c in created {
        if seen.insert(c.path.clone()) {
            out.push(c);
        }
    }
    if let Some(n) = dirs_node {
        if let Val::Table(entries) = &n.v {
            // The declared directories by path (fewer than the files, which may be millions).
            let declared: std::collections::HashSet<&str> = entries.iter().map(|(p, _, _)| p.trim_end_matches('/')).collect();
            let both: std::collections::HashSet<&str> = files.iter().map(|f| f.path.as_str()).filter(|p| declared.contains(p)).collect();
            for (p, loc, _) in entries {
                let p = p.trim_end_matches('/');
                if both.contains(p) {
                    cx.err(loc, format!("`{p}` is declared both as a directory and as a file"), format!("remove [dirs.\"{p}\"] or [files.\"{p}\"]"));
                }
            }
        }
    }
    out.sort_by(|a, b| (a.path != "/", a.path.matches('/').count(), &a.path).cmp(&(b.path != "/", b.path.matches('/').count(), &b.path)));
    out
}

/// The start caches trace tasks name (`[tasks.NAME] initial_cache = "FILE"`), in the document
/// and its variants: (task, FILE). The caller reads each and gives it with the trace's header
/// (`TraceHeader::start_caches`) for the task's trace.
pub fn trace_start_caches(doc: &Node) -> Vec<(String, String)> {
    task_strings(doc, "initial_cache", true)
}

/// The trace files `[tasks.NAME] trace = "FILE"` names, in the document and its variants:
/// (task, path).
pub fn trace_paths(doc: &Node) -> Vec<(String, String)> {
    task_strings(doc, "trace", false)
}

/// The string values of key `key` of `[tasks.NAME]` tables, in the document and its
/// variants: (task, value), each value once (`per_task`: once per task).
fn task_strings(doc: &Node, key: &str, per_task: bool) -> Vec<(String, String)> {
    let tasks_of = |n: &Node, out: &mut Vec<(String, String)>| {
        let Val::Table(top) = &n.v else { return };
        let Some((_, _, tasks)) = top.iter().find(|(k, _, _)| k == "tasks") else { return };
        let Val::Table(ts) = &tasks.v else { return };
        for (name, _, t) in ts {
            if let Val::Table(e) = &t.v {
                if let Some((_, _, Node { v: Val::Str(p), .. })) = e.iter().find(|(k, _, _)| k == key) {
                    if !out.iter().any(|(n, q)| q == p && (!per_task || n == name)) {
                        out.push((name.clone(), p.clone()));
                    }
                }
            }
        }
    };
    let mut out = vec![];
    tasks_of(doc, &mut out);
    if let Val::Table(top) = &doc.v {
        if let Some((_, _, Node { v: Val::Table(vs), .. })) = top.iter().find(|(k, _, _)| k == "variants") {
            for (_, _, v) in vs {
                tasks_of(v, &mut out);
            }
        }
    }
    out
}
