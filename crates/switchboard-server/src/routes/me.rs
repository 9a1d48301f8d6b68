//! The signed-in user: `GET /api/me` and `PATCH /api/me` (their language). The language set
//! here wins over the browser's `Accept-Language` for every error answer to this user
//! ([`crate::i18n`]) and is what the web UI shows once signed in.

use axum::extract::State;
use serde::{Deserialize, Deserializer, Serialize};
use switchboard_core::{ErrorCode, Locale};
use switchboard_store::User;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::responses::Unauthorized;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::json::Json;
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
}

impl From<User> for Me {
    fn from(user: User) -> Self {
        Me {
            id: user.id.0,
            name: user.name,
            role: user.role.as_str().to_owned(),
            locale: user.locale,
        }
    }
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

/// The caller: id, name, role, language.
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
async fn read(caller: Caller) -> axum::Json<Me> {
    axum::Json(caller.user.into())
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
    let Some(locale) = update.locale else {
        return Ok(axum::Json(caller.user.into()));
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
    Ok(axum::Json(user.into()))
}
