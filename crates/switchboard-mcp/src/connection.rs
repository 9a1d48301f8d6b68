//! One live session with one server, shared by every caller: calls are multiplexed over it by
//! JSON-RPC id, each with its own timeout, progress and cancellation.

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    ClientRequest, CompleteRequestParams, CompleteResult, GetPromptRequest, GetPromptRequestParams,
    GetPromptResponse, Implementation, PaginatedRequestParams, Prompt, ReadResourceRequestParams,
    ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities, ServerResult,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{PeerRequestOptions, RunningService};
use serde::{Deserialize, Serialize};
use switchboard_core::ServerSpec;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::client::{Progress, SessionEvents, SwitchboardClient};
use crate::error::McpError;
use crate::transport::stdio::{ProcessGroupGuard, StderrTail};

mod call;
mod tasks;

pub(crate) use call::Answered;
pub(crate) use tasks::extension::wants_the_extension;

pub(crate) type Session = RunningService<RoleClient, SwitchboardClient>;

/// What the server told us about itself when we connected.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDetails {
    pub protocol_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Implementation>,
    pub capabilities: ServerCapabilities,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// How one call is run.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Cancelling it abandons the call and tells the server (`notifications/cancelled`).
    pub cancel: CancellationToken,
    /// Receives the server's progress reports for this call.
    pub progress: Option<mpsc::UnboundedSender<Progress>>,
    /// Overrides the time the call may go without a response or progress.
    pub timeout: Option<Duration>,
    /// Overrides how the manager tries again when the server cannot be reached or the
    /// connection is lost ([`ManagerConfig::retry`](crate::ManagerConfig::retry)). A caller
    /// that retries itself (the tool-call service, which records every attempt) passes
    /// [`RetryPolicy::never`](crate::RetryPolicy::never), so attempts are not multiplied.
    pub retry: Option<crate::RetryPolicy>,
    /// Who answers the server's elicitation and sampling requests during this call; `None`:
    /// they are refused.
    pub requests: Option<crate::Requester>,
    /// Sends the call with these answers to an input-required result a 2026-07-28 server gave
    /// it earlier (a call resumed after a restart).
    pub resume: Option<InputResume>,
    /// The caller would rather have a task than wait: under a server's `tasks: auto` setting,
    /// [`ConnectionManager::start_tool_task`](crate::ConnectionManager::start_tool_task)
    /// starts a tool that may run as a task as one. Plain calls do not read it.
    pub prefer_task: bool,
}

/// The answers to an earlier input-required result, sent with the call again.
#[derive(Debug, Clone, Default)]
pub struct InputResume {
    pub responses: rmcp::model::InputResponses,
    pub request_state: Option<String>,
}

/// What becomes of a server's input-required answer to `prompts/get`.
#[derive(Clone)]
pub enum PromptInput {
    /// Answered by this requester (`None`: refused, as for a caller without capabilities) and
    /// the request sent again.
    Answer(Option<crate::Requester>),
    /// Handed back to the caller, a 2026-07-28 client that answers it itself.
    Return,
}

/// Per-call time limits: `idle` resets on every progress report, `ceiling` does not.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallLimits {
    pub(crate) idle: Duration,
    pub(crate) ceiling: Duration,
}

pub(crate) struct Connection {
    server: String,
    session: Session,
    events: Arc<SessionEvents>,
    ended: CancellationToken,
    process: Option<(ProcessGroupGuard, StderrTail)>,
    details: ServerDetails,
    /// The `subscriptions/listen` streams open for resources of a 2026-07-28 server, by URI;
    /// removing one ends its stream (`crate::listen`).
    listens: crate::listen::Listens,
    /// The OAuth tokens the connection sends, when it signs in.
    tokens: Option<Arc<crate::oauth::SeenTokens>>,
}

impl Connection {
    pub(crate) fn new(
        spec: &ServerSpec,
        session: Session,
        events: Arc<SessionEvents>,
        ended: CancellationToken,
        process: Option<(ProcessGroupGuard, StderrTail)>,
    ) -> Self {
        let details = match session.peer_info() {
            Some(info) => ServerDetails {
                protocol_version: info.protocol_version.to_string(),
                server_info: info.server_info.clone(),
                capabilities: info.capabilities.clone(),
                instructions: info.instructions.clone(),
            },
            None => ServerDetails {
                protocol_version: String::new(),
                server_info: None,
                capabilities: ServerCapabilities::default(),
                instructions: None,
            },
        };
        Self {
            server: spec.name.clone(),
            session,
            events,
            ended,
            process,
            details,
            listens: crate::listen::Listens::default(),
            tokens: None,
        }
    }

    /// The connection, noting the OAuth tokens `tokens` holds as secrets of its answers.
    pub(crate) fn with_tokens(mut self, tokens: Option<Arc<crate::oauth::SeenTokens>>) -> Self {
        self.tokens = tokens;
        self
    }

    /// The OAuth tokens the connection sends; `None` without a sign-in.
    pub(crate) fn tokens(&self) -> Option<&crate::oauth::SeenTokens> {
        self.tokens.as_deref()
    }

