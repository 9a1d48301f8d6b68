//! Keywords beside a `$ref` (draft 2020-12 allows them: `{"$ref": ..., "description": ...}`)
//! merged over the inlined target.
//!
//! Both apply to the instance, so the exact merge is a conjunction. The flat merge here keeps
//! that meaning for what occurs in practice: annotations beside the reference win (they describe
//! this use of the definition), `properties`-like maps are united, `required` lists are united
//! and `allOf` lists are joined. Any other keyword on both sides with different values is taken
//! from the siblings and reported, since the result then accepts more than the original.
//!
//! The merge never grows: the result is at most the size of its two parts together, which the
//! budget has already paid for.

use serde_json::{Map, Value};

/// Keywords that only describe: the referencing schema's own value replaces the target's.
const ANNOTATIONS: [&str; 10] = [
    "title",
    "description",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
];

/// Keywords whose values are maps of subschemas; merged entry by entry, siblings winning.
const MAPS: [&str; 3] = ["properties", "patternProperties", "dependentSchemas"];

/// `siblings` merged over `target`. Returns the merged schema and the keywords where the
/// siblings replaced a different value of the target.
pub(super) fn merge(target: Value, siblings: Map<String, Value>) -> (Value, Vec<String>) {
    let mut merged = match target {
        // Nothing is valid against `false`, whatever else applies.
        Value::Bool(false) => return (Value::Bool(false), Vec::new()),
        Value::Bool(true) if siblings.is_empty() => return (Value::Bool(true), Vec::new()),
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let mut replaced = Vec::new();
    for (key, value) in siblings {
        let Some(existing) = merged.get_mut(&key) else {
            merged.insert(key, value);
            continue;
        };
        match (existing, value) {
            (Value::Object(into), Value::Object(from)) if MAPS.contains(&key.as_str()) => {
                into.extend(from);
            }
            (Value::Array(into), Value::Array(from)) if key == "required" => {
                for name in from {
                    if !into.contains(&name) {
                        into.push(name);
                    }
                }
            }
            (Value::Array(into), Value::Array(from)) if key == "allOf" => into.extend(from),
            (existing, value) => {
                if *existing != value && !ANNOTATIONS.contains(&key.as_str()) {
                    replaced.push(key);
                }
                *existing = value;
            }
        }
    }
    (Value::Object(merged), replaced)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn siblings(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn annotations_beside_the_reference_win() {
        let target = json!({"type": "object", "description": "A node", "properties": {"v": {}}});
        let (merged, replaced) = merge(
            target,
            siblings(json!({"description": "The root", "default": {}})),
        );
        assert_eq!(
            merged,
            json!({"type": "object", "description": "The root", "default": {}, "properties": {"v": {}}})
        );
        assert!(replaced.is_empty());
    }

    #[test]
    fn maps_required_and_all_of_are_united() {
        let target = json!({"properties": {"a": {}, "b": {}}, "required": ["a"], "allOf": [{"minProperties": 1}]});
        let extra = json!({
            "properties": {"b": {"type": "string"}, "c": {}},
            "required": ["a", "c"],
            "allOf": [{"maxProperties": 3}]
        });
        let (merged, replaced) = merge(target, siblings(extra));
        assert_eq!(
            merged,
            json!({
                "properties": {"a": {}, "b": {"type": "string"}, "c": {}},
                "required": ["a", "c"],
                "allOf": [{"minProperties": 1}, {"maxProperties": 3}]
            })
        );
        assert!(replaced.is_empty());
    }

    #[test]
    fn other_conflicts_are_reported() {
        let (merged, replaced) = merge(
            json!({"type": "string"}),
            siblings(json!({"type": "integer"})),
        );
        assert_eq!(merged, json!({"type": "integer"}));
        assert_eq!(replaced, vec!["type".to_owned()]);
    }

    #[test]
    fn boolean_targets() {
        assert_eq!(
            merge(json!(false), siblings(json!({"title": "x"}))).0,
            json!(false)
        );
        assert_eq!(merge(json!(true), Map::new()).0, json!(true));
        assert_eq!(
            merge(json!(true), siblings(json!({"title": "x"}))).0,
            json!({"title": "x"})
        );
    }
}
