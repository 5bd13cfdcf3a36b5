//! Qwen Code as an oracle (moved out of `real_clients.rs` unchanged).

use super::gemini::gemini_list;
use super::*;

/// `qwen mcp list` prints what Qwen Code read: each server's command line (references in
/// `args` expanded) or URL, and the transport it will use (`httpUrl` is streamable HTTP).
fn qwen_check_list(w: &World) -> String {
    let out = w.client("qwen", &["mcp", "list"]);
    assert_eq!(
        gemini_list(&out),
        vec![
            (
                "local-tool".to_string(),
                format!("{} serve --label two words", w.command()),
                "stdio".to_string()
            ),
            ("remote-api".to_string(), w.http.url(), "http".to_string()),
        ],
        "{out}"
    );
    out
}

#[test]
fn qwen_project_scope() {
    let Some(bin) = bin_dir("qwen_project_scope") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"qwen\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    let file = w.root().join(".qwen/settings.json");
    let doc = w.read_json(&file);
    assert_eq!(
        doc["mcpServers"]["remote-api"],
        json!({"httpUrl": w.http.url(),
               "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}"},
               "includeTools": ["search", "fetch"]})
    );
    assert_eq!(
        doc["mcpServers"]["local-tool"]["env"],
        json!({"API_KEY": "${API_KEY}", "MODE": "fast"})
    );
    // Project servers wait for the user's approval, so Qwen Code lists them unstarted.
    let out = qwen_check_list(&w);
    assert!(out.contains("Pending approval"), "{out}");
    assert_eq!(w.status(), ours_intact("qwen"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let out = w.client("qwen", &["mcp", "list"]);
    assert!(gemini_list(&out).is_empty(), "{out}");
}

#[test]
fn qwen_user_scope() {
    let Some(bin) = bin_dir("qwen_user_scope") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"qwen\"\nscope = \"user\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    // User servers are connected while listing: the stdio server is started with the
    // declared arguments and the expanded `${API_KEY}`, the remote one gets the expanded
    // bearer token.
    qwen_check_list(&w);
    w.assert_stdio_started("qwen");
    w.assert_remote_contacted("qwen");
    // `qwen mcp add` (like `gemini mcp add`, which it forks) rewrites the user file from its
    // loaded settings, in which every reference is already expanded: the secrets land in the
    // file in clear text. Our entries no longer hash to what we wrote, so they are drifted
    // and prune refuses, writing nothing and printing neither secret.
    let file = w.home().join(".qwen/settings.json");
    w.client("qwen", &["mcp", "add", "--scope", "user", "theirs", "true"]);
    let doc = w.read_json(&file);
    assert!(doc["mcpServers"].get("theirs").is_some(), "{doc:#}");
    assert_eq!(
        doc["mcpServers"]["local-tool"]["env"]["API_KEY"],
        json!(API_KEY),
        "Qwen Code no longer writes expanded references back: update docs/clients/qwen.md"
    );
    assert_eq!(
        w.status(),
        vec![
            ("qwen".into(), "local-tool".into(), "drifted".into()),
            ("qwen".into(), "remote-api".into(), "drifted".into()),
        ]
    );
    let before = fs::read(&file).unwrap();
    let out = w.mcpconf(&["prune", "--yes", "--format", "json"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(fs::read(&file).unwrap(), before, "a refused prune wrote");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(!printed.contains(API_KEY) && !printed.contains(REMOTE_TOKEN));
}

/// Qwen Code's own saves on a project file holding our entry (issue 40, item 6): `qwen mcp
/// approve` writes its approval into `~/.qwen/mcpApprovals.json` (bound to the entry's hash)
/// and `$version` into our file; the entry stays ours, a manifest update and prune work, and
/// Qwen's approval file and `$version` outlive our entry.
#[test]
fn qwen_approve_keeps_our_entry_updatable_and_prunable() {
    let Some(bin) = bin_dir("qwen_approve_keeps_our_entry_updatable_and_prunable") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"qwen\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    let out = w.client("qwen", &["mcp", "approve", "local-tool"]);
    assert!(out.contains("Approved"), "{out}");
    let approvals = w.home().join(".qwen/mcpApprovals.json");
    let root = w.root().display().to_string();
    assert_eq!(
        w.read_json(&approvals)[&root]["local-tool"]["status"],
        json!("approved")
    );
    let file = w.root().join(".qwen/settings.json");
    let version = w.read_json(&file)["$version"].clone();
    assert!(version.is_number(), "Qwen Code no longer writes `$version`");
    assert_eq!(w.status(), ours_intact("qwen"));
    // An update after Qwen saved: applied; then prune removes exactly our entries.
    w.manifest_headers(
        "Authorization = \"Bearer ${REMOTE_TOKEN}\", X-New = \"1\"",
        "",
        "[[targets]]\nclient = \"qwen\"\n",
    );
    w.mcpconf_ok(&["apply", "--yes"]);
    assert_eq!(
        w.read_json(&file)["mcpServers"]["remote-api"]["headers"]["X-New"],
        json!("1")
    );
    w.mcpconf_ok(&["prune", "--yes"]);
    let doc = w.read_json(&file);
    assert_eq!(doc["$version"], version, "{doc:#}");
    assert!(
        doc["mcpServers"].as_object().is_none_or(|m| m.is_empty()),
        "{doc:#}"
    );
    assert!(w.read_json(&approvals)[&root]["local-tool"].is_object());
}
