use switchboard_core::MASK;
use switchboard_store::{AssistantConfig, Invalid, ProviderConfig, ProviderKind, StoreError};

use crate::common::TestDb;

crate::on_both_backends!(
    providers_keep_their_key_secret,
    deleting_a_provider_unsets_it_on_assistants,
    a_kept_key_follows_the_url_within_its_origin_only,
);

pub fn openai(name: &str, key: Option<&str>) -> ProviderConfig {
    ProviderConfig {
        name: name.into(),
        kind: ProviderKind::OpenAi,
        base_url: Some("https://api.deepseek.com/v1".into()),
        api_key: key.map(Into::into),
        default_model: "deepseek-chat".into(),
        keep_api_key: false,
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

    // The masked key does not follow the provider to a new origin unasked.
    let mut redirected = edited.clone();
    redirected.base_url = Some("https://attacker.example/v1".into());
    assert!(matches!(
        store.update_provider(&owner, &id, &redirected).await,
        Err(StoreError::Invalid(Invalid::KeyForNewOrigin { .. }))
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

async fn a_kept_key_follows_the_url_within_its_origin_only(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let created = store
        .create_provider(&owner, &openai("deepseek", Some("sk-live-1")))
        .await
        .unwrap();
    let id = created.id.clone();
    let key = |p: switchboard_store::Provider| p.config.api_key;

    // Another path at the same origin keeps the key silently.
    let mut moved = created.config.clone();
    moved.base_url = Some("https://api.deepseek.com/beta/v1".into());
    store.update_provider(&owner, &id, &moved).await.unwrap();
    let clear = store.provider_with_key(&owner, &id).await.unwrap();
    assert_eq!(
        clear.config.base_url.as_deref(),
        Some("https://api.deepseek.com/beta/v1")
    );
    assert_eq!(key(clear).as_deref(), Some("sk-live-1"));

    // Another origin (here another port) is refused, naming both, and nothing changes.
    moved.base_url = Some("https://api.deepseek.com:8443/v1".into());
    match store.update_provider(&owner, &id, &moved).await {
        Err(StoreError::Invalid(Invalid::KeyForNewOrigin { from, to })) => {
            assert_eq!(from, "https://api.deepseek.com");
            assert_eq!(to, "https://api.deepseek.com:8443");
        }
        other => panic!("expected KeyForNewOrigin, got {other:?}"),
    }
    let unchanged = store.provider_with_key(&owner, &id).await.unwrap();
    assert_eq!(
        unchanged.config.base_url.as_deref(),
        Some("https://api.deepseek.com/beta/v1")
    );

    // Confirmed, the key goes along; the confirmation itself is not stored.
    moved.keep_api_key = true;
    let updated = store.update_provider(&owner, &id, &moved).await.unwrap();
    assert!(!updated.config.keep_api_key);
    assert_eq!(updated.config.api_key.as_deref(), Some(MASK));
    let clear = store.provider_with_key(&owner, &id).await.unwrap();
    assert_eq!(
        clear.config.base_url.as_deref(),
        Some("https://api.deepseek.com:8443/v1")
    );
    assert_eq!(key(clear).as_deref(), Some("sk-live-1"));

    // A new key needs no confirmation; without a URL the kind's endpoint is the origin.
    let mut fresh = moved.clone();
    fresh.keep_api_key = false;
    fresh.base_url = Some("http://localhost:11434/v1".into());
    fresh.api_key = Some("sk-local".into());
    store.update_provider(&owner, &id, &fresh).await.unwrap();
    fresh.api_key = Some(MASK.into());
    fresh.base_url = None;
    assert!(matches!(
        store.update_provider(&owner, &id, &fresh).await,
        Err(StoreError::Invalid(Invalid::KeyForNewOrigin { to, .. })) if to == "https://api.openai.com"
    ));
}
