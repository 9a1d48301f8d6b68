//! List changes reaching the gateway's clients: announced for an owner
//! (`Gateway::announce`), from an upstream's `notifications/resources/list_changed`, and for
//! stateless 2026-07-28 clients through `subscriptions/listen`; never another owner's.
//!
//! A session's watcher starts in `on_initialized`, which rmcp runs as a task of its own. The
//! tests run on the current-thread runtime, where that task subscribes (it does so before its
//! first await) before the task of the session's next request runs, so one request after
//! connecting is enough to know the session is watched.

use crate::content_support;

use std::time::Duration;

use content_support::{Client, Harness, Heard, PATIENCE, everything};
use rmcp::model::{ClientConfig, ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::json;
use switchboard_mcp::{CallOptions, ToolBackend};

/// Waits until the session's watcher runs (see the module docs).
async fn watched(client: &Client) {
    client
        .session
        .list_all_resources()
        .await
        .expect("a request after connecting");
}

/// Waits until the client heard that each of the three lists changed (server-everything
/// itself says its tool list changed once it knows the client, so tools may come twice).
async fn hears_all_three(client: &mut Client) {
    let mut missing = vec![Heard::Tools, Heard::Resources, Heard::Prompts];
    while !missing.is_empty() {
        let heard = client.next().await;
        missing.retain(|wanted| *wanted != heard);
    }
}

#[tokio::test]
async fn an_announcement_reaches_every_session_of_the_owner() {
    let harness = Harness::start().await;
    let mut first = harness.client(&harness.alice, None).await;
    let mut second = harness.client(&harness.alice, None).await;
    watched(&first).await;
    watched(&second).await;

    harness.gateway.announce(&harness.alice.id);

    hears_all_three(&mut first).await;
    hears_all_three(&mut second).await;
    let _ = first.session.cancel().await;
    let _ = second.session.cancel().await;
}

#[tokio::test]
async fn an_upstream_list_change_reaches_its_owners_sessions_and_no_one_elses() {
    let harness = Harness::start().await;
    let mut alice = harness.client(&harness.alice, None).await;
    let mut bob = harness.client(&harness.bob, None).await;
    watched(&alice).await;
    watched(&bob).await;

    // server-everything registers a resource for the file it compresses, and says its
    // resource list changed.
    let spec = harness
        .store
        .connection_specs(&harness.alice.id)
        .await
        .expect("specs")
        .into_iter()
        .find(|spec| spec.name == everything().name)
        .expect("alice's everything");
    let arguments = json!({ "name": "notes.txt.gz", "data": "data:text/plain;base64,aGVsbG8=" });
    harness
        .pool
        .call(
            &harness.alice.id,
            &spec,
            "gzip-file-as-resource",
            arguments.as_object().cloned(),
            CallOptions::default(),
        )
        .await
        .expect("the tool ran");
    assert_eq!(
        alice.until(|h| *h == Heard::Resources).await,
        Heard::Resources
    );

    // Bob's watcher handles events in order: had Alice's change reached him, he would hear
    // it before his own announcement.
    harness.gateway.announce(&harness.bob.id);
    assert_eq!(bob.next().await, Heard::Tools);
    let _ = alice.session.cancel().await;
    let _ = bob.session.cancel().await;
}

#[tokio::test]
async fn a_stateless_client_hears_list_changes_through_subscriptions_listen() {
    let harness = Harness::start().await;
    let transport =
        StreamableHttpClientTransport::from_uri(format!("{}/{}", harness.base, harness.alice.name));
    let client = ClientConfig::default()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 client");
    let mut subscription = client
        .listen(
            SubscriptionFilter::builder()
                .tools_list_changed()
                .prompts_list_changed()
                .build(),
        )
        .await
        .expect("listen");

    // rmcp acknowledges the subscription before the gateway's `listen` runs, so an
    // announcement may come before the gateway follows changes for it: announce until one
    // is heard.
    let heard = tokio::time::timeout(PATIENCE, async {
        loop {
            harness.gateway.announce(&harness.alice.id);
            if let Ok(next) =
                tokio::time::timeout(Duration::from_secs(1), subscription.next()).await
            {
                return next;
            }
        }
    })
    .await
    .expect("a notification in time")
    .expect("the subscription is open")
    .expect("a notification");
    assert!(
        matches!(heard, ServerNotification::ToolListChangedNotification(_)),
        "{heard:?}"
    );
    let next = tokio::time::timeout(PATIENCE, subscription.next())
        .await
        .expect("in time")
        .expect("open")
        .expect("a notification");
    assert!(
        matches!(next, ServerNotification::PromptListChangedNotification(_)),
        "resources were not asked for: {next:?}"
    );
    let _ = subscription.cancel().await;
    let _ = client.cancel().await;
}
