//! CLI tests over the contract's surface: commands, exit codes, JSON output, refusals, actions,
//! byte preservation. Each test runs the real binary in a scratch root/home/state.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{Env, codes, mcpconf_cmd, show};

const SERVERS: &str = r#"
[servers.openab]
url = "http://127.0.0.1:8848/mcp"
headers = { Authorization = "Bearer ${OPENAB_SESSION_TOKEN}" }

[servers.browser]
command = "agent-browser"
args = ["mcp", "--tools", "core"]
env = { IDLE_MS = "3600000" }
"#;

fn manifest_for(targets: &str) -> String {
    format!("owner = \"openab\"\n{SERVERS}\n{targets}")
}

fn ops(doc: &Value, file: usize) -> Vec<(String, String)> {
    doc["files"][file]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["op"].as_str().unwrap().to_string(),
                a["server"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pair(op: &str, server: &str) -> (String, String) {
    (op.to_string(), server.to_string())
}

#[test]
fn schema_command_prints_the_shipped_schema() {
    let out = mcpconf_cmd().arg("schema").output().unwrap();
    assert!(out.status.success());
    let shipped =
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/manifest.schema.json"))
            .unwrap();
    assert_eq!(out.stdout, shipped);
    let v: Value = serde_json::from_slice(&shipped).unwrap();
    assert_eq!(
        v["required"],
        serde_json::json!(["owner", "servers", "targets"])
    );
}

#[test]
fn clients_lists_every_client_with_paths() {
    let out = mcpconf_cmd()
        .args(["clients", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = v["clients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for id in ["json", "cursor", "claude-code", "kiro"] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    let text = mcpconf_cmd().arg("clients").output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(".cursor/mcp.json"));
    assert!(text.contains(".kiro/settings/mcp.json"));
    assert!(text.contains("${env:VAR}"));
}

#[test]
fn manifest_errors_exit_2_with_line_and_column() {
    let e = Env::new();
    e.manifest("owner = \"openab\"\n[servers.a]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\nservrs = [\"a\"]\n");
    let (code, doc) = e.json(&["plan"]);
    assert_eq!(code, 2);
    let err = &doc["errors"][0];
    assert_eq!(err["code"], "manifest-error");
    assert_eq!(
        (err["line"].as_u64(), err["column"].as_u64()),
        (Some(6), Some(1))
    );
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `servers`?")
    );
    let out = e.run(&["plan"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("mcpconf.toml:6:1"), "{stderr}");

    e.manifest("owner = \"openab\"\n[servers.a]\ncommand = \"x\"\nurl = \"http://h\"\n[[targets]]\nclient = \"cursor\"\n");
    let (code, doc) = e.json(&["plan"]);
    assert_eq!(code, 2);
    assert!(
        doc["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("both `command` and `url`")
    );
}

#[test]
fn plan_writes_nothing_and_apply_creates_0600() {
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    let (code, doc) = e.json(&["plan"]);
    assert_eq!(code, 0);
    assert_eq!(doc["changed"], true);
    assert_eq!(doc["files"][0]["status"], "created");
    assert!(!e.path(".cursor").exists(), "plan must not create anything");
    assert_eq!(
        fs::read_dir(e.state()).unwrap().count(),
        0,
        "plan writes no ledger"
    );
    let check = e.run(&["plan", "--check"]);
    assert_eq!(check.status.code(), Some(1));

    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["changed"], true);
    let p = e.path(".cursor/mcp.json");
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let v: Value = serde_json::from_slice(&e.read(".cursor/mcp.json")).unwrap();
    assert_eq!(
        v["mcpServers"]["openab"]["headers"]["Authorization"],
        "Bearer ${env:OPENAB_SESSION_TOKEN}"
    );
    assert_eq!(
        v["mcpServers"]["browser"]["args"],
        serde_json::json!(["mcp", "--tools", "core"])
    );

    // Nothing to do: nothing written (same inode, same mtime).
    let before = fs::metadata(&p).unwrap();
    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 0);
    assert_eq!(doc["changed"], false);
    assert_eq!(doc["files"][0]["status"], "unchanged");
    let after = fs::metadata(&p).unwrap();
    assert_eq!(
        (before.ino(), before.mtime_nsec()),
        (after.ino(), after.mtime_nsec())
    );
    assert_eq!(e.run(&["plan", "--check"]).status.code(), Some(0));
}

#[test]
fn apply_without_yes_and_without_terminal_refuses_with_exit_2() {
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    let out = e.run(&["apply"]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("+++"), "the diff is shown first: {stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert!(!e.path(".cursor/mcp.json").exists());
}

/// Every fail-closed refusal: exit 3, a stable code, the file byte-identical with its mtime,
/// and nothing written to the other (valid) target either.
#[test]
fn refusals_leave_every_file_untouched() {
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(5000), "]".repeat(5000));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "trailing comma",
            b"{\"mcpServers\": {},}\n".to_vec(),
            "parse-error",
        ),
        (
            "comment",
            b"{ // c\n\"mcpServers\": {}}\n".to_vec(),
            "parse-error",
        ),
        (
            "duplicate key",
            b"{\"mcpServers\": {\"a\": {\"x\": 1, \"x\": 2}}}".to_vec(),
            "duplicate-key",
        ),
        (
            "invalid utf-8",
            b"{\"a\": \"\xff\"}".to_vec(),
            "invalid-utf8",
        ),
        ("NaN", b"{\"a\": NaN}".to_vec(), "parse-error"),
        (
            "lone surrogate",
            b"{\"a\": \"\\ud800\"}".to_vec(),
            "parse-error",
        ),
        ("too deep", deep.into_bytes(), "too-deep"),
        ("empty", b"".to_vec(), "empty-file"),
        ("whitespace", b"  \n\n".to_vec(), "empty-file"),
        ("array root", b"[]".to_vec(), "not-an-object"),
        (
            "container not object",
            b"{\"mcpServers\": []}".to_vec(),
            "not-an-object",
        ),
        (
            "truncated",
            b"{\"mcpServers\": {\"a\": ".to_vec(),
            "parse-error",
        ),
        (
            "single quotes",
            b"{'mcpServers': {}}".to_vec(),
            "parse-error",
        ),
    ];
    for (what, content, code) in cases {
        let e = Env::new();
        e.manifest(&manifest_for(
            "[[targets]]\nclient = \"kiro\"\n[[targets]]\nclient = \"cursor\"\n",
        ));
        let good = e.write(".kiro/settings/mcp.json", "{\"mcpServers\": {}}\n");
        let bad = e.write(".cursor/mcp.json", &content);
        let good_m = fs::metadata(&good).unwrap();
        let bad_m = fs::metadata(&bad).unwrap();
        let (exit, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(exit, 3, "{what}: {doc}");
        assert!(codes(&doc).contains(&code.to_string()), "{what}: {doc}");
        let err = doc["errors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["code"] == code)
            .unwrap();
        assert!(err["line"].as_u64().unwrap() >= 1 && err["column"].as_u64().unwrap() >= 1);
        assert!(
            err["path"].as_str().unwrap().ends_with(".cursor/mcp.json"),
            "{what}: {err}"
        );
        assert_eq!(
            fs::read(&bad).unwrap(),
            content,
            "{what}: refused file changed"
        );
        assert_eq!(
            fs::metadata(&bad).unwrap().mtime_nsec(),
            bad_m.mtime_nsec(),
            "{what}"
        );
        assert_eq!(
            fs::read(&good).unwrap(),
            b"{\"mcpServers\": {}}\n",
            "{what}: other target written"
        );
        assert_eq!(
            fs::metadata(&good).unwrap().mtime_nsec(),
            good_m.mtime_nsec(),
            "{what}"
        );
        let stray: Vec<_> = fs::read_dir(e.path(".cursor")).unwrap().collect();
        assert_eq!(stray.len(), 1, "{what}: stray files left");
        assert_eq!(doc["changed"], false, "{what}");
    }
}

#[test]
fn positions_of_refusals_are_exact() {
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    e.write(
        ".cursor/mcp.json",
        "{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"a\": 2\n  }\n}\n",
    );
    let (exit, doc) = e.json(&["plan"]);
    assert_eq!(exit, 3);
    let err = &doc["errors"][0];
    assert_eq!(err["code"], "duplicate-key");
    assert_eq!(err["line"], 4, "{err}");
    let out = e.run(&["plan"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".cursor/mcp.json:4:"), "{stderr}");
    assert!(stderr.contains("cursor"), "the client is named: {stderr}");
}

#[test]
fn special_files_and_links_are_refused() {
    // A directory where the file should be.
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    fs::create_dir_all(e.path(".cursor/mcp.json")).unwrap();
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(codes(&doc), vec!["not-a-file"]);

    // A FIFO: refused without blocking.
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    fs::create_dir_all(e.path(".cursor")).unwrap();
    let fifo = e.path(".cursor/mcp.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3);
    assert_eq!(codes(&doc), vec!["not-a-file"]);

    // A symlink loop.
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    fs::create_dir_all(e.path(".cursor")).unwrap();
    std::os::unix::fs::symlink("b.json", e.path(".cursor/mcp.json")).unwrap();
    std::os::unix::fs::symlink("mcp.json", e.path(".cursor/b.json")).unwrap();
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3);
    assert_eq!(codes(&doc), vec!["symlink-loop"]);
}

#[test]
fn a_symlinked_file_stays_a_symlink() {
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    let real = e.write("dotfiles/cursor.json", "{\"mcpServers\": {}}\n");
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    fs::create_dir_all(e.path(".cursor")).unwrap();
    std::os::unix::fs::symlink("../dotfiles/cursor.json", e.path(".cursor/mcp.json")).unwrap();
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let link = fs::symlink_metadata(e.path(".cursor/mcp.json")).unwrap();
    assert!(link.file_type().is_symlink());
    let v: Value = serde_json::from_slice(&fs::read(&real).unwrap()).unwrap();
    assert!(v["mcpServers"]["openab"].is_object());
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[test]
fn conflicts_unowned_matches_and_adopt() {
    let e = Env::new();
    e.manifest(&manifest_for(
        "[[targets]]\nclient = \"cursor\"\nservers = [\"browser\"]\n",
    ));
    // The user's own entry of the same name, different: conflict.
    let original = "{\"mcpServers\": {\"browser\": {\"command\": \"my-browser\"}}}\n";
    e.write(".cursor/mcp.json", original);
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3);
    assert_eq!(codes(&doc), vec!["conflict"]);
    assert_eq!(ops(&doc, 0), vec![pair("conflict", "browser")]);
    assert_eq!(e.text(".cursor/mcp.json"), original);

    // Equal to what we want but not ours: left alone, reported.
    let equal = "{\"mcpServers\": {\"browser\": {\"command\": \"agent-browser\", \"args\": [\"mcp\", \"--tools\", \"core\"], \"env\": {\"IDLE_MS\": \"3600000\"}}}}\n";
    e.write(".cursor/mcp.json", equal);
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0);
    assert_eq!(ops(&doc, 0), vec![pair("unowned-match", "browser")]);
    assert_eq!(doc["changed"], false);
    // Not ours: prune does not touch it.
    let (exit, _) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0);
    assert_eq!(e.text(".cursor/mcp.json"), equal);

    // `plan --adopt` shows what `apply --adopt` would record, as a change, and records
    // nothing; its saved plan adopts when applied.
    let (exit, doc) = e.json(&["plan", "--adopt"]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(ops(&doc, 0), vec![pair("adopt", "browser")]);
    assert_eq!(doc["changed"], true, "adopting writes the ledger: a change");
    assert_eq!(e.json(&["plan", "--adopt", "--check"]).0, 1);
    let status = e.run(&["status", "--format", "json"]);
    let st: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(
        st["records"],
        serde_json::json!([]),
        "plan recorded nothing"
    );
    let saved = e.path("adopt.plan");
    let saved = saved.to_str().unwrap();
    assert_eq!(e.json(&["plan", "--adopt", "--out", saved]).0, 0);

    // --adopt records it (here through the saved plan); then a manifest change updates it,
    // and prune removes it.
    let (exit, doc) = e.json(&["apply", "--yes", saved]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(ops(&doc, 0), vec![pair("adopt", "browser")]);
    let (exit, doc) = e.json(&["apply", "--yes", "--adopt"]);
    assert_eq!(exit, 0);
    assert_eq!(ops(&doc, 0), vec![pair("keep", "browser")]);
    assert_eq!(doc["changed"], false);
    assert_eq!(e.text(".cursor/mcp.json"), equal, "adopt writes no file");
    let status = e.run(&["status", "--format", "json"]);
    let st: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(st["records"][0]["state"], "intact");
    e.manifest(
        &manifest_for("[[targets]]\nclient = \"cursor\"\nservers = [\"browser\"]\n")
            .replace("\"core\"", "\"all\""),
    );
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(ops(&doc, 0), vec![pair("update", "browser")]);
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0);
    assert_eq!(ops(&doc, 0), vec![pair("remove", "browser")]);
    let v: Value = serde_json::from_slice(&e.read(".cursor/mcp.json")).unwrap();
    assert_eq!(v["mcpServers"], serde_json::json!({}));
}

#[test]
fn drift_is_refused_by_apply_and_prune() {
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    // The user edits our entry.
    let edited = e
        .text(".cursor/mcp.json")
        .replace("agent-browser", "my-fork");
    e.write(".cursor/mcp.json", &edited);
    let status = e.run(&["status", "--format", "json"]);
    let st: Value = serde_json::from_slice(&status.stdout).unwrap();
    let states: Vec<&str> = st["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert!(
        states.contains(&"drifted") && states.contains(&"intact"),
        "{st}"
    );
    // A manifest change to the drifted entry: refused.
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n").replace("\"core\"", "\"all\""));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3);
    assert_eq!(codes(&doc), vec!["drift"]);
    assert_eq!(e.text(".cursor/mcp.json"), edited);
    // Prune refuses too, and writes nothing (not even the intact entry's removal).
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 3);
    assert_eq!(codes(&doc), vec!["drift"]);
    assert_eq!(e.text(".cursor/mcp.json"), edited);
}

