//! A client's own built-in variables (issue 39, item 5): Cursor's, Roo Code's and VS Code's
//! `${workspaceFolder}`, `${userHome}`, … are filled in by the client itself. `import` keeps them
//! as the client spells them (never as environment references: `${env:workspaceFolder}` is
//! empty, and a filesystem server would get an empty path), lists no variable to set for
//! them, and the imported manifest applies into an empty file as the very same entry and plans
//! clean against the file it came from.

use std::fs;

use serde_json::{Value, json};

use crate::common::Env;

fn entries(path: &std::path::Path, container: &str) -> Value {
    let v: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    v[container].clone()
}

#[test]
fn built_in_variables_round_trip_through_import_and_apply() {
    for (client, rel, container, entry) in [
        (
            "cursor",
            ".cursor/mcp.json",
            "mcpServers",
            json!({"command": "npx", "args": ["-y", "@mcp/fs", "${workspaceFolder}/src", "${userHome}${pathSeparator}x"],
                   "env": {"ROOT": "${workspaceFolder}", "TOKEN": "${env:TOKEN}"}}),
        ),
        (
            "roo",
            ".roo/mcp.json",
            "mcpServers",
            json!({"command": "npx", "args": ["-y", "@mcp/fs", "${workspaceFolder}/src"],
                   "env": {"ROOT": "${workspaceFolder}", "TOKEN": "${env:TOKEN}"}}),
        ),
        (
            "vscode",
            ".vscode/mcp.json",
            "servers",
            json!({"type": "stdio", "command": "npx", "args": ["${workspaceFolder}", "${fileDirname}"],
                   "env": {"HOME_DIR": "${userHome}", "TOKEN": "${env:TOKEN}"}}),
        ),
    ] {
        let src = Env::new();
        let file = src.write(
            rel,
            serde_json::to_string_pretty(&json!({container: {"fs": entry}})).unwrap(),
        );
        let out = src.run(&["import", "--client", client, "--scope", "project"]);
        assert_eq!(out.status.code(), Some(0), "{client}: {out:?}");
        let manifest = String::from_utf8(out.stdout).unwrap();
        let notes = String::from_utf8_lossy(&out.stderr);
        assert!(
            !manifest.contains("${workspaceFolder}") || manifest.contains("$${workspaceFolder}"),
            "{manifest}"
        );
        assert!(manifest.contains("${TOKEN}"), "{manifest}");
        assert!(
            !notes.contains("workspaceFolder are set") && !notes.contains("userHome"),
            "{client}: a built-in variable is no variable to set:\n{notes}"
        );
        // Applied into an empty project: the same entry, as the client spells it.
        let dst = Env::new();
        dst.manifest(&manifest);
        let out = dst.run(&["apply", "--yes"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{client}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            entries(&dst.path(rel), container),
            entries(&file, container),
            "{client}"
        );
        // Applied to the file it came from: adopted, nothing else to change.
        src.manifest(&manifest);
        let before = fs::read(&file).unwrap();
        let (code, doc) = src.json(&["apply", "--yes", "--adopt"]);
        assert_eq!(code, 0, "{client}: {doc:#}");
        let ops: Vec<&str> = doc["files"][0]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["op"].as_str().unwrap())
            .collect();
        assert_eq!(ops, ["adopt"], "{client}: {doc:#}");
        assert_eq!(
            fs::read(&file).unwrap(),
            before,
            "{client}: adoption writes no byte"
        );
    }
}

/// A file without MCP servers (issue 45): `import` says so with its own code and exit 1,
/// never a manifest that `plan` would refuse; in JSON too.
#[test]
fn import_of_a_file_without_servers_says_so() {
    for text in ["{\"mcpServers\": {}}\n", "{\"other\": 1}\n", "{}\n"] {
        let e = Env::new();
        e.write(".cursor/mcp.json", text);
        let out = e.run(&["import", "--client", "cursor", "--scope", "project"]);
        assert_eq!(out.status.code(), Some(1), "{text}: {out:?}");
        assert!(out.stdout.is_empty(), "{text}: no manifest is printed");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("no-servers") && err.contains("no MCP servers in"),
            "{err}"
        );
        let (code, doc) = e.json(&["import", "--client", "cursor", "--scope", "project"]);
        assert_eq!(code, 1);
        assert_eq!(doc["errors"][0]["code"], "no-servers", "{doc:#}");
    }
}

