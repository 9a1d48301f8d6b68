//! A fresh store for each test: a temporary SQLite file, or a new database on the Postgres
//! named by `SWITCHBOARD_TEST_POSTGRES` (dropped when the test ends, even by a panic).

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use switchboard_core::OwnerId;
use switchboard_store::prelude::*;
use switchboard_store::{Role, StoreConfig, User};

pub const POSTGRES_ENV: &str = "SWITCHBOARD_TEST_POSTGRES";

pub struct TestDb {
    pub store: Arc<dyn Store>,
    pub config: StoreConfig,
    pub dir: tempfile::TempDir,
    postgres: Option<PgDatabase>,
}

impl TestDb {
    pub async fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().unwrap();
        let config = StoreConfig::in_dir(dir.path());
        let store = switchboard_store::open(&config).await.unwrap();
        TestDb {
            store,
            config,
            dir,
            postgres: None,
        }
    }

    /// `None`, after printing why, when no Postgres is configured.
    pub async fn postgres() -> Option<TestDb> {
        let Ok(admin_url) = std::env::var(POSTGRES_ENV) else {
            eprintln!("skipped: {POSTGRES_ENV} is not set, so this Postgres test did not run");
            return None;
        };
        let database = PgDatabase::create(&admin_url).await;
        let dir = tempfile::tempdir().unwrap();
        let mut config = StoreConfig::in_dir(dir.path());
        config.database_url = Some(database.url.clone());
        let store = switchboard_store::open(&config).await.unwrap();
        Some(TestDb {
            store,
            config,
            dir,
            postgres: Some(database),
        })
    }

    pub fn db_url(&self) -> Option<&str> {
        self.postgres.as_ref().map(|p| p.url.as_str())
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// A fresh user that owns what a test creates.
    pub async fn user(&self, name: &str) -> User {
        self.store.create_user(name, Role::Member).await.unwrap()
    }

    pub async fn local(&self) -> OwnerId {
        self.store
            .ensure_user(&OwnerId::local(), "local", Role::Admin)
            .await
            .unwrap()
            .id
    }
}

/// A database of its own on the test Postgres server.
struct PgDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl PgDatabase {
    async fn create(admin_url: &str) -> PgDatabase {
        use sqlx::Connection;
        let name = format!("sb_test_{}", uuid_simple());
        let mut admin = sqlx::PgConnection::connect(admin_url).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .unwrap();
        admin.close().await.unwrap();
        let mut url = url::Url::parse(admin_url).unwrap();
        url.set_path(&name);
        PgDatabase {
            admin_url: admin_url.to_owned(),
            name,
            url: url.to_string(),
        }
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // Drop may run inside the test's runtime; a thread with its own runtime can block.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                use sqlx::Connection;
                let mut admin = sqlx::PgConnection::connect(&admin_url).await?;
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut admin)
                    .await?;
                admin.close().await
            })
        })
        .join();
        if let Ok(Err(e)) = dropped {
            eprintln!("could not drop test database {}: {e}", self.name);
        }
    }
}

fn uuid_simple() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{}_{:x}", std::process::id(), nanos)
}

/// Runs a behaviour on SQLite and, when configured, on Postgres: each name becomes
/// `sqlite::name` and `postgres::name` calling `name(&TestDb)`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let db = $crate::common::TestDb::sqlite().await;
                    super::$name(&db).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let Some(db) = $crate::common::TestDb::postgres().await else {
                        return;
                    };
                    super::$name(&db).await;
                }
            )*
        }
    };
}
