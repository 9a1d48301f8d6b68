//! A reference-free JSON Schema rewritten for one provider's function-calling API.
//!
//! Each provider accepts part of JSON Schema and answers anything else with a 400 that fails the
//! whole request, so [`to_dialect`] produces, per [`Dialect`], only what that provider documents
//! as accepted. Every dialect starts from the same normalization (draft-04/07 forms rewritten to
//! 2020-12, malformed keywords and leftover references dropped, the root made an object schema,
//! see `common` and `root`); the dialect passes then drop or rewrite what their provider rejects.
//! What a conversion drops or changes is listed in [`DialectSchema::notes`].
//!
//! Dropping a constraint makes the schema wider than the tool's: the model may then send
//! arguments the server would refuse. That is why arguments are checked against the tool's
//! *original* schema before the call ([`crate::validate::validate_arguments`]), and why
//! dropped value constraints are restated in the description where a model can read them.
//! Where a dialect cannot express a part of the schema at all, it narrows instead (leaves an
//! optional property out, keeps fewer `anyOf` branches); a required part it cannot express
//! fails the tool with [`SchemaError::Unrepresentable`].
//!
//! Two rewrites change what the model sends, and have an inverse to apply to its arguments
//! before the call: [`strip_added_nulls`] (strict mode's `null` unions) and
//! [`restore_enum_values`] (`gemini`'s non-string `enum` values sent as strings).
//!
//! | dialect | provider form | main rewrites |
//! |---|---|---|
//! | `openai` | `function.parameters`, `strict: false` | root rules; `items: {}` added to arrays without `items` |
//! | `openai-strict` | `function.parameters`, `strict: true` | closed objects, all properties required, optional ones nullable; falls back to `openai` with a reason |
//! | `anthropic` | `input_schema` | root rules; valid draft 2020-12 |
//! | `gemini` | `parameters` (OpenAPI 3.0 subset) | `nullable`, string-only `enum`, listed formats, no `additionalProperties` |
//! | `gemini-json` | `parametersJsonSchema` | the documented JSON Schema subset |
//!
//! ```
//! use serde_json::json;
//! use switchboard_schema::dialect::{Dialect, to_dialect};
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
//!     "required": ["city"]
//! });
//! let strict = to_dialect(&schema, Dialect::OpenAiStrict).unwrap();
//! assert!(strict.strict);
//! assert_eq!(strict.parameters["required"], json!(["city", "days"]));
//! assert_eq!(strict.parameters["properties"]["days"]["type"], json!(["integer", "null"]));
//! ```

mod anthropic;
mod common;
mod enums;
mod gemini;
mod gemini_json;
mod names;
mod normalize;
mod nulls;
mod openai;
mod openai_strict;
mod root;

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::error::SchemaError;

pub use enums::restore_enum_values;
pub use names::tool_name;
pub use nulls::strip_added_nulls;

/// A provider's function-calling schema dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI function `parameters`, best effort (`strict: false`).
    OpenAi,
    /// OpenAI function `parameters` with Structured Outputs (`strict: true`) when that is
    /// lossless, else as [`Dialect::OpenAi`] with the reason.
    OpenAiStrict,
    /// Anthropic tool `input_schema`.
    Anthropic,
    /// Gemini `FunctionDeclaration.parameters` (an OpenAPI 3.0 schema subset).
    Gemini,
    /// Gemini `FunctionDeclaration.parametersJsonSchema` (a JSON Schema subset).
    GeminiJson,
}

impl Dialect {
    /// Every dialect, in a stable order.
    pub const ALL: [Dialect; 5] = [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::GeminiJson,
    ];

    /// The name used on the command line and in configuration.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::GeminiJson => "gemini-json",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A dialect name that is none of `openai`, `openai-strict`, `anthropic`, `gemini`,
/// `gemini-json`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown dialect `{0}`: expected one of openai, openai-strict, anthropic, gemini, gemini-json"
)]
pub struct ParseDialectError(pub String);

impl FromStr for Dialect {
    type Err = ParseDialectError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseDialectError(s.to_owned()))
    }
}

/// A schema converted for one dialect.
#[derive(Debug, Clone, PartialEq)]
pub struct DialectSchema {
    /// What goes into the provider's parameters field.
    pub parameters: Value,
    /// OpenAI only: `parameters` satisfies Structured Outputs and may be sent with
    /// `strict: true`. Always `false` for other dialects.
    pub strict: bool,
    /// [`Dialect::OpenAiStrict`] only: why strict mode was not possible (the first reason
    /// found).
    pub not_strict_reason: Option<String>,
    /// What the conversion dropped or changed, each with its location (`#/properties/x: ...`).
    pub notes: Vec<String>,
}

/// Converts a reference-free schema (the resolver's output) for `dialect`.
///
/// A leftover `$ref` is dropped with a note rather than followed. Fails only when the schema
/// cannot describe tool arguments at all ([`SchemaError::RootNotObject`]) or, for
/// [`Dialect::Gemini`], when a required part cannot be expressed
/// ([`SchemaError::Unrepresentable`]).
pub fn to_dialect(schema: &Value, dialect: Dialect) -> Result<DialectSchema, SchemaError> {
    let mut notes = common::Notes::default();
    let normalized = match schema {
        Value::Null => root::empty_object(),
        other => normalize::normalize(other, "", 0, &mut notes),
    };
    let (mut root, widened) = root::object_root(normalized, &mut notes)?;
    let mut strict = false;
    let mut not_strict_reason = None;
    match dialect {
        Dialect::OpenAi => openai::apply(&mut root),
        Dialect::OpenAiStrict => match widened.map_or_else(|| openai_strict::strictify(&root), Err)
        {
            Ok((parameters, strict_notes)) => {
                root = parameters;
                notes.append(strict_notes);
                strict = true;
            }
            Err(reason) => {
                openai::apply(&mut root);
                not_strict_reason = Some(reason);
            }
        },
        Dialect::Anthropic => anthropic::apply(&mut root),
        Dialect::Gemini => root = gemini::convert(&root, &mut notes)?,
        Dialect::GeminiJson => root = gemini_json::convert(&root, &mut notes),
    }
    Ok(DialectSchema {
        parameters: root,
        strict,
        not_strict_reason,
        notes: notes.finish(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in Dialect::ALL {
            assert_eq!(d.to_string().parse::<Dialect>(), Ok(d));
        }
        assert_eq!(
            " OpenAI-Strict ".parse::<Dialect>(),
            Ok(Dialect::OpenAiStrict)
        );
        let error = "bard".parse::<Dialect>().expect_err("unknown");
        assert!(error.to_string().contains("gemini-json"));
    }
}
