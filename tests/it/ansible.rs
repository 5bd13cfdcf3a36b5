//! The Ansible example (`examples/ansible/`) run with ansible-core against localhost: check
//! mode changes nothing and reports the change, apply reports `changed`, a second apply `ok`.
//!
//! `scripts/test` installs a pinned ansible-core from PyPI into `target/ansible`; when that was
//! impossible (registry unreachable) it leaves `target/ansible.unavailable` and this test says
//! so and skips. Any other absence is a failure.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn ansible_bin() -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var_os("MCPCONF_ANSIBLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target/ansible/bin"));
    if dir.join("ansible-playbook").exists() {
        return Some(dir);
    }
    let marker = repo.join("target/ansible.unavailable");
    if marker.exists() {
        eprintln!(
            "SKIPPED: ansible-core could not be installed ({})",
            fs::read_to_string(marker).unwrap_or_default().trim()
        );
        return None;
    }
    panic!(
        "ansible-playbook not found in {}: run scripts/test, which installs it",
        dir.display()
    );
}

/// (ok, changed, failed) from the PLAY RECAP line.
fn recap(out: &str) -> (u32, u32, u32) {
    let line = out
        .lines()
        .find(|l| l.starts_with("localhost") && l.contains("ok="))
        .unwrap_or_else(|| panic!("no recap in:\n{out}"));
    let num = |k: &str| -> u32 {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(k))
            .and_then(|v| v.parse().ok())
            .unwrap_or(u32::MAX)
    };
    (num("ok="), num("changed="), num("failed="))
}

#[test]
fn ansible_check_apply_and_idempotence() {
    let Some(bin) = ansible_bin() else { return };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    // --home must exist (mcpconf never creates it).
    std::fs::create_dir_all(tmp.path().join("home")).unwrap();
    let root = tmp.path().join("root");
    fs::create_dir_all(root.join(".cursor")).unwrap();
    let file = root.join(".cursor/mcp.json");
    fs::write(
        &file,
        "{\"mcpServers\": {\"mine\": {\"command\": \"x\"}}}\n",
    )
    .unwrap();
    let manifest = tmp.path().join("mcpconf.toml");
    fs::write(
        &manifest,
        "owner = \"fleet\"\n[servers.openab]\nurl = \"http://127.0.0.1:8848/mcp\"\nheaders = { Authorization = \"Bearer ${OPENAB_SESSION_TOKEN}\" }\n[[targets]]\nclient = \"cursor\"\n",
    )
    .unwrap();
    let python = bin.join("python3");
    let inventory = tmp.path().join("inventory");
    fs::write(
        &inventory,
        format!(
            "localhost ansible_connection=local ansible_python_interpreter={}\n",
            python.display()
        ),
    )
    .unwrap();
    let run = |extra: &[&str]| -> String {
        let out = Command::new(bin.join("ansible-playbook"))
            .current_dir(repo.join("examples/ansible"))
            .args(["-i", inventory.to_str().unwrap(), "site.yml"])
            .args(extra)
            .arg("-e")
            .arg(format!(
                "mcpconf_manifest={} mcpconf_root={} mcpconf_home={} mcpconf_state_dir={} mcpconf_binary={}",
                manifest.display(),
                root.display(),
                tmp.path().join("home").display(),
                tmp.path().join("state").display(),
                crate::common::bin()
            ))
            .env("ANSIBLE_NOCOLOR", "1")
            .env("ANSIBLE_LOCAL_TEMP", tmp.path().join("ansible-local"))
            .env("ANSIBLE_REMOTE_TEMP", tmp.path().join("ansible-remote"))
            .env("ANSIBLE_HOME", tmp.path().join("ansible-home"))
            .env("ANSIBLE_PYTHON_INTERPRETER", &python)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "ansible-playbook {extra:?} failed:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };

    let before = fs::read(&file).unwrap();
    let check = run(&["--check", "--diff"]);
    assert_eq!(
        recap(&check).1,
        1,
        "check mode reports the pending change:\n{check}"
    );
    assert!(
        check.contains("+++ ") && check.contains("\"openab\": {\"url\""),
        "diff mode shows the diff:\n{check}"
    );
    assert_eq!(
        fs::read(&file).unwrap(),
        before,
        "check mode writes nothing"
    );

    let apply = run(&[]);
    assert_eq!(recap(&apply).1, 1, "{apply}");
    assert!(
        String::from_utf8(fs::read(&file).unwrap())
            .unwrap()
            .contains("\"openab\"")
    );

    let again = run(&[]);
    let (ok, changed, failed) = recap(&again);
    assert_eq!((changed, failed), (0, 0), "{again}");
    assert!(ok >= 1);
}
