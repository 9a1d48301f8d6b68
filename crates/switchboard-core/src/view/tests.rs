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

#[test]
fn the_exposure_is_all_unless_search_is_asked_and_is_written_only_then() {
    let view = servers_view();
    assert_eq!(view.tool_exposure, ViewExposure::All);
    let written = serde_json::to_value(&view).unwrap();
    assert!(written.get("toolExposure").is_none(), "{written}");
    assert!(written.get("pinnedTools").is_none(), "{written}");
    let searched = spec(json!({
        "name": "big", "toolExposure": "search",
        "servers": [{"serverId": "files"}],
        "pinnedTools": [{"serverId": "files", "tool": "read_file"}]
    }));
    searched.validate().unwrap();
    assert_eq!(searched.tool_exposure, ViewExposure::Search);
    let written = serde_json::to_value(&searched).unwrap();
    assert_eq!(written["toolExposure"], "search");
    assert_eq!(
        written["pinnedTools"],
        json!([{"serverId": "files", "tool": "read_file"}])
    );
    assert!(
        serde_json::from_value::<ViewSpec>(
            json!({"name": "a", "assistantId": "x", "toolExposure": "some"})
        )
        .is_err()
    );
}

#[test]
fn pins_name_servers_and_tools_of_the_view() {
    let pinned = |pins: serde_json::Value| {
        let mut view = servers_view();
        view.pinned_tools = serde_json::from_value(pins).unwrap();
        view.validate()
    };
    pinned(json!([{"serverId": "files", "tool": "read_file"}, {"serverId": "github"}])).unwrap();
    pinned(json!([{"serverId": "github", "tool": "anything"}])).unwrap();
    assert_eq!(
        pinned(json!([{"serverId": "files", "tool": "write_file"}])),
        Err(ViewError::PinnedOutsideView {
            field: "pinnedTools[0]".into(),
            what: r#""write_file" of server "files""#.into(),
        })
    );
    assert_eq!(
        pinned(json!([{"serverId": "files"}, {"serverId": "elsewhere"}])),
        Err(ViewError::PinnedOutsideView {
            field: "pinnedTools[1]".into(),
            what: r#"server "elsewhere""#.into(),
        })
    );
    assert_eq!(
        pinned(json!([{"serverId": "files", "tool": " "}])),
        Err(ViewError::EmptyToolName {
            field: "pinnedTools[0].tool".into()
        })
    );
    assert_eq!(
        pinned(json!([{"serverId": ""}])),
        Err(ViewError::EmptyId {
            field: "pinnedTools[0].serverId".into()
        })
    );
    let many: Vec<serde_json::Value> = (0..=MAX_PINNED_TOOLS)
        .map(|i| json!({"serverId": "github", "tool": format!("t{i}")}))
        .collect();
    assert_eq!(pinned(json!(many)), Err(ViewError::TooManyPinned));
    // A view that follows an assistant names its servers only in the store.
    let follows = spec(json!({"name": "a", "assistantId": "x",
        "pinnedTools": [{"serverId": "anything"}]}));
    follows.validate().unwrap();
}
