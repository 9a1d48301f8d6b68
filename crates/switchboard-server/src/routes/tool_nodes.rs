//! Tool nodes (seed 002 `MCPToolNodeConfig`): create, read, replace, delete, the nodes of an
//! assistant, and running one for a workflow engine ([`crate::routes::tool_node_run`]).
//!
//! The body is the node's own JSON and the answer is the node with its id and times. Saving
//! checks every reference against the server's live tools and the declared variables
//! ([`crate::tool_nodes`]): a 400 names the mapping (`selectedTools[i].parameterMappings.P`)
//! and the variable. Another user's node, server or assistant is 404, like one that does not
//! exist. The number of nodes per user is a quota (`[quotas] max_tool_nodes`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use switchboard_core::ToolNode;
use switchboard_store::StoredToolNode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::{
    Conflict, NotFound, OwnedRead, QuotaExceeded, TooLarge, Unauthorized, Upstream,
};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, remove))
        .routes(routes!(of_assistant))
        .merge(crate::routes::tool_node_run::routes())
}

/// Lists the caller's tool nodes, oldest first.
#[utoipa::path(
    get,
    path = "/api/tool-nodes",
    tag = "tool-nodes",
    operation_id = "list_tool_nodes",
    responses(
        (status = 200, description = "The caller's tool nodes", body = Vec<StoredToolNode>),
        Unauthorized,
    ),
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<StoredToolNode>>, ApiError> {
    Ok(axum::Json(state.store.tool_nodes(&caller.user.id).await?))
}

/// Creates a tool node after checking every mapping against the server's live tools.
#[utoipa::path(
    post,
    path = "/api/tool-nodes",
    tag = "tool-nodes",
    operation_id = "create_tool_node",
    request_body = ToolNode,
    responses(
        (status = 201, description = "Created", body = StoredToolNode),
        (status = 400, description = "Bad input, or a mapping that names a tool, parameter or variable that does not exist (the message names the mapping and the variable)", body = crate::error::ErrorBody),
        Unauthorized,
        QuotaExceeded,
        NotFound,
        Conflict,
        TooLarge,
        Upstream,
    ),
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(node): Json<ToolNode>,
) -> Result<(StatusCode, axum::Json<StoredToolNode>), ApiError> {
    let created = state.tool_nodes.create(&caller.user.id, &node).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// Reads a tool node.
#[utoipa::path(
    get,
    path = "/api/tool-nodes/{id}",
    tag = "tool-nodes",
    operation_id = "read_tool_node",
    params(("id" = String, Path, description = "The tool node's id")),
    responses(
        (status = 200, description = "The tool node", body = StoredToolNode),
        OwnedRead,
    ),
)]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<StoredToolNode>, ApiError> {
    Ok(axum::Json(
        state.store.tool_node(&caller.user.id, &id).await?,
    ))
}

/// Replaces a tool node, with the same checks as creating one.
#[utoipa::path(
    put,
    path = "/api/tool-nodes/{id}",
    tag = "tool-nodes",
    operation_id = "update_tool_node",
    params(("id" = String, Path, description = "The tool node's id")),
    request_body = ToolNode,
    responses(
        (status = 200, description = "Replaced", body = StoredToolNode),
        (status = 400, description = "Bad input, or a mapping that names a tool, parameter or variable that does not exist (the message names the mapping and the variable)", body = crate::error::ErrorBody),
        OwnedRead,
        Conflict,
        TooLarge,
        Upstream,
    ),
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(node): Json<ToolNode>,
) -> Result<axum::Json<StoredToolNode>, ApiError> {
    Ok(axum::Json(
        state
            .tool_nodes
            .replace(&caller.user.id, &id, &node)
            .await?,
    ))
}

/// Deletes a tool node.
#[utoipa::path(
    delete,
    path = "/api/tool-nodes/{id}",
    tag = "tool-nodes",
    operation_id = "delete_tool_node",
    params(("id" = String, Path, description = "The tool node's id")),
    responses(
        (status = 204, description = "Deleted"),
        OwnedRead,
    ),
)]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.store.delete_tool_node(&caller.user.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The tool nodes of one of the caller's assistants, oldest first.
#[utoipa::path(
    get,
    path = "/api/assistants/{id}/tool-nodes",
    tag = "assistants",
    operation_id = "list_assistant_tool_nodes",
    params(("id" = String, Path, description = "The assistant's id")),
    responses(
        (status = 200, description = "The assistant's tool nodes", body = Vec<StoredToolNode>),
        OwnedRead,
    ),
)]
async fn of_assistant(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Vec<StoredToolNode>>, ApiError> {
    Ok(axum::Json(
        state
            .store
            .assistant_tool_nodes(&caller.user.id, &id)
            .await?,
    ))
}
