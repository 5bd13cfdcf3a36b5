//! The import tests (moved out of `import/mod.rs` unchanged).
use super::refs::{neutral, read_field};
use super::secrets::{protect, protect_inline};
use super::*;

#[test]
fn text_is_a_reference_only_where_the_client_expands_one() {
    // Issue 27 item 15: Kiro and Amazon Q expand only in env values and headers, Copilot
    // CLI only in env values; elsewhere a `${X}` is the literal text.
    let read = |s: &str, client: &str, field: &str| {
        read_field("s", field, s, client, &mut Notes::default())
    };
    for (client, open) in [("kiro", "${"), ("copilot-cli", "${"), ("amazonq", "${env:")] {
        let text = format!("{open}X}}");
        for field in ["command", "args", "cwd", "url"] {
            assert_eq!(read(&text, client, field), format!("${text}"), "{client}");
        }
        assert_eq!(read(&text, client, "env.K"), "${X}", "{client}");
    }
    assert_eq!(read("${X}", "kiro", "headers.A"), "${X}");
    assert_eq!(read("${X}", "copilot-cli", "headers.A"), "$${X}");
    // A client that expands everywhere reads a reference in args too.
    assert_eq!(read("${X}", "claude-code", "args"), "${X}");
}

#[test]
fn an_untyped_url_is_what_its_client_reads_it_as() {
    // Issue 45, class 3: Cline and Gemini CLI read a `url` without `type` as SSE, Qwen
    // Code's `url` is SSE beside its `httpUrl`; Cursor's and Kiro's is streamable HTTP.
    let transport = |client: &str, entry: serde_json::Value| {
        let mut servers = Map::new();
        servers.insert("s".into(), entry);
        let d = crate::dialect::lookup(client).unwrap();
        let spec = TargetSpec {
            dialect: d,
            scope: d.default_scope().name,
            path: None,
            only: &[],
            as_client: false,
        };
        let m = import(&servers, &spec, "o").manifest;
        m.contains("transport = \"sse\"")
    };
    let url = serde_json::json!({"url": "https://h/mcp"});
    for (client, sse) in [
        ("cline", true),
        ("gemini", true),
        ("qwen", true),
        ("cursor", false),
        ("kiro", false),
    ] {
        assert_eq!(transport(client, url.clone()), sse, "{client}");
    }
    // A typed entry stays what its type says; Qwen's `httpUrl` is streamable HTTP.
    assert!(!transport(
        "cline",
        serde_json::json!({"type": "streamableHttp", "url": "https://h/mcp"})
    ));
    assert!(!transport(
        "qwen",
        serde_json::json!({"httpUrl": "https://h/mcp"})
    ));
    // And the entry as written is the one mcpconf writes for that server.
    let facts = crate::dialect::client_facts("cline");
    let written = serde_json::json!({"type": "sse", "url": "https://h/mcp"});
    assert!(crate::plan::semantic_eq_for(&url, &written, facts));
    let http = serde_json::json!({"type": "streamableHttp", "url": "https://h/mcp"});
    assert!(!crate::plan::semantic_eq_for(&url, &http, facts));
}

#[test]
fn references_become_neutral() {
    assert_eq!(neutral("Bearer ${env:T}", "cursor"), "Bearer ${T}");
    assert_eq!(neutral("{env:A}-{env:B}", "opencode"), "${A}-${B}");
    assert_eq!(neutral("${A}", "claude-code"), "${A}");
    assert_eq!(neutral("cost ${5}", "claude-code"), "cost $${5}");
    // Claude Code's spelling in a Cursor file: the reference that was meant.
    assert_eq!(neutral("Bearer ${X}", "cursor"), "Bearer ${X}");
    assert_eq!(neutral("$${X} ${1}", "cursor"), "$$${X} $${1}");
    assert_eq!(neutral("plain", "zed"), "plain");
    assert_eq!(neutral("${X}", "zed"), "$${X}");
    // From the dialects' table, not a list of its own: Roo spells `${env:…}`, Factory
    // expands `${…}`, Kimi Code expands nothing.
    assert_eq!(neutral("${env:X}", "roo"), "${X}");
    assert_eq!(neutral("${X}", "factory"), "${X}");
    assert_eq!(neutral("${X}", "kimi-code"), "$${X}");
}

#[test]
fn secrets_are_replaced_by_references() {
    let mut w = Notes::default();
    assert_eq!(
        protect(
            "api",
            "Authorization",
            "Bearer abc12345".into(),
            true,
            &mut w
        ),
        "Bearer ${API_TOKEN}"
    );
    assert_eq!(
        protect("api", "GITHUB_TOKEN", "ghp_x12345".into(), false, &mut w),
        "${GITHUB_TOKEN}"
    );
    assert_eq!(protect("api", "PATH", "/bin".into(), false, &mut w), "/bin");
    assert_eq!(
        protect("api", "API_KEY", "${API_KEY}".into(), false, &mut w),
        "${API_KEY}"
    );
    assert_eq!(w.warnings.len(), 2);
    assert!(
        w.warnings
            .iter()
            .all(|x| !x.contains("abc12345") && !x.contains("ghp_x12345"))
    );
}

