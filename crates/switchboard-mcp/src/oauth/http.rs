//! The HTTP client of the OAuth flows (discovery, registration, token requests), on the
//! manager's own reqwest clients, so a member's sign-in reaches only what the destination
//! guard lets their server reach.
//!
//! rmcp's `AuthorizationManager::new` builds a client of its own that filters private
//! addresses by its rule (private only when the MCP URL is private); our guard's rule (public
//! addresses plus the admin's allow list, checked at connect time) is the one that holds for
//! everything else a member configures, so the OAuth requests go through it too. Written by
//! hand because rmcp's reqwest adapter is private; it follows rmcp's: the request's redirect
//! policy honoured, a timeout on every request, bodies bounded.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use rmcp::transport::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy,
    OAuthHttpRequest,
};
use switchboard_core::DestinationRules;

use crate::destination::check_url;

/// No OAuth document or token answer is anywhere near this.
const MAX_BODY: usize = 1024 * 1024;
/// Each request's bound, unless rmcp asks for less.
const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
#[error("the OAuth response is larger than {MAX_BODY} bytes")]
struct TooLarge;

/// Two clients with the same resolver: one follows redirects (as the manager's clients do:
/// within the same origin), one never does (token and registration requests, whose
/// credentials must not follow a redirect).
///
/// With `rules`, an IP-literal URL (which no resolver sees) is checked before it is
/// requested, as the guard checks the server's own URL.
pub(crate) struct GuardedOAuthHttp {
    follow: reqwest::Client,
    stop: reqwest::Client,
    rules: Option<Arc<DestinationRules>>,
}

impl GuardedOAuthHttp {
    pub(crate) fn new(
        follow: reqwest::Client,
        stop: reqwest::Client,
        rules: Option<Arc<DestinationRules>>,
    ) -> Self {
        Self {
            follow,
            stop,
            rules,
        }
    }
}

impl GuardedOAuthHttp {
    /// Sends one request of an OAuth flow: redirects followed (within the origin) or not,
    /// within `timeout` (at most [`TIMEOUT`]), the answer's body read up to [`MAX_BODY`].
    pub(crate) async fn send(
        &self,
        request: http::Request<Vec<u8>>,
        follow_redirects: bool,
        timeout: Option<Duration>,
    ) -> Result<http::Response<Vec<u8>>, OAuthHttpClientError> {
        let client = if follow_redirects {
            &self.follow
        } else {
            &self.stop
        };
        let timeout = timeout.map_or(TIMEOUT, |t| t.min(TIMEOUT));
        let mut outgoing = reqwest::Request::try_from(request)?;
        if let Some(rules) = &self.rules {
            check_url(outgoing.url().as_str(), rules)?;
        }
        *outgoing.timeout_mut() = Some(timeout);
        let response = client.execute(outgoing).await?;
        let mut builder = http::Response::builder()
            .status(response.status())
            .version(response.version());
        for (name, value) in response.headers() {
            builder = builder.header(name, value);
        }
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk?;
            if chunk.len() > MAX_BODY - body.len() {
                return Err(Box::new(TooLarge));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(builder.body(body)?)
    }
}

impl OAuthHttpClient for GuardedOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let follow = !matches!(request.redirect_policy, OAuthHttpRedirectPolicy::Stop);
            self.send(request.request, follow, request.timeout).await
        })
    }
}
