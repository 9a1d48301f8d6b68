//! Resources, resource templates, prompts and completion through the gateway, against
//! server-everything over stdio and a real rmcp client over Streamable HTTP.

// resources/subscribe is what 2025-11-25 clients use.
#![allow(deprecated)]

use crate::content_support;

use content_support::{Harness, Heard, everything};
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, ContentBlock, ErrorCode, GetPromptRequestParams,
    ReadResourceRequestParams, Reference, ResourceContents, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use serde_json::json;
use switchboard_mcp::{CallOptions, ToolBackend};

fn text_of(contents: &[ResourceContents]) -> (String, String) {
    match contents.first().expect("one content") {
        ResourceContents::TextResourceContents { uri, text, .. } => (uri.clone(), text.clone()),
        other => panic!("expected text contents, got {other:?}"),
    }
}

#[tokio::test]
async fn resources_are_listed_under_namespaced_uris_and_read_back_from_their_server() {
    let harness = Harness::start().await;
    let client = harness.client(&harness.alice, None).await;
    let resources = client.session.list_all_resources().await.expect("list");
    assert!(!resources.is_empty());
    for resource in &resources {
        assert!(
            resource
                .uri
                .starts_with("switchboard://everything/demo%3A%2F%2F"),
            "{}",
            resource.uri
        );
        assert!(
            resource
                .title
                .as_deref()
                .is_some_and(|title| title.starts_with("everything: ")),
            "the server is shown: {:?}",
            resource.title
        );
    }
    let document = &resources[0];
    let read = client
        .session
        .read_resource(ReadResourceRequestParams::new(document.uri.clone()))
        .await
        .expect("read");
    let (uri, text) = text_of(&read.contents);
    assert_eq!(
        uri, document.uri,
        "the contents carry the URI as the client knows it"
    );
    assert!(!text.is_empty());

    let unknown = client
        .session
        .read_resource(ReadResourceRequestParams::new(
            "switchboard://nobody/demo%3A%2F%2Fx",
        ))
        .await
        .expect_err("no such server");
    assert_eq!(error_code(unknown), Some(ErrorCode::RESOURCE_NOT_FOUND));
    let plain = client
        .session
        .read_resource(ReadResourceRequestParams::new(
            "demo://resource/static/document/architecture.md",
        ))
        .await
        .expect_err("a namespaced scope has no plain URIs");
    assert_eq!(error_code(plain), Some(ErrorCode::RESOURCE_NOT_FOUND));
    let absent = client
        .session
        .read_resource(ReadResourceRequestParams::new(
            "switchboard://everything/demo%3A%2F%2Fresource%2Fstatic%2Fdocument%2Fnone.md",
        ))
        .await
        .expect_err("the server has no such resource");
    assert_eq!(error_code(absent), Some(ErrorCode::RESOURCE_NOT_FOUND));
    let _ = client.session.cancel().await;
}

#[tokio::test]
async fn templates_keep_their_expressions_and_expand_to_readable_uris() {
    let harness = Harness::start().await;
    let client = harness.client(&harness.alice, None).await;
    let templates = client
        .session
        .list_all_resource_templates()
        .await
        .expect("templates");
    let text = templates
        .iter()
        .find(|t| t.uri_template.ends_with("text%2F{resourceId}"))
        .expect("the dynamic text template");
    assert_eq!(
        text.uri_template,
        "switchboard://everything/demo%3A%2F%2Fresource%2Fdynamic%2Ftext%2F{resourceId}"
    );
    let uri = text.uri_template.replace("{resourceId}", "3");
    let read = client
        .session
        .read_resource(ReadResourceRequestParams::new(uri.clone()))
        .await
        .expect("read the expanded template");
    let (content_uri, body) = text_of(&read.contents);
    assert_eq!(content_uri, uri);
    assert!(body.contains('3'), "{body}");

    let completed = client
        .session
        .complete(CompleteRequestParams::new(
            Reference::for_resource(text.uri_template.clone()),
            ArgumentInfo::new("resourceId", "7"),
        ))
        .await
        .expect("complete a template argument");
    assert_eq!(completed.completion.values, vec!["7".to_owned()]);
    let _ = client.session.cancel().await;
}

#[tokio::test]
async fn prompts_are_named_like_tools_and_get_and_complete_reach_their_server() {
    let harness = Harness::start().await;
    let client = harness.client(&harness.alice, None).await;
    let prompts = client.session.list_all_prompts().await.expect("prompts");
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"mcp__everything__args-prompt"), "{names:?}");
    assert!(
        names
            .iter()
            .all(|name| name.starts_with("mcp__everything__"))
    );

    let arguments = json!({ "city": "Lisbon" })
        .as_object()
        .cloned()
        .expect("object");
    let prompt = client
        .session
        .get_prompt(
            GetPromptRequestParams::new("mcp__everything__args-prompt").with_arguments(arguments),
        )
        .await
        .expect("get");
    let text = prompt.messages[0]
        .content
        .as_text()
        .map(|text| text.text.clone())
        .expect("a text message");
    assert!(text.contains("Lisbon"), "{text}");

    // An embedded resource comes back under a URI the client can read.
    let arguments = json!({ "resourceType": "Text", "resourceId": "2" });
    let prompt = client
        .session
        .get_prompt(
            GetPromptRequestParams::new("mcp__everything__resource-prompt")
                .with_arguments(arguments.as_object().cloned().expect("object")),
        )
        .await
        .expect("get");
    let embedded = prompt
        .messages
        .iter()
        .find_map(|message| match &message.content {
            ContentBlock::Resource(embedded) => Some(embedded.resource.clone()),
            _ => None,
        })
        .expect("an embedded resource");
    let (uri, _) = text_of(std::slice::from_ref(&embedded));
    assert!(uri.starts_with("switchboard://everything/"), "{uri}");
    client
        .session
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .expect("read the embedded resource back");

    let completed = client
        .session
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("mcp__everything__completable-prompt"),
            ArgumentInfo::new("department", "Eng"),
        ))
        .await
        .expect("complete a prompt argument");
    assert_eq!(completed.completion.values, vec!["Engineering".to_owned()]);

    let missing = client
        .session
        .get_prompt(GetPromptRequestParams::new("mcp__everything__args-prompt"))
        .await
        .expect_err("a required argument is missing");
    assert_eq!(error_code(missing), Some(ErrorCode::INVALID_PARAMS));

    let unknown = client
        .session
        .get_prompt(GetPromptRequestParams::new("args-prompt"))
        .await
        .expect_err("only exported names");
    assert_eq!(error_code(unknown), Some(ErrorCode::INVALID_PARAMS));
    let _ = client.session.cancel().await;
}

