//! `conversations` and `messages`, with tool calls embedded in assistant messages; the rows
//! and their JSON columns are in [`conversation_rows`](super::conversation_rows).

pub(crate) use super::conversation_rows::{
    CONVERSATION_COLUMNS, ConversationRow, INSERT_MESSAGE, MESSAGE_COLUMNS, MessageRow,
    append_calls, edit_call, merged,
};

macro_rules! impl_conversation_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::{OwnerId, ToolCallRecord};
            use $crate::error::{Entity, StoreError};
            use $crate::model::{Conversation, Message, NewConversation, NewMessage, Timestamp, new_id};
            use $crate::sql::common::{one_row, to_json};
            use $crate::sql::conversations::{
                CONVERSATION_COLUMNS, ConversationRow, INSERT_MESSAGE, MESSAGE_COLUMNS,
                MessageRow, append_calls, edit_call,
            };
            use $crate::store::ToolCallEdit;

            impl $store {
                async fn message_row<'e, E>(
                    executor: E,
                    owner: &OwnerId,
                    id: &str,
                ) -> Result<MessageRow, StoreError>
                where
                    E: sqlx::Executor<'e, Database = $db>,
                {
                    let sql = format!(
                        "SELECT {MESSAGE_COLUMNS} FROM messages WHERE user_id = $1 AND id = $2"
                    );
                    sqlx::query_as::<_, MessageRow>(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .fetch_optional(executor)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Message, id))
                }

                /// The message's `tool_calls` as stored now.
                async fn stored_tool_calls(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    id: &str,
                ) -> Result<String, StoreError> {
                    let found: Option<(String,)> = sqlx::query_as(
                        "SELECT tool_calls FROM messages WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .fetch_optional(conn)
                    .await?;
                    found
                        .map(|(calls,)| calls)
                        .ok_or_else(|| StoreError::not_found(Entity::Message, id))
                }

                /// Edits a message's tool calls (and, with `content`, its text and metadata)
                /// by compare-and-swap: `change` computes the new `tool_calls` from the
                /// stored ones, which are written only if the column still holds what was
                /// read; otherwise it is read again and `change` applied anew. Two statements
                /// and no transaction instead of four under a lock: the agent makes two of
                /// these per tool call. Each failed attempt means another write succeeded, so
                /// the edits of concurrent callers (other processes, on SQLite; any, on
                /// Postgres) all land.
                async fn swap_tool_calls<T>(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    content: Option<(&str, &str)>,
                    change: impl Fn(&str) -> Result<(String, T), StoreError> + Send + Sync,
                ) -> Result<(MessageRow, T), StoreError>
                where
                    T: Send,
                {
                    let sql = format!(
                        "UPDATE messages SET tool_calls = $3, updated_at = $4, \
                         content = COALESCE($6, content), metadata = COALESCE($7, metadata) \
                         WHERE user_id = $1 AND id = $2 AND tool_calls = $5 \
                         RETURNING {MESSAGE_COLUMNS}"
                    );
                    // Read on the writing connection, and written while still holding it: on
                    // SQLite no other write of this process comes in between (the swap still
                    // guards against other processes), and its pages are the freshest cached.
                    // The first attempt is against what this process wrote last, unread
                    // ([`crate::known_calls`]); a refusal of `change` there is not trusted
                    // either, since that text may be stale.
                    let mut conn = self.writer().await?;
                    let mut known = self.known_calls.get(id);
                    loop {
                        let guess = known.take();
                        let guessed = guess.is_some();
                        let stored = match guess {
                            Some(stored) => stored,
                            None => Self::stored_tool_calls(&mut conn, owner, id).await?,
                        };
                        let (updated, out) = match change(&stored) {
                            Ok(changed) => changed,
                            Err(_) if guessed => continue,
                            Err(e) => return Err(e),
                        };
                        let row = sqlx::query_as::<_, MessageRow>(&sql)
                            .bind(&owner.0)
                            .bind(id)
                            .bind(&updated)
                            .bind(Timestamp::now().0)
                            .bind(&stored)
                            .bind(content.map(|(text, _)| text))
                            .bind(content.map(|(_, metadata)| metadata))
                            .fetch_optional(&mut *conn)
                            .await?;
                        if let Some(row) = row {
                            self.known_calls.put(id, &updated);
                            return Ok((row, out));
                        }
                    }
                }

                async fn write_variables(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    id: &str,
                    variables: &serde_json::Map<String, serde_json::Value>,
                ) -> Result<(), StoreError> {
                    sqlx::query("UPDATE conversations SET variables = $2, updated_at = $3 WHERE id = $1")
                        .bind(id)
                        .bind(to_json(variables)?)
                        .bind(Timestamp::now().0)
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                }
            }

            impl $store {
                async fn insert_new_conversation(
                    &self,
                    owner: &OwnerId,
                    new: &NewConversation,
                    max: Option<u32>,
                ) -> Result<Conversation, StoreError> {
                    crate::text::refuse_nul("title", &new.title)?;
                    crate::text::at_most("title", &new.title, crate::text::MAX_TITLE_CHARS)?;
                    let now = Timestamp::now().0;
                    let row = ConversationRow {
                        id: new_id(),
                        title: new.title.clone(),
                        assistant_id: new.assistant_id.clone(),
                        variables: "{}".into(),
                        session_key: None,
                        server_id: None,
                        model: None,
                        system_prompt: None,
                        temperature: None,
                        created_at: now,
                        updated_at: now,
                    };
                    let mut tx = self.begin_write().await?;
                    Self::check_quota(&mut tx, owner, Entity::Conversation, max).await?;
                    if let Some(assistant) = &new.assistant_id {
                        let found: Option<(String,)> = sqlx::query_as(
                            "SELECT id FROM assistants WHERE user_id = $1 AND id = $2",
                        )
                        .bind(&owner.0)
                        .bind(assistant)
                        .fetch_optional(&mut *tx)
                        .await?;
                        if found.is_none() {
                            return Err(StoreError::not_found(Entity::Assistant, assistant));
                        }
                    }
                    sqlx::query(
                        "INSERT INTO conversations (id, user_id, title, assistant_id, created_at, \
                         updated_at) VALUES ($1, $2, $3, $4, $5, $6)",
                    )
                    .bind(&row.id)
                    .bind(&owner.0)
                    .bind(&row.title)
                    .bind(&row.assistant_id)
                    .bind(row.created_at)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await?;
                    tx.commit().await?;
                    row.decode()
                }
            }

            #[async_trait::async_trait]
            impl $crate::store::ConversationStore for $store {
                async fn create_conversation(
                    &self,
                    owner: &OwnerId,
                    new: &NewConversation,
                ) -> Result<Conversation, StoreError> {
                    self.insert_new_conversation(owner, new, None).await
                }

                async fn create_conversation_within(
                    &self,
                    owner: &OwnerId,
                    new: &NewConversation,
                    max: u32,
                ) -> Result<Conversation, StoreError> {
                    self.insert_new_conversation(owner, new, Some(max)).await
                }

                async fn conversation(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                ) -> Result<Conversation, StoreError> {
                    let sql = format!(
                        "SELECT {CONVERSATION_COLUMNS} FROM conversations \
                         WHERE user_id = $1 AND id = $2"
                    );
                    sqlx::query_as::<_, ConversationRow>(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Conversation, id))?
                        .decode()
                }

                async fn conversations(
                    &self,
                    owner: &OwnerId,
                ) -> Result<Vec<Conversation>, StoreError> {
                    let sql = format!(
                        "SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE user_id = $1 \
                         ORDER BY updated_at DESC, id DESC"
                    );
                    sqlx::query_as::<_, ConversationRow>(&sql)
                        .bind(&owner.0)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(ConversationRow::decode)
                        .collect()
                }

                async fn conversations_page(
                    &self,
                    owner: &OwnerId,
                    after: Option<&$crate::model::ConversationCursor>,
                    limit: u32,
                ) -> Result<Vec<Conversation>, StoreError> {
                    // The listing's order, (updated_at, id) descending, continued below the
                    // cursor; the index on (user_id, updated_at) serves both.
                    let (at, id) = after.map_or((i64::MAX, String::new()), |c| {
                        (c.updated_at.0, c.id.clone())
                    });
                    let sql = format!(
                        "SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE user_id = $1 \
                         AND (updated_at < $2 OR (updated_at = $2 AND id < $3)) \
                         ORDER BY updated_at DESC, id DESC LIMIT $4"
                    );
                    sqlx::query_as::<_, ConversationRow>(&sql)
                        .bind(&owner.0)
                        .bind(at)
                        .bind(id)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(ConversationRow::decode)
                        .collect()
                }

                async fn search_conversations(
                    &self,
                    owner: &OwnerId,
                    text: &str,
                    after: Option<&$crate::model::ConversationCursor>,
                    limit: u32,
                ) -> Result<Vec<Conversation>, StoreError> {
                    use $crate::sql::search::{MAX_SEARCH_CHARS, contains_pattern};
                    crate::text::refuse_nul("q", text)?;
                    crate::text::at_most("q", text, MAX_SEARCH_CHARS)?;
                    // The listing's walk (see conversations_page), keeping the conversations
                    // whose title or one of whose messages holds the text.
                    let (at, id) = after.map_or((i64::MAX, String::new()), |c| {
                        (c.updated_at.0, c.id.clone())
                    });
                    let like = Self::LIKE_ANY_CASE;
                    let sql = format!(
                        "SELECT {CONVERSATION_COLUMNS} FROM conversations c WHERE c.user_id = $1 \
                         AND (c.updated_at < $2 OR (c.updated_at = $2 AND c.id < $3)) \
                         AND (c.title {like} $5 ESCAPE '\\' OR EXISTS (SELECT 1 FROM messages m \
                           WHERE m.user_id = $1 AND m.conversation_id = c.id \
                           AND m.content {like} $5 ESCAPE '\\')) \
                         ORDER BY c.updated_at DESC, c.id DESC LIMIT $4"
                    );
                    sqlx::query_as::<_, ConversationRow>(&sql)
                        .bind(&owner.0)
                        .bind(at)
                        .bind(id)
                        .bind(i64::from(limit))
                        .bind(contains_pattern(text))
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(ConversationRow::decode)
                        .collect()
                }

                async fn rename_conversation(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    title: &str,
                ) -> Result<Conversation, StoreError> {
                    crate::text::refuse_nul("title", title)?;
                    crate::text::at_most("title", title, crate::text::MAX_TITLE_CHARS)?;
                    let done = sqlx::query(
                        "UPDATE conversations SET title = $3, updated_at = $4 \
                         WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(title)
                    .bind(Timestamp::now().0)
                    .execute(&mut *self.writer().await?)
                    .await?;
                    one_row(done.rows_affected(), Entity::Conversation, id)?;
                    self.conversation(owner, id).await
                }

                async fn delete_conversation(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                ) -> Result<(), StoreError> {
                    let done =
                        sqlx::query("DELETE FROM conversations WHERE user_id = $1 AND id = $2")
                            .bind(&owner.0)
                            .bind(id)
                            .execute(&mut *self.writer().await?)
                            .await?;
                    one_row(done.rows_affected(), Entity::Conversation, id)
                }

                async fn session_conversation(
                    &self,
                    owner: &OwnerId,
                    session: &str,
                    title: &str,
                    max: Option<u32>,
                ) -> Result<(Conversation, bool), StoreError> {
                    crate::text::refuse_nul("sessionId", session)?;
                    crate::text::refuse_nul("title", title)?;
                    crate::text::at_most("title", title, crate::text::MAX_TITLE_CHARS)?;
                    let sql = format!(
                        "SELECT {CONVERSATION_COLUMNS} FROM conversations \
                         WHERE user_id = $1 AND session_key = $2"
                    );
                    let known = sqlx::query_as::<_, ConversationRow>(&sql)
                        .bind(&owner.0)
                        .bind(session)
                        .fetch_optional(&self.pool)
                        .await?;
                    if let Some(known) = known {
                        return Ok((known.decode()?, false));
                    }
                    let now = Timestamp::now().0;
                    let mut tx = self.begin_write().await?;
                    Self::check_quota(&mut tx, owner, Entity::Conversation, max).await?;
                    // Two first requests of one session at once: one inserts, the other finds it.
                    let done = sqlx::query(
                        "INSERT INTO conversations (id, user_id, title, assistant_id, variables, \
                         session_key, created_at, updated_at) \
                         VALUES ($1, $2, $3, NULL, '{}', $4, $5, $5) \
                         ON CONFLICT (user_id, session_key) DO NOTHING",
                    )
                    .bind(new_id())
                    .bind(&owner.0)
                    .bind(title)
                    .bind(session)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                    tx.commit().await?;
                    let found = sqlx::query_as::<_, ConversationRow>(&sql)
                        .bind(&owner.0)
                        .bind(session)
                        .fetch_optional(&self.pool)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Conversation, session))?
                        .decode()?;
                    Ok((found, done.rows_affected() > 0))
                }

                async fn merge_variables(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    variables: &serde_json::Map<String, serde_json::Value>,
                ) -> Result<Conversation, StoreError> {
                    let mut tx = self.begin_write().await?;
                    let sql = format!(
                        "SELECT variables FROM conversations WHERE user_id = $1 AND id = $2{}",
                        Self::LOCK
                    );
                    let stored: Option<(String,)> = sqlx::query_as(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .fetch_optional(&mut *tx)
                        .await?;
                    let (stored,) =
                        stored.ok_or_else(|| StoreError::not_found(Entity::Conversation, id))?;
                    let stored = $crate::sql::common::from_json(
                        Entity::Conversation,
                        id,
                        "variables",
                        &stored,
                    )?;
                    let merged = $crate::sql::conversations::merged(stored, variables);
                    Self::write_variables(&mut tx, id, &merged).await?;
                    tx.commit().await?;
                    self.conversation(owner, id).await
                }

                async fn set_variables(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    variables: &serde_json::Map<String, serde_json::Value>,
                ) -> Result<Conversation, StoreError> {
                    let done = sqlx::query(
                        "UPDATE conversations SET variables = $3, updated_at = $4 \
                         WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(to_json(variables)?)
                    .bind(Timestamp::now().0)
                    .execute(&mut *self.writer().await?)
                    .await?;
                    one_row(done.rows_affected(), Entity::Conversation, id)?;
                    self.conversation(owner, id).await
                }

                async fn limit_to_server(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    server: Option<&switchboard_core::ServerId>,
                ) -> Result<Conversation, StoreError> {
                    let done = sqlx::query(
                        "UPDATE conversations SET server_id = $3 WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(server.map(|s| s.0.as_str()))
                    .execute(&mut *self.writer().await?)
                    .await?;
                    one_row(done.rows_affected(), Entity::Conversation, id)?;
                    self.conversation(owner, id).await
                }

                async fn set_chat_settings(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    settings: &$crate::model::ChatSettings,
                ) -> Result<Conversation, StoreError> {
                    let settings = settings.normalised()?;
                    let done = sqlx::query(
                        "UPDATE conversations SET model = $3, system_prompt = $4, temperature = $5 \
                         WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(&settings.model)
                    .bind(&settings.system_prompt)
                    .bind(settings.temperature)
                    .execute(&mut *self.writer().await?)
                    .await?;
                    one_row(done.rows_affected(), Entity::Conversation, id)?;
                    self.conversation(owner, id).await
                }

                async fn append_message(
                    &self,
                    owner: &OwnerId,
                    conversation_id: &str,
                    new: &NewMessage,
                ) -> Result<Message, StoreError> {
                    crate::text::refuse_nul("content", &new.content)?;
                    let mut row = MessageRow {
                        id: new_id(),
                        conversation_id: conversation_id.to_owned(),
                        role: new.role.as_str().to_owned(),
                        content: new.content.clone(),
                        tool_calls: to_json(&new.tool_calls)?,
                        metadata: to_json(&new.metadata)?,
                        created_at: 0,
                        updated_at: 0,
                    };
                    // One statement: the conversation must be the owner's, the message is
                    // stamped after the conversation's last one (so the order of messages is
                    // the order of appends whatever the clocks say), and a trigger makes the
                    // conversation the most recently active (migration 0014).
                    let insert = sqlx::query_as::<_, (i64,)>(INSERT_MESSAGE)
                        .bind(&row.id)
                        .bind(&owner.0)
                        .bind(conversation_id)
                        .bind(&row.role)
                        .bind(&row.content)
                        .bind(&row.tool_calls)
                        .bind(&row.metadata)
                        .bind(Timestamp::now().0);
                    let stamped = if Self::LOCK.is_empty() {
                        // SQLite: the one writing connection runs one statement at a time.
                        insert.fetch_optional(&mut *self.writer().await?).await?
                    } else {
                        // Postgres: concurrent appends to one conversation queue on its row.
                        let mut tx = self.begin_write().await?;
                        let lock = format!(
                            "SELECT id FROM conversations WHERE user_id = $1 AND id = $2{}",
                            Self::LOCK
                        );
                        sqlx::query(&lock)
                            .bind(&owner.0)
                            .bind(conversation_id)
                            .fetch_optional(&mut *tx)
                            .await?;
                        let stamped = insert.fetch_optional(&mut *tx).await?;
                        tx.commit().await?;
                        stamped
                    };
                    let (at,) = stamped
                        .ok_or_else(|| StoreError::not_found(Entity::Conversation, conversation_id))?;
                    self.known_calls.put(&row.id, &row.tool_calls);
                    row.created_at = at;
                    row.updated_at = at;
                    row.decode()
                }

                async fn message(&self, owner: &OwnerId, id: &str) -> Result<Message, StoreError> {
                    Self::message_row(&self.pool, owner, id).await?.decode()
                }

                async fn message_count(&self, owner: &OwnerId) -> Result<u64, StoreError> {
                    // Kept by the triggers of migration 0016.
                    let count: Option<(i64,)> =
                        sqlx::query_as("SELECT message_count FROM users WHERE id = $1")
                            .bind(&owner.0)
                            .fetch_optional(&self.pool)
                            .await?;
                    Ok(count.map_or(0, |(n,)| u64::try_from(n).unwrap_or(0)))
                }

                async fn messages(
                    &self,
                    owner: &OwnerId,
                    conversation_id: &str,
                ) -> Result<Vec<Message>, StoreError> {
                    let sql = format!(
                        "SELECT {MESSAGE_COLUMNS} FROM messages \
                         WHERE user_id = $1 AND conversation_id = $2 ORDER BY created_at, id"
                    );
                    let rows = sqlx::query_as::<_, MessageRow>(&sql)
                        .bind(&owner.0)
                        .bind(conversation_id)
                        .fetch_all(&self.pool)
                        .await?;
                    if rows.is_empty() {
                        // Not found, rather than an empty list, for another owner's
                        // conversation (checked only then: it costs a query).
                        self.conversation(owner, conversation_id).await?;
                    }
                    rows.into_iter().map(MessageRow::decode).collect()
                }

                async fn set_message_content(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    content: &str,
                    metadata: Option<&serde_json::Map<String, serde_json::Value>>,
                ) -> Result<Message, StoreError> {
                    crate::text::refuse_nul("content", content)?;
                    let metadata = metadata.map(to_json).transpose()?;
                    let sql = format!(
                        "UPDATE messages SET content = $3, metadata = COALESCE($4, metadata), \
                         updated_at = $5 WHERE user_id = $1 AND id = $2 RETURNING {MESSAGE_COLUMNS}"
                    );
                    sqlx::query_as::<_, MessageRow>(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .bind(content)
                        .bind(metadata)
                        .bind(Timestamp::now().0)
                        .fetch_optional(&mut *self.writer().await?)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Message, id))?
                        .decode()
                }

                async fn delete_messages_after(
                    &self,
                    owner: &OwnerId,
                    conversation_id: &str,
                    message_id: &str,
                ) -> Result<u64, StoreError> {
                    let fork = $crate::sql::forks::Fork::After;
                    Ok(self.fork(owner, conversation_id, message_id, fork).await?.0)
                }

                async fn replace_messages_from(
                    &self,
                    owner: &OwnerId,
                    conversation_id: &str,
                    message_id: &str,
                    new: &NewMessage,
                ) -> Result<Message, StoreError> {
                    let fork = $crate::sql::forks::Fork::Replace(new);
                    let (_, message) = self.fork(owner, conversation_id, message_id, fork).await?;
                    message.ok_or_else(|| StoreError::not_found(Entity::Message, message_id))
                }

                async fn add_tool_calls(
                    &self,
                    owner: &OwnerId,
                    message_id: &str,
                    calls: &[ToolCallRecord],
                ) -> Result<Message, StoreError> {
                    let change = |stored: &str| Ok((append_calls(message_id, stored, calls)?, ()));
                    let (row, ()) = self.swap_tool_calls(owner, message_id, None, change).await?;
                    row.decode()
                }

                async fn add_tool_calls_with_content(
                    &self,
                    owner: &OwnerId,
                    message_id: &str,
                    calls: &[ToolCallRecord],
                    content: &str,
                    metadata: &serde_json::Map<String, serde_json::Value>,
                ) -> Result<Message, StoreError> {
                    crate::text::refuse_nul("content", content)?;
                    let metadata = to_json(metadata)?;
                    let change = |stored: &str| Ok((append_calls(message_id, stored, calls)?, ()));
                    let (row, ()) = self
                        .swap_tool_calls(owner, message_id, Some((content, &metadata)), change)
                        .await?;
                    row.decode()
                }

                async fn update_tool_call(
                    &self,
                    owner: &OwnerId,
                    message_id: &str,
                    call_id: &str,
                    edit: ToolCallEdit<'_>,
                ) -> Result<ToolCallRecord, StoreError> {
                    let change = |stored: &str| edit_call(message_id, stored, call_id, edit);
                    let (_, call) = self.swap_tool_calls(owner, message_id, None, change).await?;
                    Ok(call)
                }

                async fn edit_tool_call(
                    &self,
                    owner: &OwnerId,
                    message_id: &str,
                    call_id: &str,
                    edit: ToolCallEdit<'_>,
                ) -> Result<(ToolCallRecord, Message), StoreError> {
                    let change = |stored: &str| edit_call(message_id, stored, call_id, edit);
                    let (row, call) = self.swap_tool_calls(owner, message_id, None, change).await?;
                    Ok((call, row.decode()?))
                }
            }
        };
    };
}
pub(crate) use impl_conversation_store;
