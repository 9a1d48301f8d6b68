//! `search_tools`: the function a model with deferred tools finds the rest with. It is
//! answered by Switchboard itself (no server runs it, no approval is needed), and every tool
//! it finds is offered in full from the model's next request on, for the rest of the
//! conversation: the found names are read back from the calls stored with the conversation
//! ([`loaded`]), so a reload or a restart keeps them.
//!
//! Each mode offers it its own way: a function in `native` mode; in `meta` mode an operation
//! of the server `switchboard` of `mcp_query`; in `prompt` mode a tool of the server
//! `switchboard` in the listing.

use std::collections::HashSet;

use serde_json::{Value, json};
use switchboard_core::ToolCallRecord;
use switchboard_llm::ToolDefinition;
use switchboard_store::{Message, ToolMode};

use super::FoundCall;
use crate::offer::Offer;
use crate::search::FoundTool;

/// The function's name, and the tool's name under the server [`SERVER`].
pub const NAME: &str = "search_tools";
/// The server the meta and prompt modes name it under.
pub const SERVER: &str = "switchboard";

/// Where a search's result keeps the tools it found (in `_meta`, which the model is not
/// shown: it reads the text).
pub const META_KEY: &str = "switchboard/toolSearch";

/// Tools a search answers with unless the model asks for another number.
pub const DEFAULT_LIMIT: usize = 5;
/// Tools a search answers with at most.
pub const MAX_LIMIT: usize = 20;

const DESCRIPTION: &str = "Searches the tools you can use but have not been shown yet. Give \
     what you want to do in a few words (or a tool's name); you get the best matching tools \
     with what they do. The tools found can be called from your next step on, with their full \
     parameters.";

/// What a search is asked with.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchCall {
    pub query: String,
    pub limit: usize,
}

/// The function definition (native mode).
pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: NAME.into(),
        description: DESCRIPTION.into(),
        parameters: parameters(),
        strict: false,
    }
}

fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What you want to do, or a tool's name."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                      "description": "How many tools to find (5 unless given)."}
        },
        "required": ["query"]
    })
}

/// Its line in the meta mode's description or the prompt mode's listing, under [`SERVER`].
pub fn line(kind: ToolMode) -> String {
    match kind {
        ToolMode::Meta => format!(
            "  - Operation '{NAME}': {DESCRIPTION} Parameters: query (string, required), limit \
             (integer).\n"
        ),
        _ => format!(
            "- **{NAME}**: {DESCRIPTION}\n  Parameters: query (string, required), limit \
             (integer)\n"
        ),
    }
}

/// What the listing says of the tools it does not list.
pub fn note(kind: ToolMode) -> String {
    match kind {
        ToolMode::Meta => {
            format!(
                "More servers and operations exist than are listed here: use '{NAME}' to find them.\n"
            )
        }
        _ => format!("\nMore tools exist than are listed here: use {NAME} to find them.\n"),
    }
}

/// The search a found call asks for, if it is one: a call of [`NAME`] (on [`SERVER`], where
/// the mode names servers) that no offered tool answers to.
pub fn search_call(found: &FoundCall) -> Option<SearchCall> {
    if found.target.is_ok() || found.tool_name != NAME {
        return None;
    }
    if !(found.server_name.is_empty() || found.server_name == SERVER) {
        return None;
    }
    let query = found
        .arguments
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_owned();
    let limit = found
        .arguments
        .get("limit")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_LIMIT, |n| usize::try_from(n).unwrap_or(MAX_LIMIT))
        .clamp(1, MAX_LIMIT);
    Some(SearchCall { query, limit })
}

/// The call's result: the tools found, for the model in words naming them as its mode calls
/// them, and under `_meta` for [`loaded`] and the UI.
pub fn result(kind: ToolMode, query: &str, found: &[FoundTool], offer: &Offer) -> Value {
    let mut text = if found.is_empty() {
        format!("No tool matches {query:?}. Try other words.")
    } else {
        String::from("Found these tools; they can be called from now on:\n")
    };
    for tool in found {
        let description = first_sentences(&tool.description, 300);
        let line = match kind {
            ToolMode::Native => format!("- {}: {description}\n", tool.name),
            ToolMode::Meta => format!(
                "- resource '{}', operation '{}': {description}\n",
                tool.server, tool.tool
            ),
            _ => format!(
                "- server \"{}\", tool \"{}\": {description}\n",
                tool.server, tool.tool
            ),
        };
        text.push_str(&line);
    }
    let listed: Vec<Value> = found
        .iter()
        .filter(|t| offer.by_display_name(&t.name).is_some())
        .map(|t| {
            json!({
                "name": t.name, "server": t.server, "tool": t.tool,
                "description": t.description, "score": t.score,
            })
        })
        .collect();
    json!({
        "content": [{"type": "text", "text": text.trim_end()}],
        "_meta": {META_KEY: {"query": query, "tools": listed}},
        "isError": false,
    })
}

/// `text` up to about `max` characters, cut at a sentence or word end.
fn first_sentences(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max).collect();
    let end = cut
        .rfind(". ")
        .map(|i| i + 1)
        .or_else(|| cut.rfind(' '))
        .unwrap_or(cut.len());
    format!("{}…", &cut[..end])
}

/// Whether a stored call is a search Switchboard answered.
pub fn is_search_record(call: &ToolCallRecord) -> bool {
    call.server_id.0.is_empty() && call.tool_name == NAME
}

/// The offered names of the tools the conversation has loaded: those its searches found and
/// those its model called.
pub fn loaded(messages: &[Message], offer: &Offer) -> HashSet<String> {
    let mut names = HashSet::new();
    for call in messages.iter().flat_map(|m| &m.tool_calls) {
        if is_search_record(call) {
            let tools = call
                .response
                .as_ref()
                .and_then(|r| r.get("_meta"))
                .and_then(|m| m.get(META_KEY))
                .and_then(|s| s.get("tools"))
                .and_then(Value::as_array);
            for tool in tools.into_iter().flatten() {
                if let Some(name) = tool.get("name").and_then(Value::as_str) {
                    names.insert(name.to_owned());
                }
            }
        } else if let Some(tool) = offer
            .tools()
            .iter()
            .find(|t| t.server.id == call.server_id && t.tool.name == call.tool_name)
        {
            names.insert(tool.display_name.clone());
        }
    }
    names
}
