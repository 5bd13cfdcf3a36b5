//! The Ansible collection (`contrib/ansible/`, module `mcpconf.mcpconf.mcpconf`) and the
//! playbook of `examples/ansible/`, run with ansible-core against localhost: the collection
//! installs from its directory, check mode writes nothing and reports the change, `--diff`
//! shows mcpconf's diffs, a run changes and a second one does not, a refusal fails the task
//! with mcpconf's code and message and leaves the file as it was, and `state: absent` (in
//! check mode first) gives back the user's file byte for byte.
//!
//! `scripts/test` installs a pinned ansible-core from PyPI into `target/ansible`; when that was
//! impossible (registry unreachable) it leaves `target/ansible.unavailable` and this test says
//! so and skips. Any other absence is a failure.
//!
//! Each run uses the `minimal` stdout callback: every task's result is printed as
//! `localhost | STATUS => {json}` (diffs before it, in diff mode), so the test reads the
//! module's own result rather than a recap.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::files;

fn ansible_bin() -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var_os("MCPCONF_ANSIBLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target/ansible/bin"));
    if dir.join("ansible-playbook").exists() {
        return Some(dir);
    }
    let marker = repo.join("target/ansible.unavailable");
    if marker.exists() {
        eprintln!(
            "SKIPPED: ansible-core could not be installed ({})",
            fs::read_to_string(marker).unwrap_or_default().trim()
        );
        return None;
    }
    panic!(
        "ansible-playbook not found in {}: run scripts/test, which installs it",
        dir.display()
    );
}

/// One task's result as the `minimal` callback prints it.
#[derive(Debug)]
struct TaskResult {
    /// `CHANGED`, `SUCCESS`, `FAILED!`, `SKIPPED`.
    status: String,
    /// The result (Null for a skipped task).
    doc: Value,
}

/// One ansible-playbook run: its stdout (diffs and results) and the results in task order.
struct Run {
    out: String,
    results: Vec<TaskResult>,
}

fn parse_results(out: &str) -> Vec<TaskResult> {
    let mut results = Vec::new();
    let mut rest = out;
    while let Some(at) = rest.find("localhost | ") {
        let line = &rest[at + "localhost | ".len()..];
        let (status, doc, next) = match line.split_once(" => ") {
            Some((status, json)) if !status.contains('\n') => {
                let mut it = serde_json::Deserializer::from_str(json).into_iter::<Value>();
                let doc = it.next().unwrap().unwrap();
                let used = it.byte_offset();
                (status.to_string(), doc, &json[used..])
            }
            _ => {
                let end = line.find('\n').unwrap_or(line.len());
                (line[..end].to_string(), Value::Null, &line[end..])
            }
        };
        results.push(TaskResult { status, doc });
        rest = next;
    }
    results
}

struct Ansible {
    bin: PathBuf,
    tmp: tempfile::TempDir,
}

