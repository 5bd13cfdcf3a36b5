//! The command layer: resolves settings, calls the engine, prints. The only module that writes
//! to stdout or stderr.

use std::io::{BufRead, IsTerminal};
use std::path::Path;
use std::time::Duration;

use crate::cli::{Cli, Color, Command, Format, LintArgs};
use crate::console::{self, eprint, print};
use crate::dialect::{self, Base, PinSupport};
use crate::engine::{self, Exit, Mode, Report, Settings};
use crate::fsio;
use crate::manifest::{Manifest, Server, Transport};
use crate::output::{self, Style};
use crate::redact::Redactor;
use crate::saved::{SavedManifest, SavedPlan};

mod checks;
mod client_file;
mod client_probe;
mod consent;
use client_file::{read_client, read_client_only};
use client_probe::{run_probe_all_clients, run_probe_client};
mod import;
mod import_all;
mod inventory;
mod lock;
mod plan;
mod policy;
use import::run_import;
mod usage;
use usage::{Failure, usage_error};
pub use usage::{run_args, wants_json};
mod status;
use checks::{run_lint, run_probe};
use lock::{LockRequest, run_lock};

/// The manifest's JSON Schema, exactly as shipped in `schemas/manifest.schema.json`.
pub const SCHEMA: &str = include_str!("../../schemas/manifest.schema.json");

/// What a command that reads the manifest runs with: the settings, the manifest (absent for
/// `prune`/`status --owner` without one), the owner, the redactor of every value it knows, and
/// how to print.
pub(super) struct Cx<'a> {
    pub(super) settings: &'a Settings,
    pub(super) manifest: Option<&'a Manifest>,
    pub(super) owner: &'a str,
    pub(super) red: &'a Redactor,
    pub(super) json: bool,
    pub(super) style: Style,
    pub(super) progress_ok: bool,
}

/// Run a parsed command line; returns the process exit code. A closed stdout (the reader
/// stopped early) ends output quietly; see [`crate::console`].
pub fn run(cli: Cli) -> u8 {
    let code = run_command(cli);
    console::finish(code)
}

fn run_command(mut cli: Cli) -> u8 {
    // lint's paths move into its request instead of being copied (thousands, held all along).
    let lint_paths = match &mut cli.command {
        Command::Lint(args) => std::mem::take(&mut args.paths),
        _ => Vec::new(),
    };
    let system_root = policy::translate(&mut cli);
    let g = &cli.global;
    let json = g.format == Format::Json;
    let style = style_of(g.color);
    if matches!(g.format, Format::Sarif | Format::Github)
        && !matches!(cli.command, Command::Lint(_))
    {
        return usage_error(
            json,
            "`--format sarif` and `--format github` are for `mcpconf lint` only; use `text` or `json`",
        );
    }
    if let Command::Lint(args) = &cli.command {
        return run_lint(&cli, args, lint_paths, style);
    }
    if let Some(code) = info_command(&cli.command, json) {
        return code;
    }
    let ready = match ready(&cli, system_root.as_deref(), json, style) {
        Ok(r) => r,
        Err(code) => return code,
    };
    dispatch(&cli, ready, system_root.as_deref(), json, style)
}

/// How to print: in color when asked, or on a terminal without `NO_COLOR`.
fn style_of(color: Color) -> Style {
    Style {
        color: match color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stdout().is_terminal()
            }
        },
    }
}

/// What a command that reads the manifest (or a saved plan) runs with, once resolved.
struct Ready {
    settings: Settings,
    /// The saved plan of `apply PLAN`.
    saved: Option<SavedPlan>,
    manifest: Option<Manifest>,
    owner: String,
}

