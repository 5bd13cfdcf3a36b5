//! Ownership on real machines (issue 10): workspaces keyed by (owner, workspace), manifest
//! discovery, provable adopt, `--keep-going`, legacy grants, `status` of grants. Every test runs
//! the real binary.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::common::{codes, mcpconf_cmd};

/// Two projects, a home and a state directory, one owner.
struct Machine {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().to_path_buf();
        for d in ["home", "state", "a", "b"] {
            fs::create_dir_all(base.join(d)).unwrap();
        }
        Machine { _dir: dir, base }
    }
    fn p(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.p(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        p
    }
    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.p(rel)).unwrap()
    }
    fn json(&self, rel: &str) -> Value {
        serde_json::from_str(&self.read(rel)).unwrap()
    }
    /// `mcpconf ARGS` run in `cwd` (relative to the base), with home and state but no
    /// `--manifest` or `--root`: discovery and defaults as a user gets them.
    fn cmd(&self, cwd: &str, args: &[&str]) -> Command {
        let mut c = mcpconf_cmd();
        c.current_dir(self.p(cwd))
            .args(args)
            .arg("--home")
            .arg(self.p("home"))
            .arg("--state-dir")
            .arg(self.p("state"))
            // (`mcpconf_cmd` removed the variables a tester's shell may set.)
            .stdin(Stdio::null());
        c
    }
    fn run(&self, cwd: &str, args: &[&str]) -> Output {
        self.cmd(cwd, args).output().unwrap()
    }
    /// Run with `--format json`: (exit code, document).
    fn doc(&self, cwd: &str, args: &[&str]) -> (i32, Value) {
        let mut a = args.to_vec();
        a.extend(["--format", "json"]);
        let out = self.run(cwd, &a);
        let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap_or(-1), doc)
    }
}

