//! Client dialects: how each client spells a server entry, and where its files live.
//!
//! The engine only talks to the [`Dialect`] trait: which file (per scope), which syntax, which
//! container inside the file, and how a neutral [`Server`] is rendered as that client's entry
//! (field names, `type` values, placeholder spelling). Adding a client means adding one file
//! here and one line in [`ALL`]; the engine does not change.
//!
//! Rendering fails closed: a field the client cannot express (a `cwd` it does not read, an env
//! reference where it expands none) is a [`RenderError`] naming the client, the server and the
//! field, never a silently dropped field or a literal secret. A tool pin the client cannot
//! enforce is not an error but a note the plan prints for that target.

pub mod admin;
pub use kept::{kept_keys, types_http, unread_keys};
mod amazonq;
mod amp;
mod antigravity;
mod augment;
mod claude_code;
mod claude_desktop;
mod cline;
mod codex;
mod continue_dev;
mod copilot_cli;
mod copilot_xcode;
mod crush;
mod cursor;
mod devin;
mod disable;
mod factory;
mod facts;
mod firebase_studio;
mod gemini;
mod generic;
mod goose;
mod grok;
mod grok_cli;
mod hermes;
mod jetbrains;
mod junie;
mod kept;
mod kimi;
mod kiro;
mod kiro_agent;
mod librechat;
mod lm_studio;
mod mcp_json;
mod mcp_servers;
mod mistral_vibe;
mod opencode;
mod openhands;
mod qoder;
mod qwen;
mod reshaped;
mod roo;
mod rovo_dev;
mod tabnine;
mod trae;
mod visual_studio;
mod vscode;
mod vscode_insiders;
mod warp;
mod windsurf;
mod zed;

use std::path::PathBuf;

use crate::server::Server;
pub use crate::settings::ClientHomes;

pub use mcp_servers::{
    BASE, Expansion, Gate, Hazard, McpServers, Places, RefForm, Slot, Ty, Types, UserHome,
    expands_literal, pin_note,
};

pub use crate::document::Syntax;
pub use disable::{DisableForm, ProjectDisable, cannot_disable, partial_entry};
pub use facts::{FACTS_BEGIN, FACTS_END, facts_json, facts_markdown, places_name};

/// What a relative path of a scope is resolved against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// `--root` (project files).
    Root,
    /// `--home` (user files).
    Home,
}

/// One scope of a client: a base and a default file.
#[derive(Debug, Clone, Copy)]
pub struct Scope {
    /// `project`, `user`, …
    pub name: &'static str,
    /// What the path is relative to.
    pub base: Base,
    /// Default file path relative to the base; empty when the target must give a `path`.
    pub path: &'static str,
    /// The default path on macOS, when it differs (empty: same as `path`).
    pub macos: &'static str,
}

impl Scope {
    /// A scope whose path is the same on every platform.
    pub const fn new(name: &'static str, base: Base, path: &'static str) -> Scope {
        Scope {
            name,
            base,
            path,
            macos: "",
        }
    }

    /// The default path on this platform.
    pub fn default_path(&self) -> &'static str {
        if cfg!(target_os = "macos") && !self.macos.is_empty() {
            self.macos
        } else {
            self.path
        }
    }
}

/// Where targets resolve.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// Base of project-scope targets (absolute).
    pub root: PathBuf,
    /// Base of user-scope targets (absolute).
    pub home: PathBuf,
    /// The directories that move one client's user file (`$CODEX_HOME`, `$HERMES_HOME`, …).
    pub client_homes: ClientHomes,
    /// `$XDG_CONFIG_HOME`, when set and `--home` was not given: user files under `~/.config/`
    /// (VS Code, Zed, opencode, Claude Desktop on Linux) live there instead.
    pub xdg_config_home: Option<PathBuf>,
    /// The project as Claude Code keys its per-project state (`projects["<dir>"]` of
    /// `~/.claude.json`): the main worktree's root of the git repository `root` lies in (a
    /// subdirectory and every linked worktree share it); `None`: `root` itself.
    pub project: Option<PathBuf>,
}

