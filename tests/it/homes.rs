//! Client home variables that move a client's user file: `$GOOSE_PATH_ROOT` (Goose),
//! `$HERMES_HOME` (Hermes Agent), `$CONTINUE_GLOBAL_DIR` (Continue), `$COPILOT_HOME` (GitHub
//! Copilot CLI), `$KIMI_CODE_HOME` (Kimi Code CLI), `$OPENHANDS_PERSISTENCE_DIR` (OpenHands
//! CLI). `apply` writes the moved
//! file and not the default one, `prune` removes what it wrote there (the moved directory is a
//! base like `--home`: a record naming it is accepted, and a directory mcpconf made below it
//! goes again), `lint` finds the moved file, and a relative, blank or empty value is read the
//! way the client reads it. (`$CODEX_HOME` and `$VIBE_HOME` are covered in `dialects`.)

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::Env;

/// One client home variable: the client, the variable, the user file below the directory it
/// names, and the default user file below `--home`.
struct Case {
    client: &'static str,
    var: &'static str,
    file: &'static str,
    default: &'static str,
}

const CASES: &[Case] = &[
    Case {
        client: "goose",
        var: "GOOSE_PATH_ROOT",
        file: "config/config.yaml",
        default: ".config/goose/config.yaml",
    },
    Case {
        client: "hermes",
        var: "HERMES_HOME",
        file: "config.yaml",
        default: ".hermes/config.yaml",
    },
    Case {
        client: "continue",
        var: "CONTINUE_GLOBAL_DIR",
        file: "config.yaml",
        default: ".continue/config.yaml",
    },
    Case {
        client: "copilot-cli",
        var: "COPILOT_HOME",
        file: "mcp-config.json",
        default: ".copilot/mcp-config.json",
    },
    Case {
        client: "kimi-code",
        var: "KIMI_CODE_HOME",
        file: "mcp.json",
        default: ".kimi-code/mcp.json",
    },
    Case {
        client: "openhands",
        var: "OPENHANDS_PERSISTENCE_DIR",
        file: "mcp.json",
        default: ".openhands/mcp.json",
    },
];

fn manifest(client: &str) -> String {
    format!(
        "owner = \"o\"\n[servers.browser]\ncommand = \"agent-browser\"\nargs = [\"mcp\"]\n[[targets]]\nclient = \"{client}\"\n"
    )
}

/// A manifest that no longer names the client: what was written for it is pruned.
const ELSEWHERE: &str =
    "owner = \"o\"\n[servers.other]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n";

/// Run `args` with `var` set to `value` (or unset), from the scratch directory.
fn run(e: &Env, args: &[&str], var: &str, value: Option<&str>) -> Output {
    let mut c = e.cmd(args);
    c.current_dir(&e.base);
    if let Some(v) = value {
        c.env(var, v);
    }
    c.output().unwrap()
}

