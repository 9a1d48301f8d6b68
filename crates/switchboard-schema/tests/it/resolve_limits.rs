//! The limits that keep resolution bounded whatever the input: the size budget against
//! definitions that reuse each other, and the nesting bound against input too deep to recurse
//! over.

use crate::resolve_common;

use resolve_common::{assert_reference_free, dismantle, local_with, nesting, serialized_len};
use serde_json::{Map, Value, json};
use switchboard_schema::SchemaError;
use switchboard_schema::resolve::{
    DEFAULT_MAX_NESTING, NESTING_CEILING, ResolveOptions, resolve_local,
};

const DEFINITIONS: usize = 40;

/// Definition `i`'s four references, spread over the others.
fn targets(i: usize) -> [usize; 4] {
    [
        (i + 1) % DEFINITIONS,
        (i * 3 + 7) % DEFINITIONS,
        (i * 5 + 11) % DEFINITIONS,
        (i * 7 + 13) % DEFINITIONS,
    ]
}

/// About 23 KB: 40 definitions, each with four properties referring to four others, through
/// a plain `$ref`, `items`, `anyOf` and a `$ref` with a description. Inlined without a budget to
/// depth 10 that is 4^10 (about a million) copies of half-kilobyte definitions: past 500 MB.
fn pathological() -> Value {
    let mut defs = Map::new();
    for i in 0..DEFINITIONS {
        let [a, b, c, d] = targets(i).map(|t| format!("#/$defs/D{t}"));
        defs.insert(
            format!("D{i}"),
            json!({
                "type": "object",
                "description": format!(
                    "Definition {i}, which refers to four others in different ways: directly, as \
                     array items, in a union with null, and with a description of its own."
                ),
                "properties": {
                    "first": {"$ref": a},
                    "many": {"type": "array", "items": {"$ref": b}, "maxItems": 10},
                    "maybe": {"anyOf": [{"$ref": c}, {"type": "null"}], "default": null},
                    "other": {"$ref": d, "description": "Another definition, described here."},
                    "name": {"type": "string", "minLength": 1},
                    "count": {"type": "integer", "minimum": 0}
                },
                "required": ["first", "name"],
                "additionalProperties": false
            }),
        );
    }
    json!({
        "type": "object",
        "$defs": defs,
        "properties": {
            "a": {"$ref": "#/$defs/D0"},
            "b": {"$ref": "#/$defs/D10"},
            "c": {"type": "array", "items": {"$ref": "#/$defs/D20"}},
            "d": {"$ref": "#/$defs/D30"}
        }
    })
}

#[test]
fn definitions_that_reuse_each_other_stay_within_the_budget() {
    let schema = pathological();
    let input = serialized_len(&schema);
    assert!(
        (20_000..26_000).contains(&input),
        "the input is {input} bytes"
    );
    let options = ResolveOptions {
        max_depth: 10,
        ..ResolveOptions::default()
    };
    let resolved = local_with(&schema, &options);
    let output = serialized_len(&resolved.schema);
    let budget = options.budget(input);
    assert_eq!(budget, 256 * 1024);
    assert!(
        output <= budget,
        "{output} bytes against a budget of {budget}"
    );
    // The budget was used, not avoided: the output is far larger than one copy of everything.
    assert!(output > budget / 2, "only {output} bytes");
    assert_reference_free(&resolved.schema);
    assert!(
        resolved
            .notes
            .iter()
            .any(|note| note.contains("size budget of 262144 bytes reached")),
        "{:?}",
        resolved.notes
    );
    // Notes are said once each: a bounded list, not one per pruned place.
    assert!(
        resolved.notes.len() <= 2 * DEFINITIONS,
        "{} notes",
        resolved.notes.len()
    );
    // No state carries over from one run to the next.
    assert_eq!(local_with(&schema, &options), resolved);
}

#[test]
fn the_budget_follows_the_growth_factor_and_the_cap() {
    let schema = pathological();
    let input = serialized_len(&schema);
    for (growth_factor, absolute_cap) in [(2, 0), (1, 0), (0, 1024), (3, 100_000), (32, 0)] {
        let options = ResolveOptions {
            max_depth: 10,
            growth_factor,
            absolute_cap,
            ..ResolveOptions::default()
        };
        let budget = options.budget(input);
        assert!(budget >= (growth_factor * input).max(absolute_cap));
        let output = serialized_len(&local_with(&schema, &options).schema);
        assert!(output <= budget, "{output} > {budget} for {options:?}");
    }
}

