//! `assistants` and `assistant_mcp_servers` (seed 001).

use std::collections::HashMap;

use switchboard_core::ServerId;

use super::common::{from_json, to_i64, to_json, to_u32};
use crate::error::{Entity, StoreError};
use crate::model::{Assistant, AssistantConfig, Timestamp, ToolExposure, ToolMode};

pub(crate) const COLUMNS: &str = "id, name, system_prompt, provider_id, model, tool_mode, max_rounds, variables, tool_exposure, \
     pinned_tools, created_at, updated_at";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AssistantRow {
    pub id: String,
    pub name: String,
    pub system_prompt: String,
    pub provider_id: Option<String>,
    pub model: Option<String>,
    pub tool_mode: String,
    pub max_rounds: i64,
    pub variables: String,
    pub tool_exposure: String,
    pub pinned_tools: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl AssistantRow {
    pub(crate) fn encode(
        id: String,
        config: &AssistantConfig,
        created_at: Timestamp,
    ) -> Result<Self, StoreError> {
        Ok(Self {
            id,
            name: config.name.clone(),
            system_prompt: config.system_prompt.clone(),
            provider_id: config.provider_id.clone(),
            model: config.model.clone(),
            tool_mode: config.tool_mode.as_str().to_owned(),
            max_rounds: to_i64(config.max_rounds),
            variables: to_json(&config.variables)?,
            tool_exposure: config.tool_exposure.as_str().to_owned(),
            pinned_tools: to_json(&config.pinned_tools)?,
            created_at: created_at.0,
            updated_at: Timestamp::now().0,
        })
    }

    pub(crate) fn decode(self, server_ids: Vec<ServerId>) -> Result<Assistant, StoreError> {
        let tool_mode = ToolMode::parse(&self.tool_mode).ok_or_else(|| {
            StoreError::corrupt(
                Entity::Assistant,
                &self.id,
                format!("unknown tool_mode {:?}", self.tool_mode),
            )
        })?;
        let max_rounds = to_u32(Entity::Assistant, &self.id, "max_rounds", self.max_rounds)?;
        let variables = from_json(Entity::Assistant, &self.id, "variables", &self.variables)?;
        let tool_exposure = ToolExposure::parse(&self.tool_exposure).ok_or_else(|| {
            StoreError::corrupt(
                Entity::Assistant,
                &self.id,
                format!("unknown tool_exposure {:?}", self.tool_exposure),
            )
        })?;
        let pinned_tools = from_json(
            Entity::Assistant,
            &self.id,
            "pinned_tools",
            &self.pinned_tools,
        )?;
        Ok(Assistant {
            id: self.id,
            config: AssistantConfig {
                name: self.name,
                system_prompt: self.system_prompt,
                provider_id: self.provider_id,
                model: self.model,
                tool_mode,
                max_rounds,
                variables,
                tool_exposure,
                pinned_tools,
            },
            server_ids,
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
        })
    }
}

/// `(assistant_id, server_id)` rows in position order, grouped by assistant.
pub(crate) fn group_links(links: Vec<(String, String)>) -> HashMap<String, Vec<ServerId>> {
    let mut grouped: HashMap<String, Vec<ServerId>> = HashMap::new();
    for (assistant, server) in links {
        grouped.entry(assistant).or_default().push(ServerId(server));
    }
    grouped
}

/// The servers in the order given, each once.
pub(crate) fn dedup(servers: &[ServerId]) -> Vec<&ServerId> {
    let mut seen = std::collections::HashSet::new();
    servers.iter().filter(|s| seen.insert(*s)).collect()
}

macro_rules! impl_assistant_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::{OwnerId, ServerId};
            use $crate::error::{Entity, StoreError};
            use $crate::model::{Assistant, AssistantConfig, Timestamp, new_id};
            use $crate::sql::assistants::{COLUMNS, AssistantRow, dedup, group_links};
            use $crate::sql::common::one_row;

            impl $store {
                async fn insert_new_assistant(
                    &self,
                    owner: &OwnerId,
                    config: &AssistantConfig,
                    max: Option<u32>,
                ) -> Result<Assistant, StoreError> {
                    config.validate()?;
                    let row = AssistantRow::encode(new_id(), config, Timestamp::now())?;
                    let mut tx = self.begin_write().await?;
                    Self::check_quota(&mut tx, owner, Entity::Assistant, max).await?;
                    Self::check_provider(&mut tx, owner, config).await?;
                    sqlx::query(
                        "INSERT INTO assistants (id, user_id, name, system_prompt, provider_id, \
                         model, tool_mode, max_rounds, variables, tool_exposure, pinned_tools, \
                         created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                    )
                    .bind(&row.id)
                    .bind(&owner.0)
                    .bind(&row.name)
                    .bind(&row.system_prompt)
                    .bind(&row.provider_id)
                    .bind(&row.model)
                    .bind(&row.tool_mode)
                    .bind(row.max_rounds)
                    .bind(&row.variables)
                    .bind(&row.tool_exposure)
                    .bind(&row.pinned_tools)
                    .bind(row.created_at)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Assistant, &row.name))?;
                    tx.commit().await?;
                    row.decode(Vec::new())
                }

                async fn check_provider(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    config: &AssistantConfig,
                ) -> Result<(), StoreError> {
                    let Some(provider) = &config.provider_id else {
                        return Ok(());
                    };
                    let found: Option<(String,)> =
                        sqlx::query_as("SELECT id FROM providers WHERE user_id = $1 AND id = $2")
                            .bind(&owner.0)
                            .bind(provider)
                            .fetch_optional(&mut *conn)
                            .await?;
                    match found {
                        Some(_) => Ok(()),
                        None => Err(StoreError::not_found(Entity::Provider, provider)),
                    }
                }

                async fn assistant_row<'e, E>(
                    executor: E,
                    owner: &OwnerId,
                    id: &str,
                    lock: &str,
                ) -> Result<AssistantRow, StoreError>
                where
                    E: sqlx::Executor<'e, Database = $db>,
                {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM assistants WHERE user_id = $1 AND id = $2{lock}"
                    );
                    sqlx::query_as::<_, AssistantRow>(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .fetch_optional(executor)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Assistant, id))
                }

                async fn assistant_servers<'e, E>(
                    executor: E,
                    id: &str,
                ) -> Result<Vec<ServerId>, StoreError>
                where
                    E: sqlx::Executor<'e, Database = $db>,
                {
                    let rows: Vec<(String,)> = sqlx::query_as(
                        "SELECT server_id FROM assistant_mcp_servers WHERE assistant_id = $1 \
                         ORDER BY position",
                    )
                    .bind(id)
                    .fetch_all(executor)
                    .await?;
                    Ok(rows.into_iter().map(|(s,)| ServerId(s)).collect())
                }
            }

            #[async_trait::async_trait]
            impl $crate::store::AssistantStore for $store {
                async fn create_assistant(
                    &self,
                    owner: &OwnerId,
                    config: &AssistantConfig,
                ) -> Result<Assistant, StoreError> {
                    self.insert_new_assistant(owner, config, None).await
                }

                async fn create_assistant_within(
                    &self,
                    owner: &OwnerId,
                    config: &AssistantConfig,
                    max: u32,
                ) -> Result<Assistant, StoreError> {
                    self.insert_new_assistant(owner, config, Some(max)).await
                }

                async fn assistant(&self, owner: &OwnerId, id: &str) -> Result<Assistant, StoreError> {
                    let row = Self::assistant_row(&self.pool, owner, id, "").await?;
                    let servers = Self::assistant_servers(&self.pool, id).await?;
                    row.decode(servers)
                }

                async fn assistants(&self, owner: &OwnerId) -> Result<Vec<Assistant>, StoreError> {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM assistants WHERE user_id = $1 ORDER BY created_at, id"
                    );
                    let rows = sqlx::query_as::<_, AssistantRow>(&sql)
                        .bind(&owner.0)
                        .fetch_all(&self.pool)
                        .await?;
                    let links: Vec<(String, String)> = sqlx::query_as(
                        "SELECT assistant_id, server_id FROM assistant_mcp_servers \
                         WHERE user_id = $1 ORDER BY assistant_id, position",
                    )
                    .bind(&owner.0)
                    .fetch_all(&self.pool)
                    .await?;
                    let mut links = group_links(links);
                    rows.into_iter()
                        .map(|row| {
                            let servers = links.remove(&row.id).unwrap_or_default();
                            row.decode(servers)
                        })
                        .collect()
                }

                async fn update_assistant(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    config: &AssistantConfig,
                ) -> Result<Assistant, StoreError> {
                    config.validate()?;
                    let mut tx = self.begin_write().await?;
                    let old = Self::assistant_row(&mut *tx, owner, id, Self::LOCK).await?;
                    Self::check_provider(&mut tx, owner, config).await?;
                    let row = AssistantRow::encode(old.id, config, Timestamp(old.created_at))?;
                    let done = sqlx::query(
                        "UPDATE assistants SET name = $3, system_prompt = $4, provider_id = $5, \
                         model = $6, tool_mode = $7, max_rounds = $8, variables = $9, \
                         tool_exposure = $10, pinned_tools = $11, updated_at = $12 \
                         WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(&row.name)
                    .bind(&row.system_prompt)
                    .bind(&row.provider_id)
                    .bind(&row.model)
                    .bind(&row.tool_mode)
                    .bind(row.max_rounds)
                    .bind(&row.variables)
                    .bind(&row.tool_exposure)
                    .bind(&row.pinned_tools)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Assistant, &row.name))?;
                    one_row(done.rows_affected(), Entity::Assistant, id)?;
                    let servers = Self::assistant_servers(&mut *tx, id).await?;
                    tx.commit().await?;
                    row.decode(servers)
                }

                async fn delete_assistant(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError> {
                    let done = sqlx::query("DELETE FROM assistants WHERE user_id = $1 AND id = $2")
                        .bind(&owner.0)
                        .bind(id)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    one_row(done.rows_affected(), Entity::Assistant, id)
                }

                async fn set_assistant_servers(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    servers: &[ServerId],
                ) -> Result<Assistant, StoreError> {
                    let mut tx = self.begin_write().await?;
                    let row = Self::assistant_row(&mut *tx, owner, id, Self::LOCK).await?;
                    sqlx::query("DELETE FROM assistant_mcp_servers WHERE assistant_id = $1")
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                    let servers = dedup(servers);
                    for (position, server) in servers.iter().enumerate() {
                        let found: Option<(String,)> = sqlx::query_as(
                            "SELECT id FROM mcp_servers WHERE user_id = $1 AND id = $2",
                        )
                        .bind(&owner.0)
                        .bind(&server.0)
                        .fetch_optional(&mut *tx)
                        .await?;
                        if found.is_none() {
                            return Err(StoreError::not_found(Entity::Server, &server.0));
                        }
                        sqlx::query(
                            "INSERT INTO assistant_mcp_servers (assistant_id, user_id, server_id, \
                             position) VALUES ($1, $2, $3, $4)",
                        )
                        .bind(id)
                        .bind(&owner.0)
                        .bind(&server.0)
                        .bind(i64::try_from(position).unwrap_or(i64::MAX))
                        .execute(&mut *tx)
                        .await?;
                    }
                    let mut row = row;
                    row.updated_at = Timestamp::now().0;
                    sqlx::query("UPDATE assistants SET updated_at = $2 WHERE id = $1")
                        .bind(id)
                        .bind(row.updated_at)
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    row.decode(servers.into_iter().cloned().collect())
                }
            }
        };
    };
}
pub(crate) use impl_assistant_store;
