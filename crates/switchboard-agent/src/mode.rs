//! The three ways tools are offered to a model (DESIGN.md "Tools offered to the model").
//!
//! Each mode answers the same four questions: which function definitions go in the request,
//! what the system prompt adds, which tool calls a model answer contains, and how a round of
//! calls and results is written back into the conversation for the next model call.

pub mod meta;
pub mod native;
mod params;
pub mod prompt;
pub mod read_result;
pub mod search;

use serde_json::{Map, Value};
use switchboard_core::{ErrorCode, ToolCallRecord};
use switchboard_llm::{ChatMessage, Completion, Part, ToolDefinition, WireFormat};
use switchboard_store::ToolMode;

use crate::offer::{Offer, OfferedTool};
use crate::results::MappedResult;

/// A tool call found in a model answer, resolved against the offer where possible.
#[derive(Debug, Clone)]
pub struct FoundCall {
    pub id: String,
    /// What the model called (the function name, `mcp_query`, or `use_mcp_tool`).
    pub called_as: String,
    /// The server and tool the model meant, as it wrote them.
    pub server_name: String,
    pub tool_name: String,
    pub arguments: Map<String, Value>,
    /// The tool, or why the call cannot be made (unknown tool, unreadable arguments); the
    /// reason goes back to the model as the call's error result.
    pub target: Result<OfferedTool, CallProblem>,
}

/// Why a found call is not made.
#[derive(Debug, Clone, PartialEq)]
pub struct CallProblem {
    /// An error code of DESIGN.md (`MCP_TOOL_NOT_FOUND`, `MCP_INVALID_PARAMS`, ...).
    pub code: ErrorCode,
    pub message: String,
}

impl CallProblem {
    pub fn unknown_tool(name: &str, offer: &Offer) -> Self {
        let known: Vec<&str> = offer
            .tools()
            .iter()
            .map(|t| t.display_name.as_str())
            .collect();
        CallProblem {
            code: ErrorCode::McpToolNotFound,
            message: format!(
                "there is no tool named {name:?}; the tools are: {}",
                if known.is_empty() {
                    "(none)".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        }
    }
}

/// A tool whose schema could not be offered to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    pub server: String,
    pub tool: String,
    pub reason: String,
}

/// Which of Switchboard's own tools a round offers besides the servers'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OwnTools {
    /// `search_tools`, when tools are deferred.
    pub search: bool,
    /// `read_result`, when a result was too large to be given whole.
    pub read_result: bool,
}

impl OwnTools {
    fn definitions(self) -> Vec<ToolDefinition> {
        let mut definitions = Vec::new();
        if self.search {
            definitions.push(search::definition());
        }
        if self.read_result {
            definitions.push(read_result::definition());
        }
        definitions
    }

    /// Their lines in the meta mode's description or the prompt mode's listing, under the
    /// server `switchboard`.
    fn listed(self, kind: ToolMode) -> String {
        if !self.search && !self.read_result {
            return String::new();
        }
        let mut text = match kind {
            ToolMode::Meta => format!("\n- Server '{}':\n", search::SERVER),
            _ => format!("\n## Server \"{}\"\n", search::SERVER),
        };
        if self.search {
            text.push_str(&search::line(kind));
        }
        if self.read_result {
            text.push_str(&read_result::line(kind));
        }
        if self.search {
            text.push_str(&search::note(kind));
        }
        text
    }
}

/// The mode of one run.
#[derive(Debug, Clone, Copy)]
pub struct Mode {
    pub kind: ToolMode,
    pub wire: WireFormat,
}

impl Mode {
    /// The function definitions for the request, and the tools left out with why.
    pub fn definitions(&self, offer: &Offer) -> (Vec<ToolDefinition>, Vec<LeftOut>) {
        match self.kind {
            ToolMode::Prompt => (Vec::new(), Vec::new()),
            ToolMode::Meta => (vec![meta::definition(offer)], Vec::new()),
            _ => native::definitions(offer, self.wire),
        }
    }

    /// The function definitions and system prompt of a round that shows `shown` (the whole
    /// offer, or with deferred tools the pinned and found ones) and Switchboard's `own`
    /// tools, in this mode's way; and the tools left out.
    pub fn offered(
        &self,
        shown: &Offer,
        base: &str,
        own: OwnTools,
    ) -> (Vec<ToolDefinition>, Option<String>, Vec<LeftOut>) {
        match self.kind {
            ToolMode::Prompt => {
                let listing = prompt::instructions_with(shown, &own.listed(self.kind));
                (Vec::new(), Some(joined(base, listing)), Vec::new())
            }
            ToolMode::Meta => {
                let definition = meta::definition_with(shown, &own.listed(self.kind));
                (vec![definition], joined_base(base), Vec::new())
            }
            _ => {
                let (mut definitions, left_out) = native::definitions(shown, self.wire);
                definitions.extend(own.definitions());
                (definitions, joined_base(base), left_out)
            }
        }
    }

    /// Whether [`Mode::definitions`] converts each tool's schema (native mode), so that its
    /// definitions and left-out tools together are the conversions attempted.
    pub fn converts_schemas(&self) -> bool {
        !matches!(self.kind, ToolMode::Prompt | ToolMode::Meta)
    }

    /// The system prompt: the assistant's own, plus the tool listing in prompt mode.
    pub fn system_prompt(&self, base: &str, offer: &Offer) -> Option<String> {
        let addition = match self.kind {
            ToolMode::Prompt if !offer.is_empty() => Some(prompt::instructions(offer)),
            _ => None,
        };
        match addition {
            Some(addition) => Some(joined(base, addition)),
            None => joined_base(base),
        }
    }

    /// The tool calls in a model answer (`round` numbers the generated ids in prompt mode).
    pub fn found_calls(&self, answer: &Completion, offer: &Offer, round: u32) -> Vec<FoundCall> {
        match self.kind {
            ToolMode::Prompt => prompt::found_calls(&answer.text, offer, round),
            ToolMode::Meta => answer
                .tool_calls
                .iter()
                .map(|call| meta::found_call(call, offer))
                .collect(),
            _ => answer
                .tool_calls
                .iter()
                .map(|call| native::found_call(call, offer))
                .collect(),
        }
    }

    /// One round replayed to the model: its assistant message (text and calls), then the
    /// message carrying the results.
    pub fn replay_round(
        &self,
        text: &str,
        calls: &[(&ToolCallRecord, MappedResult)],
    ) -> Vec<ChatMessage> {
        let mut assistant = Vec::new();
        if !text.is_empty() {
            assistant.push(Part::Text(text.to_owned()));
        }
        let results = match self.kind {
            ToolMode::Prompt => prompt::results_message(calls),
            ToolMode::Meta => {
                assistant.extend(calls.iter().map(|(record, _)| meta::replayed_call(record)));
                meta::results_message(calls)
            }
            _ => {
                assistant.extend(
                    calls
                        .iter()
                        .map(|(record, _)| native::replayed_call(record)),
                );
                native::results_message(calls)
            }
        };
        let mut out = Vec::with_capacity(2);
        if !assistant.is_empty() {
            out.push(ChatMessage {
                role: switchboard_llm::Role::Assistant,
                content: assistant,
            });
        }
        if let Some(results) = results {
            out.push(results);
        }
        out
    }
}

/// The assistant's prompt, if it has one.
fn joined_base(base: &str) -> Option<String> {
    (!base.trim().is_empty()).then(|| base.to_owned())
}

/// The assistant's prompt followed by `addition`.
fn joined(base: &str, addition: String) -> String {
    if base.trim().is_empty() {
        addition
    } else {
        format!("{base}\n\n{addition}")
    }
}
