//! Where references are looked up: the strategy half of seed 003 section 5.3.1.
//!
//! The walk (cycle detection, depth limit, pruning, budget) is the same for every kind of
//! schema; only finding the schema a `$ref` names differs. MCP tools point into their own
//! `$defs` (or draft-07 `definitions`), OpenAPI operations into `components/schemas` of the
//! document around them.

use serde_json::Value;

use super::pointer::{local_fragment, lookup};
use crate::error::SchemaError;

/// Finds the schema a `$ref` names.
pub trait RefResolver {
    /// `Ok(Some(target))` for a reference this resolver can follow; `Ok(None)` for one it does
    /// not follow by design (another document, which is never fetched, or a plain-name anchor),
    /// which the walk prunes with a note; an error when the reference should resolve here but
    /// does not ([`SchemaError::MissingRef`]) or cannot be read ([`SchemaError::InvalidRef`]).
    ///
    /// Errors may leave their location empty: the walk fills it in.
    fn resolve(&self, reference: &str) -> Result<Option<&Value>, SchemaError>;
}

/// References into the schema itself: `#/$defs/Name`, draft-07 `#/definitions/Name`, and any
/// other JSON pointer such as `#/properties/nodes/items`. A reference that starts with the
/// root's own `$id` is local too; any other URI is not followed.
#[derive(Debug, Clone, Copy)]
pub struct LocalResolver<'a> {
    root: &'a Value,
}

impl<'a> LocalResolver<'a> {
    pub fn new(root: &'a Value) -> Self {
        Self { root }
    }

    /// The fragment of `reference` if it names this document, by `#...` or by the root's `$id`.
    fn fragment<'r>(&self, reference: &'r str) -> Option<&'r str> {
        if let Some(fragment) = local_fragment(reference) {
            return Some(fragment);
        }
        let id = self.root.get("$id")?.as_str()?.trim_end_matches('#');
        if id.is_empty() {
            return None;
        }
        let rest = reference.strip_prefix(id)?;
        if rest.is_empty() {
            Some("")
        } else {
            rest.strip_prefix('#')
        }
    }
}

impl RefResolver for LocalResolver<'_> {
    fn resolve(&self, reference: &str) -> Result<Option<&Value>, SchemaError> {
        match self.fragment(reference) {
            Some(fragment) => lookup(self.root, reference, fragment),
            None => Ok(None),
        }
    }
}

/// References into an OpenAPI document, `#/components/schemas/Name` (or any other JSON pointer
/// into it, such as Swagger 2's `#/definitions/Name`), for a schema taken from that document.
#[derive(Debug, Clone, Copy)]
pub struct OpenApiResolver<'a> {
    document: &'a Value,
}

impl<'a> OpenApiResolver<'a> {
    pub fn new(document: &'a Value) -> Self {
        Self { document }
    }
}

impl RefResolver for OpenApiResolver<'_> {
    fn resolve(&self, reference: &str) -> Result<Option<&Value>, SchemaError> {
        match local_fragment(reference) {
            Some(fragment) => lookup(self.document, reference, fragment),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn local_resolver_follows_defs_definitions_and_its_own_id() {
        let root = json!({
            "$id": "https://example.com/tool.json",
            "$defs": {"A": {"type": "string"}},
            "definitions": {"B": {"type": "integer"}}
        });
        let resolver = LocalResolver::new(&root);
        let found = |r: &str| resolver.resolve(r).expect("valid").expect("local");
        assert_eq!(found("#/$defs/A"), &json!({"type": "string"}));
        assert_eq!(found("#/definitions/B"), &json!({"type": "integer"}));
        assert_eq!(
            found("https://example.com/tool.json#/$defs/A"),
            &json!({"type": "string"})
        );
        assert_eq!(found("https://example.com/tool.json"), &root);
        assert!(matches!(
            resolver.resolve("https://example.com/other.json#/$defs/A"),
            Ok(None)
        ));
        assert!(matches!(
            resolver.resolve("https://example.com/tool.jsonx"),
            Ok(None)
        ));
        assert!(matches!(resolver.resolve("other.json#/$defs/A"), Ok(None)));
    }

    #[test]
    fn openapi_resolver_looks_in_the_document() {
        let document = json!({
            "openapi": "3.0.3",
            "components": {"schemas": {"Pet": {"type": "object"}}}
        });
        let resolver = OpenApiResolver::new(&document);
        let pet = resolver.resolve("#/components/schemas/Pet").expect("valid");
        assert_eq!(pet, Some(&json!({"type": "object"})));
        assert!(matches!(
            resolver.resolve("#/components/schemas/Cat"),
            Err(SchemaError::MissingRef { .. })
        ));
    }
}
