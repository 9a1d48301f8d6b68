//! Requests a server sends us in the middle of a call (elicitation, sampling), and where they
//! go: to whoever made the call, when it can answer them (issue 16: the gateway's downstream
//! client), else they are refused.

// Sampling is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
};

/// Who answers a server's requests during one call. Set on [`CallOptions::requests`]
/// (`crate::CallOptions`); a call without one has those requests refused.
pub trait ServerRequests: Send + Sync + std::fmt::Debug {
    /// `elicitation/create` from the server.
    fn elicit(&self, params: ElicitRequestParams)
    -> BoxFuture<'_, Result<ElicitResult, ErrorData>>;

    /// `sampling/createMessage` from the server.
    fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>>;
}

/// A shared [`ServerRequests`].
pub type Requester = Arc<dyn ServerRequests>;
