//! Which `Host` and `Origin` values this server answers to (see the module above for why).

use std::net::{IpAddr, SocketAddr};

use axum::http::uri::Authority;

use super::GuardConfig;

/// A host name (lowercase, IPv6 in brackets) and the port it must come with, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Named {
    host: String,
    port: Option<u16>,
}

/// The hosts and origins accepted, compiled from a [`GuardConfig`].
#[derive(Debug, Clone)]
pub struct HostRules {
    listen: Option<SocketAddr>,
    named: Vec<Named>,
    origins: Vec<String>,
}

/// The names every local server answers to, on its own port.
const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl HostRules {
    pub fn new(config: &GuardConfig) -> Self {
        let mut named = Vec::new();
        let mut origins = Vec::new();
        for url in &config.public_urls {
            if let Some(host) = url.host_str() {
                named.push(Named {
                    host: host.to_ascii_lowercase(),
                    port: url.port(),
                });
            }
            origins.push(url.origin().ascii_serialization().to_ascii_lowercase());
        }
        named.extend(
            config
                .allowed_hosts
                .iter()
                .filter_map(|h| parse_authority(h)),
        );
        origins.extend(
            config
                .allowed_origins
                .iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase()),
        );
        Self {
            listen: config.listen,
            named,
            origins,
        }
    }

    /// Whether `authority` (a `Host` header, `name[:port]`) is one this server answers to.
    pub fn allows_host(&self, authority: &str) -> bool {
        let Some(Named { host, port }) = parse_authority(authority) else {
            return false;
        };
        if self
            .named
            .iter()
            .any(|n| n.host == host && (n.port.is_none() || n.port == port))
        {
            return true;
        }
        let Some(listen) = self.listen else {
            return LOOPBACK_NAMES.contains(&host.as_str());
        };
        // A Host without a port asked for the default one.
        if port.unwrap_or(80) != listen.port() {
            return false;
        }
        if LOOPBACK_NAMES.contains(&host.as_str()) || host == bracketed(listen.ip()) {
            return true;
        }
        // Listening on every interface, any of this machine's addresses may be asked for;
        // an IP literal is safe to accept because only a name can be rebound.
        listen.ip().is_unspecified() && ip_literal(&host).is_some()
    }

    /// Whether a request from a page in `origin` (the `Origin` header) may be served.
    pub fn allows_origin(&self, origin: &str) -> bool {
        let origin = origin.trim().to_ascii_lowercase();
        if self.origins.contains(&origin) {
            return true;
        }
        // `null` (sandboxed frames, file: pages) and anything else unparsable fail here.
        let Ok(url) = url::Url::parse(&origin) else {
            return false;
        };
        if !matches!(url.scheme(), "http" | "https") || url.path() != "/" {
            return false;
        }
        let Some(host) = url.host_str() else {
            return false;
        };
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None if url.scheme() == "https" => format!("{host}:443"),
            None => host.to_owned(),
        };
        self.allows_host(&authority)
    }
}

/// `name[:port]`, lowercase; `None` for anything else (user info, a path, no name).
fn parse_authority(text: &str) -> Option<Named> {
    let text = text.trim();
    if text.contains('@') {
        return None;
    }
    let authority: Authority = text.parse().ok()?;
    if authority.as_str() != text || authority.host().is_empty() {
        return None;
    }
    Some(Named {
        host: authority.host().to_ascii_lowercase(),
        port: authority.port_u16(),
    })
}

fn bracketed(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

fn ip_literal(host: &str) -> Option<IpAddr> {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(listen: &str, public: &[&str], hosts: &[&str]) -> HostRules {
        HostRules::new(&GuardConfig {
            listen: Some(listen.parse().unwrap()),
            public_urls: public.iter().map(|u| u.parse().unwrap()).collect(),
            allowed_hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
            ..GuardConfig::default()
        })
    }

    #[test]
    fn loopback_names_on_the_listen_port_are_accepted() {
        let r = rules("127.0.0.1:8080", &[], &[]);
        for host in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LocalHost:8080",
            "[::1]:8080",
        ] {
            assert!(r.allows_host(host), "{host}");
        }
        for host in [
            "127.0.0.1:8081",
            "localhost",
            "evil.example:8080",
            "127.0.0.1.nip.io:8080",
            "user@localhost:8080",
            "localhost:8080/x",
            "",
            "10.0.0.1:8080",
        ] {
            assert!(!r.allows_host(host), "{host}");
        }
    }

    #[test]
    fn every_interface_accepts_ip_literals_but_not_names() {
        let r = rules("0.0.0.0:80", &[], &[]);
        assert!(r.allows_host("192.168.1.5"));
        assert!(r.allows_host("[fe80::1]:80"));
        assert!(r.allows_host("localhost"));
        assert!(!r.allows_host("192.168.1.5:81"));
        assert!(!r.allows_host("attacker.example"));
    }

    #[test]
    fn public_urls_and_allowed_hosts_add_names() {
        let r = rules(
            "127.0.0.1:8080",
            &["https://sb.example.com", "http://other.example:9000/base"],
            &["box.lan", "pinned.lan:7000"],
        );
        assert!(r.allows_host("sb.example.com"));
        assert!(r.allows_host("sb.example.com:8443"));
        assert!(r.allows_host("other.example:9000"));
        assert!(!r.allows_host("other.example:9001"));
        assert!(r.allows_host("box.lan:1234"));
        assert!(r.allows_host("pinned.lan:7000"));
        assert!(!r.allows_host("pinned.lan:7001"));
        assert!(r.allows_origin("https://sb.example.com"));
        assert!(r.allows_origin("http://other.example:9000"));
        assert!(r.allows_origin("http://box.lan:3000"));
    }

    #[test]
    fn origins_are_those_of_accepted_hosts() {
        let r = rules("127.0.0.1:8080", &[], &[]);
        assert!(r.allows_origin("http://127.0.0.1:8080"));
        assert!(r.allows_origin("http://localhost:8080"));
        for origin in [
            "null",
            "http://evil.example",
            "http://localhost:3000",
            "file://",
            "chrome-extension://abc",
            "http://localhost:8080/path",
        ] {
            assert!(!r.allows_origin(origin), "{origin}");
        }
        let explicit = HostRules::new(&GuardConfig {
            allowed_origins: vec!["https://ui.example.com/".into()],
            ..GuardConfig::default()
        });
        assert!(explicit.allows_origin("https://UI.example.com"));
    }
}
