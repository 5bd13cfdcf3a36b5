//! Ownership without writing a file: `release` (records forgotten, entries left to the user)
//! and `status` (what each record of an owner finds in its file now).

use super::*;

/// Forget ownership of a server's entries (and grants) without touching any file: the
/// ledger records go, the entries become the user's. Returns the records removed.
pub fn release(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    server: &str,
    client: Option<&str>,
) -> Result<Vec<Record>, Box<Report>> {
    // Refuse an unreadable ledger (or a bad owner) before creating anything.
    load_ledger(&settings.state_dir, owner)?;
    let lock = lock_path(&ledger::state_dir(&settings.state_dir), owner);
    let fail = |e: FsError| Box::new(fs_report(owner, &e, Exit::Io));
    fsio::create_parent_dirs(&lock).map_err(fail)?;
    let _lock = fsio::lock_file(&lock, settings.lock_timeout)
        .map_err(|e| Box::new(fs_report(owner, &e, lock_exit(&e))))?;
    ledger::clean_temps(&settings.state_dir, owner)
        .map_err(|e| Box::new(fs_report(owner, &e, lock_exit(&e))))?;
    let (mut ledger, ws) = load_claimed(settings, manifest, owner, Mode::Prune)?;
    // Only this workspace's records: another workspace's claim on a co-owned entry stays.
    let matches = |r: &Record| {
        r.workspace.as_deref() == Some(ws.as_str())
            && r.server == server
            && client.is_none_or(|c| r.client == c)
    };
    let removed: Vec<Record> = ledger
        .records
        .iter()
        .filter(|r| matches(r))
        .cloned()
        .collect();
    if removed.is_empty() {
        let names: Vec<&str> = ledger.records.iter().map(|r| r.server.as_str()).collect();
        let hint = crate::text::closest(server, names.iter().copied())
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        return Err(Box::new(Report::failed(
            owner,
            &ledger_path(&settings.state_dir, owner),
            Code::NotFound,
            format!(
                "owner `{owner}` has no ledger record for server `{server}` in workspace `{ws}`{hint}"
            ),
            1,
            1,
            Exit::Usage,
        )));
    }
    ledger.records.retain(|r| !matches(r));
    // An entry taken over and released is the user's as it is now: its copy goes, after the
    // ledger no longer points at it.
    let mut restores = ledger::load_restores(&settings.state_dir, owner).map_err(fail)?;
    save_ledger(&settings.state_dir, &ledger).map_err(fail)?;
    let before = restores.copies.len();
    restores
        .copies
        .retain(|c| ledger.find(&c.workspace, &c.file, &c.pointer).is_some());
    if restores.copies.len() != before {
        ledger::save_restores(&settings.state_dir, owner, &restores).map_err(fail)?;
    }
    Ok(removed)
}

/// One ledger record's state, for `mcpconf status`.
#[derive(Debug, Clone, Serialize)]
pub struct RecordStatus {
    /// The workspace that holds the record (`None`: a record from before workspaces that no
    /// workspace has claimed yet).
    pub workspace: Option<String>,
    /// The file.
    pub path: String,
    /// The client.
    pub client: String,
    /// The server.
    pub server: String,
    /// `entry` or `grant`.
    pub kind: ledger::Kind,
    /// The pointer.
    pub pointer: String,
    /// Whether the entry is still as written.
    pub state: RecordState,
    /// For an intact entry: the client's own keys the client added or changed since mcpconf
    /// wrote it (`intact (client state: …)`), sorted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub client_state: Vec<String>,
}

/// The state of a recorded entry ([`status()`]); its text form is the `state` of
/// `mcpconf status --format json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecordState {
    /// Exactly as mcpconf wrote it.
    Intact,
    /// Edited since.
    Drifted,
    /// Gone (or its file is).
    Missing,
    /// The file cannot be read or parsed.
    Unreadable,
}

impl RecordState {
    /// `intact`, `drifted`, `missing` or `unreadable`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordState::Intact => "intact",
            RecordState::Drifted => "drifted",
            RecordState::Missing => "missing",
            RecordState::Unreadable => "unreadable",
        }
    }
}

