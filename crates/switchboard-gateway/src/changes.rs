//! `notifications/{tools,resources,prompts}/list_changed` and `notifications/resources/updated`
//! to connected clients: when an upstream's list changes ([`ServerPool::list_changes`]), a
//! subscribed resource changes ([`ServerPool::resource_updates`]), or the person changes their
//! servers or views ([`crate::Gateway::announce`]); for 2026-07-28 clients through
//! `subscriptions/listen`.
//!
//! The hub turns all of these into one broadcast of [`Event`]s. Each session has a task of its
//! own ([`watch_session`], or the `listen` request itself) that keeps the events of its owner,
//! and of a server only when its scope selects that server, and sends them. A session of a
//! view in `search` mode hears that its tools changed only when its `tools/list` answer did
//! (the search tools and its pinned tools; see [`crate::search`]). The task ends with
//! the session: the session's [`SessionState`] lives in its handler, which rmcp drops when the
//! session ends, and dropping it cancels the token the task waits on. The task never holds the
//! handler itself, or it would keep the session's state alive forever.
//!
//! Upstream subscriptions are shared: one connection per (owner, server) serves every session
//! of the owner, so the hub counts the sessions subscribed to each upstream URI and subscribes
//! upstream on the first and unsubscribes on the last (a session's subscriptions end with it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{NotificationContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, Peer, RoleServer};
use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_mcp::{ListChange, ListKind, McpError, ResourceUpdate, ServerPool};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::gateway::Gateway;
use crate::handler::GatewayHandler;
use crate::selection::Selection;
use crate::session::Scope;

/// How many events a slow session may fall behind before it misses some (and then is told
/// every list changed).
const CAPACITY: usize = 1024;

const ALL_KINDS: [ListKind; 3] = [ListKind::Tools, ListKind::Resources, ListKind::Prompts];

/// Something sessions may need to hear about.
#[derive(Debug, Clone)]
enum Event {
    /// A list changed: of one owner (`None`: anyone's, after the hub missed changes), of one
    /// server (`None`: any of theirs), of one kind (`None`: all three).
    Lists {
        owner: Option<OwnerId>,
        server: Option<ServerId>,
        kind: Option<ListKind>,
    },
    /// A resource of a server changed (by the server's own URI).
    Updated(ResourceUpdate),
}

/// Fans list changes and resource updates out to sessions.
#[derive(Debug)]
pub struct ChangeHub {
    events: broadcast::Sender<Event>,
    /// Sessions subscribed to each upstream resource, by (owner, server, the server's URI).
    upstream: Mutex<HashMap<(OwnerId, ServerId, String), usize>>,
    stop: CancellationToken,
}

impl Drop for ChangeHub {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl ChangeHub {
    /// A hub following `servers`' list changes and resource updates (inside a Tokio runtime).
    pub(crate) fn follow(servers: &dyn ServerPool) -> Self {
        let events = broadcast::channel(CAPACITY).0;
        let stop = CancellationToken::new();
        tokio::spawn(forward(
            servers.list_changes(),
            servers.resource_updates(),
            events.clone(),
            stop.clone(),
        ));
        Self {
            events,
            upstream: Mutex::default(),
            stop,
        }
    }

    /// Every list of `owner`'s sessions may have changed.
    pub(crate) fn announce_owner(&self, owner: &OwnerId) {
        // Nobody listening is not an error.
        let _ = self.events.send(Event::Lists {
            owner: Some(owner.clone()),
            server: None,
            kind: None,
        });
    }

    /// Subscribes `session` to `exported` (the server's `original`), subscribing upstream when
    /// it is the first session of the owner to want it.
    pub(crate) async fn subscribe(
        &self,
        session: &SessionState,
        pool: &dyn ServerPool,
        owner: &OwnerId,
        spec: Arc<ServerSpec>,
        original: String,
        exported: String,
    ) -> Result<(), McpError> {
        if lock(&session.subscriptions).contains_key(&exported) {
            return Ok(());
        }
        let key = (owner.clone(), spec.id.clone(), original.clone());
        let first = {
            let mut upstream = lock(&self.upstream);
            let count = upstream.entry(key.clone()).or_default();
            *count += 1;
            *count == 1
        };
        if first && let Err(error) = pool.subscribe_resource(owner, &spec, &original).await {
            self.forget(&key);
            return Err(error);
        }
        let subscription = Subscription {
            owner: owner.clone(),
            spec,
            original,
        };
        let replaced = lock(&session.subscriptions).insert(exported, subscription);
        if let Some(replaced) = replaced {
            // Two concurrent subscribes of one URI: keep one count.
            self.release(pool, replaced).await;
        }
        Ok(())
    }

