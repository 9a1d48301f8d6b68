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
                Err(ApiError::new(
                    ErrorCode::PayloadTooLarge,
                    format!(
                        "the body is larger than this server takes ({} bytes at most)",
                        state.config.max_body_bytes
                    ),
                ))
            }
            Err(rejection) => Err(ApiError::new(
                ErrorCode::ValidationError,
                describe(&rejection),
            )),
        }
    }
}

fn describe(rejection: &JsonRejection) -> String {
    match rejection {
        JsonRejection::JsonDataError(e) => format!("the body does not fit: {}", e.body_text()),
        JsonRejection::JsonSyntaxError(e) => {
            format!("the body is not valid JSON: {}", e.body_text())
        }
        JsonRejection::MissingJsonContentType(_) => {
            "send the body as JSON with Content-Type: application/json".to_owned()
        }
        JsonRejection::BytesRejection(e) => {
            format!("the body could not be read: {}", e.body_text())
        }
        other => other.body_text(),
    }
}
