//! The keys of an entry that mcpconf keeps as the file holds them, outside the manifest and
//! outside the ownership proof: the client's own ([`Dialect::client_managed`]), the user's
//! settings a dialect names ([`Dialect::user_keys`]), and, by construction, every other field
//! the client documents ([`Dialect::known_fields`]) that mcpconf never writes for it (Codex's
//! `startup_timeout_sec`, VS Code's `dev`, Cursor's `type`, Amazon Q's `timeout`, …). What
//! mcpconf writes is read off the dialect itself: the keys of its renderings of every shape of
//! server, so a field a writer learns to write stops being kept on its own.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::Dialect;
use crate::server::{RemoteKind, Server, Transport};
use crate::template::Template;

/// Fields that say what the server is (its program, arguments, environment, address and
/// headers, in any client's spelling): never kept aside, even where a client reads one under
/// another name than mcpconf writes.
const IDENTITY: &[&str] = &[
    "command",
    "cmd",
    "args",
    "env",
    "envs",
    "environment",
    "cwd",
    "url",
    "uri",
    "serverUrl",
    "httpUrl",
    "headers",
    "http_headers",
    "envFile",
    "transport",
];

/// What is read off one dialect once: the keys kept, and whether it marks a streamable HTTP
/// entry with a `type`.
struct Kept {
    keys: Vec<&'static str>,
    types_http: bool,
    /// Every top-level field the client reads ([`reads`]).
    reads: Vec<&'static str>,
}

/// Fields read in every client that has them: its switches (whether the entry runs at all)
/// and its transport marker.
const ALWAYS_READ: &[&str] = &["type", "disabled", "enabled"];

/// What is read off the dialect of `id`, read off it the first time it is asked for (about
/// 40 renderings: a run reads off only the clients it touches, not all of them); `None` for a
/// dialect outside the table (an admin file's).
fn kept_of(id: &str) -> Option<&'static Kept> {
    static CACHE: OnceLock<Mutex<HashMap<&'static str, &'static Kept>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let found = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(id)
        .copied();
    if found.is_some() {
        return found;
    }
    let d = *super::ALL.iter().find(|d| d.id() == id)?;
    // Read off outside the lock (rendering may ask for another dialect's facts); a race reads
    // one off twice and keeps the first, once per dialect for the life of the process.
    let kept = read_off(d);
    let mut map = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Some(
        *map.entry(d.id())
            .or_insert_with(|| Box::leak(Box::new(kept))),
    )
}

/// Every key mcpconf keeps in an entry of `d` as the file holds it (see the module). For a
/// dialect outside the table (an admin file's), its client's own keys.
pub fn kept_keys(d: &dyn Dialect) -> &'static [&'static str] {
    match kept_of(d.id()) {
        Some(k) => &k.keys,
        None => d.client_managed().keys,
    }
}

/// Every top-level field `d`'s client reads in an entry: those it documents
/// ([`Dialect::known_fields`]), those mcpconf writes for it (its renderings' keys), its own
/// and its user's kept keys, its other spellings and defaults, and in any case the fields that
/// say what runs (its program, arguments, environment, working directory, address, headers,
/// transport, switches). `None` for a dialect outside the table (every field counts).
pub fn reads(d: &dyn Dialect) -> Option<&'static [&'static str]> {
    kept_of(d.id()).map(|k| k.reads.as_slice())
}

/// The top-level keys of an entry `found` in `d`'s file that its client does not read there
/// ([`crate::ledger::unread`]: a field outside what the client reads, a launch's field beside a URL
/// without a command, headers beside a command without a URL): the user's, kept as written
/// outside the manifest and the ownership proof. `lint` still reports an unknown one
/// (`unknown-field`).
pub fn unread_keys(d: &dyn Dialect, found: &serde_json::Value) -> Vec<String> {
    crate::ledger::unread(found, super::client_facts(d.id()))
}

/// Whether mcpconf marks a streamable HTTP entry of `d` with a `type` (`false`: the client
/// takes an entry with a `url` and no `type` for one, so a `"type": "http"` a file has only
/// spells what the entry's shape already says).
pub fn types_http(d: &dyn Dialect) -> bool {
    kept_of(d.id()).is_none_or(|k| k.types_http)
}

