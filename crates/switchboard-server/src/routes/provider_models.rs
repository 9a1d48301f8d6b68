//! A provider's models as the providers page asks for them: testing a configuration that
//! is not saved yet (`POST /api/providers/test`) and the model servers found on this machine
//! (`GET /api/local-providers`). The use cases are the application's
//! ([`switchboard_app::providers`]); this translates HTTP.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use switchboard_store::ProviderConfig;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::json::Json;
use crate::routes::responses::{BadInput, NotFound, TooLarge, Unauthorized};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(test))
        .routes(routes!(local))
}

/// A provider's models.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelList {
    /// The model ids, sorted (at most 5,000).
    pub models: Vec<String>,
}

/// A provider configuration to test.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderTest {
    /// The configuration as `POST /api/providers` takes it.
    config: ProviderConfig,
    /// The saved provider it edits, if any: its masked key and URL credentials stand for the
    /// saved ones (the key within the saved origin, elsewhere only with `keepApiKey`).
    #[serde(default)]
    id: Option<String>,
}

/// Tests a provider configuration that is not saved, by listing its models.
///
/// Nothing is stored. The configuration is checked as a save is (a member's URL against the
/// destination guard), then its models are listed as `GET /api/providers/{id}/models` does.
#[utoipa::path(
    post,
    path = "/api/providers/test",
    tag = "providers",
    operation_id = "test_unsaved_provider",
    request_body = ProviderTest,
    responses(
        (status = 200, description = "Reached: the provider's models, sorted", body = ModelList),
        BadInput,
        Unauthorized,
        NotFound,
        (status = 409, description = "The key left masked while the URL moves to another origin, without keepApiKey (API_KEY_ORIGIN_CHANGED)", body = ErrorBody),
        TooLarge,
        (status = 403, description = "A member's URL the destination guard refuses (DESTINATION_NOT_ALLOWED)", body = ErrorBody),
        (status = 502, description = "Not reached, or no list of models (UPSTREAM_UNAVAILABLE); the message says why in words", body = ErrorBody),
    ),
)]
async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<ProviderTest>,
) -> Result<axum::Json<ModelList>, ApiError> {
    let models = state
        .providers
        .test(&caller.user, &body.config, body.id.as_deref())
        .await?;
    Ok(axum::Json(ModelList { models }))
}

/// A model server found on this machine.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalProvider {
    /// The server usually found on its port (`Ollama`, `LM Studio`, `llama.cpp`, `vLLM`);
    /// absent for another port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub port: u16,
    /// Its OpenAI-compatible API root, ready for a provider's `baseUrl`.
    pub base_url: String,
    /// The models it lists, sorted.
    pub models: Vec<String>,
}

/// Looks for model servers on this machine.
///
/// Asks 127.0.0.1's configured ports (`[providers] local_ports`; by default Ollama's 11434,
/// LM Studio's 1234, llama.cpp's 8080 and vLLM's 8000) for their models, all at once and
/// briefly, and answers those that listed them. Nothing is added: the person chooses. A
/// member held to the destination guard gets 403 unless the admin allows loopback.
#[utoipa::path(
    get,
    path = "/api/local-providers",
    tag = "providers",
    operation_id = "find_local_providers",
    responses(
        (status = 200, description = "The model servers that answered, in port order", body = Vec<LocalProvider>),
        Unauthorized,
        (status = 403, description = "A member may not reach this machine (DESTINATION_NOT_ALLOWED)", body = ErrorBody),
    ),
)]
async fn local(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<axum::Json<Vec<LocalProvider>>, ApiError> {
    let found = state.providers.find_local(&caller.user).await?;
    Ok(axum::Json(
        found
            .into_iter()
            .map(|server| LocalProvider {
                name: server.name.map(str::to_owned),
                port: server.port,
                base_url: server.base_url,
                models: server.models,
            })
            .collect(),
    ))
}
