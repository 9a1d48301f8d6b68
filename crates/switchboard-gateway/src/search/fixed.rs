//! The three tools a view in `search` mode lists in place of its catalog: their definitions
//! (what `tools/list` shows) and their arguments, read strictly: anything a schema does not
//! allow is refused with invalid params (-32602), naming the argument at fault.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

/// Searches the view's tools.
pub(crate) const SEARCH_TOOLS: &str = "search_tools";
/// Gives one tool's whole definition.
pub(crate) const DESCRIBE_TOOL: &str = "describe_tool";
/// Calls one tool of the view.
pub(crate) const CALL_TOOL: &str = "call_tool";
/// The three, as listed.
pub(crate) const NAMES: [&str; 3] = [SEARCH_TOOLS, DESCRIBE_TOOL, CALL_TOOL];

/// The tools one search answers with when the client does not say.
pub(crate) const DEFAULT_LIMIT: u64 = 10;
/// The most tools one search answers with.
pub(crate) const MAX_LIMIT: u64 = 50;
/// Characters of a query that are searched; a longer query is refused.
pub(crate) const MAX_QUERY_CHARS: usize = 1_000;

/// Whether `name` is one of the fixed tools' names.
pub(crate) fn is_fixed(name: &str) -> bool {
    NAMES.contains(&name)
}

/// The fixed tools, in the order `tools/list` shows them.
pub(crate) fn tools() -> Vec<Tool> {
    vec![search_tools(), describe_tool(), call_tool()]
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

fn search_tools() -> Tool {
    let mut tool = Tool::new(
        SEARCH_TOOLS,
        "Search the tools of this MCP server by what you want to do (words in English or \
         Chinese, or a tool's name). Answers the best matching tools, best first: each with \
         its name, description and input schema; a tool whose schema is large comes with \
         `inputSchemaOmitted: true` instead (call describe_tool for it). Call a tool found \
         with call_tool, or directly by its name.",
        object(json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_CHARS,
                    "description": "What the tool should do, or its name."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "default": DEFAULT_LIMIT,
                    "description": "How many tools to answer with at most."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })),
    );
    tool.title = Some("Search tools".into());
    tool.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "title": {"type": "string"},
                        "description": {"type": "string"},
                        "server": {"type": "string"},
                        "inputSchema": {"type": "object"},
                        "inputSchemaOmitted": {"type": "boolean"}
                    },
                    "required": ["name", "description", "server"]
                }
            }
        },
        "required": ["tools"]
    })));
    tool.annotations = Some(ToolAnnotations::new().read_only(true));
    tool
}

fn describe_tool() -> Tool {
    let mut tool = Tool::new(
        DESCRIBE_TOOL,
        "The whole definition of one tool of this MCP server, by the name search_tools gave: \
         its description, input schema, output schema and annotations.",
        object(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "description": "The tool's name."}
            },
            "required": ["name"],
            "additionalProperties": false
        })),
    );
    tool.title = Some("Describe a tool".into());
    tool.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "inputSchema": {"type": "object"}
        },
        "required": ["name", "inputSchema"]
    })));
    tool.annotations = Some(ToolAnnotations::new().read_only(true));
    tool
}

fn call_tool() -> Tool {
    let mut tool = Tool::new(
        CALL_TOOL,
        "Call one tool of this MCP server by the name search_tools gave, with its arguments \
         (an object matching its input schema). Answers the tool's own result.",
        object(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "description": "The tool's name."},
                "arguments": {
                    "type": "object",
                    "description": "The tool's arguments; left out: none."
                }
            },
            "required": ["name"],
            "additionalProperties": false
        })),
    );
    tool.title = Some("Call a tool".into());
    tool
}

/// The arguments of `search_tools`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Search {
    pub query: String,
    pub limit: usize,
}

/// The arguments of `call_tool`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub name: String,
    pub arguments: Option<JsonObject>,
}

/// An argument the tool's schema does not allow.
fn invalid(tool: &str, problem: impl std::fmt::Display) -> ErrorData {
    ErrorData::invalid_params(format!("{tool}: {problem}"), None)
}

/// Refuses an argument no schema names (a misspelt one would otherwise be ignored quietly).
fn only(tool: &str, arguments: &JsonObject, known: &[&str]) -> Result<(), ErrorData> {
    match arguments.keys().find(|key| !known.contains(&key.as_str())) {
        Some(key) => Err(invalid(
            tool,
            format!(
                "unknown argument `{key}` (it takes {})",
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// A required, non-blank string argument.
fn text<'a>(tool: &str, arguments: &'a JsonObject, key: &str) -> Result<&'a str, ErrorData> {
    match arguments.get(key) {
        None | Some(Value::Null) => Err(invalid(tool, format!("`{key}` is required"))),
        Some(Value::String(text)) if text.trim().is_empty() => {
            Err(invalid(tool, format!("`{key}` must not be empty")))
        }
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(invalid(tool, format!("`{key}` must be a string"))),
    }
}

pub(crate) fn search(arguments: Option<&JsonObject>) -> Result<Search, ErrorData> {
    let empty = JsonObject::new();
    let arguments = arguments.unwrap_or(&empty);
    only(SEARCH_TOOLS, arguments, &["query", "limit"])?;
    let query = text(SEARCH_TOOLS, arguments, "query")?;
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(invalid(
            SEARCH_TOOLS,
            format!("`query` must be at most {MAX_QUERY_CHARS} characters"),
        ));
    }
    let limit = match arguments.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(value) => value
            .as_u64()
            .filter(|limit| (1..=MAX_LIMIT).contains(limit))
            .ok_or_else(|| {
                invalid(
                    SEARCH_TOOLS,
                    format!("`limit` must be an integer from 1 to {MAX_LIMIT}"),
                )
            })?,
    };
    Ok(Search {
        query: query.to_owned(),
        // At most MAX_LIMIT, which fits every usize.
        limit: usize::try_from(limit).unwrap_or(1),
    })
}

/// The tool name `describe_tool` asks about.
pub(crate) fn describe(arguments: Option<&JsonObject>) -> Result<String, ErrorData> {
    let empty = JsonObject::new();
    let arguments = arguments.unwrap_or(&empty);
    only(DESCRIBE_TOOL, arguments, &["name"])?;
    Ok(text(DESCRIBE_TOOL, arguments, "name")?.to_owned())
}

pub(crate) fn call(arguments: Option<&JsonObject>) -> Result<Call, ErrorData> {
    let empty = JsonObject::new();
    let arguments = arguments.unwrap_or(&empty);
    only(CALL_TOOL, arguments, &["name", "arguments"])?;
    let name = text(CALL_TOOL, arguments, "name")?.to_owned();
    let arguments = match arguments.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(inner)) => Some(inner.clone()),
        Some(_) => {
            return Err(invalid(
                CALL_TOOL,
                "`arguments` must be an object (the tool's arguments by name)",
            ));
        }
    };
    Ok(Call { name, arguments })
}

