//! MCP requests and responses are logged at debug level (seed 002 property 9), with the
//! server's secrets and credential-named fields redacted.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use common::{owner, stdio_spec};
use switchboard_mcp::ConnectionManager;
use switchboard_testkit::{Peers, PyGen};

/// A log sink the test can read.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

#[tokio::test]
async fn requests_and_responses_are_logged_without_secrets() {
    let captured = Captured::default();
    let sink = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    // The test runs on one thread (current-thread runtime), so a thread default sees it all.
    let _guard = tracing::subscriber::set_default(subscriber);

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
