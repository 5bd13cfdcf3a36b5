//! Planning a file that exists: each wanted entry is added, kept, updated, adopted or refused
//! (conflict, drift); grants likewise; entries and grants the manifest no longer wants are
//! removed when provably ours; legacy shapes go on an exact match.

use super::equal::difference_hint;
use super::marks::{self, Marks};
use super::staged::Staged;
use super::*;
use crate::ledger::Ownership;
use std::collections::{HashMap, HashSet};

/// The records of one file found by pointer: one lookup per entry, so planning n entries
/// against n records costs n, not n².
struct Index<'a> {
    /// This workspace's record at each pointer (the first, as a scan in order would find it).
    records: HashMap<&'a str, &'a Record>,
    /// Every other workspace's records at each pointer, in order.
    others: HashMap<&'a str, Vec<&'a Record>>,
}

impl<'a> Index<'a> {
    fn new(input: &'a FileInput) -> Index<'a> {
        let mut records = HashMap::with_capacity(input.records.len());
        for r in &input.records {
            records.entry(r.pointer.as_str()).or_insert(r);
        }
        let mut others: HashMap<&str, Vec<&Record>> = HashMap::new();
        for r in &input.others {
            others.entry(r.pointer.as_str()).or_default().push(r);
        }
        Index { records, others }
    }

    fn record(&self, pointer: &str) -> Option<&'a Record> {
        self.records.get(pointer).copied()
    }

    fn others(&self, pointer: &str) -> &[&'a Record] {
        self.others.get(pointer).map_or(&[], Vec::as_slice)
    }

    /// Whether anyone (this workspace or another) has a record at `pointer`.
    fn any(&self, pointer: &str) -> bool {
        self.records.contains_key(pointer) || self.others.contains_key(pointer)
    }
}

fn refuse(fp: &mut FilePlan, doc: &Staged, path: &[String], op: Op, server: &str, message: String) {
    fp.actions.push(Action {
        op,
        server: server.to_string(),
        detail: message.clone(),
    });
    let (line, column) = doc.location(path).unwrap_or((1, 1));
    fp.errors.push(PlanError {
        code: op.refusal().unwrap_or(Code::Conflict),
        message,
        line,
        column,
    });
}

