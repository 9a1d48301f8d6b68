//! The domain's refusals worded by locale keys: a server spec that breaks a rule
//! ([`SpecError`]), a stdio server a member may not start ([`LaunchRefusal`]) and a
//! destination a member may not reach. Field names, hosts and programs stay as written; the
//! sentence around them is the locale files'.

use switchboard_core::{LaunchRefusal, Refusal, SpecError};

use crate::error::Words;

/// The words of a broken spec rule; the English text is the error's `Display`.
pub fn spec(e: &SpecError) -> Words {
    match e {
        SpecError::Empty { field } => Words::new("error.msg.spec_empty").param("field", field),
        SpecError::Missing { field, transport } => Words::new("error.msg.spec_missing")
            .param("field", field)
            .param("transport", transport),
        SpecError::InvalidUrl { field, reason } => Words::new("error.msg.spec_invalid_url")
            .param("field", field)
            .param("reason", reason),
        SpecError::UnsupportedScheme { field, scheme } => {
            Words::new("error.msg.spec_unsupported_scheme")
                .param("field", field)
                .param("scheme", scheme)
        }
        SpecError::InvalidHeaderName { field, name } => {
            Words::new("error.msg.spec_invalid_header_name")
                .param("field", field)
                .param("name", format!("{name:?}"))
        }
        SpecError::TooLong { field, max } => Words::new("error.msg.spec_too_long")
            .param("field", field)
            .param("max", max),
        SpecError::ReservedHeader { field, name } => Words::new("error.msg.spec_reserved_header")
            .param("field", field)
            .param("name", format!("{name:?}")),
        SpecError::InvalidHeaderValue { field } => {
            Words::new("error.msg.spec_invalid_header_value").param("field", field)
        }
        SpecError::InvalidEnvName { field, name } => Words::new("error.msg.spec_invalid_env_name")
            .param("field", field)
            .param("name", format!("{name:?}")),
        SpecError::NulByte { field } => Words::new("error.msg.spec_nul_byte").param("field", field),
        SpecError::InvalidId { field, id } => Words::new("error.msg.spec_invalid_id")
            .param("field", field)
            .param("id", format!("{id:?}")),
        SpecError::ZeroTimeout { field } => {
            Words::new("error.msg.spec_zero_timeout").param("field", field)
        }
        SpecError::TimeoutOutOfRange { field } => {
            Words::new("error.msg.spec_timeout_range").param("field", field)
        }
        SpecError::UnknownSecretEnv { field, name } => {
            Words::new("error.msg.spec_unknown_secret_env")
                .param("field", field)
                .param("name", format!("{name:?}"))
        }
        SpecError::TooLarge { field, max } => Words::new("error.msg.spec_too_large")
            .param("field", field)
            .param("max", max),
        SpecError::Duplicate { field, name } => Words::new("error.msg.spec_duplicate")
            .param("field", field)
            .param("name", format!("{name:?}")),
        SpecError::InvalidVariableName { field, name } => {
            Words::new("error.msg.spec_invalid_variable_name")
                .param("field", field)
                .param("name", format!("{name:?}"))
        }
        SpecError::ReservedVariable { field, name } => {
            Words::new("error.msg.spec_reserved_variable")
                .param("field", field)
                .param("name", format!("{name:?}"))
        }
        SpecError::DefaultType { field, expected } => Words::new("error.msg.spec_default_type")
            .param("field", field)
            .param("expected", expected),
        SpecError::Needs { field, needs } => Words::new("error.msg.spec_needs")
            .param("field", field)
            .param("needs", needs),
        SpecError::InvalidRoot { field, root } => Words::new("error.msg.spec_invalid_root")
            .param("field", field)
            .param("root", format!("{root:?}")),
        SpecError::InvalidScope { field, scope } => Words::new("error.msg.spec_invalid_scope")
            .param("field", field)
            .param("scope", format!("{scope:?}")),
        SpecError::OutOfRange { field, min, max } => Words::new("error.msg.spec_out_of_range")
            .param("field", field)
            .param("min", min)
            .param("max", max),
        // A rule added later: its English text, in the code's template.
        other => Words::new("error.msg.detail").param("detail", other),
    }
}

/// Why a member may not start a stdio server; the English text is the refusal's `Display`.
pub fn launch(refusal: &LaunchRefusal) -> Words {
    match refusal {
        LaunchRefusal::WorkingDirectory => Words::new("error.msg.launch_cwd"),
        LaunchRefusal::ForbiddenEnv(name) => {
            Words::new("error.msg.launch_forbidden_env").param("name", name)
        }
        LaunchRefusal::InvalidEnvName(name) => {
            Words::new("error.msg.launch_invalid_env_name").param("name", format!("{name:?}"))
        }
        LaunchRefusal::Program(program) => {
            Words::new("error.msg.launch_program").param("program", program)
        }
        LaunchRefusal::Arguments { program, allowed } => Words::new("error.msg.launch_arguments")
            .param("program", program)
            .param("allowed", allowed),
        LaunchRefusal::Env { program, name } => Words::new("error.msg.launch_env")
            .param("program", program)
            .param("name", name),
        LaunchRefusal::NoCommand => Words::new("error.msg.launch_no_command"),
        other => Words::new("error.msg.detail").param("detail", other),
    }
}

/// A member may not reach `host` (the words of
/// [`switchboard_mcp::destination::refusal_reason`]).
/// The words of a refused connection; the English text is the refusal's `Display`.
pub fn refusal(refusal: &Refusal) -> Words {
    match refusal {
        Refusal::Launch(launch_refusal) => launch(launch_refusal),
        Refusal::LaunchOnNode(launch_refusal) => {
            Words::new("error.msg.launch_on_node").param("reason", launch_refusal)
        }
        Refusal::Destination { host } => destination(host),
        Refusal::ListingFull {
            tools,
            bytes,
            left_out,
        } => Words::new("error.msg.listing_full")
            .param("tools", tools)
            .param("bytes", bytes)
            .param("left_out", left_out),
        Refusal::ListingTooLarge { tools, bytes } => Words::new("error.msg.listing_too_large")
            .param("tools", tools)
            .param("bytes", bytes),
        Refusal::ListingServers { max, left_out } => Words::new("error.msg.listing_servers")
            .param("max", max)
            .param("left_out", left_out),
        Refusal::UnknownOwner { detail } => {
            Words::new("error.msg.owner_unknown").param("detail", detail)
        }
        Refusal::UnknownNode { node, known } => Words::new("error.msg.unknown_node")
            .param("node", node)
            .param("known", known),
        // A refusal added later: its English text.
        other => Words::new("error.msg.detail").param("detail", other),
    }
}

pub fn destination(host: &str) -> Words {
    Words::new("error.msg.destination_refused").param("host", host)
}
