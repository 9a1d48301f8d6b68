//! Helpers the dialect passes share: notes with locations, keyword tables, type sets,
//! splitting a type union into `anyOf` branches, hints appended to a description, and a
//! depth-bounded walk over subschemas.

use serde_json::{Map, Value};

/// Deepest schema nesting the dialect passes walk; deeper subschemas are pruned.
pub(crate) const MAX_DEPTH: usize = 48;

/// Notes kept per conversion; the rest are counted in one closing note.
const MAX_NOTES: usize = 64;

/// Human-readable notes about what a conversion dropped or changed, each with its location.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    list: Vec<String>,
    overflow: usize,
}

impl Notes {
    /// Records `message` about the schema at JSON pointer `at` (empty for the root).
    pub(crate) fn push(&mut self, at: &str, message: impl std::fmt::Display) {
        if self.list.len() < MAX_NOTES {
            self.list.push(format!("#{at}: {message}"));
        } else {
            self.overflow += 1;
        }
    }

    pub(crate) fn append(&mut self, other: Notes) {
        for note in other.list {
            if self.list.len() < MAX_NOTES {
                self.list.push(note);
            } else {
                self.overflow += 1;
            }
        }
        self.overflow += other.overflow;
    }

    pub(crate) fn finish(mut self) -> Vec<String> {
        if self.overflow > 0 {
            self.list
                .push(format!("... and {} more notes", self.overflow));
        }
        self.list
    }
}

/// The JSON pointer of a child location: `at` followed by the escaped segments.
pub(crate) fn child(at: &str, segments: &[&str]) -> String {
    let mut out = String::from(at);
    for segment in segments {
        out.push('/');
        out.push_str(&segment.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// Keywords whose value is one subschema.
pub(crate) const SINGLE_SUBSCHEMA: &[&str] = &[
    "additionalProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "items",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is a non-empty array of subschemas.
pub(crate) const ARRAY_SUBSCHEMAS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
pub(crate) const MAP_SUBSCHEMAS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// Keywords that only describe: dropping one changes no instance's validity.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
];

/// The seven JSON Schema types.
pub(crate) const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// The type names a `type` value lists, sorted; `None` when it is malformed.
pub(crate) fn type_set(value: &Value) -> Option<Vec<String>> {
    let mut names: Vec<String> = match value {
        Value::String(t) => vec![t.clone()],
        Value::Array(list) => list
            .iter()
            .map(|t| t.as_str().map(str::to_owned))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    names.sort();
    names.dedup();
    Some(names)
}

/// The declared types of a schema node, if it declares any.
pub(crate) fn declared_types(node: &Map<String, Value>) -> Option<Vec<String>> {
    node.get("type").and_then(type_set)
}

/// Keywords that apply to one instance type only, by type.
const STRING_KEYWORDS: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];
const NUMBER_KEYWORDS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];
const ARRAY_KEYWORDS: &[&str] = &[
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
];
const OBJECT_KEYWORDS: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "propertyOrdering",
];

/// The instance type a type-specific keyword applies to (`number` covers `integer`).
pub(crate) fn keyword_type(keyword: &str) -> Option<&'static str> {
    if STRING_KEYWORDS.contains(&keyword) {
        Some("string")
    } else if NUMBER_KEYWORDS.contains(&keyword) {
        Some("number")
    } else if ARRAY_KEYWORDS.contains(&keyword) {
        Some("array")
    } else if OBJECT_KEYWORDS.contains(&keyword) {
        Some("object")
    } else {
        None
    }
}

fn applies_to(keyword_type: &str, instance_type: &str) -> bool {
    keyword_type == instance_type || (keyword_type == "number" && instance_type == "integer")
}

/// Keywords that constrain every instance type, so a type union cannot be split under them.
const NOT_DISTRIBUTABLE: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$dynamicRef",
];

/// The JSON type of a value, as a schema `type` name (`integer` for whole numbers).
pub(crate) fn value_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn value_matches(value: &Value, instance_type: &str) -> bool {
    let actual = value_type(value);
    actual == instance_type || (actual == "integer" && instance_type == "number")
}

