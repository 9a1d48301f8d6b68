//! The schema the model sees for a tool of a node: the mapped parameters are not the model's
//! to choose, so they are taken out of `properties` and `required`; the service fills them in
//! at call time.

use serde_json::{Map, Value};

use super::SelectedTool;

/// `schema` without the parameters `tool` maps; everything else is kept as it was.
pub fn hide_mapped(schema: &Map<String, Value>, tool: &SelectedTool) -> Map<String, Value> {
    let mut out = schema.clone();
    let mapped = |name: &str| tool.parameter_mappings.contains_key(name);
    if let Some(Value::Object(properties)) = out.get_mut("properties") {
        properties.retain(|name, _| !mapped(name));
    }
    if let Some(Value::Array(required)) = out.get_mut("required") {
        required.retain(|name| !name.as_str().is_some_and(mapped));
    }
    out
}
