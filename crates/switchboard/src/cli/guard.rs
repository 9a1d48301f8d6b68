//! `switchboard guard --parent PID -- PROGRAM [ARGS...]`, hidden: the watchdog this binary
//! runs between itself and each stdio server it starts ([`switchboard_mcp::guard`]), and the
//! choice of this binary as that guard for the commands that start servers.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use switchboard_mcp::guard::Guarded;

#[derive(Debug, clap::Args)]
pub struct GuardArgs {
    /// The process that started the guard; the server ends when it does.
    #[arg(long, value_name = "PID")]
    pub parent: u32,
    /// The server's program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<OsString>,
}

/// Runs the guard; call it before the async runtime starts any thread.
pub fn run(args: GuardArgs) -> ExitCode {
    let mut command = args.command.into_iter();
    let program = command.next().unwrap_or_default();
    ExitCode::from(switchboard_mcp::guard::run(&Guarded {
        parent: args.parent,
        program,
        args: command.collect(),
    }))
}

/// The guard for the stdio servers this process starts: this very binary. Without a path to
/// it, servers start unguarded, as they would with a library user's default configuration.
pub fn stdio_guard() -> Option<PathBuf> {
    match std::env::current_exe() {
        Ok(path) => Some(path),
        Err(error) => {
            tracing::warn!(
                %error,
                "cannot find this program's path; stdio servers will outlive it if it is killed"
            );
            None
        }
    }
}
