//! Servers from the MCP registry: a `server.json` document (as the registry serves it at
//! `GET /v0.1/servers/{name}/versions/{version}`) resolved into a neutral entry for the lock
//! file, and the fetch that gets it (through the probe's HTTP and TLS stack, with its
//! deadlines and size caps).
//!
//! Resolution ([`resolve`]) is pure. It never writes a secret's value: an input the document
//! marks `isSecret` becomes a `${NAME}` reference, whatever value it carries. The mapping per
//! package type:
//!
//! | `registryType` | command |
//! |---|---|
//! | `npm` | `npx -y [runtimeArguments] identifier@version [packageArguments]` |
//! | `pypi` | `uvx [runtimeArguments] identifier==version [packageArguments]` |
//! | `oci` | `docker run -i --rm [runtimeArguments] [-e NAME …] image:version [packageArguments]` |
//! | `nuget` | `dnx [runtimeArguments] identifier@version [-- packageArguments]` |
//!
//! `mcpb` packages, and packages that serve HTTP themselves, are `unsupported-package`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::diag::Code;
use crate::manifest::RegistryRef;
use crate::manifest::lock::{Lock, LockedServer};

/// The official MCP registry.
pub const DEFAULT_REGISTRY: &str = "https://registry.modelcontextprotocol.io";

/// The largest `server.json` answer read (a server document is a few KiB).
pub const MAX_DOCUMENT: usize = 4 << 20;

/// A registry server that could not be resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistryError {
    /// `registry-error`, `not-found` or `unsupported-package`.
    pub code: Code,
    /// The manifest's server name.
    pub server: String,
    /// One sentence: what is wrong and what to do.
    pub message: String,
}

impl std::fmt::Display for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "server `{}`: {}", self.server, self.message)
    }
}

impl std::error::Error for RegistryError {}

/// How to reach the registry.
#[derive(Debug, Clone)]
pub struct Options {
    /// Its base URL (`--registry`, `MCPCONF_REGISTRY`, else [`DEFAULT_REGISTRY`]).
    pub registry: String,
    /// The deadline of each request.
    pub timeout: Duration,
    /// Extra CA certificates for https (`--cacert`).
    pub cacert: Option<PathBuf>,
    /// The proxies (`--proxy`, `HTTPS_PROXY`, …; [`crate::probe::Proxies::default`]: none).
    pub proxy: crate::probe::Proxies,
}

/// The request path of one server version: `/v0.1/servers/{name}/versions/{version}`, both
/// percent-encoded.
pub fn version_path(name: &str, version: &str) -> String {
    format!(
        "/v0.1/servers/{}/versions/{}",
        percent(name),
        percent(version)
    )
}

