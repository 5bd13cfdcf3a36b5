//! Prune gives back what was there (contract, third round): containers and directories
//! mcpconf created and that are empty again go, whatever happened in between (no-op applies,
//! another workspace's or owner's entries added and pruned, a kill between steps); a file
//! mcpconf created is deleted only while every byte in it is mcpconf's, otherwise only
//! mcpconf's entries leave it (issue 27 items 1, 16, 17; issue 29 item 5).
//!
//! The examples run the binary; the property test drives the engine in-process over random
//! sequences of apply / no-op apply / other workspace / other owner / prune / kill, with the
//! user adding and removing content in between, over JSON, JSONC, TOML and YAML files.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Env, Lcg};

fn ok(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn home(env: &Env, rel: &str) -> PathBuf {
    env.base.join("home").join(rel)
}

fn manifest(owner: &str, server: &str, cmd: &str, targets: &str) -> String {
    format!("owner = \"{owner}\"\n[servers.{server}]\ncommand = \"{cmd}\"\n{targets}")
}

const CREATED: &str = "[[targets]]\nclient = \"vscode\"\n[[targets]]\nclient = \"gemini\"\n\
    [[targets]]\nclient = \"codex\"\nscope = \"user\"\n[[targets]]\nclient = \"goose\"\nscope = \"user\"\n";

/// Issue 27 item 1: content the user adds to a file mcpconf created survives a later update
/// of mcpconf's entry and the prune after it, in every syntax; the entries and the containers
/// mcpconf created leave it.
#[test]
fn user_content_in_a_created_file_survives_update_and_prune() {
    let env = Env::new();
    env.manifest(&manifest("o", "srv", "one", CREATED));
    ok(env.run(&["apply", "--yes"]));
    let vscode = env.path(".vscode/mcp.json");
    let gemini = env.path(".gemini/settings.json");
    let codex = home(&env, ".codex/config.toml");
    let goose = home(&env, ".config/goose/config.yaml");
    let prepend = |p: &Path, text: &str| {
        let old = fs::read_to_string(p).unwrap();
        fs::write(p, format!("{text}{old}")).unwrap();
    };
    prepend(&vscode, "// my note\n");
    prepend(&codex, "# my note\n");
    fs::write(
        &codex,
        format!(
            "{}\n[profiles.fast]\nmodel = \"m\"\n",
            fs::read_to_string(&codex).unwrap()
        ),
    )
    .unwrap();
    prepend(&goose, "# my note\n");
    let g = fs::read_to_string(&gemini).unwrap();
    fs::write(&gemini, g.replacen('{', "{\n  \"theme\": \"Dracula\",", 1)).unwrap();

    // A later apply updates mcpconf's entry in each of them.
    env.manifest(&manifest("o", "srv", "two", CREATED));
    ok(env.run(&["apply", "--yes"]));
    ok(env.run(&["prune", "--yes"]));
    assert_eq!(fs::read_to_string(&vscode).unwrap(), "// my note\n{}\n");
    assert_eq!(
        fs::read_to_string(&codex).unwrap(),
        "# my note\n\n[profiles.fast]\nmodel = \"m\"\n"
    );
    assert_eq!(fs::read_to_string(&goose).unwrap(), "# my note\n");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&fs::read_to_string(&gemini).unwrap()).unwrap(),
        serde_json::json!({"theme": "Dracula"})
    );
}

/// Without any user content, the same sequence gives back no file and no directory.
#[test]
fn a_created_file_goes_with_its_directories_after_updates_and_no_op_applies() {
    let env = Env::new();
    env.manifest(&manifest("o", "srv", "one", CREATED));
    ok(env.run(&["apply", "--yes"]));
    ok(env.run(&["apply", "--yes"])); // no-op: forgot `created_dirs` before
    env.manifest(&manifest("o", "srv", "two", CREATED));
    ok(env.run(&["apply", "--yes"]));
    ok(env.run(&["apply", "--yes"]));
    ok(env.run(&["prune", "--yes"]));
    for gone in [
        env.path(".vscode"),
        env.path(".gemini"),
        home(&env, ".codex"),
        home(&env, ".config"),
    ] {
        assert!(!gone.exists(), "{} is left", gone.display());
    }
}

