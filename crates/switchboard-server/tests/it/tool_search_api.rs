//! `GET /api/tools/search` and `GET /api/tools/cost` over HTTP: server-everything over stdio,
//! searched by words and by name, per person, following the per-tool switches.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{Api, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_testkit::Peers;

/// Adds server-everything for the admin; returns its id.
async fn everything(api: &Api) -> String {
    let command = Peers::locate().everything_stdio();
    let (status, server) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(api.admin.as_str()),
            Some(json!({
                "name": "everything",
                "transport": "stdio",
                "command": command.program,
                "args": command.args,
                "env": command.env.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{server}");
    server["id"].as_str().unwrap().to_owned()
}

async fn search(api: &Api, token: &str, query: &str) -> Vec<Value> {
    let path = format!("/api/tools/search?q={}&limit=5", urlencode(query));
    let (status, body) = api.send(Method::GET, &path, Some(token), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["results"].as_array().unwrap().clone()
}

fn urlencode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn names(results: &[Value]) -> Vec<&str> {
    results
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn tools_are_found_by_what_they_do_and_by_name_for_their_owner_only() {
    let api = start().await;
    let id = everything(&api).await;

    let found = search(&api, &api.admin, "add up two numbers").await;
    assert_eq!(found[0]["tool"], "get-sum", "{found:?}");
    assert_eq!(found[0]["server"], "everything");
    assert_eq!(found[0]["name"], format!("mcp__{id}__get-sum"));
    assert!(found[0]["score"].as_f64().unwrap() > 0.0);
    assert!(!found[0]["description"].as_str().unwrap().is_empty());

    // The exact name first, whatever the descriptions say.
    let found = search(&api, &api.admin, "echo").await;
    assert_eq!(found[0]["tool"], "echo", "{found:?}");
    let found = search(&api, &api.admin, "get-su").await;
    assert_eq!(found[0]["tool"], "get-sum", "a leading name: {found:?}");

    // Chinese words find the English tool.
    let found = search(&api, &api.admin, "把两个数字加起来求和").await;
    assert_eq!(found[0]["tool"], "get-sum", "{found:?}");

    // Another person finds none of it, and cannot name the admin's assistant.
    assert!(search(&api, &api.member, "echo").await.is_empty());
    let (status, assistant) = api
        .send(
            Method::POST,
            "/api/assistants",
            Some(api.admin.as_str()),
            Some(json!({"name": "Helper"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{assistant}");
    let path = format!(
        "/api/tools/search?q=echo&assistantId={}",
        assistant["id"].as_str().unwrap()
    );
    let (status, body) = api.send(Method::GET, &path, Some(&api.member), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

#[tokio::test]
async fn a_tool_switched_off_is_no_longer_found() {
    let api = start().await;
    let id = everything(&api).await;
    assert!(
        names(&search(&api, &api.admin, "get-sum").await)
            .contains(&format!("mcp__{id}__get-sum").as_str())
    );
    let (status, body) = api
        .send(
            Method::PUT,
            &format!("/api/mcp-servers/{id}/tools/get-sum"),
            Some(api.admin.as_str()),
            Some(json!({"enabled": false})),
        )
        .await;
    assert!(status.is_success(), "{status} {body}");
    let found = search(&api, &api.admin, "get-sum").await;
    assert!(found.iter().all(|r| r["tool"] != "get-sum"), "{found:?}");
}

#[tokio::test]
async fn a_search_without_words_finds_nothing_and_a_missing_query_is_refused() {
    let api = start().await;
    everything(&api).await;
    assert!(search(&api, &api.admin, "   ").await.is_empty());
    let (status, body) = api
        .send(Method::GET, "/api/tools/search", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["code"].is_string() && body["message"].is_string(),
        "{body}"
    );
}

#[tokio::test]
async fn the_cost_of_the_tools_is_told_per_server_with_what_deferring_saves() {
    let api = start().await;
    let id = everything(&api).await;
    let (status, cost) = api
        .send(Method::GET, "/api/tools/cost", Some(&api.admin), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{cost}");
    assert_eq!(cost["servers"][0]["serverId"], id.as_str(), "{cost}");
    let tools = cost["tools"].as_u64().unwrap();
    assert!(tools >= 5, "{cost}");
    assert_eq!(cost["servers"][0]["tools"], tools);
    let tokens = cost["tokens"].as_u64().unwrap();
    assert!(tokens > cost["deferredTokens"].as_u64().unwrap(), "{cost}");
    assert_eq!(cost["servers"][0]["tokens"], tokens);
    assert!(cost["defers"].is_boolean());
}
