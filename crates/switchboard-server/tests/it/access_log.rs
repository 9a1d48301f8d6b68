//! One log line per request, without the bearer token or the body.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn requests_are_logged_without_tokens_or_bodies() {
    // One thread (current-thread runtime): every task of the test is captured.
    let (captured, _guard) = switchboard_testkit::CapturedLog::start();
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

    let log = captured.text();
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
