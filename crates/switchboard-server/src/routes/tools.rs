//! Tools across servers: listing (for seed 000 `GET /api/chat/tools`), calling (seed 002
//! `POST /api/mcp/tools/call`), the flat-parameter proxy whose whole body is the arguments
//! (seed 003 `POST /api/mcp/proxy/{server}/tools/{tool}/call`), and the per-tool enabled and
//! auto-approve flags.
//!
//! A call is checked before it is made: the server must be the caller's (404), the tool must
//! exist and be enabled (404 `MCP_TOOL_NOT_FOUND`), and the arguments must fit the tool's
//! schema (400 `MCP_INVALID_PARAMS`). The tool's result is passed through as MCP sent it.

use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::{Map, Value};
use switchboard_core::{ErrorCode, Mapping, NameTable, ServerId, ServerSpec, ToolInfo};
use switchboard_mcp::CallOptions;
use switchboard_store::StoredServer;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::responses::{
    BadInput, NotFound, TooLarge, Unauthorized, UpstreamFailed, UpstreamTimeout,
};
use super::schemas::{ToolArguments, ToolResult};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(call))
        .routes(routes!(proxy))
        .routes(routes!(set_flags))
}

/// One enabled tool of one of the caller's enabled servers.
pub(crate) struct ListedTool {
    pub server_name: String,
    /// The name the model sees (`mcp__{server}__{tool}`).
    pub display_name: String,
    pub tool: ToolInfo,
    pub auto_approve: bool,
}

/// Every enabled tool of the caller's enabled servers (seed 000 `GET /api/chat/tools` shows
/// them); a server that cannot be reached is left out of the list (and logged) rather than
/// failing it.
pub(crate) async fn listed_tools(
    state: &AppState,
    owner: &switchboard_core::OwnerId,
) -> Result<Vec<ListedTool>, ApiError> {
    let specs = state.store.connection_specs(owner).await?;
    // Through the bounded backend (`limits::listing`): what one listing loads is capped.
    let listed = switchboard_mcp::ToolBackend::tools(state.tools.as_ref(), owner, &specs).await;
    let mut found = Vec::new();
    for (spec, tools) in listed {
        match tools {
            Ok(tools) => found.extend(tools.iter().map(|t| (spec.clone(), t.clone()))),
            Err(e) => tracing::warn!(server = %spec.name, error = %e, "tools unavailable"),
        }
    }
    let names = NameTable::new(found.iter().map(|(s, t)| (s.id.0.clone(), t.name.clone())));
    Ok(found
        .into_iter()
        .map(|(spec, tool)| ListedTool {
            display_name: names
                .mangled(&spec.id.0, &tool.name)
                .unwrap_or_default()
                .to_owned(),
            server_name: spec.name.clone(),
            auto_approve: spec.auto_approved_tools.contains(&tool.name),
            tool,
        })
        .collect())
}

/// A tool call: which tool of which server, with what arguments.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CallBody {
    /// The server's id (`server_id` is accepted too).
    #[serde(alias = "server_id")]
    server_id: String,
    /// The tool's own name on its server (`tool_name` is accepted too).
    #[serde(alias = "tool_name")]
    tool_name: String,
    /// The tool's arguments, checked against its input schema.
    #[serde(default)]
    #[schema(value_type = ToolArguments)]
    arguments: Map<String, Value>,
}

/// Calls a tool of one of the caller's servers with checked arguments.
#[utoipa::path(
    post,
    path = "/api/mcp/tools/call",
    tag = "tools",
    operation_id = "call_tool",
    request_body = CallBody,
    responses(
        (status = 200, description = "The MCP result as the server sent it", body = ToolResult),
        BadInput,
        Unauthorized,
        NotFound,
        TooLarge,
        UpstreamFailed,
        UpstreamTimeout,
    ),
)]
async fn call(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CallBody>,
) -> Result<axum::Json<Value>, ApiError> {
    let spec = state
        .store
        .connection_spec(&caller.user.id, &ServerId(body.server_id))
        .await?;
    call_checked(&state, &caller, &spec, &body.tool_name, body.arguments).await
}

#[derive(Deserialize)]
pub(super) struct ProxyQuery {
    /// A tool preset whose mappings fill in parameters.
    preset: Option<String>,
}

/// The flat-parameter proxy: the whole body is the tool's arguments.
#[utoipa::path(
    post,
    path = "/api/mcp/proxy/{server}/tools/{tool}/call",
    tag = "tools",
    operation_id = "proxy_tool_call",
    params(
        ("server" = String, Path, description = "The server id"),
        ("tool" = String, Path, description = "The tool name"),
        ("preset" = Option<String>, Query, description = "A tool preset whose mappings fill in parameters"),
    ),
    request_body = ToolArguments,
    responses(
        (status = 200, description = "The MCP result as the server sent it", body = ToolResult),
        BadInput,
        Unauthorized,
        NotFound,
        TooLarge,
        UpstreamFailed,
        UpstreamTimeout,
    ),
)]
pub(super) async fn proxy(
    State(state): State<AppState>,
    caller: Caller,
    Path((server, tool)): Path<(String, String)>,
    Query(query): Query<ProxyQuery>,
    Json(body): Json<Map<String, Value>>,
) -> Result<axum::Json<Value>, ApiError> {
    let started = std::time::Instant::now();
    let answer = proxied(&state, &caller, server, &tool, query, body).await;
    // Counted for the proxy's error rate and latency; a tool's own error result is an
    // answer, not a failure of the proxy.
    let error = answer.as_ref().err().map(|e| e.code.as_str());
    state.metrics.record_proxy(error, started.elapsed());
    answer
}

