//! Profiles (issue 43, contract fourth round): `[profiles.NAME] servers = [...]`, `profile`
//! as the default, `--profile NAME` to switch; a switch writes the new set and removes the
//! other profiles' owned servers in one apply, leaving every other entry alone.

use serde_json::Value;

use crate::common::Env;

const MANIFEST: &str = r#"owner = "o"
profile = "review"

[servers.base]
command = "base-mcp"

[servers.github]
command = "gh-mcp"

[servers.browser]
command = "browser-mcp"

[profiles.review]
servers = ["github"]

[profiles.web]
servers = ["browser"]

[[targets]]
client = "cursor"

[[targets]]
client = "codex"
scope = "project"
servers = ["github", "browser"]
"#;

fn names(e: &Env) -> Vec<String> {
    let v: Value = serde_json::from_str(&e.text(".cursor/mcp.json")).unwrap();
    v["mcpServers"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn switching_profiles_replaces_the_set_in_one_apply() {
    let e = Env::new();
    e.manifest(MANIFEST);
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"mine\": {\"command\": \"m\"}}}\n",
    );
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    assert_eq!(names(&e), ["mine", "base", "github"]);
    assert!(
        e.text(".codex/config.toml").contains("github")
            && !e.text(".codex/config.toml").contains("browser")
    );
    // Preview, then switch.
    let (code, doc) = e.json(&["plan", "--profile", "web"]);
    assert_eq!(code, 0, "{doc:#}");
    let out = e.run(&["apply", "--yes", "--profile", "web"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(names(&e), ["mine", "base", "browser"]);
    let codex = e.text(".codex/config.toml");
    assert!(
        codex.contains("browser") && !codex.contains("github"),
        "{codex}"
    );
    let (_, doc) = e.json(&["status", "--profile", "web"]);
    assert_eq!(doc["profile"], "web", "{doc:#}");
    // Back to the default: one apply again.
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    assert_eq!(names(&e), ["mine", "base", "github"]);
    // Unknown profiles and servers are refused.
    let (code, doc) = e.json(&["plan", "--profile", "nope"]);
    assert_eq!(code, 2, "{doc:#}");
    assert!(doc.to_string().contains("`review`, `web`"), "{doc:#}");
    e.manifest(&MANIFEST.replace(
        "servers = [\"browser\"]\n\n[[targets]]",
        "servers = [\"browsr\"]\n\n[[targets]]",
    ));
    let (code, doc) = e.json(&["plan"]);
    assert_eq!(code, 2, "{doc:#}");
    assert!(
        doc.to_string().contains("did you mean `browser`"),
        "{doc:#}"
    );
}

#[test]
fn a_plan_saved_for_one_profile_is_not_applied_for_another() {
    let e = Env::new();
    e.manifest(MANIFEST);
    let plan = e.base.join("plan.json").display().to_string();
    assert_eq!(e.json(&["plan", "--profile", "web", "--out", &plan]).0, 0);
    let (code, doc) = e.json(&["apply", "--yes", &plan]);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(doc["errors"][0]["code"], "stale-plan", "{doc:#}");
    assert!(!e.path(".cursor/mcp.json").exists());
}
