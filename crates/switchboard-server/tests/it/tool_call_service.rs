//! The tool-call service through the proxy, against the real reference `everything` server:
//! a node's literal, variable and interpolated mappings reach the server, body keys naming a
//! declared variable are variables (not arguments), a missing variable is a 400 naming it,
//! `?preset=` still works, a tool outside the node is not found, and the audit
//! (`GET /api/tool-calls`) lists the caller's own calls only, without arguments.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{Api, assert_error, everything, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_core::{OwnerId, ToolNode};
use switchboard_store::Role;

const PROXY: &str = "/api/mcp/proxy/everything/tools";

/// Another admin (members may launch only what launch templates allow, and the test server
/// has none), with a token.
async fn other_admin(api: &Api) -> String {
    let other = api.store.create_user("other", Role::Admin).await.unwrap();
    api.store.issue_token(&other.id, "t").await.unwrap().secret
}

async fn owner(api: &Api, token: &str) -> OwnerId {
    api.store.user_by_token(token).await.unwrap().unwrap().id
}

/// Registers the `everything` server for the holder of `token`.
async fn with_everything(api: &Api, token: &str) {
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(token),
            Some(everything()),
        )
        .await;
    assert!(status.is_success(), "{status} {body}");
}

/// A node of the admin's `everything`: `get-sum` with `a` fixed and `b` from `{{n}}`, `echo`
/// with its message interpolated from `{{token}}` and the built-in `{{user.name}}`.
async fn node(api: &Api) -> String {
    let node: ToolNode = serde_json::from_value(json!({
        "name": "sums",
        "serverId": "everything",
        "selectedTools": [
            {"name": "get-sum", "parameterMappings": {"a": 40, "b": "{{n}}"}},
            {"name": "echo", "parameterMappings": {"message": "Bearer {{token}} for {{user.name}}"}},
            {"name": "get-tiny-image", "enabled": false}
        ],
        "variables": [
            {"name": "n", "type": "number"},
            {"name": "token", "type": "string"}
        ]
    }))
    .unwrap();
    let owner = owner(api, &api.admin).await;
    api.store.create_tool_node(&owner, &node).await.unwrap().id
}

async fn proxy(
    api: &Api,
    token: &str,
    tool: &str,
    query: &str,
    body: Value,
) -> (StatusCode, Value) {
    api.send(
        Method::POST,
        &format!("{PROXY}/{tool}/call{query}"),
        Some(token),
        Some(body),
    )
    .await
}

