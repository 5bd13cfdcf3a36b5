//! Real file-system failures, not injected ones: a full disk (a 64 KiB tmpfs), a read-only
//! file system (tmpfs remounted read-only) and a bind-mounted single file (rename over it is
//! impossible: EBUSY). Each must exit 4 with a stable code, leave the file byte-identical and
//! leave no temp file. Needs root to mount; otherwise each test says SKIPPED.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{codes, mcpconf_cmd};

/// Unmounts on drop, whatever the test did.
struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn mount(args: &[&str], target: &Path) -> Option<Mount> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: mounting needs root");
        return None;
    }
    let ok = Command::new("mount")
        .args(args)
        .arg(target)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED: `mount {args:?}` is not possible here");
        return None;
    }
    Some(Mount(target.to_path_buf()))
}

fn apply(dir: &Path, root: &Path, state: &Path) -> (i32, Value) {
    let manifest = dir.join("mcpconf.toml");
    fs::write(
        &manifest,
        "owner = \"o\"\n[servers.s]\ncommand = \"server\"\nargs = [\"--flag\"]\n[[targets]]\nclient = \"cursor\"\n",
    )
    .unwrap();
    let out = mcpconf_cmd()
        .args(["apply", "--yes", "--format", "json", "-m"])
        .arg(&manifest)
        .arg("--root")
        .arg(root)
        .arg("--home")
        .arg(dir)
        .arg("--state-dir")
        .arg(state)
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), doc)
}

fn temps(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".mcpconf-"))
        .collect()
}

/// A valid config of about 40 KB: a second copy does not fit in 64 KiB.
fn big_config() -> String {
    format!(
        "{{\n  \"mcpServers\": {{}},\n  \"notes\": \"{}\"\n}}\n",
        "x".repeat(40_000)
    )
}

#[test]
fn a_full_disk_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    fs::create_dir_all(&root).unwrap();
    let Some(_m) = mount(&["-t", "tmpfs", "-o", "size=64k", "tmpfs"], &root) else {
        return;
    };
    fs::create_dir_all(root.join(".cursor")).unwrap();
    let file = root.join(".cursor/mcp.json");
    let before = big_config();
    fs::write(&file, &before).unwrap();
    let (exit, doc) = apply(tmp.path(), &root, &tmp.path().join("state"));
    assert_eq!(exit, 4, "{doc}");
    assert_eq!(codes(&doc), vec!["disk-full"], "{doc}");
    assert_eq!(fs::read_to_string(&file).unwrap(), before);
    assert!(temps(&root.join(".cursor")).is_empty());
}

#[test]
fn a_read_only_file_system_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    fs::create_dir_all(&root).unwrap();
    let Some(_m) = mount(&["-t", "tmpfs", "-o", "size=1m", "tmpfs"], &root) else {
        return;
    };
    fs::create_dir_all(root.join(".cursor")).unwrap();
    let file = root.join(".cursor/mcp.json");
    fs::write(&file, "{\"mcpServers\": {}}\n").unwrap();
    let ro = Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&root)
        .status()
        .unwrap();
    assert!(ro.success());
    let (exit, doc) = apply(tmp.path(), &root, &tmp.path().join("state"));
    assert_eq!(exit, 4, "{doc}");
    assert_eq!(codes(&doc), vec!["read-only"], "{doc}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "{\"mcpServers\": {}}\n");
    let status = mcpconf_cmd()
        .args(["status", "--owner", "o", "--format", "json", "--state-dir"])
        .arg(tmp.path().join("state"))
        .output()
        .unwrap();
    let st: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(
        st["records"],
        serde_json::json!([]),
        "the ledger claims nothing"
    );
}

#[test]
fn a_bind_mounted_single_file_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    fs::create_dir_all(root.join(".cursor")).unwrap();
    let file = root.join(".cursor/mcp.json");
    fs::write(&file, "{\"mcpServers\": {}}\n").unwrap();
    let source = tmp.path().join("host-mcp.json");
    fs::write(
        &source,
        "{\"mcpServers\": {\"host\": {\"command\": \"h\"}}}\n",
    )
    .unwrap();
    let Some(_m) = mount(&["--bind", source.to_str().unwrap()], &file) else {
        return;
    };
    let before = fs::read_to_string(&file).unwrap();
    let (exit, doc) = apply(tmp.path(), &root, &tmp.path().join("state"));
    assert_eq!(exit, 4, "{doc}");
    assert_eq!(codes(&doc), vec!["io-error"], "{doc}");
    let msg = doc["errors"][0]["message"].as_str().unwrap_or("");
    assert!(msg.contains("mcp.json"), "{msg}");
    assert_eq!(fs::read_to_string(&file).unwrap(), before);
    assert!(temps(&root.join(".cursor")).is_empty());
}
