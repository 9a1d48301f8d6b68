//! Views of the MCP gateway: named selections of a person's servers and tools,
//! served at `/mcp/v/{name}` and by `switchboard mcp --stdio --view NAME`.
//!
//! A view either follows an assistant (its servers, every enabled tool of each) or lists
//! servers itself, each with an optional set of tools and its own name prefix. It lists its
//! tools to clients whole (`all`) or as a few tools that search, describe and call the rest
//! (`search`), with the tools it pins listed beside them.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ServerId;
use crate::pinned::{MAX_PINNED_TOOLS, PinnedTool};

mod tasks;

pub use tasks::{DEFAULT_SLOW_AFTER_SECS, MAX_SLOW_AFTER_SECS, RunAsTask, ViewTasks};

/// The longest view name.
pub const MAX_VIEW_NAME: usize = 64;
/// The longest prefix of a server's exported tool names: with the tool's own name the whole
/// must still fit the 64 characters LLM clients accept for a function name.
pub const MAX_VIEW_PREFIX: usize = 32;
/// The longest description.
pub const MAX_VIEW_DESCRIPTION: usize = 2_000;

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
    /// How the calls of clients that accept tasks are run; left out: never as Switchboard's
    /// own tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ViewTasks>,
    /// How `tools/list` shows the view's tools; left out: `all`.
    #[serde(default, skip_serializing_if = "ViewExposure::is_all")]
    pub tool_exposure: ViewExposure,
    /// The tools `tools/list` shows in full in `search` mode, beside the search tools (a
    /// server without `tool`: every tool of it). Each names a server of the view. At most 200.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned_tools: Vec<PinnedTool>,
}

/// How a view shows its tools in `tools/list`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ViewExposure {
    /// Every tool of the view.
    #[default]
    All,
    /// `search_tools`, `describe_tool` and `call_tool`, plus the pinned tools; every other
    /// tool of the view is found by search and stays callable by its exported name.
    Search,
}

impl ViewExposure {
    pub fn is_all(&self) -> bool {
        *self == ViewExposure::All
    }
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

/// Why a [`ViewSpec`] cannot be saved. `field` names the JSON field at fault
/// (`servers[1].prefix`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ViewError {
    /// Not 1 to 64 of `[a-z0-9_-]` (the name is a URL path segment and a CLI argument).
    #[error("the view name {name:?} must be 1 to 64 characters of a-z, 0-9, `_` and `-`")]
    InvalidName { name: String },
    /// Neither an assistant nor any server: the view would offer nothing.
    #[error("a view needs an assistant or at least one server")]
    Empty,
    /// Both an assistant and servers: which one wins would be a guess.
    #[error("a view follows an assistant or lists servers, not both")]
    AssistantAndServers,
    /// A prefix with characters a tool name cannot carry, or too long.
    #[error(
        "{field}: {prefix:?} may only contain ASCII letters, digits, `_` and `-`, \
         at most 32 characters"
    )]
    InvalidPrefix { field: String, prefix: String },
    /// A tool named by an empty (or blank) name.
    #[error("{field}: a tool name must not be empty")]
    EmptyToolName { field: String },
    /// A tool set with no tool in it: leave `tools` out to offer every tool.
    #[error("{field} must name at least one tool (leave it out to offer every tool)")]
    NoTools { field: String },
    /// The same server listed twice.
    #[error("{field}: server {server:?} is listed more than once")]
    DuplicateServer { field: String, server: String },
    /// An empty id where one is needed.
    #[error("{field} must not be empty")]
    EmptyId { field: String },
    /// A description longer than [`MAX_VIEW_DESCRIPTION`] characters.
    #[error("description must be at most 2000 characters")]
    DescriptionTooLong,
    /// A `slow` threshold out of 1 to [`MAX_SLOW_AFTER_SECS`] seconds.
    #[error("tasks.slowAfterSecs must be 1 to 86400 seconds, not {secs}")]
    SlowAfterOutOfRange { secs: u32 },
    /// More pinned tools than [`MAX_PINNED_TOOLS`].
    #[error("pinnedTools may hold at most 200 tools")]
    TooManyPinned,
    /// A pin of a server the view does not list, or of a tool the view leaves out.
    #[error("{field}: {what} is not a tool of the view")]
    PinnedOutsideView { field: String, what: String },
}

