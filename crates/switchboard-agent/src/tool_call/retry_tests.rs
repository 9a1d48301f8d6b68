//! Seed 002 property 8, at the level of the service: for random failure sequences, random
//! policies (a node's or the default one) and tools that may or may not be safe to repeat,
//! the attempts made and the waits between them follow the policy; a call that may have
//! run (lost after it was sent, timed out) is repeated only for a read-only or idempotent
//! tool; a final failure or an answer (even the tool's own error) stops at once. Tokio's
//! clock is paused, so the waits are exact and take no time.

use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;
use switchboard_core::{ErrorCode, OwnerId};
use switchboard_mcp::RetryPolicy;
use switchboard_store::{AuditOutcome, CallerKind};
use tokio_util::sync::CancellationToken;

use super::fakes::{MemoryAudit, ScriptedBackend, Step, any_object, node, selected, spec, tool};
use super::{AuditConfig, ToolCallError, ToolCallRequest, ToolCalls};

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::Answer),
        Just(Step::ToolError),
        Just(Step::NotSent),
        Just(Step::Unreachable),
        Just(Step::LostAfterSend),
        Just(Step::TimedOut),
        Just(Step::ServerError),
    ]
}

/// Whose policy the call runs under.
#[derive(Debug, Clone)]
enum Policy {
    /// No node: the configured default.
    Default(RetryPolicy),
    /// A node's `retryOnError` and `maxRetries` (seed 002's delays).
    Node {
        retry_on_error: bool,
        max_retries: u32,
    },
}

impl Policy {
    /// The policy the service should apply.
    fn effective(&self) -> RetryPolicy {
        match self {
            Policy::Default(policy) => policy.clone(),
            Policy::Node {
                retry_on_error,
                max_retries,
            } => RetryPolicy {
                max_retries: if *retry_on_error { *max_retries } else { 0 },
                ..RetryPolicy::default()
            },
        }
    }
}

fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![
        (0u32..5, 0u64..3_000, 1u64..20_000, 1u32..4).prop_map(
            |(max_retries, initial, max, multiplier)| Policy::Default(RetryPolicy {
                max_retries,
                initial_delay: Duration::from_millis(initial),
                max_delay: Duration::from_millis(max),
                multiplier,
            })
        ),
        (any::<bool>(), 0u32..=10).prop_map(|(retry_on_error, max_retries)| Policy::Node {
            retry_on_error,
            max_retries
        }),
    ]
}

