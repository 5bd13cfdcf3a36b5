//! The `[policy]` table: which MCP servers may run on a machine, said once and compiled into
//! each client's own admin controls (`crate::policy`). This module only parses and validates it
//! and matches identities against its rules: pure, no I/O.
//!
//! ```toml
//! [policy]
//! allow = ["openab"]                     # servers of this manifest, matched by identity
//! deny = [{ name = "shell*" }, { command = "npx" }, { url = "https://*.example.com/*" }]
//! exclusive = true                       # nothing outside `allow` may run
//! ```

use super::*;

/// `[policy]`: allow, deny and exclusive, as the manifest declares them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Policy {
    /// The servers of this manifest that may run, with their identities, in `allow` order.
    pub allow: Vec<Allowed>,
    /// The patterns of servers that may not run, in declaration order.
    pub deny: Vec<Deny>,
    /// Nothing outside `allow` may run.
    pub exclusive: bool,
}

/// A server `allow` names, with the identity clients match it by.
#[derive(Debug, Clone, PartialEq)]
pub struct Allowed {
    /// The server's name in the manifest.
    pub name: String,
    /// What it runs or where it is reached.
    pub identity: Identity,
}

/// How clients recognise a server whatever its entry is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// A local server: the program and its arguments.
    Command {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A remote server: its URL.
    Url(String),
}

impl Identity {
    /// The identity of a server entry as a client file holds it (`command` + `args`, or `url`
    /// / `serverUrl` / `httpUrl`); `None` when the entry has neither.
    pub fn of_entry(entry: &serde_json::Value) -> Option<Identity> {
        let o = entry.as_object()?;
        // Goose spells the program `cmd`.
        if let Some(c) = o.get("command").or_else(|| o.get("cmd")) {
            // A command given as an array (opencode, Goose's `cmd` aside) is program + args.
            let (command, mut args) = match c {
                serde_json::Value::String(s) => (s.clone(), Vec::new()),
                serde_json::Value::Array(a) => {
                    let mut parts = a.iter().filter_map(|v| v.as_str().map(str::to_string));
                    (parts.next()?, parts.collect())
                }
                _ => return None,
            };
            if let Some(serde_json::Value::Array(a)) = o.get("args") {
                args.extend(a.iter().filter_map(|v| v.as_str().map(str::to_string)));
            }
            return Some(Identity::Command { command, args });
        }
        ["url", "serverUrl", "httpUrl", "uri"]
            .iter()
            .find_map(|k| o.get(*k).and_then(|v| v.as_str()))
            .map(|u| Identity::Url(u.to_string()))
    }

    /// The command line (program and arguments joined by single spaces), or the URL.
    pub fn line(&self) -> String {
        match self {
            Identity::Command { command, args } => {
                let mut s = command.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            Identity::Url(u) => u.clone(),
        }
    }
}

/// One `deny` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deny {
    /// What the pattern is matched against.
    pub by: DenyBy,
    /// A pattern where `*` stands for any run of characters.
    pub pattern: String,
}

/// What a `deny` rule's pattern is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenyBy {
    /// The entry's name.
    Name,
    /// The program, or the whole command line (program and arguments joined by spaces).
    Command,
    /// The URL of a remote server.
    Url,
}

impl DenyBy {
    /// The key that spells it in the manifest.
    pub const fn key(self) -> &'static str {
        match self {
            DenyBy::Name => "name",
            DenyBy::Command => "command",
            DenyBy::Url => "url",
        }
    }
}

