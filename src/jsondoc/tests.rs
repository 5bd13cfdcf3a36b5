//! Unit tests of the whole module (refusals, formatting, edits).

use super::api::*;
use serde_json::json;

fn p(path: &[&str]) -> Vec<String> {
    path.iter().map(|s| (*s).to_owned()).collect()
}

fn text(d: &JsonDoc) -> String {
    String::from_utf8(d.to_bytes()).unwrap()
}

// ----------------------------------------------------------------------------------------
// Refusals
// ----------------------------------------------------------------------------------------

#[test]
fn refusals() {
    use Syntax::{Json, JsonComments, Jsonc};
    let deep_after_key = format!("{{\"a\":{}", "[".repeat(200));
    let cases: Vec<(Vec<u8>, Syntax, &str, usize, usize)> = vec![
        (b"\xff".to_vec(), Json, "invalid-utf8", 1, 1),
        (
            b"{\"a\":\n\"\xc3\x28\"}".to_vec(),
            Json,
            "invalid-utf8",
            2,
            2,
        ),
        (
            b"{\"\xc3\xa9\":\"\xe9\"}".to_vec(),
            Json,
            "invalid-utf8",
            1,
            7,
        ),
        (b"".to_vec(), Json, "empty-file", 1, 1),
        (b" \n\t\r\n".to_vec(), Jsonc, "empty-file", 1, 1),
        (b"\xEF\xBB\xBF".to_vec(), Json, "empty-file", 1, 1),
        (
            b"// nothing\n/* here */".to_vec(),
            Jsonc,
            "empty-file",
            1,
            1,
        ),
        (b"{\"a\":1 // c\n}".to_vec(), Json, "parse-error", 1, 8),
        (b"{\"a\":1 /* c */}".to_vec(), Json, "parse-error", 1, 8),
        (b"{\"a\":1,}".to_vec(), Json, "parse-error", 1, 7),
        (b"{\"a\":1,\n}".to_vec(), JsonComments, "parse-error", 1, 7),
        (b"{\"a\":[1,]}".to_vec(), JsonComments, "parse-error", 1, 8),
        (b"{\"a\":[1,,2]}".to_vec(), Jsonc, "parse-error", 1, 9),
        (b"{,\"a\":1}".to_vec(), Jsonc, "parse-error", 1, 2),
        (b"{,}".to_vec(), Jsonc, "parse-error", 1, 2),
        (b"{'a':1}".to_vec(), Jsonc, "parse-error", 1, 2),
        (b"{\"a\":'x'}".to_vec(), Jsonc, "parse-error", 1, 6),
        (b"{a:1}".to_vec(), Jsonc, "parse-error", 1, 2),
        (b"{\"a\":0x10}".to_vec(), Jsonc, "parse-error", 1, 7),
        (b"{\"a\":+1}".to_vec(), Jsonc, "parse-error", 1, 6),
        (b"{\"a\":.5}".to_vec(), Jsonc, "parse-error", 1, 6),
        (b"{\"a\":01}".to_vec(), Json, "parse-error", 1, 7),
        (b"{\"a\":1.}".to_vec(), Json, "parse-error", 1, 8),
        (b"{\"a\":1e}".to_vec(), Json, "parse-error", 1, 8),
        (b"{\"a\":-}".to_vec(), Json, "parse-error", 1, 7),
        (b"{\"a\":1e400}".to_vec(), Json, "parse-error", 1, 6),
        (b"{\"a\":NaN}".to_vec(), Jsonc, "parse-error", 1, 6),
        (b"{\"a\":Infinity}".to_vec(), Jsonc, "parse-error", 1, 6),
        (b"{\"a\":-Infinity}".to_vec(), Jsonc, "parse-error", 1, 7),
        (b"{\"a\":tru}".to_vec(), Json, "parse-error", 1, 6),
        (b"{\"a\":\"\\ud800\"}".to_vec(), Json, "parse-error", 1, 7),
        (b"{\"a\":\"\\udc00\"}".to_vec(), Json, "parse-error", 1, 7),
        (
            b"{\"a\":\"\\ud800\\u0041\"}".to_vec(),
            Json,
            "parse-error",
            1,
            7,
        ),
        (b"{\"\\ud800\":1}".to_vec(), Json, "parse-error", 1, 3),
        (b"{\"a\":\"\\x\"}".to_vec(), Json, "parse-error", 1, 7),
        (b"{\"a\":\"\\u12\"}".to_vec(), Json, "parse-error", 1, 7),
        (b"{\"a\":\"x\ty\"}".to_vec(), Json, "parse-error", 1, 8),
        (b"{\"a\":\"x\ny\"}".to_vec(), Jsonc, "parse-error", 1, 8),
        (b"{\"a\":\"x\0\"}".to_vec(), Json, "parse-error", 1, 8),
        (b"{} {}".to_vec(), Json, "parse-error", 1, 4),
        (b"{}x".to_vec(), Json, "parse-error", 1, 3),
        (b"{}\0".to_vec(), Json, "parse-error", 1, 3),
        (b"{}\n[]".to_vec(), Jsonc, "parse-error", 2, 1),
        (b"{\"a\":".to_vec(), Json, "parse-error", 1, 6),
        (b"{\"a\":1".to_vec(), Json, "parse-error", 1, 7),
        (b"{\"a\":\"abc".to_vec(), Json, "parse-error", 1, 6),
        (b"{\"a".to_vec(), Json, "parse-error", 1, 2),
        (b"{\"a\" 1}".to_vec(), Json, "parse-error", 1, 6),
        (b"{\"a\":1 \"b\":2}".to_vec(), Jsonc, "parse-error", 1, 8),
        (b"{} /* x".to_vec(), Jsonc, "parse-error", 1, 4),
        (b"{} / x".to_vec(), Jsonc, "parse-error", 1, 4),
        (
            b"\xEF\xBB\xBF\xEF\xBB\xBF{}".to_vec(),
            Json,
            "parse-error",
            1,
            1,
        ),
        (b"{\"a\":1,\"a\":2}".to_vec(), Json, "duplicate-key", 1, 8),
        (
            b"{\"x\":{\"b\":1,\n  \"b\":2}}".to_vec(),
            Json,
            "duplicate-key",
            2,
            3,
        ),
        (
            b"{\"a\":1,\"\\u0061\":2}".to_vec(),
            Json,
            "duplicate-key",
            1,
            8,
        ),
        (
            b"{\"x\":[{\"k\":1,\"k\":2}]}".to_vec(),
            Json,
            "duplicate-key",
            1,
            14,
        ),
        (deep_after_key.into_bytes(), Json, "too-deep", 1, 133),
        ("[".repeat(100_000).into_bytes(), Json, "too-deep", 1, 129),
        (
            "{\"a\":".repeat(100_000).into_bytes(),
            Jsonc,
            "too-deep",
            1,
            641,
        ),
        (b"[]".to_vec(), Json, "not-an-object", 1, 1),
        (b"null".to_vec(), Json, "not-an-object", 1, 1),
        (b"\"x\"".to_vec(), Json, "not-an-object", 1, 1),
        (b"1".to_vec(), Json, "not-an-object", 1, 1),
        (b"  \n  [1,]".to_vec(), Jsonc, "not-an-object", 2, 3),
        (b"\xEF\xBB\xBF[]".to_vec(), Json, "not-an-object", 1, 1),
    ];
    for (input, syntax, code, line, column) in cases {
        let shown = String::from_utf8_lossy(&input[..input.len().min(40)]).into_owned();
        match JsonDoc::parse(&input, syntax) {
            Ok(_) => panic!("{shown:?} ({syntax:?}) was accepted"),
            Err(e) => {
                assert_eq!(
                    (e.code.as_str(), e.line, e.column),
                    (code, line, column),
                    "{shown:?} ({syntax:?}): {e}"
                );
                assert!(!e.message.is_empty());
                assert!(!e.message.starts_with(char::is_uppercase), "{e}");
                assert!(!e.message.ends_with('.'), "{e}");
            }
        }
    }
}

