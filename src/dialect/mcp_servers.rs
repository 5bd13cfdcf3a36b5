//! The common shape most clients share: a JSON object of entries under a container key, each
//! entry `{command, args, env}` or `{url, headers}`, with the per-client variations (field
//! names, `type` values, reference spelling, where references may stand) described as data.

use serde_json::{Map, Value};

use super::{
    Base, ClientManaged, Ctx, Dialect, OffForm, PinSupport, RenderError, Rendered, Scope, Syntax,
};
use crate::server::{RemoteKind, Server, Transport};
use crate::template::{Part, Template};

/// How one transport is marked in an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// No `type` field: the client infers the transport.
    Omit,
    /// `"type": <name>`.
    Name(&'static str),
    /// The client cannot use this transport from its config file.
    Unsupported,
}

/// The `type` field for each transport.
#[derive(Debug, Clone, Copy)]
pub struct Types {
    /// Local process.
    pub stdio: Ty,
    /// Streamable HTTP.
    pub http: Ty,
    /// Server-sent events.
    pub sse: Ty,
}

/// Where environment references may stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Places {
    /// In every string field (command, args, env values, cwd, url, header values).
    All,
    /// Only in env values and header values.
    EnvAndHeaders,
    /// Only in env values.
    Env,
    /// Nowhere: the client expands no references.
    Nowhere,
}

/// Literal text a client would take for a reference where it expands references, so that a
/// manifest literal (`$${X}`, `$HOME`, `{env:X}`) written verbatim would silently become one.
/// None of the clients documents an escape for these, so such a literal is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hazard {
    /// Nothing is expanded.
    None,
    /// `${name…}` (`${VAR}`, `${env:VAR}`, VS Code's `${workspaceFolder}`, …).
    DollarBrace,
    /// Shell style: `$NAME` (also `$1`), `${…}` and `$(…)`.
    Dollar,
    /// opencode style: `{env:…}` and `{file:…}`.
    Brace,
}

impl Hazard {
    /// Whether literal text holds something the client would expand.
    pub fn hits(self, lit: &str) -> bool {
        match self {
            Hazard::None => false,
            // A `${` that opens a name: `${VAR}`, `${env:…}`, `${workspaceFolder}`.
            Hazard::DollarBrace => lit.as_bytes().windows(3).any(|w| {
                w[0] == b'$' && w[1] == b'{' && (w[2].is_ascii_alphabetic() || w[2] == b'_')
            }),
            // Gemini's `\$(\w+|\{…\})` and the shells: a `$` before a word character, `{` or
            // `(`.
            Hazard::Dollar => lit.as_bytes().windows(2).any(|w| {
                w[0] == b'$' && (w[1].is_ascii_alphanumeric() || matches!(w[1], b'_' | b'{' | b'('))
            }),
            Hazard::Brace => lit.contains("{env:") || lit.contains("{file:"),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Hazard::None => "nothing",
            Hazard::DollarBrace => "`${…}`",
            Hazard::Dollar => "`$NAME`, `${…}` and `$(…)`",
            Hazard::Brace => "`{env:…}` and `{file:…}`",
        }
    }
}

/// A spelling of an environment reference a client expands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefForm {
    /// `${VAR}` (also `${VAR:-default}` where the client takes a default).
    Brace,
    /// `${env:VAR}`
    Env,
    /// `$VAR` (shell style)
    Bare,
    /// `{env:VAR}` (opencode)
    Opencode,
}

impl RefForm {
    /// The spelling with `VAR` standing for the name.
    pub fn spelling(self) -> &'static str {
        match self {
            RefForm::Brace => "${VAR}",
            RefForm::Env => "${env:VAR}",
            RefForm::Bare => "$VAR",
            RefForm::Opencode => "{env:VAR}",
        }
    }

    /// The form of a spelling written `${VAR}`-style (`None`: not a reference spelling).
    pub fn of_spelling(s: &str) -> Option<RefForm> {
        [
            RefForm::Brace,
            RefForm::Env,
            RefForm::Bare,
            RefForm::Opencode,
        ]
        .into_iter()
        .find(|f| f.spelling() == s)
    }
}

/// What a client expands in its entries: the spellings and where they stand. The one source
/// for the writers (through [`McpServers`]), `lint`'s `placeholder-syntax` rule and
/// `mcpconf clients`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// The spellings the client expands, the one mcpconf writes first (empty: none).
    pub forms: Vec<RefForm>,
    /// Where they stand.
    pub places: Places,
}

