//! The application layer's one error type: what a use case can answer besides its result.
//! Each front end maps it once (the HTTP API to `{code, message, timestamp}` in the caller's
//! language, the command line to `error CODE: message`); nothing here knows either.

use switchboard_agent::{AgentError, ToolCallError};
use switchboard_core::{ErrorCode, Refusal};
use switchboard_mcp::McpError;
use switchboard_store::StoreError;

use crate::tool_nodes::{NodeRunError, NodeSaveError};
use crate::views::ViewSaveError;

/// Why a use case did not do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Mcp(#[from] McpError),
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    ToolCall(#[from] ToolCallError),
    /// The admin's rules do not let the person save or reach this.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A conversation has no provider to answer with.
    #[error(
        "there is no model provider: add one on the Providers page (or start serve with \
         OPENAI_API_KEY / OPENAI_BASE_URL or ANTHROPIC_API_KEY set)"
    )]
    NoProvider,
    /// The provider has no model, neither the assistant's nor the environment's.
    #[error("no model: give the assistant one, or set {variable}")]
    NoModel { variable: &'static str },
    /// The person has as many runs going on as they may.
    #[error("at most {limit} runs may go on at once; wait for one to finish")]
    TooManyRuns { limit: usize },
    /// A new message for a conversation whose last turn waits on tasks.
    #[error(
        "the conversation's last turn waits on {} task(s); cancel them or wait for them to end",
        tasks.len()
    )]
    TasksPending {
        tasks: Vec<switchboard_agent::PendingTask>,
    },
    #[error(transparent)]
    NodeSave(#[from] NodeSaveError),
    #[error(transparent)]
    NodeRun(#[from] NodeRunError),
    #[error(transparent)]
    ViewSave(#[from] ViewSaveError),
    /// The catalogue of ready servers has no such entry.
    #[error("the catalogue has no entry `{name}` (it has {known})")]
    NoCatalogueEntry { name: String, known: String },
    /// A catalogue entry's settings do not fill it.
    #[error(transparent)]
    Fill(#[from] switchboard_core::catalogue::FillError),
    /// A provider's models could not be listed.
    #[error("cannot list the provider's models: {0}")]
    Models(#[from] switchboard_llm::ModelsError),
    /// The `[nodes]` of the settings cannot be used.
    #[error("cannot use the [nodes] of the settings: {0}")]
    Nodes(#[from] switchboard_grpc::RouterError),
}

impl AppError {
    /// The documented code the error is reported under.
    pub fn code(&self) -> ErrorCode {
        match self {
            AppError::Store(e) => e.code(),
            AppError::Mcp(e) => e.code(),
            AppError::Agent(e) => e.code(),
            AppError::ToolCall(e) => e.code(),
            AppError::Refused(e) => e.code(),
            AppError::NoProvider | AppError::NoModel { .. } => ErrorCode::ValidationError,
            AppError::TooManyRuns { .. } => ErrorCode::RateLimited,
            AppError::TasksPending { .. } => ErrorCode::TaskPending,
            AppError::NodeSave(e) => e.code(),
            AppError::NodeRun(e) => e.code(),
            AppError::ViewSave(e) => e.code(),
            AppError::Nodes(_) | AppError::Fill(_) => ErrorCode::ValidationError,
            AppError::NoCatalogueEntry { .. } => ErrorCode::NotFound,
            AppError::Models(e) => models_code(e),
        }
    }
}

/// The code a failed listing of a provider's models is reported under: the provider's
/// failure (502), but a provider that cannot list is the request's (400).
pub fn models_code(e: &switchboard_llm::ModelsError) -> ErrorCode {
    match e {
        switchboard_llm::ModelsError::Unsupported => ErrorCode::ValidationError,
        _ => ErrorCode::UpstreamUnavailable,
    }
}
