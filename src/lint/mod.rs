//! `mcpconf lint`: checks client config files for what breaks an agent or leaks a secret, for CI
//! and for an operator's machine.
//!
//! Pure rules over parsed documents; the only I/O is reading the files (through
//! [`crate::fsio`]). Nothing here prints: [`render`] turns a [`LintReport`] into text, JSON,
//! SARIF or GitHub workflow commands, and the command layer prints that.
//!
//! Every rule has a stable id (see [`RULES`]), a default severity that can be changed per rule
//! ([`Config`]), and a page in `docs/lint/<rule>.md` whose text is also the SARIF help.

mod discover;
pub mod inventory;
mod loaded;
mod parallel;
mod read;
pub mod render;
mod rules;
mod run;
mod secrets;
mod source;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::dialect::Dialect;
use crate::manifest::Legacy;
use crate::redact::Redactor;

pub use discover::detect_client;

/// Every known client file that exists under the bases (what `lint` without paths reads): the
/// path, the client that reads it, and the scopes it serves. For `probe --all-clients`.
pub fn client_files(
    bases: &crate::dialect::Ctx,
) -> Vec<(std::path::PathBuf, &'static dyn Dialect, Vec<&'static str>)> {
    let req = Request {
        client_homes: bases.client_homes.clone(),
        xdg_config_home: bases.xdg_config_home.clone(),
        ..Request::new(bases.root.clone(), bases.home.clone())
    };
    discover::inputs(&req, Vec::new())
        .unwrap_or_default()
        .into_iter()
        .map(|i| (i.path, i.client, i.scopes))
        .collect()
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Not reported at all (`--allow RULE`).
    Off,
    /// Reported; does not fail the run.
    Warning,
    /// Reported; the run exits 1.
    Error,
}

impl Severity {
    /// `error`, `warning` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Off => "off",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A rule's metadata.
#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    /// Stable kebab-case id.
    pub id: &'static str,
    /// Severity unless configured otherwise.
    pub default: Severity,
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// The rule's documentation page (Markdown): what, why, how to fix, an example.
    pub help: &'static str,
}

macro_rules! rule {
    ($id:literal, $sev:ident, $summary:literal) => {
        RuleInfo {
            id: $id,
            default: Severity::$sev,
            summary: $summary,
            help: include_str!(concat!("../../docs/lint/", $id, ".md")),
        }
    };
}

/// Every rule, in documentation order.
pub static RULES: &[RuleInfo] = &[
    rule!(
        "parse-error",
        Error,
        "the file does not parse in its client's syntax"
    ),
    rule!(
        "not-an-object",
        Error,
        "the root, the servers container or an entry is not an object"
    ),
    rule!("duplicate-key", Error, "the same key twice in one object"),
    rule!("unreadable", Error, "the file exists but cannot be read"),
    rule!(
        "duplicate-server",
        Warning,
        "two entries that start the same server (same command and arguments, or same URL)"
    ),
    rule!(
        "literal-secret",
        Error,
        "a credential written literally instead of an environment reference"
    ),
    rule!(
        "secret-file-mode",
        Error,
        "a file holding a literal secret that group or others can read"
    ),
    rule!(
        "unknown-field",
        Warning,
        "a field this client does not know"
    ),
    rule!(
        "untyped-url",
        Warning,
        "a `url` entry without `type` in a client that starts no server from one"
    ),
    rule!(
        "placeholder-syntax",
        Warning,
        "an environment reference in a syntax this client does not expand"
    ),
    rule!(
        "reference-drops-file",
        Error,
        "a reference in a file that its client does not load at all while it holds one"
    ),
    rule!(
        "dangling-grant",
        Warning,
        "a grant for a server that the agent cannot see"
    ),
    rule!(
        "unpinned-package",
        Warning,
        "a package runner (npx, bunx, uvx, pnpm dlx) fetching a package without an exact version"
    ),
    rule!(
        "windows-npx",
        Warning,
        "a bare `npx` command in a file a Windows client reads, which needs `cmd /c`"
    ),
    rule!(
        "drift",
        Warning,
        "an entry mcpconf wrote that was edited since"
    ),
    rule!(
        "stale-legacy",
        Warning,
        "an entry of an old shape the manifest declares as legacy, still present"
    ),
    rule!(
        "policy-denied",
        Error,
        "an entry a deny rule of the manifest's `[policy]` matches"
    ),
    rule!(
        "policy-not-allowed",
        Error,
        "an entry outside the `allow` list of the manifest's exclusive `[policy]`"
    ),
    rule!(
        "unsupported-yaml",
        Warning,
        "valid YAML the client reads, outside the subset mcpconf edits"
    ),
];

/// A rule by id.
pub fn rule(id: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|r| r.id == id)
}

