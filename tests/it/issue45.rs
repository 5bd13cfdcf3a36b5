//! Issue 45's classes, one test each, on the operator's route: `import` a client file, `apply
//! --adopt` the manifest against the file it came from (every entry adopted, the file left
//! byte for byte), `plan --check` clean after, and `apply` into an empty file of the client
//! (the entries read back as the client's own spelling would have them).

use serde_json::Value;

use crate::common::Env;

/// What one file imports to: the manifest and the warnings.
struct Imported {
    manifest: String,
    stderr: String,
}

fn import(e: &Env, client: &str) -> Imported {
    let out = e.run(&["import", "--client", client, "--owner", "team"]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{client}: {stderr}");
    Imported {
        manifest: String::from_utf8(out.stdout).unwrap(),
        stderr,
    }
}

/// Import `content` at `file`, adopt it (nothing written, every action an adoption) and check
/// the plan is clean; then apply the import into an empty file and return what it wrote.
fn round_trip(client: &str, file: &str, content: &str) -> (Imported, Value) {
    let e = Env::new();
    e.write(file, content);
    let imported = import(&e, client);
    e.manifest(&imported.manifest);
    let (exit, doc) = e.json(&["apply", "--yes", "--adopt"]);
    assert_eq!(exit, 0, "{client}: {}\n{doc}", imported.manifest);
    for a in doc["files"][0]["actions"].as_array().unwrap() {
        assert_eq!(a["op"], "adopt", "{client}: {doc}\n{}", imported.manifest);
    }
    assert_eq!(e.text(file), content, "{client}: adopt writes nothing");
    let out = e.run(&["plan", "--check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{client}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let fresh = Env::new();
    fresh.manifest(&imported.manifest);
    let (exit, doc) = fresh.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{client}: {doc}");
    let written = fresh.text(file);
    let value = if file.ends_with(".yaml") || file.ends_with(".toml") {
        Value::String(written)
    } else {
        serde_json::from_str(&written).unwrap()
    };
    (imported, value)
}

/// Class 7: any name a client takes is a name mcpconf owns: imported with a warning (quoted as
/// a TOML key), adopted and planned clean, written back under the same key, recorded in the
/// ledger with `/` and `~` escaped. What no client takes is still refused.
#[test]
fn names_clients_accept_are_imported_and_owned() {
    let names = [
        "github.com/modelcontextprotocol/servers/tree/main/src/time",
        "AWS API MCP Server",
        "@aws/documentation",
        "_option1",
        "a~b",
    ];
    let mut servers = serde_json::Map::new();
    for n in names {
        servers.insert(
            n.to_string(),
            serde_json::json!({"command": "npx", "args": ["-y", "x"], "disabled": false}),
        );
    }
    let content =
        serde_json::to_string_pretty(&serde_json::json!({ "mcpServers": servers })).unwrap() + "\n";
    let (imported, written) = round_trip("cursor", ".cursor/mcp.json", &content);
    assert!(
        imported
            .manifest
            .contains("[servers.\"github.com/modelcontextprotocol/servers/tree/main/src/time\"]"),
        "{}",
        imported.manifest
    );
    for n in names {
        assert!(written["mcpServers"].get(n).is_some(), "{n}: {written}");
    }
    assert!(
        imported.stderr.contains("AWS API MCP Server"),
        "{}",
        imported.stderr
    );
    // The manifest itself refuses a name no client takes.
    let e = Env::new();
    for bad in [
        "\"\"",
        "\" \"",
        "\"a\\u0007b\"",
        &format!("\"{}\"", "x".repeat(129)),
    ] {
        e.manifest(&format!(
            "owner = \"o\"\n[servers.{bad}]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n"
        ));
        let out = e.run(&["plan"]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}

/// Class 4: what a client writes into its entries itself (Goose's `bundled`, `description`,
/// `timeout`; Gemini CLI's `timeout`, `description`, `excludeTools`, as `gemini mcp add`
/// writes them) no longer blocks adoption: the entry is adopted with them, and they stay the
/// client's.
#[test]
fn client_written_fields_do_not_block_adoption() {
    let goose = "extensions:\n  github:\n    bundled: null\n    description: GitHub tools\n    enabled: true\n    name: github\n    timeout: 120\n    type: stdio\n    cmd: npx\n    args:\n    - -y\n    - '@modelcontextprotocol/server-github'\n    envs: {}\n  memory:\n    bundled: true\n    enabled: true\n    name: memory\n    timeout: 300\n    type: stdio\n    cmd: npx\n    args:\n    - -y\n    - '@modelcontextprotocol/server-memory'\n";
    let (imported, _) = round_trip("goose", "../home/.config/goose/config.yaml", goose);
    assert!(
        imported.manifest.contains("[servers.github]")
            && imported.manifest.contains("[servers.memory]"),
        "{}",
        imported.manifest
    );
    assert!(!imported.stderr.contains("dropped"), "{}", imported.stderr);
    let gemini = "{\n  \"mcpServers\": {\n    \"py\": {\n      \"command\": \"python\",\n      \"args\": [\"-m\", \"srv\"],\n      \"timeout\": 30000,\n      \"description\": \"Python tools\",\n      \"excludeTools\": [\"rm\"]\n    }\n  }\n}\n";
    let (imported, _) = round_trip("gemini", ".gemini/settings.json", gemini);
    assert!(
        imported.manifest.contains("[servers.py]"),
        "{}",
        imported.manifest
    );
}

/// Plan `manifest` in a fresh project: the exit code and the output (stdout and stderr).
fn plan_of(manifest: &str) -> (Option<i32>, String) {
    let e = Env::new();
    e.manifest(manifest);
    let out = e.run(&["plan"]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// Class 2: a reference with a default is written for a client whose grammar has defaults
/// (Claude Code) and refused, naming the reason, for one without (Cursor).
#[test]
fn references_with_defaults_are_written_where_the_grammar_has_them() {
    let claude = "{\n  \"mcpServers\": {\n    \"api\": {\n      \"type\": \"http\",\n      \"url\": \"${API_BASE_URL:-https://api.example.com}/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${API_KEY}\"\n      }\n    }\n  }\n}\n";
    let (imported, written) = round_trip("claude-code", ".mcp.json", claude);
    assert!(
        imported
            .manifest
            .contains("url = \"${API_BASE_URL:-https://api.example.com}/mcp\""),
        "{}",
        imported.manifest
    );
    assert_eq!(
        written["mcpServers"]["api"]["url"],
        "${API_BASE_URL:-https://api.example.com}/mcp"
    );
    let server = "[servers.api]\nurl = \"${API_BASE_URL:-https://api.example.com}/mcp\"\n";
    for client in ["cursor", "vscode", "qwen"] {
        let (code, out) = plan_of(&format!(
            "owner = \"o\"\n{server}[[targets]]\nclient = \"{client}\"\n"
        ));
        assert_eq!(code, Some(3), "{client}: {out}");
        assert!(
            out.contains("cannot-express") && out.contains("has no default"),
            "{client}: {out}"
        );
    }
    // A default a shell would read differently is refused by the manifest itself.
    let (code, out) = plan_of(
        "owner = \"o\"\n[servers.a]\ncommand = \"x\"\nargs = [\"${A:-$B}\"]\n[[targets]]\nclient = \"claude-code\"\n",
    );
    assert_eq!(code, Some(2), "{out}");
}

/// Class 2: text Crush's shell-like expander reads that a reference cannot say is kept
/// verbatim, owned and planned clean; the same construct reads the same way in every field of
/// the file (`$VAR` a reference, `$(…)` verbatim); the verbatim form is refused for a client
/// of another grammar.
#[test]
fn shell_forms_are_kept_verbatim_for_their_grammar() {
    let crush = r#"{
  "mcp": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {
        "Authorization": "Bearer $(echo ${GH_PAT:-})"
      }
    },
    "netdata": {
      "type": "http",
      "url": "http://localhost:19999/mcp",
      "headers": {
        "Authorization": "Bearer $ND_TOKEN",
        "X-Token": "$(cat /run/secrets/token)"
      }
    },
    "brave": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-brave-search"],
      "env": {
        "BRAVE_API_KEY": "$BRAVE_API_KEY",
        "TOKEN": "$(cat /run/secrets/token)",
        "REGION": "${REGION:-eu}"
      }
    }
  }
}
"#;
    let (imported, written) = round_trip("crush", ".crush.json", crush);
    let m = &imported.manifest;
    for want in [
        "Authorization = \"${verbatim:shell:Bearer $(echo ${GH_PAT:-})}\"",
        "Authorization = \"Bearer ${ND_TOKEN}\"",
        "X-Token = \"${verbatim:shell:$(cat /run/secrets/token)}\"",
        "BRAVE_API_KEY = \"${BRAVE_API_KEY}\"",
        "TOKEN = \"${verbatim:shell:$(cat /run/secrets/token)}\"",
        "REGION = \"${REGION:-eu}\"",
    ] {
        assert!(m.contains(want), "{want}:\n{m}");
    }
    assert!(
        !imported.stderr.contains("literal secret"),
        "{}",
        imported.stderr
    );
    // Written back: the verbatim text as it was, the references in Crush's `${VAR}`.
    assert_eq!(
        written["mcp"]["github"]["headers"]["Authorization"],
        "Bearer $(echo ${GH_PAT:-})"
    );
    assert_eq!(
        written["mcp"]["brave"]["env"]["BRAVE_API_KEY"],
        "${BRAVE_API_KEY}"
    );
    // Never for a client of another grammar, nor where Crush expands nothing.
    let verbatim = "[servers.a]\ncommand = \"x\"\nenv = { T = \"${verbatim:shell:$(cat t)}\" }\n";
    for client in ["gemini", "claude-code", "cursor"] {
        let (code, out) = plan_of(&format!(
            "owner = \"o\"\n{verbatim}[[targets]]\nclient = \"{client}\"\n"
        ));
        assert_eq!(code, Some(3), "{client}: {out}");
        assert!(
            out.contains("cannot-express") && out.contains("verbatim text for the `shell` grammar"),
            "{client}: {out}"
        );
    }
    let (code, out) = plan_of(
        "owner = \"o\"\n[servers.a]\ncommand = \"x\"\nargs = [\"${verbatim:shell:$(cat t)}\"]\n[[targets]]\nclient = \"crush\"\n",
    );
    assert_eq!(code, Some(3), "{out}");
    let (code, out) = plan_of(
        "owner = \"o\"\n[servers.a]\ncommand = \"x\"\nargs = [\"${verbatim:bash:x}\"]\n[[targets]]\nclient = \"crush\"\n",
    );
    assert_eq!(code, Some(2), "{out}");
}

/// Class 2: a literal credential inside a shell form is still found by the one detector and
/// replaced by a reference; the rest of the text stays verbatim, and no output shows it.
#[test]
fn a_literal_secret_inside_a_shell_form_is_still_replaced() {
    let token = format!(
        "ghp_{}",
        "c0rpusFAKE".repeat(4).chars().take(36).collect::<String>()
    );
    let crush = format!(
        "{{\n  \"mcp\": {{\n    \"github\": {{\n      \"type\": \"http\",\n      \"url\": \"https://api.githubcopilot.com/mcp/\",\n      \"headers\": {{\n        \"Authorization\": \"Bearer $(echo {token})\"\n      }}\n    }}\n  }}\n}}\n"
    );
    let e = Env::new();
    e.write(".crush.json", &crush);
    let imported = import(&e, "crush");
    assert!(!imported.manifest.contains(&token), "{}", imported.manifest);
    assert!(!imported.stderr.contains(&token), "{}", imported.stderr);
    assert!(
        imported
            .manifest
            .contains("Authorization = \"${verbatim:shell:Bearer $(echo ${"),
        "{}",
        imported.manifest
    );
    assert!(
        imported.stderr.contains("literal secret"),
        "{}",
        imported.stderr
    );
    e.manifest(&imported.manifest);
    let file = e.path(".crush.json").display().to_string();
    let out = e.run(&["lint", &file]);
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("literal-secret"), "{text}");
    assert!(!text.contains(&token), "{text}");
}

#[test]
fn an_untyped_url_entry_a_client_starts_nothing_from_is_left_out_with_the_reason() {
    // Roo Code rejects a `url` entry without `type`; Amazon Q takes it for a local command.
    // Import leaves such an entry out, saying why, and keeps the typed one beside it.
    for (client, file, typed) in [
        ("roo", ".roo/mcp.json", "streamable-http"),
        ("amazonq", ".amazonq/mcp.json", "http"),
    ] {
        let e = Env::new();
        e.write(
            file,
            format!(
                "{{\"mcpServers\": {{\"bare\": {{\"url\": \"https://a.example/mcp\"}}, \"typed\": {{\"type\": \"{typed}\", \"url\": \"https://b.example/mcp\"}}}}}}\n"
            ),
        );
        let imported = import(&e, client);
        assert!(
            imported.stderr.contains(&format!(
                "server `bare` is left out: client `{client}` starts no server from a `url` entry without `type`"
            )),
            "{client}: {}",
            imported.stderr
        );
        assert!(!imported.manifest.contains("[servers.bare]"), "{client}");
        assert!(
            imported.manifest.contains("[servers.typed]"),
            "{client}: {}",
            imported.manifest
        );
        // Lint reports it (`untyped-url`), with the source that says so; not the typed one.
        e.manifest(&imported.manifest);
        let path = e.path(file);
        let (_, doc) = e.json(&["lint", path.to_str().unwrap()]);
        let found: Vec<&Value> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "untyped-url")
            .collect();
        assert_eq!(found.len(), 1, "{client}: {doc}");
        let msg = found[0]["message"].as_str().unwrap();
        assert!(
            msg.contains("server `bare`") && msg.contains("source: https://github.com/"),
            "{client}: {msg}"
        );
    }
    // A client that reads an untyped `url` (Cursor: streamable HTTP or SSE) imports it.
    let e = Env::new();
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"bare\": {\"url\": \"https://a.example/mcp\"}}}\n",
    );
    assert!(import(&e, "cursor").manifest.contains("[servers.bare]"));
}

