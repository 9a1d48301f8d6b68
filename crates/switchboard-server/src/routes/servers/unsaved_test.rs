//! Testing a server configuration that is not saved: the settings dialog's Test button, for
//! the house shape (`POST /api/mcp-servers/test`, any transport) and for seed 002's
//! `MCPServerConfig` (`POST /api/mcp/servers/test`, served in `seed_002.rs`). Both go through
//! [`test_unsaved`], so the rules are the same whichever shape was written:
//!
//! - nothing is stored, and the connection made for the test is closed before the answer;
//! - when the configuration's id is a saved server's, secrets left masked are the saved ones,
//!   and only for the saved destination (a changed URL or transport must give them again);
//! - the configuration goes through the same member rules as a save (launch templates for a
//!   stdio command, destination checks for a URL), and the connection manager connects under
//!   its connect-time destination policy;
//! - a failure is the error it met (`MCP_UNREACHABLE`, `MCP_AUTH_FAILED`, `MCP_TIMEOUT` ...).
//!
//! The router matches the literal `/api/mcp-servers/test` before `/api/mcp-servers/{id}`, so
//! a server whose id is `test` (one named "Test") would answer 405 to GET, PUT and DELETE;
//! this path serves those methods as that server's, through the house handlers.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;
use switchboard_core::{ErrorCode, ServerId, ServerSpec};
use switchboard_mcp::ServerReport;
use switchboard_store::StoreError;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::json::Json;
use crate::routes::responses::{
    BadInput, Conflict, NotFound, OwnedRead, TooLarge, Unauthorized, UpstreamTimeout,
};
use crate::routes::seeds::seed_001;
use crate::routes::servers::bodies::{
    ServerAnswer, ServerReport as ServerReportBody, ServerWritten,
};
use crate::routes::servers::{self, check_member_rules, spec_from};
use crate::state::AppState;

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(
        test,
        read_named_test,
        update_named_test,
        remove_named_test
    ))
}

/// The caller's saved server `id` with its secrets in clear, if there is one.
pub(crate) async fn saved(
    state: &AppState,
    caller: &Caller,
    id: &ServerId,
) -> Result<Option<ServerSpec>, ApiError> {
    match state.store.connection_spec(&caller.user.id, id).await {
        Ok(spec) => Ok(Some(spec)),
        Err(StoreError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Connects to `spec` just to look (server info and tools) and closes that connection;
/// `saved` is the caller's saved server of the same id, whose secrets stand in for masked
/// ones (for its own destination only). Nothing is stored.
pub(crate) async fn test_unsaved(
    state: &AppState,
    caller: &Caller,
    mut spec: ServerSpec,
    saved: Option<&ServerSpec>,
) -> Result<ServerReport, ApiError> {
    if let Some(old) = saved
        && spec.holds_mask()
    {
        spec.keep_masked_secrets(old);
        if spec.url != old.url || spec.transport != old.transport {
            return Err(ApiError::new(
                ErrorCode::ValidationError,
                "the server's URL changed: enter its secrets again instead of the mask",
            )
            .key("error.msg.url_changed_secrets"));
        }
    }
    spec.validate().map_err(|e| {
        ApiError::new(ErrorCode::ValidationError, e.to_string())
            .words(crate::error_words::spec::spec(&e))
    })?;
    check_member_rules(state, caller, &spec)?;
    Ok(state.pool.test_connection(&caller.user.id, &spec).await?)
}

/// Tests a server configuration that is not saved.
///
/// The body is a server as `POST /api/mcp-servers` takes it (any transport, stdio included,
/// seed 001's field names accepted). Nothing is stored, and the connection made for the test
/// is closed before the answer. When the body's id is a saved server's, masked secrets are
/// the saved ones, for the saved URL only.
#[utoipa::path(
    post,
    path = "/api/mcp-servers/test",
    tag = "servers",
    operation_id = "test_unsaved_server",
    request_body = ServerWritten,
    responses(
        (status = 200, description = "Connected, initialized and listed: server info and tools", body = ServerReportBody),
        BadInput,
        Unauthorized,
        (status = 403, description = "Not allowed for this user (LAUNCH_NOT_ALLOWED, a refused destination)", body = ErrorBody),
        TooLarge,
        (status = 502, description = "The MCP server could not be reached, refused the credentials or failed", body = ErrorBody),
        UpstreamTimeout,
    ),
)]
async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<Value>,
) -> Result<axum::Json<ServerReport>, ApiError> {
    let spec = spec_from(seed_001::accept(body)?, None)?;
    let saved = saved(&state, &caller, &spec.id).await?;
    Ok(axum::Json(
        test_unsaved(&state, &caller, spec, saved.as_ref()).await?,
    ))
}

/// The id the literal path stands for.
fn named_test() -> Path<String> {
    Path("test".to_owned())
}

/// Reads the server whose id is `test`, as `GET /api/mcp-servers/{id}`.
#[utoipa::path(
    get,
    path = "/api/mcp-servers/test",
    tag = "servers",
    operation_id = "read_server_named_test",
    params(seed_001::FormatQuery),
    responses(
        (status = 200, description = "The server whose id is `test`, secrets masked", body = ServerAnswer),
        OwnedRead,
    ),
)]
async fn read_named_test(
    state: State<AppState>,
    caller: Caller,
    shape: Query<seed_001::FormatQuery>,
) -> Result<Response, ApiError> {
    servers::read(state, caller, named_test(), shape).await
}

/// Replaces the server whose id is `test`, as `PUT /api/mcp-servers/{id}`.
#[utoipa::path(
    put,
    path = "/api/mcp-servers/test",
    tag = "servers",
    operation_id = "update_server_named_test",
    params(seed_001::FormatQuery),
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
async fn update_named_test(
    state: State<AppState>,
    caller: Caller,
    shape: Query<seed_001::FormatQuery>,
    body: Json<Value>,
) -> Result<Response, ApiError> {
    servers::update(state, caller, named_test(), shape, body).await
}

/// Deletes the server whose id is `test`, as `DELETE /api/mcp-servers/{id}`.
#[utoipa::path(
    delete,
    path = "/api/mcp-servers/test",
    tag = "servers",
    operation_id = "delete_server_named_test",
    responses(
        (status = 204, description = "Deleted"),
        OwnedRead,
    ),
)]
async fn remove_named_test(state: State<AppState>, caller: Caller) -> Result<StatusCode, ApiError> {
    servers::remove(state, caller, named_test()).await
}
