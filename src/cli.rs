//! The command line, as clap derive types only: no I/O, no behaviour.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// `--version`: the crate version and the commit it was built from.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("MCPCONF_COMMIT"), ")");

/// Declarative, ownership-aware manager of MCP server entries in agent clients' config files.
#[derive(Debug, Parser)]
#[command(name = "mcpconf", version = VERSION, about, long_about = None)]
pub struct Cli {
    /// Options shared by the commands.
    #[command(flatten)]
    pub global: Global,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Options shared by the commands that read a manifest or targets.
#[derive(Debug, Args)]
pub struct Global {
    /// The manifest [default: $MCPCONF_MANIFEST, else the first mcpconf.toml from the current
    /// directory upward, stopping at a repository's top (a directory with `.git`)]
    #[arg(
        short,
        long,
        global = true,
        env = "MCPCONF_MANIFEST",
        value_name = "PATH"
    )]
    pub manifest: Option<PathBuf>,
    /// Base of project-scope targets [default: the manifest's directory]
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The ledger scope [default: the manifest's `workspace`, else the canonical --root]
    #[arg(long, global = true, value_name = "NAME")]
    pub workspace: Option<String>,
    /// The manifest's profile to apply, plan or check [default: its `profile`, if any]
    #[arg(long, global = true, value_name = "NAME")]
    pub profile: Option<String>,
    /// Base of user-scope targets [default: $HOME]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Where ledgers live [default: $MCPCONF_STATE_DIR, else $XDG_STATE_HOME/mcpconf, else ~/.local/state/mcpconf]
    #[arg(long, global = true, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Output for people or for programs (`sarif` and `github`: lint only).
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Colour (honours NO_COLOR).
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Seconds to wait for another writer.
    #[arg(long, global = true, default_value_t = 10.0, value_name = "SECS")]
    pub lock_timeout: f64,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    Text,
    /// One JSON document on stdout.
    Json,
    /// SARIF 2.1.0 (`lint` only).
    Sarif,
    /// GitHub Actions workflow commands (`lint` only).
    Github,
}

