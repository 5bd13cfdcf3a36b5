//! Snapshot tests over fixture directories (cargo's `in/` / `out/` layout).
//!
//! Each `tests/fixtures/<case>/` holds:
//! - `mcpconf.toml` — the manifest (targets relative to the root);
//! - `in/` — the project root before;
//! - `out/` — the project root after `apply --yes` (exact bytes);
//! - `plan.json` — the `plan --format json` document, with the root path written `[ROOT]`.
//!
//! The test runs plan, apply, a second apply (must change nothing), then prune, which must give
//! back `in/` byte for byte (unless the case has a file named `no-identity`, used when the
//! manifest removes a legacy entry that prune rightly does not restore).
//!
//! `MCPCONF_BLESS=1 cargo test --test it fixtures` rewrites `out/` and `plan.json` from the
//! current behaviour; review the diff before committing.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::{copy_tree, files as tree, mcpconf_cmd, snapshot};

fn run(case: &Path, root: &Path, state: &Path, args: &[&str]) -> (i32, String) {
    // A --home that does not exist is a usage error; an empty one leaves the tree unchanged.
    fs::create_dir_all(root.join("home-unused")).unwrap();
    let out = mcpconf_cmd()
        .args(args)
        .arg("-m")
        .arg(case.join("mcpconf.toml"))
        .arg("--root")
        .arg(root)
        .arg("--home")
        .arg(root.join("home-unused"))
        .arg("--state-dir")
        .arg(state)
        .args(["--format", "json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout)
        .unwrap()
        .replace(&root.display().to_string(), "[ROOT]");
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("mcpconf.toml").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 8, "fixtures missing");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().join("root");
        let state = scratch.path().join("state");
        copy_tree(&case.join("in"), &root);
        let before = tree(&root);

        let (code, plan) = run(case, &root, &state, &["plan"]);
        if let Some(diff) = snapshot::check_file(&case.join("plan.json"), &plan) {
            failures.push(format!("{name}: {diff}"));
        }
        if code != 0 {
            failures.push(format!("{name}: plan exited {code}"));
            continue;
        }
        assert_eq!(tree(&root), before, "{name}: plan wrote something");

        let (code, out) = run(case, &root, &state, &["apply", "--yes"]);
        if code != 0 {
            failures.push(format!("{name}: apply exited {code}: {out}"));
            continue;
        }
        if let Some(diff) = snapshot::check_tree(&case.join("out"), &root) {
            failures.push(format!("{name}: {diff}"));
        }

        let (code, again) = run(case, &root, &state, &["apply", "--yes"]);
        if code != 0 || !again.contains("\"changed\": false") {
            failures.push(format!("{name}: second apply is not a no-op: {again}"));
        }

        let (code, pruned) = run(case, &root, &state, &["prune", "--yes"]);
        if code != 0 {
            failures.push(format!("{name}: prune exited {code}: {pruned}"));
            continue;
        }
        if !case.join("no-identity").exists() && tree(&root) != before {
            failures.push(format!(
                "{name}: apply then prune did not restore the original bytes; got:\n{:?}",
                tree(&root)
                    .iter()
                    .map(|(p, b)| (p, String::from_utf8_lossy(b)))
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
