//! `GET /metrics` in Prometheus (OpenMetrics) text: tool calls by server, tool and outcome, the
//! proxy's outcomes, LLM latency.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{everything, start};
use reqwest::{Method, StatusCode};
use serde_json::json;
use switchboard_testkit::{ScriptedLlm, Turn};

#[tokio::test]
async fn calls_and_model_requests_are_counted() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![Turn::text("Hi.")]).await;
    let admin = Some(api.admin.as_str());
    api.send(Method::POST, "/api/mcp-servers", admin, Some(everything()))
        .await;
    let (status, _) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/echo/call",
            admin,
            Some(json!({"message": "hello"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = api
        .send(
            Method::POST,
            "/api/mcp/proxy/everything/tools/nope/call",
            admin,
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    api.send(
        Method::POST,
        "/api/providers",
        admin,
        Some(
            json!({"name": "p", "kind": "openai", "baseUrl": llm.openai_base_url(),
                    "apiKey": "k", "defaultModel": "m"}),
        ),
    )
    .await;
    let (_, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({"message": "hi"})),
        )
        .await;
    assert_eq!(answer["status"], "completed", "{answer}");

    let response = api
        .client
        .get(format!("{}/metrics", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text"),
    );
    let text = response.text().await.unwrap();
    for line in [
        r#"switchboard_tool_calls_total{server="everything",tool="echo",outcome="ok"} 1"#,
        r#"switchboard_tool_call_duration_seconds_count{server="everything",tool="echo"} 1"#,
        r#"switchboard_proxy_requests_total{outcome="ok"} 1"#,
        r#"switchboard_proxy_requests_total{outcome="error"} 1"#,
        r#"switchboard_llm_request_duration_seconds_count{provider="openai",outcome="ok"} 1"#,
    ] {
        assert!(text.contains(line), "{line} missing from:\n{text}");
    }
    assert!(text.ends_with("# EOF\n"));
    assert!(!text.contains(&api.admin));
}
