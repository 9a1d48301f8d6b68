//! Tool nodes (seed 002 `MCPToolNodeConfig`), kept in the table `tool_presets`: the rows
//! are what were called presets, with the variables a node declares and, for a node of an
//! assistant, that assistant (migration 0007).
//!
//! A node belongs to one server and at most one assistant of the same owner; both are checked
//! in the writing transaction (another owner's server or assistant is not found), and the
//! foreign keys delete the node with either.

use std::time::Duration;

use switchboard_core::{ServerId, ToolNode};

use super::common::{from_json, to_i64, to_json, to_u32};
use crate::error::{Entity, StoreError};
use crate::invalid::Invalid;
use crate::model::{StoredToolNode, Timestamp};

pub(crate) const COLUMNS: &str = "id, name, server_id, selected_tools, retry_on_error, \
     max_retries, timeout_ms, variables, assistant_id, created_at, updated_at";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ToolNodeRow {
    pub id: String,
    pub name: String,
    pub server_id: String,
    pub selected_tools: String,
    pub retry_on_error: bool,
    pub max_retries: i64,
    pub timeout_ms: Option<i64>,
    pub variables: String,
    pub assistant_id: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl ToolNodeRow {
    pub(crate) fn encode(
        id: String,
        node: &ToolNode,
        created_at: Timestamp,
    ) -> Result<Self, StoreError> {
        let timeout_ms = node
            .timeout
            .map(|t| i64::try_from(t.as_millis()))
            .transpose()
            .map_err(|_| Invalid::TooLong { field: "timeoutMs" })?;
        Ok(Self {
            id,
            name: node.name.clone(),
            server_id: node.server_id.0.clone(),
            selected_tools: to_json(&node.selected_tools)?,
            retry_on_error: node.retry_on_error,
            max_retries: to_i64(node.max_retries),
            timeout_ms,
            variables: to_json(&node.variables)?,
            assistant_id: node.assistant_id.clone(),
            created_at: created_at.0,
            updated_at: Timestamp::now().0,
        })
    }

    pub(crate) fn decode(self) -> Result<StoredToolNode, StoreError> {
        let entity = Entity::ToolNode;
        let timeout = match self.timeout_ms {
            Some(ms) => Some(Duration::from_millis(u64::try_from(ms).map_err(|_| {
                StoreError::corrupt(entity, &self.id, "negative timeout_ms")
            })?)),
            None => None,
        };
        let node = ToolNode {
            name: self.name,
            server_id: ServerId(self.server_id),
            selected_tools: from_json(entity, &self.id, "selected_tools", &self.selected_tools)?,
            retry_on_error: self.retry_on_error,
            max_retries: to_u32(entity, &self.id, "max_retries", self.max_retries)?,
            timeout,
            variables: from_json(entity, &self.id, "variables", &self.variables)?,
            assistant_id: self.assistant_id,
        };
        Ok(StoredToolNode {
            id: self.id,
            node,
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
        })
    }
}

/// The checks every write makes before it touches the database.
pub(crate) fn check(node: &ToolNode) -> Result<(), StoreError> {
    node.validate()?;
    crate::text::refuse_nul("the tool node", node)
}

macro_rules! impl_tool_node_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::{OwnerId, ToolNode};
            use $crate::error::{Entity, StoreError};
            use $crate::model::{StoredToolNode, Timestamp, new_id};
            use $crate::sql::common::one_row;
            use $crate::sql::tool_nodes::{COLUMNS, ToolNodeRow};

            impl $store {
                /// The node's server, and its assistant if it names one, must be the owner's.
                async fn check_node_links(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    node: &ToolNode,
                ) -> Result<(), StoreError> {
                    Self::require_owned(conn, owner, Entity::Server, &node.server_id.0).await?;
                    if let Some(assistant) = &node.assistant_id {
                        Self::require_owned(conn, owner, Entity::Assistant, assistant).await?;
                    }
                    Ok(())
                }

                async fn tool_node_row<'e, E>(
                    executor: E,
                    owner: &OwnerId,
                    id: &str,
                    lock: &str,
                ) -> Result<ToolNodeRow, StoreError>
                where
                    E: sqlx::Executor<'e, Database = $db>,
                {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM tool_presets WHERE user_id = $1 AND id = $2{lock}"
                    );
                    sqlx::query_as::<_, ToolNodeRow>(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .fetch_optional(executor)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::ToolNode, id))
                }

                async fn insert_tool_node(
                    &self,
                    owner: &OwnerId,
                    node: &ToolNode,
                    max: Option<u32>,
                ) -> Result<StoredToolNode, StoreError> {
                    $crate::sql::tool_nodes::check(node)?;
                    let row = ToolNodeRow::encode(new_id(), node, Timestamp::now())?;
                    let mut tx = self.begin_write().await?;
                    Self::check_quota(&mut tx, owner, Entity::ToolNode, max).await?;
                    Self::check_node_links(&mut tx, owner, node).await?;
                    sqlx::query(
                        "INSERT INTO tool_presets (id, user_id, name, server_id, selected_tools, \
                         retry_on_error, max_retries, timeout_ms, variables, assistant_id, \
                         created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                    )
                    .bind(&row.id)
                    .bind(&owner.0)
                    .bind(&row.name)
                    .bind(&row.server_id)
                    .bind(&row.selected_tools)
                    .bind(row.retry_on_error)
                    .bind(row.max_retries)
                    .bind(row.timeout_ms)
                    .bind(&row.variables)
                    .bind(&row.assistant_id)
                    .bind(row.created_at)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::ToolNode, &row.name))?;
                    tx.commit().await?;
                    row.decode()
                }

                async fn select_tool_nodes(
                    &self,
                    owner: &OwnerId,
                    assistant: Option<&str>,
                ) -> Result<Vec<StoredToolNode>, StoreError> {
                    let filter = if assistant.is_some() { " AND assistant_id = $2" } else { "" };
                    let sql = format!(
                        "SELECT {COLUMNS} FROM tool_presets WHERE user_id = $1{filter} \
                         ORDER BY created_at, id"
                    );
                    let mut query = sqlx::query_as::<_, ToolNodeRow>(&sql).bind(&owner.0);
                    if let Some(assistant) = assistant {
                        query = query.bind(assistant);
                    }
                    query
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(ToolNodeRow::decode)
                        .collect()
                }
            }

            #[async_trait::async_trait]
            impl $crate::store::ToolNodeStore for $store {
                async fn create_tool_node(
                    &self,
                    owner: &OwnerId,
                    node: &ToolNode,
                ) -> Result<StoredToolNode, StoreError> {
                    self.insert_tool_node(owner, node, None).await
                }

                async fn create_tool_node_within(
                    &self,
                    owner: &OwnerId,
                    node: &ToolNode,
                    max: u32,
                ) -> Result<StoredToolNode, StoreError> {
                    self.insert_tool_node(owner, node, Some(max)).await
                }

                async fn tool_node(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                ) -> Result<StoredToolNode, StoreError> {
                    Self::tool_node_row(&self.pool, owner, id, "").await?.decode()
                }

                async fn tool_nodes(
                    &self,
                    owner: &OwnerId,
                ) -> Result<Vec<StoredToolNode>, StoreError> {
                    self.select_tool_nodes(owner, None).await
                }

                async fn assistant_tool_nodes(
                    &self,
                    owner: &OwnerId,
                    assistant_id: &str,
                ) -> Result<Vec<StoredToolNode>, StoreError> {
                    // The assistant must be the owner's: another's answers "not found", not an
                    // empty list that would confirm nothing but still differ from a missing one.
                    let found: Option<(String,)> =
                        sqlx::query_as("SELECT id FROM assistants WHERE user_id = $1 AND id = $2")
                            .bind(&owner.0)
                            .bind(assistant_id)
                            .fetch_optional(&self.pool)
                            .await?;
                    if found.is_none() {
                        return Err(StoreError::not_found(Entity::Assistant, assistant_id));
                    }
                    self.select_tool_nodes(owner, Some(assistant_id)).await
                }

                async fn update_tool_node(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    node: &ToolNode,
                ) -> Result<StoredToolNode, StoreError> {
                    $crate::sql::tool_nodes::check(node)?;
                    let mut tx = self.begin_write().await?;
                    let old = Self::tool_node_row(&mut *tx, owner, id, Self::LOCK).await?;
                    Self::check_node_links(&mut tx, owner, node).await?;
                    let row = ToolNodeRow::encode(old.id, node, Timestamp(old.created_at))?;
                    let done = sqlx::query(
                        "UPDATE tool_presets SET name = $3, server_id = $4, selected_tools = $5, \
                         retry_on_error = $6, max_retries = $7, timeout_ms = $8, variables = $9, \
                         assistant_id = $10, updated_at = $11 WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(&row.name)
                    .bind(&row.server_id)
                    .bind(&row.selected_tools)
                    .bind(row.retry_on_error)
                    .bind(row.max_retries)
                    .bind(row.timeout_ms)
                    .bind(&row.variables)
                    .bind(&row.assistant_id)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::ToolNode, &row.name))?;
                    one_row(done.rows_affected(), Entity::ToolNode, id)?;
                    tx.commit().await?;
                    row.decode()
                }

                async fn delete_tool_node(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError> {
                    let done = sqlx::query("DELETE FROM tool_presets WHERE user_id = $1 AND id = $2")
                        .bind(&owner.0)
                        .bind(id)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    one_row(done.rows_affected(), Entity::ToolNode, id)
                }
            }
        };
    };
}
pub(crate) use impl_tool_node_store;
