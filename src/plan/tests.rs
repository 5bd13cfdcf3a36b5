use super::*;
use proptest::prelude::*;
use serde_json::json;

fn insert_at(node: &mut Value, container: &[String], name: &str, value: Value) {
    let Some(obj) = node.as_object_mut() else {
        return;
    };
    match container.split_first() {
        None => {
            obj.insert(name.to_string(), value);
        }
        Some((first, rest)) => {
            let child = obj
                .entry(first.clone())
                .or_insert_with(|| Value::Object(Default::default()));
            insert_at(child, rest, name, value);
        }
    }
}

fn input(text: &[u8], wants: Vec<Want>, records: Vec<Record>) -> FileInput {
    let current = if text.is_empty() {
        Current::Missing
    } else {
        Current::Present {
            doc: Box::new(Doc::parse(text, Syntax::Jsonc).expect("fixture parses")),
        }
    };
    FileInput {
        owner: "o".into(),
        workspace: "w".into(),
        path: PathBuf::from("/p/f.json"),
        key: "/p/f.json".into(),
        client: "json",
        syntax: Syntax::Jsonc,
        current,
        create: true,
        wants,
        containers: vec![vec!["mcpServers".into()]],
        legacy: Vec::new(),
        records,
        others: Vec::new(),
        foreign: Vec::new(),
        inherited: None,
        notes: Vec::new(),
        grants: Vec::new(),
        grant_arrays: Vec::new(),
        take_over: Vec::new(),
        replace: Vec::new(),
        restores: Vec::new(),
    }
}

/// Apply the plan's ledger operations as a committed write would.
fn commit(records: &mut Vec<Record>, fp: &FilePlan) {
    for op in &fp.ledger {
        match op {
            LedgerOp::Set(r) => {
                records.retain(|x| x.pointer != r.pointer);
                records.push(r.clone());
            }
            LedgerOp::Remove(p) => records.retain(|x| &x.pointer != p),
        }
    }
}

fn user_doc() -> impl Strategy<Value = String> {
    let nl = prop_oneof![Just("\n"), Just("\r\n")];
    let indent = prop_oneof![Just("  "), Just("    "), Just("\t")];
    let entries = proptest::collection::vec(("[a-f]{1,3}", 0u32..1000), 0..3);
    let layout = 0u8..4;
    (nl, indent, entries, layout, any::<bool>()).prop_map(|(nl, ind, entries, layout, comment)| {
        let mut seen = std::collections::BTreeSet::new();
        let entries: Vec<_> = entries.into_iter().filter(|(k, _)| seen.insert(k.clone())).collect();
        let body: Vec<String> = entries
            .iter()
            .map(|(k, n)| format!("\"{k}\": {{\"command\": \"c{n}\", \"n\": {n}.50}}"))
            .collect();
        match layout {
            0 => format!("{{\"mcpServers\":{{{}}},\"x\":1}}", body.join(",")),
            1 => format!("{{{nl}{ind}\"other\": [1, 2]{nl}}}{nl}"),
            2 => {
                let sep = format!(",{nl}{ind}{ind}");
                let c = if comment { format!("{ind}// servers{nl}") } else { String::new() };
                let inner = if body.is_empty() {
                    String::new()
                } else {
                    format!("{nl}{ind}{ind}{}{nl}{ind}", body.join(&sep))
                };
                format!("{{{nl}{c}{ind}\"mcpServers\": {{{inner}}},{nl}{ind}\"big\": 12345678901234567890{nl}}}{nl}")
            }
            _ => String::new(), // no file
        }
    })
}

fn wants() -> impl Strategy<Value = Vec<Want>> {
    proptest::collection::btree_set("[p-t]{1,4}", 1..4).prop_map(|names| {
        names
            .into_iter()
            .map(|n| Want {
                container: vec!["mcpServers".into()],
                value: json!({"command": format!("run-{n}"), "args": ["a", n.clone()], "env": {"K": "${V}"}}),
                server: n,
                client: "json",
                expanded: None,
                client_state: Vec::new(),
            })
            .collect()
    })
}

proptest! {
    /// apply then prune gives back the exact original bytes (or no file), apply is
    /// idempotent, and the applied file holds exactly the old content plus our entries.
    #[test]
    fn apply_then_prune_is_identity(text in user_doc(), wants in wants()) {
        let mut records = Vec::new();
        let first = plan_file(&input(text.as_bytes(), wants.clone(), records.clone()), Options::default());
        prop_assert_eq!(first.status == Status::Refused, false, "{:?}", first.errors);
        let applied = first.new.as_ref().expect("something to write").to_vec();
        commit(&mut records, &first);
        // As the engine does after the write: the whole file as mcpconf left it.
        for r in records.iter_mut().filter(|r| r.created_file) {
            r.file_digest = Some(ledger::file_digest(&applied));
        }
        prop_assert_eq!(records.len(), wants.len());

        let doc = Doc::parse(&applied, Syntax::Jsonc).expect("output parses");
        for w in &wants {
            prop_assert_eq!(doc.get(&["mcpServers".to_string(), w.server.clone()]), Some(w.value.clone()));
        }
        if !text.is_empty() {
            let old = Doc::parse(text.as_bytes(), Syntax::Jsonc).unwrap();
            let mut expected = old.root().clone();
            for w in &wants {
                insert_at(&mut expected, &w.container, &w.server, w.value.clone());
            }
            prop_assert_eq!(doc.root(), expected);
        }

        let again = plan_file(&input(&applied, wants.clone(), records.clone()), Options::default());
        prop_assert!(!again.writes(), "second apply writes");

        let prune = plan_file(&input(&applied, Vec::new(), records.clone()), Options::default());
        if text.is_empty() {
            prop_assert!(prune.delete, "a created file is removed again");
        } else {
            prop_assert_eq!(String::from_utf8(prune.new.as_ref().unwrap().to_vec()).unwrap(), text);
        }
        commit(&mut records, &prune);
        prop_assert!(records.is_empty());
    }
}

