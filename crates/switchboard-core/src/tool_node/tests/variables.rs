use super::*;

fn path(text: &str) -> VarPath {
    VarPath::parse(text).unwrap()
}

#[test]
fn built_ins_are_answered_and_cannot_be_overridden() {
    let vars = Variables::new(builtins()).with_layer(object(json!({
        "user": {"id": "spoofed", "name": "eve", "email": "e@x"},
        "conversation": {"id": "other"},
        "now": "yesterday"
    })));
    assert_eq!(vars.lookup(&path("user.id")), Some(json!("u-1")));
    assert_eq!(vars.lookup(&path("user.name")), Some(json!("ada")));
    assert_eq!(vars.lookup(&path("conversation.id")), Some(json!("c-9")));
    assert_eq!(
        vars.lookup(&path("now")),
        Some(json!("2026-01-02T03:04:05Z"))
    );
    // Other fields of a supplied `user` object are still reachable.
    assert_eq!(vars.lookup(&path("user.email")), Some(json!("e@x")));
}

#[test]
fn outside_a_conversation_there_is_no_conversation_id() {
    let outside = Builtins {
        conversation_id: None,
        ..builtins()
    };
    let vars = Variables::new(outside).with_layer(object(json!({"conversation": {"id": "x"}})));
    assert_eq!(vars.lookup(&path("conversation.id")), None);
}

#[test]
fn later_layers_win_and_defaults_come_last() {
    let vars = Variables::new(builtins())
        .with_declared(&[
            decl("a", VariableType::Any, Some(json!("default-a"))),
            decl("b", VariableType::Any, Some(json!("default-b"))),
            decl("c", VariableType::Any, None),
            decl("obj", VariableType::Object, Some(json!({"x": 1, "y": 2}))),
        ])
        .with_layer(object(json!({"a": "conversation", "obj": {"x": 10}})))
        .with_layer(object(json!({"a": "request"})));
    assert_eq!(vars.lookup(&path("a")), Some(json!("request")));
    assert_eq!(vars.lookup(&path("b")), Some(json!("default-b")));
    assert_eq!(vars.lookup(&path("c")), None);
    assert_eq!(vars.lookup(&path("obj.x")), Some(json!(10)));
    // A path the supplied value lacks falls back to the default's.
    assert_eq!(vars.lookup(&path("obj.y")), Some(json!(2)));
    assert_eq!(vars.lookup(&path("obj")), Some(json!({"x": 10})));
    assert_eq!(vars.lookup(&path("missing")), None);
}

#[test]
fn a_supplied_null_is_a_value() {
    let vars = Variables::new(builtins())
        .with_declared(&[decl("a", VariableType::Any, Some(json!(1)))])
        .with_layer(object(json!({"a": null})));
    assert_eq!(vars.lookup(&path("a")), Some(Value::Null));
}

#[test]
fn every_built_in_is_listed_and_reserved() {
    for name in BUILTIN_VARIABLES {
        assert!(is_builtin(name));
        assert!(Variables::new(builtins()).lookup(&path(name)).is_some());
    }
    assert!(!is_builtin("user"));
    assert!(!is_builtin("user.email"));
}
