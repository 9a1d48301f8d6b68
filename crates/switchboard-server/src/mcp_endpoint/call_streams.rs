//! rmcp's [`LocalSessionManager`], with each request's own log lines on its response stream.
//!
//! rmcp routes a session's server notifications, but progress and cancellation, to the
//! session's standalone `GET` stream: an upstream's log lines of a call would reach a session
//! client only if it holds that stream open, and apart from the call. [`admit`](super::admit)
//! gives each POST a [`CallLog`]; the stream that answers a request takes its receiving end
//! here and sends what comes through it before what rmcp sends (the gateway sends a line
//! before the answer it belongs to, so the line goes out first). Everything else is rmcp's.

// Logging is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;
use rmcp::model::{
    ClientJsonRpcMessage, GetExtensions, LoggingMessageNotificationParam, ServerJsonRpcMessage,
    ServerNotification,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::store::EventStore;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};
use switchboard_gateway::CallLog;
use tokio::sync::mpsc;

/// The endpoint's session manager (see the module).
pub struct CallStreams {
    local: Arc<LocalSessionManager>,
}

impl CallStreams {
    pub(crate) fn new(local: Arc<LocalSessionManager>) -> Self {
        Self { local }
    }
}

impl SessionManager for CallStreams {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.local.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.local.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let lines = call_log(&message).and_then(|log| log.take());
        let answers = self.local.create_stream(id, message).await?;
        Ok(WithLines {
            lines,
            answers: Box::pin(answers),
        })
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.local.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.resume(id, last_event_id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.local.event_store()
    }
}

/// The [`CallLog`] admission gave the request `message`.
fn call_log(message: &ClientJsonRpcMessage) -> Option<CallLog> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    request
        .request
        .extensions()
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<CallLog>())
        .cloned()
}

/// A request's response stream with its log lines sent first.
struct WithLines<S> {
    /// `None` once the sender is gone (or there never was one).
    lines: Option<mpsc::Receiver<LoggingMessageNotificationParam>>,
    answers: Pin<Box<S>>,
}

impl<S: Stream<Item = ServerSseMessage>> Stream for WithLines<S> {
    type Item = ServerSseMessage;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(lines) = this.lines.as_mut() {
            match lines.poll_recv(cx) {
                Poll::Ready(Some(line)) => return Poll::Ready(Some(logged(line))),
                Poll::Ready(None) => this.lines = None,
                Poll::Pending => {}
            }
        }
        let next = this.answers.as_mut().poll_next(cx);
        if matches!(next, Poll::Ready(None)) {
            // The call is answered: later lines go to the session's stream.
            this.lines = None;
        }
        next
    }
}

fn logged(line: LoggingMessageNotificationParam) -> ServerSseMessage {
    let notification =
        ServerNotification::LoggingMessageNotification(rmcp::model::Notification::new(line));
    ServerSseMessage::from_message(ServerJsonRpcMessage::notification(notification))
}

#[cfg(test)]
mod tests {
    use futures::StreamExt as _;
    use rmcp::model::{LoggingLevel, RequestId, ServerResult};

    use super::*;

    fn answer() -> ServerSseMessage {
        ServerSseMessage::new(
            "0",
            ServerJsonRpcMessage::response(ServerResult::empty(()), RequestId::Number(1)),
        )
    }

    #[tokio::test]
    async fn a_calls_lines_go_out_before_its_answer_and_none_after() {
        let (sender, lines) = mpsc::channel(4);
        let line = LoggingMessageNotificationParam::new(LoggingLevel::Info, "one".into());
        sender.try_send(line).unwrap();
        let stream = WithLines {
            lines: Some(lines),
            answers: Box::pin(futures::stream::iter([answer()])),
        };
        let sent: Vec<_> = stream.collect().await;
        assert_eq!(sent.len(), 2);
        let first = serde_json::to_value(sent[0].message.as_deref().unwrap()).unwrap();
        assert_eq!(first["method"], "notifications/message", "{first}");
        assert_eq!(first["params"]["data"], "one", "{first}");
        assert!(sent[1].event_id.is_some(), "then rmcp's answer");
        assert!(sender.is_closed(), "the stream let go of its lines");
    }
}
