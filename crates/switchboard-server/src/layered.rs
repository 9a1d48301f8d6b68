//! The layers every request of the API and the web UI passes, wrapped once around the routed
//! application.
//!
//! `Router::layer` would wrap each route instead: a boxed service per layer around every
//! route, which each request cloned and boxed its way through (about 60 allocations a
//! request, the largest share of the proxy's). Wrapped once, every request passes
//! the same layers in the same order, unmatched ones included; no route is added here.

use std::sync::Arc;

use axum::{Extension, Router};
use tower_layer::Layer as _;

use crate::state::AppState;

/// `routed` inside, from the outermost: the access log, the caller's language, the error
/// shape, the front door (Host, Origin, sizes), the body read within its time and size, the
/// body limit, and the OpenAPI `document` as an extension.
pub(crate) fn layered(
    routed: Router,
    state: AppState,
    document: Arc<utoipa::openapi::OpenApi>,
) -> Router {
    let body_limit = axum::extract::DefaultBodyLimit::max(state.config.max_body_bytes);
    let guard = crate::guard::layer(&state.config.guard);
    let layered = Extension(document).layer(routed);
    let layered = body_limit.layer(layered);
    let body_rules = crate::guard::body::BodyRules {
        timeout: state.limits.body_read_timeout,
        max_bytes: state.config.max_body_bytes,
    };
    let layered = axum::middleware::from_fn_with_state(body_rules, crate::guard::body::read_body)
        .layer(layered);
    let layered = guard.layer(layered);
    let layered = axum::middleware::from_fn(crate::guard::shape::shape_errors).layer(layered);
    let layered = axum::middleware::from_fn_with_state(state, crate::i18n::localize).layer(layered);
    let layered = axum::middleware::from_fn(crate::access_log::log_request).layer(layered);
    Router::new().fallback_service(layered)
}
