//! Scenario documents: TOML files (or dicts from Python) describing a machine, a kernel
//! profile, cgroups, files and tasks, with named variants that override any of it.
//!
//! The format is specified by `schema/scenario.schema.json` at the repository root. Errors
//! carry `file:line:column` and a one-line fix, and nothing runs while there is one.

pub mod build;
pub mod limits;
pub mod model;
pub mod units;
pub mod value;

pub use model::Scenario;
pub use value::{Loc, Node, ScenarioError, ScenarioErrors, Sources, Val};

/// A parsed scenario document and the sources its values came from.
#[derive(Clone, Debug)]
pub struct Document {
    /// Sources: the file or dict, then each `--set` argument.
    pub sources: Sources,
    /// The document tree.
    pub root: Node,
}

impl Document {
    /// Parse a TOML text; `name` is used in error locations (usually the file path).
    pub fn from_toml(name: &str, text: &str) -> Result<Document, ScenarioErrors> {
        let mut sources = Sources::default();
        let src = sources.add(name, text);
        let root = value::parse_toml(&sources, src)?;
        Ok(Document { sources, root })
    }

    /// A document built by the caller (the Python binding converts a dict); `name` names the
    /// source, and node locations should be [`Loc::Path`] with source 0.
    pub fn from_tree(name: &str, root: Node) -> Document {
        let mut sources = Sources::default();
        sources.add(name, "");
        Document { sources, root }
    }

    /// The declared variants: (name, description), in document order.
    pub fn variants(&self) -> Vec<(String, String)> {
        build::variants(&self.root)
    }

    /// Apply `variant` and `--set KEY=VALUE` overrides and check everything.
    pub fn resolve(&self, variant: Option<&str>, sets: &[String]) -> Result<Scenario, ScenarioErrors> {
        self.resolve_with_traces(variant, sets, &[])
    }

    /// The trace files the tasks name (`[tasks.NAME] trace = "FILE"`, variants' included):
    /// (task, path), for the caller to read their headers (the engine does no I/O).
    pub fn trace_paths(&self) -> Vec<(String, String)> {
        build::trace_paths(&self.root)
    }

    /// The start caches trace tasks name (`initial_cache = "FILE"`): (task, FILE as written).
    pub fn trace_start_caches(&self) -> Vec<(String, String)> {
        build::trace_start_caches(&self.root)
    }

    /// [`Document::resolve`] with the headers of the traces the tasks name.
    pub fn resolve_with_traces(&self, variant: Option<&str>, sets: &[String], traces: &[(String, model::TraceHeader)]) -> Result<Scenario, ScenarioErrors> {
        let mut sources = self.sources.clone();
        let mut set_nodes = vec![];
        let mut errors = vec![];
        for s in sets {
            match value::parse_set(&mut sources, s) {
                Ok(n) => set_nodes.push(n),
                Err(e) => errors.extend(e.0),
            }
        }
        if !errors.is_empty() {
            return Err(ScenarioErrors(errors));
        }
        build::build(&sources, &self.root, variant, &set_nodes, traces)
    }
}
