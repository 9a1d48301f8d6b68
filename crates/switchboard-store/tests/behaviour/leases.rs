use std::time::Duration;

use futures::StreamExt;
use switchboard_store::{Backend, NewConversation};

use crate::common::TestDb;

crate::on_both_backends!(
    one_holder_at_a_time_runs_a_conversation,
    signals_reach_listeners
);

async fn one_holder_at_a_time_runs_a_conversation(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let conversation = store
        .create_conversation(&owner, &NewConversation::default())
        .await
        .unwrap()
        .id;
    let long = Duration::from_secs(60);
    assert!(store.lease_run(&conversation, "a", long).await.unwrap());
    // Renewing one's own lease works; another holder is refused while it lasts.
    assert!(store.lease_run(&conversation, "a", long).await.unwrap());
    assert!(!store.lease_run(&conversation, "b", long).await.unwrap());
    // Releasing someone else's lease does nothing.
    store.release_run(&conversation, "b").await.unwrap();
    assert!(!store.lease_run(&conversation, "b", long).await.unwrap());
    store.release_run(&conversation, "a").await.unwrap();
    assert!(store.lease_run(&conversation, "b", long).await.unwrap());
    // An expired lease (a holder that died) is taken over.
    assert!(
        store
            .lease_run(&conversation, "c", Duration::ZERO)
            .await
            .is_ok()
    );
    store.release_run(&conversation, "b").await.unwrap();
    assert!(
        store
            .lease_run(&conversation, "c", Duration::ZERO)
            .await
            .unwrap()
    );
    assert!(store.lease_run(&conversation, "d", long).await.unwrap());
    // Deleting the conversation drops its lease.
    store
        .delete_conversation(&owner, &conversation)
        .await
        .unwrap();
}

async fn signals_reach_listeners(db: &TestDb) {
    let store = &db.store;
    let listening = store.listen("switchboard_test").await.unwrap();
    match store.backend() {
        Backend::Sqlite => assert!(listening.is_none()),
        _ => {
            let mut signals = listening.unwrap();
            store.notify("switchboard_test", "one").await.unwrap();
            store
                .notify("switchboard_other", "elsewhere")
                .await
                .unwrap();
            store.notify("switchboard_test", "two").await.unwrap();
            assert_eq!(signals.next().await.unwrap(), "one");
            assert_eq!(signals.next().await.unwrap(), "two");
        }
    }
    // Where there are no signals, sending one is not an error.
    store.notify("switchboard_test", "three").await.unwrap();
}
