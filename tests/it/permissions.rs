//! File modes and secret hygiene (contract §5 "A new file is created with mode 0600. An
//! existing file keeps its mode … A file that would hold a literal secret is never readable by
//! group or others, not even for a moment: temp files are created 0600" and "Secrets never
//! appear in output … The ledger stores digests, never values"; reliability notes §5).
//!
//! "0600 from creation" is checked on the *mode argument* of every file-creating syscall, with
//! umask 000, so the result does not depend on the tester's umask (a tool that creates with 0666
//! and relies on umask, or that fchmods later, fails). Requires `strace`; skipped with a message
//! otherwise.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;
use serde_json::json;

const SECRET: &str = "sk-live-abcdef123456";
const ENV_SECRET: &str = "sk-live-envsecret987654";
const USER_SECRET: &str = "ghp_usersownsecret0000111122223333";

fn manifest() -> String {
    format!(
        "owner = \"perm\"\n\n\
         [servers.secretsrv]\nurl = \"https://mcp.example.com/mcp\"\n\
         headers = {{ Authorization = \"Bearer {SECRET}\" }}\n\n\
         [servers.envsrv]\ncommand = \"env-tool\"\nenv = {{ OPENAI_API_KEY = \"{ENV_SECRET}\" }}\n\n\
         [[targets]]\nclient = \"json\"\npath = \"conf/mcp.json\"\n"
    )
}

/// Runs `mcpconf argv…` under `strace -f -y` with umask 000, returning the output and the
/// parsed trace of file creations and mode changes.
fn traced_with_umask_000(scratch: &Scratch, argv: &[String]) -> (Output, Vec<Sys>) {
    let log = scratch.path().join("perm.trace");
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("umask 000; exec strace -f -qq -y -o \"$0\" -e trace=open,openat,creat,mkdir,mkdirat,chmod,fchmod,fchmodat \"$@\"")
        .arg(&log)
        .arg(bin())
        .args(argv)
        .current_dir(scratch.path())
        .env_remove(NO_LOCK_ENV);
    let out = run_bounded(c, PROCESS_TIMEOUT);
    (out, parse_strace(&read_lossy(&log)))
}

/// The quoted path argument of a traced call (first `"…"`), and the rest of the arguments.
fn quoted(args: &str) -> Option<(String, &str)> {
    let start = args.find('"')?;
    let end = start + 1 + args[start + 1..].find('"')?;
    Some((args[start + 1..end].to_string(), &args[end + 1..]))
}

/// The path strace `-y` shows for a descriptor argument such as `5</tmp/x/conf>`.
fn fd_path(arg: &str) -> Option<PathBuf> {
    let s = arg.find('<')?;
    let e = arg.rfind('>')?;
    Some(PathBuf::from(&arg[s + 1..e]))
}

fn octal(s: &str) -> Option<u32> {
    let s = s.trim();
    if s.starts_with('0') && s.chars().all(|c| c.is_digit(8)) {
        u32::from_str_radix(s, 8).ok()
    } else {
        None
    }
}

#[derive(Default, Debug)]
struct Audit {
    /// Files created inside the audited directories: (path, mode argument).
    created: Vec<(PathBuf, u32)>,
    violations: Vec<String>,
}

