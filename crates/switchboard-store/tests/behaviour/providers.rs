use switchboard_core::MASK;
use switchboard_store::{AssistantConfig, Invalid, ProviderConfig, ProviderKind, StoreError};

use crate::common::TestDb;

crate::on_both_backends!(
    providers_keep_their_key_secret,
    deleting_a_provider_unsets_it_on_assistants,
);

pub fn openai(name: &str, key: Option<&str>) -> ProviderConfig {
    ProviderConfig {
        name: name.into(),
        kind: ProviderKind::OpenAi,
        base_url: Some("https://api.deepseek.com/v1".into()),
        api_key: key.map(Into::into),
        default_model: "deepseek-chat".into(),
    }
}

async fn providers_keep_their_key_secret(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let created = store
        .create_provider(&owner, &openai("deepseek", Some("sk-live-123")))
        .await
        .unwrap();
    assert_eq!(created.config.api_key.as_deref(), Some(MASK));
    assert!(!format!("{created:?}").contains("sk-live-123"));
    let id = created.id.clone();
    assert_eq!(store.provider(&owner, &id).await.unwrap(), created);
    let clear = store.provider_with_key(&owner, &id).await.unwrap();
    assert_eq!(clear.config.api_key.as_deref(), Some("sk-live-123"));

    // The masked key sent back keeps the stored one.
    let mut edited = created.config.clone();
    edited.default_model = "deepseek-reasoner".into();
    let updated = store.update_provider(&owner, &id, &edited).await.unwrap();
    assert_eq!(updated.config.default_model, "deepseek-reasoner");
    let clear = store.provider_with_key(&owner, &id).await.unwrap();
    assert_eq!(clear.config.api_key.as_deref(), Some("sk-live-123"));

    // The masked key does not follow the provider to a new endpoint.
    let mut redirected = edited.clone();
    redirected.base_url = Some("https://attacker.example/v1".into());
    assert!(matches!(
        store.update_provider(&owner, &id, &redirected).await,
        Err(StoreError::Invalid(Invalid::MaskForNewDestination { .. }))
    ));

    // A new key replaces it; no key removes it.
    edited.api_key = Some("sk-live-456".into());
    store.update_provider(&owner, &id, &edited).await.unwrap();
    let clear = store.provider_with_key(&owner, &id).await.unwrap();
    assert_eq!(clear.config.api_key.as_deref(), Some("sk-live-456"));
    edited.api_key = None;
    store.update_provider(&owner, &id, &edited).await.unwrap();
    let clear = store.provider_with_key(&owner, &id).await.unwrap();
    assert_eq!(clear.config.api_key, None);

    assert!(matches!(
        store
            .create_provider(&owner, &openai("deepseek", None))
            .await,
        Err(StoreError::Conflict { .. })
    ));
    let mut bad = openai("bad", None);
    bad.base_url = Some("file:///etc/passwd".into());
    assert!(matches!(
        store.create_provider(&owner, &bad).await,
        Err(StoreError::Invalid(Invalid::BaseUrl(_)))
    ));
    assert_eq!(store.providers(&owner).await.unwrap().len(), 1);

    store.delete_provider(&owner, &id).await.unwrap();
    assert!(matches!(
        store.provider(&owner, &id).await,
        Err(StoreError::NotFound { .. })
    ));
}

async fn deleting_a_provider_unsets_it_on_assistants(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let provider = store
        .create_provider(&owner, &openai("p", Some("k")))
        .await
        .unwrap();
    let mut config = AssistantConfig::named("helper");
    config.provider_id = Some(provider.id.clone());
    let assistant = store.create_assistant(&owner, &config).await.unwrap();
    store.delete_provider(&owner, &provider.id).await.unwrap();
    let after = store.assistant(&owner, &assistant.id).await.unwrap();
    assert_eq!(after.config.provider_id, None);
}
