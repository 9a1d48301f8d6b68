//! Seed 003's action recall for MCP tools: one tool of one of the caller's servers described
//! as a function a model can call over plain HTTP.
//!
//! The answer is the tool's schema converted for the caller's dialect (`switchboard-schema`,
//! the same conversion a run uses), with the fixed parameters taken out of it; the HTTP layer
//! adds the absolute URL of the flat-parameter proxy for that tool. A caller offers the
//! function to its model, merges the model's arguments with the fixed parameters and POSTs
//! them to the URL: the proxy checks them against the tool's original schema and calls the
//! tool. The model never sees, and so cannot change, a fixed parameter. The tool is looked up
//! as every call looks it up ([`App::enabled_tool`]), so a tool the proxy would refuse is
//! never described as callable.

use serde_json::{Map, Value};
use switchboard_agent::ToolCallError;
use switchboard_core::{ErrorCode, OwnerId, ServerId, ToolInfo};
use switchboard_schema::dialect::ParseDialectError;
use switchboard_schema::{ConvertOptions, Dialect, ToolInput, ToolSchemaError, convert_tool};

use crate::App;
use crate::metrics::ConversionSource;

/// An MCP tool to recall.
#[derive(Debug, Clone)]
pub struct McpAction {
    pub mcp_id: String,
    pub tool_name: String,
    /// Parameters whose values are fixed by the caller, not chosen by the model.
    pub fixed_params: Map<String, Value>,
    pub dialect: Dialect,
}

/// A recalled tool: what to offer the model, and which tool of which server its calls go to.
#[derive(Debug, Clone, PartialEq)]
pub struct RecalledTool {
    /// The tool's name, made valid for the dialect.
    pub name: String,
    pub description: String,
    /// The tool's input schema for the dialect, without the fixed parameters.
    pub parameters: Value,
    pub server_id: ServerId,
    /// The tool's own name on its server.
    pub tool: String,
    pub fixed_params: Map<String, Value>,
}

