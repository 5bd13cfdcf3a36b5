//! `mcpconf policy plan | apply | prune | report`: the manifest's `[policy]` in each client's
//! admin files ([`crate::policy`]). Plan, apply and prune are the ordinary commands run with
//! [`Settings::system_root`] set, so admin files get every guarantee client files get.

use super::*;
use crate::cli::PolicyAction;
use crate::console::println;
use std::path::PathBuf;

/// Turns `policy plan|apply|prune` into the ordinary command it runs and returns the system
/// root it runs under (`/` unless `--system-root` says otherwise); `None` for any other
/// command and for `policy report`, which keeps its own.
pub(super) fn translate(cli: &mut Cli) -> Option<PathBuf> {
    let Command::Policy {
        action,
        system_root,
    } = &cli.command
    else {
        return None;
    };
    let root = system_root.clone().unwrap_or_else(|| PathBuf::from("/"));
    cli.command = match action.clone() {
        PolicyAction::Plan { check } => Command::Plan {
            check,
            adopt: false,
            out: None,
            take_over: Vec::new(),
            replace: Vec::new(),
            prune: false,
        },
        PolicyAction::Apply { yes, keep_going } => Command::Apply {
            plan: None,
            yes,
            adopt: false,
            watch: false,
            keep_going,
            take_over: Vec::new(),
            replace: Vec::new(),
        },
        PolicyAction::Prune {
            yes,
            keep_going,
            dry_run,
        } => Command::Prune {
            owner: None,
            yes,
            keep_going,
            dry_run,
        },
        PolicyAction::Report => return Some(root),
    };
    Some(root)
}

/// A write to the system's own admin files needs root: said before anything is read, with
/// the way out (`--system-root`), instead of a permission error per file.
pub(super) fn needs_root(cli: &Cli, system_root: &Path) -> Option<String> {
    let writes = matches!(
        cli.command,
        Command::Apply { .. } | Command::Prune { dry_run: false, .. }
    );
    if !writes || system_root != Path::new("/") || fsio::FileMeta::superuser() {
        return None;
    }
    Some(
        "`mcpconf policy apply` and `prune` write the system's admin files (under /etc), which only root may: run them as root (sudo), or give `--system-root DIR` to write the files under DIR (a package or MDM payload)".into(),
    )
}

/// `mcpconf policy report`: per admin file, what it will enforce and what it cannot express;
/// then the clients with no admin control. Exit 0, or 2 when the manifest has no `[policy]`.
pub(super) fn run_report(cx: &Cx<'_>, system_root: &Path) -> u8 {
    let Some(policy) = cx.manifest.and_then(|m| m.policy.as_ref()) else {
        return usage_error(
            cx.json,
            "the manifest has no `[policy]` table; add one (`allow`, `deny`, `exclusive`: docs/policy.md)",
        );
    };
    let compiled = crate::policy::compile(policy);
    if cx.json {
        let clients: Vec<serde_json::Value> = compiled
            .iter()
            .map(|c| {
                serde_json::json!({
                    "client": c.admin.client,
                    "admin_file": system_root.join(c.admin.scopes[0].path),
                    "keys": c.entries.iter().map(|(k, _)| k).collect::<Vec<_>>(),
                    "enforces": c.enforces,
                    "cannot_express": c.cannot,
                    "source": c.admin.source,
                })
            })
            .collect();
        let doc = serde_json::json!({
            "format_version": 1,
            "clients": clients,
            "no_admin_control": crate::policy::UNCONTROLLED,
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return 0;
    }
    let esc = |s: &str| crate::redact::escape_controls(s).into_owned();
    for c in &compiled {
        println!(
            "{} ({}):",
            c.admin.client,
            system_root.join(c.admin.scopes[0].path).display()
        );
        if c.enforces.is_empty() {
            println!("  enforces: nothing of this policy");
        }
        for e in &c.enforces {
            println!("  enforces: {}", esc(e));
        }
        for n in &c.cannot {
            println!("  cannot express: {}", esc(n));
        }
    }
    println!("no file-based admin control:");
    for u in crate::policy::UNCONTROLLED {
        println!("  {}: {}", u.client, u.instead);
    }
    0
}
