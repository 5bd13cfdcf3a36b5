//! The one snapshot scheme of the integration tests. A snapshot is a plain file (or a directory
//! tree) checked in next to the tests — `tests/lint_fixtures/snapshots/*`, and each fixture
//! case's `plan.json` and `out/` under `tests/fixtures/` — holding exactly the expected bytes,
//! so a diff of a snapshot is a diff of the output.
//!
//! `MCPCONF_BLESS=1 cargo test --test it` rewrites every snapshot a test compares from the
//! current behaviour (and passes); review the diff before committing.

use std::fs;
use std::path::Path;

/// The environment variable that turns comparisons into rewrites.
pub const BLESS_ENV: &str = "MCPCONF_BLESS";

/// Whether this run rewrites snapshots instead of comparing them.
pub fn blessing() -> bool {
    std::env::var_os(BLESS_ENV).is_some()
}

/// Compares `actual` with the snapshot file at `path`: `None` when equal (or, when blessing,
/// after writing `actual` there), else a message saying what differs.
pub fn check_file(path: &Path, actual: &str) -> Option<String> {
    if blessing() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, actual).unwrap();
        return None;
    }
    match fs::read_to_string(path) {
        Ok(expected) if expected == actual => None,
        Ok(expected) => Some(format!(
            "snapshot {} differs ({BLESS_ENV}=1 rewrites it)\n--- expected ---\n{expected}\n--- actual ---\n{actual}",
            path.display()
        )),
        Err(e) => Some(format!(
            "snapshot {}: {e} ({BLESS_ENV}=1 writes it)\n--- actual ---\n{actual}",
            path.display()
        )),
    }
}

/// [`check_file`], failing the test on a difference.
pub fn assert_file(path: &Path, actual: &str) {
    if let Some(msg) = check_file(path, actual) {
        panic!("{msg}");
    }
}

/// Compares the regular files under `actual` (paths and bytes) with the snapshot tree at
/// `path`: `None` when equal (or, when blessing, after replacing `path` by a copy of
/// `actual`), else a message listing the actual tree.
pub fn check_tree(path: &Path, actual: &Path) -> Option<String> {
    let got = super::files(actual);
    if blessing() {
        let _ = fs::remove_dir_all(path);
        super::copy_tree(actual, path);
        return None;
    }
    if super::files(path) == got {
        return None;
    }
    let shown: String = got
        .iter()
        .map(|(p, b)| format!("== {}\n{}", p.display(), String::from_utf8_lossy(b)))
        .collect();
    Some(format!(
        "snapshot tree {} differs ({BLESS_ENV}=1 rewrites it); got:\n{shown}",
        path.display()
    ))
}
