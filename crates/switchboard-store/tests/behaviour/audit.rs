//! The tool-call audit: records read back as written, newest first, per owner only, numbered
//! per owner, pruned per owner to the newest ones, and never failing a batch for a record
//! whose owner is gone.

use switchboard_core::{ErrorCode, OwnerId, ServerId};
use switchboard_store::{AuditOutcome, CallerKind, NewAuditRecord, Timestamp};

use crate::common::TestDb;

crate::on_both_backends!(
    records_read_back_newest_first_for_their_owner_only,
    each_owner_keeps_only_the_newest_records,
    a_record_of_a_deleted_owner_is_skipped,
    a_large_batch_is_written_whole_and_in_order,
    each_person_numbers_their_own_records
);

fn record(owner: &OwnerId, tool: &str, outcome: AuditOutcome) -> NewAuditRecord {
    NewAuditRecord {
        owner: owner.clone(),
        at: Timestamp(1_700_000_000_000),
        caller: CallerKind::Proxy,
        server_id: ServerId("files".into()),
        tool: tool.into(),
        node_id: None,
        outcome,
        attempts: 1,
        duration_ms: 12,
    }
}

async fn records_read_back_newest_first_for_their_owner_only(db: &TestDb) {
    let a = db.user("a").await.id;
    let b = db.user("b").await.id;
    let mut first = record(&a, "read", AuditOutcome::Ok);
    first.node_id = Some("node-1".into());
    first.caller = CallerKind::Node;
    first.attempts = 3;
    first.duration_ms = 3_456;
    let second = record(&a, "write\0it", AuditOutcome::Error(ErrorCode::McpTimeout));
    let theirs = record(&b, "read", AuditOutcome::ToolError);
    db.store
        .record_tool_calls(&[first.clone(), theirs, second])
        .await
        .unwrap();

    let mine = db.store.tool_call_audit(&a, 10).await.unwrap();
    assert_eq!(mine.len(), 2);
    assert_eq!(
        mine[0].tool, "write\u{fffd}it",
        "a NUL is replaced, not refused"
    );
    assert_eq!(mine[0].outcome, AuditOutcome::Error(ErrorCode::McpTimeout));
    assert!(mine[0].id > mine[1].id);
    let read = &mine[1];
    assert_eq!(
        (
            read.at,
            read.caller,
            &read.server_id,
            read.tool.as_str(),
            read.node_id.as_deref(),
            read.outcome,
            read.attempts,
            read.duration_ms
        ),
        (
            first.at,
            CallerKind::Node,
            &first.server_id,
            "read",
            Some("node-1"),
            AuditOutcome::Ok,
            3,
            3_456
        )
    );
    let json = serde_json::to_value(read).unwrap();
    assert_eq!(json["outcome"], "ok");
    assert_eq!(json["caller"], "node");
    assert_eq!(json["nodeId"], "node-1");
    assert!(json.get("arguments").is_none());

    let theirs = db.store.tool_call_audit(&b, 10).await.unwrap();
    assert_eq!(theirs.len(), 1);
    assert_eq!(theirs[0].outcome, AuditOutcome::ToolError);
    assert_eq!(db.store.tool_call_audit(&a, 1).await.unwrap().len(), 1);
}

async fn each_owner_keeps_only_the_newest_records(db: &TestDb) {
    let a = db.user("a").await.id;
    let b = db.user("b").await.id;
    let batch: Vec<NewAuditRecord> = (0..5)
        .map(|n| record(&a, &format!("t{n}"), AuditOutcome::Ok))
        .collect();
    db.store
        .record_tool_calls(&[record(&b, "theirs", AuditOutcome::Ok)])
        .await
        .unwrap();
    db.store.record_tool_calls(&batch).await.unwrap();
    assert_eq!(db.store.prune_tool_calls(&a, 3).await.unwrap(), 2);
    assert_eq!(db.store.prune_tool_calls(&b, 3).await.unwrap(), 0);
    let kept: Vec<String> = db
        .store
        .tool_call_audit(&a, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.tool)
        .collect();
    assert_eq!(kept, ["t4", "t3", "t2"]);
    // Another owner's records are not pruned by a's.
    assert_eq!(db.store.tool_call_audit(&b, 100).await.unwrap().len(), 1);
    db.store
        .record_tool_calls(&[record(&a, "t5", AuditOutcome::Ok)])
        .await
        .unwrap();
    db.store.prune_tool_calls(&a, 3).await.unwrap();
    let kept = db.store.tool_call_audit(&a, 100).await.unwrap();
    assert_eq!(kept.len(), 3);
    assert_eq!(kept[0].tool, "t5");
}

