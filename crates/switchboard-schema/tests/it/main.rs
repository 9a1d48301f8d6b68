//! The integration tests of `switchboard-schema`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

#[path = "common/provider_rules.rs"]
mod provider_rules;
mod resolve_common;

mod dialect;
mod dialect_gemini;
mod dialect_props;
mod dialect_strict;
mod golden;
mod resolve;
mod resolve_limits;
mod resolve_props;
mod validate;
