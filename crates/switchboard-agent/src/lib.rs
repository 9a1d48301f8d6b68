//! Switchboard's agent loop (DESIGN.md "The agent loop and approvals").
//!
//! For one user message: gather the assistant's tools, offer them in the assistant's mode
//! ([`mode`]), stream the model's answer while persisting it, record each requested tool call
//! inside the assistant message, run the approved ones (concurrently within a round), wait
//! for decisions on the others, feed the results back ([`results`]), and stop when the model
//! answers in plain text or after `max_rounds`. Every change is stored before it is announced
//! on the [`EventBus`]. The run's state lives in the store, so a run waiting for an approval
//! resumes after a restart.

mod agent;
pub mod approval;
mod call_end;
mod chat_tasks;
pub mod decisions;
pub mod error;
pub mod events;
pub mod exposure;
pub mod failure;
mod history;
pub mod input;
mod lease;
pub use lease::replica_name;
pub mod left_out;
pub mod mode;
pub mod offer;
mod provider;
mod redo;
pub mod resolve;
pub mod results;
mod run;
mod running;
pub mod search;
mod task_questions;
pub mod tasks;
pub mod tool_call;
mod turn;

pub use agent::{Agent, AgentConfig, AgentObserver, ApprovalPolicy, Claim, RunOutcome, RunSpec};
pub use chat_tasks::PendingTask;
pub use error::AgentError;
pub use events::{AgentEvent, CallUpdate, EventBus, EventKind, OwnedEvent, StopReason, TaskUpdate};
pub use failure::{FAILURE_KEY, TurnFailure};
pub use offer::Offer;
pub use provider::{client_for, client_with};
pub use resolve::{
    ClientSource, EnvProvider, PlainClients, ProviderChoice, ProviderPlan, ResolveError, RunPlan,
    RunRequest, ServerChoice, offered_servers, resolve, resolve_provider,
};
pub use run::Sampler;
pub use tool_call::{
    Attempt, CallerKind, ToolCallError, ToolCallOutcome, ToolCallRequest, ToolCalls, builtins_now,
};
