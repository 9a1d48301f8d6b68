//! A turn that failed keeps why, on its assistant message (`metadata.failure`): the failure
//! is still shown after a reload, and a retry knows which turn to run again. `run.failed`
//! only announces it, after it is stored.
//!
//! A failure is stored in no language: its code, its English words and, when the agent words
//! the error itself, the locale files' key and values, so a front end says it in the
//! reader's language (the server does, for every message it serves). The next write of the
//! turn by a run (a retry, a decision that lets it go on) drops it: the turn is no longer
//! failed once it goes on.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_core::type_names::without_type_names;
use switchboard_core::{ErrorCode, OwnerId};
use switchboard_store::{Message, MessageRole, NewMessage, StoreError, Timestamp};

use crate::agent::Agent;
use crate::error::AgentError;
use crate::events::AgentEvent;
use crate::run::current_turn;
use crate::turn::{ROUNDS_DONE_KEY, ROUNDS_KEY};

/// The key of a failed turn's [`TurnFailure`] in its message's metadata.
pub const FAILURE_KEY: &str = "failure";

/// Why a turn failed, as its message keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnFailure {
    pub code: ErrorCode,
    /// What went wrong, in English (an internal error's details are logged, not kept).
    pub message: String,
    /// The locale files' sentence for it (`error.msg.*`), when the agent words the error;
    /// otherwise the code's own template says `message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The sentence's `{placeholder}` values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, String>,
    /// When it failed.
    pub at: Timestamp,
}

/// The words kept for an internal error (its details go to the log).
const INTERNAL: &str = "an internal error occurred; it has been logged";

impl TurnFailure {
    /// The failure of a run that ended with `error`.
    pub fn of(error: &AgentError) -> TurnFailure {
        let code = error.code();
        let (message, words) = if code == ErrorCode::InternalError {
            (
                INTERNAL.to_owned(),
                Some(("error.msg.internal", Vec::new())),
            )
        } else {
            (without_type_names(&error.to_string()), error.words())
        };
        let (key, params) = match words {
            Some((key, params)) => (
                Some(key.to_owned()),
                params
                    .into_iter()
                    .map(|(name, value)| (name.to_owned(), without_type_names(&value)))
                    .collect(),
            ),
            None => (None, BTreeMap::new()),
        };
        TurnFailure {
            code,
            message,
            key,
            params,
            at: Timestamp::now(),
        }
    }

    /// The failure kept on `message`, if it failed. A value that does not read as one is
    /// reported as none (the message still shows it, as stored).
    pub fn on(message: &Message) -> Option<TurnFailure> {
        let stored = message.metadata.get(FAILURE_KEY)?;
        serde_json::from_value(stored.clone()).ok()
    }

    /// The failure as it goes into a message's metadata.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Agent {
    /// Keeps `error` on the conversation's current turn: its assistant message, or one made
    /// now (and announced) when the run failed before it began one. Not kept when the store
    /// refuses it: that is logged, and the failure is still announced.
    pub(crate) async fn keep_failure(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        error: &AgentError,
    ) {
        if let Err(store) = self.try_keep_failure(owner, conversation_id, error).await {
            tracing::warn!(conversation = %conversation_id, %error, error = %store, "the turn's failure could not be kept");
        }
    }

    async fn try_keep_failure(
        &self,
        owner: &OwnerId,
        conversation_id: &str,
        error: &AgentError,
    ) -> Result<(), StoreError> {
        let failure = TurnFailure::of(error).to_value();
        let messages = self.store.messages(owner, conversation_id).await?;
        if let Some(turn) = current_turn(&messages) {
            let mut metadata = turn.metadata.clone();
            metadata.insert(FAILURE_KEY.into(), failure);
            self.store
                .set_message_content(owner, &turn.id, &turn.content, Some(&metadata))
                .await?;
            return Ok(());
        }
        if !messages.iter().any(|m| m.role == MessageRole::User) {
            return Ok(());
        }
        // A turn with no rounds yet, as a run begins one: a retry asks its first round.
        let mut new = NewMessage::text(MessageRole::Assistant, "");
        new.metadata
            .insert(ROUNDS_KEY.into(), Value::Array(Vec::new()));
        new.metadata.insert(ROUNDS_DONE_KEY.into(), Value::from(0));
        new.metadata.insert(FAILURE_KEY.into(), failure);
        let message = self
            .store
            .append_message(owner, conversation_id, &new)
            .await?;
        self.events.publish(
            owner,
            AgentEvent::MessageCreated {
                conversation_id: conversation_id.to_owned(),
                message: Box::new(message),
            },
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_llm::LlmError;
    use switchboard_store::StoreError;

    #[test]
    fn a_model_failure_keeps_its_words_and_an_internal_one_keeps_none_of_its_details() {
        let failure = TurnFailure::of(&AgentError::Llm(LlmError::Upstream {
            status: 500,
            message: "overloaded".into(),
        }));
        assert_eq!(failure.code, ErrorCode::UpstreamUnavailable);
        assert_eq!(failure.key.as_deref(), Some("error.msg.model_failed"));
        assert_eq!(
            failure.params["detail"],
            "the provider failed (500): overloaded"
        );
        assert_eq!(
            failure.message,
            "the model call failed: the provider failed (500): overloaded"
        );

        let internal = TurnFailure::of(&AgentError::Store(StoreError::Io {
            what: "cannot write /var/lib/secret.db".into(),
            source: std::io::Error::other("disk on fire"),
        }));
        assert_eq!(internal.code, ErrorCode::InternalError);
        assert_eq!(internal.key.as_deref(), Some("error.msg.internal"));
        assert!(!internal.message.contains("disk"), "{internal:?}");

        let json = failure.to_value();
        assert_eq!(json["code"], "UPSTREAM_UNAVAILABLE");
        let back: TurnFailure = serde_json::from_value(json).unwrap();
        assert_eq!(back, failure);
    }
}