fn percent(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Fetch and resolve every registry server of a manifest into a lock (in manifest order).
/// Stops at the first server that fails.
pub fn lock(refs: &[RegistryRef], opts: &Options) -> Result<Lock, RegistryError> {
    let mut lock = Lock::default();
    for r in refs {
        let base = opts.registry.trim_end_matches('/');
        let url = format!("{base}{}", version_path(&r.name, &r.version));
        let err = |code, message: String| RegistryError {
            code,
            server: r.server.clone(),
            message,
        };
        let (status, body) = crate::probe::fetch::get(
            &url,
            opts.timeout,
            (opts.cacert.clone(), &opts.proxy),
            MAX_DOCUMENT,
        )
        .map_err(|e| {
            err(
                Code::RegistryError,
                format!(
                    "the registry at {base} could not be asked for {}: {e}",
                    r.describe()
                ),
            )
        })?;
        match status {
            200 => {}
            404 => {
                return Err(err(
                    Code::NotFound,
                    format!(
                        "the registry at {base} has no {} (HTTP 404); check the name and the version",
                        r.describe()
                    ),
                ));
            }
            s => {
                return Err(err(
                    Code::RegistryError,
                    format!(
                        "the registry at {base} answered HTTP {s} for {}",
                        r.describe()
                    ),
                ));
            }
        }
        let doc: Value = serde_json::from_slice(&body).map_err(|e| {
            err(
                Code::RegistryError,
                format!(
                    "the registry's answer for {} is not JSON (line {}, column {})",
                    r.describe(),
                    e.line(),
                    e.column()
                ),
            )
        })?;
        lock.servers.push(resolve(&doc, r, base)?);
    }
    Ok(lock)
}

/// Resolve a registry answer (a `server.json`, or the API's `{"server": …}` wrapping of one)
/// for the declaration `r` into a lock record.
///
/// ```
/// use mcpconf::manifest::registry_refs;
///
/// let refs = registry_refs("[servers.files]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\n").unwrap();
/// let doc = serde_json::json!({
///     "name": "io.github.acme/files", "version": "1.2.3", "description": "files",
///     "packages": [{
///         "registryType": "npm", "identifier": "@acme/files", "version": "1.2.3",
///         "transport": {"type": "stdio"},
///         "environmentVariables": [{"name": "API_KEY", "isSecret": true, "isRequired": true}]
///     }]
/// });
/// let locked = mcpconf::registry::resolve(&doc, &refs[0], "https://registry.example").unwrap();
/// assert_eq!(locked.entry, serde_json::json!({
///     "command": "npx", "args": ["-y", "@acme/files@1.2.3"], "env": {"API_KEY": "${API_KEY}"}
/// }));
/// ```
pub fn resolve(
    doc: &Value,
    r: &RegistryRef,
    registry: &str,
) -> Result<LockedServer, RegistryError> {
    let server = doc.get("server").filter(|s| s.is_object()).unwrap_or(doc);
    let Some(obj) = server.as_object() else {
        return Err(malformed(r, "it is not an object"));
    };
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed(r, "no `name`"))?;
    let version = obj
        .get("version")
        .or_else(|| obj.get("version_detail").and_then(|v| v.get("version")))
        .and_then(Value::as_str)
        .ok_or_else(|| malformed(r, "no `version`"))?;
    if name != r.name || version != r.version {
        return Err(refused(
            r,
            Code::RegistryError,
            format!(
                "the registry answered with {} {} when asked for {}",
                json_str(name),
                json_str(version),
                r.describe()
            ),
        ));
    }
    let digest = format!(
        "sha256:{}",
        crate::text::hex(&Sha256::digest(server.to_string().as_bytes()))
    );
    let mut required = Vec::new();
    let (package, entry) = if r.remote {
        (None, remote_of(obj, r, &mut required)?)
    } else {
        let (kind, entry) = package_of(obj, r, &mut required)?;
        (Some(kind), entry)
    };
    check_entry(r, &entry)?;
    Ok(LockedServer {
        server: r.server.clone(),
        registry: registry.to_string(),
        name: r.name.clone(),
        version: r.version.clone(),
        package,
        remote: r.remote,
        digest,
        required,
        entry,
    })
}

/// An error about the server `r` asks for.
fn refused(r: &RegistryRef, code: Code, message: String) -> RegistryError {
    RegistryError {
        code,
        server: r.server.clone(),
        message,
    }
}

/// The registry's document for `r` is not what the registry's schema says (`what`).
fn malformed(r: &RegistryRef, what: &str) -> RegistryError {
    refused(
        r,
        Code::RegistryError,
        format!(
            "the registry's document for {} is malformed: {what}",
            r.describe()
        ),
    )
}