#[tokio::test]
async fn a_node_fills_literal_variable_and_interpolated_mappings_into_the_call() {
    let api = start().await;
    with_everything(&api, &api.admin).await;
    let id = node(&api).await;

    // `n` is a variable the node declares, so it is not sent as an argument (the tool's
    // schema would refuse an unknown one); `a` is the node's literal.
    let (status, result) = proxy(
        &api,
        &api.admin,
        "get-sum",
        &format!("?node={id}"),
        json!({"n": 2}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    let text = result.to_string();
    assert!(text.contains("40") && text.contains("42"), "{text}");

    let (status, result) = proxy(
        &api,
        &api.admin,
        "echo",
        &format!("?node={id}"),
        json!({"token": "xyz"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert!(
        result.to_string().contains("Bearer xyz for admin"),
        "{result}"
    );
    api.manager.shutdown().await;
}

#[tokio::test]
async fn a_missing_variable_is_a_bad_request_naming_it() {
    let api = start().await;
    with_everything(&api, &api.admin).await;
    let id = node(&api).await;
    let (status, body) = proxy(
        &api,
        &api.admin,
        "get-sum",
        &format!("?node={id}"),
        json!({}),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "MCP_INVALID_PARAMS");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("{{n}}") && message.contains("\"b\""),
        "{message}"
    );
    api.manager.shutdown().await;
}

#[tokio::test]
async fn the_old_preset_query_still_names_the_node() {
    let api = start().await;
    with_everything(&api, &api.admin).await;
    let id = node(&api).await;
    let (status, result) = proxy(
        &api,
        &api.admin,
        "get-sum",
        &format!("?preset={id}"),
        json!({"n": 2}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert!(result.to_string().contains("42"), "{result}");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn tools_the_node_does_not_offer_and_other_users_nodes_are_not_found() {
    let api = start().await;
    let other = other_admin(&api).await;
    with_everything(&api, &api.admin).await;
    with_everything(&api, &other).await;
    let id = node(&api).await;
    for tool in ["get-tiny-image", "add"] {
        let (status, body) = proxy(&api, &api.admin, tool, &format!("?node={id}"), json!({})).await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_TOOL_NOT_FOUND");
    }
    // The other user has an `everything` of their own, but the node is the admin's.
    let (status, body) = proxy(
        &api,
        &other,
        "get-sum",
        &format!("?node={id}"),
        json!({"n": 2}),
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn the_audit_lists_the_callers_own_calls_newest_first_without_arguments() {
    let api = start().await;
    let other = other_admin(&api).await;
    with_everything(&api, &api.admin).await;
    with_everything(&api, &other).await;
    let id = node(&api).await;

    let (status, _) = proxy(
        &api,
        &api.admin,
        "get-sum",
        &format!("?node={id}"),
        json!({"n": 2}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = proxy(
        &api,
        &api.admin,
        "get-sum",
        &format!("?node={id}"),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = api
        .send(
            Method::POST,
            "/api/mcp/tools/call",
            Some(api.admin.as_str()),
            Some(json!({"serverId": "everything", "toolName": "echo", "arguments": {"message": "secret-words"}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = proxy(&api, &other, "get-sum", "", json!({"a": 1, "b": 1})).await;
    assert_eq!(status, StatusCode::OK);

    let (status, mine) = api
        .send(
            Method::GET,
            "/api/tool-calls",
            Some(api.admin.as_str()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{mine}");
    let mine = mine.as_array().unwrap();
    let seen: Vec<(&str, &str, &str)> = mine
        .iter()
        .map(|r| {
            (
                r["caller"].as_str().unwrap(),
                r["tool"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("api", "echo", "ok"),
            ("proxy", "get-sum", "MCP_INVALID_PARAMS"),
            ("proxy", "get-sum", "ok"),
        ]
    );
    assert_eq!(mine[2]["nodeId"], id.as_str());
    assert_eq!(mine[2]["attempts"], 1);
    assert_eq!(mine[2]["serverId"], "everything");
    assert_eq!(mine[1]["attempts"], 0, "refused before it was sent");
    assert!(mine[0].get("nodeId").is_none());
    let text = Value::Array(mine.clone()).to_string();
    assert!(
        !text.contains("secret-words") && !text.contains("arguments"),
        "{text}"
    );

    let (status, theirs) = api
        .send(
            Method::GET,
            "/api/tool-calls?limit=10",
            Some(other.as_str()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{theirs}");
    let theirs = theirs.as_array().unwrap();
    assert_eq!(theirs.len(), 1, "{theirs:?}");
    assert_eq!(theirs[0]["caller"], "proxy");

    let (status, one) = api
        .send(
            Method::GET,
            "/api/tool-calls?limit=1",
            Some(api.admin.as_str()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(one.as_array().unwrap().len(), 1);
    api.manager.shutdown().await;
}

/// A tool the server runs only as a task (`execution.taskSupport: "required"`) answers the
/// proxy as any tool does: the call is run as a task and followed to its end. Its listing
/// shows nothing of how Switchboard learnt that.
#[tokio::test]
async fn a_task_only_tool_answers_through_the_proxy() {
    let api = start().await;
    with_everything(&api, &api.admin).await;
    let (status, tools) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    assert!(
        tools.to_string().contains("simulate-research-query"),
        "{tools}"
    );
    assert!(!tools.to_string().contains("switchboard/"), "{tools}");
    let (status, result) = proxy(
        &api,
        &api.admin,
        "simulate-research-query",
        "",
        json!({"topic": "tides"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_ne!(result["isError"], json!(true), "{result}");
    assert!(
        result.to_string().contains("Research Report: tides"),
        "{result}"
    );
    api.manager.shutdown().await;
}
