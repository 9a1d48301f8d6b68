//! `tasks`: MCP tasks, migrations 0020 and 0026 (the gateway view).
//!
//! A live task is polled by one process at a time: [`claim_due_tasks`] hands each due row to
//! one holder, with a lease, in one statement (on Postgres its rows are picked `FOR UPDATE
//! SKIP LOCKED`, so two replicas claiming at once take different rows; SQLite serialises
//! writers). A poll or an end is recorded only by the holder, so a process whose lease ran
//! out and was taken over cannot overwrite what the new holder learnt.
//!
//! Live tasks are counted against a person's quota in the inserting transaction, after
//! locking their `users` row, as the per-owner quotas of [`super::quota`] are.
//!
//! [`claim_due_tasks`]: crate::TaskStore::claim_due_tasks

use serde_json::Value;
use switchboard_core::{OwnerId, ServerId};

use super::common::{from_json, to_json};
use crate::error::{Entity, StoreError};
use crate::model::{NewTask, StoredTask, TaskKind, TaskOrigin, TaskStatus, Timestamp};

pub(crate) const COLUMNS: &str = "id, user_id, server_id, tool, origin, conversation_id, \
     message_id, call_id, kind, upstream_id, status, status_message, poll_interval_ms, ttl_ms, \
     outcome, cancel_requested, holder, lease_until, next_poll_at, failures, created_at, \
     updated_at, finished_at, view_id";

/// The statuses of a live task, as SQL.
pub(crate) const LIVE: &str = "status IN ('working', 'input_required')";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TaskRow {
    pub id: String,
    pub user_id: String,
    pub server_id: String,
    pub tool: String,
    pub origin: String,
    pub conversation_id: Option<String>,
    pub message_id: Option<String>,
    pub call_id: Option<String>,
    pub kind: String,
    pub upstream_id: Option<String>,
    pub status: String,
    pub status_message: Option<String>,
    pub poll_interval_ms: Option<i64>,
    pub ttl_ms: Option<i64>,
    pub outcome: Option<String>,
    pub cancel_requested: bool,
    pub holder: Option<String>,
    pub lease_until: Option<i64>,
    pub next_poll_at: i64,
    pub failures: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub finished_at: Option<i64>,
    pub view_id: Option<String>,
}

impl TaskRow {
    pub(crate) fn decode(self) -> Result<StoredTask, StoreError> {
        let id = self.id;
        let corrupt = |column: &str, value: &str| {
            StoreError::corrupt(Entity::Task, &id, format!("column {column}: {value:?}"))
        };
        let origin =
            TaskOrigin::parse(&self.origin).ok_or_else(|| corrupt("origin", &self.origin))?;
        let kind = TaskKind::parse(&self.kind).ok_or_else(|| corrupt("kind", &self.kind))?;
        let status =
            TaskStatus::parse(&self.status).ok_or_else(|| corrupt("status", &self.status))?;
        let millis = |column: &str, value: Option<i64>| {
            value
                .map(|value| u64::try_from(value).map_err(|_| corrupt(column, &value.to_string())))
                .transpose()
        };
        let poll_interval_ms = millis("poll_interval_ms", self.poll_interval_ms)?;
        let ttl_ms = millis("ttl_ms", self.ttl_ms)?;
        let failures = u32::try_from(self.failures)
            .map_err(|_| corrupt("failures", &self.failures.to_string()))?;
        let outcome = self
            .outcome
            .as_deref()
            .map(|text| from_json::<Value>(Entity::Task, &id, "outcome", text))
            .transpose()?;
        Ok(StoredTask {
            owner: OwnerId(self.user_id),
            server_id: ServerId(self.server_id),
            tool: self.tool,
            origin,
            kind,
            conversation_id: self.conversation_id,
            message_id: self.message_id,
            call_id: self.call_id,
            view_id: self.view_id,
            upstream_id: self.upstream_id,
            status,
            status_message: self.status_message,
            poll_interval_ms,
            ttl_ms,
            outcome,
            cancel_requested: self.cancel_requested,
            holder: self.holder,
            lease_until: self.lease_until.map(Timestamp),
            next_poll_at: Timestamp(self.next_poll_at),
            failures,
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
            finished_at: self.finished_at.map(Timestamp),
            id,
        })
    }
}

