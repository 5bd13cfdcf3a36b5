//! Literal secrets made references: a credential-like env or header value, or a credential
//! inside any other string, replaced by `${VAR}` with a warning naming the variable to set.

use super::refs::in_verbatim;
use super::{Notes, as_written, var_name};
use crate::redact::{classify, credential_name};

/// Replace a literal secret by a reference, with a warning: a value under a credential-like
/// name, or any value the shared detector flags (the test `lint`'s `literal-secret` applies).
pub(super) fn protect(
    server: &str,
    key: &str,
    v: String,
    is_header: bool,
    notes: &mut Notes,
) -> String {
    if v.starts_with(crate::template::VERBATIM_OPEN)
        && let Some(out) = in_verbatim(&v, |t| {
            // Only the credential inside is replaced: the rest is the client's text.
            let field = format!("{}.{key}", if is_header { "headers" } else { "env" });
            protect_inline_text(server, &field, t, notes)
        })
    {
        return out;
    }
    protect_text(server, key, v, is_header, notes)
}

/// [`protect`] of a value's text.
pub(super) fn protect_text(
    server: &str,
    key: &str,
    v: String,
    is_header: bool,
    notes: &mut Notes,
) -> String {
    // The same decision as the diff's mask and lint's `literal-secret` (`must_hide`), on the
    // text as the file holds it ([`as_written`]): a placeholder or a plain word under a
    // credential-like name stays as it is.
    let written = as_written(&v);
    let by_name = credential_name(key) && crate::redact::must_hide(key, &written);
    if !by_name && classify(key, &written).is_none() {
        return v;
    }
    // Under a plain name (`DB_URL`, `CONFIG`), only what lies inside becomes a reference
    // (`Server=db;Password=${…};`), so the rest of the value stays what the server reads.
    let t = v.trim();
    let whole_token = crate::redact::detect::tokens(t)
        .iter()
        .any(|(r, _)| r.start == 0 && r.end == t.len());
    if !by_name && !whole_token {
        let field = format!("{}.{key}", if is_header { "headers" } else { "env" });
        return protect_inline(server, &field, v, notes);
    }
    let var = if is_header {
        var_name(&[
            server,
            if key.eq_ignore_ascii_case("authorization") {
                "token"
            } else {
                key
            },
        ])
    } else {
        var_name(&[key])
    };
    notes.say(format!(
        "server `{server}`: the literal secret in {} `{key}` was replaced by `${{{var}}}`; set {var} in the environment before applying",
        if is_header { "header" } else { "env" }
    ));
    notes.replaced(&var);
    notes.changed(server, &v, &var);
    let scheme = v
        .split_once(' ')
        .filter(|(s, _)| ["bearer", "basic", "token"].contains(&s.to_ascii_lowercase().as_str()))
        .map(|(s, _)| format!("{s} "));
    format!("{}${{{var}}}", scheme.unwrap_or_default())
}

/// Replace the secrets inside a string that is not a name/value pair (`command`, an `args`
/// element, `url`, `cwd`) by references: the value of a credential-named option
/// (`--api-key=…`), a URL's password and credential-named query values, and every token the
/// detector recognises; if the detector still flags what is left, the whole string. Each
/// replacement is a warning naming the variable.
pub(super) fn protect_inline(server: &str, field: &str, v: String, notes: &mut Notes) -> String {
    if v.starts_with(crate::template::VERBATIM_OPEN)
        && let Some(out) = in_verbatim(&v, |t| protect_inline_text(server, field, t, notes))
    {
        return out;
    }
    protect_inline_text(server, field, v, notes)
}

/// [`protect_inline`] of a value's text.
pub(super) fn protect_inline_text(
    server: &str,
    field: &str,
    v: String,
    notes: &mut Notes,
) -> String {
    if classify(field, &as_written(&v)).is_none() {
        return v;
    }
    let mut out = v.clone();
    let mut replace = |out: &mut String, range: std::ops::Range<usize>, parts: &[&str]| {
        let original = out[range.clone()].to_string();
        let var = notes.var_for(&original, parts);
        out.replace_range(range, &format!("${{{var}}}"));
        notes.say(format!(
            "server `{server}`: the literal secret in `{field}` was replaced by `${{{var}}}`; set {var} in the environment before applying"
        ));
        notes.replaced(&var);
        notes.changed(server, &original, &var);
    };
    // Every credential inside the string, found by the one reading every output shares
    // (`redact::spans`: tokens, credential pairs and options, URL passwords and query values,
    // literal `Bearer` tokens), outermost first; replaced right to left so that earlier
    // offsets stay valid.
    let mut spans: Vec<(std::ops::Range<usize>, String)> = crate::redact::spans::secret_spans(&out)
        .into_iter()
        .map(|s| (s.range, s.name.trim_start_matches('-').to_string()))
        .collect();
    // Of two spans over the same bytes, the one named by its key or option names the variable.
    spans.sort_by_key(|(r, n)| (r.start, std::cmp::Reverse(r.end), n == "token"));
    let mut kept: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for (r, name) in spans {
        if kept.last().is_none_or(|(k, _)| r.start >= k.end) && r.end > r.start {
            kept.push((r, name));
        }
    }
    for (r, name) in kept.into_iter().rev() {
        replace(&mut out, r, &[server, &name]);
    }
    if classify(field, &as_written(&out)).is_some() {
        out = String::new();
        replace(&mut out, 0..0, &[server, field]);
    }
    out
}
