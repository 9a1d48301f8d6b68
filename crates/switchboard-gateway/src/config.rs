//! `[gateway]` settings.

use serde::{Deserialize, Serialize};

/// How the gateway names and guards what it re-exports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatewayConfig {
    /// How a tool (and a prompt) of a server is named where a view gives no prefix:
    /// `{server}` and `{tool}` are replaced by the sanitized names.
    pub name_template: String,
    /// What happens to a call of a tool that is not auto-approved when the client cannot be
    /// asked (it did not declare elicitation).
    pub unapproved: Unapproved,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self {
            name_template: "mcp__{server}__{tool}".to_owned(),
            unapproved: Unapproved::Refuse,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unapproved {
    /// Answer with a tool error saying the call needs approval.
    Refuse,
    /// Run it.
    Run,
}
