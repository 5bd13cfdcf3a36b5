//! Registry servers in the manifest: `[servers.NAME]` with `registry = "io.github.acme/files"`
//! and an exact `version`, optionally `package = "npm"` or `remote = true`. The parser resolves
//! one from its record in the lock file ([`super::lock`]): the record's neutral entry, with every
//! other key of the manifest's table laid over it (`env` and `headers` key by key), then checked
//! like any other server.

use toml_edit::{InlineTable, Item, Table, Value};

use super::lock::{Lock, LockedServer};
use super::parser::Parser;
use super::{ManifestError, line_col};

/// The keys that make a server a registry server; the rest of its table overrides what the
/// registry resolved.
const REGISTRY_KEYS: &[&str] = &["registry", "version", "package", "remote"];

/// The package types a registry server can be written from.
pub const PACKAGE_TYPES: &[&str] = &["npm", "pypi", "oci", "nuget"];

/// A registry server as the manifest declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryRef {
    /// The manifest's server name.
    pub server: String,
    /// The registry name (`io.github.acme/files`).
    pub name: String,
    /// The exact version.
    pub version: String,
    /// The package type asked for (`package = "npm"`), if any.
    pub package: Option<String>,
    /// `remote = true`: the server's remote instead of a package.
    pub remote: bool,
    /// Where `registry` stands in the manifest (1-based line, column).
    pub at: (usize, usize),
}

impl RegistryRef {
    /// Whether a lock record was resolved for this declaration.
    pub fn matches(&self, l: &LockedServer) -> bool {
        l.server == self.server
            && l.name == self.name
            && l.version == self.version
            && l.remote == self.remote
            && (self.package.is_none() || l.package == self.package)
    }

    /// `io.github.acme/files 1.2.3` (and the package or remote asked for).
    pub fn describe(&self) -> String {
        let how = match (&self.package, self.remote) {
            (_, true) => " (remote)".to_string(),
            (Some(p), false) => format!(" ({p})"),
            (None, false) => String::new(),
        };
        format!("`{}` {}{how}", self.name, self.version)
    }
}

/// Whether `v` names one version (`1.2.3`, `2.0.0-beta.1`, `2024.10.1`), not a range
/// (`^1.2`, `~1`, `>=1`, `1.x`, `1.*`, `latest`, `1 - 2`, `1 || 2`).
///
/// ```
/// use mcpconf::manifest::exact_version;
/// assert!(exact_version("1.2.3") && exact_version("0.4.0-beta") && exact_version("v2"));
/// for range in ["^1.2.3", "~1.2", ">=1", "1.x", "1.*", "latest", "1 - 2", "", "1.X"] {
///     assert!(!exact_version(range), "{range}");
/// }
/// ```
pub fn exact_version(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 255
        && !v.eq_ignore_ascii_case("latest")
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_'))
        && !v
            .split(['.', '-', '+'])
            .any(|part| part.eq_ignore_ascii_case("x"))
}

/// Whether `name` is a registry name: `namespace/name`, reverse-DNS namespace, one `/`.
pub fn valid_registry_name(name: &str) -> bool {
    let Some((ns, n)) = name.split_once('/') else {
        return false;
    };
    (3..=200).contains(&name.len())
        && !ns.is_empty()
        && !n.is_empty()
        && ns
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'))
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The registry servers a manifest declares, checked but not resolved: what `mcpconf lock`
/// resolves. The rest of the manifest is not checked here.
pub fn registry_refs(text: &str) -> Result<Vec<RegistryRef>, ManifestError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc = toml_edit::Document::parse(text).map_err(|e| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        ManifestError {
            message: format!("invalid TOML: {}", e.message().trim().trim_end_matches('.')),
            line,
            column,
        }
    })?;
    let p = Parser {
        text,
        names: &NoNames,
        inputs: &[],
    };
    let mut out = Vec::new();
    if let Some(t) = doc.as_table().get("servers").and_then(Item::as_table_like) {
        for (name, item) in t.iter() {
            if let Some(t) = item.as_table_like()
                && t.contains_key("registry")
            {
                out.push(p.registry_ref(name, item, t)?);
            }
        }
    }
    Ok(out)
}

/// No clients, no rules: [`registry_refs`] checks only registry keys.
struct NoNames;

impl super::Vocabulary for NoNames {
    fn client_ids(&self) -> Vec<&'static str> {
        Vec::new()
    }
    fn client(&self, _id: &str) -> Option<super::ClientFacts> {
        None
    }
    fn check_lint_rule(&self, _id: &str) -> Result<(), crate::diag::Error> {
        Ok(())
    }
}