pub(super) fn plan_present(
    input: &FileInput,
    opts: Options,
    original: &Doc,
    mut fp: FilePlan,
) -> FilePlan {
    fp.old = Some(original.clone());
    // Entries taken over that the manifest no longer wants here are given back first.
    let wanted_now: HashSet<String> = input
        .wants
        .iter()
        .map(|w| ledger::pointer(&w.container, &w.server))
        .collect();
    let copies: Vec<&crate::ledger::RestoreCopy> = input
        .restores
        .iter()
        .filter(|c| !wanted_now.contains(&c.pointer))
        .collect();
    let (base, given_back) = if copies.is_empty() {
        (original.clone(), Vec::new())
    } else {
        takeover::give_back(input, original.clone(), &copies, &mut fp.notes)
    };
    let mut doc = Staged::new(base);
    let shown = input.path.display().to_string();
    // What mcpconf remembers about the file itself, from every record of it.
    let marks = Marks::of(input);
    let created_file = marks.created_file;
    let index = Index::new(input);
    let mut wanted_pointers = HashSet::new();
    let mut kept_records = 0usize;

    let collided = name_collisions(input, &mut doc, &mut fp);
    for w in &input.wants {
        let pointer = ledger::pointer(&w.container, &w.server);
        wanted_pointers.insert(pointer.clone());
        if collided.contains(&w.server) {
            continue;
        }
        if let Err(e) = check_containers(&doc, &w.container) {
            fp.errors.push(e);
            continue;
        }
        let mut path = w.container.clone();
        path.push(w.server.clone());
        let current = doc.get(&path);
        // A take-over that did not land (a run killed after its intent): the entry is still the
        // one its copy holds, so it is the other party's, not a drifted one of ours.
        let record = index.record(&pointer).filter(|r| {
            r.ownership(current.as_ref()) == Ownership::Intact
                || !input.restores.iter().any(|c| {
                    c.pointer == pointer
                        && current.as_ref().map(ledger::digest).as_deref()
                            == Some(c.original_digest.as_str())
                })
        });
        // Other workspaces of the same owner that provably own what is there now.
        let co_owners = co_owners(&index, &pointer, current.as_ref());
        let legacy = input.legacy.iter().any(|l| {
            l.name == w.server
                && current.as_ref().is_some_and(|c| {
                    semantic_eq_for(&l.entry, c, crate::dialect::client_facts(input.client))
                })
        });
        match (current, record) {
            (None, rec) => match doc.upsert(&w.container, &w.server, &w.value) {
                Ok(hints) => {
                    fp.actions.push(Action {
                        op: Op::Add,
                        server: w.server.clone(),
                        detail: if rec.is_some() {
                            "re-added: the entry mcpconf wrote is gone".into()
                        } else {
                            String::new()
                        },
                    });
                    let hints = hints.or_else(|| rec.and_then(|r| r.hints.clone()));
                    fp.ledger
                        .push(LedgerOp::Set(new_record(input, w, hints, created_file)));
                    kept_records += 1;
                }
                Err(e) => fp.errors.push(e.into()),
            },
            (Some(v), Some(r)) => {
                let own = r.ownership_in(Some(&v), crate::dialect::client_facts(&r.client));
                // The client's own keys of the entry found now (kept by an update).
                let state: Vec<String> = w
                    .client_state
                    .iter()
                    .filter(|k| ledger::member_at(&v, k).is_some())
                    .cloned()
                    .collect();
                // The manifest's entry with the client's nested keys (`tools.exclude`) kept.
                let wanted = ledger::with_nested_state(&w.value, &v, &state);
                let keys: Vec<&str> = w.client_state.iter().map(String::as_str).collect();
                let defaults = crate::dialect::client_facts(w.client);
                if v == w.value
                    || (own == Ownership::Intact
                        && (semantic_eq_for(&v, &w.value, defaults)
                            || semantic_eq_for(
                                &ledger::without(&v, &keys),
                                &ledger::without(&w.value, &keys),
                                defaults,
                            )))
                {
                    fp.actions.push(Action {
                        op: Op::Keep,
                        server: w.server.clone(),
                        detail: co_detail(&co_owners),
                    });
                    // What mcpconf wrote: the entry as it is, with the client keys as wanted.
                    let mut written = ledger::without(&v, &keys);
                    if let (Some(m), Some(wm)) = (written.as_object_mut(), w.value.as_object()) {
                        for k in &keys {
                            if let Some(x) = wm.get(*k) {
                                m.insert(k.to_string(), x.clone());
                            }
                        }
                    }
                    let rec = record_of(input, w, &written, r.hints.clone(), r.created_file);
                    if &rec != r {
                        fp.ledger.push(LedgerOp::Set(rec));
                    }
                    kept_records += 1;
                } else if own == Ownership::Intact && !co_owners.is_empty() {
                    refuse(
                        &mut fp,
                        &doc,
                        &path,
                        Op::Conflict,
                        &w.server,
                        format!(
                            "entry `{}` in `{shown}` is also declared by workspace {} of owner `{}`, differently{}; mcpconf will not change an entry another workspace relies on ({})",
                            w.server,
                            names(&co_owners),
                            owner_of(input),
                            difference_hint(&v, &w.value),
                            shared_way_out(&w.server)
                        ),
                    );
                } else if own == Ownership::Intact {
                    // The client's own keys stay byte for byte; the rest becomes the manifest's.
                    let written = if state.is_empty() {
                        doc.upsert(&w.container, &w.server, &w.value).map(|_| ())
                    } else {
                        doc.update_entry(&w.container, &w.server, &wanted, &state)
                    };
                    match written {
                        Ok(()) => {
                            fp.actions.push(Action {
                                op: Op::Update,
                                server: w.server.clone(),
                                detail: String::new(),
                            });
                            fp.ledger.push(LedgerOp::Set(new_record(
                                input,
                                w,
                                r.hints.clone(),
                                r.created_file,
                            )));
                            kept_records += 1;
                        }
                        Err(e) => fp.errors.push(e.into()),
                    }
                } else if input.take_over.contains(&w.server) || input.replace.contains(&w.server) {
                    // Ours, rewritten by someone else (a client that expanded our reference into
                    // it, say): taken back as the manifest says, without a restore copy (it was
                    // never another party's entry); the report names the keys, never values.
                    // The client's own keys in it (Gemini's `trust`) stay, as an update keeps them.
                    let state_refs: Vec<&str> = state.iter().map(String::as_str).collect();
                    let written = if state.is_empty() {
                        doc.upsert(&w.container, &w.server, &w.value)
                    } else {
                        doc.update_entry(&w.container, &w.server, &wanted, &state)
                            .map(|()| r.hints.clone())
                    };
                    match written {
                        Ok(hints) => {
                            fp.actions.push(takeover::taken_back(
                                &w.server,
                                owner_of(input),
                                &takeover::replaced_keys(
                                    &ledger::without(&v, &state_refs),
                                    &w.value,
                                ),
                            ));
                            fp.ledger.push(LedgerOp::Set(new_record(
                                input,
                                w,
                                hints,
                                r.created_file,
                            )));
                            kept_records += 1;
                        }
                        Err(e) => fp.errors.push(e.into()),
                    }
                } else {
                    refuse(
                        &mut fp,
                        &doc,
                        &path,
                        Op::Drift,
                        &w.server,
                        format!(
                            "entry `{}` in `{shown}` was edited since owner `{}` wrote it{}; mcpconf will not overwrite the edit (restore the entry, remove it by hand, take it back as the manifest says with `mcpconf apply --take-over {3}`, or run `mcpconf release {3}` to hand it to the user)",
                            w.server,
                            owner_of(input),
                            drift_hint(r, &v, Some(&w.value)),
                            w.server
                        ),
                    );
                }
            }
            (Some(v), None) if !co_owners.is_empty() => {
                if semantic_eq_for(&v, &w.value, crate::dialect::client_facts(w.client)) {
                    // Co-owned: written once, recorded for every workspace that declares it.
                    fp.actions.push(Action {
                        op: Op::Keep,
                        server: w.server.clone(),
                        detail: co_detail(&co_owners),
                    });
                    // The hints and the created-file mark travel with the entry, so whichever
                    // workspace removes it last restores the original bytes.
                    let co = index.others(&pointer).first();
                    let hints = co.and_then(|r| r.hints.clone());
                    let rec = record_of(input, w, &v, hints, created_file);
                    fp.ledger.push(LedgerOp::Set(rec));
                    kept_records += 1;
                } else {
                    refuse(
                        &mut fp,
                        &doc,
                        &path,
                        Op::Conflict,
                        &w.server,
                        format!(
                            "entry `{}` in `{shown}` is declared differently by workspace {} of owner `{}`{}; one owner declares one entry one way ({})",
                            w.server,
                            names(&co_owners),
                            owner_of(input),
                            difference_hint(&v, &w.value),
                            shared_way_out(&w.server)
                        ),
                    );
                }
            }
            (Some(v), None) => {
                let expanded_eq = w.expanded.as_ref().is_some_and(|x| {
                    semantic_eq_for(&v, x, crate::dialect::client_facts(w.client))
                });
                if legacy {
                    match doc.upsert(&w.container, &w.server, &w.value) {
                        Ok(_) => {
                            fp.actions.push(Action {
                                op: Op::Update,
                                server: w.server.clone(),
                                detail: "replaces the owner's legacy shape".into(),
                            });
                            fp.ledger
                                .push(LedgerOp::Set(new_record(input, w, None, created_file)));
                            kept_records += 1;
                        }
                        Err(e) => fp.errors.push(e.into()),
                    }
                } else if let Some(client_keys) = super::equal::eq_but_client_keys(
                    &v,
                    &w.value,
                    &w.client_state,
                    crate::dialect::client_facts(w.client),
                ) {
                    if opts.adopt {
                        fp.actions.push(Action {
                            op: Op::Adopt,
                            server: w.server.clone(),
                            detail: if !client_keys.is_empty() {
                                format!(
                                    "equal to the manifest but for what the client keeps in it ({}); recorded as ours, left as it is (a later prune removes it)",
                                    client_keys.join(", ")
                                )
                            } else if v == w.value {
                                "equal to the manifest; recorded as ours (a later prune removes it)".into()
                            } else {
                                "equal to the manifest in this client's dialect (defaults written out, key order); recorded as ours, left as it is (a later prune removes it)".into()
                            },
                        });
                        fp.ledger
                            .push(LedgerOp::Set(record_of(input, w, &v, None, false)));
                        kept_records += 1;
                    } else {
                        fp.actions.push(Action {
                            op: Op::UnownedMatch,
                            server: w.server.clone(),
                            detail: "already as wanted but not written by mcpconf; left alone (`apply --adopt` records it as ours)".into(),
                        });
                    }
                } else if opts.adopt && expanded_eq {
                    // The literal equals the reference expanded: the same secret, proven. The
                    // reference replaces it, so the secret leaves the file.
                    match doc.upsert(&w.container, &w.server, &w.value) {
                        Ok(_) => {
                            fp.actions.push(Action {
                                op: Op::Adopt,
                                server: w.server.clone(),
                                detail: "its literal values equal the manifest's references expanded from the environment; replaced by the references and recorded as ours (a later prune removes it)".into(),
                            });
                            fp.ledger
                                .push(LedgerOp::Set(new_record(input, w, None, false)));
                            kept_records += 1;
                        }
                        Err(e) => fp.errors.push(e.into()),
                    }
                } else if input.replace.contains(&w.server) {
                    match doc.upsert(&w.container, &w.server, &w.value) {
                        Ok(hints) => {
                            fp.actions.push(takeover::replaced(
                                &w.server,
                                owner_of(input),
                                &takeover::replaced_keys(&v, &w.value),
                            ));
                            fp.ledger
                                .push(LedgerOp::Set(new_record(input, w, hints, false)));
                            kept_records += 1;
                        }
                        Err(e) => fp.errors.push(e.into()),
                    }
                } else if input.take_over.contains(&w.server) {
                    let mut after = original.clone();
                    let copy = after
                        .upsert(&w.container, &w.server, &w.value)
                        .ok()
                        .and_then(|_| takeover::copy_of(input, original, &after, &path, &w.server));
                    match (copy, doc.upsert(&w.container, &w.server, &w.value)) {
                        (Some(copy), Ok(hints)) => {
                            fp.actions.push(takeover::action(
                                &w.server,
                                owner_of(input),
                                &difference_hint(&v, &w.value),
                            ));
                            fp.restore.push(RestoreOp::Keep(Box::new(copy)));
                            fp.ledger
                                .push(LedgerOp::Set(new_record(input, w, hints, false)));
                            kept_records += 1;
                        }
                        (_, Err(e)) => fp.errors.push(e.into()),
                        (None, Ok(_)) => fp.errors.push(PlanError::file(
                            Code::InternalEditError,
                            format!("the entry `{}` cannot be copied to give it back later, so it is not taken over", w.server),
                        )),
                    }
                } else {
                    let next = if expanded_eq {
                        " (its literal values equal the manifest's references expanded from the environment: `apply --adopt` replaces them by the references)".to_string()
                    } else {
                        format!(
                            " (rename the server in the manifest, rename or remove that entry by hand, or replace it with `mcpconf apply --take-over {}`, which keeps a copy that prune gives back, or for good with `--replace {}`)",
                            w.server, w.server
                        )
                    };
                    refuse(
                        &mut fp,
                        &doc,
                        &path,
                        Op::Conflict,
                        &w.server,
                        format!(
                            "`{shown}` already has an entry `{}` that owner `{}` did not write and that differs from the manifest{}; mcpconf will not overwrite it{next}",
                            w.server,
                            owner_of(input),
                            super::equal::conflict_hint(&v, &w.value, &w.client_state, w.client)
                        ),
                    );
                }
            }
        }
    }

    // Legacy shapes replaced here by a declared entry: their legacy grants go with them (below),
    // so such a grant neither covers the new grants nor stays behind as the user's; one the
    // manifest grants again is the owner's from now on.
    let legacy_replaced: Vec<String> = fp
        .actions
        .iter()
        .filter(|a| a.op == Op::Update && a.detail == "replaces the owner's legacy shape")
        .map(|a| a.server.clone())
        .collect();
    let doomed = |server: Option<&str>, x: &str| {
        input.legacy.iter().any(|l| {
            legacy_replaced.contains(&l.name)
                && server.is_none_or(|s| s == l.name)
                && l.grants.iter().any(|g| g == x)
        })
    };

    // Grants that go with the entries (Kiro agents' `tools` / `allowedTools`).
    for g in &input.grants {
        let path = g.spec.array.clone();
        let Some((array_key, parent)) = path.split_last() else {
            continue;
        };
        for v in &g.spec.values {
            wanted_pointers.insert(grant_pointer(&g.spec.array, v));
        }
        match doc.get(&path) {
            None if g.spec.create_array => {
                let values: Vec<Value> = g
                    .spec
                    .values
                    .iter()
                    .map(|v| Value::String(v.clone()))
                    .collect();
                match doc.upsert(parent, array_key, &Value::Array(values)) {
                    Ok(undo) => {
                        let hints = serde_json::json!({"created_array": true, "undo": undo});
                        for v in &g.spec.values {
                            fp.actions.push(grant_action(Op::Add, g, v));
                            fp.ledger.push(LedgerOp::Set(grant_record(
                                input,
                                g,
                                v,
                                Some(hints.clone()),
                            )));
                        }
                    }
                    Err(e) => fp.errors.push(e.into()),
                }
            }
            None => {}
            Some(Value::Array(items)) => {
                let covered = items.iter().any(|x| {
                    x.as_str().is_some_and(|x| {
                        // A legacy grant that goes below covers nothing.
                        let goes = doomed(None, x) && !g.spec.values.iter().any(|v| v == x);
                        // The user's narrower grant is the grant: never widened.
                        let narrower = g.spec.narrower.as_deref().is_some_and(|p| {
                            x.starts_with(p)
                                && index.record(&grant_pointer(&g.spec.array, x)).is_none()
                        });
                        (g.spec.covering.iter().any(|c| c == x) || narrower) && !goes
                    })
                });
                for v in &g.spec.values {
                    let pointer = grant_pointer(&g.spec.array, v);
                    let record = index.record(&pointer);
                    let present = items.iter().any(|x| x.as_str() == Some(v.as_str()));
                    match (present, record) {
                        (true, Some(r)) => {
                            let rec = grant_record(input, g, v, r.hints.clone());
                            if &rec != r {
                                fp.ledger.push(LedgerOp::Set(rec));
                            }
                        }
                        // Co-owned: another workspace of the owner added it; ours too now.
                        (true, None)
                            if !co_owners(&index, &pointer, Some(&Value::String(v.clone())))
                                .is_empty() =>
                        {
                            let hints =
                                index.others(&pointer).first().and_then(|r| r.hints.clone());
                            fp.ledger
                                .push(LedgerOp::Set(grant_record(input, g, v, hints)));
                        }
                        // The owner's legacy grant, granted again with the entry that replaces
                        // its legacy shape: recorded, so it goes with the entry.
                        (true, None) if doomed(Some(&g.server), v) => {
                            fp.actions.push(Action {
                                op: Op::Keep,
                                server: g.server.clone(),
                                detail: format!(
                                    "legacy grant `{v}` in `{}` recorded with the entry that replaces the legacy shape",
                                    g.spec.array.join(".")
                                ),
                            });
                            fp.ledger
                                .push(LedgerOp::Set(grant_record(input, g, v, None)));
                        }
                        // The user's own grant, or one a covering grant makes unnecessary.
                        (true, None) => {}
                        (false, _) if covered => {
                            if record.is_some() {
                                fp.ledger.push(LedgerOp::Remove(pointer));
                            }
                        }
                        (false, rec) => match doc.array_push(&path, v) {
                            Ok(()) => {
                                fp.actions.push(grant_action(Op::Add, g, v));
                                let hints = rec.and_then(|r| r.hints.clone()).or_else(|| {
                                    super::created_array_hints(&fp.ledger, &input.records, &path)
                                });
                                fp.ledger
                                    .push(LedgerOp::Set(grant_record(input, g, v, hints)));
                            }
                            Err(e) => fp.errors.push(e.into()),
                        },
                    }
                }
            }
            Some(other) => fp.errors.push(PlanError {
                code: Code::NotAnObject,
                message: format!(
                    "`{}` must be an array of names, but it is {}",
                    g.spec.array.join("."),
                    crate::document::kind_of(&other)
                ),
                line: 1,
                column: 1,
            }),
        }
    }

    // Entries we wrote that the manifest no longer wants here.
    // Grants we added that are no longer wanted: removed with their entry.
    for r in input
        .records
        .iter()
        .filter(|r| r.kind == Kind::Grant && !wanted_pointers.contains(&r.pointer))
    {
        let Some((array, value)) = ledger::split_pointer(&r.pointer) else {
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        };
        let present = doc
            .get(&array)
            .as_ref()
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(value.as_str())));
        if !present {
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        }
        let co = co_owners(&index, &r.pointer, Some(&Value::String(value.clone())));
        if !co.is_empty() {
            fp.actions.push(Action {
                op: Op::Keep,
                server: r.server.clone(),
                detail: format!(
                    "grant `{value}` in `{}` stays: {}",
                    array.join("."),
                    still_declared(&co)
                ),
            });
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        }
        match doc.array_remove(&array, &value) {
            Ok(()) => {
                fp.actions.push(Action {
                    op: Op::Remove,
                    server: r.server.clone(),
                    detail: format!("grant `{value}` in `{}`", array.join(".")),
                });
                fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                // An array mcpconf created goes when its last grant goes.
                let created = r.hints.as_ref().is_some_and(|h| h["created_array"] == true);
                let empty = doc
                    .get(&array)
                    .as_ref()
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty);
                if created && empty {
                    let undo = r
                        .hints
                        .as_ref()
                        .map(|h| h["undo"].clone())
                        .filter(|u| !u.is_null());
                    let (key, parent) = array.split_last().unwrap_or((&value, &[]));
                    if let Err(e) = doc.remove(parent, key, undo.as_ref()) {
                        fp.errors.push(e.into());
                    }
                }
            }
            Err(e) => fp.errors.push(e.into()),
        }
    }

    let mut removals: Vec<&Record> = input
        .records
        .iter()
        .filter(|r| r.kind == Kind::Entry && !wanted_pointers.contains(&r.pointer))
        .collect();
    // Remove the entries that come last in the file first, so each removal is the inverse of
    // the append that made it.
    removals.sort_by_key(|r| {
        std::cmp::Reverse(
            ledger::split_pointer(&r.pointer)
                .and_then(|(c, n)| doc.position(&c, &n))
                .unwrap_or(0),
        )
    });
    // Every container mcpconf created in the file goes when it is empty again.
    let hints = marks.hints.clone();
    for r in removals {
        let Some((container, name)) = ledger::split_pointer(&r.pointer) else {
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        };
        let mut path = container.clone();
        path.push(name.clone());
        if given_back.contains(&r.pointer) {
            fp.actions.push(takeover::given_back(&r.server));
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            fp.restore.push(RestoreOp::Drop(r.pointer.clone()));
            continue;
        }
        let current = doc.get(&path);
        if r.ownership(current.as_ref()) == Ownership::Missing
            && copies.iter().any(|c| c.pointer == r.pointer)
        {
            // Removed by hand since: nothing to give back into.
            fp.restore.push(RestoreOp::Drop(r.pointer.clone()));
        }
        let co = co_owners(&index, &r.pointer, current.as_ref());
        let own = r.ownership_in(current.as_ref(), crate::dialect::client_facts(&r.client));
        if own == Ownership::Intact && !co.is_empty() {
            // Co-owned: only this workspace's claim goes.
            fp.actions.push(Action {
                op: Op::Keep,
                server: r.server.clone(),
                detail: still_declared(&co),
            });
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        }
        match own {
            Ownership::Missing => fp.ledger.push(LedgerOp::Remove(r.pointer.clone())),
            Ownership::Intact => match doc.remove(&container, &name, hints.as_ref()) {
                Ok(()) => {
                    fp.actions.push(Action {
                        op: Op::Remove,
                        server: r.server.clone(),
                        detail: String::new(),
                    });
                    fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                }
                Err(e) => fp.errors.push(e.into()),
            },
            Ownership::Drifted => refuse(
                &mut fp,
                &doc,
                &path,
                Op::Drift,
                &r.server,
                format!(
                    "entry `{}` in `{shown}` was edited since owner `{}` wrote it{}, so it is not removed (restore the entry, remove it by hand, or run `mcpconf release {}` to hand it to the user)",
                    r.server,
                    owner_of(input),
                    current
                        .as_ref()
                        .map(|v| drift_hint(r, v, None))
                        .unwrap_or_default(),
                    r.server
                ),
            ),
        }
    }

    // Legacy shapes: exact matches only, in the client's canonical form (the defaults the
    // client writes out when it saves its file are no difference).
    let defaults = crate::dialect::client_facts(input.client);
    let mut legacy_removed: Vec<String> = fp
        .actions
        .iter()
        .filter(|a| a.op == Op::Update && a.detail == "replaces the owner's legacy shape")
        .map(|a| a.server.clone())
        .collect();
    for l in &input.legacy {
        for c in &input.containers {
            let p = ledger::pointer(c, &l.name);
            if wanted_pointers.contains(&p) || index.any(&p) {
                continue;
            }
            let mut path = c.clone();
            path.push(l.name.clone());
            if doc
                .get(&path)
                .as_ref()
                .is_some_and(|v| semantic_eq_for(&l.entry, v, defaults))
            {
                match doc.remove(c, &l.name, None) {
                    Ok(()) => {
                        fp.actions.push(Action {
                            op: Op::LegacyRemove,
                            server: l.name.clone(),
                            detail: "exact match of the owner's legacy shape".into(),
                        });
                        legacy_removed.push(l.name.clone());
                    }
                    Err(e) => fp.errors.push(e.into()),
                }
            }
        }
    }

    // Legacy grants: exact strings, removed only together with their legacy entry in this file,
    // or, for an agent file that inherits workspace settings, when no entry of that name stays
    // visible to it. Removing a grant alone could silently disable the operator's own server.
    let inherits = ["includeMcpJson", "useLegacyMcpJson"]
        .iter()
        .any(|k| doc.get(&[k.to_string()]) == Some(Value::Bool(true)));
    for l in &input.legacy {
        let still_there = input.containers.iter().any(|c| {
            let mut p = c.clone();
            p.push(l.name.clone());
            doc.get(&p).is_some()
        });
        let why_kept = if legacy_removed.contains(&l.name) {
            None
        } else if still_there {
            Some(format!("an entry `{}` stays in this file", l.name))
        } else {
            match input.inherited.as_ref().filter(|_| inherits) {
                Some(visible) if visible.contains(&l.name) => Some(format!(
                    "an entry `{}` stays visible to this agent from the settings it inherits",
                    l.name
                )),
                Some(_) => None,
                None => Some(format!(
                    "the legacy entry `{}` is not removed from this file",
                    l.name
                )),
            }
        };
        for array in &input.grant_arrays {
            for g in &l.grants {
                let pointer = grant_pointer(std::slice::from_ref(array), g);
                if wanted_pointers.contains(&pointer) || index.any(&pointer) {
                    continue;
                }
                let path = vec![array.clone()];
                let present = doc
                    .get(&path)
                    .as_ref()
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(g.as_str())));
                if !present {
                    continue;
                }
                if let Some(why) = &why_kept {
                    fp.actions.push(Action {
                        op: Op::Keep,
                        server: l.name.clone(),
                        detail: format!("legacy grant `{g}` in `{array}` kept: {why}"),
                    });
                    continue;
                }
                match doc.array_remove(&path, g) {
                    Ok(()) => fp.actions.push(Action {
                        op: Op::LegacyRemove,
                        server: l.name.clone(),
                        detail: format!("legacy grant `{g}` in `{array}`"),
                    }),
                    Err(e) => fp.errors.push(e.into()),
                }
            }
        }
    }

    // The staged entry edits, made and proven in one pass.
    let doc = match doc.finish() {
        Ok(d) => d,
        Err(e) => {
            fp.errors.push(e.into());
            original.clone()
        }
    };
    if !fp.errors.is_empty() {
        fp.status = Status::Refused;
        fp.ledger.clear();
        fp.restore.clear();
        return fp;
    }
    // A created file goes only while every byte in it is mcpconf's (see `marks`) and nothing
    // but what a new file starts with is left; otherwise only mcpconf's entries (and the
    // containers it created, when empty) leave it.
    let all_ours = || marks.all_ours(input, original);
    if created_file && kept_records == 0 && marks::only_new_file_text(input, &doc) && all_ours() {
        fp.delete = true;
        fp.status = Status::Changed;
    } else if !doc.same_bytes(original) {
        let new = doc.content();
        if created_file {
            fp.file_digest = marks::next_file_digest(all_ours(), &new);
        }
        fp.new = Some(new);
        fp.status = Status::Changed;
    }
    marks.stamp(input, &mut fp.ledger);
    fp
}

