//! A whole tool converted for one provider: its name made valid, its schema resolved and
//! rewritten, and the entry that goes into the provider's `tools` array. Each tool fails on
//! its own; a set of tools always converts every tool that can be converted.

use serde_json::{Map, Value, json};

use crate::dialect::{self, Dialect};
use crate::error::SchemaError;
use crate::resolve::{LocalResolver, ResolveOptions, resolve};

/// One tool as an MCP server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInput {
    pub name: String,
    pub description: Option<String>,
    /// `None` for a tool that declares no input schema.
    pub input_schema: Option<Value>,
}

#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    pub resolve: ResolveOptions,
}

/// A converted tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The tool's name made valid for the provider.
    pub name: String,
    /// Exactly what goes into the provider's `tools` array.
    pub entry: Value,
    /// OpenAI strict mode was possible (only meaningful for [`Dialect::OpenAiStrict`]).
    pub strict: bool,
    pub not_strict_reason: Option<String>,
    /// What was pruned, dropped or changed on the way.
    pub notes: Vec<String>,
}

impl Converted {
    /// The converted parameter schema, taken from [`Converted::entry`] wherever the dialect
    /// puts it (`function.parameters`, `input_schema`, `parameters`, `parametersJsonSchema`);
    /// an empty object schema for a Gemini tool that takes no parameters (its entry leaves
    /// the field out). For callers that build their own entry around the schema (seed 003's
    /// action recall answers `parameters` beside its own fields).
    #[must_use]
    pub fn parameters(&self) -> Value {
        let entry = self.entry.get("function").unwrap_or(&self.entry);
        ["parameters", "input_schema", "parametersJsonSchema"]
            .iter()
            .find_map(|key| entry.get(*key))
            .cloned()
            .unwrap_or_else(|| json!({"type": "object", "properties": {}}))
    }
}

/// Why one tool could not be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}`: {reason}")]
pub struct ToolSchemaError {
    pub tool: String,
    pub reason: String,
}

/// Converts one tool.
pub fn convert_tool(
    tool: &ToolInput,
    dialect: Dialect,
    options: &ConvertOptions,
) -> Result<Converted, ToolSchemaError> {
    let failed = |error: SchemaError| ToolSchemaError {
        tool: tool.name.clone(),
        reason: error.to_string(),
    };
    let empty = json!({"type": "object", "properties": {}});
    let schema = tool.input_schema.as_ref().unwrap_or(&empty);
    let resolved =
        resolve(schema, &LocalResolver::new(schema), &options.resolve).map_err(failed)?;
    // Every resolution note is a loss (a pruned cycle or depth, the budget, an unresolved
    // remote reference, a replaced keyword): strict mode would then promise a schema the
    // server does not have, so it is not attempted.
    let lossy = resolved
        .notes
        .first()
        .filter(|_| dialect == Dialect::OpenAiStrict);
    let target = if lossy.is_some() {
        Dialect::OpenAi
    } else {
        dialect
    };
    let mut converted = dialect::to_dialect(&resolved.schema, target).map_err(failed)?;
    if let Some(loss) = lossy {
        converted.not_strict_reason = Some(format!("resolving references lost detail: {loss}"));
    }
    let name = dialect::tool_name(&tool.name, dialect);
    let description = Value::String(tool.description.clone().unwrap_or_default());
    // Built by moving the parameters in: `json!` would copy them, and they can be large.
    let mut entry = Map::new();
    entry.insert("name".into(), Value::String(name.clone()));
    entry.insert("description".into(), description);
    let parameters = converted.parameters;
    let entry = match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => {
            entry.insert("parameters".into(), parameters);
            entry.insert("strict".into(), Value::Bool(converted.strict));
            let mut function = Map::new();
            function.insert("type".into(), Value::String("function".into()));
            function.insert("function".into(), Value::Object(entry));
            function
        }
        Dialect::Anthropic => {
            entry.insert("input_schema".into(), parameters);
            entry
        }
        // Gemini answers 400 to an object with empty `properties`; a tool without
        // parameters leaves the field out.
        Dialect::Gemini if has_no_properties(&parameters) => entry,
        Dialect::Gemini => {
            entry.insert("parameters".into(), parameters);
            entry
        }
        _ => {
            entry.insert("parametersJsonSchema".into(), parameters);
            entry
        }
    };
    let entry = Value::Object(entry);
    let mut notes = resolved.notes;
    notes.extend(converted.notes);
    Ok(Converted {
        name,
        entry,
        strict: converted.strict,
        not_strict_reason: converted.not_strict_reason,
        notes,
    })
}

fn has_no_properties(parameters: &Value) -> bool {
    parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty)
}

