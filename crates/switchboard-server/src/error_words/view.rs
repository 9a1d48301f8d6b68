//! A gateway view that breaks a rule ([`ViewError`]), worded by locale keys. Names, fields and
//! prefixes stay as written; the sentence around them is the locale files'.

use switchboard_core::ViewError;

use crate::error::Words;

/// The words of a broken view rule; the English text is the error's `Display`.
pub fn view(e: &ViewError) -> Words {
    match e {
        ViewError::InvalidName { name } => {
            Words::new("error.msg.view_invalid_name").param("name", format!("{name:?}"))
        }
        ViewError::Empty => Words::new("error.msg.view_empty"),
        ViewError::AssistantAndServers => Words::new("error.msg.view_assistant_and_servers"),
        ViewError::InvalidPrefix { field, prefix } => Words::new("error.msg.view_invalid_prefix")
            .param("field", field)
            .param("prefix", format!("{prefix:?}")),
        ViewError::EmptyToolName { field } => {
            Words::new("error.msg.view_empty_tool_name").param("field", field)
        }
        ViewError::NoTools { field } => Words::new("error.msg.view_no_tools").param("field", field),
        ViewError::DuplicateServer { field, server } => {
            Words::new("error.msg.view_duplicate_server")
                .param("field", field)
                .param("server", format!("{server:?}"))
        }
        ViewError::EmptyId { field } => Words::new("error.msg.spec_empty").param("field", field),
        ViewError::DescriptionTooLong => Words::new("error.msg.view_description_too_long"),
        ViewError::SlowAfterOutOfRange { secs } => {
            Words::new("error.msg.view_slow_after").param("secs", secs)
        }
        ViewError::TooManyPinned => Words::new("error.msg.view_too_many_pinned"),
        ViewError::PinnedOutsideView { field, what } => Words::new("error.msg.view_pinned_outside")
            .param("field", field)
            .param("what", what),
        // A rule added later: its English text, in the code's template.
        other => Words::new("error.msg.detail").param("detail", other),
    }
}

/// A view that cannot be saved: its rules, its links, or tool names that collide (409
/// `CONFLICT`, naming them).
pub fn save(e: &crate::views::ViewSaveError) -> crate::error::ApiError {
    use crate::error::ApiError;
    use crate::views::ViewSaveError;
    use switchboard_gateway::GatewayError;
    match e {
        ViewSaveError::Store(e) | ViewSaveError::Gateway(GatewayError::Store(e)) => super::store(e),
        ViewSaveError::Gateway(GatewayError::Mcp(e)) => super::mcp(e),
        ViewSaveError::Gateway(other) => ApiError::new(other.code(), other.to_string()),
        ViewSaveError::Collisions(collisions) => {
            ApiError::new(switchboard_core::ErrorCode::Conflict, e.to_string())
                .key("error.msg.view_collisions")
                .param("names", crate::views::describe(collisions))
        }
        other => ApiError::new(other.code(), other.to_string()),
    }
}
