//! Hundreds of real tools in a chat over HTTP: the 22 servers of the tool catalog (409 tools
//! of GitHub's, Playwright's, the reference servers and others, served over stdio by the
//! catalog server), an assistant whose tools are deferred past the budget, and the scripted
//! LLM behind a stored provider. The model is shown only its pinned tools and `search_tools`,
//! searches, is shown the tool it found with its schema, and calls it; a server's
//! `list_changed` adds a tool to the search and takes it away again.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{Api, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::catalog::{self, CatalogLaunch};
use switchboard_testkit::{Peers, ScriptedLlm, Turn};

/// The names of the functions request `index` offered.
fn offered(llm: &ScriptedLlm, index: usize) -> Vec<String> {
    llm.requests()[index].body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// Adds the catalog's servers for the admin (the memory server with its control tool and
/// `read_graph` hidden), a provider for `llm`, and an assistant over all of them with
/// `get_current_time` pinned; returns a conversation with it.
async fn set_up(api: &Api, llm: &ScriptedLlm) -> String {
    let admin = Some(api.admin.as_str());
    let servers = catalog::load().unwrap();
    let launches: Vec<CatalogLaunch> = servers
        .iter()
        .map(|server| {
            let mut launch = CatalogLaunch::of(server);
            if server.server == "memory" {
                launch.control = true;
                launch.hidden = vec!["read_graph".into()];
            }
            launch
        })
        .collect();
    let ids = catalog::add_servers(
        &api.client,
        &api.base,
        &api.admin,
        &Peers::locate(),
        &launches,
    )
    .await
    .unwrap();
    let (status, body) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/github/tools/create_pull_request",
            admin,
            Some(json!({"autoApprove": true})),
        )
        .await;
    assert!(status.is_success(), "{status} {body}");
    let (status, provider) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(json!({
                "name": "scripted", "kind": "openai", "baseUrl": llm.openai_base_url(),
                "apiKey": "sk-test", "defaultModel": "scripted-model",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{provider}");
    let (status, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({
                "name": "Everything at once",
                "providerId": provider["id"],
                "pinnedTools": [{"serverId": "time", "tool": "get_current_time"}],
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    assert_eq!(assistant["toolExposure"], "auto");
    let id = assistant["id"].as_str().unwrap();
    let (status, body) = api
        .send(
            Method::PUT,
            &format!("/api/assistants/{id}/mcp-servers"),
            admin,
            Some(json!({"serverIds": ids})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, cost) = api
        .send(
            Method::GET,
            &format!("/api/tools/cost?assistantId={id}"),
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{cost}");
    assert!(cost["tools"].as_u64().unwrap() > 400, "{cost}");
    assert_eq!(cost["defers"], true, "{cost}");
    let (status, conversation) = api
        .send(
            Method::POST,
            "/api/conversations",
            admin,
            Some(json!({"title": "Many tools", "assistantId": id})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{conversation}");
    conversation["id"].as_str().unwrap().to_owned()
}

async fn say(api: &Api, conversation: &str, text: &str) -> Value {
    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            Some(&api.admin),
            Some(json!({"message": text, "conversationId": conversation})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

async fn search(api: &Api, query: &str) -> Vec<String> {
    let path = format!("/api/tools/search?q={}&limit=3", query.replace(' ', "+"));
    let (status, body) = api.send(Method::GET, &path, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_model_with_four_hundred_tools_searches_loads_and_calls_the_right_one() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("search_tools", json!({"query": "open a pull request"})),
        Turn::tool_call(
            "mcp__github__create_pull_request",
            json!({"owner": "acme", "repo": "api", "title": "Fix login", "head": "fix", "base": "main"}),
        ),
        Turn::text("Opened."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;
    say(
        &api,
        &conversation,
        "Open a PR from fix into main in acme/api.",
    )
    .await;

    // First request: the pinned tool and the search, nothing else of the 409.
    assert_eq!(
        offered(&llm, 0),
        ["mcp__time__get_current_time", "search_tools"]
    );
    // Second: the tool found, with its schema.
    let second = offered(&llm, 1);
    assert!(
        second.contains(&"mcp__github__create_pull_request".to_owned()),
        "{second:?}"
    );
    assert!(second.len() <= 2 + 5, "{second:?}");
    let schema = llm.requests()[1].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "mcp__github__create_pull_request")
        .unwrap()["function"]["parameters"]
        .clone();
    assert!(schema["properties"]["head"].is_object(), "{schema}");

    let (status, history) = api
        .send(
            Method::GET,
            &format!("/api/chat/conversations/{conversation}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let calls = history["messages"][1]["toolCalls"].as_array().unwrap();
    assert_eq!(calls[0]["toolName"], "search_tools");
    assert_eq!(calls[0]["status"], "done");
    assert_eq!(calls[1]["toolName"], "create_pull_request");
    assert_eq!(calls[1]["status"], "done", "{}", calls[1]);
    assert!(
        calls[1]["response"].to_string().contains("Fix login"),
        "{}",
        calls[1]
    );
}

#[tokio::test]
async fn a_list_change_adds_a_tool_to_the_search_and_takes_it_away() {
    let api = start().await;
    let llm = ScriptedLlm::start(Vec::new()).await;
    set_up(&api, &llm).await;
    let wanted = "mcp__memory__read_graph".to_owned();
    assert!(!search(&api, "read_graph").await.contains(&wanted));
    for shown in [true, false] {
        let (status, body) = api
            .send(
                Method::POST,
                "/api/mcp/tools/call",
                Some(&api.admin),
                Some(json!({"serverId": "memory", "toolName": "catalog_toggle",
                    "arguments": {"tool": "read_graph"}})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(search(&api, "read_graph").await.contains(&wanted), shown);
    }
}
