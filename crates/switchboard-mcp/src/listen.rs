//! Resource subscriptions on a 2026-07-28 server. That revision drops `resources/subscribe`
//! (rmcp answers it with -32601) for `subscriptions/listen`: a long-lived request whose
//! notifications arrive on a stream of their own rather than through the client handler. One
//! stream per subscribed URI keeps unsubscribing a matter of ending that stream, and each
//! update is announced exactly like a legacy `notifications/resources/updated`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ProtocolVersion, ServerNotification};
use rmcp::service::Subscription;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::client::SessionEvents;
use crate::error::McpError;

/// Whether a server speaking `protocol_version` takes `subscriptions/listen` instead of
/// `resources/subscribe`. ISO dates compare lexically as they do in time.
pub(crate) fn uses_listen(protocol_version: &str) -> bool {
    protocol_version >= ProtocolVersion::V_2026_07_28.as_str()
}

/// The open streams of one connection, by URI. Dropping a guard (on unsubscribe, or with the
/// connection) stops its task, which drops the subscription, and rmcp cancels the request.
#[derive(Default)]
pub(crate) struct Listens {
    // A std mutex: held for a map operation only, never across an await.
    open: Mutex<HashMap<String, DropGuard>>,
}

impl Listens {
    /// Takes over `subscription`, acknowledged by `server`, announcing its resource updates
    /// through `events`. A server that acknowledged without the URI did not subscribe it.
    pub(crate) fn start(
        &self,
        server: &str,
        uri: &str,
        mut subscription: Subscription,
        events: Arc<SessionEvents>,
    ) -> Result<(), McpError> {
        let accepted = subscription
            .acknowledged()
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|accepted| accepted == uri));
        if !accepted {
            return Err(McpError::Protocol {
                server: server.to_owned(),
                detail: format!("subscriptions/listen did not accept the resource `{uri}`"),
            });
        }
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let server = server.to_owned();
        tokio::spawn(async move {
            loop {
                let next = tokio::select! {
                    () = stopped.cancelled() => break,
                    next = subscription.next() => next,
                };
                match next {
                    Ok(Some(ServerNotification::ResourceUpdatedNotification(updated))) => {
                        events.resource_updated(updated.params.uri);
                    }
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(error) => {
                        tracing::debug!(%server, error = %error, "subscription stream failed");
                        break;
                    }
                }
            }
        });
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(uri.to_owned(), stop.drop_guard());
        Ok(())
    }

    /// Ends the stream for `uri`, if one is open.
    pub(crate) fn end(&self, uri: &str) {
        let guard = self
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(uri);
        drop(guard);
    }
}
