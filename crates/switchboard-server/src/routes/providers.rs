//! LLM providers: `openai` (any OpenAI-compatible endpoint) or `anthropic`. API keys are
//! masked on every read; an update that sends the mask back keeps the stored key.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use switchboard_store::{Provider, ProviderConfig};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::{
    BadInput, Conflict, OwnedRead, OwnedWrite, QuotaExceeded, TooLarge, Unauthorized,
};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, remove))
}

/// Lists the caller's providers, API keys masked.
#[utoipa::path(
    get,
    path = "/api/providers",
    tag = "providers",
    operation_id = "list_providers",
    responses(
        (status = 200, description = "The caller's providers, keys masked", body = Vec<Provider>),
        Unauthorized,
    ),
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<Provider>>, ApiError> {
    Ok(axum::Json(state.store.providers(&caller.user.id).await?))
}

/// Creates a provider.
#[utoipa::path(
    post,
    path = "/api/providers",
    tag = "providers",
    operation_id = "create_provider",
    request_body = ProviderConfig,
    responses(
        (status = 201, description = "Created, the key masked", body = Provider),
        BadInput,
        Unauthorized,
        QuotaExceeded,
        Conflict,
        TooLarge,
    ),
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(config): Json<ProviderConfig>,
) -> Result<(StatusCode, axum::Json<Provider>), ApiError> {
    let created = state.providers.create(&caller.user, &config).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// Reads a provider, its API key masked.
#[utoipa::path(
    get,
    path = "/api/providers/{id}",
    tag = "providers",
    operation_id = "read_provider",
    params(("id" = String, Path, description = "The provider's id")),
    responses(
        (status = 200, description = "The provider, key masked", body = Provider),
        OwnedRead,
    ),
)]
async fn read(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<Provider>, ApiError> {
    Ok(axum::Json(
        state.store.provider(&caller.user.id, &id).await?,
    ))
}

/// Replaces a provider; a masked API key keeps the stored one.
#[utoipa::path(
    put,
    path = "/api/providers/{id}",
    tag = "providers",
    operation_id = "update_provider",
    params(("id" = String, Path, description = "The provider's id")),
    request_body = ProviderConfig,
    responses(
        (status = 200, description = "Replaced; a masked key keeps the stored one", body = Provider),
        OwnedWrite,
    ),
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(config): Json<ProviderConfig>,
) -> Result<axum::Json<Provider>, ApiError> {
    Ok(axum::Json(
        state.providers.replace(&caller.user, &id, &config).await?,
    ))
}

/// Deletes a provider.
#[utoipa::path(
    delete,
    path = "/api/providers/{id}",
    tag = "providers",
    operation_id = "delete_provider",
    params(("id" = String, Path, description = "The provider's id")),
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
    state.store.delete_provider(&caller.user.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
