use switchboard_core::ServerId;
use switchboard_store::{AssistantConfig, Invalid, PinnedTool, StoreError, ToolExposure, ToolMode};

use crate::common::TestDb;
use crate::servers::secret_spec;

crate::on_both_backends!(
    assistants_round_trip,
    assistant_servers_are_ordered_checked_and_follow_deletes,
);

async fn assistants_round_trip(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let mut config = AssistantConfig::named("researcher");
    config.system_prompt = "Cite sources.".into();
    config.model = Some("gpt-4.1".into());
    config.tool_mode = ToolMode::Meta;
    config.max_rounds = 7;
    config.tool_exposure = ToolExposure::Deferred;
    config.pinned_tools = vec![PinnedTool {
        server_id: ServerId("srv".into()),
        tool: Some("read".into()),
    }];
    config.native_tool_search = true;
    let created = store.create_assistant(&owner, &config).await.unwrap();
    assert_eq!(created.config, config);
    assert!(created.server_ids.is_empty());
    assert_eq!(store.assistant(&owner, &created.id).await.unwrap(), created);

    config.tool_mode = ToolMode::Prompt;
    config.name = "writer".into();
    config.native_tool_search = false;
    let updated = store
        .update_assistant(&owner, &created.id, &config)
        .await
        .unwrap();
    assert_eq!(updated.config, config);
    assert_eq!(store.assistants(&owner).await.unwrap(), vec![updated]);

    assert!(matches!(
        store.create_assistant(&owner, &config).await,
        Err(StoreError::Conflict { .. })
    ));
    let mut zero = AssistantConfig::named("zero");
    zero.max_rounds = 0;
    assert!(matches!(
        store.create_assistant(&owner, &zero).await,
        Err(StoreError::Invalid(Invalid::OutOfRange {
            field: "maxRounds",
            ..
        }))
    ));
    let long = AssistantConfig::named("x".repeat(201));
    assert!(matches!(
        store.create_assistant(&owner, &long).await,
        Err(StoreError::Invalid(Invalid::LongerThan {
            field: "name",
            max: 200
        }))
    ));
    let mut ghost = AssistantConfig::named("ghost");
    ghost.provider_id = Some("no-such-provider".into());
    assert!(matches!(
        store.create_assistant(&owner, &ghost).await,
        Err(StoreError::NotFound { .. })
    ));

    store.delete_assistant(&owner, &created.id).await.unwrap();
    assert!(store.assistants(&owner).await.unwrap().is_empty());
}

async fn assistant_servers_are_ordered_checked_and_follow_deletes(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    for name in ["a", "b", "c"] {
        store
            .create_server(&owner, &secret_spec(name))
            .await
            .unwrap();
    }
    let assistant = store
        .create_assistant(&owner, &AssistantConfig::named("helper"))
        .await
        .unwrap();
    let ids = |names: &[&str]| {
        names
            .iter()
            .map(|n| ServerId((*n).into()))
            .collect::<Vec<_>>()
    };

    let set = store
        .set_assistant_servers(&owner, &assistant.id, &ids(&["c", "a", "c"]))
        .await
        .unwrap();
    assert_eq!(set.server_ids, ids(&["c", "a"]));
    assert_eq!(
        store
            .assistant(&owner, &assistant.id)
            .await
            .unwrap()
            .server_ids,
        ids(&["c", "a"])
    );

    // An unknown server refuses the whole change.
    let err = store
        .set_assistant_servers(&owner, &assistant.id, &ids(&["b", "nope"]))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
    assert_eq!(
        store
            .assistant(&owner, &assistant.id)
            .await
            .unwrap()
            .server_ids,
        ids(&["c", "a"])
    );

    store
        .delete_server(&owner, &ServerId("c".into()))
        .await
        .unwrap();
    let listed = store.assistants(&owner).await.unwrap();
    assert_eq!(listed[0].server_ids, ids(&["a"]));

    store.delete_assistant(&owner, &assistant.id).await.unwrap();
    assert!(matches!(
        store
            .set_assistant_servers(&owner, &assistant.id, &ids(&["a"]))
            .await,
        Err(StoreError::NotFound { .. })
    ));
}
