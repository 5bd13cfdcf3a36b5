//! The lint file driver: each file is read once (through `fsio`), parsed in its client's
//! syntax and checked entry by entry in the thread that read it ([`read_and_check`]); then
//! the rules that look across files run over what was kept of each file (`rules::grants`,
//! `rules::duplicates`, `rules::drift`).

use std::path::PathBuf;

use serde_json::Value;

use super::discover::{Input, ctx};
pub(in crate::lint) use super::loaded::{Loaded, Rare, Summary, summary_of};
use super::parallel::parallel_each;
use super::read::{Outcome, read_error, read_one};
use super::rules::drift::{Ledgers, ledgers};
use super::rules::duplicates::{Fingerprint, UserFiles, alone, project};
use super::secrets;
use super::source::Source;
use super::{Finding, LintReport, Request, Severity};
use crate::dialect::Ctx;
use crate::document::kind_of;
use crate::redact::Redactor;
use rustc_hash::FxHashMap as FxMap;

/// The input of a file being added: one of the inputs given (its index), or a new one.
pub(in crate::lint) enum Which {
    Given(usize),
    New(Input),
}

pub(in crate::lint) struct Raw {
    pub(in crate::lint) rule: &'static str,
    pub(in crate::lint) file: usize,
    pub(in crate::lint) line: usize,
    pub(in crate::lint) column: usize,
    pub(in crate::lint) message: String,
}

pub(in crate::lint) struct Run<'a> {
    pub(in crate::lint) req: &'a Request,
    pub(in crate::lint) ctx: &'a Ctx,
    /// The inputs given, the first files' ([`Run::input`]).
    inputs: &'a [Input],
    /// The inputs of the files read since (as context, after `inputs`).
    more_inputs: Vec<Input>,
    pub(in crate::lint) files: Vec<Loaded>,
    /// Index of `files` by the hash of the resolved path ([`Run::find_hashed`]).
    pub(in crate::lint) by_real: FxMap<u64, usize>,
    /// The files whose resolved path hashes like another's, by path.
    pub(in crate::lint) by_real_more: FxMap<PathBuf, usize>,
    pub(in crate::lint) raw: Vec<Raw>,
    /// Values recognised as credentials.
    pub(in crate::lint) secrets: Redactor,
    /// Those plus every value under a credential-like name (for code frames).
    pub(in crate::lint) wide: Redactor,
    /// Every entry found in a servers container, in file order.
    pub(in crate::lint) entries: Vec<Entry>,
    /// `drift` findings, reported when their file is the one the ledgers' path names.
    pub(in crate::lint) drift: Vec<Raw>,
}

impl<'a> Run<'a> {
    /// A run with nothing read yet.
    pub(in crate::lint) fn new(req: &'a Request, ctx: &'a Ctx, inputs: &'a [Input]) -> Run<'a> {
        Run {
            req,
            ctx,
            inputs,
            more_inputs: Vec::new(),
            files: Vec::new(),
            by_real: FxMap::default(),
            by_real_more: FxMap::default(),
            raw: Vec::new(),
            secrets: Redactor::default(),
            wide: Redactor::default(),
            entries: Vec::new(),
            drift: Vec::new(),
        }
    }
}

/// An entry found in a servers container, with what `duplicate-server` needs of it (64
/// bytes: the entries of thousands of files are held until the rules across files run).
#[derive(Clone)]
pub(in crate::lint) struct Entry {
    /// The index of its file (see [`Entry::file`]).
    file: u32,
    /// Line and column of its key (a file is at most [`MAX_FILE`](crate::fsio::MAX_FILE) bytes).
    line: u32,
    column: u32,
    /// The server it starts.
    pub(in crate::lint) fingerprint: Option<Fingerprint>,
    /// The key of the Claude Code project whose local entries it is one of (under
    /// `projects["<key>"].mcpServers` of `~/.claude.json`); `None` for every other entry.
    pub(in crate::lint) project: Option<Box<str>>,
    pub(in crate::lint) name: Box<str>,
}

impl Entry {
    pub(in crate::lint) fn new(file: usize, src: &Source, path: &[String], name: &str) -> Entry {
        let (line, column) = src.locate(path);
        let mut e = Entry {
            file: 0,
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
            project: None,
            name: name.into(),
            fingerprint: src.get(path).and_then(Fingerprint::of),
        };
        e.set_file(file);
        e
    }

