//! Crash safety: a process writing in a loop is killed with SIGKILL; the database then opens
//! cleanly with every committed row and no partial one.
//!
//! The writer is this test binary run again as a child (`crash_child_writer`, ignored unless
//! the child variable is set), so no extra binary is built. It reports each commit on stdout
//! after the store returned; the parent kills it mid-loop and checks what was reported.

// Test code: a failed unwrap is a failed test, which is what it should be.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use switchboard_core::{OwnerId, ServerId, ServerSpec, ToolCallRecord, ToolCallStatus};
use switchboard_store::{MessageRole, NewConversation, NewMessage, Role, StoreConfig};

const CHILD_DIR: &str = "SWITCHBOARD_CRASH_CHILD_DIR";
const CHILD_DB_URL: &str = "SWITCHBOARD_CRASH_CHILD_DB_URL";
const COMMITS_BEFORE_KILL: usize = 120;

fn call(i: usize) -> ToolCallRecord {
    ToolCallRecord {
        id: format!("call_{i}"),
        server_id: ServerId(format!("server-{i}")),
        server_name: format!("server {i}"),
        tool_name: "echo".into(),
        display_name: format!("mcp__server-{i}__echo"),
        arguments: serde_json::json!({"i": i, "padding": "x".repeat(512)})
            .as_object()
            .cloned()
            .unwrap(),
        status: ToolCallStatus::Pending,
        response: None,
        is_error: None,
        round: 0,
        approved: None,
        question: None,
        pending_input: None,
        task: None,
        resolved_arguments: None,
        mapped_parameters: Default::default(),
    }
}

fn spec(i: usize) -> ServerSpec {
    ServerSpec::http(format!("server {i}"), "https://example.com/mcp", None)
        .with_header("X-Key", format!("secret-{i}"))
}

#[test]
#[ignore = "the writer half of a_killed_writer_keeps_every_commit_and_no_partial_row"]
fn crash_child_writer() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    let mut config = StoreConfig::in_dir(dir);
    config.database_url = std::env::var(CHILD_DB_URL).ok();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = switchboard_store::open(&config).await.unwrap();
        let owner = store
            .ensure_user(&OwnerId::local(), "local", Role::Admin)
            .await
            .unwrap()
            .id;
        let conversation = store
            .create_conversation(&owner, &NewConversation::default())
            .await
            .unwrap();
        let message = store
            .append_message(
                &owner,
                &conversation.id,
                &NewMessage::text(MessageRole::Assistant, "working"),
            )
            .await
            .unwrap();
        println!("message {}", message.id);
        for i in 0.. {
            store.create_server(&owner, &spec(i)).await.unwrap();
            store
                .add_tool_calls(&owner, &message.id, &[call(i)])
                .await
                .unwrap();
            println!("committed {i}");
        }
    });
}

async fn check_after_kill(config: StoreConfig) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["crash_child_writer", "--exact", "--ignored", "--nocapture"])
        .env(CHILD_DIR, &config.data_dir)
        .envs(config.database_url.as_ref().map(|url| (CHILD_DB_URL, url)))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut message_id = None;
    let mut last_commit = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(id) = line.strip_prefix("message ") {
            message_id = Some(id.to_owned());
        } else if let Some(i) = line.strip_prefix("committed ") {
            let i: usize = i.parse().unwrap();
            last_commit = Some(i);
            if i + 1 >= COMMITS_BEFORE_KILL {
                break;
            }
        }
    }
    // Mid-write: the loop never pauses between transactions.
    child.kill().unwrap();
    child.wait().unwrap();
    let message_id = message_id.expect("the writer started");
    let last_commit = last_commit.expect("the writer committed");

    let store = switchboard_store::open(&config).await.unwrap();
    let owner = OwnerId::local();
    let servers = store.connection_specs(&owner).await.unwrap();
    let message = store.message(&owner, &message_id).await.unwrap();
    // Everything reported is there; at most one write beyond it, and it is whole.
    assert!(servers.len() > last_commit, "{} servers", servers.len());
    assert!(servers.len() <= last_commit + 2);
    for spec in &servers {
        let i: usize = spec.id.0.trim_start_matches("server-").parse().unwrap();
        assert_eq!(spec, &self::spec(i), "server {i} came back whole");
    }
    let calls = &message.tool_calls;
    assert!(calls.len() > last_commit, "{} calls", calls.len());
    for (i, stored) in calls.iter().enumerate() {
        assert_eq!(stored, &call(i));
    }
}

#[tokio::test]
async fn sqlite_a_killed_writer_keeps_every_commit_and_no_partial_row() {
    let dir = tempfile::tempdir().unwrap();
    check_after_kill(StoreConfig::in_dir(dir.path())).await;
    // The file itself is sound, not just readable.
    let pool = sqlx::SqlitePool::connect_with(
        sqlx::sqlite::SqliteConnectOptions::new()
            .filename(dir.path().join(switchboard_store::DB_FILE)),
    )
    .await
    .unwrap();
    let (check,): (String,) = sqlx::query_as("PRAGMA integrity_check")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(check, "ok");
}

#[tokio::test]
async fn postgres_a_killed_writer_keeps_every_commit_and_no_partial_row() {
    let Some(db) = common::TestDb::postgres().await else {
        return;
    };
    check_after_kill(db.config.clone()).await;
}
