//! OAuth sign-in to a server that runs on an MCP node, through the same API as for a local
//! one (`oauth_api.rs`), against the Python SDK's authorization server
//! (`peers/oauth_server.py`): the node (in this process, on loopback) reaches the server and
//! makes the sign-in's requests, the host keeps and refreshes the tokens and sends the access
//! token with each request. Before signing in, the call asks for a sign-in; after, the tools
//! work, an echoed token comes back as `***`, and a token the server stops taking, or one
//! about to expire, is refreshed by the host and the call goes through. The server's
//! challenge comes back from the node with its refusal, and the sign-in discovers from it.

#![allow(clippy::unwrap_used)]

use crate::common;
use crate::oauth_api::{call_whoami, sign_in, stats};

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use switchboard_core::ServerId;
use switchboard_mcp::{ConnectionStatus, ServerPool, StatusChange};
use switchboard_testkit::Peers;
use tokio::sync::broadcast;

use common::Api;
use common::node::{NODE, start_node};

/// A bound on every wait, far above what any step takes.
const PATIENCE: Duration = Duration::from_secs(30);

async fn add_server_on_node(api: &Api, url: &str) -> String {
    let (status, body) = api
        .send(
            Method::POST,
            "/api/mcp-servers",
            Some(&api.admin),
            Some(json!({
                "name": "notes",
                "transport": "streamable_http",
                "url": url,
                "auth": {"type": "oauth"},
                "node": NODE,
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["node"], NODE, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

async fn health(api: &Api, id: &str) -> Value {
    let (_, health) = api
        .send(
            Method::GET,
            &format!("/api/mcp-servers/{id}/health"),
            Some(&api.admin),
            None,
        )
        .await;
    health
}

/// Waits until the server's health says `status`: the node's state reaches the host on its
/// status stream, whose changes `changes` (subscribed before the step that causes it) sees.
async fn wait_for_status(
    api: &Api,
    changes: &mut broadcast::Receiver<StatusChange>,
    id: &str,
    status: &str,
) {
    let reached = tokio::time::timeout(PATIENCE, async {
        loop {
            if health(api, id).await["status"] == status {
                return;
            }
            match changes.recv().await {
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the router is gone"),
            }
        }
    })
    .await;
    assert!(
        reached.is_ok(),
        "still {} instead of {status}",
        health(api, id).await
    );
}

#[tokio::test]
async fn a_person_signs_in_to_a_server_on_a_node_and_the_tools_work_with_their_token() {
    let node = start_node().await;
    let api = common::start_with_nodes(vec![node.config.clone()]).await;
    let mut peer = Peers::locate().oauth_http(true, 3600).await.unwrap();
    let id = add_server_on_node(&api, &peer.url()).await;
    let mut changes = api.router.status_changes();

    // Before signing in: the node's connection is refused, and the host says a sign-in is
    // needed, as for a local server.
    let (status, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(body["code"], "MCP_AUTH_FAILED", "{status} {body}");
    assert!(
        body["message"].as_str().unwrap().contains("sign in"),
        "{body}"
    );
    wait_for_status(&api, &mut changes, &id, "needs_sign_in").await;

    let landed = sign_in(&api, &api.admin, &id).await;
    assert_eq!(landed, format!("/settings/mcp?signedIn={id}"));
    let (status, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["content"][0]["text"], "signed in", "{body}");

    // The connection is the node's, not the host's.
    let owner = api.store.user_by_token(&api.admin).await.unwrap().unwrap();
    let server = ServerId(id.clone());
    assert_eq!(
        node.manager.snapshot(&owner.id, &server).status,
        ConnectionStatus::Connected
    );
    assert_eq!(
        api.manager.snapshot(&owner.id, &server).status,
        ConnectionStatus::Disconnected
    );
    // The tokens are kept by the host, in its store.
    let kept = api
        .store
        .oauth_credentials(&owner.id, &server)
        .await
        .unwrap()
        .unwrap();
    assert!(kept.contains("refresh_token"), "{kept}");

    // An upstream that echoes the token the node sent gets it cut out on the node.
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

    // The server stops taking the token: the node says so, the host refreshes (the refresh
    // sent from the node) and the call goes through with the new token.
    let expire = peer.url().replace("/mcp", "/expire");
    reqwest::Client::new().post(expire).send().await.unwrap();
    let (status, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let seen = stats(&peer.url()).await;
    assert_eq!(seen["refreshes"], 1, "{seen}");
    assert_eq!(seen["refused_refreshes"], 0, "{seen}");
    assert_eq!(seen["authorizations"], 1, "{seen}");
    wait_for_status(&api, &mut changes, &id, "connected").await;

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
async fn a_token_about_to_expire_is_refreshed_by_the_host_before_it_goes_to_the_node() {
    let node = start_node().await;
    let api = common::start_with_nodes(vec![node.config.clone()]).await;
    // Tokens good for 5 s: less than the 30 s margin, so each is refreshed before it is sent.
    let mut peer = Peers::locate().oauth_http(true, 5).await.unwrap();
    let id = add_server_on_node(&api, &peer.url()).await;
    sign_in(&api, &api.admin, &id).await;
    let mut refreshed = stats(&peer.url()).await["refreshes"].as_u64().unwrap();
    assert_eq!(refreshed, 0);

    // Each call (the proxy lists the tools, then calls one) sends a token refreshed first.
    for round in 1..=2 {
        let (status, body) = call_whoami(&api, &api.admin, &id).await;
        assert_eq!(status, StatusCode::OK, "round {round}: {body}");
        assert_eq!(body["content"][0]["text"], "signed in", "{body}");
        let seen = stats(&peer.url()).await;
        let now = seen["refreshes"].as_u64().unwrap();
        assert!(now > refreshed, "round {round}: {seen}");
        assert_eq!(seen["refused_refreshes"], 0, "{seen}");
        refreshed = now;
    }
    peer.kill().await.unwrap();
}

#[tokio::test]
async fn a_sign_in_to_a_server_on_a_node_discovers_its_metadata_from_the_servers_challenge() {
    let node = start_node().await;
    let api = common::start_with_nodes(vec![node.config.clone()]).await;
    // The server's metadata is only where its challenge points, not at a well-known path, and
    // only a refused request shows the challenge (rmcp's own probe, a `GET`, gets 405).
    let mut peer = Peers::locate()
        .oauth_http_metadata_at("/meta/notes")
        .await
        .unwrap();
    let id = add_server_on_node(&api, &peer.url()).await;

    // Refused on the node, with the server's challenge brought back to the host.
    let (status, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(body["code"], "MCP_AUTH_FAILED", "{status} {body}");
    sign_in(&api, &api.admin, &id).await;
    let seen = stats(&peer.url()).await;
    assert!(
        seen["metadata_reads"].as_u64().unwrap() >= 1,
        "the sign-in read the metadata the challenge named: {seen}"
    );
    let (status, body) = call_whoami(&api, &api.admin, &id).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["content"][0]["text"], "signed in", "{body}");
    peer.kill().await.unwrap();
}
