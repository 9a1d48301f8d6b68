//! How a node is reached: its URL checked (TLS, or plaintext only where nobody else can listen),
//! one lazily connected tonic [`Channel`] with the socket options every connection of ours has,
//! and the token added to every request.
//!
//! The channel is made once per node and shared by every call (HTTP/2 multiplexes them), the
//! node's status stream included: a node that goes away fails them together, and the first
//! request after it comes back connects again.

use std::net::IpAddr;
use std::time::Duration;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

use super::NodeConfig;
use crate::router::RouterError;

/// How long opening the TCP connection (and TLS) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// An HTTP/2 ping this often, even with no call running, and the connection is dropped when
/// one goes unanswered this long: a node that vanished without closing its sockets is noticed.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest message either side may send: tool results with images or file contents can
/// be much larger than tonic's 4 MiB default.
pub(crate) const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// Adds `authorization: Bearer TOKEN` to every request.
#[derive(Clone)]
pub(crate) struct Bearer(MetadataValue<Ascii>);

impl Interceptor for Bearer {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        request
            .metadata_mut()
            .insert("authorization", self.0.clone());
        Ok(request)
    }
}

impl Bearer {
    pub(crate) fn new(config: &NodeConfig) -> Result<Self, RouterError> {
        let token = config.token.trim();
        if token.is_empty() {
            return Err(refuse(config, "its token is empty"));
        }
        let mut value: MetadataValue<Ascii> = format!("Bearer {token}")
            .parse()
            .map_err(|_| refuse(config, "its token has characters a header cannot carry"))?;
        value.set_sensitive(true);
        Ok(Self(value))
    }
}

/// A node's URL as it may be shown (in errors, to admins): a password or query values in it,
/// which a node URL should not have, are hidden.
pub(crate) fn shown_url(raw: &str) -> String {
    if raw.contains('@') || raw.contains('?') {
        switchboard_core::spec::redact_url(raw)
    } else {
        raw.to_owned()
    }
}

/// The channel to `config`'s node, not connected yet.
pub(crate) fn channel(config: &NodeConfig) -> Result<Channel, RouterError> {
    let shown = shown_url(&config.url);
    let endpoint = Endpoint::from_shared(config.url.clone())
        .map_err(|error| refuse(config, &format!("`{shown}` is not a URL: {error}")))?;
    let uri = endpoint.uri().clone();
    let host = uri
        .host()
        .map(|host| {
            host.trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned()
        })
        .ok_or_else(|| refuse(config, &format!("`{shown}` has no host")))?;
    let endpoint = endpoint
        .tcp_nodelay(true)
        .connect_timeout(CONNECT_TIMEOUT)
        .http2_keep_alive_interval(KEEPALIVE_INTERVAL)
        .keep_alive_timeout(KEEPALIVE_TIMEOUT)
        .keep_alive_while_idle(true);
    let endpoint = match uri.scheme_str() {
        Some("https") => endpoint
            .tls_config(tls(config, host)?)
            .map_err(|error| refuse(config, &format!("invalid TLS settings: {}", chain(&error))))?,
        Some("http") => {
            if !config.allow_plaintext && !is_loopback(&host) {
                return Err(refuse(
                    config,
                    &format!(
                        "`{shown}` is plaintext to `{host}`, which is not a loopback address: \
                         use https:// with the node's CA, or set allow_plaintext on a network \
                         you trust"
                    ),
                ));
            }
            if config.ca_pem.is_some() || config.client_identity.is_some() {
                return Err(refuse(
                    config,
                    "a CA or client certificate is set but the URL is http://; use https://",
                ));
            }
            endpoint
        }
        _ => {
            return Err(refuse(
                config,
                &format!("`{shown}` must start with https:// or http://"),
            ));
        }
    };
    Ok(endpoint.connect_lazy())
}

fn tls(config: &NodeConfig, host: String) -> Result<ClientTlsConfig, RouterError> {
    let ca = config.ca_pem.as_ref().ok_or_else(|| {
        refuse(
            config,
            "an https:// node needs `ca`, the certificate of the CA that signed the node's \
             certificate",
        )
    })?;
    let mut tls = ClientTlsConfig::new()
        .domain_name(host)
        .ca_certificate(Certificate::from_pem(ca));
    if let Some((cert, key)) = &config.client_identity {
        tls = tls.identity(Identity::from_pem(cert, key));
    }
    Ok(tls)
}

/// `localhost`, or an address of the loopback range.
fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

/// An error with its causes, on one line.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        text.push_str(": ");
        text.push_str(&error.to_string());
        cause = error.source();
    }
    text
}

fn refuse(config: &NodeConfig, reason: &str) -> RouterError {
    RouterError::Node {
        node: config.name.clone(),
        reason: reason.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "::1"] {
            assert!(is_loopback(host), "{host}");
        }
        for host in ["example.com", "10.0.0.1", "0.0.0.0", "::"] {
            assert!(!is_loopback(host), "{host}");
        }
    }

    #[test]
    fn secrets_in_a_url_are_not_shown() {
        assert_eq!(shown_url("https://box:7443"), "https://box:7443");
        let shown = shown_url("https://me:hunter2@box:7443/?key=abc");
        assert!(
            !shown.contains("hunter2") && !shown.contains("abc"),
            "{shown}"
        );
    }
}
