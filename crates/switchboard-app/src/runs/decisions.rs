//! A person's decisions on a run's calls: approving or rejecting a call, answering a server's
//! question. The decision is stored first (under the call's row lock, so a second decision
//! finds the first); then the turn goes on in the background, here or wherever a run holds
//! the conversation.

use switchboard_core::{OwnerId, QuestionAnswer, ToolCallRecord};

use super::Runs;
use crate::error::AppError;

impl Runs {
    /// Approves (or rejects) `owner`'s pending call `call_id` of message `message_id`, and goes
    /// on with its turn. A conversation that cannot run any more (its provider was deleted)
    /// refuses the decision rather than store one that nothing acts on.
    pub async fn decide(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
        approved: bool,
    ) -> Result<ToolCallRecord, AppError> {
        let message = self.store.message(owner, message_id).await?;
        let spec = self.spec_for(owner, &message.conversation_id).await?;
        let call = self
            .agent
            .decide(owner, message_id, call_id, approved)
            .await?;
        self.resume_after_decision(owner, &message.conversation_id, message_id, spec)
            .await;
        Ok(call)
    }

    /// Answers the question `question_id` a server asked during `owner`'s call `call_id`, and
    /// goes on with its turn (a call a 2026-07-28 server left waiting before a restart is sent
    /// again with the answer by a run started here; none starts if a run has it). The
    /// question of a task a call is parked on goes to whoever follows the task: the turn goes
    /// on when the task ends.
    pub async fn answer(
        &self,
        owner: &OwnerId,
        message_id: &str,
        call_id: &str,
        question_id: &str,
        answer: QuestionAnswer,
    ) -> Result<ToolCallRecord, AppError> {
        let message = self.store.message(owner, message_id).await?;
        let spec = self.spec_for(owner, &message.conversation_id).await?;
        let call = self
            .agent
            .answer(owner, message_id, call_id, question_id, answer)
            .await?;
        if !call.waits_on_task() {
            self.resume_after_decision(owner, &message.conversation_id, message_id, spec)
                .await;
        }
        Ok(call)
    }
}
