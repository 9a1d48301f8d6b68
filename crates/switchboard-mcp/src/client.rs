//! Our side of the MCP session: what we tell servers about ourselves and what we do with what
//! they send us unasked (progress, list changes, log lines, requests for roots).

// Roots and logging are deprecated by SEP-2577 but still used by deployed servers.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationCapability, FormElicitationCapability,
    Implementation, ListRootsResult, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ResourceUpdatedNotificationParam,
    Root, RootsCapabilities, SamplingCapability, UrlElicitationCapability,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleClient};
use tokio::sync::mpsc;

pub(crate) use crate::notices::Notices;
use crate::pool::ListKind;

/// One progress report of a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// State shared between the rmcp handler (which receives notifications on rmcp's task) and the
/// connection that issues calls.
#[derive(Debug, Default)]
pub(crate) struct SessionEvents {
    /// Bumped on every `notifications/tools/list_changed`; a cached tool list remembers the
    /// generation it was fetched at and is stale once this moves on.
    tools_generation: AtomicU64,
    /// Where progress of each in-flight call goes, by its progress token. A std mutex: it is
    /// held for a map operation only, never across an await.
    progress: Mutex<HashMap<ProgressToken, mpsc::UnboundedSender<Progress>>>,
    /// Where list changes and resource updates are announced, set by the pool once the
    /// connection is up (a notice the server sends during the handshake is dropped: nobody
    /// can have listed through this connection yet).
    notices: OnceLock<Notices>,
    /// The calls in flight and who answers the server's requests during each.
    pub(crate) calls: Arc<crate::requests::InFlight>,
    /// The roots answered to `roots/list` (`file:` URIs), from the server's spec.
    roots: Mutex<Vec<String>>,
}

impl SessionEvents {
    pub(crate) fn tools_generation(&self) -> u64 {
        self.tools_generation.load(Ordering::Acquire)
    }

    pub(crate) fn roots(&self) -> Vec<String> {
        self.roots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Sets the roots; whether they changed.
    pub(crate) fn set_roots(&self, roots: Vec<String>) -> bool {
        let mut held = self.roots.lock().unwrap_or_else(PoisonError::into_inner);
        if *held == roots {
            return false;
        }
        *held = roots;
        true
    }

    /// Keeps a line the server logged, once the connection is up.
    pub(crate) fn logged(&self, level: String, logger: Option<String>, text: &str) {
        if let Some(notices) = self.notices.get() {
            notices.logged(level, logger, text);
        }
    }

    pub(crate) fn publish_to(&self, notices: Notices) {
        // Set once per connection; a second call would be a bug of the pool, and keeping the
        // first is harmless.
        let _ = self.notices.set(notices);
    }

    /// Announces an update of a subscribed resource, whether it came as a plain notification
    /// or on a `subscriptions/listen` stream.
    pub(crate) fn resource_updated(&self, uri: String) {
        if let Some(notices) = self.notices.get() {
            notices.resource_updated(uri);
        }
    }

    fn list_changed(&self, kind: ListKind) {
        if let Some(notices) = self.notices.get() {
            notices.list_changed(kind);
        }
    }

    /// Hands a progress report to the call it belongs to. Called from the transport as each
    /// message is read, in order: rmcp runs notification handlers on tasks of their own, so a
    /// report handled there could arrive after the call's result, and be lost.
    pub(crate) fn dispatch_progress(&self, params: &ProgressNotificationParam) {
        let sink = self
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&params.progress_token)
            .cloned();
        if let Some(sink) = sink {
            // The caller may have stopped listening; progress is advisory.
            let _ = sink.send(Progress {
                progress: params.progress,
                total: params.total,
                message: params.message.clone(),
            });
        }
    }

    pub(crate) fn watch_progress(
        self: &Arc<Self>,
        token: ProgressToken,
        sink: mpsc::UnboundedSender<Progress>,
    ) -> ProgressWatch {
        self.progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), sink);
        ProgressWatch {
            events: Arc::clone(self),
            token,
        }
    }
}

/// Unregisters a progress sink when the call it belongs to ends.
pub(crate) struct ProgressWatch {
    events: Arc<SessionEvents>,
    token: ProgressToken,
}

impl Drop for ProgressWatch {
    fn drop(&mut self) {
        self.events
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
    }
}

/// The rmcp client handler of one connection.
#[derive(Debug, Clone)]
pub(crate) struct SwitchboardClient {
    server: Arc<str>,
    events: Arc<SessionEvents>,
    info: ClientConfig,
    /// The server's own secrets, cut out of what it logs to us before we log it.
    redactor: switchboard_core::spec::Redactor,
}

