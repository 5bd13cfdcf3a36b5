//! Manifest strings with environment references: `${VAR}` is a reference, `${VAR:-default}` a
//! reference with a default, `$${` a literal `${`, and a whole value `${verbatim:GRAMMAR:TEXT}`
//! text kept as it is for the clients that read that expansion grammar ([`grammar`]).
//!
//! A [`Template`] is the neutral form; each client dialect spells the references in its own
//! syntax (`${VAR}`, `${env:VAR}`, `{env:VAR}`, …) or refuses when it cannot express them.
//!
//! ```
//! use mcpconf::template::{Template, TemplateErrorKind};
//!
//! let t = Template::parse("Bearer ${TOKEN}").unwrap();
//! assert_eq!(t.vars().collect::<Vec<_>>(), ["TOKEN"]);
//! assert_eq!(t.render(|v| format!("${{env:{v}}}")), "Bearer ${env:TOKEN}");
//! assert_eq!(t.resolve(|_| Some("abc".into())).unwrap(), "Bearer abc");
//!
//! let unset = t.resolve(|_| None).unwrap_err();
//! assert_eq!(unset.kind, TemplateErrorKind::Unset { name: "TOKEN".into() });
//! assert!(Template::parse("${1X}").is_err());
//! ```

pub use crate::text::valid_input_id;
use std::fmt;

use crate::diag::Code;

pub mod grammar;

pub use grammar::Grammar;

/// How a whole value kept verbatim starts: `${verbatim:GRAMMAR:TEXT}`.
pub const VERBATIM_OPEN: &str = "${verbatim:";

/// Why a template was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// What is wrong.
    pub kind: TemplateErrorKind,
}

/// What is wrong with a template.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplateErrorKind {
    /// A `${` without its `}`.
    Unclosed,
    /// `${name}` where `name` is not an environment variable name.
    InvalidName {
        /// The text between the braces.
        name: String,
    },
    /// [`Template::resolve`]: the variable is not set.
    Unset {
        /// The variable.
        name: String,
    },
    /// `${NAME:-default}` whose default a client would read differently.
    BadDefault {
        /// The variable.
        name: String,
    },
    /// `${verbatim:…}` not of the form `${verbatim:GRAMMAR:TEXT}` with a known grammar, or
    /// not the whole value.
    BadVerbatim,
    /// [`Template::resolve`] of verbatim text: only its client expands it.
    Verbatim,
    /// [`Template::resolve`]: a client-prompted input (`${input:ID}`), which only the client
    /// that prompts for it can fill in.
    Prompted {
        /// The input's id.
        id: String,
    },
}

impl TemplateError {
    /// The stable code: `manifest-error` for the syntax, `unset-variable` for a resolve.
    pub fn code(&self) -> Code {
        match self.kind {
            TemplateErrorKind::Unclosed
            | TemplateErrorKind::InvalidName { .. }
            | TemplateErrorKind::BadDefault { .. }
            | TemplateErrorKind::BadVerbatim => Code::ManifestError,
            TemplateErrorKind::Unset { .. } | TemplateErrorKind::Prompted { .. } => {
                Code::UnsetVariable
            }
            TemplateErrorKind::Verbatim => Code::CannotExpress,
        }
    }
}

