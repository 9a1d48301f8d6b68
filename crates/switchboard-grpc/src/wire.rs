//! Conversions between Switchboard's types and the protobuf messages, shared by both sides.
//!
//! MCP's own shapes travel as their JSON (see the `.proto`); Switchboard's status, errors,
//! progress and retry policy are typed. An error is sent with its kind and fields where the
//! host rebuilds the same [`McpError`] it would have had locally, so it is worded, retried and
//! mapped to HTTP exactly as for a local server.

use std::time::Duration;

use rmcp::model::ErrorData;
use sha2::{Digest, Sha256};
use switchboard_core::{Auth, ErrorCode, OwnerId, RetrySafety, ServerId, ServerSpec};
use switchboard_mcp::{
    Admission, ConnectionSnapshot, ConnectionStatus, McpError, Progress, RetryPolicy, ServerDetails,
};

use crate::pb;

mod requests;
mod tasks;

pub(crate) use requests::{
    Declared, MAX_OPEN_QUESTIONS, answer_from_pb, answer_to_pb, from_json, requester_from_pb,
    requester_to_pb, resume_from_pb, resume_to_pb, to_json,
};
pub(crate) use tasks::{TaskJson, task_from_json, task_to_json};

/// What the host sends to name a server: its owner, its spec (secrets in clear) and the
/// spec's version. A server with OAuth sign-in goes without its client's settings: the host
/// signs in and refreshes, the node only sends the token it is given (`access_token`).
pub(crate) fn server_ref(
    owner: &OwnerId,
    spec: &ServerSpec,
    admission: Admission,
) -> Result<pb::ServerRef, McpError> {
    let spec_json = match &spec.auth {
        Auth::OAuth { .. } => {
            let mut sent = spec.clone();
            sent.auth = Auth::OAuth {
                client_id: None,
                client_secret: None,
                scopes: Vec::new(),
            };
            serde_json::to_vec(&sent)
        }
        _ => serde_json::to_vec(spec),
    };
    let spec_json = spec_json.map_err(|error| McpError::Protocol {
        server: spec.name.clone(),
        detail: format!("the spec could not be written as JSON: {error}"),
    })?;
    Ok(pb::ServerRef {
        owner: owner.0.clone(),
        spec_version: spec_version(&spec_json),
        spec_json,
        admission: Some(pb::Admission {
            any_command: admission.any_command,
            guard_destinations: admission.guard_destinations,
        }),
        access_token: None,
    })
}

/// A digest of a spec's JSON: equal specs have equal versions.
pub(crate) fn spec_version(spec_json: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(spec_json);
    let mut version = String::with_capacity(24);
    for byte in &digest[..12] {
        version.push(char::from(HEX[usize::from(byte >> 4)]));
        version.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    version
}

/// The admission a request carries; a request without one gets the strictest.
pub(crate) fn admission_from_pb(admission: Option<&pb::Admission>) -> Admission {
    admission.map_or(
        Admission {
            any_command: false,
            guard_destinations: true,
        },
        |a| Admission {
            any_command: a.any_command,
            guard_destinations: a.guard_destinations,
        },
    )
}

pub(crate) fn retry_to_pb(policy: &RetryPolicy) -> pb::RetryPolicy {
    pb::RetryPolicy {
        max_retries: policy.max_retries,
        initial_delay_ms: millis(policy.initial_delay),
        max_delay_ms: millis(policy.max_delay),
        multiplier: policy.multiplier,
    }
}

pub(crate) fn retry_from_pb(policy: &pb::RetryPolicy) -> RetryPolicy {
    RetryPolicy {
        max_retries: policy.max_retries,
        initial_delay: Duration::from_millis(policy.initial_delay_ms),
        max_delay: Duration::from_millis(policy.max_delay_ms),
        multiplier: policy.multiplier,
    }
}

pub(crate) fn progress_to_pb(progress: Progress) -> pb::Progress {
    pb::Progress {
        progress: progress.progress,
        total: progress.total,
        message: progress.message,
    }
}

pub(crate) fn progress_from_pb(progress: pb::Progress) -> Progress {
    Progress {
        progress: progress.progress,
        total: progress.total,
        message: progress.message,
    }
}

pub(crate) fn status_to_pb(
    owner: &OwnerId,
    server: &ServerId,
    snapshot: &ConnectionSnapshot,
) -> pb::ServerStatus {
    pb::ServerStatus {
        owner: owner.0.clone(),
        server_id: server.0.clone(),
        status: status_name(snapshot.status).to_owned(),
        last_error: snapshot.last_error.clone(),
        last_active_at: snapshot.last_active_at.unwrap_or(0),
        details_json: snapshot
            .server
            .as_ref()
            .and_then(|details| serde_json::to_vec(details).ok())
            .unwrap_or_default(),
    }
}

pub(crate) fn status_from_pb(status: pb::ServerStatus) -> (OwnerId, ServerId, ConnectionSnapshot) {
    let server: Option<ServerDetails> = if status.details_json.is_empty() {
        None
    } else {
        serde_json::from_slice(&status.details_json).ok()
    };
    let snapshot = ConnectionSnapshot {
        status: status_from_name(&status.status),
        last_error: status.last_error,
        last_active_at: (status.last_active_at > 0).then_some(status.last_active_at),
        server,
    };
    (OwnerId(status.owner), ServerId(status.server_id), snapshot)
}

fn status_name(status: ConnectionStatus) -> &'static str {
    match status {
        ConnectionStatus::Disconnected => "disconnected",
        ConnectionStatus::Connecting => "connecting",
        ConnectionStatus::Connected => "connected",
        ConnectionStatus::Error => "error",
        ConnectionStatus::NeedsSignIn => "needs_sign_in",
    }
}

