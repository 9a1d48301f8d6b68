//! Tool nodes (seed 002 `MCPToolNodeConfig`): every field round-trips (property 6), a node
//! follows its server and its assistant, an assistant's nodes are listed apart, the links
//! must be the owner's, and the quota counts nodes.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;
use switchboard_core::{
    ErrorCode, Mapping, SelectedTool, ServerId, Template, ToolNode, VariableDecl, VariableType,
};
use switchboard_store::{AssistantConfig, StoreError};

use crate::common::TestDb;
use crate::servers::secret_spec;

crate::on_both_backends!(
    tool_nodes_round_trip_and_follow_their_server,
    tool_nodes_of_an_assistant_go_with_it,
    tool_nodes_stop_at_the_quota,
);

/// A node that sets every field (a literal, a whole-value template, an interpolated one with
/// a dotted path, a literal string that looks like a template, declared variables of several
/// types, retry and timeout).
pub fn node(name: &str, server: &str) -> ToolNode {
    ToolNode {
        name: name.into(),
        server_id: ServerId(server.into()),
        selected_tools: vec![
            SelectedTool {
                name: "forecast".into(),
                enabled: true,
                parameter_mappings: BTreeMap::from([
                    ("city".into(), template("{{city}}")),
                    (
                        "path".into(),
                        template("repos/{{repo.owner}}/{{ repo.name }}"),
                    ),
                    ("units".into(), Mapping::Literal("metric".into())),
                    (
                        "braces".into(),
                        Mapping::Literal("not {{a}} template".into()),
                    ),
                    ("shape".into(), Mapping::Literal(json!({"variable": "x"}))),
                    // serde_json parses floats exactly only with `float_roundtrip` (found by
                    // the round-trip property: this one came back as ...6375).
                    ("scale".into(), Mapping::Literal(944415596587.6376.into())),
                ]),
            },
            SelectedTool {
                name: "alerts".into(),
                enabled: false,
                parameter_mappings: BTreeMap::new(),
            },
        ],
        retry_on_error: true,
        max_retries: 3,
        timeout: Some(Duration::from_secs(20)),
        variables: vec![
            VariableDecl {
                name: "city".into(),
                kind: VariableType::String,
                default: Some(json!("Paris")),
                description: Some("where".into()),
            },
            VariableDecl {
                name: "repo".into(),
                kind: VariableType::Object,
                default: None,
                description: None,
            },
        ],
        assistant_id: None,
    }
}

fn template(text: &str) -> Mapping {
    Mapping::Template(Template::parse(text).unwrap())
}

async fn tool_nodes_round_trip_and_follow_their_server(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let server = secret_spec("weather");
    store.create_server(&owner, &server).await.unwrap();

    let created = store
        .create_tool_node(&owner, &node("paris", "weather"))
        .await
        .unwrap();
    assert_eq!(created.node, node("paris", "weather"));
    assert_eq!(store.tool_node(&owner, &created.id).await.unwrap(), created);

    let mut changed = node("paris-imperial", "weather");
    changed.selected_tools[0]
        .parameter_mappings
        .insert("units".into(), Mapping::Literal("imperial".into()));
    changed.timeout = None;
    changed.variables.pop();
    changed.retry_on_error = false;
    let updated = store
        .update_tool_node(&owner, &created.id, &changed)
        .await
        .unwrap();
    assert_eq!(updated.node, changed);
    assert_eq!(updated.created_at, created.created_at);
    assert_eq!(
        store.tool_nodes(&owner).await.unwrap(),
        vec![updated.clone()]
    );

    assert!(matches!(
        store
            .create_tool_node(&owner, &node("paris-imperial", "weather"))
            .await,
        Err(StoreError::Conflict { .. })
    ));
    assert!(matches!(
        store
            .create_tool_node(&owner, &node("x", "no-server"))
            .await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.create_tool_node(&owner, &node(" ", "weather")).await,
        Err(StoreError::InvalidSpec(_))
    ));
    let mut ghost = node("ghost", "weather");
    ghost.assistant_id = Some("no-such-assistant".into());
    assert!(matches!(
        store.create_tool_node(&owner, &ghost).await,
        Err(StoreError::NotFound { .. })
    ));

    // A node lives as long as its server.
    store.delete_server(&owner, &server.id).await.unwrap();
    assert!(matches!(
        store.tool_node(&owner, &created.id).await,
        Err(StoreError::NotFound { .. })
    ));

    store.create_server(&owner, &server).await.unwrap();
    let again = store
        .create_tool_node(&owner, &node("p", "weather"))
        .await
        .unwrap();
    store.delete_tool_node(&owner, &again.id).await.unwrap();
    assert!(store.tool_nodes(&owner).await.unwrap().is_empty());
    assert!(matches!(
        store.delete_tool_node(&owner, &again.id).await,
        Err(StoreError::NotFound { .. })
    ));
}

