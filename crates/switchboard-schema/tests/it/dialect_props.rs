//! Generated schemas, well-formed or not: no dialect panics, every output it gives follows its
//! provider's rules, converting the output again changes nothing, and stripping nulls and
//! validating arguments never panic either.

use crate::provider_rules;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use switchboard_schema::dialect::{Dialect, strip_added_nulls, to_dialect};
use switchboard_schema::validate::validate_arguments;

const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "enum",
    "const",
    "format",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "pattern",
    "default",
    "description",
    "title",
    "nullable",
    "$ref",
    "$defs",
    "examples",
    "patternProperties",
    "minItems",
    "uniqueItems",
    "if",
    "then",
    "dependencies",
    "x-extra",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..50).prop_map(|n| json!(n)),
        Just(json!(1.5)),
        prop::sample::select(vec![
            "string",
            "integer",
            "number",
            "boolean",
            "object",
            "array",
            "null",
            "date-time",
            "uri",
            "x"
        ])
        .prop_map(|s| json!(s)),
    ]
}

/// Schema-like values: objects keyed by real keywords (and property names), arrays, scalars.
fn schema() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYWORDS), inner.clone()), 0..6).prop_map(
                |pairs| {
                    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }
            ),
            prop::collection::vec(
                (prop::sample::select(vec!["a", "b", "c-d", "e.f"]), inner),
                1..4
            )
            .prop_map(|pairs| {
                let properties: Map<String, Value> =
                    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                let required: Vec<Value> = properties.keys().take(1).map(|k| json!(k)).collect();
                json!({"type": "object", "properties": properties, "required": required})
            }),
        ]
    })
}

/// Mostly object roots with properties, like real tools; sometimes anything at all.
fn root() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => schema(),
        3 => prop::collection::vec((prop::sample::select(vec!["a", "b", "c"]), schema()), 1..5).prop_map(|pairs| {
            let properties: Map<String, Value> = pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            json!({"type": "object", "properties": properties, "required": ["a"]})
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn any_input_converts_safely_and_by_the_rules(input in root(), args in root()) {
        for dialect in Dialect::ALL {
            let Ok(converted) = to_dialect(&input, dialect) else { continue };
            let checked = if dialect == Dialect::OpenAiStrict && !converted.strict {
                Dialect::OpenAi
            } else {
                dialect
            };
            if let Err(problems) = provider_rules::check(checked, "tool", &converted.parameters) {
                prop_assert!(false, "{dialect}: {problems:?}\nin: {input}\nout: {}", converted.parameters);
            }
            if checked == dialect {
                let again = to_dialect(&converted.parameters, dialect).expect("converts again");
                prop_assert_eq!(&again.parameters, &converted.parameters, "{} twice, from {}", dialect, input);
            }
        }
        if let Value::Object(mut map) = args.clone() {
            strip_added_nulls(&mut map, &input);
        }
        let _ = validate_arguments(&input, &args);
    }
}