fn status_from_name(name: &str) -> ConnectionStatus {
    match name {
        "connecting" => ConnectionStatus::Connecting,
        "connected" => ConnectionStatus::Connected,
        "error" => ConnectionStatus::Error,
        "needs_sign_in" => ConnectionStatus::NeedsSignIn,
        _ => ConnectionStatus::Disconnected,
    }
}

/// The node's side: an error of its manager (already redacted by it) for the wire.
pub(crate) fn error_to_pb(error: &McpError) -> pb::NodeError {
    let mut wire = pb::NodeError {
        code: error.code().as_str().to_owned(),
        message: error.to_string(),
        retry: safety_to_pb(error.retry_safety()) as i32,
        ..pb::NodeError::default()
    };
    match error {
        McpError::LostAfterSend { server, tool } => {
            wire.kind = "lost_after_send".into();
            wire.server.clone_from(server);
            wire.tool.clone_from(tool);
        }
        McpError::ConnectionLost { server } => {
            wire.kind = "connection_lost".into();
            wire.server.clone_from(server);
        }
        McpError::Cancelled => wire.kind = "cancelled".into(),
        McpError::Timeout {
            server,
            method,
            timeout,
        } => {
            wire.kind = "timeout".into();
            wire.server.clone_from(server);
            wire.method.clone_from(method);
            wire.timeout_ms = millis(*timeout);
        }
        McpError::ToolNotFound { server, tool } => {
            wire.kind = "tool_not_found".into();
            wire.server.clone_from(server);
            wire.tool.clone_from(tool);
        }
        McpError::Disabled { server } => {
            wire.kind = "disabled".into();
            wire.server.clone_from(server);
        }
        McpError::Server { server, error } => {
            wire.kind = "server".into();
            wire.server.clone_from(server);
            wire.server_error_json = serde_json::to_vec(error).unwrap_or_default();
        }
        McpError::ShutDown => wire.kind = "shut_down".into(),
        McpError::TaskLost { server } => {
            wire.kind = "task_lost".into();
            wire.server.clone_from(server);
        }
        McpError::SignInRequired {
            server,
            scope,
            challenge,
        } => {
            wire.kind = "sign_in_required".into();
            wire.server.clone_from(server);
            wire.scope.clone_from(scope);
            wire.challenge.clone_from(challenge);
        }
        _ => {}
    }
    wire
}

/// The host's side: the error a node sent, as the error it would have been locally. `node`
/// names the node for the one kind that means the node itself is going away.
pub(crate) fn error_from_pb(node: &str, error: pb::NodeError) -> McpError {
    match error.kind.as_str() {
        "lost_after_send" => McpError::LostAfterSend {
            server: error.server,
            tool: error.tool,
        },
        "connection_lost" => McpError::ConnectionLost {
            server: error.server,
        },
        "cancelled" => McpError::Cancelled,
        "timeout" => McpError::Timeout {
            server: error.server,
            method: error.method,
            timeout: Duration::from_millis(error.timeout_ms),
        },
        "tool_not_found" => McpError::ToolNotFound {
            server: error.server,
            tool: error.tool,
        },
        "disabled" => McpError::Disabled {
            server: error.server,
        },
        "server" => match serde_json::from_slice::<ErrorData>(&error.server_error_json) {
            Ok(data) => McpError::Server {
                server: error.server,
                error: data,
            },
            Err(_) => remote(error),
        },
        "shut_down" => McpError::NodeUnreachable {
            node: node.to_owned(),
            detail: "the node is shutting down".into(),
        },
        "sign_in_required" => McpError::SignInRequired {
            server: error.server,
            scope: error.scope,
            challenge: error.challenge,
        },
        "task_lost" => McpError::TaskLost {
            server: error.server,
        },
        _ => remote(error),
    }
}

