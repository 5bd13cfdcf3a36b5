//! `mcpconf probe` on the command line (moved out of `probe.rs` unchanged).

use super::http::{loopback, respond_json};
use super::*;

pub(super) struct Cli {
    pub(super) fakes: Fakes,
    manifest: PathBuf,
}

impl Cli {
    pub(super) fn new(servers: impl FnOnce(&Fakes) -> String) -> Cli {
        let fakes = Fakes::new();
        let text = format!(
            "owner = \"t\"\n\n{}\n[[targets]]\nclient = \"cursor\"\n",
            servers(&fakes)
        );
        let manifest = fakes.dir.path().join("mcpconf.toml");
        fs::write(&manifest, text).expect("write manifest");
        Cli { fakes, manifest }
    }
    pub(super) fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_env(args, &[])
    }
    pub(super) fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let base = self.fakes.dir.path();
        let out = mcpconf_cmd()
            .envs(env.iter().copied())
            .arg("probe")
            .args(args)
            .arg("-m")
            .arg(&self.manifest)
            .arg("--root")
            .arg(base)
            .arg("--home")
            .arg(base)
            .arg("--state-dir")
            .arg(base.join("state"))
            .output()
            .expect("run mcpconf");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[test]
fn cli_exit_codes_json_and_text() {
    let cli = Cli::new(|f| {
        format!(
            "{}{}{}",
            f.server("exact", "ok", Some(&["alpha", "beta", "gamma", "delta"])),
            f.server("wide", "ok", Some(&["alpha", "omega"])),
            f.server("broken", "exit", None)
        )
    });
    // A pinned tool the server does not have fails the probe (issue 41): the seeds' smoke
    // test wants exactly its tools, in text and JSON.
    let short = Cli::new(|f| {
        f.server(
            "short",
            "ok",
            Some(&["alpha", "beta", "gamma", "delta", "omega"]),
        )
    });
    let (code, out, err) = short.run(&["--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["servers"][0]["missing"], json!(["omega"]));
    assert_eq!(v["servers"][0]["unpinned"], json!([]));
    let (code, out, _) = short.run(&[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("1 missing pinned tools"), "{out}");
    // All pass: the exact pin.
    let (code, out, err) = cli.run(&["exact"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("SERVER") && out.contains("exact") && out.contains("ok"),
        "{out}"
    );
    // Unpinned tools fail too.
    let (code, out, _) = cli.run(&["wide", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).expect("json");
    let s = &v["servers"][0];
    assert_eq!(s["ok"], true);
    assert_eq!(s["unpinned"], json!(["beta", "gamma", "delta"]));
    assert_eq!(s["missing"], json!(["omega"]));
    // Every server, in manifest order, with the contract's fields.
    let (code, out, _) = cli.run(&["--format", "json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).expect("json");
    let names: Vec<&str> = v["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["exact", "wide", "broken"]);
    for s in v["servers"].as_array().expect("servers") {
        for k in [
            "name",
            "ok",
            "protocol_version",
            "server",
            "tools",
            "unpinned",
            "missing",
            "error",
        ] {
            assert!(s.get(k).is_some(), "{k} missing in {s}");
        }
    }
    assert_eq!(v["servers"][2]["ok"], false);
    assert_eq!(v["servers"][2]["code"], "exited");
    assert!(
        v["servers"][2]["stderr"]
            .as_str()
            .unwrap_or_default()
            .contains("fatal")
    );
    // Text: the failure with its stderr tail.
    let (code, out, _) = cli.run(&["broken"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("FAIL (exited)") && out.contains("| fatal: cannot open the database"),
        "{out}"
    );
    for name in ["exact", "wide", "broken"] {
        cli.fakes.assert_gone(name);
    }
}

#[test]
fn cli_usage_errors_exit_2() {
    let cli = Cli::new(|f| f.server("browser", "ok", None));
    let (code, _, err) = cli.run(&["brwser"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no server `brwser`") && err.contains("did you mean `browser`?"),
        "{err}"
    );
    for bad in ["0", "-1", "nan", "100000"] {
        let (code, _, err) = cli.run(&["--timeout", bad]);
        assert_eq!(code, 2, "--timeout {bad}: {err}");
    }
    assert_eq!(
        cli.fakes.pid("browser"),
        None,
        "nothing started on a usage error"
    );
}

#[test]
fn cli_write_pins_prints_a_diff_and_writes_nothing() {
    let cli = Cli::new(|f| {
        format!(
            "{}{}{}",
            f.server("fresh", "ok", None),
            f.server("stale", "ok", Some(&["alpha"])),
            f.server("broken", "exit", None)
        )
    });
    let before = fs::read(&cli.manifest).expect("manifest");
    let (code, out, err) = cli.run(&["--write-pins"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        fs::read(&cli.manifest).expect("manifest"),
        before,
        "manifest untouched"
    );
    let diff = &out[out.find("--- ").expect("a diff")..];
    assert!(diff.contains("-tools = ['alpha']"), "{diff}");
    assert_eq!(diff.matches("+tools = [").count(), 2, "{diff}");
    for t in ["alpha", "beta", "gamma", "delta"] {
        assert_eq!(
            diff.matches(&format!("+    \"{t}\",")).count(),
            2,
            "{t}: {diff}"
        );
    }
    // The proposed manifest is valid and, probed again, passes for the servers that answered.
    let proposed = apply_diff(&String::from_utf8_lossy(&before), diff);
    manifest::parse(&proposed, &mcpconf::known::Known).expect("the proposal parses");
    fs::write(&cli.manifest, &proposed).expect("write");
    let (code, out, _) = cli.run(&["fresh", "stale", "--write-pins", "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["pins_diff"], "", "nothing left to propose");
}

/// Apply a unified diff of one file made by `similar` (context lines, `-` and `+`).
fn apply_diff(old: &str, diff: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let mut out = Vec::new();
    let mut at = 0;
    for line in diff.lines() {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        if let Some(h) = line.strip_prefix("@@ -") {
            let start: usize = h
                .split([',', ' '])
                .next()
                .and_then(|n| n.parse().ok())
                .expect("hunk start");
            while at + 1 < start {
                out.push(old[at].to_string());
                at += 1;
            }
        } else if let Some(l) = line.strip_prefix('+') {
            out.push(l.to_string());
        } else if line.starts_with('-') {
            at += 1;
        } else if let Some(l) = line.strip_prefix(' ') {
            out.push(l.to_string());
            at += 1;
        }
    }
    out.extend(old[at..].iter().map(|s| s.to_string()));
    out.join("\n") + "\n"
}

#[test]
fn cli_never_prints_a_literal_credential() {
    let rude = loopback(|req, s, _, _| {
        let auth = req.header("authorization").unwrap_or("").to_string();
        respond_json(
            s,
            "403 Forbidden",
            "",
            &json!({"error": {"message": format!("no entry for {auth}")}}),
        );
    });
    let url = rude.url();
    let cli = Cli::new(move |_| {
        format!(
            "[servers.api]\nurl = '{url}'\nheaders = {{ Authorization = 'Bearer lit-cred-8765' }}\n"
        )
    });
    for fmt in ["text", "json"] {
        let (code, out, err) = cli.run(&["--format", fmt]);
        assert_eq!(code, 1);
        assert!(out.contains("403"), "{out}");
        assert!(
            !out.contains("lit-cred-8765") && !err.contains("lit-cred-8765"),
            "{out}{err}"
        );
    }
}

#[test]
fn probe_client_reads_a_cursor_file_and_expands_its_references() {
    let f = Fakes::new();
    let root = f.dir.path().join("project");
    fs::create_dir_all(root.join(".cursor")).expect("mkdir");
    // Cursor spells references `${env:VAR}`: the pid file path comes from the environment.
    let doc = json!({"mcpServers": {
        "works": {
            "command": "python3",
            "args": [FAKE, "ok", Fakes::marker("works")],
            "env": {"FAKE_PID_FILE": "${env:MCPCONF_T_CURSOR_PID}"}
        },
        "broken": {"command": "mcpconf-no-such-command-4711", "args": []}
    }});
    fs::write(root.join(".cursor/mcp.json"), doc.to_string()).expect("write");
    let pid_file = f.pid_file("works");
    let run = |fmt: &str| {
        mcpconf_cmd()
            .args([
                "probe",
                "--yes",
                "--client",
                "cursor",
                "--format",
                fmt,
                "--timeout",
                "60",
            ])
            .arg("--root")
            .arg(&root)
            .arg("--home")
            .arg(f.dir.path())
            .arg("--state-dir")
            .arg(f.dir.path().join("state"))
            .env("MCPCONF_T_CURSOR_PID", &pid_file)
            .output()
            .expect("run mcpconf")
    };
    let out = run("json");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let servers = doc["servers"].as_array().cloned().unwrap_or_default();
    let by = |n: &str| {
        servers
            .iter()
            .find(|s| s["name"] == n)
            .cloned()
            .unwrap_or_else(|| panic!("{n} missing: {text}"))
    };
    let works = by("works");
    assert_eq!(works["ok"], true, "{works}");
    assert_eq!(works["tools"], json!(["alpha", "beta", "gamma", "delta"]));
    let broken = by("broken");
    assert_eq!(broken["ok"], false, "{broken}");
    assert_eq!(broken["code"], "spawn-failed", "{broken}");
    // The reference was expanded from the environment: the server wrote its pid there.
    assert!(
        f.pid("works").is_some(),
        "the expanded FAKE_PID_FILE was not used"
    );
    f.assert_gone("works");
    let out = run("text");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL (spawn-failed)"), "{text}");
    // --all-clients finds the same file under --root and names each outcome CLIENT/SERVER.
    let _ = fs::remove_file(&pid_file);
    let out = mcpconf_cmd()
        .args([
            "probe",
            "--yes",
            "--all-clients",
            "--format",
            "json",
            "--timeout",
            "60",
        ])
        .arg("--root")
        .arg(&root)
        .arg("--home")
        .arg(f.dir.path())
        .arg("--state-dir")
        .arg(f.dir.path().join("state"))
        .env("MCPCONF_T_CURSOR_PID", &pid_file)
        .output()
        .expect("run mcpconf");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let got: Vec<(String, bool)> = doc["servers"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["ok"] == true,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("cursor/works".to_string(), true),
            ("cursor/broken".to_string(), false)
        ],
        "{text}"
    );
    f.assert_gone("works");
    // A manifest is not needed; --write-pins needs one.
    let st = mcpconf_cmd()
        .args(["probe", "--client", "cursor", "--write-pins"])
        .arg("--root")
        .arg(&root)
        .output()
        .expect("run mcpconf");
    assert_eq!(st.status.code(), Some(2));
}

#[test]
fn an_interrupted_probe_kills_its_servers() {
    for (sig, name) in [(libc::SIGTERM, "term"), (libc::SIGINT, "int")] {
        let cli = Cli::new(|f| f.server(name, "sigterm-child", None));
        let base = cli.fakes.dir.path();
        let mut child = mcpconf_cmd()
            .args(["probe", "--timeout", "60", "-m"])
            .arg(&cli.manifest)
            .arg("--home")
            .arg(base)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start mcpconf");
        wait_until(
            || cli.fakes.child_pid(name).is_some_and(alive),
            "the server's child to start",
        );
        assert!(
            cli.fakes.child_pid(name).is_some(),
            "{name}: child never started"
        );
        // SAFETY: signalling the mcpconf process this test started.
        unsafe { libc::kill(child.id() as i32, sig) };
        let status = child.wait().expect("mcpconf ends");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(sig), "{name}: dies of the signal");
        cli.fakes.assert_gone(name);
    }
}

/// `--all-clients` on a machine with only some client files: absent files are not errors, the
/// tool pin Qwen's `includeTools` holds (which mcpconf writes) is read as the pin and not
/// "dropped", nothing speaks of adopting, and an entry name with terminal escapes is shown
/// escaped. Every server passes, so the exit code is 0.
#[test]
fn all_clients_skips_absent_files_reads_qwen_pins_and_escapes_names() {
    let f = Fakes::new();
    let root = f.dir.path().join("project");
    let home = f.dir.path().join("home");
    fs::create_dir_all(root.join(".cursor")).expect("mkdir");
    fs::create_dir_all(root.join(".qwen")).expect("mkdir");
    fs::create_dir_all(&home).expect("mkdir");
    let server =
        |name: &str| json!({"command": "python3", "args": [FAKE, "ok", Fakes::marker(name)]});
    let cursor =
        json!({"mcpServers": {"good": server("good"), "x\u{1b}[31mred\u{7}": server("bad")}});
    fs::write(root.join(".cursor/mcp.json"), cursor.to_string()).expect("write");
    let mut q = server("q");
    q["includeTools"] = json!(["alpha", "beta", "gamma", "delta"]);
    fs::write(
        root.join(".qwen/settings.json"),
        json!({"mcpServers": {"q": q}}).to_string(),
    )
    .expect("write");
    let out = mcpconf_cmd()
        .args(["probe", "--yes", "--all-clients", "--timeout", "60"])
        .arg("--root")
        .arg(&root)
        .arg("--home")
        .arg(&home)
        .arg("--state-dir")
        .arg(f.dir.path().join("state"))
        .output()
        .expect("run mcpconf");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stderr.contains("there is no file"), "{stderr}");
    assert!(
        !stderr.contains("dropped") && !stderr.contains("adopt"),
        "{stderr}"
    );
    assert!(
        !stderr.contains('\u{1b}')
            && !stderr.contains('\u{7}')
            && (stderr.contains("\\u{1b}") || stderr.contains("\\x1b")),
        "{stderr:?}"
    );
    assert!(
        stdout.contains("cursor/good") && stdout.contains("qwen/q"),
        "{stdout}"
    );
}

/// `--all-clients` probes every scope each client file serves (issue 41): `~/.claude.json`
/// holds Claude Code's user scope and its local scope (`projects[<root>].mcpServers`, where
/// openab's recipe writes its facade); both are probed, each named by its scope.
#[test]
fn all_clients_probes_claude_codes_local_scope_too() {
    let f = Fakes::new();
    let root = f.dir.path().join("project");
    let home = f.dir.path().join("home");
    fs::create_dir_all(&root).expect("mkdir");
    fs::create_dir_all(&home).expect("mkdir");
    let server =
        |name: &str| json!({"command": "python3", "args": [FAKE, "ok", Fakes::marker(name)]});
    let claude = json!({
        "mcpServers": {"user-srv": server("user-srv")},
        "projects": {root.display().to_string(): {"mcpServers": {"facade": server("facade")}}},
    });
    fs::write(home.join(".claude.json"), claude.to_string()).expect("write");
    let out = mcpconf_cmd()
        .args([
            "probe",
            "--yes",
            "--all-clients",
            "--format",
            "json",
            "--timeout",
            "60",
        ])
        .arg("--root")
        .arg(&root)
        .arg("--home")
        .arg(&home)
        .arg("--state-dir")
        .arg(f.dir.path().join("state"))
        .output()
        .expect("run mcpconf");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let names: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(names.iter().any(|n| n.ends_with("/facade")), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with("/user-srv")), "{names:?}");
}

/// `probe --client` / `--all-clients` start the user's commands: listed first, and without a
/// terminal to ask, nothing starts unless `--yes` (issue 41).
#[test]
fn client_probes_list_what_they_would_start_and_start_nothing_without_consent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("root");
    fs::create_dir_all(root.join(".cursor")).expect("mkdir");
    let marker = dir.path().join("started");
    let doc = json!({"mcpServers": {
        "touchy": {"command": "sh", "args": ["-c", format!("touch {}", marker.display()), "--token=sk-live-CONSENTSECRET-123456"]},
        "remote": {"url": "http://127.0.0.1:9/mcp"}
    }});
    fs::write(root.join(".cursor/mcp.json"), doc.to_string()).expect("write");
    for how in [&["--all-clients"][..], &["--client", "cursor"][..]] {
        let out = mcpconf_cmd()
            .arg("probe")
            .args(how)
            .args(["--format", "json", "--timeout", "20"])
            .arg("--root")
            .arg(&root)
            .arg("--home")
            .arg(dir.path())
            .arg("--state-dir")
            .arg(dir.path().join("state"))
            .output()
            .expect("run mcpconf");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{how:?}: {}",
            crate::common::show(&out)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("touchy: sh -c touch"), "{how:?}: {err}");
        assert!(!err.contains("CONSENTSECRET"), "{err}");
        assert!(
            !err.contains("remote"),
            "only local servers need consent: {err}"
        );
        let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(report["errors"][0]["code"], "not-confirmed", "{report}");
        assert!(!marker.exists(), "{how:?} started a server without consent");
    }
}
