//! Server-side request forgery against a real `switchboard serve` on
//! loopback: with tokens, a member's MCP server may not reach the host's own network (the
//! target, a small HTTP server on 127.0.0.1 that counts connections, is never reached)
//! unless `--allow-destination` / `SWITCHBOARD_ALLOW_DESTINATIONS` allows it; the admin and
//! `--single-user` are not limited; an upstream body never comes back whole.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::serve::{Served, serve, serve_with_env, terminate};
use serde_json::{Value, json};
use switchboard_testkit::CannedHttp;

const MARKER: &str = "INTERNAL-ONLY-51d2";

async fn send(
    served: &Served,
    token: Option<&str>,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (reqwest::StatusCode, Value) {
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", served.base));
    if let Some(body) = body {
        request = request.json(&body);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

/// Adds a member with the CLI and returns their token.
fn member(sb: &Switchboard) -> String {
    let added = sb.run(&["--json", "users", "add", "mallory"]).ok().json();
    assert_eq!(added["user"]["role"], "member", "{added}");
    added["token"]["secret"].as_str().unwrap().to_owned()
}

/// Creates a server named `name` at `url` as `token` and tests it; returns the test's answer.
async fn create_and_test(
    served: &Served,
    token: Option<&str>,
    name: &str,
    url: &str,
) -> (reqwest::StatusCode, Value) {
    let (status, created) = send(
        served,
        token,
        reqwest::Method::POST,
        "/api/mcp-servers",
        Some(json!({"name": name, "url": url})),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    send(
        served,
        token,
        reqwest::Method::POST,
        &format!("/api/mcp-servers/{name}/test"),
        None,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_members_server_may_not_reach_the_hosts_network() {
    let target = CannedHttp::start(401, "text/plain", "who are you").await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &[]);
    let member = member(&sb);

    // A name that resolves to loopback passes when saved and is refused when connecting.
    let (status, answer) = create_and_test(
        &served,
        Some(&member),
        "inside",
        &target.url("localhost", "/mcp"),
    )
    .await;
    assert_eq!(status, 403, "{answer}");
    assert_eq!(answer["code"], "DESTINATION_NOT_ALLOWED", "{answer}");
    assert!(
        answer["message"].as_str().unwrap().contains("localhost"),
        "{answer}"
    );
    // An IP literal is refused when saved, the IPv4-mapped form too.
    for host in ["127.0.0.1", "[::ffff:127.0.0.1]"] {
        let (status, answer) = send(
            &served,
            Some(&member),
            reqwest::Method::POST,
            "/api/mcp-servers",
            Some(json!({"name": "literal", "url": target.url(host, "/mcp")})),
        )
        .await;
        assert_eq!(status, 403, "{answer}");
        assert_eq!(answer["code"], "DESTINATION_NOT_ALLOWED", "{answer}");
    }
    assert_eq!(target.hits(), 0, "the target was reached");

    // The admin is not limited.
    let admin = served.token.clone();
    let (status, answer) = create_and_test(
        &served,
        admin.as_deref(),
        "mine",
        &target.url("127.0.0.1", "/mcp"),
    )
    .await;
    assert_eq!(status, 502, "{answer}");
    assert_eq!(answer["code"], "MCP_AUTH_FAILED", "{answer}");
    assert!(target.hits() > 0);
    assert!(terminate(&mut served).success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_destinations_are_reached_by_members() {
    let target = CannedHttp::start(401, "text/plain", "who are you").await;
    let sb = Switchboard::new();
    let mut served = serve_with_env(
        &sb,
        &["--allow-destination", "127.0.0.0/8"],
        &[("SWITCHBOARD_ALLOW_DESTINATIONS", "localhost")],
    );
    let member = member(&sb);
    let (status, answer) = create_and_test(
        &served,
        Some(&member),
        "by-cidr",
        &target.url("127.0.0.1", "/mcp"),
    )
    .await;
    assert_eq!(answer["code"], "MCP_AUTH_FAILED", "{status} {answer}");
    assert!(target.hits() > 0, "the target was not reached");
    assert!(terminate(&mut served).success());

    // The environment variable alone.
    let sb = Switchboard::new();
    let mut served = serve_with_env(&sb, &[], &[("SWITCHBOARD_ALLOW_DESTINATIONS", "localhost")]);
    let member = self::member(&sb);
    let before = target.hits();
    let (status, answer) = create_and_test(
        &served,
        Some(&member),
        "by-name",
        &target.url("localhost", "/mcp"),
    )
    .await;
    assert_eq!(answer["code"], "MCP_AUTH_FAILED", "{status} {answer}");
    assert!(target.hits() > before, "the target was not reached");
    assert!(terminate(&mut served).success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_allow_list_entry_stops_serve() {
    let sb = Switchboard::new();
    let run = sb.run(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--allow-destination",
        "10.0.0.0/99",
    ]);
    let run = run.failed();
    assert!(run.stderr.contains("10.0.0.0/99"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_user_is_not_guarded_and_bodies_are_not_echoed() {
    let body = format!("{MARKER} {}", "x".repeat(20 * 1024));
    let target = CannedHttp::start(401, "text/plain", body).await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user"]);
    let (status, answer) =
        create_and_test(&served, None, "local", &target.url("127.0.0.1", "/mcp")).await;
    assert_eq!(status, 502, "{answer}");
    assert_eq!(answer["code"], "MCP_AUTH_FAILED", "{answer}");
    assert!(target.hits() > 0, "the target was not reached");
    let text = answer.to_string();
    assert!(!text.contains(MARKER), "the 401 body came back: {text}");
    assert!(text.len() < 1200, "{} bytes", text.len());
    assert!(terminate(&mut served).success());
}