/// Issue 45, class 8: one detector. What import replaces by a reference is exactly what
/// lint's `literal-secret` flags in the file, for every client (a placeholder is neither,
/// in any shape: bare, a bearer token, a URL's password or query value; nor is text that
/// looks like a reference where the client expands none).
#[test]
fn import_replaces_exactly_what_lint_flags() {
    let cases = [
        ("GITHUB_PERSONAL_ACCESS_TOKEN", "YOUR_API_KEY_HERE", false),
        ("API_KEY", "<your-api-key>", false),
        ("Authorization", "Bearer YOUR_API_KEY_HERE", false),
        ("Authorization", "Bearer <your-token-here>", false),
        ("URL", "https://h/mcp?api_key=YOUR_API_KEY", false),
        ("DB_URL", "postgres://u:YOUR_PASSWORD@h/db", false),
        ("GITHUB_PERSONAL_ACCESS_TOKEN", "${GITHUB_TOKEN}", false),
        ("API_KEY", "sk-live-abcdefghijklmnopqrstuvwxyz0123", true),
        ("Authorization", "Bearer abcdEFGH12345678", true),
        ("URL", "https://h/mcp?api_key=abcdEFGH1234", true),
        ("DB_URL", "postgres://u:s3cr3tPass@h/db", true),
    ];
    for client in ["cursor", "claude-desktop", "vscode", "crush"] {
        let d = crate::dialect::lookup_client(client).unwrap();
        for (k, v, secret) in cases {
            let (what, hide) = crate::redact::detect::assess(k, v);
            assert_eq!(what.is_some() || hide, secret, "lint: {k}={v}");
            let mut servers = Map::new();
            servers.insert(
                "s".into(),
                serde_json::json!({"command": "srv", "env": {k: v}}),
            );
            let spec = TargetSpec {
                dialect: d,
                scope: d.default_scope().name,
                path: None,
                only: &[],
                as_client: false,
            };
            let imported = import(&servers, &spec, "o");
            assert_eq!(
                !imported.replaced.is_empty(),
                secret,
                "{client}: {k}={v}: {imported:?}"
            );
        }
    }
}

#[test]
fn every_flagged_value_becomes_a_reference() {
    let sk = "sk-live-abcdefghijklmnopqrstuvwxyz0123";
    let mut w = Notes::default();
    assert_eq!(
        protect("api", "OPENAI", sk.into(), false, &mut w),
        "${OPENAI}"
    );
    assert_eq!(
        protect_inline("api", "args", format!("--token={sk}"), &mut w),
        "--token=${API_TOKEN}"
    );
    assert_eq!(
        protect_inline("api", "args", format!("key:{sk}"), &mut w),
        "key:${API_TOKEN}"
    );
    assert_eq!(
        protect_inline(
            "api",
            "url",
            format!("https://u:hunter22@h/mcp?api_key={sk}&page=2&token=${{T}}"),
            &mut w
        ),
        // The same value as before: the same variable.
        "https://u:${API_PASSWORD}@h/mcp?api_key=${API_TOKEN}&page=2&token=${T}"
    );
    assert_eq!(
        protect_inline("api", "args", "--token=other-value-99".into(), &mut w),
        "--token=${API_TOKEN_2}"
    );
    assert_eq!(
        protect_inline("api", "args", "--port=8080".into(), &mut w),
        "--port=8080"
    );
    assert_eq!(w.warnings.len(), 6);
    assert!(
        w.warnings
            .iter()
            .all(|x| !x.contains("abcdefghij") && !x.contains("hunter22"))
    );
    assert!(w.warnings[0].contains("`${OPENAI}`") && w.warnings[1].contains("API_TOKEN"));
}

#[test]
fn as_the_client_reads_a_reference_it_does_not_expand_is_literal() {
    let mut servers = Map::new();
    servers.insert(
        "s".into(),
        serde_json::json!({"command": "srv", "args": ["--home=${HOME_DIR}"],
                           "env": {"A": "${TOKEN}", "B": "${env:TOKEN}"}}),
    );
    let cursor = crate::dialect::lookup_client("cursor").unwrap();
    let read = |as_client| {
        let spec = TargetSpec {
            dialect: cursor,
            scope: "project",
            path: None,
            only: &[],
            as_client,
        };
        import(&servers, &spec, "o")
    };
    // Import reads the reference meant (a migration); probe what Cursor passes on.
    let meant = read(false);
    assert!(meant.respelled.contains(&"s".to_string()), "{meant:?}");
    let literal = read(true);
    assert!(literal.respelled.is_empty(), "{literal:?}");
    assert!(
        literal.manifest.contains(r#"A = "$${TOKEN}""#),
        "{}",
        literal.manifest
    );
    assert!(
        literal.manifest.contains(r#"B = "${TOKEN}""#),
        "{}",
        literal.manifest
    );
    assert!(
        literal.manifest.contains(r#""--home=$${HOME_DIR}""#),
        "{}",
        literal.manifest
    );
    assert!(
        literal
            .warnings
            .iter()
            .any(|w| w.contains("passes the text on")),
        "{:?}",
        literal.warnings
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// A secret in any shape of argument vector becomes a reference, and no warning
    /// shows it.
    #[test]
    fn prop_a_secret_in_any_argv_shape_becomes_a_reference(
        args in crate::redact::argv::props::argv(),
    ) {
        use crate::redact::argv::props::MARK;
        let mut servers = Map::new();
        servers.insert("s".into(), serde_json::json!({"command": "npx", "args": args}));
        let cursor = crate::dialect::ALL.iter().find(|d| d.id() == "cursor").copied();
        let Some(cursor) = cursor else { unreachable!("cursor is a client") };
        let spec = TargetSpec { dialect: cursor, scope: "project", path: None, only: &[], as_client: false };
        let imported = import(&servers, &spec, "o");
        proptest::prop_assert!(!imported.manifest.contains(MARK), "{}", imported.manifest);
        proptest::prop_assert!(!imported.warnings.join("\n").contains(MARK));
        proptest::prop_assert!(!imported.replaced.is_empty(), "{:?}", imported);
    }
}
