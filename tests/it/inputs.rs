//! Issue 45, class 1 and VS Code's `envFile` (class 4): client-prompted inputs
//! (`[inputs.ID]`, `${input:ID}`) written with VS Code's top-level `inputs` list, each entry of
//! it owned like a server entry; refused for clients without prompts; `env_file` for the
//! clients that read an `envFile`. The format is VS Code's documented one
//! (<https://code.visualstudio.com/docs/copilot/reference/mcp-configuration>).

use serde_json::{Value, json};

use crate::common::Env;

const VSCODE: &str = ".vscode/mcp.json";

fn manifest(client: &str) -> String {
    format!(
        r#"owner = "team"

[inputs.gh-pat]
description = "GitHub Personal Access Token"
password = true

[inputs.db-path]
description = "Database path"

[servers.github]
url = "https://api.githubcopilot.com/mcp/"
headers = {{ Authorization = "Bearer ${{input:gh-pat}}" }}

[servers.sqlite]
command = "uvx"
args = ["mcp-server-sqlite", "--db-path", "${{input:db-path}}"]
env_file = "$${{workspaceFolder}}/.env"

[[targets]]
client = "{client}"
"#
    )
}

fn parse_err(text: &str) -> mcpconf::manifest::ManifestError {
    mcpconf::manifest::parse(text, &mcpconf::known::Known).unwrap_err()
}

/// A manifest error case: the manifest after the targets, what the message says, where (line
/// and column).
type Case = (
    &'static str,
    &'static [&'static str],
    Option<(usize, usize)>,
);

#[test]
fn manifest_errors_name_the_input_line_and_column() {
    let base = "owner = \"o\"\n[[targets]]\nclient = \"vscode\"\n";
    let cases: &[Case] = &[
        // A reference to an input that is not declared: the field, the closest id.
        (
            "[inputs.gh-pat]\ndescription = \"d\"\n[servers.a]\nurl = \"https://h/\"\nheaders = { A = \"${input:gh-pt}\" }\n",
            &[
                "`headers.A` uses the input `${input:gh-pt}`",
                "did you mean `gh-pat`",
            ],
            Some((8, 17)),
        ),
        (
            "[servers.a]\ncommand = \"x\"\nargs = [\"${input:nope}\"]\n",
            &["`args` uses the input `${input:nope}`"],
            Some((6, 9)),
        ),
        // An input no server uses.
        (
            "[inputs.unused]\ndescription = \"d\"\n[servers.a]\ncommand = \"x\"\n",
            &["input `unused` is declared but no server uses it"],
            Some((4, 9)),
        ),
        // A type mcpconf does not write, an unknown key, a bad id.
        (
            "[inputs.k]\ntype = \"pickString\"\n[servers.a]\ncommand = \"${input:k}\"\n",
            &["`promptString` inputs only"],
            Some((5, 8)),
        ),
        (
            "[inputs.k]\npasword = true\n[servers.a]\ncommand = \"${input:k}\"\n",
            &["did you mean `password`"],
            Some((5, 1)),
        ),
        (
            "[inputs.\"a b\"]\n[servers.a]\ncommand = \"x\"\n",
            &["input id \"a b\" is not valid"],
            None,
        ),
        // `env_file` is for local servers.
        (
            "[servers.a]\nurl = \"https://h/\"\nenv_file = \".env\"\n",
            &["`env_file` does not apply"],
            Some((6, 12)),
        ),
    ];
    for (body, says, at) in cases {
        let e = parse_err(&format!("{base}{body}"));
        for s in *says {
            assert!(e.message.contains(s), "{body}: {}", e.message);
        }
        if let Some(at) = at {
            assert_eq!((e.line, e.column), *at, "{body}");
        }
    }
}

