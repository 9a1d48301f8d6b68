//! Opening a session with one server: start or reach it, then the handshake of whichever
//! protocol generation it speaks, all within the connect timeout.

use std::sync::Arc;

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt};
use switchboard_core::{ServerSpec, TransportKind};

use crate::client::{SessionEvents, SwitchboardClient};
use crate::config::ManagerConfig;
use crate::connection::{Connection, Session};
use crate::error::McpError;
use crate::oauth::Authorized;
use crate::transport::http;
use crate::transport::probe::{self, Generation};
use crate::transport::sse::{SseClientConfig, SseClientTransport};
use crate::transport::stdio::{self, StdioProcess};
use crate::transport::upstream_limit::UpstreamLimits;
use crate::transport::watched::Watched;
use tokio_util::sync::CancellationToken;

/// Connects to `spec`, which must be valid and enabled, a remote one through `client` within
/// its origin's share of connections; `auth` carries the person's OAuth sign-in when the
/// server uses one.
pub(crate) async fn connect(
    spec: &ServerSpec,
    config: &ManagerConfig,
    (client, limits): (&reqwest::Client, &UpstreamLimits),
    auth: Option<Authorized>,
) -> Result<Connection, McpError> {
    spec.validate()?;
    if !spec.enabled {
        return Err(McpError::Disabled {
            server: spec.name.clone(),
        });
    }
    let events = Arc::new(SessionEvents::default());
    events.set_roots(spec.root_uris());
    let handler =
        SwitchboardClient::new(&spec.name, Arc::clone(&events)).with_redactor(spec.redactor());
    let timeout = config.connect_timeout;
    let ended = CancellationToken::new();
    match spec.transport {
        TransportKind::Stdio => {
            let StdioProcess {
                transport,
                group,
                stderr,
            } = stdio::spawn(spec, config.stdio_guard.as_deref())?;
            let handshake = async {
                let (transport, generation) = probe::probe(transport).await.map_err(|error| {
                    tracing::debug!(server = %spec.name, %error, "probe failed");
                    McpError::ClosedDuringHandshake {
                        server: spec.name.clone(),
                        stderr: None,
                    }
                })?;
                // `initialize` offers the newest version that has that handshake.
                let handler = match generation {
                    Generation::Legacy => handler.with_protocol_version(LEGACY_VERSION),
                    _ => handler,
                };
                handler
                    .serve_with_lifecycle(
                        Watched::new(transport, ended.clone(), Arc::clone(&events)),
                        lifecycle(generation),
                    )
                    .await
                    .map_err(|error| McpError::from_handshake(&spec.name, None, error, None))
            };
            let session = within(timeout, spec, handshake, || stderr.text()).await;
            // The group guard ends the process if the handshake failed.
            let session = match session {
                Ok(session) => session,
                Err(McpError::ClosedDuringHandshake { server, .. }) => {
                    let stderr = stderr.text_after_exit(STDERR_WAIT).await;
                    return Err(McpError::ClosedDuringHandshake { server, stderr });
                }
                Err(error) => return Err(error),
            };
            Ok(Connection::new(
                spec,
                session,
                events,
                ended,
                Some((group, stderr)),
            ))
        }
        TransportKind::StreamableHttp => {
            let url = spec.url.clone().unwrap_or_default();
            let open = || {
                http::streamable(
                    client.clone(),
                    spec,
                    &url,
                    auth.clone(),
                    limits.for_url(&url),
                )
            };
            let handshake = async {
                let transport = open()?;
                let first = handler
                    .clone()
                    .serve_with_lifecycle(
                        Watched::new(transport, ended.clone(), Arc::clone(&events)),
                        auto_lifecycle(),
                    )
                    .await;
                match first {
                    Ok(session) => Ok(session),
                    // Some servers answer methods they do not know, `server/discover`
                    // included, with an empty success; rmcp then has no discovery result and
                    // no legacy error to fall back on. Start over with the classic handshake.
                    Err(ClientInitializeError::ExpectedInitResult(_)) => {
                        let transport = open()?;
                        handler
                            .with_protocol_version(LEGACY_VERSION)
                            .serve_with_lifecycle(
                                Watched::new(transport, ended.clone(), Arc::clone(&events)),
                                ClientLifecycleMode::Initialize,
                            )
                            .await
                            .map_err(|error| {
                                McpError::from_handshake(&spec.name, Some(&url), error, None)
                            })
                    }
                    Err(error) => Err(McpError::from_handshake(
                        &spec.name,
                        Some(&url),
                        error,
                        None,
                    )),
                }
            };
            let session = within(timeout, spec, handshake, || None).await?;
            Ok(Connection::new(spec, session, events, ended, None)
                .with_tokens(auth.as_ref().map(|auth| Arc::clone(&auth.seen))))
        }
        TransportKind::Sse => {
            let url = spec.url.clone().unwrap_or_default();
            let handshake = async {
                let mut headers = http::headers(spec)?;
                if let Some(auth) = &auth {
                    // The legacy transport has no hook for rmcp's refreshing client: the
                    // token (refreshed first if it is about to expire) goes in as a header.
                    headers.insert(::http::header::AUTHORIZATION, auth.bearer(spec).await?);
                }
                let transport = SseClientTransport::connect(
                    client.clone(),
                    SseClientConfig {
                        url: url.clone(),
                        headers,
                        connect_timeout: timeout,
                    },
                )
                .await
                .map_err(|error| McpError::from_sse(&spec.name, &url, error))?;
                // Legacy SSE is the 2024-11-05 protocol: only the classic handshake exists.
                handler
                    .with_protocol_version(ProtocolVersion::V_2024_11_05)
                    .serve_with_lifecycle(
                        Watched::new(transport, ended.clone(), Arc::clone(&events)),
                        ClientLifecycleMode::Initialize,
                    )
                    .await
                    .map_err(|error| McpError::from_handshake(&spec.name, Some(&url), error, None))
            };
            let session = within(timeout, spec, handshake, || None).await?;
            Ok(Connection::new(spec, session, events, ended, None)
                .with_tokens(auth.as_ref().map(|auth| Arc::clone(&auth.seen))))
        }
        other => Err(McpError::UnsupportedTransport(other)),
    }
}

/// How long to wait for the last words of a server that exited while connecting.
const STDERR_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The newest protocol version with the `initialize` handshake.
const LEGACY_VERSION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

fn lifecycle(generation: Generation) -> ClientLifecycleMode {
    match generation {
        Generation::Modern => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        Generation::Legacy => ClientLifecycleMode::Initialize,
        Generation::Negotiate => auto_lifecycle(),
    }
}

/// Over HTTP every request gets its own answer (an HTTP error at worst), so rmcp's automatic
/// mode never waits on silence there.
fn auto_lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(LEGACY_VERSION),
    }
}

async fn within(
    timeout: std::time::Duration,
    spec: &ServerSpec,
    handshake: impl Future<Output = Result<Session, McpError>>,
    stderr: impl Fn() -> Option<String>,
) -> Result<Session, McpError> {
    match tokio::time::timeout(timeout, handshake).await {
        Ok(result) => result,
        Err(_) => Err(McpError::ConnectTimeout {
            server: spec.name.clone(),
            timeout,
            stderr: stderr(),
        }),
    }
}
