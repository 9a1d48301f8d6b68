//! One pooled (owner, server) slot: the live connection if any, its status, its tool cache,
//! and its breaker.
//!
//! Reading the current connection takes a short std lock and clones an `Arc`, so concurrent
//! calls do not queue behind each other; only (re)connecting is serialised, by an async mutex,
//! so a burst of callers opens one connection, not one each; and when that one attempt fails,
//! everyone who waited for it gets its failure instead of trying again in turn. A server that
//! could not be reached is not tried by its callers at all until the breaker's wait is up
//! (see [`super::breaker`]): the background try connects for them.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use switchboard_core::{OwnerId, ServerId, ServerSpec};
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use super::breaker::Breaker;
use super::status::{ConnectionSnapshot, ConnectionStatus, StatusChange};
use super::tools::CachedTools;
use crate::config::ManagerConfig;
use crate::connection::Connection;
use crate::destination::HttpClients;
use crate::error::McpError;
use crate::policy::ConnectPolicy;

/// A connection and the spec it was opened with.
#[derive(Clone)]
pub(crate) struct Live {
    pub(crate) conn: Arc<Connection>,
    pub(crate) spec: Arc<ServerSpec>,
    /// Cuts `spec`'s secrets and the connection's OAuth tokens out of what the server
    /// answers; built once per connection (and per new token), not once per call.
    pub(crate) redactor: Arc<super::redactor::LiveRedactor>,
    /// Distinguishes connection instances, for the tool cache and the death watcher.
    pub(crate) instance: u64,
}

pub(crate) struct Entry {
    live: RwLock<Option<Live>>,
    connecting: tokio::sync::Mutex<()>,
    status: watch::Sender<ConnectionSnapshot>,
    last_active_ms: AtomicU64,
    in_flight: AtomicUsize,
    instances: AtomicU64,
    /// Connect attempts so far, and the failure of the latest one if it failed.
    attempts: AtomicU64,
    failure: Mutex<Option<(u64, McpError)>>,
    pub(crate) tools: Mutex<Option<CachedTools>>,
    /// Holds the server back after it could not be reached.
    pub(crate) breaker: Breaker,
    /// Where status changes are announced to everyone (the HTTP layer's event stream).
    changes: (OwnerId, ServerId, broadcast::Sender<StatusChange>),
    /// Where each connection's list changes and resource updates are announced.
    notices: crate::client::Notices,
    /// The resources subscribed on this server (by its URIs), subscribed again on every new
    /// connection: a subscription lives in the server's session, which a reconnect replaces.
    pub(crate) subscriptions: Mutex<std::collections::BTreeSet<String>>,
    /// The live tasks started on a connection, by its instance and the server's task id: a
    /// connection running one is not closed as idle (its tasks would die with a stdio server).
    tasks: Mutex<std::collections::HashSet<(u64, String)>>,
}

impl Entry {
    pub(crate) fn new(
        owner: OwnerId,
        server: ServerId,
        changes: broadcast::Sender<StatusChange>,
        notices: crate::client::Notices,
        breaker: Breaker,
    ) -> Self {
        Self {
            breaker,
            changes: (owner, server, changes),
            notices,
            subscriptions: Mutex::default(),
            live: RwLock::new(None),
            connecting: tokio::sync::Mutex::new(()),
            status: watch::Sender::new(ConnectionSnapshot::disconnected()),
            last_active_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            tasks: Mutex::default(),
            instances: AtomicU64::new(0),
            attempts: AtomicU64::new(0),
            failure: Mutex::new(None),
            tools: Mutex::new(None),
        }
    }

