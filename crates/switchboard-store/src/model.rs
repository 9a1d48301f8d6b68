//! What the store keeps, as the layers above see it.
//!
//! Every owned row carries its owner implicitly: it is read and written through methods that
//! take the owner, and is not found under any other. Times are milliseconds since the Unix
//! epoch ([`Timestamp`]).

mod assistant;
mod audit;
mod conversation;
mod provider;
mod server_shape;
mod task;
mod user;
mod view;

pub use assistant::{
    Assistant, AssistantConfig, DEFAULT_MAX_ROUNDS, MAX_PINNED_TOOLS, PinnedTool, ToolExposure,
    ToolMode,
};
pub use audit::{AuditOutcome, AuditRecord, CallerKind, NewAuditRecord};
pub use conversation::{
    ChatSettings, Conversation, ConversationCursor, MAX_MODEL_CHARS, MAX_SYSTEM_PROMPT_CHARS,
    Message, MessageRole, NewConversation, NewMessage,
};
pub use provider::{Provider, ProviderConfig, ProviderKind};
pub use server_shape::{ServerShape, WrittenShape};
pub use task::{
    LiveStatus, NewTask, StoredTask, TaskCursor, TaskEnd, TaskFilter, TaskKind, TaskOrigin,
    TaskPoll, TaskQuota, TaskStatus, TaskUpstream,
};
pub use user::{ApiToken, IssuedToken, Role, TokenAccess, TokenView, User};
pub use view::StoredView;

use serde::{Deserialize, Serialize};
use switchboard_core::{ServerSpec, ToolNode};

/// Milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn now() -> Self {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Self(millis)
    }

    /// `duration` after this instant.
    pub fn plus(self, duration: std::time::Duration) -> Self {
        let millis = i64::try_from(duration.as_millis()).unwrap_or(i64::MAX);
        Self(self.0.saturating_add(millis))
    }
}

/// A configured MCP server as read for display: its secrets are masked
/// ([`ServerSpec::masked`]). The connection code reads the clear spec with
/// [`Store::connection_spec`](crate::Store::connection_spec).
/// Its JSON is camelCase like the [`ServerSpec`] it flattens.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StoredServer {
    #[serde(flatten)]
    pub spec: ServerSpec,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A saved tool node (seed 002 `MCPToolNodeConfig`): its JSON is the node's, flattened, with
/// the id and times beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StoredToolNode {
    pub id: String,
    #[serde(flatten)]
    pub node: ToolNode,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A new random id for a row: a UUIDv7, so ids sort by creation time.
pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
