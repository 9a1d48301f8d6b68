//! A conversation forked at a message: an answer regenerated drops what came after the
//! question, a message edited and sent again replaces itself and what followed it. Each is
//! one step: the conversation is seen before it or after it, and the message counts follow.

use serde_json::json;
use switchboard_core::OwnerId;
use switchboard_store::{Entity, Message, MessageRole, NewConversation, NewMessage, StoreError};

use crate::common::TestDb;

crate::on_both_backends!(
    an_answer_regenerated_drops_what_came_after_its_question,
    a_message_edited_replaces_itself_and_what_followed,
    forks_reach_only_the_owners_message_in_that_conversation,
    a_refused_replacement_leaves_the_conversation_as_it_was,
);

/// A conversation of `owner` holding `texts`, alternately the person's and the assistant's.
async fn conversation(db: &TestDb, owner: &OwnerId, texts: &[&str]) -> (String, Vec<Message>) {
    let store = &db.store;
    let id = store
        .create_conversation(owner, &NewConversation::default())
        .await
        .unwrap()
        .id;
    let mut messages = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let role = if i % 2 == 0 {
            MessageRole::User
        } else {
            MessageRole::Assistant
        };
        let message = NewMessage::text(role, *text);
        messages.push(store.append_message(owner, &id, &message).await.unwrap());
    }
    (id, messages)
}

async fn contents(db: &TestDb, owner: &OwnerId, conversation: &str) -> Vec<String> {
    db.store
        .messages(owner, conversation)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect()
}

async fn an_answer_regenerated_drops_what_came_after_its_question(db: &TestDb) {
    let owner = db.user("a").await.id;
    let store = &db.store;
    let (id, messages) = conversation(db, &owner, &["q1", "a1", "q2", "a2"]).await;
    let (other, _) = conversation(db, &owner, &["kept", "too"]).await;
    assert_eq!(store.message_count(&owner).await.unwrap(), 6);

    let dropped = store
        .delete_messages_after(&owner, &id, &messages[2].id)
        .await
        .unwrap();
    assert_eq!(dropped, 1);
    assert_eq!(contents(db, &owner, &id).await, ["q1", "a1", "q2"]);

    // Further back: every later turn goes.
    let dropped = store
        .delete_messages_after(&owner, &id, &messages[0].id)
        .await
        .unwrap();
    assert_eq!(dropped, 2);
    assert_eq!(contents(db, &owner, &id).await, ["q1"]);
    // The last message: nothing after it.
    let dropped = store
        .delete_messages_after(&owner, &id, &messages[0].id)
        .await
        .unwrap();
    assert_eq!(dropped, 0);

    assert_eq!(contents(db, &owner, &other).await, ["kept", "too"]);
    assert_eq!(store.message_count(&owner).await.unwrap(), 3);
    // The conversation goes on after the fork.
    let next = store
        .append_message(
            &owner,
            &id,
            &NewMessage::text(MessageRole::Assistant, "a1'"),
        )
        .await
        .unwrap();
    assert!(next.created_at > messages[0].created_at);
    assert_eq!(contents(db, &owner, &id).await, ["q1", "a1'"]);
}

async fn a_message_edited_replaces_itself_and_what_followed(db: &TestDb) {
    let owner = db.user("a").await.id;
    let store = &db.store;
    let (id, messages) = conversation(db, &owner, &["q1", "a1", "q2", "a2"]).await;
    let mut edited = NewMessage::text(MessageRole::User, "q1, said better");
    edited
        .metadata
        .insert("attachments".into(), json!([{"uri": "file:///a"}]));

    let new = store
        .replace_messages_from(&owner, &id, &messages[0].id, &edited)
        .await
        .unwrap();
    assert_ne!(
        new.id, messages[0].id,
        "a new message, not the old one changed"
    );
    assert_eq!(new.role, MessageRole::User);
    assert_eq!(new.metadata["attachments"], json!([{"uri": "file:///a"}]));
    let stored = store.messages(&owner, &id).await.unwrap();
    assert_eq!(stored, std::slice::from_ref(&new));
    assert_eq!(store.message_count(&owner).await.unwrap(), 1);
    assert!(matches!(
        store.message(&owner, &messages[1].id).await,
        Err(StoreError::NotFound {
            entity: Entity::Message,
            ..
        })
    ));

    // In the middle: what came before stays, in order, and the new one is last.
    let answer = store
        .append_message(&owner, &id, &NewMessage::text(MessageRole::Assistant, "a1"))
        .await
        .unwrap();
    let again = store
        .replace_messages_from(
            &owner,
            &id,
            &answer.id,
            &NewMessage::text(MessageRole::Assistant, "a1, again"),
        )
        .await
        .unwrap();
    assert!(again.created_at > new.created_at);
    assert_eq!(
        contents(db, &owner, &id).await,
        ["q1, said better", "a1, again"]
    );
}

async fn forks_reach_only_the_owners_message_in_that_conversation(db: &TestDb) {
    let owner = db.user("a").await.id;
    let stranger = db.user("b").await.id;
    let store = &db.store;
    let (id, messages) = conversation(db, &owner, &["q1", "a1"]).await;
    let (elsewhere, others) = conversation(db, &owner, &["q", "a"]).await;
    let not_found = |result: Result<u64, StoreError>| {
        assert!(
            matches!(result, Err(StoreError::NotFound { .. })),
            "{result:?}"
        );
    };

    not_found(
        store
            .delete_messages_after(&stranger, &id, &messages[0].id)
            .await,
    );
    // A message of another conversation does not fork this one.
    not_found(
        store
            .delete_messages_after(&owner, &id, &others[0].id)
            .await,
    );
    not_found(store.delete_messages_after(&owner, &id, "no-such").await);
    let replaced = store
        .replace_messages_from(
            &stranger,
            &id,
            &messages[0].id,
            &NewMessage::text(MessageRole::User, "mine now"),
        )
        .await;
    assert!(
        matches!(replaced, Err(StoreError::NotFound { .. })),
        "{replaced:?}"
    );

    assert_eq!(contents(db, &owner, &id).await, ["q1", "a1"]);
    assert_eq!(contents(db, &owner, &elsewhere).await, ["q", "a"]);
    assert_eq!(store.message_count(&stranger).await.unwrap(), 0);
}

async fn a_refused_replacement_leaves_the_conversation_as_it_was(db: &TestDb) {
    let owner = db.user("a").await.id;
    let store = &db.store;
    let (id, messages) = conversation(db, &owner, &["q1", "a1"]).await;
    let refused = store
        .replace_messages_from(
            &owner,
            &id,
            &messages[0].id,
            &NewMessage::text(MessageRole::User, "a\0b"),
        )
        .await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(store.messages(&owner, &id).await.unwrap(), messages);
    assert_eq!(store.message_count(&owner).await.unwrap(), 2);
}
