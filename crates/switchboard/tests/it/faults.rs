//! Faults during a chat, against `serve` as it runs: the model's stream cut
//! mid-answer, a remote MCP server's connection cut while its call's stream is open, a stdio
//! server killed mid-call, Postgres dropping every connection during a run, and the disk
//! under SQLite filling up. Each time the turn ends cleanly, nothing is half-written, and the
//! next turn works without a restart.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::node::descendants_running;
use common::postgres::FreshPostgres;
use common::rest::{
    Events, add_provider, auto_approve, create_server, eventually, remote_body, send, stdio_body,
};
use common::serve::{Served, serve, terminate};
use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::{EverythingHttp, Peers, ScriptedLlm, TcpRelay, Turn, process};

/// The single-user demo server goes, `body` comes, and its `tools` need no approval.
async fn only_server(served: &Served, body: Value, tools: &[&str]) -> String {
    let (status, gone) = send(served, Method::DELETE, "/api/mcp-servers/demo", None).await;
    assert!(status.is_success(), "{status} {gone}");
    let id = create_server(served, body).await;
    for tool in tools {
        auto_approve(served, &id, tool).await;
    }
    id
}

/// One turn with the one-shot form, in `conversation` when given.
async fn chat(served: &Served, conversation: Option<&str>, text: &str) -> (u16, Value) {
    let mut body = json!({"message": text});
    if let Some(id) = conversation {
        body["conversationId"] = json!(id);
    }
    let (status, answer) = send(served, Method::POST, "/api/chat/message", Some(body)).await;
    (status.as_u16(), answer)
}

async fn history(served: &Served, conversation: &str) -> Value {
    let path = format!("/api/conversations/{conversation}");
    let (status, history) = send(served, Method::GET, &path, None).await;
    assert_eq!(status, 200, "{history}");
    history
}

/// Waits for the question of the call in flight (the call's stream is open at the server).
async fn until_asked(events: &mut Events) -> Value {
    events
        .until("assistant.toolCall.updated", |data| {
            !data["toolCall"]["question"].is_null()
        })
        .await
}

#[tokio::test]
async fn the_models_stream_cut_mid_answer_fails_the_turn_and_the_next_is_answered() {
    let llm = ScriptedLlm::start(vec![
        Turn::text("This answer breaks off somewhere in the middle of its many words").cut(),
        Turn::text("Asked again, answered whole."),
    ])
    .await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user"]);
    add_provider(&served, &llm).await;

    let (status, answer) = chat(&served, None, "Tell me something").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "failed", "{answer}");
    assert_eq!(answer["error"]["code"], "UPSTREAM_UNAVAILABLE", "{answer}");
    let why = answer["error"]["message"].as_str().unwrap();
    assert!(why.contains("broke off"), "{why}");
    // What the model said before the cut is kept, and only that.
    let conversation = answer["conversationId"].as_str().unwrap().to_owned();
    let said = history(&served, &conversation).await["messages"][1]["content"].clone();
    let said = said.as_str().unwrap();
    assert!(
        said.starts_with("This answer") && !said.contains("many words"),
        "{said:?}"
    );
    assert_eq!(
        llm.requests().len(),
        1,
        "a broken answer is not asked again"
    );

    let (status, answer) = chat(&served, Some(&conversation), "Again, please").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "completed", "{answer}");
    assert_eq!(answer["content"], "Asked again, answered whole.");
    assert!(terminate(&mut served).success());
}

/// The server is killed while the person answers its question: the answer cannot be
/// delivered and the call's stream cannot be taken up again, so the call fails once the idle
/// call timeout has passed since the answer (not at the ten-minute ceiling a person's
/// question allows); the model hears of it, and once the server is back the next call works.
#[tokio::test]
async fn a_remote_server_killed_mid_call_fails_that_call_and_the_next_reaches_it_again() {
    let mut peer = Peers::locate()
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .unwrap();
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__trigger-elicitation-request", json!({})),
        Turn::text("The server went away."),
        Turn::tool_call("mcp__everything__echo", json!({"message": "it is back"})),
        Turn::text("It answered again."),
    ])
    .await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user", "--call-timeout", "1s"]);
    add_provider(&served, &llm).await;
    let body = remote_body("everything", "streamable_http", &peer.url(), None);
    only_server(&served, body, &["trigger-elicitation-request", "echo"]).await;

    let mut events = Events::open(&served).await;
    let ((status, answer), ()) = tokio::join!(chat(&served, None, "Ask me"), async {
        let asked = until_asked(&mut events).await;
        peer.kill().await.unwrap();
        let path = format!(
            "/api/messages/{}/tool-calls/{}/answer",
            asked["messageId"].as_str().unwrap(),
            asked["toolCall"]["id"].as_str().unwrap()
        );
        let answer = json!({
            "questionId": asked["toolCall"]["question"]["id"],
            "action": "accept",
            "content": {"name": "Ada Lovelace", "check": true},
        });
        let (status, answered) = send(&served, Method::POST, &path, Some(answer)).await;
        assert_eq!(status, 200, "{answered}");
    });
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "completed", "{answer}");
    assert_eq!(answer["content"], "The server went away.");
    let call = &answer["toolCalls"][0];
    assert_eq!(call["status"], "error", "{call}");
    assert_eq!(call["response"]["error"]["code"], "MCP_TIMEOUT", "{call}");
    assert!(llm.requests()[1].body.to_string().contains("timed out"));

    peer.restart().await.unwrap();
    let conversation = answer["conversationId"].as_str().unwrap();
    let (status, answer) = chat(&served, Some(conversation), "Echo").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["toolCalls"][0]["status"], "done", "{answer}");
    assert_eq!(answer["content"], "It answered again.");
    assert!(terminate(&mut served).success());
}

