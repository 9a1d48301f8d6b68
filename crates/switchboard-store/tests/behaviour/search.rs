//! Finding conversations by the text of their title or of their messages: only the
//! person's own, `%` and `_` taken literally, in the listing's order and paged as it is.

use switchboard_core::OwnerId;
use switchboard_store::{
    ConversationCursor, Invalid, MessageRole, NewConversation, NewMessage, Store, StoreError,
};

use crate::common::TestDb;

crate::on_both_backends!(
    conversations_are_found_by_title_and_by_message_text,
    a_search_finds_only_the_persons_own_conversations,
    wildcards_in_a_search_are_taken_literally,
    search_results_come_in_pages_in_the_listings_order,
    a_search_refuses_text_too_long_or_with_nul,
);

/// A conversation of `owner` titled `title`, holding `messages` (user messages).
async fn conversation(
    store: &dyn Store,
    owner: &OwnerId,
    title: &str,
    messages: &[&str],
) -> String {
    let id = store
        .create_conversation(
            owner,
            &NewConversation {
                title: title.into(),
                assistant_id: None,
            },
        )
        .await
        .unwrap()
        .id;
    for text in messages {
        store
            .append_message(owner, &id, &NewMessage::text(MessageRole::User, *text))
            .await
            .unwrap();
    }
    id
}

/// The ids of the owner's conversations that `text` finds (one page of up to 100).
async fn found(store: &dyn Store, owner: &OwnerId, text: &str) -> Vec<String> {
    store
        .search_conversations(owner, text, None, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect()
}

/// The owner's conversations in the listing's order, kept when `keep` says so.
async fn listed(store: &dyn Store, owner: &OwnerId, keep: &[&String]) -> Vec<String> {
    store
        .conversations(owner)
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .filter(|id| keep.contains(&id))
        .collect()
}

async fn conversations_are_found_by_title_and_by_message_text(db: &TestDb) {
    let store = &*db.store;
    let owner = db.local().await;
    let titled = conversation(store, &owner, "Trip to Lisbon", &[]).await;
    let written = conversation(
        store,
        &owner,
        "Groceries",
        &["milk", "and the LISBON tickets, please"],
    )
    .await;
    let answered = conversation(store, &owner, "Weather", &["明天的天气怎么样？"]).await;
    conversation(store, &owner, "Unrelated", &["nothing to see"]).await;

    // Letters are compared without case; the listing's order (most recently active first).
    assert_eq!(
        found(store, &owner, "lisbon").await,
        listed(store, &owner, &[&titled, &written]).await
    );
    assert_eq!(
        found(store, &owner, "Tickets, PLEASE").await,
        vec![written.clone()]
    );
    assert_eq!(found(store, &owner, "天气").await, vec![answered]);
    assert_eq!(found(store, &owner, "Trip to").await, vec![titled]);
    assert!(found(store, &owner, "Madrid").await.is_empty());
}

async fn a_search_finds_only_the_persons_own_conversations(db: &TestDb) {
    let store = &*db.store;
    let mine = db.user("mine").await.id;
    let theirs = db.user("theirs").await.id;
    let my_one = conversation(store, &mine, "Budget", &["the quarterly budget"]).await;
    let their_title = conversation(store, &theirs, "Budget secrets", &[]).await;
    let their_text = conversation(store, &theirs, "Plans", &["a budget for the merger"]).await;

    assert_eq!(found(store, &mine, "budget").await, vec![my_one.clone()]);
    assert!(found(store, &mine, "secrets").await.is_empty());
    assert!(found(store, &mine, "merger").await.is_empty());
    assert_eq!(
        found(store, &theirs, "budget").await,
        listed(store, &theirs, &[&their_title, &their_text]).await
    );
    assert!(!found(store, &theirs, "quarterly").await.contains(&my_one));
}

async fn wildcards_in_a_search_are_taken_literally(db: &TestDb) {
    let store = &*db.store;
    let owner = db.local().await;
    let percent = conversation(store, &owner, "Growth of 100% in a year", &[]).await;
    let underscore = conversation(store, &owner, "Notes", &["rename to snake_case"]).await;
    let backslash = conversation(store, &owner, "Paths", &["C:\\Users\\ada"]).await;
    // Each would match these if `%` meant "anything" and `_` "any character".
    conversation(
        store,
        &owner,
        "Growth of 1000 in a year",
        &["snakeXcase", "C:/Users/ada"],
    )
    .await;

    assert_eq!(found(store, &owner, "%").await, vec![percent.clone()]);
    assert_eq!(found(store, &owner, "100%").await, vec![percent]);
    assert_eq!(found(store, &owner, "_").await, vec![underscore.clone()]);
    assert_eq!(found(store, &owner, "snake_case").await, vec![underscore]);
    assert_eq!(
        found(store, &owner, "C:\\Users").await,
        vec![backslash.clone()]
    );
    assert_eq!(found(store, &owner, "\\").await, vec![backslash]);
    assert!(found(store, &owner, "1_0%").await.is_empty());
}

async fn search_results_come_in_pages_in_the_listings_order(db: &TestDb) {
    let store = &*db.store;
    let owner = db.local().await;
    let mut hits = Vec::new();
    for i in 0..7 {
        // Every other one is found by its title, the rest by a message.
        let id = if i % 2 == 0 {
            conversation(store, &owner, &format!("report {i}"), &[]).await
        } else {
            conversation(store, &owner, &format!("c{i}"), &["the REPORT is due"]).await
        };
        hits.push(id);
        conversation(store, &owner, &format!("other {i}"), &["nothing"]).await;
    }
    let whole = listed(store, &owner, &hits.iter().collect::<Vec<_>>()).await;
    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .search_conversations(&owner, "report", after.as_ref(), 3)
            .await
            .unwrap();
        let full = page.len() == 3;
        after = page.last().map(ConversationCursor::after);
        paged.extend(page.into_iter().map(|c| c.id));
        if !full {
            break;
        }
    }
    assert_eq!(paged, whole);
    assert_eq!(paged.len(), 7);
}

async fn a_search_refuses_text_too_long_or_with_nul(db: &TestDb) {
    let store = &*db.store;
    let owner = db.local().await;
    let longest = "x".repeat(200);
    assert!(
        store
            .search_conversations(&owner, &longest, None, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        store
            .search_conversations(&owner, &format!("{longest}x"), None, 10)
            .await,
        Err(StoreError::Invalid(Invalid::LongerThan {
            field: "q",
            max: 200
        }))
    ));
    assert!(matches!(
        store.search_conversations(&owner, "a\0b", None, 10).await,
        Err(StoreError::Invalid(Invalid::Nul { .. }))
    ));
}