#[test]
fn accepted_per_syntax() {
    use Syntax::{Json, JsonComments, Jsonc};
    let cases: &[(&str, &[Syntax])] = &[
        ("{}", &[Json, JsonComments, Jsonc]),
        ("{\"a\":1} // c", &[JsonComments, Jsonc]),
        ("/* c */{\"a\":[1, /* c */ 2]}", &[JsonComments, Jsonc]),
        ("{\"a\":[1,2,],}", &[Jsonc]),
        (
            "{\"a\":\"\\ud83d\\ude00 \\u00e9 \\/ \\b\\f\\n\\r\\t\"}",
            &[Json, JsonComments, Jsonc],
        ),
        (
            "{\"n\":[0,-0,1.50,1E2,-1e-3,12345678901234567890,123456789012345678901234]}",
            &[Json, JsonComments, Jsonc],
        ),
        ("{\"a\":1} // no final newline", &[JsonComments, Jsonc]),
        ("{\"a\":1} //\r{}", &[]),
    ];
    for (input, ok) in cases {
        for syntax in [Json, JsonComments, Jsonc] {
            let r = JsonDoc::parse(input.as_bytes(), syntax);
            assert_eq!(
                r.is_ok(),
                ok.contains(&syntax),
                "{input:?} {syntax:?}: {r:?}"
            );
            if let Ok(d) = r {
                assert_eq!(d.to_bytes(), input.as_bytes());
            }
        }
    }
    // 128 levels are accepted (the root is level 1).
    let ok = format!("{{\"a\":{}{}}}", "[".repeat(127), "]".repeat(127));
    assert!(JsonDoc::parse(ok.as_bytes(), Json).is_ok());
    let bad = format!("{{\"a\":{}{}}}", "[".repeat(128), "]".repeat(128));
    assert_eq!(
        JsonDoc::parse(bad.as_bytes(), Json).unwrap_err().code,
        "too-deep"
    );
}