/// A rule id, or an `unknown-rule` error naming the closest one.
pub fn check_rule(id: &str) -> Result<&'static str, crate::diag::Error> {
    match rule(id) {
        Some(r) => Ok(r.id),
        None => {
            let hint = match crate::text::closest(id, RULES.iter().map(|r| r.id)) {
                Some(c) => format!("did you mean `{c}`?"),
                None => format!(
                    "the rules are {}",
                    RULES
                        .iter()
                        .map(|r| format!("`{}`", r.id))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            Err(crate::diag::Error::new(
                crate::diag::Code::UnknownRule,
                format!("unknown lint rule `{id}`; {hint}"),
            ))
        }
    }
}

/// Severity per rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    levels: BTreeMap<&'static str, Severity>,
}

impl Config {
    /// Set a rule's severity; an unknown rule is an error naming the closest one.
    pub fn set(&mut self, id: &str, level: Severity) -> Result<(), crate::diag::Error> {
        let id = check_rule(id)?;
        self.levels.insert(id, level);
        Ok(())
    }

    /// The severity a rule has under this configuration.
    pub fn level(&self, id: &str) -> Severity {
        self.levels
            .get(id)
            .copied()
            .or_else(|| rule(id).map(|r| r.default))
            .unwrap_or(Severity::Warning)
    }
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The rule's stable id.
    pub rule: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// The file, absolute or as given on the command line.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// What is wrong and how to fix it. Never contains a secret value.
    pub message: String,
    /// The text of the offending line, for code frames, with credential-like values already
    /// replaced by `<redacted>`.
    #[serde(skip)]
    pub source_line: Option<String>,
    /// The 1-based column of the finding in `source_line` (it moves when a value before it is
    /// redacted).
    #[serde(skip)]
    pub source_column: usize,
}

/// What to lint and with which settings.
#[derive(Clone)]
pub struct Request {
    /// Base of project files.
    pub root: PathBuf,
    /// Base of user files.
    pub home: PathBuf,
    /// The directories that move one client's user file (`$CODEX_HOME`, `$HERMES_HOME`, …).
    pub client_homes: crate::settings::ClientHomes,
    /// `$XDG_CONFIG_HOME`, when set and `--home` was not given.
    pub xdg_config_home: Option<PathBuf>,
    /// Files (or directories, linted as a project root) given on the command line; empty:
    /// discover every known client file under `root` and `home`.
    pub paths: Vec<PathBuf>,
    /// The client of the given paths, instead of detecting it from each path.
    pub client: Option<&'static dyn Dialect>,
    /// The ledger directory, for `drift`.
    pub state_dir: Option<PathBuf>,
    /// Owners whose ledgers are checked for `drift`; empty: every ledger in the state dir.
    pub owners: Vec<String>,
    /// Legacy shapes from the manifest, with their owner, for `stale-legacy`.
    pub legacy: Vec<(String, Legacy)>,
    /// The entries the manifest declares, as each target's client spells them: (client id,
    /// server name, entry). An entry equal to one of them is current, whatever shape it shares
    /// with a legacy one and whether or not a ledger says so (a CI runner has none), so
    /// `stale-legacy` does not apply to it.
    pub current: Vec<(String, String, serde_json::Value)>,
    /// The manifest's `[policy]`, for `policy-denied` and `policy-not-allowed`.
    pub policy: Option<crate::manifest::policy::Policy>,
    /// Severity per rule.
    pub config: Config,
}

impl Request {
    /// A request to lint every known client file under `root` and `home` (no paths given, no
    /// client forced, no ledgers, the default severities); set the other fields as needed.
    pub fn new(root: impl Into<PathBuf>, home: impl Into<PathBuf>) -> Request {
        Request {
            root: root.into(),
            home: home.into(),
            client_homes: Default::default(),
            xdg_config_home: None,
            paths: Vec::new(),
            client: None,
            state_dir: None,
            owners: Vec::new(),
            legacy: Vec::new(),
            current: Vec::new(),
            policy: None,
            config: Config::default(),
        }
    }
}

/// The outcome of a lint run.
#[derive(Debug, Clone, Default)]
pub struct LintReport {
    /// Findings, by file (in the order the files were checked), then line and column.
    pub findings: Vec<Finding>,
    /// The files that were checked (existing ones), as shown.
    pub files: Vec<String>,
    /// Every value recognised as a credential, to scrub from any output (code frames are
    /// scrubbed more widely before they get here).
    pub redactor: Redactor,
}