#[test]
fn switching_modes_removes_only_owned_and_legacy_entries() {
    let e = Env::new();
    let user = "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"x\"},\n    \"openab-browser\": {\"command\": \"openab\", \"args\": [\"browser-bridge\"]},\n    \"lookalike\": {\"command\": \"openab\", \"args\": [\"browser-bridge\", \"--debug\"]}\n  }\n}\n";
    e.write(".cursor/mcp.json", user);
    let legacy = "\n[[legacy]]\nname = \"openab-browser\"\nentry = { command = \"openab\", args = [\"browser-bridge\"] }\n[[legacy]]\nname = \"lookalike\"\nentry = { command = \"openab\", args = [\"browser-bridge\"] }\n";
    e.manifest(&(manifest_for("[[targets]]\nclient = \"cursor\"\n") + legacy));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let got = ops(&doc, 0);
    assert!(
        got.contains(&pair("legacy-remove", "openab-browser")),
        "{got:?}"
    );
    assert!(
        !got.iter().any(|(_, s)| s == "lookalike" || s == "mine"),
        "{got:?}"
    );
    let v: Value = serde_json::from_slice(&e.read(".cursor/mcp.json")).unwrap();
    let names: Vec<&String> = v["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["mine", "lookalike", "openab", "browser"]);

    // Mode switch: the manifest drops `browser` and moves to Kiro only.
    e.manifest(
        &(manifest_for("[[targets]]\nclient = \"kiro\"\nservers = [\"openab\"]\n") + legacy),
    );
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let v: Value = serde_json::from_slice(&e.read(".cursor/mcp.json")).unwrap();
    let names: Vec<&String> = v["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(
        names,
        ["mine", "lookalike"],
        "only owned entries are removed"
    );
    let k: Value = serde_json::from_slice(&e.read(".kiro/settings/mcp.json")).unwrap();
    assert!(k["mcpServers"]["openab"].is_object());
}

#[test]
fn json_report_has_the_contract_shape() {
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"claude-code\"\n"));
    let (exit, doc) = e.json(&["plan"]);
    assert_eq!(exit, 0);
    assert_eq!(doc["format_version"], 1);
    assert_eq!(doc["owner"], "openab");
    assert_eq!(doc["changed"], true);
    let f = &doc["files"][0];
    assert!(f["path"].as_str().unwrap().ends_with("/root/.mcp.json"));
    assert!(Path::new(f["path"].as_str().unwrap()).is_absolute());
    assert_eq!(f["client"], "claude-code");
    assert_eq!(f["status"], "created");
    assert_eq!(
        ops(&doc, 0),
        vec![pair("add", "openab"), pair("add", "browser")]
    );
    assert!(
        f["diff"]
            .as_str()
            .unwrap()
            .contains("+      \"type\": \"http\""),
        "{}",
        f["diff"]
    );
    assert_eq!(doc["errors"], serde_json::json!([]));
}