impl Ctx {
    /// [`Ctx::project`], else the root.
    pub fn project_key(&self) -> &std::path::Path {
        self.project.as_deref().unwrap_or(&self.root)
    }

    /// Every directory a target's file may lie under: the root, the home, each client home
    /// that is set and `$XDG_CONFIG_HOME` (not resolved; the file system checks add the
    /// resolved forms).
    pub fn bases(&self) -> Vec<PathBuf> {
        let mut bases = vec![self.root.clone(), self.home.clone()];
        bases.extend(self.client_homes.dirs().cloned());
        bases.extend(self.xdg_config_home.clone());
        bases
    }
}

/// A server rendered as one client's entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The entry's JSON value.
    pub value: serde_json::Value,
    /// Things the plan must say about this entry (e.g. a pin the client cannot enforce).
    pub notes: Vec<String>,
}

/// The refusal of a dialect that builds its entries field by field (codex, goose,
/// mistral-vibe): `client` cannot write `field` of `server`, and `why`. One wording for all.
pub(crate) fn refusal(client: &str, server: &Server, field: &str, why: &str) -> RenderError {
    RenderError {
        field: field.to_string(),
        message: format!(
            "client `{client}` cannot express `{field}` of server `{}`: {why}; mcpconf never writes a literal in its place",
            server.name
        ),
    }
}

/// `t` as literal text, or [`refusal`] with `why` when it holds a reference the client would
/// not expand in `field`.
pub(crate) fn literal_or_refuse(
    client: &str,
    t: &crate::template::Template,
    server: &Server,
    field: &str,
    why: &str,
) -> Result<String, RenderError> {
    t.as_literal()
        .ok_or_else(|| refusal(client, server, field, why))
}

/// A server the client cannot express safely.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderError {
    /// The manifest field at fault (`cwd`, `headers.Authorization`, …).
    pub field: String,
    /// One sentence naming the client, the server and the field.
    pub message: String,
}

/// ```
/// use mcpconf::dialect::RenderError;
///
/// let e = RenderError {
///     field: "cwd".into(),
///     message: "claude-desktop cannot set `cwd` of server `db`".into(),
/// };
/// assert_eq!(e.code(), mcpconf::diag::Code::CannotExpress);
/// assert_eq!(e.to_string(), e.message);
/// ```
impl RenderError {
    /// The stable code: always `cannot-express`.
    pub fn code(&self) -> crate::diag::Code {
        crate::diag::Code::CannotExpress
    }
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RenderError {}

/// A grant a client needs beside the entry: strings in an array of the same file that make
/// the server usable (Kiro agents' `tools` / `allowedTools`).
#[derive(Debug, Clone, PartialEq)]
pub struct GrantSpec {
    /// The array's object path in the file (`["allowedTools"]`; `["mcp", "excluded"]`).
    pub array: Vec<String>,
    /// The strings to add (e.g. `@openab`, or `@openab/tool` per pinned tool).
    pub values: Vec<String>,
    /// Strings already in the array that cover the server (then nothing is added).
    pub covering: Vec<String>,
    /// The prefix of narrower grants for the same server (`@server/` before a tool's name):
    /// one the user wrote (not recorded as mcpconf's) counts as the grant, so mcpconf never
    /// widens what the user narrowed (`@server/tool` is not replaced by `@server`).
    pub narrower: Option<String>,
    /// Whether to create the array when the file has none (otherwise no grant is needed).
    pub create_array: bool,
    /// A project's list of servers turned off (`disable` on a target), not a grant.
    pub disable: bool,
}

/// How a client expresses a tool pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinSupport {
    /// It cannot: the plan says so.
    None,
    /// An allow-list field in the entry, named here.
    Field(&'static str),
}

/// The keys a client itself writes into a server entry: approvals (`autoApprove`,
/// `alwaysAllow`, Codex `tools.<tool>.approval_mode`), on/off switches (`disabled`,
/// `enabled`), per-tool switches (`disabledTools`), timeouts, OAuth state. They are outside
/// mcpconf's ownership proof unless the manifest declares them (contract §1, §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientManaged {
    /// The top-level keys of an entry the client writes (empty: it writes none).
    pub keys: &'static [&'static str],
    /// Where the client does so: a URL into its code or its documentation.
    pub source: &'static str,
    /// The client version (or commit) that was checked.
    pub checked: &'static str,
}