impl Parser<'_> {
    /// The declaration of a registry server, its keys checked.
    fn registry_ref(
        &self,
        name: &str,
        item: &Item,
        t: &dyn toml_edit::TableLike,
    ) -> Result<RegistryRef, ManifestError> {
        let place = format!("server `{name}`");
        let reg_item = t.get("registry").unwrap_or(item);
        let reg = self.string(reg_item, "registry")?;
        if !valid_registry_name(&reg) {
            return Err(self.err_item(
                reg_item,
                format!("{place}: `registry = {}` is not a registry name; it looks like `io.github.owner/server` (a namespace, one `/`, a name)", serde_json::Value::String(reg.clone())),
            ));
        }
        let Some(v_item) = t.get("version") else {
            return Err(self.err_item(
                reg_item,
                format!("{place} comes from the registry and needs an exact `version`, e.g. `version = \"1.2.3\"`"),
            ));
        };
        let version = self.string(v_item, "version")?;
        if !exact_version(&version) {
            return Err(self.err_item(
                v_item,
                format!("{place}: `version = {}` is not one exact version; a registry server is pinned to one (a range or `latest` would change under the lock)", serde_json::Value::String(version.clone())),
            ));
        }
        let package = match t.get("package") {
            None => None,
            Some(i) => {
                let p = self.string(i, "package")?;
                if !PACKAGE_TYPES.contains(&p.as_str()) {
                    return Err(self.err_item(
                        i,
                        format!(
                            "{place}: `package = {}` is not a package type mcpconf writes; use one of {}",
                            serde_json::Value::String(p.clone()),
                            PACKAGE_TYPES.join(", ")
                        ),
                    ));
                }
                Some(p)
            }
        };
        let remote = match t.get("remote") {
            None => false,
            Some(i) => i.as_bool().ok_or_else(|| {
                self.err_item(i, format!("{place}: `remote` must be true or false"))
            })?,
        };
        if remote && let Some(i) = t.get("package") {
            return Err(self.err_item(
                i,
                format!("{place}: `package` and `remote = true` exclude each other; a server runs from a package or is reached at its remote"),
            ));
        }
        let at = line_col(
            self.text,
            reg_item.span().map(|s| s.start).unwrap_or_default(),
        );
        Ok(RegistryRef {
            server: name.to_string(),
            name: reg,
            version,
            package,
            remote,
            at,
        })
    }

    /// A registry server resolved from `lock`: the record's entry with the manifest's other keys
    /// laid over it, and its declaration; `None` for a server that is not a registry server.
    pub(super) fn registry_server(
        &self,
        name: &str,
        item: &Item,
        lock: Option<&Lock>,
    ) -> Result<Option<(Item, RegistryRef)>, ManifestError> {
        let Some(t) = item.as_table_like() else {
            return Ok(None);
        };
        if !t.contains_key("registry") {
            for k in REGISTRY_KEYS {
                if let Some(i) = t.get(k) {
                    return Err(self.err_item(
                        i,
                        format!("server `{name}`: `{k}` applies only to a server from the MCP registry (`registry = \"NAME\"`)"),
                    ));
                }
            }
            return Ok(None);
        }
        let r = self.registry_ref(name, item, t)?;
        let reg_item = t.get("registry").unwrap_or(item);
        let Some(locked) = lock.and_then(|l| l.get(name)) else {
            return Err(self.err_item(
                reg_item,
                format!("server `{name}` comes from the registry ({}), and mcpconf.lock has no record of it; run `mcpconf lock` to resolve it", r.describe()),
            ));
        };
        if !r.matches(locked) {
            return Err(self.err_item(
                reg_item,
                format!(
                    "server `{name}` is {} in the manifest but `{}` {}{} in mcpconf.lock; run `mcpconf lock` to resolve it again",
                    r.describe(),
                    locked.name,
                    locked.version,
                    match (&locked.package, locked.remote) {
                        (_, true) => " (remote)".to_string(),
                        (Some(p), false) => format!(" ({p})"),
                        (None, false) => String::new(),
                    }
                ),
            ));
        }
        let mut merged = Table::new();
        if let Some(obj) = locked.entry.as_object() {
            for (k, v) in obj {
                merged.insert(k, Item::Value(crate::tomldoc::json_to_value(v)));
            }
        }
        for (k, v) in t.iter() {
            if REGISTRY_KEYS.contains(&k) {
                continue;
            }
            match (
                k,
                merged.get(k).and_then(Item::as_inline_table),
                v.as_table_like(),
            ) {
                // `env` and `headers` are laid over key by key: the manifest sets a variable or
                // a header and keeps the rest the registry gave.
                ("env" | "headers", Some(base), Some(over)) => {
                    let mut out: InlineTable = base.clone();
                    for (ok, ov) in over.iter() {
                        if let Some(val) = ov.as_value() {
                            out.insert(ok, val.clone());
                        } else {
                            // Not a string: the server check reports it at its place.
                            merged.insert(k, v.clone());
                            break;
                        }
                    }
                    if merged.get(k).and_then(Item::as_inline_table).is_some() {
                        merged.insert(k, Item::Value(Value::InlineTable(out)));
                    }
                }
                _ => {
                    merged.insert(k, v.clone());
                }
            }
        }
        if locked.package.as_deref() == Some("oci") && !t.contains_key("args") {
            pass_env_to_container(&mut merged);
        }
        // What the registry requires and gives no value for, the manifest must give.
        let missing: Vec<&str> = locked
            .required
            .iter()
            .map(String::as_str)
            .filter(|req| match req.split_once('.') {
                Some((map @ ("env" | "headers"), key)) => merged
                    .get(map)
                    .and_then(Item::as_table_like)
                    .and_then(|m| m.get(key))
                    .is_none(),
                _ => !t.contains_key(req),
            })
            .collect();
        if !missing.is_empty() {
            return Err(self.err_item(
                reg_item,
                format!(
                    "server `{name}` ({}) requires {} without a default; set {} in `[servers.{name}]`",
                    r.describe(),
                    missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", "),
                    if missing.len() == 1 { "it" } else { "them" },
                ),
            ));
        }
        Ok(Some((Item::Table(merged), r)))
    }
}

