//! What Switchboard knows about one tool of one server.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::spec::ServerId;
use crate::task::ToolTasks;

/// Hints a server gives about a tool (MCP `ToolAnnotations`). Absent means "not known".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// A call to such a tool may be sent again after a lost connection without doing the
    /// work twice.
    pub fn safe_to_repeat(&self) -> bool {
        self.read_only_hint == Some(true) || self.idempotent_hint == Some(true)
    }
}

/// One tool of one server, as the server listed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolInfo {
    pub server_id: ServerId,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The tool's JSON Schema for its arguments, as the server sent it.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub input_schema: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub output_schema: Option<Map<String, Value>>,
    #[serde(default)]
    pub annotations: ToolAnnotations,
    /// Icons the server gave the tool (MCP `Tool.icons`), for clients that show them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<ToolIcon>,
    /// The server's `_meta` of the tool, as it sent it (MCP Apps' `ui` link is one): relayed
    /// to the gateway's clients and shown by the API, never read by the model.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub meta: Option<Map<String, Value>>,
    /// How the server runs the tool as a task; absent: the server runs no tasks (or a node
    /// of an older version listed it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ToolTasks>,
}

/// An icon of a tool (MCP `Icon`): a URI (often a `data:` URI) and what it suits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolIcon {
    pub src: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// `WxH` sizes (`48x48`) or `any`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `light` or `dark`; absent: any theme.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icons_round_trip_and_may_be_absent() {
        // As a node of an older version sends it (ToolInfo crosses the gRPC wire as JSON).
        let old: ToolInfo = serde_json::from_value(serde_json::json!({
            "serverId": "s", "name": "t", "inputSchema": {}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(old.icons.is_empty());
        assert!(serde_json::to_value(&old).is_ok_and(|v| v.get("icons").is_none()));

        let with_icons = ToolInfo {
            icons: vec![ToolIcon {
                src: "data:,".into(),
                mime_type: Some("image/png".into()),
                sizes: Some(vec!["16x16".into()]),
                theme: Some("dark".into()),
            }],
            ..old
        };
        let json = serde_json::to_value(&with_icons).unwrap_or_default();
        assert_eq!(
            json["icons"],
            serde_json::json!([{"src": "data:,", "mimeType": "image/png", "sizes": ["16x16"], "theme": "dark"}])
        );
        let back: ToolInfo = serde_json::from_value(json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, with_icons);
    }

    #[test]
    fn task_support_round_trips_and_may_be_absent() {
        let old: ToolInfo = serde_json::from_value(serde_json::json!({
            "serverId": "s", "name": "t", "inputSchema": {}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(old.tasks, None);
        assert!(serde_json::to_value(&old).is_ok_and(|v| v.get("tasks").is_none()));
        let required = ToolInfo {
            tasks: Some(ToolTasks {
                support: crate::task::TaskSupport::Required,
            }),
            ..old
        };
        let json = serde_json::to_value(&required).unwrap_or_default();
        assert_eq!(json["tasks"], serde_json::json!({"support": "required"}));
        let back: ToolInfo = serde_json::from_value(json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, required);
    }
}
