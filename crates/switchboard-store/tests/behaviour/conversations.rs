use serde_json::{Map, json};
use switchboard_core::{OwnerId, ServerId, ToolCallRecord, ToolCallStatus};
use switchboard_store::{
    AssistantConfig, ConversationCursor, Invalid, MessageRole, NewConversation, NewMessage,
    StoreError, Transition,
};

use crate::common::TestDb;

crate::on_both_backends!(
    conversations_hold_messages_in_order,
    tool_calls_live_inside_the_assistant_message,
    conversations_come_in_pages_in_the_listings_order,
    each_persons_messages_are_counted_as_stored_and_deleted,
);

pub fn call(id: &str) -> ToolCallRecord {
    ToolCallRecord {
        id: id.into(),
        server_id: ServerId("files".into()),
        server_name: "Files".into(),
        tool_name: "read".into(),
        display_name: "mcp__files__read".into(),
        arguments: json!({"path": format!("/tmp/{id}")})
            .as_object()
            .cloned()
            .unwrap(),
        status: ToolCallStatus::Pending,
        response: None,
        is_error: None,
        round: 0,
        approved: None,
        question: None,
        pending_input: None,
        task: None,
        resolved_arguments: None,
        mapped_parameters: Default::default(),
    }
}

async fn conversations_hold_messages_in_order(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let assistant = store
        .create_assistant(&owner, &AssistantConfig::named("helper"))
        .await
        .unwrap();
    let first = store
        .create_conversation(
            &owner,
            &NewConversation {
                title: "first".into(),
                assistant_id: Some(assistant.id.clone()),
            },
        )
        .await
        .unwrap();
    let second = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    assert_eq!(store.conversation(&owner, &first.id).await.unwrap(), first);
    let long = NewConversation {
        title: "t".repeat(501),
        assistant_id: None,
    };
    assert!(matches!(
        store.create_conversation(&owner, &long).await,
        Err(StoreError::Invalid(Invalid::LongerThan {
            field: "title",
            ..
        }))
    ));
    assert!(matches!(
        store
            .rename_conversation(&owner, &first.id, &"t".repeat(501))
            .await,
        Err(StoreError::Invalid(Invalid::LongerThan {
            field: "title",
            ..
        }))
    ));

    let mut ids = Vec::new();
    for i in 0..5 {
        let role = if i % 2 == 0 {
            MessageRole::User
        } else {
            MessageRole::Assistant
        };
        let mut new = NewMessage::text(role, format!("message {i}"));
        new.metadata = json!({"i": i}).as_object().cloned().unwrap();
        ids.push(
            store
                .append_message(&owner, &first.id, &new)
                .await
                .unwrap()
                .id,
        );
    }
    let messages = store.messages(&owner, &first.id).await.unwrap();
    assert_eq!(
        messages.iter().map(|m| m.id.clone()).collect::<Vec<_>>(),
        ids
    );
    assert_eq!(messages[3].content, "message 3");
    assert_eq!(messages[3].role, MessageRole::Assistant);
    assert_eq!(messages[3].metadata["i"], 3);

    // Appending made `first` the most recently active.
    let listed = store.conversations(&owner).await.unwrap();
    assert_eq!(listed[0].id, first.id);
    assert_eq!(listed[1].id, second.id);

    let streamed = store
        .set_message_content(&owner, &ids[1], "message 1, streamed further", None)
        .await
        .unwrap();
    assert_eq!(streamed.content, "message 1, streamed further");

    let renamed = store
        .rename_conversation(&owner, &second.id, "renamed")
        .await
        .unwrap();
    assert_eq!(renamed.title, "renamed");

    assert!(matches!(
        store
            .append_message(
                &owner,
                "no-such-conversation",
                &NewMessage::text(MessageRole::User, "x")
            )
            .await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store
            .create_conversation(
                &owner,
                &NewConversation {
                    title: String::new(),
                    assistant_id: Some("nope".into())
                }
            )
            .await,
        Err(StoreError::NotFound { .. })
    ));

    store.delete_conversation(&owner, &first.id).await.unwrap();
    assert!(matches!(
        store.message(&owner, &ids[0]).await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.messages(&owner, &first.id).await,
        Err(StoreError::NotFound { .. })
    ));
}

