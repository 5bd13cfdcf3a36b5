//! `mcpconf import`: a manifest for what a client file holds, and the commands to run next.

use super::*;
use crate::console::{eprint, eprintln, print, println};

/// What `import` reads: one client's file (`--client ID [--scope S] [--path P]`), or every
/// client file found (`--all`).
pub(super) enum Which<'a> {
    One(&'a str, Option<&'a str>, Option<&'a str>),
    All,
}

pub(super) fn run_import(
    settings: &Settings,
    which: Which<'_>,
    (owner, only): (&str, &[String]),
    json: bool,
    flags: &str,
) -> u8 {
    if !crate::manifest::valid_owner(owner) {
        return Failure::usage(
            crate::diag::Code::InvalidOwner,
            format!("--owner: {}", crate::manifest::owner_error(owner)),
        )
        .print(json);
    }
    let (client, scope, path) = match which {
        Which::One(c, s, p) => (c, s, p),
        Which::All => {
            let parts = super::import_all::every_file(settings);
            return run_merged(settings, &parts, (owner, only), json, flags);
        }
    };
    // A client whose file is a glob (Kiro agents): every file it matches.
    if let Some(d) = dialect::lookup_client(client).filter(|d| d.multi_file())
        && let Some(sc) = scope.map_or(Some(d.default_scope()), |s| d.scope(s))
        && path.is_none_or(|p| p.contains(['*', '?']))
    {
        let parts = super::import_all::glob_files(settings, d, sc, path);
        return run_merged(settings, &parts, (owner, only), json, flags);
    }
    let (imported, file, d, sc) =
        match read_client_only(settings, (client, scope, path), owner, (only, false)) {
            Ok(x) => x,
            Err(f) => return f.print(json),
        };
    // A file without servers makes no manifest (one would declare none, which `plan`
    // refuses): said so, with its own code, and exit 1 (nothing to import).
    if imported.servers == 0 {
        // Entries, not warnings: one entry may have several.
        let skipped = match imported.entries {
            0 => String::new(),
            1 => " (1 entry skipped, see the warnings)".to_string(),
            n => format!(" ({n} entries skipped, see the warnings)"),
        };
        for w in &imported.warnings {
            eprintln!("warning: {w}");
        }
        let mut f = Failure::usage(
            crate::diag::Code::NoServers,
            format!(
                "no MCP servers in `{}` for client `{}` ({} scope){skipped}: there is nothing to import",
                file.display(),
                d.id(),
                sc.name
            ),
        );
        f.exit = Exit::Found;
        return f.print(json);
    }
    if json {
        // The manifest stays TOML (its comments and order are the point); JSON carries it.
        let doc = serde_json::json!({
            "format_version": 1,
            "path": file.display().to_string(),
            "client": d.id(),
            "scope": sc.name,
            "manifest": imported.manifest,
            "warnings": imported.warnings,
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return 0;
    }
    for w in &imported.warnings {
        eprintln!("warning: {w}");
    }
    print!("{}", imported.manifest);
    eprint!("{}", import_next_steps(&imported, owner, flags));
    0
}

/// What to run after `import` (on stderr, so stdout stays the manifest): the variables import
/// made up for literal secrets get their values from the file; the references the entries
/// already held only need to be set.
/// The options given to `import` that the printed next commands need again (`--root`,
/// `--home`, `--state-dir`), each value quoted for a POSIX shell when it needs it.
pub(super) fn next_flags(g: &crate::cli::Global) -> String {
    let quote = |p: &std::path::Path| {
        let s = p.display().to_string();
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-+=:@,".contains(c))
        {
            s
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    [
        ("--root", &g.root),
        ("--home", &g.home),
        ("--state-dir", &g.state_dir),
    ]
    .iter()
    .filter_map(|(flag, v)| v.as_deref().map(|p| format!(" {flag} {}", quote(p))))
    .collect()
}

fn import_next_steps(imported: &crate::import::Imported, owner: &str, flags: &str) -> String {
    // `${VAR}` references only: a `$${` is a literal (a client's own `${workspaceFolder}`).
    let m = &imported.manifest;
    let mut vars: Vec<&str> = m
        .match_indices("${")
        .filter(|(i, _)| !m[..*i].ends_with('$'))
        .filter_map(|(i, _)| m[i + 2..].split_once('}').map(|(v, _)| v))
        .filter(|v| !v.is_empty() && v.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()))
        .collect();
    vars.sort_unstable();
    vars.dedup();
    let (made, held): (Vec<&str>, Vec<&str>) = vars
        .into_iter()
        .partition(|v| imported.replaced.iter().any(|r| r == v));
    let mut out = String::from(
        "next: save this as `mcpconf.toml` in the project (the root defaults to its directory; saved under another name, add `-m FILE` to the commands below) and review it;\n",
    );
    if !made.is_empty() {
        out.push_str(&format!(
            "  export {} with the values the file holds now (import replaced those literals by references),\n",
            made.join(" ")
        ));
    }
    if !held.is_empty() {
        out.push_str(&format!(
            "  make sure {} {} set where the client runs (the entries already referred to {}),\n",
            held.join(" "),
            if held.len() == 1 { "is" } else { "are" },
            if held.len() == 1 { "it" } else { "them" }
        ));
    }
    // The commands, one a line, to run as printed from the project's directory.
    let take_over: String = imported
        .respelled
        .iter()
        .map(|s| format!(" --take-over {s}"))
        .collect();
    out.push_str(&format!(
        "  then run, reviewing the plan before the apply (the entries become owner `{owner}`'s: a literal equal to its reference's value is replaced by the reference{}):\n",
        if take_over.is_empty() {
            ""
        } else {
            "; an entry whose reference was spelled in a form its client does not expand is taken over, and prune gives it back as it was"
        }
    ));
    // The options import was given (`--root`, `--home`, `--state-dir`) go with each command.
    out.push_str(&format!(
        "  mcpconf plan{take_over}{flags}\n  mcpconf apply --yes --adopt{take_over}{flags}\n  mcpconf status --check{flags}\n"
    ));
    out.push_str(
        "  The owner decides what prune removes later: use one owner per tool that manages these files, and import only its entries (`--server NAME`).\n",
    );
    out
}

/// `import --all`, or a glob client: every file merged into one manifest
/// ([`super::import_all::merged`]); exit 1 (`no-servers`) when none holds a server.
fn run_merged(
    settings: &Settings,
    parts: &[super::import_all::Part],
    (owner, only): (&str, &[String]),
    json: bool,
    flags: &str,
) -> u8 {
    let (imported, warnings) = super::import_all::merged(settings, parts, owner, only);
    let Some(imported) = imported else {
        for w in &warnings {
            eprintln!("warning: {w}");
        }
        let mut f = Failure::usage(
            crate::diag::Code::NoServers,
            format!(
                "no MCP servers in the {} client file(s) found: there is nothing to import",
                parts.len()
            ),
        );
        f.exit = Exit::Found;
        return f.print(json);
    };
    if json {
        let doc = serde_json::json!({
            "format_version": 1,
            "files": parts.len(),
            "manifest": imported.manifest,
            "warnings": warnings,
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return 0;
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    print!("{}", imported.manifest);
    eprint!("{}", import_next_steps(&imported, owner, flags));
    0
}