impl SwitchboardClient {
    pub(crate) fn new(server: &str, events: Arc<SessionEvents>) -> Self {
        Self {
            server: server.into(),
            events,
            info: Self::client_info(),
            redactor: switchboard_core::spec::Redactor::default(),
        }
    }

    /// The same client cutting `redactor`'s secrets out of the server's log messages.
    pub(crate) fn with_redactor(mut self, redactor: switchboard_core::spec::Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// The same client announcing another protocol version in `initialize`.
    pub(crate) fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.info.protocol_version = version;
        self
    }

    pub(crate) fn client_info() -> ClientConfig {
        // Roots are declared (and answered with the server's own, often none) because several
        // servers, the reference server among them, only offer some tools to clients that
        // declare a client capability; `listChanged`, since a server's roots are edited. Elicitation and sampling are declared for every connection, since one
        // connection serves every caller of the server: a call whose caller can answer them
        // (the gateway's downstream client) gets them, any other call gets a refusal
        // (`crate::requests`).
        let mut capabilities = ClientCapabilities::default();
        let mut roots = RootsCapabilities::default();
        roots.list_changed = Some(true);
        capabilities.roots = Some(roots);
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::new());
        elicitation.url = Some(UrlElicitationCapability::new());
        capabilities.elicitation = Some(elicitation);
        capabilities.sampling = Some(SamplingCapability::default());
        ClientConfig::new(
            capabilities,
            Implementation::new("switchboard", env!("CARGO_PKG_VERSION")),
        )
    }
}

impl SwitchboardClient {
    /// Who answers a request the server sent: the requester of the call it came during.
    async fn requester(&self, context: &RequestContext<RoleClient>) -> Option<crate::Requester> {
        let origin = match context.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => Some(id),
            _ => None,
        };
        self.events.calls.requester(origin).await
    }
}

impl ClientHandler for SwitchboardClient {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let roots = self.events.roots().into_iter().map(Root::new).collect();
        Ok(ListRootsResult::new(roots))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match self.requester(&context).await {
            Some(requester) => requester.elicit(request).await,
            None => {
                tracing::debug!(server = %self.server, "elicitation declined: no one to ask");
                Ok(crate::requests::declined())
            }
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        match self.requester(&context).await {
            Some(requester) => requester.sample(params).await,
            None => Err(crate::requests::no_sampler()),
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::debug!(server = %self.server, "tool list changed");
        self.events.tools_generation.fetch_add(1, Ordering::AcqRel);
        self.events.list_changed(ListKind::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::debug!(server = %self.server, "resource list changed");
        self.events.list_changed(ListKind::Resources);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::debug!(server = %self.server, "prompt list changed");
        self.events.list_changed(ListKind::Prompts);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.events.resource_updated(params.uri);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        context: NotificationContext<RoleClient>,
    ) {
        // The caller of the call it came during (by the same rule as a server's requests)
        // sees it too: the gateway's downstream client, for the tool it called. Looked up
        // first: a call's last line comes just before its answer, which ends the call.
        let origin = match context.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => Some(id),
            _ => None,
        };
        let ticket = context
            .extensions
            .get::<crate::requests::LogTicket>()
            .cloned();
        let requester = match &ticket {
            Some(ticket) => Some(std::sync::Arc::clone(&ticket.requester)),
            None => self.events.calls.requester_now(origin),
        };
        let server = &self.server;
        let data = crate::redact::redact_value(params.data, &self.redactor);
        let logger = params
            .logger
            .as_deref()
            .map(|logger| self.redactor.redact(logger));
        if let Some(requester) = requester {
            let mut forwarded = LoggingMessageNotificationParam::new(params.level, data.clone());
            forwarded.logger = logger
                .as_deref()
                .map(|logger| switchboard_core::upstream_text::short_text(logger, 128));
            requester.log(forwarded).await;
        }
        if let Some(ticket) = ticket {
            ticket.done();
        }
        match params.level {
            LoggingLevel::Debug => tracing::debug!(%server, %data, "server log"),
            LoggingLevel::Info | LoggingLevel::Notice => {
                tracing::info!(%server, %data, "server log")
            }
            LoggingLevel::Warning => tracing::warn!(%server, %data, "server log"),
            _ => tracing::error!(%server, %data, "server log"),
        }
        let text = match &data {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| format!("{:?}", params.level).to_lowercase());
        self.events.logged(level, logger, &text);
    }
}
