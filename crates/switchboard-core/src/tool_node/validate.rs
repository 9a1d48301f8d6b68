//! The rules a [`ToolNode`] follows on its own, before it is checked against its server.

use std::collections::BTreeSet;

use super::variables::is_builtin;
use super::{ToolNode, VariableDecl};
use crate::spec::{SpecError, check_timeout};

/// The most retries a node may ask for: with seed 002's backoff (1 s doubling to at most
/// 10 s) ten retries already wait over a minute.
pub const MAX_RETRIES: u32 = 10;

impl ToolNode {
    /// Checks every rule and returns the first broken one, in field order: a name, a timeout
    /// within the bounds of every other timeout, at most [`MAX_RETRIES`], each tool selected
    /// once, and declared variables with distinct valid names that are not built-ins and
    /// defaults of their declared type.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.name.trim().is_empty() {
            return Err(SpecError::Empty {
                field: "name".into(),
            });
        }
        if self.server_id.0.trim().is_empty() {
            return Err(SpecError::Empty {
                field: "serverId".into(),
            });
        }
        let mut tools = BTreeSet::new();
        for (i, tool) in self.selected_tools.iter().enumerate() {
            let field = format!("selectedTools[{i}].name");
            if tool.name.trim().is_empty() {
                return Err(SpecError::Empty { field });
            }
            if !tools.insert(tool.name.as_str()) {
                return Err(SpecError::Duplicate {
                    field,
                    name: tool.name.clone(),
                });
            }
        }
        if self.max_retries > MAX_RETRIES {
            return Err(SpecError::TooLarge {
                field: "maxRetries".into(),
                max: u64::from(MAX_RETRIES),
            });
        }
        if let Some(timeout) = self.timeout {
            check_timeout("timeoutMs", timeout)?;
        }
        validate_variables(&self.variables)
    }
}

/// The rules for a list of declared variables (a node's or an assistant's), fields named
/// `variables[i].name` / `variables[i].default`: valid one-segment names, none a built-in,
/// none twice, and each default of its declared type.
pub fn validate_variables(decls: &[VariableDecl]) -> Result<(), SpecError> {
    let mut names = BTreeSet::new();
    for (i, decl) in decls.iter().enumerate() {
        let field = format!("variables[{i}].name");
        if !is_variable_name(&decl.name) {
            return Err(SpecError::InvalidVariableName {
                field,
                name: decl.name.clone(),
            });
        }
        if is_builtin(&decl.name) {
            return Err(SpecError::ReservedVariable {
                field,
                name: decl.name.clone(),
            });
        }
        if !names.insert(decl.name.as_str()) {
            return Err(SpecError::Duplicate {
                field,
                name: decl.name.clone(),
            });
        }
        if let Some(default) = &decl.default
            && !decl.kind.accepts(default)
        {
            return Err(SpecError::DefaultType {
                field: format!("variables[{i}].default"),
                expected: decl.kind.as_str().to_owned(),
            });
        }
    }
    Ok(())
}

/// A declared variable is one segment (`owner`, `api_key`); dotted paths reach into its value.
pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
