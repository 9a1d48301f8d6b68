//! Notices the moment a transport ends (a process exits, a stream closes), so the connection
//! is known to be dead before the next call finds out the hard way; registers each call as
//! its request is written; and routes progress reports and log lines to their calls in the
//! order they arrive.

use rmcp::RoleClient;
use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage, ServerNotification};
use rmcp::service::InboundStreamOrigin;
use rmcp::transport::Transport;
use tokio_util::sync::CancellationToken;

use crate::client::SessionEvents;
use crate::requests::Registering;

pub(crate) struct Watched<T> {
    inner: T,
    ended: CancellationToken,
    events: Arc<SessionEvents>,
}

impl<T> Watched<T> {
    /// Wraps `inner`; `ended` is cancelled once it delivers no more messages.
    pub(crate) fn new(inner: T, ended: CancellationToken, events: Arc<SessionEvents>) -> Self {
        Self {
            inner,
            ended,
            events,
        }
    }
}

impl<T> Transport<RoleClient> for Watched<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ClientJsonRpcMessage::Request(request) = &item
            && let Some(Registering(requester)) = request.request.extensions().get::<Registering>()
        {
            self.events
                .calls
                .register(request.id.clone(), requester.clone());
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let mut message = self.inner.receive().await;
        match &mut message {
            None => self.ended.cancel(),
            Some(ServerJsonRpcMessage::Notification(notification)) => {
                match &mut notification.notification {
                    ServerNotification::ProgressNotification(progress) => {
                        self.events.dispatch_progress(&progress.params);
                    }
                    // Matched to its call now, in order with the call's answer (see
                    // `requests::LogTicket`).
                    ServerNotification::LoggingMessageNotification(logged) => {
                        let origin = match logged.extensions.get::<InboundStreamOrigin>() {
                            Some(InboundStreamOrigin::OutboundRequest(id)) => Some(id.clone()),
                            _ => None,
                        };
                        if let Some(ticket) = self.events.calls.log_arrived(origin.as_ref()) {
                            logged.extensions.insert(ticket);
                        }
                    }
                    _ => {}
                }
            }
            Some(_) => {}
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.ended.cancel();
        self.inner.close().await
    }
}