async fn proxied(
    state: &AppState,
    caller: &Caller,
    server: String,
    tool: &str,
    query: ProxyQuery,
    body: Map<String, Value>,
) -> Result<axum::Json<Value>, ApiError> {
    let spec = state
        .store
        .connection_spec(&caller.user.id, &ServerId(server))
        .await?;
    let mut arguments = body;
    if let Some(preset) = query.preset {
        let preset = state.store.preset(&caller.user.id, &preset).await?;
        if preset.preset.server_id != spec.id {
            return Err(ApiError::new(
                ErrorCode::ValidationError,
                format!("preset {:?} is for another server", preset.preset.name),
            )
            .key("error.msg.preset_other_server")
            .param("preset", format!("{:?}", preset.preset.name)));
        }
        if let Some(selected) = preset.preset.selected_tools.iter().find(|t| t.name == tool) {
            apply_mappings(&mut arguments, &selected.parameter_mappings);
        }
    }
    call_checked(state, caller, &spec, tool, arguments).await
}

/// A preset's mappings over the given arguments: fixed values win; a `{{variable}}` takes the
/// value the caller sent under that variable's name. (Interim: helper `service` moves this
/// into the tool-call service, which fails on a missing variable instead of skipping it.)
fn apply_mappings(
    arguments: &mut Map<String, Value>,
    mappings: &std::collections::BTreeMap<String, Mapping>,
) {
    for (parameter, mapping) in mappings {
        let value = match mapping {
            Mapping::Literal(value) => Some(value.clone()),
            Mapping::Template(template) => template
                .render(|path| path.walk(arguments.get(path.root())?).cloned())
                .ok(),
        };
        if let Some(value) = value {
            arguments.insert(parameter.clone(), value);
        }
    }
}

async fn call_checked(
    state: &AppState,
    caller: &Caller,
    spec: &ServerSpec,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<axum::Json<Value>, ApiError> {
    let info = crate::tool_lookup::enabled_tool(state, &caller.user.id, spec, tool).await?;
    let arguments = Value::Object(arguments);
    state
        .validators
        .check(&info.input_schema, &arguments)
        .map_err(|e| ApiError::new(e.code(), e.to_string()))?;
    let Value::Object(arguments) = arguments else {
        return Err(ApiError::new(
            ErrorCode::McpInvalidParams,
            "the arguments must be a JSON object",
        )
        .key("error.msg.arguments_not_object"));
    };
    let result = switchboard_mcp::ToolBackend::call(
        state.tools.as_ref(),
        &caller.user.id,
        spec,
        tool,
        Some(arguments),
        CallOptions::default(),
    )
    .await?;
    let result = serde_json::to_value(&result)
        .map_err(|e| ApiError::new(ErrorCode::McpParseError, e.to_string()))?;
    Ok(axum::Json(result))
}

/// A tool's switches; one left out keeps its value.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Flags {
    enabled: Option<bool>,
    auto_approve: Option<bool>,
}

/// Sets a tool's enabled and auto-approve flags (seed 001's per-tool switches).
#[utoipa::path(
    put,
    path = "/api/mcp-servers/{id}/tools/{tool}",
    tag = "servers",
    operation_id = "set_tool_flags",
    params(
        ("id" = String, Path, description = "The id"),
        ("tool" = String, Path, description = "The tool name"),
    ),
    request_body = Flags,
    responses(
        (status = 200, description = "The server with the tool's switches set, secrets masked", body = StoredServer),
        BadInput,
        Unauthorized,
        NotFound,
        TooLarge,
    ),
)]
async fn set_flags(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, tool)): Path<(String, String)>,
    Json(flags): Json<Flags>,
) -> Result<axum::Json<StoredServer>, ApiError> {
    let id = ServerId(id);
    // Under the server's row lock, so two switches flipped at once both stay flipped.
    let edited = state
        .store
        .edit_server(&caller.user.id, &id, &|old: &ServerSpec| {
            let mut spec = old.clone();
            if let Some(enabled) = flags.enabled {
                if enabled {
                    spec.disabled_tools.remove(&tool);
                } else {
                    spec.disabled_tools.insert(tool.clone());
                }
            }
            if let Some(auto) = flags.auto_approve {
                if auto {
                    spec.auto_approved_tools.insert(tool.clone());
                } else {
                    spec.auto_approved_tools.remove(&tool);
                }
            }
            Ok(spec)
        })
        .await?;
    Ok(axum::Json(edited))
}
