//! The manager's part in OAuth sign-ins: starting and finishing one (see [`crate::oauth`]),
//! here or for a server that runs elsewhere, and, on a node, sending one request of a
//! host's flow from this machine's network.
//!
//! A flow's HTTP requests go where the server is reachable from: the manager's own clients
//! for a server it runs, or the caller's [`OAuthHttpClient`] for one that runs on a node (the
//! host keeps the flow, its PKCE verifier and the tokens; the node sends each request through
//! [`ConnectionManager::fetch_for_sign_in`] and keeps nothing).

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::OAuthHttpClient;
use switchboard_core::{Auth, OwnerId, Refusal, ServerSpec};

use super::{ConnectionManager, clean_error};
use crate::destination::is_refusal;
use crate::error::{McpError, error_chain};
use crate::oauth::{PendingSignIn, SignIns};
use crate::upstream_text::{MAX_DETAIL, short_text};

impl ConnectionManager {
    /// The OAuth sign-ins of this manager.
    pub fn sign_ins(&self) -> &SignIns {
        &self.inner.http.sign_ins
    }

    /// Starts `owner`'s OAuth sign-in to `spec` (a server with [`Auth::OAuth`]): the
    /// authorization URL to send the person to, which comes back to `redirect_uri`. Asked of
    /// the connect policy like a connection.
    pub async fn start_sign_in(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        redirect_uri: &str,
    ) -> Result<String, McpError> {
        let admission = self.inner.policy.admit(owner, spec).await?;
        let http = self.inner.http.oauth_http(admission);
        self.start_sign_in_through(owner, spec, redirect_uri, http)
            .await
    }

    /// [`ConnectionManager::start_sign_in`] with the flow's requests sent through `http`, for
    /// a server that runs elsewhere (whoever gives `http` has admitted `owner` already).
    pub async fn start_sign_in_through(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        redirect_uri: &str,
        http: Arc<dyn OAuthHttpClient>,
    ) -> Result<String, McpError> {
        clean_error(
            self.sign_ins().start(http, owner, spec, redirect_uri).await,
            spec,
        )
    }

    /// Finishes a sign-in taken with [`SignIns::take`] (its owner's `spec`, read again) with
    /// the callback's `code` and `iss`; the server's connection is opened again with the new
    /// tokens on its next use.
    pub async fn finish_sign_in(
        &self,
        spec: &ServerSpec,
        pending: PendingSignIn,
        code: &str,
        issuer: Option<&str>,
    ) -> Result<(), McpError> {
        let owner = pending.owner.clone();
        let admission = self.inner.policy.admit(&owner, spec).await?;
        let http = self.inner.http.oauth_http(admission);
        let done = self
            .finish_sign_in_through(spec, pending, code, issuer, http)
            .await;
        if done.is_ok() {
            self.disconnect(&owner, &spec.id).await;
        }
        done
    }

    /// [`ConnectionManager::finish_sign_in`] with the flow's requests sent through `http`, for
    /// a server that runs elsewhere; closing its connection there is the caller's part.
    pub async fn finish_sign_in_through(
        &self,
        spec: &ServerSpec,
        pending: PendingSignIn,
        code: &str,
        issuer: Option<&str>,
        http: Arc<dyn OAuthHttpClient>,
    ) -> Result<(), McpError> {
        clean_error(
            self.sign_ins()
                .finish(http, spec, pending, code, issuer)
                .await,
            spec,
        )
    }

    /// Sends one request of an OAuth flow a host runs for `owner`'s `spec` (a server with
    /// OAuth sign-in that this manager runs for it), through the client the policy's
    /// admission gives: behind the destination guard, an address the rules refuse is refused
    /// as for the server's own connection. Nothing of the request or its answer is kept.
    pub async fn fetch_for_sign_in(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        request: http::Request<Vec<u8>>,
        follow_redirects: bool,
        timeout: Option<Duration>,
    ) -> Result<http::Response<Vec<u8>>, McpError> {
        if !matches!(spec.auth, Auth::OAuth { .. }) {
            return Err(McpError::AuthFailed {
                server: spec.name.clone(),
                detail: "the server is not set up for OAuth sign-in".into(),
            });
        }
        let admission = self.inner.policy.admit(owner, spec).await?;
        let http = self.inner.http.oauth_http(admission);
        let host = request.uri().host().map(str::to_owned).unwrap_or_default();
        let sent = http.send(request, follow_redirects, timeout).await;
        clean_error(
            sent.map_err(|error| {
                let text = error_chain(error.as_ref());
                if is_refusal(&text) {
                    McpError::Refused {
                        server: spec.name.clone(),
                        refusal: Refusal::Destination { host },
                    }
                } else {
                    McpError::AuthFailed {
                        server: spec.name.clone(),
                        detail: short_text(&text, MAX_DETAIL),
                    }
                }
            }),
            spec,
        )
    }
}
