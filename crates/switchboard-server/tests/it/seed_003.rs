//! Seed 003's contract through a real socket, with only the seed's paths and field names:
//! action recall of an MCP tool (`POST /api/agent-retrieval/in/v1/action-info` answering
//! `KnDynamicTool`), the proxy at `/api/agent-retrieval/in/v1/mcp/proxy/{mcp_id}/tools/
//! {tool_name}/call`, a tool's detail (`GET /api/mcp/servers/{id}/tools/{tool}`,
//! `GetMCPToolDetailResponse`), the error mapping of section 7.3 and the metrics of section
//! 9.3.
//!
//! The seed names no way to register a server, so each test registers the reference
//! `everything` server (its id is `everything`) through the house API first.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Config;
use common::{Api, assert_error, everything, start, start_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const RECALL: &str = "/api/agent-retrieval/in/v1/action-info";
const PROXY: &str = "/api/agent-retrieval/in/v1/mcp/proxy";

async fn with_everything(api: &Api) {
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(api.admin.as_str()),
            Some(everything()),
        )
        .await;
    assert!(status.is_success(), "{status} {body}");
}

fn mcp_action(mcp_id: &str, tool_name: &str, fixed: Value) -> Value {
    json!({
        "action_source": {"type": "mcp", "mcp_id": mcp_id, "tool_name": tool_name},
        "parameters": fixed,
    })
}

