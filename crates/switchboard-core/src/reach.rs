//! Why an address could not be reached, read from a failed connection's causes and said in
//! words a person can act on.
//!
//! An HTTP client's error is a chain of causes from several libraries (the client, its
//! connector, the resolver, the TLS stack, the operating system), each written for the one
//! who wrote the library: `error sending request for url (...): client error (Connect): dns
//! error: failed to lookup address information: Name or service not known`. A person needs
//! the last useful fact of that chain and what to do about it: "the name does not resolve;
//! check the address". [`ReachFailure::of`] walks the chain once: by type where the standard
//! library names the failure ([`std::io::ErrorKind`]), and otherwise by the phrases the
//! resolver and TLS libraries write. Every layer that reaches a URL (MCP servers, model
//! providers) words the failure the same way.

use std::error::Error;
use std::fmt;

/// What a failed attempt to reach an address says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReachFailure {
    /// The host name does not resolve (no such name, or no DNS answer).
    NameNotResolved,
    /// The host refused the connection: nothing listens on that port.
    Refused,
    /// Connecting took too long: the host is down, or something drops the packets.
    TimedOut,
    /// The host does not trust us or we do not trust it: its certificate is not valid for
    /// the name, has expired, or is signed by no authority this machine trusts.
    Certificate,
    /// The secure connection could not be set up: usually `https://` to a port that speaks
    /// plain HTTP (or no HTTP at all).
    Tls,
    /// None of the above: the chain's own text is all there is.
    Other,
}

/// Phrases resolvers write for a name that does not resolve.
const NAME_NOT_RESOLVED: &[&str] = &[
    "dns error",
    "failed to lookup address",
    "Name or service not known",
    "nodename nor servname",
    "No address associated",
    "Temporary failure in name resolution",
    "no record found",
];

/// Phrases TLS libraries write for a certificate that is not trusted.
const CERTIFICATE: &[&str] = &[
    "invalid peer certificate",
    "certificate verify failed",
    "UnknownIssuer",
    "NotValidForName",
    "certificate has expired",
    "self signed certificate",
    "self-signed certificate",
];

/// Phrases TLS libraries write for a handshake that went wrong otherwise.
const TLS: &[&str] = &[
    "received corrupt message",
    "InvalidContentType",
    "tls handshake",
    "TLS handshake",
    "wrong version number",
    "peer is incompatible",
    "HandshakeFailure",
];

impl ReachFailure {
    /// What `error` and its causes say about the address it failed to reach; a refusal of
    /// the destination guard is [`ReachFailure::Other`], so its own words are kept.
    pub fn of(error: &(dyn Error + 'static)) -> ReachFailure {
        let mut text = String::new();
        let mut current = Some(error);
        while let Some(cause) = current {
            if let Some(io) = cause.downcast_ref::<std::io::Error>() {
                match io.kind() {
                    std::io::ErrorKind::ConnectionRefused => return ReachFailure::Refused,
                    std::io::ErrorKind::TimedOut => return ReachFailure::TimedOut,
                    _ => {}
                }
            }
            text.push_str(&cause.to_string());
            text.push('\n');
            current = cause.source();
        }
        ReachFailure::of_text(&text)
    }

    /// What a failure's text says, for causes that only survive as text.
    pub fn of_text(text: &str) -> ReachFailure {
        let has = |phrases: &[&str]| phrases.iter().any(|phrase| text.contains(phrase));
        if text.contains(crate::destination::REFUSED_WORDS) {
            // The destination guard refused from inside the resolver: its words say why.
            ReachFailure::Other
        } else if has(NAME_NOT_RESOLVED) {
            ReachFailure::NameNotResolved
        } else if text.contains("Connection refused") || text.contains("connection refused") {
            ReachFailure::Refused
        } else if has(CERTIFICATE) {
            ReachFailure::Certificate
        } else if has(TLS) {
            ReachFailure::Tls
        } else if text.contains("timed out") || text.contains("deadline has elapsed") {
            ReachFailure::TimedOut
        } else {
            ReachFailure::Other
        }
    }

    /// The failure and what to do about it, in English (`None` for [`ReachFailure::Other`],
    /// which has no words of its own).
    pub fn words(self) -> Option<&'static str> {
        Some(match self {
            ReachFailure::NameNotResolved => "the name does not resolve; check the address",
            ReachFailure::Refused => {
                "the connection was refused (nothing listens on that port); check the address \
                 and that the server is running"
            }
            ReachFailure::TimedOut => {
                "connecting timed out; check the address, and that the host is up and reachable \
                 from this machine"
            }
            ReachFailure::Certificate => {
                "its certificate is not trusted (wrong name, expired, or signed by an unknown \
                 authority); check the address, or the server's certificate"
            }
            ReachFailure::Tls => {
                "the secure connection failed; check whether the address should start with \
                 http:// rather than https://"
            }
            ReachFailure::Other => return None,
        })
    }

