//! OAuth sign-ins: a server's OAuth settings round-trip with the client secret
//! sealed and masked; each person's tokens per server are kept, replaced and forgotten, and go
//! with their server; another owner's server is not found; a sign-in under way is found by its
//! state until it is deleted or expires, and the oldest give way past the bound; and on
//! Postgres a refresh lock holds a second replica until it is dropped.

use std::time::Duration;

use switchboard_core::{Auth, MASK, ServerId, ServerSpec};
use switchboard_store::{Backend, Entity, StoreError};

use crate::common::TestDb;

crate::on_both_backends!(
    oauth_settings_round_trip_with_the_secret_masked,
    tokens_are_kept_per_server_and_go_with_it,
    another_owners_server_has_no_tokens_to_keep,
    a_sign_in_under_way_is_found_by_its_state_once,
    the_oldest_sign_ins_give_way_past_the_bound,
    a_refresh_lock_holds_other_replicas_until_dropped,
);

fn oauth_spec(name: &str) -> ServerSpec {
    ServerSpec::http(name, "https://mcp.example.com/mcp", None).with_auth(Auth::OAuth {
        client_id: Some("switchboard-client".into()),
        client_secret: Some("client-secret-4719".into()),
        scopes: vec!["notes:read".into(), "offline_access".into()],
    })
}

async fn oauth_settings_round_trip_with_the_secret_masked(db: &TestDb) {
    let owner = db.user("ann").await.id;
    let spec = oauth_spec("notes");
    let stored = db.store.create_server(&owner, &spec).await.unwrap();
    assert_eq!(
        stored.spec.auth,
        Auth::OAuth {
            client_id: Some("switchboard-client".into()),
            client_secret: Some(MASK.into()),
            scopes: vec!["notes:read".into(), "offline_access".into()],
        }
    );
    assert_eq!(
        db.store.connection_spec(&owner, &spec.id).await.unwrap(),
        spec
    );

    // Saved back with the mask, the secret stays; without settings, OAuth stays on.
    let mut edited = stored.spec.clone();
    edited.name = "notes-2".into();
    db.store
        .update_server(&owner, &spec.id, &edited)
        .await
        .unwrap();
    let read = db.store.connection_spec(&owner, &spec.id).await.unwrap();
    assert_eq!(read.auth, spec.auth);
    let bare =
        ServerSpec::http("bare", "https://bare.example.com/mcp", None).with_auth(Auth::OAuth {
            client_id: None,
            client_secret: None,
            scopes: Vec::new(),
        });
    db.store.create_server(&owner, &bare).await.unwrap();
    assert_eq!(
        db.store
            .connection_spec(&owner, &bare.id)
            .await
            .unwrap()
            .auth,
        bare.auth
    );
}

