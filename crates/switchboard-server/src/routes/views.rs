//! Views of the MCP gateway: `GET/POST /api/mcp/views`, `GET/PUT/DELETE
//! /api/mcp/views/{id}`, and the API tokens limited to one view (`/api/mcp/views/{id}/tokens`).
//!
//! The body is the view's own JSON ([`ViewSpec`]); the answer adds its id and times. Saving
//! checks it ([`switchboard_app::views::check_for_save`]): 400 for a broken rule, 404 for a server or
//! assistant that is not the caller's, 409 for a taken name or for tool names that would
//! collide (the message names them). Reading one view also reports collisions that appeared
//! since it was saved (an upstream added a tool). Every change is announced to the caller's
//! gateway sessions. A token made here opens only `/mcp` and `/mcp/v/{its view}` (see
//! [`crate::auth`]); its secret is in the answer once.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use switchboard_core::ViewSpec;
use switchboard_gateway::{Collision, ViewReport};
use switchboard_store::{ApiToken, IssuedToken, StoredView};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::{BadInput, OwnedRead, QuotaExceeded, Unauthorized};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, remove))
        .routes(routes!(list_tokens, create_token))
        .routes(routes!(revoke_token))
}

/// A view with what its tools' names look like now.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewDetail {
    #[serde(flatten)]
    pub view: StoredView,
    /// Exported names that several of the view's tools want now (an upstream added a tool
    /// since the view was saved). The gateway offers each with a suffix and logs it; change the
    /// prefixes or the tools to settle them. Empty when the servers could not be listed.
    pub collisions: Vec<ViewCollision>,
    /// The exported names of its tools that ask a person before they run (their servers do
    /// not auto-approve them): a client that declared elicitation is asked; one that did not
    /// gets what `GET /api/mcp/connect`'s `unapproved` says. Empty when the servers could not
    /// be listed.
    pub asking: Vec<String>,
}

/// Several tools of a view that want one exported name.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewCollision {
    /// The contested name.
    pub name: String,
    pub tools: Vec<CollidingTool>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollidingTool {
    /// The server's name.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
}

impl From<Collision> for ViewCollision {
    fn from(c: Collision) -> Self {
        ViewCollision {
            name: c.name,
            tools: c
                .tools
                .into_iter()
                .map(|(server, tool)| CollidingTool { server, tool })
                .collect(),
        }
    }
}

/// An API token limited to a view, as listed: its secret is not kept.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewToken {
    pub id: String,
    pub label: String,
    pub view_id: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When it stops being accepted (milliseconds since the Unix epoch); absent: when revoked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
}

impl ViewToken {
    fn of(token: ApiToken, view_id: &str) -> Self {
        ViewToken {
            id: token.id,
            label: token.label,
            view_id: token.view_id.unwrap_or_else(|| view_id.to_owned()),
            created_at: token.created_at.0,
            expires_at: token.expires_at.map(|t| t.0),
        }
    }
}

/// A token just made: the only answer that carries its secret.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuedViewToken {
    #[serde(flatten)]
    pub token: ViewToken,
    /// `Authorization: Bearer <secret>`; shown now only.
    pub secret: String,
}

/// A token to make for a view.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewViewToken {
    /// What the token is for (`Claude Desktop on the laptop`); the view's name when empty.
    #[serde(default)]
    pub label: String,
}

/// Lists the caller's views, oldest first.
#[utoipa::path(
    get,
    path = "/api/mcp/views",
    tag = "gateway",
    operation_id = "list_views",
    responses(
        (status = 200, description = "The caller's views", body = Vec<StoredView>),
        Unauthorized,
    ),
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<StoredView>>, ApiError> {
    Ok(axum::Json(state.store.views(&caller.user.id).await?))
}

/// Creates a view, served at `/mcp/v/{name}`.
#[utoipa::path(
    post,
    path = "/api/mcp/views",
    tag = "gateway",
    operation_id = "create_view",
    request_body = ViewSpec,
    responses(
        (status = 201, description = "Created", body = StoredView),
        BadInput,
        Unauthorized,
        QuotaExceeded,
        (status = 404, description = "A server or the assistant is not the caller's", body = crate::error::ErrorBody),
        (status = 409, description = "The name is taken, or tool names of the view collide (the message names them)", body = crate::error::ErrorBody),
    ),
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(spec): Json<ViewSpec>,
) -> Result<(StatusCode, axum::Json<StoredView>), ApiError> {
    let created = state.views.create(&caller.user, &spec).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// Reads a view, with the collisions its tools' names have now and the tools that ask a person.
#[utoipa::path(
    get,
    path = "/api/mcp/views/{id}",
    tag = "gateway",
    operation_id = "read_view",
    params(("id" = String, Path, description = "The view's id")),
    responses(
        (status = 200, description = "The view", body = ViewDetail),
        OwnedRead,
    ),
)]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ViewDetail>, ApiError> {
    let view = state.store.view(&caller.user.id, &id).await?;
    let report = match state.gateway.view_report(&caller.user, &view.spec).await {
        Ok(report) => report,
        // The view is still worth showing (its assistant may have been deleted).
        Err(error) => {
            tracing::warn!(%error, view = %view.id, "could not list a view's tools for its collisions");
            ViewReport::default()
        }
    };
    Ok(axum::Json(ViewDetail {
        view,
        collisions: report
            .collisions
            .into_iter()
            .map(ViewCollision::from)
            .collect(),
        asking: report.asking,
    }))
}

