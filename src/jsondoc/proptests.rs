//! Property tests: generated documents in every style, edits and their exact undo, and the
//! agreement of the validating and the building parser.

use super::agree::values_agree;
use super::api::*;
use super::edit::set_path;
use super::parse::{Mode, Parser, parse_core, parse_only};
use super::scan::{shallow, spine};
use super::wide;

use proptest::prelude::*;
use serde_json::{Value, json};

// ----------------------------------------------------------------------------------------
// Property tests
// ----------------------------------------------------------------------------------------

/// A generated JSON shape; scalars and keys hold their exact source spelling.
#[derive(Debug, Clone)]
enum G {
    Obj(Vec<(String, G)>),
    Arr(Vec<G>),
    Raw(String),
}

impl G {
    fn has_key(&self, raw: &str) -> bool {
        matches!(self, G::Obj(ms) if ms.iter().any(|(k, _)| k == raw))
    }
}

/// Formatting knobs for rendering a `G`.
#[derive(Debug, Clone)]
pub(super) struct Fmt {
    syntax: Syntax,
    nl: &'static str,
    /// `None` = everything on one line.
    indent: Option<&'static str>,
    colon: &'static str,
    sep: &'static str,
    bom: bool,
    final_nl: bool,
    seed: u64,
}

/// Tiny deterministic RNG so comment placement is part of the generated case.
pub(super) struct Rng(pub(super) u64);
impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(super) fn chance(&mut self, in_n: u64) -> bool {
        self.next().is_multiple_of(in_n)
    }
}

fn render_doc(root: &G, f: &Fmt) -> Vec<u8> {
    let mut rng = Rng(f.seed | 1);
    let mut out = String::new();
    if f.syntax.comments() && rng.chance(3) {
        out.push_str(if f.indent.is_some() {
            "// head"
        } else {
            "/* head */"
        });
        out.push_str(f.nl);
    }
    render(&mut out, root, 0, f, &mut rng);
    if f.syntax.comments() && rng.chance(4) {
        out.push_str(" /* tail */");
    }
    if f.final_nl {
        out.push_str(f.nl);
    }
    let mut bytes = Vec::new();
    if f.bom {
        bytes.extend_from_slice(BOM);
    }
    bytes.extend_from_slice(out.as_bytes());
    bytes
}

fn render(out: &mut String, g: &G, depth: usize, f: &Fmt, rng: &mut Rng) {
    let comments = f.syntax.comments();
    let block = |rng: &mut Rng, out: &mut String| {
        if comments && rng.chance(6) {
            out.push_str("/* b, } */ ");
        }
    };
    match g {
        G::Raw(r) => out.push_str(r),
        G::Obj(_) | G::Arr(_) if ms_len(g) == 0 => {
            let (o, c) = if matches!(g, G::Obj(_)) {
                ('{', '}')
            } else {
                ('[', ']')
            };
            out.push(o);
            match rng.next() % 4 {
                0 => out.push(' '),
                1 if f.indent.is_some() => {
                    out.push_str(f.nl);
                    out.push_str(&f.indent.unwrap_or("").repeat(depth));
                }
                2 if comments && f.indent.is_some() => {
                    out.push_str(f.nl);
                    out.push_str(&f.indent.unwrap_or("").repeat(depth + 1));
                    out.push_str("// empty");
                    out.push_str(f.nl);
                    out.push_str(&f.indent.unwrap_or("").repeat(depth));
                }
                _ => {}
            }
            out.push(c);
        }
        G::Obj(_) | G::Arr(_) => {
            let (o, c) = if matches!(g, G::Obj(_)) {
                ('{', '}')
            } else {
                ('[', ']')
            };
            let items: Vec<(Option<&String>, &G)> = match g {
                G::Obj(ms) => ms.iter().map(|(k, v)| (Some(k), v)).collect(),
                G::Arr(vs) => vs.iter().map(|v| (None, v)).collect(),
                G::Raw(_) => vec![],
            };
            out.push(o);
            if let Some(unit) = f.indent {
                if comments && rng.chance(5) {
                    out.push_str(" // open");
                }
                let pad = unit.repeat(depth + 1);
                let n = items.len();
                for (i, (k, v)) in items.into_iter().enumerate() {
                    out.push_str(f.nl);
                    out.push_str(&pad);
                    if comments && rng.chance(5) {
                        out.push_str("// before");
                        out.push_str(f.nl);
                        out.push_str(&pad);
                    }
                    if let Some(k) = k {
                        out.push_str(k);
                        out.push_str(f.colon);
                    }
                    render(out, v, depth + 1, f, rng);
                    if i + 1 < n || (f.syntax.trailing_commas() && rng.chance(2)) {
                        out.push(',');
                    }
                    if comments && rng.chance(4) {
                        out.push_str(if rng.chance(2) {
                            " // after, }"
                        } else {
                            " /* after */"
                        });
                    }
                }
                if comments && rng.chance(4) {
                    out.push_str(f.nl);
                    out.push_str(&pad);
                    out.push_str("// before close");
                }
                out.push_str(f.nl);
                out.push_str(&unit.repeat(depth));
            } else {
                let n = items.len();
                for (i, (k, v)) in items.into_iter().enumerate() {
                    block(rng, out);
                    if let Some(k) = k {
                        out.push_str(k);
                        out.push_str(f.colon);
                    }
                    render(out, v, depth + 1, f, rng);
                    if i + 1 < n {
                        out.push_str(f.sep);
                    } else if f.syntax.trailing_commas() && rng.chance(3) {
                        out.push(',');
                    }
                }
                block(rng, out);
            }
            out.push(c);
        }
    }
}

