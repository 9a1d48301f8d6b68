//! OAuth sign-ins to remote MCP servers, migration 0011: each person's tokens per
//! server, the lock replicas take to refresh them, and sign-ins under way.
//!
//! What is kept is opaque to the store: the MCP client's serialized credentials and pending
//! state, sealed like every other secret (they hold access and refresh tokens, a client
//! secret, a PKCE verifier). Rows belong to the server's owner; another owner's server is not
//! found, and deleting a server deletes its rows.

use std::time::Duration;

/// How long a sign-in may take between its start and its callback.
pub(crate) const PENDING_FOR: Duration = Duration::from_secs(15 * 60);
/// Sign-ins one person may have under way at once; starting another drops the oldest.
pub(crate) const MAX_PENDING: i64 = 16;

pub(crate) const TOKENS: &str = "mcp_oauth_tokens.credentials";
pub(crate) const PENDING: &str = "mcp_oauth_pending.payload";

macro_rules! impl_oauth_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::{OwnerId, ServerId};
            use $crate::error::{Entity, StoreError};
            use $crate::model::Timestamp;
            use $crate::sql::oauth::{MAX_PENDING, PENDING, PENDING_FOR, TOKENS};
            use $crate::store::{OAuthRefreshLock, PendingSignIn};

            #[async_trait::async_trait]
            impl $crate::store::OAuthStore for $store {
                async fn oauth_credentials(
                    &self,
                    owner: &OwnerId,
                    server: &ServerId,
                ) -> Result<Option<String>, StoreError> {
                    let sealed: Option<(String,)> = sqlx::query_as(
                        "SELECT credentials FROM mcp_oauth_tokens \
                         WHERE user_id = $1 AND server_id = $2",
                    )
                    .bind(&owner.0)
                    .bind(&server.0)
                    .fetch_optional(&self.pool)
                    .await?;
                    match sealed {
                        Some((sealed,)) => Ok(Some(self.cipher.open(TOKENS, &sealed)?)),
                        None => Ok(None),
                    }
                }

                async fn save_oauth_credentials(
                    &self,
                    owner: &OwnerId,
                    server: &ServerId,
                    credentials: &str,
                ) -> Result<(), StoreError> {
                    let sealed = self.cipher.seal(TOKENS, credentials)?;
                    let mut tx = self.begin_write().await?;
                    Self::require_owned(&mut tx, owner, Entity::Server, &server.0).await?;
                    sqlx::query(
                        "INSERT INTO mcp_oauth_tokens (user_id, server_id, credentials, \
                         updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (user_id, server_id) \
                         DO UPDATE SET credentials = excluded.credentials, \
                         updated_at = excluded.updated_at",
                    )
                    .bind(&owner.0)
                    .bind(&server.0)
                    .bind(&sealed)
                    .bind(Timestamp::now().0)
                    .execute(&mut *tx)
                    .await?;
                    tx.commit().await?;
                    Ok(())
                }

                async fn delete_oauth_credentials(
                    &self,
                    owner: &OwnerId,
                    server: &ServerId,
                ) -> Result<bool, StoreError> {
                    let done = sqlx::query(
                        "DELETE FROM mcp_oauth_tokens WHERE user_id = $1 AND server_id = $2",
                    )
                    .bind(&owner.0)
                    .bind(&server.0)
                    .execute(&mut *self.writer().await?)
                    .await?;
                    Ok(done.rows_affected() > 0)
                }

                async fn lock_oauth_refresh(
                    &self,
                    owner: &OwnerId,
                    server: &ServerId,
                ) -> Result<OAuthRefreshLock, StoreError> {
                    // SQLite serves one process; the caller's lock in that process is enough
                    // (and a write transaction held here would block the refresh's own save).
                    if Self::LOCK.is_empty() {
                        return Ok(OAuthRefreshLock::default());
                    }
                    let mut tx = self.begin_write().await?;
                    Self::require_owned(&mut tx, owner, Entity::Server, &server.0).await?;
                    sqlx::query(
                        "INSERT INTO mcp_oauth_refresh_locks (user_id, server_id) \
                         VALUES ($1, $2) ON CONFLICT (user_id, server_id) DO NOTHING",
                    )
                    .bind(&owner.0)
                    .bind(&server.0)
                    .execute(&mut *tx)
                    .await?;
                    tx.commit().await?;
                    let mut tx = self.pool.begin().await?;
                    let sql = format!(
                        "SELECT user_id FROM mcp_oauth_refresh_locks \
                         WHERE user_id = $1 AND server_id = $2{}",
                        Self::LOCK
                    );
                    let _: Option<(String,)> = sqlx::query_as(&sql)
                        .bind(&owner.0)
                        .bind(&server.0)
                        .fetch_optional(&mut *tx)
                        .await?;
                    // Dropping the transaction rolls it back, which releases the row.
                    Ok(OAuthRefreshLock::holding(tx))
                }

                async fn save_oauth_pending(
                    &self,
                    owner: &OwnerId,
                    server: &ServerId,
                    state: &str,
                    payload: &str,
                ) -> Result<(), StoreError> {
                    let sealed = self.cipher.seal(PENDING, payload)?;
                    let now = Timestamp::now().0;
                    let expired = now - i64::try_from(PENDING_FOR.as_millis()).unwrap_or(0);
                    let mut tx = self.begin_write().await?;
                    Self::require_owned(&mut tx, owner, Entity::Server, &server.0).await?;
                    sqlx::query("DELETE FROM mcp_oauth_pending WHERE created_at < $1")
                        .bind(expired)
                        .execute(&mut *tx)
                        .await?;
                    // The person's oldest sign-ins beyond the bound give way to this one.
                    sqlx::query(
                        "DELETE FROM mcp_oauth_pending WHERE user_id = $1 AND state NOT IN \
                         (SELECT state FROM mcp_oauth_pending WHERE user_id = $1 \
                         ORDER BY created_at DESC, state DESC LIMIT $2)",
                    )
                    .bind(&owner.0)
                    .bind(MAX_PENDING - 1)
                    .execute(&mut *tx)
                    .await?;
                    sqlx::query(
                        "INSERT INTO mcp_oauth_pending (state, user_id, server_id, payload, \
                         created_at) VALUES ($1, $2, $3, $4, $5)",
                    )
                    .bind(state)
                    .bind(&owner.0)
                    .bind(&server.0)
                    .bind(&sealed)
                    .bind(now)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Server, &server.0))?;
                    tx.commit().await?;
                    Ok(())
                }

                async fn oauth_pending(
                    &self,
                    state: &str,
                ) -> Result<Option<PendingSignIn>, StoreError> {
                    let row: Option<(String, String, String, i64)> = sqlx::query_as(
                        "SELECT user_id, server_id, payload, created_at FROM mcp_oauth_pending \
                         WHERE state = $1",
                    )
                    .bind(state)
                    .fetch_optional(&self.pool)
                    .await?;
                    let Some((owner, server, sealed, created_at)) = row else {
                        return Ok(None);
                    };
                    let age = Timestamp::now().0.saturating_sub(created_at);
                    if age > i64::try_from(PENDING_FOR.as_millis()).unwrap_or(i64::MAX) {
                        return Ok(None);
                    }
                    Ok(Some(PendingSignIn {
                        owner: OwnerId(owner),
                        server: ServerId(server),
                        payload: self.cipher.open(PENDING, &sealed)?,
                    }))
                }

                async fn delete_oauth_pending(&self, state: &str) -> Result<bool, StoreError> {
                    let done = sqlx::query("DELETE FROM mcp_oauth_pending WHERE state = $1")
                        .bind(state)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    Ok(done.rows_affected() > 0)
                }
            }
        };
    };
}
pub(crate) use impl_oauth_store;