// ----------------------------------------------------------------------------------------
// Formatting
// ----------------------------------------------------------------------------------------

#[test]
fn formatting() {
    use Syntax::{Json, Jsonc};
    let cmd = json!({"command": "x"});
    let cases: Vec<(&str, Syntax, Vec<String>, &str)> = vec![
        // tabs + CRLF
        (
            "{\r\n\t\"a\": 1\r\n}\r\n",
            Json,
            p(&["mcpServers"]),
            "{\r\n\t\"a\": 1,\r\n\t\"mcpServers\": {\r\n\t\t\"srv\": {\r\n\t\t\t\"command\": \"x\"\r\n\t\t}\r\n\t}\r\n}\r\n",
        ),
        // 4-space indent detected
        (
            "{\n    \"mcpServers\": {\n        \"a\": 1\n    }\n}",
            Json,
            p(&["mcpServers"]),
            "{\n    \"mcpServers\": {\n        \"a\": 1,\n        \"srv\": {\n            \"command\": \"x\"\n        }\n    }\n}",
        ),
        // trailing commas kept
        (
            "{\n  \"mcpServers\": {\n    \"a\": 1,\n  },\n}",
            Jsonc,
            p(&["mcpServers"]),
            "{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"srv\": {\n      \"command\": \"x\"\n    },\n  },\n}",
        ),
        // comment after the last property stays on its line
        (
            "{\n  \"mcpServers\": {\n    \"a\": 1 // keep\n  }\n}",
            Jsonc,
            p(&["mcpServers"]),
            "{\n  \"mcpServers\": {\n    \"a\": 1, // keep\n    \"srv\": {\n      \"command\": \"x\"\n    }\n  }\n}",
        ),
        // comment before the closing brace stays last
        (
            "{\n  \"mcpServers\": {\n    \"a\": 1\n    // end\n  }\n}",
            Jsonc,
            p(&["mcpServers"]),
            "{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"srv\": {\n      \"command\": \"x\"\n    }\n    // end\n  }\n}",
        ),
        // comment inside an empty object is kept
        (
            "{\n  \"mcpServers\": {\n    // add servers here\n  }\n}",
            Jsonc,
            p(&["mcpServers"]),
            "{\n  \"mcpServers\": {\n    // add servers here\n    \"srv\": {\n      \"command\": \"x\"\n    }\n  }\n}",
        ),
        // one-line objects stay one-line, spacing copied
        (
            "{\"mcpServers\":{\"a\":1}}",
            Json,
            p(&["mcpServers"]),
            "{\"mcpServers\":{\"a\":1,\"srv\":{\"command\":\"x\"}}}",
        ),
        (
            "{\"mcpServers\": {\"a\": 1}}\n",
            Json,
            p(&["mcpServers"]),
            "{\"mcpServers\": {\"a\": 1, \"srv\": {\"command\": \"x\"}}}\n",
        ),
        (
            "{\"a\": 1, \"mcpServers\": {}}",
            Json,
            p(&["mcpServers"]),
            "{\"a\": 1, \"mcpServers\": {\"srv\": {\"command\": \"x\"}}}",
        ),
        (
            "{ \"a\": 1 }",
            Json,
            p(&["mcpServers"]),
            "{ \"a\": 1, \"mcpServers\": {\"srv\": {\"command\": \"x\"}} }",
        ),
        // single-line object inside a multi-line file stays single-line
        (
            "{\n  \"mcpServers\": {\"a\": 1}\n}",
            Json,
            p(&["mcpServers"]),
            "{\n  \"mcpServers\": {\"a\": 1, \"srv\": {\"command\": \"x\"}}\n}",
        ),
        // BOM
        (
            "\u{feff}{}",
            Json,
            p(&["mcpServers"]),
            "\u{feff}{\n  \"mcpServers\": {\n    \"srv\": {\n      \"command\": \"x\"\n    }\n  }\n}",
        ),
        // replace keeps everything else
        (
            "{\"mcpServers\": {\"srv\": {\"old\": true}, \"b\": 2}}",
            Json,
            p(&["mcpServers"]),
            "{\"mcpServers\": {\"srv\": {\"command\": \"x\"}, \"b\": 2}}",
        ),
        // numbers and escapes elsewhere untouched
        (
            "{\"n\": 12345678901234567890, \"f\": 1.50, \"e\": 1E2, \"s\": \"\\u00e9\", \"mcpServers\": {}}",
            Json,
            p(&["mcpServers"]),
            "{\"n\": 12345678901234567890, \"f\": 1.50, \"e\": 1E2, \"s\": \"\\u00e9\", \"mcpServers\": {\"srv\": {\"command\": \"x\"}}}",
        ),
        // nested path created under an existing object
        (
            "{\n  \"projects\": {\n    \"/p\": {\n      \"x\": 1\n    }\n  }\n}\n",
            Json,
            p(&["projects", "/p", "mcpServers"]),
            "{\n  \"projects\": {\n    \"/p\": {\n      \"x\": 1,\n      \"mcpServers\": {\n        \"srv\": {\n          \"command\": \"x\"\n        }\n      }\n    }\n  }\n}\n",
        ),
    ];
    for (input, syntax, path, expected) in cases {
        let mut d = JsonDoc::parse(input.as_bytes(), syntax).unwrap();
        let existed = d.get(&path).is_some_and(|c| c.get("srv").is_some());
        let hints = d.upsert(&path, "srv", &cmd).unwrap();
        assert_eq!(text(&d), expected, "upsert into {input:?}");
        if !existed {
            d.remove(&path, "srv", &hints).unwrap();
            assert_eq!(text(&d), input, "remove from {expected:?}");
        }
    }
}

