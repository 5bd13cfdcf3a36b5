//! openab's real migration (issue 10 item 7): `examples/openab/mcpconf.toml` applied to
//! `examples/openab/workdir-facade/`, a workdir in the state openab's own facade writer leaves
//! (its `openab` entry with a `${OPENAB_SESSION_TOKEN}` header in Cursor, Kiro settings and a Kiro
//! agent, `@openab` granted in the agent), next to the operator's own entries.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::Value;

use crate::common::{copy_tree, mcpconf_cmd};

struct Workdir {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

impl Workdir {
    fn new() -> Workdir {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().to_path_buf();
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/openab");
        copy_tree(&example.join("workdir-facade"), &base.join("workdir"));
        fs::create_dir_all(base.join("home")).unwrap();
        fs::copy(example.join("mcpconf.toml"), base.join("mcpconf.toml")).unwrap();
        Workdir { _dir: dir, base }
    }
    fn run(&self, args: &[&str]) -> (i32, Value) {
        let out: Output = mcpconf_cmd()
            .args(args)
            .arg("-m")
            .arg(self.base.join("mcpconf.toml"))
            .arg("--root")
            .arg(self.base.join("workdir"))
            .arg("--home")
            .arg(self.base.join("home"))
            .arg("--state-dir")
            .arg(self.base.join("state"))
            .args(["--format", "json"])
            .env_remove("OPENAB_SESSION_TOKEN")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let doc = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.code().unwrap_or(-1), doc)
    }
    fn json(&self, rel: &str) -> Value {
        let text = fs::read_to_string(self.base.join(rel)).unwrap();
        serde_json::from_str(&text).unwrap()
    }
    fn exists(&self, rel: &str) -> bool {
        self.base.join(rel).exists()
    }
}

