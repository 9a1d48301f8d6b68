//! The stateless 2026-07-28 revision: a client that cannot be sent requests gets the upstream
//! server's requests as an `InputRequiredResult`, and answers them by calling the tool again.
//!
//! The upstream call cannot be replayed (it may have side effects, and an upstream on
//! 2025-11-25 asks in the middle of a running call), so it is **held in this process**: it
//! keeps running in a task, waiting for its answers, and the result's `requestState` names it.
//! The state is sealed with an HMAC key made when the process starts and bound to the person
//! and the tool, so it cannot be forged, replayed by another person or against another tool;
//! a retry that reaches another replica, or this one after a restart, finds no held call and
//! is refused. Each person may hold a few calls at once, each for a limited time; past either
//! limit the upstream's request is refused as for a client without the capability.

// Sampling, roots and logging are deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequestParams, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, ListRootsResult, LoggingLevel,
    LoggingMessageNotificationParam, RequestStateCodec, SealOptions,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_agent::{ToolCallError, ToolCallRequest, ToolCalls};
use switchboard_core::OwnerId;
use switchboard_mcp::{Progress, ServerRequests};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::capabilities::{Capabilities, declined, no_sampler};
use super::{Answered, How, Ran};

/// How many calls one person may have waiting for input at once.
const HELD_PER_PERSON: usize = 16;
/// How long a held call waits for the client to come back.
const HOLD_FOR: Duration = Duration::from_secs(10 * 60);

/// The calls waiting for their client's input, in this process.
pub(crate) struct HeldCalls {
    /// `None` when the system gave no random key: nothing is held then, every request refused.
    codec: Option<RequestStateCodec>,
    calls: Arc<Mutex<HashMap<u64, Held>>>,
    next: AtomicU64,
    per_person: usize,
    hold_for: Duration,
}

impl std::fmt::Debug for HeldCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldCalls")
            .field("held", &self.lock().len())
            .finish_non_exhaustive()
    }
}

impl Default for HeldCalls {
    fn default() -> Self {
        Self::new()
    }
}

/// A call waiting for the client's answers to `asked`.
struct Held {
    owner: OwnerId,
    running: Running,
    asked: InputRequests,
    answer: oneshot::Sender<InputResponses>,
}

/// The upstream call, running in its own task.
struct Running {
    asks: mpsc::Receiver<Asked>,
    done: JoinHandle<Result<Answered, ToolCallError>>,
    cancel: CancellationToken,
    /// Where the call's progress goes: to the client's request of the current round, and
    /// nowhere while the call is held. The caller's progress sender must not outlive its
    /// request: its request waits for every progress report to be sent before it answers.
    progress: ProgressTarget,
    logs: LogTarget,
}

type ProgressTarget = Arc<Mutex<Option<mpsc::UnboundedSender<Progress>>>>;

/// Where a held call's log lines go: the current round's request, when it asked for them
/// (2026-07-28 logging is opt-in per request, `_meta` `logLevel`) at that level or above, and
/// nowhere while the call is held.
type LogTarget = Arc<Mutex<Option<(Peer<RoleServer>, LoggingLevel)>>>;

fn aim_logs(target: &LogTarget, context: Option<&RequestContext<RoleServer>>) {
    let round = context.and_then(|context| {
        let level = context.meta.log_level()?;
        Some((context.peer.clone(), level))
    });
    *target.lock().unwrap_or_else(PoisonError::into_inner) = round;
}

/// Log levels from the least severe up.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// A sender for a held call's progress, and the task passing it to the current round's.
fn progress_relay() -> (mpsc::UnboundedSender<Progress>, ProgressTarget) {
    let (sender, mut receiver) = mpsc::unbounded_channel::<Progress>();
    let target: ProgressTarget = Arc::default();
    let current = Arc::clone(&target);
    tokio::spawn(async move {
        while let Some(progress) = receiver.recv().await {
            let current = current.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(sink) = current.as_ref() {
                // The round's request may have ended; progress is advisory.
                let _ = sink.send(progress);
            }
        }
    });
    (sender, target)
}

fn aim(target: &ProgressTarget, sink: Option<mpsc::UnboundedSender<Progress>>) {
    *target.lock().unwrap_or_else(PoisonError::into_inner) = sink;
}

/// Requests the upstream made, waiting for the client's answers (only requests the client
/// declared it can answer).
struct Asked {
    requests: InputRequests,
    answer: oneshot::Sender<InputResponses>,
}

/// What the sealed `requestState` carries.
#[derive(Serialize, Deserialize)]
struct State {
    held: u64,
}

