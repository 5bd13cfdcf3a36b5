//! Property tests: generated documents in many styles read as the value they were made from
//! (and as an independent YAML parser, `yaml-rust2`, reads them); edits change only the
//! entry's lines, read back as intended by both parsers, and are undone byte for byte; no
//! input makes the parser or an edit panic, and what the parser accepts the other reads alike.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use yaml_rust2::{Yaml, YamlLoader};

use super::YamlDoc;
use super::emit;

/// The value an independent parser reads, or `None` when it refuses the text (or reads
/// something JSON cannot hold the same way: non-string keys, several documents).
fn reference(text: &str) -> Option<Value> {
    let docs = YamlLoader::load_from_str(text).ok()?;
    match docs.as_slice() {
        [] => Some(json!({})),
        [d] => convert(d),
        _ => None,
    }
}

fn convert(y: &Yaml) -> Option<Value> {
    Some(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => json!(i),
        Yaml::Real(r) => {
            let f: f64 = r.parse().ok()?;
            serde_json::Number::from_f64(f).map_or(Value::String(r.clone()), Value::Number)
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(a) => Value::Array(a.iter().map(convert).collect::<Option<_>>()?),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let Yaml::String(k) = k else {
                    return None;
                };
                m.insert(k.clone(), convert(v)?);
            }
            Value::Object(m)
        }
        Yaml::Alias(_) | Yaml::BadValue => return None,
    })
}

/// A generated value: keys are identifier-like, scalars config-like.
#[derive(Debug, Clone)]
enum G {
    Map(Vec<(String, G)>),
    Seq(Vec<G>),
    Scalar(Value),
}

impl G {
    fn value(&self) -> Value {
        match self {
            G::Scalar(v) => v.clone(),
            G::Seq(a) => Value::Array(a.iter().map(G::value).collect()),
            G::Map(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), v.value())).collect()),
        }
    }
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9_-]{0,8}",
        Just("mcp_servers".to_string()),
        Just("extensions".to_string()),
        Just("my key".to_string()),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-zA-Z0-9 ./:@#_-]{0,12}".prop_map(Value::String),
        "\\PC{0,6}".prop_map(Value::String),
        prop_oneof![
            Just("yes"),
            Just("null"),
            Just("-y"),
            Just("1.0"),
            Just("${X}"),
            Just("a: b"),
            Just("x #y")
        ]
        .prop_map(|s| Value::String(s.to_string())),
        any::<i32>().prop_map(|i| json!(i)),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        (-1000.0f64..1000.0).prop_map(|f| json!(f)),
    ]
}

fn tree() -> impl Strategy<Value = G> {
    scalar()
        .prop_map(G::Scalar)
        .prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(G::Seq),
                prop::collection::vec((key(), inner), 0..5).prop_map(|kv| {
                    let mut seen = std::collections::HashSet::new();
                    G::Map(
                        kv.into_iter()
                            .filter(|(k, _)| seen.insert(k.clone()))
                            .collect(),
                    )
                }),
            ]
        })
}

fn root() -> impl Strategy<Value = G> {
    prop::collection::vec((key(), tree()), 0..6).prop_map(|kv| {
        let mut seen = std::collections::HashSet::new();
        G::Map(
            kv.into_iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect(),
        )
    })
}

/// Style knobs.
#[derive(Debug, Clone)]
struct Style {
    unit: usize,
    /// Sequences under a key at the key's own indentation.
    flush_seq: bool,
    crlf: bool,
    final_nl: bool,
    seed: u64,
}

struct Rng(u64);
impl Rng {
    fn chance(&mut self, n: u64) -> bool {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0.is_multiple_of(n)
    }
}

fn spell(v: &Value, rng: &mut Rng) -> String {
    match v {
        Value::String(s) => {
            let plain = emit::string(s);
            if !plain.starts_with('"') && rng.chance(2) {
                plain
            } else if rng.chance(2)
                && !s.contains(['\n', '\r', '\t', '\u{85}', '\u{2028}', '\u{2029}'])
                && !s.chars().any(char::is_control)
            {
                format!("'{}'", s.replace('\'', "''"))
            } else {
                plain_or_json(s)
            }
        }
        Value::Null if rng.chance(2) => "~".into(),
        Value::Bool(true) if rng.chance(2) => "True".into(),
        other => other.to_string(),
    }
}

fn plain_or_json(s: &str) -> String {
    let q = emit::string(s);
    if q.starts_with('"') {
        q
    } else {
        format!("\"{q}\"")
    }
}

