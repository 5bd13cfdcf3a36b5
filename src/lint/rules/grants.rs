//! `dangling-grant`: a Kiro agent's `@server` grants that name no server the agent can see.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::dialect::Dialect;
use crate::lint::discover::Input;
use crate::lint::run::Run;
use crate::lint::source::Source;
use crate::text::closest;

/// Built-in names in `@…` grants that are not servers.
pub(in crate::lint) const BUILTIN_GRANTS: &[&str] = &["builtin", "mcp"];

/// A grant in a Kiro agent file that names a server.
#[derive(Clone)]
pub(in crate::lint) struct Grant {
    /// Where it is: its array, or `toolAliases` and the alias.
    pub(in crate::lint) path: Vec<String>,
    pub(in crate::lint) grant: String,
    /// The server it names.
    pub(in crate::lint) server: String,
    /// Line and column.
    pub(in crate::lint) at: (usize, usize),
}

/// The grants of a Kiro agent file that name a server (not built-in, no wildcard).
pub(in crate::lint) fn grants_in(src: &Source, d: &dyn Dialect) -> Vec<Grant> {
    let root = src.root();
    let mut grants = Vec::new();
    let mut found: Vec<(Vec<String>, String, bool)> = Vec::new();
    for array in d.grant_arrays() {
        if let Some(Value::Array(a)) = root.get(*array) {
            for v in a.iter().filter_map(Value::as_str) {
                found.push((vec![array.to_string()], v.to_string(), true));
            }
        }
    }
    if let Some(Value::Object(m)) = root.get("toolAliases") {
        for k in m.keys() {
            found.push((vec!["toolAliases".into(), k.clone()], k.clone(), false));
        }
    }
    for (path, grant, element) in found {
        let Some(body) = grant.strip_prefix('@') else {
            continue;
        };
        let server = body.split('/').next().unwrap_or("");
        if server.is_empty() || BUILTIN_GRANTS.contains(&server) || server.contains(['*', '?']) {
            continue;
        }
        let server = server.to_string();
        let at = if element {
            src.locate_element(&path, &grant)
        } else {
            src.locate(&path)
        };
        grants.push(Grant {
            path,
            grant,
            server,
            at,
        });
    }
    grants
}

impl Run<'_> {
    /// Kiro agents: load the `mcp.json` files each agent sees, and check its grants.
    pub(in crate::lint) fn agents(&mut self) {
        let agents: Vec<usize> = (0..self.files.len())
            .filter(|&i| self.input(i).client.multi_file() && self.files[i].report)
            .collect();
        for a in agents {
            let Some(summary) = self.files[a].summary.as_ref() else {
                continue;
            };
            let include = !summary.no_mcp_json;
            let mut visible: BTreeSet<String> = summary
                .mcp_servers()
                .into_iter()
                .flatten()
                .cloned()
                .collect();
            let mut complete = true;
            if include {
                for path in self.kiro_settings_for(a) {
                    let Some(kiro) = crate::dialect::lookup("kiro") else {
                        continue;
                    };
                    let input = Input::new(path.clone(), kiro, vec!["project"]);
                    let Some(i) = self.load(input, false) else {
                        continue;
                    };
                    match self.files[i].summary.as_ref() {
                        Some(s) => {
                            if let Some(m) = s.mcp_servers() {
                                visible.extend(m.iter().cloned());
                                if !self.files[i].report {
                                    self.entries.extend(s.root_entries().iter().cloned());
                                }
                            }
                        }
                        None => complete = false,
                    }
                }
            }
            if complete {
                self.grants(a, &visible, include);
            }
        }
    }

    /// The Kiro settings files an agent file sees: its workspace's and the user's.
    pub(in crate::lint) fn kiro_settings_for(&self, agent: usize) -> Vec<PathBuf> {
        let p = &self.input(agent).path;
        let workspace = p
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        let home = &self.req.home;
        let ws = match workspace {
            Some(w) if &w != home => w,
            _ => self.req.root.clone(),
        };
        let mut out = vec![
            ws.join(".kiro/settings/mcp.json"),
            home.join(".kiro/settings/mcp.json"),
        ];
        out.dedup();
        out
    }

    pub(in crate::lint) fn grants(
        &mut self,
        agent: usize,
        visible: &BTreeSet<String>,
        include: bool,
    ) {
        let dangling: Vec<Grant> = self.files[agent]
            .summary
            .iter()
            .flat_map(|s| s.grants())
            .filter(|g| !visible.contains(&g.server))
            .cloned()
            .collect();
        for Grant {
            path,
            grant,
            server,
            at,
        } in dangling
        {
            let hint = match closest(&server, visible.iter().map(String::as_str)) {
                Some(c) => format!("did you mean `@{c}`?"),
                None => "define the server or remove the grant".to_string(),
            };
            let seen = if include {
                "its own `mcpServers`, the workspace's and the user's `.kiro/settings/mcp.json`"
            } else {
                "its own `mcpServers` (`includeMcpJson` is false)"
            };
            self.push(
                "dangling-grant",
                agent,
                at,
                format!(
                    "grant `{grant}` in `{}` names server `{server}`, which this agent cannot see ({seen}); {hint}",
                    path[0]
                ),
            );
        }
    }
}