impl Ansible {
    /// ansible-core, with the collection installed from `contrib/ansible` into a scratch
    /// collections path (offline: it has no dependencies).
    fn new() -> Option<Ansible> {
        let bin = ansible_bin()?;
        let tmp = tempfile::tempdir().unwrap();
        let a = Ansible { bin, tmp };
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = a
            .cmd("ansible-galaxy")
            .args(["collection", "install", "--offline", "-p"])
            .arg(a.tmp.path().join("collections"))
            .arg(repo.join("contrib/ansible"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ansible-galaxy collection install failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Some(a)
    }

    fn cmd(&self, prog: &str) -> Command {
        let t = self.tmp.path();
        let mut c = Command::new(self.bin.join(prog));
        // mcpconf runs under the module with this environment: none of the tester's settings.
        for k in crate::common::LEAKY_ENV {
            c.env_remove(k);
        }
        c.current_dir(t)
            .env_remove("ANSIBLE_CONFIG")
            .env("ANSIBLE_NOCOLOR", "1")
            .env("ANSIBLE_STDOUT_CALLBACK", "minimal")
            .env("ANSIBLE_COLLECTIONS_PATH", t.join("collections"))
            .env("ANSIBLE_HOME", t.join("ansible-home"))
            .env("ANSIBLE_LOCAL_TEMP", t.join("ansible-local"))
            .env("ANSIBLE_REMOTE_TEMP", t.join("ansible-remote"));
        c
    }

    /// Files mcpconf may touch live under `world/`; Ansible's own under the other directories.
    fn world(&self) -> PathBuf {
        self.tmp.path().join("world")
    }

    /// ansible-playbook PLAYBOOK EXTRA… against localhost; it must succeed.
    fn run(&self, playbook: &Path, extra: &[&str]) -> Run {
        let python = self.bin.join("python3");
        let out = self
            .cmd("ansible-playbook")
            .args(["-i", "localhost,", "-c", "local", "-e"])
            .arg(format!("ansible_python_interpreter={}", python.display()))
            .arg(playbook)
            .args(extra)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "ansible-playbook {extra:?} failed:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let results = parse_results(&text);
        Run { out: text, results }
    }

    /// A playbook of these tasks (YAML mappings, indented as a task's keys).
    fn playbook(&self, name: &str, tasks: &[String]) -> PathBuf {
        let mut text = String::from("- hosts: localhost\n  gather_facts: false\n  tasks:\n");
        for t in tasks {
            text.push_str("    - ");
            text.push_str(t.trim_start());
            text.push('\n');
        }
        let path = self.tmp.path().join(name);
        fs::write(&path, text).unwrap();
        path
    }

    /// A task of the module with MANIFEST's owner, STATE and extra task keywords.
    fn task(&self, manifest: &str, state: &str, keywords: &str) -> String {
        let w = self.world();
        format!(
            "mcpconf.mcpconf.mcpconf:\n        manifest: {}\n        state: {state}\n        root: {}\n        home: {}\n        state_dir: {}\n        binary: {}\n      register: r\n{keywords}",
            w.join(manifest).display(),
            w.join("root").display(),
            w.join("home").display(),
            w.join("state").display(),
            crate::common::bin()
        )
    }
}

/// The first `yaml` block under the `## HEADING` of a Markdown page.
fn yaml_block(page: &str, heading: &str) -> String {
    let section = page
        .split("\n## ")
        .find(|s| s.starts_with(heading))
        .unwrap_or_else(|| panic!("no section `{heading}`"));
    let start = section.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let len = section[start..].find("```").unwrap();
    section[start..start + len].to_string()
}

/// The module's documentation parses (`ansible-doc`) and names every option; the playbooks the
/// docs show (docs/recipes.md, contrib/ansible/README.md) parse and name the module right.
#[test]
fn ansible_docs_parse() {
    let Some(a) = Ansible::new() else { return };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = a
        .cmd("ansible-doc")
        .args(["--json", "mcpconf.mcpconf.mcpconf"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ansible-doc:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let doc = &doc["mcpconf.mcpconf.mcpconf"];
    let mut options: Vec<&str> = doc["doc"]["options"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    options.sort();
    assert_eq!(
        options,
        [
            "adopt",
            "binary",
            "home",
            "keep_going",
            "lock_timeout",
            "manifest",
            "owner",
            "profile",
            "root",
            "state",
            "state_dir",
            "take_over",
            "workspace"
        ]
    );
    for key in ["examples", "return"] {
        assert!(!doc[key].is_null(), "{key} parses");
    }
    let mut books = Vec::new();
    for (page, heading) in [
        ("docs/recipes.md", "Roll out with Ansible"),
        ("contrib/ansible/README.md", "Use"),
    ] {
        let text = fs::read_to_string(repo.join(page)).unwrap();
        let path = a.tmp.path().join(format!("book{}.yml", books.len()));
        fs::write(&path, yaml_block(&text, heading)).unwrap();
        books.push(path);
    }
    let out = a
        .cmd("ansible-playbook")
        .args(["-i", "localhost,", "--syntax-check"])
        .args(&books)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The user's own VS Code file: a comment, trailing commas, a server of their own.
const USER_FILE: &str = "{\n  // my own servers, by hand\n  \"servers\": {\n    \"mine\": { \"command\": \"my-tool\", \"args\": [\"--fast\"], },\n  },\n}\n";

const FLEET: &str = "owner = \"fleet\"\n[servers.openab]\nurl = \"http://127.0.0.1:8848/mcp\"\nheaders = { Authorization = \"Bearer ${OPENAB_SESSION_TOKEN}\" }\n[[targets]]\nclient = \"vscode\"\n[[targets]]\nclient = \"cursor\"\n";

/// Another owner wants an entry named like the user's own: a conflict in VS Code's file; Kiro's
/// file it could create.
const TEAM: &str = "owner = \"team\"\n[servers.mine]\ncommand = \"team-tool\"\n[[targets]]\nclient = \"vscode\"\n[[targets]]\nclient = \"kiro\"\n";

/// The files (relative to the world) that differ between two snapshots: added, removed or
/// rewritten.
fn differ(before: &[(PathBuf, Vec<u8>)], after: &[(PathBuf, Vec<u8>)]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = before
        .iter()
        .filter(|b| !after.contains(b))
        .chain(after.iter().filter(|a| !before.contains(a)))
        .map(|(p, _)| p.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

fn module_result(run: &Run, i: usize) -> &TaskResult {
    run.results
        .get(i)
        .unwrap_or_else(|| panic!("no result {i} in:\n{}", run.out))
}

#[test]
fn ansible_collection_check_apply_refuse_and_give_back() {
    let Some(a) = Ansible::new() else { return };
    let w = a.world();
    // --home must exist (mcpconf never creates it).
    fs::create_dir_all(w.join("home")).unwrap();
    fs::create_dir_all(w.join("root/.vscode")).unwrap();
    let vscode = w.join("root/.vscode/mcp.json");
    let cursor = w.join("root/.cursor/mcp.json");
    fs::write(&vscode, USER_FILE).unwrap();
    fs::write(w.join("fleet.toml"), FLEET).unwrap();
    fs::write(w.join("team.toml"), TEAM).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));

    // 1. The example playbook in check and diff mode: the change is reported and shown,
    //    nothing is written (no file, no ledger).
    let before = files(&w);
    let vars = format!(
        "mcpconf_manifest={} mcpconf_root={} mcpconf_home={} mcpconf_state_dir={} mcpconf_binary={}",
        w.join("fleet.toml").display(),
        w.join("root").display(),
        w.join("home").display(),
        w.join("state").display(),
        crate::common::bin()
    );
    let check = a.run(
        &repo.join("examples/ansible/site.yml"),
        &["--check", "--diff", "-e", &vars],
    );
    let r = check
        .results
        .iter()
        .find(|r| r.doc.get("cmd").is_some())
        .unwrap_or_else(|| panic!("no module result:\n{}", check.out));
    assert_eq!(r.status, "CHANGED", "{}", check.out);
    assert_eq!(r.doc["changed"], true);
    assert_eq!(r.doc["cmd"][1], "plan", "check mode runs plan");
    for shown in [
        format!("+++ {}", vscode.display()),
        "+    \"openab\": {".into(),
        "+        \"Authorization\": \"Bearer ${env:OPENAB_SESSION_TOKEN}\"".into(),
        "     \"mine\": { \"command\": \"my-tool\", \"args\": [\"--fast\"], },".into(),
        format!("--- /dev/null\n+++ {}", cursor.display()),
    ] {
        assert!(
            check.out.contains(&shown),
            "diff mode shows {shown:?}:\n{}",
            check.out
        );
    }
    assert_eq!(
        differ(&before, &files(&w)),
        Vec::<PathBuf>::new(),
        "check mode writes nothing"
    );
    assert!(!w.join("state").exists() && !w.join("root/.cursor").exists());

    // 2. Apply, then apply again: changed, then ok; no diff without --diff.
    let present = a.task("fleet.toml", "present", "");
    let apply = a.run(
        &a.playbook("apply.yml", &[present.clone(), present.clone()]),
        &[],
    );
    let (first, second) = (module_result(&apply, 0), module_result(&apply, 1));
    assert_eq!(
        (
            first.status.as_str(),
            &first.doc["changed"],
            &first.doc["cmd"][1]
        ),
        ("CHANGED", &Value::Bool(true), &Value::from("apply")),
        "{}",
        apply.out
    );
    assert_eq!(
        (second.status.as_str(), &second.doc["changed"]),
        ("SUCCESS", &Value::Bool(false)),
        "a second run changes nothing:\n{}",
        apply.out
    );
    assert!(
        !apply.out.contains("+++ "),
        "no diff without --diff:\n{}",
        apply.out
    );
    let applied = fs::read_to_string(&vscode).unwrap();
    assert!(
        applied.contains("\"openab\": {") && applied.contains("// my own servers, by hand"),
        "{applied}"
    );
    assert!(cursor.exists());
    let after_apply = files(&w);

    // 3. A refusal fails the task with mcpconf's code and message, writing nothing (in check
    //    mode with keep_going it still fails, and says the other file would be written);
    //    prune in check mode reports what it would remove and writes nothing either.
    let refusal = a.task("team.toml", "present", "      ignore_errors: true\n");
    let keep_going = a
        .task(
            "team.toml",
            "present",
            "      check_mode: true\n      ignore_errors: true\n",
        )
        .replace("state: present", "state: present\n        keep_going: true");
    let prune_check = a.task(
        "fleet.toml",
        "absent",
        "      check_mode: true\n      diff: true\n",
    );
    let run = a.run(
        &a.playbook("refuse.yml", &[refusal, keep_going, prune_check]),
        &[],
    );
    let (refused, kept, preview) = (
        module_result(&run, 0),
        module_result(&run, 1),
        module_result(&run, 2),
    );
    assert_eq!(refused.status, "FAILED!", "{}", run.out);
    assert_eq!(refused.doc["code"], "conflict", "{}", run.out);
    assert_eq!(refused.doc["rc"], 3);
    assert_eq!(refused.doc["changed"], false);
    assert_eq!(refused.doc["errors"][0]["code"], "conflict");
    let msg = refused.doc["msg"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!("error[conflict]: {}:", vscode.display()))
            && msg.contains("owner `team` did not write"),
        "mcpconf's message: {msg}"
    );
    assert_eq!(
        (
            kept.status.as_str(),
            &kept.doc["code"],
            &kept.doc["changed"]
        ),
        ("FAILED!", &Value::from("conflict"), &Value::Bool(true)),
        "keep_going in check mode: refused, and Kiro's file would be created:\n{}",
        run.out
    );
    assert!(!w.join("root/.kiro").exists());
    assert_eq!(
        (preview.status.as_str(), &preview.doc["changed"]),
        ("CHANGED", &Value::Bool(true)),
        "prune in check mode reports the change:\n{}",
        run.out
    );
    assert_eq!(preview.doc["cmd"][2], "--dry-run");
    assert!(
        run.out.contains("-    \"openab\": {")
            && run
                .out
                .contains(&format!("--- {}\n+++ /dev/null", cursor.display())),
        "the diff of prune:\n{}",
        run.out
    );
    // (A refused owner's empty lock file may appear: mcpconf takes its lock before it re-plans
    // under it, unless a refusal stopped the run earlier.)
    let now = files(&w);
    let lock_file = |p: &PathBuf| {
        p.starts_with("state/ledger")
            && p.extension().is_some_and(|e| e == "lock")
            && now.contains(&(p.clone(), Vec::new()))
    };
    let written: Vec<PathBuf> = differ(&after_apply, &now)
        .into_iter()
        .filter(|p| !lock_file(p))
        .collect();
    assert_eq!(
        written,
        Vec::<PathBuf>::new(),
        "neither task wrote anything"
    );

    // 4. state: absent gives back the user's file byte for byte and removes the file it
    //    created; a second run has nothing to do.
    let absent = a.task("fleet.toml", "absent", "");
    let prune = a.run(&a.playbook("prune.yml", &[absent.clone(), absent]), &[]);
    let (first, second) = (module_result(&prune, 0), module_result(&prune, 1));
    assert_eq!(
        (
            first.status.as_str(),
            &first.doc["changed"],
            &first.doc["cmd"][1]
        ),
        ("CHANGED", &Value::Bool(true), &Value::from("prune")),
        "{}",
        prune.out
    );
    assert_eq!(
        (second.status.as_str(), &second.doc["changed"]),
        ("SUCCESS", &Value::Bool(false)),
        "{}",
        prune.out
    );
    assert_eq!(fs::read_to_string(&vscode).unwrap(), USER_FILE);
    assert!(!cursor.exists(), "the file mcpconf created is gone");
}