/// The settings, the saved plan, the manifest and the owner of a command that needs them;
/// `Err` with the exit code when the command ran without them, or cannot run.
fn ready(cli: &Cli, system_root: Option<&Path>, json: bool, style: Style) -> Result<Ready, u8> {
    let g = &cli.global;
    let mut settings = settings(cli).map_err(|m| usage_error(json, m))?;
    if let Some(sys) = system_root {
        if !sys.is_dir() && !matches!(cli.command, Command::Policy { .. }) {
            return Err(usage_error(
                json,
                format!("--system-root `{}` is not a directory", sys.display()),
            ));
        }
        if let Some(m) = policy::needs_root(cli, sys) {
            return Err(Failure::usage(crate::diag::Code::PermissionDenied, m).print(json));
        }
        if !matches!(cli.command, Command::Policy { .. }) {
            settings.system_root = Some(sys.to_path_buf());
        }
    }
    if let Some(code) = without_manifest(&cli.command, &settings, json, style, &cli.global) {
        return Err(code);
    }
    // A saved plan brings its own manifest and settings.
    let saved = saved_plan(cli, &mut settings, json)?;
    if let Command::Release {
        client: Some(id), ..
    } = &cli.command
        && dialect::lookup(id).is_none()
    {
        return Err(usage_error(json, unknown_client(id)));
    }
    let owner_flag = match &cli.command {
        Command::Prune { owner, .. }
        | Command::Status { owner, .. }
        | Command::Release { owner, .. } => owner.clone(),
        _ => None,
    };
    if let Some(o) = owner_flag
        .as_deref()
        .filter(|o| !crate::manifest::valid_owner(o))
    {
        return Err(Failure::usage(
            crate::diag::Code::InvalidOwner,
            format!("--owner: {}", crate::manifest::owner_error(o)),
        )
        .print(json));
    }
    if let Command::Apply { keep_going, .. } | Command::Prune { keep_going, .. } = &cli.command {
        settings.keep_going = *keep_going;
    }
    // (`apply PLAN` takes the plan's own `--take-over`s; the flag and a plan exclude each other.)
    if let Command::Apply {
        take_over, replace, ..
    }
    | Command::Plan {
        take_over, replace, ..
    } = &cli.command
        && saved.is_none()
    {
        settings.take_over = take_over.clone();
        settings.replace = replace.clone();
    }
    let (manifest, owner) =
        manifest_and_owner(&settings, g.manifest.is_some(), owner_flag, (json, style))?;
    Ok(Ready {
        settings,
        saved,
        manifest,
        owner,
    })
}

/// Runs a command that reads the manifest (or a saved plan), `ready` to.
fn dispatch(cli: &Cli, ready: Ready, system_root: Option<&Path>, json: bool, style: Style) -> u8 {
    let Ready {
        settings,
        saved,
        manifest,
        owner,
    } = ready;
    let saved_path = match &cli.command {
        Command::Apply { plan: Some(p), .. } => Some(p.as_path()),
        _ => None,
    };
    let red = redactor(manifest.as_ref());
    let progress_ok = !json && std::io::stderr().is_terminal();
    let cx = Cx {
        settings: &settings,
        manifest: manifest.as_ref(),
        owner: &owner,
        red: &red,
        json,
        style,
        progress_ok,
    };

    match &cli.command {
        Command::Plan {
            check,
            out,
            prune,
            adopt,
            ..
        } => plan::run_plan(&cx, *check, out.as_deref(), (*prune, *adopt)),
        Command::Apply { watch: true, .. } => match manifest {
            Some(m) => crate::watch::run(
                &settings,
                m,
                &owner,
                |r| crate::scan::redactor_for(r, &red),
                json,
            ),
            None => Exit::Usage as u8,
        },
        Command::Apply { yes, adopt, .. } => {
            plan::run_apply_command(&cx, (*yes, *adopt), saved.as_ref().zip(saved_path))
        }
        Command::Prune { dry_run: true, .. } => {
            let mut r = engine::plan(&settings, manifest.as_ref(), &owner, Mode::Prune);
            if r.exit == Exit::Ok && r.has_changes() {
                r.exit = Exit::Found;
            }
            finish(&r, &crate::scan::redactor_for(&r, &red), json, style, false)
        }
        Command::Prune { yes, .. } => plan::run_prune(&cx, *yes),
        Command::Status { check, all, .. } => status::run_status(
            &settings,
            manifest.as_ref(),
            &owner,
            (*check, *all),
            &red,
            (json, style),
        ),
        Command::Probe {
            servers,
            timeout,
            write_pins,
            cacert,
            proxy,
            smoke,
            ..
        } => match &manifest {
            Some(m) => run_probe(
                &settings,
                m,
                servers,
                (*timeout, Net::new(cacert, proxy), *smoke),
                *write_pins,
                &red,
                json,
            ),
            None => Exit::Usage as u8,
        },
        Command::Release { server, client, .. } => {
            status::run_release(&cx, server, client.as_deref())
        }
        Command::Policy { .. } => policy::run_report(&cx, system_root.unwrap_or(Path::new("/"))),
        Command::Schema
        | Command::Clients
        | Command::Inventory { .. }
        | Command::Completions { .. }
        | Command::Man
        | Command::Import { .. }
        | Command::Lock { .. } => 0,
        Command::Lint(_) => 0,
    }
}

