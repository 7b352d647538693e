//! The Python binding of memtwin-engine: parse scenarios (TOML text or dicts), run them, and
//! hand results back as plain Python data. No logic lives here.

use memtwin_engine::scenario::{Loc, Node, Val};
use memtwin_engine::Document;

mod tracefile;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

create_exception!(_memtwin, ScenarioError, PyValueError, "A scenario has errors; the message lists each with its place and a fix.");
create_exception!(_memtwin, TraceReplayError, PyValueError, "A trace task's trace is defective; the message names the place (file, event) and the fix.");

/// The chunks of a trace, from a Python object whose `chunks()` returns an iterator of each
/// chunk's raw event bytes (memtwin.trace.Reader does); `chunks()` is called again for each loop.
/// A Python exception is kept to be raised as it is when the run stops.
struct PyChunks {
    factory: Py<PyAny>,
    iter: Option<Py<PyAny>>,
    error: std::rc::Rc<std::cell::RefCell<Option<PyErr>>>,
}

impl PyChunks {
    fn fail(&self, e: PyErr) -> String {
        let msg = Python::attach(|py| e.value(py).to_string());
        *self.error.borrow_mut() = Some(e);
        msg
    }
}

impl memtwin_engine::trace::ChunkSource for PyChunks {
    fn next_chunk(&mut self, buf: &mut Vec<u8>) -> Result<bool, String> {
        if self.iter.is_none() {
            self.rewind()?;
        }
        let r: PyResult<Option<()>> = Python::attach(|py| {
            let it = self.iter.as_ref().expect("set above").bind(py);
            match it.call_method0("__next__") {
                Ok(obj) => {
                    let b = obj.cast::<pyo3::types::PyBytes>().map_err(|_| PyValueError::new_err("a trace chunk must be bytes"))?;
                    buf.clear();
                    buf.extend_from_slice(b.as_bytes());
                    Ok(Some(()))
                }
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyStopIteration>(py) => Ok(None),
                Err(e) => Err(e),
            }
        });
        match r {
            Ok(x) => Ok(x.is_some()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn rewind(&mut self) -> Result<(), String> {
        let r = Python::attach(|py| -> PyResult<Py<PyAny>> {
            let it = self.factory.bind(py).call_method0("chunks")?;
            Ok(it.try_iter()?.into_any().unbind())
        });
        match r {
            Ok(it) => {
                self.iter = Some(it);
                Ok(())
            }
            Err(e) => Err(self.fail(e)),
        }
    }
}

fn scenario_error(e: memtwin_engine::ScenarioErrors) -> PyErr {
    let items: Vec<(String, String, String)> = e.0.iter().map(|x| (x.location.clone(), x.message.clone(), x.fix.clone())).collect();
    ScenarioError::new_err((e.to_string(), items))
}

/// A parsed scenario document.
#[pyclass(module = "memtwin._memtwin", frozen)]
struct Doc {
    doc: Document,
    /// The headers of the traces the tasks name, given by the caller (`set_trace_header`).
    traces: std::sync::Mutex<memtwin_engine::scenario::model::TraceHeaders>,
    /// The file each trace path was read from (`set_trace_header`'s `file`): a run reads it
    /// unless `run`'s `traces` gives another source.
    trace_files: std::sync::Mutex<Vec<(String, String)>>,
}

impl Doc {
    fn resolve(&self, variant: Option<&str>, sets: &[String]) -> Result<memtwin_engine::Scenario, memtwin_engine::ScenarioErrors> {
        let traces = self.traces.lock().expect("not poisoned");
        self.doc.resolve_with_traces(variant, sets, &traces)
    }
}

fn to_node(obj: &Bound<'_, PyAny>, path: &str) -> Result<Node, (String, String)> {
    let fail = |m: String| (if path.is_empty() { "the top level".to_string() } else { path.to_string() }, m);
    let loc = Loc::Path { src: 0, path: path.to_string() };
    let v = if obj.is_instance_of::<PyBool>() {
        Val::Bool(obj.extract::<bool>().map_err(|e| fail(e.to_string()))?)
    } else if obj.is_instance_of::<PyInt>() {
        match obj.extract::<i64>() {
            Ok(i) => Val::Int(i),
            Err(_) => return Err(fail(format!("the integer {obj} does not fit in 64 bits"))),
        }
    } else if obj.is_instance_of::<PyFloat>() {
        Val::Float(obj.extract::<f64>().map_err(|e| fail(e.to_string()))?)
    } else if obj.is_instance_of::<PyString>() {
        Val::Str(obj.extract::<String>().map_err(|e| fail(e.to_string()))?)
    } else if let Ok(d) = obj.cast::<PyDict>() {
        let mut entries = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            let Ok(key) = k.extract::<String>() else {
                return Err(fail(format!("dict keys must be strings, not {}", k.get_type().name().map(|n| n.to_string()).unwrap_or_default())));
            };
            let sub = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            let node = to_node(&v, &sub)?;
            entries.push((key, Loc::Path { src: 0, path: sub }, node));
        }
        Val::Table(entries)
    } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = vec![];
        for (i, it) in obj.try_iter().map_err(|e| fail(e.to_string()))?.enumerate() {
            let it = it.map_err(|e| fail(e.to_string()))?;
            items.push(to_node(&it, &format!("{path}[{i}]"))?);
        }
        Val::Arr(items)
    } else {
        let tn = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(fail(format!("values must be str, int, float, bool, dict or list, not {tn}")));
    };
    Ok(Node { v, loc })
}

/// Parse a TOML scenario text; `name` (usually the path) appears in error locations.
#[pyfunction]
fn load_toml(text: &str, name: &str) -> PyResult<Doc> {
    Document::from_toml(name, text).map(|doc| Doc { doc, traces: Default::default(), trace_files: Default::default() }).map_err(scenario_error)
}

/// Take a scenario given as a dict (the same structure as the TOML file).
#[pyfunction]
fn load_dict(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Doc> {
    if !obj.is_instance_of::<PyDict>() {
        return Err(ScenarioError::new_err((format!("{name}: error: a scenario must be a dict\n  fix: pass a dict like {{'scenario': {{'name': ...}}, ...}}"), Vec::<(String, String, String)>::new())));
    }
    let root = to_node(obj, "").map_err(|(path, m)| {
        let fix = "use only str, int, float, bool, dict and list values";
        let loc = format!("{name}: at {path}");
        ScenarioError::new_err((format!("{loc}: error: {m}\n  fix: {fix}"), vec![(loc, m, fix.to_string())]))
    })?;
    Ok(Doc { doc: Document::from_tree(name, root), traces: Default::default(), trace_files: Default::default() })
}

fn pairs_to_dict<'py>(py: Python<'py>, pairs: &[(String, f64)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in pairs {
        // Counts as Python ints (pandas keeps them int64, JSON prints 1073741824, not 1073741824.0).
        if memtwin_engine::metrics::metric_is_integer(k) && v.fract() == 0.0 && v.abs() < 9.0e15 {
            d.set_item(k, *v as i64)?;
        } else {
            d.set_item(k, v)?;
        }
    }
    Ok(d)
}

fn to_py<'py>(py: Python<'py>, n: &Node) -> PyResult<Bound<'py, PyAny>> {
    Ok(match &n.v {
        Val::Str(s) => s.into_pyobject(py)?.into_any(),
        Val::Int(i) => i.into_pyobject(py)?.into_any(),
        Val::Float(f) => f.into_pyobject(py)?.into_any(),
        Val::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Val::Datetime(d) => d.into_pyobject(py)?.into_any(),
        Val::Arr(items) => {
            let l = PyList::empty(py);
            for it in items {
                l.append(to_py(py, it)?)?;
            }
            l.into_any()
        }
        Val::Table(entries) => {
            let d = PyDict::new(py);
            for (k, _, v) in entries {
                d.set_item(k, to_py(py, v)?)?;
            }
            d.into_any()
        }
    })
}