fn flow(g: &G, rng: &mut Rng) -> Option<String> {
    match g {
        // yaml-rust2, the reference reader, refuses some plain scalars with a `-` in flow
        // context that YAML and PyYAML read (`[/ -]`), so those are quoted here; and a flow
        // indicator (`,` `[` `]` `{` `}`) ends a plain scalar in flow context (`{a: A,}` is
        // `{a: A}`), where `emit::string` writes block values.
        G::Scalar(Value::String(s))
            if !emit::string(s).starts_with('"') && s.contains(['-', ',', '[', ']', '{', '}']) =>
        {
            Some(plain_or_json(s))
        }
        G::Scalar(v) => Some(spell(v, rng)),
        G::Seq(a) => {
            let parts: Option<Vec<String>> = a.iter().map(|x| flow(x, rng)).collect();
            Some(format!("[{}]", parts?.join(", ")))
        }
        G::Map(m) => {
            let parts: Option<Vec<String>> = m
                .iter()
                .map(|(k, v)| Some(format!("{}: {}", emit::string(k), flow(v, rng)?)))
                .collect();
            Some(format!("{{{}}}", parts?.join(", ")))
        }
    }
}

fn render(g: &G, st: &Style) -> String {
    let mut rng = Rng(st.seed | 1);
    let mut out = String::new();
    if rng.chance(3) {
        out.push_str("# head\n");
    }
    block(&mut out, g, 0, st, &mut rng);
    if out.trim().is_empty() {
        out.push_str("# empty\n");
    }
    if !st.final_nl {
        while out.ends_with('\n') {
            out.pop();
        }
        if out.trim().is_empty() {
            out.push_str("# empty");
        }
    }
    if st.crlf {
        out = out.replace('\n', "\r\n");
    }
    out
}

fn block(out: &mut String, g: &G, indent: usize, st: &Style, rng: &mut Rng) {
    let pad = " ".repeat(indent);
    match g {
        G::Map(m) => {
            for (k, v) in m {
                if rng.chance(5) {
                    out.push_str(&format!("{pad}# about {k}\n"));
                }
                if rng.chance(7) {
                    out.push('\n');
                }
                out.push_str(&format!("{pad}{}:", emit::string(k)));
                value_after_key(out, v, indent, st, rng);
            }
        }
        G::Seq(a) => {
            for v in a {
                out.push_str(&format!("{pad}-"));
                let empty = matches!(v, G::Map(m) if m.is_empty())
                    || matches!(v, G::Seq(a) if a.is_empty());
                match v {
                    G::Scalar(_) => {}
                    _ if empty => {}
                    _ if rng.chance(3) => {}
                    _ => {
                        out.push('\n');
                        block(out, v, indent + st.unit, st, rng);
                        continue;
                    }
                }
                value_after_dash(out, v, indent, st, rng);
            }
        }
        G::Scalar(v) => {
            out.push_str(&spell(v, rng));
            out.push('\n');
        }
    }
}

fn comment(out: &mut String, rng: &mut Rng) {
    if rng.chance(4) {
        out.push_str("  # note: a");
    }
    out.push('\n');
}

fn value_after_key(out: &mut String, v: &G, indent: usize, st: &Style, rng: &mut Rng) {
    let empty = matches!(v, G::Map(m) if m.is_empty()) || matches!(v, G::Seq(a) if a.is_empty());
    match v {
        G::Scalar(_) => {
            out.push(' ');
            out.push_str(&spell(&v.value(), rng));
            comment(out, rng);
        }
        _ if empty || rng.chance(6) => {
            out.push(' ');
            out.push_str(&flow(v, rng).unwrap_or_default());
            comment(out, rng);
        }
        G::Seq(_) => {
            comment(out, rng);
            let i = if st.flush_seq {
                indent
            } else {
                indent + st.unit
            };
            block(out, v, i, st, rng);
        }
        G::Map(_) => {
            comment(out, rng);
            block(out, v, indent + st.unit, st, rng);
        }
    }
}

/// A compact item (`- key: v` / `- - x` / `- scalar`).
fn value_after_dash(out: &mut String, v: &G, indent: usize, st: &Style, rng: &mut Rng) {
    let empty = matches!(v, G::Map(m) if m.is_empty()) || matches!(v, G::Seq(a) if a.is_empty());
    if matches!(v, G::Scalar(_)) || empty {
        out.push(' ');
        out.push_str(&flow(v, rng).unwrap_or_default());
        comment(out, rng);
        return;
    }
    let mut inner = String::new();
    block(&mut inner, v, indent + 2, st, rng);
    // The first line's indentation becomes `- `; a leading comment or blank line goes first.
    let mut lines = inner.split_inclusive('\n');
    let mut head = String::new();
    for l in lines.by_ref() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            head.push_str(l);
            continue;
        }
        out.push(' ');
        out.push_str(&l[(indent + 2).min(l.len())..]);
        break;
    }
    let _ = head;
    for l in lines {
        out.push_str(l);
    }
}

