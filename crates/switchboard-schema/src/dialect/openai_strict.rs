//! OpenAI Structured Outputs (`strict: true`), only when the rewrite loses nothing.
//!
//! The rules, from OpenAI's Structured Outputs guide, "Supported schemas"
//! (developers.openai.com/api/docs/guides/structured-outputs#supported-schemas):
//! - types: string, number, boolean, integer, object, array, enum, `anyOf`; the root must be an
//!   object and not `anyOf`;
//! - string keywords: `pattern`, and `format` among `date-time`, `time`, `date`, `duration`,
//!   `email`, `hostname`, `ipv4`, `ipv6`, `uuid`; number keywords: `multipleOf`, `maximum`,
//!   `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; array keywords: `minItems`, `maxItems`;
//! - "all fields must be `required`", with optional ones emulated by "a union type with `null`";
//! - "`additionalProperties: false` must always be set in objects";
//! - not supported: `allOf`, `not`, `dependentRequired`, `dependentSchemas`, `if`, `then`,
//!   `else` (and nothing outside the lists above, e.g. `patternProperties`, `minLength`,
//!   `uniqueItems`, `prefixItems`);
//! - "up to 5000 object properties total, with up to 10 levels of nesting"; "total string length
//!   of all property names, definition names, enum values, and const values cannot exceed
//!   120,000 characters"; "up to 1000 enum values across all enum properties"; "for a single
//!   enum property with string values, the total string length of all enum values cannot exceed
//!   15,000 characters when there are more than 250 enum values".
//!
//! `default` is refused too ("'default' is not permitted", dotnet/extensions#6196).
//!
//! Lossless means: after [`super::strip_added_nulls`] removes the `null`s strict mode made the
//! model send for omitted optional properties, the arguments the strict schema admits are the
//! ones the original admits. Closing an object that declares its properties counts as lossless
//! (extra keys were undeclared), and so does dropping annotations (`default`, `examples`, ...) or
//! moving an unsupported `format` into the description. Anything else that cannot be expressed
//! (a free-form object, a `patternProperties`, a `minLength`, an `allOf` that normalization
//! could not merge, a `oneOf` whose branches may overlap) makes the schema non-strict, and the
//! first such reason is returned.

use serde_json::{Map, Value, json};

use super::common::{
    ANNOTATIONS, Notes, add_hint, child, declared_types, keyword_type, show, split_type_union,
    types_disjoint, value_type,
};

const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
const STRING_KEYWORDS: &[&str] = &["pattern"];
const NUMBER_KEYWORDS: &[&str] = &[
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
];
const ARRAY_KEYWORDS: &[&str] = &["items", "minItems", "maxItems"];
const OBJECT_KEYWORDS: &[&str] = &["properties", "required", "additionalProperties"];
/// Keywords that validate but belong to no single instance type.
const APPLICATORS: &[&str] = &["allOf", "not", "if", "then", "else", "$ref", "$dynamicRef"];

const MAX_PROPERTIES: usize = 5000;
const MAX_NESTING: usize = 10;
const MAX_TOTAL_STRING: usize = 120_000;
const MAX_ENUM_VALUES: usize = 1000;
const BIG_ENUM: usize = 250;
const MAX_BIG_ENUM_STRING: usize = 15_000;

#[derive(Default)]
struct Stats {
    properties: usize,
    string_length: usize,
    enum_values: usize,
}

/// The strict form of a normalized, object-rooted schema, or why there is none.
pub(crate) fn strictify(root: &Value) -> Result<(Value, Notes), String> {
    let mut stats = Stats::default();
    let mut notes = Notes::default();
    let out = node(root, "", 1, true, &mut stats, &mut notes)?;
    if stats.properties > MAX_PROPERTIES {
        return Err(format!(
            "the schema has {} properties; strict mode allows {MAX_PROPERTIES}",
            stats.properties
        ));
    }
    if stats.string_length > MAX_TOTAL_STRING {
        return Err(format!(
            "property names and enum values add up to {} characters; strict mode allows {MAX_TOTAL_STRING}",
            stats.string_length
        ));
    }
    if stats.enum_values > MAX_ENUM_VALUES {
        return Err(format!(
            "the schema has {} enum values; strict mode allows {MAX_ENUM_VALUES}",
            stats.enum_values
        ));
    }
    Ok((out, notes))
}

fn unsupported(at: &str, keyword: &str) -> String {
    format!("`#{at}` uses `{keyword}`, which strict mode does not support")
}

