//! A default provider from the conventional environment variables.
//!
//! When no provider is configured, the binary can still work with the variables the vendors'
//! own SDKs read: `OPENAI_API_KEY` / `OPENAI_BASE_URL` and `ANTHROPIC_API_KEY` /
//! `ANTHROPIC_BASE_URL`. OpenAI-compatible wins when both are present, because a base URL alone
//! (a local Ollama or vLLM, which need no key) is a deliberate choice. Empty values count as
//! unset.
//!
//! The lookup is a parameter, so the binary passes `std::env::var` and tests pass a map: no
//! test has to change the process environment.
//!
//! ```
//! use switchboard_llm::{DefaultProvider, default_provider_from_env};
//!
//! let vars = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "sk-ant-test".to_owned());
//! let Some(DefaultProvider::Anthropic(config)) = default_provider_from_env(vars) else {
//!     panic!("expected Anthropic");
//! };
//! assert_eq!(config.api_key.as_deref(), Some("sk-ant-test"));
//! ```

use std::sync::Arc;

use crate::anthropic::{AnthropicConfig, AnthropicProvider};
use crate::openai::{OpenAiConfig, OpenAiProvider};
use crate::provider::{Provider, WireFormat};

pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";
pub const OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";
pub const ANTHROPIC_API_KEY: &str = "ANTHROPIC_API_KEY";
pub const ANTHROPIC_BASE_URL: &str = "ANTHROPIC_BASE_URL";

/// The provider configuration the environment describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultProvider {
    OpenAi(OpenAiConfig),
    Anthropic(AnthropicConfig),
}

impl DefaultProvider {
    pub fn wire_format(&self) -> WireFormat {
        match self {
            DefaultProvider::OpenAi(_) => WireFormat::OpenAi,
            DefaultProvider::Anthropic(_) => WireFormat::Anthropic,
        }
    }

    /// The provider itself (see [`OpenAiProvider::new`] for the one way this can panic).
    pub fn into_provider(self) -> Arc<dyn Provider> {
        match self {
            DefaultProvider::OpenAi(config) => Arc::new(OpenAiProvider::new(config)),
            DefaultProvider::Anthropic(config) => Arc::new(AnthropicProvider::new(config)),
        }
    }
}

/// The provider the environment describes, reading variables through `vars` (pass
/// `|name| std::env::var(name).ok()` in the binary). `None` when none of the four variables is
/// set.
pub fn default_provider_from_env(vars: impl Fn(&str) -> Option<String>) -> Option<DefaultProvider> {
    let var = |name: &str| vars(name).filter(|value| !value.trim().is_empty());

    let (openai_key, openai_url) = (var(OPENAI_API_KEY), var(OPENAI_BASE_URL));
    if openai_key.is_some() || openai_url.is_some() {
        let mut config = OpenAiConfig::default();
        if let Some(url) = openai_url {
            config.base_url = url;
        }
        config.api_key = openai_key;
        return Some(DefaultProvider::OpenAi(config));
    }

    let (anthropic_key, anthropic_url) = (var(ANTHROPIC_API_KEY), var(ANTHROPIC_BASE_URL));
    if anthropic_key.is_some() || anthropic_url.is_some() {
        let mut config = AnthropicConfig::default();
        if let Some(url) = anthropic_url {
            config.base_url = url;
        }
        config.api_key = anthropic_key;
        return Some(DefaultProvider::Anthropic(config));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn from(pairs: &[(&str, &str)]) -> Option<DefaultProvider> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        default_provider_from_env(|name| map.get(name).cloned())
    }

    #[test]
    fn nothing_set_means_no_provider() {
        assert_eq!(from(&[]), None);
        assert_eq!(
            from(&[(OPENAI_API_KEY, ""), (ANTHROPIC_API_KEY, "  ")]),
            None
        );
    }

    #[test]
    fn openai_key_and_url() {
        let Some(DefaultProvider::OpenAi(config)) = from(&[(OPENAI_API_KEY, "sk-1")]) else {
            panic!("expected OpenAI");
        };
        assert_eq!(config.base_url, "https://api.openai.com/v1");
        assert_eq!(config.api_key.as_deref(), Some("sk-1"));

        let found = from(&[(OPENAI_BASE_URL, "http://localhost:11434/v1")]);
        let Some(DefaultProvider::OpenAi(config)) = found else {
            panic!("expected OpenAI");
        };
        assert_eq!(config.base_url, "http://localhost:11434/v1");
        assert_eq!(config.api_key, None);
    }

    #[test]
    fn anthropic_when_openai_is_absent_and_openai_wins_otherwise() {
        let found = from(&[
            (ANTHROPIC_API_KEY, "sk-ant"),
            (ANTHROPIC_BASE_URL, "http://proxy:1"),
        ]);
        let Some(DefaultProvider::Anthropic(config)) = &found else {
            panic!("expected Anthropic");
        };
        assert_eq!(config.base_url, "http://proxy:1");
        assert_eq!(config.api_key.as_deref(), Some("sk-ant"));
        assert_eq!(found.map(|p| p.wire_format()), Some(WireFormat::Anthropic));

        let both = from(&[(ANTHROPIC_API_KEY, "sk-ant"), (OPENAI_API_KEY, "sk-1")]);
        assert_eq!(both.map(|p| p.wire_format()), Some(WireFormat::OpenAi));
    }
}
