//! The Postgres store, for several replicas sharing one database.
//!
//! Write transactions are ordinary `BEGIN`s; a read-modify-write locks its row with
//! `SELECT ... FOR UPDATE`, so concurrent updates of one message queue on that row.

use std::time::Duration;

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};

use crate::StoreError;
use crate::secret::Cipher;
use crate::sql::assistants::impl_assistant_store;
use crate::sql::audit::impl_audit_store;
use crate::sql::conversations::impl_conversation_store;
use crate::sql::leases::impl_lease_store;
use crate::sql::oauth::impl_oauth_store;
use crate::sql::providers::impl_provider_store;
use crate::sql::quota::impl_quota;
use crate::sql::server_shapes::impl_server_shape_store;
use crate::sql::servers::impl_server_store;
use crate::sql::tool_nodes::impl_tool_node_store;
use crate::sql::users::impl_user_store;
use crate::sql::views::impl_view_store;
use crate::store::{Backend, SignalStore, Signals, Store};

/// The [`Store`] on Postgres.
#[derive(Debug)]
pub struct PostgresStore {
    pub(crate) pool: PgPool,
    pub(crate) cipher: Cipher,
}

impl PostgresStore {
    pub(crate) const LOCK: &'static str = " FOR UPDATE";

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
        Self { pool, cipher }
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
impl_tool_node_store!(PostgresStore, Postgres);
impl_view_store!(PostgresStore, Postgres);
impl_lease_store!(PostgresStore, Postgres);
impl_oauth_store!(PostgresStore, Postgres);
impl_audit_store!(PostgresStore, Postgres);

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