fn ms_len(g: &G) -> usize {
    match g {
        G::Obj(v) => v.len(),
        G::Arr(v) => v.len(),
        G::Raw(_) => 0,
    }
}

fn raw_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#""plain""#.to_owned()),
        Just(r#""caf\u00e9""#.to_owned()),
        Just(r#""caf\u00E9""#.to_owned()),
        Just(r#""tab\there\n""#.to_owned()),
        Just(r#""q\"uote\\ \/ sl""#.to_owned()),
        Just(r#""\ud83d\ude00 emoji 😀""#.to_owned()),
        Just(r#""${V} // not a comment /* */""#.to_owned()),
        Just(r#""""#.to_owned()),
        any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
        "[a-zA-Z0-9_./-]{0,12}".prop_map(|s| format!("\"{s}\"")),
    ]
}

fn raw_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        raw_string(),
        Just("12345678901234567890".to_owned()),
        Just("123456789012345678901234567890".to_owned()),
        Just("1.50".to_owned()),
        Just("1E2".to_owned()),
        Just("-0".to_owned()),
        Just("-1.5e-3".to_owned()),
        Just("0.1".to_owned()),
        any::<i64>().prop_map(|i| i.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("null".to_owned()),
    ]
}

fn dedupe(ms: Vec<(String, G)>) -> Vec<(String, G)> {
    let mut seen = std::collections::HashSet::new();
    ms.into_iter()
        .filter(|(k, _)| {
            let d: String = serde_json::from_str(k).unwrap_or_default();
            d != "mcpServers" && d != "projects" && !d.starts_with("mcpconf-") && seen.insert(d)
        })
        .collect()
}

fn gen_value() -> impl Strategy<Value = G> {
    raw_scalar()
        .prop_map(G::Raw)
        .prop_recursive(4, 32, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(G::Arr),
                prop::collection::vec((raw_string(), inner), 0..5)
                    .prop_map(|ms| G::Obj(dedupe(ms))),
            ]
        })
}

fn mcp_entry() -> G {
    G::Obj(vec![
        ("\"command\"".into(), G::Raw("\"npx\"".into())),
        (
            "\"args\"".into(),
            G::Arr(vec![G::Raw("\"-y\"".into()), G::Raw("\"x\"".into())]),
        ),
        (
            "\"env\"".into(),
            G::Obj(vec![("\"K\"".into(), G::Raw("\"${V}\"".into()))]),
        ),
    ])
}

/// Where the servers live in the generated document.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// `mcpServers` absent.
    Absent,
    /// `mcpServers` present with this many entries (0 = empty object).
    Present(usize),
    /// `projects` -> `/abs/dir` -> `mcpServers`, with none/some levels present.
    Nested(usize),
}

pub(super) fn gen_doc() -> impl Strategy<Value = (Vec<u8>, Fmt, Vec<String>)> {
    let fmt = (
        prop_oneof![
            Just(Syntax::Json),
            Just(Syntax::JsonComments),
            Just(Syntax::Jsonc)
        ],
        prop_oneof![Just("\n"), Just("\r\n")],
        prop_oneof![
            Just(None),
            Just(Some("  ")),
            Just(Some("    ")),
            Just(Some("\t"))
        ],
        prop_oneof![Just(":"), Just(": ")],
        prop_oneof![Just(","), Just(", ")],
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(
            |(syntax, nl, indent, colon, sep, bom, final_nl, seed)| Fmt {
                syntax,
                nl,
                indent,
                colon,
                sep,
                bom,
                final_nl,
                seed,
            },
        );
    let place = prop_oneof![
        Just(Place::Absent),
        (0usize..4).prop_map(Place::Present),
        (0usize..4).prop_map(Place::Nested),
    ];
    (
        fmt,
        prop::collection::vec((raw_string(), gen_value()), 0..6),
        place,
        0usize..8,
        prop::collection::vec(gen_value(), 0..3),
    )
        .prop_map(|(f, members, place, at, extra_entries)| {
            let mut ms = dedupe(members);
            let entries = |n: usize| -> G {
                let mut v: Vec<(String, G)> = Vec::new();
                for i in 0..n {
                    let g = if i == 0 {
                        mcp_entry()
                    } else {
                        extra_entries.get(i - 1).cloned().unwrap_or_else(mcp_entry)
                    };
                    v.push((format!("\"srv{i}\""), g));
                }
                G::Obj(v)
            };
            let (container, member) = match place {
                Place::Absent => (vec!["mcpServers".to_owned()], None),
                Place::Present(n) => (
                    vec!["mcpServers".to_owned()],
                    Some(("\"mcpServers\"".to_owned(), entries(n))),
                ),
                Place::Nested(level) => {
                    let container = vec![
                        "projects".to_owned(),
                        "/abs/dir".to_owned(),
                        "mcpServers".to_owned(),
                    ];
                    let g = match level {
                        0 => None,
                        1 => Some(G::Obj(vec![])),
                        2 => Some(G::Obj(vec![("\"/abs/dir\"".into(), G::Obj(vec![]))])),
                        _ => Some(G::Obj(vec![(
                            "\"/abs/dir\"".into(),
                            G::Obj(vec![("\"mcpServers\"".into(), entries(2))]),
                        )])),
                    };
                    (container, g.map(|g| ("\"projects\"".to_owned(), g)))
                }
            };
            if let Some(m) = member {
                let at = at.min(ms.len());
                ms.insert(at, m);
            }
            let root = G::Obj(ms);
            debug_assert!(!root.has_key("\"mcpconf-a\""));
            (render_doc(&root, &f), f, container)
        })
}

fn entry_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"command":"npx","args":["-y","x"],"env":{"K":"${V}"}})),
        Just(json!({"url":"https://e.x/mcp","headers":{"Authorization":"Bearer ${T}"}})),
        Just(json!({})),
        Just(json!([])),
        Just(json!("str \u{e9} \" \\ \n")),
        Just(json!(1.5)),
        gen_value().prop_filter_map("valid", |g| {
            let f = Fmt {
                syntax: Syntax::Json,
                nl: "\n",
                indent: None,
                colon: ":",
                sep: ",",
                bom: false,
                final_nl: false,
                seed: 1,
            };
            let mut s = String::new();
            render(&mut s, &g, 0, &f, &mut Rng(1));
            serde_json::from_str(&s).ok()
        }),
    ]
}

