//! `mcpconf inventory` (issue 43, contract fourth round): every MCP server configured on the
//! machine, one flat row each, across every known client file under `--root` and `--home` and
//! every scope each serves; owned entries named by their owner and state, credentials never
//! shown, switched-off entries said so; text and JSON alike.

use serde_json::Value;

use crate::common::Env;

const SECRET: &str = "sk-live-Zq8vW2nR5tY7uP3xQ1w2E3r4";

fn inventory(e: &Env) -> (i32, Vec<Value>, String) {
    let (code, doc) = e.json(&["inventory"]);
    let text = String::from_utf8_lossy(&e.run(&["inventory"]).stdout).into_owned();
    (
        code,
        doc["servers"].as_array().cloned().unwrap_or_default(),
        text,
    )
}

fn row<'a>(rows: &'a [Value], client: &str, name: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["client"] == client && r["name"] == name)
        .unwrap_or_else(|| panic!("{client}/{name} not in {rows:#?}"))
}

#[test]
fn inventory_lists_every_server_with_its_owner_state_and_no_secret() {
    let e = Env::new();
    e.manifest(
        "owner = \"team\"\n[servers.web]\ncommand = \"web-mcp\"\n[[targets]]\nclient = \"cursor\"\n[[targets]]\nclient = \"kiro\"\n",
    );
    e.write(
        ".cursor/mcp.json",
        format!("{{\"mcpServers\": {{\"mine\": {{\"command\": \"npx\", \"args\": [\"srv\", \"--api-key={SECRET}\"]}}, \"api\": {{\"url\": \"https://u:{SECRET}@h.example/mcp\"}}}}}}\n"),
    );
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    e.write(
        ".kiro/settings/mcp.json",
        e.text(".kiro/settings/mcp.json")
            .replace("\"web-mcp\"", "\"web-mcp\", \"disabled\": true"),
    );
    let (code, rows, text) = inventory(&e);
    assert_eq!(code, 0, "{rows:#?}");
    let web = row(&rows, "cursor", "web");
    assert_eq!(
        (web["owner"].as_str(), web["state"].as_str()),
        (Some("team"), Some("intact"))
    );
    assert_eq!(web["transport"], "stdio");
    assert_eq!(web["enabled"], true);
    // Kiro's own switch: still ours, and off.
    let kiro = row(&rows, "kiro", "web");
    assert_eq!(
        (kiro["state"].as_str(), kiro["enabled"].as_bool()),
        (Some("intact"), Some(false))
    );
    let mine = row(&rows, "cursor", "mine");
    assert_eq!(
        (mine["owner"].is_null(), mine["state"].as_str()),
        (true, Some("unowned"))
    );
    assert_eq!(row(&rows, "cursor", "api")["transport"], "http");
    for shown in [serde_json::to_string(&rows).unwrap(), text.clone()] {
        assert!(!shown.contains(SECRET), "{shown}");
    }
    assert!(
        text.contains("<redacted>") && text.contains("team"),
        "{text}"
    );
    // Edited since: drifted.
    e.write(
        ".cursor/mcp.json",
        e.text(".cursor/mcp.json")
            .replace("\"web-mcp\"", "\"other-mcp\""),
    );
    let (_, rows, _) = inventory(&e);
    assert_eq!(row(&rows, "cursor", "web")["state"], "drifted");
}

/// An owner's restore copies (`<owner>.restore.json`, beside its ledger) are no ledger of their
/// own: after a take-over, inventory (and lint's drift) read every ledger and exit 0.
#[test]
fn restore_copies_are_not_read_as_ledgers() {
    let e = Env::new();
    e.manifest(
        "owner = \"o\"\n[servers.web]\ncommand = \"web-mcp\"\n[[targets]]\nclient = \"cursor\"\n",
    );
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"web\": {\"command\": \"mine\"}}}\n",
    );
    assert_eq!(e.json(&["apply", "--yes", "--take-over", "web"]).0, 0);
    assert!(e.state().join("ledger/o.restore.json").exists());
    let (code, doc) = e.json(&["inventory"]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["unread"], serde_json::json!([]), "{doc:#}");
}

/// More project roots: given as directories, or every repository found under `--discover`
/// (issue 43: "project files under the given roots or discovered repositories").
#[test]
fn inventory_reads_more_roots_and_discovered_repositories() {
    let e = Env::new();
    let tree = e.base.join("src");
    let project = |rel: &str, git_file: bool, name: &str| {
        let dir = tree.join(rel);
        std::fs::create_dir_all(dir.join(".cursor")).unwrap();
        if git_file {
            std::fs::write(dir.join(".git"), "gitdir: elsewhere\n").unwrap();
        } else {
            std::fs::create_dir_all(dir.join(".git")).unwrap();
        }
        std::fs::write(
            dir.join(".cursor/mcp.json"),
            format!("{{\"mcpServers\": {{\"{name}\": {{\"command\": \"{name}-mcp\"}}}}}}\n"),
        )
        .unwrap();
    };
    project("a", false, "alpha");
    project("team/b", true, "beta");
    project("node_modules/pkg", false, "hidden");
    // Not a repository: found only when given itself.
    std::fs::create_dir_all(tree.join("loose/.cursor")).unwrap();
    std::fs::write(
        tree.join("loose/.cursor/mcp.json"),
        "{\"mcpServers\": {\"loose\": {\"command\": \"l\"}}}\n",
    )
    .unwrap();
    let names = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["inventory"];
        all.extend_from_slice(args);
        let (code, doc) = e.json(&all);
        assert_eq!(code, 0, "{doc:#}");
        let mut v: Vec<String> = doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    let t = tree.display().to_string();
    assert_eq!(names(&["--discover", &t]), ["alpha", "beta"]);
    let loose = tree.join("loose").display().to_string();
    let a = tree.join("a").display().to_string();
    assert_eq!(names(&[&loose, &a]), ["alpha", "loose"]);
    // The same file given twice is one row.
    assert_eq!(names(&[&a, "--discover", &t]), ["alpha", "beta"]);
    let missing = e.base.join("nowhere").display().to_string();
    assert_eq!(e.json(&["inventory", &missing]).0, 2);
    assert_eq!(e.json(&["inventory", "--discover", &missing]).0, 2);
}
