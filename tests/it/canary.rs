//! The canary corpus (issue 39): credential shapes people really write, each planted with a
//! value of its own in every place a value can stand (an env value and a header value under
//! neutral names, an `args` element or the elements of an argument vector, a remote's `url`),
//! and every command × output format asserted free of every planted value:
//!
//! - a user's Cursor file holding them all: `lint` (text, JSON, SARIF, GitHub) reports a
//!   `literal-secret` for every place, and `import` (text, JSON) prints none of them;
//! - a manifest holding them all, into Cursor (JSON), Codex (TOML) and VS Code (JSON with
//!   comments): `plan` (text, JSON, a saved plan's file), `apply`, `status`, `plan --prune`,
//!   `lint -m` and `prune` in both formats.
//!
//! One detector decides for all of them (`redact::spans` and `redact::detect`): a shape one
//! output knew and another did not is what this corpus exists to catch. What the detector
//! knowingly does not catch is listed in docs/safety.md ("Secrets").

use std::fs;

use serde_json::{Value, json};

use crate::common::Env;

/// How a shape is written around its secret.
enum Form {
    /// One string (the secret inside it).
    Text(String),
    /// An argument vector (`["-H", "Authorization: Bearer S"]`); joined by spaces where one
    /// string is needed.
    Argv(Vec<String>),
}

/// A secret unique to a shape and a place: digits and both cases, so it is nothing else.
fn secret(i: usize, place: &str, len: usize) -> String {
    let mut s = format!("Cq{i:03}{place}Zx7Rv3Lm9TwK4pN8sB2dF6hJ");
    while s.len() < len {
        s.push_str("Yt5Gu1");
    }
    s.truncate(len.max(16));
    s
}

/// An upper-case secret (AWS key ids).
fn upper(i: usize, place: &str) -> String {
    format!("Q{i:03}{}ZX7RV3LM9TZ", place.to_ascii_uppercase())[..16].to_string()
}

