//! What each client cannot express is refused with `cannot-express` (exit 3, nothing written),
//! never written as a literal: transports a client lacks, references where it expands none,
//! and manifest literals that the client itself would expand as references (`$${X}` where a
//! client reads `${X}`, `$HOME` where it reads `$VAR`, `{env:X}` for opencode-style clients).
//! What a client can express (VS Code's `cwd`, a `$` a client does not expand) is written.

use std::fs;

use serde_json::Value;

use crate::common::{Env, codes};

fn manifest(client: &str, servers: &str, scope: &str) -> String {
    let scope = if scope.is_empty() {
        String::new()
    } else {
        format!("scope = \"{scope}\"\n")
    };
    format!("owner = \"o\"\n{servers}\n[[targets]]\nclient = \"{client}\"\n{scope}")
}

const SSE: &str = "[servers.s]\nurl = \"https://h/sse\"\ntransport = \"sse\"\n";
const HTTP: &str = "[servers.s]\nurl = \"https://h/mcp\"\n";
const ENV_REF: &str = "[servers.s]\ncommand = \"run\"\nenv = { TOKEN = \"${TOKEN}\" }\n";
const ARG_REF: &str = "[servers.s]\ncommand = \"run\"\nargs = [\"--token\", \"${TOKEN}\"]\n";
const HEADER_REF: &str =
    "[servers.s]\nurl = \"https://h/mcp\"\nheaders = { Authorization = \"Bearer ${T}\" }\n";
const CWD: &str = "[servers.s]\ncommand = \"run\"\ncwd = \"/w\"\n";

/// A literal in an argument, as the manifest spells it, and the text the refusal must not echo.
fn arg(lit: &str) -> String {
    format!("[servers.s]\ncommand = \"run\"\nargs = [\"--x\", \"{lit}\"]\n")
}

