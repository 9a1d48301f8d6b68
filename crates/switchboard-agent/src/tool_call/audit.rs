//! The audit record of every tool call, written off the call's path.
//!
//! The proxy is benchmarked, and a database write per call (a transaction, on SQLite a
//! file sync) would be most of its latency. So a call only puts its record on a bounded
//! channel; one background task takes whatever has queued, up to a batch, and writes it in one
//! transaction (which also prunes each owner's oldest records, [`AuditStore`]). When the
//! channel is full (the database cannot keep up) the record is dropped and counted, with a
//! warning: an answer is never held up, or refused, for its audit line.
//!
//! Records reach the store after the answer, so a reader that must see its own calls asks
//! for a [`AuditLog::flush`] first: it returns once everything queued before it is written.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

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
    while queue.recv_many(&mut messages, batch).await > 0 {
        for message in messages.drain(..) {
            match message {
                Message::Record(record) => records.push(record),
                Message::Flush(done) => flushes.push(done),
            }
        }
        if !records.is_empty() {
            let keep = keep.load(Ordering::Relaxed);
            if let Err(error) = store.record_tool_calls(&records, keep).await {
                tracing::warn!(%error, lost = records.len(), "cannot write tool-call audit records");
            }
            records.clear();
        }
        for done in flushes.drain(..) {
            let _ = done.send(());
        }
    }
}
