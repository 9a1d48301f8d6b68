//! The requester of a call made for a host that can answer the server's requests: what the
//! server asks during the call (elicitation, sampling, a 2026-07-28 server's input-required
//! requests) goes down the call's stream as a `question`, and the host's `answer` with the
//! same id comes back to the server. The server's log lines of the call go down too, already
//! redacted by the connection (it has the spec).
//!
//! A question waits for its answer only while the call's stream is open: when the call ends,
//! is cancelled or the host goes away, [`Relay::close`] fails every question still open and
//! any asked later, so the server's request is answered with an error instead of hanging. An
//! answer naming no open question (late, or made up) is ignored.

// Sampling is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, InputRequests, InputResponses, LoggingMessageNotificationParam,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use switchboard_mcp::ServerRequests;
use tokio::sync::{mpsc, oneshot};

use crate::pb::{self, call_tool_event::Event, question::Ask};
use crate::wire::{self, Declared};

/// Questions one call may have open at once; the server's further requests are refused until
/// some are answered. Far above what a person answers at once, it bounds what a server that
/// asks in a loop makes the node hold.
const MAX_OPEN: usize = wire::MAX_OPEN_QUESTIONS;

/// Questions and log lines of one call not yet taken by the call's stream. A question waits
/// for room; a log line that finds none is left out (it stays in the node's log), so a server
/// that logs faster than the host reads cannot make the node hold more.
pub(crate) const QUEUED: usize = 256;

type Answered = Result<Vec<u8>, ErrorData>;

#[derive(Debug)]
pub(crate) struct Relay {
    declared: Declared,
    /// Into the call's stream, toward the host.
    events: mpsc::Sender<Event>,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    next: u64,
    waiting: HashMap<u64, oneshot::Sender<Answered>>,
    closed: bool,
}

impl Relay {
    /// A relay sending its questions and log lines on `events` (of [`QUEUED`] places).
    pub(crate) fn new(declared: Declared, events: mpsc::Sender<Event>) -> Self {
        Self {
            declared,
            events,
            open: Mutex::new(Open::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The host's answer to question `id`; ignored when no such question is open.
    pub(crate) fn answer(&self, answer: pb::Answer) {
        let waiting = self.lock().waiting.remove(&answer.id);
        match waiting {
            Some(waiting) => {
                // The question's asker may have gone (the server withdrew it).
                let _ = waiting.send(wire::answer_from_pb(answer.outcome));
            }
            None => tracing::debug!(id = answer.id, "an answer to no open question, ignored"),
        }
    }

    /// The call ended: every open question fails, and so does any asked later.
    pub(crate) fn close(&self) {
        let mut open = self.lock();
        open.closed = true;
        // Dropping the senders wakes their askers with an error.
        open.waiting.clear();
    }

    /// Sends `ask` to the host and waits for its answer.
    async fn ask(&self, ask: Ask) -> Answered {
        let (id, answered) = {
            let mut open = self.lock();
            if open.closed {
                return Err(ended());
            }
            if open.waiting.len() >= MAX_OPEN {
                return Err(ErrorData::invalid_request(
                    format!("the call already has {MAX_OPEN} requests waiting for an answer"),
                    None,
                ));
            }
            let id = open.next;
            open.next += 1;
            let (answer, answered) = oneshot::channel();
            open.waiting.insert(id, answer);
            (id, answered)
        };
        // A question withdrawn (its future dropped) is no longer waited for.
        let _withdrawn = Withdrawn { relay: self, id };
        let question = pb::Question { id, ask: Some(ask) };
        if self.events.send(Event::Question(question)).await.is_err() {
            return Err(ended());
        }
        answered.await.unwrap_or_else(|_| Err(ended()))
    }

    /// `params` asked as `ask`, its answer read as `T`.
    async fn typed<P: Serialize, T: DeserializeOwned>(
        &self,
        params: &P,
        ask: fn(Vec<u8>) -> Ask,
        what: &str,
    ) -> Result<T, ErrorData> {
        let json = wire::to_json(params, what)?;
        let answer = self.ask(ask(json)).await?;
        wire::from_json(&answer, "the host's answer")
    }
}

/// Removes a question from the open ones when its asker stops waiting, answered or not.
struct Withdrawn<'a> {
    relay: &'a Relay,
    id: u64,
}

impl Drop for Withdrawn<'_> {
    fn drop(&mut self) {
        self.relay.lock().waiting.remove(&self.id);
    }
}

/// What a question gets once its call is over.
fn ended() -> ErrorData {
    ErrorData::internal_error(
        "the call this request belongs to has ended: no one will answer it",
        None,
    )
}

impl ServerRequests for Relay {
    fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.declared.client_capabilities.clone()
    }

    fn waits_for_a_person(&self) -> bool {
        self.declared.waits_for_a_person
    }

    fn answers_roots(&self) -> bool {
        self.declared.answers_roots
    }

