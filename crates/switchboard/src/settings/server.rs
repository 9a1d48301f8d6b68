//! `[server]`: where and how the HTTP API listens, and which hosts and origins it answers.

use std::net::SocketAddr;
use std::time::Duration;

use super::error::SettingsError;
use super::key::Key;
use super::layers::Layers;
use super::value::Name;

const LISTEN: Key = Key::new("server", "listen", "127.0.0.1:8080")
    .env("SWITCHBOARD_LISTEN")
    .flag("--listen");
const SINGLE_USER: Key = Key::new("server", "single_user", "false")
    .env("SWITCHBOARD_SINGLE_USER")
    .flag("--single-user");
const PUBLIC_URLS: Key = Key::new("server", "public_urls", "")
    .env("SWITCHBOARD_PUBLIC_URL")
    .flag("--public-url");
const ALLOWED_HOSTS: Key = Key::new("server", "allowed_hosts", "")
    .env("SWITCHBOARD_ALLOWED_HOSTS")
    .flag("--allowed-host");
const ALLOWED_ORIGINS: Key = Key::new("server", "allowed_origins", "")
    .env("SWITCHBOARD_ALLOWED_ORIGINS")
    .flag("--allowed-origin");
const METRICS_LISTEN: Key = Key::new("server", "metrics_listen", "")
    .env("SWITCHBOARD_METRICS_LISTEN")
    .flag("--metrics-listen");
const MAX_BODY_BYTES: Key = Key::new("server", "max_body_bytes", "4194304")
    .env("SWITCHBOARD_MAX_BODY_BYTES")
    .flag("--max-body-bytes");
const SHUTDOWN_GRACE: Key = Key::new("server", "shutdown_grace", "10s")
    .env("SWITCHBOARD_SHUTDOWN_GRACE")
    .flag("--shutdown-grace");

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServerFlags {
    /// The address to listen on [default: 127.0.0.1:8080].
    #[arg(long, value_name = "ADDRESS")]
    pub listen: Option<String>,
    /// No API tokens: every request acts as the local admin. Only on a loopback address.
    #[arg(long)]
    pub single_user: bool,
    /// A URL this server is reached by (behind a proxy: `https://switchboard.example.com`): its
    /// host is answered and its origin may call the API. Repeat for more, or list them
    /// comma-separated in SWITCHBOARD_PUBLIC_URL. Other hosts than the listen address and
    /// localhost are refused (DNS rebinding).
    #[arg(long = "public-url", value_name = "URL", value_delimiter = ',')]
    pub public_urls: Vec<String>,
    /// Another host name this server answers to, `NAME` (any port) or `NAME:PORT`. Repeat
    /// for more, or list them comma-separated in SWITCHBOARD_ALLOWED_HOSTS.
    #[arg(long = "allowed-host", value_name = "HOST", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,
    /// Another origin whose pages may call the API (a UI served elsewhere). Repeat for more,
    /// or list them comma-separated in SWITCHBOARD_ALLOWED_ORIGINS.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,
    /// Serve `/metrics` on this address, without a token, and not on the API's address
    /// (where it otherwise takes an admin's token).
    #[arg(long, value_name = "ADDRESS")]
    pub metrics_listen: Option<String>,
    /// Request bodies larger than this many bytes are refused [default: 4194304].
    #[arg(long, value_name = "BYTES")]
    pub max_body_bytes: Option<String>,
    /// On shutdown, how long runs that are answering get to finish before they are cancelled
    /// [default: 10s].
    #[arg(long, value_name = "DURATION")]
    pub shutdown_grace: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServerSettings {
    pub listen: SocketAddr,
    pub single_user: bool,
    pub public_urls: Vec<url::Url>,
    pub allowed_hosts: Vec<Name>,
    pub allowed_origins: Vec<Name>,
    pub metrics_listen: Option<SocketAddr>,
    pub max_body_bytes: usize,
    pub shutdown_grace: Duration,
}

impl ServerSettings {
    pub fn load(layers: &mut Layers<'_>, flags: &ServerFlags) -> Result<Self, SettingsError> {
        let single_user = if flags.single_user {
            vec!["true".to_owned()]
        } else {
            Vec::new()
        };
        Ok(Self {
            listen: layers.take(&LISTEN, flags.listen.as_slice())?,
            single_user: layers.take(&SINGLE_USER, &single_user)?,
            public_urls: layers.take(&PUBLIC_URLS, &flags.public_urls)?,
            allowed_hosts: layers.take(&ALLOWED_HOSTS, &flags.allowed_hosts)?,
            allowed_origins: layers.take(&ALLOWED_ORIGINS, &flags.allowed_origins)?,
            metrics_listen: layers.take(&METRICS_LISTEN, flags.metrics_listen.as_slice())?,
            max_body_bytes: layers.take(&MAX_BODY_BYTES, flags.max_body_bytes.as_slice())?,
            shutdown_grace: layers.take(&SHUTDOWN_GRACE, flags.shutdown_grace.as_slice())?,
        })
    }

    /// Why these settings must not serve: `--single-user` answers every request as the admin
    /// without a token, so it serves only on a loopback address, and never behind a name or
    /// origin it would answer to from elsewhere (a public URL, an allowed host or origin,
    /// which is how a reverse proxy would carry it to other people).
    pub fn refusal(&self) -> Option<String> {
        if !self.single_user {
            return None;
        }
        if !self.listen.ip().is_loopback() {
            return Some(format!(
                "--single-user serves without tokens, so it only listens on a loopback address \
                 (such as 127.0.0.1), not {}",
                self.listen.ip()
            ));
        }
        let reachable = [
            ("--public-url", !self.public_urls.is_empty()),
            ("--allowed-host", !self.allowed_hosts.is_empty()),
            ("--allowed-origin", !self.allowed_origins.is_empty()),
        ];
        let flags: Vec<&str> = reachable
            .into_iter()
            .filter_map(|(flag, set)| set.then_some(flag))
            .collect();
        (!flags.is_empty()).then(|| {
            format!(
                "--single-user serves without tokens, so it cannot be reached through {}: \
                 anyone the proxy lets through would be the admin; drop --single-user and \
                 use tokens",
                flags.join(", ")
            )
        })
    }

    pub fn names(list: &[Name]) -> Vec<String> {
        list.iter().map(|name| name.0.clone()).collect()
    }
}
