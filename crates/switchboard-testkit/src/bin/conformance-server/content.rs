//! Resources, prompts and completion, answering as the scenario texts show.

use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ReadResourceRequestParams, ReadResourceResponse, Reference,
};
use serde_json::{Value, json};

use crate::catalog::{PNG, complete};
use crate::mrtr::Asker;

pub fn read_resource(
    request: &ReadResourceRequestParams,
) -> Result<ReadResourceResponse, ErrorData> {
    let uri = request.uri.as_str();
    let content = match uri {
        "test://static-text" => json!({
            "uri": uri,
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource.",
        }),
        "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": PNG}),
        "test://watched-resource" => json!({
            "uri": uri,
            "mimeType": "text/plain",
            "text": "The watched resource has not changed.",
        }),
        _ => match template_id(uri) {
            Some(id) => json!({
                "uri": uri,
                "mimeType": "application/json",
                "text": json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
                    .to_string(),
            }),
            // SEP-2164: an unknown resource is -32602 with the URI in `data`.
            None => {
                return Err(ErrorData::invalid_params(
                    "Resource not found",
                    Some(json!({"uri": uri})),
                ));
            }
        },
    };
    let result: rmcp::model::ReadResourceResult = complete(json!({"contents": [content]}))?;
    Ok(result.into())
}

/// The `{id}` of `test://template/{id}/data`.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

pub fn get_prompt(
    request: &GetPromptRequestParams,
    asker: &Asker,
) -> Result<GetPromptResponse, ErrorData> {
    let argument = |name: &str| -> Result<String, ErrorData> {
        request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| ErrorData::invalid_params(format!("argument {name} is required"), None))
    };
    let user = |content: Value| json!({"role": "user", "content": content});
    let messages = match request.name.as_str() {
        "test_simple_prompt" => vec![user(
            json!({"type": "text", "text": "This is a simple prompt for testing."}),
        )],
        "test_prompt_with_arguments" => {
            let (arg1, arg2) = (argument("arg1")?, argument("arg2")?);
            vec![user(json!({
                "type": "text",
                "text": format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
            }))]
        }
        "test_prompt_with_embedded_resource" => {
            let uri = argument("resourceUri")?;
            vec![
                user(json!({
                    "type": "resource",
                    "resource": {
                        "uri": uri,
                        "mimeType": "text/plain",
                        "text": "Embedded resource content for testing.",
                    },
                })),
                user(
                    json!({"type": "text", "text": "Please process the embedded resource above."}),
                ),
            ]
        }
        "test_prompt_with_image" => vec![
            user(json!({"type": "image", "data": PNG, "mimeType": "image/png"})),
            user(json!({"type": "text", "text": "Please analyze the image above."})),
        ],
        "test_input_required_result_prompt" => {
            return asker.prompt_context(request);
        }
        other => {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt {other}"),
                None,
            ));
        }
    };
    let result: rmcp::model::GetPromptResult = complete(json!({"messages": messages}))?;
    Ok(result.into())
}

/// Completes `arg1` of `test_prompt_with_arguments` (and the template's `id`) from a short
/// list, by prefix.
pub fn completion(request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let candidates: &[&str] = match (&request.r#ref, request.argument.name.as_str()) {
        (Reference::Prompt(prompt), "arg1" | "arg2")
            if prompt.name == "test_prompt_with_arguments" =>
        {
            &["paris", "park", "party", "test", "testValue1"]
        }
        (Reference::Resource(_), "id") => &["1", "123", "42"],
        _ => &[],
    };
    let prefix = request.argument.value.as_str();
    let values: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|value| value.starts_with(prefix))
        .collect();
    complete(json!({
        "completion": {"values": values, "total": values.len(), "hasMore": false},
    }))
}
