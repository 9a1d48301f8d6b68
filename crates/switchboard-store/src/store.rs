//! The [`Store`] trait: everything Switchboard keeps, scoped to its owner.
//!
//! There are two implementations, [`SqliteStore`](crate::SqliteStore) and
//! [`PostgresStore`](crate::PostgresStore), each with its own migrations; [`open`](crate::open)
//! picks one from the database URL. Methods that read or write an owned row take the owner,
//! and a row of another owner is [`StoreError::NotFound`], exactly like a row that does not
//! exist, so no caller can learn whether someone else's id exists.
//!
//! Secrets: servers and providers read for display come back masked; only
//! [`Store::connection_spec`] / [`Store::connection_specs`] / [`Store::provider_with_key`],
//! meant for the code that connects, return them in clear. Writes take the masked
//! placeholder ([`switchboard_core::MASK`]) to mean "keep the stored secret".

use async_trait::async_trait;
use switchboard_core::{OwnerId, ServerId, ServerSpec, ToolCallRecord, ToolNode};

use crate::StoreError;
use crate::model::{
    ApiToken, Assistant, AssistantConfig, Conversation, IssuedToken, Message, NewConversation,
    NewMessage, Provider, ProviderConfig, Role, ServerShape, StoredServer, StoredToolNode,
    StoredView, TokenAccess, User,
};

/// A change to one tool call, applied atomically to the stored call. It may refuse (for
/// example a confirmation of a call that is no longer `pending`), and then nothing is written.
pub type ToolCallEdit<'a> =
    &'a (dyn Fn(&mut ToolCallRecord) -> Result<(), StoreError> + Send + Sync);

/// Everything Switchboard keeps. The methods live in one trait per area; bring them into
/// scope with `use switchboard_store::prelude::*`.
#[async_trait]
pub trait Store:
    UserStore
    + ServerStore
    + ServerShapeStore
    + ProviderStore
    + AssistantStore
    + ConversationStore
    + ToolNodeStore
    + ViewStore
    + OAuthStore
    + LeaseStore
    + TaskStore
    + SignalStore
    + crate::audit_store::AuditStore
    + crate::vector_store::VectorStore
    + Send
    + Sync
    + std::fmt::Debug
{
    fn backend(&self) -> Backend;

    /// Closes every connection, waiting for them to finish (SQLite then folds its WAL back
    /// into the database file).
    async fn close(&self);
}

/// A change to a stored server, applied under its row lock (see [`ServerStore::edit_server`]).
pub type ServerEdit<'a> = &'a (dyn Fn(&ServerSpec) -> Result<ServerSpec, StoreError> + Send + Sync);

