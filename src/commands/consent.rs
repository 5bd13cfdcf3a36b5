//! Consent before `probe --client` / `--all-clients` starts what a client file names: those
//! are the user's commands (`npx -y` downloads included), not the operator's manifest. They are
//! listed first (credentials hidden); on a terminal the user is asked, elsewhere nothing starts
//! without `--yes` (issue 41).

use super::*;
use crate::console::{eprint, eprintln};

/// `Ok(())` to go on: nothing local to start, `--yes`, or the user said yes. Otherwise the
/// exit code, the refusal printed.
pub(super) fn to_start(
    listed: &[(String, &Server)],
    red: &Redactor,
    yes: bool,
    json: bool,
) -> Result<(), u8> {
    let local: Vec<String> = listed
        .iter()
        .filter_map(|(id, s)| match &s.transport {
            Transport::Stdio { command, args, .. } => {
                let mut line = command.render(|v| format!("${{{v}}}"));
                for a in args {
                    line.push(' ');
                    line.push_str(&a.render(|v| format!("${{{v}}}")));
                }
                let line =
                    crate::redact::escape_controls_in(&red.redact(&line), false).into_owned();
                Some(format!("  {id}: {line}"))
            }
            Transport::Remote { .. } => None,
        })
        .collect();
    if local.is_empty() || yes {
        return Ok(());
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    eprintln!(
        "probe starts {} local server{} named in client files:",
        local.len(),
        if local.len() == 1 { "" } else { "s" }
    );
    for l in &local {
        eprintln!("{l}");
    }
    if interactive {
        eprint!("Start them? [y/N] ");
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        if matches!(line.trim(), "y" | "Y" | "yes" | "Yes" | "YES") {
            return Ok(());
        }
    }
    Err(Failure::usage(
        crate::diag::Code::NotConfirmed,
        if interactive {
            "nothing was started".to_string()
        } else {
            "not a terminal to ask, so nothing was started: these commands come from the client files, not from a manifest; pass --yes to start them".to_string()
        },
    )
    .print(json))
}