async fn tool_calls_live_inside_the_assistant_message(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let conversation = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    let mut new = NewMessage::text(MessageRole::Assistant, "Let me look.");
    new.tool_calls = vec![call("call_1")];
    let message = store
        .append_message(&owner, &conversation.id, &new)
        .await
        .unwrap();
    assert_eq!(message.tool_calls, vec![call("call_1")]);

    let with_more = store
        .add_tool_calls(&owner, &message.id, &[call("call_2"), call("call_3")])
        .await
        .unwrap();
    assert_eq!(with_more.tool_calls.len(), 3);
    assert!(matches!(
        store
            .add_tool_calls(&owner, &message.id, &[call("call_4"), call("call_2")])
            .await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(
        store
            .message(&owner, &message.id)
            .await
            .unwrap()
            .tool_calls
            .len(),
        3,
        "a refused append adds nothing"
    );

    let done = store
        .update_tool_call(&owner, &message.id, "call_2", &|c: &mut ToolCallRecord| {
            c.status = ToolCallStatus::Done;
            c.response = Some(json!({"content": [{"type": "text", "text": "hello"}]}));
            c.is_error = Some(false);
            c.resolved_arguments = json!({"path": "/tmp/call_2", "root": "/srv"})
                .as_object()
                .cloned();
            c.mapped_parameters.insert(
                "root".into(),
                switchboard_core::MappedParameter {
                    variables: vec!["workspace".into()],
                },
            );
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(done.status, ToolCallStatus::Done);
    // What the model asked and what ran are both kept.
    let kept = &store.message(&owner, &message.id).await.unwrap().tool_calls[1];
    assert_eq!(kept.arguments, call("call_2").arguments);
    assert_eq!(kept.resolved_arguments.as_ref().unwrap()["root"], "/srv");
    assert_eq!(kept.mapped_parameters["root"].variables, ["workspace"]);

    // An edit that refuses writes nothing.
    let refused = store
        .update_tool_call(&owner, &message.id, "call_2", &|c: &mut ToolCallRecord| {
            c.status = ToolCallStatus::Cancelled;
            if c.status.is_terminal() {
                return Err(Transition::Finished.into());
            }
            Ok(())
        })
        .await;
    assert!(matches!(refused, Err(StoreError::Transition(_))));
    let stored = store.message(&owner, &message.id).await.unwrap();
    assert_eq!(stored.tool_calls[1].status, ToolCallStatus::Done);
    assert_eq!(stored.tool_calls[0].status, ToolCallStatus::Pending);
    assert_eq!(stored.content, "Let me look.");

    assert!(matches!(
        store
            .update_tool_call(&owner, &message.id, "call_9", &|_: &mut ToolCallRecord| Ok(
                ()
            ))
            .await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store
            .update_tool_call(&owner, &message.id, "call_1", &|c: &mut ToolCallRecord| {
                c.id = "renamed".into();
                Ok(())
            })
            .await,
        Err(StoreError::Invalid(Invalid::IdChanged { .. }))
    ));
    let _ = Map::<String, serde_json::Value>::new();
}

async fn conversations_come_in_pages_in_the_listings_order(db: &TestDb) {
    let store = &db.store;
    let owner = db.local().await;
    for i in 0..7 {
        store
            .create_conversation(
                &owner,
                &NewConversation {
                    title: format!("c{i}"),
                    assistant_id: None,
                },
            )
            .await
            .unwrap();
    }
    let whole = store.conversations(&owner).await.unwrap();
    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .conversations_page(&owner, after.as_ref(), 3)
            .await
            .unwrap();
        let full = page.len() == 3;
        after = page.last().map(ConversationCursor::after);
        paged.extend(page);
        if !full {
            break;
        }
    }
    assert_eq!(paged, whole);
    assert_eq!(paged.len(), 7);
}

/// The count the messages quota reads: every message stored, in any conversation, less those
/// of conversations deleted; another person's are theirs.
async fn each_persons_messages_are_counted_as_stored_and_deleted(db: &TestDb) {
    let a = db.user("a").await.id;
    let b = db.user("b").await.id;
    let store = &db.store;
    let conversation = |owner| async move {
        store
            .create_conversation(owner, &NewConversation::default())
            .await
            .unwrap()
            .id
    };
    let (one, two, theirs) = (
        conversation(&a).await,
        conversation(&a).await,
        conversation(&b).await,
    );
    let say = |owner, id| async move {
        store
            .append_message(owner, id, &NewMessage::text(MessageRole::User, "hi"))
            .await
            .unwrap();
    };
    for _ in 0..3 {
        say(&a, &one).await;
    }
    say(&a, &two).await;
    say(&b, &theirs).await;
    assert_eq!(store.message_count(&a).await.unwrap(), 4);
    assert_eq!(store.message_count(&b).await.unwrap(), 1);
    store.delete_conversation(&a, &one).await.unwrap();
    assert_eq!(store.message_count(&a).await.unwrap(), 1);
    assert_eq!(store.message_count(&b).await.unwrap(), 1);
    assert_eq!(
        store
            .message_count(&OwnerId("nobody".into()))
            .await
            .unwrap(),
        0
    );
}