/// Every action of an `apply --adopt` (JSON report) of the file at index 0, as `op server`.
fn ops(doc: &Value) -> Vec<String> {
    doc["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["actions"].as_array().cloned().unwrap_or_default())
        .map(|a| {
            format!(
                "{} {}",
                a["op"].as_str().unwrap_or(""),
                a["server"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// Kiro agents: the agent's `tools` grants are part of what import reads. `@server/tool` pins
/// the server's tools, `@server` / `@server/*` / `*` grants it whole, a server granted nothing
/// is pinned to no tool; adopting the import leaves the agent file byte for byte (no grant is
/// widened). And a manifest that wants the whole server never widens a narrower grant the user
/// wrote, in `tools` or (with `auto_approve`) in `allowedTools`.
#[test]
fn kiro_agent_grants_are_imported_and_never_widened() {
    let agent = r#"{
  "name": "db",
  "mcpServers": {
    "fetch": {"command": "mcp-server-fetch"},
    "postgres": {"command": "npx", "args": ["-y", "pg"]},
    "memory": {"command": "npx", "args": ["-y", "mem"]},
    "git": {"command": "uvx", "args": ["mcp-server-git"]},
    "unused": {"command": "npx", "args": ["-y", "unused"]}
  },
  "tools": ["read", "@fetch/fetch", "@postgres/query", "@memory/read_graph", "@memory/search_nodes", "@git/*"],
  "allowedTools": ["@postgres/query", "@git"]
}
"#;
    let file = ".kiro/agents/db.json";
    let e = Env::new();
    e.write(file, agent);
    let imported = import(&e, "kiro-agent");
    let m = &imported.manifest;
    for (server, pin) in [
        ("fetch", "tools = [\"fetch\"]"),
        ("postgres", "tools = [\"query\"]"),
        ("memory", "tools = [\"read_graph\", \"search_nodes\"]"),
        ("unused", "tools = []"),
    ] {
        let at = m.find(&format!("[servers.{server}]")).unwrap();
        let rest = &m[at..];
        let end = rest[1..].find("\n[").map_or(rest.len(), |i| i + 1);
        assert!(rest[..end].contains(pin), "{server}: {m}");
    }
    let git = &m[m.find("[servers.git]").unwrap()..];
    assert!(
        !git[..git[1..].find("\n[").unwrap_or(git.len() - 1)].contains("tools"),
        "{m}"
    );
    // Some servers are approved only in part: no `auto_approve`, and a warning says so.
    assert!(!m.contains("auto_approve"), "{m}");
    assert!(
        imported.stderr.contains("`allowedTools` approves `query`"),
        "{}",
        imported.stderr
    );
    e.manifest(m);
    let (exit, doc) = e.json(&["apply", "--yes", "--adopt"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(ops(&doc).iter().all(|o| o.starts_with("adopt ")), "{doc}");
    assert_eq!(e.text(file), agent, "adopting widens no grant");
    assert_eq!(e.run(&["plan", "--check"]).status.code(), Some(0));

    // A hand-written manifest wanting the whole server, with auto-approval: the user's
    // narrower grants stand for ours.
    let e = Env::new();
    let narrow = r#"{"mcpServers": {}, "tools": ["@fetch/fetch"], "allowedTools": ["@fetch/fetch"]}
"#;
    e.write(file, narrow);
    e.manifest(
        "owner = \"team\"\n[servers.fetch]\ncommand = \"mcp-server-fetch\"\n[[targets]]\nclient = \"kiro-agent\"\nauto_approve = true\n",
    );
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let v: Value = serde_json::from_str(&e.text(file)).unwrap();
    assert_eq!(v["tools"], serde_json::json!(["@fetch/fetch"]), "{v}");
    assert_eq!(
        v["allowedTools"],
        serde_json::json!(["@fetch/fetch"]),
        "{v}"
    );
    assert!(v["mcpServers"]["fetch"].is_object(), "{v}");
    // Every server wholly approved: `auto_approve = true`.
    let e = Env::new();
    e.write(
        file,
        r#"{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}, "tools": ["*"], "allowedTools": ["@a", "@b/*"]}
"#,
    );
    let imported = import(&e, "kiro-agent");
    assert!(
        imported.manifest.contains("auto_approve = true"),
        "{}",
        imported.manifest
    );
    assert!(
        !imported.manifest.contains("tools ="),
        "{}",
        imported.manifest
    );
}

/// What import says about each entry is what `plan --adopt` then does, for every dialect: an
/// entry import says will be refused is a conflict, one it says adopts (with the client's own
/// keys, or the user's settings mcpconf keeps) is adopted. opencode's `enabled: false` beside an
/// empty `environment`, its documented `timeout` and `oauth` (kept byte for byte through an
/// update), Zed's `source: "custom"`, Crush's `disabled: true` (the manifest's `enabled =
/// false`), a field the client does not read (the user's, adopted with the entry), and another
/// client's name for the environment (`envs`: a field that says what runs is never set aside,
/// so refused, and said so).
#[test]
fn import_warnings_say_what_plan_does() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "opencode",
            "opencode.json",
            r#"{"mcp": {
  "off": {"type": "local", "command": ["node", "x.js"], "environment": {}, "enabled": false},
  "slow": {"type": "local", "command": ["uvx", "y"], "enabled": true, "timeout": 10000},
  "remote": {"type": "remote", "url": "https://mcp.example.com/mcp", "oauth": {}},
  "odd": {"type": "local", "command": ["z"], "envs": {"A": "1"}},
  "extra": {"type": "local", "command": ["w"], "frobnicate": 1}
}}
"#,
        ),
        (
            "zed",
            ".zed/settings.json",
            r#"{"context_servers": {
  "pg": {"source": "custom", "command": "npx", "args": ["-y", "pg"], "env": {}},
  "docs": {"source": "custom", "url": "https://mcp.example.com/mcp"},
  "odd": {"command": "z", "envs": {"A": "1"}},
  "extra": {"command": "w", "frobnicate": 1}
}}
"#,
        ),
        (
            "crush",
            ".crush.json",
            r#"{"mcp": {
  "fs": {"type": "stdio", "command": "npx", "args": ["-y", "fs"], "disabled": true},
  "odd": {"type": "stdio", "command": "z", "envs": {"A": "1"}},
  "extra": {"type": "stdio", "command": "w", "frobnicate": 1}
}}
"#,
        ),
        (
            "cursor",
            ".cursor/mcp.json",
            r#"{"mcpServers": {
  "ok": {"command": "npx", "args": ["-y", "ok"], "env": {}},
  "odd": {"command": "z", "envs": {"A": "1"}},
  "extra": {"command": "w", "frobnicate": 1}
}}
"#,
        ),
    ];
    for (client, file, content) in cases {
        let e = Env::new();
        e.write(file, content);
        let imported = import(&e, client);
        e.manifest(&imported.manifest);
        let (_, doc) = e.json(&["plan", "--adopt"]);
        let ops = ops(&doc);
        let names: Vec<String> = serde_json::from_str::<Value>(content)
            .unwrap()
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        for n in &names {
            let refused = imported.stderr.lines().any(|l| {
                l.contains(&format!("server `{n}`"))
                    && l.ends_with("adopting this entry as it is will be refused as a conflict")
            });
            let op = if refused { "conflict" } else { "adopt" };
            assert!(
                ops.contains(&format!("{op} {n}")),
                "{client} {n}: import says {op}\n{}\n{doc}",
                imported.stderr
            );
            assert_eq!(refused, n == "odd", "{client} {n}: {}", imported.stderr);
        }
        // A field the client does not read is the user's: adopted with the entry, said so.
        assert!(
            imported.stderr.contains(&format!(
                "server `extra`: `frobnicate` is not read by {client}"
            )),
            "{client}: {}",
            imported.stderr
        );
    }
    // opencode's `timeout` stays as the user wrote it through an update.
    let e = Env::new();
    e.write(
        "opencode.json",
        "{\"mcp\": {\"slow\": {\"type\": \"local\", \"command\": [\"uvx\", \"y\"], \"timeout\": 10000}}}\n",
    );
    let imported = import(&e, "opencode");
    assert!(
        imported
            .stderr
            .contains("`timeout` is opencode's own setting"),
        "{}",
        imported.stderr
    );
    e.manifest(&imported.manifest);
    assert_eq!(e.run(&["apply", "--yes", "--adopt"]).status.code(), Some(0));
    e.manifest(
        &imported
            .manifest
            .replace(
                "command = \"uvx\"",
                "command = \"uvx\"\nargs = [\"y\", \"--fast\"]",
            )
            .replace("args = [\"y\"]\n", ""),
    );
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let v: Value = serde_json::from_str(&e.text("opencode.json")).unwrap();
    assert_eq!(v["mcp"]["slow"]["timeout"], 10000, "{v}");
    assert_eq!(
        v["mcp"]["slow"]["command"],
        serde_json::json!(["uvx", "y", "--fast"]),
        "{v}"
    );
}

