//! Turning a server the user configured at user scope off for one project (`disable = [...]` on
//! a project-scope target), in the client's own form. Each form was read in the client's code
//! and seen working with the real client (tests/it/real_clients/); a client without one refuses
//! the target (`cannot-express`).

use super::{Dialect, OffForm, RenderError};

/// Where a client keeps "this server is off in this project".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisableForm {
    /// A partial entry of the server's name in the project file's container that holds only
    /// the off form, which the client merges over the user's entry (Codex
    /// `[mcp_servers.NAME] enabled = false`, opencode `{"NAME": {"enabled": false}}`).
    PartialEntry(OffForm),
    /// The server's name in an array of the project file at this object path (Gemini CLI's
    /// and Qwen Code's `mcp.excluded`, which they concatenate across scopes).
    ProjectList(&'static [&'static str]),
    /// The server's name in the array `key` of the project's own entry in the file of the
    /// client's `scope` (Claude Code's `projects["<project>"].disabledMcpServers` in
    /// `~/.claude.json`); the project is named as the client keys it: the main worktree's
    /// root of the git repository the project root lies in, else the root itself.
    UserProjectsList {
        /// The scope whose file holds `projects`.
        scope: &'static str,
        /// The array in the project's entry.
        key: &'static str,
    },
}

/// A client's way to turn a user's server off for one project, with where it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProjectDisable {
    /// The form.
    pub form: DisableForm,
    /// Where the client reads it: a URL into its code or documentation.
    pub source: &'static str,
    /// The release that was checked.
    pub checked: &'static str,
    /// The client reads the project's file only for a project the user trusted: this member
    /// of `projects["<project>"]` in its user file, with this value (Codex's
    /// `trust_level = "trusted"`).
    pub trust: Option<(&'static str, &'static str)>,
}

impl ProjectDisable {
    /// The form in words, for `mcpconf clients` and the client pages.
    pub fn describe(&self) -> String {
        match self.form {
            DisableForm::PartialEntry(off) => format!(
                "a partial entry of the server's name holding only `{}: {}` in the project file, merged over the user's entry",
                off.key, off.off
            ),
            DisableForm::ProjectList(path) => format!(
                "the server's name in `{}` of the project file",
                path.join(".")
            ),
            DisableForm::UserProjectsList { scope, key } => format!(
                "the server's name in `projects[\"<git root of the project>\"].{key}` of the `{scope}` file"
            ),
        }
    }
}

/// The refusal of `disable` on a target of a client that has no per-project off switch.
pub fn cannot_disable(d: &dyn Dialect, names: &[String]) -> RenderError {
    RenderError {
        field: "disable".into(),
        message: format!(
            "client `{}` has no per-project way to turn off a server configured at user scope, so `disable` ({}) cannot be expressed for this target (turn the server off at user scope, or remove `disable` from this target)",
            d.id(),
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The partial entry that turns a server off in a project file: the client's off form alone,
/// nothing the user's own entry says.
pub fn partial_entry(off: OffForm) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert(off.key.to_string(), serde_json::Value::Bool(off.off));
    serde_json::Value::Object(m)
}
