use serde_json::json;

use super::*;
use crate::manifest::registry_refs;

fn declared(extra: &str) -> RegistryRef {
    registry_refs(&format!(
        "[servers.s]\nregistry = \"io.github.acme/srv\"\nversion = \"1.2.3\"\n{extra}\n"
    ))
    .unwrap()
    .remove(0)
}

fn doc(packages: serde_json::Value, remotes: serde_json::Value) -> serde_json::Value {
    json!({"server": {
        "name": "io.github.acme/srv", "version": "1.2.3", "description": "d",
        "packages": packages, "remotes": remotes,
    }, "_meta": {"io.modelcontextprotocol.registry/official": {"isLatest": true}}})
}

fn pkg(kind: &str, id: &str) -> serde_json::Value {
    json!({"registryType": kind, "identifier": id, "version": "1.2.3", "transport": {"type": "stdio"},
    "environmentVariables": [
        {"name": "API_KEY", "isSecret": true, "isRequired": true, "value": "sk-live-never-written"},
        {"name": "LOG_LEVEL", "default": "info"},
        {"name": "OPTIONAL"},
    ]})
}

#[test]
fn each_package_type_maps_to_its_runner() {
    for (kind, id, command, args) in [
        ("npm", "@acme/srv", "npx", vec!["-y", "@acme/srv@1.2.3"]),
        ("pypi", "acme-srv", "uvx", vec!["acme-srv==1.2.3"]),
        ("nuget", "Acme.Srv", "dnx", vec!["Acme.Srv@1.2.3"]),
        (
            "oci",
            "ghcr.io/acme/srv",
            "docker",
            vec![
                "run",
                "-i",
                "--rm",
                "-e",
                "API_KEY",
                "-e",
                "LOG_LEVEL",
                "ghcr.io/acme/srv:1.2.3",
            ],
        ),
    ] {
        let r = declared(&format!("package = \"{kind}\""));
        let d = doc(
            json!([pkg("mcpb", "https://x/y.mcpb"), pkg(kind, id)]),
            json!([]),
        );
        let l = resolve(&d, &r, "https://r.example").unwrap();
        assert_eq!(l.package.as_deref(), Some(kind));
        assert_eq!(l.entry["command"], command, "{kind}");
        assert_eq!(l.entry["args"], json!(args), "{kind}");
        // A secret is a reference, never the value the document carries.
        assert_eq!(
            l.entry["env"],
            json!({"API_KEY": "${API_KEY}", "LOG_LEVEL": "info"}),
            "{kind}"
        );
        assert!(!l.entry.to_string().contains("sk-live"), "{kind}");
        assert!(l.required.is_empty());
        assert!(l.digest.starts_with("sha256:") && l.digest.len() == 71);
    }
}

#[test]
fn without_a_package_choice_the_first_writable_one_is_taken() {
    let d = doc(
        json!([
            pkg("mcpb", "https://x/y.mcpb"),
            pkg("pypi", "p"),
            pkg("npm", "n")
        ]),
        json!([]),
    );
    let l = resolve(&d, &declared(""), "r").unwrap();
    assert_eq!(l.package.as_deref(), Some("pypi"));
}

#[test]
fn arguments_and_variables() {
    let p = json!({"registryType": "oci", "identifier": "acme/db:3.1.0", "transport": {"type": "stdio"},
        "runtimeArguments": [
            {"type": "named", "name": "--network", "value": "host"},
            {"type": "named", "name": "-e", "value": "DB_TYPE={db_type}", "variables": {"db_type": {"default": "postgres"}}},
            {"type": "named", "name": "--mount", "value": "src={src},dst=/p", "variables": {"src": {"isRequired": true}}},
        ],
        "packageArguments": [
            {"type": "named", "name": "--host", "default": "localhost", "isRequired": true},
            {"type": "named", "name": "--port"},
            {"type": "named", "name": "--stdio", "isRequired": true},
            {"type": "positional", "value": "${not-a-ref}"},
            {"type": "positional", "valueHint": "token", "isSecret": true},
            {"type": "positional", "valueHint": "db", "isRequired": true},
        ],
        "environmentVariables": [{"name": "DB_USER", "isRequired": true}]});
    let l = resolve(&doc(json!([p]), json!([])), &declared(""), "r").unwrap();
    assert_eq!(
        l.entry["args"],
        json!([
            "run",
            "-i",
            "--rm",
            "--network",
            "host",
            "-e",
            "DB_TYPE=postgres",
            "--mount",
            "src=${SRC},dst=/p",
            // A required variable the manifest supplies reaches the container (issue 41).
            "-e",
            "DB_USER",
            "acme/db:3.1.0",
            "--host",
            "localhost",
            "--stdio",
            "$${not-a-ref}",
            "${TOKEN}"
        ])
    );
    assert_eq!(l.required, ["env.DB_USER", "args"]);
}