/// Wanted entries another entry of the file would collide with in the client, which files
/// servers under a rewritten name ([`crate::dialect::Dialect::name_key`]: Mistral Vibe turns
/// `my server` into `my_server` and then rejects the whole file for the duplicate). Each is
/// refused as a conflict naming both entries; the names of the refused wants are returned.
fn name_collisions(input: &FileInput, doc: &mut Staged, fp: &mut FilePlan) -> HashSet<String> {
    let mut out = HashSet::new();
    let Some(d) = crate::dialect::lookup(input.client) else {
        return out;
    };
    // Most clients keep names as written: nothing to read (a container can be large).
    if input
        .wants
        .first()
        .and_then(|w| d.name_key(&w.server))
        .is_none()
    {
        return out;
    }
    let mut seen: Vec<&Vec<String>> = Vec::new();
    for w in &input.wants {
        if seen.contains(&&w.container) {
            continue;
        }
        seen.push(&w.container);
        let Some(Value::Object(existing)) = doc.get(&w.container) else {
            continue;
        };
        // The client's key of every entry there now, once.
        let mut keys: HashMap<String, Vec<&String>> = HashMap::new();
        for name in existing.keys() {
            if let Some(k) = d.name_key(name) {
                keys.entry(k).or_default().push(name);
            }
        }
        for w2 in input.wants.iter().filter(|x| x.container == w.container) {
            let Some(k) = d.name_key(&w2.server) else {
                continue;
            };
            let Some(other) = keys
                .get(&k)
                .and_then(|v| v.iter().find(|n| **n != &w2.server))
            else {
                continue;
            };
            let mut path = w2.container.clone();
            path.push((*other).clone());
            let message = format!(
                "entry `{other}` in `{}` is read by client `{}` under the name `{k}`, the same as server `{}`, so the client would reject the whole file for a duplicate server; mcpconf will not write it (rename one of them)",
                input.path.display(),
                d.id(),
                w2.server
            );
            refuse(fp, doc, &path, Op::Conflict, &w2.server, message);
            out.insert(w2.server.clone());
        }
    }
    out
}