#[test]
fn removal_keeps_neighbour_comments() {
    let input = "{\n  // about a\n  \"a\": 1, // a line\n  // about b\n  \"b\": 2 // b line\n}\n";
    let cases = [
        (
            "a",
            "{\n  // about a\n  // about b\n  \"b\": 2 // b line\n}\n",
        ),
        (
            "b",
            "{\n  // about a\n  \"a\": 1 // a line\n  // about b\n}\n",
        ),
    ];
    for (name, expected) in cases {
        let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
        d.remove(&[], name, &[]).unwrap();
        assert_eq!(text(&d), expected);
    }
    // one-line, with a comment between members
    let input = "{\"a\": 1, /* c */ \"b\": 2}";
    let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
    d.remove(&[], "b", &[]).unwrap();
    assert_eq!(text(&d), "{\"a\": 1 /* c */}");
    let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
    d.remove(&[], "a", &[]).unwrap();
    assert_eq!(text(&d), "{/* c */ \"b\": 2}");
    // a line comment before the last member never swallows the closing brace
    let input = "{\"a\": 1, // c\n  \"b\": 2}";
    let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
    d.remove(&[], "b", &[]).unwrap();
    assert_eq!(text(&d), "{\"a\": 1 // c\n}");
    // trailing comma on the removed last member: the previous comma becomes trailing
    let input = "{\n  \"a\": 1,\n  \"b\": 2,\n}";
    let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
    d.remove(&[], "b", &[]).unwrap();
    assert_eq!(text(&d), "{\n  \"a\": 1,\n}");
}

