//! `rovo-dev`: Atlassian's Rovo Dev CLI (`acli rovodev`). One user file, `~/.rovodev/mcp.json`
//! (support.atlassian.com/rovo/docs/connect-to-an-mcp-server-in-rovo-dev-cli), strict JSON under
//! `mcpServers`; the transport is named by `transport` (not `type`): `stdio` for
//! `{command, args, env}`, `http` or `sse` for `{url, headers}`. Rovo Dev documents no
//! environment references in this file, so a `${VAR}` is refused rather than written as a
//! literal; no working-directory field is documented. Whether a server is on or off Rovo Dev
//! keeps in its own `~/.rovodev/config.yml` (`disabledMcpServers`), not in the entry.

use super::reshaped::{Reshaped, no_precheck, type_as_transport};
use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Rovo Dev CLI.
pub static ROVO_DEV: Reshaped = Reshaped {
    inner: McpServers {
        id: "rovo-dev",
        description: "Atlassian Rovo Dev CLI `~/.rovodev/mcp.json`",
        scopes: &[Scope::new("user", Base::Home, ".rovodev/mcp.json")],
        syntax: Syntax::Json,
        types: Types {
            stdio: Ty::Name("stdio"),
            http: Ty::Name("http"),
            sse: Ty::Name("sse"),
        },
        var_places: Places::Nowhere,
        known_fields: &[
            "transport",
            "command",
            "args",
            "env",
            "url",
            "headers",
            "enable_instructions",
        ],
        source: "https://support.atlassian.com/rovo/docs/connect-to-an-mcp-server-in-rovo-dev-cli",
        checked: "docs (2026-12; toggles go to ~/.rovodev/config.yml, not the entry; not re-read 2026-12-05: the page is not in the stored corpus)",
        ..BASE
    },
    home_only: false,
    precheck: no_precheck,
    reshape: type_as_transport,
    unshape: super::reshaped::transport_as_type,
};
