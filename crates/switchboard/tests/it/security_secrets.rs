//! Secrets and tokens, against a real `switchboard serve` on loopback: secrets an MCP
//! server echoes back stay out of the API, the events and the log; a token revoked from the
//! command line (another process on the same database) ends the event streams opened with it.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{BIN, PROVIDER_VARS, Switchboard};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "bearer-tok-3c9d0e71";
const HEADER_SECRET: &str = "hdr-secret-a4f2b8";
const QUERY_SECRET: &str = "query-secret-61d7aa";

/// `serve` with its whole stderr kept (the log at the default level).
struct Logged {
    child: Child,
    base: String,
    token: String,
    stderr: Arc<Mutex<String>>,
}

impl Logged {
    fn start(sb: &Switchboard) -> Self {
        let mut command = Command::new(BIN);
        for var in PROVIDER_VARS {
            command.env_remove(var);
        }
        let mut child = command
            .arg("--data-dir")
            .arg(sb.data_dir())
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env_remove("DATABASE_URL")
            .env_remove("SWITCHBOARD_SECRET_KEY")
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let kept = Arc::new(Mutex::new(String::new()));
        let base = loop {
            let mut line = String::new();
            assert!(
                stderr.read_line(&mut line).unwrap() > 0,
                "serve ended early"
            );
            kept.lock().unwrap().push_str(&line);
            if let Some(url) = line.trim().strip_prefix("switchboard is listening on ") {
                break url.to_owned();
            }
        };
        let sink = kept.clone();
        std::thread::spawn(move || {
            for line in stderr.lines() {
                let Ok(line) = line else { return };
                let mut kept = sink.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let token = line
            .trim()
            .strip_prefix("admin API token (shown once, keep it): ")
            .unwrap()
            .to_owned();
        Self {
            child,
            base,
            token,
            stderr: kept,
        }
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = reqwest::Client::new()
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        response.json().await.unwrap_or(Value::Null)
    }

    /// Ends serve with SIGTERM and returns everything it wrote to stderr.
    fn stop(mut self) -> String {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).unwrap()),
            nix::sys::signal::Signal::SIGTERM,
        )
        .unwrap();
        self.child.wait().unwrap();
        // The drain thread ends with the pipe; what it read so far is all there is.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while Arc::strong_count(&self.stderr) > 1 && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        self.stderr.lock().unwrap().clone()
    }
}

/// A server on 127.0.0.1 answering every request with 401 and the request head as the body.
async fn echoing_401() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let body = format!("you sent: {}", String::from_utf8_lossy(&head));
                let response = format!(
                    "HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    base
}

fn assert_clean(what: &str, text: &str) {
    for secret in [TOKEN, HEADER_SECRET, QUERY_SECRET] {
        assert!(!text.contains(secret), "{what} shows {secret}: {text}");
    }
}

#[tokio::test]
async fn secrets_an_mcp_server_echoes_reach_neither_the_api_nor_the_log() {
    let sb = Switchboard::new();
    let served = Logged::start(&sb);
    let upstream = echoing_401().await;
    let created = served
        .send(
            reqwest::Method::POST,
            "/api/mcp-servers",
            Some(json!({
                "name": "Echo",
                "transport": "streamable_http",
                "url": format!("{upstream}/mcp?api_key={QUERY_SECRET}"),
                "headers": {"X-Secret": HEADER_SECRET},
                "auth": {"type": "bearer", "token": TOKEN},
            })),
        )
        .await;
    assert_eq!(created["id"], "echo", "{created}");
    assert_clean("the created server", &created.to_string());

    let tested = served
        .send(reqwest::Method::POST, "/api/mcp-servers/echo/test", None)
        .await;
    assert_eq!(tested["code"], "MCP_AUTH_FAILED", "{tested}");
    assert_clean("the test-connection error", &tested.to_string());
    let tools = served
        .send(reqwest::Method::GET, "/api/mcp-servers/echo/tools", None)
        .await;
    assert!(tools["code"].is_string(), "{tools}");
    assert_clean("the tool listing error", &tools.to_string());
    let health = served
        .send(reqwest::Method::GET, "/api/mcp-servers/echo/health", None)
        .await;
    assert_eq!(health["status"], "error", "{health}");
    assert_clean("the health report", &health.to_string());
    let read = served
        .send(reqwest::Method::GET, "/api/mcp-servers/echo", None)
        .await;
    assert_clean("the server as read", &read.to_string());

    let log = served.stop();
    assert!(log.contains("listening"), "{log}");
    assert_clean("serve's log", &log);
}

/// Reads SSE bytes until the stream ends; returns whether it ended within `limit`.
async fn ends_within(mut response: reqwest::Response, limit: Duration) -> bool {
    tokio::time::timeout(limit, async {
        while let Ok(Some(_)) = response.chunk().await {}
    })
    .await
    .is_ok()
}

#[tokio::test]
async fn a_token_revoked_from_the_command_line_ends_its_event_streams() {
    let sb = Switchboard::new();
    let served = Logged::start(&sb);
    // A second admin token, revoked from another process while its stream is open.
    let issued = sb
        .run(&["--json", "users", "token", "admin", "--label", "laptop"])
        .ok()
        .json();
    let secret = issued["token"]["secret"].as_str().unwrap().to_owned();
    let token_id = issued["token"]["id"].as_str().unwrap().to_owned();
    let stream = reqwest::Client::new()
        .get(format!("{}/api/events", served.base))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    sb.run(&["users", "revoke", "admin", &token_id]).ok();
    assert!(
        ends_within(stream, Duration::from_secs(30)).await,
        "the stream outlived its revoked token"
    );
    let status = reqwest::Client::new()
        .get(format!("{}/api/mcp-servers", served.base))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 401);
    served.stop();
}

#[test]
fn tokens_can_be_issued_with_an_expiry_date() {
    let sb = Switchboard::new();
    sb.run(&["users", "add", "ada", "--no-token"]).ok();
    let issued = sb
        .run(&["--json", "users", "token", "ada", "--expires-in", "30d"])
        .ok()
        .json();
    let created = issued["token"]["createdAt"].as_i64().unwrap();
    let expires = issued["token"]["expiresAt"].as_i64().unwrap();
    let thirty_days = 30 * 24 * 3600 * 1000;
    assert!((expires - created - thirty_days).abs() < 60_000, "{issued}");
    let listed = sb.run(&["--json", "users", "tokens", "ada"]).ok().json();
    assert_eq!(listed[0]["expiresAt"], expires, "{listed}");
    sb.run(&["users", "token", "ada", "--expires-in", "soon"])
        .failed();
}
