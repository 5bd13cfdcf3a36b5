//! Issue 27 items 2–5 and 21, through the CLI: a secret in any shape of argument vector (an
//! option and its value as two elements, `--flag=value` inside a longer string, a short
//! credential in a URL's query) in JSON, TOML and YAML client files is shown by no output —
//! plan and apply diffs in text and JSON, prune, import, lint — and lint reports it; lint's
//! code frame of a YAML line it cannot read masks credential values behind anchors, tags and
//! continuation lines, and calls valid YAML it does not read `unsupported-yaml`, not a parse
//! error.

use std::fs;

use crate::common::Env;

const MARK: &str = "PLANTED";

fn assert_clean(what: &str, bytes: &[u8]) {
    let s = String::from_utf8_lossy(bytes);
    assert!(!s.contains(MARK), "{what} shows a planted secret:\n{s}");
}

fn plant(e: &Env) {
    e.write(
        ".cursor/mcp.json",
        format!(
            "{{\n  \"mcpServers\": {{\n    \"gh\": {{\n      \"command\": \"npx srv --api-key={MARK}cmd1\",\n      \"args\": [\n        \"--api-key\",\n        \"{MARK}a1b2c3d4\",\n        \"--token\", \"{MARK}zz99x\",\n        \"tool --token={MARK}qq77 x\",\n        \"run --auth-token {MARK}word9 now\"\n      ]\n    }},\n    \"web\": {{ \"url\": \"https://h.example/mcp?token={MARK}q\" }}\n  }}\n}}\n"
        ),
    );
    e.write(
        ".codex/config.toml",
        format!(
            "[mcp_servers.gh]\ncommand = \"npx srv --api-key={MARK}toml1\"\nargs = [\"--token\", \"{MARK}toml2\", \"-y\"]\n"
        ),
    );
    let goose = e.base.join("home/.config/goose/config.yaml");
    fs::create_dir_all(goose.parent().unwrap()).unwrap();
    fs::write(
        &goose,
        format!(
            "extensions:\n  gh:\n    name: gh\n    type: stdio\n    cmd: npx\n    args:\n    - --api-key\n    - {MARK}yaml1\n    - -y\n    enabled: true\n  gl:\n    name: gl\n    type: stdio\n    cmd: npx\n    args: [--token, {MARK}yaml2]\n    enabled: true\n"
        ),
    )
    .unwrap();
}

const MANIFEST: &str = "owner = \"o\"\n[servers.api]\ncommand = \"api-mcp\"\n[[targets]]\nclient = \"cursor\"\n[[targets]]\nclient = \"codex\"\nscope = \"project\"\n[[targets]]\nclient = \"goose\"\n";

