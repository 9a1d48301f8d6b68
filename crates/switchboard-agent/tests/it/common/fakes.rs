//! In-process stand-ins for the model and the tools, for unit-level loop tests and the
//! overhead benchmark (which must exclude model and tool time). End-to-end tests use the
//! scripted LLM over HTTP and real MCP servers instead.

#![allow(dead_code, clippy::unwrap_used)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::{Value, json};
use switchboard_core::{OwnerId, ServerId, ServerSpec, ToolInfo};
use switchboard_llm::{
    ChatRequest, EventStream, FinishReason, LlmError, Provider, StreamEvent, WireFormat,
};
use switchboard_mcp::{CallOptions, McpError, ServerTools, ToolBackend};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Answer {
    Text(String),
    /// Some text, then the stream breaks.
    Broken(String),
    Calls(Vec<(String, Value)>),
}

/// A provider that replays answers and records requests.
#[derive(Debug, Default)]
pub struct FakeProvider {
    pub answers: Mutex<VecDeque<Answer>>,
    pub requests: Mutex<Vec<ChatRequest>>,
    /// Loop the script forever (benchmarks).
    pub cycle: bool,
    /// Give every call the id `call_0` (servers that send no ids get one per position).
    pub reuse_ids: bool,
    pub calls: Mutex<usize>,
}

impl FakeProvider {
    pub fn new(answers: Vec<Answer>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into()),
            ..Self::default()
        })
    }

    pub fn cycling(answers: Vec<Answer>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into()),
            cycle: true,
            ..Self::default()
        })
    }
}

#[async_trait::async_trait]
impl Provider for FakeProvider {
    fn wire_format(&self) -> WireFormat {
        WireFormat::OpenAi
    }

    async fn stream(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        self.requests.lock().unwrap().push(request.clone());
        let answer = {
            let mut answers = self.answers.lock().unwrap();
            let answer = answers
                .pop_front()
                .ok_or_else(|| LlmError::Protocol("script ran out".into()))?;
            if self.cycle {
                answers.push_back(answer.clone());
            }
            answer
        };
        let mut n = self.calls.lock().unwrap();
        *n += 1;
        let events: Vec<Result<StreamEvent, LlmError>> = match answer {
            Answer::Broken(text) => vec![
                Ok(StreamEvent::TextDelta { text }),
                Err(LlmError::Protocol("the connection broke".into())),
            ],
            Answer::Text(text) => vec![
                Ok(StreamEvent::TextDelta { text }),
                Ok(StreamEvent::Finish {
                    reason: FinishReason::Stop,
                }),
            ],
            Answer::Calls(calls) => {
                let mut events = Vec::new();
                for (index, (name, arguments)) in calls.into_iter().enumerate() {
                    events.push(Ok(StreamEvent::ToolCallStart {
                        index,
                        id: if self.reuse_ids {
                            format!("call_{index}")
                        } else {
                            format!("call_{}_{index}", *n)
                        },
                        name,
                    }));
                    events.push(Ok(StreamEvent::ToolCallDelta {
                        index,
                        arguments: arguments.to_string(),
                    }));
                    events.push(Ok(StreamEvent::ToolCallEnd { index }));
                }
                events.push(Ok(StreamEvent::Finish {
                    reason: FinishReason::ToolCalls,
                }));
                events
            }
        };
        Ok(Box::pin(futures::stream::iter(events)))
    }
}

/// Tools that answer at once: `echo` returns its `text`.
#[derive(Debug, Default)]
pub struct FakeBackend {
    pub calls: Mutex<Vec<(String, JsonObject)>>,
    /// Also offer `broken`, whose schema (a string, not an object) no provider can take.
    pub with_broken_tool: bool,
}

/// A SQLite store in `dir` (a test's temporary directory), and its local admin.
pub async fn local_store(dir: &std::path::Path) -> (Arc<dyn switchboard_store::Store>, OwnerId) {
    let config = switchboard_store::StoreConfig::in_dir(dir);
    let store = switchboard_store::open(&config).await.unwrap();
    let owner = store
        .ensure_user(&OwnerId::local(), "local", switchboard_store::Role::Admin)
        .await
        .unwrap()
        .id;
    (store, owner)
}

pub fn echo_server() -> ServerSpec {
    ServerSpec::stdio("fake", "fake", Vec::<String>::new())
}

pub fn echo_tool() -> ToolInfo {
    ToolInfo {
        server_id: ServerId("fake".into()),
        name: "echo".into(),
        title: None,
        description: Some("Echoes text".into()),
        input_schema: json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        })
        .as_object()
        .cloned()
        .unwrap(),
        output_schema: None,
        annotations: Default::default(),
        icons: Vec::new(),
        meta: None,
        tasks: None,
    }
}

impl ToolBackend for FakeBackend {
    fn tools<'a>(
        &'a self,
        _owner: &'a OwnerId,
        servers: &'a [ServerSpec],
    ) -> BoxFuture<'a, Vec<ServerTools>> {
        Box::pin(async move {
            servers
                .iter()
                .map(|s| {
                    let mut tools = vec![echo_tool()];
                    if self.with_broken_tool {
                        let mut broken = echo_tool();
                        broken.name = "broken".into();
                        broken.input_schema =
                            json!({"type": "string"}).as_object().cloned().unwrap();
                        tools.push(broken);
                    }
                    (s.clone(), Ok(Arc::new(tools)))
                })
                .collect()
        })
    }

    fn call<'a>(
        &'a self,
        _owner: &'a OwnerId,
        _server: &'a ServerSpec,
        tool: &'a str,
        arguments: Option<JsonObject>,
        _options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        Box::pin(async move {
            let arguments = arguments.unwrap_or_default();
            self.calls
                .lock()
                .unwrap()
                .push((tool.to_owned(), arguments.clone()));
            let text = arguments
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
    }
}
