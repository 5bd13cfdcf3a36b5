//! Which files a run touches: the manifest's targets resolved to files (globs, scopes,
//! rendered entries and grants), plus the files the owner's ledger names, each record checked
//! for the shape mcpconf writes before anything acts on it.

use super::*;

pub(super) fn ctx(settings: &Settings) -> Ctx {
    // Canonical, as Claude Code keys `projects` by its real working directory: a root reached
    // through a symlink must name the same project entry; and by the repository's main
    // worktree, so a subdirectory or a linked worktree names the repository's entry.
    let root = fsio::resolve(&settings.root).unwrap_or_else(|_| settings.root.clone());
    Ctx {
        project: fsio::git_main_root(&root),
        root,
        home: settings.home.clone(),
        client_homes: settings.client_homes.clone(),
        xdg_config_home: settings.xdg_config_home.clone(),
    }
}

/// The file patterns of the manifest's multi-file targets (`.kiro/agents/*.json`), for
/// `apply --watch` to notice a file that starts to match one.
pub fn glob_patterns(settings: &Settings, manifest: &Manifest) -> Vec<PathBuf> {
    let ctx = ctx(settings);
    let mut out = Vec::new();
    for t in &manifest.targets {
        let Some(d) = dialect::lookup(&t.client).filter(|d| d.multi_file()) else {
            continue;
        };
        let scope = t
            .scope
            .as_deref()
            .and_then(|s| d.scope(s))
            .unwrap_or_else(|| d.default_scope());
        out.push(d.path(scope, t.path.as_deref(), &ctx));
    }
    out.sort();
    out.dedup();
    out
}

