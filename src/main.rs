use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    ExitCode::from(mcpconf::run(mcpconf::cli::Cli::parse()))
}
