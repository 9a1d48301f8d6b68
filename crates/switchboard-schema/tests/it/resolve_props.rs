//! Properties of resolution over generated schemas with references, cycles, remote references
//! and combinators: the output is a valid, reference-free schema within the budget and the
//! nesting bound, and resolving it again changes nothing; and the same for the whole conversion
//! into every dialect.

use crate::resolve_common;

use proptest::prelude::*;
use resolve_common::{assert_reference_free, nesting, serialized_len};
use serde_json::{Map, Value, json};
use switchboard_schema::resolve::{ResolveOptions, resolve_local};
use switchboard_schema::{ConvertOptions, Dialect, ToolInput, convert_tool};

/// A reference to one of `defs` definitions (draft-07 `definitions` or 2020-12 `$defs`), to
/// the root, or to another document.
fn reference(defs: usize, draft7: bool) -> impl Strategy<Value = String> {
    let folder = if draft7 { "definitions" } else { "$defs" };
    prop_oneof![
        6 => (0..defs).prop_map(move |k| format!("#/{folder}/D{k}")),
        1 => Just("#".to_owned()),
        1 => Just("https://example.com/remote.json#/$defs/X".to_owned()),
    ]
}

fn leaf(defs: usize, draft7: bool) -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "string", "integer", "number", "boolean", "null", "object", "array"
        ])
        .prop_map(|kind| json!({"type": kind})),
        reference(defs, draft7).prop_map(|r| json!({"$ref": r})),
        (reference(defs, draft7), "[a-z ]{0,12}", any::<bool>()).prop_map(
            |(r, text, with_default)| {
                let mut node = json!({"$ref": r, "description": text});
                if with_default {
                    node["default"] = json!(null);
                }
                node
            }
        ),
        any::<bool>().prop_map(Value::Bool),
        Just(json!({"enum": ["a", 1, null, {"$ref": "#/not/a/schema"}]})),
    ]
}

fn tree(defs: usize, draft7: bool) -> impl Strategy<Value = Value> {
    leaf(defs, draft7).prop_recursive(5, 48, 4, move |inner| {
        let names = || prop::collection::btree_map("p[0-3]", inner.clone(), 0..4);
        prop_oneof![
            (names(), any::<bool>()).prop_map(|(properties, require_all)| {
                let required: Vec<&String> = if require_all {
                    properties.keys().collect()
                } else {
                    Vec::new()
                };
                json!({"type": "object", "properties": properties, "required": required})
            }),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|all| json!({"anyOf": all})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|all| json!({"oneOf": all})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|all| json!({"allOf": all})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|all| json!({"prefixItems": all})),
            inner.clone().prop_map(|not| json!({"not": not})),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(i, t, e)| json!({"if": i, "then": t, "else": e})),
            inner
                .clone()
                .prop_map(|extra| json!({"additionalProperties": extra})),
            (reference(defs, draft7), names())
                .prop_map(|(r, properties)| json!({"$ref": r, "properties": properties})),
        ]
    })
}

/// A tool schema: definitions that refer to each other (cycles included) and a root object.
fn schema() -> impl Strategy<Value = Value> {
    (1usize..6, any::<bool>()).prop_flat_map(|(defs, draft7)| {
        let definitions = prop::collection::vec(tree(defs, draft7), defs);
        let properties = prop::collection::btree_map("[a-d]", tree(defs, draft7), 0..4);
        (definitions, properties).prop_map(move |(definitions, properties)| {
            let definitions: Map<String, Value> = definitions
                .into_iter()
                .enumerate()
                .map(|(i, definition)| (format!("D{i}"), definition))
                .collect();
            let folder = if draft7 { "definitions" } else { "$defs" };
            let mut root = json!({"properties": properties});
            root[folder] = Value::Object(definitions);
            root
        })
    })
}

/// Default limits, and tight ones that make the budget and the nesting bound bite.
fn options() -> impl Strategy<Value = ResolveOptions> {
    prop_oneof![
        Just(ResolveOptions::default()),
        (0usize..8, 4usize..24, 1usize..4, 0usize..4096).prop_map(
            |(max_depth, max_nesting, growth_factor, absolute_cap)| ResolveOptions {
                max_depth,
                max_nesting,
                growth_factor,
                absolute_cap,
            }
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn output_is_a_reference_free_schema_within_the_limits(input in schema(), options in options()) {
        let resolved = resolve_local(&input, &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let output = &resolved.schema;
        assert_reference_free(output);
        prop_assert_eq!(output.get("type"), Some(&json!("object")), "root {}", output);
        let budget = options.budget(serialized_len(&input));
        prop_assert!(serialized_len(output) <= budget, "{} > {}", serialized_len(output), budget);
        prop_assert!(nesting(output) <= options.max_nesting.max(2));
        prop_assert!(jsonschema::meta::is_valid(output), "not a valid schema: {}", output);
    }

    #[test]
    fn resolving_is_idempotent_and_deterministic(input in schema(), options in options()) {
        let once = resolve_local(&input, &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let again = resolve_local(&input, &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&again, &once);
        let twice = resolve_local(&once.schema, &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&twice.schema, &once.schema);
        prop_assert!(twice.notes.is_empty(), "{:?}", twice.notes);
    }
}

/// The schema a converted entry carries, or `None` for a Gemini tool without parameters.
fn parameters(dialect: Dialect, entry: &Value) -> Option<&Value> {
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => entry.pointer("/function/parameters"),
        Dialect::Anthropic => entry.get("input_schema"),
        Dialect::Gemini => entry.get("parameters"),
        _ => entry.get("parametersJsonSchema"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn whole_conversion_is_valid_reference_free_and_idempotent(input in schema()) {
        let options = ConvertOptions::default();
        for dialect in Dialect::ALL {
            let tool = ToolInput { name: "t".into(), description: None, input_schema: Some(input.clone()) };
            // A tool may be refused (Gemini cannot say everything); it must never panic.
            let Ok(once) = convert_tool(&tool, dialect, &options) else { continue };
            let Some(output) = parameters(dialect, &once.entry) else { continue };
            assert_reference_free(output);
            prop_assert!(jsonschema::meta::is_valid(output), "{dialect}: not a valid schema: {output}");
            let budget = options.resolve.budget(serialized_len(&input));
            prop_assert!(serialized_len(output) <= budget, "{dialect}: {} > {budget}", serialized_len(output));
            // Gemini's `parameters` is the OpenAPI 3.0 subset (`nullable`), not JSON Schema,
            // so it is not an input of the same language; its own idempotence over JSON
            // Schema input is checked in dialect_props.rs.
            if dialect == Dialect::Gemini {
                continue;
            }
            let again = ToolInput { input_schema: Some(output.clone()), ..tool };
            // A strict attempt that fell back produced plain OpenAI parameters; converting those
            // again is an OpenAI conversion (a second strict attempt could now succeed, since
            // the loss that refused strict is no longer visible in the flattened schema).
            let second = if dialect == Dialect::OpenAiStrict && !once.strict { Dialect::OpenAi } else { dialect };
            let twice = convert_tool(&again, second, &options)
                .map_err(|e| TestCaseError::fail(format!("{dialect}: second pass failed: {e}")))?;
            prop_assert_eq!(parameters(dialect, &twice.entry), Some(output), "{} twice", dialect);
        }
    }
}
