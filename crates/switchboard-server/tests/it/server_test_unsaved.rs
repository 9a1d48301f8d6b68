//! `POST /api/mcp-servers/test`: the settings dialog tests a house-shaped server that is not
//! saved (any transport), with seed 002's unsaved-test rules: nothing stored, the member rules
//! of a save, a saved server's masked secrets only for its own URL, the error it met.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeSet;

use common::{Api, assert_error, everything, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

async fn listed(api: &Api) -> Vec<Value> {
    let (status, body) = api
        .send(Method::GET, "/api/mcp-servers", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body.as_array().unwrap().clone()
}

async fn test_unsaved(api: &Api, token: &str, body: Value) -> (StatusCode, Value) {
    api.send(
        Method::POST,
        "/api/mcp-servers/test",
        Some(token),
        Some(body),
    )
    .await
}

/// A port nothing listens on.
async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn an_unsaved_stdio_server_is_tested_and_nothing_is_stored() {
    let api = start().await;
    let (status, report) = test_unsaved(&api, &api.admin, everything()).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(tools.contains(&"echo"), "{report}");
    assert!(report["protocolVersion"].is_string(), "{report}");
    // The answer is what the document says it is.
    let documented = documented_fields(&api, "ServerReport").await;
    for field in report.as_object().unwrap().keys() {
        assert!(documented.contains(field), "{field} not in {documented:?}");
    }
    assert!(listed(&api).await.is_empty(), "nothing is stored");
    // Nothing stays connected either.
    let (status, _) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    api.manager.shutdown().await;
}

#[tokio::test]
async fn seed_001_field_names_are_accepted() {
    let api = start().await;
    let mut server = everything();
    let object = server.as_object_mut().unwrap();
    object.remove("transport");
    object.insert("type".into(), json!("stdio"));
    let (status, report) = test_unsaved(&api, &api.admin, server).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert!(listed(&api).await.is_empty(), "nothing is stored");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn an_unreachable_server_answers_its_error_code() {
    let api = start().await;
    let port = closed_port().await;
    let server = json!({
        "name": "Gone",
        "url": format!("http://127.0.0.1:{port}/mcp"),
    });
    let (status, body) = test_unsaved(&api, &api.admin, server).await;
    assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_UNREACHABLE");
    assert!(listed(&api).await.is_empty(), "nothing is stored");
}

#[tokio::test]
async fn a_bad_body_is_refused_before_connecting() {
    let api = start().await;
    let (status, body) = test_unsaved(
        &api,
        &api.admin,
        json!({"name": "X", "transport": "carrier-pigeon"}),
    )
    .await;
    assert_error(
        status,
        &body,
        StatusCode::BAD_REQUEST,
        "UNSUPPORTED_TRANSPORT",
    );
    let (status, body) =
        test_unsaved(&api, &api.admin, json!({"name": "X", "colour": "red"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, _) = api
        .send(
            Method::POST,
            "/api/mcp-servers/test",
            None,
            Some(everything()),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_members_stdio_server_follows_the_launch_rules() {
    let api = start().await;
    let (status, body) = test_unsaved(&api, &api.member, everything()).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
}

#[tokio::test]
async fn a_saved_servers_mask_is_not_sent_to_another_url() {
    let api = start().await;
    let port = closed_port().await;
    let saved = json!({
        "id": "search",
        "name": "Search",
        "url": format!("http://127.0.0.1:{port}/mcp"),
        "auth": {"type": "bearer", "token": "sk-secret-token-0123456789"},
    });
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(saved),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // The dialog sends back what it read: the token masked.
    let (_, mut shown) = api
        .send(
            Method::GET,
            "/api/mcp-servers/search",
            Some(&api.admin),
            None,
        )
        .await;
    assert_ne!(
        shown["auth"]["token"], "sk-secret-token-0123456789",
        "{shown}"
    );
    let object = shown.as_object_mut().unwrap();
    object.remove("createdAt");
    object.remove("updatedAt");
    let other = closed_port().await;
    shown["url"] = json!(format!("http://127.0.0.1:{other}/mcp"));
    let (status, body) = test_unsaved(&api, &api.admin, shown).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(!body.to_string().contains("sk-secret"), "{body}");
    // The saved server is unchanged.
    assert_eq!(listed(&api).await.len(), 1);
}

#[tokio::test]
async fn a_server_named_test_is_still_read_updated_and_deleted() {
    let api = start().await;
    let port = closed_port().await;
    let server = json!({"name": "Test", "url": format!("http://127.0.0.1:{port}/mcp")});
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(server.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["id"], "test", "{body}");
    let (status, body) = api
        .send(Method::GET, "/api/mcp-servers/test", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/test",
            Some(&api.admin),
            Some(server),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = api
        .send(
            Method::DELETE,
            "/api/mcp-servers/test",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
}

/// The property names the document gives a component (its `allOf` parts included).
async fn documented_fields(api: &Api, component: &str) -> BTreeSet<String> {
    let document: Value = reqwest::get(format!("{}/api/openapi.json", api.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let schemas = &document["components"]["schemas"];
    let schema = &schemas[component];
    let mut parts = schema["allOf"].as_array().cloned().unwrap_or_default();
    parts.push(schema.clone());
    let mut names = BTreeSet::new();
    for part in &parts {
        let part = match part["$ref"].as_str() {
            Some(target) => schemas[target.trim_start_matches("#/components/schemas/")].clone(),
            None => part.clone(),
        };
        if let Some(properties) = part["properties"].as_object() {
            names.extend(properties.keys().cloned());
        }
    }
    names
}

#[tokio::test]
async fn health_and_tool_answers_are_what_the_document_says() {
    let api = start().await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(everything()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, tools) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    let documented = documented_fields(&api, "ToolWithFlags").await;
    for field in tools[0].as_object().unwrap().keys() {
        assert!(
            documented.contains(field),
            "tool {field} not in {documented:?}"
        );
    }
    // Connected now, so the health carries the server's details.
    let (status, health) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/health",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{health}");
    assert_eq!(health["status"], "connected", "{health}");
    let documented = documented_fields(&api, "ServerHealth").await;
    for field in health.as_object().unwrap().keys() {
        assert!(
            documented.contains(field),
            "health {field} not in {documented:?}"
        );
    }
    let details = documented_fields(&api, "ServerDetails").await;
    for field in health["server"].as_object().unwrap().keys() {
        assert!(details.contains(field), "server {field} not in {details:?}");
    }
    api.manager.shutdown().await;
}

/// An HTTP server that refuses every request with 401 and keeps the heads it was sent.
async fn refusing_recorder() -> (String, std::sync::Arc<std::sync::Mutex<String>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let recorded = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut head = Vec::new();
            let mut buffer = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match socket.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buffer[..n]),
                }
            }
            recorded
                .lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&head).to_lowercase());
            let answer =
                "HTTP/1.1 401 Unauthorized\r\ncontent-length: 2\r\nconnection: close\r\n\r\nno";
            let _ = socket.write_all(answer.as_bytes()).await;
        }
    });
    (url, seen)
}

#[tokio::test]
async fn a_saved_servers_masked_secret_is_the_saved_one_for_its_url() {
    let api = start().await;
    let (url, seen) = refusing_recorder().await;
    let saved = json!({
        "name": "Search",
        "url": url,
        "auth": {"type": "bearer", "token": "sk-saved-token-0123456789"},
    });
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(saved),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, mut shown) = api
        .send(
            Method::GET,
            "/api/mcp-servers/search",
            Some(&api.admin),
            None,
        )
        .await;
    let object = shown.as_object_mut().unwrap();
    object.remove("createdAt");
    object.remove("updatedAt");
    let (_, body) = test_unsaved(&api, &api.admin, shown).await;
    assert_eq!(body["code"], "MCP_AUTH_FAILED", "{body}");
    assert!(!body.to_string().contains("sk-saved"), "{body}");
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.contains("authorization: bearer sk-saved-token-0123456789"),
        "{seen}"
    );
}
