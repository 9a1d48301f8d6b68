//! Gemini `FunctionDeclaration.parametersJsonSchema`: "the parameters to the function in JSON
//! Schema format. The schema must describe an object where the properties are the parameters"
//! (ai.google.dev/api/caching#FunctionDeclaration).
//!
//! Gemini documents a JSON Schema subset for this form (ai.google.dev/gemini-api/docs/
//! structured-output, "JSON Schema support"): `type` (a list with `null` for nullable values),
//! `title`, `description`; `enum` and `format` (`date-time`, `date`, `time`) for strings;
//! `enum`, `minimum`, `maximum` for numbers; `items`, `prefixItems`, `minItems`, `maxItems` for
//! arrays; `properties`, `required`, `additionalProperties` for objects; `anyOf`, `oneOf`,
//! `$ref`/`$defs`, and Gemini's own `propertyOrdering`.
//!
//! So this form keeps what `parameters` cannot say (free-form objects, `additionalProperties`,
//! type lists, tuples, numeric enums). The rest is rewritten or dropped with a note: `const`
//! becomes a one-value `enum`; exclusive bounds become inclusive ones (exact for integers, with
//! a hint otherwise); `default`, `minLength`, `maxLength`, `pattern`, `multipleOf`,
//! `uniqueItems`, `minProperties`, `maxProperties` and other formats move into the description;
//! an `allOf` normalization could not merge, `not`, `if`/`then`/`else`, `patternProperties`,
//! `propertyNames`, `dependent*`, `unevaluated*`, `contains` and unknown keywords are dropped.

use serde_json::{Map, Value, json};

use super::common::{ANNOTATIONS, MAX_DEPTH, Notes, add_hint, child, declared_types, show};

const FORMATS: &[&str] = &["date-time", "date", "time"];
const KEPT: &[&str] = &[
    "type",
    "enum",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "required",
    "propertyOrdering",
];
const SUBSCHEMA: &[&str] = &["items", "additionalProperties"];
const SUBSCHEMA_LISTS: &[&str] = &["prefixItems", "anyOf", "oneOf"];
/// Constraints restated in the description when dropped: `(keyword, wording)`.
const HINTED: &[(&str, &str)] = &[
    ("minLength", "Minimum length"),
    ("maxLength", "Maximum length"),
    ("pattern", "Pattern"),
    ("multipleOf", "Multiple of"),
    ("minProperties", "Minimum properties"),
    ("maxProperties", "Maximum properties"),
];

/// Converts a normalized, object-rooted schema into Gemini's JSON Schema subset.
pub(crate) fn convert(root: &Value, notes: &mut Notes) -> Value {
    node(root, "", 0, notes)
}

fn node(schema: &Value, at: &str, depth: usize, notes: &mut Notes) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    if depth > MAX_DEPTH {
        return json!({});
    }
    let mut out = Map::new();
    // First, so hints added below extend the description instead of being overwritten by it.
    for key in ["title", "description"] {
        if let Some(value) = map.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    let integer =
        declared_types(map).is_some_and(|t| t.iter().all(|t| t == "integer" || t == "null"));
    for (key, value) in map {
        let k = key.as_str();
        let here = || child(at, &[k]);
        match k {
            "title" | "description" => {}
            _ if KEPT.contains(&k) => {
                out.insert(key.clone(), value.clone());
            }
            "const" => {
                out.insert("enum".into(), json!([value]));
            }
            "format" => match value.as_str() {
                Some(f) if FORMATS.contains(&f) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => {
                    add_hint(
                        &mut out,
                        &format!("Format: {}.", value.as_str().unwrap_or_default()),
                    );
                    notes.push(&here(), "not a Gemini format; moved into the description");
                }
            },
            // A `null` default (pydantic's `= None`) says nothing a model needs.
            "default" if value.is_null() => {}
            "default" => {
                add_hint(&mut out, &format!("Default: {}.", show(value)));
                notes.push(&here(), "moved into the description");
            }
            "uniqueItems" => {
                if value == &json!(true) {
                    add_hint(&mut out, "Items must be unique.");
                }
            }
            "exclusiveMinimum" | "exclusiveMaximum" => {
                exclusive(k, value, integer, &mut out, &here(), notes);
            }
            "properties" => {
                if let Value::Object(properties) = value {
                    let converted = properties
                        .iter()
                        .map(|(name, s)| {
                            let here = child(at, &["properties", name]);
                            (name.clone(), node(s, &here, depth + 1, notes))
                        })
                        .collect();
                    out.insert(key.clone(), Value::Object(converted));
                }
            }
            _ if SUBSCHEMA.contains(&k) => {
                out.insert(key.clone(), node(value, &here(), depth + 1, notes));
            }
            _ if SUBSCHEMA_LISTS.contains(&k) => {
                if let Value::Array(list) = value {
                    let converted = list
                        .iter()
                        .enumerate()
                        .map(|(i, s)| node(s, &child(at, &[k, &i.to_string()]), depth + 1, notes))
                        .collect();
                    out.insert(key.clone(), Value::Array(converted));
                }
            }
            _ => match HINTED.iter().find(|(name, _)| *name == k) {
                Some((_, wording)) => {
                    add_hint(&mut out, &format!("{wording}: {}.", show(value)));
                    notes.push(&here(), "moved into the description");
                }
                None if ANNOTATIONS.contains(&k) => {
                    notes.push(&here(), "dropped (annotation Gemini does not take)");
                }
                None => notes.push(&here(), "dropped: not in Gemini's JSON Schema subset"),
            },
        }
    }
    // A `const` and an `enum` together: keep the values both allow.
    if let (Some(Value::Array(list)), Some(c)) = (map.get("enum"), map.get("const")) {
        let both: Vec<Value> = list.iter().filter(|v| *v == c).cloned().collect();
        out.insert("enum".into(), Value::Array(both));
    }
    Value::Object(out)
}

fn exclusive(
    keyword: &str,
    value: &Value,
    integer: bool,
    out: &mut Map<String, Value>,
    at: &str,
    notes: &mut Notes,
) {
    let Some(bound) = value.as_f64() else {
        return;
    };
    let (inclusive, word) = if keyword == "exclusiveMinimum" {
        ("minimum", "Greater than")
    } else {
        ("maximum", "Less than")
    };
    if integer {
        let exact = if inclusive == "minimum" {
            bound.floor() + 1.0
        } else {
            bound.ceil() - 1.0
        };
        out.insert(inclusive.into(), json!(exact as i64));
    } else {
        out.insert(inclusive.into(), value.clone());
        add_hint(out, &format!("{word} {bound}."));
        notes.push(
            at,
            format!("no exclusive bounds in Gemini; sent as `{inclusive}` with a hint"),
        );
    }
}
