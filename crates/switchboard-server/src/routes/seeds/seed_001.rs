//! Seed 001's shapes, translated at the edge of the house routes.
//!
//! - A server body on `POST /api/mcp-servers` and `PUT /api/mcp-servers/{id}` may use the
//!   seed's column names (`type` = `sse` | `streamableHttp` | `stdio`, `base_url`,
//!   `is_active`, `auto_approve_tools`, `disabled_tools`, `timeout` in seconds, `headers`,
//!   `command`, `args`, `env`): [`accept`] renames them to the house fields before the house
//!   handler reads the body, so every check stays the house's.
//! - `?format=seed001` on the list, one server, create and update answers in those names
//!   ([`Seed001Server`]); without it the answer is the house shape.
//! - The live event `tool.message.updated` (seed 001 `broadcastToolMessageUpdate`) beside
//!   `assistant.toolCall.updated`: the message id and the `ToolCallRecord` in the seed's
//!   fields ([`tool_message_updated`]).

use std::collections::BTreeMap;

use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_agent::AgentEvent;
use switchboard_core::import::credentials::looks_like_credential;
use switchboard_core::{ErrorCode, ToolCallRecord, TransportKind};
use switchboard_store::StoredServer;
use utoipa::ToSchema;

use crate::error::ApiError;

/// Which shape a server is answered in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The house shape (the default).
    #[default]
    House,
    /// Seed 001's column names; `columns` is the same.
    #[serde(alias = "columns")]
    Seed001,
}

/// `?format=`: the shape of the answer.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FormatQuery {
    /// `columns` (or `seed001`) answers in seed 001's field names (`type`, `base_url`, `is_active`,
    /// `auto_approve_tools`, `disabled_tools`, `timeout` in seconds); `house` (the default)
    /// in the house's.
    #[serde(default)]
    #[param(inline)]
    pub format: Format,
}

/// Seed 001's name of a field, and the house's.
const RENAMED: [(&str, &str); 4] = [
    ("base_url", "url"),
    ("is_active", "enabled"),
    ("auto_approve_tools", "autoApprovedTools"),
    ("type", "transport"),
];

/// A server body with seed 001's field names renamed to the house's; a body in the house
/// shape passes unchanged. Giving both names of one field is refused, as is a `type` the
/// seed does not have.
pub fn accept(mut body: Value) -> Result<Value, ApiError> {
    let Some(object) = body.as_object_mut() else {
        return Ok(body);
    };
    let mut renamed = false;
    for (seed, house) in RENAMED {
        let Some(value) = object.remove(seed) else {
            continue;
        };
        renamed = true;
        if object.contains_key(house) {
            return Err(ApiError::new(
                ErrorCode::ValidationError,
                format!("give either {seed:?} (seed 001) or {house:?}, not both"),
            )
            .key("error.msg.alias_both")
            .param("seed", format!("{seed:?}"))
            .param("house", format!("{house:?}")));
        }
        let value = if seed == "type" {
            Value::String(transport(&value)?.as_str().to_owned())
        } else {
            value
        };
        object.insert(house.to_owned(), value);
    }
    // Seed 001 has no way to say which env variables are credentials: in a body written in its
    // names, those whose names look like one are sealed and masked, as an import does.
    if renamed && !object.contains_key("secretEnv") && !object.contains_key("secret_env") {
        let secret: Vec<Value> = object
            .get("env")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|env| env.keys())
            .filter(|name| looks_like_credential(name))
            .map(|name| Value::String(name.clone()))
            .collect();
        if !secret.is_empty() {
            object.insert("secretEnv".to_owned(), Value::Array(secret));
        }
    }
    Ok(body)
}

/// Seed 001's `type`.
fn transport(value: &Value) -> Result<TransportKind, ApiError> {
    match value.as_str() {
        Some("sse") => Ok(TransportKind::Sse),
        Some("streamableHttp") => Ok(TransportKind::StreamableHttp),
        Some("stdio") => Ok(TransportKind::Stdio),
        _ => Err(ApiError::new(
            ErrorCode::UnsupportedTransport,
            format!("type {value} is not one of sse, streamableHttp, stdio"),
        )
        .key("error.msg.seed001_type")
        .param("type", value)),
    }
}

fn seed_type(kind: TransportKind) -> &'static str {
    match kind {
        TransportKind::Stdio => "stdio",
        TransportKind::Sse => "sse",
        _ => "streamableHttp",
    }
}

