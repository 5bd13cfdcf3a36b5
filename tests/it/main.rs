//! The integration tests, as one test binary: `cargo test --test it [FILTER]`.
//!
//! Each module is one area (its file says what it covers); `common` holds what they share:
//! the binary under test and its scratch environments (`common::Env`, `common::Scratch`),
//! bounded process runs, strace helpers and the one snapshot helper (`common::snapshot`,
//! `MCPCONF_BLESS=1` rewrites snapshots). One binary builds and links once, and a failing
//! area no longer hides the areas cargo would have run after it.
//!
//! New integration tests go into `tests/it/<area>.rs` (a module listed here), not into new
//! `tests/*.rs` binaries.

mod common;

mod action;
mod ansible;
mod canary;
mod cli;
mod client_docs;
mod client_facts;
mod client_refusals;
mod client_state;
mod client_variables;
mod concurrency;
mod corpus;
mod crash;
mod dialects;
mod disable;
mod embed;
mod fixtures;
mod foreign_writer;
mod fourth_clients;
mod fs_safety;
mod fuzz_corpus;
mod getting_started;
mod give_back;
mod homes;
mod inputs;
mod inventory;
mod io_errors;
mod issue45;
mod lint;
mod openab;
mod operator;
mod own_files;
mod permissions;
mod policy;
mod probe;
mod probe_real;
mod profiles;
mod readme;
mod real_clients;
mod real_fs_errors;
mod registry;
mod scale;
mod secrets;
mod secrets_argv;
mod takeover;
mod trial;
mod watch;
mod workspaces;
mod yaml_clients;
