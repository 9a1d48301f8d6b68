//! Every duration the MCP layer waits for, in one place, with the defaults of DESIGN.md;
//! seed 002's retry policy; how long a server that cannot be reached is left out; and the
//! guard that stdio servers run under.

use std::path::PathBuf;
use std::time::Duration;

/// Timeouts, cache lifetimes, retry policy and stdio guard of the connection manager.
#[derive(Debug, Clone)]
pub struct ManagerConfig {
    /// How long connecting (spawn or HTTP, plus the MCP handshake) may take.
    pub connect_timeout: Duration,
    /// How long a call may go without a response or a progress notification.
    pub call_timeout: Duration,
    /// The ceiling on a call however much progress the server reports.
    pub call_timeout_ceiling: Duration,
    /// How long a tool list is served from the cache.
    pub tool_cache_ttl: Duration,
    /// A connection unused for this long is closed.
    pub idle_timeout: Duration,
    /// How often the idle reaper looks.
    pub reap_interval: Duration,
    /// How failed connects and lost connections are tried again.
    pub retry: RetryPolicy,
    /// How long a server that could not be reached is left out while it is tried again in
    /// the background.
    pub breaker: BreakerPolicy,
    /// How long a stdio server may take to exit after its stdin closes before its process group
    /// is killed.
    pub shutdown_grace: Duration,
    /// The most HTTP connections carrying requests to one remote server (one origin), whoever
    /// the sessions belong to; idle ones beyond it are closed. See
    /// `transport::upstream_limit`.
    pub http_connections_per_upstream: usize,
    /// A program that understands `guard --parent PID -- PROGRAM ARGS...` (the `switchboard`
    /// binary, see [`crate::guard`]), started in place of each stdio server to run it, so
    /// that the server and everything it starts end when this process does, even by
    /// `SIGKILL`. Without one a server is started directly, and a server that outlives a
    /// killed Switchboard keeps running.
    pub stdio_guard: Option<PathBuf>,
}

impl Default for ManagerConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(60),
            call_timeout_ceiling: Duration::from_secs(600),
            tool_cache_ttl: Duration::from_secs(5 * 60),
            idle_timeout: Duration::from_secs(30 * 60),
            reap_interval: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            breaker: BreakerPolicy::default(),
            shutdown_grace: Duration::from_millis(500),
            http_connections_per_upstream: 32,
            stdio_guard: None,
        }
    }
}

/// Seed 002's `RETRY_CONFIG`: a connection that cannot be made (refused, reset, timed out
/// while connecting) or that was lost is tried again up to `max_retries` times, the first
/// after `initial_delay`, each later one `multiplier` times longer, never more than
/// `max_delay`. Which failures qualify is the manager's business (`manager::retry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries after the first one (seed 002: 3).
    pub max_retries: u32,
    /// The wait before the first retry (seed 002: 1 s).
    pub initial_delay: Duration,
    /// The longest wait between two tries (seed 002: 10 s).
    pub max_delay: Duration,
    /// How much longer each wait is than the one before (seed 002: 2).
    pub multiplier: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(10),
            multiplier: 2,
        }
    }
}

impl RetryPolicy {
    /// No retries at all: every failure is final.
    pub fn never() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The wait before retry `retry` (1 for the first retry).
    pub fn delay(&self, retry: u32) -> Duration {
        backoff(self.initial_delay, self.multiplier, self.max_delay, retry)
    }
}

/// How long a server whose connect failed is left out (see the manager's breaker): after
/// the `n`th failure in a row, `first_delay` doubled `n - 1` times, never more than
/// `max_delay`; it is tried again in the background when that time is up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakerPolicy {
    /// The wait after the first failure (1 s).
    pub first_delay: Duration,
    /// The longest wait (5 min): a server that comes back is used again within it.
    pub max_delay: Duration,
}

impl Default for BreakerPolicy {
    fn default() -> Self {
        Self {
            first_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(5 * 60),
        }
    }
}

impl BreakerPolicy {
    /// The wait after the `failures`th failure in a row (1 for the first).
    pub fn delay(&self, failures: u32) -> Duration {
        backoff(self.first_delay, 2, self.max_delay, failures)
    }
}

/// `first` multiplied by `multiplier` `n - 1` times, at most `max`.
fn backoff(first: Duration, multiplier: u32, max: Duration, n: u32) -> Duration {
    let exponent = n.saturating_sub(1);
    let factor = multiplier.max(1).saturating_pow(exponent);
    first.saturating_mul(factor).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_from_one_second_up_to_ten() {
        let policy = RetryPolicy::default();
        let delays: Vec<u64> = (1..=6).map(|n| policy.delay(n).as_secs()).collect();
        assert_eq!(delays, vec![1, 2, 4, 8, 10, 10]);
        assert_eq!(policy.max_retries, 3);
    }

    #[test]
    fn the_breaker_waits_double_from_one_second_up_to_five_minutes() {
        let policy = BreakerPolicy::default();
        let delays: Vec<u64> = [1, 2, 3, 8, 9, 10, 40]
            .into_iter()
            .map(|n| policy.delay(n).as_secs())
            .collect();
        assert_eq!(delays, vec![1, 2, 4, 128, 256, 300, 300]);
    }

    #[test]
    fn a_multiplier_of_one_keeps_the_delay() {
        let policy = RetryPolicy {
            multiplier: 1,
            ..RetryPolicy::default()
        };
        assert_eq!(policy.delay(5), Duration::from_secs(1));
    }
}
