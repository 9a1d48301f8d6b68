//! The inverse of strict mode's `null` unions, applied to a model's arguments before the call.
//!
//! In strict mode every property is required, so for an optional property the model sends
//! `null` where it would have left the property out. The server expects the property absent,
//! so a `null` is removed wherever the tool's *original* schema does not itself allow `null`
//! there. Nested objects (through `properties`, `items`, `prefixItems`, `anyOf`, `oneOf`,
//! `allOf` and local `$ref`s of the original schema) are handled the same way. Properties the
//! original schema does not declare are left alone: strict mode never adds those.

use serde_json::{Map, Value};

use super::common::MAX_DEPTH;

/// Reference and composition hops followed from one subschema (a cycle, say).
const MAX_REF_HOPS: usize = 16;
/// Subschemas gathered for one value, however the original's references fan out.
const MAX_BRANCHES: usize = 256;
/// Subschemas looked at to decide whether one property allows `null`; past it, `null` is kept.
const NULL_CHECK_BUDGET: usize = 1024;

/// Removes from `arguments` the `null` values strict conversion made the model send: a
/// property whose value is `null` is removed when the original schema (`original`, as the MCP
/// server declared it) does not allow `null` for it. Recurses into nested objects and arrays.
pub fn strip_added_nulls(arguments: &mut Map<String, Value>, original: &Value) {
    let schemas = object_schemas(original, original);
    strip_object(arguments, &schemas, original, 0);
}

fn strip_object(
    arguments: &mut Map<String, Value>,
    schemas: &[&Value],
    root: &Value,
    depth: usize,
) {
    if depth >= MAX_DEPTH || schemas.is_empty() {
        return;
    }
    let names: Vec<String> = arguments.keys().cloned().collect();
    for name in names {
        let declared: Vec<&Value> = schemas
            .iter()
            .filter_map(|s| s.get("properties").and_then(|p| p.get(&name)))
            .collect();
        if declared.is_empty() {
            continue;
        }
        let Some(value) = arguments.get_mut(&name) else {
            continue;
        };
        if value.is_null() {
            if !declared.iter().any(|s| allows_null(s, root)) {
                arguments.remove(&name);
            }
        } else {
            strip_value(value, &declared, root, depth + 1);
        }
    }
}

fn strip_value(value: &mut Value, schemas: &[&Value], root: &Value, depth: usize) {
    if depth >= MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            let objects: Vec<&Value> = schemas
                .iter()
                .flat_map(|s| object_schemas(s, root))
                .collect();
            strip_object(map, &objects, root, depth);
        }
        Value::Array(items) => {
            let arrays: Vec<&Value> = schemas.iter().flat_map(|s| branches(s, root)).collect();
            for (i, item) in items.iter_mut().enumerate() {
                let item_schemas: Vec<&Value> =
                    arrays.iter().filter_map(|s| item_schema(s, i)).collect();
                strip_value(item, &item_schemas, root, depth + 1);
            }
        }
        _ => {}
    }
}

/// The schema for item `index` of an array schema (`prefixItems`, draft-07 array `items`, or
/// `items`).
pub(super) fn item_schema(schema: &Value, index: usize) -> Option<&Value> {
    let prefix = schema
        .get("prefixItems")
        .or_else(|| schema.get("items").filter(|i| i.is_array()))
        .and_then(Value::as_array);
    match prefix.and_then(|p| p.get(index)) {
        Some(positional) => Some(positional),
        None => schema
            .get("items")
            .filter(|i| !i.is_array())
            .or_else(|| schema.get("additionalItems")),
    }
}

/// A schema and the subschemas it applies in place (composition and local references), at
/// most [`MAX_BRANCHES`] of them however the references fan out.
pub(super) fn branches<'a>(schema: &'a Value, root: &'a Value) -> Vec<&'a Value> {
    let mut out = Vec::new();
    collect_branches(schema, root, 0, &mut out);
    out
}

fn collect_branches<'a>(schema: &'a Value, root: &'a Value, hops: usize, out: &mut Vec<&'a Value>) {
    if out.len() >= MAX_BRANCHES {
        return;
    }
    out.push(schema);
    if hops >= MAX_REF_HOPS {
        return;
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve_local(root, r))
    {
        collect_branches(target, root, hops + 1, out);
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(list)) = schema.get(keyword) {
            for branch in list {
                collect_branches(branch, root, hops + 1, out);
            }
        }
    }
}

/// The parts of `schema` that describe an object's properties.
pub(super) fn object_schemas<'a>(schema: &'a Value, root: &'a Value) -> Vec<&'a Value> {
    branches(schema, root)
        .into_iter()
        .filter(|s| s.get("properties").is_some_and(Value::is_object))
        .collect()
}

/// A local reference (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer) into `root`.
fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(&percent_decode(pointer)?)
}

fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether `null` can satisfy `schema` as far as its type-restricting keywords go (`type`,
/// `enum`, `const`, `nullable`, `not: {"type": "null"}`, composition, local references).
/// Keywords that only restrict other types do not matter for `null`. When the schema is too
/// tangled to decide within [`NULL_CHECK_BUDGET`], the answer is yes: the `null` is kept, and
/// argument validation reports it if the server would refuse it.
fn allows_null(schema: &Value, root: &Value) -> bool {
    let mut budget = NULL_CHECK_BUDGET;
    null_ok(schema, root, 0, &mut budget)
}

fn null_ok(schema: &Value, root: &Value, hops: usize, budget: &mut usize) -> bool {
    let map = match schema {
        Value::Bool(b) => return *b,
        Value::Object(map) => map,
        _ => return true,
    };
    if hops >= MAX_REF_HOPS || *budget == 0 {
        return true;
    }
    *budget -= 1;
    if map.get("nullable") == Some(&Value::Bool(true)) {
        return true;
    }
    let typed = match map.get("type") {
        None => true,
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        Some(_) => true,
    };
    let listed = match map.get("enum") {
        Some(Value::Array(values)) => values.contains(&Value::Null),
        _ => true,
    };
    let constant = map.get("const").is_none_or(Value::is_null);
    let negated = map
        .get("not")
        .and_then(|n| n.get("type"))
        .and_then(Value::as_str)
        == Some("null");
    if !(typed && listed && constant) || negated {
        return false;
    }
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve_local(root, r))
        && !null_ok(target, root, hops + 1, budget)
    {
        return false;
    }
    if let Some(Value::Array(list)) = map.get("allOf")
        && !list.iter().all(|s| null_ok(s, root, hops + 1, budget))
    {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(list)) = map.get(key)
            && !list.iter().any(|s| null_ok(s, root, hops + 1, budget))
        {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn allows_null_reads_types_enums_and_composition() {
        let root = json!({"$defs": {"N": {"type": "null"}}});
        for (schema, expected) in [
            (json!({"type": "string"}), false),
            (json!({"type": ["string", "null"]}), true),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                true,
            ),
            (json!({"enum": ["a", null]}), true),
            (json!({"type": ["string", "null"], "enum": ["a"]}), false),
            (json!({"description": "anything"}), true),
            (json!({"$ref": "#/$defs/N"}), true),
            (json!({"not": {"type": "null"}}), false),
            (json!({"type": "string", "nullable": true}), true),
        ] {
            assert_eq!(allows_null(&schema, &root), expected, "{schema}");
        }
    }
}
