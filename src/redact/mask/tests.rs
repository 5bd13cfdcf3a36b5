//! Tests of the masking lexer, the windows and the key blocks.

use super::*;

const SK: &str = "sk-live-abcdefghijklmnopqrstuvwxyz012345";

#[test]
fn escaped_secrets_are_found_after_decoding() {
    let text = format!(
        "{{\n  \"env\": {{\"OPENAI\": \"\\u0073k-live-abcdefghijklmnopqrstuvwxyz012345\", \"TOKEN\": \"PLANTED\\/x9Qz7Lk2Vb\"}},\n  \"args\": [\"--token={SK}\", \"-y\"],\n  // old key {SK}\n  \"{SK}\": \"x\"\n}}\n"
    );
    let m = mask(&text, Lang::Json);
    assert_eq!(m.lines().count(), text.lines().count());
    assert!(
        !m.contains("PLANTED") && !m.contains("abcdefghijklmnop"),
        "{m}"
    );
    assert!(m.contains("\"-y\"") && m.contains("\"env\""), "{m}");
}

#[test]
fn toml_multi_line_strings_keep_their_lines() {
    let text = format!(
        "[mcp_servers.a.env]\nAPI_TOKEN = \"\"\"\nPLANTEDsecretValue99\"\"\"\nPATH = '/bin'\nargs = ['--token={SK}'] # {SK}\n"
    );
    let m = mask(&text, Lang::Toml);
    assert_eq!(m.lines().count(), text.lines().count());
    assert!(
        !m.contains("PLANTED") && !m.contains("abcdefghijklmnop"),
        "{m}"
    );
    assert!(m.contains("PATH = '/bin'"), "{m}");
}

#[test]
fn lines_that_cannot_be_cleared_are_hidden() {
    // Inside a multi-line string started before the window: bare text is not cleared.
    let text = "PLANTEDsecretValue99\"\"\"\nPATH = \"/bin\"\n  \"a\": 1,\n";
    let m = mask_lines(text, Lang::Toml);
    assert_eq!(m, "<redacted>\nPATH = \"/bin\"\n  <redacted>\n");
    let j = mask_lines(
        "  \"API_KEY\": \"hunter2hunter2\",\n  \"x\": [1, true],\n",
        Lang::Json,
    );
    assert_eq!(j, "  \"API_KEY\": \"<redacted>\",\n  \"x\": [1, true],\n");
}

#[test]
fn diff_is_computed_on_the_text_and_shown_masked() {
    let old = "{\n  \"TOKEN\": \"aaaaaaaaaaaa1\",\n  \"b\": 1\n}";
    let new = "{\n  \"TOKEN\": \"bbbbbbbbbbbb2\",\n  \"b\": 1\n}";
    let d = unified_diff(
        old,
        new,
        &mask(old, Lang::Json),
        &mask(new, Lang::Json),
        ("f", "f"),
    );
    let plain = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("f", "f")
        .to_string();
    assert_eq!(
        d,
        plain
            .replace("aaaaaaaaaaaa1", REDACTED)
            .replace("bbbbbbbbbbbb2", REDACTED)
    );
    assert_eq!(unified_diff(old, old, old, old, ("f", "f")), "");
}

/// The lines `from..to` of the whole text masked, the way [`mask_window`] promises them.
fn whole_lines(text: &str, lang: Lang, from: usize, to: usize) -> String {
    let skip = text[..from].matches('\n').count();
    let n = text[from..to].split_inclusive('\n').count();
    mask(text, lang)
        .split_inclusive('\n')
        .skip(skip)
        .take(n)
        .collect()
}

/// Every pair of line starts (and the end) of `text`.
fn windows(text: &str) -> Vec<(usize, usize)> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(k, _)| k + 1))
        .chain(std::iter::once(text.len()))
        .collect();
    let mut out = Vec::new();
    for (i, &from) in starts.iter().enumerate() {
        for &to in &starts[i..] {
            out.push((from, to));
        }
    }
    out
}

