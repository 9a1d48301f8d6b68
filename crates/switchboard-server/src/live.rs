//! Live events for `GET /api/events` and the streamed runs: what the agent announces and
//! connection status changes, numbered, kept for a while so a client that reconnects with
//! `Last-Event-ID` gets what it missed, and fanned out to every subscriber.

mod log;
pub mod relay;
mod sse;

pub use log::{EventLog, Logged, Subscription};
pub use sse::{Scope, sse_response, sse_response_watched};
