//! A subscription as a `text/event-stream` response.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use std::collections::VecDeque;

use futures::Stream;
use switchboard_agent::EventKind;
use switchboard_core::OwnerId;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use super::log::{Logged, Subscription};
use crate::stream_auth::TokenWatch;

/// Which events a stream carries and when it ends.
#[derive(Debug, Clone)]
pub struct Scope {
    pub owner: OwnerId,
    /// Only this conversation's events.
    pub conversation_id: Option<String>,
    /// End after the conversation's run completes or fails.
    pub until_run_ends: bool,
}

/// Streams the subscription's events for `scope`. When events were missed (a resume from too
/// long ago, or a subscriber that fell behind) a `stream.reset` event says so and the client
/// should reload what it shows; after falling behind the stream ends, and reconnecting with
/// `Last-Event-ID` resumes it.
pub fn sse_response(subscription: Subscription, scope: Scope) -> Response {
    sse_response_watched(subscription, scope, TokenWatch::never())
}

/// As [`sse_response`], ending (without a further event) once `watch` says the token that
/// opened the stream is no longer valid.
pub fn sse_response_watched(
    subscription: Subscription,
    scope: Scope,
    watch: TokenWatch,
) -> Response {
    Sse::new(events(subscription, scope, watch))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

fn events(
    subscription: Subscription,
    scope: Scope,
    watch: TokenWatch,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let state = State {
        watch,
        closed: subscription.closed,
        reset_first: subscription.missed,
        backlog: subscription.backlog.into(),
        live: subscription.live,
        scope,
        last: 0,
        done: false,
    };
    futures::stream::unfold(state, |mut state| async move {
        let event = state.next().await?;
        Some((Ok(event), state))
    })
}

struct State {
    watch: TokenWatch,
    closed: tokio_util::sync::CancellationToken,
    reset_first: bool,
    backlog: VecDeque<Arc<Logged>>,
    live: broadcast::Receiver<Arc<Logged>>,
    scope: Scope,
    /// The id of the last event sent: the backlog and the live stream may overlap.
    last: u64,
    done: bool,
}

impl State {
    async fn next(&mut self) -> Option<Event> {
        if self.done || self.watch.ended.is_cancelled() {
            return None;
        }
        if std::mem::take(&mut self.reset_first) {
            return Some(reset());
        }
        while let Some(logged) = self.backlog.pop_front() {
            if let Some(event) = self.take(&logged) {
                return Some(event);
            }
        }
        loop {
            let received = tokio::select! {
                () = self.closed.cancelled() => return None,
                () = self.watch.ended.cancelled() => return None,
                received = self.live.recv() => received,
            };
            match received {
                Ok(logged) => {
                    if let Some(event) = self.take(&logged) {
                        return Some(event);
                    }
                }
                Err(RecvError::Lagged(_)) => {
                    self.done = true;
                    return Some(reset());
                }
                Err(RecvError::Closed) => return None,
            }
        }
    }

    /// The event for `logged` if this stream sends it.
    fn take(&mut self, logged: &Arc<Logged>) -> Option<Event> {
        if logged.id <= self.last || !self.scope.wants(logged) {
            return None;
        }
        self.last = logged.id;
        self.done = self.scope.ends_with(logged);
        Some(to_event(logged))
    }
}

impl Scope {
    fn wants(&self, logged: &Logged) -> bool {
        logged.owner == self.owner
            && self
                .conversation_id
                .as_ref()
                .is_none_or(|c| logged.conversation_id.as_ref() == Some(c))
    }

    fn ends_with(&self, logged: &Logged) -> bool {
        self.until_run_ends && EventKind::parse(logged.kind).is_some_and(EventKind::ends_run)
    }
}

fn to_event(logged: &Arc<Logged>) -> Event {
    Event::default()
        .id(logged.id.to_string())
        .event(logged.kind)
        .data(&logged.data)
}

fn reset() -> Event {
    Event::default().event("stream.reset").data(
        r#"{"type":"stream.reset","message":"some events were missed; reload the state you show"}"#,
    )
}
