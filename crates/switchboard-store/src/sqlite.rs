//! The SQLite store: one file in the data directory, zero set-up.
//!
//! WAL journal, so readers never wait for the writer; `synchronous=NORMAL`, SQLite's advice for
//! WAL: a committed transaction survives a crash of the process (the crash test kills a
//! writer with SIGKILL), and a power loss can cost the last transactions but never the
//! database's consistency (FULL made each agent round about 15% slower); foreign keys on; a busy
//! timeout so concurrent writers queue instead of failing. Write transactions start with
//! `BEGIN IMMEDIATE`: they take the write lock up front, so a read-modify-write (a tool-call
//! update) can never be refused half-way for a lock another writer took after its read.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use sqlx::Sqlite;

use crate::StoreError;
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
use crate::sqlite_writer::{Held, WriteTransaction, Writer};
use crate::store::{Backend, SignalStore, Signals, Store};

/// The database file inside the data directory.
pub const DB_FILE: &str = "switchboard.db";

/// The [`Store`] on SQLite.
#[derive(Debug)]
pub struct SqliteStore {
    /// Read-only connections, for every read.
    pub(crate) pool: SqlitePool,
    /// The one connection that writes (see [`crate::sqlite_writer`]).
    pub(crate) writer: Writer,
    pub(crate) cipher: Cipher,
    /// The hot path's reads, kept in memory (tokens, users, connection specs).
    pub(crate) cache: std::sync::Arc<crate::read_cache::ReadCache>,
    /// The tool calls of the messages this process wrote last ([`crate::known_calls`]).
    pub(crate) known_calls: crate::known_calls::KnownCalls,
}

impl SqliteStore {
    /// Row locks come from `BEGIN IMMEDIATE`; SQLite has no `FOR UPDATE`.
    pub(crate) const LOCK: &'static str = "";

    /// The `LIKE` that ignores case: SQLite's own, which folds ASCII letters only.
    pub(crate) const LIKE_ANY_CASE: &'static str = "LIKE";

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// Returns the writing connection and the readers' pool.
    pub(crate) async fn connect(path: &Path) -> Result<(Writer, SqlitePool), StoreError> {
        create_private(path)?;
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(StoreError::Database)?
            .filename(path)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(30));
        let writer = Writer::open(
            options
                .clone()
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal),
        )
        .await?;
        crate::migrate::sqlite()
            .run(&mut *writer.lock().await?)
            .await?;
        // Opened after the writer made the file a WAL database; read-only, so a write sent
        // to the readers by mistake fails loudly instead of contending for the lock.
        let readers = readers().connect_with(options.read_only(true)).await?;
        Ok((writer, readers))
    }

    pub(crate) fn new(writer: Writer, readers: SqlitePool, cipher: Cipher) -> Self {
        Self {
            pool: readers,
            writer,
            cipher,
            cache: std::sync::Arc::default(),
            known_calls: Default::default(),
        }
    }

    /// The writing connection, for one statement.
    pub(crate) async fn writer(&self) -> Result<Held<'_>, StoreError> {
        self.writer.lock().await
    }

    pub(crate) async fn begin_write(&self) -> Result<WriteTransaction<'_>, StoreError> {
        self.writer.begin().await
    }
}

/// The readers' pool.
fn readers() -> SqlitePoolOptions {
    SqlitePoolOptions::new()
        .max_connections(8)
        // A local file does not go stale; the default ping before each use doubled the
        // cost of every query.
        .test_before_acquire(false)
}

/// Creates an empty database file readable by its owner only, if there is none: it holds
/// conversations and sealed secrets. SQLite gives its `-wal` and `-shm` files the same mode.
fn create_private(path: &Path) -> Result<(), StoreError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(StoreError::Io {
            what: format!("cannot create {}", path.display()),
            source,
        }),
    }
}

impl_user_store!(SqliteStore, Sqlite);
impl_server_store!(SqliteStore, Sqlite);
impl_server_shape_store!(SqliteStore, Sqlite);
impl_provider_store!(SqliteStore, Sqlite);
impl_quota!(SqliteStore, Sqlite);
impl_assistant_store!(SqliteStore, Sqlite);
impl_conversation_store!(SqliteStore, Sqlite);
impl_message_forks!(SqliteStore, Sqlite);
impl_tool_node_store!(SqliteStore, Sqlite);
impl_view_store!(SqliteStore, Sqlite);
impl_lease_store!(SqliteStore, Sqlite);
impl_task_store!(SqliteStore, Sqlite, "");
impl_oauth_store!(SqliteStore, Sqlite);
impl_audit_store!(SqliteStore, Sqlite);
impl_vector_store!(SqliteStore, Sqlite);

#[async_trait::async_trait]
impl SignalStore for SqliteStore {
    async fn notify(&self, _channel: &str, _payload: &str) -> Result<(), StoreError> {
        Ok(())
    }

    async fn listen(&self, _channel: &str) -> Result<Option<Signals>, StoreError> {
        Ok(None)
    }
}

#[async_trait::async_trait]
impl Store for SqliteStore {
    fn backend(&self) -> Backend {
        Backend::Sqlite
    }

    async fn close(&self) {
        self.pool.close().await;
        self.writer.close().await;
    }
}
