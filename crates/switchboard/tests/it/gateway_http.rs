//! `/mcp` over Streamable HTTP against a real `serve` child: who may use it, what is refused
//! before the MCP layer (in the API's error shape), sessions kept to their person, the
//! per-person session limit, and isolation between users through an rmcp client.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::gateway::{Gateway, assert_error_shape, initialize, mcp_request, send_as};
use reqwest::Method;
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

#[tokio::test]
async fn refusals_before_the_mcp_layer_are_in_the_api_shape() {
    let gw = Gateway::start(&[]).await;
    let url = gw.url("/mcp");

    let anonymous = initialize(&url, None).await;
    assert_eq!(anonymous.status, 401, "{anonymous:?}");
    assert_error_shape(&anonymous, "UNAUTHORIZED");
    assert_eq!(
        anonymous.headers.get("www-authenticate").unwrap(),
        "Bearer",
        "MCP clients look for the scheme"
    );

    let wrong = initialize(&url, Some("sb_not_a_token")).await;
    assert_eq!(wrong.status, 401, "{wrong:?}");
    assert_error_shape(&wrong, "UNAUTHORIZED");

    // DNS rebinding: a page whose name was rebound to 127.0.0.1 still sends its own Host.
    let rebound = reqwest::Client::new()
        .post(&url)
        .header("host", "attacker.example:80")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&gw.admin)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403);
    let body: serde_json::Value = rebound.json().await.unwrap();
    assert_eq!(body["code"], "ORIGIN_NOT_ALLOWED", "{body}");

    // A foreign page's Origin is refused too.
    let foreign = reqwest::Client::new()
        .post(&url)
        .header("origin", "https://attacker.example")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&gw.admin)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);

    // rmcp's own refusals (no session, wrong Accept) come back in the same shape.
    let no_session = mcp_request(
        Method::POST,
        &url,
        Some(&gw.admin),
        None,
        Some(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})),
    )
    .await;
    assert!(no_session.status.is_client_error(), "{no_session:?}");

    let opened = initialize(&url, Some(&gw.admin)).await;
    assert_eq!(opened.status, 200, "{opened:?}");
    assert!(opened.session().is_some(), "{opened:?}");
    assert_eq!(opened.json()["result"]["serverInfo"]["name"], "switchboard");
}

#[tokio::test]
async fn a_session_is_refused_to_another_person() {
    let gw = Gateway::start(&[]).await;
    let url = gw.url("/mcp");
    let opened = initialize(&url, Some(&gw.admin)).await;
    let session = opened.session().unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});

    for method in [Method::POST, Method::GET, Method::DELETE] {
        let body = (method == Method::POST).then(|| list.clone());
        let stolen = mcp_request(method.clone(), &url, Some(&gw.bob), Some(&session), body).await;
        assert_eq!(stolen.status, 403, "{method}: {stolen:?}");
        assert_error_shape(&stolen, "FORBIDDEN");
    }

    // Still the admin's: Bob's DELETE did not close it.
    let closed = mcp_request(Method::DELETE, &url, Some(&gw.admin), Some(&session), None).await;
    assert!(closed.status.is_success(), "{closed:?}");
    let gone = mcp_request(
        Method::POST,
        &url,
        Some(&gw.admin),
        Some(&session),
        Some(list),
    )
    .await;
    assert_eq!(gone.status, 404, "{gone:?}");
}

#[tokio::test]
async fn the_sessions_one_person_holds_are_bounded() {
    let gw = Gateway::start(&["--max-mcp-sessions", "2"]).await;
    let url = gw.url("/mcp");
    let first = initialize(&url, Some(&gw.admin)).await.session().unwrap();
    initialize(&url, Some(&gw.admin)).await.session().unwrap();
    let third = initialize(&url, Some(&gw.admin)).await;
    assert_eq!(third.status, 429, "{third:?}");
    assert_error_shape(&third, "RATE_LIMITED");
    assert!(third.headers.contains_key("retry-after"));

    // Another person has their own allowance.
    let bobs = initialize(&url, Some(&gw.bob)).await;
    assert_eq!(bobs.status, 200, "{bobs:?}");

    // Closing one makes room.
    let closed = mcp_request(Method::DELETE, &url, Some(&gw.admin), Some(&first), None).await;
    assert!(closed.status.is_success(), "{closed:?}");
    let again = initialize(&url, Some(&gw.admin)).await;
    assert_eq!(again.status, 200, "{again:?}");
}

