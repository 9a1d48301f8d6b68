//! `[manager]`, `[manager.retry]` and `[manager.breaker]`: how MCP servers are connected to,
//! waited for, cached, retried, and left out while they cannot be reached (the connection
//! manager's [`ManagerConfig`]).

use std::time::Duration;

use switchboard_mcp::{BreakerPolicy, ManagerConfig, RetryPolicy};

use super::error::SettingsError;
use super::key::Key;
use super::layers::Layers;

const CONNECT_TIMEOUT: Key = Key::new("manager", "connect_timeout", "30s")
    .env("SWITCHBOARD_CONNECT_TIMEOUT")
    .flag("--connect-timeout");
const CALL_TIMEOUT: Key = Key::new("manager", "call_timeout", "60s")
    .env("SWITCHBOARD_CALL_TIMEOUT")
    .flag("--call-timeout");
const CALL_TIMEOUT_CEILING: Key = Key::new("manager", "call_timeout_ceiling", "10m")
    .env("SWITCHBOARD_CALL_TIMEOUT_CEILING")
    .flag("--call-timeout-ceiling");
const TOOL_CACHE_TTL: Key = Key::new("manager", "tool_cache_ttl", "5m")
    .env("SWITCHBOARD_TOOL_CACHE_TTL")
    .flag("--tool-cache-ttl");
const IDLE_TIMEOUT: Key = Key::new("manager", "idle_timeout", "30m")
    .env("SWITCHBOARD_IDLE_TIMEOUT")
    .flag("--idle-timeout");
const HTTP_CONNECTIONS: Key = Key::new("manager", "http_connections_per_upstream", "32")
    .env("SWITCHBOARD_HTTP_CONNECTIONS_PER_UPSTREAM")
    .flag("--http-connections-per-upstream");
const MAX_RETRIES: Key = Key::new("manager.retry", "max_retries", "3")
    .env("SWITCHBOARD_RETRY_MAX_RETRIES")
    .flag("--retry-max-retries");
const INITIAL_DELAY: Key = Key::new("manager.retry", "initial_delay", "1s")
    .env("SWITCHBOARD_RETRY_INITIAL_DELAY")
    .flag("--retry-initial-delay");
const MAX_DELAY: Key = Key::new("manager.retry", "max_delay", "10s")
    .env("SWITCHBOARD_RETRY_MAX_DELAY")
    .flag("--retry-max-delay");
const MULTIPLIER: Key = Key::new("manager.retry", "multiplier", "2")
    .env("SWITCHBOARD_RETRY_MULTIPLIER")
    .flag("--retry-multiplier");
const BREAKER_FIRST_DELAY: Key = Key::new("manager.breaker", "first_delay", "1s")
    .env("SWITCHBOARD_BREAKER_FIRST_DELAY")
    .flag("--breaker-first-delay");
const BREAKER_MAX_DELAY: Key = Key::new("manager.breaker", "max_delay", "5m")
    .env("SWITCHBOARD_BREAKER_MAX_DELAY")
    .flag("--breaker-max-delay");

