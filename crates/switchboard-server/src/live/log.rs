//! The numbered event log.
//!
//! One task moves events from the agent's bus and the connection manager into the log; each
//! gets the next id of its owner, is serialised once, kept in a bounded ring and broadcast.
//! Ids are counted per user: one shared counter would let a user read, from the gaps between
//! their own ids, how busy everyone else is. Every user's ids start from the start time (in
//! microseconds), so ids from before a restart are older than every id after it and a client
//! resuming with one is told it missed events instead of getting unrelated ones.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use switchboard_agent::{AgentEvent, EventBus};
use switchboard_core::OwnerId;
use switchboard_mcp::{ServerPool, StatusChange};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// Events kept for clients that reconnect.
const KEPT: usize = 10_000;

/// One event as sent: `id`, `event` (its type) and `data` (JSON).
#[derive(Debug)]
pub struct Logged {
    pub id: u64,
    pub owner: OwnerId,
    /// The conversation it belongs to, if any.
    pub conversation_id: Option<String>,
    pub kind: &'static str,
    pub data: String,
}

#[derive(Debug)]
pub struct EventLog {
    ring: Mutex<Ring>,
    sender: broadcast::Sender<Arc<Logged>>,
    /// Set when the server stops: every stream ends, so none holds the shutdown.
    closed: CancellationToken,
    /// Where this process's own events go to reach other replicas (see `relay`).
    outgoing: std::sync::OnceLock<tokio::sync::mpsc::Sender<Arc<Logged>>>,
}

#[derive(Debug)]
struct Ring {
    /// Where every user's ids start.
    first_id: u64,
    /// The next id of each user who has had an event.
    next_ids: HashMap<OwnerId, u64>,
    events: VecDeque<Arc<Logged>>,
}

impl Ring {
    fn next_id(&self, owner: &OwnerId) -> u64 {
        self.next_ids.get(owner).copied().unwrap_or(self.first_id)
    }
}

/// A subscriber's start: the kept events after its `Last-Event-ID`, then live ones.
#[derive(Debug)]
pub struct Subscription {
    pub backlog: Vec<Arc<Logged>>,
    /// Cancelled when the log closes.
    pub closed: CancellationToken,
    pub live: broadcast::Receiver<Arc<Logged>>,
    /// Events after the given id are no longer kept (or it is from before a restart): the
    /// client should reload what it shows.
    pub missed: bool,
}

