//! Bad input gets the error shape and changes nothing: oversized bodies, unknown fields, wrong
//! types; and the launch templates members' stdio servers must fit.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{assert_error, everything, start, start_with};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn oversized_bodies_are_refused_with_413() {
    let mut config = common::Config::default();
    config.server.max_body_bytes = 1024;
    let api = start_with(config).await;
    let big = json!({"name": "x".repeat(2000), "kind": "openai", "defaultModel": "m"});
    let (status, body) = api
        .send(Method::POST, "/api/providers", Some(&api.admin), Some(big))
        .await;
    assert_error(
        status,
        &body,
        StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
    );
    assert!(body["message"].as_str().unwrap().contains("1024"), "{body}");
    let (_, listed) = api
        .send(Method::GET, "/api/providers", Some(&api.admin), None)
        .await;
    assert_eq!(listed, json!([]));
}

#[tokio::test]
async fn unknown_fields_and_wrong_types_are_named() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let cases = [
        (
            "/api/providers",
            json!({"name": "p", "kind": "openai", "defaultModel": "m", "apiKye": "typo"}),
            "apiKye",
        ),
        (
            "/api/providers",
            json!({"name": "p", "kind": "gemini", "defaultModel": "m"}),
            "gemini",
        ),
        (
            "/api/assistants",
            json!({"name": "a", "maxRounds": "many"}),
            "maxRounds",
        ),
        ("/api/conversations", json!({"titel": "typo"}), "titel"),
        ("/api/chat/message", json!({"message": 42}), "message"),
    ];
    for (path, body, named) in cases {
        let (status, answer) = api.send(Method::POST, path, admin, Some(body)).await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(
            answer["message"].as_str().unwrap().contains(named),
            "{path}: {answer}"
        );
    }
    for path in ["/api/providers", "/api/assistants", "/api/conversations"] {
        let (_, listed) = api.send(Method::GET, path, admin, None).await;
        assert_eq!(listed, json!([]), "{path}");
    }
}

#[tokio::test]
async fn members_may_configure_templated_commands_only() {
    let server = everything();
    let command = server["command"].as_str().unwrap().to_owned();
    let args: Vec<&str> = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let template = format!("{command} {}", args.join(" "));
    let api = start_with(common::Config {
        rules: switchboard_app::Rules {
            launch: template.parse().unwrap(),
            ..Default::default()
        },
        ..common::Config::default()
    })
    .await;
    let member = Some(api.member.as_str());
    let (status, created) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            member,
            Some(server.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");

    let mut other = server;
    other["name"] = json!("Shell");
    other["command"] = json!("/bin/sh");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            member,
            Some(other.clone()),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    // Nor can an allowed server be changed to run something else.
    let (status, body) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/everything",
            member,
            Some(other),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    let (_, stored) = api
        .send(Method::GET, "/api/mcp-servers/everything", member, None)
        .await;
    assert_eq!(stored["command"], command.as_str());
}
