//! Each backend's migrations, embedded in the binary.
//!
//! sqlx's `migrate!` macro would do the embedding, but it needs sqlx's `macros` feature and
//! its compile-time machinery; `include_str!` and `Migrator`'s public fields do the same with
//! nothing extra to build. sqlx still runs them: in order, each in a transaction, with its
//! checksum recorded, and (on Postgres) under an advisory lock so replicas starting together
//! migrate once.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};

const SQLITE: &[(i64, &str, &str)] = &[
    (
        1,
        "init",
        include_str!("../migrations/sqlite/0001_init.sql"),
    ),
    (
        2,
        "run leases",
        include_str!("../migrations/sqlite/0002_run_leases.sql"),
    ),
    (
        3,
        "token expiry",
        include_str!("../migrations/sqlite/0003_token_expiry.sql"),
    ),
    (
        4,
        "user locale",
        include_str!("../migrations/sqlite/0004_user_locale.sql"),
    ),
    (
        5,
        "server shapes",
        include_str!("../migrations/sqlite/0005_server_shapes.sql"),
    ),
    (
        6,
        "conversation session",
        include_str!("../migrations/sqlite/0006_conversation_session.sql"),
    ),
    (
        7,
        "tool nodes",
        include_str!("../migrations/sqlite/0007_tool_nodes.sql"),
    ),
    (
        8,
        "tool call audit",
        include_str!("../migrations/sqlite/0008_tool_call_audit.sql"),
    ),
    (
        9,
        "server node",
        include_str!("../migrations/sqlite/0009_server_node.sql"),
    ),
    (
        10,
        "mcp views",
        include_str!("../migrations/sqlite/0010_mcp_views.sql"),
    ),
    (
        11,
        "oauth",
        include_str!("../migrations/sqlite/0011_oauth.sql"),
    ),
    (
        12,
        "server roots",
        include_str!("../migrations/sqlite/0012_server_roots.sql"),
    ),
    (
        13,
        "server sampling",
        include_str!("../migrations/sqlite/0013_server_sampling.sql"),
    ),
    (
        14,
        "message touches conversation",
        include_str!("../migrations/sqlite/0014_message_touches_conversation.sql"),
    ),
    (
        15,
        "audit per person",
        include_str!("../migrations/sqlite/0015_audit_per_person.sql"),
    ),
    (
        16,
        "message count",
        include_str!("../migrations/sqlite/0016_message_count.sql"),
    ),
    (
        17,
        "chat settings",
        include_str!("../migrations/sqlite/0017_chat_settings.sql"),
    ),
    (
        19,
        "messages by person",
        include_str!("../migrations/sqlite/0019_messages_by_person.sql"),
    ),
    (
        20,
        "tasks",
        include_str!("../migrations/sqlite/0020_tasks.sql"),
    ),
    (
        21,
        "server tasks",
        include_str!("../migrations/sqlite/0021_server_tasks.sql"),
    ),
    (
        26,
        "task view",
        include_str!("../migrations/sqlite/0026_task_view.sql"),
    ),
    (
        27,
        "embedding vectors",
        include_str!("../migrations/sqlite/0027_embedding_vectors.sql"),
    ),
    (
        28,
        "tool exposure",
        include_str!("../migrations/sqlite/0028_tool_exposure.sql"),
    ),
];

const POSTGRES: &[(i64, &str, &str)] = &[
    (
        1,
        "init",
        include_str!("../migrations/postgres/0001_init.sql"),
    ),
    (
        2,
        "run leases",
        include_str!("../migrations/postgres/0002_run_leases.sql"),
    ),
    (
        3,
        "token expiry",
        include_str!("../migrations/postgres/0003_token_expiry.sql"),
    ),
    (
        4,
        "user locale",
        include_str!("../migrations/postgres/0004_user_locale.sql"),
    ),
    (
        5,
        "server shapes",
        include_str!("../migrations/postgres/0005_server_shapes.sql"),
    ),
    (
        6,
        "conversation session",
        include_str!("../migrations/postgres/0006_conversation_session.sql"),
    ),
    (
        7,
        "tool nodes",
        include_str!("../migrations/postgres/0007_tool_nodes.sql"),
    ),
    (
        8,
        "tool call audit",
        include_str!("../migrations/postgres/0008_tool_call_audit.sql"),
    ),
    (
        9,
        "server node",
        include_str!("../migrations/postgres/0009_server_node.sql"),
    ),
    (
        10,
        "mcp views",
        include_str!("../migrations/postgres/0010_mcp_views.sql"),
    ),
    (
        11,
        "oauth",
        include_str!("../migrations/postgres/0011_oauth.sql"),
    ),
    (
        12,
        "server roots",
        include_str!("../migrations/postgres/0012_server_roots.sql"),
    ),
    (
        13,
        "server sampling",
        include_str!("../migrations/postgres/0013_server_sampling.sql"),
    ),
    (
        14,
        "message touches conversation",
        include_str!("../migrations/postgres/0014_message_touches_conversation.sql"),
    ),
    (
        15,
        "audit per person",
        include_str!("../migrations/postgres/0015_audit_per_person.sql"),
    ),
    (
        16,
        "message count",
        include_str!("../migrations/postgres/0016_message_count.sql"),
    ),
    (
        17,
        "chat settings",
        include_str!("../migrations/postgres/0017_chat_settings.sql"),
    ),
    (
        19,
        "messages by person",
        include_str!("../migrations/postgres/0019_messages_by_person.sql"),
    ),
    (
        20,
        "tasks",
        include_str!("../migrations/postgres/0020_tasks.sql"),
    ),
    (
        21,
        "server tasks",
        include_str!("../migrations/postgres/0021_server_tasks.sql"),
    ),
    (
        26,
        "task view",
        include_str!("../migrations/postgres/0026_task_view.sql"),
    ),
    (
        27,
        "embedding vectors",
        include_str!("../migrations/postgres/0027_embedding_vectors.sql"),
    ),
    (
        28,
        "tool exposure",
        include_str!("../migrations/postgres/0028_tool_exposure.sql"),
    ),
];

fn migrator(list: &[(i64, &'static str, &'static str)]) -> Migrator {
    let migrations: Vec<Migration> = list
        .iter()
        .map(|&(version, description, sql)| {
            Migration::new(
                version,
                Cow::Borrowed(description),
                MigrationType::Simple,
                Cow::Borrowed(sql),
                false,
            )
        })
        .collect();
    Migrator {
        migrations: Cow::Owned(migrations),
        ..Migrator::DEFAULT
    }
}

pub(crate) fn sqlite() -> Migrator {
    migrator(SQLITE)
}

pub(crate) fn postgres() -> Migrator {
    migrator(POSTGRES)
}