#[test]
fn a_window_is_masked_as_the_whole_text_is() {
    let text = format!(
        "{{\n  \"env\": {{\n    \"TOKEN\":\n      \"hunter2hunter2\",\n    \"PATH\": \"/bin\"\n  }},\n  /* a\n   {SK}\n   b */\n  \"args\": [\n    \"--x\",\n    \"{SK}\"\n  ]\n}}\n"
    );
    for lang in [Lang::Json, Lang::Toml] {
        for (from, to) in windows(&text) {
            assert_eq!(
                mask_window(&text, lang, from, to),
                whole_lines(&text, lang, from, to),
                "{lang:?} {from}..{to}"
            );
        }
    }
    // The value under `TOKEN` (its key one line up) and the comment's middle line.
    let k = text.find("      \"hunter2").unwrap();
    let w = mask_window(&text, Lang::Json, k, k + 1);
    assert_eq!(w, "      \"<redacted>\",\n");
    let c = text.find("   sk-").unwrap();
    let w = mask_window(&text, Lang::Json, c, c + 1);
    assert!(
        w.starts_with("   ") && !w.contains("abcdefghijklmnop"),
        "{w}"
    );
    // A TOML multi-line string opened above the window: its lines are hidden.
    let toml = "[a]\nAPI_TOKEN = \"\"\"\nPLANTED1\nPLANTED2\"\"\"\nX = 1\n";
    let k = toml.find("PLANTED1").unwrap();
    assert_eq!(mask_window(toml, Lang::Toml, k, toml.len()), "\n\nX = 1\n");
}