impl std::fmt::Display for RecordState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for RecordState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Comparing with the text form, for assertions.
impl PartialEq<&str> for RecordState {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Whether `owner` holds a record that [`status()`] would list without `all` (this run's
/// workspace, with the records from before workspaces it would claim), read from the ledger
/// alone: no file is read. `prune` asks this before it plans, to say "nothing to prune".
pub fn has_records(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
) -> Result<bool, Box<Report>> {
    let (ledger, ws) = load_claimed(settings, manifest, owner, Mode::Prune)?;
    Ok(ledger
        .records
        .iter()
        .any(|r| r.workspace.as_deref() == Some(ws.as_str())))
}

/// The state of an owner's records: this run's workspace (with the records from before
/// workspaces it would claim), or with `all` every workspace's. Also returns the workspace.
/// Reads only; an unreadable ledger is an error report.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use mcpconf::engine::{self, ApplyOptions, Mode, RecordState};
///
/// let dir = tempfile::tempdir()?;
/// let settings = mcpconf::settings::Settings::builder()
///     .manifest(dir.path().join("mcpconf.toml"))
///     .root(dir.path())
///     .home(dir.path())
///     .state_dir(dir.path().join("state"))
///     .build()?;
/// let manifest = mcpconf::manifest::parse(
///     "owner = \"o\"\n[servers.web]\ncommand = \"web-mcp\"\n[[targets]]\nclient = \"cursor\"\n",
///     &mcpconf::known::Known,
/// )?;
/// engine::apply(&settings, ApplyOptions::new("o", Mode::Apply { adopt: false }).manifest(&manifest));
///
/// // Someone edits our entry: it is drifted (and `apply` would refuse to overwrite it).
/// let file = dir.path().join(".cursor/mcp.json");
/// std::fs::write(&file, std::fs::read_to_string(&file)?.replace("web-mcp", "edited"))?;
/// let (_workspace, records) = engine::status(&settings, Some(&manifest), "o", false)?;
/// assert_eq!((records[0].server.as_str(), records[0].state), ("web", RecordState::Drifted));
/// # Ok(())
/// # }
/// ```
pub fn status(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    all: bool,
) -> Result<(String, Vec<RecordStatus>), Box<Report>> {
    let (ledger, ws) = load_claimed(settings, manifest, owner, Mode::Prune)?;
    // Records are ordered by file: one group per file, without a scan per file.
    let mut groups: Vec<(String, Vec<&Record>)> = Vec::new();
    for r in ledger
        .records
        .iter()
        .filter(|r| all || r.workspace.as_deref() == Some(ws.as_str()))
    {
        match groups.last_mut() {
            Some((f, recs)) if *f == r.file => recs.push(r),
            _ => groups.push((r.file.clone(), vec![r])),
        }
    }
    let mut out = Vec::new();
    for (file, recs) in groups {
        let syntax = recs
            .first()
            .and_then(|r| dialect::lookup(&r.client))
            .map(|d| d.syntax())
            .unwrap_or(Syntax::Jsonc);
        let doc = match fsio::read(Path::new(&file), MAX_FILE) {
            Ok(Some(r)) => Doc::parse_vec(r.bytes, syntax).map(Some).map_err(|_| ()),
            Ok(None) => Ok(None),
            Err(_) => Err(()),
        };
        for r in recs {
            let mut client_state = Vec::new();
            let state = match &doc {
                Err(()) => RecordState::Unreadable,
                Ok(None) => RecordState::Missing,
                Ok(Some(d)) => {
                    let v = ledger::split_pointer(&r.pointer).and_then(|(mut c, n)| match r.kind {
                        // A grant is a string in an array: there when the array holds it.
                        ledger::Kind::Grant => d
                            .get(&c)
                            .as_ref()
                            .and_then(serde_json::Value::as_array)
                            .and_then(|a| a.iter().find(|x| x.as_str() == Some(n.as_str())))
                            .cloned(),
                        ledger::Kind::Entry => {
                            c.push(n);
                            d.get(&c)
                        }
                    });
                    let facts = dialect::client_facts(&r.client);
                    let fallback = facts.keys;
                    match r.ownership_in(v.as_ref(), facts) {
                        ledger::Ownership::Intact => {
                            if let Some(v) = &v {
                                client_state = r.client_state_in(v, fallback);
                            }
                            RecordState::Intact
                        }
                        ledger::Ownership::Drifted => RecordState::Drifted,
                        ledger::Ownership::Missing => RecordState::Missing,
                    }
                }
            };
            out.push(RecordStatus {
                workspace: r.workspace.clone(),
                path: file.clone(),
                client: r.client.clone(),
                server: r.server.clone(),
                kind: r.kind,
                pointer: r.pointer.clone(),
                state,
                client_state,
            });
        }
    }
    out.sort_by(|a, b| {
        (&a.workspace, &a.path, &a.pointer).cmp(&(&b.workspace, &b.path, &b.pointer))
    });
    Ok((ws, out))
}
