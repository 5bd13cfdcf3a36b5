//! `apply --take-over NAME` (contract, third round): another party's entry is replaced only
//! with the flag, its exact text kept in a 0600 restore copy beside the ledger (never printed,
//! never in the ledger), given back byte for byte by prune, dropped by release. The crash
//! behaviour is in `crash.rs`.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use serde_json::Value;

use crate::common::{Env, codes};

const SECRET: &str = "sk-live-USERSECRET0123456789";

const MANIFEST: &str = r#"owner = "openab"

[servers.openab]
url = "http://127.0.0.1:8848/mcp"
headers = { Authorization = "Bearer ${OPENAB_SESSION_TOKEN}" }

[servers.browser]
command = "agent-browser"

[[targets]]
client = "cursor"

[[targets]]
client = "codex"
scope = "project"
"#;

/// A user's own `openab` entries (another port, a literal token) in a Cursor and a Codex file.
fn setup() -> (Env, String, String) {
    let e = Env::new();
    e.manifest(MANIFEST);
    let cursor = format!(
        "{{\n  \"mcpServers\": {{\n    \"openab\": {{ \"url\": \"http://127.0.0.1:9999/mcp\", \"headers\": {{\"Authorization\": \"Bearer {SECRET}\"}} }},\n    \"github\": {{\"command\": \"gh\"}}\n  }}\n}}\n"
    );
    let codex = format!(
        "# mine\nmodel = \"o3\"\n\n[mcp_servers.openab]\nurl = \"http://127.0.0.1:9999/mcp\"  # my port\nhttp_headers = {{ Authorization = \"Bearer {SECRET}\" }}\n\n[mcp_servers.github]\ncommand = \"gh\"\n"
    );
    e.write(".cursor/mcp.json", &cursor);
    e.write(".codex/config.toml", &codex);
    (e, cursor, codex)
}

fn ops(doc: &Value) -> Vec<String> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["actions"].as_array().unwrap().iter())
        .map(|a| {
            format!(
                "{} {}",
                a["op"].as_str().unwrap(),
                a["server"].as_str().unwrap()
            )
        })
        .collect()
}

fn restore_file(e: &Env) -> std::path::PathBuf {
    e.state().join("ledger/openab.restore.json")
}

