//! The built-in demo server, run as the real binary: spoken to directly by an rmcp client over
//! stdio and over Streamable HTTP, and through the `servers test`, `tools list` and `call`
//! commands.

use crate::common;

use std::process::Stdio;

use common::{BIN, Switchboard};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

fn calculate(expression: &str) -> CallToolRequestParams {
    let mut args = serde_json::Map::new();
    args.insert("expression".into(), json!(expression));
    CallToolRequestParams::new("calculate").with_arguments(args)
}

#[tokio::test]
async fn demo_server_over_stdio() {
    let command = tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.arg("demo-server").env_remove("RUST_LOG");
    });
    let transport = TokioChildProcess::new(command).expect("spawn demo-server");
    let client = ().serve(transport).await.expect("handshake");

    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("switchboard-demo")
    );
    let result = client
        .call_tool(calculate("2 * (3 + 4) - 1.5"))
        .await
        .expect("call");
    assert_ne!(result.is_error, Some(true));
    assert_eq!(result.structured_content, Some(json!({"result": 12.5})));
    let text = result.content[0].as_text().map(|t| t.text.as_str());
    assert_eq!(text, Some("12.5"));

    let error = client.call_tool(calculate("1 / 0")).await.expect("call");
    assert_eq!(error.is_error, Some(true));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn demo_server_over_streamable_http() {
    let mut child = tokio::process::Command::new(BIN)
        .args(["demo-server", "--http", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn demo-server --http");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let line = lines
            .next_line()
            .await
            .expect("read stderr")
            .expect("demo-server exited before listening");
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.to_owned();
        }
    };
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    assert!(!url.contains(":0/"), "the real port is printed: {url}");

    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.expect("handshake");
    let tools = client.list_all_tools().await.expect("tools");
    assert_eq!(tools.len(), 4);
    let result = client.call_tool(calculate("6 * 7")).await.expect("call");
    assert_eq!(result.structured_content, Some(json!({"result": 42})));
    client.cancel().await.expect("close");
    child.kill().await.expect("stop demo-server");
}

/// Registers the demo server (this very binary) under the name `demo`.
fn with_demo() -> Switchboard {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "demo",
        "--command",
        BIN,
        "--arg",
        "demo-server",
    ])
    .ok();
    sb
}

#[test]
fn servers_test_shows_the_demo_server() {
    let sb = with_demo();
    let run = sb.run(&["servers", "test", "demo"]).ok();
    assert!(run.stdout.contains("switchboard-demo"), "{run:?}");
    assert!(
        run.stdout
            .contains("4: calculate, current_time, echo, random_number"),
        "{run:?}"
    );
    let json = sb.run(&["servers", "test", "demo", "--json"]).ok().json();
    assert_eq!(json["serverInfo"]["name"], "switchboard-demo");
    assert!(
        json["protocolVersion"]
            .as_str()
            .is_some_and(|v| !v.is_empty())
    );
}