/// Issue 29 item 5: containers mcpconf added to a user's file go when empty again, even when
/// the record of the entry that created them went first (a manifest change).
#[test]
fn created_containers_go_after_the_entry_that_made_them_left_first() {
    let env = Env::new();
    let agent = "{\n  \"name\": \"dev\",\n  \"tools\": [\"*\"]\n}\n";
    let claude = "{\n  \"numStartups\": 3\n}\n";
    env.write(".kiro/agents/dev.json", agent);
    fs::write(home(&env, ".claude.json"), claude).unwrap();
    let targets = "[[targets]]\nclient = \"kiro-agent\"\npath = \".kiro/agents/dev.json\"\n\
        [[targets]]\nclient = \"claude-code\"\nscope = \"local\"\n";
    let two = |a: &str, b: &str| {
        format!(
            "owner = \"o\"\n[servers.{a}]\ncommand = \"{a}\"\n[servers.{b}]\ncommand = \"{b}\"\n{targets}"
        )
    };
    env.manifest(&manifest("o", "a", "a", targets));
    ok(env.run(&["apply", "--yes"]));
    env.manifest(&two("a", "b"));
    ok(env.run(&["apply", "--yes"]));
    env.manifest(&manifest("o", "b", "b", targets));
    ok(env.run(&["apply", "--yes"]));
    ok(env.run(&["prune", "--yes"]));
    assert_eq!(env.text(".kiro/agents/dev.json"), agent);
    assert_eq!(
        fs::read_to_string(home(&env, ".claude.json")).unwrap(),
        claude
    );
}

/// Issue 27 item 17: two workspaces of one owner, and two owners, adding entries to one file
/// leave nothing behind once both pruned, in either order.
#[test]
fn interleaved_workspaces_and_owners_leave_no_stub() {
    let env = Env::new();
    let claude = "{\n  \"numStartups\": 3\n}\n";
    fs::write(home(&env, ".claude.json"), claude).unwrap();
    let targets = "[[targets]]\nclient = \"claude-code\"\nscope = \"user\"\n\
        [[targets]]\nclient = \"codex\"\nscope = \"user\"\n[[targets]]\nclient = \"cursor\"\nscope = \"user\"\n";
    let m = |owner: &str, server: &str| {
        let path = env.base.join(format!("{owner}-{server}.toml"));
        fs::write(&path, manifest(owner, server, server, targets)).unwrap();
        path
    };
    let run = |path: &Path, args: &[&str]| {
        let mut c = crate::common::mcpconf_cmd();
        c.args(args)
            .arg("-m")
            .arg(path)
            .arg("--root")
            .arg(env.root())
            .arg("--home")
            .arg(env.base.join("home"))
            .arg("--state-dir")
            .arg(env.state())
            .stdin(std::process::Stdio::null());
        ok(c.output().unwrap());
    };
    let parties = [
        (m("x", "sx"), "w1"),
        (m("x", "sz"), "w2"),
        (m("y", "sy"), "w1"),
    ];
    for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
        for (p, ws) in &parties {
            run(p, &["apply", "--yes", "--workspace", ws]);
        }
        for i in order {
            let (p, ws) = &parties[i];
            run(p, &["prune", "--yes", "--workspace", ws]);
        }
        assert_eq!(
            fs::read_to_string(home(&env, ".claude.json")).unwrap(),
            claude
        );
        assert!(!home(&env, ".codex").exists(), "order {order:?}");
        assert!(!home(&env, ".cursor").exists(), "order {order:?}");
    }
}

/// Issue 29 item 5: a kill after a new file is published and before the ledger commit (the
/// intent is the ledger then) leaves nothing behind once pruned.
#[test]
fn a_kill_before_the_commit_leaves_no_stub() {
    let env = Env::new();
    env.manifest(&manifest("o", "srv", "one", CREATED));
    ok(env.run(&["apply", "--yes"]));
    // The commit lost: the first run's intent stands for the ledger.
    fs::remove_file(env.state().join("ledger/o.json")).unwrap();
    ok(env.run(&["prune", "--yes"]));
    assert!(!env.path(".vscode").exists());
    assert!(!home(&env, ".codex").exists());
    assert!(!home(&env, ".config").exists());
}

// ---- the property test -------------------------------------------------------------------

/// A file of the property test: where, and what the user may add to it.
struct Target {
    path: PathBuf,
    /// The bytes before anything ran (`None`: no file).
    original: Option<Vec<u8>>,
    /// User additions this file takes: (prepend?, text with `{n}`).
    additions: &'static [(bool, &'static str)],
}

const PARTIES: [(&str, &str, &str); 3] = [("o", "w1", "s1"), ("o", "w2", "s2"), ("p", "w1", "s3")];

fn targets_toml() -> &'static str {
    "[[targets]]\nclient = \"vscode\"\n[[targets]]\nclient = \"codex\"\nscope = \"user\"\n\
     [[targets]]\nclient = \"goose\"\nscope = \"user\"\n[[targets]]\nclient = \"claude-code\"\nscope = \"local\"\n\
     [[targets]]\nclient = \"kiro-agent\"\npath = \".kiro/agents/dev.json\"\n"
}

