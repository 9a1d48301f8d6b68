//! Isolation: for every route that takes an id, another user's token gets 404 (never 403,
//! which would confirm the thing exists) and changes nothing.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{assert_error, everything, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::{ScriptedLlm, Turn};

#[tokio::test]
async fn another_users_ids_are_not_found_and_nothing_changes() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![Turn::text("Hi.")]).await;
    let admin = Some(api.admin.as_str());
    let member = Some(api.member.as_str());

    // The admin's things.
    let (_, server) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(everything()))
        .await;
    let (_, provider) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(
                json!({"name": "p", "kind": "openai", "baseUrl": llm.openai_base_url(),
                        "apiKey": "k", "defaultModel": "m"}),
            ),
        )
        .await;
    let provider = provider["id"].as_str().unwrap().to_owned();
    let (_, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({"name": "a", "providerId": provider})),
        )
        .await;
    let assistant = assistant["id"].as_str().unwrap().to_owned();
    let (_, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({"message": "hello"})),
        )
        .await;
    assert_eq!(answer["status"], "completed", "{answer}");
    let conversation = answer["conversationId"].as_str().unwrap().to_owned();
    let message = answer["message"]["id"].as_str().unwrap().to_owned();
    let server = server["id"].as_str().unwrap().to_owned();

    let paths = [
        format!("/api/mcp-servers/{server}"),
        format!("/api/providers/{provider}"),
        format!("/api/assistants/{assistant}"),
        format!("/api/conversations/{conversation}"),
    ];
    let before = snapshot(&api, &paths).await;

    let requests: Vec<(Method, String, Option<Value>)> = vec![
        (Method::GET, format!("/api/mcp-servers/{server}"), None),
        (
            Method::PUT,
            format!("/api/mcp-servers/{server}"),
            Some(json!({"name": "x", "url": "http://127.0.0.1:1/mcp"})),
        ),
        (Method::DELETE, format!("/api/mcp-servers/{server}"), None),
        (
            Method::POST,
            format!("/api/mcp-servers/{server}/test"),
            None,
        ),
        (
            Method::POST,
            format!("/api/mcp/servers/{server}/test"),
            None,
        ),
        (
            Method::GET,
            format!("/api/mcp-servers/{server}/health"),
            None,
        ),
        (
            Method::GET,
            format!("/api/mcp/servers/{server}/health"),
            None,
        ),
        (
            Method::GET,
            format!("/api/mcp-servers/{server}/tools"),
            None,
        ),
        (
            Method::PUT,
            format!("/api/mcp-servers/{server}/tools/echo"),
            Some(json!({"enabled": false})),
        ),
        (
            Method::POST,
            "/api/mcp/tools/call".to_owned(),
            Some(json!({"server_id": server, "tool_name": "echo", "arguments": {"message": "x"}})),
        ),
        (
            Method::POST,
            format!("/api/mcp/proxy/{server}/tools/echo/call"),
            Some(json!({"message": "x"})),
        ),
        (Method::GET, format!("/api/providers/{provider}"), None),
        (
            Method::PUT,
            format!("/api/providers/{provider}"),
            Some(json!({"name": "p", "kind": "openai", "defaultModel": "m2"})),
        ),
        (Method::DELETE, format!("/api/providers/{provider}"), None),
        (Method::GET, format!("/api/assistants/{assistant}"), None),
        (
            Method::PUT,
            format!("/api/assistants/{assistant}"),
            Some(json!({"name": "stolen"})),
        ),
        (Method::DELETE, format!("/api/assistants/{assistant}"), None),
        (
            Method::GET,
            format!("/api/assistants/{assistant}/mcp-servers"),
            None,
        ),
        (
            Method::PUT,
            format!("/api/assistants/{assistant}/mcp-servers"),
            Some(json!({"serverIds": []})),
        ),
        (
            Method::POST,
            "/api/conversations".to_owned(),
            Some(json!({"assistantId": assistant})),
        ),
        (
            Method::GET,
            format!("/api/conversations/{conversation}"),
            None,
        ),
        (
            Method::GET,
            format!("/api/chat/conversations/{conversation}"),
            None,
        ),
        (
            Method::PATCH,
            format!("/api/conversations/{conversation}"),
            Some(json!({"title": "stolen"})),
        ),
        (
            Method::DELETE,
            format!("/api/conversations/{conversation}"),
            None,
        ),
        (
            Method::POST,
            format!("/api/conversations/{conversation}/cancel"),
            None,
        ),
        (
            Method::GET,
            format!("/api/conversations/{conversation}/messages"),
            None,
        ),
        (
            Method::POST,
            format!("/api/conversations/{conversation}/messages"),
            Some(json!({"content": "x"})),
        ),
        (
            Method::POST,
            "/api/chat/message".to_owned(),
            Some(json!({"message": "x", "conversationId": conversation})),
        ),
        (
            Method::POST,
            format!("/api/messages/{message}/tool-confirm"),
            Some(json!({"toolCallId": "c", "approved": true})),
        ),
    ];
    for (method, path, body) in requests {
        let (status, answer) = api.send(method.clone(), &path, member, body).await;
        assert_eq!(
            status,
            StatusCode::NOT_FOUND,
            "{method} {path} as another user: {answer}"
        );
        assert_error(
            status,
            &answer,
            StatusCode::NOT_FOUND,
            answer["code"].as_str().unwrap(),
        );
        let code = answer["code"].as_str().unwrap();
        assert!(
            ["NOT_FOUND", "MCP_SERVER_NOT_FOUND"].contains(&code),
            "{method} {path}: {answer}"
        );
    }

    // The member's own assistant cannot be given the admin's server either.
    let (_, own) = api
        .send(
            Method::POST,
            "/api/assistants",
            member,
            Some(json!({"name": "mine"})),
        )
        .await;
    let (status, answer) = api
        .send(
            Method::PUT,
            &format!(
                "/api/assistants/{}/mcp-servers",
                own["id"].as_str().unwrap()
            ),
            member,
            Some(json!({"serverIds": [server]})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");

    // The member's lists hold none of the admin's things.
    for path in [
        "/api/mcp-servers",
        "/api/providers",
        "/api/conversations",
        "/api/chat/tools",
    ] {
        let (status, listed) = api.send(Method::GET, path, member, None).await;
        assert_eq!(status, StatusCode::OK, "{path}: {listed}");
        assert!(
            !listed.to_string().contains(&server)
                || path == "/api/chat/tools" && listed == json!([]),
            "{path}: {listed}"
        );
        assert!(!listed.to_string().contains(&provider), "{path}: {listed}");
        assert!(
            !listed.to_string().contains(&conversation),
            "{path}: {listed}"
        );
    }

    assert_eq!(
        snapshot(&api, &paths).await,
        before,
        "another user changed something"
    );
    assert_eq!(
        llm.requests().len(),
        1,
        "another user's message reached the model"
    );
}

async fn snapshot(api: &common::Api, paths: &[String]) -> Vec<Value> {
    let mut all = Vec::new();
    for path in paths {
        let (status, body) = api.send(Method::GET, path, Some(&api.admin), None).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        all.push(body);
    }
    all
}
