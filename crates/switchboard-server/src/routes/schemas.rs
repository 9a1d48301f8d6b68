//! Named OpenAPI schemas for the bodies that are arbitrary JSON on purpose: a tool's
//! arguments and its MCP result, a JSON Schema. Each says what it is (a reader of the
//! document sees `ToolArguments`, not an anonymous "any value"), and none pretends to a
//! structure the server does not enforce: the tool's own input schema decides the arguments.
//! Shared by every route that carries them, so the document names each one once.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::{PartialSchema, ToSchema};

fn object(description: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::from(Type::Object))
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .description(Some(description))
        .into()
}

/// A tool's arguments, a JSON object the tool's input schema describes.
pub struct ToolArguments;

impl PartialSchema for ToolArguments {
    fn schema() -> RefOr<Schema> {
        object(
            "A tool's arguments: a JSON object whose members the tool's input schema \
             describes; checked against that schema before the call",
        )
    }
}

impl ToSchema for ToolArguments {}

/// An MCP `CallToolResult` as the server sent it.
pub struct ToolResult;

impl PartialSchema for ToolResult {
    fn schema() -> RefOr<Schema> {
        object(
            "The MCP CallToolResult as the server sent it: `content` (text, image, audio, \
             resource items), optional `structuredContent`, and `isError` when the tool \
             itself failed",
        )
    }
}

impl ToSchema for ToolResult {}

/// Declares a named free-form schema for one of MCP's own shapes, passed on as the server
/// sent it.
macro_rules! mcp_shape {
    ($(#[$doc:meta])* $name:ident, $description:literal) => {
        $(#[$doc])*
        pub struct $name;

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                object($description)
            }
        }

        impl ToSchema for $name {}
    };
}

mcp_shape!(
    /// An MCP `Resource` or `ResourceTemplate`.
    McpResource,
    "An MCP Resource (`uri`, `name`, optional `title`, `description`, `mimeType`, `size`) or \
     ResourceTemplate (`uriTemplate`, RFC 6570, instead of `uri`), as the server listed it"
);
mcp_shape!(
    /// An MCP `ReadResourceResult`.
    McpResourceContents,
    "The MCP ReadResourceResult as the server sent it: `contents`, each with `uri`, \
     optional `mimeType`, and `text` or `blob` (base64)"
);
mcp_shape!(
    /// An MCP `Prompt`.
    McpPrompt,
    "An MCP Prompt: `name`, optional `title`, `description`, and `arguments` (each `name`, \
     `description`, `required`)"
);
mcp_shape!(
    /// An MCP `GetPromptResult`.
    McpPromptMessages,
    "The MCP GetPromptResult as the server sent it: optional `description`, and `messages`, \
     each with `role` (`user` or `assistant`) and `content` (text, image, audio, resource)"
);

mcp_shape!(
    /// A line a server logged.
    ServerLogLine,
    "A line an MCP server logged: `at` (ms since the Unix epoch), `level` (`debug` ... \
     `emergency`), `logger` (optional), `text`"
);
mcp_shape!(
    /// A prompt's arguments.
    PromptArguments,
    "A prompt's arguments by name, as strings (the prompt's `arguments` list says which it \
     takes and which are required)"
);
mcp_shape!(
    /// Switchboard's OAuth client metadata.
    ClientMetadata,
    "OAuth client metadata (RFC 7591 names): `client_id` (this document's URL), \
     `client_name`, `client_uri`, `redirect_uris`, `grant_types`, `response_types`, \
     `token_endpoint_auth_method`, `application_type`"
);

/// An MCP server as the servers list shows it (secrets masked).
pub struct McpServer;

impl PartialSchema for McpServer {
    fn schema() -> RefOr<Schema> {
        object(
            "An MCP server as `GET /api/mcp-servers` lists it, secrets masked: `id`, `name`, \
             `transport`, `url` or `command`/`args`/`env`, `headers`, `auth`, `timeout`, \
             `enabled`, `disabled_tools`, `auto_approved_tools`, `created_at`, `updated_at`",
        )
    }
}

impl ToSchema for McpServer {}

/// The OpenAPI document itself.
pub struct OpenApiDocument;

impl PartialSchema for OpenApiDocument {
    fn schema() -> RefOr<Schema> {
        object("An OpenAPI 3.1 document")
    }
}

impl ToSchema for OpenApiDocument {}

/// A JSON Schema (draft 2020-12 unless it says otherwise).
pub struct JsonSchema;

impl PartialSchema for JsonSchema {
    fn schema() -> RefOr<Schema> {
        object("A JSON Schema object")
    }
}

impl ToSchema for JsonSchema {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_is_a_described_free_form_object() {
        for schema in [
            ToolArguments::schema(),
            ToolResult::schema(),
            JsonSchema::schema(),
            McpServer::schema(),
            OpenApiDocument::schema(),
            McpResource::schema(),
            McpResourceContents::schema(),
            McpPrompt::schema(),
            McpPromptMessages::schema(),
        ] {
            let json = serde_json::to_value(&schema).unwrap();
            assert_eq!(json["type"], "object", "{json}");
            assert_eq!(json["additionalProperties"], true, "{json}");
            assert!(json["description"].as_str().is_some(), "{json}");
        }
        assert_eq!(ToolArguments::name(), "ToolArguments");
    }
}
