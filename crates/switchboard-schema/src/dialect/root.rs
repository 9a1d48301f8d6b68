//! The root every dialect needs: an object schema with `type: "object"` and `properties`, and no
//! `anyOf`/`oneOf`/`allOf`/`enum`/`not` at the top.
//!
//! OpenAI answers a root without an object type with "schema must be a JSON Schema of
//! 'type: "object"'" and a top-level combinator with "schema must have type 'object' and not
//! have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"; Anthropic with "input_schema
//! does not support oneOf, allOf, or anyOf at the top level" (both seen in MCP host bug reports,
//! e.g. nspady/google-calendar-mcp#39, langchain-ai/langchainjs#9804). OpenAI also rejects an
//! object root without `properties` ("object schema missing properties",
//! spring-projects/spring-ai#4776).
//!
//! Decisions:
//! - No schema, `true`, `{}` or a non-schema value: the empty object schema (a tool without
//!   parameters).
//! - `false` or a root whose `type` excludes `object` (e.g. `"string"`): rejected with
//!   [`SchemaError::RootNotObject`]. Wrapping a scalar in an object would change the shape of
//!   the arguments the server receives, and MCP requires `inputSchema` to be an object anyway.
//! - `type: ["object", "null"]`: narrowed to `object` (arguments are never `null`).
//! - Root `anyOf`/`oneOf` of object variants (zod discriminated unions): flattened into one
//!   object whose properties are all the variants' properties and whose `required` holds what
//!   every variant requires. This is wider than the original; the exact rule is checked when
//!   the arguments are validated against the original schema before the call.
//! - Root `allOf` members that normalization could not merge: their properties and `required`
//!   are merged anyway, the rest dropped (also wider, also validated before the call).
//! - Root `enum`, `const` and `not`: dropped with a note (wider, validated before the call).

use serde_json::{Map, Value, json};

use super::common::{Notes, declared_types};
use crate::error::SchemaError;

/// The normalized schema `schema` with its root made an object schema, and, when that made the
/// schema wider than the original, why (strict mode must then be refused).
pub(crate) fn object_root(
    schema: Value,
    notes: &mut Notes,
) -> Result<(Value, Option<String>), SchemaError> {
    let mut root = match schema {
        Value::Object(root) => root,
        Value::Bool(false) => {
            return Err(SchemaError::RootNotObject {
                found: "`false`, which no value matches".into(),
            });
        }
        _ => return Ok((empty_object(), None)),
    };
    let mut widened = None;
    if let Some(types) = declared_types(&root) {
        if !types.iter().any(|t| t == "object") {
            return Err(SchemaError::RootNotObject {
                found: format!("type `{}`", types.join("` or `")),
            });
        }
        if types.len() > 1 {
            notes.push(
                "",
                "root `type` narrowed to `object`: arguments are always an object",
            );
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(variants)) = root.remove(keyword) {
            flatten_variants(&mut root, keyword, variants, notes);
            widened.get_or_insert(format!(
                "the root `{keyword}` had to be flattened into one object"
            ));
        }
    }
    if let Some(Value::Array(members)) = root.remove("allOf") {
        force_merge(&mut root, members, notes);
        widened.get_or_insert("the root `allOf` had to be merged into one object".to_owned());
    }
    for keyword in ["enum", "const", "not"] {
        if root.remove(keyword).is_some() {
            widened.get_or_insert(format!("the root `{keyword}` had to be dropped"));
            notes.push(
                "",
                format!(
                    "root `{keyword}` dropped (providers reject it at the top level); it is still checked when the arguments are validated"
                ),
            );
        }
    }
    root.insert("type".into(), json!("object"));
    if !matches!(root.get("properties"), Some(Value::Object(_))) {
        root.insert("properties".into(), json!({}));
    }
    Ok((Value::Object(root), widened))
}

pub(crate) fn empty_object() -> Value {
    json!({"type": "object", "properties": {}})
}

fn is_object_variant(variant: &Map<String, Value>) -> bool {
    match declared_types(variant) {
        Some(types) => types.iter().any(|t| t == "object"),
        None => variant.contains_key("properties") || variant.contains_key("required"),
    }
}

fn flatten_variants(
    root: &mut Map<String, Value>,
    keyword: &str,
    variants: Vec<Value>,
    notes: &mut Notes,
) {
    let objects: Vec<Map<String, Value>> = variants
        .into_iter()
        .filter_map(|v| match v {
            Value::Object(v) if is_object_variant(&v) => Some(v),
            _ => None,
        })
        .collect();
    if objects.is_empty() {
        notes.push(
            "",
            format!("root `{keyword}` without object variants dropped; it is still checked when the arguments are validated"),
        );
        return;
    }
    let count = objects.len();
    let mut common_required: Option<Vec<Value>> = None;
    for variant in &objects {
        let required = variant
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        common_required = Some(match common_required {
            None => required,
            Some(previous) => previous
                .into_iter()
                .filter(|n| required.contains(n))
                .collect(),
        });
        if let Some(Value::Object(properties)) = variant.get("properties") {
            add_properties(root, properties);
        }
    }
    add_required(root, common_required.unwrap_or_default());
    notes.push(
        "",
        format!(
            "root `{keyword}` of {count} object variants flattened into one object: a property is required only when every variant requires it; the variants' own rules are checked when the arguments are validated"
        ),
    );
}

fn force_merge(root: &mut Map<String, Value>, members: Vec<Value>, notes: &mut Notes) {
    for member in &members {
        if let Some(Value::Object(properties)) = member.get("properties") {
            add_properties(root, properties);
        }
        if let Some(Value::Array(required)) = member.get("required") {
            add_required(root, required.clone());
        }
    }
    notes.push(
        "",
        "root `allOf` merged into one object (properties and `required` only); the members' other rules are checked when the arguments are validated",
    );
}

/// Adds `properties` to the root's; a name already there with another schema gets both as
/// `anyOf`.
fn add_properties(root: &mut Map<String, Value>, properties: &Map<String, Value>) {
    let target = root
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(target) = target else {
        return;
    };
    for (name, schema) in properties {
        match target.get_mut(name) {
            None => {
                target.insert(name.clone(), schema.clone());
            }
            Some(existing) if existing == schema => {}
            Some(existing) => {
                let mut branches = match &*existing {
                    Value::Object(e) if e.len() == 1 && e.contains_key("anyOf") => e
                        .get("anyOf")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                    other => vec![other.clone()],
                };
                if !branches.contains(schema) {
                    branches.push(schema.clone());
                }
                *existing = json!({ "anyOf": branches });
            }
        }
    }
}

fn add_required(root: &mut Map<String, Value>, names: Vec<Value>) {
    if names.is_empty() {
        return;
    }
    let target = root.entry("required").or_insert_with(|| json!([]));
    if let Value::Array(target) = target {
        for name in names {
            if !target.contains(&name) {
                target.push(name);
            }
        }
    }
}
