//! A tool backend and an LLM provider that report to [`Metrics`]: every tool call (the
//! agent's and the API's go through the same backend) and every model call is timed and
//! counted by outcome; the results pass through unchanged.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::Stream;
use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, JsonObject};
use switchboard_core::{OwnerId, ServerSpec, ToolInfo};
use switchboard_llm::{ChatRequest, EventStream, LlmError, Provider, StreamEvent, WireFormat};
use switchboard_mcp::{CallOptions, McpError, ServerTools, ToolBackend};

use crate::metrics::Metrics;

/// The outcome label of a tool call.
fn outcome(result: &Result<CallToolResult, McpError>) -> String {
    match result {
        Ok(answer) if answer.is_error == Some(true) => "tool_error".to_owned(),
        Ok(_) => "ok".to_owned(),
        Err(error) => error.code().as_str().to_ascii_lowercase(),
    }
}

/// A [`ToolBackend`] that times and counts every call.
pub struct MeteredBackend {
    inner: Arc<dyn ToolBackend>,
    metrics: Arc<Metrics>,
}

impl MeteredBackend {
    pub fn new(inner: Arc<dyn ToolBackend>, metrics: Arc<Metrics>) -> Self {
        Self { inner, metrics }
    }
}

impl ToolBackend for MeteredBackend {
    fn tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        servers: &'a [ServerSpec],
    ) -> BoxFuture<'a, Vec<ServerTools>> {
        self.inner.tools(owner, servers)
    }

    fn server_tools<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Arc<Vec<ToolInfo>>, McpError>> {
        self.inner.server_tools(owner, server)
    }

    fn call<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        Box::pin(async move {
            let started = Instant::now();
            let result = self
                .inner
                .call(owner, server, tool, arguments, options)
                .await;
            self.metrics
                .record_tool_call(&server.id.0, tool, &outcome(&result), started.elapsed());
            result
        })
    }

    fn start_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<switchboard_mcp::Started, McpError>> {
        Box::pin(async move {
            let started = Instant::now();
            let result = self
                .inner
                .start_task(owner, server, tool, arguments, options)
                .await;
            // A call answered at once is counted as any call is; one that became a task
            // has no answer yet.
            let answered = match &result {
                Ok(switchboard_mcp::Started::Task(_)) => None,
                Ok(switchboard_mcp::Started::Done(done)) if done.is_error == Some(true) => {
                    Some("tool_error".to_owned())
                }
                Ok(switchboard_mcp::Started::Done(_)) => Some("ok".to_owned()),
                Err(error) => Some(error.code().as_str().to_ascii_lowercase()),
            };
            if let Some(answered) = answered {
                self.metrics
                    .record_tool_call(&server.id.0, tool, &answered, started.elapsed());
            }
            result
        })
    }

    fn task_state<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: switchboard_mcp::TaskStep<'a>,
    ) -> BoxFuture<'a, Result<switchboard_mcp::TaskState, McpError>> {
        self.inner.task_state(owner, server, step)
    }

    fn task_outcome<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: switchboard_mcp::TaskStep<'a>,
        options: CallOptions,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        self.inner.task_outcome(owner, server, step, options, wait)
    }

    fn cancel_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: switchboard_mcp::TaskStep<'a>,
    ) -> BoxFuture<'a, Result<switchboard_mcp::TaskState, McpError>> {
        self.inner.cancel_task(owner, server, step)
    }

    fn update_task<'a>(
        &'a self,
        owner: &'a OwnerId,
        server: &'a ServerSpec,
        step: switchboard_mcp::TaskStep<'a>,
        responses: rmcp::model::InputResponses,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        self.inner.update_task(owner, server, step, responses)
    }
}

/// A [`Provider`] whose calls are timed from the request to the end of the streamed answer.
#[derive(Debug)]
pub struct MeteredProvider {
    inner: Arc<dyn Provider>,
    metrics: Arc<Metrics>,
}

impl MeteredProvider {
    pub fn new(inner: Arc<dyn Provider>, metrics: Arc<Metrics>) -> Self {
        Self { inner, metrics }
    }
}

fn provider_label(wire: WireFormat) -> &'static str {
    match wire {
        WireFormat::OpenAi => "openai",
        WireFormat::Anthropic => "anthropic",
    }
}

#[async_trait::async_trait]
impl Provider for MeteredProvider {
    fn wire_format(&self) -> WireFormat {
        self.inner.wire_format()
    }