/// Audits a trace. `dirs` are (directory, allowed permission bits for chmods of files in it).
/// Violations: a creation (O_CREAT/O_TMPFILE/creat) in an audited directory whose mode argument
/// has any group/other bit; a mkdir anywhere whose mode argument lets group/other write; a
/// chmod of a file in an audited directory to bits beyond the allowed ones.
fn audit(calls: &[Sys], cwd: &Path, dirs: &[(PathBuf, u32)]) -> Audit {
    let mut a = Audit::default();
    let audited = |p: &Path| dirs.iter().find(|(d, _)| p.starts_with(d)).map(|(_, m)| *m);
    for c in calls {
        match c.name.as_str() {
            "open" | "openat" | "creat" => {
                let Some((path, rest)) = quoted(&c.args) else {
                    continue;
                };
                let mut path = PathBuf::from(&path);
                if path.is_relative() {
                    let base = if c.name == "openat" {
                        let dirfd = c.args.split(',').next().unwrap_or("");
                        fd_path(dirfd).unwrap_or_else(|| cwd.to_path_buf())
                    } else {
                        cwd.to_path_buf()
                    };
                    path = base.join(path);
                }
                let parts: Vec<&str> = rest
                    .trim_start_matches(',')
                    .split(',')
                    .map(str::trim)
                    .collect();
                let (creates, mode) = if c.name == "creat" {
                    (true, parts.first().and_then(|m| octal(m)))
                } else {
                    let flags = parts.first().copied().unwrap_or("");
                    (
                        flags.contains("O_CREAT") || flags.contains("O_TMPFILE"),
                        parts.get(1).and_then(|m| octal(m)),
                    )
                };
                if !creates || audited(&path).is_none() {
                    continue;
                }
                match mode {
                    Some(m) => {
                        if m & 0o077 != 0 {
                            a.violations
                                .push(format!("created with mode {m:04o}: {}", c.line));
                        }
                        a.created.push((path, m));
                    }
                    None => a
                        .violations
                        .push(format!("creation without a parsable mode: {}", c.line)),
                }
            }
            "mkdir" | "mkdirat" => {
                let Some((path, rest)) = quoted(&c.args) else {
                    continue;
                };
                let mode = rest.trim_start_matches(',').trim();
                match octal(mode) {
                    Some(m) if m & 0o022 != 0 => a.violations.push(format!(
                        "directory {path} created writable by group/other ({m:04o}): {}",
                        c.line
                    )),
                    Some(_) => {}
                    None => a.violations.push(format!("unparsable mkdir: {}", c.line)),
                }
            }
            "chmod" | "fchmod" | "fchmodat" => {
                let path = if c.name == "fchmod" {
                    fd_path(c.args.split(',').next().unwrap_or(""))
                } else {
                    quoted(&c.args).map(|(p, _)| {
                        let p = PathBuf::from(p);
                        if p.is_relative() {
                            let base = fd_path(c.args.split(',').next().unwrap_or(""))
                                .unwrap_or_else(|| cwd.to_path_buf());
                            base.join(p)
                        } else {
                            p
                        }
                    })
                };
                let mode = c
                    .args
                    .split(',')
                    .map(str::trim)
                    .filter_map(octal)
                    .next_back();
                let (Some(path), Some(mode)) = (path, mode) else {
                    a.violations.push(format!("unparsable chmod: {}", c.line));
                    continue;
                };
                if let Some(allowed) = audited(&path)
                    && mode & 0o7777 & !allowed != 0
                {
                    a.violations.push(format!(
                        "chmod widens {} to {mode:04o} (allowed {allowed:04o}): {}",
                        path.display(),
                        c.line
                    ));
                }
            }
            _ => {}
        }
    }
    a
}

