//! Tool nodes below the routes: what a node must pass to be stored ([`save`]), and running one
//! for a workflow engine ([`run`]). The REST routes and `switchboard tool-nodes` both use
//! these, so a node saved or run from either gets the same checks and the same answer.

pub mod run;
pub mod save;
mod service;

/// The variables `node`'s assistant declares (none for a node of no assistant), which its
/// mappings may use beside the node's own; the assistant must be `owner`'s.
pub async fn assistant_variables(
    store: &dyn switchboard_store::Store,
    owner: &switchboard_core::OwnerId,
    node: &switchboard_core::ToolNode,
) -> Result<Vec<switchboard_core::VariableDecl>, switchboard_store::StoreError> {
    Ok(match &node.assistant_id {
        Some(id) => store.assistant(owner, id).await?.config.variables,
        None => Vec::new(),
    })
}

pub use run::{NodeRun, NodeRunError, ToolCallResult, run_node, start_node_task, task_result};
pub use save::{NodeSaveError, check_against, check_assistant_variables, check_for_save};
pub use service::ToolNodes;
