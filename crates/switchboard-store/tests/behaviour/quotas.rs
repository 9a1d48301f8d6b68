//! Quotas on stored rows: the N+1th server, provider, assistant or conversation of an owner is refused
//! with `QuotaExceeded`, also when many are created at once (the count and the insert are
//! one transaction under the owner's lock), and other owners are not affected.

use std::sync::Arc;

use switchboard_core::{ErrorCode, ServerSpec};
use switchboard_store::{AssistantConfig, NewConversation, StoreError};

use crate::common::TestDb;

crate::on_both_backends!(creations_at_once_stop_at_the_quota);

const QUOTA: u32 = 5;

async fn creations_at_once_stop_at_the_quota(db: &TestDb) {
    let owner = db.local().await;
    let store = Arc::clone(&db.store);
    let tasks = (0..20).map(|i| {
        let store = Arc::clone(&store);
        let owner = owner.clone();
        tokio::spawn(async move {
            let spec = ServerSpec::http(format!("s{i}"), "http://127.0.0.1:9/mcp", None);
            store.create_server_within(&owner, &spec, QUOTA).await
        })
    });
    let mut created = 0;
    for task in futures::future::join_all(tasks).await {
        match task.unwrap() {
            Ok(_) => created += 1,
            Err(error) => {
                assert!(
                    matches!(error, StoreError::QuotaExceeded { limit: QUOTA, .. }),
                    "{error}"
                );
                assert_eq!(error.code(), ErrorCode::QuotaExceeded);
            }
        }
    }
    assert_eq!(created, QUOTA);
    assert_eq!(store.servers(&owner).await.unwrap().len(), QUOTA as usize);

    // Another owner has their own quota.
    let other = db.user("other").await.id;
    let spec = ServerSpec::http("s0", "http://127.0.0.1:9/mcp", None);
    store
        .create_server_within(&other, &spec, QUOTA)
        .await
        .unwrap();

    // Assistants the same way.
    for i in 0..QUOTA {
        let config = AssistantConfig::named(format!("a{i}"));
        store
            .create_assistant_within(&owner, &config, QUOTA)
            .await
            .unwrap();
    }
    let over = store
        .create_assistant_within(&owner, &AssistantConfig::named("more"), QUOTA)
        .await
        .unwrap_err();
    assert_eq!(over.code(), ErrorCode::QuotaExceeded);

    // Conversations too, whether made directly or for a client's session key.
    for i in 0..QUOTA - 1 {
        let new = NewConversation {
            title: format!("c{i}"),
            assistant_id: None,
        };
        store
            .create_conversation_within(&owner, &new, QUOTA)
            .await
            .unwrap();
    }
    let (_, created) = store
        .session_conversation(&owner, "last", "last", Some(QUOTA))
        .await
        .unwrap();
    assert!(created);
    let over = store
        .create_conversation_within(&owner, &NewConversation::default(), QUOTA)
        .await
        .unwrap_err();
    assert!(matches!(over, StoreError::QuotaExceeded { .. }), "{over}");
    let over = store
        .session_conversation(&owner, "another", "t", Some(QUOTA))
        .await
        .unwrap_err();
    assert!(matches!(over, StoreError::QuotaExceeded { .. }), "{over}");
    // A session that exists is found whatever the quota.
    let (_, created) = store
        .session_conversation(&owner, "last", "again", Some(QUOTA))
        .await
        .unwrap();
    assert!(!created);
}