/// A fact that holds only from a release of the client on: used for a target whose
/// `client_version` is at least `since`, and by `lint` (which checks files as current
/// releases read them).
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    /// The first release with the fact.
    pub since: &'static str,
    /// What changes, in words (for `mcpconf clients` and the docs).
    pub what: &'static str,
    /// Where references may stand from that release on, if that changes.
    pub var_places: Option<Places>,
    /// The tool allow-list field from that release on, if that changes.
    pub pin_field: Option<&'static str>,
    /// Whether a local server's `cwd` is read from that release on.
    pub cwd: bool,
}

/// Which kind of field a string is written to (where references may stand differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The command.
    Command,
    /// Arguments, working directory, URL.
    Plain,
    /// An env value.
    Env,
    /// A header value.
    Header,
}

/// A client of the common `mcpServers` shape, described as data.
#[derive(Clone, Copy)]
pub struct McpServers {
    /// Client id.
    pub id: &'static str,
    /// One line for `mcpconf clients`.
    pub description: &'static str,
    /// Scopes, default first.
    pub scopes: &'static [Scope],
    /// File syntax.
    pub syntax: Syntax,
    /// The container key at the file's root.
    pub container_key: &'static str,
    /// `type` values.
    pub types: Types,
    /// The key holding a streamable-HTTP server's URL (`url`, `serverUrl`, `httpUrl`).
    pub http_url_key: &'static str,
    /// The key holding an SSE server's URL.
    pub sse_url_key: &'static str,
    /// Reference spelling, `VAR` standing for the variable name (e.g. `${env:VAR}`).
    pub var_syntax: &'static str,
    /// Where references may stand.
    pub var_places: Places,
    /// Literal text the client expands where references may stand.
    pub hazard: Hazard,
    /// What the client expands in `command` beyond that (Amazon Q shell-expands it).
    pub command_hazard: Hazard,
    /// Whether the client expands literal text in every field even where a reference is not
    /// dependable (Crush's newer releases resolve URLs and arguments too, older ones do not).
    pub hazard_everywhere: bool,
    /// Whether the client reads a `cwd` field.
    pub cwd: bool,
    /// Whether a stdio entry takes an `envFile` (a file of `NAME=value` lines the client loads).
    pub env_file: bool,
    /// The top-level array that declares the inputs the client prompts for (`${input:ID}`),
    /// if it has one (VS Code's `inputs`).
    pub inputs: Option<&'static str>,
    /// The entry field that takes a tool allow-list, if any.
    pub pin_field: Option<&'static str>,
    /// Whether an entry without a pin spells out the pin field as `["*"]` (every tool), as the
    /// client itself writes it (Copilot CLI rewrites entries that lack it when it saves).
    pub pin_all: bool,
    /// Entry fields the client documents.
    pub known_fields: &'static [&'static str],
    /// Scopes whose file the client also guards with a `<file>.lock` lock directory.
    pub lock_scopes: &'static [&'static str],
    /// Scopes whose container is `projects["<absolute root>"].<container_key>` (Claude Code's
    /// `local` scope).
    pub per_project_scopes: &'static [&'static str],
    /// The client's home variable, if it has one: the user file moves below that directory
    /// (unless the target names a path of its own).
    pub user_home: Option<UserHome>,
    /// The keys the client itself writes into an entry, with their source.
    pub client_managed: ClientManaged,
    /// Settings the client documents that the manifest does not carry, kept as the user
    /// wrote them ([`super::Dialect::user_keys`]).
    pub user_keys: &'static [&'static str],
    /// The client's own off form, if it has one.
    pub off: Option<OffForm>,
    /// The field that marks the transport (`type`; Kimi's `transport`).
    pub type_key: &'static str,
    /// Where the client starts no server from a remote entry without [`Self::type_key`]
    /// (it rejects the entry, or takes it for a local command): the source that says so.
    pub untyped_url_unread: Option<&'static str>,
    /// The key that marks an entry for a server the client gets from one of its extensions
    /// (Zed's `settings`, or `"source": "extension"`), when the entry has no `command` and no
    /// `url`: the entry only configures that server, it does not launch one.
    pub extension_key: Option<&'static str>,
    /// Reference spellings the client expands beyond `var_syntax` (shell-style `$VAR`, …):
    /// `lint` accepts them, the writers never write them.
    pub extra_forms: &'static [RefForm],
    /// Facts that hold only from a release on (see [`Gate`]).
    pub gates: &'static [Gate],
    /// The entry field that names an environment variable holding a bearer token
    /// (`bearerTokenEnvVar`): a header `Authorization: Bearer ${VAR}` is written as
    /// `<field>: VAR` where the client expands no references in headers.
    pub bearer_env_field: Option<&'static str>,
    /// Other clients' files (client id, scope) this client also reads.
    pub also_reads: &'static [(&'static str, &'static str)],
    /// The member that trusts a server (`auto_approve = true`): key, value as compact JSON.
    pub trust: Option<(&'static str, &'static str)>,
    /// The defaults the client writes out when it saves its own file, or assumes for a member
    /// an entry leaves out ([`super::Dialect::defaults`]).
    pub defaults: &'static [(&'static str, &'static str)],
    /// Fields the client also reads under another name ([`super::Dialect::respell`]).
    pub respell: &'static [(&'static str, &'static str, &'static str)],
    /// The client's own built-in variables, spelled `${NAME}` (`${workspaceFolder}`): the
    /// client fills them in itself, so such text is neither an environment reference nor a
    /// literal to refuse; it is written as the client spells it.
    pub builtins: &'static [&'static str],
    /// How the client turns a user's server off for one project (`disable`), if it can.
    pub disable: Option<super::ProjectDisable>,
    /// What the client expands where it expands references ([`super::Dialect::grammar`]).
    pub grammar: crate::template::Grammar,
    /// The client's canonical reading of an entry it reads in more than one shape
    /// ([`super::Dialect::canonical`]).
    pub canonical: Option<fn(&serde_json::Value) -> serde_json::Value>,
    /// Where these facts were read (the client's own code or docs).
    pub source: &'static str,
    /// The client release (or docs revision) they were checked against.
    pub checked: &'static str,
}

