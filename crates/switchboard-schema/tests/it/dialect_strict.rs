//! OpenAI strict mode: when it is lossless, what it rewrites, why it falls back, and the
//! inverse step that removes the `null`s it made the model send.

use crate::provider_rules;

use serde_json::{Map, Value, json};
use switchboard_schema::dialect::{Dialect, DialectSchema, strip_added_nulls, to_dialect};
use switchboard_schema::validate::validate_arguments;

fn strict(schema: &Value) -> DialectSchema {
    to_dialect(schema, Dialect::OpenAiStrict).expect("converts")
}

fn reason(schema: Value) -> String {
    let converted = strict(&schema);
    assert!(!converted.strict, "{:#}", converted.parameters);
    provider_rules::check(Dialect::OpenAi, "t", &converted.parameters).expect("valid non-strict");
    converted.not_strict_reason.expect("a reason")
}

#[test]
fn optional_properties_become_required_and_nullable() {
    let converted = strict(&json!({
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "integer", "minimum": 1},
            "c": {"enum": ["x", "y"], "description": "pick"},
            "d": {"anyOf": [{"type": "string"}, {"type": "number"}]},
            "e": {"type": ["string", "null"]}
        },
        "required": ["a"]
    }));
    assert!(converted.strict, "{:?}", converted.not_strict_reason);
    let p = &converted.parameters;
    assert_eq!(p["required"], json!(["a", "b", "c", "d", "e"]));
    assert_eq!(p["additionalProperties"], json!(false));
    let props = &p["properties"];
    assert_eq!(props["a"], json!({"type": "string"}));
    assert_eq!(
        props["b"],
        json!({"type": ["integer", "null"], "minimum": 1})
    );
    assert_eq!(
        props["c"],
        json!({"description": "pick", "anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]})
    );
    assert_eq!(
        props["d"],
        json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]})
    );
    assert_eq!(props["e"], json!({"type": ["string", "null"]}));
    provider_rules::check(Dialect::OpenAiStrict, "t", p).expect("strict rules");
}

#[test]
fn nested_objects_and_arrays_of_objects_are_closed() {
    let converted = strict(&json!({
        "type": "object",
        "properties": {
            "owner": {"type": "object", "properties": {"name": {"type": "string"}}},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}},
                     "required": ["id"], "additionalProperties": false}, "minItems": 1}
        },
        "required": ["owner", "rows"]
    }));
    assert!(converted.strict, "{:?}", converted.not_strict_reason);
    let p = &converted.parameters["properties"];
    assert_eq!(p["owner"]["additionalProperties"], json!(false));
    assert_eq!(
        p["owner"]["properties"]["name"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(p["rows"]["items"]["required"], json!(["id"]));
    assert_eq!(p["rows"]["minItems"], json!(1));
    provider_rules::check(Dialect::OpenAiStrict, "t", &converted.parameters).expect("strict rules");
}

#[test]
fn a_type_list_becomes_any_of_and_const_an_enum() {
    let converted = strict(&json!({
        "type": "object",
        "properties": {
            "id": {"type": ["string", "integer"], "minimum": 0, "pattern": "^a"},
            "kind": {"const": "fixed"}
        },
        "required": ["id", "kind"]
    }));
    assert!(converted.strict, "{:?}", converted.not_strict_reason);
    let p = &converted.parameters["properties"];
    assert_eq!(
        p["id"],
        json!({"anyOf": [{"type": "string", "pattern": "^a"}, {"type": "integer", "minimum": 0}]})
    );
    assert_eq!(p["kind"], json!({"type": "string", "enum": ["fixed"]}));
}

#[test]
fn disjoint_one_of_is_sent_as_any_of() {
    let converted = strict(&json!({
        "type": "object",
        "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}},
        "required": ["v"]
    }));
    assert!(converted.strict, "{:?}", converted.not_strict_reason);
    assert_eq!(
        converted.parameters["properties"]["v"],
        json!({"anyOf": [{"type": "string"}, {"type": "boolean"}]})
    );
}

#[test]
fn annotations_and_unsupported_formats_move_or_go_without_losing_strictness() {
    let converted = strict(&json!({
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri", "description": "Home page"},
            "n": {"type": "integer", "default": 3, "examples": [1, 2]}
        },
        "required": ["when", "site", "n"]
    }));
    assert!(converted.strict, "{:?}", converted.not_strict_reason);
    let p = &converted.parameters["properties"];
    assert_eq!(p["when"], json!({"type": "string", "format": "date-time"}));
    assert_eq!(
        p["site"],
        json!({"type": "string", "description": "Home page. Format: uri."})
    );
    assert_eq!(
        p["n"],
        json!({"type": "integer", "description": "Default: 3."})
    );
    assert_eq!(converted.notes.len(), 3, "{:?}", converted.notes);
}

