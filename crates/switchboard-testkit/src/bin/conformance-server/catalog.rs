//! What the server offers, as the suite's scenario texts describe it: tools, prompts,
//! resources and the resource template, written as the JSON the texts show and turned into
//! rmcp's types once.

use rmcp::ErrorData;
use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Parses JSON written in this file into one of rmcp's types. A failure is a mistake in this
/// server, reported to the client as an internal error rather than a panic.
pub fn typed<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|error| ErrorData::internal_error(format!("conformance-server: {error}"), None))
}

/// [`typed`] for a result: adds `resultType: "complete"` (SEP-2322), as rmcp's own constructors
/// do; rmcp strips it again for a peer on a revision before 2026-07-28.
pub fn complete<T: DeserializeOwned>(mut value: Value) -> Result<T, ErrorData> {
    if let Value::Object(map) = &mut value {
        map.insert("resultType".to_owned(), json!("complete"));
    }
    typed(value)
}

fn no_arguments(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {}},
    })
}

fn one_string(name: &str, description: &str, argument: &str, about: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {argument: {"type": "string", "description": about}},
            "required": [argument],
        },
    })
}

/// Every tool of the server scenarios (2025-11-25 and 2026-07-28), in a fixed order. With
/// `extra` the list also holds the tool `test_trigger_tool_change` adds.
pub fn tools(extra: bool) -> Result<Vec<Tool>, ErrorData> {
    let mut tools = vec![
        no_arguments("test_simple_text", "Returns simple text"),
        no_arguments("test_image_content", "Returns a 1x1 PNG image"),
        no_arguments("test_audio_content", "Returns a short WAV clip"),
        no_arguments(
            "test_embedded_resource",
            "Returns an embedded text resource",
        ),
        no_arguments(
            "test_multiple_content_types",
            "Returns text, an image and a resource",
        ),
        no_arguments(
            "test_tool_with_logging",
            "Sends three log messages while it runs",
        ),
        no_arguments(
            "test_logging_tool",
            "Sends a log message only when the request asks for a log level",
        ),
        no_arguments("test_error_handling", "Always fails with a tool error"),
        no_arguments(
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100",
        ),
        one_string(
            "test_sampling",
            "Asks the client's model to answer a prompt",
            "prompt",
            "The prompt to send to the LLM",
        ),
        one_string(
            "test_elicitation",
            "Asks the user for a username and an email address",
            "message",
            "The message to show the user",
        ),
        no_arguments(
            "test_elicitation_sep1034_defaults",
            "Elicits a form whose fields all have defaults",
        ),
        no_arguments(
            "test_elicitation_sep1330_enums",
            "Elicits a form with the five kinds of enum field",
        ),
        no_arguments(
            "test_missing_capability",
            "Needs the client's sampling capability",
        ),
        no_arguments(
            "test_trigger_tool_change",
            "Adds a tool and announces the changed tool list",
        ),
        no_arguments(
            "test_trigger_prompt_change",
            "Announces a changed prompt list",
        ),
        no_arguments(
            "test_streaming_elicitation",
            "Needs the user's confirmation, asked through an input-required result on 2026-07-28",
        ),
        no_arguments(
            "test_input_required_result_elicitation",
            "Asks for the user's name through an input-required result",
        ),
        no_arguments(
            "test_input_required_result_sampling",
            "Asks the client's model through an input-required result",
        ),
        no_arguments(
            "test_input_required_result_list_roots",
            "Asks for the client's roots through an input-required result",
        ),
        no_arguments(
            "test_input_required_result_request_state",
            "Round-trips a sealed request state",
        ),
        no_arguments(
            "test_input_required_result_multiple_inputs",
            "Asks for elicitation, sampling and roots at once",
        ),
        no_arguments(
            "test_input_required_result_multi_round",
            "Asks twice, with a new request state each round",
        ),
        no_arguments(
            "test_input_required_result_tampered_state",
            "Rejects a request state that fails its integrity check",
        ),
        no_arguments(
            "test_input_required_result_capabilities",
            "Asks only for what the client declared it can answer",
        ),
    ];
    // Scenario json-schema-2020-12 (not scored yet): the schema must reach clients unchanged.
    tools.push(json!({
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }},
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"},
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false,
        },
    }));
    tools.extend(crate::tasks::tools());
    if extra {
        tools.push(no_arguments(
            "test_added_tool",
            "Added by test_trigger_tool_change",
        ));
    }
    tools.into_iter().map(typed).collect()
}

pub fn prompts() -> Result<Vec<Prompt>, ErrorData> {
    let text_argument = |name: &str, description: &str| json!({"name": name, "description": description, "required": true});
    [
        json!({"name": "test_simple_prompt", "description": "A simple prompt without arguments"}),
        json!({
            "name": "test_prompt_with_arguments",
            "description": "A prompt with two required arguments",
            "arguments": [
                text_argument("arg1", "First test argument"),
                text_argument("arg2", "Second test argument"),
            ],
        }),
        json!({
            "name": "test_prompt_with_embedded_resource",
            "description": "A prompt that embeds a resource",
            "arguments": [text_argument("resourceUri", "URI of the resource to embed")],
        }),
        json!({"name": "test_prompt_with_image", "description": "A prompt with an image"}),
        json!({
            "name": "test_input_required_result_prompt",
            "description": "A prompt that first asks for context through an input-required result",
        }),
    ]
    .into_iter()
    .map(typed)
    .collect()
}

pub fn resources() -> Result<Vec<Resource>, ErrorData> {
    [
        json!({
            "uri": "test://static-text",
            "name": "static-text",
            "description": "A static text resource",
            "mimeType": "text/plain",
        }),
        json!({
            "uri": "test://static-binary",
            "name": "static-binary",
            "description": "A static binary resource (a PNG image)",
            "mimeType": "image/png",
        }),
        json!({
            "uri": "test://watched-resource",
            "name": "watched-resource",
            "description": "A resource that can be subscribed to",
            "mimeType": "text/plain",
        }),
    ]
    .into_iter()
    .map(typed)
    .collect()
}

pub fn resource_templates() -> Result<Vec<ResourceTemplate>, ErrorData> {
    Ok(vec![typed(json!({
        "uriTemplate": "test://template/{id}/data",
        "name": "template-data",
        "description": "Data for an id, substituted into the URI",
        "mimeType": "application/json",
    }))?])
}

/// A 1x1 red PNG.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file with a 44-byte header and two silent 16-bit samples at 8 kHz.
pub const WAV: &str = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAAAAAAA";
