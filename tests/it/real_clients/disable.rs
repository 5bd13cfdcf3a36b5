//! `disable = [...]` (issue 43) seen by the real clients: inside the project the user's own
//! user-scope server is off, outside it on, and the user's file is byte-identical.

use super::*;

/// The client's output with the working directory `dir` (the project root or elsewhere).
fn client_in(w: &World, dir: &Path, prog: &str, args: &[&str]) -> String {
    let mut c = Command::new(w.bin.join(prog));
    w.env(&mut c);
    c.args(args).current_dir(dir);
    let out = run(c);
    let text = strip_ansi(&format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ));
    assert!(out.status.success(), "{prog} {args:?}:\n{text}");
    text
}

fn elsewhere(w: &World) -> PathBuf {
    let d = w.base.join("elsewhere");
    fs::create_dir_all(&d).unwrap();
    d
}

fn apply(w: &World, targets: &str) {
    w.manifest(targets);
    let out = w.mcpconf(&["apply", "--yes"]);
    assert!(out.status.success(), "{}", show(&out));
}

#[test]
fn codex_shows_the_users_server_disabled_in_the_project_only() {
    let Some(bin) = bin_dir("codex_shows_the_users_server_disabled_in_the_project_only") else {
        return;
    };
    let w = World::new(bin);
    let user = format!(
        "[mcp_servers.grafana]\ncommand = \"grafana-mcp\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        w.root().display()
    );
    fs::create_dir_all(w.home().join(".codex")).unwrap();
    fs::write(w.home().join(".codex/config.toml"), &user).unwrap();
    apply(
        &w,
        "[[targets]]\nclient = \"codex\"\nscope = \"project\"\nservers = []\ndisable = [\"grafana\"]",
    );
    let enabled = |dir: &Path| -> Value {
        let out = client_in(&w, dir, "codex", &["mcp", "list", "--json"]);
        let v: Value = serde_json::from_str(&out[out.find('[').unwrap()..=out.rfind(']').unwrap()])
            .unwrap_or_else(|e| panic!("{e}: {out}"));
        let s = v
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "grafana");
        s.unwrap_or_else(|| panic!("grafana missing: {out}"))["enabled"].clone()
    };
    assert_eq!(enabled(&w.root()), json!(false));
    assert_eq!(enabled(&elsewhere(&w)), json!(true));
    assert_eq!(
        fs::read_to_string(w.home().join(".codex/config.toml")).unwrap(),
        user
    );
    let out = w.mcpconf(&["prune", "--yes"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(enabled(&w.root()), json!(true));
}

#[test]
fn gemini_shows_the_users_server_blocked_in_the_project_only() {
    let Some(bin) = bin_dir("gemini_shows_the_users_server_blocked_in_the_project_only") else {
        return;
    };
    let w = World::new(bin);
    let user = "{\"mcpServers\": {\"grafana\": {\"command\": \"true\"}}}\n";
    fs::create_dir_all(w.home().join(".gemini")).unwrap();
    fs::write(w.home().join(".gemini/settings.json"), user).unwrap();
    apply(
        &w,
        "[[targets]]\nclient = \"gemini\"\nservers = []\ndisable = [\"grafana\"]",
    );
    let line = |dir: &Path| -> String {
        let out = client_in(&w, dir, "gemini", &["mcp", "list"]);
        out.lines()
            .find(|l| l.contains("grafana"))
            .unwrap_or_else(|| panic!("grafana missing: {out}"))
            .to_string()
    };
    assert!(line(&w.root()).contains("Blocked"), "{}", line(&w.root()));
    let out = line(&elsewhere(&w));
    assert!(!out.contains("Blocked"), "{out}");
    assert_eq!(
        fs::read_to_string(w.home().join(".gemini/settings.json")).unwrap(),
        user
    );
}

#[test]
fn opencode_shows_the_users_server_disabled_in_the_project_only() {
    let Some(bin) = bin_dir("opencode_shows_the_users_server_disabled_in_the_project_only") else {
        return;
    };
    let w = World::new(bin);
    let user = "{\"mcp\": {\"grafana\": {\"type\": \"local\", \"command\": [\"true\"]}}}\n";
    fs::create_dir_all(w.home().join(".config/opencode")).unwrap();
    fs::write(w.home().join(".config/opencode/opencode.json"), user).unwrap();
    apply(
        &w,
        "[[targets]]\nclient = \"opencode\"\nservers = []\ndisable = [\"grafana\"]",
    );
    let grafana = |dir: &Path| -> String {
        let out = client_in(&w, dir, "opencode", &["mcp", "list"]);
        out.lines()
            .find(|l| l.contains("grafana"))
            .unwrap_or_else(|| panic!("grafana missing: {out}"))
            .to_string()
    };
    assert!(
        grafana(&w.root()).contains("disabled"),
        "{}",
        grafana(&w.root())
    );
    let out = grafana(&elsewhere(&w));
    assert!(!out.contains("disabled"), "{out}");
}

#[test]
fn claude_shows_the_users_server_disabled_in_the_project_and_its_worktree() {
    let Some(bin) =
        bin_dir("claude_shows_the_users_server_disabled_in_the_project_and_its_worktree")
    else {
        return;
    };
    if !crate::common::have("git") {
        let _ = writeln!(std::io::stderr(), "SKIPPED: no git for a worktree");
        return;
    }
    let w = World::new(bin);
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.email=o@example.invalid", "-c", "user.name=o"])
            .args(args)
            .current_dir(w.root())
            .env("HOME", w.home())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", show(&out));
    };
    git(&["init", "-q", "."]);
    git(&["commit", "-q", "--allow-empty", "-m", "init"]);
    let wt = w.base.join("wt");
    git(&["worktree", "add", "-q", wt.to_str().unwrap()]);
    let user =
        "{\n  \"mcpServers\": {\"grafana\": {\"type\": \"stdio\", \"command\": \"true\"}}\n}\n";
    fs::write(w.home().join(".claude.json"), user).unwrap();
    apply(
        &w,
        "[[targets]]\nclient = \"claude-code\"\nscope = \"local\"\nservers = []\ndisable = [\"grafana\"]",
    );
    let line = |dir: &Path| -> String {
        let out = client_in(&w, dir, "claude", &["mcp", "list"]);
        out.lines()
            .find(|l| l.contains("grafana"))
            .unwrap_or_else(|| panic!("grafana missing: {out}"))
            .to_string()
    };
    assert!(line(&w.root()).contains("Disabled"), "{}", line(&w.root()));
    assert!(line(&wt).contains("Disabled"), "{}", line(&wt));
    let out = line(&elsewhere(&w));
    assert!(!out.contains("Disabled"), "{out}");
    let out = w.mcpconf(&["prune", "--yes"]);
    assert!(out.status.success(), "{}", show(&out));
    let v: Value =
        serde_json::from_str(&fs::read_to_string(w.home().join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        v["mcpServers"]["grafana"],
        json!({"type": "stdio", "command": "true"})
    );
    assert!(!line(&w.root()).contains("Disabled"));
}
