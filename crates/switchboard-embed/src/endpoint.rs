//! [`EndpointEmbedder`]: an OpenAI-compatible embeddings endpoint (Ollama, llama.cpp's
//! server, vLLM, OpenAI).
//!
//! The URL is either the API's base (`http://127.0.0.1:11434/v1`), to which `/embeddings` is
//! added, or the endpoint itself (a path ending in `/embeddings`), used as given. Texts are
//! sent in batches of at most [`EndpointConfig::batch`] inputs, one request after another:
//! `{"model", "input": [...], "encoding_format": "float"}`, with the key as a bearer token
//! when one is set. The answer's `data[].embedding` are put back in the inputs' order by
//! their `index` and normalised.
//!
//! What the endpoint says when it fails is quoted short (one line, a few hundred characters)
//! with the key and the URL's credentials cut out; network errors never carry the URL.
//!
//! The client is given or made here: one URL a member configured must be reached through the
//! destination guard's client (`switchboard_mcp::destination::guarded_client`), passed to
//! [`EndpointEmbedder::with_client`]; the administrator's own URL needs none.

use std::time::Duration;

use serde::Deserialize;
use switchboard_core::spec::{Redactor, url_secret_values};
use switchboard_core::upstream_text::short_text;
use switchboard_core::{EmbedFuture, Embedder, EmbeddingError, Vectors};

use crate::pooling::normalized;

/// The characters of an endpoint's error quoted, at most.
const QUOTED_CHARS: usize = 300;

/// The bytes of one answer read, at most (64 inputs of 4,096 dimensions in JSON are about
/// 5 MB).
const MAX_ANSWER_BYTES: usize = 64 << 20;

/// Where the endpoint is and how it is asked.
#[derive(Clone)]
pub struct EndpointConfig {
    /// The API's base (`/embeddings` is added) or the endpoint (ending in `/embeddings`).
    pub url: String,
    /// The model the endpoint is asked for (`nomic-embed-text`, `text-embedding-3-small`).
    pub model: String,
    /// Sent as `Authorization: Bearer <key>` when set.
    pub key: Option<String>,
    /// Inputs per request, at most.
    pub batch: usize,
    /// How long one request may take, from connecting to the last byte of the answer.
    pub timeout: Duration,
    /// How long connecting may take (only for the client made here).
    pub connect_timeout: Duration,
}

impl EndpointConfig {
    /// The endpoint at `url` serving `model`, with the default batch and timeouts.
    pub fn new(url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            model: model.into(),
            key: None,
            batch: 64,
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
        }
    }
}

impl std::fmt::Debug for EndpointConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EndpointConfig")
            .field(
                "url",
                &Redactor::new(url_secret_values(&self.url)).redact(&self.url),
            )
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "***"))
            .field("batch", &self.batch)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// An OpenAI-compatible embeddings endpoint.
pub struct EndpointEmbedder {
    http: reqwest::Client,
    url: url::Url,
    /// The model the endpoint is asked for.
    served: String,
    key: Option<String>,
    batch: usize,
    timeout: Duration,
    /// `endpoint:<model>@<host[:port]/path>`.
    name: String,
    redactor: Redactor,
}

impl std::fmt::Debug for EndpointEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EndpointEmbedder")
            .field("name", &self.name)
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

