//! Switchboard's storage: everything it keeps, on SQLite (the zero-set-up default) or
//! Postgres (for several replicas), with secrets encrypted at rest.
//!
//! - [`Store`] is the trait the layers above use, split by area ([`UserStore`],
//!   [`ServerStore`], [`ProviderStore`], [`AssistantStore`], [`ConversationStore`],
//!   [`ToolNodeStore`]); `use switchboard_store::prelude::*` brings every method into scope.
//! - [`SqliteStore`] and [`PostgresStore`] implement it, each with its own migrations
//!   (`migrations/sqlite`, `migrations/postgres`), run when the store opens.
//! - [`open`] picks the backend from the database URL and settles the secret key
//!   ([`secret`]): `SWITCHBOARD_SECRET_KEY` or a key file created on first run.
//!
//! Every owned row is read and written through its owner; another owner's row is "not found".
//!
//! ```no_run
//! # async fn demo() -> Result<(), switchboard_store::StoreError> {
//! use switchboard_core::{OwnerId, ServerSpec};
//! use switchboard_store::prelude::*;
//! use switchboard_store::{Role, StoreConfig};
//!
//! let store = switchboard_store::open(&StoreConfig::in_dir("./switchboard-data")).await?;
//! let me = store.ensure_user(&OwnerId::local(), "local", Role::Admin).await?;
//! let spec = ServerSpec::stdio("files", "npx", ["-y", "@modelcontextprotocol/server-filesystem"]);
//! store.create_server(&me.id, &spec).await?;
//! assert_eq!(store.servers(&me.id).await?.len(), 1);
//! # Ok(()) }
//! ```

mod audit_store;
mod error;
mod invalid;
mod known_calls;
mod migrate;
pub mod model;
mod open;
mod postgres;
mod read_cache;
pub mod secret;
mod sql;
mod sqlite;
mod sqlite_writer;
mod store;
mod text;
mod vector_store;

pub use audit_store::AuditStore;
pub use error::{Entity, StoreError, Transition};
pub use invalid::Invalid;
pub use model::{
    ApiToken, Assistant, AssistantConfig, ChatSettings, Conversation, ConversationCursor,
    DEFAULT_MAX_ROUNDS, IssuedToken, MAX_MODEL_CHARS, MAX_PINNED_TOOLS, MAX_SYSTEM_PROMPT_CHARS,
    Message, MessageRole, NewConversation, NewMessage, PinnedTool, Provider, ProviderConfig,
    ProviderKind, Role, ServerShape, StoredServer, StoredToolNode, StoredView, Timestamp,
    TokenAccess, TokenView, ToolExposure, ToolMode, User, WrittenShape,
};
pub use model::{AuditOutcome, AuditRecord, CallerKind, NewAuditRecord};
pub use model::{
    LiveStatus, NewTask, StoredTask, TaskCursor, TaskEnd, TaskFilter, TaskKind, TaskOrigin,
    TaskPoll, TaskQuota, TaskStatus, TaskUpstream,
};
pub use open::{StoreConfig, open, open_postgres, open_sqlite};
pub use postgres::PostgresStore;
pub use secret::SecretError;
pub use sql::users::TOKEN_PREFIX;
pub use sqlite::{DB_FILE, SqliteStore};
pub use store::{
    AssistantStore, Backend, ConversationStore, LeaseStore, OAuthRefreshLock, OAuthStore,
    PendingSignIn, ProviderStore, ServerEdit, ServerShapeStore, ServerStore, SignalStore, Signals,
    Store, TaskStore, ToolCallEdit, ToolNodeStore, UserStore, ViewStore,
};
pub use vector_store::{TextHash, VectorStore};

/// Every store trait, so their methods can be called on a `dyn Store`.
pub mod prelude {
    pub use crate::audit_store::AuditStore;
    pub use crate::store::{
        AssistantStore, ConversationStore, LeaseStore, OAuthStore, ProviderStore, ServerShapeStore,
        ServerStore, SignalStore, Store, TaskStore, ToolNodeStore, UserStore, ViewStore,
    };
    pub use crate::vector_store::VectorStore;
}
