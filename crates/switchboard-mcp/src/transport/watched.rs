//! Notices the moment a transport ends (a process exits, a stream closes), so the connection
//! is known to be dead before the next call finds out the hard way.

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio_util::sync::CancellationToken;

pub(crate) struct Watched<T> {
    inner: T,
    ended: CancellationToken,
}

impl<T> Watched<T> {
    /// Wraps `inner`; `ended` is cancelled once it delivers no more messages.
    pub(crate) fn new(inner: T, ended: CancellationToken) -> Self {
        Self { inner, ended }
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
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let message = self.inner.receive().await;
        if message.is_none() {
            self.ended.cancel();
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.ended.cancel();
        self.inner.close().await
    }
}
