//! Seed 002 property 7 at execution: every mapped parameter is filled from the run's
//! variables before the call, and a reference with no value fails the call by name.
//!
//! Failing is the point: a tool called with a parameter silently left out (what the old
//! proxy did) acts on whatever its own default is, which is rarely what the workflow meant.

use serde_json::{Map, Value};
use thiserror::Error;

use super::mapping::Mapping;
use super::template::{MAX_RENDERED_BYTES, RenderError};
use super::variables::Variables;
use super::{SelectedTool, VariableType};

/// Why a tool's arguments could not be completed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// A referenced variable has no value in the run and no declared default.
    #[error(
        "parameter {parameter:?} of tool {tool:?} needs the variable {{{{{variable}}}}}, which \
         has no value and no default"
    )]
    MissingVariable {
        tool: String,
        parameter: String,
        variable: String,
    },
    /// A referenced variable's value is not of the type the variable is declared with.
    #[error(
        "parameter {parameter:?} of tool {tool:?} needs the variable {{{{{variable}}}}} to be \
         of type {expected}, and its value is not"
    )]
    WrongType {
        tool: String,
        parameter: String,
        variable: String,
        expected: VariableType,
    },
    /// The parameter's template renders to more than [`MAX_RENDERED_BYTES`] of text.
    #[error(
        "parameter {parameter:?} of tool {tool:?} renders to more than {limit} bytes",
        limit = MAX_RENDERED_BYTES
    )]
    TooLong { tool: String, parameter: String },
}

/// `arguments` (from the model or the caller) with every mapping of `tool` applied over them:
/// a mapping always wins over a supplied argument of the same name. A literal is copied; a
/// template is rendered against `vars` (a whole `{{ref}}` keeps its JSON type, anything else
/// is text). A value of a declared variable must have the declared type, and no template may
/// render to more than [`MAX_RENDERED_BYTES`].
pub fn resolve_arguments(
    tool: &SelectedTool,
    mut arguments: Map<String, Value>,
    vars: &Variables,
) -> Result<Map<String, Value>, ResolveError> {
    for (parameter, mapping) in &tool.parameter_mappings {
        let value = match mapping {
            Mapping::Literal(value) => value.clone(),
            Mapping::Template(template) => {
                for path in template.references() {
                    vars.lookup_checked(path)
                        .map_err(|expected| ResolveError::WrongType {
                            tool: tool.name.clone(),
                            parameter: parameter.clone(),
                            variable: path.root().to_owned(),
                            expected,
                        })?;
                }
                template
                    .render(|path| vars.lookup(path))
                    .map_err(|error| match error {
                        RenderError::Missing(missing) => ResolveError::MissingVariable {
                            tool: tool.name.clone(),
                            parameter: parameter.clone(),
                            variable: missing.to_string(),
                        },
                        RenderError::TooLong => ResolveError::TooLong {
                            tool: tool.name.clone(),
                            parameter: parameter.clone(),
                        },
                    })?
            }
        };
        arguments.insert(parameter.clone(), value);
    }
    Ok(arguments)
}
