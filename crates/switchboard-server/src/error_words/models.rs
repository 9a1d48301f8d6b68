//! Why a provider's models could not be listed ([`ModelsError`]), worded: what failed and
//! what to check, as a provider's Test button and a chat's model list show it.

use switchboard_llm::ModelsError;

use crate::error::Words;

/// The reason, as the locale files word it; its English is the error's `Display`.
pub fn reason(e: &ModelsError) -> Words {
    match e {
        ModelsError::NameNotResolved { host } => {
            Words::new("error.msg.models_name").param("host", host)
        }
        ModelsError::Refused { address } => {
            Words::new("error.msg.models_refused").param("address", address)
        }
        ModelsError::Timeout { after } => {
            Words::new("error.msg.models_timeout").param("seconds", after.as_secs_f32())
        }
        ModelsError::Unreachable(_) => Words::new("error.msg.models_unreachable"),
        ModelsError::Auth { status, message } => Words::new("error.msg.models_auth")
            .param("status", status)
            .param("message", message),
        ModelsError::NotFound { path } => {
            Words::new("error.msg.models_not_found").param("path", path)
        }
        ModelsError::Status { status, message } => Words::new("error.msg.models_status")
            .param("status", status)
            .param("message", message),
        ModelsError::NotAList { path } => {
            Words::new("error.msg.models_not_a_list").param("path", path)
        }
        ModelsError::TooLarge { limit } => {
            Words::new("error.msg.models_too_large").param("limit", limit)
        }
        ModelsError::Unsupported => Words::new("error.msg.models_unsupported"),
        _ => Words::new("error.msg.detail").param("detail", e),
    }
}
