//! Reference resolution: seed 003's cases (section 7.1) and the rules of `$ref` resolution.

use crate::resolve_common;

use resolve_common::{assert_reference_free, local, local_with};
use serde_json::{Value, json};
use switchboard_schema::SchemaError;
use switchboard_schema::error::RefProblem;
use switchboard_schema::resolve::{OpenApiResolver, ResolveOptions, resolve, resolve_local};

fn with_depth(max_depth: usize) -> ResolveOptions {
    ResolveOptions {
        max_depth,
        ..ResolveOptions::default()
    }
}

/// A chain of distinct definitions, `L1` -> `L2` -> ... -> `L{len}`, the last one a string.
fn chain(len: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 1..len {
        defs.insert(
            format!("L{i}"),
            json!({
                "type": "object",
                "description": format!("level {i}"),
                "properties": {"next": {"$ref": format!("#/$defs/L{}", i + 1)}}
            }),
        );
    }
    defs.insert(
        format!("L{len}"),
        json!({"type": "string", "description": "the end"}),
    );
    json!({"$defs": defs, "properties": {"start": {"$ref": "#/$defs/L1"}}})
}

/// How many `next` links the resolved chain has, the last one to a pruned node.
fn inlined_levels(resolved: &Value) -> usize {
    let mut node = &resolved["properties"]["start"];
    let mut levels = 0;
    while let Some(next) = node.get("properties").and_then(|p| p.get("next")) {
        levels += 1;
        node = next;
    }
    levels
}

#[test]
fn seed_simple_schema_is_kept_with_an_object_root() {
    let schema = json!({
        "properties": {
            "query": {"type": "string", "description": "What to look for"},
            "limit": {"type": "integer", "minimum": 1, "default": 10}
        },
        "required": ["query"]
    });
    let resolved = local(&schema);
    let mut expected = schema.clone();
    expected["type"] = json!("object");
    assert_eq!(resolved.schema, expected);
    assert!(resolved.notes.is_empty());
    let typed = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    assert_eq!(local(&typed).schema, typed);
}

#[test]
fn seed_defs_are_inlined() {
    let schema = json!({
        "type": "object",
        "$defs": {
            "Address": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                "required": ["city"]
            }
        },
        "properties": {
            "home": {"$ref": "#/$defs/Address"},
            "work": {"$ref": "#/$defs/Address"}
        }
    });
    let address = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
        "required": ["city"]
    });
    let resolved = local(&schema);
    assert_eq!(
        resolved.schema,
        json!({"type": "object", "properties": {"home": address, "work": address}})
    );
    assert!(resolved.notes.is_empty());
}

#[test]
fn seed_cycle_is_pruned_exactly_as_in_section_5_5() {
    let input = json!({
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "string"},
                    "child": {"$ref": "#/$defs/Node"}
                }
            }
        },
        "properties": {
            "root": {"$ref": "#/$defs/Node"}
        }
    });
    let output = json!({
        "type": "object",
        "properties": {
            "root": {
                "type": "object",
                "properties": {
                    "value": {"type": "string"},
                    "child": {"type": "object"}
                }
            }
        }
    });
    let resolved = local(&input);
    assert_eq!(resolved.schema, output);
    assert_eq!(resolved.notes, ["pruned cycle at #/$defs/Node"]);
}

#[test]
fn seed_depth_is_pruned_at_three() {
    let resolved = local(&chain(6));
    assert_eq!(inlined_levels(&resolved.schema), 3);
    // L1, L2 and L3 are inlined; L4 is pruned to its type and description.
    let l3 = &resolved.schema["properties"]["start"]["properties"]["next"]["properties"]["next"];
    assert_eq!(l3["description"], "level 3");
    assert_eq!(
        l3["properties"]["next"],
        json!({"type": "object", "description": "level 4"})
    );
    assert_eq!(
        resolved.notes,
        ["pruned #/$defs/L4 at reference depth limit 3"]
    );
}

