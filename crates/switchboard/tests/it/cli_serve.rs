//! `switchboard serve` as a process: first start prints an admin token and brings the demo
//! server; the API answers with it; SIGTERM ends the process and every MCP child with it.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::serve::{Served, get, serve, serve_with_env, terminate};
use common::{BIN, Switchboard};
use serde_json::Value;
use std::process::Command;
use switchboard_testkit::process;

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
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("loopback"), "{stderr}");
    assert!(
        stderr.contains("VALIDATION_ERROR"),
        "a mistake, not ours: {stderr}"
    );
}

/// An address already taken is said in words, with what to do, and not as our failure.
#[test]
fn a_port_in_use_is_explained() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let sb = Switchboard::new();
    let out = Command::new(BIN)
        .arg("--data-dir")
        .arg(sb.data_dir())
        .args(["serve", "--single-user", "--listen", &address])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("already listens there"), "{stderr}");
    assert!(stderr.contains("--listen"), "{stderr}");
    assert!(!stderr.contains("INTERNAL_ERROR"), "{stderr}");
}

#[test]
fn single_user_mode_is_not_served_to_a_proxy() {
    let sb = Switchboard::new();
    for flags in [
        ["--public-url", "https://switchboard.example.com"],
        ["--allowed-host", "switchboard.internal"],
        ["--allowed-origin", "https://app.example.com"],
    ] {
        let out = Command::new(BIN)
            .arg("--data-dir")
            .arg(sb.data_dir())
            .args(["serve", "--single-user", "--listen", "127.0.0.1:0"])
            .args(flags)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{flags:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(flags[0]), "{stderr}");
    }
}

async fn send(
    served: &Served,
    method: reqwest::Method,
    path: &str,
    body: Value,
) -> (reqwest::StatusCode, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", served.base))
        .json(&body);
    if let Some(token) = &served.token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

/// Reads the event stream until an event of type `kind`; returns its data.
async fn wait_for_event(events: &mut reqwest::Response, kind: &str) -> Value {
    let mut text = String::new();
    let marker = format!("event: {kind}\n");
    loop {
        if let Some(at) = text.find(&marker) {
            let rest = &text[at..];
            if let Some(end) = rest.find("\n\n") {
                let data = rest[..end]
                    .lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .unwrap();
                return serde_json::from_str(data).unwrap();
            }
        }
        let chunk = events
            .chunk()
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("the stream ended before {kind}: {text}"));
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
}

/// Stores a provider answered by `llm`.
async fn add_provider(served: &Served, llm: &switchboard_testkit::ScriptedLlm) {
    let (status, provider) = send(
        served,
        reqwest::Method::POST,
        "/api/providers",
        serde_json::json!({"name": "scripted", "kind": "openai", "baseUrl": llm.openai_base_url(),
               "apiKey": "k", "defaultModel": "m"}),
    )
    .await;
    assert_eq!(status, 201, "{provider}");
}

/// A turn whose tool call waits for approval.
struct Waiting {
    conversation: String,
    /// The assistant message holding the call.
    message: String,
    call: String,
}

/// Adds a provider for `llm` and asks what 6*7 is; the model's `calculate` call waits.
async fn ask_for_a_calculation(served: &Served, llm: &switchboard_testkit::ScriptedLlm) -> Waiting {
    use reqwest::Method;
    use serde_json::json;
    add_provider(served, llm).await;
    let (status, answer) = send(
        served,
        Method::POST,
        "/api/chat/message",
        json!({"message": "What is 6*7?"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "awaiting_approval", "{answer}");
    let text = |v: &Value| v.as_str().unwrap().to_owned();
    Waiting {
        conversation: text(&answer["conversationId"]),
        message: text(&answer["message"]["id"]),
        call: text(&answer["message"]["toolCalls"][0]["id"]),
    }
}

/// A call waiting for approval survives SIGTERM: the process exits at once with no MCP child
/// left, and after the restart the call is still pending, can be approved, and the run goes
/// on to the model's answer.
#[tokio::test]
async fn a_pending_approval_survives_a_restart_of_serve() {
    use reqwest::Method;
    use serde_json::json;
    use switchboard_testkit::{ScriptedLlm, Turn};

    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__demo__calculate", json!({"expression": "6*7"})),
        Turn::text("It is 42."),
    ])
    .await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user"]);
    let Waiting {
        conversation,
        message,
        call,
    } = ask_for_a_calculation(&served, &llm).await;
    let children = process::descendants(served.child.id());
    assert!(!children.is_empty(), "the demo server runs");

    let exit = terminate(&mut served);
    assert!(exit.success(), "{exit:?}");
    for pid in children {
        assert!(!process::alive(pid), "MCP child {pid} outlived serve");
    }

    let mut again = serve(&sb, &["--single-user"]);
    let (status, history) = get(&again, &format!("/api/conversations/{conversation}")).await;
    assert_eq!(status, 200, "{history}");
    let pending = &history["messages"][1]["toolCalls"][0];
    assert_eq!(pending["status"], "pending", "{history}");
    assert!(pending["approved"].is_null(), "{history}");

    let mut events = reqwest::get(format!("{}/api/events", again.base))
        .await
        .unwrap();
    let (status, decided) = send(
        &again,
        Method::POST,
        &format!("/api/messages/{message}/tool-confirm"),
        json!({"toolCallId": call, "approved": true}),
    )
    .await;
    assert_eq!(status, 200, "{decided}");
    let completed = wait_for_event(&mut events, "message.completed").await;
    assert_eq!(completed["content"], "It is 42.");
    let (_, history) = get(&again, &format!("/api/conversations/{conversation}")).await;
    let done = &history["messages"][1]["toolCalls"][0];
    assert_eq!(done["status"], "done", "{history}");
    assert!(done["response"].to_string().contains("42"), "{done}");
    // An open event stream does not hold the shutdown.
    assert!(terminate(&mut again).success());
    drop(events);
}

/// A fresh database on the test Postgres server, dropped at the end; `None` (with one line
/// saying so) when `SWITCHBOARD_TEST_POSTGRES` is not set.
struct FreshPostgres {
    admin_url: String,
    name: String,
    url: String,
}

impl FreshPostgres {
    async fn create() -> Option<FreshPostgres> {
        use sqlx::Connection;
        let Ok(admin_url) = std::env::var("SWITCHBOARD_TEST_POSTGRES") else {
            eprintln!("skipped: SWITCHBOARD_TEST_POSTGRES is not set, so no Postgres test runs");
            return None;
        };
        let name = format!("sb_test_{}", uuid::Uuid::now_v7().simple());
        let mut admin = sqlx::PgConnection::connect(&admin_url).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .unwrap();
        admin.close().await.unwrap();
        let (base, _) = admin_url.rsplit_once('/').unwrap();
        Some(FreshPostgres {
            url: format!("{base}/{name}"),
            admin_url,
            name,
        })
    }

    async fn drop_database(self) {
        use sqlx::Connection;
        let mut admin = sqlx::PgConnection::connect(&self.admin_url).await.unwrap();
        sqlx::query(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ))
        .execute(&mut admin)
        .await
        .unwrap();
    }
}

