//! Providers, assistants and conversations: each route's success path and its documented
//! errors, through the real router on a real socket.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{assert_error, everything, start};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn providers_are_created_read_updated_and_deleted_with_keys_masked() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    // No provider yet: the chat page says so before anything is sent.
    let (_, me) = api.send(Method::GET, "/api/me", admin, None).await;
    assert_eq!(me["providerConfigured"], false, "{me}");
    let (status, created) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(json!({"name": "openai", "kind": "openai", "apiKey": "sk-live-1", "defaultModel": "gpt"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["apiKey"], "********");
    let (_, me) = api.send(Method::GET, "/api/me", admin, None).await;
    assert_eq!(me["providerConfigured"], true, "{me}");
    // Another person's provider is not theirs.
    let (_, me) = api
        .send(Method::GET, "/api/me", Some(api.member.as_str()), None)
        .await;
    assert_eq!(me["providerConfigured"], false, "{me}");

    // The mask sent back keeps the key; a new model is stored.
    let (status, updated) = api
        .send(
            Method::PUT,
            &format!("/api/providers/{id}"),
            admin,
            Some(json!({"name": "openai", "kind": "openai", "apiKey": "********", "defaultModel": "gpt-2"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["defaultModel"], "gpt-2");
    let (status, read) = api
        .send(Method::GET, &format!("/api/providers/{id}"), admin, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read["apiKey"], "********");
    assert!(!read.to_string().contains("sk-live-1"));

    // A duplicate name is a conflict; a bad URL is a validation error.
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(json!({"name": "openai", "kind": "anthropic", "defaultModel": "c"})),
        )
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
    let (status, body) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(json!({"name": "x", "kind": "openai", "baseUrl": "ftp://nope", "defaultModel": "m"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    let (status, _) = api
        .send(Method::DELETE, &format!("/api/providers/{id}"), admin, None)
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = api
        .send(Method::GET, &format!("/api/providers/{id}"), admin, None)
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, body) = api.send(Method::GET, "/api/providers", None, None).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[tokio::test]
async fn assistants_and_their_servers() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    api.send(Method::POST, "/api/mcp-servers", admin, Some(everything()))
        .await;
    let (status, created) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({"name": "Helper", "toolMode": "prompt", "maxRounds": 5})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["maxRounds"], 5);

    let (status, updated) = api
        .send(
            Method::PUT,
            &format!("/api/assistants/{id}"),
            admin,
            Some(json!({"name": "Helper", "toolMode": "meta", "systemPrompt": "Be kind."})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["toolMode"], "meta");
    assert_eq!(
        updated["maxRounds"], 20,
        "an update replaces the whole assistant"
    );

    let (status, body) = api
        .send(
            Method::PUT,
            &format!("/api/assistants/{id}/mcp-servers"),
            admin,
            Some(json!({"serverIds": ["everything", "nope"]})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (_, servers) = api
        .send(
            Method::GET,
            &format!("/api/assistants/{id}/mcp-servers"),
            admin,
            None,
        )
        .await;
    assert_eq!(servers, json!({"serverIds": []}), "nothing half-written");

    let (status, body) = api
        .send(
            Method::POST,
            "/api/assistants",
            admin,
            Some(json!({"name": "Bad", "maxRounds": 0})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    let (_, listed) = api.send(Method::GET, "/api/assistants", admin, None).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let (status, _) = api
        .send(
            Method::DELETE,
            &format!("/api/assistants/{id}"),
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = api
        .send(
            Method::DELETE,
            &format!("/api/assistants/{id}"),
            admin,
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn conversations_are_created_renamed_listed_and_deleted() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let (status, created) = api
        .send(
            Method::POST,
            "/api/conversations",
            admin,
            Some(json!({"title": "First"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    let (status, renamed) = api
        .send(
            Method::PATCH,
            &format!("/api/conversations/{id}"),
            admin,
            Some(json!({"title": "Renamed"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{renamed}");
    assert_eq!(renamed["title"], "Renamed");
    let (_, listed) = api
        .send(Method::GET, "/api/conversations", admin, None)
        .await;
    assert_eq!(listed[0]["title"], "Renamed");
    let (status, messages) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{id}/messages"),
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(messages, json!([]));

    // Nothing runs: cancel is a conflict; a message with no provider is refused and not stored.
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/conversations/{id}/cancel"),
            admin,
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/conversations/{id}/messages"),
            admin,
            Some(json!({"content": "hello"})),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(
        body["message"].as_str().unwrap().contains("provider"),
        "{body}"
    );
    let (_, messages) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{id}/messages"),
            admin,
            None,
        )
        .await;
    assert_eq!(messages, json!([]), "the refused message was not stored");

    let (status, body) = api
        .send(
            Method::POST,
            "/api/conversations",
            admin,
            Some(json!({"assistantId": "nope"})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");

    let (status, _) = api
        .send(
            Method::DELETE,
            &format!("/api/conversations/{id}"),
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{id}"),
            admin,
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn conversations_are_listed_a_page_at_a_time() {
    let api = start().await;
    let token = api.admin.clone();
    for i in 0..5 {
        let (status, _) = api
            .send(
                Method::POST,
                "/api/conversations",
                Some(&token),
                Some(json!({"title": format!("c{i}")})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let page = |query: String| {
        api.client
            .get(format!("{}/api/conversations{query}", api.base))
            .bearer_auth(&token)
            .send()
    };
    let mut titles = Vec::new();
    let mut query = "?limit=2".to_owned();
    loop {
        let answer = page(query.clone()).await.unwrap();
        assert_eq!(answer.status(), StatusCode::OK);
        let next = answer
            .headers()
            .get("x-next-cursor")
            .map(|v| v.to_str().unwrap().to_owned());
        let body: serde_json::Value = answer.json().await.unwrap();
        titles.extend(
            body.as_array()
                .unwrap()
                .iter()
                .map(|c| c["title"].as_str().unwrap().to_owned()),
        );
        match next {
            Some(cursor) => query = format!("?limit=2&after={cursor}"),
            None => break,
        }
    }
    let (_, whole) = api
        .send(Method::GET, "/api/conversations", Some(&token), None)
        .await;
    let all: Vec<String> = whole
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(titles, all);
    assert_eq!(all.len(), 5);
    let bad = page("?after=nonsense".to_owned()).await.unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
}
