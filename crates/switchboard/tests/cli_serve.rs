//! `switchboard serve` as a process: first start prints an admin token and brings the demo
//! server; the API answers with it; SIGTERM ends the process and every MCP child with it.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use common::{BIN, Switchboard};
use serde_json::Value;
use switchboard_testkit::process;

struct Served {
    child: Child,
    base: String,
    token: Option<String>,
}

fn serve(sb: &Switchboard, extra: &[&str]) -> Served {
    let mut child = Command::new(BIN)
        .arg("--data-dir")
        .arg(sb.data_dir())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let base = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "serve ended early"
        );
        if let Some(url) = line.trim().strip_prefix("switchboard is listening on ") {
            break url.to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in stderr.lines() {});
    let token = if extra.contains(&"--single-user") {
        None
    } else {
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        line.trim()
            .strip_prefix("admin API token (shown once, keep it): ")
            .map(str::to_owned)
    };
    Served { child, base, token }
}

async fn get(served: &Served, path: &str) -> (reqwest::StatusCode, Value) {
    let mut request = reqwest::Client::new().get(format!("{}{path}", served.base));
    if let Some(token) = &served.token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

fn terminate(served: &mut Served) -> std::process::ExitStatus {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(served.child.id()).unwrap()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    served.child.wait().unwrap()
}

#[tokio::test]
async fn first_start_prints_a_token_serves_the_demo_and_sigterm_leaves_no_child() {
    let sb = Switchboard::new();
    let mut served = serve(&sb, &[]);
    let token = served.token.clone().expect("an admin token on first start");
    assert!(token.starts_with("sb_"), "{token}");

    let (status, servers) = get(&served, "/api/mcp-servers").await;
    assert_eq!(status, 200, "{servers}");
    assert_eq!(servers[0]["id"], "demo");

    // Listing the demo server's tools starts it as a child of serve.
    let (status, tools) = get(&served, "/api/mcp-servers/demo/tools").await;
    assert_eq!(status, 200, "{tools}");
    assert!(tools.to_string().contains("calculate"), "{tools}");
    let children = process::descendants(served.child.id());
    assert!(!children.is_empty(), "the demo server runs");

    let (status, _) = reqwest::get(format!("{}/api/mcp-servers", served.base))
        .await
        .map(|r| (r.status(), ()))
        .unwrap();
    assert_eq!(status, 401, "tokens are required");

    let exit = terminate(&mut served);
    assert!(exit.success(), "{exit:?}");
    for pid in children {
        assert!(!process::alive(pid), "MCP child {pid} outlived serve");
    }

    // A second start makes no new admin and adds the demo server no second time.
    let mut again = serve(&sb, &["--single-user"]);
    let (status, servers) = get(&again, "/api/mcp-servers").await;
    assert_eq!(status, 200, "{servers}");
    assert_eq!(
        servers.as_array().unwrap().len(),
        1,
        "the local user got its own demo: {servers}"
    );
    assert!(terminate(&mut again).success());
}

#[test]
fn single_user_mode_only_listens_on_loopback() {
    let sb = Switchboard::new();
    let out = Command::new(BIN)
        .arg("--data-dir")
        .arg(sb.data_dir())
        .args(["serve", "--single-user", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("loopback"));
}
