//! A provider's models: what `GET {base}/models` answers (OpenAI and the servers that copy it:
//! vLLM, LM Studio, llama.cpp's server, Ollama's `/v1`; Anthropic's `/v1/models`), or Ollama's
//! own `GET /api/tags` when the OpenAI path is not there.
//!
//! Listing is how a person finds out whether a provider works before a chat depends on it, so
//! a failure is classified by what a person can do about it: a name that does not resolve, a
//! port where nothing listens, no answer in time, a refused key, a wrong path, an answer that
//! is not a list. The wait and the body are bounded ([`ListLimits`]): a base URL may point at
//! anything, including a server that never answers or answers forever. The key and the URL's
//! credentials appear in no error, and a body that is not an error document is never quoted.

use std::time::Duration;

use serde_json::Value;
use switchboard_core::spec::Redactor;
use thiserror::Error;

use crate::classify::{ProviderError, short_text};

/// How long and how large a listing may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListLimits {
    /// For the whole listing, the fallback path included.
    pub timeout: Duration,
    /// The largest answer read, in bytes.
    pub max_bytes: usize,
    /// The most model ids kept; the rest are left out.
    pub max_models: usize,
}

impl Default for ListLimits {
    /// Ten seconds, 8 MiB (a hosted router's catalogue runs to a few megabytes) and 5,000 ids.
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            max_bytes: 8 << 20,
            max_models: 5_000,
        }
    }
}

/// The longest model id kept, in characters; longer ones are left out.
const MAX_ID_CHARS: usize = 256;

/// Why a provider's models could not be listed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ModelsError {
    /// The provider's host name does not resolve (a typo, or a name only another network
    /// knows).
    #[error("the name {host} does not resolve: check the host of the base URL")]
    NameNotResolved { host: String },
    /// Nothing listens at the address: the connection was refused.
    #[error(
        "nothing listens at {address} (the connection was refused): check that the server is \
         running and that the port is right"
    )]
    Refused { address: String },
    /// No answer within the time allowed.
    #[error(
        "no answer within {} s: check the address, or try again when the server is less busy",
        .after.as_secs_f32()
    )]
    Timeout { after: Duration },
    /// The connection failed another way (TLS, a reset, a refused destination); the cause
    /// is kept for the log.
    #[error("the connection failed: check the address and that it serves HTTP or HTTPS")]
    Unreachable(#[source] reqwest::Error),
    /// The key is missing, wrong or lacks permission (401/403).
    #[error("the provider refused the API key ({status}: {message}): check the key")]
    Auth { status: u16, message: String },
    /// Nothing answers at the listing's path (404): the base URL is likely wrong.
    #[error(
        "nothing answers at {path} (404): check the base URL (an OpenAI-compatible one usually \
         ends in /v1)"
    )]
    NotFound { path: String },
    /// Another status than success.
    #[error("the provider answered {status}: {message}")]
    Status { status: u16, message: String },
    /// The answer is not a list of models (a web page, another API).
    #[error("the answer at {path} is not a list of models: check that the base URL is the API's")]
    NotAList { path: String },
    /// The answer is larger than a listing may be.
    #[error("the list of models is larger than {limit} bytes")]
    TooLarge { limit: usize },
    /// This provider has no way to list its models.
    #[error("this provider cannot list its models")]
    Unsupported,
}

/// Which header carries the key.
#[derive(Clone, Copy)]
pub(crate) enum KeyHeader<'a> {
    None,
    /// `Authorization: Bearer ...` (OpenAI-compatible).
    Bearer(&'a str),
    /// `x-api-key` with `anthropic-version` (Anthropic).
    Anthropic(&'a str),
}

/// One listing: where to ask, with which key, within which limits.
pub(crate) struct Listing<'a> {
    pub(crate) client: &'a reqwest::Client,
    pub(crate) key: KeyHeader<'a>,
    pub(crate) limits: &'a ListLimits,
    pub(crate) redactor: Redactor,
}