#[test]
fn remotes_become_url_and_headers() {
    let remotes = json!([
        {"type": "sse", "url": "https://old.example/sse"},
        {"type": "streamable-http", "url": "https://{tenant}.example/mcp",
         "variables": {"tenant": {"default": "eu"}},
         "headers": [
            {"name": "X-API-Key", "isSecret": true, "isRequired": true},
            {"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isSecret": true}}},
            {"name": "X-Region", "default": "us-east-1"},
            {"name": "X-Team", "isRequired": true},
         ]},
    ]);
    let l = resolve(
        &doc(json!([]), remotes.clone()),
        &declared("remote = true"),
        "r",
    )
    .unwrap();
    assert_eq!(l.package, None);
    assert!(l.remote);
    assert_eq!(
        l.entry,
        json!({"url": "https://eu.example/mcp", "headers": {
            "X-API-Key": "${X_API_KEY}", "Authorization": "Bearer ${TOKEN}", "X-Region": "us-east-1"}})
    );
    assert_eq!(l.required, ["headers.X-Team"]);
    let sse_only = json!([remotes[0].clone()]);
    let l = resolve(&doc(json!([]), sse_only), &declared("remote = true"), "r").unwrap();
    assert_eq!(
        l.entry,
        json!({"url": "https://old.example/sse", "transport": "sse"})
    );
}

#[test]
fn what_cannot_be_written_is_unsupported_with_the_way_out() {
    let only_mcpb = doc(
        json!([pkg("mcpb", "https://x/y.mcpb")]),
        json!([{"type": "streamable-http", "url": "https://h/mcp"}]),
    );
    let e = resolve(&only_mcpb, &declared(""), "r").unwrap_err();
    assert_eq!(e.code, Code::UnsupportedPackage);
    assert!(e.message.contains("set `remote = true`"), "{e}");
    let e = resolve(&only_mcpb, &declared("package = \"npm\""), "r").unwrap_err();
    assert!(e.message.contains("no `npm` package (it has mcpb)"), "{e}");
    let e = resolve(
        &doc(json!([pkg("npm", "n")]), json!([])),
        &declared("remote = true"),
        "r",
    )
    .unwrap_err();
    assert_eq!(e.code, Code::UnsupportedPackage);
    let mut http_pkg = pkg("npm", "n");
    http_pkg["transport"] = json!({"type": "streamable-http", "url": "http://localhost:8080/mcp"});
    let e = resolve(&doc(json!([http_pkg]), json!([])), &declared(""), "r").unwrap_err();
    assert!(e.message.contains("serves `streamable-http` itself"), "{e}");
}

#[test]
fn malformed_or_other_answers_are_registry_errors() {
    for d in [
        json!([]),
        json!({"server": {"version": "1.2.3"}}),
        json!({"name": "io.github.acme/other", "version": "1.2.3"}),
        json!({"name": "io.github.acme/srv", "version": "9.9.9"}),
        doc(
            json!([{"registryType": "npm", "transport": {"type": "stdio"}}]),
            json!([]),
        ),
    ] {
        let e = resolve(&d, &declared(""), "r").unwrap_err();
        assert_eq!(e.code, Code::RegistryError, "{d}: {e}");
    }
}

#[test]
fn the_old_snake_case_schema_is_read_too() {
    let d = json!({"name": "io.github.acme/srv", "version_detail": {"version": "1.2.3"},
        "packages": [{"registry_type": "npm", "identifier": "@a/s", "version": "1.2.3",
                      "environment_variables": [{"name": "K", "is_secret": true}]}]});
    let l = resolve(&d, &declared(""), "r").unwrap();
    assert_eq!(l.entry["env"], json!({"K": "${K}"}));
}

