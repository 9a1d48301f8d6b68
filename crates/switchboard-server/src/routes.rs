//! The application's routes, one module per area.

mod health;
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
        .layer(body_limit)
        .with_state(state)
}