#[tokio::test]
async fn a_recalled_action_is_called_at_its_api_url_with_the_fixed_params_merged() {
    let api = start().await;
    with_everything(&api).await;
    let admin = Some(api.admin.as_str());

    let (status, action) = api
        .send(
            Method::POST,
            RECALL,
            admin,
            Some(mcp_action("everything", "get-sum", json!({"a": 2}))),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{action}");
    assert_eq!(action["name"], "get-sum", "{action}");
    assert!(
        action["description"]
            .as_str()
            .is_some_and(|d| !d.is_empty())
    );
    // The fixed parameter is taken out of the schema the model sees.
    let parameters = &action["parameters"];
    assert_eq!(parameters["type"], "object", "{parameters}");
    assert!(parameters["properties"].get("a").is_none(), "{parameters}");
    assert!(parameters["properties"].get("b").is_some(), "{parameters}");
    let required = parameters["required"].as_array().unwrap();
    assert!(!required.contains(&json!("a")), "{parameters}");
    assert_eq!(action["fixed_params"], json!({"a": 2}));
    let api_url = action["api_url"].as_str().unwrap();
    assert_eq!(
        api_url,
        format!(
            "{}/api/agent-retrieval/in/v1/mcp/proxy/everything/tools/get-sum/call",
            api.base
        )
    );

    // What a caller does with it: the model's arguments, the fixed ones merged in, POSTed to
    // `api_url` with the same token.
    let mut arguments = json!({"b": 40});
    for (name, value) in action["fixed_params"].as_object().unwrap() {
        arguments[name] = value.clone();
    }
    let response = api
        .client
        .post(api_url)
        .bearer_auth(&api.admin)
        .json(&arguments)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let result: Value = response.json().await.unwrap();
    assert!(result.to_string().contains("42"), "{result}");

    // Another dialect converts the same schema its own way, still without `a`.
    let mut request = mcp_action("everything", "get-sum", json!({"a": 2}));
    request["dialect"] = json!("gemini");
    let (status, action) = api.send(Method::POST, RECALL, admin, Some(request)).await;
    assert_eq!(status, StatusCode::OK, "{action}");
    assert!(
        action["parameters"]["properties"].get("a").is_none(),
        "{action}"
    );
    api.manager.shutdown().await;
}

#[tokio::test]
async fn the_api_url_is_built_from_the_public_url() {
    let mut config = Config::default();
    config.server.guard.public_urls = vec!["https://switchboard.example.com/sb/".parse().unwrap()];
    let api = start_with(config).await;
    with_everything(&api).await;
    let (status, action) = api
        .send(
            Method::POST,
            RECALL,
            Some(api.admin.as_str()),
            Some(mcp_action("everything", "echo", json!({}))),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{action}");
    assert_eq!(
        action["api_url"],
        "https://switchboard.example.com/sb/api/agent-retrieval/in/v1/mcp/proxy/everything/tools/echo/call"
    );
    assert_eq!(action["fixed_params"], json!({}));
    assert!(action["parameters"]["properties"].get("message").is_some());
    api.manager.shutdown().await;
}

#[tokio::test]
async fn the_proxy_at_the_seed_path_and_a_tool_detail() {
    let api = start().await;
    with_everything(&api).await;
    let admin = Some(api.admin.as_str());

    let (status, result) = api
        .send(
            Method::POST,
            &format!("{PROXY}/everything/tools/get-sum/call"),
            admin,
            Some(json!({"a": 1, "b": 2})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert!(result.to_string().contains('3'), "{result}");
    let (status, body) = api
        .send(
            Method::POST,
            &format!("{PROXY}/everything/tools/get-sum/call"),
            admin,
            Some(json!({"a": "one"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "MCP_INVALID_PARAMS");
    let (status, body) = api
        .send(
            Method::POST,
            &format!("{PROXY}/everything/tools/nope/call"),
            admin,
            Some(json!({})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_TOOL_NOT_FOUND");
    // Without the token, nothing.
    let (status, body) = api
        .send(
            Method::POST,
            &format!("{PROXY}/everything/tools/get-sum/call"),
            None,
            Some(json!({"a": 1, "b": 2})),
        )
        .await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    let (status, detail) = api
        .send(
            Method::GET,
            "/api/mcp/servers/everything/tools/get-sum",
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    assert_eq!(detail["name"], "get-sum");
    assert!(
        detail["description"]
            .as_str()
            .is_some_and(|d| !d.is_empty())
    );
    assert!(
        detail["inputSchema"]["properties"]["a"].is_object(),
        "{detail}"
    );
    assert!(detail["annotations"].is_object(), "{detail}");
    let (status, body) = api
        .send(
            Method::GET,
            "/api/mcp/servers/everything/tools/nope",
            admin,
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_TOOL_NOT_FOUND");
    let (status, body) = api
        .send(
            Method::GET,
            "/api/mcp/servers/missing/tools/echo",
            admin,
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    // Another user's server is not found.
    let (status, body) = api
        .send(
            Method::GET,
            "/api/mcp/servers/everything/tools/get-sum",
            Some(api.member.as_str()),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    api.manager.shutdown().await;
}

#[tokio::test]
async fn recall_errors_are_mapped_as_section_7_3_says() {
    let api = start().await;
    with_everything(&api).await;
    let admin = Some(api.admin.as_str());
    let recall = |body: Value| api.send(Method::POST, RECALL, admin, Some(body));

    // `tool` actions are another service's.
    let (status, body) = recall(json!({
        "action_source": {"type": "tool", "box_id": "b1", "tool_id": "t1"},
        "parameters": {}
    }))
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(body["message"].as_str().unwrap().contains("tool"), "{body}");
    // A tool that does not exist: 404.
    let (status, body) = recall(mcp_action("everything", "nope", json!({}))).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_TOOL_NOT_FOUND");
    let (status, body) = recall(mcp_action("missing", "echo", json!({}))).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");
    // Parameter check failed: 400.
    let (status, body) = recall(mcp_action("everything", "echo", json!({"nope": 1}))).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "MCP_INVALID_PARAMS");
    let mut request = mcp_action("everything", "echo", json!({}));
    request["dialect"] = json!("klingon");
    let (status, body) = recall(request).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    // The MCP service is unavailable: 502.
    let port = switchboard_testkit::canned_http::closed_port().await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({"name": "down", "url": format!("http://127.0.0.1:{port}/mcp")})),
        )
        .await;
    assert!(status.is_success(), "{status} {body}");
    let id = body["id"].as_str().unwrap().to_owned();
    let (status, body) = recall(mcp_action(&id, "echo", json!({}))).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(body["code"], "MCP_UNREACHABLE", "{body}");
    api.manager.shutdown().await;
}

fn line_value(text: &str, prefix: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("{prefix} missing from:\n{text}"))
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn both_proxy_paths_and_recalls_are_measured() {
    let api = start().await;
    with_everything(&api).await;
    let admin = Some(api.admin.as_str());
    for (path, body) in [
        (
            format!("{PROXY}/everything/tools/echo/call"),
            json!({"message": "a"}),
        ),
        (
            "/api/mcp/proxy/everything/tools/echo/call".to_owned(),
            json!({"message": "b"}),
        ),
        (format!("{PROXY}/everything/tools/nope/call"), json!({})),
    ] {
        api.send(Method::POST, &path, admin, Some(body)).await;
    }
    let (status, _) = api
        .send(
            Method::POST,
            RECALL,
            admin,
            Some(mcp_action("everything", "echo", json!({}))),
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    let response = api
        .client
        .get(format!("{}/metrics", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    // The error rate: errors over all requests, by outcome, and which codes.
    let ok = line_value(&text, r#"switchboard_proxy_requests_total{outcome="ok"} "#);
    let errors = line_value(
        &text,
        r#"switchboard_proxy_requests_total{outcome="error"} "#,
    );
    assert_eq!((ok, errors), (2.0, 1.0), "{text}");
    let by_code = line_value(
        &text,
        r#"switchboard_proxy_errors_total{code="MCP_TOOL_NOT_FOUND"} "#,
    );
    assert_eq!(by_code, 1.0);
    // The latency histogram, with buckets around 3 s for its p99.
    let count = line_value(
        &text,
        r#"switchboard_proxy_request_duration_seconds_count{outcome="ok"} "#,
    );
    assert_eq!(count, 2.0);
    for le in ["2.5", "3.0", "3.5"] {
        assert!(
            text.contains(&format!(
                r#"switchboard_proxy_request_duration_seconds_bucket{{le="{le}",outcome="ok"}} 2"#
            )),
            "bucket {le} missing:\n{text}"
        );
    }
    // Schema conversions: attempts, so that failures are a rate.
    let attempts = line_value(
        &text,
        r#"switchboard_schema_conversions_total{source="action_recall"} "#,
    );
    assert_eq!(attempts, 1.0);
    api.manager.shutdown().await;
}