/// Pieces of JSON, JSONC and TOML, valid or not, to build texts from.
const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " = ",
    "\n",
    "\n",
    "\n",
    " ",
    "\"TOKEN\"",
    "\"env\"",
    "\"args\"",
    "\"x\"",
    "'lit'",
    "\"hunter2hunter2\"",
    "\"${VAR}\"",
    "\"a\\\"b\"",
    "\"\\u0073k-live-abcdefghijklmnopqrstuvwxyz012345\"",
    "sk-live-abcdefghijklmnopqrstuvwxyz012345",
    "// c\n",
    "// sk-live-abcdefghijklmnopqrstuvwxyz012345\n",
    "/* a\n",
    "*/",
    "# h\n",
    "\"\"\"",
    "'''",
    "[mcp.x]\n",
    "API_KEY",
    "true",
    "12",
    "\\",
    "\"open",
    "é",
    "\r\n",
    "--token=abcdefghijklmnop",
    "\"https://u:pw12345@h/\"",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Any text (valid or not), every window of whole lines: the same lines as masking the
    /// whole text and keeping those lines.
    #[test]
    fn prop_mask_window_agrees_with_mask(
        parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..50),
    ) {
        let text: String = parts.concat();
        for lang in [Lang::Json, Lang::Toml] {
            proptest::prop_assert_eq!(
                mask(&text, lang).matches('\n').count(),
                text.matches('\n').count(),
                "the lines of {:?}", text
            );
            for (from, to) in windows(&text) {
                proptest::prop_assert_eq!(
                    mask_window(&text, lang, from, to),
                    whole_lines(&text, lang, from, to),
                    "{:?} {}..{} of {:?}", lang, from, to, text
                );
            }
        }
    }

    /// A prefix ending with a line end gives the whole text's window or says it cannot:
    /// never other lines (a token cut at the prefix's end must not be judged as if it ended
    /// there).
    #[test]
    fn prop_mask_window_prefix_is_the_whole_answer_or_none(
        parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..50),
    ) {
        let text: String = parts.concat();
        for lang in [Lang::Json, Lang::Toml, Lang::Yaml] {
            for (from, to) in windows(&text) {
                let whole = mask_window(&text, lang, from, to);
                for (cut, _) in text.match_indices('\n') {
                    let prefix = &text[..=cut];
                    if let Some(m) = mask_window_prefix(prefix, lang, from, to) {
                        proptest::prop_assert_eq!(
                            &m, &whole,
                            "{:?} {}..{} of {:?} cut after {}", lang, from, to, text, cut
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_prefix_decides_a_window_only_when_its_tokens_end_in_it() {
    let text = format!("{{\n  \"a\": 1,\n  \"b\": 2,\n  /* open\n   {SK}\n  */\n  \"c\": 3\n}}\n");
    let line = |n: usize| {
        text.match_indices('\n')
            .nth(n.wrapping_sub(1))
            .map_or(0, |(k, _)| k + 1)
    };
    // The window ends before the comment; a prefix holding its line decides it.
    let (from, to) = (line(1), line(3));
    let prefix = &text[..line(4)];
    assert_eq!(
        mask_window_prefix(prefix, Lang::Json, from, to),
        Some(mask_window(&text, Lang::Json, from, to))
    );
    // A window reaching into the comment needs its end, which the prefix does not hold.
    let to = line(5);
    assert_eq!(
        mask_window_prefix(&text[..line(5)], Lang::Json, from, to),
        None
    );
    let decided = mask_window_prefix(&text[..line(6)], Lang::Json, from, to);
    assert_eq!(decided, Some(mask_window(&text, Lang::Json, from, to)));
    assert!(!decided.unwrap_or_default().contains("abcdefghijklmnop"));
    // Not ending with a line end, or a window reaching the prefix's end: undecided.
    assert_eq!(
        mask_window_prefix(&text[..line(4) - 1], Lang::Json, from, line(2)),
        None
    );
    assert_eq!(
        mask_window_prefix(&text[..line(3)], Lang::Json, from, line(3)),
        None
    );
    // YAML is masked whole.
    assert_eq!(mask_window_prefix(prefix, Lang::Yaml, from, line(2)), None);
}

#[test]
fn a_private_key_in_comments_is_hidden_on_every_line() {
    let body = "MIIEowIBAAKCAQEAPLANTEDkeybodyline1";
    let more = "PLANTEDkeybodyline2xyzxyzxyzxyzxyz";
    let jsonc = format!(
        "{{\n  /* deploy key\n  -----BEGIN RSA PRIVATE KEY-----\n  {body}\n  {more}\n  -----END RSA PRIVATE KEY-----\n  */\n  \"a\": 1\n}}\n"
    );
    let toml = format!(
        "# -----BEGIN OPENSSH PRIVATE KEY-----\r\n# {body}\r\n# {more}\r\n# -----END OPENSSH PRIVATE KEY-----\r\na = 1\r\n"
    );
    let yaml = format!(
        "a: 1\n# -----BEGIN PRIVATE KEY-----\n#   {body}\n#   {more}\n# -----END PRIVATE KEY-----\nb: 2\n"
    );
    for (text, lang) in [
        (&jsonc, Lang::Json),
        (&toml, Lang::Toml),
        (&yaml, Lang::Yaml),
    ] {
        for m in [mask(text, lang), mask_lines(text, lang)] {
            assert_eq!(m.lines().count(), text.lines().count(), "{m}");
            assert!(!m.contains("PLANTED"), "{m}");
        }
    }
    // Every window shows the lines of the whole text masked.
    for (text, lang) in [(&jsonc, Lang::Json), (&toml, Lang::Toml)] {
        for (from, to) in windows(text) {
            assert_eq!(
                mask_window(text, lang, from, to),
                whole_lines(text, lang, from, to),
                "{from}..{to}"
            );
        }
    }
    let m = mask(&jsonc, Lang::Json);
    assert!(m.contains("/* deploy key") && m.contains("\"a\": 1"), "{m}");
    assert!(mask(&toml, Lang::Toml).ends_with("<redacted>\r\na = 1\r\n"));
    // A window that starts inside the key: the lines up to its end are hidden.
    let tail = format!("# {more}\n# -----END OPENSSH PRIVATE KEY-----\na = 1\n");
    assert_eq!(
        mask_lines(&tail, Lang::Toml),
        "<redacted>\n<redacted>\na = 1\n"
    );
}

#[test]
fn decodes_json_and_toml_escapes() {
    assert_eq!(decode(r"\u0073k\/a\\\ud83d\ude00"), "sk/a\\\u{1f600}");
    assert_eq!(decode(r"\x41\e\U0001F600"), "A\u{1b}\u{1f600}");
    assert_eq!(decode_multi("\nab\\\n   cd"), "abcd");
}