/// Replaces a view, with the same checks as creating one.
#[utoipa::path(
    put,
    path = "/api/mcp/views/{id}",
    tag = "gateway",
    operation_id = "update_view",
    params(("id" = String, Path, description = "The view's id")),
    request_body = ViewSpec,
    responses(
        (status = 200, description = "Replaced", body = StoredView),
        BadInput,
        Unauthorized,
        (status = 404, description = "The view, a server or the assistant is not the caller's", body = crate::error::ErrorBody),
        (status = 409, description = "The name is taken, or tool names of the view collide (the message names them)", body = crate::error::ErrorBody),
    ),
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(spec): Json<ViewSpec>,
) -> Result<axum::Json<StoredView>, ApiError> {
    Ok(axum::Json(
        state.views.replace(&caller.user, &id, &spec).await?,
    ))
}

/// Deletes a view and every token limited to it.
#[utoipa::path(
    delete,
    path = "/api/mcp/views/{id}",
    tag = "gateway",
    operation_id = "delete_view",
    params(("id" = String, Path, description = "The view's id")),
    responses(
        (status = 204, description = "Deleted, with its tokens"),
        OwnedRead,
    ),
)]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.views.delete(&caller.user.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The tokens limited to a view, oldest first.
#[utoipa::path(
    get,
    path = "/api/mcp/views/{id}/tokens",
    tag = "gateway",
    operation_id = "list_view_tokens",
    params(("id" = String, Path, description = "The view's id")),
    responses(
        (status = 200, description = "The view's tokens, without their secrets", body = Vec<ViewToken>),
        OwnedRead,
    ),
)]
async fn list_tokens(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Vec<ViewToken>>, ApiError> {
    let owner = &caller.user.id;
    state.store.view(owner, &id).await?;
    let tokens = state
        .store
        .tokens(owner)
        .await?
        .into_iter()
        .filter(|t| t.view_id.as_deref() == Some(id.as_str()))
        .map(|t| ViewToken::of(t, &id))
        .collect();
    Ok(axum::Json(tokens))
}

/// Makes an API token that opens only this view; its secret is in this answer only.
///
/// The token is accepted at `/mcp` and `/mcp/v/{name}` and refused (403) everywhere else.
#[utoipa::path(
    post,
    path = "/api/mcp/views/{id}/tokens",
    tag = "gateway",
    operation_id = "create_view_token",
    params(("id" = String, Path, description = "The view's id")),
    request_body = NewViewToken,
    responses(
        (status = 201, description = "Created; the secret is shown once", body = IssuedViewToken),
        BadInput,
        OwnedRead,
    ),
)]
async fn create_token(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(new): Json<NewViewToken>,
) -> Result<(StatusCode, axum::Json<IssuedViewToken>), ApiError> {
    let owner = &caller.user.id;
    let view = state.store.view(owner, &id).await?;
    let label = match new.label.trim() {
        "" => view.spec.name.as_str(),
        label => label,
    };
    let IssuedToken { token, secret } = state
        .store
        .issue_token_for(owner, label, None, Some(&view.id))
        .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(IssuedViewToken {
            token: ViewToken::of(token, &id),
            secret,
        }),
    ))
}

/// Revokes a token of the view.
#[utoipa::path(
    delete,
    path = "/api/mcp/views/{id}/tokens/{tokenId}",
    tag = "gateway",
    operation_id = "revoke_view_token",
    params(
        ("id" = String, Path, description = "The view's id"),
        ("tokenId" = String, Path, description = "The token's id"),
    ),
    responses(
        (status = 204, description = "Revoked"),
        OwnedRead,
    ),
)]
async fn revoke_token(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, token_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let owner = &caller.user.id;
    state.store.view(owner, &id).await?;
    // Only a token of this view: a full-access token is not revoked through a view's path.
    let of_view = state
        .store
        .tokens(owner)
        .await?
        .iter()
        .any(|t| t.id == token_id && t.view_id.as_deref() == Some(id.as_str()));
    if !of_view {
        return Err(switchboard_store::StoreError::NotFound {
            entity: switchboard_store::Entity::ApiToken,
            id: token_id,
        }
        .into());
    }
    state.store.revoke_token(owner, &token_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
