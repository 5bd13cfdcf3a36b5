//! The manifest (`mcpconf.toml`): one owner's desired state, parsed and validated.
//!
//! Parsing walks a span-preserving `toml_edit` document by hand instead of using serde, so that
//! every error can name the manifest's line and column and suggest the closest valid key
//! ("did you mean `servers`?"). A typo never silently falls back to a default.
//!
//! This module does no I/O: the caller reads the bytes.

use std::collections::BTreeSet;
use std::fmt;

use sha2::{Digest, Sha256};
use toml_edit::{Document, Item, Value};

pub use crate::server::{Input, RemoteKind, Server, Transport};
use crate::template::Template;
use crate::text::{closest, hex, line_col};

mod build;
pub mod lock;
mod parser;
pub mod policy;
mod registry;
pub use build::ManifestBuilder;
use parser::Parser;
pub use registry::{PACKAGE_TYPES, RegistryRef, exact_version, registry_refs, valid_registry_name};

/// A manifest that parsed and validated: made only by [`parse`] or [`Manifest::builder`], which
/// run the same checks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Manifest {
    /// The owner whose ledger records this manifest governs.
    pub owner: String,
    /// `workspace = "NAME"`: the ledger scope (default: the canonical project root).
    pub workspace: Option<String>,
    /// Servers in declaration order.
    pub servers: Vec<Server>,
    /// Client files the servers go into.
    pub targets: Vec<Target>,
    /// Exact shapes this owner wrote before the ledger existed.
    pub legacy: Vec<Legacy>,
    /// The `[lint]` table: severity per rule for `mcpconf lint`.
    pub lint: LintSettings,
    /// The servers that come from the MCP registry (`registry = "NAME"`), as declared; their
    /// resolved form is in [`Manifest::servers`].
    pub registry: Vec<RegistryRef>,
    /// `sha256:<hex>` of the manifest bytes, and of the lock records its registry servers were
    /// resolved from, and of the active profile (saved plans compare it).
    pub digest: String,
    /// `[profiles.NAME] servers = [...]`: named sets of servers, in declaration order.
    pub profiles: Vec<(String, Vec<String>)>,
    /// The active profile (`--profile`, else `profile = "NAME"`), if any: [`Manifest::servers`]
    /// and the targets' server lists then hold the servers of no profile and those of this
    /// one; the others' entries that the owner wrote are removed by the next apply.
    pub profile: Option<String>,
    /// The `[policy]` table, if any: which servers may run on the machine
    /// (`mcpconf policy`, and lint's `policy-denied` / `policy-not-allowed`).
    pub policy: Option<policy::Policy>,
    /// `[inputs.ID]`: the inputs a client prompts the user for, which servers use as
    /// `${input:ID}` (VS Code's `inputs`), in declaration order.
    pub inputs: Vec<Input>,
}

/// Where the servers go.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// A client id from `mcpconf clients`.
    pub client: String,
    /// `project` or `user` (or a client-specific scope); `None` = the client's default.
    pub scope: Option<String>,
    /// Override of the client's default path, relative to the scope's base.
    pub path: Option<String>,
    /// The servers for this target; `None` = every server.
    pub servers: Option<Vec<String>>,
    /// Whether to create the file when it does not exist.
    pub create: bool,
    /// Kiro agents: also grant in `allowedTools`.
    pub auto_approve: bool,
    /// The client's version as the operator declares it (`"1.17.4"`): fields only newer
    /// releases read (opencode's `cwd`) are written when it is new enough.
    pub client_version: Option<String>,
    /// `enabled = false`: every server of this target is written in the client's off form;
    /// `None` when the target does not say.
    pub enabled: Option<bool>,
    /// `exclude = ["…"]`: files a glob `path` matches that the target leaves alone (patterns
    /// relative to the scope's base, `*` for any run of characters), e.g. a broken agent file.
    pub exclude: Vec<String>,
    /// `disable = ["NAME", …]` (project-scope targets): servers the user configured at user
    /// scope, turned off for this project in the client's own form.
    pub disable: Vec<String>,
    /// Where the target was declared (1-based line, column).
    pub at: (usize, usize),
}

