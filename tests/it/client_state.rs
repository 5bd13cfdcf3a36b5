//! Client-managed keys (contract, third round): for every client that declares keys it writes
//! into our entries itself (approvals, on/off switches, per-tool switches, timeouts, OAuth
//! state), the key written as that client writes it keeps the entry ours: `status` says
//! `intact (client state: KEY)`, lint finds neither `unknown-field` nor `drift`, an update
//! keeps the key byte for byte, prune removes the entry with it; and any other edit is still
//! drift, named by the member that really differs. Also: `enabled = false` in each client's
//! off form, and an empty Codex `config.toml` applied.

use serde_json::Value;

use crate::common::{Env, show};

/// The entry name the tests use (unique in every file, so text edits find it).
const NAME: &str = "srv-under-test";

fn manifest(client: &str, arg: &str, extra: &str) -> String {
    format!(
        "owner = \"o\"\n[servers.{NAME}]\ncommand = \"srv\"\nargs = [\"{arg}\"]\n{extra}[[targets]]\nclient = \"{client}\"\n"
    )
}

/// The client's value of a key, in an odd spelling of the client's own (odd spacing), so a
/// rewrite by mcpconf would show.
fn client_value(key: &str) -> &'static str {
    match key {
        "disabled" => "true",
        "enabled" => "false",
        "timeout" => "120",
        "oauth" => "{ \"clientId\" :  \"client-1\" }",
        _ => "[ \"search\",   \"fetch\" ]",
    }
}

/// Adds (or, for a key already in the entry, changes) `key` in our entry as the client would,
/// returning the text of the member as it now stands in the file.
fn add_client_key(text: &str, client: &str, key: &str) -> (String, String) {
    if client == "codex" {
        // Codex saves "always allow" as a per-tool sub-table.
        let member = format!("[mcp_servers.{NAME}.tools.search]\napproval_mode =  \"approve\"\n");
        return (format!("{text}\n{member}"), member);
    }
    if client == "goose" || client == "hermes" {
        // YAML: the key's line changed in place, or a line added under the entry's name.
        let member = format!("{key}: {}", client_value(key));
        let i = text.find(NAME).expect("entry in the file");
        if let Some(k) = text[i..].find(&format!("\n    {key}: ")) {
            let at = i + k + 5;
            let end = at + text[at..].find('\n').unwrap();
            return (format!("{}{member}{}", &text[..at], &text[end..]), member);
        }
        let at = i + text[i..].find('\n').unwrap() + 1;
        return (
            format!("{}    {member}\n{}", &text[..at], &text[at..]),
            member,
        );
    }
    let head = format!("\"{NAME}\": {{");
    let at = text.find(&head).expect("entry in the file") + head.len();
    let member = format!("\"{key}\":   {}", client_value(key));
    (
        format!("{}\n  {member},{}", &text[..at], &text[at..]),
        member,
    )
}

/// A project where mcpconf applied the test's entry for `client` and the client then wrote
/// `key` into it: the environment, the file, its text and the member as it stands.
fn applied_with_client_key(client: &str, key: &str) -> (Env, std::path::PathBuf, String, String) {
    let e = Env::new();
    e.manifest(&manifest(client, "a", ""));
    let out = e.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{client}: {}", show(&out));
    let path = target_path(&e);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(NAME), "{client}: {text}");
    let (text, member) = add_client_key(&text, client, key);
    std::fs::write(&path, &text).unwrap();
    (e, path, text, member)
}

/// A member nobody but a user would add, in the client's syntax: an env file, which
/// says what runs in every client (a field a client does not read would be the user's).
fn add_foreign_key(text: &str, client: &str) -> String {
    if client == "codex" {
        return text.replacen(
            &format!("[mcp_servers.{NAME}]\n"),
            &format!("[mcp_servers.{NAME}]\nenvFile = \"/zz\"\n"),
            1,
        );
    }
    if client == "goose" || client == "hermes" {
        let i = text.find(NAME).unwrap();
        let at = i + text[i..].find('\n').unwrap() + 1;
        return format!("{}    envFile: /zz\n{}", &text[..at], &text[at..]);
    }
    let head = format!("\"{NAME}\": {{");
    text.replacen(&head, &format!("{head}\"envFile\": \"/zz\","), 1)
}