fn read_saved(path: &Path) -> Result<SavedPlan, String> {
    match fsio::read(path, 64 * 1024 * 1024) {
        Ok(Some(r)) => SavedPlan::from_json(&String::from_utf8_lossy(&r.bytes))
            .map_err(|m| format!("`{}` is not a saved plan: {m}", path.display())),
        Ok(None) => Err(format!("no saved plan at `{}`", path.display())),
        Err(e) => Err(e.message),
    }
}

/// Write a file mcpconf owns outright (a saved plan, `mcpconf.lock`) through the one writer of
/// its own files ([`fsio::write_own`]): under its directory's lock, atomically, 0600, never
/// through a link.
fn write_new_file(
    path: &Path,
    bytes: &[u8],
    timeout: std::time::Duration,
) -> Result<fsio::Written, fsio::FsError> {
    fsio::write_own(
        path,
        bytes,
        fsio::Writers::Lock(timeout),
        fsio::Durability::Durable,
    )
}

/// The error for a client id that is not one: the closest id, or the list of ids.
fn unknown_client(id: &str) -> String {
    let ids = dialect::ids();
    // `claude` is too far from `claude-code` for a typo: offer the ids it starts.
    let starting: Vec<String> = ids
        .iter()
        .filter(|c| id.len() >= 3 && c.starts_with(id))
        .map(|c| format!("`{c}`"))
        .collect();
    let hint = match crate::text::closest(id, ids.iter().copied()) {
        Some(c) => format!("did you mean `{c}`?"),
        None if !starting.is_empty() => format!("did you mean {}?", starting.join(" or ")),
        None => format!("known clients: {}", ids.join(", ")),
    };
    format!("unknown client `{id}`; {hint} (see `mcpconf clients`)")
}

#[allow(clippy::too_many_arguments)]
fn run_apply(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    mode: Mode,
    yes: bool,
    saved: Option<(&SavedPlan, &Path)>,
    red: &Redactor,
    json: bool,
    style: Style,
) -> u8 {
    let (saved, saved_path) = (saved.map(|s| s.0), saved.map(|s| s.1));
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let mut shown = false;
    // The output's redactor is built beside the writes (a big file's scan overlaps its write
    // and fsync); from the report below when the run ends otherwise.
    let beside = |files: &[crate::plan::FilePlan]| crate::scan::redactor_for_files(files, red);
    let mut red_beside = None;
    let options = engine::ApplyOptions::new(owner, mode)
        .manifest(manifest)
        .expected(saved);
    let report = if yes {
        let _progress =
            output::Progress::start("applying", !json && std::io::stderr().is_terminal());
        engine::apply(settings, options.alongside(beside, &mut red_beside))
    } else {
        let mut ask = |plan: &Report| -> bool {
            let red = crate::scan::redactor_for(plan, red);
            if json {
                // Machine output is printed once, at the end.
            } else {
                print!("{}", output::diffs_text(plan, &red, style));
                print!("{}", output::summary_text(plan, &red, style, false));
                console::flush_out();
                shown = true;
            }
            if !interactive {
                // Said once, by the `not-confirmed` error below.
                return false;
            }
            eprint!("Apply these changes? [y/N] ");
            let mut line = String::new();
            let _ = std::io::stdin().lock().read_line(&mut line);
            matches!(line.trim(), "y" | "Y" | "yes" | "Yes" | "YES")
        };
        engine::apply(
            settings,
            options.confirm(&mut ask).alongside(beside, &mut red_beside),
        )
    };
    let mut report = report;
    for e in &mut report.errors {
        if e.code == crate::diag::Code::NotConfirmed && !interactive {
            e.message = "not a terminal to ask for confirmation, so nothing was written; pass --yes to write without asking".into();
        }
        if e.code == crate::diag::Code::StalePlan && e.path.is_empty() {
            e.path = saved_path
                .map(|p| p.display().to_string())
                .unwrap_or_default();
        }
    }
    let red = red_beside.unwrap_or_else(|| crate::scan::redactor_for(&report, red));
    if shown && !json {
        // The diffs were shown before asking; now only the outcome.
        if report.applied {
            print!("{}", output::summary_text(&report, &red, style, true));
        }
        eprint!("{}", output::errors_text(&report.errors, &red, style));
        return report.exit as u8;
    }
    finish(&report, &red, json, style, report.applied)
}

