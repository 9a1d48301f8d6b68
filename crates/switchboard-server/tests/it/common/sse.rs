//! Reading a `text/event-stream` response event by event.

use futures::StreamExt;
use serde_json::Value;

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub id: Option<String>,
    pub event: String,
    pub data: Value,
}

pub struct SseReader {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            stream: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next event (comments skipped); `None` when the stream ends.
    pub async fn next(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse(&block) {
                    return Some(event);
                }
                continue;
            }
            let chunk = self.stream.next().await?.ok()?;
            self.buffer
                .push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
        }
    }

    /// Reads events until one of type `kind`; returns it and those before it.
    pub async fn until(&mut self, kind: &str) -> (SseEvent, Vec<SseEvent>) {
        let mut seen = Vec::new();
        loop {
            let event = self
                .next()
                .await
                .unwrap_or_else(|| panic!("the stream ended before {kind}: {seen:#?}"));
            if event.event == kind {
                return (event, seen);
            }
            seen.push(event);
        }
    }
}

fn parse(block: &str) -> Option<SseEvent> {
    let mut id = None;
    let mut event = "message".to_owned();
    let mut data = String::new();
    for line in block.lines() {
        if let Some(v) = line.strip_prefix("id:") {
            id = Some(v.trim().to_owned());
        } else if let Some(v) = line.strip_prefix("event:") {
            v.trim().clone_into(&mut event);
        } else if let Some(v) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(v.strip_prefix(' ').unwrap_or(v));
        }
    }
    if data.is_empty() {
        return None;
    }
    Some(SseEvent {
        id,
        event,
        data: serde_json::from_str(&data).unwrap_or(Value::String(data)),
    })
}
