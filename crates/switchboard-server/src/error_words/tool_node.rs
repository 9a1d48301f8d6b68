//! A tool node that cannot be saved, worded by the locale files: the field at fault
//! (`selectedTools[i].parameterMappings.P`), the tool, the parameter and the variable stay as
//! written, so the editor can point at the mapping in either language.

use switchboard_core::{ErrorCode, NodeCheckError};

use super::{mcp, spec, store, tool_call};
use crate::error::{ApiError, Words};
use crate::tool_nodes::{NodeRunError, NodeSaveError};

pub fn save(e: &NodeSaveError) -> ApiError {
    let english = e.to_string();
    let words = match e {
        NodeSaveError::Store(e) => return store(e),
        NodeSaveError::Mcp(e) => return mcp(e),
        NodeSaveError::Call(e) => return tool_call(e),
        NodeSaveError::Invalid(e) => spec::spec(e),
        NodeSaveError::Check(e) => check(e),
        NodeSaveError::VariableInUse {
            node,
            field,
            variable,
        } => Words::new("error.msg.node_variable_in_use")
            .param("node", format!("{node:?}"))
            .param("field", field)
            .param("variable", format!("{{{{{variable}}}}}")),
        // A reason added later: its English text, under its own code.
        other => return ApiError::new(other.code(), english),
    };
    ApiError::new(ErrorCode::ValidationError, english).words(words)
}

/// The words of a reference that does not resolve; the English text is the error's `Display`.
pub fn check(e: &NodeCheckError) -> Words {
    match e {
        NodeCheckError::UnknownTool { tool, .. } => Words::new("error.msg.node_unknown_tool")
            .param("field", e.field())
            .param("tool", format!("{tool:?}")),
        NodeCheckError::UnknownParameter {
            tool, parameter, ..
        } => Words::new("error.msg.node_unknown_parameter")
            .param("field", e.field())
            .param("tool", format!("{tool:?}"))
            .param("parameter", format!("{parameter:?}")),
        NodeCheckError::UnknownVariable { variable, .. } => {
            Words::new("error.msg.node_unknown_variable")
                .param("field", e.field())
                .param("variable", format!("{{{{{variable}}}}}"))
        }
        other => Words::new("error.msg.detail").param("detail", other),
    }
}

pub fn run(e: NodeRunError) -> ApiError {
    let english = e.to_string();
    match e {
        NodeRunError::Store(e) => store(&e),
        NodeRunError::ToolRequired { node, count } => {
            ApiError::new(ErrorCode::ValidationError, english)
                .key("error.msg.node_tool_required")
                .param("node", format!("{node:?}"))
                .param("count", count)
        }
        NodeRunError::Call(e) => ApiError::from(e),
        other => ApiError::new(other.code(), english),
    }
}
