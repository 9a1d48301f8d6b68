//! NUL in stored text: refused with a validation error naming the field on both backends
//! (Postgres cannot hold it; SQLite must not differ), and nothing is half-written.

use switchboard_core::{ErrorCode, ServerId, ServerSpec};
use switchboard_store::{
    AssistantConfig, MessageRole, NewConversation, NewMessage, Role, StoreError,
};

use crate::common::TestDb;

crate::on_both_backends!(
    nul_in_stored_text_is_refused_and_writes_nothing,
    an_import_with_a_nul_entry_writes_nothing_of_it,
);

#[track_caller]
fn refused<T: std::fmt::Debug>(result: Result<T, StoreError>, field: &str) {
    let error = result.unwrap_err();
    assert_eq!(error.code(), ErrorCode::ValidationError, "{error}");
    let message = error.to_string();
    assert!(
        message.contains(field) && message.contains("NUL"),
        "{message}"
    );
}

async fn nul_in_stored_text_is_refused_and_writes_nothing(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;

    refused(store.create_user("eve\0", Role::Member).await, "name");
    refused(store.issue_token(&owner, "label\0").await, "label");

    refused(
        store
            .create_server(
                &owner,
                &ServerSpec::http("bad\0name", "https://example.com/mcp", None),
            )
            .await,
        "name",
    );
    refused(
        store
            .create_server(
                &owner,
                &ServerSpec::http("bad-url", "https://example.com/\0mcp", None),
            )
            .await,
        "url",
    );
    assert!(store.servers(&owner).await.unwrap().is_empty());
    let good = store
        .create_server(
            &owner,
            &ServerSpec::http("good", "https://example.com/mcp", None),
        )
        .await
        .unwrap();
    let mut edited = good.spec.clone();
    edited.name = "renamed\0".into();
    refused(
        store
            .update_server(&owner, &ServerId("good".into()), &edited)
            .await,
        "name",
    );
    assert_eq!(
        store
            .server(&owner, &ServerId("good".into()))
            .await
            .unwrap()
            .spec
            .name,
        "good"
    );

    refused(
        store
            .create_assistant(&owner, &AssistantConfig::named("a\0"))
            .await,
        "name",
    );
    let mut prompt = AssistantConfig::named("helper");
    prompt.system_prompt = "be\0nice".into();
    refused(
        store.create_assistant(&owner, &prompt).await,
        "systemPrompt",
    );
    assert!(store.assistants(&owner).await.unwrap().is_empty());

    let mut provider = crate::providers::openai("p", Some("sk-1"));
    provider.base_url = Some("https://api.example.com/\0v1".into());
    refused(store.create_provider(&owner, &provider).await, "baseUrl");
    assert!(store.providers(&owner).await.unwrap().is_empty());

    let title = NewConversation {
        title: "t\0".into(),
        assistant_id: None,
    };
    refused(store.create_conversation(&owner, &title).await, "title");
    assert!(store.conversations(&owner).await.unwrap().is_empty());
    let chat = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    refused(
        store.rename_conversation(&owner, &chat.id, "x\0y").await,
        "title",
    );
    refused(
        store
            .append_message(
                &owner,
                &chat.id,
                &NewMessage::text(MessageRole::User, "hi\0"),
            )
            .await,
        "content",
    );
    let message = store
        .append_message(&owner, &chat.id, &NewMessage::text(MessageRole::User, "hi"))
        .await
        .unwrap();
    refused(
        store
            .set_message_content(&owner, &message.id, "a\0b", None)
            .await,
        "content",
    );
    let messages = store.messages(&owner, &chat.id).await.unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].content, "hi");
}

async fn an_import_with_a_nul_entry_writes_nothing_of_it(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let specs = [
        ServerSpec::http("one", "https://example.com/mcp", None),
        ServerSpec::http("two\0", "https://example.com/mcp", None),
    ];
    refused(
        store.import_servers_once(&owner, "nul-test", &specs).await,
        "name",
    );
    assert!(store.servers(&owner).await.unwrap().is_empty());
    assert!(!store.imported(&owner, "nul-test").await.unwrap());
}
