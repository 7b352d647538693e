//! A scenario document as a tree of values that remember where they came from: a line and
//! column in a TOML file, a key path in a Python dict, or a `--set` argument. Every error
//! the engine reports about a scenario points at one of these places.

use std::fmt;

/// Where a value came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Loc {
    /// Byte offset in source `src` (a TOML text).
    Text {
        /// Index into [`Sources`].
        src: usize,
        /// Byte offset.
        offset: usize,
    },
    /// A key path inside source `src` (a dict), e.g. `tasks.cat.ops[1].file`.
    Path {
        /// Index into [`Sources`].
        src: usize,
        /// Key path.
        path: String,
    },
}

/// A value with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub v: Val,
    /// Where it was written.
    pub loc: Loc,
}

/// A TOML-like value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// String.
    Str(String),
    /// Integer.
    Int(i64),
    /// Float.
    Float(f64),
    /// Boolean.
    Bool(bool),
    /// Array.
    Arr(Vec<Node>),
    /// Table: key, location of the key, value; in document order.
    Table(Vec<(String, Loc, Node)>),
    /// A TOML date-time (accepted by TOML, meaningless to memtwin).
    Datetime(String),
}

impl Val {
    /// A short name of the value's type for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Str(_) => "a string",
            Val::Int(_) => "an integer",
            Val::Float(_) => "a float",
            Val::Bool(_) => "a boolean",
            Val::Arr(_) => "an array",
            Val::Table(_) => "a table",
            Val::Datetime(_) => "a date-time",
        }
    }
}

/// The texts and names of everything a scenario was assembled from.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// (name, text); text is empty for dict sources.
    pub items: Vec<(String, String)>,
}

impl Sources {
    /// Add a source; returns its index.
    pub fn add(&mut self, name: &str, text: &str) -> usize {
        self.items.push((name.to_string(), text.to_string()));
        self.items.len() - 1
    }

    /// `name:line:col` for a location (1-based, columns in characters).
    pub fn describe(&self, loc: &Loc) -> String {
        match loc {
            Loc::Text { src, offset } => {
                let (name, text) = &self.items[*src];
                let (line, col) = line_col(text, *offset);
                format!("{name}:{line}:{col}")
            }
            Loc::Path { src, path } => {
                let name = &self.items[*src].0;
                if path.is_empty() {
                    name.clone()
                } else {
                    format!("{name}: at {path}")
                }
            }
        }
    }
}

/// 1-based line and column of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// One problem in a scenario: where, what, and how to fix it.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// `file:line:col` (or the dict path / `--set` argument).
    pub location: String,
    /// What is wrong.
    pub message: String,
    /// A one-line fix.
    pub fix: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}\n  fix: {}", self.location, self.message, self.fix)
    }
}

/// All problems found in a scenario; nothing runs while there is one.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

impl fmt::Display for ScenarioErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioErrors {}

/// Parse TOML `text` (source `src` of `sources`) into a located tree.
pub fn parse_toml(sources: &Sources, src: usize) -> Result<Node, ScenarioErrors> {
    let text = &sources.items[src].1;
    match toml::de::DeTable::parse(text) {
        Ok(t) => Ok(convert_table(t.get_ref(), t.span().start, src)),
        Err(e) => {
            let offset = e.span().map(|s| s.start).unwrap_or(0);
            let msg = e.message().trim().replace('\n', " ");
            if msg.starts_with("duplicate key") {
                if let Some((path, header, first)) = duplicate_key(text, offset) {
                    let first = first.map(|f| format!(" (first at {})", sources.describe(&Loc::Text { src, offset: f }))).unwrap_or_default();
                    let (message, fix) = if header {
                        (format!("duplicate key `{path}`: the table [{path}] is defined twice{first}"), format!("merge the two [{path}] tables into one, or rename one of them"))
                    } else {
                        (format!("duplicate key `{path}`: it is set twice{first}"), format!("keep one `{path}` and delete the other"))
                    };
                    return Err(ScenarioErrors(vec![ScenarioError { location: sources.describe(&Loc::Text { src, offset }), message, fix }]));
                }
            }
            Err(ScenarioErrors(vec![ScenarioError {
                location: sources.describe(&Loc::Text { src, offset }),
                message: format!("this is not valid TOML: {msg}"),
                fix: "correct the TOML syntax here (quote strings, one key per line, [table] headers)".into(),
            }]))
        }
    }
}

/// Split a TOML dotted key (`a."b.c" . d`) into its parts, unquoted.
fn key_parts(s: &str) -> Vec<String> {
    let mut parts = vec![];
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, '.') => parts.push(std::mem::take(&mut cur).trim().to_string()),
            (None, c) if c.is_whitespace() => {}
            (None, c) => cur.push(c),
        }
    }
    parts.push(cur.trim().to_string());
    parts
}

