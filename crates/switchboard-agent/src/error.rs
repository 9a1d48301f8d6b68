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
    /// An answer to a question that is not waiting for one (answered already, replaced by a
    /// newer one, or its call ended).
    #[error("tool call {call_id:?} has no question {question_id:?} waiting for an answer")]
    NoQuestion {
        call_id: String,
        question_id: String,
    },
    /// An accepted answer whose fields do not fit the question's form.
    #[error("the answer does not fit the question's form: {detail}")]
    AnswerDoesNotFit { detail: String },
    /// The process is stopping while the run waits for decisions; it goes on from the store
    /// when a decision is given after the restart.
    #[error("the server is stopping; the run goes on when a decision is given after the restart")]
    Stopping,
    /// A stored provider of a kind this build has no client for.
    #[error("provider {name:?} is of kind {kind:?}, which this build cannot call")]
    UnsupportedProvider { name: String, kind: String },
    /// A resource or prompt of a server the conversation's assistant does not use.
    #[error("server {server:?} is not one the assistant uses")]
    NotOffered { server: String },
    #[error("a message may carry at most {max} attached resources")]
    TooManyAttachments { max: usize },
    /// A run asked to answer a conversation that has no user message.
    #[error("the conversation has no user message to answer")]
    NoUserMessage,
    /// A message's metadata could not be encoded (a bug, never the input).
    #[error("a message's metadata cannot be encoded: {0}")]
    Encode(#[source] serde_json::Error),
    /// Reading an attached resource or getting a prompt failed.
    #[error(transparent)]
    Mcp(switchboard_mcp::McpError),
}

impl AgentError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AgentError::Store(e) => e.code(),
            AgentError::Llm(LlmError::Cancelled) | AgentError::Stopping => ErrorCode::Cancelled,
            AgentError::Llm(LlmError::BadRequest { .. } | LlmError::ContextTooLong { .. }) => {
                ErrorCode::ValidationError
            }
            AgentError::Llm(_) => ErrorCode::UpstreamUnavailable,
            AgentError::NotPending { .. }
            | AgentError::Busy { .. }
            | AgentError::NoQuestion { .. } => ErrorCode::Conflict,
            AgentError::AnswerDoesNotFit { .. } => ErrorCode::ValidationError,
            AgentError::UnsupportedProvider { .. }
            | AgentError::NotOffered { .. }
            | AgentError::TooManyAttachments { .. }
            | AgentError::NoUserMessage => ErrorCode::ValidationError,
            AgentError::Encode(_) => ErrorCode::InternalError,
            AgentError::Mcp(e) => e.code(),
        }
    }
}
