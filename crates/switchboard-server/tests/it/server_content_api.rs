//! A server's resources and prompts through the API, against server-everything
//! over stdio: resources and templates listed, one read, an unknown one 404; prompts listed
//! and one got with its arguments; another person's server is not found.

#![allow(clippy::unwrap_used)]

use crate::common;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use common::assert_error;

#[tokio::test]
async fn resources_and_prompts_of_a_server_are_listed_read_and_got() {
    let api = common::start().await;
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(common::everything()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();

    let (status, listed) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}/resources"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let resources = listed["resources"].as_array().unwrap();
    assert!(!resources.is_empty(), "{listed}");
    assert!(
        !listed["templates"].as_array().unwrap().is_empty(),
        "{listed}"
    );
    let uri = resources[0]["uri"].as_str().unwrap();

    let mut read =
        url::Url::parse(&format!("{}/api/mcp-servers/{id}/resources/read", api.base)).unwrap();
    read.query_pairs_mut().append_pair("uri", uri);
    let path = &read.as_str()[api.base.len()..];
    let (status, contents) = api.send(Method::GET, path, Some(&api.admin), None).await;
    assert_eq!(status, StatusCode::OK, "{contents}");
    assert_eq!(contents["contents"][0]["uri"], uri, "{contents}");

    let mut missing =
        url::Url::parse(&format!("{}/api/mcp-servers/{id}/resources/read", api.base)).unwrap();
    missing
        .query_pairs_mut()
        .append_pair("uri", "demo://resource/static/document/no-such-thing.md");
    let path = &missing.as_str()[api.base.len()..];
    let (status, body) = api.send(Method::GET, path, Some(&api.admin), None).await;
    assert!(
        status == StatusCode::NOT_FOUND || status == StatusCode::BAD_REQUEST,
        "{status} {body}"
    );

    let (status, prompts) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}/prompts"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{prompts}");
    let with_arguments = prompts
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["arguments"]
                .as_array()
                .is_some_and(|a| a.iter().any(|a| a["required"] == true))
        })
        .unwrap_or_else(|| panic!("a prompt with a required argument: {prompts}"));
    let name = with_arguments["name"].as_str().unwrap();
    let arguments: serde_json::Map<String, Value> = with_arguments["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap().to_owned(), json!("Paris")))
        .collect();
    let (status, got) = api
        .send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/prompts/{name}"),
            Some(&api.admin),
            Some(json!({ "arguments": arguments })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{got}");
    assert!(!got["messages"].as_array().unwrap().is_empty(), "{got}");
    assert!(got.to_string().contains("Paris"), "{got}");

    // Another person's server is not found, on every route.
    for (method, path) in [
        (Method::GET, format!("/api/mcp-servers/{id}/resources")),
        (Method::GET, format!("/api/mcp-servers/{id}/prompts")),
        (
            Method::POST,
            format!("/api/mcp-servers/{id}/prompts/{name}"),
        ),
    ] {
        let body = (method == Method::POST).then(|| json!({}));
        let (status, answer) = api.send(method, &path, Some(&api.member), body).await;
        assert_error(
            status,
            &answer,
            StatusCode::NOT_FOUND,
            "MCP_SERVER_NOT_FOUND",
        );
    }
}

async fn call(api: &common::Api, id: &str, tool: &str) -> Value {
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp/tools/call",
            Some(&api.admin),
            Some(json!({"serverId": id, "toolName": tool})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// Roots are given to the server and edited without a restart (the server is told); what it
/// logs is read back from `/logs`, and only by its owner.
#[tokio::test]
async fn roots_are_edited_in_place_and_a_servers_log_is_read_back() {
    let api = common::start().await;
    let mut body = common::everything();
    body["roots"] = json!(["/srv/notes"]);
    let (status, created) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(body.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["roots"], json!(["/srv/notes"]));
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(
        call(&api, &id, "get-roots-list")
            .await
            .to_string()
            .contains("file:///srv/notes")
    );
    let owner = api
        .store
        .user_by_token(&api.admin)
        .await
        .unwrap()
        .unwrap()
        .id;
    let group = api
        .manager
        .process_group(&owner, &switchboard_core::ServerId(id.clone()));
    assert!(group.is_some());

    body["roots"] = json!(["/srv/other"]);
    let (status, replaced) = api
        .send(
            Method::PUT,
            &format!("/api/mcp-servers/{id}"),
            Some(&api.admin),
            Some(body),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{replaced}");
    let mut seen = Value::Null;
    for _ in 0..200 {
        seen = call(&api, &id, "get-roots-list").await;
        if seen.to_string().contains("file:///srv/other") {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(seen.to_string().contains("file:///srv/other"), "{seen}");
    assert_eq!(
        api.manager
            .process_group(&owner, &switchboard_core::ServerId(id.clone())),
        group,
        "the same process"
    );

    // A root that is not absolute is refused, naming it.
    let mut bad = common::everything();
    bad["name"] = json!("bad");
    bad["roots"] = json!(["relative"]);
    let (status, refused) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(bad),
        )
        .await;
    assert_error(
        status,
        &refused,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert!(
        refused["message"].as_str().unwrap().contains("roots[0]"),
        "{refused}"
    );

    call(&api, &id, "toggle-simulated-logging").await;
    let mut lines = Value::Null;
    for _ in 0..500 {
        let (status, answer) = api
            .send(
                Method::GET,
                &format!("/api/mcp-servers/{id}/logs"),
                Some(&api.admin),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        lines = answer;
        if lines.as_array().is_some_and(|l| {
            l.iter()
                .any(|l| l["text"].as_str().is_some_and(|t| t.contains("message")))
        }) {
            break;
        }
        tokio::task::yield_now().await;
    }
    // The simulated line, and what server-everything logs of the roots it was given.
    let all = lines.as_array().unwrap();
    assert!(
        all.iter()
            .any(|l| l["text"].as_str().unwrap().contains("message")),
        "{lines}"
    );
    assert!(
        all.iter()
            .any(|l| l["text"].as_str().unwrap().contains("Roots updated")),
        "{lines}"
    );
    for line in all {
        assert!(line["level"].is_string() && line["at"].is_u64(), "{lines}");
    }
    let (status, answer) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}/logs"),
            Some(&api.member),
            None,
        )
        .await;
    assert_error(
        status,
        &answer,
        StatusCode::NOT_FOUND,
        "MCP_SERVER_NOT_FOUND",
    );
}
