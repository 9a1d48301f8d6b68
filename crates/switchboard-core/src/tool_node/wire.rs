//! How a [`ToolNode`] is read: seed 002 embeds the whole server (`mcpServer`), our API names
//! it (`serverId`); both are accepted, and defaults fill what a short body leaves out.

use std::time::Duration;

use serde::Deserialize;

use super::{SelectedTool, ToolNode, VariableDecl};
use crate::spec::ServerId;

/// Seed 002's default number of retries.
fn three() -> u32 {
    3
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolNodeWire {
    name: String,
    #[serde(default)]
    server_id: Option<ServerId>,
    #[serde(default)]
    mcp_server: Option<ServerRef>,
    #[serde(default)]
    selected_tools: Vec<SelectedTool>,
    #[serde(default)]
    retry_on_error: bool,
    #[serde(default = "three")]
    max_retries: u32,
    #[serde(default, rename = "timeoutMs", with = "super::millis")]
    timeout: Option<Duration>,
    #[serde(default)]
    variables: Vec<VariableDecl>,
    #[serde(default)]
    assistant_id: Option<String>,
}

/// The part of an embedded `mcpServer` a node keeps.
#[derive(Deserialize)]
struct ServerRef {
    id: ServerId,
}

impl TryFrom<ToolNodeWire> for ToolNode {
    type Error = String;

    fn try_from(w: ToolNodeWire) -> Result<Self, Self::Error> {
        let server_id = match (w.server_id, w.mcp_server) {
            (Some(id), None) | (None, Some(ServerRef { id })) => id,
            (Some(id), Some(embedded)) if id == embedded.id => id,
            (Some(_), Some(_)) => {
                return Err("serverId and mcpServer.id name different servers".into());
            }
            (None, None) => return Err("missing field `serverId`".into()),
        };
        Ok(ToolNode {
            name: w.name,
            server_id,
            selected_tools: w.selected_tools,
            retry_on_error: w.retry_on_error,
            max_retries: w.max_retries,
            timeout: w.timeout,
            variables: w.variables,
            assistant_id: w.assistant_id,
        })
    }
}
