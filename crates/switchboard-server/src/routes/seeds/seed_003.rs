//! Seed 003's routes, as the seed writes them: thin adapters that translate its shapes.
//!
//! - `POST /api/agent-retrieval/in/v1/mcp/proxy/{mcp_id}/tools/{tool_name}/call`: the
//!   flat-parameter proxy at the seed's own path; the same handler as
//!   `/api/mcp/proxy/{server}/tools/{tool}/call` (`routes/tools.rs`), so the same checks,
//!   presets and metrics.
//! - `POST /api/agent-retrieval/in/v1/action-info`: action recall of an MCP tool, answered
//!   as the seed's `KnDynamicTool` ([`crate::recall`] decides).
//! - `GET /api/mcp/servers/{id}/tools/{tool}`: one tool's detail, the seed's
//!   `GetMCPToolDetailResponse`.

use axum::extract::{Path, Query, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_schema::Dialect;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::json::Json;
use crate::proxy_url::{proxy_base, proxy_url};
use crate::routes::responses::{TooLarge, Unauthorized, UpstreamFailed, UpstreamTimeout};
use crate::routes::schemas::{JsonSchema, ToolArguments, ToolResult};
use crate::routes::tools::{self, ProxyQuery};
use crate::state::AppState;
use switchboard_app::recall::{self, McpAction, RecallError};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(proxy))
        .routes(routes!(action_info))
        .routes(routes!(tool_detail))
}

/// Seed 003's flat-parameter proxy: the whole body is the tool's arguments.
#[utoipa::path(
    post,
    path = "/api/agent-retrieval/in/v1/mcp/proxy/{mcp_id}/tools/{tool_name}/call",
    tag = "seed 003",
    operation_id = "seed003_proxy_tool_call",
    params(
        ("mcp_id" = String, Path, description = "The server id"),
        ("tool_name" = String, Path, description = "The tool name"),
        ("node" = Option<String>, Query, description = "A tool node (its id) the call runs under: its mappings fill parameters, and body keys naming a variable it declares are that variable's value rather than arguments"),
        ("preset" = Option<String>, Query, description = "The old name of `node`"),
        ("mode" = Option<String>, Query, description = "`task`: answer at once with a task (202, `Location: /api/tasks/{id}`) rather than wait for the tool"),
        ("Prefer" = Option<String>, Header, description = "`respond-async`: as `mode=task`"),
    ),
    request_body = ToolArguments,
    responses(
        (status = 200, description = "The tool's result", body = ToolResult),
        (status = 202, description = "Running as a task (`mode=task`); follow it at `Location`", body = crate::routes::tasks::TaskBody),
        (status = 400, description = "The arguments do not fit the tool's schema (MCP_INVALID_PARAMS), or bad JSON", body = ErrorBody),
        Unauthorized,
        (status = 404, description = "No such server (MCP_SERVER_NOT_FOUND) or enabled tool (MCP_TOOL_NOT_FOUND)", body = ErrorBody),
        TooLarge,
        UpstreamFailed,
        (status = 503, description = "The connection to the MCP server could not be set up", body = ErrorBody),
        UpstreamTimeout,
    ),
)]
async fn proxy(
    state: State<AppState>,
    caller: Caller,
    path: Path<(String, String)>,
    query: Query<ProxyQuery>,
    headers: axum::http::HeaderMap,
    body: Json<Map<String, Value>>,
) -> Result<axum::response::Response, ApiError> {
    tools::proxy(state, caller, path, query, headers, body).await
}

/// Where the action comes from (seed 003 `ActionSource`): `mcp` here; `tool` (a toolbox
/// tool) is another service's.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ActionSource {
    /// `mcp` (`tool` is not supported by this server).
    #[serde(rename = "type")]
    kind: String,
    /// Toolbox id, for `type: tool` (not supported here).
    #[serde(default)]
    box_id: Option<String>,
    /// Toolbox tool id, for `type: tool` (not supported here).
    #[serde(default)]
    tool_id: Option<String>,
    /// The MCP server id, for `type: mcp`.
    #[serde(default)]
    mcp_id: Option<String>,
    /// The tool's name on that server, for `type: mcp`.
    #[serde(default)]
    tool_name: Option<String>,
}

/// An action to recall.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ActionInfoRequest {
    action_source: ActionSource,
    /// Fixed parameters: taken out of the schema the model sees, sent with every call.
    #[serde(default)]
    #[schema(value_type = Object)]
    parameters: Map<String, Value>,
    /// The schema dialect: `openai` (default), `openai-strict`, `anthropic`, `gemini`,
    /// `gemini-json`.
    #[serde(default)]
    dialect: Option<String>,
}