async fn a_record_of_a_deleted_owner_is_skipped(db: &TestDb) {
    let a = db.user("a").await.id;
    let gone = db.user("gone").await.id;
    db.store.delete_user(&gone).await.unwrap();
    db.store
        .record_tool_calls(&[
            record(&gone, "lost", AuditOutcome::Ok),
            record(&a, "kept", AuditOutcome::Ok),
        ])
        .await
        .unwrap();
    assert_eq!(db.store.tool_call_audit(&a, 10).await.unwrap().len(), 1);
    assert!(
        db.store
            .tool_call_audit(&gone, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

/// A batch is written in multi-row statements of 64, 16, 4 and 1 records: 87 records of two
/// owners, one of them deleted, every size used, all kept in the batch's order.
async fn a_large_batch_is_written_whole_and_in_order(db: &TestDb) {
    let a = db.user("a").await.id;
    let b = db.user("b").await.id;
    let gone = db.user("gone").await.id;
    db.store.delete_user(&gone).await.unwrap();
    let batch: Vec<NewAuditRecord> = (0..87)
        .map(|n| {
            let owner = match n % 3 {
                0 => &a,
                1 => &b,
                _ => &gone,
            };
            let mut record = record(owner, &format!("t{n}"), AuditOutcome::Ok);
            record.duration_ms = n;
            record.node_id = (n % 2 == 0).then(|| format!("node-{n}"));
            record
        })
        .collect();
    db.store.record_tool_calls(&batch).await.unwrap();
    for (owner, rest) in [(&a, 0), (&b, 1)] {
        let mut read = db.store.tool_call_audit(owner, 100).await.unwrap();
        read.reverse();
        let expected: Vec<(String, u64, Option<String>)> = batch
            .iter()
            .filter(|r| r.duration_ms % 3 == rest)
            .map(|r| (r.tool.clone(), r.duration_ms, r.node_id.clone()))
            .collect();
        let got: Vec<(String, u64, Option<String>)> = read
            .into_iter()
            .map(|r| (r.tool, r.duration_ms, r.node_id))
            .collect();
        assert_eq!(
            got, expected,
            "owner {owner:?}: every record, in the batch's order"
        );
    }
    assert!(
        db.store
            .tool_call_audit(&gone, 100)
            .await
            .unwrap()
            .is_empty()
    );
}

/// A person's record ids count their own calls only: interleaved with another person's, in
/// one batch or several, they go 1, 2, 3, ... and pruning keeps the numbers.
async fn each_person_numbers_their_own_records(db: &TestDb) {
    let a = db.user("a").await.id;
    let b = db.user("b").await.id;
    let mut batch = Vec::new();
    for i in 0..5 {
        batch.push(record(&a, &format!("a{i}"), AuditOutcome::Ok));
        batch.push(record(&b, &format!("b{i}"), AuditOutcome::Ok));
        batch.push(record(&b, &format!("b{i}'"), AuditOutcome::Ok));
    }
    db.store.record_tool_calls(&batch).await.unwrap();
    db.store
        .record_tool_calls(&[record(&a, "a5", AuditOutcome::Ok)])
        .await
        .unwrap();
    let ids = |records: Vec<switchboard_store::AuditRecord>| -> Vec<(i64, String)> {
        records.into_iter().map(|r| (r.id, r.tool)).collect()
    };
    let mine = ids(db.store.tool_call_audit(&a, 100).await.unwrap());
    assert_eq!(
        mine,
        (0..6)
            .rev()
            .map(|i| (i + 1, format!("a{i}")))
            .collect::<Vec<_>>()
    );
    let theirs = db.store.tool_call_audit(&b, 100).await.unwrap();
    let numbers: Vec<i64> = theirs.iter().map(|r| r.id).collect();
    assert_eq!(numbers, (1..=10).rev().collect::<Vec<i64>>());

    db.store.prune_tool_calls(&a, 2).await.unwrap();
    db.store
        .record_tool_calls(&[record(&a, "a6", AuditOutcome::Ok)])
        .await
        .unwrap();
    let kept = ids(db.store.tool_call_audit(&a, 100).await.unwrap());
    assert_eq!(
        kept,
        [
            (7, "a6".to_owned()),
            (6, "a5".to_owned()),
            (5, "a4".to_owned())
        ]
    );
}