impl EndpointEmbedder {
    /// A client of its own, with `config`'s timeouts.
    pub fn new(config: EndpointConfig) -> Result<Self, EmbeddingError> {
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| EmbeddingError::Endpoint(e.without_url().to_string()))?;
        Self::with_client(config, http)
    }

    /// Sends through `http` (the destination guard's client, for a member's endpoint).
    pub fn with_client(
        config: EndpointConfig,
        http: reqwest::Client,
    ) -> Result<Self, EmbeddingError> {
        let redactor = Redactor::new(
            config
                .key
                .clone()
                .into_iter()
                .chain(url_secret_values(&config.url)),
        );
        let url = endpoint_url(&config.url)
            .map_err(|why| EmbeddingError::Endpoint(redactor.redact(&why)))?;
        if config.model.trim().is_empty() {
            return Err(EmbeddingError::Endpoint("no model is named".to_owned()));
        }
        let name = format!(
            "endpoint:{}@{}{}",
            config.model,
            url.host_str().unwrap_or_default(),
            url.port().map(|p| format!(":{p}")).unwrap_or_default()
        ) + url.path();
        Ok(Self {
            http,
            url,
            served: config.model,
            key: config.key.filter(|k| !k.is_empty()),
            batch: config.batch.max(1),
            timeout: config.timeout,
            name,
            redactor,
        })
    }

    /// The URL requests go to.
    pub fn url(&self) -> &url::Url {
        &self.url
    }

    async fn embed_all(&self, texts: &[String]) -> Result<Vectors, EmbeddingError> {
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.batch) {
            vectors.extend(self.embed_batch(batch).await?);
        }
        Ok(vectors)
    }

    async fn embed_batch(&self, texts: &[String]) -> Result<Vectors, EmbeddingError> {
        let body = serde_json::json!({
            "model": self.served,
            "input": texts,
            "encoding_format": "float",
        });
        let mut request = self
            .http
            .post(self.url.clone())
            .timeout(self.timeout)
            .json(&body);
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        let mut response = request.send().await.map_err(|e| self.network(e))?;
        let status = response.status();
        let mut answer = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.network(e))? {
            if answer.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(EmbeddingError::Endpoint(format!(
                    "the answer is larger than {MAX_ANSWER_BYTES} bytes"
                )));
            }
            answer.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            return Err(self.failure(&format!("HTTP {status}"), &answer));
        }
        let parsed: Answer = serde_json::from_slice(&answer).map_err(|e| {
            self.failure(&format!("an answer that is not embeddings ({e})"), &answer)
        })?;
        order(parsed, texts.len())
    }

    fn network(&self, error: reqwest::Error) -> EmbeddingError {
        let what = if error.is_timeout() {
            format!("no answer within {:?}", self.timeout)
        } else {
            error.without_url().to_string()
        };
        EmbeddingError::Endpoint(self.redactor.redact(&what))
    }

    /// `what` went wrong, with what the endpoint said (its error message when the body is
    /// OpenAI's error shape), short, on one line, without secrets.
    fn failure(&self, what: &str, body: &[u8]) -> EmbeddingError {
        let text = String::from_utf8_lossy(body);
        let said = serde_json::from_slice::<ErrorAnswer>(body)
            .ok()
            .and_then(|e| e.error.message())
            .unwrap_or_else(|| text.into_owned());
        let said = short_text(&self.redactor.redact(&said), QUOTED_CHARS);
        if said.is_empty() {
            EmbeddingError::Endpoint(what.to_owned())
        } else {
            EmbeddingError::Endpoint(format!("{what}: {said}"))
        }
    }
}