/// The flags of `[manager]`; each overrides the file and the environment.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ManagerFlags {
    /// How long connecting to an MCP server (starting it or reaching it, plus the handshake)
    /// may take [default: 30s].
    #[arg(long, value_name = "DURATION")]
    pub connect_timeout: Option<String>,
    /// How long a tool call may go without an answer or progress [default: 60s].
    #[arg(long, value_name = "DURATION")]
    pub call_timeout: Option<String>,
    /// The longest a tool call may take, however much progress it reports [default: 10m].
    #[arg(long, value_name = "DURATION")]
    pub call_timeout_ceiling: Option<String>,
    /// How long a server's tool list is served from the cache [default: 5m].
    #[arg(long, value_name = "DURATION")]
    pub tool_cache_ttl: Option<String>,
    /// A connection unused this long is closed [default: 30m].
    #[arg(long, value_name = "DURATION")]
    pub idle_timeout: Option<String>,
    /// The most HTTP connections carrying requests to one remote server [default: 32].
    #[arg(long, value_name = "N")]
    pub http_connections_per_upstream: Option<String>,
    /// Retries of a connection that failed or was lost [default: 3].
    #[arg(long, value_name = "N")]
    pub retry_max_retries: Option<String>,
    /// The wait before the first retry [default: 1s].
    #[arg(long, value_name = "DURATION")]
    pub retry_initial_delay: Option<String>,
    /// The longest wait between retries [default: 10s].
    #[arg(long, value_name = "DURATION")]
    pub retry_max_delay: Option<String>,
    /// How much longer each wait is than the one before [default: 2].
    #[arg(long, value_name = "N")]
    pub retry_multiplier: Option<String>,
    /// How long a server that could not be reached is left out before it is tried again in
    /// the background, the first time [default: 1s].
    #[arg(long, value_name = "DURATION")]
    pub breaker_first_delay: Option<String>,
    /// The longest a server that still cannot be reached is left out between two tries
    /// [default: 5m].
    #[arg(long, value_name = "DURATION")]
    pub breaker_max_delay: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ManagerSettings {
    pub connect_timeout: Duration,
    pub call_timeout: Duration,
    pub call_timeout_ceiling: Duration,
    pub tool_cache_ttl: Duration,
    pub idle_timeout: Duration,
    pub http_connections_per_upstream: usize,
    pub retry: RetryPolicy,
    pub breaker: BreakerPolicy,
}

impl ManagerSettings {
    pub fn load(layers: &mut Layers<'_>, flags: &ManagerFlags) -> Result<Self, SettingsError> {
        Ok(Self {
            connect_timeout: layers.take(&CONNECT_TIMEOUT, flags.connect_timeout.as_slice())?,
            call_timeout: layers.take(&CALL_TIMEOUT, flags.call_timeout.as_slice())?,
            call_timeout_ceiling: layers
                .take(&CALL_TIMEOUT_CEILING, flags.call_timeout_ceiling.as_slice())?,
            tool_cache_ttl: layers.take(&TOOL_CACHE_TTL, flags.tool_cache_ttl.as_slice())?,
            idle_timeout: layers.take(&IDLE_TIMEOUT, flags.idle_timeout.as_slice())?,
            http_connections_per_upstream: layers.take(
                &HTTP_CONNECTIONS,
                flags.http_connections_per_upstream.as_slice(),
            )?,
            retry: RetryPolicy {
                max_retries: layers.take(&MAX_RETRIES, flags.retry_max_retries.as_slice())?,
                initial_delay: layers.take(&INITIAL_DELAY, flags.retry_initial_delay.as_slice())?,
                max_delay: layers.take(&MAX_DELAY, flags.retry_max_delay.as_slice())?,
                multiplier: layers.take(&MULTIPLIER, flags.retry_multiplier.as_slice())?,
            },
            breaker: BreakerPolicy {
                first_delay: layers
                    .take(&BREAKER_FIRST_DELAY, flags.breaker_first_delay.as_slice())?,
                max_delay: layers.take(&BREAKER_MAX_DELAY, flags.breaker_max_delay.as_slice())?,
            },
        })
    }

    /// The connection manager's configuration; what is not a setting keeps its default.
    pub fn manager_config(&self) -> ManagerConfig {
        ManagerConfig {
            connect_timeout: self.connect_timeout,
            call_timeout: self.call_timeout,
            call_timeout_ceiling: self.call_timeout_ceiling,
            tool_cache_ttl: self.tool_cache_ttl,
            idle_timeout: self.idle_timeout,
            http_connections_per_upstream: self.http_connections_per_upstream,
            retry: self.retry.clone(),
            breaker: self.breaker.clone(),
            ..ManagerConfig::default()
        }
    }
}
