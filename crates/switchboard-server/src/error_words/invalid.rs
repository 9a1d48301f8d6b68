//! The store's rules ([`Invalid`]) worded by locale keys; the English text is the error's
//! `Display`.

use switchboard_store::{Entity, Invalid};

use super::{entity, spec};
use crate::error::ApiError;

/// `error` (a store error's code and English text) worded for the rule `e` breaks; a rule
/// with no words of its own keeps the English text.
pub fn invalid(error: ApiError, e: &Invalid) -> ApiError {
    match e {
        Invalid::Empty { field } => error.key("error.msg.spec_empty").param("field", field),
        Invalid::OutOfRange { field, min, max } => error
            .key("error.msg.out_of_range")
            .param("field", field)
            .param("min", min)
            .param("max", max),
        Invalid::LongerThan { field, max } => error
            .key("error.msg.spec_too_long")
            .param("field", field)
            .param("max", max),
        Invalid::TooLong { field } => error.key("error.msg.too_long").param("field", field),
        Invalid::BaseUrl(reason) => error
            .key("error.msg.base_url")
            .param_words("reason", spec::spec(reason)),
        Invalid::AuthKind => error.key("error.msg.auth_kind"),
        Invalid::CwdNotUtf8 => error.key("error.msg.cwd_not_utf8"),
        Invalid::MaskOnCreate {
            entity: Entity::Server,
        } => error.key("error.msg.new_server_mask"),
        Invalid::MaskOnCreate {
            entity: Entity::Provider,
        } => error.key("error.msg.new_provider_mask"),
        Invalid::MaskForNewDestination {
            entity: Entity::Server,
            field: "URL",
        } => error.key("error.msg.url_changed_secrets"),
        Invalid::MaskForNewDestination {
            entity: Entity::Provider,
            field,
        } => error
            .key("error.msg.provider_changed_secrets")
            .param("field", field),
        Invalid::KeyForNewOrigin { from, to } => error
            .key("error.msg.key_for_new_origin")
            .param("from", from)
            .param("to", to),
        Invalid::IdChanged { entity: kind } => error
            .key("error.msg.id_changed")
            .param_words("entity", entity(*kind)),
        Invalid::ImportMarker => error.key("error.msg.import_marker"),
        Invalid::Nul { at } if at.is_empty() => error.key("error.msg.nul_text"),
        Invalid::Nul { at } => error.key("error.msg.nul_at").param("at", at),
        _ => error,
    }
}
