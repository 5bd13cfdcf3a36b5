use super::*;
use serde_json::json;

fn c() -> Vec<String> {
    vec!["mcp_servers".to_string()]
}

/// Set (`Some`) or remove `mcp_servers.<name>` in both documents.
fn edit_both(d: &mut TomlDoc, w: &mut TomlDoc, name: &str, value: Option<&Value>) {
    for doc in [d, w] {
        match value {
            Some(v) => doc.upsert(&c(), name, v).unwrap(),
            None => doc.remove(&c(), name).unwrap(),
        }
    }
}

fn entry() -> Value {
    json!({"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}, "env_vars": ["TOKEN"]})
}

#[test]
fn upsert_then_remove_is_identity() {
    let inputs = [
        "# top\nmodel = \"o3\"\n\n[mcp_servers.user]\ncommand = \"u\"\n\n# about profiles\n[profiles.x]\nmodel = \"y\"\n# trailing\n",
        "model = \"o3\"",
        "model = \"o3\"\r\n[x]\r\ny = 1\r\n",
        "\u{feff}model = 1\n",
        "[mcp_servers]\n",
        "[mcp_servers.a]\ncommand = \"a\"\n[mcp_servers.a.env]\nK = \"v\"\n",
        "x = \"\"\"\nmulti\nline\"\"\"\n[features]\nweb = true # on\n",
    ];
    for input in inputs {
        let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
        assert_eq!(d.to_bytes(), input.as_bytes(), "round trip {input:?}");
        d.upsert(&c(), "ours", &entry()).unwrap();
        let added = String::from_utf8(d.to_bytes()).unwrap();
        assert!(added.contains("[mcp_servers.ours]"), "{added}");
        if input.contains("\r\n") {
            assert!(
                !added.replace("\r\n", "").contains('\n'),
                "CRLF kept: {added:?}"
            );
        }
        let re = TomlDoc::parse(added.as_bytes()).unwrap();
        assert_eq!(re.get(&[c()[0].clone(), "ours".into()]), Some(entry()));
        d.remove(&c(), "ours").unwrap();
        assert_eq!(
            String::from_utf8(d.to_bytes()).unwrap(),
            input,
            "identity {input:?}"
        );
    }
}

#[test]
fn removal_keeps_the_comments_above_the_removed_table() {
    // Plain tables: above the next table, or at the end of the file.
    for (input, want) in [
        ("# note\n[mcp_servers.ours]\ncommand = \"a\"\n", "# note\n"),
        (
            "# note\n[mcp_servers.ours]\ncommand = \"a\"\n\n[profiles.p]\nmodel = \"m\"\n",
            "# note\n\n[profiles.p]\nmodel = \"m\"\n",
        ),
        (
            "model = \"o3\"\n\n# about ours\n[mcp_servers.ours]\ncommand = \"a\"\n",
            "model = \"o3\"\n\n# about ours\n",
        ),
    ] {
        let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
        d.remove(&c(), "ours").unwrap();
        assert_eq!(String::from_utf8(d.to_bytes()).unwrap(), want, "{input:?}");
    }
    // A keyed list (Mistral Vibe's `[[mcp_servers]]`).
    let keyed = vec!["mcp_servers[name]".to_string()];
    let input = "# note\n[[mcp_servers]]\nname = \"ours\"\ncommand = \"a\"\n";
    let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
    d.remove(&keyed, "ours").unwrap();
    assert_eq!(String::from_utf8(d.to_bytes()).unwrap(), "# note\n");
}

#[test]
fn update_keeps_position_and_comments() {
    let input = "[mcp_servers.ours]\n# about ours\ncommand = \"old\" # note\nargs = [\"x\"]\n\n# next one\n[mcp_servers.user]\ncommand = \"u\"\n";
    let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
    d.upsert(&c(), "ours", &json!({"command": "new"})).unwrap();
    let out = String::from_utf8(d.to_bytes()).unwrap();
    assert_eq!(
        out,
        "[mcp_servers.ours]\n# about ours\ncommand = \"new\" # note\n\n# next one\n[mcp_servers.user]\ncommand = \"u\"\n"
    );
    d.remove(&c(), "ours").unwrap();
    let out = String::from_utf8(d.to_bytes()).unwrap();
    assert!(out.contains("# next one\n[mcp_servers.user]"), "{out}");
}

#[test]
fn blank_files_are_empty_documents() {
    // Codex's `codex mcp remove` of the last server leaves a 0-byte file.
    for input in ["", "\n", "  \n\n", "\u{feff}", "\r\n"] {
        let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
        assert_eq!(d.value(), json!({}), "{input:?}");
        assert_eq!(d.to_bytes(), input.as_bytes(), "{input:?}");
        d.upsert(&c(), "x", &entry()).unwrap();
        let out = String::from_utf8(d.to_bytes()).unwrap();
        assert!(out.contains("[mcp_servers.x]"), "{input:?}: {out:?}");
        assert!(out.ends_with('\n'), "{input:?}: {out:?}");
        let re = TomlDoc::parse(out.as_bytes()).unwrap();
        assert_eq!(re.get(&[c()[0].clone(), "x".into()]), Some(entry()));
    }
}

#[test]
fn refusals() {
    let cases: &[(&str, &str)] = &[
        ("a = 1\na = 2\n", "duplicate-key"),
        ("[x\n", "parse-error"),
        ("a.b = 1\nc = 2\na.d = 3\n", "cannot-preserve"),
        ("a = 1\r\nb = 2\n", "cannot-preserve"),
    ];
    for (input, code) in cases {
        assert_eq!(
            TomlDoc::parse(input.as_bytes()).unwrap_err().code,
            *code,
            "{input:?}"
        );
    }
    assert_eq!(
        TomlDoc::parse(b"a = \"\xff\"").unwrap_err().code,
        "invalid-utf8"
    );
    let deep = format!("a = {}1{}\n", "[".repeat(5000), "]".repeat(5000));
    assert!(TomlDoc::parse(deep.as_bytes()).is_err());
    let mut d = TomlDoc::parse(b"mcp_servers = 1\n").unwrap();
    assert_eq!(
        d.upsert(&c(), "x", &entry()).unwrap_err().code,
        "not-an-object"
    );
}

#[test]
fn inline_container_gets_inline_entries() {
    let input = "mcp_servers = { a = { command = \"a\" } }\n";
    let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
    d.upsert(&c(), "b", &json!({"command": "b"})).unwrap();
    let re = TomlDoc::parse(&d.to_bytes()).unwrap();
    assert_eq!(
        re.get(&[c()[0].clone(), "b".into()]),
        Some(json!({"command": "b"}))
    );
    d.remove(&c(), "b").unwrap();
    assert_eq!(d.to_bytes(), input.as_bytes());
}

fn k() -> Vec<String> {
    vec!["mcp_servers[name]".to_string()]
}

fn vibe_entry() -> Value {
    json!({"transport": "stdio", "command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}})
}

#[test]
fn keyed_list_upsert_then_remove_is_identity() {
    let inputs = [
        "# Vibe\nactive_model = \"devstral\"\n\n[[mcp_servers]]\nname = \"fetch\" # theirs\ntransport = \"stdio\"\ncommand = \"uvx\"\n\n# linear\n[[mcp_servers]]\nname = \"linear\"\ntransport = \"streamable-http\"\nurl = \"https://mcp.linear.app/mcp\"\n\n[mcp_servers.auth]\ntype = \"oauth\"\nscopes = []\n\n[tools.fetch_get]\npermission = \"always\"\n",
        "active_model = \"devstral\"\n",
        "active_model = \"devstral\"",
        "a = 1\r\n[x]\r\ny = 2\r\n",
        "[[mcp_servers]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"a\"\n",
    ];
    for input in inputs {
        let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
        d.upsert(&k(), "ours", &vibe_entry()).unwrap();
        let added = String::from_utf8(d.to_bytes()).unwrap();
        assert!(
            added.contains("[[mcp_servers]]\nname = \"ours\"")
                || added.contains("[[mcp_servers]]\r\nname = \"ours\""),
            "{added}"
        );
        let re = TomlDoc::parse(added.as_bytes()).unwrap();
        assert_eq!(re.get(&[k()[0].clone(), "ours".into()]), Some(vibe_entry()));
        // Everything else is still there, byte for byte, before our table.
        let cut = added.find("name = \"ours\"").unwrap();
        assert!(
            input.starts_with(
                added[..cut]
                    .trim_end_matches("[[mcp_servers]]\n")
                    .trim_end_matches("[[mcp_servers]]\r\n")
                    .trim_end()
            ),
            "{added}"
        );
        // An update in place keeps the table where it is.
        let mut u = re.clone();
        u.upsert(
            &k(),
            "ours",
            &json!({"transport": "stdio", "command": "new"}),
        )
        .unwrap();
        let updated = String::from_utf8(u.to_bytes()).unwrap();
        assert_eq!(updated.find("name = \"ours\""), Some(cut), "{updated}");
        assert!(!updated.contains("args"), "{updated}");
        d.remove(&k(), "ours").unwrap();
        assert_eq!(
            String::from_utf8(d.to_bytes()).unwrap(),
            input,
            "identity {input:?}"
        );
    }
}

#[test]
fn keyed_list_view_and_refusals() {
    let input = "[[mcp_servers]]\nname = \"a\"\ncommand = \"x\"\n[[mcp_servers]]\nname = \"b\"\nurl = \"u\"\n";
    let d = TomlDoc::parse(input.as_bytes()).unwrap();
    assert_eq!(
        d.get(&k()),
        Some(json!({"a": {"command": "x"}, "b": {"url": "u"}}))
    );
    assert_eq!(
        d.get(&[k()[0].clone(), "b".into()]),
        Some(json!({"url": "u"}))
    );
    assert_eq!(d.get(&[k()[0].clone(), "c".into()]), None);
    // Not a keyed list: a duplicate name, an element without one, a scalar: refused, the
    // document untouched; the view shows nothing.
    for bad in [
        "[[mcp_servers]]\nname = \"a\"\n[[mcp_servers]]\nname = \"a\"\n",
        "[[mcp_servers]]\ncommand = \"x\"\n",
        "[[mcp_servers]]\nname = 1\n",
        "mcp_servers = 1\n",
    ] {
        let mut d = TomlDoc::parse(bad.as_bytes()).unwrap();
        assert_eq!(d.get(&k()), None, "{bad}");
        let e = d.upsert(&k(), "ours", &vibe_entry()).unwrap_err();
        assert_eq!(e.code, "not-an-object", "{bad}");
        assert_eq!(d.to_bytes(), bad.as_bytes());
    }
    // An inline array is not edited (toml_edit would not keep its layout).
    let inline = "mcp_servers = [{ name = \"a\", command = \"x\" }]\n";
    let mut d = TomlDoc::parse(inline.as_bytes()).unwrap();
    assert_eq!(
        d.get(&[k()[0].clone(), "a".into()]),
        Some(json!({"command": "x"}))
    );
    assert_eq!(
        d.upsert(&k(), "ours", &vibe_entry()).unwrap_err().code,
        "cannot-preserve"
    );
    let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
    assert_eq!(d.remove(&k(), "zz").unwrap_err().code, "not-found");
}

/// An edit of one entry of a table of many entries (a Codex file that is all `mcp_servers`
/// tables) is made in that entry's window: the text before the first header, the table's
/// one-key tables, the entry's tables and the tables of the entry last in the file (a new
/// entry's table goes right after them), every other run of tables one stand-in. The bytes are
/// those of the edit of the whole text, and an entry's value is read from its own tables.
#[test]
fn an_entry_of_a_big_table_is_edited_in_its_own_window() {
    let mut text = String::from("model = \"o3\"\n\n[mcp_servers]\n");
    for i in 0..30 {
        text.push_str(&format!(
            "# server {i}\n[mcp_servers.s{i}]\ncommand = \"c{i}\"\n[mcp_servers.s{i}.env]\nK = \"{i}\"\n\n"
        ));
        if i == 10 {
            text.push_str("[projects.\"/p\"]\ntrust_level = \"trusted\"\n\n");
        }
    }
    let mut d = TomlDoc::parse(text.as_bytes()).unwrap();
    let mut w = TomlDoc::parse_whole(text.as_bytes()).unwrap();
    let s7 = vec!["mcp_servers".to_string(), "s7".to_string()];
    assert_eq!(d.get(&s7), w.get(&s7));
    let absent = vec!["mcp_servers".to_string(), "absent".to_string()];
    assert_eq!(d.get(&absent), None);
    assert!(matches!(d.shape(&c()), Some(Ok(Value::Object(_)))));
    assert!(
        d.values.lock().unwrap().tops.is_empty(),
        "the table's value was not read to read one entry"
    );
    let before = CHILD_WINDOWED.with(|c| c.get());
    for (name, value) in [
        ("ours", Some(entry())),
        ("s7", Some(entry())),
        ("s0", None),
        ("s29", None),
        ("ours", None),
        ("late", Some(entry())),
    ] {
        edit_both(&mut d, &mut w, name, value.as_ref());
        assert_eq!(
            String::from_utf8_lossy(d.bytes()),
            String::from_utf8_lossy(w.bytes()),
            "after {name}"
        );
        let path = vec!["mcp_servers".to_string(), name.to_string()];
        assert_eq!(d.get(&path), value, "after {name}");
    }
    assert_eq!(CHILD_WINDOWED.with(|c| c.get()), before + 6);
    let out = String::from_utf8(d.to_bytes()).unwrap();
    assert!(
        out.contains("[mcp_servers.s28.env]\nK = \"28\"\n\n[mcp_servers.late]\ncommand = \"npx\"")
            && out.ends_with("env_vars = [\"TOKEN\"]\n\n# server 29\n\n\n"),
        "a new entry goes after the table's last table: {out:?}"
    );
    assert_eq!(d.get(&c()), w.get(&c()));
    assert_eq!(d.value(), w.value());
}

/// An edit keeps the bytes read and the ranges it changed, not a whole new text: after a
/// removal and an addition in a big file (the update of a mode switch), the content still
/// shares the buffer read and what it replaced is a few hundred bytes, whatever the file's
/// size; the bytes are those of the same edits of the whole text, CRLF and BOM included.
#[test]
fn edits_keep_the_bytes_read_and_only_the_ranges_they_changed() {
    for (bom, eol) in [("", "\n"), ("\u{feff}", "\n"), ("", "\r\n")] {
        let mut text = format!(
            "{bom}model = \"o3\"{eol}{eol}[mcp_servers.user]{eol}command = \"uvx\"{eol}{eol}"
        );
        for i in 0..2000 {
            text.push_str(&format!(
                "[projects.\"/p/{i}\"]{eol}trust_level = \"trusted\"{eol}{eol}"
            ));
        }
        text.push_str(&format!("[mcp_servers.later]{eol}command = \"npx\"{eol}"));
        let read = TomlDoc::parse(text.as_bytes()).unwrap();
        let mut d = read.clone();
        let mut w = TomlDoc::parse_whole(text.as_bytes()).unwrap();
        for (name, value) in [
            ("ours", Some(entry())),
            ("user", None),
            ("other", Some(entry())),
        ] {
            edit_both(&mut d, &mut w, name, value.as_ref());
            let path = vec!["mcp_servers".to_string(), name.to_string()];
            assert_eq!(d.get(&path), value, "after {name}");
        }
        assert_eq!(d.to_bytes(), w.to_bytes(), "{eol:?} {bom:?}");
        assert!(!d.same_bytes(&read) && d.same_bytes(&d.clone()));
        let content = d.content();
        assert!(content == *w.to_bytes().as_slice());
        if eol == "\n" {
            let changes = content
                .changes_from(read.bytes())
                .expect("the content shares the bytes read");
            let replaced: usize = changes.iter().map(|ch| ch.new_end - ch.start).sum();
            assert!(
                replaced < 400,
                "{replaced} bytes replaced in {}",
                text.len()
            );
        }
    }
}

/// An edit takes the layout of the text it edits instead of copying it: the document read,
/// kept beside its edited clone, scans its text again only when it needs its layout, and
/// then reads as before.
#[test]
fn an_edit_takes_the_layout_and_the_document_read_scans_again_when_asked() {
    let mut text = String::from("model = \"o3\"\n\n[mcp_servers.user]\ncommand = \"uvx\"\n\n");
    for i in 0..300 {
        text.push_str(&format!(
            "[projects.\"/p/{i}\"]\ntrust_level = \"trusted\"\n\n"
        ));
    }
    let read = TomlDoc::parse(text.as_bytes()).unwrap();
    let user = ["mcp_servers".to_string(), "user".to_string()];
    let before = read.get(&user);
    let mut d = read.clone();
    let scans = || RESCANNED.with(|w| w.get());
    let at = scans();
    d.upsert(&c(), "ours", &entry()).unwrap();
    d.remove(&c(), "user").unwrap();
    assert_eq!(scans(), at, "the edits scanned again");
    assert!(matches!(*read.layout.lock().unwrap(), Slot::Lent));
    // A value read before needs no layout; another one does, once.
    assert_eq!(read.get(&user), before);
    assert_eq!(scans(), at);
    let p = ["projects".to_string(), "/p/7".to_string()];
    assert_eq!(read.get(&p), Some(json!({"trust_level": "trusted"})));
    assert_eq!(read.get(&["model".to_string()]), Some(json!("o3")));
    assert_eq!(scans(), at + 1);
    assert_eq!(d.get(&user), None);
    assert_eq!(
        d.get(&["mcp_servers".to_string(), "ours".to_string()]),
        Some(entry())
    );
    // A clone of the document read edits it again, from the layout scanned again.
    let mut e = read.clone();
    e.upsert(&c(), "ours", &entry()).unwrap();
    e.remove(&c(), "user").unwrap();
    assert!(e.same_bytes(&d));
}
