//! OpenAI-compatible chat completions: `POST {base_url}/chat/completions`, streamed.
//!
//! One adapter serves OpenAI and the servers that copy its API (DeepSeek, Qwen, Ollama, vLLM,
//! llama.cpp, ...): only the base URL and the key differ. The request is built in
//! [`request`], the stream read in [`decode`]; this file holds the configuration and the
//! [`Provider`] implementation that joins them.

pub(crate) mod decode;
mod request;

use std::fmt;

use crate::error::LlmError;
use crate::models::{KeyHeader, ListLimits, Listing, ModelsError};
use crate::provider::{EventStream, Provider, WireFormat};
use crate::retry::RetryPolicy;
use crate::types::ChatRequest;
use crate::{redact, sse, transport};

/// OpenAI's own endpoint.
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Where an OpenAI-compatible server is and how to call it.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// The API root, `/chat/completions` is appended (a trailing slash is fine):
    /// `https://api.openai.com/v1`, `http://localhost:11434/v1`, ...
    pub base_url: String,
    /// Sent as `Authorization: Bearer ...`; local servers often need none.
    pub api_key: Option<String>,
    /// Retries of the call's start.
    pub retry: RetryPolicy,
}

impl OpenAiConfig {
    /// A server at `base_url`, without a key.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            ..Self::default()
        }
    }

    /// The same with `api_key`.
    pub fn with_api_key(mut self, api_key: impl Into<String>) -> Self {
        self.api_key = Some(api_key.into());
        self
    }

    /// The same with `retry`.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The full URL requests go to.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

impl Default for OpenAiConfig {
    /// OpenAI itself, without a key, with the default retry policy.
    fn default() -> Self {
        Self {
            base_url: OPENAI_DEFAULT_BASE_URL.into(),
            api_key: None,
            retry: RetryPolicy::default(),
        }
    }
}

impl fmt::Debug for OpenAiConfig {
    /// Shows whether there is a key, never the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("retry", &self.retry)
            .finish()
    }
}

/// An OpenAI-compatible chat-completions endpoint. Cheap to clone (the HTTP client is shared).
#[derive(Debug, Clone)]
pub struct OpenAiProvider {
    config: OpenAiConfig,
    endpoint: String,
    client: reqwest::Client,
}

impl OpenAiProvider {
    /// A provider with its own HTTP client.
    ///
    /// # Panics
    ///
    /// When the TLS backend cannot be initialised (as [`reqwest::Client::new`] does).
    pub fn new(config: OpenAiConfig) -> Self {
        Self::with_client(config, reqwest::Client::new())
    }

    /// A provider that sends through `client` (shared connection pool, proxies, timeouts).
    pub fn with_client(config: OpenAiConfig, client: reqwest::Client) -> Self {
        Self {
            endpoint: config.endpoint(),
            config,
            client,
        }
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    fn build(&self, body: &serde_json::Value) -> reqwest::RequestBuilder {
        let request = self
            .client
            .post(&self.endpoint)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(body);
        match &self.config.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }
}

#[async_trait::async_trait]
impl Provider for OpenAiProvider {
    fn wire_format(&self) -> WireFormat {
        WireFormat::OpenAi
    }

    async fn stream(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        let body = request::body(request);
        let secret = self.config.api_key.as_deref();
        let redactor = redact::redactor(secret, &self.config.base_url);
        let response = transport::start(&self.config.retry, secret, || self.build(&body))
            .await
            .map_err(|error| error.redacted(&redactor))?;
        let decoder = decode::ChunkDecoder::new(self.config.api_key.clone());
        Ok(redact::stream(sse::events(response, decoder), redactor))
    }

    /// `GET {base_url}/models`; where that path is not found, Ollama's own `GET /api/tags`
    /// at the same root (without `/v1`).
    async fn models(&self, limits: &ListLimits) -> Result<Vec<String>, ModelsError> {
        let key = self.config.api_key.as_deref();
        let listing = Listing {
            client: &self.client,
            key: key.map_or(KeyHeader::None, KeyHeader::Bearer),
            limits,
            redactor: redact::redactor(key, &self.config.base_url),
        };
        let base = self.config.base_url.trim_end_matches('/');
        let root = base.strip_suffix("/v1").unwrap_or(base);
        listing
            .run(&format!("{base}/models"), Some(&format!("{root}/api/tags")))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_key() {
        let config = OpenAiConfig::default().with_api_key("sk-very-secret");
        let shown = format!("{:?}", OpenAiProvider::new(config.clone()));
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert!(shown.contains("[redacted]"));
        assert!(!format!("{config:?}").contains("sk-very-secret"));
    }

    #[test]
    fn base_urls_with_and_without_slash_give_one_endpoint() {
        assert_eq!(
            OpenAiConfig::new("http://h/v1/").endpoint(),
            "http://h/v1/chat/completions"
        );
        assert_eq!(
            OpenAiConfig::new("http://h/v1").endpoint(),
            "http://h/v1/chat/completions"
        );
        assert_eq!(
            OpenAiConfig::default().endpoint(),
            "https://api.openai.com/v1/chat/completions"
        );
    }
}