/// An exact entry the owner wrote before it used mcpconf.
#[derive(Debug, Clone, PartialEq)]
pub struct Legacy {
    /// The entry's name in client files.
    pub name: String,
    /// The exact value; only an exact match is proof of ownership.
    pub entry: serde_json::Value,
    /// Grants that went with it (e.g. `@openab-browser`).
    pub grants: Vec<String>,
}

/// The manifest's `[lint]` table: rule ids whose severity `mcpconf lint` changes (the command
/// line's `--deny` / `--warn` / `--allow` win over it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LintSettings {
    /// Rules reported as errors.
    pub deny: Vec<String>,
    /// Rules reported as warnings.
    pub warn: Vec<String>,
    /// Rules not reported.
    pub allow: Vec<String>,
}

/// A manifest error: always names the line and column.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestError {
    /// One sentence saying what is wrong and how to fix it.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl ManifestError {
    /// The stable code: always `manifest-error`.
    pub fn code(&self) -> crate::diag::Code {
        crate::diag::Code::ManifestError
    }
}

impl std::error::Error for ManifestError {}

impl Manifest {
    /// The servers a target receives, in manifest order.
    pub fn servers_for<'a>(&'a self, target: &'a Target) -> impl Iterator<Item = &'a Server> + 'a {
        // A set of the names listed, so a target naming many servers costs their number, not
        // its square.
        let wanted: Option<std::collections::HashSet<&'a str>> = target
            .servers
            .as_ref()
            .map(|list| list.iter().map(String::as_str).collect());
        self.servers
            .iter()
            .filter(move |s| wanted.as_ref().is_none_or(|w| w.contains(s.name.as_str())))
    }

    /// A server by name.
    pub fn server(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| s.name == name)
    }
}

const TOP_KEYS: &[&str] = &[
    "owner",
    "workspace",
    "servers",
    "targets",
    "legacy",
    "lint",
    "profiles",
    "profile",
    "policy",
    "inputs",
];
const INPUT_KEYS: &[&str] = &["type", "description", "password", "default"];
const LINT_KEYS: &[&str] = &["deny", "warn", "allow"];
const SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "env_file",
    "url",
    "headers",
    "transport",
    "tools",
    "registry",
    "version",
    "package",
    "remote",
    "enabled",
    "tool_digests",
    "min_version",
];
const TARGET_KEYS: &[&str] = &[
    "client",
    "scope",
    "path",
    "servers",
    "create",
    "auto_approve",
    "client_version",
    "enabled",
    "exclude",
    "disable",
];
const LEGACY_KEYS: &[&str] = &["name", "entry", "grants"];

/// The names a manifest is checked against: the clients and the lint rules that exist. The
/// model knows none of them; the layers that do implement this ([`crate::known::Known`] is
/// everything mcpconf knows), and an embedder may narrow it.
pub trait Vocabulary {
    /// Every client id, in the order messages list them.
    fn client_ids(&self) -> Vec<&'static str>;
    /// What the manifest needs to know about a client, or `None` for an unknown id.
    fn client(&self, id: &str) -> Option<ClientFacts>;
    /// `Ok` for a lint rule id, else an error (`unknown-rule`) naming the closest rule.
    fn check_lint_rule(&self, id: &str) -> Result<(), crate::diag::Error>;
}

/// What the manifest checks about a client's targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientFacts {
    /// Its scope names.
    pub scopes: Vec<&'static str>,
    /// It has no default file: a target must give a `path`.
    pub requires_path: bool,
    /// Its files carry grants, so `auto_approve` applies.
    pub auto_approve: bool,
    /// The scopes whose file belongs to one project (where `disable` applies); the default
    /// scope is the first of [`ClientFacts::scopes`].
    pub project_scopes: Vec<&'static str>,
}

