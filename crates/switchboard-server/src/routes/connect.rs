//! `GET /api/mcp/connect`: what a client needs to reach the caller's MCP gateway, for the
//! snippets the settings page offers to paste (Claude Desktop, Cursor, VS Code).
//!
//! A client on this machine can launch the gateway over stdio on the same store: the answer
//! gives the absolute command and the arguments that name the data directory and the caller,
//! so the snippet works whatever directory the client starts it in. Only an admin (the person
//! who runs this machine, and the one user of single-user mode) is told the command and the
//! data directory: to anyone else they are paths of a machine they cannot run commands on.
//! The answer also says what a client that cannot be asked (no elicitation) gets for a tool
//! that needs a person's approval.

use axum::extract::State;
use serde::Serialize;
use switchboard_gateway::Unapproved;
use switchboard_store::Role;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::routes::responses::Unauthorized;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(connect))
}

/// How a client reaches the caller's gateway.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpConnect {
    /// The command that serves the gateway over stdio on this machine; absent for members
    /// and where the store is a database named by URL (use the HTTP endpoint there).
    pub stdio: Option<StdioCommand>,
    /// What a client without elicitation gets for a tool that needs approval: `refuse` (a
    /// tool error saying how to auto-approve it) or `run` (it runs unasked).
    #[schema(value_type = String, example = "refuse")]
    pub unapproved: Unapproved,
}

/// A command with its arguments; a view is chosen by appending `--view NAME`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StdioCommand {
    /// The `switchboard` binary, absolute.
    #[schema(example = "/usr/local/bin/switchboard")]
    pub command: String,
    /// `--data-dir DIR --user NAME mcp --stdio`.
    pub args: Vec<String>,
}

/// How a client reaches the caller's MCP gateway.
#[utoipa::path(
    get,
    path = "/api/mcp/connect",
    tag = "gateway",
    operation_id = "mcp_connect",
    responses(
        (status = 200, description = "How to connect a client", body = McpConnect),
        Unauthorized,
    ),
)]
async fn connect(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<McpConnect>, ApiError> {
    let stdio = match (&state.config.stdio_launch, caller.user.role) {
        (Some(launch), Role::Admin) => Some(StdioCommand {
            command: launch.command.to_string_lossy().into_owned(),
            args: vec![
                "--data-dir".to_owned(),
                launch.data_dir.to_string_lossy().into_owned(),
                "--user".to_owned(),
                caller.user.name.clone(),
                "mcp".to_owned(),
                "--stdio".to_owned(),
            ],
        }),
        _ => None,
    };
    Ok(axum::Json(McpConnect {
        stdio,
        unapproved: state.gateway.config().unapproved,
    }))
}
