//! OAuth sign-in to remote MCP servers: start, callback, sign out, and the Client
//! ID Metadata Document authorization servers read to know Switchboard.
//!
//! The flow: `POST /api/mcp-servers/{id}/oauth/start` gives the authorization URL, which the
//! web UI opens in a new tab; the authorization server sends the browser back to
//! `GET /oauth/callback` on this server's public URL (or the address the page was loaded
//! from), which finishes the sign-in and sends the browser on to the settings page. The
//! callback carries no token (it is a plain navigation from the authorization server): the
//! OAuth `state`, unguessable, single-use and kept with its owner, is what ties it to the
//! person who started it. The protocol itself is the connection manager's
//! (`switchboard_mcp::oauth`); for a server on a node the pool sends the flow's requests from
//! the node, and the tokens stay here.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::{Deserialize, Serialize};
use switchboard_core::{Auth, ErrorCode, ServerId};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::routes::responses::{BadInput, NotFound, OwnedRead, Unauthorized};
use crate::state::AppState;

use crate::oauth_paths::{CALLBACK as CALLBACK_PATH, CLIENT_METADATA as CLIENT_METADATA_PATH};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(start))
        .routes(routes!(sign_out))
        .routes(routes!(callback))
        .routes(routes!(client_metadata))
}

/// Where to send the person to sign in.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignInStarted {
    /// The authorization server's page; open it in a new tab. Good for 15 minutes, once.
    pub authorization_url: String,
}

/// The origin the browser reaches this server at: the first public URL, else the request's
/// own `Host` (which the front door already checked is one this server answers to).
fn origin(state: &AppState, headers: &HeaderMap) -> Result<String, ApiError> {
    if let Some(public) = state.config.guard.public_urls.first() {
        return Ok(public.origin().ascii_serialization());
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .ok_or_else(|| ApiError::new(ErrorCode::ValidationError, "the request has no Host"))?;
    Ok(format!("http://{host}"))
}

/// Starts the caller's OAuth sign-in to their server `id`.
#[utoipa::path(
    post,
    path = "/api/mcp-servers/{id}/oauth/start",
    tag = "servers",
    operation_id = "start_server_sign_in",
    params(("id" = String, Path, description = "The server's id")),
    responses(
        (status = 200, description = "Open `authorizationUrl` to sign in", body = SignInStarted),
        (status = 400, description = "The server does not use OAuth sign-in, or its \
            authorization server could not be discovered (VALIDATION_ERROR, MCP_AUTH_FAILED)",
            body = crate::error::ErrorBody),
        OwnedRead,
    ),
)]
async fn start(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<axum::Json<SignInStarted>, ApiError> {
    let spec = state
        .store
        .connection_spec(&caller.user.id, &ServerId(id))
        .await?;
    if !matches!(spec.auth, Auth::OAuth { .. }) {
        return Err(ApiError::new(
            ErrorCode::ValidationError,
            format!("server `{}` does not use OAuth sign-in", spec.name),
        )
        .key("error.msg.not_oauth")
        .param("server", &spec.name));
    }
    let redirect_uri = format!("{}{CALLBACK_PATH}", origin(&state, &headers)?);
    let authorization_url = state
        .pool
        .start_sign_in(&caller.user.id, &spec, &redirect_uri)
        .await?;
    Ok(axum::Json(SignInStarted { authorization_url }))
}

/// Forgets the caller's sign-in to their server `id` and closes its connection.
#[utoipa::path(
    delete,
    path = "/api/mcp-servers/{id}/oauth",
    tag = "servers",
    operation_id = "sign_out_of_server",
    params(("id" = String, Path, description = "The server's id")),
    responses((status = 204, description = "Signed out"), Unauthorized, NotFound),
)]
async fn sign_out(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let spec = state
        .store
        .connection_spec(&caller.user.id, &ServerId(id))
        .await?;
    state
        .manager
        .sign_ins()
        .sign_out(&caller.user.id, &spec.id)
        .await
        .map_err(|e| ApiError::new(ErrorCode::InternalError, e.to_string()))?;
    state.pool.disconnect(&caller.user.id, &spec).await;
    Ok(StatusCode::NO_CONTENT)
}