/// The corpus: each shape, given its secret `s` (and `u`, an upper-case one), as written.
fn shapes(s: &str, u: &str) -> Vec<(&'static str, Form)> {
    use Form::{Argv, Text};
    let t = |x: String| Text(x);
    let v = |x: &[&str]| Argv(x.iter().map(|w| w.to_string()).collect());
    vec![
        // Tokens of a known shape, whole values.
        ("openai", t(format!("sk-{s}"))),
        ("openai-proj", t(format!("sk-proj-{s}"))),
        ("stripe-live", t(format!("sk_live_{s}"))),
        ("stripe-test", t(format!("sk_test_{s}"))),
        ("stripe-restricted", t(format!("rk_live_{s}"))),
        ("github-pat", t(format!("ghp_{s}{s}"))),
        ("github-oauth", t(format!("gho_{s}{s}"))),
        ("github-user", t(format!("ghu_{s}{s}"))),
        ("github-server", t(format!("ghs_{s}{s}"))),
        ("github-refresh", t(format!("ghr_{s}{s}"))),
        ("github-fine", t(format!("github_pat_{s}"))),
        ("gitlab", t(format!("glpat-{s}"))),
        ("slack-bot", t(format!("xoxb-1234-{s}"))),
        ("slack-user", t(format!("xoxp-1234-{s}"))),
        ("slack-app", t(format!("xapp-1-{s}"))),
        ("aws-key-id", t(format!("AKIA{u}"))),
        ("aws-sts", t(format!("ASIA{u}"))),
        ("google", t(format!("AIza{s}{s}"))),
        ("huggingface", t(format!("hf_{s}{s}"))),
        ("npm", t(format!("npm_{s}{s}"))),
        ("pypi", t(format!("pypi-AgEIcHlwaS5vcmc{s}{s}"))),
        ("jwt", t(format!("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ{s}.{s}"))),
        (
            "private-key",
            t(format!(
                "-----BEGIN PRIVATE KEY-----\nMIIEvQ{s}\n-----END PRIVATE KEY-----\n"
            )),
        ),
        (
            "rsa-key",
            t(format!(
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEow{s}\n-----END RSA PRIVATE KEY-----"
            )),
        ),
        // Authorization schemes under any name.
        ("bearer", t(format!("Bearer {s}"))),
        ("bearer-lower", t(format!("bearer {s}"))),
        ("basic", t(format!("Basic {s}=="))),
        ("token-scheme", t(format!("Token {s}"))),
        // Credential pairs inside a string.
        ("env-pair", t(format!("API_KEY={s}"))),
        ("github-env-pair", t(format!("GITHUB_TOKEN={s}"))),
        ("openai-env-pair", t(format!("OPENAI_API_KEY={s}"))),
        ("secret-pair", t(format!("CLIENT_SECRET={s}"))),
        ("password-pair", t(format!("PASSWORD={s}"))),
        ("password-colon", t(format!("password: {s}"))),
        ("access-token-pair", t(format!("access_token={s}"))),
        ("refresh-token-pair", t(format!("refresh_token={s}"))),
        ("private-key-pair", t(format!("private_key={s}"))),
        ("auth-pair", t(format!("auth={s}"))),
        ("header-line", t(format!("Authorization: Bearer {s}"))),
        ("api-key-header-line", t(format!("X-Api-Key: {s}"))),
        ("goog-header-line", t(format!("X-Goog-Api-Key: {s}"))),
        ("cookie-line", t(format!("Cookie: session={s}"))),
        ("colon-option", t(format!("--apikey:{s}"))),
        ("eq-option", t(format!("--api-key={s}"))),
        ("token-option", t(format!("--token={s}"))),
        ("password-option-word", t(format!("--password {s}"))),
        ("json-blob", t(format!("{{\"apiKey\": \"{s}\"}}"))),
        (
            "json-blob-compact",
            t(format!("{{\"token\":\"{s}\",\"x\":1}}")),
        ),
        (
            "json-blob-nested",
            t(format!("{{\"auth\": {{\"client_secret\": \"{s}\"}}}}")),
        ),
        ("yaml-blob", t(format!("apiKey: {s}\nregion: eu"))),
        ("toml-blob", t(format!("[auth]\ntoken = \"{s}\""))),
        ("toml-single", t(format!("api_key = '{s}'"))),
        (
            "multi-line",
            t(format!("line one\nSECRET_KEY={s}\nline three")),
        ),
        // Connection strings in several dialects.
        ("mssql", t(format!("Server=db;Database=x;Password={s};"))),
        (
            "mssql-pwd",
            t(format!("Data Source=db;User Id=sa;Pwd={s};")),
        ),
        (
            "libpq-kv",
            t(format!("host=db user=app password={s} dbname=x")),
        ),
        ("postgres-url", t(format!("postgres://app:{s}@db:5432/x"))),
        ("mysql-url", t(format!("mysql://root:{s}@db:3306/x"))),
        (
            "mongodb-url",
            t(format!("mongodb+srv://app:{s}@cluster0.example.net/x")),
        ),
        ("redis-url", t(format!("redis://:{s}@cache:6379/0"))),
        ("amqp-url", t(format!("amqp://app:{s}@mq/vhost"))),
        (
            "https-userinfo",
            t(format!("https://app:{s}@h.example/mcp")),
        ),
        // URL query parameters.
        (
            "signed-url",
            t(format!("https://b.example/o?se=2030-01-01&sp=r&sig={s}")),
        ),
        (
            "s3-presigned",
            t(format!("https://s3.example/k?X-Amz-Signature={s}")),
        ),
        ("query-token", t(format!("https://h.example/mcp?token={s}"))),
        (
            "query-api-key",
            t(format!("https://h.example/mcp?api_key={s}&page=2")),
        ),
        (
            "query-access-token",
            t(format!("https://h.example/sse?access_token={s}")),
        ),
        ("query-key", t(format!("https://h.example/v1?key={s}"))),
        (
            "query-client-secret",
            t(format!("https://h.example/cb?client_secret={s}")),
        ),
        (
            "query-password",
            t(format!("https://h.example/x?user=a&password={s}")),
        ),
        // Argument vectors.
        ("argv-api-key", v(&["--api-key", s])),
        ("argv-token", v(&["--token", s])),
        ("argv-password", v(&["--db-password", s])),
        (
            "argv-curl-header",
            v(&["-H", &format!("Authorization: Bearer {s}")]),
        ),
        (
            "argv-header-word",
            v(&["--header", &format!("X-Api-Key: {s}")]),
        ),
        (
            "argv-header-eq",
            v(&[&format!("--header=Authorization: Bearer {s}")]),
        ),
        ("argv-docker-env", v(&["-e", &format!("GITHUB_TOKEN={s}")])),
        (
            "argv-env-long",
            v(&["--env", &format!("OPENAI_API_KEY={s}")]),
        ),
        ("argv-secret-eq", v(&[&format!("--client-secret={s}")])),
        (
            "argv-npx",
            v(&["-y", "@acme/srv", &format!("--auth-token={s}")]),
        ),
        ("argv-pair", v(&["run", &format!("SLACK_BOT_TOKEN={s}")])),
    ]
}

