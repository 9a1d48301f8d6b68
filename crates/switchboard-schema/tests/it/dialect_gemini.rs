//! Gemini's `parameters` form (an OpenAPI 3.0 subset): each rewrite on its own.

use crate::provider_rules;

use serde_json::{Value, json};
use switchboard_schema::dialect::{Dialect, DialectSchema, restore_enum_values, to_dialect};
use switchboard_schema::error::SchemaError;
use switchboard_schema::validate::validate_arguments;

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
fn a_nullable_any_of_carries_nullable_on_each_branch_and_converts_again_the_same() {
    // OpenAPI 3.0 ignores `nullable` without a `type` beside it, and so does normalization:
    // `{"anyOf": [...], "nullable": true}` lost its `nullable` when converted again
    // (dialect_props.proptest-regressions, the first input below).
    let any_nullable = json!({"anyOf": [
        {"type": "string", "nullable": true},
        {"type": "number", "nullable": true},
        {"type": "boolean", "nullable": true}
    ]});
    for (a, expected) in [
        (
            json!({"anyOf": [null], "enum": [null, false]}),
            any_nullable.clone(),
        ),
        (json!({"anyOf": [{}, {"type": "null"}]}), any_nullable),
        (
            json!({"anyOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]}),
            json!({"anyOf": [
                {"type": "string", "nullable": true},
                {"type": "integer", "nullable": true}
            ]}),
        ),
        (
            json!({"anyOf": [{}, {"type": "integer"}, {"type": "null"}]}),
            json!({"anyOf": [
                {"anyOf": [
                    {"type": "string", "nullable": true},
                    {"type": "number", "nullable": true},
                    {"type": "boolean", "nullable": true}
                ]},
                {"type": "integer", "nullable": true}
            ]}),
        ),
    ] {
        let schema = json!({"type": "object", "properties": {"a": a}, "required": ["a"]});
        let once = to_dialect(&schema, Dialect::Gemini).expect("converts");
        provider_rules::check(Dialect::Gemini, "t", &once.parameters).expect("Gemini rules");
        assert_eq!(once.parameters["properties"]["a"], expected, "from {a}");
        let twice = to_dialect(&once.parameters, Dialect::Gemini).expect("converts again");
        assert_eq!(twice.parameters, once.parameters, "twice, from {a}");
    }
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
fn non_string_enums_are_sent_as_strings_of_their_json_text() {
    let converted =
        gemini(json!({"level": {"type": "integer", "enum": [1, 2, 3], "description": "Level"}}));
    assert_eq!(
        converted.parameters["properties"]["level"],
        json!({"type": "string", "enum": ["1", "2", "3"], "description": "Level"})
    );
    assert!(
        converted
            .notes
            .iter()
            .any(|n| n.contains("values sent as strings") && n.contains("restored before the call")),
        "{:?}",
        converted.notes
    );
    let p = gemini(json!({
        "mixed": {"enum": ["auto", 1, 2]},
        "ratio": {"enum": [0.5, 2.5, null]},
        "flag": {"const": true},
        "maybe": {"type": ["integer", "null"], "enum": [1, 2, null]}
    }))
    .parameters["properties"]
        .clone();
    assert_eq!(
        p["mixed"],
        json!({"type": "string", "enum": ["auto", "1", "2"]})
    );
    assert_eq!(
        p["ratio"],
        json!({"type": "string", "enum": ["0.5", "2.5"], "nullable": true})
    );
    assert_eq!(p["flag"], json!({"type": "string", "enum": ["true"]}));
    assert_eq!(
        p["maybe"],
        json!({"type": "string", "enum": ["1", "2"], "nullable": true})
    );
}

#[test]
fn enums_whose_values_collide_as_strings_keep_them_in_the_description() {
    let converted = gemini(json!({"n": {"enum": ["1", 1, 2]}}));
    assert_eq!(
        converted.parameters["properties"]["n"],
        json!({"anyOf": [
            {"type": "string", "enum": ["1"]},
            {"type": "integer", "description": "One of 1, 2."}
        ]})
    );
    assert!(
        converted
            .notes
            .iter()
            .any(|n| n.contains("read the same as strings")),
        "{:?}",
        converted.notes
    );
}

#[test]
fn restore_enum_values_puts_back_the_original_values() {
    let original = json!({
        "type": "object",
        "$defs": {"Level": {"enum": [1, 2, 3]}},
        "properties": {
            "count": {"type": "integer", "enum": [1, 2]},
            "ratio": {"enum": [0.5, 2.5]},
            "flag": {"const": false},
            "levels": {"type": "array", "items": {"$ref": "#/$defs/Level"}},
            "pair": {"type": "array", "prefixItems": [{"enum": [true]}, {"enum": [7]}]},
            "inner": {"type": "object", "properties": {"n": {"anyOf": [{"enum": [10, 20]}, {"type": "null"}]}}},
            "either": {"anyOf": [{"enum": [1, 2]}, {"type": "string"}]},
            "listed": {"enum": [1, "1"]},
            "plain": {"type": "string"}
        }
    });
    let Value::Object(mut args) = json!({
        "count": "2",
        "ratio": "2.5",
        "flag": "false",
        "levels": ["3", "1", "9"],
        "pair": ["true", "7"],
        "inner": {"n": "20"},
        "either": "1",
        "listed": "1",
        "plain": "2",
        "undeclared": "1"
    }) else {
        unreachable!()
    };
    restore_enum_values(&mut args, &original);
    assert_eq!(
        Value::Object(args),
        json!({
            "count": 2,
            "ratio": 2.5,
            "flag": false,
            "levels": [3, 1, "9"],
            "pair": [true, 7],
            "inner": {"n": 20},
            "either": "1",
            "listed": "1",
            "plain": "2",
            "undeclared": "1"
        })
    );
}

#[test]
fn restore_enum_values_leaves_unknown_strings_and_survives_cycles() {
    let original = json!({
        "$defs": {"Node": {"type": "object", "properties": {
            "v": {"enum": [1]}, "next": {"$ref": "#/$defs/Node"}}}},
        "$ref": "#/$defs/Node"
    });
    let mut nested = json!({"v": "1"});
    for _ in 0..200 {
        nested = json!({"v": "1", "next": nested});
    }
    let Value::Object(mut args) = json!({"v": "one", "next": nested}) else {
        unreachable!()
    };
    restore_enum_values(&mut args, &original);
    assert_eq!(args["v"], "one");
    assert_eq!(args["next"]["v"], 1);
    assert_eq!(args["next"]["next"]["v"], 1);
}

#[test]
fn a_gemini_answer_restored_passes_the_original_schema() {
    let original = json!({
        "type": "object",
        "properties": {"level": {"type": "integer", "enum": [1, 2, 3]}},
        "required": ["level"]
    });
    let converted = to_dialect(&original, Dialect::Gemini).expect("converts");
    provider_rules::check(Dialect::Gemini, "t", &converted.parameters).expect("Gemini rules");
    assert_eq!(
        converted.parameters["properties"]["level"]["enum"],
        json!(["1", "2", "3"])
    );
    let Value::Object(mut args) = json!({"level": "2"}) else {
        unreachable!()
    };
    assert!(validate_arguments(&original, &Value::Object(args.clone())).is_err());
    restore_enum_values(&mut args, &original);
    assert_eq!(args["level"], 2);
    validate_arguments(&original, &Value::Object(args)).expect("valid for the server");
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
