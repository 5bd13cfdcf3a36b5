//! Where things are: the manifest, the bases of project and user targets, the ledgers' directory,
//! and how long to wait for other writers.
//!
//! [`Settings::from_env`] resolves them exactly as the `mcpconf` command line does without flags
//! ([`SettingsBuilder::from_env`]: some set explicitly, as the flags do, the rest resolved the
//! same way); [`Settings::builder`] is for embedders: the settings are exactly what it is given,
//! and nothing is read from the environment or discovered from the current directory.
//!
//! ```
//! # fn main() -> Result<(), mcpconf::settings::SettingsError> {
//! use mcpconf::settings::Settings;
//!
//! let dir = std::env::temp_dir();
//! let settings = Settings::builder()
//!     .manifest(dir.join("mcpconf.toml"))
//!     .root(&dir)
//!     .home(&dir)
//!     .state_dir(dir.join("state"))
//!     .build()?;
//! assert!(settings.home.is_absolute());
//! // An explicit home means "everything of the user is under there".
//! assert_eq!(settings.xdg_config_home, None);
//! # Ok(())
//! # }
//! ```

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long to wait for another writer when nothing else is said (`--lock-timeout`'s default).
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Resolved settings shared by the commands; every path is absolute.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The manifest path.
    pub manifest: PathBuf,
    /// Base of project-scope targets.
    pub root: PathBuf,
    /// Base of user-scope targets.
    pub home: PathBuf,
    /// Where ledgers live.
    pub state_dir: PathBuf,
    /// How long to wait for other writers.
    pub lock_timeout: Duration,
    /// The directories that move one client's user file (`$CODEX_HOME`, `$VIBE_HOME`,
    /// `$GOOSE_PATH_ROOT`, `$HERMES_HOME`, `$CONTINUE_GLOBAL_DIR`, `$COPILOT_HOME`,
    /// `$KIMI_CODE_HOME`, `$OPENHANDS_PERSISTENCE_DIR`), each read as its client reads it.
    pub client_homes: ClientHomes,
    /// `$XDG_CONFIG_HOME`, when set and the home was not given explicitly.
    pub xdg_config_home: Option<PathBuf>,
    /// `--workspace NAME`: the ledger scope (else the manifest's `workspace`, else the
    /// canonical root).
    pub workspace: Option<String>,
    /// `--keep-going`: refuse per file instead of per run.
    pub keep_going: bool,
    /// `apply --take-over NAME`: the entries of these names another party wrote are replaced,
    /// a copy of each kept to give back on prune.
    pub take_over: Vec<String>,
    /// `apply --replace NAME`: the entries of these names another party wrote are replaced
    /// for good, no copy kept (prune then removes them).
    pub replace: Vec<String>,
    /// `--profile NAME`: the manifest's profile to use instead of its own `profile`.
    pub profile: Option<String>,
    /// `mcpconf policy … --system-root DIR`: this run writes the manifest's `[policy]` into
    /// the clients' admin files under DIR (`/` for the system's own), in the workspace
    /// `policy:<DIR>`, instead of its servers into the targets.
    pub system_root: Option<PathBuf>,
}

impl Settings {
    /// The settings the command line resolves without flags: the manifest `$MCPCONF_MANIFEST`,
    /// else the first `mcpconf.toml` from the current directory upward (stopping at a
    /// repository's top, see [`discover_manifest`]), else `./mcpconf.toml`; the root the
    /// manifest's directory when there is a manifest, else the current directory; the home
    /// `$HOME`; the state
    /// directory `$MCPCONF_STATE_DIR`, else `$XDG_STATE_HOME/mcpconf`, else
    /// `~/.local/state/mcpconf`; `$XDG_CONFIG_HOME` when set (empty variables count as unset);
    /// each client's home variable as that client reads it (see [`ClientHomes`]).
    ///
    /// ```
    /// // Needs `$HOME` (or fails with `SettingsError::NoHome`).
    /// if std::env::var_os("HOME").is_some() {
    ///     let s = mcpconf::settings::Settings::from_env().unwrap();
    ///     assert!(s.root.is_absolute() && s.state_dir.is_absolute());
    /// }
    /// ```
    pub fn from_env() -> Result<Settings, SettingsError> {
        SettingsBuilder::from_env().build()
    }

