//! The Postgres store, for several replicas sharing one database.
//!
//! Write transactions are ordinary `BEGIN`s; a read-modify-write locks its row with
//! `SELECT ... FOR UPDATE`, so concurrent updates of one message queue on that row.

use std::sync::{Arc, Weak};
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgListener, PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};

use crate::StoreError;
use crate::read_cache::ReadCache;
use crate::secret::Cipher;
use crate::sql::assistants::impl_assistant_store;
use crate::sql::audit::impl_audit_store;
use crate::sql::conversations::impl_conversation_store;
use crate::sql::forks::impl_message_forks;
use crate::sql::leases::impl_lease_store;
use crate::sql::oauth::impl_oauth_store;
use crate::sql::providers::impl_provider_store;
use crate::sql::quota::impl_quota;
use crate::sql::server_shapes::impl_server_shape_store;
use crate::sql::servers::impl_server_store;
use crate::sql::tasks::impl_task_store;
use crate::sql::tool_nodes::impl_tool_node_store;
use crate::sql::users::impl_user_store;
use crate::sql::vectors::impl_vector_store;
use crate::sql::views::impl_view_store;
use crate::store::{Backend, SignalStore, Signals, Store};

/// The [`Store`] on Postgres.
#[derive(Debug)]
pub struct PostgresStore {
    pub(crate) pool: PgPool,
    pub(crate) cipher: Cipher,
    /// The hot path's reads, kept in memory (tokens, users, connection specs).
    pub(crate) cache: Arc<ReadCache>,
    /// The tool calls of the messages this process wrote last ([`crate::known_calls`]).
    pub(crate) known_calls: crate::known_calls::KnownCalls,
}

impl PostgresStore {
    pub(crate) const LOCK: &'static str = " FOR UPDATE";

    /// The `LIKE` that ignores case: Postgres's folds every cased script.
    pub(crate) const LIKE_ANY_CASE: &'static str = "ILIKE";

    /// Connects to `url` and brings the schema up to date.
    pub(crate) async fn connect(url: &str) -> Result<PgPool, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(30))
            .connect(url)
            .await?;
        crate::migrate::postgres().run(&pool).await?;
        Ok(pool)
    }

    pub(crate) fn new(pool: PgPool, cipher: Cipher) -> Self {
        let (announce, announced) = tokio::sync::mpsc::unbounded_channel();
        let cache = Arc::new(ReadCache::default().announcing(announce));
        tokio::spawn(share_changes(
            pool.clone(),
            Arc::downgrade(&cache),
            announced,
        ));
        Self {
            pool,
            cipher,
            cache,
            known_calls: Default::default(),
        }
    }

    /// A connection for one write: any of the pool's (Postgres locks rows, not the database).
    pub(crate) async fn writer(&self) -> Result<PoolConnection<Postgres>, StoreError> {
        Ok(self.pool.acquire().await?)
    }

    pub(crate) async fn begin_write(&self) -> Result<Transaction<'static, Postgres>, StoreError> {
        Ok(self.pool.begin().await?)
    }
}

impl_user_store!(PostgresStore, Postgres);
impl_server_store!(PostgresStore, Postgres);
impl_server_shape_store!(PostgresStore, Postgres);
impl_provider_store!(PostgresStore, Postgres);
impl_quota!(PostgresStore, Postgres);
impl_assistant_store!(PostgresStore, Postgres);
impl_conversation_store!(PostgresStore, Postgres);
impl_message_forks!(PostgresStore, Postgres);
impl_tool_node_store!(PostgresStore, Postgres);
impl_view_store!(PostgresStore, Postgres);
impl_lease_store!(PostgresStore, Postgres);
impl_task_store!(PostgresStore, Postgres, " FOR UPDATE SKIP LOCKED");
impl_oauth_store!(PostgresStore, Postgres);
impl_audit_store!(PostgresStore, Postgres);
impl_vector_store!(PostgresStore, Postgres);

#[async_trait::async_trait]
impl SignalStore for PostgresStore {
    async fn notify(&self, channel: &str, payload: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(channel)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn listen(&self, channel: &str) -> Result<Option<Signals>, StoreError> {
        use futures::StreamExt;
        let mut listener = sqlx::postgres::PgListener::connect_with(&self.pool).await?;
        listener.listen(channel).await?;
        // PgListener reconnects by itself; notifications sent while it was away are lost,
        // which the event stream reports to its clients as a reset.
        let stream = listener.into_stream().filter_map(|received| async move {
            match received {
                Ok(notification) => Some(notification.payload().to_owned()),
                Err(error) => {
                    tracing::warn!(%error, "LISTEN connection failed; reconnecting");
                    None
                }
            }
        });
        Ok(Some(stream.boxed()))
    }
}

#[async_trait::async_trait]
impl Store for PostgresStore {
    fn backend(&self) -> Backend {
        Backend::Postgres
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}

/// Where replicas tell each other that their kept reads are stale.
const CACHE_CHANNEL: &str = "switchboard_read_cache";

/// Tells the other replicas of each change made here (`NOTIFY`, bursts coalesced), and empties
/// this replica's kept reads when another one tells (`LISTEN`). Ends with the store (its cache
/// dropped) or at the first failure of the database connection: from then on, kept reads still
/// go stale after the cache's TTL.
async fn share_changes(
    pool: PgPool,
    cache: Weak<ReadCache>,
    mut announced: tokio::sync::mpsc::UnboundedReceiver<()>,
) {
    let me = crate::model::new_id();
    let mut listener = match PgListener::connect_with(&pool).await {
        Ok(listener) => listener,
        Err(error) => {
            tracing::warn!(%error, "replicas will not tell each other of changes (LISTEN failed)");
            return;
        }
    };
    if let Err(error) = listener.listen(CACHE_CHANNEL).await {
        tracing::warn!(%error, "replicas will not tell each other of changes (LISTEN failed)");
        return;
    }
    loop {
        tokio::select! {
            sent = announced.recv() => {
                if sent.is_none() {
                    return;
                }
                while announced.try_recv().is_ok() {}
                let told = sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(CACHE_CHANNEL)
                    .bind(&me)
                    .execute(&pool)
                    .await;
                if let Err(error) = told {
                    tracing::debug!(%error, "other replicas not told of a change");
                    return;
                }
            }
            received = listener.try_recv() => {
                let Some(cache) = cache.upgrade() else { return };
                match received {
                    Ok(Some(notice)) if notice.payload() == me => {}
                    // Another replica's change, or the connection was lost and notices with it.
                    Ok(_) => cache.forget(),
                    Err(error) => {
                        tracing::debug!(%error, "no more change notices from other replicas");
                        cache.forget();
                        return;
                    }
                }
            }
        }
    }
}
