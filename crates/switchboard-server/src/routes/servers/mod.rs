//! Every route of a person's MCP servers, in one folder:
//!
//! | file | routes |
//! |---|---|
//! | `mod.rs` | `/api/mcp-servers`: list, create, read, replace, delete (seed 001's shapes too) |
//! | [`looks`] | a stored server's test, health and tools |
//! | [`content`] | its resources, prompts and log |
//! | [`unsaved_test`] | testing a server before it is saved |
//! | [`oauth`] | signing in to a server (and the Client ID Metadata Document) |
//! | [`catalogue`] | the catalogue of ready servers, and adding an entry |
//! | [`import`] | importing another client's configuration file |
//! | [`bodies`] | the request and answer bodies they share, for the OpenAPI document |
//!
//! Reads are masked; only the connection code sees secrets in clear. The writes go through
//! the application's [`switchboard_app::Servers`] (`create_checked`, `replace_checked`,
//! `delete_checked` translate to it), shared with the seeds' own server routes (`seed_000`,
//! `seed_002`), which only translate shapes around them.

pub(crate) mod bodies;
pub(crate) mod catalogue;
pub(crate) mod content;
pub(crate) mod import;
pub(crate) mod looks;
pub(crate) mod oauth;
pub(crate) mod unsaved_test;

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;
use switchboard_core::{ErrorCode, ServerId, ServerSpec, ToolInfo, TransportKind};
use switchboard_mcp::{ConnectionSnapshot, ServerReport};
use switchboard_store::StoredServer;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::json::Json;
use crate::routes::responses::{BadInput, Conflict, NotFound, OwnedRead, TooLarge, Unauthorized};
use crate::routes::seeds::seed_001;
use crate::routes::servers::bodies::{ServerAnswer, ServerWritten};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, remove))
        .merge(crate::routes::servers::looks::routes())
}

/// A server as sent by a client: a [`ServerSpec`] whose `id` may be left out (it then comes
/// from the name).
pub(super) fn spec_from(mut body: Value, id: Option<&str>) -> Result<ServerSpec, ApiError> {
    let object = body.as_object_mut().ok_or_else(|| {
        ApiError::new(ErrorCode::ValidationError, "the body must be a JSON object")
            .key("error.msg.body_not_object")
    })?;
    crate::unknown_fields::check_server(object)?;
    if let Some(id) = id {
        object.insert("id".into(), Value::String(id.to_owned()));
    } else if !object.contains_key("id") {
        let name = object
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        object.insert("id".into(), Value::String(ServerId::from_name(name).0));
    }
    match object.get("transport") {
        Some(transport) => {
            if serde_json::from_value::<TransportKind>(transport.clone()).is_err() {
                return Err(ApiError::new(
                    ErrorCode::UnsupportedTransport,
                    format!("transport {transport} is not one of stdio, streamable_http, sse"),
                )
                .key("error.msg.transport_unknown")
                .param("transport", transport));
            }
        }
        // Seed 001: a URL without a transport is Streamable HTTP when it ends in /mcp, else
        // SSE.
        None => {
            if let Some(url) = object.get("url").and_then(Value::as_str) {
                let kind = TransportKind::infer_from_url(url);
                object.insert("transport".into(), Value::String(kind.as_str().into()));
            }
        }
    }
    serde_json::from_value(body).map_err(|e| {
        ApiError::new(
            ErrorCode::ValidationError,
            format!("the server does not fit: {e}"),
        )
        .key("error.msg.server_does_not_fit")
        .param("detail", e)
    })
}

/// What a caller may save (see [`switchboard_app::Servers::check`]): checked on every save
/// (create, import, update), and again by the connection policy before every start.
pub(super) fn check_member_rules(
    state: &AppState,
    caller: &Caller,
    spec: &ServerSpec,
) -> Result<(), ApiError> {
    Ok(state.servers.check(&caller.user, spec)?)
}

/// Creates `spec` for the caller, within their rules and their server quota.
pub(super) async fn create_checked(
    state: &AppState,
    caller: &Caller,
    spec: &ServerSpec,
) -> Result<StoredServer, ApiError> {
    Ok(state.servers.create(&caller.user, spec).await?)
}

/// `?q=`: only the servers every word of it appears in (see [`ServerSpec::matches`]).
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ServerSearch {
    /// Words that must each appear, whatever their case, in the server's id, name, URL
    /// (secrets masked), command or arguments.
    #[serde(default)]
    pub q: Option<String>,
}

/// Lists the caller's MCP servers, secrets masked; with `q`, only those it finds.
#[utoipa::path(
    get,
    path = "/api/mcp-servers",
    tag = "servers",
    operation_id = "list_servers",
    params(crate::routes::seeds::seed_001::FormatQuery, ServerSearch),
    responses(
        (status = 200, description = "The caller's MCP servers, secrets masked", body = Vec<ServerAnswer>),
        Unauthorized,
    ),
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(shape): Query<seed_001::FormatQuery>,
    Query(search): Query<ServerSearch>,
) -> Result<Response, ApiError> {
    let mut servers = state.store.servers(&caller.user.id).await?;
    if let Some(query) = search.q.as_deref() {
        servers.retain(|server| server.spec.matches(query));
    }
    Ok(seed_001::respond_list(servers, shape.format))
}

