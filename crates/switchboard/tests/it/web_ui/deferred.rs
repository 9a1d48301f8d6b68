//! Deferred tools in the page: each server's tool cost and the tool search on the MCP servers
//! page, an assistant set to deferred with a pinned tool in its editor (and what its tools
//! cost), and a chat in which the model searches, the search shows inline with the tools it
//! found (after a reload too) and the found tool is called.

use serde_json::{Value, json};
use switchboard_testkit::Turn;

use super::{Ui, helper_with_everything};

/// The names of the functions a model request offered.
fn offered(request: &Value) -> Vec<String> {
    let mut names: Vec<String> = request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn deferred_tools_a_search_shows_inline_and_the_editor_shows_the_cost() {
    let ui = Ui::start(vec![
        Turn::tool_call("search_tools", json!({"query": "sum two numbers"})),
        Turn::tool_call("mcp__everything__get-sum", json!({"a": 2, "b": 3})),
        Turn::text("2 plus 3 is 5."),
    ])
    .await;
    helper_with_everything(&ui, Some("get-sum")).await;
    ui.scenario("tool-search").await;

    let assistants = ui.api(reqwest::Method::GET, "/api/assistants", None).await;
    let helper = &assistants[0];
    assert_eq!(helper["toolExposure"], "deferred", "{helper}");
    assert_eq!(
        helper["pinnedTools"],
        json!([{"serverId": "everything", "tool": "echo"}]),
        "{helper}"
    );
    let requests = ui.llm.requests();
    assert_eq!(requests.len(), 3, "search, call, answer");
    assert_eq!(
        offered(&requests[0].body),
        ["mcp__everything__echo", "search_tools"],
        "the pinned tool and the search"
    );
    assert!(
        offered(&requests[1].body).contains(&"mcp__everything__get-sum".to_owned()),
        "the found tool is offered next"
    );
    assert!(
        requests[2]
            .body
            .to_string()
            .contains("The sum of 2 and 3 is 5"),
        "the found tool ran"
    );
    ui.stop();
}
