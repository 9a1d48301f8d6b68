//! The scripted model's list of models, in the three shapes clients ask for: OpenAI's
//! `GET /v1/models`, Anthropic's (the same path, with `anthropic-version`), and Ollama's
//! `GET /api/tags`. A key required with [`ScriptedLlm::require_api_key`](super::ScriptedLlm::require_api_key)
//! is checked here (as `Authorization: Bearer` or `x-api-key`); a wrong or missing one gets
//! OpenAI's 401. Listings consume no turn and are recorded apart from chat requests.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::Shared;

/// One listing request the server received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedListing {
    /// `/v1/models` or `/api/tags`.
    pub path: String,
    /// Its headers, names lowercase, in the order received.
    pub headers: Vec<(String, String)>,
}

impl RecordedListing {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub(super) async fn openai_models(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let Some(models) = checked(&shared, &uri, &headers) else {
        return wrong_key();
    };
    let data: Vec<Value> = models
        .iter()
        .map(|id| {
            if headers.contains_key("anthropic-version") {
                json!({"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"})
            } else {
                json!({"id": id, "object": "model", "created": 0, "owned_by": "scripted"})
            }
        })
        .collect();
    axum::Json(json!({"object": "list", "data": data})).into_response()
}

pub(super) async fn ollama_tags(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let Some(models) = checked(&shared, &uri, &headers) else {
        return wrong_key();
    };
    let listed: Vec<Value> = models
        .iter()
        .map(|name| json!({"name": name, "model": name, "size": 1, "digest": "0"}))
        .collect();
    axum::Json(json!({"models": listed})).into_response()
}

/// OpenAI's answer to a missing or wrong key.
fn wrong_key() -> Response {
    let body = json!({"error": {
        "message": "Incorrect API key provided.",
        "type": "invalid_request_error",
        "param": null,
        "code": "invalid_api_key",
    }});
    (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response()
}

/// Records the listing and answers its models; `None` for a missing or wrong key.
fn checked(shared: &Shared, uri: &Uri, headers: &HeaderMap) -> Option<Vec<String>> {
    Shared::lock(&shared.listings).push(RecordedListing {
        path: uri.path().to_owned(),
        headers: headers
            .iter()
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.as_str().to_owned(), value)
            })
            .collect(),
    });
    if let Some(key) = Shared::lock(&shared.api_key).clone() {
        let bearer = format!("Bearer {key}");
        let given = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        if given("authorization") != Some(bearer.as_str()) && given("x-api-key") != Some(&key) {
            return None;
        }
    }
    Some(Shared::lock(&shared.models).clone())
}
