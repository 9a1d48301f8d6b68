//! Why a call to a model failed, classified so the caller knows whether to retry.

use std::time::Duration;

use thiserror::Error;

/// A failed model call. The provider's own message is kept in every variant that has one.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The key is missing, wrong or lacks permission (401/403).
    #[error("the provider refused the credentials: {message}")]
    Auth { status: u16, message: String },
    /// Too many requests (429); `retry_after` when the provider said.
    #[error("rate limited by the provider: {message}")]
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },
    /// The conversation does not fit the model's context window.
    #[error("the conversation is too long for the model: {message}")]
    ContextTooLong { message: String },
    /// The provider failed (5xx, or Anthropic's `overloaded_error`).
    #[error("the provider failed ({status}): {message}")]
    Upstream { status: u16, message: String },
    /// The provider refused the request as malformed (other 4xx).
    #[error("the provider rejected the request ({status}): {message}")]
    BadRequest { status: u16, message: String },
    /// The provider could not be reached, or the connection broke before the answer began:
    /// said in words where the cause is known (the name does not resolve, the connection was
    /// refused), else with the client's whole chain of causes.
    #[error("cannot reach the provider: {}", network_words(.0))]
    Network(reqwest::Error),
    /// The connection broke while the answer streamed: what came before it is all there is.
    #[error("the provider's answer broke off: {0}")]
    BrokenOff(#[source] reqwest::Error),
    /// The provider answered with something that is not its wire format.
    #[error("unexpected answer from the provider: {0}")]
    Protocol(String),
    /// The caller cancelled.
    #[error("cancelled")]
    Cancelled,
}

/// Why the provider could not be reached, in words where the cause is known.
fn network_words(error: &reqwest::Error) -> String {
    match switchboard_core::ReachFailure::of(error).words() {
        Some(words) => words.to_owned(),
        None => {
            let mut text = error.to_string();
            let mut cause = std::error::Error::source(error);
            while let Some(next) = cause {
                text.push_str(": ");
                text.push_str(&next.to_string());
                cause = next.source();
            }
            text
        }
    }
}

impl LlmError {
    /// Whether trying again later may succeed: rate limits, 5xx and network failures.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Upstream { .. }
                | LlmError::Network(_)
                | LlmError::BrokenOff(_)
        )
    }
}
