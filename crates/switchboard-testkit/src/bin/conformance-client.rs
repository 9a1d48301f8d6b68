//! The client under test for the client scenarios of the MCP conformance suite
//! (`@modelcontextprotocol/conformance`, run by `scripts/conformance.sh`).
//!
//! The suite starts a test server per scenario, then runs this binary with the server's URL as
//! its last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`. It judges the
//! client by what reaches the server (its `checks.json`) and by this process's exit code. All
//! traffic goes through [`ConnectionManager`], the client Switchboard itself uses, so a passing
//! scenario says something about our code rather than about a test-only client.
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call conformance-client http://localhost:PORT/mcp
//! ```

use std::process::ExitCode;

use anyhow::{Context, Result, bail, ensure};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};
use switchboard_core::{OwnerId, ServerSpec, TransportKind};
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig};

/// The scenarios this driver knows how to play. The suite's others need OAuth flows or
/// elicitation answers, which Switchboard's client does not offer.
const SCENARIOS: &[&str] = &["initialize", "tools_call", "sse-retry"];

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-client: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<()> {
    let url = std::env::args()
        .next_back()
        .filter(|arg| arg.starts_with("http"))
        .context("usage: conformance-client <server-url> (with MCP_CONFORMANCE_SCENARIO set)")?;
    let scenario =
        std::env::var("MCP_CONFORMANCE_SCENARIO").context("MCP_CONFORMANCE_SCENARIO is not set")?;
    if !SCENARIOS.contains(&scenario.as_str()) {
        bail!("scenario {scenario:?} is not supported (supported: {SCENARIOS:?})");
    }
    // The suite's servers listen on bare `http://localhost:PORT` for some scenarios, which the
    // URL rule would take for legacy SSE; every client scenario speaks Streamable HTTP.
    let spec = ServerSpec::http(
        format!("conformance {scenario}"),
        url,
        Some(TransportKind::StreamableHttp),
    );
    let manager = ConnectionManager::new(ManagerConfig::default());
    let outcome = play(&manager, &spec, &scenario).await;
    manager.shutdown().await;
    outcome
}

async fn play(manager: &ConnectionManager, spec: &ServerSpec, scenario: &str) -> Result<()> {
    let owner = OwnerId::local();
    // Listing tools opens the connection, so every scenario starts with the handshake.
    let tools = manager.list_tools(&owner, spec).await?;
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    eprintln!("conformance-client: {scenario}: tools {names:?}");
    match scenario {
        "initialize" => Ok(()),
        "tools_call" => {
            ensure!(names.contains(&"add_numbers"), "add_numbers is not listed");
            let args = object(json!({ "a": 5, "b": 3 }));
            let result = manager
                .call_tool(
                    &owner,
                    spec,
                    "add_numbers",
                    Some(args),
                    CallOptions::default(),
                )
                .await?;
            let text = text_of(&result)?;
            ensure!(text.contains('8'), "add_numbers(5, 3) answered {text:?}");
            Ok(())
        }
        "sse-retry" => {
            // The server ends the call's SSE stream after a priming event carrying `retry`;
            // the answer only arrives on the GET stream the client must reopen with
            // `Last-Event-ID` once that delay has passed.
            ensure!(
                names.contains(&"test_reconnection"),
                "test_reconnection is not listed"
            );
            let result = manager
                .call_tool(
                    &owner,
                    spec,
                    "test_reconnection",
                    None,
                    CallOptions::default(),
                )
                .await?;
            text_of(&result)?;
            Ok(())
        }
        other => bail!("scenario {other:?} has no script"),
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The text of a successful result, for the log and for checking the answer.
fn text_of(result: &CallToolResult) -> Result<String> {
    let text: Vec<String> = result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect();
    let text = text.join("\n");
    ensure!(
        result.is_error != Some(true),
        "the tool reported an error: {text}"
    );
    eprintln!("conformance-client: result {text:?}");
    Ok(text)
}
