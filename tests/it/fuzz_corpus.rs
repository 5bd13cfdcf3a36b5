//! Replays the fuzz targets' seed corpus (`fuzz/corpus/<target>/seed-*`) through the same
//! invariant checks the `cargo fuzz` targets run (`mcpconf::fuzzing`), so the invariants are
//! exercised by every `cargo test`, without nightly. Crashes found by fuzzing are added to the
//! corpus as `seed-regression-*` files.

use std::fs;
use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut n = 0;
    for e in fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if !p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("seed-")
        {
            continue;
        }
        let data = fs::read(&p).unwrap();
        check(&data);
        // Truncations and single-byte damage of every seed, too.
        for cut in (0..data.len()).step_by(7) {
            check(&data[..cut]);
            let mut d = data.clone();
            d[cut] ^= 0x20;
            check(&d);
        }
        n += 1;
    }
    assert!(n > 0, "no seeds in {}", dir.display());
}

#[test]
fn json_read_seeds() {
    replay("json_read", mcpconf::fuzzing::json_read);
}

#[test]
fn json_edit_seeds() {
    replay("json_edit", mcpconf::fuzzing::json_edit);
}

#[test]
fn manifest_seeds() {
    replay("manifest", mcpconf::fuzzing::manifest);
}

#[test]
fn registry_seeds() {
    replay("registry", mcpconf::fuzzing::registry);
}

#[test]
fn yaml_edit_seeds() {
    replay("yaml_edit", mcpconf::fuzzing::yaml_edit);
}

#[test]
fn toml_edit_seeds() {
    replay("toml_edit", mcpconf::fuzzing::toml_edit);
}

#[test]
fn redact_argv_seeds() {
    replay("redact_argv", mcpconf::fuzzing::redact_argv);
}

#[test]
fn redact_spans_seeds() {
    replay("redact_spans", mcpconf::fuzzing::redact_spans);
}
