//! No query returns or changes another owner's row: every id-based operation of user B on
//! user A's rows is "not found", B's lists are empty, and A's rows are unchanged afterwards.

use switchboard_core::{ServerId, ToolCallRecord};
use switchboard_store::{AssistantConfig, MessageRole, NewConversation, NewMessage, StoreError};

use crate::common::TestDb;
use crate::conversations::call;
use crate::providers::openai;
use crate::servers::secret_spec;
use crate::tool_nodes::node;

crate::on_both_backends!(another_owners_rows_are_not_found);

/// Everything of `a`'s, secrets in clear, as text to compare.
async fn snapshot(
    store: &std::sync::Arc<dyn switchboard_store::Store>,
    a: &switchboard_core::OwnerId,
    provider: &str,
    conversation: &str,
) -> String {
    format!(
        "{:?}{:?}{:?}{:?}{:?}{:?}{:?}",
        store.connection_specs(a).await.unwrap(),
        store.provider_with_key(a, provider).await.unwrap(),
        store.assistants(a).await.unwrap(),
        store.conversations(a).await.unwrap(),
        store.messages(a, conversation).await.unwrap(),
        store.tool_nodes(a).await.unwrap(),
        store.tokens(a).await.unwrap(),
    )
}

fn not_found<T: std::fmt::Debug>(result: Result<T, StoreError>) {
    match result {
        Err(StoreError::NotFound { .. }) => {}
        other => panic!("expected not found, got {other:?}"),
    }
}

async fn another_owners_rows_are_not_found(db: &TestDb) {
    let store = &db.store;
    let a = db.user("alice").await.id;
    let b = db.user("bob").await.id;

    // Alice's world.
    let server = secret_spec("docs");
    store.create_server(&a, &server).await.unwrap();
    let provider = store
        .create_provider(&a, &openai("p", Some("k")))
        .await
        .unwrap();
    let assistant = store
        .create_assistant(&a, &AssistantConfig::named("helper"))
        .await
        .unwrap();
    store
        .set_assistant_servers(&a, &assistant.id, std::slice::from_ref(&server.id))
        .await
        .unwrap();
    let conversation = store
        .create_conversation(&a, &NewConversation::default())
        .await
        .unwrap();
    let mut new = NewMessage::text(MessageRole::Assistant, "hi");
    new.tool_calls = vec![call("call_1")];
    let message = store
        .append_message(&a, &conversation.id, &new)
        .await
        .unwrap();
    let stored_node = store
        .create_tool_node(&a, &node("p", "docs"))
        .await
        .unwrap();
    let token = store.issue_token(&a, "laptop").await.unwrap();

    let before = snapshot(store, &a, &provider.id, &conversation.id).await;

    // Bob's reads.
    not_found(store.server(&b, &server.id).await);
    not_found(store.connection_spec(&b, &server.id).await);
    not_found(store.provider(&b, &provider.id).await);
    not_found(store.provider_with_key(&b, &provider.id).await);
    not_found(store.assistant(&b, &assistant.id).await);
    not_found(store.conversation(&b, &conversation.id).await);
    not_found(store.messages(&b, &conversation.id).await);
    not_found(store.message(&b, &message.id).await);
    not_found(store.tool_node(&b, &stored_node.id).await);
    not_found(store.assistant_tool_nodes(&b, &assistant.id).await);
    assert!(store.servers(&b).await.unwrap().is_empty());
    assert!(store.connection_specs(&b).await.unwrap().is_empty());
    assert!(store.providers(&b).await.unwrap().is_empty());
    assert!(store.assistants(&b).await.unwrap().is_empty());
    assert!(store.conversations(&b).await.unwrap().is_empty());
    assert!(store.tool_nodes(&b).await.unwrap().is_empty());
    assert!(store.tokens(&b).await.unwrap().is_empty());

    // Bob's writes.
    let mut renamed = server.clone();
    renamed.name = "mine now".into();
    not_found(store.update_server(&b, &server.id, &renamed).await);
    not_found(store.delete_server(&b, &server.id).await);
    not_found(
        store
            .update_provider(&b, &provider.id, &openai("x", None))
            .await,
    );
    not_found(store.delete_provider(&b, &provider.id).await);
    not_found(
        store
            .update_assistant(&b, &assistant.id, &AssistantConfig::named("x"))
            .await,
    );
    not_found(store.set_assistant_servers(&b, &assistant.id, &[]).await);
    not_found(store.delete_assistant(&b, &assistant.id).await);
    not_found(store.rename_conversation(&b, &conversation.id, "x").await);
    not_found(store.delete_conversation(&b, &conversation.id).await);
    not_found(
        store
            .append_message(
                &b,
                &conversation.id,
                &NewMessage::text(MessageRole::User, "x"),
            )
            .await,
    );
    not_found(store.set_message_content(&b, &message.id, "x", None).await);
    not_found(
        store
            .add_tool_calls(&b, &message.id, &[call("call_2")])
            .await,
    );
    not_found(
        store
            .update_tool_call(&b, &message.id, "call_1", &|c: &mut ToolCallRecord| {
                c.is_error = Some(true);
                Ok(())
            })
            .await,
    );
    not_found(
        store
            .update_tool_node(&b, &stored_node.id, &node("x", "docs"))
            .await,
    );
    not_found(store.delete_tool_node(&b, &stored_node.id).await);
    not_found(store.revoke_token(&b, &token.token.id).await);

    // Bob cannot reach Alice's rows through his own either.
    let own = store
        .create_assistant(&b, &AssistantConfig::named("bobs"))
        .await
        .unwrap();
    not_found(
        store
            .set_assistant_servers(&b, &own.id, &[ServerId("docs".into())])
            .await,
    );
    let mut borrowing = AssistantConfig::named("borrowing");
    borrowing.provider_id = Some(provider.id.clone());
    not_found(store.create_assistant(&b, &borrowing).await);
    not_found(
        store
            .create_conversation(
                &b,
                &NewConversation {
                    title: String::new(),
                    assistant_id: Some(assistant.id.clone()),
                },
            )
            .await,
    );
    not_found(store.create_tool_node(&b, &node("p", "docs")).await);

    assert_eq!(
        snapshot(store, &a, &provider.id, &conversation.id).await,
        before,
        "alice's rows changed"
    );
}
