//! Property tests of the window edit: generated files of tables of many top-level keys
//! (servers among them, comments above and after them, CRLF, a BOM, no final newline), edited
//! several times through the window and through the whole text, give the same bytes and the
//! same refusals; after every edit the layout carried forward is the layout of the new text
//! read afresh, and the new text reads as its value.

use proptest::prelude::*;
use serde_json::{Value, json};
use toml_edit::Document;

use toml_edit::Item;

use super::TomlDoc;
use super::layout::{Layout, View};

/// One table of a generated file: its header's top-level key and the rest of its path.
#[derive(Debug, Clone)]
struct Part {
    above: &'static str,
    header: String,
    after: &'static str,
    body: Vec<String>,
}

fn part(keyed: bool) -> impl Strategy<Value = Part> {
    let header = prop_oneof![
        (0..6u8).prop_map(|i| format!("[projects.\"/p{i}\"]")),
        (0..3u8).prop_map(|i| format!("[profiles.p{i}]")),
        Just("[tools]".to_string()),
        Just("[[arr]]".to_string()),
        (0..4u8).prop_map(move |i| if keyed {
            "[[mcp_servers]]".to_string()
        } else {
            format!("[mcp_servers.s{i}]")
        }),
        (0..4u8).prop_map(move |i| if keyed {
            "[mcp_servers.auth]".to_string()
        } else {
            format!("[mcp_servers.s{i}.env]")
        }),
    ];
    let above = prop_oneof![
        Just(""),
        Just("\n"),
        Just("# above\n"),
        Just("\n# above\n\n")
    ];
    let after = prop_oneof![Just(""), Just(" # after")];
    let body = proptest::collection::vec(
        prop_oneof![
            (0..3u8).prop_map(|i| format!("k{i} = \"v\"")),
            Just("trust_level = \"trusted\" # c".to_string()),
            Just("d.e = 1".to_string()),
            Just("# inside".to_string()),
            Just("m = \"\"\"\n[not.a.header]\n\"\"\"".to_string()),
        ],
        0..3,
    );
    (above, header, after, body).prop_map(|(above, header, after, body)| Part {
        above,
        header,
        after,
        body,
    })
}

#[derive(Debug, Clone)]
struct File {
    text: String,
    keyed: bool,
}