#[test]
fn depth_limit_is_configurable() {
    let schema = chain(12);
    assert_eq!(
        inlined_levels(&local_with(&schema, &with_depth(5)).schema),
        5
    );
    assert_eq!(
        inlined_levels(&local_with(&schema, &with_depth(10)).schema),
        10
    );
    let one = local_with(&schema, &with_depth(1)).schema;
    assert_eq!(
        one["properties"]["start"]["properties"]["next"],
        json!({"type": "object", "description": "level 2"})
    );
    // Depth 0 inlines nothing.
    let none = local_with(&schema, &with_depth(0)).schema;
    assert_eq!(
        none["properties"]["start"],
        json!({"type": "object", "description": "level 1"})
    );
    // A chain shorter than the limit is inlined to its end, without notes.
    let short = local_with(&chain(3), &with_depth(3));
    assert_eq!(
        short.schema["properties"]["start"]["properties"]["next"]["properties"]["next"],
        json!({"type": "string", "description": "the end"})
    );
    assert!(short.notes.is_empty());
}

#[test]
fn pruned_reference_keeps_its_siblings_and_the_targets_type_and_description() {
    let schema = json!({
        "$defs": {
            "Tree": {
                "type": "object",
                "description": "A tree",
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
                    "parent": {"$ref": "#/$defs/Tree", "description": "Up", "default": null}
                }
            }
        },
        "properties": {"tree": {"$ref": "#/$defs/Tree"}}
    });
    let tree = &local(&schema).schema["properties"]["tree"];
    assert_eq!(
        tree["properties"]["children"]["items"],
        json!({"type": "object", "description": "A tree"})
    );
    assert_eq!(
        tree["properties"]["parent"],
        json!({"type": "object", "description": "Up", "default": null})
    );
}

#[test]
fn reference_siblings_are_merged_over_the_target() {
    let schema = json!({
        "$defs": {
            "Point": {
                "type": "object",
                "description": "A point",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x"]
            }
        },
        "properties": {
            "at": {"$ref": "#/$defs/Point", "description": "Where", "default": {"x": 0, "y": 0}},
            "at3": {
                "$ref": "#/$defs/Point",
                "properties": {"z": {"type": "number"}},
                "required": ["z"]
            }
        }
    });
    let resolved = local(&schema);
    assert_eq!(
        resolved.schema["properties"]["at"],
        json!({
            "type": "object",
            "description": "Where",
            "default": {"x": 0, "y": 0},
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x"]
        })
    );
    assert_eq!(
        resolved.schema["properties"]["at3"],
        json!({
            "type": "object",
            "description": "A point",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}, "z": {"type": "number"}},
            "required": ["x", "z"]
        })
    );
    assert!(resolved.notes.is_empty());
}

#[test]
fn openapi_components_are_resolved_in_the_document() {
    let document = json!({
        "openapi": "3.0.3",
        "paths": {},
        "components": {"schemas": {
            "Pet": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "owner": {"$ref": "#/components/schemas/Person"}}
            },
            "Person": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "pets": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}
            }
        }}
    });
    let body = json!({"$ref": "#/components/schemas/Pet"});
    let resolved = resolve(
        &body,
        &OpenApiResolver::new(&document),
        &ResolveOptions::default(),
    )
    .expect("resolves");
    assert_eq!(
        resolved.schema,
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "owner": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "pets": {"type": "array", "items": {"type": "object"}}}
                }
            }
        })
    );
    assert_eq!(resolved.notes, ["pruned cycle at #/components/schemas/Pet"]);
    let missing = json!({"$ref": "#/components/schemas/Cat"});
    let error = resolve(
        &missing,
        &OpenApiResolver::new(&document),
        &ResolveOptions::default(),
    );
    assert!(matches!(error, Err(SchemaError::MissingRef { .. })));
}

#[test]
fn draft_07_definitions_are_resolved() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"Color": {"type": "string", "enum": ["red", "green"]}},
        "type": "object",
        "properties": {"color": {"$ref": "#/definitions/Color"}}
    });
    assert_eq!(
        local(&schema).schema,
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"color": {"type": "string", "enum": ["red", "green"]}}
        })
    );
}

#[test]
fn any_local_json_pointer_with_escaping() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a/b": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "m~n": {"type": "integer"},
            "copy": {"$ref": "#/properties/a~1b/items"},
            "tilde": {"$ref": "#/properties/m~0n"},
            "encoded": {"$ref": "#/properties/a~1b/%69tems"}
        }
    });
    let properties = &local(&schema).schema["properties"];
    assert_eq!(
        properties["copy"],
        json!({"type": "string", "minLength": 1})
    );
    assert_eq!(properties["tilde"], json!({"type": "integer"}));
    assert_eq!(
        properties["encoded"],
        json!({"type": "string", "minLength": 1})
    );
}