/// A server in seed 001's `mcp_servers` column names, secrets masked.
#[derive(Debug, Serialize, ToSchema)]
pub struct Seed001Server {
    pub id: String,
    pub name: String,
    /// `sse`, `streamableHttp` or `stdio`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub is_active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    pub headers: BTreeMap<String, String>,
    /// The tool-call timeout in seconds, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub disabled_tools: Vec<String>,
    pub auto_approve_tools: Vec<String>,
    /// The MCP node it runs on (not seed 001's); absent: this machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Milliseconds since the Unix epoch.
    pub updated_at: i64,
}

impl From<StoredServer> for Seed001Server {
    fn from(stored: StoredServer) -> Self {
        let spec = stored.spec;
        Self {
            id: spec.id.0,
            name: spec.name,
            kind: seed_type(spec.transport),
            is_active: spec.enabled,
            base_url: spec.url,
            headers: spec.headers,
            timeout: spec.timeout.map(|t| t.as_secs_f64()),
            command: spec.command,
            args: spec.args,
            env: spec.env,
            disabled_tools: spec.disabled_tools.into_iter().collect(),
            auto_approve_tools: spec.auto_approved_tools.into_iter().collect(),
            node: spec.node,
            created_at: stored.created_at.0,
            updated_at: stored.updated_at.0,
        }
    }
}

/// One server answered in `format`.
pub fn respond(stored: StoredServer, format: Format) -> Response {
    match format {
        Format::House => axum::Json(stored).into_response(),
        Format::Seed001 => axum::Json(Seed001Server::from(stored)).into_response(),
    }
}

/// A list of servers answered in `format`.
pub fn respond_list(stored: Vec<StoredServer>, format: Format) -> Response {
    match format {
        Format::House => axum::Json(stored).into_response(),
        Format::Seed001 => axum::Json(
            stored
                .into_iter()
                .map(Seed001Server::from)
                .collect::<Vec<_>>(),
        )
        .into_response(),
    }
}

/// Seed 001's `ToolCallRecord`: the house record without what the seed does not name.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SeedToolCallRecord<'a> {
    id: &'a str,
    server_id: &'a str,
    server_name: &'a str,
    tool_name: &'a str,
    display_name: &'a str,
    arguments: &'a Map<String, Value>,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
}

impl<'a> From<&'a ToolCallRecord> for SeedToolCallRecord<'a> {
    fn from(record: &'a ToolCallRecord) -> Self {
        Self {
            id: &record.id,
            server_id: &record.server_id.0,
            server_name: &record.server_name,
            tool_name: &record.tool_name,
            display_name: &record.display_name,
            arguments: &record.arguments,
            status: record.status.as_str(),
            response: record.response.as_ref(),
            is_error: record.is_error,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolMessageUpdated<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    conversation_id: &'a str,
    message_id: &'a str,
    tool_call: SeedToolCallRecord<'a>,
}

/// The kind of seed 001's event.
pub const TOOL_MESSAGE_UPDATED: &str = "tool.message.updated";

/// For an `assistant.toolCall.updated` event, the data of the `tool.message.updated` event
/// sent beside it; `None` for every other event.
pub fn tool_message_updated(event: &AgentEvent) -> Option<String> {
    let AgentEvent::ToolCallUpdated {
        conversation_id,
        message_id,
        tool_call,
    } = event
    else {
        return None;
    };
    serde_json::to_string(&ToolMessageUpdated {
        kind: TOOL_MESSAGE_UPDATED,
        conversation_id,
        message_id,
        tool_call: SeedToolCallRecord::from(tool_call.as_ref()),
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seed_names_become_house_names() {
        let body = accept(json!({
            "name": "n", "type": "streamableHttp", "base_url": "https://e.com/mcp",
            "is_active": false, "auto_approve_tools": ["a"], "disabled_tools": ["b"],
            "timeout": 30
        }))
        .unwrap();
        assert_eq!(
            body,
            json!({
                "name": "n", "transport": "streamable_http", "url": "https://e.com/mcp",
                "enabled": false, "autoApprovedTools": ["a"], "disabled_tools": ["b"],
                "timeout": 30
            })
        );
        let house = json!({"name": "n", "transport": "sse", "url": "https://e.com/sse"});
        assert_eq!(accept(house.clone()).unwrap(), house);
    }

    #[test]
    fn both_names_or_an_unknown_type_are_refused() {
        let error = accept(json!({"url": "https://a", "base_url": "https://b"})).unwrap_err();
        assert_eq!(error.code, ErrorCode::ValidationError);
        let error = accept(json!({"type": "websocket"})).unwrap_err();
        assert_eq!(error.code, ErrorCode::UnsupportedTransport);
    }
}
