//! A tool call on the connection (`tools/call`), multiplexed with the others by JSON-RPC id:
//! its own timeouts (an idle one that progress resets, and a ceiling), its cancellation told
//! to the server, its progress and log lines routed to its caller, and a 2026-07-28 server's
//! input-required results answered round after round. With the tasks extension declared, the
//! server may answer with a task instead (`super::tasks`).

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, JsonObject, RequestId, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use tokio::sync::mpsc;

use super::{CallLimits, CallOptions, Connection, result_kind, tasks};
use crate::attention::{Attended, Attention};
use crate::client::Progress;
use crate::error::McpError;

/// How long past its ceiling a call may wait for rmcp to write its cancellation.
const CANCEL_WRITE_SLACK: Duration = Duration::from_secs(5);

impl Connection {
    /// Calls a tool. A connection that dies before the request is written reports
    /// [`McpError::ConnectionLost`]; one that dies after reports [`McpError::LostAfterSend`],
    /// because the server may have run the tool.
    ///
    /// A server on the 2026-07-28 revision may answer with an input-required result instead
    /// of asking us during the call: its requests are answered by the call's requester (as the
    /// same requests sent during a call would be) and the call sent again with the answers,
    /// round after round (`crate::input_required`).
    pub(crate) async fn call_tool(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        options: &CallOptions,
        limits: CallLimits,
    ) -> Result<CallToolResult, McpError> {
        match self
            .call_rounds(tool, arguments, options, limits, false)
            .await?
        {
            Answered::Result(result) => Ok(result),
            // rmcp refuses a task to a request that did not declare the extension; a server
            // answering one anyway broke the protocol.
            Answered::Task(_) => Err(McpError::Protocol {
                server: self.server.clone(),
                detail: "tools/call answered with a task it was not asked for".to_owned(),
            }),
        }
    }

    /// `tools/call` with its input-required rounds answered (see [`Self::call_tool`]); with
    /// `declare_tasks` the request declares the tasks extension, and the server may answer
    /// with a task.
    pub(crate) async fn call_rounds(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        options: &CallOptions,
        limits: CallLimits,
        declare_tasks: bool,
    ) -> Result<Answered, McpError> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        if let Some(resume) = &options.resume {
            params.input_responses = Some(resume.responses.clone());
            params.request_state = resume.request_state.clone();
        }
        let mut rounds = 0;
        loop {
            match self
                .call_once(tool, params.clone(), options, limits, declare_tasks)
                .await?
            {
                ServerResult::CallToolResult(result) => return Ok(Answered::Result(result)),
                ServerResult::CreateTaskResult(created) if declare_tasks => {
                    return Ok(Answered::Task(created));
                }
                ServerResult::InputRequiredResult(asked) => {
                    rounds += 1;
                    if rounds > rmcp::model::DEFAULT_MRTR_MAX_ROUNDS {
                        return Err(McpError::Protocol {
                            server: self.server.clone(),
                            detail: format!(
                                "tools/call still required input after {} rounds",
                                rmcp::model::DEFAULT_MRTR_MAX_ROUNDS
                            ),
                        });
                    }
                    if let Some(requester) = &options.requests {
                        requester
                            .keep_input(
                                asked.input_requests.as_ref(),
                                asked.request_state.as_deref(),
                            )
                            .await;
                    }
                    let answers = crate::input_required::answer(
                        &self.server,
                        asked.input_requests,
                        options,
                        &self.events.roots(),
                    )
                    .await?;
                    params.input_responses = Some(answers);
                    params.request_state = asked.request_state;
                }
                other => {
                    return Err(McpError::Protocol {
                        server: self.server.clone(),
                        detail: format!(
                            "expected a tools/call result, got {}",
                            result_kind(&other)
                        ),
                    });
                }
            }
        }
    }

    async fn call_once(
        &self,
        tool: &str,
        params: CallToolRequestParams,
        options: &CallOptions,
        limits: CallLimits,
        declare_tasks: bool,
    ) -> Result<ServerResult, McpError> {
        if options.cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        // A call a person may answer: rmcp gets the ceiling, and the idle timeout is kept
        // by `attention`, stopped while a question is open (see `crate::attention`).
        let attention = options
            .requests
            .as_ref()
            .filter(|requests| requests.waits_for_a_person())
            .map(|_| Attention::new());
        let requester = match (&attention, &options.requests) {
            (Some(attention), Some(requests)) => {
                Some(Attended::wrap(Arc::clone(requests), attention))
            }
            _ => options.requests.clone(),
        };
        let idle = if attention.is_some() {
            limits.ceiling
        } else {
            limits.idle
        };
        let mut request_options = PeerRequestOptions::with_timeout(idle)
            .reset_timeout_on_progress()
            .with_max_total_timeout(limits.ceiling);
        // rmcp fills `_meta` with our own capabilities and then applies these options' meta.
        let declared = if declare_tasks {
            Some(self.task_capabilities(options.requests.as_ref()))
        } else {
            options
                .requests
                .as_ref()
                .and_then(|requests| requests.client_capabilities())
        };
        if let Some(declared) = declared {
            request_options.meta = Some(tasks::extension::task_meta(declared));
        }
        let mut request = CallToolRequest::new(params);
        request
            .extensions
            .insert(crate::requests::Registering(requester));
        let handle = self
            .session
            .send_request_with_option(ClientRequest::CallToolRequest(request), request_options)
            .await
            .map_err(|error| McpError::from_service(&self.server, "tools/call", error))?;
        // Registered by the transport as it writes the request (`Registering`), before the
        // server can have read it; removed when this call ends.
        let _in_flight = self.events.calls.guard(handle.id.clone());
        let progress = match &attention {
            Some(attention) => Some(progress_tee(attention, options.progress.clone())),
            None => options.progress.clone(),
        };
        let _progress = progress.map(|sink| {
            self.events
                .watch_progress(handle.progress_token.clone(), sink)
        });
        let mut abandoned = AbandonGuard::new(self.session.peer().clone(), handle.id.clone());
        let call_id = handle.id.clone();
        // rmcp enforces both limits, but its timeout path waits for the cancellation to be
        // written; the outer bound keeps a transport that stopped accepting writes from
        // holding the caller past the ceiling.
        let bound = limits.ceiling + CANCEL_WRITE_SLACK;
        let response = tokio::select! {
            response = tokio::time::timeout(bound, handle.await_response()) => match response {
                Ok(response) => response,
                Err(_) => {
                    return Err(McpError::Timeout {
                        server: self.server.clone(),
                        method: "tools/call".to_owned(),
                        timeout: limits.ceiling,
                    });
                }
            },
            () = options.cancel.cancelled() => return Err(McpError::Cancelled),
            () = lapsed(attention.as_deref(), limits.idle) => {
                return Err(McpError::Timeout {
                    server: self.server.clone(),
                    method: "tools/call".to_owned(),
                    timeout: limits.idle,
                });
            }
        };
        abandoned.disarm();
        // The call's log lines received before its answer reach its caller first.
        self.events
            .calls
            .logs_settled(&call_id, crate::requests::LOG_SETTLE)
            .await;
        match response {
            Ok(result) => Ok(result),
            // A 401 or 403 from the OAuth client was answered before the server ran anything.
            Err(error @ rmcp::ServiceError::TransportSend(_))
                if McpError::wants_sign_in(&error) =>
            {
                Err(McpError::from_service(&self.server, "tools/call", error))
            }
            // Once the request is handed to the transport, a failed write may still have reached
            // the server (an HTTP POST answered 502 by a proxy after the backend ran the
            // tool): the call may have run.
            Err(rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)) => {
                Err(McpError::LostAfterSend {
                    server: self.server.clone(),
                    tool: tool.to_owned(),
                })
            }
            Err(error) => Err(McpError::from_service(&self.server, "tools/call", error)),
        }
    }
}

