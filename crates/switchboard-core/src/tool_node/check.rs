//! Seed 002 property 7 at save time: every mapping of a node names a parameter its tool has,
//! and every `{{variable}}` it uses is one the run will know about.
//!
//! A variable is known when it is a built-in, or when its root (`user` in `{{user.email}}`) is
//! declared by the node or, for a node of an assistant, by the assistant. Checking at save
//! means a typo fails in the editor, not in the middle of a workflow run.

use thiserror::Error;

use super::variables::is_builtin;
use super::{ToolNode, VariableDecl};
use crate::tool::ToolInfo;

/// The first reference of a node that cannot work. Each variant names the tool, the field at
/// fault as it is written in the node's JSON ([`NodeCheckError::field`]) and, where one is
/// involved, the variable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NodeCheckError {
    /// The server has no tool of this name.
    #[error("selectedTools[{index}].name: the server has no tool {tool:?}")]
    UnknownTool { index: usize, tool: String },
    /// The tool's schema has no parameter of this name.
    #[error(
        "selectedTools[{index}].parameterMappings.{parameter}: tool {tool:?} has no parameter \
         {parameter:?}"
    )]
    UnknownParameter {
        index: usize,
        tool: String,
        parameter: String,
    },
    /// A reference to a variable that is neither built in nor declared.
    #[error(
        "selectedTools[{index}].parameterMappings.{parameter}: {{{{{variable}}}}} is not a \
         built-in variable nor one that is declared"
    )]
    UnknownVariable {
        index: usize,
        tool: String,
        parameter: String,
        variable: String,
    },
}

impl NodeCheckError {
    /// The field at fault: `selectedTools[i].name` or `selectedTools[i].parameterMappings.P`.
    pub fn field(&self) -> String {
        match self {
            NodeCheckError::UnknownTool { index, .. } => format!("selectedTools[{index}].name"),
            NodeCheckError::UnknownParameter {
                index, parameter, ..
            }
            | NodeCheckError::UnknownVariable {
                index, parameter, ..
            } => format!("selectedTools[{index}].parameterMappings.{parameter}"),
        }
    }

    /// The tool the error is about.
    pub fn tool(&self) -> &str {
        match self {
            NodeCheckError::UnknownTool { tool, .. }
            | NodeCheckError::UnknownParameter { tool, .. }
            | NodeCheckError::UnknownVariable { tool, .. } => tool,
        }
    }

    /// The variable the error is about, when it is about one.
    pub fn variable(&self) -> Option<&str> {
        match self {
            NodeCheckError::UnknownVariable { variable, .. } => Some(variable),
            _ => None,
        }
    }
}

/// Checks every selected tool (enabled or not) against `tools`, the server's live list, and
/// every reference against the built-ins, `node.variables` and `outer` (the variables of the
/// assistant the node belongs to; empty for a standalone node). The first problem, in field
/// order, is the error.
pub fn check_node(
    node: &ToolNode,
    tools: &[ToolInfo],
    outer: &[VariableDecl],
) -> Result<(), NodeCheckError> {
    let declared = |root: &str| {
        node.variables
            .iter()
            .chain(outer)
            .any(|decl| decl.name == root)
    };
    for (index, selected) in node.selected_tools.iter().enumerate() {
        let Some(tool) = tools.iter().find(|t| t.name == selected.name) else {
            return Err(NodeCheckError::UnknownTool {
                index,
                tool: selected.name.clone(),
            });
        };
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object());
        for (parameter, mapping) in &selected.parameter_mappings {
            if !properties.is_some_and(|p| p.contains_key(parameter)) {
                return Err(NodeCheckError::UnknownParameter {
                    index,
                    tool: selected.name.clone(),
                    parameter: parameter.clone(),
                });
            }
            if let Some(unknown) = mapping
                .references()
                .find(|path| !is_builtin(path.as_str()) && !declared(path.root()))
            {
                return Err(NodeCheckError::UnknownVariable {
                    index,
                    tool: selected.name.clone(),
                    parameter: parameter.clone(),
                    variable: unknown.to_string(),
                });
            }
        }
    }
    Ok(())
}
