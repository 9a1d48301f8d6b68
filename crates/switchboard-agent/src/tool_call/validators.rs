//! Compiled argument validators, kept per tool schema (moved here from the HTTP server: every
//! caller of the tool-call service shares one cache).
//!
//! Compiling a JSON Schema costs far more than checking arguments against it, and the proxy
//! checks every call; tools change rarely. Validators are kept per schema content (two tools
//! with the same schema share one; a changed schema gets a new one), found by a hash walked
//! over the schema in place and confirmed by comparing it whole: keying by the schema's text
//! cost every call a copy and an encoding of the schema. The whole cache is dropped
//! when it grows past a bound, which only servers with thousands of distinct schemas ever
//! reach.

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use switchboard_core::PerList;
use switchboard_schema::validate::{ArgumentsError, ArgumentsValidator};

use super::SharedTool;

const MAX_KEPT: usize = 4096;

type Kept = (Map<String, Value>, Arc<ArgumentsValidator>);

#[derive(Debug, Default)]
pub(crate) struct Validators {
    /// By the schema's hash: the schemas with that hash and their validators.
    kept: Mutex<HashMap<u64, Vec<Kept>>>,
    /// Keyed per process, so a server cannot choose schemas that collide.
    hashing: RandomState,
    /// By a listed tool's place in its list, while that list lives: a call of a listed tool
    /// finds its validator without walking the schema at all.
    by_place: PerList<usize, Arc<ArgumentsValidator>>,
}

impl Validators {
    /// Checks `arguments` against `schema`.
    #[cfg(test)]
    fn check(&self, schema: &Map<String, Value>, arguments: &Value) -> Result<(), ArgumentsError> {
        self.validator(schema)?.validate(arguments)
    }

    /// The validator of `schema`, compiled once per schema content.
    fn validator(
        &self,
        schema: &Map<String, Value>,
    ) -> Result<Arc<ArgumentsValidator>, ArgumentsError> {
        let mut hasher = self.hashing.build_hasher();
        hash_object(schema, &mut hasher);
        let key = hasher.finish();
        let found = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .and_then(|same| same.iter().find(|(kept, _)| kept == schema))
            .map(|(_, validator)| Arc::clone(validator));
        if let Some(validator) = found {
            return Ok(validator);
        }
        let validator = Arc::new(ArgumentsValidator::new(&Value::Object(schema.clone()))?);
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MAX_KEPT {
            kept.clear();
        }
        let same = kept.entry(key).or_default();
        if !same.iter().any(|(kept, _)| kept == schema) {
            same.push((schema.clone(), Arc::clone(&validator)));
        }
        Ok(validator)
    }

    /// Checks the object `arguments` against the input schema of the listed `tool`, handing
    /// them back when they fit.
    pub(crate) fn check_tool(
        &self,
        tool: &SharedTool,
        arguments: Map<String, Value>,
    ) -> Result<Map<String, Value>, ArgumentsError> {
        let validator = self.by_place.get_or_try(tool.list(), tool.index(), || {
            self.validator(&tool.input_schema)
        })?;
        let arguments = Value::Object(arguments);
        validator.validate(&arguments)?;
        Ok(match arguments {
            Value::Object(arguments) => arguments,
            // Built from an object just above.
            _ => Map::new(),
        })
    }
}

/// Feeds `value`'s content to `hasher`: equal values hash equally (an object's entries are
/// fed in its map's order, and equal maps of `serde_json` iterate in the same order).
fn hash_value(value: &Value, hasher: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(hasher),
        Value::Bool(b) => (1u8, b).hash(hasher),
        Value::Number(n) => {
            2u8.hash(hasher);
            n.hash(hasher);
        }
        Value::String(s) => (3u8, s).hash(hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(hasher);
            for item in items {
                hash_value(item, hasher);
            }
        }
        Value::Object(object) => hash_object(object, hasher),
    }
}

fn hash_object(object: &Map<String, Value>, hasher: &mut impl Hasher) {
    (5u8, object.len()).hash(hasher);
    for (key, value) in object {
        key.hash(hasher);
        hash_value(value, hasher);
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
        // The same schema built again shares the validator; another one gets its own.
        let again =
            json!({"required": ["n"], "properties": {"n": {"type": "integer"}}, "type": "object"});
        validators
            .check(again.as_object().unwrap(), &json!({"n": 2}))
            .unwrap();
        assert_eq!(validators.kept.lock().unwrap().len(), 1);
        let other = json!({"type": "object", "properties": {"n": {"type": "string"}}});
        let other = other.as_object().unwrap();
        validators.check(other, &json!({"n": "one"})).unwrap();
        assert!(validators.check(other, &json!({"n": 1})).is_err());
        assert_eq!(validators.kept.lock().unwrap().len(), 2);
    }

    fn listed(schema: Value) -> Arc<Vec<switchboard_core::ToolInfo>> {
        Arc::new(vec![switchboard_core::ToolInfo {
            server_id: switchboard_core::ServerId("s".into()),
            name: "t".into(),
            title: None,
            description: None,
            input_schema: schema.as_object().unwrap().clone(),
            output_schema: None,
            annotations: switchboard_core::ToolAnnotations::default(),
            icons: Vec::new(),
            meta: None,
            tasks: None,
        }])
    }

    #[test]
    fn a_listed_tool_finds_its_validator_by_its_place_while_its_list_lives() {
        let validators = Validators::default();
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let list = listed(schema.clone());
        let tool = SharedTool::find(Arc::clone(&list), "t").unwrap();
        let mut good = Map::new();
        good.insert("n".into(), json!(1));
        for _ in 0..3 {
            assert_eq!(validators.check_tool(&tool, good.clone()).unwrap(), good);
        }
        let mut bad = Map::new();
        bad.insert("n".into(), json!("one"));
        assert!(validators.check_tool(&tool, bad).is_err());
        assert_eq!(validators.by_place.len(), 1);
        // A new list (the tools listed again) with the same schema shares the compiled
        // validator; one whose schema changed gets its own, even at the same address.
        drop(tool);
        drop(list);
        let changed = listed(json!({"type": "object", "properties": {"n": {"type": "string"}}}));
        let tool = SharedTool::find(changed, "t").unwrap();
        let mut text = Map::new();
        text.insert("n".into(), json!("one"));
        assert!(validators.check_tool(&tool, text).is_ok());
        assert!(validators.check_tool(&tool, good.clone()).is_err());
        let again = SharedTool::find(listed(schema), "t").unwrap();
        assert!(validators.check_tool(&again, good).is_ok());
        assert_eq!(validators.kept.lock().unwrap().len(), 2);
    }

    #[test]
    fn equal_schemas_hash_equally_and_different_ones_apart() {
        let hash = |value: Value| {
            let mut hasher = std::hash::DefaultHasher::new();
            hash_value(&value, &mut hasher);
            hasher.finish()
        };
        let a = json!({"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}});
        let b = json!({"properties": {"n": {"enum": [1, 2], "type": "integer"}}, "type": "object"});
        assert_eq!(hash(a.clone()), hash(b));
        let c = json!({"type": "object", "properties": {"n": {"type": "integer", "enum": [2, 1]}}});
        assert_ne!(hash(a.clone()), hash(c));
        assert_ne!(hash(json!({"a": "1"})), hash(json!({"a": 1})));
        assert_ne!(hash(json!([[1], 2])), hash(json!([1, [2]])));
    }
}