/// Colour choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show what apply would do, as diffs; writes nothing.
    Plan {
        /// Exit 1 when there are pending changes.
        #[arg(long)]
        check: bool,
        /// Save the plan (digests and actions, no content) for `apply PLAN`.
        #[arg(long, value_name = "PLAN")]
        out: Option<PathBuf>,
        /// Plan as `apply --take-over NAME` would (repeatable); with --out, the saved plan
        /// takes them over when applied.
        #[arg(long, value_name = "NAME")]
        take_over: Vec<String>,
        /// Plan as `apply --replace NAME` would (repeatable); with --out, the saved plan
        /// replaces them when applied.
        #[arg(long, value_name = "NAME")]
        replace: Vec<String>,
        /// Show what `prune` would do instead (with --check: exit 1 when it would change
        /// anything).
        #[arg(long, conflicts_with = "out")]
        prune: bool,
        /// Plan as `apply --adopt` would (unowned entries equal to the manifest show as
        /// `adopt`); with --out, the saved plan adopts them when applied.
        #[arg(long, conflicts_with = "prune")]
        adopt: bool,
    },
    /// Make the files match the manifest (or apply a saved plan exactly).
    Apply {
        /// A plan saved by `plan --out`; refused if anything changed since.
        #[arg(value_name = "PLAN")]
        plan: Option<PathBuf>,
        /// Do not ask for confirmation.
        #[arg(short, long)]
        yes: bool,
        /// Record unowned entries that already equal the manifest as ours (semantically equal,
        /// or equal once the manifest's `${VAR}` references are expanded: then the reference
        /// replaces the literal).
        #[arg(long)]
        adopt: bool,
        /// Keep applying as the files change (until SIGINT/SIGTERM), one line per event;
        /// writes without asking, like --yes.
        #[arg(long, conflicts_with_all = ["plan", "adopt"])]
        watch: bool,
        /// Refuse per file instead of per run: write every file that can be edited safely,
        /// leave the others byte-identical, exit 3 if any was refused.
        #[arg(long)]
        keep_going: bool,
        /// Replace another party's entry of this name (repeatable); its exact text is kept in
        /// a restore copy beside the ledger, and prune gives it back.
        #[arg(long, value_name = "NAME", conflicts_with = "plan")]
        take_over: Vec<String>,
        /// Replace another party's entry of this name for good (repeatable): no copy is kept,
        /// the entry is then ours, and prune removes it. For an old entry not worth giving back.
        #[arg(long, value_name = "NAME", conflicts_with = "plan")]
        replace: Vec<String>,
    },
    /// Remove everything the owner provably wrote.
    Prune {
        /// The owner [default: the manifest's owner].
        #[arg(long, value_name = "NAME")]
        owner: Option<String>,
        /// Do not ask for confirmation.
        #[arg(short, long)]
        yes: bool,
        /// Refuse per file instead of per run: write every file that can be edited safely,
        /// leave the others byte-identical, exit 3 if any was refused.
        #[arg(long)]
        keep_going: bool,
        /// Only show what prune would do (`plan --prune --check`): exit 1 when it would change
        /// anything, 0 when not; writes nothing.
        #[arg(long, conflicts_with = "yes")]
        dry_run: bool,
    },
    /// Ledger records and whether each is intact, drifted or missing.
    Status {
        /// The owner [default: the manifest's owner].
        #[arg(long, value_name = "NAME")]
        owner: Option<String>,
        /// Exit 1 when any record is drifted, missing or unreadable (for CI).
        #[arg(long)]
        check: bool,
        /// Every workspace of the owner, not only this one.
        #[arg(long)]
        all: bool,
    },
    /// Forget ownership of an entry without touching any file (it becomes the user's).
    Release {
        /// The server (entry name).
        server: String,
        /// Only in this client's files.
        #[arg(long, value_name = "ID")]
        client: Option<String>,
        /// The owner [default: the manifest's owner].
        #[arg(long, value_name = "NAME")]
        owner: Option<String>,
    },
    /// Resolve the manifest's registry servers from the MCP registry into `mcpconf.lock`.
    Lock {
        /// The registry's base URL [default: the official MCP registry].
        #[arg(long, value_name = "URL", env = "MCPCONF_REGISTRY")]
        registry: Option<String>,
        /// Seconds each registry request gets.
        #[arg(long, default_value_t = 30.0, value_name = "SECS")]
        timeout: f64,
        /// A PEM file of CA certificates to trust for an `https://` registry, on top of the
        /// system's roots and `SSL_CERT_FILE` / `SSL_CERT_DIR`.
        #[arg(long, value_name = "FILE")]
        cacert: Option<std::path::PathBuf>,
        /// The HTTP proxy for every request (`http://[user:password@]host[:port]`), instead of
        /// HTTPS_PROXY / HTTP_PROXY / ALL_PROXY; `none`: no proxy. NO_PROXY still applies.
        #[arg(long, value_name = "URL")]
        proxy: Option<String>,
    },
    /// Print a manifest for what a client file holds today.
    Import {
        /// The client [required unless --all]. A client whose file is a glob (Kiro agents)
        /// imports every file it matches.
        #[arg(long, value_name = "ID", required_unless_present = "all")]
        client: Option<String>,
        /// Every client file found under --root and --home, into one manifest: each server
        /// once, one target per file.
        #[arg(long, conflicts_with_all = ["client", "scope", "path"])]
        all: bool,
        /// The scope [default: the client's default].
        #[arg(long, value_name = "SCOPE")]
        scope: Option<String>,
        /// The file, relative to the scope's base [default: the client's file].
        #[arg(long, value_name = "PATH")]
        path: Option<String>,
        /// The owner written into the manifest.
        #[arg(long, value_name = "NAME", default_value = "imported")]
        owner: String,
        /// Import only this entry (repeatable) [default: every entry of the file].
        #[arg(long, value_name = "NAME")]
        server: Vec<String>,
    },
    /// Start each declared server, speak MCP, check tool pins.
    Probe {
        /// The servers to probe [default: every declared server].
        #[arg(value_name = "SERVER")]
        servers: Vec<String>,
        /// Seconds each server gets for the whole exchange.
        #[arg(long, default_value_t = 30.0, value_name = "SECS")]
        timeout: f64,
        /// Print the discovered tools as `tools = [...]` pins, as a diff of the manifest (never
        /// written).
        #[arg(long)]
        write_pins: bool,
        /// A PEM file of CA certificates to trust for `https://` servers, on top of the
        /// system's roots and `SSL_CERT_FILE` / `SSL_CERT_DIR`.
        #[arg(long, value_name = "FILE")]
        cacert: Option<std::path::PathBuf>,
        /// The HTTP proxy for every remote server (`http://[user:password@]host[:port]`),
        /// instead of HTTPS_PROXY / HTTP_PROXY / ALL_PROXY; `none`: no proxy. NO_PROXY still
        /// applies.
        #[arg(long, value_name = "URL")]
        proxy: Option<String>,
        /// Also check that the server answers an unknown method with JSON-RPC error -32601 and
        /// a call of an unknown tool with an error.
        #[arg(long)]
        smoke: bool,
        /// Probe the entries of this client's file instead of the manifest's servers.
        #[arg(long, value_name = "ID", conflicts_with = "write_pins")]
        client: Option<String>,
        /// Probe the entries of every client file found under --root and --home.
        #[arg(long, conflicts_with_all = ["write_pins", "client"])]
        all_clients: bool,
        /// With --client: the scope [default: the client's default].
        #[arg(long, value_name = "SCOPE", requires = "client")]
        scope: Option<String>,
        /// With --client: the file, relative to the scope's base [default: the client's file].
        #[arg(long, value_name = "PATH", requires = "client")]
        path: Option<String>,
        /// With --client or --all-clients: start the local servers the files name without
        /// asking (they are listed first; without a terminal to ask, nothing starts without it).
        #[arg(short, long)]
        yes: bool,
    },
    /// The supported clients, their ids, scopes and paths.
    Clients,
    /// Every MCP server configured on this machine: each known client file under --root and
    /// --home, every scope, one row per server (client, scope, file, name, transport, command
    /// or URL with credentials hidden, enabled, owner, state); text or JSON. Writes nothing.
    Inventory {
        /// More project roots (directories): their project files too.
        #[arg(value_name = "DIR")]
        dirs: Vec<std::path::PathBuf>,
        /// Every repository under DIR (a directory holding `.git`, up to 6 levels down) is a
        /// project root too (repeatable).
        #[arg(long, value_name = "DIR")]
        discover: Vec<std::path::PathBuf>,
    },
    /// Write the manifest's `[policy]` into each client's own admin files (Claude Code's
    /// managed settings, Codex's requirements, Gemini CLI's system settings), or report what
    /// each client can enforce.
    Policy {
        /// What to do.
        #[command(subcommand)]
        action: PolicyAction,
        /// Put the system paths (`/etc/...`) under DIR instead of `/` (packaging, MDM
        /// payloads, tests).
        #[arg(long, value_name = "DIR", global = true)]
        system_root: Option<PathBuf>,
    },
    /// Print the manifest's JSON Schema.
    Schema,
    /// Print shell completions.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), generated from this command line.
    Man,
    /// Check client config files (for CI): parse errors, duplicate servers, literal secrets, …
    Lint(LintArgs),
}

