//! Which files to lint, and which client reads each.
//!
//! Without paths: every default file of every client and scope under `--root` and `--home`
//! (Kiro agent globs expanded). With paths: each file's client is detected by matching the end
//! of its path against the clients' default paths (`.cursor/mcp.json`, `.kiro/agents/*.json`,
//! …), or given with `--client`; a directory is linted as a project root.

use std::path::{Path, PathBuf};

use super::Request;
use crate::dialect::{self, Base, Ctx, Dialect};
use crate::fsio;

/// One file to lint.
#[derive(Clone)]
pub(crate) struct Input {
    /// The path as shown in findings.
    pub shown: String,
    /// The absolute path to read.
    pub path: PathBuf,
    /// The client that reads it.
    pub client: &'static dyn Dialect,
    /// The client's scopes this file serves (Claude Code's `~/.claude.json`: user and local).
    pub scopes: Vec<&'static str>,
}

pub(crate) fn ctx(req: &Request) -> Ctx {
    Ctx {
        root: req.root.clone(),
        home: req.home.clone(),
        codex_home: req.codex_home.clone(),
        vibe_home: req.vibe_home.clone(),
        xdg_config_home: req.xdg_config_home.clone(),
    }
}

/// Inputs with an index by (path, client), so that adding thousands stays linear.
#[derive(Default)]
struct Inputs {
    list: Vec<Input>,
    index: std::collections::HashMap<(PathBuf, &'static str), usize>,
}

fn push(out: &mut Inputs, input: Input) {
    let key = (input.path.clone(), input.client.id());
    if let Some(&i) = out.index.get(&key) {
        let same = &mut out.list[i];
        for s in input.scopes {
            if !same.scopes.contains(&s) {
                same.scopes.push(s);
            }
        }
        return;
    }
    out.index.insert(key, out.list.len());
    out.list.push(input);
}

/// Every default file of every client (or of `only`) under the bases; `only_root`: project
/// files only.
fn discover(ctx: &Ctx, only: Option<&dyn Dialect>, only_root: bool, out: &mut Inputs) {
    for d in dialect::ALL {
        if only.is_some_and(|o| o.id() != d.id()) {
            continue;
        }
        for scope in d.scopes() {
            if scope.path.is_empty() || (only_root && scope.base != Base::Root) {
                continue;
            }
            let pattern = d.path(scope, None, ctx);
            let files = if d.multi_file() {
                fsio::glob(&pattern).unwrap_or_default()
            } else {
                vec![pattern]
            };
            for path in files {
                push(
                    out,
                    Input {
                        shown: path.display().to_string(),
                        path,
                        client: *d,
                        scopes: vec![scope.name],
                    },
                );
            }
        }
    }
}

fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        Some((pre, post)) => {
            name.len() >= pre.len() + post.len() && name.starts_with(pre) && name.ends_with(post)
        }
        None => pattern == name,
    }
}

/// How many trailing components of `path` match `pattern` (a relative default path whose file
/// name may hold one `*`), or 0 when it does not match.
fn match_len(path: &Path, pattern: &str) -> usize {
    if pattern.is_empty() {
        return 0;
    }
    let mut comps = path.components().rev();
    let mut n = 0;
    for p in pattern.rsplit('/').filter(|s| !s.is_empty()) {
        match comps.next().and_then(|c| c.as_os_str().to_str()) {
            Some(c) if wildcard(p, c) => n += 1,
            _ => return 0,
        }
    }
    n
}

/// The client (and its scopes) whose default paths the end of `path` matches, longest match
/// first; `None` when no client's file looks like this.
pub fn detect_client(path: &Path) -> Option<(&'static dyn Dialect, Vec<&'static str>)> {
    let mut best: Option<(usize, &'static dyn Dialect, Vec<&'static str>)> = None;
    for d in dialect::ALL {
        for scope in d.scopes() {
            let n = [scope.path, scope.macos]
                .iter()
                .map(|p| match_len(path, p))
                .max()
                .unwrap_or(0);
            if n == 0 {
                continue;
            }
            match &mut best {
                Some((m, bd, scopes)) if *m == n && bd.id() == d.id() => scopes.push(scope.name),
                Some((m, _, _)) if *m >= n => {}
                _ => best = Some((n, *d, vec![scope.name])),
            }
        }
    }
    best.map(|(_, d, s)| (d, s))
}

/// The files a request names.
pub(crate) fn inputs(req: &Request) -> Result<Vec<Input>, String> {
    let ctx = ctx(req);
    let mut out = Inputs::default();
    if req.paths.is_empty() {
        discover(&ctx, req.client, false, &mut out);
        return Ok(out.list);
    }
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    for given in &req.paths {
        let abs = cwd.join(given);
        let detected = detect_client(&abs);
        // A path that looks like a client's file is taken for one (no stat for each).
        if (req.client.is_some() || detected.is_none()) && abs.is_dir() {
            let sub = Ctx {
                root: abs.clone(),
                ..ctx.clone()
            };
            discover(&sub, req.client, true, &mut out);
            continue;
        }
        let (client, scopes) = match (req.client, detected) {
            (Some(c), Some((d, s))) if d.id() == c.id() => (c, s),
            (Some(c), _) => (c, vec![c.default_scope().name]),
            (None, Some(found)) => found,
            (None, None) => {
                return Err(format!(
                    "cannot tell which client reads `{}` from its path; pass `--client ID` (one of {})",
                    given.display(),
                    dialect::ids().join(", ")
                ));
            }
        };
        push(
            &mut out,
            Input {
                shown: given.display().to_string(),
                path: abs,
                client,
                scopes,
            },
        );
    }
    Ok(out.list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(p: &str) -> Option<(&'static str, Vec<&'static str>)> {
        detect_client(Path::new(p)).map(|(d, s)| (d.id(), s))
    }

    #[test]
    fn detects_clients_from_paths() {
        assert_eq!(
            id("/r/.cursor/mcp.json"),
            Some(("cursor", vec!["project", "user"]))
        );
        assert_eq!(
            id("/h/.kiro/settings/mcp.json"),
            Some(("kiro", vec!["project", "user"]))
        );
        assert_eq!(
            id("/h/.kiro/agents/dev.json"),
            Some(("kiro-agent", vec!["project", "user"]))
        );
        assert_eq!(id("/h/.kiro/agents/dev.md"), None);
        assert_eq!(
            id("/h/.claude.json"),
            Some(("claude-code", vec!["user", "local"]))
        );
        assert_eq!(id("/r/.mcp.json"), Some(("claude-code", vec!["project"])));
        assert_eq!(id("/r/.codex/config.toml").map(|x| x.0), Some("codex"));
        assert_eq!(id("/r/.vscode/mcp.json").map(|x| x.0), Some("vscode"));
        assert_eq!(id("/r/.amazonq/mcp.json").map(|x| x.0), Some("amazonq"));
        assert_eq!(id("/r/opencode.json").map(|x| x.0), Some("opencode"));
        assert_eq!(
            id("/h/.config/zed/settings.json"),
            Some(("zed", vec!["user"]))
        );
        assert_eq!(id("/r/mcp.json"), None);
        assert_eq!(id("/r/settings.json"), None);
    }
}
