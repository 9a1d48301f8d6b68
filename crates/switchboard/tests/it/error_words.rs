//! Every error a person reads is in words: no Rust paths, generic types or `Debug` dumps
//! ([`switchboard_testkit::words`]) in what the HTTP API answers (the message and its hint),
//! what a server's health says, or what the command line prints, across the failures people
//! meet first: a bad URL, a name that does not resolve, a refused port, a port that does not
//! speak TLS, a 401, a missing command, a missing `npx` or `uvx`, a server that never
//! answers, bodies that are not what the API takes, ids that do not exist, a bad settings
//! file, tool errors, a call that times out, a model provider that cannot be reached. Each
//! connect failure also says the words that fit its cause.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::Stdio;

use common::rest::send;
use common::serve::{Served, serve_with_env, terminate};
use common::{PROVIDER_VARS, Run, Switchboard};
use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::words::leaks;
use switchboard_testkit::{CannedHttp, Misbehaving, Peers, PyGen, StdioCommand};
use tokio::io::AsyncWriteExt;

/// Short timeouts and no waits between retries: every failure here answers in seconds. The
/// connect timeout leaves a working Python server time to start on a loaded machine.
const SETTINGS: &str = r#"
[manager]
connect_timeout = "8s"
call_timeout = "1s"

[manager.retry]
max_retries = 0
initial_delay = "1ms"
max_delay = "1ms"
"#;

/// Everything a person was shown, by what showed it.
#[derive(Default)]
struct Shown(Vec<(String, String)>);

impl Shown {
    fn text(&mut self, what: impl Into<String>, text: impl Into<String>) {
        self.0.push((what.into(), text.into()));
    }

    /// An API answer: an error's message and hint, a health's last error, a tool result's
    /// text.
    fn answer(&mut self, what: &str, answer: &Value) {
        for field in ["message", "hint", "lastError"] {
            if let Some(text) = answer[field].as_str() {
                self.text(format!("{what} ({field})"), text);
            }
        }
        for block in answer["content"].as_array().into_iter().flatten() {
            if let Some(text) = block["text"].as_str() {
                self.text(format!("{what} (content)"), text);
            }
        }
    }

    /// A command's output, both streams.
    fn run(&mut self, what: &str, run: &Run) {
        self.text(format!("{what} (stdout)"), run.stdout.clone());
        self.text(format!("{what} (stderr)"), run.stderr.clone());
    }