impl Embedder for EndpointEmbedder {
    fn model(&self) -> &str {
        &self.name
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a> {
        Box::pin(self.embed_all(texts))
    }
}

/// `url` as the endpoint: kept when its path ends in `/embeddings`, else with `/embeddings`
/// added to its path.
fn endpoint_url(url: &str) -> Result<url::Url, String> {
    let mut parsed = url::Url::parse(url.trim()).map_err(|e| format!("`{url}`: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("`{url}` is not an http(s) URL"));
    }
    let path = parsed.path().trim_end_matches('/').to_owned();
    if !path.ends_with("/embeddings") {
        parsed.set_path(&format!("{path}/embeddings"));
    }
    Ok(parsed)
}

#[derive(Deserialize)]
struct Answer {
    data: Vec<Datum>,
}

#[derive(Deserialize)]
struct Datum {
    embedding: Vec<f32>,
    #[serde(default)]
    index: Option<usize>,
}

#[derive(Deserialize)]
struct ErrorAnswer {
    error: ErrorBody,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ErrorBody {
    Object { message: String },
    Text(String),
}

impl ErrorBody {
    fn message(self) -> Option<String> {
        match self {
            ErrorBody::Object { message } | ErrorBody::Text(message) => Some(message),
        }
    }
}

/// The answer's vectors in the inputs' order (by `index`, or as listed when no item has one),
/// normalised: one per input, all of one length.
fn order(answer: Answer, inputs: usize) -> Result<Vectors, EmbeddingError> {
    let bad = |why: String| EmbeddingError::Endpoint(format!("an unusable answer: {why}"));
    if answer.data.len() != inputs {
        return Err(bad(format!(
            "{} embeddings for {inputs} inputs",
            answer.data.len()
        )));
    }
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; inputs];
    let indexed = answer.data.iter().all(|d| d.index.is_some());
    for (place, datum) in answer.data.into_iter().enumerate() {
        let index = if indexed {
            datum.index.unwrap_or(place)
        } else {
            place
        };
        let slot = slots
            .get_mut(index)
            .ok_or_else(|| bad(format!("index {index} of {inputs} inputs")))?;
        if slot.is_some() {
            return Err(bad(format!("index {index} given twice")));
        }
        *slot = Some(datum.embedding);
    }
    let vectors: Vectors = slots.into_iter().flatten().map(normalized).collect();
    let dims = vectors.first().map_or(0, Vec::len);
    if dims == 0 || vectors.iter().any(|v| v.len() != dims) {
        return Err(bad("embeddings of differing or zero length".to_owned()));
    }
    Ok(vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_gets_the_embeddings_path_and_an_endpoint_is_kept() {
        let url = |u: &str| endpoint_url(u).unwrap().to_string();
        assert_eq!(
            url("http://127.0.0.1:11434/v1"),
            "http://127.0.0.1:11434/v1/embeddings"
        );
        assert_eq!(
            url("http://127.0.0.1:11434/v1/"),
            "http://127.0.0.1:11434/v1/embeddings"
        );
        assert_eq!(
            url("https://api.example.com/v1/embeddings"),
            "https://api.example.com/v1/embeddings"
        );
        assert_eq!(url("http://h:8080"), "http://h:8080/embeddings");
        assert!(endpoint_url("ftp://h/v1").is_err());
        assert!(endpoint_url("not a url").is_err());
    }

    fn answer(items: &[(Option<usize>, &[f32])]) -> Answer {
        Answer {
            data: items
                .iter()
                .map(|(index, v)| Datum {
                    embedding: v.to_vec(),
                    index: *index,
                })
                .collect(),
        }
    }

    #[test]
    fn vectors_are_put_in_the_inputs_order_and_normalised() {
        let ordered = order(answer(&[(Some(1), &[0., 2.]), (Some(0), &[3., 4.])]), 2).unwrap();
        assert_eq!(ordered, [vec![0.6, 0.8], vec![0., 1.]]);
        let listed = order(answer(&[(None, &[1., 0.]), (None, &[0., 1.])]), 2).unwrap();
        assert_eq!(listed, [vec![1., 0.], vec![0., 1.]]);
    }

    #[test]
    fn a_short_or_inconsistent_answer_is_refused() {
        assert!(order(answer(&[(Some(0), &[1.])]), 2).is_err());
        assert!(order(answer(&[(Some(0), &[1.]), (Some(0), &[1.])]), 2).is_err());
        assert!(order(answer(&[(Some(0), &[1.]), (Some(5), &[1.])]), 2).is_err());
        assert!(order(answer(&[(Some(0), &[1.]), (Some(1), &[1., 2.])]), 2).is_err());
        assert!(order(answer(&[(Some(0), &[])]), 1).is_err());
    }

    #[test]
    fn the_key_is_not_shown() {
        let mut config = EndpointConfig::new("http://user:pw-secret@h/v1", "m");
        config.key = Some("sk-very-secret".into());
        let shown = format!("{config:?}");
        assert!(
            !shown.contains("sk-very-secret") && !shown.contains("pw-secret"),
            "{shown}"
        );
        let embedder = EndpointEmbedder::new(config).unwrap();
        assert_eq!(embedder.model(), "endpoint:m@h/v1/embeddings");
        assert!(!format!("{embedder:?}").contains("secret"));
    }
}