    /// A builder for an embedder: the settings are exactly what it is given. It reads no
    /// environment variable (`$HOME`, `$MCPCONF_MANIFEST`, `$XDG_*`, the client homes) and
    /// discovers no manifest. What it is not given: the home is required
    /// ([`SettingsError::NoHome`]); the root is the manifest's directory (one of the two is
    /// required, [`SettingsError::NoRoot`]); the manifest `<root>/mcpconf.toml`; the state
    /// directory `<home>/.local/state/mcpconf`; each client's home and `XDG_CONFIG_HOME` that
    /// client's default under the home. Relative paths are taken from the current directory.
    ///
    /// ```
    /// use mcpconf::settings::{Settings, SettingsError};
    ///
    /// let s = Settings::builder().root("/p").home("/h").build().unwrap();
    /// assert_eq!(s.manifest, std::path::Path::new("/p/mcpconf.toml"));
    /// assert_eq!(s.state_dir, std::path::Path::new("/h/.local/state/mcpconf"));
    /// assert!(matches!(Settings::builder().root("/p").build(), Err(SettingsError::NoHome)));
    /// ```
    pub fn builder() -> SettingsBuilder {
        SettingsBuilder::default()
    }
}

/// Builds [`Settings`]; see [`Settings::builder`].
#[derive(Debug, Clone, Default)]
pub struct SettingsBuilder {
    manifest: Option<PathBuf>,
    root: Option<PathBuf>,
    home: Option<PathBuf>,
    state_dir: Option<PathBuf>,
    lock_timeout: Option<Duration>,
    codex_home: Option<Option<PathBuf>>,
    vibe_home: Option<Option<PathBuf>>,
    goose_path_root: Option<Option<PathBuf>>,
    hermes_home: Option<Option<PathBuf>>,
    continue_global_dir: Option<Option<PathBuf>>,
    copilot_home: Option<Option<PathBuf>>,
    kimi_code_home: Option<Option<PathBuf>>,
    openhands_persistence_dir: Option<Option<PathBuf>>,
    xdg_config_home: Option<Option<PathBuf>>,
    workspace: Option<String>,
    /// Resolve what is not given from the environment ([`SettingsBuilder::from_env`]).
    env: bool,
}

impl SettingsBuilder {
    /// A builder that resolves what it is not given as the command line does (its setters are
    /// the flags): see [`Settings::from_env`].
    pub fn from_env() -> SettingsBuilder {
        SettingsBuilder {
            env: true,
            ..SettingsBuilder::default()
        }
    }

