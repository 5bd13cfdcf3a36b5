//! Records the commit the binary is built from, for `mcpconf --version`: from git in a clone, from
//! `.cargo_vcs_info.json` in a published crate (`cargo install mcpconf`), else "unknown commit".
//! Git is asked only when this crate's own directory is a checkout, never a repository above it.
use std::path::Path;
use std::process::Command;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = Path::new(&dir);
    let from_git = || {
        if !dir.join(".git").exists() {
            return None;
        }
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "--short=12", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
    };
    // `cargo package` writes {"git": {"sha1": "…"}, …}; a plain scan avoids a build dependency.
    let from_package = || {
        let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
        let at = text.find("\"sha1\"")?;
        let rest = &text[at + 6..];
        let start = rest.find('"')? + 1;
        let len = rest[start..].find('"')?;
        Some(
            rest[start..start + len]
                .chars()
                .take(12)
                .collect::<String>(),
        )
    };
    let commit = from_git()
        .or_else(from_package)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit()))
        .unwrap_or_else(|| "unknown commit".to_string());
    println!("cargo:rustc-env=MCPCONF_COMMIT={commit}");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
}
