//! The checking commands: `probe` (start servers, speak MCP, compare with the pins) and
//! `lint` (rules over client files), each turning a library report into output and an exit
//! code.

use super::*;
use crate::console::{eprint, eprintln, print, println};

/// `mcpconf probe`: start the selected servers, print what they expose; exit 1 when one fails
/// or exposes tools outside its pin, 2 on a usage error.
pub(super) fn run_probe(
    settings: &Settings,
    m: &Manifest,
    names: &[String],
    (timeout, net, smoke): (f64, Net, bool),
    write_pins: bool,
    red: &Redactor,
    json: bool,
) -> u8 {
    use crate::probe;
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 3600.0) {
        return usage_error(
            json,
            "--timeout must be a number of seconds above 0 and at most 3600",
        );
    }
    let mut selected: Vec<&Server> = Vec::new();
    for n in names {
        let Some(s) = m.server(n) else {
            let declared = m.servers.iter().map(|s| s.name.as_str());
            let hint = match crate::text::closest(n, declared) {
                Some(c) => format!("did you mean `{c}`?"),
                None => {
                    let all: Vec<String> =
                        m.servers.iter().map(|s| format!("`{}`", s.name)).collect();
                    format!("declared servers: {}", all.join(", "))
                }
            };
            return usage_error(
                json,
                format!("the manifest declares no server `{n}`; {hint}"),
            );
        };
        if !selected.iter().any(|x| x.name == s.name) {
            selected.push(s);
        }
    }
    if names.is_empty() {
        selected = m.servers.iter().collect();
    }
    let outcomes = match probe_servers(settings, &selected, (timeout, net, smoke), json) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut code = if outcomes.iter().all(probe::Outcome::passes) {
        Exit::Ok as u8
    } else {
        Exit::Found as u8
    };
    let diff = if write_pins {
        let text = crate::fsio::read(&settings.manifest, 16 * 1024 * 1024)
            .map_err(|e| e.to_string())
            .and_then(|r| r.ok_or_else(|| "the manifest is gone".to_string()))
            .and_then(|r| String::from_utf8(r.bytes).map_err(|e| e.to_string()))
            .and_then(|t| {
                probe::pins_diff(&t, &settings.manifest, &outcomes, &crate::known::Known)
                    .map_err(|e| e.message)
            });
        match text {
            Ok(d) => Some(d),
            Err(e) => {
                eprintln!("error: cannot propose pins: {}", red.redact(&e));
                code = Exit::Usage as u8;
                None
            }
        }
    } else {
        None
    };
    if json {
        print!(
            "{}",
            probe::report_json(&outcomes, diff.as_deref(), m.profile.as_deref(), red)
        );
    } else {
        print!(
            "{}",
            probe::report_text(&outcomes, m.profile.as_deref(), red)
        );
        match diff.as_deref() {
            Some("") if !outcomes.iter().any(|o| o.ok) => {
                println!("\nNo server answered, so there are no pins to propose.")
            }
            Some("") => println!("\nThe pins already match what the reachable servers expose."),
            Some(d) => print!(
                "\nProposed pins (servers that failed are left out; the manifest is not written):\n{}",
                red.redact(d)
            ),
            None => {}
        }
    }
    code
}

