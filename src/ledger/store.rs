//! Loading and saving an owner's ledger, through [`crate::fsio`]: `<state>/ledger/<owner>.json`.
//!
//! # One durable ledger write per run
//!
//! A run that writes files saves the ledger once, durably, *before* the first file write: the
//! intent `<state>/ledger/<owner>.intent`, which holds the ledger as it will be (every record
//! about to change with its `pending` digest, so old and new content are both proven ours) and
//! the generation of the ledger it was made from. After the writes, the committed ledger
//! `<owner>.json` is published atomically but without fsync ([`commit`]): a killed process
//! leaves either file whole, and after a power loss that lost the commit, [`load`] finds an
//! intent newer than the ledger (or a ledger left empty) and uses the intent, which proves
//! every file old or new. So a one-file apply costs four fsyncs: the intent and its directory,
//! the file and its directory. Saves that write no file ([`save`]) stay durable themselves.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Ledger;
use crate::diag::Code;
use crate::fsio::{self, FsError, MAX_FILE};

/// The state directory, resolved once: a state directory reached through a link (a dotfile
/// manager's) is followed, but nothing in it is — `ledger/` and the files in it are opened
/// without following a link, and a link there is refused (`not-a-file`).
pub fn state_dir(state_dir: &Path) -> PathBuf {
    fsio::resolve(state_dir).unwrap_or_else(|_| state_dir.to_path_buf())
}

/// `<state>/ledger` when it is not a symbolic link (nor a path through one); a link there is
/// refused, never followed.
fn ledger_dir(state: &Path) -> Result<PathBuf, FsError> {
    let dir = state.join("ledger");
    if fsio::is_link(&dir) {
        return Err(FsError {
            code: Code::NotAFile,
            message: format!(
                "the ledger directory `{}` is a symbolic link; mcpconf follows none inside its state directory (move the link away, or point --state-dir at the real directory)",
                dir.display()
            ),
            path: dir,
            source: None,
            published: false,
        });
    }
    Ok(dir)
}

/// Removes the temps a killed run left for an owner's ledger, intent and restore copies (a
/// restore copy's may hold the replaced entry's secret). Call it holding the owner's lock
/// ([`lock_path`]): then every such temp is a dead run's, never a live write's.
pub fn clean_temps(state_dir: &Path, owner: &str) -> Result<usize, FsError> {
    let state = self::state_dir(state_dir);
    let dir = ledger_dir(&state)?;
    let (ledger, intent, restore) = (
        path(&state, owner),
        intent_path(&state, owner),
        super::restore::restore_path(&state, owner),
    );
    fsio::clean_stale_temps_of(&dir, &[&ledger, &intent, &restore])
}

/// Where an owner's ledger lives.
pub fn path(state_dir: &Path, owner: &str) -> PathBuf {
    state_dir.join("ledger").join(format!("{owner}.json"))
}

/// Where an owner's intent (the ledger a run is about to commit) lives.
pub fn intent_path(state_dir: &Path, owner: &str) -> PathBuf {
    state_dir.join("ledger").join(format!("{owner}.intent"))
}

/// The lock that serialises the writers of an owner's ledger.
pub fn lock_path(state_dir: &Path, owner: &str) -> PathBuf {
    state_dir.join("ledger").join(format!("{owner}.lock"))
}

/// The intent file: the ledger a run will commit, and the generation of the ledger it started
/// from (0: there was none).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Intent {
    base: u64,
    ledger: Ledger,
}

/// The intent of an owner, if there is one that reads as such (anything else is ignored: an
/// intent is only published whole, so an unreadable one is not ours to trust).
fn load_intent(state_dir: &Path, owner: &str) -> Option<Intent> {
    let path = intent_path(&self::state_dir(state_dir), owner);
    let r = fsio::read_existing(&path, MAX_FILE).ok()??;
    let i: Intent = serde_json::from_slice(&r.bytes).ok()?;
    let ledger = Ledger::from_json(&serde_json::to_string(&i.ledger).ok()?).ok()?;
    (ledger.owner == owner).then_some(Intent {
        base: i.base,
        ledger,
    })
}