/// What the authorization server sends back (RFC 6749 4.1.2, RFC 9207).
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct CallbackQuery {
    /// The authorization code.
    code: Option<String>,
    /// The sign-in this answers.
    state: Option<String>,
    /// The authorization server's issuer (RFC 9207).
    iss: Option<String>,
    /// Set instead of `code` when the person or the server refused.
    error: Option<String>,
}

/// The authorization server's redirect back: finishes the sign-in.
///
/// The browser is then sent to the MCP settings page (`?signedIn=ID`, or
/// `?signInFailed=ID&reason=CODE`).
#[utoipa::path(
    get,
    path = "/oauth/callback",
    tag = "servers",
    operation_id = "sign_in_callback",
    security(()),
    params(CallbackQuery),
    responses(
        (status = 303, description = "To the settings page, with the outcome in its query"),
        BadInput,
    ),
)]
async fn callback(
    State(state): State<AppState>,
    Query(query): Query<CallbackQuery>,
) -> Result<Response, ApiError> {
    let unknown = || {
        ApiError::new(
            ErrorCode::ValidationError,
            "this sign-in is unknown, was used already or took longer than 15 minutes",
        )
        .key("error.msg.sign_in_unknown")
    };
    let key = query.state.as_deref().ok_or_else(unknown)?;
    let pending = state
        .manager
        .sign_ins()
        .take(key)
        .await?
        .ok_or_else(unknown)?;
    let server = pending.server.clone();
    let settled = match (&query.error, &query.code) {
        (None, Some(code)) => {
            let spec = state
                .store
                .connection_spec(&pending.owner, &pending.server)
                .await?;
            let owner = pending.owner.clone();
            let finished = state
                .pool
                .finish_sign_in(&spec, pending, code, query.iss.as_deref())
                .await;
            state.gateway.announce(&owner);
            finished.map_err(|error| {
                tracing::warn!(server = %server.0, error = ?error.to_string(), "a sign-in failed");
                error.code()
            })
        }
        (Some(_), _) | (None, None) => Err(ErrorCode::McpAuthFailed),
    };
    let target = match settled {
        Ok(()) => format!("/settings/mcp?signedIn={}", encode(&server.0)),
        Err(code) => format!(
            "/settings/mcp?signInFailed={}&reason={}",
            encode(&server.0),
            code.as_str()
        ),
    };
    Ok(Redirect::to(&target).into_response())
}

fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Switchboard's Client ID Metadata Document.
///
/// The MCP authorization specification's client registration by URL: served when a public
/// `https:` URL is configured, since its own URL is the client id.
#[utoipa::path(
    get,
    path = "/oauth/client-metadata.json",
    tag = "servers",
    operation_id = "client_metadata_document",
    security(()),
    responses(
        (status = 200, description = "The OAuth client metadata (RFC 7591 fields)", body = crate::routes::schemas::ClientMetadata),
        NotFound,
    ),
)]
async fn client_metadata(State(state): State<AppState>) -> Result<Response, ApiError> {
    let Some(public) = state
        .config
        .guard
        .public_urls
        .iter()
        .find(|url| url.scheme() == "https")
    else {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            "no public https URL is configured, so there is no client metadata document",
        ));
    };
    let origin = public.origin().ascii_serialization();
    let document = serde_json::json!({
        "client_id": format!("{origin}{CLIENT_METADATA_PATH}"),
        "client_name": state.manager.sign_ins().identity().name,
        "client_uri": format!("{origin}/"),
        "redirect_uris": [format!("{origin}{CALLBACK_PATH}")],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "web",
    });
    Ok(axum::Json(document).into_response())
}
