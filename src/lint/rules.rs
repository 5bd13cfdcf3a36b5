//! The rules. Each file is read once (through `fsio`), parsed in its client's syntax, and
//! checked entry by entry; then the rules that look across files run over the files one client
//! merges (`duplicate-server`), what a Kiro agent can see (`dangling-grant`), the ledgers
//! (`drift`) and the manifest's legacy shapes (`stale-legacy`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::discover::{Input, ctx};
use super::secrets;
use super::source::Source;
use super::{Finding, LintReport, Request, Severity};
use crate::dialect::{Ctx, Dialect};
use crate::document::ReadError;
use crate::engine::{self, MAX_FILE};
use crate::fsio;
use crate::ledger::{self, Kind, Ownership};
use crate::manifest::closest;
use crate::redact::Redactor;

/// Top-level fields of a Kiro agent file (Kiro rejects unknown ones).
const AGENT_FIELDS: &[&str] = &[
    "$schema",
    "name",
    "description",
    "prompt",
    "mcpServers",
    "tools",
    "toolAliases",
    "allowedTools",
    "excludedTools",
    "permissions",
    "toolsSettings",
    "resources",
    "hooks",
    "includeMcpJson",
    "includePowers",
    "useLegacyMcpJson",
    "model",
    "keyboardShortcut",
    "welcomeMessage",
];

/// Built-in names in `@…` grants that are not servers.
const BUILTIN_GRANTS: &[&str] = &["builtin", "mcp"];

/// Predefined variables of editors (`${workspaceFolder}`), not environment references.
const PREDEFINED: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "workspaceRoot",
    "userHome",
    "pathSeparator",
    "cwd",
    "file",
    "fileBasename",
    "fileDirname",
    "execPath",
];

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish", "cmd", "pwsh"];

struct Loaded {
    input: Input,
    real: PathBuf,
    /// The parse, only while the file is checked on its own (see [`read_and_check`]).
    source: Option<Source>,
    /// What the rules across files need of the parse, once it is dropped.
    summary: Option<Box<Summary>>,
    mode: u32,
    /// Findings are reported for this file (false: read only as context for another file).
    report: bool,
    /// Whether it holds a literal secret.
    secret: bool,
    /// The text of a file that did not parse (for the code frame of its error).
    text: Option<String>,
    /// Its canonical path, when worked out while checking it (for `drift`).
    canonical: Option<String>,
}

impl Loaded {
    fn source_line(&self, line: usize) -> Option<String> {
        self.summary
            .as_ref()
            .and_then(|s| s.lines.iter().find(|(n, _)| *n == line))
            .map(|(_, t)| t.clone())
            .or_else(|| {
                let t = self.text.as_deref()?;
                t.split('\n')
                    .nth(line.checked_sub(1)?)
                    .map(|l| l.trim_end_matches('\r').to_string())
            })
    }
}

/// What the rules across files read of a parsed file: kept instead of the parse, so that
/// thousands of files are not held in memory at once.
#[derive(Default)]
struct Summary {
    /// The text of the lines findings point at (for code frames), by line number.
    lines: Vec<(usize, String)>,
    /// The names in the root's `mcpServers`, when the root and it are objects.
    mcp_servers: Option<Vec<String>>,
    /// Whether the root's `includeMcpJson` is `false`.
    no_mcp_json: bool,
    /// A Kiro agent's grants of a server (not built-in, no wildcard).
    grants: Vec<Grant>,
    /// The entries of the root's `mcpServers`, for a file read only as context.
    root_entries: Vec<Entry>,
}

/// A grant in a Kiro agent file that names a server.
#[derive(Clone)]
struct Grant {
    /// Where it is: its array, or `toolAliases` and the alias.
    path: Vec<String>,
    grant: String,
    /// The server it names.
    server: String,
    /// Line and column.
    at: (usize, usize),
}

struct Raw {
    rule: &'static str,
    file: usize,
    line: usize,
    column: usize,
    message: String,
}

struct Run<'a> {
    req: &'a Request,
    ctx: &'a Ctx,
    files: Vec<Loaded>,
    /// Index of `files` by resolved path.
    by_real: std::collections::HashMap<PathBuf, usize>,
    raw: Vec<Raw>,
    /// Values recognised as credentials.
    secrets: Redactor,
    /// Those plus every value under a credential-like name (for code frames).
    wide: Redactor,
    /// Every entry found in a servers container, in file order.
    entries: Vec<Entry>,
    /// `drift` findings, reported when their file is the one the ledgers' path names.
    drift: Vec<Raw>,
}

/// An entry found in a servers container, with what `duplicate-server` needs of it.
#[derive(Clone)]
struct Entry {
    file: usize,
    /// The second step of a three-step path (a Claude Code project's key).
    project: Option<String>,
    name: String,
    /// The server it starts ([`fingerprint`]).
    fingerprint: Option<String>,
    /// Line and column of its key.
    at: (usize, usize),
}

impl Entry {
    fn new(file: usize, src: &Source, path: &[String], name: &str) -> Entry {
        Entry {
            file,
            project: (path.len() == 3).then(|| path[1].clone()),
            name: name.to_string(),
            fingerprint: src.get(path).and_then(fingerprint),
            at: src.locate(path),
        }
    }
}

/// The ledgers' entry records by file, in owner then record order (for `drift`).
type Ledgers = BTreeMap<String, Vec<(String, ledger::Record)>>;

pub(crate) fn run(req: &Request, inputs: Vec<Input>) -> LintReport {
    let ctx = ctx(req);
    let ledgers = ledgers(req);
    let mut r = Run {
        req,
        ctx: &ctx,
        files: Vec::new(),
        by_real: std::collections::HashMap::new(),
        raw: Vec::new(),
        secrets: Redactor::default(),
        wide: Redactor::default(),
        entries: Vec::new(),
        drift: Vec::new(),
    };
    r.files.reserve(inputs.len());
    r.by_real.reserve(inputs.len());
    let outcomes = parallel(inputs, |input| read_and_check(req, &ctx, &ledgers, input));
    for (input, outcome) in outcomes {
        r.admit(input, outcome, true);
    }
    for i in 0..r.files.len() {
        if r.files[i].secret && r.files[i].mode & 0o044 != 0 {
            let mode = r.files[i].mode;
            let shown = r.files[i].input.shown.clone();
            r.push(
                "secret-file-mode",
                i,
                (1, 1),
                format!(
                    "this file holds a literal secret and its mode is {mode:04o}, so {} can read it; run `chmod 600 {shown}` (and move the secret to the environment)",
                    if mode & 0o007 != 0 {
                        "every user on the machine"
                    } else {
                        "its group"
                    }
                ),
            );
        }
    }
    r.agents();
    r.duplicates();
    r.drift(!ledgers.is_empty());
    r.finish()
}

