//! The application's routes, one module per area.

mod health;
mod servers;
mod tools;

use axum::Router;

use crate::state::AppState;

/// The whole application.
pub fn app(state: AppState) -> Router {
    Router::new()
        .merge(health::routes())
        .merge(servers::routes())
        .merge(tools::routes())
        .with_state(state)
}
