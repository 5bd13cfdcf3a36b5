//! Process-level concurrency tests (contract §5 "Concurrent mcpconf processes writing the same
//! file are serialized by a lock, so no update is ever lost; the lock works whatever
//! `--state-dir` each process uses"; reliability notes §2 and §4).
//!
//! * 64 processes with distinct owners, distinct servers and distinct state directories apply to
//!   one `json`-client file at the same instant: every one must succeed and every entry (plus the
//!   user's own entry) must be in the file, and every owner's ledger must hold its record.
//! * The same run with locking disabled (`MCPCONF_TEST_NO_LOCK=1`) must lose an entry or fail a
//!   process in at least one of a few rounds: this proves the first test can fail.
//! * Processes whose manifests list two files in opposite orders must not deadlock.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{Value, json};

const WRITERS: usize = 64;

/// The user's own entry, which no owner may touch.
fn user_entry() -> Value {
    json!({ "command": "users-own-tool", "args": ["--keep", "me"], "env": { "LEVEL": "3" } })
}

/// The entry the `json` client writes for `simple_manifest(owner, server, …)`.
fn expected_entry(owner: &str, server: &str) -> Value {
    json!({ "command": format!("{server}-bin"), "args": ["serve", "--owner", owner] })
}

/// An existing client file with the user's entry and some unrelated data (~40 KB, so each
/// apply spends measurable time between reading and writing).
fn initial_file() -> String {
    let mut other = serde_json::Map::new();
    for i in 0..400 {
        other.insert(
            format!("project-{i:04}"),
            json!({ "history": ["x".repeat(60)], "trusted": i % 2 == 0, "n": i }),
        );
    }
    let v = json!({
        "mcpServers": { "users-own": user_entry() },
        "theme": "dark",
        "projects": Value::Object(other),
    });
    serde_json::to_string_pretty(&v).unwrap() + "\n"
}

