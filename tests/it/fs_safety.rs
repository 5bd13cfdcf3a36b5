//! Safety promises of issue 16 through the CLI: a client lock that is not proper-lockfile's is
//! never removed, an unreadable ledger is a refusal, `--owner` is validated, a created file is
//! deleted only when it is exactly what mcpconf left, forged ledger records are refused, and a
//! directory swapped for a symlink during apply/prune never leads a write out of the root.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Env, codes, mcpconf_cmd};

const SERVERS: &str = r#"owner = "openab"

[servers.openab]
url = "http://127.0.0.1:8848/mcp"
headers = { Authorization = "Bearer ${OPENAB_SESSION_TOKEN}" }

[servers.browser]
command = "agent-browser"
args = ["mcp", "--tools", "core"]
"#;

fn target(client: &str, extra: &str) -> String {
    format!("{SERVERS}\n[[targets]]\nclient = \"{client}\"\n{extra}\n")
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every path under `dir` (recursively), relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

// ---- item 7: a client lock that is not proper-lockfile's empty directory ------------------

fn backdate(p: &Path) {
    let ok = Command::new("touch")
        .args(["-h", "-d", "1 minute ago"])
        .arg(p)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

#[test]
fn a_foreign_client_lock_is_never_removed_and_times_out() {
    type Plant = fn(&Path, &Path);
    let cases: [(&str, Plant); 3] = [
        ("a regular file", |lock, _| {
            fs::write(lock, b"pid 1\n").unwrap()
        }),
        ("a directory that is not empty", |lock, _| {
            fs::create_dir(lock).unwrap();
            fs::write(lock.join("keep"), b"x").unwrap();
        }),
        ("a symbolic link", |lock, base| {
            fs::create_dir(base.join("elsewhere")).unwrap();
            symlink(base.join("elsewhere"), lock).unwrap();
        }),
    ];
    for (what, plant) in cases {
        let e = Env::new();
        e.manifest(&target("claude-code", "scope = \"user\""));
        let lock = e.base.join("home/.claude.json.lock");
        plant(&lock, &e.base);
        // Stale by age: only proper-lockfile's empty directory may be taken over.
        backdate(&lock);
        if lock.is_dir() && !lock.is_symlink() {
            backdate(&lock.join("keep"));
        }
        let home = e.base.join("home");
        let before = tree(&home);
        let start = Instant::now();
        // Bounded: the old behaviour spun forever at 100% CPU.
        let out = crate::common::run_bounded(
            e.cmd(&["apply", "--yes", "--lock-timeout", "2", "--format", "json"]),
            Duration::from_secs(60),
        );
        let waited = start.elapsed();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(4), "{what}: {doc}");
        assert_eq!(codes(&doc), vec!["lock-timeout"], "{what}");
        let msg = doc["errors"][0]["message"].as_str().unwrap();
        assert!(msg.contains(".claude.json.lock"), "{what}: {msg}");
        assert!(msg.contains(what), "{what}: {msg}");
        assert!(
            waited >= Duration::from_secs(2),
            "{what}: gave up after {waited:?}"
        );
        assert!(
            waited < Duration::from_secs(60),
            "{what}: --lock-timeout ignored ({waited:?})"
        );
        assert!(
            lock.symlink_metadata().is_ok(),
            "{what}: the lock was removed"
        );
        assert_eq!(tree(&home), before, "{what}: something changed in HOME");
    }
}

// ---- item 9: an unreadable ledger is a refusal for every command ------------------------

#[test]
fn an_unreadable_ledger_is_refused_by_every_command() {
    for (label, plant) in [
        ("ledger dir is a file", "file"),
        ("ledger is a directory", "dir"),
    ] {
        let e = Env::new();
        e.manifest(&target("cursor", ""));
        assert_eq!(e.json(&["apply", "--yes"]).0, 0);
        let ledger_dir = e.state().join("ledger");
        let before_file = e.read(".cursor/mcp.json");
        match plant {
            "file" => {
                fs::remove_dir_all(&ledger_dir).unwrap();
                fs::write(&ledger_dir, b"not a directory\n").unwrap();
            }
            _ => {
                let l = ledger_dir.join("openab.json");
                fs::remove_file(&l).unwrap();
                fs::create_dir(&l).unwrap();
            }
        }
        for args in [
            vec!["plan"],
            vec!["apply", "--yes"],
            vec!["prune", "--yes"],
            vec!["prune", "--owner", "openab", "--yes"],
            vec!["status"],
            vec!["status", "--owner", "openab"],
            vec!["release", "browser"],
        ] {
            let out = e.run(&args);
            assert_eq!(
                out.status.code(),
                Some(3),
                "{label}: {args:?}: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains("unreadable"),
                "{label}: {args:?}: {}",
                stderr(&out)
            );
            let (exit, doc) = e.json(&args);
            assert_eq!(exit, 3, "{label}: {args:?}");
            if !doc["errors"].is_null() {
                assert_eq!(codes(&doc), vec!["unreadable"], "{label}: {args:?}");
            }
        }
        assert_eq!(e.read(".cursor/mcp.json"), before_file, "{label}");
    }
}

// ---- item 11: --owner is validated everywhere -------------------------------------------

#[test]
fn an_invalid_owner_on_the_command_line_is_a_usage_error() {
    let e = Env::new();
    e.manifest(&target("cursor", ""));
    let before = tree(&e.base);
    for args in [
        vec!["prune", "--owner", "../../escape", "--yes"],
        vec!["status", "--owner", "../x"],
        vec!["release", "browser", "--owner", "a/b"],
        vec!["prune", "--owner", "", "--yes"],
        vec!["import", "--client", "cursor", "--owner", "../o"],
    ] {
        let out = e.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("invalid-owner"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(tree(&e.base), before, "nothing may be created");
    assert!(!e.base.parent().unwrap().join("escape.lock").exists());
}

// ---- item 6: a directory swapped for a symlink during apply/prune ------------------------

/// A racer swaps `root/.cursor` between the real directory and a symlink to a directory outside
/// the root, as fast as it can, while apply and prune run one after the other. Whatever each run
/// reports, nothing outside the root may ever be created, changed or removed: every write-side
/// step is done relative to a directory descriptor reached without following a link.
///
/// The std-only layer (`portable-fs`, what Windows builds use) has no directory descriptors: its
/// check-then-use window is one system call wide (docs/safety.md, "Windows"), and this racer
/// lands in it now and then, so the test is for the POSIX layer only.
#[test]
#[cfg_attr(
    feature = "portable-fs",
    ignore = "the portable layer's link check leaves a one-call window (docs/safety.md)"
)]
fn a_directory_swapped_for_a_link_during_apply_and_prune_never_leads_outside_the_root() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    let e = Env::new();
    e.manifest(&target("cursor", ""));
    let outside = e.base.join("outside");
    fs::create_dir(&outside).unwrap();
    // A decoy holding our entry: a prune that followed the link would edit or delete it.
    let decoy = "{\n  \"mcpServers\": {\n    \"browser\": {\"command\": \"agent-browser\", \"args\": [\"mcp\", \"--tools\", \"core\"]}\n  }\n}\n";
    fs::write(outside.join("mcp.json"), decoy).unwrap();
    let real = e.path(".cursor");
    let parked = e.path(".cursor-parked");
    fs::create_dir(&real).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let racer = {
        let (stop, swaps) = (stop.clone(), swaps.clone());
        let (real, parked, outside) = (real.clone(), parked.clone(), outside.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if fs::rename(&real, &parked).is_ok() {
                    let _ = symlink(&outside, &real);
                    std::thread::yield_now();
                    if real
                        .symlink_metadata()
                        .is_ok_and(|m| m.file_type().is_symlink())
                    {
                        let _ = fs::remove_file(&real);
                    }
                    swaps.fetch_add(1, Ordering::Relaxed);
                }
                // Put the directory back (over an empty one mcpconf may have made meanwhile).
                let _ = fs::rename(&parked, &real);
                std::thread::yield_now();
            }
        })
    };
    let mut outcomes = std::collections::BTreeMap::new();
    for i in 0..150 {
        let sub = if i % 2 == 0 { "apply" } else { "prune" };
        let out = crate::common::run_bounded(
            e.cmd(&[sub, "--yes", "--lock-timeout", "5"]),
            Duration::from_secs(60),
        );
        *outcomes.entry((sub, out.status.code())).or_insert(0) += 1;
        let names = tree(&outside);
        assert_eq!(
            names,
            vec!["mcp.json".to_string()],
            "run {i} ({sub}) created something outside the root: {}",
            stderr(&out)
        );
        assert_eq!(
            fs::read_to_string(outside.join("mcp.json")).unwrap(),
            decoy,
            "run {i} ({sub}) changed a file outside the root: {}",
            stderr(&out)
        );
    }
    stop.store(true, Ordering::Relaxed);
    racer.join().unwrap();
    assert!(swaps.load(Ordering::Relaxed) > 0, "the racer never swapped");
    eprintln!(
        "outcomes {outcomes:?}, {} swaps",
        swaps.load(Ordering::Relaxed)
    );
}