/// One subschema in strict form. `level` counts the objects and arrays around it (the root
/// object is level 1).
fn node(
    schema: &Value,
    at: &str,
    level: usize,
    is_root: bool,
    stats: &mut Stats,
    notes: &mut Notes,
) -> Result<Value, String> {
    let Value::Object(map) = schema else {
        return Err(format!("`#{at}` is not a schema object"));
    };
    if let Some((parent, branches, nullable)) = split_type_union(map) {
        let mut union = parent;
        let mut branches = branches;
        if nullable {
            branches.push(json!({"type": "null"}));
        }
        union.insert("anyOf".into(), Value::Array(branches));
        return node(&Value::Object(union), at, level, is_root, stats, notes);
    }
    let mut out = Map::new();
    let mut map = map.clone();
    infer_enum_type(&mut map, at)?;
    if let Some(Value::Array(branches)) = map.remove("oneOf") {
        if map.contains_key("anyOf") || !types_disjoint(&branches) {
            return Err(format!(
                "`#{at}` uses `oneOf` whose branches may overlap, and strict mode only has `anyOf`"
            ));
        }
        map.insert("anyOf".into(), Value::Array(branches));
    }
    let types = declared_types(&map).unwrap_or_default();
    for (key, value) in &map {
        let k = key.as_str();
        match k {
            "title" | "description" => {
                out.insert(key.clone(), value.clone());
            }
            "default" => {}
            _ if ANNOTATIONS.contains(&k) => {
                notes.push(
                    &child(at, &[k]),
                    "dropped for strict mode (annotation only)",
                );
            }
            "format" => match value.as_str() {
                Some(f) if FORMATS.contains(&f) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => {}
            },
            "type" | "enum" | "const" | "anyOf" => {}
            _ => {
                let allowed = match keyword_type(k) {
                    Some("string") => STRING_KEYWORDS.contains(&k),
                    Some("number") => NUMBER_KEYWORDS.contains(&k),
                    Some("array") => ARRAY_KEYWORDS.contains(&k),
                    Some("object") => OBJECT_KEYWORDS.contains(&k),
                    _ if APPLICATORS.contains(&k) => false,
                    // A keyword JSON Schema does not define validates nothing: dropping it
                    // loses nothing.
                    _ => {
                        notes.push(&child(at, &[k]), "unknown keyword dropped for strict mode");
                        continue;
                    }
                };
                if !allowed {
                    return Err(unsupported(at, k));
                }
            }
        }
    }
    if let Some(default) = map.get("default").filter(|d| !d.is_null()) {
        add_hint(&mut out, &format!("Default: {}.", show(default)));
        notes.push(
            &child(at, &["default"]),
            "moved into the description for strict mode",
        );
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !FORMATS.contains(&format)
    {
        add_hint(&mut out, &format!("Format: {format}."));
        notes.push(
            &child(at, &["format"]),
            format!("`{format}` is not a strict-mode format; moved into the description"),
        );
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        if is_root {
            return Err("the root uses `anyOf`".into());
        }
        let siblings = map
            .keys()
            .any(|k| k != "anyOf" && !ANNOTATIONS.contains(&k.as_str()) && k != "format");
        if siblings {
            return Err(format!(
                "`#{at}` combines `anyOf` with other keywords, which strict mode cannot express"
            ));
        }
        let mut list = Vec::with_capacity(branches.len());
        for (i, branch) in branches.iter().enumerate() {
            let here = child(at, &["anyOf", &i.to_string()]);
            list.push(node(branch, &here, level, false, stats, notes)?);
        }
        out.insert("anyOf".into(), Value::Array(list));
        return Ok(Value::Object(out));
    }
    if types.is_empty() {
        return Err(format!(
            "`#{at}` accepts any value, and strict mode needs a type"
        ));
    }
    out.insert(
        "type".into(),
        map.get("type").cloned().unwrap_or(Value::Null),
    );
    if let Some(values) = map.get("enum") {
        count_enum(values, at, stats)?;
        out.insert("enum".into(), values.clone());
    }
    for (key, value) in &map {
        let k = key.as_str();
        if STRING_KEYWORDS.contains(&k)
            || NUMBER_KEYWORDS.contains(&k)
            || k == "minItems"
            || k == "maxItems"
        {
            out.insert(key.clone(), value.clone());
        }
    }
    let is_object = types.iter().any(|t| t == "object");
    let is_array = types.iter().any(|t| t == "array");
    if (is_object || is_array) && level > MAX_NESTING {
        return Err(format!(
            "`#{at}` is nested {level} levels deep; strict mode allows {MAX_NESTING}"
        ));
    }
    if is_object {
        object(&map, &mut out, at, level, is_root, stats, notes)?;
    }
    if is_array {
        let Some(items) = map.get("items") else {
            return Err(format!("`#{at}` is an array without `items`"));
        };
        let here = child(at, &["items"]);
        out.insert(
            "items".into(),
            node(items, &here, level + 1, false, stats, notes)?,
        );
    }
    Ok(Value::Object(out))
}

fn object(
    map: &Map<String, Value>,
    out: &mut Map<String, Value>,
    at: &str,
    level: usize,
    is_root: bool,
    stats: &mut Stats,
    notes: &mut Notes,
) -> Result<(), String> {
    match map.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => {
            return Err(format!(
                "`#{at}` allows additional properties, which strict mode cannot express"
            ));
        }
    }
    let empty = Map::new();
    let properties = match map.get("properties") {
        Some(Value::Object(p)) => p,
        _ => &empty,
    };
    if properties.is_empty() && !is_root && map.get("additionalProperties").is_none() {
        return Err(format!(
            "`#{at}` is an object without declared properties, which strict mode would close"
        ));
    }
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(name) = required.iter().find(|n| !properties.contains_key(**n)) {
        return Err(format!(
            "`#{at}` requires `{name}`, which it does not declare"
        ));
    }
    let mut strict_properties = Map::new();
    for (name, schema) in properties {
        stats.properties += 1;
        stats.string_length += name.chars().count();
        let here = child(at, &["properties", name]);
        let mut converted = node(schema, &here, level + 1, false, stats, notes)?;
        if !required.contains(&name.as_str()) {
            converted = make_nullable(converted);
        }
        strict_properties.insert(name.clone(), converted);
    }
    let all: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
    out.insert("properties".into(), Value::Object(strict_properties));
    out.insert("required".into(), Value::Array(all));
    out.insert("additionalProperties".into(), json!(false));
    Ok(())
}

