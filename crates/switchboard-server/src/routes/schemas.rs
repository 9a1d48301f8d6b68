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
        ] {
            let json = serde_json::to_value(&schema).unwrap();
            assert_eq!(json["type"], "object", "{json}");
            assert_eq!(json["additionalProperties"], true, "{json}");
            assert!(json["description"].as_str().is_some(), "{json}");
        }
        assert_eq!(ToolArguments::name(), "ToolArguments");
    }
}
