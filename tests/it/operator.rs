//! Operator experience: saved plans, import / adopt / release, completions, man page, version.

use std::fs;

use serde_json::Value;

use crate::common::{Env, mcpconf_cmd};

const MANIFEST: &str = r#"owner = "openab"

[servers.openab]
url = "http://127.0.0.1:8848/mcp"
headers = { Authorization = "Bearer sk-live-PLANSECRET-1" }

[[targets]]
client = "cursor"
"#;

#[test]
fn a_saved_plan_is_applied_exactly_or_refused_as_stale() {
    let e = Env::new();
    e.manifest(MANIFEST);
    e.write(".cursor/mcp.json", "{\"mcpServers\": {}}\n");
    let plan = e.base.join("plan.json");
    let out = e.run(&["plan", "--out", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = fs::read_to_string(&plan).unwrap();
    assert!(
        !text.contains("PLANSECRET"),
        "a saved plan holds no secret: {text}"
    );
    let saved: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(saved["files"][0]["actions"][0]["op"], "add");
    assert!(
        saved["files"][0]["before"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert!(
        !e.text(".cursor/mcp.json").contains("openab"),
        "plan --out writes no target"
    );

    // A target changed since: stale, nothing written.
    e.write(".cursor/mcp.json", "{\"mcpServers\": {}, \"x\": 1}\n");
    let out = mcpconf_cmd()
        .args(["apply", plan.to_str().unwrap(), "--yes", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["errors"][0]["code"], "stale-plan");
    assert_eq!(
        e.text(".cursor/mcp.json"),
        "{\"mcpServers\": {}, \"x\": 1}\n"
    );

    // A fresh plan applies, from any directory: the plan carries its settings.
    let out = e.run(&["plan", "--out", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let out = mcpconf_cmd()
        .current_dir("/")
        .args(["apply", plan.to_str().unwrap(), "--yes", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(e.text(".cursor/mcp.json").contains("\"openab\""));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("PLANSECRET"));

    // The manifest changed since: stale.
    let out = e.run(&["plan", "--out", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    e.manifest(&MANIFEST.replace("8848", "9999"));
    let out = mcpconf_cmd()
        .args(["apply", plan.to_str().unwrap(), "--yes", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["errors"][0]["code"], "stale-plan");
}

#[test]
fn import_then_adopt_then_check_reports_no_changes() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "cursor",
            ".cursor/mcp.json",
            "{\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"npx\", \"args\": [\"-y\", \"gh-mcp\"], \"env\": {\"GITHUB_TOKEN\": \"${env:GITHUB_TOKEN}\", \"COST\": \"$${5}\"}},\n    \"api\": {\"url\": \"https://api.example/mcp\", \"headers\": {\"Authorization\": \"Bearer ${env:API_TOKEN}\"}}\n  }\n}\n",
        ),
        (
            "claude-code",
            ".mcp.json",
            "{\"mcpServers\": {\"a\": {\"type\": \"stdio\", \"command\": \"x\", \"args\": [\"${HOME}/bin\"]}, \"b\": {\"type\": \"sse\", \"url\": \"https://h/sse\"}}}\n",
        ),
        (
            "opencode",
            "opencode.json",
            "{\n  // mine\n  \"mcp\": {\"a\": {\"type\": \"local\", \"command\": [\"x\", \"--y\"], \"environment\": {\"T\": \"{env:T}\"}}},\n}\n",
        ),
        (
            "codex",
            "../home/.codex/config.toml",
            "[mcp_servers.a]\ncommand = \"x\"\nenv_vars = [\"T\"]\n\n[mcp_servers.b]\nurl = \"https://h/mcp\"\nbearer_token_env_var = \"TOK\"\nenabled_tools = [\"one\"]\n",
        ),
    ];
    for (client, file, content) in cases {
        let e = Env::new();
        e.write(file, content);
        let out = e.run(&["import", "--client", client, "--owner", "team"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{client}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let manifest = String::from_utf8(out.stdout).unwrap();
        assert!(
            manifest.contains(&format!("client = \"{client}\"")),
            "{manifest}"
        );
        e.manifest(&manifest);
        let (exit, doc) = e.json(&["apply", "--yes", "--adopt"]);
        assert_eq!(exit, 0, "{client}: {manifest}\n{doc}");
        let ops: Vec<&str> = doc["files"][0]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["op"].as_str().unwrap())
            .collect();
        assert!(
            ops.iter().all(|o| *o == "adopt"),
            "{client}: {ops:?}\n{manifest}"
        );
        assert_eq!(
            e.read(file),
            content.as_bytes(),
            "{client}: adopt writes nothing"
        );
        let out = e.run(&["plan", "--check"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{client}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        // Owned now: prune removes them.
        let (exit, _) = e.json(&["prune", "--yes"]);
        assert_eq!(exit, 0);
        assert_ne!(
            e.read(file),
            content.as_bytes(),
            "{client}: adopted entries are owned"
        );
    }
}

#[test]
fn import_replaces_literal_secrets_by_references() {
    let e = Env::new();
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"api\": {\"url\": \"https://h/mcp\", \"headers\": {\"Authorization\": \"Bearer sk-live-IMPORTSECRET\"}}, \"gh\": {\"command\": \"x\", \"env\": {\"GITHUB_TOKEN\": \"ghp_IMPORTSECRET2\"}}}}\n",
    );
    let out = e.run(&["import", "--client", "cursor"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stdout.contains("IMPORTSECRET") && !stderr.contains("IMPORTSECRET"));
    assert!(
        stdout.contains("Authorization = \"Bearer ${API_TOKEN}\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("GITHUB_TOKEN = \"${GITHUB_TOKEN}\""),
        "{stdout}"
    );
    assert!(
        stderr.contains("set API_TOKEN") && stderr.contains("set GITHUB_TOKEN"),
        "{stderr}"
    );
}

/// The next steps name the variables import made up (their values are in the file now)
/// apart from those the entries already referred to (nothing was replaced for them).
#[test]
fn import_next_steps_tell_made_up_references_from_held_ones() {
    let e = Env::new();
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"gh\": {\"command\": \"x\", \"env\": {\"GITHUB_TOKEN\": \"ghp_IMPORTSECRET3\", \"HELD_KEY\": \"${env:HELD_KEY}\"}}}}\n",
    );
    let out = e.run(&["import", "--client", "cursor"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let export = stderr
        .lines()
        .find(|l| l.trim_start().starts_with("export "))
        .unwrap_or_else(|| panic!("no export line: {stderr}"));
    assert!(
        export.contains("GITHUB_TOKEN")
            && !export.contains("HELD_KEY")
            && export.contains("replaced those literals"),
        "{stderr}"
    );
    let held = stderr
        .lines()
        .find(|l| l.contains("HELD_KEY") && !l.starts_with("warning"))
        .unwrap_or_else(|| panic!("HELD_KEY not named: {stderr}"));
    assert!(
        held.contains("already referred") && !held.contains("GITHUB_TOKEN"),
        "{stderr}"
    );
    assert!(!stderr.contains("IMPORTSECRET3"));
}

#[test]
fn release_forgets_ownership_without_touching_files() {
    let e = Env::new();
    e.manifest(&MANIFEST.replace("sk-live-PLANSECRET-1", "${TOKEN}"));
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    let before = e.read(".cursor/mcp.json");
    let out = e.run(&["release", "openab"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(e.read(".cursor/mcp.json"), before);
    // The entry is the user's now: prune leaves it, apply sees an unowned match.
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0);
    assert!(
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["actions"] == serde_json::json!([])),
        "{doc}"
    );
    assert_eq!(e.read(".cursor/mcp.json"), before);
    let (_, doc) = e.json(&["plan"]);
    assert_eq!(doc["files"][0]["actions"][0]["op"], "unowned-match");
    // Releasing what is not there: exit 2 with the closest name.
    e.json(&["apply", "--yes", "--adopt"]);
    let out = e.run(&["release", "openba"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `openab`"));
}

#[test]
fn completions_man_page_and_version() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = mcpconf_cmd().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("mcpconf") && text.contains("apply") && text.contains("lock-timeout"),
            "{shell}"
        );
    }
    let out = mcpconf_cmd().arg("man").output().unwrap();
    let man = String::from_utf8(out.stdout).unwrap();
    assert!(
        man.starts_with(".ie") || man.contains(".TH mcpconf"),
        "{man}"
    );
    assert!(man.contains("plan") && man.contains("prune"));
    let out = mcpconf_cmd().arg("--version").output().unwrap();
    let v = String::from_utf8(out.stdout).unwrap();
    assert!(
        v.starts_with(&format!("mcpconf {} (", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
}

const AGENTS: &str =
    "owner = \"o\"\n[servers.db]\ncommand = \"db-mcp\"\n[[targets]]\nclient = \"kiro-agent\"\n";

/// One broken agent file among good ones (issue 41): a glob target refuses it (it would write
/// there) until the target excludes it; a prune, which has nothing of ours in it, leaves it.
#[test]
fn a_broken_agent_file_is_excluded_by_the_target_and_left_alone_by_prune() {
    let e = Env::new();
    e.manifest(AGENTS);
    let good = "{\n  \"name\": \"dev\",\n  \"tools\": [\"@builtin\"],\n  \"mcpServers\": {}\n}\n";
    let broken = "{\n  \"name\": \"wip\",\n  \"tools\": [\n";
    e.write(".kiro/agents/dev.json", good);
    e.write(".kiro/agents/wip.json", broken);
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(e.text(".kiro/agents/dev.json"), good, "nothing is written");

    e.manifest(&format!("{AGENTS}exclude = [\".kiro/agents/wip*.json\"]\n"));
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 0, "{doc:#}");
    let dev: Value = serde_json::from_str(&e.text(".kiro/agents/dev.json")).unwrap();
    assert_eq!(dev["mcpServers"]["db"]["command"], "db-mcp");
    assert_eq!(e.text(".kiro/agents/wip.json"), broken);
    let files: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(files.iter().all(|f| !f.ends_with("wip.json")), "{files:?}");

    // Without the exclude again: prune has nothing of ours in the broken file and leaves it.
    e.manifest(AGENTS);
    let (code, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(e.text(".kiro/agents/dev.json"), good, "our entry is gone");
    assert_eq!(e.text(".kiro/agents/wip.json"), broken);
    assert!(doc.to_string().contains("prune leaves it alone"), "{doc:#}");
}

/// `import --all` and a glob client (issue 41): every client file into one manifest, each
/// server once, one target per file; what it prints plans clean against the files it read.
#[test]
fn import_all_files_into_one_manifest_that_plans_clean() {
    let e = Env::new();
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"db\": {\"command\": \"db-mcp\"}, \"web\": {\"url\": \"https://web.example.com/mcp\"}}}\n",
    );
    e.write(
        ".mcp.json",
        "{\"mcpServers\": {\"db\": {\"type\": \"stdio\", \"command\": \"db-mcp\"}, \"git\": {\"type\": \"stdio\", \"command\": \"git-mcp\"}, \"web\": {\"type\": \"stdio\", \"command\": \"other-web\"}}}\n",
    );
    e.write(
        ".kiro/agents/one.json",
        "{\"name\": \"one\", \"mcpServers\": {\"docs\": {\"command\": \"docs-mcp\"}}}\n",
    );
    e.write(
        ".kiro/agents/two.json",
        "{\"name\": \"two\", \"mcpServers\": {\"fs\": {\"command\": \"fs-mcp\"}}}\n",
    );
    let (code, doc) = e.json(&["import", "--all"]);
    assert_eq!(code, 0, "{doc:#}");
    let text = doc["manifest"].as_str().unwrap();
    let m: toml_edit::DocumentMut = text.parse().unwrap();
    let mut servers: Vec<&str> = m["servers"]
        .as_table()
        .unwrap()
        .iter()
        .map(|(k, _)| k)
        .collect();
    servers.sort_unstable();
    assert_eq!(servers, ["db", "docs", "fs", "git", "web"], "{text}");
    let targets = m["targets"].as_array_of_tables().unwrap();
    let of = |client: &str, path: Option<&str>| -> Vec<String> {
        targets
            .iter()
            .find(|t| {
                t["client"].as_str() == Some(client)
                    && t.get("path").and_then(|p| p.as_str()) == path
            })
            .unwrap_or_else(|| panic!("no {client} {path:?} target in {text}"))["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    // Claude Code's files come first (the order of `mcpconf clients`); Cursor's `web` differs
    // from Claude Code's: left out of Cursor's target, said so.
    assert_eq!(of("claude-code", None), ["db", "git", "web"]);
    assert_eq!(of("cursor", None), ["db"]);
    assert!(
        doc["warnings"].to_string().contains("`web` is left out"),
        "{doc:#}"
    );
    assert_eq!(of("kiro-agent", Some(".kiro/agents/one.json")), ["docs"]);
    assert_eq!(of("kiro-agent", Some(".kiro/agents/two.json")), ["fs"]);
    // It plans clean against the files it came from: adopt only.
    e.manifest(text);
    let (code, plan) = e.json(&["plan", "--adopt"]);
    assert_eq!(code, 0, "{plan:#}");
    let ops: Vec<String> = plan["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["actions"].as_array().unwrap().iter())
        .map(|a| a["op"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !ops.is_empty() && ops.iter().all(|o| o == "adopt"),
        "{ops:?}"
    );

    // A glob client alone: every agent file.
    let (code, doc) = e.json(&["import", "--client", "kiro-agent"]);
    assert_eq!(code, 0, "{doc:#}");
    let text = doc["manifest"].as_str().unwrap();
    assert!(
        text.contains("[servers.docs]") && text.contains("[servers.fs]"),
        "{text}"
    );
}