fn target_path(e: &Env) -> std::path::PathBuf {
    let (code, doc) = e.json(&["plan"]);
    assert_eq!(code, 0, "{doc:#}");
    std::path::PathBuf::from(doc["files"][0]["path"].as_str().unwrap())
}

fn status(e: &Env) -> Vec<Value> {
    let (code, doc) = e.json(&["status"]);
    assert_eq!(code, 0, "{doc:#}");
    doc["records"].as_array().unwrap().clone()
}

#[test]
fn every_client_key_keeps_the_entry_ours_and_every_other_edit_is_drift() {
    let mut checked = 0;
    for d in mcpconf::dialect::ALL {
        let keys = d.client_managed().keys;
        if keys.is_empty() {
            continue;
        }
        let client = d.id();
        let keys: Vec<&str> = if client == "codex" {
            vec!["tools"]
        } else {
            keys.to_vec()
        };
        for key in keys {
            let ctx = format!("{client} `{key}`");
            // Our entry, and the client's key written into it.
            let (e, path, _text, member) = applied_with_client_key(client, key);

            let recs = status(&e);
            assert_eq!(recs[0]["state"], "intact", "{ctx}: {recs:#?}");
            assert_eq!(recs[0]["client_state"], serde_json::json!([key]), "{ctx}");
            let out = e.run(&["status"]);
            let shown = String::from_utf8_lossy(&out.stdout);
            assert!(
                shown.contains(&format!("intact (client state: {key})")),
                "{ctx}: {shown}"
            );

            // Lint: the key is the client's, not unknown, not drift.
            let out = e
                .cmd(&["lint", path.to_str().unwrap(), "--format", "json"])
                .output()
                .unwrap();
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            for f in doc["findings"].as_array().unwrap() {
                assert!(
                    f["rule"] != "unknown-field" && f["rule"] != "drift",
                    "{ctx}: {f:#}"
                );
            }

            // An update keeps the client's key byte for byte.
            e.manifest(&manifest(client, "b", ""));
            let out = e.run(&["apply", "--yes"]);
            assert_eq!(out.status.code(), Some(0), "{ctx}: {}", show(&out));
            let now = std::fs::read_to_string(&path).unwrap();
            assert!(
                now.contains(&member),
                "{ctx}: `{member}` not kept in:\n{now}"
            );
            assert!(
                now.contains("\"b\"") || now.contains("- b"),
                "{ctx}: not updated:\n{now}"
            );
            let recs = status(&e);
            assert_eq!(recs[0]["state"], "intact", "{ctx}: {recs:#?}");
            assert_eq!(recs[0]["client_state"], serde_json::json!([key]), "{ctx}");

            // Any other edit is drift, named by the member that differs from what was written
            // (not by `args`, which the manifest changes too).
            e.manifest(&manifest(client, "c", ""));
            std::fs::write(&path, add_foreign_key(&now, client)).unwrap();
            let (code, doc) = e.json(&["apply", "--yes"]);
            assert_eq!(code, 3, "{ctx}: {doc:#}");
            let msg = doc["errors"][0]["message"].as_str().unwrap();
            assert_eq!(doc["errors"][0]["code"], "drift", "{ctx}: {doc:#}");
            assert!(msg.contains("`envFile` was added"), "{ctx}: {msg}");
            let (code, doc) = e.json(&["prune", "--yes"]);
            assert_eq!(code, 3, "{ctx}: {doc:#}");
            let msg = doc["errors"][0]["message"].as_str().unwrap();
            assert!(msg.contains("`envFile` was added"), "{ctx}: {msg}");

            // Undone: prune removes the entry together with the client's key.
            std::fs::write(&path, &now).unwrap();
            let out = e.run(&["prune", "--yes"]);
            assert_eq!(out.status.code(), Some(0), "{ctx}: {}", show(&out));
            let left = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(!left.contains(NAME), "{ctx}: left:\n{left}");
            assert!(!left.contains(&member), "{ctx}: left:\n{left}");
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} client keys checked");
}

/// An entry nobody recorded (written by hand, or by an earlier tool) that equals the manifest
/// but for a key the client keeps in it (an approval, a switch) is the manifest's entry: `apply`
/// leaves it alone instead of refusing a conflict, `apply --adopt` records it as ours with the
/// client's key kept byte for byte, and `prune` then removes it with that key.
#[test]
fn an_unrecorded_entry_that_differs_only_by_client_keys_is_adopted() {
    let mut checked = 0;
    for d in mcpconf::dialect::ALL {
        let keys = d.client_managed().keys;
        let Some(&key) = keys.first() else {
            continue;
        };
        let client = d.id();
        let key = if client == "codex" { "tools" } else { key };
        let ctx = format!("{client} `{key}`");
        let (e, path, text, member) = applied_with_client_key(client, key);
        // Nobody recorded it.
        std::fs::remove_dir_all(e.state()).unwrap();
        std::fs::create_dir_all(e.state()).unwrap();

        let (code, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(code, 0, "{ctx}: {doc:#}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{ctx}");
        // `import` says the client's key stays in the file, not that adopting is refused.
        let out = crate::common::mcpconf_cmd()
            .args(["import", "--client", client, "--root"])
            .arg(e.root())
            .arg("--home")
            .arg(e.base.join("home"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{ctx}: {said}");
        assert!(
            !said.contains("refused as a conflict"),
            "{ctx}: import says adopting is refused: {said}"
        );
        let (code, doc) = e.json(&["apply", "--yes", "--adopt"]);
        assert_eq!(code, 0, "{ctx}: {doc:#}");
        let detail = doc.to_string();
        assert!(
            detail.contains(key),
            "{ctx}: the client's key is not named: {doc:#}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{ctx}");
        let recs = status(&e);
        assert_eq!(recs[0]["state"], "intact", "{ctx}: {recs:#?}");

        let out = e.run(&["prune", "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{ctx}: {}", show(&out));
        let left = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            !left.contains(NAME) && !left.contains(&member),
            "{ctx}: left:\n{left}"
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} clients checked");
}

/// A ledger written before client state was known (no member digests) still proves an entry
/// whose only change is a client key, and prune removes it.
#[test]
fn records_from_before_client_state_accept_client_keys() {
    let e = Env::new();
    e.manifest(&manifest("kiro", "a", ""));
    assert_eq!(e.run(&["apply", "--yes"]).status.code(), Some(0));
    // Strip the new fields from the ledger, as an older mcpconf wrote it.
    let ledger = crate::common::files(&e.state())
        .into_iter()
        .map(|(p, _)| e.state().join(p))
        .find(|p| {
            p.extension().is_some_and(|x| x == "json")
                && std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"records\""))
        })
        .expect("a ledger");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&ledger).unwrap()).unwrap();
    for r in doc["records"].as_array_mut().unwrap() {
        let r = r.as_object_mut().unwrap();
        assert!(r.remove("members").is_some(), "{r:?}");
        r.remove("client_state");
    }
    std::fs::write(&ledger, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let path = target_path(&e);
    let (text, _) = add_client_key(
        &std::fs::read_to_string(&path).unwrap(),
        "kiro",
        "autoApprove",
    );
    std::fs::write(&path, text).unwrap();
    let recs = status(&e);
    assert_eq!(recs[0]["state"], "intact", "{recs:#?}");
    let out = e.run(&["prune", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // The entry goes with the client's keys; the file mcpconf created holds nothing else, so
    // it goes too.
    assert!(!std::fs::read_to_string(&path).is_ok_and(|t| t.contains(NAME)));
}

/// `enabled = false` (on the server or on the target) writes each client's own off form; a
/// client without one refuses with `cannot-express`, naming the client.
#[test]
fn enabled_false_is_written_in_each_clients_off_form() {
    for d in mcpconf::dialect::ALL {
        let client = d.id();
        if d.requires_path() || d.multi_file() {
            continue;
        }
        for (server_extra, target_extra) in [("enabled = false\n", ""), ("", "enabled = false\n")] {
            let e = Env::new();
            e.manifest(&format!(
                "{}{target_extra}",
                manifest(client, "a", server_extra)
            ));
            let (code, doc) = e.json(&["apply", "--yes"]);
            match d.off_form() {
                Some(off) => {
                    assert_eq!(code, 0, "{client}: {doc:#}");
                    let path = std::path::PathBuf::from(doc["files"][0]["path"].as_str().unwrap());
                    let text = std::fs::read_to_string(&path)
                        .unwrap_or_else(|e| panic!("{client}: {e}: {doc:#}"));
                    let want = match (client, off.off) {
                        ("codex", v) => format!("{} = {v}", off.key),
                        ("goose" | "hermes", v) => format!("{}: {v}", off.key),
                        (_, v) => format!("\"{}\": {v}", off.key),
                    };
                    assert!(text.contains(&want), "{client}: no `{want}` in:\n{text}");
                    // The manifest declares it: the client's switch back on is drift.
                    let on = text.replace(
                        &want,
                        &want.replace(&off.off.to_string(), &(!off.off).to_string()),
                    );
                    std::fs::write(&path, on).unwrap();
                    let recs = status(&e);
                    assert_eq!(recs[0]["state"], "drifted", "{client}: {recs:#?}");
                }
                None => {
                    assert_eq!(code, 3, "{client}: {doc:#}");
                    assert_eq!(doc["errors"][0]["code"], "cannot-express", "{client}");
                    let msg = doc["errors"][0]["message"].as_str().unwrap();
                    assert!(msg.contains(client) && msg.contains("enabled"), "{msg}");
                }
            }
        }
    }
}

/// Codex's own `codex mcp remove` of its last server leaves a 0-byte `config.toml`: an empty
/// TOML document, which apply fills and prune empties again. An empty JSON file stays refused.
#[test]
fn an_empty_codex_file_is_applied_and_an_empty_json_file_refused() {
    for blank in ["", "\n", "  \n\n"] {
        let e = Env::new();
        e.manifest(&manifest("codex", "a", ""));
        let path = e.base.join("home/.codex/config.toml");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, blank).unwrap();
        let out = e.run(&["apply", "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{blank:?}: {}", show(&out));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(&format!("[mcp_servers.{NAME}]")), "{text}");
        let out = e.run(&["prune", "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{blank:?}: {}", show(&out));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), blank);
    }
    let e = Env::new();
    e.manifest(&manifest("cursor", "a", ""));
    e.write(".cursor/mcp.json", "");
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(doc["errors"][0]["code"], "empty-file");
}

/// Goose writes a fresh empty config as `{}` (serde_yaml of an empty mapping), and `extensions:
/// {}` once its last extension is gone: both are applied to, and prune gives the bytes back.
#[test]
fn goose_empty_configs_are_applied() {
    for blank in [
        "{}\n",
        "extensions: {}\n",
        "GOOSE_PROVIDER: openai\nextensions: {}\n",
    ] {
        let e = Env::new();
        e.manifest(&manifest("goose", "a", ""));
        let path = e.base.join("home/.config/goose/config.yaml");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, blank).unwrap();
        let out = e.run(&["apply", "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{blank:?}: {}", show(&out));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(&format!("  {NAME}:\n")), "{text}");
        let out = e.run(&["prune", "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{blank:?}: {}", show(&out));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), blank);
    }
}

