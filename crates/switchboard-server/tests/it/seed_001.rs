//! Seed 001's contract through a real socket, in the seed's names: `/api/mcp-servers` written
//! with the `mcp_servers` columns (`type`, `base_url`, `is_active`, `auto_approve_tools`,
//! `disabled_tools`, `timeout` in seconds, `headers`, `command`, `args`, `env`) and read back
//! in them with `?format=seed001`; `disabled_tools` and `auto_approve_tools` honoured; and
//! the `tool.message.updated` event, with the seed's `ToolCallRecord`, beside every
//! `assistant.toolCall.updated` of a run.
//!
//! The seed names no provider, conversation or message routes, so the run is set up through
//! the house API.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeSet;

use common::sse::SseReader;
use common::{Api, assert_error, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::{Peers, ScriptedLlm, Turn};

/// The reference server in seed 001's columns.
fn everything_seed001() -> Value {
    let command = Peers::locate().everything_stdio();
    json!({
        "name": "everything",
        "type": "stdio",
        "command": command.program,
        "args": command.args,
        "env": command.env.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
        "is_active": true,
        "timeout": 30,
        "disabled_tools": ["get-sum"],
        "auto_approve_tools": ["echo"],
    })
}

/// Seed 001 cannot say which env variables are credentials: one whose name looks like a
/// credential is sealed and never answered, in either shape.
#[tokio::test]
async fn credential_env_variables_are_never_answered() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let (status, created) = api
        .send(
            Method::POST,
            "/api/mcp-servers?format=seed001",
            admin,
            Some(json!({
                "name": "gh",
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "some-server"],
                "env": {"GITHUB_TOKEN": "ghp_secret_value", "LOG_LEVEL": "debug"},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    for path in [
        "/api/mcp-servers?format=seed001",
        "/api/mcp-servers?format=columns",
        "/api/mcp-servers",
    ] {
        let (status, listed) = api.send(Method::GET, path, admin, None).await;
        assert_eq!(status, StatusCode::OK);
        assert!(!listed.to_string().contains("ghp_secret_value"), "{listed}");
        assert_eq!(listed[0]["env"]["LOG_LEVEL"], "debug", "{listed}");
    }
    // `columns` is the same shape as `seed001`.
    let (_, columns) = api
        .send(Method::GET, "/api/mcp-servers?format=columns", admin, None)
        .await;
    assert_eq!(columns[0]["type"], "stdio", "{columns}");
    assert_eq!(columns[0]["is_active"], true, "{columns}");
}

#[tokio::test]
async fn servers_are_written_and_read_in_the_seed_names() {
    let api = start().await;
    let admin = Some(api.admin.as_str());

    let (status, created) = api
        .send(
            Method::POST,
            "/api/mcp-servers?format=seed001",
            admin,
            Some(everything_seed001()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["type"], "stdio", "{created}");
    assert_eq!(created["is_active"], true);
    assert_eq!(created["timeout"], 30.0);
    assert_eq!(created["disabled_tools"], json!(["get-sum"]));
    assert_eq!(created["auto_approve_tools"], json!(["echo"]));
    assert!(created["args"].is_array());
    let id = created["id"].as_str().unwrap().to_owned();

    let (status, remote) = api
        .send(
            Method::POST,
            "/api/mcp-servers?format=seed001",
            admin,
            Some(json!({
                "name": "remote",
                "type": "streamableHttp",
                "base_url": "https://mcp.example.com/mcp",
                "headers": {"X-Team": "blue"},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{remote}");
    assert_eq!(remote["type"], "streamableHttp");
    assert_eq!(remote["base_url"], "https://mcp.example.com/mcp");
    // Header values may be secrets: masked in every answer.
    assert_eq!(remote["headers"]["X-Team"], "********");

    // Update in the seed's names: timeout in seconds, switched off.
    let mut changed = everything_seed001();
    changed["timeout"] = json!(45);
    changed["is_active"] = json!(false);
    let (status, updated) = api
        .send(
            Method::PUT,
            &format!("/api/mcp-servers/{id}?format=seed001"),
            admin,
            Some(changed),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["timeout"], 45.0);
    assert_eq!(updated["is_active"], false);

    let (status, one) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}?format=seed001"),
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (one["type"].clone(), one["is_active"].clone()),
        (json!("stdio"), json!(false))
    );
    let (status, list) = api
        .send(Method::GET, "/api/mcp-servers?format=seed001", admin, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let types: BTreeSet<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, BTreeSet::from(["stdio", "streamableHttp"]));

    // A type the seed does not have.
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(json!({"name": "ws", "type": "websocket", "base_url": "https://e.com/ws"})),
        )
        .await;
    assert_error(
        status,
        &body,
        StatusCode::BAD_REQUEST,
        "UNSUPPORTED_TRANSPORT",
    );
    api.manager.shutdown().await;
}

#[tokio::test]
async fn tool_message_updated_follows_each_tool_call_update_with_the_seed_record() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__echo", json!({"message": "hello"})),
        Turn::text("It said hello."),
    ])
    .await;
    let (status, server) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            admin,
            Some(everything_seed001()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");

    // `disabled_tools` and `auto_approve_tools` as the tool list shows them.
    let (status, tools) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tools}");
    let flags = |name: &str| {
        let tool = tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        (tool["isEnabled"].clone(), tool["isAutoApprove"].clone())
    };
    assert_eq!(flags("get-sum"), (json!(false), json!(false)));
    assert_eq!(flags("echo"), (json!(true), json!(true)));

    let conversation = house_conversation(&api, &llm).await;
    let response = api
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            api.base
        ))
        .bearer_auth(&api.admin)
        .header("accept", "text/event-stream")
        .json(&json!({"content": "Say hello"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut events = SseReader::new(response);
    let (_, seen) = events.until("message.completed").await;

    // Each update has its seed twin right after.
    let mut statuses = Vec::new();
    for (i, event) in seen.iter().enumerate() {
        if event.event != "assistant.toolCall.updated" {
            continue;
        }
        let twin = &seen[i + 1];
        assert_eq!(twin.event, "tool.message.updated", "{seen:#?}");
        assert_eq!(twin.data["messageId"], event.data["messageId"]);
        let record = &twin.data["toolCall"];
        let keys: BTreeSet<&str> = record
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let seed: BTreeSet<&str> = [
            "id",
            "serverId",
            "serverName",
            "toolName",
            "displayName",
            "arguments",
            "status",
            "response",
            "isError",
        ]
        .into();
        assert!(keys.is_subset(&seed), "{record}");
        assert_eq!(record["id"], event.data["toolCall"]["id"]);
        assert_eq!(record["serverId"], "everything");
        assert_eq!(record["toolName"], "echo");
        assert_eq!(record["displayName"], "mcp__everything__echo");
        assert_eq!(record["arguments"], json!({"message": "hello"}));
        statuses.push(record["status"].as_str().unwrap().to_owned());
        // Auto-approved: approved as it was announced, no decision asked for.
        assert_eq!(event.data["toolCall"]["approved"], true, "{event:?}");
        if record["status"] == "done" {
            assert!(record["response"].to_string().contains("hello"), "{record}");
        }
    }
    assert_eq!(statuses, ["pending", "invoking", "done"]);
    assert_eq!(
        statuses.last().map(String::as_str),
        Some("done"),
        "{statuses:?}"
    );
    api.manager.shutdown().await;
}

/// A provider on `llm`, an assistant with the `everything` server, a conversation with it.
async fn house_conversation(api: &Api, llm: &ScriptedLlm) -> String {
    let admin = Some(api.admin.as_str());
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
    let (_, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({"name": "a", "providerId": provider["id"]})),
        )
        .await;
    let assistant = assistant["id"].as_str().unwrap().to_owned();
    let (status, _) = api
        .send(
            Method::PUT,
            &format!("/api/assistants/{assistant}/mcp-servers"),
            admin,
            Some(json!({"serverIds": ["everything"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, conversation) = api
        .send(
            Method::POST,
            "/api/conversations",
            admin,
            Some(json!({"title": "t", "assistantId": assistant})),
        )
        .await;
    conversation["id"].as_str().unwrap().to_owned()
}