    pub(crate) fn snapshot(&self) -> ConnectionSnapshot {
        let mut snapshot = self.status.borrow().clone();
        let ms = self.last_active_ms.load(Ordering::Relaxed);
        snapshot.last_active_at = (ms > 0).then_some(ms);
        snapshot
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<ConnectionSnapshot> {
        self.status.subscribe()
    }

    /// The live connection for `spec`, if one is open with the same way of connecting.
    fn current(&self, spec: &ServerSpec) -> Option<Live> {
        let live = self.live.read().unwrap_or_else(PoisonError::into_inner);
        let live = live
            .as_ref()
            .filter(|live| live.conn.is_alive() && same_connection(&live.spec, spec))
            .cloned()?;
        // Edited roots do not need a new connection: the server is told they changed.
        if live.spec.roots != spec.roots {
            live.conn.set_roots(spec.root_uris());
        }
        Some(live)
    }

    /// Gives the open connection, if any, `spec`'s roots (announced to the server when they
    /// changed).
    pub(crate) fn update_roots(&self, spec: &ServerSpec) {
        let live = self.live.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(live) = live.as_ref().filter(|live| live.conn.is_alive()) {
            live.conn.set_roots(spec.root_uris());
        }
    }

    /// The connection to use for `spec`: the open one, or a new one when there is none, it
    /// died, or the configuration changed; while the breaker holds the server back, its
    /// failure at once.
    pub(crate) async fn connection(
        self: &Arc<Self>,
        spec: &ServerSpec,
        config: &ManagerConfig,
        http: &HttpClients,
        policy: &dyn ConnectPolicy,
    ) -> Result<Live, McpError> {
        if let Some(live) = self.current(spec) {
            return Ok(live);
        }
        if let Some(held) = self.breaker.held_back(spec, Instant::now()) {
            return Err(held);
        }
        // Connecting is a large future (admission, every transport, OAuth); boxed, the future
        // of every call that finds the connection live stays small, and moving it (into a
        // `Box`, a `join_all`) stays cheap: those copies were a fifth of the proxy's
        // instructions.
        Box::pin(self.connect(spec, config, http, policy, Attempt::Use)).await
    }

    /// The breaker's try in the background: a connect to `spec` that the breaker does not
    /// hold back (it closes the breaker when it works, and opens it for longer when not).
    pub(crate) async fn try_in_background(
        self: &Arc<Self>,
        spec: &ServerSpec,
        config: &ManagerConfig,
        http: &HttpClients,
        policy: &dyn ConnectPolicy,
    ) -> Result<Live, McpError> {
        Box::pin(self.connect(spec, config, http, policy, Attempt::Background)).await
    }

    /// Connects (or waits for the connect already under way, or shares its failure).
    async fn connect(
        self: &Arc<Self>,
        spec: &ServerSpec,
        config: &ManagerConfig,
        http: &HttpClients,
        policy: &dyn ConnectPolicy,
        attempt_kind: Attempt,
    ) -> Result<Live, McpError> {
        let attempts_seen = self.attempts.load(Ordering::Acquire);
        let _connecting = self.connecting.lock().await;
        if let Some(live) = self.current(spec) {
            return Ok(live);
        }
        if attempt_kind == Attempt::Use {
            // The connect this caller waited for could not reach the server.
            if let Some(held) = self.breaker.held_back(spec, Instant::now()) {
                return Err(held);
            }
            if let Some(shared) = self.failure_since(&spec.name, attempts_seen) {
                return Err(shared);
            }
        }
        let attempt = self.attempts.fetch_add(1, Ordering::AcqRel) + 1;
        if let Some(old) = self.take_live() {
            tokio::spawn(close(old, config.shutdown_grace));
        }
        self.set_status(ConnectionStatus::Connecting, None, None);
        let connected = match policy.admit(&self.changes.0, spec).await {
            Ok(admission) => http.connect(&self.changes.0, spec, config, admission).await,
            Err(refused) => Err(refused),
        };
        match connected {
            Ok(conn) => {
                conn.publish_to(self.notices.clone());
                let spec = Arc::new(spec.clone());
                let live = Live {
                    conn: Arc::new(conn),
                    redactor: Arc::new(super::redactor::LiveRedactor::new(Arc::clone(&spec))),
                    spec,
                    instance: self.instances.fetch_add(1, Ordering::Relaxed),
                };
                self.breaker.close();
                self.set_status(
                    ConnectionStatus::Connected,
                    None,
                    Some(live.conn.details().clone()),
                );
                *self.live.write().unwrap_or_else(PoisonError::into_inner) = Some(live.clone());
                self.resubscribe(&live, config);
                tokio::spawn(watch_for_death(
                    Arc::downgrade(self),
                    live.clone(),
                    config.shutdown_grace,
                ));
                Ok(live)
            }
            Err(error) => {
                // The status, its event and the shared failure leave the process: no secret.
                let error = error.redacted(&spec.redactor());
                // Quoted (`?`), so an upstream's newlines and escapes cannot forge log lines.
                tracing::warn!(server = ?spec.id.0, error = ?error.to_string(), "could not connect");
                let status = if matches!(error, McpError::SignInRequired { .. }) {
                    ConnectionStatus::NeedsSignIn
                } else {
                    ConnectionStatus::Error
                };
                self.set_status(status, Some(error.to_string()), None);
                *self.failure.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some((attempt, McpError::shared_failure(&spec.name, &error)));
                Err(self.breaker.failed(spec, error, Instant::now()))
            }
        }
    }

    /// Subscribes the new connection `live` to what the previous one was subscribed to, on a
    /// task of its own (the caller that connected should not wait for it).
    fn resubscribe(&self, live: &Live, config: &ManagerConfig) {
        let uris: Vec<String> = self
            .subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect();
        if uris.is_empty() || !live.conn.offers_subscriptions() {
            return;
        }
        let conn = Arc::clone(&live.conn);
        let limits = crate::connection::CallLimits {
            idle: config.call_timeout,
            ceiling: config.call_timeout_ceiling,
        };
        tokio::spawn(async move {
            for uri in uris {
                if let Err(error) = conn.subscribe(&uri, true, limits).await {
                    tracing::debug!(error = ?error.to_string(), "could not subscribe again after reconnecting");
                }
            }
        });
    }

    /// The failure of an attempt that began after `attempts_seen`, i.e. one this caller
    /// waited for.
    fn failure_since(&self, server: &str, attempts_seen: u64) -> Option<McpError> {
        let failure = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        match failure.as_ref() {
            Some((attempt, error)) if *attempt > attempts_seen => {
                Some(McpError::shared_failure(server, error))
            }
            _ => None,
        }
    }

    fn take_live(&self) -> Option<Live> {
        self.live
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Forgets `instance` if it is still the current connection (it was found dead).
    pub(crate) fn discard(&self, instance: u64, reason: &str, grace: Duration) {
        self.discard_as(instance, ConnectionStatus::Error, reason, grace);
    }

    /// Forgets `instance` if it is still the current connection, reporting `status`: `error`
    /// when it died, `needs_sign_in` when the server stopped taking the person's tokens.
    pub(crate) fn discard_as(
        &self,
        instance: u64,
        status: ConnectionStatus,
        reason: &str,
        grace: Duration,
    ) {
        let mut live = self.live.write().unwrap_or_else(PoisonError::into_inner);
        if live.as_ref().is_some_and(|l| l.instance == instance) {
            let dead = live.take();
            drop(live);
            self.set_status(status, Some(reason.to_owned()), None);
            // Closing ends whatever the dead server left running in its process group.
            if let Some(dead) = dead {
                tokio::spawn(close(dead, grace));
            }
        }
    }

    /// Closes the connection, if any, and reports `disconnected`; the server is no longer
    /// held back (it was closed on purpose: edited, removed, signed in to again).
    pub(crate) async fn disconnect(&self, grace: Duration) {
        let _connecting = self.connecting.lock().await;
        if let Some(live) = self.take_live() {
            close(live, grace).await;
        }
        *self.tools.lock().unwrap_or_else(PoisonError::into_inner) = None;
        self.breaker.close();
        self.set_status(ConnectionStatus::Disconnected, None, None);
    }

    /// How long since a request last used this slot (forever when none ever did).
    pub(crate) fn unused_for(&self) -> Duration {
        let last = self.last_active_ms.load(Ordering::Relaxed);
        Duration::from_millis(now_ms().saturating_sub(last))
    }

    /// Keeps connection `instance` from being closed as idle while task `id` lives.
    pub(crate) fn pin_task(&self, instance: u64, id: &str) {
        self.tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((instance, id.to_owned()));
    }

    /// Task `id` of connection `instance` ended (or is given up).
    pub(crate) fn unpin_task(&self, instance: u64, id: &str) {
        self.tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(instance, id.to_owned()));
    }

    /// Whether connection `instance` runs a live task; forgets those of other instances,
    /// which died with their connection.
    fn runs_tasks(&self, instance: u64) -> bool {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        tasks.retain(|(of, _)| *of == instance);
        !tasks.is_empty()
    }

    /// Closes the connection if it has been idle for `idle` and no call or task is running.
    pub(crate) async fn reap_if_idle(&self, idle: Duration, grace: Duration) {
        let last = self.last_active_ms.load(Ordering::Relaxed);
        let idle_ms = u64::try_from(idle.as_millis()).unwrap_or(u64::MAX);
        let live = self
            .live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|live| live.instance);
        if let Some(instance) = live
            && !self.runs_tasks(instance)
            && self.in_flight.load(Ordering::Acquire) == 0
            && now_ms().saturating_sub(last) >= idle_ms
        {
            tracing::debug!("closing idle connection");
            self.disconnect(grace).await;
        }
    }