/// A client whose state in entries has not been looked into (no keys).
pub const UNCHECKED: ClientManaged = ClientManaged {
    keys: &[],
    source: "",
    checked: "",
};

/// How a client spells an entry that is switched off but kept (`enabled = false` in a
/// manifest): `key` set to `off`, e.g. `"disabled": true` or `enabled = false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffForm {
    /// The entry key (`disabled`, `enabled`).
    pub key: &'static str,
    /// Its value when the server is off (`true` for `disabled`, `false` for `enabled`).
    pub off: bool,
}

/// `"disabled": true`.
pub const DISABLED_TRUE: OffForm = OffForm {
    key: "disabled",
    off: true,
};

/// `"enabled": false`.
pub const ENABLED_FALSE: OffForm = OffForm {
    key: "enabled",
    off: false,
};

/// One client's dialect.
pub trait Dialect: Sync {
    /// The id used in manifests (`cursor`).
    fn id(&self) -> &'static str;
    /// One line for `mcpconf clients`.
    fn description(&self) -> &'static str;
    /// Scopes, the default first.
    fn scopes(&self) -> &'static [Scope];
    /// The file syntax the client reads.
    fn syntax(&self) -> Syntax;
    /// How `${VAR}` is spelled, for `mcpconf clients` (e.g. `${env:VAR}`).
    fn placeholder(&self) -> String;
    /// Whether the client expands its references in a field of this kind (`import` reads
    /// text that looks like a reference where the client expands none as a literal).
    fn expands_in(&self, _slot: Slot) -> bool {
        true
    }
    /// What the client expands in a string where it expands references: defaults, `$VAR`,
    /// command substitution ([`crate::template::Grammar`]). Only a client of a grammar with
    /// defaults takes `${VAR:-default}`, and only a client of the grammar named takes verbatim
    /// text ([`render_target`] refuses the others).
    fn grammar(&self) -> crate::template::Grammar {
        crate::template::Grammar::Plain
    }
    /// How a tool pin is written.
    fn pin_support(&self) -> PinSupport;
    /// Field names this client knows in an entry (for lint's unknown-field rule).
    fn known_fields(&self) -> &'static [&'static str];
    /// The object path inside the file that holds the servers, for a scope.
    fn container(&self, scope: &str, ctx: &Ctx) -> Vec<String>;
    /// Render a server, or refuse.
    fn render(&self, server: &Server) -> Result<Rendered, RenderError>;
    /// Render a server for a target that declares the client's version (`client_version`),
    /// which may allow fields only newer releases read (opencode's `cwd`); by default the
    /// same as [`Dialect::render`].
    fn render_for(
        &self,
        server: &Server,
        client_version: Option<&str>,
    ) -> Result<Rendered, RenderError> {
        let _ = client_version;
        self.render(server)
    }

    /// The scopes whose file this client does not load at all when it holds a reference, and
    /// where that was found: a server with a reference is refused there (`cannot-express`),
    /// since writing it would make the client drop every server of that file.
    fn references_unloaded_in(&self) -> (&'static [&'static str], &'static str) {
        (&[], "")
    }

    /// The keys this client itself writes into a server entry, with their source.
    fn client_managed(&self) -> ClientManaged {
        UNCHECKED
    }
    /// Settings the client documents in an entry that the manifest does not carry and that a
    /// user sets by hand (opencode's `timeout` and `oauth`): mcpconf keeps them in the file as
    /// written, as it keeps the client's own keys (outside the ownership proof, byte for byte
    /// through an update, adopted with the entry), though they are the user's, not the client's.
    fn user_keys(&self) -> &'static [&'static str] {
        &[]
    }
    /// The client's own "off" form of an entry, if it has one (`None`: `enabled = false`
    /// cannot be expressed for this client).
    fn off_form(&self) -> Option<OffForm> {
        None
    }

    /// How the client turns a server the user configured at user scope off for one project
    /// (`disable` on a project-scope target), if it can.
    fn project_disable(&self) -> Option<ProjectDisable> {
        None
    }
    /// The scopes whose file belongs to one project: those under `--root` (and Claude Code's
    /// `local`, kept per project in the user file).
    fn project_scopes(&self) -> Vec<&'static str> {
        self.scopes()
            .iter()
            .filter(|s| s.base == Base::Root)
            .map(|s| s.name)
            .collect()
    }

    /// The text a new file of this client starts with (Continue's files must name
    /// themselves); empty for most clients.
    fn new_file(&self) -> &'static str {
        ""
    }
    /// The mode of a file mcpconf creates for this client (`None`: 0600, the user's own file;
    /// an admin file, which every user's client reads, is 0644).
    fn new_file_mode(&self) -> Option<u32> {
        None
    }
    /// Whether a target must give an explicit `path`.
    fn requires_path(&self) -> bool {
        self.scopes().iter().all(|s| s.path.is_empty())
    }
    /// A lock directory the client itself takes (proper-lockfile style `<file>.lock`) that
    /// mcpconf must also hold while writing this scope's file.
    fn client_lock(&self, _scope: &str) -> bool {
        false
    }
    /// Where the client starts no server from a remote entry without its transport marker
    /// (`type`): it rejects the entry (Roo Code) or takes it for a local command (Amazon Q);
    /// the source that says so. `import` leaves such an entry out with the reason, and `lint`
    /// reports it.
    fn untyped_url_unread(&self) -> Option<&'static str> {
        None
    }
    /// Why an entry of this client's file is not an MCP server mcpconf manages (Goose's own
    /// `builtin`/`platform` extensions, a server a Zed extension provides), for `import` to
    /// say; `None` for a server entry.
    fn not_a_server(
        &self,
        _name: &str,
        _entry: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<String> {
        None
    }
    /// Where the tool pin stands in an entry in the common shape ([`Dialect::common_entry`]):
    /// the pin field of the current release, unless the common shape moves it (`tools`).
    fn common_pin_key(&self) -> Option<&'static str> {
        match self.pin_support_latest() {
            PinSupport::Field(f) => Some(f),
            _ => None,
        }
    }
    /// Whether `auto_approve` means something for this client: it has grants
    /// ([`Dialect::grants`]) or a trust field ([`Dialect::trust_form`]).
    fn supports_auto_approve(&self) -> bool {
        self.trust_form().is_some()
    }
    /// The member that trusts a server (its tools run without a confirmation), as the client
    /// spells it: key and value as compact JSON (Gemini CLI's and Qwen Code's `"trust": true`).
    /// `auto_approve = true` on a target writes it into each entry.
    fn trust_form(&self) -> Option<(&'static str, &'static str)> {
        None
    }
    /// Other files a scope is made of beside its default file (scope name, a path relative to
    /// the scope's base whose file name may hold one `*`): the client reads every file that
    /// matches as one of that scope (Continue's block files `.continue/mcpServers/*.yaml`).
    /// `lint FILE` tells such a file's client from its path.
    fn block_files(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Whether a target's path may be a glob over several files (agent files).
    fn multi_file(&self) -> bool {
        false
    }
    /// Arrays of this client's files that may hold grants (where legacy grants are removed).
    fn grant_arrays(&self) -> &'static [&'static str] {
        &[]
    }
    /// Grants that go with a server's entry in this client's files.
    fn grants(&self, _server: &Server, _auto_approve: bool) -> Vec<GrantSpec> {
        Vec::new()
    }
    /// Other clients' files (client id, scope) whose entries this client's files can inherit
    /// (Kiro agents with `includeMcpJson`): a legacy grant is removed only when no entry of
    /// its name stays visible there.
    fn inherited_settings(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// What the client expands, as its current release reads a file (every [`Gate`]
    /// applied): the spellings and the fields where they stand. `lint` reads this; the
    /// writers follow the same facts. By default the spelling of [`Dialect::placeholder`]
    /// everywhere (`none`: nothing).
    fn expansion(&self) -> Expansion {
        let p = self.placeholder();
        let first = p.split_whitespace().next().unwrap_or("");
        if p.starts_with("none") {
            return Expansion {
                forms: Vec::new(),
                places: Places::Nowhere,
            };
        }
        Expansion {
            forms: RefForm::of_spelling(first).into_iter().collect(),
            places: Places::All,
        }
    }
    /// How the current release takes a tool pin (every [`Gate`] applied).
    fn pin_support_latest(&self) -> PinSupport {
        self.pin_support()
    }
    /// Where this dialect's facts were read: the client's own code or docs (public URLs or
    /// repository paths).
    fn source(&self) -> &'static str {
        ""
    }
    /// The client release (or docs revision) the facts were checked against.
    fn checked(&self) -> &'static str {
        ""
    }
    /// Facts that hold only from a release on, applied for a target's `client_version`.
    fn gates(&self) -> &'static [Gate] {
        &[]
    }
    /// The defaults the client writes out for fields an entry did not have when it saves its
    /// own file (key, value as compact JSON), from its own code: an entry that differs from
    /// the one mcpconf wrote only by these is the same entry. Beyond these, every client's
    /// `null`s, empty `args`/`env`/`headers`, `disabled: false`, `enabled: true` and a stdio
    /// `type` count as defaults ([`crate::ledger::is_default`]).
    fn defaults(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Fields the client also reads under another name: (that name, the client's own name, a
    /// member that goes with its own spelling as `key=json` or `""`). Windsurf reads `url` as
    /// its `serverUrl`; Gemini CLI's `httpUrl` is `type: "http"` with `url`. Entries compare in
    /// the client's own spelling, so the same server in the other one is no conflict.
    fn respell(&self) -> &'static [(&'static str, &'static str, &'static str)] {
        &[]
    }
    /// Whether a stdio entry of this client takes an env file (`envFile`: VS Code, Cursor); a
    /// server with `env_file` is refused (`cannot-express`) by the others.
    fn env_file(&self) -> bool {
        false
    }
    /// The top-level array of this client's files that declares the inputs it prompts the
    /// user for (`inputs` in VS Code's `mcp.json`, each `{type, id, description, password}`),
    /// if it has one: a server that uses `${input:ID}` is refused (`cannot-express`) by a
    /// client without one, never written with an unset reference in its place.
    fn inputs_array(&self) -> Option<&'static str> {
        None
    }
    /// The client's own built-in variables (`${workspaceFolder}`, `${userHome}`, …), which it
    /// fills in itself: `import` keeps them as written (never as environment references) and a
    /// literal holding them is written as is.
    fn builtins(&self) -> &'static [&'static str] {
        &[]
    }
    /// Other clients' files (client id, scope) this client also reads, so the same servers
    /// written there too show twice in it (Copilot CLI reads Claude Code's `.mcp.json`).
    fn also_reads(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// The client's canonical reading of an entry, when it reads the same entry in more than
    /// one shape (Zed migrates its legacy `command: {path, args, env}` object in memory on
    /// every load; Grok CLI reads its legacy flat entry as well as the nested `transport`
    /// mcpconf writes): an entry in either shape, in the one shape both compare in. Plan,
    /// `--adopt` and import compare through it, so the other spelling of the same entry is
    /// the same entry (adopted as it is, never rewritten for its spelling alone).
    fn canonical(&self) -> Option<fn(&serde_json::Value) -> serde_json::Value> {
        None
    }
    /// An entry of this client's file in the common shape import reads (`command`, `args`,
    /// `env`, `url`, `headers`, `type`, `cwd`): the inverse of the rendering's reshaping, for a
    /// client that moves keys (Grok CLI's nested `transport`). Most clients' entries already are.
    fn common_entry(
        &self,
        _name: &str,
        entry: &serde_json::Map<String, serde_json::Value>,
    ) -> serde_json::Map<String, serde_json::Value> {
        entry.clone()
    }
    /// The name the client itself files a server under, when it rewrites names (Mistral
    /// Vibe's `normalize_name`): two entries with the same key collide in the client.
    /// `None` (for every name, or for none): the name as written.
    fn name_key(&self, _name: &str) -> Option<String> {
        None
    }
    /// A stricter reading of a file the client applies beyond its syntax (Mistral Vibe reads
    /// TOML 1.0 only): the reason the file is refused, or `None`. Checked on the file as read,
    /// before anything is planned in it.
    fn refuse_file(&self, _bytes: &[u8]) -> Option<crate::diag::ReadError> {
        None
    }
    /// The default scope.
    fn default_scope(&self) -> &'static Scope {
        &self.scopes()[0]
    }
    /// A scope by name.
    fn scope(&self, name: &str) -> Option<&'static Scope> {
        self.scopes().iter().find(|s| s.name == name)
    }
    /// The file a target names: an explicit `path` (relative to the scope's base), else the
    /// scope's default.
    fn path(&self, scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> PathBuf {
        scope_path(scope, explicit, ctx)
    }
}

