//! Helpers shared by the integration tests: a manager with test-sized timeouts, specs for the
//! pinned peers, and readers for tool results.

#![allow(dead_code)]

use std::time::Duration;

use rmcp::model::{CallToolResult, JsonObject};
use switchboard_core::{OwnerId, ServerSpec, TransportKind};
use switchboard_mcp::{ConnectionManager, ManagerConfig};
use switchboard_testkit::StdioCommand;

pub fn config() -> ManagerConfig {
    ManagerConfig {
        connect_timeout: Duration::from_secs(20),
        call_timeout: Duration::from_secs(20),
        retry: switchboard_mcp::RetryPolicy {
            initial_delay: Duration::from_millis(100),
            ..switchboard_mcp::RetryPolicy::default()
        },
        shutdown_grace: Duration::from_millis(200),
        ..ManagerConfig::default()
    }
}

pub fn manager() -> ConnectionManager {
    init_tracing();
    ConnectionManager::new(config())
}

/// Logs to the test's captured output, filtered by `RUST_LOG`.
pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
}

pub fn owner() -> OwnerId {
    OwnerId::local()
}

pub fn stdio_spec(name: &str, command: &StdioCommand) -> ServerSpec {
    let mut spec = ServerSpec::stdio(name, command.program.clone(), command.args.clone());
    for (key, value) in &command.env {
        spec.env.insert(key.clone(), value.clone());
    }
    spec
}

pub fn http_spec(name: &str, url: &str, transport: TransportKind) -> ServerSpec {
    ServerSpec::http(name, url, Some(transport))
}

pub fn script(name: &str) -> StdioCommand {
    StdioCommand {
        program: "python3".into(),
        args: vec![format!("{}/tests/peers/{name}", env!("CARGO_MANIFEST_DIR"))],
        env: Vec::new(),
    }
}

pub fn args(value: serde_json::Value) -> Option<JsonObject> {
    match value {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The text of every text block of a result, joined.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("")
}

pub fn has_image(result: &CallToolResult) -> bool {
    result
        .content
        .iter()
        .filter_map(|c| c.as_image())
        .any(|i| i.mime_type == "image/png" && !i.data.is_empty())
}

/// Asks a Python peer's `cancelled_count` until it reports one cancelled call. The server
/// handles `notifications/cancelled` asynchronously, so the first answers may still say 0;
/// each ask is a round trip, not a sleep.
pub async fn assert_server_saw_one_cancellation(m: &ConnectionManager, spec: &ServerSpec) {
    let mut seen = String::new();
    for _ in 0..50 {
        let result = m
            .call_tool(&owner(), spec, "cancelled_count", None, Default::default())
            .await
            .expect("cancelled_count");
        seen = text(&result);
        if seen.trim() == "1" {
            return;
        }
    }
    panic!("the server saw no cancellation: cancelled_count is {seen}");
}