impl EventLog {
    /// The log, fed from `bus` and the status changes of `servers` for as long as the log is
    /// in use.
    pub fn start(bus: &EventBus, servers: &dyn ServerPool) -> Arc<Self> {
        let first_id = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX / 2));
        let log = Arc::new(Self {
            ring: Mutex::new(Ring {
                first_id,
                next_ids: HashMap::new(),
                events: VecDeque::with_capacity(KEPT),
            }),
            sender: broadcast::channel(4096).0,
            closed: CancellationToken::new(),
            outgoing: std::sync::OnceLock::new(),
        });
        tokio::spawn(feed(
            Arc::downgrade(&log),
            bus.subscribe(),
            servers.status_changes(),
        ));
        log
    }

    /// Numbers, keeps and broadcasts one event of this process, and hands it to the relay.
    pub fn record(&self, owner: &OwnerId, event: &AgentEvent) {
        let (kind, conversation_id) = describe(event);
        let data = serde_json::to_string(event).unwrap_or_else(|_| "{}".to_owned());
        let logged = self.push(
            owner.clone(),
            kind,
            conversation_id.map(str::to_owned),
            data,
        );
        self.relay(logged);
        // Seed 001's `tool.message.updated`, right after the `assistant.toolCall.updated`
        // it restates.
        if let Some(data) = crate::routes::seeds::seed_001::tool_message_updated(event) {
            let kind = crate::routes::seeds::seed_001::TOOL_MESSAGE_UPDATED;
            let logged = self.push(
                owner.clone(),
                kind,
                conversation_id.map(str::to_owned),
                data,
            );
            self.relay(logged);
        }
    }

    fn relay(&self, logged: Arc<Logged>) {
        if let Some(outgoing) = self.outgoing.get()
            && outgoing.try_send(logged).is_err()
        {
            tracing::warn!("the relay to other replicas fell behind; an event was not sent");
        }
    }

    /// Numbers, keeps and broadcasts an event another replica sent.
    pub(crate) fn record_foreign(
        &self,
        owner: OwnerId,
        kind: &'static str,
        conversation_id: Option<String>,
        data: String,
    ) {
        self.push(owner, kind, conversation_id, data);
    }

    /// Sends this process's events to `outgoing` from now on (once).
    pub(crate) fn relay_to(&self, outgoing: tokio::sync::mpsc::Sender<Arc<Logged>>) {
        let _ = self.outgoing.set(outgoing);
    }

    fn record_status(&self, change: &StatusChange) {
        let data = json!({
            "type": "server.status",
            "serverId": change.server,
            "status": change.status,
            "lastError": change.last_error,
        });
        self.push(
            change.owner.clone(),
            "server.status",
            None,
            Value::to_string(&data),
        );
    }

    fn push(
        &self,
        owner: OwnerId,
        kind: &'static str,
        conversation_id: Option<String>,
        data: String,
    ) -> Arc<Logged> {
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let id = ring.next_id(&owner);
        ring.next_ids.insert(owner.clone(), id + 1);
        let logged = Arc::new(Logged {
            id,
            owner,
            conversation_id,
            kind,
            data,
        });
        if ring.events.len() == KEPT {
            ring.events.pop_front();
        }
        ring.events.push_back(Arc::clone(&logged));
        // Sent under the lock, so subscribers see events in id order and a new subscriber's
        // backlog and live stream neither overlap nor leave a gap.
        let _ = self.sender.send(Arc::clone(&logged));
        logged
    }

    /// Ends every stream (the server is stopping).
    pub fn close(&self) {
        self.closed.cancel();
    }

    /// Cancelled when the log closes (the server is stopping): for other streams that must
    /// end then too (the MCP endpoint's sessions).
    pub fn closing(&self) -> CancellationToken {
        self.closed.clone()
    }

    /// The owner's events after `after` (none when `None`), then the live ones.
    pub fn subscribe(&self, owner: &OwnerId, after: Option<u64>) -> Subscription {
        let ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let live = self.sender.subscribe();
        let Some(after) = after else {
            return Subscription {
                closed: self.closed.clone(),
                backlog: Vec::new(),
                live,
                missed: false,
            };
        };
        let next_id = ring.next_id(owner);
        let mine = ring.events.iter().filter(|e| &e.owner == owner);
        let oldest = mine.clone().next().map_or(next_id, |e| e.id);
        let backlog = mine.filter(|e| e.id > after).cloned().collect();
        Subscription {
            closed: self.closed.clone(),
            backlog,
            live,
            // Nothing is lost only if `after` is at most one before the oldest kept id and
            // not from the future (another process's id space).
            missed: after.saturating_add(1) < oldest || after >= next_id,
        }
    }
}

fn describe(event: &AgentEvent) -> (&'static str, Option<&str>) {
    (event.kind().as_str(), event.conversation_id())
}

/// Moves events into the log until the log is dropped or the agent's bus is gone.
async fn feed(
    log: Weak<EventLog>,
    mut agent: broadcast::Receiver<switchboard_agent::OwnedEvent>,
    mut status: broadcast::Receiver<StatusChange>,
) {
    use broadcast::error::RecvError;
    let mut status_open = true;
    loop {
        let next = tokio::select! {
            event = agent.recv() => Next::Agent(event),
            change = status.recv(), if status_open => Next::Status(change),
        };
        let Some(log) = log.upgrade() else { return };
        match next {
            Next::Agent(event) => match event {
                Ok(event) => log.record(&event.owner, &event.event),
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "the event log fell behind the agent")
                }
                Err(RecvError::Closed) => return,
            },
            Next::Status(change) => match change {
                Ok(change) => log.record_status(&change),
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "the event log fell behind the servers' status")
                }
                Err(RecvError::Closed) => status_open = false,
            },
        }
    }
}

enum Next {
    Agent(Result<switchboard_agent::OwnedEvent, broadcast::error::RecvError>),
    Status(Result<StatusChange, broadcast::error::RecvError>),
}
