//! `GET /api/tools/search`: the tool search a deferred run's model makes, for the UI and for
//! measuring it; `GET /api/tools/cost`: what the tools' definitions cost each request. Both
//! are the application's ([`switchboard_app::tool_search`]).

use axum::extract::{Query, State};
use serde::{Deserialize, Serialize};
use switchboard_agent::exposure::OfferCost;
use switchboard_agent::search::FoundTool;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::routes::responses::{BadInput, NotFound, Unauthorized};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(search))
        .routes(routes!(cost))
}

/// Tools answered when `limit` is not given.
const DEFAULT_LIMIT: usize = 10;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SearchQuery {
    /// What to find: words of a request (English or Chinese), or a tool's name. The first
    /// 1,000 characters are searched.
    q: String,
    /// How many tools to answer with (10 unless given, at most 50).
    limit: Option<usize>,
    /// Search the tools of this assistant of the caller's only.
    assistant_id: Option<String>,
}

/// The tools found, best first.
#[derive(Debug, Serialize, ToSchema)]
struct SearchResults {
    results: Vec<FoundTool>,
}

/// Searches the tools the caller may be offered (or those of one of their assistants).
///
/// Names are ranked above descriptions; a tool's exact or leading name comes first. With an
/// embedding model configured, the words' ranking is fused with the model's.
#[utoipa::path(
    get,
    path = "/api/tools/search",
    tag = "tools",
    operation_id = "search_tools",
    params(SearchQuery),
    responses(
        (status = 200, description = "The tools found, best first", body = SearchResults),
        BadInput,
        Unauthorized,
        NotFound,
    ),
)]
async fn search(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<SearchQuery>,
) -> Result<axum::Json<SearchResults>, ApiError> {
    let results = state
        .tool_search
        .search(
            &caller.user.id,
            &query.q,
            query.limit.unwrap_or(DEFAULT_LIMIT),
            query.assistant_id.as_deref(),
        )
        .await?;
    Ok(axum::Json(SearchResults { results }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CostQuery {
    /// The tools of this assistant of the caller's, in its provider's format.
    assistant_id: Option<String>,
}

/// What the caller's tool definitions (or one assistant's) cost each model request.
///
/// Estimated tokens per server and in all, what a request with deferred tools carries
/// instead (the pinned tools and `search_tools`), and whether runs defer them.
#[utoipa::path(
    get,
    path = "/api/tools/cost",
    tag = "tools",
    operation_id = "tool_cost",
    params(CostQuery),
    responses(
        (status = 200, description = "The tools' cost per request", body = OfferCost),
        BadInput,
        Unauthorized,
        NotFound,
    ),
)]
async fn cost(
    State(state): State<AppState>,
    caller: Caller,
    Query(query): Query<CostQuery>,
) -> Result<axum::Json<OfferCost>, ApiError> {
    Ok(axum::Json(
        state
            .tool_search
            .cost(&caller.user.id, query.assistant_id.as_deref())
            .await?,
    ))
}