/// The entry records of the ledgers `drift` checks, by file (none without a state directory).
fn ledgers(req: &Request) -> Ledgers {
    let mut out = Ledgers::new();
    let Some(state) = req.state_dir.as_deref() else {
        return out;
    };
    let owners = if req.owners.is_empty() {
        fsio::glob(&state.join("ledger").join("*.json"))
            .unwrap_or_default()
            .iter()
            .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect()
    } else {
        req.owners.clone()
    };
    for owner in owners {
        let Ok((ledger, _)) = engine::load_ledger(state, &owner) else {
            continue;
        };
        for rec in ledger.records {
            if rec.kind == Kind::Entry {
                out.entry(rec.file.clone())
                    .or_default()
                    .push((owner.clone(), rec));
            }
        }
    }
    out
}

/// What checking a file on its own gave: its summary and findings, the credentials it holds
/// and its entries (all with file index 0).
struct Checked {
    summary: Box<Summary>,
    secret: bool,
    canonical: Option<String>,
    raw: Vec<Raw>,
    drift: Vec<Raw>,
    secrets: Redactor,
    wide: Redactor,
    entries: Vec<Entry>,
}

/// Read and parse a file, run the rules that need only it, and keep a [`Summary`] for the
/// rules across files; the parse is dropped here, in the reading thread.
fn read_and_check(
    req: &Request,
    ctx: &Ctx,
    ledgers: &Ledgers,
    input: Input,
) -> (Input, Outcome<Box<Checked>>) {
    let (real, mode, src) = match read_one(&input) {
        Outcome::Missing => return (input, Outcome::Missing),
        Outcome::Unreadable(p, m) => return (input, Outcome::Unreadable(p, m)),
        Outcome::Read {
            real,
            mode,
            parsed: Err(e),
        } => {
            return (
                input,
                Outcome::Read {
                    real,
                    mode,
                    parsed: Err(e),
                },
            );
        }
        Outcome::Read {
            real,
            mode,
            parsed: Ok(src),
        } => (real, mode, src),
    };
    let mut sub = Run {
        req,
        ctx,
        files: Vec::with_capacity(1),
        by_real: Default::default(),
        raw: Vec::new(),
        secrets: Redactor::default(),
        wide: Redactor::default(),
        entries: Vec::new(),
        drift: Vec::new(),
    };
    sub.files.push(Loaded {
        input,
        real,
        source: Some(src),
        summary: None,
        mode,
        report: true,
        secret: false,
        text: None,
        canonical: None,
    });
    let mut entries = Vec::new();
    sub.check_file(0, &mut entries);
    let canonical = (!ledgers.is_empty()).then(|| sub.drift_in(0, ledgers));
    let Some(mut f) = sub.files.pop() else {
        unreachable!("the file checked is there")
    };
    let src = f.source.take();
    let mut summary = src
        .as_ref()
        .map(|s| summary_of(s, f.input.client))
        .unwrap_or_default();
    if let Some(s) = &src {
        let lines = std::iter::once(1)
            .chain(sub.raw.iter().chain(&sub.drift).map(|r| r.line))
            .chain(entries.iter().map(|e: &Entry| e.at.0))
            .chain(summary.grants.iter().map(|g| g.at.0));
        for line in lines {
            if !summary.lines.iter().any(|(n, _)| *n == line)
                && let Some(t) = s.line_text(line)
            {
                summary.lines.push((line, t));
            }
        }
    }
    drop(src);
    let checked = Box::new(Checked {
        summary: Box::new(summary),
        secret: f.secret,
        canonical,
        raw: sub.raw,
        drift: sub.drift,
        secrets: sub.secrets,
        wide: sub.wide,
        entries,
    });
    (
        f.input,
        Outcome::Read {
            real: f.real,
            mode: f.mode,
            parsed: Ok(checked),
        },
    )
}

/// What the rules across files read of a parsed file, but its lines.
fn summary_of(src: &Source, d: &dyn Dialect) -> Summary {
    let root = src.root();
    let mut s = Summary {
        mcp_servers: root
            .get("mcpServers")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect()),
        no_mcp_json: root.get("includeMcpJson") == Some(&Value::Bool(false)),
        ..Summary::default()
    };
    if d.multi_file() {
        let mut found: Vec<(Vec<String>, String, bool)> = Vec::new();
        for array in d.grant_arrays() {
            if let Some(Value::Array(a)) = root.get(*array) {
                for v in a.iter().filter_map(Value::as_str) {
                    found.push((vec![array.to_string()], v.to_string(), true));
                }
            }
        }
        if let Some(Value::Object(m)) = root.get("toolAliases") {
            for k in m.keys() {
                found.push((vec!["toolAliases".into(), k.clone()], k.clone(), false));
            }
        }
        for (path, grant, element) in found {
            let Some(body) = grant.strip_prefix('@') else {
                continue;
            };
            let server = body.split('/').next().unwrap_or("");
            if server.is_empty() || BUILTIN_GRANTS.contains(&server) || server.contains(['*', '?'])
            {
                continue;
            }
            let server = server.to_string();
            let at = if element {
                src.locate_element(&path, &grant)
            } else {
                src.locate(&path)
            };
            s.grants.push(Grant {
                path,
                grant,
                server,
                at,
            });
        }
    }
    s
}

use crate::document::kind_of;

fn dotted(path: &[String]) -> String {
    path.join(".")
}

