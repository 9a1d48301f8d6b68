//! Gemini `FunctionDeclaration.parameters`: the `Schema` object, "a select subset of an OpenAPI
//! 3.0 schema object" (ai.google.dev/api/caching#Schema).
//!
//! Its fields are `type`, `format`, `title`, `description`, `nullable`, `enum` (strings only:
//! "Possible values of the element of Type.STRING with enum format"), `maxItems`, `minItems`,
//! `properties`, `required`, `minProperties`, `maxProperties`, `minLength`, `maxLength`,
//! `pattern`, `example`, `anyOf`, `propertyOrdering`, `default`, `items`, `minimum`, `maximum`.
//! The request is parsed as protobuf, so any other key fails the whole request ("Unknown name
//! \"const\" ... Cannot find field", zed-industries/zed#44875). Observed validation rules:
//! "enum: only allowed for STRING type" (directus/directus#27100), "items: missing field" for an
//! array without `items` (cline/cline#7339), and "properties: should be non-empty for OBJECT
//! type" for an object without properties.
//!
//! Rewrites:
//! - a `type` list or an `anyOf` with `null` becomes the other type plus `nullable: true`; a
//!   list of several other types becomes `anyOf`, one branch per type. OpenAPI 3.0 reads
//!   `nullable` only beside a `type` ("adds null to the allowed types specified by the type
//!   keyword, only if type is explicitly defined within the same Schema Object"), and so does
//!   normalization on the way in, so a schema that is only an `anyOf` carries it on each
//!   branch: beside the `anyOf` it would mean nothing, and converting again would lose it;
//! - `oneOf` becomes `anyOf` (noted when the branches may overlap); an `allOf` normalization
//!   could not merge is dropped;
//! - `const` becomes a one-value `enum`; an `enum` of strings gets `type: "string"`; an `enum`
//!   with numbers, booleans or other non-string values becomes a string `enum` of each value's
//!   JSON text (`1` as `"1"`, `2.5` as `"2.5"`, `true` as `"true"`; `null` as `nullable`), and
//!   [`super::restore_enum_values`] turns the model's strings back into the original values
//!   before the call, so the server still gets the number it declared. When two values would
//!   read the same as strings (`"1"` and `1`), that schema keeps its type instead and lists
//!   the values in the description, with a note;
//! - formats other than those the reference lists ("for NUMBER type: float, double; for
//!   INTEGER type: int32, int64; for STRING type: enum, date-time") move into the description,
//!   as do `default`, `multipleOf`, `uniqueItems` and exclusive bounds (an exclusive bound on an
//!   integer becomes the exact inclusive one);
//! - `additionalProperties`, `examples`, `$schema`, `$ref`, `$defs` and every other key outside
//!   the list are dropped;
//! - a schema without a type is given the one its keywords imply, or narrowed to a string,
//!   number or boolean when it accepts anything;
//! - what `Schema` cannot express at all (an object without properties, a value that can only
//!   be `null`) narrows the schema: an optional property or an `anyOf` branch is left out with a
//!   note; a required one fails the tool with [`SchemaError::Unrepresentable`]
//!   (`gemini-json` can express these).
//!
//! The root object may keep empty `properties` (a tool without parameters); the caller may
//! leave `parameters` out for such a tool instead.

use serde_json::{Map, Value, json};

use super::Dialect;
use super::common::{
    ANNOTATIONS, MAX_DEPTH, Notes, add_hint, child, declared_types, show, split_type_union,
    types_disjoint, value_type,
};
use crate::error::SchemaError;

const STRING_FORMATS: &[&str] = &["enum", "date-time"];
const INTEGER_FORMATS: &[&str] = &["int32", "int64"];
const NUMBER_FORMATS: &[&str] = &["float", "double"];

/// A part of the schema `Schema` cannot express, and where.
struct Unrepresentable {
    at: String,
    reason: String,
}

fn cannot(at: &str, reason: impl Into<String>) -> Unrepresentable {
    Unrepresentable {
        at: at.to_owned(),
        reason: reason.into(),
    }
}

