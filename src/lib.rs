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
//! - [`redact`], [`output`]: what may be shown, and how;
//! - [`probe`]: a small MCP client that starts the declared servers and checks tool pins.
//!
//! `examples/embed.rs` plans, shows the diff, applies and reads the status back, as a program
//! embedding mcpconf does.
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
pub mod known;
pub mod ledger;
pub mod lint;
pub mod manifest;
pub mod output;
pub mod plan;
pub mod probe;
pub mod redact;
pub mod saved;
pub mod scan;
pub mod server;
pub mod settings;
pub mod template;
pub mod text;
pub mod tomldoc;
#[cfg(feature = "cli")]
pub mod watch;
pub mod yamldoc;

#[cfg(feature = "cli")]
pub use commands::run;