impl Run<'_> {
    fn push(&mut self, rule: &'static str, file: usize, at: (usize, usize), message: String) {
        self.raw.push(Raw {
            rule,
            file,
            line: at.0,
            column: at.1,
            message,
        });
    }

    /// Read and parse a file as context for another (no rules of its own); returns its index,
    /// or `None` when it does not exist.
    fn load(&mut self, input: Input, report: bool) -> Option<usize> {
        let outcome = match read_one(&input) {
            Outcome::Missing => Outcome::Missing,
            Outcome::Unreadable(p, m) => Outcome::Unreadable(p, m),
            Outcome::Read { real, mode, parsed } => Outcome::Read {
                real,
                mode,
                parsed: parsed.map(|src| {
                    let mut summary = summary_of(&src, input.client);
                    if let Some(Value::Object(m)) = src.get(&["mcpServers".to_string()]) {
                        for name in m.keys() {
                            let path = ["mcpServers".to_string(), name.clone()];
                            summary.root_entries.push(Entry::new(0, &src, &path, name));
                        }
                    }
                    Box::new(Checked {
                        summary: Box::new(summary),
                        secret: false,
                        canonical: None,
                        raw: Vec::new(),
                        drift: Vec::new(),
                        secrets: Redactor::default(),
                        wide: Redactor::default(),
                        entries: Vec::new(),
                    })
                }),
            },
        };
        self.admit(input, outcome, report)
    }

    /// Record what reading (and checking) a file gave.
    fn admit(
        &mut self,
        input: Input,
        outcome: Outcome<Box<Checked>>,
        report: bool,
    ) -> Option<usize> {
        let real = match &outcome {
            Outcome::Missing => return None,
            Outcome::Unreadable(real, _) | Outcome::Read { real, .. } => real.clone(),
        };
        if let Some(&i) = self.by_real.get(&real) {
            if report && !self.files[i].report {
                self.files[i].report = true;
                self.files[i].input = input;
            }
            return Some(i);
        }
        let d = input.client;
        match outcome {
            Outcome::Missing => None,
            Outcome::Unreadable(real, message) => {
                let i = self.add(input, real, 0, report);
                self.push("unreadable", i, (1, 1), message);
                Some(i)
            }
            Outcome::Read {
                real,
                mode,
                parsed: Ok(c),
            } => {
                let i = self.add(input, real, mode, report);
                let f = &mut self.files[i];
                let c = *c;
                f.summary = Some(c.summary);
                f.secret = c.secret;
                f.canonical = c.canonical;
                for s in &mut f.summary.iter_mut().flat_map(|s| &mut s.root_entries) {
                    s.file = i;
                }
                let at = |mut r: Raw| {
                    r.file = i;
                    r
                };
                self.raw.extend(c.raw.into_iter().map(at));
                self.drift.extend(c.drift.into_iter().map(at));
                self.secrets.merge(&c.secrets);
                self.wide.merge(&c.wide);
                self.entries.extend(c.entries.into_iter().map(|mut e| {
                    e.file = i;
                    e
                }));
                Some(i)
            }
            Outcome::Read {
                real,
                mode,
                parsed: Err((e, text)),
            } => {
                let i = self.add(input, real, mode, report);
                self.files[i].text = text;
                let (rule, message) = read_error(d, &e);
                self.push(rule, i, (e.line, e.column), message);
                Some(i)
            }
        }
    }

    fn add(&mut self, input: Input, real: PathBuf, mode: u32, report: bool) -> usize {
        self.by_real.entry(real.clone()).or_insert(self.files.len());
        self.files.push(Loaded {
            input,
            real,
            source: None,
            summary: None,
            mode,
            report,
            secret: false,
            text: None,
            canonical: None,
        });
        self.files.len() - 1
    }

    fn src(&self, file: usize) -> Option<&Source> {
        self.files.get(file).and_then(|f| f.source.as_ref())
    }

    /// The servers containers of a file (Claude Code's `~/.claude.json`: the user container and
    /// every project's local one).
    fn containers(&self, file: usize) -> Vec<Vec<String>> {
        let f = &self.files[file];
        let d = f.input.client;
        let mut out: Vec<Vec<String>> = Vec::new();
        for scope in &f.input.scopes {
            if d.id() == "claude-code" && *scope == "local" {
                let key = d.container("user", self.ctx).pop().unwrap_or_default();
                if let Some(Value::Object(projects)) = f
                    .source
                    .as_ref()
                    .and_then(|s| s.get(&["projects".to_string()]))
                {
                    for (p, v) in projects {
                        if v.get(&key).is_some() {
                            out.push(vec!["projects".into(), p.clone(), key.clone()]);
                        }
                    }
                }
                continue;
            }
            let c = d.container(scope, self.ctx);
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    fn check_file(&mut self, file: usize, entries: &mut Vec<Entry>) {
        let d = self.files[file].input.client;
        if d.multi_file() {
            self.agent_fields(file);
        }
        for container in self.containers(file) {
            let Some(src) = self.src(file) else { return };
            // Every step on the way must be an object.
            let mut bad = None;
            for n in 1..=container.len() {
                match src.get(&container[..n]) {
                    None => break,
                    Some(Value::Object(_)) => {}
                    Some(other) => {
                        bad = Some((n, kind_of(other)));
                        break;
                    }
                }
            }
            if let Some((n, kind)) = bad {
                let at = src.locate(&container[..n]);
                let key = dotted(&container[..n]);
                self.push(
                    "not-an-object",
                    file,
                    at,
                    format!(
                        "`{key}` is {kind}, but {} reads servers from an object keyed by server name (`\"{}\": {{\"name\": {{…}}}}`); make it an object",
                        d.id(),
                        container.last().cloned().unwrap_or_default()
                    ),
                );
                continue;
            }
            let Some(Value::Object(servers)) = src.get(&container) else {
                continue;
            };
            let names: Vec<String> = servers.keys().cloned().collect();
            for name in names {
                let mut path = container.clone();
                path.push(name.clone());
                self.check_entry(file, &path, &name);
                if let Some(src) = self.src(file) {
                    entries.push(Entry::new(file, src, &path, &name));
                }
            }
        }
    }

    fn agent_fields(&mut self, file: usize) {
        let Some(Value::Object(root)) = self.src(file).map(Source::root) else {
            return;
        };
        let unknown: Vec<String> = root
            .keys()
            .filter(|k| !AGENT_FIELDS.contains(&k.as_str()))
            .cloned()
            .collect();
        for k in unknown {
            let at = self
                .src(file)
                .map_or((1, 1), |s| s.locate(std::slice::from_ref(&k)));
            let hint = suggest(&k, AGENT_FIELDS);
            self.push(
                "unknown-field",
                file,
                at,
                format!(
                    "unknown field `{k}` in this Kiro agent file: Kiro rejects or ignores it, so what it was meant to set does not apply; {hint}"
                ),
            );
        }
    }

    fn check_entry(&mut self, file: usize, path: &[String], name: &str) {
        let d = self.files[file].input.client;
        let Some(src) = self.src(file) else { return };
        let Some(value) = src.get(path) else { return };
        let Value::Object(entry) = value else {
            let at = src.locate(path);
            let kind = kind_of(value);
            self.push(
                "not-an-object",
                file,
                at,
                format!(
                    "server `{name}` is {kind}, but {} expects an object such as `{{\"command\": …}}` or `{{\"url\": …}}`; make it an object or remove it",
                    d.id()
                ),
            );
            return;
        };
        let whole = Value::Object(entry.clone());
        let Value::Object(entry) = &whole else { return };
        self.wide.scan(&whole);
        // unknown-field
        let known = d.known_fields();
        if !known.is_empty() {
            for k in entry.keys() {
                if known.contains(&k.as_str()) {
                    continue;
                }
                let mut p = path.to_vec();
                p.push(k.clone());
                let at = self.src(file).map_or((1, 1), |s| s.locate(&p));
                let hint = suggest(k, known);
                self.push(
                    "unknown-field",
                    file,
                    at,
                    format!(
                        "unknown field `{k}` in server `{name}`: {} does not read it, so it has no effect; {hint}",
                        d.id()
                    ),
                );
            }
        }
        // literal-secret
        let mut strings = Vec::new();
        walk_strings(&whole, &mut Vec::new(), &mut strings);
        for (rel, key, s, element) in &strings {
            let Some(what) = secrets::classify(key, s) else {
                continue;
            };
            self.secrets.add(s);
            self.wide.add(s);
            self.files[file].secret = true;
            let mut p = path.to_vec();
            p.extend(rel.iter().cloned());
            let at = match (element, self.src(file)) {
                (true, Some(src)) => src.locate_element(&p, s),
                (false, Some(src)) => src.locate(&p),
                _ => (1, 1),
            };
            let field = dotted(rel);
            let fix = secret_fix(d, rel);
            self.push(
                "literal-secret",
                file,
                at,
                format!(
                    "`{field}` of server `{name}` holds {what} written literally (the value is not shown); {fix}"
                ),
            );
        }
        // placeholder-syntax
        let shell = entry
            .get("command")
            .and_then(Value::as_str)
            .map(|c| c.rsplit('/').next().unwrap_or(c))
            .is_some_and(|c| SHELLS.contains(&c));
        let ex = expands(d);
        for (rel, _, s, element) in &strings {
            let Some(top) = rel.first().map(String::as_str) else {
                continue;
            };
            let place = match top {
                "env" | "environment" | "headers" | "http_headers" => Place::EnvOrHeader,
                "command" | "args" | "url" | "serverUrl" | "httpUrl" | "cwd" => Place::Other,
                _ => continue,
            };
            for (kind, tok, var) in references(s) {
                if kind == RefKind::Bare && (shell || place == Place::Other && top != "url") {
                    // `$VAR` in a shell's arguments is the shell's business, and elsewhere in
                    // a command line too often not meant as a reference.
                    continue;
                }
                let Some(why) = ex.problem(d, kind, place) else {
                    continue;
                };
                let mut p = path.to_vec();
                p.extend(rel.iter().cloned());
                let at = match (element, self.src(file)) {
                    (true, Some(src)) => src.locate_element(&p, s),
                    (false, Some(src)) => src.locate(&p),
                    _ => (1, 1),
                };
                let field = dotted(rel);
                let fix = ex.fix(d, &var, place);
                self.push(
                    "placeholder-syntax",
                    file,
                    at,
                    format!("`{tok}` in `{field}` of server `{name}`: {why}; {fix}"),
                );
            }
        }
        // stale-legacy
        let legacy: Vec<String> = self
            .req
            .legacy
            .iter()
            .filter(|(_, l)| l.name == name && l.entry == whole)
            .map(|(owner, _)| owner.clone())
            .collect();
        for owner in legacy {
            let at = self.src(file).map_or((1, 1), |s| s.locate(path));
            self.push(
                "stale-legacy",
                file,
                at,
                format!(
                    "server `{name}` is exactly the old shape owner `{owner}` wrote before it used mcpconf (the manifest's `[[legacy]]`), still here beside its current entries, so the same tools may be exposed twice; run `mcpconf apply` to remove it"
                ),
            );
        }
    }

    /// Kiro agents: load the `mcp.json` files each agent sees, and check its grants.
    fn agents(&mut self) {
        let agents: Vec<usize> = (0..self.files.len())
            .filter(|&i| self.files[i].input.client.multi_file() && self.files[i].report)
            .collect();
        for a in agents {
            let Some(summary) = self.files[a].summary.as_ref() else {
                continue;
            };
            let include = !summary.no_mcp_json;
            let mut visible: BTreeSet<String> =
                summary.mcp_servers.iter().flatten().cloned().collect();
            let mut complete = true;
            if include {
                for path in self.kiro_settings_for(a) {
                    let Some(kiro) = crate::dialect::lookup("kiro") else {
                        continue;
                    };
                    let input = Input {
                        shown: path.display().to_string(),
                        path: path.clone(),
                        client: kiro,
                        scopes: vec!["project"],
                    };
                    let Some(i) = self.load(input, false) else {
                        continue;
                    };
                    match self.files[i].summary.as_ref() {
                        Some(s) => {
                            if let Some(m) = &s.mcp_servers {
                                visible.extend(m.iter().cloned());
                                if !self.files[i].report {
                                    self.entries.extend(s.root_entries.iter().cloned());
                                }
                            }
                        }
                        None => complete = false,
                    }
                }
            }
            if complete {
                self.grants(a, &visible, include);
            }
        }
    }

    /// The Kiro settings files an agent file sees: its workspace's and the user's.
    fn kiro_settings_for(&self, agent: usize) -> Vec<PathBuf> {
        let p = &self.files[agent].input.path;
        let workspace = p
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        let home = &self.req.home;
        let ws = match workspace {
            Some(w) if &w != home => w,
            _ => self.req.root.clone(),
        };
        let mut out = vec![
            ws.join(".kiro/settings/mcp.json"),
            home.join(".kiro/settings/mcp.json"),
        ];
        out.dedup();
        out
    }

    fn grants(&mut self, agent: usize, visible: &BTreeSet<String>, include: bool) {
        let dangling: Vec<Grant> = self.files[agent]
            .summary
            .iter()
            .flat_map(|s| &s.grants)
            .filter(|g| !visible.contains(&g.server))
            .cloned()
            .collect();
        for Grant {
            path,
            grant,
            server,
            at,
        } in dangling
        {
            let hint = match closest(&server, visible.iter().map(String::as_str)) {
                Some(c) => format!("did you mean `@{c}`?"),
                None => "define the server or remove the grant".to_string(),
            };
            let seen = if include {
                "its own `mcpServers`, the workspace's and the user's `.kiro/settings/mcp.json`"
            } else {
                "its own `mcpServers` (`includeMcpJson` is false)"
            };
            self.push(
                "dangling-grant",
                agent,
                at,
                format!(
                    "grant `{grant}` in `{}` names server `{server}`, which this agent cannot see ({seen}); {hint}",
                    path[0]
                ),
            );
        }
    }

    /// The project directory of a project-scope file, or `None` for a user file.
    fn project_of(&self, file: usize) -> Option<String> {
        let f = &self.files[file];
        let d = f.input.client;
        let mut project = None;
        for scope in d.scopes() {
            if scope.path.is_empty() {
                continue;
            }
            if scope.base == crate::dialect::Base::Home
                && d.path(scope, None, self.ctx) == f.input.path
            {
                return None;
            }
            if scope.base == crate::dialect::Base::Root && project.is_none() {
                let n = scope
                    .default_path()
                    .split('/')
                    .filter(|s| !s.is_empty())
                    .count();
                let mut dir = f.input.path.as_path();
                for _ in 0..n {
                    dir = dir.parent().unwrap_or(dir);
                }
                project = Some(dir.display().to_string());
            }
        }
        Some(project.unwrap_or_else(|| f.input.path.display().to_string()))
    }

    /// Entries that start the same server within the files one client merges.
    fn duplicates(&mut self) {
        let entries = &std::mem::take(&mut self.entries);
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let root_key = self.req.root.display().to_string();
        let mut claude_keys: BTreeSet<String> = BTreeSet::from([root_key.clone()]);
        for e in entries {
            if self.files[e.file].input.client.id() == "claude-code"
                && let Some(p) = &e.project
            {
                claude_keys.insert(p.clone());
            }
        }
        let mut project: BTreeMap<usize, Option<String>> = BTreeMap::new();
        for e in entries {
            project
                .entry(e.file)
                .or_insert_with(|| self.project_of(e.file));
        }
        let projects: BTreeSet<(String, String)> = project
            .iter()
            .filter_map(|(&f, p)| {
                let id = self.files[f].input.client.id().to_string();
                p.clone().map(|p| (id, p))
            })
            .collect();
        // Kiro agents' own groups: the settings files first, so a duplicate lands in the agent.
        let agent_files: Vec<usize> = (0..self.files.len())
            .filter(|&i| self.files[i].input.client.multi_file())
            .collect();
        for (idx, e) in entries.iter().enumerate() {
            let f = &self.files[e.file];
            let id = f.input.client.id();
            let mut keys = Vec::new();
            match id {
                "claude-code" => {
                    if let Some(p) = &e.project {
                        keys.push(format!("claude-code:{p}"));
                    } else if f.input.scopes.contains(&"user") {
                        keys.extend(claude_keys.iter().map(|k| format!("claude-code:{k}")));
                    } else {
                        let dir = f
                            .input
                            .path
                            .parent()
                            .map(|p| p.display().to_string())
                            .unwrap_or_default();
                        keys.push(format!("claude-code:{dir}"));
                    }
                }
                "json" => keys.push(format!("json:{}", e.file)),
                "kiro-agent" => keys.push(format!("kiro-agent:{}", e.file)),
                other => {
                    // A user file merges with every project's file of the client; a project
                    // file only with the user's.
                    match project.get(&e.file).cloned().flatten() {
                        Some(p) => keys.push(format!("{other}:{p}")),
                        None => {
                            keys.extend(
                                projects
                                    .iter()
                                    .filter(|(c, _)| c == other)
                                    .map(|(c, p)| format!("{c}:{p}")),
                            );
                            keys.push(format!("{other}:{root_key}"));
                        }
                    }
                    for &a in &agent_files {
                        if other == "kiro"
                            && self.files[a].report
                            && self.kiro_settings_for(a).contains(&f.input.path)
                            && !self.files[a]
                                .summary
                                .as_ref()
                                .is_some_and(|s| s.no_mcp_json)
                        {
                            keys.push(format!("kiro-agent:{a}"));
                        }
                    }
                }
            }
            for k in keys {
                groups.entry(k).or_default().push(idx);
            }
        }
        let mut seen = BTreeSet::new();
        for (key, mut members) in groups {
            if key.starts_with("kiro-agent:") {
                // Settings files first.
                members.sort_by_key(|&i| {
                    (
                        self.files[entries[i].file].input.client.id() == "kiro-agent",
                        i,
                    )
                });
            }
            let mut firsts: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for &i in &members {
                let e = &entries[i];
                let Some(fp) = e.fingerprint.clone() else {
                    continue;
                };
                let same = firsts.entry(fp.clone()).or_default();
                let earlier = same.iter().copied().find(|&j| entries[j].name != e.name);
                same.push(i);
                let Some(j) = earlier else { continue };
                if !seen.insert((i, j)) {
                    continue;
                }
                let other = &entries[j];
                let at = e.at;
                let (ol, oc) = other.at;
                let where_ = if other.file == e.file {
                    format!("line {ol}")
                } else {
                    format!("{}:{ol}:{oc}", self.files[other.file].input.shown)
                };
                let what = if fp.starts_with("url ") {
                    "the same URL"
                } else {
                    "the same command and arguments"
                };
                self.push(
                    "duplicate-server",
                    e.file,
                    at,
                    format!(
                        "server `{}` starts the same server as `{}` ({where_}): {what}, so {} exposes its tools twice; remove one of them (or disable it)",
                        e.name,
                        other.name,
                        self.files[e.file].input.client.id()
                    ),
                );
            }
        }
    }

    /// `drift` in one file as it is checked (into `self.drift`); returns its canonical path,
    /// the one ledgers name files by.
    fn drift_in(&mut self, file: usize, ledgers: &Ledgers) -> String {
        let real = &self.files[file].real;
        let canonical = fsio::resolve(real)
            .unwrap_or_else(|_| real.clone())
            .display()
            .to_string();
        let Some(records) = ledgers.get(&canonical) else {
            return canonical;
        };
        for (owner, rec) in records {
            let Some((mut path, name)) = ledger::split_pointer(&rec.pointer) else {
                continue;
            };
            path.push(name.clone());
            let Some(src) = self.src(file) else { continue };
            if rec.ownership(src.get(&path)) != Ownership::Drifted {
                continue;
            }
            let (line, column) = src.locate(&path);
            self.drift.push(Raw {
                rule: "drift",
                file,
                line,
                column,
                message: format!(
                    "server `{name}` was written by mcpconf for owner `{owner}` and edited since, so `mcpconf apply` and `prune` refuse to touch it; undo the edit, or keep it and make the entry yours with `mcpconf release {name}`"
                ),
            });
        }
        canonical
    }

    /// Entries a ledger says mcpconf wrote, edited since: the findings of the files checked,
    /// for the last file of each canonical path (`any`: whether a ledger has entry records).
    fn drift(&mut self, any: bool) {
        if !any {
            return;
        }
        let canonical: BTreeMap<String, usize> = self
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.report)
            .map(|(i, f)| {
                let real = f.canonical.clone().unwrap_or_else(|| {
                    let real = fsio::resolve(&f.real).unwrap_or_else(|_| f.real.clone());
                    real.display().to_string()
                });
                (real, i)
            })
            .collect();
        for r in std::mem::take(&mut self.drift) {
            if let Some(c) = &self.files[r.file].canonical
                && canonical.get(c) == Some(&r.file)
            {
                self.raw.push(r);
            }
        }
    }

    /// A line for a code frame with credentials redacted, and where the column went.
    fn frame(&self, line: &str, column: usize) -> (String, usize) {
        let at = column.saturating_sub(1);
        let marked: String = line
            .chars()
            .enumerate()
            .flat_map(|(i, c)| {
                let m = (i == at).then_some(secrets::MARK);
                m.into_iter().chain(std::iter::once(c))
            })
            .collect();
        let scrubbed = self.wide.redact(&secrets::scrub_line(&marked));
        match scrubbed.chars().position(|c| c == secrets::MARK) {
            Some(i) => (scrubbed.replace(secrets::MARK, ""), i + 1),
            None => {
                let plain = scrubbed.replace(secrets::MARK, "");
                let n = plain.chars().count();
                (plain, column.min(n + 1))
            }
        }
    }

    fn finish(mut self) -> LintReport {
        let mut findings = Vec::new();
        let mut raw = std::mem::take(&mut self.raw);
        raw.sort_by(|a, b| {
            (a.file, a.line, a.column, a.rule).cmp(&(b.file, b.line, b.column, b.rule))
        });
        raw.dedup_by(|a, b| {
            a.file == b.file
                && a.line == b.line
                && a.column == b.column
                && a.rule == b.rule
                && a.message == b.message
        });
        for r in raw {
            let f = &self.files[r.file];
            if !f.report {
                continue;
            }
            let severity = self.req.config.level(r.rule);
            if severity == Severity::Off {
                continue;
            }
            let (source_line, source_column) = match f.source_line(r.line) {
                Some(l) => {
                    let (line, column) = self.frame(&l, r.column);
                    (Some(line), column)
                }
                None => (None, r.column),
            };
            findings.push(Finding {
                rule: r.rule,
                severity,
                path: f.input.shown.clone(),
                line: r.line,
                column: r.column,
                message: self.secrets.redact(&r.message),
                source_line,
                source_column,
            });
        }
        LintReport {
            findings,
            files: self
                .files
                .iter()
                .filter(|f| f.report)
                .map(|f| f.input.shown.clone())
                .collect(),
            redactor: self.secrets,
        }
    }
}