/// `mcpconf lint`: exit 1 when an error-level finding exists, 2 on a usage error.
/// `mcpconf lint`; `paths` are `args.paths`, moved out of them.
pub(super) fn run_lint(
    cli: &Cli,
    args: &LintArgs,
    paths: Vec<std::path::PathBuf>,
    style: Style,
) -> u8 {
    use crate::lint::{self, Severity, render};
    let g = &cli.global;
    let lint_json = g.format == Format::Json;
    let usage = |m: &str| usage_error(lint_json, m);
    let settings = match settings(cli) {
        Ok(s) => s,
        Err(m) => return usage(&m),
    };
    // The manifest is optional for lint; one named explicitly must exist and be valid.
    let manifest = if g.manifest.is_some() || settings.manifest.exists() {
        match engine::load_manifest_profile(&settings.manifest, settings.profile.as_deref()) {
            Ok(m) => Some(m),
            Err(r) if lint_json => {
                print!("{}", output::report_json(&r, &Redactor::default()));
                return Exit::Usage as u8;
            }
            Err(r) => {
                eprint!(
                    "{}",
                    output::errors_text(&r.errors, &Redactor::default(), style)
                );
                return Exit::Usage as u8;
            }
        }
    } else {
        None
    };
    // A manifest found in a parent directory sets the root to its own directory: lint then
    // reads the files there, not the current directory's. Said, never silent (issue 41).
    if manifest.is_some()
        && g.manifest.is_none()
        && g.root.is_none()
        && paths.is_empty()
        && g.format == Format::Text
        && let (Ok(cwd), Some(dir)) = (std::env::current_dir(), settings.manifest.parent())
        && fsio::resolve(&cwd).ok() != fsio::resolve(dir).ok()
    {
        eprintln!(
            "note: using the manifest `{}` found in a parent directory: linting the files under `{}` (pass `--root .` to lint this directory's files against it)",
            settings.manifest.display(),
            settings.root.display()
        );
    }
    let mut config = lint::Config::default();
    if let Some(m) = &manifest {
        for (list, level) in [
            (&m.lint.deny, Severity::Error),
            (&m.lint.warn, Severity::Warning),
            (&m.lint.allow, Severity::Off),
        ] {
            for rule in list {
                if let Err(e) = config.set(rule, level) {
                    return usage(&e.message);
                }
            }
        }
    }
    let mut given: Vec<&str> = Vec::new();
    for (list, level, flag) in [
        (&args.deny, Severity::Error, "--deny"),
        (&args.warn, Severity::Warning, "--warn"),
        (&args.allow, Severity::Off, "--allow"),
    ] {
        for rule in list {
            if let Err(e) = config.set(rule, level) {
                return usage(&e.message);
            }
            if given.contains(&rule.as_str()) {
                return usage(&format!(
                    "rule `{rule}` is given more than one severity (last: {flag}); give it one"
                ));
            }
            given.push(rule);
        }
    }
    let client = match &args.client {
        None => None,
        Some(id) => match dialect::lookup_client(id) {
            Some(d) => Some(d),
            None => return usage(&unknown_client(id)),
        },
    };
    let req = lint::Request {
        root: settings.root.clone(),
        home: settings.home.clone(),
        client_homes: settings.client_homes.clone(),
        xdg_config_home: settings.xdg_config_home.clone(),
        // Moved to `lint_paths` below instead (each becomes its file's without a copy).
        paths: Vec::new(),
        client,
        state_dir: Some(settings.state_dir.clone()),
        owners: manifest.iter().map(|m| m.owner.clone()).collect(),
        legacy: manifest
            .iter()
            .flat_map(|m| m.legacy.iter().map(|l| (m.owner.clone(), l.clone())))
            .collect(),
        current: manifest.iter().flat_map(declared_entries).collect(),
        policy: manifest.as_ref().and_then(|m| m.policy.clone()),
        config,
    };
    let progress = output::Progress::start(
        "linting",
        g.format == Format::Text && std::io::stderr().is_terminal(),
    );
    let linted = lint::lint_paths(&req, paths);
    drop(progress);
    let report = match linted {
        Ok(r) => r,
        Err(e) => return usage(&e.message),
    };
    let text = match g.format {
        Format::Text => render::text(&report, style.color),
        Format::Json => render::json(&report),
        Format::Sarif => render::sarif(&report, &settings.root),
        Format::Github => render::github(&report, &settings.root),
    };
    let shown = match g.format {
        Format::Json | Format::Sarif => report.redactor.redact_json(&text),
        Format::Text | Format::Github => report.redactor.redact(&text),
    };
    print!("{shown}");
    if report.has_errors() {
        Exit::Found as u8
    } else {
        Exit::Ok as u8
    }
}

/// Every entry the manifest declares, as each target's client spells it (its off form when
/// switched off): what `lint` takes as current without a ledger.
fn declared_entries(m: &crate::manifest::Manifest) -> Vec<(String, String, serde_json::Value)> {
    let mut out = Vec::new();
    for t in &m.targets {
        let Some(d) = dialect::lookup(&t.client) else {
            continue;
        };
        for s in m.servers_for(t) {
            let enabled = s.enabled.unwrap_or(true) && t.enabled.unwrap_or(true);
            if let Ok(mut r) = dialect::render_target(d, s, t.client_version.as_deref(), enabled) {
                dialect::with_trust(d, t.auto_approve, &mut r.value);
                out.push((t.client.clone(), s.name.clone(), r.value));
            }
        }
    }
    out
}

/// Start and probe `servers` (the run's settings, timeout, network and `--smoke`), with the
/// progress indicator on a terminal; a bad `--proxy` is the usage error's exit code.
pub(super) fn probe_servers(
    settings: &Settings,
    servers: &[&Server],
    (timeout, net, smoke): (f64, Net, bool),
    json: bool,
) -> Result<Vec<crate::probe::Outcome>, u8> {
    use crate::probe;
    let proxy = match net.proxies() {
        Ok(p) => p,
        Err(m) => return Err(usage_error(json, m)),
    };
    let opts = probe::Options {
        timeout: Duration::from_secs_f64(timeout),
        parallel: probe::DEFAULT_PARALLEL,
        base_dir: settings.root.clone(),
        cacert: net.cacert,
        smoke,
        proxy,
    };
    let lookup = |v: &str| std::env::var(v).ok();
    probe::kill_servers_on_signal();
    let progress = output::Progress::start(
        &format!("probing {} server(s)", servers.len()),
        !json && std::io::stderr().is_terminal(),
    );
    let outcomes = probe::probe_all(servers, &opts, &lookup);
    drop(progress);
    Ok(outcomes)
}
