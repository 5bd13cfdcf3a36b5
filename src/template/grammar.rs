//! Each client's reference grammar: what it expands in a string of its entries, as one fact of
//! its dialect ([`crate::dialect::Dialect::grammar`]). The manifest's own forms (`${VAR}`,
//! `${VAR:-default}`, `${verbatim:GRAMMAR:TEXT}`) are parsed in [`super::Template::parse`];
//! this module reads a client's text back into them (`import`) and says which forms a client
//! can take (`render_target`).

use super::Part;

/// A client's expansion grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    /// Only its own reference spelling (`${VAR}`, `${env:VAR}`, `{env:VAR}`, …), no default
    /// and nothing else: most clients.
    Plain,
    /// `${VAR}` and `${VAR:-default}` (Claude Code).
    BraceDefault,
    /// `$VAR` and `${VAR}`, no default, no escape (Qwen Code).
    Dollar,
    /// `$VAR`, `${VAR}` and `${VAR:-default}`, no escape (Gemini CLI).
    DollarDefault,
    /// A shell-like expander: `$VAR`, `${VAR}`, `${VAR:-default}` and command substitution
    /// `$(cmd)` (Crush).
    Shell,
}

/// Every grammar, for messages and docs.
pub const ALL: [Grammar; 5] = [
    Grammar::Plain,
    Grammar::BraceDefault,
    Grammar::Dollar,
    Grammar::DollarDefault,
    Grammar::Shell,
];

impl Grammar {
    /// The id the manifest's verbatim form names (`${verbatim:shell:…}`).
    pub fn id(self) -> &'static str {
        match self {
            Grammar::Plain => "plain",
            Grammar::BraceDefault => "brace-default",
            Grammar::Dollar => "dollar",
            Grammar::DollarDefault => "dollar-default",
            Grammar::Shell => "shell",
        }
    }

    /// The grammar of an id.
    pub fn of_id(id: &str) -> Option<Grammar> {
        ALL.into_iter().find(|g| g.id() == id)
    }

    /// Whether `${VAR:-default}` is a reference with a default.
    pub fn defaults(self) -> bool {
        !matches!(self, Grammar::Plain | Grammar::Dollar)
    }

    /// Whether `$VAR` (no braces) is a reference.
    pub fn bare(self) -> bool {
        matches!(
            self,
            Grammar::Dollar | Grammar::DollarDefault | Grammar::Shell
        )
    }

    /// Whether the manifest's verbatim form may name it: a grammar whose expansions go beyond
    /// what a `${VAR}` reference says.
    pub fn verbatim(self) -> bool {
        self != Grammar::Plain
    }

    /// What it expands, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Grammar::Plain => "its reference spelling only",
            Grammar::BraceDefault => "`${VAR}` and `${VAR:-default}`",
            Grammar::Dollar => "`$VAR` and `${VAR}`",
            Grammar::DollarDefault => "`$VAR`, `${VAR}` and `${VAR:-default}`",
            Grammar::Shell => {
                "`$VAR`, `${VAR}`, `${VAR:-default}` and command substitution `$(cmd)`"
            }
        }
    }

    /// A client's text read into the manifest's parts: `${VAR}` (and `$VAR` where bare names
    /// are references) a reference, `${VAR:-default}` with a plain default ([`plain_default`])
    /// a reference with a default, the rest literal. `None` when the text holds an expansion
    /// the parts cannot say (command substitution, `$1`, `${#X}`, a default that is itself
    /// expanded, …): the manifest keeps it verbatim. For the grammars beyond
    /// [`Grammar::Plain`].
    pub fn read(self, text: &str) -> Option<Vec<Part>> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = text;
        let push = |parts: &mut Vec<Part>, lit: &mut String, p: Part| {
            if !lit.is_empty() {
                parts.push(Part::Lit(std::mem::take(lit)));
            }
            parts.push(p);
        };
        while let Some(i) = rest.find(['$', '`']) {
            lit.push_str(&rest[..i]);
            let after = &rest[i..];
            if let Some(tail) = after.strip_prefix('`') {
                if self == Grammar::Shell {
                    return None;
                }
                lit.push('`');
                rest = tail;
                continue;
            }
            let b = after.as_bytes();
            match b.get(1) {
                Some(b'{') => {
                    let end = after.find('}')?;
                    let inner = &after[2..end];
                    let (name, default) = match inner.split_once(":-") {
                        Some((n, d)) => (n, Some(d)),
                        None => (inner, None),
                    };
                    match default {
                        _ if !super::valid_var(name) => {
                            // Claude Code expands only `${NAME}` / `${NAME:-…}`: other text is
                            // its literal; the others take any name.
                            if self != Grammar::BraceDefault {
                                return None;
                            }
                            lit.push_str(&after[..=end]);
                        }
                        None => push(&mut parts, &mut lit, Part::Var(name.to_string())),
                        Some(d) if self.defaults() && plain_default(d) => push(
                            &mut parts,
                            &mut lit,
                            Part::VarOr(name.to_string(), d.to_string()),
                        ),
                        Some(_) => return None,
                    }
                    rest = &after[end + 1..];
                }
                Some(c) if self.bare() && (c.is_ascii_alphabetic() || *c == b'_') => {
                    let n = after[1..]
                        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                        .map_or(after.len(), |k| k + 1);
                    push(&mut parts, &mut lit, Part::Var(after[1..n].to_string()));
                    rest = &after[n..];
                }
                // `$(cmd)`, `$1`, `$@`, `$$`: expanded by a shell (Gemini's `\w+` takes `$1`).
                Some(c)
                    if self.bare()
                        && (c.is_ascii_digit()
                            || (self == Grammar::Shell && b"(@*#?$!-".contains(c))) =>
                {
                    return None;
                }
                _ => {
                    lit.push('$');
                    rest = &after[1..];
                }
            }
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Some(parts)
    }
}