/// Converts a normalized, object-rooted schema into Gemini's `Schema` form.
pub(crate) fn convert(root: &Value, notes: &mut Notes) -> Result<Value, SchemaError> {
    node(root, "", 0, true, notes).map_err(|u| SchemaError::Unrepresentable {
        dialect: Dialect::Gemini,
        at: u.at,
        reason: u.reason,
    })
}

fn node(
    schema: &Value,
    at: &str,
    depth: usize,
    is_root: bool,
    notes: &mut Notes,
) -> Result<Value, Unrepresentable> {
    let source = match schema {
        Value::Object(source) => source,
        Value::Bool(true) => return Ok(any_value(Map::new(), false, at, notes)),
        Value::Bool(false) => return Err(cannot(at, "a value nothing matches (`false`)")),
        _ => return Err(cannot(at, "not a schema object")),
    };
    if depth > MAX_DEPTH {
        return Err(cannot(at, "nested too deep"));
    }
    let mut map = source.clone();
    let mut nullable = false;
    let mut type_split = false;
    if let Some((parent, branches, with_null)) = split_type_union(&map) {
        map = parent;
        type_split = true;
        map.insert("anyOf".into(), Value::Array(branches));
        nullable = with_null;
    } else if let Some(types) = declared_types(&map)
        && types.len() > 1
        && types.iter().any(|t| t == "null")
    {
        nullable = true;
        if let Some(rest) = types.into_iter().find(|t| t != "null") {
            map.insert("type".into(), json!(rest));
        }
    }
    if let Some(Value::Array(branches)) = map.remove("oneOf") {
        if map.contains_key("anyOf") {
            notes.push(
                &child(at, &["oneOf"]),
                "dropped beside `anyOf` (Gemini has no `oneOf`)",
            );
        } else {
            if !types_disjoint(&branches) {
                notes.push(
                    &child(at, &["oneOf"]),
                    "sent as `anyOf`: Gemini has no `oneOf`, and its branches may overlap",
                );
            }
            map.insert("anyOf".into(), Value::Array(branches));
        }
    }
    if map.remove("allOf").is_some() {
        notes.push(&child(at, &["allOf"]), "dropped: Gemini has no `allOf`");
    }
    if let Some(values) = enum_values(&mut map) {
        let (has_null, values): (Vec<Value>, Vec<Value>) =
            values.into_iter().partition(Value::is_null);
        nullable |= !has_null.is_empty();
        let strings: Vec<Value> = values.iter().filter(|v| v.is_string()).cloned().collect();
        let others: Vec<Value> = values.iter().filter(|v| !v.is_string()).cloned().collect();
        let as_strings = if others.is_empty() {
            None
        } else {
            let texts = enum_texts(&values);
            if texts.is_none() {
                notes.push(
                    &child(at, &["enum"]),
                    "values not sent as strings: two of them read the same as strings",
                );
            }
            texts
        };
        match (strings.is_empty(), others.is_empty(), as_strings) {
            (true, true, _) => return Err(cannot(at, "a value that can only be `null`")),
            (_, _, Some(texts)) => {
                map.insert("type".into(), json!("string"));
                map.insert("enum".into(), Value::Array(texts));
                if type_split {
                    // The values alone say which types are allowed.
                    map.remove("anyOf");
                }
                notes.push(
                    &child(at, &["enum"]),
                    "values sent as strings (Gemini allows `enum` on strings only); restored before the call",
                );
            }
            (false, true, None) => {
                map.insert("type".into(), json!("string"));
                map.insert("enum".into(), Value::Array(strings));
            }
            (true, false, None) => {
                let hint = format!("Allowed values: {}.", list(&others));
                add_hint(&mut map, &hint);
                if !map.contains_key("type")
                    && let Some(t) = common_type(&others)
                {
                    map.insert("type".into(), json!(t));
                }
                notes.push(
                    &child(at, &["enum"]),
                    "non-string values moved into the description (Gemini allows `enum` on strings only)",
                );
            }
            (false, false, None) => {
                let mut others_branch = Map::new();
                add_hint(&mut others_branch, &format!("One of {}.", list(&others)));
                if let Some(t) = common_type(&others) {
                    others_branch.insert("type".into(), json!(t));
                }
                map.remove("type");
                map.insert(
                    "anyOf".into(),
                    json!([{"type": "string", "enum": strings}, others_branch]),
                );
            }
        }
    }
    if let Some(Value::Array(branches)) = map.remove("anyOf") {
        return any_of(&map, branches, nullable, at, depth, notes);
    }
    let mut out = Map::new();
    copy_annotations(&map, &mut out, at, notes);
    let t = match declared_types(&map) {
        Some(types) => types.into_iter().next().unwrap_or_default(),
        None => match implied_type(&map) {
            Some(t) => t.to_owned(),
            None => {
                report_dropped(&map, at, notes);
                return Ok(any_value(out, nullable, at, notes));
            }
        },
    };
    if t == "null" {
        return Err(cannot(at, "a value that can only be `null`"));
    }
    out.insert("type".into(), json!(t));
    match t.as_str() {
        "object" => object(&map, &mut out, at, depth, is_root, notes)?,
        "array" => array(&map, &mut out, at, depth, notes)?,
        "string" => string(&map, &mut out, at, notes),
        "integer" | "number" => number(&map, &mut out, &t, at, notes),
        _ => {}
    }
    report_dropped(&map, at, notes);
    if nullable {
        out.insert("nullable".into(), json!(true));
    }
    Ok(Value::Object(out))
}

