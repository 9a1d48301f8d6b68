//! MCP requests and responses are logged at debug level (seed 002 property 9), with the
//! server's secrets and credential-named fields redacted.

use crate::common;

use common::{owner, stdio_spec};
use switchboard_mcp::ConnectionManager;
use switchboard_testkit::{Peers, PyGen};

#[tokio::test]
async fn requests_and_responses_are_logged_without_secrets() {
    // One thread (current-thread runtime): every task of the test is captured.
    let (captured, _guard) = switchboard_testkit::CapturedLog::start();

    let spec = stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1))
        .with_secret_env("SERVICE_TOKEN", "sekrit-value-42");
    let manager = ConnectionManager::new(common::config());
    let arguments = serde_json::json!({"text": "the token is sekrit-value-42"});
    let result = manager
        .call_tool(
            &owner(),
            &spec,
            "echo",
            arguments.as_object().cloned(),
            Default::default(),
        )
        .await
        .expect("echo answers");
    assert_ne!(result.is_error, Some(true));
    manager.shutdown().await;

    let log = captured.text();
    let request = log
        .lines()
        .find(|l| l.contains("MCP request"))
        .unwrap_or_else(|| panic!("no request logged: {log}"));
    assert!(
        request.contains("echo") && request.contains("the token is ***"),
        "{request}"
    );
    let response = log
        .lines()
        .find(|l| l.contains("MCP response"))
        .unwrap_or_else(|| panic!("no response logged: {log}"));
    assert!(
        response.contains("elapsed_ms") && response.contains("***"),
        "{response}"
    );
    assert!(
        !log.contains("sekrit-value-42"),
        "a secret reached the log: {log}"
    );
}