#[test]
fn edit_errors() {
    let mut d = JsonDoc::parse(b"{\"mcpServers\": [1]}", Syntax::Json).unwrap();
    let e = d.upsert(&p(&["mcpServers"]), "x", &json!(1)).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.line, e.column),
        ("not-an-object", 1, 16)
    );
    let e = d
        .upsert(&p(&["mcpServers", "deeper"]), "x", &json!(1))
        .unwrap_err();
    assert_eq!(e.code, "not-an-object");
    let e = d.remove(&p(&["mcpServers"]), "x", &[]).unwrap_err();
    assert_eq!(e.code, "not-an-object");
    let e = d.remove(&p(&["nope"]), "x", &[]).unwrap_err();
    assert_eq!(e.code, "not-found");
    let mut d = JsonDoc::parse(b"{\"m\": {}}", Syntax::Json).unwrap();
    let e = d.remove(&p(&["m"]), "x", &[]).unwrap_err();
    assert_eq!(e.code, "not-found");
    let bad = [UndoHint::EmptyInner {
        path: vec![],
        inner: "x".into(),
    }];
    let e = d.remove(&p(&["m"]), "x", &bad).unwrap_err();
    assert_eq!(e.code, "invalid-hint");
    // a value nested too deep is refused before anything is written
    let mut v = json!(1);
    for _ in 0..130 {
        v = json!([v]);
    }
    let before = d.to_bytes();
    let e = d.upsert(&p(&["m"]), "x", &v).unwrap_err();
    assert_eq!(e.code, "too-deep");
    assert_eq!(d.to_bytes(), before);
}

/// Fuzzing regression: a lone `\r` after a `//` comment that ends the last member's line
/// must survive an upsert followed by the remove.
#[test]
fn lone_cr_after_line_comment_survives_upsert_remove() {
    let src = b"{\"other\": true// c\r\r\n// d\n}\n";
    for s in [Syntax::JsonComments, Syntax::Jsonc] {
        let mut d = JsonDoc::parse(src, s).unwrap();
        let hints = d
            .upsert(&p(&["mcpServers"]), "srv", &json!({"command": "x"}))
            .unwrap();
        d.remove(&p(&["mcpServers"]), "srv", &hints).unwrap();
        assert_eq!(d.to_bytes(), src);
        let hints = d.upsert(&p(&[]), "srv", &json!(1)).unwrap();
        d.remove(&p(&[]), "srv", &hints).unwrap();
        assert_eq!(d.to_bytes(), src);
    }
    // …but whitespace before a lone `\r` that follows a value stays where it is.
    let src = b"{\n\"m\": \r{}\t\t\r\r\t}\n";
    let mut d = JsonDoc::parse(src, Syntax::Jsonc).unwrap();
    let c = p(&["projects", "/p", "mcpServers"]);
    let hints = d.upsert(&c, "a", &json!(1)).unwrap();
    d.remove(&c, "a", &hints).unwrap();
    assert_eq!(d.to_bytes(), src);
}

#[test]
fn hints_serialize_small() {
    let mut d = JsonDoc::parse(b"{}", Syntax::Json).unwrap();
    let hints = d
        .upsert(&p(&["mcpServers"]), "s", &json!({"command": "secret"}))
        .unwrap();
    let s = serde_json::to_string(&hints).unwrap();
    assert_eq!(
        s,
        r#"[{"kind":"empty-inner","path":[],"inner":""},{"kind":"created","path":["mcpServers"]}]"#
    );
    let back: Vec<UndoHint> = serde_json::from_str(&s).unwrap();
    assert_eq!(back, hints);
}

