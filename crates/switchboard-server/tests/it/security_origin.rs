//! Browser-origin attacks. A page on another site, or one whose domain
//! is rebound to 127.0.0.1, must not drive the API: foreign `Host` and `Origin` values are
//! refused, and state-changing requests take JSON only, in single-user and token modes.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Config;
use common::{Api, assert_error, start_as};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Sends `method path` with extra headers and an optional raw body; the caller's token when
/// given.
async fn raw(
    api: &Api,
    method: Method,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut request = api.client.request(method, format!("{}{path}", api.base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body.to_owned());
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    (
        status,
        headers,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    )
}

fn port(api: &Api) -> u16 {
    api.base.rsplit(':').next().unwrap().parse().unwrap()
}

/// A stdio server whose process leaves `marker` behind when it starts.
fn marker_server(name: &str, marker: &std::path::Path) -> Value {
    json!({
        "name": name,
        "transport": "stdio",
        "command": "sh",
        "args": ["-c", format!("touch '{}'", marker.display())],
    })
}

#[tokio::test]
async fn a_rebound_host_is_refused_on_reads_and_writes() {
    let api = start_as(Config::default(), true).await;
    let rebound = format!("attacker.example:{}", port(&api));
    let (status, _, body) = raw(
        &api,
        Method::GET,
        "/api/mcp-servers",
        None,
        &[("host", &rebound)],
        None,
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "ORIGIN_NOT_ALLOWED");
    let (status, _, body) = raw(
        &api,
        Method::POST,
        "/api/mcp-servers",
        None,
        &[("host", &rebound), ("content-type", "application/json")],
        Some(r#"{"name":"x","transport":"stdio","command":"sh"}"#),
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "ORIGIN_NOT_ALLOWED");
    let (_, listed) = api.send(Method::GET, "/api/mcp-servers", None, None).await;
    assert_eq!(listed, json!([]), "nothing was created");
    // The names this server answers to by default.
    for host in [
        format!("localhost:{}", port(&api)),
        format!("127.0.0.1:{}", port(&api)),
    ] {
        let (status, _, body) = raw(
            &api,
            Method::GET,
            "/api/mcp-servers",
            None,
            &[("host", &host)],
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{host}: {body}");
    }
    // Same name, other port.
    let (status, _, body) = raw(
        &api,
        Method::GET,
        "/healthz",
        None,
        &[("host", "127.0.0.1:1")],
        None,
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "ORIGIN_NOT_ALLOWED");
}

#[tokio::test]
async fn a_cross_site_text_post_spawns_nothing() {
    let api = start_as(Config::default(), true).await;
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("spawned");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            None,
            Some(marker_server("demo", &marker)),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // What a form or `fetch(..., {mode: "no-cors"})` on another site sends.
    let (status, _, body) = raw(
        &api,
        Method::POST,
        "/api/mcp-servers/demo/test",
        None,
        &[
            ("origin", "http://attacker.example"),
            ("content-type", "text/plain"),
        ],
        None,
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "ORIGIN_NOT_ALLOWED");
    // The same without an Origin (an old browser, a privacy extension).
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let (status, _, body) = raw(
            &api,
            Method::POST,
            "/api/mcp-servers/demo/test",
            None,
            &[("content-type", content_type)],
            None,
        )
        .await;
        assert_error(
            status,
            &body,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
        );
    }
    // A body with no Content-Type at all.
    let (status, _, body) = raw(
        &api,
        Method::POST,
        "/api/mcp-servers/demo/test",
        None,
        &[],
        Some("{}"),
    )
    .await;
    assert_error(
        status,
        &body,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "UNSUPPORTED_MEDIA_TYPE",
    );
    assert!(!marker.exists(), "a refused request started the server");

    // The check can see a start: the UI's own request does start it.
    let origin = api.base.clone();
    let (status, _, body) = raw(
        &api,
        Method::POST,
        "/api/mcp-servers/demo/test",
        None,
        &[("origin", &origin), ("content-type", "application/json")],
        Some("{}"),
    )
    .await;
    assert_ne!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        marker.exists(),
        "the allowed request did not start the server"
    );
}

#[tokio::test]
async fn a_foreign_origin_is_refused_on_every_method() {
    let api = start_as(Config::default(), true).await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            None,
            Some(json!({"name": "web", "url": "http://127.0.0.1:9/mcp"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let json_type = ("content-type", "application/json");
    for origin in ["http://attacker.example", "null", "http://localhost:3000"] {
        for (method, body) in [
            (
                Method::PUT,
                Some(r#"{"name":"web","url":"http://127.0.0.1:9/mcp"}"#),
            ),
            (Method::PATCH, Some("{}")),
            (Method::DELETE, None),
            (Method::GET, None),
        ] {
            let (status, _, answer) = raw(
                &api,
                method.clone(),
                "/api/mcp-servers/web",
                None,
                &[("origin", origin), json_type],
                body,
            )
            .await;
            assert_error(status, &answer, StatusCode::FORBIDDEN, "ORIGIN_NOT_ALLOWED");
        }
    }
    let (status, _) = api
        .send(Method::GET, "/api/mcp-servers/web", None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "the server is still there");
}

#[tokio::test]
async fn no_cors_headers_are_ever_sent() {
    let api = start_as(Config::default(), true).await;
    let origin = api.base.clone();
    for (method, origin) in [
        (Method::GET, origin.as_str()),
        (Method::OPTIONS, origin.as_str()),
        (Method::OPTIONS, "http://attacker.example"),
    ] {
        let (_, headers, _) = raw(
            &api,
            method,
            "/api/mcp-servers",
            None,
            &[
                ("origin", origin),
                ("access-control-request-method", "POST"),
            ],
            None,
        )
        .await;
        assert!(
            !headers
                .keys()
                .any(|name| name.as_str().starts_with("access-control-")),
            "{headers:?}"
        );
    }
}

#[tokio::test]
async fn public_urls_and_allowed_hosts_are_answered() {
    let mut config = Config::default();
    config.server.guard.public_urls = vec!["https://sb.example.com".parse().unwrap()];
    config.server.guard.allowed_hosts = vec!["box.lan".into()];
    config.server.guard.allowed_origins = vec!["https://ui.example.net".into()];
    let api = start_as(config, false).await;
    let admin = Some(api.admin.as_str());
    let json_type = ("content-type", "application/json");
    let body = r#"{"name":"one","url":"http://127.0.0.1:9/mcp"}"#;
    let (status, _, answer) = raw(
        &api,
        Method::POST,
        "/api/mcp-servers",
        admin,
        &[
            ("host", "sb.example.com"),
            ("origin", "https://sb.example.com"),
            json_type,
        ],
        Some(body),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    for (host, origin) in [
        ("box.lan:8080", "http://box.lan:8080"),
        ("sb.example.com", "https://ui.example.net"),
    ] {
        let (status, _, answer) = raw(
            &api,
            Method::GET,
            "/api/mcp-servers/one",
            admin,
            &[("host", host), ("origin", origin)],
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{host} {origin}: {answer}");
    }
    let (status, _, answer) = raw(
        &api,
        Method::DELETE,
        "/api/mcp-servers/one",
        admin,
        &[
            ("host", "sb.example.com"),
            ("origin", "https://evil.example.com"),
        ],
        None,
    )
    .await;
    assert_error(status, &answer, StatusCode::FORBIDDEN, "ORIGIN_NOT_ALLOWED");
}

#[tokio::test]
async fn token_mode_is_guarded_too() {
    let api = start_as(Config::default(), false).await;
    let admin = Some(api.admin.as_str());
    let rebound = format!("attacker.example:{}", port(&api));
    let (status, _, body) = raw(
        &api,
        Method::GET,
        "/api/mcp-servers",
        admin,
        &[("host", &rebound)],
        None,
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "ORIGIN_NOT_ALLOWED");
    let (status, _, body) = raw(
        &api,
        Method::POST,
        "/api/mcp-servers",
        admin,
        &[
            ("origin", "http://attacker.example"),
            ("content-type", "application/json"),
        ],
        Some(r#"{"name":"x","url":"http://127.0.0.1:9/mcp"}"#),
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "ORIGIN_NOT_ALLOWED");
    let (status, _, body) = raw(
        &api,
        Method::POST,
        "/api/mcp-servers",
        admin,
        &[("content-type", "text/plain")],
        Some(r#"{"name":"x","url":"http://127.0.0.1:9/mcp"}"#),
    )
    .await;
    assert_error(
        status,
        &body,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "UNSUPPORTED_MEDIA_TYPE",
    );
    // Without a token the answer is still 401 from a good host.
    let (status, _, body) = raw(&api, Method::GET, "/api/mcp-servers", None, &[], None).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[tokio::test]
async fn a_request_without_host_is_refused() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let api = start_as(Config::default(), true).await;
    let address = api.base.trim_start_matches("http://");
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    socket
        .write_all(b"GET /api/mcp-servers HTTP/1.0\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    socket.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.0 403"), "{answer}");
    assert!(answer.contains("ORIGIN_NOT_ALLOWED"), "{answer}");
}
