//! A `Json` extractor whose rejections are [`ApiError`]s, so malformed JSON, wrong types,
//! unknown fields and oversized bodies get the same error shape as everything else.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use switchboard_core::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

pub struct Json<T>(pub T);

impl<T> FromRequest<AppState> for Json<T>
where
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        match axum::Json::<T>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Json(value)),
            Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                Err(crate::guard::body::too_large(state.config.max_body_bytes))
            }
            Err(rejection) => Err(describe(&rejection)),
        }
    }
}

/// What the parser said, without axum's frame ("Failed to deserialize the JSON body into the
/// target type: "), which our own sentence replaces.
fn parser_words(rejection: &(dyn std::error::Error + 'static), framed: String) -> String {
    rejection
        .source()
        .map(ToString::to_string)
        .filter(|words| !words.is_empty())
        .unwrap_or(framed)
}

/// A rejection in the error shape; serde's own words (which field, which line) stay English
/// in `{detail}`.
fn describe(rejection: &JsonRejection) -> ApiError {
    let with_detail = |key: &'static str, english: &str, detail: String| {
        ApiError::new(ErrorCode::ValidationError, format!("{english}: {detail}"))
            .key(key)
            .param("detail", detail)
    };
    match rejection {
        JsonRejection::JsonDataError(e) => with_detail(
            "error.msg.body_does_not_fit",
            "the body does not fit",
            parser_words(e, e.body_text()),
        ),
        JsonRejection::JsonSyntaxError(e) => with_detail(
            "error.msg.body_not_json",
            "the body is not valid JSON",
            parser_words(e, e.body_text()),
        ),
        JsonRejection::MissingJsonContentType(_) => ApiError::new(
            ErrorCode::ValidationError,
            "send the body as JSON with Content-Type: application/json",
        )
        .key("error.msg.body_needs_json_type"),
        JsonRejection::BytesRejection(e) => with_detail(
            "error.msg.body_unreadable",
            "the body could not be read",
            e.body_text(),
        ),
        other => ApiError::new(ErrorCode::ValidationError, other.body_text()),
    }
}
