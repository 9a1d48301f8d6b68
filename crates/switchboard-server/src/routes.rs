//! The application's routes, one module per area.
//!
//! Every route is declared with its OpenAPI operation (`#[utoipa::path]` on the handler) and
//! added through `utoipa_axum`'s `routes!`, which takes the path and method from that
//! declaration: the router and `GET /api/openapi.json` come from the same list, so the
//! document cannot leave a route out or describe one that is not served.

mod assistants;
mod chat_settings;
mod connect;
mod conversations;
mod events;
mod health;
mod locales;
mod me;
mod messages;
mod metrics;
mod nodes;
mod provider_models;
mod providers;
mod responses;
mod schemas;
pub(crate) mod seeds;
mod servers;
pub(crate) mod tasks;
mod tool_calls;
mod tool_node_run;
mod tool_nodes;
mod tool_search;
mod tools;
mod turns;
mod views;

use std::sync::Arc;

use axum::{Extension, Router};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Switchboard",
        description = "A self-hosted AI chat backend and MCP host: MCP servers, tools and the \
                       flat-parameter proxy, providers, assistants, conversations with runs \
                       streamed as SSE, approvals, live events."
    ),
    modifiers(&BearerAuth),
    security(("bearer" = [])),
    components(schemas(crate::error::ErrorBody, crate::i18n::ServedFailure))
)]
struct ApiDoc;

/// Every route takes `Authorization: Bearer <token>` (but health and this document).
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "An API token. A token limited to a view of the MCP gateway \
                         (POST /api/mcp/views/{id}/tokens) is refused with 403 FORBIDDEN on \
                         every route here; it opens only /mcp and /mcp/v/{its view}.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The OpenAPI document of every route.
pub fn openapi() -> utoipa::openapi::OpenApi {
    router().split_for_parts().1
}

fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(health::routes())
        .merge(servers::routes())
        .merge(servers::unsaved_test::routes())
        .merge(servers::import::routes())
        .merge(tools::routes())
        .merge(tool_search::routes())
        .merge(tasks::routes())
        .merge(providers::routes())
        .merge(assistants::routes())
        .merge(conversations::routes())
        .merge(chat_settings::routes())
        .merge(messages::routes())
        .merge(turns::routes())
        .merge(events::routes())
        .merge(metrics::routes())
        .merge(seeds::seed_000::routes())
        .merge(seeds::seed_002::routes())
        .merge(me::routes())
        .merge(locales::routes())
        .merge(seeds::seed_003::routes())
        .merge(servers::catalogue::routes())
        .merge(tool_nodes::routes())
        .merge(tool_calls::routes())
        .merge(nodes::routes())
        .merge(views::routes())
        .merge(connect::routes())
        .merge(servers::oauth::routes())
        .routes(routes!(document))
}

/// The whole application: the API, and the web UI for every path the API does not take.
pub fn app(state: AppState) -> Router {
    let (router, document) = router().split_for_parts();
    // The MCP endpoint is not JSON over REST, so it is outside the OpenAPI document (README
    // "MCP gateway" describes it), but inside the same front door.
    let router = router.merge(crate::mcp_endpoint::routes(&state));
    let routed = crate::web::with_ui(router)
        .method_not_allowed_fallback(crate::guard::shape::method_not_allowed)
        .with_state(state.clone());
    crate::layered::layered(routed, state, Arc::new(document))
}

/// `/metrics` alone, for its own listen address ([`GuardConfig::metrics_listen`]
/// (crate::GuardConfig::metrics_listen)), bound at `listen`: no token, as scrapers expect, but
/// behind the same front door as the API.
pub fn metrics_app(state: AppState, listen: std::net::SocketAddr) -> Router {
    let mut guard = state.config.guard.clone();
    guard.listen = Some(listen);
    let (router, _) = metrics::routes().split_for_parts();
    router
        .method_not_allowed_fallback(crate::guard::shape::method_not_allowed)
        .layer(Extension(metrics::OwnListener))
        .layer(crate::guard::layer(&guard))
        .layer(axum::middleware::from_fn(crate::guard::shape::shape_errors))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::i18n::localize,
        ))
        .with_state(state)
}

/// This API's OpenAPI 3.1 document.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "operations",
    operation_id = "openapi_document",
    security(()),
    responses((status = 200, description = "The OpenAPI document", body = schemas::OpenApiDocument)),
)]
async fn document(
    Extension(document): Extension<Arc<utoipa::openapi::OpenApi>>,
) -> axum::Json<utoipa::openapi::OpenApi> {
    axum::Json(document.as_ref().clone())
}
