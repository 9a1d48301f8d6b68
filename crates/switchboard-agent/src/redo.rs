//! A turn run again, three ways, each made ready under the conversation's claim and then run
//! like any other turn ([`Agent::run`]):
//!
//! - **retry** a failed turn: its failure is cleared and the run goes on from what the turn
//!   stored (a round cut off is asked again; calls already made are not made again);
//! - **regenerate** an answer: the conversation forks after the person's message it
//!   answered, and that message is answered anew;
//! - **resend** an edited message of the person's: the conversation forks at it, the edited
//!   text replaces it, and it is answered.
//!
//! A fork deletes what came after (see the store's `sql/forks.rs`): the model's next
//! request holds exactly the conversation as it is shown.

use switchboard_core::OwnerId;
use switchboard_store::{Entity, Message, MessageRole, NewMessage, StoreError};

use crate::agent::{Agent, Claim};
use crate::error::AgentError;
use crate::events::AgentEvent;
use crate::failure::{FAILURE_KEY, TurnFailure};
use crate::run::current_turn;

impl Agent {
    /// Makes the claimed conversation's last turn ready to run again: a failed turn loses its
    /// failure, a message of the person's that has no answer yet (a run stopped before it
    /// began one) is answered. Returns the turn's message, or that message.
    /// [`AgentError::NothingToRetry`] when the last turn did not fail.
    pub async fn prepare_retry(
        &self,
        claim: &Claim,
        owner: &OwnerId,
    ) -> Result<Message, AgentError> {
        let conversation_id = claim.conversation_id();
        let messages = self.store.messages(owner, conversation_id).await?;
        let nothing = || AgentError::NothingToRetry {
            conversation_id: conversation_id.to_owned(),
        };
        let Some(turn) = current_turn(&messages) else {
            return match messages.last() {
                Some(last) if last.role == MessageRole::User => Ok(last.clone()),
                _ => Err(nothing()),
            };
        };
        if TurnFailure::on(turn).is_none() {
            return Err(nothing());
        }
        let mut metadata = turn.metadata.clone();
        metadata.remove(FAILURE_KEY);
        Ok(self
            .store
            .set_message_content(owner, &turn.id, &turn.content, Some(&metadata))
            .await?)
    }

    /// Forks the claimed conversation after the person's message that the answer
    /// `message_id` answered, so that it is answered anew. Returns that message.
    pub async fn prepare_regenerate(
        &self,
        claim: &Claim,
        owner: &OwnerId,
        message_id: &str,
    ) -> Result<Message, AgentError> {
        let conversation_id = claim.conversation_id();
        let messages = self.store.messages(owner, conversation_id).await?;
        let at = position(&messages, message_id)?;
        if messages[at].role != MessageRole::Assistant {
            return Err(AgentError::NotAnAnswer {
                message_id: message_id.to_owned(),
            });
        }
        let question = messages[..at]
            .iter()
            .rfind(|m| m.role == MessageRole::User)
            .ok_or_else(|| AgentError::NothingAnswered {
                message_id: message_id.to_owned(),
            })?;
        self.store
            .delete_messages_after(owner, conversation_id, &question.id)
            .await?;
        Ok(question.clone())
    }

    /// Forks the claimed conversation at the person's message `message_id`: `text` replaces
    /// it (the resources and prompt it carried are kept) and every later message goes. The
    /// new message is announced; returns it.
    pub async fn prepare_resend(
        &self,
        claim: &Claim,
        owner: &OwnerId,
        message_id: &str,
        text: &str,
    ) -> Result<Message, AgentError> {
        let conversation_id = claim.conversation_id();
        let messages = self.store.messages(owner, conversation_id).await?;
        let edited = &messages[position(&messages, message_id)?];
        if edited.role != MessageRole::User {
            return Err(AgentError::NotThePersons {
                message_id: message_id.to_owned(),
            });
        }
        let mut new = NewMessage::text(MessageRole::User, text);
        new.metadata = edited.metadata.clone();
        let message = self
            .store
            .replace_messages_from(owner, conversation_id, message_id, &new)
            .await?;
        self.events.publish(
            owner,
            AgentEvent::MessageCreated {
                conversation_id: conversation_id.to_owned(),
                message: Box::new(message.clone()),
            },
        );
        Ok(message)
    }
}

/// Where `message_id` is in `messages`: not found (as any id that is not the owner's) when
/// it is not in the claimed conversation.
fn position(messages: &[Message], message_id: &str) -> Result<usize, AgentError> {
    messages
        .iter()
        .position(|m| m.id == message_id)
        .ok_or_else(|| {
            AgentError::Store(StoreError::NotFound {
                entity: Entity::Message,
                id: message_id.to_owned(),
            })
        })
}