/// A default every grammar with defaults reads as the same literal text: no `}` (it would end
/// the reference), no `$` or `` ` `` (a shell would expand them), no quote or backslash (a
/// shell would take them away).
pub fn plain_default(d: &str) -> bool {
    !d.contains(['}', '$', '`', '"', '\'', '\\'])
}

/// `s` with each `$VAR` spelled `${VAR}` (for the clients that read both alike: entries that
/// differ only so are the same entry).
pub fn braced(s: &str) -> std::borrow::Cow<'_, str> {
    let b = s.as_bytes();
    let bare = |i: usize| {
        b[i] == b'$'
            && b.get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    };
    if !(0..b.len()).any(bare) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < b.len() {
        if bare(i) {
            let n = s[i + 1..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .map_or(s.len(), |k| i + 1 + k);
            out.push_str("${");
            out.push_str(&s[i + 1..n]);
            out.push('}');
            i = n;
        } else {
            let ch = s[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8().max(1);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The variable names verbatim text refers to (`$NAME`, `${NAME…`), for the checks that a
/// variable is set.
pub fn names_in(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        let after = &rest[i + 1..];
        let body = after.strip_prefix('{').unwrap_or(after);
        let n = body
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(body.len());
        if n > 0 && super::valid_var(&body[..n]) && !out.contains(&&body[..n]) {
            out.push(&body[..n]);
        }
        rest = after;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_grammar() {
        let g = Grammar::Shell;
        assert_eq!(
            g.read("Bearer $TOKEN").unwrap(),
            vec![Part::Lit("Bearer ".into()), Part::Var("TOKEN".into())]
        );
        assert_eq!(
            g.read("${A:-x}/mcp").unwrap(),
            vec![
                Part::VarOr("A".into(), "x".into()),
                Part::Lit("/mcp".into())
            ]
        );
        for unmodelled in ["$(echo ${X:-})", "`id`", "$1", "${#X}", "${X:-$Y}", "a$@"] {
            assert!(g.read(unmodelled).is_none(), "{unmodelled}");
        }
        assert_eq!(g.read("a $ b").unwrap(), vec![Part::Lit("a $ b".into())]);
        // Claude Code: `$NAME` is text, `${a-b}` too.
        let c = Grammar::BraceDefault;
        assert_eq!(c.read("$X").unwrap(), vec![Part::Lit("$X".into())]);
        assert_eq!(c.read("${a-b}").unwrap(), vec![Part::Lit("${a-b}".into())]);
        assert!(Grammar::DollarDefault.read("$1x").is_none());
        assert_eq!(names_in("$(echo ${GH_PAT:-}) $B"), vec!["GH_PAT", "B"]);
        assert_eq!(braced("Bearer $T/${U} $ é$_x"), "Bearer ${T}/${U} $ é${_x}");
    }
}
