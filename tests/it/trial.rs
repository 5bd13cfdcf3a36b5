//! The rough edges a newcomer's trial hit (issue 15), each through the CLI: `status --check`,
//! refused runs that say so once, client-id validation, `import --format json`, an owner with
//! nothing recorded, per-command help, the man page.

use std::process::Output;

use serde_json::Value;

use crate::common::{Env, mcpconf_cmd};

const TWO_TARGETS: &str = r#"owner = "me"

[servers.github]
command = "npx"
args = ["-y", "gh-mcp"]

[[targets]]
client = "gemini"
scope = "project"

[[targets]]
client = "cursor"
"#;

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bare(args: &[&str]) -> Output {
    mcpconf_cmd().args(args).output().unwrap()
}

/// Applied into both files, then the Cursor entry edited by hand (drift).
fn applied_then_drifted() -> Env {
    let e = Env::new();
    e.manifest(TWO_TARGETS);
    let out = e.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let cursor = e.text(".cursor/mcp.json").replace("gh-mcp", "gh-mcp@2");
    e.write(".cursor/mcp.json", cursor);
    e
}

#[test]
fn status_check_exits_1_on_drifted_or_missing_and_0_when_intact() {
    let e = Env::new();
    e.manifest(TWO_TARGETS);
    assert_eq!(e.run(&["apply", "--yes"]).status.code(), Some(0));
    let out = e.run(&["status", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    // Without --check, status only reports.
    std::fs::remove_file(e.path(".gemini/settings.json")).unwrap();
    assert_eq!(e.run(&["status"]).status.code(), Some(0));
    let out = e.run(&["status", "--check"]);
    assert_eq!(out.status.code(), Some(1), "missing: {:?}", text(&out));
    assert!(text(&out).0.contains("missing"), "{:?}", text(&out));
    let e = applied_then_drifted();
    let (code, doc) = e.json(&["status", "--check"]);
    assert_eq!(code, 1, "drifted: {doc}");
    assert!(
        doc["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["state"] == "drifted")
    );
}

#[test]
fn a_refused_prune_labels_nothing_as_removed_and_says_each_refusal_once() {
    let e = applied_then_drifted();
    let before = e.read(".gemini/settings.json");
    let out = e.run(&["prune", "--yes"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(3), "{stdout}{stderr}");
    assert!(stdout.contains("Refused: nothing was written."), "{stdout}");
    assert!(
        !stdout.contains("(removed)"),
        "nothing was removed: {stdout}"
    );
    assert!(stdout.contains("(not removed)"), "{stdout}");
    assert_eq!(e.read(".gemini/settings.json"), before);
    // The reason (with its location) once, on stderr; the plan line names the drift only.
    let all = format!("{stdout}{stderr}");
    assert_eq!(all.matches("was edited since").count(), 1, "{all}");
    assert_eq!(stderr.matches("error[drift]").count(), 1, "{stderr}");
    assert!(stdout.contains("! drift github\n"), "{stdout}");
    // The hint names the command that hands the entry to the user.
    assert!(stderr.contains("`mcpconf release github`"), "{stderr}");
}

#[test]
fn an_unconfirmed_run_is_one_error_without_a_manifest_location() {
    let e = Env::new();
    e.manifest(TWO_TARGETS);
    let out = e.run(&["apply"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("error[not-confirmed]: "), "{stderr}");
    assert!(!stderr.contains("mcpconf.toml:1:1"), "{stderr}");
    assert!(stderr.contains("--yes"), "{stderr}");
    assert!(!e.path(".cursor/mcp.json").exists());
}

#[test]
fn a_stale_saved_plan_points_at_the_plan_not_the_manifest() {
    let e = Env::new();
    e.manifest(TWO_TARGETS);
    let plan = e.base.join("plan.json");
    assert_eq!(
        e.run(&["plan", "--out", plan.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    e.write(".cursor/mcp.json", "{\"mcpServers\": {}}\n");
    let (code, doc) = e.json(&["apply", plan.to_str().unwrap(), "--yes"]);
    assert_eq!(code, 3, "{doc}");
    let err = &doc["errors"][0];
    assert_eq!(err["code"], "stale-plan");
    assert_eq!(err["path"], plan.to_str().unwrap(), "{doc}");
}

#[test]
fn the_summary_of_a_run_without_changes_reads_as_one_sentence() {
    let e = Env::new();
    e.manifest(
        "owner = \"me\"\n\n[servers.github]\ncommand = \"npx\"\n\n[[targets]]\nclient = \"cursor\"\n",
    );
    // A user's entry that already equals the manifest: an unowned match, no change.
    e.write(
        ".cursor/mcp.json",
        "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\"\n    }\n  }\n}\n",
    );
    let out = e.run(&["plan"]);
    let (stdout, _) = text(&out);
    assert!(stdout.contains("No changes (1 unowned match)."), "{stdout}");
    assert!(!stdout.contains("No changes.,"), "{stdout}");
}

#[test]
fn one_fault_in_a_file_is_reported_once() {
    let e = Env::new();
    // Two targets in the same file: its fault is found twice but reported once.
    e.manifest(
        "owner = \"me\"\n\n[servers.a]\ncommand = \"a\"\n\n[servers.b]\ncommand = \"b\"\n\n[[targets]]\nclient = \"cursor\"\nservers = [\"a\"]\n\n[[targets]]\nclient = \"cursor\"\nservers = [\"b\"]\n",
    );
    e.write(".cursor/mcp.json", "{\"mcpServers\": []}\n");
    let out = e.run(&["plan"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(3), "{stdout}{stderr}");
    assert_eq!(stderr.matches("not-an-object").count(), 1, "{stderr}");
    let (_, doc) = e.json(&["plan"]);
    let n = doc["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["code"] == "not-an-object")
        .count();
    assert_eq!(n, 1, "{doc}");
}

#[test]
fn client_ids_are_checked_with_a_suggestion() {
    let e = applied_then_drifted();
    for args in [
        &["release", "github", "--client", "curosr"][..],
        &["import", "--client", "curosr"][..],
    ] {
        let out = e.run(args);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("unknown client `curosr`"), "{stderr}");
        assert!(stderr.contains("did you mean `cursor`?"), "{stderr}");
    }
    // Too far from any id for a typo, but the start of some: those are offered.
    for args in [
        &["release", "github", "--client", "claude"][..],
        &["import", "--client", "claude"][..],
    ] {
        let out = e.run(args);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("did you mean `claude-code` or `claude-desktop`?"),
            "{stderr}"
        );
    }
    // Like nothing known: the list of ids instead.
    let out = e.run(&["import", "--client", "notepad"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("known clients: ") && stderr.contains("claude-code"),
        "{stderr}"
    );
    // The ledger was not touched by the refused release.
    let (_, doc) = e.json(&["status"]);
    assert_eq!(doc["records"].as_array().unwrap().len(), 2, "{doc}");
}

#[test]
fn import_format_json_prints_json() {
    let e = Env::new();
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"fs-mcp\"]}}}\n",
    );
    let (code, doc) = e.json(&["import", "--client", "cursor", "--owner", "team"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["client"], "cursor");
    let manifest = doc["manifest"].as_str().unwrap();
    assert!(manifest.contains("owner = \"team\""), "{manifest}");
    assert!(manifest.contains("[servers.fs]"), "{manifest}");
    assert!(doc["warnings"].is_array());
}

#[test]
fn prune_for_an_owner_with_nothing_recorded_says_so() {
    let e = Env::new();
    e.manifest(TWO_TARGETS);
    let out = e.run(&["prune", "--owner", "nobody", "--yes"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("`nobody` has nothing recorded"),
        "{stdout}{stderr}"
    );
}

#[test]
fn a_missing_manifest_points_to_import_and_getting_started() {
    let e = Env::new();
    let out = e.run(&["plan"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("mcpconf import --client"), "{stderr}");
    assert!(stderr.contains("getting-started"), "{stderr}");
}

#[test]
fn each_command_help_lists_only_the_options_it_uses() {
    let help = |cmd: &str| text(&bare(&[cmd, "--help"])).0;
    let plan = help("plan");
    assert!(
        plan.contains("--manifest") && plan.contains("--format"),
        "{plan}"
    );
    assert!(!plan.contains("sarif"), "{plan}");
    assert!(!plan.contains("--lock-timeout"), "{plan}");
    let lint = help("lint");
    assert!(lint.contains("sarif") && lint.contains("github"), "{lint}");
    let completions = help("completions");
    for opt in ["--manifest", "--root", "--format", "--state-dir"] {
        assert!(!completions.contains(opt), "{completions}");
    }
    let clients = help("clients");
    assert!(
        clients.contains("--format") && !clients.contains("--manifest"),
        "{clients}"
    );
    assert!(help("apply").contains("--lock-timeout"));
    // Hidden, not removed: a shared option before or after the command still parses.
    let out = bare(&["clients", "--home", "/nonexistent", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    // `plan` refuses a lint-only format.
    assert_eq!(bare(&["plan", "--format", "sarif"]).status.code(), Some(2));
    let top = text(&bare(&["--help"])).0;
    assert!(
        top.lines().any(|l| l.trim_start().starts_with("man ")),
        "{top}"
    );
}

#[test]
fn the_man_page_references_no_missing_pages() {
    let out = bare(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let man = String::from_utf8(out.stdout).unwrap();
    assert!(!man.contains("mcpconf\\-plan(1)"), "{man}");
    assert!(!man.contains("(1)"), "no reference to another page: {man}");
    // Every command is described on the one page, with its own options.
    for cmd in ["plan", "apply", "prune", "status", "lint", "man"] {
        assert!(
            man.contains(&format!("\\fBmcpconf {cmd}\\fR")),
            "{cmd}: {man}"
        );
    }
    assert!(man.contains("\\-\\-check"), "{man}");
    // roff requests start lines; no text line may start with a stray dot.
    for l in man.lines() {
        if let Some(rest) = l.strip_prefix('.') {
            let req = rest.split_whitespace().next().unwrap_or("");
            assert!(
                req.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '\\' || c == '"'),
                "{l}"
            );
        }
    }
}

#[test]
fn emptied_containers_get_their_original_formatting_back() {
    let e = Env::new();
    e.manifest(
        "owner = \"me\"\n\n[servers.a]\ncommand = \"a\"\n\n[servers.b]\ncommand = \"b\"\n\n[[targets]]\nclient = \"kiro-agent\"\npath = \".kiro/agents/x.json\"\nauto_approve = true\n\n[[targets]]\nclient = \"cursor\"\n",
    );
    let agent = "{\n  \"name\": \"x\",\n  \"tools\": [\n  ],\n  \"allowedTools\": [\n\n  ],\n  \"mcpServers\": {\n  }\n}\n";
    let cursor = "{\n  \"mcpServers\": {\n\n  }\n}\n";
    e.write(".kiro/agents/x.json", agent);
    e.write(".cursor/mcp.json", cursor);
    assert_eq!(e.run(&["apply", "--yes"]).status.code(), Some(0));
    assert!(e.text(".kiro/agents/x.json").contains("\"@a\""));
    let out = e.run(&["prune", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert_eq!(e.text(".kiro/agents/x.json"), agent);
    assert_eq!(e.text(".cursor/mcp.json"), cursor);
}

#[test]
fn the_vscode_page_and_clients_agree_on_the_user_path() {
    let out = bare(&["clients", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let vscode = doc["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "vscode")
        .unwrap();
    let user = vscode["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "user")
        .unwrap();
    let path = user["path"].as_str().unwrap();
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/clients/vscode.md"),
    )
    .unwrap();
    let row = page
        .lines()
        .find(|l| l.starts_with("| `user`"))
        .expect("the user row");
    assert!(row.contains(&format!("`~/{path}`")), "{path} vs {row}");
    assert!(row.contains("(default)"), "{row}");
}
