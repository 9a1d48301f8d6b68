//! The audit record of every tool call, written off the call's path.
//!
//! The proxy is benchmarked, and a database write per call (a transaction, on SQLite a
//! file sync) would be most of its latency. So a call only puts its record on a bounded
//! channel; one background task takes whatever has queued, up to a batch, waits a moment for
//! more to join (a group commit), and writes them in one transaction. When the channel is
//! full (the database cannot keep up) the record is dropped and counted, with a warning: an
//! answer is never held up, or refused, for its audit line.
//!
//! Each owner keeps their newest `keep` records. Pruning walks that many index entries, so
//! the writer prunes an owner when it first writes for them and then every
//! [`prune_every`]`(keep)` records of theirs, not after each one: an owner holds at most
//! `keep + prune_every(keep)`, a sixteenth more than `keep`.
//!
//! Records reach the store after the answer, so a reader that must see its own calls asks
//! for a [`AuditLog::flush`] first: it returns once everything queued before it is written.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use switchboard_core::OwnerId;
use switchboard_store::{AuditStore, NewAuditRecord};
use tokio::sync::{mpsc, oneshot};

/// How the audit is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditConfig {
    /// Records kept per owner; older ones are deleted (default 10,000).
    pub keep: u32,
    /// Records waiting to be written, at most; more are dropped (default 4,096).
    pub queue: usize,
    /// Records written in one transaction, at most (default 256).
    pub batch: usize,
}

impl Default for AuditConfig {
    fn default() -> Self {
        Self {
            keep: 10_000,
            queue: 4_096,
            batch: 256,
        }
    }
}

/// How long the first records of a batch wait for others to join them (see [`gather`]).
const GATHER: std::time::Duration = std::time::Duration::from_millis(2);

/// Records of one owner written between two prunings of theirs, at least.
pub(crate) const PRUNE_EVERY: u32 = 64;

/// Records of one owner written between two prunings of theirs when `keep` are kept: a
/// sixteenth of `keep`, at least [`PRUNE_EVERY`]. A pruning walks `keep` index entries; after
/// every 64 records, at the default 10,000 kept, the proxy's audit writer spent more of the
/// machine than the proxy's own requests took of it to walk them.
pub(crate) fn prune_every(keep: u32) -> u32 {
    (keep / 16).max(PRUNE_EVERY)
}

enum Message {
    Record(NewAuditRecord),
    /// Answered once every record queued before it is written.
    Flush(oneshot::Sender<()>),
}

/// The sending side; the writer task ends when this is dropped, after writing what queued.
#[derive(Debug)]
pub(crate) struct AuditLog {
    /// `None` outside a Tokio runtime, where there is no task to write (records are dropped).
    queue: Option<mpsc::Sender<Message>>,
    keep: Arc<AtomicU32>,
    dropped: AtomicU64,
}

impl AuditLog {
    /// Starts the writer on the current Tokio runtime.
    pub(crate) fn start(store: Arc<dyn AuditStore>, config: &AuditConfig) -> Self {
        let keep = Arc::new(AtomicU32::new(config.keep));
        let queue = match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let (sender, receiver) = mpsc::channel(config.queue.max(1));
                runtime.spawn(write(
                    store,
                    receiver,
                    config.batch.max(1),
                    Arc::clone(&keep),
                ));
                Some(sender)
            }
            Err(_) => {
                tracing::warn!("no Tokio runtime: tool calls will not be audited");
                None
            }
        };
        Self {
            queue,
            keep,
            dropped: AtomicU64::new(0),
        }
    }

    /// Changes how many records are kept per owner, from the next batch on.
    pub(crate) fn set_keep(&self, keep: u32) {
        self.keep.store(keep, Ordering::Relaxed);
    }

    /// Queues `record` without waiting; a full queue drops it (counted, with a warning).
    pub(crate) fn record(&self, record: NewAuditRecord) {
        let Some(queue) = &self.queue else {
            return;
        };
        if queue.try_send(Message::Record(record)).is_err() {
            let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            // The first drop, then every thousandth: a flood of warnings would only add to
            // the load that filled the queue.
            if dropped == 1 || dropped.is_multiple_of(1000) {
                tracing::warn!(
                    dropped,
                    "the tool-call audit cannot keep up; records were dropped"
                );
            }
        }
    }

    /// Records dropped so far because the queue was full.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Returns once every record queued before this call is written (or failed to be).
    pub(crate) async fn flush(&self) {
        let Some(queue) = &self.queue else {
            return;
        };
        let (done, written) = oneshot::channel();
        if queue.send(Message::Flush(done)).await.is_ok() {
            let _ = written.await;
        }
    }
}

/// The writer: takes what has queued (up to `batch`), writes the records in one transaction,
/// then answers the flushes that were queued with them.
async fn write(
    store: Arc<dyn AuditStore>,
    mut queue: mpsc::Receiver<Message>,
    batch: usize,
    keep: Arc<AtomicU32>,
) {
    let mut messages = Vec::with_capacity(batch);
    let mut records = Vec::with_capacity(batch);
    let mut flushes = Vec::new();
    // Records written per owner since they were last pruned; an owner not in it yet is
    // pruned at their first record.
    let mut unpruned: HashMap<OwnerId, u32> = HashMap::new();
    while queue.recv_many(&mut messages, batch).await > 0 {
        gather(&mut queue, &mut messages, batch).await;
        for message in messages.drain(..) {
            match message {
                Message::Record(record) => records.push(record),
                Message::Flush(done) => flushes.push(done),
            }
        }
        if !records.is_empty() {
            match store.record_tool_calls(&records).await {
                Ok(()) => prune(store.as_ref(), &records, &mut unpruned, &keep).await,
                Err(error) => {
                    tracing::warn!(%error, lost = records.len(), "cannot write tool-call audit records");
                }
            }
            records.clear();
        }
        for done in flushes.drain(..) {
            let _ = done.send(());
        }
    }
}