/// Where a client's home variable moves its user file.
#[derive(Debug, Clone, Copy)]
pub struct UserHome {
    /// The directory in [`crate::settings::ClientHomes`] (`None`: the variable is not set).
    pub dir: fn(&crate::settings::ClientHomes) -> Option<&std::path::PathBuf>,
    /// The user file's name below it.
    pub file: &'static str,
}

/// The shared defaults: `mcpServers`, no `type`, `url`, references everywhere.
pub const BASE: McpServers = McpServers {
    id: "",
    description: "",
    scopes: &[],
    syntax: Syntax::Json,
    container_key: "mcpServers",
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Name("sse"),
    },
    http_url_key: "url",
    sse_url_key: "url",
    var_syntax: "${VAR}",
    var_places: Places::All,
    hazard: Hazard::DollarBrace,
    command_hazard: Hazard::None,
    hazard_everywhere: false,
    cwd: false,
    env_file: false,
    inputs: None,
    pin_field: None,
    pin_all: false,
    known_fields: &["command", "args", "env", "url", "headers", "type"],
    lock_scopes: &[],
    per_project_scopes: &[],
    user_home: None,
    client_managed: super::UNCHECKED,
    user_keys: &[],
    off: None,
    type_key: "type",
    untyped_url_unread: None,
    extension_key: None,
    extra_forms: &[],
    gates: &[],
    bearer_env_field: None,
    also_reads: &[],
    builtins: &[],
    trust: None,
    defaults: &[],
    respell: &[],
    disable: None,
    grammar: crate::template::Grammar::Plain,
    canonical: None,
    source: "",
    checked: "",
};

impl McpServers {
    /// These facts as they hold for `client_version` (`None`: the oldest release mcpconf
    /// supports, so no gate applies; [`McpServers::latest`] for all of them).
    pub fn at(&self, client_version: Option<&str>) -> McpServers {
        let mut out = *self;
        for g in self.gates {
            if client_version.is_some_and(|v| crate::manifest::version_at_least(v, g.since)) {
                out.apply(g);
            }
        }
        out
    }

    /// These facts as the newest release checked holds them (every gate applied).
    pub fn latest(&self) -> McpServers {
        let mut out = *self;
        for g in self.gates {
            out.apply(g);
        }
        out
    }