impl HeldCalls {
    pub(crate) fn new() -> Self {
        let mut key = [0u8; 32];
        let codec = match getrandom::fill(&mut key) {
            Ok(()) => Some(RequestStateCodec::new(key.to_vec())),
            Err(error) => {
                tracing::error!(%error, "no random key: upstream requests to stateless clients will be refused");
                None
            }
        };
        Self {
            codec,
            calls: Arc::default(),
            next: AtomicU64::new(1),
            per_person: HELD_PER_PERSON,
            hold_for: HOLD_FOR,
        }
    }

    /// Runs a `tools/call` of a 2026-07-28 client: a fresh call (made as `how` says), or the
    /// retry of a held one.
    pub(crate) async fn run(
        &self,
        tool_calls: &Arc<ToolCalls>,
        context: &RequestContext<RoleServer>,
        params: &CallToolRequestParams,
        (mut call, how): (ToolCallRequest, How),
        capabilities: Capabilities,
        view: Option<&str>,
    ) -> Result<Ran, ErrorData> {
        let owner = call.owner.clone();
        let bound_to = bound_to(&owner, view, &params.name);
        let round_progress = call.progress.take();
        let running = match (&params.request_state, &self.codec) {
            (Some(state), Some(codec)) => {
                let state: State = codec.open_json_with(state, &bound_to).map_err(|_| {
                    ErrorData::invalid_params("requestState failed verification", None)
                })?;
                match self.resume(state.held, &owner, params, &bound_to)? {
                    Resumed::Again(result) => return Ok(Ran::InputRequired(result)),
                    Resumed::Running(running) => running,
                }
            }
            (Some(_), None) => {
                return Err(ErrorData::invalid_params(
                    "requestState failed verification",
                    None,
                ));
            }
            (None, _) => {
                // The call outlives this request (it is answered on the client's retry), so
                // it is cancelled by its own token: when this request is cancelled while it
                // waits, or when it is held too long.
                let cancel = CancellationToken::new();
                call.cancel = cancel.clone();
                let (asks, receiver) = mpsc::channel(1);
                let logs = LogTarget::default();
                call.requests = Some(Arc::new(Asker {
                    logs: Arc::clone(&logs),
                    asks,
                    capabilities: if self.codec.is_some() {
                        capabilities
                    } else {
                        Capabilities::default()
                    },
                    offered: Mutex::new(params.input_responses.clone().unwrap_or_default()),
                    declared: context.client_capabilities(),
                }));
                let (progress, target) = progress_relay();
                call.progress = Some(progress);
                let tool_calls = Arc::clone(tool_calls);
                Running {
                    asks: receiver,
                    done: tokio::spawn(async move { super::make(&tool_calls, call, how).await }),
                    cancel,
                    progress: target,
                    logs,
                }
            }
        };
        aim(&running.progress, round_progress);
        aim_logs(&running.logs, Some(context));
        self.drive(running, owner, &bound_to, context).await
    }

    /// Waits for the call to end or to ask for input; in the latter case holds it.
    async fn drive(
        &self,
        mut running: Running,
        owner: OwnerId,
        bound_to: &[u8],
        context: &RequestContext<RoleServer>,
    ) -> Result<Ran, ErrorData> {
        loop {
            tokio::select! {
                asked = running.asks.recv() => {
                    let Some(asked) = asked else {
                        // The call dropped its requester: it is ending.
                        return finished((&mut running.done).await);
                    };
                    if self.count(&owner) >= self.per_person {
                        tracing::warn!(%owner, "too many calls waiting for input: request refused");
                        drop(asked); // the asker sees the refusal
                        continue;
                    }
                    return Ok(Ran::InputRequired(self.hold(owner, running, asked, bound_to)));
                }
                done = &mut running.done => return finished(done),
                () = context.ct.cancelled() => {
                    running.cancel.cancel();
                    return Err(ErrorData::internal_error("the call was cancelled", None));
                }
            }
        }
    }

    fn hold(
        &self,
        owner: OwnerId,
        running: Running,
        asked: Asked,
        bound_to: &[u8],
    ) -> InputRequiredResult {
        aim(&running.progress, None);
        aim_logs(&running.logs, None);
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let result = self.input_required(id, &asked.requests, bound_to);
        self.lock().insert(
            id,
            Held {
                owner,
                running,
                asked: asked.requests,
                answer: asked.answer,
            },
        );
        let calls = Arc::downgrade(&self.calls);
        let hold_for = self.hold_for;
        tokio::spawn(async move {
            tokio::time::sleep(hold_for).await;
            expire(&calls, id);
        });
        result
    }

