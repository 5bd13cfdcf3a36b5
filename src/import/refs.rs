//! References as the client spells them, read into the manifest's form: its own spelling
//! (`${env:VAR}`, `{env:VAR}`), its expansion grammar (defaults, `$VAR`, verbatim text), another
//! client's spelling the operator meant, prompted inputs, and literal `${` escaped.

use super::Notes;
use crate::dialect::Slot;
use crate::template::{Grammar, Part, Template};

/// [`neutral`] of a field's value, with a note when the value spells a reference in a form its
/// client does not expand (`${VAR}` in a Cursor file: Claude Code's spelling): the operator
/// meant that reference, so import reads it as one, and `apply` writes the client's own form.
pub(super) fn read_field(
    server: &str,
    field: &str,
    s: &str,
    dialect: &str,
    notes: &mut Notes,
) -> String {
    // Where the client expands no reference (Kiro's args, say), nothing is one: the text is
    // the literal it reads, `${` escaped (issue 27 item 15).
    let slot = match field.split('.').next() {
        Some("command") => Slot::Command,
        Some("env") => Slot::Env,
        Some("headers") => Slot::Header,
        _ => Slot::Plain,
    };
    if crate::dialect::lookup(dialect).is_some_and(|d| !d.expands_in(slot)) {
        return s.replace("${", "$${");
    }
    // A client with a grammar of its own (defaults, `$VAR`, command substitution): its text
    // read by that grammar, the same construct the same way in every field.
    if let Some(g) = crate::dialect::lookup(dialect)
        .map(|d| d.grammar())
        .filter(|g| *g != Grammar::Plain)
    {
        return in_grammar(g, s);
    }
    let foreign = foreign_references(s, dialect);
    if !foreign.is_empty() && notes.as_client {
        notes.say(format!(
            "server `{server}`: `{field}` spells {} as `${{VAR}}`, which `{dialect}` does not expand there: it passes the text on as it is, and so does this probe",
            quoted_refs(&foreign)
        ));
        return neutral_as(s, dialect, false);
    }
    if !foreign.is_empty() {
        let own = match spelling(dialect) {
            ("${env:", _) => "`${env:VAR}`",
            ("{env:", _) => "`{env:VAR}`",
            _ => "its own form",
        };
        notes.say(format!(
            "server `{server}`: `{field}` spells {} as `${{VAR}}`, which `{dialect}` does not expand there (it expands {own}); import reads the reference that was meant, and `apply` writes it in {own}",
            quoted_refs(&foreign)
        ));
        if !notes.respelled.iter().any(|r| r == server) {
            notes.respelled.push(server.to_string());
        }
        notes.changed(server, s, "");
    }
    neutral(s, dialect)
}

/// A client's text in grammar `g` as the manifest writes it: references (with their defaults)
/// as `${VAR}` / `${VAR:-default}`, literal `${` escaped, or, when it holds an expansion the
/// manifest cannot say (`$(cmd)`, `$1`, …), the whole text verbatim for that grammar
/// (`${verbatim:shell:…}`).
pub(super) fn in_grammar(g: Grammar, s: &str) -> String {
    match g.read(s) {
        Some(parts) => parts
            .iter()
            .map(|p| match p {
                Part::Lit(l) => l.replace("${", "$${"),
                Part::Var(v) => format!("${{{v}}}"),
                Part::VarOr(v, d) => format!("${{{v}:-{d}}}"),
                Part::Verbatim(_, t) => t.clone(),
                Part::Input(id) => format!("${{input:{id}}}"),
            })
            .collect(),
        None => Template::verbatim(g, s).raw,
    }
}

/// `protect` for a value the manifest keeps verbatim: `f` on its text (a credential in it
/// replaced by `${VAR}`, which every grammar reads as a reference), the result read again in
/// the grammar; `None` for any other value.
pub(super) fn in_verbatim(v: &str, f: impl FnOnce(String) -> String) -> Option<String> {
    let t = Template::parse(v).ok()?;
    let (g, text) = t.as_verbatim()?;
    Some(in_grammar(g, &f(text.to_string())))
}

