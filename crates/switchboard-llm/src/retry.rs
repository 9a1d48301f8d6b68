//! Trying a model call again when the failure is likely to pass.
//!
//! Retries cover only the start of a call, up to the response's status line: once the first
//! event has reached the caller, repeating the call would repeat text the user has already
//! seen, so a failure from then on is the caller's to handle. Rate limits, 5xx and network
//! failures are retried (see [`LlmError::retryable`]); the rest fail at once.
//!
//! The delay doubles from [`RetryPolicy::base`] up to [`RetryPolicy::max`]. When the
//! provider says how long to wait (`retry-after`), that wins, capped by `max` as well, so a
//! provider asking for minutes cannot stall a chat turn for minutes. There is no jitter: one
//! process talks to one provider with a handful of concurrent turns, too few to stampede.
//! Tests use a policy with millisecond delays.

use std::future::Future;
use std::time::Duration;

use crate::error::LlmError;

/// How often, and after how long, a failed call start is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included; 1 means no retry.
    pub max_attempts: u32,
    /// The delay before the first retry; each further retry waits twice as long.
    pub base: Duration,
    /// The longest delay, also the cap on a provider's `retry-after`.
    pub max: Duration,
}

impl Default for RetryPolicy {
    /// Three attempts, waiting 500 ms then 1 s (at most 10 s when the provider asks for more).
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base: Duration::from_millis(500),
            max: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// One attempt, no retry.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// How long to wait after the `failed`-th failed attempt (1-based) that ended in `error`.
    pub fn delay(&self, failed: u32, error: &LlmError) -> Duration {
        if let LlmError::RateLimited {
            retry_after: Some(wait),
            ..
        } = error
        {
            return (*wait).min(self.max);
        }
        let factor = 2u32.saturating_pow(failed.saturating_sub(1));
        self.base.saturating_mul(factor).min(self.max)
    }

    /// Runs `attempt` until it succeeds, fails with an error that is not retryable, or the
    /// attempts are used up; returns the last result.
    pub(crate) async fn run<T, F, Fut>(&self, mut attempt: F) -> Result<T, LlmError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, LlmError>>,
    {
        let mut failed = 0;
        loop {
            let error = match attempt().await {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            failed += 1;
            if !error.retryable() || failed >= self.max_attempts {
                return Err(error);
            }
            let wait = self.delay(failed, &error);
            tracing::warn!(
                attempt = failed,
                of = self.max_attempts,
                ?wait,
                "model call failed, retrying: {error}"
            );
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    fn upstream() -> LlmError {
        LlmError::Upstream {
            status: 500,
            message: "boom".into(),
        }
    }

    #[test]
    fn delays_double_up_to_the_cap_and_honour_retry_after() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay(1, &upstream()), Duration::from_millis(500));
        assert_eq!(policy.delay(2, &upstream()), Duration::from_secs(1));
        assert_eq!(policy.delay(3, &upstream()), Duration::from_secs(2));
        assert_eq!(policy.delay(40, &upstream()), Duration::from_secs(10));
        let limited = |secs| LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(secs)),
            message: String::new(),
        };
        assert_eq!(policy.delay(1, &limited(3)), Duration::from_secs(3));
        assert_eq!(policy.delay(1, &limited(600)), Duration::from_secs(10));
    }

    #[tokio::test]
    async fn retryable_errors_are_retried_until_success() {
        let policy = RetryPolicy {
            max_attempts: 3,
            base: Duration::from_millis(1),
            max: Duration::from_millis(1),
        };
        let calls = Cell::new(0);
        let result = policy
            .run(|| {
                calls.set(calls.get() + 1);
                let n = calls.get();
                async move { if n < 3 { Err(upstream()) } else { Ok(n) } }
            })
            .await;
        assert_eq!(result.ok(), Some(3));
    }

    #[tokio::test]
    async fn attempts_run_out_and_other_errors_fail_at_once() {
        let policy = RetryPolicy {
            max_attempts: 2,
            base: Duration::from_millis(1),
            max: Duration::from_millis(1),
        };
        let calls = Cell::new(0);
        let result: Result<(), _> = policy
            .run(|| {
                calls.set(calls.get() + 1);
                async { Err(upstream()) }
            })
            .await;
        assert!(matches!(result, Err(LlmError::Upstream { .. })));
        assert_eq!(calls.get(), 2);

        calls.set(0);
        let result: Result<(), _> = policy
            .run(|| {
                calls.set(calls.get() + 1);
                async {
                    Err(LlmError::BadRequest {
                        status: 400,
                        message: "no".into(),
                    })
                }
            })
            .await;
        assert!(matches!(result, Err(LlmError::BadRequest { .. })));
        assert_eq!(calls.get(), 1);
    }
}