fn style() -> impl Strategy<Value = Style> {
    (
        prop_oneof![Just(2usize), Just(4)],
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.8),
        any::<u64>(),
    )
        .prop_map(|(unit, flush_seq, crlf, final_nl, seed)| Style {
            unit,
            flush_seq,
            crlf,
            final_nl,
            seed,
        })
}

fn entry() -> impl Strategy<Value = Value> {
    (
        "[a-z]{1,6}",
        prop::collection::vec(scalar(), 0..3),
        prop::collection::btree_map("[A-Z_]{1,6}", "[ -~]{0,8}", 0..3),
        any::<bool>(),
    )
        .prop_map(|(cmd, args, env, remote)| {
            if remote {
                json!({"uri": format!("https://{cmd}/mcp"), "headers": env, "enabled": true})
            } else {
                json!({"cmd": cmd, "args": args, "envs": env, "timeout": 300})
            }
        })
}

/// The single region in which two texts differ: (start, old end, new end).
fn changed(old: &[u8], new: &[u8]) -> (usize, usize, usize) {
    let (p, s) = crate::text::common_ends(old, new);
    (p, old.len() - s, new.len() - s)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_documents_read_as_made(g in root(), st in style()) {
        let text = render(&g, &st);
        let d = YamlDoc::parse(text.as_bytes().to_vec())
            .map_err(|e| TestCaseError::fail(format!("{text:?}: {e:?}")))?;
        prop_assert_eq!(d.value(), g.value(), "{:?}", text);
        prop_assert_eq!(reference(&text), Some(g.value()), "{:?}", text);
    }

    #[test]
    fn edits_touch_only_their_entry_and_undo_exactly(
        g in root(),
        st in style(),
        container in prop_oneof![Just(vec!["extensions"]), Just(vec!["mcp_servers"]), Just(vec!["a", "b"])],
        name in "[a-z][a-z0-9-]{0,6}",
        v in entry(),
        v2 in entry(),
    ) {
        let text = render(&g, &st);
        let Ok(mut d) = YamlDoc::parse(text.as_bytes().to_vec()) else {
            return Err(TestCaseError::fail(format!("{text:?} does not parse")));
        };
        let c: Vec<String> = container.iter().map(|s| s.to_string()).collect();
        let before = d.clone();
        let Ok(hints) = d.upsert(&c, &name, &v) else {
            // Refused (a container that is not a block mapping): nothing changed.
            prop_assert_eq!(d.bytes(), before.bytes());
            return Ok(());
        };
        let mid = String::from_utf8(d.bytes().to_vec()).unwrap();
        prop_assert_eq!(reference(&mid), Some(d.value()), "{:?}", mid);
        let mut path = c.clone();
        path.push(name.clone());
        prop_assert_eq!(d.get(&path), Some(v.clone()));
        // Replacing it changes one region only.
        let prev = d.clone();
        d.upsert(&c, &name, &v2).unwrap();
        let (s, old_end, _) = changed(prev.bytes(), d.bytes());
        let entry_line = prev.location(&path).unwrap().0;
        let line_of = |at: usize| prev.bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        prop_assert!(line_of(s) >= entry_line);
        let _ = old_end;
        let after = String::from_utf8(d.bytes().to_vec()).unwrap();
        prop_assert_eq!(reference(&after), Some(d.value()), "{:?}", after);
        // Back to the first value, then removed: the original bytes.
        d.upsert(&c, &name, &v).unwrap();
        prop_assert_eq!(d.bytes(), prev.bytes());
        d.remove(&c, &name, &hints).unwrap();
        // Unless the entry was already there (then it is gone now).
        if before.get(&path).is_none() {
            prop_assert_eq!(
                String::from_utf8_lossy(d.bytes()),
                String::from_utf8_lossy(before.bytes())
            );
        }
    }

    #[test]
    fn list_edits_undo_exactly(
        names in prop::collection::btree_set("[a-z]{1,5}", 0..4),
        name in "[a-z]{1,5}",
        st in style(),
        v in entry(),
    ) {
        let items: Vec<G> = names.iter().map(|n| G::Map(vec![("name".into(), G::Scalar(json!(n))), ("command".into(), G::Scalar(json!("x")))])).collect();
        let g = G::Map(vec![("name".into(), G::Scalar(json!("cfg"))), ("mcpServers".into(), G::Seq(items))]);
        let text = render(&g, &st);
        let mut d = YamlDoc::parse(text.as_bytes().to_vec()).unwrap();
        let c = vec!["mcpServers[name]".to_string()];
        let hints = match d.upsert(&c, &name, &v) {
            Ok(h) => h,
            // A flow-style list is refused, and nothing changes.
            Err(e) if e.code == "unsupported-yaml" && text.contains("mcpServers: [") => {
                prop_assert_eq!(String::from_utf8_lossy(d.bytes()), text);
                return Ok(());
            }
            Err(e) => return Err(TestCaseError::fail(format!("{text:?}: {e:?}"))),
        };
        let mid = String::from_utf8(d.bytes().to_vec()).unwrap();
        prop_assert_eq!(reference(&mid), Some(d.value()), "{:?}", mid);
        prop_assert_eq!(d.get(&[c[0].clone(), name.clone()]), Some(v.clone()));
        if !names.contains(&name) {
            d.remove(&c, &name, &hints).unwrap();
            prop_assert_eq!(String::from_utf8_lossy(d.bytes()), text);
        }
    }

    #[test]
    fn no_input_panics_and_what_is_accepted_reads_alike(
        g in root(),
        st in style(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), prop_oneof![Just(""), Just(" "), Just("\n"), Just(":"), Just("- "), Just("&a "), Just("*a"), Just("'"), Just("\""), Just("{"), Just("["), Just("#"), Just("\t"), Just("|"), Just("\u{e9}")]), 0..4),
    ) {
        let mut text = render(&g, &st).into_bytes();
        for (at, ins) in cuts {
            let i = at.index(text.len() + 1);
            text.splice(i..i, ins.bytes());
        }
        if let Ok(mut d) = YamlDoc::parse(text.clone()) {
            if let Ok(s) = std::str::from_utf8(&text) {
                let s = s.strip_prefix('\u{feff}').unwrap_or(s);
                if let Some(r) = reference(s) {
                    prop_assert_eq!(r, d.value(), "{:?}", s);
                }
            }
            let _ = d.upsert(&["extensions".to_string()], "x", &json!({"k": "v"}));
        }
    }
}

