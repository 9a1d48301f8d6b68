//! Secrets that come back from outside, token revocation and
//! expiry ending event streams, and event ids that do not show other users' activity.
//!
//! The "outside" is a small HTTP server on 127.0.0.1 that answers every request with 401 and
//! a body repeating the request line and headers, as some MCP servers and proxies do.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use common::sse::SseReader;

const TOKEN: &str = "bearer-tok-7f3a91c2";
const HEADER_SECRET: &str = "hdr-secret-55e0d1";
const QUERY_SECRET: &str = "query-secret-b81c4e";

type Seen = Arc<Mutex<Vec<String>>>;

/// Starts a server that answers every request with 401 and the request head as the body;
/// returns its base URL and the request heads it received.
async fn echoing_401() -> (String, Seen) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Seen::default();
    let record = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let record = record.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head).replace("\r\n", " | ");
                record.lock().unwrap().push(head.clone());
                let body = format!("you sent: {head}");
                let response = format!(
                    "HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (base, seen)
}

fn assert_clean(what: &str, text: &str) {
    for secret in [TOKEN, HEADER_SECRET, QUERY_SECRET] {
        assert!(!text.contains(secret), "{what} shows {secret}: {text}");
    }
}

async fn echoing_server(api: &common::Api, token: &str) -> (String, Seen) {
    let (upstream, seen) = echoing_401().await;
    let (status, created) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(token),
            Some(json!({
                "name": "Echo",
                "transport": "streamable_http",
                "url": format!("{upstream}/mcp?api_key={QUERY_SECRET}&region=eu"),
                "headers": {"X-Secret": HEADER_SECRET},
                "auth": {"type": "bearer", "token": TOKEN},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_clean("the created server", &created.to_string());
    (created["id"].as_str().unwrap().to_owned(), seen)
}

#[tokio::test]
async fn secrets_echoed_by_a_server_appear_in_no_error_event_or_read() {
    let api = common::start().await;
    let token = api.admin.clone();
    let (id, _) = echoing_server(&api, &token).await;

    let events = api
        .client
        .get(format!("{}/api/events", api.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), StatusCode::OK);
    let mut events = SseReader::new(events);

    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/test"),
            Some(&token),
            None,
        )
        .await;
    assert!(
        status.is_client_error() || status.is_server_error(),
        "{body}"
    );
    assert_eq!(body["code"], "MCP_AUTH_FAILED", "{body}");
    assert_clean("the test-connection error", &body.to_string());

    let (status, body) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}/tools"),
            Some(&token),
            None,
        )
        .await;
    assert!(
        status.is_client_error() || status.is_server_error(),
        "{body}"
    );
    assert_clean("the tool listing error", &body.to_string());

    let failed = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let (event, _) = events.until("server.status").await;
            assert_clean("a server.status event", &event.data.to_string());
            if event.data.to_string().contains("error") {
                return event;
            }
        }
    })
    .await
    .unwrap();
    assert!(failed.data.to_string().contains("401"), "{:?}", failed.data);

    let (_, health) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}/health"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(health["status"], "error", "{health}");
    assert_clean("the health report", &health.to_string());

    let (status, read) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_clean("the server as read", &read.to_string());
    let url = read["url"].as_str().unwrap();
    assert!(url.contains("api_key=") && url.contains("/mcp"), "{read}");
}

#[tokio::test]
async fn a_masked_url_sent_back_keeps_the_stored_credentials() {
    let api = common::start().await;
    let token = api.admin.clone();
    let (id, seen) = echoing_server(&api, &token).await;
    let (_, mut read) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}"),
            Some(&token),
            None,
        )
        .await;
    read["name"] = Value::String("Echo renamed".into());
    let (status, updated) = api
        .send(
            Method::PUT,
            &format!("/api/mcp-servers/{id}"),
            Some(&token),
            Some(read),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_clean("the updated server", &updated.to_string());
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/test"),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(body["code"], "MCP_AUTH_FAILED", "{status} {body}");
    let seen = seen.lock().unwrap().join("\n");
    for secret in [TOKEN, HEADER_SECRET, QUERY_SECRET] {
        assert!(
            seen.contains(secret),
            "{secret} was not sent after the update: {seen}"
        );
    }
}