/// Smaller: a secret's variable does not repeat the server's name its header already holds;
/// Goose's `sse` extensions are skipped with the truth (Goose no longer starts them); a file
/// of entries that are all skipped counts its entries, not its warnings.
#[test]
fn variable_names_goose_sse_and_skipped_counts() {
    let goose = "extensions:\n  context7:\n    enabled: true\n    name: context7\n    type: streamable_http\n    uri: https://mcp.context7.com/mcp\n    headers:\n      CONTEXT7_API_KEY: ctx7sk-c0rpusFAKE-0123456789abcdef0123\n    timeout: 300\n  old:\n    enabled: true\n    name: old\n    type: sse\n    uri: http://localhost:8000/sse\n";
    let e = Env::new();
    e.write("../home/.config/goose/config.yaml", goose);
    let imported = import(&e, "goose");
    assert!(
        imported.manifest.contains("${CONTEXT7_API_KEY}"),
        "{}",
        imported.manifest
    );
    assert!(
        !imported.manifest.contains("CONTEXT7_CONTEXT7"),
        "{}",
        imported.manifest
    );
    assert!(
        imported
            .stderr
            .contains("Goose `sse` extension, which Goose no longer starts"),
        "{}",
        imported.stderr
    );
    let e = Env::new();
    e.write(
        ".zed/settings.json",
        r#"{"context_servers": {"a": {"settings": {"x": 1}}, "b": {"source": "extension", "settings": {}}}}"#,
    );
    let out = e.run(&["import", "--client", "zed"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("(2 entries skipped, see the warnings)"),
        "{stderr}"
    );
}

/// Class 3, the other spellings a client reads: Zed's legacy `command: {path, args, env}`
/// object (migrated in memory on every load) and Grok CLI's legacy flat entry beside the nested
/// `transport` mcpconf writes are the same entries: imported, adopted as they are (the file
/// left byte for byte), planned clean after, and written back in the spelling mcpconf writes.
#[test]
fn an_older_spelling_a_client_reads_is_the_same_entry() {
    let (imported, written) = round_trip(
        "zed",
        ".zed/settings.json",
        r#"{"context_servers": {
  "ctx": {"command": {"path": "/opt/ctx", "args": ["run"], "env": {"LEVEL": "1"}}, "settings": {"x": true}},
  "new": {"command": "npx", "args": ["-y", "srv"]}
}}
"#,
    );
    assert!(
        imported.manifest.contains("command = \"/opt/ctx\"")
            && imported.manifest.contains("args = [\"run\"]"),
        "{}",
        imported.manifest
    );
    assert_eq!(written["context_servers"]["ctx"]["command"], "/opt/ctx");
    assert_eq!(written["context_servers"]["ctx"]["env"]["LEVEL"], "1");

    let (imported, written) = round_trip(
        "grok-cli",
        ".grok/settings.json",
        r#"{"mcpServers": {
  "git": {"name": "git", "command": "uvx", "args": ["mcp-server-git"], "env": {"A": "b"}},
  "fs": {"name": "fs", "transport": {"type": "stdio", "command": "npx", "args": ["fs"]}}
}}
"#,
    );
    assert!(!imported.stderr.contains("refused"), "{}", imported.stderr);
    assert_eq!(
        written["mcpServers"]["git"]["transport"]["command"], "uvx",
        "{written}"
    );

    // Another value in the old spelling is still a conflict, named.
    let e = Env::new();
    e.write(
        ".grok/settings.json",
        r#"{"mcpServers": {"git": {"name": "git", "command": "uvx", "args": ["other"]}}}"#,
    );
    e.manifest(
        "owner = \"team\"\n[servers.git]\ncommand = \"uvx\"\nargs = [\"mcp-server-git\"]\n\n[[targets]]\nclient = \"grok-cli\"\n",
    );
    let (exit, doc) = e.json(&["apply", "--yes", "--adopt"]);
    assert_eq!(exit, 3, "{doc}");
    assert!(ops(&doc).contains(&"conflict git".to_string()), "{doc}");
}