impl Listing<'_> {
    /// The models at `url`; when it answers 404 and `fallback` is given, the models there
    /// (the first 404 is reported if the fallback fails too).
    pub(crate) async fn run(
        &self,
        url: &str,
        fallback: Option<&str>,
    ) -> Result<Vec<String>, ModelsError> {
        let after = self.limits.timeout;
        let listed = tokio::time::timeout(after, async {
            match self.one(url).await {
                Err(ModelsError::NotFound { path }) => match fallback {
                    Some(other) => self
                        .one(other)
                        .await
                        .map_err(|_| ModelsError::NotFound { path }),
                    None => Err(ModelsError::NotFound { path }),
                },
                other => other,
            }
        })
        .await;
        listed.unwrap_or(Err(ModelsError::Timeout { after }))
    }

    async fn one(&self, url: &str) -> Result<Vec<String>, ModelsError> {
        let parsed = reqwest::Url::parse(url).map_err(|_| ModelsError::NotFound {
            path: self.clean(url),
        })?;
        let path = self.clean(parsed.path());
        let request = self
            .client
            .get(parsed.clone())
            .timeout(self.limits.timeout)
            .header(reqwest::header::ACCEPT, "application/json");
        let request = match self.key {
            KeyHeader::None => request,
            KeyHeader::Bearer(key) => request.bearer_auth(key),
            KeyHeader::Anthropic(key) => request
                .header("anthropic-version", crate::ANTHROPIC_VERSION)
                .header("x-api-key", sensitive(key)),
        };
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => return Err(self.failed(error.without_url(), &parsed).await),
        };
        let status = response.status().as_u16();
        let body = read_bounded(response, self.limits).await?;
        if !(200..300).contains(&status) {
            return Err(self.refused(status, &body, path));
        }
        let listed = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|value| model_ids(&value, self.limits.max_models));
        listed.ok_or(ModelsError::NotAList { path })
    }

    /// A non-success answer, classified; its message is the provider's, without secrets.
    fn refused(&self, status: u16, body: &[u8], path: String) -> ModelsError {
        let mut error = ProviderError::from_body(status, &String::from_utf8_lossy(body));
        self.redactor.redact_in_place(&mut error.message);
        match status {
            401 | 403 => ModelsError::Auth {
                status,
                message: error.message,
            },
            404 => ModelsError::NotFound { path },
            _ => ModelsError::Status {
                status,
                message: error.message,
            },
        }
    }

    /// A request that got no answer: a timeout, a refused port, a name that does not
    /// resolve (looked up again to tell it from other failures), or something else.
    async fn failed(&self, error: reqwest::Error, url: &reqwest::Url) -> ModelsError {
        if error.is_timeout() {
            return ModelsError::Timeout {
                after: self.limits.timeout,
            };
        }
        let host = url.host_str().unwrap_or_default().to_owned();
        let port = url.port_or_known_default().unwrap_or(80);
        if error.is_connect() {
            if refused(&error) {
                return ModelsError::Refused {
                    address: self.clean(&format!("{host}:{port}")),
                };
            }
            if url.domain().is_some() && !resolves(&host, port).await {
                return ModelsError::NameNotResolved {
                    host: self.clean(&host),
                };
            }
        }
        ModelsError::Unreachable(error)
    }

    fn clean(&self, text: &str) -> String {
        let mut text = short_text(text, MAX_ID_CHARS);
        self.redactor.redact_in_place(&mut text);
        text
    }
}

/// The key as a header value marked sensitive (never shown in a debug print of headers).
fn sensitive(key: &str) -> reqwest::header::HeaderValue {
    match reqwest::header::HeaderValue::from_str(key) {
        Ok(mut value) => {
            value.set_sensitive(true);
            value
        }
        Err(_) => reqwest::header::HeaderValue::from_static(""),
    }
}

