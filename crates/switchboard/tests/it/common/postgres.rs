//! A fresh database on the test Postgres server (`SWITCHBOARD_TEST_POSTGRES`), dropped at the
//! end; `None`, with one line saying so, when the variable is not set.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use sqlx::Connection;

pub struct FreshPostgres {
    admin_url: String,
    name: String,
    pub url: String,
}

impl FreshPostgres {
    pub async fn create() -> Option<FreshPostgres> {
        let Ok(admin_url) = std::env::var("SWITCHBOARD_TEST_POSTGRES") else {
            eprintln!("skipped: SWITCHBOARD_TEST_POSTGRES is not set, so no Postgres test runs");
            return None;
        };
        let name = format!("sb_test_{}", uuid::Uuid::now_v7().simple());
        let mut admin = sqlx::PgConnection::connect(&admin_url).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .unwrap();
        admin.close().await.unwrap();
        let (base, _) = admin_url.rsplit_once('/').unwrap();
        Some(FreshPostgres {
            url: format!("{base}/{name}"),
            admin_url,
            name,
        })
    }

    pub async fn drop_database(self) {
        let mut admin = sqlx::PgConnection::connect(&self.admin_url).await.unwrap();
        sqlx::query(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ))
        .execute(&mut admin)
        .await
        .unwrap();
    }
}