/// `mcpconf lint` options.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files to check (a directory: its project files); none: every known client file under
    /// --root and --home.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The client that reads the given files [default: detected from each path].
    #[arg(long, value_name = "ID")]
    pub client: Option<String>,
    /// Report RULE as an error (repeatable, or comma-separated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub deny: Vec<String>,
    /// Report RULE as a warning (repeatable, or comma-separated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub warn: Vec<String>,
    /// Do not report RULE (repeatable, or comma-separated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub allow: Vec<String>,
}

/// The shared options each command does not use: hidden from its `--help` (still accepted, so
/// `mcpconf --home X clients` keeps working). An option not named here shows everywhere.
const UNUSED: &[(&str, &[&str])] = &[
    ("plan", &["lock_timeout"]),
    ("status", &["color", "lock_timeout"]),
    ("release", &["color"]),
    (
        "import",
        &[
            "manifest",
            "state_dir",
            "workspace",
            "color",
            "lock_timeout",
        ],
    ),
    (
        "probe",
        &["state_dir", "workspace", "color", "lock_timeout"],
    ),
    (
        "clients",
        &[
            "manifest",
            "root",
            "home",
            "state_dir",
            "workspace",
            "color",
            "lock_timeout",
        ],
    ),
    (
        "schema",
        &[
            "manifest",
            "root",
            "home",
            "state_dir",
            "workspace",
            "format",
            "color",
            "lock_timeout",
        ],
    ),
    (
        "completions",
        &[
            "manifest",
            "root",
            "home",
            "state_dir",
            "workspace",
            "format",
            "color",
            "lock_timeout",
        ],
    ),
    (
        "man",
        &[
            "manifest",
            "root",
            "home",
            "state_dir",
            "workspace",
            "format",
            "color",
            "lock_timeout",
        ],
    ),
    ("lint", &["workspace", "lock_timeout"]),
    (
        "lock",
        &[
            "root",
            "home",
            "state_dir",
            "workspace",
            "color",
            "lock_timeout",
        ],
    ),
];

