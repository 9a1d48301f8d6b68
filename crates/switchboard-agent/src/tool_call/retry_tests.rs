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
    /// A node's `retryOnError` and `maxRetries` (seed 002's delays), with the configured
    /// default as the floor for failures that never reached the tool.
    Node {
        retry_on_error: bool,
        max_retries: u32,
        default: RetryPolicy,
    },
}

impl Policy {
    /// The policy the service should apply to failures that may have run.
    fn effective(&self) -> RetryPolicy {
        match self {
            Policy::Default(policy) => policy.clone(),
            Policy::Node {
                retry_on_error,
                max_retries,
                ..
            } => RetryPolicy {
                max_retries: if *retry_on_error { *max_retries } else { 0 },
                ..RetryPolicy::default()
            },
        }
    }

    /// The configured default (`[manager.retry]`).
    fn default(&self) -> RetryPolicy {
        match self {
            Policy::Default(policy)
            | Policy::Node {
                default: policy, ..
            } => policy.clone(),
        }
    }

    /// The policy for a failure at `step`: one that never reached the tool gets whichever of
    /// the node's and the default allows more retries.
    fn for_step(&self, step: Step) -> RetryPolicy {
        let effective = self.effective();
        let default = self.default();
        match step {
            Step::NotSent | Step::Unreachable if default.max_retries > effective.max_retries => {
                default
            }
            _ => effective,
        }
    }
}

fn default_policy() -> impl Strategy<Value = RetryPolicy> {
    (0u32..5, 0u64..3_000, 1u64..20_000, 1u32..4).prop_map(
        |(max_retries, initial, max, multiplier)| RetryPolicy {
            max_retries,
            initial_delay: Duration::from_millis(initial),
            max_delay: Duration::from_millis(max),
            multiplier,
        },
    )
}

fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![
        default_policy().prop_map(Policy::Default),
        (any::<bool>(), 0u32..=10, default_policy()).prop_map(
            |(retry_on_error, max_retries, default)| Policy::Node {
                retry_on_error,
                max_retries,
                default,
            }
        ),
    ]
}

/// What the policy says should happen: the steps consumed, in order, and the wait before
/// each retry.
fn expected(script: &[Step], policy: &Policy, repeatable: bool) -> (Vec<Step>, Vec<Duration>) {
    let mut taken = Vec::new();
    let mut waits = Vec::new();
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
        let applied = policy.for_step(step);
        if !may_retry || retries >= applied.max_retries {
            return (taken, waits);
        }
        waits.push(applied.delay(retries + 1));
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
                policy.default(),
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
            if let Policy::Node { retry_on_error, max_retries, .. } = policy {
                let mut stored = node(&spec, vec![selected("t", json!({}))]);
                stored.node.retry_on_error = retry_on_error;
                stored.node.max_retries = max_retries;
                stored.node.timeout = timeout;
                request.node = Some(Arc::new(stored));
            }
            let (want, waits) = expected(&script, &policy, repeatable);

            let result = calls.call(request).await;

            let received = backend.received();
            prop_assert_eq!(received.len(), want.len(), "calls made for {:?}", want);
            for (pair, wait) in received.windows(2).zip(&waits) {
                // The wait before each retry, exactly (the fake answers at once).
                prop_assert_eq!(pair[1].at - pair[0].at, *wait);
            }
            for call in &received {
                // The service retries; the manager must not retry on top.
                prop_assert_eq!(call.retry.as_ref(), Some(&RetryPolicy::never()));
                let node_timeout = match &policy {
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

/// A node's call under `retry_on_error: false` with the default policy configured.
async fn node_call(backend: Arc<ScriptedBackend>) -> Result<super::ToolCallOutcome, ToolCallError> {
    let spec = spec();
    let calls = ToolCalls::with_audit(
        backend,
        Arc::new(MemoryAudit::default()),
        RetryPolicy::default(),
        &AuditConfig::default(),
    );
    let mut stored = node(&spec, vec![selected("t", json!({}))]);
    stored.node.retry_on_error = false;
    let request = ToolCallRequest {
        node: Some(Arc::new(stored)),
        ..ToolCallRequest::new(
            OwnerId::local(),
            CallerKind::Node,
            Arc::new(spec),
            "t",
            serde_json::Map::new(),
        )
    };
    calls.call(request).await
}

#[test]
fn a_node_that_does_not_retry_on_error_still_retries_a_call_that_never_reached_the_server() {
    runtime().block_on(async {
        let tools = vec![tool(&spec(), "t", any_object(), false)];
        let backend = Arc::new(ScriptedBackend::new(
            tools,
            [Step::Unreachable, Step::NotSent, Step::Answer],
        ));
        let outcome = node_call(backend.clone()).await.unwrap();
        assert_eq!(outcome.attempts.len(), 3);
        let received = backend.received();
        assert_eq!(received.len(), 3);
        // The default policy's delays: 1 s, then 2 s.
        assert_eq!(received[1].at - received[0].at, Duration::from_secs(1));
        assert_eq!(received[2].at - received[1].at, Duration::from_secs(2));
    });
}

#[test]
fn a_node_that_does_not_retry_on_error_does_not_repeat_a_sent_call_of_a_tool_that_may_not_be() {
    runtime().block_on(async {
        let tools = vec![tool(&spec(), "t", any_object(), false)];
        for step in [Step::LostAfterSend, Step::TimedOut] {
            let backend = Arc::new(ScriptedBackend::new(tools.clone(), [step]));
            let error = node_call(backend.clone()).await.unwrap_err();
            assert_eq!(error.attempts().len(), 1, "{step:?}");
            assert_eq!(backend.received().len(), 1, "{step:?}");
        }
    });
}
