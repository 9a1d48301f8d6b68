//! Per-owner quotas on stored rows (servers, providers, assistants, tool nodes), checked inside the write
//! transaction that inserts the row: the owner's `users` row is locked first (`FOR UPDATE` on
//! Postgres; SQLite's `BEGIN IMMEDIATE` already serialises writers), then the rows are
//! counted. Two creations at once, from one process or two replicas, queue on that lock, so
//! the second sees the first's row and neither can pass the quota by racing the count.

/// The tables of owned rows, by entity (what a quota counts, and what [`require_owned`]
/// looks in): a fixed list, since the name goes into SQL text.
///
/// [`require_owned`]: impl_quota
pub(crate) fn table(entity: crate::error::Entity) -> Option<&'static str> {
    use crate::error::Entity;
    match entity {
        Entity::Server => Some("mcp_servers"),
        Entity::Provider => Some("providers"),
        Entity::Assistant => Some("assistants"),
        Entity::ToolNode => Some("tool_presets"),
        Entity::View => Some("mcp_views"),
        Entity::Conversation => Some("conversations"),
        _ => None,
    }
}

macro_rules! impl_quota {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::OwnerId;
            use $crate::error::{Entity, StoreError};

            impl $store {
                /// Refuses one more `entity` of `owner` when they have `max` already; call it
                /// in the transaction that inserts the row. `None`: no quota.
                pub(crate) async fn check_quota(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    entity: Entity,
                    max: Option<u32>,
                ) -> Result<(), StoreError> {
                    let Some(max) = max else {
                        return Ok(());
                    };
                    let Some(table) = $crate::sql::quota::table(entity) else {
                        return Ok(());
                    };
                    let lock = format!("SELECT id FROM users WHERE id = $1{}", Self::LOCK);
                    sqlx::query(&lock)
                        .bind(&owner.0)
                        .fetch_optional(&mut *conn)
                        .await?;
                    let count = format!("SELECT COUNT(*) FROM {table} WHERE user_id = $1");
                    let (count,): (i64,) = sqlx::query_as(&count)
                        .bind(&owner.0)
                        .fetch_one(&mut *conn)
                        .await?;
                    if count >= i64::from(max) {
                        return Err(StoreError::QuotaExceeded { entity, limit: max });
                    }
                    Ok(())
                }

                /// Refuses a link to `entity` `id` unless it is a row of `owner`'s
                /// (`NotFound` otherwise, as for a row that does not exist).
                pub(crate) async fn require_owned(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    entity: Entity,
                    id: &str,
                ) -> Result<(), StoreError> {
                    let Some(table) = $crate::sql::quota::table(entity) else {
                        return Err(StoreError::not_found(entity, id));
                    };
                    let sql = format!("SELECT id FROM {table} WHERE user_id = $1 AND id = $2");
                    let found: Option<(String,)> = sqlx::query_as(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .fetch_optional(&mut *conn)
                        .await?;
                    match found {
                        Some(_) => Ok(()),
                        None => Err(StoreError::not_found(entity, id)),
                    }
                }
            }
        };
    };
}
pub(crate) use impl_quota;
