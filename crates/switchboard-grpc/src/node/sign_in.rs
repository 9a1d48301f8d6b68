//! Servers with OAuth sign-in on the node: the node never signs in itself.
//!
//! The host keeps each person's sign-in (its state, PKCE verifier and tokens, in its store)
//! and runs the OAuth flows; what must be fetched from the server's network (the protected
//! resource metadata behind the server's challenge, the authorization server's metadata,
//! client registration, the token exchange, refreshes) the host sends here one request at a
//! time (`FetchForSignIn`), and the node sends it under the request's admission, through the
//! manager's clients, so the destination guard and the node's own allowed destinations hold
//! for every URL of the flow. The host cannot be assumed to reach those URLs: a node exists
//! to reach what the web tier does not.
//!
//! Each request to such a server carries the person's access token (`ServerRef.access_token`),
//! which the connection sends as `Authorization: Bearer` ([`with_token`]): a spec's bearer
//! token, so the connection's redactor cuts it out of whatever the server answers, and a new
//! token (refreshed by the host) is a new way of connecting, so the pooled connection is
//! opened again with it. The token lives in that connection only; a refusal comes back as
//! the same "sign in needed" error a local server gives, and the host refreshes and retries.

use std::sync::Arc;
use std::time::Duration;

use switchboard_core::{Auth, ServerSpec};
use switchboard_mcp::McpError;
use tonic::Status;

use crate::{pb, wire};

/// The spec the node's manager connects with for a request that carried `token`: a server
/// with OAuth sign-in gets the token as a bearer token, or none before the person signed in
/// (the server's challenge then asks for a sign-in). Any other spec is left as it is.
pub(crate) fn with_token(spec: Arc<ServerSpec>, token: Option<String>) -> Arc<ServerSpec> {
    if !matches!(spec.auth, Auth::OAuth { .. }) {
        return spec;
    }
    let mut sent = (*spec).clone();
    sent.auth = match token.filter(|token| !token.is_empty()) {
        Some(token) => Auth::Bearer { token },
        None => Auth::None,
    };
    Arc::new(sent)
}

/// One request of a host's OAuth flow, as the manager sends it.
pub(crate) struct Fetch {
    pub(crate) request: http::Request<Vec<u8>>,
    pub(crate) follow_redirects: bool,
    pub(crate) timeout: Option<Duration>,
}

/// The HTTP request a `FetchForSignIn` describes, its redirect rule and time limit; a request
/// that cannot be one is the host's mistake.
pub(crate) fn request_from_pb(fetch: pb::SignInFetch) -> Result<Fetch, Status> {
    let url: url::Url = fetch
        .url
        .parse()
        .map_err(|_| Status::invalid_argument("the sign-in request's URL does not parse"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Status::invalid_argument(
            "a sign-in request goes to an http or https URL",
        ));
    }
    let method = http::Method::from_bytes(fetch.method.as_bytes())
        .map_err(|_| Status::invalid_argument("the sign-in request's method is not one"))?;
    let mut builder = http::Request::builder().method(method).uri(url.as_str());
    for header in fetch.headers {
        let name = http::HeaderName::from_bytes(header.name.as_bytes())
            .map_err(|_| Status::invalid_argument("a sign-in request header has a bad name"))?;
        let mut value = http::HeaderValue::from_bytes(&header.value)
            .map_err(|_| Status::invalid_argument("a sign-in request header has a bad value"))?;
        // A client secret or a code may travel in a header: never shown by a Debug.
        value.set_sensitive(true);
        builder = builder.header(name, value);
    }
    let request = builder
        .body(fetch.body)
        .map_err(|_| Status::invalid_argument("the sign-in request cannot be made"))?;
    let timeout = (fetch.timeout_ms > 0).then(|| Duration::from_millis(fetch.timeout_ms));
    Ok(Fetch {
        request,
        follow_redirects: fetch.follow_redirects,
        timeout,
    })
}

/// The answer for the host, or the manager's error (worded and redacted by it).
pub(crate) fn reply(answer: Result<http::Response<Vec<u8>>, McpError>) -> pb::SignInFetchReply {
    let outcome = match answer {
        Ok(response) => {
            let (parts, body) = response.into_parts();
            pb::sign_in_fetch_reply::Outcome::Answer(pb::HttpAnswer {
                status: u32::from(parts.status.as_u16()),
                headers: parts
                    .headers
                    .iter()
                    .map(|(name, value)| pb::HttpHeader {
                        name: name.as_str().to_owned(),
                        value: value.as_bytes().to_vec(),
                    })
                    .collect(),
                body,
            })
        }
        Err(error) => pb::sign_in_fetch_reply::Outcome::Error(wire::error_to_pb(&error)),
    };
    pb::SignInFetchReply {
        outcome: Some(outcome),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_server_with_oauth_takes_the_token() {
        let oauth = Arc::new(ServerSpec {
            auth: Auth::OAuth {
                client_id: None,
                client_secret: None,
                scopes: Vec::new(),
            },
            ..ServerSpec::http("notes", "https://notes.example/mcp", None)
        });
        let sent = with_token(Arc::clone(&oauth), Some("at-0123".into()));
        assert_eq!(
            sent.auth,
            Auth::Bearer {
                token: "at-0123".into()
            }
        );
        assert!(sent.secret_values().contains(&"at-0123"), "redacted");
        assert_eq!(with_token(Arc::clone(&oauth), None).auth, Auth::None);
        assert_eq!(with_token(oauth, Some(String::new())).auth, Auth::None);

        let plain = Arc::new(ServerSpec::http("plain", "https://p.example/mcp", None));
        let same = with_token(Arc::clone(&plain), Some("at-0123".into()));
        assert!(Arc::ptr_eq(&plain, &same));
    }

    #[test]
    fn a_request_that_is_not_http_is_refused() {
        let fetch = |url: &str| pb::SignInFetch {
            method: "GET".into(),
            url: url.into(),
            ..pb::SignInFetch::default()
        };
        assert!(request_from_pb(fetch("file:///etc/passwd")).is_err());
        assert!(request_from_pb(fetch("not a url")).is_err());
        let made = request_from_pb(fetch(
            "https://as.example/.well-known/oauth-authorization-server",
        ))
        .expect("a request");
        assert_eq!(made.request.method(), http::Method::GET);
        assert!(!made.follow_redirects);
        assert_eq!(made.timeout, None);
    }
}
