//! The destination guard on outgoing HTTP: a member's server or provider may reach public
//! addresses only, plus the admin's allow list ([`DestinationRules`]).
//!
//! The check has to see the address actually connected to, or DNS rebinding (a name that
//! resolves to a public address when checked and to 127.0.0.1 when used) walks past it. So
//! the guarded client resolves names through [`GuardedResolver`], which drops every address
//! the rules refuse, at connect time, for every connection. reqwest does not call a resolver
//! for IP-literal hosts, so those are checked by [`check_url`] before a connection is opened
//! and on every redirect hop. The guarded client uses no proxy: a proxy would resolve the
//! name itself, out of the guard's sight.

use std::net::SocketAddr;
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use switchboard_core::{Auth, DestinationRules, OwnerId, Refusal, ServerSpec};
use url::{Host, Url};

use crate::config::ManagerConfig;
use crate::connect::connect;
use crate::connection::Connection;
use crate::error::{McpError, error_chain};
use crate::oauth::{Authorized, GuardedOAuthHttp, SignIns};
use crate::policy::Admission;
use crate::transport::upstream_limit::UpstreamLimits;

/// The words every refusal by the guard carries, so a refusal can be recognised after rmcp
/// flattened the error into text.
const REFUSED: &str = switchboard_core::destination::REFUSED_WORDS;

/// A destination the guard refused: names the host, says nothing about what listens there.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{REFUSED}: `{host}` is not a public address")]
pub struct DestinationRefused {
    pub host: String,
}

/// Checks a URL whose host is an IP literal (which no resolver sees). Host names pass here:
/// the guarded client's resolver checks what they resolve to. An unparseable URL passes too;
/// the request then fails on its own.
pub fn check_url(url: &str, rules: &DestinationRules) -> Result<(), DestinationRefused> {
    match Url::parse(url) {
        Ok(url) => check_parsed(&url, rules),
        Err(_) => Ok(()),
    }
}

fn check_parsed(url: &Url, rules: &DestinationRules) -> Result<(), DestinationRefused> {
    let ip = match url.host() {
        Some(Host::Ipv4(ip)) => ip.into(),
        Some(Host::Ipv6(ip)) => ip.into(),
        Some(Host::Domain(_)) | None => return Ok(()),
    };
    if rules.allows_ip(ip) {
        Ok(())
    } else {
        Err(DestinationRefused {
            host: url.host_str().unwrap_or_default().to_owned(),
        })
    }
}

/// Checks a URL before a guarded connection is opened, so a refusal can be reported as one
/// (rmcp and the provider clients flatten the resolver's error into "error sending
/// request"): an IP literal as [`check_url`] does, a name by resolving it as the guarded
/// client will. This is not the check that holds (the name is resolved again, and checked
/// again, when the connection is made); it only gives the refusal its words. A name that
/// does not resolve passes: connecting reports that.
pub async fn check_destination(
    url: &str,
    rules: &DestinationRules,
) -> Result<(), DestinationRefused> {
    let Ok(parsed) = Url::parse(url) else {
        return Ok(());
    };
    check_parsed(&parsed, rules)?;
    let Some(Host::Domain(name)) = parsed.host() else {
        return Ok(());
    };
    if rules.allows_host(name) {
        return Ok(());
    }
    let Ok(found) = tokio::net::lookup_host((name, 0)).await else {
        return Ok(());
    };
    let found: Vec<SocketAddr> = found.collect();
    if !found.is_empty() && !found.iter().any(|addr| rules.allows_ip(addr.ip())) {
        return Err(DestinationRefused {
            host: name.to_owned(),
        });
    }
    Ok(())
}

/// Resolves names with the system resolver and keeps only the addresses the rules allow; a
/// name left with none fails with [`DestinationRefused`].
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    rules: Arc<DestinationRules>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let rules = Arc::clone(&self.rules);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> = if rules.allows_host(&host) {
                found
            } else {
                found
                    .into_iter()
                    .filter(|addr| rules.allows_ip(addr.ip()))
                    .collect()
            };
            if allowed.is_empty() {
                return Err(Box::new(DestinationRefused { host }) as _);
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

/// An HTTP client that only reaches what `rules` allow: names through [`GuardedResolver`],
/// no proxy, and redirects followed only within the same origin (as the manager's plain
/// client) and only to allowed IP literals.
pub fn guarded_client(rules: Arc<DestinationRules>) -> reqwest::Client {
    let redirects = guarded_redirects(Arc::clone(&rules));
    guarded_client_with(rules, redirects, None)
}

/// Redirects followed only within the same origin and only to what `rules` allow.
fn guarded_redirects(rules: Arc<DestinationRules>) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let first = attempt.previous().first().map(Url::origin);
        if attempt.previous().len() > 5 || first != Some(attempt.url().origin()) {
            attempt.stop()
        } else if let Err(refused) = check_parsed(attempt.url(), &rules) {
            attempt.error(refused)
        } else {
            attempt.follow()
        }
    })
}