async fn tool_nodes_of_an_assistant_go_with_it(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    store
        .create_server(&owner, &secret_spec("weather"))
        .await
        .unwrap();
    let mut config = AssistantConfig::named("planner");
    config.variables = vec![VariableDecl {
        name: "team".into(),
        kind: VariableType::Array,
        default: Some(json!(["a", 1, {"b": null}])),
        description: Some("who".into()),
    }];
    let assistant = store.create_assistant(&owner, &config).await.unwrap();
    assert_eq!(assistant.config, config);
    assert_eq!(
        store.assistant(&owner, &assistant.id).await.unwrap().config,
        config
    );
    let mut changed = config.clone();
    changed.variables[0].default = None;
    let updated = store
        .update_assistant(&owner, &assistant.id, &changed)
        .await
        .unwrap();
    assert_eq!(updated.config, changed);
    assert_eq!(store.assistants(&owner).await.unwrap()[0].config, changed);

    let mut of_assistant = node("of-assistant", "weather");
    of_assistant.assistant_id = Some(assistant.id.clone());
    let of_assistant = store.create_tool_node(&owner, &of_assistant).await.unwrap();
    let standalone = store
        .create_tool_node(&owner, &node("standalone", "weather"))
        .await
        .unwrap();
    assert_eq!(
        of_assistant.node.assistant_id.as_deref(),
        Some(assistant.id.as_str())
    );
    assert_eq!(
        store
            .assistant_tool_nodes(&owner, &assistant.id)
            .await
            .unwrap(),
        vec![of_assistant.clone()]
    );
    assert_eq!(store.tool_nodes(&owner).await.unwrap().len(), 2);

    // Another owner's assistant is not found, neither to list nor to attach a node to.
    let other = db.user("other").await.id;
    assert!(matches!(
        store.assistant_tool_nodes(&other, &assistant.id).await,
        Err(StoreError::NotFound { .. })
    ));
    store
        .create_server(&other, &secret_spec("weather"))
        .await
        .unwrap();
    let mut borrowing = node("borrowing", "weather");
    borrowing.assistant_id = Some(assistant.id.clone());
    assert!(matches!(
        store.create_tool_node(&other, &borrowing).await,
        Err(StoreError::NotFound { .. })
    ));

    // Detached by an update, then attached again; deleting the assistant deletes it.
    let mut detached = of_assistant.node.clone();
    detached.assistant_id = None;
    store
        .update_tool_node(&owner, &of_assistant.id, &detached)
        .await
        .unwrap();
    assert!(
        store
            .assistant_tool_nodes(&owner, &assistant.id)
            .await
            .unwrap()
            .is_empty()
    );
    store
        .update_tool_node(&owner, &of_assistant.id, &of_assistant.node)
        .await
        .unwrap();
    store.delete_assistant(&owner, &assistant.id).await.unwrap();
    let left = store.tool_nodes(&owner).await.unwrap();
    assert_eq!(left, vec![standalone]);
}

const QUOTA: u32 = 3;

async fn tool_nodes_stop_at_the_quota(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    store
        .create_server(&owner, &secret_spec("weather"))
        .await
        .unwrap();
    for i in 0..QUOTA {
        store
            .create_tool_node_within(&owner, &node(&format!("n{i}"), "weather"), QUOTA)
            .await
            .unwrap();
    }
    let over = store
        .create_tool_node_within(&owner, &node("more", "weather"), QUOTA)
        .await
        .unwrap_err();
    assert!(
        matches!(over, StoreError::QuotaExceeded { limit: QUOTA, .. }),
        "{over}"
    );
    assert_eq!(over.code(), ErrorCode::QuotaExceeded);

    // Another owner has their own quota.
    let other = db.user("other").await.id;
    store
        .create_server(&other, &secret_spec("weather"))
        .await
        .unwrap();
    store
        .create_tool_node_within(&other, &node("n0", "weather"), QUOTA)
        .await
        .unwrap();
}