/// Where a scope's file is without a client home variable: an explicit path under its base,
/// else the default path, a user file under `~/.config/` following `$XDG_CONFIG_HOME`.
pub(crate) fn scope_path(scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> PathBuf {
    let path = explicit.unwrap_or(scope.default_path());
    match scope.base {
        Base::Root => ctx.root.join(path),
        Base::Home => match (path.strip_prefix(".config/"), &ctx.xdg_config_home) {
            (Some(rest), Some(xdg)) if explicit.is_none() => xdg.join(rest),
            _ => ctx.home.join(path),
        },
    }
}

/// The user file `file` under a client's home `dir` when it is set and the target names no
/// path of its own, else [`scope_path`].
pub(crate) fn user_file_under(
    dir: Option<&PathBuf>,
    file: &str,
    scope: &Scope,
    explicit: Option<&str>,
    ctx: &Ctx,
) -> PathBuf {
    match (dir, scope.base, explicit) {
        (Some(dir), Base::Home, None) => dir.join(file),
        _ => scope_path(scope, explicit, ctx),
    }
}

/// Every supported client, in the order `mcpconf clients` lists them.
pub static ALL: &[&dyn Dialect] = &[
    &generic::JSON,
    &claude_code::CLAUDE_CODE,
    &claude_desktop::CLAUDE_DESKTOP,
    &cursor::CURSOR,
    &kiro::KIRO,
    &kiro_agent::KIRO_AGENT,
    &vscode::VSCODE,
    &windsurf::WINDSURF,
    &codex::CODEX,
    &gemini::GEMINI,
    &zed::ZED,
    &cline::CLINE,
    &opencode::OPENCODE,
    &amazonq::AMAZONQ,
    &roo::ROO,
    &antigravity::ANTIGRAVITY,
    &copilot_cli::COPILOT_CLI,
    &factory::FACTORY,
    &qwen::QWEN,
    &opencode::KILO,
    &trae::TRAE,
    &kimi::KIMI,
    &kimi::KIMI_CODE,
    &junie::JUNIE,
    &amp::AMP,
    &crush::CRUSH,
    &lm_studio::LM_STUDIO,
    &grok::GROK,
    &augment::AUGMENT,
    &jetbrains::JETBRAINS,
    &devin::DEVIN,
    &mistral_vibe::MISTRAL_VIBE,
    &goose::GOOSE,
    &continue_dev::CONTINUE,
    &hermes::HERMES,
    &mcp_json::MCP_JSON,
    &vscode_insiders::VSCODE_INSIDERS,
    &visual_studio::VISUAL_STUDIO,
    &copilot_xcode::COPILOT_XCODE,
    &firebase_studio::FIREBASE_STUDIO,
    &rovo_dev::ROVO_DEV,
    &warp::WARP,
    &openhands::OPENHANDS,
    &librechat::LIBRECHAT,
    &tabnine::TABNINE,
    &grok_cli::GROK_CLI,
    &qoder::QODER,
];

/// Whether `entry` is a remote entry without `type` in a client that starts no server from
/// one ([`Dialect::untyped_url_unread`]): the source that says so. The one test `import`
/// (which leaves such an entry out) and `lint` (`untyped-url`) share.
pub fn starts_nothing_from(
    d: &dyn Dialect,
    entry: &serde_json::Map<String, serde_json::Value>,
) -> Option<&'static str> {
    let source = d.untyped_url_unread()?;
    (entry.contains_key("url") && !entry.contains_key("type") && !entry.contains_key("command"))
        .then_some(source)
}

