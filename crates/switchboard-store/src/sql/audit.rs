//! `tool_call_audit`: one row per tool call, appended in batches and pruned per owner.

use std::fmt::Write as _;

use switchboard_core::ServerId;

use super::common::to_u32;
use crate::error::{Entity, StoreError};
use crate::model::{AuditOutcome, AuditRecord, CallerKind, Timestamp};

/// The record's id as its owner sees it is `seq`, the owner's own numbering (see migration
/// 0015): the table's id is one sequence for everyone.
pub(crate) const COLUMNS: &str =
    "seq AS id, at, caller, server_id, tool, node_id, outcome, attempts, duration_ms";

/// Rows one multi-row insert writes, largest first. A batch is written in statements of these
/// sizes (64 records: one statement of 64 rows; 70: 64 + 4 + 1 + 1), so the writer's
/// statement cache holds four texts, not one per batch size. One statement per batch instead
/// of one per record: each statement is a round trip to SQLite's worker thread, and under the
/// proxy's load those hand-offs took more of the machine than the inserts.
pub(crate) const INSERT_SIZES: [usize; 4] = [64, 16, 4, 1];

/// Values bound per record.
const INSERT_VALUES: usize = 9;

/// Inserts `rows` records (nine values each, in their order), each unless its owner is gone
/// (the writer runs after the call, and the user may have been deleted in between; one such
/// record must not fail its whole batch). The tenth column of each row is its place, so the
/// ids follow the batch's order.
///
/// Values are `$1`, `$2`, … when `numbered` (Postgres), else `?` (SQLite): sqlx finds each
/// numbered value of a SQLite statement by its name, and SQLite looks a name up by walking
/// the statement's list of names, so a batch of 64 rows (576 values) took some 166,000 steps
/// to bind, a fifth of the writer's time under the proxy's load.
pub(crate) fn insert(rows: usize, numbered: bool) -> String {
    let mut sql = String::from(
        "INSERT INTO tool_call_audit \
         (user_id, at, caller, server_id, tool, node_id, outcome, attempts, duration_ms) \
         SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, \
         v.column8, v.column9 FROM (VALUES ",
    );
    // Written into the one string (no text per value): it is built for every batch.
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        let first = row * INSERT_VALUES + 1;
        for n in first..first + INSERT_VALUES {
            if numbered {
                let _ = write!(sql, "${n}, ");
            } else {
                sql.push_str("?, ");
            }
        }
        let _ = write!(sql, "{row})");
    }
    sql.push_str(
        ") AS v WHERE EXISTS (SELECT 1 FROM users WHERE id = v.column1) ORDER BY v.column10",
    );
    sql
}

/// `records` cut into runs of the [`INSERT_SIZES`], in order.
pub(crate) fn insert_runs<T>(records: &[T]) -> Vec<&[T]> {
    let mut runs = Vec::new();
    let mut rest = records;
    for size in INSERT_SIZES {
        while rest.len() >= size {
            let (run, after) = rest.split_at(size);
            runs.push(run);
            rest = after;
        }
    }
    runs
}

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
            use $crate::sql::audit::{AuditRow, COLUMNS, PRUNE, insert, insert_runs, storable};

            /// Whether statements number their values (Postgres) or take them in order.
            const NUMBERED: bool =
                matches!(<$db as sqlx::Database>::NAME.as_bytes(), b"PostgreSQL");

            impl $store {
                /// Binds `records` to the statement [`insert`] gives for as many rows.
                fn insert_audit<'q>(
                    sql: &'q str,
                    records: &[NewAuditRecord],
                ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
                    let mut query = sqlx::query(sql);
                    for record in records {
                        query = query
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
                            .bind(i64::try_from(record.duration_ms).unwrap_or(i64::MAX));
                    }
                    query
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
                    let runs = insert_runs(records);
                    // One statement (a batch of 1, 4, 16 or 64) is atomic without a
                    // transaction's two more round trips.
                    if let [run] = runs.as_slice() {
                        let sql = insert(run.len(), NUMBERED);
                        Self::insert_audit(&sql, run)
                            .execute(&mut *self.writer().await?)
                            .await?;
                        return Ok(());
                    }
                    let mut tx = self.begin_write().await?;
                    for run in runs {
                        let sql = insert(run.len(), NUMBERED);
                        Self::insert_audit(&sql, run).execute(&mut *tx).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_cut_into_runs_of_the_statement_sizes_in_order() {
        let records: Vec<usize> = (0..87).collect();
        let runs = insert_runs(&records);
        let sizes: Vec<usize> = runs.iter().map(|run| run.len()).collect();
        assert_eq!(sizes, [64, 16, 4, 1, 1, 1]);
        assert_eq!(runs.concat(), records);
        assert!(insert_runs::<u8>(&[]).is_empty());
        assert_eq!(insert_runs(&[0; 128]).len(), 2);
    }

    #[test]
    fn a_multi_row_insert_numbers_its_values_row_after_row() {
        let sql = insert(2, true);
        assert!(
            sql.contains("($1, $2, $3, $4, $5, $6, $7, $8, $9, 0), ($10, "),
            "{sql}"
        );
        assert!(sql.contains("$18, 1)"), "{sql}");
        assert!(!sql.contains("$19"), "{sql}");
        let sql = insert(2, false);
        assert!(
            sql.contains("(?, ?, ?, ?, ?, ?, ?, ?, ?, 0), (?, "),
            "{sql}"
        );
        assert_eq!(sql.matches('?').count(), 18, "{sql}");
        assert!(!sql.contains('$'), "{sql}");
    }
}
