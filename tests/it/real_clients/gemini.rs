//! Gemini CLI as an oracle (moved out of `real_clients.rs` unchanged).

use super::*;

/// `gemini mcp list` lines `✗ name: what (transport) - Status` as (name, what, transport).
pub(super) fn gemini_list(out: &str) -> Vec<(String, String, String)> {
    let mut v = Vec::new();
    for l in out.lines() {
        let Some((head, _status)) = l.rsplit_once(" - ") else {
            continue;
        };
        let Some((_, rest)) = head.split_once(' ') else {
            continue;
        };
        let Some((name, what)) = rest.split_once(": ") else {
            continue;
        };
        let Some(open) = what.rfind(" (") else {
            continue;
        };
        v.push((
            name.to_string(),
            what[..open].trim().to_string(),
            what[open + 2..what.len() - 1].to_string(),
        ));
    }
    v.sort();
    v
}

#[test]
fn gemini_project_scope() {
    let Some(bin) = bin_dir("gemini_project_scope") else {
        return;
    };
    let w = World::new(bin);
    let sse = format!("http://127.0.0.1:{}/sse", w.http.port);
    w.manifest_with(
        &format!("[servers.events]\nurl = {sse:?}\ntransport = \"sse\"\n"),
        "[[targets]]\nclient = \"gemini\"\n",
    );
    w.mcpconf_ok(&["apply", "--yes"]);
    let file = w.root().join(".gemini/settings.json");
    let doc = w.read_json(&file);
    assert_eq!(
        doc["mcpServers"]["remote-api"],
        json!({"type": "http", "url": w.http.url(),
               "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}"},
               "includeTools": ["search", "fetch"]})
    );

    let out = w.client("gemini", &["mcp", "list"]);
    assert_eq!(
        gemini_list(&out),
        vec![
            ("events".to_string(), sse.clone(), "sse".to_string()),
            (
                "local-tool".to_string(),
                format!("{} serve --label two words", w.command()),
                "stdio".to_string()
            ),
            ("remote-api".to_string(), w.http.url(), "http".to_string()),
        ],
        "{out}"
    );
    assert!(!out.contains("deprecated"), "{out}");
    w.assert_stdio_started("gemini");
    w.assert_remote_contacted("gemini");

    // `gemini mcp add` rewrites settings.json from its *loaded* settings, in which every
    // `${VAR}` is already expanded (add.ts: `settings.forScope(scope).settings`): the secrets
    // land in the file in clear text. Our entries then no longer hash to what we wrote, so
    // mcpconf must call them drifted and refuse to prune them, writing nothing.
    w.client("gemini", &["mcp", "add", "theirs", "true"]);
    let doc = w.read_json(&file);
    assert!(doc["mcpServers"].get("theirs").is_some());
    assert_eq!(
        doc["mcpServers"]["local-tool"]["env"]["API_KEY"],
        json!(API_KEY),
        "Gemini CLI no longer writes expanded references back: update docs/clients/gemini.md"
    );
    let before = fs::read(&file).unwrap();
    assert_eq!(
        w.status(),
        vec![
            ("gemini".into(), "events".into(), "intact".into()),
            ("gemini".into(), "local-tool".into(), "drifted".into()),
            ("gemini".into(), "remote-api".into(), "drifted".into()),
        ]
    );
    let out = w.mcpconf(&["prune", "--yes", "--format", "json"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: BTreeSet<_> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes, set(&["drift"]), "{report:#}");
    assert_eq!(fs::read(&file).unwrap(), before, "a refused prune wrote");
    // Nor does the refusal print the secret Gemini wrote.
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(!printed.contains(API_KEY) && !printed.contains(REMOTE_TOKEN));
}

#[test]
fn gemini_mcp_add_in_an_untrusted_folder_drops_our_entries_and_apply_restores_them() {
    let Some(bin) = bin_dir("gemini_untrusted_folder") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"gemini\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    // In an untrusted folder Gemini CLI loads the project settings as empty, and `mcp add`
    // saves that: every other project server is gone from the file.
    w.client_env(
        "gemini",
        &["mcp", "add", "theirs", "true"],
        &[("GEMINI_CLI_TRUST_WORKSPACE", "false")],
    );
    let file = w.root().join(".gemini/settings.json");
    let names: Vec<String> = w.read_json(&file)["mcpServers"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        names,
        vec!["theirs".to_string()],
        "Gemini CLI no longer drops project servers here: update docs/clients/gemini.md"
    );
    assert_eq!(
        w.status(),
        vec![
            ("gemini".into(), "local-tool".into(), "missing".into()),
            ("gemini".into(), "remote-api".into(), "missing".into()),
        ]
    );
    // The next apply converges: both entries back, Gemini's own kept.
    w.mcpconf_ok(&["apply", "--yes"]);
    assert_eq!(w.status(), ours_intact("gemini"));
    let out = w.client("gemini", &["mcp", "list"]);
    let names: Vec<_> = gemini_list(&out).into_iter().map(|e| e.0).collect();
    assert_eq!(names, vec!["local-tool", "remote-api", "theirs"], "{out}");
}