/// Spawns `mcpconf args…` behind a gate: the child is a shell blocked in `read` on its stdin
/// until the test writes a newline, then it `exec`s mcpconf. Releasing all gates in one loop
/// starts the writers (nearly) at the same instant, after all the fork/exec cost is paid.
fn spawn_gated(args: &[String], no_lock: bool) -> Child {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("read _gate; exec \"$0\" \"$@\"")
        .arg(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if no_lock {
        c.env(NO_LOCK_ENV, "1");
    } else {
        c.env_remove(NO_LOCK_ENV);
    }
    c.spawn().expect("spawn sh")
}

fn release(children: &mut [(String, Child)]) {
    let mut gates: Vec<_> = children
        .iter_mut()
        .map(|(_, c)| c.stdin.take().expect("piped stdin"))
        .collect();
    for g in &mut gates {
        g.write_all(b"\n").expect("release gate");
    }
    drop(gates); // EOF afterwards: mcpconf never waits for input with --yes
}

struct RoundResult {
    outputs: Vec<(String, Output)>,
    file: PathBuf,
    manifests: BTreeMap<String, (PathBuf, PathBuf)>, // owner -> (manifest, state dir)
    scratch: Scratch,
}

/// One round: `WRITERS` owners apply to the same file at once.
fn concurrent_round(no_lock: bool, tag: &str) -> RoundResult {
    let scratch = Scratch::new();
    let file = scratch.root().join("shared").join("mcp.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, initial_file()).unwrap();

    let mut manifests = BTreeMap::new();
    let mut children = Vec::new();
    for i in 0..WRITERS {
        let owner = format!("own{i:02}");
        let server = format!("srv{i:02}");
        let m = scratch.manifest(
            &format!("{owner}.toml"),
            &simple_manifest(&owner, &server, "shared/mcp.json"),
        );
        // A distinct state directory per process: the lock must not depend on it.
        let state = scratch.path().join(format!("state-{owner}"));
        let mut args = mcpconf_args("apply", &m, &scratch.root(), &state);
        args.extend(["--yes", "--format", "json", "--lock-timeout", "60"].map(String::from));
        children.push((owner.clone(), spawn_gated(&args, no_lock)));
        manifests.insert(owner, (m, state));
    }
    release(&mut children);
    let started = Instant::now();
    let outputs = wait_all(children, Duration::from_secs(120));
    eprintln!(
        "{tag}: {WRITERS} concurrent applies finished in {:?}",
        started.elapsed()
    );
    RoundResult {
        outputs,
        file,
        manifests,
        scratch,
    }
}

fn servers_of(file: &Path) -> serde_json::Map<String, Value> {
    let v = parse_json_file(file);
    v["mcpServers"]
        .as_object()
        .unwrap_or_else(|| panic!("mcpServers is not an object in {}", file.display()))
        .clone()
}

#[test]
fn concurrent_applies_of_distinct_owners_lose_no_update() {
    let r = concurrent_round(false, "locked");

    for (owner, out) in &r.outputs {
        assert_eq!(
            code(&out.status, owner),
            0,
            "writer {owner} failed:\n{}",
            show(out)
        );
        let rep = report(out);
        assert!(
            codes(&rep).is_empty(),
            "writer {owner} reported errors:\n{}",
            show(out)
        );
        assert_eq!(rep["owner"], json!(owner), "{}", show(out));
    }

    let v = parse_json_file(&r.file);
    let servers = servers_of(&r.file);
    assert_eq!(
        servers.get("users-own"),
        Some(&user_entry()),
        "the user's own entry was changed or lost"
    );
    assert_eq!(v["theme"], json!("dark"), "an unrelated key was lost");
    assert_eq!(
        v["projects"].as_object().map(|o| o.len()),
        Some(400),
        "unrelated data was lost"
    );
    let mut missing = Vec::new();
    for i in 0..WRITERS {
        let (owner, server) = (format!("own{i:02}"), format!("srv{i:02}"));
        match servers.get(&server) {
            Some(e) => assert_eq!(e, &expected_entry(&owner, &server), "entry {server}"),
            None => missing.push(server),
        }
    }
    assert!(
        missing.is_empty(),
        "lost updates: {missing:?} missing from the file"
    );
    assert_eq!(
        servers.len(),
        WRITERS + 1,
        "unexpected entries: {:?}",
        servers.keys().collect::<Vec<_>>()
    );
    assert!(
        temps_in(r.file.parent().unwrap()).is_empty(),
        "temp files left behind"
    );

    // Every owner's ledger (each in its own state dir) holds exactly its record, intact.
    for (i, (owner, (m, state))) in r.manifests.iter().enumerate() {
        let recs = status_records(&r.scratch, m, state);
        assert_eq!(
            recs,
            vec![(format!("srv{i:02}"), "intact".to_string())],
            "ledger of {owner}"
        );
    }
}

#[test]
fn no_lock_control_loses_updates_or_fails() {
    // Proves that the test above can fail: without the lock, concurrent read-modify-write
    // cycles collide. The tool detects most collisions (exit 4, concurrent-modification), and a
    // plain rename would silently lose them; either outcome counts as "the test would fail".
    const ROUNDS: usize = 4;
    let mut observed = Vec::new();
    for round in 0..ROUNDS {
        let r = concurrent_round(true, &format!("no-lock round {round}"));
        let failed: Vec<&String> = r
            .outputs
            .iter()
            .filter(|(_, o)| o.status.code() != Some(0))
            .map(|(l, _)| l)
            .collect();
        // Even without the lock every write is atomic: the file parses and the user's entry,
        // present in every version, survives.
        let servers = servers_of(&r.file);
        assert_eq!(servers.get("users-own"), Some(&user_entry()));
        let present = (0..WRITERS)
            .filter(|i| servers.contains_key(&format!("srv{i:02}")))
            .count();
        let silently_lost: Vec<&String> = r
            .outputs
            .iter()
            .filter(|(l, o)| {
                o.status.code() == Some(0) && !servers.contains_key(&l.replacen("own", "srv", 1))
            })
            .map(|(l, _)| l)
            .collect();
        eprintln!(
            "no-lock round {round}: {present}/{WRITERS} entries present, {} writers failed, \
             {} exited 0 but their entry is missing",
            failed.len(),
            silently_lost.len()
        );
        observed.push((present, failed.len()));
        if present < WRITERS || !failed.is_empty() {
            return;
        }
    }
    panic!(
        "without the lock, {ROUNDS} rounds of {WRITERS} concurrent writers neither lost an update \
         nor failed ({observed:?}): the concurrency test cannot tell a lock from no lock"
    );
}

#[test]
fn opposite_target_orders_do_not_deadlock() {
    // Half of the writers list `a/mcp.json` then `b/mcp.json`, the other half the reverse. With
    // blocking per-file locks taken in manifest order this deadlocks until --lock-timeout (exit
    // 4) or forever (the overall timeout below fails the test).
    const PER_ROUND: usize = 8;
    const ROUNDS: usize = 3;
    let scratch = Scratch::new();
    let root = scratch.root();
    for d in ["a", "b"] {
        fs::create_dir_all(root.join(d)).unwrap();
        fs::write(
            root.join(d).join("mcp.json"),
            serde_json::to_string_pretty(&json!({ "mcpServers": { "users-own": user_entry() } }))
                .unwrap(),
        )
        .unwrap();
    }
    let started = Instant::now();
    let mut owners = Vec::new();
    for round in 0..ROUNDS {
        let mut children = Vec::new();
        for i in 0..PER_ROUND {
            let owner = format!("r{round}w{i}");
            let (first, second) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
            let text = format!(
                "owner = \"{owner}\"\n\n[servers.{owner}-srv]\ncommand = \"x\"\n\n\
                 [[targets]]\nclient = \"json\"\npath = \"{first}/mcp.json\"\n\n\
                 [[targets]]\nclient = \"json\"\npath = \"{second}/mcp.json\"\n"
            );
            let m = scratch.manifest(&format!("{owner}.toml"), &text);
            let mut args = mcpconf_args("apply", &m, &root, &scratch.state());
            args.extend(["--yes", "--format", "json", "--lock-timeout", "30"].map(String::from));
            children.push((owner.clone(), spawn_gated(&args, false)));
            owners.push(owner);
        }
        release(&mut children);
        for (owner, out) in wait_all(children, Duration::from_secs(90)) {
            assert_eq!(
                code(&out.status, &owner),
                0,
                "writer {owner} failed (a lock-timeout here means a lock-order deadlock):\n{}",
                show(&out)
            );
        }
    }
    eprintln!(
        "{} opposite-order writers finished in {:?}",
        owners.len(),
        started.elapsed()
    );
    for d in ["a", "b"] {
        let servers = servers_of(&root.join(d).join("mcp.json"));
        assert_eq!(servers.get("users-own"), Some(&user_entry()));
        for owner in &owners {
            assert!(
                servers.contains_key(&format!("{owner}-srv")),
                "{owner}-srv missing from {d}/mcp.json"
            );
        }
        assert_eq!(servers.len(), owners.len() + 1);
    }
}