/// Which database a store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The users and their API tokens (not owned: managed by admins).
#[async_trait]
pub trait UserStore {
    async fn create_user(&self, name: &str, role: Role) -> Result<User, StoreError>;
    /// The user with this id, created with `name` and `role` if absent (the CLI's `local`).
    async fn ensure_user(&self, id: &OwnerId, name: &str, role: Role) -> Result<User, StoreError>;
    async fn user(&self, id: &OwnerId) -> Result<User, StoreError>;
    async fn users(&self) -> Result<Vec<User>, StoreError>;
    /// Deletes the user and everything they own.
    async fn delete_user(&self, id: &OwnerId) -> Result<(), StoreError>;
    /// A new API token that lasts until revoked; its secret is returned now and only its hash
    /// is kept.
    async fn issue_token(&self, user: &OwnerId, label: &str) -> Result<IssuedToken, StoreError> {
        self.issue_token_until(user, label, None).await
    }
    /// A new API token, refused from `expires_at` on (when given).
    async fn issue_token_until(
        &self,
        user: &OwnerId,
        label: &str,
        expires_at: Option<crate::Timestamp>,
    ) -> Result<IssuedToken, StoreError> {
        self.issue_token_for(user, label, expires_at, None).await
    }
    /// A new API token, refused from `expires_at` on (when given), limited to the user's view
    /// `view_id` when given ([`StoreError::NotFound`] of a view when it is not theirs).
    /// Deleting the view deletes the token.
    async fn issue_token_for(
        &self,
        user: &OwnerId,
        label: &str,
        expires_at: Option<crate::Timestamp>,
        view_id: Option<&str>,
    ) -> Result<IssuedToken, StoreError>;
    async fn tokens(&self, user: &OwnerId) -> Result<Vec<ApiToken>, StoreError>;
    async fn revoke_token(&self, user: &OwnerId, token_id: &str) -> Result<(), StoreError>;
    /// Sets (or, with `None`, clears) the language the user chose; the user as now stored.
    async fn set_user_locale(
        &self,
        id: &OwnerId,
        locale: Option<switchboard_core::Locale>,
    ) -> Result<User, StoreError>;
    /// The user a bearer token belongs to, if it is a live token (not revoked, not expired).
    /// A token limited to a view gives its user too: use [`UserStore::token_access`] where
    /// the limit matters (every request's authentication).
    async fn user_by_token(&self, secret: &str) -> Result<Option<User>, StoreError> {
        Ok(self.token_access(secret).await?.map(|access| access.user))
    }
    /// What a bearer token opens, if it is a live token: its user and the view it is limited
    /// to, in one lookup.
    async fn token_access(&self, secret: &str) -> Result<Option<TokenAccess>, StoreError>;
}

/// The shape each server was written in through the seeds' shared path
/// ([`ServerShape`]); a server written only through the house API has none.
#[async_trait]
pub trait ServerShapeStore {
    /// Records how the server `id` was last written; [`StoreError::NotFound`] when the owner
    /// has no such server.
    async fn set_server_shape(
        &self,
        owner: &OwnerId,
        id: &ServerId,
        shape: &ServerShape,
    ) -> Result<(), StoreError>;
    /// The recorded shapes of the owner's servers.
    async fn server_shapes(
        &self,
        owner: &OwnerId,
    ) -> Result<std::collections::BTreeMap<ServerId, ServerShape>, StoreError>;
}

/// The configured MCP servers.
#[async_trait]
pub trait ServerStore {
    /// Stores a new server; its id and its name must both be free for this owner.
    async fn create_server(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
    ) -> Result<StoredServer, StoreError>;
    /// As [`ServerStore::create_server`], refused with [`StoreError::QuotaExceeded`] when the
    /// owner has `max` servers already (counted in the inserting transaction).
    async fn create_server_within(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        max: u32,
    ) -> Result<StoredServer, StoreError>;
    /// The server with its secrets masked.
    async fn server(&self, owner: &OwnerId, id: &ServerId) -> Result<StoredServer, StoreError>;
    /// Every server of the owner, in the order they were created, secrets masked.
    async fn servers(&self, owner: &OwnerId) -> Result<Vec<StoredServer>, StoreError>;
    /// The server with its secrets in clear, for connecting.
    async fn connection_spec(
        &self,
        owner: &OwnerId,
        id: &ServerId,
    ) -> Result<ServerSpec, StoreError>;
    /// Every server of the owner with secrets in clear, for connecting.
    async fn connection_specs(&self, owner: &OwnerId) -> Result<Vec<ServerSpec>, StoreError>;
    /// Replaces the server `id` with `spec` (whose id must be `id`); a secret given as the
    /// mask keeps its stored value.
    async fn update_server(
        &self,
        owner: &OwnerId,
        id: &ServerId,
        spec: &ServerSpec,
    ) -> Result<StoredServer, StoreError>;
    /// Changes the stored server under its row lock: `edit` gets it with secrets in clear and
    /// returns the new spec (same id). Concurrent edits of one server each see the other's
    /// result, so toggling two tools at once loses neither.
    async fn edit_server(
        &self,
        owner: &OwnerId,
        id: &ServerId,
        edit: ServerEdit<'_>,
    ) -> Result<StoredServer, StoreError>;
    /// Deletes the server, its tool nodes and its place in assistants.
    async fn delete_server(&self, owner: &OwnerId, id: &ServerId) -> Result<(), StoreError>;
    /// Whether [`ServerStore::import_servers_once`] ran for `marker`.
    async fn imported(&self, owner: &OwnerId, marker: &str) -> Result<bool, StoreError>;
    /// Stores `specs` once per `marker`, in one transaction: the first call adds every spec
    /// whose id and name are free (and returns how many), later calls do nothing (`None`).
    async fn import_servers_once(
        &self,
        owner: &OwnerId,
        marker: &str,
        specs: &[ServerSpec],
    ) -> Result<Option<usize>, StoreError>;
}