/// Whether the connection was refused: an I/O error of that kind among the causes.
fn refused(error: &reqwest::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        if let Some(io) = current.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        cause = current.source();
    }
    false
}

/// Whether `host` resolves to at least one address.
async fn resolves(host: &str, port: u16) -> bool {
    tokio::net::lookup_host((host, port))
        .await
        .is_ok_and(|mut found| found.next().is_some())
}

/// At most `limits.max_bytes` of the body; more is [`ModelsError::TooLarge`].
async fn read_bounded(
    mut response: reqwest::Response,
    limits: &ListLimits,
) -> Result<Vec<u8>, ModelsError> {
    let limit = limits.max_bytes;
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(ModelsError::TooLarge { limit });
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > limit {
                    return Err(ModelsError::TooLarge { limit });
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(error) if error.is_timeout() => {
                return Err(ModelsError::Timeout {
                    after: limits.timeout,
                });
            }
            Err(error) => return Err(ModelsError::Unreachable(error.without_url())),
        }
    }
}

/// The model ids of a listing: OpenAI's and Anthropic's `{"data": [{"id": ...}]}`, Ollama's
/// `{"models": [{"name": ...}]}`. Sorted, without duplicates, empty, control characters or
/// overlong ids, at most `max` of them; `None` when `value` is neither shape.
pub(crate) fn model_ids(value: &Value, max: usize) -> Option<Vec<String>> {
    let ids: Vec<&Value> = if let Some(data) = value.get("data").and_then(Value::as_array) {
        data.iter().map(|entry| &entry["id"]).collect()
    } else if let Some(models) = value.get("models").and_then(Value::as_array) {
        models
            .iter()
            .map(|entry| match &entry["name"] {
                Value::String(_) => &entry["name"],
                _ => &entry["model"],
            })
            .collect()
    } else {
        return None;
    };
    let mut ids: Vec<String> = ids
        .into_iter()
        .filter_map(Value::as_str)
        .map(str::trim)
        .filter(|id| {
            !id.is_empty()
                && !id.chars().any(char::is_control)
                && id.chars().nth(MAX_ID_CHARS).is_none()
        })
        .map(str::to_owned)
        .collect();
    ids.sort();
    ids.dedup();
    ids.truncate(max);
    Some(ids)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_shapes_are_read_sorted_and_clean() {
        let openai = json!({"object": "list", "data": [
            {"id": "gpt-4o", "object": "model"}, {"id": "gpt-4.1-mini"}, {"id": "gpt-4o"},
            {"id": ""}, {"id": "bad\nid"}, {"id": 7}, {"nothing": true}
        ]});
        assert_eq!(
            model_ids(&openai, 100),
            Some(vec!["gpt-4.1-mini".to_owned(), "gpt-4o".to_owned()])
        );
        let ollama = json!({"models": [
            {"name": "qwen3:8b", "model": "qwen3:8b"}, {"model": "llama3.2:latest"}
        ]});
        assert_eq!(
            model_ids(&ollama, 100),
            Some(vec!["llama3.2:latest".to_owned(), "qwen3:8b".to_owned()])
        );
        assert_eq!(model_ids(&json!({"data": []}), 100), Some(Vec::new()));
        let long = "x".repeat(MAX_ID_CHARS + 1);
        assert_eq!(
            model_ids(&json!({"data": [{"id": long}]}), 100),
            Some(Vec::new())
        );
    }

    #[test]
    fn other_answers_are_not_lists_and_the_count_is_bounded() {
        assert_eq!(model_ids(&json!({"status": "ok"}), 100), None);
        assert_eq!(model_ids(&json!([1, 2]), 100), None);
        assert_eq!(model_ids(&json!({"data": "x"}), 100), None);
        let many =
            json!({"data": (0..50).map(|i| json!({"id": format!("m{i:02}")})).collect::<Vec<_>>()});
        assert_eq!(
            model_ids(&many, 3),
            Some(vec!["m00".into(), "m01".into(), "m02".into()])
        );
    }
}
