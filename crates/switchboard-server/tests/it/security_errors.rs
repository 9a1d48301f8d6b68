//! Every error answer is in the `{code, message, timestamp}` shape (405,
//! 414, 431, `Path` and `Query` rejections), unknown fields are refused rather than dropped,
//! and `/metrics` is for admins only.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{Api, assert_error, start, start_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The status and JSON body of `request`; fails when the body is not JSON.
async fn shaped(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    assert_eq!(
        content_type.as_deref(),
        Some("application/json"),
        "{status}: {text:?}"
    );
    (status, serde_json::from_str(&text).unwrap())
}

fn get(api: &Api, path: &str) -> reqwest::RequestBuilder {
    api.client
        .get(format!("{}{path}", api.base))
        .bearer_auth(&api.admin)
}

#[tokio::test]
async fn a_wrong_method_is_405_in_the_error_shape() {
    let api = start().await;
    let (status, body) = shaped(
        api.client
            .delete(format!("{}/api/mcp-servers", api.base))
            .bearer_auth(&api.admin),
    )
    .await;
    assert_error(
        status,
        &body,
        StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
    );
}

#[tokio::test]
async fn oversized_uris_and_headers_are_shaped() {
    let api = start().await;
    let long = "a".repeat(10 * 1024);
    let (status, body) = shaped(get(&api, &format!("/api/mcp-servers?x={long}"))).await;
    assert_error(status, &body, StatusCode::URI_TOO_LONG, "URI_TOO_LONG");
    let big = "b".repeat(40 * 1024);
    let (status, body) = shaped(get(&api, "/api/mcp-servers").header("x-big", big)).await;
    assert_error(
        status,
        &body,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        "HEADERS_TOO_LARGE",
    );
    // Under the limits, the same request is served.
    let (status, _) = shaped(get(&api, "/api/mcp-servers").header("x-ok", "c".repeat(1024))).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn path_and_query_rejections_are_shaped() {
    let api = start().await;
    let (status, body) = shaped(get(&api, "/api/mcp-servers/%FF")).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = shaped(
        api.client
            .post(format!(
                "{}/api/mcp/proxy/x/tools/y/call?preset=a&preset=b",
                api.base
            ))
            .bearer_auth(&api.admin)
            .json(&json!({})),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(
        body["message"].as_str().unwrap().contains("preset"),
        "{body}"
    );
}

/// Bodies of the wrong shape are refused in words a caller can use, never with the names of
/// the types they were read into (serde's "expected struct ServerBody").
#[tokio::test]
async fn no_error_names_an_internal_type() {
    let api = start().await;
    let post = |path: &str, body: Value| {
        api.client
            .post(format!("{}{path}", api.base))
            .bearer_auth(&api.admin)
            .json(&body)
    };
    for (path, body) in [
        ("/api/mcp-servers", json!("a string")),
        ("/api/mcp-servers", json!([1, 2])),
        ("/api/mcp-servers", json!({"name": "x", "transport": 5})),
        ("/api/mcp-servers", json!({"name": "x", "auth": "basic"})),
        ("/api/assistants", json!(7)),
        ("/api/conversations", json!("x")),
        ("/api/chat", json!({"messages": "hi"})),
        ("/api/tool-nodes", json!(true)),
        ("/api/views", json!({"name": 1})),
    ] {
        let (status, answer) = shaped(post(path, body.clone())).await;
        assert!(status.is_client_error(), "{path} {body}: {status} {answer}");
        let message = answer["message"].as_str().unwrap();
        for word in ["struct ", "enum ", "Body", "Request", "Spec", "::"] {
            assert!(!message.contains(word), "{path} {body}: {message}");
        }
    }
}

#[tokio::test]
async fn unknown_server_fields_are_refused_not_dropped() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(
                json!({"name": "gh", "transport": "stdio", "command": "gh-mcp",
                        "env": {"GH_TOKEN": "ghp_secret"}, "secretenv": ["GH_TOKEN"]}),
            ),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(
        body["message"].as_str().unwrap().contains("`secretenv`"),
        "{body}"
    );
    let (_, listed) = api.send(Method::GET, "/api/mcp-servers", admin, None).await;
    assert_eq!(listed, json!([]), "nothing was stored");

    let good = json!({"name": "web", "url": "http://127.0.0.1:9/mcp",
                      "auth": {"type": "bearer", "token": "t"}});
    let (status, body) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(good.clone()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    for (field, value) in [
        ("secretHeaders", json!(["X"])),
        (
            "auth",
            json!({"type": "bearer", "token": "t", "tokne": "x"}),
        ),
    ] {
        let mut edited = good.clone();
        edited[field] = value;
        let (status, body) = api
            .send(Method::PUT, "/api/mcp-servers/web", admin, Some(edited))
            .await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(
            body["message"].as_str().unwrap().contains(field),
            "{field}: {body}"
        );
    }
}

#[tokio::test]
async fn metrics_take_an_admin_token() {
    let api = start().await;
    let url = format!("{}/metrics", api.base);
    let (status, body) = shaped(api.client.get(&url)).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, body) = shaped(api.client.get(&url).bearer_auth(&api.member)).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    let response = api.client.get(&url).bearer_auth(&api.admin).send().await;
    assert_eq!(response.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn metrics_on_their_own_address_are_not_on_the_api() {
    let mut config = common::Config::default();
    config.server.guard.metrics_listen = Some("127.0.0.1:9".parse().unwrap());
    let api = start_with(config).await;
    let (status, body) = shaped(
        api.client
            .get(format!("{}/metrics", api.base))
            .bearer_auth(&api.admin),
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}
