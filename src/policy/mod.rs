//! One policy, compiled into each client's own admin controls: what the manifest's `[policy]`
//! (allow, deny, exclusive) becomes in Claude Code's managed settings, Codex's requirements and
//! Gemini CLI's system settings, and what each of them cannot express. Pure: the engine writes
//! the files ([`crate::engine`] with [`crate::settings::Settings::system_root`]).
//!
//! Every rule is either written in a client's own form or named in that client's `cannot`
//! list: `mcpconf policy report` shows both, so an administrator sees the parity before a
//! rollout.

use serde::Serialize;
use serde_json::{Value, json};

use crate::dialect::admin::{self, Admin};
use crate::manifest::policy::{Allowed, Deny, DenyBy, Identity, Policy};

/// What one client's admin file gets.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The admin file.
    pub admin: &'static Admin,
    /// The keys mcpconf writes under the file's container, with their values, in order.
    pub entries: Vec<(String, Value)>,
    /// What the client will enforce, one sentence each.
    pub enforces: Vec<String>,
    /// What it cannot express, one sentence each.
    pub cannot: Vec<String>,
}

/// A client with no file-based admin control of its MCP servers, and what it has instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Uncontrolled {
    /// The client id.
    pub client: &'static str,
    /// What it offers instead, if anything, and where that is documented.
    pub instead: &'static str,
}

/// Compile the policy for every admin file mcpconf writes.
///
/// ```
/// use mcpconf::manifest::{self, policy::Policy};
///
/// let m = manifest::parse(
///     "owner = \"o\"\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n\
///      [[targets]]\nclient = \"cursor\"\n[policy]\nallow = [\"docs\"]\nexclusive = true\n\
///      deny = [{ name = \"shell\" }]\n",
///     &mcpconf::known::Known,
/// )?;
/// let compiled = mcpconf::policy::compile(m.policy.as_ref().unwrap());
/// let claude = &compiled[0];
/// assert_eq!(claude.admin.client, "claude-code");
/// assert_eq!(claude.entries[0].0, "allowedMcpServers");
/// assert_eq!(claude.entries[0].1, serde_json::json!([{"serverUrl": "https://docs.example.com/mcp"}]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compile(policy: &Policy) -> Vec<Compiled> {
    admin::ADMIN
        .iter()
        .map(|a| match a.client {
            "claude-code" => claude_code(a, policy),
            "codex" => codex(a, policy),
            "qwen" => qwen(a, policy),
            "vscode" => vscode(a, policy),
            _ => gemini(a, policy),
        })
        .collect()
}

/// Claude Code: `allowedMcpServers` with `allowManagedMcpServersOnly` (exclusive: only the
/// managed list applies) and `deniedMcpServers`; each entry exactly one of `serverName`
/// (verbatim), `serverCommand` (the exact program and arguments), `serverUrl` (`*` wildcards).
/// A local server is matched by command once the list holds any command, a remote one by URL
/// once it holds any URL, so every allowed server is listed by its identity.
fn claude_code(admin: &'static Admin, p: &Policy) -> Compiled {
    let mut c = Compiled::new(admin);
    if p.exclusive {
        let allowed: Vec<Value> = p.allow.iter().map(claude_identity).collect();
        c.enforces
            .push(allow_sentence(p, "by command and arguments, or URL"));
        c.entries
            .push(("allowedMcpServers".into(), Value::Array(allowed)));
        c.entries
            .push(("allowManagedMcpServersOnly".into(), Value::Bool(true)));
    }
    let mut denied = Vec::new();
    for d in &p.deny {
        match (d.by, d.is_exact()) {
            (DenyBy::Name, true) => denied.push(json!({"serverName": d.pattern})),
            (DenyBy::Url, _) => denied.push(json!({"serverUrl": d.pattern})),
            (DenyBy::Command, true) if d.pattern.contains(' ') => {
                let line: Vec<&str> = d.pattern.split(' ').collect();
                denied.push(json!({"serverCommand": line}));
            }
            (DenyBy::Name, false) => c.cannot.push(format!(
                "deny `{}`: Claude Code compares `serverName` verbatim, without wildcards",
                d.describe()
            )),
            (DenyBy::Command, _) => c.cannot.push(format!(
                "deny `{}`: Claude Code's `serverCommand` matches one exact program and argument list, not a pattern or a program with any arguments",
                d.describe()
            )),
        }
    }
    if !denied.is_empty() {
        c.enforces.push(format!(
            "{} deny rule(s) in `deniedMcpServers` (a deny wins over an allow)",
            denied.len()
        ));
        c.entries
            .push(("deniedMcpServers".into(), Value::Array(denied)));
    }
    c
}

