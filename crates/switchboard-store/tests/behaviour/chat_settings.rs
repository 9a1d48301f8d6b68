use switchboard_store::{ChatSettings, Invalid, NewConversation, StoreError};

use crate::common::TestDb;

crate::on_both_backends!(
    a_chat_keeps_its_own_model_prompt_and_temperature,
    chat_settings_are_checked_and_the_owners_alone,
);

fn settings(model: &str, prompt: &str, temperature: Option<f64>) -> ChatSettings {
    ChatSettings {
        model: Some(model.into()),
        system_prompt: Some(prompt.into()),
        temperature,
    }
}

async fn a_chat_keeps_its_own_model_prompt_and_temperature(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let first = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    let second = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    assert_eq!(first.settings, ChatSettings::default());
    let order = store.conversations(&owner).await.unwrap();

    let chosen = settings("  qwen3:8b ", "Answer in French.", Some(0.25));
    let stored = store
        .set_chat_settings(&owner, &first.id, &chosen)
        .await
        .unwrap();
    let expected = settings("qwen3:8b", "Answer in French.", Some(0.25));
    assert_eq!(stored.settings, expected);
    let read = store.conversation(&owner, &first.id).await.unwrap();
    assert_eq!(read.settings, expected);
    // Read back the same through the listing, whose order a setting does not change.
    let listed = store.conversations(&owner).await.unwrap();
    let ids = |list: &[switchboard_store::Conversation]| {
        list.iter().map(|c| c.id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(ids(&listed), ids(&order));
    assert_eq!(
        listed.iter().find(|c| c.id == first.id).unwrap().settings,
        expected
    );
    assert_eq!(
        store
            .conversation(&owner, &second.id)
            .await
            .unwrap()
            .settings,
        ChatSettings::default()
    );

    // Blank text is none; the whole is replaced.
    let cleared = store
        .set_chat_settings(
            &owner,
            &first.id,
            &ChatSettings {
                model: Some("  ".into()),
                system_prompt: Some("\n".into()),
                temperature: Some(2.0),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        cleared.settings,
        ChatSettings {
            model: None,
            system_prompt: None,
            temperature: Some(2.0),
        }
    );
}

async fn chat_settings_are_checked_and_the_owners_alone(db: &TestDb) {
    let owner = db.local().await;
    let other = db.user("other").await.id;
    let store = &db.store;
    let chat = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap();
    for temperature in [-0.1, 2.01, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(
                store
                    .set_chat_settings(&owner, &chat.id, &settings("m", "p", Some(temperature)))
                    .await,
                Err(StoreError::Invalid(Invalid::OutOfRange {
                    field: "temperature",
                    ..
                }))
            ),
            "{temperature}"
        );
    }
    let long = "m".repeat(switchboard_store::MAX_MODEL_CHARS + 1);
    assert!(matches!(
        store
            .set_chat_settings(&owner, &chat.id, &settings(&long, "p", None))
            .await,
        Err(StoreError::Invalid(Invalid::LongerThan {
            field: "model",
            ..
        }))
    ));
    assert!(matches!(
        store
            .set_chat_settings(&owner, &chat.id, &settings("m", "a\0b", None))
            .await,
        Err(StoreError::Invalid(Invalid::Nul { .. }))
    ));
    assert!(matches!(
        store
            .set_chat_settings(&other, &chat.id, &settings("m", "p", None))
            .await,
        Err(StoreError::NotFound { .. })
    ));
    assert_eq!(
        store.conversation(&owner, &chat.id).await.unwrap().settings,
        ChatSettings::default()
    );
}
