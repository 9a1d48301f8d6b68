//! Every dialect's output, for schemas shaped like what pydantic, zod and hand-written MCP
//! servers produce, checked against the providers' documented rules; plus the rules every
//! dialect shares (root, names, idempotence).

use crate::provider_rules;

use serde_json::{Value, json};
use switchboard_schema::dialect::{Dialect, to_dialect, tool_name};
use switchboard_schema::error::SchemaError;

/// Schemas as MCP servers send them, references already inlined.
fn corpus() -> Vec<(&'static str, Value)> {
    vec![
        ("empty", json!({})),
        ("no-properties", json!({"type": "object"})),
        (
            "simple",
            json!({
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"},
                               "days": {"type": "integer", "minimum": 1, "maximum": 14}},
                "required": ["city"]
            }),
        ),
        // pydantic v2: titles everywhere, Optional as anyOf with null and a null default.
        (
            "pydantic-optional",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "SearchArgs",
                "type": "object",
                "properties": {
                    "query": {"title": "Query", "type": "string"},
                    "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "title": "Limit"},
                    "sort": {"title": "Sort", "enum": ["asc", "desc"], "type": "string", "default": "asc"}
                },
                "required": ["query"]
            }),
        ),
        // pydantic nested model (inlined $ref) and list of models.
        (
            "pydantic-nested",
            json!({
                "type": "object",
                "properties": {
                    "owner": {"title": "User", "type": "object",
                              "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}},
                              "required": ["name"]},
                    "members": {"type": "array", "items": {"type": "object",
                                "properties": {"id": {"type": "integer"}, "role": {"enum": ["admin", "user"]}},
                                "required": ["id", "role"]}},
                    "created": {"type": "string", "format": "date-time"},
                    "website": {"type": "string", "format": "uri"}
                },
                "required": ["owner"]
            }),
        ),
        // pydantic Optional[Model] and Literal numbers.
        (
            "pydantic-optional-model",
            json!({
                "type": "object",
                "properties": {
                    "filter": {"anyOf": [{"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"]},
                                         {"type": "null"}], "description": "Optional filter"},
                    "level": {"enum": [1, 2, 3], "type": "integer"},
                    "mode": {"const": "fast"}
                }
            }),
        ),
        // zod: closed objects, type lists, unions, numeric bounds.
        (
            "zod",
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": ["string", "number"]},
                    "note": {"type": ["string", "null"], "maxLength": 200},
                    "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": true},
                    "price": {"type": "number", "exclusiveMinimum": 0},
                    "count": {"type": "integer", "exclusiveMaximum": 10},
                    "kind": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
                },
                "required": ["id", "tags"],
                "additionalProperties": false
            }),
        ),
        // zod discriminated union at the root.
        (
            "zod-root-union",
            json!({
                "anyOf": [
                    {"type": "object", "properties": {"op": {"const": "add"}, "a": {"type": "number"}}, "required": ["op", "a"],
                     "additionalProperties": false},
                    {"type": "object", "properties": {"op": {"const": "neg"}, "x": {"type": "number"}}, "required": ["op"],
                     "additionalProperties": false}
                ]
            }),
        ),
        // hand-written: free-form maps, any values, arrays without items, draft-07.
        (
            "free-form",
            json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                    "payload": {},
                    "values": {"type": "array"},
                    "point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false}
                },
                "required": ["query"]
            }),
        ),
        (
            "keywords-galore",
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "string", "pattern": "^[a-z]+$", "examples": ["abc"], "deprecated": true},
                    "b": {"type": "object", "properties": {"x": {"type": "string"}}, "patternProperties": {"^y": {"type": "string"}}},
                    "c": {"type": "integer", "multipleOf": 5, "default": 10, "$comment": "c"},
                    "d": {"allOf": [{"type": "string"}, {"minLength": 2}]},
                    "e": {"type": "string", "not": {"const": "x"}},
                    "f": {"if": {"type": "string"}, "then": {"minLength": 1}},
                    "g": {"type": "boolean", "nullable": true},
                    "h": {"$ref": "https://example.com/remote.json"}
                },
                "dependentRequired": {"a": ["b"]}
            }),
        ),
        (
            "draft4",
            json!({
                "$schema": "http://json-schema.org/draft-04/schema#",
                "type": "object",
                "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}},
                "required": ["n"]
            }),
        ),
        (
            "deep",
            json!({
                "type": "object",
                "properties": {"l1": {"type": "object", "properties": {"l2": {"type": "object", "properties": {
                    "l3": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "string"}}}}}}}}}
            }),
        ),
    ]
}

fn names() -> Vec<&'static str> {
    vec![
        "get_weather",
        "files.read",
        "3d-render",
        "",
        "a/very/long/name/that/keeps/going/and/going/past/every/limit/there/is",
    ]
}