#[test]
fn the_root_of_a_tool_without_parameters_is_a_closed_empty_object() {
    let converted = strict(&json!({"type": "object"}));
    assert!(converted.strict);
    assert_eq!(
        converted.parameters,
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn lossy_schemas_fall_back_with_the_reason() {
    let cases = [
        (
            json!({"type": "object", "properties": {"m": {"type": "object", "patternProperties": {"^x": {}}, "properties": {"a": {"type": "string"}}}}}),
            "`#/properties/m` uses `patternProperties`",
        ),
        (
            json!({"type": "object", "properties": {"m": {"type": "object"}}}),
            "`#/properties/m` is an object without declared properties",
        ),
        (
            json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            "`#/properties/m` allows additional properties",
        ),
        (
            json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 1}}}),
            "`#/properties/s` uses `minLength`",
        ),
        (
            json!({"type": "object", "properties": {"v": {}}}),
            "`#/properties/v` accepts any value",
        ),
        (
            json!({"type": "object", "properties": {"v": {"type": "array"}}}),
            "`#/properties/v` is an array without `items`",
        ),
        (
            json!({"type": "object", "properties": {"v": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}}),
            "`oneOf` whose branches may overlap",
        ),
        (
            json!({"type": "object", "properties": {"v": {"type": "string", "not": {"const": ""}}}}),
            "`#/properties/v` uses `not`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "if": {"required": ["a"]}, "then": {}}),
            "`#` uses `if`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "ghost"]}),
            "requires `ghost`, which it does not declare",
        ),
        (
            json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                          {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}]}),
            "the root `anyOf` had to be flattened",
        ),
    ];
    for (schema, expected) in cases {
        let why = reason(schema);
        assert!(why.contains(expected), "{why} / {expected}");
    }
}

#[test]
fn nesting_and_size_limits_are_enforced() {
    let mut deep = json!({"type": "string"});
    // Ten objects inside each other are allowed; eleven are not.
    for _ in 0..11 {
        deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"]});
    }
    assert!(reason(deep).contains("strict mode allows 10"));

    let many: Map<String, Value> = (0..5001)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let why = reason(json!({"type": "object", "properties": many}));
    assert!(why.contains("5000"), "{why}");

    let values: Vec<Value> = (0..1001).map(|i| json!(format!("v{i}"))).collect();
    let why = reason(json!({"type": "object", "properties": {"e": {"enum": values}}}));
    assert!(why.contains("enum values"), "{why}");
}

#[test]
fn a_strict_call_becomes_a_valid_call_once_added_nulls_are_stripped() {
    let original = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer"},
            "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "filter": {"type": "object", "properties": {
                "tag": {"type": "string"}, "since": {"type": "string", "format": "date"}
            }, "required": ["tag"]},
            "rows": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "integer"}, "note": {"type": "string"}
            }, "required": ["id"]}}
        },
        "required": ["query"],
        "additionalProperties": false
    });
    let converted = strict(&original);
    assert!(converted.strict, "{:?}", converted.not_strict_reason);
    // What a strict model sends: every property, null for the ones it leaves out.
    let sent = json!({
        "query": "q", "limit": null, "cursor": null,
        "filter": {"tag": "t", "since": null},
        "rows": [{"id": 1, "note": null}, {"id": 2, "note": "n"}]
    });
    assert!(validate_arguments(&converted.parameters, &sent).is_ok());
    assert!(validate_arguments(&original, &sent).is_err());
    let Value::Object(mut arguments) = sent else {
        unreachable!()
    };
    strip_added_nulls(&mut arguments, &original);
    let stripped = Value::Object(arguments);
    assert_eq!(
        stripped,
        json!({"query": "q", "cursor": null, "filter": {"tag": "t"}, "rows": [{"id": 1}, {"id": 2, "note": "n"}]})
    );
    validate_arguments(&original, &stripped).expect("valid for the server");
}

#[test]
fn strip_added_nulls_follows_refs_unions_and_tuples_of_the_original() {
    let original = json!({
        "type": "object",
        "$defs": {
            "Item": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["string", "null"]}}},
            "Maybe": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]}
        },
        "properties": {
            "item": {"$ref": "#/$defs/Maybe"},
            "pair": {"type": "array", "prefixItems": [{"$ref": "#/$defs/Item"}, {"type": "integer"}]},
            "free": {}
        }
    });
    let mut arguments = json!({
        "item": {"a": null, "b": null},
        "pair": [{"a": null}, null],
        "free": null,
        "unknown": null
    });
    let Value::Object(map) = &mut arguments else {
        unreachable!()
    };
    strip_added_nulls(map, &original);
    assert_eq!(
        arguments,
        json!({"item": {"b": null}, "pair": [{}, null], "free": null, "unknown": null})
    );
}

#[test]
fn strip_added_nulls_survives_cycles_and_junk() {
    let original = json!({"$ref": "#", "properties": {"x": {"$ref": "#/properties/x"}, "y": {"type": "string"}}});
    let mut arguments = json!({"x": {"x": {"y": null}}, "y": null});
    let Value::Object(map) = &mut arguments else {
        unreachable!()
    };
    strip_added_nulls(map, &original);
    assert_eq!(arguments, json!({"x": {"x": {"y": null}}}));
    for junk in [
        json!(null),
        json!(42),
        json!({"properties": 5}),
        json!({"$ref": "#/nowhere"}),
    ] {
        let mut args = Map::new();
        args.insert("a".into(), Value::Null);
        strip_added_nulls(&mut args, &junk);
        assert_eq!(args.len(), 1, "{junk}");
    }
}
