//! Anthropic tool `input_schema`.
//!
//! Anthropic documents `input_schema` as a JSON Schema object whose `type` is `object`
//! (platform.claude.com, "Define tools"), rejects `oneOf`/`allOf`/`anyOf` at the top level
//! ("input_schema does not support oneOf, allOf, or anyOf at the top level",
//! anthropics/claude-code#5878) and rejects a schema that is not valid draft 2020-12 ("JSON
//! schema is invalid. It must match JSON Schema draft 2020-12"). Normalization already gives a
//! 2020-12 schema with well-formed keyword values and `root` an object root, so every other
//! keyword, descriptions included, is kept. Tool names follow `^[a-zA-Z0-9_-]{1,64}$`
//! ([`super::tool_name`]).

use serde_json::Value;

/// Nothing beyond the shared normalization and root rules: kept as a named step so the
/// dispatch in [`super::to_dialect`] reads one line per dialect.
pub(crate) fn apply(_root: &mut Value) {}