/// `const` as a one-value `enum`; `enum` removed from the map and returned.
fn enum_values(map: &mut Map<String, Value>) -> Option<Vec<Value>> {
    let from_const = map.remove("const").map(|c| vec![c]);
    let from_enum = match map.remove("enum") {
        Some(Value::Array(values)) => Some(values),
        _ => None,
    };
    match (from_enum, from_const) {
        (Some(values), Some(c)) => Some(values.into_iter().filter(|v| c.contains(v)).collect()),
        (values, c) => values.or(c),
    }
}

/// Each value's JSON text (a string as itself), or `None` when two values would read the same.
fn enum_texts(values: &[Value]) -> Option<Vec<Value>> {
    let mut texts: Vec<String> = Vec::with_capacity(values.len());
    for (i, value) in values.iter().enumerate() {
        if values[..i].contains(value) {
            continue;
        }
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if texts.contains(&text) {
            return None;
        }
        texts.push(text);
    }
    Some(texts.into_iter().map(Value::String).collect())
}

fn list(values: &[Value]) -> String {
    values.iter().map(show).collect::<Vec<_>>().join(", ")
}

fn common_type(values: &[Value]) -> Option<&'static str> {
    let mut types: Vec<&'static str> = values.iter().map(value_type).collect();
    types.sort_unstable();
    types.dedup();
    match types.as_slice() {
        [one] => Some(one),
        ["integer", "number"] => Some("number"),
        _ => None,
    }
}

fn any_of(
    map: &Map<String, Value>,
    branches: Vec<Value>,
    mut nullable: bool,
    at: &str,
    depth: usize,
    notes: &mut Notes,
) -> Result<Value, Unrepresentable> {
    let mut kept = Vec::new();
    let mut last_problem = None;
    for (i, branch) in branches.iter().enumerate() {
        let here = child(at, &["anyOf", &i.to_string()]);
        if branch.get("type") == Some(&json!("null")) {
            nullable = true;
            continue;
        }
        match node(branch, &here, depth + 1, false, notes) {
            Ok(converted) => kept.push(converted),
            Err(problem) => {
                notes.push(
                    &problem.at,
                    format!(
                        "branch left out: Gemini `parameters` cannot express {}",
                        problem.reason
                    ),
                );
                last_problem = Some(problem);
            }
        }
    }
    let mut out = Map::new();
    copy_annotations(map, &mut out, at, notes);
    report_dropped(map, at, notes);
    match kept.len() {
        0 => Err(last_problem.unwrap_or_else(|| cannot(at, "a value that can only be `null`"))),
        1 => {
            let Some(Value::Object(mut only)) = kept.pop() else {
                return Err(cannot(at, "not a schema object"));
            };
            // The outer annotations describe the property; they win over the branch's.
            for (key, value) in out {
                only.insert(key, value);
            }
            let mut only = Value::Object(only);
            if nullable {
                make_nullable(&mut only);
            }
            Ok(only)
        }
        _ => {
            if nullable {
                kept.iter_mut().for_each(make_nullable);
            }
            out.insert("anyOf".into(), Value::Array(kept));
            Ok(Value::Object(out))
        }
    }
}

