//! The HTTP of a host's OAuth flow for a server on a node, sent from the node
//! (`FetchForSignIn`): an [`OAuthHttpClient`] that rmcp's flow runs on, here, with its state,
//! PKCE verifier and tokens, while each request goes out from the node's network under the
//! owner's admission (see `node/sign_in.rs` for why the node, not the host, reaches the
//! authorization server).

use std::sync::Arc;

use rmcp::transport::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy,
    OAuthHttpRequest,
};
use switchboard_core::ServerSpec;
use switchboard_mcp::McpError;

use super::{NodeClient, failure};
use crate::pb::{self, sign_in_fetch_reply};
use crate::wire;

impl NodeClient {
    /// Sends `request` (one of an OAuth flow for the server `server` names) from the node.
    pub async fn fetch_for_sign_in(
        &self,
        spec: &ServerSpec,
        server: pb::ServerRef,
        request: OAuthHttpRequest,
    ) -> Result<http::Response<Vec<u8>>, McpError> {
        let follow_redirects = !matches!(request.redirect_policy, OAuthHttpRedirectPolicy::Stop);
        let timeout_ms = request
            .timeout
            .map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        let (parts, body) = request.request.into_parts();
        let fetch = pb::SignInFetch {
            server: Some(server),
            method: parts.method.as_str().to_owned(),
            url: parts.uri.to_string(),
            headers: parts
                .headers
                .iter()
                .map(|(name, value)| pb::HttpHeader {
                    name: name.as_str().to_owned(),
                    value: value.as_bytes().to_vec(),
                })
                .collect(),
            body,
            follow_redirects,
            timeout_ms,
        };
        let _probe = self.gate(&spec.name)?;
        let reply = self
            .rpc()
            .fetch_for_sign_in(self.unary(fetch))
            .await
            .map_err(|status| failure::failed(&self.name, &spec.name, &status))?
            .into_inner();
        self.reached();
        match reply.outcome {
            Some(sign_in_fetch_reply::Outcome::Answer(answer)) => response(spec, answer),
            Some(sign_in_fetch_reply::Outcome::Error(error)) => {
                Err(wire::error_from_pb(&self.name, error))
            }
            None => Err(failure::empty_reply(&spec.name, "FetchForSignIn")),
        }
    }
}

fn response(
    spec: &ServerSpec,
    answer: pb::HttpAnswer,
) -> Result<http::Response<Vec<u8>>, McpError> {
    let bad = || McpError::Protocol {
        server: spec.name.clone(),
        detail: "the node sent an HTTP answer that is not one".into(),
    };
    let status = u16::try_from(answer.status).map_err(|_| bad())?;
    let mut builder = http::Response::builder().status(status);
    for header in answer.headers {
        let name = http::HeaderName::from_bytes(header.name.as_bytes()).map_err(|_| bad())?;
        let value = http::HeaderValue::from_bytes(&header.value).map_err(|_| bad())?;
        builder = builder.header(name, value);
    }
    builder.body(answer.body).map_err(|_| bad())
}

/// The OAuth flows of one server on a node, for one owner: each request sent from the node
/// with the server's ref (the spec and the owner's admission, never a token).
pub(crate) struct ThroughNode {
    node: Arc<NodeClient>,
    spec: ServerSpec,
    server: pb::ServerRef,
}

impl ThroughNode {
    pub(crate) fn new(node: Arc<NodeClient>, spec: &ServerSpec, mut server: pb::ServerRef) -> Self {
        server.access_token = None;
        Self {
            node,
            spec: spec.clone(),
            server,
        }
    }
}

impl OAuthHttpClient for ThroughNode {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            self.node
                .fetch_for_sign_in(&self.spec, self.server.clone(), request)
                .await
                .map_err(|error| Box::new(error) as OAuthHttpClientError)
        })
    }
}
