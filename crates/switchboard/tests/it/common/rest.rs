//! The REST API of a `serve` child: requests with its token, MCP server bodies, waiting on a
//! condition with a bound, and reading the event stream.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::future::Future;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::{ScriptedLlm, StdioCommand};

use super::BIN;
use super::serve::Served;

/// How long a condition may take to hold before the test fails.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// One request; the answer's status and JSON body (null when it has none).
pub async fn send(
    served: &Served,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (reqwest::StatusCode, Value) {
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", served.base));
    if let Some(body) = body {
        request = request.json(&body);
    }
    if let Some(token) = &served.token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

/// Stores an OpenAI-format provider answered by `llm`; returns it as the API answered.
pub async fn add_provider(served: &Served, llm: &ScriptedLlm) -> Value {
    let (status, provider) = send(
        served,
        Method::POST,
        "/api/providers",
        Some(
            json!({"name": "scripted", "kind": "openai", "baseUrl": llm.openai_base_url(),
               "apiKey": "k", "defaultModel": "m"}),
        ),
    )
    .await;
    assert_eq!(status, 201, "{provider}");
    provider
}

/// Enables `tool` of `server` and lets it run without asking.
pub async fn auto_approve(served: &Served, server: &str, tool: &str) {
    let (status, set) = send(
        served,
        Method::PUT,
        &format!("/api/mcp-servers/{server}/tools/{tool}"),
        Some(json!({"enabled": true, "autoApprove": true})),
    )
    .await;
    assert_eq!(status, 200, "{set}");
}

/// The body of a stdio server, on `node` when given.
pub fn stdio_body(name: &str, command: &StdioCommand, node: Option<&str>) -> Value {
    let mut body = json!({
        "name": name,
        "transport": "stdio",
        "command": command.program,
        "args": command.args,
        "env": command.env.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
        "headers": {},
    });
    if let Some(node) = node {
        body["node"] = json!(node);
    }
    body
}

/// This binary's demo server (`switchboard demo-server`) as a stdio command.
pub fn demo_command() -> StdioCommand {
    StdioCommand {
        program: BIN.to_owned(),
        args: vec!["demo-server".to_owned()],
        env: Vec::new(),
    }
}

/// The body of a remote server (`transport`: `streamable_http` or `sse`) on `node`.
pub fn remote_body(name: &str, transport: &str, url: &str, node: Option<&str>) -> Value {
    let mut body = json!({"name": name, "transport": transport, "url": url, "headers": {}});
    if let Some(node) = node {
        body["node"] = json!(node);
    }
    body
}

/// Saves a server; returns its id.
pub async fn create_server(served: &Served, body: Value) -> String {
    let (status, server) = send(served, Method::POST, "/api/mcp-servers", Some(body)).await;
    assert_eq!(status, 201, "{server}");
    server["id"].as_str().unwrap().to_owned()
}

/// Calls a tool through `POST /api/mcp/tools/call`.
pub async fn call_tool(
    served: &Served,
    server: &str,
    tool: &str,
    arguments: Value,
) -> (reqwest::StatusCode, Value) {
    send(
        served,
        Method::POST,
        "/api/mcp/tools/call",
        Some(json!({"serverId": server, "toolName": tool, "arguments": arguments})),
    )
    .await
}

/// The text of an MCP result's content.
pub fn result_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content: {result}"))
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

/// A server's health as the API answers it.
pub async fn health(served: &Served, server: &str) -> Value {
    let (status, health) = send(
        served,
        Method::GET,
        &format!("/api/mcp-servers/{server}/health"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{health}");
    health
}

/// Polls `check` every 20 ms until it returns `Some`, for at most [`PATIENCE`]; panics with
/// `what` and the last value seen otherwise.
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        match check().await {
            Ok(value) => return value,
            Err(last) if tokio::time::Instant::now() >= deadline => {
                panic!("{what} did not happen within {PATIENCE:?}; last seen: {last}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// An open `GET /api/events` stream.
pub struct Events {
    response: reqwest::Response,
    text: String,
}

impl Events {
    pub async fn open(served: &Served) -> Events {
        let mut request = reqwest::Client::new().get(format!("{}/api/events", served.base));
        if let Some(token) = &served.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        Events {
            response,
            text: String::new(),
        }
    }

    /// Reads until an event of type `kind` whose data satisfies `matches`; returns its data.
    pub async fn until(&mut self, kind: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let read = async {
            loop {
                while let Some(end) = self.text.find("\n\n") {
                    let block: String = self.text.drain(..end + 2).collect();
                    let event = block.lines().find_map(|l| l.strip_prefix("event: "));
                    let data = block.lines().find_map(|l| l.strip_prefix("data: "));
                    if let (Some(event), Some(data)) = (event, data) {
                        let data: Value = serde_json::from_str(data).unwrap();
                        if event == kind && matches(&data) {
                            return data;
                        }
                    }
                }
                let chunk = self
                    .response
                    .chunk()
                    .await
                    .unwrap()
                    .unwrap_or_else(|| panic!("the event stream ended before {kind}"));
                self.text.push_str(&String::from_utf8_lossy(&chunk));
            }
        };
        tokio::time::timeout(PATIENCE, read)
            .await
            .unwrap_or_else(|_| panic!("no {kind} event within {PATIENCE:?}"))
    }
}
