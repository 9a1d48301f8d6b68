//! From a streaming HTTP response to an [`EventStream`].
//!
//! Both wire formats stream Server-Sent Events; they differ only in what the messages mean.
//! The framing is parsed by `sse-stream` (the same crate the MCP layer uses); each wire format
//! supplies a [`Decoder`] that turns one message into [`StreamEvent`]s and says when the answer
//! is complete. The decoder also gets the last word when the stream ends, to close what is open
//! and to tell a finished answer from a connection that broke off.

use std::collections::VecDeque;
use std::pin::Pin;

use futures::{Stream, StreamExt};
use sse_stream::{Sse, SseStream};

use crate::error::LlmError;
use crate::provider::EventStream;
use crate::types::StreamEvent;

/// Whether more messages belong to the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    More,
    Done,
}

/// One wire format's reading of its stream.
pub(crate) trait Decoder: Send + 'static {
    /// Handles one message (its `event:` name and its `data:`), appending the events it
    /// completes to `out`.
    fn message(
        &mut self,
        event: Option<&str>,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<Flow, LlmError>;

    /// The stream is over, because [`Decoder::message`] said [`Flow::Done`] or because the
    /// connection closed; appends the closing events, or fails if the answer is incomplete.
    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError>;
}

type Messages = Pin<Box<dyn Stream<Item = Result<Sse, sse_stream::Error>> + Send>>;

struct State<D> {
    messages: Messages,
    decoder: D,
    queue: VecDeque<Result<StreamEvent, LlmError>>,
    over: bool,
}

/// The events of a successful streaming response, as `decoder` reads them. The stream ends
/// after the first error.
pub(crate) fn events(response: reqwest::Response, decoder: impl Decoder) -> EventStream {
    let messages: Messages = Box::pin(SseStream::from_bytes_stream(response.bytes_stream()));
    let state = State {
        messages,
        decoder,
        queue: VecDeque::new(),
        over: false,
    };
    Box::pin(futures::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(item) = state.queue.pop_front() {
                return Some((item, state));
            }
            if state.over {
                return None;
            }
            state.step().await;
        }
    }))
}

impl<D: Decoder> State<D> {
    /// Reads one message (or the end) and queues what it yields.
    async fn step(&mut self) {
        let mut out = Vec::new();
        let result = match self.messages.next().await {
            Some(Ok(message)) => match message.data.as_deref() {
                Some(data) => self
                    .decoder
                    .message(message.event.as_deref(), data, &mut out)
                    .and_then(|flow| match flow {
                        Flow::More => Ok(()),
                        Flow::Done => {
                            self.over = true;
                            self.decoder.end(&mut out)
                        }
                    }),
                // A message without data (only an id or a retry hint) carries nothing.
                None => Ok(()),
            },
            Some(Err(error)) => Err(read_error(error)),
            None => {
                self.over = true;
                self.decoder.end(&mut out)
            }
        };
        self.queue.extend(out.into_iter().map(Ok));
        if let Err(error) = result {
            self.over = true;
            self.queue.push_back(Err(error));
        }
    }
}

/// A connection broken mid-answer is [`LlmError::BrokenOff`]; anything else is a malformed
/// stream.
fn read_error(error: sse_stream::Error) -> LlmError {
    match error {
        sse_stream::Error::Body(source) => match source.downcast::<reqwest::Error>() {
            // The URL may carry credentials (`?key=`): never quoted.
            Ok(error) => LlmError::BrokenOff(error.without_url()),
            Err(other) => LlmError::Protocol(format!("reading the stream failed: {other}")),
        },
        other => LlmError::Protocol(format!("malformed event stream: {other}")),
    }
}

/// Parses a message's JSON data, naming the wire format in the error.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(wire: &str, data: &str) -> Result<T, LlmError> {
    serde_json::from_str(data).map_err(|error| {
        // A short, one-line start: the stream may come from something that is not a model.
        let shown = crate::classify::short_text(data, 100);
        LlmError::Protocol(format!("bad {wire} stream message ({error}): {shown}"))
    })
}
