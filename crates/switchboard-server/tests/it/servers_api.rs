//! The MCP server routes through the real router on a real socket, with server-everything
//! over stdio behind them.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{assert_error, everything, start};
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn servers_are_created_tested_listed_and_deleted() {
    use reqwest::Method;
    let api = start().await;
    let admin = Some(api.admin.as_str());

    let mut server = everything();
    server["headers"] = json!({});
    server["env"]["API_TOKEN"] = json!("hunter2");
    server["secretEnv"] = json!(["API_TOKEN"]);
    server["autoApprovedTools"] = json!(["echo"]);
    let (status, created) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(server))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["id"], "everything");
    assert_eq!(created["env"]["API_TOKEN"], "********");

    let (status, listed) = api.send(Method::GET, "/api/mcp-servers", admin, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert!(!listed.to_string().contains("hunter2"));

    let (status, report) = api
        .send(
            Method::POST,
            "/api/mcp-servers/everything/test",
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{report}");
    let names: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");

    let (status, tools) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    let echo = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(echo["displayName"], "mcp__everything__echo");
    assert_eq!(echo["isEnabled"], true);
    assert_eq!(echo["isAutoApprove"], true);

    let (status, health) = api
        .send(
            Method::GET,
            "/api/mcp/servers/everything/health",
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{health}");
    assert_eq!(health["status"], "connected");

    let (status, _) = api
        .send(Method::DELETE, "/api/mcp-servers/everything", admin, None)
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = api
        .send(Method::GET, "/api/mcp-servers/everything", admin, None)
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn bad_requests_get_the_error_shape() {
    use reqwest::Method;
    let api = start().await;
    let admin = Some(api.admin.as_str());

    let (status, body) = api.send(Method::GET, "/api/mcp-servers", None, None).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, body) = api
        .send(Method::GET, "/api/mcp-servers", Some("sb_nope"), None)
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    let response = api
        .client
        .post(format!("{}/api/mcp-servers", api.base))
        .bearer_auth(&api.admin)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({"name": "x", "transport": "carrier-pigeon", "url": "https://e.com"})),
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::BAD_REQUEST,
        "UNSUPPORTED_TRANSPORT",
    );

    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({"name": "x", "transport": "sse", "url": "ftp://e.com"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    let (status, body) = api
        .send(Method::GET, "/api/mcp-servers/nope/health", admin, None)
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");

    let (status, listed) = api.send(Method::GET, "/api/mcp-servers", admin, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed, json!([]), "nothing was half-written");
}

#[tokio::test]
async fn members_cannot_run_commands_or_see_other_users_servers() {
    use reqwest::Method;
    let api = start().await;
    let member = Some(api.member.as_str());

    let (status, body) = api
        .send(Method::POST, "/api/mcp-servers", member, Some(everything()))
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "LAUNCH_NOT_ALLOWED");

    // A remote server is fine for a member.
    let (status, _) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            member,
            Some(json!({"name": "remote", "url": "https://example.com/mcp"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let (status, _) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(api.admin.as_str()),
            Some(everything()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    for (method, path) in [
        (Method::GET, "/api/mcp-servers/everything"),
        (Method::PUT, "/api/mcp-servers/everything"),
        (Method::DELETE, "/api/mcp-servers/everything"),
        (Method::POST, "/api/mcp-servers/everything/test"),
        (Method::GET, "/api/mcp-servers/everything/health"),
        (Method::GET, "/api/mcp-servers/everything/tools"),
    ] {
        let body =
            (method == Method::PUT).then(|| json!({"name": "mine", "url": "https://e.com/mcp"}));
        let (status, response) = api.send(method.clone(), path, member, body).await;
        assert_error(
            status,
            &response,
            StatusCode::NOT_FOUND,
            "MCP_SERVER_NOT_FOUND",
        );
    }
    let (_, still) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything",
            Some(api.admin.as_str()),
            None,
        )
        .await;
    assert_eq!(still["name"], "Everything", "unchanged");
}

#[tokio::test]
async fn tools_are_listed_called_and_proxied_with_flat_parameters() {
    use reqwest::Method;
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let (status, _) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(everything()))
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let (status, tools) = api.send(Method::GET, "/api/chat/tools", admin, None).await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["displayName"] == "mcp__everything__get-sum"),
        "{tools}"
    );
    // Each tool names its server once: a repeated key is kept by some JSON parsers and
    // refused by others.
    let raw = api
        .client
        .get(format!("{}/api/chat/tools", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        raw.matches("\"serverId\"").count(),
        tools.as_array().unwrap().len(),
        "{raw}"
    );

    let (status, result) = api
        .send(Method::POST, "/api/mcp/tools/call", admin, Some(json!({"server_id": "everything", "tool_name": "echo", "arguments": {"message": "hi"}})))
        .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["content"][0]["text"], "Echo: hi");

    // The proxy: the whole body is the arguments.
    let (status, result) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/get-sum/call",
            admin,
            Some(json!({"a": 2, "b": 40})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert!(result.to_string().contains("42"), "{result}");

    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/get-sum/call",
            admin,
            Some(json!({"a": "two"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "MCP_INVALID_PARAMS");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/nope/call",
            admin,
            Some(json!({})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_TOOL_NOT_FOUND");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/missing/tools/echo/call",
            admin,
            Some(json!({})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");

    // Disabling a tool hides it from calls; the flags show in the server's tools.
    let (status, _) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/everything/tools/echo",
            admin,
            Some(json!({"enabled": false, "autoApprove": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/echo/call",
            admin,
            Some(json!({"message": "x"})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_TOOL_NOT_FOUND");
    let (_, tools) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            admin,
            None,
        )
        .await;
    let echo = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(
        (echo["isEnabled"].clone(), echo["isAutoApprove"].clone()),
        (json!(false), json!(true))
    );

    // Another user reaches none of it.
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/get-sum/call",
            Some(api.member.as_str()),
            Some(json!({"a": 1, "b": 1})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn an_unreachable_server_is_502() {
    use reqwest::Method;
    let api = start().await;
    let admin = Some(api.admin.as_str());
    // Nothing listens on port 9 of loopback.
    let (status, _) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({"name": "gone", "url": "http://127.0.0.1:9/mcp"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, body) = api
        .send(Method::POST, "/api/mcp-servers/gone/test", admin, None)
        .await;
    assert_error(status, &body, StatusCode::BAD_GATEWAY, "MCP_UNREACHABLE");
    api.manager.shutdown().await;
}

/// Every key of `value`, at every depth, with an underscore (a snake_case name), outside the
/// maps whose keys are the user's own (`env`, `headers`).
fn snake_keys(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    if key.contains('_') {
                        out.push(key.clone());
                    }
                    if key != "env" && key != "headers" {
                        stack.push(inner);
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

/// A server is answered in camelCase, as the rest of the API is; a body in the snake_case
/// names of earlier versions is still read, and a read sent back as it is still saves.
#[tokio::test]
async fn servers_are_answered_in_camel_case_and_old_names_are_read() {
    use reqwest::Method;
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let (status, created) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({
                "name": "old", "transport": "stdio", "command": "notes-server",
                "env": {"NOTES_TOKEN": "t0k"}, "secret_env": ["NOTES_TOKEN"],
                "disabled_tools": ["delete_note"], "auto_approved_tools": ["read_note"],
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["secretEnv"], json!(["NOTES_TOKEN"]), "{created}");
    assert_eq!(
        created["disabledTools"],
        json!(["delete_note"]),
        "{created}"
    );
    assert_eq!(
        created["autoApprovedTools"],
        json!(["read_note"]),
        "{created}"
    );
    assert!(created["createdAt"].is_i64(), "{created}");
    assert_eq!(snake_keys(&created), Vec::<String>::new(), "{created}");

    let (status, oauth) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({
                "name": "wiki", "url": "https://wiki.example/mcp",
                "auth": {"type": "oauth", "client_id": "sb-wiki", "client_secret": "s3cret"},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{oauth}");
    assert_eq!(oauth["auth"]["clientId"], "sb-wiki", "{oauth}");
    assert_eq!(oauth["auth"]["clientSecret"], "********", "{oauth}");
    assert_eq!(snake_keys(&oauth), Vec::<String>::new(), "{oauth}");

    // What a client read, sent back as it is (times and masks included), saves.
    let (status, saved) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/wiki",
            admin,
            Some(oauth.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["auth"]["clientId"], "sb-wiki", "{saved}");

    let (_, listed) = api.send(Method::GET, "/api/mcp-servers", admin, None).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
    assert_eq!(snake_keys(&listed), Vec::<String>::new(), "{listed}");
}
