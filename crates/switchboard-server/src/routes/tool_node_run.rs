//! `POST /api/tool-nodes/{id}/execute`: runs one tool of a node for a workflow engine and
//! answers seed 002's `ToolCallResult` ([`crate::tool_nodes::run`] decides; this is HTTP).

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::{TooLarge, Unauthorized};
use crate::routes::schemas::ToolArguments;
use crate::routes::tasks::{accepted, wants_task};
use crate::state::AppState;
use crate::tool_nodes::{NodeRun, ToolCallResult, run_node, start_node_task};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(execute))
}

/// What to run: which tool (may be left out when the node has one enabled tool), the
/// workflow's variables and the arguments the mappings do not fill.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ExecuteBody {
    tool: Option<String>,
    /// Values for `{{variable}}` references, over the declared defaults (built-ins cannot be
    /// replaced).
    #[serde(default)]
    #[schema(value_type = Object)]
    variables: Map<String, Value>,
    /// The tool's arguments; a mapped parameter is filled by its mapping whatever is given.
    #[serde(default)]
    #[schema(value_type = ToolArguments)]
    arguments: Map<String, Value>,
}

/// How the run is answered.
#[derive(Debug, Deserialize)]
struct ExecuteQuery {
    /// `task`: at once, with a task to follow, rather than when the tool answers.
    mode: Option<String>,
}

/// Runs one tool of the node with the given variables and arguments.
///
/// With `?mode=task` (or `Prefer: respond-async`) the run is not waited for: it is
/// answered 202 with a task to follow at `GET /api/tasks/{id}` (`Location`), whose `result`
/// is this route's `ToolCallResult` once the run ends (without the arguments, which are
/// never kept).
#[utoipa::path(
    post,
    path = "/api/tool-nodes/{id}/execute",
    tag = "tool-nodes",
    operation_id = "execute_tool_node",
    params(
        ("id" = String, Path, description = "The tool node's id"),
        ("mode" = Option<String>, Query, description = "`task`: answer at once with a task (202) rather than wait for the tool"),
        ("Prefer" = Option<String>, Header, description = "`respond-async`: as `mode=task`"),
    ),
    request_body = ExecuteBody,
    responses(
        (status = 200, description = "The call was made: its result, or its error, with every attempt and its timing", body = ToolCallResult),
        (status = 202, description = "Running as a task (`mode=task`); follow it at `Location`", body = crate::routes::tasks::TaskBody),
        (status = 400, description = "Bad input; `tool` left out of a node with several enabled tools; a variable with no value or arguments that do not fit the schema (MCP_INVALID_PARAMS, naming them)", body = crate::error::ErrorBody),
        Unauthorized,
        (status = 404, description = "The node or its server is not found, or the tool is not on the server, switched off, or not an enabled tool of the node (MCP_TOOL_NOT_FOUND)", body = crate::error::ErrorBody),
        TooLarge,
    ),
)]
async fn execute(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(query): Query<ExecuteQuery>,
    Json(body): Json<ExecuteBody>,
) -> Result<Response, ApiError> {
    let run = NodeRun {
        tool: body.tool,
        variables: body.variables,
        arguments: body.arguments,
    };
    if wants_task(query.mode.as_deref(), &headers)? {
        let task =
            start_node_task(state.store.as_ref(), &state.tasks, &caller.user, &id, run).await?;
        return Ok(accepted(&task, &headers));
    }
    // A failed call is worded in the language an error answer would be in.
    let locale = caller.user.locale.unwrap_or_else(|| {
        crate::i18n::negotiate(
            headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        )
    });
    let word = |error: &switchboard_mcp::McpError| {
        crate::error_words::mcp(error).message_in(&state.locales, locale)
    };
    // The call ends when the client hangs up (this handler's future is then dropped).
    let cancel = CancellationToken::new();
    let _hang_up = cancel.clone().drop_guard();
    let result = run_node(
        state.store.as_ref(),
        &state.tool_calls,
        &caller.user,
        &id,
        run,
        cancel.clone(),
        word,
    )
    .await?;
    Ok(axum::Json(result).into_response())
}
