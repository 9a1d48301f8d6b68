//! Errors of schema conversion.
//!
//! A schema that cannot be converted fails for its own tool only: [`SchemaError`] says what is
//! wrong with one schema, and [`ToolSchemaError`](crate::convert::ToolSchemaError) names the
//! tool it belongs to, so a caller can report that tool and carry on with the others.
//! Locations are JSON pointers into the schema as it is being built (after references are
//! inlined), shown as URI fragments (`#/properties/a`).

/// Why one schema could not be converted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// A local reference (a JSON pointer) names nothing in its document.
    #[error("reference `{reference}` at #{at} has no target")]
    MissingRef {
        reference: String,
        /// JSON pointer of the referencing schema; empty for the root.
        at: String,
    },

    /// A reference that cannot be followed as written.
    #[error("reference `{reference}` at #{at} is invalid: {problem}")]
    InvalidRef {
        reference: String,
        /// JSON pointer of the referencing schema; empty for the root.
        at: String,
        #[source]
        problem: RefProblem,
    },

    /// Where a schema was expected (the root, or the target of a reference) there is a value
    /// that is neither an object nor a boolean.
    #[error("the value at #{at} is not a schema (an object or a boolean)")]
    NotASchema {
        /// JSON pointer of the value; empty for the root.
        at: String,
    },

    /// The root schema does not describe an object, but tool arguments always are one.
    #[error("the root schema describes {found}, but tool arguments are always a JSON object")]
    RootNotObject {
        /// What the root describes instead, e.g. ``type `string` ``.
        found: String,
    },

    /// The dialect cannot express a part of the schema the tool cannot do without (a required
    /// property, say), so no faithful or safely narrower schema exists for it.
    #[error("{dialect} cannot express the schema at #{at}: {reason}")]
    Unrepresentable {
        dialect: crate::dialect::Dialect,
        /// JSON pointer of the subschema; empty for the root.
        at: String,
        reason: String,
    },
}

/// What is wrong with an invalid reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RefProblem {
    #[error("`$ref` must be a string")]
    NotAString,
    #[error("`~` in a JSON pointer must be followed by `0` or `1`")]
    BadEscape,
    #[error("the percent-encoded fragment is not UTF-8")]
    BadPercentEncoding,
    #[error("the target is neither a schema object nor a boolean")]
    NotASchema,
}

impl SchemaError {
    /// The same error seen from one level further up: `segment` (an object key or array index,
    /// unescaped) is put in front of the location. Errors are built where they happen with an
    /// empty location and gain their path while they travel up, so the walk that succeeds pays
    /// nothing for paths.
    #[must_use]
    pub(crate) fn within(mut self, segment: &str) -> Self {
        if let Self::MissingRef { at, .. } | Self::InvalidRef { at, .. } | Self::NotASchema { at } =
            &mut self
        {
            let escaped = segment.replace('~', "~0").replace('/', "~1");
            at.insert_str(0, &escaped);
            at.insert(0, '/');
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_built_from_the_inside_out_and_escaped() {
        let error = SchemaError::MissingRef {
            reference: "#/$defs/Gone".into(),
            at: String::new(),
        }
        .within("a/b")
        .within("properties");
        assert_eq!(
            error.to_string(),
            "reference `#/$defs/Gone` at #/properties/a~1b has no target"
        );
    }
}