/// The keys `client` writes into its entries itself (none for an unknown client).
pub fn client_keys(client: &str) -> &'static [&'static str] {
    lookup(client).map_or(&[], |d| d.client_managed().keys)
}

/// What a client does to an entry when it saves its file: its own keys and the defaults it
/// writes out ([`Dialect::defaults`]), for every comparison of entries (ledger, `--adopt`,
/// `[[legacy]]`, lint).
pub fn client_facts(client: &str) -> crate::ledger::ClientFacts<'static> {
    lookup(client).map_or_else(Default::default, |d| crate::ledger::ClientFacts {
        keys: kept_keys(d),
        untyped_http: !types_http(d),
        defaults: d.defaults(),
        respell: d.respell(),
        bare_refs: d.grammar().bare(),
        canon: d.canonical(),
        reads: kept::reads(d),
    })
}

/// The client keys of one entry: the client's keys that the manifest does not declare. A key
/// is declared when the rendered entry holds it, except the off form's key written as "on"
/// while the manifest says nothing about `enabled` (Goose writes `enabled: true` in every
/// entry; the client's switch stays the client's), and a key rendered only as the default the
/// client assumes without it ([`Dialect::defaults`]: Goose's `timeout: 300`, `description:
/// ''`), which mcpconf writes because the client's own saves do, not as a setting.
pub fn entry_client_state(
    d: &dyn Dialect,
    rendered: &serde_json::Value,
    enabled_declared: bool,
) -> Vec<String> {
    let off = d.off_form().map(|o| o.key);
    let only_default = |k: &str| {
        rendered.get(k).is_some_and(|v| {
            let json = serde_json::to_string(v).unwrap_or_default();
            d.defaults().iter().any(|(dk, dv)| *dk == k && *dv == json)
        })
    };
    kept_keys(d)
        .iter()
        .filter(|k| {
            let is_off = off == Some(*k);
            if is_off && enabled_declared {
                return false;
            }
            crate::ledger::member_at(rendered, k).is_none() || is_off || only_default(k)
        })
        .map(|k| k.to_string())
        .collect()
}