#[test]
fn secrets_never_appear_in_output() {
    let e = Env::new();
    e.manifest(
        "owner = \"o\"\n[servers.api]\nurl = \"https://api.example/mcp\"\nheaders = { Authorization = \"Bearer sk-live-TOPSECRET-123\" }\n[[targets]]\nclient = \"cursor\"\n",
    );
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"gh\": {\"command\": \"npx\", \"env\": {\"GITHUB_TOKEN\": \"ghp_USERSECRET0000\"}}}}\n",
    );
    for args in [
        &["plan"][..],
        &["plan", "--format", "json"],
        &["apply", "--yes"],
        &["prune", "--yes", "--format", "json"],
    ] {
        let out = e.run(args);
        for stream in [&out.stdout, &out.stderr] {
            let s = String::from_utf8_lossy(stream);
            assert!(
                !s.contains("TOPSECRET") && !s.contains("USERSECRET"),
                "{args:?}: {s}"
            );
        }
    }
    let out = e.run(&["plan", "--format", "json"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("<redacted>"));
    for entry in walk(&e.state()) {
        let bytes = fs::read(&entry).unwrap();
        let s = String::from_utf8_lossy(&bytes);
        assert!(
            !s.contains("TOPSECRET") && !s.contains("USERSECRET"),
            "{}",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn cannot_express_fails_closed() {
    let e = Env::new();
    e.manifest("owner = \"o\"\n[servers.s]\ncommand = \"x\"\ncwd = \"/srv\"\n[[targets]]\nclient = \"cursor\"\n[[targets]]\nclient = \"json\"\npath = \"generic.json\"\n");
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3);
    assert_eq!(codes(&doc), vec!["cannot-express"]);
    let msg = doc["errors"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("cursor") && msg.contains("`s`") && msg.contains("cwd"),
        "{msg}"
    );
    assert!(
        !e.path("generic.json").exists(),
        "nothing is written to any target"
    );
}

#[test]
fn prune_restores_original_bytes_of_a_commented_file() {
    let e = Env::new();
    e.manifest(&manifest_for(
        "[[targets]]\nclient = \"json\"\npath = \"agent/mcp.jsonc\"\n",
    ));
    let original = "\u{feff}// my servers\r\n{\r\n\t\"mcpServers\": {\r\n\t\t/* keep */ \"mine\": {\"command\": \"x\", \"n\": 12345678901234567890, \"f\": 1.50},\r\n\t},\r\n\t\"other\": [1, 2,],\r\n}\r\n";
    e.write("agent/mcp.jsonc", original);
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let applied = e.text("agent/mcp.jsonc");
    assert!(
        applied.starts_with("\u{feff}// my servers\r\n"),
        "{applied:?}"
    );
    assert!(applied.contains("12345678901234567890") && applied.contains("1.50"));
    assert!(
        !applied.replace("\r\n", "").contains('\n'),
        "CRLF kept: {applied:?}"
    );
    assert!(
        applied.contains("\t\t\"openab\""),
        "tab indentation followed: {applied:?}"
    );
    let (exit, _) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0);
    assert_eq!(e.text("agent/mcp.jsonc"), original);
}

#[test]
fn apply_then_prune_of_a_created_file_removes_it() {
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"kiro\"\n"));
    assert_eq!(e.json(&["apply", "--yes"]).0, 0);
    assert!(e.path(".kiro/settings/mcp.json").exists());
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(!e.path(".kiro/settings/mcp.json").exists());
    // Prune with --owner works without a manifest.
    fs::remove_file(e.base.join("mcpconf.toml")).unwrap();
    let out = e.run(&["prune", "--owner", "openab", "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_project_link_out_of_the_project_is_refused() {
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    let outside = e.base.join("elsewhere.json");
    fs::write(&outside, "{}\n").unwrap();
    fs::create_dir_all(e.path(".cursor")).unwrap();
    std::os::unix::fs::symlink(&outside, e.path(".cursor/mcp.json")).unwrap();
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(codes(&doc), vec!["symlink-escape"]);
    assert_eq!(fs::read(&outside).unwrap(), b"{}\n");
}

#[test]
fn a_refusal_creates_no_directory_for_another_target() {
    let e = Env::new();
    e.manifest(&manifest_for(
        "[[targets]]\nclient = \"kiro\"\n[[targets]]\nclient = \"cursor\"\n",
    ));
    e.write(".cursor/mcp.json", "{\"mcpServers\": {},}\n");
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert!(
        !e.path(".kiro").exists(),
        "no directory may be created when the run is refused"
    );
}

/// On a terminal, apply shows the diff and asks; anything but yes writes nothing (exit 2).
/// Uses util-linux `script` to give the process a pseudo-terminal.
#[test]
fn apply_on_a_terminal_asks_for_confirmation() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed");
        return;
    }
    let e = Env::new();
    e.manifest(&manifest_for("[[targets]]\nclient = \"cursor\"\n"));
    let cmdline = |answer: &str| {
        let bin = crate::common::bin();
        let args = format!(
            "{bin} apply --color never -m {} --root {} --home {} --state-dir {}",
            e.base.join("mcpconf.toml").display(),
            e.root().display(),
            e.base.join("home").display(),
            e.state().display()
        );
        let mut c = Command::new("sh");
        c.arg("-c").arg(format!(
            "printf '{answer}\\n' | script -qec '{args}' /dev/null"
        ));
        c.output().unwrap()
    };
    let out = cmdline("n");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Apply these changes? [y/N]"), "{text}");
    assert!(text.contains("+++"), "the diff comes first: {text}");
    assert!(!e.path(".cursor/mcp.json").exists());
    let out = cmdline("y");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Applied: 1 file"), "{text}");
    assert!(e.path(".cursor/mcp.json").exists());
}