#[test]
fn a_batch_of_member_edits_is_one_pass_with_the_single_edits_bytes() {
    let text =
        "{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"b\": 2, // two\n    \"c\": 3\n  }\n}\n";
    let c = vec!["mcpServers".to_string()];
    let d = JsonDoc::parse(text.as_bytes(), Syntax::Jsonc).unwrap();
    // Appends and a replacement.
    let edits = vec![
        ("b".to_string(), Some(serde_json::json!(20))),
        ("x".to_string(), Some(serde_json::json!({"command": "npx"}))),
        ("y".to_string(), Some(serde_json::json!(true))),
    ];
    let mut batch = d.clone();
    batch.edit_members(&c, &edits).unwrap();
    let mut seq = d.clone();
    for (n, v) in &edits {
        seq.upsert(&c, n, v.as_ref().unwrap()).unwrap();
    }
    assert_eq!(batch.text(), seq.text());
    assert!(
        batch.text().contains("\"b\": 20, // two"),
        "{}",
        batch.text()
    );
    // Removals, the last member among them: the new last one loses its comma.
    let removals = vec![("c".to_string(), None), ("b".to_string(), None)];
    let mut batch = d.clone();
    batch.edit_members(&c, &removals).unwrap();
    assert_eq!(
        batch.text(),
        "{\n  \"mcpServers\": {\n    \"a\": 1\n  }\n}\n"
    );
    // Never empties the object; never names a member twice; nothing changes then.
    let all = vec![
        ("a".to_string(), None),
        ("b".to_string(), None),
        ("c".to_string(), None),
    ];
    let mut batch = d.clone();
    assert!(batch.edit_members(&c, &all).is_err());
    assert_eq!(batch.text(), text);
    let twice = vec![
        ("x".to_string(), Some(serde_json::json!(1))),
        ("x".to_string(), None),
    ];
    assert!(batch.edit_members(&c, &twice).is_err());
    assert_eq!(batch.text(), text);
}

#[test]
fn a_batch_replaces_the_last_member_by_new_ones_in_one_pass() {
    // An update: the last server goes, a new one comes (the single edits in either order
    // give the same bytes, and so does the batch, without a second copy of the text).
    let text = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n    \"old\": {\n      \"command\": \"y\"\n    }\n  },\n  \"z\": 1\n}\n";
    let c = vec!["mcpServers".to_string()];
    let d = JsonDoc::parse(text.as_bytes(), Syntax::Json).unwrap();
    let new = serde_json::json!({"command": "npx", "args": ["-y"]});
    let edits = vec![
        ("old".to_string(), None),
        ("new".to_string(), Some(new.clone())),
    ];
    let mut batch = d.clone();
    batch.edit_members(&c, &edits).unwrap();
    let mut seq = d.clone();
    seq.remove(&c, "old", &[]).unwrap();
    seq.upsert(&c, "new", &new).unwrap();
    let mut rev = d.clone();
    rev.upsert(&c, "new", &new).unwrap();
    rev.remove(&c, "old", &[]).unwrap();
    assert_eq!(batch.text(), seq.text());
    assert_eq!(batch.text(), rev.text());
    assert!(!batch.text().contains("old"), "{}", batch.text());
    // Something else on the new last member's line: refused (the caller makes the single
    // edits), nothing changed.
    let t2 = text.replace("\"x\"},", "\"x\"}, // note");
    let d2 = JsonDoc::parse(t2.as_bytes(), Syntax::Jsonc).unwrap();
    let mut b2 = d2.clone();
    assert!(b2.edit_members(&c, &edits).is_err());
    assert_eq!(b2.text(), t2);
}