    /// Ends `session`'s subscription to `exported`, if it had one.
    pub(crate) async fn unsubscribe(
        &self,
        session: &SessionState,
        pool: &dyn ServerPool,
        owner: &OwnerId,
        exported: &str,
    ) {
        let removed = {
            let mut subscriptions = lock(&session.subscriptions);
            match subscriptions.get(exported) {
                Some(found) if &found.owner == owner => subscriptions.remove(exported),
                _ => None,
            }
        };
        if let Some(subscription) = removed {
            self.release(pool, subscription).await;
        }
    }

    /// One session less wants `subscription`'s upstream resource.
    async fn release(&self, pool: &dyn ServerPool, subscription: Subscription) {
        let key = (
            subscription.owner.clone(),
            subscription.spec.id.clone(),
            subscription.original.clone(),
        );
        if self.forget(&key)
            && let Err(error) = pool
                .unsubscribe_resource(
                    &subscription.owner,
                    &subscription.spec,
                    &subscription.original,
                )
                .await
        {
            tracing::debug!(server = ?key.1.0, error = ?error.to_string(), "could not unsubscribe upstream");
        }
    }

    /// Counts one subscriber of `key` less; true when it was the last.
    fn forget(&self, key: &(OwnerId, ServerId, String)) -> bool {
        let mut upstream = lock(&self.upstream);
        match upstream.get_mut(key) {
            Some(count) if *count > 1 => {
                *count -= 1;
                false
            }
            Some(_) => {
                upstream.remove(key);
                true
            }
            None => false,
        }
    }
}

/// One subscription of a session, as the upstream knows it.
#[derive(Debug)]
struct Subscription {
    owner: OwnerId,
    spec: Arc<ServerSpec>,
    original: String,
}

type Subscriptions = Arc<Mutex<HashMap<String, Subscription>>>;

/// The digest of the `tools/list` a `search` session was last shown (or told of).
type Listed = Arc<Mutex<Option<u64>>>;

/// What the hub keeps of one session: its resource subscriptions (by the URI the session
/// used), what its `tools/list` last showed in a `search` view, and a token cancelled when
/// the session's handler is dropped.
#[derive(Debug, Default)]
pub(crate) struct SessionState {
    ended: CancellationToken,
    subscriptions: Subscriptions,
    listed: Listed,
}

impl SessionState {
    /// The session was shown a `search` view's tools whose digest is `print`.
    pub(crate) fn listed(&self, print: u64) {
        *lock(&self.listed) = Some(print);
    }
}

impl Drop for SessionState {
    fn drop(&mut self) {
        self.ended.cancel();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Copies the pool's notices onto the hub's events until `stop`.
async fn forward(
    mut lists: broadcast::Receiver<ListChange>,
    mut updates: broadcast::Receiver<ResourceUpdate>,
    events: broadcast::Sender<Event>,
    stop: CancellationToken,
) {
    use broadcast::error::RecvError;
    loop {
        let event = tokio::select! {
            biased;
            () = stop.cancelled() => return,
            change = lists.recv() => match change {
                Ok(ListChange { owner, server, kind }) => Event::Lists {
                    owner: Some(owner),
                    server: Some(server),
                    kind: Some(kind),
                },
                // Which lists changed is lost: every session hears that all did.
                Err(RecvError::Lagged(_)) => Event::Lists { owner: None, server: None, kind: None },
                Err(RecvError::Closed) => return,
            },
            update = updates.recv() => match update {
                Ok(update) => Event::Updated(update),
                // Updates are hints to read again; a missed one cannot be told apart.
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "the gateway missed resource updates");
                    continue;
                }
                Err(RecvError::Closed) => return,
            },
        };
        let _ = events.send(event);
    }
}

/// Where a session's notifications go: the session itself (2025-11-25 and older), or one
/// `subscriptions/listen` request (2026-07-28).
enum Sink {
    Session(Peer<RoleServer>),
    Listen(SubscriptionSink),
}

/// The client is gone.
struct Gone;

impl Sink {
    async fn list_changed(&self, kind: ListKind) -> Result<(), Gone> {
        match self {
            Sink::Session(peer) => {
                let sent = match kind {
                    ListKind::Tools => peer.notify_tool_list_changed().await,
                    ListKind::Resources => peer.notify_resource_list_changed().await,
                    ListKind::Prompts => peer.notify_prompt_list_changed().await,
                };
                sent.map_err(|_| Gone)
            }
            Sink::Listen(sink) => {
                let sent = match kind {
                    ListKind::Tools => sink.notify_tool_list_changed().await,
                    ListKind::Resources => sink.notify_resource_list_changed().await,
                    ListKind::Prompts => sink.notify_prompt_list_changed().await,
                };
                listen_result(sent)
            }
        }
    }

