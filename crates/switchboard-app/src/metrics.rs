//! Prometheus metrics (seed 003 section 9.3): tool calls by server, tool and outcome; call
//! latency; the proxy's outcomes and latency; schema conversion attempts and failures; LLM
//! latency. A registry owned by the application state, not a global recorder. Labels carry
//! server ids, tool names, error codes and outcomes only: never arguments or secrets.
//!
//! Seed 003's three alerts are computable from these series:
//! - proxy error rate > 5%: `rate(switchboard_proxy_requests_total{outcome="error"}[5m]) /
//!   rate(switchboard_proxy_requests_total[5m])` (`switchboard_proxy_errors_total` says which
//!   error codes);
//! - proxy p99 > 3 s: `histogram_quantile(0.99,
//!   rate(switchboard_proxy_request_duration_seconds_bucket[5m]))`, with buckets every half
//!   second from 1 s to 5 s so the quantile near 3 s is not a guess between 2 s and 4 s;
//! - schema conversion failure rate > 1%:
//!   `rate(switchboard_schema_conversion_failures_total[5m]) /
//!   rate(switchboard_schema_conversions_total[5m])`.
//!
//! Tool names are the upstreams' to choose, so they are labels only through
//! [`crate::tool_labels`]: bounded in length and in number per server.
//!
//! Both proxy paths (`/api/mcp/proxy/...` and seed 003's `/api/agent-retrieval/...`) run the
//! same handler, so both are counted.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::tool_labels::ToolLabels;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    server: String,
    tool: String,
    outcome: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabelSet {
    server: String,
    tool: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CodeLabels {
    code: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SourceLabels {
    source: String,
}

/// Where a tool schema was converted: for a run's model request, or for seed 003's action
/// recall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConversionSource {
    Run,
    ActionRecall,
}

impl ConversionSource {
    fn as_str(self) -> &'static str {
        match self {
            ConversionSource::Run => "run",
            ConversionSource::ActionRecall => "action_recall",
        }
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LlmLabels {
    provider: String,
    outcome: String,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// The application's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    tool_calls: Family<CallLabels, Counter>,
    tool_call_seconds: Histograms<ToolLabelSet>,
    proxy_requests: Family<OutcomeLabels, Counter>,
    proxy_errors: Family<CodeLabels, Counter>,
    proxy_seconds: Histograms<OutcomeLabels>,
    schema_conversions: Family<SourceLabels, Counter>,
    schema_failures: Family<ToolLabelSet, Counter>,
    llm_seconds: Histograms<LlmLabels>,
    tool_labels: ToolLabels,
}

/// 1 ms to about a minute.
fn call_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

/// 5 ms to a minute, every half second between 1 s and 5 s: seed 003 alerts on a p99 over
/// 3 s, and `histogram_quantile` interpolates within a bucket.
fn proxy_buckets() -> Histogram {
    Histogram::new([
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5,
        5.0, 7.5, 10.0, 20.0, 30.0, 60.0,
    ])
}

/// 50 ms to about 7 minutes.
fn llm_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.05, 2.0, 14))
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("switchboard");
        let tool_calls = Family::<CallLabels, Counter>::default();
        registry.register(
            "tool_calls",
            "MCP tool calls by server, tool and outcome (ok, tool_error, or an error code)",
            tool_calls.clone(),
        );
        let tool_call_seconds: Histograms<ToolLabelSet> =
            Family::new_with_constructor(call_buckets as fn() -> Histogram);
        registry.register(
            "tool_call_duration_seconds",
            "MCP tool call latency",
            tool_call_seconds.clone(),
        );
        let proxy_requests = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "proxy_requests",
            "Calls of the flat-parameter proxy by outcome (ok or error)",
            proxy_requests.clone(),
        );
        let proxy_errors = Family::<CodeLabels, Counter>::default();
        registry.register(
            "proxy_errors",
            "Failed calls of the flat-parameter proxy by error code",
            proxy_errors.clone(),
        );
        let proxy_seconds: Histograms<OutcomeLabels> =
            Family::new_with_constructor(proxy_buckets as fn() -> Histogram);
        registry.register(
            "proxy_request_duration_seconds",
            "Latency of the flat-parameter proxy, from the request to the answer, by outcome",
            proxy_seconds.clone(),
        );
        let schema_conversions = Family::<SourceLabels, Counter>::default();
        registry.register(
            "schema_conversions",
            "Tool schemas converted for a provider dialect (attempts), by where: run or \
             action_recall",
            schema_conversions.clone(),
        );
        let schema_failures = Family::<ToolLabelSet, Counter>::default();
        registry.register(
            "schema_conversion_failures",
            "Tool schemas that did not convert for the provider dialect (left out of a run, or \
             an action recall answered SCHEMA_ERROR)",
            schema_failures.clone(),
        );
        let llm_seconds: Histograms<LlmLabels> =
            Family::new_with_constructor(llm_buckets as fn() -> Histogram);
        registry.register(
            "llm_request_duration_seconds",
            "LLM calls, from the request to the end of the streamed answer",
            llm_seconds.clone(),
        );
        Self {
            registry,
            tool_calls,
            tool_call_seconds,
            proxy_requests,
            proxy_errors,
            proxy_seconds,
            schema_conversions,
            schema_failures,
            llm_seconds,
            tool_labels: ToolLabels::default(),
        }
    }

    /// One tool call: `outcome` is `ok`, `tool_error` or an error code.
    pub fn record_tool_call(&self, server: &str, tool: &str, outcome: &str, elapsed: Duration) {
        let tool = self.tool_labels.label(server, tool);
        self.tool_calls
            .get_or_create(&CallLabels {
                server: server.to_owned(),
                tool: tool.clone(),
                outcome: outcome.to_owned(),
            })
            .inc();
        self.tool_call_seconds
            .get_or_create(&ToolLabelSet {
                server: server.to_owned(),
                tool,
            })
            .observe(elapsed.as_secs_f64());
    }

    /// One call of the proxy: `error` is the code it answered with, `None` when it answered
    /// the tool's result (a tool's own error result is an answer, not a proxy failure).
    pub fn record_proxy(&self, error: Option<&str>, elapsed: Duration) {
        let outcome = OutcomeLabels {
            outcome: if error.is_some() { "error" } else { "ok" }.to_owned(),
        };
        self.proxy_requests.get_or_create(&outcome).inc();
        self.proxy_seconds
            .get_or_create(&outcome)
            .observe(elapsed.as_secs_f64());
        if let Some(code) = error {
            self.proxy_errors
                .get_or_create(&CodeLabels {
                    code: code.to_owned(),
                })
                .inc();
        }
    }

    /// `count` tool schemas are about to be converted.
    pub fn record_schema_conversions(&self, source: ConversionSource, count: usize) {
        self.schema_conversions
            .get_or_create(&SourceLabels {
                source: source.as_str().to_owned(),
            })
            .inc_by(u64::try_from(count).unwrap_or(u64::MAX));
    }

    pub fn record_schema_failure(&self, server: &str, tool: &str) {
        self.schema_failures
            .get_or_create(&ToolLabelSet {
                server: server.to_owned(),
                tool: self.tool_labels.label(server, tool),
            })
            .inc();
    }

    pub fn record_llm(&self, provider: &str, ok: bool, elapsed: Duration) {
        self.llm_seconds
            .get_or_create(&LlmLabels {
                provider: provider.to_owned(),
                outcome: if ok { "ok" } else { "error" }.to_owned(),
            })
            .observe(elapsed.as_secs_f64());
    }

    /// The OpenMetrics text of every metric.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

