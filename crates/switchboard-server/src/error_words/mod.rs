//! Lower layers' typed errors worded by the locale files, so a 4xx answer is wholly in the
//! request's language. Each function builds the [`ApiError`] of one error type
//! with its English text (the error's `Display`, which the `en-US` texts repeat word for
//! word) and the key and parameters of that text. Names, ids and values stay as written;
//! an upstream's own text (an MCP server's error, an IO error) stays as the `{detail}` of
//! a sentence of ours. Errors with no key here keep their code's template around the
//! English text.

use switchboard_agent::{AgentError, ToolCallError};
use switchboard_core::import::{EntryError, ParseError};
use switchboard_core::{
    Advice, ErrorCode, MAX_RENDERED_BYTES, MissingProgram, ReachFailure, ResolveError,
};
use switchboard_mcp::McpError;
use switchboard_store::{Entity, StoreError};

use crate::error::{ApiError, Words};
use switchboard_app::recall::RecallError;

pub mod app;
pub mod invalid;
pub mod models;
pub mod spec;
pub mod tool_node;
pub mod view;

/// `error`'s code and English text, worded by `words` when there are any.
fn worded(code: ErrorCode, english: String, words: Option<Words>) -> ApiError {
    let error = ApiError::new(code, english);
    match words {
        Some(words) => error.words(words),
        None => error,
    }
}

/// The name of a kind of stored thing.
pub fn entity(entity: Entity) -> Words {
    Words::new(match entity {
        Entity::User => "error.msg.entity_user",
        Entity::ApiToken => "error.msg.entity_api_token",
        Entity::Server => "error.msg.entity_server",
        Entity::Provider => "error.msg.entity_provider",
        Entity::Assistant => "error.msg.entity_assistant",
        Entity::Conversation => "error.msg.entity_conversation",
        Entity::Message => "error.msg.entity_message",
        Entity::ToolCall => "error.msg.entity_tool_call",
        Entity::ToolNode => "error.msg.entity_tool_node",
        Entity::View => "error.msg.entity_view",
        Entity::Task => "error.msg.entity_task",
        _ => return Words::new("error.msg.detail").param("detail", entity),
    })
}

pub fn store(e: &StoreError) -> ApiError {
    let error = ApiError::new(e.code(), e.to_string());
    match e {
        StoreError::NotFound { entity: kind, id } => error
            .key("error.msg.not_found")
            .param_words("entity", entity(*kind))
            .param("id", format!("{id:?}")),
        StoreError::Conflict { entity: kind, name } => error
            .key("error.msg.already_exists")
            .param_words("entity", entity(*kind))
            .param("name", format!("{name:?}")),
        StoreError::QuotaExceeded {
            entity: kind,
            limit,
        } => error
            .key("error.msg.quota")
            .param_words("entity", entity(*kind))
            .param("limit", limit),
        StoreError::InvalidSpec(spec) => error.words(spec::spec(spec)),
        StoreError::InvalidView(e) => error.words(view::view(e)),
        StoreError::Invalid(e) => invalid::invalid(error, e),
        StoreError::Full(_) => error.key("error.msg.storage_full"),
        _ => error,
    }
}

pub fn agent(e: &AgentError) -> ApiError {
    match e {
        AgentError::Store(e) => store(e),
        AgentError::Mcp(e) => mcp(e),
        _ => {
            let words = e.words().map(|(key, params)| Words { key, params });
            worded(e.code(), e.to_string(), words)
        }
    }
}

/// Whether the words of `e` say what to do about it (install Node.js, check the address).
fn advises(e: &McpError) -> bool {
    match e {
        McpError::Spawn { cause, .. } => matches!(
            cause.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
        ),
        McpError::Unreachable { reason, .. } => reason.words().is_some(),
        McpError::Denied { .. } => true,
        McpError::ConnectTimeout { .. } | McpError::ClosedDuringHandshake { .. } => {
            e.last_stderr().is_none()
        }
        _ => false,
    }
}

pub fn mcp(e: &McpError) -> ApiError {
    let error = ApiError::new(e.code(), e.to_string());
    let error = if advises(e.underlying()) {
        error.says_what_to_do()
    } else {
        error
    };
    match e {
        McpError::InvalidSpec(spec) => error
            .key("error.msg.server_config_invalid")
            .param_words("reason", spec::spec(spec)),
        McpError::Refused { server, refusal } => error
            .key("error.msg.server_refused")
            .param("server", server)
            .param("code", refusal.code())
            .param_words("reason", spec::refusal(refusal)),
        McpError::Unavailable { server, cause, .. } => error
            .key("error.msg.server_left_out")
            .param("server", server)
            .param_words(
                "reason",
                mcp_words(cause)
                    .unwrap_or_else(|| Words::new("error.msg.detail").param("detail", cause)),
            )
            .param("seconds", e.next_try_seconds().unwrap_or(1)),
        _ => match mcp_words(e) {
            Some(words) => error.words(words),
            None => error,
        },
    }
}