#[tokio::test]
async fn a_stdio_server_killed_mid_call_fails_that_call_and_the_next_starts_it_again() {
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__trigger-elicitation-request", json!({})),
        Turn::text("The server died."),
        Turn::tool_call(
            "mcp__everything__echo",
            json!({"message": "after the kill"}),
        ),
        Turn::text("It answered again."),
    ])
    .await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user"]);
    add_provider(&served, &llm).await;
    let command = Peers::locate().everything_stdio();
    let body = stdio_body("everything", &command, None);
    only_server(&served, body, &["trigger-elicitation-request", "echo"]).await;

    let mut events = Events::open(&served).await;
    let pid = served.child.id();
    let ((status, answer), killed) = tokio::join!(chat(&served, None, "Ask me"), async {
        until_asked(&mut events).await;
        let servers = descendants_running(pid, "everything");
        assert_eq!(servers.len(), 1, "{servers:?}");
        let group = process::pgid_of(servers[0]).unwrap();
        nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(i32::try_from(group).unwrap()),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        servers[0]
    });
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "completed", "{answer}");
    assert_eq!(answer["content"], "The server died.");
    let call = &answer["toolCalls"][0];
    assert_eq!(call["status"], "error", "{call}");
    assert_eq!(
        call["response"]["error"]["code"], "MCP_CONNECTION_ERROR",
        "{call}"
    );
    // Not sent again: the tool is not annotated idempotent.
    let why = call["response"]["error"]["message"].as_str().unwrap();
    assert!(why.contains("not sent again"), "{why}");
    assert!(!process::alive(killed));

    let conversation = answer["conversationId"].as_str().unwrap();
    let (status, answer) = chat(&served, Some(conversation), "Echo").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["toolCalls"][0]["status"], "done", "{answer}");
    assert_eq!(answer["content"], "It answered again.");
    let servers = descendants_running(pid, "everything");
    assert_eq!(servers.len(), 1, "one server process again: {servers:?}");
    assert_ne!(servers[0], killed);
    assert!(terminate(&mut served).success());
}

/// Every connection to Postgres dropped during a run, and none taken for a while (what a
/// restart of the database looks like from here): `serve` notices (`/readyz` fails), then
/// takes new connections once Postgres is back, and the run that was waiting on the model
/// completes with everything in place, without a restart.
// Two threads: `serve` blocks the test's thread while it starts, and the relay it connects
// through runs on the test's runtime.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_dropping_every_connection_during_a_run_is_weathered_without_a_restart() {
    let Some(database) = FreshPostgres::create().await else {
        return;
    };
    let address = url::Url::parse(&database.url).unwrap();
    let target = format!(
        "{}:{}",
        address.host_str().unwrap(),
        address.port().unwrap_or(5432)
    );
    let relay = TcpRelay::start(target.parse().unwrap()).await.unwrap();
    let mut through = address.clone();
    through.set_port(Some(relay.addr().port())).unwrap();
    let llm = ScriptedLlm::start(vec![
        // Long enough for the outage below to begin and end while the model thinks.
        Turn::tool_call("mcp__demo__echo", json!({"text": "through the outage"}))
            .delay(std::time::Duration::from_secs(2)),
        Turn::text("Done despite the database."),
        Turn::text("Still here."),
    ])
    .await;
    let sb = Switchboard::new();
    let mut served = serve(&sb, &["--single-user", "--database-url", through.as_str()]);
    add_provider(&served, &llm).await;
    auto_approve(&served, "demo", "echo").await;

    let ((status, answer), ()) = tokio::join!(chat(&served, None, "Echo it"), async {
        eventually("the model is asked", || async {
            (llm.requests().len() == 1)
                .then_some(())
                .ok_or_else(|| "not yet".to_owned())
        })
        .await;
        relay.refuse();
        relay.cut_all();
        eventually("serve notices the outage", || async {
            let (status, _) = send(&served, Method::GET, "/readyz", None).await;
            (status != 200).then_some(()).ok_or(status.to_string())
        })
        .await;
        assert!(relay.refused() > 0, "serve tried to reconnect");
        relay.resume();
    });
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "completed", "{answer}");
    assert_eq!(answer["content"], "Done despite the database.");
    assert_eq!(answer["toolCalls"][0]["status"], "done", "{answer}");
    let conversation = answer["conversationId"].as_str().unwrap();
    let stored = history(&served, conversation).await;
    assert_eq!(stored["messages"].as_array().unwrap().len(), 2, "{stored}");
    assert_eq!(stored["running"], false);

    let (status, answer) = chat(&served, Some(conversation), "Still there?").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["content"], "Still here.");
    let (status, _) = send(&served, Method::GET, "/readyz", None).await;
    assert_eq!(status, 200);
    assert!(terminate(&mut served).success());
    database.drop_database().await;
}