/// Build the file specs from the manifest's targets and the ledger's files.
pub(super) fn specs(
    settings: &Settings,
    manifest: Option<&Manifest>,
    ledger: &Ledger,
    ws: &str,
    mode: Mode,
) -> Vec<Spec> {
    let ctx = ctx(settings);
    // The files of a glob share their directory: resolved once for all of them.
    let mut resolver = fsio::Resolver::new();
    let mut by_key: BTreeMap<String, Spec> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    // Each target's client and file, for the files one client reads of another.
    let mut targeted: Vec<(&'static dyn dialect::Dialect, PathBuf)> = Vec::new();
    if let Some(sys) = &settings.system_root {
        // A policy run: the clients' admin files, not the manifest's targets.
        if let (Some(m), Mode::Apply { .. }) = (manifest, mode) {
            admin_specs(&mut resolver, sys, m, &mut by_key, &mut order);
        }
    } else if let Some(m) = manifest {
        for t in &m.targets {
            let Some(d) = dialect::lookup(&t.client) else {
                continue;
            };
            let scope = t
                .scope
                .as_deref()
                .and_then(|s| d.scope(s))
                .unwrap_or_else(|| d.default_scope());
            let pattern = d.path(scope, t.path.as_deref(), &ctx);
            targeted.push((d, pattern.clone()));
            let paths = if d.multi_file() {
                agent_files(d, t, scope, &pattern, &ctx)
            } else {
                vec![(pattern.clone(), None)]
            };
            for (path, skip) in paths {
                let file = TargetFile {
                    target: t,
                    dialect: d,
                    scope,
                    path,
                    skip,
                };
                add_target_file(&ctx, &mut resolver, m, file, mode, &mut by_key, &mut order);
            }
        }
    }
    note_read_twice(&targeted, &ctx, &mut by_key);
    ledger_files(ledger, ws, &mut by_key, &mut order);
    check_records(settings, &ctx, ledger, ws, &mut by_key);
    order
        .into_iter()
        .filter_map(|k| by_key.remove(&k))
        .collect()
}

/// The files of a multi-file target (`.kiro/agents/*.json`) matching `pattern` and not
/// excluded, each with why it is skipped, if it is: Markdown agents are left alone (and said
/// so), and a pattern that matches nothing is reported.
fn agent_files(
    d: &'static dyn Dialect,
    t: &manifest::Target,
    scope: &dialect::Scope,
    pattern: &Path,
    ctx: &Ctx,
) -> Vec<(PathBuf, Option<String>)> {
    let excluded: Vec<String> = t
        .exclude
        .iter()
        .map(|x| d.path(scope, Some(x), ctx).display().to_string())
        .collect();
    let mut paths = match fsio::glob(pattern) {
        Ok(found) => found
            .into_iter()
            .filter(|p| {
                let s = p.display().to_string();
                !excluded
                    .iter()
                    .any(|x| crate::manifest::policy::glob(x, &s))
            })
            .map(|p| (p, None))
            .collect(),
        Err(e) => vec![(pattern.to_path_buf(), Some(e.message))],
    };
    // Markdown agents (YAML front matter) are left alone, and said so.
    if let Some(dir) = pattern.parent()
        && let Ok(md) = fsio::glob(&dir.join("*.md"))
    {
        for p in md {
            paths.push((
                p,
                Some(
                    "a Markdown agent file is left alone; mcpconf edits JSON agent files only"
                        .into(),
                ),
            ));
        }
    }
    if paths.is_empty() {
        paths.push((
            pattern.to_path_buf(),
            Some(format!(
                "no agent file matches `{}`; agent files are not created",
                pattern.display()
            )),
        ));
    }
    paths
}

/// Files the owner wrote to that the manifest no longer names.
fn ledger_files(
    ledger: &Ledger,
    ws: &str,
    by_key: &mut BTreeMap<String, Spec>,
    order: &mut Vec<String>,
) {
    for file in ledger.files(ws) {
        if by_key.contains_key(&file) {
            continue;
        }
        let client = ledger
            .for_file(ws, &file)
            .next()
            .map(|r| r.client.clone())
            .unwrap_or_default();
        let path = PathBuf::from(&file);
        let (id, syntax, refusal) = match dialect::lookup(&client) {
            Some(d) => (d.id(), d.syntax(), None),
            None => (
                "json",
                Syntax::Json,
                Some(PlanError::file(
                    Code::UnknownClient,
                    format!("the ledger names client `{client}`, which this mcpconf does not know"),
                )),
            ),
        };
        order.push(file.clone());
        by_key.insert(
            file.clone(),
            Spec::new(path.clone(), path, (id, syntax), false, refusal),
        );
    }
}

/// A record is obeyed only when it has the shape mcpconf writes: a forged or corrupted ledger
/// must not steer an edit to a top-level key, a sub-field or a file outside the bases. One
/// pass over the records, each looked up by its file; a file with a bad record is refused.
fn check_records(
    settings: &Settings,
    ctx: &Ctx,
    ledger: &Ledger,
    ws: &str,
    by_key: &mut BTreeMap<String, Spec>,
) {
    let named: std::collections::BTreeSet<String> = by_key
        .iter()
        .filter(|(_, s)| !s.wants.is_empty() || !s.containers.is_empty())
        .map(|(k, _)| k.clone())
        .collect();
    // The bases a record's file may lie under, resolved once for all records (a prune checks
    // every record).
    let mut bases: Option<Vec<PathBuf>> = None;
    for r in ledger
        .records
        .iter()
        .filter(|r| r.workspace.as_deref() == Some(ws))
    {
        let Some(spec) = by_key.get_mut(&r.file) else {
            continue;
        };
        if spec.refusal.is_some() {
            continue;
        }
        let Some(d) = dialect::lookup(&r.client) else {
            continue; // already refused as `unknown-client` above
        };
        let outside = !named.contains(&r.file);
        let bases: &[PathBuf] = if outside {
            bases.get_or_insert_with(|| {
                let mut bases = ctx.bases();
                bases.extend(settings.system_root.clone());
                let resolved: Vec<PathBuf> =
                    bases.iter().filter_map(|b| fsio::resolve(b).ok()).collect();
                bases.extend(resolved);
                bases
            })
        } else {
            &[]
        };
        if let Some(why) = record_problem(r, d, ctx, outside, bases) {
            spec.refusal = Some(PlanError::file(
                Code::InvalidLedger,
                format!(
                    "the ledger's record for server `{}` in this file {why}; mcpconf does not act on it (a forged or corrupted ledger; remove the record from the ledger by hand, or run `mcpconf release {}`)",
                    r.server, r.server
                ),
            ));
        }
    }
}

/// A client that also reads another client's file ([`dialect::Dialect::also_reads`]: Copilot
/// CLI reads Claude Code's `.mcp.json`) sees a server twice when the manifest writes it to both
/// files: the plan notes that on the first client's file, naming the servers.
fn note_read_twice(
    targeted: &[(&'static dyn dialect::Dialect, PathBuf)],
    ctx: &Ctx,
    by_key: &mut BTreeMap<String, Spec>,
) {
    for (d, path) in targeted {
        for (other_id, other_scope) in d.also_reads() {
            let Some(od) = dialect::lookup(other_id) else {
                continue;
            };
            let Some(os) = od.scope(other_scope) else {
                continue;
            };
            let other_path = od.path(os, None, ctx);
            if !targeted
                .iter()
                .any(|(x, p)| x.id() == od.id() && *p == other_path)
            {
                continue;
            }
            let servers_of = |by_key: &BTreeMap<String, Spec>, id: &str, p: &PathBuf| {
                by_key
                    .values()
                    .filter(|s| s.client == id && s.path == *p)
                    .flat_map(|s| s.wants.iter().map(|w| w.server.clone()))
                    .collect::<Vec<String>>()
            };
            let theirs = servers_of(by_key, od.id(), &other_path);
            let both: Vec<String> = servers_of(by_key, d.id(), path)
                .into_iter()
                .filter(|s| theirs.contains(s))
                .collect();
            if both.is_empty() {
                continue;
            }
            let note = format!(
                "client `{}` also reads `{}` (client `{}`, scope `{}`), so server{} {} written to both files show{} twice in it; target one of the two files for it",
                d.id(),
                other_path.display(),
                od.id(),
                os.name,
                if both.len() == 1 { "" } else { "s" },
                both.iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if both.len() == 1 { "s" } else { "" },
            );
            for s in by_key
                .values_mut()
                .filter(|s| s.client == d.id() && s.path == *path)
            {
                if !s.notes.contains(&note) {
                    s.notes.push(note.clone());
                }
            }
        }
    }
}

/// Why a ledger record does not have the shape mcpconf writes, if it does not: an entry's
/// pointer is `<a container of the client>/<the server>`, a grant's is `/<a grant array of the
/// client>/<a grant of the server>`; the file of a record that no target names any more lies
/// under `--root`, `--home`, a client home (`$CODEX_HOME`, …) or `$XDG_CONFIG_HOME` (`bases`:
/// those directories as given and resolved).
fn record_problem(
    r: &ledger::Record,
    d: &'static dyn Dialect,
    ctx: &Ctx,
    outside_manifest: bool,
    bases: &[PathBuf],
) -> Option<String> {
    let Some((container, name)) = ledger::split_pointer(&r.pointer) else {
        return Some("has a pointer that is not a JSON pointer".into());
    };
    match r.kind {
        ledger::Kind::Entry => {
            if name != r.server {
                return Some("points at an entry whose name is not the server's".into());
            }
            let root = ctx.root.display().to_string();
            let project = ctx.project_key().display().to_string();
            let fits = d.scopes().iter().any(|s| {
                let c = d.container(s.name, ctx);
                // A per-project container (`projects["<project>"]`) may name another project
                // (another root, or one written before projects were keyed by repository).
                c.len() == container.len()
                    && c.iter().zip(&container).all(|(a, b)| {
                        a == b || ((a == &root || a == &project) && b.starts_with('/'))
                    })
            });
            // An input entry: `/<the client's inputs list>[id]/<the input>`.
            let input = d
                .inputs_array()
                .is_some_and(|a| container == [format!("{a}[id]")]);
            if !fits && !input {
                return Some("does not point at a server entry of the client's container".into());
            }
        }
        ledger::Kind::Grant => {
            let array_ok =
                container.len() == 1 && d.grant_arrays().contains(&container[0].as_str());
            let grant_ok = name
                .strip_prefix('@')
                .is_some_and(|g| g == r.server || g.starts_with(&format!("{}/", r.server)));
            let disable_ok = name == r.server && super::disable::is_disable_list(d, &container);
            if !((array_ok && grant_ok) || disable_ok) {
                return Some("does not point at a grant of the server in a grant array".into());
            }
        }
    }
    if outside_manifest {
        let file = Path::new(&r.file);
        let normal = file.is_absolute()
            && file.components().all(|c| {
                !matches!(
                    c,
                    std::path::Component::ParentDir | std::path::Component::CurDir
                )
            });
        if !normal || !bases.iter().any(|b| file.starts_with(b)) {
            return Some("names a file outside --root and --home".into());
        }
    }
    None
}

/// One file a manifest target names: the target, its client and scope, the file's path (one
/// of a glob's matches for a multi-file target) and why it is skipped, if it is.
struct TargetFile<'a> {
    target: &'a manifest::Target,
    dialect: &'static dyn Dialect,
    scope: &'a dialect::Scope,
    path: PathBuf,
    skip: Option<String>,
}

/// Add one target file's wants to the spec of its (resolved) file.
fn add_target_file(
    ctx: &Ctx,
    resolver: &mut fsio::Resolver,
    m: &Manifest,
    file: TargetFile,
    mode: Mode,
    by_key: &mut BTreeMap<String, Spec>,
    order: &mut Vec<String>,
) {
    let TargetFile {
        target: t,
        dialect: d,
        scope,
        path,
        skip,
    } = file;
    let (real, mut refusal) = match resolver.resolve(&path) {
        Ok(r) => (r, None),
        Err(e) => (path.clone(), Some(PlanError::file(e.code, e.message))),
    };
    // A project file is written inside the project: a link planted in a cloned
    // repository must not redirect the write elsewhere.
    let explicit_abs = t
        .path
        .as_deref()
        .is_some_and(|p| Path::new(p).is_absolute());
    if refusal.is_none() && scope.base == dialect::Base::Root && !explicit_abs {
        // The root as resolved once for this run (`ctx`), not once per file.
        let root = &ctx.root;
        if !real.starts_with(root) {
            refusal = Some(PlanError::file(
                Code::SymlinkEscape,
                format!(
                    "`{}` is a link to `{}`, outside the project root `{}`; mcpconf does not follow project links out of the project (use a user-scope target or an absolute `path`)",
                    path.display(),
                    real.display(),
                    root.display()
                ),
            ));
        }
    }
    let key = real.display().to_string();
    let spec = by_key.entry(key.clone()).or_insert_with(|| {
        order.push(key.clone());
        Spec {
            skip: skip.clone(),
            ..Spec::new(
                path.clone(),
                real.clone(),
                (d.id(), d.syntax()),
                t.create && !d.multi_file(),
                refusal,
            )
        }
    });
    spec.client_lock |= d.client_lock(scope.name);
    if spec.syntax != d.syntax() {
        spec.refusal = Some(PlanError::file(
            Code::MixedClients,
            format!(
                "targets of clients `{}` and `{}` name the same file `{}` but read different syntaxes; point them at different files",
                spec.client,
                d.id(),
                path.display()
            ),
        ));
    }
    spec.create &= t.create && !d.multi_file();
    let container = d.container(scope.name, ctx);
    if !spec.containers.contains(&container) {
        spec.containers.push(container.clone());
    }
    for g in d.grant_arrays() {
        if !spec.grant_arrays.iter().any(|a| a == g) {
            spec.grant_arrays.push(g.to_string());
        }
    }
    if mode == Mode::Prune {
        return;
    }
    add_servers(ctx, m, t, d, scope, &path, spec);
    super::disable::add_disables(ctx, resolver, t, d, scope, &key, by_key, order);
}

/// The target's servers, rendered into the spec of its file.
fn add_servers(
    ctx: &Ctx,
    m: &Manifest,
    t: &manifest::Target,
    d: &'static dyn Dialect,
    scope: &dialect::Scope,
    path: &Path,
    spec: &mut Spec,
) {
    let container = d.container(scope.name, ctx);
    // The wants already in this container, by server: one lookup per server, not a scan.
    let mut wanted: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, w) in spec.wants.iter().enumerate() {
        if w.container == container {
            wanted.entry(w.server.clone()).or_insert(i);
        }
    }
    let (unloaded, why) = d.references_unloaded_in();
    let mut inputs: Vec<String> = Vec::new();
    for s in m.servers_for(t) {
        // A reference where the client drops the whole file for it: refused, not written.
        if unloaded.contains(&scope.name) && s.expanded(|_| Some(String::new())).is_some() {
            spec.refusal = Some(PlanError::file(
                Code::CannotExpress,
                format!(
                    "server `{}` uses a `${{VAR}}` reference, and {} does not load a {} file that holds one ({why}): nothing is written there; target the `user` scope for it, or declare it without references",
                    s.name,
                    d.id(),
                    scope.name
                ),
            ));
            continue;
        }
        // `auto_approve = true` where the client has neither grants nor a trust field.
        if t.auto_approve && !d.supports_auto_approve() {
            spec.refusal = Some(PlanError::file(
                Code::CannotExpress,
                format!(
                    "client `{}` has no trust or auto-approval of its own that mcpconf can write, so `auto_approve = true` cannot be expressed for server `{}` (it applies to agent files with grants, such as `kiro-agent`, and to clients with a trust field, such as `gemini` and `qwen`: `mcpconf clients --format json`, `trust_form`)",
                    d.id(),
                    s.name
                ),
            ));
            continue;
        }
        // `enabled = false` on the server or on the target: the client's off form.
        let enabled = s.enabled.unwrap_or(true) && t.enabled.unwrap_or(true);
        let enabled_declared = s.enabled.is_some() || t.enabled.is_some();
        match dialect::render_target(d, s, t.client_version.as_deref(), enabled) {
            Ok(mut r) => {
                dialect::with_trust(d, t.auto_approve, &mut r.value);
                for n in r.notes {
                    if !spec.notes.contains(&n) {
                        spec.notes.push(n);
                    }
                }
                let dup = wanted.get(&s.name).and_then(|&i| spec.wants.get(i));
                match dup {
                    Some(w) if w.value == r.value => {}
                    Some(_) => {
                        spec.refusal = Some(PlanError::file(
                            Code::Conflict,
                            format!(
                                "two targets write server `{}` into the same place in `{}` with different contents",
                                s.name,
                                path.display()
                            ),
                        ));
                    }
                    None => {
                        // The proof `--adopt` accepts for a literal: the entry rendered with
                        // the references expanded from this process's environment.
                        let expanded = s
                            .expanded(|v| std::env::var(v).ok())
                            .and_then(|x| {
                                dialect::render_target(d, &x, t.client_version.as_deref(), enabled)
                                    .ok()
                            })
                            .map(|mut x| {
                                dialect::with_trust(d, t.auto_approve, &mut x.value);
                                x.value
                            });
                        let client_state =
                            dialect::entry_client_state(d, &r.value, enabled_declared);
                        inputs.extend(s.inputs());
                        wanted.insert(s.name.clone(), spec.wants.len());
                        spec.wants.push(Want {
                            container: container.clone(),
                            server: s.name.clone(),
                            value: r.value,
                            client: d.id(),
                            expanded,
                            client_state,
                        });
                        for g in d.grants(s, t.auto_approve) {
                            spec.grants.push(GrantWant {
                                server: s.name.clone(),
                                client: d.id(),
                                spec: g,
                            });
                        }
                    }
                }
            }
            Err(e) => {
                spec.refusal = Some(PlanError::file(Code::CannotExpress, e.message));
            }
        }
    }
    add_inputs(m, d, &inputs, spec);
}

/// The entries of the client's `inputs` list for the inputs the target's servers use (read
/// as an object keyed by `id`, so each is owned like a server entry: recorded, adopted when
/// equal, a conflict when the user's own entry of that id differs, removed when unused).
fn add_inputs(m: &Manifest, d: &'static dyn Dialect, used: &[String], spec: &mut Spec) {
    let Some(array) = d.inputs_array() else {
        return;
    };
    let container = vec![format!("{array}[id]")];
    for input in m.inputs.iter().filter(|i| used.contains(&i.id)) {
        let known = spec
            .wants
            .iter()
            .any(|w| w.container == container && w.server == input.id);
        if !known {
            spec.wants.push(Want {
                container: container.clone(),
                server: input.id.clone(),
                value: input.entry(),
                client: d.id(),
                expanded: None,
                client_state: Vec::new(),
            });
        }
    }
}

/// A policy run's files: each client's admin file under the system root, with the keys the
/// manifest's `[policy]` compiles to (none: the file's earlier keys are removed). A manifest
/// without `[policy]` writes nothing and removes what an earlier policy wrote.
fn admin_specs(
    resolver: &mut fsio::Resolver,
    sys: &Path,
    m: &Manifest,
    by_key: &mut BTreeMap<String, Spec>,
    order: &mut Vec<String>,
) {
    let Some(policy) = &m.policy else {
        return;
    };
    for c in crate::policy::compile(policy) {
        let d: &'static dyn Dialect = c.admin;
        let path = sys.join(d.default_scope().path);
        let (real, mut refusal) = match resolver.resolve(&path) {
            Ok(r) => (r, None),
            Err(e) => (path.clone(), Some(PlanError::file(e.code, e.message))),
        };
        // An admin file is written where the client reads it, never through a link: the
        // directories are resolved, the file itself must not be one.
        let parent = path.parent().and_then(|p| resolver.resolve(p).ok());
        if refusal.is_none()
            && parent.is_some_and(|p| {
                Some(real.as_path()) != path.file_name().map(|n| p.join(n)).as_deref()
            })
        {
            refusal = Some(PlanError::file(
                Code::NotAFile,
                format!(
                    "`{}` is a link; mcpconf writes an admin file only in its own place, never through a link (replace the link with the file)",
                    path.display()
                ),
            ));
        }
        let key = real.display().to_string();
        let container: Vec<String> = c.admin.container.iter().map(|s| s.to_string()).collect();
        let wants = c
            .entries
            .into_iter()
            .map(|(name, value)| Want {
                container: container.clone(),
                server: name,
                value,
                client: d.id(),
                expanded: None,
                client_state: Vec::new(),
            })
            .collect();
        order.push(key.clone());
        by_key.insert(
            key.clone(),
            Spec {
                wants,
                containers: vec![container],
                notes: c.cannot,
                ..Spec::new(path, real, (d.id(), d.syntax()), true, refusal)
            },
        );
    }
}
