//! Prometheus metrics (seed 003 section 9.3): tool calls by server, tool and outcome; call
//! latency; the proxy's outcomes (its error rate is `error / (ok + error)`); schema conversion
//! failures; LLM latency. A registry owned by the application state, not a global recorder.
//! Labels carry server ids, tool names and outcomes only: never arguments or secrets.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    server: String,
    tool: String,
    outcome: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    server: String,
    tool: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
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
    tool_call_seconds: Histograms<ToolLabels>,
    proxy_requests: Family<OutcomeLabels, Counter>,
    schema_failures: Family<ToolLabels, Counter>,
    llm_seconds: Histograms<LlmLabels>,
}

/// 1 ms to about a minute.
fn call_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
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
        let tool_call_seconds: Histograms<ToolLabels> =
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
        let schema_failures = Family::<ToolLabels, Counter>::default();
        registry.register(
            "schema_conversion_failures",
            "Tools left out of a run because their schema does not convert for the provider",
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
            schema_failures,
            llm_seconds,
        }
    }

    /// One tool call: `outcome` is `ok`, `tool_error` or an error code.
    pub fn record_tool_call(&self, server: &str, tool: &str, outcome: &str, elapsed: Duration) {
        self.tool_calls
            .get_or_create(&CallLabels {
                server: server.to_owned(),
                tool: tool.to_owned(),
                outcome: outcome.to_owned(),
            })
            .inc();
        self.tool_call_seconds
            .get_or_create(&ToolLabels {
                server: server.to_owned(),
                tool: tool.to_owned(),
            })
            .observe(elapsed.as_secs_f64());
    }

    pub fn record_proxy(&self, ok: bool) {
        let outcome = if ok { "ok" } else { "error" };
        self.proxy_requests
            .get_or_create(&OutcomeLabels {
                outcome: outcome.to_owned(),
            })
            .inc();
    }

    pub fn record_schema_failure(&self, server: &str, tool: &str) {
        self.schema_failures
            .get_or_create(&ToolLabels {
                server: server.to_owned(),
                tool: tool.to_owned(),
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
        metrics.record_proxy(true);
        metrics.record_proxy(false);
        metrics.record_schema_failure("files", "weird");
        metrics.record_llm("openai", true, Duration::from_secs(2));
        let text = metrics.encode().unwrap();
        for line in [
            r#"switchboard_tool_calls_total{server="files",tool="read",outcome="ok"} 2"#,
            r#"switchboard_tool_calls_total{server="files",tool="read",outcome="mcp_timeout"} 1"#,
            r#"switchboard_tool_call_duration_seconds_count{server="files",tool="read"} 3"#,
            r#"switchboard_proxy_requests_total{outcome="ok"} 1"#,
            r#"switchboard_proxy_requests_total{outcome="error"} 1"#,
            r#"switchboard_schema_conversion_failures_total{server="files",tool="weird"} 1"#,
            r#"switchboard_llm_request_duration_seconds_count{provider="openai",outcome="ok"} 1"#,
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