/// A small tmpfs at `dir`, unmounted when dropped.
struct SmallDisk {
    dir: std::path::PathBuf,
}

impl SmallDisk {
    /// `None`, with a line saying so, where this process may not mount (it is not root).
    fn mount(dir: &std::path::Path, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir_all(dir).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !mounted {
            eprintln!("skipped: cannot mount a small tmpfs here (it takes root), so no disk fills");
            return None;
        }
        Some(SmallDisk {
            dir: dir.to_owned(),
        })
    }

    /// Writes `path` until the disk has no room left.
    fn fill(path: &std::path::Path) {
        use std::io::Write;
        let mut file = std::fs::File::create(path).unwrap();
        for size in [1 << 20, 4096, 1] {
            let chunk = vec![0u8; size];
            while file.write_all(&chunk).is_ok() {}
        }
        let _ = file.sync_all();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.dir)
            .status();
    }
}

/// The disk under SQLite fills up: writes are refused with `STORAGE_FULL` (507) and nothing
/// half-written, reads go on, and once there is room again writes work without a restart and
/// the database is intact.
#[tokio::test]
async fn a_full_disk_under_sqlite_refuses_writes_cleanly_until_there_is_room() {
    let sb = Switchboard::new();
    let Some(_disk) = SmallDisk::mount(&sb.data_dir(), "24m") else {
        return;
    };
    let mut served = serve(&sb, &["--single-user"]);
    let filler = sb.data_dir().join("filler");
    SmallDisk::fill(&filler);

    // Each assistant carries 64 KB; some may still fit in the log's room, then none.
    let prompt = "x".repeat(64 * 1024);
    let mut kept = Vec::new();
    let refused = loop {
        let name = format!("assistant {}", kept.len());
        let body = json!({"name": name, "systemPrompt": prompt, "toolMode": "native"});
        let (status, answer) = send(&served, Method::POST, "/api/assistants", Some(body)).await;
        match status.as_u16() {
            201 => kept.push(name),
            507 => break answer,
            other => panic!("{other}: {answer}"),
        }
        assert!(kept.len() < 64, "the disk never filled");
    };
    assert_eq!(refused["code"], "STORAGE_FULL", "{refused}");
    assert!(
        refused["message"].as_str().unwrap().contains("full"),
        "{refused}"
    );
    assert!(refused["hint"].is_string(), "{refused}");

    // Reads go on, and hold exactly what was answered 201.
    let (status, listed) = send(&served, Method::GET, "/api/assistants", None).await;
    assert_eq!(status, 200, "{listed}");
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert_eq!(names.len(), kept.len(), "{names:?}");
    for name in &kept {
        assert!(names.contains(&name.as_str()), "{name} lost");
    }

    std::fs::remove_file(&filler).unwrap();
    let body = json!({"name": "after", "systemPrompt": "room again", "toolMode": "native"});
    let (status, answer) = send(&served, Method::POST, "/api/assistants", Some(body)).await;
    assert_eq!(status, 201, "{answer}");
    assert!(terminate(&mut served).success());

    use sqlx::Connection;
    let url = format!("sqlite://{}", sb.database().display());
    let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let (check,): (String,) = sqlx::query_as("PRAGMA integrity_check")
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(check, "ok");
}