/// What a document answers, read one way: for comparing the parts with the whole tree.
/// The text read part by part and read whole, refused alike (`None`) or both read.
fn read_both(text: &[u8]) -> Result<Option<(YamlDoc, YamlDoc)>, TestCaseError> {
    let parts = YamlDoc::parse(text.to_vec());
    let whole = YamlDoc::parse_whole(text.to_vec());
    prop_assert_eq!(
        parts.as_ref().err().map(|e| e.code),
        whole.as_ref().err().map(|e| e.code),
        "{:?}",
        String::from_utf8_lossy(text)
    );
    Ok(parts.ok().zip(whole.ok()))
}

fn answers(d: &YamlDoc, c: &[String], name: &str) -> Vec<String> {
    let mut path = c.to_vec();
    path.push(name.to_string());
    vec![
        format!("{:?}", d.value()),
        format!("{:?}", d.get(c)),
        format!("{:?}", d.kind(c)),
        format!("{:?}", d.position(c, name)),
        format!("{:?}", d.location(&path)),
        format!(
            "{:?}",
            d.child_offsets(c)
                .map(|m| m.into_iter().collect::<std::collections::BTreeMap<_, _>>())
        ),
        format!("{:?}", d.lint_value()),
    ]
}

proptest! {
    #![proptest_config(crate::jsondoc::proptests::cfg())]

    /// Read part by part, a document is accepted or refused as when read whole (the same code),
    /// answers alike, and every edit gives the same bytes, hints and refusals.
    #[test]
    fn parts_read_and_edit_as_the_whole_tree(
        g in root(),
        st in style(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), prop_oneof![Just(""), Just("\n"), Just(":"), Just("- "), Just("'"), Just("{"), Just("#"), Just("\t"), Just("---\n"), Just("x: 1\n"), Just("extensions: 2\n"), Just("\u{feff}"), Just("\r\n"), Just("...\n")]), 0..3),
        container in prop_oneof![Just(vec!["extensions"]), Just(vec!["mcp_servers"]), Just(vec!["a", "b"]), Just(vec!["mcpServers[name]"])],
        name in prop_oneof![Just("x".to_string()), "[a-z][a-z0-9-]{0,6}"],
        v in entry(),
        v2 in entry(),
    ) {
        let mut text = render(&g, &st).into_bytes();
        for (at, ins) in cuts {
            let i = at.index(text.len() + 1);
            text.splice(i..i, ins.bytes());
        }
        let Some((mut p, mut w)) = read_both(&text)? else {
            return Ok(());
        };
        let c: Vec<String> = container.iter().map(|s| s.to_string()).collect();
        prop_assert_eq!(answers(&p, &c, &name), answers(&w, &c, &name));
        let steps: [(Option<&Value>, bool); 4] = [(Some(&v), false), (Some(&v2), false), (Some(&v), false), (None, true)];
        let mut hints = Vec::new();
        for (value, remove) in steps {
            let (a, b) = match (value, remove) {
                (Some(v), _) => {
                    let (a, b) = (p.upsert(&c, &name, v), w.upsert(&c, &name, v));
                    if let Ok(h) = &a
                        && hints.is_empty()
                    {
                        hints = h.clone();
                    }
                    (a.map(|_| ()), b.map(|_| ()))
                }
                _ => (p.remove(&c, &name, &hints), w.remove(&c, &name, &hints)),
            };
            prop_assert_eq!(a.as_ref().err().map(|e| e.code), b.as_ref().err().map(|e| e.code), "{:?}", String::from_utf8_lossy(&text));
            prop_assert_eq!(String::from_utf8_lossy(p.bytes()), String::from_utf8_lossy(w.bytes()));
            prop_assert_eq!(answers(&p, &c, &name), answers(&w, &c, &name));
            if a.is_err() {
                break;
            }
        }
    }
}

