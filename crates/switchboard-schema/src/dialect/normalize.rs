//! The first step of every dialect: a schema rewritten into plain draft 2020-12 with
//! well-formed keyword values.
//!
//! [`normalize`] never fails: a keyword whose value has the wrong shape is dropped with a note,
//! a leftover `$ref` (the resolver inlines local references before we run) is dropped with a
//! note, and nesting deeper than [`MAX_DEPTH`] is pruned to `type` and `description`, the way
//! the resolver prunes.

use serde_json::{Map, Value, json};

use super::common::{
    ANNOTATIONS, ARRAY_SUBSCHEMAS, MAP_SUBSCHEMAS, MAX_DEPTH, Notes, SINGLE_SUBSCHEMA, TYPES,
    child, type_set,
};

const NON_NEGATIVE_INTEGERS: &[&str] = &[
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
];
const NUMBERS: &[&str] = &["minimum", "maximum"];
const STRINGS: &[&str] = &[
    "pattern",
    "format",
    "title",
    "description",
    "contentEncoding",
    "contentMediaType",
];
const BOOLEANS: &[&str] = &["uniqueItems", "deprecated", "readOnly", "writeOnly"];
const DROPPED_SILENTLY: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$recursiveAnchor",
    "$recursiveRef",
    "$vocabulary",
];
/// A schema rewritten into draft 2020-12 with well-formed keyword values: draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum`, draft-07
/// array `items`/`additionalItems` and `dependencies`, and OpenAPI `nullable` take their 2020-12
/// forms; `$schema`, `$id`, `$comment`, anchors, leftover `$defs`/`definitions` and unresolved
/// `$ref` are removed; `allOf` members that can be merged losslessly are merged into their parent.
pub(crate) fn normalize(schema: &Value, at: &str, depth: usize, notes: &mut Notes) -> Value {
    let map = match schema {
        // Boolean schemas are valid 2020-12 and stay as they are (`additionalProperties:
        // false` above all); each dialect decides what it does with them.
        Value::Bool(b) => return Value::Bool(*b),
        Value::Object(map) => map,
        other => {
            notes.push(
                at,
                format!("{} is not a schema; it was replaced by `{{}}`", kind(other)),
            );
            return json!({});
        }
    };
    if depth >= MAX_DEPTH {
        notes.push(
            at,
            format!("nested deeper than {MAX_DEPTH} levels; pruned to its type and description"),
        );
        return prune(map);
    }
    let mut out = Map::new();
    let mut exclusive_min_flag = None;
    let mut exclusive_max_flag = None;
    let mut additional_items = None;
    let mut nullable = false;
    for (key, value) in map {
        let k = key.as_str();
        let here = || child(at, &[k]);
        match k {
            _ if DROPPED_SILENTLY.contains(&k) => {}
            "$defs" | "definitions" => {
                if value.as_object().is_some_and(|defs| !defs.is_empty()) {
                    notes.push(&here(), "leftover definitions dropped");
                }
            }
            "$ref" => notes.push(
                at,
                format!(
                    "unresolved reference {} dropped; this subschema now accepts what its other keywords allow",
                    value
                ),
            ),
            "type" => {
                if let Some(types) = sanitize_type(value, &here(), notes) {
                    out.insert(key.clone(), types);
                }
            }
            "nullable" => nullable = value == &Value::Bool(true),
            "exclusiveMinimum" | "exclusiveMaximum" => match value {
                Value::Number(_) => {
                    out.insert(key.clone(), value.clone());
                }
                Value::Bool(flag) if k == "exclusiveMinimum" => exclusive_min_flag = Some(*flag),
                Value::Bool(flag) => exclusive_max_flag = Some(*flag),
                _ => notes.push(&here(), "not a number; dropped"),
            },
            "items" => match value {
                Value::Array(items) => {
                    let prefix = items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| {
                            normalize(item, &child(at, &["items", &i.to_string()]), depth + 1, notes)
                        })
                        .collect::<Vec<_>>();
                    // Later items are free unless `additionalItems` (below) says otherwise.
                    if !prefix.is_empty() {
                        out.insert("prefixItems".into(), Value::Array(prefix));
                    }
                }
                _ => {
                    out.insert(key.clone(), normalize(value, &here(), depth + 1, notes));
                }
            },
            "additionalItems" => additional_items = Some(value),
            "dependencies" => split_dependencies(value, &mut out, at, depth, notes),
            "dependentRequired" => {
                if let Some(clean) = string_array_map(value) {
                    out.insert(key.clone(), clean);
                } else {
                    notes.push(&here(), "malformed; dropped");
                }
            }
            "required" => match value.as_array() {
                Some(names) => {
                    let mut clean: Vec<Value> = Vec::new();
                    for name in names.iter().filter(|n| n.is_string()) {
                        if !clean.contains(name) {
                            clean.push(name.clone());
                        }
                    }
                    out.insert(key.clone(), Value::Array(clean));
                }
                None => notes.push(&here(), "not an array of names; dropped"),
            },
            "enum" | "examples" => {
                if value.is_array() {
                    out.insert(key.clone(), value.clone());
                } else {
                    notes.push(&here(), "not an array; dropped");
                }
            }
            "multipleOf" => {
                if value.as_f64().is_some_and(|n| n > 0.0) {
                    out.insert(key.clone(), value.clone());
                } else {
                    notes.push(&here(), "not a positive number; dropped");
                }
            }
            _ if NUMBERS.contains(&k) => {
                if value.is_number() {
                    out.insert(key.clone(), value.clone());
                } else {
                    notes.push(&here(), "not a number; dropped");
                }
            }
            _ if NON_NEGATIVE_INTEGERS.contains(&k) => match non_negative_integer(value) {
                Some(n) => {
                    out.insert(key.clone(), n);
                }
                None => notes.push(&here(), "not a non-negative integer; dropped"),
            },
            _ if STRINGS.contains(&k) => {
                if value.is_string() {
                    out.insert(key.clone(), value.clone());
                } else {
                    notes.push(&here(), "not a string; dropped");
                }
            }
            _ if BOOLEANS.contains(&k) => {
                if value.is_boolean() {
                    out.insert(key.clone(), value.clone());
                } else {
                    notes.push(&here(), "not a boolean; dropped");
                }
            }
            _ if SINGLE_SUBSCHEMA.contains(&k) => {
                out.insert(key.clone(), normalize(value, &here(), depth + 1, notes));
            }
            _ if ARRAY_SUBSCHEMAS.contains(&k) => match value.as_array() {
                Some(list) if !list.is_empty() => {
                    let list = list
                        .iter()
                        .enumerate()
                        .map(|(i, s)| normalize(s, &child(at, &[k, &i.to_string()]), depth + 1, notes))
                        .collect();
                    out.insert(key.clone(), Value::Array(list));
                }
                _ => notes.push(&here(), "not a non-empty array of schemas; dropped"),
            },
            _ if MAP_SUBSCHEMAS.contains(&k) => match value.as_object() {
                Some(entries) => {
                    let entries = entries
                        .iter()
                        .map(|(name, s)| {
                            (name.clone(), normalize(s, &child(at, &[k, name]), depth + 1, notes))
                        })
                        .collect();
                    out.insert(key.clone(), Value::Object(entries));
                }
                None => notes.push(&here(), "not an object of schemas; dropped"),
            },
            // `const`, `default` and keywords we do not know are kept as they are; each
            // dialect decides what it accepts.
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    apply_draft4_exclusive(&mut out, "exclusiveMinimum", "minimum", exclusive_min_flag);
    apply_draft4_exclusive(&mut out, "exclusiveMaximum", "maximum", exclusive_max_flag);
    if let Some(extra) = additional_items
        && out.contains_key("prefixItems")
    {
        let extra = normalize(extra, &child(at, &["additionalItems"]), depth + 1, notes);
        out.insert("items".into(), extra);
    }
    if nullable {
        add_null(&mut out);
    }
    merge_all_of(&mut out);
    Value::Object(out)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "`null`",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What is left of a subschema pruned for depth: its `type` and `description`.
pub(crate) fn prune(map: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    for key in ["type", "description"] {
        if let Some(value) = map.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    Value::Object(out)
}

fn sanitize_type(value: &Value, at: &str, notes: &mut Notes) -> Option<Value> {
    let names: Vec<&Value> = match value {
        Value::Array(list) => list.iter().collect(),
        single => vec![single],
    };
    let mut clean: Vec<String> = Vec::new();
    for name in names {
        match name.as_str() {
            Some(t) if TYPES.contains(&t) => {
                if !clean.iter().any(|c| c == t) {
                    clean.push(t.to_owned());
                }
            }
            Some("any") => return None,
            _ => notes.push(at, format!("unknown type {name} dropped")),
        }
    }
    match clean.len() {
        0 => None,
        1 => clean.pop().map(Value::String),
        _ => Some(Value::Array(clean.into_iter().map(Value::String).collect())),
    }
}

fn non_negative_integer(value: &Value) -> Option<Value> {
    if let Some(n) = value.as_u64() {
        return Some(Value::from(n));
    }
    let f = value.as_f64()?;
    // A float like `3.0` is a valid count; saturating cast is fine for absurd sizes.
    (f >= 0.0 && f.fract() == 0.0 && f < 1e15).then(|| Value::from(f as u64))
}

fn string_array_map(value: &Value) -> Option<Value> {
    let entries = value.as_object()?;
    let mut out = Map::new();
    for (name, list) in entries {
        let list = list.as_array()?;
        if !list.iter().all(Value::is_string) {
            return None;
        }
        out.insert(name.clone(), Value::Array(list.clone()));
    }
    Some(Value::Object(out))
}

fn split_dependencies(
    value: &Value,
    out: &mut Map<String, Value>,
    at: &str,
    depth: usize,
    notes: &mut Notes,
) {
    let Some(entries) = value.as_object() else {
        notes.push(&child(at, &["dependencies"]), "not an object; dropped");
        return;
    };
    let mut required = Map::new();
    let mut schemas = Map::new();
    for (name, dependency) in entries {
        match dependency {
            Value::Array(names) if names.iter().all(Value::is_string) => {
                required.insert(name.clone(), dependency.clone());
            }
            _ => {
                let here = child(at, &["dependencies", name]);
                schemas.insert(name.clone(), normalize(dependency, &here, depth + 1, notes));
            }
        }
    }
    if !required.is_empty() {
        out.insert("dependentRequired".into(), Value::Object(required));
    }
    if !schemas.is_empty() {
        out.insert("dependentSchemas".into(), Value::Object(schemas));
    }
}

/// Draft 4 wrote `"exclusiveMinimum": true` beside `minimum`; 2020-12 writes the bound itself.
fn apply_draft4_exclusive(
    out: &mut Map<String, Value>,
    exclusive: &str,
    bound: &str,
    flag: Option<bool>,
) {
    if flag == Some(true)
        && let Some(value) = out.remove(bound)
    {
        out.insert(exclusive.into(), value);
    }
}

/// Lets `null` through a schema that has a `type` or `enum` (OpenAPI `nullable: true`).
fn add_null(out: &mut Map<String, Value>) {
    match out.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            out.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => {
            types.push(json!("null"));
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = out.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// Keywords that make merging an `allOf` member into its parent change the meaning.
const MERGE_BLOCKERS: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "patternProperties",
];

/// Merges `allOf` members into the parent where the conjunction is just the union of their
/// keywords: properties that do not clash, `required` lists, and other keywords the parent
/// lacks or has with the same value. Members that cannot be merged stay in `allOf`.
fn merge_all_of(out: &mut Map<String, Value>) {
    let Some(Value::Array(members)) = out.remove("allOf") else {
        return;
    };
    let mut rest = Vec::new();
    for member in members {
        // Boolean members in the object form every dialect ends up writing, so a second
        // conversion merges nothing the first did not: `true` constrains nothing, `false` is
        // `{"not": {}}`.
        let member = match member {
            Value::Bool(true) => continue,
            Value::Bool(false) => serde_json::json!({"not": {}}),
            other => other,
        };
        match member {
            Value::Object(member) if can_merge(out, &member) => merge_into(out, member),
            other => rest.push(other),
        }
    }
    if !rest.is_empty() {
        out.insert("allOf".into(), Value::Array(rest));
    }
}

fn can_merge(parent: &Map<String, Value>, member: &Map<String, Value>) -> bool {
    if MERGE_BLOCKERS
        .iter()
        .any(|k| parent.contains_key(*k) || member.contains_key(*k))
    {
        return false;
    }
    member.iter().all(|(key, value)| match key.as_str() {
        "required" => true,
        k if ANNOTATIONS.contains(&k) => true,
        "properties" => match (parent.get("properties"), value.as_object()) {
            (Some(Value::Object(mine)), Some(theirs)) => theirs
                .iter()
                .all(|(name, s)| mine.get(name).is_none_or(|m| same_schema(m, s))),
            (None, Some(_)) => true,
            _ => false,
        },
        "type" => parent
            .get("type")
            .is_none_or(|t| type_set(t) == type_set(value)),
        _ => parent.get(key).is_none_or(|p| same_schema(p, value)),
    })
}

/// Equal as schemas: a boolean schema and its object form (`true` and `{}`, `false` and
/// `{"not": {}}`) are the same, since dialects later write booleans in object form; comparing
/// them as different would merge on the second conversion what the first left apart.
fn same_schema(a: &Value, b: &Value) -> bool {
    fn object_form(value: &Value) -> std::borrow::Cow<'_, Value> {
        match value {
            Value::Bool(true) => std::borrow::Cow::Owned(json!({})),
            Value::Bool(false) => std::borrow::Cow::Owned(json!({"not": {}})),
            other => std::borrow::Cow::Borrowed(other),
        }
    }
    a == b || object_form(a) == object_form(b)
}

fn merge_into(parent: &mut Map<String, Value>, member: Map<String, Value>) {
    for (key, value) in member {
        match (key.as_str(), parent.get_mut(&key)) {
            ("properties", Some(Value::Object(mine))) => {
                if let Value::Object(theirs) = value {
                    for (name, s) in theirs {
                        mine.entry(name).or_insert(s);
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                if let Value::Array(theirs) = value {
                    for name in theirs {
                        if !mine.contains(&name) {
                            mine.push(name);
                        }
                    }
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                parent.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(schema: Value) -> (Value, Vec<String>) {
        let mut notes = Notes::default();
        let out = normalize(&schema, "", 0, &mut notes);
        (out, notes.finish())
    }

    #[test]
    fn draft4_exclusive_bounds_become_2020_12_numbers() {
        let (out, _) = norm(
            json!({"type": "number", "minimum": 1, "exclusiveMinimum": true,
            "maximum": 9, "exclusiveMaximum": false}),
        );
        assert_eq!(
            out,
            json!({"type": "number", "exclusiveMinimum": 1, "maximum": 9})
        );
    }

    #[test]
    fn draft7_tuples_and_dependencies_take_2020_12_forms() {
        let (out, _) = norm(json!({
            "items": [{"type": "string"}, {"type": "integer"}],
            "additionalItems": false,
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}}
        }));
        assert_eq!(
            out,
            json!({
                "prefixItems": [{"type": "string"}, {"type": "integer"}],
                "items": false,
                "dependentRequired": {"a": ["b"]},
                "dependentSchemas": {"c": {"required": ["d"]}}
            })
        );
    }

    #[test]
    fn openapi_nullable_becomes_a_null_type() {
        let (out, _) = norm(json!({"type": "string", "enum": ["a"], "nullable": true}));
        assert_eq!(
            out,
            json!({"type": ["string", "null"], "enum": ["a", null]})
        );
    }

    #[test]
    fn malformed_keywords_and_refs_are_dropped_with_notes() {
        let (out, notes) = norm(
            json!({"type": "strng", "minLength": -1, "$ref": "https://x/y",
            "required": "a", "description": 5}),
        );
        assert_eq!(out, json!({}));
        assert_eq!(notes.len(), 5, "{notes:?}");
    }

    #[test]
    fn mergeable_all_of_is_merged_and_the_rest_kept() {
        let (out, _) = norm(json!({
            "description": "outer",
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer"}}, "description": "inner"},
                {"properties": {"a": {"type": "integer"}}}
            ]
        }));
        assert_eq!(
            out,
            json!({
                "description": "outer",
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a"],
                "allOf": [{"properties": {"a": {"type": "integer"}}}]
            })
        );
    }

    #[test]
    fn depth_is_bounded() {
        let mut schema = json!({"type": "string"});
        for _ in 0..200 {
            schema = json!({"type": "array", "items": schema});
        }
        let (_, notes) = norm(schema);
        assert!(notes.iter().any(|n| n.contains("pruned")), "{notes:?}");
    }
}
