//! LLM providers: `openai` (any OpenAI-compatible endpoint) or `anthropic`. API keys are
//! masked on every read; an update that sends the mask back keeps the stored key (for a URL
//! at another origin only with `keepApiKey`). A provider is tested by listing its models,
//! saved (`GET /api/providers/{id}/models`) or not (`POST /api/providers/test`); model
//! servers on this machine are looked for on request (`GET /api/local-providers`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use switchboard_store::{Provider, ProviderConfig};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::provider_models::{self, ModelList};
use crate::routes::responses::{
    BadInput, Conflict, OwnedRead, OwnedWrite, QuotaExceeded, TooLarge, Unauthorized,
};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, update, remove))
        .routes(routes!(models))
        .merge(provider_models::routes())
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
///
/// The stored key is kept while the endpoint stays at the same origin (scheme, host, port).
/// When `baseUrl` (or the kind's default endpoint) moves to another origin and the key is
/// sent masked, the update is refused with 409 `API_KEY_ORIGIN_CHANGED`, naming both origins,
/// unless the body says `keepApiKey: true`: the key is never sent somewhere new unasked.
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
        (status = 409, description = "A name in use (CONFLICT), or a kept key for another origin without keepApiKey (API_KEY_ORIGIN_CHANGED)", body = crate::error::ErrorBody),
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

/// Lists a provider's models: the provider's Test, and the models a chat may pick.
///
/// Asks the provider (`GET {baseUrl}/models`, Ollama's `/api/tags` where that is not found,
/// Anthropic's `/v1/models`) within 10 s and 8 MiB. When it fails, the answer says why in
/// words: a name that does not resolve, nothing listening at the port, no answer in time,
/// the key refused, nothing at the path.
#[utoipa::path(
    get,
    path = "/api/providers/{id}/models",
    tag = "providers",
    operation_id = "list_provider_models",
    params(("id" = String, Path, description = "The provider's id")),
    responses(
        (status = 200, description = "The provider's models, sorted", body = ModelList),
        OwnedRead,
        (status = 403, description = "A member's URL the destination guard refuses (DESTINATION_NOT_ALLOWED)", body = crate::error::ErrorBody),
        (status = 502, description = "Not reached, or no list of models (UPSTREAM_UNAVAILABLE); the message says why in words: the name does not resolve, nothing listens at the port, no answer in time, the key was refused, nothing answers at the path", body = crate::error::ErrorBody),
    ),
)]
async fn models(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ModelList>, ApiError> {
    let models = state.providers.models(&caller.user, &id).await?;
    Ok(axum::Json(ModelList { models }))
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
