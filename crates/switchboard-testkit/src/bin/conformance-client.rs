//! The client under test for the client scenarios of the MCP conformance suite
//! (`@modelcontextprotocol/conformance`, run by `scripts/conformance.sh`).
//!
//! The suite starts a test server per scenario, then runs this binary with the server's URL as
//! its last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`. It judges the
//! client by what reaches the server (its `checks.json`) and by this process's exit code. All
//! traffic goes through [`ConnectionManager`], the client Switchboard itself uses, so a passing
//! scenario says something about our code rather than about a test-only client.
//!
//! The `auth/*` scenarios run the same way with the server set up for OAuth sign-in: the
//! connection fails with `SignInRequired`, the driver starts the sign-in through the manager
//! (discovery, registration, PKCE: Switchboard's code), follows the authorization URL as a
//! browser would (the suite's authorization server approves at once) and finishes it with the
//! callback's `code`, `state` and `iss`, then tries again; a server asking for a wider scope
//! (step-up) gets another sign-in, at most [`MAX_SIGN_INS`] in all.
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call conformance-client http://localhost:PORT/mcp
//! ```

// Sampling is deprecated by SEP-2577 but still asked by deployed servers and the suite.
#![allow(deprecated)]

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail, ensure};
use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction,
};
use serde_json::{Map, Value, json};
use switchboard_core::{Auth, OwnerId, ServerSpec, TransportKind};
use switchboard_mcp::oauth::{MemoryVault, OAuthClientIdentity, SignIns};
use switchboard_mcp::{
    AdmitAll, CallOptions, ConnectionManager, ManagerConfig, McpError, ServerRequests,
};
use switchboard_testkit::headless_sign_in::follow_to_callback;

/// The scenarios with a script of their own; `auth/*` sign in first; every other scenario
/// lists the tools and calls each ([`play_every_tool`]).
const SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "sse-retry",
    "json-schema-2020-12-preservation",
];

/// The Client ID Metadata Document URL the suite's authorization servers expect.
const CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";
/// Where the authorization server sends the browser back; nothing needs to listen there.
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// Sign-ins one scenario may make (the first, then step-ups): the suite's retry limit.
const MAX_SIGN_INS: usize = 3;

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
    let auth = scenario.starts_with("auth/");
    // The suite's servers listen on bare `http://localhost:PORT` for some scenarios, which the
    // URL rule would take for legacy SSE; every client scenario speaks Streamable HTTP.
    let mut spec = ServerSpec::http(
        format!("conformance {}", scenario.replace('/', " ")),
        url,
        Some(TransportKind::StreamableHttp),
    );
    if auth {
        spec.auth = oauth_from_context()?;
    }
    let sign_ins = SignIns::new(
        Arc::new(MemoryVault::default()),
        OAuthClientIdentity {
            name: "Switchboard conformance".into(),
            metadata_url: Some(CIMD_URL.into()),
        },
    );
    let manager = ConnectionManager::with_sign_ins(
        ManagerConfig::default(),
        Arc::new(AdmitAll),
        Arc::new(sign_ins),
    );
    let outcome = if auth {
        play_signed_in(&manager, &spec).await
    } else if SCENARIOS.contains(&scenario.as_str()) {
        play(&manager, &spec, &scenario).await
    } else {
        play_every_tool(&manager, &spec).await
    };
    manager.shutdown().await;
    outcome
}

/// Lists the tools, then makes the calls the suite's context names (`toolCalls`), else calls
/// each tool with the arguments its schema's defaults and examples give; the server's
/// questions are answered as by a person accepting the form as filled in.
async fn play_every_tool(manager: &ConnectionManager, spec: &ServerSpec) -> Result<()> {
    let owner = OwnerId::local();
    let tools = manager.list_tools(&owner, spec).await?;
    eprintln!(
        "conformance-client: tools {:?}",
        tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>()
    );
    let calls: Vec<(String, Map<String, Value>)> = match context()?.get("toolCalls") {
        Some(Value::Array(calls)) => calls
            .iter()
            .map(|call| {
                let name = call["name"].as_str().unwrap_or_default().to_owned();
                let arguments = call["arguments"].as_object().cloned().unwrap_or_default();
                (name, arguments)
            })
            .collect(),
        _ => tools
            .iter()
            .map(|tool| (tool.name.clone(), sample_arguments(&tool.input_schema)))
            .collect(),
    };
    for (name, arguments) in calls {
        let options = CallOptions {
            requests: Some(Arc::new(AcceptAsFilledIn)),
            ..CallOptions::default()
        };
        let result = manager
            .call_tool(&owner, spec, &name, Some(arguments), options)
            .await;
        eprintln!("conformance-client: {name} -> {result:?}");
    }
    Ok(())
}

