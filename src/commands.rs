//! The command layer: resolves settings, calls the engine, prints. The only module that writes
//! to stdout or stderr.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::{Cli, Color, Command, Format};
use crate::dialect::{self, Base, PinSupport};
use crate::engine::{self, Exit, Mode, Report, Settings};
use crate::manifest::{Manifest, Server, Transport};
use crate::output::{self, Style};
use crate::redact::Redactor;

/// The manifest's JSON Schema, exactly as shipped in `schemas/manifest.schema.json`.
pub const SCHEMA: &str = include_str!("../schemas/manifest.schema.json");

/// Run a parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> u8 {
    let g = &cli.global;
    let json = g.format == Format::Json;
    let style = Style {
        color: match g.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stdout().is_terminal()
            }
        },
    };
    match &cli.command {
        Command::Schema => {
            print!("{SCHEMA}");
            return 0;
        }
        Command::Clients => {
            print!("{}", clients_text(json));
            return 0;
        }
        _ => {}
    }
    let settings = match settings(&cli) {
        Ok(s) => s,
        Err(m) => {
            eprintln!("error: {m}");
            return Exit::Usage as u8;
        }
    };
    let owner_flag = match &cli.command {
        Command::Prune { owner, .. } | Command::Status { owner } => owner.clone(),
        _ => None,
    };
    // The manifest is required except for prune/status with --owner.
    let manifest = if owner_flag.is_some() && !settings.manifest.exists() {
        None
    } else {
        match engine::load_manifest(&settings.manifest) {
            Ok(m) => Some(m),
            Err(r) => return finish(&r, &Redactor::default(), json, style, false),
        }
    };
    let owner = owner_flag
        .or_else(|| manifest.as_ref().map(|m| m.owner.clone()))
        .unwrap_or_default();
    let red = redactor(manifest.as_ref());

    match &cli.command {
        Command::Plan { check } => {
            let mut r = engine::plan(
                &settings,
                manifest.as_ref(),
                &owner,
                Mode::Apply { adopt: false },
            );
            if *check && r.exit == Exit::Ok && r.has_changes() {
                r.exit = Exit::Found;
            }
            scan_files(&r, &red)
                .map(|red| finish(&r, &red, json, style, false))
                .unwrap_or(0)
        }
        Command::Apply { yes, adopt } => run_apply(
            &settings,
            manifest.as_ref(),
            &owner,
            Mode::Apply { adopt: *adopt },
            *yes,
            &red,
            json,
            style,
        ),
        Command::Prune { yes, .. } => run_apply(
            &settings,
            manifest.as_ref(),
            &owner,
            Mode::Prune,
            *yes,
            &red,
            json,
            style,
        ),
        Command::Status { .. } => match engine::status(&settings, &owner) {
            Ok(records) => {
                print!("{}", output::status_text(&owner, &records, json));
                0
            }
            Err(r) => finish(&r, &red, json, style, false),
        },
        Command::Schema | Command::Clients => 0,
    }
}