#[test]
fn every_dialect_output_follows_its_provider_rules() {
    let mut failures = Vec::new();
    for (label, schema) in corpus() {
        for dialect in Dialect::ALL {
            let converted = match to_dialect(&schema, dialect) {
                Ok(c) => c,
                Err(error) => {
                    // Gemini may refuse a schema it cannot express; nothing else may.
                    assert_eq!(dialect, Dialect::Gemini, "{label} {dialect}: {error}");
                    continue;
                }
            };
            let checked = if dialect == Dialect::OpenAiStrict && !converted.strict {
                Dialect::OpenAi
            } else {
                dialect
            };
            for name in names() {
                let name = tool_name(name, dialect);
                if let Err(problems) = provider_rules::check(checked, &name, &converted.parameters)
                {
                    failures.push(format!(
                        "{label} / {dialect}: {problems:?}\n{:#}",
                        converted.parameters
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn converting_the_output_again_changes_nothing() {
    for (label, schema) in corpus() {
        for dialect in Dialect::ALL {
            let Ok(once) = to_dialect(&schema, dialect) else {
                continue;
            };
            if dialect == Dialect::OpenAiStrict && !once.strict {
                continue;
            }
            let twice = to_dialect(&once.parameters, dialect).expect("converts again");
            assert_eq!(twice.parameters, once.parameters, "{label} / {dialect}");
        }
    }
}

#[test]
fn a_missing_or_empty_schema_becomes_an_empty_object() {
    for schema in [
        Value::Null,
        json!({}),
        json!(true),
        json!({"type": "object"}),
    ] {
        for dialect in Dialect::ALL {
            let converted = to_dialect(&schema, dialect).expect("converts");
            assert_eq!(converted.parameters["type"], "object", "{schema} {dialect}");
            assert_eq!(
                converted.parameters["properties"],
                json!({}),
                "{schema} {dialect}"
            );
        }
    }
}

#[test]
fn a_non_object_root_is_rejected_not_wrapped() {
    for schema in [
        json!({"type": "string"}),
        json!({"type": ["array", "null"]}),
        json!(false),
    ] {
        for dialect in Dialect::ALL {
            let error = to_dialect(&schema, dialect).expect_err("a scalar root is refused");
            assert!(
                matches!(error, SchemaError::RootNotObject { .. }),
                "{error}"
            );
            assert!(
                error.to_string().contains("always a JSON object"),
                "{error}"
            );
        }
    }
}

#[test]
fn a_nullable_object_root_becomes_an_object() {
    let converted =
        to_dialect(&json!({"type": ["object", "null"]}), Dialect::Anthropic).expect("ok");
    assert_eq!(
        converted.parameters,
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(converted.notes.len(), 1);
}

#[test]
fn a_root_union_of_objects_is_flattened() {
    let schema = corpus()
        .into_iter()
        .find(|(l, _)| *l == "zod-root-union")
        .map(|(_, s)| s);
    let converted = to_dialect(&schema.expect("in corpus"), Dialect::Anthropic).expect("ok");
    let p = &converted.parameters;
    assert_eq!(p.get("anyOf"), None);
    assert_eq!(p["required"], json!(["op"]));
    assert_eq!(
        p["properties"]["op"],
        json!({"anyOf": [{"const": "add"}, {"const": "neg"}]})
    );
    assert!(p["properties"]["a"].is_object() && p["properties"]["x"].is_object());
    assert!(
        converted.notes.iter().any(|n| n.contains("flattened")),
        "{:?}",
        converted.notes
    );
}

#[test]
fn meta_keywords_and_leftover_refs_are_dropped_everywhere() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:x",
        "$comment": "c",
        "$defs": {"Unused": {"type": "string"}},
        "type": "object",
        "properties": {"r": {"$ref": "#/$defs/Unused", "description": "kept"}}
    });
    for dialect in Dialect::ALL {
        let converted = to_dialect(&schema, dialect).expect("ok");
        let text = converted.parameters.to_string();
        for gone in ["$schema", "$id", "$comment", "$defs", "$ref"] {
            assert!(!text.contains(gone), "{dialect}: {text}");
        }
        assert!(
            converted
                .notes
                .iter()
                .any(|n| n.contains("unresolved reference"))
        );
    }
}

#[test]
fn anthropic_keeps_keywords_and_upgrades_old_drafts() {
    let schema = corpus()
        .into_iter()
        .find(|(l, _)| *l == "free-form")
        .map(|(_, s)| s);
    let converted = to_dialect(&schema.expect("in corpus"), Dialect::Anthropic).expect("ok");
    let point = &converted.parameters["properties"]["point"];
    assert_eq!(
        point["prefixItems"],
        json!([{"type": "number"}, {"type": "number"}])
    );
    assert_eq!(point["items"], json!(false));
    assert_eq!(
        converted.parameters["properties"]["metadata"]["additionalProperties"],
        json!({"type": "string"})
    );
}

#[test]
fn openai_adds_items_to_arrays_and_keeps_descriptions() {
    let schema = json!({"type": "object", "properties": {
        "paths": {"type": "array", "description": "Files to read"},
        "either": {"type": ["string", "array"]},
        "anything": true
    }, "additionalProperties": false});
    let converted = to_dialect(&schema, Dialect::OpenAi).expect("ok");
    assert_eq!(converted.parameters["additionalProperties"], json!(false));
    let p = &converted.parameters["properties"];
    assert_eq!(p["anything"], json!({}));
    assert_eq!(
        p["paths"],
        json!({"type": "array", "description": "Files to read", "items": {}})
    );
    assert_eq!(p["either"]["items"], json!({}));
    assert!(!converted.strict && converted.not_strict_reason.is_none());
}

#[test]
fn gemini_json_keeps_what_parameters_cannot_say() {
    let schema = corpus()
        .into_iter()
        .find(|(l, _)| *l == "free-form")
        .map(|(_, s)| s);
    let converted = to_dialect(&schema.expect("in corpus"), Dialect::GeminiJson).expect("ok");
    let p = &converted.parameters["properties"];
    assert_eq!(
        p["metadata"]["additionalProperties"],
        json!({"type": "string"})
    );
    assert_eq!(p["payload"], json!({}));
    let zod = corpus()
        .into_iter()
        .find(|(l, _)| *l == "zod")
        .map(|(_, s)| s);
    let converted = to_dialect(&zod.expect("in corpus"), Dialect::GeminiJson).expect("ok");
    let p = &converted.parameters["properties"];
    assert_eq!(p["note"]["type"], json!(["string", "null"]));
    assert_eq!(p["count"]["maximum"], json!(9));
    assert_eq!(p["price"]["minimum"], json!(0));
    assert!(
        p["price"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("Greater than 0"))
    );
    assert!(
        p["note"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("Maximum length: 200"))
    );
}

#[test]
fn notes_say_where_and_what() {
    let schema = corpus()
        .into_iter()
        .find(|(l, _)| *l == "keywords-galore")
        .map(|(_, s)| s);
    let converted = to_dialect(&schema.expect("in corpus"), Dialect::GeminiJson).expect("ok");
    assert!(
        converted
            .notes
            .iter()
            .any(|n| n.starts_with("#/properties/b/patternProperties")),
        "{:?}",
        converted.notes
    );
}

#[test]
fn the_rules_catch_what_providers_reject() {
    use provider_rules::check;
    let object = |properties: Value| json!({"type": "object", "properties": properties});
    let rejected = [
        (
            Dialect::OpenAi,
            "ok",
            object(json!({"a": {"type": "array"}})),
        ),
        (
            Dialect::OpenAi,
            "ok",
            object(json!({"a": {"$ref": "#/$defs/A"}})),
        ),
        (Dialect::OpenAi, "ok", json!({"type": "object"})),
        (
            Dialect::OpenAiStrict,
            "ok",
            object(json!({"a": {"type": "string"}})),
        ),
        (
            Dialect::OpenAiStrict,
            "ok",
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}},
            "required": ["a"], "additionalProperties": false}),
        ),
        (
            Dialect::Anthropic,
            "ok",
            object(json!({"a": {"type": "strng"}})),
        ),
        (Dialect::Anthropic, "bad name!", object(json!({}))),
        (
            Dialect::Anthropic,
            "ok",
            json!({"anyOf": [{"type": "object"}]}),
        ),
        (Dialect::Anthropic, &"x".repeat(65), object(json!({}))),
        (Dialect::Gemini, "1abc", object(json!({}))),
        (Dialect::Gemini, &"x".repeat(64), object(json!({}))),
        (
            Dialect::Gemini,
            "ok",
            object(json!({"a": {"type": "integer", "enum": [1]}})),
        ),
        (
            Dialect::Gemini,
            "ok",
            object(json!({"a": {"type": "object", "properties": {}}})),
        ),
        (
            Dialect::Gemini,
            "ok",
            object(json!({"a": {"const": "x", "type": "string"}})),
        ),
        (
            Dialect::Gemini,
            "ok",
            object(json!({"a": {"type": ["string", "null"]}})),
        ),
        (
            Dialect::Gemini,
            "ok",
            object(json!({"a": {"type": "array"}})),
        ),
        (
            Dialect::Gemini,
            "ok",
            object(json!({"a": {"type": "string", "format": "uri"}})),
        ),
        (
            Dialect::GeminiJson,
            "ok",
            object(json!({"a": {"type": "string", "minLength": 1}})),
        ),
    ];
    for (dialect, name, parameters) in rejected {
        assert!(
            check(dialect, name, &parameters).is_err(),
            "{dialect} {name} {parameters}"
        );
    }
    assert_eq!(
        check(
            Dialect::Gemini,
            "_ok",
            &object(json!({"a": {"type": "string"}}))
        ),
        Ok(())
    );
}