#[test]
fn a_small_budget_prunes_shared_definitions_with_a_note() {
    let schema = json!({
        "$defs": {"Big": {
            "type": "object",
            "description": "big",
            "properties": {"text": {"type": "string", "description": "x".repeat(300)}}
        }},
        "properties": {
            "a": {"$ref": "#/$defs/Big"},
            "b": {"$ref": "#/$defs/Big"},
            "c": {"$ref": "#/$defs/Big"}
        }
    });
    let input = serialized_len(&schema);
    let options = ResolveOptions {
        growth_factor: 2,
        absolute_cap: 0,
        ..ResolveOptions::default()
    };
    let resolved = local_with(&schema, &options);
    assert!(serialized_len(&resolved.schema) <= options.budget(input));
    // Walked in key order: `a` is inlined, `b` and `c` do not fit any more.
    let properties = &resolved.schema["properties"];
    assert_eq!(properties["a"]["properties"]["text"]["type"], "string");
    assert_eq!(
        properties["c"],
        json!({"type": "object", "description": "big"})
    );
    let note = format!(
        "pruned #/$defs/Big: size budget of {} bytes reached",
        options.budget(input)
    );
    assert_eq!(resolved.notes, [note]);
}

/// `{key: value}`, built by moving `value` in: `json!` would serialize it, recursing all the way
/// down.
fn object(entries: impl IntoIterator<Item = (&'static str, Value)>) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}

/// `{"type": "object", "properties": {"a": ...}}` nested `depth` times around a string.
fn deep_properties(depth: usize) -> Value {
    let mut schema = json!({"type": "string"});
    for _ in 0..depth {
        schema = object([
            ("type", json!("object")),
            ("properties", object([("a", schema)])),
        ]);
    }
    schema
}

#[test]
fn ten_thousand_nested_properties_do_not_overflow_the_stack() {
    let schema = deep_properties(10_000);
    let resolved = local_with(&schema, &ResolveOptions::default());
    assert!(nesting(&resolved.schema) <= DEFAULT_MAX_NESTING);
    assert_eq!(
        resolved.notes,
        [format!(
            "pruned schemas nested deeper than {DEFAULT_MAX_NESTING} levels"
        )]
    );
    // Still an object schema at the top, cut off below the limit.
    assert_eq!(resolved.schema["properties"]["a"]["type"], "object");
    dismantle(resolved.schema);
    dismantle(schema);
}

#[test]
fn ten_thousand_nested_data_values_are_dropped_not_recursed_into() {
    let mut default = json!(0);
    for _ in 0..10_000 {
        default = Value::Array(vec![default]);
    }
    let a = object([("type", json!("array")), ("default", default)]);
    let schema = object([
        ("type", json!("object")),
        ("properties", object([("a", a)])),
    ]);
    let resolved = local_with(&schema, &ResolveOptions::default());
    assert_eq!(resolved.schema["properties"]["a"], json!({"type": "array"}));
    assert_eq!(
        resolved.notes,
        [format!(
            "dropped `default` nested deeper than {DEFAULT_MAX_NESTING} levels"
        )]
    );
    dismantle(schema);
}

#[test]
fn a_deep_non_string_reference_is_reported_without_printing_it() {
    let mut reference = json!(0);
    for _ in 0..10_000 {
        reference = Value::Array(vec![reference]);
    }
    let schema = object([("properties", object([("a", object([("$ref", reference)]))]))]);
    match resolve_local(&schema, &ResolveOptions::default()) {
        Err(SchemaError::InvalidRef { reference, at, .. }) => {
            assert_eq!(reference, "(an array)");
            assert_eq!(at, "/properties/a");
        }
        other => panic!("expected InvalidRef, got {other:?}"),
    }
    dismantle(schema);
}

#[test]
fn the_widest_limits_stay_bounded_against_ten_thousand_chained_definitions() {
    // Each definition nests one level and refers to the next: 10,000 references deep.
    let mut defs = Map::new();
    for i in 0..10_000 {
        let next = json!({"$ref": format!("#/$defs/N{}", i + 1)});
        defs.insert(
            format!("N{i}"),
            json!({"type": "object", "properties": {"next": next}}),
        );
    }
    defs.insert("N10000".to_owned(), json!({"type": "string"}));
    // And an alias chain: each definition is only a reference to the next.
    for i in 0..10_000 {
        defs.insert(
            format!("A{i}"),
            json!({"$ref": format!("#/$defs/A{}", i + 1)}),
        );
    }
    defs.insert("A10000".to_owned(), json!({"type": "string"}));
    let schema = json!({
        "$defs": defs,
        "properties": {"nested": {"$ref": "#/$defs/N0"}, "alias": {"$ref": "#/$defs/A0"}}
    });
    let options = ResolveOptions {
        max_depth: usize::MAX,
        max_nesting: usize::MAX,
        growth_factor: usize::MAX,
        absolute_cap: usize::MAX,
    };
    let resolved = local_with(&schema, &options);
    assert!(nesting(&resolved.schema) <= NESTING_CEILING);
    assert_reference_free(&resolved.schema);
    assert!(
        resolved.notes.contains(&format!(
            "pruned #/$defs/A{NESTING_CEILING} at reference depth limit {NESTING_CEILING}"
        )),
        "{:?}",
        resolved.notes
    );
}