#[allow(clippy::too_many_arguments)]
fn run_apply(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    mode: Mode,
    yes: bool,
    red: &Redactor,
    json: bool,
    style: Style,
) -> u8 {
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let mut shown = false;
    let report = if yes {
        engine::apply(settings, manifest, owner, mode, None)
    } else {
        let mut ask = |plan: &Report| -> bool {
            let red = scan_files(plan, red).unwrap_or_default();
            if json {
                // Machine output is printed once, at the end.
            } else {
                print!("{}", output::diffs_text(plan, &red, style));
                print!("{}", output::summary_text(plan, &red, style, false));
                let _ = std::io::stdout().flush();
                shown = true;
            }
            if !interactive {
                eprintln!(
                    "error: refusing to write without confirmation: not a terminal; pass --yes to apply"
                );
                return false;
            }
            eprint!("Apply these changes? [y/N] ");
            let _ = std::io::stderr().flush();
            let mut line = String::new();
            let _ = std::io::stdin().lock().read_line(&mut line);
            matches!(line.trim(), "y" | "Y" | "yes" | "Yes" | "YES")
        };
        engine::apply(settings, manifest, owner, mode, Some(&mut ask))
    };
    let red = scan_files(&report, red).unwrap_or_default();
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

/// Add every credential found in the files that are shown (those that change) to the
/// redactor: one streaming pass over each file's bytes, before and after, building nothing but
/// the credential-like members found. A file that does not change shows none of its content.
/// Above [`SCAN_WHOLE_FILE`] only the part that a diff shows (with context) is scanned.
fn scan_files(r: &Report, base: &Redactor) -> Option<Redactor> {
    let mut red = base.clone();
    for f in r.files.iter().filter(|f| f.writes()) {
        let old = f.old.as_ref().map(|d| d.bytes()).unwrap_or_default();
        let new = f.new.as_deref().unwrap_or_default();
        let (old, new) = if old.len().max(new.len()) > SCAN_WHOLE_FILE {
            let (o, n, _) = output::window(old, new);
            (o, n)
        } else {
            (old, new)
        };
        mcpconf_scan(old, &mut red);
        mcpconf_scan(new, &mut red);
    }
    Some(red)
}

/// Files up to this size are scanned whole for credentials.
const SCAN_WHOLE_FILE: usize = 8 << 20;

fn mcpconf_scan(bytes: &[u8], red: &mut Redactor) {
    crate::jsondoc::string_members(bytes, crate::redact::credential_name, |k, v| {
        red.consider(k, v)
    });
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
    match &s.transport {
        Transport::Stdio { env, .. } => {
            for (k, v) in env {
                red.consider(k, &v.raw);
                if let Some(l) = v.as_literal() {
                    red.consider(k, &l);
                }
            }
        }
        Transport::Remote { headers, .. } => {
            for (k, v) in headers {
                red.consider(k, &v.raw);
                if let Some(l) = v.as_literal() {
                    red.consider(k, &l);
                }
            }
        }
    }
}

fn settings(cli: &Cli) -> Result<Settings, String> {
    let g = &cli.global;
    let abs = |p: &Path| std::path::absolute(p).map_err(|e| format!("`{}`: {e}", p.display()));
    let root = abs(&g.root.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let home = match &g.home {
        Some(h) => abs(h)?,
        None => match std::env::var_os("HOME") {
            Some(h) if !h.is_empty() => abs(Path::new(&h))?,
            _ => return Err("HOME is not set; pass --home DIR".into()),
        },
    };
    let state_dir = match &g.state_dir {
        Some(s) => abs(s)?,
        None => match std::env::var_os("MCPCONF_STATE_DIR").filter(|v| !v.is_empty()) {
            Some(s) => abs(Path::new(&s))?,
            None => match std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
                Some(x) => abs(&Path::new(&x).join("mcpconf"))?,
                None => home.join(".local/state/mcpconf"),
            },
        },
    };
    let manifest = abs(&g
        .manifest
        .clone()
        .unwrap_or_else(|| PathBuf::from("mcpconf.toml")))?;
    if !(g.lock_timeout.is_finite() && g.lock_timeout >= 0.0 && g.lock_timeout <= 86_400.0) {
        return Err("--lock-timeout must be a number of seconds between 0 and 86400".into());
    }
    Ok(Settings {
        manifest,
        root,
        home,
        state_dir,
        lock_timeout: Duration::from_secs_f64(g.lock_timeout),
    })
}

fn clients_text(json: bool) -> String {
    use std::fmt::Write;
    let mut rows = Vec::new();
    for d in dialect::ALL {
        let scopes: Vec<serde_json::Value> = d
            .scopes()
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "base": match s.base { Base::Root => "root", Base::Home => "home" },
                    "path": s.path,
                })
            })
            .collect();
        rows.push(serde_json::json!({
            "id": d.id(),
            "description": d.description(),
            "default_scope": d.default_scope().name,
            "scopes": scopes,
            "syntax": d.syntax().describe(),
            "placeholder": d.placeholder(),
            "tool_pin": match d.pin_support() { PinSupport::None => "not expressible".to_string(), PinSupport::Field(f) => f.to_string() },
            "known_fields": d.known_fields(),
        }));
    }
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
                format!("{base}/{}", s.path)
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
    }
    out
}