fn copy_annotations(
    map: &Map<String, Value>,
    out: &mut Map<String, Value>,
    at: &str,
    notes: &mut Notes,
) {
    for key in ["title", "description"] {
        if let Some(value) = map.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    if let Some(default) = map.get("default").filter(|d| !d.is_null()) {
        add_hint(out, &format!("Default: {}.", show(default)));
        notes.push(&child(at, &["default"]), "moved into the description");
    }
}

/// The type a schema without `type` implies by its keywords.
fn implied_type(map: &Map<String, Value>) -> Option<&'static str> {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
        "maxProperties",
    ]) {
        Some("object")
    } else if has(&[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
    ]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern"]) {
        Some("string")
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        Some("number")
    } else {
        None
    }
}

/// A schema that accepts anything, narrowed to what `Schema` can say without a type list.
fn any_value(mut out: Map<String, Value>, nullable: bool, at: &str, notes: &mut Notes) -> Value {
    notes.push(
        at,
        "accepts any value; Gemini needs a type, so it was narrowed to a string, number or boolean",
    );
    let mut branches = vec![
        json!({"type": "string"}),
        json!({"type": "number"}),
        json!({"type": "boolean"}),
    ];
    if nullable {
        branches.iter_mut().for_each(make_nullable);
    }
    out.insert("anyOf".into(), Value::Array(branches));
    Value::Object(out)
}

/// Lets `null` through a converted schema: `nullable: true` beside its `type`, or on each
/// branch of a schema that is only an `anyOf` (see the module docs for why not beside it).
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    if !map.contains_key("type")
        && let Some(Value::Array(branches)) = map.get_mut("anyOf")
    {
        branches.iter_mut().for_each(make_nullable);
    } else {
        map.insert("nullable".into(), json!(true));
    }
}

