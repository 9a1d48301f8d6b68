//! The README's screenshots from a realistic session in the page.

use serde_json::json;
use switchboard_testkit::{Peers, Turn};

use super::Ui;

/// The README's screenshots (`docs/screenshot-chat.png` and `docs/screenshot-settings.png` are
/// copied from `target/tmp/ui-screenshots/readme-*.png`), from a realistic session: the catalogue's time
/// server (mcp-server-time, from the pinned reference peers), an assistant using it, a question,
/// the call and its result, the answer.
#[tokio::test(flavor = "multi_thread")]
async fn readme_screenshot_of_a_realistic_session() {
    let answer = "Your 9:00 call in Tokyo tomorrow is at **1:00 in Berlin**, the same day: Tokyo \
                  is 8 hours ahead of Berlin in winter. You may want to suggest 16:00 Tokyo time \
                  (8:00 in Berlin) instead.";
    let peers = Peers::locate();
    let reference_bin = peers.root().join("ref/bin");
    let ui = Ui::start_with(
        vec![
        Turn::tool_call(
            "mcp__time__convert_time",
            json!({"source_timezone": "Asia/Tokyo", "time": "09:00", "target_timezone": "Europe/Berlin"}),
        ),
        Turn::text(answer),
        ],
        None,
        Some(&reference_bin),
    )
    .await;
    // Named as a person writes it: the pinned reference server is first on serve's PATH.
    ui.api(
        reqwest::Method::POST,
        "/api/mcp-servers",
        Some(json!({
            "name": "time",
            "transport": "stdio",
            "command": "mcp-server-time",
            "args": ["--local-timezone=Europe/Berlin"],
            "auto_approved_tools": ["convert_time", "get_current_time"],
        })),
    )
    .await;
    let assistant = ui
        .api(
            reqwest::Method::POST,
            "/api/assistants",
            Some(json!({
                "name": "Travel planner",
                "systemPrompt": "Help plan trips and meetings across time zones.",
                "toolMode": "native",
            })),
        )
        .await;
    let id = assistant["id"].as_str().unwrap();
    ui.api(
        reqwest::Method::PUT,
        &format!("/api/assistants/{id}/mcp-servers"),
        Some(json!({"serverIds": ["time"]})),
    )
    .await;
    // The demo server every new store starts with runs this machine's build: not shown.
    let _ = reqwest::Client::new()
        .delete(format!("{}/api/mcp-servers/demo", ui.served.base))
        .bearer_auth(ui.served.token.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    // A second server from the catalogue, as a person sets one up (not started here).
    ui.api(
        reqwest::Method::POST,
        "/api/catalogue/filesystem/add",
        Some(json!({"settings": {"root": "/home/ada/notes"}})),
    )
    .await;
    ui.scenario("readme").await;
    let requests = ui.llm.requests();
    let second = requests[1].body.to_string();
    assert!(
        second.contains("Europe/Berlin"),
        "the tool's result: {second}"
    );
    ui.stop();
}