/// Lets the records of a busy moment join the first ones for [`GATHER`] (a group commit):
/// under the proxy's load a transaction was written every few records, and each costs the
/// writer thread its statements, its round trips and its pages of the log. A
/// flush, a full batch or a closed queue ends the wait at once, so nobody who asks for the
/// records waits for it.
async fn gather(queue: &mut mpsc::Receiver<Message>, messages: &mut Vec<Message>, batch: usize) {
    let flushing = |messages: &[Message]| messages.iter().any(|m| matches!(m, Message::Flush(_)));
    let until = tokio::time::Instant::now() + GATHER;
    while messages.len() < batch && !flushing(messages) {
        let more = queue.recv_many(messages, batch - messages.len());
        match tokio::time::timeout_at(until, more).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// Prunes the owners of `written` who are due (see [`prune_every`]).
async fn prune(
    store: &dyn AuditStore,
    written: &[NewAuditRecord],
    unpruned: &mut HashMap<OwnerId, u32>,
    keep: &AtomicU32,
) {
    let keep = keep.load(Ordering::Relaxed);
    let every = prune_every(keep);
    let mut due = Vec::new();
    for record in written {
        let count = unpruned.entry(record.owner.clone()).or_insert(every);
        *count += 1;
        if *count > every && !due.contains(&record.owner) {
            due.push(record.owner.clone());
        }
    }
    for owner in due {
        unpruned.insert(owner.clone(), 0);
        if let Err(error) = store.prune_tool_calls(&owner, keep).await {
            tracing::warn!(%error, "cannot prune the tool-call audit");
        }
    }
}

#[cfg(test)]
mod tests {
    use switchboard_core::ServerId;
    use switchboard_store::{AuditOutcome, CallerKind, Timestamp};

    use super::*;
    use crate::tool_call::fakes::MemoryAudit;

    fn record(owner: &str) -> NewAuditRecord {
        NewAuditRecord {
            owner: OwnerId(owner.into()),
            at: Timestamp(0),
            caller: CallerKind::Proxy,
            server_id: ServerId("s".into()),
            tool: "t".into(),
            node_id: None,
            outcome: AuditOutcome::Ok,
            attempts: 1,
            duration_ms: 0,
        }
    }

    #[tokio::test]
    async fn an_owner_is_pruned_at_their_first_record_and_then_every_so_many() {
        let store = Arc::new(MemoryAudit::default());
        let config = AuditConfig {
            keep: 2,
            queue: 16,
            batch: 1,
        };
        // Three records of `a` before the writer starts: pruned to two at once.
        store
            .record_tool_calls(&[record("a"), record("a"), record("a")])
            .await
            .unwrap();
        let log = AuditLog::start(store.clone(), &config);
        let count = || store.records.lock().unwrap().len();
        log.record(record("a"));
        log.flush().await;
        assert_eq!(count(), 2, "pruned at the first record of this process");
        for n in 1..=PRUNE_EVERY {
            log.record(record("a"));
            log.flush().await;
            assert_eq!(count(), 2 + n as usize, "not pruned after each record");
        }
        log.record(record("a"));
        log.flush().await;
        assert_eq!(count(), 2, "pruned once PRUNE_EVERY more were written");
        assert_eq!(log.dropped(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn records_of_a_busy_moment_are_written_together_and_a_flush_does_not_wait() {
        let store = Arc::new(MemoryAudit::default());
        let log = AuditLog::start(store.clone(), &AuditConfig::default());
        let batches = || store.batches.lock().unwrap().clone();
        // Three records within the gathering time: one write.
        for _ in 0..3 {
            log.record(record("a"));
            tokio::time::sleep(GATHER / 4).await;
        }
        tokio::time::sleep(GATHER * 2).await;
        assert_eq!(batches(), [3]);
        // One record and a flush right after it: written at once, without the wait.
        log.record(record("a"));
        let started = tokio::time::Instant::now();
        log.flush().await;
        assert!(started.elapsed() < GATHER, "{:?}", started.elapsed());
        assert_eq!(batches(), [3, 1]);
    }

    #[test]
    fn a_large_audit_is_pruned_a_sixteenth_of_it_at_a_time() {
        assert_eq!(prune_every(2), PRUNE_EVERY);
        assert_eq!(prune_every(1_024), PRUNE_EVERY);
        assert_eq!(prune_every(10_000), 625);
    }

    #[tokio::test]
    async fn a_full_queue_drops_records_and_counts_them_without_waiting() {
        let store = Arc::new(MemoryAudit::default());
        let config = AuditConfig {
            queue: 1,
            ..AuditConfig::default()
        };
        let log = AuditLog::start(store.clone(), &config);
        // On this single-threaded runtime the writer cannot run until the test waits.
        log.record(record("a"));
        log.record(record("a"));
        log.record(record("a"));
        assert_eq!(log.dropped(), 2);
        log.flush().await;
        assert_eq!(store.records.lock().unwrap().len(), 1);
    }
}