/// Parse and validate a manifest; clients and lint rules are checked against `names`
/// (usually [`crate::known::Known`]).
///
/// ```
/// use mcpconf::known::Known;
///
/// let m = mcpconf::manifest::parse(
///     "owner = \"o\"\n[servers.web]\nurl = \"https://h/mcp\"\n[[targets]]\nclient = \"cursor\"\n",
///     &Known,
/// )
/// .unwrap();
/// assert_eq!(m.servers[0].name, "web");
///
/// let e = mcpconf::manifest::parse("owner = \"o\"\n[servers.\"bad\\u0001name\"]\ncommand = \"x\"\n", &Known)
///     .unwrap_err();
/// assert_eq!(e.code(), mcpconf::diag::Code::ManifestError);
/// assert_eq!((e.line, e.column), (2, 1));
/// ```
pub fn parse(text: &str, names: &dyn Vocabulary) -> Result<Manifest, ManifestError> {
    parse_with_lock(text, names, None)
}

/// [`parse`], with the lock file that resolves the manifest's registry servers
/// (`registry = "NAME"`; see [`lock`]). Without a lock, or when the lock has no record that
/// matches a registry server, that server is an error that says to run `mcpconf lock`.
pub fn parse_with_lock(
    text: &str,
    names: &dyn Vocabulary,
    lock: Option<&lock::Lock>,
) -> Result<Manifest, ManifestError> {
    parse_with_profile(text, names, lock, None)
}

/// [`parse_with_lock`] with the profile `--profile` chose (`None`: the manifest's own
/// `profile = "NAME"`, if any); an unknown profile is an error naming the closest one.
pub fn parse_with_profile(
    text: &str,
    names: &dyn Vocabulary,
    lock: Option<&lock::Lock>,
    chosen: Option<&str>,
) -> Result<Manifest, ManifestError> {
    let doc = parse_toml(text)?;
    let table = doc.as_table();
    let p = Parser {
        text,
        names,
        inputs: &[],
    };
    for (key, _) in table.iter() {
        p.check_key(table.key(key), key, TOP_KEYS, "at the top level")?;
    }
    let owner = p.owner(table)?;
    let workspace = p.workspace(table)?;
    let inputs = match table.get("inputs") {
        Some(item) => p.inputs(item)?,
        None => Vec::new(),
    };
    let ids: Vec<String> = inputs.iter().map(|i| i.id.clone()).collect();
    let p = Parser { inputs: &ids, ..p };
    let (servers, registry) = p.servers(table, lock)?;
    check_inputs_used(&inputs, &servers)?;
    let targets = p.targets(table, &servers)?;
    let legacy = p.legacy_list(table)?;
    let lint = match table.get("lint") {
        Some(item) => p.lint(item)?,
        None => LintSettings::default(),
    };
    let policy = match table.get("policy") {
        Some(item) => Some(p.policy(item, &servers)?),
        None => None,
    };
    let (profiles, profile) = p.profiles(table, &servers, chosen)?;
    let digest = digest(text, lock, &registry, profile.as_deref());
    let mut m = Manifest {
        owner,
        workspace,
        servers,
        targets,
        legacy,
        lint,
        registry,
        digest,
        profiles,
        profile,
        policy,
        inputs,
    };
    m.keep_active_profile();
    Ok(m)
}

/// The manifest's text as a span-preserving TOML document; a syntax error names its line and
/// column.
fn parse_toml(text: &str) -> Result<Document<&str>, ManifestError> {
    Document::parse(text).map_err(|e| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        let msg = e.message().trim().trim_end_matches('.').to_string();
        ManifestError {
            message: format!("invalid TOML: {msg}"),
            line,
            column,
        }
    })
}

/// An input no server uses would be written nowhere: an error, like a target that selects
/// nothing (every server counts, whatever profile is active).
fn check_inputs_used(inputs: &[Input], servers: &[Server]) -> Result<(), ManifestError> {
    let Some(unused) = inputs
        .iter()
        .find(|i| !servers.iter().any(|s| s.inputs().any(|id| id == i.id)))
    else {
        return Ok(());
    };
    Err(ManifestError {
        message: format!(
            "input `{}` is declared but no server uses it (as `${{input:{}}}`); remove `[inputs.{}]` or use it",
            unused.id, unused.id, unused.id
        ),
        line: unused.at.0,
        column: unused.at.1,
    })
}

