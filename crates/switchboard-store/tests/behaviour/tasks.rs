//! Tasks: kept for their owner only, bounded per person and per server (also when created at
//! once), each due task polled by one holder at a time, a holder whose lease was taken over
//! unable to write, a living holder keeping its tasks however long until their next poll,
//! and a cancel making the task due at once.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use switchboard_core::{OwnerId, ServerId};
use switchboard_store::{
    Entity, LiveStatus, NewTask, StoreError, TaskCursor, TaskEnd, TaskFilter, TaskKind, TaskOrigin,
    TaskPoll, TaskQuota, TaskStatus, TaskUpstream, Timestamp,
};

use crate::common::TestDb;

crate::on_both_backends!(
    a_task_is_its_owners_only,
    live_tasks_are_bounded_per_person_and_per_server,
    creations_at_once_stop_at_the_quota,
    each_due_task_goes_to_one_holder,
    a_holder_that_renews_keeps_its_tasks,
    only_the_holder_records_polls_and_ends,
    a_cancel_makes_the_task_due_at_once,
    a_task_held_from_the_start_turns_into_its_servers,
    ended_tasks_are_forgotten_after_a_while,
    a_gateway_task_keeps_its_view,
    tasks_are_listed_by_origin_and_view_a_page_at_a_time
);

const LONG: Duration = Duration::from_secs(60);

fn new_task(server: &str, next_poll_at: Timestamp) -> NewTask {
    NewTask {
        server_id: ServerId(server.to_owned()),
        tool: "simulate-research-query".to_owned(),
        origin: TaskOrigin::Api,
        kind: TaskKind::Legacy,
        conversation_id: None,
        message_id: None,
        call_id: None,
        view_id: None,
        upstream_id: Some("upstream-1".to_owned()),
        status: LiveStatus::Working,
        status_message: Some("Gathering sources...".to_owned()),
        poll_interval_ms: Some(1000),
        ttl_ms: Some(300_000),
        next_poll_at,
        holder: None,
    }
}

fn due() -> Timestamp {
    Timestamp(Timestamp::now().0 - 1)
}

fn later() -> Timestamp {
    Timestamp(Timestamp::now().0 + 3_600_000)
}

async fn a_task_is_its_owners_only(db: &TestDb) {
    let owner = db.local().await;
    let other = db.user("other").await.id;
    let store = &db.store;
    let created = store
        .create_task(&owner, &new_task("s1", due()), TaskQuota::default())
        .await
        .unwrap();
    assert!(created.id.starts_with("tsk_"), "{}", created.id);
    assert_eq!(created.status, TaskStatus::Working);
    assert_eq!(created.upstream_id.as_deref(), Some("upstream-1"));
    assert_eq!(created.poll_interval_ms, Some(1000));
    assert!(created.is_live() && created.holder.is_none() && !created.cancel_requested);
    assert_eq!(store.task(&owner, &created.id).await.unwrap(), created);
    for error in [
        store.task(&other, &created.id).await.unwrap_err(),
        store
            .request_task_cancel(&other, &created.id)
            .await
            .unwrap_err(),
    ] {
        assert!(
            matches!(
                error,
                StoreError::NotFound {
                    entity: Entity::Task,
                    ..
                }
            ),
            "{error:?}"
        );
    }
    assert!(
        !store
            .task(&owner, &created.id)
            .await
            .unwrap()
            .cancel_requested
    );
}

async fn live_tasks_are_bounded_per_person_and_per_server(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let quota = TaskQuota {
        per_user: Some(2),
        per_server: Some(1),
    };
    let first = store
        .create_task(&owner, &new_task("s1", due()), quota)
        .await
        .unwrap();
    let refused = store
        .create_task(&owner, &new_task("s1", due()), quota)
        .await
        .unwrap_err();
    assert!(
        matches!(
            refused,
            StoreError::QuotaExceeded {
                entity: Entity::Task,
                limit: 1
            }
        ),
        "{refused:?}"
    );
    store
        .create_task(&owner, &new_task("s2", due()), quota)
        .await
        .unwrap();
    let refused = store
        .create_task(&owner, &new_task("s3", due()), quota)
        .await
        .unwrap_err();
    assert!(
        matches!(refused, StoreError::QuotaExceeded { limit: 2, .. }),
        "{refused:?}"
    );
    // Another person has quota of their own.
    let other = db.user("other").await.id;
    store
        .create_task(&other, &new_task("s1", due()), quota)
        .await
        .unwrap();
    // A task that ended no longer counts.
    let claimed = store.claim_due_tasks("a", LONG, 10).await.unwrap();
    assert!(claimed.iter().any(|task| task.id == first.id));
    assert!(
        store
            .finish_task(&first.id, "a", TaskEnd::Completed, None)
            .await
            .unwrap()
    );
    store
        .create_task(&owner, &new_task("s1", due()), quota)
        .await
        .unwrap();
}