/// The places of one shape: (server name, entry) of a stdio server with it in `env` and
/// `args`, and of a remote with it in a header (and in `url` when it is a URL); with the
/// secrets planted.
fn entries(i: usize, form_for: &dyn Fn(&str) -> Form) -> Vec<(String, Value, Vec<String>)> {
    let mut out = Vec::new();
    let joined = |f: Form| match f {
        Form::Text(t) => t,
        Form::Argv(a) => a.join(" "),
    };
    // stdio: env and args.
    let (env_v, arg_v) = (form_for("e"), form_for("a"));
    let args = match arg_v {
        Form::Text(t) => vec![Value::from("serve"), Value::from(t)],
        Form::Argv(a) => std::iter::once("serve".to_string())
            .chain(a)
            .map(Value::from)
            .collect(),
    };
    out.push((
        format!("s{i:03}"),
        json!({"command": "srv", "args": args, "env": {"CFG_VALUE": joined(env_v)}}),
        vec!["e".to_string(), "a".to_string()],
    ));
    // remote: a header, and the url when the shape is one.
    let header = joined(form_for("h"));
    let url = match form_for("u") {
        Form::Text(t) if t.starts_with("https://") && !t.contains('\n') => Some(t),
        _ => None,
    };
    let mut places = vec!["h".to_string()];
    if url.is_some() {
        places.push("u".to_string());
    }
    out.push((
        format!("r{i:03}"),
        json!({"url": url.unwrap_or_else(|| "https://mcp.example/mcp".into()),
               "headers": {"X-Custom-Data": header}}),
        places,
    ));
    out
}

/// Every planted secret, and the servers as a JSON object.
fn corpus() -> (serde_json::Map<String, Value>, Vec<String>) {
    let n = shapes("x", "X").len();
    let mut servers = serde_json::Map::new();
    let mut secrets = Vec::new();
    for i in 0..n {
        let form_for = |place: &str| {
            let (s, u) = (secret(i, place, 20), upper(i, place));
            shapes(&s, &u).swap_remove(i).1
        };
        for (name, entry, places) in entries(i, &form_for) {
            for p in places {
                secrets.push(secret(i, &p, 20));
                secrets.push(upper(i, &p));
            }
            servers.insert(name, entry);
        }
    }
    (servers, secrets)
}

fn assert_clean(what: &str, out: &std::process::Output, secrets: &[String]) {
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        for s in secrets {
            assert!(
                !text.contains(s.as_str()),
                "{what} printed the planted `{s}`:\n{text}"
            );
        }
    }
}

#[test]
fn the_corpus_has_at_least_eighty_shapes_each_with_its_own_secrets() {
    let shapes = shapes("x", "X");
    assert!(shapes.len() >= 80, "{} shapes", shapes.len());
    let (servers, secrets) = corpus();
    assert_eq!(servers.len(), 2 * shapes.len());
    let mut unique = secrets.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        secrets.len(),
        "every planted secret is its own"
    );
}