/// The router on a socket with a store this test can also use directly (as another process
/// on the same database would), and streams re-checking their token every 50 ms.
struct Direct {
    base: String,
    store: Arc<dyn switchboard_store::Store>,
    admin: String,
    member: String,
    admin_id: switchboard_core::OwnerId,
    _dir: tempfile::TempDir,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

async fn start_direct() -> Direct {
    use switchboard_store::{Role, StoreConfig};
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let member = store.create_user("member", Role::Member).await.unwrap();
    let admin_token = store.issue_token(&admin.id, "t").await.unwrap().secret;
    let member_token = store.issue_token(&member.id, "t").await.unwrap().secret;
    let config = switchboard_server::ServerConfig {
        stream_auth: switchboard_server::stream_auth::StreamAuthConfig {
            recheck: Duration::from_millis(50),
        },
        ..switchboard_server::ServerConfig::default()
    };
    let application = switchboard_app::App::on_store(
        Arc::clone(&store),
        switchboard_app::AppConfig {
            manager: common::manager_config(),
            // The echoing servers members save are on loopback.
            rules: switchboard_app::Rules {
                destinations: switchboard_core::DestinationRules::parse(["127.0.0.0/8"]).unwrap(),
                ..Default::default()
            },
            ..switchboard_app::AppConfig::default()
        },
    )
    .unwrap();
    let state = switchboard_server::AppState::new(
        Arc::new(application),
        config,
        switchboard_server::AuthMode::Tokens,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        axum::serve(listener, switchboard_server::app(state))
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    Direct {
        base,
        store,
        admin: admin_token,
        member: member_token,
        admin_id: admin.id,
        _dir: dir,
        _shutdown: shutdown,
    }
}

async fn open_events(base: &str, token: &str, last: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .get(format!("{base}/api/events"))
        .bearer_auth(token);
    if let Some(last) = last {
        request = request.header("Last-Event-ID", last);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response
}

/// Whether the stream ends (the server closes it) within `limit`.
async fn ends_within(mut response: reqwest::Response, limit: Duration) -> bool {
    tokio::time::timeout(limit, async {
        while let Ok(Some(_)) = response.chunk().await {}
    })
    .await
    .is_ok()
}

#[tokio::test]
async fn revoking_a_token_ends_the_event_streams_opened_with_it() {
    let api = start_direct().await;
    let second = api
        .store
        .issue_token(&api.admin_id, "laptop")
        .await
        .unwrap();
    let revoked = open_events(&api.base, &second.secret, None).await;
    let kept = open_events(&api.base, &api.admin, None).await;

    api.store
        .revoke_token(&api.admin_id, &second.token.id)
        .await
        .unwrap();
    assert!(
        ends_within(revoked, Duration::from_secs(20)).await,
        "the stream outlived its revoked token"
    );
    // The same user's stream on another token goes on.
    assert!(!ends_within(kept, Duration::from_millis(300)).await);

    let status = reqwest::Client::new()
        .get(format!("{}/api/mcp-servers", api.base))
        .bearer_auth(&second.secret)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn revoking_a_token_ends_the_mcp_streams_opened_with_it() {
    let api = start_direct().await;
    let url = format!("{}/mcp", api.base);
    let post = |session: Option<&str>, body: serde_json::Value| {
        let mut request = reqwest::Client::new()
            .post(&url)
            .bearer_auth(&api.member)
            .header("accept", "application/json, text/event-stream")
            .json(&body);
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request.send()
    };
    let opened = post(
        None,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}}}),
    )
    .await
    .unwrap();
    assert_eq!(opened.status(), StatusCode::OK);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = post(
        Some(&session),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await
    .unwrap();
    assert!(initialized.status().is_success());
    let stream = reqwest::Client::new()
        .get(&url)
        .bearer_auth(&api.member)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);

    let member = api.store.user_by_token(&api.member).await.unwrap().unwrap();
    let token = api.store.tokens(&member.id).await.unwrap().remove(0);
    api.store.revoke_token(&member.id, &token.id).await.unwrap();
    assert!(
        ends_within(stream, Duration::from_secs(20)).await,
        "the MCP stream outlived its revoked token"
    );
}

#[tokio::test]
async fn a_json_rpc_batch_to_mcp_gets_a_json_rpc_error() {
    let api = start_direct().await;
    let batch = serde_json::json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]);
    let answer = reqwest::Client::new()
        .post(format!("{}/mcp", api.base))
        .bearer_auth(&api.member)
        .header("accept", "application/json, text/event-stream")
        .json(&batch)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert_eq!(body["id"], Value::Null, "{body}");
}

#[tokio::test]
async fn removing_a_user_ends_their_event_streams() {
    let api = start_direct().await;
    let member = api.store.user_by_token(&api.member).await.unwrap().unwrap();
    let stream = open_events(&api.base, &api.member, None).await;
    api.store.delete_user(&member.id).await.unwrap();
    assert!(ends_within(stream, Duration::from_secs(20)).await);
}

