//! A turn run again in the background: a failed turn retried, an answer regenerated, a
//! message of the person's edited and sent again (the agent's `redo.rs` says what each does
//! to the conversation). What can be refused is refused before anything changes: no such
//! conversation or message, no provider, as many runs going on as the person may have, a
//! run already going in the conversation.

use switchboard_agent::Claim;
use switchboard_core::OwnerId;
use switchboard_store::Message;

use super::Runs;
use crate::error::AppError;

impl Runs {
    /// Runs the conversation's failed last turn again, from what it stored. Returns the
    /// turn's message (or the person's message a stopped run never began answering).
    pub async fn retry(&self, owner: &OwnerId, conversation_id: &str) -> Result<Message, AppError> {
        self.again(owner, conversation_id, async |agent, claim| {
            agent.prepare_retry(claim, owner).await
        })
        .await
    }

    /// Answers again the person's message that the answer `message_id` answered, dropping
    /// that answer and everything after it. Returns the person's message.
    pub async fn regenerate(&self, owner: &OwnerId, message_id: &str) -> Result<Message, AppError> {
        let conversation_id = self.store.message(owner, message_id).await?.conversation_id;
        self.again(owner, &conversation_id, async |agent, claim| {
            agent.prepare_regenerate(claim, owner, message_id).await
        })
        .await
    }

    /// Replaces the person's message `message_id` with `text`, drops everything after it,
    /// and answers it. Returns the new message.
    pub async fn resend(
        &self,
        owner: &OwnerId,
        message_id: &str,
        text: &str,
    ) -> Result<Message, AppError> {
        let conversation_id = self.store.message(owner, message_id).await?.conversation_id;
        self.again(owner, &conversation_id, async |agent, claim| {
            agent.prepare_resend(claim, owner, message_id, text).await
        })
        .await
    }

    /// Claims the conversation, makes its turn ready with `prepare` and runs it in the
    /// background; a refusal of `prepare` gives the claim up and changes nothing.
    async fn again(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        prepare: impl AsyncFnOnce(
            &switchboard_agent::Agent,
            &Claim,
        ) -> Result<Message, switchboard_agent::AgentError>,
    ) -> Result<Message, AppError> {
        let conversation = self.store.conversation(owner, conversation_id).await?;
        let spec = self.spec(owner, &conversation).await?;
        let slot = self.slots.try_take(owner).ok_or(AppError::TooManyRuns {
            limit: self.slots.limit(),
        })?;
        let claim = self.agent.claim(conversation_id).await?;
        match prepare(&self.agent, &claim).await {
            Ok(message) => {
                self.spawn(claim, owner.clone(), spec, slot);
                Ok(message)
            }
            Err(error) => {
                claim.release().await;
                Err(error.into())
            }
        }
    }
}
