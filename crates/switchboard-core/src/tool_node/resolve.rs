//! Seed 002 property 7 at execution: every mapped parameter is filled from the run's
//! variables before the call, and a reference with no value fails the call by name.
//!
//! Failing is the point: a tool called with a parameter silently left out (what the old
//! proxy did) acts on whatever its own default is, which is rarely what the workflow meant.

use serde_json::{Map, Value};
use thiserror::Error;

use super::SelectedTool;
use super::mapping::Mapping;
use super::variables::Variables;

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
}

/// `arguments` (from the model or the caller) with every mapping of `tool` applied over them:
/// a mapping always wins over a supplied argument of the same name. A literal is copied; a
/// template is rendered against `vars` (a whole `{{ref}}` keeps its JSON type, anything else
/// is text).
pub fn resolve_arguments(
    tool: &SelectedTool,
    mut arguments: Map<String, Value>,
    vars: &Variables,
) -> Result<Map<String, Value>, ResolveError> {
    for (parameter, mapping) in &tool.parameter_mappings {
        let value = match mapping {
            Mapping::Literal(value) => value.clone(),
            Mapping::Template(template) => {
                template
                    .render(|path| vars.lookup(path))
                    .map_err(|missing| ResolveError::MissingVariable {
                        tool: tool.name.clone(),
                        parameter: parameter.clone(),
                        variable: missing.to_string(),
                    })?
            }
        };
        arguments.insert(parameter.clone(), value);
    }
    Ok(arguments)
}
