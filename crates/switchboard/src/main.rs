//! The `switchboard` binary.
//!
//! `main` only parses the command line, sets up logging and reports failures; the commands
//! live in [`cli`]. Logs always go to stderr, because stdout carries command output, and for
//! `demo-server` the MCP protocol itself. The level comes from `RUST_LOG` (default `warn`).
//!
//! By default the MCP library's own log lines are left out: when a server refuses a request,
//! rmcp logs the server's answer whole, and a server that echoes the request puts its bearer
//! token, headers and URL key in that line. Switchboard logs the same failure itself, with the
//! server's secrets cut out (`switchboard_mcp`'s connection manager). `RUST_LOG` brings rmcp's
//! lines back for debugging.

mod cli;
mod demo;
mod import;
mod output;
mod server_file;

use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = cli::parse();
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
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn,rmcp=off"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
