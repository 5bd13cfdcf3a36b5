//! Saved plans: `plan --out FILE` records what a plan will do, `apply FILE` does exactly that.
//!
//! A saved plan holds no file content and no secret: only the manifest's digest, each file's
//! SHA-256 before and after, and the actions. `apply FILE` plans again (under the locks) from
//! the same manifest and settings and goes on only if every file still has the recorded
//! "before" digest and the new plan produces the recorded "after" digest — so what is written
//! is byte for byte what was reviewed. Anything else is `stale-plan` (exit 3), nothing written.
//! Pure: the command layer reads and writes the file.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::plan::{Action, FilePlan};
use crate::text::hex;

/// A plan saved by `plan --out`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedPlan {
    /// Always 1.
    pub format_version: u32,
    /// `apply` or `prune`.
    pub mode: String,
    /// Whether `--adopt` was given.
    pub adopt: bool,
    /// The owner.
    pub owner: String,
    /// The manifest's path and digest.
    pub manifest: SavedManifest,
    /// `--root` used.
    pub root: PathBuf,
    /// `--home` used.
    pub home: PathBuf,
    /// `--state-dir` used.
    pub state_dir: PathBuf,
    /// `--workspace` given, if any (else the manifest's, else the canonical root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// `--take-over NAME`s the plan was made with: `apply PLAN` takes the same entries over
    /// (a migration reviewed as a saved plan).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub take_over: Vec<String>,
    /// `--replace NAME`s the plan was made with: `apply PLAN` replaces the same entries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace: Vec<String>,
    /// Every file of the plan.
    pub files: Vec<SavedFile>,
}

/// The manifest a plan was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedManifest {
    /// Its path.
    pub path: PathBuf,
    /// `sha256:<hex>` of its bytes.
    pub digest: String,
}

/// One file of a saved plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedFile {
    /// The path as shown.
    pub path: PathBuf,
    /// Digest of the bytes before (`None`: no file).
    pub before: Option<String>,
    /// Digest of the bytes after (`None`: no file — absent, or removed).
    pub after: Option<String>,
    /// What happens to the entries.
    pub actions: Vec<SavedAction>,
}

/// An action, as recorded (details are not kept: they may quote file content).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedAction {
    /// The op.
    pub op: String,
    /// The entry.
    pub server: String,
}

/// `sha256:<hex>` of bytes.
pub fn digest(bytes: &[u8]) -> String {
    digest_of(&[bytes])
}

/// [`digest`] of the bytes `parts` hold one after the other.
fn digest_of(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    format!("sha256:{}", hex(&h.finalize()))
}

fn after_of(f: &FilePlan) -> Option<String> {
    if f.delete {
        None
    } else if let Some(new) = &f.new {
        Some(digest_of(&new.pieces()))
    } else {
        f.old.as_ref().map(|d| digest(d.bytes()))
    }
}

fn actions(a: &[Action]) -> Vec<SavedAction> {
    a.iter()
        .map(|a| SavedAction {
            op: a.op.to_string(),
            server: a.server.clone(),
        })
        .collect()
}

impl SavedPlan {
    /// Record plans.
    pub fn files_of(plans: &[FilePlan]) -> Vec<SavedFile> {
        plans
            .iter()
            .map(|f| SavedFile {
                path: f.path.clone(),
                before: f.old.as_ref().map(|d| digest(d.bytes())),
                after: after_of(f),
                actions: actions(&f.actions),
            })
            .collect()
    }

    /// Whether plans made now are exactly the saved ones; `Err` (`stale-plan`) names the
    /// first difference.
    pub fn check(&self, plans: &[FilePlan]) -> Result<(), crate::diag::Error> {
        let stale = |m: String| crate::diag::Error::new(crate::diag::Code::StalePlan, m);
        let now = Self::files_of(plans);
        for f in &self.files {
            let Some(n) = now.iter().find(|n| n.path == f.path) else {
                return Err(stale(format!(
                    "`{}` is no longer part of the plan",
                    f.path.display()
                )));
            };
            if n.before != f.before {
                return Err(stale(format!(
                    "`{}` changed since the plan was made",
                    f.path.display()
                )));
            }
            if n.after != f.after || n.actions != f.actions {
                return Err(stale(format!(
                    "the plan for `{}` is no longer the same",
                    f.path.display()
                )));
            }
        }
        if let Some(extra) = now
            .iter()
            .find(|n| !self.files.iter().any(|f| f.path == n.path))
        {
            return Err(stale(format!(
                "`{}` is now part of the plan but was not when it was saved",
                extra.path.display()
            )));
        }
        Ok(())
    }

    /// Parse a saved plan; a text that is not one this version reads is `invalid-plan`.
    pub fn from_json(text: &str) -> Result<SavedPlan, crate::diag::Error> {
        let invalid = |m: String| crate::diag::Error::new(crate::diag::Code::InvalidPlan, m);
        let p: SavedPlan = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        if p.format_version != 1 {
            return Err(invalid(format!(
                "plan format_version {} is not supported",
                p.format_version
            )));
        }
        Ok(p)
    }

    /// Serialize (pretty, trailing newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}
