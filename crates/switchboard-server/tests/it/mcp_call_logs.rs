//! A session client of `/mcp` (2025-11-25 over Streamable HTTP) gets an upstream's log lines of
//! a call on that call's own response stream, before the call's answer, without holding the
//! session's `GET` stream open.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::Peers;

use crate::common::{self, Api};

/// Sends `body` to `/mcp` as the admin, in `session` when given.
async fn post(api: &Api, session: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = api
        .client
        .post(format!("{}/mcp", api.base))
        .bearer_auth(&api.admin)
        .header("accept", "application/json, text/event-stream")
        .json(&body);
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn an_upstreams_log_line_during_a_call_comes_on_the_calls_own_stream() {
    let api = common::start().await;
    let plain = Peers::locate().plain_stdio();
    let (status, server) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(json!({
                "name": "plain", "transport": "stdio", "command": plain.program,
                "args": plain.args, "env": plain.env.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    let id = server["id"].as_str().unwrap();
    let (status, switched) = api
        .send(
            Method::PUT,
            &format!("/api/mcp-servers/{id}/tools/log"),
            Some(&api.admin),
            Some(json!({"enabled": true, "autoApprove": true})),
        )
        .await;
    assert!(status.is_success(), "{switched}");

    let opened = post(
        &api,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}}}),
    )
    .await;
    assert_eq!(opened.status(), StatusCode::OK);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = post(
        &api,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert!(initialized.status().is_success());

    // No GET stream is open: the line can only come on the call's stream.
    let called = post(
        &api,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "mcp__plain__log", "arguments": {"message": "hello from the call"}}}),
    )
    .await;
    assert_eq!(called.status(), StatusCode::OK);
    let stream = called.text().await.unwrap();
    let line = stream
        .find("notifications/message")
        .unwrap_or_else(|| panic!("no log line on the call's stream: {stream}"));
    assert!(stream.contains("hello from the call"), "{stream}");
    let answer = stream
        .find("\"result\"")
        .unwrap_or_else(|| panic!("no answer: {stream}"));
    assert!(line < answer, "the line comes before the answer: {stream}");
    api.manager.shutdown().await;
}