impl Deny {
    /// Whether an entry named `name` with `identity` matches this rule.
    ///
    /// ```
    /// use mcpconf::manifest::policy::{Deny, DenyBy, Identity};
    ///
    /// let npx = Deny { by: DenyBy::Command, pattern: "npx".into() };
    /// let id = Identity::Command { command: "npx".into(), args: vec!["-y".into(), "x".into()] };
    /// assert!(npx.matches("any", Some(&id)));
    /// let line = Deny { by: DenyBy::Command, pattern: "npx -y x*".into() };
    /// assert!(line.matches("any", Some(&id)));
    /// let url = Deny { by: DenyBy::Url, pattern: "https://*.example.com/*".into() };
    /// assert!(url.matches("a", Some(&Identity::Url("https://mcp.example.com/v1".into()))));
    /// assert!(!url.matches("a", Some(&id)));
    /// ```
    pub fn matches(&self, name: &str, identity: Option<&Identity>) -> bool {
        match (self.by, identity) {
            (DenyBy::Name, _) => glob(&self.pattern, name),
            (DenyBy::Command, Some(id @ Identity::Command { command, .. })) => {
                glob(&self.pattern, command) || glob(&self.pattern, &id.line())
            }
            (DenyBy::Url, Some(Identity::Url(u))) => glob(&self.pattern, u),
            _ => false,
        }
    }

    /// `name = "…"`, as the manifest spells it (for messages).
    pub fn describe(&self) -> String {
        format!(
            "{} = {}",
            self.by.key(),
            serde_json::Value::from(self.pattern.as_str())
        )
    }

    /// Whether the pattern has a wildcard.
    pub fn is_exact(&self) -> bool {
        !self.pattern.contains('*')
    }
}

impl Policy {
    /// The first `deny` rule an entry matches.
    pub fn denied_by(&self, name: &str, identity: Option<&Identity>) -> Option<&Deny> {
        self.deny.iter().find(|d| d.matches(name, identity))
    }

