//! Issue 16 items 1–3 and the terminal/manifest parts of item 15, through the CLI: secrets
//! planted in the user's own files (escaped, in `args`, in comments, as keys, in VS Code
//! `inputs`, in TOML multi-line strings) and in the manifest are searched for in every output
//! stream and every file mcpconf writes, in text and JSON, for plan, apply, prune, import and
//! lint.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::Env;

/// Every planted secret carries this marker somewhere in its decoded form; `sk-PLANTED…`
/// tokens are also looked for without it, in case a shorter part leaks.
const MARK: &str = "PLANTED";

/// A token with a known prefix: `sk-` and 30 token characters.
fn sk(tag: &str) -> String {
    format!("sk-{MARK}{tag}{}", "x".repeat(24 - tag.len()))
}

/// The user's files: each secret sits within three lines of where mcpconf inserts or
/// removes its entry, so that it is a context line of every diff.
fn plant(e: &Env) {
    // Strict JSON (Cursor): an escaped `/` in a credential, `\u0073k-…`, a token in an `args`
    // element, a token used as an env key.
    e.write(
        ".cursor/mcp.json",
        format!(
            "{{\"mcpServers\": {{\"gh\": {{\"command\": \"npx\", \"args\": [\"--token={}\"], \"env\": {{\"TOKEN\": \"{MARK}\\/Zq81Lm\", \"OPENAI\": \"\\u0073k-live-{MARK}aaaaaaaaaaaaaaaaaa\", \"{}\": \"1\"}}}}}}}}\n",
            sk("args"),
            sk("envkey"),
        ),
    );
    // JSONC (VS Code): a token in a comment and in an `inputs` default.
    e.write(
        ".vscode/mcp.json",
        format!(
            "{{\n  // old key: {}\n  \"inputs\": [{{\"type\": \"promptString\", \"id\": \"k\", \"default\": \"{}\"}}],\n  \"servers\": {{\n  }}\n}}\n",
            sk("comment"),
            sk("inputs"),
        ),
    );
    // TOML (Codex, project): a multi-line basic string under a credential name.
    e.write(
        ".codex/config.toml",
        format!("[mcp_servers.gh.env]\nAPI_TOKEN = \"\"\"\n{MARK}multiline9Qz\"\"\"\n"),
    );
    // TOML (Codex, user): a literal-string token in `args`, a token in a comment, an escape.
    let user = e.base.join("home/.codex/config.toml");
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    fs::write(
        &user,
        format!(
            "[mcp_servers.gh]\nargs = ['--api-key={}'] # rotated: {}\nenv = {{ SECRET = \"{MARK}\\u002Fq81\" }}\n",
            sk("tomlargs"),
            sk("tomlcomment"),
        ),
    )
    .unwrap();
}

const TARGETS: &str = "[[targets]]\nclient = \"cursor\"\n[[targets]]\nclient = \"vscode\"\n[[targets]]\nclient = \"codex\"\nscope = \"project\"\n[[targets]]\nclient = \"codex\"\nscope = \"user\"\n";