/// The command line with each subcommand's `--help` showing only the options it uses, and
/// `--format` offering `sarif` and `github` only on `lint`.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let globals = globals(&cmd);
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    names.iter().fold(cmd, |cmd, name| {
        cmd.mut_subcommand(name, |sc| own_globals(sc, name, &globals))
    })
}

/// [`command`] with `lint` its only subcommand: what parses a plain `lint` line
/// ([`lint_paths`]) without building every other command's options (0.3 ms).
fn lint_command() -> clap::Command {
    use clap::Args;
    let root = Global::augment_args(clap::Command::new("mcpconf").version(VERSION));
    let globals = globals(&root);
    let lint = LintArgs::augment_args(clap::Command::new("lint"));
    root.subcommand(own_globals(lint, "lint", &globals))
        .subcommand_required(true)
}

/// The global options of a command line.
fn globals(cmd: &clap::Command) -> Vec<clap::Arg> {
    cmd.get_arguments()
        .filter(|a| a.is_global_set())
        .cloned()
        .collect()
}

/// A subcommand with its own copies of the global options it does not use (hidden from its
/// `--help`) and, but on `lint`, a `--format` that offers `text` and `json` only.
fn own_globals(mut sc: clap::Command, name: &str, globals: &[clap::Arg]) -> clap::Command {
    let unused: &[&str] = UNUSED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, u)| *u)
        .unwrap_or(&[]);
    // A subcommand's own copy of a global option is kept when globals propagate.
    for a in globals.iter().cloned() {
        let id = a.get_id().as_str();
        if unused.contains(&id) {
            sc = sc.arg(a.hide(true));
        } else if id == "format" && name != "lint" {
            sc = sc.arg(
                a.hide_possible_values(true)
                    .help("Output for people or for programs: `text` or `json`"),
            );
        }
    }
    sc
}

/// Parse the process's arguments with [`command`] (exits on a usage error or `--help`).
pub fn parse() -> Cli {
    try_parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit())
}

/// Parse `args` (the program's name first) with [`command`]: what clap makes of them. A plain
/// `lint` line has its paths taken aside first and the rest parsed by a command with `lint`
/// as its only subcommand (the same answers, faster for thousands of paths).
pub fn try_parse_from(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let lint = args.iter().any(|a| a == "lint").then(lint_command);
    let Some((cmd, aside)) = lint.and_then(|c| lint_paths(&c, &args).map(|a| (c, a))) else {
        let mut matches = command().try_get_matches_from(&args)?;
        // `_mut`: takes the values out (`from_arg_matches` clones every one first).
        return Cli::from_arg_matches_mut(&mut matches);
    };
    let rest = args.iter().zip(&aside).filter(|(_, a)| **a == Aside::Keep);
    let mut matches = match cmd.try_get_matches_from(rest.map(|(a, _)| a)) {
        Ok(m) => m,
        // Said as clap says it with the paths there (its usage line names what it was given).
        Err(_) => command().try_get_matches_from(&args)?,
    };
    let mut cli = Cli::from_arg_matches_mut(&mut matches)?;
    if let Command::Lint(l) = &mut cli.command {
        l.paths = args
            .into_iter()
            .zip(aside)
            .filter(|(_, a)| *a == Aside::Path)
            .map(|(p, _)| PathBuf::from(p))
            .collect();
    }
    Ok(cli)
}

/// What [`lint_paths`] does with an argument.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Aside {
    /// Left to clap.
    Keep,
    /// One of `lint`'s paths.
    Path,
    /// The `--` before paths (clap keeps it nowhere).
    Drop,
}

