use switchboard_core::{Locale, OwnerId};
use switchboard_store::{Invalid, Role, StoreError, TOKEN_PREFIX, Timestamp};

use crate::common::TestDb;

crate::on_both_backends!(
    users_are_created_listed_and_deleted,
    tokens_authenticate_until_revoked,
    tokens_with_an_expiry_date_stop_working_then,
    a_users_locale_is_kept_until_cleared
);

async fn users_are_created_listed_and_deleted(db: &TestDb) {
    let store = &db.store;
    let ada = store.create_user("ada", Role::Admin).await.unwrap();
    assert_eq!(store.user(&ada.id).await.unwrap(), ada);
    let err = store.create_user("ada", Role::Member).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict { .. }), "{err}");
    assert!(matches!(
        store.create_user("  ", Role::Member).await,
        Err(StoreError::Invalid(Invalid::Empty { field: "name" }))
    ));

    let local = store
        .ensure_user(&OwnerId::local(), "local", Role::Admin)
        .await
        .unwrap();
    let again = store
        .ensure_user(&OwnerId::local(), "local", Role::Admin)
        .await
        .unwrap();
    assert_eq!(local, again);
    let names: Vec<String> = store
        .users()
        .await
        .unwrap()
        .into_iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"ada".to_owned()) && names.contains(&"local".to_owned()));

    store.delete_user(&ada.id).await.unwrap();
    assert!(matches!(
        store.user(&ada.id).await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.delete_user(&ada.id).await,
        Err(StoreError::NotFound { .. })
    ));
}

async fn tokens_authenticate_until_revoked(db: &TestDb) {
    let store = &db.store;
    let user = db.user("grace").await;
    let issued = store.issue_token(&user.id, "laptop").await.unwrap();
    assert!(issued.secret.starts_with(TOKEN_PREFIX));
    assert!(!format!("{issued:?}").contains(&issued.secret));
    let found = store.user_by_token(&issued.secret).await.unwrap();
    assert_eq!(found.as_ref().map(|u| &u.id), Some(&user.id));
    assert_eq!(store.user_by_token("sb_wrong").await.unwrap(), None);

    let listed = store.tokens(&user.id).await.unwrap();
    assert_eq!(listed, vec![issued.token.clone()]);

    store
        .revoke_token(&user.id, &issued.token.id)
        .await
        .unwrap();
    assert_eq!(store.user_by_token(&issued.secret).await.unwrap(), None);
    assert!(store.tokens(&user.id).await.unwrap().is_empty());

    // A token dies with its user.
    let second = store.issue_token(&user.id, "phone").await.unwrap();
    store.delete_user(&user.id).await.unwrap();
    assert_eq!(store.user_by_token(&second.secret).await.unwrap(), None);
    assert!(matches!(
        store.issue_token(&user.id, "x").await,
        Err(StoreError::NotFound { .. })
    ));
}

async fn tokens_with_an_expiry_date_stop_working_then(db: &TestDb) {
    let store = &db.store;
    let user = db.user("hedy").await;
    let later = Timestamp(Timestamp::now().0 + 3_600_000);
    let live = store
        .issue_token_until(&user.id, "for an hour", Some(later))
        .await
        .unwrap();
    assert_eq!(live.token.expires_at, Some(later));
    let found = store.user_by_token(&live.secret).await.unwrap();
    assert_eq!(found.map(|u| u.id), Some(user.id.clone()));

    let past = Timestamp(Timestamp::now().0 - 1);
    let expired = store
        .issue_token_until(&user.id, "expired", Some(past))
        .await
        .unwrap();
    assert_eq!(store.user_by_token(&expired.secret).await.unwrap(), None);
    // Still listed (with its date), so an admin sees why it fails and can revoke it.
    let listed = store.tokens(&user.id).await.unwrap();
    assert!(
        listed
            .iter()
            .any(|t| t.id == expired.token.id && t.expires_at == Some(past))
    );
}

async fn a_users_locale_is_kept_until_cleared(db: &TestDb) {
    let store = &db.store;
    let user = db.user("lin").await;
    assert_eq!(user.locale, None, "a new user follows the browser");
    let set = store
        .set_user_locale(&user.id, Some(Locale::ZhHans))
        .await
        .unwrap();
    assert_eq!(set.locale, Some(Locale::ZhHans));
    assert_eq!(
        store.user(&user.id).await.unwrap().locale,
        Some(Locale::ZhHans)
    );
    let issued = store.issue_token(&user.id, "t").await.unwrap();
    let by_token = store.user_by_token(&issued.secret).await.unwrap().unwrap();
    assert_eq!(
        by_token.locale,
        Some(Locale::ZhHans),
        "authentication reads it too"
    );
    let listed = store.users().await.unwrap();
    assert!(
        listed
            .iter()
            .any(|u| u.id == user.id && u.locale == Some(Locale::ZhHans))
    );

    let cleared = store.set_user_locale(&user.id, None).await.unwrap();
    assert_eq!(cleared.locale, None);
    assert_eq!(store.user(&user.id).await.unwrap().locale, None);
    assert!(matches!(
        store
            .set_user_locale(&OwnerId("nobody".into()), Some(Locale::EnUs))
            .await,
        Err(StoreError::NotFound { .. })
    ));
}
