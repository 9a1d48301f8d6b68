//! The front door as a tower [`Layer`], so any router (the API, the metrics listener, the
//! `/mcp` endpoint) wraps itself in the same checks. Every check reads only the request head,
//! so a refused request is answered at once and its body is never read.

use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{HeaderMap, Method, Request, header};
use axum::response::{IntoResponse, Response};
use futures::future::{Either, Ready, ready};
use switchboard_core::ErrorCode;
use tower_layer::Layer;
use tower_service::Service;

use super::{GuardConfig, HostRules, limits};
use crate::error::ApiError;

/// Wraps a service in the front door's checks.
pub fn layer(config: &GuardConfig) -> GuardLayer {
    GuardLayer {
        rules: Arc::new(Rules {
            hosts: config.host_rules(),
            max_uri_bytes: config.max_uri_bytes,
            max_header_bytes: config.max_header_bytes,
        }),
    }
}

#[derive(Debug)]
struct Rules {
    hosts: HostRules,
    max_uri_bytes: usize,
    max_header_bytes: usize,
}

#[derive(Debug, Clone)]
pub struct GuardLayer {
    rules: Arc<Rules>,
}

impl<S> Layer<S> for GuardLayer {
    type Service = GuardService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        GuardService {
            inner,
            rules: Arc::clone(&self.rules),
        }
    }
}

#[derive(Debug, Clone)]
pub struct GuardService<S> {
    inner: S,
    rules: Arc<Rules>,
}

impl<S, B> Service<Request<B>> for GuardService<S>
where
    S: Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<Ready<Result<Response, S::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        match self.rules.admit(&request) {
            Ok(()) => Either::Right(self.inner.call(request)),
            Err(refused) => Either::Left(ready(Ok(refused.into_response()))),
        }
    }
}

impl Rules {
    fn admit<B>(&self, request: &Request<B>) -> Result<(), ApiError> {
        let headers = request.headers();
        limits::check(
            request.uri(),
            headers,
            self.max_uri_bytes,
            self.max_header_bytes,
        )?;
        self.check_host(request)?;
        if let Some(origin) = headers.get(header::ORIGIN) {
            let allowed = origin
                .to_str()
                .is_ok_and(|origin| self.hosts.allows_origin(origin));
            if !allowed {
                let origin = shown(origin.as_bytes());
                return Err(refuse(format!(
                    "requests from pages at {origin} are not allowed; add the origin with \
                     --public-url or --allowed-origin"
                ))
                .key("error.msg.origin_refused")
                .param("origin", origin));
            }
        }
        if changes_state(request.method()) {
            check_body_type(headers)?;
        }
        Ok(())
    }

    /// The `Host` header and an absolute URI's authority must both be accepted; a request
    /// naming neither is refused.
    fn check_host<B>(&self, request: &Request<B>) -> Result<(), ApiError> {
        let header = request.headers().get(header::HOST);
        let authority = request.uri().authority();
        if header.is_none() && authority.is_none() {
            return Err(refuse(
                "the request names no Host; this server answers only to the hosts it knows"
                    .to_owned(),
            )
            .key("error.msg.no_host"));
        }
        if let Some(host) = header
            && !host.to_str().is_ok_and(|h| self.hosts.allows_host(h))
        {
            return Err(unknown_host(host.as_bytes()));
        }
        if let Some(authority) = authority
            && !self.hosts.allows_host(authority.as_str())
        {
            return Err(unknown_host(authority.as_str().as_bytes()));
        }
        Ok(())
    }
}

/// Every method but the safe ones may change something.
pub(crate) fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// A state-changing request carries JSON or nothing at all.
fn check_body_type(headers: &HeaderMap) -> Result<(), ApiError> {
    match headers.get(header::CONTENT_TYPE) {
        Some(value) => {
            let essence = value
                .to_str()
                .ok()
                .and_then(|v| v.split(';').next())
                .map(|v| v.trim().to_ascii_lowercase());
            if essence.as_deref() == Some("application/json") {
                Ok(())
            } else {
                let sent = shown(value.as_bytes());
                Err(ApiError::new(
                    ErrorCode::UnsupportedMediaType,
                    format!("this server takes only application/json bodies, not {sent}"),
                )
                .key("error.msg.media_type")
                .param("type", sent))
            }
        }
        None if has_body(headers) => Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "send the body as JSON with Content-Type: application/json",
        )
        .key("error.msg.body_needs_json_type")),
        None => Ok(()),
    }
}

pub(crate) fn has_body(headers: &HeaderMap) -> bool {
    headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .is_some_and(|length| length.as_bytes() != b"0")
}

fn refuse(message: String) -> ApiError {
    ApiError::new(ErrorCode::OriginNotAllowed, message)
}

fn unknown_host(host: &[u8]) -> ApiError {
    let host = shown(host);
    refuse(format!(
        "this server does not answer to the host {host}; add it with --public-url or \
         --allowed-host"
    ))
    .key("error.msg.unknown_host")
    .param("host", host)
}

/// A header value as it may be quoted back: short, printable.
fn shown(value: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(value)
        .chars()
        .filter(|c| !c.is_control())
        .take(100)
        .collect();
    format!("{text:?}")
}