fn manifest(e: &Env) {
    e.manifest(&format!(
        "owner = \"o\"\n[servers.api]\ncommand = \"api-mcp\"\nargs = [\"--verbose\"]\n{TARGETS}"
    ));
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for entry in rd {
            let p = entry.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let s = String::from_utf8_lossy(bytes);
    assert!(!s.contains(MARK), "{what} shows a planted secret:\n{s}");
    assert!(
        !s.contains("sk-live-"),
        "{what} shows a planted secret:\n{s}"
    );
}

fn assert_output_clean(what: &str, out: &Output) {
    assert_clean(&format!("{what} (stdout)"), &out.stdout);
    assert_clean(&format!("{what} (stderr)"), &out.stderr);
}

/// Everything mcpconf wrote outside the user's config files: the state dir (ledger, locks,
/// journal) and any saved plan.
fn assert_state_clean(e: &Env, extra: &[PathBuf]) {
    for f in walk(&e.state()).iter().chain(extra) {
        assert_clean(&f.display().to_string(), &fs::read(f).unwrap_or_default());
    }
}

#[test]
fn secrets_in_the_users_files_never_appear_in_diffs_text_or_json() {
    for json in [false, true] {
        let e = Env::new();
        plant(&e);
        manifest(&e);
        let fmt: &[&'static str] = if json { &["--format", "json"] } else { &[] };
        let with = |args: &[&'static str]| -> Vec<&'static str> { [args, fmt].concat() };

        let out = e.run(&with(&["plan"]));
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_output_clean("plan", &out);
        let shown = String::from_utf8_lossy(&out.stdout).into_owned();
        // The diffs are there, with the user's lines in them, masked.
        assert!(shown.contains("<redacted>"), "{shown}");
        assert!(shown.contains("api-mcp") && shown.contains("gh"), "{shown}");
        if json {
            let doc: Value = serde_json::from_str(&shown).unwrap();
            let diffs: Vec<&str> = doc["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["diff"].as_str().unwrap())
                .collect();
            assert_eq!(diffs.len(), 4, "{shown}");
            assert!(diffs.iter().all(|d| d.contains("<redacted>")), "{shown}");
        }

        let saved = e.base.join("plan.json");
        let mut args = with(&["plan"]);
        let saved_arg = saved.to_str().unwrap().to_string();
        args.extend(["--out", &saved_arg]);
        let out = e.run(&args);
        assert_output_clean("plan --out", &out);
        assert!(saved.exists());

        let out = e.run(&with(&["apply", "--yes"]));
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_output_clean("apply", &out);
        // The user's bytes are kept: the secrets are still in the files (only never shown).
        assert!(
            e.text(".codex/config.toml")
                .contains(&format!("{MARK}multiline"))
        );

        let out = e.run(&with(&["prune", "--yes"]));
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_output_clean("prune", &out);
        assert!(String::from_utf8_lossy(&out.stdout).contains("<redacted>"));

        let out = e.run(&with(&["lint"]));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("literal-secret"),
            "{out:?}"
        );
        assert_output_clean("lint", &out);
        assert_state_clean(&e, &[saved]);
    }
}

/// `plan`, then `apply --yes`, in the format `fmt`: each succeeds, shows `shown` and our server,
/// and prints no planted secret.
fn plan_and_apply_show_no_secret(e: &Env, fmt: &[&str], shown: &str) {
    for cmd in ["plan", "apply"] {
        let args: Vec<&str> = [
            &[cmd][..],
            if cmd == "apply" { &["--yes"] } else { &[] },
            fmt,
        ]
        .concat();
        let out = e.run(&args);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_output_clean(cmd, &out);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(shown) && stdout.contains("api-mcp"),
            "{stdout}"
        );
    }
}

/// A private key in a block comment or in a run of line comments: its body lines carry no
/// marker the detector knows, so every line of the block is hidden, not only BEGIN and END,
/// and the diff keeps the file's lines in place.
#[test]
fn a_private_key_in_comments_is_hidden_on_every_line_of_a_diff() {
    for json in [false, true] {
        let e = Env::new();
        e.write(
            ".vscode/mcp.json",
            format!(
                "{{\n  \"servers\": {{\n    /* deploy key\n    -----BEGIN RSA PRIVATE KEY-----\n    MIIEow{MARK}blockbody1\n    -----END RSA PRIVATE KEY----- */\n  }}\n}}\n"
            ),
        );
        e.write(
            ".codex/config.toml",
            format!(
                "# -----BEGIN OPENSSH PRIVATE KEY-----\n# b3Blbn{MARK}linebody2\n# -----END OPENSSH PRIVATE KEY-----\n"
            ),
        );
        e.manifest("owner = \"o\"\n[servers.api]\ncommand = \"api-mcp\"\n[[targets]]\nclient = \"vscode\"\n[[targets]]\nclient = \"codex\"\nscope = \"project\"\n");
        let fmt: &[&str] = if json { &["--format", "json"] } else { &[] };
        plan_and_apply_show_no_secret(&e, fmt, "<redacted>");
        let out = e.run(&[&["prune", "--yes"][..], fmt].concat());
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_output_clean("prune", &out);
    }
}

/// A file over the whole-file scan size (64 KiB): a password under a credential-named key far
/// from the change is a known value, so where the same string stands in the diff's window under
/// a harmless key (an `args` element), it is hidden there too, in every output.
#[test]
fn a_credential_named_value_far_from_the_change_is_hidden_where_the_diff_shows_it() {
    let password = format!("{MARK}plainpw77");
    let mut servers = vec![format!(
        "    \"db\": {{\"command\": \"db-mcp\", \"env\": {{\"DB_PASSWORD\": \"{password}\"}}}}"
    )];
    let mut n = 0;
    while servers.iter().map(String::len).sum::<usize>() < 200 << 10 {
        servers.push(format!(
            "    \"pad{n}\": {{\"command\": \"pad\", \"args\": [\"{}\"]}}",
            "x".repeat(100)
        ));
        n += 1;
    }
    servers.push(format!(
        "    \"cli\": {{\"command\": \"db-cli\", \"args\": [\"--login\", \"{password}\"]}}"
    ));
    let text = format!(
        "{{\n  \"mcpServers\": {{\n{}\n  }}\n}}\n",
        servers.join(",\n")
    );
    for json in [false, true] {
        let e = Env::new();
        e.write(".cursor/mcp.json", &text);
        e.manifest(
            "owner = \"o\"\n[servers.api]\ncommand = \"api-mcp\"\n[[targets]]\nclient = \"cursor\"\n",
        );
        let fmt: &[&str] = if json { &["--format", "json"] } else { &[] };
        plan_and_apply_show_no_secret(&e, fmt, "db-cli");
    }
}

#[test]
fn a_large_file_shows_no_line_the_detector_cannot_clear() {
    // Over the 8 MiB whole-file limit, the diff's window is read line by line: the inside of
    // a multi-line string (opened far above the window) is hidden, plain lines are shown.
    let e = Env::new();
    let mut text = String::from(
        "[mcp_servers.gh]\ncommand = \"npx\"\n[mcp_servers.gh.env]\nAPI_TOKEN = \"\"\"\n",
    );
    let filler = "abcdefghij".repeat(10);
    while text.len() < (8 << 20) + 4096 {
        text.push_str(&filler);
        text.push('\n');
    }
    // The last three lines are the diff's context: the secret's last line (plain-looking
    // text inside the string), the closing quotes, and a plain line that stays visible.
    text.push_str(&format!(
        "{MARK}tail9Qz\n\"\"\"\nDEBUG = \"plain-visible\"\n"
    ));
    e.write(".codex/config.toml", &text);
    e.manifest(
        "owner = \"o\"\n[servers.api]\ncommand = \"api-mcp\"\n[[targets]]\nclient = \"codex\"\nscope = \"project\"\n",
    );
    for fmt in [&[][..], &["--format", "json"]] {
        let out = e.run(&[&["plan"][..], fmt].concat());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_output_clean("plan of a large file", &out);
        let s = String::from_utf8_lossy(&out.stdout);
        assert!(
            s.contains("plain-visible") && s.contains("<redacted>"),
            "{s}"
        );
    }
}

#[test]
fn import_turns_every_flagged_value_into_a_reference() {
    let e = Env::new();
    e.write(
        ".cursor/mcp.json",
        format!(
            "{{\"mcpServers\": {{\"api\": {{\"command\": \"npx\", \"args\": [\"--token={}\", \"-y\"], \"env\": {{\"OPENAI\": \"{}\", \"PATH\": \"/bin\", \"{}\": \"1\"}}}}, \"web\": {{\"url\": \"https://h.example/mcp?api_key={}&page=2\"}}}}}}\n",
            sk("args"),
            sk("openai"),
            sk("envkey"),
            sk("url"),
        ),
    );
    let out = e.run(&["import", "--client", "cursor"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_output_clean("import", &out);
    let manifest = String::from_utf8_lossy(&out.stdout);
    let warnings = String::from_utf8_lossy(&out.stderr);
    for (reference, var) in [
        ("\"--token=${API_TOKEN}\"", "API_TOKEN"),
        ("OPENAI = \"${OPENAI}\"", "OPENAI"),
        ("api_key=${WEB_API_KEY}&page=2", "WEB_API_KEY"),
    ] {
        assert!(manifest.contains(reference), "{reference} in\n{manifest}");
        assert!(
            warnings.contains(&format!("set {var} in the environment")),
            "{var} in\n{warnings}"
        );
    }
    assert!(
        manifest.contains("PATH = \"/bin\"") && manifest.contains("\"-y\""),
        "{manifest}"
    );
    assert!(
        warnings.contains("has the shape of a credential was dropped"),
        "{warnings}"
    );
    // The manifest it prints is one mcpconf accepts.
    fs::write(e.base.join("mcpconf.toml"), manifest.as_bytes()).unwrap();
    let out = e.run(&["plan"]);
    assert_output_clean("plan of the imported manifest", &out);

    let (code, doc) = e.json(&["import", "--client", "cursor"]);
    assert_eq!(code, 0);
    assert_clean("import --format json", doc.to_string().as_bytes());
    assert!(doc["manifest"].as_str().unwrap().contains("${OPENAI}"));
    assert_state_clean(&e, &[]);
}

#[test]
fn cannot_express_names_the_field_and_never_the_value() {
    let e = Env::new();
    let url = format!("https://h.example/mcp?api_key={}&x=${{T}}", sk("url"));
    e.manifest(&format!(
        "owner = \"o\"\n[servers.web]\nurl = \"{url}\"\n[[targets]]\nclient = \"zed\"\n"
    ));
    let out = e.run(&["plan"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_output_clean("cannot-express (text)", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error[cannot-express]") && stderr.contains("`url`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("h.example"),
        "the value is echoed: {stderr}"
    );
    let (code, doc) = e.json(&["plan"]);
    assert_eq!(code, 3);
    assert_clean("cannot-express (json)", doc.to_string().as_bytes());
    assert!(!doc.to_string().contains("h.example"), "{doc}");
    assert_state_clean(&e, &[]);
}

#[test]
fn terminal_control_bytes_from_a_file_are_escaped_in_text_output() {
    let e = Env::new();
    e.write(
        ".vscode/mcp.json",
        "{\n  // \u{1b}]0;pwned\u{7}\u{1b}[2J note\n  // admin\u{202e} \u{2066}// check\u{2069}\n  \"servers\": {\n  }\n}\n",
    );
    e.manifest(
        "owner = \"o\"\n[servers.api]\ncommand = \"api-mcp\"\n[[targets]]\nclient = \"vscode\"\n",
    );
    for args in [&["plan"][..], &["apply", "--yes"]] {
        let out = e.run(args);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let s = String::from_utf8_lossy(&out.stdout);
        assert!(
            !out.stdout.contains(&0x1b) && !out.stdout.contains(&0x07),
            "{s:?}"
        );
        assert!(s.contains("\\x1b]0;pwned\\x07\\x1b[2J note"), "{s}");
        // Bidirectional controls ("Trojan Source") are shown, not obeyed.
        assert!(
            !s.contains('\u{202e}') && !s.contains('\u{2066}') && !s.contains('\u{2069}'),
            "{s:?}"
        );
        assert!(
            s.contains("admin\\u{202e} \\u{2066}// check\\u{2069}"),
            "{s}"
        );
    }
    // The file keeps its bytes.
    assert!(e.text(".vscode/mcp.json").contains("\u{1b}]0;pwned\u{7}"));
}

#[test]
fn control_characters_in_the_manifest_are_refused_with_their_position() {
    let cases = [
        (
            "[servers.a]\nurl = \"https://h/\"\nheaders = { \"X-A\\r\\nX-B\" = \"v\" }\n",
            (4, 13),
            "header name",
        ),
        ("[servers.a]\ncommand = \"x\\u0000y\"\n", (3, 11), "NUL"),
        (
            "[servers.a]\ncommand = \"x\"\nargs = [\"a\\u0000\"]\n",
            (4, 9),
            "NUL",
        ),
        (
            "[servers.a]\nurl = \"https://h/\\nx\"\n",
            (3, 7),
            "line break",
        ),
    ];
    for (servers, (line, column), needle) in cases {
        let e = Env::new();
        e.manifest(&format!(
            "owner = \"o\"\n{servers}[[targets]]\nclient = \"cursor\"\n"
        ));
        let (code, doc) = e.json(&["plan"]);
        assert_eq!(code, 2, "{servers}: {doc}");
        let err = &doc["errors"][0];
        assert_eq!(err["code"], "manifest-error", "{doc}");
        assert_eq!(
            (err["line"].as_u64(), err["column"].as_u64()),
            (Some(line), Some(column)),
            "{servers}: {doc}"
        );
        assert!(err["message"].as_str().unwrap().contains(needle), "{doc}");
        let out = e.run(&["plan"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&format!("mcpconf.toml:{line}:{column}")),
            "{out:?}"
        );
        assert!(!e.path(".cursor").exists());
    }
}

#[test]
fn a_name_holding_an_ordinary_word_is_not_a_credential_name_for_any_output() {
    // `AUTHOR` holds `AUTH`, `TOKENIZERS` holds `TOKEN`: neither makes a value a credential,
    // for import, lint and the diff alike; a credential word beside it still does.
    let e = Env::new();
    let token = sk("author");
    let file = e.write(
        ".cursor/mcp.json",
        format!(
            "{{\"mcpServers\": {{\"git\": {{\"command\": \"git-mcp\", \"env\": {{\"GIT_AUTHOR_NAME\": \"Dev Bot\", \"TOKENIZERS_PARALLELISM\": \"false\", \"AUTHOR_TOKEN\": \"{token}\"}}}}}}}}\n"
        ),
    );
    let out = e.run(&["import", "--client", "cursor", "--owner", "team"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_output_clean("import", &out);
    let manifest = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        manifest.contains("GIT_AUTHOR_NAME = \"Dev Bot\""),
        "{manifest}"
    );
    assert!(
        manifest.contains("AUTHOR_TOKEN = \"${AUTHOR_TOKEN}\""),
        "{manifest}"
    );

    e.manifest(&manifest);
    let (_, doc) = e.json(&["lint", &file.display().to_string()]);
    let secret_findings: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"))
        .iter()
        .filter(|f| f["rule"] == "literal-secret")
        .collect();
    assert_eq!(secret_findings.len(), 1, "{doc}");
    assert!(
        secret_findings[0]["message"]
            .as_str()
            .unwrap()
            .contains("AUTHOR_TOKEN"),
        "{doc}"
    );
}