/// Converts every tool that can be converted; the others are reported one by one. Two tools
/// whose names become the same for the provider would make it refuse the whole request, so
/// every tool after the first with a given name is reported instead.
pub fn convert_tools(
    tools: &[ToolInput],
    dialect: Dialect,
    options: &ConvertOptions,
) -> (Vec<Converted>, Vec<ToolSchemaError>) {
    let mut converted: Vec<Converted> = Vec::with_capacity(tools.len());
    let mut errors = Vec::new();
    let mut taken = std::collections::HashMap::new();
    for tool in tools {
        match convert_tool(tool, dialect, options) {
            Ok(done) => match taken.get(&done.name) {
                Some(first) => errors.push(ToolSchemaError {
                    tool: tool.name.clone(),
                    reason: format!("its name `{}` is already taken by `{first}`", done.name),
                }),
                None => {
                    taken.insert(done.name.clone(), tool.name.clone());
                    converted.push(done);
                }
            },
            Err(error) => errors.push(error),
        }
    }
    (converted, errors)
}

/// The tools read from a document, and the entries that are not tools.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedTools {
    pub tools: Vec<ToolInput>,
    pub errors: Vec<ToolSchemaError>,
}

/// Reads the tools out of a document that is a `tools/list` result (`{"tools": [...]}`), one
/// tool (`{name, description, inputSchema}`), or a bare schema (named `tool`). A malformed
/// entry of a list is reported on its own; only a document that is none of these fails.
pub fn parse_tools(document: &Value) -> Result<ParsedTools, ToolSchemaError> {
    let bad = |reason: String| ToolSchemaError {
        tool: "(input)".to_owned(),
        reason,
    };
    let Value::Object(object) = document else {
        return Err(bad(
            "expected a JSON object: a tool, a schema or a tools/list result".into(),
        ));
    };
    if let Some(tools) = object.get("tools") {
        let Value::Array(tools) = tools else {
            return Err(bad("`tools` must be an array".into()));
        };
        let mut parsed = ParsedTools::default();
        for (index, tool) in tools.iter().enumerate() {
            let tool = match tool {
                Value::Object(tool) => tool_from(tool, index),
                _ => Err(ToolSchemaError {
                    tool: format!("tools[{index}]"),
                    reason: "not an object".to_owned(),
                }),
            };
            match tool {
                Ok(tool) => parsed.tools.push(tool),
                Err(error) => parsed.errors.push(error),
            }
        }
        return Ok(parsed);
    }
    if object.contains_key("inputSchema") || object.contains_key("name") {
        return tool_from(object, 0).map(|tool| ParsedTools {
            tools: vec![tool],
            errors: Vec::new(),
        });
    }
    Ok(ParsedTools {
        tools: vec![ToolInput {
            name: "tool".to_owned(),
            description: None,
            input_schema: Some(document.clone()),
        }],
        errors: Vec::new(),
    })
}