    /// Marks a request as running until the guard drops; keeps the idle reaper away.
    pub(crate) fn begin(self: &Arc<Self>) -> ActiveGuard {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.last_active_ms.store(now_ms(), Ordering::Relaxed);
        ActiveGuard {
            entry: Arc::clone(self),
        }
    }

    fn set_status(
        &self,
        status: ConnectionStatus,
        last_error: Option<String>,
        server: Option<crate::connection::ServerDetails>,
    ) {
        self.status.send_modify(|snapshot| {
            snapshot.status = status;
            match status {
                ConnectionStatus::Connected => {
                    snapshot.last_error = None;
                    snapshot.server = server;
                }
                // What the server said about itself stays visible next to why it failed.
                ConnectionStatus::Error | ConnectionStatus::NeedsSignIn => {
                    snapshot.last_error = last_error;
                }
                ConnectionStatus::Connecting => {}
                ConnectionStatus::Disconnected => snapshot.server = None,
            }
        });
        let (owner, server, changes) = &self.changes;
        // Nobody listening is not an error.
        let _ = changes.send(StatusChange {
            owner: owner.clone(),
            server: server.clone(),
            status,
            last_error: self.status.borrow().last_error.clone(),
        });
    }
}

/// Who connects: a caller that needs the server, or the breaker's try in the background.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attempt {
    Use,
    Background,
}

