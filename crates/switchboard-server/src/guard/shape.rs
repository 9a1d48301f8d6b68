//! Error answers that are not ours, put in the API's shape.
//!
//! axum answers some requests itself: 405 when the path exists with other methods, and the
//! rejections of the `Path` and `Query` extractors (an invalid UTF-8 path segment, a repeated
//! query key) as `text/plain`. [`method_not_allowed`] is the router's 405 fallback, and
//! [`shape_errors`] is a safety net around the whole application: any answer with an error
//! status whose body is not JSON is replaced by `{code, message, timestamp}`, keeping its
//! status and using its text as the message.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use switchboard_core::ErrorCode;

use crate::error::ApiError;

/// The longest text body taken over as the message.
const MAX_MESSAGE_BYTES: usize = 1024;

/// The router's answer for a known path with a method it does not take.
pub async fn method_not_allowed(method: Method) -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("this path does not take {method}"),
    )
    .key("error.msg.method_not_allowed")
    .param("method", method)
}

/// Replaces any error answer without a JSON body by one in the error shape.
pub async fn shape_errors(request: Request, next: Next) -> Response {
    let head = request.method() == Method::HEAD;
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&response) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, MAX_MESSAGE_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_owned(),
        Err(_) => String::new(),
    };
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_owned()
    } else {
        text
    };
    let shaped = ApiError::new(code_of(status), message).into_response();
    let (shaped_parts, shaped_body) = shaped.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    for (name, value) in &shaped_parts.headers {
        parts.headers.insert(name, value.clone());
    }
    // What the localising layer words the answer from.
    parts.extensions.extend(shaped_parts.extensions);
    let body = if head { Body::empty() } else { shaped_body };
    Response::from_parts(parts, body)
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// The code of an error status nobody gave a code.
fn code_of(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::FORBIDDEN => ErrorCode::Forbidden,
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::CONFLICT => ErrorCode::Conflict,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::URI_TOO_LONG => ErrorCode::UriTooLong,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => ErrorCode::HeadersTooLarge,
        StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE => ErrorCode::UpstreamUnavailable,
        s if s.is_server_error() => ErrorCode::InternalError,
        _ => ErrorCode::ValidationError,
    }
}
