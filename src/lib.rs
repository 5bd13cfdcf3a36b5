//! mcpconf: a declarative, ownership-aware manager for the MCP server entries that agent
//! clients (Claude Code, Cursor, Kiro, …) read from their own config files.
//!
//! The pieces, from the outside in:
//! - `cli` (clap types), `commands` (prints, through `console`): the command line, behind the
//!   default `cli` feature; an embedder turns it off and calls the library directly;
//! - [`settings`]: where things are ([`settings::Settings::from_env`], `::builder()`);
//! - [`engine`]: plan / apply / prune / status, orchestrating locks and the ledger journal;
//! - [`plan`]: pure per-file planning — what to add, update, remove, refuse;
//! - [`manifest`] and [`template`]: the owner's desired state ([`manifest::parse`] or
//!   [`manifest::Manifest::builder`], the same checks);
//! - [`dialect`]: how each client spells an entry and where its files live;
//! - [`document`] / [`jsondoc`]: fail-closed parsing and format-preserving edits;
//! - [`ledger`]: ownership proof by content digest;
//! - [`lint`]: rules over client config files, for CI;
//! - [`fsio`]: every file system access (atomic replace, locks);
//! - [`redact`], [`scan`], [`output`]: what may be shown (the secret detector, the scan of the
//!   files a report shows), and how;
//! - [`probe`]: a small MCP client that starts the declared servers and checks tool pins;
//! - [`diag`]: the stable error codes every error carries.
//!
//! # Embedding
//!
//! Plan, show the diff, apply, read the status back, prune — what `examples/embed.rs` does at
//! more length. Nothing here prints; every function returns values.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpconf::engine::{self, ApplyOptions, Exit, Mode, RecordState};
//! use mcpconf::known::Known;
//! use mcpconf::output::{self, Style};
//! use mcpconf::redact::Redactor;
//! use mcpconf::settings::Settings;
//!
//! let dir = tempfile::tempdir()?;
//! let settings = Settings::builder()
//!     .manifest(dir.path().join("mcpconf.toml"))
//!     .root(dir.path())
//!     .home(dir.path())
//!     .state_dir(dir.path().join("state"))
//!     .build()?;
//! let manifest = mcpconf::manifest::parse(
//!     r#"
//! owner = "openab"
//!
//! [servers.browser]
//! command = "agent-browser"
//! env = { TOKEN = "${BROWSER_TOKEN}" }
//!
//! [[targets]]
//! client = "cursor"
//! "#,
//!     &Known,
//! )?;
//! let mode = Mode::Apply { adopt: false };
//!
//! // Plan: reads only. Show the diff with every credential of the files redacted.
//! let plan = engine::plan(&settings, Some(&manifest), "openab", mode);
//! assert_eq!(plan.exit, Exit::Ok);
//! assert!(plan.changed);
//! let red = mcpconf::scan::redactor_for(&plan, &Redactor::default());
//! let diff = output::diffs_text(&plan, &red, Style { color: false });
//! assert!(diff.contains("agent-browser"));
//!
//! // Apply: under locks, atomically, recording what was written (`None`: no confirmation).
//! let applied = engine::apply(&settings, ApplyOptions::new("openab", mode).manifest(&manifest));
//! assert!(applied.applied, "{applied}");
//! let file = dir.path().join(".cursor/mcp.json");
//! assert!(std::fs::read_to_string(&file)?.contains("${env:BROWSER_TOKEN}"));
//!
//! // Status: what the owner's ledger records, and whether it is still as written.
//! let (_workspace, records) = engine::status(&settings, Some(&manifest), "openab", false)?;
//! assert_eq!(records[0].state, RecordState::Intact);
//!
//! // Prune: remove what the owner provably wrote (here the whole file, which mcpconf created).
//! let pruned = engine::apply(&settings, ApplyOptions::new("openab", Mode::Prune).manifest(&manifest));
//! assert!(pruned.applied, "{pruned}");
//! assert!(!file.exists());
//! # Ok(())
//! # }
//! ```
//!
//! Errors are types with a stable [`diag::Code`] and implement [`std::error::Error`]; the
//! engine's entry points return an [`engine::Report`] whose `errors` are [`diag::Diagnostic`]s
//! (the `errors[]` of `--format json`) and whose `exit` is the command line's exit code.
#![deny(clippy::print_stdout, clippy::print_stderr)]

/// serde_json, whose `Value` appears in the API (legacy entries, parsed documents): use this one
/// to be sure the versions match.
pub use serde_json;

#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod commands;
#[cfg(feature = "cli")]
pub mod console;
pub mod diag;
pub mod dialect;
pub mod document;
pub mod engine;
pub mod fsio;
#[doc(hidden)]
pub mod fuzzing;
pub mod import;
/// Splice edits of string elements in a JSON array (now part of [`jsondoc`]).
pub use jsondoc::array as jsonarray;
pub mod jsondoc;
pub mod keyed;
pub mod keyed_json;
pub mod known;
pub mod ledger;
pub mod lint;
pub mod manifest;
pub mod output;
pub mod plan;
pub mod policy;
pub mod probe;
pub mod redact;
pub mod registry;
pub mod saved;
pub mod scan;
pub mod server;
pub mod settings;
pub mod template;
pub mod text;
pub mod toml10;
pub mod tomldoc;
#[cfg(feature = "cli")]
pub mod watch;
pub mod yamldoc;

#[cfg(feature = "cli")]
pub use commands::{run, run_args};