fn ops(doc: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for f in doc["files"].as_array().unwrap() {
        for a in f["actions"].as_array().unwrap() {
            out.push((
                a["op"].as_str().unwrap().to_string(),
                a["server"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

fn has(doc: &Value, op: &str, server: &str) -> bool {
    ops(doc).contains(&(op.to_string(), server.to_string()))
}

fn project(name: &str, server: &str, shared_args: &str) -> String {
    format!(
        r#"owner = "dev"

[servers.{server}]
command = "{server}-cmd"

[servers.shared]
command = "shared"
args = {shared_args}

[[targets]]
client = "cursor"
servers = ["{server}"]

[[targets]]
client = "claude-code"
scope = "user"
servers = ["shared"]
# {name}
"#
    )
}

#[test]
fn two_projects_of_one_owner_keep_each_others_entries_and_co_own_the_user_entry() {
    let m = Machine::new();
    m.write("a/mcpconf.toml", &project("a", "alpha", r#"["x"]"#));
    m.write("b/mcpconf.toml", &project("b", "beta", r#"["x"]"#));
    m.write("home/.claude.json", "{\"numStartups\": 3}\n");

    let (code, doc) = m.doc("a", &["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    let (code, doc) = m.doc("b", &["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(
        !ops(&doc).iter().any(|(op, _)| op == "remove"),
        "project b removes nothing of project a: {doc}"
    );
    assert!(has(&doc, "keep", "shared"), "co-owned, not re-added: {doc}");
    assert!(m.json("a/.cursor/mcp.json")["mcpServers"]["alpha"].is_object());
    assert!(m.json("b/.cursor/mcp.json")["mcpServers"]["beta"].is_object());
    let claude = m.read("home/.claude.json");
    assert_eq!(
        claude.matches("\"shared\": {").count(),
        1,
        "written once: {claude}"
    );

    // status shows this workspace; --all lists both.
    let (_, st) = m.doc("a", &["status"]);
    let ws_a = fs::canonicalize(m.p("a")).unwrap().display().to_string();
    assert_eq!(st["workspace"], ws_a.as_str());
    assert!(
        st["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["workspace"] == ws_a.as_str() && r["state"] == "intact"),
        "{st}"
    );
    let (_, all) = m.doc("a", &["status", "--all"]);
    assert_eq!(all["workspaces"].as_array().unwrap().len(), 2, "{all}");
    let text = String::from_utf8(m.run("a", &["status", "--all"]).stdout).unwrap();
    assert!(
        text.contains("(this one)") && text.contains("workspace `"),
        "{text}"
    );

    // Pruning a keeps b's entries, and the co-owned user entry (b still declares it).
    let (code, doc) = m.doc("a", &["prune", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(m.json("b/.cursor/mcp.json")["mcpServers"]["beta"].is_object());
    assert!(
        m.json("home/.claude.json")["mcpServers"]["shared"].is_object(),
        "the last workspace that declares it has not pruned yet"
    );
    assert!(!m.p("a/.cursor/mcp.json").exists(), "a's created file goes");

    // The last one removes it, restoring the user's file byte for byte.
    let (code, doc) = m.doc("b", &["prune", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(m.read("home/.claude.json"), "{\"numStartups\": 3}\n");
    let (_, all) = m.doc("b", &["status", "--all"]);
    assert_eq!(all["records"], json!([]));
}

#[test]
fn a_differing_entry_from_another_workspace_of_the_owner_is_a_conflict() {
    let m = Machine::new();
    m.write("a/mcpconf.toml", &project("a", "alpha", r#"["x"]"#));
    m.write("b/mcpconf.toml", &project("b", "beta", r#"["y"]"#));
    assert_eq!(m.doc("a", &["apply", "--yes"]).0, 0);
    let before = m.read("home/.claude.json");
    let (code, doc) = m.doc("b", &["apply", "--yes"]);
    assert_eq!(code, 3, "{doc}");
    assert_eq!(codes(&doc), ["conflict"]);
    let msg = doc["errors"][0]["message"].as_str().unwrap();
    assert!(msg.contains("workspace") && msg.contains("`args"), "{msg}");
    assert_eq!(m.read("home/.claude.json"), before);
    assert!(!m.p("b/.cursor").exists(), "nothing written anywhere");
}

#[test]
fn a_named_workspace_is_shared_by_manifests_that_name_it() {
    let m = Machine::new();
    let text = |server: &str| {
        format!(
            "owner = \"dev\"\nworkspace = \"global\"\n[servers.{server}]\ncommand = \"c\"\n[[targets]]\nclient = \"claude-code\"\nscope = \"user\"\n"
        )
    };
    m.write("a/mcpconf.toml", &text("one"));
    m.write("b/mcpconf.toml", &text("two"));
    assert_eq!(m.doc("a", &["apply", "--yes"]).0, 0);
    // The same workspace: b's manifest replaces a's declaration, like the old global ledger.
    let (code, doc) = m.doc("b", &["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(
        has(&doc, "remove", "one") && has(&doc, "add", "two"),
        "{doc}"
    );
    // --workspace overrides the manifest: another workspace, so `two` stays.
    let (code, doc) = m.doc("a", &["apply", "--yes", "--workspace", "other"]);
    assert_eq!(code, 0, "{doc}");
    assert!(!has(&doc, "remove", "two"), "{doc}");
    let (_, st) = m.doc("a", &["status", "--workspace", "other"]);
    assert_eq!(st["workspace"], "other");
    // An invalid name is a usage error.
    assert_eq!(
        m.run("a", &["plan", "--workspace", "/tmp"]).status.code(),
        Some(2)
    );
    m.write(
        "a/mcpconf.toml",
        &text("one").replace("\"global\"", "\"Bad Name\""),
    );
    assert_eq!(m.doc("a", &["plan"]).0, 2);
}

#[test]
fn without_manifest_flag_the_manifest_is_found_upward_and_is_the_root() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        "owner = \"dev\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n",
    );
    fs::create_dir_all(m.p("a/src/deep")).unwrap();
    let (code, doc) = m.doc("a/src/deep", &["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(m.json("a/.cursor/mcp.json")["mcpServers"]["s"].is_object());
    assert!(
        !m.p("a/src/deep/.cursor").exists(),
        "not planned into the cwd"
    );
    // -m from a subdirectory: the root is still the manifest's directory.
    let (code, doc) = m.doc("a/src", &["plan", "-m", "../mcpconf.toml"]);
    assert_eq!(code, 0);
    assert_eq!(doc["changed"], false, "{doc}");
    // --root still overrides.
    fs::create_dir_all(m.p("b")).unwrap();
    let root_b = m.p("b").display().to_string();
    let (_, doc) = m.doc("a/src", &["plan", "--root", &root_b]);
    assert!(
        doc["files"][0]["path"]
            .as_str()
            .unwrap()
            .contains("/b/.cursor/mcp.json"),
        "{doc}"
    );
    // The search stops at a repository's top.
    fs::create_dir_all(m.p("a/repo/.git")).unwrap();
    let (code, doc) = m.doc("a/repo", &["plan"]);
    assert_eq!(code, 2, "{doc}");
    assert_eq!(codes(&doc), ["manifest-missing"]);
    assert!(
        doc["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains(".git")
    );
}

#[test]
fn a_ledger_from_before_workspaces_is_claimed_per_file_without_losing_a_record() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        "owner = \"dev\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n",
    );
    // Written by the format-1 mcpconf: one record in project a, one in project b.
    m.write(
        "a/.cursor/mcp.json",
        "{\"mcpServers\": {\"s\": {\"command\": \"x\"}}}\n",
    );
    m.write(
        "b/.cursor/mcp.json",
        "{\"mcpServers\": {\"t\": {\"command\": \"y\"}}}\n",
    );
    let digest = |v: &Value| {
        use sha2::Digest;
        let hex: String = sha2::Sha256::digest(serde_json::to_string(v).unwrap().as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("sha256:{hex}")
    };
    let a = fs::canonicalize(m.p("a/.cursor/mcp.json")).unwrap();
    let b = fs::canonicalize(m.p("b/.cursor/mcp.json")).unwrap();
    let ledger = json!({"format_version": 1, "owner": "dev", "records": [
        {"file": a, "client": "cursor", "pointer": "/mcpServers/s", "kind": "entry",
         "server": "s", "digest": digest(&json!({"command": "x"})), "created_file": true},
        {"file": b, "client": "cursor", "pointer": "/mcpServers/t", "kind": "entry",
         "server": "t", "digest": digest(&json!({"command": "y"})), "created_file": true},
    ]});
    m.write(
        "state/ledger/dev.json",
        &serde_json::to_string_pretty(&ledger).unwrap(),
    );

    // a's first apply: its record is kept (no re-add, no conflict), b's is not touched.
    let (code, doc) = m.doc("a", &["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(has(&doc, "keep", "s"), "{doc}");
    assert!(!has(&doc, "remove", "t"), "{doc}");
    let saved: Value = m.json("state/ledger/dev.json");
    assert_eq!(saved["format_version"], 2);
    assert_eq!(saved["records"].as_array().unwrap().len(), 2, "{saved}");
    let ws_a = fs::canonicalize(m.p("a")).unwrap().display().to_string();
    let claimed: Vec<&Value> = saved["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["workspace"] == ws_a.as_str())
        .collect();
    assert_eq!(claimed.len(), 1, "{saved}");
    assert_eq!(claimed[0]["server"], "s");

    // status --all shows the unclaimed record too.
    let (_, all) = m.doc("a", &["status", "--all"]);
    assert!(
        all["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["server"] == "t" && r["workspace"].is_null() && r["state"] == "intact")
    );

    // b, run with the owner only: claims its own record and prunes it.
    let (code, doc) = m.doc("b", &["prune", "--owner", "dev", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(has(&doc, "remove", "t"), "{doc}");
    // (A format-1 record has no whole-file digest, but the file is, whitespace aside, what
    // mcpconf alone writes: every byte in it is mcpconf's, so it goes.)
    assert!(!m.p("b/.cursor/mcp.json").exists());
    assert!(m.json("a/.cursor/mcp.json")["mcpServers"]["s"].is_object());
}

#[test]
fn status_reports_grants_as_they_are() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        "owner = \"dev\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"kiro-agent\"\nauto_approve = true\n",
    );
    m.write(
        "a/.kiro/agents/one.json",
        "{\n  \"name\": \"one\",\n  \"tools\": [\"fs_read\"]\n}\n",
    );
    assert_eq!(m.doc("a", &["apply", "--yes"]).0, 0);
    let (code, st) = m.doc("a", &["status"]);
    assert_eq!(code, 0);
    let recs = st["records"].as_array().unwrap();
    let grants: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "grant").collect();
    assert_eq!(grants.len(), 2, "tools and allowedTools: {st}");
    assert!(recs.iter().all(|r| r["state"] == "intact"), "{st}");
    // A grant removed by hand is missing; the others stay intact.
    let text = m.read("a/.kiro/agents/one.json");
    m.write(
        "a/.kiro/agents/one.json",
        &text.replacen("\"fs_read\", \"@s\"", "\"fs_read\"", 1),
    );
    let (_, st) = m.doc("a", &["status"]);
    let states: Vec<(String, String)> = st["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["pointer"].as_str().unwrap().to_string(),
                r["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        states.contains(&("/tools/@s".into(), "missing".into())),
        "{states:?}"
    );
    assert!(
        states.contains(&("/allowedTools/@s".into(), "intact".into())),
        "{states:?}"
    );
}

fn adopt_manifest(body: &str) -> String {
    format!("owner = \"dev\"\n{body}\n[[targets]]\nclient = \"claude-code\"\n")
}

#[test]
fn adopt_takes_claude_mcp_adds_exact_output() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        &adopt_manifest("[servers.xbrowser]\ncommand = \"xbrowser\"\nargs = [\"mcp\"]\n"),
    );
    // What `claude mcp add --scope project xbrowser -- xbrowser mcp` writes.
    let written = "{\n  \"mcpServers\": {\n    \"xbrowser\": {\n      \"type\": \"stdio\",\n      \"command\": \"xbrowser\",\n      \"args\": [\n        \"mcp\"\n      ],\n      \"env\": {}\n    }\n  }\n}";
    m.write("a/.mcp.json", written);
    let (code, doc) = m.doc("a", &["plan"]);
    assert_eq!(code, 0, "{doc}");
    assert!(has(&doc, "unowned-match", "xbrowser"), "{doc}");
    let (code, doc) = m.doc("a", &["apply", "--yes", "--adopt"]);
    assert_eq!(code, 0, "{doc}");
    assert!(has(&doc, "adopt", "xbrowser"), "{doc}");
    assert_eq!(m.read("a/.mcp.json"), written, "adopted as it is");
    // Ours now: a second apply keeps it without writing; prune removes it.
    let (code, doc) = m.doc("a", &["apply", "--yes"]);
    assert_eq!((code, doc["changed"].clone()), (0, json!(false)), "{doc}");
    assert!(has(&doc, "keep", "xbrowser"));
    let (code, doc) = m.doc("a", &["prune", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(has(&doc, "remove", "xbrowser"));

    // A real difference stays a conflict that names the field.
    m.write("a/.mcp.json", &written.replace("\"mcp\"", "\"serve\""));
    let (code, doc) = m.doc("a", &["apply", "--yes", "--adopt"]);
    assert_eq!(code, 3, "{doc}");
    assert!(
        doc["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("`args.0`"),
        "{doc}"
    );
}

#[test]
fn adopt_replaces_a_literal_equal_to_the_expanded_reference() {
    let m = Machine::new();
    let secret = "sk-live-ADOPTSECRET-42";
    m.write(
        "a/.mcp.json",
        &format!(
            "{{\"mcpServers\": {{\"api\": {{\"type\": \"http\", \"url\": \"https://api.example/mcp\", \"headers\": {{\"Authorization\": \"Bearer {secret}\"}}}}}}}}\n"
        ),
    );
    // import replaces the literal secret by a reference and says what to run next.
    let out = m.run(
        "a",
        &["import", "--client", "claude-code", "--owner", "dev"],
    );
    assert_eq!(out.status.code(), Some(0));
    let manifest = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!manifest.contains(secret) && !stderr.contains(secret));
    assert!(stderr.contains("mcpconf apply --yes --adopt"), "{stderr}");
    let var = manifest
        .split("${")
        .nth(1)
        .and_then(|r| r.split('}').next())
        .expect("a reference")
        .to_string();
    m.write("a/mcpconf.toml", &manifest);
    let before = m.read("a/.mcp.json");

    // The variable holds another value: no proof, exit 3, nothing written, no value shown.
    let out = m
        .cmd("a", &["apply", "--yes", "--adopt", "--format", "json"])
        .env(&var, "something-else")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(codes(&doc), ["conflict"]);
    assert!(
        doc["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("headers.Authorization")
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains(secret));
    assert_eq!(m.read("a/.mcp.json"), before);

    // Without --adopt the conflict says adopt would prove it.
    let out = m
        .cmd("a", &["plan", "--format", "json"])
        .env(&var, secret)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("apply --adopt"));
    // `plan --adopt` shows the adoption (and its diff) and writes nothing.
    let out = m
        .cmd("a", &["plan", "--adopt", "--format", "json"])
        .env(&var, secret)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{doc}");
    assert!(has(&doc, "adopt", "api"), "{doc}");
    assert_eq!(doc["changed"], true);
    assert!(!String::from_utf8_lossy(&out.stdout).contains(secret));
    assert_eq!(m.read("a/.mcp.json"), before);

    // The variable holds the literal: adopted, the literal replaced by the reference.
    let out = m
        .cmd("a", &["apply", "--yes", "--adopt", "--format", "json"])
        .env(&var, secret)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{doc}");
    assert!(has(&doc, "adopt", "api"), "{doc}");
    let after = m.read("a/.mcp.json");
    assert!(!after.contains(secret), "the secret left the file: {after}");
    assert!(after.contains(&format!("${{{var}}}")), "{after}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(secret));
    // Second run: nothing to do.
    let (code, doc) = m.doc("a", &["apply", "--yes"]);
    assert_eq!((code, doc["changed"].clone()), (0, json!(false)), "{doc}");
}

#[test]
fn keep_going_writes_every_file_it_can_and_exits_3() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        "owner = \"dev\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n[[targets]]\nclient = \"kiro-agent\"\n",
    );
    m.write("a/.kiro/agents/good.json", "{\"name\": \"good\"}\n");
    let truncated = "{\"name\": \"bad\", \"tools\": [\"fs_read\"";
    m.write("a/.kiro/agents/bad.json", truncated);

    // Without the flag: all or nothing.
    let (code, doc) = m.doc("a", &["apply", "--yes"]);
    assert_eq!(code, 3, "{doc}");
    assert!(!m.p("a/.cursor").exists());
    assert_eq!(m.read("a/.kiro/agents/good.json"), "{\"name\": \"good\"}\n");

    let (code, doc) = m.doc("a", &["apply", "--yes", "--keep-going"]);
    assert_eq!(code, 3, "{doc}");
    assert_eq!(codes(&doc), ["parse-error"]);
    assert!(
        doc["errors"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("bad.json")
    );
    assert_eq!(doc["changed"], true);
    assert_eq!(
        m.read("a/.kiro/agents/bad.json"),
        truncated,
        "byte-identical"
    );
    assert!(m.json("a/.cursor/mcp.json")["mcpServers"]["s"].is_object());
    assert!(m.json("a/.kiro/agents/good.json")["mcpServers"]["s"].is_object());

    // Prune has nothing of ours in the broken file: it leaves it alone, saying so, and
    // removes the rest (issue 41).
    let (code, doc) = m.doc("a", &["prune", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(doc.to_string().contains("prune leaves it alone"), "{doc}");
    assert!(!m.p("a/.cursor/mcp.json").exists());
    assert_eq!(m.read("a/.kiro/agents/good.json"), "{\"name\": \"good\"}\n");
    assert_eq!(m.read("a/.kiro/agents/bad.json"), truncated);
}

#[test]
fn keep_going_text_says_what_was_written_and_what_was_refused() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        "owner = \"dev\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n[[targets]]\nclient = \"kiro-agent\"\n",
    );
    m.write("a/.kiro/agents/good.json", "{\"name\": \"good\"}\n");
    m.write(
        "a/.kiro/agents/bad.json",
        "{\"name\": \"bad\", \"tools\": [",
    );

    for (args, written) in [(
        ["apply", "--yes", "--keep-going"],
        ["(created)", "(changed)"],
    )] {
        let out = m.run("a", &args);
        assert_eq!(out.status.code(), Some(3));
        let text = String::from_utf8_lossy(&out.stdout);
        for label in written {
            assert!(text.contains(label), "{args:?}: {text}");
        }
        assert!(text.contains("bad.json (refused)"), "{args:?}: {text}");
        for wrong in [
            "not created",
            "not changed",
            "not removed",
            "nothing was written",
        ] {
            assert!(!text.contains(wrong), "{args:?}: {text}");
        }
        assert!(
            text.contains("refused: 1 file, left unchanged"),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn a_legacy_grant_is_kept_unless_its_entry_goes_with_it() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        r#"owner = "openab"
[servers.openab]
url = "http://127.0.0.1:8848/mcp"
[[targets]]
client = "kiro"
[[targets]]
client = "kiro-agent"
[[legacy]]
name = "openab-browser"
entry = { command = "openab", args = ["browser-bridge"] }
grants = ["@openab-browser"]
"#,
    );
    // The operator's own proxy-shaped server in the workspace settings: not ours.
    let settings =
        "{\"mcpServers\": {\"openab-browser\": {\"url\": \"http://127.0.0.1:9000/mcp\"}}}\n";
    m.write("a/.kiro/settings/mcp.json", settings);
    // An agent without the entry, granting it (not inheriting): the grant stays.
    m.write(
        "a/.kiro/agents/plain.json",
        "{\"name\": \"plain\", \"tools\": [\"@openab-browser\"]}\n",
    );
    // An agent inheriting the settings, where the operator's entry stays visible: stays.
    m.write(
        "a/.kiro/agents/inherits.json",
        "{\"name\": \"inherits\", \"includeMcpJson\": true, \"tools\": [\"@openab-browser\"]}\n",
    );
    // An agent with our legacy bridge entry: entry and grant go together.
    m.write(
        "a/.kiro/agents/bridge.json",
        "{\"name\": \"bridge\", \"mcpServers\": {\"openab-browser\": {\"command\": \"openab\", \"args\": [\"browser-bridge\"]}}, \"tools\": [\"@openab-browser\"]}\n",
    );
    let (code, doc) = m.doc("a", &["plan"]);
    assert_eq!(code, 0, "{doc}");
    let kept: Vec<String> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["actions"].as_array().unwrap().iter())
        .filter(|a| a["op"] == "keep" && a["server"] == "openab-browser")
        .map(|a| a["detail"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kept.len(), 2, "{doc}");
    assert!(
        kept.iter()
            .any(|d| d.contains("not removed from this file")),
        "{kept:?}"
    );
    assert!(kept.iter().any(|d| d.contains("stays visible")), "{kept:?}");

    let (code, doc) = m.doc("a", &["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(
        m.read("a/.kiro/settings/mcp.json")
            .matches("openab-browser")
            .count(),
        1
    );
    assert!(
        m.read("a/.kiro/agents/plain.json")
            .contains("\"@openab-browser\"")
    );
    assert!(
        m.read("a/.kiro/agents/inherits.json")
            .contains("\"@openab-browser\"")
    );
    let bridge = m.read("a/.kiro/agents/bridge.json");
    assert!(!bridge.contains("openab-browser"), "{bridge}");

    // Once the operator removes their entry, the inheriting agent's grant is a dangling legacy
    // grant: removed. The plain agent's stays (its entry was never in that file).
    m.write("a/.kiro/settings/mcp.json", "{\"mcpServers\": {}}\n");
    let (code, doc) = m.doc("a", &["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert!(
        !m.read("a/.kiro/agents/inherits.json")
            .contains("@openab-browser")
    );
    assert!(
        m.read("a/.kiro/agents/plain.json")
            .contains("\"@openab-browser\"")
    );
}

#[test]
fn status_check_fails_where_nothing_was_applied() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        "owner = \"dev\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n",
    );
    let out = m.run("a", &["status", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error[no-records]") && err.contains("run `mcpconf apply`"),
        "{err}"
    );
    let (code, doc) = m.doc("a", &["status", "--check"]);
    assert_eq!((code, codes(&doc)), (1, vec!["no-records".to_string()]));
    // Without --check it is a report, not a failure.
    assert_eq!(m.run("a", &["status"]).status.code(), Some(0));

    assert_eq!(m.run("a", &["apply", "--yes"]).status.code(), Some(0));
    let (code, doc) = m.doc("a", &["status", "--check"]);
    assert_eq!(code, 0, "{doc}");
    assert!(doc.get("errors").is_none(), "{doc}");
}

/// Two workdirs of one owner with different settings for one server in a shared user file
/// (`~/.codex/config.toml`): a conflict whose message says the ways out, and each way out works.
#[test]
fn a_shared_user_file_conflict_says_the_way_out() {
    let m = Machine::new();
    let manifest = |profile: &str, name: &str, scope: &str| {
        format!(
            "owner = \"openab\"\n[servers.{name}]\ncommand = \"agent-browser\"\nargs = [\"--profile\", \"{profile}\"]\n[[targets]]\nclient = \"codex\"\nscope = \"{scope}\"\n"
        )
    };
    m.write("a/mcpconf.toml", &manifest("a", "browser", "user"));
    m.write("b/mcpconf.toml", &manifest("b", "browser", "user"));
    assert_eq!(m.run("a", &["apply", "--yes"]).status.code(), Some(0));
    let out = m.run("b", &["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    for hint in ["`browser-WORKDIR`", "scope = \"project\""] {
        assert!(err.contains(hint), "{err}");
    }
    // Per-workdir server names.
    m.write("b/mcpconf.toml", &manifest("b", "browser-b", "user"));
    let out = m.run("b", &["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    // Or project scope: each workdir its own file.
    m.write("b/mcpconf.toml", &manifest("b", "browser", "project"));
    let out = m.run("b", &["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    assert!(m.read("b/.codex/config.toml").contains("\"b\""));
    assert!(!m.read("home/.codex/config.toml").contains("browser-b"));
}
/// Issue 27 item 14: discovery stops at the first `mcpconf.toml` entry it sees, whatever it
/// is: a dangling link, a directory or a FIFO is an error (exit 2, a code, a message naming
/// it), never skipped for the parent directory's manifest.
#[test]
fn discovery_stops_at_an_unreadable_manifest_entry() {
    let m = Machine::new();
    m.write(
        "a/mcpconf.toml",
        "owner = \"dev\"\n[servers.s]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n",
    );
    fs::create_dir_all(m.p("a/sub")).unwrap();
    let entry = m.p("a/sub/mcpconf.toml");
    type Make<'a> = Box<dyn Fn() + 'a>;
    let kinds: Vec<(&str, Make)> = vec![
        (
            "a dangling link",
            Box::new(|| {
                #[cfg(unix)]
                std::os::unix::fs::symlink("nowhere.toml", &entry).unwrap();
            }),
        ),
        ("a directory", Box::new(|| fs::create_dir(&entry).unwrap())),
        (
            "a FIFO",
            Box::new(|| {
                let ok = Command::new("mkfifo").arg(&entry).status();
                assert!(ok.is_ok_and(|s| s.success()), "mkfifo");
            }),
        ),
    ];
    for (what, make) in kinds {
        make();
        for args in [&["plan"][..], &["apply", "--yes"][..]] {
            let (code, doc) = m.doc("a/sub", args);
            assert_eq!(code, 2, "{what}: {doc}");
            assert_eq!(codes(&doc), ["not-a-file"], "{what}: {doc}");
            let msg = doc["errors"][0]["message"].as_str().unwrap();
            assert!(msg.contains("a/sub/mcpconf.toml"), "{what}: {msg}");
        }
        assert!(
            !m.p("a/.cursor").exists(),
            "{what}: the parent's manifest was applied"
        );
        let _ = fs::remove_file(&entry);
        let _ = fs::remove_dir(&entry);
    }
}
