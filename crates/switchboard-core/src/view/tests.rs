#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

fn spec(value: serde_json::Value) -> ViewSpec {
    serde_json::from_value(value).unwrap()
}

fn servers_view() -> ViewSpec {
    spec(json!({
        "name": "claude-desktop_1",
        "servers": [
            {"serverId": "files", "tools": ["read_file"], "prefix": ""},
            {"serverId": "github", "prefix": "gh_"},
            {"serverId": "weather"}
        ]
    }))
}

#[test]
fn a_view_of_servers_or_of_an_assistant_is_valid() {
    servers_view().validate().unwrap();
    spec(json!({"name": "a", "assistantId": "asst-1"}))
        .validate()
        .unwrap();
    spec(json!({"name": "x".repeat(64), "assistantId": "a"}))
        .validate()
        .unwrap();
}

#[test]
fn names_are_lowercase_url_segments_of_1_to_64() {
    for bad in ["", "Claude", "my view", "a/b", "é", "a.b", &"x".repeat(65)] {
        let mut view = servers_view();
        view.name = bad.to_owned();
        assert_eq!(
            view.validate(),
            Err(ViewError::InvalidName {
                name: bad.to_owned()
            }),
            "{bad:?}"
        );
    }
}

#[test]
fn a_view_needs_an_assistant_or_servers_not_both() {
    assert_eq!(spec(json!({"name": "a"})).validate(), Err(ViewError::Empty));
    assert_eq!(
        spec(json!({"name": "a", "assistantId": "x", "servers": [{"serverId": "s"}]})).validate(),
        Err(ViewError::AssistantAndServers)
    );
    assert_eq!(
        spec(json!({"name": "a", "assistantId": " "})).validate(),
        Err(ViewError::EmptyId {
            field: "assistantId".into()
        })
    );
}

#[test]
fn prefixes_are_short_tool_name_characters() {
    let mut view = servers_view();
    view.servers[1].prefix = Some("gh.".into());
    let error = view.validate().unwrap_err();
    assert_eq!(
        error,
        ViewError::InvalidPrefix {
            field: "servers[1].prefix".into(),
            prefix: "gh.".into()
        }
    );
    assert!(error.to_string().starts_with("servers[1].prefix: \"gh.\""));
    view.servers[1].prefix = Some("p".repeat(33));
    assert!(matches!(
        view.validate(),
        Err(ViewError::InvalidPrefix { .. })
    ));
    view.servers[1].prefix = Some("A-z_9".repeat(6));
    view.validate().unwrap();
}

#[test]
fn tool_sets_name_real_tools_and_servers_come_once() {
    let mut view = servers_view();
    view.servers[0].tools = Some(BTreeSet::from([String::new()]));
    assert_eq!(
        view.validate(),
        Err(ViewError::EmptyToolName {
            field: "servers[0].tools".into()
        })
    );
    view.servers[0].tools = Some(BTreeSet::new());
    assert_eq!(
        view.validate(),
        Err(ViewError::NoTools {
            field: "servers[0].tools".into()
        })
    );
    let mut view = servers_view();
    view.servers[2].server_id = ServerId("files".into());
    assert_eq!(
        view.validate(),
        Err(ViewError::DuplicateServer {
            field: "servers[2].serverId".into(),
            server: "files".into()
        })
    );
}

#[test]
fn unknown_fields_are_refused() {
    let parsed: Result<ViewSpec, _> =
        serde_json::from_value(json!({"name": "a", "assistantId": "x", "color": "red"}));
    assert!(parsed.is_err());
}