/// The words of an MCP error whose placeholders are all plain text; `None` for those
/// worded with words inside ([`mcp`]) or not worded at all.
fn mcp_words(e: &McpError) -> Option<Words> {
    match e {
        McpError::InvalidHeader { field, reason } => Some(
            Words::new("error.msg.invalid_header")
                .param("field", field)
                .param("reason", reason),
        ),
        McpError::Disabled { server } => {
            Some(Words::new("error.msg.server_disabled").param("server", server))
        }
        McpError::Spawn { command, cause } => Some(match cause.kind() {
            std::io::ErrorKind::NotFound => missing_program(&MissingProgram::new(command.clone())),
            std::io::ErrorKind::PermissionDenied => {
                Words::new("error.msg.spawn_not_executable").param("command", command)
            }
            _ => Words::new("error.msg.spawn_failed")
                .param("command", command)
                .param("detail", cause),
        }),
        McpError::Unreachable {
            url,
            reason,
            detail,
        } => Some(match reach_key(*reason) {
            Some(key) => Words::new(key).param("url", url),
            None => Words::new("error.msg.unreachable")
                .param("url", url)
                .param("detail", detail),
        }),
        McpError::Denied { server, status } => Some(match status {
            401 => Words::new("error.msg.denied_401").param("server", server),
            403 => Words::new("error.msg.denied_403").param("server", server),
            other => Words::new("error.msg.denied")
                .param("server", server)
                .param("status", other),
        }),
        McpError::AuthFailed { server, detail } => Some(
            Words::new("error.msg.auth_failed")
                .param("server", server)
                .param("detail", detail),
        ),
        McpError::SignInRequired {
            server,
            scope: None,
            ..
        } => Some(Words::new("error.msg.sign_in_required").param("server", server)),
        McpError::SignInRequired {
            server,
            scope: Some(scope),
            ..
        } => Some(
            Words::new("error.msg.sign_in_scope")
                .param("server", server)
                .param("scope", scope),
        ),
        McpError::Handshake { server, source } => Some(
            Words::new("error.msg.handshake_failed")
                .param("server", server)
                .param("detail", source),
        ),
        McpError::ConnectTimeout {
            server, timeout, ..
        } => Some(match e.last_stderr() {
            Some(stderr) => Words::new("error.msg.connect_timeout_stderr")
                .param("server", server)
                .param("seconds", timeout.as_secs_f64())
                .param("stderr", stderr),
            None => Words::new("error.msg.connect_timeout")
                .param("server", server)
                .param("seconds", timeout.as_secs_f64()),
        }),
        McpError::ClosedDuringHandshake { server, .. } => Some(match e.last_stderr() {
            Some(stderr) => Words::new("error.msg.closed_during_handshake_stderr")
                .param("server", server)
                .param("stderr", stderr),
            None => Words::new("error.msg.closed_during_handshake").param("server", server),
        }),
        McpError::ConnectionLost { server } => {
            Some(Words::new("error.msg.connection_lost").param("server", server))
        }
        McpError::LostAfterSend { server, tool } => Some(
            Words::new("error.msg.lost_after_send")
                .param("server", server)
                .param("tool", tool),
        ),
        McpError::Timeout {
            server,
            method,
            timeout,
        } => Some(
            Words::new("error.msg.call_timeout")
                .param("server", server)
                .param("method", method)
                .param("seconds", timeout.as_secs_f64()),
        ),
        McpError::Cancelled => Some(Words::new("error.msg.cancelled")),
        McpError::ShutDown => Some(Words::new("error.msg.shut_down")),
        McpError::ToolNotFound { server, tool } => Some(
            Words::new("error.msg.server_has_no_tool")
                .param("server", server)
                .param("tool", tool),
        ),
        McpError::Protocol { server, detail } => Some(
            Words::new("error.msg.protocol_broken")
                .param("server", server)
                .param("detail", detail),
        ),
        McpError::NodeUnreachable { node, detail } => Some(
            Words::new("error.msg.node_unreachable")
                .param("node", node)
                .param("detail", detail),
        ),
        McpError::UnknownNode { node } => {
            Some(Words::new("error.msg.node_not_configured").param("node", node))
        }
        _ => None,
    }
}

/// A program that could not be started because it is missing, with what to install.
fn missing_program(missing: &MissingProgram) -> Words {
    let key = match missing.advice() {
        Advice::InstallNode => "error.msg.spawn_missing_node",
        Advice::InstallUv => "error.msg.spawn_missing_uv",
        Advice::CheckPath => "error.msg.spawn_missing_path",
        _ => "error.msg.spawn_missing",
    };
    Words::new(key).param("command", &missing.command)
}

