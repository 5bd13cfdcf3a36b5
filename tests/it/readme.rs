//! The README's first command runs on a fresh clone, prints a meaningful plan and writes
//! nothing (the README must stay true).

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::mcpconf_cmd;

fn tree(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            tree(&p, out);
        } else {
            out.push((p.clone(), fs::read(&p).unwrap()));
        }
    }
}

#[test]
fn the_readme_example_plans_without_writing() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(repo.join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("cargo run -q -- plan"))
        .expect("the README's first command");
    let args: Vec<&str> = line
        .trim_start_matches("cargo run -q -- ")
        .split_whitespace()
        .collect();
    let example = repo.join("examples/openab");
    let mut before = Vec::new();
    tree(&example, &mut before);
    let out = mcpconf_cmd()
        .current_dir(repo)
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("Plan: 6 files"), "{stdout}");
    assert!(stdout.contains("legacy-remove openab-browser"), "{stdout}");
    assert!(
        stdout.contains("Bearer ${env:OPENAB_SESSION_TOKEN}"),
        "{stdout}"
    );
    assert!(
        stdout.contains("bearer_token_env_var = \"OPENAB_SESSION_TOKEN\""),
        "{stdout}"
    );
    let mut after = Vec::new();
    tree(&example, &mut after);
    before.sort();
    after.sort();
    assert_eq!(before, after, "the example is unchanged");
    assert!(
        !example.join("state").exists(),
        "no ledger is written by plan"
    );
}
