//! `augment`: Augment Code's CLI (Auggie) and extensions. User `~/.augment/settings.json`,
//! project `.augment/settings.json`; strict JSON under `mcpServers`: stdio `{command, args,
//! env, cwd}`, remote `{"type": "http" | "sse", url, headers}`. Auggie 0.36.0's
//! `_expandConfigVariables` expands `${VAR}` and `${VAR:-default}` (an unset variable without a
//! default is an error) in `command`, `args`, `env` values, `cwd`, `url` and header values, so
//! references are written `${VAR}` there; a literal `${…}` is refused (Auggie's `\${` escape is
//! not written). Source: the published `@augmentcode/auggie` 0.36.0 (`augment.mjs`).

use super::{BASE, Base, McpServers, Scope, Syntax, Ty, Types};

/// Augment.
pub static AUGMENT: McpServers = McpServers {
    id: "augment",
    description: "Augment Code (Auggie CLI) `settings.json`",
    scopes: &[
        Scope::new("user", Base::Home, ".augment/settings.json"),
        Scope::new("project", Base::Root, ".augment/settings.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    cwd: true,
    known_fields: &["type", "command", "args", "env", "cwd", "url", "headers"],
    source: "npm @augmentcode/auggie 0.36.0, augment.mjs `_expandConfigVariables`; https://docs.augmentcode.com/cli/integrations",
    checked: "Auggie 0.36.0 (package not re-read 2026-12-05; file locations re-read in https://docs.augmentcode.com/cli/permissions)",
    ..BASE
};
