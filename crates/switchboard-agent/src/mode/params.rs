//! A tool's parameters described in one line of prose, for the prompt and meta modes:
//! `path (string, required): the file to read; depth (integer)`.

use serde_json::{Map, Value};

pub fn describe(schema: &Map<String, Value>) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return "none".into();
    };
    if properties.is_empty() {
        return "none".into();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    properties
        .iter()
        .map(|(name, property)| {
            let kind = property
                .get("type")
                .map(|t| match t {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .or_else(|| property.get("enum").map(|e| format!("one of {e}")))
                .unwrap_or_else(|| "any".into());
            let mut text = format!("{name} ({kind}");
            if required.contains(&name.as_str()) {
                text.push_str(", required");
            }
            text.push(')');
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                text.push_str(": ");
                text.push_str(description);
            }
            text
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parameters_read_as_prose() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "the file"},
                "depth": {"type": "integer"}
            },
            "required": ["path"]
        });
        assert_eq!(
            describe(schema.as_object().unwrap()),
            "depth (integer); path (string, required): the file"
        );
        assert_eq!(describe(&Map::new()), "none");
    }
}
