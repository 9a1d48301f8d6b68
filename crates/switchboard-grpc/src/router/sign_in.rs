//! OAuth sign-in for servers on nodes: the host signs in and keeps the tokens, the node
//! reaches the server's network and uses the token it is sent with each request.
//!
//! Starting and finishing a sign-in run the local manager's flow, its requests sent from the
//! node ([`ThroughNode`]). Every request about such a server carries the owner's access token
//! (refreshed here first when it is about to expire, the refresh's requests sent from the
//! node too); when the server refuses it, the node answers with the "sign in needed" error a
//! local server gives, and the request is sent once more with a refreshed token, as rmcp's
//! client does for a local connection.

use std::sync::Arc;

use rmcp::transport::OAuthHttpClient;
use switchboard_core::{Auth, OwnerId, ServerSpec};
use switchboard_mcp::McpError;
use switchboard_mcp::oauth::PendingSignIn;

use super::{Route, Router};
use crate::client::{NodeClient, ThroughNode};
use crate::pb;

impl Router {
    /// `ask` of `node` about `owner`'s `spec`, with the ref it needs: the owner's admission,
    /// and for a server with OAuth sign-in the owner's access token, refreshed and sent once
    /// more when the server refused it.
    pub(super) async fn on_node<T, Asked>(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        node: &Arc<NodeClient>,
        ask: impl Fn(pb::ServerRef) -> Asked,
    ) -> Result<T, McpError>
    where
        Asked: Future<Output = Result<T, McpError>>,
    {
        let mut server = self.admissions.server_ref(owner, spec).await?;
        if !matches!(spec.auth, Auth::OAuth { .. }) {
            return ask(server).await;
        }
        let sign_ins = self.local.sign_ins();
        let http: Arc<dyn OAuthHttpClient> =
            Arc::new(ThroughNode::new(Arc::clone(node), spec, server.clone()));
        let sent = sign_ins
            .token_to_send(Arc::clone(&http), owner, spec)
            .await?;
        server.access_token.clone_from(&sent);
        let first = heard(sign_ins, owner, spec, ask(server.clone()).await);
        // A wider scope (step-up) is a new sign-in, not a refresh.
        let refused = matches!(first, Err(McpError::SignInRequired { scope: None, .. }));
        let Some(sent) = sent.filter(|_| refused) else {
            return first;
        };
        match sign_ins
            .token_after_refusal(http, owner, spec, &sent)
            .await?
        {
            Some(fresh) => {
                server.access_token = Some(fresh);
                heard(sign_ins, owner, spec, ask(server).await)
            }
            None => first,
        }
    }

    /// Starts `owner`'s sign-in to `spec` where the server runs.
    pub(super) async fn start_sign_in_for(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        redirect_uri: &str,
    ) -> Result<String, McpError> {
        match self.route(spec)? {
            Route::Local => self.local.start_sign_in(owner, spec, redirect_uri).await,
            Route::Node(node) => {
                let http = self.through(owner, spec, node).await?;
                self.local
                    .start_sign_in_through(owner, spec, redirect_uri, http)
                    .await
            }
        }
    }

    /// Finishes a sign-in where the server runs; its connection there is opened again, with
    /// the new token, on its next use.
    pub(super) async fn finish_sign_in_for(
        &self,
        spec: &ServerSpec,
        pending: PendingSignIn,
        code: &str,
        issuer: Option<&str>,
    ) -> Result<(), McpError> {
        match self.route(spec)? {
            Route::Local => self.local.finish_sign_in(spec, pending, code, issuer).await,
            Route::Node(node) => {
                let owner = pending.owner.clone();
                let http = self.through(&owner, spec, node).await?;
                self.local
                    .finish_sign_in_through(spec, pending, code, issuer, http)
                    .await?;
                if let Err(error) = node.disconnect(&owner, &spec.id).await {
                    tracing::debug!(node = node.name(), %error, "could not close a connection on a node");
                }
                Ok(())
            }
        }
    }

    /// The HTTP client of `owner`'s OAuth flows for `spec` on `node`.
    async fn through(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        node: &Arc<NodeClient>,
    ) -> Result<Arc<dyn OAuthHttpClient>, McpError> {
        let server = self.admissions.server_ref(owner, spec).await?;
        Ok(Arc::new(ThroughNode::new(Arc::clone(node), spec, server)))
    }
}

/// `answer`, its server's challenge (when it refused `owner` with one) kept for `owner`'s
/// next sign-in, as a local connection keeps it.
fn heard<T>(
    sign_ins: &switchboard_mcp::oauth::SignIns,
    owner: &OwnerId,
    spec: &ServerSpec,
    answer: Result<T, McpError>,
) -> Result<T, McpError> {
    if let Err(McpError::SignInRequired {
        challenge: Some(challenge),
        ..
    }) = &answer
    {
        sign_ins.remember_challenge(owner, &spec.id, challenge);
    }
    answer
}
