//! The conversation list in the page (grouped by date, searched, renamed), the first screen's
//! box (a resource attached and a prompt used before any conversation exists) and the phone
//! layout (the header a menu, the list a drawer).

use serde_json::json;
use switchboard_testkit::Turn;

use super::{Ui, helper_with_everything};

/// A conversation titled `title`; its id.
async fn titled(ui: &Ui, title: &str) -> String {
    let created = ui
        .api(
            reqwest::Method::POST,
            "/api/conversations",
            Some(json!({"title": title})),
        )
        .await;
    created["id"].as_str().unwrap().to_owned()
}

/// The conversation list grouped by date, searched and a conversation renamed in the page.
/// Two conversations are made older in the store (the API stamps everything now).
#[tokio::test(flavor = "multi_thread")]
async fn chat_conversations_are_grouped_by_date_searched_and_renamed() {
    use sqlx::Connection;
    let ui = Ui::start(vec![Turn::text("Booked.")]).await;
    let trip = titled(&ui, "Trip to Lisbon").await;
    // Streamed, so the run has ended (and touched its conversation) when the body has.
    let run = reqwest::Client::new()
        .post(format!(
            "{}/api/conversations/{trip}/messages",
            ui.served.base
        ))
        .bearer_auth(ui.served.token.as_deref().unwrap())
        .header("accept", "text/event-stream")
        .json(&json!({"content": "Book the 100% cotton tour"}))
        .send()
        .await
        .unwrap();
    assert!(run.text().await.unwrap().contains("message.completed"));
    let report = titled(&ui, "Quarterly report").await;
    let ideas = titled(&ui, "Old ideas").await;
    titled(&ui, "Groceries").await;
    let url = format!("sqlite://{}", ui.sb.database().display());
    let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let day: i64 = 24 * 60 * 60 * 1000;
    for (id, days) in [(&report, 3), (&ideas, 45)] {
        sqlx::query("UPDATE conversations SET updated_at = updated_at - $1 WHERE id = $2")
            .bind(days * day)
            .bind(id)
            .execute(&mut db)
            .await
            .unwrap();
    }
    ui.scenario("conversations").await;

    let renamed = ui
        .api(reqwest::Method::GET, "/api/conversations?q=shopping", None)
        .await;
    assert_eq!(renamed[0]["title"], "Shopping list", "{renamed}");
    assert_eq!(ui.llm.requests().len(), 1);
    ui.stop();
}

/// The first screen attaches a resource and uses a prompt before any conversation exists:
/// the model's first request holds the resource and the prompt's message.
#[tokio::test(flavor = "multi_thread")]
async fn chat_the_start_screen_attaches_and_uses_a_prompt() {
    let ui = Ui::start(vec![Turn::text("Sunny in Lisbon.")]).await;
    helper_with_everything(&ui, None).await;
    ui.scenario("start-screen").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 1);
    let sent = requests[0].body.to_string();
    assert!(sent.contains("What's weather in Lisbon?"), "{sent}");
    assert!(sent.contains("Plan my day there."), "{sent}");
    assert!(
        sent.contains("uri=\\\"demo://resource/static/document/architecture.md\\\""),
        "{sent}"
    );
    ui.stop();
}

/// At a phone's width the header is a menu and the conversation list a drawer.
#[tokio::test(flavor = "multi_thread")]
async fn chat_at_a_phones_width_folds_the_header_and_the_list() {
    let ui = Ui::start(vec![]).await;
    titled(&ui, "Groceries").await;
    titled(
        &ui,
        "Averyveryverylongtitlewithoutanyspacesthatmustwrapratherthanwidenthepage",
    )
    .await;
    ui.scenario("phone").await;
    assert!(ui.llm.requests().is_empty());
    ui.stop();
}
