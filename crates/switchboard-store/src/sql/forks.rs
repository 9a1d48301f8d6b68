//! A conversation forked at one of its messages: what came after it is deleted (an answer
//! regenerated), or it and what came after are replaced by a new message (a message edited
//! and sent again).
//!
//! Forking deletes rather than keeping branches: the history the model reads is always the
//! conversation's messages in order, and a branch nobody can reach from the page would be
//! kept only to be counted against the person's message quota. Each fork is one
//! transaction, under the conversation's row lock on Postgres (appends to it queue behind
//! it), so a reader sees the conversation before or after it, never half of it, and a
//! replacement never leaves the conversation without both the old message and the new one.

use crate::model::NewMessage;

/// How a conversation is forked at a message.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fork<'a> {
    /// Every message after it is deleted; it stays.
    After,
    /// It and every message after it are deleted, and this one appended in their place.
    Replace(&'a NewMessage),
}

macro_rules! impl_message_forks {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::OwnerId;
            use $crate::error::{Entity, StoreError};
            use $crate::model::{Message, Timestamp, new_id};
            use $crate::sql::common::to_json;
            use $crate::sql::conversation_rows::{INSERT_MESSAGE, MessageRow};
            use $crate::sql::forks::Fork;

            impl $store {
                /// Forks the owner's conversation at `message_id` (see [`Fork`]). Returns how
                /// many messages were deleted, and the new message of a replacement.
                pub(crate) async fn fork(
                    &self,
                    owner: &OwnerId,
                    conversation_id: &str,
                    message_id: &str,
                    fork: Fork<'_>,
                ) -> Result<(u64, Option<Message>), StoreError> {
                    let replacement = match fork {
                        Fork::After => None,
                        Fork::Replace(new) => {
                            $crate::text::refuse_nul("content", &new.content)?;
                            Some(MessageRow {
                                id: new_id(),
                                conversation_id: conversation_id.to_owned(),
                                role: new.role.as_str().to_owned(),
                                content: new.content.clone(),
                                tool_calls: to_json(&new.tool_calls)?,
                                metadata: to_json(&new.metadata)?,
                                created_at: 0,
                                updated_at: 0,
                            })
                        }
                    };
                    let mut tx = self.begin_write().await?;
                    let lock = format!(
                        "SELECT id FROM conversations WHERE user_id = $1 AND id = $2{}",
                        Self::LOCK
                    );
                    let found: Option<(String,)> = sqlx::query_as(&lock)
                        .bind(&owner.0)
                        .bind(conversation_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                    if found.is_none() {
                        return Err(StoreError::not_found(Entity::Conversation, conversation_id));
                    }
                    let anchor: Option<(i64,)> = sqlx::query_as(
                        "SELECT created_at FROM messages \
                         WHERE user_id = $1 AND conversation_id = $2 AND id = $3",
                    )
                    .bind(&owner.0)
                    .bind(conversation_id)
                    .bind(message_id)
                    .fetch_optional(&mut *tx)
                    .await?;
                    let (at,) =
                        anchor.ok_or_else(|| StoreError::not_found(Entity::Message, message_id))?;
                    // The conversation's order is (created_at, id): the anchor itself goes too
                    // when it is replaced.
                    let from = if replacement.is_some() { ">=" } else { ">" };
                    let delete = format!(
                        "DELETE FROM messages WHERE user_id = $1 AND conversation_id = $2 \
                         AND (created_at > $3 OR (created_at = $3 AND id {from} $4))"
                    );
                    let deleted = sqlx::query(&delete)
                        .bind(&owner.0)
                        .bind(conversation_id)
                        .bind(at)
                        .bind(message_id)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    let Some(mut row) = replacement else {
                        tx.commit().await?;
                        return Ok((deleted, None));
                    };
                    let stamped: Option<(i64,)> = sqlx::query_as(INSERT_MESSAGE)
                        .bind(&row.id)
                        .bind(&owner.0)
                        .bind(conversation_id)
                        .bind(&row.role)
                        .bind(&row.content)
                        .bind(&row.tool_calls)
                        .bind(&row.metadata)
                        .bind(Timestamp::now().0)
                        .fetch_optional(&mut *tx)
                        .await?;
                    let (at,) = stamped.ok_or_else(|| {
                        StoreError::not_found(Entity::Conversation, conversation_id)
                    })?;
                    tx.commit().await?;
                    self.known_calls.put(&row.id, &row.tool_calls);
                    row.created_at = at;
                    row.updated_at = at;
                    Ok((deleted, Some(row.decode()?)))
                }
            }
        };
    };
}
pub(crate) use impl_message_forks;
