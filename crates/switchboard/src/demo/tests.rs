//! The demo server spoken to by a real rmcp client over an in-memory duplex pipe.

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ProgressNotificationParam, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::DemoServer;

/// A client that forwards every progress notification to the test.
struct ProgressRecorder(mpsc::UnboundedSender<ProgressNotificationParam>);

impl ClientHandler for ProgressRecorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params);
    }
}

type Client = RunningService<RoleClient, ProgressRecorder>;

async fn connect() -> (Client, mpsc::UnboundedReceiver<ProgressNotificationParam>) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = DemoServer::new().serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, rx) = mpsc::unbounded_channel();
    let client = ProgressRecorder(tx).serve(client_io).await.unwrap();
    (client, rx)
}

async fn call(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap()
}

fn text(result: &CallToolResult) -> &str {
    result.content[0]
        .as_text()
        .map(|t| t.text.as_str())
        .unwrap()
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools.iter().find(|t| t.name == name).unwrap()
}

#[tokio::test]
async fn lists_tools_with_schemas_and_annotations() {
    let (client, _) = connect().await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "switchboard-demo");
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["calculate", "current_time", "echo", "random_number"]
    );

    let calculate = tool(&tools, "calculate");
    assert_eq!(calculate.input_schema["required"], json!(["expression"]));
    assert_eq!(
        calculate.input_schema["properties"]["expression"]["type"],
        "string"
    );
    assert!(
        calculate
            .description
            .as_deref()
            .unwrap()
            .contains("arithmetic")
    );
    let hints = calculate.annotations.as_ref().unwrap();
    assert_eq!(hints.read_only_hint, Some(true));
    assert_eq!(hints.idempotent_hint, Some(true));

    let echo = tool(&tools, "echo");
    assert_eq!(echo.input_schema["required"], json!(["text"]));
    let time = tool(&tools, "current_time");
    assert_eq!(
        time.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn calculate_evaluates_and_reports_bad_input_as_tool_errors() {
    let (client, _) = connect().await;
    let ok = call(
        &client,
        "calculate",
        json!({"expression": "(1.5 + 2) * -3"}),
    )
    .await;
    assert_ne!(ok.is_error, Some(true));
    assert_eq!(text(&ok), "-10.5");
    assert_eq!(ok.structured_content, Some(json!({"result": -10.5})));

    let whole = call(&client, "calculate", json!({"expression": "6 * 7"})).await;
    assert_eq!(whole.structured_content, Some(json!({"result": 42})));

    let bad = call(&client, "calculate", json!({"expression": "1 / (2 - 2)"})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("division by zero"), "{}", text(&bad));

    let hostile = call(
        &client,
        "calculate",
        json!({"expression": "__import__('os')"}),
    )
    .await;
    assert_eq!(hostile.is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn missing_arguments_are_reported_to_the_caller() {
    let (client, _) = connect().await;
    // rmcp turns arguments that do not fit the schema into an `isError` result.
    let result = client
        .call_tool(CallToolRequestParams::new("calculate"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).contains("expression"), "{}", text(&result));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn current_time_is_structured() {
    let (client, _) = connect().await;
    let result = call(&client, "current_time", json!({})).await;
    let value = result.structured_content.unwrap();
    let utc = value["utc"].as_str().unwrap();
    assert_eq!(utc.len(), "2024-01-01T00:00:00Z".len());
    assert!(utc.ends_with('Z') && utc.as_bytes()[10] == b'T', "{utc}");
    assert!(value["unix"].as_i64().unwrap() > 1_700_000_000);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn echo_reports_progress_step_by_step() {
    let (client, mut progress) = connect().await;
    let result = call(&client, "echo", json!({"text": "hello", "steps": 3})).await;
    assert_eq!(text(&result), "hello");
    // rmcp hands each notification to its own task, so they may be observed out of order.
    let mut notes = Vec::new();
    for _ in 0..3 {
        let note = tokio::time::timeout(Duration::from_secs(10), progress.recv())
            .await
            .unwrap()
            .unwrap();
        notes.push(note);
    }
    notes.sort_by(|a, b| a.progress.total_cmp(&b.progress));
    for (note, step) in notes.iter().zip(1..=3) {
        assert_eq!(note.progress, f64::from(step));
        assert_eq!(note.total, Some(3.0));
        assert_eq!(
            note.message.as_deref(),
            Some(format!("step {step} of 3").as_str())
        );
    }

    let plain = call(&client, "echo", json!({"text": "again"})).await;
    assert_eq!(text(&plain), "again");
    let too_many = call(&client, "echo", json!({"text": "x", "steps": 1_000_000})).await;
    assert_eq!(too_many.is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn random_number_stays_in_range() {
    let (client, _) = connect().await;
    for _ in 0..20 {
        let result = call(&client, "random_number", json!({"min": -2, "max": 2})).await;
        let value = result.structured_content.unwrap()["result"]
            .as_i64()
            .unwrap();
        assert!((-2..=2).contains(&value), "{value}");
    }
    let bad = call(&client, "random_number", json!({"min": 5, "max": 1})).await;
    assert_eq!(bad.is_error, Some(true));
    client.cancel().await.unwrap();
}
