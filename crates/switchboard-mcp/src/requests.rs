//! Requests a server sends us in the middle of a call (elicitation, sampling), and where they
//! go: to whoever made the call, when it can answer them (the gateway's downstream
//! client), else they are refused.
//!
//! A connection is shared by every caller of one (owner, server), so a request that arrives
//! must be matched to the call it belongs to. Over Streamable HTTP rmcp tells us which of our
//! requests' response streams it came on (SEP-2260, `InboundStreamOrigin`): that call's
//! requester answers. Over stdio and legacy SSE nothing ties it to a call, and [`InFlight`]
//! falls back to the calls in flight that have a requester.

// Sampling is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, InputRequests, InputResponses, RequestId,
};

/// Who answers a server's requests during one call. Set on [`CallOptions::requests`]
/// (`crate::CallOptions`); a call without one has those requests refused.
pub trait ServerRequests: Send + Sync + std::fmt::Debug {
    /// The capabilities the one who made the call declared, sent to a 2026-07-28 server in
    /// the call's `_meta` instead of ours, so the server asks only for what that client can
    /// answer (SEP-2575: a server must not rely on capabilities the client did not declare).
    /// `None`: ours.
    fn client_capabilities(&self) -> Option<rmcp::model::ClientCapabilities> {
        None
    }

    /// Whether answering may take a person's time (a form in a chat): the call then waits up
    /// to the call ceiling instead of the idle timeout, which a person filling in a form
    /// would outlast (rmcp's idle timeout resets on progress only, and a question is none).
    fn waits_for_a_person(&self) -> bool {
        false
    }

    /// Whether a 2026-07-28 server's requests for roots go to this requester (a gateway
    /// client that declared roots); otherwise they are answered with the server's own roots.
    fn answers_roots(&self) -> bool {
        false
    }

    /// A 2026-07-28 server answered the call input-required: its `requests` (before they
    /// are answered through [`Self::input`]) and the `state` to send back with the answers.
    /// A requester whose person may answer after a restart keeps them, to send the call again
    /// then (`CallOptions::resume`); by default nothing is kept.
    fn keep_input<'a>(
        &'a self,
        _requests: Option<&'a InputRequests>,
        _state: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(std::future::ready(()))
    }

    /// A log message the server sent while this call was the one in flight (secrets already
    /// cut out); by default it stays in our log only.
    fn log(&self, _params: rmcp::model::LoggingMessageNotificationParam) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }

    /// `elicitation/create` from the server.
    fn elicit(&self, params: ElicitRequestParams)
    -> BoxFuture<'_, Result<ElicitResult, ErrorData>>;

    /// `sampling/createMessage` from the server.
    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>>;

    /// The requests of a 2026-07-28 server's input-required result, answered under the keys
    /// the server gave. By default each is answered in turn through [`Self::elicit`] and
    /// [`Self::sample`], and roots with an empty list; a caller that can pass the whole set
    /// on (the gateway to a 2026-07-28 client) overrides it to keep the server's keys.
    fn input(&self, requests: InputRequests) -> BoxFuture<'_, Result<InputResponses, ErrorData>> {
        Box::pin(crate::input_required::answer_each(Some(self), requests))
    }
}

/// A shared [`ServerRequests`].
pub type Requester = Arc<dyn ServerRequests>;

/// The answer to an elicitation no one can answer: declined, so the tool can go on without it
/// (the spec's meaning of `decline`, where `cancel` would end the operation).
pub(crate) fn declined() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Decline)
}

/// The answer to a sampling request no one can answer.
pub(crate) fn no_sampler() -> ErrorData {
    ErrorData::invalid_request(
        "no one can answer sampling/createMessage for this call: the caller did not declare \
         the sampling capability",
        None,
    )
}

/// The calls in flight on one connection, by the JSON-RPC id of our `tools/call`, each with
/// its requester (`None`: the caller cannot answer, e.g. the agent's own calls). A std mutex:
/// held for a map operation only, never across an await.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    calls: Mutex<HashMap<RequestId, Option<Requester>>>,
    /// Told of every call that enters.
    entered: tokio::sync::Notify,
    /// Per call, the log lines on their way to its requester (see [`LogTicket`]).
    logs: Mutex<HashMap<RequestId, Arc<PendingLogs>>>,
    /// Calls that ended before their request was written (and registered): registering one
    /// later is refused, so it cannot stay registered for good.
    ended_unwritten: Mutex<std::collections::HashSet<RequestId>>,
}

/// Log lines of one call not yet handed to its requester.
#[derive(Debug, Default)]
pub(crate) struct PendingLogs {
    count: std::sync::atomic::AtomicUsize,
    settled: tokio::sync::Notify,
}