/// The LLM providers.
#[async_trait]
pub trait ProviderStore {
    async fn create_provider(
        &self,
        owner: &OwnerId,
        config: &ProviderConfig,
    ) -> Result<Provider, StoreError>;
    /// As [`ProviderStore::create_provider`], within a quota of `max` providers.
    async fn create_provider_within(
        &self,
        owner: &OwnerId,
        config: &ProviderConfig,
        max: u32,
    ) -> Result<Provider, StoreError>;
    /// The provider with its key masked.
    async fn provider(&self, owner: &OwnerId, id: &str) -> Result<Provider, StoreError>;
    /// The provider with its key in clear, for the LLM client.
    async fn provider_with_key(&self, owner: &OwnerId, id: &str) -> Result<Provider, StoreError>;
    async fn providers(&self, owner: &OwnerId) -> Result<Vec<Provider>, StoreError>;
    async fn update_provider(
        &self,
        owner: &OwnerId,
        id: &str,
        config: &ProviderConfig,
    ) -> Result<Provider, StoreError>;
    /// Deletes the provider; assistants that used it fall back to the default provider.
    async fn delete_provider(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError>;
}

/// The assistants and the servers each may use.
#[async_trait]
pub trait AssistantStore {
    async fn create_assistant(
        &self,
        owner: &OwnerId,
        config: &AssistantConfig,
    ) -> Result<Assistant, StoreError>;
    /// As [`AssistantStore::create_assistant`], within a quota of `max` assistants.
    async fn create_assistant_within(
        &self,
        owner: &OwnerId,
        config: &AssistantConfig,
        max: u32,
    ) -> Result<Assistant, StoreError>;
    async fn assistant(&self, owner: &OwnerId, id: &str) -> Result<Assistant, StoreError>;
    async fn assistants(&self, owner: &OwnerId) -> Result<Vec<Assistant>, StoreError>;
    async fn update_assistant(
        &self,
        owner: &OwnerId,
        id: &str,
        config: &AssistantConfig,
    ) -> Result<Assistant, StoreError>;
    async fn delete_assistant(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError>;
    /// Replaces the servers the assistant may use; every one must be the owner's.
    async fn set_assistant_servers(
        &self,
        owner: &OwnerId,
        id: &str,
        servers: &[ServerId],
    ) -> Result<Assistant, StoreError>;
}

/// The conversations, messages and the tool calls inside them.
#[async_trait]
pub trait ConversationStore {
    async fn create_conversation(
        &self,
        owner: &OwnerId,
        new: &NewConversation,
    ) -> Result<Conversation, StoreError>;
    /// As [`ConversationStore::create_conversation`], within a quota of `max` conversations.
    async fn create_conversation_within(
        &self,
        owner: &OwnerId,
        new: &NewConversation,
        max: u32,
    ) -> Result<Conversation, StoreError>;
    async fn conversation(&self, owner: &OwnerId, id: &str) -> Result<Conversation, StoreError>;
    /// Most recently active first.
    async fn conversations(&self, owner: &OwnerId) -> Result<Vec<Conversation>, StoreError>;
    /// At most `limit` of [`ConversationStore::conversations`], those after `after` when
    /// given: a listing in pages, whatever the number of conversations.
    async fn conversations_page(
        &self,
        owner: &OwnerId,
        after: Option<&crate::model::ConversationCursor>,
        limit: u32,
    ) -> Result<Vec<Conversation>, StoreError>;
    /// At most `limit` of the owner's conversations whose title or any message's text
    /// contains `text` (letters compared without case; `%`, `_` and `\` mean themselves),
    /// in the listing's order and paged as [`ConversationStore::conversations_page`] is.
    /// `text` is at most 200 characters.
    async fn search_conversations(
        &self,
        owner: &OwnerId,
        text: &str,
        after: Option<&crate::model::ConversationCursor>,
        limit: u32,
    ) -> Result<Vec<Conversation>, StoreError>;
    async fn rename_conversation(
        &self,
        owner: &OwnerId,
        id: &str,
        title: &str,
    ) -> Result<Conversation, StoreError>;
    /// Deletes the conversation and its messages.
    async fn delete_conversation(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError>;
    /// The owner's conversation whose client-chosen key is `session`, created (titled
    /// `title`, without an assistant) when there is none; `true` when it was created now. Keys
    /// are per owner: the same key of another owner is another conversation. Creating one is
    /// within a quota of `max` conversations when given.
    async fn session_conversation(
        &self,
        owner: &OwnerId,
        session: &str,
        title: &str,
        max: Option<u32>,
    ) -> Result<(Conversation, bool), StoreError>;
    /// Merges `variables` into the conversation's under its row lock: each top-level key
    /// given replaces the stored one, a `null` value removes it, other keys stay.
    async fn merge_variables(
        &self,
        owner: &OwnerId,
        id: &str,
        variables: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Conversation, StoreError>;
    /// Replaces the conversation's variables.
    async fn set_variables(
        &self,
        owner: &OwnerId,
        id: &str,
        variables: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Conversation, StoreError>;
    /// Limits the conversation's runs to the tools of `server` (`None`: no limit). The
    /// server is not checked here; the run's resolution checks it is the owner's.
    async fn limit_to_server(
        &self,
        owner: &OwnerId,
        id: &str,
        server: Option<&ServerId>,
    ) -> Result<Conversation, StoreError>;
    /// Replaces the chat's own model, system prompt and temperature (blank text is none; a
    /// temperature outside 0..=2 is refused). Not an activity: the listing's order stays.
    async fn set_chat_settings(
        &self,
        owner: &OwnerId,
        id: &str,
        settings: &crate::model::ChatSettings,
    ) -> Result<Conversation, StoreError>;
    async fn append_message(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        new: &NewMessage,
    ) -> Result<Message, StoreError>;
    async fn message(&self, owner: &OwnerId, id: &str) -> Result<Message, StoreError>;
    /// How many messages `owner` keeps, in all their conversations (0 for no such owner).
    async fn message_count(&self, owner: &OwnerId) -> Result<u64, StoreError>;
    /// The conversation's messages, oldest first.
    async fn messages(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
    ) -> Result<Vec<Message>, StoreError>;
    /// Replaces a message's text, and its metadata when given (the agent persists an answer as
    /// it streams).
    async fn set_message_content(
        &self,
        owner: &OwnerId,
        id: &str,
        content: &str,
        metadata: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> Result<Message, StoreError>;
    /// Forks the conversation after `message_id`: every message after it is deleted, in one
    /// transaction (see `sql/forks.rs` for why forks delete). [`StoreError::NotFound`] of
    /// the message when it is not in the owner's conversation. Returns how many went.
    async fn delete_messages_after(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<u64, StoreError>;
    /// Forks the conversation at `message_id`: it and every message after it are replaced by
    /// `new`, in one transaction, so the conversation never holds both or neither.
    /// [`StoreError::NotFound`] of the message when it is not in the owner's conversation.
    /// Returns the new message.
    async fn replace_messages_from(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        message_id: &str,
        new: &NewMessage,
    ) -> Result<Message, StoreError>;
    /// Appends tool calls to the message's `toolCalls`, atomically; an id already present is
    /// a conflict and nothing is added.
    async fn add_tool_calls(
        &self,
        owner: &OwnerId,
        message_id: &str,
        calls: &[ToolCallRecord],
    ) -> Result<Message, StoreError>;
    /// [`ConversationStore::add_tool_calls`] and [`ConversationStore::set_message_content`] in
    /// one atomic write: the agent records a model round's calls with its text.
    async fn add_tool_calls_with_content(
        &self,
        owner: &OwnerId,
        message_id: &str,
        calls: &[ToolCallRecord],
        content: &str,
        metadata: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Message, StoreError>;
    /// Applies `edit` to one tool call of the message atomically, so concurrent edits of
    /// different calls of one message all survive (`edit` may run more than once: on a
    /// concurrent change it is applied again to what is stored then). Returns the call as
    /// stored.
    async fn update_tool_call(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
        edit: ToolCallEdit<'_>,
    ) -> Result<ToolCallRecord, StoreError>;
    /// [`ConversationStore::update_tool_call`], returning the whole message as that write
    /// left it too (the agent goes on from it without reading it again).
    async fn edit_tool_call(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
        edit: ToolCallEdit<'_>,
    ) -> Result<(ToolCallRecord, Message), StoreError>;
}

/// The tool nodes (seed 002 `MCPToolNodeConfig`). A node's server, and its assistant when it
/// names one, must be the owner's (else [`StoreError::NotFound`] of that server or assistant);
/// deleting either deletes the node. Names are unique per owner.
#[async_trait]
pub trait ToolNodeStore {
    async fn create_tool_node(
        &self,
        owner: &OwnerId,
        node: &ToolNode,
    ) -> Result<StoredToolNode, StoreError>;
    /// As [`ToolNodeStore::create_tool_node`], within a quota of `max` nodes.
    async fn create_tool_node_within(
        &self,
        owner: &OwnerId,
        node: &ToolNode,
        max: u32,
    ) -> Result<StoredToolNode, StoreError>;
    async fn tool_node(&self, owner: &OwnerId, id: &str) -> Result<StoredToolNode, StoreError>;
    /// Every node of the owner, in the order they were created.
    async fn tool_nodes(&self, owner: &OwnerId) -> Result<Vec<StoredToolNode>, StoreError>;
    /// The nodes of the owner's assistant `assistant_id`, in the order they were created;
    /// [`StoreError::NotFound`] when the assistant is not the owner's.
    async fn assistant_tool_nodes(
        &self,
        owner: &OwnerId,
        assistant_id: &str,
    ) -> Result<Vec<StoredToolNode>, StoreError>;
    async fn update_tool_node(
        &self,
        owner: &OwnerId,
        id: &str,
        node: &ToolNode,
    ) -> Result<StoredToolNode, StoreError>;
    async fn delete_tool_node(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError>;
}

/// Which process runs a conversation's turn, across every process sharing the store (several
/// `serve` replicas, or `serve` and a terminal `chat` on one SQLite file).
#[async_trait]
pub trait LeaseStore {
    /// Takes or renews the lease on running `conversation_id` for `holder`, for `ttl` from
    /// now. `false` when another holder's lease has not expired.
    async fn lease_run(
        &self,
        conversation_id: &str,
        holder: &str,
        ttl: std::time::Duration,
    ) -> Result<bool, StoreError>;
    /// Gives the lease up, if `holder` has it.
    async fn release_run(&self, conversation_id: &str, holder: &str) -> Result<(), StoreError>;
}

/// Tasks (MCP tasks), kept so that one poller at a time, in any process sharing the store,
/// follows each to its end. Every method but the owner's reads and cancel is the poller's.
#[async_trait]
pub trait TaskStore {
    /// Keeps a new live task of `owner`. Refused with [`StoreError::QuotaExceeded`] when they
    /// have as many live tasks as `quota` allows, in all or on the task's server: counted in
    /// the inserting transaction, so two creations at once cannot both pass.
    async fn create_task(
        &self,
        owner: &OwnerId,
        task: &crate::model::NewTask,
        quota: crate::model::TaskQuota,
    ) -> Result<crate::model::StoredTask, StoreError>;
    /// `owner`'s task `id`; another owner's is not found.
    async fn task(&self, owner: &OwnerId, id: &str)
    -> Result<crate::model::StoredTask, StoreError>;
    /// Takes up to `limit` live tasks due for a poll for `holder`, for `lease` from now, the
    /// longest due first: those no one holds, `holder`'s own, and those whose holder's lease
    /// ran out (a process that died). Each due task goes to one holder only.
    async fn claim_due_tasks(
        &self,
        holder: &str,
        lease: std::time::Duration,
        limit: u32,
    ) -> Result<Vec<crate::model::StoredTask>, StoreError>;
    /// Extends the lease of every live task `holder` holds to `lease` from now: a process
    /// keeps the tasks it holds for as long as it lives (a stdio server's task can only be
    /// followed by the process that runs the server); returns how many it holds.
    async fn renew_task_holds(
        &self,
        holder: &str,
        lease: std::time::Duration,
    ) -> Result<u64, StoreError>;
    /// Records what a poll learnt of live task `id`; `false` when `holder` does not hold it
    /// (its lease was taken over) or it has ended.
    async fn record_task_poll(
        &self,
        id: &str,
        holder: &str,
        poll: &crate::model::TaskPoll,
    ) -> Result<bool, StoreError>;
    /// Ends live task `id`, held by `holder`, with its outcome (the tool's result or the
    /// error), and releases it; `false` as for [`Self::record_task_poll`].
    async fn finish_task(
        &self,
        id: &str,
        holder: &str,
        end: crate::model::TaskEnd,
        outcome: Option<&serde_json::Value>,
    ) -> Result<bool, StoreError>;
    /// Turns live task `id`, held by `holder`, into a task of its server: the call it ran
    /// was answered with one. `false` as for [`Self::record_task_poll`].
    async fn attach_task_upstream(
        &self,
        id: &str,
        holder: &str,
        upstream: &crate::model::TaskUpstream,
    ) -> Result<bool, StoreError>;
    /// Deletes the tasks that ended before `before` (their outcomes were kept for their
    /// callers to read until then); how many.
    async fn forget_ended_tasks(&self, before: crate::model::Timestamp) -> Result<u64, StoreError>;
    /// A page of `owner`'s tasks that `filter` selects, newest first, at most `limit`.
    async fn list_tasks(
        &self,
        owner: &OwnerId,
        filter: &crate::model::TaskFilter,
        limit: u32,
    ) -> Result<Vec<crate::model::StoredTask>, StoreError>;
    /// Asks for `owner`'s task `id` to be cancelled: marked, and due for its poller at once.
    /// A task that has ended is left as it is. Answers the task as it is now.
    async fn request_task_cancel(
        &self,
        owner: &OwnerId,
        id: &str,
    ) -> Result<crate::model::StoredTask, StoreError>;
}

/// Payloads on a channel, as [`SignalStore::listen`] gives them.
pub type Signals = futures::stream::BoxStream<'static, String>;

/// Signals between processes sharing the store: Postgres `NOTIFY`/`LISTEN`. SQLite has no such
/// thing, so there they do nothing and processes on one file find changes in the store.
#[async_trait]
pub trait SignalStore {
    /// Sends `payload` (at most 7,999 bytes) to every process listening on `channel`, itself
    /// included.
    async fn notify(&self, channel: &str, payload: &str) -> Result<(), StoreError>;
    /// The payloads sent on `channel` from now on; `None` where the backend has no signals.
    async fn listen(&self, channel: &str) -> Result<Option<Signals>, StoreError>;
}

/// The views of the MCP gateway, owned. Names are unique per owner
/// (`StoreError::Conflict` otherwise). A write checks the spec ([`ViewSpec::validate`]
/// (switchboard_core::ViewSpec::validate), [`StoreError::InvalidView`]) and that every server it
/// names and the assistant it follows are the owner's ([`StoreError::NotFound`] of that server
/// or assistant), in the writing transaction. Deleting a view deletes the tokens limited to it.
#[async_trait]
pub trait ViewStore {
    async fn create_view(
        &self,
        owner: &OwnerId,
        spec: &switchboard_core::ViewSpec,
    ) -> Result<StoredView, StoreError>;
    /// As [`ViewStore::create_view`], within a quota of `max` views.
    async fn create_view_within(
        &self,
        owner: &OwnerId,
        spec: &switchboard_core::ViewSpec,
        max: u32,
    ) -> Result<StoredView, StoreError>;
    async fn view(&self, owner: &OwnerId, id: &str) -> Result<StoredView, StoreError>;
    async fn view_by_name(&self, owner: &OwnerId, name: &str) -> Result<StoredView, StoreError>;
    /// Every view of the owner, in the order they were created.
    async fn views(&self, owner: &OwnerId) -> Result<Vec<StoredView>, StoreError>;
    async fn update_view(
        &self,
        owner: &OwnerId,
        id: &str,
        spec: &switchboard_core::ViewSpec,
    ) -> Result<StoredView, StoreError>;
    async fn delete_view(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError>;
}

/// OAuth sign-ins to remote MCP servers, per owner and server. The values are the
/// MCP client's own serialized state, sealed at rest; a server of another owner is
/// [`StoreError::NotFound`], and deleting a server deletes what is kept for it.
#[async_trait]
pub trait OAuthStore {
    /// The owner's credentials for `server`, in clear; `None` before the first sign-in.
    async fn oauth_credentials(
        &self,
        owner: &OwnerId,
        server: &ServerId,
    ) -> Result<Option<String>, StoreError>;
    async fn save_oauth_credentials(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        credentials: &str,
    ) -> Result<(), StoreError>;
    /// Forgets the sign-in; whether there was one.
    async fn delete_oauth_credentials(
        &self,
        owner: &OwnerId,
        server: &ServerId,
    ) -> Result<bool, StoreError>;
    /// Waits until no other replica refreshes the owner's tokens for `server`, and keeps them
    /// from starting until the lock is dropped (a row lock on Postgres; on SQLite, which one
    /// process serves, the caller's own lock is the whole of it).
    async fn lock_oauth_refresh(
        &self,
        owner: &OwnerId,
        server: &ServerId,
    ) -> Result<OAuthRefreshLock, StoreError>;
    /// Keeps a sign-in under way by its OAuth `state`, for at most 15 minutes; an owner's
    /// oldest beyond 16 are dropped.
    async fn save_oauth_pending(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        state: &str,
        payload: &str,
    ) -> Result<(), StoreError>;
    /// The sign-in under way with this `state`, unless it expired.
    async fn oauth_pending(&self, state: &str) -> Result<Option<PendingSignIn>, StoreError>;
    async fn delete_oauth_pending(&self, state: &str) -> Result<bool, StoreError>;
}

/// A sign-in under way ([`OAuthStore::oauth_pending`]).
#[derive(Debug, Clone)]
pub struct PendingSignIn {
    pub owner: OwnerId,
    pub server: ServerId,
    pub payload: String,
}

/// Held while tokens are refreshed; dropping it lets the next replica in.
#[derive(Default)]
pub struct OAuthRefreshLock(Option<Box<dyn std::any::Any + Send>>);

impl OAuthRefreshLock {
    pub(crate) fn holding(guard: impl std::any::Any + Send) -> Self {
        Self(Some(Box::new(guard)))
    }
}

impl std::fmt::Debug for OAuthRefreshLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("OAuthRefreshLock")
            .field(&self.0.is_some())
            .finish()
    }
}
