//! Seed 002's server contract, through a real `serve` on a socket, using only the paths and
//! field names seed 002 writes: `MCPServerConfig` at `/api/mcp/servers`, a server's tools and
//! connection test, testing an unsaved configuration, and `POST /api/mcp/tools/call`, against
//! real Streamable HTTP MCP servers.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Api, assert_error, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::canned_http::closed_port;
use switchboard_testkit::{CannedHttp, EverythingHttp, Peers, PyGen};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const KEY: &str = "sk-seed-002-secret";

/// A TCP relay in front of a real MCP server that keeps every byte sent to it, so a test can
/// see which headers reached the server.
struct Relay {
    url: String,
    sent: Arc<Mutex<Vec<u8>>>,
}

impl Relay {
    async fn start(upstream_port: u16) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let sent = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&sent);
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let seen = Arc::clone(&seen);
                tokio::spawn(async move {
                    let upstream = TcpStream::connect(("127.0.0.1", upstream_port))
                        .await
                        .unwrap();
                    let (mut from_client, mut to_client) = client.into_split();
                    let (mut from_server, mut to_server) = upstream.into_split();
                    let up = async {
                        let mut buf = [0u8; 8192];
                        loop {
                            let n = from_client.read(&mut buf).await.unwrap_or(0);
                            if n == 0 {
                                break;
                            }
                            seen.lock().unwrap().extend_from_slice(&buf[..n]);
                            if to_server.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                        let _ = to_server.shutdown().await;
                    };
                    let down = async {
                        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
                        let _ = to_client.shutdown().await;
                    };
                    tokio::join!(up, down);
                });
            }
        });
        Relay { url, sent }
    }

    /// Everything sent so far, lowercased, and forgotten.
    fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.sent.lock().unwrap());
        String::from_utf8_lossy(&bytes).to_ascii_lowercase()
    }
}

async fn send(api: &Api, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
    api.send(method, path, Some(&api.admin), body).await
}