/// The manifest reference documents every key the schema defines.
#[test]
fn the_manifest_reference_covers_the_schema() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = fs::read_to_string(repo.join("docs/manifest.md")).unwrap();
    let schema: Value = serde_json::from_str(
        &fs::read_to_string(repo.join("schemas/manifest.schema.json")).unwrap(),
    )
    .unwrap();
    let mut keys: Vec<String> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    for def in ["target", "legacy"] {
        keys.extend(
            schema["$defs"][def]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned(),
        );
    }
    for variant in schema["$defs"]["server"]["oneOf"].as_array().unwrap() {
        keys.extend(variant["properties"].as_object().unwrap().keys().cloned());
    }
    for k in keys {
        let forms = [
            format!("{k} ="),
            format!("`{k}`"),
            format!("[[{k}]]"),
            format!("[{k}."),
        ];
        let documented = forms.iter().any(|form| doc.contains(form.as_str()));
        assert!(documented, "docs/manifest.md does not document `{k}`");
    }
}

#[test]
fn a_symlinked_manifest_is_read() {
    let e = Env::new();
    let real = e.base.join("dotfiles-manifest.toml");
    fs::write(&real, manifest_for("[[targets]]\nclient = \"cursor\"\n")).unwrap();
    std::os::unix::fs::symlink(&real, e.base.join("mcpconf.toml")).unwrap();
    let (exit, doc) = e.json(&["plan"]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(doc["owner"], "openab");
}

/// Usage errors are clap's: exit 2 with a hint, nothing else run.
#[test]
fn usage_errors_exit_2() {
    use predicates::prelude::*;
    assert_cmd::Command::from_std(mcpconf_cmd())
        .arg("aply")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("apply"));
    assert_cmd::Command::from_std(mcpconf_cmd())
        .args(["plan", "--format", "yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("possible values"));
    assert_cmd::Command::from_std(mcpconf_cmd())
        .args(["plan", "--format", "sarif"])
        .env("MCPCONF_MANIFEST", "/nonexistent/mcpconf.toml")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("lint"));
    assert_cmd::Command::from_std(mcpconf_cmd())
        .args(["plan", "--lock-timeout", "-1"])
        .assert()
        .code(2);
    assert_cmd::Command::from_std(mcpconf_cmd())
        .args([
            "plan",
            "-m",
            "/nonexistent/mcpconf.toml",
            "--format",
            "json",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("\"manifest-missing\""));
}

/// A reader that stops early closes stdout (`mcpconf schema | head -c1`): the next write fails
/// with EPIPE, which must end the output quietly (no panic, exit 0), as ripgrep does. The read end
/// is closed before the child starts, so every write it makes fails.
#[test]
fn a_closed_stdout_ends_quietly() {
    for args in [
        &["schema"][..],
        &["clients"],
        &["clients", "--format", "json"],
        &["completions", "bash"],
        &["man"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = mcpconf_cmd()
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

/// Any other failure to write stdout (a full disk behind a redirect) is an I/O error, exit 4,
/// said once on stderr; never a panic.
#[test]
fn a_failing_stdout_is_an_io_error() {
    let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("SKIPPED: no /dev/full here");
        return;
    };
    let out = mcpconf_cmd().arg("schema").stdout(full).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        stderr.matches("cannot write to standard output").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn with_format_json_every_error_is_a_json_document() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let m = dir.path().join("mcpconf.toml");
    fs::write(
        &m,
        "owner = \"o\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n",
    )
    .unwrap();
    let m = m.to_str().unwrap();
    let missing = missing.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        // A usage error found by mcpconf (a --root that does not exist), before and after the
        // subcommand.
        vec!["plan", "-m", m, "--root", missing, "--format", "json"],
        vec!["--format=json", "status", "-m", m, "--root", missing],
        // Refused by clap: an unknown flag, a missing value, an unknown subcommand.
        vec!["apply", "--no-such-flag", "--format", "json"],
        vec!["plan", "--format", "json", "--root"],
        vec!["--format", "json", "no-such-command"],
        // Errors of commands that print their own documents.
        vec![
            "import", "--client", "cursor", "--root", missing, "--format", "json",
        ],
        vec!["import", "--client", "no-such-client", "--format", "json"],
        vec!["probe", "-m", m, "no-such-server", "--format", "json"],
        vec!["lint", "-m", missing, "--format", "json"],
    ];
    for args in cases {
        let out = mcpconf_cmd()
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", show(&out)));
        assert_eq!(doc["format_version"], 1, "{args:?}: {doc}");
        let errors = doc["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1, "{args:?}: {doc}");
        assert!(
            !errors[0]["message"].as_str().unwrap().is_empty(),
            "{args:?}: {doc}"
        );
        assert!(out.stderr.is_empty(), "{args:?}: {}", show(&out));
    }
    // Text stays text, and --help / --version are not errors.
    let out = mcpconf_cmd()
        .args(["apply", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    for flag in ["--help", "--version"] {
        let out = mcpconf_cmd()
            .args([flag, "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{flag}");
        assert!(
            serde_json::from_slice::<Value>(&out.stdout).is_err(),
            "{flag}"
        );
    }
}

/// A file that is not UTF-8 is reported in one wording by every reader: `plan` (a JSON and a
/// TOML file) and `lint` begin with the same message and the bad byte's offset.
#[test]
fn invalid_utf8_is_worded_the_same_by_plan_and_lint() {
    let e = Env::new();
    e.manifest(&manifest_for(
        "[[targets]]\nclient = \"cursor\"\n[[targets]]\nclient = \"codex\"\n",
    ));
    e.write(".cursor/mcp.json", b"{\"a\": \"\xff\"}\n");
    let toml = e.base.join("home/.codex/config.toml");
    fs::create_dir_all(toml.parent().unwrap()).unwrap();
    fs::write(&toml, b"a = \"\xff\"\n").unwrap();
    let want = |offset: usize| format!("the file is not valid UTF-8 (bad byte at offset {offset})");

    let (exit, doc) = e.json(&["plan"]);
    assert_eq!(exit, 3, "{doc}");
    let mut seen = Vec::new();
    for err in doc["errors"].as_array().unwrap() {
        assert_eq!(err["code"], "invalid-utf8", "{err}");
        let path = err["path"].as_str().unwrap();
        let offset = if path.ends_with("mcp.json") { 7 } else { 5 };
        // (plan goes on to say which client reads the file as what)
        assert!(
            err["message"].as_str().unwrap().starts_with(&want(offset)),
            "{err}"
        );
        seen.push(offset);
    }
    seen.sort();
    assert_eq!(seen, [5, 7], "{doc}");

    let out = e.run(&["lint", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "parse-error")
        .collect();
    assert_eq!(findings.len(), 2, "{doc}");
    for f in findings {
        let offset = if f["path"].as_str().unwrap().ends_with("mcp.json") {
            7
        } else {
            5
        };
        assert!(
            f["message"].as_str().unwrap().starts_with(&want(offset)),
            "{f}"
        );
    }
}