/// [`Manifest::digest`]: the manifest's bytes, the lock records its registry servers resolved
/// from (part of what a saved plan was made from), and the active profile (a plan made for one
/// profile is not applied for another).
fn digest(
    text: &str,
    lock: Option<&lock::Lock>,
    registry: &[RegistryRef],
    profile: Option<&str>,
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(text.as_bytes());
    if let Some(lock) = lock.filter(|_| !registry.is_empty()) {
        let used = lock::Lock {
            servers: registry
                .iter()
                .filter_map(|r| lock.get(&r.server).cloned())
                .collect(),
        };
        hasher.update(b"\0mcpconf.lock\0");
        hasher.update(used.render().as_bytes());
    }
    if let Some(active) = profile {
        hasher.update(b"\0profile\0");
        hasher.update(active.as_bytes());
    }
    format!("sha256:{}", hex(&hasher.finalize()))
}

/// The top level's sections, each in the order [`parse_with_profile`] reads them (which decides
/// which error a manifest with several is told first).
impl Parser<'_> {
    fn owner(&self, table: &toml_edit::Table) -> Result<String, ManifestError> {
        let item = table.get("owner").ok_or_else(|| {
            self.err_at(
                0,
                "the manifest has no `owner`; add e.g. `owner = \"openab\"`",
            )
        })?;
        let owner = self.string(item, "owner")?;
        if !valid_name(&owner, 64, false) {
            return Err(self.err_item(
                item,
                format!(
                    "owner `{owner}` is not valid: use 1-64 characters from a-z, 0-9, `.`, `_`, `-`, starting with a letter or digit"
                ),
            ));
        }
        Ok(owner)
    }

    fn workspace(&self, table: &toml_edit::Table) -> Result<Option<String>, ManifestError> {
        let Some(item) = table.get("workspace") else {
            return Ok(None);
        };
        let w = self.string(item, "workspace")?;
        if !valid_workspace(&w) {
            return Err(self.err_item(item, workspace_rule(&w)));
        }
        Ok(Some(w))
    }

    /// `[servers.NAME]`, a registry server resolved from the lock; at least one.
    fn servers(
        &self,
        table: &toml_edit::Table,
        lock: Option<&lock::Lock>,
    ) -> Result<(Vec<Server>, Vec<RegistryRef>), ManifestError> {
        let mut servers = Vec::new();
        let mut registry = Vec::new();
        if let Some(item) = table.get("servers") {
            let t = item.as_table_like().ok_or_else(|| {
                self.err_item(
                    item,
                    "`servers` must be a table of servers, e.g. `[servers.openab]`",
                )
            })?;
            for (name, sitem) in t.iter() {
                if !valid_server_name(name) {
                    return Err(self.err_item(sitem, server_name_error(name)));
                }
                match self.registry_server(name, sitem, lock)? {
                    Some((merged, r)) => {
                        servers.push(self.server(name, &merged)?);
                        registry.push(r);
                    }
                    None => servers.push(self.server(name, sitem)?),
                }
            }
        }
        if servers.is_empty() {
            return Err(self.err_at(
                0,
                "the manifest declares no servers; add at least one `[servers.NAME]` table",
            ));
        }
        Ok((servers, registry))
    }

    /// `[[targets]]`; at least one.
    fn targets(
        &self,
        table: &toml_edit::Table,
        servers: &[Server],
    ) -> Result<Vec<Target>, ManifestError> {
        let mut targets = Vec::new();
        if let Some(item) = table.get("targets") {
            let arr = item.as_array_of_tables().ok_or_else(|| {
                self.err_item(
                    item,
                    "`targets` must be an array of tables: write `[[targets]]`",
                )
            })?;
            for t in arr.iter() {
                targets.push(self.target(t, servers)?);
            }
        }
        if targets.is_empty() {
            return Err(self.err_at(
                0,
                "the manifest declares no targets; add a `[[targets]]` table with a `client`",
            ));
        }
        Ok(targets)
    }

    /// `[[legacy]]`, if any.
    fn legacy_list(&self, table: &toml_edit::Table) -> Result<Vec<Legacy>, ManifestError> {
        let Some(item) = table.get("legacy") else {
            return Ok(Vec::new());
        };
        let arr = item.as_array_of_tables().ok_or_else(|| {
            self.err_item(
                item,
                "`legacy` must be an array of tables: write `[[legacy]]`",
            )
        })?;
        arr.iter().map(|t| self.legacy(t)).collect()
    }
}

