//! Through a view that exports its server unprefixed (`prefix: ""`), URIs, templates and
//! prompt names are the server's own: the conformance suite reads `test://static-text` by its
//! exact URI this way.

use crate::content_support;

use content_support::Harness;
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, ReadResourceRequestParams,
    Reference,
};
use serde_json::json;
use switchboard_core::ViewSpec;

#[tokio::test]
async fn an_unprefixed_view_passes_uris_and_names_unchanged() {
    let harness = Harness::start().await;
    let view: ViewSpec = serde_json::from_value(json!({
        "name": "plain",
        "servers": [{ "serverId": "everything", "prefix": "" }],
    }))
    .expect("a view");
    harness
        .store
        .create_view(&harness.alice.id, &view)
        .await
        .expect("stored");
    let client = harness.client(&harness.alice, Some("plain")).await;

    let resources = client.session.list_all_resources().await.expect("list");
    assert!(
        resources
            .iter()
            .all(|r| r.uri.starts_with("demo://resource/")),
        "{resources:?}"
    );
    let uri = resources[0].uri.clone();
    let read = client
        .session
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .expect("read by the exact URI");
    assert!(!read.contents.is_empty());

    let templates = client
        .session
        .list_all_resource_templates()
        .await
        .expect("templates");
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "demo://resource/dynamic/text/{resourceId}")
    );
    let completed = client
        .session
        .complete(CompleteRequestParams::new(
            Reference::for_resource("demo://resource/dynamic/text/{resourceId}"),
            ArgumentInfo::new("resourceId", "5"),
        ))
        .await
        .expect("complete");
    assert_eq!(completed.completion.values, vec!["5".to_owned()]);

    let prompts = client.session.list_all_prompts().await.expect("prompts");
    assert!(prompts.iter().any(|p| p.name == "simple-prompt"));
    client
        .session
        .get_prompt(GetPromptRequestParams::new("simple-prompt"))
        .await
        .expect("get by the server's own name");
    let _ = client.session.cancel().await;
}
