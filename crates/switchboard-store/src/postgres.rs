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
use crate::sql::conversations::impl_conversation_store;
use crate::sql::presets::impl_preset_store;
use crate::sql::providers::impl_provider_store;
use crate::sql::servers::impl_server_store;
use crate::sql::users::impl_user_store;
use crate::store::{Backend, Store};

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
impl_provider_store!(PostgresStore, Postgres);
impl_assistant_store!(PostgresStore, Postgres);
impl_conversation_store!(PostgresStore, Postgres);
impl_preset_store!(PostgresStore, Postgres);

#[async_trait::async_trait]
impl Store for PostgresStore {
    fn backend(&self) -> Backend {
        Backend::Postgres
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}