    /// The manifest (`--manifest`).
    pub fn manifest(mut self, path: impl Into<PathBuf>) -> Self {
        self.manifest = Some(path.into());
        self
    }
    /// The base of project-scope targets (`--root`).
    pub fn root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.root = Some(dir.into());
        self
    }
    /// The base of user-scope targets (`--home`); also stops `$XDG_CONFIG_HOME` from applying,
    /// unless [`SettingsBuilder::xdg_config_home`] sets it.
    pub fn home(mut self, dir: impl Into<PathBuf>) -> Self {
        self.home = Some(dir.into());
        self
    }
    /// Where ledgers live (`--state-dir`).
    pub fn state_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.state_dir = Some(dir.into());
        self
    }
    /// How long to wait for other writers (`--lock-timeout`).
    pub fn lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = Some(timeout);
        self
    }
    /// Codex's home instead of `$CODEX_HOME` (`None`: Codex's default, `~/.codex`).
    pub fn codex_home(mut self, dir: Option<PathBuf>) -> Self {
        self.codex_home = Some(dir);
        self
    }
    /// Mistral Vibe's home instead of `$VIBE_HOME` (`None`: Vibe's default, `~/.vibe`).
    pub fn vibe_home(mut self, dir: Option<PathBuf>) -> Self {
        self.vibe_home = Some(dir);
        self
    }
    /// Goose's root instead of `$GOOSE_PATH_ROOT` (`None`: Goose's default, `~/.config/goose`);
    /// its user file is `<dir>/config/config.yaml`.
    pub fn goose_path_root(mut self, dir: Option<PathBuf>) -> Self {
        self.goose_path_root = Some(dir);
        self
    }
    /// Hermes Agent's home instead of `$HERMES_HOME` (`None`: Hermes' default, `~/.hermes`).
    pub fn hermes_home(mut self, dir: Option<PathBuf>) -> Self {
        self.hermes_home = Some(dir);
        self
    }
    /// Continue's global directory instead of `$CONTINUE_GLOBAL_DIR` (`None`: Continue's
    /// default, `~/.continue`).
    pub fn continue_global_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.continue_global_dir = Some(dir);
        self
    }
    /// GitHub Copilot CLI's home instead of `$COPILOT_HOME` (`None`: its default, `~/.copilot`).
    pub fn copilot_home(mut self, dir: Option<PathBuf>) -> Self {
        self.copilot_home = Some(dir);
        self
    }
    /// Kimi Code CLI's home instead of `$KIMI_CODE_HOME` (`None`: its default, `~/.kimi-code`).
    pub fn kimi_code_home(mut self, dir: Option<PathBuf>) -> Self {
        self.kimi_code_home = Some(dir);
        self
    }
    /// The OpenHands CLI's persistence directory instead of `$OPENHANDS_PERSISTENCE_DIR`
    /// (`None`: its default, `~/.openhands`).
    pub fn openhands_persistence_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.openhands_persistence_dir = Some(dir);
        self
    }
    /// The base of `~/.config` files instead of `$XDG_CONFIG_HOME` (`None`: `<home>/.config`).
    pub fn xdg_config_home(mut self, dir: Option<PathBuf>) -> Self {
        self.xdg_config_home = Some(dir);
        self
    }

    /// The ledger scope (`--workspace`): a name like an owner's.
    pub fn workspace(mut self, name: impl Into<String>) -> Self {
        self.workspace = Some(name.into());
        self
    }

    /// Resolve what was not given (from the environment only for
    /// [`SettingsBuilder::from_env`]); make every path absolute.
    pub fn build(self) -> Result<Settings, SettingsError> {
        if let Some(w) = &self.workspace
            && !valid_workspace(w)
        {
            return Err(SettingsError::Workspace(w.clone()));
        }
        if !self.env {
            return self.build_exact();
        }
        let cwd = abs(Path::new("."))?;
        let explicit_manifest = self.manifest.is_some() || var("MCPCONF_MANIFEST").is_some();
        let manifest = match self.manifest {
            Some(m) => abs(&m)?,
            None => match var("MCPCONF_MANIFEST") {
                Some(m) => abs(Path::new(&m))?,
                None => discover_manifest(&cwd).unwrap_or_else(|| cwd.join("mcpconf.toml")),
            },
        };
        // Project files live beside the manifest; without one, in the current directory.
        let root = match self.root {
            Some(r) => abs(&r)?,
            None if explicit_manifest || manifest.is_file() => {
                manifest.parent().map_or(cwd, Path::to_path_buf)
            }
            None => cwd,
        };
        let explicit_home = self.home.is_some();
        let home = match self.home {
            Some(h) => abs(&h)?,
            None => match var("HOME") {
                Some(h) => abs(Path::new(&h))?,
                None => return Err(SettingsError::NoHome),
            },
        };
        let state_dir = match self.state_dir {
            Some(s) => abs(&s)?,
            None => match var("MCPCONF_STATE_DIR") {
                Some(s) => abs(Path::new(&s))?,
                None => match var("XDG_STATE_HOME") {
                    Some(x) => abs(&Path::new(&x).join("mcpconf"))?,
                    None => home.join(".local/state/mcpconf"),
                },
            },
        };
        let mut client_homes = ClientHomes::from_env()?;
        for (given, field) in [
            (self.codex_home, &mut client_homes.codex_home),
            (self.vibe_home, &mut client_homes.vibe_home),
            (self.goose_path_root, &mut client_homes.goose_path_root),
            (self.hermes_home, &mut client_homes.hermes_home),
            (
                self.continue_global_dir,
                &mut client_homes.continue_global_dir,
            ),
            (self.copilot_home, &mut client_homes.copilot_home),
            (self.kimi_code_home, &mut client_homes.kimi_code_home),
            (
                self.openhands_persistence_dir,
                &mut client_homes.openhands_persistence_dir,
            ),
        ] {
            if let Some(dir) = given {
                *field = dir.as_deref().map(abs).transpose()?;
            }
        }
        let xdg_config_home = match self.xdg_config_home {
            Some(x) => x.as_deref().map(abs).transpose()?,
            // An explicit home means "everything of the user is under there".
            None if explicit_home => None,
            None => var("XDG_CONFIG_HOME")
                .map(|v| abs(Path::new(&v)))
                .transpose()?,
        };
        Ok(Settings {
            manifest,
            root,
            home,
            state_dir,
            lock_timeout: self.lock_timeout.unwrap_or(DEFAULT_LOCK_TIMEOUT),
            client_homes,
            xdg_config_home,
            workspace: self.workspace,
            keep_going: false,
            take_over: Vec::new(),
            replace: Vec::new(),
            profile: None,
            system_root: None,
        })
    }

    /// [`SettingsBuilder::build`] without the environment: exactly what was given.
    fn build_exact(self) -> Result<Settings, SettingsError> {
        let manifest = self.manifest.as_deref().map(abs).transpose()?;
        let root = match (&self.root, &manifest) {
            (Some(r), _) => abs(r)?,
            (None, Some(m)) => m
                .parent()
                .map(Path::to_path_buf)
                .ok_or(SettingsError::NoRoot)?,
            (None, None) => return Err(SettingsError::NoRoot),
        };
        let home = abs(self.home.as_deref().ok_or(SettingsError::NoHome)?)?;
        let state_dir = match &self.state_dir {
            Some(s) => abs(s)?,
            None => home.join(".local/state/mcpconf"),
        };
        let mut client_homes = ClientHomes::default();
        for (given, field) in [
            (self.codex_home, &mut client_homes.codex_home),
            (self.vibe_home, &mut client_homes.vibe_home),
            (self.goose_path_root, &mut client_homes.goose_path_root),
            (self.hermes_home, &mut client_homes.hermes_home),
            (
                self.continue_global_dir,
                &mut client_homes.continue_global_dir,
            ),
            (self.copilot_home, &mut client_homes.copilot_home),
            (self.kimi_code_home, &mut client_homes.kimi_code_home),
            (
                self.openhands_persistence_dir,
                &mut client_homes.openhands_persistence_dir,
            ),
        ] {
            *field = given.flatten().as_deref().map(abs).transpose()?;
        }
        Ok(Settings {
            manifest: manifest.unwrap_or_else(|| root.join("mcpconf.toml")),
            root,
            home,
            state_dir,
            lock_timeout: self.lock_timeout.unwrap_or(DEFAULT_LOCK_TIMEOUT),
            client_homes,
            xdg_config_home: self
                .xdg_config_home
                .flatten()
                .as_deref()
                .map(abs)
                .transpose()?,
            workspace: self.workspace,
            keep_going: false,
            take_over: Vec::new(),
            replace: Vec::new(),
            profile: None,
            system_root: None,
        })
    }
}

