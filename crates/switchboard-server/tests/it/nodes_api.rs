//! Servers on MCP nodes through the API: a server's `node` must be configured
//! (400 in the request's language otherwise), round-trips in the body, `GET /api/nodes` lists
//! the configured nodes (their URL for admins only), and a server on a node that cannot be
//! reached is `error` in its health, naming the node, and its calls fail MCP_UNREACHABLE.
//!
//! The node here is a closed port on loopback: the router's real client tries it and finds
//! it down. Calls through a node that answers are the e2e tests' (`crates/switchboard/tests`).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::{Api, assert_error, start, start_with_nodes};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_grpc::NodeConfig;

const NODE: &str = "build-box";

/// A node on a loopback port nothing listens on (bound, then closed).
async fn closed_node() -> NodeConfig {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    NodeConfig {
        name: NODE.into(),
        url: format!("http://127.0.0.1:{port}"),
        token: "node-s3cret".into(),
        ca_pem: None,
        client_identity: None,
        allow_plaintext: false,
    }
}

fn on_node(name: &str, node: &str) -> Value {
    json!({
        "name": name,
        "transport": "streamable_http",
        "url": "https://mcp.example.com/mcp",
        "node": node,
    })
}

/// `body` in `language`.
async fn post_in(api: &Api, path: &str, body: Value, language: &str) -> (StatusCode, Value) {
    let response = api
        .client
        .post(format!("{}{path}", api.base))
        .bearer_auth(&api.admin)
        .header("accept-language", language)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn an_unknown_node_is_refused_in_both_languages() {
    let api = start_with_nodes(vec![closed_node().await]).await;
    let (status, body) = post_in(&api, "/api/mcp-servers", on_node("far", "nope"), "en-US").await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("node `nope` is not configured on this server"),
        "{body}"
    );
    let (status, body) = post_in(&api, "/api/mcp-servers", on_node("far", "nope"), "zh-Hans").await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("此服务器未配置节点 `nope`"),
        "{body}"
    );

    // Without nodes, any node is unknown; an update and a connection test are checked too.
    let local = start().await;
    let (status, body) = local
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&local.admin),
            Some(on_node("far", NODE)),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, _) = local
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&local.admin),
            Some(json!({"name": "far", "url": "https://mcp.example.com/mcp"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, body) = local
        .send(
            Method::PUT,
            "/api/mcp-servers/far",
            Some(&local.admin),
            Some(on_node("far", NODE)),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = local
        .send(
            Method::POST,
            "/api/mcp-servers/test",
            Some(&local.admin),
            Some(on_node("far", NODE)),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
}

#[tokio::test]
async fn a_known_node_round_trips_in_the_body() {
    let api = start_with_nodes(vec![closed_node().await]).await;
    // Members may choose a node too.
    let (status, created) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.member),
            Some(on_node("far", NODE)),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["node"], NODE);
    let (_, read) = api
        .send(Method::GET, "/api/mcp-servers/far", Some(&api.member), None)
        .await;
    assert_eq!(read["node"], NODE, "{read}");
    let (_, listed) = api
        .send(Method::GET, "/api/mcp-servers", Some(&api.member), None)
        .await;
    assert_eq!(listed[0]["node"], NODE, "{listed}");
    let (_, seed) = api
        .send(
            Method::GET,
            "/api/mcp-servers/far?format=seed001",
            Some(&api.member),
            None,
        )
        .await;
    assert_eq!(seed["node"], NODE, "{seed}");

    // Back to this machine: the field is left out.
    let (status, updated) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/far",
            Some(&api.member),
            Some(json!({"name": "far", "url": "https://mcp.example.com/mcp"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert!(updated.get("node").is_none(), "{updated}");
    let (status, _) = api
        .send(
            Method::DELETE,
            "/api/mcp-servers/far",
            Some(&api.member),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
}

/// Waits (bounded) until the router has found the node down, then answers `GET /api/nodes`.
async fn wait_until_down(api: &Api) -> Value {
    let router = &api.router;
    for health in switchboard_mcp::ServerPool::nodes(router.as_ref()) {
        let node = router.node(&health.name).expect("a configured node");
        let mut states = node.state_changes();
        tokio::time::timeout(
            Duration::from_secs(20),
            states.wait_for(|state| *state == switchboard_mcp::NodeState::Down),
        )
        .await
        .expect("the node was never found down")
        .expect("the router is gone");
    }
    let (status, nodes) = api
        .send(Method::GET, "/api/nodes", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{nodes}");
    assert_eq!(nodes[0]["state"], "down", "{nodes}");
    nodes
}

#[tokio::test]
async fn nodes_are_listed_with_their_health_and_the_url_for_admins() {
    let node = closed_node().await;
    let url = node.url.clone();
    let api = start_with_nodes(vec![node]).await;
    let (status, nodes) = api
        .send(Method::GET, "/api/nodes", Some(&api.member), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{nodes}");
    assert_eq!(nodes.as_array().unwrap().len(), 1, "{nodes}");
    assert_eq!(nodes[0]["name"], NODE);
    assert!(
        ["connecting", "down"].contains(&nodes[0]["state"].as_str().unwrap()),
        "{nodes}"
    );
    assert!(nodes[0].get("url").is_none(), "url is for admins: {nodes}");

    let nodes = wait_until_down(&api).await;
    assert_eq!(nodes[0]["url"], url.as_str(), "{nodes}");
    assert!(nodes[0]["lastError"].is_string(), "{nodes}");
    assert!(!nodes.to_string().contains("node-s3cret"), "{nodes}");

    // Documented: the route, its answer, and `node` on server bodies.
    let (_, document) = api.send(Method::GET, "/api/openapi.json", None, None).await;
    assert!(document["paths"]["/api/nodes"]["get"].is_object());
    let schemas = &document["components"]["schemas"];
    assert!(
        schemas["NodeAnswer"]["properties"]["url"].is_object(),
        "{}",
        schemas["NodeAnswer"]
    );
    assert!(
        schemas["ServerSpec"]["properties"]["node"].is_object(),
        "{}",
        schemas["ServerSpec"]
    );

    let (status, _) = api.send(Method::GET, "/api/nodes", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let local = start().await;
    let (_, none) = local
        .send(Method::GET, "/api/nodes", Some(&local.admin), None)
        .await;
    assert_eq!(none, json!([]));
}

#[tokio::test]
async fn a_server_on_a_down_node_is_error_and_its_calls_unreachable() {
    let api = start_with_nodes(vec![closed_node().await]).await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(on_node("far", NODE)),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    wait_until_down(&api).await;

    let (status, health) = api
        .send(
            Method::GET,
            "/api/mcp-servers/far/health",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{health}");
    assert_eq!(health["status"], "error", "{health}");
    let last_error = health["lastError"].as_str().unwrap();
    assert!(last_error.contains(NODE), "{health}");

    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/far/tools/echo/call",
            Some(&api.admin),
            Some(json!({"message": "hi"})),
        )
        .await;
    assert_error(status, &body, status, "MCP_UNREACHABLE");
    assert!(body["message"].as_str().unwrap().contains(NODE), "{body}");

    let (status, body) = api
        .send(
            Method::GET,
            "/api/mcp-servers/far/tools",
            Some(&api.admin),
            None,
        )
        .await;
    assert_error(status, &body, status, "MCP_UNREACHABLE");
    assert!(!body.to_string().contains("node-s3cret"), "{body}");
}