#[test]
fn vscode_gets_the_references_and_the_inputs_list() {
    let e = Env::new();
    e.manifest(&manifest("vscode"));
    let out = e.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    let v: Value = serde_json::from_str(&e.text(VSCODE)).unwrap();
    assert_eq!(
        v["servers"]["github"]["headers"]["Authorization"],
        "Bearer ${input:gh-pat}"
    );
    assert_eq!(v["servers"]["sqlite"]["args"][2], "${input:db-path}");
    assert_eq!(v["servers"]["sqlite"]["envFile"], "${workspaceFolder}/.env");
    assert_eq!(
        v["inputs"],
        json!([
            {"type": "promptString", "id": "gh-pat", "description": "GitHub Personal Access Token", "password": true},
            {"type": "promptString", "id": "db-path", "description": "Database path"}
        ])
    );
    // The plan shows the references (a reference is no secret) and is clean after.
    let out = e.run(&["plan", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    // Prune takes everything back: the file mcpconf created goes.
    let out = e.run(&["prune", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    assert!(!e.path(VSCODE).exists());
}

#[test]
fn an_unused_input_goes_and_the_users_own_stays() {
    let e = Env::new();
    let user = "{\n  \"inputs\": [\n    {\n      \"type\": \"promptString\",\n      \"id\": \"mine\",\n      \"description\": \"My own\"\n    }\n  ],\n  \"servers\": {}\n}\n";
    e.write(VSCODE, user);
    e.manifest(&manifest("vscode"));
    let out = e.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    let v: Value = serde_json::from_str(&e.text(VSCODE)).unwrap();
    let ids: Vec<&str> = v["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["mine", "gh-pat", "db-path"]);
    // The server that used `db-path` goes, and with it its input.
    let m = manifest("vscode");
    let m = m
        .replace("[inputs.db-path]\ndescription = \"Database path\"\n", "")
        .replace(
            "[servers.sqlite]\ncommand = \"uvx\"\nargs = [\"mcp-server-sqlite\", \"--db-path\", \"${input:db-path}\"]\nenv_file = \"$${workspaceFolder}/.env\"\n",
            "",
        );
    e.manifest(&m);
    let out = e.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    let v: Value = serde_json::from_str(&e.text(VSCODE)).unwrap();
    let ids: Vec<&str> = v["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["mine", "gh-pat"]);
    // Prune: the user's file as it was.
    let out = e.run(&["prune", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    assert_eq!(e.text(VSCODE), user);
}

#[test]
fn a_users_input_of_the_same_id_is_a_conflict_or_adopted_when_equal() {
    let e = Env::new();
    let differs = json!({"inputs": [{"type": "promptString", "id": "gh-pat", "description": "Another prompt"}], "servers": {}});
    let text = serde_json::to_string_pretty(&differs).unwrap() + "\n";
    e.write(VSCODE, &text);
    e.manifest(&manifest("vscode"));
    let (exit, doc) = e.json(&["apply", "--yes"]);
    assert_ne!(exit, 0, "{doc}");
    let actions = doc["files"][0]["actions"].as_array().unwrap();
    assert!(
        actions
            .iter()
            .any(|a| a["op"] == "conflict" && a["server"] == "gh-pat"),
        "{doc}"
    );
    assert_eq!(e.text(VSCODE), text, "nothing written");
    // Equal: adopted, then owned (prune removes it).
    let equal = json!({"inputs": [{"type": "promptString", "id": "gh-pat", "description": "GitHub Personal Access Token", "password": true}], "servers": {}});
    let text = serde_json::to_string_pretty(&equal).unwrap() + "\n";
    e.write(VSCODE, &text);
    let (exit, doc) = e.json(&["apply", "--yes", "--adopt"]);
    assert_eq!(exit, 0, "{doc}");
    let actions = doc["files"][0]["actions"].as_array().unwrap();
    assert!(
        actions
            .iter()
            .any(|a| a["op"] == "adopt" && a["server"] == "gh-pat"),
        "{doc}"
    );
    let out = e.run(&["prune", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    let v: Value = serde_json::from_str(&e.text(VSCODE)).unwrap();
    assert_eq!(v["inputs"], json!([]), "{v}");
}

#[test]
fn clients_without_prompts_refuse_inputs_and_env_files() {
    for (client, what) in [
        ("cursor", "prompts for no inputs"),
        ("claude-code", "prompts for no inputs"),
        ("codex", "prompts for no inputs"),
        ("goose", "prompts for no inputs"),
    ] {
        let e = Env::new();
        e.manifest(&manifest(client));
        let (exit, doc) = e.json(&["plan"]);
        assert_ne!(exit, 0, "{client}: {doc}");
        let text = doc.to_string();
        assert!(text.contains("cannot-express"), "{client}: {text}");
        assert!(
            text.contains(what)
                && ((text.contains("server `github`")
                    && text.contains("${input:gh-pat}")
                    && text.contains("`headers.Authorization`"))
                    || (text.contains("server `sqlite`")
                        && text.contains("${input:db-path}")
                        && text.contains("`args`"))),
            "{client}: {text}"
        );
    }
    // `env_file`: Cursor reads `envFile`; Claude Code reads none.
    let only_env_file = "owner = \"o\"\n[servers.s]\ncommand = \"x\"\nenv_file = \".env\"\n[[targets]]\nclient = \"CLIENT\"\n";
    let e = Env::new();
    e.manifest(&only_env_file.replace("CLIENT", "cursor"));
    let out = e.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    let v: Value = serde_json::from_str(&e.text(".cursor/mcp.json")).unwrap();
    assert_eq!(v["mcpServers"]["s"]["envFile"], ".env");
    let e = Env::new();
    e.manifest(&only_env_file.replace("CLIENT", "claude-code"));
    let (exit, doc) = e.json(&["plan"]);
    assert_ne!(exit, 0, "{doc}");
    assert!(doc.to_string().contains("reads no env file"), "{doc}");
}

#[test]
fn vscode_inputs_and_env_file_import_and_round_trip() {
    let content = r#"{
  "inputs": [
    {
      "type": "promptString",
      "id": "perplexity-key",
      "description": "Perplexity API Key",
      "password": true
    },
    {
      "type": "promptString",
      "id": "not-used",
      "description": "Nobody uses this"
    }
  ],
  "servers": {
    "perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask", "--key", "${input:perplexity-key}"],
      "env": {
        "PERPLEXITY_API_KEY": "${input:perplexity-key}"
      },
      "envFile": "${workspaceFolder}/.env"
    }
  }
}
"#;
    let e = Env::new();
    e.write(VSCODE, content);
    let out = e.run(&["import", "--client", "vscode", "--owner", "team"]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let m = String::from_utf8(out.stdout).unwrap();
    assert!(
        m.contains("PERPLEXITY_API_KEY = \"${input:perplexity-key}\""),
        "{m}"
    );
    assert!(m.contains("\"${input:perplexity-key}\"]"), "{m}");
    assert!(m.contains("env_file = \"$${workspaceFolder}/.env\""), "{m}");
    assert!(m.contains("[inputs.perplexity-key]"), "{m}");
    assert!(!m.contains("not-used"), "{m}");
    assert!(!stderr.contains("literal secret"), "{stderr}");
    // Adopt against the source: nothing written, the used input adopted, the other left.
    e.manifest(&m);
    let (exit, doc) = e.json(&["apply", "--yes", "--adopt"]);
    assert_eq!(exit, 0, "{doc}");
    for a in doc["files"][0]["actions"].as_array().unwrap() {
        assert_eq!(a["op"], "adopt", "{doc}");
    }
    assert_eq!(e.text(VSCODE), content);
    // Into an empty file: the entry and the input read back equal.
    let fresh = Env::new();
    fresh.manifest(&m);
    let out = fresh.run(&["apply", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::common::show(&out));
    let a: Value = serde_json::from_str(content).unwrap();
    let b: Value = serde_json::from_str(&fresh.text(VSCODE)).unwrap();
    assert_eq!(a["servers"], b["servers"]);
    assert_eq!(b["inputs"], json!([a["inputs"][0]]));
    // Lint calls no `${input:…}` a literal secret.
    let out = e.run(&["lint", &e.path(VSCODE).display().to_string()]);
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("literal-secret"),
        "{}",
        crate::common::show(&out)
    );
}