/// The directories that move one client's user file, each resolved from its environment
/// variable exactly as that client resolves it (`None`: the client's default place under the
/// home). Whatever is set here is also a base for the file system checks, as `--home` is.
///
/// ```
/// use mcpconf::settings::ClientHomes;
/// use std::path::PathBuf;
///
/// let mut homes = ClientHomes::default();
/// homes.hermes_home = Some(PathBuf::from("/srv/hermes"));
/// assert_eq!(homes.dirs().collect::<Vec<_>>(), [&PathBuf::from("/srv/hermes")]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientHomes {
    /// `$CODEX_HOME` (Codex: `<dir>/config.toml`). Unset or empty: `~/.codex`; a relative
    /// value is taken from the current directory.
    pub codex_home: Option<PathBuf>,
    /// `$VIBE_HOME` (Mistral Vibe: `<dir>/config.toml`). Unset or empty: `~/.vibe`; a relative
    /// value is taken from the current directory.
    pub vibe_home: Option<PathBuf>,
    /// `$GOOSE_PATH_ROOT` (Goose: `<dir>/config/config.yaml`). Goose takes only an absolute
    /// path; unset, empty or relative: its default (`~/.config/goose`, following
    /// `$XDG_CONFIG_HOME`).
    pub goose_path_root: Option<PathBuf>,
    /// `$HERMES_HOME` (Hermes Agent: `<dir>/config.yaml`), without leading and trailing
    /// whitespace as Hermes strips it. Unset or blank: `~/.hermes`; a relative value is taken
    /// from the current directory.
    pub hermes_home: Option<PathBuf>,
    /// `$CONTINUE_GLOBAL_DIR` (Continue: `<dir>/config.yaml`). Unset or empty: `~/.continue`; a
    /// relative value is resolved from the current directory, `.` and `..` folded away, as
    /// Continue's `path.resolve` does.
    pub continue_global_dir: Option<PathBuf>,
    /// `$COPILOT_HOME` (GitHub Copilot CLI: `<dir>/mcp-config.json`). Unset or empty:
    /// `~/.copilot`; a relative value is resolved from the current directory, `.` and `..`
    /// folded away (Copilot CLI 1.0.102 reads it so).
    pub copilot_home: Option<PathBuf>,
    /// `$KIMI_CODE_HOME` (Kimi Code CLI: `<dir>/mcp.json`). Unset or empty: `~/.kimi-code`; a
    /// relative value is taken from the current directory, `.` and `..` folded away by name
    /// (Kimi Code joins paths with `pathe`, which folds them). An empty value counts as unset
    /// as in Kimi Code's own data paths (its MCP loader would look for `mcp.json` in the
    /// current directory, but its SDK then fails to create the home and Kimi Code does not
    /// start).
    pub kimi_code_home: Option<PathBuf>,
    /// `$OPENHANDS_PERSISTENCE_DIR` (OpenHands CLI: `<dir>/mcp.json`). Unset: `~/.openhands`.
    /// Taken as given, as the CLI takes it (`os.environ.get`, no `expanduser`): a relative
    /// value from the current directory, `~` not expanded, and an empty value is the current
    /// directory itself (the CLI then reads `./mcp.json`).
    pub openhands_persistence_dir: Option<PathBuf>,
}

