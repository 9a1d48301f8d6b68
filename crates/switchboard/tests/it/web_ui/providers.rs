//! Providers in the page: a model server on this machine offered and added with one click,
//! each provider tested (what it reached, or what failed in words), and the chat header's
//! model picker with the chat's own settings, remembered and used by its runs.

use serde_json::json;
use switchboard_testkit::{ScriptedLlm, Turn};

use super::Ui;

#[tokio::test(flavor = "multi_thread")]
async fn providers_a_local_server_is_offered_and_each_provider_tested() {
    // "This machine's" model server: a scripted one on a port the settings list.
    let local = ScriptedLlm::start(vec![]).await;
    local.set_models(&["qwen3:8b", "llama3.2:latest"]);
    let keyed = ScriptedLlm::start(vec![]).await;
    keyed.require_api_key("sk-right");
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let settings = format!(
        "[providers]\nlocal_ports = [{closed}, {}]\n",
        local.addr().port()
    );
    let ui = Ui::start_with_settings(vec![], Some(&settings)).await;
    ui.scenario_with(
        "providers",
        &[
            ("SB_LOCAL_URL", local.openai_base_url()),
            ("SB_LOCAL_PORT", local.addr().port().to_string()),
            ("SB_KEYED_URL", keyed.openai_base_url()),
            ("SB_CLOSED_PORT", closed.to_string()),
        ],
    )
    .await;

    let providers = ui.api(reqwest::Method::GET, "/api/providers", None).await;
    let local_name = format!("Local server on port {}", local.addr().port());
    let by_name = |name: &str| {
        providers
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no provider {name} in {providers}"))
    };
    let added = by_name(&local_name);
    assert_eq!(added["baseUrl"], local.openai_base_url());
    assert_eq!(added["defaultModel"], "llama3.2:latest");
    // Moved with the person's consent, the key went along.
    let moved = by_name("Keyed");
    assert_eq!(moved["baseUrl"], local.openai_base_url());
    assert_eq!(moved["apiKey"], "********");
    // The wrong key was tried where it was typed, the right one too; never the kept key
    // at the new origin before the person agreed.
    let sent: Vec<Option<String>> = keyed
        .listings()
        .iter()
        .map(|l| l.header("authorization").map(str::to_owned))
        .collect();
    assert_eq!(
        sent,
        [
            Some("Bearer sk-wrong".to_owned()),
            Some("Bearer sk-right".to_owned())
        ]
    );
    assert!(
        local
            .listings()
            .iter()
            .all(|l| l.header("authorization").is_none())
    );
    ui.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_a_model_picked_in_the_header_is_remembered_and_used() {
    let ui = Ui::start(vec![Turn::text("Default answer."), Turn::text("Réponse.")]).await;
    ui.api(
        reqwest::Method::POST,
        "/api/providers",
        Some(json!({
            "name": "Scripted",
            "kind": "openai",
            "baseUrl": ui.llm.openai_base_url(),
            "defaultModel": "scripted-large",
        })),
    )
    .await;
    ui.scenario("model-picker").await;

    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body["model"], "scripted-large");
    assert!(requests[0].body.get("temperature").is_none());
    let chosen = &requests[1].body;
    assert_eq!(chosen["model"], "scripted-small");
    assert_eq!(chosen["temperature"], 0.5);
    assert_eq!(chosen["messages"][0]["role"], "system");
    assert_eq!(chosen["messages"][0]["content"], "Answer in French.");
    let conversations = ui
        .api(reqwest::Method::GET, "/api/conversations", None)
        .await;
    assert_eq!(conversations[0]["model"], "scripted-small");
    assert_eq!(conversations[0]["temperature"], 0.5);
    ui.stop();
}
