//! switchboard-mcp's connection to a 2026-07-28 upstream (`conformance-server` over stdio, as
//! the gateway starts it): resources are subscribed through `subscriptions/listen` where
//! `resources/subscribe` is refused, and a `prompts/get` input-required result is handed back
//! to a caller that answers it itself, or answered by the connection for one that cannot.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use rmcp::model::{GetPromptRequestParams, GetPromptResponse};
use serde_json::json;
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_mcp::{ConnectionManager, ManagerConfig, PromptInput};

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");
const PROMPT: &str = "test_input_required_result_prompt";

fn upstream() -> (ConnectionManager, OwnerId, ServerSpec) {
    let manager = ConnectionManager::new(ManagerConfig::default());
    let spec = ServerSpec::stdio("conformance", BIN, Vec::<String>::new());
    (manager, OwnerId("ada".to_owned()), spec)
}

fn text(response: GetPromptResponse) -> String {
    let GetPromptResponse::Complete(result) = response else {
        panic!("a complete prompt expected, got {response:?}");
    };
    let result = serde_json::to_value(result).unwrap();
    result["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text message expected, got {result}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_upstream_is_subscribed_through_listen() {
    let (manager, owner, spec) = upstream();
    let uri = "test://watched-resource";
    manager
        .subscribe_resource(&owner, &spec, uri, true)
        .await
        .unwrap();
    manager
        .subscribe_resource(&owner, &spec, uri, false)
        .await
        .unwrap();
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompts_input_required_result_goes_back_to_a_caller_that_answers_it() {
    let (manager, owner, spec) = upstream();
    let asked = manager
        .get_prompt_with(
            &owner,
            &spec,
            GetPromptRequestParams::new(PROMPT),
            PromptInput::Return,
        )
        .await
        .unwrap();
    let GetPromptResponse::InputRequired(asked) = asked else {
        panic!("an input-required result expected, got {asked:?}");
    };
    assert!(
        asked
            .input_requests
            .as_ref()
            .is_some_and(|requests| requests.contains_key("user_context")),
        "{asked:?}"
    );

    let mut retry = GetPromptRequestParams::new(PROMPT);
    retry.input_responses = Some(
        [(
            "user_context".to_owned(),
            json!({"action": "accept", "content": {"context": "tea"}}),
        )]
        .into_iter()
        .collect(),
    );
    retry.request_state = asked.request_state;
    let done = manager
        .get_prompt_with(&owner, &spec, retry, PromptInput::Return)
        .await
        .unwrap();
    assert_eq!(text(done), "Use this context: tea");

    // A caller that cannot answer: the connection declines for it, the prompt completes.
    let declined = manager
        .get_prompt_with(
            &owner,
            &spec,
            GetPromptRequestParams::new(PROMPT),
            PromptInput::Answer(None),
        )
        .await
        .unwrap();
    assert_eq!(text(declined), "Use this context: ");
    manager.shutdown().await;
}