/// What reading one file gave.
enum Outcome<S = Source> {
    /// It does not exist (a dangling link counts as absent).
    Missing,
    /// It exists but cannot be read: the path and why.
    Unreadable(PathBuf, String),
    /// Read (from `real`, its path with a final symbolic link resolved): parsed, or the parse
    /// error with the text for a code frame.
    Read {
        real: PathBuf,
        mode: u32,
        parsed: Result<S, (ReadError, Option<String>)>,
    },
}

fn read_one(input: &Input) -> Outcome {
    let mut path = input.path.clone();
    let read = match fsio::read_to_inspect(&path, MAX_FILE) {
        Ok(None) => return Outcome::Missing,
        Ok(Some(r)) => r,
        Err(e) if e.code == "not-a-file" => {
            // Perhaps a symbolic link: follow it (a directory stays unreadable).
            match fsio::resolve(&path) {
                Ok(real) if real != path => {
                    path = real;
                    match fsio::read_to_inspect(&path, MAX_FILE) {
                        Ok(None) => return Outcome::Missing,
                        Ok(Some(r)) => r,
                        Err(e) => return Outcome::Unreadable(path, e.message),
                    }
                }
                Ok(_) => return Outcome::Unreadable(path, e.message),
                Err(e) if e.code == "dangling-symlink" => return Outcome::Missing,
                Err(e) => return Outcome::Unreadable(path, e.message),
            }
        }
        Err(e) => return Outcome::Unreadable(path, e.message),
    };
    let mode = read.meta.mode;
    let parsed = Source::parse(read.bytes, input.client.syntax()).map_err(|e| {
        // Rare: read the file again for the code frame (the parse consumed the bytes).
        let text = fsio::read_to_inspect(&path, MAX_FILE)
            .ok()
            .flatten()
            .and_then(|r| String::from_utf8(r.bytes).ok())
            .map(|t| t.trim_start_matches('\u{feff}').to_string());
        (e, text)
    });
    Outcome::Read {
        real: path,
        mode,
        parsed,
    }
}

