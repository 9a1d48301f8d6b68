use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::Invalid;

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

    /// The public endpoint a provider of this kind calls when it names no `baseUrl`.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
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
    /// Sent with a masked `apiKey` when `baseUrl` moves to another origin (scheme, host and
    /// port): the stored key is kept and will be sent there. Without it such a change is
    /// refused (`API_KEY_ORIGIN_CHANGED`), so a key never follows a URL elsewhere unasked.
    /// Never stored or shown.
    #[serde(default, skip_serializing)]
    #[cfg_attr(feature = "openapi", schema(write_only))]
    pub keep_api_key: bool,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("default_model", &self.default_model)
            .field("keep_api_key", &self.keep_api_key)
            .finish()
    }
}

impl ProviderConfig {
    /// The URL requests go to: `baseUrl`, else the kind's public endpoint.
    pub fn endpoint(&self) -> &str {
        self.base_url
            .as_deref()
            .unwrap_or_else(|| self.kind.default_base_url())
    }

    /// The origin (scheme, host, port) of [`ProviderConfig::endpoint`], as text; the
    /// endpoint itself when it does not parse.
    pub fn origin(&self) -> String {
        match switchboard_core::spec::parse_http_url(self.endpoint()) {
            Ok(url) => url.origin().ascii_serialization(),
            Err(_) => self.endpoint().to_owned(),
        }
    }

    /// This configuration, an edit of `saved` (whose secrets are in clear), with the masks it
    /// sent back replaced by the saved secrets: the URL's credentials, and the API key while
    /// the endpoint stays at the same origin (or [`ProviderConfig::keep_api_key`] says to
    /// take it along). A masked key for another origin is refused, as is a mask left in a
    /// URL whose credentials cannot be restored.
    pub fn with_saved_secrets(&self, saved: &ProviderConfig) -> Result<ProviderConfig, Invalid> {
        let mut config = self.clone();
        if let (Some(url), Some(old)) = (&self.base_url, &saved.base_url) {
            config.base_url = Some(switchboard_core::spec::restore_masked_url(url, old));
        }
        if config
            .base_url
            .as_deref()
            .is_some_and(switchboard_core::spec::url_holds_mask)
        {
            return Err(Invalid::MaskForNewDestination {
                entity: crate::Entity::Provider,
                field: "baseUrl",
            });
        }
        if config.api_key.as_deref() == Some(switchboard_core::MASK) {
            let (from, to) = (saved.origin(), config.origin());
            if saved.api_key.is_some() && from != to && !self.keep_api_key {
                return Err(Invalid::KeyForNewOrigin { from, to });
            }
            config.api_key.clone_from(&saved.api_key);
        }
        config.keep_api_key = false;
        Ok(config)
    }

    /// Refuses a configuration the store would not save (empty name or model, a bad URL).
    pub fn validate(&self) -> Result<(), crate::StoreError> {
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