impl ClientHomes {
    /// Each variable read from the environment as its client reads it (see the fields).
    pub fn from_env() -> Result<ClientHomes, SettingsError> {
        Ok(ClientHomes {
            codex_home: var("CODEX_HOME").map(|v| abs(Path::new(&v))).transpose()?,
            vibe_home: var("VIBE_HOME").map(|v| abs(Path::new(&v))).transpose()?,
            goose_path_root: goose_path_root(std::env::var_os("GOOSE_PATH_ROOT")),
            hermes_home: hermes_home(std::env::var_os("HERMES_HOME"))
                .map(|v| abs(&v))
                .transpose()?,
            continue_global_dir: var("CONTINUE_GLOBAL_DIR")
                .map(|v| abs(Path::new(&v)).map(|p| fold_dots(&p)))
                .transpose()?,
            copilot_home: var("COPILOT_HOME")
                .map(|v| abs(Path::new(&v)).map(|p| fold_dots(&p)))
                .transpose()?,
            kimi_code_home: var("KIMI_CODE_HOME")
                .map(|v| abs(Path::new(&v)).map(|p| fold_dots(&p)))
                .transpose()?,
            openhands_persistence_dir: openhands_dir(std::env::var_os("OPENHANDS_PERSISTENCE_DIR"))
                .map(|v| abs(&v))
                .transpose()?,
        })
    }

    /// The directories that are set, in the order of the fields.
    pub fn dirs(&self) -> impl Iterator<Item = &PathBuf> {
        [
            &self.codex_home,
            &self.vibe_home,
            &self.goose_path_root,
            &self.hermes_home,
            &self.continue_global_dir,
            &self.copilot_home,
            &self.kimi_code_home,
            &self.openhands_persistence_dir,
        ]
        .into_iter()
        .flatten()
    }
}

/// Goose's `Paths::path_root`: the value when it is an absolute path, else nothing.
fn goose_path_root(value: Option<OsString>) -> Option<PathBuf> {
    value.map(PathBuf::from).filter(|p| p.is_absolute())
}

/// OpenHands' `get_persistence_dir`: the value as it is, and an empty one the current
/// directory (`Path('') / 'mcp.json'` is `mcp.json`).
fn openhands_dir(value: Option<OsString>) -> Option<PathBuf> {
    value.map(|v| {
        if v.is_empty() {
            PathBuf::from(".")
        } else {
            PathBuf::from(v)
        }
    })
}

