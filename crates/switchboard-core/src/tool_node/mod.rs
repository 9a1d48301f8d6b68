//! Tool nodes: a server, the tools chosen from it, how some of their parameters are filled
//! from a run's variables, and how a call is retried and timed out (seed 002
//! `MCPToolNodeConfig`; seed 003's `fixed_params` are the same idea).
//!
//! This module is the model and its pure rules; nothing here talks to a server. The pieces:
//! - [`Template`] / [`Mapping`]: `{{variable}}` text and how a mapping is written in JSON;
//! - [`Variables`]: what a run knows (built-ins, supplied layers, declared defaults);
//! - [`check_node`]: property 7 at save, against the server's live tool list;
//! - [`resolve_arguments`]: property 7 at execution;
//! - [`hide_mapped`]: the schema the model sees, without the parameters a node fills.
//!
//! ```
//! use serde_json::json;
//! use switchboard_core::{Builtins, ToolNode, Variables, resolve_arguments};
//!
//! let node: ToolNode = serde_json::from_value(json!({
//!     "name": "issues",
//!     "serverId": "github",
//!     "variables": [{"name": "repo", "type": "string", "default": "cargo"}],
//!     "selectedTools": [{
//!         "name": "list_issues",
//!         "parameterMappings": {"owner": "{{user.name}}", "path": "repos/{{user.name}}/{{repo}}"}
//!     }]
//! }))?;
//! node.validate()?;
//! let vars = Variables::new(Builtins {
//!     user_id: "u1".into(),
//!     user_name: "rust-lang".into(),
//!     conversation_id: None,
//!     now: "2026-01-01T00:00:00Z".into(),
//! })
//! .with_declared(&node.variables);
//! let tool = node.selected("list_issues").expect("selected and enabled");
//! let model_said = json!({"owner": "someone-else", "state": "open"});
//! let sent = resolve_arguments(tool, model_said.as_object().cloned().unwrap_or_default(), &vars)?;
//! assert_eq!(
//!     serde_json::Value::Object(sent),
//!     json!({"owner": "rust-lang", "path": "repos/rust-lang/cargo", "state": "open"})
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spec::ServerId;

mod check;
mod mapping;
mod millis;
mod resolve;
mod schema;
mod template;
mod validate;
mod variables;
mod wire;

pub use check::{NodeCheckError, check_node};
pub use mapping::Mapping;
pub use resolve::{ResolveError, resolve_arguments};
pub use schema::hide_mapped;
pub use template::{MAX_RENDERED_BYTES, RenderError, Template, TemplateParseError, VarPath};
pub use validate::{MAX_RETRIES, is_variable_name, validate_variables};
pub use variables::{BUILTIN_VARIABLES, Builtins, Variables, is_builtin};

/// One tool node as a person configures it.
///
/// Read from `serverId`, or from seed 002's embedded `"mcpServer": {"id": ..}` (its other
/// fields are ignored); always written with `serverId`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "wire::ToolNodeWire")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolNode {
    pub name: String,
    pub server_id: ServerId,
    pub selected_tools: Vec<SelectedTool>,
    pub retry_on_error: bool,
    /// Retries after the first attempt when `retry_on_error` is set (seed 002 default 3).
    pub max_retries: u32,
    /// Per-call timeout in milliseconds; the server's applies when absent.
    #[serde(
        rename = "timeoutMs",
        with = "millis",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<u64>))]
    pub timeout: Option<Duration>,
    /// The variables this node declares (names its mappings may use besides the built-ins).
    pub variables: Vec<VariableDecl>,
    /// The assistant this node belongs to, if any (its mappings may use the assistant's
    /// variables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assistant_id: Option<String>,
}

/// A tool chosen in a node, with how its parameters are filled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SelectedTool {
    pub name: String,
    /// A selected tool that is not enabled is kept in the node but not offered or called.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Parameter name → literal value or `{{variable}}` template (see [`Mapping`]).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub parameter_mappings: BTreeMap<String, Mapping>,
}

fn yes() -> bool {
    true
}

/// A field that is present is `Some`, even when it is `null` (serde's `Option` would read
/// `null` as `None`); an absent one is `None` through `#[serde(default)]`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A variable a node or an assistant declares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VariableDecl {
    pub name: String,
    #[serde(rename = "type", default)]
    pub kind: VariableType,
    /// Used when the run supplies no value. `"default": null` is a default of `null`, not
    /// none: it reads back as `Some(Null)` (and a run resolves it), as it was written.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub default: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The JSON type a variable holds (`any` when not said).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum VariableType {
    String,
    Number,
    Integer,
    Boolean,
    Object,
    Array,
    #[default]
    Any,
}

impl VariableType {
    /// Whether `value` is of this type (`integer` accepts `2.0`, as JSON Schema does).
    pub fn accepts(self, value: &Value) -> bool {
        match self {
            VariableType::String => value.is_string(),
            VariableType::Number => value.is_number(),
            VariableType::Integer => {
                value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            VariableType::Boolean => value.is_boolean(),
            VariableType::Object => value.is_object(),
            VariableType::Array => value.is_array(),
            VariableType::Any => true,
        }
    }

    /// The name as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            VariableType::String => "string",
            VariableType::Number => "number",
            VariableType::Integer => "integer",
            VariableType::Boolean => "boolean",
            VariableType::Object => "object",
            VariableType::Array => "array",
            VariableType::Any => "any",
        }
    }
}

impl std::fmt::Display for VariableType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToolNode {
    /// The selected tool of this name, if it is enabled: the only tools a node offers or calls.
    pub fn selected(&self, tool: &str) -> Option<&SelectedTool> {
        self.selected_tools
            .iter()
            .find(|t| t.enabled && t.name == tool)
    }

    /// How many times a failed call may be repeated: none unless `retryOnError` is set.
    pub fn retry_policy_retries(&self) -> u32 {
        if self.retry_on_error {
            self.max_retries.min(MAX_RETRIES)
        } else {
            0
        }
    }
}

impl SelectedTool {
    /// The parameters this tool's mappings fill, each with the variables it reads (what a
    /// person approving a call is shown beside the resolved value).
    pub fn mapped_parameters(&self) -> BTreeMap<String, crate::MappedParameter> {
        self.parameter_mappings
            .iter()
            .map(|(parameter, mapping)| {
                let mut variables: Vec<String> = Vec::new();
                for path in mapping.references() {
                    if !variables.iter().any(|known| known == path.as_str()) {
                        variables.push(path.as_str().to_owned());
                    }
                }
                (parameter.clone(), crate::MappedParameter { variables })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
