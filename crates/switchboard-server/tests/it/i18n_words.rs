//! The errors the server words itself, and the lower layers' refusals that reach
//! users as 4xx answers, come out wholly in Chinese for `Accept-Language: zh-CN`: no
//! English word but the names and values the message quotes. One test per family: a
//! validation error on a server create, a launch refusal, a destination refusal, not
//! found, a quota, a conflict and a seed route's error. English stays as it was.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Config;
use common::{Api, assert_error, start, start_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_server::limits::Limits;

/// `body` sent as `token` in Chinese: the status and the error body.
async fn in_chinese(
    api: &Api,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = api
        .client
        .request(method, format!("{}{path}", api.base))
        .bearer_auth(token)
        .header("accept-language", "zh-CN");
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.json().await.unwrap())
}

/// The message of `body`, after checking it is Chinese with no English word of its own:
/// once the `quoted` names and values are taken out, no run of two ASCII letters is left.
fn wholly_chinese(body: &Value, quoted: &[&str]) -> String {
    let message = body["message"].as_str().unwrap().to_owned();
    assert!(
        message
            .chars()
            .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{body}"
    );
    let mut quoted = quoted.to_vec();
    quoted.sort_by_key(|name| std::cmp::Reverse(name.len()));
    let mut rest = message.clone();
    for name in quoted {
        rest = rest.replace(name, " ");
    }
    let mut run = 0;
    for c in rest.chars() {
        run = if c.is_ascii_alphabetic() { run + 1 } else { 0 };
        assert!(run < 2, "English left in {rest:?} of {body}");
    }
    message
}

#[tokio::test]
async fn a_server_that_breaks_a_rule_is_refused_in_chinese() {
    let api = start().await;
    let server = json!({"name": "f", "transport": "sse", "url": "ftp://example.com/mcp"});
    let (status, body) = in_chinese(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.admin,
        Some(server.clone()),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let message = wholly_chinese(&body, &["url", "http://", "https://", "URL", "ftp:"]);
    assert_eq!(
        message,
        "url 必须是以 http:// 或 https:// 开头的 URL，不能是 ftp: URL"
    );
    // English as before.
    let (_, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(server),
        )
        .await;
    assert_eq!(
        body["message"],
        "url must be an http:// or https:// URL, not a ftp: URL"
    );
}

#[tokio::test]
async fn a_launch_refusal_is_in_chinese() {
    let api = start().await;
    let server =
        json!({"name": "sh", "transport": "stdio", "command": "bash", "args": ["-c", "id"]});
    let (status, body) = in_chinese(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.member,
        Some(server),
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");
    let message = wholly_chinese(&body, &["stdio", "bash"]);
    assert_eq!(
        message,
        "成员不能启动此 stdio 服务器：`bash` 不是管理员允许的任何启动模板中的程序"
    );
}

#[tokio::test]
async fn a_destination_refusal_is_in_chinese() {
    let api = start().await;
    let server =
        json!({"name": "local", "transport": "streamable_http", "url": "http://127.0.0.1:9/mcp"});
    let (status, body) = in_chinese(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.member,
        Some(server),
    )
    .await;
    assert_error(
        status,
        &body,
        StatusCode::FORBIDDEN,
        "DESTINATION_NOT_ALLOWED",
    );
    let message = wholly_chinese(&body, &["127.0.0.1", "--allow-destination"]);
    assert!(message.starts_with("成员不能访问 `127.0.0.1`："), "{body}");
}

#[tokio::test]
async fn not_found_names_the_thing_in_chinese() {
    let api = start().await;
    let (status, body) = in_chinese(
        &api,
        Method::GET,
        "/api/conversations/none",
        &api.member,
        None,
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!(wholly_chinese(&body, &["none"]), "会话 \"none\" 不存在");
    let (status, body) = in_chinese(
        &api,
        Method::GET,
        "/api/mcp-servers/gone",
        &api.member,
        None,
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    assert_eq!(
        wholly_chinese(&body, &["MCP", "gone"]),
        "MCP 服务器 \"gone\" 不存在"
    );
    let (_, body) = api
        .send(
            Method::GET,
            "/api/conversations/none",
            Some(&api.member),
            None,
        )
        .await;
    assert_eq!(body["message"], "conversation \"none\" not found");
}

#[tokio::test]
async fn a_quota_is_in_chinese() {
    let api = start_with(Config {
        limits: Limits {
            max_servers: 1,
            ..Limits::default()
        },
        rules: switchboard_app::Rules {
            destinations: switchboard_core::DestinationRules::parse(["127.0.0.0/8"]).unwrap(),
            ..Default::default()
        },
        ..Config::default()
    })
    .await;
    let server = |name: &str| json!({"name": name, "transport": "streamable_http", "url": "http://127.0.0.1:9/mcp"});
    let (status, body) = in_chinese(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.member,
        Some(server("a")),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = in_chinese(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.member,
        Some(server("b")),
    )
    .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "QUOTA_EXCEEDED");
    assert_eq!(
        wholly_chinese(&body, &["MCP"]),
        "MCP 服务器数量已达上限（每位用户最多 1 个）；请先删除一个"
    );
}

#[tokio::test]
async fn a_conflict_is_in_chinese() {
    let api = start().await;
    let server = json!({"name": "dup", "transport": "stdio", "command": "true"});
    let (status, body) = in_chinese(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.admin,
        Some(server.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = in_chinese(
        &api,
        Method::POST,
        "/api/mcp-servers",
        &api.admin,
        Some(server),
    )
    .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
    assert_eq!(
        wholly_chinese(&body, &["MCP", "dup"]),
        "MCP 服务器 \"dup\" 已存在"
    );
}

#[tokio::test]
async fn a_seed_routes_error_is_in_chinese() {
    let api = start().await;
    // A `tool` action is refused before any server is looked up.
    let action = json!({
        "action_source": {"type": "tool", "box_id": "b1", "tool_id": "t1"},
        "parameters": {}
    });
    let path = "/api/agent-retrieval/in/v1/action-info";
    let (status, body) = in_chinese(&api, Method::POST, path, &api.admin, Some(action)).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let message = wholly_chinese(
        &body,
        &[
            "action_source.type",
            "box_id",
            "tool_id",
            "tool_name",
            "mcp_id",
            "tool",
            "type",
            "MCP",
            "mcp",
        ],
    );
    assert!(
        message.starts_with("不支持 action_source.type \"tool\""),
        "{body}"
    );
}

#[tokio::test]
async fn an_imports_skipped_entries_are_in_the_callers_language() {
    let api = start().await;
    let file = r#"{"mcpServers": {
        "old": {"url": "ftp://files.example.com/mcp"},
        "both": {"command": "x", "url": "https://mcp.example.com/mcp"}
    }}"#;
    let request = json!({"text": file});
    let path = "/api/import/mcp-servers";
    let (status, report) =
        in_chinese(&api, Method::POST, path, &api.admin, Some(request.clone())).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{report}");
    let message = |name: &str| {
        skipped
            .iter()
            .find(|s| s["name"] == name)
            .map(|s| s["message"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert_eq!(
        message("old"),
        "url 必须是以 http:// 或 https:// 开头的 URL，不能是 ftp: URL"
    );
    assert_eq!(
        message("both"),
        "它同时有 `command` 和 `url`；请设置 `type` 指明使用哪一个"
    );
    // Without a language, English as before.
    let (_, report) = api
        .send(Method::POST, path, Some(&api.admin), Some(request))
        .await;
    assert!(
        report["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["message"] == "url must be an http:// or https:// URL, not a ftp: URL"),
        "{report}"
    );
}