/// Render a server for a target, in the client's off form when it is switched off
/// (`enabled = false` on the server or on the target); a client without one refuses
/// (`cannot-express`).
pub fn render_target(
    d: &dyn Dialect,
    server: &Server,
    client_version: Option<&str>,
    enabled: bool,
) -> Result<Rendered, RenderError> {
    grammar_check(d, server)?;
    refuse_unwritable(d, server)?;
    let mut r = d.render_for(server, client_version)?;
    if enabled {
        return Ok(r);
    }
    let Some(off) = d.off_form() else {
        return Err(RenderError {
            field: "enabled".into(),
            message: format!(
                "client `{}` has no way to keep server `{}` in its file switched off, so `enabled = false` cannot be written there (remove the server from this target instead)",
                d.id(),
                server.name
            ),
        });
    };
    if let Some(m) = r.value.as_object_mut() {
        m.insert(off.key.to_string(), serde_json::Value::Bool(off.off));
    }
    Ok(r)
}

/// Refuse a server whose references with a default or verbatim text the client's grammar
/// does not read ([`Dialect::grammar`]); where the client expands nothing in a field, its
/// dialect refuses them as it refuses any reference.
fn grammar_check(d: &dyn Dialect, server: &Server) -> Result<(), RenderError> {
    let g = d.grammar();
    for (field, t) in server.fields() {
        let why = if let Some((vg, _)) = t.as_verbatim() {
            (vg != g).then(|| {
                format!(
                    "`{field}` of server `{}` is verbatim text for the `{}` grammar ({}); client `{}` reads {}, so the text would not mean the same there (give this target a server of its own)",
                    server.name,
                    vg.id(),
                    vg.describe(),
                    d.id(),
                    g.describe()
                )
            })
        } else {
            (t.has_defaults() && !g.defaults()).then(|| {
                format!(
                    "client `{}` has no default in its references (it expands {}), so `{field}` of server `{}` cannot be written with `${{VAR:-default}}`; write `${{VAR}}` and set the variable",
                    d.id(),
                    g.describe(),
                    server.name
                )
            })
        };
        if let Some(message) = why {
            return Err(RenderError { field, message });
        }
    }
    Ok(())
}

