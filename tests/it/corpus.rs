//! The configs people really have (issue 45): every file of `tests/fixtures/corpus/<client>/`
//! (shapes committed to public repositories, each source named in `INDEX.md`, every credential
//! fake and marked `c0rpusFAKE`) goes through what an operator does with it, in process:
//!
//! 1. `lint` the file as found (the client told from its path): no panic, every fake credential
//!    found as a `literal-secret`, none of them in a message;
//! 2. `import` it: no fake credential in the manifest or the warnings;
//! 3. `apply` the import into an empty client file, and read the entries back: each equal to the
//!    source entry in the client's own terms (defaults, the keys the client or its user keeps,
//!    fields the client does not read, and its other spellings aside; a literal secret read back
//!    as the reference import made of it);
//! 4. `plan --adopt` the import against a copy of the source: nothing to change, or adopt only.
//!
//! The counts are written into `docs/corpus.md` (between its markers; `MCPCONF_BLESS=1`
//! rewrites them) and the test fails below 97 % of files with servers round-tripping both ways.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use mcpconf::dialect::{self, Ctx, Dialect, Scope};
use mcpconf::engine::{self, ApplyOptions, Exit, Mode};
use mcpconf::known::Known;
use mcpconf::plan::Op;
use mcpconf::settings::Settings;
use serde_json::Value;

use crate::common::snapshot;

const MARK: &str = "c0rpusFAKE";
const OWNER: &str = "corpus";

/// What happened to one file.
#[derive(Default, Debug)]
struct Outcome {
    servers: usize,
    lint_detected: bool,
    /// The client itself starts no server from any entry of the file (Roo Code's and Amazon
    /// Q's `url` without `type`): not a file the client accepts, so outside the count.
    client_rejects: bool,
    /// MCP entries import left out, each with its reason in `refusals`.
    left_out: usize,
    applied: bool,
    planned: bool,
    /// Why a step was refused or differed (`step: code: message`).
    refusals: Vec<String>,
    /// A fake credential found in an output (the step that printed it).
    leaks: Vec<String>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus")
}

/// Every fixture: (client directory, file).
fn fixtures() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in fs::read_dir(corpus_dir()).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let client = dir.file_name().unwrap().to_string_lossy().to_string();
        for f in fs::read_dir(&dir).unwrap() {
            out.push((client.clone(), f.unwrap().path()));
        }
    }
    out.sort();
    out
}

/// The fake credentials in a text: each maximal run of token characters holding the mark.
fn fakes(text: &str) -> Vec<String> {
    let token = |c: char| c.is_ascii_alphanumeric() || "_-.".contains(c);
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(MARK) {
        let start = rest[..i].rfind(|c: char| !token(c)).map_or(0, |p| {
            p + rest[p..].chars().next().map_or(1, char::len_utf8)
        });
        let end = i + rest[i..]
            .find(|c: char| !token(c))
            .unwrap_or(rest.len() - i);
        out.push(rest[start..end].to_string());
        rest = &rest[end..];
    }
    out.sort();
    out.dedup();
    out
}

fn leaks(step: &str, text: &str, secrets: &[String], o: &mut Outcome) {
    for s in secrets {
        if text.contains(s.as_str()) || text.contains(MARK) {
            o.leaks.push(format!("{step} printed a fake credential"));
            return;
        }
    }
}

fn ctx(root: &Path, home: &Path) -> Ctx {
    Ctx {
        root: root.to_path_buf(),
        home: home.to_path_buf(),
        client_homes: Default::default(),
        xdg_config_home: None,
        project: None,
    }
}

fn settings(base: &Path) -> Settings {
    for d in ["root", "home", "state"] {
        fs::create_dir_all(base.join(d)).unwrap();
    }
    Settings::builder()
        .manifest(base.join("root/mcpconf.toml"))
        .root(base.join("root"))
        .home(base.join("home"))
        .state_dir(base.join("state"))
        .build()
        .unwrap()
}

/// The client, its scope and the explicit path a fixture directory stands for.
fn target(dir: &str, file: &Path) -> (&'static dyn Dialect, &'static Scope, Option<String>) {
    let (id, scope) = dir.split_once('@').unwrap_or((dir, ""));
    let d = dialect::lookup_client(id).unwrap_or_else(|| panic!("unknown client `{id}`"));
    let sc = if scope.is_empty() {
        d.default_scope()
    } else {
        d.scope(scope).unwrap()
    };
    // Multi-file clients, one file each: Continue's project block files (any
    // `.continue/mcpServers/*.yaml`) and Kiro's agent files (`.kiro/agents/*.json`).
    let name = file.file_name().unwrap().to_string_lossy();
    let path = match id {
        "continue" if scope == "project" => Some(format!(".continue/mcpServers/{name}")),
        "kiro-agent" => Some(format!(".kiro/agents/{name}")),
        _ => None,
    };
    (d, sc, path)
}