/// Whether `name` can name a view: 1 to [`MAX_VIEW_NAME`] of `[a-z0-9_-]`.
pub fn is_view_name(name: &str) -> bool {
    (1..=MAX_VIEW_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

impl ViewSpec {
    /// Checks every rule that needs nothing but the spec, and returns the first broken one in
    /// field order. Whether the servers and the assistant exist, are the person's, and whether
    /// the exported names collide is checked where they are known (the store, the gateway).
    pub fn validate(&self) -> Result<(), ViewError> {
        if !is_view_name(&self.name) {
            return Err(ViewError::InvalidName {
                name: self.name.clone(),
            });
        }
        if self
            .description
            .as_ref()
            .is_some_and(|d| d.chars().count() > MAX_VIEW_DESCRIPTION)
        {
            return Err(ViewError::DescriptionTooLong);
        }
        match (&self.assistant_id, self.servers.is_empty()) {
            (Some(_), false) => return Err(ViewError::AssistantAndServers),
            (None, true) => return Err(ViewError::Empty),
            (Some(id), true) if id.trim().is_empty() => {
                return Err(ViewError::EmptyId {
                    field: "assistantId".into(),
                });
            }
            _ => {}
        }
        let mut seen = BTreeSet::new();
        for (i, server) in self.servers.iter().enumerate() {
            server.validate(&format!("servers[{i}]"))?;
            if !seen.insert(&server.server_id.0) {
                return Err(ViewError::DuplicateServer {
                    field: format!("servers[{i}].serverId"),
                    server: server.server_id.0.clone(),
                });
            }
        }
        if let Some(tasks) = &self.tasks {
            tasks.validate()?;
        }
        self.validate_pins()
    }

    /// Pins name servers (and tools) of the view. A view that follows an assistant knows its
    /// servers only through the store: there a pin is checked to name a server of the person.
    fn validate_pins(&self) -> Result<(), ViewError> {
        if self.pinned_tools.len() > MAX_PINNED_TOOLS {
            return Err(ViewError::TooManyPinned);
        }
        for (i, pin) in self.pinned_tools.iter().enumerate() {
            let field = format!("pinnedTools[{i}]");
            if pin.server_id.0.trim().is_empty() {
                return Err(ViewError::EmptyId {
                    field: format!("{field}.serverId"),
                });
            }
            if pin.tool.as_ref().is_some_and(|t| t.trim().is_empty()) {
                return Err(ViewError::EmptyToolName {
                    field: format!("{field}.tool"),
                });
            }
            if self.assistant_id.is_some() {
                continue;
            }
            let server = self.servers.iter().find(|s| s.server_id == pin.server_id);
            let offered = match (server, &pin.tool) {
                (None, _) => false,
                (Some(server), Some(tool)) => {
                    server.tools.as_ref().is_none_or(|t| t.contains(tool))
                }
                (Some(_), None) => true,
            };
            if !offered {
                let what = match &pin.tool {
                    Some(tool) => format!("{:?} of server {:?}", tool, pin.server_id.0),
                    None => format!("server {:?}", pin.server_id.0),
                };
                return Err(ViewError::PinnedOutsideView { field, what });
            }
        }
        Ok(())
    }
}

impl ViewServer {
    fn validate(&self, at: &str) -> Result<(), ViewError> {
        if self.server_id.0.trim().is_empty() {
            return Err(ViewError::EmptyId {
                field: format!("{at}.serverId"),
            });
        }
        if let Some(tools) = &self.tools {
            if tools.is_empty() {
                return Err(ViewError::NoTools {
                    field: format!("{at}.tools"),
                });
            }
            if tools.iter().any(|t| t.trim().is_empty()) {
                return Err(ViewError::EmptyToolName {
                    field: format!("{at}.tools"),
                });
            }
        }
        if let Some(prefix) = &self.prefix {
            let fits = prefix.len() <= MAX_VIEW_PREFIX
                && prefix
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !fits {
                return Err(ViewError::InvalidPrefix {
                    field: format!("{at}.prefix"),
                    prefix: prefix.clone(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "view/tests.rs"]
mod tests;
