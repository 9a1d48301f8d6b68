//! The MCP gateway's tests: a `serve` child with a second user, raw Streamable HTTP
//! requests to `/mcp`, and the clients written by others (the Python SDK's, the MCP
//! Inspector's CLI) run against it or against `switchboard mcp --stdio`.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::{Peers, PyGen};

use super::rest::{create_server, stdio_body};
use super::serve::{Served, serve};
use super::{BIN, Switchboard};

/// The protocol revision of the session-based requests below.
pub const LEGACY_VERSION: &str = "2025-11-25";

/// A `serve` child on a fresh store: `admin` (with the demo server `serve` adds on first
/// start, and server-everything as `everything`) and `bob` (an admin too, with his own demo
/// server as `bobs`), each with a token. The settings file lets the gateway run tools that are
/// not auto-approved (`[gateway] unapproved = "run"`), for `serve` and `mcp --stdio` alike:
/// approval itself is the gateway's own tests' business.
pub struct Gateway {
    pub sb: Switchboard,
    pub served: Served,
    pub admin: String,
    pub bob: String,
}

impl Gateway {
    pub async fn start(extra: &[&str]) -> Gateway {
        let sb = Switchboard::new();
        std::fs::create_dir_all(sb.data_dir()).unwrap();
        std::fs::write(
            sb.data_dir().join("switchboard.toml"),
            "[gateway]\nunapproved = \"run\"\n",
        )
        .unwrap();
        let served = serve(&sb, extra);
        let admin = served.token.clone().unwrap();
        let added = sb
            .run(&["--json", "users", "add", "bob", "--role", "admin"])
            .ok()
            .json();
        let bob = added["token"]["secret"].as_str().unwrap().to_owned();
        let peers = Peers::locate();
        create_server(
            &served,
            stdio_body("everything", &peers.everything_stdio(), None),
        )
        .await;
        let (status, body) = send_as(
            &served.base,
            &bob,
            Method::POST,
            "/api/mcp-servers",
            Some(stdio_body("bobs", &super::rest::demo_command(), None)),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        Gateway {
            sb,
            served,
            admin,
            bob,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.served.base)
    }
}

impl Gateway {
    /// Asks `serve` to stop (SIGTERM) and waits for it, at most `within`: whether it ended.
    pub async fn stop(&mut self, within: std::time::Duration) -> bool {
        let pid = self.served.child.id();
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap()),
            nix::sys::signal::Signal::SIGTERM,
        );
        switchboard_testkit::process::wait_until_gone(&[pid], within)
            .await
            .is_empty()
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        // SIGTERM, so `serve` ends its stdio servers; it may have been stopped already.
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(self.served.child.id()).unwrap()),
            nix::sys::signal::Signal::SIGTERM,
        );
        let _ = self.served.child.wait();
    }
}

/// A REST request with `token`; the status and the JSON body (null when none).
pub async fn send_as(
    base: &str,
    token: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (reqwest::StatusCode, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{base}{path}"))
        .bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

/// One raw answer.
#[derive(Debug)]
pub struct Answer {
    pub status: reqwest::StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Answer {
    /// The body as JSON: the body itself, or the `data:` of its last SSE event.
    pub fn json(&self) -> Value {
        if let Ok(value) = serde_json::from_str(&self.text) {
            return value;
        }
        let data = self
            .text
            .lines()
            .rev()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|data| !data.is_empty())
            .unwrap_or_else(|| panic!("no JSON in {self:?}"));
        serde_json::from_str(data).unwrap()
    }

    pub fn session(&self) -> Option<String> {
        self.headers
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned())
    }
}

/// A request to the MCP endpoint at `url` as Streamable HTTP clients send it.
pub async fn mcp_request(
    method: Method,
    url: &str,
    token: Option<&str>,
    session: Option<&str>,
    body: Option<Value>,
) -> Answer {
    let mut request = reqwest::Client::new()
        .request(method, url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", LEGACY_VERSION);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap_or_default();
    Answer {
        status,
        headers,
        text,
    }
}

/// `initialize` (2025-11-25) at `url`; the answer carries the new session's id.
pub async fn initialize(url: &str, token: Option<&str>) -> Answer {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "gateway-test", "version": "1"}
        }
    });
    mcp_request(Method::POST, url, token, None, Some(body)).await
}