fn remote(error: pb::NodeError) -> McpError {
    McpError::Remote {
        code: error.code.parse().unwrap_or(ErrorCode::McpConnectionError),
        message: error.message,
        retry: safety_from_pb(error.retry),
    }
}

fn safety_to_pb(safety: RetrySafety) -> pb::RetrySafety {
    match safety {
        RetrySafety::Always => pb::RetrySafety::Always,
        RetrySafety::IfIdempotent => pb::RetrySafety::IfIdempotent,
        _ => pb::RetrySafety::Never,
    }
}

fn safety_from_pb(value: i32) -> RetrySafety {
    match pb::RetrySafety::try_from(value) {
        Ok(pb::RetrySafety::Always) => RetrySafety::Always,
        Ok(pb::RetrySafety::IfIdempotent) => RetrySafety::IfIdempotent,
        _ => RetrySafety::Never,
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;

/// A server's list change as the watch stream carries it.
pub(crate) fn list_change_to_pb(change: &switchboard_mcp::ListChange) -> pb::ListChanged {
    use switchboard_mcp::ListKind;
    pb::ListChanged {
        owner: change.owner.0.clone(),
        server_id: change.server.0.clone(),
        kind: match change.kind {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::Prompts => "prompts",
        }
        .to_owned(),
    }
}

/// A list change from the watch stream; `None` for a kind this host does not know.
pub(crate) fn list_change_from_pb(change: pb::ListChanged) -> Option<switchboard_mcp::ListChange> {
    use switchboard_mcp::ListKind;
    let kind = match change.kind.as_str() {
        "tools" => ListKind::Tools,
        "resources" => ListKind::Resources,
        "prompts" => ListKind::Prompts,
        _ => return None,
    };
    Some(switchboard_mcp::ListChange {
        owner: switchboard_core::OwnerId(change.owner),
        server: switchboard_core::ServerId(change.server_id),
        kind,
    })
}

/// A resource update as the watch stream carries it.
pub(crate) fn update_to_pb(update: &switchboard_mcp::ResourceUpdate) -> pb::ResourceUpdated {
    pb::ResourceUpdated {
        owner: update.owner.0.clone(),
        server_id: update.server.0.clone(),
        uri: update.uri.clone(),
    }
}

pub(crate) fn update_from_pb(update: pb::ResourceUpdated) -> switchboard_mcp::ResourceUpdate {
    switchboard_mcp::ResourceUpdate {
        owner: switchboard_core::OwnerId(update.owner),
        server: switchboard_core::ServerId(update.server_id),
        uri: update.uri,
    }
}

/// A server's log line as the watch stream carries it.
pub(crate) fn logged_to_pb(logged: &switchboard_mcp::LoggedLine) -> pb::ServerLogged {
    pb::ServerLogged {
        owner: logged.owner.0.clone(),
        server_id: logged.server.0.clone(),
        at: logged.line.at,
        level: logged.line.level.clone(),
        logger: logged.line.logger.clone(),
        text: logged.line.text.clone(),
    }
}

pub(crate) fn logged_from_pb(logged: pb::ServerLogged) -> switchboard_mcp::LoggedLine {
    switchboard_mcp::LoggedLine {
        owner: switchboard_core::OwnerId(logged.owner),
        server: switchboard_core::ServerId(logged.server_id),
        line: switchboard_mcp::ServerLogLine {
            at: logged.at,
            level: logged.level,
            logger: logged.logger,
            text: logged.text,
        },
    }
}

/// One round of `prompts/get` as a node answers it.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "result", rename_all = "snake_case")]
pub(crate) enum PromptRound {
    Complete(rmcp::model::GetPromptResult),
    InputRequired(rmcp::model::InputRequiredResult),
}
