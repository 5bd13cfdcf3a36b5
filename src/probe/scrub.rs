//! The secrets of one probe and how they are kept out of what it returns.
//!
//! Known secrets are the expanded value of every `${VAR}` reference, every env and header value
//! (and a header's bare token), and literal credentials found in `args` and the URL. Text from a
//! server (stderr, a stray stdout line, an HTTP error body) is scrubbed of those and of any token
//! the shared detector ([`crate::redact::secret_value`]) recognises, and only then cut to its
//! bound: a cut never leaves half a secret behind.

use std::ops::Range;

use crate::redact::{REDACTED, credential_name, detect, secret_value};

/// The secrets one probe knows (raw and JSON-escaped forms).
#[derive(Debug, Default, Clone)]
pub(super) struct Secrets {
    values: Vec<String>,
}

/// Characters that end a word when looking for tokens in free text.
fn separator(c: char) -> bool {
    c.is_whitespace() || "\"'`=,;()<>[]{}|".contains(c)
}

impl Secrets {
    /// Remember a value (too short ones would only garble output).
    pub(super) fn add(&mut self, value: &str) {
        if value.trim().len() < 4 {
            return;
        }
        let escaped = serde_json::Value::String(value.to_string()).to_string();
        let escaped = &escaped[1..escaped.len() - 1];
        for v in [value, value.trim(), escaped] {
            if v.len() >= 4 && !self.values.iter().any(|x| x == v) {
                self.values.push(v.to_string());
            }
        }
        if let Some((scheme, token)) = value.split_once(' ')
            && !scheme.is_empty()
            && token.trim().len() >= 4
        {
            self.add(token.trim());
        }
    }

    /// Remember the literal credentials in a command line: tokens the detector recognises, and
    /// the value of a credential-named option in every shape the shared reading of argument
    /// vectors knows (`--api-key=V`, `--token V`, `tool --token=V`;
    /// [`crate::redact::argv::values`]).
    pub(super) fn add_from_args(&mut self, args: &[String]) {
        for a in args {
            for tok in a.split(separator) {
                if secret_value(tok) {
                    self.add(tok);
                }
            }
        }
        for (i, r) in crate::redact::argv::values(args) {
            self.add(&args[i][r]);
        }
    }

    /// Remember the password and the credential-named query values of a URL.
    pub(super) fn add_from_url(&mut self, url: &str) {
        if let Some((_, rest)) = url.split_once("://") {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            if let Some((userinfo, _)) = authority.rsplit_once('@')
                && let Some((_, pass)) = userinfo.split_once(':')
            {
                self.add(pass);
            }
        }
        let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
        let query = query.split('#').next().unwrap_or("");
        for pair in query.split('&') {
            if let Some((k, v)) = pair.split_once('=')
                && (credential_name(k) || secret_value(v))
            {
                self.add(v);
            }
        }
    }