/// Two `serve` replicas on one Postgres: the run waits for an approval on replica A, the
/// approval is given on replica B, and A goes on — B's event stream shows the answer.
#[tokio::test]
async fn an_approval_given_on_one_replica_resumes_the_run_on_another() {
    use reqwest::Method;
    use serde_json::json;
    use switchboard_testkit::{ScriptedLlm, Turn};

    let Some(database) = FreshPostgres::create().await else {
        return;
    };
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__demo__calculate", json!({"expression": "6*7"})),
        Turn::text("It is 42."),
    ])
    .await;
    // One data dir: the replicas share the secret key file as well as the database.
    let sb = Switchboard::new();
    let args = ["--single-user", "--database-url", database.url.as_str()];
    let mut a = serve(&sb, &args);
    let mut b = serve(&sb, &args);

    let Waiting {
        conversation,
        message,
        call,
    } = ask_for_a_calculation(&a, &llm).await;

    let mut events_on_b = reqwest::get(format!("{}/api/events", b.base))
        .await
        .unwrap();
    let (status, decided) = send(
        &b,
        Method::POST,
        &format!("/api/messages/{message}/tool-confirm"),
        json!({"toolCallId": call, "approved": true}),
    )
    .await;
    assert_eq!(status, 200, "{decided}");
    let completed = wait_for_event(&mut events_on_b, "message.completed").await;
    assert_eq!(completed["content"], "It is 42.");

    let (_, history) = get(&b, &format!("/api/conversations/{conversation}")).await;
    let done = &history["messages"][1]["toolCalls"][0];
    assert_eq!(done["status"], "done", "{history}");
    // The run went on once, on A: the model was asked twice in all.
    assert_eq!(llm.requests().len(), 2);
    // Only A ran the demo server.
    assert!(process::descendants(b.child.id()).is_empty());

    assert!(terminate(&mut a).success());
    assert!(terminate(&mut b).success());
    drop(events_on_b);
    database.drop_database().await;
}

