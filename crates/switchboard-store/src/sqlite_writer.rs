//! The one SQLite connection that writes, for the whole process.
//!
//! SQLite lets one writer at a time in. With several writing connections, a writer that found
//! the lock taken slept in SQLite's busy handler (1 ms, then 2, 5, 10...) while the holder was
//! done within 50 µs: every agent round lost a millisecond to the tool-call audit writing
//! beside it. Here writers queue on a Tokio mutex and are woken the moment the
//! connection is free; other processes on the same file still meet the busy timeout.
//!
//! The connection is held outside sqlx's pool on purpose: the pool pings a connection (a
//! round trip to its worker thread) every time one is given back, which on a pool of one
//! doubled the cost of each write. A connection left inside a transaction (a rollback that
//! failed, as after a full disk: see `crates/switchboard/tests/it/faults.rs`) is closed and opened anew at the next
//! write instead of being used again.

use std::ops::{Deref, DerefMut};

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection, Database, Sqlite, TransactionManager};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use crate::StoreError;

type Manager = <Sqlite as Database>::TransactionManager;

#[derive(Debug)]
pub(crate) struct Writer {
    options: SqliteConnectOptions,
    connection: Mutex<Option<SqliteConnection>>,
}

/// The writing connection, held until dropped.
pub(crate) type Held<'a> = MappedMutexGuard<'a, SqliteConnection>;

impl Writer {
    pub(crate) async fn open(options: SqliteConnectOptions) -> Result<Self, StoreError> {
        let connection = options.connect().await?;
        Ok(Self {
            options,
            connection: Mutex::new(Some(connection)),
        })
    }

    /// The connection, once no one else holds it.
    pub(crate) async fn lock(&self) -> Result<Held<'_>, StoreError> {
        let mut slot = self.connection.lock().await;
        if let Some(connection) = slot.as_mut()
            && connection.is_in_transaction()
        {
            // A dropped transaction's rollback may still be queued: the ping runs after it.
            let _ = connection.ping().await;
            if connection.is_in_transaction()
                && let Some(stale) = slot.take()
            {
                tracing::warn!("the SQLite writer was left inside a transaction; opening it anew");
                let _ = stale.close_hard().await;
            }
        }
        if slot.is_none() {
            *slot = Some(self.options.connect().await?);
        }
        MutexGuard::try_map(slot, Option::as_mut).map_err(|_| StoreError::Closed)
    }

    /// A write transaction (`BEGIN IMMEDIATE`) on the connection.
    pub(crate) async fn begin(&self) -> Result<WriteTransaction<'_>, StoreError> {
        let mut connection = self.lock().await?;
        Manager::begin(&mut connection, Some("BEGIN IMMEDIATE".into())).await?;
        Ok(WriteTransaction {
            connection,
            open: true,
        })
    }

    pub(crate) async fn close(&self) {
        if let Some(connection) = self.connection.lock().await.take() {
            let _ = connection.close().await;
        }
    }
}

/// A transaction on the writing connection: rolled back when dropped without
/// [`WriteTransaction::commit`], as sqlx's own transactions are.
pub(crate) struct WriteTransaction<'a> {
    connection: Held<'a>,
    open: bool,
}

impl WriteTransaction<'_> {
    pub(crate) async fn commit(mut self) -> Result<(), sqlx::Error> {
        Manager::commit(&mut self.connection).await?;
        self.open = false;
        Ok(())
    }
}

impl Deref for WriteTransaction<'_> {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        &self.connection
    }
}

impl DerefMut for WriteTransaction<'_> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.connection
    }
}

impl Drop for WriteTransaction<'_> {
    fn drop(&mut self) {
        if self.open {
            Manager::start_rollback(&mut self.connection);
        }
    }
}
