//! `run_leases`: one process at a time runs a conversation's turn, across every process
//! sharing the store.

/// Takes the lease when it is free, expired, or already `holder`'s; returns a row only then.
/// `$1` conversation, `$2` holder, `$3` new expiry, `$4` now (all ms).
pub(crate) const ACQUIRE: &str = "INSERT INTO run_leases (conversation_id, holder, expires_at) \
     VALUES ($1, $2, $3) \
     ON CONFLICT (conversation_id) DO UPDATE \
     SET holder = excluded.holder, expires_at = excluded.expires_at \
     WHERE run_leases.holder = excluded.holder OR run_leases.expires_at <= $4 \
     RETURNING holder";

pub(crate) const RELEASE: &str =
    "DELETE FROM run_leases WHERE conversation_id = $1 AND holder = $2";

macro_rules! impl_lease_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use $crate::error::StoreError;
            use $crate::model::Timestamp;

            #[async_trait::async_trait]
            impl $crate::store::LeaseStore for $store {
                async fn lease_run(
                    &self,
                    conversation_id: &str,
                    holder: &str,
                    ttl: std::time::Duration,
                ) -> Result<bool, StoreError> {
                    let now = Timestamp::now().0;
                    let ttl = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX / 2);
                    let row: Option<(String,)> = sqlx::query_as($crate::sql::leases::ACQUIRE)
                        .bind(conversation_id)
                        .bind(holder)
                        .bind(now.saturating_add(ttl))
                        .bind(now)
                        .fetch_optional(&mut *self.writer().await?)
                        .await?;
                    Ok(row.is_some())
                }

                async fn release_run(
                    &self,
                    conversation_id: &str,
                    holder: &str,
                ) -> Result<(), StoreError> {
                    sqlx::query($crate::sql::leases::RELEASE)
                        .bind(conversation_id)
                        .bind(holder)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    Ok(())
                }
            }
        };
    };
}

pub(crate) use impl_lease_store;
