//! The SQL behind both stores.
//!
//! SQLite and Postgres take the same statements here: `$n` placeholders (sqlx binds `$n` by
//! number on SQLite too), TEXT ids, BIGINT millisecond times, BOOLEAN flags and JSON kept as
//! TEXT. So the queries are written once, in one `impl_*_store!` macro per area, and each
//! macro is expanded for [`SqliteStore`](crate::SqliteStore) and
//! [`PostgresStore`](crate::PostgresStore), where it compiles against that backend's concrete
//! pool. (A single generic implementation over `sqlx::Database` needs a wall of higher-ranked
//! bounds that `async_trait` futures do not carry well; the macro keeps each expansion plain,
//! concrete sqlx.) What differs per backend is small and lives on the store types: how a
//! write transaction begins, how a row is locked for a read-modify-write and which `LIKE`
//! ignores case.
//!
//! Rows are decoded into plain structs (`*Row`, `sqlx::FromRow`) and turned into domain types
//! by ordinary functions here, with secrets sealed and opened on the way. A row that does not
//! decode is a [`StoreError::Corrupt`](crate::StoreError::Corrupt) naming it.

pub(crate) mod assistants;
pub(crate) mod audit;
pub(crate) mod common;
pub(crate) mod conversation_rows;
pub(crate) mod conversations;
pub(crate) mod forks;
pub(crate) mod leases;
pub(crate) mod oauth;
pub(crate) mod providers;
pub(crate) mod quota;
pub(crate) mod search;
pub(crate) mod server_shapes;
pub(crate) mod servers;
pub(crate) mod tasks;
pub(crate) mod tool_nodes;
pub(crate) mod users;
pub(crate) mod vectors;
pub(crate) mod views;
