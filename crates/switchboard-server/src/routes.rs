//! The application's routes, one module per area.

mod assistants;
mod conversations;
mod events;
mod health;
mod messages;
mod metrics;
mod providers;
mod servers;
mod tools;

use axum::Router;

use crate::state::AppState;

/// The whole application.
pub fn app(state: AppState) -> Router {
    let body_limit = axum::extract::DefaultBodyLimit::max(state.config.max_body_bytes);
    Router::new()
        .merge(health::routes())
        .merge(servers::routes())
        .merge(tools::routes())
        .merge(providers::routes())
        .merge(assistants::routes())
        .merge(conversations::routes())
        .merge(messages::routes())
        .merge(events::routes())
        .merge(metrics::routes())
        .layer(body_limit)
        .layer(axum::middleware::from_fn(crate::access_log::log_request))
        .with_state(state)
}