/// The same server in the client's other spelling is no conflict (issue 45, class 3):
/// Windsurf's `url` for its `serverUrl`, Gemini CLI's `httpUrl` for `type: "http"` with `url`.
/// `plan` finds nothing to change, `apply --adopt` records the entry as it is (the file's own
/// spelling kept, byte for byte), and a really different URL is still a conflict.
#[test]
fn the_clients_other_spelling_is_the_same_entry() {
    for (client, rel, entry) in [
        (
            "windsurf",
            ".codeium/windsurf/mcp_config.json",
            json!({"url": "https://h.example/mcp"}),
        ),
        (
            "gemini",
            ".gemini/settings.json",
            json!({"httpUrl": "https://h.example/mcp"}),
        ),
    ] {
        let e = Env::new();
        let scope = if client == "gemini" {
            "scope = \"project\"\n"
        } else {
            ""
        };
        e.manifest(&format!(
            "owner = \"o\"\n[servers.r]\nurl = \"https://h.example/mcp\"\n[[targets]]\nclient = \"{client}\"\n{scope}"
        ));
        let home_rel = if client == "windsurf" {
            e.base.join("home").join(rel)
        } else {
            e.path(rel)
        };
        std::fs::create_dir_all(home_rel.parent().unwrap()).unwrap();
        std::fs::write(&home_rel, json!({"mcpServers": {"r": entry}}).to_string()).unwrap();
        let before = std::fs::read(&home_rel).unwrap();
        let (code, doc) = e.json(&["plan", "--check"]);
        assert_eq!(code, 0, "{client}: {doc:#}");
        let (code, doc) = e.json(&["apply", "--yes", "--adopt"]);
        assert_eq!(code, 0, "{client}: {doc:#}");
        assert_eq!(
            doc["files"][0]["actions"][0]["op"], "adopt",
            "{client}: {doc:#}"
        );
        assert_eq!(
            std::fs::read(&home_rel).unwrap(),
            before,
            "{client}: the file's spelling kept"
        );
        // Another URL in the other spelling: still a conflict.
        let other = Env::new();
        other.manifest(&format!(
            "owner = \"o\"\n[servers.r]\nurl = \"https://other.example/mcp\"\n[[targets]]\nclient = \"{client}\"\n{scope}"
        ));
        let p = if client == "windsurf" {
            other.base.join("home").join(rel)
        } else {
            other.path(rel)
        };
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, json!({"mcpServers": {"r": entry}}).to_string()).unwrap();
        let (code, doc) = other.json(&["apply", "--yes", "--adopt"]);
        assert_eq!(code, 3, "{client}: {doc:#}");
    }
}

/// What `import` prints always plans against the file it came from (issue 45, class 5): a
/// server the client's dialect cannot write back as it is (Cursor has no `cwd`) is left out
/// with the reason, and the rest imports, adopts and plans clean; Kilo's opencode-shaped
/// entries (the command line as one array) are read by their shape, not by client id.
#[test]
fn import_leaves_out_what_cannot_be_managed_and_the_rest_plans_clean() {
    let e = Env::new();
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"cwd\": \"/srv\"}, \"b\": {\"command\": \"y\"}}}\n",
    );
    let out = e.run(&["import", "--client", "cursor", "--scope", "project"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let manifest = String::from_utf8(out.stdout).unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !manifest.contains("[servers.a]") && manifest.contains("[servers.b]"),
        "{manifest}"
    );
    assert!(
        said.contains("server `a` is left out") && said.contains("cwd"),
        "{said}"
    );
    e.manifest(&manifest);
    let (code, doc) = e.json(&["apply", "--yes", "--adopt"]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(e.json(&["plan", "--check"]).0, 0);
    let k = Env::new();
    k.write(
        ".kilo/kilo.jsonc",
        "{\"mcp\": {\"srv\": {\"type\": \"local\", \"command\": [\"srv\", \"--flag\"], \"environment\": {\"MODE\": \"a\"}}}}\n",
    );
    let out = k.run(&["import", "--client", "kilo", "--scope", "project"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let manifest = String::from_utf8(out.stdout).unwrap();
    assert!(
        manifest.contains("command = \"srv\"") && manifest.contains("--flag"),
        "{manifest}"
    );
}

/// Qoder CLI substitutes `$NAME` in its settings files, with no escape (issue 40: `lit$MY_KEY`
/// reached the server as the variable's value): such a literal is refused for Qoder, never
/// written.
#[test]
fn qoder_refuses_a_literal_dollar_it_would_substitute() {
    for arg in ["lit$MY_KEY", "lit$$MY_KEY", "$${HOME}", "a$(id)"] {
        let e = Env::new();
        e.manifest(&format!(
            "owner = \"o\"\n[servers.s]\ncommand = \"x\"\nargs = [\"{arg}\"]\n[[targets]]\nclient = \"qoder\"\n"
        ));
        let (code, doc) = e.json(&["plan"]);
        assert_eq!(code, 3, "{arg}: {doc:#}");
        assert_eq!(doc["errors"][0]["code"], "cannot-express", "{arg}: {doc:#}");
    }
}

/// The commands `import` prints next carry the `--root`, `--home` and `--state-dir` it was
/// given (issue 41: they dropped them, so run as printed they planned another project).
#[test]
fn imports_next_commands_carry_the_options_it_was_given() {
    let e = Env::new();
    e.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"b\": {\"command\": \"y\"}}}\n",
    );
    let out = e.run(&["import", "--client", "cursor", "--scope", "project"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    let root = e.root().display().to_string();
    for cmd in [
        "mcpconf plan",
        "mcpconf apply --yes --adopt",
        "mcpconf status --check",
    ] {
        let line = said
            .lines()
            .find(|l| l.trim_start().starts_with(cmd))
            .unwrap_or_else(|| panic!("no `{cmd}` in {said}"));
        assert!(
            line.contains(&format!("--root {root}")) && line.contains("--state-dir"),
            "{line}"
        );
    }
    assert!(said.contains("-m FILE"), "{said}");
}