// ---- item 5: a created file is deleted only when it is exactly what mcpconf left ----------

/// Applies `client` into an empty root/home, lets `edit` change the created file, prunes, and
/// returns (file path, whether it still exists, its bytes if so).
fn created_then_pruned(client: &str, rel: &str, edit: impl Fn(&str) -> String) -> (bool, String) {
    let e = Env::new();
    e.manifest(&target(client, ""));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{client}: {doc}");
    let file = e.base.join(rel);
    let written = fs::read_to_string(&file).unwrap_or_else(|err| panic!("{client}: {rel}: {err}"));
    let edited = edit(&written);
    fs::write(&file, &edited).unwrap();
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0, "{client}: {doc}");
    match fs::read_to_string(&file) {
        Ok(now) => (true, now),
        Err(_) => (false, String::new()),
    }
}

#[test]
fn prune_deletes_a_created_file_only_when_it_is_exactly_what_mcpconf_left() {
    // Untouched: it goes (apply then prune gives back "no file").
    let (exists, _) = created_then_pruned("vscode", "root/.vscode/mcp.json", |t| t.to_string());
    assert!(!exists, "an untouched created file is removed");
    let (exists, _) = created_then_pruned("codex", "home/.codex/config.toml", |t| t.to_string());
    assert!(!exists, "an untouched created file is removed");

    // A comment added to the created JSONC file: kept, with the note, our entries gone.
    let (exists, now) = created_then_pruned("vscode", "root/.vscode/mcp.json", |t| {
        format!("// MY IMPORTANT NOTE\n{t}")
    });
    assert!(exists, "the user's note was deleted with the file");
    assert!(now.contains("// MY IMPORTANT NOTE"), "{now}");
    assert!(!now.contains("agent-browser"), "our entry stayed: {now}");

    // Codex's TOML: a `# note`, or an empty `[profiles]` table, keeps the file.
    for (what, add) in [
        ("a comment", "# note\n"),
        ("an empty table", "\n[profiles]\n"),
    ] {
        let (exists, now) =
            created_then_pruned("codex", "home/.codex/config.toml", |t| format!("{t}{add}"));
        assert!(exists, "{what} was deleted with the file");
        assert!(now.contains(add.trim()), "{what}: {now}");
        assert!(
            !now.contains("agent-browser"),
            "{what}: our entry stayed: {now}"
        );
    }
}