/// A guarded client (see [`guarded_client`]) with another redirect policy, keeping at most
/// `idle_per_host` idle connections per host when given (reqwest's default: no bound).
pub(crate) fn guarded_client_with(
    rules: Arc<DestinationRules>,
    redirects: reqwest::redirect::Policy,
    idle_per_host: Option<usize>,
) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver { rules }))
        .redirect(redirects);
    if let Some(idle) = idle_per_host {
        builder = builder.pool_max_idle_per_host(idle);
    }
    builder.build().unwrap_or_else(|error| {
        // Building fails only when the TLS back end cannot start; then no client works, and
        // one without a resolver cannot reach anything either. Not silently unguarded: a
        // client with a resolver that refuses everything.
        tracing::warn!(%error, "cannot build the guarded HTTP client");
        reqwest::Client::builder()
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver {
                rules: Arc::new(DestinationRules::default()),
            }))
            .build()
            .unwrap_or_default()
    })
}

/// Whether `text` (an error's message, flattened) reports a refusal by the guard.
pub fn is_refusal(text: &str) -> bool {
    text.contains(REFUSED)
}

/// The manager's two HTTP clients: the plain one for admins and single-user mode, the guarded
/// one for connections admitted with [`Admission::guard_destinations`]; each with its OAuth
/// client for sign-ins (see [`crate::oauth`]), which reaches what the same rules allow.
pub(crate) struct HttpClients {
    plain: reqwest::Client,
    guarded: reqwest::Client,
    rules: Arc<DestinationRules>,
    oauth_plain: Arc<GuardedOAuthHttp>,
    oauth_guarded: Arc<GuardedOAuthHttp>,
    pub(crate) sign_ins: Arc<SignIns>,
    /// The connections each remote server may be sent requests on at once.
    limits: UpstreamLimits,
}

impl HttpClients {
    /// `plain` keeps at most `per_upstream` idle connections per host, as the guarded client
    /// made here does.
    pub(crate) fn new(
        plain: reqwest::Client,
        rules: DestinationRules,
        sign_ins: Arc<SignIns>,
        per_upstream: usize,
    ) -> Self {
        let rules = Arc::new(rules);
        let unguarded_stop = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Self {
            oauth_plain: Arc::new(GuardedOAuthHttp::new(plain.clone(), unguarded_stop, None)),
            oauth_guarded: Arc::new(GuardedOAuthHttp::new(
                guarded_client(Arc::clone(&rules)),
                guarded_client_with(Arc::clone(&rules), reqwest::redirect::Policy::none(), None),
                Some(Arc::clone(&rules)),
            )),
            plain,
            guarded: guarded_client_with(
                Arc::clone(&rules),
                guarded_redirects(Arc::clone(&rules)),
                Some(per_upstream),
            ),
            rules,
            sign_ins,
            limits: UpstreamLimits::new(per_upstream),
        }
    }

    /// The OAuth client for a connection admitted with `admission`.
    pub(crate) fn oauth_http(&self, admission: Admission) -> Arc<GuardedOAuthHttp> {
        if admission.guard_destinations {
            Arc::clone(&self.oauth_guarded)
        } else {
            Arc::clone(&self.oauth_plain)
        }
    }

    /// The person's sign-in to `spec`, when it uses OAuth.
    async fn authorized(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        admission: Admission,
    ) -> Result<Option<Authorized>, McpError> {
        if !matches!(spec.auth, Auth::OAuth { .. }) {
            return Ok(None);
        }
        let client = if admission.guard_destinations {
            &self.guarded
        } else {
            &self.plain
        };
        let authorized = self
            .sign_ins
            .authorized(self.oauth_http(admission), client.clone(), owner, spec)
            .await?;
        Ok(Some(authorized))
    }