/// Creates an MCP server (its id comes from the name unless given).
#[utoipa::path(
    post,
    path = "/api/mcp-servers",
    tag = "servers",
    operation_id = "create_server",
    params(crate::routes::seeds::seed_001::FormatQuery),
    request_body = ServerWritten,
    responses(
        (status = 201, description = "Created, secrets masked", body = ServerAnswer),
        BadInput,
        Unauthorized,
        (status = 403, description = "Not allowed for this user (LAUNCH_NOT_ALLOWED, a refused destination, QUOTA_EXCEEDED)", body = ErrorBody),
        Conflict,
        TooLarge,
    ),
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Query(shape): Query<seed_001::FormatQuery>,
    Json(body): Json<Value>,
) -> Result<(StatusCode, Response), ApiError> {
    let spec = spec_from(seed_001::accept(body)?, None)?;
    let created = create_checked(&state, &caller, &spec).await?;
    Ok((
        StatusCode::CREATED,
        seed_001::respond(created, shape.format),
    ))
}

/// Reads an MCP server, secrets masked.
#[utoipa::path(
    get,
    path = "/api/mcp-servers/{id}",
    tag = "servers",
    operation_id = "read_server",
    params(("id" = String, Path, description = "The id"), crate::routes::seeds::seed_001::FormatQuery),
    responses(
        (status = 200, description = "The server, secrets masked", body = ServerAnswer),
        OwnedRead,
    ),
)]
pub(super) async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(shape): Query<seed_001::FormatQuery>,
) -> Result<Response, ApiError> {
    let server = state.store.server(&caller.user.id, &ServerId(id)).await?;
    Ok(seed_001::respond(server, shape.format))
}

/// Replaces an MCP server; masked secrets keep the stored ones, and the next use reconnects.
#[utoipa::path(
    put,
    path = "/api/mcp-servers/{id}",
    tag = "servers",
    operation_id = "update_server",
    params(("id" = String, Path, description = "The id"), crate::routes::seeds::seed_001::FormatQuery),
    request_body = ServerWritten,
    responses(
        (status = 200, description = "Replaced; masked secrets keep the stored ones", body = ServerAnswer),
        BadInput,
        Unauthorized,
        (status = 403, description = "Not allowed for this user (LAUNCH_NOT_ALLOWED, a refused destination)", body = ErrorBody),
        NotFound,
        Conflict,
        TooLarge,
    ),
)]
pub(super) async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(shape): Query<seed_001::FormatQuery>,
    Json(body): Json<Value>,
) -> Result<Response, ApiError> {
    let id = ServerId(id);
    // Not found before forbidden: another user's server must not be confirmed to exist.
    state.store.server(&caller.user.id, &id).await?;
    let spec = spec_from(seed_001::accept(body)?, Some(&id.0))?;
    let updated = replace_checked(&state, &caller, &spec).await?;
    Ok(seed_001::respond(updated, shape.format))
}

/// Replaces the caller's server `spec.id` with `spec`, within their rules; masked secrets keep
/// the stored ones (see [`switchboard_app::Servers::replace`]).
pub(super) async fn replace_checked(
    state: &AppState,
    caller: &Caller,
    spec: &ServerSpec,
) -> Result<StoredServer, ApiError> {
    Ok(state.servers.replace(&caller.user, spec).await?)
}

/// Deletes an MCP server and closes its connection.
#[utoipa::path(
    delete,
    path = "/api/mcp-servers/{id}",
    tag = "servers",
    operation_id = "delete_server",
    params(("id" = String, Path, description = "The id")),
    responses(
        (status = 204, description = "Deleted"),
        OwnedRead,
    ),
)]
pub(super) async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    delete_checked(&state, &caller, &ServerId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Deletes the caller's server and closes its connection (a stdio server's process group
/// ends with it).
pub(super) async fn delete_checked(
    state: &AppState,
    caller: &Caller,
    id: &ServerId,
) -> Result<(), ApiError> {
    state.servers.delete(&caller.user.id, id).await?;
    Ok(())
}

/// The connection state of the caller's server `id` (404 when it is not theirs), and when it
/// was read (RFC 3339, UTC): what every health route answers, each in its own shape.
pub(super) async fn health_of(
    state: &AppState,
    caller: &Caller,
    id: &ServerId,
) -> Result<(ConnectionSnapshot, String), ApiError> {
    let spec = state.store.connection_spec(&caller.user.id, id).await?;
    let snapshot = state.pool.snapshot(&caller.user.id, &spec);
    let now = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
    Ok((snapshot, now))
}

/// Connects to the caller's stored server just to look (server info and tools), then closes
/// that connection; the pool is not touched.
pub(super) async fn test_stored(
    state: &AppState,
    caller: &Caller,
    id: &ServerId,
) -> Result<ServerReport, ApiError> {
    let spec = state.store.connection_spec(&caller.user.id, id).await?;
    Ok(state.pool.test_connection(&caller.user.id, &spec).await?)
}

/// Every tool of the caller's server `id` (disabled ones included), through its pooled
/// connection and tool cache, with the server's spec (secrets in clear: not for display).
pub(super) async fn tools_of(
    state: &AppState,
    caller: &Caller,
    id: &ServerId,
) -> Result<(ServerSpec, Arc<Vec<ToolInfo>>), ApiError> {
    let spec = state.store.connection_spec(&caller.user.id, id).await?;
    let listed = state.pool.list_tools(&caller.user.id, &spec).await?;
    Ok((spec, listed))
}