#[test]
fn edits_of_an_edited_object_never_build_the_whole_text() {
    // A mode switch of a big file whose object holds only the old entry: the new one is added
    // (the object is edited), the old one removed and the empty object's whitespace kept (the
    // edited object is edited again). Each later edit reads the edited object alone: the text
    // is never built, the bytes read stay shared, and the result is the fresh edits' result.
    let history = "x".repeat(4096);
    let text = format!(
        "{{\n  \"mcpServers\": {{\n    \"old\": {{\"command\": \"y\"}}\n  }},\n  \"projects\": {{\"/p\": {{\"h\": \"{history}\"}}}}\n}}\n"
    );
    let c = p(&["mcpServers"]);
    let d = JsonDoc::parse(text.as_bytes(), Syntax::Json).unwrap();
    let read = d.buf.clone();
    let new = json!({"command": "npx", "args": ["-y"]});
    let mut seq = d.clone();
    seq.upsert(&c, "new", &new).unwrap();
    seq.remove(&c, "old", &[]).unwrap();
    let mut hints = seq.upsert(&c, "other", &json!(1)).unwrap();
    hints.push(UndoHint::EmptyInner {
        path: c.clone(),
        inner: "\n  ".into(),
    });
    seq.remove(&c, "new", &[]).unwrap();
    seq.remove(&c, "other", &hints).unwrap();
    let sp = seq.spliced.clone().expect("kept as a splice");
    assert!(!sp.is_built(), "the whole text was built");
    assert!(
        std::sync::Arc::ptr_eq(&seq.buf, &read),
        "the bytes read were copied"
    );
    assert_eq!(sp.parts.len(), 1);
    assert_eq!(sp.parts[0].mid, "{\n  }");
    // The same edits, each on the text parsed afresh.
    let mut fresh = d.clone();
    for step in 0..5 {
        let mut f = JsonDoc::parse(&fresh.to_bytes(), Syntax::Json).unwrap();
        match step {
            0 => drop(f.upsert(&c, "new", &new).unwrap()),
            1 => f.remove(&c, "old", &[]).unwrap(),
            2 => drop(f.upsert(&c, "other", &json!(1)).unwrap()),
            3 => f.remove(&c, "new", &[]).unwrap(),
            _ => f.remove(&c, "other", &hints).unwrap(),
        }
        fresh = f;
    }
    assert_eq!(text_of(&seq), text_of(&fresh));
    assert!(text_of(&seq) == text.replace("\n    \"old\": {\"command\": \"y\"}", ""));
    // An edit outside the edited object reads the whole text: still the fresh result.
    seq.upsert(&p(&["projects"]), "/q", &json!({})).unwrap();
    let mut f = JsonDoc::parse(&fresh.to_bytes(), Syntax::Json).unwrap();
    f.upsert(&p(&["projects"]), "/q", &json!({})).unwrap();
    assert_eq!(text_of(&seq), text_of(&f));
}

fn text_of(d: &JsonDoc) -> String {
    String::from_utf8(d.to_bytes()).unwrap()
}

#[test]
fn a_container_created_in_a_big_object_is_edited_and_removed_without_the_whole_text() {
    // The root is big (its history is proven through a stand-in): the upsert that creates
    // `mcpServers` lands as the few bytes it adds, later edits read that new object alone, and
    // the removal with the upsert's hints deletes it again, giving back the bytes read.
    let history = "x".repeat(4096);
    let text = format!("{{\n  \"history\": \"{history}\",\n  \"n\": 1\n}}\n");
    let c = p(&["mcpServers"]);
    let mut d = JsonDoc::parse(text.as_bytes(), Syntax::Json).unwrap();
    let read = d.buf.clone();
    let built = |d: &JsonDoc| d.spliced.as_ref().is_some_and(|s| s.is_built());
    let ha = d.upsert(&c, "a", &json!({"command": "npx"})).unwrap();
    assert!(ha.iter().any(|h| matches!(h, UndoHint::Created { .. })));
    let sp = d.spliced.clone().unwrap();
    assert!(sp.parts[0].mid.len() < 100, "the root was rebuilt");
    d.upsert(&c, "b", &json!(2)).unwrap();
    d.remove(&c, "b", &[]).unwrap();
    assert!(!built(&d) && std::sync::Arc::ptr_eq(&d.buf, &read));
    assert_eq!(d.get(&c), Some(json!({"a": {"command": "npx"}})));
    let fresh = JsonDoc::parse(&d.to_bytes(), Syntax::Json).unwrap();
    assert_eq!(fresh.get(&c), d.get(&c));
    d.remove(&c, "a", &ha).unwrap();
    assert!(!built(&d) && std::sync::Arc::ptr_eq(&d.buf, &read));
    assert!(text_of(&d) == text, "not given back byte for byte");
    // Removed from the text read afresh, the same bytes.
    let mut again = JsonDoc::parse(text.as_bytes(), Syntax::Json).unwrap();
    again.upsert(&c, "a", &json!({"command": "npx"})).unwrap();
    let mut again = JsonDoc::parse(&again.to_bytes(), Syntax::Json).unwrap();
    again.remove(&c, "a", &ha).unwrap();
    assert!(text_of(&again) == text);
}