fn settings(base: &Path, ws: &str) -> mcpconf::settings::Settings {
    mcpconf::settings::Settings::builder()
        .manifest(base.join("mcpconf.toml"))
        .root(base.join("root"))
        .home(base.join("home"))
        .state_dir(base.join("state"))
        .codex_home(None)
        .goose_path_root(None)
        .workspace(ws)
        .build()
        .unwrap()
}

fn snapshot(paths: &[PathBuf]) -> Vec<Option<Vec<u8>>> {
    paths.iter().map(|p| fs::read(p).ok()).collect()
}

fn restore(paths: &[PathBuf], snap: &[Option<Vec<u8>>]) {
    for (p, s) in paths.iter().zip(snap) {
        match s {
            Some(b) => {
                // (A prune that deleted the file removed its directories after it.)
                fs::create_dir_all(p.parent().unwrap()).unwrap();
                fs::write(p, b).unwrap();
            }
            None => {
                let _ = fs::remove_file(p);
            }
        }
    }
}

/// The user takes `text` out of the file again (exactly: their bytes must be intact); a file
/// left blank by that they delete.
fn take_out(path: &Path, text: &str) {
    let old = fs::read_to_string(path).unwrap();
    assert!(
        old.contains(text),
        "{text:?} changed in {}:\n{old}",
        path.display()
    );
    let new = old.replacen(text, "", 1);
    if new.trim().is_empty() {
        fs::remove_file(path).unwrap();
    } else {
        fs::write(path, new).unwrap();
    }
}

/// A created file the user had content in that is left blank, the user deletes (a blank file
/// is not a config file; mcpconf refuses to edit an empty one).
fn blank_is_deleted(targets: &[Target], ever_added: &[bool], log: &mut Vec<String>) {
    for (t, _) in targets.iter().zip(ever_added).filter(|(_, a)| **a) {
        if t.original.is_none() && fs::read(&t.path).is_ok_and(|b| b.trim_ascii().is_empty()) {
            fs::remove_file(&t.path).unwrap();
            log.push(format!("user deletes the blank {}", t.path.display()));
        }
    }
}