/// A tool a model can call over HTTP (seed 003 `KnDynamicTool`).
#[derive(Serialize, ToSchema)]
struct KnDynamicTool {
    /// The tool's name, valid as a function name for the dialect.
    name: String,
    description: String,
    /// The tool's input schema converted for the dialect, without the fixed parameters.
    #[schema(value_type = JsonSchema)]
    parameters: Value,
    /// The absolute URL of the proxy for this tool: POST the model's arguments merged with
    /// `fixed_params`, with the same bearer token.
    api_url: String,
    /// The fixed parameters, to merge into the model's arguments.
    #[schema(value_type = Object)]
    fixed_params: Map<String, Value>,
}

/// Recalls an MCP tool as a function with its proxy URL (seed 003 action recall).
#[utoipa::path(
    post,
    path = "/api/agent-retrieval/in/v1/action-info",
    tag = "seed 003",
    operation_id = "seed003_action_info",
    request_body = ActionInfoRequest,
    responses(
        (status = 200, description = "The tool as a function, and where to call it", body = KnDynamicTool),
        (status = 400, description = "An unsupported action_source.type (VALIDATION_ERROR), a fixed parameter the tool does not have (MCP_INVALID_PARAMS), an unknown dialect, or bad JSON", body = ErrorBody),
        Unauthorized,
        (status = 404, description = "No such server (MCP_SERVER_NOT_FOUND) or enabled tool (MCP_TOOL_NOT_FOUND)", body = ErrorBody),
        TooLarge,
        (status = 500, description = "The tool's schema cannot be converted (SCHEMA_ERROR, logged)", body = ErrorBody),
        UpstreamFailed,
        (status = 503, description = "The connection to the MCP server could not be set up", body = ErrorBody),
        UpstreamTimeout,
    ),
)]
async fn action_info(
    State(state): State<AppState>,
    caller: Caller,
    Json(request): Json<ActionInfoRequest>,
) -> Result<axum::Json<KnDynamicTool>, ApiError> {
    let source = request.action_source;
    if source.kind != "mcp" {
        let named = match (source.box_id, source.tool_id) {
            (Some(box_id), Some(tool_id)) => format!(" (box_id {box_id:?}, tool_id {tool_id:?})"),
            _ => String::new(),
        };
        return Err(RecallError::UnsupportedSource(format!("{:?}{named}", source.kind)).into());
    }
    let dialect = match request.dialect {
        Some(name) => name.parse().map_err(RecallError::from)?,
        None => Dialect::OpenAi,
    };
    let action = McpAction {
        mcp_id: source.mcp_id.unwrap_or_default(),
        tool_name: source.tool_name.unwrap_or_default(),
        fixed_params: request.parameters,
        dialect,
    };
    let base = proxy_base(&state.config.guard).ok_or(RecallError::NoAddress)?;
    let tool = recall::recall(&state.app, &caller.user.id, action).await?;
    let api_url = proxy_url(&base, &tool.server_id.0, &tool.tool).ok_or(RecallError::NoAddress)?;
    Ok(axum::Json(KnDynamicTool {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        api_url: api_url.into(),
        fixed_params: tool.fixed_params,
    }))
}

/// One tool of a server (seed 003 `GetMCPToolDetailResponse`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct McpToolDetail {
    name: String,
    description: String,
    /// The tool's input schema as the server sent it.
    #[schema(value_type = JsonSchema)]
    input_schema: Map<String, Value>,
    /// MCP tool annotations (`title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`), those the server gave.
    #[schema(value_type = Object)]
    annotations: switchboard_core::ToolAnnotations,
}

/// One enabled tool of one of the caller's servers.
#[utoipa::path(
    get,
    path = "/api/mcp/servers/{id}/tools/{tool}",
    tag = "seed 003",
    operation_id = "seed003_tool_detail",
    params(
        ("id" = String, Path, description = "The server id"),
        ("tool" = String, Path, description = "The tool name"),
    ),
    responses(
        (status = 200, description = "The tool", body = McpToolDetail),
        Unauthorized,
        (status = 404, description = "No such server (MCP_SERVER_NOT_FOUND) or enabled tool (MCP_TOOL_NOT_FOUND)", body = ErrorBody),
        UpstreamFailed,
        (status = 503, description = "The connection to the MCP server could not be set up", body = ErrorBody),
        UpstreamTimeout,
    ),
)]
async fn tool_detail(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, tool)): Path<(String, String)>,
) -> Result<axum::Json<McpToolDetail>, ApiError> {
    let (_, tool) = state.enabled_tool(&caller.user.id, &id, &tool).await?;
    Ok(axum::Json(McpToolDetail {
        name: tool.name,
        description: tool.description.unwrap_or_default(),
        input_schema: tool.input_schema,
        annotations: tool.annotations,
    }))
}