#[test]
fn remote_references_are_pruned_with_a_note_and_never_fetched() {
    let schema = json!({
        "type": "object",
        "properties": {
            "geo": {"$ref": "https://example.com/geo.json#/$defs/Point", "description": "Where"},
            "file": {"$ref": "other.json#/$defs/Thing", "type": "object"}
        }
    });
    let resolved = local(&schema);
    assert_eq!(
        resolved.schema["properties"]["geo"],
        json!({"description": "Where (reference to https://example.com/geo.json#/$defs/Point not resolved)"})
    );
    assert_eq!(
        resolved.schema["properties"]["file"],
        json!({"type": "object", "description": "Reference to other.json#/$defs/Thing not resolved."})
    );
    assert_eq!(resolved.notes.len(), 2);
    let geo = "reference https://example.com/geo.json#/$defs/Point not resolved";
    assert!(
        resolved.notes.iter().any(|note| note.starts_with(geo)),
        "{:?}",
        resolved.notes
    );
    assert!(
        resolved
            .notes
            .iter()
            .all(|note| note.ends_with("nothing is fetched"))
    );
}

#[test]
fn a_reference_by_the_roots_own_id_is_local() {
    let schema = json!({
        "$id": "https://example.com/tool.json",
        "$defs": {"Name": {"type": "string"}},
        "properties": {"name": {"$ref": "https://example.com/tool.json#/$defs/Name"}}
    });
    assert_eq!(
        local(&schema).schema,
        json!({"type": "object", "properties": {"name": {"type": "string"}}})
    );
}

#[test]
fn a_missing_target_is_an_error_that_says_where() {
    let schema = json!({
        "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Gone"}}}},
        "properties": {"a": {"$ref": "#/$defs/A"}}
    });
    match resolve_local(&schema, &ResolveOptions::default()) {
        Err(SchemaError::MissingRef { reference, at }) => {
            assert_eq!(reference, "#/$defs/Gone");
            assert_eq!(at, "/properties/a/properties/b");
        }
        other => panic!("expected MissingRef, got {other:?}"),
    }
    // A broken definition that nothing uses is not an error.
    let unused = json!({"$defs": {"X": {"$ref": "#/$defs/Gone"}}, "properties": {}});
    assert!(resolve_local(&unused, &ResolveOptions::default()).is_ok());
}

#[test]
fn references_that_cannot_be_followed_are_errors() {
    let not_a_string = json!({"properties": {"a": {"$ref": 7}}});
    assert!(matches!(
        resolve_local(&not_a_string, &ResolveOptions::default()),
        Err(SchemaError::InvalidRef {
            problem: RefProblem::NotAString,
            ..
        })
    ));
    let not_a_schema = json!({"properties": {"a": {"$ref": "#/required/0"}}, "required": ["a"]});
    assert!(matches!(
        resolve_local(&not_a_schema, &ResolveOptions::default()),
        Err(SchemaError::InvalidRef {
            problem: RefProblem::NotASchema,
            ..
        })
    ));
    let bad_escape = json!({"properties": {"a": {"$ref": "#/properties/~2"}}});
    assert!(matches!(
        resolve_local(&bad_escape, &ResolveOptions::default()),
        Err(SchemaError::InvalidRef {
            problem: RefProblem::BadEscape,
            ..
        })
    ));
    assert!(matches!(
        resolve_local(&json!("string"), &ResolveOptions::default()),
        Err(SchemaError::NotASchema { .. })
    ));
}

