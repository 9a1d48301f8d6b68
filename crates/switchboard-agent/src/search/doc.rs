//! What the index knows of one tool: the text of its definition, field by field.

use serde_json::{Map, Value};

use crate::offer::OfferedTool;

/// The searchable text of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDoc {
    /// The name the tool is offered under (`mcp__{server}__{tool}`).
    pub name: String,
    /// Its server's name.
    pub server: String,
    /// The server's own description or instructions, if it gave one.
    pub server_description: String,
    /// The tool's own name.
    pub tool: String,
    pub title: String,
    pub description: String,
    /// The names and descriptions of its parameters (top-level and nested properties).
    pub parameters: String,
    /// Its annotations' words (`read-only`, `destructive`, the annotation title).
    pub annotations: String,
}

impl ToolDoc {
    pub fn of(tool: &OfferedTool) -> ToolDoc {
        let annotations = &tool.tool.annotations;
        let mut words = Vec::new();
        if annotations.read_only_hint == Some(true) {
            words.push("read-only");
        }
        if annotations.destructive_hint == Some(true) {
            words.push("destructive");
        }
        if let Some(title) = &annotations.title {
            words.push(title);
        }
        ToolDoc {
            name: tool.display_name.clone(),
            server: tool.server.name.clone(),
            server_description: String::new(),
            tool: tool.tool.name.clone(),
            title: tool.tool.title.clone().unwrap_or_default(),
            description: tool.tool.description.clone().unwrap_or_default(),
            parameters: parameter_text(&tool.schema),
            annotations: words.join(" "),
        }
    }

    /// The text a semantic model reads for this tool: its names, title and description.
    pub fn semantic_text(&self) -> String {
        let mut text = format!("{} ({}): {}", self.tool, self.server, self.title);
        if !self.description.is_empty() {
            text.push_str(". ");
            text.push_str(&self.description);
        }
        text
    }
}

/// Parameter names and descriptions, nested properties included, at most a few levels deep.
fn parameter_text(schema: &Map<String, Value>) -> String {
    let mut text = String::new();
    collect(schema, 0, &mut text);
    text
}

fn collect(schema: &Map<String, Value>, depth: usize, text: &mut String) {
    if depth > 3 {
        return;
    }
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    for (name, property) in properties {
        text.push_str(name);
        text.push(' ');
        if let Value::Object(property) = property {
            if let Some(Value::String(description)) = property.get("description") {
                text.push_str(description);
                text.push(' ');
            }
            collect(property, depth + 1, text);
            if let Some(Value::Object(items)) = property.get("items") {
                collect(items, depth + 1, text);
            }
        }
    }
}
