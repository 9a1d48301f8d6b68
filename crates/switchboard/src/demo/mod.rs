//! `switchboard demo-server`: a small MCP server built into the binary.
//!
//! It exists so that Switchboard can be tried (and tested) end to end without installing
//! anything: `switchboard servers add demo --command switchboard --arg demo-server` gives a
//! working stdio server, and `demo-server --http 127.0.0.1:8931` a Streamable HTTP one. The
//! tools live in [`tools`]; this module wires them to rmcp and to the two transports.
//!
//! In stdio mode stdout carries the protocol, so nothing else may ever be printed there; all
//! logging goes to stderr (see `main.rs`).

mod calc;
pub(crate) mod clock;
mod tools;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::service::ServerInitializeError;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, tool_handler};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The path the Streamable HTTP endpoint is served under.
pub const HTTP_PATH: &str = "/mcp";

/// Why the demo server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("the MCP handshake on stdio failed: {0}")]
    Handshake(#[from] Box<ServerInitializeError>),
    #[error("the server task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("serving HTTP failed: {0}")]
    Http(#[source] std::io::Error),
}

/// The demo MCP server: stateless apart from its tool router, so one is made per session.
#[derive(Debug, Clone)]
pub struct DemoServer {
    tool_router: ToolRouter<Self>,
}

impl DemoServer {
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }
}

impl Default for DemoServer {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "switchboard-demo",
    instructions = "A demo server built into Switchboard: current_time, calculate, echo (with \
                    optional progress) and random_number."
)]
impl ServerHandler for DemoServer {}

/// Serves one MCP session on stdin/stdout until the client hangs up or `shutdown` completes.
pub async fn serve_stdio(shutdown: impl Future<Output = ()>) -> Result<(), DemoError> {
    let running = DemoServer::new()
        .serve(rmcp::transport::stdio_pipes())
        .await
        .map_err(Box::new)?;
    let cancel = running.cancellation_token();
    tokio::select! {
        quit = running.waiting() => {
            tracing::debug!(?quit, "stdio session ended");
            quit?;
        }
        () = shutdown => cancel.cancel(),
    }
    Ok(())
}

/// Serves Streamable HTTP at [`HTTP_PATH`] on `listener` until `shutdown` completes; open
/// sessions are then closed and in-flight requests are allowed to finish.
pub async fn serve_http(
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), DemoError> {
    let local = listener.local_addr().map_err(DemoError::Http)?;
    let sessions = CancellationToken::new();
    let config = host_policy(
        StreamableHttpServerConfig::default().with_cancellation_token(sessions.child_token()),
        local,
    );
    let service = StreamableHttpService::new(
        || Ok(DemoServer::new()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().nest_service(HTTP_PATH, service);
    // Each answer is written in small pieces (an SSE event, then the end of the body): without
    // TCP_NODELAY, Nagle's algorithm holds the last one back until the client's delayed ACK,
    // about 40 ms per call.
    let listener = axum::serve::ListenerExt::tap_io(listener, |stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            sessions.cancel();
        })
        .await
        .map_err(DemoError::Http)
}

/// rmcp only accepts loopback `Host` headers by default, which guards a local server against
/// DNS rebinding. A specific address the user chose to bind is added to that list; binding every
/// interface (`0.0.0.0`, `::`) is a deliberate choice to be reachable under names we cannot
/// know, so the check is then turned off (and said so in the log).
fn host_policy(
    config: StreamableHttpServerConfig,
    local: SocketAddr,
) -> StreamableHttpServerConfig {
    let ip = local.ip();
    if ip.is_unspecified() {
        tracing::warn!(%local, "listening on every interface: the Host header is not checked");
        return config.disable_allowed_hosts();
    }
    let mut hosts = config.allowed_hosts.clone();
    let literal = ip.to_string();
    if !hosts.contains(&literal) {
        hosts.push(literal);
    }
    config.with_allowed_hosts(hosts)
}

#[cfg(test)]
mod tests;
