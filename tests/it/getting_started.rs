//! docs/getting-started.md, run as a new user would: every `mkdir` and `mcpconf` line of its
//! shell blocks, in order, in an empty scratch HOME with `mcpconf` on PATH (the page must stay
//! true; its install lines once failed on a fresh HOME).

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// The shell lines of the page's ```sh blocks, without comments, and the TOML manifest block.
fn page() -> (Vec<String>, String) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(repo.join("docs/getting-started.md")).unwrap();
    let (mut lines, mut toml, mut block) = (Vec::new(), String::new(), None::<String>);
    for l in text.lines() {
        match (&block, l.strip_prefix("```")) {
            (None, Some(lang)) => block = Some(lang.to_string()),
            (Some(_), Some(_)) => block = None,
            (Some(lang), None) if lang == "sh" => {
                let cmd = l.split(" #").next().unwrap().trim();
                if cmd.starts_with("mcpconf ") || cmd.starts_with("mkdir ") {
                    lines.push(cmd.to_string());
                }
            }
            (Some(lang), None) if lang == "toml" => {
                toml.push_str(l);
                toml.push('\n');
            }
            _ => {}
        }
    }
    (lines, toml)
}

#[test]
fn the_getting_started_commands_work_in_an_empty_home() {
    let (lines, toml) = page();
    assert!(
        lines.iter().any(|l| l.starts_with("mkdir -p")),
        "the install lines create their directories: {lines:?}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let (home, proj, bin) = (
        tmp.path().join("home"),
        tmp.path().join("proj"),
        tmp.path().join("bin"),
    );
    for d in [&home, &proj, &bin] {
        fs::create_dir(d).unwrap();
    }
    std::os::unix::fs::symlink(crate::common::bin(), bin.join("mcpconf")).unwrap();
    // "Start from the files you already have": one Cursor file with one server.
    fs::create_dir(proj.join(".cursor")).unwrap();
    fs::write(
        proj.join(".cursor/mcp.json"),
        "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs-mcp\"]}\n  }\n}\n",
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = Vec::new();
    for line in &lines {
        // Section 1 shows two ways to get a manifest: run `import`, then use the hand-written one.
        if line.starts_with("mcpconf plan") && !proj.join("hand-written").exists() {
            fs::write(proj.join("mcpconf.toml"), &toml).unwrap();
            fs::write(proj.join("hand-written"), "").unwrap();
        }
        let mut sh = Command::new("sh");
        for k in crate::common::LEAKY_ENV {
            sh.env_remove(k);
        }
        let out = sh
            .arg("-c")
            .arg(line)
            .current_dir(&proj)
            .env("HOME", &home)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env("GITHUB_TOKEN", "not-a-real-token")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let code = out.status.code();
        // `plan --check` finds pending changes (1); `apply` without a terminal asks nobody (2).
        let expected = match line.as_str() {
            "mcpconf plan --check" => Some(1),
            "mcpconf apply" => Some(2),
            _ => Some(0),
        };
        assert_eq!(
            code,
            expected,
            "`{line}`\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if line.starts_with("mcpconf import") {
            let m = fs::read_to_string(proj.join("mcpconf.toml")).unwrap();
            assert!(m.contains("[servers.fs]"), "import wrote the manifest: {m}");
        }
        ran.push(line.clone());
    }
    for cmd in [
        "mcpconf completions bash",
        "mcpconf man",
        "mcpconf import",
        "mcpconf plan --out",
        "mcpconf apply --yes",
        "mcpconf status --check",
        "mcpconf release github",
        "mcpconf prune --yes",
    ] {
        assert!(
            ran.iter().any(|l| l.starts_with(cmd)),
            "`{cmd}` is on the page and ran: {ran:?}"
        );
    }
    let completion = home.join(".local/share/bash-completion/completions/mcpconf");
    assert!(fs::read_to_string(&completion).unwrap().contains("mcpconf"));
    let man = fs::read_to_string(home.join(".local/share/man/man1/mcpconf.1")).unwrap();
    assert!(man.starts_with(".ie") || man.contains(".TH"), "{man}");
    // `release github` handed the entry to the user, so `prune` left it in place.
    let cursor = fs::read_to_string(proj.join(".cursor/mcp.json")).unwrap();
    assert!(cursor.contains("\"github\""), "{cursor}");
}