fn claude_identity(a: &Allowed) -> Value {
    match &a.identity {
        Identity::Command { command, args } => {
            let mut line = vec![Value::from(command.as_str())];
            line.extend(args.iter().map(|s| Value::from(s.as_str())));
            json!({ "serverCommand": line })
        }
        Identity::Url(u) => json!({ "serverUrl": u }),
    }
}

/// Codex: `[mcp_servers.NAME] identity = { command } | { url }` in `requirements.toml`, an
/// allow-list by name and identity; it has no deny list.
fn codex(admin: &'static Admin, p: &Policy) -> Compiled {
    let mut c = Compiled::new(admin);
    if p.exclusive && p.allow.is_empty() {
        c.cannot.push(
            "exclusive with an empty `allow`: Codex needs an empty `[mcp_servers]` table for that, which mcpconf does not write; no Codex server is disabled"
                .into(),
        );
    } else if p.exclusive {
        for a in &p.allow {
            let identity = match &a.identity {
                Identity::Command { command, .. } => json!({ "command": command }),
                Identity::Url(u) => json!({ "url": u }),
            };
            c.entries
                .push((a.name.clone(), json!({ "identity": identity })));
            if let Identity::Command { args, .. } = &a.identity
                && !args.is_empty()
            {
                c.cannot.push(format!(
                    "allow `{}`: Codex matches a local server by its program only, not its arguments",
                    a.name
                ));
            }
        }
        c.enforces.push(allow_sentence(
            p,
            "by the entry's name and its program or URL; every other server is disabled",
        ));
        if !p.deny.is_empty() {
            c.enforces.push(
                "the deny rules, as far as `exclusive` already disables every server outside `allow`"
                    .into(),
            );
        }
    } else {
        for d in &p.deny {
            c.cannot.push(format!(
                "deny `{}`: Codex's requirements are an allow-list only (set `exclusive = true` to disable every server outside `allow`)",
                d.describe()
            ));
        }
    }
    c
}

/// The name Gemini CLI's `mcp.allowed` holds when no server may run: its agent reads an
/// empty list as "no restriction", so the list names a server no one has.
pub const NONE_ALLOWED: &str = "__mcpconf_none__";

/// Gemini CLI: `mcp.allowed` and `mcp.excluded`, lists of server names (compared without
/// case). It reads the file only when the file and every directory above it are root's and
/// writable by no one else.
fn gemini(admin: &'static Admin, p: &Policy) -> Compiled {
    let mut c = Compiled::new(admin);
    if p.exclusive {
        let mut names: Vec<Value> = p
            .allow
            .iter()
            .map(|a| Value::from(a.name.as_str()))
            .collect();
        if names.is_empty() {
            names.push(Value::from(NONE_ALLOWED));
        }
        c.entries.push(("allowed".into(), Value::Array(names)));
        c.enforces.push(allow_sentence(p, "by name only"));
        c.cannot.push(
            "allow by identity: Gemini CLI matches `mcp.allowed` by entry name, so an entry of an allowed name runs whatever its command or URL"
                .into(),
        );
    }
    if p.exclusive || !p.deny.is_empty() {
        c.cannot.push(
            "a user who starts `gemini --allowed-mcp-server-names …` replaces the allowed list and drops the excluded one"
                .into(),
        );
    }
    let mut excluded = Vec::new();
    for d in &p.deny {
        match (d.by, d.is_exact()) {
            (DenyBy::Name, true) => excluded.push(Value::from(d.pattern.as_str())),
            _ => c.cannot.push(format!(
                "deny `{}`: Gemini CLI's `mcp.excluded` holds exact server names only",
                d.describe()
            )),
        }
    }
    if !excluded.is_empty() {
        c.enforces.push(format!(
            "{} deny rule(s) in `mcp.excluded` (by name)",
            excluded.len()
        ));
        c.entries.push(("excluded".into(), Value::Array(excluded)));
    }
    c
}