/// Load an owner's ledger (empty if there is none), with the stamp of the file read. A ledger
/// that exists but cannot be read (`unreadable`), that is not a ledger or belongs to another
/// owner (`ledger-corrupt`), or an owner that is not a valid name (`invalid-owner`) is an error,
/// never an empty ledger. An intent newer than the ledger (its commit was lost) is used instead
/// of the ledger.
pub fn load(state_dir: &Path, owner: &str) -> Result<(Ledger, Option<fsio::Stamp>), FsError> {
    let fail = |code: Code, path: &Path, message: String| FsError {
        code,
        path: path.to_path_buf(),
        message,
        source: None,
        published: false,
    };
    if !crate::manifest::valid_owner(owner) {
        return Err(fail(
            Code::InvalidOwner,
            state_dir,
            crate::manifest::owner_error(owner),
        ));
    }
    let state = self::state_dir(state_dir);
    ledger_dir(&state)?;
    let path = self::path(&state, owner);
    let corrupt = |message: String| fail(Code::LedgerCorrupt, &path, message);
    // A link or a directory in the place of the ledger, its intent or its restore copies is
    // refused before anything is read or written through it (`not-a-file`).
    // (The ledger's own refusal is worded and coded as an unreadable ledger, below.)
    for own in [
        &intent_path(&state, owner),
        &super::restore::restore_path(&state, owner),
    ] {
        fsio::refuse_link(own)?;
    }
    let read = fsio::refuse_link(&path).and_then(|()| fsio::read_existing(&path, MAX_FILE));
    let read = read.map_err(|e| {
        fail(
            Code::Unreadable,
            &e.path,
            format!(
                "the ledger `{}` exists but cannot be read ({}); nothing was changed: fix it or move it away to start over",
                path.display(),
                e.message
            ),
        )
    })?;
    let intent = load_intent(state_dir, owner);
    match read {
        None => match intent {
            // A first run's commit was lost: its intent is the ledger. (An intent made from a
            // ledger that has since been moved away is not: that starts over.) With no
            // committed ledger its generation is 0, the base of the next run's intent: a run
            // after this one that is killed before its commit must leave an intent that is
            // still a first run's, or the records of both runs would be dropped.
            Some(i) if i.base == 0 => {
                let mut ledger = i.ledger;
                ledger.generation = 0;
                Ok((ledger, None))
            }
            _ => Ok((Ledger::new(owner), None)),
        },
        Some(r) => {
            // A commit lost by a power loss can leave an empty file under the new name.
            if r.bytes.iter().all(|&b| b == 0)
                && let Some(i) = intent
            {
                return Ok((i.ledger, Some(r.stamp)));
            }
            let text = String::from_utf8_lossy(&r.bytes);
            match Ledger::from_json(&text) {
                Ok(l) if l.owner == owner => match intent {
                    Some(i) if i.ledger.generation > l.generation => Ok((i.ledger, Some(r.stamp))),
                    _ => Ok((l, Some(r.stamp))),
                },
                Ok(_) => Err(corrupt(format!(
                    "the ledger `{}` belongs to another owner",
                    path.display()
                ))),
                Err(e) => Err(corrupt(format!(
                    "the ledger `{}` cannot be read ({}); nothing was changed: restore it from a backup or move it away to start over",
                    path.display(),
                    e.message
                ))),
            }
        }
    }
}

/// Save an owner's ledger atomically and durably, as a newer generation than any saved before;
/// an empty ledger that was never saved stays unsaved, and a ledger whose records are already
/// saved is not rewritten.
pub fn save(state_dir: &Path, ledger: &Ledger) -> Result<(), FsError> {
    publish(state_dir, ledger, true)
}

/// Save the intent of a run (the ledger with this run's pending digests) durably, before any
/// file is written; `base` is the generation of the ledger the run loaded. Advances the
/// ledger's generation: [`commit`] then publishes the same generation.
pub fn save_intent(state_dir: &Path, ledger: &mut Ledger, base: u64) -> Result<(), FsError> {
    let state = self::state_dir(state_dir);
    ledger_dir(&state)?;
    let path = intent_path(&state, &ledger.owner);
    fsio::create_parent_dirs(&path)?;
    ledger.generation += 1;
    // A ledger always serializes (string keys, no floats).
    let text = serde_json::to_string(&IntentRef { base, ledger }).unwrap_or_default();
    write_held(&path, &text, fsio::Durability::Durable)
}

/// Writes one of the owner's files (ledger, intent, restore copies) through the writer of
/// mcpconf's own files; the caller holds the owner's lock.
pub(super) fn write_held(
    path: &Path,
    text: &str,
    durability: fsio::Durability,
) -> Result<(), FsError> {
    fsio::write_own(path, text.as_bytes(), fsio::Writers::Held, durability).map(|_| ())
}

#[derive(Serialize)]
struct IntentRef<'a> {
    base: u64,
    ledger: &'a Ledger,
}

/// Publish the ledger after a run's writes, atomically but without fsync: its durable intent
/// ([`save_intent`]) stands for it until the next durable save.
pub fn commit(state_dir: &Path, ledger: &Ledger) -> Result<(), FsError> {
    publish(state_dir, ledger, false)
}