/// Kiro agent files take the same off form as Kiro's `mcp.json`: `"disabled": true`.
#[test]
fn enabled_false_in_a_kiro_agent_file() {
    let e = Env::new();
    e.manifest(&format!(
        "{}path = \".kiro/agents/a.json\"\n",
        manifest("kiro-agent", "a", "enabled = false\n")
    ));
    let path = e.write(".kiro/agents/a.json", "{\n  \"name\": \"a\"\n}\n");
    let out = e.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(doc["mcpServers"][NAME]["disabled"], true, "{doc:#}");
}

/// A client that re-saves its whole file writes every field out (issue 40). Emulated from
/// each client's own save code, for the clients that cannot run here: the entry mcpconf wrote,
/// re-saved so, stays ours — `plan --check` finds nothing to do, an update applies, `prune`
/// removes it — while a real edit beside the defaults is still drift.
/// - Goose (block/goose `crates/goose/src/agents/extension.rs` d4c86e9,
///   `crates/goose/src/config/extensions.rs` 1071c82): `ExtensionEntry` serialized with no
///   field skipped: `env_keys: []`, `bundled: null`, `available_tools: []`, `description: ''`.
/// - OpenHands CLI (OpenHands-CLI 6b3838c `openhands_cli/mcp/mcp_utils.py`, fastmcp 3.2.0
///   `StdioMCPServer`): `model_dump_json` without `exclude_none`: `env: {}`,
///   `transport: "stdio"`, `null` for every optional field, `enabled: true` from `mcp add`.
/// - Hermes (hermes-agent 1c9798c `hermes_cli/tools_config_mcp.py`): a tool disabled and
///   enabled again leaves `tools: {exclude: []}`; `hermes mcp add` writes `enabled: true`.
/// - Amazon Q Developer CLI (aws/amazon-q-developer-cli 15cc8f3 `cli/mcp.rs`,
///   `cli/chat/tools/custom_tool.rs`): `q mcp add` re-saves every entry through
///   `CustomToolConfig`, writing `url: ""`, `headers: {}`, the default `oauthScopes`,
///   `timeout: 120000` and `disabled: false` out.
#[test]
fn a_clients_whole_file_save_keeps_our_entry_ours() {
    type Resave = fn(&str) -> String;
    let goose: Resave = |t| {
        if t.contains("    bundled: null\n") {
            return t.to_string(); // saved before, and kept by the update (Goose's own keys)
        }
        t.replace(
            "    timeout: 300\n",
            "    env_keys: []\n    timeout: 300\n    bundled: null\n    available_tools: []\n",
        )
        .replace("description: \"\"", "description: ''")
    };
    let openhands: Resave = |t| {
        let mut v: Value = serde_json::from_str(t).unwrap();
        let e = &mut v["mcpServers"][NAME];
        for (k, x) in [
            ("env", serde_json::json!({})),
            ("transport", serde_json::json!("stdio")),
            ("type", Value::Null),
            ("cwd", Value::Null),
            ("timeout", Value::Null),
            ("keep_alive", Value::Null),
            ("description", Value::Null),
            ("icon", Value::Null),
            ("authentication", Value::Null),
            ("enabled", serde_json::json!(true)),
        ] {
            e[k] = x;
        }
        serde_json::to_string_pretty(&v).unwrap()
    };
    let hermes: Resave = |t| {
        if t.contains("      exclude: []\n") {
            return t.to_string(); // saved before, and kept by the update
        }
        let at = t.find(NAME).unwrap();
        let at = at + t[at..].find('\n').unwrap() + 1;
        format!(
            "{}    enabled: true\n    tools:\n      exclude: []\n{}",
            &t[..at],
            &t[at..]
        )
    };
    let amazonq: Resave = |t| {
        let mut v: Value = serde_json::from_str(t).unwrap();
        let e = &mut v["mcpServers"][NAME];
        for (k, x) in [
            ("type", serde_json::json!("stdio")),
            ("url", serde_json::json!("")),
            ("headers", serde_json::json!({})),
            (
                "oauthScopes",
                serde_json::json!(["openid", "email", "profile", "offline_access"]),
            ),
            ("timeout", serde_json::json!(120000)),
            ("disabled", serde_json::json!(false)),
        ] {
            e[k] = x;
        }
        serde_json::to_string_pretty(&v).unwrap()
    };
    for (client, resave) in [
        ("goose", goose),
        ("openhands", openhands),
        ("hermes", hermes),
        ("amazonq", amazonq),
    ] {
        let e = Env::new();
        e.manifest(&manifest(client, "a", ""));
        let (code, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(code, 0, "{client}: {doc:#}");
        let path = target_path(&e);
        let text = std::fs::read_to_string(&path).unwrap();
        let saved = resave(&text);
        assert_ne!(saved, text, "{client}: the emulated save changed nothing");
        std::fs::write(&path, &saved).unwrap();
        let recs = status(&e);
        assert_eq!(recs[0]["state"], "intact", "{client}: {recs:#?}\n{saved}");
        let out = e.run(&["plan", "--check"]);
        assert_eq!(out.status.code(), Some(0), "{client}: {}", show(&out));
        // An update applies over the client's save.
        e.manifest(&manifest(client, "b", ""));
        let out = e.run(&["apply", "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{client}: {}", show(&out));
        // A real edit beside the defaults is drift.
        let now = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, add_foreign_key(&resave(&now), client)).unwrap();
        let (code, doc) = e.json(&["prune", "--yes"]);
        assert_eq!(code, 3, "{client}: {doc:#}");
        assert_eq!(doc["errors"][0]["code"], "drift", "{client}: {doc:#}");
        // Without it, prune removes the entry.
        std::fs::write(&path, resave(&now)).unwrap();
        let out = e.run(&["prune", "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{client}: {}", show(&out));
        let left = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(!left.contains(NAME), "{client}: left:\n{left}");
    }
}

/// `auto_approve = true` (issue 40, contract fourth round) renders each client's own trust
/// form — Gemini's and Qwen's `"trust": true` — and fails the target with `cannot-express`
/// where the client has none. Without it, a `trust` the user or `gemini mcp add --trust` wrote
/// into our entry is Gemini's own state: the entry stays ours, an update keeps it, prune
/// removes the entry.
#[test]
fn auto_approve_is_each_clients_trust_or_cannot_express() {
    for client in ["gemini", "qwen"] {
        let e = Env::new();
        e.manifest(&format!(
            "{}scope = \"project\"\nauto_approve = true\n",
            manifest(client, "a", "")
        ));
        let (code, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(code, 0, "{client}: {doc:#}");
        let path = target_path(&e);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["mcpServers"][NAME]["trust"], true, "{client}: {v:#}");
        assert_eq!(status(&e)[0]["state"], "intact", "{client}");
        // Declared: the client's switch back off is the user's edit, drift.
        std::fs::write(
            &path,
            std::fs::read_to_string(&path)
                .unwrap()
                .replace("\"trust\": true", "\"trust\": false"),
        )
        .unwrap();
        assert_eq!(status(&e)[0]["state"], "drifted", "{client}");
    }
    let e = Env::new();
    e.manifest(&format!(
        "{}auto_approve = true\n",
        manifest("cursor", "a", "")
    ));
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(doc["errors"][0]["code"], "cannot-express", "{doc:#}");
    // Not declared: Gemini's own `trust` keeps the entry ours.
    let e = Env::new();
    e.manifest(&format!(
        "{}scope = \"project\"\n",
        manifest("gemini", "a", "")
    ));
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    let path = target_path(&e);
    let (text, member) =
        add_client_key(&std::fs::read_to_string(&path).unwrap(), "gemini", "trust");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(status(&e)[0]["state"], "intact");
    e.manifest(&format!(
        "{}scope = \"project\"\n",
        manifest("gemini", "b", "")
    ));
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    assert!(std::fs::read_to_string(&path).unwrap().contains(&member));
    assert_eq!(e.json(&["prune", "--yes"]).0, 0);
    assert!(
        !std::fs::read_to_string(&path)
            .unwrap_or_default()
            .contains(NAME)
    );
}