async fn tokens_are_kept_per_server_and_go_with_it(db: &TestDb) {
    let owner = db.user("ann").await.id;
    let (one, two) = (oauth_spec("one"), oauth_spec("two"));
    db.store.create_server(&owner, &one).await.unwrap();
    db.store.create_server(&owner, &two).await.unwrap();
    assert_eq!(
        db.store.oauth_credentials(&owner, &one.id).await.unwrap(),
        None
    );

    db.store
        .save_oauth_credentials(&owner, &one.id, r#"{"token":"first"}"#)
        .await
        .unwrap();
    db.store
        .save_oauth_credentials(&owner, &one.id, r#"{"token":"second"}"#)
        .await
        .unwrap();
    db.store
        .save_oauth_credentials(&owner, &two.id, r#"{"token":"other"}"#)
        .await
        .unwrap();
    assert_eq!(
        db.store
            .oauth_credentials(&owner, &one.id)
            .await
            .unwrap()
            .as_deref(),
        Some(r#"{"token":"second"}"#)
    );
    assert!(
        db.store
            .delete_oauth_credentials(&owner, &one.id)
            .await
            .unwrap()
    );
    assert!(
        !db.store
            .delete_oauth_credentials(&owner, &one.id)
            .await
            .unwrap()
    );
    assert_eq!(
        db.store.oauth_credentials(&owner, &one.id).await.unwrap(),
        None
    );

    // Deleting the server deletes its tokens (a server of the same id later starts afresh).
    db.store.delete_server(&owner, &two.id).await.unwrap();
    db.store.create_server(&owner, &two).await.unwrap();
    assert_eq!(
        db.store.oauth_credentials(&owner, &two.id).await.unwrap(),
        None
    );
}

async fn another_owners_server_has_no_tokens_to_keep(db: &TestDb) {
    let ann = db.user("ann").await.id;
    let bob = db.user("bob").await.id;
    let spec = oauth_spec("notes");
    db.store.create_server(&ann, &spec).await.unwrap();
    db.store
        .save_oauth_credentials(&ann, &spec.id, "ann's")
        .await
        .unwrap();
    let refused = db
        .store
        .save_oauth_credentials(&bob, &spec.id, "bob's")
        .await
        .unwrap_err();
    assert!(
        matches!(
            refused,
            StoreError::NotFound {
                entity: Entity::Server,
                ..
            }
        ),
        "{refused:?}"
    );
    assert_eq!(
        db.store.oauth_credentials(&bob, &spec.id).await.unwrap(),
        None
    );
    assert!(
        !db.store
            .delete_oauth_credentials(&bob, &spec.id)
            .await
            .unwrap()
    );
    let pending = db
        .store
        .save_oauth_pending(&bob, &spec.id, "bobs-state", "{}")
        .await
        .unwrap_err();
    assert!(
        matches!(pending, StoreError::NotFound { .. }),
        "{pending:?}"
    );
    assert_eq!(
        db.store
            .oauth_credentials(&ann, &spec.id)
            .await
            .unwrap()
            .as_deref(),
        Some("ann's")
    );
}

async fn a_sign_in_under_way_is_found_by_its_state_once(db: &TestDb) {
    let owner = db.user("ann").await.id;
    let spec = oauth_spec("notes");
    db.store.create_server(&owner, &spec).await.unwrap();
    db.store
        .save_oauth_pending(&owner, &spec.id, "state-1", r#"{"pkce":"verifier"}"#)
        .await
        .unwrap();
    let found = db.store.oauth_pending("state-1").await.unwrap().unwrap();
    assert_eq!(
        (found.owner, found.server),
        (owner.clone(), spec.id.clone())
    );
    assert_eq!(found.payload, r#"{"pkce":"verifier"}"#);
    assert!(db.store.oauth_pending("state-2").await.unwrap().is_none());
    assert!(db.store.delete_oauth_pending("state-1").await.unwrap());
    assert!(!db.store.delete_oauth_pending("state-1").await.unwrap());
    assert!(db.store.oauth_pending("state-1").await.unwrap().is_none());
}

async fn the_oldest_sign_ins_give_way_past_the_bound(db: &TestDb) {
    let owner = db.user("ann").await.id;
    let other = db.user("bob").await.id;
    let spec = oauth_spec("notes");
    db.store.create_server(&owner, &spec).await.unwrap();
    db.store.create_server(&other, &spec).await.unwrap();
    db.store
        .save_oauth_pending(&other, &spec.id, "bobs", "{}")
        .await
        .unwrap();
    for n in 0..20 {
        db.store
            .save_oauth_pending(&owner, &spec.id, &format!("state-{n:02}"), "{}")
            .await
            .unwrap();
    }
    let mut kept = 0;
    for n in 0..20 {
        if db
            .store
            .oauth_pending(&format!("state-{n:02}"))
            .await
            .unwrap()
            .is_some()
        {
            kept += 1;
            assert!(n >= 4, "state-{n:02} should have given way");
        }
    }
    assert_eq!(kept, 16);
    // Another person's sign-ins do not count against this one's bound.
    assert!(db.store.oauth_pending("bobs").await.unwrap().is_some());
}

async fn a_refresh_lock_holds_other_replicas_until_dropped(db: &TestDb) {
    let owner = db.user("ann").await.id;
    let spec = oauth_spec("notes");
    db.store.create_server(&owner, &spec).await.unwrap();
    let unknown = db
        .store
        .lock_oauth_refresh(&owner, &ServerId("missing".into()))
        .await;
    if db.store.backend() == Backend::Sqlite {
        // One process serves SQLite: the manager's own lock is the whole of it.
        assert!(unknown.is_ok());
        return;
    }
    assert!(matches!(unknown, Err(StoreError::NotFound { .. })));
    let held = db.store.lock_oauth_refresh(&owner, &spec.id).await.unwrap();
    let store = std::sync::Arc::clone(&db.store);
    let (owner2, server2) = (owner.clone(), spec.id.clone());
    let second = tokio::spawn(async move { store.lock_oauth_refresh(&owner2, &server2).await });
    // The first replica saves its new tokens while it holds the lock (no deadlock) ...
    db.store
        .save_oauth_credentials(&owner, &spec.id, "refreshed")
        .await
        .unwrap();
    // ... and the second waits for the row: Postgres shows its lock request not granted.
    use sqlx::Connection;
    let mut watcher = sqlx::PgConnection::connect(db.db_url().unwrap())
        .await
        .unwrap();
    let waiting = async {
        loop {
            let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM pg_locks WHERE NOT granted")
                .fetch_one(&mut watcher)
                .await
                .unwrap();
            if n > 0 {
                break;
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("the second replica waits for the lock");
    assert!(!second.is_finished(), "the second lock did not wait");
    drop(held);
    let second = tokio::time::timeout(Duration::from_secs(10), second)
        .await
        .expect("the second lock is taken once the first is dropped")
        .unwrap();
    assert!(second.is_ok());
}