    fn apply(&mut self, g: &Gate) {
        if let Some(p) = g.var_places {
            self.var_places = p;
        }
        if let Some(f) = g.pin_field {
            self.pin_field = Some(f);
        }
        self.cwd |= g.cwd;
    }

    /// The spellings expanded and where (of these facts, gates not applied).
    pub fn expansion_here(&self) -> Expansion {
        let mut forms = Vec::new();
        if self.var_places != Places::Nowhere {
            forms.extend(RefForm::of_spelling(self.var_syntax));
            forms.extend(self.extra_forms.iter().copied());
        }
        Expansion {
            forms,
            places: self.var_places,
        }
    }

    /// Spell a template for a field, or refuse when the client cannot expand a reference there
    /// or would expand a literal.
    pub fn spell(
        &self,
        t: &Template,
        server: &Server,
        field: &str,
        slot: Slot,
    ) -> Result<String, RenderError> {
        let allowed = self.expands_in(slot);
        if t.has_vars() && !allowed {
            let where_ = match self.var_places {
                Places::Nowhere => "expands no environment references",
                Places::Env => "expands environment references only in env values",
                _ => "expands environment references only in env values and headers",
            };
            return Err(RenderError {
                field: field.to_string(),
                message: format!(
                    "client `{}` {where_}, so `{field}` of server `{}` (its value holds a reference) cannot be written without a literal value; mcpconf never writes a secret in its place (use another client, or a wrapper command that reads the variable)",
                    self.id, server.name
                ),
            });
        }
        let mut hazard = if allowed || self.hazard_everywhere {
            self.hazard
        } else {
            Hazard::None
        };
        if slot == Slot::Command && self.command_hazard != Hazard::None {
            hazard = self.command_hazard;
        }
        // The client's built-in variables are what it expands them to, as meant: only other
        // text it would expand is a hazard.
        let literal_hit = t.parts.iter().any(|p| match p {
            Part::Lit(l) => hazard.hits(&super::without_builtins(l, self.builtins)),
            _ => false,
        });
        if literal_hit {
            return Err(expands_literal(self.id, &server.name, field, hazard));
        }
        Ok(t.render(|v| self.var_syntax.replace("VAR", v)))
    }

    fn map(
        &self,
        pairs: &[(String, Template)],
        server: &Server,
        what: &str,
        slot: Slot,
    ) -> Result<Value, RenderError> {
        let mut m = Map::new();
        for (k, v) in pairs {
            m.insert(
                k.clone(),
                Value::String(self.spell(v, server, &format!("{what}.{k}"), slot)?),
            );
        }
        Ok(Value::Object(m))
    }

    fn unsupported(&self, server: &Server, what: &str) -> RenderError {
        RenderError {
            field: "transport".into(),
            message: format!(
                "client `{}` cannot use {what} servers from its config file, so server `{}` cannot be written there",
                self.id, server.name
            ),
        }
    }

