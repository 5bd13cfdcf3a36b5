//! The client facts the second audit corrected, end to end: what each client reads is written
//! (Factory's and Grok's references, Kimi's `transport`, Crush by `client_version`, Goose's
//! URI, …), Mistral Vibe's TOML 1.0 and renamed servers are refused, Copilot CLI's second
//! reading of `.mcp.json` is noted, and lint no longer warns on what the clients read.

use serde_json::{Value, json};

use crate::common::{Env, codes};

fn apply(e: &Env, manifest: &str) -> (i32, Value) {
    e.manifest(manifest);
    e.json(&["apply", "--yes"])
}

fn entry(e: &Env, rel: &str, pointer: &str) -> Value {
    let v: Value = serde_json::from_slice(&e.read(rel)).unwrap();
    v.pointer(pointer).cloned().unwrap_or(Value::Null)
}

const REFS: &str = r#"owner = "o"
[servers.local]
command = "${BIN}"
args = ["--token", "${TOKEN}"]
env = { K = "${K}" }
tools = ["read"]
[servers.remote]
url = "https://h/${P}/sse"
transport = "sse"
headers = { Authorization = "Bearer ${T}" }
"#;

#[test]
fn factory_expands_references_everywhere_reads_sse_and_pins_tools() {
    let e = Env::new();
    let (exit, doc) = apply(&e, &format!("{REFS}[[targets]]\nclient = \"factory\"\n"));
    assert_eq!(exit, 0, "{doc}");
    let f = ".factory/mcp.json";
    assert_eq!(
        entry(&e, f, "/mcpServers/local"),
        json!({"type": "stdio", "command": "${BIN}", "args": ["--token", "${TOKEN}"],
               "env": {"K": "${K}"}, "enabledTools": ["read"]})
    );
    assert_eq!(
        entry(&e, f, "/mcpServers/remote"),
        json!({"type": "sse", "url": "https://h/${P}/sse", "headers": {"Authorization": "Bearer ${T}"}})
    );
}

#[test]
fn augment_and_grok_write_references_and_grok_remote_servers() {
    let e = Env::new();
    let m = "owner = \"o\"\n[servers.a]\ncommand = \"run\"\nargs = [\"${A}\"]\ncwd = \"${W}\"\n\
             [servers.r]\nurl = \"https://h/mcp\"\nheaders = { X = \"${X}\" }\n\
             [[targets]]\nclient = \"augment\"\nscope = \"project\"\nservers = [\"a\"]\n\
             [servers.g]\ncommand = \"run\"\nargs = [\"${A}\"]\n\
             [[targets]]\nclient = \"grok\"\nscope = \"project\"\nservers = [\"r\", \"g\"]\n";
    let (exit, doc) = apply(&e, m);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        entry(&e, ".augment/settings.json", "/mcpServers/a"),
        json!({"command": "run", "args": ["${A}"], "cwd": "${W}"})
    );
    let grok = String::from_utf8(e.read(".grok/config.toml")).unwrap();
    assert!(grok.contains("[mcp_servers.r]"), "{grok}");
    assert!(grok.contains("url = \"https://h/mcp\""), "{grok}");
    assert!(grok.contains("X = \"${X}\""), "{grok}");
    assert!(grok.contains("args = [\"${A}\"]"), "{grok}");
}

#[test]
fn kimi_clients_mark_sse_with_transport_and_read_cwd() {
    let e = Env::new();
    let m = "owner = \"o\"\n[servers.l]\ncommand = \"run\"\ncwd = \"/w\"\ntools = [\"t\"]\n\
             [servers.s]\nurl = \"https://h/sse\"\ntransport = \"sse\"\n\
             [servers.b]\nurl = \"https://h/mcp\"\nheaders = { Authorization = \"Bearer ${TOK}\", X = \"1\" }\n\
             [[targets]]\nclient = \"kimi\"\nservers = [\"l\", \"s\"]\n[[targets]]\nclient = \"kimi-code\"\nscope = \"project\"\n";
    let (exit, doc) = apply(&e, m);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        entry(&e, "../home/.kimi/mcp.json", "/mcpServers/s"),
        json!({"transport": "sse", "url": "https://h/sse"})
    );
    assert_eq!(
        entry(&e, "../home/.kimi/mcp.json", "/mcpServers/l"),
        json!({"command": "run", "cwd": "/w"})
    );
    assert_eq!(
        entry(&e, ".kimi-code/mcp.json", "/mcpServers/l"),
        json!({"command": "run", "cwd": "/w", "enabledTools": ["t"]})
    );
    assert_eq!(
        entry(&e, ".kimi-code/mcp.json", "/mcpServers/s"),
        json!({"transport": "sse", "url": "https://h/sse"})
    );
    // Kimi Code sends `Authorization: Bearer <$TOK>` itself from `bearerTokenEnvVar`.
    assert_eq!(
        entry(&e, ".kimi-code/mcp.json", "/mcpServers/b"),
        json!({"url": "https://h/mcp", "headers": {"X": "1"}, "bearerTokenEnvVar": "TOK"})
    );
}