#[test]
fn every_client_refuses_what_it_cannot_express() {
    let dollar_brace = arg("pre-$${PLANTED_SECRET}");
    let dollar_name = arg("pre-$PLANTED_SECRET");
    let dollar_paren = arg("$(cat PLANTED_SECRET)");
    let brace_env = arg("{env:PLANTED_SECRET}");
    let env_dollar = "[servers.s]\ncommand = \"run\"\nenv = { K = \"x$PLANTED_SECRET\" }\n";
    let cmd_dollar = "[servers.s]\ncommand = \"$PLANTED_SECRET/bin/run\"\n";
    let cases: Vec<(&str, &str, String, &str)> = vec![
        // New clients.
        ("roo", "", dollar_brace.clone(), "args"),
        ("antigravity", "", SSE.into(), "SSE"),
        ("antigravity", "", ENV_REF.into(), "env.TOKEN"),
        ("copilot-cli", "", ARG_REF.into(), "args"),
        (
            "copilot-cli",
            "",
            HEADER_REF.into(),
            "headers.Authorization",
        ),
        ("copilot-cli", "", env_dollar.into(), "env.K"),
        ("factory", "", dollar_brace.clone(), "args"),
        ("qwen", "", dollar_name.clone(), "args"),
        ("qwen", "", dollar_brace.clone(), "args"),
        ("kilo", "", brace_env.clone(), "args"),
        ("kilo", "", CWD.into(), "cwd"),
        ("trae", "", SSE.into(), "SSE"),
        ("trae", "", ENV_REF.into(), "env.TOKEN"),
        ("kimi", "", ENV_REF.into(), "env.TOKEN"),
        ("kimi-code", "", ENV_REF.into(), "env.TOKEN"),
        (
            "kimi-code",
            "",
            "[servers.s]\nurl = \"https://h/mcp\"\nheaders = { X = \"k ${T}\" }\n".into(),
            "headers.X",
        ),
        ("junie", "", HTTP.into(), "streamable HTTP"),
        ("junie", "", ENV_REF.into(), "env.TOKEN"),
        ("amp", "", ENV_REF.into(), "env.TOKEN"),
        ("crush", "", ARG_REF.into(), "args"),
        ("crush", "", dollar_paren.clone(), "args"),
        ("crush", "", dollar_name.clone(), "args"),
        ("lm-studio", "", SSE.into(), "SSE"),
        ("lm-studio", "", ENV_REF.into(), "env.TOKEN"),
        ("grok", "", SSE.into(), "SSE"),
        ("grok", "", dollar_brace.clone(), "args"),
        ("augment", "", dollar_brace.clone(), "args"),
        ("jetbrains", "", SSE.into(), "SSE"),
        ("jetbrains", "", ENV_REF.into(), "env.TOKEN"),
        ("devin", "", ENV_REF.into(), "env.TOKEN"),
        ("mistral-vibe", "", SSE.into(), "SSE"),
        ("mistral-vibe", "", ENV_REF.into(), "env.TOKEN"),
        ("mistral-vibe", "", ARG_REF.into(), "args"),
        // Fourth-round clients.
        ("vscode-insiders", "", dollar_brace.clone(), "args"),
        ("visual-studio", "", ENV_REF.into(), "env.TOKEN"),
        ("visual-studio", "", dollar_brace.clone(), "args"),
        ("copilot-xcode", "", SSE.into(), "SSE"),
        (
            "copilot-xcode",
            "",
            HEADER_REF.into(),
            "headers.Authorization",
        ),
        ("firebase-studio", "", HTTP.into(), "streamable HTTP"),
        ("firebase-studio", "", ENV_REF.into(), "env.TOKEN"),
        ("rovo-dev", "", ENV_REF.into(), "env.TOKEN"),
        ("rovo-dev", "", CWD.into(), "cwd"),
        ("warp", "", SSE.into(), "SSE"),
        ("warp", "", dollar_brace.clone(), "args"),
        ("warp", "", arg("pre-{{PLANTED_SECRET}}"), "args"),
        (
            "warp",
            "",
            "[servers.s]\nurl = \"https://h/{{PLANTED_SECRET}}/mcp\"\n".into(),
            "url",
        ),
        ("openhands", "", ENV_REF.into(), "env.TOKEN"),
        ("librechat", "", ARG_REF.into(), "args"),
        ("librechat", "", dollar_brace.clone(), "args"),
        ("librechat", "", CWD.into(), "cwd"),
        ("tabnine", "", HTTP.into(), "streamable HTTP"),
        ("tabnine", "", ENV_REF.into(), "env.TOKEN"),
        ("tabnine", "", dollar_name.clone(), "args"),
        ("grok-cli", "", HTTP.into(), "streamable HTTP"),
        ("grok-cli", "", SSE.into(), "SSE"),
        ("grok-cli", "", ENV_REF.into(), "env.TOKEN"),
        ("qoder", "", ENV_REF.into(), "env.TOKEN"),
        ("qoder", "", dollar_brace.clone(), "args"),
        ("qoder", "", CWD.into(), "cwd"),
        // YAML clients.
        ("goose", "", SSE.into(), "SSE"),
        ("goose", "", ARG_REF.into(), "args"),
        ("goose", "", CWD.into(), "cwd"),
        (
            "goose",
            "",
            "[servers.s]\ncommand = \"run\"\nenv = { TOKEN = \"${OTHER}\" }\n".into(),
            "env.TOKEN",
        ),
        (
            "goose",
            "",
            "[servers.s]\ncommand = \"run\"\nenv = { PATH = \"/opt/bin\" }\n".into(),
            "env.PATH",
        ),
        (
            "goose",
            "",
            "[servers.s]\nurl = \"https://h/mcp\"\nheaders = { X = \"a$PLANTED_SECRET\" }\n".into(),
            "headers.X",
        ),
        (
            "continue",
            "",
            arg("$${{ secrets.PLANTED_SECRET }}"),
            "args",
        ),
        (
            "continue",
            "project",
            arg("$${{ inputs.PLANTED_SECRET }}"),
            "args",
        ),
        ("hermes", "", CWD.into(), "cwd"),
        ("hermes", "", dollar_brace.clone(), "args"),
        // Fixes to existing dialects.
        ("kiro", "", SSE.into(), "SSE"),
        ("claude-code", "", dollar_brace.clone(), "args"),
        ("cursor", "", dollar_brace.clone(), "args"),
        ("vscode", "", dollar_brace.clone(), "args"),
        ("cline", "", dollar_brace.clone(), "args"),
        ("windsurf", "", dollar_brace.clone(), "args"),
        ("gemini", "", dollar_name.clone(), "args"),
        ("gemini", "", dollar_brace.clone(), "args"),
        ("opencode", "", brace_env.clone(), "args"),
        ("opencode", "", CWD.into(), "client_version"),
        ("amazonq", "", cmd_dollar.into(), "command"),
    ];
    for (client, scope, servers, needle) in &cases {
        let e = Env::new();
        e.manifest(&manifest(client, servers, scope));
        let (exit, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(exit, 3, "{client} {servers}: {doc}");
        assert_eq!(codes(&doc), vec!["cannot-express"], "{client} {servers}");
        let msg = doc["errors"][0]["message"].as_str().unwrap();
        assert!(
            msg.contains(&format!("`{client}`")) && msg.contains(needle),
            "{client}: {msg}"
        );
        assert!(
            !msg.contains("PLANTED_SECRET"),
            "{client}: the refusal echoes the literal: {msg}"
        );
        assert_eq!(
            fs::read_dir(e.root()).unwrap().count(),
            0,
            "{client}: nothing written"
        );
        assert!(
            !e.base.join("home").exists()
                || fs::read_dir(e.base.join("home")).unwrap().count() == 0,
            "{client}: nothing written under home"
        );
    }
}

/// Apply and return the file's text.
fn applied(client: &str, servers: &str, file: &str) -> String {
    let e = Env::new();
    e.manifest(&manifest(client, servers, ""));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{client}: {doc}");
    let path = match file.strip_prefix("~/") {
        Some(rest) => e.base.join("home").join(rest),
        None => e.path(file),
    };
    fs::read_to_string(path).unwrap()
}

#[test]
fn what_a_client_can_express_is_written() {
    // VS Code reads `cwd`.
    let v: Value = serde_json::from_str(&applied("vscode", CWD, ".vscode/mcp.json")).unwrap();
    assert_eq!(v["servers"]["s"]["cwd"], "/w");
    // Claude Code expands only `${…}`: a bare `$NAME` is a literal it keeps.
    let v: Value =
        serde_json::from_str(&applied("claude-code", &arg("$HOME/x"), ".mcp.json")).unwrap();
    assert_eq!(v["mcpServers"]["s"]["args"][1], "$HOME/x");
    // Amazon Q expands nothing in args, so `$${X}` is written as the literal `${X}` there.
    let v: Value =
        serde_json::from_str(&applied("amazonq", &arg("$${X}"), ".amazonq/mcp.json")).unwrap();
    assert_eq!(v["mcpServers"]["s"]["args"][1], "${X}");
    // Gemini expands `$` before a word character, `{` or `(`; not a `$` before anything else.
    let v: Value = serde_json::from_str(&applied(
        "gemini",
        &arg("5$ or $-x"),
        ".gemini/settings.json",
    ))
    .unwrap();
    assert_eq!(v["mcpServers"]["s"]["args"][1], "5$ or $-x");
    // `${` before something that is not a name is no reference for Cursor.
    let v: Value =
        serde_json::from_str(&applied("cursor", &arg("$${5}"), ".cursor/mcp.json")).unwrap();
    assert_eq!(v["mcpServers"]["s"]["args"][1], "${5}");
    // Clients that expand nothing take any literal.
    let t = applied("junie", &arg("$${X} $HOME {env:Y}"), ".junie/mcp/mcp.json");
    let v: Value = serde_json::from_str(&t).unwrap();
    assert_eq!(v["mcpServers"]["s"]["args"][1], "${X} $HOME {env:Y}");
    // Copilot CLI and Crush take references in env values.
    let v: Value = serde_json::from_str(&applied(
        "copilot-cli",
        ENV_REF,
        "~/.copilot/mcp-config.json",
    ))
    .unwrap();
    assert_eq!(v["mcpServers"]["s"]["env"]["TOKEN"], "${TOKEN}");
    let v: Value = serde_json::from_str(&applied("crush", HEADER_REF, ".crush.json")).unwrap();
    assert_eq!(v["mcp"]["s"]["headers"]["Authorization"], "Bearer ${T}");
    // Qwen's SSE server is a `url`, its streamable HTTP one an `httpUrl`.
    let v: Value = serde_json::from_str(&applied("qwen", SSE, ".qwen/settings.json")).unwrap();
    assert_eq!(v["mcpServers"]["s"]["url"], "https://h/sse");
    // Amp's container is one key with a dot in it.
    let v: Value =
        serde_json::from_str(&applied("amp", HTTP, "~/.config/amp/settings.json")).unwrap();
    assert_eq!(v["amp.mcpServers"]["s"]["url"], "https://h/mcp");
    assert!(v.get("amp").is_none());
}
