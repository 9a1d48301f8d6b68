//! `/mcp` and `/mcp/v/{name}`: the MCP gateway ([`switchboard_gateway`]) over Streamable HTTP.
//!
//! Both paths are served by one rmcp [`StreamableHttpService`], which speaks both protocol
//! generations and picks one per request: an `initialize` handshake opens a session (2025-11-25
//! and older, `Mcp-Session-Id`), a request carrying the 2026-07-28 `_meta` is served
//! statelessly. In front of it ([`admit`]), every request is authenticated exactly as the REST
//! API's are ([`crate::auth::Caller`]: bearer tokens, none in `--single-user` mode, the same
//! rate limits), its [`Scope`](switchboard_gateway::Scope) (the person, and the view from the
//! path or the token) is put in the request's extensions for the gateway's handler, and a
//! session is kept to the person and view that opened it ([`sessions`]). Refusals before the
//! MCP layer are in the API's `{code, message, timestamp}` shape.
//!
//! Where this goes around rmcp's defaults, and why:
//! - rmcp's own `Host` check is turned off: the server's front door ([`crate::guard`]) already
//!   applies to these routes, with the rules the operator configured (`--public-url`,
//!   `--allowed-host`, the listen address). rmcp's default list (loopback names only) would
//!   contradict them, refusing a public URL the guard admits; two lists would drift apart.
//! - rmcp's `Origin` check stays off (its default) for the same reason: the guard refuses any
//!   `Origin` the server does not know.
//! - sessions end when the server stops: their cancellation token is a child of the event
//!   log's, which `switchboard serve` closes first on shutdown, so an open `GET` stream does
//!   not hold the shutdown.
//! - a request's own log lines (an upstream's, during a call) go on its response stream, not
//!   on the session's `GET` stream where rmcp puts every notification but progress
//!   ([`CallStreams`]).
//! - idle sessions are closed by rmcp's session keep-alive ([`Limits::mcp_session_idle`]);
//!   the sessions a person may hold open at once are counted here ([`Limits::max_mcp_sessions`]),
//!   since rmcp's session manager does not know who opened a session.
//!
//! [`Limits::mcp_session_idle`]: crate::Limits::mcp_session_idle
//! [`Limits::max_mcp_sessions`]: crate::Limits::max_mcp_sessions

mod admit;
mod call_streams;
mod sessions;

use std::sync::Arc;

use axum::Router;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use switchboard_gateway::GatewayHandler;

use crate::state::AppState;

pub use call_streams::CallStreams;
pub use sessions::Sessions;

/// The gateway's endpoint for every enabled server of the caller (or a view-scoped token's view).
pub const PATH: &str = "/mcp";
/// A view's endpoint: `/mcp/v/{name}`.
pub const VIEW_PATH: &str = "/mcp/v/{name}";

/// The one rmcp service both paths share.
pub type McpService = StreamableHttpService<GatewayHandler, CallStreams>;

/// The routes of the MCP endpoint, to be merged into the application (inside its front door).
pub(crate) fn routes(state: &AppState) -> Router<AppState> {
    let local = Arc::new(session_manager(state));
    let config = StreamableHttpServerConfig::default()
        // The server's front door checks Host and Origin for every route (see the module docs).
        .disable_allowed_hosts()
        .with_cancellation_token(state.events.closing().child_token())
        .with_max_request_body_bytes(state.config.max_body_bytes)
        // Stateless (2026-07-28) answers that are one message go back as plain JSON.
        .with_json_response(true);
    let gateway = Arc::clone(&state.gateway);
    let service: McpService = StreamableHttpService::new(
        move || Ok(gateway.handler(None)),
        Arc::new(CallStreams::new(Arc::clone(&local))),
        config,
    );
    let endpoint = Arc::new(admit::Endpoint {
        state: state.clone(),
        sessions: Sessions::new(local),
    });
    Router::new()
        .route_service(PATH, service.clone())
        .route_service(VIEW_PATH, service)
        .layer(axum::middleware::from_fn_with_state(endpoint, admit::admit))
}

fn session_manager(state: &AppState) -> LocalSessionManager {
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(state.limits.mcp_session_idle);
    manager
}
