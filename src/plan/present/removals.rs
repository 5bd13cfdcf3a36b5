//! What the manifest no longer wants: entries we wrote, removed when provably ours (or given
//! back when taken over), and the owner's legacy shapes and grants, on an exact match.

use super::*;

impl Present<'_> {
    /// Entries we wrote that the manifest no longer wants here. `given_back`: the pointers of
    /// entries given back already; `copies`: the restore copies no longer wanted; `hints`:
    /// how to remove the containers mcpconf created in the file.
    pub(super) fn remove_unwanted_entries(
        &mut self,
        given_back: &[String],
        copies: &[&crate::ledger::RestoreCopy],
        hints: Option<&Value>,
    ) {
        let input = self.input;
        let mut removals: Vec<&Record> = input
            .records
            .iter()
            .filter(|r| r.kind == Kind::Entry && !self.wanted_pointers.contains(&r.pointer))
            .collect();
        // Remove the entries that come last in the file first, so each removal is the inverse
        // of the append that made it.
        removals.sort_by_key(|r| {
            std::cmp::Reverse(
                ledger::split_pointer(&r.pointer)
                    .and_then(|(c, n)| self.doc.position(&c, &n))
                    .unwrap_or(0),
            )
        });
        for r in removals {
            let Some((container, name)) = ledger::split_pointer(&r.pointer) else {
                self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                continue;
            };
            if given_back.contains(&r.pointer) {
                self.fp.actions.push(takeover::given_back(&r.server));
                self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                self.fp.restore.push(RestoreOp::Drop(r.pointer.clone()));
                continue;
            }
            self.remove_entry(r, &container, &name, copies, hints);
        }
    }

    /// Removes the entry `name` in `container` of record `r` when it is provably ours and no
    /// other workspace declares it; refuses a drifted one.
    fn remove_entry(
        &mut self,
        r: &Record,
        container: &[String],
        name: &str,
        copies: &[&crate::ledger::RestoreCopy],
        hints: Option<&Value>,
    ) {
        let mut path = container.to_vec();
        path.push(name.to_string());
        let current = self.doc.get(&path);
        if r.ownership(current.as_ref()) == Ownership::Missing
            && copies.iter().any(|c| c.pointer == r.pointer)
        {
            // Removed by hand since: nothing to give back into.
            self.fp.restore.push(RestoreOp::Drop(r.pointer.clone()));
        }
        let co = co_owners(&self.index, &r.pointer, current.as_ref());
        let own = r.ownership_in(current.as_ref(), crate::dialect::client_facts(&r.client));
        if own == Ownership::Intact && !co.is_empty() {
            // Co-owned: only this workspace's claim goes.
            self.fp.actions.push(Action {
                op: Op::Keep,
                server: r.server.clone(),
                detail: still_declared(&co),
            });
            self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            return;
        }
        match own {
            Ownership::Missing => self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone())),
            Ownership::Intact => {
                let removed = self.doc.remove(container, name, hints);
                if self.made(removed).is_some() {
                    self.fp.actions.push(Action {
                        op: Op::Remove,
                        server: r.server.clone(),
                        detail: String::new(),
                    });
                    self.fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                }
            }
            Ownership::Drifted => {
                let message = format!(
                    "entry `{}` in `{}` was edited since owner `{}` wrote it{}, so it is not removed (restore the entry, remove it by hand, or run `mcpconf release {}` to hand it to the user)",
                    r.server,
                    self.shown,
                    owner_of(self.input),
                    current
                        .as_ref()
                        .map(|v| drift_hint(r, v, None))
                        .unwrap_or_default(),
                    r.server
                );
                self.refuse(&path, Op::Drift, &r.server, message);
            }
        }
    }

    /// Legacy shapes: exact matches only, in the client's canonical form (the defaults the
    /// client writes out when it saves its file are no difference). The servers whose legacy
    /// entry leaves the file (replaced by a declared entry, or removed here).
    pub(super) fn remove_legacy_entries(&mut self) -> Vec<String> {
        let input = self.input;
        let defaults = crate::dialect::client_facts(input.client);
        let mut legacy_removed = self.legacy_replaced();
        for l in &input.legacy {
            for c in &input.containers {
                let p = ledger::pointer(c, &l.name);
                if self.wanted_pointers.contains(&p) || self.index.any(&p) {
                    continue;
                }
                let mut path = c.clone();
                path.push(l.name.clone());
                let exact = self
                    .doc
                    .get(&path)
                    .as_ref()
                    .is_some_and(|v| semantic_eq_for(&l.entry, v, defaults));
                if !exact {
                    continue;
                }
                let removed = self.doc.remove(c, &l.name, None);
                if self.made(removed).is_some() {
                    self.fp.actions.push(Action {
                        op: Op::LegacyRemove,
                        server: l.name.clone(),
                        detail: "exact match of the owner's legacy shape".into(),
                    });
                    legacy_removed.push(l.name.clone());
                }
            }
        }
        legacy_removed
    }

    /// Legacy grants: exact strings, removed only together with their legacy entry in this
    /// file, or, for an agent file that inherits workspace settings, when no entry of that
    /// name stays visible to it. Removing a grant alone could silently disable the operator's
    /// own server.
    pub(super) fn remove_legacy_grants(&mut self, legacy_removed: &[String]) {
        let input = self.input;
        let inherits = ["includeMcpJson", "useLegacyMcpJson"]
            .iter()
            .any(|k| self.doc.get(&[k.to_string()]) == Some(Value::Bool(true)));
        for l in &input.legacy {
            let still_there = input.containers.iter().any(|c| {
                let mut p = c.clone();
                p.push(l.name.clone());
                self.doc.get(&p).is_some()
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
                    self.legacy_grant(l, array, g, why_kept.as_deref());
                }
            }
        }
    }

    /// The legacy grant `g` of `l` in `array`: kept (saying why) or removed.
    fn legacy_grant(
        &mut self,
        l: &crate::manifest::Legacy,
        array: &str,
        g: &str,
        why_kept: Option<&str>,
    ) {
        let path = vec![array.to_string()];
        let pointer = grant_pointer(&path, g);
        if self.wanted_pointers.contains(&pointer) || self.index.any(&pointer) {
            return;
        }
        let present = self
            .doc
            .get(&path)
            .as_ref()
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(g)));
        if !present {
            return;
        }
        if let Some(why) = why_kept {
            self.fp.actions.push(Action {
                op: Op::Keep,
                server: l.name.clone(),
                detail: format!("legacy grant `{g}` in `{array}` kept: {why}"),
            });
            return;
        }
        let removed = self.doc.array_remove(&path, g);
        if self.made(removed).is_some() {
            self.fp.actions.push(Action {
                op: Op::LegacyRemove,
                server: l.name.clone(),
                detail: format!("legacy grant `{g}` in `{array}`"),
            });
        }
    }
}
