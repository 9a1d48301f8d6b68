//! Our own limits on the request line and the headers, below hyper's, so that a request over
//! them gets 414 or 431 in the API's error shape.
//!
//! hyper refuses some requests before any of this code runs, and answers those itself with an
//! empty body: a request target of 65,535 bytes or more (414), more than 100 header fields,
//! or a request head (line and headers) over its read buffer of about 400 KiB (431). Only
//! requests between our limits and those get the shaped answer.

use axum::http::{HeaderMap, Uri};
use switchboard_core::ErrorCode;

use crate::error::ApiError;

/// The longest request target (path and query) taken: a few times what any route needs.
pub const DEFAULT_MAX_URI_BYTES: usize = 8 * 1024;
/// The most header bytes (names and values) taken: room for a token and a browser's headers.
pub const DEFAULT_MAX_HEADER_BYTES: usize = 32 * 1024;

/// Refuses a request whose target or headers are larger than allowed.
pub fn check(
    uri: &Uri,
    headers: &HeaderMap,
    max_uri: usize,
    max_headers: usize,
) -> Result<(), ApiError> {
    let uri = uri.path_and_query().map_or(0, |p| p.as_str().len())
        + uri.authority().map_or(0, |a| a.as_str().len());
    if uri > max_uri {
        return Err(ApiError::new(
            ErrorCode::UriTooLong,
            format!("the request URI is longer than this server reads ({max_uri} bytes at most)"),
        )
        .key("error.msg.uri_too_long")
        .param("limit", max_uri));
    }
    let headers: usize = headers
        .iter()
        // ": " and the line end, as on the wire.
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if headers > max_headers {
        return Err(ApiError::new(
            ErrorCode::HeadersTooLarge,
            format!(
                "the request headers are larger than this server reads ({max_headers} bytes at \
                 most)"
            ),
        )
        .key("error.msg.headers_too_large")
        .param("limit", max_headers));
    }
    Ok(())
}