/// One random sequence; panics with the log on a broken promise.
fn sequence(rng: &mut Lcg) {
    use mcpconf::engine::{self, ApplyOptions, Exit, Mode};
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let root = base.join("root");
    let home = base.join("home");
    fs::create_dir_all(root.join(".kiro/agents")).unwrap();
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(base.join("state")).unwrap();
    fs::write(
        root.join(".kiro/agents/dev.json"),
        "{\n  \"name\": \"dev\",\n  \"tools\": [\"*\"]\n}\n",
    )
    .unwrap();
    fs::write(home.join(".claude.json"), "{\n  \"numStartups\": 3\n}\n").unwrap();
    let targets = [
        Target {
            path: root.join(".vscode/mcp.json"),
            original: None,
            additions: &[(true, "// note {n}\n")],
        },
        Target {
            path: home.join(".codex/config.toml"),
            original: None,
            additions: &[
                (true, "# note {n}\n"),
                (false, "\n[profiles.p{n}]\nmodel = \"m\"\n"),
            ],
        },
        Target {
            path: home.join(".config/goose/config.yaml"),
            original: None,
            additions: &[(true, "# note {n}\n")],
        },
        Target {
            path: home.join(".claude.json"),
            original: fs::read(home.join(".claude.json")).ok(),
            additions: &[],
        },
        Target {
            path: root.join(".kiro/agents/dev.json"),
            original: fs::read(root.join(".kiro/agents/dev.json")).ok(),
            additions: &[],
        },
    ];
    let created_dirs = [
        root.join(".vscode"),
        home.join(".codex"),
        home.join(".config"),
    ];
    let paths: Vec<PathBuf> = targets.iter().map(|t| t.path.clone()).collect();
    let ledgers: Vec<PathBuf> = ["o", "p"]
        .iter()
        .map(|o| base.join(format!("state/ledger/{o}.json")))
        .collect();
    // The user's additions present now: (file index, text).
    let mut added: Vec<(usize, String)> = Vec::new();
    let mut version = [0u32; 3];
    let mut log: Vec<String> = Vec::new();
    let mut counter = 0u32;
    let mut ever_added = [false; 5];

    let run = |party: usize, prune: bool, version: &[u32; 3]| {
        let (owner, ws, server) = PARTIES[party];
        let s = settings(base, ws);
        if prune {
            engine::apply(&s, ApplyOptions::new(owner, Mode::Prune))
        } else {
            let text = format!(
                "owner = \"{owner}\"\n[servers.{server}]\ncommand = \"{server}\"\nargs = [\"v{}\"]\n{}",
                version[party],
                targets_toml()
            );
            let m = mcpconf::manifest::parse(&text, &mcpconf::known::Known).unwrap();
            engine::apply(
                &s,
                ApplyOptions::new(owner, Mode::Apply { adopt: false }).manifest(&m),
            )
        }
    };
    let check = |added: &[(usize, String)], log: &[String]| {
        for (i, text) in added {
            let now = fs::read_to_string(&targets[*i].path).unwrap_or_default();
            assert!(
                now.contains(text.as_str()),
                "the user's {text:?} left {}\n{now}\nsteps:\n{}",
                targets[*i].path.display(),
                log.join("\n")
            );
        }
    };

    let steps = 6 + rng.below(10);
    for _ in 0..steps {
        match rng.below(7) {
            // The user adds something to a file that exists.
            0 | 1 => {
                let i = rng.below(targets.len() as u64) as usize;
                let t = &targets[i];
                if t.additions.is_empty() || !t.path.exists() {
                    continue;
                }
                counter += 1;
                let (front, tpl) = t.additions[rng.below(t.additions.len() as u64) as usize];
                let text = tpl.replace("{n}", &counter.to_string());
                let old = fs::read_to_string(&t.path).unwrap();
                let new = if front {
                    format!("{text}{old}")
                } else {
                    format!("{old}{text}")
                };
                fs::write(&t.path, new).unwrap();
                log.push(format!("user adds {text:?} to {}", t.path.display()));
                added.push((i, text));
                ever_added[i] = true;
            }
            // The user takes one of their additions out again.
            2 if !added.is_empty() => {
                let k = rng.below(added.len() as u64) as usize;
                let (i, text) = added.remove(k);
                take_out(&targets[i].path, &text);
                log.push(format!("user removes {text:?}"));
            }
            _ => {
                blank_is_deleted(&targets, &ever_added, &mut log);
                let party = rng.below(3) as usize;
                let prune = rng.below(3) == 0;
                if !prune && rng.below(2) == 0 {
                    version[party] += 1;
                }
                let kill = rng.below(3);
                let before_files = snapshot(&paths);
                let before_ledgers = snapshot(&ledgers);
                let report = run(party, prune, &version);
                assert!(
                    report.exit == Exit::Ok,
                    "{:?}: {:?}\nsteps:\n{}",
                    report.exit,
                    report.errors,
                    log.join("\n")
                );
                let what = if prune { "prune" } else { "apply" };
                match kill {
                    // Killed after the files were published, before the ledger commit.
                    1 => {
                        restore(&ledgers, &before_ledgers);
                        log.push(format!(
                            "{what} {party} v{}, killed before its commit",
                            version[party]
                        ));
                    }
                    // Killed after the intent, before any file was written.
                    2 => {
                        restore(&ledgers, &before_ledgers);
                        restore(&paths, &before_files);
                        log.push(format!(
                            "{what} {party} v{}, killed before its writes",
                            version[party]
                        ));
                    }
                    _ => log.push(format!("{what} {party} v{}", version[party])),
                }
            }
        }
        check(&added, &log);
    }
    // The user takes out what they added; every party prunes.
    for (i, text) in added.drain(..) {
        take_out(&targets[i].path, &text);
        log.push(format!("user removes {text:?}"));
    }
    for party in 0..3 {
        blank_is_deleted(&targets, &ever_added, &mut log);
        let report = run(party, true, &version);
        assert_eq!(
            report.exit,
            Exit::Ok,
            "{:?}\n{}",
            report.errors,
            log.join("\n")
        );
        log.push(format!("prune {party}"));
    }
    for (i, t) in targets.iter().enumerate() {
        // A created file every party pruned while the user's content was in it is the user's
        // from then on (no record proves it mcpconf's): what is left of it once the user took
        // their content out is the text a new file starts with (`{}` for JSON, nothing for
        // TOML and YAML), and its directory stays.
        if t.original.is_none()
            && ever_added[i]
            && fs::read(&t.path).is_ok_and(|b| b == b"{}\n" || b.is_empty())
        {
            continue;
        }
        assert_eq!(
            fs::read(&t.path)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned()),
            t.original
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned()),
            "{} not given back\nsteps:\n{}",
            t.path.display(),
            log.join("\n")
        );
    }
    for d in &created_dirs {
        // (A file every party pruned while the user's content was in it is the user's from
        // then on, and so is the directory it kept.)
        let abandoned = |i: usize| ever_added[i] && paths[i].starts_with(d);
        if (0..paths.len()).any(abandoned) {
            continue;
        }
        assert!(
            !d.exists(),
            "{} is left\nsteps:\n{}",
            d.display(),
            log.join("\n")
        );
    }
}

