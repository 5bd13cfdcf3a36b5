//! Auggie (Augment Code's CLI) as an oracle (moved out of `real_clients.rs` unchanged).

use super::*;

/// Augment documents no environment references, so its manifest holds literals only (a
/// reference is refused, see `client_refusals`).
fn auggie_manifest(w: &World, targets: &str) {
    let text = format!(
        "owner = \"oracle\"\n\n\
         [servers.local-tool]\n\
         command = {:?}\n\
         args = [\"serve\", \"--label\", \"two words\"]\n\
         env = {{ MODE = \"fast\" }}\n\n\
         [servers.remote-api]\n\
         url = {:?}\n\
         headers = {{ X-Client = \"oracle\" }}\n\n\
         {targets}\n",
        w.command(),
        w.http.url()
    );
    fs::write(w.base.join("mcpconf.toml"), text).unwrap();
}

/// `auggie mcp list --json` as (name, transport, command line or URL), sorted.
fn auggie_list(w: &World) -> Vec<(String, String, String)> {
    let out = w.client("auggie", &["mcp", "list", "--json"]);
    let start = out
        .find('{')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let end = out
        .rfind('}')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let v: Value =
        serde_json::from_str(&out[start..=end]).unwrap_or_else(|e| panic!("{e}:\n{out}"));
    let mut list: Vec<_> = v["servers"]
        .as_array()
        .unwrap_or_else(|| panic!("no servers in {v}"))
        .iter()
        .map(|s| {
            let what = s["command"].as_str().or(s["url"].as_str()).unwrap_or("");
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["transport"].as_str().unwrap_or_default().to_string(),
                what.to_string(),
            )
        })
        .collect();
    list.sort();
    list
}

fn auggie_check(w: &World) {
    assert_eq!(
        auggie_list(w),
        vec![
            (
                "local-tool".to_string(),
                "stdio".to_string(),
                format!("{} serve --label two words", w.command())
            ),
            ("remote-api".to_string(), "http".to_string(), w.http.url()),
        ]
    );
}

#[test]
fn auggie_user_and_project_scope() {
    let Some(bin) = bin_dir("auggie_user_and_project_scope") else {
        return;
    };
    for (scope, file, add) in [
        (
            "user",
            ".augment/settings.json",
            &["mcp", "add", "theirs", "-c", "true"][..],
        ),
        (
            "project",
            ".augment/settings.json",
            &["mcp", "add", "theirs", "--project", "-c", "true"][..],
        ),
    ] {
        let w = World::new(bin.clone());
        auggie_manifest(
            &w,
            &format!("[[targets]]\nclient = \"augment\"\nscope = \"{scope}\"\n"),
        );
        w.mcpconf_ok(&["apply", "--yes"]);
        auggie_check(&w);
        // `auggie mcp add` rewrites the file; our entries stay intact and prune removes only
        // them.
        let path = if scope == "user" {
            w.home().join(file)
        } else {
            w.root().join(file)
        };
        w.client("auggie", add);
        assert!(w.read_json(&path)["mcpServers"].get("theirs").is_some());
        assert_eq!(w.status(), ours_intact("augment"), "{scope}");
        w.mcpconf_ok(&["prune", "--yes"]);
        let keys: Vec<String> = w.read_json(&path)["mcpServers"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, vec!["theirs".to_string()], "{scope}");
        let names: Vec<String> = auggie_list(&w).into_iter().map(|e| e.0).collect();
        assert_eq!(names, vec!["theirs".to_string()], "{scope}");
    }
}
