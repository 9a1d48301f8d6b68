//! Which keywords hold schemas (draft 2020-12, 2019-09, draft-07 and the OpenAPI subset), so
//! the walk reaches every reference and copies everything else as plain data.

use serde_json::Value;

/// Keywords that reference another schema, in the order they are honoured when a schema has
/// more than one.
pub(super) const REFERENCES: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];

/// What a keyword's value is to the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keyword {
    /// One subschema: `not`, `items` (2020-12 form), `additionalProperties`, ...
    Schema,
    /// Subschemas by name: `properties`, `patternProperties`, `dependentSchemas`, and draft-07
    /// `dependencies` (whose array values are data).
    SchemaMap,
    /// A list of subschemas: `anyOf`, `prefixItems`, draft-07 tuple `items`, ...
    SchemaList,
    /// Not carried into the output: definitions are inlined where used, and identifiers and
    /// anchors would be duplicated (an invalid schema) by inlining.
    Drop,
    /// Anything else, including annotations and unknown keywords: copied as it is.
    Data,
}

/// How the walk treats `key: value`. A schema keyword whose value has the wrong JSON type is
/// data: it is copied, not interpreted.
pub(super) fn classify(key: &str, value: &Value, at_root: bool) -> Keyword {
    let schema = matches!(value, Value::Object(_) | Value::Bool(_));
    match key {
        "$defs" | "definitions" | "$id" | "$anchor" | "$dynamicAnchor" | "$recursiveAnchor"
        | "$vocabulary" => Keyword::Drop,
        "$schema" if !at_root => Keyword::Drop,
        "items" if value.is_array() => Keyword::SchemaList,
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
        | "contentSchema"
            if schema =>
        {
            Keyword::Schema
        }
        "properties" | "patternProperties" | "dependentSchemas" | "dependencies"
            if value.is_object() =>
        {
            Keyword::SchemaMap
        }
        "allOf" | "anyOf" | "oneOf" | "prefixItems" if value.is_array() => Keyword::SchemaList,
        _ => Keyword::Data,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keywords_by_value_shape() {
        assert_eq!(classify("items", &json!({}), false), Keyword::Schema);
        assert_eq!(classify("items", &json!([{}]), false), Keyword::SchemaList);
        assert_eq!(classify("items", &json!(3), false), Keyword::Data);
        assert_eq!(classify("not", &json!(false), false), Keyword::Schema);
        assert_eq!(
            classify("properties", &json!({}), false),
            Keyword::SchemaMap
        );
        assert_eq!(classify("anyOf", &json!({}), false), Keyword::Data);
        assert_eq!(classify("$defs", &json!({}), true), Keyword::Drop);
        assert_eq!(classify("$schema", &json!("x"), true), Keyword::Data);
        assert_eq!(classify("$schema", &json!("x"), false), Keyword::Drop);
        assert_eq!(
            classify("default", &json!({"$ref": "#"}), false),
            Keyword::Data
        );
    }
}
