//! OpenAI function `parameters` without strict mode.
//!
//! Best-effort function calling accepts JSON Schema broadly; what it rejects, as seen in MCP
//! host bug reports, is:
//! - a root that is not an object or has `oneOf`/`anyOf`/`allOf`/`enum`/`not` at the top, and
//!   an object root without `properties` (handled for every dialect by `root`);
//! - an array without `items`: "In context=('properties', 'x'), array schema missing items."
//!   (sigoden/aichat#1049, streamnative/streamnative-mcp-server#26). We add `items: {}`, which
//!   means exactly what a missing `items` means.
//!
//! Boolean subschemas other than `additionalProperties`/`unevaluated*` are written as objects
//! (`true` as `{}`, `false` as `{"not": {}}`), the form every validator parses. Descriptions and
//! every other keyword are kept. The function name rule (`^[a-zA-Z0-9_-]{1,64}$`,
//! "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64") is
//! applied by [`super::tool_name`].

use serde_json::{Value, json};

use super::common::{
    ARRAY_SUBSCHEMAS, MAP_SUBSCHEMAS, SINGLE_SUBSCHEMA, declared_types, visit_mut,
};

/// Subschema keywords whose boolean form is idiomatic and kept.
const BOOLEAN_OK: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Rewrites a normalized, object-rooted schema for non-strict OpenAI.
pub(crate) fn apply(root: &mut Value) {
    visit_mut(root, "", 0, &mut |node, _| {
        let types = declared_types(node).unwrap_or_default();
        if types.iter().any(|t| t == "array") && !node.contains_key("items") {
            node.insert("items".into(), json!({}));
        }
        if types == ["object"] && !node.contains_key("properties") {
            node.insert("properties".into(), json!({}));
        }
        for (key, value) in node.iter_mut() {
            let k = key.as_str();
            if MAP_SUBSCHEMAS.contains(&k) {
                if let Value::Object(entries) = value {
                    entries.values_mut().for_each(unbool);
                }
            } else if ARRAY_SUBSCHEMAS.contains(&k) {
                if let Value::Array(list) = value {
                    list.iter_mut().for_each(unbool);
                }
            } else if SINGLE_SUBSCHEMA.contains(&k) && !BOOLEAN_OK.contains(&k) {
                unbool(value);
            }
        }
    });
}

fn unbool(schema: &mut Value) {
    match schema {
        Value::Bool(true) => *schema = json!({}),
        Value::Bool(false) => *schema = json!({"not": {}}),
        _ => {}
    }
}
