//! The node's TLS (rustls, through tonic): its certificate and key, and, when hosts must
//! present a client certificate, the CA it must chain to (mTLS).

use std::time::Duration;

use tonic::transport::{Certificate, Identity, ServerTlsConfig};

use super::ServerTls;

/// How long a TLS handshake may take before the connection is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// tonic's TLS configuration for `tls`. The PEM is read when the server is built
/// ([`tonic::transport::Server::tls_config`]), which reports what cannot be read.
pub(crate) fn server_tls(tls: &ServerTls) -> ServerTlsConfig {
    let config = ServerTlsConfig::new()
        .identity(Identity::from_pem(&tls.cert_pem, &tls.key_pem))
        .timeout(HANDSHAKE_TIMEOUT);
    match &tls.client_ca_pem {
        // Required, not optional: a host without a certificate the CA signed is refused.
        Some(ca) => config.client_ca_root(Certificate::from_pem(ca)),
        None => config,
    }
}
