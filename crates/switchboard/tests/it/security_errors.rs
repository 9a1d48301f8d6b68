//! Error answers, against a real `switchboard serve`: user text cannot forge a log
//! line, `/metrics` is served on `--metrics-listen` only, and error answers are shaped.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::{BIN, PROVIDER_VARS, Switchboard};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// `serve` in token mode with every stderr line sent to `lines`.
struct Logged {
    child: Child,
    base: String,
    token: String,
    lines: Receiver<String>,
    /// Lines read before the listening line.
    early: Vec<String>,
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_logged(sb: &Switchboard, extra: &[&str]) -> Logged {
    let mut command = Command::new(BIN);
    for var in PROVIDER_VARS {
        command.env_remove(var);
    }
    let mut child = command
        .arg("--data-dir")
        .arg(sb.data_dir())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_KEY")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (send, lines) = channel();
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let mut early = Vec::new();
    let base = loop {
        let line = lines.recv().expect("serve ended early");
        if let Some(url) = line.strip_prefix("switchboard is listening on ") {
            break url.to_owned();
        }
        early.push(line);
    };
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let token = line
        .trim()
        .strip_prefix("admin API token (shown once, keep it): ")
        .unwrap()
        .to_owned();
    Logged {
        child,
        base,
        token,
        lines,
        early,
    }
}

impl Logged {
    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        reqwest::Client::new()
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token)
    }

    /// Every line up to and including the first that contains `wanted`.
    fn lines_until(&self, wanted: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no line with {wanted:?} in:\n{}", seen.join("\n")));
            let found = line.contains(wanted);
            seen.push(line);
            if found {
                return seen;
            }
        }
    }
}

#[tokio::test]
async fn a_server_name_cannot_forge_a_log_line() {
    let sb = Switchboard::new();
    let served = serve_logged(&sb, &[]);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", closed.local_addr().unwrap());
    drop(closed);
    let name = "evil\n2026-01-01T00:00:00Z ERROR switchboard: admin token leaked\x1b[2K\x1b[31m";
    let response = served
        .request(reqwest::Method::POST, "/api/mcp-servers")
        .json(&json!({"id": "evil", "name": name, "url": url}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    // Listing the chat tools logs each unreachable server by name, at the default level.
    let response = served
        .request(reqwest::Method::GET, "/api/chat/tools")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let lines = served.lines_until("tools unavailable");
    let logged = lines.last().unwrap();
    assert!(
        logged.contains(r"evil\n2026-01-01T00:00:00Z ERROR"),
        "{logged}"
    );
    for line in &lines {
        assert!(
            !line.contains('\x1b'),
            "an escape reached the log: {line:?}"
        );
        assert!(!line.starts_with("2026-01-01"), "a forged line: {line:?}");
    }
}

#[tokio::test]
async fn metrics_are_served_on_their_own_address_only() {
    let sb = Switchboard::new();
    let served = serve_logged(&sb, &["--metrics-listen", "127.0.0.1:0"]);
    let metrics = served
        .early
        .iter()
        .find_map(|l| l.strip_prefix("metrics are served on "))
        .unwrap_or_else(|| panic!("no metrics address in {:?}", served.early))
        .to_owned();
    let response = reqwest::get(&metrics).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.text().await.unwrap().ends_with("# EOF\n"));
    let response = served
        .request(reqwest::Method::GET, "/metrics")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn metrics_on_the_api_take_an_admin_token() {
    let sb = Switchboard::new();
    let served = serve_logged(&sb, &[]);
    let url = format!("{}/metrics", served.base);
    let response = reqwest::get(&url).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let response = served
        .request(reqwest::Method::GET, "/metrics")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn error_answers_are_shaped() {
    let sb = Switchboard::new();
    let served = serve_logged(&sb, &[]);
    let long = format!("/api/mcp-servers?q={}", "a".repeat(10_000));
    for (request, status, code) in [
        (
            served.request(reqwest::Method::DELETE, "/api/mcp-servers"),
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
        ),
        (
            served.request(reqwest::Method::GET, &long),
            StatusCode::URI_TOO_LONG,
            "URI_TOO_LONG",
        ),
        (
            served
                .request(reqwest::Method::GET, "/api/mcp-servers")
                .header("x-big", "b".repeat(40_000)),
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "HEADERS_TOO_LARGE",
        ),
        (
            served.request(reqwest::Method::GET, "/api/mcp-servers/%FF"),
            StatusCode::BAD_REQUEST,
            "VALIDATION_ERROR",
        ),
    ] {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), status);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["code"], code, "{body}");
        assert!(body["timestamp"].is_string(), "{body}");
    }
}