pub(super) fn grant_action(op: Op, g: &GrantWant, value: &str) -> Action {
    Action {
        op,
        server: g.server.clone(),
        detail: if g.spec.disable {
            format!(
                "turned off for this project: `{value}` in `{}`",
                g.spec.array.join(".")
            )
        } else {
            format!("grant `{value}` in `{}`", g.spec.array.join("."))
        },
    }
}

fn owner_of(input: &FileInput) -> &str {
    &input.owner
}

/// The other workspaces whose record at `pointer` provably owns the value found now.
fn co_owners(index: &Index, pointer: &str, current: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = index
        .others(pointer)
        .iter()
        .filter(|r| {
            r.ownership_in(current, crate::dialect::client_facts(&r.client)) == Ownership::Intact
        })
        .map(|r| match &r.workspace {
            Some(w) => format!("`{w}`"),
            None => "(a record from before workspaces)".to_string(),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Why a drifted entry is drifted: the member that differs from the recorded entry (client
/// keys aside), or, for a record without members, the first field that differs from the
/// manifest's entry. Names the field, never its value.
fn drift_hint(r: &Record, found: &Value, wanted: Option<&Value>) -> String {
    match (r.differing_member(found), wanted) {
        (Some(d), _) => format!(" ({d} since it was written)"),
        (None, Some(w)) if r.members.is_none() => difference_hint(found, w),
        _ => String::new(),
    }
}

/// The ways out of two workspaces of one owner declaring one entry of a shared (user-scope)
/// file differently.
fn shared_way_out(server: &str) -> String {
    format!(
        "declare it the same way in every workspace; or give each workspace its own server name, such as `{server}-WORKDIR`; or use a project-scope target (`scope = \"project\"`), so each workspace has its own file"
    )
}

fn names(co: &[String]) -> String {
    co.join(", ")
}

fn co_detail(co: &[String]) -> String {
    if co.is_empty() {
        String::new()
    } else {
        format!("co-owned with workspace {}", names(co))
    }
}

fn still_declared(co: &[String]) -> String {
    format!(
        "co-owned, workspace {} still declares it; only this workspace's record is dropped",
        names(co)
    )
}

/// Every container on the way must be an object (or absent).
fn check_containers(doc: &Staged, container: &[String]) -> Result<(), PlanError> {
    for i in 1..=container.len() {
        if let Some(kind) = doc.kind(&container[..i])
            && kind != "an object"
        {
            return Err(PlanError {
                code: Code::NotAnObject,
                message: format!(
                    "`{}` must be an object that holds servers, but it is {}",
                    container[..i].join("."),
                    kind
                ),
                line: 1,
                column: 1,
            });
        }
    }
    Ok(())
}
