//! Pinned tools: the tools always offered in full where the rest are found by search (an
//! assistant's deferred tools, a gateway view in `search` mode).

use serde::{Deserialize, Serialize};

use crate::ServerId;

/// Tools one assistant or view may pin, at most.
pub const MAX_PINNED_TOOLS: usize = 200;

/// A tool (or, without `tool`, every tool of a server) always offered in full.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PinnedTool {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub server_id: ServerId,
    /// The tool's own name; absent: every tool of the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl PinnedTool {
    /// Whether this pin holds `tool` of the server `server`.
    pub fn covers(&self, server: &ServerId, tool: &str) -> bool {
        &self.server_id == server && self.tool.as_deref().is_none_or(|pinned| pinned == tool)
    }
}

/// Whether any of `pins` holds `tool` of `server`.
pub fn is_pinned(pins: &[PinnedTool], server: &ServerId, tool: &str) -> bool {
    pins.iter().any(|pin| pin.covers(server, tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_holds_one_tool_or_every_tool_of_its_server() {
        let (files, web) = (ServerId("files".into()), ServerId("web".into()));
        let pins = [
            PinnedTool {
                server_id: files.clone(),
                tool: Some("read".into()),
            },
            PinnedTool {
                server_id: web.clone(),
                tool: None,
            },
        ];
        assert!(is_pinned(&pins, &files, "read"));
        assert!(!is_pinned(&pins, &files, "write"));
        assert!(is_pinned(&pins, &web, "fetch"));
        assert!(!is_pinned(&pins, &ServerId("other".into()), "read"));
    }
}
