//! A model's arguments checked against a tool's original schema: paths, reasons, drafts, and
//! no network.

use serde_json::json;
use switchboard_schema::validate::{ArgumentsError, ArgumentsValidator, validate_arguments};

fn violations(schema: serde_json::Value, arguments: serde_json::Value) -> Vec<(String, String)> {
    match validate_arguments(&schema, &arguments) {
        Err(ArgumentsError::Invalid(v)) => v
            .violations
            .into_iter()
            .map(|v| (v.instance_path, v.reason))
            .collect(),
        other => panic!("expected violations, got {other:?}"),
    }
}

#[test]
fn valid_arguments_pass() {
    let schema =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
    assert_eq!(validate_arguments(&schema, &json!({"a": "x"})), Ok(()));
}

#[test]
fn a_missing_required_property_is_reported_at_the_object() {
    let schema =
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
    let found = violations(schema, json!({}));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "");
    assert!(
        found[0].1.contains("\"city\" is a required property"),
        "{found:?}"
    );
}

#[test]
fn a_wrong_type_deep_in_an_array_is_reported_with_its_path() {
    let schema = json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {
            "type": "object", "properties": {"name": {"type": "string"}, "qty": {"type": "integer"}}
        }}}
    });
    let found = violations(
        schema,
        json!({"items": [{"name": "a", "qty": 1}, {"name": 7, "qty": "two"}]}),
    );
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert!(paths.contains(&"/items/1/name"), "{found:?}");
    assert!(paths.contains(&"/items/1/qty"), "{found:?}");
}

#[test]
fn the_message_lists_each_violation_for_the_model() {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n", "m"]});
    let error = validate_arguments(&schema, &json!({"n": "x"})).expect_err("invalid");
    let text = error.to_string();
    assert!(
        text.starts_with("the arguments do not match the tool's input schema:"),
        "{text}"
    );
    assert!(text.contains("\n- at /n: "), "{text}");
    assert!(text.contains("\n- at (arguments): "), "{text}");
}

#[test]
fn many_violations_are_capped() {
    let properties: serde_json::Map<String, serde_json::Value> = (0..30)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let arguments: serde_json::Map<String, serde_json::Value> =
        (0..30).map(|i| (format!("p{i}"), json!(i))).collect();
    let schema = json!({"type": "object", "properties": properties});
    let Err(ArgumentsError::Invalid(v)) =
        validate_arguments(&schema, &serde_json::Value::Object(arguments))
    else {
        panic!("expected violations");
    };
    assert_eq!((v.violations.len(), v.total), (20, 30));
    assert!(v.to_string().ends_with("- and 10 more"));
}

#[test]
fn the_draft_comes_from_schema_else_2020_12() {
    // Draft-07 array `items` is a tuple (2020-12 would call it `prefixItems`).
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}
    });
    assert!(validate_arguments(&draft7, &json!({"pair": ["a", 1]})).is_ok());
    let found = violations(draft7, json!({"pair": ["a", "b"]}));
    assert_eq!(found[0].0, "/pair/1");

    // 2020-12 by default: `prefixItems` is understood.
    let modern =
        json!({"type": "object", "properties": {"pair": {"prefixItems": [{"type": "string"}]}}});
    assert_eq!(violations(modern, json!({"pair": [1]}))[0].0, "/pair/0");

    // Draft 4's boolean `exclusiveMinimum` is honoured under its own `$schema`.
    let draft4 = json!({"$schema": "http://json-schema.org/draft-04/schema#",
                        "type": "object", "properties": {"n": {"minimum": 0, "exclusiveMinimum": true}}});
    assert_eq!(violations(draft4, json!({"n": 0}))[0].0, "/n");
}

#[test]
fn an_invalid_schema_is_its_own_error() {
    for schema in [
        json!({"type": "object", "properties": {"a": {"type": "strng"}}}),
        json!({"type": "object", "properties": {"a": {"minLength": -1}}}),
        json!({"$schema": "https://example.com/my-meta-schema", "type": "object"}),
        json!({"$schema": 7}),
        json!([1, 2]),
    ] {
        let error = validate_arguments(&schema, &json!({})).expect_err("unusable schema");
        assert!(
            matches!(error, ArgumentsError::InvalidSchema { .. }),
            "{schema}: {error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with("the tool's input schema cannot be used"),
            "{error}"
        );
    }
}

#[test]
fn a_remote_reference_is_an_error_not_a_fetch() {
    // Port 9 on loopback: nothing would answer even if a fetch were attempted.
    for reference in ["http://127.0.0.1:9/schema.json", "file:///etc/passwd"] {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": reference}}});
        let error = ArgumentsValidator::new(&schema).expect_err("not resolvable");
        assert!(
            matches!(error, ArgumentsError::InvalidSchema { .. }),
            "{error:?}"
        );
    }
}

#[test]
fn local_references_resolve() {
    let schema = json!({
        "type": "object",
        "$defs": {"Tag": {"type": "string", "maxLength": 3}},
        "properties": {"tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}}
    });
    let validator = ArgumentsValidator::new(&schema).expect("compiles");
    assert!(validator.validate(&json!({"tags": ["ab"]})).is_ok());
    assert!(validator.validate(&json!({"tags": ["abcd"]})).is_err());
}

#[test]
fn long_reasons_are_cut() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let found = violations(schema, json!({"a": "x".repeat(5000)}));
    assert!(found[0].1.chars().count() <= 300, "{}", found[0].1.len());
}