// ---- item 15: paths given on the command line and in the manifest -------------------------

#[test]
fn a_missing_root_or_home_is_a_usage_error_and_is_never_created() {
    let e = Env::new();
    e.manifest(&target("cursor", ""));
    let missing = e.base.join("no/such/root");
    for flag in ["--root", "--home"] {
        for sub in [vec!["plan"], vec!["apply", "--yes"]] {
            let out = mcpconf_cmd()
                .args(&sub)
                .arg("-m")
                .arg(e.base.join("mcpconf.toml"))
                .arg(flag)
                .arg(&missing)
                .arg("--state-dir")
                .arg(e.state())
                .env("HOME", e.base.join("home"))
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(2),
                "{flag} {sub:?}: {}",
                stderr(&out)
            );
            assert!(stderr(&out).contains(flag), "{}", stderr(&out));
            assert!(!e.base.join("no").exists(), "{flag} {sub:?} created it");
        }
    }
}

#[test]
fn dot_dot_below_a_missing_directory_has_a_path_code() {
    let e = Env::new();
    e.manifest(&target("json", "path = \"sub/../x.json\""));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(codes(&doc), vec!["invalid-path"]);
    assert!(!e.path("sub").exists() && !e.path("x.json").exists());
}

#[test]
fn a_saved_plan_is_not_applied_under_another_root() {
    let e = Env::new();
    e.manifest(&target("cursor", ""));
    let plan = e.base.join("plan.json");
    let out = e.run(&["plan", "--out", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let other = e.base.join("other");
    fs::create_dir(&other).unwrap();
    let out = mcpconf_cmd()
        .args(["apply", "--yes"])
        .arg(&plan)
        .arg("--root")
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("plan-mismatch"), "{}", stderr(&out));
    assert!(!e.path(".cursor").exists() && tree(&other).is_empty());
    // Without --root it is applied where it was made.
    let out = mcpconf_cmd()
        .args(["apply", "--yes"])
        .arg(&plan)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(e.path(".cursor/mcp.json").exists());
}

// ---- item 14: a forged or corrupted ledger is not obeyed -----------------------------------

/// Apply the Cursor target, then rewrite the ledger's `openab` entry record with `forge`.
fn forged(e: &Env, forge: impl Fn(&mut Value)) -> std::path::PathBuf {
    e.manifest(&target("cursor", ""));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let ledger = e.state().join("ledger/openab.json");
    let mut v: Value = serde_json::from_slice(&fs::read(&ledger).unwrap()).unwrap();
    let rec = v["records"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["server"] == "openab" && r["kind"] == "entry")
        .expect("a record of openab");
    forge(rec);
    fs::write(&ledger, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    ledger
}

#[test]
fn a_forged_record_pointing_at_a_top_level_key_is_refused() {
    let e = Env::new();
    let file = e.path(".cursor/mcp.json");
    forged(&e, |r| {
        // Looks intact: the digest is that of the value now at the forged pointer.
        r["pointer"] = Value::from("/theirs");
        r["server"] = Value::from("theirs");
        r["digest"] = Value::from(mcpconf::ledger::digest(&serde_json::json!({"keep": "me"})));
    });
    let mut v: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
    v["theirs"] = serde_json::json!({"keep": "me"});
    fs::write(&file, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let before = fs::read(&file).unwrap();
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert!(codes(&doc).contains(&"invalid-ledger".to_string()), "{doc}");
    assert_eq!(
        fs::read(&file).unwrap(),
        before,
        "a forged record was obeyed"
    );
}

#[test]
fn a_forged_record_pointing_at_a_sub_field_is_refused() {
    let e = Env::new();
    let file = e.path(".cursor/mcp.json");
    forged(&e, |r| {
        r["pointer"] = Value::from("/mcpServers/browser/args");
        r["server"] = Value::from("args");
    });
    let before = fs::read(&file).unwrap();
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert!(codes(&doc).contains(&"invalid-ledger".to_string()), "{doc}");
    assert_eq!(fs::read(&file).unwrap(), before);
}

#[test]
fn a_forged_record_naming_a_file_outside_the_bases_is_refused() {
    let e = Env::new();
    let outside_dir = e.base.join("outside");
    fs::create_dir_all(&outside_dir).unwrap();
    let outside = outside_dir.join("mcp.json");
    let entry = serde_json::json!({"url": "http://127.0.0.1:8848/mcp"});
    fs::write(
        &outside,
        serde_json::to_vec_pretty(&serde_json::json!({"mcpServers": {"openab": entry}})).unwrap(),
    )
    .unwrap();
    let canonical = fs::canonicalize(&outside).unwrap();
    forged(&e, |r| {
        r["file"] = Value::from(canonical.display().to_string());
        r["digest"] = Value::from(mcpconf::ledger::digest(&entry));
    });
    let before = fs::read(&outside).unwrap();
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert!(codes(&doc).contains(&"invalid-ledger".to_string()), "{doc}");
    assert_eq!(
        fs::read(&outside).unwrap(),
        before,
        "a file outside the bases was edited"
    );
}

/// Issue 27 item 19: a forged record whose file climbs out of the root by `..` is the same
/// refusal (exit 3, `invalid-ledger`), never an I/O error from touching its directory, in
/// every command that would write, with and without `--keep-going`.
#[test]
fn a_forged_record_climbing_out_by_dot_dot_is_invalid_ledger() {
    let e = Env::new();
    let outside = e.base.join("outside");
    fs::create_dir_all(&outside).unwrap();
    let entry = serde_json::json!({"url": "http://127.0.0.1:8848/mcp"});
    let body = serde_json::to_vec_pretty(&serde_json::json!({"mcpServers": {"openab": entry}}));
    fs::write(outside.join("mcp.json"), body.unwrap()).unwrap();
    let climbing = format!("{}/../outside/mcp.json", e.root().display());
    forged(&e, |r| {
        r["file"] = Value::from(climbing.clone());
        r["digest"] = Value::from(mcpconf::ledger::digest(&entry));
    });
    let before = fs::read(outside.join("mcp.json")).unwrap();
    for args in [
        &["prune", "--yes"][..],
        &["prune", "--yes", "--keep-going"][..],
        &["apply", "--yes"][..],
        &["plan"][..],
    ] {
        let (exit, doc) = e.json(args);
        assert_eq!(exit, 3, "{args:?}: {doc}");
        assert!(
            codes(&doc).iter().all(|c| c == "invalid-ledger"),
            "{args:?}: {doc}"
        );
    }
    assert_eq!(fs::read(outside.join("mcp.json")).unwrap(), before);
}

// ---- issue 15: prune removes the directories mcpconf created, and no other ------------------

#[test]
fn prune_after_apply_into_an_empty_home_and_root_leaves_both_as_they_were() {
    let e = Env::new();
    // Codex (user scope: ~/.codex/config.toml), Gemini (project: .gemini/settings.json) and a
    // nested json target: every parent directory is created by apply.
    e.manifest(&format!(
        "{SERVERS}\n[[targets]]\nclient = \"codex\"\n[[targets]]\nclient = \"gemini\"\nscope = \"project\"\n[[targets]]\nclient = \"json\"\npath = \"a/b/c/mcp.json\"\n"
    ));
    let home = e.base.join("home");
    let (home0, root0) = (tree(&home), tree(&e.root()));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(home.join(".codex/config.toml").is_file());
    assert!(e.path(".gemini/settings.json").is_file());
    assert!(e.path("a/b/c/mcp.json").is_file());
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(tree(&home), home0, "prune left directories in HOME");
    assert_eq!(tree(&e.root()), root0, "prune left directories in the root");
}

#[test]
fn prune_keeps_a_created_directory_the_user_put_something_in_and_any_it_did_not_create() {
    let e = Env::new();
    fs::create_dir_all(e.path("a")).unwrap(); // the user's, before mcpconf
    e.manifest(&target("json", "path = \"a/b/c/mcp.json\""));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    fs::write(e.path("a/b/notes.txt"), "mine").unwrap();
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(!e.path("a/b/c/mcp.json").exists(), "the created file stays");
    assert!(
        !e.path("a/b/c").exists(),
        "an emptied created directory stays"
    );
    assert_eq!(fs::read_to_string(e.path("a/b/notes.txt")).unwrap(), "mine");
    assert!(
        e.path("a").is_dir(),
        "a directory mcpconf did not create was removed"
    );
}

/// Issue 27 item 18: a `ledger/` directory that is a symbolic link, and an owner's lock file
/// that is a link to an existing file, are refused (`not-a-file`, exit 3), never followed: no
/// file is written, the link's target is untouched (the state directory itself may be reached
/// through a link).
#[cfg(unix)]
#[test]
fn links_inside_the_state_directory_are_refused() {
    let e = Env::new();
    e.manifest(&target("cursor", ""));
    let elsewhere = e.base.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, e.state().join("ledger")).unwrap();
    for args in [&["apply", "--yes"][..], &["plan"][..], &["status"][..]] {
        let (exit, doc) = e.json(args);
        assert_eq!(exit, 3, "{args:?}: {doc}");
        assert_eq!(codes(&doc), ["not-a-file"], "{args:?}: {doc}");
    }
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(!e.path(".cursor").exists());

    fs::remove_file(e.state().join("ledger")).unwrap();
    fs::create_dir(e.state().join("ledger")).unwrap();
    let target_file = elsewhere.join("precious");
    fs::write(&target_file, "keep").unwrap();
    std::os::unix::fs::symlink(&target_file, e.state().join("ledger/openab.lock")).unwrap();
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(codes(&doc), ["not-a-file"], "{doc}");
    assert!(!e.path(".cursor/mcp.json").exists());
    assert_eq!(fs::read_to_string(&target_file).unwrap(), "keep");

    // A state directory reached through a link is fine.
    fs::remove_file(e.state().join("ledger/openab.lock")).unwrap();
    let real = e.base.join("real-state");
    fs::rename(e.state(), &real).unwrap();
    std::os::unix::fs::symlink(&real, e.state()).unwrap();
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(real.join("ledger/openab.json").is_file());
}