/// The full key path a line defines, given the table it is in: a `[table]` header's path, or
/// the table's path joined with a `key = value` line's dotted key. `None` for other lines.
fn line_defines(line: &str, table: &[String]) -> Option<(Vec<String>, bool)> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("[[") {
        return Some((key_parts(rest.split("]]").next()?), true));
    }
    if let Some(rest) = t.strip_prefix('[') {
        return Some((key_parts(rest.split(']').next()?), true));
    }
    if t.is_empty() || t.starts_with('#') {
        return None;
    }
    // The key ends at the first `=` outside quotes.
    let mut quote: Option<char> = None;
    for (i, c) in t.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '=') => {
                let mut path = table.to_vec();
                path.extend(key_parts(&t[..i]));
                return Some((path, false));
            }
            _ => {}
        }
    }
    None
}

/// For a "duplicate key" error at `offset`: the duplicated key path (`tasks.cat`), whether it
/// is a table header, and where it was first defined (byte offset of that line).
fn duplicate_key(text: &str, offset: usize) -> Option<(String, bool, Option<usize>)> {
    let mut table: Vec<String> = vec![];
    let mut seen: Vec<(Vec<String>, (usize, bool))> = vec![];
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let def = line_defines(line, &table);
        if offset < end || end == text.len() {
            let (path, header) = def?;
            // First defined by the same line, or implicitly by a dotted key below it.
            let first = seen.iter().find(|(p, h)| *p == path || (!h.1 && p.starts_with(&path))).map(|(_, h)| h.0);
            let shown: Vec<String> = path
                .iter()
                .map(|k| if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') { k.clone() } else { format!("\"{k}\"") })
                .collect();
            return Some((shown.join("."), header, first));
        }
        if let Some((path, header)) = def {
            if header {
                table = path.clone();
            }
            seen.push((path, (start + line.len() - line.trim_start().len(), header)));
        }
        start = end;
    }
    None
}

fn convert_table(t: &toml::de::DeTable<'_>, start: usize, src: usize) -> Node {
    let mut entries = Vec::with_capacity(t.len());
    for (k, v) in t.iter() {
        entries.push((k.get_ref().to_string(), Loc::Text { src, offset: k.span().start }, convert(v, src)));
    }
    Node { v: Val::Table(entries), loc: Loc::Text { src, offset: start } }
}

fn convert(v: &toml::Spanned<toml::de::DeValue<'_>>, src: usize) -> Node {
    use toml::de::DeValue;
    let loc = Loc::Text { src, offset: v.span().start };
    let val = match v.get_ref() {
        DeValue::String(s) => Val::Str(s.to_string()),
        DeValue::Integer(i) => match i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()) {
            Ok(n) => Val::Int(n),
            Err(_) => Val::Str(i.as_str().to_string()),
        },
        DeValue::Float(f) => Val::Float(f.as_str().replace('_', "").parse().unwrap_or(f64::NAN)),
        DeValue::Boolean(b) => Val::Bool(*b),
        DeValue::Datetime(d) => Val::Datetime(d.to_string()),
        DeValue::Array(a) => Val::Arr(a.iter().map(|x| convert(x, src)).collect()),
        DeValue::Table(t) => return convert_table(t, v.span().start, src),
    };
    Node { v: val, loc }
}

/// Overlay `over` on `base`: tables merge key by key, anything else is replaced.
pub fn merge(base: &mut Node, over: &Node) {
    match (&mut base.v, &over.v) {
        (Val::Table(b), Val::Table(o)) => {
            for (k, kloc, ov) in o {
                match b.iter_mut().find(|(bk, _, _)| bk == k) {
                    Some((_, _, bv)) => merge(bv, ov),
                    None => b.push((k.clone(), kloc.clone(), ov.clone())),
                }
            }
        }
        _ => *base = over.clone(),
    }
}