/// Which of `args` are the paths given to `lint`, to be taken aside before clap parses the
/// rest; `None` when the line is not plainly a `lint`.
///
/// `xargs` gives `lint` thousands of paths, and clap keeps three copies of each one and
/// checks it as a value in turn: about 0.6 µs and 400 bytes a path, a sixth of a lint's time
/// before its first file is read. `lint`'s paths are its only positional values and it has
/// no subcommand, so a value that is neither an option nor an option's value is one of them:
/// they are taken aside when every option before and after `lint` is a long one clap knows
/// (taking one value, or none) and the rest is left to clap, which then parses what it would
/// have parsed with them there. Anything else (a short option, an unknown one, `--help`)
/// leaves the whole line to clap. A property test holds the two to the same answers.
fn lint_paths(cmd: &clap::Command, args: &[std::ffi::OsString]) -> Option<Vec<Aside>> {
    let lint = cmd.find_subcommand("lint")?;
    // Whether the long option `--name` takes a value: `None` when clap does not know it or it
    // takes anything but exactly one value.
    let takes_value = |name: &str| -> Option<bool> {
        let a = cmd
            .get_arguments()
            .chain(lint.get_arguments())
            .find(|a| a.get_long() == Some(name))?;
        let one = a
            .get_num_args()
            .is_none_or(|n| n.min_values() == 1 && n.max_values() == 1);
        if a.is_require_equals_set() || !one {
            return None;
        }
        Some(a.get_action().takes_values())
    };
    // How many arguments the option at `args[i]` takes up (itself and its value); `None`
    // when it is not a long option known as above.
    let option = |i: usize| -> Option<usize> {
        let long = args[i].to_str()?.strip_prefix("--")?;
        let (name, inline) = match long.split_once('=') {
            Some((n, _)) => (n, true),
            None => (long, false),
        };
        match takes_value(name)? {
            true if !inline => Some(2),
            _ => Some(1),
        }
    };
    let mut i = 1;
    while args.get(i)? != "lint" {
        i += option(i)?;
    }
    let mut aside = vec![Aside::Keep; args.len()];
    i += 1;
    while let Some(a) = args.get(i) {
        let b = a.as_encoded_bytes();
        if b == b"--" {
            aside[i] = Aside::Drop;
            aside[i + 1..].fill(Aside::Path);
            break;
        }
        if b.starts_with(b"-") && b != b"-" {
            i += option(i)?;
            continue;
        }
        aside[i] = Aside::Path;
        i += 1;
    }
    Some(aside)
}

/// The man page (roff): the usual sections, then every command with its own options in one
/// COMMANDS section (no `mcpconf-plan(1)` references to pages that are not installed).
pub fn man_page() -> Vec<u8> {
    let mut cmd = command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    let _ = man.render_title(&mut out);
    let _ = man.render_name_section(&mut out);
    let _ = man.render_synopsis_section(&mut out);
    let _ = man.render_description_section(&mut out);
    let _ = man.render_options_section(&mut out);
    let mut s = String::from(".SH COMMANDS\n");
    for sc in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
        if sc.get_name() == "help" {
            continue;
        }
        let mut usage = String::new();
        for a in sc
            .get_arguments()
            .filter(|a| !a.is_global_set() && !a.is_hide_set())
        {
            let id = a.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            let value = a
                .get_value_names()
                .and_then(|v| v.first())
                .map(|v| v.to_string())
                .unwrap_or_else(|| id.to_uppercase());
            let takes_value = a.get_action().takes_values();
            usage.push(' ');
            match a.get_long() {
                Some(l) if takes_value => usage.push_str(&format!("[\\-\\-{l} {value}]")),
                Some(l) => usage.push_str(&format!("[\\-\\-{l}]")),
                None => usage.push_str(&format!("[{value}]")),
            }
        }
        s.push_str(&format!(
            ".TP\n\\fBmcpconf {}\\fR{}\n",
            sc.get_name(),
            roff(&usage)
        ));
        if let Some(about) = sc.get_about() {
            s.push_str(&roff(&about.to_string()));
            s.push('\n');
        }
        for a in sc
            .get_arguments()
            .filter(|a| !a.is_global_set() && !a.is_hide_set())
        {
            let (Some(l), Some(help)) = (a.get_long(), a.get_help()) else {
                continue;
            };
            if l == "help" || l == "version" {
                continue;
            }
            s.push_str(&format!(".br\n\\-\\-{l}: {}\n", roff(&help.to_string())));
        }
    }
    out.extend_from_slice(s.as_bytes());
    let _ = man.render_version_section(&mut out);
    out
}