/// `f` over `items` on the machine's cores (in order).
fn parallel<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads < 2 || items.len() < 64 {
        return items.into_iter().map(&f).collect();
    }
    let n = items.len();
    let per = n.div_ceil(threads);
    let mut chunks: Vec<Vec<T>> = Vec::new();
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        chunks.push(it.by_ref().take(per).collect());
    }
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|c| s.spawn(move || c.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out = Vec::with_capacity(n);
        for h in handles {
            out.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        out
    })
}

fn read_error(d: &dyn Dialect, e: &ReadError) -> (&'static str, String) {
    let syntax = d.syntax().describe();
    match e.code {
        "duplicate-key" => (
            "duplicate-key",
            format!(
                "{}; clients disagree on which copy wins, so remove or rename one of them",
                e.message
            ),
        ),
        "not-an-object" => (
            "not-an-object",
            format!(
                "{}; {} expects a JSON object at the root (`{{ … }}`)",
                e.message,
                d.id()
            ),
        ),
        "empty-file" => (
            "parse-error",
            format!(
                "the file is empty, which is not valid {syntax} for {}; write `{{}}` or delete it",
                d.id()
            ),
        ),
        _ => (
            "parse-error",
            format!(
                "{}; {} reads {syntax}, so it cannot load this file: fix the syntax here",
                e.message,
                d.id()
            ),
        ),
    }
}