    fn input_required(
        &self,
        id: u64,
        asked: &InputRequests,
        bound_to: &[u8],
    ) -> InputRequiredResult {
        let state = self.codec.as_ref().and_then(|codec| {
            let options = SealOptions::new()
                .associated_data(bound_to)
                .ttl(self.hold_for);
            codec.seal_json_with(&State { held: id }, &options).ok()
        });
        InputRequiredResult::new(Some(asked.clone()), state)
    }

    /// The retry of held call `id`: its answers handed over, or the same requests again when
    /// some are missing.
    fn resume(
        &self,
        id: u64,
        owner: &OwnerId,
        params: &CallToolRequestParams,
        bound_to: &[u8],
    ) -> Result<Resumed, ErrorData> {
        let mut calls = self.lock();
        let Some(held) = calls.get(&id) else {
            return Err(ErrorData::invalid_params(
                "no call is waiting under this requestState: it ended, timed out, or is held by \
                 another server process",
                None,
            ));
        };
        if held.owner != *owner {
            return Err(ErrorData::invalid_params(
                "requestState failed verification",
                None,
            ));
        }
        let given = params.input_responses.clone().unwrap_or_default();
        let mut answers = InputResponses::new();
        for (key, request) in &held.asked {
            let Some(answer) = given.get(key) else {
                return Ok(Resumed::Again(self.input_required(
                    id,
                    &held.asked,
                    bound_to,
                )));
            };
            check(key, request, answer)?;
            answers.insert(key.clone(), answer.clone());
        }
        let Some(held) = calls.remove(&id) else {
            return Err(ErrorData::internal_error("the held call vanished", None));
        };
        drop(calls);
        // The call may have ended meanwhile (cancelled, timed out); driving it tells.
        let _ = held.answer.send(answers);
        Ok(Resumed::Running(held.running))
    }

    fn count(&self, owner: &OwnerId) -> usize {
        self.lock()
            .values()
            .filter(|held| held.owner == *owner)
            .count()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Held>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

enum Resumed {
    Again(InputRequiredResult),
    Running(Running),
}

/// What a sealed state is bound to: the person, the view the request came through (a
/// view-scoped token must not resume a call made outside its view) and the tool (its
/// exported name).
fn bound_to(owner: &OwnerId, view: Option<&str>, tool: &str) -> Vec<u8> {
    let view = view.map_or_else(|| "\u{0}".to_owned(), |view| format!("v:{view}"));
    format!("{owner}\n{view}\n{tool}").into_bytes()
}

/// A held call nobody came back for: its upstream call is cancelled.
fn expire(calls: &Weak<Mutex<HashMap<u64, Held>>>, id: u64) {
    let Some(calls) = calls.upgrade() else { return };
    let held = calls
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&id);
    if let Some(held) = held {
        tracing::debug!(held = id, "a call waiting for input timed out");
        held.running.cancel.cancel();
    }
}

/// An answer of the right shape for its request, or invalid params.
fn check(key: &str, request: &InputRequest, answer: &Value) -> Result<(), ErrorData> {
    let fits = match request {
        InputRequest::Elicitation(_) => {
            serde_json::from_value::<ElicitResult>(answer.clone()).is_ok()
        }
        InputRequest::CreateMessage(_) => {
            serde_json::from_value::<CreateMessageResult>(answer.clone()).is_ok()
        }
        InputRequest::ListRoots(_) => {
            serde_json::from_value::<ListRootsResult>(answer.clone()).is_ok()
        }
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(ErrorData::invalid_params(
            format!("inputResponses[`{key}`] is not a result of the request asked"),
            None,
        ))
    }
}

fn finished(
    done: Result<Result<Answered, ToolCallError>, tokio::task::JoinError>,
) -> Result<Ran, ErrorData> {
    match done {
        Ok(outcome) => Ok(Ran::Done(outcome)),
        Err(_) => Err(ErrorData::internal_error("the call's task failed", None)),
    }
}

/// The requester of a held call: what the upstream asks is handed to [`HeldCalls::drive`]
/// and answered when the client comes back.
#[derive(Debug)]
struct Asker {
    asks: mpsc::Sender<Asked>,
    capabilities: Capabilities,
    /// `inputResponses` the client sent with its first request, before being asked (SEP-2322:
    /// a client may answer ahead; keys nobody asks for are ignored). Used once, for the first
    /// upstream requests they answer in full.
    offered: Mutex<InputResponses>,
    /// What the client declared in its request's `_meta`, passed on to the upstream.
    declared: Option<rmcp::model::ClientCapabilities>,
    /// Where the upstream's log lines during the call go.
    logs: LogTarget,
}

impl Asker {
    /// Hands `requests` (each one the client declared it can answer) to the client.
    async fn ask(&self, requests: InputRequests) -> Result<InputResponses, ErrorData> {
        if let Some(answers) = self.answered_ahead(&requests) {
            return Ok(answers);
        }
        let (answer, answered) = oneshot::channel();
        let gone = || ErrorData::internal_error("the client did not answer", None);
        self.asks
            .send(Asked { requests, answer })
            .await
            .map_err(|_| gone())?;
        answered.await.map_err(|_| gone())
    }

