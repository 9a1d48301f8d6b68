//! The one error type of the MCP layer. Each variant says what went wrong in terms a person can
//! act on, keeps its cause as a `#[source]`, and maps to one [`ErrorCode`] so the HTTP layer
//! never has to guess from message text.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ErrorData;
use rmcp::service::{ClientInitializeError, ServiceError};
use switchboard_core::{ErrorCode, MissingProgram, ReachFailure, Refusal, RetrySafety, SpecError};

use crate::transport::sse::SseTransportError;
use crate::upstream_text::{MAX_DETAIL, MAX_QUOTED, short_text};

mod handshake;

use handshake::HttpFailure;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    #[error("invalid server configuration: {0}")]
    InvalidSpec(#[from] SpecError),

    #[error("invalid {field}: {reason}")]
    InvalidHeader { field: String, reason: String },

    #[error("transport {0:?} is not supported by this build")]
    UnsupportedTransport(switchboard_core::TransportKind),

    #[error("server `{server}` is disabled")]
    Disabled { server: String },

    /// The program could not be started: `cause` is why (a missing program is said with what
    /// to install, see [`spawn_words`]).
    #[error("could not start `{command}`: {}", spawn_words(.command, .cause))]
    Spawn {
        command: String,
        cause: std::io::Error,
    },

    /// The server's URL could not be reached: `reason` says why in words, and `detail` is the
    /// transport's own text (secrets cut out), said only when the reason has no words.
    #[error("cannot reach {url}: {}", .reason.words().unwrap_or(.detail))]
    Unreachable {
        url: String,
        reason: ReachFailure,
        detail: String,
    },

    #[error("server `{server}` rejected the credentials: {detail}")]
    AuthFailed { server: String, detail: String },

    /// The server answered 401 or 403 (see [`denied_words`]).
    #[error("server `{server}` answered {}", denied_words(*.status))]
    Denied { server: String, status: u16 },

    /// The server wants an OAuth sign-in the person has not made, or whose tokens can no
    /// longer be refreshed, or a wider one (`scope`, step-up).
    #[error("server `{server}` needs you to sign in{}", scope_suffix(.scope))]
    SignInRequired {
        server: String,
        scope: Option<String>,
        /// The server's `WWW-Authenticate` challenge, when its refusal came with one (its
        /// first 2048 characters): where a sign-in discovers the server's metadata. Never
        /// shown.
        challenge: Option<String>,
    },

    #[error("server `{server}` did not complete the MCP handshake within {}s{}", .timeout.as_secs_f64(), timeout_suffix(.stderr))]
    ConnectTimeout {
        server: String,
        timeout: Duration,
        stderr: Option<String>,
    },

    #[error("server `{server}` closed the connection during the handshake{}", closed_suffix(.stderr))]
    ClosedDuringHandshake {
        server: String,
        stderr: Option<String>,
    },

    #[error("MCP handshake with `{server}` failed: {source}")]
    Handshake {
        server: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    #[error("the connection to `{server}` was lost")]
    ConnectionLost { server: String },

    #[error(
        "the connection to `{server}` was lost after `{tool}` was sent; it is not sent again \
         because the tool is not annotated read-only or idempotent"
    )]
    LostAfterSend { server: String, tool: String },

    #[error("`{method}` on `{server}` timed out after {}s", .timeout.as_secs_f64())]
    Timeout {
        server: String,
        method: String,
        timeout: Duration,
    },

    #[error("the request was cancelled")]
    Cancelled,

    /// The server could not be reached a moment ago and is left out until a try in the
    /// background reaches it (the manager's breaker): a use fails at once, saying why.
    /// The cause is in the text rather than a `source`, which a chain printer would repeat.
    #[error(
        "server `{server}` is left out for now: {cause}; it is tried again in the background \
         in {}s",
        whole_seconds(.retry_in)
    )]
    Unavailable {
        server: String,
        cause: Arc<McpError>,
        retry_in: Duration,
    },

    /// Another caller's connect attempt, which this caller waited for, failed.
    #[error("{message}")]
    ConnectFailed {
        server: String,
        code: ErrorCode,
        message: String,
    },

    #[error("the connection manager is shut down")]
    ShutDown,

    #[error("server `{server}` has no tool `{tool}`")]
    ToolNotFound { server: String, tool: String },

    #[error("server `{server}` answered with error {}: {}", .error.code.0, short_text(&.error.message, MAX_QUOTED))]
    Server { server: String, error: ErrorData },

    #[error("server `{server}` broke the protocol: {detail}")]
    Protocol { server: String, detail: String },

    /// The [`ConnectPolicy`](crate::ConnectPolicy) refused the connection.
    /// The code is in the text too, so a status that keeps only text (health's last error)
    /// still says which rule refused.
    #[error("server `{server}` may not be started ({}): {refusal}", .refusal.code())]
    Refused { server: String, refusal: Refusal },

    /// An error a node reported that has no variant of its own on this side: its code, its
    /// text (the node already cut the spec's secrets out) and how safe a retry is.
    #[error("{message}")]
    Remote {
        code: ErrorCode,
        message: String,
        retry: RetrySafety,
    },

    /// The node a server runs on cannot be reached (down, refused our token, TLS failed).
    #[error("node `{node}` cannot be reached: {detail}")]
    NodeUnreachable { node: String, detail: String },

    /// A server names a node this host has no `[nodes.NAME]` for.
    #[error("node `{node}` is not configured on this host")]
    UnknownNode { node: String },

    /// The server no longer knows a task it ran for us (it answered -32602 for its id): the
    /// task expired, or the server restarted and lost it. Whether the tool took effect
    /// cannot be told.
    #[error(
        "server `{server}` no longer knows the task (it expired, or the server restarted); \
         whether the tool took effect cannot be told"
    )]
    TaskLost { server: String },

    /// A tool the server runs only as a task, on a server whose `tasks` setting is `never`.
    #[error(
        "`{tool}` of server `{server}` runs only as a task, and tasks are off for this server \
         (its tasks setting is never); set it to auto or always to call this tool"
    )]
    TasksOff { server: String, tool: String },

    /// Answers (`tasks/update`) for a task of the 2025-11-25 revision, which takes none: its
    /// server asks its questions on `tasks/result`.
    #[error(
        "server `{server}` runs tasks of the 2025-11-25 revision, which take no answers by \
         tasks/update: their questions are answered while the outcome is fetched"
    )]
    TaskTakesNoAnswers { server: String },
}