    /// The byte ranges of `text` that are secrets: known values and detected tokens, merged.
    fn ranges(&self, text: &str) -> Vec<Range<usize>> {
        let mut r: Vec<Range<usize>> = Vec::new();
        for v in &self.values {
            r.extend(text.match_indices(v.as_str()).map(|(i, m)| i..i + m.len()));
        }
        // Tokens the shared detector recognises, then words that are a secret as a whole (a
        // URL with a password in it).
        r.extend(detect::tokens(text).into_iter().map(|(x, _)| x));
        let mut start = None;
        for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
            match (separator(c), start) {
                (true, Some(s)) => {
                    if secret_value(&text[s..i]) {
                        r.push(s..i);
                    }
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        r.sort_by_key(|x| (x.start, std::cmp::Reverse(x.end)));
        let mut merged: Vec<Range<usize>> = Vec::new();
        for x in r {
            match merged.last_mut() {
                Some(last) if x.start <= last.end => last.end = last.end.max(x.end),
                _ => merged.push(x),
            }
        }
        merged
    }

    /// `text` with every secret replaced by `<redacted>`, from byte `from` on (a secret that
    /// begins before `from` and reaches past it is replaced whole).
    fn redact_from(&self, text: &str, from: usize) -> String {
        let mut out = String::with_capacity(text.len().saturating_sub(from));
        let mut at = from;
        for r in self.ranges(text) {
            if r.end <= at {
                continue;
            }
            if r.start > at {
                out.push_str(&text[at..r.start]);
            }
            out.push_str(REDACTED);
            at = r.end;
        }
        if at < text.len() {
            out.push_str(&text[at..]);
        }
        out
    }

    /// Every secret in `text` replaced by `<redacted>`.
    pub(super) fn redact(&self, text: &str) -> String {
        self.redact_from(text, 0)
    }

    /// The last `keep` bytes (about) of what a server wrote, scrubbed. `raw` holds the end of the
    /// stream; when `truncated`, its first bytes may be the tail of a secret whose head was
    /// dropped, so the cut falls at least [`Self::margin`] bytes in and never inside a secret.
    pub(super) fn tail(&self, raw: &[u8], keep: usize, truncated: bool) -> String {
        let text = String::from_utf8_lossy(raw);
        let mut cut = text.len().saturating_sub(keep);
        if truncated {
            cut = cut.max(self.margin().min(text.len()));
        }
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        self.redact_from(&text, cut)
    }

    /// How many bytes before the shown tail the raw buffer must keep so that any secret that
    /// reaches into the tail is seen whole.
    pub(super) fn margin(&self) -> usize {
        self.values.iter().map(String::len).max().unwrap_or(0) + 512
    }

    /// A printable, one-line excerpt of bytes from a server, scrubbed first and then cut to
    /// about `max` bytes.
    pub(super) fn snippet(&self, bytes: &[u8], max: usize) -> String {
        let text = self.redact(&String::from_utf8_lossy(bytes));
        super::session::snippet(text.as_bytes(), max)
    }
}

/// Text from a server made safe for a terminal ([`crate::redact::escape_controls_in`]):
/// control characters (ESC, BEL, CR, …) and the bidirectional controls written visibly; with
/// `lines`, `\n` and `\t` are kept.
///
/// ```
/// assert_eq!(mcpconf::probe::printable("a\u{1b}[31mb\u{7}", false), "a\\x1b[31mb\\x07");
/// assert_eq!(mcpconf::probe::printable("x\ny", true), "x\ny");
/// ```
pub fn printable(text: &str, lines: bool) -> String {
    crate::redact::escape_controls_in(text, lines).into_owned()
}

impl Secrets {
    /// A string a server chose (its name, version, tool names), or that names one: every
    /// secret the run knows masked, control characters escaped.
    pub(super) fn server_text(&self, s: &str) -> String {
        printable(&self.redact(s), false)
    }

    /// Scrub every string of an outcome that a server or a client file provided: the table,
    /// the JSON and `--write-pins` all read these.
    pub(super) fn scrub_outcome(&self, o: &mut super::Outcome) {
        o.name = printable(&o.name, false);
        let list = |v: &mut Vec<String>| {
            for s in v.iter_mut() {
                *s = self.server_text(s);
            }
        };
        list(&mut o.tools);
        list(&mut o.unpinned);
        list(&mut o.missing);
        list(&mut o.changed);
        o.tool_digests = std::mem::take(&mut o.tool_digests)
            .into_iter()
            .map(|(k, v)| (self.server_text(&k), v))
            .collect();
        o.context_by_tool = std::mem::take(&mut o.context_by_tool)
            .into_iter()
            .map(|(k, v)| (self.server_text(&k), v))
            .collect();
        if let Some(v) = o.protocol_version.as_mut() {
            *v = self.server_text(v);
        }
        if let Some(si) = o.server.as_mut() {
            si.name = self.server_text(&si.name);
            si.version = self.server_text(&si.version);
        }
        if let Some(e) = o.error.as_mut() {
            *e = self.server_text(e);
        }
        if let Some(t) = o.stderr.as_mut() {
            *t = printable(&self.redact(t), true);
        }
        if let Some(a) = o.auth.as_mut() {
            if let Some(u) = a.resource_metadata.as_mut() {
                *u = self.server_text(u);
            }
            list(&mut a.authorization_servers);
            list(&mut a.scopes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "sk-live-0123456789abcdefghijklmnop";

    #[test]
    fn a_cut_never_shows_half_a_secret() {
        let mut s = Secrets::default();
        s.add("Zq9-very-secret-expanded-value-4711");
        let secret = "Zq9-very-secret-expanded-value-4711";
        for pad in 0..80 {
            let text = format!("{}{secret} and {TOKEN} end\n", "x".repeat(pad));
            for keep in 1..text.len() + 2 {
                for truncated in [false, true] {
                    let t = s.tail(text.as_bytes(), keep, truncated);
                    for probe in [secret, TOKEN] {
                        for k in 6..probe.len() {
                            assert!(
                                !t.contains(&probe[probe.len() - k..]),
                                "pad {pad} keep {keep}: {t:?}"
                            );
                        }
                    }
                }
            }
            // A raw buffer that starts inside a secret: the rest is never shown.
            let raw = &secret.as_bytes()[10..];
            let t = s.tail(raw, 4096, true);
            assert!(!t.contains(&secret[10..20]), "{t:?}");
            let sn = s.snippet(text.as_bytes(), pad + 10);
            assert!(!sn.contains("very-secret"), "{sn:?}");
        }
    }

    #[test]
    fn literal_credentials_in_args_and_urls_are_known() {
        let mut s = Secrets::default();
        s.add_from_args(&[
            "--api-key=plainvalue123".into(),
            "--token".into(),
            "nextarg-value".into(),
            "--verbose".into(),
            format!("--other={TOKEN}"),
        ]);
        s.add_from_url("https://u:pw-in-url@h/p?api_key=query-secret-1&x=1");
        let out = s.redact(&format!(
            "plainvalue123 nextarg-value {TOKEN} pw-in-url query-secret-1 x=1 --verbose"
        ));
        assert_eq!(
            out,
            "<redacted> <redacted> <redacted> <redacted> <redacted> x=1 --verbose"
        );
        // A token the detector knows is scrubbed even when nothing declared it.
        assert_eq!(
            Secrets::default().redact(&format!("key:{TOKEN}.")),
            "key:<redacted>."
        );
    }
}