/// A log line of a call, matched to the call when it was received: rmcp hands notifications
/// to their handler on a task of their own, so a call's last line (sent just before its
/// answer) may be handled after the answer ended the call. The ticket keeps who forwards it,
/// and the call does not return before its tickets are [`done`](LogTicket::done) (for
/// [`LOG_SETTLE`] at most).
#[derive(Clone)]
pub(crate) struct LogTicket {
    pub requester: Requester,
    pending: Arc<PendingLogs>,
}

impl LogTicket {
    pub(crate) fn done(&self) {
        use std::sync::atomic::Ordering;
        if self.pending.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.pending.settled.notify_waiters();
        }
    }
}

/// How long a call that got its answer waits for its log lines still being handed on.
pub(crate) const LOG_SETTLE: std::time::Duration = std::time::Duration::from_millis(500);

/// How long a server's request waits for the call it came during to be registered. rmcp hands
/// out a request's id only once the request is queued for the transport, and a loaded machine
/// may run the server's answer before the caller's task registers the call.
const REGISTRATION_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Who answers for a call, carried in the request's extensions to the transport, which
/// registers the call ([`InFlight::register`]) as it writes the request: before the server can
/// have read it, so a log line the server sends at once is matched to its call.
#[derive(Clone)]
pub(crate) struct Registering(pub(crate) Option<Requester>);

impl InFlight {
    /// Registers a call until the returned guard is dropped.
    #[cfg(test)]
    pub(crate) fn enter(
        self: &Arc<Self>,
        id: RequestId,
        requester: Option<Requester>,
    ) -> InFlightGuard {
        self.register(id.clone(), requester);
        self.guard(id)
    }

    /// A call's guard, which removes it (registered by its transport, see [`Registering`])
    /// when the call ends.
    pub(crate) fn guard(self: &Arc<Self>, id: RequestId) -> InFlightGuard {
        InFlightGuard {
            calls: Arc::clone(self),
            id,
        }
    }

