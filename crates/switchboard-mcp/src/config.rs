//! Every duration the MCP layer waits for, in one place, with the defaults of DESIGN.md.

use std::time::Duration;

/// Timeouts, cache lifetimes and retry policy of the connection manager.
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
    /// Reconnect attempts after a connection is lost (seed 002: 3).
    pub reconnect_attempts: u32,
    /// The first backoff delay, doubled after each failed attempt (seed 002: 1 s, x2).
    pub reconnect_initial_backoff: Duration,
    /// The largest backoff delay (seed 002: 10 s).
    pub reconnect_max_backoff: Duration,
    /// How long a stdio server may take to exit after its stdin closes before its process group
    /// is killed.
    pub shutdown_grace: Duration,
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
            reconnect_attempts: 3,
            reconnect_initial_backoff: Duration::from_secs(1),
            reconnect_max_backoff: Duration::from_secs(10),
            shutdown_grace: Duration::from_millis(500),
        }
    }
}

impl ManagerConfig {
    /// The backoff before reconnect attempt `attempt` (0-based): 0 for the first, since a
    /// server that died between calls usually comes back at once, then doubling.
    pub fn backoff(&self, attempt: u32) -> Duration {
        if attempt == 0 {
            return Duration::ZERO;
        }
        let factor = 2u32.saturating_pow(attempt - 1);
        self.reconnect_initial_backoff
            .saturating_mul(factor)
            .min(self.reconnect_max_backoff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_ceiling() {
        let config = ManagerConfig::default();
        let delays: Vec<u64> = (0..6).map(|n| config.backoff(n).as_secs()).collect();
        assert_eq!(delays, vec![0, 1, 2, 4, 8, 10]);
    }
}
