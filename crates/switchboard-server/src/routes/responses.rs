//! The error answers many routes share, for their `#[utoipa::path]` attributes: each a type
//! that documents one status with the [`ErrorBody`](crate::error::ErrorBody) shape, so a
//! route lists `BadInput, Unauthorized, NotFound` instead of repeating the same
//! `(status = 400, description = "...", body = crate::error::ErrorBody)` tuple. A route whose
//! error means something particular (which codes, why) still writes its own tuple.

use std::collections::BTreeMap;

use utoipa::IntoResponses;
use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::{Ref, RefOr, Response};

fn error(status: u16, description: &str) -> BTreeMap<String, RefOr<Response>> {
    let content = ContentBuilder::new()
        .schema(Some(Ref::from_schema_name("ErrorBody")))
        .build();
    let response = ResponseBuilder::new()
        .description(description)
        .content("application/json", content)
        .build();
    BTreeMap::from([(status.to_string(), RefOr::T(response))])
}

macro_rules! error_response {
    ($(#[$doc:meta])* $name:ident, $status:literal, $description:literal) => {
        $(#[$doc])*
        pub struct $name;

        impl IntoResponses for $name {
            fn responses() -> BTreeMap<String, RefOr<Response>> {
                error($status, $description)
            }
        }
    };
}

error_response!(
    /// 400 for a body or parameters that do not fit.
    BadInput,
    400,
    "Bad input: malformed JSON, wrong types, unknown fields, invalid values"
);
error_response!(
    /// 401 without a valid token.
    Unauthorized,
    401,
    "No valid API token"
);
error_response!(
    /// 403 past a quota.
    QuotaExceeded,
    403,
    "The caller has as many as the quota allows (QUOTA_EXCEEDED)"
);
error_response!(
    /// 404 for what does not exist or is another user's.
    NotFound,
    404,
    "Not found (or another user's)"
);
error_response!(
    /// 409 against the current state.
    Conflict,
    409,
    "Conflicts with the current state"
);
error_response!(
    /// 413 for a body over the limit.
    TooLarge,
    413,
    "The body is too large"
);

error_response!(
    /// 502 when the MCP server behind the route failed.
    UpstreamFailed,
    502,
    "The MCP server could not be reached or failed"
);
error_response!(
    /// 504 when the MCP server behind the route was too slow.
    UpstreamTimeout,
    504,
    "The MCP server did not answer in time"
);

/// Several error answers as one, for the sets most routes share.
macro_rules! error_responses {
    ($(#[$doc:meta])* $name:ident = $($part:ident),+) => {
        $(#[$doc])*
        pub struct $name;

        impl IntoResponses for $name {
            fn responses() -> BTreeMap<String, RefOr<Response>> {
                let mut all = BTreeMap::new();
                $(all.extend($part::responses());)+
                all
            }
        }
    };
}

error_responses!(
    /// Reading (or deleting) one of the caller's things: 401, 404.
    OwnedRead = Unauthorized, NotFound
);
error_responses!(
    /// Changing one of the caller's things with a body: 400, 401, 404, 413.
    OwnedEdit = BadInput, Unauthorized, NotFound, TooLarge
);
error_responses!(
    /// Writing one of the caller's things whose name must stay unique: 400, 401, 404, 409,
    /// 413.
    OwnedWrite = BadInput, Unauthorized, NotFound, Conflict, TooLarge
);
error_responses!(
    /// What an MCP server behind the route can make of a request: 502, 504.
    Upstream = UpstreamFailed, UpstreamTimeout
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_names_each_of_its_statuses() {
        let statuses: Vec<String> = OwnedWrite::responses().into_keys().collect();
        assert_eq!(statuses, ["400", "401", "404", "409", "413"]);
    }

    #[test]
    fn each_names_its_status_and_the_error_body() {
        let responses = BadInput::responses();
        let json = serde_json::to_value(&responses["400"]).unwrap();
        assert_eq!(
            json["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ErrorBody"
        );
        assert!(
            json["description"]
                .as_str()
                .unwrap()
                .starts_with("Bad input")
        );
    }
}
