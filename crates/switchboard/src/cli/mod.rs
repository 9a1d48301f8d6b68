//! The command line: argument definitions, dispatch, and how failures are reported.
//!
//! Each subcommand lives in its own file and returns `anyhow::Result<ExitCode>`; errors keep
//! their typed causes so [`report`] can find the documented [`ErrorCode`] anywhere in the chain
//! and print `error MCP_TIMEOUT: ...` (or `{"code", "message"}` with `--json`).
//!
//! The global options ([`global`]) may come before or after the subcommand. Commands that work
//! on servers open the store through [`Context::servers`]; the others never touch it.

mod app;
mod call;
mod chat;
mod config;
mod demo;
mod global;
mod guard;
mod import;
mod legacy;
mod local;
mod login;
mod mcp;
mod node;
mod schema;
mod serve;
mod servers;
mod tool_nodes;
mod tools;
mod users;

use std::process::ExitCode;

use chat::ChatError;
use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use switchboard_agent::{AgentError, ToolCallError};
use switchboard_app::tool_nodes::{NodeRunError, NodeSaveError};
use switchboard_core::type_names::without_type_names;
use switchboard_core::{ErrorCode, SpecError};
use switchboard_mcp::McpError;
use switchboard_store::{StoreConfig, StoreError};

pub use global::GlobalArgs;
pub use guard::run as run_guard;
use local::LocalServers;

use crate::import::ImportError;
use crate::output;
use crate::server_file::ServerFileError;
use crate::settings::SettingsError;

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

/// Parses the process's arguments, exiting with clap's message when they do not fit.
pub fn parse() -> Cli {
    let mut command = Cli::command();
    let matches = command.get_matches_mut();
    if let Err(message) = global::refuse_secret_on_command_line(&matches) {
        command.error(ErrorKind::ArgumentConflict, message).exit();
    }
    let mut cli =
        Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.format(&mut command).exit());
    cli.global.origins = global::StoreOrigins::from_matches(&matches);
    cli
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the HTTP API (127.0.0.1:8080 by default) until SIGINT or SIGTERM.
    Serve(serve::ServeArgs),
    /// Run an MCP node: serve the MCP servers that hosts send it over gRPC.
    Node(node::NodeArgs),
    /// Add, list, remove and test MCP servers.
    #[command(subcommand)]
    Servers(servers::ServersCommand),
    /// List the tools of the configured servers.
    #[command(subcommand)]
    Tools(tools::ToolsCommand),
    /// Call one tool of one server and print the result.
    Call(call::CallArgs),
    /// List, add and run tool nodes: tools of a server with parameters filled from variables.
    #[command(subcommand)]
    ToolNodes(tool_nodes::ToolNodesCommand),
    /// Chat with a model that uses the servers' tools (a terminal, or one message per line of
    /// standard input).
    Chat(chat::ChatArgs),
    /// Import servers from a Claude Desktop, Cursor or VS Code configuration file.
    Import(import::ImportArgs),
    /// Serve the MCP gateway (every enabled server's tools, resources and prompts, or a
    /// view's) over stdio, for MCP clients that launch a command.
    Mcp(mcp::McpArgs),
    /// Run the built-in demo MCP server (stdio, or Streamable HTTP with --http).
    DemoServer(demo::DemoArgs),
    /// Convert tool schemas for an LLM provider's function calling.
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
    /// Add, list and remove the users of the HTTP API and their API tokens.
    #[command(subcommand)]
    Users(users::UsersCommand),
    /// Show the effective settings (defaults, switchboard.toml, SWITCHBOARD_* variables,
    /// flags) and where each came from.
    #[command(subcommand)]
    Config(config::ConfigCommand),
    /// Run one stdio server under a guard that ends it, and all it started, with its parent.
    #[command(hide = true)]
    Guard(guard::GuardArgs),
}

/// What every command may need from the global options.
#[derive(Debug, Clone)]
pub struct Context {
    pub json: bool,
    pub store: StoreConfig,
    /// The global options whole, for the commands that read the layered settings.
    pub global: GlobalArgs,
}

impl Context {
    /// Builds the application for the command line's own servers.
    pub async fn servers(&self) -> anyhow::Result<LocalServers> {
        LocalServers::open(
            &self.store,
            app::app_config(self)?,
            self.global.user.as_deref(),
        )
        .await
    }
}

/// Failures of the command line itself, each with the code it is reported under.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("no server named `{0}` (see `switchboard servers list`)")]
    ServerNotFound(String),
    #[error("no user named `{0}` (see `switchboard users list`)")]
    UserNotFound(String),
    #[error("no tool node named `{0}` (see `switchboard tool-nodes list`)")]
    NodeNotFound(String),
    #[error("no MCP view named `{0}` for this user")]
    ViewNotFound(String),
    /// Settings `serve` must not start with (see `ServerSettings::refusal`).
    #[error("{0}")]
    StartRefused(String),
    /// An address to listen on that cannot be had, said with what to do about it.
    #[error("cannot listen on {address}: {}", listen_reason(source))]
    CannotListen {
        address: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// `mcp` where no store is: it would serve an empty list.
    #[error(
        "no Switchboard data in {0}: run `switchboard serve` there first, or pass the server's \
         data directory with --data-dir (or SWITCHBOARD_DATA_DIR)"
    )]
    NoData(String),
    /// The store's conflict on a name or id, with what to do about it.
    #[error("{source}; {hint}")]
    Taken {
        #[source]
        source: StoreError,
        hint: &'static str,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Boxed: the application's error is large, and most commands never see one.
    #[error(transparent)]
    App(Box<switchboard_app::AppError>),
    #[error("--args must be a JSON object: {0}")]
    BadArguments(String),
    #[error("interrupted")]
    Interrupted,
    #[error("the tool reported an error")]
    ToolFailed,
}

