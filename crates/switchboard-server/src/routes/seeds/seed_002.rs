//! Seed 002's server routes (its "API 路由" 3.1) beside the house API: the tools of a saved
//! server, the settings dialog's Test button for a saved server and for a configuration not
//! saved yet. `POST`/`GET /api/mcp/servers` and `DELETE /api/mcp/servers/{id}` are shared with
//! seed 000 and served there (`seed_000/servers.rs`), which reads seed 002's `MCPServerConfig`
//! through [`config`]. Seed 002's `POST /api/mcp/tools/call` is the house route (`tools.rs`).
//!
//! Testing an unsaved configuration only translates seed 002's `MCPServerConfig` to the house
//! spec; the test itself (nothing stored, masked secrets of a saved server for its URL only,
//! the member rules of a save, the connection closed) is `unsaved_test.rs`'s, shared with the
//! house `POST /api/mcp-servers/test`.

pub(crate) mod config;

use axum::extract::{Path, State};
use serde::Serialize;
use serde_json::{Map, Value};
use switchboard_core::{ServerId, ToolInfo};
use switchboard_mcp::ServerReport;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use self::config::McpServerConfig;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::json::Json;
use crate::routes::responses::{Unauthorized, Upstream, UpstreamTimeout};
use crate::routes::servers::unsaved_test::{self, saved};
use crate::routes::servers::{test_stored, tools_of};
use crate::state::AppState;

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(tools))
        .routes(routes!(test))
        .routes(routes!(test_unsaved))
}

/// Seed 002's `MCPTool`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct McpTool {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// The tool's JSON Schema for its arguments, as the server sent it.
    #[schema(value_type = Object)]
    input_schema: Map<String, Value>,
}

impl From<&ToolInfo> for McpTool {
    fn from(tool: &ToolInfo) -> Self {
        Self {
            name: tool.name.clone(),
            description: tool.description.clone(),
            input_schema: tool.input_schema.clone(),
        }
    }
}

/// What a connection test found. A test that fails answers the error instead.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ConnectionTest {
    /// Always `true`: connected, initialized and listed.
    success: bool,
    /// The MCP protocol revision spoken.
    protocol_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    server_info: Option<ServerInfo>,
    tools: Vec<McpTool>,
}

/// The server's own name and version, as it introduced itself.
#[derive(Debug, Serialize, ToSchema)]
struct ServerInfo {
    name: String,
    version: String,
}

impl From<ServerReport> for ConnectionTest {
    fn from(report: ServerReport) -> Self {
        Self {
            success: true,
            protocol_version: report.details.protocol_version,
            server_info: report.details.server_info.map(|info| ServerInfo {
                name: info.name,
                version: info.version,
            }),
            tools: report.tools.iter().map(McpTool::from).collect(),
        }
    }
}

/// Every tool of a saved server (disabled ones included).
#[utoipa::path(
    get,
    path = "/api/mcp/servers/{id}/tools",
    tag = "seed 002",
    operation_id = "list_server_tools_seed_002",
    params(("id" = String, Path, description = "The server's id")),
    responses(
        (status = 200, description = "The server's tools", body = Vec<McpTool>),
        Unauthorized,
        (status = 404, description = "MCP_SERVER_NOT_FOUND", body = ErrorBody),
        Upstream,
    )
)]
async fn tools(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Vec<McpTool>>, ApiError> {
    let (_, listed) = tools_of(&state, &caller, &ServerId(id)).await?;
    Ok(axum::Json(listed.iter().map(McpTool::from).collect()))
}

/// Tests a saved server: connect, initialize, list tools, disconnect.
#[utoipa::path(
    post,
    path = "/api/mcp/servers/{id}/test",
    tag = "seed 002",
    operation_id = "test_server_seed_002",
    params(("id" = String, Path, description = "The server's id")),
    responses(
        (status = 200, description = "Connected, initialized and listed", body = ConnectionTest),
        Unauthorized,
        (status = 404, description = "MCP_SERVER_NOT_FOUND", body = ErrorBody),
        Upstream,
    )
)]
async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ConnectionTest>, ApiError> {
    let report = test_stored(&state, &caller, &ServerId(id)).await?;
    Ok(axum::Json(report.into()))
}

/// Tests a configuration that is not saved.
///
/// Nothing is stored, and the connection made for the test is closed before the answer.
#[utoipa::path(
    post,
    path = "/api/mcp/servers/test",
    tag = "seed 002",
    operation_id = "test_unsaved_server_seed_002",
    request_body = McpServerConfig,
    responses(
        (status = 200, description = "Connected, initialized and listed", body = ConnectionTest),
        (status = 400, description = "Bad input or UNSUPPORTED_TRANSPORT", body = ErrorBody),
        Unauthorized,
        (status = 403, description = "Not allowed for this user", body = ErrorBody),
        (status = 502, description = "The MCP server could not be reached, refused the \
            credentials or failed", body = ErrorBody),
        UpstreamTimeout,
    )
)]
async fn test_unsaved(
    State(state): State<AppState>,
    caller: Caller,
    Json(written): Json<McpServerConfig>,
) -> Result<axum::Json<ConnectionTest>, ApiError> {
    // The dialog of a saved server tests its edits with the secrets left masked or out: they
    // are the stored ones, for the stored destination only.
    let stored = saved(&state, &caller, &written.server_id()).await?;
    let (spec, _) = config::spec_of(written, stored.as_ref())?;
    let report = unsaved_test::test_unsaved(&state, &caller, spec, stored.as_ref()).await?;
    Ok(axum::Json(report.into()))
}