/// A node whose `type` lists several non-null types, split into one branch per type, each with
/// the keywords that apply to it; `enum`/`const` values go to the branch of their type. Returns
/// the parent (annotations and `null` handling left to the caller) and the branches, or `None`
/// when the node has keywords that cannot be distributed (`not`, `if`, composition, ...).
pub(crate) fn split_type_union(
    node: &Map<String, Value>,
) -> Option<(Map<String, Value>, Vec<Value>, bool)> {
    // In the order the schema lists them, so branches read like the original.
    let types: Vec<String> = match node.get("type")? {
        Value::Array(list) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return None,
    };
    let nullable = types.iter().any(|t| t == "null");
    let concrete: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
    if concrete.len() < 2 {
        return None;
    }
    let mut parent = Map::new();
    let mut branches: Vec<Map<String, Value>> = concrete
        .iter()
        .map(|t| {
            let mut b = Map::new();
            b.insert("type".into(), Value::String((*t).clone()));
            b
        })
        .collect();
    for (key, value) in node {
        let k = key.as_str();
        if k == "type" {
            continue;
        }
        if ANNOTATIONS.contains(&k) {
            parent.insert(key.clone(), value.clone());
        } else if k == "format" {
            let target = match value.as_str() {
                Some("int32" | "int64") => "integer",
                Some("float" | "double") => "number",
                _ => "string",
            };
            for (b, t) in branches.iter_mut().zip(&concrete) {
                if applies_to(target, t) {
                    b.insert(key.clone(), value.clone());
                }
            }
        } else if k == "enum" || k == "const" {
            let values: Vec<Value> = match value {
                Value::Array(list) if k == "enum" => list.clone(),
                single => vec![single.clone()],
            };
            for (b, t) in branches.iter_mut().zip(&concrete) {
                let mine: Vec<Value> = values
                    .iter()
                    .filter(|v| value_matches(v, t))
                    .cloned()
                    .collect();
                b.insert("enum".into(), Value::Array(mine));
            }
        } else if let Some(target) = keyword_type(k) {
            for (b, t) in branches.iter_mut().zip(&concrete) {
                if applies_to(target, t) {
                    b.insert(key.clone(), value.clone());
                }
            }
        } else if NOT_DISTRIBUTABLE.contains(&k) {
            return None;
        } else {
            // Keywords JSON Schema does not define validate nothing; keep them on the parent.
            parent.insert(key.clone(), value.clone());
        }
    }
    // A branch whose enum lost every value accepts nothing: leave it out.
    let branches = branches
        .into_iter()
        .filter(|b| !matches!(b.get("enum"), Some(Value::Array(list)) if list.is_empty()))
        .map(Value::Object)
        .collect();
    Some((parent, branches, nullable))
}

/// Whether the `oneOf` branches declare pairwise disjoint types, so at most one can match and
/// `anyOf` means the same.
pub(crate) fn types_disjoint(branches: &[Value]) -> bool {
    let mut seen: Vec<String> = Vec::new();
    for branch in branches {
        let Some(types) = branch.as_object().and_then(declared_types) else {
            return false;
        };
        for t in types {
            let clash = seen.iter().any(|s| {
                *s == t || (s == "number" && t == "integer") || (s == "integer" && t == "number")
            });
            if clash {
                return false;
            }
            seen.push(t);
        }
    }
    true
}

/// Appends `hint` to a node's description (creating it), so a model still reads what a dropped
/// keyword said.
pub(crate) fn add_hint(node: &mut Map<String, Value>, hint: &str) {
    match node.get_mut("description") {
        Some(Value::String(text)) if !text.is_empty() => {
            if !text.ends_with(['.', '!', '?']) {
                text.push('.');
            }
            text.push(' ');
            text.push_str(hint);
        }
        _ => {
            node.insert("description".into(), Value::String(hint.to_owned()));
        }
    }
}

/// A value written compactly for a hint, cut to a readable length.
pub(crate) fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 80 {
        return text;
    }
    let cut: String = text.chars().take(77).collect();
    format!("{cut}...")
}

/// Calls `visit` on every subschema of `node`, children before parents, with its location.
/// Bounded by [`MAX_DEPTH`]: deeper subschemas are left as they are.
pub(crate) fn visit_mut(
    node: &mut Value,
    at: &str,
    depth: usize,
    visit: &mut dyn FnMut(&mut Map<String, Value>, &str),
) {
    let Value::Object(map) = node else {
        return;
    };
    if depth >= MAX_DEPTH {
        return;
    }
    for (key, value) in map.iter_mut() {
        let k = key.as_str();
        if SINGLE_SUBSCHEMA.contains(&k) {
            visit_mut(value, &child(at, &[k]), depth + 1, visit);
        } else if ARRAY_SUBSCHEMAS.contains(&k) {
            if let Value::Array(list) = value {
                for (i, s) in list.iter_mut().enumerate() {
                    visit_mut(s, &child(at, &[k, &i.to_string()]), depth + 1, visit);
                }
            }
        } else if MAP_SUBSCHEMAS.contains(&k)
            && let Value::Object(entries) = value
        {
            for (name, s) in entries.iter_mut() {
                visit_mut(s, &child(at, &[k, name]), depth + 1, visit);
            }
        }
    }
    visit(map, at);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_type_union_splits_with_its_keywords() {
        let node = json!({"type": ["string", "integer", "null"], "minLength": 1, "minimum": 0,
            "enum": ["a", 1, null], "description": "d"});
        let (parent, branches, nullable) =
            split_type_union(node.as_object().expect("object")).expect("splits");
        assert!(nullable);
        assert_eq!(Value::Object(parent), json!({"description": "d"}));
        assert_eq!(
            branches,
            vec![
                json!({"type": "string", "minLength": 1, "enum": ["a"]}),
                json!({"type": "integer", "minimum": 0, "enum": [1]}),
            ]
        );
    }
}
