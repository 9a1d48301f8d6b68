//! The browser UI: the static files of `web/` at the workspace root, built into the binary,
//! so `switchboard serve` needs neither Node nor a build step to serve it.
//!
//! Every request no API route takes ends here. A path naming an embedded file gets that
//! file; any other path without an extension (`/`, `/settings/mcp`, `/chat/<id>`) gets
//! `index.html`, whose script routes in the browser; an unknown `/api/...` path or a missing
//! asset is a 404 in the API's error shape. Files are revalidated by their content hash
//! (`ETag`), and every page carries a Content-Security-Policy that allows scripts from this
//! origin only: Markdown from a model or a tool is sanitised before it is shown, and even if
//! something slipped through, an inline script or event handler would not run.

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;
use switchboard_core::ErrorCode;

use crate::error::ApiError;

#[derive(RustEmbed)]
#[folder = "../../web/"]
#[exclude = "tests/*"]
struct Assets;

/// The policy of every page and asset. `data:` images are tool results (base64 from MCP).
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/// Adds the UI to `router` as what answers every request its routes do not.
pub fn with_ui<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    router.fallback(serve)
}

async fn serve(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path();
    if path == "/api" || path.starts_with("/api/") {
        return not_found(path);
    }
    if method != Method::GET && method != Method::HEAD {
        return not_found(path);
    }
    let wanted = path.trim_start_matches('/');
    let (name, file) = match Assets::get(wanted) {
        Some(file) if !wanted.is_empty() => (wanted, file),
        // A page of the app (no extension): the app decides what to show.
        _ if !last_segment_has_extension(wanted) => match Assets::get("index.html") {
            Some(index) => ("index.html", index),
            None => return not_found(path),
        },
        _ => return not_found(path),
    };
    let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()));
    let mut response = if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|sent| sent.as_bytes() == etag.as_bytes())
    {
        StatusCode::NOT_MODIFIED.into_response()
    } else if method == Method::HEAD {
        StatusCode::OK.into_response()
    } else {
        // Embedded bytes are 'static: served without a copy.
        Response::new(match file.data {
            std::borrow::Cow::Borrowed(bytes) => Body::from(bytes),
            std::borrow::Cow::Owned(bytes) => Body::from(bytes),
        })
    };
    let set = response.headers_mut();
    set.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(name)),
    );
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        set.insert(header::ETAG, etag);
    }
    // Names carry no hash, so the browser asks again each time and gets a 304 when unchanged.
    set.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    set.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    set.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    set.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

fn not_found(path: &str) -> Response {
    ApiError::new(ErrorCode::NotFound, format!("there is no route {path}"))
        .key("error.msg.no_route")
        .param("path", path)
        .into_response()
}

fn last_segment_has_extension(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|last| last.contains('.'))
}

/// The types of the files `web/` holds. Written out rather than taken from a MIME database
/// crate: the UI ships a handful of kinds, and an unknown one is served as bytes.
fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_told_from_assets_by_their_extension() {
        assert!(!last_segment_has_extension(""));
        assert!(!last_segment_has_extension("settings/mcp"));
        assert!(!last_segment_has_extension("chat/0193.abc/x"));
        assert!(last_segment_has_extension("js/main.js"));
        assert!(last_segment_has_extension("favicon.ico"));
    }

    #[test]
    fn the_index_and_the_vendored_libraries_are_embedded() {
        assert!(Assets::get("index.html").is_some());
        assert!(Assets::get("vendor/preact.js").is_some());
        assert!(Assets::get("vendor/licenses/dompurify.txt").is_some());
        assert!(Assets::iter().all(|name| !name.starts_with("tests/")));
    }
}
