//! What can go wrong in the store, with the error code each maps to.

use switchboard_core::{ErrorCode, SpecError, ViewError};
use thiserror::Error;

use crate::invalid::Invalid;
use crate::secret::SecretError;

/// The kind of stored thing an error is about, as a person would name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Entity {
    User,
    ApiToken,
    Server,
    Provider,
    Assistant,
    Conversation,
    Message,
    ToolCall,
    ToolNode,
    AuditRecord,
    /// A view of the MCP gateway.
    View,
    /// A tool call run as a task.
    Task,
    /// A text's vector kept for semantic search.
    EmbeddingVector,
}

impl Entity {
    pub fn as_str(self) -> &'static str {
        match self {
            Entity::User => "user",
            Entity::ApiToken => "API token",
            Entity::Server => "MCP server",
            Entity::Provider => "provider",
            Entity::Assistant => "assistant",
            Entity::Conversation => "conversation",
            Entity::Message => "message",
            Entity::ToolCall => "tool call",
            Entity::ToolNode => "tool node",
            Entity::AuditRecord => "tool-call record",
            Entity::View => "view",
            Entity::Task => "task",
            Entity::EmbeddingVector => "embedding vector",
        }
    }
}

impl std::fmt::Display for Entity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a tool call's edit no longer applies: the call is not in the state the edit expects.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Transition {
    /// A decision on a call that is not waiting for one (its status, as a person reads it).
    #[error("{0}")]
    NotPending(String),
    /// An answer to a question the call does not have, or has an answer to already.
    #[error("no such question")]
    NoQuestion,
    /// The call ended already.
    #[error("already finished")]
    Finished,
    /// A resumed call that is not waiting for input any more.
    #[error("not resumable")]
    NotResumable,
    /// A call that is not approved and pending, so it may not start.
    #[error("not runnable")]
    NotRunnable,
    /// A call that is not running any more.
    #[error("the call is not running")]
    NotRunning,
}

