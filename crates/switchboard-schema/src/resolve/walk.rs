//! The walk: one pass over the schema that inlines references where the strategy finds them,
//! prunes them on a cycle, at the depth limit or when the budget is spent, and copies every
//! other keyword.
//!
//! Recursion is bounded by the output, not the input: a subschema is only walked while its
//! place in the output stays within `max_nesting` levels, and an inlined target sits at the
//! place of its `$ref`, with at most `max_depth` of them open at once. Whatever lies deeper is
//! left out with a note, so no input, however deep, can exhaust the stack.
//!
//! Resolving is idempotent: the output holds no references, so walking it again only meets the
//! nesting checks, and those depend on nothing but a value and its place in the output, which
//! are the same the second time.

use serde_json::{Map, Value};

use super::budget::Budget;
use super::keywords::{Keyword, REFERENCES, classify};
use super::merge::merge;
use super::notes::Notes;
use super::prune::{Reason, summary, unresolved_description, unresolved_note};
use super::resolver::RefResolver;
use super::size::{entry_size, measure, string_size};
use crate::error::{RefProblem, SchemaError};

pub(super) struct Walker<'r> {
    resolver: &'r dyn RefResolver,
    /// Deepest container level of the output; the root object is level 1.
    max_nesting: usize,
    max_depth: usize,
    budget: Budget,
    /// The root, then each target being inlined on the current path, by address.
    open: Vec<*const Value>,
    notes: Notes,
}

impl<'r> Walker<'r> {
    pub fn new(
        resolver: &'r dyn RefResolver,
        root: &Value,
        max_nesting: usize,
        max_depth: usize,
        budget: Budget,
    ) -> Self {
        Self {
            resolver,
            max_nesting,
            max_depth,
            budget,
            open: vec![std::ptr::from_ref(root)],
            notes: Notes::default(),
        }
    }

    pub fn into_notes(self) -> Vec<String> {
        self.notes.into_vec()
    }

    /// The schema `node`, placed at `level` of the output, with references resolved.
    pub fn schema(&mut self, node: &Value, level: usize) -> Result<Value, SchemaError> {
        match node {
            Value::Bool(accept) => Ok(Value::Bool(*accept)),
            Value::Object(map) => match REFERENCES.into_iter().find(|key| map.contains_key(*key)) {
                Some(key) => self.reference(map, key, level),
                None => self.keywords(map, level).map(Value::Object),
            },
            _ => Err(SchemaError::NotASchema { at: String::new() }),
        }
    }

    /// The keywords of `map` other than references.
    fn keywords(
        &mut self,
        map: &Map<String, Value>,
        level: usize,
    ) -> Result<Map<String, Value>, SchemaError> {
        let at_root = level == 1 && self.open.len() == 1;
        let mut out = Map::new();
        for (key, value) in map {
            if REFERENCES.contains(&key.as_str()) {
                continue;
            }
            let kept = match classify(key, value, at_root) {
                Keyword::Drop => None,
                Keyword::Data => self.data(key, value, level),
                Keyword::Schema => self.subschema(key, value, level)?,
                Keyword::SchemaMap => self.schema_map(key, value, level)?,
                Keyword::SchemaList => self.schema_list(key, value, level)?,
            };
            if let Some(kept) = kept {
                out.insert(key.clone(), kept);
            }
        }
        Ok(out)
    }

    fn subschema(
        &mut self,
        key: &str,
        value: &Value,
        level: usize,
    ) -> Result<Option<Value>, SchemaError> {
        if !self.fits_schema(level + 1) {
            return Ok(None);
        }
        let walked = self.schema(value, level + 1).map_err(|e| e.within(key))?;
        Ok(Some(walked))
    }

    fn schema_map(
        &mut self,
        key: &str,
        value: &Value,
        level: usize,
    ) -> Result<Option<Value>, SchemaError> {
        let Value::Object(entries) = value else {
            return Ok(self.data(key, value, level));
        };
        if !self.fits_schema(level + 2) {
            return Ok(None);
        }
        let mut out = Map::new();
        for (name, entry) in entries {
            let walked = if entry.is_object() || entry.is_boolean() {
                let walked = self.schema(entry, level + 2);
                Some(walked.map_err(|e| e.within(name).within(key))?)
            } else {
                self.data(key, entry, level + 1)
            };
            if let Some(walked) = walked {
                out.insert(name.clone(), walked);
            }
        }
        Ok(Some(Value::Object(out)))
    }

    fn schema_list(
        &mut self,
        key: &str,
        value: &Value,
        level: usize,
    ) -> Result<Option<Value>, SchemaError> {
        let Value::Array(items) = value else {
            return Ok(self.data(key, value, level));
        };
        if !self.fits_schema(level + 2) {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let walked = self.schema(item, level + 2);
            out.push(walked.map_err(|e| e.within(&index.to_string()).within(key))?);
        }
        Ok(Some(Value::Array(out)))
    }