/// What a `tools/call` answered once its input-required rounds were done.
pub(crate) enum Answered {
    Result(CallToolResult),
    /// The server runs the call as this task (the request declared the tasks extension).
    Task(rmcp::model::CreateTaskResult),
}
/// Tells the server a request was abandoned when the caller stops waiting, whether by
/// cancelling, timing out or dropping the call's future. The notification is sent from a task
/// of its own, so a transport that no longer accepts writes cannot hold the caller.
struct AbandonGuard {
    peer: Option<rmcp::Peer<RoleClient>>,
    id: RequestId,
}

impl AbandonGuard {
    fn new(peer: rmcp::Peer<RoleClient>, id: RequestId) -> Self {
        Self {
            peer: Some(peer),
            id,
        }
    }

    fn disarm(&mut self) {
        self.peer = None;
    }
}

fn cancelled(id: RequestId, reason: &str) -> CancelledNotificationParam {
    CancelledNotificationParam::new(Some(id), Some(reason.to_owned()))
}

impl Drop for AbandonGuard {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else { return };
        let id = self.id.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer
                    .notify_cancelled(cancelled(id, "the caller stopped waiting"))
                    .await;
            });
        }
    }
}

/// Never, for a call without [`Attention`].
async fn lapsed(attention: Option<&Attention>, idle: Duration) {
    match attention {
        Some(attention) => attention.lapsed(idle).await,
        None => std::future::pending().await,
    }
}

/// A progress sink that tells `attention` of each report before passing it on to `caller`.
/// The forwarding task ends when the call's progress watch drops the sink.
fn progress_tee(
    attention: &Arc<Attention>,
    caller: Option<mpsc::UnboundedSender<Progress>>,
) -> mpsc::UnboundedSender<Progress> {
    let (sink, mut reports) = mpsc::unbounded_channel();
    let attention = Arc::clone(attention);
    tokio::spawn(async move {
        while let Some(report) = reports.recv().await {
            attention.touch();
            if let Some(caller) = &caller {
                let _ = caller.send(report);
            }
        }
    });
    sink
}
