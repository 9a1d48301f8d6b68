//! Where seed 003's flat-parameter proxy for a tool is reached from outside, for the action
//! recall's `api_url`.
//!
//! The URL is built from the first configured public URL (`--public-url`): the address others
//! reach this server by, path prefix included. Without one it is the bound listen address, an
//! unspecified address (`0.0.0.0`, `[::]`) replaced by loopback, as that one cannot be dialled.
//! Path segments are percent-encoded, so any server id or tool name round-trips.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::guard::GuardConfig;

/// The path of seed 003's proxy, before the server id.
const PROXY_PREFIX: [&str; 6] = ["api", "agent-retrieval", "in", "v1", "mcp", "proxy"];

/// Where others reach this server: the first public URL, else the listen address.
pub(crate) fn proxy_base(guard: &GuardConfig) -> Option<url::Url> {
    if let Some(public) = guard.public_urls.first() {
        return Some(public.clone());
    }
    let listen = guard.listen?;
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    url::Url::parse(&format!("http://{}/", SocketAddr::new(ip, listen.port()))).ok()
}

/// The absolute URL of seed 003's proxy for `tool` of server `server`, under `base`'s path;
/// `None` for a base that cannot hold a path.
pub(crate) fn proxy_url(base: &url::Url, server: &str, tool: &str) -> Option<url::Url> {
    let mut url = base.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.path_segments_mut()
        .ok()?
        .pop_if_empty()
        .extend(PROXY_PREFIX)
        .extend([server, "tools", tool, "call"]);
    Some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_comes_from_the_public_url_with_its_path_and_encoded_segments() {
        let guard = GuardConfig {
            public_urls: vec!["https://sb.example.com/base/?x=1".parse().unwrap()],
            ..GuardConfig::default()
        };
        let base = proxy_base(&guard).unwrap();
        let url = proxy_url(&base, "my server/1", "a?b#c%").unwrap();
        assert_eq!(
            url.as_str(),
            "https://sb.example.com/base/api/agent-retrieval/in/v1/mcp/proxy/\
             my%20server%2F1/tools/a%3Fb%23c%25/call"
        );
    }

    #[test]
    fn without_a_public_url_the_listen_address_is_used_and_loopback_replaces_any() {
        let guard = GuardConfig {
            listen: Some("0.0.0.0:8080".parse().unwrap()),
            ..GuardConfig::default()
        };
        let url = proxy_url(&proxy_base(&guard).unwrap(), "s", "t").unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:8080/api/agent-retrieval/in/v1/mcp/proxy/s/tools/t/call"
        );
        assert!(proxy_base(&GuardConfig::default()).is_none());
    }
}
