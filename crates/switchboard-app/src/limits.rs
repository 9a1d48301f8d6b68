//! Quotas and limits: what one user, one request, one address and one
//! connection may take of the process, so that a member cannot exhaust it.
//!
//! - Stored things are counted where they are written: the store refuses the N+1th server,
//!   assistant, provider or tool node of a user in the same transaction that would insert it (403
//!   `QUOTA_EXCEEDED`), so two requests at once, or two replicas, cannot both pass a count.
//! - Things held open (event streams, runs at once) are per-user [`Slots`] whose guard lives
//!   as long as the stream or the run; the one past the limit is refused with 429
//!   `RATE_LIMITED` and a `Retry-After`, since it succeeds once another one ends (unlike a
//!   stored quota, which needs the user to delete something).
//! - Failed authentication is limited per address and per presented token, writes per user
//!   ([`RateLimiter`], a GCRA); both answer 429 `RATE_LIMITED` with `Retry-After`.
//! - A tools listing (the chat tools route and every run's catalog) is bounded by
//!   [`crate::listing::BoundedBackend`]: servers listed, servers connected at once, tools and schema
//!   bytes kept, and listings at once in the process.
//! - Connections: a header read timeout (which hyper also applies to idle keep-alive
//!   connections), and a cap on connections at once; see the HTTP server's `serve`.
//!
//! Admins are under the same quotas, with the same defaults: an admin token can leak like any
//! other, and an operator who needs more raises them for everyone by configuration.

mod rate;
mod slots;

use std::time::Duration;

pub use rate::{Rate, RateLimiter};
pub use slots::{SlotGuard, Slots};

/// Every limit, with its default. `serve` fills them from flags and `SWITCHBOARD_*`
/// variables.
#[derive(Debug, Clone)]
pub struct Limits {
    /// MCP servers one user may store (created or imported).
    pub max_servers: u32,
    /// Assistants one user may store.
    pub max_assistants: u32,
    /// Providers one user may store.
    pub max_providers: u32,
    /// Tool nodes one user may store.
    pub max_tool_nodes: u32,
    /// Views of the MCP gateway one user may store.
    pub max_views: u32,
    /// `GET /api/events` streams one user may have open at once.
    pub max_event_streams: usize,
    /// Runs (model answers going on) one user may have at once.
    pub max_runs: usize,
    /// Servers one tools listing (or a run's catalog) lists; the others are reported
    /// unavailable.
    pub listing_servers: usize,
    /// Servers one listing connects to at once.
    pub listing_concurrency: usize,
    /// Tools one listing keeps.
    pub listing_tools: usize,
    /// Bytes of input schemas (as JSON) one listing keeps.
    pub listing_schema_bytes: usize,
    /// Listings going on at once in the process; more wait their turn.
    pub listings_at_once: usize,
    /// Failed authentications allowed per address, and per presented token.
    pub auth_failures: Rate,
    /// Writes (POST, PUT, PATCH, DELETE) allowed per user.
    pub writes: Rate,
    /// Connections served at once; more wait in the listen backlog until one closes.
    pub max_connections: usize,
    /// Tool-call audit records kept per user; older ones are deleted.
    pub audit_records: u32,
    /// How long a connection may take to send a request's header, and how long an idle
    /// keep-alive connection is kept (hyper starts the same timer when it waits for the next
    /// request; see `serve`).
    pub header_read_timeout: Duration,
    /// How long a request's body may take to arrive once its header has; past it the request
    /// is answered 408 and its connection closed (a client sending a body slowly holds a
    /// connection and a task).
    pub body_read_timeout: Duration,
    /// Conversations one user may keep.
    pub max_conversations: u32,
    /// Messages one user may keep in all their conversations: past it, a new turn is refused
    /// (a turn in progress finishes).
    pub max_messages: u32,
    /// MCP gateway sessions (`/mcp`) one user may have open at once.
    pub max_mcp_sessions: usize,
    /// An MCP gateway session without any request for this long is closed.
    pub mcp_session_idle: Duration,
    /// Tool calls running as tasks one user may have at once.
    pub max_tasks: u32,
    /// Tool calls running as tasks one user may have on one server at once.
    pub max_tasks_per_server: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_servers: 100,
            max_assistants: 100,
            max_providers: 20,
            max_tool_nodes: 200,
            max_views: 50,
            max_event_streams: 8,
            max_runs: 4,
            listing_servers: 100,
            listing_concurrency: 8,
            listing_tools: 2_000,
            listing_schema_bytes: 4 * 1024 * 1024,
            listings_at_once: 4,
            // 20 failures at once, then one every 3 s.
            auth_failures: Rate::new(20, Duration::from_secs(3)),
            // 60 writes at once, then 10 a second.
            writes: Rate::new(60, Duration::from_millis(100)),
            max_connections: 1_024,
            header_read_timeout: Duration::from_secs(20),
            body_read_timeout: Duration::from_secs(30),
            max_conversations: 10_000,
            max_messages: 200_000,
            audit_records: 10_000,
            max_mcp_sessions: 32,
            mcp_session_idle: Duration::from_secs(30 * 60),
            max_tasks: 20,
            max_tasks_per_server: 5,
        }
    }
}