#[cfg(test)]
mod tests {
    use super::*;

    const INVALID_PARAMS: i32 = -32602;

    fn args(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[track_caller]
    fn refused<T: std::fmt::Debug>(result: Result<T, ErrorData>, says: &str) {
        let error = result.expect_err("refused");
        assert_eq!(error.code.0, INVALID_PARAMS, "{error:?}");
        assert!(
            error.message.contains(says),
            "{:?} lacks {says:?}",
            error.message
        );
    }

    #[test]
    fn the_fixed_tools_are_listed_with_strict_object_schemas() {
        let tools = tools();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, NAMES);
        for tool in &tools {
            let schema = Value::Object(JsonObject::clone(&tool.input_schema));
            assert_eq!(schema["type"], "object", "{}", tool.name);
            assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
            assert!(schema["required"].is_array(), "{}", tool.name);
            assert!(tool.description.as_deref().is_some_and(|d| d.len() > 40));
            assert!(tool.title.is_some());
        }
        let search = Value::Object(JsonObject::clone(&tools[0].input_schema));
        assert_eq!(search["required"], json!(["query"]));
        assert_eq!(search["properties"]["limit"]["maximum"], MAX_LIMIT);
        let call = Value::Object(JsonObject::clone(&tools[2].input_schema));
        assert_eq!(call["required"], json!(["name"]));
        assert_eq!(call["properties"]["arguments"]["type"], "object");
        // The two that only read say so; their results have a declared shape.
        for tool in &tools[..2] {
            assert_eq!(
                tool.annotations.as_ref().and_then(|a| a.read_only_hint),
                Some(true)
            );
            assert!(tool.output_schema.is_some());
        }
        assert!(
            tools[2].output_schema.is_none(),
            "a call answers its tool's own result"
        );
        assert!(is_fixed("call_tool") && !is_fixed("mcp__a__call_tool"));
    }

    #[test]
    fn search_arguments_are_read_with_their_defaults() {
        assert_eq!(
            search(Some(&args(json!({"query": "weather"})))).unwrap(),
            Search {
                query: "weather".into(),
                limit: 10
            }
        );
        assert_eq!(
            search(Some(&args(json!({"query": "天气", "limit": 50}))))
                .unwrap()
                .limit,
            50
        );
        assert_eq!(
            search(Some(&args(json!({"query": "x", "limit": null}))))
                .unwrap()
                .limit,
            10
        );
    }

    #[test]
    fn bad_search_arguments_are_invalid_params_naming_the_argument() {
        refused(search(None), "`query` is required");
        refused(
            search(Some(&args(json!({"query": "  "})))),
            "`query` must not be empty",
        );
        refused(
            search(Some(&args(json!({"query": 3})))),
            "`query` must be a string",
        );
        refused(
            search(Some(&args(
                json!({"query": "x".repeat(MAX_QUERY_CHARS + 1)}),
            ))),
            "at most 1000 characters",
        );
        for limit in [json!(0), json!(51), json!(2.5), json!("5"), json!(-1)] {
            refused(
                search(Some(&args(json!({"query": "x", "limit": limit})))),
                "`limit` must be an integer from 1 to 50",
            );
        }
        refused(
            search(Some(&args(json!({"query": "x", "q": "y"})))),
            "unknown argument `q`",
        );
    }

    #[test]
    fn describe_and_call_arguments_name_a_tool() {
        assert_eq!(
            describe(Some(&args(json!({"name": "echo"})))).unwrap(),
            "echo"
        );
        refused(describe(None), "describe_tool: `name` is required");
        refused(
            describe(Some(&args(json!({"name": ["echo"]})))),
            "must be a string",
        );
        refused(
            describe(Some(&args(json!({"name": "a", "tool": "b"})))),
            "unknown argument `tool`",
        );

        let called = call(Some(&args(
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )))
        .unwrap();
        assert_eq!(called.name, "echo");
        assert_eq!(called.arguments, Some(args(json!({"text": "hi"}))));
        assert_eq!(
            call(Some(&args(json!({"name": "echo"}))))
                .unwrap()
                .arguments,
            None
        );
        refused(
            call(Some(&args(json!({"arguments": {}})))),
            "call_tool: `name` is required",
        );
        refused(
            call(Some(&args(json!({"name": "echo", "arguments": "text=hi"})))),
            "`arguments` must be an object",
        );
        refused(
            call(Some(&args(json!({"name": "echo", "text": "hi"})))),
            "unknown argument `text`",
        );
    }
}
