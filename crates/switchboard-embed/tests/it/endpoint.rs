//! The endpoint client against a real OpenAI-compatible `/v1/embeddings` over HTTP: a small
//! server in the test that answers with the in-process model's vectors (a real model behind a
//! real wire), in the shape Ollama, llama.cpp and OpenAI answer.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use switchboard_core::{Embedder, EmbeddingError};
use switchboard_embed::{EndpointConfig, EndpointEmbedder, LocalModel};
use tokio::sync::oneshot;

use crate::common::{cosine, model, texts};

const KEY: &str = "sk-test-embeddings-key-0123";

#[derive(Clone)]
struct Served {
    model: LocalModel,
    /// Each request's body.
    seen: Arc<Mutex<Vec<Value>>>,
}

/// The server; stops when dropped.
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Value>>>,
    _stop: oneshot::Sender<()>,
}

async fn serve(model: LocalModel) -> Server {
    let served = Served {
        model,
        seen: Arc::default(),
    };
    let seen = Arc::clone(&served.seen);
    let app = axum::Router::new()
        .route("/v1/embeddings", axum::routing::post(embeddings))
        .with_state(served);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                stopped.await.ok();
            })
            .await
            .unwrap();
    });
    Server {
        url,
        seen,
        _stop: stop,
    }
}

/// OpenAI's answer: the vectors last input first, each with its `index`, not normalised (as
/// some servers send them). A wrong key is refused with a long page that quotes it.
async fn embeddings(
    State(served): State<Served>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    if authorization != format!("Bearer {KEY}") {
        let message = format!(
            "Incorrect API key provided: {authorization}. {}",
            "You can find your API key in your account settings. ".repeat(100)
        );
        let error = json!({"error": {"message": message, "type": "invalid_request_error"}});
        return (StatusCode::UNAUTHORIZED, Json(error)).into_response();
    }
    served.seen.lock().unwrap().push(body.clone());
    let inputs: Vec<String> = serde_json::from_value(body["input"].clone()).unwrap();
    let vectors = served.model.embed(&inputs).await.unwrap();
    let data: Vec<Value> = vectors
        .iter()
        .enumerate()
        .rev()
        .map(|(index, vector)| {
            let scaled: Vec<f32> = vector.iter().map(|x| x * 3.0).collect();
            json!({"object": "embedding", "index": index, "embedding": scaled})
        })
        .collect();
    Json(json!({"object": "list", "data": data, "model": body["model"]})).into_response()
}

fn config(url: &str, key: &str) -> EndpointConfig {
    EndpointConfig {
        key: Some(key.to_owned()),
        batch: 3,
        ..EndpointConfig::new(url, "all-minilm")
    }
}

#[tokio::test]
async fn an_endpoint_serving_the_model_answers_its_vectors_in_order() {
    let model = model().await;
    let server = serve(model.clone()).await;
    let endpoint = EndpointEmbedder::new(config(&server.url, KEY)).unwrap();
    assert_eq!(endpoint.url().path(), "/v1/embeddings");
    let inputs = texts(&[
        "create an issue",
        "take a screenshot of the page",
        "创建一个新的 GitHub issue",
        "what time is it in Tokyo",
        "list the files in a directory",
        "send an email",
        "query the orders table",
    ]);
    let got = endpoint.embed(&inputs).await.unwrap();
    let want = model.embed(&inputs).await.unwrap();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(cosine(g, w) > 0.99999);
        let length: f32 = g.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((length - 1.0).abs() < 1e-4, "not normalised: {length}");
    }
    let seen = server.seen.lock().unwrap().clone();
    let sizes: Vec<usize> = seen
        .iter()
        .map(|b| b["input"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [3, 3, 1]);
    assert!(seen.iter().all(|b| b["model"] == "all-minilm"));
    assert_eq!(
        endpoint.model(),
        format!(
            "endpoint:all-minilm@{}/v1/embeddings",
            server
                .url
                .trim_start_matches("http://")
                .trim_end_matches("/v1")
        )
    );
}

#[tokio::test]
async fn an_endpoint_error_is_quoted_short_and_without_the_key() {
    let server = serve(model().await).await;
    let wrong = "sk-wrong-but-still-secret-987";
    let endpoint = EndpointEmbedder::new(config(&server.url, wrong)).unwrap();
    let error = endpoint.embed(&texts(&["hello"])).await.unwrap_err();
    let EmbeddingError::Endpoint(message) = error else {
        panic!("expected an endpoint error, got {error:?}");
    };
    assert!(message.contains("401"), "{message}");
    assert!(message.contains("Incorrect API key"), "{message}");
    assert!(!message.contains(wrong), "{message}");
    assert!(message.chars().count() < 400, "{message}");
}

#[tokio::test]
async fn an_endpoint_nobody_answers_at_is_an_endpoint_error() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://user:pw-secret-1234@{}/v1",
        listener.local_addr().unwrap()
    );
    drop(listener);
    let endpoint = EndpointEmbedder::new(config(&url, KEY)).unwrap();
    let error = endpoint.embed(&texts(&["hello"])).await.unwrap_err();
    let EmbeddingError::Endpoint(message) = error else {
        panic!("expected an endpoint error, got {error:?}");
    };
    assert!(
        !message.contains("pw-secret-1234") && !message.contains(KEY),
        "{message}"
    );
}