fn finish(r: &Report, red: &Redactor, json: bool, style: Style, done: bool) -> u8 {
    if json {
        print!("{}", output::report_json(r, red));
    } else {
        print!("{}", output::diffs_text(r, red, style));
        if !r.files.is_empty() {
            print!("{}", output::summary_text(r, red, style, done));
        }
        eprint!("{}", output::errors_text(&r.errors, red, style));
    }
    r.exit as u8
}

fn redactor(m: Option<&Manifest>) -> Redactor {
    let mut red = Redactor::default();
    if let Some(m) = m {
        for s in &m.servers {
            collect_server(&mut red, s);
        }
    }
    red
}

fn collect_server(red: &mut Redactor, s: &Server) {
    // Every manifest string is judged by the shared detector under its field name: env
    // values and headers by their names, `args`, `command`, `url` and `cwd` by their shape.
    let mut each = |k: &str, v: &crate::template::Template| {
        red.consider(k, &v.raw);
        if let Some(l) = v.as_literal() {
            red.consider(k, &l);
        }
    };
    match &s.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
            env_file,
        } => {
            each("command", command);
            args.iter().for_each(|a| each("args", a));
            env.iter().for_each(|(k, v)| each(k, v));
            if let Some(c) = cwd {
                each("cwd", c);
            }
            if let Some(f) = env_file {
                each("env_file", f);
            }
            // The value after a credential option (`["--token", "V"]`).
            let raw: Vec<&str> = args.iter().map(|a| a.raw.as_str()).collect();
            red.consider_argv("args", &raw);
        }
        Transport::Remote { url, headers, .. } => {
            each("url", url);
            headers.iter().for_each(|(k, v)| each(k, v));
        }
    }
}

fn settings(cli: &Cli) -> Result<Settings, String> {
    let g = &cli.global;
    let mut b = crate::settings::SettingsBuilder::from_env();
    if let Some(m) = &g.manifest {
        b = b.manifest(m);
    }
    if let Some(r) = &g.root {
        b = b.root(r);
    }
    if let Some(h) = &g.home {
        b = b.home(h);
    }
    if let Some(s) = &g.state_dir {
        b = b.state_dir(s);
    }
    if let Some(w) = &g.workspace {
        b = b.workspace(w);
    }
    let mut settings = b.build().map_err(|e| e.to_string())?;
    // A root or home given on the command line that does not exist is a mistake, never something
    // to create.
    for (flag, given, dir) in [
        ("--root", g.root.is_some(), &settings.root),
        ("--home", g.home.is_some(), &settings.home),
    ] {
        if given && !fsio::is_dir(dir) {
            return Err(format!(
                "{flag} `{}` is not an existing directory; create it first or fix the path (mcpconf never creates it)",
                dir.display()
            ));
        }
    }
    if !(g.lock_timeout.is_finite() && g.lock_timeout >= 0.0 && g.lock_timeout <= 86_400.0) {
        return Err("--lock-timeout must be a number of seconds between 0 and 86400".into());
    }
    settings.lock_timeout = Duration::from_secs_f64(g.lock_timeout);
    settings.profile = g.profile.clone();
    Ok(settings)
}

fn not_found_message() -> String {
    "no `mcpconf.toml` in the current directory or a parent directory (the search stops at a repository's top, a directory with `.git`); write one (`mcpconf import --client ID > mcpconf.toml` starts from a client's file; see docs/getting-started.md), or pass `--manifest PATH` or set MCPCONF_MANIFEST".to_string()
}