#[pymethods]
impl Doc {
    /// A top-level table of the document as plain Python data (`None` if absent), e.g. the
    /// `published` table, which the engine itself never interprets.
    fn table<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Val::Table(top) = &self.doc.root.v else { return Ok(None) };
        match top.iter().find(|(k, _, _)| k == key) {
            Some((_, _, v)) => Ok(Some(to_py(py, v)?)),
            None => Ok(None),
        }
    }

    /// The trace files the tasks name (`[tasks.NAME] trace = "FILE"`): (task, path as written).
    fn trace_paths(&self) -> Vec<(String, String)> {
        self.doc.trace_paths()
    }

    /// The start caches trace tasks name (`[tasks.NAME] initial_cache = "FILE"`, variants'
    /// included): (task, FILE as written), for the caller to read.
    fn trace_start_caches(&self) -> Vec<(String, String)> {
        self.doc.trace_start_caches()
    }

    /// Give the header of the trace the scenario names `path`: its files as (path, size) by
    /// trace file id, and its number of events.
    /// `file`: where the trace was read from (a relative `path` resolved by the caller); runs
    /// read it from there. `start_caches`: (FILE as `initial_cache` names it, variant or None,
    /// resident ranges (file id, first page, pages)) of each start cache a task with this trace names.
    #[pyo3(signature = (path, files, events, resident=Vec::new(), file=None, start_caches=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn set_trace_header(
        &self,
        path: String,
        files: Vec<(String, u64)>,
        events: u64,
        resident: Vec<(u16, u32, u32)>,
        file: Option<String>,
        start_caches: Vec<(String, Option<String>, Vec<(u16, u32, u32)>)>,
    ) {
        {
            let mut f = self.trace_files.lock().expect("not poisoned");
            f.retain(|(p, _)| *p != path);
            f.push((path.clone(), file.unwrap_or_else(|| path.clone())));
        }
        let mut t = self.traces.lock().expect("not poisoned");
        t.retain(|(p, _)| *p != path);
        let start_caches = start_caches
            .into_iter()
            .map(|(source, variant, resident)| memtwin_engine::scenario::model::StartCache { source, variant, resident })
            .collect();
        t.push((path, memtwin_engine::scenario::model::TraceHeader { files, events, resident, start_caches }));
    }

    /// The declared variants as (name, description) pairs.
    fn variants(&self) -> Vec<(String, String)> {
        self.doc.variants()
    }

    /// Where the value at key path `path` (table keys, or array indices as numbers) was
    /// written, as `file:line:col`: the deepest part of the path that exists. `None` when
    /// not even its first key does.
    fn locate(&self, path: Vec<String>) -> Option<String> {
        let mut node = &self.doc.root;
        let mut found = None;
        for key in &path {
            let next = match &node.v {
                Val::Table(entries) => entries.iter().find(|(k, _, _)| k == key).map(|(_, _, v)| v),
                Val::Arr(items) => key.trim_matches(|c| c == '[' || c == ']').parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            match next {
                Some(n) => {
                    node = n;
                    found = Some(self.doc.sources.describe(&n.loc));
                }
                None => break,
            }
        }
        found
    }

    /// Check the scenario with a variant and --set overrides applied, without running it.
    #[pyo3(signature = (variant=None, sets=Vec::new()))]
    fn check(&self, variant: Option<&str>, sets: Vec<String>) -> PyResult<String> {
        self.resolve(variant, &sets).map(|s| s.name).map_err(scenario_error)
    }

    /// The step names the scenario (with `variant` applied) will report, in script order.
    #[pyo3(signature = (variant=None))]
    fn step_names(&self, variant: Option<&str>) -> PyResult<Vec<String>> {
        let scn = self.resolve(variant, &[]).map_err(scenario_error)?;
        Ok(scn.tasks.iter().flat_map(|t| t.ops.iter().map(|o| o.step.to_string())).collect())
    }

    /// The resolved scenario as plain data, for running it on a real kernel
    /// (`memtwin real`): machine, devices, cgroups, mounts, files and every task's ops
    /// expanded exactly as the engine runs them (`repeat`, `cp` and `grep` unrolled into
    /// per-file ops), each op a dict with `op`, `step` and its fields (files by path).
    #[pyo3(signature = (variant=None, sets=Vec::new()))]
    fn plan<'py>(&self, py: Python<'py>, variant: Option<&str>, sets: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
        use memtwin_engine::scenario::model::{Advice, OpKind, Pattern};
        let scn = self.resolve(variant, &sets).map_err(scenario_error)?;
        let out = PyDict::new(py);
        out.set_item("name", &scn.name)?;
        out.set_item("variant", &scn.variant)?;
        // the seed of the tasks' random numbers (types.rs Rng), which the QEMU guest draws alike
        out.set_item("seed", scn.seed)?;
        out.set_item("profile", scn.profile.name)?;
        out.set_item("cgroup", match scn.cgroup_version {
            memtwin_engine::memcontrol::CgroupVersion::V1 => "v1",
            memtwin_engine::memcontrol::CgroupVersion::V2 => "v2",
        })?;
        let pol = PyDict::new(py);
        pol.set_item("recharge_on_pagecache_get", scn.policies.recharge_on_pagecache_get)?;
        pol.set_item("memcg_percpu_release_on_offline", scn.policies.memcg_percpu_release_on_offline)?;
        pol.set_item("fadvise_directory", scn.policies.fadvise_directory)?;
        out.set_item("policies", pol)?;
        let m = PyDict::new(py);
        m.set_item("ram", scn.machine.ram)?;
        m.set_item("cpus", scn.machine.cpus)?;
        m.set_item("nodes", scn.machine.nodes)?;
        m.set_item("swap", scn.machine.swap)?;
        m.set_item("swap_file", scn.machine.swap_file)?;
        if let Some(z) = scn.machine.zswap {
            // /sys/module/zswap/parameters/* for the real runners.
            let zd = PyDict::new(py);
            zd.set_item("enabled", z.enabled)?;
            zd.set_item("compressor", "lzo")?;
            zd.set_item("zpool", if scn.profile.zswap_direct { "zsmalloc" } else { "zbud" })?;
            zd.set_item("max_pool_percent", z.max_pool_percent)?;
            zd.set_item("accept_threshold_percent", z.accept_threshold_percent)?;
            zd.set_item("same_filled_pages_enabled", z.same_filled_pages_enabled)?;
            zd.set_item("non_same_filled_pages_enabled", z.non_same_filled_pages_enabled)?;
            m.set_item("zswap", zd)?;
        }
        m.set_item("fs", &scn.machine.fs)?;
        m.set_item("fs_features", scn.machine.fs_features.clone())?;
        out.set_item("machine", m)?;
        out.set_item("thp", scn.thp)?;
        out.set_item("shmem_enabled", scn.shmem_enabled.unwrap_or_default().name())?;
        out.set_item("lru_gen", scn.profile.lru_gen)?;
        out.set_item("min_ttl_ms", scn.profile.lru_gen_min_ttl_ms)?;
        out.set_item("swappiness", scn.profile.swappiness)?;
        out.set_item("dirty_bytes", scn.profile.dirty_bytes)?;
        out.set_item("dirty_background_bytes", scn.profile.dirty_background_bytes)?;
        let devs = PyList::empty(py);
        for d in &scn.devices {
            let x = PyDict::new(py);
            x.set_item("name", &d.name)?;
            x.set_item("read_bw", d.read_bw)?;
            x.set_item("write_bw", d.write_bw)?;
            x.set_item("seek_ns", d.seek)?;
            x.set_item("segment_cost_ns", d.segment_cost)?;
            x.set_item("read_ahead_kb", d.read_ahead_kb)?;
            x.set_item("rotational", d.rotational)?;
            x.set_item("blk_throttle", d.blk_throttle)?;
            x.set_item("qemu_throttle", d.qemu_throttle)?;
            // The device's own queue (blkdev.rs HwQueue): with it and no blk_throttle, read_bw
            // and write_bw are the disk's own, and the host runner leaves it unthrottled.
            x.set_item("queue_depth", d.hw.as_ref().map(|h| h.queue_depth))?;
            // The queue the engine's device has (resolved: the era's default where the scenario
            // gives none); the host runner sets on its loop device the keys the scenario gives
            // (`queue_keys_given`, real.py `apply_queue`).
            x.set_item("scheduler", d.scheduler.name())?;
            x.set_item("max_sectors_kb", d.max_sectors_kb)?;
            x.set_item("driver_depth", d.driver_depth)?;
            x.set_item("wbt_lat_usec", d.wbt_lat_usec)?;
            x.set_item("queue_keys_given", d.queue_keys_given.clone())?;
            devs.append(x)?;
        }
        out.set_item("devices", devs)?;
        let cgs = PyList::empty(py);
        for c in &scn.cgroups {
            let x = PyDict::new(py);
            x.set_item("path", &c.path)?;
            x.set_item("max", c.max)?;
            x.set_item("high", c.high)?;
            x.set_item("low", c.low)?;
            x.set_item("min", c.min)?;
            x.set_item("swap_max", c.swap_max)?;
            x.set_item("memsw_max", c.memsw_max)?;
            x.set_item("swappiness", c.swappiness)?;
            x.set_item("zswap_max", c.zswap_max)?;
            x.set_item("zswap_writeback", c.zswap_writeback)?;
            cgs.append(x)?;
        }
        out.set_item("cgroups", cgs)?;
        let mounts = PyList::empty(py);
        for mt in &scn.mounts {
            let x = PyDict::new(py);
            x.set_item("path", &mt.path)?;
            x.set_item("fs", &mt.fs)?;
            x.set_item("device", mt.device)?;
            x.set_item("huge", mt.huge.unwrap_or_default().name())?;
            mounts.append(x)?;
        }
        out.set_item("mounts", mounts)?;
        let files = PyList::empty(py);
        for f in &scn.files {
            let x = PyDict::new(py);
            x.set_item("path", &f.path)?;
            x.set_item("size", f.size)?;
            x.set_item("device", f.device)?;
            x.set_item("uid", f.uid)?;
            x.set_item("mode", f.mode)?;
            x.set_item("created", f.created)?;
            files.append(x)?;
        }
        out.set_item("files", files)?;
        out.set_item("report_resident_pages", match scn.resident_pages {
            memtwin_engine::scenario::model::ResidentPagesReport::Step => "step",
            memtwin_engine::scenario::model::ResidentPagesReport::All => "all",
        })?;
        let fpath = |i: usize| scn.files[i].path.clone();
        let tasks = PyList::empty(py);
        for t in &scn.tasks {
            let x = PyDict::new(py);
            x.set_item("name", &t.name)?;
            x.set_item("cgroup", t.cgroup.map(|i| scn.cgroups[i].path.clone()))?;
            x.set_item("start_ns", t.start)?;
            x.set_item("step_gaps_ns", t.step_gaps.clone())?;
            x.set_item("uid", t.uid)?;
            x.set_item("node", t.node)?;
            let ops = PyList::empty(py);
            for o in &t.ops {
                let d = PyDict::new(py);
                d.set_item("step", &*o.step)?;
                match &o.kind {
                    OpKind::Read { file, offset, length, bufsize, pattern, fadvise, scan } => {
                        d.set_item("op", "read")?;
                        d.set_item("file", fpath(*file))?;
                        d.set_item("offset", offset)?;
                        d.set_item("length", length)?;
                        d.set_item("bufsize", bufsize)?;
                        match pattern {
                            Pattern::Sequential => d.set_item("pattern", "sequential")?,
                            Pattern::Random { count } => {
                                d.set_item("pattern", "random")?;
                                d.set_item("count", count)?;
                            }
                        }
                        d.set_item("fadvise", match fadvise {
                            Advice::Normal => "normal",
                            Advice::Sequential => "sequential",
                            Advice::Random => "random",
                        })?;
                        d.set_item("scan", scan)?;
                    }
                    OpKind::Write { file, offset, length, bufsize, fsync, create, truncate } => {
                        d.set_item("op", "write")?;
                        d.set_item("file", fpath(*file))?;
                        d.set_item("offset", offset)?;
                        d.set_item("length", length)?;
                        d.set_item("bufsize", bufsize)?;
                        d.set_item("fsync", fsync)?;
                        d.set_item("create", create)?;
                        d.set_item("truncate", truncate)?;
                    }
                    OpKind::Exec { program } => {
                        d.set_item("op", "exec")?;
                        d.set_item("program", program)?;
                    }
                    OpKind::Fadvise { path, files, directory, walk, advice, offset, length } => {
                        d.set_item("op", "fadvise")?;
                        d.set_item("path", path)?;
                        d.set_item("files", files.iter().map(|i| fpath(*i)).collect::<Vec<_>>())?;
                        d.set_item("directory", directory)?;
                        d.set_item("walk", walk)?;
                        d.set_item("advice", match advice {
                            memtwin_engine::fadvise::Advice::DontNeed => "dontneed",
                            memtwin_engine::fadvise::Advice::WillNeed => "willneed",
                        })?;
                        d.set_item("offset", offset)?;
                        d.set_item("length", length)?;
                    }
                    OpKind::Stat { file } => {
                        d.set_item("op", "stat")?;
                        d.set_item("file", fpath(*file))?;
                    }
                    OpKind::Fsync { file } => {
                        d.set_item("op", "fsync")?;
                        d.set_item("file", fpath(*file))?;
                    }
                    OpKind::Sleep { duration } => {
                        d.set_item("op", "sleep")?;
                        d.set_item("duration_ns", duration)?;
                    }
                    OpKind::Move { cgroup } => {
                        d.set_item("op", "move")?;
                        d.set_item("cgroup", cgroup)?;
                    }
                    OpKind::Mkdir { cgroup } => {
                        d.set_item("op", "mkdir")?;
                        d.set_item("cgroup", cgroup)?;
                    }
                    OpKind::Rmdir { cgroup } => {
                        d.set_item("op", "rmdir")?;
                        d.set_item("cgroup", cgroup)?;
                    }
                    OpKind::Mount { path, fs, mkdir } => {
                        d.set_item("op", "mount")?;
                        d.set_item("path", path)?;
                        d.set_item("fs", fs)?;
                        d.set_item("mkdir", mkdir)?;
                    }
                    OpKind::Mmap { name, size, file, fill } => {
                        d.set_item("op", "mmap")?;
                        d.set_item("name", name)?;
                        d.set_item("size", size)?;
                        if file.is_none() {
                            d.set_item("fill", fill.name())?;
                        }
                        if let Some(f) = file {
                            d.set_item("file", fpath(f.file))?;
                            d.set_item("offset", f.offset)?;
                            d.set_item("shared", f.shared)?;
                            d.set_item("exec", f.exec)?;
                            d.set_item("populate", f.populate)?;
                            d.set_item("advice", f.advice.name())?;
                        }
                    }
                    OpKind::Touch { name, access } => {
                        d.set_item("op", "touch")?;
                        d.set_item("name", name)?;
                        d.set_item("access", if access.write { "write" } else { "read" })?;
                        d.set_item("offset", access.offset)?;
                        d.set_item("length", access.length)?;
                        match access.pattern {
                            memtwin_engine::scenario::model::TouchPattern::Sequential => d.set_item("pattern", "sequential")?,
                            memtwin_engine::scenario::model::TouchPattern::Random { count } => {
                                d.set_item("pattern", "random")?;
                                d.set_item("count", count)?;
                            }
                            memtwin_engine::scenario::model::TouchPattern::Strided { stride } => {
                                d.set_item("pattern", "strided")?;
                                d.set_item("stride_pages", stride)?;
                            }
                        }
                    }
                    OpKind::Madvise { name, advice, offset, length } => {
                        d.set_item("op", "madvise")?;
                        d.set_item("name", name)?;
                        d.set_item("advice", advice.name())?;
                        d.set_item("offset", offset)?;
                        d.set_item("length", length)?;
                    }
                    OpKind::Msync { name } => {
                        d.set_item("op", "msync")?;
                        d.set_item("name", name)?;
                    }
                    OpKind::Mlock { name, lock } => {
                        d.set_item("op", if *lock { "mlock" } else { "munlock" })?;
                        d.set_item("name", name)?;
                    }
                    OpKind::Munmap { name } => {
                        d.set_item("op", "munmap")?;
                        d.set_item("name", name)?;
                    }
                    OpKind::MmapProbe { size, interval, while_task } => {
                        d.set_item("op", "mmap_probe")?;
                        d.set_item("size", size)?;
                        d.set_item("interval_ns", interval)?;
                        d.set_item("while_task", while_task)?;
                    }
                    OpKind::Trace { path, time_scale, loops, events, .. } => {
                        d.set_item("op", "trace")?;
                        d.set_item("trace", path)?;
                        d.set_item("time_scale", time_scale)?;
                        d.set_item("loops", loops)?;
                        d.set_item("events", events)?;
                    }
                    OpKind::Post { event } | OpKind::Wait { event } => {
                        d.set_item("op", if matches!(o.kind, OpKind::Post { .. }) { "post" } else { "wait" })?;
                        d.set_item("event", event)?;
                    }
                }
                ops.append(d)?;
            }
            x.set_item("ops", ops)?;
            tasks.append(x)?;
        }
        out.set_item("tasks", tasks)?;
        Ok(out)
    }

    /// Run the scenario; `progress(done, total)` is called now and then.
    /// `traces` maps each trace path (as the scenario names it) to the file to read (a str:
    /// read, decompressed and checked in a thread of the binding), or to an object whose
    /// `chunks()` yields the trace's raw chunks (memtwin.trace.Chunks).
    #[pyo3(signature = (variant=None, sets=Vec::new(), progress=None, traces=None))]
    fn run<'py>(&self, py: Python<'py>, variant: Option<&str>, sets: Vec<String>, progress: Option<Bound<'py, PyAny>>, traces: Option<Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyDict>> {
        let scn = std::rc::Rc::new(self.resolve(variant, &sets).map_err(scenario_error)?);
        let mut callback_error: Option<PyErr> = None;
        let mut cb = |done: u64, total: u64| -> bool {
            if let Err(e) = py.check_signals() {
                callback_error = Some(e);
                return false;
            }
            if let Some(p) = &progress {
                if let Err(e) = p.call1((done, total)) {
                    callback_error = Some(e);
                    return false;
                }
            }
            true
        };
        let mut sim = memtwin_engine::Simulation::with_scenario(scn.clone());
        let source_error = std::rc::Rc::new(std::cell::RefCell::new(None));
        for (ti, path) in sim.trace_tasks() {
            let mut factory = traces.as_ref().and_then(|t| t.get_item(&path).ok().flatten());
            if factory.is_none() {
                let files = self.trace_files.lock().expect("not poisoned");
                if let Some((_, file)) = files.iter().find(|(p, _)| *p == path) {
                    factory = Some(pyo3::types::PyString::new(py, file).into_any());
                }
            }
            if let Some(f) = factory {
                // A path: read in a thread of the binding (tracefile.rs); any other object:
                // its chunks() in Python.
                match f.extract::<String>() {
                    Ok(p) => sim.attach_trace(ti, Box::new(tracefile::FileChunks::new(p))),
                    Err(_) => sim.attach_trace(ti, Box::new(PyChunks { factory: f.unbind(), iter: None, error: source_error.clone() })),
                }
            }
        }
        let result = sim.run_traced(&mut cb);
        if let Some(e) = callback_error {
            return Err(e);
        }
        let r = match result {
            Ok(r) => r,
            Err(memtwin_engine::RunError::Interrupted) => return Err(PyKeyboardInterrupt::new_err("interrupted")),
            Err(memtwin_engine::RunError::Trace(m)) => {
                return Err(match source_error.borrow_mut().take() {
                    Some(e) => e,
                    None => TraceReplayError::new_err(m),
                })
            }
        };
        let out = PyDict::new(py);
        out.set_item("scenario", &r.scenario)?;
        out.set_item("variant", &r.variant)?;
        let info = PyDict::new(py);
        info.set_item("description", &scn.description)?;
        info.set_item("profile", scn.profile.name)?;
        info.set_item("cgroup", match scn.cgroup_version {
            memtwin_engine::memcontrol::CgroupVersion::V1 => "v1",
            memtwin_engine::memcontrol::CgroupVersion::V2 => "v2",
        })?;
        let pol = PyDict::new(py);
        pol.set_item("recharge_on_pagecache_get", scn.policies.recharge_on_pagecache_get)?;
        pol.set_item("memcg_percpu_release_on_offline", scn.policies.memcg_percpu_release_on_offline)?;
        pol.set_item("fadvise_directory", scn.policies.fadvise_directory)?;
        info.set_item("policies", pol)?;
        info.set_item("report_metrics", &scn.report_metrics)?;
        out.set_item("info", info)?;
        // The scenario's files and ops (the simulated machine went with `run_traced`) are given
        // back before the steps become Python objects: a ten-million-file run's peak is then
        // the larger of the two, not their sum.
        drop(scn);
        let steps = PyList::empty(py);
        for s in &r.steps {
            let d = PyDict::new(py);
            d.set_item("name", &s.name)?;
            d.set_item("task", &s.task)?;
            d.set_item("memcg", &s.memcg)?;
            d.set_item("metrics", pairs_to_dict(py, &s.metrics)?)?;
            if !s.samples.is_empty() {
                let ms: Vec<f64> = s.samples.iter().map(|&n| n as f64 / 1e6).collect();
                d.set_item("latency_samples_ms", ms)?;
            }
            let rp = PyDict::new(py);
            for (f, n) in &s.resident_pages {
                rp.set_item(&**f, n)?;
            }
            d.set_item("resident_pages", rp)?;
            d.set_item("pagecache", s.pagecache)?;
            steps.append(d)?;
        }
        out.set_item("steps", steps)?;
        out.set_item("totals", pairs_to_dict(py, &r.totals)?)?;
        let series = PyDict::new(py);
        series.set_item("columns", &r.series.columns)?;
        series.set_item("rows", &r.series.rows)?;
        out.set_item("series", series)?;
        let e = PyDict::new(py);
        e.set_item("page_events", r.engine.page_events)?;
        e.set_item("host_bytes", r.engine.host_bytes)?;
        let parts = PyDict::new(py);
        for (n, b) in &r.engine.host_bytes_parts {
            parts.set_item(*n, *b)?;
        }
        e.set_item("host_bytes_parts", parts)?;
        e.set_item("resident_pages", r.engine.resident_pages)?;
        e.set_item("virtual_time_s", r.engine.virtual_time_s)?;
        e.set_item("kswapd_s", r.engine.kswapd_s)?;
        e.set_item("kswapd_runq_s", r.engine.kswapd_runq_s)?;
        e.set_item("vmpressure_works", r.engine.vmpressure_works.to_vec())?;
        out.set_item("engine", e)?;
        out.set_item("errors", &r.errors)?;
        out.set_item("nr_errors", r.nr_errors)?;
        let tl = PyList::empty(py);
        for t in &r.traces {
            let d = PyDict::new(py);
            d.set_item("task", &t.task)?;
            d.set_item("trace", &t.path)?;
            d.set_item("events", t.events)?;
            d.set_item("loops", t.loops)?;
            let sk = PyDict::new(py);
            for (k, n) in &t.skipped {
                sk.set_item(*k, n)?;
            }
            d.set_item("skipped", sk)?;
            tl.append(d)?;
        }
        out.set_item("traces", tl)?;
        Ok(out)
    }
}