async fn listed(api: &Api) -> Vec<Value> {
    let (status, body) = send(api, Method::GET, "/api/mcp/servers", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body.as_array().unwrap().clone()
}

fn tool_names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn an_api_key_config_reaches_the_server_and_the_key_is_never_answered() {
    let api = start().await;
    let peer = Peers::locate().python_http(PyGen::V1).await.unwrap();
    let relay = Relay::start(peer.port()).await;
    let config = json!({
        "id": "search",
        "name": "Search",
        "url": relay.url,
        "transport": "http",
        "authType": "api-key",
        "apiKey": KEY,
        "headers": {"X-Team": "ops"},
        "timeout": 5000,
        "isPreset": true,
        "presetType": "modelscope",
    });
    let (status, saved) = send(&api, Method::POST, "/api/mcp/servers", Some(config)).await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert!(!saved.to_string().contains(KEY), "{saved}");

    let servers = listed(&api).await;
    assert_eq!(servers.len(), 1);
    let server = &servers[0];
    assert!(!server.to_string().contains(KEY), "{server}");
    assert!(server.get("apiKey").is_none(), "{server}");
    assert_eq!(server["id"], "search");
    assert_eq!(server["name"], "Search");
    assert_eq!(server["url"], relay.url.as_str());
    assert_eq!(server["transport"], "http");
    assert_eq!(server["authType"], "api-key");
    assert_eq!(server["timeout"], 5000);
    assert_eq!(server["isPreset"], true);
    assert_eq!(server["presetType"], "modelscope");
    assert_ne!(
        server["headers"]["X-Team"], "ops",
        "header values are masked"
    );
    for time in ["createdAt", "updatedAt"] {
        assert!(
            server[time].as_str().is_some_and(|t| t.ends_with('Z')),
            "{server}"
        );
    }

    let (status, tools) = send(&api, Method::GET, "/api/mcp/servers/search/tools", None).await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    assert!(tool_names(&tools).contains(&"echo".to_owned()), "{tools}");
    let echo = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(echo["inputSchema"]["type"], "object", "{echo}");
    let seen = relay.take();
    assert!(seen.contains(&format!("x-api-key: {KEY}")), "{seen}");
    assert!(seen.contains("x-team: ops"), "{seen}");

    let (status, report) = send(&api, Method::POST, "/api/mcp/servers/search/test", None).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["success"], true);
    assert!(
        tool_names(&report["tools"]).contains(&"echo".to_owned()),
        "{report}"
    );

    // Sent back as read (no apiKey), renamed: the stored key is kept and still sent.
    let mut edited = server.clone();
    edited["name"] = json!("Search (prod)");
    let (status, saved) = send(&api, Method::POST, "/api/mcp/servers", Some(edited)).await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    relay.take();
    let (status, tools) = send(&api, Method::GET, "/api/mcp/servers/search/tools", None).await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    let seen = relay.take();
    assert!(seen.contains(&format!("x-api-key: {KEY}")), "{seen}");
    assert!(seen.contains("x-team: ops"), "{seen}");
    let servers = listed(&api).await;
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0]["name"], "Search (prod)");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn an_unsaved_config_is_tested_without_being_stored() {
    let api = start().await;
    let peer = Peers::locate()
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .unwrap();
    let relay = Relay::start(peer.port()).await;
    let config = json!({
        "name": "Everything",
        "url": relay.url,
        "transport": "HTTP",
        "authType": "bearer",
        "apiKey": KEY,
    });
    let (status, report) = send(&api, Method::POST, "/api/mcp/servers/test", Some(config)).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["success"], true);
    assert!(
        tool_names(&report["tools"]).contains(&"echo".to_owned()),
        "{report}"
    );
    assert!(!report.to_string().contains(KEY), "{report}");
    let seen = relay.take();
    assert!(
        seen.contains(&format!("authorization: bearer {KEY}")),
        "{seen}"
    );
    // The session opened for the test was closed before the answer.
    assert!(seen.contains("delete /mcp"), "{seen}");
    assert!(listed(&api).await.is_empty(), "nothing is stored");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_saved_servers_edits_are_tested_with_its_stored_key() {
    let api = start().await;
    let peer = Peers::locate().python_http(PyGen::V1).await.unwrap();
    let relay = Relay::start(peer.port()).await;
    let config = json!({
        "id": "search",
        "name": "Search",
        "url": relay.url,
        "transport": "http",
        "authType": "bearer",
        "apiKey": KEY,
    });
    let (status, body) = send(&api, Method::POST, "/api/mcp/servers", Some(config)).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // The dialog shows the saved config (no apiKey) and tests it with an edit.
    let mut edited = listed(&api).await[0].clone();
    edited["timeout"] = json!(20_000);
    let (status, report) = send(
        &api,
        Method::POST,
        "/api/mcp/servers/test",
        Some(edited.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    let seen = relay.take();
    assert!(
        seen.contains(&format!("authorization: bearer {KEY}")),
        "{seen}"
    );

    // Not to another destination.
    let other = CannedHttp::start(200, "text/event-stream", "").await;
    edited["url"] = json!(other.url("127.0.0.1", "/mcp"));
    let (status, body) = send(&api, Method::POST, "/api/mcp/servers/test", Some(edited)).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(other.hits(), 0);
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_failing_unsaved_config_answers_its_error_code() {
    let api = start().await;
    let port = closed_port().await;
    let config = json!({
        "name": "Gone",
        "url": format!("http://127.0.0.1:{port}/mcp"),
        "transport": "http",
        "authType": "none",
    });
    let (status, body) = send(&api, Method::POST, "/api/mcp/servers/test", Some(config)).await;
    assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_UNREACHABLE");

    let refusing = CannedHttp::start(401, "text/plain", "no").await;
    let config = json!({
        "name": "Refusing",
        "url": refusing.url("127.0.0.1", "/mcp"),
        "transport": "http",
        "authType": "bearer",
        "apiKey": KEY,
    });
    let (status, body) = send(&api, Method::POST, "/api/mcp/servers/test", Some(config)).await;
    assert_eq!(body["code"], "MCP_AUTH_FAILED", "{body}");
    assert!(
        status.is_server_error() || status.is_client_error(),
        "{status}"
    );
    assert!(!body.to_string().contains(KEY), "{body}");
    assert!(listed(&api).await.is_empty(), "nothing is stored");
}

#[tokio::test]
async fn a_members_unsaved_config_follows_the_destination_rules() {
    let api = start().await;
    let target = CannedHttp::start(200, "text/event-stream", "").await;
    let config = json!({
        "name": "Inside",
        "url": target.url("127.0.0.1", "/mcp"),
        "transport": "http",
        "authType": "none",
    });
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/servers/test",
            Some(&api.member),
            Some(config),
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::FORBIDDEN,
        "DESTINATION_NOT_ALLOWED",
    );
    assert_eq!(target.hits(), 0, "the target was reached");
}

#[tokio::test]
async fn the_timeout_is_in_milliseconds() {
    let api = start().await;
    let peer = Peers::locate().python_http(PyGen::V1).await.unwrap();
    let config = json!({
        "id": "slow",
        "name": "Slow",
        "url": peer.url(),
        "transport": "http",
        "authType": "none",
        "timeout": 300,
    });
    let (status, body) = send(&api, Method::POST, "/api/mcp/servers", Some(config)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let call = json!({"serverId": "slow", "toolName": "slow", "arguments": {"seconds": 30}});
    let started = Instant::now();
    let (status, body) = send(&api, Method::POST, "/api/mcp/tools/call", Some(call)).await;
    assert_error(status, &body, StatusCode::GATEWAY_TIMEOUT, "MCP_TIMEOUT");
    // 300 ms per try (retries included), not 300 seconds, nor the 30 s the tool takes.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    api.manager.shutdown().await;
}

#[tokio::test]
async fn unknown_servers_and_wrong_values_are_refused() {
    let api = start().await;
    for (method, path) in [
        (Method::GET, "/api/mcp/servers/nope/tools"),
        (Method::POST, "/api/mcp/servers/nope/test"),
        (Method::DELETE, "/api/mcp/servers/nope"),
    ] {
        let (status, body) = send(&api, method, path, None).await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    }
    let config = |transport: &str, auth: &str| {
        json!({
            "name": "X",
            "url": "https://example.com/mcp",
            "transport": transport,
            "authType": auth,
        })
    };
    for path in ["/api/mcp/servers", "/api/mcp/servers/test"] {
        let (status, body) = send(&api, Method::POST, path, Some(config("stdio", "none"))).await;
        assert_error(
            status,
            &body,
            StatusCode::BAD_REQUEST,
            "UNSUPPORTED_TRANSPORT",
        );
        let (status, body) = send(&api, Method::POST, path, Some(config("sse", "oauth"))).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    // An api-key server needs its key when it is first saved.
    let (status, body) = send(
        &api,
        Method::POST,
        "/api/mcp/servers",
        Some(config("http", "api-key")),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(listed(&api).await.is_empty());
}

#[tokio::test]
async fn a_server_is_deleted() {
    let api = start().await;
    let config = json!({
        "id": "docs",
        "name": "Docs",
        "url": "https://example.com/mcp",
        "transport": "http",
        "authType": "none",
    });
    let (status, body) = send(&api, Method::POST, "/api/mcp/servers", Some(config)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = send(&api, Method::DELETE, "/api/mcp/servers/docs", None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert!(listed(&api).await.is_empty());
}
