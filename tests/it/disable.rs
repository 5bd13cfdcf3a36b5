//! `disable = [...]` on a project-scope target (issue 43): a server the user configured at user
//! scope is turned off for this project only, in the client's own form; mcpconf owns exactly
//! what it added (a partial entry, a name in a list) and prune gives back the bytes that were
//! there, never touching the user's own entry.

use std::fs;

use serde_json::{Value, json};

use crate::common::{Env, codes};

fn home(e: &Env, rel: &str) -> std::path::PathBuf {
    e.base.join("home").join(rel)
}

fn write_home(e: &Env, rel: &str, text: &str) -> std::path::PathBuf {
    let p = home(e, rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, text).unwrap();
    p
}

fn manifest(target: &str) -> String {
    format!("owner = \"o\"\n\n[servers.ours]\ncommand = \"ours-mcp\"\n\n[[targets]]\n{target}\n")
}

fn ok(e: &Env, args: &[&str]) -> Value {
    let (code, doc) = e.json(args);
    assert_eq!(code, 0, "{args:?}: {doc:#}");
    doc
}

fn notes(doc: &Value) -> String {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["notes"].as_array().cloned().unwrap_or_default())
        .map(|n| n.as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn codex_gets_a_partial_entry_that_prune_takes_back() {
    let e = Env::new();
    let root = e.root().canonicalize().unwrap();
    let user = format!(
        "[mcp_servers.grafana]\ncommand = \"grafana-mcp\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        root.display()
    );
    let user_file = write_home(&e, ".codex/config.toml", &user);
    e.manifest(&manifest(
        "client = \"codex\"\nscope = \"project\"\nservers = []\ndisable = [\"grafana\"]",
    ));
    let doc = ok(&e, &["apply", "--yes"]);
    assert!(
        !notes(&doc).contains("trusted"),
        "a trusted project needs no note: {doc:#}"
    );
    let project: toml_edit::DocumentMut = e.text(".codex/config.toml").parse().unwrap();
    let entry = project["mcp_servers"]["grafana"].as_table_like().unwrap();
    assert_eq!(
        entry.iter().map(|(k, _)| k).collect::<Vec<_>>(),
        ["enabled"],
        "only the off switch, nothing of the user's entry"
    );
    assert_eq!(entry.get("enabled").and_then(|v| v.as_bool()), Some(false));
    assert_eq!(fs::read_to_string(&user_file).unwrap(), user);
    // A second apply is a no-op.
    let doc = ok(&e, &["apply", "--yes"]);
    assert_eq!(doc["changed"], false, "{doc:#}");
    let doc = ok(&e, &["prune", "--yes"]);
    assert_eq!(doc["changed"], true, "{doc:#}");
    assert!(
        !e.path(".codex/config.toml").exists(),
        "the file mcpconf created goes"
    );
    assert_eq!(fs::read_to_string(&user_file).unwrap(), user);
}

#[test]
fn codex_says_when_the_project_is_not_trusted() {
    let e = Env::new();
    write_home(
        &e,
        ".codex/config.toml",
        "[mcp_servers.grafana]\ncommand = \"g\"\n",
    );
    e.manifest(&manifest(
        "client = \"codex\"\nscope = \"project\"\nservers = []\ndisable = [\"grafana\"]",
    ));
    let doc = ok(&e, &["plan"]);
    let n = notes(&doc);
    assert!(
        n.contains("trust_level") && n.contains("trusted") && n.contains("codex"),
        "{doc:#}"
    );
}

#[test]
fn gemini_adds_our_name_to_mcp_excluded_and_prune_leaves_the_users_own() {
    let e = Env::new();
    let before = "{\n  // mine\n  \"mcp\": {\"excluded\": [\"legacy-thing\"]},\n  \"ui\": {\"theme\": \"x\"}\n}\n";
    e.write(".gemini/settings.json", before);
    e.manifest(&manifest(
        "client = \"gemini\"\nservers = [\"ours\"]\ndisable = [\"grafana\", \"jira\"]",
    ));
    ok(&e, &["apply", "--yes"]);
    let text = e.text(".gemini/settings.json");
    assert!(text.contains("// mine"), "{text}");
    let v: Value = json5_like(&text);
    assert_eq!(
        v["mcp"]["excluded"],
        json!(["legacy-thing", "grafana", "jira"])
    );
    assert_eq!(v["mcpServers"]["ours"]["command"], "ours-mcp");
    let doc = ok(&e, &["apply", "--yes"]);
    assert_eq!(doc["changed"], false, "{doc:#}");
    // One name leaves the manifest: only it leaves the file.
    e.manifest(&manifest(
        "client = \"gemini\"\nservers = [\"ours\"]\ndisable = [\"jira\"]",
    ));
    ok(&e, &["apply", "--yes"]);
    let v: Value = json5_like(&e.text(".gemini/settings.json"));
    assert_eq!(v["mcp"]["excluded"], json!(["legacy-thing", "jira"]));
    ok(&e, &["prune", "--yes"]);
    assert_eq!(e.text(".gemini/settings.json"), before);
}

#[test]
fn gemini_creates_the_list_and_prune_deletes_the_file_it_created() {
    let e = Env::new();
    e.manifest(&manifest(
        "client = \"gemini\"\nservers = []\ndisable = [\"grafana\", \"jira\"]",
    ));
    ok(&e, &["apply", "--yes"]);
    let v: Value = json5_like(&e.text(".gemini/settings.json"));
    assert_eq!(v, json!({"mcp": {"excluded": ["grafana", "jira"]}}));
    let (_, st) = e.json(&["status"]);
    assert_eq!(st["records"].as_array().map(Vec::len), Some(2), "{st:#}");
    ok(&e, &["prune", "--yes"]);
    assert!(!e.path(".gemini/settings.json").exists());
    assert!(
        !e.path(".gemini").exists(),
        "the directory mcpconf made goes"
    );
}

#[test]
fn claude_code_lists_the_name_in_the_projects_disabled_servers() {
    let e = Env::new();
    let root = e.root().canonicalize().unwrap();
    let user = format!(
        "{{\n  \"mcpServers\": {{\"grafana\": {{\"type\": \"stdio\", \"command\": \"g\"}}}},\n  \"projects\": {{\n    \"{}\": {{\"disabledMcpServers\": [\"mine\"], \"allowedTools\": []}}\n  }}\n}}\n",
        root.display()
    );
    let user_file = write_home(&e, ".claude.json", &user);
    e.manifest(&manifest(
        "client = \"claude-code\"\nscope = \"project\"\nservers = [\"ours\"]\ndisable = [\"grafana\"]",
    ));
    ok(&e, &["apply", "--yes"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&user_file).unwrap()).unwrap();
    let key = root.display().to_string();
    assert_eq!(
        v["projects"][&key]["disabledMcpServers"],
        json!(["mine", "grafana"])
    );
    assert_eq!(
        v["mcpServers"]["grafana"],
        json!({"type": "stdio", "command": "g"})
    );
    assert!(e.text(".mcp.json").contains("ours-mcp"));
    let doc = ok(&e, &["apply", "--yes"]);
    assert_eq!(doc["changed"], false, "{doc:#}");
    ok(&e, &["prune", "--yes"]);
    assert_eq!(fs::read_to_string(&user_file).unwrap(), user);
}

#[test]
fn claude_code_keys_a_worktree_by_its_main_repository() {
    let e = Env::new();
    // A repository with a linked worktree, laid out as `git worktree add` does.
    let main = e.base.join("main-repo");
    fs::create_dir_all(main.join(".git/worktrees/root")).unwrap();
    fs::write(main.join(".git/worktrees/root/commondir"), "../..\n").unwrap();
    fs::write(
        e.root().join(".git"),
        format!("gitdir: {}\n", main.join(".git/worktrees/root").display()),
    )
    .unwrap();
    e.manifest(&manifest(
        "client = \"claude-code\"\nscope = \"local\"\nservers = []\ndisable = [\"grafana\"]",
    ));
    ok(&e, &["apply", "--yes"]);
    let v: Value =
        serde_json::from_str(&fs::read_to_string(home(&e, ".claude.json")).unwrap()).unwrap();
    let key = main.canonicalize().unwrap().display().to_string();
    assert_eq!(
        v["projects"][&key]["disabledMcpServers"],
        json!(["grafana"]),
        "{v:#}"
    );
    ok(&e, &["prune", "--yes"]);
    assert!(!home(&e, ".claude.json").exists());
}

#[test]
fn opencode_gets_a_partial_entry() {
    let e = Env::new();
    e.write("opencode.json", "{\n  \"theme\": \"x\"\n}\n");
    e.manifest(&manifest(
        "client = \"opencode\"\nservers = []\ndisable = [\"grafana\"]",
    ));
    ok(&e, &["apply", "--yes"]);
    let v: Value = serde_json::from_str(&e.text("opencode.json")).unwrap();
    assert_eq!(v["mcp"], json!({"grafana": {"enabled": false}}));
    ok(&e, &["prune", "--yes"]);
    assert_eq!(e.text("opencode.json"), "{\n  \"theme\": \"x\"\n}\n");
}

#[test]
fn a_users_own_project_entry_of_the_name_is_a_conflict() {
    let e = Env::new();
    e.write(
        "opencode.json",
        "{\"mcp\": {\"grafana\": {\"type\": \"local\", \"command\": [\"g\"]}}}",
    );
    e.manifest(&manifest(
        "client = \"opencode\"\nservers = []\ndisable = [\"grafana\"]",
    ));
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(codes(&doc), ["conflict"], "{doc:#}");
}

#[test]
fn a_client_without_a_per_project_switch_refuses_the_target() {
    let e = Env::new();
    e.manifest(&manifest(
        "client = \"cursor\"\ndisable = [\"grafana\"]\nservers = [\"ours\"]",
    ));
    let (code, doc) = e.json(&["plan"]);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(codes(&doc), ["cannot-express"], "{doc:#}");
    let msg = doc["errors"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("`cursor`") && msg.contains("`disable`") && msg.contains("`grafana`"),
        "{msg}"
    );
    assert!(!e.path(".cursor/mcp.json").exists());
}

#[test]
fn manifest_errors_name_the_fix() {
    let e = Env::new();
    for (target, needle) in [
        (
            "client = \"gemini\"\nscope = \"user\"\ndisable = [\"grafana\"]\nservers = [\"ours\"]",
            "project-scope target",
        ),
        (
            "client = \"codex\"\ndisable = [\"grafana\"]\nservers = [\"ours\"]",
            "scope is `user`",
        ),
        (
            "client = \"gemini\"\ndisable = [\"ours\"]",
            "which this target also writes",
        ),
        (
            "client = \"gemini\"\nservers = [\"ours\"]\ndisable = [\"ours\"]",
            "which this target also writes",
        ),
        (
            "client = \"gemini\"\ndisabel = [\"x\"]",
            "did you mean `disable`?",
        ),
        ("client = \"gemini\"\ndisable = []", "turns nothing off"),
        (
            "client = \"gemini\"\nservers = [\"ours\"]\ndisable = [\"a\", \"a\"]",
            "twice",
        ),
    ] {
        e.manifest(&manifest(target));
        let (code, doc) = e.json(&["plan"]);
        assert_eq!(code, 2, "{target}: {doc:#}");
        assert_eq!(codes(&doc), ["manifest-error"], "{target}: {doc:#}");
        let msg = doc["errors"][0]["message"].as_str().unwrap();
        assert!(msg.contains(needle), "{target}: {msg}");
    }
}

/// The JSON of a Gemini settings file (comments allowed).
fn json5_like(text: &str) -> Value {
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&stripped).unwrap()
}