fn servers_of(
    d: &dyn Dialect,
    sc: &Scope,
    c: &Ctx,
    bytes: &[u8],
) -> Result<serde_json::Map<String, Value>, String> {
    let doc = mcpconf::document::Doc::parse(bytes, d.syntax())
        .map_err(|e| format!("{}: {}", e.code, e.message))?;
    Ok(match doc.get(&d.container(sc.name, c)) {
        Some(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    })
}

/// Step 1: `lint` the file, the client told from its path.
fn lint_step(src: &Settings, placed: &Path, secrets: &[String], o: &mut Outcome) {
    let mut req = mcpconf::lint::Request::new(&src.root, &src.home);
    req.paths = vec![placed.to_path_buf()];
    match mcpconf::lint::lint(&req) {
        Ok(report) => {
            let text: String = report
                .findings
                .iter()
                .map(|f| f.message.clone() + "\n")
                .collect();
            leaks("lint", &text, secrets, o);
            o.lint_detected = report.findings.iter().any(|f| f.rule == "literal-secret");
            if !secrets.is_empty() && !o.lint_detected {
                o.refusals
                    .push("lint: no literal-secret for a fake credential".into());
            }
        }
        Err(e) => o.refusals.push(format!("lint: {}: {}", e.code, e.message)),
    }
}

/// [`steps`] in a scratch directory, whose path no reason shows (`[TMP]`).
fn run_one(dir: &str, file: &Path) -> Outcome {
    let scratch = tempfile::tempdir().unwrap();
    let mut o = steps(dir, file, scratch.path());
    let scratch_path = scratch.path().display().to_string();
    for r in &mut o.refusals {
        *r = r.replace(&scratch_path, "[TMP]");
    }
    o
}

fn steps(dir: &str, file: &Path, scratch: &Path) -> Outcome {
    let mut o = Outcome::default();
    let bytes = fs::read(file).unwrap();
    let secrets = fakes(&String::from_utf8_lossy(&bytes));
    let (d, sc, path) = target(dir, file);
    let src = settings(&scratch.join("src"));
    let c = ctx(&src.root, &src.home);
    let placed = d.path(sc, path.as_deref(), &c);
    fs::create_dir_all(placed.parent().unwrap()).unwrap();
    fs::write(&placed, &bytes).unwrap();

    lint_step(&src, &placed, &secrets, &mut o);

    // 2. import. A file the client reads but mcpconf refuses to read (a duplicate key) counts
    // as one with servers that did not round-trip.
    let servers = match servers_of(d, sc, &c, &bytes) {
        Ok(s) => s,
        Err(e) => {
            o.servers = 1;
            o.refusals.push(format!("read: {e}"));
            return o;
        }
    };
    let whole = mcpconf::document::Doc::parse(&bytes, d.syntax())
        .map(|doc| doc.root())
        .unwrap_or_default();
    let imported = mcpconf::import::import_in(
        &whole,
        &servers,
        &mcpconf::import::TargetSpec {
            dialect: d,
            scope: sc.name,
            path: path.as_deref(),
            only: &[],
            as_client: false,
        },
        OWNER,
    );
    leaks("import", &imported.manifest, &secrets, &mut o);
    leaks(
        "import warnings",
        &imported.warnings.join("\n"),
        &secrets,
        &mut o,
    );
    o.servers = imported.servers;
    let rejected = servers
        .values()
        .filter_map(Value::as_object)
        .filter(|e| dialect::starts_nothing_from(d, e).is_some())
        .count();
    if imported.servers == 0 && rejected > 0 && rejected == servers.len() {
        o.client_rejects = true;
        o.refusals.push(format!(
            "the client itself starts no server from its {rejected} entries: {}",
            imported.warnings.join(" | ")
        ));
        return o;
    }
    if imported.servers == 0 {
        // Entries import could not read or manage (not a client's own non-server entries, such
        // as Goose's builtins): a file with servers that did not round-trip, not one without.
        let unread: Vec<&String> = imported
            .warnings
            .iter()
            .filter(|w| w.contains(" is left out: ") || w.contains("neither a command nor a URL"))
            .collect();
        if !unread.is_empty() {
            o.servers = unread.len();
            o.refusals.push(format!(
                "import: no server of {} entries: {}",
                servers.len(),
                imported.warnings.join(" | ")
            ));
        }
        return o;
    }
    o.left_out = imported
        .warnings
        .iter()
        .filter(|w| w.contains(" is left out: "))
        .count();
    if imported.servers < servers.len() {
        o.refusals.push(format!(
            "import: left out {} of {} entries: {}",
            servers.len() - imported.servers,
            servers.len(),
            imported.warnings.join(" | ")
        ));
    }
    let manifest = match mcpconf::manifest::parse(&imported.manifest, &Known) {
        Ok(m) => m,
        Err(e) => {
            o.refusals
                .push(format!("manifest: {}: {}", e.code(), e.message));
            return o;
        }
    };
    // Servers whose entry import changed on purpose, and nothing else: a literal secret made
    // a reference (adopted once the variable holds the value, contract §5), a reference
    // respelled (taken over). A field import drops is no excuse: it must be one the client
    // keeps, or one it does not read, or the file does not round-trip.
    let changed: Vec<&str> = manifest
        .servers
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| {
            imported.respelled.iter().any(|r| r == n)
                || imported.warnings.iter().any(|w| {
                    w.starts_with(&format!("server `{n}`")) && w.contains("literal secret")
                })
        })
        .collect();

    // 3. apply into an empty client file, and read the entries back.
    let empty = settings(&scratch.join("empty"));
    let ce = ctx(&empty.root, &empty.home);
    if d.multi_file() {
        // Agent files are never created: an empty agent stands for the empty client file.
        let f = d.path(sc, path.as_deref(), &ce);
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(&f, "{}\n").unwrap();
    }
    let applied = engine::apply(
        &empty,
        ApplyOptions::new(OWNER, Mode::Apply { adopt: false }).manifest(&manifest),
    );
    leaks("apply", &format!("{applied}"), &secrets, &mut o);
    if applied.exit != Exit::Ok || !applied.applied {
        for e in &applied.errors {
            o.refusals.push(format!("apply: {}: {}", e.code, e.message));
        }
    } else {
        let written = fs::read(d.path(sc, path.as_deref(), &ce)).unwrap();
        let back = servers_of(d, sc, &ce, &written).expect("mcpconf's own file parses");
        let facts = dialect::client_facts(d.id());
        o.applied = true;
        for s in &manifest.servers {
            let (Some(a), Some(b)) = (servers.get(&s.name), back.get(&s.name)) else {
                o.applied = false;
                o.refusals.push(format!("read-back: `{}` missing", s.name));
                continue;
            };
            // The keys the client keeps, and those of the source entry it does not read.
            let mut keys: Vec<String> = dialect::kept_keys(d)
                .iter()
                .map(|k| k.to_string())
                .collect();
            keys.extend(dialect::unread_keys(d, a));
            let same = mcpconf::plan::eq_but_client_keys(a, b, &keys, facts).is_some();
            if !same && !changed.contains(&s.name.as_str()) {
                o.applied = false;
                o.refusals.push(format!(
                    "read-back: `{}` differs{}",
                    s.name,
                    mcpconf::plan::first_difference(a, b)
                        .map(|f| format!(" in `{f}`"))
                        .unwrap_or_default()
                ));
            }
        }
    }

    // 4. plan --adopt against a copy of the source.
    let plan = engine::plan(&src, Some(&manifest), OWNER, Mode::Apply { adopt: true });
    leaks("plan", &format!("{plan}"), &secrets, &mut o);
    o.planned = true;
    for f in &plan.files {
        for a in &f.actions {
            match a.op {
                Op::Keep | Op::UnownedMatch | Op::Adopt => {}
                // A literal secret import made a reference: adopted once the variable holds
                // the value (`apply --adopt` with it exported), which this test cannot do.
                Op::Conflict if changed.contains(&a.server.as_str()) => {}
                op => {
                    o.planned = false;
                    o.refusals.push(format!(
                        "plan: {} `{}`: {}",
                        op.as_str(),
                        a.server,
                        a.detail
                    ));
                }
            }
        }
    }
    // A file-level error other than the conflicts above (whose actions say so) refuses it.
    for e in &plan.errors {
        if e.code != mcpconf::diag::Code::Conflict {
            o.planned = false;
            o.refusals.push(format!("plan: {}: {}", e.code, e.message));
        }
    }
    o
}