fn file() -> impl Strategy<Value = File> {
    any::<bool>().prop_flat_map(|keyed| {
        let preamble = prop_oneof![
            Just(""),
            Just("model = \"o3\"\n"),
            Just("# top\nmodel = \"o3\"\n\n"),
            Just("mcp_servers.d.command = \"d\"\n"),
        ];
        let trailing = prop_oneof![Just(""), Just("# end\n"), Just("\n\n# end\n")];
        (
            preamble,
            proptest::collection::vec(part(keyed), 0..8),
            trailing,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(move |(pre, parts, trailing, crlf, bom, no_final)| {
                let mut t = pre.to_string();
                let mut names = 0;
                for p in parts {
                    t.push_str(p.above);
                    t.push_str(&p.header);
                    t.push_str(p.after);
                    t.push('\n');
                    if p.header == "[[mcp_servers]]" {
                        t.push_str(&format!("name = \"s{names}\"\n"));
                        names += 1;
                    }
                    for l in p.body {
                        t.push_str(&l);
                        t.push('\n');
                    }
                }
                t.push_str(trailing);
                if no_final && t.ends_with('\n') {
                    t.pop();
                }
                if crlf {
                    t = t.replace('\n', "\r\n");
                }
                if bom {
                    t.insert(0, '\u{feff}');
                }
                File { text: t, keyed }
            })
    })
}

#[derive(Debug, Clone)]
enum Op {
    Upsert(String, Value),
    Remove(String),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let name = prop_oneof![
        (0..4u8).prop_map(|i| format!("s{i}")),
        Just("ours".to_string()),
        Just("d".to_string()),
    ];
    let value = prop_oneof![
        Just(json!({"command": "npx", "args": ["-y", "srv"]})),
        Just(json!({"command": "x", "env": {"K": "v"}})),
        Just(json!({"url": "https://example.test/mcp"})),
    ];
    proptest::collection::vec(
        prop_oneof![
            (name.clone(), value).prop_map(|(n, v)| Op::Upsert(n, v)),
            name.prop_map(Op::Remove),
        ],
        1..4,
    )
}

/// The layout of `d`'s text read afresh, by `toml_edit`.
fn fresh_layout(d: &TomlDoc) -> Option<View> {
    Layout::of(&Document::parse(lf(d)).unwrap()).map(|l| l.view())
}

fn lf(d: &TomlDoc) -> String {
    d.lf().into_owned()
}

fn layout(d: &TomlDoc) -> Option<View> {
    d.layout().as_deref().map(Layout::view)
}

/// Whether the table `toml_edit` visits last (in key order) is the last in the text: where it
/// places a new container's first table (the window places it at the end).
fn visited_last_is_last(text: &str) -> bool {
    fn walk(item: &Item, out: &mut Vec<usize>) {
        let tables: Vec<&toml_edit::Table> = match item {
            Item::Table(t) => vec![t],
            Item::ArrayOfTables(a) => a.iter().collect(),
            _ => return,
        };
        for t in tables {
            if let Some(p) = t.position() {
                out.push(p as usize);
            }
            for (_, i) in t.iter() {
                walk(i, out);
            }
        }
    }
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let mut visited = Vec::new();
    for (_, i) in doc.as_table().iter() {
        walk(i, &mut visited);
    }
    visited.last() == visited.iter().max()
}

/// A generated file with a few bytes changed: mostly invalid or oddly spelled TOML.
fn mutated() -> impl Strategy<Value = String> {
    let edit = (
        any::<prop::sample::Index>(),
        0..3usize,
        prop_oneof![
            Just("["),
            Just("]"),
            Just("[["),
            Just("="),
            Just("\""),
            Just("'"),
            Just("\n"),
            Just("#"),
            Just("{"),
            Just("}"),
            Just("."),
            Just(" "),
            Just("\"\"\""),
            Just("a"),
            Just("\u{1}"),
            Just("\u{feff}"),
            Just("\r\n"),
            Just("\r"),
        ],
    );
    (file(), proptest::collection::vec(edit, 1..4)).prop_map(|(f, edits)| {
        let mut t = f.text;
        for (at, del, ins) in edits {
            let mut i = at.index(t.len() + 1);
            while !t.is_char_boundary(i) {
                i -= 1;
            }
            let mut j = (i + del).min(t.len());
            while !t.is_char_boundary(j) {
                j += 1;
            }
            t.replace_range(i..j, ins);
        }
        t
    })
}

proptest! {
    #![proptest_config(crate::jsondoc::proptests::cfg())]

    /// Read through its windows, a file is accepted, refused or found invalid exactly as read
    /// whole, and reads as the same values; the scan finds the layout `toml_edit` does.
    #[test]
    fn windows_read_as_the_whole_text(text in prop_oneof![file().prop_map(|f| f.text), mutated()]) {
        let windowed = TomlDoc::parse(text.as_bytes());
        let whole = TomlDoc::parse_whole(text.as_bytes());
        prop_assert_eq!(windowed.as_ref().err().map(|e| e.code), whole.as_ref().err().map(|e| e.code), "{:?}", text);
        if let (Ok(d), Ok(w)) = (&windowed, &whole) {
            let Value::Object(values) = w.value() else {
                return Err(TestCaseError::fail("not an object"));
            };
            for key in values.keys().chain(["mcp_servers".to_string(), "absent".to_string()].iter()) {
                let path = std::slice::from_ref(key);
                // The kind read from the key's one-key tables (of a document that has not read
                // the key's value) is the whole value's.
                let fresh = TomlDoc::parse(text.as_bytes()).unwrap();
                let kind = |r: Option<Result<Value, &'static str>>| r.map(|x| x.map(|v| crate::yamldoc::kind_of(&v)));
                prop_assert_eq!(kind(fresh.shape(path)), kind(w.lookup(path)), "{} in {:?}", key, text);
                prop_assert_eq!(d.get(path), w.get(path), "{} in {:?}", key, text);
            }
            // An entry's value read from its own tables is the whole value's.
            for child in ["s0", "s1", "s2", "auth", "d", "ours"] {
                let path = ["mcp_servers".to_string(), child.to_string()];
                let fresh = TomlDoc::parse(text.as_bytes()).unwrap();
                prop_assert_eq!(fresh.get(&path), w.get(&path), "{} in {:?}", child, text);
            }
            prop_assert_eq!(d.value(), Value::Object(values));
            if let Some(l) = layout(d) {
                prop_assert_eq!(Some(l), fresh_layout(d), "{:?}", text);
            }
        }
    }

    #[test]
    fn window_edits_are_the_whole_texts_edits(f in file(), ops in ops()) {
        let Ok(read) = TomlDoc::parse(f.text.as_bytes()) else {
            // Generated files toml_edit refuses (a table defined twice) are not edited.
            return Ok(());
        };
        prop_assert_eq!(layout(&read), fresh_layout(&read));
        // The document read, kept beside its edited clone as a plan keeps it.
        let original = read.clone();
        let mut windowed = read.clone();
        let mut whole = TomlDoc { layout: super::Slot::of(None), ..read };
        let container = vec![if f.keyed { "mcp_servers[name]" } else { "mcp_servers" }.to_string()];
        for op in &ops {
            whole.layout = super::Slot::of(None);
            let key = "mcp_servers";
            let expect_window = windowed.layout().is_some_and(|l| {
                l.sections.iter().any(|s| l.top(s) != key)
            });
            let before = super::WINDOWED.with(|w| w.get());
            let child_before = super::CHILD_WINDOWED.with(|w| w.get());
            let text = lf(&windowed);
            let present: Vec<String> = windowed
                .get(&container)
                .and_then(|v| v.as_object().map(|m| m.keys().cloned().collect()))
                .unwrap_or_default();
            let new_container = windowed.get(&[key.to_string()]).is_none();
            let (a, b) = match op {
                Op::Upsert(n, v) => (windowed.upsert(&container, n, v), whole.upsert(&container, n, v)),
                Op::Remove(n) => (windowed.remove(&container, n), whole.remove(&container, n)),
            };
            prop_assert_eq!(a.as_ref().err().map(|e| e.code), b.as_ref().err().map(|e| e.code), "{:?}", op);
            if a.is_ok() {
                // Not when an implicit table gets a header (it has no place of its own).
                let floated = match op {
                    Op::Upsert(n, _) => {
                        !f.keyed && present.contains(n) && !text.contains(&format!("[mcp_servers.{n}]"))
                    }
                    Op::Remove(_) => false,
                };
                // In the container's window, or in the entry's (which may be smaller than a
                // container's whole text even when the file holds nothing else).
                let windowed = super::WINDOWED.with(|w| w.get()) > before;
                let child = super::CHILD_WINDOWED.with(|w| w.get()) > child_before;
                prop_assert!(!(windowed && child), "{:?}", op);
                prop_assert_eq!(windowed || (child && expect_window), expect_window && !floated, "{:?}", op);
            }
            if new_container && a.is_ok() && !visited_last_is_last(&text) {
                // toml_edit would put the new container's table after the table it visits
                // last; the window puts it at the end. Both read alike.
                prop_assert_eq!(windowed.value(), whole.value());
                whole = windowed.clone();
            } else {
                prop_assert_eq!(lf(&windowed), lf(&whole), "{:?} on {:?}", op, f.text);
            }
            prop_assert_eq!(layout(&windowed), fresh_layout(&windowed), "{:?}", op);
            let again = TomlDoc::parse(windowed.bytes()).unwrap();
            prop_assert_eq!(again.value(), windowed.value());
            prop_assert_eq!(again.get(&container), windowed.get(&container));
        }
        // The edits took the layout of the document read, which reads its text as before
        // (scanning it again).
        let fresh = TomlDoc::parse(f.text.as_bytes()).unwrap();
        prop_assert_eq!(lf(&original), lf(&fresh));
        prop_assert_eq!(original.get(&container), fresh.get(&container));
        prop_assert_eq!(layout(&original), fresh_layout(&original));
        for child in ["s0", "s1", "ours"] {
            let path = ["mcp_servers".to_string(), child.to_string()];
            prop_assert_eq!(original.get(&path), fresh.get(&path));
        }
    }
}