#[test]
fn conflict_points_at_the_entry() {
    let text = b"{\n  \"mcpServers\": {\n    \"p\": {\"command\": \"mine\"}\n  }\n}\n";
    let w = Want {
        container: vec!["mcpServers".into()],
        server: "p".into(),
        value: json!({"command": "ours"}),
        client: "json",
        expanded: None,
        client_state: Vec::new(),
    };
    let fp = plan_file(&input(text, vec![w], Vec::new()), Options::default());
    assert_eq!(fp.status, Status::Refused);
    assert_eq!(fp.errors[0].code, "conflict");
    assert_eq!((fp.errors[0].line, fp.errors[0].column), (3, 5));
    assert!(fp.new.is_none() && fp.ledger.is_empty());
}

/// A record of `written` as `apply` makes it for dialect `d` (its client keys outside the
/// proof, every member named).
fn canonical_record(d: &dyn crate::dialect::Dialect, written: &Value) -> ledger::Record {
    let state = crate::dialect::entry_client_state(d, written, false);
    let (digest, members) = ledger::entry_proof(written, &state);
    let text = json!({
        "workspace": "w", "file": "/f", "client": d.id(), "pointer": "/mcpServers/s",
        "kind": "entry", "server": "s", "digest": digest,
    });
    let mut r: ledger::Record = serde_json::from_value(text).unwrap();
    r.client_state = state;
    r.members = members;
    r
}

/// A value no client writes as a default of any field.
fn odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z]{3,8}".prop_map(|s| json!(format!("x-{s}"))),
        (1000u32..9999).prop_map(|n| json!(n)),
        "[a-z]{2,5}".prop_map(|s| json!([s])),
        "[a-z]{2,5}".prop_map(|s| json!({ s: "v" })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every dialect (issue 40): an entry the client re-saved with its own defaults written
    /// out, or with its own keys (switches, approvals, trust) set, is still the entry mcpconf
    /// wrote, and so is one with a field added that the client does not read; any other
    /// single change of a field — one mcpconf wrote, or a new one the client reads with a
    /// value that is no default — is drift.
    #[test]
    fn a_clients_own_save_never_drifts_and_any_other_change_does(
        which in 0usize..64,
        key in "[a-z]{4,9}",
        value in odd_value(),
    ) {
        let d = crate::dialect::ALL[which % crate::dialect::ALL.len()];
        let m = crate::manifest::parse(
            "owner = \"o\"\n[servers.s]\ncommand = \"srv\"\nargs = [\"--port\", \"1\"]\n\n[[targets]]\nclient = \"cursor\"\n",
            &crate::known::Known,
        ).unwrap();
        let Ok(r) = d.render(&m.servers[0]) else { return Ok(()) };
        let written = r.value;
        prop_assume!(written.is_object());
        let rec = canonical_record(d, &written);
        let facts = crate::dialect::client_facts(d.id());
        let intact = |v: &Value| rec.ownership_in(Some(v), facts) == ledger::Ownership::Intact;
        prop_assert!(intact(&written));
        // The client's save: every default it writes out for a field not written, at once.
        let mut saved = written.clone();
        for (k, text) in facts.defaults {
            if saved.get(*k).is_none() {
                saved[*k] = serde_json::from_str(text).unwrap();
            }
        }
        saved["zz_unset"] = Value::Null;
        prop_assert!(intact(&saved), "{}: {saved}", d.id());
        // Its own keys, set to anything.
        for k in facts.keys {
            let mut v = saved.clone();
            v[*k] = value.clone();
            prop_assert!(intact(&v), "{}: {v}", d.id());
        }
        // Anything else: a field mcpconf wrote changed, or a new non-default field.
        let fields: Vec<String> = written.as_object().unwrap().keys()
            .filter(|k| !facts.keys.contains(&k.as_str()))
            .cloned().collect();
        for f in &fields {
            let mut v = saved.clone();
            v[f.as_str()] = value.clone();
            prop_assert!(!intact(&v), "{}: changing `{f}` is drift: {v}", d.id());
        }
        if !facts.keys.contains(&key.as_str()) && written.get(&key).is_none() {
            let mut v = saved.clone();
            v[key.as_str()] = value.clone();
            // A field the client reads is drift; one it does not read changes nothing it
            // does, so it is the user's (outside the proof, as its own keys are).
            let read = facts.reads.is_none_or(|r| r.contains(&key.as_str()));
            prop_assert_eq!(!intact(&v), read, "{}: adding `{}`: {}", d.id(), key, v);
        }
        // A field the client reads that mcpconf did not write (its working directory), added:
        // drift in every client.
        if written.get("cwd").is_none() {
            let mut v = saved.clone();
            v["cwd"] = value.clone();
            prop_assert!(!intact(&v), "{}: adding `cwd` is drift: {v}", d.id());
        }
    }
}
