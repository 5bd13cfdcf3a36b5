//! `mcpconf inventory`: every MCP server configured on this machine, across every known client
//! file under the root and the home and every scope each file serves, one flat row each (so an
//! osquery/Fleet-style inventory or a spreadsheet reads it): client, scope, file, name,
//! transport, the command line or URL (credentials hidden by the one detector), whether the
//! client has it switched on, which mcpconf owner wrote it (by the ledgers in the state
//! directory) and whether it is still as written. Reads only; discovers files as `lint` does.

use serde::Serialize;
use serde_json::Value;

use super::Request;
use crate::fsio;
use crate::ledger::{self, Ownership};

/// One server entry found on the machine.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The client that reads the file.
    pub client: &'static str,
    /// The scope of the file the entry is in (`user`, `project`, `local`, …).
    pub scope: &'static str,
    /// The file, as found.
    pub path: String,
    /// The entry's name.
    pub name: String,
    /// `stdio`, `http`, `sse`, or `unknown`.
    pub transport: &'static str,
    /// The command line or the URL, every credential in it `<redacted>`.
    pub target: String,
    /// Whether the client has it switched on (its off form, or `disabled: true`, says not).
    pub enabled: bool,
    /// The mcpconf owner whose ledger records it; `null` when none does.
    pub owner: Option<String>,
    /// `intact` or `drifted` for an owned entry; `unowned` otherwise.
    pub state: &'static str,
}

/// A file that could not be read or parsed: where, and why (never a value).
#[derive(Debug, Clone, Serialize)]
pub struct Unread {
    /// The file.
    pub path: String,
    /// Why.
    pub message: String,
}

/// Every server entry of every known client file under `req`'s root and home, in discovery
/// order, and the files (and ledgers) that could not be read.
pub fn inventory(req: &Request) -> (Vec<Row>, Vec<Unread>) {
    let ctx = crate::dialect::Ctx {
        root: req.root.clone(),
        home: req.home.clone(),
        client_homes: req.client_homes.clone(),
        xdg_config_home: req.xdg_config_home.clone(),
        project: crate::fsio::git_main_root(&req.root),
    };
    let (ledgers, unread_ledgers) = super::rules::drift::ledgers(req);
    let mut unread: Vec<Unread> = unread_ledgers
        .into_iter()
        .map(|(p, m)| Unread {
            path: p.display().to_string(),
            message: m,
        })
        .collect();
    let mut rows = Vec::new();
    for (path, d, scopes) in files(req, &ctx) {
        let shown = path.display().to_string();
        let doc = match read(&path, d) {
            Ok(Some(doc)) => doc,
            // Most known files do not exist on a given machine.
            Ok(None) => continue,
            Err(message) => {
                unread.push(Unread {
                    path: shown,
                    message,
                });
                continue;
            }
        };
        let key = fsio::resolve(&path).unwrap_or_else(|_| path.clone());
        let owned = ledgers.get(&key.display().to_string());
        let scopes = if scopes.is_empty() {
            vec![d.default_scope().name]
        } else {
            scopes
        };
        for scope in scopes {
            let container = d.container(scope, &ctx);
            let Some(Value::Object(entries)) = doc.get(&container) else {
                continue;
            };
            for (name, v) in &entries {
                let pointer = ledger::pointer(&container, name);
                let rec = owned.and_then(|o| o.iter().find(|(_, r)| r.pointer == pointer));
                let (owner, state) = match rec {
                    Some((owner, r)) => {
                        let own = r.ownership_in(Some(v), crate::dialect::client_facts(d.id()));
                        let state = if own == Ownership::Intact {
                            "intact"
                        } else {
                            "drifted"
                        };
                        (Some(owner.clone()), state)
                    }
                    None => (None, "unowned"),
                };
                let (transport, target) = described(v);
                rows.push(Row {
                    client: d.id(),
                    scope,
                    path: shown.clone(),
                    name: name.clone(),
                    transport,
                    target,
                    enabled: enabled(d, v),
                    owner,
                    state,
                });
            }
        }
    }
    (rows, unread)
}

/// The known client files under the root and the home, then the project files of each more
/// root (`req.paths`), each file once.
fn files(
    req: &Request,
    ctx: &crate::dialect::Ctx,
) -> Vec<(
    std::path::PathBuf,
    &'static dyn crate::dialect::Dialect,
    Vec<&'static str>,
)> {
    let mut out = super::client_files(ctx);
    if req.paths.is_empty() {
        return out;
    }
    let mut seen: rustc_hash::FxHashSet<(std::path::PathBuf, &'static str)> =
        out.iter().map(|(p, d, _)| (p.clone(), d.id())).collect();
    let more = super::discover::inputs(req, req.paths.clone()).unwrap_or_default();
    for i in more {
        if seen.insert((i.path.clone(), i.client.id())) {
            out.push((i.path, i.client, i.scopes));
        }
    }
    out
}

/// The file parsed in its client's syntax (`None`: there is no such file), or why not.
fn read(
    path: &std::path::Path,
    d: &dyn crate::dialect::Dialect,
) -> Result<Option<crate::document::Doc>, String> {
    let bytes = match fsio::read_to_inspect(path, fsio::MAX_FILE) {
        Ok(Some(r)) => r.bytes,
        Ok(None) => return Ok(None),
        Err(e) => return Err(e.message),
    };
    crate::document::Doc::parse(&bytes, d.syntax())
        .map(Some)
        .map_err(|e| format!("{}:{}: {}", e.line, e.column, e.message))
}

/// The transport and the command line or URL of an entry, its credentials hidden.
fn described(v: &Value) -> (&'static str, String) {
    use crate::manifest::policy::Identity;
    let s = |k: &str| v.get(k).and_then(Value::as_str);
    let ty = s("type").or_else(|| s("transport")).unwrap_or("");
    let mut red = crate::redact::Redactor::default();
    // The one reading of what an entry runs or reaches (the policy's identity).
    match Identity::of_entry(v) {
        Some(Identity::Command { command, args }) => {
            let argv: Vec<String> = std::iter::once(command).chain(args).collect();
            red.consider_argv("args", &argv);
            ("stdio", red.redact(&argv.join(" ")))
        }
        Some(Identity::Url(u)) => {
            red.consider("url", &u);
            let t = if ty.contains("sse") { "sse" } else { "http" };
            (t, red.redact(&u))
        }
        None => ("unknown", String::new()),
    }
}

/// Whether the client has the entry switched on: not in its off form, not `disabled: true`.
fn enabled(d: &dyn crate::dialect::Dialect, v: &Value) -> bool {
    let off = d
        .off_form()
        .is_some_and(|o| v.get(o.key) == Some(&Value::Bool(o.off)));
    !off && v.get("disabled") != Some(&Value::Bool(true))
}