/// An OCI server's container sees only the variables `docker run` passes by name: each `env`
/// variable the manifest adds gets its `-e NAME` (after `run -i --rm`, where the lock put the
/// registry's), unless the arguments already pass it.
fn pass_env_to_container(merged: &mut Table) {
    let names: Vec<String> = merged
        .get("env")
        .and_then(Item::as_table_like)
        .map(|m| m.iter().map(|(k, _)| k.to_string()).collect())
        .unwrap_or_default();
    let Some(args) = merged.get_mut("args").and_then(Item::as_array_mut) else {
        return;
    };
    let words: Vec<String> = args
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let passed = |n: &str| {
        words
            .windows(2)
            .any(|w| w[0] == "-e" && (w[1] == n || w[1].starts_with(&format!("{n}="))))
    };
    let mut at = words
        .iter()
        .take_while(|w| matches!(w.as_str(), "run" | "-i" | "--rm"))
        .count();
    for n in names.iter().filter(|n| !passed(n)) {
        args.insert(at, "-e");
        args.insert(at + 1, n.as_str());
        at += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{lock::Lock, parse, parse_with_lock};
    use crate::known::Known;
    use crate::server::Transport;

    const LOCK: &str = r#"version = 1
[servers.files]
registry = "https://r.example"
name = "io.github.acme/files"
version = "1.2.3"
package = "npm"
digest = "sha256:ab"
required = ["env.DB_USER"]
[servers.files.entry]
command = "npx"
args = ["-y", "@acme/files@1.2.3"]
env = { API_KEY = "${API_KEY}", LOG_LEVEL = "info" }
"#;

    fn manifest(server: &str) -> String {
        format!("owner = \"o\"\n[servers.files]\n{server}\n[[targets]]\nclient = \"cursor\"\n")
    }

    #[test]
    fn an_oci_container_is_passed_every_variable_the_manifest_adds() {
        let lock = LOCK
            .replace("package = \"npm\"", "package = \"oci\"")
            .replace("command = \"npx\"", "command = \"docker\"")
            .replace(
                "args = [\"-y\", \"@acme/files@1.2.3\"]",
                "args = [\"run\", \"-i\", \"--rm\", \"-e\", \"API_KEY\", \"-e\", \"LOG_LEVEL\", \"-e\", \"DB_USER\", \"acme/files:1.2.3\"]",
            );
        let lock = Lock::parse(&lock).unwrap();
        let m = parse_with_lock(
            &manifest("registry = \"io.github.acme/files\"\nversion = \"1.2.3\"\nenv = { DB_USER = \"me\", DB_HOST = \"db\" }"),
            &Known,
            Some(&lock),
        )
        .unwrap();
        let Transport::Stdio { args, .. } = &m.servers[0].transport else {
            panic!("{:?}", m.servers[0]);
        };
        assert_eq!(
            args.iter().map(|a| a.raw.as_str()).collect::<Vec<_>>(),
            [
                "run",
                "-i",
                "--rm",
                "-e",
                "DB_HOST",
                "-e",
                "API_KEY",
                "-e",
                "LOG_LEVEL",
                "-e",
                "DB_USER",
                "acme/files:1.2.3"
            ]
        );
    }

    #[test]
    fn a_registry_server_is_its_lock_record_with_the_manifest_laid_over() {
        let lock = Lock::parse(LOCK).unwrap();
        let m = parse_with_lock(
            &manifest("registry = \"io.github.acme/files\"\nversion = \"1.2.3\"\nenv = { DB_USER = \"me\", LOG_LEVEL = \"debug\" }"),
            &Known,
            Some(&lock),
        )
        .unwrap();
        let Transport::Stdio {
            command, args, env, ..
        } = &m.servers[0].transport
        else {
            panic!("{:?}", m.servers[0]);
        };
        assert_eq!(command.raw, "npx");
        assert_eq!(
            args.iter().map(|a| a.raw.as_str()).collect::<Vec<_>>(),
            ["-y", "@acme/files@1.2.3"]
        );
        let env: Vec<(&str, &str)> = env
            .iter()
            .map(|(k, v)| (k.as_str(), v.raw.as_str()))
            .collect();
        assert_eq!(
            env,
            [
                ("API_KEY", "${API_KEY}"),
                ("LOG_LEVEL", "debug"),
                ("DB_USER", "me")
            ]
        );
        assert_eq!(m.registry[0].name, "io.github.acme/files");
        // The lock is part of the digest: the same manifest with another lock differs.
        let other = Lock::parse(&LOCK.replace("sha256:ab", "sha256:cd")).unwrap();
        let m2 = parse_with_lock(
            &manifest("registry = \"io.github.acme/files\"\nversion = \"1.2.3\"\nenv = { DB_USER = \"me\" }"),
            &Known,
            Some(&other),
        )
        .unwrap();
        let m3 = parse_with_lock(
            &manifest("registry = \"io.github.acme/files\"\nversion = \"1.2.3\"\nenv = { DB_USER = \"me\" }"),
            &Known,
            Some(&lock),
        )
        .unwrap();
        assert_ne!(m2.digest, m3.digest);
    }

    #[test]
    fn without_a_matching_record_it_says_to_run_lock() {
        let lock = Lock::parse(LOCK).unwrap();
        let text = manifest(
            "registry = \"io.github.acme/files\"\nversion = \"1.2.3\"\nenv = { DB_USER = \"me\" }",
        );
        let e = parse(&text, &Known).unwrap_err();
        assert!(e.message.contains("run `mcpconf lock`"), "{e}");
        assert_eq!((e.line, e.column), (3, 12), "{e}");
        let e = parse_with_lock(&text.replace("1.2.3", "1.2.4"), &Known, Some(&lock)).unwrap_err();
        assert!(
            e.message.contains("1.2.4") && e.message.contains("run `mcpconf lock`"),
            "{e}"
        );
        let e = parse_with_lock(
            &text.replace("version", "package = \"pypi\"\nversion"),
            &Known,
            Some(&lock),
        )
        .unwrap_err();
        assert!(e.message.contains("(pypi)"), "{e}");
    }

    #[test]
    fn required_inputs_without_a_default_must_be_given() {
        let lock = Lock::parse(LOCK).unwrap();
        let e = parse_with_lock(
            &manifest("registry = \"io.github.acme/files\"\nversion = \"1.2.3\""),
            &Known,
            Some(&lock),
        )
        .unwrap_err();
        assert!(e.message.contains("`env.DB_USER`"), "{e}");
    }

    #[test]
    fn ranges_and_stray_keys_are_refused() {
        for (server, want) in [
            (
                "registry = \"io.github.acme/files\"\nversion = \"^1.2.3\"",
                "not one exact version",
            ),
            (
                "registry = \"io.github.acme/files\"\nversion = \"latest\"",
                "not one exact version",
            ),
            (
                "registry = \"io.github.acme/files\"",
                "needs an exact `version`",
            ),
            (
                "registry = \"files\"\nversion = \"1\"",
                "not a registry name",
            ),
            (
                "registry = \"a.b/c\"\nversion = \"1\"\npackage = \"mcpb\"",
                "not a package type",
            ),
            (
                "registry = \"a.b/c\"\nversion = \"1\"\npackage = \"npm\"\nremote = true",
                "exclude each other",
            ),
            (
                "command = \"x\"\nversion = \"1\"",
                "applies only to a server from the MCP registry",
            ),
        ] {
            let e = parse(&manifest(server), &Known).unwrap_err();
            assert!(e.message.contains(want), "{server}: {e}");
        }
    }
}
