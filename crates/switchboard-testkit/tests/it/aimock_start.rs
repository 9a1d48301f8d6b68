//! The aimock launcher: it starts, answers on both endpoints, and leaves no process behind.

use std::time::Duration;

use serde_json::json;
use switchboard_testkit::{AIMOCK_CLI_JS, Aimock, Peers, process};

#[tokio::test]
async fn aimock_answers_and_dies_completely() {
    let peers = Peers::locate();
    // aimock's own example fixtures: "hello" gets a greeting.
    let fixtures = peers
        .root()
        .join(AIMOCK_CLI_JS)
        .ancestors()
        .nth(2)
        .expect("the package directory")
        .join("fixtures/example-greeting.json");
    let mut aimock = Aimock::start(&peers, &fixtures)
        .await
        .expect("aimock starts");
    let pid = aimock.pid().expect("running");
    assert_eq!(process::pgid_of(pid), Some(pid), "its own process group");

    let client = reqwest::Client::new();
    let openai: serde_json::Value = client
        .post(format!("{}/chat/completions", aimock.openai_base_url()))
        .json(&json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hello"}]}))
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("JSON");
    assert_eq!(
        openai["choices"][0]["message"]["content"],
        "Hello! How can I help you today?",
        "{}",
        aimock.output()
    );
    let anthropic: serde_json::Value = client
        .post(format!("{}/v1/messages", aimock.anthropic_base_url()))
        .json(&json!({"model": "claude", "max_tokens": 10, "messages": [{"role": "user", "content": "goodbye"}]}))
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("JSON");
    assert_eq!(
        anthropic["content"][0]["text"],
        "Goodbye! Have a great day!"
    );

    aimock.kill().await.expect("killed");
    assert!(aimock.pid().is_none());
    assert!(
        process::wait_until_gone(&[pid], Duration::from_secs(5))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn aimock_with_bad_fixtures_fails_to_start_with_its_output() {
    let peers = Peers::locate();
    let missing = Peers::scripts_dir().join("no-such-fixtures.json");
    let error = Aimock::start(&peers, &missing)
        .await
        .expect_err("no fixtures, no server");
    let message = format!("{error:#}");
    assert!(message.contains("exited before it was ready"), "{message}");
}
