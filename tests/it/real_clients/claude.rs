//! Claude Code as an oracle (moved out of `real_clients.rs` unchanged).

use super::*;

/// The server names in `claude mcp list` (lines `name: what - status`).
fn claude_list_names(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter(|l| l.contains(" - ") && !l.starts_with(' ') && !l.starts_with('['))
        .filter_map(|l| l.split_once(": ").map(|(n, _)| n.to_string()))
        .collect()
}

fn claude_scope(scope: &str, scope_line: &str) {
    let test = format!("claude_code_{scope}");
    let Some(bin) = bin_dir(&test) else { return };
    let w = World::new(bin);
    // Project servers from `.mcp.json` are only started once approved; approve them all in the
    // scratch user settings, as a user who answered the prompt would have.
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    fs::write(
        w.home().join(".claude/settings.json"),
        r#"{"enableAllProjectMcpServers": true}"#,
    )
    .unwrap();
    w.manifest(&format!(
        "[[targets]]\nclient = \"claude-code\"\nscope = \"{scope}\"\n"
    ));
    w.mcpconf_ok(&["apply", "--yes"]);
    let file = if scope == "project" {
        w.root().join(".mcp.json")
    } else {
        w.home().join(".claude.json")
    };

    let list = w.client("claude", &["mcp", "list"]);
    assert_eq!(
        claude_list_names(&list),
        set(&["local-tool", "remote-api"]),
        "{list}"
    );
    assert!(
        list.contains(&format!(
            "local-tool: {} serve --label two words - ",
            w.command()
        )),
        "{list}"
    );
    assert!(
        list.contains(&format!("remote-api: {} (HTTP) - ", w.http.url())),
        "{list}"
    );
    assert!(
        !list.contains("Missing environment variables"),
        "Claude Code did not find the referenced variables:\n{list}"
    );
    w.assert_stdio_started("claude");
    w.assert_remote_contacted("claude");

    let get = w.client("claude", &["mcp", "get", "local-tool"]);
    for want in [
        format!("Scope: {scope_line}"),
        "Type: stdio".to_string(),
        format!("Command: {}", w.command()),
        "Args: serve --label two words".to_string(),
        "API_KEY=${API_KEY}".to_string(),
        "MODE=fast".to_string(),
    ] {
        assert!(get.contains(&want), "missing {want:?} in:\n{get}");
    }
    let get = w.client("claude", &["mcp", "get", "remote-api"]);
    for want in [
        format!("Scope: {scope_line}"),
        "Type: http".to_string(),
        format!("URL: {}", w.http.url()),
        "Authorization: Bearer ${REMOTE_TOKEN}".to_string(),
    ] {
        assert!(get.contains(&want), "missing {want:?} in:\n{get}");
    }
    // The secret itself is in no file: only the reference is.
    let text = fs::read_to_string(&file).unwrap();
    assert!(!text.contains(API_KEY) && !text.contains(REMOTE_TOKEN));

    // Claude Code rewrites the file itself (re-serialises it, adds its own keys) ...
    w.client(
        "claude",
        &[
            "mcp", "add", "--scope", scope, "theirs", "-e", "X=1", "--", "true",
        ],
    );
    let doc = w.read_json(&file);
    let servers = if scope == "local" {
        &doc["projects"][w.root().display().to_string()]["mcpServers"]
    } else {
        &doc["mcpServers"]
    };
    assert!(servers.get("theirs").is_some(), "{doc:#}");
    // ... and ownership survives: our entries are still provably ours,
    assert_eq!(w.status(), ours_intact("claude-code"));
    // so prune removes exactly them and leaves the client's own entry.
    w.mcpconf_ok(&["prune", "--yes"]);
    let list = w.client("claude", &["mcp", "list"]);
    assert_eq!(claude_list_names(&list), set(&["theirs"]), "{list}");
    let get = w.client("claude", &["mcp", "get", "theirs"]);
    assert!(get.contains(&format!("Scope: {scope_line}")), "{get}");
    let doc = w.read_json(&file);
    let servers = if scope == "local" {
        &doc["projects"][w.root().display().to_string()]["mcpServers"]
    } else {
        &doc["mcpServers"]
    };
    assert_eq!(
        servers
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>(),
        vec!["theirs".to_string()],
        "{doc:#}"
    );
}

#[test]
fn claude_code_project_scope() {
    claude_scope("project", "Project config (shared via .mcp.json)");
}

#[test]
fn claude_code_user_scope() {
    claude_scope("user", "User config (available in all your projects)");
}

#[test]
fn claude_code_local_scope() {
    claude_scope("local", "Local config (private to you in this project)");
}

/// Claude Code keys a project's local servers by its repository (the main worktree's root),
/// whatever subdirectory it starts in: the local scope of a `--root` inside a repository is
/// written there, and Claude Code started in that subdirectory sees it.
#[test]
fn claude_code_local_scope_of_a_subdirectory_is_the_repositorys() {
    let Some(bin) = bin_dir("claude_code_local_scope_of_a_subdirectory_is_the_repositorys") else {
        return;
    };
    let w = World::new(bin);
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(w.root())
        .output()
        .expect("git init");
    assert!(git.status.success(), "{}", show(&git));
    let sub = w.root().join("pkg/api");
    fs::create_dir_all(&sub).unwrap();
    w.manifest("[[targets]]\nclient = \"claude-code\"\nscope = \"local\"\n");
    let mut c = mcpconf_cmd();
    w.env(&mut c);
    c.args(["apply", "--yes", "-m"])
        .arg(w.base.join("mcpconf.toml"))
        .arg("--root")
        .arg(&sub)
        .arg("--home")
        .arg(w.home())
        .arg("--state-dir")
        .arg(w.base.join("state"));
    let out = run(c);
    assert!(out.status.success(), "{}", show(&out));
    let doc = w.read_json(&w.home().join(".claude.json"));
    let key = w.root().display().to_string();
    assert!(
        doc["projects"][&key]["mcpServers"]["local-tool"].is_object(),
        "{doc:#}"
    );
    let mut c = Command::new(w.bin.join("claude"));
    w.env(&mut c);
    c.args(["mcp", "list"]).current_dir(&sub);
    let out = run(c);
    let list = strip_ansi(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        claude_list_names(&list),
        set(&["local-tool", "remote-api"]),
        "{list}"
    );
}