/// Qwen Code: `mcp.excluded`, server-name patterns (`*`, `?`). Its `mcp.allowed` lists are
/// appended across the system, user and project settings, so a user can widen a system one:
/// an allow-list is not written.
fn qwen(admin: &'static Admin, p: &Policy) -> Compiled {
    let mut c = Compiled::new(admin);
    if p.exclusive {
        c.cannot.push(
            "exclusive: Qwen Code appends the users' own `mcp.allowed` lists to the system's, so no allow-list of the system's holds"
                .into(),
        );
    }
    let mut excluded = Vec::new();
    for d in &p.deny {
        match d.by {
            DenyBy::Name if !d.pattern.contains('?') => {
                excluded.push(Value::from(d.pattern.as_str()))
            }
            _ => c.cannot.push(format!(
                "deny `{}`: Qwen Code's `mcp.excluded` holds server-name patterns only (where `?` is a wildcard)",
                d.describe()
            )),
        }
    }
    if !excluded.is_empty() {
        c.enforces.push(format!(
            "{} deny rule(s) in `mcp.excluded` (by name, `*` wildcards)",
            excluded.len()
        ));
        c.entries.push(("excluded".into(), Value::Array(excluded)));
    }
    c
}

/// VS Code: the `ChatMCP` policy (`none` / `registry` / `all`) says whether MCP servers may
/// run at all; its per-server lists (`ChatAllowedMcpServers`, `ChatDeniedMcpServers`, VS Code
/// 1.130) are not written, since how a list is spelled in the policy file is not verified.
fn vscode(admin: &'static Admin, p: &Policy) -> Compiled {
    let mut c = Compiled::new(admin);
    if p.exclusive && p.allow.is_empty() {
        c.entries.push(("ChatMCP".into(), Value::from("none")));
        c.enforces
            .push("no MCP server may run (`ChatMCP = none`)".into());
        return c;
    }
    let lists = "VS Code's per-server policies (`ChatAllowedMcpServers`, `ChatDeniedMcpServers`, VS Code 1.130) are not written: how a list is spelled in its policy file is not verified";
    if p.exclusive {
        c.cannot.push(format!("allow: {lists}"));
    }
    for d in &p.deny {
        c.cannot.push(format!("deny `{}`: {lists}", d.describe()));
    }
    c
}

fn allow_sentence(p: &Policy, how: &str) -> String {
    if p.allow.is_empty() {
        return "no MCP server may run (`exclusive` with an empty `allow`)".into();
    }
    let names: Vec<String> = p.allow.iter().map(|a| format!("`{}`", a.name)).collect();
    format!("only {} may run, matched {how}", names.join(", "))
}

impl Compiled {
    fn new(admin: &'static Admin) -> Compiled {
        Compiled {
            admin,
            entries: Vec::new(),
            enforces: Vec::new(),
            cannot: Vec::new(),
        }
    }
}

/// The clients mcpconf knows that have no file-based admin control of their MCP servers.
pub const UNCONTROLLED: &[Uncontrolled] = &[
    Uncontrolled {
        client: "cursor",
        instead: "team admin settings in Cursor's dashboard (no file on the machine)",
    },
    Uncontrolled {
        client: "windsurf",
        instead: "team admin MCP allow-list in Windsurf's dashboard (no file on the machine)",
    },
    Uncontrolled {
        client: "copilot-cli",
        instead: "the organisation's Copilot policies on GitHub (no file on the machine)",
    },
    Uncontrolled {
        client: "kiro",
        instead: "none found",
    },
    Uncontrolled {
        client: "cline",
        instead: "none found",
    },
    Uncontrolled {
        client: "opencode",
        instead: "none found",
    },
];

/// Whether an entry breaks the policy: the deny rule it matches, or, under `exclusive`, that
/// it is none of the allowed servers. `None` when it may run.
pub fn violation<'a>(p: &'a Policy, name: &str, entry: &Value) -> Option<Violation<'a>> {
    let identity = Identity::of_entry(entry);
    if let Some(d) = p.denied_by(name, identity.as_ref()) {
        return Some(Violation::Denied(d));
    }
    p.not_allowed(identity.as_ref())
        .then_some(Violation::NotAllowed)
}

/// How an entry breaks the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Violation<'a> {
    /// A deny rule matches it.
    Denied(&'a Deny),
    /// The policy is exclusive and it is none of the allowed servers.
    NotAllowed,
}

#[cfg(test)]
mod tests;