async fn creations_at_once_stop_at_the_quota(db: &TestDb) {
    let owner = db.local().await;
    let store = Arc::clone(&db.store);
    let quota = TaskQuota {
        per_user: Some(3),
        per_server: None,
    };
    let creations = (0..12).map(|i| {
        let store = Arc::clone(&store);
        let owner = owner.clone();
        tokio::spawn(async move {
            store
                .create_task(&owner, &new_task(&format!("s{i}"), due()), quota)
                .await
        })
    });
    let mut created = 0;
    for creation in futures::future::join_all(creations).await {
        match creation.unwrap() {
            Ok(_) => created += 1,
            Err(error) => assert!(
                matches!(error, StoreError::QuotaExceeded { limit: 3, .. }),
                "{error:?}"
            ),
        }
    }
    assert_eq!(created, 3);
}

async fn each_due_task_goes_to_one_holder(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let mut ids = Vec::new();
    for i in 0..6 {
        let task = store
            .create_task(
                &owner,
                &new_task(&format!("s{i}"), due()),
                TaskQuota::default(),
            )
            .await
            .unwrap();
        ids.push(task.id);
    }
    let not_due = store
        .create_task(&owner, &new_task("s9", later()), TaskQuota::default())
        .await
        .unwrap();
    let (a, b) = tokio::join!(
        store.claim_due_tasks("a", LONG, 4),
        store.claim_due_tasks("b", LONG, 4)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    let mut claimed: Vec<String> = a.iter().chain(&b).map(|task| task.id.clone()).collect();
    assert_eq!(claimed.len(), 6, "every due task, once: {a:?} {b:?}");
    claimed.sort();
    claimed.dedup();
    assert_eq!(claimed.len(), 6, "no task went to both holders");
    assert!(!claimed.contains(&not_due.id));
    assert!(a.iter().all(|task| task.holder.as_deref() == Some("a")));
    // While their leases last, another holder gets none; a holder gets its own again.
    assert!(
        store
            .claim_due_tasks("c", LONG, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let again = store.claim_due_tasks("a", LONG, 10).await.unwrap();
    assert_eq!(again.len(), a.len());
    // A lease that ran out (its holder died) is taken over.
    let expired = store
        .create_task(&owner, &new_task("s10", due()), TaskQuota::default())
        .await
        .unwrap();
    let taken = store
        .claim_due_tasks("dead", Duration::ZERO, 10)
        .await
        .unwrap();
    assert_eq!(taken.len(), 1);
    let taken_over = store.claim_due_tasks("c", LONG, 10).await.unwrap();
    assert_eq!(taken_over.len(), 1);
    assert_eq!(taken_over[0].id, expired.id);
}

async fn a_holder_that_renews_keeps_its_tasks(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    // Held by "a" with a lease that has run out, and due: another holder would take both.
    let mut held = new_task("s1", due());
    held.holder = Some(("a".to_owned(), due()));
    let kept = store
        .create_task(&owner, &held, TaskQuota::default())
        .await
        .unwrap();
    held.server_id = ServerId("s2".to_owned());
    held.holder = Some(("gone".to_owned(), due()));
    let orphan = store
        .create_task(&owner, &held, TaskQuota::default())
        .await
        .unwrap();
    assert_eq!(store.renew_task_holds("a", LONG).await.unwrap(), 1);
    let claimed = store.claim_due_tasks("b", LONG, 10).await.unwrap();
    let ids: Vec<&str> = claimed.iter().map(|task| task.id.as_str()).collect();
    assert_eq!(
        ids,
        [orphan.id.as_str()],
        "only the task whose holder went away"
    );
    assert_eq!(
        store.claim_due_tasks("a", LONG, 10).await.unwrap()[0].id,
        kept.id
    );
    // An ended task is no one's to renew.
    assert!(
        store
            .finish_task(
                &kept.id,
                "a",
                TaskEnd::Completed,
                Some(&json!({"result": {}}))
            )
            .await
            .unwrap()
    );
    assert_eq!(store.renew_task_holds("a", LONG).await.unwrap(), 0);
}

async fn only_the_holder_records_polls_and_ends(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let task = store
        .create_task(&owner, &new_task("s1", due()), TaskQuota::default())
        .await
        .unwrap();
    store
        .claim_due_tasks("a", Duration::ZERO, 10)
        .await
        .unwrap();
    let asking = TaskPoll {
        status: LiveStatus::InputRequired,
        status_message: Some("Which one?".to_owned()),
        poll_interval_ms: Some(2000),
        next_poll_at: due(),
        failures: 0,
    };
    assert!(
        !store
            .record_task_poll(&task.id, "b", &asking)
            .await
            .unwrap()
    );
    assert!(
        store
            .record_task_poll(&task.id, "a", &asking)
            .await
            .unwrap()
    );
    let polled = store.task(&owner, &task.id).await.unwrap();
    assert_eq!(polled.status, TaskStatus::InputRequired);
    assert_eq!(polled.status_message.as_deref(), Some("Which one?"));
    assert_eq!(polled.poll_interval_ms, Some(2000));
    // `a`'s lease ran out: `b` takes the task over, and `a` can no longer write.
    let taken = store.claim_due_tasks("b", LONG, 10).await.unwrap();
    assert_eq!(taken.len(), 1);
    assert!(
        !store
            .record_task_poll(&task.id, "a", &asking)
            .await
            .unwrap()
    );
    let outcome = json!({"content": [{"type": "text", "text": "done"}]});
    assert!(
        !store
            .finish_task(&task.id, "a", TaskEnd::Completed, Some(&outcome))
            .await
            .unwrap()
    );
    assert!(
        store
            .finish_task(&task.id, "b", TaskEnd::Completed, Some(&outcome))
            .await
            .unwrap()
    );
    let ended = store.task(&owner, &task.id).await.unwrap();
    assert_eq!(ended.status, TaskStatus::Completed);
    assert_eq!(ended.outcome, Some(outcome.clone()));
    assert!(ended.holder.is_none() && ended.finished_at.is_some());
    // An ended task is never due, and ends once.
    assert!(
        store
            .claim_due_tasks("b", LONG, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        !store
            .finish_task(&task.id, "b", TaskEnd::Failed, None)
            .await
            .unwrap()
    );
}

async fn a_cancel_makes_the_task_due_at_once(db: &TestDb) {
    let owner: OwnerId = db.local().await;
    let store = &db.store;
    let task = store
        .create_task(&owner, &new_task("s1", later()), TaskQuota::default())
        .await
        .unwrap();
    assert!(
        store
            .claim_due_tasks("a", LONG, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let asked = store.request_task_cancel(&owner, &task.id).await.unwrap();
    assert!(asked.cancel_requested);
    let claimed = store.claim_due_tasks("a", LONG, 10).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert!(claimed[0].cancel_requested);
    assert!(
        store
            .finish_task(&task.id, "a", TaskEnd::Cancelled, None)
            .await
            .unwrap()
    );
    // Cancelling an ended task leaves it as it is.
    let ended = store.request_task_cancel(&owner, &task.id).await.unwrap();
    assert_eq!(ended.status, TaskStatus::Cancelled);
}

async fn a_task_held_from_the_start_turns_into_its_servers(db: &TestDb) {
    let owner: OwnerId = db.local().await;
    let store = &db.store;
    let local = NewTask {
        kind: TaskKind::Local,
        upstream_id: None,
        holder: Some(("a".to_owned(), later())),
        ..new_task("s1", due())
    };
    let task = store
        .create_task(&owner, &local, TaskQuota::default())
        .await
        .unwrap();
    assert_eq!(task.holder.as_deref(), Some("a"));
    // Due, but held: no one else takes it while the hold lasts.
    assert!(
        store
            .claim_due_tasks("b", LONG, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let upstream = TaskUpstream {
        kind: TaskKind::Legacy,
        upstream_id: "upstream-9".to_owned(),
        status: LiveStatus::InputRequired,
        status_message: Some("Which one?".to_owned()),
        poll_interval_ms: Some(500),
        ttl_ms: Some(60_000),
        next_poll_at: later(),
    };
    assert!(
        !store
            .attach_task_upstream(&task.id, "b", &upstream)
            .await
            .unwrap(),
        "only its holder turns it"
    );
    assert!(
        store
            .attach_task_upstream(&task.id, "a", &upstream)
            .await
            .unwrap()
    );
    let turned = store.task(&owner, &task.id).await.unwrap();
    assert_eq!(turned.kind, TaskKind::Legacy);
    assert_eq!(turned.upstream_id.as_deref(), Some("upstream-9"));
    assert_eq!(turned.status, TaskStatus::InputRequired);
    assert_eq!(turned.status_message.as_deref(), Some("Which one?"));
    assert_eq!(turned.poll_interval_ms, Some(500));
    assert_eq!(turned.next_poll_at, upstream.next_poll_at);
}

async fn ended_tasks_are_forgotten_after_a_while(db: &TestDb) {
    let owner: OwnerId = db.local().await;
    let store = &db.store;
    let live = store
        .create_task(&owner, &new_task("s1", later()), TaskQuota::default())
        .await
        .unwrap();
    let ended = store
        .create_task(&owner, &new_task("s2", due()), TaskQuota::default())
        .await
        .unwrap();
    store.claim_due_tasks("a", LONG, 10).await.unwrap();
    assert!(
        store
            .finish_task(
                &ended.id,
                "a",
                TaskEnd::Completed,
                Some(&json!({"result": {}}))
            )
            .await
            .unwrap()
    );
    // Not before it ended.
    let before_end = Timestamp(Timestamp::now().0 - 60_000);
    assert_eq!(store.forget_ended_tasks(before_end).await.unwrap(), 0);
    let after_end = Timestamp(Timestamp::now().0 + 1);
    assert_eq!(store.forget_ended_tasks(after_end).await.unwrap(), 1);
    assert!(matches!(
        store.task(&owner, &ended.id).await,
        Err(StoreError::NotFound { .. })
    ));
    // A live task is kept however old.
    assert!(store.task(&owner, &live.id).await.is_ok());
}

async fn a_gateway_task_keeps_its_view(db: &TestDb) {
    let owner: OwnerId = db.local().await;
    let store = &db.store;
    let through_view = NewTask {
        origin: TaskOrigin::Gateway,
        view_id: Some("view-1".to_owned()),
        ..new_task("s1", later())
    };
    let task = store
        .create_task(&owner, &through_view, TaskQuota::default())
        .await
        .unwrap();
    assert_eq!(task.origin, TaskOrigin::Gateway);
    assert_eq!(task.view_id.as_deref(), Some("view-1"));
    assert_eq!(store.task(&owner, &task.id).await.unwrap(), task);
    let plain = store
        .create_task(&owner, &new_task("s1", later()), TaskQuota::default())
        .await
        .unwrap();
    assert_eq!(plain.view_id, None);
}

async fn tasks_are_listed_by_origin_and_view_a_page_at_a_time(db: &TestDb) {
    let owner: OwnerId = db.local().await;
    let store = &db.store;
    let through = |view: Option<&str>| NewTask {
        origin: TaskOrigin::Gateway,
        view_id: view.map(str::to_owned),
        ..new_task("s1", later())
    };
    let mut in_view = Vec::new();
    for _ in 0..3 {
        let task = store
            .create_task(&owner, &through(Some("view-1")), TaskQuota::default())
            .await
            .unwrap();
        in_view.push(task);
    }
    let bare = store
        .create_task(&owner, &through(None), TaskQuota::default())
        .await
        .unwrap();
    store
        .create_task(&owner, &new_task("s1", later()), TaskQuota::default())
        .await
        .unwrap();
    let filter = |view: Option<&str>, after: Option<TaskCursor>| TaskFilter {
        origin: TaskOrigin::Gateway,
        view_id: view.map(str::to_owned),
        after,
    };
    // Newest first: by creation time, then by id.
    in_view.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    let first = store
        .list_tasks(&owner, &filter(Some("view-1"), None), 2)
        .await
        .unwrap();
    assert_eq!(first, in_view[..2]);
    let last = &first[1];
    let cursor = TaskCursor {
        created_at: last.created_at,
        id: last.id.clone(),
    };
    let rest = store
        .list_tasks(&owner, &filter(Some("view-1"), Some(cursor)), 2)
        .await
        .unwrap();
    assert_eq!(rest, in_view[2..]);
    let without_view = store
        .list_tasks(&owner, &filter(None, None), 10)
        .await
        .unwrap();
    assert_eq!(without_view, vec![bare]);
    let other = OwnerId("someone-else".to_owned());
    assert!(
        store
            .list_tasks(&other, &filter(Some("view-1"), None), 10)
            .await
            .unwrap()
            .is_empty()
    );
}
