//! One scripted answer of the [`ScriptedLlm`](super::ScriptedLlm), built with constructors and
//! chained modifiers: `Turn::text("hi").delay(..)`, `Turn::error(429, "slow").retry_after(1)`.

use std::time::Duration;

use serde_json::Value;

/// One answer of the script, given to whichever request comes next.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub(crate) reply: Reply,
    pub(crate) delay: Duration,
    pub(crate) usage: Option<(u64, u64)>,
    pub(crate) truncated: bool,
    pub(crate) cut: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// Text, then a search with the provider's tool search, then tool calls (each may be
    /// absent).
    Answer {
        text: String,
        search: Option<NativeSearch>,
        calls: Vec<(String, Value)>,
    },
    /// An HTTP error status with the wire format's error body.
    HttpError(HttpError),
    /// Some text, then an error inside the stream (Anthropic's `error` event, an OpenAI
    /// `{"error": ...}` chunk). Non-streaming requests get it as an HTTP error.
    StreamError {
        text: String,
        kind: String,
        message: String,
    },
}

/// A search the model makes with Anthropic's tool search tool: the query it sends, and the
/// tools the search finds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NativeSearch {
    pub(crate) query: String,
    pub(crate) found: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HttpError {
    pub(crate) status: u16,
    pub(crate) message: String,
    /// `error.type`; a default per status and wire format when `None`.
    pub(crate) kind: Option<String>,
    /// OpenAI's `error.code`.
    pub(crate) code: Option<String>,
    pub(crate) retry_after: Option<u64>,
    pub(crate) retry_after_ms: Option<u64>,
}

impl Turn {
    fn new(reply: Reply) -> Self {
        Self {
            reply,
            delay: Duration::ZERO,
            usage: None,
            truncated: false,
            cut: false,
        }
    }

    /// A plain text answer (finish reason `stop` / `end_turn`). The text is sent verbatim, only
    /// cut into several deltas when streamed.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(Reply::Answer {
            text: text.into(),
            search: None,
            calls: Vec::new(),
        })
    }

    /// The same as [`Turn::text`], named for answers that carry structure in their text, such
    /// as the fenced ```` ```json ```` tool-call blocks of the agent's prompt tool mode.
    pub fn raw_text(text: impl Into<String>) -> Self {
        Self::text(text)
    }

    /// One tool call with these arguments (finish reason `tool_calls` / `tool_use`). Ids are
    /// generated: `call_N` (OpenAI) or `toolu_N` (Anthropic), N counting from 1 across the
    /// server's life.
    pub fn tool_call(name: impl Into<String>, arguments: Value) -> Self {
        Self::tool_calls(vec![(name.into(), arguments)])
    }

    /// Several tool calls in one answer, in this order.
    pub fn tool_calls<N: Into<String>>(calls: Vec<(N, Value)>) -> Self {
        Self::new(Reply::Answer {
            text: String::new(),
            search: None,
            calls: calls
                .into_iter()
                .map(|(name, arguments)| (name.into(), arguments))
                .collect(),
        })
    }

    /// An HTTP error: `status` with the wire format's error body carrying `message`.
    pub fn error(status: u16, message: impl Into<String>) -> Self {
        Self::new(Reply::HttpError(HttpError {
            status,
            message: message.into(),
            kind: None,
            code: None,
            retry_after: None,
            retry_after_ms: None,
        }))
    }

    /// A stream that starts well (a little text) and then reports an error of type `kind`
    /// (`overloaded_error`, `api_error`, ...) inside the stream.
    pub fn stream_error(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Reply::StreamError {
            text: "Partial ".into(),
            kind: kind.into(),
            message: message.into(),
        })
    }

    /// Text the model says before its tool calls (or replaces the text of a text answer).
    ///
    /// # Panics
    ///
    /// On an error turn.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        match &mut self.reply {
            Reply::Answer { text: current, .. } | Reply::StreamError { text: current, .. } => {
                *current = text.into();
            }
            Reply::HttpError(_) => panic!("Turn::with_text does not apply to Turn::error"),
        }
        self
    }

    /// Before its tool calls (after its text) the model searches the tools with Anthropic's
    /// tool search tool, which finds `found`: on the Anthropic wire the answer carries a
    /// `server_tool_use` of the request's tool search tool (`tool_search_tool_bm25` when the
    /// request has none) with input `{"query": query}`, then its `tool_search_tool_result`
    /// whose `tool_reference`s name `found`, streamed as the API streams them (the input in
    /// fragments, the result whole). Chat completions have no such search: on the OpenAI wire
    /// the search is left out. Ids are `srvtoolu_N`, counted with the tool calls.
    ///
    /// ```no_run
    /// # use serde_json::json;
    /// # use switchboard_testkit::Turn;
    /// let turn = Turn::tool_call("get_weather", json!({"location": "Paris"}))
    ///     .with_tool_search("weather", &["get_weather"]);
    /// # let _ = turn;
    /// ```
    ///
    /// # Panics
    ///
    /// On an error turn.
    pub fn with_tool_search(mut self, query: impl Into<String>, found: &[&str]) -> Self {
        match &mut self.reply {
            Reply::Answer { search, .. } => {
                *search = Some(NativeSearch {
                    query: query.into(),
                    found: found.iter().map(|name| (*name).to_owned()).collect(),
                });
            }
            _ => panic!("Turn::with_tool_search applies to answers only"),
        }
        self
    }

    /// Waits this long before answering.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Reports this usage instead of the estimate (input and output tokens).
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = Some((input_tokens, output_tokens));
        self
    }

    /// The answer stops for lack of output tokens (`length` / `max_tokens`).
    pub fn truncated(mut self) -> Self {
        self.truncated = true;
        self
    }

    /// A streamed answer breaks off: the connection is dropped after the first half of its
    /// frames, with neither a finish nor the end of the stream, as a network that fails or a
    /// provider that dies mid-answer. Give it text of several words so the cut falls inside
    /// the text. A request that is not streamed gets the whole answer.
    pub fn cut(mut self) -> Self {
        self.cut = true;
        self
    }

    /// Sends `retry-after: <seconds>` with the error.
    ///
    /// # Panics
    ///
    /// On a turn that is not [`Turn::error`]; so do the other error modifiers.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.http_error("retry_after").retry_after = Some(seconds);
        self
    }

    /// Sends `retry-after-ms: <milliseconds>` (OpenAI's header) with the error.
    pub fn retry_after_ms(mut self, milliseconds: u64) -> Self {
        self.http_error("retry_after_ms").retry_after_ms = Some(milliseconds);
        self
    }

    /// Sets OpenAI's `error.code` (`context_length_exceeded`, `invalid_api_key`, ...).
    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.http_error("code").code = Some(code.into());
        self
    }

    /// Sets `error.type` instead of the default for the status.
    pub fn error_type(mut self, kind: impl Into<String>) -> Self {
        self.http_error("error_type").kind = Some(kind.into());
        self
    }

    fn http_error(&mut self, modifier: &str) -> &mut HttpError {
        match &mut self.reply {
            Reply::HttpError(error) => error,
            _ => panic!("Turn::{modifier} applies to Turn::error only"),
        }
    }
}
