//! Grants that go with the entries (Kiro agents' `tools` / `allowedTools`): added when
//! wanted, removed with their entry when no longer wanted.

use super::*;

/// The owner's legacy grants that go below: those of legacy shapes an entry declared now
/// replaced. Such a grant neither covers the new grants nor stays behind as the user's; one
/// the manifest grants again is the owner's from now on.
struct Doomed<'a> {
    legacy: &'a [crate::manifest::Legacy],
    replaced: Vec<String>,
}

impl Doomed<'_> {
    /// Whether grant `x` (of `server`'s legacy shape, or of any) goes with a legacy shape.
    fn goes(&self, server: Option<&str>, x: &str) -> bool {
        self.legacy.iter().any(|l| {
            self.replaced.contains(&l.name)
                && server.is_none_or(|s| s == l.name)
                && l.grants.iter().any(|g| g == x)
        })
    }
}

impl Present<'_> {
    pub(super) fn wanted_grants(&mut self) {
        let input = self.input;
        let doomed = Doomed {
            legacy: &input.legacy,
            replaced: self.legacy_replaced(),
        };
        for g in &input.grants {
            let path = g.spec.array.clone();
            let Some((array_key, parent)) = path.split_last() else {
                continue;
            };
            for v in &g.spec.values {
                self.wanted_pointers.insert(grant_pointer(&g.spec.array, v));
            }
            match self.doc.get(&path) {
                None if g.spec.create_array => self.create_array(g, parent, array_key),
                None => {}
                Some(Value::Array(items)) => self.grant_into(g, &path, &items, &doomed),
                Some(other) => self.fp.errors.push(PlanError {
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
    }

    /// No array there: created with the wanted grants, marked as created by mcpconf.
    fn create_array(&mut self, g: &GrantWant, parent: &[String], array_key: &str) {
        let values: Vec<Value> = g
            .spec
            .values
            .iter()
            .map(|v| Value::String(v.clone()))
            .collect();
        let written = self.doc.upsert(parent, array_key, &Value::Array(values));
        let Some(undo) = self.made(written) else {
            return;
        };
        let hints = serde_json::json!({"created_array": true, "undo": undo});
        for v in &g.spec.values {
            self.fp.actions.push(grant_action(Op::Add, g, v));
            self.fp.ledger.push(LedgerOp::Set(grant_record(
                self.input,
                g,
                v,
                Some(hints.clone()),
            )));
        }
    }

    /// The wanted grants of `g` in the array at `path`, holding `items` now.
    fn grant_into(&mut self, g: &GrantWant, path: &[String], items: &[Value], doomed: &Doomed) {
        let input = self.input;
        let covered = items.iter().any(|x| {
            x.as_str().is_some_and(|x| {
                // A legacy grant that goes below covers nothing.
                let goes = doomed.goes(None, x) && !g.spec.values.iter().any(|v| v == x);
                // The user's narrower grant is the grant: never widened.
                let narrower = g.spec.narrower.as_deref().is_some_and(|p| {
                    x.starts_with(p)
                        && self
                            .index
                            .record(&grant_pointer(&g.spec.array, x))
                            .is_none()
                });
                (g.spec.covering.iter().any(|c| c == x) || narrower) && !goes
            })
        });
        for v in &g.spec.values {
            let pointer = grant_pointer(&g.spec.array, v);
            let record = self.index.record(&pointer);
            let present = items.iter().any(|x| x.as_str() == Some(v.as_str()));
            match (present, record) {
                (true, Some(r)) => {
                    let rec = grant_record(input, g, v, r.hints.clone());
                    if &rec != r {
                        self.fp.ledger.push(LedgerOp::Set(rec));
                    }
                }
                // Co-owned: another workspace of the owner added it; ours too now.
                (true, None)
                    if !co_owners(&self.index, &pointer, Some(&Value::String(v.clone())))
                        .is_empty() =>
                {
                    let hints = self
                        .index
                        .others(&pointer)
                        .first()
                        .and_then(|r| r.hints.clone());
                    self.fp
                        .ledger
                        .push(LedgerOp::Set(grant_record(input, g, v, hints)));
                }
                // The owner's legacy grant, granted again with the entry that replaces
                // its legacy shape: recorded, so it goes with the entry.
                (true, None) if doomed.goes(Some(&g.server), v) => {
                    self.fp.actions.push(Action {
                        op: Op::Keep,
                        server: g.server.clone(),
                        detail: format!(
                            "legacy grant `{v}` in `{}` recorded with the entry that replaces the legacy shape",
                            g.spec.array.join(".")
                        ),
                    });
                    self.fp
                        .ledger
                        .push(LedgerOp::Set(grant_record(input, g, v, None)));
                }
                // The user's own grant, or one a covering grant makes unnecessary.
                (true, None) => {}
                (false, _) if covered => {
                    if record.is_some() {
                        self.fp.ledger.push(LedgerOp::Remove(pointer));
                    }
                }
                (false, rec) => {
                    let pushed = self.doc.array_push(path, v);
                    if self.made(pushed).is_some() {
                        self.fp.actions.push(grant_action(Op::Add, g, v));
                        let hints = rec
                            .and_then(|r| r.hints.clone())
                            .or_else(|| created_array_hints(&self.fp.ledger, &input.records, path));
                        self.fp
                            .ledger
                            .push(LedgerOp::Set(grant_record(input, g, v, hints)));
                    }
                }
            }
        }
    }

    /// Grants we added that are no longer wanted: removed with their entry.
    pub(super) fn remove_unwanted_grants(&mut self) {
        let input = self.input;
        let unwanted: Vec<&Record> = input
            .records
            .iter()
            .filter(|r| r.kind == Kind::Grant && !self.wanted_pointers.contains(&r.pointer))
            .collect();
        for r in unwanted {
            let Some((array, value)) = ledger::split_pointer(&r.pointer) else {
                self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                continue;
            };
            let present = self
                .doc
                .get(&array)
                .as_ref()
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(value.as_str())));
            if !present {
                self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                continue;
            }
            let co = co_owners(&self.index, &r.pointer, Some(&Value::String(value.clone())));
            if !co.is_empty() {
                self.fp.actions.push(Action {
                    op: Op::Keep,
                    server: r.server.clone(),
                    detail: format!(
                        "grant `{value}` in `{}` stays: {}",
                        array.join("."),
                        still_declared(&co)
                    ),
                });
                self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                continue;
            }
            self.remove_grant(r, &array, &value);
        }
    }

    /// Removes grant `value` of record `r` from the array at `array`, and the array with it
    /// when mcpconf created it and it is empty now.
    fn remove_grant(&mut self, r: &Record, array: &[String], value: &str) {
        let removed = self.doc.array_remove(array, value);
        if self.made(removed).is_none() {
            return;
        }
        self.fp.actions.push(Action {
            op: Op::Remove,
            server: r.server.clone(),
            detail: format!("grant `{value}` in `{}`", array.join(".")),
        });
        self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
        // An array mcpconf created goes when its last grant goes.
        let created = r.hints.as_ref().is_some_and(|h| h["created_array"] == true);
        let empty = self
            .doc
            .get(array)
            .as_ref()
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty);
        if created && empty {
            let undo = r
                .hints
                .as_ref()
                .map(|h| h["undo"].clone())
                .filter(|u| !u.is_null());
            let (key, parent) = array
                .split_last()
                .map_or((value, &[][..]), |(k, p)| (k.as_str(), p));
            let removed = self.doc.remove(parent, key, undo.as_ref());
            self.made(removed);
        }
    }
}
