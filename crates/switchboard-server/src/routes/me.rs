//! The signed-in user: `GET /api/me` and `PATCH /api/me` (their language). The language set
//! here wins over the browser's `Accept-Language` for every error answer to this user
//! ([`crate::i18n`]) and is what the web UI shows once signed in.

use axum::extract::State;
use serde::{Deserialize, Deserializer, Serialize};
use switchboard_core::{ErrorCode, Locale, OwnerId};
use switchboard_store::User;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
use crate::routes::responses::Unauthorized;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(read, update))
}

/// The caller, as `GET /api/me` shows them.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Me {
    pub id: String,
    pub name: String,
    /// `admin` or `member`.
    pub role: String,
    /// The language they chose (`en-US` or `zh-Hans`); null: the browser's.
    #[schema(value_type = Option<String>, example = "zh-Hans")]
    pub locale: Option<Locale>,
    /// Whether a model provider can answer their chats: one of theirs is stored, or the
    /// server has one from its environment. The chat page says so beside the message box
    /// when not.
    pub provider_configured: bool,
}

impl Me {
    fn of(user: User, provider_configured: bool) -> Self {
        Me {
            id: user.id.0,
            name: user.name,
            role: user.role.as_str().to_owned(),
            locale: user.locale,
            provider_configured,
        }
    }
}

/// Whether `owner`'s chats have a provider to answer them.
async fn provider_configured(state: &AppState, owner: &OwnerId) -> Result<bool, ApiError> {
    Ok(state.env_provider.is_some() || !state.store.providers(owner).await?.is_empty())
}

/// A change to the caller's settings; a field left out is left as it is.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MeUpdate {
    /// `en-US`, `zh-Hans`, or null to follow the browser again.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, example = "zh-Hans")]
    pub locale: Option<Option<String>>,
}

/// A field that is present, even as null, is `Some`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// The caller: id, name, role, language, whether a model provider is configured.
#[utoipa::path(
    get,
    path = "/api/me",
    tag = "me",
    operation_id = "read_me",
    responses(
        (status = 200, description = "The caller", body = Me),
        Unauthorized,
    )
)]
async fn read(State(state): State<AppState>, caller: Caller) -> Result<axum::Json<Me>, ApiError> {
    let configured = provider_configured(&state, &caller.user.id).await?;
    Ok(axum::Json(Me::of(caller.user, configured)))
}

/// Changes the caller's language (`{"locale": "zh-Hans" | "en-US" | null}`).
#[utoipa::path(
    patch,
    path = "/api/me",
    tag = "me",
    operation_id = "update_me",
    request_body = MeUpdate,
    responses(
        (status = 200, description = "The caller as now stored", body = Me),
        (status = 400, description = "Unknown locale or field, malformed JSON", body = crate::error::ErrorBody),
        Unauthorized,
    )
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Json(update): Json<MeUpdate>,
) -> Result<axum::Json<Me>, ApiError> {
    let configured = provider_configured(&state, &caller.user.id).await?;
    let Some(locale) = update.locale else {
        return Ok(axum::Json(Me::of(caller.user, configured)));
    };
    let locale = match locale {
        Some(tag) => Some(tag.parse::<Locale>().map_err(|e| {
            ApiError::new(ErrorCode::ValidationError, e.to_string())
                .key("error.msg.locale_unknown")
                .param("locale", format!("{tag:?}"))
        })?),
        None => None,
    };
    let user = state.store.set_user_locale(&caller.user.id, locale).await?;
    Ok(axum::Json(Me::of(user, configured)))
}