fn mode_of(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// Every byte of every file under `dir`.
fn all_bytes_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(all_bytes_under(&p));
            } else {
                out.push((p.clone(), fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// No secret (nor a recognizable piece of one) anywhere in `bytes`.
fn assert_no_secret(bytes: &[u8], what: &str) {
    for s in [
        SECRET,
        ENV_SECRET,
        USER_SECRET,
        "abcdef123456",
        "envsecret987654",
    ] {
        assert!(
            !contains(bytes, s),
            "{what} contains the secret {s:?}:\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
}

fn assert_output_clean(out: &Output, what: &str) {
    assert_no_secret(&out.stdout, &format!("{what}: stdout"));
    assert_no_secret(&out.stderr, &format!("{what}: stderr"));
}

fn assert_ledger_clean(scratch: &Scratch) {
    let files = all_bytes_under(&scratch.state());
    assert!(!files.is_empty(), "no ledger was written");
    for (p, bytes) in files {
        assert_no_secret(&bytes, &format!("ledger file {}", p.display()));
    }
}

#[test]
fn new_secret_file_is_0600_from_creation_and_secrets_never_leak() {
    if !strace_or_skip("new_secret_file_is_0600_from_creation_and_secrets_never_leak") {
        return;
    }
    let scratch = Scratch::new();
    let m = scratch.manifest("m.toml", &manifest());
    let target = scratch.root().join("conf/mcp.json");
    let dir = target.parent().unwrap().to_path_buf(); // does not exist yet: apply creates it

    // plan --format json: the diff shows <redacted>, never the value.
    let out = run_bounded(
        scratch.cmd("plan", &m, &["--format", "json"]),
        PROCESS_TIMEOUT,
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_output_clean(&out, "plan --format json");
    let diff = report(&out)["files"][0]["diff"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        diff.contains("<redacted>"),
        "the plan's diff does not show <redacted>:\n{diff}"
    );

    // apply (text) under strace with umask 000.
    let mut argv = mcpconf_args("apply", &m, &scratch.root(), &scratch.state());
    argv.push("--yes".into());
    let (out, calls) = traced_with_umask_000(&scratch, &argv);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_output_clean(&out, "apply (text)");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("<redacted>"),
        "the text diff does not show <redacted>:\n{}",
        show(&out)
    );

    let state = scratch.state();
    let a = audit(
        &calls,
        scratch.path(),
        &[(dir.clone(), 0o600), (state.clone(), 0o600)],
    );
    assert!(
        a.violations.is_empty(),
        "permission audit failed:\n{:#?}",
        a.violations
    );
    assert!(
        a.created.iter().any(|(p, _)| p.starts_with(&dir)),
        "no file creation in {} was seen in the trace (the audit proved nothing): {calls:#?}",
        dir.display()
    );
    assert_eq!(mode_of(&target), 0o600, "new file mode");
    eprintln!("audited creations: {:?}", a.created);

    // The literal secret really is in the file (so the checks above are not vacuous) ...
    assert!(contains(&fs::read(&target).unwrap(), SECRET));
    assert!(contains(&fs::read(&target).unwrap(), ENV_SECRET));
    // ... and nowhere in the ledger.
    assert_ledger_clean(&scratch);

    // prune --format json: the removal diff is redacted too; nothing leaks to the ledger.
    let out = run_bounded(
        scratch.cmd("prune", &m, &["--yes", "--format", "json"]),
        PROCESS_TIMEOUT,
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_output_clean(&out, "prune --format json");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("<redacted>"),
        "{}",
        show(&out)
    );
    assert_ledger_clean(&scratch);
}

#[test]
fn existing_0640_file_keeps_its_mode_and_its_temp_is_0600() {
    if !strace_or_skip("existing_0640_file_keeps_its_mode_and_its_temp_is_0600") {
        return;
    }
    let scratch = Scratch::new();
    let m = scratch.manifest("m.toml", &manifest());
    let target = scratch.root().join("conf/mcp.json");
    let dir = target.parent().unwrap().to_path_buf();
    fs::create_dir_all(&dir).unwrap();
    let original = serde_json::to_string_pretty(&json!({
        "mcpServers": { "users-own": { "command": "npx", "args": ["-y", "x"] } }
    }))
    .unwrap();
    fs::write(&target, &original).unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();

    let mut argv = mcpconf_args("apply", &m, &scratch.root(), &scratch.state());
    argv.extend(["--yes", "--format", "json"].map(String::from));
    let (out, calls) = traced_with_umask_000(&scratch, &argv);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_output_clean(&out, "apply --format json");
    let rep = report(&out);
    assert!(
        rep["files"][0]["diff"]
            .as_str()
            .unwrap_or_default()
            .contains("<redacted>"),
        "the JSON diff does not show <redacted>:\n{}",
        show(&out)
    );

    // Temp files (in the target's dir) are created 0600; the only permitted chmod there is
    // back to the file's own 0640.
    let a = audit(
        &calls,
        scratch.path(),
        &[(dir.clone(), 0o640), (scratch.state(), 0o600)],
    );
    assert!(
        a.violations.is_empty(),
        "permission audit failed:\n{:#?}",
        a.violations
    );
    let temps: Vec<_> = a
        .created
        .iter()
        .filter(|(p, _)| p.starts_with(&dir))
        .collect();
    assert!(
        !temps.is_empty(),
        "no temp file creation seen in {}",
        dir.display()
    );
    assert!(
        temps.iter().all(|(_, m)| *m == 0o600),
        "temp files not created 0600: {temps:?}"
    );
    assert_eq!(
        mode_of(&target),
        0o640,
        "the existing file's mode was not kept"
    );
    let v = parse_json_file(&target);
    assert!(v["mcpServers"]["users-own"].is_object());
    assert!(v["mcpServers"]["secretsrv"].is_object());
    assert_ledger_clean(&scratch);
}

#[test]
fn refusal_messages_never_show_secrets() {
    // A conflict: the user already has an entry named like ours, holding their own literal
    // token. The refusal (exit 3) must explain without printing either secret.
    let scratch = Scratch::new();
    let m = scratch.manifest("m.toml", &manifest());
    let target = scratch.root().join("conf/mcp.json");
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    let original = serde_json::to_string_pretty(&json!({
        "mcpServers": {
            "secretsrv": {
                "url": "https://mcp.example.com/mcp",
                "headers": { "Authorization": format!("Bearer {USER_SECRET}") }
            }
        }
    }))
    .unwrap();
    fs::write(&target, &original).unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();

    for format in ["text", "json"] {
        for sub in ["plan", "apply"] {
            let mut extra = vec!["--format", format];
            if sub == "apply" {
                extra.push("--yes");
            }
            let out = run_bounded(scratch.cmd(sub, &m, &extra), PROCESS_TIMEOUT);
            assert_eq!(
                out.status.code(),
                Some(3),
                "{sub} --format {format}: expected a conflict refusal:\n{}",
                show(&out)
            );
            if format == "json" {
                assert!(
                    codes(&report(&out)).iter().any(|c| c == "conflict"),
                    "{}",
                    show(&out)
                );
            }
            assert_output_clean(&out, &format!("{sub} --format {format}"));
        }
    }
    assert_eq!(fs::read_to_string(&target).unwrap(), original);
    for (p, bytes) in all_bytes_under(&scratch.state()) {
        assert_no_secret(&bytes, &format!("state file {}", p.display()));
    }
}

#[test]
fn the_audit_catches_known_bad_writers() {
    // Trace lines of writers that were shown to leak (reliability notes §1.1 and §5): the
    // audit above must flag each, or it proves nothing.
    let bad = [
        // atomicwrites: a 0777 temp directory and a 0666 temp file
        "101 mkdir(\"/p/conf/.atomicwriteAbC\", 0777) = 0",
        "101 openat(AT_FDCWD, \"/p/conf/.atomicwriteAbC/tmpfile.tmp\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3",
        // atomic-write-file without .mode(0o600): dirfd-relative 0666 create
        "101 openat(4</p/conf>, \".mcp.json.Y87JXX\", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0666) = 5",
        // O_TMPFILE with a readable mode
        "101 openat(AT_FDCWD, \"/p/conf\", O_RDWR|O_TMPFILE, 0644) = 5",
        // naive File::create relying on umask
        "101 openat(AT_FDCWD, \"/p/conf/mcp.json\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3",
        "101 creat(\"/p/conf/mcp.json\", 0644) = 3",
        // widening chmods
        "101 fchmod(6</p/conf/.mcp.json.mcpconf-abc123.tmp>, 0644) = 0",
        "101 chmod(\"/p/conf/mcp.json\", 0666) = 0",
        "101 fchmodat(AT_FDCWD, \"/p/conf/mcp.json\", 0604) = 0",
    ];
    let dirs = [(PathBuf::from("/p/conf"), 0o600)];
    for line in bad {
        let a = audit(&parse_strace(line), Path::new("/p"), &dirs);
        assert_eq!(
            a.violations.len(),
            1,
            "not flagged exactly once: {line}\n{a:#?}"
        );
    }
    let good = [
        "101 openat(AT_FDCWD, \"/p/conf/.mcp.json.mcpconf-abc123.tmp\", O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600) = 6",
        "101 openat(5</p/conf>, \".mcp.json.mcpconf-abc123.tmp\", O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600) = 6",
        "101 fchmod(6</p/conf/.mcp.json.mcpconf-abc123.tmp>, 0600) = 0",
        "101 mkdir(\"/p/conf\", 0755) = 0",
        "101 openat(AT_FDCWD, \"/p/conf/mcp.json\", O_RDONLY|O_CLOEXEC) = 3",
        "101 openat(AT_FDCWD, \"/elsewhere/x\", O_WRONLY|O_CREAT, 0666) = 3",
    ];
    for line in good {
        let a = audit(&parse_strace(line), Path::new("/p"), &dirs);
        assert!(a.violations.is_empty(), "false positive: {line}\n{a:#?}");
    }
}