/// One sentence without location (the manifest adds the field and position).
impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TemplateErrorKind::Unclosed => f.write_str(
                "a `${` reference is not closed with `}` (write `$${` for a literal `${`)",
            ),
            TemplateErrorKind::InvalidName { name } => write!(
                f,
                "`${{{name}}}` is not a valid environment reference: use letters, digits and `_`, not starting with a digit (write `$${{` for a literal `${{`)"
            ),
            TemplateErrorKind::Unset { name } => {
                write!(f, "`${{{name}}}` is not set in the environment")
            }
            TemplateErrorKind::BadDefault { name } => write!(
                f,
                "the default of `${{{name}:-…}}` holds `}}`, `$`, a quote, a backtick or a backslash, which a client would not read as the same text (keep the value verbatim for its client: `${{verbatim:GRAMMAR:TEXT}}`)"
            ),
            TemplateErrorKind::BadVerbatim => {
                let ids: Vec<&str> = grammar::ALL
                    .iter()
                    .filter(|g| g.verbatim())
                    .map(|g| g.id())
                    .collect();
                write!(
                    f,
                    "verbatim text is a whole value `${{verbatim:GRAMMAR:TEXT}}`, GRAMMAR one of {}",
                    ids.join(", ")
                )
            }
            TemplateErrorKind::Verbatim => f.write_str(
                "the value is verbatim text only its client expands; mcpconf cannot expand it itself",
            ),
            TemplateErrorKind::Prompted { id } => write!(
                f,
                "`${{input:{id}}}` is an input the client prompts for; only that client can fill it in"
            ),
        }
    }
}

impl std::error::Error for TemplateError {}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text.
    Lit(String),
    /// An environment variable reference.
    Var(String),
    /// A reference with a default (`${VAR:-default}`): the variable, the default text.
    VarOr(String, String),
    /// The whole value as its client reads it (`${verbatim:GRAMMAR:TEXT}`), for clients of
    /// that grammar only.
    Verbatim(Grammar, String),
    /// `${input:ID}`: an input the client prompts the user for (the manifest's
    /// `[inputs.ID]`); only clients with prompts (VS Code's `inputs`) can write it.
    Input(String),
}

/// A parsed manifest string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The string as written in the manifest.
    pub raw: String,
    /// Literal and reference parts, adjacent literals merged.
    pub parts: Vec<Part>,
}

