//! Saving a person's tool nodes: checked against the server's live tools and the declared
//! variables ([`super::check_for_save`]) and, for a new one, within the tool-node quota.
//! The REST routes and `switchboard tool-nodes add` save here.

use std::sync::Arc;

use switchboard_core::{OwnerId, ToolNode};
use switchboard_mcp::ServerPool;
use switchboard_store::{Store, StoredToolNode};

use super::check_for_save;
use crate::error::AppError;

/// The tool-node use cases.
pub struct ToolNodes {
    store: Arc<dyn Store>,
    pool: Arc<dyn ServerPool>,
    max_tool_nodes: u32,
}

impl ToolNodes {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        pool: Arc<dyn ServerPool>,
        max_tool_nodes: u32,
    ) -> Self {
        Self {
            store,
            pool,
            max_tool_nodes,
        }
    }

    /// Creates `node` for `owner` once it passes the checks, within their quota.
    pub async fn create(
        &self,
        owner: &OwnerId,
        node: &ToolNode,
    ) -> Result<StoredToolNode, AppError> {
        check_for_save(self.store.as_ref(), self.pool.as_ref(), owner, node).await?;
        Ok(self
            .store
            .create_tool_node_within(owner, node, self.max_tool_nodes)
            .await?)
    }

    /// Replaces `owner`'s node `id` with `node` once it passes the same checks (another
    /// person's node is not found before its server is listed).
    pub async fn replace(
        &self,
        owner: &OwnerId,
        id: &str,
        node: &ToolNode,
    ) -> Result<StoredToolNode, AppError> {
        self.store.tool_node(owner, id).await?;
        check_for_save(self.store.as_ref(), self.pool.as_ref(), owner, node).await?;
        Ok(self.store.update_tool_node(owner, id, node).await?)
    }
}
