//! Every client dialect: the exact entry each client gets, what each refuses (never a literal
//! in place of a reference), TOML editing, Claude Code's scopes and lock, Kiro agent grants.

use std::fs;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{Env, codes, mcpconf_cmd};

const BOTH: &str = r#"owner = "openab"

[servers.openab]
url = "http://127.0.0.1:8848/mcp"
headers = { Authorization = "Bearer ${OPENAB_SESSION_TOKEN}" }

[servers.browser]
command = "agent-browser"
args = ["mcp", "--tools", "core"]
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}", IDLE_MS = "3600000" }
"#;

fn target(client: &str, extra: &str) -> String {
    format!("{BOTH}\n[[targets]]\nclient = \"{client}\"\n{extra}\n")
}

/// Apply and return the parsed JSON file (relative to root, or home when it starts with `~/`).
fn applied_json(e: &Env, client: &str, extra: &str, file: &str) -> Value {
    e.manifest(&target(client, extra));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{client}: {doc}");
    let path = match file.strip_prefix("~/") {
        Some(rest) => e.base.join("home").join(rest),
        None => e.path(file),
    };
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{client}: {} missing", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn each_client_gets_its_own_spelling() {
    let stdio_plain = json!({"command": "agent-browser", "args": ["mcp", "--tools", "core"]});
    let cases: Vec<(&str, &str, &str, Value, Value)> = vec![
        (
            "cursor",
            ".cursor/mcp.json",
            "/mcpServers",
            json!({"url": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer ${env:OPENAB_SESSION_TOKEN}"}}),
            json!({"command": "agent-browser", "args": ["mcp", "--tools", "core"], "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
        (
            "claude-code",
            ".mcp.json",
            "/mcpServers",
            json!({"type": "http", "url": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer ${OPENAB_SESSION_TOKEN}"}}),
            json!({"type": "stdio", "command": "agent-browser", "args": ["mcp", "--tools", "core"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
        (
            "vscode",
            ".vscode/mcp.json",
            "/servers",
            json!({"type": "http", "url": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer ${env:OPENAB_SESSION_TOKEN}"}}),
            json!({"type": "stdio", "command": "agent-browser", "args": ["mcp", "--tools", "core"], "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
        (
            "windsurf",
            "~/.codeium/windsurf/mcp_config.json",
            "/mcpServers",
            json!({"serverUrl": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer ${env:OPENAB_SESSION_TOKEN}"}}),
            json!({"command": "agent-browser", "args": ["mcp", "--tools", "core"], "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
        (
            "gemini",
            ".gemini/settings.json",
            "/mcpServers",
            json!({"type": "http", "url": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer ${OPENAB_SESSION_TOKEN}"}}),
            json!({"command": "agent-browser", "args": ["mcp", "--tools", "core"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
        (
            "cline",
            "~/.cline/data/settings/cline_mcp_settings.json",
            "/mcpServers",
            json!({"type": "streamableHttp", "url": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer ${env:OPENAB_SESSION_TOKEN}"}}),
            json!({"type": "stdio", "command": "agent-browser", "args": ["mcp", "--tools", "core"], "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
        (
            "opencode",
            "opencode.json",
            "/mcp",
            json!({"type": "remote", "url": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer {env:OPENAB_SESSION_TOKEN}"}}),
            json!({"type": "local", "command": ["agent-browser", "mcp", "--tools", "core"], "environment": {"GITHUB_TOKEN": "{env:GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
        (
            "amazonq",
            ".amazonq/mcp.json",
            "/mcpServers",
            json!({"type": "http", "url": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer ${env:OPENAB_SESSION_TOKEN}"}}),
            json!({"type": "stdio", "command": "agent-browser", "args": ["mcp", "--tools", "core"], "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
        (
            "kiro",
            ".kiro/settings/mcp.json",
            "/mcpServers",
            json!({"url": "http://127.0.0.1:8848/mcp", "headers": {"Authorization": "Bearer ${OPENAB_SESSION_TOKEN}"}}),
            json!({"command": "agent-browser", "args": ["mcp", "--tools", "core"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "IDLE_MS": "3600000"}}),
        ),
    ];
    for (client, file, container, remote, stdio) in cases {
        let e = Env::new();
        let v = applied_json(&e, client, "", file);
        let servers = v
            .pointer(container)
            .unwrap_or_else(|| panic!("{client}: no {container} in {v}"));
        assert_eq!(servers["openab"], remote, "{client}");
        assert_eq!(servers["browser"], stdio, "{client}");
        assert_ne!(stdio, stdio_plain);
        // Key order follows the client's convention: `type` first where it exists.
        let first = servers["browser"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        assert!(first == "type" || first == "command", "{client}: {first}");
    }
}

#[test]
fn clients_without_references_refuse_instead_of_writing_literals() {
    let cases: &[(&str, &str, &str)] = &[
        ("zed", "", "env.GITHUB_TOKEN"),
        (
            "claude-desktop",
            "servers = [\"browser\"]",
            "env.GITHUB_TOKEN",
        ),
        (
            "claude-desktop",
            "servers = [\"openab\"]",
            "cannot use streamable HTTP",
        ),
        ("amazonq", "", ""),
    ];
    for (client, extra, needle) in cases {
        let e = Env::new();
        let manifest = if *client == "amazonq" {
            // amazonq expands references only in env values and headers.
            "owner = \"o\"\n[servers.s]\ncommand = \"run\"\nargs = [\"--token\", \"${TOKEN}\"]\n[[targets]]\nclient = \"amazonq\"\n".to_string()
        } else {
            target(client, extra)
        };
        e.manifest(&manifest);
        let (exit, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(exit, 3, "{client}: {doc}");
        assert_eq!(codes(&doc), vec!["cannot-express"], "{client}");
        let msg = doc["errors"][0]["message"].as_str().unwrap();
        assert!(
            msg.contains(client) && msg.contains(needle),
            "{client}: {msg}"
        );
        assert_eq!(
            fs::read_dir(e.root()).unwrap().count(),
            0,
            "{client}: nothing written"
        );
    }
}

/// A client that does not load a file at all once it holds a reference (Kilo's project
/// `.kilo/kilo.jsonc`, found with the real CLI): a server with a reference is refused for that
/// scope, naming the way out, and nothing is written, where the same server goes into the
/// user file and a literal-only one into the project file.
#[test]
fn a_reference_is_refused_where_the_client_would_drop_the_whole_file() {
    let e = Env::new();
    e.manifest(&target("kilo", "scope = \"project\""));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(codes(&doc), vec!["cannot-express"], "{doc}");
    let msg = doc["errors"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("kilo") && msg.contains("project") && msg.contains("`user` scope"),
        "{msg}"
    );
    assert!(!e.path(".kilo/kilo.jsonc").exists(), "written anyway");
    // The user file loads references: written there.
    let v = applied_json(&e, "kilo", "scope = \"user\"", "~/.config/kilo/kilo.jsonc");
    assert_eq!(
        v["mcp"]["browser"]["environment"]["GITHUB_TOKEN"],
        json!("{env:GITHUB_TOKEN}")
    );
    // A server without references still goes into the project file.
    e.manifest(
        "owner = \"o\"\n[servers.plain]\ncommand = \"run\"\nargs = [\"--fast\"]\n[[targets]]\nclient = \"kilo\"\nscope = \"project\"\n",
    );
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(e.text(".kilo/kilo.jsonc").contains("plain"));
    // The fact is in the client table.
    let out = mcpconf_cmd()
        .args(["clients", "--format", "json"])
        .output()
        .unwrap();
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kilo = all["clients"]
        .as_array()
        .and_then(|a| a.iter().find(|c| c["id"] == "kilo"))
        .expect("kilo in the client table");
    assert_eq!(kilo["references"]["file_unloaded_in"], json!(["project"]));
}

/// `lint` finds a reference in such a file (once per file: the file is what the client
/// drops), and nothing in the user file or in a project file without references.
#[test]
fn lint_finds_a_reference_in_a_file_the_client_drops() {
    let e = Env::new();
    let with_refs = "{\n  \"mcp\": {\n    \"a\": { \"type\": \"local\", \"command\": [\"run\"], \"environment\": { \"K\": \"{env:K}\" } },\n    \"b\": { \"type\": \"remote\", \"url\": \"https://h.example/mcp\", \"headers\": { \"Authorization\": \"Bearer {env:T}\" } }\n  }\n}\n";
    let project = e.write(".kilo/kilo.jsonc", with_refs);
    let user = e.base.join("home/.config/kilo/kilo.jsonc");
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    fs::write(&user, with_refs).unwrap();
    let plain = e.write(
        "other/.kilo/kilo.jsonc",
        "{ \"mcp\": { \"p\": { \"type\": \"local\", \"command\": [\"run\", \"--fast\"] } } }\n",
    );
    let rules = |path: &std::path::Path| -> Vec<(String, i64)> {
        let out = mcpconf_cmd()
            .args(["lint", path.to_str().unwrap(), "--format", "json"])
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["findings"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: {doc}", path.display()))
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap_or("").to_string(),
                    f["line"].as_i64().unwrap_or(0),
                )
            })
            .collect()
    };
    let found = rules(&project);
    let dropped: Vec<_> = found
        .iter()
        .filter(|(r, _)| r == "reference-drops-file")
        .collect();
    assert_eq!(dropped.len(), 1, "{found:?}");
    assert_eq!(dropped[0].1, 3, "at the first reference: {found:?}");
    assert!(
        !rules(&user)
            .iter()
            .any(|(r, _)| r == "reference-drops-file"),
        "the user file is loaded"
    );
    assert!(
        !rules(&plain)
            .iter()
            .any(|(r, _)| r == "reference-drops-file"),
        "no reference"
    );
}

#[test]
fn codex_uses_its_own_mechanisms_or_refuses() {
    let e = Env::new();
    fs::create_dir_all(e.base.join("home/.codex")).unwrap();
    let original = "# my settings\r\nmodel = \"o3\"\r\n\r\n[mcp_servers.mine]\r\ncommand = \"mine\" # keep\r\n\r\n# about profiles\r\n[profiles.fast]\r\nmodel = \"o4-mini\"\r\n";
    let cfg = e.base.join("home/.codex/config.toml");
    fs::write(&cfg, original).unwrap();
    let manifest = format!(
        "{}\n[servers.openab]\nurl = \"http://127.0.0.1:8848/mcp\"\nheaders = {{ Authorization = \"Bearer ${{OPENAB_SESSION_TOKEN}}\", X-Team = \"${{TEAM}}\", X-Static = \"v\" }}\ntools = [\"search\"]\n[servers.browser]\ncommand = \"agent-browser\"\nargs = [\"mcp\"]\nenv = {{ GITHUB_TOKEN = \"${{GITHUB_TOKEN}}\", IDLE = \"1\" }}\n[[targets]]\nclient = \"codex\"\n",
        "owner = \"openab\""
    );
    e.manifest(&manifest);
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let text = fs::read_to_string(&cfg).unwrap();
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "CRLF kept: {text:?}"
    );
    let lf = text.replace("\r\n", "\n");
    assert!(
        lf.starts_with(
            "# my settings\nmodel = \"o3\"\n\n[mcp_servers.mine]\ncommand = \"mine\" # keep\n"
        ),
        "{lf}"
    );
    assert!(lf.contains("[mcp_servers.openab]\nurl = \"http://127.0.0.1:8848/mcp\"\nbearer_token_env_var = \"OPENAB_SESSION_TOKEN\"\nhttp_headers = { X-Static = \"v\" }\nenv_http_headers = { X-Team = \"TEAM\" }\nenabled_tools = [\"search\"]\n"), "{lf}");
    assert!(lf.contains("[mcp_servers.browser]\ncommand = \"agent-browser\"\nargs = [\"mcp\"]\nenv = { IDLE = \"1\" }\nenv_vars = [\"GITHUB_TOKEN\"]\n"), "{lf}");
    assert!(lf.contains("# about profiles\n[profiles.fast]"), "{lf}");
    let (exit, _) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0);
    assert_eq!(
        fs::read_to_string(&cfg).unwrap(),
        original,
        "apply then prune is the identity"
    );

    // CODEX_HOME moves the user file.
    let e = Env::new();
    e.manifest(&target("codex", "servers = [\"openab\"]"));
    let out = e
        .cmd(&["apply", "--yes"])
        .env("CODEX_HOME", e.base.join("codex-home"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(e.base.join("codex-home/config.toml").exists());

    // What Codex cannot express is refused.
    for (servers, needle) in [
        (
            "[servers.s]\ncommand = \"run\"\nenv = { A = \"${OTHER}\" }\n",
            "env.A",
        ),
        (
            "[servers.s]\ncommand = \"run\"\nargs = [\"${X}\"]\n",
            "args",
        ),
        ("[servers.s]\nurl = \"https://h/${X}\"\n", "url"),
        (
            "[servers.s]\nurl = \"https://h\"\nheaders = { X = \"pre-${X}\" }\n",
            "headers.X",
        ),
        (
            "[servers.s]\nurl = \"https://h\"\ntransport = \"sse\"\n",
            "SSE",
        ),
    ] {
        let e = Env::new();
        e.manifest(&format!(
            "owner = \"o\"\n{servers}[[targets]]\nclient = \"codex\"\n"
        ));
        let (exit, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(exit, 3, "{servers}: {doc}");
        assert_eq!(codes(&doc), vec!["cannot-express"]);
        let msg = doc["errors"][0]["message"].as_str().unwrap();
        assert!(msg.contains("codex") && msg.contains(needle), "{msg}");
    }
}

#[test]
fn a_file_in_the_wrong_syntax_is_refused_naming_the_client() {
    for (client, file, content) in [
        (
            "gemini",
            ".gemini/settings.json",
            "{\n  // ok\n  \"mcpServers\": {},\n}\n",
        ),
        (
            "cursor",
            ".cursor/mcp.json",
            "{\n  // not ok\n  \"mcpServers\": {}\n}\n",
        ),
        ("codex", "../home/.codex/config.toml", "[mcp_servers\n"),
    ] {
        let e = Env::new();
        e.manifest(&target(client, ""));
        let p = e.write(file, content);
        let (exit, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(exit, 3, "{client}: {doc}");
        assert_eq!(codes(&doc), vec!["parse-error"], "{client}");
        let msg = doc["errors"][0]["message"].as_str().unwrap();
        assert!(msg.contains(&format!("client `{client}`")), "{msg}");
        assert_eq!(fs::read_to_string(p).unwrap(), content);
    }
    // Gemini accepts comments (without trailing commas), and keeps them.
    let e = Env::new();
    e.manifest(&target("gemini", ""));
    e.write(
        ".gemini/settings.json",
        "{\n  // mine\n  \"theme\": \"dark\"\n}\n",
    );
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(
        e.text(".gemini/settings.json")
            .starts_with("{\n  // mine\n  \"theme\": \"dark\",\n")
    );
}

#[test]
fn pins_are_written_where_the_client_can_express_them() {
    let pinned = BOTH.replace(
        "headers = { Authorization = \"Bearer ${OPENAB_SESSION_TOKEN}\" }",
        "headers = { Authorization = \"Bearer ${OPENAB_SESSION_TOKEN}\" }\ntools = [\"search_capabilities\", \"execute_capability\"]",
    );
    let e = Env::new();
    e.manifest(&format!(
        "{pinned}\n[[targets]]\nclient = \"gemini\"\n[[targets]]\nclient = \"cursor\"\n"
    ));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let g: Value = serde_json::from_str(&e.text(".gemini/settings.json")).unwrap();
    assert_eq!(
        g["mcpServers"]["openab"]["includeTools"],
        json!(["search_capabilities", "execute_capability"])
    );
    let cursor = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["client"] == "cursor")
        .unwrap();
    assert!(
        cursor["notes"][0]
            .as_str()
            .unwrap()
            .contains("cannot enforce the tool pin of server `openab`")
    );
    let gem = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["client"] == "gemini")
        .unwrap();
    assert_eq!(gem["notes"], json!([]));
}

#[test]
fn claude_code_local_scope_key_is_the_canonical_root() {
    // Claude Code keys `projects` by its real working directory; a --root reached through a
    // symlink must name that entry, not a second one under the link's path.
    let e = Env::new();
    let link = e.base.join("link-to-root");
    std::os::unix::fs::symlink(e.root(), &link).unwrap();
    e.manifest(&format!(
        "{BOTH}\n[[targets]]\nclient = \"claude-code\"\nscope = \"local\"\nservers = [\"browser\"]\n"
    ));
    let out = mcpconf_cmd()
        .args(["apply", "--yes", "-m"])
        .arg(e.base.join("mcpconf.toml"))
        .arg("--root")
        .arg(&link)
        .arg("--home")
        .arg(e.base.join("home"))
        .arg("--state-dir")
        .arg(e.state())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let file = e.base.join("home/.claude.json");
    let v: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let canonical = fs::canonicalize(e.root()).unwrap().display().to_string();
    let keys: Vec<&String> = v["projects"].as_object().unwrap().keys().collect();
    assert_eq!(keys, vec![&canonical], "projects keyed by the link's path");
    assert_eq!(
        v["projects"][&canonical]["mcpServers"]["browser"]["command"],
        "agent-browser"
    );
}

#[test]
fn claude_code_user_and_local_scopes_share_one_file() {
    let e = Env::new();
    let original = "{\n  \"numStartups\": 42,\n  \"projects\": {\n    \"/elsewhere\": {\"mcpServers\": {}}\n  },\n  \"mcpServers\": {\n    \"mine\": {\"type\": \"stdio\", \"command\": \"x\"}\n  }\n}\n";
    let file = e.base.join("home/.claude.json");
    fs::write(&file, original).unwrap();
    e.manifest(&format!(
        "{BOTH}\n[[targets]]\nclient = \"claude-code\"\nscope = \"user\"\nservers = [\"openab\"]\n[[targets]]\nclient = \"claude-code\"\nscope = \"local\"\nservers = [\"browser\"]\n"
    ));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        doc["files"].as_array().unwrap().len(),
        1,
        "one file, two containers"
    );
    let v: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["mcpServers"]["openab"]["type"], "http");
    let root = e.root().display().to_string();
    assert_eq!(
        v["projects"][&root]["mcpServers"]["browser"]["command"],
        "agent-browser"
    );
    assert_eq!(v["numStartups"], 42);
    assert!(
        !e.base.join("home/.claude.json.lock").exists(),
        "Claude's lock is released"
    );

    // Claude Code reformats the file (as it does): ownership survives, prune removes only ours.
    let reformatted = serde_json::to_string(&v).unwrap();
    fs::write(&file, &reformatted).unwrap();
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let after: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    assert!(after["mcpServers"]["openab"].is_null());
    assert_eq!(after["mcpServers"]["mine"]["command"], "x");
    assert!(after["projects"][&root]["mcpServers"]["browser"].is_null());
}

#[test]
fn claude_codes_own_lock_is_respected_and_taken_over_when_stale() {
    let e = Env::new();
    e.manifest(&target("claude-code", "scope = \"user\""));
    let lock = e.base.join("home/.claude.json.lock");
    fs::create_dir_all(&lock).unwrap();
    let (exit, doc) = e.json(&["apply", "--yes", "--lock-timeout", "0.3"]);
    assert_eq!(exit, 4, "{doc}");
    assert_eq!(codes(&doc), vec!["lock-timeout"]);
    assert!(!e.base.join("home/.claude.json").exists());
    assert!(lock.exists(), "a live lock is not removed");
    // Older than proper-lockfile's 10 s stale period: taken over.
    let status = Command::new("touch")
        .args(["-d", "1 minute ago"])
        .arg(&lock)
        .status()
        .unwrap();
    assert!(status.success());
    let (exit, doc) = e.json(&["apply", "--yes", "--lock-timeout", "0.3"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(e.base.join("home/.claude.json").exists());
    assert!(!lock.exists(), "released after the write");
}

#[test]
fn kiro_agent_grants_come_and_go_with_the_entry() {
    let e = Env::new();
    let dev = "{\n  \"name\": \"dev\",\n  \"tools\": [\"read\", \"@openab-browser\"],\n  \"mcpServers\": {\n    \"openab-browser\": {\"command\": \"openab\", \"args\": [\"browser-bridge\"]}\n  }\n}\n";
    let star = "{\"name\": \"star\", \"tools\": [\"*\"]}\n";
    let own = "{\n  \"name\": \"own\",\n  \"tools\": [\"@openab\"],\n  \"allowedTools\": [\"@openab\"]\n}\n";
    let notools = "{\"name\": \"bare\"}\n";
    e.write(".kiro/agents/dev.json", dev);
    e.write(".kiro/agents/star.json", star);
    e.write(".kiro/agents/own.json", own);
    e.write(".kiro/agents/bare.json", notools);
    e.write(".kiro/agents/prompt.md", "---\nname: md\n---\nhello\n");
    e.manifest(
        "owner = \"openab\"\n[servers.openab]\nurl = \"http://127.0.0.1:8848/mcp\"\ntools = [\"search\", \"execute\"]\n[[targets]]\nclient = \"kiro-agent\"\nauto_approve = true\n[[legacy]]\nname = \"openab-browser\"\nentry = { command = \"openab\", args = [\"browser-bridge\"] }\ngrants = [\"@openab-browser\"]\n",
    );
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let statuses: Vec<(String, String)> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = f["path"].as_str().unwrap();
            (
                p.rsplit('/').next().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        statuses.contains(&("prompt.md".into(), "skipped".into())),
        "{statuses:?}"
    );

    let v: Value = serde_json::from_str(&e.text(".kiro/agents/dev.json")).unwrap();
    assert_eq!(
        v["tools"],
        json!(["read", "@openab/search", "@openab/execute"]),
        "legacy grant gone, pinned grants added"
    );
    assert_eq!(
        v["allowedTools"],
        json!(["@openab/search", "@openab/execute"])
    );
    assert!(v["mcpServers"]["openab-browser"].is_null());
    assert_eq!(
        v["mcpServers"]["openab"]["url"],
        "http://127.0.0.1:8848/mcp"
    );
    let s: Value = serde_json::from_str(&e.text(".kiro/agents/star.json")).unwrap();
    assert_eq!(s["tools"], json!(["*"]), "`*` already covers the server");
    let o: Value = serde_json::from_str(&e.text(".kiro/agents/own.json")).unwrap();
    assert_eq!(
        o["tools"],
        json!(["@openab"]),
        "no duplicate of the user's grant"
    );
    assert_eq!(o["allowedTools"], json!(["@openab"]));
    let b: Value = serde_json::from_str(&e.text(".kiro/agents/bare.json")).unwrap();
    assert!(
        b.get("tools").is_none(),
        "no tools list: nothing to grant there"
    );

    let (exit, _) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0);
    assert_eq!(
        e.text(".kiro/agents/star.json"),
        star,
        "byte-identical after prune"
    );
    assert_eq!(
        e.text(".kiro/agents/own.json"),
        own,
        "the user's grants are never removed"
    );
    assert_eq!(e.text(".kiro/agents/bare.json"), notools);
    let v: Value = serde_json::from_str(&e.text(".kiro/agents/dev.json")).unwrap();
    assert_eq!(v["tools"], json!(["read"]));
    assert!(
        v.get("allowedTools").is_none(),
        "the array mcpconf created is removed"
    );
}

#[test]
fn clients_lists_every_dialect() {
    let out = mcpconf_cmd()
        .args(["clients", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = v["clients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for id in [
        "json",
        "claude-code",
        "claude-desktop",
        "cursor",
        "kiro",
        "kiro-agent",
        "vscode",
        "windsurf",
        "codex",
        "gemini",
        "zed",
        "cline",
        "opencode",
        "amazonq",
        "roo",
        "antigravity",
        "copilot-cli",
        "factory",
        "qwen",
        "kilo",
        "trae",
        "kimi",
        "junie",
        "amp",
        "crush",
        "lm-studio",
        "grok",
        "augment",
        "jetbrains",
        "devin",
        "mistral-vibe",
        "goose",
        "continue",
        "hermes",
        "vscode-insiders",
        "visual-studio",
        "copilot-xcode",
        "firebase-studio",
        "rovo-dev",
        "warp",
        "openhands",
        "librechat",
        "tabnine",
        "grok-cli",
        "qoder",
    ] {
        assert!(ids.contains(&id), "{id}");
    }
    let schema: Value =
        serde_json::from_str(include_str!("../../schemas/manifest.schema.json")).unwrap();
    let enum_ids: Vec<&str> = schema["$defs"]["target"]["properties"]["client"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let mut a = ids.clone();
    a.sort();
    let mut b = enum_ids.clone();
    b.sort();
    assert_eq!(a, b, "the schema's client enum matches `mcpconf clients`");
    let claude = v["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "claude-code")
        .unwrap();
    assert_eq!(claude["client_lock"], json!(["user", "local"]));
}

/// User files under `~/.config/` follow `$XDG_CONFIG_HOME` unless `--home` was given.
#[test]
fn xdg_config_home_moves_user_files_without_explicit_home() {
    let e = Env::new();
    e.manifest(&target("opencode", "scope = \"user\""));
    let xdg = e.base.join("xdg");
    let out = mcpconf_cmd()
        .args(["apply", "--yes", "-m"])
        .arg(e.base.join("mcpconf.toml"))
        .arg("--root")
        .arg(e.root())
        .arg("--state-dir")
        .arg(e.state())
        .env("HOME", e.base.join("home"))
        .env("XDG_CONFIG_HOME", &xdg)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(xdg.join("opencode/opencode.json").exists());
    // With --home, everything of the user is under it.
    let e2 = Env::new();
    e2.manifest(&target("opencode", "scope = \"user\""));
    let out = e2
        .cmd(&["apply", "--yes"])
        .env("XDG_CONFIG_HOME", &xdg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(e2.base.join("home/.config/opencode/opencode.json").exists());
}