/// Gives an `enum`/`const` without `type` the type its values share (lossless), so the node
/// fits strict mode's typed subset; `const` becomes a one-value `enum`.
fn infer_enum_type(map: &mut Map<String, Value>, at: &str) -> Result<(), String> {
    if let Some(value) = map.remove("const") {
        if map.contains_key("enum") {
            return Err(unsupported(at, "const"));
        }
        map.insert("enum".into(), json!([value]));
    }
    if map.contains_key("type") {
        return Ok(());
    }
    let Some(Value::Array(values)) = map.get("enum") else {
        return Ok(());
    };
    let mut types: Vec<&str> = Vec::new();
    for value in values {
        let t = match value_type(value) {
            "object" | "array" => {
                return Err(format!("`#{at}` has an `enum` of objects or arrays"));
            }
            t => t,
        };
        if !types.contains(&t) {
            types.push(t);
        }
    }
    if types.contains(&"integer") && types.contains(&"number") {
        types.retain(|t| *t != "integer");
    }
    let declared = match types.as_slice() {
        [] => return Err(format!("`#{at}` has an empty `enum`")),
        [single] => json!(single),
        [one, "null"] | ["null", one] => json!([one, "null"]),
        _ => return Err(format!("`#{at}` has an `enum` of several types")),
    };
    map.insert("type".into(), declared);
    Ok(())
}

fn count_enum(values: &Value, at: &str, stats: &mut Stats) -> Result<(), String> {
    let Value::Array(values) = values else {
        return Ok(());
    };
    stats.enum_values += values.len();
    let mut length = 0;
    for value in values {
        length += match value {
            Value::String(s) => s.chars().count(),
            other => other.to_string().len(),
        };
    }
    stats.string_length += length;
    if values.len() > BIG_ENUM && length > MAX_BIG_ENUM_STRING {
        return Err(format!(
            "`#{at}` has {} enum values of {length} characters; strict mode allows {MAX_BIG_ENUM_STRING} above {BIG_ENUM} values",
            values.len()
        ));
    }
    Ok(())
}

fn accepts_null(schema: &Map<String, Value>) -> bool {
    let typed_null = declared_types(schema).is_some_and(|t| t.iter().any(|t| t == "null"));
    let enum_null = match schema.get("enum") {
        Some(Value::Array(values)) => values.contains(&Value::Null),
        _ => false,
    };
    let branch_null = match schema.get("anyOf") {
        Some(Value::Array(branches)) => branches
            .iter()
            .filter_map(Value::as_object)
            .any(accepts_null),
        _ => false,
    };
    if schema.contains_key("enum") {
        return enum_null;
    }
    typed_null || branch_null
}

/// An optional property's schema made to accept `null` too: the model must send every property
/// in strict mode and sends `null` for the ones it would have left out.
fn make_nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if accepts_null(&map) {
        return Value::Object(map);
    }
    if map.contains_key("enum") {
        let mut outer = Map::new();
        for key in ["title", "description"] {
            if let Some(value) = map.remove(key) {
                outer.insert(key.into(), value);
            }
        }
        outer.insert(
            "anyOf".into(),
            json!([Value::Object(map), {"type": "null"}]),
        );
        return Value::Object(outer);
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return Value::Object(map);
    }
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            map.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(types)) => types.push(json!("null")),
        _ => {}
    }
    Value::Object(map)
}
