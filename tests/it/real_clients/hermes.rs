//! Hermes Agent (PyPI `hermes-agent[mcp]`, installed into a venv by `scripts/install-clients`)
//! as an oracle: `hermes mcp list` lists the servers mcpconf wrote into `~/.hermes/config.yaml`
//! (name, command or URL, the tool pin as "2 selected"), and `hermes mcp test` starts each one
//! the way Hermes will: the stdio server with the declared arguments and `${API_KEY}` expanded,
//! the remote one with the expanded bearer header.

use super::*;

/// Rows of `hermes mcp list`: (name, transport column, tools column). The columns are fixed
/// width (16, 30, 12) and Hermes cuts a transport longer than 28 characters to 25 + `...`.
fn hermes_rows(out: &str) -> Vec<(String, String, String)> {
    out.lines()
        .filter(|l| l.contains("enabled") || l.contains("disabled"))
        .filter_map(|l| {
            let l = l.strip_prefix("  ")?;
            let cols: Vec<char> = l.chars().collect();
            let col = |a: usize, b: usize| -> String {
                cols.get(a..b.min(cols.len()))
                    .map(|c| c.iter().collect::<String>().trim().to_string())
                    .unwrap_or_default()
            };
            Some((col(0, 16), col(17, 47), col(48, 60)))
        })
        .collect()
}

fn cut(s: &str) -> String {
    if s.chars().count() > 28 {
        format!("{}...", s.chars().take(25).collect::<String>())
    } else {
        s.to_string()
    }
}

#[test]
fn hermes_user_scope() {
    let Some(bin) = optional_bin_dir("hermes_user_scope", "hermes") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"hermes\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    let out = w.client("hermes", &["mcp", "list"]);
    assert_eq!(
        hermes_rows(&out),
        vec![
            (
                "local-tool".to_string(),
                cut(&format!("{} serve --label", w.command())),
                "all".to_string()
            ),
            (
                "remote-api".to_string(),
                cut(&w.http.url()),
                "2 selected".to_string()
            ),
        ],
        "{out}"
    );
    // `mcp test` connects as Hermes will: the recorder runs with the declared arguments and
    // the expanded reference; the remote recorder gets the expanded bearer header.
    let out = w.client("hermes", &["mcp", "test", "local-tool"]);
    assert!(
        out.contains(&format!("Transport: stdio → {}", w.command())),
        "{out}"
    );
    w.assert_stdio_started("hermes");
    let out = w.client("hermes", &["mcp", "test", "remote-api"]);
    assert!(
        out.contains(&format!("Transport: HTTP → {}", w.http.url())),
        "{out}"
    );
    w.assert_remote_contacted("hermes");
    assert_eq!(w.status(), ours_intact("hermes"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let out = w.client("hermes", &["mcp", "list"]);
    assert!(out.contains("No MCP servers configured"), "{out}");
}

/// `config.yaml` as YAML.
fn hermes_yaml(w: &World) -> yaml_rust2::Yaml {
    let text = fs::read_to_string(w.home().join(".hermes/config.yaml")).unwrap();
    yaml_rust2::YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{e}:\n{text}"))
        .remove(0)
}

fn strings(y: &yaml_rust2::Yaml) -> Vec<String> {
    y.as_vec()
        .unwrap_or_else(|| panic!("not a list: {y:?}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Hermes' own saves keep our entries ours (issue 40): `hermes tools disable SERVER:TOOL`
/// writes `tools.exclude` into the entry mcpconf wrote — beside our `tools.include` pin on the
/// remote server — and `enable` leaves `exclude: []`. Both entries stay intact, a manifest
/// update (a new env value, a longer pin) keeps Hermes' exclusions, and prune removes both.
#[test]
fn hermes_tool_toggles_keep_our_entries_updatable_and_prunable() {
    let Some(bin) = optional_bin_dir("hermes_tool_toggles", "hermes") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"hermes\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    w.client(
        "hermes",
        &["tools", "disable", "local-tool:search", "remote-api:fetch"],
    );
    let y = hermes_yaml(&w);
    let servers = &y["mcp_servers"];
    assert_eq!(
        strings(&servers["local-tool"]["tools"]["exclude"]),
        ["search"]
    );
    assert_eq!(
        strings(&servers["remote-api"]["tools"]["exclude"]),
        ["fetch"]
    );
    assert_eq!(w.status(), ours_intact("hermes"));

    // An update after Hermes wrote its exclusions: applied, and the exclusions kept.
    let manifest = w.base.join("mcpconf.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    let updated = text.replace("MODE = \"fast\"", "MODE = \"slow\"").replace(
        "tools = [\"search\", \"fetch\"]",
        "tools = [\"search\", \"fetch\", \"list\"]",
    );
    assert_ne!(updated, text);
    fs::write(&manifest, updated).unwrap();
    w.mcpconf_ok(&["apply", "--yes"]);
    let y = hermes_yaml(&w);
    let servers = &y["mcp_servers"];
    assert_eq!(servers["local-tool"]["env"]["MODE"].as_str(), Some("slow"));
    assert_eq!(
        strings(&servers["local-tool"]["tools"]["exclude"]),
        ["search"]
    );
    let remote = &servers["remote-api"]["tools"];
    assert_eq!(strings(&remote["include"]), ["search", "fetch", "list"]);
    assert_eq!(strings(&remote["exclude"]), ["fetch"]);

    // Re-enabling leaves `tools: {exclude: []}`: still ours, and prune removes both entries.
    w.client(
        "hermes",
        &["tools", "enable", "local-tool:search", "remote-api:fetch"],
    );
    let y = hermes_yaml(&w);
    assert!(strings(&y["mcp_servers"]["local-tool"]["tools"]["exclude"]).is_empty());
    assert_eq!(w.status(), ours_intact("hermes"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let out = w.client("hermes", &["mcp", "list"]);
    assert!(out.contains("No MCP servers configured"), "{out}");
}
