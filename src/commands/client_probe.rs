//! `probe --client ID` and `probe --all-clients`: the entries of client files, probed as their
//! clients would start them (the manifest's own servers are `checks::run_probe`).

use super::*;
use crate::console::{eprintln, print};

/// Import warnings as `probe` prints them: without the sentence about `apply --adopt`, and
/// with control characters from the file's entry names escaped.
pub(super) fn probe_warning(w: &str) -> String {
    crate::probe::printable(
        w.strip_suffix(crate::import::ADOPT_REFUSED).unwrap_or(w),
        false,
    )
}

/// `probe --all-clients`: probe the entries of every client file under `--root` and `--home`;
/// each outcome is named `CLIENT/SERVER`.
pub(super) fn run_probe_all_clients(
    settings: &Settings,
    names: &[String],
    (timeout, net, smoke): (f64, Net, bool),
    (json, yes): (bool, bool),
) -> u8 {
    use crate::probe;
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 3600.0) {
        return usage_error(
            json,
            "--timeout must be a number of seconds above 0 and at most 3600",
        );
    }
    let bases = super::client_file::file_ctx(settings);
    let mut manifests = Vec::new();
    let mut code = Exit::Ok as u8;
    // Every scope each file serves: `~/.claude.json` holds Claude Code's user scope and its
    // local scope (`projects[<root>].mcpServers`), where openab's recipe writes.
    let files = crate::lint::client_files(&bases);
    let scoped = files.iter().flat_map(|(path, d, scopes)| {
        let many = scopes.len() > 1;
        let all: Vec<Option<&'static str>> = if scopes.is_empty() {
            vec![None]
        } else {
            scopes.iter().map(|s| Some(*s)).collect()
        };
        all.into_iter().map(move |scope| {
            let id = match (many, scope) {
                (true, Some(sc)) => format!("{}:{sc}", d.id()),
                _ => d.id().to_string(),
            };
            (path, *d, scope, id)
        })
    });
    for (path, d, scope, id) in scoped {
        let shown = path.display().to_string();
        match read_client(settings, d.id(), scope, Some(&shown), "probe") {
            Ok((imported, file, _, _)) => {
                for w in &imported.warnings {
                    eprintln!("warning: {}: {}", file.display(), probe_warning(w));
                }
                if imported.servers == 0 {
                    // Nothing to probe (every entry was skipped, with a warning above).
                    continue;
                }
                match crate::manifest::parse(&imported.manifest, &crate::known::Known) {
                    Ok(m) => manifests.push((id, m)),
                    Err(e) => {
                        eprintln!(
                            "error: the entries of `{}` cannot be probed: {e}",
                            file.display()
                        );
                        code = Exit::Found as u8;
                    }
                }
            }
            // Most known client files do not exist on a given machine: not an error.
            Err(f) if f.error.code == crate::diag::Code::NotFound => {}
            Err(f) => {
                f.print(false);
                code = Exit::Found as u8;
            }
        }
    }
    let selected: Vec<(&str, &Server)> = manifests
        .iter()
        .flat_map(|(id, m)| m.servers.iter().map(move |s| (id.as_str(), s)))
        .filter(|(id, s)| {
            names.is_empty()
                || names
                    .iter()
                    .any(|n| *n == s.name || *n == format!("{id}/{}", s.name))
        })
        .collect();
    let mut red = Redactor::default();
    for (_, m) in &manifests {
        red.merge(&redactor(Some(m)));
    }
    let listed: Vec<(String, &Server)> = selected
        .iter()
        .map(|(id, s)| (format!("{id}/{}", s.name), *s))
        .collect();
    if let Err(code) = consent::to_start(&listed, &red, yes, json) {
        return code;
    }
    let servers: Vec<&Server> = selected.iter().map(|(_, s)| *s).collect();
    let mut outcomes =
        match super::checks::probe_servers(settings, &servers, (timeout, net, smoke), json) {
            Ok(o) => o,
            Err(code) => return code,
        };
    for (o, (id, _)) in outcomes.iter_mut().zip(&selected) {
        o.name = format!("{id}/{}", o.name);
    }
    if !outcomes.iter().all(probe::Outcome::passes) {
        code = Exit::Found as u8;
    }
    if json {
        print!("{}", probe::report_json(&outcomes, None, None, &red));
    } else {
        print!("{}", probe::report_text(&outcomes, None, &red));
    }
    code
}

/// `probe --client ID`: probe every entry of that client's file, its references expanded from
/// the environment (the client's spelling read as `import` reads it).
pub(super) fn run_probe_client(
    settings: &Settings,
    (client, scope, path): (&str, Option<&str>, Option<&str>),
    names: &[String],
    timeout: (f64, Net, bool),
    (json, yes): (bool, bool),
) -> u8 {
    let (imported, file, _, _) = match read_client(settings, client, scope, path, "probe") {
        Ok(x) => x,
        Err(f) => return f.print(json),
    };
    for w in &imported.warnings {
        eprintln!("warning: {}", probe_warning(w));
    }
    let m = match crate::manifest::parse(&imported.manifest, &crate::known::Known) {
        Ok(m) => m,
        Err(e) => {
            eprintln!(
                "error: the entries of `{}` cannot be probed: {e}",
                file.display()
            );
            return Exit::Refused as u8;
        }
    };
    let red = redactor(Some(&m));
    let listed: Vec<(String, &Server)> = m
        .servers
        .iter()
        .filter(|s| names.is_empty() || names.contains(&s.name))
        .map(|s| (format!("{client}/{}", s.name), s))
        .collect();
    if let Err(code) = consent::to_start(&listed, &red, yes, json) {
        return code;
    }
    run_probe(settings, &m, names, timeout, false, &red, json)
}