/// What the policy says should happen: the steps consumed, in order.
fn expected(script: &[Step], policy: &RetryPolicy, repeatable: bool) -> Vec<Step> {
    let mut taken = Vec::new();
    let mut steps = script
        .iter()
        .copied()
        .chain(std::iter::repeat(Step::Answer));
    loop {
        let step = steps.next().unwrap_or(Step::Answer);
        taken.push(step);
        let may_retry = match step {
            Step::Answer | Step::ToolError | Step::ServerError => false,
            Step::NotSent | Step::Unreachable => true,
            Step::LostAfterSend | Step::TimedOut => repeatable,
        };
        let retries = taken.len() as u32 - 1;
        if !may_retry || retries >= policy.max_retries {
            return taken;
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn attempts_and_waits_follow_the_policy(
        script in prop::collection::vec(step(), 0..8),
        policy in policy(),
        repeatable in any::<bool>(),
        timeout_ms in prop::option::of(1u64..100_000),
    ) {
        runtime().block_on(async {
            let spec = spec();
            let tools = vec![tool(&spec, "t", any_object(), repeatable)];
            let backend = Arc::new(ScriptedBackend::new(tools, script.clone()));
            let audit = Arc::new(MemoryAudit::default());
            let calls = ToolCalls::with_audit(
                backend.clone(),
                audit.clone(),
                match &policy {
                    Policy::Default(default) => default.clone(),
                    Policy::Node { .. } => RetryPolicy::never(),
                },
                &AuditConfig::default(),
            );
            let owner = OwnerId::local();
            let mut request = ToolCallRequest::new(
                owner.clone(),
                CallerKind::Proxy,
                Arc::new(spec.clone()),
                "t",
                serde_json::Map::new(),
            );
            let timeout = timeout_ms.map(Duration::from_millis);
            if let Policy::Node { retry_on_error, max_retries } = policy {
                let mut stored = node(&spec, vec![selected("t", json!({}))]);
                stored.node.retry_on_error = retry_on_error;
                stored.node.max_retries = max_retries;
                stored.node.timeout = timeout;
                request.node = Some(Arc::new(stored));
            }
            let effective = policy.effective();
            let want = expected(&script, &effective, repeatable);

            let result = calls.call(request).await;

            let received = backend.received();
            prop_assert_eq!(received.len(), want.len(), "calls made for {:?}", want);
            for (n, pair) in received.windows(2).enumerate() {
                // The wait before retry n+1, exactly (the fake answers at once).
                prop_assert_eq!(pair[1].at - pair[0].at, effective.delay(n as u32 + 1));
            }
            for call in &received {
                // The service retries; the manager must not retry on top.
                prop_assert_eq!(call.retry.as_ref(), Some(&RetryPolicy::never()));
                let node_timeout = match policy {
                    Policy::Node { .. } => timeout,
                    Policy::Default(_) => None,
                };
                prop_assert_eq!(call.timeout, node_timeout);
            }
            let last = *want.last().unwrap();
            let attempts = match &result {
                Ok(outcome) => {
                    prop_assert!(matches!(last, Step::Answer | Step::ToolError));
                    prop_assert_eq!(outcome.result.is_error == Some(true), last == Step::ToolError);
                    outcome.attempts.clone()
                }
                Err(ToolCallError::Mcp { error, attempts }) => {
                    prop_assert!(!matches!(last, Step::Answer | Step::ToolError));
                    prop_assert_eq!(Some(error.code()), attempts.last().and_then(|a| a.error));
                    attempts.clone()
                }
                Err(other) => return Err(TestCaseError::fail(format!("unexpected {other}"))),
            };
            prop_assert_eq!(attempts.len(), want.len());
            for (attempt, step) in attempts.iter().zip(&want) {
                let code = step.outcome("files", "t").err().map(|e| e.code());
                prop_assert_eq!(attempt.error, code);
            }
            // One audit record, with the attempts and the outcome.
            let records = calls.audit(&owner, 10).await.unwrap();
            prop_assert_eq!(records.len(), 1);
            prop_assert_eq!(records[0].attempts as usize, want.len());
            let outcome = match last {
                Step::Answer => AuditOutcome::Ok,
                Step::ToolError => AuditOutcome::ToolError,
                other => AuditOutcome::Error(other.outcome("files", "t").unwrap_err().code()),
            };
            prop_assert_eq!(records[0].outcome, outcome);
            Ok::<(), TestCaseError>(())
        })?;
    }
}

#[test]
fn a_call_lost_after_it_was_sent_is_not_repeated_for_a_tool_that_may_not_be() {
    runtime().block_on(async {
        let spec = spec();
        let tools = vec![tool(&spec, "t", any_object(), false)];
        let backend = Arc::new(ScriptedBackend::new(tools, [Step::LostAfterSend]));
        let calls = ToolCalls::with_audit(
            backend.clone(),
            Arc::new(MemoryAudit::default()),
            RetryPolicy::default(),
            &AuditConfig::default(),
        );
        let request = ToolCallRequest::new(
            OwnerId::local(),
            CallerKind::Api,
            Arc::new(spec),
            "t",
            serde_json::Map::new(),
        );
        let error = calls.call(request).await.unwrap_err();
        assert_eq!(error.code(), ErrorCode::McpConnectionError);
        assert_eq!(backend.received().len(), 1);
    });
}

#[test]
fn cancelling_ends_the_wait_before_a_retry() {
    runtime().block_on(async {
        let spec = spec();
        let cancel = CancellationToken::new();
        let tools = vec![tool(&spec, "t", any_object(), true)];
        let mut backend = ScriptedBackend::new(tools, [Step::Unreachable]);
        backend.cancel_on_call = Some(cancel.clone());
        let backend = Arc::new(backend);
        let calls = ToolCalls::with_audit(
            backend.clone(),
            Arc::new(MemoryAudit::default()),
            RetryPolicy {
                initial_delay: Duration::from_secs(3600),
                ..RetryPolicy::default()
            },
            &AuditConfig::default(),
        );
        let mut request = ToolCallRequest::new(
            OwnerId::local(),
            CallerKind::Agent,
            Arc::new(spec),
            "t",
            serde_json::Map::new(),
        );
        request.cancel = cancel;
        let started = tokio::time::Instant::now();
        let error = calls.call(request).await.unwrap_err();
        assert_eq!(error.code(), ErrorCode::Cancelled);
        assert_eq!(error.attempts().len(), 1);
        assert_eq!(backend.received().len(), 1);
        assert_eq!(started.elapsed(), Duration::ZERO, "the hour was not waited");
    });
}