/// Class 4, fields a client does not read: a field it does not document (Cursor's
/// `alwaysAllow`, Cline's) and a launch's `env` beside a `url` (no process is started) change
/// nothing the client does, so they are the user's: imported with a warning that says so,
/// adopted as they are, kept byte for byte by an update, outside the proof (added later, no
/// drift); lint still reports the unknown field. A field that says what runs is never set
/// aside.
#[test]
fn fields_a_client_does_not_read_are_the_users() {
    let content = r#"{"mcpServers": {
  "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "alwaysAllow": ["fetch"]},
  "sse-local": {"url": "http://localhost:3000/sse", "env": {"API_KEY": "value"}}
}}
"#;
    let (imported, _) = round_trip("cursor", ".cursor/mcp.json", content);
    for (server, field) in [("fetch", "alwaysAllow"), ("sse-local", "env")] {
        assert!(
            imported.stderr.contains(&format!(
                "server `{server}`: `{field}` is not read by cursor"
            )),
            "{}",
            imported.stderr
        );
    }
    let e = Env::new();
    e.write(".cursor/mcp.json", content);
    let manifest = import(&e, "cursor").manifest;
    e.manifest(&manifest);
    assert_eq!(e.run(&["apply", "--yes", "--adopt"]).status.code(), Some(0));
    // Lint still names the field Cursor does not know.
    let file = e.path(".cursor/mcp.json");
    let (_, doc) = e.json(&["lint", file.to_str().unwrap()]);
    assert!(doc.to_string().contains("unknown-field"), "{doc}");
    // Another unread field added later: still ours, no drift.
    e.write(
        ".cursor/mcp.json",
        content.replace("\"alwaysAllow\"", "\"note\": \"mine\", \"alwaysAllow\""),
    );
    let out = e.run(&["plan", "--check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // An update keeps them byte for byte.
    e.manifest(&manifest.replace("mcp-server-fetch", "mcp-server-fetch2"));
    assert_eq!(e.run(&["apply", "--yes"]).status.code(), Some(0));
    let now = e.text(".cursor/mcp.json");
    assert!(
        now.contains("\"note\": \"mine\"")
            && now.contains("\"alwaysAllow\"")
            && now.contains("mcp-server-fetch2"),
        "{now}"
    );
    // A working directory says what runs: added to an owned entry, it is drift.
    e.write(
        ".cursor/mcp.json",
        now.replace("\"note\"", "\"cwd\": \"/srv\", \"note\""),
    );
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert!(ops(&doc).contains(&"drift fetch".to_string()), "{doc}");
}