#[test]
fn tools_list_uses_mangled_names() {
    let sb = with_demo();
    let table = sb.run(&["tools", "list"]).ok().stdout;
    assert!(table.starts_with("NAME"), "{table}");
    assert!(table.contains("mcp__demo__calculate"), "{table}");
    let json = sb
        .run(&["tools", "list", "--server", "demo", "--json"])
        .ok()
        .json();
    let tools = json["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 4);
    assert_eq!(json["errors"], json!([]));
    let calculate = tools
        .iter()
        .find(|t| t["tool"] == "calculate")
        .expect("calculate");
    assert_eq!(calculate["name"], "mcp__demo__calculate");
    assert_eq!(calculate["server"], "demo");
}

#[test]
fn call_prints_results_and_tool_errors() {
    let sb = with_demo();
    let ok = sb
        .run(&[
            "call",
            "demo",
            "calculate",
            "--args",
            r#"{"expression": "6 * 7"}"#,
        ])
        .ok();
    assert_eq!(ok.stdout, "42\n");

    let json = sb
        .run(&[
            "call",
            "demo",
            "calculate",
            "--args",
            r#"{"expression": "1+1"}"#,
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(json["structuredContent"], json!({"result": 2}));

    let failed = sb
        .run(&[
            "call",
            "demo",
            "calculate",
            "--args",
            r#"{"expression": "1/0"}"#,
        ])
        .failed();
    assert!(failed.stdout.contains("division by zero"), "{failed:?}");
    assert!(
        failed.stderr.contains("error MCP_EXECUTION_ERROR"),
        "{failed:?}"
    );

    // rmcp hands each notification to its own task, and the manager stops forwarding a call's
    // progress when the call ends, so the report sent right before the result can be lost.
    // The first one is followed by a 100 ms pause on the server before anything else.
    let progress = sb
        .run(&[
            "call",
            "demo",
            "echo",
            "--args",
            r#"{"text": "hi", "steps": 2, "delay_ms": 100}"#,
        ])
        .ok();
    assert_eq!(progress.stdout, "hi\n");
    assert!(
        progress.stderr.contains("progress 1/2: step 1 of 2"),
        "{progress:?}"
    );
}

#[test]
fn a_disabled_server_can_be_tested_but_not_called() {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "off",
        "--command",
        BIN,
        "--arg",
        "demo-server",
        "--disabled",
    ])
    .ok();
    let tested = sb.run(&["servers", "test", "off"]).ok();
    assert!(tested.stdout.contains("switchboard-demo"), "{tested:?}");
    let called = sb
        .run(&[
            "call",
            "off",
            "echo",
            "--args",
            r#"{"text": "x"}"#,
            "--json",
        ])
        .failed();
    // A disabled server offers no tool, at the command line as everywhere else.
    let answer = called.json();
    assert_eq!(answer["code"], "MCP_TOOL_NOT_FOUND", "{called:?}");
    let message = answer["message"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("no enabled tool"), "{called:?}");
    let listed = sb.run(&["tools", "list"]).ok();
    assert!(listed.stdout.contains("no tools"), "{listed:?}");
}

/// `call` goes through the tool-call service: arguments that do not fit the tool's schema are
/// refused before anything is sent (as the REST proxy refuses them), and every call leaves an
/// audit record under the command line's caller kind.
#[tokio::test]
async fn call_checks_arguments_and_leaves_an_audit_record() {
    use switchboard_core::OwnerId;
    use switchboard_store::{AuditOutcome, CallerKind, StoreConfig};

    let sb = with_demo();
    let refused = sb
        .run(&[
            "call",
            "demo",
            "calculate",
            "--args",
            r#"{"expression": 42}"#,
            "--json",
        ])
        .failed();
    assert_eq!(refused.json()["code"], "MCP_INVALID_PARAMS", "{refused:?}");
    let ok = sb
        .run(&[
            "call",
            "demo",
            "calculate",
            "--args",
            r#"{"expression": "6 * 7"}"#,
        ])
        .ok();
    assert_eq!(ok.stdout, "42\n");

    let store = switchboard_store::open(&StoreConfig::in_dir(sb.data_dir()))
        .await
        .expect("open the store");
    let records = store
        .tool_call_audit(&OwnerId::local(), 10)
        .await
        .expect("audit");
    store.close().await;
    assert_eq!(records.len(), 2, "{records:#?}");
    assert!(
        records.iter().all(|r| r.caller == CallerKind::Cli),
        "{records:#?}"
    );
    assert!(
        records.iter().all(|r| r.tool == "calculate"),
        "{records:#?}"
    );
    assert_eq!(records[0].outcome, AuditOutcome::Ok, "newest first");
    assert_eq!(
        records[1].outcome,
        AuditOutcome::Error(switchboard_core::ErrorCode::McpInvalidParams)
    );
}