    /// Registers a call whose request is being written, unless the call already ended (it
    /// was cancelled before its request reached the transport).
    pub(crate) fn register(&self, id: RequestId, requester: Option<Requester>) {
        {
            let mut calls = self.lock();
            if self
                .ended_unwritten
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id)
            {
                return;
            }
            calls.insert(id.clone(), requester);
        }
        self.logs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(id)
            .or_default();
        self.entered.notify_waiters();
    }

    /// Who answers a request that came during the call `origin` (when the transport knows),
    /// or during whichever call is in flight; waits a little for a call not yet registered.
    pub(crate) async fn requester(&self, origin: Option<&RequestId>) -> Option<Requester> {
        let deadline = tokio::time::Instant::now() + REGISTRATION_WAIT;
        loop {
            let entered = self.entered.notified();
            tokio::pin!(entered);
            entered.as_mut().enable();
            match self.lookup(origin) {
                Lookup::Found(requester) => return requester,
                Lookup::NotYet => {
                    if tokio::time::timeout_at(deadline, entered).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    /// Without an origin, exactly one call in flight, with a requester → that one. Anything
    /// else → none: the connection is one person's, but the calls may come from different
    /// clients (two editors, a view and the whole set, the agent), and a question shown in the
    /// wrong one would have its answer taken for another call's — even when the other call
    /// has no requester (it may be the one asking); a refusal the tool can handle is better
    /// than that guess.
    /// As [`Self::requester`], without waiting: for a notification, which cannot be about a
    /// call not yet sent.
    pub(crate) fn requester_now(&self, origin: Option<&RequestId>) -> Option<Requester> {
        match self.lookup(origin) {
            Lookup::Found(requester) => requester,
            Lookup::NotYet => None,
        }
    }

    /// A log line arrived (in order with the answers) during the call `origin`, or the only
    /// call in flight: a ticket to hand it to that call's requester, counted until done.
    pub(crate) fn log_arrived(&self, origin: Option<&RequestId>) -> Option<LogTicket> {
        let (id, requester) = {
            let calls = self.lock();
            let id = match origin {
                Some(id) => id.clone(),
                None if calls.len() == 1 => calls.keys().next()?.clone(),
                None => return None,
            };
            let requester = calls.get(&id)?.clone()?;
            (id, requester)
        };
        let pending = Arc::clone(
            self.logs
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&id)?,
        );
        pending
            .count
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Some(LogTicket { requester, pending })
    }

    /// Waits (for `cap` at most) until the log lines of call `id` received so far are handed
    /// to its requester.
    pub(crate) async fn logs_settled(&self, id: &RequestId, cap: std::time::Duration) {
        let pending = self
            .logs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned();
        let Some(pending) = pending else { return };
        let settled = async {
            loop {
                let notified = pending.settled.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if pending.count.load(std::sync::atomic::Ordering::Acquire) == 0 {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(cap, settled).await;
    }

    fn lookup(&self, origin: Option<&RequestId>) -> Lookup {
        let calls = self.lock();
        if let Some(id) = origin {
            return match calls.get(id) {
                Some(requester) => Lookup::Found(requester.clone()),
                None => Lookup::NotYet,
            };
        }
        if calls.is_empty() {
            return Lookup::NotYet;
        }
        let mut all = calls.values();
        Lookup::Found(match (all.next(), all.next()) {
            (Some(only), None) => only.clone(),
            _ => None,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Option<Requester>>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

enum Lookup {
    Found(Option<Requester>),
    /// The call it came during is not registered (yet).
    NotYet,
}

/// Removes a call from [`InFlight`] when it ends.
pub(crate) struct InFlightGuard {
    calls: Arc<InFlight>,
    id: RequestId,
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        {
            let mut calls = self.calls.lock();
            if calls.remove(&self.id).is_none() {
                self.calls
                    .ended_unwritten
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(self.id.clone());
            }
        }
        self.calls
            .logs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    /// Told apart by its `Debug` text.
    #[derive(Debug)]
    struct Named(#[allow(dead_code)] &'static str);

    impl ServerRequests for Named {
        fn elicit(
            &self,
            _params: ElicitRequestParams,
        ) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
            Box::pin(async { Ok(declined()) })
        }
        fn sample(
            &self,
            _params: CreateMessageRequestParams,
        ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
            Box::pin(async { Err(no_sampler()) })
        }
    }

    fn name(requester: Option<Requester>) -> Option<String> {
        requester.map(|r| format!("{r:?}"))
    }

    #[tokio::test(start_paused = true)]
    async fn the_origin_wins_then_the_only_able_call_then_no_one() {
        let calls = Arc::new(InFlight::default());
        let one = NumberOrString::Number(1);
        let two = NumberOrString::Number(2);
        let three = NumberOrString::Number(3);
        let agent = calls.enter(one.clone(), None);
        assert_eq!(name(calls.requester(None).await), None);
        let a = calls.enter(two.clone(), Some(Arc::new(Named("a"))));
        // The agent's own call is not answered by another's client.
        assert_eq!(name(calls.requester(Some(&one)).await), None);
        // Without an origin, the agent's call might be the one asking: nobody is guessed.
        assert_eq!(
            name(calls.requester(None).await),
            None,
            "another call in flight"
        );
        drop(agent);
        assert_eq!(
            name(calls.requester(None).await).as_deref(),
            Some("Named(\"a\")")
        );
        let b = calls.enter(three.clone(), Some(Arc::new(Named("b"))));
        assert_eq!(name(calls.requester(None).await), None, "several: no guess");
        assert_eq!(
            name(calls.requester(Some(&three)).await).as_deref(),
            Some("Named(\"b\")")
        );
        drop((a, b));
        assert!(calls.lock().is_empty());
        // Nothing in flight, and nothing comes: nobody, after a while.
        assert_eq!(name(calls.requester(None).await), None);
    }

    #[tokio::test]
    async fn a_request_that_outruns_its_call_waits_for_it_to_be_registered() {
        let calls = Arc::new(InFlight::default());
        let id = NumberOrString::Number(7);
        let asked = tokio::spawn({
            let calls = Arc::clone(&calls);
            let id = id.clone();
            async move { name(calls.requester(Some(&id)).await) }
        });
        tokio::task::yield_now().await;
        let _call = calls.enter(id, Some(Arc::new(Named("late"))));
        assert_eq!(asked.await.unwrap().as_deref(), Some("Named(\"late\")"));
    }

    #[test]
    fn a_log_line_sent_at_once_finds_the_call_its_transport_registered() {
        let calls = Arc::new(InFlight::default());
        let id = NumberOrString::Number(4);
        // The transport registers the call as it writes it; the server logs before the
        // caller's task has run again.
        calls.register(id.clone(), Some(Arc::new(Named("caller"))));
        let ticket = calls.log_arrived(None).expect("a ticket for the one call");
        assert_eq!(
            name(Some(ticket.requester.clone())).as_deref(),
            Some("Named(\"caller\")")
        );
        ticket.done();
        drop(calls.guard(id));
        assert!(calls.lock().is_empty());
    }

    #[test]
    fn a_call_that_ended_before_its_request_was_written_is_never_registered() {
        let calls = Arc::new(InFlight::default());
        let id = NumberOrString::Number(5);
        // Cancelled while its request waited in the queue.
        drop(calls.guard(id.clone()));
        calls.register(id.clone(), Some(Arc::new(Named("gone"))));
        assert!(calls.lock().is_empty(), "it would stay registered for good");
        // The next call with another id is found as the only one.
        let other = calls.enter(NumberOrString::Number(6), Some(Arc::new(Named("next"))));
        assert_eq!(
            name(calls.requester_now(None)).as_deref(),
            Some("Named(\"next\")")
        );
        drop(other);
    }
}
