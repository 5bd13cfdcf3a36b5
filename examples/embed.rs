//! mcpconf as a library, the way a program such as openab embeds it: build settings and a
//! manifest in code, plan, show the diff, apply, and read the status back. Nothing here prints
//! but this example; the library only returns values.
//!
//! Run it with `cargo run --example embed` (it works in a temporary directory);
//! `tests/it/embed.rs` runs it too.
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::path::Path;

use mcpconf::engine::{self, ApplyOptions, Exit, Mode};
use mcpconf::known::Known;
use mcpconf::manifest::{Manifest, Server, Target, Transport};
use mcpconf::output::{self, Style};
use mcpconf::redact::Redactor;
use mcpconf::settings::Settings;
use mcpconf::template::Template;

/// Put one server into Cursor's project file under `dir/project`, with the ledger in
/// `dir/state`; returns the state of each entry mcpconf now owns.
pub fn run(dir: &Path) -> Result<Vec<engine::RecordStatus>, Box<dyn Error>> {
    // Where things are: exactly what is set here (the builder reads no environment variable
    // and discovers no manifest; `Settings::from_env()` resolves as the command line does).
    let settings = Settings::builder()
        .manifest(dir.join("mcpconf.toml"))
        .root(dir.join("project"))
        .home(dir.join("home"))
        .state_dir(dir.join("state"))
        .build()?;
    std::fs::create_dir_all(&settings.root)?;

    // What should be there: validated exactly as an `mcpconf.toml` would be.
    let manifest = Manifest::builder("openab")
        .server(Server {
            name: "browser".into(),
            transport: Transport::Stdio {
                command: Template::literal("agent-browser"),
                args: vec![Template::literal("mcp")],
                // A reference, not a secret: the client expands it when it starts the server.
                env: vec![("TOKEN".into(), Template::parse("${BROWSER_TOKEN}")?)],
                cwd: None,
                env_file: None,
            },
            tools: None,
            enabled: None,
            checks: Default::default(),
        })
        .target(Target::new("cursor"))
        .build(&Known)?;
    let owner = manifest.owner.clone();
    let mode = Mode::Apply { adopt: false };

    // Plan: reads only.
    let plan = engine::plan(&settings, Some(&manifest), &owner, mode);
    if plan.exit != Exit::Ok {
        return Err(format!("refused: {:?}", plan.errors).into());
    }
    // Show the diff, with every credential in the files it shows redacted (the manifest holds
    // only `${VAR}` references, but the user's files may hold secrets of their own).
    let red = mcpconf::scan::redactor_for(&plan, &Redactor::default());
    print!(
        "{}",
        output::diffs_text(&plan, &red, Style { color: false })
    );

    // Apply: locks, re-plans under the locks, writes atomically, records ownership. `None`:
    // confirmed in advance (a closure instead would see the plan and say yes or no).
    let applied = engine::apply(
        &settings,
        ApplyOptions::new(&owner, mode).manifest(&manifest),
    );
    if applied.exit != Exit::Ok || !applied.applied {
        return Err(format!("not applied: {:?}", applied.errors).into());
    }
    print!(
        "{}",
        output::summary_text(&applied, &red, Style { color: false }, true)
    );

    // Status: every entry the owner's ledger records in this workspace, and whether it is
    // still as written (`true` instead of `false`: every workspace of the owner).
    let (_workspace, records) = engine::status(&settings, Some(&manifest), &owner, false)
        .map_err(|r| format!("{:?}", r.errors))?;
    for r in &records {
        println!("{:<8} {} in {}", r.state, r.server, r.path);
    }
    Ok(records)
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    run(dir.path())?;
    Ok(())
}