    async fn updated(&self, uri: String) -> Result<(), Gone> {
        match self {
            Sink::Session(peer) => peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await
                .map_err(|_| Gone),
            Sink::Listen(sink) => listen_result(sink.notify_resource_updated(uri).await),
        }
    }
}

/// A notification the client's filter left out is not a failure; a closed stream is.
fn listen_result(sent: Result<(), rmcp::service::SubscriptionSendError>) -> Result<(), Gone> {
    use rmcp::service::SubscriptionSendError as E;
    match sent {
        Ok(()) | Err(E::NotificationNotAccepted(_) | E::UnsupportedNotification(_)) => Ok(()),
        Err(_) => Err(Gone),
    }
}

/// Runs for a session once it is initialized: starts the task that sends it the changes of
/// its scope, until the session ends.
pub(crate) async fn watch_session(
    handler: &GatewayHandler,
    context: NotificationContext<RoleServer>,
) {
    let scope = match notification_scope(handler, &context) {
        Ok(scope) => scope,
        Err(error) => {
            tracing::debug!(%error, "no list changes for a session without a scope");
            return;
        }
    };
    if handler.binding.check(&scope).is_err() {
        return;
    }
    let gateway = Arc::clone(&handler.gateway);
    let events = gateway.changes.events.subscribe();
    let ended = handler.session.ended.clone();
    let subscriptions = Arc::clone(&handler.session.subscriptions);
    let listed = Arc::clone(&handler.session.listed);
    let sink = Sink::Session(context.peer);
    tokio::spawn(async move {
        let session = Session {
            subscriptions: &subscriptions,
            listed: &listed,
        };
        tokio::select! {
            () = ended.cancelled() => {}
            () = deliver(&gateway, &scope, &sink, events, session) => {}
        }
        release_all(&gateway, &subscriptions).await;
    });
}

/// The scope of an `initialized` notification: the fixed one, or the one the HTTP server put
/// on its request.
fn notification_scope(
    handler: &GatewayHandler,
    context: &NotificationContext<RoleServer>,
) -> Result<Scope, crate::GatewayError> {
    if let Some(scope) = &handler.fixed {
        return Ok(scope.clone());
    }
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Scope>())
        .cloned()
        .ok_or(crate::GatewayError::NoScope)
}

/// Ends every upstream subscription of a session that ended.
async fn release_all(gateway: &Gateway, subscriptions: &Subscriptions) {
    let ended: Vec<Subscription> = lock(subscriptions).drain().map(|(_, s)| s).collect();
    for subscription in ended {
        gateway
            .changes
            .release(gateway.servers.as_ref(), subscription)
            .await;
    }
}

/// What `deliver` reads and keeps of its session.
#[derive(Clone, Copy)]
struct Session<'a> {
    subscriptions: &'a Subscriptions,
    listed: &'a Listed,
}

/// Whether a `search` session is told its tools changed: only when what its `tools/list`
/// shows differs from what it was last shown or told of (a session of any other scope
/// always is).
async fn tools_changed(gateway: &Gateway, scope: &Scope, listed: &Listed) -> bool {
    let Some(now) = crate::search::listed_print(gateway, scope).await else {
        *lock(listed) = None;
        return true;
    };
    lock(listed).replace(now) != Some(now)
}