/// Why a tool could not be recalled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecallError {
    /// Only `mcp` actions are recalled here.
    #[error(
        "action_source.type {0} is not supported: this server recalls MCP tools only \
         (type \"mcp\" with mcp_id and tool_name)"
    )]
    UnsupportedSource(String),
    /// An `mcp` action without its server or tool.
    #[error("an action_source of type \"mcp\" needs a non-empty {0}")]
    MissingField(&'static str),
    #[error(transparent)]
    Dialect(#[from] ParseDialectError),
    /// A fixed parameter the tool's schema does not have.
    #[error("fixed parameter {parameter:?} is not a parameter of tool {tool:?}")]
    UnknownParameter { tool: String, parameter: String },
    #[error(transparent)]
    Lookup(#[from] ToolCallError),
    /// The tool's schema cannot be converted for the dialect.
    #[error("the input schema of {0}")]
    Schema(#[source] ToolSchemaError),
    /// Neither a public URL nor a listen address is configured.
    #[error("no public URL or listen address to build the proxy URL from")]
    NoAddress,
}

impl RecallError {
    pub fn code(&self) -> ErrorCode {
        match self {
            RecallError::UnsupportedSource(_)
            | RecallError::MissingField(_)
            | RecallError::Dialect(_) => ErrorCode::ValidationError,
            RecallError::UnknownParameter { .. } => ErrorCode::McpInvalidParams,
            RecallError::Lookup(e) => e.code(),
            RecallError::Schema(_) => ErrorCode::SchemaError,
            RecallError::NoAddress => ErrorCode::InternalError,
        }
    }
}

/// Recalls `action` for `owner`: the server must be theirs, the tool enabled on it.
pub async fn recall(
    app: &App,
    owner: &OwnerId,
    action: McpAction,
) -> Result<RecalledTool, RecallError> {
    if action.mcp_id.is_empty() {
        return Err(RecallError::MissingField("mcp_id"));
    }
    if action.tool_name.is_empty() {
        return Err(RecallError::MissingField("tool_name"));
    }
    let (spec, tool) = app
        .enabled_tool(owner, &action.mcp_id, &action.tool_name)
        .await?;
    app.metrics
        .record_schema_conversions(ConversionSource::ActionRecall, 1);
    let described = describe(&tool, &action.fixed_params, action.dialect);
    if let Err(RecallError::Schema(error)) = &described {
        app.metrics.record_schema_failure(&spec.id.0, &tool.name);
        tracing::error!(server = %spec.id.0, tool = %tool.name, %error, "action recall: the tool's schema does not convert");
    }
    let (name, description, parameters) = described?;
    Ok(RecalledTool {
        name,
        description,
        parameters,
        server_id: spec.id,
        tool: tool.name,
        fixed_params: action.fixed_params,
    })
}

/// The tool's name, description and parameters for `dialect`, the fixed parameters taken out.
fn describe(
    tool: &ToolInfo,
    fixed: &Map<String, Value>,
    dialect: Dialect,
) -> Result<(String, String, Value), RecallError> {
    let input = ToolInput {
        name: tool.name.clone(),
        description: tool.description.clone(),
        input_schema: Some(Value::Object(tool.input_schema.clone())),
    };
    let converted =
        convert_tool(&input, dialect, &ConvertOptions::default()).map_err(RecallError::Schema)?;
    let mut parameters = converted.parameters();
    let declared = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object);
    for parameter in fixed.keys() {
        let in_original = declared.is_some_and(|p| p.contains_key(parameter));
        let in_converted = parameters["properties"].get(parameter).is_some();
        if !in_original && !in_converted {
            return Err(RecallError::UnknownParameter {
                tool: tool.name.clone(),
                parameter: parameter.clone(),
            });
        }
    }
    if let Some(properties) = parameters
        .get_mut("properties")
        .and_then(Value::as_object_mut)
    {
        properties.retain(|name, _| !fixed.contains_key(name));
    }
    if let Some(required) = parameters.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|name| name.as_str().is_none_or(|name| !fixed.contains_key(name)));
    }
    let description = tool
        .description
        .clone()
        .or_else(|| tool.title.clone())
        .unwrap_or_default();
    Ok((converted.name, description, parameters))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_core::{ServerId, ToolAnnotations};

    fn tool(schema: Value) -> ToolInfo {
        let Value::Object(input_schema) = schema else {
            panic!("an object schema")
        };
        ToolInfo {
            server_id: ServerId("s".into()),
            name: "search".into(),
            title: None,
            description: Some("Finds things".into()),
            input_schema,
            output_schema: None,
            annotations: ToolAnnotations::default(),
            icons: Vec::new(),
            meta: None,
            tasks: None,
        }
    }

    fn fixed(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else {
            panic!("an object")
        };
        map
    }

    #[test]
    fn fixed_parameters_leave_properties_and_required() {
        let tool = tool(json!({
            "type": "object",
            "properties": {
                "tenant": {"type": "string"},
                "query": {"type": "string"},
                "limit": {"type": "integer"}
            },
            "required": ["tenant", "query"]
        }));
        let (name, description, parameters) =
            describe(&tool, &fixed(json!({"tenant": "acme"})), Dialect::OpenAi).unwrap();
        assert_eq!(name, "search");
        assert_eq!(description, "Finds things");
        assert_eq!(parameters["type"], "object");
        assert!(
            parameters["properties"].get("tenant").is_none(),
            "{parameters}"
        );
        assert!(
            parameters["properties"].get("query").is_some(),
            "{parameters}"
        );
        assert_eq!(parameters["required"], json!(["query"]));
    }

    #[test]
    fn references_are_inlined_for_the_dialect() {
        let tool = tool(json!({
            "$defs": {"Node": {"type": "object", "properties": {
                "value": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}}}},
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}}
        }));
        let (_, _, parameters) = describe(&tool, &Map::new(), Dialect::OpenAi).unwrap();
        let text = parameters.to_string();
        assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
        assert_eq!(parameters["properties"]["root"]["type"], "object");
    }

    #[test]
    fn a_fixed_parameter_the_schema_lacks_is_refused() {
        let tool = tool(json!({"type": "object", "properties": {"q": {"type": "string"}}}));
        let error = describe(&tool, &fixed(json!({"nope": 1})), Dialect::OpenAi).unwrap_err();
        assert_eq!(error.code(), ErrorCode::McpInvalidParams);
        assert!(error.to_string().contains("nope"), "{error}");
    }

    #[test]
    fn a_schema_that_does_not_convert_is_a_schema_error() {
        let tool = tool(json!({"type": "string"}));
        let error = describe(&tool, &Map::new(), Dialect::OpenAi).unwrap_err();
        assert_eq!(error.code(), ErrorCode::SchemaError);
        assert_eq!(ErrorCode::SchemaError.http_status(), 500);
    }
}
