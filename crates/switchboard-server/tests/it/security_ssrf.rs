//! Server-side request forgery, against the real router on a socket with
//! the server's own connection policy: a member's MCP servers and providers reach public
//! addresses only (checked on the address actually connected to), unless an admin allowed
//! the destination; admins are not limited; upstream bodies never come back whole.
//!
//! The "inside" targets are small HTTP servers on 127.0.0.1 that count the connections they
//! accept: a refusal must leave them untouched.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::assert_error;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_app::{App, AppConfig, Rules};
use switchboard_core::{DestinationRules, OwnerId, ServerSpec};
use switchboard_mcp::ConnectionManager;
use switchboard_server::{AppState, AuthMode, ServerConfig, app};
use switchboard_store::{Role, Store, StoreConfig};
use switchboard_testkit::CannedHttp;
use switchboard_testkit::canned_http::closed_port;

/// The text planted in upstream bodies; it must never appear in an answer.
const MARKER: &str = "INTERNAL-ONLY-7f3a";

struct Api {
    base: String,
    admin: String,
    member: String,
    member_id: OwnerId,
    store: Arc<dyn Store>,
    client: reqwest::Client,
    manager: Arc<ConnectionManager>,
    _shutdown: tokio::sync::oneshot::Sender<()>,
    _dir: tempfile::TempDir,
}

/// The router on the application as `serve` builds it, in token mode.
async fn start(allow: &[&str]) -> Api {
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let admin = store.create_user("admin", Role::Admin).await.unwrap();
    let member = store.create_user("member", Role::Member).await.unwrap();
    let admin_token = store.issue_token(&admin.id, "t").await.unwrap().secret;
    let member_token = store.issue_token(&member.id, "t").await.unwrap().secret;
    let application = Arc::new(
        App::on_store(
            Arc::clone(&store),
            AppConfig {
                manager: common::manager_config(),
                rules: Rules {
                    destinations: DestinationRules::parse(allow).unwrap(),
                    ..Rules::default()
                },
                ..AppConfig::default()
            },
        )
        .unwrap(),
    );
    let manager = Arc::clone(&application.manager);
    let state = AppState::new(application, ServerConfig::default(), AuthMode::Tokens);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        axum::serve(listener, app(state))
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    Api {
        base,
        admin: admin_token,
        member: member_token,
        member_id: member.id,
        store,
        client: reqwest::Client::new(),
        manager,
        _shutdown: shutdown,
        _dir: dir,
    }
}

impl Api {
    async fn send(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Creates a server through the API; returns the answer.
    async fn create(&self, token: &str, body: Value) -> (StatusCode, Value) {
        self.send(Method::POST, "/api/mcp-servers", token, Some(body))
            .await
    }

    /// Stores a server for the member directly, as one saved before the guard (or before an
    /// admin removed an allow-list entry) would be.
    async fn stored_for_member(&self, name: &str, transport: &str, url: &str) {
        let spec: ServerSpec = serde_json::from_value(
            json!({"id": name, "name": name, "transport": transport, "url": url}),
        )
        .unwrap();
        self.store
            .create_server(&self.member_id, &spec)
            .await
            .unwrap();
    }

    async fn test_server(&self, token: &str, id: &str) -> (StatusCode, Value) {
        self.send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/test"),
            token,
            None,
        )
        .await
    }

    async fn tools(&self, token: &str, id: &str) -> (StatusCode, Value) {
        self.send(
            Method::GET,
            &format!("/api/mcp-servers/{id}/tools"),
            token,
            None,
        )
        .await
    }
}

fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_default()
}

fn assert_refused(status: StatusCode, body: &Value, host: &str) {
    assert_error(
        status,
        body,
        StatusCode::FORBIDDEN,
        "DESTINATION_NOT_ALLOWED",
    );
    assert!(message(body).contains(host), "{body}");
}