    /// Connects to `spec` under `admission`: behind the guard, an IP-literal URL the rules
    /// refuse is refused before anything is sent, and a name that resolves only to refused
    /// addresses fails at connect time; both as [`ErrorCode::DestinationNotAllowed`].
    pub(crate) async fn connect(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        config: &ManagerConfig,
        admission: Admission,
    ) -> Result<Connection, McpError> {
        if !admission.guard_destinations {
            let auth = self.authorized(owner, spec, admission).await?;
            return connect(spec, config, (&self.plain, &self.limits), auth).await;
        }
        let url = spec.url.as_deref().unwrap_or_default();
        // A resolver that hangs is left to the connect timeout of the connection itself.
        if let Ok(checked) =
            tokio::time::timeout(config.connect_timeout, check_destination(url, &self.rules)).await
        {
            checked.map_err(|refused| refusal(spec, &refused.host))?;
        }
        let auth = self.authorized(owner, spec, admission).await?;
        connect(spec, config, (&self.guarded, &self.limits), auth)
            .await
            .map_err(|error| {
                if is_refusal(&error_chain(&error)) {
                    let host = Url::parse(url)
                        .ok()
                        .and_then(|u| u.host_str().map(str::to_owned))
                        .unwrap_or_default();
                    refusal(spec, &host)
                } else {
                    error
                }
            })
    }
}

fn refusal(spec: &ServerSpec, host: &str) -> McpError {
    McpError::Refused {
        server: spec.name.clone(),
        refusal: Refusal::Destination {
            host: host.to_owned(),
        },
    }
}

/// Why a member may not reach `host`, as every refusal of the guard words it.
pub fn refusal_reason(host: &str) -> String {
    switchboard_core::refusal::destination_reason(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_hosts_are_checked() {
        let rules = DestinationRules::parse(["10.1.0.0/16"]).unwrap();
        for refused in [
            "http://127.0.0.1:8080/mcp",
            "http://[::1]/mcp",
            "http://[::ffff:127.0.0.1]/mcp",
            "http://[::ffff:7f00:1]/mcp",
            "http://0x7f000001/mcp",
            "http://2130706433/mcp",
            "http://0/mcp",
            "http://169.254.169.254/latest/meta-data",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://[64:ff9b::7f00:1]/",
        ] {
            assert!(check_url(refused, &rules).is_err(), "{refused}");
        }
        for allowed in [
            "http://10.1.2.3/mcp",
            "https://8.8.8.8/",
            "https://mcp.example.com/mcp",
            "http://localhost:1/",
        ] {
            assert!(check_url(allowed, &rules).is_ok(), "{allowed}");
        }
    }

    /// The guarded client itself refuses, at connect time, a name that resolves to loopback:
    /// what holds if the name resolved elsewhere when it was checked (DNS rebinding).
    #[tokio::test]
    async fn the_guarded_client_never_connects_to_a_refused_address() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let client = guarded_client(Arc::new(DestinationRules::default()));
        let error = client
            .get(format!("http://localhost:{port}/"))
            .send()
            .await
            .unwrap_err();
        assert!(is_refusal(&error_chain(&error)), "{}", error_chain(&error));
        // Nothing was accepted: a connection would be waiting.
        let accepted = tokio::time::timeout(std::time::Duration::ZERO, listener.accept()).await;
        assert!(accepted.is_err(), "the guarded client connected");

        let allowed = guarded_client(Arc::new(DestinationRules::parse(["localhost"]).unwrap()));
        let request = tokio::spawn(async move {
            allowed
                .get(format!("http://localhost:{port}/"))
                .send()
                .await
        });
        assert!(
            listener.accept().await.is_ok(),
            "the allowed name was not reached"
        );
        request.abort();
    }

    #[tokio::test]
    async fn the_resolver_drops_refused_addresses() {
        let resolver = GuardedResolver {
            rules: Arc::new(DestinationRules::default()),
        };
        let error = resolver
            .resolve("localhost".parse().unwrap())
            .await
            .err()
            .unwrap();
        assert!(is_refusal(&error.to_string()), "{error}");
        let allowed = GuardedResolver {
            rules: Arc::new(DestinationRules::parse(["localhost"]).unwrap()),
        };
        assert!(allowed.resolve("localhost".parse().unwrap()).await.is_ok());
    }
}
