use std::time::Duration;

use super::*;

#[test]
fn a_short_body_gets_the_seed_defaults() {
    let node: ToolNode = serde_json::from_value(json!({"name": "n", "serverId": "gh"})).unwrap();
    assert_eq!(node.server_id, ServerId("gh".into()));
    assert!(node.selected_tools.is_empty());
    assert!(!node.retry_on_error);
    assert_eq!(node.max_retries, 3);
    assert_eq!(node.timeout, None);
    assert!(node.variables.is_empty());
    assert_eq!(node.assistant_id, None);
    let tool: SelectedTool = serde_json::from_value(json!({"name": "t"})).unwrap();
    assert!(tool.enabled);
    assert!(tool.parameter_mappings.is_empty());
    let var: VariableDecl = serde_json::from_value(json!({"name": "v"})).unwrap();
    assert_eq!(var.kind, VariableType::Any);
    assert_eq!(var.default, None);
}

#[test]
fn the_seeds_embedded_server_is_read_by_its_id() {
    let node: ToolNode = serde_json::from_value(json!({
        "name": "n",
        "mcpServer": {"id": "gh", "name": "GitHub", "transport": "stdio", "isPreset": true},
        "selectedTools": [{"name": "list_issues", "enabled": false, "parameterMappings": {}}],
        "retryOnError": true,
        "maxRetries": 5,
        "timeoutMs": 30000
    }))
    .unwrap();
    assert_eq!(node.server_id, ServerId("gh".into()));
    assert!(!node.selected_tools[0].enabled);
    assert_eq!(node.timeout, Some(Duration::from_secs(30)));
    let written = serde_json::to_value(&node).unwrap();
    assert_eq!(written["serverId"], "gh");
    assert!(written.get("mcpServer").is_none());
    // The same server named twice is fine; two servers are not; none is not.
    let both = json!({"name": "n", "serverId": "gh", "mcpServer": {"id": "gh"}});
    assert!(serde_json::from_value::<ToolNode>(both).is_ok());
    let two = json!({"name": "n", "serverId": "gh", "mcpServer": {"id": "other"}});
    assert!(serde_json::from_value::<ToolNode>(two).is_err());
    let none = json!({"name": "n"});
    assert!(serde_json::from_value::<ToolNode>(none).is_err());
}

#[test]
fn a_full_node_round_trips_through_json() {
    let mut n = node(vec![selected(
        "list_issues",
        &[
            ("owner", mapping("{{user.name}}")),
            ("path", mapping("repos/{{owner}}/{{ repo }}")),
            ("limit", Mapping::Literal(json!(10))),
            ("state", Mapping::Literal(json!("{{not a template"))),
        ],
    )]);
    n.retry_on_error = true;
    n.timeout = Some(Duration::from_millis(2500));
    n.variables = vec![
        decl("owner", VariableType::String, Some(json!("rust-lang"))),
        VariableDecl {
            description: Some("the repository".into()),
            ..decl("repo", VariableType::Any, None)
        },
    ];
    n.assistant_id = Some("a-1".into());
    let json = serde_json::to_value(&n).unwrap();
    assert_eq!(json["timeoutMs"], 2500);
    assert_eq!(
        json["variables"][0],
        json!({"name": "owner", "type": "string", "default": "rust-lang"})
    );
    assert_eq!(
        json["selectedTools"][0]["parameterMappings"]["state"],
        json!({"value": "{{not a template"})
    );
    assert_eq!(json["assistantId"], "a-1");
    let back: ToolNode = serde_json::from_value(json).unwrap();
    assert_eq!(back, n);
}

#[test]
fn only_enabled_selected_tools_are_selected() {
    let mut off = selected("off", &[]);
    off.enabled = false;
    let n = node(vec![selected("on", &[]), off]);
    assert_eq!(n.selected("on").map(|t| t.name.as_str()), Some("on"));
    assert!(n.selected("off").is_none());
    assert!(n.selected("absent").is_none());
}

#[test]
fn retries_are_asked_for_only_with_retry_on_error() {
    let mut n = node(vec![]);
    n.max_retries = 4;
    assert_eq!(n.retry_policy_retries(), 0);
    n.retry_on_error = true;
    assert_eq!(n.retry_policy_retries(), 4);
    n.max_retries = 1000;
    assert_eq!(n.retry_policy_retries(), MAX_RETRIES);
}

#[test]
fn variable_types_accept_their_json() {
    use VariableType::*;
    let cases = [
        (String, json!("a"), true),
        (String, json!(1), false),
        (Number, json!(1.5), true),
        (Number, json!("1"), false),
        (Integer, json!(2), true),
        (Integer, json!(2.0), true),
        (Integer, json!(2.5), false),
        (Boolean, json!(false), true),
        (Boolean, json!(0), false),
        (Object, json!({}), true),
        (Object, json!([]), false),
        (Array, json!([]), true),
        (Any, json!(null), true),
    ];
    for (kind, value, ok) in cases {
        assert_eq!(kind.accepts(&value), ok, "{kind} {value}");
        let written = serde_json::to_value(kind).unwrap();
        assert_eq!(written, json!(kind.as_str()));
        assert_eq!(
            serde_json::from_value::<VariableType>(written).unwrap(),
            kind
        );
    }
}

#[test]
fn a_default_of_null_is_kept() {
    let decl: VariableDecl =
        serde_json::from_value(serde_json::json!({"name": "a", "default": null})).unwrap();
    assert_eq!(decl.default, Some(Value::Null));
    let back: VariableDecl = serde_json::from_value(serde_json::to_value(&decl).unwrap()).unwrap();
    assert_eq!(back, decl);
    let absent: VariableDecl = serde_json::from_value(serde_json::json!({"name": "a"})).unwrap();
    assert_eq!(absent.default, None);
}

#[test]
fn mapped_parameters_name_the_variables_each_reads_once() {
    let tool = selected(
        "list_issues",
        &[
            ("owner", mapping("{{user.name}}")),
            ("path", mapping("{{repo}}/{{user.name}}/{{repo}}")),
            ("state", Mapping::Literal(json!("open"))),
        ],
    );
    let mapped = tool.mapped_parameters();
    let variables = |name: &str| mapped[name].variables.clone();
    assert_eq!(variables("owner"), ["user.name"]);
    assert_eq!(variables("path"), ["repo", "user.name"]);
    assert!(
        variables("state").is_empty(),
        "a fixed value reads no variable"
    );
    assert_eq!(mapped.len(), 3);
}