    /// The text shown by `what`, for the checks of a cause's words.
    fn of(&self, what: &str) -> String {
        self.0
            .iter()
            .filter(|(shown_by, _)| shown_by.starts_with(what))
            .map(|(_, text)| text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[track_caller]
    fn assert_in_words(&self) {
        let leaked: Vec<String> = (self.0.iter())
            .filter_map(|(what, text)| {
                let found = leaks(text);
                (!found.is_empty()).then(|| format!("{what}: {found:?} in {text}"))
            })
            .collect();
        assert!(
            leaked.is_empty(),
            "the program's insides were shown:\n{}",
            leaked.join("\n")
        );
    }
}

fn stdio(name: &str, command: &StdioCommand) -> Value {
    json!({
        "name": name, "transport": "stdio", "command": command.program, "args": command.args,
    })
}

fn program(name: &str, program: &str) -> Value {
    json!({"name": name, "transport": "stdio", "command": program, "args": ["x"]})
}

fn remote(name: &str, url: &str) -> Value {
    json!({"name": name, "url": url})
}

/// A port of 127.0.0.1 that nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A port that answers every connection in plain HTTP at once, before reading anything: what
/// `https://` to a plain HTTP port meets. Ends with the test's runtime.
async fn plain_http_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let answer = "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
                let _ = socket.write_all(answer.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    port
}

/// `switchboard chat` with `stdin` as its whole input and `env` set.
async fn chat(sb: &Switchboard, env: &[(&str, String)], stdin: &str) -> Run {
    let mut command = tokio::process::Command::new(common::BIN);
    command
        .arg("--data-dir")
        .arg(sb.data_dir())
        .arg("chat")
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DATABASE_URL")
        .env_remove("RUST_LOG")
        .kill_on_drop(true);
    for var in PROVIDER_VARS {
        command.env_remove(var);
    }
    command.envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let output = child.wait_with_output().await.unwrap();
    Run {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The servers of the connect failures: name, body, and what their error must say.
fn failing_servers(
    refused: u16,
    not_tls: u16,
    denied: &CannedHttp,
    peers: &Peers,
) -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "dns",
            remote("dns", "https://example.invalid/mcp"),
            "cannot reach https://example.invalid/mcp: the name does not resolve",
        ),
        (
            "refused",
            remote("refused", &format!("http://127.0.0.1:{refused}/mcp")),
            "the connection was refused",
        ),
        (
            "refused-sse",
            remote("refused-sse", &format!("http://127.0.0.1:{refused}/sse")),
            "the connection was refused",
        ),
        (
            "not-tls",
            remote("not-tls", &format!("https://127.0.0.1:{not_tls}/mcp")),
            "the secure connection failed",
        ),
        (
            "denied",
            remote("denied", &format!("http://127.0.0.1:{}/mcp", denied.port())),
            "401 Unauthorized",
        ),
        (
            "missing",
            program("missing", "no-such-mcp-server"),
            "`no-such-mcp-server` was not found on PATH",
        ),
        ("npx", program("npx", "npx"), "install Node.js"),
        ("uvx", program("uvx", "uvx"), "install uv"),
        (
            "silent",
            stdio("silent", &peers.misbehaving(Misbehaving::NeverAnswers)),
            "did not complete the MCP handshake within 8s",
        ),
        (
            "exits",
            stdio("exits", &peers.misbehaving(Misbehaving::ExitAtOnce)),
            "closed the connection during the handshake",
        ),
    ]
}

/// Bodies the API does not take, each with where it goes.
fn bad_requests() -> Vec<(Method, &'static str, Value)> {
    vec![
        (Method::POST, "/api/mcp-servers", json!([])),
        (Method::POST, "/api/mcp-servers", json!({"name": 5})),
        (
            Method::POST,
            "/api/mcp-servers",
            json!({"name": "u", "url": "not a url"}),
        ),
        (
            Method::POST,
            "/api/mcp-servers",
            json!({"name": "u", "url": "ftp://h/mcp"}),
        ),
        (
            Method::POST,
            "/api/mcp-servers",
            json!({"name": "t", "url": "http://h/mcp", "timeout": "soon"}),
        ),
        (
            Method::POST,
            "/api/mcp-servers",
            json!({"name": "s", "url": "http://h/mcp", "sampling": {"maxTokens": -1}}),
        ),
        (
            Method::POST,
            "/api/mcp-servers",
            json!({"name": "a", "url": "http://h/mcp", "auth": {"type": "magic"}}),
        ),
        (
            Method::POST,
            "/api/mcp-servers",
            json!({"name": "a", "command": "x", "env": {"A": 5}}),
        ),
        (
            Method::POST,
            "/api/mcp-servers",
            json!({"name": "a", "command": "x", "secretEnvs": ["A"]}),
        ),
        (
            Method::POST,
            "/api/mcp-servers",
            json!({"name": "a", "transport": "websocket"}),
        ),
        (Method::POST, "/api/assistants", json!({"name": 5})),
        (
            Method::POST,
            "/api/assistants",
            json!({"name": "a", "maxRounds": -3}),
        ),
        (
            Method::POST,
            "/api/conversations",
            json!({"assistantId": 5}),
        ),
        (
            Method::POST,
            "/api/providers",
            json!({"name": "p", "kind": "nope"}),
        ),
        (Method::POST, "/api/tool-nodes", json!({"name": "n"})),
        (
            Method::POST,
            "/api/mcp/tools/call",
            json!({"serverId": "nope", "toolName": "x"}),
        ),
        (Method::POST, "/api/catalogue/nope/add", json!({})),
        (
            Method::POST,
            "/api/catalogue/filesystem/add",
            json!({"settings": {"colour": "x"}}),
        ),
        (Method::GET, "/api/mcp-servers/nope", Value::Null),
        (Method::GET, "/api/mcp-servers/nope/tools", Value::Null),
        (Method::GET, "/api/conversations/nope", Value::Null),
        (Method::GET, "/api/assistants/nope", Value::Null),
        (Method::DELETE, "/api/providers/nope", Value::Null),
    ]
}

/// Bodies that are not JSON at all.
async fn not_json(served: &Served, shown: &mut Shown) {
    for (content_type, body) in [
        ("application/json", "{"),
        ("application/json", "{\"name\": \"a\",}"),
        ("text/plain", "name=a"),
    ] {
        let answer: Value = reqwest::Client::new()
            .post(format!("{}/api/mcp-servers", served.base))
            .bearer_auth(served.token.as_deref().unwrap())
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        shown.answer(&format!("POST {body:?} as {content_type}"), &answer);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_error_a_person_reads_is_in_words() {
    let peers = Peers::locate();
    let sb = Switchboard::new();
    std::fs::create_dir_all(sb.data_dir()).unwrap();
    std::fs::write(sb.data_dir().join("switchboard.toml"), SETTINGS).unwrap();
    // Neither Node.js nor uv on this machine, as far as Switchboard can see.
    let bin = tempfile::tempdir().unwrap();
    let path = bin.path().to_str().unwrap().to_owned();
    let refused = closed_port();
    let not_tls = plain_http_port().await;
    let denied = CannedHttp::start(401, "text/plain", "who are you").await;
    let mut shown = Shown::default();

    let mut served = serve_with_env(&sb, &[], &[("PATH", &path)]);
    let failing = failing_servers(refused, not_tls, &denied, &peers);
    for (name, body, _) in &failing {
        let (status, created) = send(
            &served,
            Method::POST,
            "/api/mcp-servers",
            Some(body.clone()),
        )
        .await;
        assert_eq!(status, 201, "{created}");
        let (_, tested) = send(
            &served,
            Method::POST,
            &format!("/api/mcp-servers/{name}/test"),
            None,
        )
        .await;
        shown.answer(&format!("test {name}"), &tested);
        let (_, tools) = send(
            &served,
            Method::GET,
            &format!("/api/mcp-servers/{name}/tools"),
            None,
        )
        .await;
        shown.answer(&format!("tools {name}"), &tools);
        let (_, health) = send(
            &served,
            Method::GET,
            &format!("/api/mcp-servers/{name}/health"),
            None,
        )
        .await;
        shown.answer(&format!("health {name}"), &health);
    }
    for (name, _, words) in &failing {
        let said = shown.of(&format!("test {name}"));
        assert!(said.contains(words), "{name} should say {words:?}: {said}");
    }

    // Tool errors and a call that times out, on a server that works.
    let py = stdio("py", &peers.python_stdio(PyGen::V1));
    let (status, created) = send(&served, Method::POST, "/api/mcp-servers", Some(py)).await;
    assert_eq!(status, 201, "{created}");
    for (tool, arguments) in [
        ("fail", json!({})),
        ("nope", json!({})),
        ("add", json!({"a": "one", "b": 2})),
        ("slow", json!({"seconds": 5})),
    ] {
        let (_, answer) = send(
            &served,
            Method::POST,
            "/api/mcp/tools/call",
            Some(json!({"serverId": "py", "toolName": tool, "arguments": arguments})),
        )
        .await;
        shown.answer(&format!("call {tool}"), &answer);
    }
    assert!(
        shown.of("call slow").contains("timed out"),
        "{}",
        shown.of("call slow")
    );

    for (method, path, body) in bad_requests() {
        let body = (!body.is_null()).then_some(body);
        let (_, answer) = send(&served, method.clone(), path, body).await;
        shown.answer(&format!("{method} {path}"), &answer);
    }
    not_json(&served, &mut shown).await;
    terminate(&mut served);

    // The same failures on the command line, and what only it meets.
    let env = [("PATH", path.as_str())];
    for (name, _, words) in &failing {
        let run = sb.run_with_env(&["servers", "test", name], &env).failed();
        assert!(
            run.stderr.contains(words),
            "{name} should say {words:?}: {run:?}"
        );
        shown.run(&format!("servers test {name}"), &run);
    }
    for args in [
        &["call", "py", "nope"][..],
        &["call", "py", "add", "--args", "[1]"],
        &["call", "py", "add", "--args", r#"{"a": "one", "b": 2}"#],
        &["call", "py", "fail"],
        &["call", "nope", "echo"],
        &["servers", "remove", "nope"],
        &["servers", "add", "late", "--command", "npx", "--arg", "pkg"],
        &["tools", "list"],
        &["tool-nodes", "run", "nope"],
    ] {
        let run = sb.run_with_env(args, &env);
        shown.run(&args.join(" "), &run);
    }
    let files = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("not-toml.toml", "[manager\n"),
        ("unknown-key.toml", "[bogus]\nx = 5\n"),
        (
            "bad-duration.toml",
            "[manager]\nconnect_timeout = \"soon\"\n",
        ),
        ("bad-type.toml", "[nodes.x]\nurl = 5\n"),
        ("bad-retries.toml", "[manager.retry]\nmax_retries = -1\n"),
    ] {
        let file = files.path().join(name);
        std::fs::write(&file, text).unwrap();
        let run = sb
            .run(&["--config", file.to_str().unwrap(), "servers", "list"])
            .failed();
        shown.run(&format!("settings {name}"), &run);
    }
    for (name, text) in [
        ("import-not-json.json", "{bad"),
        (
            "import-wrong.json",
            r#"{"mcpServers": {"a": {"command": 5}}}"#,
        ),
        ("import-nothing.json", r#"{"servers": 5}"#),
    ] {
        let file = files.path().join(name);
        std::fs::write(&file, text).unwrap();
        let run = sb.run(&["import", file.to_str().unwrap()]);
        shown.run(name, &run);
    }
    let old = Switchboard::new();
    std::fs::create_dir_all(old.data_dir()).unwrap();
    std::fs::write(old.servers_file(), r#"[{"name": 5}]"#).unwrap();
    shown.run(
        "an old servers file",
        &old.run(&["servers", "list"]).failed(),
    );

    // A model provider that cannot be reached.
    let provider = [
        ("PATH", path.clone()),
        ("OPENAI_API_KEY", "k".to_owned()),
        ("OPENAI_BASE_URL", format!("http://127.0.0.1:{refused}/v1")),
        ("OPENAI_MODEL", "m".to_owned()),
    ];
    let run = chat(&sb, &provider, "hello\n").await;
    assert!(
        run.stderr
            .contains("cannot reach the provider: the connection was refused"),
        "{run:?}"
    );
    shown.run("chat", &run);

    shown.assert_in_words();
}