/// The property tests' configuration: 256 cases, or `PROPTEST_CASES` (for every format's
/// property tests).
pub(crate) fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(256),
        ..ProptestConfig::default()
    }
}

pub(super) fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn string_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => proptest::sample::select(vec!['a', ' ', 'z', '!', '#', '[', ']', '{', ',', '\u{7f}', 'é', '中', '😀']),
        4 => proptest::sample::select(vec!['"', '\\']),
        2 => proptest::sample::select(vec!['n', 't', 'r', 'b', 'f', '/', 'u', 'x', '0', 'D', 'c', 'F', '8']),
        1 => proptest::sample::select(vec!['\u{0}', '\n', '\t', '\u{1f}', '\r']),
        1 => any::<char>(),
    ]
}

proptest! {
    #![proptest_config(cfg())]

    /// The branch-free escape arithmetic marks exactly the bytes a byte-by-byte scan marks as
    /// escaped (runs of backslashes of every length, across the block boundary both ways).
    #[test]
    fn prop_escaped_is_the_byte_scan(
        words in proptest::collection::vec(prop_oneof![
            any::<u64>(),
            any::<u64>().prop_map(|x| x | x >> 1 | x >> 2),
            Just(u64::MAX),
            Just(1u64 << 63),
            Just(0),
        ], 1..4),
        carry in 0u64..2,
    ) {
        let mut c = carry;
        for w in words {
            let fast = wide::escaped(w, c);
            prop_assert_eq!(fast, wide::escaped_portable(w, c), "{:#x} carry {}", w, c);
            c = fast.1;
        }
    }

    /// The SSE2 byte classes are the plain ones, for every byte value at every offset.
    #[test]
    fn prop_wide_masks_are_the_plain_ones(
        b in proptest::collection::vec(prop_oneof![
            3 => any::<u8>(),
            1 => proptest::sample::select(vec![b'"', b'\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, 0x2f, b'b', b'f', b'n', b'r', b't', b'u', 0x9f, 0xa0]),
        ], 64),
    ) {
        let block: [u8; 64] = b.try_into().unwrap();
        prop_assert_eq!(wide::masks(&block), wide::masks_portable(&block));
    }

    /// The wide string scan and the byte-at-a-time decoder decide identically: when the scan
    /// answers, the decoder accepts the same string and ends at the same byte; the scan answers
    /// for every valid string without a `\u` escape; and the validating pass's `skip_string`
    /// (scan, else decoder) gives the decoder's result and error exactly.
    #[test]
    fn prop_wide_string_is_the_decoder(
        body in proptest::collection::vec(string_char(), 0..300),
        close in any::<bool>(),
        tail in "[ ,}\\]\"a]{0,3}",
    ) {
        let body: String = body.into_iter().collect();
        let text = format!("\"{body}{}{tail}", if close { "\"" } else { "" });
        let parser = || Parser { text: &text, b: text.as_bytes(), pos: 0, syntax: Syntax::Json, blanks: Vec::new() };
        let mut slow = parser();
        let decoded = slow.parse_string().map(|_| slow.pos);
        let fast = wide::skip_string_body(text.as_bytes(), 1);
        if let Some(end) = fast {
            prop_assert_eq!(&decoded, &Ok(end), "{}", text);
        }
        if let Ok(end) = decoded
            && !text[..end].contains("\\u")
        {
            prop_assert_eq!(fast, Some(end), "{}", text);
        }
        let mut skip = parser();
        let skipped = skip.skip_string().map(|()| skip.pos);
        prop_assert_eq!(skipped, decoded);
    }

    /// Whitespace runs end where a byte-by-byte scan ends them.
    #[test]
    fn prop_ws_run_is_the_byte_scan(
        b in proptest::collection::vec(proptest::sample::select(vec![b' ', b' ', b' ', b'\n', b'\t', b'\r', b'a', 0x0c, 0x0b, 0xa0]), 0..40),
    ) {
        let want = b.iter().position(|&c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r')).unwrap_or(b.len());
        prop_assert_eq!(wide::ws_run(&b), want);
    }
}

proptest! {
    #![proptest_config(cfg())]

    /// 1. parse then to_bytes is the identity.
    #[test]
    fn prop_roundtrip((bytes, f, _c) in gen_doc()) {
        let d = JsonDoc::parse(&bytes, f.syntax);
        prop_assert!(d.is_ok(), "{:?}\n{}", d.err(), show(&bytes));
        let d = d.unwrap();
        prop_assert_eq!(d.to_bytes(), bytes);
    }

    /// 2 + 3. upsert a new name: the value is old + entry; remove with the hints restores the
    /// input byte for byte.
    #[test]
    fn prop_upsert_remove((bytes, f, container) in gen_doc(), v in entry_value()) {
        let mut d = JsonDoc::parse(&bytes, f.syntax).unwrap();
        let mut expected = d.value().clone();
        set_path(&mut expected, &container, "mcpconf-a", v.clone()).unwrap();
        let hints = d.upsert(&container, "mcpconf-a", &v);
        prop_assert!(hints.is_ok(), "{:?}\n{}", hints.err(), show(&bytes));
        let hints = hints.unwrap();
        let after = d.to_bytes();
        // Queries on the edited document (kept as a splice, the whole text not built) answer
        // what they answer on the result parsed afresh: before, inside and after the edit.
        {
            let fresh = JsonDoc::parse(&after, f.syntax).unwrap();
            let q = d.clone();
            let mut paths: Vec<Vec<String>> = Vec::new();
            if let Value::Object(m) = fresh.value() {
                paths.extend(m.keys().map(|k| vec![k.clone()]));
            }
            for n in 1..=container.len() {
                paths.push(container[..n].to_vec());
            }
            if let Some(Value::Object(m)) = fresh.get(&container) {
                paths.extend(m.keys().map(|k| {
                    let mut p = container.clone();
                    p.push(k.clone());
                    p
                }));
            }
            for p in &paths {
                prop_assert_eq!(q.get(p), fresh.get(p), "{:?}", p);
                prop_assert_eq!(q.kind(p), fresh.kind(p), "{:?}", p);
                prop_assert_eq!(q.member_count(p), fresh.member_count(p), "{:?}", p);
            }
        }
        // Streamed: the content is the input's buffer plus the edited object's new text, and
        // every reading of it (pieces written, the whole text built) gives the same bytes.
        let orig = JsonDoc::parse(&bytes, f.syntax).unwrap();
        let content = d.content();
        let mut written = Vec::new();
        content.write_to(&mut written).unwrap();
        prop_assert_eq!(show(&written), show(&after));
        prop_assert_eq!(show(d.bytes()), show(&after));
        prop_assert!(!d.same_bytes(&orig) || after == bytes);
        let re = JsonDoc::parse(&after, f.syntax).unwrap();
        prop_assert_eq!(re.value(), expected);
        // the BOM and the untouched start of the file are kept
        prop_assert_eq!(after.starts_with(BOM), bytes.starts_with(BOM));
        // a second identical upsert changes nothing
        let mut again = re.clone();
        prop_assert_eq!(again.upsert(&container, "mcpconf-a", &v).unwrap(), vec![]);
        prop_assert_eq!(again.to_bytes(), after.clone());
        let r = d.remove(&container, "mcpconf-a", &hints);
        prop_assert!(r.is_ok(), "{:?}\n{}", r.err(), show(&after));
        prop_assert_eq!(show(&d.to_bytes()), show(&bytes), "after upsert:\n{}", show(&after));
    }

    /// 3. replacing an existing entry only changes that entry's value bytes.
    #[test]
    fn prop_replace_only_value((bytes, f, container) in gen_doc(), v in entry_value()) {
        let mut d = JsonDoc::parse(&bytes, f.syntax).unwrap();
        let Some(Value::Object(m)) = d.get(&container) else { return Ok(()) };
        let Some(name) = m.keys().next().cloned() else { return Ok(()) };
        let tree = spine(d.text(), &d.root, &container, d.syntax);
        let span = tree.objs.last().unwrap().members.iter().find(|m| m.key == name).map(|m| (m.value_start, m.value_end)).unwrap();
        let old = d.text().to_owned();
        let mut expected = d.value().clone();
        set_path(&mut expected, &container, &name, v.clone()).unwrap();
        prop_assert_eq!(d.upsert(&container, &name, &v).unwrap(), vec![]);
        let new = d.text().to_owned();
        prop_assert_eq!(d.value(), expected);
        prop_assert_eq!(&new[..span.0], &old[..span.0]);
        prop_assert_eq!(&new[new.len() - (old.len() - span.1)..], &old[span.1..]);
    }

    /// 4. two upserts, removed in reverse order with their own hints, or in insertion order
    /// with the union of the hints: both give back the input exactly.
    #[test]
    fn prop_two_entries((bytes, f, container) in gen_doc(), a in entry_value(), b in entry_value(), reverse in any::<bool>()) {
        let mut d = JsonDoc::parse(&bytes, f.syntax).unwrap();
        let ha = d.upsert(&container, "mcpconf-a", &a).unwrap();
        let hb = d.upsert(&container, "mcpconf-b", &b).unwrap();
        let mid = d.to_bytes();
        if reverse {
            d.remove(&container, "mcpconf-b", &hb).unwrap();
            d.remove(&container, "mcpconf-a", &ha).unwrap();
        } else {
            let all: Vec<UndoHint> = ha.iter().chain(hb.iter()).cloned().collect();
            d.remove(&container, "mcpconf-a", &ha).unwrap();
            d.remove(&container, "mcpconf-b", &all).unwrap();
        }
        prop_assert_eq!(show(&d.to_bytes()), show(&bytes), "with both:\n{}", show(&mid));
    }

    /// 4b. insertion order with only each entry's own hints: the value is the input's, except
    /// that containers created by the first upsert may remain (empty).
    #[test]
    fn prop_two_entries_own_hints((bytes, f, container) in gen_doc(), a in entry_value(), b in entry_value()) {
        let mut d = JsonDoc::parse(&bytes, f.syntax).unwrap();
        let orig = d.value().clone();
        let ha = d.upsert(&container, "mcpconf-a", &a).unwrap();
        let hb = d.upsert(&container, "mcpconf-b", &b).unwrap();
        prop_assert!(hb.is_empty());
        d.remove(&container, "mcpconf-a", &ha).unwrap();
        d.remove(&container, "mcpconf-b", &hb).unwrap();
        if ha.is_empty() {
            prop_assert_eq!(show(&d.to_bytes()), show(&bytes));
        } else {
            let mut v = d.value().clone();
            if let Some(UndoHint::Created { path }) = ha.iter().find(|h| matches!(h, UndoHint::Created { .. })) {
                let (last, parent) = path.split_last().unwrap();
                let mut cur = &mut v;
                for k in parent { cur = cur.get_mut(k.as_str()).unwrap(); }
                cur.as_object_mut().unwrap().shift_remove(last);
            }
            prop_assert_eq!(v, orig);
        }
    }

    /// 4d. a sequence of edits of one document (each one after the other, the later ones
    /// reading the edited object alone) gives, edit by edit, exactly what the same edit
    /// gives on the text parsed afresh: the same bytes, or the same refusal.
    #[test]
    fn prop_edits_of_an_edited_document_are_the_fresh_edits(
        (bytes, f, container) in gen_doc(),
        values in prop::collection::vec(entry_value(), 3),
        ops in prop::collection::vec((0u8..10, 0usize..4, 0usize..3), 1..9),
    ) {
        let mut seq = JsonDoc::parse(&bytes, f.syntax).unwrap();
        let mut hints: std::collections::HashMap<String, Vec<UndoHint>> = Default::default();
        let mut below = container.clone();
        below.push("mcpconf-a".into());
        let mut parent = container.clone();
        parent.pop();
        // An object beside the container (created by the first edit there).
        let side = vec!["mcpconf-side".to_string()];
        let names = ["mcpconf-a", "mcpconf-b", "mcpconf-c", "mcpconf-d"];
        for (op, n, v) in ops {
            let name = names[n];
            let value = &values[v];
            let mut fresh = JsonDoc::parse(&seq.to_bytes(), f.syntax).unwrap();
            let before = show(&seq.to_bytes());
            let (a, b) = match op {
                0 | 1 => {
                    let a = seq.upsert(&container, name, value);
                    let b = fresh.upsert(&container, name, value);
                    if let Ok(h) = &a && !h.is_empty() {
                        hints.insert(name.to_string(), h.clone());
                    }
                    (a.map(|_| ()), b.map(|_| ()))
                }
                2 | 3 => {
                    let h = hints.get(name).cloned().unwrap_or_default();
                    (seq.remove(&container, name, &h), fresh.remove(&container, name, &h))
                }
                4 => (
                    seq.upsert(&below, name, value).map(|_| ()),
                    fresh.upsert(&below, name, value).map(|_| ()),
                ),
                5 => (
                    seq.upsert(&parent, name, value).map(|_| ()),
                    fresh.upsert(&parent, name, value).map(|_| ()),
                ),
                6 => {
                    let edits = vec![
                        (name.to_string(), Some(value.clone())),
                        (names[(n + 1) % 4].to_string(), None),
                    ];
                    (seq.edit_members(&container, &edits), fresh.edit_members(&container, &edits))
                }
                7 => {
                    let edits = vec![
                        (name.to_string(), Some(value.clone())),
                        (names[(n + 1) % 4].to_string(), Some(values[(v + 1) % 3].clone())),
                    ];
                    (seq.edit_members(&container, &edits), fresh.edit_members(&container, &edits))
                }
                8 => (
                    seq.upsert(&side, name, value).map(|_| ()),
                    fresh.upsert(&side, name, value).map(|_| ()),
                ),
                _ => (seq.remove(&side, name, &[]), fresh.remove(&side, name, &[])),
            };
            prop_assert_eq!(a.is_ok(), b.is_ok(), "op {} on:\n{}\n{:?} {:?}", op, before, a, b);
            prop_assert_eq!(show(&seq.to_bytes()), show(&fresh.to_bytes()), "op {} on:\n{}", op, before);
            // The edited document reads as its text does.
            let again = JsonDoc::parse(&seq.to_bytes(), f.syntax).unwrap();
            prop_assert_eq!(seq.get(&container), again.get(&container));
            prop_assert_eq!(seq.get(&below), again.get(&below));
            prop_assert_eq!(seq.get(&side), again.get(&side));
            prop_assert_eq!(seq.get(&[]), again.get(&[]));
        }
    }

    /// 4c. a batch of member edits (new members appended, existing ones replaced or removed)
    /// gives exactly the bytes of the single edits one after the other, or is refused and
    /// leaves the document unchanged.
    #[test]
    fn prop_batch_equals_single_edits(
        (bytes, f, container) in gen_doc(),
        a in entry_value(),
        b in entry_value(),
        c in entry_value(),
        pick in prop::collection::vec(0u8..4, 0..6),
    ) {
        let d = JsonDoc::parse(&bytes, f.syntax).unwrap();
        let Some(Value::Object(m)) = d.get(&container) else { return Ok(()) };
        let existing: Vec<String> = m.keys().cloned().collect();
        let mut edits: Vec<(String, Option<Value>)> = Vec::new();
        for (i, p) in pick.iter().enumerate() {
            let Some(name) = existing.get(i) else { break };
            match p {
                0 => edits.push((name.clone(), None)),
                1 => edits.push((name.clone(), Some(c.clone()))),
                _ => {}
            }
        }
        edits.push(("mcpconf-a".into(), Some(a.clone())));
        edits.push(("mcpconf-b".into(), Some(b.clone())));
        let mut seq = d.clone();
        let mut seq_ok = true;
        for (name, v) in &edits {
            let r = match v {
                Some(v) => seq.upsert(&container, name, v).map(|_| ()),
                None => seq.remove(&container, name, &[]),
            };
            seq_ok &= r.is_ok();
        }
        let mut batch = d.clone();
        match batch.edit_members(&container, &edits) {
            Ok(()) => {
                prop_assert!(seq_ok);
                prop_assert_eq!(show(&batch.to_bytes()), show(&seq.to_bytes()), "input:\n{}", show(&bytes));
                // The batch is kept as a splice over the bytes read (never built whole) and
                // every way of reading it gives the bytes the single edits built.
                let want = seq.to_bytes();
                let content = batch.content();
                prop_assert!(content.change_from(d.bytes()).is_some());
                let mut written = Vec::new();
                content.write_to(&mut written).unwrap();
                prop_assert_eq!(show(&written), show(&want));
                prop_assert_eq!(content.len(), want.len());
                prop_assert!(content == crate::text::Content::from(want.clone()));
                prop_assert_eq!(batch.same_bytes(&d), want == bytes);
                prop_assert_eq!(show(batch.bytes()), show(&want));
                // A further edit of the spliced document, as of the built one.
                let mut again = batch.clone();
                let mut seq2 = seq.clone();
                let r1 = again.upsert(&container, "mcpconf-c", &c).map(|_| ());
                let r2 = seq2.upsert(&container, "mcpconf-c", &c).map(|_| ());
                prop_assert_eq!(r1.is_ok(), r2.is_ok());
                prop_assert_eq!(show(&again.to_bytes()), show(&seq2.to_bytes()));
            }
            Err(_) => {
                prop_assert_eq!(batch.to_bytes(), bytes.clone());
                prop_assert!(batch.same_bytes(&d));
            }
        }
    }

    /// 5. no panics on arbitrary bytes.
    #[test]
    fn prop_no_panic_random(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        for s in [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc] {
            let _ = JsonDoc::parse(&bytes, s);
        }
    }

    /// 5. no panics on mutated valid documents, and for strict JSON the same accept/refuse
    /// decision as serde_json (modulo the extra rules: duplicates, root type).
    #[test]
    fn prop_no_panic_mutations(
        (bytes, _f, _c) in gen_doc(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..4),
        pick in prop::sample::select(vec![b'{', b'}', b'[', b']', b'"', b'\\', b',', b':', b'/', b'*', b'\n', b'\r', b' ', b'0', b'e', b'.', b'-', b'+', 0u8, 0xff]),
    ) {
        let mut bytes = bytes;
        for (i, op, byte) in edits {
            let b = if byte % 2 == 0 { pick } else { byte };
            let at = if bytes.is_empty() { 0 } else { i.index(bytes.len()) };
            match op {
                0 if !bytes.is_empty() => { bytes.remove(at); }
                1 => bytes.insert(at, b),
                _ if !bytes.is_empty() => bytes[at] = b,
                _ => {}
            }
        }
        let mine: Vec<_> = [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc]
            .iter().map(|&s| JsonDoc::parse(&bytes, s)).collect();
        let body = bytes.strip_prefix(BOM).unwrap_or(&bytes);
        let serde = serde_json::from_slice::<Value>(body);
        match (&mine[0], &serde) {
            (Ok(d), Ok(v)) => prop_assert!(values_agree(&d.value(), v)),
            (Ok(_), Err(e)) => prop_assert!(false, "accepted but serde_json says {e}: {}", show(&bytes)),
            (Err(e), Ok(v)) => prop_assert!(
                matches!(e.code.as_str(), "duplicate-key" | "not-an-object" | "too-deep") && (e.code != "not-an-object" || !v.is_object()),
                "refused {e} but serde_json accepts: {}", show(&bytes)),
            (Err(_), Err(_)) => {}
        }
        // anything strict JSON accepts, the laxer syntaxes accept identically
        if let Ok(d) = &mine[0] {
            prop_assert_eq!(mine[1].as_ref().map(|x| x.value()).ok(), Some(d.value()));
            prop_assert_eq!(mine[2].as_ref().map(|x| x.value()).ok(), Some(d.value()));
        }
        same_as_builder(&bytes)?;
    }

    /// 6. the validating pass and the building parser decide identically, with the same
    /// error (code, message, position), on generated documents too.
    #[test]
    fn prop_validate_equals_build((bytes, _f, _c) in gen_doc()) {
        same_as_builder(&bytes)?;
    }
}

/// The validating pass that [`JsonDoc::parse`] uses and the building parser agree exactly,
/// and so do the shallow member listing of the root and the built tree's root.
fn same_as_builder(bytes: &[u8]) -> Result<(), TestCaseError> {
    let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let Ok(text) = std::str::from_utf8(body) else {
        return Ok(());
    };
    for s in [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc] {
        let v = parse_core(text, s, Mode::VALIDATE);
        let b = parse_only(text, s);
        match (&v, &b) {
            (Ok(v), Ok(b)) => {
                let (vr, br) = (&v.tree.objs[0], &b.tree.objs[0]);
                prop_assert_eq!(
                    (vr.open, vr.close, vr.members.len()),
                    (br.open, br.close, br.members.len())
                );
                for (x, y) in vr.members.iter().zip(&br.members) {
                    prop_assert_eq!(
                        (
                            &x.key,
                            x.key_start,
                            x.key_end,
                            x.value_start,
                            x.value_end,
                            x.comma
                        ),
                        (
                            &y.key,
                            y.key_start,
                            y.key_end,
                            y.value_start,
                            y.value_end,
                            y.comma
                        )
                    );
                }
                let sh = shallow(text, br.open, s, None).unwrap();
                for (x, y) in sh.members.iter().zip(&br.members) {
                    prop_assert_eq!(
                        (
                            &x.key,
                            x.key_start,
                            x.key_end,
                            x.value_start,
                            x.value_end,
                            x.comma
                        ),
                        (
                            &y.key,
                            y.key_start,
                            y.key_end,
                            y.value_start,
                            y.value_end,
                            y.comma
                        )
                    );
                }
                prop_assert_eq!(sh.members.len(), br.members.len());
                prop_assert_eq!(v.blanks.clone(), b.blanks.clone());
            }
            (Err(x), Err(y)) => prop_assert_eq!(x, y),
            _ => prop_assert!(
                false,
                "validate {:?} but build {:?}: {}",
                v.as_ref().err(),
                b.as_ref().err(),
                show(bytes)
            ),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(cfg())]

    /// The wide string end is the byte-at-a-time one, on any bytes (runs of backslashes, quotes,
    /// no closing quote, a backslash last), from any start.
    #[test]
    fn prop_string_end_is_the_byte_scan(
        b in proptest::collection::vec(prop_oneof![
            4 => proptest::sample::select(vec![b'a', b' ', 0x00, 0xc3, 0xff, b'/']),
            2 => Just(b'\\'),
            1 => Just(b'"'),
        ], 0..200),
        from in 0usize..70,
    ) {
        let from = from.min(b.len());
        prop_assert_eq!(super::scan::skip_str(&b, from), super::scan::skip_str_bytes(&b, from), "{:?}", b);
    }
}