#[test]
fn the_request_path_encodes_the_name() {
    assert_eq!(
        version_path("io.github.acme/files", "1.0.0+b"),
        "/v0.1/servers/io.github.acme%2Ffiles/versions/1.0.0%2Bb"
    );
}

#[test]
fn a_secret_input_is_a_reference_whatever_its_value_holds() {
    // `isSecret` with `{variables}` in its value was written literally (issue 39).
    let secret = "sk-live-planted-0123456789abcdef";
    let p = json!({"registryType": "npm", "identifier": "@acme/x", "version": "1.0.0",
        "transport": {"type": "stdio"},
        "packageArguments": [
            {"type": "named", "name": "--token", "value": format!("{secret}-{{tenant}}"), "isSecret": true,
             "variables": {"tenant": {"default": "t1"}}},
            {"type": "positional", "valueHint": "key", "value": format!("{secret}{{x}}"), "isSecret": true,
             "variables": {"x": {"default": "1"}}},
        ],
        "environmentVariables": [{"name": "API_KEY", "isSecret": true, "value": format!("{secret}{{v}}"),
            "variables": {"v": {"default": "2"}}}]});
    let remote = json!({"type": "streamable-http", "url": "https://h.example/mcp",
        "headers": [{"name": "Authorization", "isSecret": true, "value": format!("Bearer {secret} {{tenant}}"),
            "variables": {"tenant": {"default": "t1"}}}]});
    let l = resolve(&doc(json!([p]), json!([])), &declared(""), "r").unwrap();
    let text = l.entry.to_string();
    assert!(!text.contains(secret), "{text}");
    assert_eq!(l.entry["env"]["API_KEY"], "${API_KEY}");
    let r = resolve(
        &doc(json!([]), json!([remote])),
        &declared("remote = true\n"),
        "r",
    )
    .unwrap();
    assert_eq!(r.entry["headers"]["Authorization"], "${AUTHORIZATION}");
}

#[test]
fn untrusted_identifiers_names_and_credentials_are_refused() {
    use crate::diag::Code;
    let pkg = |id: &str, env: Value| {
        json!({"registryType": "npm", "identifier": id, "version": "1.0.0",
               "transport": {"type": "stdio"}, "environmentVariables": env})
    };
    let refuse = |p: Value, code: Code| {
        let e = resolve(&doc(json!([p]), json!([])), &declared(""), "r").unwrap_err();
        assert_eq!(e.code, code, "{e}");
        e.to_string()
    };
    let m = refuse(
        pkg("--registry=https://evil.example", json!([])),
        Code::UnsupportedPackage,
    );
    assert!(m.contains("starts with `-`") && !m.contains("evil"), "{m}");
    refuse(pkg("../../x", json!([])), Code::UnsupportedPackage);
    refuse(
        pkg("@acme/x", json!([{"name": "A\u{0}B", "value": "1"}])),
        Code::RegistryError,
    );
    refuse(
        pkg("@acme/x", json!([{"name": "A=B", "value": "1"}])),
        Code::RegistryError,
    );
    // A credential in a value not marked secret: refused, named by its field, never shown.
    let m = refuse(
        pkg(
            "@acme/x",
            json!([{"name": "OPENAI", "default": "sk-live-planted-0123456789abcdef"}]),
        ),
        Code::RegistryError,
    );
    assert!(m.contains("`env.OPENAI`") && !m.contains("sk-live"), "{m}");
    let remote = json!({"type": "streamable-http", "url": "https://app:pa55w0rd-9@h.example/mcp"});
    let e = resolve(
        &doc(json!([]), json!([remote])),
        &declared("remote = true\n"),
        "r",
    )
    .unwrap_err();
    assert_eq!(e.code, Code::RegistryError);
    assert!(
        e.to_string().contains("`url`") && !e.to_string().contains("pa55w0rd"),
        "{e}"
    );
    let remote = json!({"type": "streamable-http", "url": "https://h.example/mcp?key={k}",
        "variables": {"k": {"default": "sk-live-planted-0123456789abcdef"}}});
    let e = resolve(
        &doc(json!([]), json!([remote])),
        &declared("remote = true\n"),
        "r",
    )
    .unwrap_err();
    assert!(e.to_string().contains("`url`"), "{e}");
}
