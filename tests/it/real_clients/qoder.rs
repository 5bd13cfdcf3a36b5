//! Qoder CLI (npm `@qoder-ai/qodercli`) as an oracle: `qodercli mcp list` lists the servers
//! mcpconf wrote into `~/.qoder/settings.json`, each with its command line or URL and its
//! transport. One client run only: each `qodercli` start takes half a minute on the test machine.

use super::*;

/// `qodercli mcp list` rows: (name, command line or URL, transport), from lines
/// `✗ name: target (transport) - status`.
fn qoder_list(out: &str) -> Vec<(String, String, String)> {
    out.lines()
        .filter_map(|l| {
            let l = l.trim_start_matches(['✓', '✗', ' ']);
            let (name, rest) = l.split_once(": ")?;
            let (target, rest) = rest.rsplit_once(" (")?;
            let (transport, _) = rest.split_once(')')?;
            Some((name.to_string(), target.to_string(), transport.to_string()))
        })
        .collect()
}

#[test]
fn qoder_user_scope() {
    let Some(bin) = bin_dir("qoder_user_scope") else {
        return;
    };
    let w = World::new(bin);
    // No references: Qoder documents none in these files.
    let args = ARGS
        .iter()
        .map(|a| format!("{a:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    fs::write(
        w.base.join("mcpconf.toml"),
        format!(
            "owner = \"oracle\"\n\n[servers.local-tool]\ncommand = {:?}\nargs = [{args}]\nenv = {{ MODE = \"fast\" }}\n\n[servers.remote-api]\nurl = {:?}\nheaders = {{ X-Oracle = \"qoder\" }}\n\n[[targets]]\nclient = \"qoder\"\n",
            w.command(),
            w.http.url()
        ),
    )
    .unwrap();
    w.mcpconf_ok(&["apply", "--yes"]);
    let out = w.client("qoder", &["mcp", "list"]);
    assert_eq!(
        qoder_list(&out),
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
    // Where Qoder started the stdio server while listing, it did so as declared.
    for c in w.calls() {
        assert_eq!(c.args, ARGS.map(String::from).to_vec(), "{c:?}");
        assert_eq!(c.mode, "fast", "{c:?}");
    }
    assert_eq!(w.status(), ours_intact("qoder"));
    // Qoder did not rewrite the file, so prune removes the file mcpconf created.
    w.mcpconf_ok(&["prune", "--yes"]);
    let file = w.home().join(".qoder/settings.json");
    if file.exists() {
        let after = w.read_json(&file);
        assert!(
            after["mcpServers"].as_object().is_none_or(|m| m.is_empty()),
            "{after:#}"
        );
    }
}

/// Qoder's own save keeps our entry ours (issue 40): `qodercli mcp disable` writes
/// `"disabled": true` into the entry mcpconf wrote; it stays intact (client state), a manifest
/// update keeps Qoder's switch, and `prune` still removes the entry.
#[test]
fn qoder_disable_keeps_our_entry_updatable_and_prunable() {
    let Some(bin) = bin_dir("qoder_disable_keeps_our_entry_updatable_and_prunable") else {
        return;
    };
    let w = World::new(bin);
    let manifest = |mode: &str| {
        format!(
            "owner = \"oracle\"\n\n[servers.local-tool]\ncommand = {:?}\nargs = [\"serve\"]\nenv = {{ MODE = \"{mode}\" }}\n\n[[targets]]\nclient = \"qoder\"\n",
            w.command()
        )
    };
    fs::write(w.base.join("mcpconf.toml"), manifest("fast")).unwrap();
    w.mcpconf_ok(&["apply", "--yes"]);
    let file = w.home().join(".qoder/settings.json");
    w.client("qoder", &["mcp", "disable", "local-tool"]);
    let after = w.read_json(&file);
    assert_eq!(
        after["mcpServers"]["local-tool"]["disabled"],
        json!(true),
        "{after:#}"
    );
    assert_eq!(
        w.status(),
        vec![(
            "qoder".to_string(),
            "local-tool".to_string(),
            "intact".to_string()
        )]
    );
    // An update after Qoder wrote its switch: applied, and the switch kept.
    fs::write(w.base.join("mcpconf.toml"), manifest("slow")).unwrap();
    w.mcpconf_ok(&["apply", "--yes"]);
    let after = w.read_json(&file);
    let entry = &after["mcpServers"]["local-tool"];
    assert_eq!(entry["env"]["MODE"], json!("slow"), "{after:#}");
    assert_eq!(entry["disabled"], json!(true), "{after:#}");
    w.mcpconf_ok(&["prune", "--yes"]);
    let after = fs::read_to_string(&file).unwrap_or_default();
    assert!(!after.contains("local-tool"), "{after}");
}
