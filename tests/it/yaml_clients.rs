//! The YAML clients (Goose, Continue, Hermes) through the command line: what their files hold
//! that mcpconf must not touch or cannot read safely is refused with a position and the file
//! is left as it was; what they hold beside mcpconf's entries is kept byte for byte.

use std::fs;

use serde_json::Value;

use crate::common::Env;

const GOOSE: &str = ".config/goose/config.yaml";

fn goose_file(e: &Env, text: &str) -> std::path::PathBuf {
    let p = e.base.join("home").join(GOOSE);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, text).unwrap();
    p
}

fn errors(doc: &Value) -> Vec<(String, u64, u64)> {
    doc["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["code"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap(),
                e["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

const BUILTINS: &str = "extensions:\n  developer:\n    bundled: true\n    display_name: Developer\n    enabled: true\n    name: developer\n    timeout: 300\n    type: builtin\n  todo:\n    available_tools: []\n    bundled: true\n    description: Todo list\n    enabled: true\n    name: todo\n    type: platform\n";

#[test]
fn goose_builtin_and_platform_extensions_are_never_touched() {
    for (name, adopt) in [("developer", false), ("developer", true), ("todo", true)] {
        let e = Env::new();
        let p = goose_file(&e, BUILTINS);
        e.manifest(&format!(
            "owner = \"o\"\n[servers.{name}]\ncommand = \"run\"\n[[targets]]\nclient = \"goose\"\n"
        ));
        let mut args = vec!["apply", "--yes"];
        if adopt {
            args.push("--adopt");
        }
        let (exit, doc) = e.json(&args);
        assert_eq!(exit, 3, "{name}: {doc}");
        let line = if name == "todo" { 9 } else { 2 };
        assert_eq!(
            errors(&doc),
            vec![("conflict".to_string(), line, 3)],
            "{name}"
        );
        assert_eq!(fs::read_to_string(&p).unwrap(), BUILTINS, "{name}");
    }
    // A server of another name goes beside them; prune gives the bytes back.
    let e = Env::new();
    let p = goose_file(&e, BUILTINS);
    e.manifest("owner = \"o\"\n[servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"fs\"]\n[[targets]]\nclient = \"goose\"\n");
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let text = fs::read_to_string(&p).unwrap();
    assert!(text.starts_with(BUILTINS), "{text}");
    assert!(text.ends_with("  fs:\n    enabled: true\n    type: stdio\n    name: fs\n    description: \"\"\n    cmd: npx\n    args:\n      - \"-y\"\n      - fs\n    envs: {}\n    timeout: 300\n"), "{text}");
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(fs::read_to_string(&p).unwrap(), BUILTINS);
}

#[test]
fn yaml_that_cannot_be_edited_safely_is_refused_with_its_position() {
    for (text, code, line, column) in [
        (
            "extensions:\n  a:\n    enabled: true\n  a:\n    enabled: false\n",
            "duplicate-key",
            4,
            3,
        ),
        (
            "base: &b\n  enabled: true\nextensions:\n  a: *b\n",
            "unsupported-yaml",
            1,
            7,
        ),
        (
            "extensions:\n  a:\n    <<: {enabled: true}\n",
            "unsupported-yaml",
            3,
            5,
        ),
        ("extensions:\n  a: !!map {}\n", "unsupported-yaml", 2, 6),
        (
            "GOOSE_MODEL: x\n---\nextensions: {}\n",
            "unsupported-yaml",
            2,
            1,
        ),
        (
            "extensions: {a: {enabled: true}}\n",
            "unsupported-yaml",
            1,
            13,
        ),
        ("extensions:\n  a: \"\u{e9}\n", "unsupported-yaml", 2, 6),
    ] {
        let e = Env::new();
        let p = goose_file(&e, text);
        e.manifest(
            "owner = \"o\"\n[servers.s]\ncommand = \"run\"\n[[targets]]\nclient = \"goose\"\n",
        );
        let (exit, doc) = e.json(&["apply", "--yes"]);
        assert_eq!(exit, 3, "{text:?}: {doc}");
        assert_eq!(
            errors(&doc),
            vec![(code.to_string(), line, column)],
            "{text:?}"
        );
        assert_eq!(fs::read_to_string(&p).unwrap(), text);
    }
    // Invalid UTF-8 is refused at its byte.
    let e = Env::new();
    let bad = b"GOOSE_MODEL: x\nextensions:\n  a: \xff\n".to_vec();
    let p = e.base.join("home").join(GOOSE);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, &bad).unwrap();
    e.manifest("owner = \"o\"\n[servers.s]\ncommand = \"run\"\n[[targets]]\nclient = \"goose\"\n");
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(errors(&doc), vec![("invalid-utf8".to_string(), 3, 6)]);
    assert_eq!(fs::read(&p).unwrap(), bad);
}

#[test]
fn continue_lists_are_edited_by_name() {
    let e = Env::new();
    let original = "name: Local Assistant\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: s\n    command: mine\n";
    let p = e.base.join("home/.continue/config.yaml");
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, original).unwrap();
    e.manifest(
        "owner = \"o\"\n[servers.s]\ncommand = \"run\"\n[[targets]]\nclient = \"continue\"\n",
    );
    // An item of the same name that mcpconf did not write is not overwritten.
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(errors(&doc), vec![("conflict".to_string(), 5, 3)]);
    assert_eq!(fs::read_to_string(&p).unwrap(), original);
    // Two items of one name cannot be told apart: the list is not edited.
    let twice = "name: A\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: t\n    command: a\n  - name: t\n    command: b\n";
    fs::write(&p, twice).unwrap();
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 3, "{doc}");
    assert_eq!(errors(&doc), vec![("duplicate-key".to_string(), 7, 3)]);
    // A new project block file names itself, as Continue requires, and goes on prune.
    e.manifest("owner = \"o\"\n[servers.t]\nurl = \"https://h/mcp\"\n[[targets]]\nclient = \"continue\"\nscope = \"project\"\n");
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert_eq!(
        e.text(".continue/mcpServers/mcpconf.yaml"),
        "name: mcpconf\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: t\n    type: streamable-http\n    url: https://h/mcp\n"
    );
    let (exit, doc) = e.json(&["prune", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    assert!(
        !e.path(".continue").exists(),
        "the created file and directories go"
    );
}

#[test]
fn hermes_strings_a_yaml_1_1_reader_would_change_are_quoted() {
    let e = Env::new();
    e.manifest("owner = \"o\"\n[servers.s]\ncommand = \"yes\"\nargs = [\"on\", \"1.0\", \"~\", \"null\", \"-v\", \"a: b\", \"#x\"]\n[[targets]]\nclient = \"hermes\"\n");
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_eq!(exit, 0, "{doc}");
    let text = fs::read_to_string(e.base.join("home/.hermes/config.yaml")).unwrap();
    assert_eq!(
        text,
        "mcp_servers:\n  s:\n    command: \"yes\"\n    args:\n      - \"on\"\n      - \"1.0\"\n      - \"~\"\n      - \"null\"\n      - \"-v\"\n      - \"a: b\"\n      - \"#x\"\n"
    );
}

/// `import` reads each YAML client's entries back into a manifest that `apply --adopt` takes
/// as they are: no conflict, no byte changed (Goose's own extensions are skipped).
#[test]
fn import_then_adopt_keeps_every_byte() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (client, file, servers, conflicts) in [
        // The hand-written `github`'s description is Goose's own (issue 45, class 4).
        (
            "goose",
            ".config/goose/config.yaml",
            vec!["github", "openab", "browser"],
            Vec::<(&str, &str)>::new(),
        ),
        (
            "continue",
            ".continue/config.yaml",
            vec!["SQLite", "openab", "browser"],
            vec![],
        ),
        // `linear` signs in with OAuth (`auth`), which the manifest does not carry: a field
        // Hermes documents and mcpconf never writes, kept as the user's (`dialect::kept_keys`).
        (
            "hermes",
            ".hermes/config.yaml",
            vec!["filesystem", "linear", "openab", "browser", "legacy"],
            vec![],
        ),
    ] {
        let e = Env::new();
        let src = fixtures.join(format!("client-{client}/out/home-unused/{file}"));
        let original = fs::read(&src).unwrap();
        let p = e.base.join("home").join(file);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, &original).unwrap();
        let out = e
            .cmd(&["import", "--client", client, "--format", "json"])
            .env("OPENAB_SESSION_TOKEN", "t")
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let manifest = doc["manifest"].as_str().unwrap();
        for s in &servers {
            assert!(
                manifest.contains(&format!("[servers.{s}]")),
                "{client}: {manifest}"
            );
        }
        if client == "goose" {
            assert!(
                !manifest.contains("developer") && !manifest.contains("todo"),
                "{manifest}"
            );
        }
        let warnings = doc["warnings"].to_string();
        for (c, field) in &conflicts {
            assert!(
                warnings.contains(&format!("server `{c}`: `{field}`")),
                "{client}: {warnings}"
            );
        }
        e.manifest(manifest);
        let (exit, doc) = e.json(&["apply", "--yes", "--adopt"]);
        let ops: Vec<(String, String)> = doc["files"][0]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["server"].as_str().unwrap().to_string(),
                    a["op"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = servers
            .iter()
            .map(|s| {
                let op = if conflicts.iter().any(|(c, _)| c == s) {
                    "conflict"
                } else {
                    "adopt"
                };
                (s.to_string(), op.to_string())
            })
            .collect();
        assert_eq!(ops, want, "{client}: {doc}");
        assert_eq!(exit, if conflicts.is_empty() { 0 } else { 3 }, "{client}");
        assert_eq!(fs::read(&p).unwrap(), original, "{client}");
    }
}

/// The diff of a YAML file shows its lines, but never a secret in them.
#[test]
fn yaml_diffs_hide_secrets() {
    let e = Env::new();
    let text = "extensions:\n  mine:\n    cmd: run\n    enabled: true\n    type: stdio\n    name: mine\n    args:\n    - --token=ghp_PLANTEDplantedPLANTEDplanted1234\n    envs:\n      API_KEY: PLANTEDsecretValue99\n";
    goose_file(&e, text);
    e.manifest("owner = \"o\"\n[servers.s]\ncommand = \"run\"\n[[targets]]\nclient = \"goose\"\n");
    let (exit, doc) = e.json(&["plan"]);
    assert_eq!(exit, 0, "{doc}");
    let diff = doc["files"][0]["diff"].as_str().unwrap();
    assert!(!diff.contains("PLANTED"), "{diff}");
    assert!(diff.contains("      API_KEY: <redacted>\n"), "{diff}");
    assert!(
        diff.contains("+    cmd: run\n") && diff.contains("     envs:\n"),
        "{diff}"
    );
}
