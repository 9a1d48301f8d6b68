//! The command line: argument definitions, dispatch, and how failures are reported.
//!
//! Each subcommand lives in its own file and returns `anyhow::Result<ExitCode>`; errors keep
//! their typed causes so [`report`] can find the documented [`ErrorCode`] anywhere in the chain
//! and print `error MCP_TIMEOUT: ...` (or `{"code", "message"}` with `--json`).
//!
//! `--data-dir` and `--json` are global: they may come before or after the subcommand.

mod call;
mod demo;
mod import;
mod manager;
mod schema;
mod servers;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use switchboard_core::{ErrorCode, SpecError};
use switchboard_mcp::McpError;

use crate::import::ImportError;
use crate::output;
use crate::server_file::{Clash, ServerFile, ServerFileError};

#[derive(Debug, Parser)]
#[command(
    name = "switchboard",
    version,
    about = "A self-hosted AI chat backend and MCP host",
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Where Switchboard keeps its data.
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "SWITCHBOARD_DATA_DIR",
        default_value = "./switchboard-data"
    )]
    pub data_dir: PathBuf,
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add, list, remove and test MCP servers.
    #[command(subcommand)]
    Servers(servers::ServersCommand),
    /// List the tools of the configured servers.
    #[command(subcommand)]
    Tools(tools::ToolsCommand),
    /// Call one tool of one server and print the result.
    Call(call::CallArgs),
    /// Import servers from a Claude Desktop, Cursor or VS Code configuration file.
    Import(import::ImportArgs),
    /// Run the built-in demo MCP server (stdio, or Streamable HTTP with --http).
    DemoServer(demo::DemoArgs),
    /// Convert tool schemas for an LLM provider's function calling.
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
}

/// What every command may need from the global options.
#[derive(Debug, Clone)]
pub struct Context {
    pub json: bool,
    pub data_dir: PathBuf,
}

impl Context {
    pub fn server_file(&self) -> ServerFile {
        ServerFile::in_dir(&self.data_dir)
    }
}

/// Failures of the command line itself, each with the code it is reported under.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("no server named `{0}` (see `switchboard servers list`)")]
    ServerNotFound(String),
    #[error("a server named `{0}` already exists; pass --replace to overwrite it")]
    Exists(String),
    #[error("{0}; choose another name")]
    IdTaken(#[source] Clash),
    #[error("--args must be a JSON object: {0}")]
    BadArguments(String),
    #[error("interrupted")]
    Interrupted,
    #[error("the tool reported an error")]
    ToolFailed,
}

impl CliError {
    fn code(&self) -> ErrorCode {
        match self {
            CliError::ServerNotFound(_) => ErrorCode::McpServerNotFound,
            CliError::Exists(_) | CliError::IdTaken(_) => ErrorCode::Conflict,
            CliError::BadArguments(_) => ErrorCode::McpInvalidParams,
            CliError::Interrupted => ErrorCode::Cancelled,
            CliError::ToolFailed => ErrorCode::McpExecutionError,
        }
    }
}

impl From<Clash> for CliError {
    fn from(clash: Clash) -> Self {
        match clash {
            Clash::SameName(name) => CliError::Exists(name),
            other => CliError::IdTaken(other),
        }
    }
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let context = Context {
        json: cli.global.json,
        data_dir: cli.global.data_dir,
    };
    match cli.command {
        Command::Servers(command) => servers::run(&context, command).await,
        Command::Tools(command) => tools::run(&context, command).await,
        Command::Call(args) => call::run(&context, args).await,
        Command::Import(args) => import::run(&context, args),
        Command::DemoServer(args) => demo::run(args).await,
        Command::Schema(command) => schema::run(command),
    }
}

/// Prints a failed command's error with its code; see [`crate::output`] for where it goes.
pub fn report(json: bool, error: &anyhow::Error) {
    output::print_error(json, code_of(error), &message_of(error));
}

/// The documented code of the first error in the chain that has one.
pub fn code_of(error: &anyhow::Error) -> Option<ErrorCode> {
    error.chain().find_map(|cause| {
        if let Some(e) = cause.downcast_ref::<CliError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<McpError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<ImportError>() {
            return Some(e.code());
        }
        if cause.is::<SpecError>() {
            return Some(ErrorCode::ValidationError);
        }
        cause
            .downcast_ref::<ServerFileError>()
            .map(ServerFileError::code)
    })
}

/// The error and its causes on one line. Many of our errors already quote their cause in
/// their own message, so a cause is only appended when it adds something.
pub fn message_of(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if !message.contains(&text) {
            if !message.is_empty() {
                message.push_str(": ");
            }
            message.push_str(&text);
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn global_options_go_before_or_after_the_subcommand() {
        let before = Cli::try_parse_from([
            "switchboard",
            "--json",
            "--data-dir",
            "/d",
            "servers",
            "list",
        ])
        .unwrap();
        let after = Cli::try_parse_from([
            "switchboard",
            "servers",
            "list",
            "--data-dir",
            "/d",
            "--json",
        ])
        .unwrap();
        for cli in [before, after] {
            assert!(cli.global.json);
            assert_eq!(cli.global.data_dir, PathBuf::from("/d"));
        }
    }

    #[test]
    fn codes_are_found_anywhere_in_the_chain() {
        let error =
            anyhow::Error::new(CliError::ServerNotFound("x".into())).context("while calling");
        assert_eq!(code_of(&error), Some(ErrorCode::McpServerNotFound));
        assert_eq!(code_of(&anyhow::anyhow!("plain")), None);
    }

    #[test]
    fn causes_already_quoted_are_not_repeated() {
        let io = std::io::Error::other("disk full");
        let error = anyhow::Error::new(ServerFileError::Write {
            path: "/d/servers.json".into(),
            source: io,
        });
        assert_eq!(
            message_of(&error),
            "cannot write /d/servers.json: disk full"
        );
        let wrapped = anyhow::anyhow!("inner").context("outer");
        assert_eq!(message_of(&wrapped), "outer: inner");
    }
}