/// Escape text for roff: backslashes, and a leading `.` or `'` that would start a request.
fn roff(text: &str) -> String {
    let t = text.replace('\\', "\\\\").replace("\\\\-", "\\-");
    match t.chars().next() {
        Some('.') | Some('\'') => format!("\\&{t}"),
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// What clap makes of `args` on its own (the paths left in).
    fn by_clap(args: &[OsString]) -> Result<Cli, clap::Error> {
        use clap::FromArgMatches;
        let mut m = command().try_get_matches_from(args)?;
        Cli::from_arg_matches_mut(&mut m)
    }

    fn same(args: &[OsString]) -> Result<(), String> {
        let show = |r: Result<Cli, clap::Error>| match r {
            Ok(c) => format!("{c:?}"),
            Err(e) => format!("{:?}: {e}", e.kind()),
        };
        let (ours, clap) = (show(try_parse_from(args.to_vec())), show(by_clap(args)));
        if ours == clap {
            Ok(())
        } else {
            Err(format!("{args:?}:\n ours: {ours}\n clap: {clap}"))
        }
    }

    /// Taking `lint`'s paths aside gives what clap gives with them there, for lines made of
    /// options, their values, paths, `--` and other commands in any order.
    #[test]
    fn lint_paths_parse_as_clap_parses_them() {
        use proptest::prelude::*;
        let tokens = prop::sample::select(vec![
            "lint",
            "plan",
            "a.json",
            "b",
            "-",
            "--",
            "--home",
            "--home=h",
            "--deny",
            "secret-file-mode,drift",
            "--allow",
            "x",
            "--client",
            "cursor",
            "--format",
            "sarif",
            "--format=json",
            "--color",
            "never",
            "--lock-timeout",
            "3",
            "-m",
            "m.toml",
            "--help",
            "--bogus",
            "-x",
            "--root",
            "--workspace=w",
            "lint",
        ]);
        proptest!(ProptestConfig::with_cases(1000), |(line in prop::collection::vec(tokens, 0..9))| {
            let mut args = vec![OsString::from("mcpconf")];
            args.extend(line.iter().map(OsString::from));
            prop_assert!(same(&args).is_ok(), "{}", same(&args).unwrap_err());
        });
        // Paths that are not UTF-8 or look like options after `--`, and paths around options.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let odd = OsString::from_vec(vec![b'p', 0xff]);
            let args: Vec<OsString> = [
                "mcpconf", "--home", "h", "lint", "a", "--deny", "drift", "b",
            ]
            .iter()
            .map(OsString::from)
            .chain([odd.clone(), "--".into(), "--deny".into(), "--".into(), odd])
            .collect();
            same(&args).unwrap();
            let cli = try_parse_from(args).unwrap();
            let Command::Lint(l) = cli.command else {
                panic!("lint")
            };
            assert_eq!(l.paths.len(), 6, "{:?}", l.paths);
            assert_eq!(l.deny, ["drift"]);
        }
    }

    /// The paths are taken aside for a plain lint (what the test above cannot tell apart).
    #[test]
    fn a_plain_lint_has_its_paths_taken_aside() {
        let args: Vec<OsString> = ["mcpconf", "--home", "h", "lint", "a", "--allow=drift", "b"]
            .iter()
            .map(OsString::from)
            .collect();
        use Aside::{Keep, Path};
        assert_eq!(
            lint_paths(&command(), &args),
            Some(vec![Keep, Keep, Keep, Keep, Path, Keep, Path])
        );
        let short: Vec<OsString> = ["mcpconf", "lint", "-m", "x", "a"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(lint_paths(&command(), &short), None);
    }
}

/// `mcpconf policy` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum PolicyAction {
    /// Show the admin files' diffs; writes nothing.
    Plan {
        /// Exit 1 when there are pending changes.
        #[arg(long)]
        check: bool,
    },
    /// Write the admin files (as root for the system's own paths).
    Apply {
        /// Do not ask for confirmation.
        #[arg(short, long)]
        yes: bool,
        /// Refuse per file instead of per run.
        #[arg(long)]
        keep_going: bool,
    },
    /// Remove everything the policy wrote, giving back each admin file as it was.
    Prune {
        /// Do not ask for confirmation.
        #[arg(short, long)]
        yes: bool,
        /// Refuse per file instead of per run.
        #[arg(long)]
        keep_going: bool,
        /// Only show what prune would do: exit 1 when it would change anything.
        #[arg(long, conflicts_with = "yes")]
        dry_run: bool,
    },
    /// Per client: what it will enforce, what it cannot express, and the clients with no
    /// admin control at all. Writes nothing.
    Report,
}