    /// Render with the shared rules (used by wrappers such as `claude-code`).
    pub fn render_entry(&self, server: &Server) -> Result<Rendered, RenderError> {
        let mut m = Map::new();
        let type_key = self.type_key;
        let ty = |m: &mut Map<String, Value>, t: Ty| {
            if let Ty::Name(n) = t {
                m.insert(type_key.into(), n.into());
            }
        };
        match &server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                env_file,
            } => {
                if self.types.stdio == Ty::Unsupported {
                    return Err(self.unsupported(server, "local (stdio)"));
                }
                ty(&mut m, self.types.stdio);
                m.insert(
                    "command".into(),
                    self.spell(command, server, "command", Slot::Command)?
                        .into(),
                );
                if !args.is_empty() {
                    let mut out = Vec::new();
                    for a in args {
                        out.push(Value::String(self.spell(a, server, "args", Slot::Plain)?));
                    }
                    m.insert("args".into(), Value::Array(out));
                }
                if !env.is_empty() {
                    m.insert("env".into(), self.map(env, server, "env", Slot::Env)?);
                }
                if let Some(cwd) = cwd {
                    if !self.cwd {
                        return Err(RenderError {
                            field: "cwd".into(),
                            message: format!(
                                "client `{}` has no working-directory field, so server `{}` cannot be written with its `cwd`; remove `cwd` or wrap the command",
                                self.id, server.name
                            ),
                        });
                    }
                    m.insert(
                        "cwd".into(),
                        self.spell(cwd, server, "cwd", Slot::Plain)?.into(),
                    );
                }
                // Refused where the client reads none ([`super::render_target`]).
                if let (Some(f), true) = (env_file, self.env_file) {
                    m.insert(
                        "envFile".into(),
                        self.spell(f, server, "env_file", Slot::Plain)?.into(),
                    );
                }
            }
            Transport::Remote { url, headers, kind } => {
                let (t, key, what) = match kind {
                    RemoteKind::Http => (self.types.http, self.http_url_key, "streamable HTTP"),
                    RemoteKind::Sse => (self.types.sse, self.sse_url_key, "SSE"),
                };
                if t == Ty::Unsupported {
                    return Err(self.unsupported(server, what));
                }
                ty(&mut m, t);
                m.insert(
                    key.into(),
                    self.spell(url, server, "url", Slot::Plain)?.into(),
                );
                let mut headers: Vec<(String, Template)> = headers.clone();
                if let Some(field) = self.bearer_env_field {
                    let bearer = headers.iter().position(|(k, t)| {
                        k.eq_ignore_ascii_case("authorization")
                            && matches!(t.parts.as_slice(), [Part::Lit(l), Part::Var(_)] if l == "Bearer ")
                    });
                    if let Some(i) = bearer {
                        let (_, t) = headers.remove(i);
                        if let Some(Part::Var(v)) = t.parts.last() {
                            m.insert(field.into(), v.clone().into());
                        }
                    }
                }
                if !headers.is_empty() {
                    m.insert(
                        "headers".into(),
                        self.map(&headers, server, "headers", Slot::Header)?,
                    );
                }
            }
        }
        let mut notes = Vec::new();
        if let Some(tools) = &server.tools {
            match self.pin_field {
                Some(f) => {
                    m.insert(
                        f.into(),
                        Value::Array(tools.iter().map(|t| Value::String(t.clone())).collect()),
                    );
                }
                None => notes.push(pin_note(self.id, &server.name)),
            }
        } else if let (Some(f), true) = (self.pin_field, self.pin_all) {
            m.insert(f.into(), Value::Array(vec![Value::String("*".into())]));
        }
        Ok(Rendered {
            value: Value::Object(m),
            notes,
        })
    }
}

/// The refusal for a literal the client would expand as a reference. The value is not quoted
/// (it may hold a secret).
pub fn expands_literal(client: &str, server: &str, field: &str, hazard: Hazard) -> RenderError {
    RenderError {
        field: field.to_string(),
        message: format!(
            "client `{client}` expands {} in `{field}` and has no escape for it, so the literal text in `{field}` of server `{server}` would be read as a reference; mcpconf refuses rather than write it (move the text into a file or wrapper the server reads)",
            hazard.describe()
        ),
    }
}

/// The plan's note for a pin a client cannot enforce.
pub fn pin_note(client: &str, server: &str) -> String {
    format!(
        "client `{client}` cannot enforce the tool pin of server `{server}`: every tool the server offers will be exposed"
    )
}

