//! The servers a turn was started without: their tools could not be listed (the server could
//! not be reached, or is held back since it could not be; it wants a sign-in; ...), so the
//! model was not offered them. They are kept with the turn, in its assistant message's
//! `metadata.unavailableServers`, which `message.created` carries: the page and the terminal
//! chat say so in words as the turn starts, and the page still does after a reload.
//!
//! Why a server was left out is said here once ([`LeftOutBecause`]), from the failure's code;
//! each front end only words it in the reader's language.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_core::{ErrorCode, ServerId};
use switchboard_store::Message;

use crate::offer::UnavailableServer;

/// The metadata key of the servers a turn was started without.
pub const LEFT_OUT_KEY: &str = "unavailableServers";

/// Why a server's tools were left out, as a person is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LeftOutBecause {
    /// It could not be reached or started (or did not answer in time).
    Unreachable,
    /// It wants a sign-in, or rejected the credentials it was given.
    SignIn,
    /// Anything else (a refused launch, an answer that is not MCP).
    Failed,
}

impl LeftOutBecause {
    /// Why, from the documented code of the failure.
    pub fn of(code: ErrorCode) -> Self {
        match code {
            ErrorCode::McpUnreachable
            | ErrorCode::McpConnectionError
            | ErrorCode::McpTimeout
            | ErrorCode::UpstreamUnavailable => LeftOutBecause::Unreachable,
            ErrorCode::McpAuthFailed => LeftOutBecause::SignIn,
            _ => LeftOutBecause::Failed,
        }
    }
}

/// One server a turn was started without.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftOutServer {
    pub server_id: ServerId,
    /// The server's name, as the person named it.
    pub name: String,
    /// The documented code of the failure.
    pub code: ErrorCode,
    #[serde(rename = "kind")]
    pub because: LeftOutBecause,
}

impl LeftOutServer {
    pub fn of(server: &UnavailableServer) -> Self {
        Self {
            server_id: server.server_id.clone(),
            name: server.server.clone(),
            code: server.code,
            because: LeftOutBecause::of(server.code),
        }
    }
}

/// The servers `message`'s turn was started without (none for a turn that left none out, or
/// a message not written by a run); an error when the stored value is not a list of them.
pub fn left_out(message: &Message) -> Result<Vec<LeftOutServer>, serde_json::Error> {
    match message.metadata.get(LEFT_OUT_KEY) {
        None => Ok(Vec::new()),
        Some(value) => Vec::<LeftOutServer>::deserialize(value),
    }
}

/// Keeps `servers` in a new turn's `metadata` (nothing when there are none).
pub(crate) fn record(metadata: &mut Map<String, Value>, servers: &[UnavailableServer]) {
    if servers.is_empty() {
        return;
    }
    let kept: Vec<LeftOutServer> = servers.iter().map(LeftOutServer::of).collect();
    match serde_json::to_value(kept) {
        Ok(value) => {
            metadata.insert(LEFT_OUT_KEY.into(), value);
        }
        // Plain strings and enums always encode; were one not to, the turn goes on.
        Err(error) => tracing::warn!(%error, "the servers left out could not be kept"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use switchboard_store::{MessageRole, Timestamp};

    use super::*;

    fn message(metadata: Map<String, Value>) -> Message {
        Message {
            id: "m".into(),
            conversation_id: "c".into(),
            role: MessageRole::Assistant,
            content: String::new(),
            tool_calls: Vec::new(),
            metadata,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        }
    }

    fn unavailable(name: &str, code: ErrorCode) -> UnavailableServer {
        UnavailableServer {
            server_id: ServerId(name.to_lowercase()),
            server: name.into(),
            code,
            reason: "whatever the failure said".into(),
        }
    }

    #[test]
    fn kept_with_the_turn_by_name_and_why_and_read_back() {
        let mut metadata = Map::new();
        record(
            &mut metadata,
            &[
                unavailable("GitHub", ErrorCode::McpUnreachable),
                unavailable("Linear", ErrorCode::McpAuthFailed),
                unavailable("Local", ErrorCode::LaunchNotAllowed),
            ],
        );
        assert_eq!(
            metadata[LEFT_OUT_KEY],
            json!([
                {"serverId": "github", "name": "GitHub", "code": "MCP_UNREACHABLE", "kind": "unreachable"},
                {"serverId": "linear", "name": "Linear", "code": "MCP_AUTH_FAILED", "kind": "sign_in"},
                {"serverId": "local", "name": "Local", "code": "LAUNCH_NOT_ALLOWED", "kind": "failed"},
            ]),
            "no failure text: each front end words it"
        );
        let read = left_out(&message(metadata)).expect("a list");
        assert_eq!(read[0].name, "GitHub");
        assert_eq!(read[1].because, LeftOutBecause::SignIn);
    }

    #[test]
    fn nothing_left_out_keeps_nothing_and_a_bad_value_is_an_error() {
        let mut metadata = Map::new();
        record(&mut metadata, &[]);
        assert!(metadata.is_empty());
        assert_eq!(left_out(&message(metadata)).expect("none"), Vec::new());
        let mut bad = Map::new();
        bad.insert(LEFT_OUT_KEY.into(), json!("GitHub"));
        assert!(left_out(&message(bad)).is_err());
    }
}