/// What no dialect of a client without the feature may write: a client-prompted input
/// (`${input:ID}`) where the client prompts for none, an `env_file` where it reads none.
fn refuse_unwritable(d: &dyn Dialect, server: &Server) -> Result<(), RenderError> {
    if d.inputs_array().is_none() {
        for (field, t) in server.fields() {
            if let Some(id) = t.inputs().next() {
                return Err(RenderError {
                    message: format!(
                        "client `{}` prompts for no inputs, so `{field}` of server `{}` (it uses the input `${{input:{id}}}`) cannot be written there; mcpconf never writes an unset reference or a literal in its place (use `${{VAR}}` for this client, or a client with prompts such as `vscode`)",
                        d.id(),
                        server.name
                    ),
                    field,
                });
            }
        }
    }
    let has_env_file = matches!(
        &server.transport,
        crate::server::Transport::Stdio {
            env_file: Some(_),
            ..
        }
    );
    if has_env_file && !d.env_file() {
        return Err(RenderError {
            field: "env_file".into(),
            message: format!(
                "client `{}` reads no env file, so server `{}` cannot be written with its `env_file`; remove `env_file` (set the variables in `env`), or target a client that reads one such as `vscode` or `cursor`",
                d.id(),
                server.name
            ),
        });
    }
    Ok(())
}