#[test]
fn every_schema_keyword_is_walked() {
    let r = || json!({"$ref": "#/$defs/S"});
    let schema = json!({
        "$defs": {"S": {"type": "string"}},
        "properties": {"p": r()},
        "patternProperties": {"^x-": r()},
        "additionalProperties": r(),
        "propertyNames": r(),
        "unevaluatedProperties": r(),
        "dependentSchemas": {"p": r()},
        "dependencies": {"q": r(), "r": ["p"]},
        "items": r(),
        "prefixItems": [r(), r()],
        "contains": r(),
        "unevaluatedItems": r(),
        "anyOf": [r()],
        "oneOf": [r(), {"type": "null"}],
        "allOf": [r()],
        "not": r(),
        "if": r(),
        "then": r(),
        "else": r(),
        "contentSchema": r(),
        "default": {"$ref": "#/$defs/S"},
        "x-extension": {"$ref": "kept as data"}
    });
    let resolved = local(&schema);
    assert_reference_free(&resolved.schema);
    let s = json!({"type": "string"});
    assert_eq!(resolved.schema["properties"]["p"], s);
    assert_eq!(resolved.schema["prefixItems"][1], s);
    assert_eq!(resolved.schema["dependencies"], json!({"q": s, "r": ["p"]}));
    assert_eq!(resolved.schema["else"], s);
    // Data is copied as it is, even when it looks like a reference.
    assert_eq!(resolved.schema["default"], json!({"$ref": "#/$defs/S"}));
    assert_eq!(
        resolved.schema["x-extension"],
        json!({"$ref": "kept as data"})
    );
    // Draft-07 tuple `items`.
    let tuple =
        json!({"definitions": {"S": {"type": "string"}}, "items": [{"$ref": "#/definitions/S"}]});
    assert_eq!(local(&tuple).schema["items"], json!([{"type": "string"}]));
}

#[test]
fn a_root_reference_and_a_reference_to_the_root() {
    let schema = json!({
        "$ref": "#/$defs/Args",
        "$defs": {"Args": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    });
    assert_eq!(
        local(&schema).schema,
        json!({"type": "object", "properties": {"n": {"type": "integer"}}})
    );
    // `#` is the root, which is already being expanded: a cycle at once.
    let recursive = json!({
        "type": "object",
        "description": "A menu",
        "properties": {"submenus": {"type": "array", "items": {"$ref": "#"}}}
    });
    let resolved = local(&recursive);
    assert_eq!(
        resolved.schema["properties"]["submenus"]["items"],
        json!({"type": "object", "description": "A menu"})
    );
    assert_eq!(resolved.notes, ["pruned cycle at #"]);
}

#[test]
fn dynamic_and_recursive_references() {
    let schema = json!({
        "type": "object",
        "$defs": {"S": {"type": "string"}},
        "properties": {
            "a": {"$dynamicRef": "#/$defs/S"},
            "b": {"$recursiveRef": "#"},
            "c": {"$dynamicRef": "#meta"}
        }
    });
    let resolved = local(&schema);
    assert_reference_free(&resolved.schema);
    assert_eq!(
        resolved.schema["properties"]["a"],
        json!({"type": "string"})
    );
    assert_eq!(
        resolved.schema["properties"]["b"],
        json!({"type": "object"})
    );
    assert_eq!(
        resolved.schema["properties"]["c"],
        json!({"description": "Reference to #meta not resolved."})
    );
}

#[test]
fn boolean_schemas_and_roots() {
    let schema = json!({
        "$defs": {"Never": false, "Any": true},
        "properties": {
            "never": {"$ref": "#/$defs/Never", "description": "gone"},
            "any": {"$ref": "#/$defs/Any", "description": "anything"},
            "plain": true
        }
    });
    let properties = &local(&schema).schema["properties"];
    assert_eq!(properties["never"], json!(false));
    assert_eq!(properties["any"], json!({"description": "anything"}));
    assert_eq!(properties["plain"], json!(true));
    assert_eq!(local(&json!(true)).schema, json!({"type": "object"}));
    assert_eq!(
        local(&json!(false)).schema,
        json!({"type": "object", "not": {}})
    );
}

#[test]
fn identifiers_and_anchors_are_not_duplicated_by_inlining() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/tool.json",
        "$defs": {"S": {"$id": "s", "$anchor": "s", "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}},
        "properties": {"a": {"$ref": "#/$defs/S"}, "b": {"$ref": "#/$defs/S"}}
    });
    assert_eq!(
        local(&schema).schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}
        })
    );
}

#[test]
fn resolving_twice_gives_the_same_output_and_notes() {
    let schema = json!({
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}, "a": {"$ref": "#/$defs/A"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "x": {"$ref": "https://x.test/y"}}}
        },
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}}
    });
    let first = local(&schema);
    assert_eq!(first, local(&schema));
    let again = local(&first.schema);
    assert_eq!(again.schema, first.schema);
    assert!(again.notes.is_empty());
}
