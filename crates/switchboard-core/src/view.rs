//! Views of the MCP gateway (issue 16): named selections of a person's servers and tools,
//! served at `/mcp/v/{name}` and by `switchboard mcp --stdio --view NAME`.
//!
//! A view either follows an assistant (its servers, every enabled tool of each) or lists
//! servers itself, each with an optional set of tools and its own name prefix.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::ServerId;

/// The longest view name.
pub const MAX_VIEW_NAME: usize = 64;

/// A view as a person defines it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ViewSpec {
    /// In the URL (`/mcp/v/{name}`): 1 to 64 of `[a-z0-9_-]`, unique per person.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Follow this assistant's selection: its servers, with `servers` left empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_id: Option<String>,
    /// The servers of the view, when it does not follow an assistant.
    #[serde(default)]
    pub servers: Vec<ViewServer>,
}

/// One server of a view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ViewServer {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub server_id: ServerId,
    /// The tools offered (by their names on the server); `None`: every enabled tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<BTreeSet<String>>,
    /// What the exported names start with: `None` the gateway's name template
    /// (`mcp__{server}__{tool}`), `Some("")` the tools' own names, `Some(p)` `p` + the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
}