    pub(crate) fn details(&self) -> &ServerDetails {
        &self.details
    }

    /// The process group of a stdio server, for tests and diagnostics.
    pub(crate) fn pgid(&self) -> Option<u32> {
        self.process.as_ref().map(|(group, _)| group.pgid())
    }

    /// False once the process died, the stream closed or the session could not be recovered.
    pub(crate) fn is_alive(&self) -> bool {
        !self.ended.is_cancelled()
            && !self.session.is_closed()
            && !self.session.is_transport_closed()
    }

    /// Resolves when the transport has ended.
    pub(crate) fn ended(&self) -> CancellationToken {
        self.ended.clone()
    }

    pub(crate) fn tools_generation(&self) -> u64 {
        self.events.tools_generation()
    }

    /// Every tool, following `nextCursor` until the server has no more pages.
    pub(crate) async fn list_tools(&self, limits: CallLimits) -> Result<Vec<Tool>, McpError> {
        self.all_pages("tools/list", limits, |params| async {
            let page = self.session.list_tools(params).await?;
            Ok((page.tools, page.next_cursor))
        })
        .await
    }

    pub(crate) async fn list_resources(
        &self,
        limits: CallLimits,
    ) -> Result<Vec<Resource>, McpError> {
        self.all_pages("resources/list", limits, |params| async {
            let page = self.session.list_resources(params).await?;
            Ok((page.resources, page.next_cursor))
        })
        .await
    }

    pub(crate) async fn list_resource_templates(
        &self,
        limits: CallLimits,
    ) -> Result<Vec<ResourceTemplate>, McpError> {
        self.all_pages("resources/templates/list", limits, |params| async {
            let page = self.session.list_resource_templates(params).await?;
            Ok((page.resource_templates, page.next_cursor))
        })
        .await
    }

    /// Gives the server `roots` (`file:` URIs); when they changed, tells it
    /// (`notifications/roots/list_changed`) so it asks again.
    pub(crate) fn set_roots(&self, roots: Vec<String>) {
        if self.events.set_roots(roots) {
            let peer = self.session.peer().clone();
            let server = self.server.clone();
            tokio::spawn(async move {
                if let Err(error) = peer.notify_roots_list_changed().await {
                    tracing::debug!(%server, %error, "could not announce changed roots");
                }
            });
        }
    }

    /// Where this connection's list changes and resource updates are announced.
    pub(crate) fn publish_to(&self, notices: crate::client::Notices) {
        self.events.publish_to(notices);
    }

    /// Whether the server offers `resources/subscribe`.
    pub(crate) fn offers_subscriptions(&self) -> bool {
        self.details
            .capabilities
            .resources
            .as_ref()
            .and_then(|resources| resources.subscribe)
            .unwrap_or(false)
    }

    /// `resources/subscribe` (`on`) or `resources/unsubscribe`; on a 2026-07-28 server, which
    /// refuses both, a `subscriptions/listen` stream for the URI opened or ended instead.
    // Servers of the `initialize` generation, which are nearly all of them, still take the
    // legacy methods.
    #[allow(deprecated)]
    pub(crate) async fn subscribe(
        &self,
        uri: &str,
        on: bool,
        limits: CallLimits,
    ) -> Result<(), McpError> {
        if crate::listen::uses_listen(&self.details.protocol_version) {
            if !on {
                self.listens.end(uri);
                return Ok(());
            }
            let filter = SubscriptionFilter::builder()
                .resource_subscription(uri)
                .build();
            let subscription = self
                .bounded(
                    "subscriptions/listen",
                    limits,
                    self.session.peer().listen(filter),
                )
                .await?;
            return self
                .listens
                .start(&self.server, uri, subscription, Arc::clone(&self.events));
        }
        if on {
            let params = SubscribeRequestParams::new(uri);
            self.bounded(
                "resources/subscribe",
                limits,
                self.session.subscribe(params),
            )
            .await
        } else {
            let params = UnsubscribeRequestParams::new(uri);
            self.bounded(
                "resources/unsubscribe",
                limits,
                self.session.unsubscribe(params),
            )
            .await
        }
    }

    pub(crate) async fn complete(
        &self,
        params: CompleteRequestParams,
        limits: CallLimits,
    ) -> Result<CompleteResult, McpError> {
        self.bounded("completion/complete", limits, self.session.complete(params))
            .await
    }

    pub(crate) async fn list_prompts(&self, limits: CallLimits) -> Result<Vec<Prompt>, McpError> {
        self.all_pages("prompts/list", limits, |params| async {
            let page = self.session.list_prompts(params).await?;
            Ok((page.prompts, page.next_cursor))
        })
        .await
    }

