//! The clients enforce what `mcpconf policy apply` wrote (issue 42): the pinned Claude Code,
//! Codex and Gemini CLI list servers with the admin files mcpconf wrote under a system root
//! laid over `/etc` in a private mount namespace (as root: `unshare -m`, a read-only overlay;
//! nothing is left on the machine). Outside the namespace the same clients, on the same
//! files, see every server: the difference is the policy.

use super::*;

/// Applies `policy` (a `[policy]` table's body) for the world's manifest into `<base>/sys`.
fn apply_policy(w: &World, targets: &str, policy: &str) -> PathBuf {
    let sys = w.base.join("sys");
    fs::create_dir_all(&sys).unwrap();
    w.manifest(&format!("{targets}\n[policy]\n{policy}"));
    let s = sys.display().to_string();
    w.mcpconf_ok(&["apply", "--yes"]);
    w.mcpconf_ok(&["policy", "apply", "--yes", "--system-root", &s]);
    sys
}

/// Runs a client with `sys/etc` laid over `/etc`, or `None` (after saying why) where this
/// machine cannot make a private mount namespace with an overlay (not root, no `unshare`).
fn client_under(w: &World, sys: &Path, test: &str, prog: &str, args: &[&str]) -> Option<String> {
    if !crate::common::is_root() || !crate::common::have("unshare") {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: needs root and unshare(1) for a private mount namespace over /etc"
        );
        return None;
    }
    let mut c = Command::new("unshare");
    w.env(&mut c);
    c.args(["-m", "sh", "-c"])
        .arg(
            "mount --make-rprivate / && mount -t overlay overlay -o \"lowerdir=$1:/etc\" /etc || exit 97\n\
             shift\nexec \"$@\"",
        )
        .arg("sh")
        .arg(sys.join("etc"))
        .arg(w.bin.join(prog))
        .args(args)
        .current_dir(w.root());
    let out = run(c);
    if out.status.code() == Some(97) {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: this kernel or container does not allow an overlay mount over /etc:\n{}",
            show(&out)
        );
        return None;
    }
    let text = strip_ansi(&format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ));
    assert!(
        out.status.success(),
        "{prog} {args:?} under the policy:\n{text}"
    );
    Some(text)
}

fn names_in_claude_list(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter(|l| l.contains(" - ") && !l.starts_with(' ') && !l.starts_with('['))
        .filter_map(|l| l.split_once(": ").map(|(n, _)| n.to_string()))
        .collect()
}

#[test]
fn claude_code_drops_a_denied_server_and_keeps_only_the_allowed() {
    let test = "claude_code_drops_a_denied_server_and_keeps_only_the_allowed";
    let Some(bin) = bin_dir(test) else { return };
    let w = World::new(bin);
    let targets = "[[targets]]\nclient = \"claude-code\"\nscope = \"user\"\n";
    let sys = apply_policy(&w, targets, "deny = [{ name = \"remote-api\" }]\n");
    let outside = w.client("claude", &["mcp", "list"]);
    assert_eq!(
        names_in_claude_list(&outside),
        set(&["local-tool", "remote-api"]),
        "{outside}"
    );
    let Some(inside) = client_under(&w, &sys, test, "claude", &["mcp", "list"]) else {
        return;
    };
    assert_eq!(
        names_in_claude_list(&inside),
        set(&["local-tool"]),
        "{inside}"
    );

    // Exclusive: only the allowed identity (the remote URL) is left.
    let sys = apply_policy(&w, targets, "allow = [\"remote-api\"]\nexclusive = true\n");
    let inside = client_under(&w, &sys, test, "claude", &["mcp", "list"]).unwrap();
    assert_eq!(
        names_in_claude_list(&inside),
        set(&["remote-api"]),
        "{inside}"
    );

    // Prune gives /etc's files back: the clients see everything again.
    let s = sys.display().to_string();
    w.mcpconf_ok(&["policy", "prune", "--yes", "--system-root", &s]);
    let inside = client_under(&w, &sys, test, "claude", &["mcp", "list"]).unwrap();
    assert_eq!(
        names_in_claude_list(&inside),
        set(&["local-tool", "remote-api"]),
        "{inside}"
    );
}

fn codex_json(out: &str) -> Vec<Value> {
    let start = out
        .find('[')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let end = out.rfind(']').unwrap();
    serde_json::from_str::<Value>(&out[start..=end])
        .unwrap_or_else(|e| panic!("codex mcp list --json: {e}\n{out}"))
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn codex_disables_every_server_outside_the_allowed() {
    let test = "codex_disables_every_server_outside_the_allowed";
    let Some(bin) = bin_dir(test) else { return };
    let w = World::new(bin);
    let targets = "[[targets]]\nclient = \"codex\"\n";
    let sys = apply_policy(&w, targets, "allow = [\"local-tool\"]\nexclusive = true\n");
    let outside = codex_json(&w.client("codex", &["mcp", "list", "--json"]));
    assert!(
        outside.iter().all(|s| s["enabled"] == json!(true)),
        "{outside:#?}"
    );
    let Some(inside) = client_under(&w, &sys, test, "codex", &["mcp", "list", "--json"]) else {
        return;
    };
    let inside = codex_json(&inside);
    let by = |n: &str| inside.iter().find(|s| s["name"] == n).unwrap().clone();
    assert_eq!(by("local-tool")["enabled"], json!(true), "{inside:#?}");
    let remote = by("remote-api");
    assert_eq!(remote["enabled"], json!(false), "{inside:#?}");
    assert!(
        remote["disabled_reason"]
            .as_str()
            .is_some_and(|r| r.contains("requirements")),
        "{remote:#}"
    );
}

#[test]
fn gemini_blocks_an_excluded_server() {
    let test = "gemini_blocks_an_excluded_server";
    let Some(bin) = bin_dir(test) else { return };
    let w = World::new(bin);
    let targets = "[[targets]]\nclient = \"gemini\"\n";
    let sys = apply_policy(&w, targets, "deny = [{ name = \"remote-api\" }]\n");
    let line = |out: &str, name: &str| {
        out.lines()
            .find(|l| l.contains(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("{name} missing from:\n{out}"))
            .to_string()
    };
    let outside = w.client("gemini", &["mcp", "list"]);
    assert!(
        !line(&outside, "remote-api").contains("Blocked"),
        "{outside}"
    );
    let Some(inside) = client_under(&w, &sys, test, "gemini", &["mcp", "list"]) else {
        return;
    };
    assert!(line(&inside, "remote-api").contains("Blocked"), "{inside}");
    assert!(!line(&inside, "local-tool").contains("Blocked"), "{inside}");
}
