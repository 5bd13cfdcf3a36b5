//! Resolving `${VAR}` references in a server's declaration; every substituted value
//! becomes a secret the probe redacts.

use std::path::PathBuf;

use super::FailureCode;
use super::scrub::Secrets;
use super::{Failure, Lookup, Options, fail};
use crate::server::Server;
use crate::template::{Part, Template, TemplateErrorKind};

/// Substitute references; every substituted value becomes a secret to redact.
pub(super) fn resolve(
    t: &Template,
    field: &str,
    lookup: Lookup<'_>,
    red: &mut Secrets,
) -> Result<String, Failure> {
    for p in &t.parts {
        if let Part::Var(v) = p {
            match lookup(v) {
                Some(val) => red.add(&val),
                None => {
                    return Err(fail(
                        FailureCode::UnsetVariable,
                        format!("`${{{v}}}` (in `{field}`) is not set in the environment"),
                    ));
                }
            }
        }
    }
    t.resolve(lookup).map_err(|e| match e.kind {
        TemplateErrorKind::Unset { name: v } => fail(
            FailureCode::UnsetVariable,
            format!("`${{{v}}}` (in `{field}`) is not set in the environment"),
        ),
        _ => fail(FailureCode::InvalidConfig, format!("`{field}`: {e}")),
    })
}

/// Every reference of a server's declaration that is not set, with the field it is in (names
/// only, never a value).
pub(super) fn unset_references(server: &Server, lookup: Lookup<'_>) -> Vec<(String, String)> {
    // The environment first (what a message names first), then the rest in order.
    let mut fields: Vec<(String, &Template)> = server.fields();
    fields.sort_by_key(|(f, _)| !f.starts_with("env."));
    let mut out = Vec::new();
    for (field, t) in fields {
        for p in &t.parts {
            // An input only the client that prompts for it can fill in: never set here.
            let missing = match p {
                Part::Var(v) => lookup(v).is_none().then(|| v.clone()),
                Part::Input(id) => Some(format!("input:{id}")),
                // A default fills in an unset variable; verbatim text is refused when resolved.
                Part::Lit(_) | Part::VarOr(..) | Part::Verbatim(..) => None,
            };
            if let Some(v) = missing
                && !out
                    .iter()
                    .any(|(a, b): &(String, String)| *a == v && *b == field)
            {
                out.push((v, field.clone()));
            }
        }
    }
    out
}

pub(super) struct StdioSpec {
    pub(super) command: String,
    pub(super) args: Vec<String>,
    pub(super) env: Vec<(String, String)>,
    pub(super) cwd: Option<PathBuf>,
}

pub(super) fn resolve_stdio(
    command: &Template,
    args: &[Template],
    env: &[(String, Template)],
    cwd: Option<&Template>,
    lookup: Lookup<'_>,
    red: &mut Secrets,
    opts: &Options,
) -> Result<StdioSpec, Failure> {
    // Env values first, so that a later error message never shows one.
    let mut env_out = Vec::new();
    for (k, v) in env {
        let val = resolve(v, &format!("env.{k}"), lookup, red)?;
        red.add(&val);
        env_out.push((k.clone(), val));
    }
    let command = resolve(command, "command", lookup, red)?;
    let args = args
        .iter()
        .map(|a| resolve(a, "args", lookup, red))
        .collect::<Result<Vec<_>, _>>()?;
    red.add_from_args(&args);
    let cwd = match cwd {
        Some(c) => {
            let p = PathBuf::from(resolve(c, "cwd", lookup, red)?);
            Some(if p.is_absolute() {
                p
            } else {
                opts.base_dir.join(p)
            })
        }
        None => None,
    };
    Ok(StdioSpec {
        command,
        args,
        env: env_out,
        cwd,
    })
}

pub(super) type Headers = Vec<(String, String)>;

pub(super) fn resolve_remote(
    url: &Template,
    headers: &[(String, Template)],
    lookup: Lookup<'_>,
    red: &mut Secrets,
) -> Result<(String, Headers), Failure> {
    let mut out = Vec::new();
    for (k, v) in headers {
        let val = resolve(v, &format!("headers.{k}"), lookup, red)?;
        // The value, and the bare token after a scheme word.
        red.add(&val);
        if k.is_empty() || !k.bytes().all(is_token_byte) {
            return Err(fail(
                FailureCode::InvalidConfig,
                format!("header name `{k}` is not a valid HTTP header name"),
            ));
        }
        if val.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
            return Err(fail(
                FailureCode::InvalidConfig,
                format!("the value of header `{k}` contains a line break or NUL"),
            ));
        }
        out.push((k.clone(), val));
    }
    let url = resolve(url, "url", lookup, red)?;
    red.add_from_url(&url);
    Ok((url, out))
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_variable_names_the_field_and_no_value() {
        let t = Template::parse("Bearer ${MCPCONF_PROBE_UNSET_X}").unwrap();
        let mut red = Secrets::default();
        let lookup = |_: &str| None;
        let e = resolve(&t, "headers.Authorization", &lookup, &mut red).unwrap_err();
        assert_eq!(e.code, "unset-variable");
        assert!(
            e.message
                .contains("`${MCPCONF_PROBE_UNSET_X}` (in `headers.Authorization`)")
        );
        let lookup = |v: &str| (v == "MCPCONF_PROBE_UNSET_X").then(|| "s3cr3t-value".to_string());
        assert_eq!(
            resolve(&t, "h", &lookup, &mut red).unwrap(),
            "Bearer s3cr3t-value"
        );
        assert_eq!(red.redact("x s3cr3t-value y"), "x <redacted> y");
    }
}