#[tokio::test]
async fn a_members_loopback_server_is_refused_without_being_reached() {
    let api = start(&[]).await;
    let target = CannedHttp::start(401, "text/plain", "go away").await;
    api.stored_for_member(
        "inside",
        "streamable_http",
        &target.url("127.0.0.1", "/mcp"),
    )
    .await;

    let (status, body) = api.test_server(&api.member, "inside").await;
    assert_refused(status, &body, "127.0.0.1");
    let (status, body) = api.tools(&api.member, "inside").await;
    assert_refused(status, &body, "127.0.0.1");
    assert_eq!(target.hits(), 0, "the target was reached");

    // Saving such a URL is refused at once.
    let (status, body) = api
        .create(
            &api.member,
            json!({"name": "again", "url": target.url("127.0.0.1", "/mcp")}),
        )
        .await;
    assert_refused(status, &body, "127.0.0.1");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_name_that_resolves_to_loopback_is_refused_at_connect_time() {
    let api = start(&[]).await;
    let target = CannedHttp::start(200, "text/event-stream", "").await;
    // A name passes when saved: what it resolves to is checked when connecting.
    for (id, transport, path) in [
        ("by-name", "streamable_http", "/mcp"),
        ("by-name-sse", "sse", "/sse"),
    ] {
        let (status, body) = api
            .create(
                &api.member,
                json!({"name": id, "transport": transport, "url": target.url("localhost", path)}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let (status, body) = api.test_server(&api.member, id).await;
        assert_refused(status, &body, "localhost");
        let (status, body) = api.tools(&api.member, id).await;
        assert_refused(status, &body, "localhost");
    }
    assert_eq!(target.hits(), 0, "the target was reached");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn ipv4_mapped_and_other_special_literals_are_refused() {
    let api = start(&[]).await;
    let target = CannedHttp::start(401, "text/plain", "go away").await;
    for (id, host) in [
        ("mapped", "[::ffff:127.0.0.1]"),
        ("mapped-hex", "[::ffff:7f00:1]"),
        ("nat64", "[64:ff9b::7f00:1]"),
        ("loopback6", "[::1]"),
        ("decimal", "2130706433"),
        ("zero", "0.0.0.0"),
    ] {
        let url = target.url(host, "/mcp");
        let (status, body) = api
            .create(&api.member, json!({"name": id, "url": url}))
            .await;
        assert_error(
            status,
            &body,
            StatusCode::FORBIDDEN,
            "DESTINATION_NOT_ALLOWED",
        );
        api.stored_for_member(id, "streamable_http", &url).await;
        let (status, body) = api.test_server(&api.member, id).await;
        assert_error(
            status,
            &body,
            StatusCode::FORBIDDEN,
            "DESTINATION_NOT_ALLOWED",
        );
    }
    assert_eq!(target.hits(), 0, "the target was reached");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_closed_port_and_an_open_one_get_the_same_refusal() {
    let api = start(&[]).await;
    let open = CannedHttp::start(200, "text/html", "<html>admin panel</html>").await;
    let closed = closed_port().await;
    api.stored_for_member("probe", "streamable_http", &open.url("127.0.0.1", "/"))
        .await;
    let (open_status, open_body) = api.test_server(&api.member, "probe").await;
    let url = format!("http://127.0.0.1:{closed}/");
    api.store
        .delete_server(&api.member_id, &switchboard_core::ServerId("probe".into()))
        .await
        .unwrap();
    api.stored_for_member("probe", "streamable_http", &url)
        .await;
    let (closed_status, closed_body) = api.test_server(&api.member, "probe").await;

    assert_eq!(open_status, StatusCode::FORBIDDEN, "{open_body}");
    assert_eq!(open_status, closed_status);
    assert_eq!(open_body["code"], closed_body["code"]);
    assert_eq!(message(&open_body), message(&closed_body));
    assert_eq!(open.hits(), 0);
    api.manager.shutdown().await;
}

#[tokio::test]
async fn allow_listed_networks_and_hosts_are_reached() {
    let api = start(&["127.0.0.0/8", "localhost"]).await;
    let target = CannedHttp::start(401, "text/plain", "who are you").await;
    for (id, host) in [("by-cidr", "127.0.0.1"), ("by-host", "localhost")] {
        let (status, body) = api
            .create(
                &api.member,
                json!({"name": id, "url": target.url(host, "/mcp")}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let (status, body) = api.test_server(&api.member, id).await;
        assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_AUTH_FAILED");
    }
    assert!(target.hits() >= 2, "the target was not reached");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn an_admins_server_is_not_guarded() {
    let api = start(&[]).await;
    let target = CannedHttp::start(401, "text/plain", "who are you").await;
    let (status, body) = api
        .create(
            &api.admin,
            json!({"name": "mine", "url": target.url("127.0.0.1", "/mcp")}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = api.test_server(&api.admin, "mine").await;
    assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_AUTH_FAILED");
    assert!(target.hits() >= 1);
    api.manager.shutdown().await;
}

/// What an answer must look like when the upstream said something: an error, short, no body
/// quoted. Returns what is wrong with it.
fn unquoted(status: StatusCode, body: &Value) -> Option<String> {
    let text = body.to_string();
    if !(status.is_client_error() || status.is_server_error()) {
        Some(format!("not an error: {status} {text}"))
    } else if text.contains(MARKER) {
        Some(format!("the upstream body came back: {text:.300}"))
    } else if text.len() >= 1200 {
        Some(format!("{} bytes: {text:.300}", text.len()))
    } else {
        None
    }
}

#[tokio::test]
async fn upstream_bodies_are_not_echoed() {
    // Allowed, so the requests do reach the targets: this is about what comes back.
    let api = start(&["127.0.0.0/8"]).await;
    let big = format!("{MARKER} {}", "x".repeat(20 * 1024));
    let cases = [
        (
            "auth-text",
            "streamable_http",
            401,
            "text/plain",
            big.clone(),
        ),
        (
            "auth-json",
            "streamable_http",
            401,
            "application/json",
            json!({"detail": big}).to_string(),
        ),
        (
            "forbidden",
            "streamable_http",
            403,
            "text/html",
            big.clone(),
        ),
        (
            "not-json-rpc",
            "streamable_http",
            200,
            "application/json",
            json!({"hello": MARKER, "pad": "y".repeat(4000)}).to_string(),
        ),
        (
            "html-200",
            "streamable_http",
            200,
            "text/html",
            format!("<html>{MARKER}</html>"),
        ),
        (
            "server-error",
            "streamable_http",
            500,
            "application/json",
            json!({"error": MARKER}).to_string(),
        ),
        (
            "sse-404",
            "sse",
            404,
            "text/plain",
            format!("{MARKER} no such page"),
        ),
        ("sse-500", "sse", 500, "text/plain", big.clone()),
    ];
    let mut targets = Vec::new();
    let mut wrong = Vec::new();
    for (id, transport, status, content_type, body) in cases {
        let target = CannedHttp::start(status, content_type, body).await;
        let url = target.url(
            "127.0.0.1",
            if transport == "sse" { "/sse" } else { "/mcp" },
        );
        for token in [&api.member, &api.admin] {
            let (created, answer) = api
                .create(
                    token,
                    json!({"name": id, "transport": transport, "url": url}),
                )
                .await;
            assert_eq!(created, StatusCode::CREATED, "{answer}");
            let (status, answer) = api.test_server(token, id).await;
            wrong.extend(unquoted(status, &answer).map(|w| format!("{id} test: {w}")));
            let (status, answer) = api.tools(token, id).await;
            wrong.extend(unquoted(status, &answer).map(|w| format!("{id} tools: {w}")));
        }
        assert!(target.hits() > 0, "{id} was not reached");
        targets.push(target);
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Nor in the server list's last error.
    let (_, listed) = api
        .send(Method::GET, "/api/mcp-servers", &api.member, None)
        .await;
    assert!(!listed.to_string().contains(MARKER), "{listed}");
    api.manager.shutdown().await;
}

/// Sends one chat message as `token` and returns the whole answer as text.
async fn chat(api: &Api, token: &str) -> (StatusCode, String) {
    let response = api
        .client
        .post(format!("{}/api/chat/message", api.base))
        .bearer_auth(token)
        .json(&json!({"message": "Hello"}))
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.text().await.unwrap())
}

#[tokio::test]
async fn a_members_provider_cannot_reach_the_hosts_network() {
    let api = start(&[]).await;
    let target = CannedHttp::start(200, "application/json", "{}").await;
    // An IP literal is refused when saved.
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers",
            &api.member,
            Some(
                json!({"name": "p", "kind": "openai", "baseUrl": target.url("127.0.0.1", "/v1"),
                        "apiKey": "k", "defaultModel": "m"}),
            ),
        )
        .await;
    assert_refused(status, &body, "127.0.0.1");
    // A name is saved, and refused when the run connects.
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers",
            &api.member,
            Some(
                json!({"name": "p", "kind": "openai", "baseUrl": target.url("localhost", "/v1"),
                        "apiKey": "k", "defaultModel": "m"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, answer) = chat(&api, &api.member).await;
    assert!(
        answer.contains("destination not allowed") || answer.contains("DESTINATION_NOT_ALLOWED"),
        "{answer}"
    );
    assert_eq!(target.hits(), 0, "the target was reached");

    // The admin's provider is not limited.
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers",
            &api.admin,
            Some(
                json!({"name": "p", "kind": "openai", "baseUrl": target.url("127.0.0.1", "/v1"),
                        "apiKey": "k", "defaultModel": "m"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let _ = chat(&api, &api.admin).await;
    assert!(target.hits() > 0, "the admin's provider was not reached");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_providers_error_body_is_not_echoed() {
    let api = start(&["127.0.0.0/8"]).await;
    let page = format!("<html>{MARKER} {}</html>", "z".repeat(20 * 1024));
    let target = CannedHttp::start(500, "text/html", page).await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers",
            &api.member,
            Some(
                json!({"name": "p", "kind": "openai", "baseUrl": target.url("127.0.0.1", "/v1"),
                        "apiKey": "k", "defaultModel": "m"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, answer) = chat(&api, &api.member).await;
    assert!(target.hits() > 0, "the provider was not reached: {answer}");
    assert!(!answer.contains(MARKER), "{answer}");
    assert!(answer.len() < 4000, "{} bytes: {answer}", answer.len());
    api.manager.shutdown().await;
}

#[tokio::test]
async fn an_import_skips_a_members_private_address() {
    let api = start(&[]).await;
    let text = json!({"mcpServers": {
        "inside": {"url": "http://127.0.0.1:1/mcp"},
        "outside": {"url": "https://mcp.example.com/mcp"},
    }})
    .to_string();
    let report: Value = api
        .client
        .post(format!("{}/api/import/mcp-servers", api.base))
        .bearer_auth(&api.member)
        .json(&json!({"text": text}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(report["imported"][0]["name"], "outside", "{report}");
    assert_eq!(report["skipped"][0]["name"], "inside", "{report}");
    assert_eq!(
        report["skipped"][0]["code"], "DESTINATION_NOT_ALLOWED",
        "{report}"
    );
    api.manager.shutdown().await;
}