fn suggest(key: &str, known: &[&str]) -> String {
    if let Some(k) = known.iter().find(|k| k.eq_ignore_ascii_case(key)) {
        return format!("did you mean `{k}`?");
    }
    match closest(key, known.iter().copied()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => "remove it, or see `mcpconf clients --format json` for the known fields".into(),
    }
}

/// Every string in an entry: (path from the entry, the nearest key name, the string, whether
/// it is an array element).
fn walk_strings(
    v: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String, String, bool)>,
) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(k.clone());
                walk_strings(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            let key = path.last().cloned().unwrap_or_default();
            for x in a {
                match x {
                    Value::String(s) => out.push((path.clone(), key.clone(), s.clone(), true)),
                    other => walk_strings(other, path, out),
                }
            }
        }
        Value::String(s) => {
            let key = path.last().cloned().unwrap_or_default();
            out.push((path.clone(), key, s.clone(), false));
        }
        _ => {}
    }
}

fn secret_fix(d: &dyn Dialect, rel: &[String]) -> String {
    let top = rel.first().map(String::as_str).unwrap_or("");
    let var = match (top, rel.get(1)) {
        ("env" | "environment", Some(k)) => k.clone(),
        _ => "API_TOKEN".to_string(),
    };
    let ex = expands(d);
    if d.id() == "codex" {
        return "Codex reads secrets from its environment: list the variable in `env_vars`, or use `bearer_token_env_var` / `env_http_headers` for headers".into();
    }
    if ex.none {
        return format!(
            "{} expands no environment references, so start the server through a wrapper that reads the secret from the environment or a 0600 file",
            d.id()
        );
    }
    let r = ex.spell(&var);
    let in_place = matches!(top, "env" | "environment" | "headers" | "http_headers");
    if ex.env_and_headers_only && !in_place {
        return format!(
            "{} expands references only in env values and headers: pass it as an env value `{r}` and let the server read it from there",
            d.id()
        );
    }
    if top == "headers" || top == "http_headers" {
        return format!("put it in an environment variable and reference it, e.g. `Bearer {r}`");
    }
    format!("put it in an environment variable and write `{r}` instead")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RefKind {
    /// `${VAR}`
    Brace,
    /// `${env:VAR}`
    Env,
    /// `$VAR`
    Bare,
    /// `{env:VAR}`
    Opencode,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    EnvOrHeader,
    Other,
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// Environment references in a string: (kind, the reference as written, the variable).
fn references(s: &str) -> Vec<(RefKind, String, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.starts_with("$$") {
            i += 2;
            continue;
        }
        if let Some(inner_start) = rest.strip_prefix("${") {
            if let Some(end) = inner_start.find('}') {
                let inner = &inner_start[..end];
                let tok = &rest[..end + 3];
                if let Some(v) = inner.strip_prefix("env:") {
                    if is_ident(v) {
                        out.push((RefKind::Env, tok.to_string(), v.to_string()));
                    }
                } else {
                    let name = inner.split(":-").next().unwrap_or(inner);
                    if is_ident(name) && !PREDEFINED.contains(&name) {
                        out.push((RefKind::Brace, tok.to_string(), name.to_string()));
                    }
                }
                i += end + 3;
                continue;
            }
            break;
        }
        if let Some(after) = rest.strip_prefix('$') {
            let n = after
                .char_indices()
                .take_while(|(k, c)| {
                    c.is_ascii_alphanumeric() && !(*k == 0 && c.is_ascii_digit()) || *c == '_'
                })
                .count();
            if n > 0 {
                let name = &after[..n];
                out.push((RefKind::Bare, format!("${name}"), name.to_string()));
                i += 1 + n;
                continue;
            }
        }
        if let Some(after) = rest.strip_prefix("{env:")
            && let Some(end) = after.find('}')
        {
            let v = &after[..end];
            if is_ident(v) {
                out.push((RefKind::Opencode, format!("{{env:{v}}}"), v.to_string()));
            }
            i += 6 + end;
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// What a client expands, derived from its dialect's `placeholder()`.
struct Expands {
    kinds: Vec<RefKind>,
    env_and_headers_only: bool,
    none: bool,
}

/// References some clients expand beyond their dialect's own spelling.
const EXTRA: &[(&str, RefKind)] = &[
    ("gemini", RefKind::Bare),
    ("kiro", RefKind::Env),
    ("kiro-agent", RefKind::Env),
];

fn expands(d: &dyn Dialect) -> Expands {
    let p = d.placeholder();
    let none = p.starts_with("none");
    let first = p.split_whitespace().next().unwrap_or("");
    let mut kinds: Vec<RefKind> = match first {
        "${VAR}" => vec![RefKind::Brace],
        "${env:VAR}" => vec![RefKind::Env],
        "{env:VAR}" => vec![RefKind::Opencode],
        _ => Vec::new(),
    };
    if !none {
        kinds.extend(
            EXTRA
                .iter()
                .filter(|(id, _)| *id == d.id())
                .map(|(_, k)| *k),
        );
    }
    Expands {
        kinds,
        env_and_headers_only: p.contains("env values and headers only"),
        none,
    }
}

impl Expands {
    fn spell(&self, var: &str) -> String {
        match self.kinds.first() {
            Some(RefKind::Env) => format!("${{env:{var}}}"),
            Some(RefKind::Opencode) => format!("{{env:{var}}}"),
            Some(RefKind::Bare) => format!("${var}"),
            _ => format!("${{{var}}}"),
        }
    }

    fn problem(&self, d: &dyn Dialect, kind: RefKind, place: Place) -> Option<String> {
        if self.none {
            return Some(format!(
                "{} expands no environment references, so the server receives this text literally",
                d.id()
            ));
        }
        if !self.kinds.contains(&kind) {
            return Some(format!(
                "{} does not expand this spelling (it writes references as `{}`), so the server receives the text literally",
                d.id(),
                self.spell("VAR")
            ));
        }
        if self.env_and_headers_only && place == Place::Other {
            return Some(format!(
                "{} expands references only in env values and headers, so this one stays literal",
                d.id()
            ));
        }
        None
    }

    fn fix(&self, d: &dyn Dialect, var: &str, place: Place) -> String {
        if d.id() == "codex" {
            return format!(
                "pass the variable with `env_vars = [\"{var}\"]` (or `bearer_token_env_var` / `env_http_headers` for headers)"
            );
        }
        if self.none {
            return "use a wrapper command that reads the variable, or write the value where it is not a secret".into();
        }
        if self.env_and_headers_only && place == Place::Other {
            return format!(
                "pass it as an env value (`{}`) and let the server read it",
                self.spell(var)
            );
        }
        format!("write `{}`", self.spell(var))
    }
}

/// What identifies the server an entry starts: its URL, or its command and arguments. `None`
/// for a disabled entry (it exposes nothing) or one with neither.
fn fingerprint(v: &Value) -> Option<String> {
    let o: &Map<String, Value> = v.as_object()?;
    if o.get("disabled") == Some(&Value::Bool(true))
        || o.get("enabled") == Some(&Value::Bool(false))
    {
        return None;
    }
    for k in ["url", "serverUrl", "httpUrl"] {
        if let Some(u) = o.get(k).and_then(Value::as_str) {
            return Some(format!("url {}", normalize_url(u)));
        }
    }
    let strings = |a: &Vec<Value>| -> Vec<String> {
        a.iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| x.to_string())
            })
            .collect()
    };
    let mut cmd: Vec<String> = match o.get("command")? {
        Value::String(c) => vec![c.trim().to_string()],
        Value::Array(a) => strings(a),
        Value::Object(z) => {
            let mut c = vec![z.get("path")?.as_str()?.to_string()];
            if let Some(Value::Array(a)) = z.get("args") {
                c.extend(strings(a));
            }
            c
        }
        _ => return None,
    };
    if let Some(Value::Array(a)) = o.get("args") {
        cmd.extend(strings(a));
    }
    if cmd.first().is_none_or(|c| c.is_empty()) {
        return None;
    }
    Some(format!(
        "cmd {}",
        serde_json::to_string(&cmd).unwrap_or_default()
    ))
}

fn normalize_url(u: &str) -> String {
    let u = u.trim().trim_end_matches('/');
    match u.split_once("://") {
        Some((scheme, rest)) => {
            let (host, path) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
            format!(
                "{}://{}{path}",
                scheme.to_ascii_lowercase(),
                host.to_ascii_lowercase()
            )
        }
        None => u.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_references_of_each_spelling() {
        let r = references("a ${A} ${env:B} $C {env:D} ${workspaceFolder} $$E ${F:-x} $1");
        let kinds: Vec<(RefKind, &str)> = r.iter().map(|(k, _, v)| (*k, v.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (RefKind::Brace, "A"),
                (RefKind::Env, "B"),
                (RefKind::Bare, "C"),
                (RefKind::Opencode, "D"),
                (RefKind::Brace, "F"),
            ]
        );
    }

    #[test]
    fn fingerprints_ignore_names_and_disabled_entries() {
        let a = serde_json::json!({"command": "npx", "args": ["-y", "srv"]});
        let b = serde_json::json!({"type": "stdio", "command": "npx", "args": ["-y", "srv"], "env": {"X": "1"}});
        let c = serde_json::json!({"command": "npx", "args": ["-y", "srv2"]});
        let off = serde_json::json!({"command": "npx", "args": ["-y", "srv"], "disabled": true});
        assert_eq!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&a), fingerprint(&c));
        assert_eq!(fingerprint(&off), None);
        let u1 = serde_json::json!({"url": "HTTP://Example.com/mcp/"});
        let u2 = serde_json::json!({"serverUrl": "http://example.com/mcp"});
        let u3 = serde_json::json!({"url": "http://example.com/MCP"});
        assert_eq!(fingerprint(&u1), fingerprint(&u2));
        assert_ne!(fingerprint(&u1), fingerprint(&u3));
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn string_scanners_never_panic(s in "\\PC{0,60}|[${}:a-zA-Z_ \"'\\\\=-]{0,60}") {
            let _ = references(&s);
            let _ = secrets::scrub_line(&s);
            let _ = secrets::classify("API_KEY", &s);
            let _ = secrets::classify("url", &s);
            let _ = secrets::strip_references(&s);
            let _ = normalize_url(&s);
        }
    }
}
