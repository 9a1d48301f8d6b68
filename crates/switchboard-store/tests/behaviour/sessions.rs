//! Seed 000's chat sessions: a client-chosen key per owner, the conversation's variables and
//! its server limit.

use serde_json::json;
use switchboard_core::ServerId;
use switchboard_store::{NewConversation, StoreError};

use crate::common::TestDb;

crate::on_both_backends!(
    a_session_key_names_one_conversation_per_owner,
    variables_merge_and_replace,
    a_conversation_may_be_limited_to_one_server,
);

async fn a_session_key_names_one_conversation_per_owner(db: &TestDb) {
    let store = &db.store;
    let alice = db.user("alice").await.id;
    let bob = db.user("bob").await.id;
    let (first, created) = store
        .session_conversation(&alice, "s-1", "Hello", None)
        .await
        .unwrap();
    assert!(created);
    assert_eq!(first.session_id.as_deref(), Some("s-1"));
    assert_eq!(first.title, "Hello");
    let (again, created) = store
        .session_conversation(&alice, "s-1", "ignored", None)
        .await
        .unwrap();
    assert!(!created);
    assert_eq!(again.id, first.id);
    assert_eq!(again.title, "Hello");

    // Bob's "s-1" is his own conversation.
    let (bobs, created) = store
        .session_conversation(&bob, "s-1", "Hi", None)
        .await
        .unwrap();
    assert!(created);
    assert_ne!(bobs.id, first.id);
    assert!(matches!(
        store.conversation(&bob, &first.id).await,
        Err(StoreError::NotFound { .. })
    ));

    // Conversations made otherwise have no key, and many of them may exist.
    for _ in 0..2 {
        let plain = store
            .create_conversation(&alice, &NewConversation::default())
            .await
            .unwrap();
        assert_eq!(plain.session_id, None);
        assert!(plain.variables.is_empty());
    }
}

async fn variables_merge_and_replace(db: &TestDb) {
    let store = &db.store;
    let owner = db.local().await;
    let other = db.user("other").await.id;
    let conversation = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    let object = |v: serde_json::Value| v.as_object().cloned().unwrap();
    let merged = store
        .merge_variables(
            &owner,
            &conversation.id,
            &object(json!({"city": "Paris", "n": 1, "nested": {"a": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(
        merged.variables,
        object(json!({"city": "Paris", "n": 1, "nested": {"a": 1}}))
    );
    let merged = store
        .merge_variables(
            &owner,
            &conversation.id,
            &object(json!({"n": 2, "city": null, "nested": {"b": 2}})),
        )
        .await
        .unwrap();
    assert_eq!(
        merged.variables,
        object(json!({"n": 2, "nested": {"b": 2}}))
    );
    assert_eq!(
        store
            .conversation(&owner, &conversation.id)
            .await
            .unwrap()
            .variables,
        merged.variables
    );
    let replaced = store
        .set_variables(&owner, &conversation.id, &object(json!({"only": true})))
        .await
        .unwrap();
    assert_eq!(replaced.variables, object(json!({"only": true})));

    // Another owner can neither read nor change them.
    for result in [
        store
            .merge_variables(&other, &conversation.id, &object(json!({"x": 1})))
            .await,
        store
            .set_variables(&other, &conversation.id, &object(json!({"x": 1})))
            .await,
    ] {
        assert!(
            matches!(result, Err(StoreError::NotFound { .. })),
            "{result:?}"
        );
    }
    assert_eq!(
        store
            .conversation(&owner, &conversation.id)
            .await
            .unwrap()
            .variables,
        object(json!({"only": true}))
    );
}

async fn a_conversation_may_be_limited_to_one_server(db: &TestDb) {
    let store = &db.store;
    let owner = db.local().await;
    let other = db.user("other").await.id;
    let conversation = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    assert_eq!(conversation.server_id, None);
    let server = ServerId("files".into());
    let limited = store
        .limit_to_server(&owner, &conversation.id, Some(&server))
        .await
        .unwrap();
    assert_eq!(limited.server_id, Some(server.clone()));
    assert!(
        store
            .limit_to_server(&other, &conversation.id, None)
            .await
            .is_err()
    );
    let open = store
        .limit_to_server(&owner, &conversation.id, None)
        .await
        .unwrap();
    assert_eq!(open.server_id, None);
}