impl Manifest {
    /// Keeps the servers of no profile and those of the active one, in [`Manifest::servers`]
    /// and in every target's list.
    fn keep_active_profile(&mut self) {
        let Some(active) = &self.profile else {
            return;
        };
        let profiled: std::collections::HashSet<&str> = self
            .profiles
            .iter()
            .flat_map(|(_, s)| s.iter().map(String::as_str))
            .collect();
        let wanted: std::collections::HashSet<&str> = self
            .profiles
            .iter()
            .filter(|(n, _)| n == active)
            .flat_map(|(_, s)| s.iter().map(String::as_str))
            .collect();
        let keep = |name: &str| !profiled.contains(name) || wanted.contains(name);
        let kept: Vec<String> = self
            .servers
            .iter()
            .filter(|s| keep(&s.name))
            .map(|s| s.name.clone())
            .collect();
        self.servers.retain(|s| kept.contains(&s.name));
        for t in &mut self.targets {
            if let Some(list) = &mut t.servers {
                list.retain(|n| kept.contains(n));
            }
        }
    }
}

/// The longest server name mcpconf manages, in characters.
pub const SERVER_NAME_MAX: usize = 128;

/// Whether `s` is a server name mcpconf can own: any name a client accepts as an entry's key
/// (Cline's marketplace names `github.com/owner/repo`, `AWS API MCP Server`,
/// `@aws/documentation`, `_option1`), that is 1 to [`SERVER_NAME_MAX`] characters, not only
/// white space, and no control character. The one rule for the manifest, `disable` lists and
/// `import`. Names outside [`portable_server_name`] are accepted as written.
pub fn valid_server_name(s: &str) -> bool {
    !s.trim().is_empty() && s.chars().count() <= SERVER_NAME_MAX && !s.chars().any(char::is_control)
}

/// Whether `s` keeps to the characters every client takes in a name (`A-Z a-z 0-9 . _ -`,
/// starting with a letter or digit, up to 64 characters); other valid names are imported with
/// a warning.
pub fn portable_server_name(s: &str) -> bool {
    valid_name(s, 64, true)
}

/// The sentence for a server name [`valid_server_name`] refuses (quoted as JSON, so a control
/// character cannot reach the terminal).
pub fn server_name_error(s: &str) -> String {
    format!(
        "server name {} is not valid: use 1-{SERVER_NAME_MAX} characters, not only white space, without control characters",
        serde_json::Value::String(s.to_string())
    )
}

/// Whether `s` is a valid owner: 1-64 characters from a-z, 0-9, `.`, `_`, `-`, starting with a
/// letter or digit. The owner names files in the state directory, so the same rule holds for
/// `--owner` on the command line and for every library call (never a `/` or a `..`).
pub fn valid_owner(s: &str) -> bool {
    valid_name(s, 64, false)
}

/// The sentence for an owner that [`valid_owner`] refuses (the owner is quoted as JSON, so a
/// control character cannot reach the terminal).
pub fn owner_error(s: &str) -> String {
    format!(
        "owner {} is not valid: use 1-64 characters from a-z, 0-9, `.`, `_`, `-`, starting with a letter or digit",
        serde_json::Value::String(s.to_string())
    )
}

pub use crate::settings::{valid_workspace, workspace_rule};