fn clients_text(json: bool) -> String {
    use std::fmt::Write;
    let rows: Vec<serde_json::Value> = dialect::ALL
        .iter()
        .map(|d| dialect::facts_json(*d))
        .collect();
    if json {
        let mut s = serde_json::to_string_pretty(
            &serde_json::json!({"format_version": 1, "clients": rows}),
        )
        .unwrap_or_default();
        s.push('\n');
        return s;
    }
    let mut out = String::new();
    for d in dialect::ALL {
        let _ = writeln!(out, "{:<12} {}", d.id(), d.description());
        for s in d.scopes() {
            let base = match s.base {
                Base::Root => "<root>",
                Base::Home => "~",
            };
            let path = if s.path.is_empty() {
                "(explicit `path` required)".to_string()
            } else {
                format!("{base}/{}", s.default_path())
            };
            let default = if s.name == d.default_scope().name {
                " (default)"
            } else {
                ""
            };
            let _ = writeln!(out, "  scope {:<8} {path}{default}", s.name);
        }
        let pin = match d.pin_support() {
            PinSupport::None => "tool pin: not expressible".to_string(),
            PinSupport::Field(f) => format!("tool pin: `{f}`"),
        };
        let _ = writeln!(
            out,
            "  syntax: {}; references: {}; {pin}",
            d.syntax().describe(),
            d.placeholder()
        );
        for g in d.gates() {
            let _ = writeln!(out, "  from {} (`client_version`): {}", g.since, g.what);
        }
        if !d.checked().is_empty() {
            let _ = writeln!(out, "  checked: {}", d.checked());
        }
    }
    out
}

/// The commands that read nothing: `schema`, `clients`, `completions`, `man`.
fn info_command(command: &Command, json: bool) -> Option<u8> {
    match command {
        Command::Schema => {
            print!("{SCHEMA}");
            Some(0)
        }
        Command::Clients => {
            print!("{}", clients_text(json));
            Some(0)
        }
        Command::Completions { shell } => {
            let mut cmd = crate::cli::command();
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut cmd, "mcpconf", &mut out);
            console::out_bytes(&out);
            Some(0)
        }
        Command::Man => {
            console::out_bytes(&crate::cli::man_page());
            Some(0)
        }
        _ => None,
    }
}

/// The network options of `probe` and `lock`: `--cacert` and `--proxy`.
pub(super) struct Net {
    pub(super) cacert: Option<std::path::PathBuf>,
    proxy: Option<String>,
}

impl Net {
    fn new(cacert: &Option<std::path::PathBuf>, proxy: &Option<String>) -> Net {
        Net {
            cacert: cacert.clone(),
            proxy: proxy.clone(),
        }
    }

    /// The proxies: `--proxy`, else the environment's (`HTTPS_PROXY`, …); a bad `--proxy` is
    /// a usage error (its sentence never quotes the URL).
    pub(super) fn proxies(&self) -> Result<crate::probe::Proxies, String> {
        crate::probe::Proxies::new(&|v: &str| std::env::var(v).ok(), self.proxy.as_deref())
    }
}

/// The commands that need no manifest of their own (`probe --all-clients` / `--client`,
/// `lock`, `import`), run; `None` for the others.
fn without_manifest(
    command: &Command,
    settings: &Settings,
    json: bool,
    style: Style,
    global: &crate::cli::Global,
) -> Option<u8> {
    if let Command::Probe {
        servers,
        timeout,
        cacert,
        proxy,
        smoke,
        all_clients: true,
        yes,
        ..
    } = command
    {
        return Some(run_probe_all_clients(
            settings,
            servers,
            (*timeout, Net::new(cacert, proxy), *smoke),
            (json, *yes),
        ));
    }
    if let Command::Probe {
        servers,
        timeout,
        cacert,
        proxy,
        smoke,
        client: Some(client),
        scope,
        path,
        yes,
        ..
    } = command
    {
        return Some(run_probe_client(
            settings,
            (client, scope.as_deref(), path.as_deref()),
            servers,
            (*timeout, Net::new(cacert, proxy), *smoke),
            (json, *yes),
        ));
    }
    if let Command::Inventory { dirs, discover } = command {
        return Some(inventory::run_inventory(settings, (dirs, discover), json));
    }
    if let Command::Lock {
        registry,
        timeout,
        cacert,
        proxy,
    } = command
    {
        let req = LockRequest {
            registry: registry.clone(),
            timeout: *timeout,
            net: Net::new(cacert, proxy),
        };
        return Some(run_lock(settings, req, json, style));
    }
    if let Command::Import {
        client,
        all,
        scope,
        path,
        owner,
        server,
    } = command
    {
        let which = match (client, all) {
            (Some(c), false) => import::Which::One(c, scope.as_deref(), path.as_deref()),
            _ => import::Which::All,
        };
        return Some(run_import(
            settings,
            which,
            (owner, server),
            json,
            &import::next_flags(global),
        ));
    }
    None
}

