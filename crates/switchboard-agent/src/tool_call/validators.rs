//! Compiled argument validators, kept per tool schema (moved here from the HTTP server: every
//! caller of the tool-call service shares one cache).
//!
//! Compiling a JSON Schema costs far more than checking arguments against it, and the proxy
//! checks every call; tools change rarely. Validators are keyed by the schema's text (two tools
//! with the same schema share one; a changed schema gets a new one), and the whole cache is
//! dropped when it grows past a bound, which only servers with thousands of distinct schemas
//! ever reach.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use switchboard_schema::validate::{ArgumentsError, ArgumentsValidator};

const MAX_KEPT: usize = 4096;

#[derive(Debug, Default)]
pub(crate) struct Validators {
    kept: Mutex<HashMap<String, Arc<ArgumentsValidator>>>,
}

impl Validators {
    /// Checks `arguments` against `schema`.
    pub(crate) fn check(
        &self,
        schema: &Map<String, Value>,
        arguments: &Value,
    ) -> Result<(), ArgumentsError> {
        let key = Value::Object(schema.clone()).to_string();
        let found = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        let validator = match found {
            Some(validator) => validator,
            None => {
                let validator = Arc::new(ArgumentsValidator::new(&Value::Object(schema.clone()))?);
                let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
                if kept.len() >= MAX_KEPT {
                    kept.clear();
                }
                kept.insert(key, Arc::clone(&validator));
                validator
            }
        };
        validator.validate(arguments)
    }

    /// Checks the object `arguments` against `schema`, handing it back when it fits.
    pub(crate) fn check_object(
        &self,
        schema: &Map<String, Value>,
        arguments: Map<String, Value>,
    ) -> Result<Map<String, Value>, ArgumentsError> {
        let arguments = Value::Object(arguments);
        self.check(schema, &arguments)?;
        Ok(match arguments {
            Value::Object(arguments) => arguments,
            // Built from an object just above.
            _ => Map::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn validators_are_compiled_once_per_schema_and_still_check() {
        let validators = Validators::default();
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let schema = schema.as_object().unwrap();
        validators.check(schema, &json!({"n": 1})).unwrap();
        assert!(validators.check(schema, &json!({"n": "one"})).is_err());
        assert!(validators.check(schema, &json!({})).is_err());
        assert_eq!(validators.kept.lock().unwrap().len(), 1);
    }
}
