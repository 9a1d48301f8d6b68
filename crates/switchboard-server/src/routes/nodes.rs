//! `GET /api/nodes`: the MCP nodes this host is configured to reach, with their
//! health, for the server form's node selector and the server cards. Any signed-in user may
//! choose a node, so anyone may list them; where a node is reached (its URL) is for admins.

use axum::extract::State;
use serde::Serialize;
use switchboard_mcp::{NodeHealth, NodeState};
use switchboard_store::Role;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::routes::responses::Unauthorized;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// One configured node as a caller sees it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeAnswer {
    /// Its name in the settings file (`[nodes.NAME]`): what a server's `node` names.
    #[schema(example = "build-box")]
    pub name: String,
    /// `connecting` (not reached yet), `up` (its status stream is open) or `down` (it cannot
    /// be reached; the host tries again with backoff).
    #[schema(value_type = String, example = "up")]
    pub state: NodeState,
    /// Why it is down, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// The node's Switchboard version, once it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Where it is reached; admins only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "https://build-box.internal:7443")]
    pub url: Option<String>,
}

impl NodeAnswer {
    fn new(node: NodeHealth, show_url: bool) -> Self {
        Self {
            name: node.name,
            state: node.state,
            last_error: node.last_error,
            version: node.version,
            url: show_url.then_some(node.url),
        }
    }
}

/// The MCP nodes servers may run on, with their health.
///
/// An empty list: every server runs in this process.
#[utoipa::path(
    get,
    path = "/api/nodes",
    tag = "servers",
    operation_id = "list_nodes",
    responses(
        (status = 200, description = "The configured nodes and their health; `url` for admins only", body = Vec<NodeAnswer>),
        Unauthorized,
    ),
)]
async fn list(State(state): State<AppState>, caller: Caller) -> axum::Json<Vec<NodeAnswer>> {
    let admin = caller.user.role == Role::Admin;
    axum::Json(
        state
            .pool
            .nodes()
            .into_iter()
            .map(|node| NodeAnswer::new(node, admin))
            .collect(),
    )
}
