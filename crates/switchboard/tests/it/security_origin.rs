//! Browser-origin attacks, against a real `switchboard serve`: a page whose domain is rebound to
//! 127.0.0.1 (a foreign `Host`) or a cross-site "simple" POST cannot drive the API, and
//! `--public-url` / `--allowed-host` name the hosts a proxy serves it under.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::serve::{Served, serve, serve_with_env, terminate};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use switchboard_testkit::process;

async fn send(
    served: &Served,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", served.base));
    if let Some(token) = &served.token {
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
    (status, response.json().await.unwrap_or(Value::Null))
}

fn port(served: &Served) -> &str {
    served.base.rsplit(':').next().unwrap()
}

#[tokio::test]
async fn single_user_serve_refuses_rebinding_and_cross_site_posts() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user"]);
    let rebound = format!("rebind.attacker.example:{}", port(&served));

    let (status, body) = send(
        &served,
        Method::GET,
        "/api/mcp-servers",
        &[("host", &rebound)],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "ORIGIN_NOT_ALLOWED", "{body}");
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers",
        &[("host", &rebound), ("content-type", "application/json")],
        Some(r#"{"name":"x","transport":"stdio","command":"sh","args":["-c","id"]}"#),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");

    // The cross-site form POST that started the demo server.
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers/demo/test",
        &[
            ("origin", "http://attacker.example"),
            ("content-type", "text/plain"),
        ],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "ORIGIN_NOT_ALLOWED", "{body}");
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers/demo/test",
        &[("content-type", "text/plain")],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert_eq!(body["code"], "UNSUPPORTED_MEDIA_TYPE", "{body}");
    assert!(
        process::descendants(served.child.id()).is_empty(),
        "a refused request started a process"
    );

    // The UI's own requests still work.
    let origin = served.base.clone();
    let (status, body) = send(
        &served,
        Method::POST,
        "/api/mcp-servers/demo/test",
        &[("origin", &origin), ("content-type", "application/json")],
        Some("{}"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn token_serve_refuses_a_foreign_host_and_origin() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &[]);
    let rebound = format!("rebind.attacker.example:{}", port(&served));
    let (status, body) = send(
        &served,
        Method::GET,
        "/api/mcp-servers",
        &[("host", &rebound)],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = send(
        &served,
        Method::DELETE,
        "/api/mcp-servers/demo",
        &[("origin", "https://attacker.example")],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = send(&served, Method::GET, "/api/mcp-servers/demo", &[], None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn public_urls_and_allowed_hosts_are_answered() {
    let sb = Switchboard::new();
    let mut served = serve_with_env(
        &sb,
        &["--public-url", "https://sb.example.com"],
        &[("SWITCHBOARD_ALLOWED_HOSTS", "box.lan,other.lan:9000")],
    );
    for (host, origin) in [
        ("sb.example.com", "https://sb.example.com"),
        ("box.lan:8080", "http://box.lan:8080"),
        ("other.lan:9000", "http://other.lan:9000"),
    ] {
        let (status, body) = send(
            &served,
            Method::PUT,
            "/api/mcp-servers/demo/tools/current_time",
            &[
                ("host", host),
                ("origin", origin),
                ("content-type", "application/json"),
            ],
            Some(r#"{"enabled":true}"#),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{host} {origin}: {body}");
    }
    let (status, body) = send(
        &served,
        Method::GET,
        "/api/mcp-servers",
        &[("host", "other.lan:9001")],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(terminate(&mut served).success());
}