#[test]
fn lint_reports_every_planted_credential_and_import_prints_none() {
    let (servers, secrets) = corpus();
    let e = Env::new();
    let file = e.write(
        ".cursor/mcp.json",
        serde_json::to_string_pretty(&json!({"mcpServers": servers})).unwrap(),
    );
    let f = file.display().to_string();
    let lint = |format: &str| {
        let mut c = crate::common::mcpconf_cmd();
        c.args(["lint", &f, "--format", format]);
        c.output().unwrap()
    };
    for format in ["text", "json", "sarif", "github"] {
        let out = lint(format);
        assert_eq!(out.status.code(), Some(1), "lint {format}");
        assert_clean(&format!("lint --format {format}"), &out, &secrets);
    }
    // Every place of every shape is a `literal-secret` finding.
    let out = lint("json");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["rule"] == "literal-secret")
        .map(|x| x["message"].as_str().unwrap().to_string())
        .collect();
    let mut missed = Vec::new();
    for (name, entry) in &servers {
        let fields: Vec<&str> = if entry.get("command").is_some() {
            vec!["env.CFG_VALUE", "args"]
        } else {
            vec!["headers.X-Custom-Data"]
        };
        for field in fields {
            let hit = found
                .iter()
                .any(|m| m.contains(&format!("of server `{name}`")) && m.contains(field));
            if !hit {
                missed.push(format!("{name} {field}"));
            }
        }
    }
    let names: Vec<&str> = shapes("x", "X").iter().map(|(n, _)| *n).collect();
    assert!(
        missed.is_empty(),
        "lint missed {} places: {missed:?}\n(shapes in order: {names:?})",
        missed.len()
    );
    for extra in [&[][..], &["--format", "json"][..]] {
        let mut args = vec!["import", "--client", "cursor", "--scope", "project"];
        args.extend_from_slice(extra);
        let out = e.run(&args);
        assert_eq!(out.status.code(), Some(0), "import {extra:?}: {out:?}");
        assert_clean(&format!("import {extra:?}"), &out, &secrets);
    }
}