#[tokio::test]
async fn a_subscription_forwards_the_servers_updates_under_the_namespaced_uri() {
    let harness = Harness::start().await;
    let mut client = harness.client(&harness.alice, None).await;
    let resources = client.session.list_all_resources().await.expect("list");
    let uri = resources[0].uri.clone();
    client
        .session
        .subscribe(SubscribeRequestParams::new(uri.clone()))
        .await
        .expect("subscribe");
    // server-everything sends updates of subscribed URIs every few seconds once asked to.
    let spec = stored_everything(&harness).await;
    harness
        .pool
        .call(
            &harness.alice.id,
            &spec,
            "toggle-subscriber-updates",
            None,
            CallOptions::default(),
        )
        .await
        .expect("start the updates");
    let heard = client.until(|h| matches!(h, Heard::Updated(_))).await;
    assert_eq!(heard, Heard::Updated(uri.clone()));
    client
        .session
        .unsubscribe(UnsubscribeRequestParams::new(uri))
        .await
        .expect("unsubscribe");
    let _ = client.session.cancel().await;
}

#[tokio::test]
async fn a_closed_session_does_not_end_another_sessions_subscription_to_the_same_resource() {
    let harness = Harness::start().await;
    let leaving = harness.client(&harness.alice, None).await;
    let mut staying = harness.client(&harness.alice, None).await;
    let uri = leaving.session.list_all_resources().await.expect("list")[0]
        .uri
        .clone();
    for client in [&leaving, &staying] {
        client
            .session
            .subscribe(SubscribeRequestParams::new(uri.clone()))
            .await
            .expect("subscribe");
    }
    // Both share one upstream subscription; the first session's end must not cancel it.
    let _ = leaving.session.cancel().await;
    let spec = stored_everything(&harness).await;
    harness
        .pool
        .call(
            &harness.alice.id,
            &spec,
            "toggle-subscriber-updates",
            None,
            CallOptions::default(),
        )
        .await
        .expect("start the updates");
    let heard = staying.until(|h| matches!(h, Heard::Updated(_))).await;
    assert_eq!(heard, Heard::Updated(uri));
    let _ = staying.session.cancel().await;
}

#[tokio::test]
async fn another_user_sees_none_of_alices_resources_prompts_or_templates() {
    let harness = Harness::start().await;
    let alice = harness.client(&harness.alice, None).await;
    let alices = alice.session.list_all_resources().await.expect("list");
    let bob = harness.client(&harness.bob, None).await;
    assert!(
        bob.session
            .list_all_resources()
            .await
            .expect("list")
            .is_empty()
    );
    assert!(
        bob.session
            .list_all_resource_templates()
            .await
            .expect("list")
            .is_empty()
    );
    assert!(
        bob.session
            .list_all_prompts()
            .await
            .expect("list")
            .is_empty()
    );
    let read = bob
        .session
        .read_resource(ReadResourceRequestParams::new(alices[0].uri.clone()))
        .await
        .expect_err("alice's URI names nothing of bob's");
    assert_eq!(error_code(read), Some(ErrorCode::RESOURCE_NOT_FOUND));
    let subscribe = bob
        .session
        .subscribe(SubscribeRequestParams::new(alices[0].uri.clone()))
        .await
        .expect_err("nor can he subscribe to it");
    assert_eq!(error_code(subscribe), Some(ErrorCode::RESOURCE_NOT_FOUND));
    let prompt = bob
        .session
        .get_prompt(GetPromptRequestParams::new(
            "mcp__everything__simple-prompt",
        ))
        .await
        .expect_err("nor get her prompts");
    assert_eq!(error_code(prompt), Some(ErrorCode::INVALID_PARAMS));
    let complete = bob
        .session
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("mcp__everything__completable-prompt"),
            ArgumentInfo::new("department", "E"),
        ))
        .await
        .expect_err("nor complete them");
    assert_eq!(error_code(complete), Some(ErrorCode::INVALID_PARAMS));
    let _ = alice.session.cancel().await;
    let _ = bob.session.cancel().await;
}

async fn stored_everything(harness: &Harness) -> switchboard_core::ServerSpec {
    let specs = harness
        .store
        .connection_specs(&harness.alice.id)
        .await
        .expect("specs");
    let wanted = everything();
    specs
        .into_iter()
        .find(|spec| spec.name == wanted.name)
        .expect("alice's everything")
}

fn error_code(error: rmcp::ServiceError) -> Option<ErrorCode> {
    match error {
        rmcp::ServiceError::McpError(data) => Some(data.code),
        _ => None,
    }
}
