//! Work that must grow linearly: many entries in one file, many servers in one manifest, many
//! agent files in one directory. Each test asserts the result; its own generous deadline (a
//! killed process fails the test) is what a quadratic implementation would not meet. The times
//! themselves are measured by `scripts/bench`, never asserted here.

use std::fmt::Write as _;
use std::fs;
use std::process::Command;
use std::time::Duration;

use crate::common::{bin, code, run_bounded, show};
use serde_json::Value;

/// Far above what linear work needs even in a debug build on a loaded machine, far below what
/// quadratic work needs at these sizes.
const DEADLINE: Duration = Duration::from_secs(300);

/// Lint of one `.cursor/mcp.json` with 100 000 entries: every entry is checked, and the two
/// planted problems at the end are found at their exact lines.
#[test]
fn lint_of_100_000_entries_finds_the_planted_problems() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p/.cursor");
    fs::create_dir_all(&dir).unwrap();
    // --home must exist (mcpconf never creates it).
    fs::create_dir_all(tmp.path().join("home")).unwrap();
    let n = 100_000;
    let mut text = String::from("{\n  \"mcpServers\": {\n");
    let mut line = 3;
    for i in 0..n {
        writeln!(
            text,
            "    \"s{i}\": {{ \"command\": \"npx\", \"args\": [\"-y\", \"@acme/server-{i}\"] }},"
        )
        .unwrap();
        line += 1;
    }
    // The same server as `s0` under another name, and a misspelt field.
    let dup_line = line;
    text.push_str(
        "    \"again\": { \"command\": \"npx\", \"args\": [\"-y\", \"@acme/server-0\"] },\n",
    );
    let field_line = dup_line + 1;
    text.push_str("    \"last\": { \"command\": \"npx\", \"argz\": [] }\n  }\n}\n");
    let file = dir.join("mcp.json");
    fs::write(&file, &text).unwrap();

    let mut cmd = Command::new(bin());
    cmd.arg("lint")
        .arg(&file)
        .arg("--format")
        .arg("json")
        .arg("--home")
        .arg(tmp.path().join("home"))
        .arg("--state-dir")
        .arg(tmp.path().join("state"));
    let out = run_bounded(cmd, DEADLINE);
    // Both are warnings: exit 0.
    assert_eq!(code(&out.status, "lint"), 0, "{}", show(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("duplicate-server".to_string(), dup_line),
            ("unknown-field".to_string(), field_line),
        ],
        "{}",
        show(&out)
    );
}