    /// Whether a subschema can sit at `level`; notes it when it cannot.
    fn fits_schema(&mut self, level: usize) -> bool {
        let fits = level <= self.max_nesting;
        if !fits {
            let max = self.max_nesting;
            self.notes
                .add(format!("pruned schemas nested deeper than {max} levels"));
        }
        fits
    }

    /// A copy of the data value of `key` in an object at `level`, unless it would nest deeper
    /// than `max_nesting`. Measured first, so the copy only recurses as deep as the limit.
    fn data(&mut self, key: &str, value: &Value, level: usize) -> Option<Value> {
        if (value.is_object() || value.is_array())
            && level + measure(value).nesting > self.max_nesting
        {
            let max = self.max_nesting;
            self.notes
                .add(format!("dropped `{key}` nested deeper than {max} levels"));
            return None;
        }
        Some(value.clone())
    }

    /// A schema with a `$ref` (or `$dynamicRef`, `$recursiveRef`) under `key`.
    fn reference(
        &mut self,
        map: &Map<String, Value>,
        key: &str,
        level: usize,
    ) -> Result<Value, SchemaError> {
        let Some(reference) = map.get(key).and_then(Value::as_str) else {
            return Err(SchemaError::InvalidRef {
                reference: not_a_string(map.get(key)),
                at: String::new(),
                problem: RefProblem::NotAString,
            });
        };
        for other in REFERENCES
            .into_iter()
            .filter(|other| *other != key && map.contains_key(*other))
        {
            self.notes
                .add(format!("ignored `{other}` beside `{key}` {reference}"));
        }
        let siblings = self.keywords(map, level)?;
        let Some(target) = self.resolver.resolve(reference)? else {
            return Ok(self.unresolved(siblings, reference));
        };
        if !(target.is_object() || target.is_boolean()) {
            return Err(SchemaError::InvalidRef {
                reference: reference.to_owned(),
                at: String::new(),
                problem: RefProblem::NotASchema,
            });
        }
        if let Some(reason) = self.prune_reason(target) {
            self.notes.add(reason.note(reference));
            return Ok(self.pruned(siblings, target, level));
        }
        self.open.push(std::ptr::from_ref(target));
        let inlined = self.schema(target, level);
        self.open.pop();
        let (merged, replaced) = merge(inlined?, siblings);
        for keyword in replaced {
            self.notes.add(format!(
                "`{keyword}` beside {reference} replaced the referenced schema's"
            ));
        }
        Ok(merged)
    }

    /// Why `target` is not inlined here, if it is not; inlining pays the budget.
    fn prune_reason(&mut self, target: &Value) -> Option<Reason> {
        let address = std::ptr::from_ref(target);
        if self.open.contains(&address) {
            Some(Reason::Cycle)
        } else if self.open.len() > self.max_depth {
            Some(Reason::Depth(self.max_depth))
        } else if !self.budget.try_inline(target) {
            Some(Reason::Budget(self.budget.limit()))
        } else {
            None
        }
    }

    /// The siblings of a pruned reference, plus the target's `type` and `description` where the
    /// siblings have none, as far as the budget allows.
    fn pruned(&mut self, mut siblings: Map<String, Value>, target: &Value, level: usize) -> Value {
        let summary = summary(self.resolver, target);
        if let Some(kind) = summary.kind.filter(|_| !siblings.contains_key("type")) {
            let size = measure(kind);
            if level + size.nesting <= self.max_nesting
                && self.budget.try_spend(entry_size("type", size.bytes))
            {
                siblings.insert("type".to_owned(), kind.clone());
            }
        }
        if let Some(text) = summary
            .description
            .filter(|_| !siblings.contains_key("description"))
        {
            let cost = entry_size("description", string_size(text));
            if self.budget.try_spend(cost) {
                siblings.insert("description".to_owned(), Value::String(text.to_owned()));
            }
        }
        Value::Object(siblings)
    }

    /// The siblings of a reference that is not followed, with a description that says so.
    fn unresolved(&mut self, mut siblings: Map<String, Value>, reference: &str) -> Value {
        self.notes.add(unresolved_note(reference));
        let (description, cost) = unresolved_description(&siblings, reference);
        if self.budget.try_spend(cost) {
            siblings.insert("description".to_owned(), Value::String(description));
        }
        Value::Object(siblings)
    }
}

/// How a `$ref` that is not a string is shown in its error: scalars as written, containers by
/// kind only, since printing them would recurse through input of any depth.
fn not_a_string(value: Option<&Value>) -> String {
    match value {
        Some(Value::Array(_)) => "(an array)".to_owned(),
        Some(Value::Object(_)) => "(an object)".to_owned(),
        Some(scalar) => scalar.to_string(),
        None => String::new(),
    }
}