/// Hermes' `get_hermes_home`: the value without surrounding whitespace (Python's `str.strip`),
/// nothing when that leaves it empty.
fn hermes_home(value: Option<OsString>) -> Option<PathBuf> {
    let value = value?;
    let stripped = match value.to_str() {
        // Python's `str.isspace` also counts the separators U+001C..U+001F.
        Some(s) => s
            .trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
            .into(),
        // Not UTF-8 (Python keeps such bytes as surrogates, never as whitespace): only ASCII
        // whitespace can be stripped.
        #[cfg(unix)]
        None => {
            use std::os::unix::ffi::OsStrExt;
            let bytes = value.as_bytes();
            let is_space = |b: &u8| b.is_ascii_whitespace() || matches!(b, 0x0b | 0x1c..=0x1f);
            let start = bytes
                .iter()
                .position(|b| !is_space(b))
                .unwrap_or(bytes.len());
            let end = bytes
                .iter()
                .rposition(|b| !is_space(b))
                .map_or(start, |e| e + 1);
            std::ffi::OsStr::from_bytes(&bytes[start..end]).to_os_string()
        }
        #[cfg(not(unix))]
        None => value,
    };
    (!stripped.is_empty()).then(|| PathBuf::from(stripped))
}

/// An absolute path with `.` and `..` folded away by name, as Node's `path.resolve` does.
fn fold_dots(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether a workspace name is valid: 1-64 characters from a-z, 0-9, `.`, `_`, `-`, starting
/// with a letter or digit (an owner's rule), so a name never looks like a path.
pub fn valid_workspace(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
        && s.len() <= 64
        && chars
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase() || matches!(c, '.' | '_' | '-'))
}

/// Why a workspace name is not valid (quoted as JSON, so no control character reaches a
/// terminal).
pub fn workspace_rule(s: &str) -> String {
    format!(
        "workspace {} is not valid: use 1-64 characters from a-z, 0-9, `.`, `_`, `-`, starting with a letter or digit (the default workspace is the project root)",
        serde_json::Value::String(s.to_string())
    )
}

