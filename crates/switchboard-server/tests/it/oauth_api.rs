//! OAuth sign-in through the API, against an MCP server protected by the Python
//! SDK's own authorization server (`peers/oauth_server.py`, mcp 1.x): before signing in the
//! server `needs_sign_in`; the sign-in starts with `POST .../oauth/start`, the browser's part
//! (the authorization server approves at once here) ends at `GET /oauth/callback`, which sends
//! the browser back to the settings page; then the tools work with the person's token, which
//! is refreshed when the server stops taking it. A callback is good once, another person can
//! neither start nor finish someone's sign-in, and signing out forgets the tokens.

#![allow(clippy::unwrap_used)]

use crate::common;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_core::ServerId;
use switchboard_testkit::Peers;
use switchboard_testkit::headless_sign_in::follow_to_callback;

use common::{Api, assert_error};

async fn add_server(api: &Api, token: &str, url: &str) -> String {
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(token),
            Some(json!({
                "name": "notes",
                "transport": "streamable_http",
                "url": url,
                "auth": {"type": "oauth"},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["auth"], json!({"type": "oauth"}), "{body}");
    body["id"].as_str().unwrap().to_owned()
}

pub(crate) async fn call_whoami(api: &Api, token: &str, id: &str) -> (StatusCode, Value) {
    api.send(
        Method::POST,
        "/api/mcp/tools/call",
        Some(token),
        Some(json!({"serverId": id, "toolName": "whoami"})),
    )
    .await
}

/// The sign-in as the web UI and the browser make it; returns where the browser ends up.
pub(crate) async fn sign_in(api: &Api, token: &str, id: &str) -> String {
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/oauth/start"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let url = body["authorizationUrl"].as_str().unwrap();
    let callback_base = format!("{}/oauth/callback", api.base);
    let callback = follow_to_callback(url, &callback_base).await.unwrap();
    finish(api, &callback.code, &callback.state).await
}

/// The browser arriving at the callback; the `Location` it is sent on to.
async fn finish(api: &Api, code: &str, state: &str) -> String {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client
        .get(callback_url(api, &[("code", code), ("state", state)]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    response.headers()["location"].to_str().unwrap().to_owned()
}

fn callback_url(api: &Api, pairs: &[(&str, &str)]) -> String {
    let mut url = url::Url::parse(&format!("{}/oauth/callback", api.base)).unwrap();
    url.query_pairs_mut().extend_pairs(pairs);
    url.into()
}

pub(crate) async fn stats(peer_url: &str) -> Value {
    let base = peer_url.trim_end_matches("/mcp");
    reqwest::get(format!("{base}/stats"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_person_signs_in_and_the_tools_work_with_their_token() {
    let api = common::start().await;
    let mut peer = Peers::locate().oauth_http(true, 3600).await.unwrap();
    let id = add_server(&api, &api.admin, &peer.url()).await;

    // Before signing in: the call fails with the sign-in asked for, the server says so.
    let (status, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(body["code"], "MCP_AUTH_FAILED", "{status} {body}");
    assert!(
        body["message"].as_str().unwrap().contains("sign in"),
        "{body}"
    );
    let (_, health) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}/health"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(health["status"], "needs_sign_in", "{health}");

    let landed = sign_in(&api, &api.admin, &id).await;
    assert_eq!(landed, format!("/settings/mcp?signedIn={id}"));
    let (status, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["content"][0]["text"], "signed in", "{body}");

    // An upstream that echoes the person's token gets it cut out, like a configured secret.
    let (status, echoed) = api
        .send(
            Method::POST,
            "/api/mcp/tools/call",
            Some(&api.admin),
            Some(json!({"serverId": id, "toolName": "echo_authorization"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{echoed}");
    assert_eq!(
        echoed["content"][0]["text"], "Authorization: Bearer ***",
        "{echoed}"
    );

    // The tokens are the owner's, in the store; nobody else holds any for the server.
    let owner = api.store.user_by_token(&api.admin).await.unwrap().unwrap();
    let kept = api
        .store
        .oauth_credentials(&owner.id, &ServerId(id.clone()))
        .await
        .unwrap()
        .unwrap();
    assert!(kept.contains("access_token"), "{kept}");
    let other = api.store.user_by_token(&api.member).await.unwrap().unwrap();
    assert_eq!(
        api.store
            .oauth_credentials(&other.id, &ServerId(id.clone()))
            .await
            .unwrap(),
        None
    );

    // The server stops taking the token: it is refreshed and the call goes through.
    let expire = peer.url().replace("/mcp", "/expire");
    reqwest::Client::new().post(expire).send().await.unwrap();
    let (status, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let seen = stats(&peer.url()).await;
    assert!(seen["refreshes"].as_u64().unwrap() >= 1, "{seen}");
    assert_eq!(seen["refused_refreshes"], 0, "{seen}");
    assert_eq!(seen["authorizations"], 1, "{seen}");

    // Signing out forgets the tokens; the next call asks for a sign-in again.
    let (status, _) = api
        .send(
            Method::DELETE,
            &format!("/api/mcp-servers/{id}/oauth"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (_, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(body["code"], "MCP_AUTH_FAILED", "{body}");
    peer.kill().await.unwrap();
}

#[tokio::test]
async fn a_callback_is_good_once_and_only_for_the_sign_in_it_answers() {
    let api = common::start().await;
    let mut peer = Peers::locate().oauth_http(true, 3600).await.unwrap();
    let id = add_server(&api, &api.admin, &peer.url()).await;

    // Another person cannot start a sign-in to the owner's server.
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/oauth/start"),
            Some(&api.member),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "MCP_SERVER_NOT_FOUND");

    let (_, body) = api
        .send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/oauth/start"),
            Some(&api.admin),
            None,
        )
        .await;
    let url = body["authorizationUrl"].as_str().unwrap();
    let callback = follow_to_callback(url, &format!("{}/oauth/callback", api.base))
        .await
        .unwrap();
    assert_eq!(
        finish(&api, &callback.code, &callback.state).await,
        format!("/settings/mcp?signedIn={id}")
    );
    // The same state again, or a made-up one: refused in the caller's language.
    for state in [callback.state.as_str(), "made-up"] {
        let response = api
            .client
            .get(callback_url(&api, &[("code", "x"), ("state", state)]))
            .header("accept-language", "zh-Hans")
            .send()
            .await
            .unwrap();
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(body["message"].as_str().unwrap().contains("登录"), "{body}");
    }
    // A refusal by the authorization server lands on the settings page with its reason.
    let (_, body) = api
        .send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/oauth/start"),
            Some(&api.admin),
            None,
        )
        .await;
    let url = url::Url::parse(body["authorizationUrl"].as_str().unwrap()).unwrap();
    let state = url
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let refused = client
        .get(callback_url(
            &api,
            &[("error", "access_denied"), ("state", state.as_str())],
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        refused.headers()["location"],
        format!("/settings/mcp?signInFailed={id}&reason=MCP_AUTH_FAILED").as_str()
    );
    peer.kill().await.unwrap();
}

#[tokio::test]
async fn a_server_without_oauth_has_no_sign_in() {
    let api = common::start().await;
    let (_, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(json!({"name": "plain", "transport": "streamable_http", "url": "https://example.com/mcp"})),
        )
        .await;
    let id = body["id"].as_str().unwrap();
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/mcp-servers/{id}/oauth/start"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    // Without a public https URL there is no client metadata document to serve.
    let (status, body) = api
        .send(Method::GET, "/oauth/client-metadata.json", None, None)
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn the_client_metadata_document_names_the_public_url() {
    let mut config = common::Config::default();
    config.server.guard.public_urls = vec!["https://sb.example.com/".parse().unwrap()];
    config.server.guard.allowed_hosts = vec!["127.0.0.1".into()];
    let api = common::start_with(config).await;
    let (status, body) = api
        .send(Method::GET, "/oauth/client-metadata.json", None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["client_id"],
        "https://sb.example.com/oauth/client-metadata.json"
    );
    assert_eq!(
        body["redirect_uris"],
        json!(["https://sb.example.com/oauth/callback"])
    );
    assert_eq!(body["token_endpoint_auth_method"], "none");
}