/// Any user addition survives any sequence, and once every party pruned (and the user took
/// their additions out) the original bytes, or the absence of the file and of the directories
/// mcpconf created, come back.
#[test]
fn any_sequence_gives_back_every_byte() {
    let mut rng = Lcg::from_env_or_time("give_back");
    for _ in 0..16 {
        sequence(&mut rng);
    }
}

/// Issue 29 item 9: `plan --prune` shows the diff prune would make (exit 1 with `--check`
/// when it would change anything), `prune --dry-run` is the same check; neither writes.
#[test]
fn plan_prune_previews_prune() {
    let env = Env::new();
    env.manifest(&manifest(
        "o",
        "srv",
        "one",
        "[[targets]]\nclient = \"cursor\"\n",
    ));
    let code = |args: &[&str]| env.run(args).status.code();
    assert_eq!(code(&["plan", "--prune", "--check"]), Some(0));
    assert_eq!(code(&["prune", "--dry-run"]), Some(0));
    ok(env.run(&["apply", "--yes"]));
    let before = env.read(".cursor/mcp.json");
    let (exit, doc) = env.json(&["plan", "--prune"]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(doc["changed"], true, "{doc}");
    assert_eq!(doc["files"][0]["actions"][0]["op"], "remove", "{doc}");
    assert_eq!(doc["files"][0]["status"], "changed", "{doc}");
    assert_eq!(code(&["plan", "--prune", "--check"]), Some(1));
    let (exit, dry) = env.json(&["prune", "--dry-run"]);
    assert_eq!(exit, 1, "{dry}");
    assert_eq!(dry["files"], doc["files"]);
    let text = ok(env.run(&["plan", "--prune"]));
    assert!(text.contains("- remove srv"), "{text}");
    assert_eq!(env.read(".cursor/mcp.json"), before, "a preview wrote");
    assert_eq!(code(&["plan", "--prune", "--out", "p.json"]), Some(2));
    ok(env.run(&["prune", "--yes"]));
    assert_eq!(code(&["prune", "--dry-run"]), Some(0));
}

/// A file mcpconf created and the user only reformatted in white space (a final newline,
/// trailing spaces, CRLF line endings) holds nothing of the user's (issue 41): prune removes
/// it and the directories it created, in JSON, TOML and YAML alike. A comment (or, in strict
/// JSON, a member) is the user's: then the file stays.
#[test]
fn a_created_file_only_reformatted_in_white_space_goes_with_prune() {
    for (client, comment) in [
        ("cursor", ""),
        ("codex", "# mine\r\n"),
        ("goose", "# mine\r\n"),
    ] {
        for keep in [false, true] {
            let e = crate::common::Env::new();
            e.manifest(&format!(
                "owner = \"o\"\n[servers.web]\ncommand = \"web-mcp\"\n[[targets]]\nclient = \"{client}\"\n{}",
                if client == "codex" { "scope = \"project\"\n" } else { "" }
            ));
            let (code, doc) = e.json(&["apply", "--yes"]);
            assert_eq!(code, 0, "{client}: {doc:#}");
            let path = std::path::PathBuf::from(doc["files"][0]["path"].as_str().unwrap());
            let text = std::fs::read_to_string(&path).unwrap();
            let mut reformatted = text.replace('\n', "  \r\n") + "\r\n";
            if keep && client == "cursor" {
                // Strict JSON has no comments: a member of the user's.
                reformatted = reformatted.replacen('{', "{\"mine\": 1,", 1);
            } else if keep {
                reformatted = format!("{comment}{reformatted}");
            }
            std::fs::write(&path, &reformatted).unwrap();
            let (code, doc) = e.json(&["prune", "--yes"]);
            assert_eq!(code, 0, "{client}: {doc:#}");
            if keep {
                let left = std::fs::read_to_string(&path).unwrap();
                assert!(
                    left.contains("mine"),
                    "{client}: the user's comment kept: {left}"
                );
            } else {
                assert!(
                    !path.exists(),
                    "{client}: left {:?}",
                    std::fs::read_to_string(&path)
                );
                assert!(
                    !path.parent().unwrap().exists()
                        || path.parent().unwrap() == e.root()
                        || path.parent().unwrap() == e.base.join("home"),
                    "{client}: the directory mcpconf created is gone"
                );
            }
        }
    }
}
