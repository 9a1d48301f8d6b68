//! The tools of the demo server.
//!
//! Each tool is small but exercises something a host has to get right: `current_time` returns
//! structured content, `calculate` reports bad input as an `isError` result (the model sees the
//! message and can correct itself) rather than a protocol error, `echo` can send progress
//! notifications and take its time (so call timeouts that reset on progress, and cancellation,
//! can be tried against a real server), and `random_number` is the classic "not idempotent
//! looking, but harmless" tool. All of them are read-only and touch nothing outside the process.

use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::DemoServer;
use super::calc;
use super::clock;

/// The most progress steps `echo` will report.
pub const MAX_STEPS: u32 = 1_000;
/// The longest `echo` will wait between steps, in milliseconds.
pub const MAX_DELAY_MS: u64 = 60_000;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CalculateArgs {
    /// An arithmetic expression using numbers, `+ - * /`, parentheses and unary minus,
    /// for example `(1.5 + 2) * -3`.
    pub expression: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
    /// Report this many progress notifications (one per step) before answering. Progress is
    /// only sent when the request carries a progress token.
    #[serde(default)]
    pub steps: u32,
    /// Wait this many milliseconds before each step (or once, when `steps` is 0).
    #[serde(default)]
    pub delay_ms: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RandomNumberArgs {
    /// The smallest number that may be returned.
    pub min: i64,
    /// The largest number that may be returned (inclusive).
    pub max: i64,
}

#[tool_router(vis = "pub(super)")]
impl DemoServer {
    /// The current time in UTC, as RFC 3339 and as Unix seconds.
    #[tool(annotations(title = "Current time", read_only_hint = true, open_world_hint = false))]
    async fn current_time(&self) -> CallToolResult {
        let unix = clock::unix_seconds(SystemTime::now());
        CallToolResult::structured(json!({
            "utc": clock::rfc3339_utc(unix),
            "unix": unix,
        }))
    }

    /// Evaluate an arithmetic expression: numbers (with decimals), + - * /, parentheses and
    /// unary minus. Nothing else is evaluated.
    #[tool(annotations(
        title = "Calculate",
        read_only_hint = true,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn calculate(&self, Parameters(args): Parameters<CalculateArgs>) -> CallToolResult {
        match calc::evaluate(&args.expression) {
            Ok(value) => {
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(calc::format_number(value))]);
                result.structured_content = Some(json!({ "result": json_number(value) }));
                result
            }
            Err(error) => CallToolResult::error(vec![ContentBlock::text(format!(
                "cannot evaluate `{}`: {error}",
                args.expression
            ))]),
        }
    }

    /// Send the text back. With `steps`, report progress step by step first; with `delay_ms`,
    /// wait that long before each step.
    #[tool(annotations(
        title = "Echo",
        read_only_hint = true,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn echo(
        &self,
        Parameters(args): Parameters<EchoArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if args.steps > MAX_STEPS {
            return text_error(format!("`steps` may be at most {MAX_STEPS}"));
        }
        if args.delay_ms > MAX_DELAY_MS {
            return text_error(format!("`delay_ms` may be at most {MAX_DELAY_MS}"));
        }
        let delay = Duration::from_millis(args.delay_ms);
        let token = context.meta.get_progress_token();
        for step in 1..=args.steps.max(1) {
            if !delay.is_zero() {
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    () = context.ct.cancelled() => return text_error("cancelled"),
                }
            }
            if args.steps == 0 {
                break;
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_total(f64::from(args.steps))
                    .with_message(format!("step {step} of {}", args.steps));
                if let Err(error) = context.peer.notify_progress(progress).await {
                    // The client is gone; finishing the loop would only talk to nobody.
                    tracing::debug!(%error, "could not send progress");
                    return text_error("the client went away");
                }
            }
        }
        CallToolResult::success(vec![ContentBlock::text(args.text)])
    }

    /// A random integer between `min` and `max`, both included. Not suitable for secrets.
    #[tool(annotations(
        title = "Random number",
        read_only_hint = true,
        open_world_hint = false
    ))]
    async fn random_number(
        &self,
        Parameters(args): Parameters<RandomNumberArgs>,
    ) -> CallToolResult {
        if args.min > args.max {
            return text_error(format!(
                "`min` ({}) is larger than `max` ({})",
                args.min, args.max
            ));
        }
        let value = pick_in_range(args.min, args.max, random_u64());
        let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
        result.structured_content = Some(json!({ "result": value }));
        result
    }
}

fn text_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// Integers stay integers in JSON (`3`, not `3.0`) as long as they are exact.
fn json_number(value: f64) -> serde_json::Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if value.fract() == 0.0 && value.abs() < EXACT {
        json!(value as i64)
    } else {
        json!(value)
    }
}

/// 64 unpredictable-enough bits without a `rand` dependency: every `RandomState` is keyed from
/// the operating system's randomness (then perturbed per instance), and SipHash of those keys is
/// uniformly distributed. Good for a demo, not for anything secret.
fn random_u64() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    hasher.finish()
}

/// Maps 64 random bits onto `[min, max]` by a widening multiply (Lemire, without the rejection
/// step): each value's probability is off by at most 2^-64, which a demo can live with.
fn pick_in_range(min: i64, max: i64, bits: u64) -> i64 {
    let span = (i128::from(max) - i128::from(min) + 1) as u128; // 1 ..= 2^64
    let offset = (u128::from(bits) * span) >> 64;
    (i128::from(min) + offset as i128) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_stay_in_range_at_the_extremes() {
        for bits in [0, 1, u64::MAX / 2, u64::MAX] {
            let v = pick_in_range(1, 6, bits);
            assert!((1..=6).contains(&v), "{v}");
            assert_eq!(pick_in_range(7, 7, bits), 7);
            let _ = pick_in_range(i64::MIN, i64::MAX, bits);
        }
        assert_eq!(pick_in_range(1, 6, 0), 1);
        assert_eq!(pick_in_range(1, 6, u64::MAX), 6);
        assert_eq!(pick_in_range(i64::MIN, i64::MAX, 0), i64::MIN);
        assert_eq!(pick_in_range(i64::MIN, i64::MAX, u64::MAX), i64::MAX);
    }

    #[test]
    fn integers_stay_integers_in_json() {
        assert_eq!(json_number(3.0), json!(3));
        assert_eq!(json_number(-2.0), json!(-2));
        assert_eq!(json_number(2.5), json!(2.5));
        assert_eq!(json_number(1e300), json!(1e300));
    }
}
