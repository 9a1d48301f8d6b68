//! A provider's own secrets cut out of its errors.
//!
//! The API key and the credentials of the base URL (`user:pass@`, `?key=...` of some
//! gateways) must not come back in an error message, whatever the provider echoes: a 401 page
//! repeating the request headers, a proxy quoting the URL, a mid-stream error event. Each
//! provider builds a [`Redactor`] from its configuration and passes every error it returns,
//! before the stream starts and during it, through [`LlmError::redacted`]; network errors
//! never carry the request URL ([`reqwest::Error::without_url`]).

use futures::StreamExt;
use switchboard_core::spec::{Redactor, url_secret_values};

use crate::error::LlmError;
use crate::provider::EventStream;

/// The redactor of a provider configured with `api_key` at `base_url`.
pub(crate) fn redactor(api_key: Option<&str>, base_url: &str) -> Redactor {
    Redactor::new(
        api_key
            .map(str::to_owned)
            .into_iter()
            .chain(url_secret_values(base_url)),
    )
}

impl LlmError {
    /// This error with `redactor`'s secrets cut out of its message.
    pub(crate) fn redacted(self, redactor: &Redactor) -> LlmError {
        let clean = |mut message: String| {
            redactor.redact_in_place(&mut message);
            message
        };
        match self {
            LlmError::Auth { status, message } => LlmError::Auth {
                status,
                message: clean(message),
            },
            LlmError::RateLimited {
                retry_after,
                message,
            } => LlmError::RateLimited {
                retry_after,
                message: clean(message),
            },
            LlmError::ContextTooLong { message } => LlmError::ContextTooLong {
                message: clean(message),
            },
            LlmError::Upstream { status, message } => LlmError::Upstream {
                status,
                message: clean(message),
            },
            LlmError::BadRequest { status, message } => LlmError::BadRequest {
                status,
                message: clean(message),
            },
            LlmError::Network(error) => LlmError::Network(error.without_url()),
            LlmError::BrokenOff(error) => LlmError::BrokenOff(error.without_url()),
            LlmError::Protocol(message) => LlmError::Protocol(clean(message)),
            LlmError::Cancelled => LlmError::Cancelled,
        }
    }
}

/// `events` with every error in it redacted.
pub(crate) fn stream(events: EventStream, redactor: Redactor) -> EventStream {
    if redactor.is_empty() {
        return events;
    }
    Box::pin(events.map(move |item| item.map_err(|error| error.redacted(&redactor))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_and_url_credentials_are_cut_out_of_messages() {
        let redactor = redactor(
            Some("sk-key-123456"),
            "https://me:pw-secret-9@gw.example/v1?key=url-key-7777",
        );
        let error = LlmError::Auth {
            status: 401,
            message: "you sent Bearer sk-key-123456 to /v1?key=url-key-7777 as me:pw-secret-9"
                .into(),
        }
        .redacted(&redactor);
        let text = error.to_string();
        for secret in ["sk-key-123456", "url-key-7777", "pw-secret-9"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
    }
}
