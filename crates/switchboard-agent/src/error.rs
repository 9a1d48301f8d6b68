//! Why a run could not go on.

use switchboard_core::ErrorCode;
use switchboard_llm::LlmError;
use switchboard_store::StoreError;
use thiserror::Error;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AgentError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the model call failed: {0}")]
    Llm(#[from] LlmError),
    /// The conversation already has a run in this process.
    #[error("conversation {conversation_id:?} is already answering; wait for it or cancel it")]
    Busy { conversation_id: String },
    /// A decision for a call that is not waiting for one.
    #[error("tool call {call_id:?} is not waiting for approval (it is {status})")]
    NotPending { call_id: String, status: String },
}

impl AgentError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AgentError::Store(e) => e.code(),
            AgentError::Llm(LlmError::Cancelled) => ErrorCode::Cancelled,
            AgentError::Llm(LlmError::BadRequest { .. } | LlmError::ContextTooLong { .. }) => {
                ErrorCode::ValidationError
            }
            AgentError::Llm(_) => ErrorCode::UpstreamUnavailable,
            AgentError::NotPending { .. } | AgentError::Busy { .. } => ErrorCode::Conflict,
        }
    }
}