#[tokio::test]
async fn open_sessions_do_not_hold_the_shutdown() {
    let mut gw = Gateway::start(&[]).await;
    let url = gw.url("/mcp");
    let session = initialize(&url, Some(&gw.admin)).await.session().unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = mcp_request(
        Method::POST,
        &url,
        Some(&gw.admin),
        Some(&session),
        Some(initialized),
    )
    .await;
    assert!(accepted.status.is_success(), "{accepted:?}");
    // The session's event stream stays open until the server ends it.
    let stream = reqwest::Client::new()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", common::gateway::LEGACY_VERSION)
        .bearer_auth(&gw.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert!(
        gw.stop(std::time::Duration::from_secs(20)).await,
        "serve did not stop with a session's stream open"
    );
    drop(stream);
}

#[tokio::test]
async fn an_idle_session_is_closed_and_frees_its_place() {
    let gw = Gateway::start(&[
        "--max-mcp-sessions",
        "1",
        "--gateway-session-idle-timeout",
        "300ms",
    ])
    .await;
    let url = gw.url("/mcp");
    let idle = initialize(&url, Some(&gw.admin)).await.session().unwrap();
    // Refused while the first is open; a refused handshake does not touch the idle one, so
    // once it has been idle long enough it is closed and the next handshake gets its place.
    let deadline = tokio::time::Instant::now() + common::rest::PATIENCE;
    let opened = loop {
        let next = initialize(&url, Some(&gw.admin)).await;
        if next.status == 200 {
            break next;
        }
        assert_eq!(next.status, 429, "{next:?}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "the idle session stayed open"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_ne!(opened.session().unwrap(), idle);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let gone = mcp_request(Method::POST, &url, Some(&gw.admin), Some(&idle), Some(list)).await;
    assert_eq!(gone.status, 404, "{gone:?}");
}

/// An rmcp client with `token` on `url`.
async fn client(url: &str, token: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("handshake")
}

#[tokio::test]
async fn each_person_sees_and_calls_only_their_own_tools() {
    let gw = Gateway::start(&[]).await;
    let url = gw.url("/mcp");
    let admin = client(&url, &gw.admin).await;
    let bob = client(&url, &gw.bob).await;

    let admins: Vec<String> = admin
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    let bobs: Vec<String> = bob
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(admins.contains(&"mcp__demo__echo".to_owned()), "{admins:?}");
    assert!(bobs.contains(&"mcp__bobs__echo".to_owned()), "{bobs:?}");
    assert!(!admins.iter().any(|n| n.contains("bobs")), "{admins:?}");
    assert!(
        !bobs
            .iter()
            .any(|n| n.contains("__demo__") || n.contains("everything")),
        "{bobs:?}"
    );

    let echoed = admin
        .call_tool(
            CallToolRequestParams::new("mcp__demo__echo")
                .with_arguments(json!({"text": "hello"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(echoed.is_error, Some(true), "{echoed:?}");
    assert!(
        format!("{:?}", echoed.content).contains("hello"),
        "{echoed:?}"
    );

    // Bob cannot call the admin's tool by its name.
    let refused = bob
        .call_tool(
            CallToolRequestParams::new("mcp__demo__echo")
                .with_arguments(json!({"text": "x"}).as_object().unwrap().clone()),
        )
        .await;
    match refused {
        Err(_) => {}
        Ok(result) => assert_eq!(result.is_error, Some(true), "{result:?}"),
    }
    admin.cancel().await.unwrap();
    bob.cancel().await.unwrap();
}

async fn tool_names(url: &str, token: &str) -> Vec<String> {
    let client = client(url, token).await;
    let names = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    client.cancel().await.unwrap();
    names
}

#[tokio::test]
async fn a_view_scoped_token_sees_only_its_view() {
    let gw = Gateway::start(&[]).await;
    let base = &gw.served.base;
    let (status, servers) = send_as(base, &gw.admin, Method::GET, "/api/mcp-servers", None).await;
    assert_eq!(status, 200, "{servers}");
    let demo = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "demo")
        .unwrap()["id"]
        .clone();
    let view =
        json!({"name": "work", "servers": [{"serverId": demo, "tools": ["echo"], "prefix": ""}]});
    let (status, created) =
        send_as(base, &gw.admin, Method::POST, "/api/mcp/views", Some(view)).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap();
    let (status, issued) = send_as(
        base,
        &gw.admin,
        Method::POST,
        &format!("/api/mcp/views/{id}/tokens"),
        Some(json!({"label": "claude"})),
    )
    .await;
    assert_eq!(status, 201, "{issued}");
    let scoped = issued["secret"].as_str().unwrap();

    // The token's view at /mcp and at its own path; the person's whole set without a view.
    assert_eq!(tool_names(&gw.url("/mcp"), scoped).await, ["echo"]);
    assert_eq!(tool_names(&gw.url("/mcp/v/work"), scoped).await, ["echo"]);
    assert_eq!(
        tool_names(&gw.url("/mcp/v/work"), &gw.admin).await,
        ["echo"]
    );
    let everything = tool_names(&gw.url("/mcp"), &gw.admin).await;
    assert!(
        everything.len() > 1 && !everything.contains(&"echo".to_owned()),
        "{everything:?}"
    );

    // Nothing else: another view's path, the REST API.
    let other = initialize(&gw.url("/mcp/v/other"), Some(scoped)).await;
    assert_eq!(other.status, 403, "{other:?}");
    assert_error_shape(&other, "FORBIDDEN");
    let (status, refused) = send_as(base, scoped, Method::GET, "/api/mcp-servers", None).await;
    assert_eq!(status, 403, "{refused}");

    // A view is its owner's: unknown to anyone else, and an unknown name is a 404.
    let bobs = initialize(&gw.url("/mcp/v/work"), Some(&gw.bob)).await;
    assert_eq!(bobs.status, 404, "{bobs:?}");
    assert_error_shape(&bobs, "NOT_FOUND");
    let missing = initialize(&gw.url("/mcp/v/nothing"), Some(&gw.admin)).await;
    assert_eq!(missing.status, 404, "{missing:?}");

    // A session opened through the view is not the person's whole set.
    let session = initialize(&gw.url("/mcp/v/work"), Some(&gw.admin))
        .await
        .session()
        .unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let crossed = mcp_request(
        Method::POST,
        &gw.url("/mcp"),
        Some(&gw.admin),
        Some(&session),
        Some(list),
    )
    .await;
    assert_eq!(crossed.status, 403, "{crossed:?}");
}