pub(crate) struct ActiveGuard {
    entry: Arc<Entry>,
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.entry.last_active_ms.store(now_ms(), Ordering::Relaxed);
        self.entry.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

async fn close(live: Live, grace: Duration) {
    match Arc::try_unwrap(live.conn) {
        Ok(conn) => conn.close(grace).await,
        // Calls still hold it: end the session and the server now; they fail as lost.
        Err(shared) => shared.terminate(),
    }
}

/// Whether two specs reach the server the same way. Tool lists, approvals, the name and the
/// call timeout can change without restarting a server (and losing its state).
/// Whether a connection made for `a` serves `b` as well: what it was opened with is the same
/// (switches, timeouts and roots are read per use; edited roots are announced to the server).
pub fn same_connection(a: &ServerSpec, b: &ServerSpec) -> bool {
    a.transport == b.transport
        && a.url == b.url
        && a.command == b.command
        && a.args == b.args
        && a.env == b.env
        && a.secret_env == b.secret_env
        && a.cwd == b.cwd
        && a.headers == b.headers
        && a.auth == b.auth
        && a.enabled == b.enabled
}

async fn watch_for_death(entry: std::sync::Weak<Entry>, live: Live, grace: Duration) {
    let ended = live.conn.ended();
    let instance = live.instance;
    drop(live);
    ended.cancelled().await;
    if let Some(entry) = entry.upgrade() {
        entry.discard(instance, "the connection ended", grace);
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl Entry {
    pub(crate) fn process_group(&self) -> Option<u32> {
        let live = self.live.read().unwrap_or_else(PoisonError::into_inner);
        live.as_ref().and_then(|live| live.conn.pgid())
    }
}
