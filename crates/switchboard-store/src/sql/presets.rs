//! `tool_presets` (seed 002's tool node configuration).

use std::time::Duration;

use switchboard_core::{ServerId, ToolNode};

use super::common::{from_json, to_i64, to_json, to_u32};
use crate::error::{Entity, StoreError};
use crate::model::{StoredPreset, Timestamp};

pub(crate) const COLUMNS: &str = "id, name, server_id, selected_tools, retry_on_error, \
     max_retries, timeout_ms, created_at, updated_at";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct PresetRow {
    pub id: String,
    pub name: String,
    pub server_id: String,
    pub selected_tools: String,
    pub retry_on_error: bool,
    pub max_retries: i64,
    pub timeout_ms: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl PresetRow {
    pub(crate) fn encode(
        id: String,
        preset: &ToolNode,
        created_at: Timestamp,
    ) -> Result<Self, StoreError> {
        let timeout_ms = preset
            .timeout
            .map(|t| i64::try_from(t.as_millis()))
            .transpose()
            .map_err(|_| StoreError::Invalid("timeoutMs is too long".into()))?;
        Ok(Self {
            id,
            name: preset.name.clone(),
            server_id: preset.server_id.0.clone(),
            selected_tools: to_json(&preset.selected_tools)?,
            retry_on_error: preset.retry_on_error,
            max_retries: to_i64(preset.max_retries),
            timeout_ms,
            created_at: created_at.0,
            updated_at: Timestamp::now().0,
        })
    }

    pub(crate) fn decode(self) -> Result<StoredPreset, StoreError> {
        let timeout = match self.timeout_ms {
            Some(ms) => Some(Duration::from_millis(u64::try_from(ms).map_err(|_| {
                StoreError::corrupt(Entity::Preset, &self.id, "negative timeout_ms")
            })?)),
            None => None,
        };
        let preset = ToolNode {
            name: self.name,
            server_id: ServerId(self.server_id),
            selected_tools: from_json(
                Entity::Preset,
                &self.id,
                "selected_tools",
                &self.selected_tools,
            )?,
            retry_on_error: self.retry_on_error,
            max_retries: to_u32(Entity::Preset, &self.id, "max_retries", self.max_retries)?,
            timeout,
            // Helper `nodes` adds the columns (migration 0007).
            variables: Vec::new(),
            assistant_id: None,
        };
        Ok(StoredPreset {
            id: self.id,
            preset,
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
        })
    }
}

macro_rules! impl_preset_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::{OwnerId, ToolNode};
            use $crate::error::{Entity, StoreError};
            use $crate::model::{StoredPreset, Timestamp, new_id};
            use $crate::sql::common::one_row;
            use $crate::sql::presets::{COLUMNS, PresetRow};

            impl $store {
                async fn check_preset_server(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    preset: &ToolNode,
                ) -> Result<(), StoreError> {
                    let found: Option<(String,)> =
                        sqlx::query_as("SELECT id FROM mcp_servers WHERE user_id = $1 AND id = $2")
                            .bind(&owner.0)
                            .bind(&preset.server_id.0)
                            .fetch_optional(&mut *conn)
                            .await?;
                    match found {
                        Some(_) => Ok(()),
                        None => Err(StoreError::not_found(Entity::Server, &preset.server_id.0)),
                    }
                }

                async fn preset_row<'e, E>(
                    executor: E,
                    owner: &OwnerId,
                    id: &str,
                    lock: &str,
                ) -> Result<PresetRow, StoreError>
                where
                    E: sqlx::Executor<'e, Database = $db>,
                {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM tool_presets WHERE user_id = $1 AND id = $2{lock}"
                    );
                    sqlx::query_as::<_, PresetRow>(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .fetch_optional(executor)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Preset, id))
                }
            }

            #[async_trait::async_trait]
            impl $crate::store::PresetStore for $store {
                async fn create_preset(
                    &self,
                    owner: &OwnerId,
                    preset: &ToolNode,
                ) -> Result<StoredPreset, StoreError> {
                    preset.validate()?;
                    crate::text::refuse_nul("the preset", preset)?;
                    let row = PresetRow::encode(new_id(), preset, Timestamp::now())?;
                    let mut tx = self.begin_write().await?;
                    Self::check_preset_server(&mut tx, owner, preset).await?;
                    sqlx::query(
                        "INSERT INTO tool_presets (id, user_id, name, server_id, selected_tools, \
                         retry_on_error, max_retries, timeout_ms, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    )
                    .bind(&row.id)
                    .bind(&owner.0)
                    .bind(&row.name)
                    .bind(&row.server_id)
                    .bind(&row.selected_tools)
                    .bind(row.retry_on_error)
                    .bind(row.max_retries)
                    .bind(row.timeout_ms)
                    .bind(row.created_at)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Preset, &row.name))?;
                    tx.commit().await?;
                    row.decode()
                }

                async fn preset(&self, owner: &OwnerId, id: &str) -> Result<StoredPreset, StoreError> {
                    Self::preset_row(&self.pool, owner, id, "").await?.decode()
                }

                async fn presets(&self, owner: &OwnerId) -> Result<Vec<StoredPreset>, StoreError> {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM tool_presets WHERE user_id = $1 ORDER BY created_at, id"
                    );
                    sqlx::query_as::<_, PresetRow>(&sql)
                        .bind(&owner.0)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(PresetRow::decode)
                        .collect()
                }

                async fn update_preset(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    preset: &ToolNode,
                ) -> Result<StoredPreset, StoreError> {
                    preset.validate()?;
                    crate::text::refuse_nul("the preset", preset)?;
                    let mut tx = self.begin_write().await?;
                    let old = Self::preset_row(&mut *tx, owner, id, Self::LOCK).await?;
                    Self::check_preset_server(&mut tx, owner, preset).await?;
                    let row = PresetRow::encode(old.id, preset, Timestamp(old.created_at))?;
                    let done = sqlx::query(
                        "UPDATE tool_presets SET name = $3, server_id = $4, selected_tools = $5, \
                         retry_on_error = $6, max_retries = $7, timeout_ms = $8, updated_at = $9 \
                         WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(&row.name)
                    .bind(&row.server_id)
                    .bind(&row.selected_tools)
                    .bind(row.retry_on_error)
                    .bind(row.max_retries)
                    .bind(row.timeout_ms)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Preset, &row.name))?;
                    one_row(done.rows_affected(), Entity::Preset, id)?;
                    tx.commit().await?;
                    row.decode()
                }

                async fn delete_preset(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError> {
                    let done = sqlx::query("DELETE FROM tool_presets WHERE user_id = $1 AND id = $2")
                        .bind(&owner.0)
                        .bind(id)
                        .execute(&self.pool)
                        .await?;
                    one_row(done.rows_affected(), Entity::Preset, id)
                }
            }
        };
    };
}
pub(crate) use impl_preset_store;