#[test]
fn an_edit_beside_an_edited_object_reads_its_object_alone_in_the_documents_layout() {
    // Two objects edited one after the other (a mode switch between two scopes of one file):
    // the second is read from the bytes read, laid out as the whole document decides (here
    // the root's `":"` without a space, which the empty object cannot tell), and the edits
    // are kept as two parts over the bytes read.
    let text =
        "{\n  \"mcpServers\":{\n    \"a\":1\n  },\n  \"other\":{},\n  \"h\":\"0123456789\"\n}\n";
    let mut d = JsonDoc::parse(text.as_bytes(), Syntax::Json).unwrap();
    let read = d.buf.clone();
    d.remove(&p(&["mcpServers"]), "a", &[]).unwrap();
    d.upsert(&p(&["other"]), "y", &json!(2)).unwrap();
    let sp = d.spliced.clone().unwrap();
    assert_eq!(sp.parts.len(), 2);
    assert!(!sp.is_built() && std::sync::Arc::ptr_eq(&d.buf, &read));
    let want = "{\n  \"mcpServers\":{\n  },\n  \"other\":{\n    \"y\":2\n  },\n  \"h\":\"0123456789\"\n}\n";
    assert_eq!(text_of(&d), want);
    let mut f = JsonDoc::parse(text.as_bytes(), Syntax::Json).unwrap();
    f.remove(&p(&["mcpServers"]), "a", &[]).unwrap();
    let mut f = JsonDoc::parse(&f.to_bytes(), Syntax::Json).unwrap();
    f.upsert(&p(&["other"]), "y", &json!(2)).unwrap();
    assert_eq!(text_of(&d), text_of(&f));
    // Later edits of either object go to its own part.
    d.upsert(&p(&["mcpServers"]), "b", &json!(3)).unwrap();
    d.upsert(&p(&["other"]), "x", &json!(1)).unwrap();
    d.remove(&p(&["other"]), "y", &[]).unwrap();
    let sp = d.spliced.clone().unwrap();
    assert!(sp.parts.len() == 2 && !sp.is_built());
    assert_eq!(
        text_of(&d),
        "{\n  \"mcpServers\":{\n    \"b\":3\n  },\n  \"other\":{\n    \"x\":1\n  },\n  \"h\":\"0123456789\"\n}\n"
    );
    assert_eq!(d.get(&p(&["other", "x"])), Some(json!(1)));
    assert_eq!(d.location(&p(&["h"])), Some((8, 3)));
}

#[test]
fn a_value_is_replaced_by_text_as_written_and_proven() {
    let text = "{\n  \"agent\": {\n    \"tools\": [\"a\",  \"b\"],\n    \"x\": 1\n  }\n}\n";
    let c = p(&["agent"]);
    let mut d = JsonDoc::parse(text.as_bytes(), Syntax::Json).unwrap();
    let read = d.buf.clone();
    d.replace_value(
        &c,
        "tools",
        "[\"a\",  \"b\", \"c\"]",
        &json!(["a", "b", "c"]),
    )
    .unwrap();
    assert_eq!(
        text_of(&d),
        text.replace("[\"a\",  \"b\"]", "[\"a\",  \"b\", \"c\"]")
    );
    assert!(std::sync::Arc::ptr_eq(&d.buf, &read));
    // Text that does not hold what the caller says: refused, nothing changed.
    let before = text_of(&d);
    assert!(
        d.replace_value(&c, "tools", "[\"a\"]", &json!(["a", "b"]))
            .is_err()
    );
    assert!(
        d.replace_value(&c, "tools", "[\"a\"", &json!(["a"]))
            .is_err()
    );
    assert_eq!(
        d.replace_value(&c, "nope", "1", &json!(1))
            .unwrap_err()
            .code,
        crate::diag::Code::NotFound
    );
    assert_eq!(text_of(&d), before);
}
