//! Each provider's documented rules for a tool's name and parameters schema, checked on what we
//! would send. Independent of the conversion code on purpose: it restates the rules from the
//! providers' documentation (cited in `src/dialect/*.rs`) instead of reusing our tables.
//!
//! Include it from a test crate with
//! `use crate::provider_rules;` (declared once in `main.rs`).
//!
//! `Dialect::OpenAiStrict` checks the Structured Outputs invariants, so call it only for a
//! schema converted with `strict: true`; check a non-strict fallback as `Dialect::OpenAi`.

#![allow(dead_code)]

use serde_json::{Map, Value};
use switchboard_schema::Dialect;

/// Every rule `parameters` or `name` breaks for `dialect`, or `Ok`.
pub fn check(dialect: Dialect, name: &str, parameters: &Value) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    check_name(dialect, name, &mut problems);
    check_root(dialect, parameters, &mut problems);
    walk(parameters, "", 1, &mut |node, at, level| {
        check_node(dialect, node, at, level, &mut problems);
    });
    match dialect {
        Dialect::Anthropic => {
            if let Err(error) = jsonschema::draft202012::meta::validate(parameters) {
                problems.push(format!("not valid draft 2020-12: {error}"));
            }
        }
        Dialect::OpenAiStrict => check_strict_limits(parameters, &mut problems),
        _ => {}
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn check_name(dialect: Dialect, name: &str, problems: &mut Vec<String>) {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let (max, first_ok): (usize, bool) = match dialect {
        // ai.google.dev: "a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum
        // length of 63"; Vertex AI: "Must start with a letter or an underscore".
        Dialect::Gemini | Dialect::GeminiJson => (
            63,
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'),
        ),
        // OpenAI and Anthropic: ^[a-zA-Z0-9_-]{1,64}$
        _ => (64, true),
    };
    if name.is_empty() || name.len() > max || !name.chars().all(plain) || !first_ok {
        problems.push(format!("tool name `{name}` is not valid for {dialect}"));
    }
}

fn check_root(dialect: Dialect, root: &Value, problems: &mut Vec<String>) {
    let Some(map) = root.as_object() else {
        problems.push("root is not an object schema".into());
        return;
    };
    if map.get("type") != Some(&Value::String("object".into())) {
        problems.push("root `type` is not \"object\"".into());
    }
    for keyword in ["anyOf", "oneOf", "allOf", "enum", "not"] {
        if map.contains_key(keyword) {
            problems.push(format!("root has `{keyword}`"));
        }
    }
    if matches!(dialect, Dialect::OpenAi | Dialect::OpenAiStrict)
        && !matches!(map.get("properties"), Some(Value::Object(_)))
    {
        problems.push("root has no `properties` (OpenAI: object schema missing properties)".into());
    }
}

type Visit<'a> = dyn FnMut(&Map<String, Value>, &str, usize) + 'a;

/// Calls `visit` on every subschema with its location and nesting level (objects and arrays).
fn walk(node: &Value, at: &str, level: usize, visit: &mut Visit<'_>) {
    let Some(map) = node.as_object() else {
        return;
    };
    visit(map, at, level);
    let container = map.contains_key("properties") || map.contains_key("items");
    let next = if container { level + 1 } else { level };
    for (key, value) in map {
        match key.as_str() {
            "properties" | "patternProperties" | "dependentSchemas" | "$defs" => {
                if let Some(entries) = value.as_object() {
                    for (name, s) in entries {
                        walk(s, &format!("{at}/{key}/{name}"), next, visit);
                    }
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Some(list) = value.as_array() {
                    for (i, s) in list.iter().enumerate() {
                        walk(s, &format!("{at}/{key}/{i}"), level, visit);
                    }
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties" => {
                walk(value, &format!("{at}/{key}"), next, visit);
            }
            _ => {}
        }
    }
}

fn types_of(node: &Map<String, Value>) -> Vec<String> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

const NEVER: &[&str] = &["$ref", "$defs", "definitions", "$schema", "$id", "$comment"];

/// Gemini `Schema` fields (ai.google.dev/api/caching#Schema), less `default` (dropped by design).
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "items",
    "minimum",
    "maximum",
];
/// Gemini's documented JSON Schema subset (ai.google.dev/gemini-api/docs/structured-output).
const GEMINI_JSON_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
];
/// OpenAI Structured Outputs, "Supported schemas".
const STRICT_FIELDS: &[&str] = &[
    "type",
    "title",
    "description",
    "enum",
    "anyOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
];
const STRICT_FORMATS: &[&str] = &[
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

fn check_node(
    dialect: Dialect,
    node: &Map<String, Value>,
    at: &str,
    level: usize,
    problems: &mut Vec<String>,
) {
    for keyword in NEVER {
        if node.contains_key(*keyword) {
            problems.push(format!("#{at} has `{keyword}`"));
        }
    }
    let types = types_of(node);
    match dialect {
        Dialect::OpenAi if types.iter().any(|t| t == "array") && !node.contains_key("items") => {
            problems.push(format!("#{at}: array schema missing items"));
        }
        Dialect::OpenAiStrict => check_strict_node(node, &types, at, level, problems),
        Dialect::Gemini => check_gemini_node(node, &types, at, problems),
        Dialect::GeminiJson => {
            for key in node.keys() {
                if !GEMINI_JSON_FIELDS.contains(&key.as_str()) {
                    problems.push(format!(
                        "#{at} has `{key}`, outside Gemini's JSON Schema subset"
                    ));
                }
            }
        }
        _ => {}
    }
}

fn check_strict_node(
    node: &Map<String, Value>,
    types: &[String],
    at: &str,
    level: usize,
    problems: &mut Vec<String>,
) {
    for key in node.keys() {
        if !STRICT_FIELDS.contains(&key.as_str()) {
            problems.push(format!(
                "#{at} has `{key}`, which strict mode does not support"
            ));
        }
    }
    if let Some(format) = node.get("format").and_then(Value::as_str)
        && !STRICT_FORMATS.contains(&format)
    {
        problems.push(format!("#{at} has format `{format}`"));
    }
    if types.is_empty() && !node.contains_key("anyOf") && !node.contains_key("enum") {
        problems.push(format!("#{at} has no type"));
    }
    if types.iter().any(|t| t == "object") {
        if node.get("additionalProperties") != Some(&Value::Bool(false)) {
            problems.push(format!("#{at}: `additionalProperties` must be false"));
        }
        let keys: Vec<&String> = node
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if keys.len() != required.len() || !keys.iter().all(|k| required.contains(&k.as_str())) {
            problems.push(format!("#{at}: `required` must list every property"));
        }
    }
    if (types.iter().any(|t| t == "object" || t == "array")) && level > 10 {
        problems.push(format!(
            "#{at}: nested {level} levels deep (strict allows 10)"
        ));
    }
    if types.iter().any(|t| t == "array") && !node.contains_key("items") {
        problems.push(format!("#{at}: array without items"));
    }
}

fn check_strict_limits(root: &Value, problems: &mut Vec<String>) {
    let (mut properties, mut enum_values, mut chars) = (0usize, 0usize, 0usize);
    walk(root, "", 1, &mut |node, _, _| {
        if let Some(p) = node.get("properties").and_then(Value::as_object) {
            properties += p.len();
            chars += p.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            enum_values += values.len();
            chars += values
                .iter()
                .map(|v| {
                    v.as_str()
                        .map_or(v.to_string().len(), |s| s.chars().count())
                })
                .sum::<usize>();
        }
    });
    if properties > 5000 {
        problems.push(format!("{properties} properties (strict allows 5000)"));
    }
    if enum_values > 1000 {
        problems.push(format!("{enum_values} enum values (strict allows 1000)"));
    }
    if chars > 120_000 {
        problems.push(format!(
            "{chars} characters of names and enum values (strict allows 120000)"
        ));
    }
}

fn check_gemini_node(
    node: &Map<String, Value>,
    types: &[String],
    at: &str,
    problems: &mut Vec<String>,
) {
    for key in node.keys() {
        if !GEMINI_FIELDS.contains(&key.as_str()) {
            problems.push(format!(
                "#{at} has `{key}`, which is not a Gemini `Schema` field"
            ));
        }
    }
    if matches!(node.get("type"), Some(Value::Array(_))) {
        problems.push(format!("#{at}: `type` must be one type"));
    }
    if types.is_empty() && !node.contains_key("anyOf") {
        problems.push(format!("#{at}: no type"));
    }
    if let Some(t) = types.first() {
        let known = ["string", "number", "integer", "boolean", "array", "object"];
        if !known.contains(&t.as_str()) {
            problems.push(format!("#{at}: type `{t}`"));
        }
    }
    if let Some(values) = node.get("enum") {
        let strings = values
            .as_array()
            .is_some_and(|v| v.iter().all(Value::is_string));
        if types.first().map(String::as_str) != Some("string") || !strings {
            problems.push(format!("#{at}: enum only allowed for STRING type"));
        }
    }
    if node.get("nullable").is_some_and(|n| !n.is_boolean()) {
        problems.push(format!("#{at}: `nullable` is not a boolean"));
    }
    if types.iter().any(|t| t == "array") && !node.contains_key("items") {
        problems.push(format!("#{at}: items: missing field"));
    }
    let is_root = at.is_empty();
    if types.iter().any(|t| t == "object") && !is_root {
        let empty = node
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
        if empty {
            problems.push(format!(
                "#{at}: properties should be non-empty for OBJECT type"
            ));
        }
    }
    if let Some(format) = node.get("format").and_then(Value::as_str) {
        let allowed = match types.first().map(String::as_str) {
            Some("string") => ["enum", "date-time"].contains(&format),
            Some("integer") => ["int32", "int64"].contains(&format),
            Some("number") => ["float", "double"].contains(&format),
            _ => false,
        };
        if !allowed {
            problems.push(format!("#{at}: format `{format}`"));
        }
    }
    if let (Some(Value::Array(required)), Some(Value::Object(properties))) =
        (node.get("required"), node.get("properties"))
    {
        for name in required.iter().filter_map(Value::as_str) {
            if !properties.contains_key(name) {
                problems.push(format!("#{at}: required `{name}` is not a property"));
            }
        }
    }
}