fn object(
    map: &Map<String, Value>,
    out: &mut Map<String, Value>,
    at: &str,
    depth: usize,
    is_root: bool,
    notes: &mut Notes,
) -> Result<(), Unrepresentable> {
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut properties = Map::new();
    if let Some(Value::Object(source)) = map.get("properties") {
        for (name, schema) in source {
            let here = child(at, &["properties", name]);
            match node(schema, &here, depth + 1, false, notes) {
                Ok(converted) => {
                    properties.insert(name.clone(), converted);
                }
                Err(problem) if required.contains(&name.as_str()) => return Err(problem),
                Err(problem) => notes.push(
                    &here,
                    format!(
                        "optional property left out: Gemini `parameters` cannot express {} at #{} (gemini-json can)",
                        problem.reason, problem.at
                    ),
                ),
            }
        }
    }
    if properties.is_empty() && !is_root {
        return Err(cannot(at, "an object without properties"));
    }
    let kept: Vec<Value> = required
        .iter()
        .filter(|n| properties.contains_key(**n))
        .map(|n| json!(n))
        .collect();
    if let Some(Value::Array(order)) = map.get("propertyOrdering") {
        let known = order
            .iter()
            .all(|n| n.as_str().is_some_and(|n| properties.contains_key(n)));
        if known {
            out.insert("propertyOrdering".into(), Value::Array(order.clone()));
        }
    }
    out.insert("properties".into(), Value::Object(properties));
    if !kept.is_empty() {
        out.insert("required".into(), Value::Array(kept));
    }
    for key in ["minProperties", "maxProperties"] {
        if let Some(value) = map.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    Ok(())
}

fn array(
    map: &Map<String, Value>,
    out: &mut Map<String, Value>,
    at: &str,
    depth: usize,
    notes: &mut Notes,
) -> Result<(), Unrepresentable> {
    let prefix = map.get("prefixItems").and_then(Value::as_array);
    let items = match (prefix, map.get("items")) {
        (None, Some(items)) => items.clone(),
        (None, None) => json!({}),
        (Some(prefix), rest) => {
            notes.push(
                &child(at, &["prefixItems"]),
                "Gemini has no tuples: every item may be any of the positions' schemas",
            );
            let mut branches: Vec<Value> = Vec::new();
            for b in prefix.iter().chain(rest) {
                if b != &Value::Bool(false) && !branches.contains(b) {
                    branches.push(b.clone());
                }
            }
            if rest == Some(&Value::Bool(false)) && !map.contains_key("maxItems") {
                out.insert("maxItems".into(), json!(prefix.len()));
            }
            match branches.len() {
                1 => branches.swap_remove(0),
                _ => json!({ "anyOf": branches }),
            }
        }
    };
    let here = child(at, &["items"]);
    let converted = node(&items, &here, depth + 1, false, notes)
        .map_err(|p| cannot(&p.at, format!("array items: {}", p.reason)))?;
    out.insert("items".into(), converted);
    for key in ["minItems", "maxItems"] {
        if let Some(value) = map.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    if map.get("uniqueItems") == Some(&json!(true)) {
        add_hint(out, "Items must be unique.");
    }
    Ok(())
}

fn string(map: &Map<String, Value>, out: &mut Map<String, Value>, at: &str, notes: &mut Notes) {
    for key in ["enum", "minLength", "maxLength", "pattern"] {
        if let Some(value) = map.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    format(map, out, STRING_FORMATS, at, notes);
}

fn number(
    map: &Map<String, Value>,
    out: &mut Map<String, Value>,
    t: &str,
    at: &str,
    notes: &mut Notes,
) {
    for key in ["minimum", "maximum"] {
        if let Some(value) = map.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    for (exclusive, inclusive, word, step) in [
        ("exclusiveMinimum", "minimum", "Greater than", 1.0),
        ("exclusiveMaximum", "maximum", "Less than", -1.0),
    ] {
        let Some(bound) = map.get(exclusive).and_then(Value::as_f64) else {
            continue;
        };
        if t == "integer" {
            let exact = if step > 0.0 {
                bound.floor() + 1.0
            } else {
                bound.ceil() - 1.0
            };
            out.insert(inclusive.into(), json!(exact as i64));
        } else if let Some(original) = map.get(exclusive) {
            out.insert(inclusive.into(), original.clone());
            add_hint(out, &format!("{word} {bound}."));
            notes.push(
                &child(at, &[exclusive]),
                format!("Gemini has no exclusive bounds; sent as `{inclusive}` with a hint"),
            );
        }
    }
    if let Some(step) = map.get("multipleOf") {
        add_hint(out, &format!("Multiple of {step}."));
    }
    let formats = if t == "integer" {
        INTEGER_FORMATS
    } else {
        NUMBER_FORMATS
    };
    format(map, out, formats, at, notes);
}

fn format(
    map: &Map<String, Value>,
    out: &mut Map<String, Value>,
    accepted: &[&str],
    at: &str,
    notes: &mut Notes,
) {
    let Some(format) = map.get("format").and_then(Value::as_str) else {
        return;
    };
    if accepted.contains(&format) {
        out.insert("format".into(), json!(format));
    } else {
        add_hint(out, &format!("Format: {format}."));
        notes.push(
            &child(at, &["format"]),
            format!("`{format}` is not a Gemini format; moved into the description"),
        );
    }
}

/// Keywords handled above, silently or with their own note.
const HANDLED: &[&str] = &[
    "type",
    "format",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "propertyOrdering",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "title",
    "description",
    "default",
];

fn report_dropped(map: &Map<String, Value>, at: &str, notes: &mut Notes) {
    for (key, value) in map {
        let k = key.as_str();
        if HANDLED.contains(&k) || (k == "additionalProperties" && value == &json!(false)) {
            continue;
        }
        let why = if k == "example" {
            "dropped (Gemini reads `example` at the root only)"
        } else if ANNOTATIONS.contains(&k) {
            "dropped (annotation Gemini does not take)"
        } else {
            "dropped: not part of Gemini's `Schema`"
        };
        notes.push(&child(at, &[k]), why);
    }
}