impl From<switchboard_app::AppError> for CliError {
    fn from(error: switchboard_app::AppError) -> Self {
        CliError::App(Box::new(error))
    }
}

/// Why an address cannot be listened on, in words and with what to do.
fn listen_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::AddrInUse => "another program (or another Switchboard) already \
             listens there; stop it, or choose another address with --listen"
            .to_owned(),
        std::io::ErrorKind::PermissionDenied => "not allowed to listen there (ports below 1024 \
             need privileges); choose a port above 1024 with --listen"
            .to_owned(),
        std::io::ErrorKind::AddrNotAvailable => "no network interface of this machine has that \
             address; use 127.0.0.1, or an address of this machine, with --listen"
            .to_owned(),
        _ => error.to_string(),
    }
}

impl CliError {
    fn code(&self) -> ErrorCode {
        match self {
            CliError::ServerNotFound(_) => ErrorCode::McpServerNotFound,
            CliError::UserNotFound(_)
            | CliError::NodeNotFound(_)
            | CliError::ViewNotFound(_)
            | CliError::NoData(_) => ErrorCode::NotFound,
            CliError::StartRefused(_) => ErrorCode::ValidationError,
            CliError::CannotListen { source, .. }
                if source.kind() == std::io::ErrorKind::AddrInUse =>
            {
                ErrorCode::Conflict
            }
            CliError::CannotListen { .. } => ErrorCode::ValidationError,
            CliError::Taken { source, .. } | CliError::Store(source) => source.code(),
            CliError::App(error) => error.code(),
            CliError::BadArguments(_) => ErrorCode::McpInvalidParams,
            CliError::Interrupted => ErrorCode::Cancelled,
            CliError::ToolFailed => ErrorCode::McpExecutionError,
        }
    }
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let context = Context {
        json: cli.global.json,
        store: cli.global.store_config(),
        global: cli.global.clone(),
    };
    match cli.command {
        Command::Serve(args) => serve::run(&context, args).await,
        Command::Node(args) => node::run(&context, args).await,
        Command::Servers(command) => servers::run(&context, command).await,
        Command::Tools(command) => tools::run(&context, command).await,
        Command::Call(args) => call::run(&context, args).await,
        Command::ToolNodes(command) => tool_nodes::run(&context, command).await,
        Command::Chat(args) => chat::run(&context, args).await,
        Command::Import(args) => import::run(&context, args).await,
        Command::DemoServer(args) => demo::run(args).await,
        Command::Mcp(args) => mcp::run(&context, args).await,
        Command::Schema(command) => schema::run(command),
        Command::Users(command) => users::run(&context, command).await,
        Command::Config(command) => config::run(&context, command),
        // Started before the runtime, by `main`; here it would share the process with the
        // runtime's threads, which do not block its signals.
        Command::Guard(_) => Err(anyhow::anyhow!("the guard runs before the runtime starts")),
    }
}

/// Prints a failed command's error with its code; see [`crate::output`] for where it goes.
/// A parser's words that name one of our types (serde's "expected struct ...") are put in
/// plain words, as the HTTP API's are.
pub fn report(json: bool, error: &anyhow::Error) {
    let message = without_type_names(&message_of(error));
    output::print_error(json, code_of(error), &message);
}

/// The documented code of the first error in the chain that has one.
pub fn code_of(error: &anyhow::Error) -> Option<ErrorCode> {
    error.chain().find_map(|cause| {
        if let Some(e) = cause.downcast_ref::<CliError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<ChatError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<AgentError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<McpError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<ToolCallError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<switchboard_app::AppError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<ImportError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<StoreError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<NodeSaveError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<NodeRunError>() {
            return Some(e.code());
        }
        if let Some(e) = cause.downcast_ref::<SettingsError>() {
            return Some(e.code());
        }
        if cause.is::<SpecError>() {
            return Some(ErrorCode::ValidationError);
        }
        if let Some(e) = cause.downcast_ref::<switchboard_grpc::NodeError>() {
            return node::code(e);
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
    use std::path::PathBuf;

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
        let error = anyhow::Error::new(ServerFileError::Read {
            path: "/d/servers.json".into(),
            source: io,
        });
        assert_eq!(message_of(&error), "cannot read /d/servers.json: disk full");
        let wrapped = anyhow::anyhow!("inner").context("outer");
        assert_eq!(message_of(&wrapped), "outer: inner");
    }
}
