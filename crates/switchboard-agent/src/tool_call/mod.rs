//! The tool-call service: what every tool call needs, whoever makes it (the REST call route,
//! the flat-parameter proxy, the agent, a tool node's execution), decided in one place.
//!
//! In order, for one call ([`ToolCalls::call`]):
//! 1. the tool must be enabled on an enabled server (else `MCP_TOOL_NOT_FOUND`);
//! 2. under a tool node, the tool must be selected and enabled in it (else
//!    `MCP_TOOL_NOT_FOUND`), and the node's parameter mappings are resolved over the given
//!    arguments; a variable with no value and no default fails the call naming it
//!    (`MCP_INVALID_PARAMS`, seed 002 property 7);
//! 3. the arguments are checked against the tool's full schema, with compiled validators
//!    kept per schema (a violation in a mapped parameter is worded without its value,
//!    [`redact`]);
//! 4. the call is sent with the node's timeout, and retried by seed 002's backoff (the node's
//!    policy, or the configured default) only when that is safe ([`retry`]);
//! 5. one audit record is queued (never arguments or results), written in the background
//!    ([`audit`]).
//!
//! Calls go through the backend the service was built with; the HTTP server's counts each
//! attempt for its metrics.

mod audit;
mod error;
mod redact;
mod retry;
mod service;
mod shared_tool;
mod types;
mod validators;

#[cfg(test)]
mod fakes;
#[cfg(test)]
mod retry_tests;
#[cfg(test)]
mod service_tests;

pub use audit::AuditConfig;
pub use error::ToolCallError;
pub use service::ToolCalls;
pub use shared_tool::SharedTool;
pub use types::{Attempt, CallerKind, StartedCall, TaskCallEnd, ToolCallOutcome, ToolCallRequest};

/// The built-in variables of a call made now (`now` in RFC 3339, UTC, to the second), for
/// every caller that builds a call's [`Variables`](switchboard_core::Variables).
pub fn builtins_now(
    user_id: &str,
    user_name: &str,
    conversation_id: Option<&str>,
) -> switchboard_core::Builtins {
    switchboard_core::Builtins {
        user_id: user_id.to_owned(),
        user_name: user_name.to_owned(),
        conversation_id: conversation_id.map(str::to_owned),
        now: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
    }
}

/// A stored tool node, as a call runs under it.
pub type StoredNode = switchboard_store::StoredToolNode;

/// The node of a stored one.
fn node_of(stored: &StoredNode) -> &switchboard_core::ToolNode {
    &stored.node
}
