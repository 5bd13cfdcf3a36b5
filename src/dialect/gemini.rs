//! `gemini`: Gemini CLI `settings.json`, project `.gemini/settings.json` (the default, as for
//! `gemini mcp add`) and user `~/.gemini/settings.json`. Comments are allowed, trailing commas
//! are not (it strips comments, then `JSON.parse`s). Streamable HTTP servers go under `httpUrl`,
//! SSE under `url`. References spelled `${VAR}`; a tool pin is written as `includeTools`.

use super::{BASE, Base, McpServers, Scope, Syntax, Ty, Types};

/// Gemini CLI.
pub static GEMINI: McpServers = McpServers {
    id: "gemini",
    description: "Gemini CLI `settings.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".gemini/settings.json"),
        Scope::new("user", Base::Home, ".gemini/settings.json"),
    ],
    syntax: Syntax::JsonComments,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Omit,
    },
    http_url_key: "httpUrl",
    sse_url_key: "url",
    cwd: true,
    pin_field: Some("includeTools"),
    known_fields: &[
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "httpUrl",
        "headers",
        "tcp",
        "type",
        "timeout",
        "trust",
        "description",
        "includeTools",
        "excludeTools",
        "oauth",
        "authProviderType",
        "targetAudience",
        "targetServiceAccount",
    ],
    ..BASE
};
