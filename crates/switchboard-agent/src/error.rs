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
    /// A task cancel for a call that runs as no task (any more).
    #[error("tool call {call_id:?} is not running as a task")]
    NoTask { call_id: String },
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
    /// A retry of a conversation whose last turn neither failed nor waits for an answer.
    #[error(
        "the last turn of conversation {conversation_id:?} did not fail; there is nothing to retry"
    )]
    NothingToRetry { conversation_id: String },
    /// A regeneration of a message that is not an assistant's answer.
    #[error(
        "message {message_id:?} is not an answer of the assistant's; only an answer can be regenerated"
    )]
    NotAnAnswer { message_id: String },
    /// A regeneration of an answer that follows no message of the person's.
    #[error(
        "answer {message_id:?} follows no message of the person's; there is nothing to answer again"
    )]
    NothingAnswered { message_id: String },
    /// An edit of a message the person did not write.
    #[error(
        "message {message_id:?} was not written by the person; only their own messages can be edited and sent again"
    )]
    NotThePersons { message_id: String },
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
            | AgentError::NoQuestion { .. }
            | AgentError::NoTask { .. }
            | AgentError::NothingToRetry { .. } => ErrorCode::Conflict,
            AgentError::NotAnAnswer { .. }
            | AgentError::NothingAnswered { .. }
            | AgentError::NotThePersons { .. } => ErrorCode::ValidationError,
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

/// A sentence of the locale files (`error.msg.*`) and its `{placeholder}` values.
pub type ErrorWords = (&'static str, Vec<(&'static str, String)>);

impl AgentError {
    /// The locale files' words for the errors the agent words itself, whose `en-US` text is
    /// the error's `Display` word for word; `None` for the store's and the servers' errors
    /// (their own layers word them) and for errors only a bug makes.
    pub fn words(&self) -> Option<ErrorWords> {
        let one = |key, name, value: String| Some((key, vec![(name, value)]));
        match self {
            AgentError::Llm(llm) => one("error.msg.model_failed", "detail", llm.to_string()),
            AgentError::Busy { conversation_id } => one(
                "error.msg.conversation_busy",
                "conversation",
                format!("{conversation_id:?}"),
            ),
            AgentError::NotPending { call_id, status } => Some((
                "error.msg.call_not_pending",
                vec![("call", format!("{call_id:?}")), ("status", status.clone())],
            )),
            AgentError::Stopping => Some(("error.msg.server_stopping", Vec::new())),
            AgentError::NoQuestion {
                call_id,
                question_id,
            } => Some((
                "error.msg.no_question",
                vec![
                    ("call", format!("{call_id:?}")),
                    ("question", format!("{question_id:?}")),
                ],
            )),
            AgentError::AnswerDoesNotFit { detail } => {
                one("error.msg.answer_does_not_fit", "detail", detail.clone())
            }
            AgentError::NoTask { call_id } => {
                one("error.msg.call_has_no_task", "call", format!("{call_id:?}"))
            }
            AgentError::NotOffered { server } => one(
                "error.msg.server_not_offered",
                "server",
                format!("{server:?}"),
            ),
            AgentError::TooManyAttachments { max } => {
                one("error.msg.too_many_attachments", "max", max.to_string())
            }
            AgentError::NoUserMessage => Some(("error.msg.no_user_message", Vec::new())),
            AgentError::UnsupportedProvider { name, kind } => Some((
                "error.msg.provider_unsupported",
                vec![("name", format!("{name:?}")), ("kind", format!("{kind:?}"))],
            )),
            AgentError::NothingToRetry { conversation_id } => one(
                "error.msg.nothing_to_retry",
                "conversation",
                format!("{conversation_id:?}"),
            ),
            AgentError::NotAnAnswer { message_id } => one(
                "error.msg.not_an_answer",
                "message",
                format!("{message_id:?}"),
            ),
            AgentError::NothingAnswered { message_id } => one(
                "error.msg.nothing_answered",
                "message",
                format!("{message_id:?}"),
            ),
            AgentError::NotThePersons { message_id } => one(
                "error.msg.not_the_persons",
                "message",
                format!("{message_id:?}"),
            ),
            AgentError::Store(_) | AgentError::Mcp(_) | AgentError::Encode(_) => None,
        }
    }
}
