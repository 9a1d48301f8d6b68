//! References inlined, so that providers which accept no `$ref` get a self-contained schema
//! (seed 003, section 5).
//!
//! One walk serves every kind of schema; a [`RefResolver`] strategy says where a reference
//! points: [`LocalResolver`] into the schema itself (MCP `#/$defs/Name`, draft-07
//! `#/definitions/Name`, any JSON pointer), [`OpenApiResolver`] into an OpenAPI document
//! (`#/components/schemas/Name`). Nothing is ever fetched.
//!
//! Three limits keep the result small whatever the input:
//! - **cycles**: a reference to a target already being inlined on the same path is pruned;
//! - **depth**: at most [`ResolveOptions::max_depth`] references are inlined inside one
//!   another (seed 003: 3); deeper ones are pruned;
//! - **size**: the output never exceeds [`ResolveOptions::budget`] bytes, a multiple of the
//!   input or an absolute cap, whichever is larger; once that is spent, further references are
//!   pruned. Definitions that reuse each other can otherwise grow exponentially.
//!
//! A pruned reference keeps the keywords beside it and the target's `type` and `description`,
//! and loses everything else of the target, `properties` in particular (seed 003, section
//! 5.4). A reference to another document (`https://...`, `other.json#/...`) is pruned the same
//! way and its description says it was not resolved. [`Resolved::notes`] lists what was pruned
//! and why. The output has no `$ref`, `$defs` or `definitions`, and its root is an object.
//!
//! ```
//! use serde_json::json;
//! use switchboard_schema::resolve::{LocalResolver, ResolveOptions, resolve};
//!
//! let schema = json!({
//!     "$defs": {"Node": {"type": "object", "properties": {
//!         "value": {"type": "string"},
//!         "child": {"$ref": "#/$defs/Node"}
//!     }}},
//!     "properties": {"root": {"$ref": "#/$defs/Node"}}
//! });
//! let resolved = resolve(&schema, &LocalResolver::new(&schema), &ResolveOptions::default())?;
//! assert_eq!(resolved.schema, json!({
//!     "type": "object",
//!     "properties": {"root": {"type": "object", "properties": {
//!         "value": {"type": "string"},
//!         "child": {"type": "object"}
//!     }}}
//! }));
//! assert_eq!(resolved.notes, ["pruned cycle at #/$defs/Node"]);
//! # Ok::<(), switchboard_schema::SchemaError>(())
//! ```

mod budget;
mod keywords;
mod merge;
mod notes;
mod pointer;
mod prune;
mod resolver;
mod size;
mod walk;

use serde_json::{Map, Value};

pub use resolver::{LocalResolver, OpenApiResolver, RefResolver};

use self::budget::Budget;
use self::size::measure;
use self::walk::Walker;
use crate::error::SchemaError;

/// Seed 003's limit on references inlined inside one another.
pub const DEFAULT_MAX_DEPTH: usize = 3;
/// Default deepest nesting of the output, in JSON containers (the root object is level 1).
pub const DEFAULT_MAX_NESTING: usize = 64;
/// The output may be this many times the size of the input...
pub const DEFAULT_GROWTH_FACTOR: usize = 8;
/// ...or this many bytes (256 KiB), whichever is larger.
pub const DEFAULT_ABSOLUTE_CAP: usize = 256 * 1024;
/// Upper bound of `max_nesting` and `max_depth`: serde_json's own parsing limit, so the output
/// can always be read back, and a bound on the walk's recursion whatever the options say.
pub const NESTING_CEILING: usize = 128;

/// Room in the budget for the root's `"type": "object"` (`false` becomes
/// `{"type":"object","not":{}}`, 21 bytes more).
const ROOT_TYPE_ROOM: usize = 24;

/// Limits of [`resolve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveOptions {
    /// How many references may be inlined inside one another on one path; the next one is
    /// pruned. 0 inlines nothing. At most [`NESTING_CEILING`].
    pub max_depth: usize,
    /// Deepest nesting of the output in JSON containers, the root object being level 1;
    /// subschemas and values that would sit deeper are left out. Between 2 and
    /// [`NESTING_CEILING`].
    pub max_nesting: usize,
    /// See [`ResolveOptions::budget`].
    pub growth_factor: usize,
    /// See [`ResolveOptions::budget`].
    pub absolute_cap: usize,
}

impl Default for ResolveOptions {
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
            max_nesting: DEFAULT_MAX_NESTING,
            growth_factor: DEFAULT_GROWTH_FACTOR,
            absolute_cap: DEFAULT_ABSOLUTE_CAP,
        }
    }
}

impl ResolveOptions {
    /// The most bytes the serialized (compact) output of a schema of `input_bytes` may take:
    /// `max(growth_factor × input_bytes, absolute_cap)`, and never less than the input plus
    /// room for the root's `type`.
    pub fn budget(&self, input_bytes: usize) -> usize {
        self.growth_factor
            .saturating_mul(input_bytes)
            .max(self.absolute_cap)
            .max(input_bytes.saturating_add(ROOT_TYPE_ROOM))
    }
}

/// A schema with its references resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// No `$ref`, `$defs` or `definitions` left; the root is an object schema.
    pub schema: Value,
    /// What was pruned or dropped and why, each said once, e.g. `pruned cycle at #/$defs/Node`.
    pub notes: Vec<String>,
}

/// Inlines the references of `schema` that `resolver` finds, within `options`' limits.
///
/// Fails only for a broken schema: a local reference with no target
/// ([`SchemaError::MissingRef`]), one that cannot be read or names something that is not a
/// schema ([`SchemaError::InvalidRef`]), or a root that is not a schema. References are
/// followed lazily, so a broken definition that nothing uses is not an error.
pub fn resolve(
    schema: &Value,
    resolver: &dyn RefResolver,
    options: &ResolveOptions,
) -> Result<Resolved, SchemaError> {
    if !(schema.is_object() || schema.is_boolean()) {
        return Err(SchemaError::NotASchema { at: String::new() });
    }
    let input_bytes = measure(schema).bytes;
    let budget = Budget::new(options.budget(input_bytes), input_bytes + ROOT_TYPE_ROOM);
    let max_nesting = options.max_nesting.clamp(2, NESTING_CEILING);
    let max_depth = options.max_depth.min(NESTING_CEILING);
    let mut walker = Walker::new(resolver, schema, max_nesting, max_depth, budget);
    let walked = walker.schema(schema, 1)?;
    Ok(Resolved {
        schema: object_root(walked),
        notes: walker.into_notes(),
    })
}

/// [`resolve`] with references into the schema itself, the MCP case.
pub fn resolve_local(schema: &Value, options: &ResolveOptions) -> Result<Resolved, SchemaError> {
    resolve(schema, &LocalResolver::new(schema), options)
}

/// The root as an object schema: `"type": "object"` unless it has a type of its own.
fn object_root(schema: Value) -> Value {
    let mut root = Map::new();
    match schema {
        Value::Object(map) if map.contains_key("type") => return Value::Object(map),
        Value::Object(map) => {
            root.insert("type".to_owned(), Value::from("object"));
            root.extend(map);
        }
        Value::Bool(false) => {
            root.insert("type".to_owned(), Value::from("object"));
            root.insert("not".to_owned(), Value::Object(Map::new()));
        }
        _ => {
            root.insert("type".to_owned(), Value::from("object"));
        }
    }
    Value::Object(root)
}
