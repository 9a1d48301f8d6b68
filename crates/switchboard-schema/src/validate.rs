//! Checking a model's arguments against the tool's original input schema before the call.
//!
//! A dialect conversion may drop constraints its provider cannot express, so the model can send
//! arguments the server would refuse. Checking them here against the schema the server
//! declared turns that into an error the model can act on: each violation with its JSON path
//! (an instance path like `/items/0/name`) and its reason.
//!
//! The draft is the one `$schema` names, draft 2020-12 when there is none. Nothing is fetched:
//! the `jsonschema` dependency is built without its HTTP and file resolvers, so a remote `$ref`
//! makes the schema unusable ([`ArgumentsError::InvalidSchema`]) instead of reaching the
//! network.
//!
//! ```
//! use serde_json::json;
//! use switchboard_schema::validate::validate_arguments;
//!
//! let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
//! assert!(validate_arguments(&schema, &json!({"n": 3})).is_ok());
//! let error = validate_arguments(&schema, &json!({"n": "three"})).unwrap_err();
//! assert!(error.to_string().contains("/n"));
//! ```

use std::fmt;

use jsonschema::{Draft, Validator};
use serde_json::Value;

/// Violations reported in full; the rest are counted.
const MAX_VIOLATIONS: usize = 20;
/// Characters of one violation's reason shown before it is cut.
const MAX_REASON: usize = 300;

/// Why arguments were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentsError {
    /// The arguments do not match the schema.
    #[error("{0}")]
    Invalid(Violations),
    /// The tool's schema itself cannot be used to validate (malformed, an unknown `$schema`,
    /// or a reference that is not local).
    #[error("the tool's input schema cannot be used to check arguments: {reason}")]
    InvalidSchema { reason: String },
}

impl ArgumentsError {
    /// Arguments that break the schema are the caller's (the model's) to fix; a schema that
    /// cannot be used is the server's fault.
    pub fn code(&self) -> switchboard_core::ErrorCode {
        match self {
            ArgumentsError::Invalid(_) => switchboard_core::ErrorCode::McpInvalidParams,
            ArgumentsError::InvalidSchema { .. } => switchboard_core::ErrorCode::SchemaError,
        }
    }
}

/// One way the arguments break the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the arguments; empty for the arguments as a whole.
    pub instance_path: String,
    /// The schema keyword broken (`pattern`, `type`, ...): a reason that names no value, for
    /// callers that must not echo the value (a parameter a tool node filled in).
    pub keyword: String,
    pub reason: String,
}

/// The violations found, as many as were reported, and how many there were in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violations {
    pub violations: Vec<Violation>,
    pub total: usize,
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the arguments do not match the tool's input schema:")?;
        for v in &self.violations {
            let at = if v.instance_path.is_empty() {
                "(arguments)"
            } else {
                &v.instance_path
            };
            write!(f, "\n- at {at}: {}", v.reason)?;
        }
        let hidden = self.total.saturating_sub(self.violations.len());
        if hidden > 0 {
            write!(f, "\n- and {hidden} more")?;
        }
        Ok(())
    }
}

/// An original input schema compiled once, to check many calls of the same tool.
#[derive(Debug)]
pub struct ArgumentsValidator {
    validator: Validator,
}

impl ArgumentsValidator {
    /// Compiles `schema`; fails with [`ArgumentsError::InvalidSchema`] when it cannot be used.
    pub fn new(schema: &Value) -> Result<Self, ArgumentsError> {
        let invalid = |reason: String| ArgumentsError::InvalidSchema { reason };
        let mut options = jsonschema::options();
        match schema.get("$schema") {
            None => options = options.with_draft(Draft::Draft202012),
            Some(Value::String(uri)) => {
                // Only the bundled drafts: a custom meta-schema would have to be fetched.
                if Draft::from_schema_uri(uri) == Draft::Unknown {
                    return Err(invalid(format!("unsupported `$schema` {uri}")));
                }
            }
            Some(_) => return Err(invalid("`$schema` is not a string".into())),
        }
        if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
            return Err(invalid("it is neither an object nor a boolean".into()));
        }
        let validator = options
            .build(schema)
            .map_err(|e| invalid(cut(&e.to_string())))?;
        Ok(Self { validator })
    }

    /// Checks `arguments`, listing every violation with its path.
    pub fn validate(&self, arguments: &Value) -> Result<(), ArgumentsError> {
        let mut violations = Vec::new();
        let mut total = 0;
        for error in self.validator.iter_errors(arguments) {
            total += 1;
            if violations.len() < MAX_VIOLATIONS {
                violations.push(Violation {
                    instance_path: error.instance_path().to_string(),
                    keyword: error.kind().keyword().to_owned(),
                    reason: cut(&error.to_string()),
                });
            }
        }
        if total == 0 {
            Ok(())
        } else {
            Err(ArgumentsError::Invalid(Violations { violations, total }))
        }
    }
}

/// Checks a model's `arguments` against the tool's original `schema` (no network access).
pub fn validate_arguments(schema: &Value, arguments: &Value) -> Result<(), ArgumentsError> {
    ArgumentsValidator::new(schema)?.validate(arguments)
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_REASON {
        return text.to_owned();
    }
    let head: String = text.chars().take(MAX_REASON - 3).collect();
    format!("{head}...")
}
