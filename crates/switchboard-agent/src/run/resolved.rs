//! What a call offered through a tool node runs with: the model's arguments with the node's
//! mappings filled in from the run's variables. It is kept on the call's record when the call
//! is recorded, for the person who approves it, and replaced by what was sent once the call
//! ran (a variable changed while the call waited is used: `variables.rs`). The model never
//! sees it: the conversation is replayed with the arguments the model asked for.
//!
//! Credential-named fields and the server's secrets are masked, as in a node's own run
//! (`POST /api/tool-nodes/{id}/execute`).

use serde_json::{Map, Value};
use switchboard_core::spec::redact_json;
use switchboard_core::{SelectedTool, ServerSpec, ToolCallRecord, ToolCallStatus, Variables};

use super::Run;
use crate::offer::OfferedTool;

impl Run<'_> {
    /// Fills in the resolved arguments and the mapped parameters of each call of `records`
    /// that waits to run through a node. Variables that cannot be read, or a mapping that
    /// cannot be filled, leave the arguments unresolved: the call fails when it runs, and
    /// says why.
    pub(super) async fn resolve_for_approval(&self, records: &mut [ToolCallRecord]) {
        for record in records
            .iter_mut()
            .filter(|r| r.status == ToolCallStatus::Pending)
        {
            let Some(tool) = self.offered(record) else {
                continue;
            };
            let Some(node) = &tool.node else {
                continue;
            };
            let Some(selected) = node.node.selected(&record.tool_name) else {
                continue;
            };
            record.mapped_parameters = selected.mapped_parameters();
            let Ok(variables) = self.variables(node).await else {
                continue;
            };
            record.resolved_arguments = resolved(tool, selected, &record.arguments, &variables);
        }
    }

    /// The offered tool a recorded call is of.
    pub(super) fn offered(&self, call: &ToolCallRecord) -> Option<&OfferedTool> {
        self.offer
            .tools()
            .iter()
            .find(|t| t.server.id == call.server_id && t.tool.name == call.tool_name)
    }
}

/// `arguments` with `selected`'s mappings filled from `variables`, masked; `None` when a
/// mapping cannot be filled.
pub(super) fn resolved(
    tool: &OfferedTool,
    selected: &SelectedTool,
    arguments: &Map<String, Value>,
    variables: &Variables,
) -> Option<Map<String, Value>> {
    switchboard_core::resolve_arguments(selected, arguments.clone(), variables)
        .ok()
        .map(|resolved| masked(&tool.server, resolved))
}

/// `arguments` with credential-named fields and `server`'s secrets masked.
pub(super) fn masked(server: &ServerSpec, arguments: Map<String, Value>) -> Map<String, Value> {
    match redact_json(&Value::Object(arguments), &server.secret_values()) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