    async fn stream(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        let started = Instant::now();
        let label = provider_label(self.inner.wire_format());
        match self.inner.stream(request).await {
            Ok(events) => Ok(Box::pin(Timed {
                events,
                report: Some(Report {
                    metrics: Arc::clone(&self.metrics),
                    label,
                    started,
                }),
                ok: true,
            })),
            Err(error) => {
                self.metrics.record_llm(label, false, started.elapsed());
                Err(error)
            }
        }
    }
}

struct Report {
    metrics: Arc<Metrics>,
    label: &'static str,
    started: Instant,
}

impl Report {
    fn send(self, ok: bool) -> Duration {
        let elapsed = self.started.elapsed();
        self.metrics.record_llm(self.label, ok, elapsed);
        elapsed
    }
}

/// The answer's events, reporting once when they end (or fail, or are dropped unfinished).
struct Timed {
    events: EventStream,
    report: Option<Report>,
    ok: bool,
}

impl Stream for Timed {
    type Item = Result<StreamEvent, LlmError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.events.as_mut().poll_next(cx);
        match &polled {
            Poll::Ready(Some(Err(_))) => self.ok = false,
            Poll::Ready(None) => {
                let ok = self.ok;
                if let Some(report) = self.report.take() {
                    report.send(ok);
                }
            }
            _ => {}
        }
        polled
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        // Dropped before its end: cancelled, which is not a success.
        if let Some(report) = self.report.take() {
            report.send(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use rmcp::model::ContentBlock;

    use super::*;

    #[derive(Debug)]
    struct Fake;

    impl ToolBackend for Fake {
        fn tools<'a>(
            &'a self,
            _owner: &'a OwnerId,
            _servers: &'a [ServerSpec],
        ) -> BoxFuture<'a, Vec<ServerTools>> {
            Box::pin(async { Vec::new() })
        }

        fn call<'a>(
            &'a self,
            _owner: &'a OwnerId,
            _server: &'a ServerSpec,
            tool: &'a str,
            _arguments: Option<JsonObject>,
            _options: CallOptions,
        ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
            Box::pin(async move {
                match tool {
                    "good" => Ok(CallToolResult::success(vec![ContentBlock::text("ok")])),
                    "bad" => Ok(CallToolResult::error(vec![ContentBlock::text("no")])),
                    _ => Err(McpError::Cancelled),
                }
            })
        }
    }

    #[async_trait::async_trait]
    impl Provider for Fake {
        fn wire_format(&self) -> WireFormat {
            WireFormat::Anthropic
        }

        async fn stream(&self, _request: &ChatRequest) -> Result<EventStream, LlmError> {
            Ok(Box::pin(futures::stream::iter(vec![Ok(
                StreamEvent::TextDelta { text: "hi".into() },
            )])))
        }
    }

    #[tokio::test]
    async fn calls_are_counted_by_outcome() {
        let metrics = Arc::new(Metrics::new());
        let backend = MeteredBackend::new(Arc::new(Fake), Arc::clone(&metrics));
        let spec = ServerSpec::stdio("files", "x", Vec::<String>::new());
        let owner = OwnerId::local();
        for tool in ["good", "good", "bad", "gone"] {
            let _ = backend
                .call(&owner, &spec, tool, None, CallOptions::default())
                .await;
        }
        let text = metrics.encode().unwrap();
        for line in [
            r#"switchboard_tool_calls_total{server="files",tool="good",outcome="ok"} 2"#,
            r#"switchboard_tool_calls_total{server="files",tool="bad",outcome="tool_error"} 1"#,
            r#"switchboard_tool_calls_total{server="files",tool="gone",outcome="cancelled"} 1"#,
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
    }

    #[tokio::test]
    async fn a_drained_stream_is_timed_once() {
        let metrics = Arc::new(Metrics::new());
        let provider = MeteredProvider::new(Arc::new(Fake), Arc::clone(&metrics));
        let mut events = provider
            .stream(&ChatRequest {
                model: "m".into(),
                system: None,
                messages: Vec::new(),
                tools: Vec::new(),
                max_tokens: None,
                temperature: None,
                native_tool_search: None,
            })
            .await
            .unwrap();
        while events.next().await.is_some() {}
        drop(events);
        let text = metrics.encode().unwrap();
        assert!(
            text.contains(
                r#"switchboard_llm_request_duration_seconds_count{provider="anthropic",outcome="ok"} 1"#
            ),
            "{text}"
        );
    }
}
