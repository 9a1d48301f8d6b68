//! A chat's own model, system prompt and temperature (`PUT /api/conversations/{id}/settings`)
//! and the models it may pick from (`GET /api/conversations/{id}/models`): the chat header's
//! model picker and settings, without making an assistant.

use axum::extract::{Path, State};
use serde::Serialize;
use switchboard_store::{ChatSettings, Conversation};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::json::Json;
use crate::routes::responses::{OwnedEdit, OwnedRead};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(set_settings))
        .routes(routes!(models))
}

/// Replaces a chat's own model, system prompt and temperature.
///
/// Each one given is used by the chat's runs in place of the assistant's (and the
/// provider's default model); null or left out, the assistant's, else the provider's default.
/// Blank text counts as none. The temperature goes from 0 to 2.
#[utoipa::path(
    put,
    path = "/api/conversations/{id}/settings",
    tag = "conversations",
    operation_id = "set_chat_settings",
    params(("id" = String, Path, description = "The conversation's id")),
    request_body = ChatSettings,
    responses(
        (status = 200, description = "The conversation with its settings as stored", body = Conversation),
        OwnedEdit,
    ),
)]
async fn set_settings(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(settings): Json<ChatSettings>,
) -> Result<axum::Json<Conversation>, ApiError> {
    Ok(axum::Json(
        state
            .store
            .set_chat_settings(&caller.user.id, &id, &settings)
            .await?,
    ))
}

/// The models a chat may pick from.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatModels {
    /// The stored provider its runs use; absent for the one the server's environment
    /// describes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_name: Option<String>,
    /// The model its runs use without a model of their own: the assistant's, else the
    /// provider's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    /// The provider's models, sorted.
    pub models: Vec<String>,
}

/// Lists the models a chat may pick from: those of the provider its runs use.
#[utoipa::path(
    get,
    path = "/api/conversations/{id}/models",
    tag = "conversations",
    operation_id = "list_chat_models",
    params(("id" = String, Path, description = "The conversation's id")),
    responses(
        (status = 200, description = "The provider's models and the chat's default model", body = ChatModels),
        OwnedRead,
        (status = 400, description = "There is no provider, or it names no model (VALIDATION_ERROR)", body = ErrorBody),
        (status = 403, description = "A member's provider URL the destination guard refuses (DESTINATION_NOT_ALLOWED)", body = ErrorBody),
        (status = 502, description = "The provider was not reached or listed no models (UPSTREAM_UNAVAILABLE); the message says why", body = ErrorBody),
    ),
)]
async fn models(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<axum::Json<ChatModels>, ApiError> {
    let found = state.providers.chat_models(&caller.user, &id).await?;
    let (provider_id, provider_name) = found.provider.unzip();
    Ok(axum::Json(ChatModels {
        provider_id,
        provider_name,
        default_model: found.default_model,
        models: found.models,
    }))
}