/// Starts a conversation in `served` answered through `llm`; returns its id.
async fn conversation_with(served: &Served, llm: &switchboard_testkit::ScriptedLlm) -> String {
    use reqwest::Method;
    use serde_json::json;
    add_provider(served, llm).await;
    let (status, conversation) = send(served, Method::POST, "/api/conversations", json!({})).await;
    assert_eq!(status, 201, "{conversation}");
    conversation["id"].as_str().unwrap().to_owned()
}

/// SIGTERM while the model is answering: the run gets its grace and finishes; the answer is
/// stored before the process exits.
// Several threads: `terminate` blocks one while the scripted model answers on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_answering_at_sigterm_finishes_before_the_exit() {
    use reqwest::Method;
    use serde_json::json;
    use switchboard_testkit::{ScriptedLlm, Turn};

    let llm = ScriptedLlm::start(vec![
        Turn::text("Finished in time.").delay(std::time::Duration::from_millis(400)),
    ])
    .await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user", "--shutdown-grace", "60s"]);
    let conversation = conversation_with(&served, &llm).await;
    let (status, started) = send(
        &served,
        Method::POST,
        &format!("/api/conversations/{conversation}/messages"),
        json!({"content": "Take your time"}),
    )
    .await;
    assert_eq!(status, 202, "{started}");
    assert!(terminate(&mut served).success());

    let mut again = serve(&sb, &["--single-user"]);
    let (_, history) = get(&again, &format!("/api/conversations/{conversation}")).await;
    assert_eq!(
        history["messages"][1]["content"], "Finished in time.",
        "{history}"
    );
    assert!(terminate(&mut again).success());
}

/// SIGTERM while the model takes longer than the grace: the run is cancelled, the process
/// exits, and after the restart the conversation takes a new message (nothing holds it).
// Several threads: `terminate` blocks one while the scripted model answers on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_outlasting_the_grace_is_cancelled_and_releases_its_conversation() {
    use reqwest::Method;
    use serde_json::json;
    use switchboard_testkit::{ScriptedLlm, Turn};

    let llm = ScriptedLlm::start(vec![
        Turn::text("Too late.").delay(std::time::Duration::from_secs(600)),
        Turn::text("Hello again."),
    ])
    .await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user", "--shutdown-grace", "100ms"]);
    let conversation = conversation_with(&served, &llm).await;
    let (status, _) = send(
        &served,
        Method::POST,
        &format!("/api/conversations/{conversation}/messages"),
        json!({"content": "This will not be answered"}),
    )
    .await;
    assert_eq!(status, 202);
    let started = std::time::Instant::now();
    assert!(terminate(&mut served).success());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "serve waited for the model"
    );

    let mut again = serve(&sb, &["--single-user"]);
    let (status, answer) = send(
        &again,
        Method::POST,
        "/api/chat/message",
        json!({"message": "Are you there?", "conversationId": conversation}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "completed", "{answer}");
    assert_eq!(answer["message"]["content"], "Hello again.");
    let (_, history) = get(&again, &format!("/api/conversations/{conversation}")).await;
    assert!(
        !history.to_string().contains("Too late."),
        "the cut-off answer was not stored: {history}"
    );
    assert!(terminate(&mut again).success());
}

/// With no stored provider, `serve` answers through the one its environment describes
/// (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_MODEL`), and never shows its key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_environments_provider_answers_when_none_is_stored() {
    use reqwest::Method;
    use serde_json::json;
    use switchboard_testkit::{ScriptedLlm, Turn};

    let llm = ScriptedLlm::start(vec![Turn::text("From the environment.")]).await;
    let sb = Switchboard::new();
    let url = llm.openai_base_url();
    let mut served = serve_with_env(
        &sb,
        &["--single-user"],
        &[
            ("OPENAI_BASE_URL", url.as_str()),
            ("OPENAI_API_KEY", "sk-from-env"),
            ("OPENAI_MODEL", "env-model"),
        ],
    );
    let (status, answer) = send(
        &served,
        Method::POST,
        "/api/chat/message",
        json!({"message": "Hello"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["message"]["content"], "From the environment.");
    let request = &llm.requests()[0];
    assert_eq!(request.body["model"], "env-model");
    assert!(
        request
            .headers
            .iter()
            .any(|(name, value)| name == "authorization" && value == "Bearer sk-from-env"),
        "{:?}",
        request.headers
    );
    let (_, providers) = get(&served, "/api/providers").await;
    assert_eq!(providers, json!([]));
    assert!(!answer.to_string().contains("sk-from-env"));
    assert!(terminate(&mut served).success());
}