/// `` `${A}`, `${B}` ``: the references named, for a message.
pub(super) fn quoted_refs(vars: &[String]) -> String {
    vars.iter()
        .map(|v| format!("`${{{v}}}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a client spells a reference: its opening and closing text (`("\0", "\0")`: it has no
/// reference syntax in these fields, so every `${` is literal).
pub(super) fn spelling(dialect: &str) -> (&'static str, &'static str) {
    use crate::dialect::{Places, RefForm};
    // The spelling the client's dialect writes (one table: `Dialect::expansion`); Continue's
    // `${{ secrets.VAR }}` is not an environment reference form of its own.
    if dialect == "continue" {
        return ("${{ secrets.", " }}");
    }
    match crate::dialect::lookup(dialect).map(|d| d.expansion()) {
        Some(e) if e.places == Places::Nowhere => ("\u{0}", "\u{0}"),
        Some(e) => match e.forms.first() {
            Some(RefForm::Env) => ("${env:", "}"),
            Some(RefForm::Opencode) => ("{env:", "}"),
            _ => ("${", "}"),
        },
        None => ("${", "}"),
    }
}

/// The variables of the bare `${VAR}` references in `s` when its client spells references
/// another way (then `${VAR}` is the spelling of Claude Code and the `${…}` clients, a
/// reference the operator meant, not text). Clients without a reference syntax, and the
/// `${…}` clients themselves, have none.
pub(super) fn foreign_references(s: &str, dialect: &str) -> Vec<String> {
    let (open, _) = spelling(dialect);
    if open == "${" || open == "\u{0}" {
        return Vec::new();
    }
    // The client's own variables (`${workspaceFolder}`) are no environment references: they
    // stay as written (a literal the client fills in).
    let builtins = crate::dialect::lookup(dialect).map_or(&[][..], |d| d.builtins());
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        if !rest[..i].ends_with('$')
            && !rest[i..].starts_with(open)
            && let Some(j) = after.find('}')
            && valid_var(&after[..j])
            && !builtins.contains(&&after[..j])
        {
            out.push(after[..j].to_string());
        }
        rest = after;
    }
    out
}

/// The client's reference spelling turned back into `${VAR}`; a bare `${VAR}` in a client
/// that spells references another way is read as the reference it was meant to be
/// ([`foreign_references`]); any other `${` is escaped.
pub(super) fn neutral(s: &str, dialect: &str) -> String {
    neutral_as(s, dialect, true)
}

/// [`neutral`]; `meant`: whether a reference spelled in a form the client does not expand is
/// read as the reference meant (import) or as the literal text the client passes on (probe).
pub(super) fn neutral_as(s: &str, dialect: &str, meant: bool) -> String {
    let (open, close) = spelling(dialect);
    let mut out = String::new();
    let mut rest = s;
    loop {
        let next_dollar = rest.find("${");
        let next_ref = rest
            .find(open)
            .filter(|i| next_dollar.is_none_or(|d| *i <= d));
        if let Some(i) = next_ref {
            let after = &rest[i + open.len()..];
            match after.find(close) {
                Some(j) if valid_var(&after[..j]) => {
                    out.push_str(&rest[..i].replace("${", "$${"));
                    out.push_str("${");
                    out.push_str(&after[..j]);
                    out.push('}');
                    rest = &after[j + close.len()..];
                }
                _ => {
                    let step = i + open.len();
                    out.push_str(&rest[..step].replace("${", "$${"));
                    rest = &rest[step..];
                }
            }
        } else if let Some(d) = next_dollar {
            out.push_str(&rest[..d]);
            let after = &rest[d + 2..];
            // A client-prompted input, where the client prompts: the manifest's `${input:ID}`.
            if let Some(n) = input_at(after, dialect)
                && !rest[..d].ends_with('$')
            {
                out.push_str(&rest[d..d + 2 + n]);
                rest = &after[n..];
                continue;
            }
            match after.find('}') {
                Some(j)
                    if meant
                        && !foreign_references(&rest[d..d + 3 + j], dialect).is_empty()
                        && !rest[..d].ends_with('$') =>
                {
                    out.push_str("${");
                    out.push_str(&after[..=j]);
                    rest = &after[j + 1..];
                }
                _ => {
                    out.push_str("$${");
                    rest = after;
                }
            }
        } else {
            out.push_str(rest);
            return out;
        }
    }
}

/// The length of `input:ID}` at the start of `after` (the text after a `${`) when the
/// client prompts for inputs ([`crate::dialect::Dialect::inputs_array`]).
pub(super) fn input_at(after: &str, dialect: &str) -> Option<usize> {
    crate::dialect::lookup(dialect)?.inputs_array()?;
    let id_and_rest = after.strip_prefix("input:")?;
    let end = id_and_rest.find('}')?;
    crate::template::valid_input_id(&id_and_rest[..end]).then_some(6 + end + 1)
}

pub(super) fn valid_var(name: &str) -> bool {
    let mut c = name.chars();
    matches!(c.next(), Some(f) if f == '_' || f.is_ascii_alphabetic())
        && c.all(|ch| ch == '_' || ch.is_ascii_alphanumeric())
}
