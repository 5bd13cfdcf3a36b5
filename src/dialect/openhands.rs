//! `openhands`: the OpenHands CLI (PyPI `openhands`, OpenHands/OpenHands-CLI). One user file,
//! `~/.openhands/mcp.json` (`openhands_cli/locations.py`: the persistence directory, which
//! `$OPENHANDS_PERSISTENCE_DIR` moves; mcpconf follows it as
//! [`crate::settings::ClientHomes::openhands_persistence_dir`] says). It is read with fastmcp's `MCPConfig` (`openhands_cli/mcp/mcp_utils.py`):
//! strict JSON under `mcpServers`, stdio `{command, args, env, cwd}`, remote `{url, headers}`
//! with the transport in `transport` (`http` inferred for a URL, `sse` written). Neither the
//! CLI nor fastmcp expands environment references, so a `${VAR}` is refused.

use super::reshaped::{Reshaped, no_precheck, type_as_transport};
use super::{
    BASE, Base, ClientManaged, ENABLED_FALSE, McpServers, Places, Scope, Syntax, Ty, Types,
    UserHome,
};

/// OpenHands CLI.
pub static OPENHANDS: Reshaped = Reshaped {
    inner: McpServers {
        id: "openhands",
        description: "OpenHands CLI `~/.openhands/mcp.json`",
        scopes: &[Scope::new("user", Base::Home, ".openhands/mcp.json")],
        syntax: Syntax::Json,
        types: Types {
            stdio: Ty::Omit,
            http: Ty::Omit,
            sse: Ty::Name("sse"),
        },
        var_places: Places::Nowhere,
        cwd: true,
        user_home: Some(UserHome {
            dir: |h| h.openhands_persistence_dir.as_ref(),
            file: "mcp.json",
        }),
        known_fields: &[
            "transport",
            "command",
            "args",
            "env",
            "cwd",
            "url",
            "headers",
            "auth",
            "timeout",
            "enabled",
            "description",
            "icon",
        ],
        // `mcp add` / `enable` / `disable` set `enabled`; every save re-dumps each entry through
        // fastmcp's models (`transport: "stdio"`, `env: {}`, `null`s: every client's defaults).
        client_managed: ClientManaged {
            keys: &["enabled"],
            source: "https://github.com/OpenHands/OpenHands-CLI/blob/main/openhands_cli/mcp/mcp_utils.py",
            checked: "OpenHands-CLI 6b3838c with fastmcp 3.2.0: `add_server`, `enable_server` and `disable_server` write `enabled`; `write_to_file` is `model_dump_json` without `exclude_none`",
        },
        off: Some(ENABLED_FALSE),
        source: "https://docs.openhands.dev/openhands/usage/cli/mcp-servers; OpenHands/OpenHands-CLI openhands_cli/mcp/mcp_utils.py",
        checked: "OpenHands-CLI 6b3838c (v1.16.0, 2026-05-18), fastmcp 3.2.0",
        ..BASE
    },
    home_only: false,
    precheck: no_precheck,
    reshape: type_as_transport,
    unshape: super::reshaped::transport_as_type,
};