/// Gemini CLI's own saves on a file holding our entry (issue 40, item 6):
/// - `gemini mcp add NAME … --trust` of our server writes `"trust": true` into it: client state,
///   so the entry stays ours and a manifest update keeps Gemini's `trust`;
/// - `gemini mcp disable` (0.61) finds no server at all (its `enableDisable.ts` looks the name up
///   in the `{mcpServers, blockedServerNames}` pair instead of the servers) and writes nothing;
/// - `gemini mcp add` / `remove` of other servers re-save every entry with its references
///   expanded (add.ts), our `${API_KEY}` included: drift, which `apply --take-over` repairs
///   (the contract), keeping Gemini's `trust` and printing no secret.
///
/// Then prune removes exactly our entry and leaves Gemini's own.
#[test]
fn gemini_saves_keep_our_entry_or_take_over_repairs_it() {
    let Some(bin) = bin_dir("gemini_saves_keep_our_entry_or_take_over_repairs_it") else {
        return;
    };
    let w = World::new(bin);
    let manifest = |mode: &str| {
        format!(
            "owner = \"oracle\"\n\n[servers.local-tool]\ncommand = {:?}\nargs = [\"serve\"]\nenv = {{ API_KEY = \"${{API_KEY}}\", MODE = \"{mode}\" }}\n\n[[targets]]\nclient = \"gemini\"\n",
            w.command()
        )
    };
    fs::write(w.base.join("mcpconf.toml"), manifest("fast")).unwrap();
    w.mcpconf_ok(&["apply", "--yes"]);
    let file = w.root().join(".gemini/settings.json");
    let entry = |w: &World| w.read_json(&file)["mcpServers"]["local-tool"].clone();
    let cmd = w.command();
    w.client(
        "gemini",
        &[
            "mcp",
            "add",
            "local-tool",
            &cmd,
            "serve",
            "-e",
            "API_KEY=${API_KEY}",
            "-e",
            "MODE=fast",
            "--trust",
        ],
    );
    assert_eq!(
        entry(&w),
        json!({"command": cmd, "args": ["serve"],
               "env": {"API_KEY": "${API_KEY}", "MODE": "fast"}, "trust": true})
    );
    let one = |state: &str| {
        vec![(
            "gemini".to_string(),
            "local-tool".to_string(),
            state.to_string(),
        )]
    };
    assert_eq!(w.status(), one("intact"));

    let before = fs::read(&file).unwrap();
    let out = w.client("gemini", &["mcp", "disable", "local-tool"]);
    assert!(
        out.contains("not found"),
        "Gemini CLI's `mcp disable` works now: check what it writes and extend this test\n{out}"
    );
    assert_eq!(fs::read(&file).unwrap(), before);

    // A manifest update after Gemini wrote `trust`: applied, `trust` kept.
    fs::write(w.base.join("mcpconf.toml"), manifest("slow")).unwrap();
    w.mcpconf_ok(&["apply", "--yes"]);
    let now = entry(&w);
    assert_eq!(
        (&now["env"]["MODE"], &now["trust"]),
        (&json!("slow"), &json!(true))
    );

    // Another server added and one removed: our reference comes back expanded.
    w.client("gemini", &["mcp", "add", "other", "true"]);
    w.client("gemini", &["mcp", "add", "theirs", "true", "-e", "X=1"]);
    w.client("gemini", &["mcp", "remove", "other"]);
    assert_eq!(entry(&w)["env"]["API_KEY"], json!(API_KEY));
    assert_eq!(w.status(), one("drifted"));
    let out = w.mcpconf_ok(&["apply", "--yes", "--take-over", "local-tool"]);
    assert!(
        out.contains("take-over local-tool") && out.contains("`env`"),
        "{out}"
    );
    assert!(!out.contains(API_KEY), "{out}");
    let now = entry(&w);
    assert_eq!(
        now,
        json!({"command": cmd, "args": ["serve"],
               "env": {"API_KEY": "${API_KEY}", "MODE": "slow"}, "trust": true})
    );
    assert_eq!(w.status(), one("intact"));

    w.mcpconf_ok(&["prune", "--yes"]);
    let doc = w.read_json(&file);
    assert_eq!(
        doc["mcpServers"],
        json!({"theirs": {"command": "true", "args": [], "env": {"X": "1"}}}),
        "{doc:#}"
    );
}
