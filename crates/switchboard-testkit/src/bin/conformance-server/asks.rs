//! What each client-facing tool asks, round by round, written as the JSON the scenario texts
//! show, and the text it answers with once it has the responses. How the questions travel is
//! [`crate::mrtr`]'s business.

use std::collections::BTreeMap;

use rmcp::model::ClientCapabilities;
use serde_json::{Value, json};

/// What one tool asks, round by round.
pub struct Script {
    /// Sent as `requestState` (sealed, with the round) from the first round on.
    pub stateful: bool,
    pub rounds: Vec<Vec<(&'static str, Value)>>,
}

pub fn elicit(message: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {"type": "object", "properties": properties, "required": required},
        },
    })
}

fn sample(text: &str, max_tokens: u32) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": max_tokens,
        },
    })
}

fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

pub fn single(key: &'static str, request: Value) -> Script {
    Script {
        stateful: false,
        rounds: vec![vec![(key, request)]],
    }
}

fn user_name() -> Value {
    elicit(
        "What is your name?",
        json!({"name": {"type": "string"}}),
        &["name"],
    )
}

/// The script of `tool`, or `None` when it asks nothing of the client.
pub fn script(
    tool: &str,
    arguments: &serde_json::Map<String, Value>,
    caps: &ClientCapabilities,
) -> Option<Script> {
    let argument = |name: &str| {
        arguments
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let script = match tool {
        "test_elicitation" => single(
            "user_response",
            elicit(
                &argument("message"),
                json!({
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"},
                }),
                &["username", "email"],
            ),
        ),
        "test_sampling" => single("llm_response", sample(&argument("prompt"), 100)),
        "test_elicitation_sep1034_defaults" => single(
            "form",
            elicit(
                "Please review and update the form fields with defaults",
                json!({
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {
                        "type": "string",
                        "description": "User status",
                        "enum": ["active", "inactive", "pending"],
                        "default": "active",
                    },
                    "verified": {"type": "boolean", "description": "Verification status", "default": true},
                }),
                &[],
            ),
        ),
        "test_elicitation_sep1330_enums" => single(
            "form",
            elicit(
                "Please select options from the enum fields",
                json!({
                    "untitledSingle": {
                        "type": "string",
                        "description": "Select one option",
                        "enum": ["option1", "option2", "option3"],
                    },
                    "titledSingle": {
                        "type": "string",
                        "description": "Select one option with titles",
                        "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                            {"const": "value3", "title": "Third Option"},
                        ],
                    },
                    "legacyEnum": {
                        "type": "string",
                        "description": "Select one option (legacy)",
                        "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"],
                    },
                    "untitledMulti": {
                        "type": "array",
                        "description": "Select multiple options",
                        "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    },
                    "titledMulti": {
                        "type": "array",
                        "description": "Select multiple options with titles",
                        "items": {"anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"},
                        ]},
                    },
                }),
                &[],
            ),
        ),
        "test_streaming_elicitation" => single(
            "confirmation",
            elicit(
                "Please confirm to continue",
                json!({"confirm": {"type": "boolean"}}),
                &["confirm"],
            ),
        ),
        "test_input_required_result_elicitation" => single("user_name", user_name()),
        "test_input_required_result_sampling" => single(
            "capital_question",
            sample("What is the capital of France?", 100),
        ),
        "test_input_required_result_list_roots" => single("client_roots", roots()),
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => Script {
            stateful: true,
            rounds: vec![vec![(
                "confirm",
                elicit(
                    "Please confirm",
                    json!({"ok": {"type": "boolean"}}),
                    &["ok"],
                ),
            )]],
        },
        "test_input_required_result_multiple_inputs" => Script {
            stateful: true,
            rounds: vec![vec![
                ("user_name", user_name()),
                ("greeting", sample("Generate a greeting", 50)),
                ("client_roots", roots()),
            ]],
        },
        "test_input_required_result_multi_round" => Script {
            stateful: true,
            rounds: vec![
                vec![(
                    "step1",
                    elicit(
                        "Step 1: What is your name?",
                        json!({"name": {"type": "string"}}),
                        &["name"],
                    ),
                )],
                vec![(
                    "step2",
                    elicit(
                        "Step 2: What is your favorite color?",
                        json!({"color": {"type": "string"}}),
                        &["color"],
                    ),
                )],
            ],
        },
        // Only what the client declared it can answer (SEP-2322's capability rule).
        "test_input_required_result_capabilities" => {
            let mut round = Vec::new();
            if caps.elicitation.is_some() {
                round.push(("user_name", user_name()));
            }
            if caps.sampling.is_some() {
                round.push(("greeting", sample("Generate a greeting", 50)));
            }
            if caps.roots.is_some() {
                round.push(("client_roots", roots()));
            }
            Script {
                stateful: false,
                rounds: vec![round],
            }
        }
        _ => return None,
    };
    Some(script)
}

/// The text a finished tool answers with.
pub fn answer(tool: &str, responses: &BTreeMap<String, Value>) -> String {
    let field = |key: &str, pointer: &str| {
        responses
            .get(key)
            .and_then(|response| response.pointer(pointer))
            .map(|value| {
                value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned)
            })
            .unwrap_or_default()
    };
    let action_content = |key: &str| {
        let response = responses.get(key).cloned().unwrap_or(Value::Null);
        let action = response
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or("cancel")
            .to_owned();
        let content = response.get("content").cloned().unwrap_or(Value::Null);
        (action, content)
    };
    match tool {
        "test_elicitation" => {
            let (action, content) = action_content("user_response");
            format!("User response: action={action}, content={content}")
        }
        "test_sampling" => format!("LLM response: {}", field("llm_response", "/content/text")),
        "test_elicitation_sep1034_defaults" | "test_elicitation_sep1330_enums" => {
            let (action, content) = action_content("form");
            format!("Elicitation completed: action={action}, content={content}")
        }
        "test_input_required_result_elicitation" => {
            format!("Hello, {}!", field("user_name", "/content/name"))
        }
        "test_input_required_result_sampling" => {
            format!(
                "The model answered: {}",
                field("capital_question", "/content/text")
            )
        }
        "test_input_required_result_list_roots" => {
            let roots = responses
                .get("client_roots")
                .and_then(|response| response.get("roots"))
                .and_then(Value::as_array)
                .map(|roots| {
                    roots
                        .iter()
                        .filter_map(|root| root.get("uri")?.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            format!("Client roots: {roots}")
        }
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            format!("state-ok: confirmed={}", field("confirm", "/content/ok"))
        }
        "test_input_required_result_multi_round" => format!(
            "Hello, {}! Your favorite color is {}.",
            field("step1", "/content/name"),
            field("step2", "/content/color")
        ),
        _ => format!("Received {} input responses", responses.len()),
    }
}
