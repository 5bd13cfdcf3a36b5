//! What the lint driver keeps of each file: the file itself while it is checked, then only
//! what the rules across files read of it ([`Summary`]), so that thousands of files are not
//! held in memory at once.

use std::path::PathBuf;

use serde_json::Value;

use super::rules::duplicates::Project;
use super::rules::grants::{Grant, grants_in};
use super::run::Entry;
use super::source::Source;
use crate::dialect::Dialect;

pub(in crate::lint) struct Loaded {
    /// Its input ([`Run::input`](super::run::Run::input)): an index, not the input itself, so that thousands of files
    /// are not held twice (the inputs given are kept where the caller has them).
    pub(in crate::lint) input: u32,
    /// The parse, only while the file is checked on its own (see [`read_and_check`](super::run::read_and_check)).
    pub(in crate::lint) source: Option<Box<Source>>,
    /// What the rules across files need of the parse, once it is dropped.
    pub(in crate::lint) summary: Option<Box<Summary>>,
    pub(in crate::lint) mode: u32,
    /// Findings are reported for this file (false: read only as context for another file).
    pub(in crate::lint) report: bool,
    /// Whether it holds a literal secret.
    pub(in crate::lint) secret: bool,
    /// What few files have (kept out of line: thousands of files are held at once).
    pub(in crate::lint) rare: Option<Box<Rare>>,
}

/// The parts of a [`Loaded`] file that most files do not have.
#[derive(Default)]
pub(in crate::lint) struct Rare {
    /// The path it was read from, when a symbolic link made it differ from `input.path`
    /// ([`Run::real`](super::run::Run::real); not a second copy of every path).
    pub(in crate::lint) resolved: Option<PathBuf>,
    /// The text of a file that did not parse (for the code frame of its error).
    pub(in crate::lint) text: Option<String>,
    /// Its canonical path, when worked out while checking it (for `drift`).
    pub(in crate::lint) canonical: Option<String>,
}

impl Rare {
    /// What a file read from `resolved` has of its own (`None`: read from its input's path).
    pub(in crate::lint) fn resolved(resolved: Option<PathBuf>) -> Option<Box<Rare>> {
        resolved.map(|r| {
            Box::new(Rare {
                resolved: Some(r),
                ..Rare::default()
            })
        })
    }
}

impl Loaded {
    /// The path it was read from, when a symbolic link made it differ from `input.path`.
    pub(in crate::lint) fn resolved(&self) -> Option<&std::path::Path> {
        self.rare.as_ref().and_then(|r| r.resolved.as_deref())
    }

    /// Its canonical path, when worked out while checking it (for `drift`).
    pub(in crate::lint) fn canonical(&self) -> Option<&String> {
        self.rare.as_ref().and_then(|r| r.canonical.as_ref())
    }

    /// The text of line `line` for a code frame; of a YAML file (`yaml`) masked with what
    /// encloses it ([`crate::redact::mask`]; the lines of a parsed file were kept masked).
    pub(in crate::lint) fn source_line(&self, line: usize, yaml: bool) -> Option<String> {
        self.summary
            .as_ref()
            .and_then(|s| s.line(line))
            .map(str::to_string)
            .or_else(|| {
                let t = self.rare.as_ref()?.text.as_deref()?;
                let masked;
                let t = if yaml {
                    masked = crate::redact::mask::mask(t, crate::redact::mask::Lang::Yaml);
                    masked.as_str()
                } else {
                    t
                };
                t.split('\n')
                    .nth(line.checked_sub(1)?)
                    .map(|l| l.trim_end_matches('\r').to_string())
            })
    }
}

/// What the rules across files read of a parsed file: kept instead of the parse, so that
/// thousands of files are not held in memory at once.
#[derive(Default)]
pub(in crate::lint) struct Summary {
    /// The lines findings may point at (for code frames): their numbers (sorted) and where
    /// each ends in `line_text`, which holds them one after another (a file is at most
    /// [`MAX_FILE`](crate::fsio::MAX_FILE) bytes, so both fit in 32 bits).
    pub(in crate::lint) lines: Box<[(u32, u32)]>,
    pub(in crate::lint) line_text: Box<str>,
    /// Whether the root's `includeMcpJson` is `false`.
    pub(in crate::lint) no_mcp_json: bool,
    /// What only the rules about Kiro read (`None` for other clients' files).
    pub(in crate::lint) kiro: Option<Box<KiroSummary>>,
    /// Where its project is, for `duplicate-server` (worked out here, on the thread that
    /// checked it, when it has entries; `None`: worked out when needed).
    pub(in crate::lint) project: Option<Project>,
}

/// What the rules about Kiro agents read of a file ([`Summary::kiro`]).
#[derive(Default)]
pub(in crate::lint) struct KiroSummary {
    /// The names in the root's `mcpServers`, when the root and it are objects.
    pub(in crate::lint) mcp_servers: Option<Vec<String>>,
    /// A Kiro agent's grants of a server (not built-in, no wildcard).
    pub(in crate::lint) grants: Vec<Grant>,
    /// The entries of the root's `mcpServers`, for a file read only as context.
    pub(in crate::lint) root_entries: Vec<Entry>,
}

impl Summary {
    /// The text kept of a line.
    pub(in crate::lint) fn line(&self, line: usize) -> Option<&str> {
        let line = u32::try_from(line).ok()?;
        let i = self.lines.binary_search_by_key(&line, |(n, _)| *n).ok()?;
        let start = i.checked_sub(1).map_or(0, |j| self.lines[j].1 as usize);
        self.line_text.get(start..self.lines.get(i)?.1 as usize)
    }

    /// The names in the root's `mcpServers` (Kiro's files only).
    pub(in crate::lint) fn mcp_servers(&self) -> Option<&[String]> {
        self.kiro.as_ref()?.mcp_servers.as_deref()
    }

    /// A Kiro agent's grants.
    pub(in crate::lint) fn grants(&self) -> &[Grant] {
        self.kiro.as_ref().map_or(&[], |k| &k.grants)
    }

    /// The entries of the root's `mcpServers` of a file read only as context.
    pub(in crate::lint) fn root_entries(&self) -> &[Entry] {
        self.kiro.as_ref().map_or(&[], |k| &k.root_entries)
    }
}

/// What the rules across files read of a parsed file, but its lines.
pub(in crate::lint) fn summary_of(src: &Source, d: &dyn Dialect) -> Summary {
    let root = src.root();
    // The servers a Kiro agent sees: its own and those of the Kiro settings files it includes
    // (`rules::grants`).
    let seen_by_agents = d.multi_file() || d.id() == "kiro";
    Summary {
        no_mcp_json: root.get("includeMcpJson") == Some(&Value::Bool(false)),
        kiro: seen_by_agents.then(|| {
            Box::new(KiroSummary {
                mcp_servers: root
                    .get("mcpServers")
                    .and_then(Value::as_object)
                    .map(|m| m.keys().cloned().collect()),
                grants: if d.multi_file() {
                    grants_in(src, d)
                } else {
                    Vec::new()
                },
                root_entries: Vec::new(),
            })
        }),
        ..Summary::default()
    }
}