fn tool_from(tool: &Map<String, Value>, index: usize) -> Result<ToolInput, ToolSchemaError> {
    let name = match tool.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name.clone(),
        _ => {
            return Err(ToolSchemaError {
                tool: format!("tools[{index}]"),
                reason: "a tool needs a non-empty string `name`".to_owned(),
            });
        }
    };
    Ok(ToolInput {
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
        // `null` is how some servers say "no parameters".
        input_schema: tool.get("inputSchema").filter(|s| !s.is_null()).cloned(),
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_found_in_every_dialect_entry() {
        let tool = ToolInput {
            name: "t".into(),
            description: None,
            input_schema: Some(json!({"type": "object", "properties": {"q": {"type": "string"}}})),
        };
        for dialect in Dialect::ALL {
            let converted =
                convert_tool(&tool, dialect, &ConvertOptions::default()).expect("converts");
            assert!(
                converted.parameters()["properties"].get("q").is_some(),
                "{dialect}: {}",
                converted.entry
            );
        }
        let empty = ToolInput {
            input_schema: None,
            ..tool
        };
        let converted =
            convert_tool(&empty, Dialect::Gemini, &ConvertOptions::default()).expect("converts");
        assert_eq!(converted.parameters()["type"], "object");
    }

    #[test]
    fn three_input_shapes_are_read() {
        let list = json!({"tools": [
            {"name": "a", "inputSchema": {"type": "object"}},
            {"name": "b", "inputSchema": null}
        ]});
        let tools = parse_tools(&list).expect("list").tools;
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[1].input_schema, None, "null means no schema");
        let one = json!({"name": "x", "description": "d", "inputSchema": {"type": "object"}});
        let tools = parse_tools(&one).expect("tool").tools;
        assert_eq!(tools[0].description.as_deref(), Some("d"));
        let bare = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        assert_eq!(parse_tools(&bare).expect("schema").tools[0].name, "tool");
        assert!(parse_tools(&json!([1])).is_err());
    }

    #[test]
    fn a_malformed_entry_is_reported_alone() {
        let list = json!({"tools": [{"name": "ok"}, {"name": ""}, 7, {"description": "no name"}]});
        let parsed = parse_tools(&list).expect("a list");
        assert_eq!(parsed.tools.len(), 1);
        assert_eq!(parsed.errors.len(), 3);
    }

    #[test]
    fn names_that_collide_for_the_provider_are_reported() {
        let tools: Vec<ToolInput> = ["a.b", "a_b", "c"]
            .into_iter()
            .map(|name| ToolInput {
                name: name.into(),
                description: None,
                input_schema: None,
            })
            .collect();
        let (converted, errors) =
            convert_tools(&tools, Dialect::OpenAi, &ConvertOptions::default());
        assert_eq!(converted.len(), 2);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].tool, "a_b");
    }

    #[test]
    fn strict_is_refused_when_resolution_lost_detail() {
        let schema = json!({
            "$defs": {"E": {"type": "string", "enum": ["x", "y"]}},
            "type": "object", "properties": {"e": {"$ref": "#/$defs/E"}}, "required": ["e"]
        });
        let tool = ToolInput {
            name: "t".into(),
            description: None,
            input_schema: Some(schema),
        };
        let options = ConvertOptions::default();
        let lossless = convert_tool(&tool, Dialect::OpenAiStrict, &options).expect("converts");
        assert!(
            lossless.strict,
            "inlined in full: {:?}",
            lossless.not_strict_reason
        );
        let shallow = ConvertOptions {
            resolve: ResolveOptions {
                max_depth: 0,
                ..ResolveOptions::default()
            },
        };
        let pruned = convert_tool(&tool, Dialect::OpenAiStrict, &shallow).expect("converts");
        assert!(!pruned.strict, "the enum was pruned away");
        assert_eq!(pruned.entry["function"]["strict"], false);
        let reason = pruned.not_strict_reason.expect("a reason");
        assert!(reason.contains("lost detail"), "{reason}");
        let remote = json!({
            "type": "object", "required": ["c"],
            "properties": {"c": {"$ref": "https://x.org/s.json#/C", "type": "string"}}
        });
        let tool = ToolInput {
            input_schema: Some(remote),
            ..tool
        };
        let converted = convert_tool(&tool, Dialect::OpenAiStrict, &options).expect("converts");
        assert!(!converted.strict, "an unresolved reference is a loss");
    }

    #[test]
    fn one_bad_tool_does_not_fail_the_others() {
        let tools = parse_tools(&json!({"tools": [
            {"name": "good", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": {"q": {"$ref": "#/$defs/Missing"}}}},
        ]}))
        .expect("parse")
        .tools;
        for dialect in [
            Dialect::OpenAi,
            Dialect::OpenAiStrict,
            Dialect::Anthropic,
            Dialect::Gemini,
            Dialect::GeminiJson,
        ] {
            let (converted, errors) = convert_tools(&tools, dialect, &ConvertOptions::default());
            assert_eq!(converted.len(), 1, "{dialect:?}");
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0].tool, "bad");
        }
    }

    #[test]
    fn a_tool_without_schema_gets_an_empty_object() {
        let tool = ToolInput {
            name: "ping".into(),
            description: None,
            input_schema: None,
        };
        let converted =
            convert_tool(&tool, Dialect::Anthropic, &ConvertOptions::default()).expect("converts");
        assert_eq!(converted.entry["input_schema"]["type"], "object");
    }

    #[test]
    fn entries_have_each_providers_shape() {
        let tool = ToolInput {
            name: "t".into(),
            description: Some("d".into()),
            input_schema: None,
        };
        let options = ConvertOptions::default();
        let openai = convert_tool(&tool, Dialect::OpenAi, &options)
            .expect("openai")
            .entry;
        assert_eq!(openai["type"], "function");
        assert!(openai["function"]["parameters"].is_object());
        assert!(openai["function"]["strict"].is_boolean());
        let gemini = convert_tool(&tool, Dialect::Gemini, &options)
            .expect("gemini")
            .entry;
        assert!(
            gemini.get("parameters").is_none(),
            "no parameters, no field: {gemini}"
        );
        let with_args = ToolInput {
            input_schema: Some(json!({"type": "object", "properties": {"q": {"type": "string"}}})),
            ..tool.clone()
        };
        let gemini = convert_tool(&with_args, Dialect::Gemini, &options)
            .expect("gemini")
            .entry;
        assert!(gemini["parameters"]["properties"]["q"].is_object());
        let gemini_json = convert_tool(&tool, Dialect::GeminiJson, &options)
            .expect("gemini json")
            .entry;
        assert!(gemini_json["parametersJsonSchema"].is_object());
    }
}