    /// The index of its file in [`Run::files`].
    pub(in crate::lint) fn file(&self) -> usize {
        self.file as usize
    }

    pub(in crate::lint) fn set_file(&mut self, file: usize) {
        // More than 4 billion files cannot be held in memory: the index always fits.
        self.file = u32::try_from(file).unwrap_or(u32::MAX);
    }

    /// Line and column of its key.
    pub(in crate::lint) fn at(&self) -> (usize, usize) {
        (self.line as usize, self.column as usize)
    }
}

pub(crate) fn run(req: &Request, inputs: Vec<Input>) -> LintReport {
    run_with(req, inputs, true)
}

/// [`run`]; `allow_alone`: let the files no other input's entries can meet find their duplicates on
/// their own ([`alone`]; false: every file's entries are kept to the end, as the tests
/// compare).
pub(in crate::lint) fn run_with(
    req: &Request,
    inputs: Vec<Input>,
    allow_alone: bool,
) -> LintReport {
    let ctx = ctx(req);
    let (ledgers, unread_ledgers) = ledgers(req);
    let users = UserFiles::new(&ctx);
    let alone = if allow_alone {
        alone(&inputs, &users)
    } else {
        vec![false; inputs.len()]
    };
    let mut r = Run::new(req, &ctx, &inputs);
    r.files.reserve(inputs.len());
    r.by_real.reserve(inputs.len());
    // The inputs stay in `inputs` (each thread reads the one it checks): the items are only
    // their indices, and `()` takes no memory.
    parallel_each(
        vec![(); inputs.len()],
        |i, ()| {
            let outcome = read_and_check(req, &ctx, &ledgers, &users, &inputs[i], alone[i]);
            (i, outcome)
        },
        |(i, outcome)| {
            r.admit(Which::Given(i), outcome, true);
        },
    );
    for i in 0..r.files.len() {
        if r.files[i].secret && r.files[i].mode & 0o044 != 0 {
            let mode = r.files[i].mode;
            let shown = r.input(i).shown().to_string();
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
    r.duplicates(&users);
    r.drift(!ledgers.is_empty());
    let (mut report, given) = r.finish();
    // The paths of the inputs given, moved into the report (`given`: where each goes, by
    // input): no copy of thousands of paths at the end of the run, where its peak is.
    let mut given = given.into_iter().peekable();
    for (k, input) in inputs.into_iter().enumerate() {
        let Some(&(i, at)) = given.peek() else { break };
        if i as usize == k {
            given.next();
            if let Some(slot) = report.files.get_mut(at as usize) {
                *slot = input.into_shown();
            }
        }
    }
    // A ledger that cannot be read is said, not skipped: `drift` was not checked for the
    // entries it records.
    let severity = req.config.level("drift");
    if severity != Severity::Off {
        for (path, why) in unread_ledgers {
            report.findings.push(Finding {
                rule: "drift",
                severity,
                path: path.display().to_string(),
                line: 1,
                column: 1,
                message: report.redactor.redact(&format!(
                    "this ledger cannot be read ({why}), so `drift` was not checked for the entries it records; fix it or move it away"
                )),
                source_line: None,
                source_column: 1,
            });
        }
    }
    report
}

/// What checking a file on its own gave: its summary (`None`: nothing is needed of it) and
/// findings, the credentials it holds and its entries (all with file index 0).
pub(in crate::lint) struct Checked {
    pub(in crate::lint) summary: Option<Box<Summary>>,
    pub(in crate::lint) secret: bool,
    pub(in crate::lint) canonical: Option<String>,
    pub(in crate::lint) raw: Vec<Raw>,
    pub(in crate::lint) drift: Vec<Raw>,
    pub(in crate::lint) secrets: Redactor,
    pub(in crate::lint) wide: Redactor,
    pub(in crate::lint) entries: Vec<Entry>,
}

/// Read and parse a file, run the rules that need only it, and keep a [`Summary`] for the
/// rules across files; the parse is dropped here, in the reading thread. A file no other
/// input's entries can meet (`alone`, [`alone`]) also has its duplicates found here, and
/// keeps only the lines of its findings: its entries are not kept.
pub(in crate::lint) fn read_and_check(
    req: &Request,
    ctx: &Ctx,
    ledgers: &Ledgers,
    users: &UserFiles,
    input: &Input,
    alone: bool,
) -> Outcome<Box<Checked>> {
    let (real, mode, src) = match read_one(input) {
        Outcome::Missing => return Outcome::Missing,
        Outcome::Unreadable(p, m) => return Outcome::Unreadable(p, m),
        Outcome::Read {
            real,
            mode,
            parsed: Err(e),
        } => {
            return Outcome::Read {
                real,
                mode,
                parsed: Err(e),
            };
        }
        Outcome::Read {
            real,
            mode,
            parsed: Ok(src),
        } => (real, mode, src),
    };
    let mut sub = Run::new(req, ctx, std::slice::from_ref(input));
    sub.files.reserve_exact(1);
    sub.files.push(Loaded {
        input: 0,
        source: Some(Box::new(src)),
        summary: None,
        mode,
        report: true,
        secret: false,
        rare: Rare::resolved(real),
    });
    let mut entries = Vec::new();
    sub.check_file(0, &mut entries);
    let canonical = (!ledgers.is_empty()).then(|| sub.drift_in(0, ledgers));
    if alone {
        // The same findings as among every file's entries: none of another file's can join
        // this file's groups.
        sub.entries = std::mem::take(&mut entries);
        sub.duplicates(users);
    }
    let Some(mut f) = sub.files.pop() else {
        unreachable!("the file checked is there")
    };
    let src = f.source.take();
    let mut summary = src
        .as_ref()
        .map(|s| summary_of(s, input.client))
        .unwrap_or_default();
    // Line 1 is where `secret-file-mode` points (a file's own mode, seen when it was read).
    let first = !alone || (f.secret && f.mode & 0o044 != 0);
    if let Some(s) = &src {
        let mut lines: Vec<usize> = first
            .then_some(1)
            .into_iter()
            .chain(sub.raw.iter().chain(&sub.drift).map(|r| r.line))
            .chain(entries.iter().map(|e: &Entry| e.at().0))
            .chain(summary.grants().iter().map(|g| g.at.0))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let found = s.shown_lines_at(&lines);
        // Sized first: one allocation each.
        let mut text = String::with_capacity(found.iter().map(|(_, l)| l.len()).sum());
        let mut kept = Vec::with_capacity(found.len());
        kept.extend(found.into_iter().filter_map(|(n, l)| {
            text.push_str(&l);
            Some((u32::try_from(n).ok()?, u32::try_from(text.len()).ok()?))
        }));
        summary.lines = kept.into_boxed_slice();
        summary.line_text = text.into_boxed_str();
    }
    drop(src);
    if !entries.is_empty() {
        summary.project = Some(project(&input.path, input.client, users));
    }
    // A file alone keeps a summary only for the lines of its findings (its entries are gone,
    // and no agent reads it).
    let needed = !alone || !summary.lines.is_empty();
    let checked = Box::new(Checked {
        summary: needed.then(|| Box::new(summary)),
        secret: f.secret,
        canonical,
        raw: sub.raw,
        drift: sub.drift,
        secrets: sub.secrets,
        wide: sub.wide,
        entries,
    });
    Outcome::Read {
        real: f.rare.and_then(|r| r.resolved),
        mode: f.mode,
        parsed: Ok(checked),
    }
}

pub(in crate::lint) fn dotted(path: &[String]) -> String {
    path.join(".")
}

impl Run<'_> {
    pub(in crate::lint) fn push(
        &mut self,
        rule: &'static str,
        file: usize,
        at: (usize, usize),
        message: String,
    ) {
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
    pub(in crate::lint) fn load(&mut self, input: Input, report: bool) -> Option<usize> {
        let outcome = match read_one(&input) {
            Outcome::Missing => Outcome::Missing,
            Outcome::Unreadable(p, m) => Outcome::Unreadable(p, m),
            Outcome::Read { real, mode, parsed } => Outcome::Read {
                real,
                mode,
                parsed: parsed.map(|src| {
                    let mut summary = summary_of(&src, input.client);
                    if let Some(Value::Object(m)) = src.get(&["mcpServers".to_string()]) {
                        let kiro = summary.kiro.get_or_insert_default();
                        for name in m.keys() {
                            let path = ["mcpServers".to_string(), name.clone()];
                            kiro.root_entries.push(Entry::new(0, &src, &path, name));
                        }
                    }
                    Box::new(Checked {
                        summary: Some(Box::new(summary)),
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
        self.admit(Which::New(input), outcome, report)
    }

    /// Record what reading (and checking) a file gave.
    pub(in crate::lint) fn admit(
        &mut self,
        input: Which,
        outcome: Outcome<Box<Checked>>,
        report: bool,
    ) -> Option<usize> {
        let inputs = self.inputs;
        let given = match &input {
            Which::Given(k) => &inputs[*k],
            Which::New(i) => i,
        };
        let d = given.client;
        let real = match &outcome {
            Outcome::Missing => return None,
            Outcome::Unreadable(real, _) => real,
            Outcome::Read { real, .. } => real.as_ref().unwrap_or(&given.path),
        };
        // The path the file is added under below: hashed once for both.
        let hash = path_hash(real);
        if let Some(i) = self.find_hashed(real, hash) {
            if report && !self.files[i].report {
                self.files[i].report = true;
                self.files[i].input = self.slot(input);
                // Worked out for the path it was read as context under.
                if let Some(s) = &mut self.files[i].summary {
                    s.project = None;
                }
            }
            return Some(i);
        }
        match outcome {
            Outcome::Missing => None,
            Outcome::Unreadable(real, message) => {
                let i = self.add_hashed(input, Some(real), 0, report, hash);
                self.push("unreadable", i, (1, 1), message);
                Some(i)
            }
            Outcome::Read {
                real,
                mode,
                parsed: Ok(c),
            } => {
                let i = self.add_hashed(input, real, mode, report, hash);
                let f = &mut self.files[i];
                let c = *c;
                f.summary = c.summary;
                f.secret = c.secret;
                if let Some(canonical) = c.canonical {
                    f.rare.get_or_insert_default().canonical = Some(canonical);
                }
                let kiro = f.summary.iter_mut().flat_map(|s| &mut s.kiro);
                for e in kiro.flat_map(|k| &mut k.root_entries) {
                    e.set_file(i);
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
                    e.set_file(i);
                    e
                }));
                Some(i)
            }
            Outcome::Read {
                real,
                mode,
                parsed: Err((e, text)),
            } => {
                let i = self.add_hashed(input, real, mode, report, hash);
                if text.is_some() {
                    self.files[i].rare.get_or_insert_default().text = text;
                }
                let (rule, message) = read_error(d, &e);
                self.push(rule, i, (e.line, e.column), message);
                self.secrets_in_unread(i);
                Some(i)
            }
        }
    }

    /// A file lint cannot read as its client does (a parse error, a duplicate key) may still
    /// hold credentials, and its other findings must not hide them (issue 41): each line is
    /// read by the detector on its own (`redact::spans`: tokens, credential pairs and options,
    /// URL passwords, literal `Bearer` tokens), each credential is a `literal-secret` finding
    /// and a known value every output hides, and the file counts as holding a secret.
    fn secrets_in_unread(&mut self, file: usize) {
        let Some(text) = self.files[file].rare.as_ref().and_then(|r| r.text.clone()) else {
            return;
        };
        for (n, line) in text.lines().enumerate() {
            let spans = crate::redact::spans::secret_spans(line);
            let Some(first) = spans.iter().map(|s| s.range.start).min() else {
                continue;
            };
            for sp in &spans {
                let v = &line[sp.range.clone()];
                self.secrets.add(v);
                self.wide.add(v);
            }
            self.files[file].secret = true;
            let column = line[..first].chars().count() + 1;
            self.push(
                "literal-secret",
                file,
                (n + 1, column),
                "this line holds a credential written literally (the value is not shown), in a file its client cannot read as it is; fix the file, then put the credential in an environment variable".to_string(),
            );
        }
    }

    /// [`Run::add_hashed`], hashing the path.
    #[cfg(test)]
    pub(in crate::lint) fn add(
        &mut self,
        input: Input,
        real: Option<PathBuf>,
        mode: u32,
        report: bool,
    ) -> usize {
        let hash = path_hash(real.as_deref().unwrap_or(&input.path));
        self.add_hashed(Which::New(input), real, mode, report, hash)
    }

    /// The input of a file.
    pub(in crate::lint) fn input(&self, file: usize) -> &Input {
        self.input_at(self.files[file].input)
    }

    /// An input by its index ([`Loaded::input`]).
    fn input_at(&self, k: u32) -> &Input {
        let k = k as usize;
        match self.inputs.get(k) {
            Some(i) => i,
            None => &self.more_inputs[k - self.inputs.len()],
        }
    }

    /// The index of an input, kept here when it is new.
    fn slot(&mut self, input: Which) -> u32 {
        // More than 4 billion inputs cannot be held in memory: the index always fits.
        let k = match input {
            Which::Given(k) => k,
            Which::New(i) => {
                self.more_inputs.push(i);
                self.inputs.len() + self.more_inputs.len() - 1
            }
        };
        u32::try_from(k).unwrap_or(u32::MAX)
    }

    /// The path a file was read from (with a final symbolic link resolved).
    pub(in crate::lint) fn real(&self, file: usize) -> &std::path::Path {
        let f = &self.files[file];
        f.resolved().unwrap_or(&self.input_at(f.input).path)
    }

    /// Add a file read from `real` (`None`: from `input.path`); `hash` is the [`path_hash`] of
    /// the path read from.
    fn add_hashed(
        &mut self,
        input: Which,
        real: Option<PathBuf>,
        mode: u32,
        report: bool,
        hash: u64,
    ) -> usize {
        let i = self.files.len();
        let k = self.slot(input);
        let resolved = real.filter(|r| *r != self.input_at(k).path);
        match self.by_real.get(&hash).copied() {
            None => {
                self.by_real.insert(hash, i);
            }
            Some(o) => {
                let real = resolved.as_deref().unwrap_or(&self.input_at(k).path);
                if o >= self.files.len() || self.real(o) != real {
                    let real = real.to_path_buf();
                    self.by_real_more.entry(real).or_insert(i);
                }
            }
        }
        self.files.push(Loaded {
            input: k,
            rare: Rare::resolved(resolved),
            source: None,
            summary: None,
            mode,
            report,
            secret: false,
        });
        self.files.len() - 1
    }

    /// [`Run::find_hashed`], hashing the path.
    #[cfg(test)]
    pub(in crate::lint) fn find(&self, real: &std::path::Path) -> Option<usize> {
        self.find_hashed(real, path_hash(real))
    }

    /// The file read from a resolved path, if one was: found by the path's hash (`hash`, its
    /// [`path_hash`]), the path compared (the index keeps a hash, not a second copy of every
    /// path).
    fn find_hashed(&self, real: &std::path::Path, hash: u64) -> Option<usize> {
        let &i = self.by_real.get(&hash)?;
        if i < self.files.len() && self.real(i) == real {
            return Some(i);
        }
        self.by_real_more.get(real).copied()
    }

    pub(in crate::lint) fn src(&self, file: usize) -> Option<&Source> {
        self.files.get(file).and_then(|f| f.source.as_deref())
    }

    /// The servers containers of a file (Claude Code's `~/.claude.json`: the user container and
    /// every project's local one), each with whether it is a Claude Code project's local
    /// container (`projects.<key>.mcpServers`: its second step is the project's key).
    pub(in crate::lint) fn containers(&self, file: usize) -> Vec<(Vec<String>, bool)> {
        let f = &self.files[file];
        let input = self.input(file);
        let d = input.client;
        let mut out: Vec<(Vec<String>, bool)> = Vec::new();
        for scope in &input.scopes {
            if d.id() == "claude-code" && *scope == "local" {
                let key = d.container("user", self.ctx).pop().unwrap_or_default();
                if let Some(Value::Object(projects)) = f
                    .source
                    .as_ref()
                    .and_then(|s| s.get(&["projects".to_string()]))
                {
                    for (p, v) in projects {
                        if v.get(&key).is_some() {
                            out.push((vec!["projects".into(), p.clone(), key.clone()], true));
                        }
                    }
                }
                continue;
            }
            let c = d.container(scope, self.ctx);
            if !out.iter().any(|(o, _)| *o == c) {
                out.push((c, false));
            }
        }
        out
    }

    pub(in crate::lint) fn check_file(&mut self, file: usize, entries: &mut Vec<Entry>) {
        let d = self.input(file).client;
        if d.multi_file() {
            self.agent_fields(file);
        }
        let containers = self.containers(file);
        // Borrowed by the entry rules while they record findings (put back below).
        let Some(src) = self.files[file].source.take() else {
            return;
        };
        let mut scratch = super::rules::entry::Scratch::default();
        for (container, local) in containers {
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
            // A project's local entries are merged with that project's files only.
            let project: Option<Box<str>> = container
                .get(1)
                .filter(|_| local)
                .map(|p| p.as_str().into());
            // The path of each entry in turn: the container's, then its name (one buffer
            // for all of them).
            let mut path = container;
            path.push(String::new());
            for name in servers.keys() {
                if let Some(last) = path.last_mut() {
                    last.clone_from(name);
                }
                self.check_entry(file, &src, &path, name, &mut scratch);
                let mut e = Entry::new(file, &src, &path, name);
                e.project.clone_from(&project);
                entries.push(e);
            }
        }
        drop(scratch);
        self.files[file].source = Some(src);
    }

    /// A line for a code frame with credentials redacted, and where the column went.
    pub(in crate::lint) fn frame(&self, line: &str, column: usize) -> (String, usize) {
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

    /// The report: the findings, and the files checked as shown. The paths of the inputs
    /// given are left to the caller, who has them (each file's place in `files` is empty):
    /// which input goes where comes back, in the order of the inputs, as (input, place).
    pub(in crate::lint) fn finish(mut self) -> (LintReport, Vec<(u32, u32)>) {
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
            let yaml = self.input(r.file).client.syntax() == crate::document::Syntax::Yaml;
            let (source_line, source_column) = match f.source_line(r.line, yaml) {
                Some(l) => {
                    let (line, column) = self.frame(&l, r.column);
                    (Some(line), column)
                }
                None => (None, r.column),
            };
            findings.push(Finding {
                rule: r.rule,
                severity,
                path: self.input(r.file).shown().to_string(),
                line: r.line,
                column: r.column,
                message: self.secrets.redact(&r.message),
                source_line,
                source_column,
            });
        }
        // The files reported, by input: the files themselves are let go first.
        let reported: Vec<u32> = self
            .files
            .iter()
            .filter(|f| f.report)
            .map(|f| f.input)
            .collect();
        drop(std::mem::take(&mut self.files));
        let given_len = self.inputs.len();
        let mut more: Vec<Option<Input>> = std::mem::take(&mut self.more_inputs)
            .into_iter()
            .map(Some)
            .collect();
        let mut given = Vec::new();
        let mut files = Vec::with_capacity(reported.len());
        for k in reported {
            match (k as usize).checked_sub(given_len) {
                None => {
                    given.push((k, u32::try_from(files.len()).unwrap_or(u32::MAX)));
                    files.push(String::new());
                }
                Some(m) => files.push(
                    more.get_mut(m)
                        .and_then(Option::take)
                        .map(Input::into_shown)
                        .unwrap_or_default(),
                ),
            }
        }
        given.sort_unstable();
        let report = LintReport {
            findings,
            files,
            redactor: self.secrets,
        };
        (report, given)
    }
}

/// The hash [`Run::find_hashed`] indexes a path by.
fn path_hash(p: &std::path::Path) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_found_by_path_when_hashes_collide() {
        let req = crate::lint::Request::new("/r", "/h");
        let ctx = ctx(&req);
        let mut r = Run::new(&req, &ctx, &[]);
        let input = |p: &str| Input::new(PathBuf::from(p), crate::dialect::ALL[0], Vec::new());
        let a = r.add(input("/r/a.json"), None, 0, true);
        // A path whose hash the index already holds for another (a collision, forced).
        let b_path = PathBuf::from("/r/b.json");
        r.by_real.insert(path_hash(&b_path), a);
        let b = r.add(input("/r/b.json"), Some(b_path.clone()), 0, true);
        assert_ne!(a, b);
        // A file read through a symbolic link is found by the path it was read from.
        let c = r.add(
            input("/r/link.json"),
            Some(PathBuf::from("/r/c.json")),
            0,
            true,
        );
        assert!(
            r.files[b].resolved().is_none(),
            "the same path is not kept twice"
        );
        assert_eq!(r.real(c), std::path::Path::new("/r/c.json"));
        assert_eq!(r.find(std::path::Path::new("/r/a.json")), Some(a));
        assert_eq!(r.find(&b_path), Some(b));
        assert_eq!(r.find(std::path::Path::new("/r/c.json")), Some(c));
        assert_eq!(r.find(std::path::Path::new("/r/link.json")), None);
        assert_eq!(r.find(std::path::Path::new("/r/d.json")), None);
    }
}
