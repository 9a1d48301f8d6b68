//! Helpers shared by the `resolve*` test files.
#![allow(dead_code)]

use serde_json::Value;
use switchboard_schema::resolve::{ResolveOptions, Resolved, resolve_local};

/// Resolves `schema` against itself with default options.
pub fn local(schema: &Value) -> Resolved {
    local_with(schema, &ResolveOptions::default())
}

pub fn local_with(schema: &Value, options: &ResolveOptions) -> Resolved {
    match resolve_local(schema, options) {
        Ok(resolved) => resolved,
        Err(error) => panic!("resolve failed: {error}"),
    }
}

pub fn serialized_len(value: &Value) -> usize {
    serde_json::to_vec(value)
        .map(|bytes| bytes.len())
        .unwrap_or(usize::MAX)
}

/// Container nesting of `value`: a scalar is 0, `{}` is 1.
pub fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

/// Panics if a schema position of `schema` holds a reference or definitions. Data (`default`,
/// `enum`, unknown keywords) and property names may say `$ref`: they are not schemas.
pub fn assert_reference_free(schema: &Value) {
    let Value::Object(map) = schema else { return };
    for key in [
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
        "$defs",
        "definitions",
    ] {
        assert!(!map.contains_key(key), "`{key}` left in {schema}");
    }
    for (key, value) in map {
        match (key.as_str(), value) {
            (
                "properties" | "patternProperties" | "dependentSchemas" | "dependencies",
                Value::Object(entries),
            ) => {
                entries.values().for_each(assert_reference_free);
            }
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(items)) => {
                items.iter().for_each(assert_reference_free);
            }
            (
                "additionalProperties"
                | "items"
                | "additionalItems"
                | "contains"
                | "not"
                | "if"
                | "then"
                | "else"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "contentSchema",
                schema,
            ) => assert_reference_free(schema),
            _ => {}
        }
    }
}

/// Takes a deep chain apart one level at a time (dropping it whole would recurse once per
/// level), following the single nested container at each level.
pub fn dismantle(mut value: Value) {
    loop {
        let next = match &mut value {
            Value::Object(map) => {
                let key = map
                    .iter()
                    .find(|(_, v)| v.is_object() || v.is_array())
                    .map(|(k, _)| k.clone());
                key.and_then(|key| map.remove(&key))
            }
            Value::Array(items) => items.pop(),
            _ => None,
        };
        match next {
            Some(next) => value = next,
            None => return,
        }
    }
}
