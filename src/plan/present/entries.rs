//! The entries the manifest wants: each added, kept, updated, adopted, taken over or refused
//! (conflict, drift).

use super::*;

/// One wanted entry where it is planned: its path in the file, its ledger pointer, and the
/// other workspaces of the owner that provably own what is there now.
struct Spot<'w> {
    w: &'w Want,
    path: Vec<String>,
    pointer: String,
    co_owners: Vec<String>,
}

/// `w` with the keys of the entry `found` that its client does not read added to its client
/// state (those the manifest's entry holds aside), or `w` as it is (`found` has none).
fn unread_state(w: &Want, found: &Value) -> Want {
    let extra: Vec<String> = crate::dialect::lookup(w.client)
        .map(|d| crate::dialect::unread_keys(d, found))
        .unwrap_or_default()
        .into_iter()
        .filter(|k| w.value.get(k).is_none() && !w.client_state.contains(k))
        .collect();
    let mut x = w.clone();
    x.client_state.extend(extra);
    x
}

impl Present<'_> {
    pub(super) fn wanted_entry(&mut self, w: &Want, collided: &HashSet<String>) {
        let input = self.input;
        let pointer = ledger::pointer(&w.container, &w.server);
        self.wanted_pointers.insert(pointer.clone());
        if collided.contains(&w.server) {
            return;
        }
        if let Err(e) = check_containers(&self.doc, &w.container) {
            self.fp.errors.push(e);
            return;
        }
        let mut path = w.container.clone();
        path.push(w.server.clone());
        let current = self.doc.get(&path);
        // The fields of the entry found that its client does not read there (and the manifest
        // does not declare) are the user's, as the client's own keys are: outside the
        // comparison and the proof, kept by an update.
        let with_unread;
        let w = match current.as_ref().map(|v| unread_state(w, v)) {
            Some(x) => {
                with_unread = x;
                &with_unread
            }
            None => w,
        };
        // A take-over that did not land (a run killed after its intent): the entry is still the
        // one its copy holds, so it is the other party's, not a drifted one of ours.
        let record = self.index.record(&pointer).filter(|r| {
            r.ownership(current.as_ref()) == Ownership::Intact
                || !input.restores.iter().any(|c| {
                    c.pointer == pointer
                        && current.as_ref().map(ledger::digest).as_deref()
                            == Some(c.original_digest.as_str())
                })
        });
        // Other workspaces of the same owner that provably own what is there now.
        let co_owners = co_owners(&self.index, &pointer, current.as_ref());
        let legacy = input.legacy.iter().any(|l| {
            l.name == w.server
                && current.as_ref().is_some_and(|c| {
                    semantic_eq_for(&l.entry, c, crate::dialect::client_facts(input.client))
                })
        });
        let spot = Spot {
            w,
            path,
            pointer,
            co_owners,
        };
        match (current, record) {
            (None, rec) => self.add(w, rec),
            (Some(v), Some(r)) => self.ours(&spot, &v, r),
            (Some(v), None) if !spot.co_owners.is_empty() => self.co_owned(&spot, &v),
            (Some(v), None) => self.foreign(&spot, &v, legacy),
        }
    }

    /// No entry there: written (again, when the one mcpconf wrote is gone).
    fn add(&mut self, w: &Want, rec: Option<&Record>) {
        let written = self.doc.upsert(&w.container, &w.server, &w.value);
        let Some(hints) = self.made(written) else {
            return;
        };
        self.fp.actions.push(Action {
            op: Op::Add,
            server: w.server.clone(),
            detail: if rec.is_some() {
                "re-added: the entry mcpconf wrote is gone".into()
            } else {
                String::new()
            },
        });
        let hints = hints.or_else(|| rec.and_then(|r| r.hints.clone()));
        self.fp.ledger.push(LedgerOp::Set(new_record(
            self.input,
            w,
            hints,
            self.created_file,
        )));
        self.kept_records += 1;
    }

    /// An entry this workspace has a record of: kept, updated, taken back, or refused.
    fn ours(&mut self, spot: &Spot, v: &Value, r: &Record) {
        let w = spot.w;
        let own = r.ownership_in(Some(v), crate::dialect::client_facts(&r.client));
        // The client's own keys of the entry found now (kept by an update).
        let state: Vec<String> = w
            .client_state
            .iter()
            .filter(|k| ledger::member_at(v, k).is_some())
            .cloned()
            .collect();
        let keys: Vec<&str> = w.client_state.iter().map(String::as_str).collect();
        let defaults = crate::dialect::client_facts(w.client);
        if *v == w.value
            || (own == Ownership::Intact
                && (semantic_eq_for(v, &w.value, defaults)
                    || semantic_eq_for(
                        &ledger::without(v, &keys),
                        &ledger::without(&w.value, &keys),
                        defaults,
                    )))
        {
            self.keep_ours(spot, v, r, &keys);
        } else if own == Ownership::Intact && !spot.co_owners.is_empty() {
            let message = format!(
                "entry `{}` in `{}` is also declared by workspace {} of owner `{}`, differently{}; mcpconf will not change an entry another workspace relies on ({})",
                w.server,
                self.shown,
                names(&spot.co_owners),
                owner_of(self.input),
                difference_hint(v, &w.value),
                shared_way_out(&w.server)
            );
            self.refuse(&spot.path, Op::Conflict, &w.server, message);
        } else if own == Ownership::Intact {
            self.update_ours(w, v, r, &state);
        } else if self.input.take_over.contains(&w.server) || self.input.replace.contains(&w.server)
        {
            self.take_back(w, v, r, &state);
        } else {
            let message = format!(
                "entry `{}` in `{}` was edited since owner `{}` wrote it{}; mcpconf will not overwrite the edit (restore the entry, remove it by hand, take it back as the manifest says with `mcpconf apply --take-over {4}`, or run `mcpconf release {4}` to hand it to the user)",
                w.server,
                self.shown,
                owner_of(self.input),
                drift_hint(r, v, Some(&w.value)),
                w.server
            );
            self.refuse(&spot.path, Op::Drift, &w.server, message);
        }
    }

    /// Ours and as wanted: kept, its record refreshed when it changed.
    fn keep_ours(&mut self, spot: &Spot, v: &Value, r: &Record, keys: &[&str]) {
        let w = spot.w;
        self.fp.actions.push(Action {
            op: Op::Keep,
            server: w.server.clone(),
            detail: co_detail(&spot.co_owners),
        });
        // What mcpconf wrote: the entry as it is, with the client keys as wanted.
        let mut written = ledger::without(v, keys);
        if let (Some(m), Some(wm)) = (written.as_object_mut(), w.value.as_object()) {
            for k in keys {
                if let Some(x) = wm.get(*k) {
                    m.insert(k.to_string(), x.clone());
                }
            }
        }
        let rec = record_of(self.input, w, &written, r.hints.clone(), r.created_file);
        if &rec != r {
            self.fp.ledger.push(LedgerOp::Set(rec));
        }
        self.kept_records += 1;
    }

    /// Writes the manifest's entry over one of ours, the client's own keys (`state`) kept
    /// byte for byte; the hints to record (the write's for a whole entry, else the record's).
    fn rewrite(
        &mut self,
        w: &Want,
        v: &Value,
        r: &Record,
        state: &[String],
    ) -> Result<Option<Value>, crate::document::ReadError> {
        if state.is_empty() {
            self.doc.upsert(&w.container, &w.server, &w.value)
        } else {
            // The manifest's entry with the client's nested keys (`tools.exclude`) kept.
            let wanted = ledger::with_nested_state(&w.value, v, state);
            self.doc
                .update_entry(&w.container, &w.server, &wanted, state)
                .map(|()| r.hints.clone())
        }
    }

    /// Ours, unedited, and no longer as wanted: updated.
    fn update_ours(&mut self, w: &Want, v: &Value, r: &Record, state: &[String]) {
        // The client's own keys stay byte for byte; the rest becomes the manifest's.
        let written = self.rewrite(w, v, r, state);
        if self.made(written).is_none() {
            return;
        }
        self.fp.actions.push(Action {
            op: Op::Update,
            server: w.server.clone(),
            detail: String::new(),
        });
        self.fp.ledger.push(LedgerOp::Set(new_record(
            self.input,
            w,
            r.hints.clone(),
            r.created_file,
        )));
        self.kept_records += 1;
    }

    /// Ours, rewritten by someone else (a client that expanded our reference into it, say):
    /// taken back as the manifest says, without a restore copy (it was never another party's
    /// entry); the report names the keys, never values. The client's own keys in it (Gemini's
    /// `trust`) stay, as an update keeps them.
    fn take_back(&mut self, w: &Want, v: &Value, r: &Record, state: &[String]) {
        let state_refs: Vec<&str> = state.iter().map(String::as_str).collect();
        let written = self.rewrite(w, v, r, state);
        let Some(hints) = self.made(written) else {
            return;
        };
        self.fp.actions.push(takeover::taken_back(
            &w.server,
            owner_of(self.input),
            &takeover::replaced_keys(&ledger::without(v, &state_refs), &w.value),
        ));
        self.fp.ledger.push(LedgerOp::Set(new_record(
            self.input,
            w,
            hints,
            r.created_file,
        )));
        self.kept_records += 1;
    }

    /// Another workspace of the owner wrote it: kept and recorded for this one too when
    /// declared the same way, refused otherwise.
    fn co_owned(&mut self, spot: &Spot, v: &Value) {
        let w = spot.w;
        if semantic_eq_for(v, &w.value, crate::dialect::client_facts(w.client)) {
            // Co-owned: written once, recorded for every workspace that declares it.
            self.fp.actions.push(Action {
                op: Op::Keep,
                server: w.server.clone(),
                detail: co_detail(&spot.co_owners),
            });
            // The hints and the created-file mark travel with the entry, so whichever
            // workspace removes it last restores the original bytes.
            let co = self.index.others(&spot.pointer).first();
            let hints = co.and_then(|r| r.hints.clone());
            let rec = record_of(self.input, w, v, hints, self.created_file);
            self.fp.ledger.push(LedgerOp::Set(rec));
            self.kept_records += 1;
        } else {
            let message = format!(
                "entry `{}` in `{}` is declared differently by workspace {} of owner `{}`{}; one owner declares one entry one way ({})",
                w.server,
                self.shown,
                names(&spot.co_owners),
                owner_of(self.input),
                difference_hint(v, &w.value),
                shared_way_out(&w.server)
            );
            self.refuse(&spot.path, Op::Conflict, &w.server, message);
        }
    }

    /// Someone else's entry (or the owner's legacy shape) where the manifest wants one.
    fn foreign(&mut self, spot: &Spot, v: &Value, legacy: bool) {
        let w = spot.w;
        let expanded_eq = w
            .expanded
            .as_ref()
            .is_some_and(|x| semantic_eq_for(v, x, crate::dialect::client_facts(w.client)));
        if legacy {
            self.write_new(
                w,
                Action {
                    op: Op::Update,
                    server: w.server.clone(),
                    detail: LEGACY_REPLACED.into(),
                },
                |_| None,
                self.created_file,
            );
        } else if let Some(client_keys) = eq_but_client_keys(
            v,
            &w.value,
            &w.client_state,
            crate::dialect::client_facts(w.client),
        ) {
            self.equal_foreign(w, v, &client_keys);
        } else if self.opts.adopt && expanded_eq {
            // The literal equals the reference expanded: the same secret, proven. The
            // reference replaces it, so the secret leaves the file.
            self.write_new(
                w,
                Action {
                    op: Op::Adopt,
                    server: w.server.clone(),
                    detail: "its literal values equal the manifest's references expanded from the environment; replaced by the references and recorded as ours (a later prune removes it)".into(),
                },
                |_| None,
                false,
            );
        } else if self.input.replace.contains(&w.server) {
            let action = takeover::replaced(
                &w.server,
                owner_of(self.input),
                &takeover::replaced_keys(v, &w.value),
            );
            self.write_new(w, action, |hints| hints, false);
        } else if self.input.take_over.contains(&w.server) {
            self.take_over(spot, v);
        } else {
            self.foreign_conflict(spot, v, expanded_eq);
        }
    }

    /// Writes the manifest's entry and records it as ours, with the hints `hints` makes of
    /// the write's.
    fn write_new(
        &mut self,
        w: &Want,
        action: Action,
        hints: impl FnOnce(Option<Value>) -> Option<Value>,
        created_file: bool,
    ) {
        let written = self.doc.upsert(&w.container, &w.server, &w.value);
        let Some(undo) = self.made(written) else {
            return;
        };
        self.fp.actions.push(action);
        self.fp.ledger.push(LedgerOp::Set(new_record(
            self.input,
            w,
            hints(undo),
            created_file,
        )));
        self.kept_records += 1;
    }

    /// Someone else's entry that already equals the manifest's (but for what the client keeps
    /// in it): adopted with `--adopt`, left alone otherwise.
    fn equal_foreign(&mut self, w: &Want, v: &Value, client_keys: &[String]) {
        if !self.opts.adopt {
            self.fp.actions.push(Action {
                op: Op::UnownedMatch,
                server: w.server.clone(),
                detail: "already as wanted but not written by mcpconf; left alone (`apply --adopt` records it as ours)".into(),
            });
            return;
        }
        self.fp.actions.push(Action {
            op: Op::Adopt,
            server: w.server.clone(),
            detail: if !client_keys.is_empty() {
                format!(
                    "equal to the manifest but for what the client keeps in it ({}); recorded as ours, left as it is (a later prune removes it)",
                    client_keys.join(", ")
                )
            } else if *v == w.value {
                "equal to the manifest; recorded as ours (a later prune removes it)".into()
            } else {
                "equal to the manifest in this client's dialect (defaults written out, key order); recorded as ours, left as it is (a later prune removes it)".into()
            },
        });
        self.fp
            .ledger
            .push(LedgerOp::Set(record_of(self.input, w, v, None, false)));
        self.kept_records += 1;
    }

    /// `--take-over`: someone else's entry replaced, a copy of it kept to give back.
    fn take_over(&mut self, spot: &Spot, v: &Value) {
        let (w, input, original) = (spot.w, self.input, self.original);
        let mut after = original.clone();
        let copy = after
            .upsert(&w.container, &w.server, &w.value)
            .ok()
            .and_then(|_| takeover::copy_of(input, original, &after, &spot.path, &w.server));
        match (copy, self.doc.upsert(&w.container, &w.server, &w.value)) {
            (Some(copy), Ok(hints)) => {
                self.fp.actions.push(takeover::action(
                    &w.server,
                    owner_of(input),
                    &difference_hint(v, &w.value),
                ));
                self.fp.restore.push(RestoreOp::Keep(Box::new(copy)));
                self.fp
                    .ledger
                    .push(LedgerOp::Set(new_record(input, w, hints, false)));
                self.kept_records += 1;
            }
            (_, Err(e)) => self.fp.errors.push(e.into()),
            (None, Ok(_)) => self.fp.errors.push(PlanError::file(
                Code::InternalEditError,
                format!(
                    "the entry `{}` cannot be copied to give it back later, so it is not taken over",
                    w.server
                ),
            )),
        }
    }

    /// Someone else's entry that differs from the manifest's: refused, with the ways out.
    fn foreign_conflict(&mut self, spot: &Spot, v: &Value, expanded_eq: bool) {
        let w = spot.w;
        let next = if expanded_eq {
            " (its literal values equal the manifest's references expanded from the environment: `apply --adopt` replaces them by the references)".to_string()
        } else {
            format!(
                " (rename the server in the manifest, rename or remove that entry by hand, or replace it with `mcpconf apply --take-over {}`, which keeps a copy that prune gives back, or for good with `--replace {}`)",
                w.server, w.server
            )
        };
        let message = format!(
            "`{}` already has an entry `{}` that owner `{}` did not write and that differs from the manifest{}; mcpconf will not overwrite it{next}",
            self.shown,
            w.server,
            owner_of(self.input),
            super::super::equal::conflict_hint(v, &w.value, &w.client_state, w.client)
        );
        self.refuse(&spot.path, Op::Conflict, &w.server, message);
    }
}
