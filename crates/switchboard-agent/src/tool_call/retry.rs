//! Seed 002's retry, owned by the tool-call service: one loop for every caller, which records
//! each attempt (when it started, how long it took, how it failed).
//!
//! Which failures are tried again follows from what the server may have done, not from how
//! the seed names them: a call that never reached the tool (the connection was lost before
//! the request was written, a node could not be reached) is always safe to send again; one
//! that was sent and then lost, or timed out, may have run, so it is sent again only when the
//! tool is annotated read-only or idempotent; anything else (a tool's own `isError` result,
//! invalid parameters, bad credentials, a cancellation) would fail the same way or was asked
//! for, and is final. So is a server the connection manager leaves out because it could not
//! be reached (`McpError::Unavailable`): the manager tries it again in the background, and a
//! caller does not wait out delays for it. The connection manager does not retry these calls
//! itself (`CallOptions::retry` is `never`), so attempts are never multiplied.
//!
//! Under a tool node, `retryOnError`/`maxRetries` govern the calls that may have run; a call
//! that never reached the tool still gets at least the `[manager.retry]` retries, with those
//! delays, as it did when the manager retried it: a node that does not retry on error asks
//! not to repeat the tool, not to give up on a connection that was lost before the call.

use std::future::Future;

use switchboard_core::RetrySafety;
use switchboard_mcp::{McpError, RetryPolicy};
use switchboard_store::Timestamp;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::Attempt;

/// Whether a call that failed with `error` may be sent again; `repeatable` when the tool is
/// annotated read-only or idempotent.
pub(crate) fn worth_retrying(error: &McpError, repeatable: bool) -> bool {
    match error.retry_safety() {
        RetrySafety::Always => true,
        RetrySafety::IfIdempotent => repeatable,
        _ => false,
    }
}

/// The policies a call runs under.
#[derive(Debug, Clone)]
pub(crate) struct Retries {
    /// The node's policy, or the default one without a node: governs every failure.
    pub(crate) policy: RetryPolicy,
    /// The `[manager.retry]` policy, the floor for failures that never reached the tool: they
    /// are retried by whichever of the two allows more retries, with its delays.
    pub(crate) unreached: RetryPolicy,
}

impl Retries {
    /// The policy that decides whether (and after how long) to retry after `error`.
    fn for_error(&self, error: &McpError) -> &RetryPolicy {
        match error.retry_safety() {
            RetrySafety::Always if self.unreached.max_retries > self.policy.max_retries => {
                &self.unreached
            }
            _ => &self.policy,
        }
    }
}

/// Runs `attempt` until it answers, fails for good, or the policy for its failure (see
/// [`Retries`]) allows no more retries, waiting that policy's `delay(n)` before retry `n`.
/// Cancelling `cancel` ends a wait at once (the call itself watches the same token).
pub(crate) async fn with_retries<T, F, Fut>(
    retries_policy: &Retries,
    repeatable: bool,
    cancel: &CancellationToken,
    mut attempt: F,
) -> (Result<T, McpError>, Vec<Attempt>)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, McpError>>,
{
    let mut attempts = Vec::new();
    let mut retries = 0;
    loop {
        let started_at = Timestamp::now();
        let started = Instant::now();
        let result = attempt().await;
        attempts.push(Attempt {
            started_at,
            duration: started.elapsed(),
            error: result.as_ref().err().map(McpError::code),
        });
        let error = match &result {
            Ok(_) => return (result, attempts),
            Err(error) => error,
        };
        let policy = retries_policy.for_error(error);
        if retries >= policy.max_retries || !worth_retrying(error, repeatable) {
            return (result, attempts);
        }
        retries += 1;
        tracing::info!(retry = retries, %error, "retrying a tool call");
        tokio::select! {
            () = tokio::time::sleep(policy.delay(retries)) => {}
            () = cancel.cancelled() => return (Err(McpError::Cancelled), attempts),
        }
    }
}
