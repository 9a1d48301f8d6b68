use serde::{Deserialize, Serialize};
use switchboard_core::{ServerId, VariableDecl};

use super::Timestamp;

/// How an assistant offers tools to its model (DESIGN.md "Tools offered to the model").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolMode {
    /// One provider function per tool (seed 001).
    #[default]
    Native,
    /// Tools listed in the system prompt, calls written as JSON blocks (seed 000).
    Prompt,
    /// One `mcp_query` tool over every server (seed 004).
    Meta,
}

impl ToolMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolMode::Native => "native",
            ToolMode::Prompt => "prompt",
            ToolMode::Meta => "meta",
        }
    }

    pub fn parse(text: &str) -> Option<ToolMode> {
        match text {
            "native" => Some(ToolMode::Native),
            "prompt" => Some(ToolMode::Prompt),
            "meta" => Some(ToolMode::Meta),
            _ => None,
        }
    }
}

/// Which tools an assistant's model is shown in full on every request (DESIGN.md "Large
/// catalogs").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolExposure {
    /// Every tool, on every request.
    All,
    /// The pinned tools and `search_tools`; what the model finds is offered from then on.
    Deferred,
    /// `all` while the tools fit the budget (a count of tools and an estimate of their
    /// tokens), `deferred` past it.
    #[default]
    Auto,
}

impl ToolExposure {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolExposure::All => "all",
            ToolExposure::Deferred => "deferred",
            ToolExposure::Auto => "auto",
        }
    }

    pub fn parse(text: &str) -> Option<ToolExposure> {
        match text {
            "all" => Some(ToolExposure::All),
            "deferred" => Some(ToolExposure::Deferred),
            "auto" => Some(ToolExposure::Auto),
            _ => None,
        }
    }
}

/// A tool (or every tool of a server) always offered in full, whatever the assistant's
/// exposure; the same pins a gateway view in `search` mode lists.
pub use switchboard_core::{MAX_PINNED_TOOLS, PinnedTool};

/// The rounds of tool calls an assistant may make for one user message (seed 001).
pub const DEFAULT_MAX_ROUNDS: u32 = 20;

fn default_max_rounds() -> u32 {
    DEFAULT_MAX_ROUNDS
}

/// What a person configures for an assistant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssistantConfig {
    pub name: String,
    #[serde(default)]
    pub system_prompt: String,
    /// The provider's id; the default provider when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// The model; the provider's default model when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default)]
    pub tool_mode: ToolMode,
    #[serde(default = "default_max_rounds")]
    pub max_rounds: u32,
    /// The variables the assistant declares: its tool nodes' mappings may use them,
    /// and a run fills them from the conversation's variables or their defaults.
    #[serde(default)]
    pub variables: Vec<VariableDecl>,
    /// Which tools the model sees in full on every request.
    #[serde(default)]
    pub tool_exposure: ToolExposure,
    /// Tools offered in full whatever the exposure.
    #[serde(default)]
    pub pinned_tools: Vec<PinnedTool>,
    /// When tools are deferred, let the provider's own tool search find them instead of
    /// Switchboard's `search_tools` (Anthropic's tool search tool, in the native tool mode);
    /// other providers and modes use `search_tools` whatever this says.
    #[serde(default)]
    pub native_tool_search: bool,
}

impl AssistantConfig {
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            system_prompt: String::new(),
            provider_id: None,
            model: None,
            tool_mode: ToolMode::Native,
            max_rounds: DEFAULT_MAX_ROUNDS,
            variables: Vec::new(),
            tool_exposure: ToolExposure::Auto,
            pinned_tools: Vec::new(),
            native_tool_search: false,
        }
    }

    pub(crate) fn validate(&self) -> Result<(), crate::StoreError> {
        crate::text::refuse_nul("the assistant", self)?;
        switchboard_core::tool_node::validate_variables(&self.variables)?;
        if self.name.trim().is_empty() {
            return Err(crate::Invalid::Empty { field: "name" }.into());
        }
        crate::text::at_most("name", &self.name, switchboard_core::spec::MAX_NAME_CHARS)?;
        if self.pinned_tools.len() > MAX_PINNED_TOOLS {
            return Err(crate::Invalid::OutOfRange {
                field: "pinnedTools",
                min: 0,
                max: MAX_PINNED_TOOLS as u32,
            }
            .into());
        }
        for pinned in &self.pinned_tools {
            if let Some(tool) = &pinned.tool {
                crate::text::at_most("pinnedTools", tool, switchboard_core::spec::MAX_NAME_CHARS)?;
            }
        }
        if !(1..=1000).contains(&self.max_rounds) {
            return Err(crate::Invalid::OutOfRange {
                field: "maxRounds",
                min: 1,
                max: 1000,
            }
            .into());
        }
        Ok(())
    }
}

/// A stored assistant with the servers it may use (seed 001 `assistant_mcp_servers`), in the
/// order they were given.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Assistant {
    pub id: String,
    #[serde(flatten)]
    pub config: AssistantConfig,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub server_ids: Vec<ServerId>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}