fn publish(state_dir: &Path, ledger: &Ledger, durable: bool) -> Result<(), FsError> {
    // Resolved once: the write-side calls of `fsio` never follow a link on the way, so a state
    // directory reached through one (a dotfile manager's) is resolved here.
    let state = self::state_dir(state_dir);
    ledger_dir(&state)?;
    let path = path(&state, &ledger.owner);
    fsio::create_parent_dirs(&path)?;
    // Under the owner's ledger lock (every caller holds it).
    clean_temps(&state, &ledger.owner)?;
    let current = fsio::read(&path, MAX_FILE)?;
    if ledger.records.is_empty() && current.is_none() && ledger.generation == 0 {
        return Ok(());
    }
    let on_disk = current
        .as_ref()
        .and_then(|r| Ledger::from_json(&String::from_utf8_lossy(&r.bytes)).ok());
    let mut out = ledger.clone();
    if durable {
        if on_disk
            .as_ref()
            .is_some_and(|d| d.records == ledger.records && d.generation >= ledger.generation)
        {
            return Ok(());
        }
        // Newer than the ledger on disk and than any intent the ledger was loaded from.
        out.generation = on_disk
            .as_ref()
            .map_or(0, |d| d.generation)
            .max(ledger.generation)
            + 1;
    }
    let text = out.to_json();
    if current.as_ref().is_some_and(|r| r.bytes == text.as_bytes()) {
        return Ok(());
    }
    let durability = if durable {
        fsio::Durability::Durable
    } else {
        fsio::Durability::AtomicOnly
    };
    write_held(&path, &text, durability)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Kind, Pending, Record};

    fn record(digest: &str, pending: Option<&str>) -> Record {
        Record {
            workspace: Some("w".into()),
            file: "/p/f.json".into(),
            client: "json".into(),
            pointer: "/mcpServers/s".into(),
            kind: Kind::Entry,
            server: "s".into(),
            digest: Some(digest.into()),
            pending: pending.map(|d| Pending {
                digest: Some(d.into()),
            }),
            created_file: false,
            file_digest: None,
            hints: None,
            created_dirs: Vec::new(),
            client_state: Vec::new(),
            members: None,
        }
    }

    /// A run: its intent saved durably, then its commit published.
    fn run(state: &Path, ledger: &mut Ledger, old: &str, new: &str) -> (Ledger, Ledger) {
        let base = ledger.generation;
        ledger.records = vec![record(old, Some(new))];
        save_intent(state, ledger, base).unwrap();
        let intent = ledger.clone();
        ledger.records = vec![record(new, None)];
        commit(state, ledger).unwrap();
        (intent, ledger.clone())
    }

    #[test]
    fn a_lost_commit_is_replaced_by_the_intent_and_a_kept_one_wins() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path();
        let mut l = Ledger::new("o");
        let (_, first) = run(state, &mut l, "sha256:a", "sha256:b");
        assert_eq!(load(state, "o").unwrap().0, first);
        let before = fs_read(&path(state, "o"));
        let (intent, second) = run(state, &mut l, "sha256:b", "sha256:c");
        assert_eq!(load(state, "o").unwrap().0, second);

        // The second commit lost (the first ledger back): the intent proves old and new.
        std::fs::write(path(state, "o"), &before).unwrap();
        let (got, _) = load(state, "o").unwrap();
        assert_eq!(got, intent);
        assert!(got.records[0].pending.is_some());
        // ... or left empty under the new name.
        std::fs::write(path(state, "o"), b"").unwrap();
        assert_eq!(load(state, "o").unwrap().0, intent);
        // A ledger that is not empty but not a ledger is still refused.
        std::fs::write(path(state, "o"), b"{\"garbage").unwrap();
        assert_eq!(load(state, "o").unwrap_err().code, Code::LedgerCorrupt);
        // A durable save after recovery is newer than the intent.
        std::fs::write(path(state, "o"), &before).unwrap();
        let (mut got, _) = load(state, "o").unwrap();
        got.records = vec![record("sha256:c", None)];
        save(state, &got).unwrap();
        let (after, _) = load(state, "o").unwrap();
        assert_eq!(after.records, got.records);
        assert!(after.generation > intent.generation);
    }

    #[test]
    fn an_intent_of_a_ledger_moved_away_is_not_used_but_a_first_runs_is() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path();
        let mut l = Ledger::new("o");
        let (first_intent, _) = run(state, &mut l, "sha256:a", "sha256:b");
        // The first run's commit lost: there is no ledger, its intent (base 0) is used.
        std::fs::remove_file(path(state, "o")).unwrap();
        let (got, _) = load(state, "o").unwrap();
        assert_eq!(got.records, first_intent.records);
        // A second run killed before its commit as well (no ledger file yet): its intent is
        // still a first run's, so the third run finds the records of both.
        let mut second = got;
        let base = second.generation;
        second.records = vec![record("sha256:b", Some("sha256:c"))];
        save_intent(state, &mut second, base).unwrap();
        assert!(!path(state, "o").exists());
        assert_eq!(load(state, "o").unwrap().0.records, second.records);
        // After later runs, a ledger moved away to start over stays gone.
        let mut l = Ledger::new("o");
        run(state, &mut l, "sha256:a", "sha256:b");
        run(state, &mut l, "sha256:b", "sha256:c");
        std::fs::remove_file(path(state, "o")).unwrap();
        assert_eq!(load(state, "o").unwrap().0, Ledger::new("o"));
    }

    fn fs_read(p: &Path) -> Vec<u8> {
        std::fs::read(p).unwrap()
    }
}
