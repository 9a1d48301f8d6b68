//! The application layer's errors ([`AppError`], [`Refusal`]) worded by locale keys; the
//! lower layers' errors they carry are worded by their own functions.

use switchboard_app::{AppError, Refusal};

use crate::error::ApiError;

/// A refusal of the admin's rules.
pub fn refusal(e: &Refusal) -> ApiError {
    let error = ApiError::new(e.code(), e.to_string());
    match e {
        Refusal::Launch(refusal) => error
            .key("error.msg.launch_refused")
            .param_words("reason", super::spec::launch(refusal)),
        Refusal::Destination { host } => error.words(super::spec::destination(host)),
        Refusal::UnknownNode { node, known } => error
            .key("error.msg.unknown_node")
            .param("node", node)
            .param("known", known),
        // A refusal added later: its English text, in the code's template.
        _ => error,
    }
}

pub fn app(e: AppError) -> ApiError {
    match e {
        AppError::Store(e) => super::store(&e),
        AppError::Mcp(e) => super::mcp(&e),
        AppError::Agent(e) => super::agent(&e),
        AppError::ToolCall(e) => super::tool_call(&e),
        AppError::Refused(e) => refusal(&e),
        AppError::NodeSave(e) => super::tool_node::save(&e),
        AppError::NodeRun(e) => super::tool_node::run(e),
        AppError::ViewSave(e) => super::view::save(&e),
        AppError::NoProvider => ApiError::new(e.code(), e.to_string()).key("error.msg.no_provider"),
        AppError::NoModel { variable } => ApiError::new(e.code(), e.to_string())
            .key("error.msg.no_model")
            .param("variable", variable),
        AppError::TooManyRuns { limit } => crate::limits::rate_limited(
            "error.msg.too_many_runs",
            &format!("at most {limit} runs may go on at once; wait for one to finish"),
            std::time::Duration::from_secs(1),
        )
        .param("limit", limit),
        other => ApiError::new(other.code(), other.to_string()),
    }
}
