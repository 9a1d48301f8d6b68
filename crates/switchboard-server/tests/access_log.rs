//! One log line per request, without the bearer token or the body.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use reqwest::Method;
use serde_json::json;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn requests_are_logged_without_tokens_or_bodies() {
    let captured = Captured::default();
    let sink = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    // One thread (current-thread runtime): the server's tasks see this default too.
    let _guard = tracing::subscriber::set_default(subscriber);
    let api = common::start().await;
    let (status, _) = api
        .send(
            Method::POST,
            "/api/providers",
            Some(&api.admin),
            Some(json!({"name": "p", "kind": "openai", "apiKey": "sk-body-secret", "defaultModel": "m"})),
        )
        .await;
    assert_eq!(status, 201);
    let (status, _) = api
        .send(Method::GET, "/api/providers/nope", Some(&api.admin), None)
        .await;
    assert_eq!(status, 404);

    let log = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
    assert!(
        log.lines()
            .any(|l| l.contains("POST") && l.contains("/api/providers") && l.contains("201")),
        "{log}"
    );
    assert!(
        log.lines()
            .any(|l| l.contains("INFO") && l.contains("/api/providers/nope") && l.contains("404")),
        "{log}"
    );
    assert!(
        !log.contains(&api.admin),
        "the token reached the log: {log}"
    );
    assert!(
        !log.contains("sk-body-secret"),
        "the body reached the log: {log}"
    );
}
