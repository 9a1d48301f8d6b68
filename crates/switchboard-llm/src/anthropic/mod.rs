//! Anthropic Messages: `POST {base_url}/v1/messages`, streamed.
//!
//! The request is built in [`request`], the stream read in [`decode`]; this file holds the
//! configuration and the [`Provider`] implementation that joins them.

pub(crate) mod decode;
mod request;

pub use request::TOOL_SEARCH_BETA as ANTHROPIC_TOOL_SEARCH_BETA;

use std::fmt;

use crate::error::LlmError;
use crate::models::{KeyHeader, ListLimits, Listing, ModelsError};
use crate::provider::{EventStream, Provider, WireFormat};
use crate::retry::RetryPolicy;
use crate::types::ChatRequest;
use crate::{redact, sse, transport};

/// Anthropic's own endpoint.
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version sent in `anthropic-version`; the one whose stream format this code reads.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` is required by the API; this is sent when the request names none.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 4096;

/// Where the Anthropic API is and how to call it.
#[derive(Clone, PartialEq, Eq)]
pub struct AnthropicConfig {
    /// The API root, without `/v1` (`https://api.anthropic.com`); a trailing slash or `/v1`
    /// is tolerated.
    pub base_url: String,
    /// Sent as `x-api-key`. Anthropic needs one; a proxy in front of it may not.
    pub api_key: Option<String>,
    /// `max_tokens` for requests that name none.
    pub default_max_tokens: u32,
    /// Retries of the call's start.
    pub retry: RetryPolicy,
}

impl AnthropicConfig {
    /// The API at `base_url`, without a key.
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
        let root = self.base_url.trim_end_matches('/');
        let root = root.strip_suffix("/v1").unwrap_or(root);
        format!("{root}/v1/messages")
    }
}

impl Default for AnthropicConfig {
    /// Anthropic itself, without a key, with the default retry policy.
    fn default() -> Self {
        Self {
            base_url: ANTHROPIC_DEFAULT_BASE_URL.into(),
            api_key: None,
            default_max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
            retry: RetryPolicy::default(),
        }
    }
}

impl fmt::Debug for AnthropicConfig {
    /// Shows whether there is a key, never the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("default_max_tokens", &self.default_max_tokens)
            .field("retry", &self.retry)
            .finish()
    }
}

/// The Anthropic Messages endpoint. Cheap to clone (the HTTP client is shared).
#[derive(Debug, Clone)]
pub struct AnthropicProvider {
    config: AnthropicConfig,
    endpoint: String,
    client: reqwest::Client,
}

impl AnthropicProvider {
    /// A provider with its own HTTP client.
    ///
    /// # Panics
    ///
    /// When the TLS backend cannot be initialised (as [`reqwest::Client::new`] does).
    pub fn new(config: AnthropicConfig) -> Self {
        Self::with_client(config, reqwest::Client::new())
    }

    /// A provider that sends through `client` (shared connection pool, proxies, timeouts).
    pub fn with_client(config: AnthropicConfig, client: reqwest::Client) -> Self {
        Self {
            endpoint: config.endpoint(),
            config,
            client,
        }
    }

    pub fn config(&self) -> &AnthropicConfig {
        &self.config
    }

    /// The request for `body`, with the tool search beta when `tool_search`.
    fn build(&self, body: &serde_json::Value, tool_search: bool) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(&self.endpoint)
            .header("anthropic-version", ANTHROPIC_VERSION)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(body);
        if tool_search {
            request = request.header("anthropic-beta", ANTHROPIC_TOOL_SEARCH_BETA);
        }
        let Some(key) = &self.config.api_key else {
            return request;
        };
        // Marked sensitive so it never shows in a debug print of the headers. A key that is
        // not a valid header value makes `send` fail with a builder error, without the key.
        match reqwest::header::HeaderValue::from_str(key) {
            Ok(mut value) => {
                value.set_sensitive(true);
                request.header("x-api-key", value)
            }
            Err(_) => request.header("x-api-key", key.as_str()),
        }
    }
}

#[async_trait::async_trait]
impl Provider for AnthropicProvider {
    fn wire_format(&self) -> WireFormat {
        WireFormat::Anthropic
    }

    async fn stream(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        let body = request::body(request, self.config.default_max_tokens);
        let secret = self.config.api_key.as_deref();
        let redactor = redact::redactor(secret, &self.config.base_url);
        let tool_search = request.native_tool_search.is_some();
        let response = transport::start(&self.config.retry, secret, || {
            self.build(&body, tool_search)
        })
        .await
        .map_err(|error| error.redacted(&redactor))?;
        let decoder = decode::EventDecoder::new(self.config.api_key.clone());
        Ok(redact::stream(sse::events(response, decoder), redactor))
    }

    /// `GET {base_url}/v1/models`, the first thousand.
    async fn models(&self, limits: &ListLimits) -> Result<Vec<String>, ModelsError> {
        let key = self.config.api_key.as_deref();
        let listing = Listing {
            client: &self.client,
            key: key.map_or(KeyHeader::None, KeyHeader::Anthropic),
            limits,
            redactor: redact::redactor(key, &self.config.base_url),
        };
        let root = self.config.base_url.trim_end_matches('/');
        let root = root.strip_suffix("/v1").unwrap_or(root);
        listing
            .run(&format!("{root}/v1/models?limit=1000"), None)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_key() {
        let config = AnthropicConfig::default().with_api_key("sk-ant-secret");
        let shown = format!("{:?}", AnthropicProvider::new(config));
        assert!(!shown.contains("sk-ant-secret"), "{shown}");
        assert!(shown.contains("[redacted]"));
    }

    #[test]
    fn endpoint_tolerates_slash_and_v1() {
        for base in [
            "http://h:1",
            "http://h:1/",
            "http://h:1/v1",
            "http://h:1/v1/",
        ] {
            assert_eq!(
                AnthropicConfig::new(base).endpoint(),
                "http://h:1/v1/messages"
            );
        }
    }
}