/// A millisecond count as a BIGINT (counts past `i64::MAX` are kept as the largest).
pub(crate) fn to_millis(value: Option<u64>) -> Option<i64> {
    value.map(|value| i64::try_from(value).unwrap_or(i64::MAX))
}

/// The outcome as JSON text.
pub(crate) fn outcome_text(outcome: Option<&Value>) -> Result<Option<String>, StoreError> {
    outcome.map(to_json).transpose()
}

/// The checks a new task passes before it is written.
pub(crate) fn check(task: &NewTask) -> Result<(), StoreError> {
    crate::text::refuse_nul("the task", &task.tool)?;
    crate::text::refuse_nul("the task", &task.status_message)
}

macro_rules! impl_task_store {
    ($store:ty, $db:ty, $skip_locked:expr) => {
        const _: () = {
            use serde_json::Value;
            use switchboard_core::OwnerId;
            use $crate::error::{Entity, StoreError};
            use $crate::model::{
                NewTask, StoredTask, TaskEnd, TaskPoll, TaskQuota, TaskStatus, Timestamp,
            };
            use $crate::sql::tasks::{COLUMNS, LIVE, TaskRow, outcome_text, to_millis};

            impl $store {
                /// Refuses one more live task of `owner` on `server` past `quota`; call it in
                /// the inserting transaction.
                async fn check_task_quota(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    server: &str,
                    quota: TaskQuota,
                ) -> Result<(), StoreError> {
                    if quota == TaskQuota::default() {
                        return Ok(());
                    }
                    let lock = format!("SELECT id FROM users WHERE id = $1{}", Self::LOCK);
                    sqlx::query(&lock)
                        .bind(&owner.0)
                        .fetch_optional(&mut *conn)
                        .await?;
                    let count = format!(
                        "SELECT COUNT(*), \
                         COALESCE(SUM(CASE WHEN server_id = $2 THEN 1 ELSE 0 END), 0) \
                         FROM tasks WHERE user_id = $1 AND {LIVE}"
                    );
                    let (all, on_server): (i64, i64) = sqlx::query_as(&count)
                        .bind(&owner.0)
                        .bind(server)
                        .fetch_one(&mut *conn)
                        .await?;
                    for (count, max) in [(all, quota.per_user), (on_server, quota.per_server)] {
                        if let Some(max) = max
                            && count >= i64::from(max)
                        {
                            return Err(StoreError::QuotaExceeded {
                                entity: Entity::Task,
                                limit: max,
                            });
                        }
                    }
                    Ok(())
                }
            }

            #[async_trait::async_trait]
            impl $crate::store::TaskStore for $store {
                async fn create_task(
                    &self,
                    owner: &OwnerId,
                    task: &NewTask,
                    quota: TaskQuota,
                ) -> Result<StoredTask, StoreError> {
                    $crate::sql::tasks::check(task)?;
                    let id = format!("tsk_{}", $crate::model::new_id());
                    let now = Timestamp::now().0;
                    let mut tx = self.begin_write().await?;
                    Self::check_task_quota(&mut tx, owner, &task.server_id.0, quota).await?;
                    let sql = format!(
                        "INSERT INTO tasks (id, user_id, server_id, tool, origin, \
                         conversation_id, message_id, call_id, kind, upstream_id, status, \
                         status_message, poll_interval_ms, ttl_ms, next_poll_at, created_at, \
                         updated_at, holder, lease_until, view_id) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, \
                         $15, $16, $16, $17, $18, $19) RETURNING {COLUMNS}"
                    );
                    let row: TaskRow = sqlx::query_as(&sql)
                        .bind(&id)
                        .bind(&owner.0)
                        .bind(&task.server_id.0)
                        .bind(&task.tool)
                        .bind(task.origin.as_str())
                        .bind(&task.conversation_id)
                        .bind(&task.message_id)
                        .bind(&task.call_id)
                        .bind(task.kind.as_str())
                        .bind(&task.upstream_id)
                        .bind(TaskStatus::from(task.status).as_str())
                        .bind(&task.status_message)
                        .bind(to_millis(task.poll_interval_ms))
                        .bind(to_millis(task.ttl_ms))
                        .bind(task.next_poll_at.0)
                        .bind(now)
                        .bind(task.holder.as_ref().map(|(holder, _)| holder))
                        .bind(task.holder.as_ref().map(|(_, until)| until.0))
                        .bind(&task.view_id)
                        .fetch_one(&mut *tx)
                        .await
                        .map_err(|e| StoreError::from_write(e, Entity::Task, &id))?;
                    tx.commit().await?;
                    row.decode()
                }

                async fn task(&self, owner: &OwnerId, id: &str) -> Result<StoredTask, StoreError> {
                    let sql = format!("SELECT {COLUMNS} FROM tasks WHERE id = $1 AND user_id = $2");
                    sqlx::query_as::<_, TaskRow>(&sql)
                        .bind(id)
                        .bind(&owner.0)
                        .fetch_optional(&self.pool)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Task, id))?
                        .decode()
                }

                async fn claim_due_tasks(
                    &self,
                    holder: &str,
                    lease: std::time::Duration,
                    limit: u32,
                ) -> Result<Vec<StoredTask>, StoreError> {
                    let now = Timestamp::now().0;
                    let lease = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX / 2);
                    let sql = format!(
                        "UPDATE tasks SET holder = $1, lease_until = $2 WHERE id IN (\
                         SELECT id FROM tasks WHERE {LIVE} AND next_poll_at <= $3 \
                         AND (holder IS NULL OR holder = $1 OR lease_until <= $3) \
                         ORDER BY next_poll_at LIMIT $4{}) RETURNING {COLUMNS}",
                        $skip_locked
                    );
                    let rows: Vec<TaskRow> = sqlx::query_as(&sql)
                        .bind(holder)
                        .bind(now.saturating_add(lease))
                        .bind(now)
                        .bind(i64::from(limit))
                        .fetch_all(&mut *self.writer().await?)
                        .await?;
                    let mut tasks = rows
                        .into_iter()
                        .map(TaskRow::decode)
                        .collect::<Result<Vec<_>, _>>()?;
                    tasks.sort_by_key(|task| task.next_poll_at);
                    Ok(tasks)
                }

                async fn renew_task_holds(
                    &self,
                    holder: &str,
                    lease: std::time::Duration,
                ) -> Result<u64, StoreError> {
                    let now = Timestamp::now().0;
                    let lease = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX / 2);
                    let sql = format!(
                        "UPDATE tasks SET lease_until = $2 WHERE holder = $1 AND {LIVE}"
                    );
                    let done = sqlx::query(&sql)
                        .bind(holder)
                        .bind(now.saturating_add(lease))
                        .execute(&mut *self.writer().await?)
                        .await?;
                    Ok(done.rows_affected())
                }

                async fn record_task_poll(
                    &self,
                    id: &str,
                    holder: &str,
                    poll: &TaskPoll,
                ) -> Result<bool, StoreError> {
                    let sql = format!(
                        "UPDATE tasks SET status = $3, status_message = $4, \
                         poll_interval_ms = $5, next_poll_at = $6, failures = $7, \
                         updated_at = $8 \
                         WHERE id = $1 AND holder = $2 AND {LIVE}"
                    );
                    let done = sqlx::query(&sql)
                        .bind(id)
                        .bind(holder)
                        .bind(TaskStatus::from(poll.status).as_str())
                        .bind(&poll.status_message)
                        .bind(to_millis(poll.poll_interval_ms))
                        .bind(poll.next_poll_at.0)
                        .bind(i64::from(poll.failures))
                        .bind(Timestamp::now().0)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    Ok(done.rows_affected() == 1)
                }

                async fn finish_task(
                    &self,
                    id: &str,
                    holder: &str,
                    end: TaskEnd,
                    outcome: Option<&Value>,
                ) -> Result<bool, StoreError> {
                    let now = Timestamp::now().0;
                    let sql = format!(
                        "UPDATE tasks SET status = $3, outcome = $4, holder = NULL, \
                         lease_until = NULL, updated_at = $5, finished_at = $5 \
                         WHERE id = $1 AND holder = $2 AND {LIVE}"
                    );
                    let done = sqlx::query(&sql)
                        .bind(id)
                        .bind(holder)
                        .bind(TaskStatus::from(end).as_str())
                        .bind(outcome_text(outcome)?)
                        .bind(now)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    Ok(done.rows_affected() == 1)
                }

                async fn attach_task_upstream(
                    &self,
                    id: &str,
                    holder: &str,
                    upstream: &$crate::model::TaskUpstream,
                ) -> Result<bool, StoreError> {
                    $crate::text::refuse_nul("the task", &upstream.status_message)?;
                    let sql = format!(
                        "UPDATE tasks SET kind = $3, upstream_id = $4, status = $5, \
                         status_message = $6, poll_interval_ms = $7, ttl_ms = $8, \
                         next_poll_at = $9, updated_at = $10 \
                         WHERE id = $1 AND holder = $2 AND {LIVE}"
                    );
                    let done = sqlx::query(&sql)
                        .bind(id)
                        .bind(holder)
                        .bind(upstream.kind.as_str())
                        .bind(&upstream.upstream_id)
                        .bind(TaskStatus::from(upstream.status).as_str())
                        .bind(&upstream.status_message)
                        .bind(to_millis(upstream.poll_interval_ms))
                        .bind(to_millis(upstream.ttl_ms))
                        .bind(upstream.next_poll_at.0)
                        .bind(Timestamp::now().0)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    Ok(done.rows_affected() == 1)
                }

                async fn forget_ended_tasks(&self, before: Timestamp) -> Result<u64, StoreError> {
                    let sql = format!(
                        "DELETE FROM tasks WHERE NOT ({LIVE}) AND finished_at < $1"
                    );
                    let done = sqlx::query(&sql)
                        .bind(before.0)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    Ok(done.rows_affected())
                }

                async fn list_tasks(
                    &self,
                    owner: &OwnerId,
                    filter: &$crate::model::TaskFilter,
                    limit: u32,
                ) -> Result<Vec<StoredTask>, StoreError> {
                    let (after_at, after_id) = match &filter.after {
                        Some(cursor) => (Some(cursor.created_at.0), Some(cursor.id.as_str())),
                        None => (None, None),
                    };
                    let sql = format!(
                        "SELECT {COLUMNS} FROM tasks WHERE user_id = $1 AND origin = $2 \
                         AND (view_id = $3 OR (view_id IS NULL AND $3 IS NULL)) \
                         AND ($4 IS NULL OR created_at < $4 OR (created_at = $4 AND id < $5)) \
                         ORDER BY created_at DESC, id DESC LIMIT $6"
                    );
                    let rows = sqlx::query_as::<_, TaskRow>(&sql)
                        .bind(&owner.0)
                        .bind(filter.origin.as_str())
                        .bind(filter.view_id.as_deref())
                        .bind(after_at)
                        .bind(after_id)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await?;
                    rows.into_iter().map(TaskRow::decode).collect()
                }

                async fn request_task_cancel(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                ) -> Result<StoredTask, StoreError> {
                    let now = Timestamp::now().0;
                    let sql = format!(
                        "UPDATE tasks SET cancel_requested = TRUE, next_poll_at = $3, \
                         updated_at = $3 WHERE id = $1 AND user_id = $2 AND {LIVE}"
                    );
                    sqlx::query(&sql)
                        .bind(id)
                        .bind(&owner.0)
                        .bind(now)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    self.task(owner, id).await
                }
            }
        };
    };
}

pub(crate) use impl_task_store;
