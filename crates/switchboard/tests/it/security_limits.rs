//! Quotas and limits, against a real `switchboard serve` on loopback:
//! the limits set by flag, slow connections closed by the server, an import stopped at the
//! quota, event streams capped per user and still ended by SIGTERM, bad tokens limited.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::Switchboard;
use common::serve::{Served, serve, terminate};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Far longer than any limit under test: only a hang reaches it.
const PATIENCE: Duration = Duration::from_secs(20);

fn address(served: &Served) -> String {
    served.base.trim_start_matches("http://").to_owned()
}

/// Reads until the server closes the connection.
async fn until_closed(socket: &mut tokio::net::TcpStream) -> Vec<u8> {
    let mut seen = Vec::new();
    tokio::time::timeout(PATIENCE, socket.read_to_end(&mut seen))
        .await
        .expect("the server closed the connection")
        .ok();
    seen
}

#[tokio::test]
async fn silent_and_half_header_connections_are_closed_by_serve() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--header-read-timeout", "300ms"]);
    let mut silent = tokio::net::TcpStream::connect(address(&served))
        .await
        .unwrap();
    let mut half = tokio::net::TcpStream::connect(address(&served))
        .await
        .unwrap();
    half.write_all(
        format!(
            "GET /healthz HTTP/1.1\r\nHost: {}\r\nX-Slow: ",
            address(&served)
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    until_closed(&mut silent).await;
    until_closed(&mut half).await;
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn an_import_of_19998_servers_stops_at_the_quota() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--max-servers", "100"]);
    let token = served.token.clone().unwrap();
    let servers: serde_json::Map<String, Value> = (0..19_998)
        .map(|i| (format!("s{i}"), json!({"url": "http://127.0.0.1:9/mcp"})))
        .collect();
    let text = json!({ "mcpServers": servers }).to_string();
    let client = reqwest::Client::new();
    let report: Value = client
        .post(format!("{}/api/import/mcp-servers", served.base))
        .bearer_auth(&token)
        .json(&json!({ "text": text }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The admin has the demo server already: 99 more fit.
    assert_eq!(report["imported"].as_array().unwrap().len(), 99);
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 19_998 - 99);
    assert!(skipped.iter().all(|s| s["code"] == "QUOTA_EXCEEDED"));
    // And one more by hand is refused.
    let response = client
        .post(format!("{}/api/mcp-servers", served.base))
        .bearer_auth(&token)
        .json(&json!({"name": "more", "transport": "streamable_http", "url": "http://127.0.0.1:9/mcp"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "QUOTA_EXCEEDED", "{body}");
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn event_streams_are_capped_and_still_end_at_sigterm() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--max-event-streams", "1"]);
    let token = served.token.clone().unwrap();
    let client = reqwest::Client::new();
    let open = || {
        client
            .get(format!("{}/api/events", served.base))
            .bearer_auth(&token)
            .send()
    };
    let mut stream = open().await.unwrap();
    assert_eq!(stream.status(), 200);
    let second = open().await.unwrap();
    assert_eq!(second.status(), 429);
    assert!(second.headers().contains_key("retry-after"));
    let body: Value = second.json().await.unwrap();
    assert_eq!(body["code"], "RATE_LIMITED", "{body}");
    // SIGTERM ends the open stream, so serve exits rather than wait for it.
    let status = terminate(&mut served);
    assert!(status.success());
    let rest = tokio::time::timeout(PATIENCE, async {
        while let Ok(Some(_)) = stream.chunk().await {}
    })
    .await;
    assert!(rest.is_ok(), "the stream ended with the server");
}

#[tokio::test]
async fn bad_tokens_are_limited_per_address() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--auth-failure-burst", "5"]);
    let client = reqwest::Client::new();
    let mut statuses = Vec::new();
    for i in 0..300 {
        let response = client
            .get(format!("{}/api/mcp-servers", served.base))
            .bearer_auth(format!("sb_guess_{i}"))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        statuses.push(status);
        if status == 429 {
            assert!(response.headers().contains_key("retry-after"));
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["code"], "RATE_LIMITED", "{body}");
            break;
        }
    }
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
    assert!(statuses.len() <= 7, "{statuses:?}");
    assert!(terminate(&mut served).success());
}
