//! Opening the store: pick the backend from the URL, migrate, and settle the secret key.

use std::path::PathBuf;
use std::sync::Arc;

use crate::StoreError;
use crate::postgres::PostgresStore;
use crate::secret::{Cipher, SecretError, SecretKey};
use crate::sqlite::{DB_FILE, SqliteStore};
use crate::store::Store;

/// Where the store lives. The binary fills it from flags and the environment
/// (`DATABASE_URL`, `SWITCHBOARD_SECRET_KEY`); the library reads no environment itself.
#[derive(Clone)]
pub struct StoreConfig {
    /// Holds the SQLite file and the key file.
    pub data_dir: PathBuf,
    /// `postgres://...` (or `postgresql://`) for Postgres; `sqlite:PATH` for another SQLite
    /// file; absent for `switchboard.db` in the data directory.
    pub database_url: Option<String>,
    /// The value of `SWITCHBOARD_SECRET_KEY`, if set.
    pub secret_key: Option<String>,
}

impl std::fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreConfig")
            .field("data_dir", &self.data_dir)
            .field(
                "database_url",
                &self
                    .database_url
                    .as_deref()
                    .map(switchboard_core::spec::redact_url),
            )
            .field("secret_key", &self.secret_key.as_ref().map(|_| "***"))
            .finish()
    }
}

impl StoreConfig {
    /// SQLite in `data_dir`, key file beside it.
    pub fn in_dir(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            database_url: None,
            secret_key: None,
        }
    }
}

/// Meta row holding a value sealed under the key, to recognise the right key at open.
const KEY_CHECK: &str = "secret_key_check";
const KEY_CHECK_FIELD: &str = "meta.secret_key_check";
const KEY_CHECK_PLAIN: &str = "switchboard";

/// Opens the configured store, creating the data directory, the database and the key file
/// as needed. Fails before anything is read if the key does not match the database.
pub async fn open(config: &StoreConfig) -> Result<Arc<dyn Store>, StoreError> {
    std::fs::create_dir_all(&config.data_dir).map_err(|source| StoreError::Io {
        what: format!(
            "cannot create the data directory {}",
            config.data_dir.display()
        ),
        source,
    })?;
    match config.database_url.as_deref() {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            Ok(Arc::new(open_postgres(config, url).await?))
        }
        Some(url) if url.starts_with("sqlite:") => {
            let path = url
                .trim_start_matches("sqlite://")
                .trim_start_matches("sqlite:");
            Ok(Arc::new(open_sqlite(config, PathBuf::from(path)).await?))
        }
        Some(other) => Err(StoreError::DatabaseUrl(switchboard_core::spec::redact_url(
            other,
        ))),
        None => Ok(Arc::new(
            open_sqlite(config, config.data_dir.join(DB_FILE)).await?,
        )),
    }
}

/// The cipher for the database behind `$pool` (an executor, evaluated for each statement): reads the stored key check, settles the key
/// ([`settle_key`]) and stores a check when there was none. Of two processes opening a fresh
/// database at once, the one whose check lost the insert verifies the winner's instead. (A
/// macro because the two pools are different concrete types; the statements are the same.)
macro_rules! cipher_for {
    ($pool:expr, $config:expr) => {{
        let check: Option<(String,)> = sqlx::query_as("SELECT value FROM meta WHERE key = $1")
            .bind(KEY_CHECK)
            .fetch_optional($pool)
            .await?;
        let (cipher, new_check) = settle_key($config, check.map(|(v,)| v))?;
        if let Some(value) = new_check {
            let inserted = sqlx::query(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
            )
            .bind(KEY_CHECK)
            .bind(value)
            .execute($pool)
            .await?;
            if inserted.rows_affected() == 0 {
                let (check,): (String,) = sqlx::query_as("SELECT value FROM meta WHERE key = $1")
                    .bind(KEY_CHECK)
                    .fetch_one($pool)
                    .await?;
                settle_key($config, Some(check))?;
            }
        }
        cipher
    }};
}

/// The SQLite store at `path`.
pub async fn open_sqlite(config: &StoreConfig, path: PathBuf) -> Result<SqliteStore, StoreError> {
    let (writer, readers) = SqliteStore::connect(&path).await?;
    let mut held = writer.lock().await?;
    let cipher = cipher_for!(&mut *held, config);
    drop(held);
    Ok(SqliteStore::new(writer, readers, cipher))
}

/// The Postgres store at `url`.
pub async fn open_postgres(config: &StoreConfig, url: &str) -> Result<PostgresStore, StoreError> {
    let pool = PostgresStore::connect(url).await?;
    let cipher = cipher_for!(&pool, config);
    Ok(PostgresStore::new(pool, cipher))
}

/// The cipher to use, given the stored check value (if any), and the check value to store
/// when there was none. A database with a check value never gets a new key file.
fn settle_key(
    config: &StoreConfig,
    stored_check: Option<String>,
) -> Result<(Cipher, Option<String>), StoreError> {
    let (key, source) = SecretKey::resolve(
        config.secret_key.as_deref(),
        &config.data_dir,
        stored_check.is_none(),
    )?;
    let cipher = Cipher::new(&key);
    match stored_check {
        Some(check) => match cipher.open(KEY_CHECK_FIELD, &check) {
            Ok(plain) if plain == KEY_CHECK_PLAIN => Ok((cipher, None)),
            _ => Err(SecretError::WrongKey {
                source_name: source.describe(),
            }
            .into()),
        },
        None => {
            let check = cipher.seal(KEY_CHECK_FIELD, KEY_CHECK_PLAIN)?;
            Ok((cipher, Some(check)))
        }
    }
}