/// The words of an address that could not be reached, by why (none for an unknown reason).
fn reach_key(reason: ReachFailure) -> Option<&'static str> {
    Some(match reason {
        ReachFailure::NameNotResolved => "error.msg.unreachable_dns",
        ReachFailure::Refused => "error.msg.unreachable_refused",
        ReachFailure::TimedOut => "error.msg.unreachable_timed_out",
        ReachFailure::Certificate => "error.msg.unreachable_certificate",
        ReachFailure::Tls => "error.msg.unreachable_tls",
        _ => return None,
    })
}

pub fn tool_call(e: &ToolCallError) -> ApiError {
    let words = match e {
        ToolCallError::Store(e) => return store(e),
        ToolCallError::Mcp { error, .. } => return mcp(error),
        ToolCallError::ToolNotFound { server, tool } => Some(
            Words::new("error.msg.no_enabled_tool")
                .param("server", format!("{server:?}"))
                .param("tool", format!("{tool:?}")),
        ),
        ToolCallError::NotSelected { node, tool } => Some(
            Words::new("error.msg.tool_not_in_node")
                .param("node", format!("{node:?}"))
                .param("tool", format!("{tool:?}")),
        ),
        ToolCallError::OtherServer { node, server } => Some(
            Words::new("error.msg.node_other_server")
                .param("node", format!("{node:?}"))
                .param("server", format!("{server:?}")),
        ),
        ToolCallError::MissingVariable(ResolveError::MissingVariable {
            tool,
            parameter,
            variable,
        }) => Some(
            Words::new("error.msg.missing_variable")
                .param("tool", format!("{tool:?}"))
                .param("parameter", format!("{parameter:?}"))
                .param("variable", format!("{{{{{variable}}}}}")),
        ),
        ToolCallError::MissingVariable(ResolveError::WrongType {
            tool,
            parameter,
            variable,
            expected,
        }) => Some(
            Words::new("error.msg.variable_wrong_type")
                .param("tool", format!("{tool:?}"))
                .param("parameter", format!("{parameter:?}"))
                .param("variable", format!("{{{{{variable}}}}}"))
                .param("expected", expected.as_str()),
        ),
        ToolCallError::MissingVariable(ResolveError::TooLong { tool, parameter }) => Some(
            Words::new("error.msg.rendered_too_long")
                .param("tool", format!("{tool:?}"))
                .param("parameter", format!("{parameter:?}"))
                .param("limit", MAX_RENDERED_BYTES.to_string()),
        ),
        _ => None,
    };
    worded(e.code(), e.to_string(), words)
}

pub fn recall(e: &RecallError) -> ApiError {
    let words = match e {
        RecallError::Lookup(e) => return tool_call(e),
        RecallError::UnsupportedSource(kind) => {
            Some(Words::new("error.msg.recall_unsupported_source").param("type", kind))
        }
        RecallError::MissingField(field) => {
            Some(Words::new("error.msg.recall_missing_field").param("field", field))
        }
        RecallError::Dialect(dialect) => {
            Some(Words::new("error.msg.unknown_dialect").param("dialect", &dialect.0))
        }
        RecallError::UnknownParameter { tool, parameter } => Some(
            Words::new("error.msg.unknown_fixed_parameter")
                .param("tool", format!("{tool:?}"))
                .param("parameter", format!("{parameter:?}")),
        ),
        _ => None,
    };
    worded(e.code(), e.to_string(), words)
}

pub fn import_file(e: &ParseError) -> ApiError {
    let words = match e {
        ParseError::Json(json) => {
            Some(Words::new("error.msg.import_not_json").param("detail", json))
        }
        ParseError::NoServers => Some(Words::new("error.msg.import_no_server_list")),
    };
    worded(e.code(), e.to_string(), words)
}

pub fn import_entry(e: &EntryError) -> ApiError {
    let words = match e {
        EntryError::NotAnObject => Some(Words::new("error.msg.import_not_object")),
        EntryError::WrongType { field, expected } => Some(
            Words::new("error.msg.import_wrong_type")
                .param("field", field)
                .param("expected", expected),
        ),
        EntryError::NoTarget => Some(Words::new("error.msg.import_no_target")),
        EntryError::BothTargets => Some(Words::new("error.msg.import_both_targets")),
        EntryError::UnsupportedType(kind) => {
            Some(Words::new("error.msg.import_unsupported_type").param("type", kind))
        }
        EntryError::Invalid(invalid) => Some(spec::spec(invalid)),
        _ => None,
    };
    worded(e.code(), e.to_string(), words)
}

#[cfg(test)]
mod tests;