impl Dialect for McpServers {
    fn id(&self) -> &'static str {
        self.id
    }
    fn path(&self, scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> std::path::PathBuf {
        match self.user_home {
            Some(h) => {
                super::user_file_under((h.dir)(&ctx.client_homes), h.file, scope, explicit, ctx)
            }
            None => super::scope_path(scope, explicit, ctx),
        }
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn scopes(&self) -> &'static [Scope] {
        self.scopes
    }
    fn syntax(&self) -> Syntax {
        self.syntax
    }
    fn grammar(&self) -> crate::template::Grammar {
        self.grammar
    }
    fn expands_in(&self, slot: Slot) -> bool {
        match self.var_places {
            Places::All => true,
            Places::EnvAndHeaders => matches!(slot, Slot::Env | Slot::Header),
            Places::Env => slot == Slot::Env,
            Places::Nowhere => false,
        }
    }
    fn placeholder(&self) -> String {
        match self.var_places {
            Places::All => self.var_syntax.to_string(),
            Places::EnvAndHeaders => format!("{} (env values and headers only)", self.var_syntax),
            Places::Env => format!("{} (env values only)", self.var_syntax),
            Places::Nowhere => match self.bearer_env_field {
                Some(f) => format!("none: an `Authorization: Bearer` header as `{f}`"),
                None => "none".to_string(),
            },
        }
    }
    fn pin_support(&self) -> PinSupport {
        match self.pin_field {
            Some(f) => PinSupport::Field(f),
            None => PinSupport::None,
        }
    }
    fn known_fields(&self) -> &'static [&'static str] {
        self.known_fields
    }
    fn container(&self, scope: &str, ctx: &Ctx) -> Vec<String> {
        if self.per_project_scopes.contains(&scope) {
            vec![
                "projects".to_string(),
                ctx.project_key().display().to_string(),
                self.container_key.to_string(),
            ]
        } else {
            vec![self.container_key.to_string()]
        }
    }
    fn client_lock(&self, scope: &str) -> bool {
        self.lock_scopes.contains(&scope)
    }
    fn project_disable(&self) -> Option<super::ProjectDisable> {
        self.disable
    }
    fn project_scopes(&self) -> Vec<&'static str> {
        self.scopes
            .iter()
            .filter(|s| s.base == Base::Root || self.per_project_scopes.contains(&s.name))
            .map(|s| s.name)
            .collect()
    }
    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        self.render_entry(server)
    }
    fn client_managed(&self) -> ClientManaged {
        self.client_managed
    }
    fn user_keys(&self) -> &'static [&'static str] {
        self.user_keys
    }
    fn off_form(&self) -> Option<OffForm> {
        self.off
    }
    fn untyped_url_unread(&self) -> Option<&'static str> {
        self.untyped_url_unread
    }
    fn canonical(&self) -> Option<fn(&serde_json::Value) -> serde_json::Value> {
        self.canonical
    }
    /// An entry that only configures a server one of the client's extensions provides
    /// ([`McpServers::extension_key`]: no `command`, no `url`).
    fn not_a_server(
        &self,
        name: &str,
        entry: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<String> {
        let k = self.extension_key?;
        let extension = !entry.contains_key("command")
            && !entry.contains_key("url")
            && (entry.contains_key(k)
                || entry.get("source").and_then(|v| v.as_str()) == Some("extension"));
        extension.then(|| {
            format!(
                "server `{name}` is skipped: an extension of {} provides it (the entry holds only its settings), so there is no launch entry to manage",
                self.id
            )
        })
    }
    fn render_for(
        &self,
        server: &Server,
        client_version: Option<&str>,
    ) -> Result<Rendered, RenderError> {
        self.at(client_version).render_entry(server)
    }
    fn expansion(&self) -> Expansion {
        self.latest().expansion_here()
    }
    fn pin_support_latest(&self) -> PinSupport {
        self.latest().pin_support()
    }
    fn source(&self) -> &'static str {
        self.source
    }
    fn checked(&self) -> &'static str {
        self.checked
    }
    fn gates(&self) -> &'static [Gate] {
        self.gates
    }
    fn also_reads(&self) -> &'static [(&'static str, &'static str)] {
        self.also_reads
    }
    fn builtins(&self) -> &'static [&'static str] {
        self.builtins
    }
    fn env_file(&self) -> bool {
        self.env_file
    }
    fn inputs_array(&self) -> Option<&'static str> {
        self.inputs
    }
    fn trust_form(&self) -> Option<(&'static str, &'static str)> {
        self.trust
    }
    fn respell(&self) -> &'static [(&'static str, &'static str, &'static str)] {
        self.respell
    }
    fn defaults(&self) -> &'static [(&'static str, &'static str)] {
        self.defaults
    }
}

#[cfg(test)]
mod tests {
    use super::Hazard;

    #[test]
    fn hazards_match_what_each_client_expands() {
        for (h, lit, hit) in [
            (Hazard::DollarBrace, "${X}", true),
            (Hazard::DollarBrace, "a${env:X}", true),
            (Hazard::DollarBrace, "${_x}", true),
            (Hazard::DollarBrace, "${5}", false),
            (Hazard::DollarBrace, "$X {env:X}", false),
            (Hazard::Dollar, "$HOME", true),
            (Hazard::Dollar, "$1", true),
            (Hazard::Dollar, "$(id)", true),
            (Hazard::Dollar, "${X}", true),
            (Hazard::Dollar, "5$ $-", false),
            (Hazard::Brace, "{env:X}", true),
            (Hazard::Brace, "{file:~/k}", true),
            (Hazard::Brace, "${X} {envy}", false),
            (Hazard::None, "${X} $X {env:X}", false),
        ] {
            assert_eq!(h.hits(lit), hit, "{h:?} {lit}");
        }
    }
}