/// `duration` in whole seconds, rounded up, at least 1 (a try under way is "in 1s").
fn whole_seconds(duration: &Duration) -> u64 {
    u64::try_from(duration.as_millis().div_ceil(1000))
        .unwrap_or(u64::MAX)
        .max(1)
}

/// Why a program could not be started, in words: a missing one with what to install.
fn spawn_words(command: &str, cause: &std::io::Error) -> String {
    match cause.kind() {
        std::io::ErrorKind::NotFound => MissingProgram::new(command).to_string(),
        std::io::ErrorKind::PermissionDenied => {
            "it may not be run (permission denied); check that it is an executable file".to_owned()
        }
        _ => cause.to_string(),
    }
}

/// A refusal's status in words, with what to do.
fn denied_words(status: u16) -> String {
    match status {
        403 => "403 Forbidden: the credentials configured are not allowed to use it; check the \
                key's or token's permissions"
            .to_owned(),
        401 => "401 Unauthorized: it needs credentials, or the ones configured are wrong; \
                check the API key or token"
            .to_owned(),
        other => format!("HTTP {other}: it refused the credentials; check the API key or token"),
    }
}

/// The server's last words, when it said any.
fn stderr_of(stderr: &Option<String>) -> Option<&str> {
    stderr
        .as_deref()
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

fn timeout_suffix(stderr: &Option<String>) -> String {
    match stderr_of(stderr) {
        Some(text) => format!("; its stderr ended with: {text}"),
        None => "; check that it is an MCP server, or raise the connect timeout".to_owned(),
    }
}

fn closed_suffix(stderr: &Option<String>) -> String {
    match stderr_of(stderr) {
        Some(text) => format!("; its stderr ended with: {text}"),
        None => "; check its command, arguments and environment".to_owned(),
    }
}

impl McpError {
    /// The documented code this error is reported with.
    pub fn code(&self) -> ErrorCode {
        match self {
            McpError::InvalidSpec(_) => ErrorCode::ValidationError,
            McpError::InvalidHeader { .. } => ErrorCode::ValidationError,
            McpError::UnsupportedTransport(_) => ErrorCode::UnsupportedTransport,
            McpError::Disabled { .. } => ErrorCode::McpConnectionError,
            McpError::Spawn { .. } => ErrorCode::McpConnectionError,
            McpError::Unreachable { .. } => ErrorCode::McpUnreachable,
            McpError::AuthFailed { .. }
            | McpError::Denied { .. }
            | McpError::SignInRequired { .. } => ErrorCode::McpAuthFailed,
            McpError::ConnectTimeout { .. } => ErrorCode::McpTimeout,
            McpError::ClosedDuringHandshake { .. } => ErrorCode::McpConnectionError,
            McpError::Handshake { .. } => ErrorCode::McpProtocolError,
            McpError::ConnectionLost { .. } | McpError::LostAfterSend { .. } => {
                ErrorCode::McpConnectionError
            }
            McpError::Timeout { .. } => ErrorCode::McpTimeout,
            McpError::ConnectFailed { code, .. } => *code,
            McpError::Unavailable { cause, .. } => cause.code(),
            McpError::Refused { refusal, .. } => refusal.code(),
            McpError::ShutDown => ErrorCode::McpConnectionError,
            McpError::Cancelled => ErrorCode::Cancelled,
            McpError::ToolNotFound { .. } => ErrorCode::McpToolNotFound,
            McpError::Server { error, .. } => match error.code {
                rmcp::model::ErrorCode::INVALID_PARAMS => ErrorCode::McpInvalidParams,
                rmcp::model::ErrorCode::PARSE_ERROR => ErrorCode::McpParseError,
                rmcp::model::ErrorCode::METHOD_NOT_FOUND
                | rmcp::model::ErrorCode::INVALID_REQUEST => ErrorCode::McpProtocolError,
                rmcp::model::ErrorCode::RESOURCE_NOT_FOUND => ErrorCode::NotFound,
                _ => ErrorCode::McpExecutionError,
            },
            McpError::Protocol { .. } => ErrorCode::McpProtocolError,
            McpError::Remote { code, .. } => *code,
            McpError::NodeUnreachable { .. } | McpError::UnknownNode { .. } => {
                ErrorCode::McpUnreachable
            }
            McpError::TaskLost { .. } => ErrorCode::TaskLost,
            McpError::TasksOff { .. } | McpError::TaskTakesNoAnswers { .. } => {
                ErrorCode::ValidationError
            }
        }
    }

    /// What callers that waited on the same failed connect attempt are told: the failure's
    /// code and message (the error itself keeps typed causes and cannot be copied).
    pub(crate) fn shared_failure(server: &str, error: &McpError) -> McpError {
        McpError::ConnectFailed {
            server: server.to_owned(),
            code: error.code(),
            message: error.to_string(),
        }
    }

    /// How safe it is to make the same tool call again after this error, for a caller that
    /// retries itself (the tool-call service, with seed 002's policy):
    ///
    /// - [`RetrySafety::Always`]: the call never reached the tool. The server could not be
    ///   reached, connecting timed out or was closed during the handshake, another caller's
    ///   connect we waited on failed so, or the connection was lost before the request was
    ///   written.
    /// - [`RetrySafety::IfIdempotent`]: the request was sent and may have run: the connection
    ///   was lost after it was written, or the server did not answer in time. Only a tool
    ///   annotated read-only or idempotent may be called again.
    /// - [`RetrySafety::Never`]: the same call would fail the same way (refused, bad
    ///   credentials, a protocol or handshake error, an error answer of the server, invalid
    ///   parameters, a server left out while it is tried again in the background, which
    ///   owns the retrying) or was cancelled.
    pub fn retry_safety(&self) -> RetrySafety {
        match self {
            McpError::Unreachable { .. }
            | McpError::ConnectTimeout { .. }
            | McpError::ClosedDuringHandshake { .. }
            | McpError::ConnectionLost { .. } => RetrySafety::Always,
            McpError::ConnectFailed {
                code: ErrorCode::McpUnreachable | ErrorCode::McpTimeout,
                ..
            } => RetrySafety::Always,
            McpError::LostAfterSend { .. } | McpError::Timeout { .. } => RetrySafety::IfIdempotent,
            McpError::NodeUnreachable { .. } => RetrySafety::Always,
            McpError::Remote { retry, .. } => *retry,
            _ => RetrySafety::Never,
        }
    }

    /// The last lines a stdio server wrote to stderr before it failed to connect, when it
    /// wrote any: they usually say why.
    pub fn last_stderr(&self) -> Option<&str> {
        match self {
            McpError::ConnectTimeout { stderr, .. }
            | McpError::ClosedDuringHandshake { stderr, .. } => stderr_of(stderr),
            _ => None,
        }
    }

    /// The failure behind this error: for a server left out, the connect that could not
    /// reach it; otherwise the error itself.
    pub fn underlying(&self) -> &McpError {
        match self {
            McpError::Unavailable { cause, .. } => cause.underlying(),
            other => other,
        }
    }

    /// For a server left out, in how many whole seconds it is tried again (as its text
    /// says).
    pub fn next_try_seconds(&self) -> Option<u64> {
        match self {
            McpError::Unavailable { retry_in, .. } => Some(whole_seconds(retry_in)),
            _ => None,
        }
    }

    /// The connection this error came from is gone and a new one may succeed.
    pub fn connection_lost(&self) -> bool {
        matches!(self, McpError::ConnectionLost { .. })
    }

    /// Whether `error` is a refusal of rmcp's OAuth client (see [`McpError::SignInRequired`]).
    pub(crate) fn wants_sign_in(error: &ServiceError) -> bool {
        matches!(error, ServiceError::TransportSend(sent) if sign_in_wanted(sent.error.as_ref()).is_some())
    }

    /// Maps an rmcp request error on an established connection.
    pub(crate) fn from_service(server: &str, method: &str, error: ServiceError) -> Self {
        if let ServiceError::TransportSend(sent) = &error
            && let Some(wanted) = sign_in_wanted(sent.error.as_ref())
        {
            return wanted.error(server);
        }
        match error {
            ServiceError::McpError(error) => McpError::Server {
                server: server.to_owned(),
                error,
            },
            ServiceError::Timeout { timeout } => McpError::Timeout {
                server: server.to_owned(),
                method: method.to_owned(),
                timeout,
            },
            ServiceError::Cancelled { .. } => McpError::Cancelled,
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                McpError::ConnectionLost {
                    server: server.to_owned(),
                }
            }
            other => McpError::Protocol {
                server: server.to_owned(),
                detail: short_text(&other.to_string(), MAX_DETAIL),
            },
        }
    }

    /// Maps a failed handshake, looking through rmcp's error for HTTP status codes.
    pub(crate) fn from_handshake(
        server: &str,
        url: Option<&str>,
        error: ClientInitializeError,
        stderr: Option<String>,
    ) -> Self {
        if let ClientInitializeError::ConnectionClosed(_) = error {
            return McpError::ClosedDuringHandshake {
                server: server.to_owned(),
                stderr,
            };
        }
        if let Some(wanted) = handshake_sign_in(&error) {
            return wanted.error(server);
        }
        let words = handshake::describe(&error);
        let Some(url) = url else {
            return McpError::Handshake {
                server: server.to_owned(),
                source: Box::new(Redacted(short_text(&words, MAX_DETAIL))),
            };
        };
        // Messages about HTTP requests quote the URL, whose query may hold a key.
        let detail = Redacted::from_text(words, url);
        match handshake::classify(&error) {
            Some(HttpFailure::Denied(status)) => McpError::Denied {
                server: server.to_owned(),
                status,
            },
            Some(HttpFailure::Auth) => McpError::AuthFailed {
                server: server.to_owned(),
                detail: detail.0,
            },
            Some(HttpFailure::Unreachable(reason)) => McpError::Unreachable {
                url: switchboard_core::spec::redact_url(url),
                reason,
                detail: detail.0,
            },
            None => McpError::Handshake {
                server: server.to_owned(),
                source: Box::new(detail),
            },
        }
    }

    pub(crate) fn from_sse(server: &str, url: &str, error: SseTransportError) -> Self {
        match error {
            SseTransportError::Unauthorized { status, .. } => McpError::Denied {
                server: server.to_owned(),
                status: status.as_u16(),
            },
            // The server answered, but not as a legacy SSE endpoint does.
            SseTransportError::NotEventStream { .. }
            | SseTransportError::BadEndpoint { .. }
            | SseTransportError::EventTooLarge { .. }
            | SseTransportError::NoEndpoint => McpError::Protocol {
                server: server.to_owned(),
                detail: Redacted::new(&error, url).0,
            },
            other => McpError::Unreachable {
                url: switchboard_core::spec::redact_url(url),
                reason: ReachFailure::of(&other),
                detail: Redacted::new(&other, url).0,
            },
        }
    }
}

