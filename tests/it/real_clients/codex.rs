//! Codex as an oracle (moved out of `real_clients.rs` unchanged).

use super::*;

fn codex_list(w: &World) -> Vec<Value> {
    let out = w.client("codex", &["mcp", "list", "--json"]);
    // Codex may print a warning line before the document.
    let start = out
        .find('[')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let end = out.rfind(']').unwrap();
    let v: Value = serde_json::from_str(&out[start..=end]).unwrap_or_else(|e| {
        panic!("codex mcp list --json: {e}\n{out}");
    });
    v.as_array().unwrap().clone()
}

fn codex_names(list: &[Value]) -> BTreeSet<String> {
    list.iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

fn codex_assert_ours(w: &World, list: &[Value]) {
    let by = |n: &str| {
        list.iter()
            .find(|s| s["name"] == n)
            .unwrap_or_else(|| panic!("{n} missing from {list:#?}"))
    };
    let local = by("local-tool");
    assert_eq!(local["enabled"], json!(true));
    assert_eq!(
        local["transport"],
        json!({
            "type": "stdio",
            "command": w.command(),
            "args": ARGS,
            "env": {"MODE": "fast"},
            "env_vars": ["API_KEY"],
            "cwd": null
        })
    );
    let remote = by("remote-api");
    assert_eq!(remote["transport"]["type"], "streamable_http");
    assert_eq!(remote["transport"]["url"], json!(w.http.url()));
    assert_eq!(remote["transport"]["bearer_token_env_var"], "REMOTE_TOKEN");
    assert_eq!(remote["transport"]["http_headers"], Value::Null);
    assert_eq!(remote["transport"]["env_http_headers"], Value::Null);
    assert_eq!(remote["auth_status"], "bearer_token");

    let get = w.client("codex", &["mcp", "get", "remote-api", "--json"]);
    let start = get.find('{').unwrap();
    let v: Value = serde_json::from_str(&get[start..=get.rfind('}').unwrap()]).unwrap();
    assert_eq!(v["enabled_tools"], json!(["search", "fetch"]), "{v:#}");
}

#[test]
fn codex_user_scope_under_codex_home() {
    let Some(bin) = bin_dir("codex_user_scope_under_codex_home") else {
        return;
    };
    let w = World::new(bin);
    // A user config Codex and the user already have: a comment and a setting of their own.
    let cfg = w.home().join(".codex/config.toml");
    fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    fs::write(&cfg, "# mine\nmodel = \"o3\"\n").unwrap();
    w.manifest("[[targets]]\nclient = \"codex\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);

    let list = codex_list(&w);
    assert_eq!(codex_names(&list), set(&["local-tool", "remote-api"]));
    codex_assert_ours(&w, &list);

    // `codex mcp add` rewrites config.toml (our inline `env` table becomes a
    // `[mcp_servers.local-tool.env]` section); ownership survives it.
    w.client(
        "codex",
        &["mcp", "add", "theirs", "--env", "A=1", "--", "true"],
    );
    let text = fs::read_to_string(&cfg).unwrap();
    assert!(text.contains("[mcp_servers.theirs]"), "{text}");
    assert_eq!(w.status(), ours_intact("codex"));
    // `codex mcp remove` of another server re-saves the file too.
    w.client("codex", &["mcp", "add", "other", "--", "true"]);
    w.client("codex", &["mcp", "remove", "other"]);
    assert_eq!(w.status(), ours_intact("codex"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let list = codex_list(&w);
    assert_eq!(codex_names(&list), set(&["theirs"]));
    let text = fs::read_to_string(&cfg).unwrap();
    assert!(
        text.starts_with("# mine\nmodel = \"o3\"\n"),
        "the user's own lines changed:\n{text}"
    );
    assert!(!text.contains("local-tool") && !text.contains("remote-api"));
}

/// Codex reads TOML 1.1 (`\xHH` and `\e` escapes, multi-line inline tables), so mcpconf accepts
/// such a file for Codex instead of refusing it, and keeps those bytes as they are.
#[test]
fn codex_reads_toml_1_1_syntax_and_so_does_mcpconf() {
    let Some(bin) = bin_dir("codex_reads_toml_1_1_syntax_and_so_does_mcpconf") else {
        return;
    };
    let w = World::new(bin);
    let cfg = w.home().join(".codex/config.toml");
    fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    let mine = "[mcp_servers.mine]\ncommand = \"m\\x41\\e\"\nenv = {\n  A = \"1\",\n}\n";
    fs::write(&cfg, mine).unwrap();
    let list = codex_list(&w);
    let by = list
        .iter()
        .find(|s| s["name"] == "mine")
        .expect("codex lists it");
    assert_eq!(by["transport"]["command"], json!("mA\u{1b}"), "{list:#?}");
    w.manifest("[[targets]]\nclient = \"codex\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    let list = codex_list(&w);
    assert_eq!(
        codex_names(&list),
        set(&["local-tool", "remote-api", "mine"])
    );
    w.mcpconf_ok(&["prune", "--yes"]);
    assert_eq!(
        fs::read_to_string(&cfg).unwrap(),
        mine,
        "the TOML 1.1 bytes changed"
    );
}

#[test]
fn codex_project_scope_in_a_trusted_project() {
    let Some(bin) = bin_dir("codex_project_scope_in_a_trusted_project") else {
        return;
    };
    let w = World::new(bin);
    let cfg = w.home().join(".codex/config.toml");
    fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    fs::write(
        &cfg,
        format!(
            "[projects.{:?}]\ntrust_level = \"trusted\"\n",
            w.root().display().to_string()
        ),
    )
    .unwrap();
    w.manifest("[[targets]]\nclient = \"codex\"\nscope = \"project\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    assert!(w.root().join(".codex/config.toml").exists());
    let list = codex_list(&w);
    assert_eq!(codex_names(&list), set(&["local-tool", "remote-api"]));
    codex_assert_ours(&w, &list);
    w.mcpconf_ok(&["prune", "--yes"]);
    assert!(codex_list(&w).is_empty());
}

/// Codex's own `codex mcp remove` of its last server leaves a 0-byte `config.toml`; mcpconf
/// reads that as the empty TOML document it is and applies to it, Codex then lists our
/// servers, and prune leaves the file as Codex left it.
#[test]
fn codex_empty_file_left_by_mcp_remove_is_applied() {
    let Some(bin) = bin_dir("codex_empty_file_left_by_mcp_remove_is_applied") else {
        return;
    };
    let w = World::new(bin);
    let cfg = w.home().join(".codex/config.toml");
    fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    w.client("codex", &["mcp", "add", "theirs", "--", "true"]);
    w.client("codex", &["mcp", "remove", "theirs"]);
    assert_eq!(
        fs::read(&cfg).unwrap(),
        b"",
        "Codex no longer leaves an empty file"
    );
    w.manifest("[[targets]]\nclient = \"codex\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    let list = codex_list(&w);
    assert_eq!(codex_names(&list), set(&["local-tool", "remote-api"]));
    codex_assert_ours(&w, &list);
    assert_eq!(w.status(), ours_intact("codex"));
    w.mcpconf_ok(&["prune", "--yes"]);
    assert_eq!(fs::read(&cfg).unwrap(), b"");
}