#[test]
fn crush_follows_the_declared_client_version() {
    let m = |v: &str| {
        format!(
            "owner = \"o\"\n[servers.c]\ncommand = \"run\"\nargs = [\"${{A}}\"]\ntools = [\"t\"]\n\
             [[targets]]\nclient = \"crush\"\n{v}"
        )
    };
    // Undeclared or older than 0.67.0: references only in env and headers.
    for v in ["", "client_version = \"0.66.9\"\n"] {
        let e = Env::new();
        let (exit, doc) = apply(&e, &m(v));
        assert_eq!(exit, 3, "{v}: {doc}");
        assert_eq!(codes(&doc), ["cannot-express"], "{v}");
    }
    let e = Env::new();
    let (exit, doc) = apply(&e, &m("client_version = \"0.67.0\"\n"));
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        entry(&e, ".crush.json", "/mcp/c"),
        json!({"type": "stdio", "command": "run", "args": ["${A}"]})
    );
    let notes = doc.to_string();
    assert!(notes.contains("cannot enforce the tool pin"), "{notes}");
    let e = Env::new();
    let (exit, doc) = apply(&e, &m("client_version = \"0.68.0\"\n"));
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        entry(&e, ".crush.json", "/mcp/c"),
        json!({"type": "stdio", "command": "run", "args": ["${A}"], "enabled_tools": ["t"]})
    );
}

#[test]
fn goose_substitutes_references_in_the_uri() {
    let e = Env::new();
    let m = "owner = \"o\"\n[servers.g]\nurl = \"https://h/mcp?key=${KEY}\"\n[[targets]]\nclient = \"goose\"\n";
    let (exit, doc) = apply(&e, m);
    assert_eq!(exit, 0, "{doc}");
    let y = String::from_utf8(e.read("../home/.config/goose/config.yaml")).unwrap();
    assert!(y.contains("uri: \"https://h/mcp?key=${KEY}\""), "{y}");
    assert!(y.contains("- KEY"), "{y}");
    // A literal `$NAME` in the URI would be substituted: refused.
    let e = Env::new();
    let m = "owner = \"o\"\n[servers.g]\nurl = \"https://h/$PLANTED\"\n[[targets]]\nclient = \"goose\"\n";
    let (exit, doc) = apply(&e, m);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(codes(&doc), ["cannot-express"]);
}

#[test]
fn antigravity_workspace_file_and_devin_url() {
    let e = Env::new();
    let m = "owner = \"o\"\n[servers.r]\nurl = \"https://h/mcp\"\n\
             [[targets]]\nclient = \"antigravity\"\nscope = \"project\"\n\
             [[targets]]\nclient = \"devin\"\n";
    let (exit, doc) = apply(&e, m);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        entry(&e, ".agents/mcp_config.json", "/mcpServers/r"),
        json!({"serverUrl": "https://h/mcp"})
    );
    assert_eq!(
        entry(&e, ".devin/mcp_config.json", "/mcpServers/r"),
        json!({"url": "https://h/mcp"})
    );
}

#[test]
fn vibe_refuses_toml_1_1_files_untouched() {
    for (text, line) in [
        ("[[mcp_servers]]\nname = \"x\"\ncommand = \"a\\eb\"\n", 3),
        ("t = { a = 1, }\n", 1),
        ("t = { a = 1,\n b = 2 }\n", 1),
        ("[x]\nat = 07:32\n", 2),
    ] {
        let e = Env::new();
        let before = e.write(".vibe/config.toml", text);
        let (exit, doc) = apply(
            &e,
            "owner = \"o\"\n[servers.s]\ncommand = \"run\"\n[[targets]]\nclient = \"mistral-vibe\"\n",
        );
        assert_eq!(exit, 3, "{text}: {doc}");
        assert_eq!(codes(&doc), ["parse-error"], "{text}");
        let err = &doc["errors"][0];
        assert_eq!(err["line"], line, "{text}: {doc}");
        assert!(
            err["message"]
                .as_str()
                .unwrap()
                .contains("Vibe reads TOML 1.0"),
            "{doc}"
        );
        assert_eq!(std::fs::read(&before).unwrap(), text.as_bytes());
    }
}