/// Lists the tools of an echoing server `id`, which fails: two `server.status` events
/// (connecting, error) for the caller.
async fn status_events_for(api: &Direct, token: &str, id: &str) {
    let response = reqwest::Client::new()
        .get(format!("{}/api/mcp-servers/{id}/tools", api.base))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert!(!response.status().is_success());
}

async fn echo_for(api: &Direct, token: &str) -> String {
    let (upstream, _) = echoing_401().await;
    let created: Value = reqwest::Client::new()
        .post(format!("{}/api/mcp-servers", api.base))
        .bearer_auth(token)
        .json(&json!({"name": "Echo", "url": format!("{upstream}/mcp")}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    created["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn event_ids_are_counted_per_user() {
    let api = start_direct().await;
    let mine = echo_for(&api, &api.admin).await;
    let theirs = echo_for(&api, &api.member).await;
    let mut events = SseReader::new(open_events(&api.base, &api.admin, None).await);

    status_events_for(&api, &api.admin, &mine).await;
    // Another user's activity in between.
    for _ in 0..3 {
        status_events_for(&api, &api.member, &theirs).await;
    }
    status_events_for(&api, &api.admin, &mine).await;

    let mut ids = Vec::new();
    while ids.len() < 4 {
        let (event, _) =
            tokio::time::timeout(Duration::from_secs(20), events.until("server.status"))
                .await
                .unwrap();
        ids.push(event.id.unwrap().parse::<u64>().unwrap());
    }
    for pair in ids.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "ids show a gap: {ids:?}");
    }

    // Resuming after the first id gives this user's next events, in order.
    let mut resumed =
        SseReader::new(open_events(&api.base, &api.admin, Some(&ids[0].to_string())).await);
    let (next, _) = tokio::time::timeout(Duration::from_secs(20), resumed.until("server.status"))
        .await
        .unwrap();
    assert_eq!(next.id.unwrap(), ids[1].to_string());
}

#[tokio::test]
async fn an_expired_token_is_refused_and_its_streams_end() {
    let api = start_direct().await;
    let now = switchboard_store::Timestamp::now().0;
    let past = switchboard_store::Timestamp(now - 1);
    let expired = api
        .store
        .issue_token_until(&api.admin_id, "old", Some(past))
        .await
        .unwrap();
    let (status, body) = {
        let response = reqwest::Client::new()
            .get(format!("{}/api/events", api.base))
            .bearer_auth(&expired.secret)
            .send()
            .await
            .unwrap();
        (response.status(), response.text().await.unwrap())
    };
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");

    // A token that expires while its stream is open ends the stream.
    let soon = switchboard_store::Timestamp(now + 1_000);
    let short = api
        .store
        .issue_token_until(&api.admin_id, "short", Some(soon))
        .await
        .unwrap();
    let stream = open_events(&api.base, &short.secret, None).await;
    assert!(ends_within(stream, Duration::from_secs(20)).await);
}

#[tokio::test]
async fn a_providers_url_credentials_are_masked_and_kept() {
    let api = common::start().await;
    let token = api.admin.clone();
    let (status, created) = api
        .send(
            Method::POST,
            "/api/providers",
            Some(&token),
            Some(json!({
                "name": "Gateway",
                "kind": "openai",
                "baseUrl": format!("https://me:{HEADER_SECRET}@gw.example/v1?key={QUERY_SECRET}"),
                "apiKey": TOKEN,
                "defaultModel": "m",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_clean("the created provider", &created.to_string());
    let id = created["id"].as_str().unwrap();
    let (_, mut read) = api
        .send(
            Method::GET,
            &format!("/api/providers/{id}"),
            Some(&token),
            None,
        )
        .await;
    assert_clean("the provider as read", &read.to_string());
    assert!(
        read["baseUrl"]
            .as_str()
            .unwrap()
            .contains("gw.example/v1?key="),
        "{read}"
    );
    // The masked form sent back is accepted and keeps the stored credentials.
    let object = read.as_object_mut().unwrap();
    object
        .retain(|k, _| ["name", "kind", "baseUrl", "apiKey", "defaultModel"].contains(&k.as_str()));
    object.insert("name".into(), Value::String("Gateway 2".into()));
    let (status, updated) = api
        .send(
            Method::PUT,
            &format!("/api/providers/{id}"),
            Some(&token),
            Some(read),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["baseUrl"], created["baseUrl"], "{updated}");
}
