//! Seed 000's own routes (its REST controllers), as thin adapters over the house API: each
//! module translates the seed's shapes and calls the same checked paths the house routes use.

mod chat;
mod servers;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(servers::routes())
        .merge(chat::routes())
}
