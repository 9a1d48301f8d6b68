//! The inverse of Gemini's string-only `enum`, applied to a model's arguments before the call.
//!
//! Gemini's `parameters` form allows `enum` on strings only, so the `gemini` dialect sends a
//! non-string `enum` or `const` as the JSON text of each value (`1` as `"1"`, `true` as
//! `"true"`), and the model answers with that text. Wherever the tool's *original* schema
//! allows a non-string `enum`/`const` value whose JSON text is the argument's string, the string
//! is put back as that value. The original schema is followed the way
//! [`super::strip_added_nulls`] follows it (`properties`, `items`, `prefixItems`, `anyOf`,
//! `oneOf`, `allOf` and local `$ref`s).

use serde_json::{Map, Value};

use super::common::MAX_DEPTH;
use super::nulls::{branches, item_schema, object_schemas};

/// Puts back, in `arguments`, the non-string `enum`/`const` values the `gemini` dialect sent as
/// strings: a string is replaced by the value of the original schema (`original`, as the MCP
/// server declared it) whose JSON text it is. A string the original also accepts as it is (a
/// string-typed alternative, or an equal string among the allowed values) is left alone, as
/// are strings that match no allowed value and properties the original does not declare.
pub fn restore_enum_values(arguments: &mut Map<String, Value>, original: &Value) {
    let schemas = object_schemas(original, original);
    restore_object(arguments, &schemas, original, 0);
}

fn restore_object(
    arguments: &mut Map<String, Value>,
    schemas: &[&Value],
    root: &Value,
    depth: usize,
) {
    if depth >= MAX_DEPTH || schemas.is_empty() {
        return;
    }
    for (name, value) in arguments.iter_mut() {
        let declared: Vec<&Value> = schemas
            .iter()
            .filter_map(|s| s.get("properties").and_then(|p| p.get(name)))
            .collect();
        if !declared.is_empty() {
            restore_value(value, &declared, root, depth + 1);
        }
    }
}

fn restore_value(value: &mut Value, schemas: &[&Value], root: &Value, depth: usize) {
    if depth >= MAX_DEPTH {
        return;
    }
    match value {
        Value::String(text) => {
            let all: Vec<&Value> = schemas.iter().flat_map(|s| branches(s, root)).collect();
            if all.iter().any(|s| accepts_string(s, text)) {
                return;
            }
            if let Some(found) = all
                .iter()
                .flat_map(|s| allowed_values(s))
                .find(|v| !v.is_string() && v.to_string() == *text)
            {
                *value = found.clone();
            }
        }
        Value::Object(map) => {
            let objects: Vec<&Value> = schemas
                .iter()
                .flat_map(|s| object_schemas(s, root))
                .collect();
            restore_object(map, &objects, root, depth);
        }
        Value::Array(items) => {
            let arrays: Vec<&Value> = schemas.iter().flat_map(|s| branches(s, root)).collect();
            for (i, item) in items.iter_mut().enumerate() {
                let item_schemas: Vec<&Value> =
                    arrays.iter().filter_map(|s| item_schema(s, i)).collect();
                restore_value(item, &item_schemas, root, depth + 1);
            }
        }
        _ => {}
    }
}

/// The values `schema`'s own `enum` and `const` list.
fn allowed_values(schema: &Value) -> impl Iterator<Item = &Value> {
    let listed = schema.get("enum").and_then(Value::as_array).into_iter();
    listed.flatten().chain(schema.get("const"))
}

/// Whether `schema` itself takes `text` as a string: it lists it among its values, or is
/// string-typed without listing values.
fn accepts_string(schema: &Value, text: &str) -> bool {
    let mut values = allowed_values(schema).peekable();
    if values.peek().is_some() {
        return values.any(|v| v.as_str() == Some(text));
    }
    match schema.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    }
}