fn read_off(d: &dyn Dialect) -> Kept {
    let written = written_keys(d);
    let http = shapes()
        .into_iter()
        .find(|s| {
            matches!(
                s.transport,
                Transport::Remote {
                    kind: RemoteKind::Http,
                    ..
                }
            )
        })
        .and_then(|s| super::render_target(d, &s, None, true).ok());
    let types_http = http.is_none_or(|r| r.value.get("type").is_some());
    let respelled: Vec<&str> = d.respell().iter().map(|(from, _, _)| *from).collect();
    let mut keys: Vec<&'static str> = d.client_managed().keys.to_vec();
    let unwritten = d.known_fields().iter().copied().filter(|k| {
        !written.iter().any(|w| w == k)
            && !IDENTITY.contains(k)
            && !respelled.contains(k)
            && *k != "type"
    });
    for k in d.user_keys().iter().copied().chain(unwritten) {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut reads: Vec<&'static str> = Vec::new();
    let mut add = |k: &'static str| {
        let head = k.split('.').next().unwrap_or(k);
        if !reads.contains(&head) {
            reads.push(head);
        }
    };
    let own = d.known_fields().iter().chain(IDENTITY).chain(ALWAYS_READ);
    own.chain(&keys).copied().for_each(&mut add);
    for (from, to, _) in d.respell() {
        add(from);
        add(to);
    }
    d.defaults().iter().for_each(|(k, _)| add(k));
    for w in written {
        // Once per dialect and key, for the life of the process (the table is built once).
        let k: &'static str = match IDENTITY.iter().chain(d.known_fields()).find(|k| **k == w) {
            Some(k) => k,
            None => Box::leak(w.into_boxed_str()),
        };
        add(k);
    }
    Kept {
        keys,
        types_http,
        reads,
    }
}

/// The top-level keys of every rendering of `d`: each shape of server (local with arguments,
/// environment, a working directory, an env file; remote over streamable HTTP and SSE with
/// headers; literal values and references; a tool pin; switched off; trusted).
fn written_keys(d: &dyn Dialect) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    let mut add = |server: &Server, enabled: bool| {
        if let Ok(r) = super::render_target(d, server, None, enabled)
            && let Some(m) = r.value.as_object()
        {
            for k in m.keys() {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
    };
    for server in shapes() {
        add(&server, true);
        add(&server, false);
    }
    if let Some((k, _)) = d.trust_form()
        && !keys.iter().any(|x| x == k)
    {
        keys.push(k.to_string());
    }
    keys
}

/// One server of each shape a manifest can give.
fn shapes() -> Vec<Server> {
    let t = |s: &str| Template::parse(s).unwrap_or_else(|_| Template::literal(s));
    let stdio = |args: bool, env: &str, cwd: bool, env_file: bool| Transport::Stdio {
        command: t("prog"),
        args: if args { vec![t("--flag")] } else { Vec::new() },
        env: if env.is_empty() {
            Vec::new()
        } else {
            vec![("NAME".to_string(), t(env))]
        },
        cwd: cwd.then(|| t("/srv")),
        env_file: env_file.then(|| t("/srv/.env")),
    };
    let remote = |kind: RemoteKind, header: Option<&str>| Transport::Remote {
        url: t("https://example.invalid/mcp"),
        headers: header
            .map(|h| vec![("Authorization".to_string(), t(h))])
            .unwrap_or_default(),
        kind,
    };
    let transports = vec![
        stdio(false, "", false, false),
        stdio(true, "value", false, false),
        stdio(true, "${NAME}", false, false),
        stdio(false, "", true, false),
        stdio(false, "", false, true),
        remote(RemoteKind::Http, None),
        remote(RemoteKind::Http, Some("Bearer ${TOKEN}")),
        remote(RemoteKind::Http, Some("literal")),
        remote(RemoteKind::Sse, None),
        remote(RemoteKind::Sse, Some("Bearer ${TOKEN}")),
    ];
    let mut out = Vec::new();
    for transport in transports {
        for tools in [None, Some(vec!["tool".to_string()])] {
            out.push(Server {
                name: "shape".into(),
                transport: transport.clone(),
                tools,
                enabled: None,
                checks: Default::default(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_fields_mcpconf_never_writes_are_kept_and_written_ones_are_not() {
        let kept = |id: &str| kept_keys(super::super::lookup(id).unwrap()).to_vec();
        let codex = kept("codex");
        assert!(codex.contains(&"startup_timeout_sec"), "{codex:?}");
        assert!(
            !codex.contains(&"command") && !codex.contains(&"env_vars"),
            "{codex:?}"
        );
        let vscode = kept("vscode");
        assert!(vscode.contains(&"dev"), "{vscode:?}");
        assert!(
            !vscode.contains(&"type"),
            "VS Code's `type` is written: {vscode:?}"
        );
        assert!(types_http(super::super::lookup("vscode").unwrap()));
        assert!(!types_http(super::super::lookup("cursor").unwrap()));
        assert!(!types_http(super::super::lookup("kiro").unwrap()));
        let cursor = kept("cursor");
        assert!(
            !cursor.contains(&"url") && !cursor.contains(&"headers"),
            "{cursor:?}"
        );
        // Windsurf reads `url` as its `serverUrl`: an address is never kept aside.
        assert!(!kept("windsurf").contains(&"url"));
        // Gemini's trust is written by `auto_approve`, and Gemini keeps it itself too.
        for d in super::super::ALL {
            let k = kept_keys(*d);
            for id in IDENTITY {
                assert!(!k.contains(id), "{}: {id} kept", d.id());
            }
        }
    }
}
