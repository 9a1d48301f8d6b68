//! Gemini's `parameters` form (an OpenAPI 3.0 subset): each rewrite on its own.

#[path = "common/provider_rules.rs"]
mod provider_rules;

use serde_json::{Value, json};
use switchboard_schema::dialect::{Dialect, DialectSchema, to_dialect};
use switchboard_schema::error::SchemaError;

fn gemini(properties: Value) -> DialectSchema {
    let schema = json!({"type": "object", "properties": properties});
    let converted = to_dialect(&schema, Dialect::Gemini).expect("converts");
    provider_rules::check(Dialect::Gemini, "t", &converted.parameters).expect("Gemini rules");
    converted
}

fn property(properties: Value, name: &str) -> Value {
    gemini(properties).parameters["properties"][name].clone()
}

#[test]
fn null_unions_become_nullable() {
    assert_eq!(
        property(
            json!({"a": {"type": ["string", "null"], "description": "d"}}),
            "a"
        ),
        json!({"type": "string", "nullable": true, "description": "d"})
    );
    assert_eq!(
        property(
            json!({"a": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "title": "A"}}),
            "a"
        ),
        json!({"type": "integer", "minimum": 1, "nullable": true, "title": "A"})
    );
}

#[test]
fn several_types_become_any_of_with_their_keywords() {
    assert_eq!(
        property(
            json!({"a": {"type": ["string", "integer", "null"], "maxLength": 3, "maximum": 9}}),
            "a"
        ),
        json!({"anyOf": [
            {"type": "string", "maxLength": 3, "nullable": true},
            {"type": "integer", "maximum": 9, "nullable": true}
        ]})
    );
}

#[test]
fn const_and_string_enums_become_string_enums() {
    assert_eq!(
        property(json!({"a": {"const": "x"}}), "a"),
        json!({"type": "string", "enum": ["x"]})
    );
    assert_eq!(
        property(json!({"a": {"enum": ["x", "y", null]}}), "a"),
        json!({"type": "string", "enum": ["x", "y"], "nullable": true})
    );
}

#[test]
fn numeric_enums_keep_their_type_and_list_values_in_the_description() {
    let converted =
        gemini(json!({"level": {"type": "integer", "enum": [1, 2, 3], "description": "Level"}}));
    assert_eq!(
        converted.parameters["properties"]["level"],
        json!({"type": "integer", "description": "Level. Allowed values: 1, 2, 3."})
    );
    assert!(
        converted.notes.iter().any(|n| n.contains("enum")),
        "{:?}",
        converted.notes
    );
    assert_eq!(
        property(json!({"mixed": {"enum": ["auto", 1, 2]}}), "mixed"),
        json!({"anyOf": [
            {"type": "string", "enum": ["auto"]},
            {"type": "integer", "description": "One of 1, 2."}
        ]})
    );
}

#[test]
fn only_listed_formats_stay() {
    let converted = gemini(json!({
        "when": {"type": "string", "format": "date-time"},
        "mail": {"type": "string", "format": "email"},
        "n": {"type": "integer", "format": "int64"},
        "x": {"type": "number", "format": "int32"}
    }));
    let p = &converted.parameters["properties"];
    assert_eq!(p["when"]["format"], "date-time");
    assert_eq!(
        p["mail"],
        json!({"type": "string", "description": "Format: email."})
    );
    assert_eq!(p["n"]["format"], "int64");
    assert_eq!(
        p["x"],
        json!({"type": "number", "description": "Format: int32."})
    );
}

#[test]
fn unsupported_keywords_are_dropped_and_noted() {
    let converted = gemini(json!({
        "o": {"type": "object", "properties": {"k": {"type": "string"}}, "additionalProperties": {"type": "string"},
              "examples": [{}], "default": {"k": "v"}},
        "n": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2}
    }));
    let p = &converted.parameters["properties"];
    assert_eq!(
        p["o"],
        json!({"type": "object", "properties": {"k": {"type": "string"}}, "description": "Default: {\"k\":\"v\"}."})
    );
    assert_eq!(
        p["n"],
        json!({"type": "integer", "minimum": 1, "description": "Multiple of 2."})
    );
    for dropped in ["additionalProperties", "examples", "default"] {
        assert!(
            converted.notes.iter().any(|n| n.contains(dropped)),
            "{dropped}: {:?}",
            converted.notes
        );
    }
}

#[test]
fn arrays_always_get_items_and_tuples_a_union() {
    let p = gemini(json!({
        "any": {"type": "array"},
        "pair": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}
    }))
    .parameters["properties"]
    .clone();
    assert_eq!(p["any"]["items"]["anyOf"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        p["pair"],
        json!({"type": "array", "items": {"type": "number"}, "maxItems": 2})
    );
}

#[test]
fn what_gemini_cannot_express_is_left_out_when_optional() {
    let converted = gemini(json!({
        "keep": {"type": "string"},
        "map": {"type": "object", "additionalProperties": {"type": "string"}},
        "nothing": {"type": "null"},
        "either": {"anyOf": [{"type": "object"}, {"type": "string"}]}
    }));
    let p = &converted.parameters["properties"];
    assert_eq!(p.as_object().map(|p| p.len()), Some(2), "{p:#}");
    assert_eq!(p["either"], json!({"type": "string"}));
    assert!(
        converted.notes.iter().any(|n| n.contains("gemini-json")),
        "{:?}",
        converted.notes
    );
}

#[test]
fn what_gemini_cannot_express_fails_the_tool_when_required() {
    let schema = json!({
        "type": "object",
        "properties": {"data": {"type": "object", "description": "free-form"}},
        "required": ["data"]
    });
    let error = to_dialect(&schema, Dialect::Gemini).expect_err("cannot be expressed");
    assert!(
        matches!(
            error,
            SchemaError::Unrepresentable {
                dialect: Dialect::Gemini,
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "gemini cannot express the schema at #/properties/data: an object without properties"
    );
    // The JSON Schema form can.
    let converted = to_dialect(&schema, Dialect::GeminiJson).expect("converts");
    provider_rules::check(Dialect::GeminiJson, "t", &converted.parameters).expect("rules");
}

#[test]
fn a_schema_without_type_gets_the_type_its_keywords_imply() {
    let p = gemini(json!({
        "o": {"properties": {"a": {"type": "string"}}},
        "s": {"pattern": "^a"},
        "a": {"items": {"type": "string"}}
    }))
    .parameters["properties"]
        .clone();
    assert_eq!(p["o"]["type"], "object");
    assert_eq!(p["s"]["type"], "string");
    assert_eq!(p["a"]["type"], "array");
}