#[test]
fn take_over_replaces_only_with_the_flag_and_prune_gives_back_every_byte() {
    let (e, cursor, codex) = setup();
    // Without the flag: a conflict that names the way through.
    let out = e.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--take-over openab"), "{err}");
    assert_eq!(e.text(".cursor/mcp.json"), cursor);

    // The plan shows `~ take-over` with the diff; the secret is never shown.
    let out = e.run(&["apply", "--yes", "--take-over", "openab"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("~ take-over openab"), "{text}");
    assert!(text.contains("-    \"openab\""), "{text}");
    assert!(!text.contains(SECRET) && !String::from_utf8_lossy(&out.stderr).contains(SECRET));
    assert!(
        e.text(".cursor/mcp.json")
            .contains("${env:OPENAB_SESSION_TOKEN}")
    );
    assert!(
        e.text(".codex/config.toml")
            .contains("bearer_token_env_var")
    );
    assert!(e.text(".codex/config.toml").contains("# mine"));

    // The copy: 0600, beside the ledger, the only place the text is kept.
    let copy = restore_file(&e);
    let mode = fs::metadata(&copy).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(fs::read_to_string(&copy).unwrap().contains(SECRET));
    let ledger = fs::read_to_string(e.state().join("ledger/openab.json")).unwrap();
    assert!(
        !ledger.contains(SECRET) && !ledger.contains("9999"),
        "{ledger}"
    );

    // Ours now: intact, and a plain apply has nothing to do.
    let (code, doc) = e.json(&["status", "--check"]);
    assert_eq!(code, 0, "{doc}");
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(
        (code, doc["changed"].clone()),
        (0, Value::Bool(false)),
        "{doc}"
    );

    // Prune gives both entries back byte for byte and drops the copy.
    let out = e.run(&["prune", "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains(SECRET));
    assert_eq!(e.text(".cursor/mcp.json"), cursor);
    assert_eq!(e.text(".codex/config.toml"), codex);
    assert!(!copy.exists());
}

#[test]
fn take_over_in_json_and_a_release_hands_the_entry_over_and_drops_the_copy() {
    let (e, cursor, _) = setup();
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 3);
    assert!(codes(&doc).iter().all(|c| c == "conflict"), "{doc}");
    let (code, doc) = e.json(&["apply", "--yes", "--take-over", "openab"]);
    assert_eq!(code, 0, "{doc}");
    let ops = ops(&doc);
    assert_eq!(
        ops.iter().filter(|o| *o == "take-over openab").count(),
        2,
        "{ops:?}"
    );
    assert!(!doc.to_string().contains(SECRET));
    assert!(restore_file(&e).exists());

    // release: the current entry becomes the user's; the copy goes.
    let out = e.run(&["release", "openab"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!restore_file(&e).exists());
    let now = e.text(".cursor/mcp.json");
    let (code, _) = e.json(&["prune", "--yes"]);
    assert_eq!(code, 0);
    let after: Value = serde_json::from_str(&e.text(".cursor/mcp.json")).unwrap();
    assert_eq!(
        after["mcpServers"]["openab"]["url"], "http://127.0.0.1:8848/mcp",
        "released: prune leaves it"
    );
    assert_ne!(now, cursor);
}

/// `apply --take-over NAME` also takes back a *drifted* entry of ours (issue 40, contract
/// fourth round): Gemini's `mcp add` once wrote our `${TOKEN}` expanded into the entry; the
/// manifest's entry is written again, no restore copy is kept (it was never another party's),
/// the report names the keys replaced and never their values, and prune then removes the entry
/// instead of giving anything back.
#[test]
fn take_over_takes_back_a_drifted_entry_of_ours_without_a_copy() {
    let e = Env::new();
    e.manifest(
        "owner = \"o\"\n[servers.g]\nurl = \"https://h.example/mcp\"\nheaders = { Authorization = \"Bearer ${TOKEN}\" }\n[[targets]]\nclient = \"gemini\"\nscope = \"project\"\n",
    );
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    let ours = e.text(".gemini/settings.json");
    e.write(
        ".gemini/settings.json",
        ours.replace("Bearer ${TOKEN}", &format!("Bearer {SECRET}")),
    );
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(codes(&doc), ["drift"]);
    assert!(doc.to_string().contains("--take-over g"), "{doc:#}");
    let (code, doc) = e.json(&["apply", "--yes", "--take-over", "g"]);
    assert_eq!(code, 0, "{doc:#}");
    let action = &doc["files"][0]["actions"][0];
    assert_eq!(action["op"], "take-over", "{doc:#}");
    let detail = action["detail"].as_str().unwrap();
    assert!(
        detail.contains("`headers`") && detail.contains("no copy"),
        "{detail}"
    );
    assert!(!doc.to_string().contains(SECRET), "{doc:#}");
    assert_eq!(
        e.text(".gemini/settings.json"),
        ours,
        "the manifest's entry, byte for byte"
    );
    assert!(
        !e.state().join("ledger/o.restore.json").exists(),
        "no restore copy of our own entry"
    );
    assert_eq!(e.json(&["prune", "--yes"]).0, 0);
    let left = fs::read_to_string(e.path(".gemini/settings.json")).unwrap_or_default();
    assert!(!left.contains("\"g\""), "{left}");
}

/// Taking back a drifted entry of ours keeps the client's own keys in it, as an update does:
/// `gemini mcp add --trust` set `trust`, a later `gemini mcp add` of another server wrote our
/// reference expanded; the take-over replaces `headers` only, and Gemini's `trust` stays.
#[test]
fn take_over_of_a_drifted_entry_keeps_the_clients_own_keys() {
    let e = Env::new();
    e.manifest(
        "owner = \"o\"\n[servers.g]\nurl = \"https://h.example/mcp\"\nheaders = { Authorization = \"Bearer ${TOKEN}\" }\n[[targets]]\nclient = \"gemini\"\nscope = \"project\"\n",
    );
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    let ours = e.text(".gemini/settings.json");
    let trusted = ours.replace(
        "\"type\": \"http\"",
        "\"type\": \"http\",\n      \"trust\": true",
    );
    assert_ne!(trusted, ours);
    e.write(
        ".gemini/settings.json",
        trusted.replace("Bearer ${TOKEN}", &format!("Bearer {SECRET}")),
    );
    let (code, doc) = e.json(&["apply", "--yes", "--take-over", "g"]);
    assert_eq!(code, 0, "{doc:#}");
    let detail = doc["files"][0]["actions"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("`headers`"), "{detail}");
    assert!(!detail.contains("`trust`"), "{detail}");
    let now: Value = serde_json::from_str(&e.text(".gemini/settings.json")).unwrap();
    assert_eq!(
        now["mcpServers"]["g"]["trust"],
        Value::Bool(true),
        "{now:#}"
    );
    assert_eq!(
        now["mcpServers"]["g"]["headers"]["Authorization"],
        "Bearer ${TOKEN}"
    );
    // Ours again: status intact with the client's key, and prune removes the entry.
    let (code, st) = e.json(&["status"]);
    assert_eq!(code, 0, "{st:#}");
    assert_eq!(st["records"][0]["state"], "intact", "{st:#}");
    assert_eq!(e.json(&["prune", "--yes"]).0, 0);
    let left = fs::read_to_string(e.path(".gemini/settings.json")).unwrap_or_default();
    assert!(!left.contains("\"g\""), "{left}");
}

/// A migration with `--take-over` can be reviewed as a saved plan (issue 41): `plan --out PLAN
/// --take-over NAME` records the take-over, and `apply PLAN` takes the entry over with its
/// restore copy, exactly as planned.
#[test]
fn a_take_over_is_reviewed_and_applied_as_a_saved_plan() {
    let (e, cursor, _) = setup();
    let plan = e.base.join("plan.json").display().to_string();
    let (code, doc) = e.json(&["plan", "--take-over", "openab", "--out", &plan]);
    assert_eq!(code, 0, "{doc:#}");
    let saved: Value = serde_json::from_str(&fs::read_to_string(&plan).unwrap()).unwrap();
    assert_eq!(
        saved["take_over"],
        serde_json::json!(["openab"]),
        "{saved:#}"
    );
    assert!(!fs::read_to_string(&plan).unwrap().contains(SECRET));
    assert_eq!(
        e.text(".cursor/mcp.json"),
        cursor,
        "planning writes nothing"
    );
    let (code, doc) = e.json(&["apply", "--yes", &plan]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(
        ops(&doc).contains(&"take-over openab".to_string()),
        "{doc:#}"
    );
    assert!(e.state().join("ledger/openab.restore.json").exists());
    assert_eq!(e.json(&["prune", "--yes"]).0, 0);
    assert_eq!(
        e.text(".cursor/mcp.json"),
        cursor,
        "prune gives the entry back"
    );
}

#[test]
fn replace_takes_an_entry_for_good_without_a_copy_and_prune_removes_it() {
    let (e, cursor, _) = setup();
    // Reviewed as a saved plan first: it says so, and nothing is written.
    let plan = e.base.join("plan.json").display().to_string();
    let (code, doc) = e.json(&["plan", "--replace", "openab", "--out", &plan]);
    assert_eq!(code, 0, "{doc:#}");
    let detail = doc.to_string();
    assert!(detail.contains("replaces for good"), "{doc:#}");
    assert!(
        !detail.contains(SECRET),
        "names keys, never values: {doc:#}"
    );
    assert_eq!(e.text(".cursor/mcp.json"), cursor);
    let (code, doc) = e.json(&["apply", "--yes", &plan]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(
        ops(&doc)
            .iter()
            .filter(|o| *o == "take-over openab")
            .count(),
        2,
        "{doc:#}"
    );
    assert!(
        !restore_file(&e).exists(),
        "no copy of the replaced entries is kept"
    );
    assert!(!e.text(".cursor/mcp.json").contains(SECRET));
    // The entries are ours now: prune removes them, the user's other entry stays.
    assert_eq!(e.json(&["prune", "--yes"]).0, 0);
    let after: Value = serde_json::from_str(&e.text(".cursor/mcp.json")).unwrap();
    let names: Vec<&String> = after["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["github"]);
    assert!(!e.text(".codex/config.toml").contains("openab"));
    assert!(
        e.text(".codex/config.toml")
            .contains("[mcp_servers.github]")
    );
}

#[test]
fn adopt_says_a_later_prune_removes_the_entry() {
    let e = Env::new();
    e.manifest(
        "owner = \"o\"\n[servers.db]\ncommand = \"db-mcp\"\n[[targets]]\nclient = \"cursor\"\n",
    );
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"db\": {\"command\": \"db-mcp\"}}}\n",
    );
    let (code, doc) = e.json(&["apply", "--yes", "--adopt"]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(
        doc.to_string().contains("a later prune removes it"),
        "{doc:#}"
    );
}