    /// Whether an entry is outside `allow` while the policy is exclusive: its identity is none
    /// of the allowed servers' (the name does not matter; a client matching by name is weaker,
    /// and `crate::policy` says so).
    pub fn not_allowed(&self, identity: Option<&Identity>) -> bool {
        self.exclusive && !identity.is_some_and(|id| self.allow.iter().any(|a| &a.identity == id))
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters (none
/// included) and every other character for itself.
///
/// ```
/// use mcpconf::manifest::policy::glob;
/// assert!(glob("a*c", "abbc") && glob("*", "") && glob("a", "a"));
/// assert!(!glob("a*c", "abd") && !glob("a", "ab"));
/// ```
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative matching with one backtrack point: linear in practice, no recursion.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

const POLICY_KEYS: &[&str] = &["allow", "deny", "exclusive"];
const DENY_KEYS: &[&str] = &["name", "command", "url"];

impl Parser<'_> {
    /// `[policy]`, checked against the servers the manifest declares (all of them, before a
    /// profile narrows the set: a policy is for the machine, not for one profile).
    pub(super) fn policy(&self, item: &Item, servers: &[Server]) -> Result<Policy, ManifestError> {
        let t = item
            .as_table_like()
            .ok_or_else(|| self.err_item(item, "`policy` must be a table: write `[policy]`"))?;
        for (k, _) in t.iter() {
            self.check_key(t.key(k), k, POLICY_KEYS, "in `[policy]`")?;
        }
        let mut out = Policy::default();
        if let Some(i) = t.get("exclusive") {
            out.exclusive = i
                .as_bool()
                .ok_or_else(|| self.err_item(i, "`policy.exclusive` must be true or false"))?;
        }
        if let Some(i) = t.get("deny") {
            out.deny = self.deny_rules(i)?;
        }
        if let Some(i) = t.get("allow") {
            for name in self.string_list(i, "policy.allow")? {
                let allowed = self.allowed(i, &name, servers)?;
                if let Some(d) = out.denied_by(&allowed.name, Some(&allowed.identity)) {
                    return Err(self.err_item(
                        i,
                        format!(
                            "`policy.allow` names server `{name}`, which the deny rule `{}` matches; clients let a deny rule win, so remove one of them",
                            d.describe()
                        ),
                    ));
                }
                if out.allow.iter().any(|a| a.name == name) {
                    return Err(self.err_item(i, format!("`policy.allow` names `{name}` twice")));
                }
                out.allow.push(allowed);
            }
        }
        if out.exclusive && t.get("allow").is_none() {
            return Err(self.err_item(
                item,
                "`policy.exclusive = true` needs `allow = [...]`: the servers that may run (`allow = []` if none may)",
            ));
        }
        Ok(out)
    }

    fn allowed(&self, at: &Item, name: &str, servers: &[Server]) -> Result<Allowed, ManifestError> {
        let Some(s) = servers.iter().find(|s| s.name == name) else {
            let hint = closest(name, servers.iter().map(|s| s.name.as_str()))
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            return Err(self.err_item(
                at,
                format!("`policy.allow` names server `{name}`, which the manifest does not declare{hint}"),
            ));
        };
        let literal = |t: &Template, field: &str| {
            t.as_literal().ok_or_else(|| {
                self.err_item(
                    at,
                    format!(
                        "`policy.allow` names server `{name}`, whose `{field}` has a `${{VAR}}` reference; clients match a server's literal {field}, so an allowed server's must be literal"
                    ),
                )
            })
        };
        let identity = match &s.transport {
            Transport::Stdio { command, args, .. } => Identity::Command {
                command: literal(command, "command")?,
                args: args
                    .iter()
                    .map(|a| literal(a, "args"))
                    .collect::<Result<_, _>>()?,
            },
            Transport::Remote { url, .. } => Identity::Url(literal(url, "url")?),
        };
        Ok(Allowed {
            name: name.to_string(),
            identity,
        })
    }

    fn deny_rules(&self, item: &Item) -> Result<Vec<Deny>, ManifestError> {
        let shape = "`policy.deny` is an array of rules, each one of `{ name = \"…\" }`, `{ command = \"…\" }`, `{ url = \"…\" }`";
        let arr = item.as_array().ok_or_else(|| self.err_item(item, shape))?;
        let mut out = Vec::new();
        for v in arr.iter() {
            let t = v
                .as_inline_table()
                .ok_or_else(|| self.err_value(v, shape))?;
            for (k, _) in t.iter() {
                if !DENY_KEYS.contains(&k) {
                    let hint = closest(k, DENY_KEYS.iter().copied())
                        .map(|c| format!("; did you mean `{c}`?"))
                        .unwrap_or_default();
                    return Err(self.err_value(
                        v,
                        format!("unknown key `{k}` in a `policy.deny` rule{hint}"),
                    ));
                }
            }
            if t.len() != 1 {
                return Err(self.err_value(v, format!("{shape}: exactly one key per rule")));
            }
            let (k, pv) = t.iter().next().expect("one key");
            let pattern = pv
                .as_str()
                .filter(|p| !p.trim().is_empty())
                .ok_or_else(|| {
                    self.err_value(
                        v,
                        format!("`policy.deny` rule `{k}` must be a non-empty string"),
                    )
                })?;
            let by = match k {
                "name" => DenyBy::Name,
                "command" => DenyBy::Command,
                _ => DenyBy::Url,
            };
            out.push(Deny {
                by,
                pattern: pattern.to_string(),
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(p: &[char], t: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('*', rest)) => (0..=t.len()).any(|i| naive(rest, &t[i..])),
            Some((c, rest)) => t.first() == Some(c) && naive(rest, &t[1..]),
        }
    }

    proptest! {
        #[test]
        fn glob_agrees_with_the_naive_definition(p in "[ab*]{0,8}", t in "[ab]{0,10}") {
            let pc: Vec<char> = p.chars().collect();
            let tc: Vec<char> = t.chars().collect();
            prop_assert_eq!(glob(&p, &t), naive(&pc, &tc));
        }
    }

    #[test]
    fn entry_identities() {
        let e = serde_json::json!({"command": "npx", "args": ["-y", "pkg"]});
        assert_eq!(Identity::of_entry(&e).unwrap().line(), "npx -y pkg");
        let e = serde_json::json!({"command": ["uvx", "srv"]});
        assert_eq!(Identity::of_entry(&e).unwrap().line(), "uvx srv");
        let e = serde_json::json!({"serverUrl": "https://x/mcp"});
        assert_eq!(
            Identity::of_entry(&e),
            Some(Identity::Url("https://x/mcp".into()))
        );
        assert_eq!(Identity::of_entry(&serde_json::json!({"env": {}})), None);
    }
}
