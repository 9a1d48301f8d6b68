//! `GET /api/conversations?q=`: the caller's conversations whose title or messages hold the
//! text, paged with the listing's cursor, `%` and `_` taken literally, nobody else's found.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{Api, assert_error, start};
use reqwest::{Method, StatusCode};
use serde_json::json;
use switchboard_store::{MessageRole, NewMessage};

/// A conversation of the token's owner titled `title` holding `messages`; its id.
async fn conversation(api: &Api, token: &str, title: &str, messages: &[&str]) -> String {
    let (status, created) = api
        .send(
            Method::POST,
            "/api/conversations",
            Some(token),
            Some(json!({"title": title})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    let owner = api.store.user_by_token(token).await.unwrap().unwrap().id;
    for text in messages {
        api.store
            .append_message(&owner, &id, &NewMessage::text(MessageRole::User, *text))
            .await
            .unwrap();
    }
    id
}

/// The titles of every page `query` (a query string without `after`) answers, and how many
/// pages there were.
async fn titles(api: &Api, token: &str, query: &str) -> (Vec<String>, usize) {
    let mut titles = Vec::new();
    let mut pages = 0;
    let mut after = String::new();
    loop {
        let answer = api
            .client
            .get(format!("{}/api/conversations?{query}{after}", api.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::OK);
        pages += 1;
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
            Some(cursor) => after = format!("&after={cursor}"),
            None => return (titles, pages),
        }
    }
}

#[tokio::test]
async fn conversations_are_searched_by_title_and_message_text() {
    let api = start().await;
    let (admin, member) = (api.admin.clone(), api.member.clone());
    conversation(&api, &admin, "Trip to Lisbon", &[]).await;
    conversation(&api, &admin, "Groceries", &["and the LISBON tickets"]).await;
    conversation(&api, &admin, "Growth of 100% in a year", &[]).await;
    conversation(&api, &admin, "Growth of 1000 in a year", &["snake_case"]).await;
    conversation(&api, &member, "Lisbon, the member's", &["lisbon"]).await;

    let (found, _) = titles(&api, &admin, "q=lisbon").await;
    assert_eq!(found, ["Groceries", "Trip to Lisbon"]);
    let (found, _) = titles(&api, &member, "q=LISBON").await;
    assert_eq!(found, ["Lisbon, the member's"], "only the caller's own");
    let (found, _) = titles(&api, &admin, "q=100%25").await;
    assert_eq!(found, ["Growth of 100% in a year"], "% is a character");
    let (found, _) = titles(&api, &admin, "q=e_c").await;
    assert_eq!(found, ["Growth of 1000 in a year"], "_ is a character");
    let (found, _) = titles(&api, &admin, "q=%20%20").await;
    assert_eq!(found.len(), 4, "a blank search lists them all");

    let (status, body) = api
        .send(
            Method::GET,
            &format!("/api/conversations?q={}", "x".repeat(201)),
            Some(&admin),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
}

#[tokio::test]
async fn search_results_are_paged_with_the_listings_cursor() {
    let api = start().await;
    let admin = api.admin.clone();
    for i in 0..5 {
        conversation(&api, &admin, &format!("plan {i}"), &[]).await;
        conversation(&api, &admin, &format!("other {i}"), &["a plan, written"]).await;
        conversation(&api, &admin, &format!("unrelated {i}"), &["nothing"]).await;
    }
    let (all, pages) = titles(&api, &admin, "q=plan").await;
    assert_eq!((all.len(), pages), (10, 1));
    let (paged, pages) = titles(&api, &admin, "limit=3&q=plan").await;
    assert_eq!(paged, all);
    assert_eq!(pages, 4, "three full pages and the rest");
}

#[tokio::test]
async fn the_search_is_described_in_the_openapi_document() {
    let api = start().await;
    let (status, document) = api.send(Method::GET, "/api/openapi.json", None, None).await;
    assert_eq!(status, StatusCode::OK);
    let parameters = document["paths"]["/api/conversations"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let q = parameters.iter().find(|p| p["name"] == "q").unwrap();
    assert_eq!(q["in"], "query", "{q}");
    assert!(q["description"].as_str().unwrap().contains("title"), "{q}");
}
