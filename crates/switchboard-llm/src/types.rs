//! The provider-neutral shape of a conversation, a request and a streamed answer.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who speaks. Tool results travel in a `User` message (Anthropic's rule; the OpenAI adapter
/// turns them into `tool` messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: Vec<Part>,
}

impl ChatMessage {
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![Part::Text(text.into())],
        }
    }

    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: vec![Part::Text(text.into())],
        }
    }
}

/// A piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Part {
    Text(String),
    /// Base64 image data (user messages; models that take images).
    Image {
        media_type: String,
        data: String,
    },
    /// A tool call the assistant made (assistant messages).
    ToolCall(ToolCall),
    /// The answer to a tool call (user messages).
    ToolResult(ToolResult),
    /// A block of the provider's own in an assistant message, kept as the provider sent it so
    /// that it can be sent back unchanged: Anthropic's `server_tool_use` and the server tool's
    /// result (`tool_search_tool_result`). The Anthropic adapter replays it; the OpenAI
    /// adapter, whose API has no such blocks, drops it.
    Provider(Value),
}

/// A tool call as the model made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id (`call_...`, `toolu_...`), echoed back with the result.
    pub id: String,
    /// The function name the model used (for native tools, the mangled `mcp__server__tool`).
    pub name: String,
    /// The arguments, parsed. A model that sent arguments that are not a JSON object gets
    /// them under `arguments_error` instead (see [`ToolCall::arguments_error`]).
    pub arguments: Map<String, Value>,
    /// Why the raw arguments could not be read as a JSON object, with the raw text; the agent
    /// returns this to the model as an invalid-arguments error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_error: Option<String>,
}

/// The result of one tool call, sent back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub call_id: String,
    pub content: Vec<ResultPart>,
    /// The tool failed; the model sees it as an error result, not a crash.
    pub is_error: bool,
}

/// A piece of a tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum ResultPart {
    Text(String),
    /// Base64 image data; adapters send it as the provider's image block where the provider
    /// takes images in tool results, and as a note plus a user image otherwise.
    Image {
        media_type: String,
        data: String,
    },
}

/// A function the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments, already converted for the provider's dialect.
    pub parameters: Value,
    /// OpenAI Structured Outputs (`strict: true`); ignored by Anthropic.
    #[serde(default)]
    pub strict: bool,
    /// Left out of the model's context until the provider's own tool search finds it
    /// (Anthropic's `defer_loading: true`). Sent only with a
    /// [`ChatRequest::native_tool_search`]; ignored by OpenAI's chat completions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
}

/// The provider's own tool search, which finds [`ToolDefinition::defer_loading`] tools for the
/// model on the provider's side (Anthropic's tool search tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NativeToolSearch {
    /// Natural-language queries ranked by BM25 (`tool_search_tool_bm25_20251119`).
    Bm25,
    /// Python regular expressions over names, descriptions and arguments
    /// (`tool_search_tool_regex_20251119`).
    Regex,
}

/// One call to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    pub messages: Vec<ChatMessage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    /// Required by Anthropic; adapters choose a default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// The provider's tool search, offered beside `tools`; the tools marked
    /// [`ToolDefinition::defer_loading`] are then found through it. Anthropic only: the OpenAI
    /// adapter ignores it (chat completions have no tool search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_tool_search: Option<NativeToolSearch>,
}

impl ChatRequest {
    /// The temperature as the decimal it was written as: an `f32` widened to JSON's `f64`
    /// would send 0.7 as 0.699999988079071.
    pub(crate) fn wire_temperature(&self) -> Option<Value> {
        let shortest = self.temperature?.to_string();
        shortest.parse::<f64>().ok().map(Value::from)
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A complete answer.
    Stop,
    /// It wants tools called.
    ToolCalls,
    /// It ran out of output tokens.
    Length,
    /// The provider filtered the answer.
    ContentFilter,
    /// Anything else, as the provider named it.
    Other(String),
}

/// Tokens used by one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// What a streamed answer is made of. Tool calls are identified by `index`, their position in
/// the answer; a call's `ToolCallStart` comes before its argument deltas and its
/// `ToolCallEnd`. `Finish` comes last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    TextDelta {
        text: String,
    },
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    ToolCallDelta {
        index: usize,
        arguments: String,
    },
    ToolCallEnd {
        index: usize,
    },
    Usage {
        usage: Usage,
    },
    /// A whole block of the provider's own (see [`Part::Provider`]), once it is complete:
    /// a `server_tool_use` with its input, the server tool's result.
    ProviderBlock {
        block: Value,
    },
    Finish {
        reason: FinishReason,
    },
}