/// A dialect by id: a client's, or an admin file's ([`admin`]), as the ledger names them.
pub fn lookup(id: &str) -> Option<&'static dyn Dialect> {
    lookup_client(id).or_else(|| admin::lookup(id).map(|a| a as &dyn Dialect))
}

/// A client's dialect by id ([`ALL`]): what a manifest's target or `--client` may name.
pub fn lookup_client(id: &str) -> Option<&'static dyn Dialect> {
    ALL.iter().copied().find(|d| d.id() == id)
}

/// Every client id.
pub fn ids() -> Vec<&'static str> {
    ALL.iter().map(|d| d.id()).collect()
}

/// `text` with every `${NAME}` whose NAME is one of `builtins` blanked (the rest kept), so
/// that what is left can be checked for text a client would expand.
pub fn without_builtins<'a>(text: &'a str, builtins: &[&str]) -> std::borrow::Cow<'a, str> {
    if builtins.is_empty() || !text.contains("${") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for b in builtins {
        out = out.replace(&format!("${{{b}}}"), "");
    }
    std::borrow::Cow::Owned(out)
}

/// VS Code's predefined variables (its variables reference), which it resolves in `mcp.json`;
/// Cursor fills in the first five of them.
pub const VSCODE_VARIABLES: &[&str] = &[
    "userHome",
    "workspaceFolder",
    "workspaceFolderBasename",
    "pathSeparator",
    "/",
    "file",
    "fileWorkspaceFolder",
    "relativeFile",
    "relativeFileDirname",
    "fileBasename",
    "fileBasenameNoExtension",
    "fileExtname",
    "fileDirname",
    "fileDirnameBasename",
    "cwd",
    "lineNumber",
    "columnNumber",
    "selectedText",
    "execPath",
    "defaultBuildTask",
];

/// `auto_approve = true` on a target of a client with a trust field: the entry trusts the
/// server in the client's own spelling (Gemini's and Qwen's `"trust": true`).
pub fn with_trust(d: &dyn Dialect, auto_approve: bool, value: &mut serde_json::Value) {
    if let (true, Some((key, json)), Some(m)) =
        (auto_approve, d.trust_form(), value.as_object_mut())
        && let Ok(v) = serde_json::from_str(json)
    {
        m.insert(key.to_string(), v);
    }
}
