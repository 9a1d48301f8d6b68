//! A chat set up against server-everything and the scripted LLM.

use reqwest::{Method, StatusCode};
use serde_json::json;
use switchboard_testkit::ScriptedLlm;

use super::{Api, everything};

/// A provider pointing at `llm`, an everything server, an assistant using both, and a
/// conversation with it. Returns the conversation id.
pub async fn conversation_with_everything(api: &Api, llm: &ScriptedLlm) -> String {
    let admin = Some(api.admin.as_str());
    let (status, provider) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(json!({
                "name": "scripted",
                "kind": "openai",
                "baseUrl": llm.openai_base_url(),
                "apiKey": "sk-test-secret",
                "defaultModel": "scripted-model",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    assert_eq!(provider["apiKey"], "********");
    let (status, server) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(everything()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    let (status, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({
                "name": "Helper",
                "systemPrompt": "Be brief.",
                "providerId": provider["id"],
                "toolMode": "native",
                // Every tool on every request: the tests built on this chat count on it,
                // whatever servers they add (deferring has tests of its own).
                "toolExposure": "all",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    let assistant_id = assistant["id"].as_str().unwrap().to_owned();
    let (status, servers) = api
        .send(
            Method::PUT,
            &format!("/api/assistants/{assistant_id}/mcp-servers"),
            admin,
            Some(json!({"serverIds": ["everything"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{servers}");
    let (status, servers) = api
        .send(
            Method::GET,
            &format!("/api/assistants/{assistant_id}/mcp-servers"),
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(servers, json!({"serverIds": ["everything"]}));
    let (status, conversation) = api
        .send(
            Method::POST,
            "/api/conversations",
            admin,
            Some(json!({"title": "Echo", "assistantId": assistant_id})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{conversation}");
    conversation["id"].as_str().unwrap().to_owned()
}
