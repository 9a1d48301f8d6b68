//! `GET /api/openapi.json` lists every route the application serves, and every route it lists
//! is served.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeSet;

use common::start;
use reqwest::StatusCode;
use serde_json::Value;

/// Every route of the application, aliases included.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
    ("GET", "/api/openapi.json"),
    ("GET", "/api/mcp-servers"),
    ("POST", "/api/mcp-servers"),
    ("GET", "/api/mcp-servers/{id}"),
    ("PUT", "/api/mcp-servers/{id}"),
    ("DELETE", "/api/mcp-servers/{id}"),
    ("POST", "/api/mcp-servers/{id}/test"),
    ("POST", "/api/mcp-servers/{id}/connect"),
    ("POST", "/api/mcp/servers/{id}/test"),
    ("GET", "/api/mcp-servers/{id}/health"),
    ("GET", "/api/mcp/servers/{id}/health"),
    ("GET", "/api/mcp-servers/{id}/tools"),
    ("PUT", "/api/mcp-servers/{id}/tools/{tool}"),
    ("GET", "/api/chat/tools"),
    ("POST", "/api/mcp/tools/call"),
    ("POST", "/api/mcp/proxy/{server}/tools/{tool}/call"),
    ("GET", "/api/providers"),
    ("POST", "/api/providers"),
    ("GET", "/api/providers/{id}"),
    ("PUT", "/api/providers/{id}"),
    ("DELETE", "/api/providers/{id}"),
    ("GET", "/api/assistants"),
    ("POST", "/api/assistants"),
    ("GET", "/api/assistants/{id}"),
    ("PUT", "/api/assistants/{id}"),
    ("DELETE", "/api/assistants/{id}"),
    ("GET", "/api/assistants/{id}/mcp-servers"),
    ("PUT", "/api/assistants/{id}/mcp-servers"),
    ("GET", "/api/conversations"),
    ("POST", "/api/conversations"),
    ("GET", "/api/conversations/{id}"),
    ("PATCH", "/api/conversations/{id}"),
    ("DELETE", "/api/conversations/{id}"),
    ("POST", "/api/conversations/{id}/cancel"),
    ("GET", "/api/chat/conversations/{id}"),
    ("GET", "/api/conversations/{id}/messages"),
    ("POST", "/api/conversations/{id}/messages"),
    ("POST", "/api/chat/message"),
    ("POST", "/api/messages/{id}/tool-confirm"),
    ("GET", "/api/events"),
];

fn documented(document: &Value) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                found.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    found
}

#[tokio::test]
async fn the_document_lists_every_route_and_each_is_served() {
    let api = start().await;
    let response = reqwest::get(format!("{}/api/openapi.json", api.base))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let document: Value = response.json().await.unwrap();
    assert!(
        document["openapi"].as_str().unwrap().starts_with("3."),
        "{}",
        document["openapi"]
    );
    let expected: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| ((*m).to_owned(), (*p).to_owned()))
        .collect();
    assert_eq!(documented(&document), expected);

    // Every documented route is served: not 405, and not the router's bare 404 (ours carry
    // a JSON error body).
    for (method, path) in &expected {
        if path == "/api/events" {
            continue; // a stream that does not end; served, as the chat tests show
        }
        let concrete = path
            .replace("{id}", "no-such-id")
            .replace("{tool}", "no-such-tool")
            .replace("{server}", "no-such-server");
        let response = api
            .client
            .request(method.parse().unwrap(), format!("{}{concrete}", api.base))
            .bearer_auth(&api.admin)
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap();
        let status = response.status();
        let body = response.text().await.unwrap();
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert!(
            status != StatusCode::NOT_FOUND || body.contains("\"code\""),
            "{method} {path} is not served: {status} {body:?}"
        );
    }
}

#[tokio::test]
async fn every_operation_documents_its_errors() {
    let document = serde_json::to_value(switchboard_server::openapi()).unwrap();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let responses: Vec<&String> =
                operation["responses"].as_object().unwrap().keys().collect();
            let unauthenticated = ["/healthz", "/readyz", "/metrics", "/api/openapi.json"];
            if unauthenticated.contains(&path.as_str()) {
                continue;
            }
            assert!(
                responses.iter().any(|s| s.as_str() == "401"),
                "{method} {path} does not document 401: {responses:?}"
            );
            assert!(
                operation["tags"].as_array().is_some_and(|t| !t.is_empty()),
                "{method} {path} has no tag"
            );
        }
    }
}