/// Sends `scope`'s events to `sink` until the client is gone or the hub stops.
async fn deliver(
    gateway: &Gateway,
    scope: &Scope,
    sink: &Sink,
    mut events: broadcast::Receiver<Event>,
    session: Session<'_>,
) {
    let subscriptions = session.subscriptions;
    let owner = &scope.user.id;
    loop {
        let event = match events.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(_)) => Event::Lists {
                owner: None,
                server: None,
                kind: None,
            },
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let sent = match event {
            Event::Lists {
                owner: Some(other), ..
            } if &other != owner => Ok(()),
            Event::Lists { server, kind, .. } => {
                if let Some(server) = server
                    && !selects(gateway, scope, &server).await
                {
                    continue;
                }
                let mut sent = Ok(());
                let kinds: &[ListKind] = match &kind {
                    Some(kind) => std::slice::from_ref(kind),
                    None => &ALL_KINDS,
                };
                for kind in kinds {
                    if *kind == ListKind::Tools
                        && scope.view.is_some()
                        && !tools_changed(gateway, scope, session.listed).await
                    {
                        continue;
                    }
                    sent = sink.list_changed(*kind).await;
                    if sent.is_err() {
                        break;
                    }
                }
                sent
            }
            Event::Updated(update) if &update.owner == owner => {
                let exported: Vec<String> = lock(subscriptions)
                    .iter()
                    .filter(|(_, s)| s.spec.id == update.server && s.original == update.uri)
                    .map(|(exported, _)| exported.clone())
                    .collect();
                let mut sent = Ok(());
                for uri in exported {
                    sent = sink.updated(uri).await;
                    if sent.is_err() {
                        break;
                    }
                }
                sent
            }
            Event::Updated(_) => Ok(()),
        };
        if sent.is_err() {
            return;
        }
    }
}

/// Whether `scope` sees `server` now.
async fn selects(gateway: &Gateway, scope: &Scope, server: &ServerId) -> bool {
    match Selection::of(gateway.store.as_ref(), scope).await {
        Ok(selection) => selection.servers.iter().any(|s| &s.spec.id == server),
        Err(error) => {
            tracing::debug!(%error, "could not read a session's selection");
            false
        }
    }
}

/// What a `subscriptions/listen` request gets: every list change, and updates of the
/// resources it names (unknown ones simply never change).
pub(crate) fn accepted_filter(requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
    let yes = |asked: Option<bool>| (asked == Some(true)).then_some(true);
    let mut accepted = SubscriptionFilter::new();
    accepted.tools_list_changed = yes(requested.tools_list_changed);
    accepted.prompts_list_changed = yes(requested.prompts_list_changed);
    accepted.resources_list_changed = yes(requested.resources_list_changed);
    accepted.resource_subscriptions = requested.resource_subscriptions.clone();
    Some(accepted)
}

/// A 2026-07-28 client's `subscriptions/listen`: the same events as a session gets, for as
/// long as the request stays open.
pub(crate) async fn listen(
    handler: &GatewayHandler,
    context: SubscriptionContext,
) -> Result<(), ErrorData> {
    let (scope, selection) =
        crate::content::selection_of(handler, context.request_context()).await?;
    let gateway = &handler.gateway;
    let events = gateway.changes.events.subscribe();
    let state = SessionState::default();
    for exported in context.accepted().resource_subscriptions.iter().flatten() {
        let Ok((server, original)) =
            crate::content::owner_of(handler, &scope, &selection, exported).await
        else {
            continue;
        };
        let subscribed = gateway
            .changes
            .subscribe(
                &state,
                gateway.servers.as_ref(),
                &scope.user.id,
                Arc::clone(&server.spec),
                original,
                exported.clone(),
            )
            .await;
        if let Err(error) = subscribed {
            tracing::debug!(error = ?error.to_string(), "could not subscribe upstream for a listen request");
        }
    }
    // A listening client was shown its tools just before, or is shown them now.
    *lock(&state.listed) = crate::search::listed_print(gateway, &scope).await;
    let sink = Sink::Listen(context.sink().clone());
    let session = Session {
        subscriptions: &state.subscriptions,
        listed: &state.listed,
    };
    tokio::select! {
        () = context.cancelled() => {}
        () = deliver(gateway, &scope, &sink, events, session) => {}
    }
    release_all(gateway, &state.subscriptions).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sessions_token_is_cancelled_when_its_state_is_dropped() {
        let state = SessionState::default();
        let ended = state.ended.clone();
        assert!(!ended.is_cancelled());
        drop(state);
        assert!(ended.is_cancelled());
    }

    #[test]
    fn listen_accepts_what_was_asked() {
        let requested = SubscriptionFilter::builder()
            .tools_list_changed()
            .prompts_list_changed()
            .build();
        let accepted = accepted_filter(&requested).expect("accepted");
        assert_eq!(accepted.tools_list_changed, Some(true));
        assert_eq!(accepted.prompts_list_changed, Some(true));
        assert_eq!(accepted.resources_list_changed, None);
    }
}
