//! `mcpconf policy` (issue 42, contract fourth round): the manifest's `[policy]` compiled into
//! each client's own admin file under `--system-root`, with every guarantee a client file gets
//! (diff first, ledger, lock, atomic 0644 files, prune gives back every byte), and `lint`
//! reporting `policy-denied` / `policy-not-allowed`.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use crate::common::{Env, codes};

const SERVERS: &str = r#"owner = "acme"

[servers.docs]
url = "https://docs.example.com/mcp"

[servers.git]
command = "uvx"
args = ["mcp-server-git==1.2.3"]

[[targets]]
client = "cursor"
"#;

/// What an administrator wrote by hand, kept byte for byte around what mcpconf adds.
const ADMIN_CLAUDE: &str =
    "{\n    \"permissions\": { \"deny\": [\"Bash(curl:*)\"] },\n    \"env\": {}\n}\n";

fn with_policy(policy: &str) -> String {
    format!("{SERVERS}\n[policy]\n{policy}")
}

fn sys(e: &Env) -> String {
    e.path("sys").display().to_string()
}

fn policy(e: &Env, args: &[&str]) -> (i32, Value) {
    fs::create_dir_all(e.path("sys")).unwrap();
    let s = sys(e);
    let mut all = vec!["policy"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--system-root", &s]);
    e.json(&all)
}

fn claude(e: &Env) -> Value {
    serde_json::from_str(&e.text("sys/etc/claude-code/managed-settings.json")).unwrap()
}

#[test]
fn apply_writes_each_clients_own_form_and_prune_gives_back_every_byte() {
    let e = Env::new();
    e.manifest(&with_policy(
        "allow = [\"docs\", \"git\"]\nexclusive = true\ndeny = [{ name = \"shell\" }, { url = \"https://*.untrusted.example/*\" }]\n",
    ));
    e.write("sys/etc/claude-code/managed-settings.json", ADMIN_CLAUDE);
    fs::set_permissions(
        e.path("sys/etc/claude-code/managed-settings.json"),
        fs::Permissions::from_mode(0o640),
    )
    .unwrap();

    // plan writes nothing.
    let (code, plan) = policy(&e, &["plan", "--check"]);
    assert_eq!(code, 1, "{plan}");
    assert!(!e.path("sys/etc/codex").exists());
    assert_eq!(
        e.text("sys/etc/claude-code/managed-settings.json"),
        ADMIN_CLAUDE
    );

    let (code, r) = policy(&e, &["apply", "--yes"]);
    assert_eq!(code, 0, "{r}");
    let c = claude(&e);
    assert_eq!(c["permissions"], json!({"deny": ["Bash(curl:*)"]}));
    assert_eq!(
        c["allowedMcpServers"],
        json!([{"serverUrl": "https://docs.example.com/mcp"}, {"serverCommand": ["uvx", "mcp-server-git==1.2.3"]}])
    );
    assert_eq!(c["allowManagedMcpServersOnly"], json!(true));
    assert_eq!(
        c["deniedMcpServers"],
        json!([{"serverName": "shell"}, {"serverUrl": "https://*.untrusted.example/*"}])
    );
    let codex = e.text("sys/etc/codex/requirements.toml");
    let t: toml_edit::DocumentMut = codex.parse().unwrap();
    assert_eq!(
        t["mcp_servers"]["docs"]["identity"]["url"].as_str(),
        Some("https://docs.example.com/mcp")
    );
    assert_eq!(
        t["mcp_servers"]["git"]["identity"]["command"].as_str(),
        Some("uvx")
    );
    let gemini: Value = serde_json::from_str(&e.text("sys/etc/gemini-cli/settings.json")).unwrap();
    assert_eq!(
        gemini["mcp"],
        json!({"allowed": ["docs", "git"], "excluded": ["shell"]})
    );
    // Every user's client reads the files mcpconf created; the administrator's own mode stays.
    let mode = |rel: &str| fs::metadata(e.path(rel)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("sys/etc/codex/requirements.toml"), 0o644);
    assert_eq!(mode("sys/etc/gemini-cli/settings.json"), 0o644);
    assert_eq!(mode("sys/etc/claude-code/managed-settings.json"), 0o640);

    // A second apply changes nothing.
    let (code, again) = policy(&e, &["apply", "--yes"]);
    assert_eq!((code, &again["changed"]), (0, &json!(false)), "{again}");

    // A project's apply and prune leave the policy alone.
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    assert_eq!(e.json(&["prune", "--yes"]).0, 0);
    assert_eq!(claude(&e), c);

    let (code, r) = policy(&e, &["prune", "--yes"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        e.text("sys/etc/claude-code/managed-settings.json"),
        ADMIN_CLAUDE
    );
    assert!(
        !e.path("sys/etc/codex").exists(),
        "created directories go too"
    );
    assert!(!e.path("sys/etc/gemini-cli").exists());
}

#[test]
fn a_changed_policy_removes_what_it_no_longer_says() {
    let e = Env::new();
    e.manifest(&with_policy(
        "deny = [{ name = \"shell\" }, { name = \"fetch\" }]\n",
    ));
    assert_eq!(policy(&e, &["apply", "--yes"]).0, 0);
    assert_eq!(
        claude(&e)["deniedMcpServers"],
        json!([{"serverName": "shell"}, {"serverName": "fetch"}])
    );
    e.manifest(&with_policy("allow = [\"docs\"]\nexclusive = true\n"));
    let (code, r) = policy(&e, &["apply", "--yes"]);
    assert_eq!(code, 0, "{r}");
    let c = claude(&e);
    assert!(c.get("deniedMcpServers").is_none(), "{c}");
    assert_eq!(
        c["allowedMcpServers"],
        json!([{"serverUrl": "https://docs.example.com/mcp"}])
    );
    let gemini: Value = serde_json::from_str(&e.text("sys/etc/gemini-cli/settings.json")).unwrap();
    assert_eq!(gemini, json!({"mcp": {"allowed": ["docs"]}}));
}

#[test]
fn an_administrators_own_rules_are_never_overwritten() {
    let e = Env::new();
    e.manifest(&with_policy("deny = [{ name = \"shell\" }]\n"));
    let theirs = "{\"deniedMcpServers\": [{\"serverName\": \"ftp\"}]}\n";
    e.write("sys/etc/claude-code/managed-settings.json", theirs);
    let (code, r) = policy(&e, &["apply", "--yes"]);
    assert_eq!(code, 3, "{r}");
    assert!(codes(&r).contains(&"conflict".to_string()), "{r}");
    assert_eq!(e.text("sys/etc/claude-code/managed-settings.json"), theirs);
    assert!(
        !e.path("sys/etc/gemini-cli").exists(),
        "nothing is written to any file"
    );
}

#[test]
fn an_admin_file_that_is_a_link_is_refused() {
    let e = Env::new();
    e.manifest(&with_policy("deny = [{ name = \"shell\" }]\n"));
    e.write("elsewhere.json", "{}\n");
    fs::create_dir_all(e.path("sys/etc/claude-code")).unwrap();
    std::os::unix::fs::symlink(
        e.path("elsewhere.json"),
        e.path("sys/etc/claude-code/managed-settings.json"),
    )
    .unwrap();
    let (code, r) = policy(&e, &["apply", "--yes"]);
    assert_eq!(code, 3, "{r}");
    assert!(codes(&r).contains(&"not-a-file".to_string()), "{r}");
    assert_eq!(e.text("elsewhere.json"), "{}\n");
}

#[test]
fn report_says_what_each_client_enforces_and_cannot() {
    let e = Env::new();
    e.manifest(&with_policy(
        "allow = [\"git\"]\nexclusive = true\ndeny = [{ command = \"npx\" }]\n",
    ));
    let (code, r) = policy(&e, &["report"]);
    assert_eq!(code, 0, "{r}");
    let by = |c: &str| {
        r["clients"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["client"] == c)
            .unwrap()
            .clone()
    };
    let claude = by("claude-code");
    assert_eq!(
        claude["keys"],
        json!(["allowedMcpServers", "allowManagedMcpServersOnly"])
    );
    assert!(
        claude["cannot_express"][0]
            .as_str()
            .unwrap()
            .contains("npx")
    );
    let codex = by("codex");
    assert!(
        codex["cannot_express"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s.as_str().unwrap().contains("arguments")),
        "{codex}"
    );
    let none: Vec<&str> = r["no_admin_control"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["client"].as_str().unwrap())
        .collect();
    assert!(
        none.contains(&"cursor") && none.contains(&"windsurf"),
        "{none:?}"
    );
    // No `[policy]`: a usage error, not an empty report.
    e.manifest(SERVERS);
    assert_eq!(policy(&e, &["report"]).0, 2);
}

#[test]
fn a_system_root_that_does_not_exist_is_a_usage_error() {
    let e = Env::new();
    e.manifest(&with_policy("deny = [{ name = \"shell\" }]\n"));
    let missing = e.path("nowhere").display().to_string();
    let (code, _) = e.json(&["policy", "apply", "--yes", "--system-root", &missing]);
    assert_eq!(code, 2);
    assert!(!e.path("nowhere").exists());
}

#[test]
fn lint_reports_denied_and_not_allowed_entries_in_any_client_file() {
    let e = Env::new();
    e.manifest(&with_policy(
        "allow = [\"docs\", \"git\"]\nexclusive = true\ndeny = [{ command = \"npx\" }]\n",
    ));
    e.write(
        ".cursor/mcp.json",
        r#"{"mcpServers": {
  "docs-renamed": {"url": "https://docs.example.com/mcp"},
  "git": {"command": "uvx", "args": ["something-else"]},
  "runner": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}
}}
"#,
    );
    e.write(
        ".codex/config.toml",
        "[mcp_servers.git]\ncommand = \"uvx\"\nargs = [\"mcp-server-git==1.2.3\"]\n",
    );
    let (code, r) = e.json(&["lint"]);
    assert_eq!(code, 1, "{r}");
    let found: Vec<(String, String)> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("policy-"))
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Identity decides, not the name: the renamed docs entry and Codex's git are allowed.
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found
            .iter()
            .any(|(r, m)| r == "policy-not-allowed" && m.contains("`git`"))
    );
    assert!(
        found
            .iter()
            .any(|(r, m)| r == "policy-denied" && m.contains("`runner`"))
    );
    // Without the policy, none of them.
    e.manifest(SERVERS);
    let (_, r) = e.json(&["lint"]);
    assert!(!r.to_string().contains("policy-"), "{r}");
}
