//! The front door: what every request must satisfy before any route sees it.
//!
//! A browser is the dangerous client of a server on `localhost`. A page on another site can
//! send "simple" requests (a form POST, `text/plain`, no preflight) to it, and a page whose
//! domain is rebound to 127.0.0.1 (DNS rebinding, the MCP Inspector's CVE-2025-49596) is even
//! same-origin with it. Neither can lie about the `Host` it asked for or the `Origin` it runs
//! in, and neither can send `Content-Type: application/json` cross-site without a CORS
//! preflight this server never answers. So, in every auth mode ([`layer`]):
//!
//! - the `Host` (and an absolute URI's authority) must be one this server answers to: the
//!   address it listens on, `localhost` / `127.0.0.1` / `[::1]` on its port, an IP literal on
//!   its port when it listens on every interface (an IP literal cannot be rebound), and the
//!   names of [`GuardConfig::public_urls`] and [`GuardConfig::allowed_hosts`]. A request with
//!   no `Host` at all (HTTP/1.0) is refused: no browser sends one, and without it the check
//!   would have nothing to check;
//! - an `Origin`, when sent, must be one of those hosts (over http or https), a public URL's
//!   origin or an [`GuardConfig::allowed_origins`] entry, whatever the method: cross-site reads
//!   are already blocked by the browser (no CORS headers are ever sent), and refusing them
//!   here as well keeps a foreign page from holding event streams open;
//! - a state-changing request (any method but GET, HEAD and OPTIONS) carries JSON or nothing:
//!   a `Content-Type` other than `application/json` is refused with 415 even when the body is
//!   empty, and a body without a `Content-Type` likewise;
//! - the URI and the headers stay under our own limits, so oversized requests get the error
//!   shape ([`limits`]);
//! - a body arrives whole within `body_read_timeout` of the header, or the request is answered
//!   408 and its connection closed ([`body`]).
//!
//! Every refusal is in the API's error shape. [`shape`] turns the error answers that axum and
//! its extractors write themselves (405, `Path` and `Query` rejections) into that shape too.

pub mod body;
mod host;
mod layer;
pub mod limits;
pub mod shape;

use std::net::SocketAddr;

pub use host::HostRules;
pub(crate) use layer::changes_state;
pub use layer::{GuardLayer, GuardService, layer};

/// The settings of the front door. The defaults accept loopback names only; `listen` must be
/// set to the bound address before the application is built (`serve` and the tests do).
#[derive(Debug, Clone)]
pub struct GuardConfig {
    /// The address the API is bound to (port 0 resolved). Without it, loopback names are
    /// accepted on any port.
    pub listen: Option<SocketAddr>,
    /// The URLs people and proxies reach this server by (`https://switchboard.example.com`):
    /// their host is accepted (on their port, when they name one) and their origin is allowed.
    pub public_urls: Vec<url::Url>,
    /// More host names this server answers to, `NAME` (any port) or `NAME:PORT`.
    pub allowed_hosts: Vec<String>,
    /// More origins allowed to call the API (`https://ui.example.com`), for a UI served
    /// elsewhere.
    pub allowed_origins: Vec<String>,
    /// A longer request target (path and query) is refused with 414.
    pub max_uri_bytes: usize,
    /// Larger headers (names and values together) are refused with 431.
    pub max_header_bytes: usize,
    /// When set, `/metrics` is served there (without a token, for scrapers) and not on the
    /// API's address; else it is on the API's address for admins only.
    pub metrics_listen: Option<SocketAddr>,
}

impl Default for GuardConfig {
    fn default() -> Self {
        Self {
            listen: None,
            public_urls: Vec::new(),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_uri_bytes: limits::DEFAULT_MAX_URI_BYTES,
            max_header_bytes: limits::DEFAULT_MAX_HEADER_BYTES,
            metrics_listen: None,
        }
    }
}

impl GuardConfig {
    /// The host and origin rules these settings describe.
    pub fn host_rules(&self) -> HostRules {
        HostRules::new(self)
    }
}