/// The suite's `MCP_CONFORMANCE_CONTEXT` (JSON), or null.
fn context() -> Result<Value> {
    match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text).context("MCP_CONFORMANCE_CONTEXT is not JSON"),
        Err(_) => Ok(Value::Null),
    }
}

/// Arguments for a schema: each property's default, else its first example or enum value,
/// else a value of its type.
fn sample_arguments(schema: &Map<String, Value>) -> Map<String, Value> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Map::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let value = property
                .get("default")
                .or_else(|| property.get("examples").and_then(|e| e.get(0)))
                .or_else(|| property.get("enum").and_then(|e| e.get(0)))
                .cloned()
                .unwrap_or_else(|| match property.get("type").and_then(Value::as_str) {
                    Some("number" | "integer") => json!(1),
                    Some("boolean") => json!(true),
                    Some("array") => json!([]),
                    Some("object") => json!({}),
                    _ => json!("test"),
                });
            (name.clone(), value)
        })
        .collect()
}

/// A person who accepts every form with the values the server filled in (its defaults,
/// SEP-1034), and has no model to sample with.
#[derive(Debug)]
struct AcceptAsFilledIn;

impl ServerRequests for AcceptAsFilledIn {
    fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        let content = match &params {
            ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } => serde_json::to_value(requested_schema)
                .ok()
                .and_then(|schema| schema.get("properties").cloned())
                .and_then(|p| p.as_object().cloned())
                .map(|properties| {
                    properties
                        .into_iter()
                        .filter_map(|(name, p)| p.get("default").cloned().map(|d| (name, d)))
                        .collect::<Map<String, Value>>()
                })
                .unwrap_or_default(),
            _ => Map::new(),
        };
        Box::pin(async move {
            Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)))
        })
    }

    fn sample(
        &self,
        _params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async { Err(ErrorData::invalid_request("no model to sample with", None)) })
    }
}

/// OAuth sign-in, with the pre-registered client the suite names in its context, if any.
fn oauth_from_context() -> Result<Auth> {
    let context = context()?;
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    Ok(Auth::OAuth {
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        scopes: Vec::new(),
    })
}

/// Lists the tools and calls the first, signing in whenever the server asks for it.
async fn play_signed_in(manager: &ConnectionManager, spec: &ServerSpec) -> Result<()> {
    let owner = OwnerId::local();
    let mut sign_ins = 0;
    loop {
        let attempt = async {
            let tools = manager.list_tools(&owner, spec).await?;
            if let Some(tool) = tools.first() {
                manager
                    .call_tool(
                        &owner,
                        spec,
                        &tool.name,
                        Some(Map::new()),
                        CallOptions::default(),
                    )
                    .await?;
            }
            Ok::<_, McpError>(tools.len())
        };
        match attempt.await {
            Ok(count) => {
                eprintln!("conformance-client: {count} tools, after {sign_ins} sign-ins");
                return Ok(());
            }
            Err(McpError::SignInRequired { scope, .. }) if sign_ins < MAX_SIGN_INS => {
                sign_ins += 1;
                eprintln!("conformance-client: sign-in {sign_ins} (scope {scope:?})");
                sign_in(manager, &owner, spec).await?;
            }
            Err(error) => return Err(error.into()),
        }
    }
}

/// One sign-in through the manager, the browser's part done headless.
async fn sign_in(manager: &ConnectionManager, owner: &OwnerId, spec: &ServerSpec) -> Result<()> {
    let url = manager.start_sign_in(owner, spec, REDIRECT_URI).await?;
    let callback = follow_to_callback(&url, REDIRECT_URI).await?;
    let pending = manager
        .sign_ins()
        .take(&callback.state)
        .await?
        .context("the callback's state names no sign-in")?;
    manager
        .finish_sign_in(spec, pending, &callback.code, callback.iss.as_deref())
        .await?;
    Ok(())
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
        "json-schema-2020-12-preservation" => {
            // The focal tool's inputSchema as Switchboard keeps it, sent back whole for the
            // suite to compare with what it listed.
            let focal = tools
                .iter()
                .find(|tool| tool.name == "json_schema_2020_12_tool")
                .context("json_schema_2020_12_tool is not listed")?;
            let args = object(json!({ "schema": focal.input_schema }));
            let result = manager
                .call_tool(
                    &owner,
                    spec,
                    "json_schema_echo",
                    Some(args),
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
