//! The reads the hot path repeats are kept in memory, and every write of the store
//! is seen at once by the next read: a server edited, renamed or deleted, a user's locale, a
//! token revoked or taken with its user or its view, a view renamed. Each read is made twice
//! first, so the second comes from memory when a write does not clear it.

use switchboard_core::{ServerId, ViewServer, ViewSpec};

use crate::common::TestDb;
use crate::servers::secret_spec;

crate::on_both_backends!(
    a_servers_spec_read_again_after_each_write_is_the_stored_one,
    what_a_token_opens_follows_revocation_its_view_and_its_user,
);

async fn a_servers_spec_read_again_after_each_write_is_the_stored_one(db: &TestDb) {
    let owner = db.user("ann").await.id;
    let store = &db.store;
    let id = ServerId("files".into());
    store
        .create_server(&owner, &secret_spec("files"))
        .await
        .unwrap();
    for _ in 0..2 {
        assert_eq!(
            store.connection_spec(&owner, &id).await.unwrap().name,
            "files"
        );
        assert_eq!(store.connection_specs(&owner).await.unwrap().len(), 1);
    }
    let mut renamed = secret_spec("files");
    renamed.name = "documents".into();
    renamed.id = id.clone();
    store.update_server(&owner, &id, &renamed).await.unwrap();
    assert_eq!(
        store.connection_spec(&owner, &id).await.unwrap().name,
        "documents"
    );
    assert_eq!(
        store.connection_specs(&owner).await.unwrap()[0].name,
        "documents"
    );
    // A switch flipped through an edit.
    store
        .edit_server(&owner, &id, &|old| {
            let mut new = old.clone();
            new.enabled = false;
            Ok(new)
        })
        .await
        .unwrap();
    assert!(!store.connection_spec(&owner, &id).await.unwrap().enabled);
    store
        .create_server(&owner, &secret_spec("weather"))
        .await
        .unwrap();
    assert_eq!(store.connection_specs(&owner).await.unwrap().len(), 2);
    store.delete_server(&owner, &id).await.unwrap();
    assert!(store.connection_spec(&owner, &id).await.is_err());
    assert_eq!(store.connection_specs(&owner).await.unwrap().len(), 1);
    // The secrets come back in clear from memory too.
    let weather = store
        .connection_spec(&owner, &ServerId("weather".into()))
        .await
        .unwrap();
    assert_eq!(weather, secret_spec("weather"));
}

async fn what_a_token_opens_follows_revocation_its_view_and_its_user(db: &TestDb) {
    let store = &db.store;
    let ann = db.user("ann").await;
    let issued = store.issue_token(&ann.id, "laptop").await.unwrap();
    for _ in 0..2 {
        let access = store.token_access(&issued.secret).await.unwrap().unwrap();
        assert_eq!(access.user.id, ann.id);
        assert_eq!(store.user(&ann.id).await.unwrap().locale, None);
    }
    store
        .set_user_locale(&ann.id, Some(switchboard_core::Locale::ZhHans))
        .await
        .unwrap();
    let access = store.token_access(&issued.secret).await.unwrap().unwrap();
    assert_eq!(access.user.locale, Some(switchboard_core::Locale::ZhHans));
    store.revoke_token(&ann.id, &issued.token.id).await.unwrap();
    assert_eq!(store.token_access(&issued.secret).await.unwrap(), None);

    // A token limited to a view shows the view's new name, and goes with the view.
    store
        .create_server(&ann.id, &secret_spec("files"))
        .await
        .unwrap();
    let view = store
        .create_view(
            &ann.id,
            &ViewSpec {
                tool_exposure: Default::default(),
                pinned_tools: Vec::new(),
                tasks: None,
                name: "desktop".into(),
                description: None,
                assistant_id: None,
                servers: vec![ViewServer {
                    server_id: ServerId("files".into()),
                    tools: None,
                    prefix: None,
                }],
            },
        )
        .await
        .unwrap();
    let limited = store
        .issue_token_for(&ann.id, "claude", None, Some(&view.id))
        .await
        .unwrap();
    for _ in 0..2 {
        let access = store.token_access(&limited.secret).await.unwrap().unwrap();
        assert_eq!(access.view.unwrap().name, "desktop");
    }
    let mut renamed = view.spec.clone();
    renamed.name = "cursor".into();
    store
        .update_view(&ann.id, &view.id, &renamed)
        .await
        .unwrap();
    let access = store.token_access(&limited.secret).await.unwrap().unwrap();
    assert_eq!(access.view.unwrap().name, "cursor");
    store.delete_view(&ann.id, &view.id).await.unwrap();
    assert_eq!(store.token_access(&limited.secret).await.unwrap(), None);

    // A user deleted takes their tokens along.
    let other = store.issue_token(&ann.id, "phone").await.unwrap();
    assert!(store.token_access(&other.secret).await.unwrap().is_some());
    store.delete_user(&ann.id).await.unwrap();
    assert_eq!(store.token_access(&other.secret).await.unwrap(), None);
    assert!(store.user(&ann.id).await.is_err());
}

/// Two replicas on one Postgres: what one changes, the other stops keeping as soon as the
/// change notice comes (well before the cache's one-second TTL could explain it).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_change_on_another_replica_is_seen_before_the_ttl() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let other = switchboard_store::open(&db.config).await.unwrap();
    let owner = db.user("ann").await.id;
    let id = ServerId("files".into());
    db.store
        .create_server(&owner, &secret_spec("files"))
        .await
        .unwrap();
    // Kept by this replica (read twice).
    for _ in 0..2 {
        assert_eq!(
            db.store.connection_spec(&owner, &id).await.unwrap().name,
            "files"
        );
    }
    let kept_at = std::time::Instant::now();
    let mut renamed = secret_spec("files");
    renamed.name = "documents".into();
    other.update_server(&owner, &id, &renamed).await.unwrap();
    // The notice travels through the database: looked for until it is seen, for less than
    // the TTL.
    loop {
        let name = db.store.connection_spec(&owner, &id).await.unwrap().name;
        if name == "documents" {
            break;
        }
        assert!(
            kept_at.elapsed() < std::time::Duration::from_millis(800),
            "the other replica's change was not announced"
        );
        tokio::task::yield_now().await;
    }
    other.close().await;
}
