//! `crush`: Charm's Crush. Project `.crush.json` (also read: `crush.json`), user
//! `~/.config/crush/crush.json` (Windows `%LOCALAPPDATA%\crush\crush.json`). Strict JSON; servers
//! under `mcp`, each with `type` `stdio`, `http` or `sse` (charmbracelet/crush README, "MCPs").
//! Env values and header values go through Crush's shell-style resolver (`$VAR`, `${VAR}`,
//! `$(cmd)`, `${VAR:-default}`; `internal/config/resolve.go`), so references are written
//! `${VAR}` there: its grammar is `shell`, and text a reference cannot say is kept verbatim. Since v0.67.0 the command, arguments
//! and URL go through it too (`createTransport` in `internal/agent/tools/mcp/init.go`), so for
//! a target declaring `client_version` 0.67.0 or later references are written there as well;
//! for older (or undeclared) versions they are refused there. A literal `$NAME`, `${…}` or
//! `$(…)` is refused in every field either way. Since v0.68.0 `enabled_tools` is a tool
//! allow-list, written for a target declaring that version. A server switched off is
//! `"disabled": true` (`MCPConfig.Disabled`, skipped in `init.go`); Crush itself writes no key
//! into an entry.

use super::{
    BASE, Base, ClientManaged, DISABLED_TRUE, Gate, Hazard, McpServers, Places, Scope, Syntax, Ty,
    Types,
};

/// Crush.
pub static CRUSH: McpServers = McpServers {
    id: "crush",
    description: "Crush `crush.json` (`mcp`)",
    scopes: &[
        Scope::new("project", Base::Root, ".crush.json"),
        Scope::new("user", Base::Home, ".config/crush/crush.json"),
    ],
    syntax: Syntax::Json,
    container_key: "mcp",
    types: Types {
        stdio: Ty::Name("stdio"),
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    var_places: Places::EnvAndHeaders,
    hazard: Hazard::Dollar,
    hazard_everywhere: true,
    known_fields: &[
        "type",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "disabled",
        "disabled_tools",
        "enabled_tools",
        "timeout",
    ],
    gates: &[
        Gate {
            since: "0.67.0",
            what: "command, args and url go through the shell resolver: references written there",
            var_places: Some(Places::All),
            pin_field: None,
            cwd: false,
        },
        Gate {
            since: "0.68.0",
            what: "`enabled_tools` allow-list: a tool pin is written",
            var_places: None,
            pin_field: Some("enabled_tools"),
            cwd: false,
        },
    ],
    client_managed: ClientManaged {
        keys: &[],
        source: "https://github.com/charmbracelet/crush/blob/main/internal/config/config.go",
        checked: "Crush v0.90.0 (37f36e9): `disabled`, `disabled_tools` and `enabled_tools` are read from the file, never written by Crush",
    },
    off: Some(DISABLED_TRUE),
    source: "https://github.com/charmbracelet/crush/blob/main/internal/agent/tools/mcp/init.go; internal/config/config.go (`MCPConfig`, `ResolvedEnv`, `ResolvedHeaders`, `ResolvedURL`, `ResolvedArgs`)",
    checked: "Crush v0.90.0 (37f36e9)",
    extra_forms: &[super::RefForm::Bare],
    grammar: crate::template::Grammar::Shell,
    ..BASE
};