/// Parse one `--set KEY=VALUE` argument (source `src`, whose text is the argument) into a
/// table to merge. KEY is a TOML dotted key (`kernel.policies.recharge_on_pagecache_get`,
/// `cgroups.ct."memory.max"`); VALUE is a TOML value, or a bare string.
pub fn parse_set(sources: &mut Sources, arg: &str) -> Result<Node, ScenarioErrors> {
    let name = format!("--set '{arg}'");
    let bad = |sources: &Sources, src: usize, message: String| {
        Err(ScenarioErrors(vec![ScenarioError {
            location: sources.describe(&Loc::Path { src, path: String::new() }),
            message,
            fix: "write --set KEY=VALUE with a dotted key, e.g. --set kernel.policies.recharge_on_pagecache_get=true \
                  or --set 'cgroups.ct.\"memory.max\"=50M'"
                .into(),
        }]))
    };
    let Some((key, value)) = arg.split_once('=') else {
        let src = sources.add(&name, "");
        return bad(sources, src, "no `=` in the argument".into());
    };
    let key = key.trim();
    let value = value.trim();
    if key.is_empty() {
        let src = sources.add(&name, "");
        return bad(sources, src, "the key before `=` is empty".into());
    }
    let as_toml = format!("{key} = {value}");
    let quoted = format!("{key} = \"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""));
    for text in [as_toml, quoted] {
        if toml::de::DeTable::parse(&text).is_ok() {
            let src = sources.add(&name, &text);
            let node = parse_toml(sources, src)?;
            return Ok(relocate(node, src));
        }
    }
    let src = sources.add(&name, "");
    bad(sources, src, format!("`{key}` is not a valid dotted key"))
}

/// Give every node of a `--set` tree the argument itself as its location.
fn relocate(mut n: Node, src: usize) -> Node {
    n.loc = Loc::Path { src, path: String::new() };
    if let Val::Table(entries) = &mut n.v {
        for (_, kloc, v) in entries.iter_mut() {
            *kloc = Loc::Path { src, path: String::new() };
            *v = relocate(std::mem::replace(v, Node { v: Val::Bool(false), loc: kloc.clone() }), src);
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_is_one_based() {
        let t = "a = 1\nbb = 2\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, 11), (2, 6));
    }

    #[test]
    fn parse_keeps_locations() {
        let mut s = Sources::default();
        let src = s.add("x.toml", "[machine]\nram = \"1G\"\n");
        let n = parse_toml(&s, src).unwrap();
        let Val::Table(top) = &n.v else { panic!() };
        let Val::Table(m) = &top[0].2.v else { panic!() };
        assert_eq!(m[0].0, "ram");
        assert_eq!(s.describe(&m[0].1), "x.toml:2:1");
        assert_eq!(s.describe(&m[0].2.loc), "x.toml:2:7");
    }

    #[test]
    fn syntax_errors_have_a_location() {
        let mut s = Sources::default();
        let src = s.add("bad.toml", "[machine]\nram = \n");
        let e = parse_toml(&s, src).unwrap_err();
        assert!(e.0[0].location.starts_with("bad.toml:2:"), "{}", e);
    }

    #[test]
    fn duplicate_keys_are_named_with_both_places() {
        let mut s = Sources::default();
        let src = s.add("dup.toml", "[scenario]\nname = \"d\"\n[tasks.cat]\nops = []\n[tasks.cat]\nops = []\n");
        let e = parse_toml(&s, src).unwrap_err().to_string();
        assert!(e.starts_with("dup.toml:5:"), "{e}");
        assert!(e.contains("duplicate key `tasks.cat`") && e.contains("first at dup.toml:3:1"), "{e}");
        let src = s.add("dup2.toml", "[scenario]\nname = \"d\"\n  name = \"e\"\n");
        let e = parse_toml(&s, src).unwrap_err().to_string();
        assert!(e.contains("duplicate key `scenario.name`") && e.contains("first at dup2.toml:2:1"), "{e}");
        let src = s.add("dup3.toml", "[files]\n\"/f\".size = 1\n[files.\"/f\"]\nsize = 2\n");
        let e = parse_toml(&s, src).unwrap_err().to_string();
        assert!(e.contains("duplicate key `files.\"/f\"`") && e.contains("first at dup3.toml:2:1"), "{e}");
    }

    #[test]
    fn line_col_of_an_offset_inside_a_character() {
        assert_eq!(line_col("é", 1), (1, 1));
    }

    #[test]
    fn merge_overlays_tables() {
        let mut s = Sources::default();
        let a = s.add("a", "[k]\nx = 1\ny = 2\n");
        let b = s.add("b", "[k]\ny = 3\nz = 4\n");
        let mut base = parse_toml(&s, a).unwrap();
        merge(&mut base, &parse_toml(&s, b).unwrap());
        let Val::Table(top) = &base.v else { panic!() };
        let Val::Table(k) = &top[0].2.v else { panic!() };
        let vals: Vec<_> = k.iter().map(|(n, _, v)| (n.as_str(), v.v.clone())).collect();
        assert_eq!(vals, vec![("x", Val::Int(1)), ("y", Val::Int(3)), ("z", Val::Int(4))]);
    }

    #[test]
    fn set_accepts_toml_values_and_bare_strings() {
        let mut s = Sources::default();
        let n = parse_set(&mut s, "kernel.policies.recharge_on_pagecache_get=true").unwrap();
        let Val::Table(t) = &n.v else { panic!() };
        assert_eq!(t[0].0, "kernel");
        let n = parse_set(&mut s, "cgroups.ct.\"memory.max\"=50M").unwrap();
        let Val::Table(t) = &n.v else { panic!() };
        let Val::Table(t) = &t[0].2.v else { panic!() };
        let Val::Table(t) = &t[0].2.v else { panic!() };
        assert_eq!(t[0].0, "memory.max");
        assert_eq!(t[0].2.v, Val::Str("50M".into()));
        assert!(parse_set(&mut s, "novalue").is_err());
        assert!(parse_set(&mut s, "=3").is_err());
    }
}
