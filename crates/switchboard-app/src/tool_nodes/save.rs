//! What a tool node must pass before it is stored (seed 002 property 7 at save), and what an
//! assistant must pass so that its nodes keep working.
//!
//! Saving a node checks it against the server's *live* tool list: a mapping must name a
//! parameter the tool has, and each `{{variable}}` must be a built-in, declared by the node or,
//! for a node of an assistant, declared by that assistant. A typo then fails in the editor
//! with the field and the variable named, not in the middle of a workflow run. The rules are
//! `switchboard_core::check_node`'s; this module gathers what they need (the owner's server,
//! its tools, the assistant's variables) and keeps the routes and the CLI to one answer.
//!
//! The listing goes through the connection manager's pool and tool cache, so a save costs a
//! connection only the first time; a server that cannot list its tools refuses the save with
//! the error the servers routes answer (502/504), since nothing could be checked. A disabled
//! server is refused before anything is listed, as a call through it would be (404
//! `MCP_TOOL_NOT_FOUND`): saving must not start a server its owner turned off.

use switchboard_agent::ToolCallError;
use switchboard_core::tool_node::is_builtin;
use switchboard_core::{
    ErrorCode, NodeCheckError, OwnerId, SpecError, ToolInfo, ToolNode, VariableDecl, check_node,
};
use switchboard_mcp::{McpError, ServerPool};
use switchboard_store::{Store, StoreError};

/// Why a node (or an assistant's variables) cannot be saved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeSaveError {
    /// The server or the assistant is not the owner's, or the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The node breaks a rule of its own (an empty name, too many retries, a bad variable).
    #[error(transparent)]
    Invalid(#[from] SpecError),
    /// The server could not list its tools, so nothing could be checked.
    #[error(transparent)]
    Mcp(#[from] McpError),
    /// A mapping names a tool, parameter or variable that does not exist.
    #[error(transparent)]
    Check(#[from] NodeCheckError),
    /// The server is disabled: refused as a call through it would be.
    #[error(transparent)]
    Call(#[from] ToolCallError),
    /// The assistant's new variables leave out one that a node of it uses.
    #[error(
        "variables: tool node {node:?} uses {{{{{variable}}}}} in {field}, which the assistant \
         would no longer declare"
    )]
    VariableInUse {
        node: String,
        field: String,
        variable: String,
    },
}

impl NodeSaveError {
    /// The error code of the API's error shape.
    pub fn code(&self) -> ErrorCode {
        match self {
            NodeSaveError::Store(e) => e.code(),
            NodeSaveError::Mcp(e) => e.code(),
            NodeSaveError::Call(e) => e.code(),
            NodeSaveError::Invalid(_)
            | NodeSaveError::Check(_)
            | NodeSaveError::VariableInUse { .. } => ErrorCode::ValidationError,
        }
    }
}

/// Checks `node` of `owner` for saving: its own rules, then every reference against the
/// server's live tools and the variables of its assistant (which must be the owner's).
pub async fn check_for_save(
    store: &dyn Store,
    servers: &dyn ServerPool,
    owner: &OwnerId,
    node: &ToolNode,
) -> Result<(), NodeSaveError> {
    node.validate()?;
    let outer = super::assistant_variables(store, owner, node).await?;
    let spec = store.connection_spec(owner, &node.server_id).await?;
    if !spec.enabled {
        // What the tool-call service answers for a call to a disabled server; listing the
        // tools would start it.
        let tool = node
            .selected_tools
            .first()
            .map(|t| t.name.clone())
            .unwrap_or_default();
        return Err(ToolCallError::ToolNotFound {
            server: spec.name.clone(),
            tool,
        }
        .into());
    }
    let tools = servers.list_tools(owner, &spec).await?;
    Ok(check_node(node, &tools, &outer)?)
}

/// [`check_for_save`] once the tools and the assistant's variables are known (the CLI lists
/// the tools through its own manager).
pub fn check_against(
    node: &ToolNode,
    tools: &[ToolInfo],
    outer: &[VariableDecl],
) -> Result<(), NodeSaveError> {
    node.validate()?;
    check_node(node, tools, outer)?;
    Ok(())
}

/// Refuses `variables` as the new declarations of the owner's assistant `assistant_id` when
/// one of its nodes uses a variable that would then be neither built in, nor declared by the
/// node, nor by the assistant.
pub async fn check_assistant_variables(
    store: &dyn Store,
    owner: &OwnerId,
    assistant_id: &str,
    variables: &[VariableDecl],
) -> Result<(), NodeSaveError> {
    for stored in store.assistant_tool_nodes(owner, assistant_id).await? {
        let node = &stored.node;
        let known = |root: &str| {
            node.variables
                .iter()
                .chain(variables)
                .any(|decl| decl.name == root)
        };
        for (index, selected) in node.selected_tools.iter().enumerate() {
            for (parameter, mapping) in &selected.parameter_mappings {
                if let Some(path) = mapping
                    .references()
                    .find(|path| !is_builtin(path.as_str()) && !known(path.root()))
                {
                    return Err(NodeSaveError::VariableInUse {
                        node: node.name.clone(),
                        field: format!("selectedTools[{index}].parameterMappings.{parameter}"),
                        variable: path.as_str().to_owned(),
                    });
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;
    use switchboard_core::{Mapping, SelectedTool, ServerId, Template, VariableType};

    use super::*;

    fn decl(name: &str) -> VariableDecl {
        VariableDecl {
            name: name.into(),
            kind: VariableType::Any,
            default: None,
            description: None,
        }
    }

    fn tool() -> ToolInfo {
        serde_json::from_value(json!({
            "serverId": "s",
            "name": "get",
            "inputSchema": {"type": "object", "properties": {"owner": {"type": "string"}}}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn node(mapping: &str) -> ToolNode {
        let template = Template::parse(mapping).unwrap_or_else(|e| panic!("{e}"));
        ToolNode {
            name: "n".into(),
            server_id: ServerId("s".into()),
            selected_tools: vec![SelectedTool {
                name: "get".into(),
                enabled: true,
                parameter_mappings: BTreeMap::from([("owner".into(), Mapping::Template(template))]),
            }],
            retry_on_error: false,
            max_retries: 3,
            timeout: None,
            variables: Vec::new(),
            assistant_id: None,
        }
    }

    #[test]
    fn a_reference_is_known_from_built_ins_the_node_or_its_assistant() {
        assert!(check_against(&node("{{user.name}}"), &[tool()], &[]).is_ok());
        assert!(check_against(&node("{{team.lead}}"), &[tool()], &[decl("team")]).is_ok());
        let mut own = node("{{org}}");
        own.variables.push(decl("org"));
        assert!(check_against(&own, &[tool()], &[]).is_ok());
        let error = check_against(&node("{{org}}"), &[tool()], &[]).unwrap_err();
        assert!(matches!(error, NodeSaveError::Check(_)), "{error}");
        let text = error.to_string();
        assert!(
            text.contains("selectedTools[0].parameterMappings.owner"),
            "{text}"
        );
        assert!(text.contains("org"), "{text}");
    }
}
