use serde::{Deserialize, Serialize};

use super::Timestamp;

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ProviderKind {
    /// Any OpenAI-compatible chat completions endpoint (OpenAI, DeepSeek, Qwen, Ollama, vLLM,
    /// llama.cpp, ...).
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }

    pub fn parse(text: &str) -> Option<ProviderKind> {
        match text {
            "openai" => Some(ProviderKind::OpenAi),
            "anthropic" => Some(ProviderKind::Anthropic),
            _ => None,
        }
    }
}

/// What a person configures for an LLM provider.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderConfig {
    pub name: String,
    pub kind: ProviderKind,
    /// The API root; the provider's public endpoint when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Encrypted at rest, masked on display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    pub default_model: String,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("default_model", &self.default_model)
            .finish()
    }
}

impl ProviderConfig {
    pub(crate) fn validate(&self) -> Result<(), crate::StoreError> {
        crate::text::refuse_nul("the provider", self)?;
        if self.name.trim().is_empty() {
            return Err(crate::Invalid::Empty { field: "name" }.into());
        }
        crate::text::at_most("name", &self.name, switchboard_core::spec::MAX_NAME_CHARS)?;
        if self.default_model.trim().is_empty() {
            return Err(crate::Invalid::Empty {
                field: "defaultModel",
            }
            .into());
        }
        if let Some(Err(e)) = self
            .base_url
            .as_deref()
            .map(switchboard_core::spec::parse_http_url)
        {
            return Err(crate::Invalid::BaseUrl(e).into());
        }
        Ok(())
    }
}

/// A stored provider. Read for display its key is masked; the LLM client reads it with
/// [`Store::provider_with_key`](crate::Store::provider_with_key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Provider {
    pub id: String,
    #[serde(flatten)]
    pub config: ProviderConfig,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}