#[test]
fn a_secret_in_any_argv_shape_never_shows_in_plan_apply_prune_import_or_lint() {
    let e = Env::new();
    plant(&e);
    e.manifest(MANIFEST);
    for fmt in [&[][..], &["--format", "json"][..]] {
        let out = e.run(&[&["plan"][..], fmt].concat());
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_clean("plan", &out.stdout);
        assert_clean("plan (stderr)", &out.stderr);
        let shown = String::from_utf8_lossy(&out.stdout);
        // The diffs show the user's lines, masked.
        assert!(
            shown.contains("<redacted>") && shown.contains("--token"),
            "{shown}"
        );
    }
    for (client, scope) in [
        ("cursor", "project"),
        ("codex", "project"),
        ("goose", "user"),
    ] {
        for fmt in [&[][..], &["--format", "json"][..]] {
            let out = e.run(&[&["import", "--client", client, "--scope", scope][..], fmt].concat());
            // A client that expands no reference where import put one in place of a secret
            // (Codex's `command`, Goose's `args`): that server is left out with the reason,
            // never printed as a manifest `plan` would refuse; with every server left out,
            // nothing is left to import (`no-servers`, exit 1).
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let left_out = said.contains("no-servers") && said.contains("is left out");
            let want = if left_out { Some(1) } else { Some(0) };
            assert_eq!(out.status.code(), want, "{client}: {out:?}");
            assert_clean(&format!("import {client}"), &out.stdout);
            assert_clean(&format!("import {client} (stderr)"), &out.stderr);
        }
    }
    for fmt in [&[][..], &["--format", "json"][..]] {
        let out = e.run(&[&["lint"][..], fmt].concat());
        assert_clean("lint", &out.stdout);
        assert_clean("lint (stderr)", &out.stderr);
    }
    let (_, doc) = e.json(&["lint"]);
    let secrets: Vec<(String, u64)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "literal-secret")
        .map(|f| {
            let p = f["path"].as_str().unwrap();
            let file = p.rsplit('/').next().unwrap().to_string();
            (file, f["line"].as_u64().unwrap())
        })
        .collect();
    // Each shape is a finding of its own, on its own line.
    for want in [
        ("mcp.json", 4),
        ("mcp.json", 7),
        ("mcp.json", 8),
        ("mcp.json", 9),
        ("mcp.json", 10),
        ("mcp.json", 13),
        ("config.toml", 2),
        ("config.toml", 3),
        ("config.yaml", 6),
        ("config.yaml", 15),
    ] {
        assert!(
            secrets.iter().any(|(f, l)| f == want.0 && *l == want.1),
            "{want:?} in {secrets:?}"
        );
    }
    for fmt in [&[][..], &["--format", "json"][..]] {
        for cmd in [&["apply", "--yes"][..], &["prune", "--yes"][..]] {
            let out = e.run(&[cmd, fmt].concat());
            assert_eq!(out.status.code(), Some(0), "{cmd:?}: {out:?}");
            assert_clean(&format!("{cmd:?}"), &out.stdout);
            assert_clean(&format!("{cmd:?} (stderr)"), &out.stderr);
        }
    }
}

/// The line lint shows for a YAML file it cannot read is masked with what encloses it.
#[test]
fn lint_masks_credential_values_in_the_yaml_line_it_shows_and_calls_valid_yaml_unsupported() {
    for (text, line) in [
        (
            format!("extensions:\n  gh:\n    envs:\n      API_KEY: &k {MARK}anchor9\n"),
            4,
        ),
        (
            format!("extensions:\n  gh:\n    envs:\n      TOKEN: !!str {MARK}tagged7\n"),
            4,
        ),
        (
            format!("extensions:\n  gh:\n    envs:\n      SECRET: abc\n        {MARK}\n"),
            5,
        ),
        (
            format!("extensions:\n  gh:\n    args:\n    - --token\n    - !!str {MARK}argtag\n"),
            5,
        ),
    ] {
        let e = Env::new();
        e.manifest(MANIFEST);
        let goose = e.base.join("home/.config/goose/config.yaml");
        fs::create_dir_all(goose.parent().unwrap()).unwrap();
        fs::write(&goose, &text).unwrap();
        let out = e.run(&["lint"]);
        assert_clean(&format!("lint of {text}"), &out.stdout);
        assert_clean(&format!("lint of {text} (stderr)"), &out.stderr);
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(shown.contains("<redacted>"), "{text}: {shown}");
        // Valid YAML the client reads: a warning that mcpconf will not edit it, exit 0.
        assert_eq!(out.status.code(), Some(0), "{text}: {shown}");
        assert!(
            shown.contains("warning[unsupported-yaml]"),
            "{text}: {shown}"
        );
        assert!(
            shown.contains("goose can read this file"),
            "{text}: {shown}"
        );
        assert!(!shown.contains("parse-error"), "{text}: {shown}");
        let (_, doc) = e.json(&["lint"]);
        let f = &doc["findings"][0];
        assert_eq!(
            (f["rule"].as_str(), f["line"].as_u64()),
            (Some("unsupported-yaml"), Some(line)),
            "{text}: {doc}"
        );
    }
}
