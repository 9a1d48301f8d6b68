//! The pool's additions for the gateway, against server-everything over stdio:
//! resource templates, completion, resource subscriptions with their updates, and list changes
//! tagged with the (owner, server) they came from.

// resources/subscribe is what servers of the `initialize` generation offer.
#![allow(deprecated)]

use std::time::Duration;

use rmcp::model::{ArgumentInfo, CompleteRequestParams, Reference};
use serde_json::json;
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_mcp::{
    CallOptions, ConnectionManager, ListKind, ManagerConfig, ServerPool, ToolBackend,
};
use switchboard_testkit::Peers;

const PATIENCE: Duration = Duration::from_secs(60);

fn everything() -> ServerSpec {
    let command = Peers::locate().everything_stdio();
    let mut spec = ServerSpec::stdio("everything", command.program.clone(), command.args.clone());
    for (key, value) in &command.env {
        spec.env.insert(key.clone(), value.clone());
    }
    spec
}

#[tokio::test]
async fn templates_completion_subscriptions_and_list_changes_come_from_the_right_connection() {
    let pool = ConnectionManager::new(ManagerConfig::default());
    let owner = OwnerId("alice".into());
    let spec = everything();
    let mut lists = ServerPool::list_changes(&pool);
    let mut updates = ServerPool::resource_updates(&pool);

    let templates = ServerPool::list_resource_templates(&pool, &owner, &spec)
        .await
        .expect("templates");
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "demo://resource/dynamic/text/{resourceId}")
    );
    let completed = ServerPool::complete(
        &pool,
        &owner,
        &spec,
        CompleteRequestParams::new(
            Reference::for_prompt("completable-prompt"),
            ArgumentInfo::new("department", "Sa"),
        ),
    )
    .await
    .expect("complete");
    assert_eq!(completed.completion.values, vec!["Sales".to_owned()]);

    let uri = "demo://resource/dynamic/text/1";
    ServerPool::subscribe_resource(&pool, &owner, &spec, uri)
        .await
        .expect("subscribe");
    pool.call(
        &owner,
        &spec,
        "toggle-subscriber-updates",
        None,
        CallOptions::default(),
    )
    .await
    .expect("start updates");
    let update = tokio::time::timeout(PATIENCE, updates.recv())
        .await
        .expect("an update in time")
        .expect("the channel is open");
    assert_eq!(
        (update.owner, update.server, update.uri.as_str()),
        (owner.clone(), spec.id.clone(), uri)
    );
    // A new connection (here after a disconnect; also after the server died) is subscribed
    // again: the server's updates keep coming.
    pool.disconnect(&owner, &spec.id).await;
    while updates.try_recv().is_ok() {}
    pool.call(
        &owner,
        &spec,
        "toggle-subscriber-updates",
        None,
        CallOptions::default(),
    )
    .await
    .expect("start updates on the new server process");
    let update = tokio::time::timeout(PATIENCE, async {
        loop {
            match updates.recv().await {
                Ok(update) => return update,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(closed) => panic!("{closed}"),
            }
        }
    })
    .await
    .expect("an update after reconnecting");
    assert_eq!(update.uri, uri);
    ServerPool::unsubscribe_resource(&pool, &owner, &spec, uri)
        .await
        .expect("unsubscribe");

    let arguments = json!({ "name": "n.gz", "data": "data:text/plain;base64,aGk=" });
    pool.call(
        &owner,
        &spec,
        "gzip-file-as-resource",
        arguments.as_object().cloned(),
        CallOptions::default(),
    )
    .await
    .expect("register a resource");
    let change = tokio::time::timeout(PATIENCE, async {
        loop {
            let change = lists.recv().await.expect("the channel is open");
            if change.kind == ListKind::Resources {
                return change;
            }
        }
    })
    .await
    .expect("a resource list change in time");
    assert_eq!((change.owner, change.server), (owner, spec.id.clone()));
    pool.shutdown().await;
}