#[test]
fn no_command_prints_a_planted_credential_in_any_format() {
    let (servers, secrets) = corpus();
    let e = Env::new();
    let mut m = String::from("owner = \"canary\"\n\n");
    for (name, entry) in &servers {
        m.push_str(&format!("[servers.{name}]\n"));
        for (k, v) in entry.as_object().unwrap() {
            match v {
                Value::Object(o) => {
                    let pairs: Vec<String> = o
                        .iter()
                        .map(|(k, v)| format!("{} = {v}", Value::from(k.as_str())))
                        .collect();
                    m.push_str(&format!("{k} = {{ {} }}\n", pairs.join(", ")));
                }
                v => m.push_str(&format!("{k} = {v}\n")),
            }
        }
        m.push('\n');
    }
    for client in ["cursor", "codex", "vscode"] {
        m.push_str(&format!(
            "[[targets]]\nclient = \"{client}\"\nscope = \"project\"\n\n"
        ));
    }
    e.manifest(&m);
    let plan = e.base.join("plan.json").display().to_string();
    let runs: Vec<(Vec<&str>, Option<i32>)> = vec![
        (vec!["plan"], Some(0)),
        (vec!["plan", "--format", "json"], Some(0)),
        (vec!["plan", "--out", &plan], Some(0)),
        (vec!["apply", "--yes", "--format", "json"], Some(0)),
        (vec!["status"], None),
        (vec!["status", "--format", "json"], None),
        (vec!["lint"], None),
        (vec!["lint", "--format", "json"], None),
        (vec!["plan", "--prune"], Some(0)),
        (vec!["plan", "--prune", "--format", "json"], Some(0)),
        (vec!["prune", "--yes"], Some(0)),
        (vec!["apply", "--yes"], Some(0)),
        (vec!["prune", "--yes", "--format", "json"], Some(0)),
    ];
    for (args, code) in runs {
        let out = e.run(&args);
        if let Some(c) = code {
            assert_eq!(
                out.status.code(),
                Some(c),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_clean(&format!("{args:?}"), &out, &secrets);
    }
    // The saved plan is a file mcpconf wrote: no value in it either.
    let saved = fs::read_to_string(e.base.join("plan.json")).unwrap();
    for s in &secrets {
        assert!(!saved.contains(s.as_str()), "the saved plan holds `{s}`");
    }
}

/// One decision per value (issue 39, items 3, 4 and 11; issue 45's placeholders): for each
/// name and value, `lint` reports it exactly when `import` replaces it with a reference and
/// exactly when the plan's diff masks it — credentials, near misses and placeholders alike.
#[test]
fn lint_import_and_the_diff_decide_alike() {
    let cases: &[(&str, &str, bool)] = &[
        ("X-Goog-Api-Key", "AIzaShortKey9", true),
        ("DB_PASSWORD", "hunter2hunter2", true),
        ("API_KEY", "q8Zr5Tw2Lm7Xc4", true),
        ("CONN", "Server=db;Password=Pw9Xq2Lm7Rt;", true),
        ("PAYLOAD", "{\"apiKey\": \"Ak7Qz2Wx9Lp4\"}", true),
        ("CALLBACK", "https://b.example/o?sig=Sg4Hx8Kq2Zm7", true),
        ("X_VALUE", "Bearer Bt5Nc8Vx2Qz7Lw3", true),
        ("API_KEY", "YOUR_API_KEY_HERE", false),
        ("API_KEY", "<your-api-key>", false),
        ("TOKEN", "xxxxxxxxxxxxxxxx", false),
        ("OPENAI_API_KEY", "replace-me-with-a-key", false),
        ("API_KEY_FILE", "/run/secrets/api_key_2024", false),
        ("AUTH_PROVIDER", "google_credentials", false),
        ("TOKEN_TTL", "3600", false),
        ("LOG_LEVEL", "debug-verbose-mode", false),
        ("GITHUB_TOKEN", "${GITHUB_TOKEN}", false),
    ];
    let e = Env::new();
    let mut servers = serde_json::Map::new();
    let mut m = String::from("owner = \"decide\"\n\n");
    for (i, (name, value, _)) in cases.iter().enumerate() {
        servers.insert(
            format!("d{i:02}"),
            json!({"command": "srv", "env": {*name: *value}}),
        );
        m.push_str(&format!(
            "[servers.d{i:02}]\ncommand = \"srv\"\nenv = {{ {} = {} }}\n\n",
            Value::from(*name),
            Value::from(value.replace("${", "$${"))
        ));
    }
    m.push_str("[[targets]]\nclient = \"codex\"\nscope = \"project\"\n");
    e.manifest(&m);
    let file = e.write(
        ".cursor/mcp.json",
        serde_json::to_string_pretty(&json!({"mcpServers": servers})).unwrap(),
    );
    let mut c = crate::common::mcpconf_cmd();
    c.args(["lint", &file.display().to_string(), "--format", "json"]);
    let lint: Value = serde_json::from_slice(&c.output().unwrap().stdout).unwrap();
    let import = e.run(&["import", "--client", "cursor", "--scope", "project"]);
    let imported = String::from_utf8_lossy(&import.stdout).into_owned();
    let plan = e.run(&["plan"]);
    let plan = String::from_utf8_lossy(&plan.stdout).into_owned();
    for (i, (name, value, credential)) in cases.iter().enumerate() {
        let server = format!("d{i:02}");
        let reported = lint["findings"].as_array().unwrap().iter().any(|f| {
            f["rule"] == "literal-secret"
                && f["message"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("of server `{server}`"))
        });
        let literal = value.replace('\\', "\\\\").replace('"', "\\\"");
        let replaced = !imported.contains(&literal);
        let masked = !plan.contains(&literal);
        assert_eq!(
            (reported, replaced, masked),
            (*credential, *credential, *credential),
            "{name} = {value}: (lint reports, import replaces, diff masks)\n{imported}\n{plan}"
        );
    }
}

mod props {
    //! The corpus as a property-test generator: any shape, planted under a random neutral name
    //! in an env map, a header map or an argument list, among random other entries, in a
    //! JSON, TOML or YAML file laid out either way, is masked by the diff masker (whole text
    //! and line by line) and by the redactor of values known from the entry.
    use super::*;
    use mcpconf::redact::mask::{Lang, mask, mask_lines};
    use proptest::prelude::*;

    fn toml_str(s: &str) -> String {
        Value::from(s).to_string()
    }

    fn yaml_str(s: &str) -> String {
        // A JSON string is a YAML double-quoted scalar.
        Value::from(s).to_string()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

        #[test]
        fn any_shape_in_any_place_and_layout_is_masked(
            i in 0usize..82,
            place in 0u8..3,
            layout in 0u8..5,
            key in "[A-Z]{3,6}_(DATA|CFG|VALUE|ARG)",
            others in proptest::collection::vec(("[a-z]{2,6}", "[a-z0-9 ./-]{0,12}"), 0..4),
        ) {
            let n = shapes("x", "X").len();
            let i = i % n;
            let (s, u) = (secret(i, "p", 20), upper(i, "p"));
            let form = shapes(&s, &u).swap_remove(i).1;
            let value = match form {
                Form::Text(t) => t,
                Form::Argv(a) => a.join(" "),
            };
            let mut map: Vec<(String, String)> = others.clone();
            map.push((key.clone(), value.clone()));
            let (field, args) = match place {
                0 => ("env", false),
                1 => ("headers", false),
                _ => ("args", true),
            };
            let text = match layout {
                0 | 1 => {
                    let inner = if args {
                        Value::from(map.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>())
                    } else {
                        Value::Object(map.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect())
                    };
                    let doc = json!({"mcpServers": {"srv": {"command": "x", field: inner}}});
                    if layout == 0 { doc.to_string() } else { serde_json::to_string_pretty(&doc).unwrap() }
                }
                2 => {
                    let mut t = String::from("[mcp_servers.srv]\ncommand = \"x\"\n");
                    if args {
                        let items: Vec<String> = map.iter().map(|(_, v)| toml_str(v)).collect();
                        t.push_str(&format!("args = [{}]\n", items.join(", ")));
                    } else {
                        t.push_str(&format!("[mcp_servers.srv.{field}]\n"));
                        for (k, v) in &map {
                            t.push_str(&format!("{k} = {}\n", toml_str(v)));
                        }
                    }
                    t
                }
                _ => {
                    let mut t = String::from("extensions:\n  srv:\n    cmd: x\n");
                    if args {
                        t.push_str("    args:\n");
                        for (_, v) in &map {
                            t.push_str(&format!("      - {}\n", yaml_str(v)));
                        }
                    } else {
                        t.push_str(&format!("    {field}:\n"));
                        for (k, v) in &map {
                            t.push_str(&format!("      {k}: {}\n", yaml_str(v)));
                        }
                    }
                    t
                }
            };
            prop_assert!(text.contains(s.as_str()) || text.contains(u.as_str()), "not planted:\n{text}");
            let lang = match layout { 0 | 1 => Lang::Json, 2 => Lang::Toml, _ => Lang::Yaml };
            let mut red = mcpconf::redact::Redactor::default();
            if args {
                red.consider_argv("args", &map.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>());
            } else {
                for (k, v) in &map {
                    red.consider(k, v);
                }
            }
            for shown in [mask(&text, lang), mask_lines(&text, lang), red.redact(&text)] {
                for planted in [&s, &u] {
                    prop_assert!(
                        !shown.contains(planted.as_str()),
                        "shape {} in {field} (layout {layout}) shows `{planted}`:\n{text}\n->\n{shown}",
                        shapes("x", "X")[i].0
                    );
                }
            }
        }
    }
}