/// The entry of the server's remote (`remote = true`): the streamable-HTTP one, else the
/// first.
fn remote_of(
    obj: &Map<String, Value>,
    r: &RegistryRef,
    required: &mut Vec<String>,
) -> Result<Value, RegistryError> {
    let remotes = obj
        .get("remotes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let remote = remotes
        .iter()
        .find(|x| transport_type(x) == Some("streamable-http"))
        .or_else(|| remotes.first())
        .ok_or_else(|| {
            refused(
                r,
                Code::UnsupportedPackage,
                format!(
                    "{} has no remote; leave out `remote = true` to run one of its packages",
                    r.describe()
                ),
            )
        })?;
    remote_entry(remote, required).map_err(|m| malformed(r, &m))
}

/// The package type and entry of the server's package: the one `r` names, else the first
/// mcpconf can write.
fn package_of(
    obj: &Map<String, Value>,
    r: &RegistryRef,
    required: &mut Vec<String>,
) -> Result<(String, Value), RegistryError> {
    let packages = obj
        .get("packages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ty = |p: &Value| {
        p.get("registryType")
            .or_else(|| p.get("registry_type"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let chosen = match &r.package {
        Some(want) => packages.iter().find(|p| &ty(p) == want),
        None => packages
            .iter()
            .find(|p| crate::manifest::PACKAGE_TYPES.contains(&ty(p).as_str())),
    };
    let Some(p) = chosen else {
        let have: Vec<String> = packages.iter().map(ty).collect();
        return Err(no_package(obj, r, &have));
    };
    let kind = ty(p);
    let id = text(p, "identifier").unwrap_or("");
    if let Some(why) = check::package(id, text(p, "version")) {
        return Err(refused(
            r,
            Code::UnsupportedPackage,
            format!(
                "the `{kind}` package of {} cannot be run as the registry gives it: {why}",
                r.describe()
            ),
        ));
    }
    if let Some(t) = transport_type(p).filter(|t| *t != "stdio") {
        return Err(refused(
            r,
            Code::UnsupportedPackage,
            format!(
                "the `{kind}` package of {} serves `{t}` itself: a client entry cannot both start it and reach it; start it yourself and declare its `url`",
                r.describe()
            ),
        ));
    }
    let entry = package_entry(p, &kind, required).map_err(|m| malformed(r, &m))?;
    Ok((kind, entry))
}

/// No package `r` can use among the server's (of the types `have`): what there is instead.
fn no_package(obj: &Map<String, Value>, r: &RegistryRef, have: &[String]) -> RegistryError {
    let remotes = obj
        .get("remotes")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    let mut message = match (&r.package, have.is_empty()) {
        (Some(want), false) => format!(
            "{} has no `{want}` package (it has {})",
            r.describe(),
            have.join(", ")
        ),
        (_, true) => format!("{} has no package", r.describe()),
        (None, false) => format!(
            "{} has no package mcpconf can write (it has {}; mcpconf writes {})",
            r.describe(),
            have.join(", "),
            crate::manifest::PACKAGE_TYPES.join(", ")
        ),
    };
    if remotes {
        message.push_str("; it has a remote: set `remote = true`");
    }
    refused(r, Code::UnsupportedPackage, message)
}

/// The entry made of the registry's document must pass what mcpconf checks of any entry,
/// and hold no credential.
fn check_entry(r: &RegistryRef, entry: &Value) -> Result<(), RegistryError> {
    if let Some(why) = check::names(entry) {
        return Err(refused(
            r,
            Code::RegistryError,
            format!(
                "the registry's entry for {} is refused: {why}",
                r.describe()
            ),
        ));
    }
    // The lock holds references only: a credential the registry wrote into a value not marked
    // secret (a URL's password, an `sk-…` default) refuses the lock, named by its field.
    if let Some(field) = check::credential(entry) {
        return Err(refused(
            r,
            Code::RegistryError,
            format!(
                "the registry's entry for {} holds what looks like a credential in `{field}` (the value is not shown); mcpconf never writes a credential into mcpconf.lock: set that field in `[servers.{}]` (a `${{VAR}}` reference), or ask the server's publisher to mark the input `isSecret`",
                r.describe(),
                r.server
            ),
        ));
    }
    Ok(())
}

fn json_str(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn transport_type(v: &Value) -> Option<&str> {
    v.get("transport")
        .and_then(|t| t.get("type"))
        .or_else(|| v.get("type"))
        .or_else(|| v.get("transport_type"))
        .and_then(Value::as_str)
}

/// A field of an input in either spelling of the schema (camelCase since 2025-09-29,
/// snake_case before).
fn field<'a>(v: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    v.get(camel).or_else(|| v.get(snake))
}

fn flag(v: &Value, camel: &str, snake: &str) -> bool {
    field(v, camel, snake)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `NAME` as an environment variable name: letters, digits and `_`, upper case.
fn env_name(name: &str) -> String {
    crate::text::env_var_name(name)
}

/// A literal as manifest text: `$${` for a literal `${`, so that text from the registry is
/// never read as a reference.
fn literal(s: &str) -> String {
    s.replace("${", "$${")
}

/// The value of an input: its fixed `value` (with `{variables}` substituted), else its
/// `default`; a secret, or an input without either, becomes a `${NAME}` reference. `None` for an
/// optional input without a value.
fn input_value(input: &Value, name: &str) -> Option<String> {
    // A secret is a reference whatever the registry put in it: a value, a default, a value
    // with `{variables}` (`Bearer <secret> {tenant}` was once written literally).
    if flag(input, "isSecret", "is_secret") {
        return Some(format!("${{{}}}", env_name(name)));
    }
    if let Some(v) = text(input, "value") {
        let vars = input.get("variables").and_then(Value::as_object);
        return Some(substitute(v, vars));
    }
    text(input, "default").map(literal)
}

/// `{var}` in `value` replaced from `vars`: a secret, or a variable without a value or default,
/// as a `${VAR}` reference; an unknown `{name}` stays as it is (the schema says so).
fn substitute(value: &str, vars: Option<&Map<String, Value>>) -> String {
    // Literal text is gathered in runs and escaped whole, so that a `$` before a `{name}` that
    // stays as it is still reads as a literal `${`.
    let mut out = String::new();
    let mut run = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('{') {
        run.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match (after.find('}'), vars) {
            (Some(j), Some(vars)) if vars.contains_key(&after[..j]) => {
                let var = &vars[&after[..j]];
                let known = if flag(var, "isSecret", "is_secret") {
                    None
                } else {
                    text(var, "value").or_else(|| text(var, "default"))
                };
                match known {
                    Some(v) => run.push_str(v),
                    None => {
                        out.push_str(&literal(&std::mem::take(&mut run)));
                        out.push_str(&format!("${{{}}}", env_name(&after[..j])));
                    }
                }
                rest = &after[j + 1..];
            }
            _ => {
                run.push('{');
                rest = after;
            }
        }
    }
    run.push_str(rest);
    out.push_str(&literal(&run));
    out
}

/// Arguments (`runtimeArguments` or `packageArguments`) as command-line words: a positional
/// one's value; a named one as `--flag value`, or the flag alone when it has no value and is
/// required (a switch). A required argument without a value or default is recorded in
/// `required` as `args` (the manifest must then give `args`).
fn arguments(list: Option<&Value>, out: &mut Vec<String>, required: &mut Vec<String>) {
    for a in list.and_then(Value::as_array).into_iter().flatten() {
        let hint = text(a, "valueHint").or_else(|| text(a, "value_hint"));
        let req = flag(a, "isRequired", "is_required");
        match text(a, "type") {
            Some("named") => {
                let Some(name) = text(a, "name") else {
                    continue;
                };
                let has = a.get("value").is_some()
                    || a.get("default").is_some()
                    || flag(a, "isSecret", "is_secret");
                if has {
                    out.push(literal(name));
                    out.extend(input_value(a, name.trim_start_matches('-')));
                } else if req {
                    out.push(literal(name));
                }
            }
            _ => {
                let has = a.get("value").is_some()
                    || a.get("default").is_some()
                    || flag(a, "isSecret", "is_secret");
                if has {
                    out.extend(input_value(a, hint.unwrap_or("ARG")));
                } else if req && !required.iter().any(|r| r == "args") {
                    required.push("args".into());
                }
            }
        }
    }
}

/// Environment variables as `env`, and the required ones without a value in `required`.
fn environment(list: Option<&Value>, env: &mut Map<String, Value>, required: &mut Vec<String>) {
    for e in list.and_then(Value::as_array).into_iter().flatten() {
        let Some(name) = text(e, "name") else {
            continue;
        };
        match input_value(e, name) {
            Some(v) => {
                env.insert(name.to_string(), Value::String(v));
            }
            None if flag(e, "isRequired", "is_required") => required.push(format!("env.{name}")),
            None => {}
        }
    }
}

/// The names of the environment variables a package declares with a value, a default, as a
/// secret or as required (then the manifest supplies it), in order, once each: an optional
/// variable nobody gives is not passed.
fn declared_env(p: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for e in field(p, "environmentVariables", "environment_variables")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let given = e.get("value").is_some()
            || e.get("default").is_some()
            || flag(e, "isSecret", "is_secret")
            || flag(e, "isRequired", "is_required");
        if let Some(n) = text(e, "name")
            && given
            && !names.iter().any(|x| x == n)
        {
            names.push(n.to_string());
        }
    }
    names
}

fn package_entry(p: &Value, kind: &str, required: &mut Vec<String>) -> Result<Value, String> {
    let id = text(p, "identifier")
        .filter(|s| !s.is_empty())
        .ok_or("a package has no `identifier`")?;
    let version = text(p, "version");
    let mut env = Map::new();
    environment(
        field(p, "environmentVariables", "environment_variables"),
        &mut env,
        required,
    );
    let mut args: Vec<String> = Vec::new();
    let mut runtime = Vec::new();
    arguments(
        field(p, "runtimeArguments", "runtime_arguments"),
        &mut runtime,
        required,
    );
    let mut package = Vec::new();
    arguments(
        field(p, "packageArguments", "package_arguments"),
        &mut package,
        required,
    );
    let need_version = || {
        version
            .filter(|v| !v.is_empty())
            .ok_or("a package has no `version`")
    };
    let command = match kind {
        "npm" => {
            args.push("-y".into());
            args.extend(runtime);
            args.push(literal(&format!("{id}@{}", need_version()?)));
            args.extend(package);
            "npx"
        }
        "pypi" => {
            args.extend(runtime);
            args.push(literal(&format!("{id}=={}", need_version()?)));
            args.extend(package);
            "uvx"
        }
        "nuget" => {
            args.extend(runtime);
            args.push(literal(&format!("{id}@{}", need_version()?)));
            if !package.is_empty() {
                args.push("--".into());
                args.extend(package);
            }
            "dnx"
        }
        "oci" => {
            args.extend(["run", "-i", "--rm"].map(String::from));
            args.extend(runtime);
            // The container sees only the variables passed to it by name: every variable the
            // package declares, those the manifest must supply included (`-e NAME` passes the
            // client's value through).
            for k in declared_env(p) {
                args.push("-e".into());
                args.push(literal(&k));
            }
            let last = id.rsplit('/').next().unwrap_or(id);
            let image = match version {
                Some(v) if !v.is_empty() && !last.contains(':') && !id.contains('@') => {
                    format!("{id}:{v}")
                }
                _ => id.to_string(),
            };
            args.push(literal(&image));
            args.extend(package);
            "docker"
        }
        other => return Err(format!("package type `{other}`")),
    };
    let mut entry = Map::new();
    entry.insert("command".into(), json!(command));
    entry.insert("args".into(), json!(args));
    if !env.is_empty() {
        entry.insert("env".into(), Value::Object(env));
    }
    Ok(Value::Object(entry))
}

fn remote_entry(remote: &Value, required: &mut Vec<String>) -> Result<Value, String> {
    let url = text(remote, "url").ok_or("a remote has no `url`")?;
    let vars = remote.get("variables").and_then(Value::as_object);
    let mut entry = Map::new();
    entry.insert("url".into(), json!(substitute(url, vars)));
    let mut headers = Map::new();
    for h in remote
        .get("headers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = text(h, "name") else {
            continue;
        };
        match input_value(h, name) {
            Some(v) => {
                headers.insert(name.to_string(), Value::String(v));
            }
            None if flag(h, "isRequired", "is_required") => {
                required.push(format!("headers.{name}"))
            }
            None => {}
        }
    }
    if !headers.is_empty() {
        entry.insert("headers".into(), Value::Object(headers));
    }
    if transport_type(remote) == Some("sse") {
        entry.insert("transport".into(), json!("sse"));
    }
    Ok(Value::Object(entry))
}

mod check;

#[cfg(test)]
mod tests;
