//! The application layer's errors ([`AppError`], [`Refusal`]) worded by locale keys; the
//! lower layers' errors they carry are worded by their own functions.

use switchboard_app::AppError;
use switchboard_core::catalogue::{FillError, ValueProblem};
use switchboard_core::{ErrorCode, Refusal};

use crate::error::{ApiError, Words};

/// A save the admin's rules refuse. A refused launch template is framed as a member's stdio
/// server; every other refusal is worded as when it refuses a connection.
pub fn refusal(e: &Refusal) -> ApiError {
    match e {
        Refusal::Launch(refusal) => ApiError::new(
            e.code(),
            format!("this stdio server may not be started by a member: {refusal}"),
        )
        .key("error.msg.launch_refused")
        .param_words("reason", super::spec::launch(refusal)),
        other => ApiError::new(other.code(), other.to_string()).words(super::spec::refusal(other)),
    }
}

pub fn app(e: AppError) -> ApiError {
    match e {
        AppError::Store(e) => super::store(&e).with_source(e),
        AppError::Mcp(e) => super::mcp(&e).with_source(e),
        AppError::Agent(e) => super::agent(&e).with_source(e),
        AppError::ToolCall(e) => super::tool_call(&e).with_source(e),
        AppError::Refused(e) => refusal(&e),
        AppError::NodeSave(e) => super::tool_node::save(&e).with_source(e),
        AppError::NodeRun(e) => super::tool_node::run(e),
        AppError::ViewSave(e) => super::view::save(&e).with_source(e),
        AppError::NoProvider => ApiError::new(e.code(), e.to_string()).key("error.msg.no_provider"),
        AppError::NoModel { variable } => ApiError::new(e.code(), e.to_string())
            .key("error.msg.no_model")
            .param("variable", variable),
        AppError::NoCatalogueEntry { ref name, .. } => ApiError::new(e.code(), e.to_string())
            .key("error.msg.catalogue_no_entry")
            .param("name", format!("{name:?}")),
        AppError::Fill(ref fill) => fill_error(fill),
        AppError::Models(models) => ApiError::new(
            switchboard_app::error::models_code(&models),
            format!("cannot list the provider's models: {models}"),
        )
        .key("error.msg.models_failed")
        .param_words("reason", super::models::reason(&models))
        .with_source(models),
        AppError::TooManyRuns { limit } => crate::limits::rate_limited(
            "error.msg.too_many_runs",
            &format!("at most {limit} runs may go on at once; wait for one to finish"),
            std::time::Duration::from_secs(1),
        )
        .param("limit", limit),
        AppError::TasksPending { ref tasks } => ApiError::new(e.code(), e.to_string())
            .key("error.msg.tasks_pending")
            .param("count", tasks.len())
            .with_tasks(
                tasks
                    .iter()
                    .map(crate::error::PendingTaskBody::of)
                    .collect(),
            ),
        other => ApiError::new(other.code(), other.to_string()),
    }
}

/// A catalogue entry's settings that do not fill it.
fn fill_error(e: &FillError) -> ApiError {
    let error = ApiError::new(ErrorCode::ValidationError, e.to_string());
    match e {
        FillError::UnknownSetting(setting) => error
            .key("error.msg.catalogue_unknown_setting")
            .param("setting", format!("{setting:?}")),
        FillError::MissingSetting(setting) => error
            .key("error.msg.catalogue_missing_setting")
            .param("setting", format!("{setting:?}")),
        FillError::BadValue { setting, problem } => error
            .key("error.msg.catalogue_bad_value")
            .param("setting", format!("{setting:?}"))
            .param_words("problem", Words::new(problem_key(*problem))),
        FillError::Spec(spec) => error.words(super::spec::spec(spec)),
        _ => error,
    }
}

fn problem_key(problem: ValueProblem) -> &'static str {
    match problem {
        ValueProblem::ControlCharacter => "error.msg.catalogue_value_control",
        ValueProblem::TooLong => "error.msg.catalogue_value_too_long",
        ValueProblem::NotAbsolute => "error.msg.catalogue_value_not_absolute",
        ValueProblem::LeadingDash => "error.msg.catalogue_value_leading_dash",
        _ => "error.msg.catalogue_value_bad",
    }
}