impl LintReport {
    /// Whether any finding is an error (the run exits 1).
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// Lint; `Err` is a usage error (`unknown-client`: a path whose client cannot be told).
/// Reads only, prints nothing: render the report with [`render`], through its `redactor`.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use mcpconf::lint::{self, Config, Request, Severity};
///
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("project/.cursor"))?;
/// std::fs::create_dir_all(dir.path().join("home"))?;
/// std::fs::write(
///     dir.path().join("project/.cursor/mcp.json"),
///     "{\"mcpServers\": {\n  \"db\": {\"command\": \"a\"},\n  \"db\": {\"command\": \"b\"}\n}}\n",
/// )?;
/// let mut config = Config::default();
/// config.set("duplicate-key", Severity::Error)?;
/// let report = lint::lint(&Request {
///     root: dir.path().join("project"),
///     home: dir.path().join("home"),
///     client_homes: Default::default(),
///     xdg_config_home: None,
///     paths: Vec::new(), // every client file under root and home
///     client: None,
///     state_dir: None,
///     owners: Vec::new(),
///     legacy: Vec::new(),
///     current: Vec::new(),
///     policy: None,
///     config,
/// })?;
/// let f = &report.findings[0];
/// assert_eq!((f.rule, f.line, f.column), ("duplicate-key", 3, 3));
/// assert!(report.has_errors());
/// # Ok(())
/// # }
/// ```
pub fn lint(req: &Request) -> Result<LintReport, crate::diag::Error> {
    lint_paths(req, req.paths.clone())
}

/// [`lint`] of `paths` instead of the request's own (which it ignores): each path becomes its
/// file's without a copy. The command line moves its paths here.
pub(crate) fn lint_paths(
    req: &Request,
    paths: Vec<std::path::PathBuf>,
) -> Result<LintReport, crate::diag::Error> {
    let inputs = discover::inputs(req, paths)
        .map_err(|m| crate::diag::Error::new(crate::diag::Code::UnknownClient, m))?;
    Ok(run::run(req, inputs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_lists_exactly_the_rules() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../schemas/manifest.schema.json")).unwrap();
        let listed: Vec<&str> = schema["$defs"]["lintRules"]["items"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(listed, ids);
    }

    #[test]
    fn config_overrides_defaults_and_names_the_closest_rule() {
        let mut c = Config::default();
        assert_eq!(c.level("duplicate-server"), Severity::Warning);
        c.set("duplicate-server", Severity::Error).unwrap();
        assert_eq!(c.level("duplicate-server"), Severity::Error);
        c.set("literal-secret", Severity::Off).unwrap();
        assert_eq!(c.level("literal-secret"), Severity::Off);
        let e = c.set("literal-secrets", Severity::Off).unwrap_err();
        assert!(e.message.contains("did you mean `literal-secret`?"), "{e}");
        assert_eq!(e.code, crate::diag::Code::UnknownRule);
    }

    /// Claude Code merges, for each project directory, the user's entries, that directory's
    /// local entries in `~/.claude.json` and its `.mcp.json`, wherever `--root` is; two
    /// projects' sets are never compared.
    #[test]
    fn claude_code_merges_each_project_with_its_local_entries_and_the_user_scope() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let entry = |args: &str| serde_json::json!({"command": "npx", "args": ["-y", args]});
        let write = |rel: &str, doc: serde_json::Value| {
            let p = d.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
            p
        };
        let key = |rel: &str| d.join(rel).display().to_string();
        // p1 is named under `projects`, p2 is not; both are below `--root`, not at it.
        let p1 = write(
            "r/p1/.mcp.json",
            serde_json::json!({"mcpServers": {"x": entry("x"), "w": entry("w")}}),
        );
        let p2 = write(
            "r/p2/.mcp.json",
            serde_json::json!({"mcpServers": {"y": entry("y")}}),
        );
        let home = write(
            "h/.claude.json",
            serde_json::json!({
                "mcpServers": {"y-user": entry("y")},
                "projects": {
                    key("r/p1"): {"mcpServers": {"x-local": entry("x")}},
                    key("r/p3"): {"mcpServers": {"z3": entry("z")}},
                    key("r/p4"): {"mcpServers": {"z4": entry("z"), "w4": entry("w")}},
                },
            }),
        );
        // p1 spelled with a `.` step is still the project `~/.claude.json` names.
        let p1_dotted = d.join("r/./p1/.mcp.json");
        for first in [p1, p1_dotted] {
            let req = Request {
                paths: vec![first, p2.clone(), home.clone()],
                ..Request::new(d.join("r"), d.join("h"))
            };
            let report = lint(&req).unwrap();
            let mut dups: Vec<&str> = report
                .findings
                .iter()
                .filter(|f| f.rule == "duplicate-server")
                .map(|f| f.message.split(" (").next().unwrap_or_default())
                .collect();
            dups.sort_unstable();
            assert_eq!(
                dups,
                [
                    "server `x-local` starts the same server as `x`",
                    "server `y-user` starts the same server as `y`",
                ],
                "{:?}",
                report.findings
            );
        }
    }

    #[test]
    fn every_rule_has_a_documentation_page() {
        for r in RULES {
            assert!(r.help.starts_with(&format!("# `{}`", r.id)), "{}", r.id);
            for section in ["## Why", "## How to fix", "## Example"] {
                assert!(r.help.contains(section), "{} lacks {section}", r.id);
            }
        }
    }
}
