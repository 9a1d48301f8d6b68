//! Unit tests of the tool-node model, one file per piece. Seed 002 property 7 over random
//! schemas, mappings and variables is `tests/it/tool_node_property7.rs` at the crate root.

mod check;
mod mapping;
mod model;
mod template;
mod validate;
mod variables;

use serde_json::{Map, Value, json};

use super::*;
use crate::spec::ServerId;
use crate::tool::ToolInfo;

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn mapping(text: &str) -> Mapping {
    Mapping::from_text(text).unwrap()
}

fn selected(name: &str, mappings: &[(&str, Mapping)]) -> SelectedTool {
    SelectedTool {
        name: name.into(),
        enabled: true,
        parameter_mappings: mappings
            .iter()
            .map(|(p, m)| ((*p).to_owned(), m.clone()))
            .collect(),
    }
}

fn node(tools: Vec<SelectedTool>) -> ToolNode {
    ToolNode {
        name: "github".into(),
        server_id: ServerId("gh".into()),
        selected_tools: tools,
        retry_on_error: false,
        max_retries: 3,
        timeout: None,
        variables: Vec::new(),
        assistant_id: None,
    }
}

fn decl(name: &str, kind: VariableType, default: Option<Value>) -> VariableDecl {
    VariableDecl {
        name: name.into(),
        kind,
        default,
        description: None,
    }
}

fn builtins() -> Builtins {
    Builtins {
        user_id: "u-1".into(),
        user_name: "ada".into(),
        conversation_id: Some("c-9".into()),
        now: "2026-01-02T03:04:05Z".into(),
    }
}

fn tool(name: &str, schema: Value) -> ToolInfo {
    ToolInfo {
        server_id: ServerId("gh".into()),
        name: name.into(),
        title: None,
        description: None,
        input_schema: object(schema),
        output_schema: None,
        annotations: Default::default(),
        icons: Vec::new(),
        meta: None,
        tasks: None,
    }
}

fn issues_tool() -> ToolInfo {
    tool(
        "list_issues",
        json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string"},
                "repo": {"type": "string"},
                "path": {"type": "string"},
                "state": {"type": "string"},
                "limit": {"type": "integer"}
            },
            "required": ["owner", "repo", "limit"]
        }),
    )
}