    /// Requests page after page until a page has no `nextCursor`. A server that hands back a
    /// cursor it already gave would loop forever, so that is a protocol error.
    async fn all_pages<T, F, Fut>(
        &self,
        method: &str,
        limits: CallLimits,
        page: F,
    ) -> Result<Vec<T>, McpError>
    where
        F: Fn(Option<PaginatedRequestParams>) -> Fut,
        Fut: Future<Output = Result<(Vec<T>, Option<String>), rmcp::ServiceError>>,
    {
        let mut items = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor
                .clone()
                .map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
            let (batch, next) = self.bounded(method, limits, page(params)).await?;
            items.extend(batch);
            match next {
                Some(next) if next.is_empty() => return Ok(items),
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(McpError::Protocol {
                        server: self.server.clone(),
                        detail: format!("{method} returned the cursor `{next}` twice"),
                    });
                }
                Some(next) => cursor = Some(next),
                None => return Ok(items),
            }
        }
    }

    pub(crate) async fn read_resource(
        &self,
        uri: &str,
        limits: CallLimits,
    ) -> Result<ReadResourceResult, McpError> {
        let params = ReadResourceRequestParams::new(uri);
        self.bounded("resources/read", limits, self.session.read_resource(params))
            .await
    }

    /// `prompts/get`. A 2026-07-28 server may answer with an input-required result: `input`
    /// says whether it goes back to the caller as it is (whose retry carries the answers and
    /// the server's `requestState`) or is answered by a requester and the request sent again,
    /// as for `tools/call`. Requests the server sends during the request (older revisions) go
    /// to that requester too.
    pub(crate) async fn get_prompt(
        &self,
        mut params: GetPromptRequestParams,
        input: &PromptInput,
        limits: CallLimits,
    ) -> Result<GetPromptResponse, McpError> {
        let requests = match input {
            PromptInput::Answer(requests) => requests.clone(),
            PromptInput::Return => None,
        };
        let mut rounds = 0;
        loop {
            let answer = self
                .bounded(
                    "prompts/get",
                    limits,
                    self.prompt_once(params.clone(), requests.clone()),
                )
                .await?;
            let asked = match answer {
                ServerResult::GetPromptResult(result) => {
                    return Ok(GetPromptResponse::Complete(result));
                }
                ServerResult::InputRequiredResult(asked) => asked,
                other => {
                    return Err(McpError::Protocol {
                        server: self.server.clone(),
                        detail: format!(
                            "expected a prompts/get result, got {}",
                            result_kind(&other)
                        ),
                    });
                }
            };
            if matches!(input, PromptInput::Return) {
                return Ok(GetPromptResponse::InputRequired(asked));
            }
            rounds += 1;
            if rounds > rmcp::model::DEFAULT_MRTR_MAX_ROUNDS {
                return Err(McpError::Protocol {
                    server: self.server.clone(),
                    detail: format!(
                        "prompts/get still required input after {} rounds",
                        rmcp::model::DEFAULT_MRTR_MAX_ROUNDS
                    ),
                });
            }
            let options = CallOptions {
                requests: requests.clone(),
                ..CallOptions::default()
            };
            let answers = crate::input_required::answer(
                &self.server,
                asked.input_requests,
                &options,
                &self.events.roots(),
            )
            .await?;
            params.input_responses = Some(answers);
            params.request_state = asked.request_state;
        }
    }

    /// One `prompts/get`, sent as is (rmcp's `get_prompt` would answer an input-required
    /// result through the client handler, which cannot know whose request it is).
    async fn prompt_once(
        &self,
        params: GetPromptRequestParams,
        requests: Option<crate::Requester>,
    ) -> Result<ServerResult, rmcp::ServiceError> {
        let mut request = GetPromptRequest::new(params);
        request
            .extensions
            .insert(crate::requests::Registering(requests));
        let handle = self
            .session
            .send_request_with_option(
                ClientRequest::GetPromptRequest(request),
                PeerRequestOptions::no_options(),
            )
            .await?;
        let _in_flight = self.events.calls.guard(handle.id.clone());
        handle.await_response().await
    }

    async fn bounded<T>(
        &self,
        method: &str,
        limits: CallLimits,
        request: impl Future<Output = Result<T, rmcp::ServiceError>>,
    ) -> Result<T, McpError> {
        match tokio::time::timeout(limits.idle, request).await {
            Ok(result) => {
                result.map_err(|error| McpError::from_service(&self.server, method, error))
            }
            Err(_) => Err(McpError::Timeout {
                server: self.server.clone(),
                method: method.to_owned(),
                timeout: limits.idle,
            }),
        }
    }

    /// Ends the session and the server at once, while calls may still hold the connection.
    pub(crate) fn terminate(&self) {
        self.session.cancellation_token().cancel();
        self.ended.cancel();
        if let Some((group, _)) = &self.process {
            group.kill();
        }
    }

    /// Ends the session: stdin is closed so the server may exit on its own, then after `grace`
    /// the whole process group is killed, grandchildren included.
    pub(crate) async fn close(self, grace: Duration) {
        let Self {
            session, process, ..
        } = self;
        let _ = tokio::time::timeout(grace, session.cancel()).await;
        if let Some((group, _)) = process {
            group.kill();
        }
    }
}

fn result_kind(result: &ServerResult) -> &'static str {
    match result {
        ServerResult::CallToolResult(_) => "a tool result",
        ServerResult::InputRequiredResult(_) => "an input-required result",
        ServerResult::CreateTaskResult(_) => "a task",
        _ => "another kind of result",
    }
}