/// `apply PLAN`: the saved plan, and its manifest, root, home, state directory and workspace
/// put into `settings` (a different `--root`, `--home` or `--state-dir` on the command line is
/// refused, never silently ignored); `None` for any other command. `Err`: the exit code of
/// the failure, printed.
fn saved_plan(cli: &Cli, settings: &mut Settings, json: bool) -> Result<Option<SavedPlan>, u8> {
    Ok(match &cli.command {
        Command::Apply { plan: Some(p), .. } => match read_saved(p) {
            Ok(sp) => {
                // A plan is applied where it was made: a different --root, --home or
                // --state-dir on the command line is refused, never silently ignored.
                let g = &cli.global;
                for (flag, given, planned) in [
                    (
                        "--root",
                        g.root.is_some().then_some(&settings.root),
                        &sp.root,
                    ),
                    (
                        "--home",
                        g.home.is_some().then_some(&settings.home),
                        &sp.home,
                    ),
                    (
                        "--state-dir",
                        g.state_dir.is_some().then_some(&settings.state_dir),
                        &sp.state_dir,
                    ),
                ] {
                    if let Some(given) = given
                        && given != planned
                    {
                        return Err(Failure::usage(
                            crate::diag::Code::PlanMismatch,
                            format!(
                                "{flag} `{}` differs from the plan's `{}`; apply the plan without {flag}, or make a new plan there",
                                given.display(),
                                planned.display()
                            ),
                        )
                        .print(json));
                    }
                }
                settings.manifest = sp.manifest.path.clone();
                settings.root = sp.root.clone();
                settings.home = sp.home.clone();
                settings.state_dir = sp.state_dir.clone();
                settings.workspace = sp.workspace.clone();
                settings.take_over = sp.take_over.clone();
                settings.replace = sp.replace.clone();
                Some(sp)
            }
            Err(m) => return Err(usage_error(json, m)),
        },
        _ => None,
    })
}

/// The manifest (required, except for `prune`/`status --owner` without one) and the owner
/// (`--owner`, else the manifest's). `Err`: the exit code of the failure, printed.
fn manifest_and_owner(
    settings: &Settings,
    manifest_given: bool,
    owner_flag: Option<String>,
    (json, style): (bool, Style),
) -> Result<(Option<Manifest>, String), u8> {
    // (A dangling link is an entry: `load_manifest` says what is wrong with it.)
    let entry = settings.manifest.exists() || fsio::dangling_link(&settings.manifest).is_some();
    if !manifest_given && !entry && owner_flag.is_none() {
        let r = Report::failed(
            "",
            &settings.manifest,
            crate::diag::Code::ManifestMissing,
            not_found_message(),
            1,
            1,
            Exit::Usage,
        );
        return Err(finish(&r, &Redactor::default(), json, style, false));
    }
    // The manifest is required except for prune/status with --owner.
    let manifest = if owner_flag.is_some() && !settings.manifest.exists() {
        None
    } else {
        match engine::load_manifest_profile(&settings.manifest, settings.profile.as_deref()) {
            Ok(m) => Some(m),
            Err(r) => return Err(finish(&r, &Redactor::default(), json, style, false)),
        }
    };
    let owner = owner_flag
        .or_else(|| manifest.as_ref().map(|m| m.owner.clone()))
        .unwrap_or_default();
    Ok((manifest, owner))
}
