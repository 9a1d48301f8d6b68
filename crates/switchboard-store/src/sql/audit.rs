//! `tool_call_audit`: one row per tool call, appended in batches and pruned per owner.

use switchboard_core::ServerId;

use super::common::to_u32;
use crate::error::{Entity, StoreError};
use crate::model::{AuditOutcome, AuditRecord, CallerKind, Timestamp};

pub(crate) const COLUMNS: &str =
    "id, at, caller, server_id, tool, node_id, outcome, attempts, duration_ms";

/// Inserts one record unless its owner is gone (the writer runs after the call, and the user
/// may have been deleted in between; one such record must not fail its whole batch).
pub(crate) const INSERT: &str = "INSERT INTO tool_call_audit \
     (user_id, at, caller, server_id, tool, node_id, outcome, attempts, duration_ms) \
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 WHERE EXISTS (SELECT 1 FROM users WHERE id = $1)";

/// Deletes the owner's (`$1`) records older than the newest `$2`.
pub(crate) const PRUNE: &str = "DELETE FROM tool_call_audit WHERE user_id = $1 AND id <= \
     (SELECT id FROM tool_call_audit WHERE user_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)";

/// `text` without NUL characters, which stored text cannot hold (`crate::text`). A record is
/// not refused for one (a server may name a tool so): the character is replaced, since one
/// bad name must not lose the batch it was written with.
pub(crate) fn storable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\0') {
        std::borrow::Cow::Owned(text.replace('\0', "\u{fffd}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AuditRow {
    pub id: i64,
    pub at: i64,
    pub caller: String,
    pub server_id: String,
    pub tool: String,
    pub node_id: Option<String>,
    pub outcome: String,
    pub attempts: i64,
    pub duration_ms: i64,
}

impl AuditRow {
    pub(crate) fn decode(self) -> Result<AuditRecord, StoreError> {
        let id = self.id.to_string();
        let corrupt = |what: &str| StoreError::corrupt(Entity::AuditRecord, &id, what);
        Ok(AuditRecord {
            id: self.id,
            at: Timestamp(self.at),
            caller: CallerKind::parse(&self.caller)
                .ok_or_else(|| corrupt(&format!("unknown caller {:?}", self.caller)))?,
            server_id: ServerId(self.server_id),
            tool: self.tool,
            node_id: self.node_id,
            outcome: AuditOutcome::parse(&self.outcome)
                .ok_or_else(|| corrupt(&format!("unknown outcome {:?}", self.outcome)))?,
            attempts: to_u32(Entity::AuditRecord, &id, "attempts", self.attempts)?,
            duration_ms: u64::try_from(self.duration_ms)
                .map_err(|_| corrupt("negative duration_ms"))?,
        })
    }
}

macro_rules! impl_audit_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::OwnerId;
            use $crate::error::StoreError;
            use $crate::model::{AuditRecord, NewAuditRecord};
            use $crate::sql::audit::{AuditRow, COLUMNS, INSERT, PRUNE, storable};

            impl $store {
                fn insert_audit(
                    record: &NewAuditRecord,
                ) -> sqlx::query::Query<'static, $db, <$db as sqlx::Database>::Arguments<'static>>
                {
                    sqlx::query(INSERT)
                        .bind(record.owner.0.clone())
                        .bind(record.at.0)
                        .bind(record.caller.as_str())
                        .bind(storable(&record.server_id.0).into_owned())
                        .bind(storable(&record.tool).into_owned())
                        .bind(
                            record
                                .node_id
                                .as_deref()
                                .map(|id| storable(id).into_owned()),
                        )
                        .bind(record.outcome.as_str())
                        .bind(i64::from(record.attempts))
                        .bind(i64::try_from(record.duration_ms).unwrap_or(i64::MAX))
                }
            }

            #[async_trait::async_trait]
            impl $crate::audit_store::AuditStore for $store {
                async fn record_tool_calls(
                    &self,
                    records: &[NewAuditRecord],
                ) -> Result<(), StoreError> {
                    if records.is_empty() {
                        return Ok(());
                    }
                    // One record (the usual batch when calls are not many at once) is one
                    // statement, atomic without a transaction's two more round trips.
                    if let [record] = records {
                        Self::insert_audit(record)
                            .execute(&mut *self.writer().await?)
                            .await?;
                        return Ok(());
                    }
                    let mut tx = self.begin_write().await?;
                    for record in records {
                        Self::insert_audit(record).execute(&mut *tx).await?;
                    }
                    tx.commit().await?;
                    Ok(())
                }

                async fn prune_tool_calls(
                    &self,
                    owner: &OwnerId,
                    keep: u32,
                ) -> Result<u64, StoreError> {
                    let done = sqlx::query(PRUNE)
                        .bind(&owner.0)
                        .bind(i64::from(keep))
                        .execute(&mut *self.writer().await?)
                        .await?;
                    Ok(done.rows_affected())
                }

                async fn tool_call_audit(
                    &self,
                    owner: &OwnerId,
                    limit: u32,
                ) -> Result<Vec<AuditRecord>, StoreError> {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM tool_call_audit WHERE user_id = $1 \
                         ORDER BY id DESC LIMIT $2"
                    );
                    sqlx::query_as::<_, AuditRow>(&sql)
                        .bind(&owner.0)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(AuditRow::decode)
                        .collect()
                }
            }
        };
    };
}

pub(crate) use impl_audit_store;
