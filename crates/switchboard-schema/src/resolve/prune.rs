//! What is left of a reference that is not inlined (seed 003 section 5.4): the keywords beside
//! the `$ref`, plus the target's `type` and `description`; never its `properties`.

use serde_json::{Map, Value};

use super::resolver::RefResolver;
use super::size::{entry_size, escaped_len, string_size};

/// How many aliases (`{"$ref": ...}` pointing on) are looked through for a type and description.
const ALIAS_HOPS: usize = 8;

/// Why a local reference was pruned instead of inlined.
#[derive(Debug, Clone, Copy)]
pub(super) enum Reason {
    /// The target is already being inlined on this path.
    Cycle,
    /// As many references as `max_depth` are already being inlined on this path.
    Depth(usize),
    /// Inlining would pass the size budget (in bytes).
    Budget(usize),
}

impl Reason {
    pub fn note(self, reference: &str) -> String {
        match self {
            Self::Cycle => format!("pruned cycle at {reference}"),
            Self::Depth(limit) => format!("pruned {reference} at reference depth limit {limit}"),
            Self::Budget(limit) => {
                format!("pruned {reference}: size budget of {limit} bytes reached")
            }
        }
    }
}

/// The `type` and `description` a pruned reference keeps.
#[derive(Debug, Default)]
pub(super) struct Summary<'r> {
    pub kind: Option<&'r Value>,
    pub description: Option<&'r str>,
}

/// The target's `type` and `description`, looking through a few aliases for what the target
/// itself lacks. Aliases that do not resolve are simply not looked through.
pub(super) fn summary<'r>(resolver: &'r dyn RefResolver, target: &'r Value) -> Summary<'r> {
    let mut summary = Summary::default();
    let mut node = target;
    for _ in 0..ALIAS_HOPS {
        summary.kind = summary.kind.or_else(|| node.get("type"));
        summary.description = summary
            .description
            .or_else(|| node.get("description").and_then(Value::as_str));
        if summary.kind.is_some() && summary.description.is_some() {
            break;
        }
        let Some(next) = node.get("$ref").and_then(Value::as_str) else {
            break;
        };
        match resolver.resolve(next) {
            Ok(Some(found)) => node = found,
            _ => break,
        }
    }
    summary
}

/// The description of a reference that is not followed, saying so, and what adding it costs
/// in bytes over `siblings` as they are.
pub(super) fn unresolved_description(
    siblings: &Map<String, Value>,
    reference: &str,
) -> (String, usize) {
    match siblings.get("description").and_then(Value::as_str) {
        Some(own) => {
            let suffix = format!(" (reference to {reference} not resolved)");
            let cost = escaped_len(&suffix);
            (format!("{own}{suffix}"), cost)
        }
        None => {
            let text = format!("Reference to {reference} not resolved.");
            let cost = entry_size("description", string_size(&text));
            (text, cost)
        }
    }
}

pub(super) fn unresolved_note(reference: &str) -> String {
    format!(
        "reference {reference} not resolved: only local JSON pointers are followed, nothing is fetched"
    )
}