    /// A short stable name, for logs and locale keys (`dns`, `refused`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ReachFailure::NameNotResolved => "dns",
            ReachFailure::Refused => "refused",
            ReachFailure::TimedOut => "timed_out",
            ReachFailure::Certificate => "certificate",
            ReachFailure::Tls => "tls",
            ReachFailure::Other => "other",
        }
    }
}

impl fmt::Display for ReachFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.words().unwrap_or("the connection failed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error with a cause, as client libraries chain them.
    #[derive(Debug)]
    struct Chained(&'static str, Option<Box<dyn Error + 'static>>);

    impl fmt::Display for Chained {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Chained {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref()
        }
    }

    fn chain(outer: &'static str, inner: impl Error + 'static) -> Chained {
        Chained(outer, Some(Box::new(inner)))
    }

    #[test]
    fn causes_are_read_by_kind_then_by_phrase() {
        let refused = chain(
            "error sending request",
            std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
        );
        assert_eq!(ReachFailure::of(&refused), ReachFailure::Refused);
        let timed_out = chain(
            "error sending request",
            std::io::Error::from(std::io::ErrorKind::TimedOut),
        );
        assert_eq!(ReachFailure::of(&timed_out), ReachFailure::TimedOut);
        let dns = chain(
            "client error (Connect)",
            Chained(
                "dns error",
                Some(Box::new(std::io::Error::other(
                    "failed to lookup address information: Name or service not known",
                ))),
            ),
        );
        assert_eq!(ReachFailure::of(&dns), ReachFailure::NameNotResolved);
        let tls = chain(
            "client error (Connect)",
            std::io::Error::other("received corrupt message of type InvalidContentType"),
        );
        assert_eq!(ReachFailure::of(&tls), ReachFailure::Tls);
        let certificate = chain(
            "client error (Connect)",
            std::io::Error::other("invalid peer certificate: UnknownIssuer"),
        );
        assert_eq!(ReachFailure::of(&certificate), ReachFailure::Certificate);
        let other = Chained("the stream ended", None);
        assert_eq!(ReachFailure::of(&other), ReachFailure::Other);
        let guarded = chain(
            "client error (Connect)",
            Chained(
                "dns error",
                Some(Box::new(std::io::Error::other(
                    "destination not allowed: `localhost` is not a public address",
                ))),
            ),
        );
        assert_eq!(ReachFailure::of(&guarded), ReachFailure::Other);
    }

    #[test]
    fn every_known_failure_says_what_to_do() {
        for failure in [
            ReachFailure::NameNotResolved,
            ReachFailure::Refused,
            ReachFailure::TimedOut,
            ReachFailure::Certificate,
            ReachFailure::Tls,
        ] {
            let words = failure.words().unwrap_or_default();
            assert!(words.contains("; check"), "{words}");
        }
        assert_eq!(ReachFailure::Other.words(), None);
        assert_eq!(
            ReachFailure::NameNotResolved.to_string(),
            "the name does not resolve; check the address"
        );
    }
}