fn names(v: &Value) -> Vec<String> {
    let mut n: Vec<String> = v
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    n.sort();
    n
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_example_migrates_a_workdir_of_the_facade_writer_then_is_a_no_op_then_prunes_to_the_operators_entries()
 {
    let w = Workdir::new();
    let stale = |doc: &Value| {
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "stale-legacy")
            .count()
    };
    // Before: lint sees the facade writer's leftovers.
    let (_, doc) = w.run(&["lint"]);
    assert!(stale(&doc) > 0, "{doc}");
    let (code, doc) = w.run(&["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    // After: lint and apply agree. Kiro spells the reference as the old writer did, so its
    // entry is the legacy shape byte for byte, and it is the current, recorded one.
    let (_, doc) = w.run(&["lint"]);
    assert_eq!(stale(&doc), 0, "{doc}");

    // Cursor: the as-built facade entry is replaced by the reference in Cursor's syntax.
    let cursor = w.json("workdir/.cursor/mcp.json");
    assert_eq!(
        cursor["mcpServers"]["openab"]["headers"]["Authorization"],
        "Bearer ${env:OPENAB_SESSION_TOKEN}"
    );
    assert!(cursor["mcpServers"]["github"].is_object());
    // Kiro settings: the operator's proxy-shaped openab-browser stays.
    let kiro = w.json("workdir/.kiro/settings/mcp.json");
    assert_eq!(
        kiro["mcpServers"]["openab-browser"]["url"],
        "http://127.0.0.1:9222/mcp"
    );
    assert!(kiro["mcpServers"]["openab"].is_object());
    // The agent: facade grants in allowedTools and tools; the grant of the operator's server
    // stays (its entry stays visible from the settings the agent inherits).
    let agent = w.json("workdir/.kiro/agents/dev.json");
    let tools = strings(&agent["tools"]);
    let allowed = strings(&agent["allowedTools"]);
    for t in ["@openab/search_capabilities", "@openab/execute_capability"] {
        assert!(tools.contains(&t.to_string()), "{tools:?}");
        assert!(allowed.contains(&t.to_string()), "{allowed:?}");
    }
    assert!(tools.contains(&"@openab-browser".to_string()), "{tools:?}");
    assert!(
        !tools.contains(&"@openab".to_string()) && !allowed.contains(&"@openab".to_string()),
        "the unpinned legacy grant went with its entry: {tools:?} {allowed:?}"
    );
    // Claude Code: local scope, usable headless.
    let claude = w.json("home/.claude.json");
    let projects = claude["projects"].as_object().unwrap();
    assert_eq!(projects.len(), 1);
    let project = projects.values().next().unwrap();
    assert!(project["mcpServers"]["openab"].is_object(), "{claude}");

    // Second run: nothing to do.
    let (code, doc) = w.run(&["apply", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["changed"], false, "{doc}");

    // Prune: only the operator's entries are left.
    let (code, doc) = w.run(&["prune", "--yes"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(
        names(&w.json("workdir/.cursor/mcp.json")["mcpServers"]),
        ["github"]
    );
    assert_eq!(
        names(&w.json("workdir/.kiro/settings/mcp.json")["mcpServers"]),
        ["openab-browser"]
    );
    let agent = w.json("workdir/.kiro/agents/dev.json");
    assert_eq!(names(&agent["mcpServers"]), Vec::<String>::new());
    assert_eq!(strings(&agent["tools"]), ["read", "@openab-browser"]);
    assert_eq!(strings(&agent["allowedTools"]), ["read"]);
    for created in [
        "home/.claude.json",
        "home/.codex/config.toml",
        "workdir/.gemini/settings.json",
    ] {
        assert!(
            !w.exists(created),
            "{created} was created by mcpconf and goes"
        );
    }
}

/// The import route on openab's real facade shape: `import --server openab` takes only that
/// entry, keeps its reference's own name (`${OPENAB_SESSION_TOKEN}`, which openab's writer spelled
/// as Claude Code does, a form Cursor does not expand in headers), and the printed "next:"
/// commands, run as printed from the workdir, end in `status --check` exit 0; prune then gives
/// the file back as it was.
#[test]
fn the_import_route_works_as_printed_on_the_facade_shape() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/openab");
    copy_tree(&example.join("workdir-facade"), &base.join("workdir"));
    fs::create_dir_all(base.join("home")).unwrap();
    let workdir = base.join("workdir");
    let before = fs::read(workdir.join(".cursor/mcp.json")).unwrap();
    let run = |args: &[&str]| {
        mcpconf_cmd()
            .args(args)
            .current_dir(&workdir)
            .env("HOME", base.join("home"))
            .env("MCPCONF_STATE_DIR", base.join("state"))
            .env_remove("MCPCONF_MANIFEST")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env("OPENAB_SESSION_TOKEN", "test-session-token")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&[
        "import", "--client", "cursor", "--server", "openab", "--owner", "openab",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let manifest = String::from_utf8(out.stdout).unwrap();
    let steps = String::from_utf8(out.stderr).unwrap();
    assert!(
        manifest.contains("Bearer ${OPENAB_SESSION_TOKEN}"),
        "{manifest}"
    );
    assert!(
        !manifest.contains("OPENAB_TOKEN}") && !manifest.contains("github"),
        "{manifest}"
    );
    assert!(steps.contains("does not expand"), "{steps}");
    fs::write(workdir.join("mcpconf.toml"), &manifest).unwrap();

    let commands: Vec<&str> = steps
        .lines()
        .filter_map(|l| l.strip_prefix("  mcpconf "))
        .collect();
    assert_eq!(commands.last(), Some(&"status --check"), "{steps}");
    for c in &commands {
        let args: Vec<&str> = c.split_whitespace().collect();
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "`mcpconf {c}`: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let cursor: Value =
        serde_json::from_slice(&fs::read(workdir.join(".cursor/mcp.json")).unwrap()).unwrap();
    assert_eq!(
        cursor["mcpServers"]["openab"]["headers"]["Authorization"],
        "Bearer ${env:OPENAB_SESSION_TOKEN}"
    );
    assert!(cursor["mcpServers"]["github"].is_object());
    let out = run(&["prune", "--yes"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(fs::read(workdir.join(".cursor/mcp.json")).unwrap(), before);
}

/// The `sh` blocks of a Markdown page, each with the heading it is under.
fn sh_blocks(page: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut heading = String::new();
    let mut block: Option<String> = None;
    for line in page.lines() {
        match &mut block {
            Some(b) if line == "```" => {
                out.push((heading.clone(), std::mem::take(b)));
                block = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None if line == "```sh" => block = Some(String::new()),
            None if line.starts_with("## ") => heading = line[3..].to_string(),
            None => {}
        }
    }
    out
}

/// docs/recipes.md, run as written: each `sh` block on a fresh copy of openab's facade workdir
/// (the take-over block with a user's own `openab` in Cursor; the MDM script twice: changed,
/// then no changes), and the CI block's commands.
#[test]
fn the_recipes_run_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = fs::read_to_string(repo.join("docs/recipes.md")).unwrap();
    let blocks = sh_blocks(&page);
    assert!(blocks.len() >= 3, "{blocks:?}");
    assert!(
        blocks.iter().any(|(h, _)| h.contains("MDM")),
        "the MDM script is checked below: {blocks:?}"
    );
    let bin_dir = Path::new(crate::common::bin())
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (heading, script) in &blocks {
        let w = Workdir::new();
        let workdir = w.base.join("workdir");
        let cursor = workdir.join(".cursor/mcp.json");
        if heading.contains("take it over") {
            let text = fs::read_to_string(&cursor).unwrap().replace("8848", "9999");
            fs::write(&cursor, text).unwrap();
        }
        let before = fs::read(&cursor).unwrap();
        let log = w.base.join("mcpconf.log");
        let run_script = || {
            std::process::Command::new("sh")
                .arg("-c")
                .arg(script)
                .current_dir(&w.base)
                .env("PATH", &path)
                .env("HOME", w.base.join("home"))
                .env("MCPCONF_STATE_DIR", w.base.join("state"))
                .env("OPENAB_MANIFEST", w.base.join("mcpconf.toml"))
                .env("OPENAB_WORKDIR", &workdir)
                .env("OPENAB_LOG", &log)
                .env("MCPCONF_ROLLOUT_MANIFEST", w.base.join("mcpconf.toml"))
                .env("NO_COLOR", "1")
                .env_remove("MCPCONF_MANIFEST")
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("XDG_STATE_HOME")
                .env_remove("CODEX_HOME")
                .stdin(Stdio::null())
                .output()
                .unwrap()
        };
        let out = run_script();
        assert_eq!(
            out.status.code(),
            Some(0),
            "`{heading}`:\n{script}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let state = w.base.join("state");
        let prune = |dir: &Path| {
            mcpconf_cmd()
                .args(["prune", "--yes", "-m"])
                .arg(w.base.join("mcpconf.toml"))
                .arg("--root")
                .arg(dir)
                .env("HOME", w.base.join("home"))
                .env("MCPCONF_STATE_DIR", &state)
                .stdin(Stdio::null())
                .output()
                .unwrap()
        };
        if heading.contains("setup script") {
            let doc: Value = serde_json::from_slice(&fs::read(&log).unwrap()).unwrap();
            assert_eq!(doc["changed"], true, "{doc}");
        } else if heading.contains("take it over") {
            let now = w.json("workdir/.cursor/mcp.json");
            assert_eq!(
                now["mcpServers"]["openab"]["url"],
                "http://127.0.0.1:8848/mcp"
            );
            assert!(state.join("ledger/openab.restore.json").exists());
            assert_eq!(prune(&workdir).status.code(), Some(0));
            assert_eq!(
                fs::read(&cursor).unwrap(),
                before,
                "given back byte for byte"
            );
        } else if heading.contains("MDM") {
            // The script's own report, from the log it wrote; a second run changes nothing.
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "mcpconf: applied (changed)\n"
            );
            let doc: Value = serde_json::from_slice(
                &fs::read(w.base.join("home/.local/state/mcpconf-rollout.json")).unwrap(),
            )
            .unwrap();
            assert_eq!(
                (&doc["changed"], &doc["errors"]),
                (&serde_json::json!(true), &serde_json::json!([]))
            );
            let again = run_script();
            assert_eq!(again.status.code(), Some(0));
            assert_eq!(
                String::from_utf8_lossy(&again.stdout),
                "mcpconf: applied (no changes)\n"
            );
        } else if heading.contains("import") {
            let m = fs::read_to_string(workdir.join("imported.toml")).unwrap();
            assert!(
                m.contains("${OPENAB_SESSION_TOKEN}") && !m.contains("github"),
                "{m}"
            );
        }
    }
    // The CI block runs on a runner, which has no ledger: after the setup ran (its files
    // committed), both steps pass with an empty state directory; before it, `plan --check`
    // fails.
    let ci: Vec<&str> = page
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- run: mcpconf "))
        .map(|c| c.split('#').next().unwrap().trim())
        .filter(|c| c.ends_with("-m mcpconf.toml"))
        .collect();
    assert_eq!(ci.len(), 2, "{ci:?}");
    let w = Workdir::new();
    let workdir = w.base.join("workdir");
    fs::copy(w.base.join("mcpconf.toml"), workdir.join("mcpconf.toml")).unwrap();
    let run_ci = |c: &str, state: &str| {
        mcpconf_cmd()
            .args(c.split_whitespace())
            .current_dir(&workdir)
            .env("HOME", w.base.join("home"))
            .env("MCPCONF_STATE_DIR", w.base.join(state))
            .stdin(Stdio::null())
            .output()
            .unwrap()
            .status
            .code()
    };
    let check = ci
        .iter()
        .find(|c| c.contains("--check"))
        .expect("a --check step");
    assert_eq!(
        run_ci(check, "runner"),
        Some(1),
        "`{check}` before any apply"
    );
    assert_eq!(run_ci("apply --yes -m mcpconf.toml", "state"), Some(0));
    for c in &ci {
        assert_eq!(
            run_ci(c, "runner"),
            Some(0),
            "`{c}` on a runner after the apply"
        );
    }
}

/// CI lint needs no ledger (issue 41): after a fresh setup of every seed client (Cursor, Kiro
/// settings and agents, Claude Code's local scope, Codex, Gemini) from either workdir, `lint -m`
/// with an empty state directory — a CI runner never has the ledger — reports nothing about
/// the owner's own entries, though the Kiro ones have the very shape of a `[[legacy]]` entry.
/// Before the apply, a legacy entry the manifest spells otherwise is still `stale-legacy`.
#[test]
fn ci_lint_with_no_ledger_takes_the_manifests_own_entries_as_current() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/openab");
    for workdir in ["workdir", "workdir-facade"] {
        let base = tempfile::tempdir().unwrap();
        let base = base.path();
        copy_tree(&example.join(workdir), &base.join("workdir"));
        copy_tree(&example.join("home"), &base.join("home"));
        fs::copy(example.join("mcpconf.toml"), base.join("mcpconf.toml")).unwrap();
        let run = |args: &[&str], state: &str| {
            let mut c = mcpconf_cmd();
            c.args(args)
                .arg("-m")
                .arg(base.join("mcpconf.toml"))
                .args(["--root", &base.join("workdir").display().to_string()])
                .args(["--home", &base.join("home").display().to_string()])
                .args(["--state-dir", &base.join(state).display().to_string()])
                .env("OPENAB_SESSION_TOKEN", "")
                .stdin(Stdio::null());
            c.output().unwrap()
        };
        let findings = |out: &Output| -> Vec<Value> {
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            v["findings"].as_array().unwrap().clone()
        };
        let before = findings(&run(&["lint", "--format", "json"], "ci-before"));
        if workdir == "workdir-facade" {
            assert!(
                before.iter().any(|f| f["rule"] == "stale-legacy"),
                "the facade writer's Cursor entry is stale before the apply: {before:?}"
            );
        }
        let out = run(&["apply", "--yes"], "state");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let after = findings(&run(&["lint", "--format", "json"], "ci-empty"));
        let ours: Vec<&Value> = after
            .iter()
            .filter(|f| {
                f["rule"] == "stale-legacy"
                    || f["message"]
                        .as_str()
                        .unwrap_or("")
                        .contains("server `openab`")
            })
            .collect();
        assert!(ours.is_empty(), "{workdir}: {ours:#?}");
    }
}