fn ok(out: &Output, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn holds_browser(p: &Path) -> bool {
    fs::read_to_string(p).is_ok_and(|t| t.contains("agent-browser"))
}

/// The paths of the findings of `lint --format json`.
fn lint_paths(out: &Output) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_client_home_moves_the_user_file_for_apply_prune_and_lint() {
    for c in CASES {
        let e = Env::new();
        let dir = e.base.join(format!("{}-dir", c.client));
        let dir_s = dir.to_str().unwrap();
        let moved = dir.join(c.file);
        let default = e.base.join("home").join(c.default);

        e.manifest(&manifest(c.client));
        ok(&run(&e, &["apply", "--yes"], c.var, Some(dir_s)), c.var);
        assert!(
            holds_browser(&moved),
            "{}: {} not written",
            c.var,
            moved.display()
        );
        assert!(!default.exists(), "{}: the default file was written", c.var);

        // The ledger's record names the moved file, outside --root and --home: prune accepts
        // it because the directory is a base, and removes the directories it made below it.
        e.manifest(ELSEWHERE);
        ok(&run(&e, &["prune", "--yes"], c.var, Some(dir_s)), c.var);
        assert!(!moved.exists(), "{}: prune left {}", c.var, moved.display());
        assert!(
            dir.is_dir(),
            "{}: the client's directory itself stays",
            c.var
        );
        if c.client == "goose" {
            assert!(!dir.join("config").exists(), "the made `config/` stays");
        }
        assert!(!default.exists());

        // lint looks there, and only with the variable set.
        fs::create_dir_all(moved.parent().unwrap()).unwrap();
        let dup = match c.client {
            "goose" => "extensions:\n  a:\n    cmd: x\n  a:\n    cmd: y\n",
            "hermes" => "mcp_servers:\n  a:\n    command: x\n  a:\n    command: y\n",
            "copilot-cli" | "kimi-code" | "openhands" => {
                "{\"mcpServers\": {\"a\": {\"command\": \"x\"}, \"a\": {\"command\": \"y\"}}}\n"
            }
            _ => "name: n\nversion: 0.0.1\nschema: v1\nname: m\n",
        };
        fs::write(&moved, dup).unwrap();
        let shown = moved.display().to_string();
        let with = run(&e, &["lint", "--format", "json"], c.var, Some(dir_s));
        assert!(
            lint_paths(&with).contains(&shown),
            "{}: lint missed {shown}",
            c.var
        );
        let without = run(&e, &["lint", "--format", "json"], c.var, None);
        assert!(!lint_paths(&without).contains(&shown), "{}", c.var);
    }
}

/// Apply with `var=value` from the scratch directory, and return where the file went (the
/// one file among `candidates` that holds the server), after checking that prune removes it.
fn applied_to(client: &str, var: &str, value: &str, candidates: &[PathBuf]) -> PathBuf {
    let e = Env::new();
    // Candidates are given relative to the scratch directory.
    let abs: Vec<PathBuf> = candidates.iter().map(|c| e.base.join(c)).collect();
    e.manifest(&manifest(client));
    ok(&run(&e, &["apply", "--yes"], var, Some(value)), var);
    let written: Vec<&PathBuf> = abs.iter().filter(|p| holds_browser(p)).collect();
    assert_eq!(written.len(), 1, "{var}={value:?}: written to {written:?}");
    let file = written[0].clone();
    e.manifest(ELSEWHERE);
    ok(&run(&e, &["prune", "--yes"], var, Some(value)), var);
    assert!(
        !holds_browser(&file),
        "{var}={value:?}: prune left {}",
        file.display()
    );
    file.strip_prefix(&e.base).unwrap().to_path_buf()
}

#[test]
fn relative_blank_and_empty_values_are_read_as_each_client_reads_them() {
    let p = PathBuf::from;
    // Goose takes only an absolute GOOSE_PATH_ROOT; anything else is its default.
    let goose = [
        p("home/.config/goose/config.yaml"),
        p("rel-root/config/config.yaml"),
    ];
    for value in ["rel-root", ""] {
        assert_eq!(
            applied_to("goose", "GOOSE_PATH_ROOT", value, &goose),
            goose[0],
            "{value:?}"
        );
    }
    // Hermes strips whitespace and takes a relative HERMES_HOME from its current directory.
    let hermes = [
        p("home/.hermes/config.yaml"),
        p("rel-hermes/config.yaml"),
        p(" rel-hermes /config.yaml"),
    ];
    assert_eq!(
        applied_to("hermes", "HERMES_HOME", "rel-hermes", &hermes),
        hermes[1]
    );
    assert_eq!(
        applied_to("hermes", "HERMES_HOME", " rel-hermes \n", &hermes),
        hermes[1]
    );
    for value in ["", " \t\n"] {
        assert_eq!(
            applied_to("hermes", "HERMES_HOME", value, &hermes),
            hermes[0],
            "{value:?}"
        );
    }
    // Continue resolves a relative CONTINUE_GLOBAL_DIR from its current directory, folding
    // `..` away by name (`path.resolve`), so `gone/..` need not exist; empty is its default.
    let cont = [
        p("home/.continue/config.yaml"),
        p("rel-continue/config.yaml"),
    ];
    assert_eq!(
        applied_to(
            "continue",
            "CONTINUE_GLOBAL_DIR",
            "gone/../rel-continue",
            &cont
        ),
        cont[1]
    );
    assert_eq!(
        applied_to("continue", "CONTINUE_GLOBAL_DIR", "", &cont),
        cont[0]
    );
    // Copilot CLI 1.0.102 does the same with COPILOT_HOME (checked against the real client in
    // `real_clients::copilot`).
    let copilot = [
        p("home/.copilot/mcp-config.json"),
        p("rel-copilot/mcp-config.json"),
    ];
    assert_eq!(
        applied_to(
            "copilot-cli",
            "COPILOT_HOME",
            "gone/../rel-copilot",
            &copilot
        ),
        copilot[1]
    );
    assert_eq!(
        applied_to("copilot-cli", "COPILOT_HOME", "", &copilot),
        copilot[0]
    );
    // Kimi Code joins with `pathe` (`..` folded by name); empty is unset, as in its data paths.
    let kimi = [
        p("home/.kimi-code/mcp.json"),
        p("rel-kimi/mcp.json"),
        p("mcp.json"),
    ];
    assert_eq!(
        applied_to("kimi-code", "KIMI_CODE_HOME", "gone/../rel-kimi", &kimi),
        kimi[1]
    );
    assert_eq!(
        applied_to("kimi-code", "KIMI_CODE_HOME", "", &kimi),
        kimi[0]
    );
    // OpenHands takes the value as it is: relative from its current directory, `~` not
    // expanded, and empty is the current directory (`Path('') / 'mcp.json'`).
    let openhands = [
        p("home/.openhands/mcp.json"),
        p("rel-oh/mcp.json"),
        p("~/oh/mcp.json"),
        p("mcp.json"),
    ];
    let var = "OPENHANDS_PERSISTENCE_DIR";
    for (value, want) in [("rel-oh", 1), ("~/oh", 2), ("", 3)] {
        assert_eq!(
            applied_to("openhands", var, value, &openhands),
            openhands[want],
            "{value:?}"
        );
    }
}

#[test]
fn a_target_path_stays_under_the_home_and_continue_blocks_under_the_root() {
    // An explicit `path` is the user's word: it stays under --home, as with CODEX_HOME.
    for c in CASES {
        let e = Env::new();
        let dir = e.base.join("moved");
        e.manifest(&format!(
            "{}path = \"cfg/{}.yaml\"\n",
            manifest(c.client),
            c.client
        ));
        ok(
            &run(&e, &["apply", "--yes"], c.var, Some(dir.to_str().unwrap())),
            c.var,
        );
        let explicit = e.base.join("home/cfg").join(format!("{}.yaml", c.client));
        assert!(holds_browser(&explicit), "{}", c.var);
        assert!(!dir.exists(), "{}", c.var);
    }
    // Continue's project blocks belong to the workspace, not to its global directory.
    let e = Env::new();
    let dir = e.base.join("moved");
    e.manifest(&format!("{}scope = \"project\"\n", manifest("continue")));
    ok(
        &run(
            &e,
            &["apply", "--yes"],
            "CONTINUE_GLOBAL_DIR",
            Some(dir.to_str().unwrap()),
        ),
        "project",
    );
    assert!(holds_browser(&e.path(".continue/mcpServers/mcpconf.yaml")));
    assert!(!dir.exists());
}