impl Template {
    /// Parse `${VAR}` references and `${input:ID}` inputs; `$${` is a literal `${`.
    pub fn parse(s: &str) -> Result<Template, TemplateError> {
        if let Some(v) = Template::parse_verbatim(s)? {
            return Ok(v);
        }
        let mut parts: Vec<Part> = Vec::new();
        let mut lit = String::new();
        let mut rest = s;
        while let Some(i) = rest.find('$') {
            lit.push_str(&rest[..i]);
            let after = &rest[i..];
            if let Some(tail) = after.strip_prefix("$${") {
                lit.push_str("${");
                rest = tail;
            } else if let Some(tail) = after.strip_prefix("${") {
                let Some(end) = tail.find('}') else {
                    return Err(TemplateError {
                        kind: TemplateErrorKind::Unclosed,
                    });
                };
                let name = &tail[..end];
                if let Some(id) = name.strip_prefix("input:").filter(|id| valid_input_id(id)) {
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Input(id.to_string()));
                    rest = &tail[end + 1..];
                    continue;
                }
                if let Some((n, d)) = name.split_once(":-")
                    && valid_var(n)
                {
                    if !grammar::plain_default(d) {
                        return Err(TemplateError {
                            kind: TemplateErrorKind::BadDefault {
                                name: n.to_string(),
                            },
                        });
                    }
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::VarOr(n.to_string(), d.to_string()));
                    rest = &tail[end + 1..];
                    continue;
                }
                if !valid_var(name) {
                    return Err(TemplateError {
                        kind: TemplateErrorKind::InvalidName {
                            name: name.to_string(),
                        },
                    });
                }
                if !lit.is_empty() {
                    parts.push(Part::Lit(std::mem::take(&mut lit)));
                }
                parts.push(Part::Var(name.to_string()));
                rest = &tail[end + 1..];
            } else {
                lit.push('$');
                rest = &after[1..];
            }
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Ok(Template {
            raw: s.to_string(),
            parts,
        })
    }

    /// `${verbatim:GRAMMAR:TEXT}` as the whole value: `Some`; a value that does not start
    /// with it: `None`.
    fn parse_verbatim(s: &str) -> Result<Option<Template>, TemplateError> {
        let Some(body) = s.strip_prefix(VERBATIM_OPEN) else {
            return Ok(None);
        };
        let bad = || TemplateError {
            kind: TemplateErrorKind::BadVerbatim,
        };
        let (id, text) = body.split_once(':').ok_or_else(bad)?;
        let text = text.strip_suffix('}').ok_or_else(bad)?;
        let g = Grammar::of_id(id)
            .filter(|g| g.verbatim())
            .ok_or_else(bad)?;
        if text.is_empty() {
            return Err(bad());
        }
        Ok(Some(Template {
            raw: s.to_string(),
            parts: vec![Part::Verbatim(g, text.to_string())],
        }))
    }

    /// Text kept verbatim for the clients of grammar `g`.
    pub fn verbatim(g: Grammar, text: &str) -> Template {
        Template {
            raw: format!("{VERBATIM_OPEN}{}:{text}}}", g.id()),
            parts: vec![Part::Verbatim(g, text.to_string())],
        }
    }

    /// The grammar and text of a verbatim value.
    pub fn as_verbatim(&self) -> Option<(Grammar, &str)> {
        match self.parts.as_slice() {
            [Part::Verbatim(g, t)] => Some((*g, t)),
            _ => None,
        }
    }

    /// Whether a reference with a default occurs.
    pub fn has_defaults(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::VarOr(..)))
    }

    /// A template holding only literal text.
    pub fn literal(s: &str) -> Template {
        Template {
            raw: s.replace("${", "$${"),
            parts: if s.is_empty() {
                Vec::new()
            } else {
                vec![Part::Lit(s.to_string())]
            },
        }
    }

    /// Whether any reference occurs (verbatim text counts as one: its client expands it).
    pub fn has_vars(&self) -> bool {
        self.parts.iter().any(|p| !matches!(p, Part::Lit(_)))
    }

    /// The variable names referenced, in order (those of verbatim text as
    /// [`grammar::names_in`] finds them).
    pub fn vars(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().flat_map(|p| match p {
            Part::Var(v) | Part::VarOr(v, _) => vec![v.as_str()],
            Part::Verbatim(_, t) => grammar::names_in(t),
            Part::Lit(_) | Part::Input(_) => Vec::new(),
        })
    }

    /// The ids of the client-prompted inputs (`${input:ID}`) used, in order.
    pub fn inputs(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Input(id) => Some(id.as_str()),
            _ => None,
        })
    }

    /// If the whole template is exactly one reference, its name.
    pub fn sole_var(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Var(v)] => Some(v),
            _ => None,
        }
    }

    /// The literal text, if there is no reference.
    pub fn as_literal(&self) -> Option<String> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Lit(l) => out.push_str(l),
                _ => return None,
            }
        }
        Some(out)
    }

    /// Render with each reference spelled by `var` (e.g. `|v| format!("${{env:{v}}}")`); a
    /// reference with a default is spelled `${VAR:-default}`, verbatim text as it is, and an
    /// input `${input:ID}`, the forms of the clients that take them
    /// ([`crate::dialect::render_target`] refuses them for any other client first).
    pub fn render(&self, var: impl Fn(&str) -> String) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Lit(l) => out.push_str(l),
                Part::Var(v) => out.push_str(&var(v)),
                Part::VarOr(v, d) => out.push_str(&format!("${{{v}:-{d}}}")),
                Part::Verbatim(_, t) => out.push_str(t),
                Part::Input(id) => {
                    out.push_str("${input:");
                    out.push_str(id);
                    out.push('}');
                }
            }
        }
        out
    }

    /// Substitute references from an environment lookup (for `probe`); the first unset one is
    /// an error ([`TemplateErrorKind::Unset`]).
    pub fn resolve(
        &self,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<String, TemplateError> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Lit(l) => out.push_str(l),
                Part::Var(v) => match lookup(v) {
                    Some(val) => out.push_str(&val),
                    None => {
                        return Err(TemplateError {
                            kind: TemplateErrorKind::Unset { name: v.clone() },
                        });
                    }
                },
                // As the clients with defaults read it: unset or empty takes the default.
                Part::VarOr(v, d) => match lookup(v).filter(|x| !x.is_empty()) {
                    Some(val) => out.push_str(&val),
                    None => out.push_str(d),
                },
                Part::Verbatim(..) => {
                    return Err(TemplateError {
                        kind: TemplateErrorKind::Verbatim,
                    });
                }
                Part::Input(id) => {
                    return Err(TemplateError {
                        kind: TemplateErrorKind::Prompted { id: id.clone() },
                    });
                }
            }
        }
        Ok(out)
    }
}