impl Server {
    /// This server with every `${VAR}` reference replaced by its value from `lookup`; `None`
    /// when it has no reference or one is unset.
    pub fn expanded(&self, lookup: impl Fn(&str) -> Option<String>) -> Option<Server> {
        let mut any = false;
        let mut ex = |t: &Template| -> Option<Template> {
            any |= t.has_vars();
            t.resolve(&lookup).ok().map(|v| Template::literal(&v))
        };
        let transport = match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                env_file,
            } => Transport::Stdio {
                command: ex(command)?,
                args: args.iter().map(&mut ex).collect::<Option<_>>()?,
                env: env
                    .iter()
                    .map(|(k, v)| Some((k.clone(), ex(v)?)))
                    .collect::<Option<_>>()?,
                cwd: match cwd {
                    Some(c) => Some(ex(c)?),
                    None => None,
                },
                env_file: match env_file {
                    Some(c) => Some(ex(c)?),
                    None => None,
                },
            },
            Transport::Remote { url, headers, kind } => Transport::Remote {
                url: ex(url)?,
                headers: headers
                    .iter()
                    .map(|(k, v)| Some((k.clone(), ex(v)?)))
                    .collect::<Option<_>>()?,
                kind: *kind,
            },
        };
        any.then(|| Server {
            name: self.name.clone(),
            transport,
            tools: self.tools.clone(),
            enabled: self.enabled,
            checks: self.checks.clone(),
        })
    }
}