#[test]
fn the_configs_people_really_have() {
    let started = std::time::Instant::now();
    let files = fixtures();
    let mut formats: Vec<&str> = Vec::new();
    let mut results = Vec::new();
    for (dir, file) in &files {
        let id = dir.split('@').next().unwrap();
        if !formats.contains(&id) {
            formats.push(id);
        }
        let r = std::panic::catch_unwind(|| run_one(dir, file));
        results.push((
            format!("{dir}/{}", file.file_name().unwrap().to_string_lossy()),
            r,
        ));
    }
    let mut report = String::new();
    let panics: Vec<&String> = results
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|(f, _)| f)
        .collect();
    let ok: Vec<(&String, &Outcome)> = results
        .iter()
        .filter_map(|(f, r)| r.as_ref().ok().map(|o| (f, o)))
        .collect();
    let with_servers: Vec<&(&String, &Outcome)> = ok
        .iter()
        .filter(|(_, o)| o.servers > 0 && !o.client_rejects)
        .collect();
    let rejected = ok.iter().filter(|(_, o)| o.client_rejects).count();
    let left_out: usize = with_servers.iter().map(|(_, o)| o.left_out).sum();
    let whole = with_servers
        .iter()
        .filter(|(_, o)| o.applied && o.planned && o.left_out == 0)
        .count();
    let both = with_servers
        .iter()
        .filter(|(_, o)| o.applied && o.planned)
        .count();
    let applied = with_servers.iter().filter(|(_, o)| o.applied).count();
    let planned = with_servers.iter().filter(|(_, o)| o.planned).count();
    let leaked: usize = ok.iter().map(|(_, o)| o.leaks.len()).sum();
    let secret_files = ok.iter().filter(|(_, o)| o.lint_detected).count();
    writeln!(report, "| | count |\n|---|---|").unwrap();
    for (k, v) in [
        ("files", files.len()),
        ("client formats", formats.len()),
        ("files with servers", with_servers.len()),
        ("files the client itself rejects (not counted)", rejected),
        (
            "files without servers",
            ok.len() - with_servers.len() - rejected,
        ),
        ("applied into an empty file and read back equal", applied),
        ("planned clean (or adopt) against their source", planned),
        ("round trips both ways", both),
        ("… of them with every MCP entry carried", whole),
        (
            "MCP entries import left out, each with its reason",
            left_out,
        ),
        ("files whose literal secrets lint found", secret_files),
        ("panics", panics.len()),
        ("fake credentials printed", leaked),
    ] {
        writeln!(report, "| {k} | {v} |").unwrap();
    }
    let mut reasons: Vec<String> = Vec::new();
    for (f, o) in &ok {
        for r in &o.refusals {
            reasons.push(format!("- `{f}`: {}", r.replace('\n', " ")));
        }
    }
    if !reasons.is_empty() {
        writeln!(report, "\nWhat was refused or left out, and why:\n").unwrap();
        for r in &reasons {
            writeln!(report, "{r}").unwrap();
        }
    }
    eprintln!("{report}\n(corpus run in {:?})", started.elapsed());
    check_docs(&report);
    assert!(
        files.len() >= 150 && formats.len() >= 15,
        "{} files, {} formats",
        files.len(),
        formats.len()
    );
    assert!(panics.is_empty(), "panics on: {panics:?}");
    assert_eq!(leaked, 0, "fake credentials printed:\n{report}");
    assert!(
        both * 100 >= with_servers.len() * 97,
        "{both} of {} files round-trip both ways:\n{report}",
        with_servers.len()
    );
}

/// The counts in `docs/corpus.md`, between its markers, are what this run found.
fn check_docs(report: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/corpus.md");
    let text = fs::read_to_string(&path).unwrap_or_default();
    let (begin, end) = (
        "<!-- corpus-counts:begin -->\n",
        "<!-- corpus-counts:end -->",
    );
    let (Some(b), Some(e)) = (text.find(begin), text.find(end)) else {
        panic!("docs/corpus.md lacks its {begin:?} … {end:?} markers");
    };
    let want = format!("{}{begin}{report}{}", &text[..b], &text[e..]);
    if want != text {
        if snapshot::blessing() {
            fs::write(&path, want).unwrap();
        } else {
            panic!("docs/corpus.md's counts are stale (MCPCONF_BLESS=1 rewrites them):\n{report}");
        }
    }
}
