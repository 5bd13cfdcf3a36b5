//! `disable = [...]` on a project-scope target: what each server the user configured at user
//! scope needs to be off in this project, added to the file specs as entries (a partial entry
//! of the client's off form) or as values in an array (`mcp.excluded`,
//! `projects["<project>"].disabledMcpServers`), owned and pruned like every entry mcpconf writes.

use super::*;
use dialect::{DisableForm, GrantSpec};

/// Adds target `t`'s disables to the spec of its file (`key`), or to the user file the client
/// keeps per-project state in; a client without a per-project off switch refuses the target's
/// file (`cannot-express`).
#[allow(clippy::too_many_arguments)]
pub(super) fn add_disables(
    ctx: &Ctx,
    resolver: &mut fsio::Resolver,
    t: &manifest::Target,
    d: &'static dyn Dialect,
    scope: &dialect::Scope,
    key: &str,
    by_key: &mut BTreeMap<String, Spec>,
    order: &mut Vec<String>,
) {
    if t.disable.is_empty() {
        return;
    }
    let Some(pd) = d.project_disable() else {
        if let Some(spec) = by_key.get_mut(key) {
            spec.refusal = Some(PlanError::file(
                Code::CannotExpress,
                dialect::cannot_disable(d, &t.disable).message,
            ));
        }
        return;
    };
    match pd.form {
        DisableForm::PartialEntry(off) => {
            let Some(spec) = by_key.get_mut(key) else {
                return;
            };
            let container = d.container(scope.name, ctx);
            for name in &t.disable {
                let value = dialect::partial_entry(off);
                let same = spec
                    .wants
                    .iter()
                    .find(|w| w.container == container && &w.server == name);
                match same {
                    Some(w) if w.value == value => {}
                    Some(_) => {
                        spec.refusal = Some(PlanError::file(
                            Code::Conflict,
                            format!(
                                "one target writes server `{name}` into `{}` and another turns it off there (`disable`); keep one of the two",
                                spec.path.display()
                            ),
                        ));
                    }
                    None => spec.wants.push(Want {
                        container: container.clone(),
                        server: name.clone(),
                        client_state: dialect::entry_client_state(d, &value, true),
                        value,
                        client: d.id(),
                        expanded: None,
                    }),
                }
            }
            if let Some(note) = pd.trust.and_then(|trust| trust_note(ctx, d, trust)) {
                push_note(spec, note);
            }
        }
        DisableForm::ProjectList(path) => {
            let Some(spec) = by_key.get_mut(key) else {
                return;
            };
            let array: Vec<String> = path.iter().map(|s| s.to_string()).collect();
            push_list(spec, d, &array, &t.disable);
        }
        DisableForm::UserProjectsList {
            scope: file_scope,
            key: list,
        } => {
            let Some(s) = d.scope(file_scope) else {
                return;
            };
            let path = d.path(s, None, ctx);
            let (real, refusal) = match resolver.resolve(&path) {
                Ok(r) => (r, None),
                Err(e) => (path.clone(), Some(PlanError::file(e.code, e.message))),
            };
            let file_key = real.display().to_string();
            let spec = by_key.entry(file_key.clone()).or_insert_with(|| {
                order.push(file_key.clone());
                Spec::new(
                    path.clone(),
                    real.clone(),
                    (d.id(), d.syntax()),
                    t.create,
                    refusal,
                )
            });
            spec.client_lock |= d.client_lock(file_scope);
            let project = project_key(ctx);
            let array = vec![
                "projects".to_string(),
                project.display().to_string(),
                list.to_string(),
            ];
            push_list(spec, d, &array, &t.disable);
        }
    }
}

fn push_note(spec: &mut Spec, note: String) {
    if !spec.notes.contains(&note) {
        spec.notes.push(note);
    }
}

/// One grant-like value per name in `array` of the spec's file (the array is created when
/// missing and goes with the last value mcpconf added to it).
fn push_list(spec: &mut Spec, d: &'static dyn Dialect, array: &[String], names: &[String]) {
    for name in names {
        let dup = spec
            .grants
            .iter()
            .any(|g| g.spec.array == array && g.spec.values.iter().any(|v| v == name));
        if dup {
            continue;
        }
        spec.grants.push(GrantWant {
            server: name.clone(),
            client: d.id(),
            spec: GrantSpec {
                array: array.to_vec(),
                values: vec![name.clone()],
                covering: Vec::new(),
                narrower: None,
                create_array: true,
                disable: true,
            },
        });
    }
}

/// The project as a client that keys per-project state by repository names it: the main
/// worktree's root of the git repository the project root lies in (a subdirectory and every
/// linked worktree share it), else the project root.
pub(super) fn project_key(ctx: &Ctx) -> PathBuf {
    ctx.project_key().to_path_buf()
}

/// Codex reads a project's `.codex/config.toml` only for a project the user trusted
/// (`[projects."<path>"] trust_level = "trusted"` in the user's `config.toml`, the path being
/// the project root or its repository's): the note that says so when it is not.
fn trust_note(ctx: &Ctx, d: &'static dyn Dialect, trust: (&str, &str)) -> Option<String> {
    let (member, value) = trust;
    let user = d.scope("user")?;
    let file = d.path(user, None, ctx);
    let doc = match fsio::read(&file, MAX_FILE) {
        Ok(Some(r)) => Doc::parse_vec(r.bytes, d.syntax()).ok(),
        _ => None,
    };
    let candidates = [ctx.root.clone(), project_key(ctx)];
    let trusted = doc.is_some_and(|doc| {
        candidates.iter().any(|p| {
            let at = [
                "projects".to_string(),
                p.display().to_string(),
                member.to_string(),
            ];
            doc.get(&at).as_ref().and_then(serde_json::Value::as_str) == Some(value)
        })
    });
    (!trusted).then(|| {
        format!(
            "client `{}` reads this project's file only for a project the user trusted, and `{}` does not trust it (`projects[\"{}\"].{member} = \"{value}\"`): until then the servers in `disable` stay on here (trust the project when {} asks, or set that)",
            d.id(),
            file.display(),
            project_key(ctx).display(),
            d.id()
        )
    })
}

/// Whether `array` is where client `d` lists the servers turned off for a project (for a
/// ledger record's check: a forged record must not steer an edit elsewhere).
pub(super) fn is_disable_list(d: &dyn Dialect, array: &[String]) -> bool {
    match d.project_disable().map(|p| p.form) {
        Some(DisableForm::ProjectList(path)) => {
            array.iter().map(String::as_str).eq(path.iter().copied())
        }
        Some(DisableForm::UserProjectsList { key, .. }) => {
            array.len() == 3
                && array[0] == "projects"
                && Path::new(&array[1]).is_absolute()
                && array[2] == key
        }
        _ => false,
    }
}
