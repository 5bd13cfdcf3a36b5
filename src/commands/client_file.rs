//! Reading a client's own file as a manifest (`import`, `probe --client`, `--all-clients`).

use super::*;

/// A client file read as a manifest: what it holds, its path, its client and its scope.
pub(super) type ClientRead = (
    crate::import::Imported,
    std::path::PathBuf,
    &'static dyn dialect::Dialect,
    &'static dialect::Scope,
);

/// Read a client's file with its dialect and describe its entries as a manifest, as the client
/// reads them (`probe`). A failure is returned for the caller to print.
pub(super) fn read_client(
    settings: &Settings,
    client: &str,
    scope: Option<&str>,
    path: Option<&str>,
    owner: &str,
) -> Result<ClientRead, Failure> {
    read_client_only(settings, (client, scope, path), owner, (&[], true))
}

/// [`read_client`] of only the entries named in `only` (all when empty); a name the file does
/// not hold is a usage error.
pub(super) fn read_client_only(
    settings: &Settings,
    (client, scope, path): (&str, Option<&str>, Option<&str>),
    owner: &str,
    (only, as_client): (&[String], bool),
) -> Result<ClientRead, Failure> {
    use crate::diag::Code;
    let Some(d) = dialect::lookup_client(client) else {
        return Err(Failure::usage(Code::UsageError, unknown_client(client)));
    };
    let sc = match scope {
        Some(s) => match d.scope(s) {
            Some(sc) => sc,
            None => {
                return Err(Failure::usage(
                    Code::UsageError,
                    format!("client `{client}` has no scope `{s}`"),
                ));
            }
        },
        None => d.default_scope(),
    };
    let ctx = file_ctx(settings);
    let file = d.path(sc, path, &ctx);
    if file.to_string_lossy().contains(['*', '?']) {
        return Err(Failure::usage(
            Code::UsageError,
            format!(
                "`{}` names several files; import one with --path",
                file.display()
            ),
        ));
    }
    let bytes = match fsio::read(&file, engine::MAX_FILE) {
        Ok(Some(r)) => r.bytes,
        Ok(None) => {
            return Err(Failure::usage(
                Code::NotFound,
                format!("there is no file `{}`", file.display()),
            ));
        }
        Err(e) => {
            let mut f = Failure::usage(e.code, e.message);
            f.exit = Exit::Refused;
            return Err(f);
        }
    };
    let doc = match crate::document::Doc::parse(&bytes, d.syntax()) {
        Ok(doc) => doc,
        Err(e) => {
            let mut f = Failure::at(Exit::Refused, &file, e.code, e.message);
            (f.error.line, f.error.column) = (e.line, e.column);
            return Err(f);
        }
    };
    let servers = match doc.get(&d.container(sc.name, &ctx)) {
        Some(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    if let Some(n) = only.iter().find(|n| !servers.contains_key(n.as_str())) {
        let hint = match crate::text::closest(n, servers.keys().map(String::as_str)) {
            Some(c) => format!("did you mean `{c}`?"),
            None => format!(
                "it holds {}",
                servers
                    .keys()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(Failure::usage(
            Code::UsageError,
            format!("`{}` has no entry `{n}`; {hint}", file.display()),
        ));
    }
    // The whole file, for a client whose grants (Kiro agents) or prompted inputs (VS Code)
    // stand beside the entries.
    let whole = if d.grant_arrays().is_empty() && d.inputs_array().is_none() {
        serde_json::Value::Null
    } else {
        doc.root()
    };
    let imported = crate::import::import_in(
        &whole,
        &servers,
        &crate::import::TargetSpec {
            dialect: d,
            scope: sc.name,
            path,
            only,
            as_client,
        },
        owner,
    );
    Ok((imported, file, d, sc))
}

/// Where client files are, as the command line gives it (the root as given, not resolved):
/// what `import`, `probe --client` and `--all-clients` read client files with.
pub(super) fn file_ctx(settings: &Settings) -> dialect::Ctx {
    dialect::Ctx {
        root: settings.root.clone(),
        home: settings.home.clone(),
        client_homes: settings.client_homes.clone(),
        xdg_config_home: settings.xdg_config_home.clone(),
        project: fsio::git_main_root(&settings.root),
    }
}