impl switchboard_agent::AgentObserver for Metrics {
    fn schemas_converted(&self, count: usize) {
        self.record_schema_conversions(ConversionSource::Run, count);
    }

    fn tool_left_out(&self, server: &str, tool: &str) {
        self.record_schema_failure(server, tool);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_series_are_encoded_with_their_labels() {
        let metrics = Metrics::new();
        metrics.record_tool_call("files", "read", "ok", Duration::from_millis(3));
        metrics.record_tool_call("files", "read", "ok", Duration::from_millis(5));
        metrics.record_tool_call("files", "read", "mcp_timeout", Duration::from_secs(30));
        metrics.record_proxy(None, Duration::from_millis(20));
        metrics.record_proxy(Some("MCP_TOOL_NOT_FOUND"), Duration::from_millis(2800));
        metrics.record_schema_conversions(ConversionSource::Run, 3);
        metrics.record_schema_conversions(ConversionSource::ActionRecall, 1);
        metrics.record_schema_failure("files", "weird");
        metrics.record_llm("openai", true, Duration::from_secs(2));
        let text = metrics.encode().unwrap();
        for line in [
            r#"switchboard_tool_calls_total{server="files",tool="read",outcome="ok"} 2"#,
            r#"switchboard_tool_calls_total{server="files",tool="read",outcome="mcp_timeout"} 1"#,
            r#"switchboard_tool_call_duration_seconds_count{server="files",tool="read"} 3"#,
            r#"switchboard_proxy_requests_total{outcome="ok"} 1"#,
            r#"switchboard_proxy_requests_total{outcome="error"} 1"#,
            r#"switchboard_proxy_errors_total{code="MCP_TOOL_NOT_FOUND"} 1"#,
            r#"switchboard_proxy_request_duration_seconds_bucket{le="2.5",outcome="error"} 0"#,
            r#"switchboard_proxy_request_duration_seconds_bucket{le="3.0",outcome="error"} 1"#,
            r#"switchboard_schema_conversions_total{source="run"} 3"#,
            r#"switchboard_schema_conversions_total{source="action_recall"} 1"#,
            r#"switchboard_schema_conversion_failures_total{server="files",tool="weird"} 1"#,
            r#"switchboard_llm_request_duration_seconds_count{provider="openai",outcome="ok"} 1"#,
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
        assert!(text.ends_with("# EOF\n"), "{text}");
    }

    #[test]
    fn an_upstreams_tool_names_cannot_blow_up_the_series() {
        let metrics = Metrics::new();
        let hostile = format!("\u{1b}[2J\0{}", "x".repeat(10_000));
        metrics.record_tool_call("evil", &hostile, "ok", Duration::from_millis(1));
        for i in 0..1_000 {
            metrics.record_tool_call("evil", &format!("t{i}"), "ok", Duration::from_millis(1));
        }
        let text = metrics.encode().unwrap();
        assert!(!text.contains('\u{1b}') && !text.contains('\0'));
        // 1,001 tools with their own series would take about 1.7 MB.
        assert!(text.len() < 1_000_000, "{} bytes", text.len());
        assert!(
            text.contains(r#"tool="_other""#),
            "the rest are counted together"
        );
    }
}
