//! The idle timeout of a call that may wait for a person.
//!
//! A call whose questions a person answers ([`ServerRequests::waits_for_a_person`]) cannot
//! use the idle timeout as rmcp keeps it: a person filling in a form outlasts it, and a
//! question is not progress. So rmcp is given the ceiling, and the idle timeout is kept here
//! instead, counting only while none of the call's questions is open: from the call's start,
//! from each answer, and from each progress report. A server that lost the call (killed
//! while the person was answering, its stream gone for good) is then given up after the idle
//! timeout, not after the ceiling's ten minutes.

// Sampling is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    InputRequests, InputResponses,
};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::requests::{Requester, ServerRequests};

/// When the call last showed life, and how many of its questions are open.
#[derive(Debug)]
pub(crate) struct Attention {
    state: Mutex<State>,
    changed: Notify,
}

#[derive(Debug)]
struct State {
    open: usize,
    since: Instant,
}

impl Attention {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                open: 0,
                since: Instant::now(),
            }),
            changed: Notify::new(),
        })
    }

    fn edit(&self, change: impl FnOnce(&mut State)) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        change(&mut state);
        state.since = Instant::now();
        drop(state);
        self.changed.notify_waiters();
    }

    /// The server showed life (a progress report).
    pub(crate) fn touch(&self) {
        self.edit(|_| {});
    }

    fn asked(&self) {
        self.edit(|state| state.open += 1);
    }

    fn answered(&self) {
        self.edit(|state| state.open = state.open.saturating_sub(1));
    }

    /// Resolves once `idle` has passed with no question open and no sign of life.
    pub(crate) async fn lapsed(&self, idle: Duration) {
        loop {
            // Registered before the state is read, so a change in between is not missed.
            let changed = self.changed.notified();
            let left = {
                let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                (state.open == 0).then(|| idle.saturating_sub(state.since.elapsed()))
            };
            match left {
                Some(left) if left.is_zero() => return,
                Some(left) => {
                    tokio::select! {
                        () = tokio::time::sleep(left) => {}
                        () = changed => {}
                    }
                }
                None => changed.await,
            }
        }
    }
}

/// A requester whose questions are counted in `attention`.
#[derive(Debug)]
pub(crate) struct Attended {
    inner: Requester,
    attention: Arc<Attention>,
}

impl Attended {
    pub(crate) fn wrap(inner: Requester, attention: &Arc<Attention>) -> Requester {
        Arc::new(Self {
            inner,
            attention: Arc::clone(attention),
        })
    }

    async fn asking<T>(&self, question: impl Future<Output = T>) -> T {
        self.attention.asked();
        let answer = question.await;
        self.attention.answered();
        answer
    }
}

impl ServerRequests for Attended {
    fn client_capabilities(&self) -> Option<rmcp::model::ClientCapabilities> {
        self.inner.client_capabilities()
    }

    fn waits_for_a_person(&self) -> bool {
        self.inner.waits_for_a_person()
    }

    fn answers_roots(&self) -> bool {
        self.inner.answers_roots()
    }

    fn keep_input<'a>(
        &'a self,
        requests: Option<&'a InputRequests>,
        state: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        self.inner.keep_input(requests, state)
    }

    fn log(&self, params: rmcp::model::LoggingMessageNotificationParam) -> BoxFuture<'_, ()> {
        self.inner.log(params)
    }

    fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(self.asking(self.inner.elicit(params)))
    }

    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(self.asking(self.inner.sample(params)))
    }

    fn input(&self, requests: InputRequests) -> BoxFuture<'_, Result<InputResponses, ErrorData>> {
        Box::pin(self.asking(self.inner.input(requests)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Duration = Duration::from_secs(60);

    #[tokio::test(start_paused = true)]
    async fn the_idle_time_counts_from_the_start_when_nothing_is_asked() {
        let attention = Attention::new();
        let started = Instant::now();
        attention.lapsed(IDLE).await;
        assert_eq!(started.elapsed(), IDLE);
    }

    #[tokio::test(start_paused = true)]
    async fn an_open_question_stops_the_clock_and_its_answer_restarts_it() {
        let attention = Attention::new();
        let started = Instant::now();
        attention.asked();
        let lapsed = attention.lapsed(IDLE);
        tokio::pin!(lapsed);
        // Ten minutes of a person thinking do not count.
        tokio::select! {
            () = &mut lapsed => panic!("lapsed while a question was open"),
            () = tokio::time::sleep(Duration::from_secs(600)) => {}
        }
        attention.answered();
        lapsed.await;
        assert_eq!(started.elapsed(), Duration::from_secs(600) + IDLE);
    }

    #[tokio::test(start_paused = true)]
    async fn progress_restarts_the_clock() {
        let attention = Attention::new();
        let started = Instant::now();
        tokio::time::sleep(Duration::from_secs(50)).await;
        attention.touch();
        attention.lapsed(IDLE).await;
        assert_eq!(started.elapsed(), Duration::from_secs(50) + IDLE);
    }
}