/// A document whose `extensions` holds `kids` (and other top-level keys around it).
fn with_children() -> impl Strategy<Value = G> {
    (
        prop::collection::vec((key(), tree()), 0..3),
        prop::collection::vec(("[a-z][a-z0-9-]{0,6}", tree()), 2..10),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(others, kids, at)| {
            let mut seen = std::collections::HashSet::new();
            let kids: Vec<(String, G)> = kids
                .into_iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect();
            let mut top: Vec<(String, G)> = others
                .into_iter()
                .filter(|(k, _)| k != "extensions")
                .collect();
            let mut seen = std::collections::HashSet::new();
            top.retain(|(k, _)| seen.insert(k.clone()));
            let i = at.index(top.len() + 1);
            top.insert(i, ("extensions".to_string(), G::Map(kids)));
            G::Map(top)
        })
}

proptest! {
    #![proptest_config(crate::jsondoc::proptests::cfg())]

    /// A big entry read child by child (`split`) is accepted or refused as when read whole,
    /// answers alike, and any sequence of edits of its children (the first, the last, one in
    /// the middle, a new one; with comments and blank lines between them) gives the same bytes
    /// and refusals.
    #[test]
    fn split_entries_read_and_edit_as_the_whole_tree(
        g in with_children(),
        st in style(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), prop_oneof![Just("\n"), Just("  # c\n"), Just("    # d\n"), Just("# e\n"), Just("  x: 1\n"), Just("\t"), Just(" "), Just("- ")]), 0..3),
        steps in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), entry()), 1..6),
    ) {
        let mut text = render(&g, &st).into_bytes();
        for (at, ins) in cuts {
            // Cuts at line starts: a comment or a blank line between children.
            let starts: Vec<usize> = std::iter::once(0).chain(text.iter().enumerate().filter(|(_, c)| **c == b'\n').map(|(i, _)| i + 1)).collect();
            let i = starts[at.index(starts.len())];
            text.splice(i..i, ins.bytes());
        }
        let Some((mut p, mut w)) = read_both(&text)? else {
            return Ok(());
        };
        let c = vec!["extensions".to_string()];
        prop_assert_eq!(answers(&p, &c, "x"), answers(&w, &c, "x"));
        for (pick, remove, v) in steps {
            let names: Vec<String> = match w.get(&c) {
                Some(Value::Object(m)) => m.keys().cloned().collect(),
                _ => Vec::new(),
            };
            let i = pick.index(names.len() + 1);
            let name = names.get(i).cloned().unwrap_or_else(|| "new-one".to_string());
            let (a, b) = if remove && i < names.len() {
                (p.remove(&c, &name, &[]), w.remove(&c, &name, &[]))
            } else {
                (p.upsert(&c, &name, &v).map(|_| ()), w.upsert(&c, &name, &v).map(|_| ()))
            };
            prop_assert_eq!(a.as_ref().err().map(|e| e.code), b.as_ref().err().map(|e| e.code), "{:?}", String::from_utf8_lossy(&text));
            prop_assert_eq!(String::from_utf8_lossy(p.bytes()), String::from_utf8_lossy(w.bytes()));
            prop_assert_eq!(answers(&p, &c, &name), answers(&w, &c, &name));
            if a.is_err() {
                break;
            }
        }
    }
}