#[test]
fn vibe_refuses_a_server_its_normalised_names_collide_with() {
    let e = Env::new();
    let text =
        "[[mcp_servers]]\nname = \"my server\"\ntransport = \"stdio\"\ncommand = \"theirs\"\n";
    let path = e.write(".vibe/config.toml", text);
    let (exit, doc) = apply(
        &e,
        "owner = \"o\"\n[servers.my_server]\ncommand = \"run\"\n[[targets]]\nclient = \"mistral-vibe\"\n",
    );
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(codes(&doc), ["conflict"], "{doc}");
    let msg = doc["errors"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("`my server`") && msg.contains("`my_server`"),
        "{msg}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), text.as_bytes());
}

#[test]
fn copilot_cli_beside_claude_code_project_is_noted() {
    let e = Env::new();
    let m = "owner = \"o\"\n[servers.s]\ncommand = \"run\"\n\
             [[targets]]\nclient = \"claude-code\"\n\
             [[targets]]\nclient = \"copilot-cli\"\nscope = \"project\"\n";
    e.manifest(m);
    let (exit, doc) = e.json(&["plan"]);
    assert!(exit == 0 || exit == 2, "{doc}");
    let all = doc.to_string();
    assert!(
        all.contains("client `copilot-cli` also reads") && all.contains("twice"),
        "{all}"
    );
}

/// Kilo Code loads opencode's project `opencode.json` as well as its own `.kilo/kilo.jsonc`
/// (Kilo-Org/kilocode `packages/opencode/src/config/config.ts`): the plan says a server
/// written to both shows twice.
#[test]
fn kilo_beside_opencode_project_is_noted() {
    let e = Env::new();
    let m = "owner = \"o\"\n[servers.s]\ncommand = \"run\"\n\
             [[targets]]\nclient = \"opencode\"\nscope = \"project\"\n\
             [[targets]]\nclient = \"kilo\"\nscope = \"project\"\n";
    e.manifest(m);
    let (exit, doc) = e.json(&["plan"]);
    assert!(exit == 0 || exit == 2, "{doc}");
    let all = doc.to_string();
    assert!(
        all.contains("client `kilo` also reads") && all.contains("twice"),
        "{all}"
    );
}

#[test]
fn lint_takes_the_corrected_facts() {
    let e = Env::new();
    e.write(
        ".crush.json",
        r#"{"mcp": {"c": {"type": "stdio", "command": "run", "args": ["${A}"], "enabled_tools": ["t"]}}}"#,
    );
    e.write(
        ".factory/mcp.json",
        r#"{"mcpServers": {"f": {"command": "run", "args": ["${A}"], "enabledTools": ["t"]}}}"#,
    );
    let root = e.root();
    let out = crate::common::mcpconf_cmd()
        .args(["lint", root.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    // Before the audit: `enabled_tools` "did you mean `disabled_tools`", `enabledTools`
    // unknown, `${A}` "sent literally".
    assert!(text.contains("No problems found in 2 files"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}");
}

#[test]
fn lint_reports_toml_1_1_in_a_vibe_file() {
    let e = Env::new();
    e.write(
        ".vibe/config.toml",
        "[[mcp_servers]]\nname = \"x\"\ncommand = \"a\"\nenv = { A = \"1\", }\n",
    );
    let root = e.root();
    let out = crate::common::mcpconf_cmd()
        .args(["lint", root.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("error[parse-error]"), "{text}");
    assert!(
        text.contains("Vibe reads TOML 1.0") && text.contains(":4:16"),
        "{text}"
    );
}

#[test]
fn import_reads_pins_and_references_from_the_table() {
    let e = Env::new();
    e.write(
        ".factory/mcp.json",
        r#"{"mcpServers": {"f": {"command": "run", "args": ["${A}"], "enabledTools": ["t"]}}}"#,
    );
    e.write(
        ".github/mcp.json",
        r#"{"mcpServers": {"c": {"type": "stdio", "command": "run", "tools": ["*"]}}}"#,
    );
    let out = e.run(&["import", "--client", "factory", "--scope", "project"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("tools = [\"t\"]"), "{text}");
    assert!(text.contains("args = [\"${A}\"]"), "{text}");
    let out = e.run(&["import", "--client", "copilot-cli", "--scope", "project"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        text.contains("[servers.c]") && !text.contains("tools"),
        "{text}"
    );
    assert!(!err.contains("`tools`"), "{err}");
}

#[test]
fn vscode_header_references_are_written_as_vscode_resolves_them() {
    // VS Code resolves every `${…}` of a server's launch, headers included
    // (`_replaceVariablesInLaunch` in `mcpRegistry.ts`), so a header keeps `${env:VAR}`.
    let e = Env::new();
    let m = "owner = \"o\"\n[servers.h]\nurl = \"https://h/mcp\"\nheaders = { Authorization = \"Bearer ${T}\" }\n\
             [[targets]]\nclient = \"vscode\"\n";
    let (exit, doc) = apply(&e, m);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        entry(&e, ".vscode/mcp.json", "/servers/h"),
        json!({"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer ${env:T}"}})
    );
}

/// Facts re-checked against the clients' own code (issue 40, item 5): Warp substitutes `${VAR}`
/// in the whole file before parsing it (`file_mcp_watcher.rs`), so references are written there
/// in every field; a literal `${` is still refused.
#[test]
fn warp_writes_references_everywhere() {
    let e = Env::new();
    let (exit, doc) = apply(
        &e,
        &format!(
            "{REFS}[[targets]]\nclient = \"warp\"\nservers = [\"local\"]\n[servers.h]\nurl = \"https://h/${{P}}/mcp\"\nheaders = {{ Authorization = \"Bearer ${{T}}\" }}\n[[targets]]\nclient = \"warp\"\nservers = [\"h\"]\nscope = \"project\"\n"
        ),
    );
    assert_eq!(exit, 0, "{doc}");
    let home: Value =
        serde_json::from_slice(&std::fs::read(e.base.join("home/.warp/.mcp.json")).unwrap())
            .unwrap();
    assert_eq!(
        home["mcpServers"]["local"],
        json!({"command": "${BIN}", "args": ["--token", "${TOKEN}"], "env": {"K": "${K}"}})
    );
    assert_eq!(
        entry(&e, ".warp/.mcp.json", "/mcpServers/h"),
        json!({"url": "https://h/${P}/mcp", "headers": {"Authorization": "Bearer ${T}"}})
    );
    let lit = Env::new();
    lit.manifest("owner = \"o\"\n[servers.s]\ncommand = \"x\"\nargs = [\"$${HOME}\"]\n[[targets]]\nclient = \"warp\"\n");
    let (exit, doc) = lit.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(codes(&doc), vec!["cannot-express"]);
}

/// Crush skips a server with `"disabled": true` (`MCPConfig.Disabled`, `init.go`): that is its
/// off form, so `enabled = false` is written, not refused.
#[test]
fn crush_writes_a_switched_off_server_as_disabled() {
    let e = Env::new();
    let (exit, doc) = apply(
        &e,
        "owner = \"o\"\n[servers.s]\ncommand = \"x\"\nenabled = false\n[[targets]]\nclient = \"crush\"\n",
    );
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        entry(&e, ".crush.json", "/mcp/s"),
        json!({"type": "stdio", "command": "x", "disabled": true})
    );
}

/// Hermes Agent's per-server `trust` tier (`full` or `untrusted`, mcp-config-reference.md):
/// `auto_approve = true` writes `trust: full`; without it no tier is written.
#[test]
fn hermes_auto_approve_writes_its_trust_tier() {
    for (auto, want) in [(true, Some("trust: full")), (false, None)] {
        let e = Env::new();
        let extra = if auto { "auto_approve = true\n" } else { "" };
        e.manifest(&format!(
            "owner = \"o\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"hermes\"\n{extra}"
        ));
        let (exit, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(exit, 0, "{doc}");
        let text = std::fs::read_to_string(e.base.join("home/.hermes/config.yaml")).unwrap();
        match want {
            Some(w) => assert!(text.contains(w), "{text}"),
            None => assert!(!text.contains("trust"), "{text}"),
        }
    }
}
