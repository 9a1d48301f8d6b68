//! `POST /api/import/mcp-servers`: another client's server list brought in through the real
//! router on a real socket, entry by entry.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{Api, assert_error, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_core::MASK;

/// A Claude Desktop file: a stdio server with a token, a remote one, and one we cannot use.
const CLAUDE_DESKTOP: &str = r#"{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_hunter2", "LOG_LEVEL": "info"}
    },
    "remote": {"url": "https://mcp.example.com/mcp", "headers": {"X-Team": "blue"}},
    "old": {"url": "ftp://files.example.com/mcp"}
  }
}"#;

async fn import(api: &Api, token: &str, body: Value) -> (StatusCode, Value) {
    api.send(
        Method::POST,
        "/api/import/mcp-servers",
        Some(token),
        Some(body),
    )
    .await
}

async fn listed(api: &Api, token: &str) -> Vec<Value> {
    let (status, listed) = api
        .send(Method::GET, "/api/mcp-servers", Some(token), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    listed.as_array().unwrap().clone()
}

fn names(values: &Value) -> Vec<&str> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_claude_desktop_file_is_imported_and_bad_entries_are_skipped() {
    let api = start().await;
    let (status, report) = import(&api, &api.admin, json!({"text": CLAUDE_DESKTOP})).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["format"], "mcpServers (Claude Desktop / Cursor)");
    assert_eq!(names(&report["imported"]), ["github", "remote"]);

    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{report}");
    assert_eq!(skipped[0]["name"], "old");
    assert_eq!(skipped[0]["code"], "VALIDATION_ERROR");
    assert!(
        skipped[0]["message"].as_str().unwrap().contains("ftp"),
        "{report}"
    );

    // The token is a secret: masked in the answer and the listing, the rest as written.
    let github = &report["imported"][0];
    assert_eq!(github["id"], "github");
    assert_eq!(github["transport"], "stdio");
    assert_eq!(github["command"], "npx");
    assert_eq!(github["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"], MASK);
    assert_eq!(github["env"]["LOG_LEVEL"], "info");
    assert_eq!(github["secretEnv"], json!(["GITHUB_PERSONAL_ACCESS_TOKEN"]));
    let remote = &report["imported"][1];
    assert_eq!(remote["transport"], "streamable_http");
    // Header values may carry credentials, so listings mask them all.
    assert_eq!(remote["headers"]["X-Team"], MASK);
    assert!(!report.to_string().contains("hunter2"), "{report}");

    let listed = listed(&api, &api.admin).await;
    assert_eq!(Value::from(listed.clone()), report["imported"]);
    assert!(!Value::from(listed).to_string().contains("hunter2"));
}

#[tokio::test]
async fn importing_again_skips_every_entry_as_a_conflict() {
    let api = start().await;
    let body = json!({"text": CLAUDE_DESKTOP});
    let (status, first) = import(&api, &api.admin, body.clone()).await;
    assert_eq!(status, StatusCode::OK, "{first}");

    let (status, again) = import(&api, &api.admin, body).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["imported"], json!([]), "{again}");
    let conflicts: Vec<&str> = again["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["code"] == "CONFLICT")
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(conflicts, ["github", "remote"], "{again}");

    assert_eq!(
        Value::from(listed(&api, &api.admin).await),
        first["imported"]
    );
}

#[tokio::test]
async fn a_file_that_does_not_parse_is_refused_whole() {
    let api = start().await;
    for text in [
        "{\"mcpServers\": {\"remote\": {\"url\": \"https://e.com/mcp\"}",
        "not json at all",
        "",
    ] {
        let (status, body) = import(&api, &api.admin, json!({"text": text})).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(
            body["message"].as_str().unwrap().contains("not valid JSON"),
            "{body}"
        );
    }

    let (status, body) = import(
        &api,
        &api.admin,
        json!({"text": r#"{"servers": [], "remote": {"url": "https://e.com/mcp"}}"#}),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(
        body["message"].as_str().unwrap().contains("mcpServers"),
        "{body}"
    );

    // A body that is not the request: the file given as an object, or unknown fields.
    for request in [
        json!({"text": {"mcpServers": {}}}),
        json!({"text": "{\"mcpServers\": {}}", "replace": true}),
        json!({}),
    ] {
        let (status, body) = import(&api, &api.admin, request).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }

    assert!(listed(&api, &api.admin).await.is_empty());
}

#[tokio::test]
async fn members_import_remote_servers_but_not_commands() {
    let api = start().await;
    let (status, report) = import(&api, &api.member, json!({"text": CLAUDE_DESKTOP})).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(names(&report["imported"]), ["remote"]);
    let github = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "github")
        .unwrap();
    assert_eq!(github["code"], "LAUNCH_NOT_ALLOWED", "{report}");
    assert!(
        github["message"].as_str().unwrap().contains("admin"),
        "{report}"
    );

    assert_eq!(
        names(&Value::from(listed(&api, &api.member).await)),
        ["remote"]
    );
    assert!(
        listed(&api, &api.admin).await.is_empty(),
        "only the caller's"
    );
}

#[tokio::test]
async fn only_the_named_entries_of_a_vs_code_file_are_imported() {
    let api = start().await;
    let text = r#"{
        // Workspace servers
        "servers": {
            "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
            "events": {"type": "sse", "url": "http://localhost:3001/sse"}, // trailing comma
        },
    }"#;
    let (status, report) = import(
        &api,
        &api.admin,
        json!({"text": text, "names": ["events", "missing"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["format"], "VS Code mcp.json");
    assert_eq!(names(&report["imported"]), ["events"]);
    assert_eq!(report["imported"][0]["transport"], "sse");
    assert_eq!(report["skipped"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["skipped"][0]["name"], "missing");
    assert_eq!(report["skipped"][0]["code"], "NOT_FOUND");
    assert_eq!(
        names(&Value::from(listed(&api, &api.admin).await)),
        ["events"]
    );
}

#[tokio::test]
async fn imports_need_a_token() {
    let api = start().await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/import/mcp-servers",
            None,
            Some(json!({"text": CLAUDE_DESKTOP})),
        )
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert!(listed(&api, &api.admin).await.is_empty());
    assert!(listed(&api, &api.member).await.is_empty());
}
