//! `mcpconf lock`: resolve the manifest's registry servers from the MCP registry and write
//! `mcpconf.lock` beside the manifest (atomically; unchanged bytes are not rewritten).

use std::time::Duration;

use serde_json::json;

use super::{Report, finish, usage_error, write_new_file};
use crate::console::print;
use crate::diag::Code;
use crate::engine::{self, Exit, Settings};
use crate::fsio;
use crate::output::Style;
use crate::redact::Redactor;
use crate::registry::{self, Options};

/// What `mcpconf lock` was asked.
pub(super) struct LockRequest {
    pub(super) registry: Option<String>,
    pub(super) timeout: f64,
    pub(super) net: super::Net,
}

pub(super) fn run_lock(settings: &Settings, req: LockRequest, json: bool, style: Style) -> u8 {
    let manifest_path = &settings.manifest;
    let failed = |path: &std::path::Path, code: Code, message: String, exit: Exit| {
        let r = Report::failed("", path, code, message, 1, 1, exit);
        finish(&r, &Redactor::default(), json, style, false)
    };
    if !(req.timeout.is_finite() && req.timeout > 0.0 && req.timeout <= 3600.0) {
        return usage_error(
            json,
            "--timeout must be a number of seconds between 0 and 3600",
        );
    }
    let proxy = match req.net.proxies() {
        Ok(p) => p,
        Err(m) => return usage_error(json, m),
    };
    let registry = req
        .registry
        .unwrap_or_else(|| registry::DEFAULT_REGISTRY.to_string());
    if !(registry.starts_with("http://") || registry.starts_with("https://")) {
        return usage_error(json, "--registry must be an `http://` or `https://` URL");
    }
    let text = match fsio::read(
        &fsio::resolve(manifest_path).unwrap_or_else(|_| manifest_path.clone()),
        16 << 20,
    ) {
        Ok(Some(r)) => String::from_utf8_lossy(&r.bytes).into_owned(),
        Ok(None) => {
            return failed(
                manifest_path,
                Code::ManifestMissing,
                format!("no manifest at `{}`", manifest_path.display()),
                Exit::Usage,
            );
        }
        Err(e) => return failed(&e.path, e.code, e.message, Exit::Usage),
    };
    let refs = match crate::manifest::registry_refs(&text) {
        Ok(r) => r,
        Err(e) => {
            let r = Report::failed(
                "",
                manifest_path,
                Code::ManifestError,
                e.message,
                e.line,
                e.column,
                Exit::Usage,
            );
            return finish(&r, &Redactor::default(), json, style, false);
        }
    };
    let lock_path = engine::lock_file_path(manifest_path);
    let opts = Options {
        registry: registry.trim_end_matches('/').to_string(),
        timeout: Duration::from_secs_f64(req.timeout),
        cacert: req.net.cacert,
        proxy,
    };
    let lock = match registry::lock(&refs, &opts) {
        Ok(l) => l,
        Err(e) => {
            let exit = if e.code == Code::RegistryError {
                Exit::Io
            } else {
                Exit::Usage
            };
            let r = refs.iter().find(|r| r.server == e.server);
            let (line, column) = r.map(|r| r.at).unwrap_or((1, 1));
            let rep = Report::failed("", manifest_path, e.code, e.to_string(), line, column, exit);
            return finish(&rep, &Redactor::default(), json, style, false);
        }
    };
    // The resolved manifest must still pass every check (the manifest's overrides laid over
    // the registry's entries): a lock is never written for a manifest plan would refuse.
    if let Err(e) = crate::manifest::parse_with_lock(&text, &crate::known::Known, Some(&lock)) {
        let r = Report::failed(
            "",
            manifest_path,
            Code::ManifestError,
            e.message,
            e.line,
            e.column,
            Exit::Usage,
        );
        return finish(&r, &Redactor::default(), json, style, false);
    }
    let bytes = lock.render();
    // The one writer of mcpconf's own files: a link (or a directory) in the lock's place is
    // refused, never written through (exit 3, nothing written).
    let changed = match write_new_file(&lock_path, bytes.as_bytes(), settings.lock_timeout) {
        Ok(w) => w == fsio::Written::Changed,
        Err(e) if e.code == Code::NotAFile => {
            return failed(&e.path, e.code, e.message, Exit::Refused);
        }
        Err(e) => return failed(&e.path, e.code, e.message, Exit::Io),
    };
    if json {
        let servers: Vec<_> = lock
            .servers
            .iter()
            .map(|s| {
                json!({"server": s.server, "name": s.name, "version": s.version,
                       "package": s.package, "remote": s.remote, "digest": s.digest,
                       "registry": s.registry})
            })
            .collect();
        let doc = json!({"format_version": 1, "lock": lock_path, "changed": changed,
                         "servers": servers, "errors": []});
        print!("{doc:#}\n");
    } else if lock.servers.is_empty() {
        print!(
            "The manifest declares no registry server; {} {}.\n",
            lock_path.display(),
            if changed {
                "written empty"
            } else {
                "unchanged"
            }
        );
    } else {
        print!(
            "{} {}:\n",
            if changed { "Locked" } else { "Unchanged" },
            lock_path.display()
        );
        for s in &lock.servers {
            let how = s.package.as_deref().unwrap_or("remote");
            print!(
                "  {}  {} {} ({how})  {}\n",
                s.server,
                s.name,
                s.version,
                &s.digest[..s.digest.len().min(19)]
            );
        }
    }
    0
}
