//! Asking a session client (2025-11-25 and older) directly.

// Sampling is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, GetExtensions, RequestId, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServiceError};
use switchboard_mcp::{Requester, ServerRequests};
use tokio_util::task::AbortOnDropHandle;

use super::capabilities::{Capabilities, declined, no_sampler};
use crate::CallLog;

/// The downstream client of one `tools/call`.
#[derive(Debug)]
pub(super) struct Downstream {
    peer: Peer<RoleServer>,
    /// The downstream's `tools/call`.
    origin: RequestId,
    capabilities: Capabilities,
    /// What the client declared, passed on to the upstream (`client_capabilities`).
    declared: Option<rmcp::model::ClientCapabilities>,
    /// Where the call's log lines go: its own response stream, when it has one.
    log: Option<CallLog>,
}

impl Downstream {
    pub(super) fn requester(
        context: &RequestContext<RoleServer>,
        capabilities: Capabilities,
    ) -> Requester {
        Arc::new(Self {
            peer: context.peer.clone(),
            origin: context.id.clone(),
            capabilities,
            declared: context.client_capabilities(),
            log: context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<CallLog>())
                .cloned(),
        })
    }

    async fn ask(&self, mut request: ServerRequest) -> Result<ClientResult, ErrorData> {
        // rmcp ties a request to the handler's request through a task-local that does not
        // reach the upstream connection's task, where this runs; without the tie it would go
        // out on the session's standalone stream, which a client need not open (SEP-2260). The
        // marker rmcp reads is set by hand. It is sent from a task of its own: on the upstream
        // connection's task rmcp's task-local names the *upstream's* request (its id, which
        // may equal another of this session's request ids), and rmcp would put that in place
        // of ours, sending the question down another request's stream.
        request
            .extensions_mut()
            .insert(OriginatingRequestId(self.origin.clone()));
        let peer = self.peer.clone();
        // Aborted with this future: a call that ends stops waiting for its question.
        AbortOnDropHandle::new(tokio::spawn(
            async move { peer.send_request(request).await },
        ))
        .await
        .map_err(|_| {
            ErrorData::internal_error("the gateway's question to its client failed", None)
        })?
        .map_err(|error| match error {
            ServiceError::McpError(error) => error,
            other => ErrorData::internal_error(
                format!("the gateway's client could not be asked: {other}"),
                None,
            ),
        })
    }
}

impl ServerRequests for Downstream {
    /// An upstream's log line during this call goes to the client that made it (it asked
    /// for the tool; the line is about its call, secrets already cut out): on the call's own
    /// response stream where it has one (see [`CallLog`]), else on the session's.
    fn log(&self, params: rmcp::model::LoggingMessageNotificationParam) -> BoxFuture<'_, ()> {
        let params = match &self.log {
            Some(log) => match log.send(params) {
                Ok(()) => return Box::pin(std::future::ready(())),
                Err(params) => params,
            },
            None => params,
        };
        Box::pin(async move {
            if let Err(error) = self.peer.notify_logging_message(params).await {
                tracing::debug!(%error, "gateway: a log line could not be sent to the client");
            }
        })
    }

    fn client_capabilities(&self) -> Option<rmcp::model::ClientCapabilities> {
        self.declared.clone()
    }

    fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async move {
            if !self.capabilities.elicits(&params) {
                return Ok(declined());
            }
            let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
            match self.ask(request).await? {
                ClientResult::ElicitResult(result) => Ok(result),
                _ => Err(unexpected("elicitation/create")),
            }
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
            let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
            match self.ask(request).await? {
                ClientResult::CreateMessageResult(result) => Ok(*result),
                _ => Err(unexpected("sampling/createMessage")),
            }
        })
    }
}

fn unexpected(method: &str) -> ErrorData {
    ErrorData::internal_error(
        format!("the gateway's client answered {method} with another kind of result"),
        None,
    )
}