/// An error's whole message with the server URL's secrets (password, query values) hidden,
/// on one line and cut at [`MAX_DETAIL`] characters (the transports already keep response
/// bodies out; this bounds whatever else the causes quote).
#[derive(Debug)]
pub(crate) struct Redacted(String);

impl Redacted {
    fn new(error: &(dyn std::error::Error + 'static), url: &str) -> Self {
        Self::from_text(error_chain(error), url)
    }

    fn from_text(mut text: String, url: &str) -> Self {
        let safe = switchboard_core::spec::redact_url(url);
        // reqwest prints the URL normalised (`http://host/` for `http://host`), so both forms.
        let normalised = url::Url::parse(url).map(String::from).ok();
        for raw in [Some(url.to_owned()), normalised].into_iter().flatten() {
            if raw != safe && !raw.is_empty() {
                text = text.replace(&raw, &safe);
            }
        }
        Self(short_text(&text, MAX_DETAIL))
    }
}

impl std::fmt::Display for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Redacted {}

/// The whole `source()` chain in one line.
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Whether rmcp's OAuth client refused `error`'s request for want of a sign-in (`Some(None)`)
/// or of a scope (`Some(Some(scope))`): its 401 and 403 `insufficient_scope` errors.
fn sign_in_wanted(error: &(dyn std::error::Error + 'static)) -> Option<SignInWanted> {
    use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
    let mut current = Some(error);
    while let Some(cause) = current {
        if let Some(refusal) = cause.downcast_ref::<AuthRequiredError>() {
            return Some(SignInWanted {
                scope: None,
                challenge: challenge_of(&refusal.www_authenticate_header),
            });
        }
        if let Some(scope) = cause.downcast_ref::<InsufficientScopeError>() {
            return Some(SignInWanted {
                scope: scope
                    .required_scope
                    .as_deref()
                    .map(|s| short_text(s, MAX_QUOTED)),
                challenge: challenge_of(&scope.www_authenticate_header),
            });
        }
        current = cause.source();
    }
    None
}

/// The longest `WWW-Authenticate` challenge kept: an honest server's is a few hundred bytes.
pub(crate) const MAX_CHALLENGE: usize = 2048;

/// What a refusal that calls for a sign-in said.
struct SignInWanted {
    /// A wider scope it asked for (step-up).
    scope: Option<String>,
    challenge: Option<String>,
}

impl SignInWanted {
    fn error(self, server: &str) -> McpError {
        McpError::SignInRequired {
            server: server.to_owned(),
            scope: self.scope,
            challenge: self.challenge,
        }
    }
}

fn challenge_of(header: &str) -> Option<String> {
    (!header.is_empty()).then(|| header.chars().take(MAX_CHALLENGE).collect())
}

/// [`sign_in_wanted`] of a failed handshake: rmcp keeps the transport's error in a field, not
/// as the source (as its own `auth_challenge` reads it), and the classic handshake's failure
/// after the stateless one's in `fallback`.
fn handshake_sign_in(error: &ClientInitializeError) -> Option<SignInWanted> {
    match error {
        ClientInitializeError::TransportError { error, .. } => sign_in_wanted(error.error.as_ref()),
        ClientInitializeError::LegacyFallbackFailed { fallback, discover } => {
            handshake_sign_in(fallback).or_else(|| handshake_sign_in(discover))
        }
        _ => None,
    }
}

fn scope_suffix(scope: &Option<String>) -> String {
    match scope {
        Some(scope) => format!(" again with the scope `{scope}`"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_in_the_url_are_hidden() {
        let url = "https://mcp.example.com/mcp?api_key=s3cret";
        let error = std::io::Error::other(format!("error sending request for url ({url})"));
        let text = Redacted::new(&error, url).0;
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.contains("api_key=***"), "{text}");
    }
}
