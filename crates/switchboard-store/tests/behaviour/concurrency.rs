//! Concurrent updates of different tool calls of one message all survive: the embedded
//! `toolCalls` array is written by compare-and-swap, so an edit made from a stale read is
//! applied again, within one process and across processes sharing the database.

use std::sync::Arc;

use serde_json::json;
use switchboard_core::{ToolCallRecord, ToolCallStatus};
use switchboard_store::{MessageRole, NewConversation, NewMessage};

use crate::common::TestDb;
use crate::conversations::call;

crate::on_both_backends!(
    concurrent_tool_call_updates_lose_nothing,
    tool_call_edits_from_two_processes_lose_nothing,
    concurrent_server_edits_lose_nothing
);

const CALLS: usize = 24;
const ROUNDS: usize = 3;

async fn concurrent_tool_call_updates_lose_nothing(db: &TestDb) {
    let store = Arc::clone(&db.store);
    edit_every_call_at_once(db, &[store]).await;
}

/// A second store opened on the same database stands in for another process (a replica, or
/// a CLI command beside `serve`): on SQLite its writes come from another connection than the
/// first store's one writer, so only the compare-and-swap keeps their edits from overwriting
/// each other.
async fn tool_call_edits_from_two_processes_lose_nothing(db: &TestDb) {
    let other = switchboard_store::open(&db.config).await.unwrap();
    edit_every_call_at_once(db, &[Arc::clone(&db.store), other]).await;
}

/// Every call of one message moves pending -> invoking -> done, each step a separate update,
/// all calls at once, call `i` through `stores[i % stores.len()]`; then every update is there.
async fn edit_every_call_at_once(db: &TestDb, stores: &[Arc<dyn switchboard_store::Store>]) {
    let owner = db.local().await;
    let store = Arc::clone(&stores[0]);
    let conversation = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    let mut new = NewMessage::text(MessageRole::Assistant, "");
    new.tool_calls = (0..CALLS).map(|i| call(&format!("call_{i}"))).collect();
    let message = store
        .append_message(&owner, &conversation.id, &new)
        .await
        .unwrap();

    let tasks = (0..CALLS).map(|i| {
        let store = Arc::clone(&stores[i % stores.len()]);
        let owner = owner.clone();
        let message_id = message.id.clone();
        tokio::spawn(async move {
            let id = format!("call_{i}");
            store
                .update_tool_call(&owner, &message_id, &id, &|c: &mut ToolCallRecord| {
                    c.status = ToolCallStatus::Invoking;
                    Ok(())
                })
                .await
                .unwrap();
            for round in 0..ROUNDS {
                store
                    .update_tool_call(&owner, &message_id, &id, &move |c: &mut ToolCallRecord| {
                        c.response = Some(json!({"call": i, "round": round}));
                        Ok(())
                    })
                    .await
                    .unwrap();
            }
            store
                .update_tool_call(&owner, &message_id, &id, &|c: &mut ToolCallRecord| {
                    c.status = ToolCallStatus::Done;
                    c.is_error = Some(false);
                    Ok(())
                })
                .await
                .unwrap();
        })
    });
    for task in futures::future::join_all(tasks).await {
        task.unwrap();
    }

    let stored = store.message(&owner, &message.id).await.unwrap();
    assert_eq!(stored.tool_calls.len(), CALLS);
    for (i, call) in stored.tool_calls.iter().enumerate() {
        assert_eq!(call.id, format!("call_{i}"), "order kept");
        assert_eq!(
            call.status,
            ToolCallStatus::Done,
            "call {i} lost its update"
        );
        assert_eq!(
            call.response,
            Some(json!({"call": i, "round": ROUNDS - 1})),
            "call {i}"
        );
    }
}

/// Twenty tools switched off at once, each by its own edit: all twenty stay off.
async fn concurrent_server_edits_lose_nothing(db: &TestDb) {
    let owner = db.local().await;
    let store = Arc::clone(&db.store);
    let spec = crate::servers::secret_spec("docs");
    store.create_server(&owner, &spec).await.unwrap();
    let edits = (0..20).map(|i| {
        let (store, owner, id) = (Arc::clone(&store), owner.clone(), spec.id.clone());
        tokio::spawn(async move {
            store
                .edit_server(&owner, &id, &move |old: &switchboard_core::ServerSpec| {
                    let mut new = old.clone();
                    new.disabled_tools.insert(format!("tool_{i}"));
                    Ok(new)
                })
                .await
                .unwrap();
        })
    });
    for edit in futures::future::join_all(edits).await {
        edit.unwrap();
    }
    let stored = store.connection_spec(&owner, &spec.id).await.unwrap();
    assert_eq!(stored.disabled_tools.len(), 20);
    assert_eq!(stored.headers, spec.headers, "secrets untouched");
}