/// The first `mcpconf.toml` in `start` or a parent directory, the way cargo finds
/// `Cargo.toml`. The search stops at a repository's top (the first directory holding `.git` is
/// the last one searched), so a project without a manifest never picks up one from a directory
/// above it, and at the file system root. It also stops at the first `mcpconf.toml` entry it
/// sees, whatever that is (a dangling symbolic link, a directory, a FIFO): reading it then
/// fails with a clear error, and a parent directory's manifest is never applied instead.
pub fn discover_manifest(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let candidate = dir.join("mcpconf.toml");
        // (`symlink_metadata`: an entry of any kind, without following a link.)
        if std::fs::symlink_metadata(&candidate).is_ok() {
            return Some(candidate);
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// A set, non-empty environment variable.
fn var(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn abs(p: &Path) -> Result<PathBuf, SettingsError> {
    std::path::absolute(p).map_err(|source| SettingsError::Path {
        path: p.to_path_buf(),
        source,
    })
}

/// Why settings could not be resolved.
///
/// ```
/// use mcpconf::settings::{Settings, SettingsError};
///
/// let dir = std::env::temp_dir();
/// let e = Settings::builder().root(&dir).home(&dir).workspace("no/slashes").build().unwrap_err();
/// assert!(matches!(e, SettingsError::Workspace(_)));
/// assert_eq!(e.code(), mcpconf::diag::Code::InvalidWorkspace);
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum SettingsError {
    /// No home was given and `$HOME` is not set (or, for [`Settings::builder`], no home was
    /// given).
    NoHome,
    /// [`Settings::builder`] was given neither a root nor a manifest.
    NoRoot,
    /// `--workspace` names no valid workspace.
    Workspace(String),
    /// A path could not be made absolute (the current directory is gone).
    Path {
        /// The path as given.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::NoHome => f.write_str("HOME is not set; pass --home DIR"),
            SettingsError::NoRoot => f.write_str("no root: give the settings a root or a manifest"),
            SettingsError::Workspace(w) => f.write_str(&workspace_rule(w)),
            SettingsError::Path { path, source } => write!(f, "`{}`: {source}", path.display()),
        }
    }
}

impl SettingsError {
    /// The stable code: `invalid-workspace`, `not-found` (no home) or `io-error`.
    pub fn code(&self) -> crate::diag::Code {
        use crate::diag::Code;
        match self {
            SettingsError::NoHome | SettingsError::NoRoot => Code::NotFound,
            SettingsError::Workspace(_) => Code::InvalidWorkspace,
            SettingsError::Path { .. } => Code::IoError,
        }
    }
}

impl std::error::Error for SettingsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SettingsError::NoHome | SettingsError::NoRoot | SettingsError::Workspace(_) => None,
            SettingsError::Path { source, .. } => Some(source),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_values_are_kept_and_made_absolute() {
        let s = Settings::builder()
            .manifest("m.toml")
            .root("r")
            .home("/h")
            .state_dir("/s")
            .lock_timeout(Duration::from_secs(3))
            .codex_home(Some(PathBuf::from("/c")))
            .build()
            .unwrap();
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(s.manifest, cwd.join("m.toml"));
        assert_eq!(s.root, cwd.join("r"));
        assert_eq!(s.home, PathBuf::from("/h"));
        assert_eq!(s.state_dir, PathBuf::from("/s"));
        assert_eq!(s.lock_timeout, Duration::from_secs(3));
        assert_eq!(s.client_homes.codex_home, Some(PathBuf::from("/c")));
        // An explicit home turns $XDG_CONFIG_HOME off.
        assert_eq!(s.xdg_config_home, None);
    }

    #[test]
    fn the_state_dir_defaults_under_the_home_without_variables() {
        let s = Settings::builder().root("/r").home("/h").build().unwrap();
        assert_eq!(s.state_dir, PathBuf::from("/h/.local/state/mcpconf"));
        assert_eq!(s.lock_timeout, DEFAULT_LOCK_TIMEOUT);
    }

    #[test]
    fn client_home_variables_are_read_as_each_client_reads_them() {
        let os = |s: &str| Some(OsString::from(s));
        // Goose: only an absolute path, taken as it is.
        assert_eq!(goose_path_root(None), None);
        assert_eq!(goose_path_root(os("")), None);
        assert_eq!(goose_path_root(os("rel/root")), None);
        assert_eq!(goose_path_root(os(" /g")), None);
        assert_eq!(goose_path_root(os("/g ")), Some(PathBuf::from("/g ")));
        // Hermes: stripped like Python's `str.strip`; blank is unset; relative is kept.
        assert_eq!(hermes_home(None), None);
        assert_eq!(hermes_home(os(" \t\n\u{1f}\u{a0}")), None);
        assert_eq!(hermes_home(os(" /h\n")), Some(PathBuf::from("/h")));
        assert_eq!(
            hermes_home(os("\u{3000}rel h ")),
            Some(PathBuf::from("rel h"))
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let raw = OsString::from_vec(b"\t/h\xff \x1c".to_vec());
            let want = OsString::from_vec(b"/h\xff".to_vec());
            assert_eq!(hermes_home(Some(raw)), Some(PathBuf::from(want)));
        }
        // Continue: `path.resolve` folds `.` and `..` by name, above the root stays the root.
        assert_eq!(fold_dots(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(fold_dots(Path::new("/../a")), PathBuf::from("/a"));
        // OpenHands: as given (no strip, no `~`), and empty is the current directory, which
        // `abs` makes the current directory's own path.
        assert_eq!(openhands_dir(None), None);
        assert_eq!(openhands_dir(os(" ~/o ")), Some(PathBuf::from(" ~/o ")));
        assert_eq!(openhands_dir(os("")), Some(PathBuf::from(".")));
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(abs(Path::new(".")).unwrap(), cwd);
    }

    #[test]
    fn the_builder_overrides_each_client_home() {
        let s = Settings::builder()
            .root("/r")
            .home("/h")
            .codex_home(None)
            .vibe_home(None)
            .goose_path_root(Some(PathBuf::from("/g")))
            .hermes_home(Some(PathBuf::from("hh")))
            .continue_global_dir(None)
            .copilot_home(Some(PathBuf::from("/c/./d/..")))
            .kimi_code_home(Some(PathBuf::from("/k")))
            .openhands_persistence_dir(None)
            .build()
            .unwrap();
        let cwd = std::env::current_dir().unwrap();
        let h = &s.client_homes;
        assert_eq!(h.goose_path_root, Some(PathBuf::from("/g")));
        assert_eq!(h.hermes_home, Some(cwd.join("hh")));
        assert_eq!((&h.codex_home, &h.vibe_home), (&None, &None));
        assert_eq!(h.continue_global_dir, None);
        assert_eq!(
            h.dirs().collect::<Vec<_>>(),
            [
                &PathBuf::from("/g"),
                &cwd.join("hh"),
                &PathBuf::from("/c/./d/.."),
                &PathBuf::from("/k")
            ]
        );
    }

    #[test]
    fn errors_are_std_errors_with_todays_text() {
        let e: Box<dyn std::error::Error> = Box::new(SettingsError::NoHome);
        assert_eq!(e.to_string(), "HOME is not set; pass --home DIR");
    }
}
