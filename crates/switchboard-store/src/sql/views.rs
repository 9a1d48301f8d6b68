//! `mcp_views`: the gateway's views, migration 0010.
//!
//! The view's JSON ([`ViewSpec`]) is kept whole in `spec`, with its name also in a column of
//! its own for the per-owner unique key and the lookup by name (`/mcp/v/{name}`); the column
//! is the one read back. The servers a view names and the assistant it follows must be the
//! owner's, checked in the writing transaction; they are not foreign keys (a list inside the
//! JSON), so deleting a server leaves the view, which then offers nothing of it.

use switchboard_core::ViewSpec;

use super::common::{from_json, to_json};
use crate::error::{Entity, StoreError};
use crate::model::{StoredView, Timestamp};
use switchboard_core::OwnerId;

pub(crate) const COLUMNS: &str = "id, user_id, name, spec, created_at, updated_at";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ViewRow {
    pub id: String,
    pub user_id: String,
    pub name: String,
    pub spec: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl ViewRow {
    pub(crate) fn encode(
        id: String,
        owner: &OwnerId,
        spec: &ViewSpec,
        created_at: Timestamp,
    ) -> Result<Self, StoreError> {
        Ok(Self {
            id,
            user_id: owner.0.clone(),
            name: spec.name.clone(),
            spec: to_json(spec)?,
            created_at: created_at.0,
            updated_at: Timestamp::now().0,
        })
    }

    pub(crate) fn decode(self) -> Result<StoredView, StoreError> {
        let mut spec: ViewSpec = from_json(Entity::View, &self.id, "spec", &self.spec)?;
        spec.name = self.name;
        Ok(StoredView {
            id: self.id,
            owner: OwnerId(self.user_id),
            spec,
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
        })
    }
}

/// The checks every write makes before it touches the database.
pub(crate) fn check(spec: &ViewSpec) -> Result<(), StoreError> {
    spec.validate()?;
    crate::text::refuse_nul("the view", spec)
}

macro_rules! impl_view_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::{OwnerId, ViewSpec};
            use $crate::error::{Entity, StoreError};
            use $crate::model::{StoredView, Timestamp, new_id};
            use $crate::sql::common::one_row;
            use $crate::sql::views::{COLUMNS, ViewRow};

            impl $store {
                /// Every server the view names (pinned ones too), and the assistant it
                /// follows, must be the owner's.
                async fn check_view_links(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    spec: &ViewSpec,
                ) -> Result<(), StoreError> {
                    for server in &spec.servers {
                        Self::require_owned(conn, owner, Entity::Server, &server.server_id.0)
                            .await?;
                    }
                    if let Some(assistant) = &spec.assistant_id {
                        Self::require_owned(conn, owner, Entity::Assistant, assistant).await?;
                    }
                    for pin in &spec.pinned_tools {
                        Self::require_owned(conn, owner, Entity::Server, &pin.server_id.0).await?;
                    }
                    Ok(())
                }

                async fn view_row<'e, E>(
                    executor: E,
                    owner: &OwnerId,
                    column: &str,
                    value: &str,
                    lock: &str,
                ) -> Result<ViewRow, StoreError>
                where
                    E: sqlx::Executor<'e, Database = $db>,
                {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM mcp_views WHERE user_id = $1 AND {column} = $2{lock}"
                    );
                    sqlx::query_as::<_, ViewRow>(&sql)
                        .bind(&owner.0)
                        .bind(value)
                        .fetch_optional(executor)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::View, value))
                }

                async fn insert_view(
                    &self,
                    owner: &OwnerId,
                    spec: &ViewSpec,
                    max: Option<u32>,
                ) -> Result<StoredView, StoreError> {
                    $crate::sql::views::check(spec)?;
                    let row = ViewRow::encode(new_id(), owner, spec, Timestamp::now())?;
                    let mut tx = self.begin_write().await?;
                    Self::check_quota(&mut tx, owner, Entity::View, max).await?;
                    Self::check_view_links(&mut tx, owner, spec).await?;
                    sqlx::query(
                        "INSERT INTO mcp_views (id, user_id, name, spec, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6)",
                    )
                    .bind(&row.id)
                    .bind(&row.user_id)
                    .bind(&row.name)
                    .bind(&row.spec)
                    .bind(row.created_at)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::View, &row.name))?;
                    tx.commit().await?;
                    row.decode()
                }
            }

            #[async_trait::async_trait]
            impl $crate::store::ViewStore for $store {
                async fn create_view(
                    &self,
                    owner: &OwnerId,
                    spec: &ViewSpec,
                ) -> Result<StoredView, StoreError> {
                    self.insert_view(owner, spec, None).await
                }

                async fn create_view_within(
                    &self,
                    owner: &OwnerId,
                    spec: &ViewSpec,
                    max: u32,
                ) -> Result<StoredView, StoreError> {
                    self.insert_view(owner, spec, Some(max)).await
                }

                async fn view(&self, owner: &OwnerId, id: &str) -> Result<StoredView, StoreError> {
                    Self::view_row(&self.pool, owner, "id", id, "")
                        .await?
                        .decode()
                }

                async fn view_by_name(
                    &self,
                    owner: &OwnerId,
                    name: &str,
                ) -> Result<StoredView, StoreError> {
                    Self::view_row(&self.pool, owner, "name", name, "")
                        .await?
                        .decode()
                }

                async fn views(&self, owner: &OwnerId) -> Result<Vec<StoredView>, StoreError> {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM mcp_views WHERE user_id = $1 ORDER BY created_at, id"
                    );
                    sqlx::query_as::<_, ViewRow>(&sql)
                        .bind(&owner.0)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(ViewRow::decode)
                        .collect()
                }

                async fn update_view(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    spec: &ViewSpec,
                ) -> Result<StoredView, StoreError> {
                    $crate::sql::views::check(spec)?;
                    let mut tx = self.begin_write().await?;
                    let old = Self::view_row(&mut *tx, owner, "id", id, Self::LOCK).await?;
                    Self::check_view_links(&mut tx, owner, spec).await?;
                    let row = ViewRow::encode(old.id, owner, spec, Timestamp(old.created_at))?;
                    let done = sqlx::query(
                        "UPDATE mcp_views SET name = $3, spec = $4, updated_at = $5 \
                         WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(&row.name)
                    .bind(&row.spec)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::View, &row.name))?;
                    one_row(done.rows_affected(), Entity::View, id)?;
                    tx.commit().await?;
                    // A renamed view renames what its tokens open.
                    self.cache.changed();
                    row.decode()
                }

                async fn delete_view(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError> {
                    // The foreign key deletes the tokens limited to the view in the same
                    // statement.
                    let done = sqlx::query("DELETE FROM mcp_views WHERE user_id = $1 AND id = $2")
                        .bind(&owner.0)
                        .bind(id)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    self.cache.changed();
                    one_row(done.rows_affected(), Entity::View, id)
                }
            }
        };
    };
}

pub(crate) use impl_view_store;