/// Why a store operation failed. Nothing was written when one is returned.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No such row for this owner (another owner's row is "not found" too).
    #[error("{entity} {id:?} not found")]
    NotFound { entity: Entity, id: String },
    /// The name (or id) is taken by another row of the same owner.
    #[error("{entity} {name:?} already exists")]
    Conflict { entity: Entity, name: String },
    /// The owner has as many of these as they may have (a configured quota).
    #[error("at most {limit} {entity}s per user; delete one first")]
    QuotaExceeded { entity: Entity, limit: u32 },
    /// The input breaks a rule of the domain.
    #[error(transparent)]
    InvalidSpec(#[from] SpecError),
    /// A view of the gateway that breaks a rule ([`ViewError`]).
    #[error(transparent)]
    InvalidView(#[from] ViewError),
    /// The input breaks a rule of the store (an empty name, a value out of range).
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// A tool call's edit found the call no longer where the edit expects it: someone was
    /// first (a decision already taken, a call already finished or claimed). Only the edit
    /// given to the store returns it, so an invalid or corrupt row is never taken for it.
    #[error(transparent)]
    Transition(#[from] Transition),
    /// A secret could not be sealed or opened; see [`SecretError`].
    #[error(transparent)]
    Secret(#[from] SecretError),
    /// A stored row does not decode: someone edited the database by hand, or a bug wrote
    /// it. The row is left as it is and reported, never skipped.
    #[error("stored {entity} {id:?} is corrupt: {reason}")]
    Corrupt {
        entity: Entity,
        id: String,
        reason: String,
    },
    /// A value could not be encoded as JSON for its column (a bug, never the input).
    #[error("cannot encode {what}: {source}")]
    Encode {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
    /// The SQLite writer's connection is gone (the store is closing).
    #[error("the SQLite writer is not open")]
    Closed,
    /// The database URL names no backend this build has.
    #[error("DATABASE_URL must start with postgres:// or sqlite: (got {0})")]
    DatabaseUrl(String),
    /// The schema could not be brought up to date.
    #[error("cannot migrate the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The disk under the database is full (SQLite's `SQLITE_FULL`, Postgres's `disk_full`);
    /// the write was rolled back whole.
    #[error("the disk under the database is full; nothing was written")]
    Full(#[source] sqlx::Error),
    /// The database refused or failed.
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    /// The data directory or the database file could not be prepared.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl StoreError {
    /// The error code of the API's error shape.
    pub fn code(&self) -> ErrorCode {
        match self {
            StoreError::NotFound {
                entity: Entity::Server,
                ..
            } => ErrorCode::McpServerNotFound,
            StoreError::NotFound { .. } => ErrorCode::NotFound,
            StoreError::Conflict { .. } => ErrorCode::Conflict,
            StoreError::QuotaExceeded { .. } => ErrorCode::QuotaExceeded,
            StoreError::Full(_) => ErrorCode::StorageFull,
            StoreError::Invalid(Invalid::KeyForNewOrigin { .. }) => ErrorCode::ApiKeyOriginChanged,
            StoreError::InvalidSpec(_)
            | StoreError::InvalidView(_)
            | StoreError::Invalid(_)
            | StoreError::DatabaseUrl(_) => ErrorCode::ValidationError,
            StoreError::Transition(_) => ErrorCode::Conflict,
            StoreError::Secret(_)
            | StoreError::Corrupt { .. }
            | StoreError::Encode { .. }
            | StoreError::Closed
            | StoreError::Migrate(_)
            | StoreError::Database(_)
            | StoreError::Io { .. } => ErrorCode::InternalError,
        }
    }

    pub(crate) fn not_found(entity: Entity, id: impl Into<String>) -> Self {
        StoreError::NotFound {
            entity,
            id: id.into(),
        }
    }

    pub(crate) fn encode(what: &'static str, source: serde_json::Error) -> Self {
        StoreError::Encode { what, source }
    }

    pub(crate) fn corrupt(entity: Entity, id: &str, reason: impl ToString) -> Self {
        StoreError::Corrupt {
            entity,
            id: id.to_owned(),
            reason: reason.to_string(),
        }
    }

    /// A database error, with a unique violation turned into [`StoreError::Conflict`] on
    /// `name` (the only unique keys a caller can break are names and ids).
    pub(crate) fn from_write(error: sqlx::Error, entity: Entity, name: &str) -> Self {
        match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict {
                entity,
                name: name.to_owned(),
            },
            _ => StoreError::from(error),
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match &error {
            // Text Postgres cannot hold (`\0`). Writes refuse NUL before they reach the
            // database (`text::refuse_nul`); this is the net under that, so a path that was
            // missed still answers 400, not a raw database error.
            sqlx::Error::Database(db)
                if matches!(db.code().as_deref(), Some("22021" | "22P05")) =>
            {
                StoreError::Invalid(Invalid::Nul { at: String::new() })
            }
            _ if is_full(&error) => StoreError::Full(error),
            _ => StoreError::Database(error),
        }
    }
}

/// Whether the database failed for lack of disk: SQLite's `SQLITE_FULL` (13; it has no
/// extended codes), Postgres's SQLSTATE `disk_full` (53100), or the file system saying so to
/// sqlx itself.
fn is_full(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => matches!(db.code().as_deref(), Some("13" | "53100")),
        sqlx::Error::Io(io) => io.kind() == std::io::ErrorKind::StorageFull,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    /// A database's error with only a code, as each driver reports it.
    #[derive(Debug, thiserror::Error)]
    #[error("refused")]
    struct Coded(&'static str);

    impl sqlx::error::DatabaseError for Coded {
        fn message(&self) -> &str {
            "refused"
        }
        fn code(&self) -> Option<Cow<'_, str>> {
            Some(Cow::Borrowed(self.0))
        }
        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }
        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }

    fn code_of(code: &'static str) -> ErrorCode {
        StoreError::from(sqlx::Error::Database(Box::new(Coded(code)))).code()
    }

    #[test]
    fn a_full_disk_is_storage_full_on_either_database() {
        // SQLite: SQLITE_FULL; Postgres: disk_full.
        assert_eq!(code_of("13"), ErrorCode::StorageFull);
        assert_eq!(code_of("53100"), ErrorCode::StorageFull);
        // SQLITE_BUSY (5), a unique violation: not.
        assert_eq!(code_of("5"), ErrorCode::InternalError);
        assert_eq!(code_of("23505"), ErrorCode::InternalError);
        let io = std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert_eq!(
            StoreError::from(sqlx::Error::Io(io)).code(),
            ErrorCode::StorageFull
        );
    }
}
