//! Property tests of the window edit: generated files of tables of many top-level keys
//! (servers among them, comments above and after them, CRLF, a BOM, no final newline), edited
//! several times through the window and through the whole text, give the same bytes and the
//! same refusals; after every edit the layout carried forward is the layout of the new text
//! read afresh, and the new text reads as its value.

use proptest::prelude::*;
use serde_json::{Value, json};
use toml_edit::Document;

use super::{Layout, Section, TomlDoc};

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

/// The layout of `d`'s text read afresh.
fn fresh_layout(d: &TomlDoc) -> Option<(Vec<Section>, usize)> {
    let text = String::from_utf8(d.bytes().to_vec()).unwrap();
    let text = text.trim_start_matches('\u{feff}').replace("\r\n", "\n");
    Layout::of(&Document::parse(text).unwrap()).map(|l| (l.sections, l.tail))
}

fn layout(d: &TomlDoc) -> Option<(Vec<Section>, usize)> {
    d.layout.as_deref().map(|l| (l.sections.clone(), l.tail))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(512),
        ..ProptestConfig::default()
    })]

    #[test]
    fn window_edits_are_the_whole_texts_edits(f in file(), ops in ops()) {
        let Ok(read) = TomlDoc::parse(f.text.as_bytes()) else {
            // Generated files toml_edit refuses (a table defined twice) are not edited.
            return Ok(());
        };
        prop_assert_eq!(layout(&read), fresh_layout(&read));
        let mut windowed = read.clone();
        let mut whole = TomlDoc { layout: None, ..read };
        let container = vec![if f.keyed { "mcp_servers[name]" } else { "mcp_servers" }.to_string()];
        for op in &ops {
            whole.layout = None;
            let key = "mcp_servers";
            let expect_window = windowed.layout.as_deref().is_some_and(|l| {
                l.windowed(key, windowed.top.get(key).is_some()) && l.sections.iter().any(|s| s.top != key)
            });
            let before = super::WINDOWED.with(|w| w.get());
            let text = windowed.bytes().to_vec();
            let present: Vec<String> = windowed
                .get(&container)
                .and_then(|v| v.as_object().map(|m| m.keys().cloned().collect()))
                .unwrap_or_default();
            let (a, b) = match op {
                Op::Upsert(n, v) => (windowed.upsert(&container, n, v), whole.upsert(&container, n, v)),
                Op::Remove(n) => (windowed.remove(&container, n), whole.remove(&container, n)),
            };
            prop_assert_eq!(a.as_ref().err().map(|e| e.code), b.as_ref().err().map(|e| e.code), "{:?}", op);
            if a.is_ok() {
                // Not when an implicit table gets a header (it has no place of its own).
                let floated = match op {
                    Op::Upsert(n, _) => {
                        !f.keyed
                            && present.contains(n)
                            && !String::from_utf8_lossy(&text).contains(&format!("[mcp_servers.{n}]"))
                    }
                    Op::Remove(_) => false,
                };
                prop_assert_eq!(super::WINDOWED.with(|w| w.get()) > before, expect_window && !floated, "{:?}", op);
            }
            prop_assert_eq!(
                String::from_utf8_lossy(windowed.bytes()),
                String::from_utf8_lossy(whole.bytes()),
                "{:?} on {:?}", op, f.text
            );
            prop_assert_eq!(layout(&windowed), fresh_layout(&windowed), "{:?}", op);
            let again = TomlDoc::parse(windowed.bytes()).unwrap();
            prop_assert_eq!(again.value(), windowed.value());
        }
    }
}
