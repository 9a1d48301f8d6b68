//! The rules of the store an input can break, one variant each, so a caller (and the locale
//! files) can tell them apart without reading the English text.

use switchboard_core::SpecError;
use thiserror::Error;

use crate::error::Entity;

/// Why the store refused an input: nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Invalid {
    /// A field that must hold something is empty or blank (`name`, `defaultModel`).
    #[error("{field} must not be empty")]
    Empty { field: &'static str },
    /// A number outside the range the field allows.
    #[error("{field} must be between {min} and {max}")]
    OutOfRange {
        field: &'static str,
        min: u32,
        max: u32,
    },
    /// Text longer than its field allows, in characters (a name, a title).
    #[error("{field} must be at most {max} characters long")]
    LongerThan { field: &'static str, max: usize },
    /// A duration too long to keep in milliseconds.
    #[error("{field} is too long")]
    TooLong { field: &'static str },
    /// A provider's base URL that is not an http(s) URL.
    #[error("baseUrl: {0}")]
    BaseUrl(SpecError),
    /// A kind of server authentication the store has no columns for.
    #[error("this kind of auth cannot be stored")]
    AuthKind,
    /// A working directory that is not valid UTF-8.
    #[error("cwd must be valid UTF-8")]
    CwdNotUtf8,
    /// A new server or provider whose secrets are the mask the API shows instead of them.
    #[error("{}", mask_on_create(*entity))]
    MaskOnCreate { entity: Entity },
    /// The mask sent back for a secret while the destination it was for changed: keeping the
    /// stored secret would send it to the new destination.
    #[error("{}", mask_for_new_destination(*entity, field))]
    MaskForNewDestination { entity: Entity, field: &'static str },
    /// A provider's masked API key kept while its endpoint moves from the origin `from` to
    /// `to`, without the confirmation that the key may go there.
    #[error(
        "the provider's URL moves from {from} to {to}: its stored API key is sent there only \
         if you confirm it (keepApiKey: true) or enter the key again"
    )]
    KeyForNewOrigin { from: String, to: String },
    /// An edit that changes the id of what it edits.
    #[error("the id of this {entity} cannot change")]
    IdChanged { entity: Entity },
    /// An import marker with a character the marker's prefix match cannot hold.
    #[error("an import marker may not contain ':', '%' or '_'")]
    ImportMarker,
    /// Text with a NUL character, which Postgres's text cannot hold; `at` is the path to it
    /// (`the server.env.A`, `a key of the provider.headers`) or empty when the database
    /// itself found it.
    #[error("{}", nul(at))]
    Nul { at: String },
}

fn mask_on_create(entity: Entity) -> String {
    let secrets = match entity {
        Entity::Provider => "API key",
        _ => "secrets",
    };
    format!(
        "a new {entity} needs its real {secrets}, not the mask",
        entity = entity_name(entity)
    )
}

fn mask_for_new_destination(entity: Entity, field: &str) -> String {
    format!(
        "the {entity}'s {field} changed: enter its secrets again instead of the mask",
        entity = entity_name(entity)
    )
}

/// The short name used in possessives ("the server's URL"), where [`Entity::as_str`] says
/// "MCP server".
fn entity_name(entity: Entity) -> &'static str {
    match entity {
        Entity::Server => "server",
        other => other.as_str(),
    }
}

fn nul(at: &str) -> String {
    if at.is_empty() {
        "the text contains a character that cannot be stored (NUL)".to_owned()
    } else {
        format!("{at} contains a NUL character (\\u0000), which stored text cannot hold")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_reads_as_a_sentence() {
        assert_eq!(
            Invalid::MaskOnCreate {
                entity: Entity::Server
            }
            .to_string(),
            "a new server needs its real secrets, not the mask"
        );
        assert_eq!(
            Invalid::MaskOnCreate {
                entity: Entity::Provider
            }
            .to_string(),
            "a new provider needs its real API key, not the mask"
        );
        assert_eq!(
            Invalid::MaskForNewDestination {
                entity: Entity::Server,
                field: "URL"
            }
            .to_string(),
            "the server's URL changed: enter its secrets again instead of the mask"
        );
        assert_eq!(
            Invalid::Nul { at: "name".into() }.to_string(),
            "name contains a NUL character (\\u0000), which stored text cannot hold"
        );
        assert_eq!(
            Invalid::OutOfRange {
                field: "maxRounds",
                min: 1,
                max: 1000
            }
            .to_string(),
            "maxRounds must be between 1 and 1000"
        );
    }
}
