//! The `switchboard` binary.
//!
//! `main` only parses the command line, sets up logging and reports failures; the commands
//! live in [`cli`]. The hidden `guard` command, which runs a stdio server for another
//! `switchboard` process, is run before the async runtime starts: it needs a process without
//! other threads, and it logs nothing of its own. Logs always go to stderr, because stdout carries command output, and for
//! `demo-server` the MCP protocol itself. The level comes from `RUST_LOG` (default `warn`); field values
//! are escaped ([`log_fields`]); each line names its module only when `RUST_LOG` asked for lines.
//!
//! By default the MCP library's own log lines are left out: when a server refuses a request,
//! rmcp logs the server's answer whole, and a server that echoes the request puts its bearer
//! token, headers and URL key in that line. Switchboard logs the same failure itself, with the
//! server's secrets cut out (`switchboard_mcp`'s connection manager). `RUST_LOG` brings rmcp's
//! lines back for debugging.

#[macro_use]
mod output;
mod cli;
mod demo;
mod import;
mod log_fields;
mod server_file;
mod settings;

use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let cli = cli::parse();
    match cli.command {
        // Before any thread exists: the guard blocks signals for the whole process.
        cli::Command::Guard(args) => cli::run_guard(args),
        command => run(cli::Cli { command, ..cli }),
    }
}

#[tokio::main]
async fn run(cli: cli::Cli) -> ExitCode {
    init_tracing();
    let json = cli.global.json;
    match cli::run(cli).await {
        Ok(code) => code,
        Err(error) => {
            tracing::debug!(?error, "command failed");
            cli::report(json, &error);
            ExitCode::FAILURE
        }
    }
}

fn init_tracing() {
    // A log line's target is a module path (`switchboard_mcp::manager::entry`): what someone
    // who set RUST_LOG is looking for, and noise to everyone else.
    let (filter, targets) = match EnvFilter::try_from_default_env() {
        Ok(asked) => (asked, true),
        Err(_) => (EnvFilter::new("warn,rmcp=off"), false),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(targets)
        .fmt_fields(log_fields::escaped())
        // Colours for a person at a terminal; a file or a journal gets plain text, where an
        // escape byte can only be someone's attempt at one (and is escaped, above).
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
}