/// Every metric name a step reports.
#[pyfunction]
fn metric_names() -> Vec<String> {
    memtwin_engine::metrics::metric_names()
}

/// The metrics a step reports in addition under `kernel.lru_gen = true`.
#[pyfunction]
fn lru_gen_metric_names() -> Vec<String> {
    memtwin_engine::metrics::lru_gen_metric_names()
}

/// The metrics a step reports in addition with `[machine] background_runnable`.
#[pyfunction]
fn sched_metric_names() -> Vec<String> {
    memtwin_engine::metrics::sched_metric_names()
}

/// The metrics a step reports in addition on a profile with `reclaim_throttle()` (5.16+).
#[pyfunction]
fn vmscan_throttled_metric_names() -> Vec<String> {
    memtwin_engine::metrics::vmscan_throttled_metric_names()
}

/// The metrics a step reports in addition where the scenario names a tmpfs mount's `huge=`
/// or `[kernel] shmem_enabled` (tmpfs huge pages, shmem.rs); the last three
/// (`metrics::SHMEM_MTHP_METRICS`) only on profiles with 6.14+ tmpfs large folios.
#[pyfunction]
fn shmem_metric_names() -> Vec<String> {
    let mut v = memtwin_engine::metrics::shmem_metric_names();
    v.extend(memtwin_engine::metrics::SHMEM_MTHP_METRICS.iter().map(|s| s.to_string()));
    v
}

