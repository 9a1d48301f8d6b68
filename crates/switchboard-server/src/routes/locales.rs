//! The locale files for the web UI: `GET /api/locales/{lang}` answers every key of
//! `locales/<lang>.json` (the `ui.*` strings and the error texts), as the server embedded
//! them. No token: the page needs its words before anyone has signed in.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use switchboard_core::{ErrorCode, Locale};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(read))
}

/// Every text of one locale, by key (`ui.chat.send`, `error.MCP_TIMEOUT.hint`, ...).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(example = json!({"ui.chat.send": "Send"}))]
pub struct LocaleTexts(pub BTreeMap<String, String>);

/// The texts of `lang` (`en-US` or `zh-Hans`).
#[utoipa::path(
    get,
    path = "/api/locales/{lang}",
    tag = "locales",
    operation_id = "read_locale",
    security(()),
    params(("lang" = String, Path, description = "`en-US` or `zh-Hans`")),
    responses(
        (status = 200, description = "Every key of the locale file and its text", body = LocaleTexts),
        (status = 404, description = "No such locale", body = crate::error::ErrorBody),
    )
)]
async fn read(
    State(state): State<AppState>,
    Path(lang): Path<String>,
) -> Result<axum::Json<LocaleTexts>, ApiError> {
    let locale: Locale = lang.parse().map_err(|e: switchboard_core::UnknownLocale| {
        ApiError::new(ErrorCode::NotFound, e.to_string())
            .key("error.msg.locale_unknown")
            .param("locale", format!("{lang:?}"))
    })?;
    let texts = state.locales.texts(locale).cloned().unwrap_or_default();
    Ok(axum::Json(LocaleTexts(texts)))
}