    fn keep_input<'a>(
        &'a self,
        requests: Option<&'a InputRequests>,
        state: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let requests_json = match requests.map(|r| wire::to_json(r, "the input requests")) {
                Some(Ok(json)) => json,
                Some(Err(error)) => {
                    tracing::debug!(%error.message, "input requests not kept");
                    return;
                }
                None => Vec::new(),
            };
            let kept = pb::KeptInput {
                requests_json,
                request_state: state.map(str::to_owned),
            };
            // Kept before the questions are asked: the host keeps them, then answers `{}`.
            if let Err(error) = self.ask(Ask::KeepInput(kept)).await {
                tracing::debug!(%error.message, "the host did not keep the input requests");
            }
        })
    }

    fn log(&self, params: LoggingMessageNotificationParam) -> BoxFuture<'_, ()> {
        if let Ok(json) = wire::to_json(&params, "a log message")
            && let Err(error) = self.events.try_send(Event::LogJson(json))
        {
            // The call ended, or the host reads too slowly: the line stays in the node's log.
            tracing::debug!(%error, "a server's log line was not sent to the host");
        }
        Box::pin(std::future::ready(()))
    }

    fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async move { self.typed(&params, Ask::ElicitJson, "an elicitation").await })
    }

    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async move {
            self.typed(&params, Ask::SampleJson, "a sampling request")
                .await
        })
    }

    fn input(&self, requests: InputRequests) -> BoxFuture<'_, Result<InputResponses, ErrorData>> {
        Box::pin(async move {
            self.typed(&requests, Ask::InputJson, "the input requests")
                .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::LoggingLevel;

    fn relay() -> (Relay, mpsc::Receiver<Event>) {
        let (events, received) = mpsc::channel(QUEUED);
        (Relay::new(Declared::default(), events), received)
    }

    fn question_id(event: Option<Event>) -> u64 {
        match event {
            Some(Event::Question(question)) => question.id,
            other => panic!("expected a question, got {other:?}"),
        }
    }

    fn answered(id: u64, json: &[u8]) -> pb::Answer {
        pb::Answer {
            id,
            outcome: Some(pb::answer::Outcome::ResultJson(json.to_vec())),
        }
    }

    #[tokio::test]
    async fn an_answer_reaches_its_question_and_a_stray_one_is_ignored() {
        let (relay, mut events) = relay();
        let asking = relay.ask(Ask::ElicitJson(b"{}".to_vec()));
        tokio::pin!(asking);
        let id = tokio::select! {
            _ = &mut asking => panic!("answered before the host answered"),
            event = events.recv() => question_id(event),
        };
        relay.answer(answered(id + 7, b"\"stray\""));
        relay.answer(answered(id, b"\"mine\""));
        assert_eq!(asking.await.unwrap(), b"\"mine\"");
        assert!(relay.lock().waiting.is_empty());
    }

    #[tokio::test]
    async fn closing_fails_the_open_questions_and_the_later_ones() {
        let (relay, mut events) = relay();
        let asking = relay.ask(Ask::SampleJson(b"{}".to_vec()));
        tokio::pin!(asking);
        tokio::select! {
            _ = &mut asking => panic!("answered before the host answered"),
            event = events.recv() => { question_id(event); }
        }
        relay.close();
        assert!(asking.await.is_err());
        assert!(relay.ask(Ask::InputJson(b"{}".to_vec())).await.is_err());
        assert!(relay.lock().waiting.is_empty());
    }

    #[tokio::test]
    async fn a_withdrawn_question_is_no_longer_open() {
        let (relay, mut events) = relay();
        {
            let asking = relay.ask(Ask::ElicitJson(b"{}".to_vec()));
            tokio::pin!(asking);
            tokio::select! {
                _ = &mut asking => panic!("answered before the host answered"),
                event = events.recv() => { question_id(event); }
            }
        }
        assert!(relay.lock().waiting.is_empty());
    }

    #[tokio::test]
    async fn log_lines_beyond_the_queue_are_left_out() {
        let (relay, mut events) = relay();
        let line = || LoggingMessageNotificationParam::new(LoggingLevel::Info, "line".into());
        for _ in 0..QUEUED + 10 {
            relay.log(line()).await;
        }
        let mut queued = 0;
        while let Ok(Event::LogJson(_)) = events.try_recv() {
            queued += 1;
        }
        assert_eq!(queued, QUEUED);
    }

    #[tokio::test]
    async fn a_call_has_a_bounded_number_of_open_questions() {
        let (relay, _events) = relay();
        let mut asking: Vec<_> = (0..MAX_OPEN)
            .map(|_| Box::pin(relay.ask(Ask::ElicitJson(b"{}".to_vec()))))
            .collect();
        for question in &mut asking {
            // Each registers and sends its question, then waits.
            assert!(futures::poll!(question.as_mut()).is_pending());
        }
        let refused = relay.ask(Ask::ElicitJson(b"{}".to_vec())).await;
        assert!(refused.is_err());
        drop(asking);
        assert!(relay.lock().waiting.is_empty());
    }
}