    /// The answers to every one of `requests` the client gave ahead, if it gave them all and
    /// each fits its request; they are spent either way.
    fn answered_ahead(&self, requests: &InputRequests) -> Option<InputResponses> {
        let offered =
            std::mem::take(&mut *self.offered.lock().unwrap_or_else(PoisonError::into_inner));
        if offered.is_empty() {
            return None;
        }
        requests
            .iter()
            .map(|(key, request)| {
                let answer = offered.get(key)?;
                check(key, request, answer).ok()?;
                Some((key.clone(), answer.clone()))
            })
            .collect()
    }

    fn declared(&self, request: &InputRequest) -> bool {
        match request {
            InputRequest::Elicitation(request) => self.capabilities.elicits(&request.params),
            InputRequest::CreateMessage(_) => self.capabilities.sampling,
            InputRequest::ListRoots(_) => self.capabilities.roots,
            _ => false,
        }
    }
}

/// The key our own requests (from an upstream on 2025-11-25) get in `inputRequests`.
const ELICITATION: &str = "elicitation";
const SAMPLING: &str = "sampling";

impl ServerRequests for Asker {
    fn client_capabilities(&self) -> Option<rmcp::model::ClientCapabilities> {
        self.declared.clone()
    }

    /// An upstream's log line during the call goes to the client's request of the current
    /// round, if it asked for lines of that level (secrets already cut out).
    fn log(&self, params: LoggingMessageNotificationParam) -> BoxFuture<'_, ()> {
        let round = self
            .logs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        Box::pin(async move {
            let Some((peer, level)) = round else { return };
            if severity(params.level) < severity(level) {
                return;
            }
            if let Err(error) = peer.notify_logging_message(params).await {
                tracing::debug!(%error, "gateway: a log line could not be sent to the client");
            }
        })
    }

    fn answers_roots(&self) -> bool {
        self.capabilities.roots
    }

    fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async move {
            if !self.capabilities.elicits(&params) {
                return Ok(declined());
            }
            let request = InputRequest::Elicitation(ElicitRequest::new(params));
            let mut answers = self
                .ask(InputRequests::from([(ELICITATION.to_owned(), request)]))
                .await?;
            parse(answers.remove(ELICITATION))
        })
    }

    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async move {
            if !self.capabilities.sampling {
                return Err(no_sampler());
            }
            let request = InputRequest::CreateMessage(CreateMessageRequest::new(params));
            let mut answers = self
                .ask(InputRequests::from([(SAMPLING.to_owned(), request)]))
                .await?;
            parse(answers.remove(SAMPLING))
        })
    }

    /// An upstream on 2026-07-28 asking for input: its requests reach the client under the
    /// upstream's own keys; those the client did not declare are answered here (elicitation
    /// declined, roots empty) or refuse the call (sampling).
    fn input(&self, requests: InputRequests) -> BoxFuture<'_, Result<InputResponses, ErrorData>> {
        Box::pin(async move {
            let (passed, refused): (InputRequests, InputRequests) = requests
                .into_iter()
                .partition(|(_, request)| self.declared(request));
            let mut answers = switchboard_mcp::ServerRequests::input(&Refuser, refused).await?;
            if !passed.is_empty() {
                answers.extend(self.ask(passed).await?);
            }
            Ok(answers)
        })
    }
}

/// Answers everything as a caller without capabilities would be answered.
#[derive(Debug)]
struct Refuser;

impl ServerRequests for Refuser {
    fn elicit(&self, _: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async { Ok(declined()) })
    }

    fn sample(
        &self,
        _: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async { Err(no_sampler()) })
    }
}

fn parse<T: serde::de::DeserializeOwned>(answer: Option<Value>) -> Result<T, ErrorData> {
    let answer =
        answer.ok_or_else(|| ErrorData::internal_error("the client's answer is missing", None))?;
    serde_json::from_value(answer).map_err(|_| {
        ErrorData::internal_error("the client's answer does not fit the request", None)
    })
}