/// `1`, `1.17`, `1.17.4`: numbers (up to 9 digits each) joined by dots.
fn valid_version(v: &str) -> bool {
    v.len() <= 64
        && v.split('.')
            .all(|n| !n.is_empty() && n.len() <= 9 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether version `v` is at least `min` (both numbers joined by dots; a missing part is 0).
pub fn version_at_least(v: &str, min: &str) -> bool {
    let parse = |s: &str| -> Vec<u64> { s.split('.').map(|n| n.parse().unwrap_or(0)).collect() };
    let (mut a, mut b) = (parse(v), parse(min));
    let n = a.len().max(b.len());
    a.resize(n, 0);
    b.resize(n, 0);
    a >= b
}

fn valid_name(s: &str, max: usize, upper: bool) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let ok_first = first.is_ascii_digit()
        || first.is_ascii_lowercase()
        || (upper && first.is_ascii_uppercase());
    ok_first
        && s.len() <= max
        && chars.all(|c| {
            c.is_ascii_digit()
                || c.is_ascii_lowercase()
                || (upper && c.is_ascii_uppercase())
                || matches!(c, '.' | '_' | '-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::known::Known;

    const OK: &str = r#"
owner = "openab"

[servers.openab]
url = "http://127.0.0.1:8848/mcp"
headers = { Authorization = "Bearer ${OPENAB_SESSION_TOKEN}" }
tools = ["search_capabilities", "execute_capability"]

[servers.browser]
command = "agent-browser"
args = ["mcp", "--tools", "core"]
env = { AGENT_BROWSER_IDLE_TIMEOUT_MS = "3600000" }

[[targets]]
client = "cursor"
servers = ["openab"]

[[legacy]]
name = "openab-browser"
entry = { command = "openab", args = ["browser-bridge"] }
grants = ["@openab-browser"]
"#;

    #[test]
    fn client_versions_are_checked_and_compared_by_number() {
        let t = |v: &str| {
            parse(
                &format!(
                    "owner = \"o\"\n[servers.s]\ncommand = \"c\"\n[[targets]]\nclient = \"opencode\"\nclient_version = {v}\n"
                ),
                &Known,
            )
        };
        assert_eq!(
            t("\"1.17.4\"").unwrap().targets[0]
                .client_version
                .as_deref(),
            Some("1.17.4")
        );
        for bad in ["\"v1.2\"", "\"1..2\"", "\"\"", "\"1.2-beta\"", "1.2"] {
            let e = t(bad).unwrap_err();
            assert!(
                e.message.contains("`client_version`"),
                "{bad}: {}",
                e.message
            );
            assert_eq!(e.line, 6, "{bad}");
        }
        for (v, min, ok) in [
            ("1.17.4", "1.17.4", true),
            ("1.18.33", "1.17.4", true),
            ("1.17.10", "1.17.4", true),
            ("1.9.9", "1.17.4", false),
            ("1.17", "1.17.4", false),
            ("2", "1.17.4", true),
            ("1.17.4.0", "1.17.4", true),
        ] {
            assert_eq!(version_at_least(v, min), ok, "{v} >= {min}");
        }
    }

    #[test]
    fn parses_the_contract_example() {
        let m = parse(OK, &Known).unwrap();
        assert_eq!(m.owner, "openab");
        assert_eq!(m.servers.len(), 2);
        assert_eq!(m.servers[0].name, "openab");
        assert_eq!(
            m.servers[0].tools.as_deref(),
            Some(
                &[
                    "search_capabilities".to_string(),
                    "execute_capability".to_string()
                ][..]
            )
        );
        let Transport::Stdio { args, env, .. } = &m.servers[1].transport else {
            panic!("stdio expected")
        };
        assert_eq!(args.len(), 3);
        assert_eq!(env[0].0, "AGENT_BROWSER_IDLE_TIMEOUT_MS");
        assert_eq!(m.targets[0].client, "cursor");
        assert!(m.targets[0].create);
        assert_eq!(m.legacy[0].entry["args"][0], "browser-bridge");
        assert!(m.digest.starts_with("sha256:"));
        let t = &m.targets[0];
        assert_eq!(m.servers_for(t).count(), 1);
    }

    fn err(text: &str) -> ManifestError {
        parse(text, &Known).unwrap_err()
    }

    #[test]
    fn refusals_name_line_column_and_fix() {
        let base =
            "owner = \"o\"\n[servers.a]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n";
        let cases: &[(&str, &str, usize, usize)] = &[
            (
                &format!("{base}servrs = 1\n"),
                "did you mean `servers`",
                6,
                1,
            ),
            (
                "owner = \"o\"\n[servers.a]\ncomand = \"x\"\n",
                "did you mean `command`",
                3,
                1,
            ),
            (
                "owner = \"o\"\n[servers.a]\ncommand = \"x\"\nurl = \"http://h\"\n",
                "both `command` and `url`",
                4,
                7,
            ),
            (
                "owner = \"o\"\n[servers.a]\ncommand = \"x\"\n[[targets]]\nclient = \"curser\"\n",
                "did you mean `cursor`",
                5,
                10,
            ),
            (
                "owner = \"o\"\n[servers.a]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\nservers = []\n",
                "selects nothing",
                6,
                11,
            ),
            ("owner = \"O!\"\n", "owner `O!` is not valid", 1, 9),
            ("owner = \n", "invalid TOML", 1, 9),
            (
                "owner = \"o\"\n[servers.a]\nurl = \"http://h\"\nargs = []\n",
                "`args` does not apply",
                4,
                8,
            ),
            (
                "owner = \"o\"\n[servers.a]\ncommand = \"x ${BAD-NAME}\"\n",
                "`command`",
                3,
                11,
            ),
            (
                "owner = \"o\"\n[servers.a]\ncommand = \"x\\u0000y\"\n",
                "NUL",
                3,
                11,
            ),
            (
                "owner = \"o\"\n[servers.a]\ncommand = \"x\"\nargs = [\"-a\", \"b\\u0000\"]\n",
                "element of `args` contains a NUL",
                4,
                15,
            ),
            (
                "owner = \"o\"\n[servers.a]\nurl = \"https://h/\\nx\"\n",
                "`url` contains a line break",
                3,
                7,
            ),
            (
                "owner = \"o\"\n[servers.a]\nurl = \"https://h/\"\nheaders = { \"X-A\\r\\nX-B\" = \"v\" }\n",
                "header name",
                4,
                13,
            ),
        ];
        for (text, needle, line, col) in cases {
            let e = err(text);
            assert!(e.message.contains(needle), "{text:?}: {}", e.message);
            assert_eq!((e.line, e.column), (*line, *col), "{text:?}: {}", e.message);
        }
    }

    #[test]
    fn the_schema_lists_exactly_the_target_keys() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../schemas/manifest.schema.json")).unwrap();
        let mut listed: Vec<&str> = schema["$defs"]["target"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut keys = TARGET_KEYS.to_vec();
        listed.sort_unstable();
        keys.sort_unstable();
        assert_eq!(listed, keys);
    }

    #[test]
    fn closest_name() {
        assert_eq!(closest("servrs", TOP_KEYS.iter().copied()), Some("servers"));
        assert_eq!(closest("zzzzzz", TOP_KEYS.iter().copied()), None);
    }
}
