//! opencode as an oracle (moved out of `real_clients.rs` unchanged).

use super::*;

/// Server names in `opencode mcp list` (lines `●  ✗ name status`).
fn opencode_names(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter_map(|l| l.trim_start().strip_prefix('●'))
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect()
}

fn opencode_check(w: &World) {
    let out = w.client("opencode", &["mcp", "list"]);
    assert_eq!(
        opencode_names(&out),
        set(&["local-tool", "remote-api"]),
        "{out}"
    );
    assert!(
        out.contains(&format!("{} serve --label two words", w.command())),
        "{out}"
    );
    assert!(out.contains(&w.http.url()), "{out}");
    w.assert_stdio_started("opencode");
    w.assert_remote_contacted("opencode");
}

#[test]
fn opencode_project_scope() {
    let Some(bin) = bin_dir("opencode_project_scope") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"opencode\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    opencode_check(&w);
    // opencode rewrites the project file on start (it adds `$schema`); prune still removes
    // exactly our entries and keeps what opencode added.
    let file = w.root().join("opencode.json");
    let doc = w.read_json(&file);
    assert_eq!(w.status(), ours_intact("opencode"));
    w.mcpconf_ok(&["prune", "--yes"]);
    if doc.get("$schema").is_some() {
        let after = w.read_json(&file);
        assert_eq!(after["$schema"], doc["$schema"]);
        assert!(
            after["mcp"].as_object().is_none_or(|m| m.is_empty()),
            "{after:#}"
        );
    }
    let out = w.client("opencode", &["mcp", "list"]);
    assert!(opencode_names(&out).is_empty(), "{out}");
}

/// opencode reads a local server's `cwd` from 1.17.4 on; a target that declares the pinned
/// release gets it written, and opencode (whose schema rejects unknown fields) loads the file
/// and starts the server in that directory.
#[test]
fn opencode_reads_cwd_for_a_declared_client_version() {
    let Some(bin) = bin_dir("opencode_reads_cwd_for_a_declared_client_version") else {
        return;
    };
    let w = World::new(bin);
    let dir = w.base.join("srv/work");
    fs::create_dir_all(&dir).unwrap();
    w.manifest_with(
        &format!(
            "[servers.in-dir]\ncommand = {:?}\ncwd = {:?}\n",
            w.command(),
            dir.display().to_string()
        ),
        "[[targets]]\nclient = \"opencode\"\nclient_version = \"1.18.33\"\n",
    );
    w.mcpconf_ok(&["apply", "--yes"]);
    let doc = w.read_json(&w.root().join("opencode.json"));
    assert_eq!(
        doc["mcp"]["in-dir"]["cwd"],
        json!(dir.display().to_string())
    );
    let out = w.client("opencode", &["mcp", "list"]);
    assert_eq!(
        opencode_names(&out),
        set(&["in-dir", "local-tool", "remote-api"]),
        "{out}"
    );
    let cwds: BTreeSet<String> = fs::read_dir(w.base.join("srv/calls"))
        .unwrap()
        .flatten()
        .filter_map(|e| fs::read_to_string(e.path()).ok())
        .filter_map(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("CWD=").map(str::to_string))
        })
        .collect();
    assert!(
        cwds.contains(&dir.display().to_string()),
        "opencode did not start `in-dir` in its cwd: {cwds:?}"
    );
}

#[test]
fn opencode_user_scope() {
    let Some(bin) = bin_dir("opencode_user_scope") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"opencode\"\nscope = \"user\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    opencode_check(&w);
    // `opencode mcp add` rewrites the user file; prune removes only our entries.
    let file = w.home().join(".config/opencode/opencode.json");
    w.client(
        "opencode",
        &["mcp", "add", "theirs", "--url", "http://127.0.0.1:1/theirs"],
    );
    assert!(w.read_json(&file)["mcp"].get("theirs").is_some());
    assert_eq!(w.status(), ours_intact("opencode"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let keys: Vec<String> = w.read_json(&file)["mcp"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, vec!["theirs".to_string()]);
    let out = w.client("opencode", &["mcp", "list"]);
    assert_eq!(opencode_names(&out), set(&["theirs"]), "{out}");
}