/// The latency metrics (`latency.*`, mmtests' stutter table) of a step's samples in
/// nanoseconds, as the engine computes them (`metrics::mmtests_latency`): the host runner's
/// probe rounds get the same arithmetic.
#[pyfunction]
fn latency_metrics(samples_ns: Vec<u64>) -> Vec<(String, f64)> {
    memtwin_engine::metrics::mmtests_latency(&samples_ns)
}

/// The kernel profiles: (name, description).
#[pyfunction]
fn profiles() -> Vec<(String, String)> {
    memtwin_engine::profile::profiles().into_iter().map(|p| (p.name.to_string(), p.description.to_string())).collect()
}

#[pymodule]
fn _memtwin(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("TraceReplayError", m.py().get_type::<TraceReplayError>())?;
    m.add_class::<Doc>()?;
    m.add_function(wrap_pyfunction!(load_toml, m)?)?;
    m.add_function(wrap_pyfunction!(load_dict, m)?)?;
    m.add_function(wrap_pyfunction!(metric_names, m)?)?;
    m.add_function(wrap_pyfunction!(lru_gen_metric_names, m)?)?;
    m.add_function(wrap_pyfunction!(sched_metric_names, m)?)?;
    m.add_function(wrap_pyfunction!(vmscan_throttled_metric_names, m)?)?;
    m.add_function(wrap_pyfunction!(shmem_metric_names, m)?)?;
    m.add_function(wrap_pyfunction!(latency_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(profiles, m)?)?;
    Ok(())
}