/// The API's error shape: `{code, message, timestamp}`.
#[track_caller]
pub fn assert_error_shape(answer: &Answer, code: &str) {
    let body: Value =
        serde_json::from_str(&answer.text).unwrap_or_else(|e| panic!("not JSON ({e}): {answer:?}"));
    assert_eq!(body["code"], code, "{answer:?}");
    assert!(body["message"].is_string(), "{answer:?}");
    assert!(body["timestamp"].is_string(), "{answer:?}");
}

/// `tests/peers/gateway_client.py` under the SDK generation `generation`: its JSON report.
pub fn python_client(generation: PyGen, args: &[&str]) -> Result<Value, String> {
    python_peer(generation, "gateway_client.py", args)
}

/// `tests/peers/gateway_tasks_client.py` (the Python SDK 1.x's tasks) doing `args`: its JSON
/// report.
pub fn tasks_client(args: &[&str]) -> Result<Value, String> {
    python_peer(PyGen::V1, "gateway_tasks_client.py", args)
}

/// `tests/peers/gateway_plan_client.py` (the Python SDK 1.x's client) carrying out `args`' plan:
/// its JSON report.
pub fn plan_client(args: &[&str]) -> Result<Value, String> {
    python_peer(PyGen::V1, "gateway_plan_client.py", args)
}

/// `tests/peers/interop_client.py` (the interop matrix's client) under `generation`.
pub fn interop_client(generation: PyGen, args: &[&str]) -> Result<Value, String> {
    python_peer(generation, "interop_client.py", args)
}

/// [`interop_client`] run in the directory `cwd`, as a client that launches its servers
/// from wherever it was started.
pub fn interop_client_in(generation: PyGen, cwd: &Path, args: &[&str]) -> Result<Value, String> {
    python_peer_in(generation, "interop_client.py", Some(cwd), args)
}

fn python_peer(generation: PyGen, script: &str, args: &[&str]) -> Result<Value, String> {
    python_peer_in(generation, script, None, args)
}

fn python_peer_in(
    generation: PyGen,
    script: &str,
    cwd: Option<&Path>,
    args: &[&str],
) -> Result<Value, String> {
    let peers = Peers::locate();
    let mut command = Command::new(peers.python(generation));
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let output = command
        .arg(scripts_dir().join(script))
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    parse_output(&output)
}

/// The MCP Inspector's CLI (the TypeScript SDK's client), run on Node 22+: its JSON answer.
pub fn inspector(args: &[&str]) -> Result<Value, String> {
    let peers = Peers::locate();
    let launcher = peers
        .root()
        .join("node/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assert!(
        launcher.exists(),
        "the MCP Inspector is not installed in the peers (scripts/peers/package.json)"
    );
    let catalog = tempfile::tempdir().unwrap();
    let output = Command::new(peers.node22())
        .arg(launcher)
        .arg("--cli")
        .args(args)
        .env("MCP_CATALOG_PATH", catalog.path().join("mcp.json"))
        .env("HOME", catalog.path())
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    parse_output(&output)
}

/// `switchboard --data-dir DIR mcp --stdio ARGS...` as a command line for another client.
pub fn stdio_command(sb: &Switchboard, args: &[&str]) -> Vec<String> {
    let mut command = vec![
        BIN.to_owned(),
        "--data-dir".to_owned(),
        sb.data_dir().to_string_lossy().into_owned(),
        "mcp".to_owned(),
        "--stdio".to_owned(),
    ];
    command.extend(args.iter().map(|a| (*a).to_owned()));
    command
}

fn scripts_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

fn parse_output(output: &std::process::Output) -> Result<Value, String> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "{}\nstdout: {stdout}\nstderr: {stderr}",
            output.status
        ));
    }
    serde_json::from_str(stdout.trim())
        .map_err(|e| format!("stdout is not JSON ({e}): {stdout}\nstderr: {stderr}"))
}

/// The testkit's rmcp server (2026-07-28), built beside this binary by the workspace's test
/// build.
pub fn conformance_server() -> switchboard_testkit::StdioCommand {
    let bin = PathBuf::from(BIN)
        .parent()
        .unwrap()
        .join("conformance-server");
    assert!(
        bin.exists(),
        "{} is not built (cargo test --workspace builds it)",
        bin.display()
    );
    switchboard_testkit::StdioCommand {
        program: bin.to_string_lossy().into_owned(),
        args: Vec::new(),
        env: Vec::new(),
    }
}
