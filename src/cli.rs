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
    /// Print a manifest for what a client file holds today.
    Import {
        /// The client.
        #[arg(long, value_name = "ID")]
        client: String,
        /// The scope [default: the client's default].
        #[arg(long, value_name = "SCOPE")]
        scope: Option<String>,
        /// The file, relative to the scope's base [default: the client's file].
        #[arg(long, value_name = "PATH")]
        path: Option<String>,
        /// The owner written into the manifest.
        #[arg(long, value_name = "NAME", default_value = "imported")]
        owner: String,
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
    },
    /// The supported clients, their ids, scopes and paths.
    Clients,
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
];

/// The command line with each subcommand's `--help` showing only the options it uses, and
/// `--format` offering `sarif` and `github` only on `lint`.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let globals: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .cloned()
        .collect();
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        let unused: &[&str] = UNUSED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, u)| *u)
            .unwrap_or(&[]);
        let globals = globals.clone();
        cmd = cmd.mut_subcommand(&name, |mut sc| {
            // A subcommand's own copy of a global option is kept when globals propagate.
            for a in globals {
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
        });
    }
    cmd
}

/// Parse the process's arguments with [`command`] (exits on a usage error or `--help`).
pub fn parse() -> Cli {
    use clap::FromArgMatches;
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
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
