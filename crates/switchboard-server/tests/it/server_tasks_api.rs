//! A server's `tasks` setting (whether its tools are started as MCP tasks) through the server
//! routes, and how each tool runs as a task in the tool listing, with server-everything (whose
//! `simulate-research-query` runs only as a task) over stdio behind them.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{assert_error, everything, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

#[tokio::test]
async fn the_tasks_setting_is_written_and_each_tool_says_how_it_runs_as_a_task() {
    let api = start().await;
    let admin = Some(api.admin.as_str());

    let mut server = everything();
    server["tasks"] = json!("never");
    let (status, created) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(server))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["tasks"], "never");

    let mut edited = created.clone();
    edited["tasks"] = json!("always");
    let (status, updated) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/everything",
            admin,
            Some(edited.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["tasks"], "always");

    edited["tasks"] = json!("sometimes");
    let (status, body) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/everything",
            admin,
            Some(edited),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    let (status, tools) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    let tasks_of = |name: &str| -> Value {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {tools}"))["tasks"]
            .clone()
    };
    assert_eq!(
        tasks_of("simulate-research-query"),
        json!({"support": "required"})
    );
    assert_eq!(tasks_of("echo"), json!({"support": "forbidden"}));

    let (status, document) = api.send(Method::GET, "/api/openapi.json", None, None).await;
    assert_eq!(status, StatusCode::OK);
    let schemas = &document["components"]["schemas"];
    assert!(
        schemas["ServerSpec"]["properties"]["tasks"].is_object(),
        "{}",
        schemas["ServerSpec"]
    );
    assert!(
        schemas["ToolInfo"]["properties"]["tasks"].is_object(),
        "{}",
        schemas["ToolInfo"]
    );
    api.manager.shutdown().await;
}