fn valid_var(name: &str) -> bool {
    let mut c = name.chars();
    matches!(c.next(), Some(f) if f == '_' || f.is_ascii_alphabetic())
        && c.all(|ch| ch == '_' || ch.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_references_and_escapes() {
        let t = Template::parse("Bearer ${TOKEN}").unwrap();
        assert_eq!(
            t.parts,
            vec![Part::Lit("Bearer ".into()), Part::Var("TOKEN".into())]
        );
        assert_eq!(t.render(|v| format!("${{env:{v}}}")), "Bearer ${env:TOKEN}");
        let t = Template::parse("a$${b}$c").unwrap();
        assert_eq!(t.parts, vec![Part::Lit("a${b}$c".into())]);
        assert!(!t.has_vars());
        assert_eq!(Template::parse("${X}").unwrap().sole_var(), Some("X"));
        for bad in [
            "${",
            "${1X}",
            "${A-B}",
            "${}",
            "x ${env:A}",
            "${input:}",
            "${input:a b}",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
        let t = Template::parse("Bearer ${input:gh-pat.1} ${X}").unwrap();
        assert_eq!(t.inputs().collect::<Vec<_>>(), ["gh-pat.1"]);
        assert_eq!(t.vars().collect::<Vec<_>>(), ["X"]);
        assert_eq!(t.as_literal(), None);
        assert_eq!(
            t.render(|v| format!("${{env:{v}}}")),
            "Bearer ${input:gh-pat.1} ${env:X}"
        );
        assert_eq!(
            t.resolve(|_| Some("v".into())).unwrap_err().kind,
            TemplateErrorKind::Prompted {
                id: "gh-pat.1".into()
            }
        );
    }

    #[test]
    fn defaults_and_verbatim() {
        let t = Template::parse("${BASE:-https://h}/mcp").unwrap();
        assert_eq!(
            t.parts,
            vec![
                Part::VarOr("BASE".into(), "https://h".into()),
                Part::Lit("/mcp".into())
            ]
        );
        assert_eq!(t.vars().collect::<Vec<_>>(), ["BASE"]);
        assert_eq!(
            t.render(|v| format!("${{env:{v}}}")),
            "${BASE:-https://h}/mcp"
        );
        assert_eq!(t.resolve(|_| None).unwrap(), "https://h/mcp");
        assert_eq!(
            Template::parse("${X:-}")
                .unwrap()
                .resolve(|_| None)
                .unwrap(),
            ""
        );
        assert!(Template::parse("${X:-$Y}").is_err());
        let v = Template::parse("${verbatim:shell:Bearer $(echo ${GH_PAT:-})}").unwrap();
        assert_eq!(
            v.as_verbatim(),
            Some((Grammar::Shell, "Bearer $(echo ${GH_PAT:-})"))
        );
        assert_eq!(
            v,
            Template::verbatim(Grammar::Shell, "Bearer $(echo ${GH_PAT:-})")
        );
        assert!(v.has_vars());
        assert_eq!(v.vars().collect::<Vec<_>>(), ["GH_PAT"]);
        assert_eq!(v.resolve(|_| None).unwrap_err().code(), Code::CannotExpress);
        for bad in [
            "${verbatim:bash:x}",
            "${verbatim:shell:}",
            "${verbatim:plain:x}",
            "${verbatim:shell:x} y",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resolve_reports_missing() {
        let t = Template::parse("${A}-${B}").unwrap();
        let r = t.resolve(|v| (v == "A").then(|| "1".to_string()));
        assert_eq!(
            r.unwrap_err().kind,
            TemplateErrorKind::Unset { name: "B".into() }
        );
    }
}
